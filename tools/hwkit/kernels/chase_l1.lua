-- pointer chase over 16 KB through L1, 4,096 loads (pchase.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
return dofile(here .. "common.lua").chase("chase_l1", 16 << 10, 4096, false)
