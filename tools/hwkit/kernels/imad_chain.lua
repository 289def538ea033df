-- IMAD dependent chain, 40 trips of 128 (chains.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").chain("imad_chain", "imad", "ImadOp", 8, 40)
