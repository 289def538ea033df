-- Blem's M-core against the abstract simulator and GPUMech: cycles per kernel, differences, mean |difference|.
--
--   gpush scenarios/mech_vs_sim.lua [--config NAME] [--traces PATH ...] [--out DIR] [--jobs N] [--quiet]
--                                   [-p key=value ...]
--
-- The thesis reports its M-core's error against real GPUs (Sec. 4.3.2);
-- gpush cannot measure hardware, so this compares the M-core (GPUPerf base,
-- and MWP-CWP) with the simulator (GTO) and GPUMech (GTO) on one
-- configuration (default gtx660ti; gtx480 and quadro-fx580 have M-core
-- presets of their own, other configurations take their generation's
-- modules) over the embedded suite or the workloads given with --traces, on
-- the experiment engine (--jobs N).  It prints a Markdown table per kernel:
-- each model's cycles, the M-cores' and GPUMech's difference to the
-- simulator ((model - sim) / sim), the M-core's larger term, the
-- first-principles bound (gpush.bounds: the cycles no model may beat, and
-- which binds), then the mean absolute differences and, per model, the
-- launches it predicts below the bound (a '<' beside the difference: a
-- prediction faster than physics allows), and writes the table to
-- DIR/mech_vs_sim.md (default DIR: mech_vs_sim_out).  docs/mech.md holds its
-- output for gtx480 and gtx660ti.
local gpush = require "gpush"
local experiment = require "gpush.experiment"

local USAGE = "usage: gpush scenarios/mech_vs_sim.lua [--config NAME] [--traces PATH ...] [--out DIR] [--jobs N] "
  .. "[--quiet] [-p key=value ...]\n"
local COMPARED = { { "mcore", "M-core GPUPerf" }, { "mcore-mwp_cwp", "M-core MWP-CWP" }, { "gpumech-gto", "GPUMech GTO" } }
local REFERENCE = "sim-gto"

-- --config is this scenario's own option; the rest are the engine's.
local opts, usage = experiment.scenario_options("mech_vs_sim", arg, { ["--config"] = "config" }, USAGE)
local preset = opts.config or "gtx660ti"
local _, cfg_err = gpush.config.load(preset, opts.overrides)
if cfg_err then
  usage(cfg_err)
end

local sweep = experiment.new {
  name = "mech_vs_sim", base = { preset = preset, overrides = opts.overrides }, parameters = {},
  workloads = #opts.traces > 0 and opts.traces or { "suite" }, source = arg[0],
  models = { experiment.models.mcore {}, experiment.models.mcore { base = "mwp_cwp" },
    experiment.models.gpumech { policy = "gto" }, experiment.models.sim { policy = "gto" },
    experiment.models.bounds {} },
}
local res = experiment.run_scenario("mech_vs_sim", sweep, opts, arg, true)

-- Rows of one launch side by side.
local launches, order = {}, {}
for _, r in ipairs(res.rows) do
  local key = r.workload .. "\0" .. r.launch
  if not launches[key] then
    launches[key] = { kernel = r.kernel, launch = r.launch, source = r.workload:match("([^/]+)/*$") }
    order[#order + 1] = key
  end
  launches[key][r.model] = r
end

local header = { "source", "launch", "kernel", "sim GTO cycles" }
for _, c in ipairs(COMPARED) do
  header[#header + 1] = c[2] .. " cycles"
  header[#header + 1] = "diff"
end
header[#header + 1] = "M-core's larger term"
header[#header + 1] = "bound cycles"
header[#header + 1] = "binds"
local lines = { ("# Blem's M-core against the simulator on '%s'"):format(preset), "",
  "| " .. table.concat(header, " | ") .. " |", "|" .. ("---|"):rep(#header) }
local sums, counts, below = {}, {}, {}
for _, key in ipairs(order) do
  local l = launches[key]
  local sim = l[REFERENCE]
  if sim then
    local kernel = #l.kernel > 24 and (l.kernel:sub(1, 21) .. "...") or l.kernel
    local cells = { l.source, tostring(l.launch), kernel, ("%.0f"):format(sim.cycles) }
    local floor = l.bounds
    if floor and sim.cycles < floor.cycles * (1 - 1e-9) then
      below[REFERENCE] = (below[REFERENCE] or 0) + 1
    end
    for _, c in ipairs(COMPARED) do
      local r = l[c[1]]
      if r then
        local d = (r.cycles - sim.cycles) / sim.cycles
        local under = floor and r.cycles < floor.cycles * (1 - 1e-9)
        sums[c[1]], counts[c[1]] = (sums[c[1]] or 0) + math.abs(d), (counts[c[1]] or 0) + 1
        below[c[1]] = (below[c[1]] or 0) + (under and 1 or 0)
        cells[#cells + 1], cells[#cells + 2] = ("%.0f"):format(r.cycles), ("%+.1f%%%s"):format(100 * d, under and " <" or "")
      else
        cells[#cells + 1], cells[#cells + 2] = "failed", ""
      end
    end
    cells[#cells + 1] = l.mcore and l.mcore.dominant or ""
    cells[#cells + 1] = floor and ("%.0f"):format(floor.cycles) or "failed"
    cells[#cells + 1] = floor and floor.bound or ""
    lines[#lines + 1] = "| " .. table.concat(cells, " | ") .. " |"
  end
end
lines[#lines + 1] = ""
for _, c in ipairs(COMPARED) do
  if counts[c[1]] then
    lines[#lines + 1] = ("- %s: mean |difference| to the simulator %.1f%% over %d launches; below the bound on %d")
      :format(c[2], 100 * sums[c[1]] / counts[c[1]], counts[c[1]], below[c[1]])
  end
end
lines[#lines + 1] = ("- the simulator itself: below the bound on %d"):format(below[REFERENCE] or 0)
local body = table.concat(lines, "\n")
experiment.write_scenario_markdown(opts.out, "mech_vs_sim.md", body,
  { "command gpush scenarios/mech_vs_sim.lua " .. table.concat(arg, " ") })
print(body)
print(("Wrote %s/mech_vs_sim.md."):format(opts.out))
os.exit(experiment.report_end("mech_vs_sim", res, io.stderr))
