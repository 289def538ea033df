-- gpush.models.mech.dark_silicon: dark-silicon projections (Blem's thesis
-- Sec. 2.4 and 3.3, after Esmaeilzadeh et al., ISCA 2011): device scaling
-- 45 -> 8 nm (ITRS or conservative), the 45 nm Pareto frontiers of core
-- power and area against SPECmark, chip area and power budgets, the
-- upper-bound core model (gpush.models.mech.upper_bound) inside the
-- multicore model (gpush.models.mech.topology), and an exhaustive search per
-- node and benchmark over core type, topology and organisation, each design
-- holding the most light cores its budgets allow (the rule of [28]'s public
-- re-implementations), with a sensitivity band over the inputs of [28] no
-- source prints.  The Chapters 4-5 projections are gpush.models.mech.variant.
--
--   local ds = require "gpush.models.mech.dark_silicon"
--   local r = ds.project { scalings = { "itrs" } }       -- every assumed input at its default
--   for _, node in ipairs(r.nodes) do print(node.node_nm, node.speedup, node.dark_fraction) end
--   ds.project { params = { power_w = 100 } }            -- any assumption overridden by name
--   ds.project_band {}                                   -- and the band (node.band)
--
-- Every assumed input is a declared parameter (M.PARAMS, a parameter group
-- of gpush.schema: name, type, unit, default, one-line description and where
-- the value comes from); docs/darksilicon.md lists them with the reasons.
-- Speedups are over the 45 nm quad-core baseline (Eq. 2.1).
local config = require "gpush.config"
local core = require "gpush.core"
local schema = require "gpush.schema"
local text = require "gpush.text"
local topology = require "gpush.models.mech.topology"
local ub = require "gpush.models.mech.upper_bound"
local scaling_data = require "gpush.models.mech.data.scaling"
local named_cores = require "gpush.models.mech.data.named_cores"

local M = {}

M.NODES = scaling_data.nodes
M.SCALINGS = { "itrs", "conservative" }

-- Parameters -------------------------------------------------------------------------

-- Every assumed input, a parameter group of gpush.schema declared with the
-- same helper as the GPU parameters: { name, type, unit =, default =, min =,
-- max =, desc =, source = }.
local group = schema.group("darksilicon")
M.PARAMS = group.list
local param = group.declare

param { "area_mm2", "number", unit = "mm^2", default = 111, min = 1, max = 1e5,
  desc = "Chip area budget for cores (core + L1) at every node",
  source = "[28]'s budget, as UCSBarchlab/Charm dark_silicon_symmetric.charm line 70 sets it (chip_area = 111.0)" }
param { "power_w", "number", unit = "W", default = 125, min = 0.01, max = 1e5,
  desc = "Chip power budget for cores at every node (no uncore, no L2 power)",
  source = "[28]'s budget, as UCSBarchlab/Charm dark_silicon_symmetric.charm line 71 sets it (thermal_design_power = 125.0)" }
param { "bandwidth_gbs", "number", unit = "GB/s", default = 21, min = 0.001, max = 1e6,
  desc = "Off-chip memory bandwidth BW_max (Eq. 3.4) of every chip: the baseline's own, held fixed at every node",
  source = "unknown input of [28] (band 21-200 GB/s); default Table 2.4a (Nehalem i7-965: 21 GB/s)" }
param { "bytes_per_access", "number", unit = "B", default = 64, min = 1, max = 4096,
  desc = "Bytes per off-chip access b (Eq. 3.4)", source = "unknown input of [28] (band 64-128 B); default one cache line" }
param { "l1_kb", "number", unit = "KiB", default = 64, min = 0, max = 1e6,
  desc = "L1 data cache per core", source = "Table 2.4a; liangwang/lumos mem/__init__.py ([28] Table 4: 64 KB)" }
param { "l2_mb", "number", unit = "MiB", default = 8, min = 0, max = 1e6,
  desc = "Shared L2 (last-level) capacity of the chip",
  source = "unknown input of [28] (band 1-8 MB); default Table 2.4a: the baseline's 8 MB last-level cache" }
param { "l2_scaling", "bool", unit = "", default = false,
  desc = "L2 capacity grows with density (l2_mb / area factor); false: the baseline's L2 at every node",
  source = "darksilicon.md: the budgets exclude L2/L3 and uncore; no reference scales them" }
param { "t_l1", "number", unit = "cycles", default = 3, min = 0, max = 1e4,
  desc = "L1 access time", source = "thesis L845; liangwang/lumos mem/__init__.py ([28] Table 4: 3 cycles)" }
param { "t_l2", "number", unit = "cycles", default = 20, min = 0, max = 1e4,
  desc = "L2 access time (fixed in cycles at every clock)", source = "thesis L845, L778" }
param { "t_mem_ns", "number", unit = "ns", default = 426 / 3.2, min = 0, max = 1e5,
  desc = "Memory access time t_mem, fixed in ns so its cycles grow with the clock (426 cycles at 3.2 GHz)",
  source = "[28] Table 4 (CmpM defaults from the 45 nm Nehalem): 426 cycles, as quoted by the public re-implementation "
    .. "liangwang/lumos lumos/model/mem/__init__.py ('Data is extracted from: table 4 of the paper ...'); "
    .. "thesis L1397 (Ch. 3 uses [28]'s assumptions), L778 (cycles grow with the clock)" }
param { "cpu_threads", "int", unit = "threads", default = 1, min = 1, max = 64,
  desc = "Threads per CPU-like core (SMT, no area or power cost)", source = "Table 2.1; thesis L885 for SMT" }
param { "gpu_threads", "int", unit = "threads", default = 1024, min = 1, max = 65536,
  desc = "Threads per GPU-like light core (T_M), sharing its L1",
  source = "thesis L770 ('1024 threads per 8 cores'; band 128-1024: read per lane or per core)" }
