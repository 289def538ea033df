-- gpush.models.mech.upper_bound: Blem's upper-bound core model (thesis
-- Chapter 3, Eq. 3.1-3.4 and Algorithm 3.1) and the power-law cache
-- miss-rate model its PARSEC inputs parameterise (Appendix B, Table B.1).
--
--   local ub = require "gpush.models.mech.upper_bound"
--   local m1 = ub.miss_rate(64 * 1024, 1, 1.5, 100)              -- L1, one thread
--   local p = ub.core_performance { cpi_exe = 1, clock_ghz = 3.2, threads = 1, r_ls = 0.325,
--     m_l1 = m1, m_l2 = 0.02, t_l1 = 3, t_l2 = 20, t_mem = 200 }  -- instructions per second
--   local pb = ub.bandwidth_bound { bandwidth_gbs = 200, bytes = 64, r_ls = 0.325, m_l1 = m1, m_l2 = 0.02 }
--
-- Units: clocks in GHz, latencies in core cycles, performance in
-- instructions per second, bandwidth in GB/s (10^9 bytes per second).
local M = {}

local function need_number(fn, t, key, min, max)
  local v = t[key]
  if type(v) ~= "number" or v ~= v then
    error(("upper_bound.%s: %s must be a number, got %s"):format(fn, key, tostring(v)), 3)
  end
  if (min and v < min) or (max and v > max) then
    error(("upper_bound.%s: %s = %g is outside [%s, %s]"):format(fn, key, v, tostring(min or "-inf"),
      tostring(max or "inf")), 3)
  end
  return v
end

-- The miss rate of a cache of `capacity` bytes shared by `threads` threads
-- running a benchmark with Table B.1 constants alpha, beta (after Guz et
-- al.): m = (C / (threads x beta))^(1 - alpha), at most 1; 1 without a
-- cache.  alpha > 1 makes the rate fall as the capacity per thread grows.
-- Unchecked (inner loops); miss_rate checks its arguments.
function M.miss(capacity, threads, alpha, beta)
  if capacity <= 0 then
    return 1
  end
  return math.min(1, (capacity / (threads * beta)) ^ (1 - alpha))
end

function M.miss_rate(capacity, threads, alpha, beta)
  local args = { capacity = capacity, threads = threads, alpha = alpha, beta = beta }
  need_number("miss_rate", args, "capacity", 0)
  need_number("miss_rate", args, "threads", 1)
  need_number("miss_rate", args, "alpha", 0)
  need_number("miss_rate", args, "beta", 0)
  if beta <= 0 then
    error("upper_bound.miss_rate: beta must be above 0", 2)
  end
  return M.miss(capacity, threads, alpha, beta)
end

-- The equations in positional form, unchecked, for inner loops (the
-- dark-silicon search); the table forms below check their arguments.

-- Eq. 3.3: the mean cycles a load or store waits,
-- t = (1 - m_L1) t_L1 + m_L1 (1 - m_L2) t_L2 + m_L1 m_L2 t_mem
-- (m_L2 is the local miss rate of the accesses that reach L2).
function M.wait_cycles(m1, m2, t1, t2, tm)
  return (1 - m1) * t1 + m1 * (1 - m2) * t2 + m1 * m2 * tm
end

-- Eq. 3.2 (as DESIGN.md reads it): the utilisation of a core running
-- `threads` threads, eta = min(1, T / (1 + t r_ls / CPI_exe)).
function M.utilization(threads, t, r_ls, cpi_exe)
  return math.min(1, threads / (1 + t * r_ls / cpi_exe))
end

-- Eq. 3.1: P_C = eta x nu / CPI_exe in instructions per second.
function M.performance(cpi_exe, clock_ghz, threads, r_ls, t)
  return M.utilization(threads, t, r_ls, cpi_exe) * clock_ghz * 1e9 / cpi_exe
end

-- Eq. 3.4: P_B = BW_max / (b x r_ls x m_L1 x m_L2); infinite when nothing
-- goes off chip.
function M.bandwidth(bandwidth_gbs, bytes, r_ls, m1, m2)
  local per_inst = bytes * r_ls * m1 * m2
  if per_inst <= 0 then
    return math.huge
  end
  return bandwidth_gbs * 1e9 / per_inst
end

-- Eq. 3.3 from a table: m_l1, m_l2, t_l1, t_l2, t_mem.
function M.access_time(c)
  return M.wait_cycles(need_number("access_time", c, "m_l1", 0, 1), need_number("access_time", c, "m_l2", 0, 1),
    need_number("access_time", c, "t_l1", 0), need_number("access_time", c, "t_l2", 0),
    need_number("access_time", c, "t_mem", 0))
end

-- Eq. 3.1 with Eq. 3.2 and 3.3: one core's performance in instructions per
-- second, P_C = eta x nu / CPI_exe.  c: cpi_exe, clock_ghz, threads, r_ls and
-- either t (cycles per access) or m_l1, m_l2, t_l1, t_l2, t_mem.
function M.core_performance(c)
  local cpi = need_number("core_performance", c, "cpi_exe", 0)
  if cpi <= 0 then
    error("upper_bound.core_performance: cpi_exe must be above 0", 2)
  end
  local clock = need_number("core_performance", c, "clock_ghz", 0)
  local threads = need_number("core_performance", c, "threads", 1)
  local r_ls = need_number("core_performance", c, "r_ls", 0, 1)
  return M.performance(cpi, clock, threads, r_ls, c.t or M.access_time(c))
end

