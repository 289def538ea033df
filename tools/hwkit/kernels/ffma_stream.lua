-- FFMA independent streams (ILP 8), 8 trips of 128, every SM full (throughput.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").stream_op("ffma_stream", "fp32", "FfmaOp", 21, 8)
