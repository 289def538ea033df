-- LDS bandwidth, lanes 4 B apart: no bank conflict (shared.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
return dofile(here .. "common.lua").lds_bw("lds_stride1", 4)
