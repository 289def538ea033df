-- gpush.models.mech.topology: the multicore model of Blem's thesis Chapter 2
-- (Table 2.1 topologies, Table 2.3 serial and parallel performance, Eq. 2.1
-- speedup, area and power constraints deciding the core count) and Hill and
-- Marty's "Amdahl's Law in the Multicore Era" formulas.
--
--   local topology = require "gpush.models.mech.topology"
--   local p1, pinf = topology.performance("asymmetric", { n = 12, light = 2e9, heavy = 6e9,
--     bandwidth_serial = 40e9, bandwidth_parallel = 30e9 })
--   local s = topology.speedup(0.9, p1, pinf, base_p1, base_pinf)         -- Eq. 2.1
--   local n = topology.max_cores("dynamic", light, heavy, { area = 111, power = 125 })
--   local best = topology.hill_marty_best("symmetric", 0.975, 256)        -- 51.2
--
-- Topologies: symmetric (N light cores; the serial phase runs on one of
-- them), asymmetric (one heavy core plus N light, all powered), dynamic (the
-- heavy core runs serial phases, the N light cores parallel ones, never
-- both powered), fused (the N light cores fuse into the serial core).  The
-- organisation (CPU-like S-cores or GPU-like M-cores, Table 2.1b) only
-- changes which core performance the caller passes in.
local M = {}

M.NAMES = { "symmetric", "asymmetric", "dynamic", "fused" }
M.ORGANIZATIONS = { "cpu", "gpu" }

local known = {}
for i, name in ipairs(M.NAMES) do
  known[name] = i
end

-- Raises unless `name` is one of M.NAMES.
function M.check(name, level)
  if not known[name] then
    error(("topology: unknown topology '%s' (symmetric, asymmetric, dynamic or fused)"):format(tostring(name)),
      (level or 1) + 1)
  end
  return name
end

local function number_field(t, key, fn)
  local v = t[key]
  if type(v) ~= "number" or v ~= v or v < 0 then
    error(("topology.%s: %s must be a number >= 0, got %s"):format(fn, key, tostring(v)), 3)
  end
  return v
end

-- Table 2.3: serial (P_1) and parallel (P_inf) performance of a chip, in
-- the caller's unit (instructions per second).  c holds
--   n                   light cores
--   light               P_C of one light core in the parallel phase (T_M threads for an M-core)
--   light_serial        P_C of one light core running one thread (symmetric serial phase;
--                       default `light`)
--   heavy               P_C(q_H, 1) of the heavy (or fused) core (not symmetric)
--   heavy_parallel      the heavy core's P_C in the parallel phase (asymmetric; default `heavy`)
--   bandwidth_serial    P_B while one thread runs (default: no bound)
--   bandwidth_parallel  P_B while all run (default: no bound)
-- c.unbounded = true drops the min with P_B, as the thesis does for its
-- custom and translated core models (L512).
function M.performance(name, c)
  M.check(name, 2)
  local n = number_field(c, "n", "performance")
  local light = number_field(c, "light", "performance")
  local bw1 = c.bandwidth_serial or math.huge
  local bwp = c.bandwidth_parallel or math.huge
  if c.unbounded then
    bw1, bwp = math.huge, math.huge
  end
  local serial, parallel
  if name == "symmetric" then
    serial = c.light_serial or light
    parallel = n * light
  else
    serial = number_field(c, "heavy", "performance")
    if name == "asymmetric" then
      parallel = (c.heavy_parallel or serial) + n * light
    else -- dynamic and fused: the heavy core is off (or fused apart) in parallel phases
      parallel = n * light
    end
  end
  return math.min(serial, bw1), math.min(parallel, bwp)
end

-- Eq. 2.1: speedup over a baseline chip whose serial and parallel
-- performance are base_p1 and base_pinf: S_1 = P_1 / P_B1,
-- S_inf = P_inf / P_Binf, speedup = 1 / ((1 - f) / S_1 + f / S_inf).
function M.speedup(f, p1, pinf, base_p1, base_pinf)
  if type(f) ~= "number" or f < 0 or f > 1 then
    error(("topology.speedup: parallel fraction f must be in [0, 1], got %s"):format(tostring(f)), 2)
  end
  local s1, sinf = p1 / base_p1, pinf / base_pinf
  local denominator = 0
  if f < 1 then
    denominator = denominator + (1 - f) / s1
  end
  if f > 0 then
    denominator = denominator + f / sinf
  end
  return 1 / denominator
