-- STREAM triad, 3 x 64 MB (stream.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").stream("stream_triad", "triad", 2048)
