-- pointer chase over 512 MB, L1 bypassed, 4,096 loads (pchase.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").chase("chase_dram", 512 << 20, 4096, true)
