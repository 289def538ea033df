-- MUFU.RSQ dependent chain, 40 trips of 128 (chains.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").chain("mufu_chain", "sfu", "MufuOp", 12, 40)