end

-- The light-core counts the area and the power budget each allow around a
-- heavy core (see max_cores); n_power may be negative when the heavy core
-- alone exceeds the power budget.  nil when the heavy core does not fit the
-- area budget.
local function budget_counts(name, light, heavy, budget)
  local a_l, p_l = light.area, light.power
  local area_left, power_left = budget.area, budget.power
  if name == "fused" then
    a_l = a_l * (1 + (budget.fused_overhead or 0))
  end
  if name ~= "symmetric" then
    if heavy.area > budget.area then
      return nil
    end
    if name == "asymmetric" or name == "dynamic" then
      area_left = area_left - heavy.area
    end
    if name == "asymmetric" then
      power_left = power_left - heavy.power
    end
  end
  -- a tiny relative slack so a budget that is an exact multiple is not lost to rounding
  local n_area = math.floor(area_left / a_l * (1 + 1e-12))
  local n_power = p_l > 0 and math.floor(power_left / p_l * (1 + 1e-12)) or math.huge
  return n_area, n_power, a_l
end

-- The most light cores a chip of `budget` (area in mm^2, power in W,
-- fused_overhead: the fraction of a light core's area fusion adds, default
-- 0) holds around a heavy core.  light and heavy are { area =, power = }
-- (heavy ignored for symmetric).  Returns n, n_area, n_power: the count and
-- the counts each budget alone allows; n = 0 when no light core fits (or,
-- for asymmetric, dynamic and fused, when the heavy core itself does not).
--   symmetric   N A_L <= area,          N P_L <= power
--   asymmetric  A_H + N A_L <= area,    P_H + N P_L <= power
--   dynamic     A_H + N A_L <= area,    max(P_H, N P_L) <= power
--   fused       N A_L (1 + tau) <= area, max(P_H, N P_L) <= power,
--               and the fused core is built from them: A_H <= N A_L
-- (the fused core's floor is checked by fits(), not here).
function M.max_cores(name, light, heavy, budget)
  M.check(name, 2)
  local n_area, n_power = budget_counts(name, light, heavy, budget)
  if not n_area or (name ~= "symmetric" and heavy.power > budget.power) then
    return 0, 0, 0
  end
  n_power = math.max(0, n_power)
  return math.max(0, math.min(n_area, n_power)), n_area, n_power
end

-- Whether a design with n light cores satisfies every constraint of its
-- topology (see max_cores), including the fused core's A_H <= N A_L.
function M.fits(name, n, light, heavy, budget)
  local n_max = M.max_cores(name, light, heavy, budget)
  if n < 1 or n > n_max then
    return false
  end
  if name == "fused" and heavy.area > n * light.area * (1 + 1e-12) then
    return false
  end
  return true
end

-- The dark fraction of a design: the share of the area budget that is not
-- powered while its parallel phase runs (thesis L612: "the fraction of a
-- multicore chip's area that must go unused due to power constraints"), with
-- [28]'s rule as its public re-implementations state it for a symmetric chip
-- (UCSBarchlab/Charm Charm/models_charm/dark_silicon_symmetric.charm line 67:
-- D = 1 - N a / A):
--   1 - (n A_L (1 + tau for fused) + A_H for asymmetric) / area budget,
-- n the design's light cores (default: the most that fit, max_cores).  The
-- heavy core is dark in the parallel phase of a dynamic chip (switched off)
-- and counts as light-core area in a fused one.  nil when the heavy core does
-- not fit the area budget.  Never falls as the power budget shrinks.
function M.dark_fraction(name, light, heavy, budget, n)
  M.check(name, 2)
  local n_area, _, a_l = budget_counts(name, light, heavy, budget)
  if not n_area then
    return nil
  end
  n = n or M.max_cores(name, light, heavy, budget)
  local running = n * a_l
  if name == "asymmetric" and heavy.power <= budget.power then
    running = running + heavy.area
  end
  return math.max(0, math.min(1, 1 - running / budget.area))
end

-- Hill and Marty ---------------------------------------------------------------------

-- Pollack's rule, Hill and Marty's perf(r).
function M.pollack(r)
  return math.sqrt(r)
end

-- Hill and Marty's speedup for n base-core equivalents (BCEs), parallel
-- fraction f and r BCEs per (big) core:
--   symmetric   1 / ((1 - f) / perf(r) + f r / (perf(r) n))
--   asymmetric  1 / ((1 - f) / perf(r) + f / (perf(r) + n - r))
--   dynamic     1 / ((1 - f) / perf(r) + f / n)
-- (fused has no Hill-Marty formula: it belongs to Table 2.3.)
function M.hill_marty(name, f, n, r, perf)
  perf = perf or M.pollack
  local p = perf(r)
  if name == "symmetric" then
    return 1 / ((1 - f) / p + f * r / (p * n))
  elseif name == "asymmetric" then
    return 1 / ((1 - f) / p + f / (p + n - r))
  elseif name == "dynamic" then
    return 1 / ((1 - f) / p + f / n)
  end
  error(("topology.hill_marty: no Hill-Marty formula for '%s' (symmetric, asymmetric or dynamic)")
    :format(tostring(name)), 2)
end

M.HILL_MARTY = { "symmetric", "asymmetric", "dynamic" }

-- The cores a Hill-Marty design with r BCEs per big core has:
-- symmetric n / r cores of r BCEs; asymmetric one r-BCE core plus n - r
-- 1-BCE cores; dynamic n 1-BCE cores (r of them fuse).  Rounded to the
-- nearest whole core: a design of hill_marty_best always has whole cores,
-- and a floor would turn 256 / (256 / 39) = 38.999... into 38.
function M.hill_marty_cores(name, n, r)
  if name == "symmetric" then
    return math.floor(n / r + 0.5)
  elseif name == "asymmetric" then
    return 1 + math.floor(n - r + 0.5)
  end
  return math.floor(n + 0.5)
end

-- The realizable design of rank k (1 ... n) of a topology on n BCEs:
-- symmetric k cores of n / k BCEs each; asymmetric and dynamic a big core of
-- k BCEs (whole base cores, so the rest of the chip is whole 1-BCE cores).
local function design_r(name, n, k)
  if name == "symmetric" then
    return n / k
  end
  return k
end

-- The realizable design with the best Hill-Marty speedup for a whole number
-- n >= 1 of BCEs: every design of whole cores (symmetric: k cores of n / k
-- BCEs, so r is found finely, not only at powers of two; asymmetric and
-- dynamic: a big core of k whole BCEs).  The speedup is unimodal in k, so
-- for large n a grid of at most opts.grid (default 100000) ranks is refined
-- by every rank within one grid step of its best.  Returns { topology, f,
-- n, best_r, cores, speedup }; cores is exact.
function M.hill_marty_best(name, f, n, opts)
  opts = opts or {}
  if type(f) ~= "number" or f ~= f or f < 0 or f > 1 then
    error(("topology.hill_marty_best: f must be in [0, 1], got %s"):format(tostring(f)), 2)
  end
  if type(n) ~= "number" or n ~= n or n < 1 or n ~= math.floor(n) or n == math.huge then
    error(("topology.hill_marty_best: n must be a whole number of BCEs >= 1, got %s"):format(tostring(n)), 2)
  end
  local function s(k)
    return M.hill_marty(name, f, n, design_r(name, n, k), opts.perf)
  end
  local grid = opts.grid or 100000
  local step = math.max(1, math.floor(n / grid))
  local best_k, best = 1, s(1)
  for k = 1 + step, n, step do
    local v = s(k)
    if v > best then
      best_k, best = k, v
    end
  end
  if step > 1 then
    for k = math.max(1, best_k - step), math.min(n, best_k + step) do
      local v = s(k)
      if v > best then
        best_k, best = k, v
      end
    end
  end
  local r = design_r(name, n, best_k)
  return { topology = name, f = f, n = n, best_r = r, cores = M.hill_marty_cores(name, n, r), speedup = best }
end


return M