param { "q_min", "number", unit = "SPECmark", default = 6, min = 0.01, max = 1000,
  desc = "Frontier's lowest core (Atom N450)", source = "thesis L659, Table 2.4a" }
param { "q_max", "number", unit = "SPECmark", default = 36.5, min = 0.01, max = 1000,
  desc = "Frontier's highest core (Nehalem i7-965); Algorithm 3.1's reference point",
  source = "thesis L659, Table 2.4a" }
param { "clock_min_ghz", "number", unit = "GHz", default = 1.66, min = 0.01, max = 100,
  desc = "Clock of the frontier's lowest core", source = "Table 2.4a (Atom)" }
param { "clock_max_ghz", "number", unit = "GHz", default = 3.2, min = 0.01, max = 100,
  desc = "Clock of the frontier's highest core", source = "Table 2.4a (Nehalem)" }
param { "frontier_points", "int", unit = "intervals", default = 30, min = 1, max = 10000,
  desc = "Algorithm 3.1's nPoints: the frontier is searched at nPoints + 1 evenly spaced scores",
  source = "assumption" }
param { "initial_cpi", "number", unit = "cycles/inst", default = 1, min = 0.001, max = 1000,
  desc = "Algorithm 3.1's l: CPI_exe of the reference (top) core", source = "assumption" }
param { "baseline_core", "string", unit = "", default = "S4",
  desc = "Named S-core of the 45 nm baseline chip (Table 2.4a id)", source = "thesis L544" }
param { "baseline_cores", "int", unit = "cores", default = 4, min = 1, max = 4096,
  desc = "Cores of the symmetric 45 nm baseline chip", source = "thesis L544" }
param { "fused_overhead", "number", unit = "", default = 0, min = 0, max = 10,
  desc = "Area a fusable light core adds, as a fraction of its own (tau)", source = "thesis L506 gives none" }

-- The parameter values: defaults, with `overrides` (name -> value; strings
-- as the command line gives them are read as YAML scalars) checked against
-- their declarations with gpush.config's coercion.  Raises on an unknown
-- name or a bad value, naming the parameter, what it expects and its unit.
function M.params(overrides)
  local p = {}
  for _, spec in ipairs(M.PARAMS) do
    p[spec.name] = spec.default
  end
  for name, value in pairs(overrides or {}) do
    local spec = group.by_name[name]
    if not spec then
      local names = {}
      for i, s in ipairs(M.PARAMS) do
        names[i] = s.name
      end
      local guess = text.closest(tostring(name), names)
      error(("dark_silicon: unknown parameter '%s'%s (one of: %s)"):format(tostring(name),
        guess and (" (did you mean '" .. guess .. "'?)") or "", table.concat(names, ", ")), 2)
    end
    local v = value
    if type(v) == "string" and spec.type ~= "string" then
      v = core.yaml_scalar(v)
    end
    local ok = config.coerce(spec, v)
    if ok == nil then
      error(("dark_silicon: parameter '%s': expected %s%s, got %s"):format(name, config.expectation(spec),
        spec.unit ~= "" and (" " .. spec.unit) or "", config.format_value(value)), 2)
    end
    p[name] = ok
  end
  if p.q_max <= p.q_min then
    error(("dark_silicon: q_max (%g) must be above q_min (%g): the frontier runs from q_min to q_max")
      :format(p.q_max, p.q_min), 2)
  end
  if p.clock_max_ghz < p.clock_min_ghz then
    error(("dark_silicon: clock_min_ghz (%g GHz) must not be above clock_max_ghz (%g GHz): the frontier's clock "
      .. "grows with its score"):format(p.clock_min_ghz, p.clock_max_ghz), 2)
  end
  local base = M.named_core(p.baseline_core)
  if not base or base.kind ~= "S" then
    error(("dark_silicon: baseline_core '%s' is not a named S-core of Table 2.4a (S1, S2, S3, S4, S4+)")
      :format(p.baseline_core), 2)
  end
  return p
end

-- Frontiers and cores -------------------------------------------------------------------

-- The 45 nm Pareto frontiers (darksilicon.md): power in W and area in mm^2
-- of the best core of SPECmark q.
function M.power_frontier(q)
  return 0.0002 * q ^ 3 + 0.0009 * q ^ 2 + 0.3859 * q - 0.0301
end

function M.area_frontier(q)
  return 0.0152 * q ^ 2 + 0.0265 * q + 7.4393
end

-- A named core of Table 2.4 by id (S1 ... S4+, M1 ... M3).
function M.named_core(id)
  for _, c in ipairs(named_cores) do
    if c.id == id then
      return c
    end
  end
end

