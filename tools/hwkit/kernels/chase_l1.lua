-- pointer chase over 16 KB through L1, 4,096 loads (pchase.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").chase("chase_l1", 16 << 10, 4096, false)
