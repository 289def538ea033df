-- The dark-silicon projections of Blem's Chapters 4-5 (gpush.models.mech.variant):
-- Fig. 4.16's counts under Chapter 3's budgets, every named core in the
-- upper-bound model, the custom core models bounded by the chip's bandwidth,
-- the +-20 % input noise, and the thesis's statements of L1414-1448.
local ds = require "gpush.models.mech.dark_silicon"
local variant = require "gpush.models.mech.variant"
local ub = require "gpush.models.mech.upper_bound"

local function subset()
  local b = ds.benchmarks()
  return { b[1], b[3] }
end

describe("gpush.models.mech.variant: cores and budgets", function()
  it("counts the most named cores per node by hand under Chapter 3's budgets (Fig. 4.16)", function()
    local by = {}
    for _, row in ipairs(variant.core_counts()) do
      by[row.scaling .. row.node_nm .. row.core] = row
    end
    -- A8 at 8 nm: 111 / (7.5 / 32) = 473.6 by area; 125 / (0.8 x 0.12) = 1302 (ITRS),
    -- 125 / (0.8 x 0.22) = 710 (conservative) by power: never power-limited (L1414)
    assert.are.same({ 473, "area" }, { by.itrs8S1.n, by.itrs8S1.limit })
    assert.are.same({ 473, "area" }, { by.conservative8S1.n, by.conservative8S1.limit })
    -- Xeon at 8 nm: 125 / (16.8 x 0.12) = 62.0 (ITRS), 125 / (16.8 x 0.22) = 33.8 (conservative);
    -- the thesis prints 29 and 16
    assert.are.same({ 62, "power" }, { by.itrs8S3.n, by.itrs8S3.limit })
    assert.are.same({ 33, "power" }, { by.conservative8S3.n, by.conservative8S3.limit })
    -- 45 nm: every chip area-limited (L1414), e.g. 111 / 29.1 = 3 Sandybridges at 3 x 38 = 114 W
    for _, id in ipairs(variant.CORES) do
      assert.are.equal("area", by["itrs45" .. id].limit, id)
    end
    assert.are.equal(3, by["itrs45S4+"].n)
    -- Kepler at 8 nm, ITRS: min(111 / (54 x 0.03125), 125 / (35.7 x 0.12)) = min(65.8, 29.2)
    assert.are.same({ 29, "power" }, { by.itrs8M3.n, by.itrs8M3.limit })
  end)

  it("back-solves the budget Fig. 4.16's printed counts need, as a check", function()
    -- 29 <= P / (16.8 x 0.12) < 30 and 16 <= P / (16.8 x 0.22) < 17: P in [59.136, 60.48)
    local lo, hi = variant.back_solve_power()
    assert.is_near(16 * 16.8 * 0.22, lo, 1e-9)
    assert.is_near(30 * 16.8 * 0.12, hi, 1e-9)
    -- no single budget also keeps the 480 A8s unlimited by power with conservative scaling
    assert.is_nil(variant.back_solve_power { { scaling = "conservative", node_nm = 8, core = "S3", n = 16 },
      { scaling = "conservative", node_nm = 8, core = "S1", n = 480 } })
    assert.has_error(function() variant.back_solve_power { { scaling = "itrs", node_nm = 8, core = "S9", n = 1 } } end,
      "variant.back_solve_power: unknown core 'S9'")
  end)

  it("gives the M-cores the upper-bound model's figures from their lanes, by hand", function()
    local m3 = ds.mcore_figures("M3")
    assert.are.same({ 192, 0.98, 2048, 0 }, { m3.lanes, m3.clock_ghz, m3.threads, m3.l1_bytes })
    local m2 = ds.mcore_figures("M2")
    assert.are.same({ 32, 1.401, 1536, 16384 }, { m2.lanes, m2.clock_ghz, m2.threads, m2.l1_bytes })
    assert.are.same({ 8, 1.34, 1024, 0 }, { ds.mcore_figures("M1").lanes, ds.mcore_figures("M1").clock_ghz,
      ds.mcore_figures("M1").threads, ds.mcore_figures("M1").l1_bytes })
    -- P_C of a Kepler SM at 45 nm on blackscholes: 192 lanes x eta(2048 / 192 threads) x 0.98 GHz / 1;
    -- no L1 for global loads, the 8 MB L2 shared by 2048 threads
    local p = ds.params()
    local b = ds.benchmarks()[1]
    local node = ds.node(p, "itrs", 45)
    local core = ds.cores(p, nil, { "M3" })[1]
    local pc, pb = ds.core_at(node, b, core, nil, 2048, 2048)
    local m2r = (8 * 1048576 / (2048 * 8025)) ^ -1
    local t = m2r < 1 and (20 * (1 - m2r) + 426 / 3.2 * 0.98 * m2r) or (426 / 3.2 * 0.98)
    local eta = math.min(1, (2048 / 192) / (1 + t * 0.325 / 1))
    assert.is_near(192 * eta * 0.98e9, pc, 1e-3 * pc)
    assert.is_near(21e9 / (64 * 0.325 * 1 * math.min(1, m2r)), pb, 1e-6 * pb)
    -- serial: one thread on one lane
    local pc1 = ds.core_at(node, b, core, nil, 1, 1)
    local m2s = math.min(1, (8 * 1048576 / 8025) ^ -1)
    local t1 = 20 * (1 - m2s) + 426 / 3.2 * 0.98 * m2s
    assert.is_near(ub.performance(1, 0.98, 1, 0.325, t1), pc1, 1e-9 * pc1)
  end)
end)