-- Eq. 3.4: the instructions per second the chip's memory bandwidth can feed,
-- P_B = BW_max / (b x r_ls x m_L1 x m_L2); infinite when nothing goes off chip.
function M.bandwidth_bound(c)
  local bw = need_number("bandwidth_bound", c, "bandwidth_gbs", 0)
  local b = need_number("bandwidth_bound", c, "bytes", 0)
  local r_ls = need_number("bandwidth_bound", c, "r_ls", 0, 1)
  local m1 = need_number("bandwidth_bound", c, "m_l1", 0, 1)
  local m2 = need_number("bandwidth_bound", c, "m_l2", 0, 1)
  return M.bandwidth(bw, b, r_ls, m1, m2)
end

-- The limit of P_C as CPI_exe goes to 0 (thesis L824-828): memory accesses
-- are blocking and in order, so a core never exceeds T nu / (t r_ls).
function M.latency_limit(threads, clock_ghz, t, r_ls)
  if t * r_ls <= 0 then
    return math.huge
  end
  return threads * clock_ghz * 1e9 / (t * r_ls)
end

-- The defaults of Algorithm 3.1's free choices (blem-spec §6 item 2; see
-- docs/darksilicon.md): the top point's CPI_exe (l), the relative threshold
-- on the performance ratio, and an iteration cap that turns a goal the
-- model cannot reach into an error instead of a hang.
M.CALIBRATION = { initial_cpi = 1, threshold = 1e-9, max_iterations = 400 }

-- Algorithm 3.1 for one point: the CPI_exe at which perf(cpi) / p_max is
-- within `threshold` (relative) of `goal`, starting from `initial_cpi`.
-- perf must fall as CPI_exe grows (Eq. 3.1-3.2 do).  "Try a smaller
-- CPI_exe" and "try a larger one" become a bracket that doubles or halves
-- until it holds the goal, then bisection.  opts.min_cpi (e.g. 1 / issue
-- width) is a floor: a goal the core cannot reach above it returns the
-- floor and "capped".  Returns cpi [, "capped"], or nil and why.
function M.solve_cpi(perf, p_max, goal, opts)
  opts = opts or M.CALIBRATION
  local threshold = opts.threshold or M.CALIBRATION.threshold
  local limit = opts.max_iterations or M.CALIBRATION.max_iterations
  local floor = opts.min_cpi
  local function ratio(cpi)
    return perf(cpi) / p_max
  end
  local cpi = opts.initial_cpi or M.CALIBRATION.initial_cpi
  if floor and cpi < floor then
    cpi = floor
  end
  local lo, hi -- lo: achieved above goal (cpi too small); hi: achieved below goal
  for _ = 1, limit do
    local achieved = ratio(cpi)
    if math.abs(achieved / goal - 1) <= threshold then
      return cpi
    end
    if achieved < goal then
      if floor and cpi <= floor then
        return floor, "capped"
      end
      hi = cpi -- try a smaller CPI_exe
    else
      lo = cpi -- try a larger CPI_exe
    end
    if lo and hi then
      cpi = (lo + hi) / 2
    elseif hi then
      cpi = cpi / 2
    else
      cpi = cpi * 2
    end
    if floor and cpi < floor then
      cpi = floor
    end
  end
  return nil, ("no CPI_exe reaches %.6g of the top point's performance within %d steps " ..
    "(the memory-latency limit T nu / (t r_ls) caps it)"):format(goal, limit)
end

-- Algorithm 3.1: per-benchmark CPI_exe for every point of a performance /
-- resource trade-off curve.  points: list of { q = score (e.g. SPECmark),
-- clock_ghz = frequency, min_cpi = optional floor } (the frequency rule is
-- the caller's: see frontier_clock); opts.top: the index of the reference
-- point (default: the highest q), whose CPI_exe is opts.initial_cpi (l).
-- perf(point, cpi) -> instructions per second with every other input
-- fixed.  Returns a list of CPI_exe values, one per point, and a list of
-- notes (points held at their floor); or nil and a message naming the
-- point.
function M.calibrate(points, perf, opts)
  opts = opts or M.CALIBRATION
  if type(points) ~= "table" or #points == 0 then
    error("upper_bound.calibrate: points must be a non-empty list of { q, clock_ghz }", 2)
  end
  local top = opts.top
  if not top then
    top = 1
    for i, p in ipairs(points) do
      if p.q > points[top].q then
        top = i
      end
    end
  end
  local initial = opts.initial_cpi or M.CALIBRATION.initial_cpi
  local p_max = perf(points[top], initial)
  local cpis, notes = {}, {}
  for k, point in ipairs(points) do
    if k == top then
      cpis[k] = initial
    else
      local point_opts = { threshold = opts.threshold, max_iterations = opts.max_iterations, initial_cpi = initial,
        min_cpi = point.min_cpi }
      local cpi, status = M.solve_cpi(function(c) return perf(point, c) end, p_max, point.q / points[top].q, point_opts)
      if not cpi then
        return nil, ("upper_bound.calibrate: point %d (q = %g, %g GHz): %s"):format(k, point.q, point.clock_ghz, status)
      end
      if status == "capped" then
        notes[#notes + 1] = ("point %d (q = %g, %g GHz) held at its CPI_exe floor %g: it reaches only %.3g of %.3g " ..
          "of the top point's performance"):format(k, point.q, point.clock_ghz, cpi, perf(point, cpi) / p_max,
          point.q / points[top].q)
      end
      cpis[k] = cpi
    end
  end
  return cpis, notes
end

-- The frequency of a core of score q on a trade-off curve whose end points
-- are (q_min, clock_min) and (q_max, clock_max): linear in performance
-- (thesis L806).  With points evenly spaced in q this is also the
-- pseudocode's nu_k = (nu_max - nu_min) / nPoints x k + nu_min.
function M.frontier_clock(q, q_min, q_max, clock_min, clock_max)
  if q_max == q_min then
    return clock_max
  end
  return clock_min + (clock_max - clock_min) * (q - q_min) / (q_max - q_min)
end

return M
