-- Dark-silicon projections: parameters, scaling, frontiers, the search and
-- the figures gpush produces with its documented assumptions.
local helper = require "spec_helper"
local ds = require "gpush.models.mech.dark_silicon"
local topology = require "gpush.models.mech.topology"

describe("gpush.models.mech.dark_silicon: inputs", function()
  it("declares every assumed input and checks overrides", function()
    local p = ds.params()
    assert.are.equal(111, p.area_mm2)
    assert.are.equal(125, p.power_w)
    assert.are.equal(21, p.bandwidth_gbs)
    assert.is_false(p.l2_scaling)
    for _, spec in ipairs(ds.PARAMS) do
      assert.is_string(spec.unit, spec[1])
      assert.is_true(#spec.desc > 10 and #spec.source > 5, spec[1])
      assert.is_not_nil(spec.default, spec[1])
    end
    assert.are.equal(100, ds.params({ power_w = "100" }).power_w)
    assert.is_false(ds.params({ l2_scaling = "false" }).l2_scaling)
    assert.has_error(function() ds.params { power = 1 } end)
    assert.matches("unknown parameter 'power' %(did you mean 'power_w'%?%) %(one of: area_mm2, power_w,",
      select(2, pcall(ds.params, { power = 1 })))
    -- gpush.config's coercion and wording, with the parameter's unit
    assert.matches("parameter 'power_w': expected a number from 0.01 to 100000 W, got 'lots'",
      select(2, pcall(ds.params, { power_w = "lots" })), 1, true)
    assert.matches("parameter 'gpu_threads': expected an integer from 1 to 65536 threads, got 2.5",
      select(2, pcall(ds.params, { gpu_threads = 2.5 })), 1, true)
    assert.matches("parameter 'l2_scaling': expected true or false, got 'maybe'",
      select(2, pcall(ds.params, { l2_scaling = "maybe" })), 1, true)
    assert.matches("q_max %(5%) must be above q_min %(6%)", select(2, pcall(ds.params, { q_max = 5 })))
    -- the frontier's clock grows with its score
    assert.matches("clock_min_ghz (5 GHz) must not be above clock_max_ghz (3.2 GHz)",
      select(2, pcall(ds.params, { clock_min_ghz = "5" })), 1, true)
    -- the L2 study's reference share is not a projection input: it would change nothing
    assert.matches("unknown parameter 'l2_share'", select(2, pcall(ds.params, { l2_share = 0.9 })), 1, true)
    assert.matches("baseline_core 'M3' is not a named S-core", select(2, pcall(ds.params, { baseline_core = "M3" })),
      1, true)
    -- declared with gpush.schema's helper, in a group of their own
    assert.are.equal("darksilicon", require("gpush.schema").group("darksilicon").name)
    for _, spec in ipairs(ds.PARAMS) do
      assert.are.equal(spec[1], spec.name)
    end
  end)

  it("has the 45 nm frontiers and the scaling factors", function()
    assert.is_near(0.2 + 0.09 + 3.859 - 0.0301, ds.power_frontier(10), 1e-12)
    assert.is_near(1.52 + 0.265 + 7.4393, ds.area_frontier(10), 1e-12)
    local f = ds.factors("itrs", 8)
    assert.are.same({ 3.85, 0.12, 0.03125 }, { f.freq, f.power, f.area })
    f = ds.factors("conservative", 22)
    assert.are.same({ 1.19, 0.52, 0.25 }, { f.freq, f.power, f.area })
    for _, scaling in ipairs(ds.SCALINGS) do
      for _, node in ipairs(ds.NODES) do
        -- power = capacitance x Vdd^2 x frequency, within 0.015 (darksilicon.md says 0.013; ITRS 22 nm is 0.0142 off)
        local row = ds.factors(scaling, node)
        assert.is_near(row.power, row.cap * row.vdd ^ 2 * row.freq, 0.015)
      end
    end
    assert.has_error(function() ds.factors("moore", 8) end,
      "dark_silicon: unknown scaling 'moore' (itrs or conservative)")
    assert.has_error(function() ds.factors("itrs", 7) end,
      "dark_silicon: no itrs scaling factors for 7 nm (nodes: 45, 32, 22, 16, 11, 8)")
  end)

  it("lists the frontier points and the Chapter 3 named cores", function()
    local cores = ds.cores(ds.params(), 3)
    assert.are.equal(31 + 4, #cores) -- nPoints = 30; S2, S3, S4, M1
    assert.are.same({ 6, 1.66 }, { cores[1].q, cores[1].clock_ghz })
    assert.are.same({ 36.5, 3.2 }, { cores[31].q, cores[31].clock_ghz })
    assert.is_near(ds.area_frontier(6), cores[1].area, 1e-12)
    local ids = {}
    for i = 32, 35 do
      ids[#ids + 1] = cores[i].id
    end
    assert.are.same({ "S2", "S3", "S4", "M1" }, ids)
  end)

  it("reads benchmark inputs from CSV and names the file and line of a bad one", function()
    local header = "name,f,r_ls,alpha_l1,beta_l1,alpha_l2,beta_l2\n"
    local good = helper.write_temp("# my suite\n" .. header .. "k1,0.9,0.3,1.5,100,2,8000\n\nk2,0.99,0.1,2,500,1.6,9000\n")
    local list = assert(ds.load_benchmarks(good))
    assert.are.equal(2, #list)
    assert.are.same({ "k2", 0.99, 0.1, 500 }, { list[2].name, list[2].f, list[2].r_ls, list[2].beta_l1 })
    local function problem(text)
      local path = helper.write_temp(text)
      local ok, err = ds.load_benchmarks(path)
      assert.is_nil(ok)
      return (err:gsub("^" .. path:gsub("%p", "%%%0"), "FILE"))
    end
    assert.are.equal("FILE:1: expected the header 'name,f,r_ls,alpha_l1,beta_l1,alpha_l2,beta_l2'",
      problem("name,f\nk,1\n"))
    assert.are.equal("FILE:3: f must be a number in [0, 1] (a parallel fraction), got '1.5'",
      problem(header .. "a,0.9,0.3,1.5,100,2,8\nb,1.5,0.3,1.5,100,2,8\n"))
    assert.are.equal("FILE:2: beta_l2 must be a number in [1e-12, 1e+15] (a positive number of bytes), got 'x'",
      problem(header .. "a,0.9,0.3,1.5,100,2,x\n"))
    -- alpha below 1 inverts the miss model: the rate would grow with the cache
    assert.are.equal("FILE:2: alpha_l1 must be a number in [1, 100] (at least 1, or the miss rate would grow with "
      .. "the cache), got '0.5'", problem(header .. "a,0.9,0.3,0.5,100,2,8\n"))
    assert.are.equal("FILE:4: benchmark 'a' is already on line 2",
      problem(header .. "a,0.9,0.3,1.5,100,2,8\nb,0.9,0.3,1.5,100,2,8\na,0.5,0.3,1.5,100,2,8\n"))
    -- Lua callers are checked too
    local twice = { ds.benchmarks()[1], ds.benchmarks()[1] }
    assert.has_error(function() ds.project { benchmarks = twice, nodes = { 45 } } end,
      "dark_silicon: benchmark 'blackscholes' is listed twice (1 and 2)")
    assert.are.equal("FILE:2: expected 7 comma-separated fields, got 6", problem(header .. "a,0.9,0.3,1.5,100,2\n"))
    assert.are.equal("FILE: no benchmark rows after the header", problem(header))
    assert.matches("FILE: empty file", problem(""))
    assert.matches("cannot open", select(2, ds.load_benchmarks("/nonexistent/x.csv")))
  end)
end)

describe("gpush.models.mech.dark_silicon: the model", function()
  it("computes the baseline's P_1 and P_inf by hand (blackscholes, four Nehalems at 45 nm)", function()
    local p = ds.params()
    local b = ds.benchmarks()[1]
    local p1, pinf = ds.baseline(p, b)
    -- the Nehalem is the frontier's top point: CPI_exe = l = 1 at 3.2 GHz; t_mem = 133.125 ns = 426 cycles
    local m1 = (65536 / 100) ^ -0.5
    local function t_of(threads)
      local m2 = (8 * 1048576 / (threads * 8025)) ^ -1
      return (1 - m1) * 3 + m1 * (1 - m2) * 20 + m1 * m2 * 426
    end
    assert.is_near(3.2e9 / (1 + t_of(1) * 0.325), p1, 1e-3)
    assert.is_near(4 * 3.2e9 / (1 + t_of(4) * 0.325), pinf, 1e-2)
  end)

  it("gives each design the most light cores its budgets allow and 1 - N a / A dark, by hand", function()
    -- [28]'s rule (UCSBarchlab/Charm dark_silicon_symmetric.charm lines 60 and 67): a frontier core of
    -- q = 20 at 8 nm, ITRS: A = 0.0152 x 400 + 0.0265 x 20 + 7.4393 = 14.0493 mm^2 x 0.03125 = 0.43904,
    -- P = 0.0002 x 8000 + 0.0009 x 400 + 0.3859 x 20 - 0.0301 = 9.6479 W x 0.12 = 1.15775:
    -- N = min(floor(111 / 0.43904), floor(125 / 1.15775)) = min(252, 107) = 107, dark = 1 - 107 x 0.43904 / 111
    local a, pw = ds.area_frontier(20) * 0.03125, ds.power_frontier(20) * 0.12
    assert.is_near(14.0493 * 0.03125, a, 1e-9)
    assert.is_near(9.6479 * 0.12, pw, 1e-9)
    local budget = { area = 111, power = 125 }
    local n, n_area, n_power = topology.max_cores("symmetric", { area = a, power = pw }, nil, budget)
    assert.are.same({ 107, 252, 107 }, { n, n_area, n_power })
    assert.is_near(1 - 107 * a / 111, topology.dark_fraction("symmetric", { area = a, power = pw }, nil, budget), 1e-12)
    -- area-limited: only the rounding remainder is unpowered (Charm's rule counts it)
    assert.is_near(1 - 3 * 28.7 / 111, topology.dark_fraction("symmetric", { area = 28.7, power = 30 }, nil, budget),
      1e-12)
    -- the search takes that count for every design: one benchmark at 8 nm
    local p = ds.params { frontier_points = 5 }
    local b = ds.benchmarks()[9]
    local cores, prepared = ds.prepare(p, { b }, 3)
    local node = ds.node(p, "itrs", 8)
    local _, by = ds.search(p, node, b, cores, prepared[1].cpis, prepared[1].base_p1, prepared[1].base_pinf)
    for key, d in pairs(by) do
      local light
      for _, c in ipairs(cores) do
        if c.id == d.light then
          light = ds.scaled(c, node)
        end
      end
      local heavy
      for _, c in ipairs(cores) do
        if c.id == d.heavy then
          heavy = ds.scaled(c, node)
        end
      end
      assert.are.equal(topology.max_cores(d.topology, light, heavy, node.budget), d.n, key)
    end
  end)

  it("reads a published dark fraction back to the frontier core it implies, by hand", function()
    local p = ds.params()
    -- q = 19 at 22 nm, ITRS: A = 0.0152 x 361 + 0.0265 x 19 + 7.4393 = 13.4300, P = 0.0002 x 6859 + 0.0009 x 361
    -- + 0.3859 x 19 - 0.0301 = 8.9987; 1 - (125 / (8.9987 x 0.54)) / (111 / (13.4300 x 0.25)) = 0.2219
    assert.is_near(1 - (125 / (8.9987 * 0.54)) / (111 / (13.43 * 0.25)), ds.full_chip_dark(p, "itrs", 22, 19), 1e-4)
    assert.is_near(0.2219, ds.full_chip_dark(p, "itrs", 22, 19), 1e-4)
    -- an Atom-class core never darkens a 22 nm chip: 125 / (2.3602 x 0.54) = 98 powered > 111 / (8.1462 x 0.25) = 54.5
    assert.are.equal(0, ds.full_chip_dark(p, "itrs", 22, 6))
    local q = ds.core_for_dark(p, "itrs", 22, 0.21)
    assert.is_near(0.21, ds.full_chip_dark(p, "itrs", 22, q), 1e-9)
    assert.is_true(q > 18 and q < 19)
    local q8 = ds.core_for_dark(p, "itrs", 8, 0.5)
    assert.is_true(q8 > 14 and q8 < 15.5)
    local none, d_lo, d_hi = ds.core_for_dark(p, "itrs", 22, 0.9)
    assert.is_nil(none)
    assert.are.equal(0, d_lo)
    assert.is_near(0.4019, d_hi, 1e-4)
  end)

  -- An independent enumeration of every design on a coarse frontier: for each
  -- organisation, topology, light core and heavy core, at the count the
  -- budgets allow, Table 2.3 and Eq. 2.1 straight from topology and the core
  -- model.
  local function brute_force(p, node, b, cores, cpis, base_p1, base_pinf)
    local best = {}
    local function core_perf(c, threads, total)
      return ds.core_at(node, b, c, cpis[c.id], threads, total)
    end
    local function scaled(c)
      return { area = c.area * node.area, power = c.power * node.power }
    end
    for _, org in ipairs { "cpu", "gpu" } do
      local threads = org == "cpu" and p.cpu_threads or p.gpu_threads
      for _, l in ipairs(cores) do
        if l.kind == "frontier" or l.core == (org == "cpu" and "S" or "M") then
          for _, name in ipairs(topology.NAMES) do
            local heavies = { false }
            if name ~= "symmetric" then
              heavies = {}
              for _, h in ipairs(cores) do
                if (h.kind == "frontier" or h.core == "S") and (not l.q or h.q >= l.q) then
                  heavies[#heavies + 1] = h
                end
              end
            end
            for _, h in ipairs(heavies) do
              -- one design per core pair: the most light cores the budgets allow ([28]'s rule)
              local n = topology.max_cores(name, scaled(l), h and scaled(h), node.budget)
              do
                if n >= 1 and topology.fits(name, n, scaled(l), h and scaled(h), node.budget) then
                  local extra = name == "asymmetric" and 1 or 0
                  local t = l.threads or threads
                  local pc, pb = core_perf(l, t, n * t + extra)
                  local pc1, pb1 = core_perf(l, 1, 1)
                  local c = { n = n, light = pc, light_serial = pc1, bandwidth_parallel = pb, bandwidth_serial = pb1 }
                  if h then
                    local ph1, phb = core_perf(h, 1, 1)
                    c.heavy = math.min(ph1, phb)
                    c.heavy_parallel = core_perf(h, 1, n * t + 1)
                  end
                  local p1, pinf = topology.performance(name, c)
                  local s = topology.speedup(b.f, p1, pinf, base_p1, base_pinf)
                  local key = org .. "/" .. name
                  if not best[key] or s > best[key] then
                    best[key] = s
                  end
                end
              end
            end
          end
        end
      end
    end
    return best
  end

  it("finds what an independent enumeration of every design finds", function()
    local p = ds.params { frontier_points = 5 }
    local benchmarks = ds.benchmarks()
    local cases = { { benchmarks[3], "itrs", 22 }, { benchmarks[2], "conservative", 8 }, { benchmarks[12], "itrs", 45 } }
    for _, case in ipairs(cases) do
      local b, scaling, node_nm = case[1], case[2], case[3]
      local cores, prepared = ds.prepare(p, { b }, 3)
      local pr = prepared[1]
      local node = ds.node(p, scaling, node_nm)
      local overall, by = ds.search(p, node, b, cores, pr.cpis, pr.base_p1, pr.base_pinf)
      local expected = brute_force(p, node, b, cores, pr.cpis, pr.base_p1, pr.base_pinf)
      local top = 0
      for key, s in pairs(expected) do
        assert.is_not_nil(by[key], key)
        assert.is_near(s, by[key].speedup, 1e-9 * s)
        top = math.max(top, s)
      end
      for key in pairs(by) do
        assert.is_not_nil(expected[key], key)
      end
      assert.is_near(top, overall.speedup, 1e-9 * top)
    end
  end)

  it("never gets slower with more memory bandwidth; never less dark with less power", function()
    local benchmarks = ds.benchmarks()
    local subset = { benchmarks[3], benchmarks[9], benchmarks[12] }
    local function run(params)
      return ds.project { params = params, scalings = { "itrs" }, nodes = { 22, 8 }, benchmarks = subset }
    end
    local previous
    for _, bw in ipairs { 50, 100, 200, 400 } do
      local list = {}
      for _, node in ipairs(run { bandwidth_gbs = bw }.nodes) do
        for _, row in ipairs(node.benchmarks) do
          list[#list + 1] = row.best.speedup
          assert.is_true(row.best.dark_fraction >= 0 and row.best.dark_fraction <= 1)
        end
      end
      if previous then
        for i = 1, #list do
          assert.is_true(list[i] >= previous[i] * (1 - 1e-12), ("bandwidth %g: %g < %g"):format(bw, list[i],
            previous[i]))
        end
      end
      previous = list
    end
    -- with the budgets' count, more power gives a design more light cores sharing the L2, so a
    -- bandwidth-bound benchmark can get slower (docs/darksilicon.md); each design's dark fraction
    -- never falls as the power budget shrinks
    local light = { area = 0.5, power = 1.2 }
    local heavy = { area = 1.0, power = 3.6 }
    for _, name in ipairs(topology.NAMES) do
      local last = -1
      for _, power in ipairs { 400, 125, 60, 20, 5 } do
        local d = topology.dark_fraction(name, light, heavy, { area = 111, power = power })
        assert.is_true(d >= last - 1e-12, name .. " " .. power)
        last = d
      end
    end
  end)

  it("pins gpush's own projection with the documented assumptions (docs/darksilicon.md)", function()
    local r = ds.project {}
    local at = {}
    for _, node in ipairs(r.nodes) do
      at[node.scaling .. node.node_nm] = node
      assert.is_true(node.dark_fraction >= 0 and node.dark_fraction <= 1)
      assert.is_true(node.dark_tied[1] <= node.dark_fraction + 1e-12 and node.dark_fraction <= node.dark_tied[2] + 1e-12)
      assert.are.equal(12, #node.benchmarks)
    end
    -- published: 7.9x (ITRS) and 3.7x (conservative) at 8 nm; 21 % dark at 22 nm, > 50 % at 8 nm (ITRS);
    -- with each design at the budgets' count (the free count gave 7.3019, 4.8622, 0.0448, 0.3735)
    assert.is_near(6.6408, at.itrs8.speedup, 0.0001)
    assert.is_near(4.6950, at.conservative8.speedup, 0.0001)
    assert.is_near(0.0480, at.itrs22.dark_fraction, 0.0001)
    assert.is_near(0.3196, at.itrs8.dark_fraction, 0.0001)
    -- the designs as fast as the best span 32-66 % dark at 8 nm (the bandwidth wall ties them)
    assert.is_near(0.3168, at.itrs8.dark_tied[1], 0.0001)
    assert.is_near(0.6573, at.itrs8.dark_tied[2], 0.0001)
    assert.are.same({ 123, "asymmetric", "cpu" }, { at.itrs8.cores, at.itrs8.topology, at.itrs8.organization })
    assert.are.same({ 231, "asymmetric", "cpu" }, { at.conservative8.cores, at.conservative8.topology,
      at.conservative8.organization })
    assert.is_near(1.0209, at.itrs8.by_topology.dynamic / at.itrs8.by_topology.symmetric, 0.0001)
    assert.is_near(1.2099, at.conservative8.by_topology.dynamic / at.conservative8.by_topology.symmetric, 0.0001)
    -- the 45 nm design space, whose budgets are the baseline's, lands near the baseline
    assert.is_near(1.0612, at.itrs45.speedup, 0.0001)
    -- both scalings share the 45 nm chip; speedup grows node by node
    assert.are.equal(at.itrs45.speedup, at.conservative45.speedup)
    for _, scaling in ipairs(ds.SCALINGS) do
      for i = 2, #ds.NODES do
        assert.is_true(at[scaling .. ds.NODES[i]].speedup > at[scaling .. ds.NODES[i - 1]].speedup)
      end
    end
    -- the calibration held no frontier or Chapter 3 core at a floor
    assert.are.same({}, r.notes)
  end)

  it("prints a sensitivity band over the unknown inputs of [28]", function()
    local b = ds.benchmarks()
    local r = ds.project_band { benchmarks = { b[1], b[3] }, scalings = { "itrs" }, nodes = { 8 } }
    local node = r.nodes[1]
    local names = {}
    for _, run in ipairs(node.band.runs) do
      names[#names + 1] = ("%s=%g"):format(run.name, run.value)
      assert.is_true(node.band.speedup[1] <= run.speedup + 1e-12 and run.speedup <= node.band.speedup[2] + 1e-12)
      assert.is_true(node.band.dark_fraction[1] <= run.dark_fraction + 1e-12)
      -- each run is the projection with that one input changed
      local alone = ds.project { params = { [run.name] = run.value }, benchmarks = { b[1], b[3] },
        scalings = { "itrs" }, nodes = { 8 } }
      assert.are.equal(alone.nodes[1].speedup, run.speedup)
    end
    -- the defaults sit at one end of each range, so one run per unknown
    assert.are.same({ "bandwidth_gbs=200", "l2_mb=1", "bytes_per_access=128", "gpu_threads=128" }, names)
    assert.is_true(node.band.speedup[1] <= node.speedup and node.speedup <= node.band.speedup[2])
  end)
end)

describe("gpush.models.mech.dark_silicon: the Chapter 3 design studies", function()
  local subset = function()
    local b = ds.benchmarks()
    return { b[1], b[3] }
  end

  it("runs the L2, SMT and bandwidth studies relative to their defaults", function()
    local l2 = ds.l2_study { benchmarks = subset(), shares = { 0, 0.3, 0.6 } }
    local bw = ds.bandwidth_study { benchmarks = subset() }
    local smt = ds.smt_study { benchmarks = subset(), threads = { 1, 2, 8 } }
    for _, r in ipairs { l2, bw, smt } do
      for _, row in ipairs(r.rows) do
        assert.is_true(row.speedup > 0)
      end
    end
    for _, row in ipairs(l2.rows) do
      if row.value == 0.3 then
        assert.are.equal(1, row.ratio)
      end
    end
    local last = {}
    for _, row in ipairs(bw.rows) do -- more bandwidth never slower
      assert.is_true(row.ratio >= (last[row.benchmark] or 1) - 1e-12)
      last[row.benchmark] = row.ratio
    end
    for _, row in ipairs(smt.rows) do
      if row.value == 1 then
        assert.are.equal(1, row.ratio)
      end
    end
  end)
end)
