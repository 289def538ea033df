-- MUFU.RSQ independent streams (ILP 8), 1 trip of 128, every SM full (throughput.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
return dofile(here .. "common.lua").stream_op("mufu_stream", "sfu", "MufuOp", 20, 1)
