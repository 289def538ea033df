-- global atomics to 4,096 random bins (atomics.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
return dofile(here .. "common.lua").atom_global("atom_hist", 16 << 10)
