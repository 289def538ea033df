-- Example: a new model module written in Lua, next to GPUMech and the simulator.
--
--   gpush examples/new_model.lua [--config NAME] [--traces PATH] [--sim]
--
-- examples/models/bottleneck.lua is a whole model in sixty lines of Lua: the
-- largest of four lower bounds per thread-block wave (issue, DRAM bandwidth,
-- MSHR throughput by Little's law, one warp's critical path).  This script
-- loads it like any Lua module (the folder of this script is put on
-- package.path), registers it with the models registry (gpush.models, the
-- home of GPUMech and the simulator too), runs it on every kernel of the
-- input (default: the embedded suite) and prints it next to GPUMech and, with
-- --sim, the abstract simulator, with the bound that binds.  gpush.experiment
-- takes the same module as a model of a sweep (see examples/custom_sweep.lua).
local gpush = require "gpush"
local models = require "gpush.models"

local here = (arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
models.register("bottleneck", require "models.bottleneck")
local bottleneck = models.get("bottleneck")
local gpumech, sim = assert(models.family("gpumech")), assert(models.family("sim"))

local opts = assert(require("gpush.cli").parse_args(arg, { ["--config"] = "=config", ["--traces"] = "=traces",
  ["--sim"] = "sim" }))
local cfg = assert(gpush.config.load(opts.config or "gtx660ti"))
local iter = assert(gpush.trace.kernels_of(opts.traces or "suite"))

print(("Bottleneck model vs GPUMech (RR)%s on '%s' (cycles)"):format(opts.sim and " vs the simulator (LRR)" or "",
  cfg._name))
print(("%-20s %12s %-8s %12s%s"):format("kernel", "bottleneck", "bound", "GPUMech", opts.sim and "    simulator" or ""))
for launch, kernel in iter do
  local cache = {} -- the memory replay, shared by both models
  local prepared = assert(bottleneck.prepare(kernel, cfg))
  local b = assert(bottleneck.run(kernel, cfg, prepared, cache))
  local g = assert(gpumech.predict(kernel, cfg, { prepared = prepared.gpumech, memory_cache = cache }))
  local line = ("%-20s %12.0f %-8s %12.0f"):format(launch.kernel:sub(1, 20), b.cycles, b.bound, g.cycles)
  if opts.sim then
    line = line .. ("%13.0f"):format(assert(sim.run(kernel, cfg)).cycles)
  end
  print(line)
end
