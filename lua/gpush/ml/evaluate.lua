-- gpush.ml.evaluate: Wu et al.'s evaluation protocol (HPCA 2015, Sec. V;
-- wu-spec.md section 6) over a dataset: a seeded 80/20 split (by kernel
-- family by default, by kernel as in the paper) or k-fold cross-validation,
-- one model per base configuration, every other configuration a target, the
-- mean relative error |predicted - measured| / measured over validation
-- kernels x targets, per base and overall; next to it, measured in the same
-- run on the same kernels, the error with one cluster per set (K = 1: the
-- mean scaling surface, what the method adds nothing to) and with a perfect
-- classifier (the oracle: each validation kernel given, per set, the
-- centroid nearest its own scaling values); the error histograms (Fig. 14,
-- 17), the sweep over the number of clusters (Fig. 13, 16) and the
-- k-means oracle on the training set (Fig. 15).
--
--   local r = evaluate.run(ds, { k = 12, split = "family", split_seed = 1, bases = "all", jobs = 2 })
--   r.mean.time, r.baseline_k1.time, r.oracle.time, r.bases[i].config, r.bases[i].time.mean
local core = require "gpush.core"
local parallel = require "gpush.parallel"
local probe = require "gpush.ml.probe"
local surface = require "gpush.models.surface"
local text = require "gpush.text"

local M = {}

M.BINS = { "0-10%", "10-20%", "20-30%", "30-40%", "40-50%", "50-60%", "60-70%", "70-80%", "80-90%", "90-100%",
  ">=100%" }

-- splitmix64 in Lua's 64-bit integers (wrapping), the generator the C core
-- uses, so a split is the same on every machine.
local function splitmix(state)
  state = state + -7046029254386353131 -- 0x9e3779b97f4a7c15
  local x = state
  x = (x ~ (x >> 30)) * -4658895280553007687 -- 0xbf58476d1ce4e5b9
  x = (x ~ (x >> 27)) * -7723592293110705685 -- 0x94d049bb133111eb
  return state, x ~ (x >> 31)
end

-- A seeded shuffle of 1..n (Fisher-Yates from splitmix64).
local function shuffled(n, seed)
  local order = {}
  for i = 1, n do
    order[i] = i
  end
  local state = seed
  for i = n, 2, -1 do
    local r
    state, r = splitmix(state)
    local j = (r >> 11) % i + 1
    order[i], order[j] = order[j], order[i]
  end
  return order
end

