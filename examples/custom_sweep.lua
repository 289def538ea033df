-- Example: a custom design sweep on gpush.experiment, with a Lua model module next to GPUMech.
--
--   gpush examples/custom_sweep.lua [--out DIR] [--jobs N] [--quiet] [--traces PATH ...] [-p key=value ...]
--
-- What a user writes to ask "how much do DRAM bandwidth and MSHRs buy, and
-- what limits it" on the GPU GPUMech's paper evaluates (the
-- `gpumech-baseline` preset, its Table I): a new workload (a CSR-style
-- gather, written below in a dozen lines) and a suite kernel (stream_triad),
-- the cartesian product of DRAM bandwidth {96,144,192,288} GB/s x MSHRs per
-- SM {8,16,32,64} (16 points), and two models:
-- GPUMech (GTO) and examples/models/bottleneck.lua, a model module written in
-- Lua, registered with gpush.models through a small adapter.  Into DIR (default
-- custom_sweep_out) it writes the workload as DIR/csr_gather.gpt (the sweep
-- reads it like any trace, so --jobs workers and the provenance hashes see
-- the same kernel), the results as custom_sweep.csv, .json and .md, and two
-- SVG line plots: custom_sweep_bandwidth.svg (time against DRAM bandwidth at
-- 32 MSHRs) and custom_sweep_mshrs.svg (time against MSHRs at 192 GB/s), the
-- preset's values.
-- --traces replaces the two workloads; -p applies to every point.  It takes
-- a few seconds.  Scenario-style shards and merging need experiment.main
-- (see scenarios/kepler_sweep.lua); this script shows the steps under it.
local gpush = require "gpush"
local experiment = require "gpush.experiment"
local core = require "gpush.core"
local models = require "gpush.models"
local scenario_args = require "gpush.scenario_args"
local summary = require "gpush.report.summary"
local svg = require "gpush.report.svg"

