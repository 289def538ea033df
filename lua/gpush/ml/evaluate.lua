-- gpush.ml.evaluate: Wu et al.'s evaluation protocol (HPCA 2015, Sec. V;
-- wu-spec.md section 6) over a dataset: a seeded 80/20 split by kernel,
-- one model per base configuration, every other configuration a target,
-- the mean relative error |predicted - measured| / measured over
-- validation kernels x targets, per base and overall; the error
-- histograms (Fig. 14, 17), the sweep over the number of clusters (Fig.
-- 13, 16) and the oracle classifier on the training set (Fig. 15).
--
--   local r = evaluate.run(ds, { k = 12, split_seed = 1, bases = "all", jobs = 2 })
--   r.mean.time, r.mean.power, r.bases[i].config, r.bases[i].time.mean, r.histogram.time
local core = require "gpush.core"
local parallel = require "gpush.parallel"
local surface = require "gpush.models.surface"

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

-- A seeded 80/20 split of kernels 1..n (Sec. IV: "a random 80%"): a
-- Fisher-Yates shuffle, the first round(n x fraction) train.  Returns the
-- training and validation indices, each ascending.
function M.split(n, seed, fraction)
  fraction = fraction or 0.8
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

-- Trains one model at `base` and evaluates it: validation error per
-- quantity (and, with opts.train_error, the training kernels' error with
-- the classifiers and with the oracle, and the validation kernels' error
-- with their nearest centroids).  A JSON-friendly table.
local function evaluate_base(ds, base, train, valid, opts)
  local train_opts = { base = base, kernels = train }
  for key, v in pairs(opts.train) do
    train_opts[key] = v
  end
  local model, err = surface.train(ds, train_opts)
  if not model then
    error(err, 0)
  end
  local out = { config = base }
  for _, q in ipairs(ds.quantities) do
    local ev = assert(model:evaluate(ds, valid, q))
    out[q] = { mean = ev.mean, max = ev.max, count = ev.count, histogram = ev.histogram }
    if opts.train_error then
      local nn = assert(model:evaluate(ds, train, q))
      local oracle = assert(model:evaluate(ds, train, q, { choice = "oracle" }))
      local nearest = assert(model:evaluate(ds, valid, q, { choice = "nearest" }))
      out[q].train_mean, out[q].oracle_mean, out[q].nearest_mean = nn.mean, oracle.mean, nearest.mean
    end
  end
  return out
end

-- Runs the protocol.  opts: k (12), seed (1: k-means and networks),
-- split_seed (1), fraction (0.8), bases ("all", or a list of
-- {cus, core_mhz, mem_mhz}), train_error (also the training set's error
-- with the classifiers and the oracle), jobs (worker processes), quiet,
-- label (for progress), and the training options of surface.train.
-- Returns {k, split_seed, train, valid (kernel names), bases = {per base:
-- config, time = {mean, max, count, histogram[, train_mean, oracle_mean]},
-- power = ...}, mean = {time, power} (over bases: every base has the same
-- number of kernel x target pairs, so this is also the pooled mean),
-- histogram = {time, power} (summed)}.
function M.run(ds, opts)
  opts = opts or {}
  local k = opts.k or 12
  local split_seed = opts.split_seed or 1
  local train, valid = M.split(#ds.kernels, split_seed, opts.fraction)
  local bases = opts.bases == nil and "all" or opts.bases
  if bases == "all" then
    bases = M.all_configs(ds)
  end
  local settings = { train = { k = k, seed = opts.seed or 1 }, train_error = opts.train_error }
  for key in pairs(surface.DEFAULTS) do -- every training option given
    if key ~= "k" and key ~= "seed" then
      settings.train[key] = opts[key]
    end
  end
  ds:core() -- built once here, inherited by the workers
  local per_base = parallel.map(#bases, function(i)
    return evaluate_base(ds, bases[i], train, valid, settings)
  end, { jobs = opts.jobs, quiet = opts.quiet, label = opts.label or ("ml evaluate k=" .. k),
    progress_stream = opts.progress_stream })
  local result = { k = k, split_seed = split_seed, seed = settings.train.seed, bases = per_base, mean = {},
    histogram = {}, train = {}, valid = {}, quantities = ds.quantities }
  for i, t in ipairs(train) do
    result.train[i] = ds.kernels[t]
  end
  for i, v in ipairs(valid) do
    result.valid[i] = ds.kernels[v]
  end
  for _, q in ipairs(ds.quantities) do
    local sum, hist = 0, {}
    for b = 1, #M.BINS do
      hist[b] = 0
    end
    for _, r in ipairs(per_base) do
      sum = sum + r[q].mean
      for b = 1, #M.BINS do
        hist[b] = hist[b] + r[q].histogram[b]
      end
    end
    result.mean[q] = sum / #per_base
    result.histogram[q] = hist
  end
  return result
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
