-- short blocks, 200 KB of dynamic shared memory (dispatch.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").dispatch_lean("dispatch_lean_200k", 200 << 10)
