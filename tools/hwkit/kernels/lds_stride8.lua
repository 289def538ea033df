-- LDS bandwidth, lanes 32 B apart: 8-way bank conflicts (shared.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").lds_bw("lds_stride8", 32)
