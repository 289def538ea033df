-- gpush.models.mech: Blem's modular mechanistic models (docs/mech.md).
--
--   local mech = require "gpush.models.mech"
--   local atom = assert(mech.score.core("atom"))
--   local kepler = assert(mech.mcore.core("gtx660ti", { "dram.bandwidth_gbs=96" }))
--   local r = assert(kepler:predict(assert(kepler:inputs(kernel))))
--
-- framework: modules and models over T = T_comp + T_mem + T_control -
-- T_overlap; params: every parameter and input, declared once; score and
-- mcore: the S-core and M-core modules, bases and presets; inputs: workload
-- inputs from YAML or Lua files.
return {
  framework = require "gpush.models.mech.framework",
  params = require "gpush.models.mech.params",
  score = require "gpush.models.mech.score",
  mcore = require "gpush.models.mech.mcore",
  inputs = require "gpush.models.mech.inputs",
}
