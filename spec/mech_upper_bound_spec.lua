-- The upper-bound core model: Eq. 3.1-3.4, the miss-rate model, Algorithm 3.1.
local ub = require "gpush.models.mech.upper_bound"

describe("gpush.models.mech.upper_bound", function()
  it("computes miss rates with Table B.1's power law", function()
    -- blackscholes L1, 64 KB, one thread: (65536 / 100)^(1 - 1.5) = 1 / sqrt(655.36) = 0.0390625
    assert.is_near(0.0390625, ub.miss_rate(65536, 1, 1.5, 100), 1e-15)
    -- L2 shared by 4 threads, 2 MB, alpha 2: (2097152 / (4 x 8025))^-1
    assert.is_near(4 * 8025 / 2097152, ub.miss_rate(2097152, 4, 2.0, 8025), 1e-15)
    -- more threads per cache never miss less; never above 1; no cache misses always
    assert.is_true(ub.miss_rate(65536, 8, 1.5, 100) > ub.miss_rate(65536, 1, 1.5, 100))
    assert.are.equal(1, ub.miss_rate(65536, 1024, 1.6, 1536))
    assert.are.equal(1, ub.miss_rate(0, 1, 1.5, 100))
    assert.has_error(function() ub.miss_rate(65536, 0, 1.5, 100) end,
      "upper_bound.miss_rate: threads = 0 is outside [1, inf]")
    assert.has_error(function() ub.miss_rate(65536, 1, 1.5, 0) end, "upper_bound.miss_rate: beta must be above 0")
  end)

  it("computes Eq. 3.3's mean access time by hand", function()
    -- 0.9 x 3 + 0.1 x 0.5 x 20 + 0.1 x 0.5 x 200 = 2.7 + 1 + 10
    assert.is_near(13.7, ub.access_time { m_l1 = 0.1, m_l2 = 0.5, t_l1 = 3, t_l2 = 20, t_mem = 200 }, 1e-12)
    assert.are.equal(3, ub.access_time { m_l1 = 0, m_l2 = 1, t_l1 = 3, t_l2 = 20, t_mem = 200 })
    assert.are.equal(200, ub.access_time { m_l1 = 1, m_l2 = 1, t_l1 = 3, t_l2 = 20, t_mem = 200 })
    assert.has_error(function() ub.access_time { m_l1 = 1.5, m_l2 = 1, t_l1 = 3, t_l2 = 20, t_mem = 200 } end,
      "upper_bound.access_time: m_l1 = 1.5 is outside [0, 1]")
  end)

  it("saturates eta at 1 for many threads (Eq. 3.2)", function()
    -- t r_ls / CPI_exe = 10 x 0.3 / 1 = 3: one thread keeps the core busy 1/4 of the time
    assert.is_near(0.25, ub.utilization(1, 10, 0.3, 1), 1e-15)
    assert.is_near(0.5, ub.utilization(2, 10, 0.3, 1), 1e-15)
    assert.are.equal(1, ub.utilization(4, 10, 0.3, 1))
    assert.are.equal(1, ub.utilization(1024, 500, 0.5, 0.5))
    local previous = 0
    for t = 1, 64 do
      local eta = ub.utilization(t, 37, 0.4, 1.3)
      assert.is_true(eta >= previous and eta <= 1)
      previous = eta
    end
    assert.are.equal(1, previous)
  end)

  it("computes P_C (Eq. 3.1) and P_B (Eq. 3.4) by hand, and P_C's latency limit", function()
    -- eta = 1 / (1 + 13.7 x 0.25 / 2) = 0.36866..., P_C = eta x 3.2e9 / 2
    local p = ub.core_performance { cpi_exe = 2, clock_ghz = 3.2, threads = 1, r_ls = 0.25, m_l1 = 0.1, m_l2 = 0.5,
      t_l1 = 3, t_l2 = 20, t_mem = 200 }
    assert.is_near(3.2e9 / (2 + 13.7 * 0.25), p, 1e-3)
    -- 200 GB/s / (64 B x 0.25 x 0.1 x 0.5) = 2.5e11 instructions per second
    assert.is_near(2.5e11, ub.bandwidth_bound { bandwidth_gbs = 200, bytes = 64, r_ls = 0.25, m_l1 = 0.1, m_l2 = 0.5 },
      1)
    assert.are.equal(math.huge, ub.bandwidth_bound { bandwidth_gbs = 200, bytes = 64, r_ls = 0.25, m_l1 = 0, m_l2 = 1 })
    -- as CPI_exe -> 0, P_C -> T nu / (t r_ls) (blocking, in-order memory; L824-828)
    local limit = ub.latency_limit(1, 3.2, 13.7, 0.25)
    local near0 = ub.core_performance { cpi_exe = 1e-9, clock_ghz = 3.2, threads = 1, r_ls = 0.25, t = 13.7 }
    assert.is_near(1, near0 / limit, 1e-6)
    assert.is_true(near0 < limit)
    assert.has_error(function() ub.core_performance { cpi_exe = 0, clock_ghz = 3.2, threads = 1, r_ls = 0.25, t = 1 } end,
      "upper_bound.core_performance: cpi_exe must be above 0")
  end)

  -- A synthetic trade-off curve: cores with planted CPI_exe values and
  -- clocks; each core's score is its model performance relative to the top
  -- core's, scaled to SPECmark.  Algorithm 3.1 must get the CPIs back.
  local function synthetic_curve(threads)
    local planted = { 6.5, 4.1, 3.0, 2.2, 1.7, 1.3, 1.0 }
    local points = {}
    local function perf(point, cpi)
      return ub.core_performance { cpi_exe = cpi, clock_ghz = point.clock_ghz, threads = threads, r_ls = 0.35,
        m_l1 = 0.05, m_l2 = 0.3, t_l1 = 3, t_l2 = 20, t_mem = 62.5 * point.clock_ghz }
    end
    for k, cpi in ipairs(planted) do
      points[k] = { clock_ghz = ub.frontier_clock(k, 1, #planted, 1.66, 3.2) }
    end
    local top = points[#planted]
    local p_max = perf(top, planted[#planted])
    for k, cpi in ipairs(planted) do
      points[k].q = 40 * perf(points[k], cpi) / p_max
    end
    return points, planted, perf
  end

  it("recovers a CPI_exe planted in a synthetic trade-off curve (Algorithm 3.1)", function()
    for _, threads in ipairs { 1, 2 } do
      local points, planted, perf = synthetic_curve(threads)
      local cpis, notes = ub.calibrate(points, perf, { initial_cpi = planted[#planted] })
      assert.are.same({}, notes)
      for k, cpi in ipairs(planted) do
        assert.is_near(cpi, cpis[k], 1e-6 * cpi)
      end
    end
    -- one thread: the closed form nu / P = CPI_exe + t r_ls
    local points, planted, perf = synthetic_curve(1)
    local t = ub.access_time { m_l1 = 0.05, m_l2 = 0.3, t_l1 = 3, t_l2 = 20, t_mem = 62.5 * points[2].clock_ghz }
    assert.is_near(planted[2], points[2].clock_ghz * 1e9 / perf(points[2], planted[2]) - t * 0.35, 1e-9)
  end)

  it("says why a goal above the memory-latency limit cannot be reached, or holds a floor", function()
    local function perf(point, cpi)
      return ub.core_performance { cpi_exe = cpi, clock_ghz = point.clock_ghz, threads = 1, r_ls = 0.4, t = 50 }
    end
    -- the top core at CPI 1 runs at 3.2e9 / 21; a core at the same clock cannot run 30x faster
    local points = { { q = 40, clock_ghz = 3.2 }, { q = 1200, clock_ghz = 3.2 } }
    local cpis, err = ub.calibrate(points, perf, { top = 1, initial_cpi = 1 })
    assert.is_nil(cpis)
    assert.matches("point 2 %(q = 1200, 3.2 GHz%): no CPI_exe reaches 30 of the top point's performance", err)
    points[2].min_cpi = 0.25
    local held, notes = ub.calibrate(points, perf, { top = 1, initial_cpi = 1 })
    assert.are.same({ 1, 0.25 }, held)
    assert.are.equal(1, #notes)
    assert.matches("held at its CPI_exe floor 0.25", notes[1], 1, true)
  end)

  it("puts frequency linearly in performance between the end points", function()
    assert.are.equal(1.66, ub.frontier_clock(6, 6, 36.5, 1.66, 3.2))
    assert.are.equal(3.2, ub.frontier_clock(36.5, 6, 36.5, 1.66, 3.2))
    assert.is_near((1.66 + 3.2) / 2, ub.frontier_clock(21.25, 6, 36.5, 1.66, 3.2), 1e-12)
  end)
end)
