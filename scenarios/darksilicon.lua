-- Dark silicon 45 -> 8 nm (Blem Ch. 2-3, ISCA 2011): projection tables, design studies and SVG plots.
--
--   gpush scenarios/darksilicon.lua [--out DIR] [--quiet] [-p name=value ...] [--noise-seeds N]
--                                   [--kernels NAME,...]
--
-- Runs the upper-bound dark-silicon projection (gpush.models.mech.dark_silicon)
-- for ITRS and conservative scaling, the Chapter 3 design studies (L2 share of
-- the die, SMT threads per core, GPU memory bandwidth), the most cores of each
-- named core per node (Fig. 4.16) and the Chapters 4-5 variant (named cores,
-- symmetric, f = 0.99) without and with the thesis's +-20 % input noise over
-- N seeds (default 5), with the upper-bound model on PARSEC and with the
-- custom S-core and M-core models (gpush.models.mech) on gpush suite kernels
-- (--kernels, default stream_triad, sfu_heavy, divergent_loop, tiled_barrier).  Into DIR (default darksilicon_out) it writes
--   darksilicon.csv            each benchmark's best design per scaling and node
--   darksilicon_nodes.csv      the per-node summary (speedup, dark, cores, topology)
--   darksilicon.md             every table, the published figures next to gpush's,
--                              and the assumed inputs with their sources
--   darksilicon_speedup.svg    geometric-mean speedup against node, both scalings
--   darksilicon_dark.svg       mean dark fraction against node, both scalings
--   darksilicon_cores.svg      median best core count against node, both scalings
--   darksilicon_l2.svg, _smt.svg, _bandwidth.svg   the design studies
--   darksilicon_counts.svg     most cores of each named core per node (Fig. 4.16)
-- -p overrides an assumed input (gpush darksilicon --params lists them).
local cli = require "gpush.cli"
local csv = require "gpush.csv"
local markdown = require "gpush.report.markdown"
local svg = require "gpush.report.svg"
local core = require "gpush.core"
local ds = require "gpush.models.mech.dark_silicon"
local variant = require "gpush.models.mech.variant"
local without_line_refs = require("gpush.text").without_line_refs

local name = "darksilicon"
local usage = ("usage: gpush scenarios/%s.lua [--out DIR] [--quiet] [-p name=value ...] [--noise-seeds N]\n" ..
  "       [--kernels NAME,...]\n"):format(name)
local opts, problem = cli.parse_args(arg, { ["--out"] = "=out", ["--quiet"] = "quiet", ["-p"] = "+overrides",
  ["--noise-seeds"] = "=seeds", ["--kernels"] = "=kernels", ["--help"] = "help", ["-h"] = "help" })
if not opts or #opts.words > 0 then
  io.stderr:write(name, ": ", problem or ("unexpected argument '" .. opts.words[1] .. "'"), "\n", usage)
  os.exit(2)
end
if opts.help then
  io.stdout:write(usage)
  os.exit(0)
end
local seeds = tonumber(opts.seeds or 5)
if not seeds or seeds < 1 or seeds ~= math.floor(seeds) then
  io.stderr:write(name, ": --noise-seeds must be a whole number >= 1, got '", tostring(opts.seeds), "'\n", usage)
  os.exit(2)
end
local overrides = {}
for _, kv in ipairs(opts.overrides) do
  local k, v = kv:match("^([%w_]+)=(.+)$")
  if not k then
    io.stderr:write(name, ": -p needs name=value, got '", kv, "'\n", usage)
    os.exit(2)
  end
  overrides[k] = v
end
local ok, params = pcall(ds.params, overrides)
if not ok then
  io.stderr:write(name, ": ", tostring(params), "\n")
  os.exit(2)
end
local dir = opts.out or (name .. "_out")
local function say(fmt, ...)
  if not opts.quiet then
    io.stdout:write(fmt:format(...), "\n")
  end
end
local function progress(what)
  if not opts.quiet then
    io.stderr:write(name, ": ", what, "\n")
  end
