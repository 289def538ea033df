-- DFMA dependent chain, 40 trips of 128 (chains.cu)
-- (tools/hwkit, docs/hwkit.md; the description is built in common.lua)
return dofile("common.lua").chain("dfma_chain", "fp64", "DfmaOp", 8, 40)
