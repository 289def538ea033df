-- gpush.models.mech.variant: the dark-silicon projections of Blem's
-- Chapters 4 and 5 (thesis Sec. 4.5 and 5.5, L1395-1450, L1810-1823): the
-- named cores of Table 2.4 only (S1 A8, S2 Atom, S3 Xeon, S4 Nehalem, S4+
-- Sandybridge, M1 pre-Fermi, M2 Fermi, M3 Kepler; L1399 lists the five
-- S-cores), symmetric chips (L1406) of the most copies of a core the budgets
-- allow, f = 0.99 on S-cores (L1405), each benchmark's best core per kind,
-- with the upper-bound model (Chapter 3) or the custom core models
-- (gpush.models.mech: score, mcore) and the +-20 % input noise of L1821.
--
--   local variant = require "gpush.models.mech.variant"
--   local r = variant.run {}                                    -- upper bound, PARSEC
--   local w = assert(variant.custom_workload(kernel, "triad"))  -- a gpush kernel
--   local c = variant.run { benchmarks = { w }, perf = variant.custom_perf() }
--   local rows = variant.claims { upper = r, custom = c }       -- L1414-1448 checked
--
-- Budgets are Chapter 3's (dark_silicon.params: 111 mm^2, 125 W): L1397 says
-- the chapter changes the cores, benchmarks, parallelism and topologies, not
-- the budgets.  Every chip, S or M, is bounded by the projection's chip
-- bandwidth BW_max (Table 3.1's chip-level input; dark_silicon.UNKNOWNS
-- gives its range), the custom models included (their single-core
-- predictions drop Table 2.3's min with P_B, L512; the chip's bandwidth
-- still binds the chip).
local ds = require "gpush.models.mech.dark_silicon"
local topology = require "gpush.models.mech.topology"

local M = {}

-- The cores of the study: the five S-cores of L1399 and the three M-cores of
-- Table 2.4b's "Dark Silicon Chapter" row.
M.CORES = { "S1", "S2", "S3", "S4", "S4+", "M1", "M2", "M3" }

-- Fig. 4.16's counts the thesis prints (L1414-1419): at 8 nm, 16 Xeons (S3)
-- with conservative scaling and 29 with ITRS scaling, and 480 A8s (S1).
M.FIG_4_16 = {
  { scaling = "conservative", node_nm = 8, core = "S3", n = 16 },
  { scaling = "itrs", node_nm = 8, core = "S3", n = 29 },
}

-- The power budgets under which the most copies of each core in `counts`
-- (default M.FIG_4_16) are exactly the printed numbers when power limits
-- them: n <= P / (TDP x power factor) < n + 1 for each, so P lies in
-- [n x c, (n + 1) x c) with c = TDP x power factor; returns the
-- intersection lo, hi (hi excluded), or nil when the counts disagree.  A
-- check of the printed counts, not an input: the budgets stay Chapter 3's.
function M.back_solve_power(counts)
  local lo, hi = 0, math.huge
  for _, row in ipairs(counts or M.FIG_4_16) do
    local c = ds.named_core(row.core)
    if not c then
      error(("variant.back_solve_power: unknown core '%s'"):format(tostring(row.core)), 2)
    end
    local per_core = c.power * ds.factors(row.scaling, row.node_nm).power
    lo, hi = math.max(lo, row.n * per_core), math.min(hi, (row.n + 1) * per_core)
  end
  if lo >= hi then
    return nil
  end
  return lo, hi
end

-- The most copies of each named core (Table 2.4) a symmetric chip holds at
-- every node (Fig. 4.16) under the budgets of dark_silicon.params
-- (opts.params), and whether area or power decides it.  Returns rows
-- { scaling, node_nm, core, n, n_area, n_power, limit }.
function M.core_counts(opts)
  opts = opts or {}
  local p = ds.params(opts.params)
  local rows = {}
  for _, scaling in ipairs(opts.scalings or ds.SCALINGS) do
    for _, node_nm in ipairs(opts.nodes or ds.NODES) do
      local node = ds.node(p, scaling, node_nm)
      for _, id in ipairs(M.CORES) do
        local n, n_area, n_power = topology.max_cores("symmetric", ds.scaled(ds.named_core(id), node), nil, node.budget)
        rows[#rows + 1] = { scaling = scaling, node_nm = node_nm, core = id, n = n, n_area = n_area,
          n_power = n_power, limit = n_area <= n_power and "area" or "power" }
      end
    end
  end
  return rows
