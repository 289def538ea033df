-- What stops a kernel from scaling with the SM count (the paper's Sec. VII-A use of CPI stacks,
-- across SM counts): GPUMech's CPI stack (gpush's equations) at each SM count, the simulator's
-- CPI beside it, and the category that grows.
--
--   gpush scenarios/gpumech_scaling.lua [--config NAME] [--sms N,N,...] [--traces PATH ...]
--                                       [--out DIR] [--jobs N] [--quiet] [-p key=value ...]
--
-- On one preset (default gtx1080) sm.count takes each value of --sms
-- (default 1, 2, 4, 8, 16, 32, 64) with everything else fixed, so the DRAM
-- bandwidth and the L2 are shared by more and more SMs.  For every kernel
-- of the inputs (default the embedded suite) GPUMech (gpush's equations,
-- RR) gives its CPI stack and the simulator (loose round-robin) its cycles.
-- Both are shown in one unit: SM-scheduler cycles per warp instruction,
-- (cycles - launch.kernel_cycles) x SMs x schedulers / warp instructions,
-- which stays flat while a kernel scales and grows with what stops it;
-- GPUMech's stack is scaled to sum to its value.  Writes
-- DIR/gpumech_scaling.csv, DIR/gpumech_scaling.md (per kernel the category
-- that grew most between the fewest and the most SMs) and
-- DIR/gpumech_scaling.svg (stacked bars, one panel per kernel on its own
-- scale, the simulator as markers; default
-- DIR: gpumech_scaling_out).
local gpush = require "gpush"
local experiment = require "gpush.experiment"
local models = require "gpush.models"
local svg = require "gpush.report.svg"

local USAGE = "usage: gpush scenarios/gpumech_scaling.lua [--config NAME] [--sms N,N,...] [--traces PATH ...] "
  .. "[--out DIR] [--jobs N] [--quiet] [-p key=value ...]\n"

local opts, usage = experiment.scenario_options("gpumech_scaling", arg,
  { ["--config"] = "config", ["--sms"] = "sms" }, USAGE)
