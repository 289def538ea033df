-- STREAM triad, 3 x 256 MB (stream.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").stream("stream_triad_256m", "triad", 8192)
