-- short blocks, 64 KB of dynamic shared memory (dispatch.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").dispatch_lean("dispatch_lean_64k", 64 << 10)
