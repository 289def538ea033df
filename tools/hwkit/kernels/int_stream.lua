-- IADD3/LOP3 independent streams (ILP 8), 4 trips of 128, every SM full (throughput.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").stream_op("int_stream", "int", "IntOp", 14, 4)
