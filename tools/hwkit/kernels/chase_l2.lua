-- pointer chase over 4 MB, L1 bypassed, 4 x 32,768 loads (pchase.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").chase("chase_l2", 4 << 20, 4 * 32768, true)