-- A seeded 80/20 split of kernels 1..n (Sec. IV: "a random 80%"): a
-- Fisher-Yates shuffle, the first round(n x fraction) train.  Returns the
-- training and validation indices, each ascending.
function M.split(n, seed, fraction)
  fraction = fraction or 0.8
  local order = shuffled(n, seed)
  local n_train = math.max(1, math.min(n - 1, math.floor(n * fraction + 0.5)))
  local train, valid = {}, {}
  for i = 1, n do
    if i <= n_train then
      train[#train + 1] = order[i]
    else
      valid[#valid + 1] = order[i]
    end
  end
  table.sort(train)
  table.sort(valid)
  return train, valid
end

M.SPLITS = { "family", "kernel" }

-- The unit each kernel belongs to under a split: its family (every variant
-- of a base description on one side) or itself (the paper's per-kernel
-- split).  Returns the unit of each kernel and the number of units.
local function units_of(ds, split)
  if split == "kernel" then
    local unit = {}
    for k = 1, #ds.kernels do
      unit[k] = k
    end
    return unit, #ds.kernels
  elseif split == "family" then
    return ds.family_index, #ds.families
  end
  error(("gpush.ml.evaluate: split must be 'family' or 'kernel', got '%s'"):format(tostring(split)), 3)
end

local PLURAL = { family = "families", kernel = "kernels" }

-- The kernels of the units that `keep(unit)` selects, and the others,
-- each ascending.
local function partition(unit, keep)
  local train, valid = {}, {}
  for k, u in ipairs(unit) do
    if keep(u) then
      train[#train + 1] = k
    else
      valid[#valid + 1] = k
    end
  end
  return train, valid
end

-- The training and validation kernels of a seeded 80/20 split of the
-- dataset's units (split: "family" or "kernel"): M.split over the units.
function M.split_dataset(ds, split, seed, fraction)
  local unit, units = units_of(ds, split)
  if units < 2 then
    error(("gpush.ml.evaluate: a split by %s needs at least two %s; %s has one"):format(split, PLURAL[split],
      ds.source or "the dataset"), 2)
  end
  local train_units = M.split(units, seed, fraction)
  local is_train = {}
  for _, u in ipairs(train_units) do
    is_train[u] = true
  end
  return partition(unit, function(u) return is_train[u] end)
end

-- The folds of a seeded k-fold cross-validation over the dataset's units:
-- the shuffled units dealt round-robin into `folds` groups; fold f trains
-- on the others and validates on its own.  Returns a list of {train,
-- valid}.
function M.folds(ds, split, seed, folds)
  local unit, units = units_of(ds, split)
  if folds < 2 or folds > units then
    error(("gpush.ml.evaluate: %d folds of %d %s (2 to %d)"):format(folds, units, PLURAL[split], units), 2)
  end
  local fold_of = {}
  for position, u in ipairs(shuffled(units, seed)) do
    fold_of[u] = (position - 1) % folds + 1
  end
  local out = {}
  for f = 1, folds do
    local train, valid = partition(unit, function(u) return fold_of[u] ~= f end)
    out[f] = { train = train, valid = valid }
  end
  return out
end

-- Every configuration of the grid as {cus, core_mhz, mem_mhz}.
function M.all_configs(ds)
  local list = {}
  for g = 1, ds:config_count() do
    list[g] = ds:config(g)
  end
  return list
end

-- Five bases for the cluster sweep (Fig. 13): the paper's named one (most
-- CUs, fastest engine, slowest memory) and four spread over the grid (the
-- paper does not name them; wu-spec.md section 8's choice mapped onto this
-- grid's axes by position).
function M.sweep_bases(ds)
  local g = ds.grid
  local function at(list, share)
    return list[math.max(1, math.min(#list, math.floor((#list - 1) * share + 1.5)))]
  end
  local picks = { { 1, 1, 0 }, { 0.5, 0.3, 0.7 }, { 0.7, 0.6, 0.5 }, { 0.2, 0, 1 }, { 0, 1, 1 } }
  local out, seen = {}, {}
  for _, p in ipairs(picks) do
    local config = { cus = at(g.cus, p[1]), core_mhz = at(g.core_mhz, p[2]), mem_mhz = at(g.mem_mhz, p[3]) }
    local key = ("%s/%s/%s"):format(config.cus, config.core_mhz, config.mem_mhz)
    if not seen[key] then
      seen[key] = true
      out[#out + 1] = config
    end
  end
  return out
end

-- Sums of errors (mean x count) and counts, to pool folds.
local function pooled()
  local hist = {}
  for b = 1, #M.BINS do
    hist[b] = 0
  end
  return { sum = 0, count = 0, max = 0, histogram = hist }
end

local function pool(acc, ev)
  acc.sum, acc.count = acc.sum + ev.mean * ev.count, acc.count + ev.count
  acc.max = math.max(acc.max, ev.max)
  for b, n in ipairs(ev.histogram or {}) do
    acc.histogram[b] = acc.histogram[b] + n
  end
end

local function mean_of(acc)
  return acc.count > 0 and acc.sum / acc.count or 0
end

local function trained(ds, opts, base, kernels, k)
  local train_opts = { base = base, kernels = kernels }
  for key, v in pairs(opts.train) do
    train_opts[key] = v
  end
  train_opts.k = k or train_opts.k
  local model, err = surface.train(ds, train_opts)
  if not model then
    error(err, 0)
  end
  return model
end

-- Trains the models of one base configuration on every fold and evaluates
-- them on the fold's validation kernels, pooled over the folds: per
-- quantity the error with the classifiers (mean, max, count, histogram),
-- with one cluster per set (k1_mean) and with the oracle (oracle_mean:
-- each validation kernel's nearest centroids); with opts.train_error also
-- the training kernels' error with the classifiers (train_mean) and with
-- their own k-means clusters (train_oracle_mean, Sec. V-B2).  The clusters
-- actually used per set (k_used: fewer than K with fewer training kernels).
-- A JSON-friendly table.
local function evaluate_base(ds, base, folds, opts)
  local acc = {}
  for _, q in ipairs(ds.quantities) do
    acc[q] = { valid = pooled(), k1 = pooled(), oracle = pooled(), train = pooled(), train_oracle = pooled() }
  end
  local k_used, per_kernel = opts.train.k, {}
  for _, q in ipairs(ds.quantities) do
    per_kernel[q] = {}
  end
  for _, fold in ipairs(folds) do
    local model = trained(ds, opts, base, fold.train)
    local flat = trained(ds, opts, base, fold.train, 1)
    k_used = math.min(k_used, model.k_used)
    for _, q in ipairs(ds.quantities) do
      local a = acc[q]
      local ev = assert(model:evaluate(ds, fold.valid, q))
      local ev1 = assert(flat:evaluate(ds, fold.valid, q))
      local evo = assert(model:evaluate(ds, fold.valid, q, { choice = "nearest" }))
      pool(a.valid, ev)
      pool(a.k1, ev1)
      pool(a.oracle, evo)
      for i, kk in ipairs(fold.valid) do -- each validation kernel's own mean: model, K = 1, oracle
        per_kernel[q][ds.kernels[kk]] = { ev.per_kernel[i], ev1.per_kernel[i], evo.per_kernel[i] }
      end
      if opts.train_error then
        pool(a.train, assert(model:evaluate(ds, fold.train, q)))
        pool(a.train_oracle, assert(model:evaluate(ds, fold.train, q, { choice = "oracle" })))
      end
    end
  end
  local out = { config = base, k_used = k_used }
  for _, q in ipairs(ds.quantities) do
    local a = acc[q]
    out[q] = { mean = mean_of(a.valid), max = a.valid.max, count = a.valid.count, histogram = a.valid.histogram,
      k1_mean = mean_of(a.k1), oracle_mean = mean_of(a.oracle), per_kernel = per_kernel[q] }
    if opts.train_error then
      out[q].train_mean, out[q].train_oracle_mean = mean_of(a.train), mean_of(a.train_oracle)
    end
  end
  return out
end

-- The names of kernels by index.
local function names(ds, list)
  local out = {}
  for i, k in ipairs(list) do
    out[i] = ds.kernels[k]
  end
  return out
end

-- Runs the protocol.  opts: k (12), seed (1: k-means and the classifiers),
-- split ("family", default, or "kernel"), split_seed (1), fraction (0.8),
-- folds (nil or 1: one seeded split; F >= 2: F-fold cross-validation, every
-- kernel validated once), bases ("all", or a list of {cus, core_mhz,
-- mem_mhz}), cu_probe ("quarter", default: the second base run of
-- gpush.ml.probe; "none": the paper's one base run), train_error (also the
-- training set's error), jobs (worker
-- processes), quiet, label (for progress), and the training options of
-- surface.train (classifier, ...).  Returns {k, k_used, split, split_seed,
-- folds, train, valid (kernel names of the single split; every kernel in
-- both lists across folds), families = {train, valid} (counts), bases =
-- {per base: config, time = {mean, max, count, histogram, k1_mean,
-- oracle_mean[, train_mean, train_oracle_mean]}, power = ...}, mean =
-- {time, power} (over bases: every base has the same number of kernel x
-- target pairs, so this is also the pooled mean), baseline_k1 = {time,
-- power}, oracle = {time, power}, histogram = {time, power} (summed)}.
function M.run(ds, opts)
  opts = opts or {}
  local k = opts.k or 12
  local cu_probe = opts.cu_probe or probe.DEFAULT
  local probed, probe_err = probe.apply(ds, cu_probe)
  if not probed then
    error("gpush.ml.evaluate: " .. probe_err, 2)
  end
  ds = probed
  local split = opts.split or "family"
  local split_seed = opts.split_seed or 1
  local folds
  if opts.folds and opts.folds > 1 then
    folds = M.folds(ds, split, split_seed, opts.folds)
  else
    local train, valid = M.split_dataset(ds, split, split_seed, opts.fraction)
    folds = { { train = train, valid = valid } }
  end
  local bases = opts.bases == nil and "all" or opts.bases
  if bases == "all" then
    bases = M.all_configs(ds)
  end
  -- the classifiers choose their own settings by holding out whole units of
  -- the split (families, or kernels) of the training set
  local groups = split == "family" and ds.family_index or nil
  local settings = { train = { k = k, seed = opts.seed or 1, groups = groups or false },
    train_error = opts.train_error }
  for key in pairs(surface.DEFAULTS) do -- every training option given
    if key ~= "k" and key ~= "seed" and opts[key] ~= nil then
      settings.train[key] = opts[key]
    end
  end
  ds:core() -- built once here, inherited by the workers
  local per_base = parallel.map(#bases, function(i)
    return evaluate_base(ds, bases[i], folds, settings)
  end, { jobs = opts.jobs, quiet = opts.quiet, label = opts.label or ("ml evaluate k=" .. k),
    progress_stream = opts.progress_stream })
  local result = { k = k, split = split, split_seed = split_seed, folds = #folds, seed = settings.train.seed,
    bases = per_base, mean = {}, baseline_k1 = {}, oracle = {}, histogram = {}, quantities = ds.quantities,
    classifier = opts.classifier or surface.DEFAULTS.classifier, cu_probe = cu_probe }
  result.train, result.valid = names(ds, folds[1].train), names(ds, folds[1].valid)
  local fam_train, fam_valid = {}, {}
  for _, kk in ipairs(folds[1].train) do
    fam_train[ds.family[kk]] = true
  end
  for _, kk in ipairs(folds[1].valid) do
    fam_valid[ds.family[kk]] = true
  end
  result.families = { train = #text.sorted_keys(fam_train),
    valid = #text.sorted_keys(fam_valid), total = #ds.families }
  result.k_used = k
  for _, r in ipairs(per_base) do
    result.k_used = math.min(result.k_used, r.k_used)
  end
  for _, q in ipairs(ds.quantities) do
    local sums, hist = { mean = 0, k1_mean = 0, oracle_mean = 0 }, {}
    for b = 1, #M.BINS do
      hist[b] = 0
    end
    for _, r in ipairs(per_base) do
      for key in pairs(sums) do
        sums[key] = sums[key] + r[q][key]
      end
      for b = 1, #M.BINS do
        hist[b] = hist[b] + r[q].histogram[b]
      end
    end
    result.mean[q] = sums.mean / #per_base
    result.baseline_k1[q] = sums.k1_mean / #per_base
    result.oracle[q] = sums.oracle_mean / #per_base
    result.histogram[q] = hist
  end
  result.families_error = M.by_family(ds, per_base)
  for _, r in ipairs(per_base) do -- kept per family; per kernel and base is more than a reader needs
    for _, q in ipairs(ds.quantities) do
      r[q].per_kernel = nil
    end
  end
  return result
end

-- Per quantity, every validated family's mean error over its kernels and
-- the bases: {family, kernels, mean, k1_mean, oracle_mean}, worst first
-- (ties: by name).
function M.by_family(ds, per_base)
  local out = {}
  for _, q in ipairs(ds.quantities) do
    local sums = {}
    for _, r in ipairs(per_base) do
      for name, e in pairs(r[q].per_kernel) do
        local f = ds.family[ds:kernel_index(name)]
        local s = sums[f] or { family = f, n = 0, mean = 0, k1_mean = 0, oracle_mean = 0, kernels = {} }
        s.n, s.mean, s.k1_mean, s.oracle_mean = s.n + 1, s.mean + e[1], s.k1_mean + e[2], s.oracle_mean + e[3]
        s.kernels[name] = true
        sums[f] = s
      end
    end
    local list = {}
    for _, f in ipairs(text.sorted_keys(sums)) do
      local s = sums[f]
      list[#list + 1] = { family = f, kernels = #text.sorted_keys(s.kernels), mean = s.mean / s.n,
        k1_mean = s.k1_mean / s.n, oracle_mean = s.oracle_mean / s.n }
    end
    table.sort(list, function(a, b) return a.mean > b.mean or (a.mean == b.mean and a.family < b.family) end)
    out[q] = list
  end
  return out
end

-- The cluster sweep of Sec. V-B/V-C: M.run at each K of opts.ks (default
-- 2, 4, ..., 20) on opts.bases (default M.sweep_bases), with the training
-- set's error (classifiers and oracle).  Returns {ks, bases, runs = {per K:
-- M.run's result}}.
function M.k_sweep(ds, opts)
  opts = opts or {}
  local ks = opts.ks or { 2, 4, 6, 8, 10, 12, 14, 16, 18, 20 }
  local bases = opts.bases or M.sweep_bases(ds)
  local runs = {}
  for i, k in ipairs(ks) do
    local o = {}
    for key, v in pairs(opts) do
      o[key] = v
    end
    o.k, o.bases, o.train_error, o.label = k, bases, true, ("ml k-sweep k=%d"):format(k)
    runs[i] = M.run(ds, o)
  end
  return { ks = ks, bases = bases, runs = runs }
end

-- The time a call takes, for reports.
function M.timed(f, ...)
  local t0 = core.now()
  local r = f(...)
  return r, core.now() - t0
end

return M