end
local function write(path, text)
  assert(require("gpush.staging").write(dir .. "/" .. path, text))
  say("wrote %s/%s", dir, path)
end
assert(core.mkdir(dir))

-- The projection ---------------------------------------------------------------------------

progress("projection (both scalings, 6 nodes, 12 benchmarks) and its sensitivity band")
local result = ds.project_band { params = overrides, progress = function(done, total, what)
  if type(done) == "string" then
    progress("  band: " .. done)
  else
    progress(("  %d/%d %s"):format(done, total, what))
  end
end }

local detail = { "# gpush scenarios/darksilicon.lua: each benchmark's best design (upper-bound model)",
  csv.line({ "scaling", "node_nm", "benchmark", "speedup", "organization", "topology", "light", "heavy", "light_cores",
    "cores", "dark_fraction", "limit" }, 12) }
local summary = { "# gpush scenarios/darksilicon.lua: per-node summary (rules in docs/darksilicon.md)",
  csv.line({ "scaling", "node_nm", "speedup", "speedup_lo", "speedup_hi", "dark_fraction", "dark_lo", "dark_hi",
    "dark_tied_lo", "dark_tied_hi", "cores", "topology", "organization", "symmetric", "asymmetric", "dynamic",
    "fused" }, 17) }
for _, node in ipairs(result.nodes) do
  for _, row in ipairs(node.benchmarks) do
    local b = row.best
    detail[#detail + 1] = csv.line({ node.scaling, node.node_nm, row.benchmark, b.speedup, b.organization, b.topology,
      b.light, b.heavy or "", b.n, b.cores, b.dark_fraction, b.limit }, 12)
  end
  local t = node.by_topology
  local band = node.band
  summary[#summary + 1] = csv.line({ node.scaling, node.node_nm, node.speedup, band.speedup[1], band.speedup[2],
    node.dark_fraction, band.dark_fraction[1], band.dark_fraction[2], node.dark_tied[1], node.dark_tied[2], node.cores,
    node.topology, node.organization, t.symmetric or "", t.asymmetric or "", t.dynamic or "", t.fused or "" }, 17)
end
write(name .. ".csv", table.concat(detail, "\n") .. "\n")
write(name .. "_nodes.csv", table.concat(summary, "\n") .. "\n")

