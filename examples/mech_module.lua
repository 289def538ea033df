-- A new module for Blem's M-core: tensor cores (docs/mech.md, "Writing a module").
--
--   gpush examples/mech_module.lua [--core gtx660ti] [--width 256]
--
-- The GTX 660 Ti has no tensor cores; its preset runs an MMA through a
-- placeholder `tensor` pipeline at one warp instruction per 64 cycles per
-- scheduler (ops.tensor.interval), which the timing module charges.  Here
-- MMAs issue like FP32 instructions (ops.tensor.interval set to the FP32
-- one) and this module charges a tensor unit of `width` MMA lanes per SM:
-- every MMA occupies it for warp_size x mma_lanes / width cycles, and what
-- the unit's time exceeds the SM's issue time per instruction goes to T_comp
-- (like GPUPerf's O_SFU).  A synthetic kernel of loads and dependent MMAs is
-- predicted without and with the module; the breakdown shows what the
-- module added and its marginal effect.
local gpush = require "gpush"
local mech = require "gpush.models.mech"

local core_name, width = "gtx660ti", 256
local i = 1
while arg and arg[i] do
  if arg[i] == "--core" then
    core_name, i = arg[i + 1], i + 2
  elseif arg[i] == "--width" then
    width, i = tonumber(arg[i + 1]), i + 2
  else
    io.stderr:write("usage: gpush examples/mech_module.lua [--core NAME] [--width LANES]\n")
    os.exit(2)
  end
end

-- The module (examples/modules/tensor.lua): one input (tensor instructions
-- per warp, read from the measured instruction mix n_i), two parameters of
-- its own, one term.  `gpush mech --module examples/modules/tensor.lua`
-- plugs the same file in from the command line.
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
local tensor = require "modules.tensor"

-- A kernel of 4 trips: two loads, four dependent MMAs, a store.
local kernel = assert(gpush.workloads.kernel {
  name = "mma_tiles", grid = 448, block = 256, trips = 4,
  streams = { a = { kind = "coalesced", footprint = 32 << 20 },
    c = { kind = "coalesced", base = 0x100000000, footprint = 32 << 20 } },
  body = {
    { "ld_global", stream = "a" }, { "ld_global", stream = "a" },
    { "tensor", dep = 1 }, { "tensor", dep = 1 }, { "tensor", dep = 1 }, { "tensor", dep = 1 },
    { "st_global", stream = "c", dep = 1 },
  },
})

local cfg = assert(gpush.config.load(assert(mech.mcore.core(core_name)).info.gpu))
local plain = assert(mech.mcore.core(core_name, { "ops.tensor.interval=" .. cfg.ops.fp32.interval }))
local inputs = assert(plain:inputs(kernel))
local with_tensor = plain:with(tensor, { tensor_width = width })

print(("mma_tiles on the M-core '%s': %.1f MMAs per warp, %d warps"):format(core_name, inputs.n_i.tensor,
  inputs.warps))
for _, m in ipairs { { "MMAs issued like FP32", plain }, { ("with a %d-lane tensor unit"):format(width), with_tensor } } do
  local r = assert(m[2]:predict(inputs))
  print(("%-30s %10.0f cycles  comp %10.0f  mem %10.0f  overlap %10.0f"):format(m[1], r.cycles, r.terms.comp,
    r.terms.mem, r.terms.overlap))
  if r.modules.tensor then
    print(("%-30s added %.0f cycles to T_comp, marginal effect %+.0f cycles"):format("  tensor module",
      r.modules.tensor, r.effects.tensor))
  end
end