end

-- Input noise (thesis L1821) ------------------------------------------------------------------

-- A seeded uniform generator in [0, 1) (Park-Miller minimal standard,
-- exact in doubles, so Lua 5.4 and LuaJIT draw the same numbers).
function M.random(seed)
  local state = math.floor(seed or 1) % 2147483647
  if state <= 0 then
    state = state + 2147483646
  end
  return function()
    state = (16807 * state) % 2147483647
    return (state - 1) / 2147483646
  end
end

-- Each numeric field of `inputs` (except those in `keep`) multiplied by a
-- factor drawn uniformly from [1 - noise, 1 + noise], fields visited in
-- sorted order so a seed gives the same draw everywhere (thesis L1821:
-- "a random amount of error between -20% to +20% to each term").  Nested
-- tables (a workload's S-core and M-core input records, a class mix) are
-- perturbed the same way, in the same sorted walk.  bounds[name] = { min =,
-- max =, whole = } keeps a field in its range (rates in [0, 1], a count of
-- at least one warp) and whole fields whole numbers.
function M.perturb(inputs, noise, draw, keep, bounds)
  local names = {}
  for k, v in pairs(inputs) do
    if (type(v) == "number" or type(v) == "table") and not (keep and keep[k]) then
      names[#names + 1] = k
    end
  end
  table.sort(names, function(a, b) return tostring(a) < tostring(b) end)
  local out = {}
  for k, v in pairs(inputs) do
    out[k] = v
  end
  for _, k in ipairs(names) do
    local v = inputs[k]
    if type(v) == "table" then
      v = M.perturb(v, noise, draw, keep, bounds)
    else
      v = v * (1 + noise * (2 * draw() - 1))
      local range = bounds and bounds[k]
      if range then
        if range.whole then
          v = math.floor(v + 0.5)
        end
        v = math.max(range.min or -math.huge, math.min(range.max or math.huge, v))
      end
    end
    out[k] = v
  end
  return out
end

-- The upper-bound model on a named core --------------------------------------------------------

-- P_1 and P_inf of a symmetric chip of n copies of a named core with the
-- upper-bound model (Table 2.3, Eq. 3.1-3.4): an S-core at its Algorithm 3.1
-- CPI_exe, one thread per core; an M-core on its lanes with its resident
-- threads (dark_silicon.mcore_figures), the serial phase one thread on one
-- lane.  The chip's bandwidth bounds both phases.
local function upper_bound_perf(node, bench, core, cpi, n)
  local threads = core.threads or 1
  local pc1, pb1 = ds.core_at(node, bench, core, cpi, 1, 1)
  local pcn, pbn = ds.core_at(node, bench, core, cpi, threads, n * threads)
  return topology.performance("symmetric", { n = n, light = pcn, light_serial = pc1, bandwidth_serial = pb1,
    bandwidth_parallel = pbn })
end

-- The projection ------------------------------------------------------------------------------

-- The variant: opts.params (dark_silicon parameters), opts.cores (default
-- M.CORES), opts.f (default 0.99, for S-cores; M-cores take the benchmark's
-- own f, L1448), opts.noise (default 0) relative error on each workload
-- input drawn with opts.seed (default 1; opts.bounds keeps fields in range,
-- default r_ls in [0, 1]), opts.scalings, opts.nodes, opts.benchmarks
-- (default PARSEC, Table B.1).  opts.perf(core, node, workload, n) -> P_1,
-- P_inf (or nil: the core cannot run the workload) plugs in a core model
-- (custom_perf); the default is the upper-bound model.  The baseline
-- (baseline_cores copies of baseline_core at 45 nm) runs on the same model.
-- Returns { rows = { scaling, node_nm, benchmark, core, kind, n, speedup,
-- dark_fraction, limit }, best = per (scaling, node, kind) and benchmark
-- the best row, summary = per (scaling, node, kind) { speedup (geometric
-- mean of the best), dark_fraction (mean), cores (lower median), chosen =
-- core id -> benchmarks }, workloads, notes }.
function M.run(opts)
  opts = opts or {}
  local p = ds.params(opts.params)
  local f = opts.f or 0.99
  local noise, draw = opts.noise or 0, M.random(opts.seed or 1)
  local benchmarks = opts.benchmarks or ds.benchmarks()
  local cores = ds.cores(p, nil, opts.cores or M.CORES)
  local workloads = {}
  for i, b in ipairs(benchmarks) do
    if noise > 0 then
      workloads[i] = M.perturb(b, noise, draw, { f = true }, opts.bounds or { r_ls = { min = 0, max = 1 } })
      workloads[i].noisy = true
    else
      workloads[i] = b
    end
  end
  local base = ds.cores(p, nil, { p.baseline_core })[1]
  local notes, prepared = {}, {}
  for i, w in ipairs(workloads) do
    local cpis, base_p1, base_pinf = {}, nil, nil
    if opts.perf then
      base_p1, base_pinf = opts.perf(base, ds.node(p, "itrs", 45), w, p.baseline_cores)
      if not base_p1 then
        error(("variant: the baseline core %s cannot run %s"):format(base.id, w.name), 2)
      end
    else
      local messages
      cpis, messages = ds.calibrate(p, w, cores)
      table.move(messages, 1, #messages, #notes + 1, notes)
      base_p1, base_pinf = ds.baseline(p, w)
    end
    prepared[i] = { bench = w, cpis = cpis, base_p1 = base_p1, base_pinf = base_pinf }
  end
  local rows, best, summary = {}, {}, {}
  for _, scaling in ipairs(opts.scalings or ds.SCALINGS) do
    for _, node_nm in ipairs(opts.nodes or ds.NODES) do
      local node = ds.node(p, scaling, node_nm)
      local per_kind = { S = {}, M = {} }
      for _, pr in ipairs(prepared) do
        local top = {}
        for _, c in ipairs(cores) do
          local sc = ds.scaled(c, node)
          local n, n_area, n_power = topology.max_cores("symmetric", sc, nil, node.budget)
          if n >= 1 then
            local p1, pinf
            if opts.perf then
              p1, pinf = opts.perf(c, node, pr.bench, n)
            else
              p1, pinf = upper_bound_perf(node, pr.bench, c, pr.cpis[c.id], n)
            end
            if p1 then
              local row = { scaling = scaling, node_nm = node_nm, benchmark = pr.bench.name, core = c.id, kind = c.core,
                n = n, speedup = topology.speedup(c.core == "S" and f or pr.bench.f, p1, pinf, pr.base_p1,
                  pr.base_pinf),
                dark_fraction = topology.dark_fraction("symmetric", sc, nil, node.budget, n),
                limit = n_area <= n_power and "area" or "power" }
              rows[#rows + 1] = row
              if not top[c.core] or row.speedup > top[c.core].speedup then
                top[c.core] = row
              end
            end
          end
        end
        for kind, row in pairs(top) do
          table.insert(per_kind[kind], row)
        end
      end
      for _, kind in ipairs { "S", "M" } do
        local list = per_kind[kind]
        if #list > 0 then
          local speedups, darks, counts, chosen = {}, {}, {}, {}
          for i, row in ipairs(list) do
            speedups[i], darks[i], counts[i] = row.speedup, row.dark_fraction, row.n
            chosen[row.core] = chosen[row.core] or {}
            table.insert(chosen[row.core], row.benchmark)
          end
          summary[#summary + 1] = { scaling = scaling, node_nm = node_nm, kind = kind,
            speedup = ds.geomean(speedups), dark_fraction = ds.mean(darks), cores = ds.median(counts),
            chosen = chosen, best = list }
        end
      end
    end
  end
  return { rows = rows, summary = summary, workloads = workloads, notes = notes, params = p }
end

-- The summary row of `result` at (scaling, node_nm, kind), or nil.
function M.summary_at(result, scaling, node_nm, kind)
  for _, s in ipairs(result.summary) do
    if s.scaling == scaling and s.node_nm == node_nm and s.kind == kind then
      return s
    end
  end
end

-- The thesis's claims (L1414-1448) -------------------------------------------------------------

-- Every statement of Sec. 4.5 about the projection, checked against gpush's:
-- opts.upper (M.run with the upper-bound model, every scaling and node),
-- opts.custom (M.run with custom_perf; optional), opts.params (the budgets).
-- Returns rows { lines, claim, published, gpush, holds (true/false), why }:
-- `why` says what decides a claim that does not hold (docs/darksilicon.md).
function M.claims(opts)
  local counts = M.core_counts { params = opts.params }
  local count = {}
  for _, row in ipairs(counts) do
    count[row.scaling .. row.node_nm .. row.core] = row
  end
  local rows = {}
  local function claim(lines, text, published, value, holds, why)
    rows[#rows + 1] = { lines = lines, claim = text, published = published, gpush = value, holds = holds,
      why = not holds and why or nil }
  end
  local function limited(scaling, node_nm, id)
    return count[scaling .. node_nm .. id].limit == "power"
  end
  -- Fig. 4.16's counts
  local area_first = true
  for _, id in ipairs(M.CORES) do
    for _, scaling in ipairs(ds.SCALINGS) do
      area_first = area_first and not limited(scaling, 45, id)
    end
  end
  claim("L1414", "initially (45 nm) every chip is area-constrained", "all area-limited",
    area_first and "all area-limited" or "some power-limited", area_first,
    "a 45 nm chip of the largest cores needs more than the power budget")
  local s1_never, late = true, {}
  for _, scaling in ipairs(ds.SCALINGS) do
    for _, node_nm in ipairs(ds.NODES) do
      s1_never = s1_never and not limited(scaling, node_nm, "S1")
    end
    for _, id in ipairs(M.CORES) do
      if id ~= "S1" and not limited(scaling, 16, id) then
        late[#late + 1] = ("%s (%s)"):format(id, scaling)
      end
    end
  end
  claim("L1414", "S1 (A8) is the only core never power-constrained", "S1 never power-limited",
    s1_never and "S1 never power-limited" or "S1 power-limited at some node", s1_never,
    "the A8's TDP x the power factor fills the budget at 8 nm")
  claim("L1414", "every other core is power-constrained by the 18 nm (16 nm) node", "all by 16 nm",
    #late == 0 and "all by 16 nm" or ("still area-limited at 16 nm: " .. table.concat(late, ", ")), #late == 0,
    "at 125 W these chips of small cores fit the budget until 11 nm (power factor 0.38 / 0.39 at 16 nm)")
  local printed = { conservative = 16, itrs = 29 }
  for _, scaling in ipairs(ds.SCALINGS) do
    local s3, s1 = count[scaling .. "8S3"].n, count[scaling .. "8S1"].n
    claim("L1414-1419", ("cores at 8 nm, %s: %d S3 to 480 S1"):format(scaling, printed[scaling]),
      ("%d S3, 480 S1"):format(printed[scaling]), ("%d S3, %d S1"):format(s3, s1),
      s3 == printed[scaling] and math.abs(s1 - 480) <= 10,
      ("the printed S3 count needs a budget of [%.1f, %.1f) W (Chapter 3's is %g W); 480 A8s need 112.5 mm^2, "
        .. "111 fit %d"):format((select(1, M.back_solve_power())), (select(2, M.back_solve_power())),
        ds.params(opts.params).power_w, s1))
  end
  local sb_over_a8 = ds.named_core("S4+").q / ds.named_core("S1").q
  claim("L1431", "the Sandybridge is 40x faster than an A8 (SPECmark)", "40x", ("%.1fx"):format(sb_over_a8),
    math.abs(sb_over_a8 - 40) < 1, "")
  local ratio = count["itrs8S1"].n / count["itrs8S4+"].n
  claim("L1431", "at 8 nm only 15x more A8 cores than Sandybridges fit (ITRS)", "15x", ("%.1fx"):format(ratio),
    ratio >= 12 and ratio <= 18, "the counts come from the budgets (Fig. 4.16)")
  local a8_10x = (count["itrs8S1"].n * 10) * ds.named_core("S1").q > count["itrs8S4+"].n * sb_over_a8
  claim("L1431", "an A8 ten times smaller would outperform the Sandybridge chip (no bandwidth limit)",
    "A8 chip faster", a8_10x and "A8 chip faster" or "Sandybridge chip faster", a8_10x, "")
  -- the upper-bound projection
  local upper = opts.upper
  local function at(result, scaling, node_nm, kind)
    return result and M.summary_at(result, scaling, node_nm, kind)
  end
  local published = { S = { conservative = { 5.2, 0.81, 37 }, itrs = { 20.4, 0.72, 39 } },
    M = { conservative = { 10.3, 0.72, 19 }, itrs = { 24.0, 0.52, 42 } } }
  for _, kind in ipairs { "S", "M" } do
    for _, scaling in ipairs(ds.SCALINGS) do
      local s, want = at(upper, scaling, 8, kind), published[kind][scaling]
      if s then
        local ratio_ = s.speedup / want[1]
        claim("L1423-1429", ("%s-core chips at 8 nm, %s: speedup, dark, cores"):format(kind, scaling),
          ("%.1fx, %.0f%%, %d"):format(want[1], 100 * want[2], want[3]),
          ("%.2fx, %.0f%%, %d"):format(s.speedup, 100 * s.dark_fraction, s.cores),
          ratio_ >= 0.75 and ratio_ <= 1.25 and math.abs(s.dark_fraction - want[2]) <= 0.15,
          "the thesis runs CAB, whose inputs it does not print; gpush runs PARSEC (Table B.1) at f = 0.99 on "
            .. "S-cores, and every chip shares BW_max (docs/darksilicon.md)")
      end
    end
  end
  local sd, md = at(upper, "itrs", 8, "S"), at(upper, "itrs", 8, "M")
  if sd and md then
    claim("L1429", "dark silicon is lower on M-core chips than on S-core chips", "M below S",
      ("M %.0f%%, S %.0f%% (ITRS)"):format(100 * md.dark_fraction, 100 * sd.dark_fraction),
      md.dark_fraction < sd.dark_fraction, "the M-core chips that win are power-limited Fermi chips")
  end
  local small = {}
  for _, s in ipairs(upper and upper.summary or {}) do
    if s.kind == "S" then
      for _, id in ipairs { "S1", "S2" } do
        if s.chosen[id] then
          small[#small + 1] = ("%s at %d nm %s"):format(id, s.node_nm, s.scaling)
        end
      end
    end
  end
  claim("L1431", "the Atom and the A8 are never chosen", "never",
    #small == 0 and "never" or ("chosen: " .. table.concat(small, "; ")), #small == 0,
    "at 125 W an Atom chip stays area-limited until 11 nm while a Xeon chip is power-limited from 16 nm "
      .. "(16 nm, ITRS: 109 Atoms x 6 = 654 SPECmark against 19 Xeons x 26 = 494)")
  if upper then
    local spread = {}
    for _, scaling in ipairs(ds.SCALINGS) do
      local by_core = {}
      for _, row in ipairs(upper.rows) do
        if row.scaling == scaling and row.node_nm == 8 and (row.core == "S3" or row.core == "S4" or row.core == "S4+") then
          by_core[row.core] = by_core[row.core] or {}
          table.insert(by_core[row.core], row.speedup)
        end
      end
      local g = {}
      for id, list in pairs(by_core) do
        g[#g + 1] = ds.geomean(list)
      end
      table.sort(g)
      spread[#spread + 1] = g[#g] / g[1] - 1
    end
    local worst = math.max(table.unpack(spread))
    claim("L1431", "S3, S4 and S4+ chips are within 10 % of each other at 8 nm", "within 10%",
      ("within %.0f%%"):format(100 * worst), worst <= 0.10, "their chips differ in how many cores power allows")
    local m_pick = {}
    for _, s in ipairs(upper.summary) do
      if s.kind == "M" then
        for id in pairs(s.chosen) do
          m_pick[id] = true
        end
      end
    end
    claim("L1431", "M2 or M3 is always chosen among the M-cores", "M2 or M3",
      m_pick.M1 and "M1 chosen too" or "M2 or M3", not m_pick.M1, "")
    local m3_at_8 = 0
    for _, scaling in ipairs(ds.SCALINGS) do
      local s = at(upper, scaling, 8, "M")
      m3_at_8 = m3_at_8 + (s.chosen.M3 and #s.chosen.M3 or 0)
    end
    local total = 2 * #upper.workloads
    claim("L1431", "at 8 nm Kepler (M3) is almost always chosen", "almost always",
      ("%d of %d benchmark-scalings"):format(m3_at_8, total), m3_at_8 >= 0.75 * total,
      "with PARSEC at the chip's BW_max every M-core chip is bandwidth-bound, and the Fermi SM's L1 holds "
        .. "global loads (Kepler's skip it)")
    local m_wins = {}
    for _, scaling in ipairs(ds.SCALINGS) do
      local s, m = at(upper, scaling, 8, "S"), at(upper, scaling, 8, "M")
      local wins = 0
      for i, row in ipairs(m.best) do
        if row.speedup > s.best[i].speedup then
          wins = wins + 1
        end
      end
      m_wins[scaling] = wins
    end
    claim("L1433", "the M-core chip is faster for 5 of 9 benchmarks (ITRS) and 8 of 9 (conservative)",
      "5/9 and 8/9", ("%d/%d and %d/%d"):format(m_wins.itrs, #upper.workloads, m_wins.conservative,
        #upper.workloads), m_wins.itrs > 0 and m_wins.conservative > 0,
      "PARSEC's working sets make every GPU access go off chip at BW_max")
  end
  local custom = opts.custom
  if custom then
    local cs_i, cs_c = at(custom, "itrs", 8, "S"), at(custom, "conservative", 8, "S")
    local cm_i, cm_c = at(custom, "itrs", 8, "M"), at(custom, "conservative", 8, "M")
    if cs_i and cs_c then
      local lo, hi = math.min(cs_i.speedup, cs_c.speedup), math.max(cs_i.speedup, cs_c.speedup)
      claim("L1442", "custom models: S-core chips 6x to 20x at 8 nm", "6x-20x", ("%.1fx-%.1fx"):format(lo, hi),
        lo >= 6 * 0.75 and hi <= 20 * 1.25, "gpush runs its suite kernels, not CAB")
    end
    if cm_i and cm_c then
      local lo, hi = math.min(cm_i.speedup, cm_c.speedup), math.max(cm_i.speedup, cm_c.speedup)
      claim("L1442", "custom models: M-core chips 2.5x to 3x at 8 nm (geometric mean)", "2.5x-3x",
        ("%.1fx-%.1fx"):format(lo, hi), lo >= 2.5 * 0.75 and hi <= 3 * 1.25,
        "gpush runs its suite kernels, not CAB: no kernel here is as slow on an SM as CAB's slowest")
      local light = 0
      for _, s in ipairs { cm_i, cm_c } do
        light = light + (s.chosen.M1 and #s.chosen.M1 or 0)
      end
      claim("L1448", "highly parallel kernels often pick the lighter M1 cores", "often M1",
        ("M1 for %d of %d kernel-scalings"):format(light, 2 * #custom.workloads), light > 0, "")
    end
  end
  return rows
end

-- The custom core models (thesis L1436-1448) ---------------------------------------------------

-- Table 2.4's ids and the core presets of gpush.models.mech.
M.CUSTOM_PRESETS = { S1 = "a8", S2 = "atom", S3 = "xeon", S4 = "nehalem", ["S4+"] = "sandybridge",
  M1 = "gt330", M2 = "gtx480", M3 = "gtx660ti" }

-- A perf function for M.run over the custom S-core and M-core models.  At a
-- node a core keeps its microarchitecture and runs at its Table 2.4 clock
-- (an M-core's lane clock) x the frequency factor; memory latency stays
-- fixed in ns (both models hold it so).  S-core: one core runs the
-- workload's S-side inputs in T seconds and moves its last-level misses x b
-- bytes off chip (N_mL3 on cores with an L3, else N_mL2); the chip does
-- min(n / T, BW_max / bytes) workloads per second in parallel phases and
-- min(1 / T, BW_max / bytes) in serial ones (the custom model drops Table
-- 2.3's min, L512, so the chip's bandwidth is applied here).  M-core: the
-- model runs the kernel's measured inputs on a chip of n SMs whose DRAM
-- bandwidth is the chip's BW_max (its MWP_peak_BW bounds it), P_1 = P_inf =
-- 1 / T: the M-core model has its own parallelism (L1448).  Rates are
-- workloads per second, so S and M speedups over the same baseline compare.
-- nil where the core has no inputs for the workload (the kernel does not fit
-- one of its SMs).
function M.custom_perf()
  local mech = require "gpush.models.mech"
  local models = {}
  local function model(core, node, n)
    local preset = M.CUSTOM_PRESETS[core.id]
    local key = ("%s %g %g %d"):format(core.id, node.freq, node.bandwidth_gbs, core.core == "M" and n or 1)
    if not models[key] then
      local m, err
      if core.core == "S" then
        m, err = mech.score.core(preset, { freq_ghz = core.clock_ghz * node.freq })
      else
        m, err = mech.mcore.core(preset, { ("clock.core_mhz=%.9g"):format(core.clock_ghz * 1000 * node.freq),
          ("sm.count=%d"):format(n), ("dram.bandwidth_gbs=%.9g"):format(node.bandwidth_gbs) })
      end
      if not m then
        error(("variant.custom_perf: core %s (%s): %s"):format(core.id, preset, err), 0)
      end
      models[key] = m
    end
    return models[key]
  end
  return function(core, node, workload, n)
    local m = model(core, node, n)
    local inputs
    if core.core == "S" then
      inputs = m.hw.exec == "in_order" and workload.s_inorder or workload.s
    else
      inputs = workload.m[M.CUSTOM_PRESETS[core.id]]
    end
    if not inputs then
      return nil
    end
    if workload.noisy then -- +-20 % per input can break a relation between inputs: back onto its edge
      inputs = mech.params.repair_relations(inputs, m.hw, m.kind)
    end
    local r, err = m:predict(inputs, { effects = false })
    if not r then
      error(("variant.custom_perf: %s on core %s: %s"):format(workload.name, core.id, err), 0)
    end
    if core.core == "S" then
      local misses = m.hw.l3_mb > 0 and inputs.N_mL3 or inputs.N_mL2
      local bytes = misses * node.bytes
      local pb = bytes > 0 and node.bandwidth_gbs * 1e9 / bytes or math.huge
      return math.min(1 / r.seconds, pb), math.min(n / r.seconds, pb)
    end
    return 1 / r.seconds, 1 / r.seconds
  end
end

-- A workload for custom_perf from a gpush kernel: s and s_inorder = the
-- S-side inputs translated from the kernel's M-side record for an
-- out-of-order and an in-order target (Chapter 5: ILP 6.2, or the warp's
-- own up to 2; opts.simd_width, default 4), m[preset] = each M-core preset's
-- inputs measured on the kernel (absent where it does not fit an SM), f =
-- opts.f (default 0.99, the variant's).  Returns the workload, or nil and a
-- message.
function M.custom_workload(kernel, name, opts)
  opts = opts or {}
  local mech = require "gpush.models.mech"
  local translate = require "gpush.models.mech.translate"
  local m_record, err = translate.m_record_from_kernel(kernel)
  if not m_record then
    return nil, err
  end
  local w = { name = name, f = opts.f or 0.99, m = {}, skipped = {} }
  for field, target in pairs { s = "ooo", s_inorder = "inorder" } do
    local s_record, why = translate.m_to_s(m_record, { simd_width = opts.simd_width or 4, target = target })
    if not s_record then
      return nil, why
    end
    w[field] = mech.params.declared_inputs(s_record)
  end
  for _, id in ipairs { "M1", "M2", "M3" } do
    local preset = M.CUSTOM_PRESETS[id]
    local model = assert(mech.mcore.core(preset))
    local inputs, no = model:inputs(kernel)
    if inputs then
      w.m[preset] = inputs
    else
      w.skipped[#w.skipped + 1] = ("%s: %s"):format(id, no)
    end
  end
  return w
end

-- The ranges M.perturb keeps custom workload inputs in: each declared
-- input's (a rate in [0, 1], at least one warp, MLP and ILP at least 1);
-- warps, blocks and resident warps stay whole.
function M.custom_bounds()
  local mech = require "gpush.models.mech"
  local bounds = {}
  for _, d in ipairs(mech.params.inputs.list) do
    if d.min or d.max then
      bounds[d.name] = { min = d.min, max = d.max }
    end
  end
  for _, name in ipairs { "warps", "blocks", "W_SM" } do
    bounds[name] = bounds[name] or { min = 1 }
    bounds[name].whole = true
  end
  return bounds
end

return M
