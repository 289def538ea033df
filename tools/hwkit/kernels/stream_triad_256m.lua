-- STREAM triad, 3 x 256 MB (stream.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
return dofile(here .. "common.lua").stream("stream_triad_256m", "triad", 8192)
