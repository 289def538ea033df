-- The error and the cost of sampling long launches (gpush.sampling): every launch the
-- simulator would sample, simulated whole and sampled, and every launch GPUMech would
-- predict from a sampled memory replay, predicted from the whole replay and the sampled
-- one, over the main job's points and presets.
--
--   gpush scenarios/sampling_error.lua [--traces PATH ...] [--out DIR] [--jobs N] [--quiet]
--
-- Sweeps use sampling where a launch has many waves (docs/experiments.md,
-- "Sampling"; the main job does); this scenario measures what it costs in
-- accuracy.  It runs the simulator (GTO, the main job's) and GPUMech (RR
-- and GTO, the main job's) twice per launch and point, whole and sampled:
-- the regime suite and the shared traces (when present; or the workloads
-- given with --traces) over the main job's 54 points on gtx660ti (warps/SM
-- x MSHRs x DRAM bandwidth), and on the gtx1080, a100 and rtx3070 presets
-- as they are.  For every (model, launch, point) the sampler took, it
-- records the sampled and the whole cycles, their relative difference and
-- the CPU time of each (GPUMech's: the runs of the points, whose first at
-- an occupancy replays; the base occupancy's whole replay is the
-- preparation's, not counted), and writes DIR/sampling_error.csv (one row
-- per sampled model, launch and point) and DIR/sampling_error.md (per
-- model and kernel: points sampled, mean and largest |error|, the sampled
-- run's share of the whole run's time; then the totals per model), and
-- prints the totals (default DIR: sampling_error_out).  Every error is
-- gpush against gpush: the sampled model against the same model whole.
local gpush = require "gpush"
local experiment = require "gpush.experiment"
local markdown = require "gpush.report.markdown"
local models = require "gpush.models"

local USAGE = "usage: gpush scenarios/sampling_error.lua [--traces PATH ...] [--out DIR] [--jobs N] [--quiet]\n"
local opts = experiment.scenario_options("sampling_error", arg, {}, USAGE)

-- Each model measured as two models of one sweep: sampled wherever the
-- sampler takes the launch, and whole; each row carries its CPU seconds
-- and the blocks simulated (or replayed) for it.
local MEASURED = {
  { name = "sim-gto", model = models.get("sim", { policy = "gto" }), blocks = "simulated_blocks" },
  { name = "gpumech-rr", model = models.get("gpumech", { policy = "rr" }), blocks = "replayed_blocks" },
  { name = "gpumech-gto", model = models.get("gpumech", { policy = "gto" }), blocks = "replayed_blocks" },
}
local function timed(measured, sample)
  local model = measured.model
  return { name = measured.name .. (sample and " sampled" or " whole"),
    columns = { "cycles", "sampled", "simulated_blocks", "seconds" }, prepare = model.prepare,
    run = function(kernel, cfg, prepared, cache, ctx)
      local t0 = os.clock()
      local row, err = model.run(kernel, cfg, prepared, cache, { sample = sample, seed = ctx.seed })
      if not row then
        return nil, err
      end
      return { cycles = row.cycles, sampled = row.sampled == true,
        simulated_blocks = row[measured.blocks] or kernel:info().thread_blocks, seconds = os.clock() - t0 }
    end }
