-- LDS bandwidth, lanes 4 B apart: no bank conflict (shared.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").lds_bw("lds_stride1", 4)
