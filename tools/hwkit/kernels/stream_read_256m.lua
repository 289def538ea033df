-- a read stream, 256 MB (stream.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").stream("stream_read_256m", "read", 8192)
