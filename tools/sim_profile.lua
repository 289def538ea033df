-- The simulator on `gpush bench sim`'s kernel, one run, for callgrind's
-- instruction counts (docs/sim.md, "Benchmark"):
--
--   gpush tools/sim_profile.lua [POLICY] [MODE] [MILLIONS] [PRESET]
--     POLICY    lrr (default), gto or two-level
--     MODE      run (default): build the kernel, then one run without the
--               per-PC accounting (as a sweep runs); load: build the kernel
--               only (subtract it from run's count)
--     MILLIONS  warp instructions, in millions (default 2)
--     PRESET    the machine (default gtx1080, issue width 2; a100: width 1)
--
-- bench sim seeds its kernel with 11; so does this.  The run's instructions
-- per warp instruction are (run - load) / the count printed on stderr.
local bench = require "gpush.cmd.bench"
local config = require "gpush.config"
local models = require "gpush.models"

local policy, mode, millions = arg[1] or "lrr", arg[2] or "run", tonumber(arg[3] or "2")
local preset = arg[4] or "gtx1080"
if mode ~= "run" and mode ~= "load" then
  io.stderr:write("sim_profile: MODE must be run or load, not " .. tostring(mode) .. "\n")
  os.exit(2)
end
if not millions or millions <= 0 then
  io.stderr:write("sim_profile: MILLIONS must be a number above 0\n")
  os.exit(2)
end
local kernel = bench.warp_kernel("sim", millions, 11, io.stderr)
if mode == "run" then
  local sim = assert(models.family("sim"))
  local r = assert(sim.run(kernel, assert(config.load(preset)), { policy = policy, per_pc = false }))
  io.stderr:write(("sim_profile: %s on %s, %d warp instructions, %.0f cycles\n")
    :format(policy, preset, r.warp_instructions, r.cycles))
end
