-- GPUMech's sensitivity to the machine, like the paper's Fig. 13-15: the mean |difference|
-- from the simulator over the kernels as the warps per SM, the MSHRs and the DRAM bandwidth
-- vary, for gpush's equations, the paper's GPUMech and its Table II comparison models.
--
--   gpush scenarios/gpumech_sensitivity.lua [--config NAME] [--traces PATH ...] [--out DIR]
--                                           [--jobs N] [--quiet] [-p key=value ...]
--
-- On one preset (default gpumech-baseline, the paper's Table I machine),
-- each of three parameters is swept alone around it: sm.max_warps (8, 16,
-- 32, 48 warps per SM: Fig. 13), l1.mshrs (8 to 128: Fig. 14) and
-- dram.bandwidth_gbs (64 to 256 GB/s: Fig. 15).  Every kernel of the inputs
-- (default the embedded suite) runs through the simulator (loose
-- round-robin, the reference) and GPUMech under round-robin, as the paper
-- reports these figures for RR: gpush's equations, the paper's GPUMech
-- (MT_MSHR_BAND), MT_MSHR, MT, Markov_Chain and naive.  For each point and
-- model it prints the mean absolute relative difference over the kernels
-- and writes DIR/gpumech_sensitivity.csv (one row per parameter, value,
-- kernel and model), DIR/gpumech_sensitivity.md and one SVG per parameter
-- (DIR/fig13_warps.svg, fig14_mshrs.svg, fig15_bandwidth.svg; default DIR:
-- gpumech_sensitivity_out).
local gpush = require "gpush"
local experiment = require "gpush.experiment"
local models = require "gpush.models"
local svg = require "gpush.report.svg"

local USAGE = "usage: gpush scenarios/gpumech_sensitivity.lua [--config NAME] [--traces PATH ...] [--out DIR] "
  .. "[--jobs N] [--quiet] [-p key=value ...]\n"
local AXES = {
  { path = "sm.max_warps", values = { 8, 16, 32, 48 }, label = "warps per SM", file = "fig13_warps.svg",
    figure = "Fig. 13" },
  { path = "l1.mshrs", values = { 8, 16, 32, 64, 128 }, label = "MSHR entries per SM", file = "fig14_mshrs.svg",
    figure = "Fig. 14" },
  { path = "dram.bandwidth_gbs", values = { 64, 96, 128, 192, 256 }, label = "DRAM bandwidth (GB/s)",
    file = "fig15_bandwidth.svg", figure = "Fig. 15" },
}
local MODELS = models.family("gpumech").COMPARED

local opts, usage = experiment.scenario_options("gpumech_sensitivity", arg, { ["--config"] = "config" }, USAGE)
local preset = opts.config or "gpumech-baseline"
local cfg, cfg_err = gpush.config.load(preset, opts.overrides)
if not cfg then
  usage(cfg_err)
end

local sweep_models = { models.get("sim", { policy = "lrr", name = "sim" }) }
for _, m in ipairs(MODELS) do
  local o = { policy = "rr", name = m.key }
  for k, v in pairs(m.opts) do
    o[k] = v
  end
  sweep_models[#sweep_models + 1] = models.get("gpumech", o)
end

-- One sweep per parameter; rows: parameter, value, kernel, model, difference.
local started = gpush.core.now()
local rows, means = {}, {}
for _, axis in ipairs(AXES) do
  local sweep = experiment.new { name = "gpumech_sensitivity", base = { preset = preset, overrides = opts.overrides },
    parameters = { { path = axis.path, values = axis.values } },
    workloads = #opts.traces > 0 and opts.traces or { "suite" }, models = sweep_models, source = arg[0] }
  local res = experiment.run_scenario("gpumech_sensitivity", sweep, opts, arg)
  local sim = {}
  for _, r in ipairs(res.rows) do
    if r.model == "sim" then
      sim[table.concat({ r.workload, r.launch, r.kernel, r[axis.path] }, "\0")] = r.cycles
    end
  end
  for _, r in ipairs(res.rows) do
    local s = sim[table.concat({ r.workload, r.launch, r.kernel, r[axis.path] }, "\0")]
    if r.model ~= "sim" then
      local d = (r.cycles - s) / s
      rows[#rows + 1] = { parameter = axis.path, value = r[axis.path], kernel = r.kernel, launch = r.launch,
        model = r.model, cycles = r.cycles, sim_cycles = s, difference = d }
      local key = table.concat({ axis.path, r[axis.path], r.model }, "\0")
      local m = means[key] or { parameter = axis.path, value = r[axis.path], model = r.model, sum = 0, n = 0 }
      m.sum, m.n = m.sum + math.abs(d), m.n + 1
      means[key] = m
    end
  end
end

local provenance = { ("gpush %s"):format(gpush.version), ("config %s, hash %s%s"):format(cfg._name,
  gpush.config.hash(cfg), #opts.overrides > 0 and (", overrides " .. table.concat(opts.overrides, " ")) or ""),
  ("command gpush scenarios/gpumech_sensitivity.lua %s"):format(table.concat(arg, " ")) }
local csv_lines = { "parameter,value,kernel,launch,model,cycles,sim_cycles,difference" }
for _, r in ipairs(rows) do
  csv_lines[#csv_lines + 1] = ("%s,%s,%s,%d,%s,%.1f,%.1f,%.6f"):format(r.parameter, tostring(r.value), r.kernel,
    r.launch, r.model, r.cycles, r.sim_cycles, r.difference)
end
experiment.write_scenario_csv(opts.out, "gpumech_sensitivity.csv", provenance, csv_lines)

local lines = { ("# GPUMech's sensitivity on '%s' (round-robin)"):format(cfg._name), "",
  ("Mean |model - simulator| / simulator over the kernels, each parameter swept alone (%.1f s)."):format(
    gpush.core.now() - started), "" }
local written = {}
for _, axis in ipairs(AXES) do
  local header = { axis.label }
  for _, m in ipairs(MODELS) do
    header[#header + 1] = m.label
  end
  lines[#lines + 1] = ("## %s: %s"):format(axis.figure, axis.label)
  lines[#lines + 1] = ""
  lines[#lines + 1] = "| " .. table.concat(header, " | ") .. " |"
  lines[#lines + 1] = "|" .. ("---|"):rep(#header)
  local series = {}
  for mi, m in ipairs(MODELS) do
    series[mi] = { label = m.label, group = m.label, style = m.label, y = {} }
  end
  for vi, v in ipairs(axis.values) do
    local cells = { tostring(v) }
    for mi, m in ipairs(MODELS) do
      local mean = means[table.concat({ axis.path, v, m.key }, "\0")]
      local value = mean and 100 * mean.sum / mean.n or false
      series[mi].y[vi] = value
      cells[#cells + 1] = value and ("%.1f%%"):format(value) or "-"
    end
    lines[#lines + 1] = "| " .. table.concat(cells, " | ") .. " |"
  end
  lines[#lines + 1] = ""
  local path = opts.out .. "/" .. axis.file
  assert(svg.write(path, svg.lines({ x = axis.values, series = series }, {
    title = ("GPUMech's error against the simulator (%s-style, %s, RR)"):format(axis.figure, cfg._name),
    x_label = axis.label, y_label = "mean |difference| (%)", x_ticks = "data" })))
  written[#written + 1] = path
end
local body = table.concat(lines, "\n")
experiment.write_scenario_markdown(opts.out, "gpumech_sensitivity.md", body, provenance)
print(body)
print(("Wrote %s/gpumech_sensitivity.csv, %s/gpumech_sensitivity.md, %s."):format(opts.out, opts.out,
  table.concat(written, ", ")))
