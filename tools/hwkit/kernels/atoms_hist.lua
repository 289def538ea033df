-- shared-memory atomics, no bank conflicts (atomics.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").atom_shared("atoms_hist")
