-- short blocks of about 70 registers a thread (dispatch.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
return dofile(here .. "common.lua").dispatch_fat("dispatch_fat")
