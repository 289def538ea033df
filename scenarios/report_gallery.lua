-- Report gallery: every SVG plot kind, the roofline and a tornado on a small GTX 660 Ti sweep.
--
--   gpush scenarios/report_gallery.lua [--traces PATH ...] [--out DIR] [--jobs N] [--quiet] [-p key=value ...]
--
-- A demonstration of gpush's reports (docs/reports.md) on a sweep small
-- enough to read: starting from the `gtx660ti` preset it sweeps warps per SM
-- {8,16,32,64} x DRAM bandwidth {96,144,192} GB/s over three suite kernels
-- (stream_triad, fma_compute, l2_resident; or the workloads of --traces),
-- with GPUMech (GTO) and the abstract simulator (GTO) side by side, on the
-- experiment engine.  Into DIR (default report_gallery_out) it writes the
-- sweep's CSV, JSON and Markdown, and
--   report_gallery_fig16.svg     GPUMech CPI stacks per kernel against warps/SM
--                                at 144 GB/s, the simulator's cycles drawn as
--                                markers in CPI units (as GPUMech Fig. 16
--                                draws the oracle)
--   report_gallery_speedup.svg   speedup over 8 warps/SM, kernels x models
--   report_gallery_cpi_*.svg, _stalls_*.svg, _cycles.svg, _heatmap_*.svg  the engine's
--                                sweep report (_stalls_: the simulator's stall stacks)
--   report_gallery_roofline.svg  the hierarchical roofline of the base point
--                                (L1, L2, DRAM roofs; FP32, FP64 ceilings), one
--                                panel per model (the engine's roofline report)
--   report_gallery_tornado.svg   one-at-a-time sensitivity of the first
--                                kernel's time (GPUMech GTO) around the base
--   report_gallery_index.md      the FP32 DRAM roofline table, the tornado table
--                                and the file list
-- -p overrides apply to every point, the roofline and the tornado's base.
local experiment = require "gpush.experiment"
local scenario_args = require "gpush.scenario_args"
local config = require "gpush.config"
local gpumech = assert(require("gpush.models").family("gpumech"))
local roofline = require "gpush.roofline"
local svg = require "gpush.report.svg"
local tornado = require "gpush.report.tornado"
local trace = require "gpush.trace"

local PRESET = "gtx660ti"
local BASE_POINT = { warps_per_sm = 64, dram_gbs = 144 } -- the preset's own values
local TORNADO_BASE = { ["sm.max_warps"] = 48, ["l1.mshrs"] = 32, ["dram.bandwidth_gbs"] = 144,
  ["clock.core_mhz"] = 915, ["l2.latency"] = 200 }
local TORNADO_RANGES = { { "sm.max_warps", 32, 64 }, { "l1.mshrs", 16, 64 }, { "dram.bandwidth_gbs", 96, 192 },
  { "clock.core_mhz", 700, 1100 }, { "l2.latency", 150, 250 } }

local name = "report_gallery"
local usage = ("usage: gpush scenarios/%s.lua %s\n"):format(name, scenario_args.USAGE)
local opts, problem = scenario_args.parse(arg)
if not opts or opts.shard then
  io.stderr:write(name, ": ", problem or "--shard is not supported here (the gallery is one small run)", "\n", usage)
  os.exit(experiment.EXIT_USAGE)
end
if opts.help then
  io.stdout:write(usage)
  os.exit(0)
end
local dir = opts.out or (name .. "_out")
local function say(fmt, ...)
  if not opts.quiet then
    io.stdout:write(fmt:format(...), "\n")
  end
end
local function check(ok, err)
  if not ok then
    io.stderr:write(name, ": ", tostring(err), "\n")
    os.exit(experiment.EXIT_FAILED)
  end
  return ok
end

-- The sweep ---------------------------------------------------------------------------

local sweep = experiment.new {
  name = name,
  title = "Report gallery (GTX 660 Ti): GPUMech GTO and the simulator",
  base = { preset = PRESET, overrides = opts.overrides },
  parameters = {
    { path = "sm.max_warps", values = { 8, 16, 32, 64 }, column = "warps_per_sm" },
    { path = "dram.bandwidth_gbs", values = { 96, 144, 192 }, column = "dram_gbs" },
  },
  workloads = #opts.traces > 0 and opts.traces or { "suite:stream_triad", "suite:fma_compute", "suite:l2_resident" },
  models = { experiment.models.gpumech { policy = "gto" }, experiment.models.sim { policy = "gto" } },
  seed = 1,
  summary = { objective = "cycles", show = "time_us", label = "time (us)", bottleneck = "dominant",
    baseline = BASE_POINT },
  reports = { "gpush.report.sweep:svg", "gpush.report.sweep:roofline" },
  source = arg[0],
}
local res = check(experiment.run(sweep, { jobs = opts.jobs, quiet = opts.quiet, command = arg }))
local written = check(experiment.write_outputs(res, dir))

local function path_of(suffix)
  return ("%s/%s_%s"):format(dir, name, suffix)
end
local function emit(suffix, text)
  local path = path_of(suffix)
  check(svg.write(path, text))
  written[#written + 1] = path
end

-- The rows matching column = value pairs (the results table's filter).
local function rows_where(match)
  return res:filter(match).rows
end

local function key_of(row, ...)
  local parts = { row.workload, row.kernel, tostring(row.launch) }
  for _, c in ipairs({ ... }) do
    parts[#parts + 1] = tostring(row[c])
  end
  return table.concat(parts, "\0")
end

-- Fig. 16: GPUMech's stacks with the simulator as the reference line -----------------------

local sim_cycles = {}
for _, row in ipairs(rows_where({ model = "sim-gto", dram_gbs = BASE_POINT.dram_gbs })) do
  sim_cycles[key_of(row, "warps_per_sm")] = row.cycles
end
local stack_rows = rows_where({ model = "gpumech-gto", dram_gbs = BASE_POINT.dram_gbs })
if #stack_rows > 0 then
  emit("fig16.svg", svg.stacked_bars(svg.stack_data(stack_rows, { bar = "warps_per_sm",
    -- the simulator's cycles in the stack's units: CPI x sim cycles / GPUMech cycles
    marker = function(row)
      local s = sim_cycles[key_of(row, "warps_per_sm")]
      return s and row.cpi * s / row.cycles or nil
    end }), { title = "CPI stacks of GPUMech (GTO) at 144 GB/s; simulator as markers",
    x_label = "warps per SM (sm.max_warps)", y_label = "CPI (cycles per warp instruction), each kernel on its own scale",
    marker_label = "simulator, in CPI units", panels = true }))
end

-- Speedup over the fewest warps -----------------------------------------------------------

local first_cycles = {}
local speed_rows = {}
for _, row in ipairs(rows_where({ dram_gbs = BASE_POINT.dram_gbs })) do
  local k = key_of(row, "model")
  first_cycles[k] = first_cycles[k] or row.cycles -- rows come in point order: 8 warps first
  speed_rows[#speed_rows + 1] = { kernel = row.kernel, model = row.model, warps_per_sm = row.warps_per_sm,
    speedup = first_cycles[k] / row.cycles }
end
if #speed_rows > 0 then
  emit("speedup.svg", svg.lines(svg.series_data(speed_rows, { x = "warps_per_sm", y = "speedup" }),
    { title = "Speedup over 8 warps per SM at 144 GB/s", x_label = "warps per SM (sm.max_warps)",
      y_label = "speedup (x, cycles at 8 warps / cycles)", x_ticks = "data" }))
end

-- The FP32 DRAM roofline's table (the engine's facts: each kernel's FLOPs) -------------------------

local base_cfg = check(config.load(PRESET, opts.overrides))
local machine = roofline.machine(base_cfg)
local profiles = {}
for _, k in ipairs(res.extra.roofline and res.extra.roofline.kernels or {}) do
  profiles[k.workload .. "\0" .. k.kernel .. "\0" .. tostring(k.launch)] = k
end
local skipped, roof_lines = {}, {
  "| kernel | model | FLOP/B | GFLOP/s | achieved DRAM GB/s | bound | % of roof |",
  "|---|---|---:|---:|---:|---|---:|" }
for _, row in ipairs(rows_where(BASE_POINT)) do
  local profile = profiles[row.workload .. "\0" .. row.kernel .. "\0" .. tostring(row.launch)]
  if profile and row.achieved_gbs then
    -- DRAM bytes the model moved: achieved GB/s x time (us) x 1e3
    local pos = roofline.position(machine, { ops = profile.fp32, dram_bytes = row.achieved_gbs * row.time_us * 1e3,
      cycles = row.cycles })
    if pos.gflops > 0 and pos.intensity < math.huge then
      roof_lines[#roof_lines + 1] = ("| %s | %s | %s | %s | %s | %s | %.1f |"):format(row.kernel, row.model,
        svg.format_value(pos.intensity), svg.format_value(pos.gflops), svg.format_value(pos.dram_gbs), pos.bound,
        100 * pos.fraction_of_roof)
    else
      skipped[#skipped + 1] = row.kernel .. " " .. row.model
    end
  end
end

-- The first kernel, for the tornado -----------------------------------------------------------------

local first_kernel
do
  local iter = check(trace.kernels_of(sweep.workloads[1], nil, { keep = true }))
  for launch, kernel in iter do
    first_kernel = first_kernel or { kernel = kernel, name = launch.kernel }
    if first_kernel.kernel ~= kernel then
      kernel:close()
    end
  end
end

-- Tornado around a base point, first kernel, GPUMech GTO --------------------------------------------

local function tornado_config(values)
  local list = {}
  for _, o in ipairs(opts.overrides) do
    list[#list + 1] = o
  end
  local names = {}
  for k in pairs(values) do
    names[#names + 1] = k
  end
  table.sort(names)
  for _, k in ipairs(names) do
    list[#list + 1] = ("%s=%s"):format(k, values[k])
  end
  return check(config.load(PRESET, list))
end
local report
if first_kernel then
  local kernel = first_kernel.kernel
  local prepared = check(gpumech.prepare(kernel, tornado_config(TORNADO_BASE)))
  local cache = {}
  local function predict(values)
    return check(gpumech.predict(kernel, tornado_config(values), { policy = "gto", prepared = prepared,
      memory_cache = cache }))
  end
  local base_result = predict(TORNADO_BASE)
  local by_name = {}
  for _, p in ipairs(tornado.design(TORNADO_BASE, TORNADO_RANGES)) do
    by_name[p.parameter] = by_name[p.parameter] or { name = p.parameter, base = TORNADO_BASE[p.parameter] }
    by_name[p.parameter][p.side] = p.value
    by_name[p.parameter][p.side .. "_result"] = predict(p.overrides)
  end
  local parameters = {}
  for i, r in ipairs(TORNADO_RANGES) do
    parameters[i] = by_name[r[1]]
  end
  report = tornado.analyze({ metric = "time_us", base = base_result, parameters = parameters })
  emit("tornado.svg", tornado.svg(report,
    { title = ("Sensitivity of %s's time (GPUMech GTO)"):format(first_kernel.name) }))
end

-- The gallery's own Markdown ------------------------------------------------------------------------

local md = { "# Report gallery", "",
  ("FP32 roofline of %s: %s GFLOP/s (SMs x schedulers x FMA warp instructions/cycle x lanes x 2 x clock), "
    .. "%s GB/s, ridge %s FLOP/B (docs/reports.md)."):format(machine.name, svg.format_value(machine.peak),
    svg.format_value(machine.peak_gbs), svg.format_value(machine.ridge)), "" }
for _, l in ipairs(roof_lines) do
  md[#md + 1] = l
end
if #skipped > 0 then
  md[#md + 1] = ""
  md[#md + 1] = "Not on the FP32 roofline (no FP32 FLOPs or no DRAM traffic): " .. table.concat(skipped, ", ") .. "."
end
if report then
  md[#md + 1] = ""
  md[#md + 1] = ("## Sensitivity of %s (GPUMech GTO)"):format(first_kernel.name)
  md[#md + 1] = ""
  for l in tornado.markdown(report):gmatch("[^\n]+") do
    md[#md + 1] = l
    if l:match("^One%-at%-a%-time") then
      md[#md + 1] = ""
    end
  end
end
md[#md + 1] = ""
md[#md + 1] = "## Files"
md[#md + 1] = ""
local md_path = path_of("index.md")
for _, p in ipairs(written) do
  md[#md + 1] = "- " .. p:match("[^/]+$")
end
check(require("gpush.staging").write(md_path, table.concat(md, "\n") .. "\n"))
say("%s: %d rows; wrote %s and %d more files in %s", name, #res.rows, md_path, #written, dir)
os.exit(experiment.report_end(name, res, io.stderr))
