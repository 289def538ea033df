-- IADD3/LOP3 dependent chain, 40 trips of 128 (chains.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
return dofile(here .. "common.lua").chain("int_chain", "int", "IntOp", 8, 40)
