-- MUFU.RSQ dependent chain, 40 trips of 128 (chains.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
return dofile(here .. "common.lua").chain("mufu_chain", "sfu", "MufuOp", 12, 40)
