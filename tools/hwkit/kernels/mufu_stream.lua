-- MUFU.RSQ independent streams (ILP 8), 1 trip of 128, every SM full (throughput.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").stream_op("mufu_stream", "sfu", "MufuOp", 20, 1)
