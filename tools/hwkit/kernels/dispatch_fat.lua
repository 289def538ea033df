-- short blocks of about 70 registers a thread (dispatch.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").dispatch_fat("dispatch_fat")
