-- a read stream, 64 MB (stream.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").stream("stream_read", "read", 2048)