end
local MODELS = {}
for _, m in ipairs(MEASURED) do
  MODELS[#MODELS + 1] = timed(m, true)
  MODELS[#MODELS + 1] = timed(m, false)
end

-- The shared trace folders (../shared/traces, or $GPUSH_SHARED/traces), when present.
local function shared_traces()
  local dir = (os.getenv("GPUSH_SHARED") or "../shared") .. "/traces"
  local list = {}
  for _, name in ipairs(gpush.core.list_dir(dir) or {}) do
    if gpush.core.list_dir(dir .. "/" .. name) then
      list[#list + 1] = dir .. "/" .. name
    end
  end
  if #list == 0 and not opts.quiet then
    io.stderr:write(("sampling_error: no real traces at %s; measuring the suite only\n"):format(dir))
  end
  return list
end

local workloads = #opts.traces > 0 and opts.traces or { "suite" }
local traces = #opts.traces > 0 and {} or shared_traces()
local GRID = {
  { path = "sm.max_warps", values = { 8, 16, 24, 32, 48, 64 }, column = "warps_per_sm" },
  { path = "l1.mshrs", values = { 32, 64, 128 }, column = "mshrs" },
  { path = "dram.bandwidth_gbs", values = { 96, 144, 192 }, column = "dram_gbs" },
}
local runs = {
  { preset = "gtx660ti", parameters = GRID, workloads = workloads },
}
if #traces > 0 then
  runs[#runs + 1] = { preset = "gtx660ti", parameters = GRID, workloads = traces }
end
for _, preset in ipairs { "gtx1080", "a100", "rtx3070" } do
  local all = { table.unpack(workloads) }
  for _, path in ipairs(traces) do
    all[#all + 1] = path
  end
  runs[#runs + 1] = { preset = preset, parameters = { { path = "sm.max_warps" } }, points = { {} }, workloads = all }
end

-- One record per (launch, point) the sampler took.
local records = {}
local tried = 0
for _, run in ipairs(runs) do
  local res = experiment.run_scenario("sampling_error", experiment.new { name = "sampling_error", base = run.preset,
    workloads = run.workloads, models = MODELS, source = arg[0], parameters = run.parameters,
    points = run.points }, opts, arg, true) -- a launch that does not fit a point's SM is no sample
  local whole = {}
  local function key(r, model)
    local parts = { model, r.workload, tostring(r.launch), r.kernel }
    for _, p in ipairs(run.parameters) do
      parts[#parts + 1] = tostring(r[p.column or p.path])
    end
    return table.concat(parts, "\0")
  end
  for _, r in ipairs(res.rows) do
    local model = r.model:match("^(.*) whole$")
    if model then
      whole[key(r, model)] = r
    end
  end
  for _, r in ipairs(res.rows) do
    local model = r.model:match("^(.*) sampled$")
    tried = tried + (model == "sim-gto" and 1 or 0)
    if model and r.sampled then
      local w = whole[key(r, model)]
      local point = {}
      for _, p in ipairs(run.parameters) do
        if r[p.column or p.path] ~= nil then
          point[#point + 1] = ("%s=%s"):format(p.path, tostring(r[p.column or p.path]))
        end
      end
      records[#records + 1] = { model = model, preset = run.preset, kernel = r.kernel, launch = r.launch,
        point = #point > 0 and table.concat(point, " ") or "(preset)", sampled = r.cycles, whole = w.cycles,
        error = (r.cycles - w.cycles) / w.cycles, blocks = r.simulated_blocks, seconds = r.seconds,
        whole_seconds = w.seconds }
    end
  end
end

-- Per (model, preset, kernel): points sampled, mean and largest |error|,
-- time share; and per model over everything.
local groups, order = {}, {}
local totals = {}
for _, m in ipairs(MEASURED) do
  totals[m.name] = { n = 0, sum = 0, worst = 0, s = 0, w = 0 }
end
for _, rec in ipairs(records) do
  local k = rec.model .. "\0" .. rec.preset .. "\0" .. rec.kernel
  local g = groups[k]
  if not g then
    g = { model = rec.model, preset = rec.preset, kernel = rec.kernel, n = 0, sum = 0, worst = 0, s = 0, w = 0 }
    groups[k], order[#order + 1] = g, k
  end
  for _, t in ipairs { g, totals[rec.model] } do
    t.n, t.sum, t.s, t.w = t.n + 1, t.sum + math.abs(rec.error), t.s + rec.seconds, t.w + rec.whole_seconds
    if math.abs(rec.error) >= math.abs(t.worst) then
      t.worst, t.where = rec.error, ("%s %s"):format(rec.kernel, rec.point)
    end
  end
end
local cells = {}
for _, k in ipairs(order) do
  local g = groups[k]
  cells[#cells + 1] = { g.model, g.preset, g.kernel, tostring(g.n), ("%.3f %%"):format(100 * g.sum / g.n),
    ("%+.3f %%"):format(100 * g.worst), ("%.2f"):format(g.s / math.max(g.w, 1e-9)) }
end
local body = { "# Sampling error: sampled against whole runs of the same model (gpush against gpush)", "" }
for _, m in ipairs(MEASURED) do
  local total = totals[m.name]
  body[#body + 1] = total.n > 0
      and ("%s: %d of %d (launch, point) pairs sampled: mean |error| %.3f %%, largest %+.3f %% (%s); the sampled"
        .. " runs took %.2f of the whole runs' CPU time"):format(m.name, total.n, tried, 100 * total.sum / total.n,
        100 * total.worst, total.where, total.s / math.max(total.w, 1e-9))
      or ("%s: none of the %d (launch, point) pairs was sampled"):format(m.name, tried)
end
body[#body + 1] = ""
for _, l in ipairs(markdown.table({ "model", "preset", "kernel", "points sampled", "mean |error|", "largest error",
  "time (sampled / whole)" }, cells)) do
  body[#body + 1] = l
end
local csv_lines = { "model,preset,kernel,launch,point,sampled_cycles,whole_cycles,error,simulated_blocks,seconds,"
  .. "whole_seconds" }
for _, rec in ipairs(records) do
  csv_lines[#csv_lines + 1] = ("%s,%s,%s,%s,%s,%.17g,%.17g,%.17g,%d,%.6f,%.6f"):format(rec.model, rec.preset,
    rec.kernel, tostring(rec.launch), rec.point, rec.sampled, rec.whole, rec.error, rec.blocks, rec.seconds,
    rec.whole_seconds)
end
local provenance = { "gpush " .. gpush.core.version(), "command: " .. experiment.command_line(arg) }
experiment.write_scenario_csv(opts.out, "sampling_error.csv", provenance, csv_lines)
experiment.write_scenario_markdown(opts.out, "sampling_error.md", table.concat(body, "\n"), provenance)
if not opts.quiet then
  print(table.concat(body, "\n"))
  print(("Wrote %s/sampling_error.csv, %s/sampling_error.md."):format(opts.out, opts.out))
end
