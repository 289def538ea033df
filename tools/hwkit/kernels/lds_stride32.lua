-- LDS bandwidth, lanes 128 B apart: 32-way bank conflicts (shared.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
return dofile(here .. "common.lua").lds_bw("lds_stride32", 128)
