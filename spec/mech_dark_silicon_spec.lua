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
    assert.are.equal(200, p.bandwidth_gbs)
    for _, spec in ipairs(ds.PARAMS) do
      assert.is_string(spec.unit, spec[1])
      assert.is_true(#spec.desc > 10 and #spec.source > 5, spec[1])
      assert.is_not_nil(spec.default, spec[1])
    end
    assert.are.equal(100, ds.params({ power_w = "100" }).power_w)
    assert.is_false(ds.params({ l2_scaling = "false" }).l2_scaling)
    assert.has_error(function() ds.params { power = 1 } end)
    assert.matches("unknown parameter 'power' %(one of: area_mm2, power_w,", select(2, pcall(ds.params, { power = 1 })))
    assert.matches("parameter power_w must be a number in %[0.01, 100000%] W, got 'lots'",
      select(2, pcall(ds.params, { power_w = "lots" })))
    assert.matches("parameter gpu_threads must be an integer", select(2, pcall(ds.params, { gpu_threads = 2.5 })))
    assert.matches("parameter l2_scaling must be true or false, got 'maybe'",
      select(2, pcall(ds.params, { l2_scaling = "maybe" })))
    assert.matches("q_max %(5%) must be above q_min %(6%)", select(2, pcall(ds.params, { q_max = 5 })))
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
    assert.are.equal("FILE:3: f must be a number in [0, 1], got '1.5'", problem(header .. "a,0.9,0.3,1.5,100,2,8\nb,1.5,0.3,1.5,100,2,8\n"))
    assert.are.equal("FILE:2: beta_l2 must be a number in [1e-12, 1e+15], got 'x'", problem(header .. "a,0.9,0.3,1.5,100,2,x\n"))
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
    -- the Nehalem is the frontier's top point: CPI_exe = l = 1 at 3.2 GHz; t_mem = 62.5 ns = 200 cycles
    local m1 = (65536 / 100) ^ -0.5
    local function t_of(threads)
      local m2 = (8 * 1048576 / (threads * 8025)) ^ -1
      return (1 - m1) * 3 + m1 * (1 - m2) * 20 + m1 * m2 * 200
    end
    assert.is_near(3.2e9 / (1 + t_of(1) * 0.325), p1, 1e-3)
    assert.is_near(4 * 3.2e9 / (1 + t_of(4) * 0.325), pinf, 1e-2)
  end)

  it("counts the most named cores per node by hand (Fig. 4.16)", function()
    local by = {}
    for _, row in ipairs(ds.core_counts()) do
      by[row.scaling .. row.node_nm .. row.core] = row
    end
    -- A8 at 8 nm: 111 / (7.5 / 32) = 473.6 by area; 125 / (0.8 x 0.12) = 1302 by power
    assert.are.same({ 473, "area" }, { by.itrs8S1.n, by.itrs8S1.limit })
    assert.are.same({ 473, "area" }, { by.conservative8S1.n, by.conservative8S1.limit })
    -- Xeon at 8 nm: 125 / (16.8 x 0.12) = 62.0 (ITRS), 125 / (16.8 x 0.22) = 33.8 (conservative)
    assert.are.same({ 62, "power" }, { by.itrs8S3.n, by.itrs8S3.limit })
    assert.are.same({ 33, "power" }, { by.conservative8S3.n, by.conservative8S3.limit })
    -- at 45 nm every core is area-limited but the A8: 111 / 7.5 = 14.8
    assert.are.same({ 14, "area" }, { by.itrs45S1.n, by.itrs45S1.limit })
    assert.are.same({ 3, "area" }, { by.itrs45S4.n, by.itrs45S4.limit })
  end)

  -- An independent enumeration of every design on a coarse frontier: for each
  -- organisation, topology, light core, heavy core and count, Table 2.3 and
  -- Eq. 2.1 straight from topology and the core model.
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
                if (h.kind == "frontier" or h.core == "S") and h.q >= l.q then
                  heavies[#heavies + 1] = h
                end
              end
            end
            for _, h in ipairs(heavies) do
              for n = 1, 2000 do
                if not topology.fits(name, n, scaled(l), h and scaled(h), node.budget) then
                  if n > topology.max_cores(name, scaled(l), h and scaled(h), node.budget) then
                    break
                  end
                else
                  local extra = name == "asymmetric" and 1 or 0
                  local pc, pb = core_perf(l, threads, n * threads + extra)
                  local pc1, pb1 = core_perf(l, 1, 1)
                  local c = { n = n, light = pc, light_serial = pc1, bandwidth_parallel = pb, bandwidth_serial = pb1 }
                  if h then
                    local ph1, phb = core_perf(h, 1, 1)
                    c.heavy = math.min(ph1, phb)
                    c.heavy_parallel = core_perf(h, 1, n * threads + 1)
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

  it("never gets slower with more power or more memory bandwidth", function()
    local benchmarks = ds.benchmarks()
    local subset = { benchmarks[3], benchmarks[9], benchmarks[12] }
    local function speedups(params)
      local r = ds.project { params = params, scalings = { "itrs" }, nodes = { 22, 8 }, benchmarks = subset }
      local list = {}
      for _, node in ipairs(r.nodes) do
        for _, row in ipairs(node.benchmarks) do
          list[#list + 1] = row.best.speedup
          assert.is_true(row.best.dark_fraction >= 0 and row.best.dark_fraction <= 1)
        end
      end
      return list
    end
    for _, sweep in ipairs { { "power_w", { 40, 80, 125, 250 } }, { "bandwidth_gbs", { 50, 100, 200, 400 } } } do
      local previous
      for _, v in ipairs(sweep[2]) do
        local now = speedups { [sweep[1]] = v }
        if previous then
          for i = 1, #now do
            assert.is_true(now[i] >= previous[i] * (1 - 1e-12), ("%s = %g: %g < %g"):format(sweep[1], v, now[i],
              previous[i]))
          end
        end
        previous = now
      end
    end
  end)

  it("pins gpush's own projection with the documented assumptions (docs/darksilicon.md)", function()
    local r = ds.project {}
    local at = {}
    for _, node in ipairs(r.nodes) do
      at[node.scaling .. node.node_nm] = node
      assert.is_true(node.dark_fraction >= 0 and node.dark_fraction <= 1)
      assert.are.equal(12, #node.benchmarks)
    end
    -- published: 7.9x (ITRS) and 3.7x (conservative) at 8 nm; 21 % dark at 22 nm, > 50 % at 8 nm (ITRS)
    assert.is_near(31.558, at.itrs8.speedup, 0.001)
    assert.is_near(8.639, at.conservative8.speedup, 0.001)
    assert.is_near(0.0560, at.itrs22.dark_fraction, 0.0001)
    assert.is_near(0.1692, at.itrs8.dark_fraction, 0.0001)
    assert.are.same({ 374, "dynamic", "cpu" }, { at.itrs8.cores, at.itrs8.topology, at.itrs8.organization })
    assert.is_near(1.7531, at.itrs45.speedup, 0.0001)
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
end)

describe("gpush.models.mech.dark_silicon: studies and the Chapters 4-5 variant", function()
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

  it("perturbs each input term within +-20 % with a seeded, reproducible draw", function()
    local b = ds.benchmarks()[5]
    local a1 = ds.perturb(b, 0.2, ds.random(7), { f = true }, { r_ls = true })
    local a2 = ds.perturb(b, 0.2, ds.random(7), { f = true }, { r_ls = true })
    local other = ds.perturb(b, 0.2, ds.random(8), { f = true }, { r_ls = true })
    assert.are.same(a1, a2)
    assert.are_not.same(a1, other)
    assert.are.equal(b.f, a1.f)
    assert.are.equal(b.name, a1.name)
    for _, k in ipairs { "r_ls", "alpha_l1", "beta_l1", "alpha_l2", "beta_l2" } do
      assert.is_true(a1[k] >= 0.8 * b[k] and a1[k] <= 1.2 * b[k], k)
      assert.are_not.equal(b[k], a1[k])
    end
    local draw, lo, hi = ds.random(1), 1, 0
    for _ = 1, 10000 do
      local u = draw()
      lo, hi = math.min(lo, u), math.max(hi, u)
    end
    assert.is_true(lo >= 0 and lo < 0.01 and hi < 1 and hi > 0.99)
  end)

  it("runs the variant: the most named cores per node, f = 0.99 on S-cores, with and without noise", function()
    local v = ds.variant { benchmarks = subset(), scalings = { "itrs" }, nodes = { 45, 8 } }
    local counts = {}
    for _, row in ipairs(ds.core_counts { scalings = { "itrs" }, nodes = { 8 } }) do
      counts[row.core] = row.n
    end
    local seen = 0
    for _, row in ipairs(v.rows) do
      if row.node_nm == 8 then
        assert.are.equal(counts[row.core], row.n)
        seen = seen + 1
      end
    end
    assert.are.equal(2 * 5, seen)
    assert.are.equal(4, #v.summary) -- (45, 8) x (S, M)
    local noisy1 = ds.variant { benchmarks = subset(), scalings = { "itrs" }, nodes = { 8 }, noise = 0.2, seed = 4 }
    local noisy2 = ds.variant { benchmarks = subset(), scalings = { "itrs" }, nodes = { 8 }, noise = 0.2, seed = 4 }
    assert.are.same(noisy1.summary, noisy2.summary)
    assert.are_not.equal(v.summary[3].speedup, noisy1.summary[1].speedup)
    -- a custom core model plugs in through perf: a made-up one, 1 instruction/ns per core
    local custom = ds.variant { benchmarks = subset(), scalings = { "itrs" }, nodes = { 8 }, cores = { "S3", "M3" },
      perf = function(_, _, _, n) return 1e9, n * 1e9 end }
    assert.are.equal(4, #custom.rows)
    assert.has_error(function() ds.variant { cores = { "M3" } } end,
      "dark_silicon.variant: the upper-bound model needs a score for core M3; pass opts.perf")
  end)
end)
