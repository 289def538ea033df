-- FFMA and IADD3/LOP3 streams together, 4 trips of 64 + 64, every SM full (throughput.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").mixed("mixed_stream", 14, 4)
