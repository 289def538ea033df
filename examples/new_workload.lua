-- Example: a new synthetic workload, predicted by GPUMech and the simulator.
--
--   gpush examples/new_workload.lua [--config NAME] [--grid N]
--
-- A 5-point 2-D stencil: each thread loads its cell and four neighbours
-- (the left/right ones from the same lines, the up/down ones a row away),
-- combines them with FMAs and stores the result.  The description below is
-- all a new workload needs: named address streams, a body of instructions
-- with dependence distances, and the launch geometry.  gpush.workloads
-- checks it (unknown classes, missing streams) with messages that say what
-- to fix, and the C generator makes the kernel deterministically.
local gpush = require "gpush"
local models = require "gpush.models"

local opts = assert(require("gpush.cli").parse_args(arg, { ["--config"] = "=config", ["--grid"] = "=grid" }))
local cfg = assert(gpush.config.load(opts.config or "gtx1080"))
local grid = tonumber(opts.grid or 512)

local MB = 1 << 20
local row = 4096 * 4 -- bytes per row of a 4096-wide float grid

local stencil = {
  name = "stencil5", grid = grid, block = 256, regs = 32, trips = 4, seed = 7,
  streams = {
    centre = { kind = "coalesced", footprint = 64 * MB },
    up = { kind = "coalesced", footprint = 64 * MB, base = 0x10000000 - row },
    down = { kind = "coalesced", footprint = 64 * MB, base = 0x10000000 + row },
    out = { kind = "coalesced", footprint = 64 * MB, base = 0x40000000 },
  },
  body = {
    { "ld_global", stream = "centre" },       -- the cell (its left/right neighbours share the lines)
    { "ld_global", stream = "up" },
    { "ld_global", stream = "down" },
    { "fp32", dep = 3 },                      -- centre x weight
    { "fp32", dep = 3 },                      -- + up
    { "fp32", dep = 1 },
    { "fp32", dep = 4 },                      -- + down
    { "fp32", dep = 1 },
    { "st_global", stream = "out", dep = 1 },
    { "int" }, { "branch", dep = 1 },         -- loop control
  },
}

local gpumech, sim = assert(models.family("gpumech")), assert(models.family("sim"))
local kernel = assert(gpush.workloads.kernel(stencil))
local info = kernel:info()
print(("%s: %d blocks x %d threads, %d warp instructions, on '%s'"):format(info.kernel,
  info.thread_blocks, stencil.block, info.warp_instructions, cfg._name))
print(("%-22s %12s %10s %8s  %s"):format("model", "cycles", "time us", "IPC", "CPI stack / stalls"))
for _, policy in ipairs { "rr", "gto" } do
  local r = assert(gpumech.predict(kernel, cfg, { policy = policy }))
  local parts = {}
  for _, name in ipairs(gpumech.STACK) do
    if r.stack[name] >= 0.005 then
      parts[#parts + 1] = ("%s %.2f"):format(name, r.stack[name])
    end
  end
  print(("%-22s %12.0f %10.2f %8.3f  %s"):format("GPUMech " .. policy:upper(), r.cycles, r.time_us, r.ipc,
    table.concat(parts, " ")))
end
local s = assert(sim.run(kernel, cfg, { policy = "gto" }))
print(("%-22s %12.0f %10.2f %8.3f"):format("simulator GTO", s.cycles, s.time_us, s.ipc))
