-- gpush.ml.findings: Wu et al.'s qualitative findings (HPCA 2015, Sec. V;
-- wu-spec.md section 6) decided on gpush's own results.  Each finding is
-- stated as the paper states it (with its line), with the test that
-- decides it written out, and the outcome and the numbers the test read:
-- a finding holds or it does not; none is "partly".
--
--   for _, f in ipairs(findings.all(ds, main, sweep)) do
--     print(f.id, f.claim, f.test, f.holds, f.evidence)
--   end
--
-- main: gpush.ml.evaluate.run over every base; sweep: evaluate.k_sweep
-- (with the training error).  Errors are fractions; the texts give percent.
local csv = require "gpush.csv"

local M = {}

local function pct(v)
  return ("%.1f %%"):format(100 * v)
end

local function key(c)
  return ("%s/%s/%s"):format(csv.number(c.cus), csv.number(c.core_mhz), csv.number(c.mem_mhz))
end

-- The sweep's mean error of quantity q (the field `field` of each base,
-- default the validation mean) at each K, averaged over its bases.
function M.curve(sweep, q, field)
  local y = {}
  for ki, run in ipairs(sweep.runs) do
    local sum = 0
    for _, r in ipairs(run.bases) do
      sum = sum + r[q][field or "mean"]
    end
    y[ki] = sum / #run.bases
  end
  return y
end

local function at(sweep, y, k)
  for ki, kk in ipairs(sweep.ks) do
    if kk == k then
      return y[ki]
    end
  end
end

local function listing(sweep, y)
  local parts = {}
  for ki, k in ipairs(sweep.ks) do
    parts[ki] = ("K=%d %s"):format(k, pct(y[ki]))
  end
  return table.concat(parts, ", ")
end

-- Fig. 13 (L312): "Model error trends downward until around 12 clusters.
-- For cluster counts greater than 12, error remains relatively constant."
local function falls_then_flat(sweep, q, claim)
  local y = M.curve(sweep, q)
  local first, e12 = y[1], at(sweep, y, 12)
  if not e12 then
    return nil
  end
  local worst, beyond = 0, 0
  for ki, k in ipairs(sweep.ks) do
    if k > 12 then
      worst, beyond = math.max(worst, math.abs(y[ki] - e12)), beyond + 1
    end
  end
  if beyond == 0 then -- nothing beyond 12 to be flat over: not decided by this sweep
    return nil
  end
  local band = math.max(0.1 * e12, 0.005)
  local flat = worst <= band
  return { claim = claim,
    test = ("the error at K = 12 is at most 0.9 x the error at K = %d, and no K > 12 is more than max(10 %% of "
      .. "it, 0.5 points) away from it"):format(sweep.ks[1]),
    holds = e12 <= 0.9 * first and flat,
    evidence = ("%s; largest distance beyond 12: %.1f points (band %.1f)"):format(listing(sweep, y), 100 * worst,
      100 * band) }
end