local here = (arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
local bottleneck = require "models.bottleneck"

local NAME = "custom_sweep"
local usage = ("usage: gpush %s [--out DIR] [--jobs N] [--quiet] [--traces PATH ...] [-p key=value ...]\n")
  :format(arg[0] or "examples/custom_sweep.lua")

local opts, problem = scenario_args.parse(arg)
if opts and opts.shard then
  opts, problem = nil, "--shard needs experiment.main (see scenarios/kepler_sweep.lua)"
end
if not opts then
  io.stderr:write(NAME, ": ", problem, "\n", usage)
  os.exit(experiment.EXIT_USAGE)
elseif opts.help then
  io.stdout:write(usage)
  os.exit(0)
end
local dir = opts.out or (NAME .. "_out")

local function check(ok, err)
  if not ok then
    io.stderr:write(NAME, ": ", tostring(err), "\n")
    os.exit(experiment.EXIT_FAILED)
  end
  return ok
end

-- The new workload: each thread walks 8 rows of a sparse matrix, loading a
-- column index and a value (coalesced), gathering x[column] from a 64 MB
-- vector (random lines: the load depends on the index) and accumulating
-- with an FMA.  192 blocks are three waves of the preset's 16 SMs x 4
-- blocks (32 warps per SM).
local MB = 1 << 20
local csr_gather = {
  name = "csr_gather", grid = 192, block = 256, regs = 32, trips = 8, seed = 11,
  streams = {
    index = { kind = "coalesced", footprint = 32 * MB },
    value = { kind = "coalesced", base = 0x100000000, footprint = 32 * MB },
    x = { kind = "random", base = 0x200000000, footprint = 64 * MB },
    y = { kind = "coalesced", base = 0x300000000, footprint = 16 * MB },
  },
  body = {
    { "ld_global", stream = "index" },
    { "ld_global", stream = "value" },
    { "ld_global", stream = "x", dep = 2 },   -- x[index]
    { "fp32", dep = 1 },                      -- sum += value * x[index]
    { "int" }, { "branch", dep = 1 },         -- loop control
  },
}

local workloads = opts.traces
if #workloads == 0 then
  check(core.mkdir(dir))
  local path = dir .. "/csr_gather.gpt"
  check(check(gpush.workloads.kernel(csr_gather)):write_gpt(path))
  workloads = { path, "suite:stream_triad" }
end

-- The Lua model module as a sweep model: its prepare and run already take
-- (kernel, cfg, prepared, cache) like the engine's models; the adapter only
-- names the columns and adds `dominant` (the bound that binds, upper case)
-- and `bottleneck`, that bound in gpush's one bottleneck vocabulary (the
-- bounds family's map onto it, docs/models.md), so one summary column
-- compares both models in the same words.
local to_label = models.family("bounds").BOTTLENECK
models.register("bottleneck", {
  name = "bottleneck",
  columns = { "cycles", "time_us", "ipc", "dominant", "bottleneck", "bottleneck_detail", "bounds.issue",
    "bounds.dram", "bounds.mshr", "bounds.latency", "bounds.blocks" },
  prepare = bottleneck.prepare,
  run = function(kernel, cfg, prepared, cache)
    local r, err = bottleneck.run(kernel, cfg, prepared, cache)
    if not r then
      return nil, err
    end
    return { cycles = r.cycles, time_us = r.time_us, ipc = r.ipc, dominant = r.bound:upper(),
      bottleneck = to_label[r.bound], bottleneck_detail = r.bound, bounds = r.bounds }
  end,
})

local sweep = experiment.new {
  name = NAME,
  title = "Custom sweep (GPUMech baseline GPU): DRAM bandwidth x MSHRs, GPUMech GTO and the bottleneck model",
  base = { preset = "gpumech-baseline", overrides = opts.overrides },
  parameters = {
    { path = "dram.bandwidth_gbs", values = { 96, 144, 192, 288 }, column = "dram_gbs" },
    { path = "l1.mshrs", values = { 8, 16, 32, 64 }, column = "mshrs" },
  },
  workloads = workloads,
  models = { models.get("gpumech", { policy = "gto" }), models.get("bottleneck") },
  seed = 1,
  summary = {
    objective = "cycles", show = "time_us", label = "time (us)", bottleneck = "bottleneck",
    bottleneck_detail = "bottleneck_detail", baseline = { dram_gbs = 192, mshrs = 32 },
    notes = { "The baseline is the preset's point (192 GB/s, 32 MSHRs). Both models' bottleneck is in gpush's",
      "one vocabulary (docs/models.md), their own category in brackets: GPUMech's CPI-stack category, the",
      "bottleneck model's binding bound." },
  },
}

local res = check(experiment.run(sweep, { jobs = opts.jobs, quiet = opts.quiet, command = arg }))
local written = check(experiment.write_outputs(res, dir))

-- Line plots: time against one parameter with the other at the baseline,
-- one line per kernel and model.
local function line_plot(file, x, fixed, title, x_label)
  local rows = res:filter(fixed).rows
  if #rows == 0 then
    return
  end
  local path = ("%s/%s_%s.svg"):format(dir, NAME, file)
  check(svg.write(path, svg.lines(svg.series_data(rows, { x = x, y = "time_us", series = { "kernel", "model" } }),
    { title = title, x_label = x_label, y_label = "time (us)", x_ticks = "data" })))
  written[#written + 1] = path
end
line_plot("bandwidth", "dram_gbs", { mshrs = 32 }, "Time against DRAM bandwidth at 32 MSHRs per SM",
  "DRAM bandwidth (GB/s, dram.bandwidth_gbs)")
line_plot("mshrs", "mshrs", { dram_gbs = 192 }, "Time against MSHRs per SM at 192 GB/s", "MSHRs per SM (l1.mshrs)")

if not opts.quiet then
  print(table.concat(summary.lines(res), "\n"))
  print("Wrote " .. table.concat(written, ", ") .. ".")
end
os.exit(experiment.report_end(NAME, res, io.stderr))
