-- DFMA independent streams (ILP 8), 4 trips of 128, every SM full (throughput.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").stream_op("dfma_stream", "fp64", "DfmaOp", 22, 4)