-- The upper-bound model's M-cores (thesis L679: "we cannot usefully map
-- M-Core performance to a SPECmark score"): an SM is `lanes` SPs (Table 2.4b
-- SP/SM), each an in-order lane retiring one thread instruction per cycle
-- (CPI_exe = M.LANE_CPI: an SP "performs a single operation on data from a
-- single thread", L483) at the lane clock, holding `threads` resident
-- threads (the GPU preset's sm.max_warps x sm.warp_size; 1024 for the
-- pre-Fermi GT330, as L770's "1024 threads per 8 cores") that share its L1
-- data cache for global loads (`l1_bytes`: none before Fermi, L487; Kepler's
-- global loads bypass it).  The GPU preset of each is the M-core preset of
-- gpush.models.mech (M.MCORE_PRESETS).
M.LANE_CPI = 1
M.MCORE_PRESETS = { M1 = "gt330", M2 = "gtx480", M3 = "gtx660ti" }
local figures_cache = {}
function M.mcore_figures(id)
  if figures_cache[id] then
    return figures_cache[id]
  end
  local c, preset = M.named_core(id), M.MCORE_PRESETS[id]
  if not c or c.kind ~= "M" or not preset then
    error(("dark_silicon: '%s' is not a named M-core of Table 2.4b (M1, M2, M3)"):format(tostring(id)), 2)
  end
  local model = assert(require("gpush.models.mech").mcore.core(preset))
  local cfg = model.gpu
  local l1 = (cfg.gpu.compute_capability >= 2 and cfg.l1.cache_global) and cfg.l1.size_kb * 1024 or 0
  local f = { lanes = c.sps, clock_ghz = c.lane_clock_ghz or c.clock_ghz, threads = cfg.sm.max_warps * cfg.sm.warp_size,
    l1_bytes = l1, preset = preset }
  figures_cache[id] = f
  return f
end

-- The candidate cores at 45 nm: the frontier at p.frontier_points + 1
-- evenly spaced scores from q_min to q_max (clock linear in q, thesis L806),
-- then the named cores of `chapter`'s dark-silicon study (or the ids in
-- `ids`).  Each: { id, label, kind = "frontier"|"named", core = "S"|"M"|nil
-- (frontier cores serve as both), q (S-cores), clock_ghz, area, power, and
-- for named M-cores lanes, threads, l1_bytes (M.mcore_figures) }.
function M.cores(p, chapter, ids)
  local list = {}
  if not ids then
    for k = 0, p.frontier_points do
      local q = p.q_min + (p.q_max - p.q_min) * k / p.frontier_points
      list[#list + 1] = { id = ("F%.2f"):format(q), label = ("frontier q=%.2f"):format(q), kind = "frontier", q = q,
        clock_ghz = ub.frontier_clock(q, p.q_min, p.q_max, p.clock_min_ghz, p.clock_max_ghz),
        area = M.area_frontier(q), power = M.power_frontier(q) }
    end
  end
  local wanted_id = {}
  for _, id in ipairs(ids or {}) do
    if not M.named_core(id) then
      error(("dark_silicon: unknown core '%s' (Table 2.4 ids S1, S2, S3, S4, S4+, M1, M2, M3)"):format(tostring(id)), 2)
    end
    wanted_id[id] = true
  end
  for _, c in ipairs(named_cores) do
    local wanted = wanted_id[c.id] or false
    if not ids then
      for _, ch in ipairs(c.chapters) do
        wanted = wanted or ch == chapter
      end
    end
    if wanted then
      local entry = { id = c.id, label = c.id .. " " .. c.name, kind = "named", core = c.kind, q = c.q,
        clock_ghz = c.clock_ghz, area = c.area, power = c.power, issue = c.issue }
      if c.kind == "M" then
        local f = M.mcore_figures(c.id)
        entry.lanes, entry.threads, entry.l1_bytes, entry.clock_ghz = f.lanes, f.threads, f.l1_bytes, f.clock_ghz
      end
      list[#list + 1] = entry
    end
  end
  return list
end

-- Whether a candidate core can be a CPU-like light core, a GPU-like light
-- core (M-core) or a heavy (single-threaded) core.
local function serves(core, role)
  if core.kind == "frontier" then
    return true
  end
  if role == "gpu" then
    return core.core == "M"
  end
  return core.core == "S"
end

-- The dark fraction of a symmetric chip filled with frontier cores of score q
-- at a node (the integer counts left out): the area budget holds
-- area_mm2 / (A(q) x area factor) cores, the power budget powers
-- power_w / (P(q) x power factor); dark = 1 - powered / held, at least 0.
-- A closed form to read a published dark fraction back to the core size
-- it implies (docs/darksilicon.md).
function M.full_chip_dark(p, scaling, node_nm, q)
  local f = M.factors(scaling, node_nm)
  local held = p.area_mm2 / (M.area_frontier(q) * f.area)
  local powered = p.power_w / (M.power_frontier(q) * f.power)
  return math.max(0, 1 - powered / held)
end

-- The frontier score q in [lo, hi] (default: the frontier's range) whose
-- full chip (M.full_chip_dark) has dark fraction `dark`, by bisection
-- (P(q) / A(q) grows with q on the printed frontiers, so the dark fraction
-- does); nil and the range's dark fractions when `dark` lies outside it.
function M.core_for_dark(p, scaling, node_nm, dark, lo, hi)
  lo, hi = lo or p.q_min, hi or p.q_max
  local d_lo, d_hi = M.full_chip_dark(p, scaling, node_nm, lo), M.full_chip_dark(p, scaling, node_nm, hi)
  if dark < d_lo or dark > d_hi then
    return nil, d_lo, d_hi
  end
  for _ = 1, 200 do
    local mid = (lo + hi) / 2
    if M.full_chip_dark(p, scaling, node_nm, mid) < dark then
      lo = mid
    else
      hi = mid
    end
  end
  return (lo + hi) / 2
end

-- Scaling -----------------------------------------------------------------------------

-- The factors of `scaling` ("itrs" or "conservative") at `node_nm`.
function M.factors(scaling, node_nm)
  local rows = scaling_data[scaling]
  if not rows then
    error(("dark_silicon: unknown scaling '%s' (itrs or conservative)"):format(tostring(scaling)), 2)
  end
  for _, row in ipairs(rows) do
    if row.node_nm == node_nm then
      return row
    end
  end
  error(("dark_silicon: no %s scaling factors for %s nm (nodes: %s)"):format(scaling, tostring(node_nm),
    table.concat(M.NODES, ", ")), 2)
end

-- The chip at one node: scaling factors, budgets and the memory system.
-- p may override area_mm2 and the L2 (the L2 study does).
function M.node(p, scaling, node_nm)
  local f = M.factors(scaling, node_nm)
  local l2 = p.l2_mb * 1024 * 1024
  if p.l2_scaling then
    l2 = l2 / f.area
  end
  return { scaling = scaling, node_nm = node_nm, freq = f.freq, power = f.power, area = f.area,
    budget = { area = p.area_mm2, power = p.power_w, fused_overhead = p.fused_overhead },
    c_l1 = p.l1_kb * 1024, c_l2 = l2, t_l1 = p.t_l1, t_l2 = p.t_l2, t_mem_ns = p.t_mem_ns,
    bandwidth_gbs = p.bandwidth_gbs, bytes = p.bytes_per_access }
end

-- A core's area and power at a node.
local function scaled(core, node)
  return { area = core.area * node.area, power = core.power * node.power }
end
M.scaled = scaled

-- Benchmarks ----------------------------------------------------------------------------

M.BENCHMARK_FIELDS = { "name", "f", "r_ls", "alpha_l1", "beta_l1", "alpha_l2", "beta_l2" }

-- Table B.1's PARSEC inputs (a fresh copy).
function M.benchmarks()
  local list = {}
  for i, b in ipairs(require "gpush.models.mech.data.parsec") do
    local copy = {}
    for k, v in pairs(b) do
      copy[k] = v
    end
    list[i] = copy
  end
  return list
end

-- The range of each benchmark field, with why: alpha below 1 would make
-- the power-law miss rate (C / (T beta))^(1 - alpha) grow with the cache.
local FIELD_RANGE = {
  f = { 0, 1, "a parallel fraction" }, r_ls = { 0, 1, "a fraction of the instructions" },
  alpha_l1 = { 1, 100, "at least 1, or the miss rate would grow with the cache" },
  beta_l1 = { 1e-12, 1e15, "a positive number of bytes" },
  alpha_l2 = { 1, 100, "at least 1, or the miss rate would grow with the cache" },
  beta_l2 = { 1e-12, 1e15, "a positive number of bytes" },
}

-- Checks one field of a benchmark: the value as a number, or nil and what
-- was expected.
local function check_field(key, value)
  local range = FIELD_RANGE[key]
  local v = tonumber(value)
  if not v or v ~= v or v < range[1] or v > range[2] then
    return nil, ("%s must be a number in [%g, %g] (%s), got '%s'"):format(key, range[1], range[2], range[3],
      tostring(value))
  end
  return v
end

-- Checks a list of benchmarks (Lua tables with Table B.1's fields): nil
-- when they are fine, else a message naming the benchmark and the field.
-- Names must be unique.
function M.check_benchmarks(list)
  if type(list) ~= "table" or #list == 0 then
    return "dark_silicon: benchmarks must be a non-empty list"
  end
  local seen = {}
  for i, b in ipairs(list) do
    if type(b.name) ~= "string" or b.name == "" then
      return ("dark_silicon: benchmark %d has no name"):format(i)
    end
    if seen[b.name] then
      return ("dark_silicon: benchmark '%s' is listed twice (%d and %d)"):format(b.name, seen[b.name], i)
    end
    seen[b.name] = i
    for k = 2, #M.BENCHMARK_FIELDS do
      local key = M.BENCHMARK_FIELDS[k]
      local _, err = check_field(key, b[key])
      if err then
        return ("dark_silicon: benchmark '%s': %s"):format(b.name, err)
      end
    end
  end
end

-- Reads benchmark inputs from a CSV file with the header
-- name,f,r_ls,alpha_l1,beta_l1,alpha_l2,beta_l2 (Table B.1's columns; '#'
-- lines are comments).  Returns the list, or nil and a message naming the
-- file, the line and what was expected.
function M.load_benchmarks(path)
  local f, open_err = io.open(path, "r")
  if not f then
    return nil, ("%s: cannot open (%s)"):format(path, open_err)
  end
  local list, header, line_no, line_of = {}, nil, 0, {}
  for line in f:lines() do
    line_no = line_no + 1
    line = line:gsub("\r$", "")
    if line:match("^%s*$") or line:match("^%s*#") then
      goto continue
    end
    do
      local cells = {}
      for cell in (line .. ","):gmatch("([^,]*),") do
        cells[#cells + 1] = cell:match("^%s*(.-)%s*$")
      end
      if not header then
        if table.concat(cells, ",") ~= table.concat(M.BENCHMARK_FIELDS, ",") then
          f:close()
          return nil, ("%s:%d: expected the header '%s'"):format(path, line_no, table.concat(M.BENCHMARK_FIELDS, ","))
        end
        header = cells
        goto continue
      end
      if #cells ~= #header then
        f:close()
        return nil, ("%s:%d: expected %d comma-separated fields, got %d"):format(path, line_no, #header, #cells)
      end
      local b = { name = cells[1] }
      if b.name == "" then
        f:close()
        return nil, ("%s:%d: empty benchmark name"):format(path, line_no)
      end
      if line_of[b.name] then
        f:close()
        return nil, ("%s:%d: benchmark '%s' is already on line %d"):format(path, line_no, b.name, line_of[b.name])
      end
      line_of[b.name] = line_no
      for i = 2, #header do
        local v, err = check_field(header[i], cells[i])
        if not v then
          f:close()
          return nil, ("%s:%d: %s"):format(path, line_no, err)
        end
        b[header[i]] = v
      end
      list[#list + 1] = b
    end
    ::continue::
  end
  f:close()
  if not header then
    return nil, ("%s: empty file (expected the header '%s')"):format(path, table.concat(M.BENCHMARK_FIELDS, ","))
  end
  if #list == 0 then
    return nil, ("%s: no benchmark rows after the header"):format(path)
  end
  return list
end

-- The core model at a node ------------------------------------------------------------------

-- One core's performance P_C (Eq. 3.1-3.3) and the chip's bandwidth bound
-- P_B (Eq. 3.4) for benchmark b on `node`, with `threads` threads on the
-- core (sharing its L1) and `total` threads sharing the L2.
-- A named M-core (core.lanes) runs its threads on min(lanes, threads)
-- lanes at CPI_exe = M.LANE_CPI, sharing its own L1 (core.l1_bytes): P_C =
-- lanes x eta(threads per lane) x nu / CPI_exe; `cpi` is not used.
local function core_at(node, b, core, cpi, threads, total)
  local clock = core.clock_ghz * node.freq
  if core.lanes then
    local lanes = math.min(core.lanes, threads)
    local m1 = ub.miss(core.l1_bytes, threads, b.alpha_l1, b.beta_l1)
    local m2 = ub.miss(node.c_l2, total, b.alpha_l2, b.beta_l2)
    local t = ub.wait_cycles(m1, m2, node.t_l1, node.t_l2, node.t_mem_ns * clock)
    return lanes * ub.performance(M.LANE_CPI, clock, threads / lanes, b.r_ls, t),
      ub.bandwidth(node.bandwidth_gbs, node.bytes, b.r_ls, m1, m2)
  end
  local m1 = ub.miss(node.c_l1, threads, b.alpha_l1, b.beta_l1)
  local m2 = ub.miss(node.c_l2, total, b.alpha_l2, b.beta_l2)
  local t = ub.wait_cycles(m1, m2, node.t_l1, node.t_l2, node.t_mem_ns * clock)
  return ub.performance(cpi, clock, threads, b.r_ls, t), ub.bandwidth(node.bandwidth_gbs, node.bytes, b.r_ls, m1, m2)
end
M.core_at = core_at

-- Algorithm 3.1 for one benchmark: the CPI_exe of every core in `cores`
-- (list from M.cores), calibrated at 45 nm single-threaded (T = 1, one core
-- alone with the whole L2) against the frontier's top point (q_max at
-- clock_max_ghz, CPI_exe = l).  A named core's CPI_exe never drops below
-- 1 / its issue width: a core scored above what the blocking-memory model
-- allows at its clock (the Sandybridge on a memory-bound benchmark) is held
-- there, with a note.  Returns a table core id -> CPI_exe and the notes;
-- raises if a core's score cannot be reached.
function M.calibrate(p, b, cores)
  local node = M.node(p, "itrs", 45)
  local points, scored = { { q = p.q_max, clock_ghz = p.clock_max_ghz } }, {}
  for _, c in ipairs(cores) do
    if c.q then -- M-cores have lanes, not a score
      scored[#scored + 1] = c
      points[#points + 1] = { q = c.q, clock_ghz = c.clock_ghz, min_cpi = c.issue and 1 / c.issue or nil }
    end
  end
  local cpis, notes = ub.calibrate(points, function(point, cpi)
    return (core_at(node, b, point, cpi, 1, 1))
  end, { top = 1, initial_cpi = p.initial_cpi })
  if not cpis then
    error(("dark_silicon: %s: %s"):format(b.name, notes), 0)
  end
  local by_id, messages = {}, {}
  for i, c in ipairs(scored) do
    by_id[c.id] = cpis[i + 1]
  end
  for i, note in ipairs(notes) do
    local k = tonumber(note:match("^point (%d+)"))
    messages[i] = ("%s: %s: %s"):format(b.name, scored[k - 1].id, note:gsub("^point %d+ ", ""))
  end
  return by_id, messages
end

-- Table 2.3 for a symmetric CPU chip of n copies of `core` (the baseline):
-- P_1 and P_inf.
local function symmetric_chip(node, b, core, cpi, n)
  local pc1, pb1 = core_at(node, b, core, cpi, 1, 1)
  local pcn, pbn = core_at(node, b, core, cpi, 1, n)
  return topology.performance("symmetric", { n = n, light = pcn, light_serial = pc1, bandwidth_serial = pb1,
    bandwidth_parallel = pbn })
end

-- The baseline chip's P_1 and P_inf for benchmark b (p.baseline_cores
-- copies of the named core p.baseline_core at 45 nm), calibrated like the
-- designs.
function M.baseline(p, b)
  local named = M.named_core(p.baseline_core) -- M.params checked it is a named S-core
  local core = { id = named.id, q = named.q, clock_ghz = named.clock_ghz, area = named.area, power = named.power }
  local cpi = M.calibrate(p, b, { core })[core.id]
  return symmetric_chip(M.node(p, "itrs", 45), b, core, cpi, p.baseline_cores)
end

-- The search ---------------------------------------------------------------------------------

-- Designs whose speedups differ by less than this (relative) tie: the search
-- keeps the first found (CPU before GPU; symmetric, asymmetric, dynamic,
-- fused; light and heavy cores by ascending score) and reports the span of
-- the tied designs' dark fractions.
M.TIE = 1e-9

-- The exhaustive search for one benchmark on one node: every organisation
-- (CPU-like, GPU-like), topology (Table 2.1), light core and heavy core (at
-- least the light core's score).  The light-core count is not searched: a
-- design holds the most light cores its budgets allow,
-- N = min(floor(A / a), floor(TDP / p)) around its heavy core (topology.
-- max_cores), as [28]'s public re-implementations set it
-- (UCSBarchlab/Charm dark_silicon_symmetric.charm line 60; liangwang/lumos
-- lumos/model/system/homo.py perf_by_dark), and its dark fraction is
-- 1 - powered area / A (topology.dark_fraction; Charm line 67).  `cores`
-- from M.cores, `cpis` from M.calibrate, base_p1 / base_pinf from
-- M.baseline.  opts.organizations / opts.topologies restrict the space;
-- opts.threads overrides the threads per CPU-like core.  Returns the best
-- design and a table "org/topology" -> that combination's best design.
-- A design: { speedup, organization, topology, light, heavy, n, cores,
-- dark_fraction, limit = "area"|"power", p1, pinf }.
function M.search(p, node, b, cores, cpis, base_p1, base_pinf, opts)
  opts = opts or {}
  local orgs = opts.organizations or topology.ORGANIZATIONS
  local topologies = {}
  for _, name in ipairs(opts.topologies or topology.NAMES) do
    topologies[topology.check(name)] = true
  end
  local budget = node.budget
  local best, designs = {}, {}
  local tied_speedup, tied_dark = {}, {} -- every design's speedup and dark fraction, for the ties
  local function record(org, name, light, heavy, n, p1, pinf)
    local ls, hs = scaled(light, node), heavy and scaled(heavy, node)
    local speedup = topology.speedup(b.f, p1, pinf, base_p1, base_pinf)
    local dark = topology.dark_fraction(name, ls, hs, budget, n)
    tied_speedup[#tied_speedup + 1], tied_dark[#tied_dark + 1] = speedup, dark
    local key = org .. "/" .. name
    if best[key] and best[key].speedup >= speedup then
      return
    end
    local _, n_area, n_power = topology.max_cores(name, ls, hs, budget)
    best[key] = { speedup = speedup, organization = org, topology = name, light = light.id,
      heavy = heavy and heavy.id, n = n, cores = n + ((name == "asymmetric" or name == "dynamic") and 1 or 0),
      dark_fraction = dark, limit = n_area <= n_power and "area" or "power", p1 = p1, pinf = pinf }
  end
  -- the serial phase: one thread alone on the chip
  local heavies = {}
  for _, c in ipairs(cores) do
    if serves(c, "cpu") then
      local pc1, pb1 = core_at(node, b, c, cpis[c.id], 1, 1)
      heavies[#heavies + 1] = { core = c, scaled = scaled(c, node), p1 = math.min(pc1, pb1) }
    end
  end
  for _, org in ipairs(orgs) do
    local threads = org == "cpu" and (opts.threads or p.cpu_threads) or p.gpu_threads
    -- the parallel phase of n light cores (plus `extra` threads on the L2:
    -- the asymmetric heavy core's); many heavy cores leave the same n
    local memo = {}
    local function parallel(light, n, extra)
      local key = ("%s/%d/%d"):format(light.id, n, extra)
      local hit = memo[key]
      if not hit then
        local t = light.threads or threads -- a named M-core runs its own resident threads
        hit = { core_at(node, b, light, cpis[light.id], t, n * t + extra) }
        memo[key] = hit
      end
      return hit[1], hit[2]
    end
    for _, light in ipairs(cores) do
      if serves(light, org) then
        local ls = scaled(light, node)
        if topologies.symmetric then
          local n = topology.max_cores("symmetric", ls, nil, budget)
          if n >= 1 then
            local pc1, pb1 = core_at(node, b, light, cpis[light.id], 1, 1) -- serial: one thread on one light core
            local pc, pb = parallel(light, n, 0)
            record(org, "symmetric", light, nil, n, math.min(pc1, pb1), math.min(n * pc, pb))
          end
        end
        for _, h in ipairs(heavies) do
          local heavy = h.core
          if not light.q or heavy.q >= light.q then -- an M-core light core pairs with every heavy core
            if topologies.dynamic then
              local n = topology.max_cores("dynamic", ls, h.scaled, budget)
              if n >= 1 then
                local pc, pb = parallel(light, n, 0)
                record(org, "dynamic", light, heavy, n, h.p1, math.min(n * pc, pb))
              end
            end
            if topologies.fused then
              local n = topology.max_cores("fused", ls, h.scaled, budget)
              if n >= 1 and topology.fits("fused", n, ls, h.scaled, budget) then
                local pc, pb = parallel(light, n, 0)
                record(org, "fused", light, heavy, n, h.p1, math.min(n * pc, pb))
              end
            end
            if topologies.asymmetric then
              local n = topology.max_cores("asymmetric", ls, h.scaled, budget)
              if n >= 1 then
                local pc, pb = parallel(light, n, 1)
                local ph = core_at(node, b, heavy, cpis[heavy.id], 1, n * (light.threads or threads) + 1)
                record(org, "asymmetric", light, heavy, n, h.p1, math.min(ph + n * pc, pb))
              end
            end
          end
        end
      end
    end
  end
  local overall
  for _, org in ipairs(orgs) do
    for _, name in ipairs(topology.NAMES) do
      local d = best[org .. "/" .. name]
      if d and (not overall or d.speedup > overall.speedup) then
        overall = d
      end
    end
  end
  if overall then
    -- designs as fast as the best (at the bandwidth wall many tie exactly:
    -- every light core gives the same P_B): the span of their dark fractions
    local lo, hi = overall.dark_fraction, overall.dark_fraction
    local floor = overall.speedup * (1 - M.TIE)
    for i, speedup in ipairs(tied_speedup) do
      if speedup >= floor then
        lo, hi = math.min(lo, tied_dark[i]), math.max(hi, tied_dark[i])
      end
    end
    overall.dark_tied = { lo, hi }
  end
  return overall, best
end

-- Summaries ------------------------------------------------------------------------------

function M.geomean(values)
  local sum = 0
  for _, v in ipairs(values) do
    sum = sum + math.log(v)
  end
  return math.exp(sum / #values)
end

function M.mean(values)
  local sum = 0
  for _, v in ipairs(values) do
    sum = sum + v
  end
  return sum / #values
end

-- The lower median.
function M.median(values)
  local sorted = {}
  for i, v in ipairs(values) do
    sorted[i] = v
  end
  table.sort(sorted)
  return sorted[(#sorted + 1) // 2]
end

-- The most frequent of `values`, ties broken by the order of `order`.
local function mode(values, order)
  local count = {}
  for _, v in ipairs(values) do
    count[v] = (count[v] or 0) + 1
  end
  local best
  for _, v in ipairs(order) do
    if count[v] and (not best or count[v] > count[best]) then
      best = v
    end
  end
  return best
end

-- Per-benchmark preparation shared by every node: CPI_exe of every core and
-- the baseline's performance; returns the cores, the per-benchmark list and
-- the calibration's notes.
function M.prepare(p, benchmarks, chapter)
  local cores = M.cores(p, chapter or 3)
  local prepared, notes = {}, {}
  for i, b in ipairs(benchmarks) do
    local base_p1, base_pinf = M.baseline(p, b)
    local cpis, messages = M.calibrate(p, b, cores)
    prepared[i] = { bench = b, cpis = cpis, base_p1 = base_p1, base_pinf = base_pinf }
    table.move(messages, 1, #messages, #notes + 1, notes)
  end
  return cores, prepared, notes
end

-- One node's projection over the prepared benchmarks: per benchmark the
-- best design, and the summary row (docs/darksilicon.md states the rule):
-- speedup = geometric mean of the best speedups, dark_fraction = mean of
-- the best designs' dark fractions, cores = lower median of their core
-- counts, topology and organization = the most frequent; by_topology holds
-- the geometric mean of each topology's best (either organisation).
function M.project_node(p, scaling, node_nm, cores, prepared, opts)
  local node = M.node(p, scaling, node_nm)
  local speedups, darks, counts, topos, orgs, rows = {}, {}, {}, {}, {}, {}
  local tied_lo, tied_hi = {}, {}
  local per_topology = {}
  for i, pr in ipairs(prepared) do
    local best, by = M.search(p, node, pr.bench, cores, pr.cpis, pr.base_p1, pr.base_pinf, opts)
    if not best then
      error(("dark_silicon: no design fits the budgets at %s nm (%s) for %s"):format(node_nm, scaling,
        pr.bench.name), 0)
    end
    speedups[i], darks[i], counts[i], topos[i], orgs[i] = best.speedup, best.dark_fraction, best.cores,
      best.topology, best.organization
    tied_lo[i], tied_hi[i] = best.dark_tied[1], best.dark_tied[2]
    rows[i] = { benchmark = pr.bench.name, best = best, by = by }
    for _, name in ipairs(topology.NAMES) do
      local top
      for _, org in ipairs(topology.ORGANIZATIONS) do
        local d = by[org .. "/" .. name]
        if d and (not top or d.speedup > top.speedup) then
          top = d
        end
      end
      if top then
        per_topology[name] = per_topology[name] or {}
        table.insert(per_topology[name], top.speedup)
      end
    end
  end
  local by_topology = {}
  for _, name in ipairs(topology.NAMES) do
    if per_topology[name] and #per_topology[name] == #prepared then
      by_topology[name] = M.geomean(per_topology[name])
    end
  end
  return { node_nm = node_nm, scaling = scaling, speedup = M.geomean(speedups), dark_fraction = M.mean(darks),
    dark_tied = { M.mean(tied_lo), M.mean(tied_hi) }, cores = M.median(counts), topology = mode(topos, topology.NAMES), organization = mode(orgs, topology.ORGANIZATIONS),
    by_topology = by_topology, benchmarks = rows }
end

-- The projection: opts.params (overrides by name), opts.scalings (default
-- both), opts.nodes (default 45 ... 8), opts.benchmarks (default Table
-- B.1), opts.progress(done, total, what) called after each node.  Returns
-- { params, nodes = { one row per scaling and node, in that order }, notes
-- = the calibration's notes }.
function M.project(opts)
  opts = opts or {}
  local p = M.params(opts.params)
  local benchmarks = opts.benchmarks or M.benchmarks()
  local bad = M.check_benchmarks(benchmarks)
  if bad then
    error(bad, 2)
  end
  local scalings = opts.scalings or M.SCALINGS
  local nodes = opts.nodes or M.NODES
  local cores, prepared, notes = M.prepare(p, benchmarks, 3)
  local result = { params = p, nodes = {}, notes = notes }
  local total = #scalings * #nodes
  for _, scaling in ipairs(scalings) do
    for _, node_nm in ipairs(nodes) do
      result.nodes[#result.nodes + 1] = M.project_node(p, scaling, node_nm, cores, prepared, opts.search)
      if opts.progress then
        opts.progress(#result.nodes, total, ("%s %d nm"):format(scaling, node_nm))
      end
    end
  end
  return result
end

-- The inputs of [28] nothing reachable prints, each with the range its
-- sources allow (docs/darksilicon.md "Unknown inputs"): the projection is run
-- once more at each end of a range that differs from the parameter's value.
M.UNKNOWNS = {
  { name = "bandwidth_gbs", values = { 21, 200 },
    why = "BW_max: the baseline i7-965's 21 GB/s (Table 2.4a) to the 200 GB/s of the thesis's GPU study (L881)" },
  { name = "l2_mb", values = { 1, 8 },
    why = "L2 capacity: the baseline's four 256 KB L2s to its 8 MB last-level cache (Table 2.4a)" },
  { name = "bytes_per_access", values = { 64, 128 },
    why = "b: a 64 B CPU cache line to a 128 B GPU L1 line (thesis L1175)" },
  { name = "gpu_threads", values = { 128, 1024 },
    why = "T_M: L770's '1024 threads per 8 cores' read per lane (128) or per core (1024)" },
}

-- The projection with its sensitivity band: M.project(opts), then one run
-- per end of each M.UNKNOWNS range that differs from the run's own value
-- (opts.unknowns restricts the list).  Each node gains
--   band = { speedup = { lo, hi }, dark_fraction = { lo, hi },
--            runs = { { name, value, speedup, dark_fraction }, ... } }
-- (lo, hi over the default and every run).  opts.progress as for project.
function M.project_band(opts)
  opts = opts or {}
  local result = M.project(opts)
  local p = result.params
  local index = {}
  for i, node in ipairs(result.nodes) do
    index[node.scaling .. "/" .. node.node_nm] = i
    node.band = { speedup = { node.speedup, node.speedup }, dark_fraction = { node.dark_fraction, node.dark_fraction },
      runs = {} }
  end
  for _, unknown in ipairs(opts.unknowns or M.UNKNOWNS) do
    for _, value in ipairs(unknown.values) do
      if value ~= p[unknown.name] then
        local params = {}
        for k, v in pairs(opts.params or {}) do
          params[k] = v
        end
        params[unknown.name] = value
        local run = M.project { params = params, scalings = opts.scalings, nodes = opts.nodes,
          benchmarks = opts.benchmarks, search = opts.search }
        for _, node in ipairs(run.nodes) do
          local target = result.nodes[index[node.scaling .. "/" .. node.node_nm]]
          local band = target.band
          band.speedup[1] = math.min(band.speedup[1], node.speedup)
          band.speedup[2] = math.max(band.speedup[2], node.speedup)
          band.dark_fraction[1] = math.min(band.dark_fraction[1], node.dark_fraction)
          band.dark_fraction[2] = math.max(band.dark_fraction[2], node.dark_fraction)
          band.runs[#band.runs + 1] = { name = unknown.name, value = value, speedup = node.speedup,
            dark_fraction = node.dark_fraction }
        end
        if opts.progress then
          opts.progress(("%s = %g"):format(unknown.name, value))
        end
      end
    end
  end
  return result
end

-- Chapter 3 design studies (thesis L873-885) -----------------------------------------------

-- A copy of parameter table p with `changes` applied (no re-validation:
-- the callers change values they computed).
local function with(p, changes)
  local q = {}
  for k, v in pairs(p) do
    q[k] = v
  end
  for k, v in pairs(changes) do
    q[k] = v
  end
  return q
end

-- Runs `points` (list of { label value, parameter changes, search opts })
-- for every benchmark at one node and returns rows { benchmark, value,
-- speedup, design } plus, per benchmark, the best value.  The baseline
-- and every CPI_exe come from the unchanged parameters.
local function study(opts, points, defaults)
  local p = M.params(opts.params)
  local benchmarks = opts.benchmarks or M.benchmarks()
  local cores, prepared = M.prepare(p, benchmarks, 3)
  local scaling, node_nm = opts.scaling or defaults.scaling, opts.node_nm or defaults.node_nm
  local rows, best = {}, {}
  for _, point in ipairs(points) do
    local q = with(p, point.changes or {})
    local node = M.node(q, scaling, node_nm)
    for _, pr in ipairs(prepared) do
      local design = M.search(q, node, pr.bench, cores, pr.cpis, pr.base_p1, pr.base_pinf, point.search)
      local row = { benchmark = pr.bench.name, value = point.value, speedup = design and design.speedup or 0,
        design = design }
      rows[#rows + 1] = row
      local b = best[pr.bench.name]
      if not b or row.speedup > b.speedup then
        best[pr.bench.name] = row
      end
    end
  end
  return { scaling = scaling, node_nm = node_nm, rows = rows, best = best, benchmarks = benchmarks }
end

-- The speedup of each row over the row of the same benchmark at `value`.
local function relative_to(result, value)
  local ref = {}
  for _, row in ipairs(result.rows) do
    if row.value == value then
      ref[row.benchmark] = row.speedup
    end
  end
  for _, row in ipairs(result.rows) do
    row.ratio = row.speedup / ref[row.benchmark]
  end
  return result
end

-- The L2 study's reference share of the die: 30 % (thesis L879, "compared to
-- a 30% cache area").  Not a projection input: the projection's L2 is l2_mb.
M.L2_STUDY_SHARE = 0.3

-- Fig. 3.5(a): a symmetric CPU at 45 nm (opts.node_nm, opts.scaling) as the
-- L2's share of a fixed die varies (opts.shares, default 0 ... 0.9).  The
-- die is area_mm2 / (1 - reference share); the L2 holds l2_mb at the
-- reference share (opts.reference_share, default M.L2_STUDY_SHARE) and scales
-- with its area; L2 power and latency changes are ignored (as the thesis
-- does).  rows[i].ratio: speedup over the reference share.
function M.l2_study(opts)
  opts = opts or {}
  local p = M.params(opts.params)
  local reference = opts.reference_share or M.L2_STUDY_SHARE
  if type(reference) ~= "number" or reference <= 0 or reference >= 1 then
    error(("dark_silicon.l2_study: reference_share must be in (0, 1), got %s"):format(tostring(reference)), 2)
  end
  local die = p.area_mm2 / (1 - reference)
  local points = {}
  for i, share in ipairs(opts.shares or { 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9 }) do
    if type(share) ~= "number" or share < 0 or share >= 1 then
      error(("dark_silicon.l2_study: an L2 share must be in [0, 1), got %s"):format(tostring(share)), 2)
    end
    points[i] = { value = share, changes = { area_mm2 = die * (1 - share), l2_mb = p.l2_mb * share / reference },
      search = { organizations = { "cpu" }, topologies = { "symmetric" } } }
  end
  return relative_to(study(opts, points, { scaling = "itrs", node_nm = 45 }), reference)
end

-- Fig. 3.5(b): a symmetric GPU-like chip at 45 nm as the memory bandwidth
-- grows (opts.bandwidths, default 200 ... 3200 GB/s); ratio over the first.
function M.bandwidth_study(opts)
  opts = opts or {}
  local bandwidths = opts.bandwidths or { 200, 400, 800, 1600, 3200 }
  local points = {}
  for i, bw in ipairs(bandwidths) do
    points[i] = { value = bw, changes = { bandwidth_gbs = bw },
      search = { organizations = { "gpu" }, topologies = { "symmetric" } } }
  end
  return relative_to(study(opts, points, { scaling = "itrs", node_nm = 45 }), bandwidths[1])
end

-- SMT (thesis L885): a symmetric CPU with opts.threads (default 1, 2, 4, 8)
-- threads per core at no area or power cost, at opts.node_nm (default 8 nm,
-- ITRS); the threads share the core's L1 and everyone's L2.  ratio: over
-- one thread per core.
function M.smt_study(opts)
  opts = opts or {}
  local points = {}
  for i, t in ipairs(opts.threads or { 1, 2, 4, 8 }) do
    points[i] = { value = t, search = { organizations = { "cpu" }, topologies = { "symmetric" }, threads = t } }
  end
  return relative_to(study(opts, points, { scaling = "itrs", node_nm = 8 }), 1)
end

return M
