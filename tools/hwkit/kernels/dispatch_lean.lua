-- short blocks, no shared memory (dispatch.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").dispatch_lean("dispatch_lean", 0)