local preset, sms = opts.config or "gtx1080", { 1, 2, 4, 8, 16, 32, 64 }
if opts.sms then
  sms = {}
  for n in opts.sms:gmatch("[^,]+") do
    local v = tonumber(n)
    if not v or math.type(v) ~= "integer" or v < 1 then
      usage(("--sms expects whole numbers of SMs (1 or more), got '%s'"):format(n))
    end
    sms[#sms + 1] = v
  end
end
local cfg, cfg_err = gpush.config.load(preset, opts.overrides)
if not cfg then
  usage(cfg_err)
end
local gpumech = assert(models.family("gpumech"))

local sweep = experiment.new { name = "gpumech_scaling", base = { preset = preset, overrides = opts.overrides },
  parameters = { { path = "sm.count", values = sms, column = "sms" } },
  workloads = #opts.traces > 0 and opts.traces or { "suite" },
  models = { models.get("gpumech", { policy = "rr", name = "gpumech" }), models.get("sim", { policy = "lrr", name = "sim" }) },
  source = arg[0] }
local started = gpush.core.now()
local res = experiment.run_scenario("gpumech_scaling", sweep, opts, arg)

-- SM-scheduler cycles per warp instruction of a row's cycles.
local insts = {}
for _, r in ipairs(res.rows) do
  if r.model == "gpumech" then
    insts[table.concat({ r.workload, r.launch, r.kernel }, "\0")] = r.ipc * r.cycles
  end
end
local function per_inst(r)
  local n = insts[table.concat({ r.workload, r.launch, r.kernel }, "\0")]
  return (r.cycles - cfg.launch.kernel_cycles) * r.sms * cfg.sm.schedulers / n
end

local sim = {}
for _, r in ipairs(res.rows) do
  if r.model == "sim" then
    sim[table.concat({ r.workload, r.launch, r.kernel, r.sms }, "\0")] = per_inst(r)
  end
end
local rows = {}
for _, r in ipairs(res.rows) do
  if r.model == "gpumech" then
    local value = per_inst(r)
    local row = { kernel = r.kernel, launch = r.launch, sms = r.sms, gpumech = value, bound = r.bound,
      sim = sim[table.concat({ r.workload, r.launch, r.kernel, r.sms }, "\0")], stack = {} }
    for _, c in ipairs(gpumech.STACK) do
      row.stack[c] = r["cpi_" .. c:lower()] * value / r.cpi
    end
    rows[#rows + 1] = row
  end
end

local cols = { "kernel", "launch", "sms", "gpumech", "sim", "bound" }
for _, c in ipairs(gpumech.STACK) do
  cols[#cols + 1] = c:lower()
end
local csv_lines = { table.concat(cols, ",") }
for _, r in ipairs(rows) do
  local cells = { r.kernel, r.launch, r.sms, ("%.4f"):format(r.gpumech), ("%.4f"):format(r.sim), r.bound }
  for _, c in ipairs(gpumech.STACK) do
    cells[#cells + 1] = ("%.4f"):format(r.stack[c])
  end
  csv_lines[#csv_lines + 1] = table.concat(cells, ",")
end
experiment.write_scenario_csv(opts.out, "gpumech_scaling.csv", { ("gpush %s; config %s, hash %s; command gpush "
  .. "scenarios/gpumech_scaling.lua %s"):format(gpush.version, cfg._name, gpush.config.hash(cfg), table.concat(arg, " ")) },
  csv_lines)

-- Per kernel: the values from the fewest to the most SMs and the category that grew most.
local lines = { ("# What stops scaling on '%s' (GPUMech, gpush's equations, RR)"):format(cfg._name), "",
  ("SM-scheduler cycles per warp instruction ((cycles - launch) x SMs x %d schedulers / warp instructions): "
    .. "flat while a kernel scales (%.1f s)."):format(cfg.sm.schedulers, gpush.core.now() - started), "",
  "| kernel | SMs | GPUMech | simulator | binding resource | largest categories |", "|---|---|---|---|---|---|" }
local first, last = {}, {}
for _, r in ipairs(rows) do
  local key = r.kernel .. "\0" .. r.launch
  if not first[key] or r.sms < first[key].sms then
    first[key] = r
  end
  if not last[key] or r.sms > last[key].sms then
    last[key] = r
  end
  local ranked = {}
  for _, c in ipairs(gpumech.STACK) do
    ranked[#ranked + 1] = c
  end
  table.sort(ranked, function(a, b) return r.stack[a] > r.stack[b] end)
  lines[#lines + 1] = ("| %s | %d | %.2f | %.2f | %s | %s %.2f, %s %.2f |"):format(r.kernel, r.sms, r.gpumech, r.sim,
    r.bound, ranked[1], r.stack[ranked[1]], ranked[2], r.stack[ranked[2]])
end
lines[#lines + 1] = ""
lines[#lines + 1] = "| kernel | from | to | GPUMech | simulator | grew most |"
lines[#lines + 1] = "|---|---|---|---|---|---|"
local seen = {}
for _, r in ipairs(rows) do
  local key = r.kernel .. "\0" .. r.launch
  if not seen[key] then
    seen[key] = true
    local a, b = first[key], last[key]
    local grew, by = "none", 0
    for _, c in ipairs(gpumech.STACK) do
      if b.stack[c] - a.stack[c] > by then
        grew, by = c, b.stack[c] - a.stack[c]
      end
    end
    lines[#lines + 1] = ("| %s | %d SMs | %d SMs | %.2f -> %.2f | %.2f -> %.2f | %s (+%.2f) |"):format(r.kernel, a.sms,
      b.sms, a.gpumech, b.gpumech, a.sim, b.sim, grew, by)
  end
end
local body = table.concat(lines, "\n")
experiment.write_scenario_markdown(opts.out, "gpumech_scaling.md", body, {})

local groups, by_kernel, used = {}, {}, {}
for _, c in ipairs(gpumech.STACK) do -- the categories some bar has, in the stack's order
  for _, r in ipairs(rows) do
    if r.stack[c] > 0 and used[#used] ~= c then
      used[#used + 1] = c
    end
  end
end
for _, r in ipairs(rows) do
  local g = by_kernel[r.kernel]
  if not g then
    g = { label = r.kernel, bars = {} }
    by_kernel[r.kernel] = g
    groups[#groups + 1] = g
  end
  g.bars[#g.bars + 1] = { label = tostring(r.sms), values = r.stack, marker = r.sim }
end
assert(svg.write(opts.out .. "/gpumech_scaling.svg", svg.stacked_bars({ categories = used, groups = groups },
  { title = ("CPI stacks across SM counts on %s (GPUMech, gpush's equations)"):format(cfg._name),
    x_label = "SMs", y_label = "SM-scheduler cycles per warp instruction, each kernel on its own scale",
    marker_label = "simulator", panels = true })))
print(body)
print(("Wrote %s/gpumech_scaling.csv, %s/gpumech_scaling.md, %s/gpumech_scaling.svg."):format(opts.out, opts.out,
  opts.out))
