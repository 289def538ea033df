-- LDS dependent chain, 2,048 loads (shared.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").lds_chain("lds_chain")
