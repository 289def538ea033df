-- LDS bandwidth, lanes 128 B apart: 32-way bank conflicts (shared.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").lds_bw("lds_stride32", 128)