local function series_over_nodes(field, scale)
  local series = {}
  for _, scaling in ipairs(ds.SCALINGS) do
    local x, y = {}, {}
    for _, node in ipairs(result.nodes) do
      if node.scaling == scaling then
        x[#x + 1], y[#y + 1] = node.node_nm, node[field] * (scale or 1)
      end
    end
    series[#series + 1] = { label = scaling, x = x, y = y }
  end
  return series
end

local speedup_series = series_over_nodes("speedup")
do -- the "performance Moore's law" reference: doubling per generation
  local x, y = {}, {}
  for i, node_nm in ipairs(ds.NODES) do
    x[i], y[i] = node_nm, 2 ^ (i - 1)
  end
  speedup_series[#speedup_series + 1] = { label = "2x per generation", x = x, y = y }
end
write(name .. "_speedup.svg", svg.lines({ series = speedup_series },
  { title = "Dark silicon: geometric-mean speedup over the 45 nm quad-core (PARSEC, upper-bound model)",
    x_label = "technology node (nm)", y_label = "speedup (x)", x_ticks = "data", log_y = true }))
write(name .. "_dark.svg", svg.lines({ series = series_over_nodes("dark_fraction", 100) },
  { title = "Dark silicon: mean dark fraction of the best designs", x_label = "technology node (nm)",
    y_label = "dark silicon (% of the area budget)", x_ticks = "data" }))
write(name .. "_cores.svg", svg.lines({ series = series_over_nodes("cores") },
  { title = "Dark silicon: median core count of the best designs", x_label = "technology node (nm)",
    y_label = "cores", x_ticks = "data" }))

-- Design studies --------------------------------------------------------------------------

local function study_plot(result_of, file, title, x_label, log_x)
  local by = {}
  local order = {}
  for _, row in ipairs(result_of.rows) do
    if not by[row.benchmark] then
      by[row.benchmark] = { label = row.benchmark, x = {}, y = {} }
      order[#order + 1] = row.benchmark
    end
    local s = by[row.benchmark]
    s.x[#s.x + 1], s.y[#s.y + 1] = row.value, row.ratio
  end
  local series = {}
  for i, b in ipairs(order) do
    series[i] = by[b]
  end
  write(file, svg.lines({ series = series }, { title = title, x_label = x_label, y_label = "speedup relative to the default",
    x_ticks = "data", log_x = log_x }))
end

progress("design studies: L2 share, SMT, GPU bandwidth")
local l2 = ds.l2_study { params = overrides }
study_plot(l2, name .. "_l2.svg", "L2 share of the die: symmetric CPU at 45 nm (Fig. 3.5a)", "L2 share of the die")
local smt = ds.smt_study { params = overrides }
study_plot(smt, name .. "_smt.svg", "SMT threads per core: symmetric CPU at 8 nm, ITRS", "threads per core")
local bw = ds.bandwidth_study { params = overrides }
study_plot(bw, name .. "_bandwidth.svg", "Memory bandwidth: symmetric GPU-like chip at 45 nm (Fig. 3.5b)",
  "memory bandwidth (GB/s)", true)

-- Fig. 4.16 and the Chapters 4-5 variant -------------------------------------------------------

progress("Fig. 4.16 core counts and the Chapters 4-5 variant")
local counts = variant.core_counts { params = overrides }
do
  local by, order = {}, {}
  for _, row in ipairs(counts) do
    local key = row.core .. " " .. row.scaling
    if not by[key] then
      by[key] = { label = key, group = row.core, style = row.scaling, x = {}, y = {} }
      order[#order + 1] = key
    end
    table.insert(by[key].x, row.node_nm)
    table.insert(by[key].y, row.n)
  end
  local series = {}
  for i, key in ipairs(order) do
    series[i] = by[key]
  end
  write(name .. "_counts.svg", svg.lines({ series = series }, { title = "Most cores of each named core per node (Fig. 4.16)",
    x_label = "technology node (nm)", y_label = "cores", x_ticks = "data", log_y = true }))
end
local upper = variant.run { params = overrides }
-- the variant with the custom core models, on gpush suite kernels
local workloads = require "gpush.workloads"
local custom_list = {}
for k in (opts.kernels or "stream_triad,sfu_heavy,divergent_loop,tiled_barrier"):gmatch("[^,]+") do
  local desc = workloads.get(k)
  if not desc then
    io.stderr:write(name, ": no suite kernel '", k, "' (gpush workloads lists them)\n")
    os.exit(2)
  end
  local w = assert(variant.custom_workload(assert(workloads.kernel(desc)), k))
  custom_list[#custom_list + 1] = w
end
local custom = variant.run { params = overrides, benchmarks = custom_list, perf = variant.custom_perf() }
local custom_noisy = {}
for seed = 1, seeds do
  custom_noisy[seed] = variant.run { params = overrides, benchmarks = custom_list, perf = variant.custom_perf(),
    nodes = { 8 }, noise = 0.2, seed = seed, bounds = variant.custom_bounds() }
end
local noisy = {}
for seed = 1, seeds do
  noisy[seed] = variant.run { params = overrides, nodes = { 8 }, noise = 0.2, seed = seed }
end
local claims = variant.claims { params = overrides, upper = upper, custom = custom }

-- The report ------------------------------------------------------------------------------

local function pct(v)
  return ("%.0f%%"):format(100 * v)
end
local function x2(v)
  return ("%.2f"):format(v)
end
local function node_of(scaling, node_nm)
  for _, node in ipairs(result.nodes) do
    if node.scaling == scaling and node.node_nm == node_nm then
      return node
    end
  end
end

local md = { "# Dark silicon 45 -> 8 nm (gpush scenarios/darksilicon.lua)", "",
  "Upper-bound core model (thesis Ch. 3) in the multicore model (Ch. 2), PARSEC inputs of Table B.1,",
  "exhaustive search per node and benchmark over CPU-/GPU-like organisation, four topologies and core",
  "types (the 45 nm frontier and the named cores); every design holds the most light cores its budgets",
  "allow and is 1 - N a / A dark ([28]'s rule in its public re-implementations). **Every chip-level",
  "input is an assumption** (the thesis leaves them to its reference [28]); they are listed at the end",
  "with their sources and in docs/darksilicon.md; the band runs the unknown ones at either end of their",
  "ranges, one at a time." }
-- Appends a heading (with the blank lines around it) or a pipe table to the report.
local function heading(text)
  md[#md + 1] = ""
  md[#md + 1] = text
  md[#md + 1] = ""
end
local function add_table(headers, rows)
  table.move(markdown.table(headers, rows), 1, #rows + 2, #md + 1, md)
end

local i8, c8, i22 = node_of("itrs", 8), node_of("conservative", 8), node_of("itrs", 22)
local function against(published, value)
  return ("%+.0f%%"):format(100 * (value / published - 1))
end
local function band_of(pair, fmt)
  return ("%s - %s"):format(fmt(pair[1]), fmt(pair[2]))
end
heading("## Published figures next to gpush's")
if i8 and c8 and i22 then
  -- the four headline figures: value, its band, the tied designs' span, the target
  local figures = {
    { "8 nm geometric-mean speedup, ITRS", "7.9x", i8, "speedup", function(v) return v >= 7.9 * 0.75 and v <= 7.9 * 1.25 end },
    { "8 nm geometric-mean speedup, conservative", "3.7x", c8, "speedup",
      function(v) return v >= 3.7 * 0.75 and v <= 3.7 * 1.25 end },
    { "dark fraction at 22 nm, ITRS", "21% (target 10-35%)", i22, "dark_fraction",
      function(v) return v >= 0.10 and v <= 0.35 end },
    { "dark fraction at 8 nm, ITRS", "> 50%", i8, "dark_fraction", function(v) return v > 0.5 end },
  }
  local rows = {}
  for _, fig in ipairs(figures) do
    local node, field, ok = fig[3], fig[4], fig[5]
    local fmt = field == "speedup" and function(v) return x2(v) .. "x" end or pct
    rows[#rows + 1] = { fig[1], fig[2], fmt(node[field]), band_of(node.band[field], fmt),
      field == "dark_fraction" and band_of(node.dark_tied, pct) or "", ok(node[field]) and "yes" or "no" }
  end
  add_table({ "figure", "published", "gpush", "band (unknown inputs)", "tied designs", "within the target" }, rows)
  heading("### Each unknown input at the other end of its range")
  local headers = { "figure", "default" }
  for _, run in ipairs(i8.band.runs) do
    headers[#headers + 1] = ("%s = %g"):format(run.name, run.value)
  end
  rows = {}
  for _, fig in ipairs(figures) do
    local node, field = fig[3], fig[4]
    local fmt = field == "speedup" and function(v) return x2(v) .. "x" end or pct
    local row = { fig[1], fmt(node[field]) }
    for _, run in ipairs(node.band.runs) do
      row[#row + 1] = fmt(run[field])
    end
    rows[#rows + 1] = row
  end
  add_table(headers, rows)
  md[#md + 1] = ""
  for _, u in ipairs(ds.UNKNOWNS) do
    md[#md + 1] = ("- %s: %g - %g, %s"):format(u.name, u.values[1], u.values[2], u.why)
  end
  heading("### Topologies at 8 nm")
  add_table({ "figure", "published", "gpush" }, {
    { "dynamic over symmetric at 8 nm, ITRS", "+10%", against(1, i8.by_topology.dynamic / i8.by_topology.symmetric) },
    { "dynamic over symmetric at 8 nm, conservative", "+10%",
      against(1, c8.by_topology.dynamic / c8.by_topology.symmetric) },
  })
  -- The frontier core a chip must be filled with to be as dark as published
  -- (closed form, dark_silicon.core_for_dark), next to the light cores of
  -- gpush's best designs.
  local function mean_light_q(node)
    local sum, n = 0, 0
    for _, row in ipairs(node.benchmarks) do
      local q = tonumber(row.best.light:match("^F([%d.]+)$")) or ds.named_core(row.best.light).q
      if q then
        sum, n = sum + q, n + 1
      end
    end
    return n > 0 and sum / n or 0
  end
  local function implied(scaling, node_nm, dark)
    local q = ds.core_for_dark(params, scaling, node_nm, dark)
    return q and ("%.1f"):format(q) or "outside the frontier"
  end
  heading("### The core size a published dark fraction implies")
  add_table({ "node", "published dark", "frontier core (SPECmark) whose full chip is that dark",
    "mean light core of gpush's best designs" }, {
    { "22 nm ITRS", "21%", implied("itrs", 22, 0.21), ("%.1f"):format(mean_light_q(i22)) },
    { "8 nm ITRS", "> 50%", "> " .. implied("itrs", 8, 0.5), ("%.1f"):format(mean_light_q(i8)) },
  })
end
md[#md + 1] = ""
md[#md + 1] = "## Per node"
for _, scaling in ipairs(ds.SCALINGS) do
  heading(("### %s scaling"):format(scaling))
  local rows = {}
  for _, node in ipairs(result.nodes) do
    if node.scaling == scaling then
      local t = node.by_topology
      rows[#rows + 1] = { node.node_nm, x2(node.speedup), band_of(node.band.speedup, x2), pct(node.dark_fraction),
        band_of(node.band.dark_fraction, pct), band_of(node.dark_tied, pct), node.cores, node.topology,
        node.organization, x2(t.symmetric), x2(t.asymmetric), x2(t.dynamic), x2(t.fused) }
    end
  end
  add_table({ "node (nm)", "speedup", "band", "dark", "band", "tied", "cores", "topology", "org", "symmetric",
    "asymmetric", "dynamic", "fused" }, rows)
end

local function study_table(title, result_of, value_label)
  heading("## " .. title)
  local values, seen, by = {}, {}, {}
  for _, row in ipairs(result_of.rows) do
    if not seen[row.value] then
      seen[row.value] = true
      values[#values + 1] = row.value
    end
    by[row.benchmark] = by[row.benchmark] or {}
    by[row.benchmark][row.value] = row.ratio
  end
  local headers = { "benchmark" }
  for i, v in ipairs(values) do
    headers[i + 1] = value_label .. " " .. tostring(v)
  end
  headers[#headers + 1] = "best"
  local rows = {}
  for _, b in ipairs(result_of.benchmarks) do
    local r = { b.name }
    for i, v in ipairs(values) do
      r[i + 1] = x2(by[b.name][v])
    end
    r[#r + 1] = tostring(result_of.best[b.name].value)
    rows[#rows + 1] = r
  end
  add_table(headers, rows)
end
study_table("L2 share of the die (symmetric CPU, 45 nm; speedup relative to the default share)", l2, "share")
study_table("SMT (symmetric CPU, 8 nm ITRS; relative to one thread per core)", smt, "T =")
study_table("GPU memory bandwidth (symmetric GPU-like, 45 nm; relative to 200 GB/s)", bw, "GB/s")

heading(("## Most cores of each named core per node (symmetric; Fig. 4.16; %g mm^2, %g W)")
  :format(params.area_mm2, params.power_w))
do
  local ids, seen, by = {}, {}, {}
  for _, row in ipairs(counts) do
    if not seen[row.core] then
      seen[row.core] = true
      ids[#ids + 1] = row.core
    end
    by[row.scaling .. row.node_nm] = by[row.scaling .. row.node_nm] or {}
    by[row.scaling .. row.node_nm][row.core] = row.n .. (row.limit == "power" and " P" or "")
  end
  local headers = { "scaling", "node (nm)" }
  table.move(ids, 1, #ids, 3, headers)
  local rows = {}
  for _, scaling in ipairs(ds.SCALINGS) do
    for _, node_nm in ipairs(ds.NODES) do
      local r = { scaling, node_nm }
      for i, id in ipairs(ids) do
        r[i + 2] = by[scaling .. node_nm][id]
      end
      rows[#rows + 1] = r
    end
  end
  add_table(headers, rows)
  md[#md + 1] = ""
  md[#md + 1] = "P: power decides the count (area otherwise)."
end

-- The 8 nm rows of a Chapters 4-5 variant: scaling, core kind, speedup, the
-- range its +-20 % noisy runs span, dark fraction and median core count.
local function variant_rows(summary, noisy_runs)
  local rows = {}
  for _, s in ipairs(summary) do
    if s.node_nm == 8 then
      local lo, hi = math.huge, -math.huge
      for _, v in ipairs(noisy_runs) do
        for _, t in ipairs(v.summary) do
          if t.scaling == s.scaling and t.node_nm == 8 and t.kind == s.kind then
            lo, hi = math.min(lo, t.speedup), math.max(hi, t.speedup)
          end
        end
      end
      rows[#rows + 1] = { s.scaling, s.kind .. "-cores", x2(s.speedup), ("%s - %s"):format(x2(lo), x2(hi)),
        pct(s.dark_fraction), s.cores }
    end
  end
  return rows
end

heading("## Chapters 4-5 variant (named cores, symmetric, f = 0.99 on S-cores; upper-bound model; PARSEC)")
do
  local rows = variant_rows(upper.summary, noisy)
  add_table({ "scaling", "cores", "8 nm speedup", ("with +-20%% noise (%d seeds)"):format(seeds), "dark",
    "median cores" }, rows)
  md[#md + 1] = ""
  md[#md + 1] = "S-cores S1-S4+ at their Algorithm 3.1 CPI_exe; M-cores M1-M3 on their lanes (SP/SM of Table 2.4b,"
  md[#md + 1] = "one thread instruction per lane-cycle, the GPU preset's resident threads and L1); every chip shares"
  md[#md + 1] = "BW_max; the Chapter 3 budgets."
end

heading("## Chapters 4-5 variant with the custom core models (gpush suite kernels)")
do
  local rows = variant_rows(custom.summary, custom_noisy)
  add_table({ "scaling", "cores", "8 nm speedup", ("with +-20%% noise (%d seeds)"):format(seeds), "dark",
    "median cores" }, rows)
  md[#md + 1] = ""
  md[#md + 1] = "S-side inputs translated from each kernel's trace (Chapter 5; out-of-order targets ILP 6.2, in-order"
  md[#md + 1] = "ones the warp's ILP up to 2), M-side inputs measured by each M-core; speedup over four custom-model"
  md[#md + 1] = "Nehalems at 45 nm (f = 0.99); every chip's bandwidth is BW_max."
  for _, w in ipairs(custom_list) do
    for _, skip in ipairs(w.skipped) do
      md[#md + 1] = ("- %s does not run on %s"):format(w.name, skip)
    end
  end
end

heading("## The thesis's statements about these projections (L1414-1448)")
do
  local rows = {}
  for _, c in ipairs(claims) do
    rows[#rows + 1] = { c.lines, c.claim, c.published, c.gpush, c.holds and "yes" or "no", c.why or "" }
  end
  add_table({ "lines", "statement", "published", "gpush", "holds", "what decides it" }, rows)
end

heading("## Assumed inputs")
do
  local rows = {}
  for _, spec in ipairs(ds.PARAMS) do
    rows[#rows + 1] = { spec.name, tostring(params[spec.name]), spec.unit, spec.desc,
      without_line_refs(spec.source) } -- sections and equations, not reference lines
  end
  add_table({ "parameter", "value", "unit", "description", "source" }, rows)
end
if #result.notes + #upper.notes > 0 then
  heading("## Calibration notes")
  for _, note in ipairs(result.notes) do
    md[#md + 1] = "- " .. note
  end
  for _, note in ipairs(upper.notes) do
    md[#md + 1] = "- " .. note
  end
end
write(name .. ".md", table.concat(md, "\n") .. "\n")
