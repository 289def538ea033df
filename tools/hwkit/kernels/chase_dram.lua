-- pointer chase over 512 MB, L1 bypassed, 4,096 loads (pchase.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
return dofile(here .. "common.lua").chase("chase_dram", 512 << 20, 4096, true)
