-- global atomics, every thread to one address (atomics.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").atom_global("atom_same", 4)