describe("gpush.models.mech.variant: the projection", function()
  it("perturbs each input term within +-20 % with a seeded, reproducible draw", function()
    local b = ds.benchmarks()[5]
    local a1 = variant.perturb(b, 0.2, variant.random(7), { f = true }, { r_ls = { min = 0, max = 1 } })
    local a2 = variant.perturb(b, 0.2, variant.random(7), { f = true }, { r_ls = { min = 0, max = 1 } })
    local other = variant.perturb(b, 0.2, variant.random(8), { f = true }, { r_ls = { min = 0, max = 1 } })
    assert.are.same(a1, a2)
    assert.are_not.same(a1, other)
    assert.are.equal(b.f, a1.f)
    assert.are.equal(b.name, a1.name)
    for _, k in ipairs { "r_ls", "alpha_l1", "beta_l1", "alpha_l2", "beta_l2" } do
      assert.is_true(a1[k] >= 0.8 * b[k] and a1[k] <= 1.2 * b[k], k)
      assert.are_not.equal(b[k], a1[k])
    end
    -- nested records (a workload's S-core and M-core inputs) are perturbed too, counts kept whole
    local w = { name = "k", f = 0.99, s = { N_I = 1000, ILP = 2.5 }, m = { warps = 64, N_I = 40, MLP = 1 } }
    local bounds = { warps = { min = 1, whole = true }, MLP = { min = 1 } }
    local pw = variant.perturb(w, 0.2, variant.random(3), { f = true }, bounds)
    assert.are.same(pw, variant.perturb(w, 0.2, variant.random(3), { f = true }, bounds))
    assert.are.equal(0.99, pw.f)
    assert.are.equal(math.floor(pw.m.warps), pw.m.warps)
    assert.is_true(pw.m.MLP >= 1)
    local low = 0 -- MLP = 1 drawn below 1 is held at its floor in some seed
    for seed = 1, 20 do
      low = low + (variant.perturb(w, 0.2, variant.random(seed), { f = true }, bounds).m.MLP == 1 and 1 or 0)
    end
    assert.is_true(low > 0)
    for _, rec in ipairs { "s", "m" } do
      for k, v in pairs(w[rec]) do
        assert.is_true(pw[rec][k] >= 0.8 * v - 0.5 and pw[rec][k] <= 1.2 * v + 0.5, rec .. "." .. k)
      end
    end
    assert.are.equal(1000, w.s.N_I) -- the input is left alone
    local draw, lo, hi = variant.random(1), 1, 0
    for _ = 1, 10000 do
      local u = draw()
      lo, hi = math.min(lo, u), math.max(hi, u)
    end
    assert.is_true(lo >= 0 and lo < 0.01 and hi < 1 and hi > 0.99)
  end)


  it("runs the variant: the most named cores per node, f = 0.99 on S-cores, with and without noise", function()
    local v = variant.run { benchmarks = subset(), scalings = { "itrs" }, nodes = { 45, 8 } }
    local counts = {}
    for _, row in ipairs(variant.core_counts { scalings = { "itrs" }, nodes = { 8 } }) do
      counts[row.core] = row.n
    end
    local seen = 0
    for _, row in ipairs(v.rows) do
      if row.node_nm == 8 then
        assert.are.equal(counts[row.core], row.n)
        seen = seen + 1
      end
    end
    assert.are.equal(2 * #variant.CORES, seen) -- every core of Table 2.4 has a figure
    assert.are.equal(4, #v.summary) -- (45, 8) x (S, M)
    local noisy1 = variant.run { benchmarks = subset(), scalings = { "itrs" }, nodes = { 8 }, noise = 0.2, seed = 4 }
    local noisy2 = variant.run { benchmarks = subset(), scalings = { "itrs" }, nodes = { 8 }, noise = 0.2, seed = 4 }
    assert.are.same(noisy1.summary[1].speedup, noisy2.summary[1].speedup)
    assert.are_not.equal(v.summary[3].speedup, noisy1.summary[1].speedup)
    -- a custom core model plugs in through perf: a made-up one, 1 instruction/ns per core, predicting
    -- the baseline (4 cores) too: S3's 62 cores at 8 nm give 1 / (0.01 / 1 + 0.99 / (62 / 4))
    local custom = variant.run { benchmarks = subset(), scalings = { "itrs" }, nodes = { 8 }, cores = { "S3", "M3" },
      perf = function(_, _, _, n) return 1e9, n * 1e9 end }
    assert.are.equal(4, #custom.rows)
    for _, row in ipairs(custom.rows) do
      if row.core == "S3" then
        assert.are.equal(62, row.n)
        assert.is_near(1 / (0.01 + 0.99 * 4 / 62), row.speedup, 1e-12)
      end
    end
    -- a core the model cannot run a workload on is left out of that workload's rows
    local partial = variant.run { benchmarks = subset(), scalings = { "itrs" }, nodes = { 8 }, cores = { "S3", "M3" },
      perf = function(core, _, w, n)
        if core.id == "M3" and w.name == "canneal" then
          return nil
        end
        return 1e9, n * 1e9
      end }
    assert.are.equal(3, #partial.rows)
    assert.has_error(function() variant.run { cores = { "M9" } } end)
  end)

  it("checks the thesis's statements of L1414-1448 against gpush's projection", function()
    local upper = variant.run {}
    local by = {}
    for _, row in ipairs(variant.claims { upper = upper }) do
      by[row.claim] = row
      assert.is_not_nil(row.lines:match("^L14"), row.claim)
      if not row.holds then
        assert.is_true(#row.why > 10, row.claim) -- a statement that does not hold says what decides it
      end
    end
    assert.is_true(by["initially (45 nm) every chip is area-constrained"].holds)
    assert.is_true(by["S1 (A8) is the only core never power-constrained"].holds)
    assert.is_false(by["every other core is power-constrained by the 18 nm (16 nm) node"].holds)
    assert.is_false(by["cores at 8 nm, itrs: 29 S3 to 480 S1"].holds)
    assert.are.equal("62 S3, 473 S1", by["cores at 8 nm, itrs: 29 S3 to 480 S1"].gpush)
    assert.is_true(by["the Sandybridge is 40x faster than an A8 (SPECmark)"].holds)
    assert.are.equal("17.5x", by["at 8 nm only 15x more A8 cores than Sandybridges fit (ITRS)"].gpush)
    assert.is_true(by["an A8 ten times smaller would outperform the Sandybridge chip (no bandwidth limit)"].holds)
    assert.is_true(by["M2 or M3 is always chosen among the M-cores"].holds)
  end)
end)

describe("gpush.models.mech.variant: the custom core models", function()
  local workloads = require "gpush.workloads"
  local mech = require "gpush.models.mech"
  local function workload(name)
    return assert(variant.custom_workload(assert(workloads.kernel(workloads.get(name))), name))
  end

  it("builds workloads: translated S-side inputs for both S-core kinds and each M-core's measured inputs", function()
    local w = workload("sfu_heavy")
    assert.are.equal(0.99, w.f)
    assert.is_true(w.s.N_I > 0 and w.s.ILP == 6.2)
    -- the in-order S-cores take the warp's own ILP, never above their window of 2
    assert.is_true(w.s_inorder.ILP >= 1 and w.s_inorder.ILP <= 2)
    assert.is_nil(w.s.footprint_bytes) -- only what the S-core model declares
    for _, preset in ipairs { "gt330", "gtx480", "gtx660ti" } do
      assert.is_true(w.m[preset].warps >= 1, preset)
    end
  end)

  it("predicts the baseline with the same model, and each chip by hand", function()
    local w = workload("sfu_heavy")
    local v = variant.run { benchmarks = { w }, perf = variant.custom_perf(), cores = { "S4", "S3", "M3" },
      scalings = { "itrs" }, nodes = { 45, 8 } }
    local by = {}
    for _, row in ipairs(v.rows) do
      by[row.node_nm .. row.core] = row
    end
    -- 45 nm: three Nehalems (111 / 28.7) against the baseline's four, the same model on both
    -- (sfu_heavy has no off-chip traffic, so the chip's bandwidth does not bind): S_1 = 1, S_inf = 3 / 4
    assert.are.equal(3, by["45S4"].n)
    assert.is_near(1 / (0.01 + 0.99 * 4 / 3), by["45S4"].speedup, 1e-12)
    -- 8 nm ITRS: 62 Xeons at 2.27 x 3.85 GHz; 29 Kepler SMs at 0.98 x 3.85 GHz and the chip's 21 GB/s
    local t_base = assert(assert(mech.score.core("nehalem")):predict(w.s, { effects = false })).seconds
    local xeon = assert(mech.score.core("xeon", { freq_ghz = 2.27 * 3.85 }))
    local t_xeon = assert(xeon:predict(w.s, { effects = false })).seconds
    assert.are.equal(62, by["8S3"].n)
    assert.is_near(1 / (0.01 * t_xeon / t_base + 0.99 * 4 * t_xeon / (62 * t_base)), by["8S3"].speedup, 1e-9)
    local kepler = assert(mech.mcore.core("gtx660ti", { ("clock.core_mhz=%.9g"):format(980 * 3.85), "sm.count=29",
      "dram.bandwidth_gbs=21" }))
    local t_kepler = assert(kepler:predict(w.m.gtx660ti, { effects = false })).seconds
    assert.are.equal(29, by["8M3"].n)
    assert.is_near(1 / (0.01 * t_kepler / t_base + 0.99 * 4 * t_kepler / t_base), by["8M3"].speedup, 1e-9)
  end)

  it("bounds an S-core chip by the chip's bandwidth: a memory-bound kernel stops scaling", function()
    local w = workload("stream_triad")
    local perf = variant.custom_perf()
    local p = ds.params()
    local node = ds.node(p, "itrs", 8)
    local a8 = ds.cores(p, nil, { "S1" })[1]
    local _, p10 = perf(a8, node, w, 10)
    local _, p400 = perf(a8, node, w, 400)
    -- P_B = 21 GB/s / (N_mL2 x 64 B): the A8 has no L3
    local pb = 21e9 / (w.s_inorder.N_mL2 * 64)
    assert.is_near(pb, p400, 1e-9 * pb)
    assert.is_true(p10 <= pb)
  end)

  it("adds +-20 % noise to every input term, reproducibly, inside the declared ranges", function()
    local list = { workload("sfu_heavy"), workload("divergent_loop") }
    local run = function(seed)
      return variant.run { benchmarks = list, perf = variant.custom_perf(), cores = { "S3", "M3" }, scalings = { "itrs" },
        nodes = { 8 }, noise = 0.2, seed = seed, bounds = variant.custom_bounds() }
    end
    local a, b, c = run(2), run(2), run(3)
    assert.are.same(a.summary, b.summary)
    assert.are_not.same(a.summary, c.summary)
    for _, w in ipairs(a.workloads) do
      assert.are.equal(0.99, w.f)
      assert.is_true(w.s.ILP >= 1)
      for _, inputs in pairs(w.m) do
        assert.is_true(inputs.MLP >= 1 and inputs.avg_trans_warp >= 1)
        assert.are.equal(math.floor(inputs.warps), inputs.warps)
      end
    end
  end)
end)
