-- A user's module for Blem's M-core: tensor cores (docs/mech.md, "Writing a module").
--
--   gpush mech --core gtx660ti --module examples/modules/tensor.lua -p tensor_width=128 suite:fma_compute
--   local tensor = require "modules.tensor"     -- from a script in examples/ (examples/mech_module.lua)
--
-- MMAs issue like FP32 instructions and the module charges a tensor unit of
-- `tensor_width` MMA lanes per SM: every MMA occupies it for warp_size x
-- mma_lanes / width cycles, and what the unit's time exceeds the SM's issue
-- time per instruction goes to T_comp (like GPUPerf's O_SFU).
local mech = require "gpush.models.mech"

-- The module: one input (tensor instructions per warp, read from the
-- measured instruction mix n_i), two parameters of its own, one term.
return mech.framework.module {
  name = "tensor", adds = { "comp" },
  description = "tensor-core MMAs: warp_size x mma_lanes / width cycles each on the SM's tensor units",
  source = "examples/mech_module.lua (a user's module)",
  inputs = { "n_i", "N_I" },
  params = {
    { "tensor_width", "number", default = 256, min = 1, unit = "lanes", desc = "MMA lanes of the SM's tensor units" },
    { "mma_lanes", "number", default = 8, min = 1, unit = "lane-cycles", desc = "unit lane-cycles one thread's MMA needs" },
    "warp_size",
  },
  -- serial: after the base's W_parallel and T_mem, like the SFU module
  serial = function(s)
    local mmas = s.input.n_i.tensor or 0
    if mmas == 0 then
      return
    end
    local per_mma = s.hw.warp_size * s.hw.mma_lanes / s.hw.tensor_width
    -- the part of the unit's time the SPs' issue (cycles_per_inst per instruction) does not cover
    local hidden = s.q.cycles_per_inst
    local exposed = math.max(0, per_mma - hidden)
    s.q.tensor_cycles = per_mma
    s:add("comp", mmas * s.q.warps_per_sm * exposed, "MMAs x warps/SM x exposed unit cycles")
  end,
}