-- Fig. 15 (L337): "the neural network classifier model error remains
-- relatively unchanged at eight or more clusters despite the fact that the
-- oracle model error continues to decrease" (training set).
local function oracle_gap(sweep, classifier)
  local network, oracle = M.curve(sweep, "time", "train_mean"), M.curve(sweep, "time", "train_oracle_mean")
  local monotone = true
  for i = 2, #oracle do
    monotone = monotone and oracle[i] <= oracle[i - 1] + 1e-12
  end
  local n8, o8 = at(sweep, network, 8), at(sweep, oracle, 8)
  local nl, ol = network[#network], oracle[#oracle]
  if not n8 then
    return nil
  end
  local lo, hi = math.huge, -math.huge
  for ki, k in ipairs(sweep.ks) do
    if k >= 8 then
      lo, hi = math.min(lo, network[ki]), math.max(hi, network[ki])
    end
  end
  local flat = hi - lo <= math.max(0.25 * n8, 0.005)
  return { claim = ("on the training set the k-means oracle's error falls monotonically with K while the "
      .. "classifier's (the paper's network; here the %s classifier) stays about the same from K = 8 on, so the gap "
      .. "(classification error) grows (Fig. 15, L337)"):format(classifier or "?"),
    test = ("the oracle's training error never rises with K; the classifier's training error over K >= 8 spans at "
      .. "most max(25 %% of its value at K = 8, 0.5 points); the gap at K = %d exceeds the gap at K = 8")
      :format(sweep.ks[#sweep.ks]),
    holds = monotone and flat and (nl - ol) > (n8 - o8),
    evidence = ("oracle %s; classifier %s; gap %.1f points at K = 8, %.1f at K = %d"):format(listing(sweep, oracle),
      listing(sweep, network), 100 * (n8 - o8), 100 * (nl - ol), sweep.ks[#sweep.ks]) }
end

-- The histogram of a quantity at K, summed over the sweep's bases.
local function histogram(sweep, q, k)
  for ki, kk in ipairs(sweep.ks) do
    if kk == k then
      local h = {}
      for _, r in ipairs(sweep.runs[ki].bases) do
        for b, n in ipairs(r[q].histogram) do
          h[b] = (h[b] or 0) + n
        end
      end
      return h
    end
  end
end

-- Fig. 14 (L324): counts per 10 % bin "exhibit exponential decay ... the
-- rate of decay is faster for models with more clusters".
local function histograms_decay(sweep, q, claim)
  local ks, parts, decays, shares = { 2, 6, 12 }, {}, true, {}
  for i, k in ipairs(ks) do
    local h = histogram(sweep, q, k)
    if not h then
      return nil
    end
    local total = 0
    for _, n in ipairs(h) do
      total = total + n
    end
    local tens = math.min(10, #h) -- the ten 10 % bins (evaluate.BINS; the last, over 100 %, apart)
    for b = 2, tens do
      decays = decays and h[b] <= h[b - 1]
    end
    shares[i] = h[1] / total
    parts[i] = ("K=%d: %s (first bin %.0f %%)"):format(k, table.concat(h, " ", 1, tens), 100 * shares[i])
  end
  return { claim = claim,
    test = "for K = 2, 6 and 12 the counts of the ten 10 % bins never rise from one bin to the next, and the "
      .. "first bin's share grows from K = 2 to 6 to 12",
    holds = decays and shares[1] < shares[2] and shares[2] < shares[3],
    evidence = table.concat(parts, "; ") }
end

-- Per-base errors of quantity q by configuration key, and their mean.
local function per_base(main, q)
  local t, sum = {}, 0
  for _, b in ipairs(main.bases) do
    t[key(b.config)] = b[q].mean
    sum = sum + b[q].mean
  end
  return t, sum / #main.bases
end

local function rank_of(errors, v)
  local rank, total = 1, 0
  for _, e in pairs(errors) do
    total = total + 1
    if e > v then
      rank = rank + 1
    end
  end
  return rank, total
end

-- Fig. 10 and 11 (L272, L302): the most imbalanced bases are the hardest:
-- most CUs at the fastest engine and slowest memory clocks (memory-bound),
-- fewest CUs at the slowest engine and fastest memory (compute-bound).
local function imbalanced_hardest(ds, main)
  local g = ds.grid
  local errors, mean = per_base(main, "time")
  local memory_bound = { cus = g.cus[#g.cus], core_mhz = g.core_mhz[#g.core_mhz], mem_mhz = g.mem_mhz[1] }
  local compute_bound = { cus = g.cus[1], core_mhz = g.core_mhz[1], mem_mhz = g.mem_mhz[#g.mem_mhz] }
  local parts, holds = {}, true
  for _, c in ipairs { memory_bound, compute_bound } do
    local e = errors[key(c)]
    if not e then
      return nil
    end
    local rank, total = rank_of(errors, e)
    holds = holds and rank <= math.ceil(total / 4)
    parts[#parts + 1] = ("%s: %s, rank %d of %d"):format(key(c), pct(e), rank, total)
  end
  return { claim = "the most imbalanced bases are the hardest: most CUs with the fastest engine and slowest memory "
      .. "(Fig. 10's worst cell, L272) and fewest CUs with the slowest engine and fastest memory (Fig. 11's, L302)",
    test = "each of the two bases is among the worst quarter of all bases",
    holds = holds, evidence = ("%s; mean of all bases %s"):format(table.concat(parts, "; "), pct(mean)) }
end

-- Fig. 12 (L304): "The best distribution is seen with a 500 MHz base
-- engine frequency" (the middle of the range).
local function best_engine_clock(ds, main)
  if #ds.grid.core_mhz < 3 then -- no middle to be best
    return nil
  end
  local sums, counts = {}, {}
  for _, b in ipairs(main.bases) do
    local e = b.config.core_mhz
    sums[e], counts[e] = (sums[e] or 0) + b.time.mean, (counts[e] or 0) + 1
  end
  local best, parts = nil, {}
  for _, e in ipairs(ds.grid.core_mhz) do
    local m = sums[e] / counts[e]
    parts[#parts + 1] = ("%s MHz %s"):format(csv.number(e), pct(m))
    if not best or m < best.m then
      best = { e = e, m = m }
    end
  end
  local lo, hi = ds.grid.core_mhz[1], ds.grid.core_mhz[#ds.grid.core_mhz]
  return { claim = "a base engine clock in the middle of the range is best (500 MHz on the paper's grid, Fig. 12, "
      .. "L304)",
    test = ("the base engine clock with the lowest mean error over its bases is neither the slowest (%s MHz) nor "
      .. "the fastest (%s MHz)"):format(csv.number(lo), csv.number(hi)),
    holds = best.e ~= lo and best.e ~= hi, evidence = table.concat(parts, ", ") }
end

-- Fig. 16 and 17 (L345, L350): power errs less than performance, needs few
-- clusters (large gain from K = 2 to 6, little from 6 to 12), and varies
-- less across bases.
local function power_findings(sweep, main)
  if not main.mean.power then
    return {}
  end
  local p, t = M.curve(sweep, "power"), M.curve(sweep, "time")
  local p2, p6, p12 = p[1], at(sweep, p, 6), at(sweep, p, 12)
  local out = {}
  if p6 and p12 then
    out[#out + 1] = { claim = "power needs few clusters: a large gain from K = 2 to 6, little from 6 to 12 (Fig. 17, "
        .. "L352)",
      test = ("power error falls more from K = %d to 6 than from 6 to 12"):format(sweep.ks[1]),
      holds = (p2 - p6) > (p6 - p12), evidence = listing(sweep, p) }
  end
  local _, t_mean = per_base(main, "time")
  local p_errors, p_mean = per_base(main, "power")
  local t_errors = per_base(main, "time")
  local function sd(errors, mean)
    local s, n = 0, 0
    for _, e in pairs(errors) do
      s, n = s + (e - mean) ^ 2, n + 1
    end
    return math.sqrt(s / n)
  end
  out[#out + 1] = { claim = "power errs less than performance and varies less across bases (Fig. 16, L350)",
    test = "at K = " .. main.k .. " over every base the power error's mean and standard deviation are both below "
      .. "performance's",
    holds = p_mean < t_mean and sd(p_errors, p_mean) < sd(t_errors, t_mean),
    evidence = ("power %s (SD %.1f points), performance %s (SD %.1f points); sweep at K = 12: power %s, "
      .. "performance %s"):format(pct(p_mean), 100 * sd(p_errors, p_mean), pct(t_mean), 100 * sd(t_errors, t_mean),
      pct(p12 or 0), pct(at(sweep, t, 12) or 0)) }
  return out
end

-- Every finding this data can decide, in the paper's order.
function M.all(ds, main, sweep)
  local out = {}
  local function add(f)
    if f then
      out[#out + 1] = f
    end
  end
  add(imbalanced_hardest(ds, main))
  add(best_engine_clock(ds, main))
  add(falls_then_flat(sweep, "time", "performance error falls as K grows to about 12, then stays about the same "
    .. "(Fig. 13, L312)"))
  add(histograms_decay(sweep, "time", "the error histogram decays from bin to bin, faster with more clusters "
    .. "(Fig. 14, L324)"))
  add(oracle_gap(sweep, main.classifier))
  for _, f in ipairs(power_findings(sweep, main)) do
    add(f)
  end
  return out
end

return M
