-- global atomics to 4,096 random bins (atomics.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").atom_global("atom_hist", 16 << 10)
