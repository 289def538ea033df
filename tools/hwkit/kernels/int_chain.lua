-- IMAD.IADD/LOP3 dependent chain (IntOp on sm_90), 40 trips of 128 (chains.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").chain("int_chain", "int", "IntOp", 8, 40)
