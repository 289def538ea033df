-- LDS bandwidth, lanes 8 B apart: 2-way bank conflicts (shared.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").lds_bw("lds_stride2", 8)
