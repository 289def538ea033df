-- gpush.models.surface: machine-learned scaling surfaces (Wu, Greathouse,
-- Lyashevsky, Jayasena, Chiou, "GPGPU Performance and Power Estimation
-- Using Machine Learning", HPCA 2015; docs/ml.md).
--
--   local surface = require "gpush.models.surface"
--   local ds = assert(require("gpush.ml.dataset").read_csv("corpus.csv"))
--   local model = assert(surface.train(ds, { base = { cus = 32, core_mhz = 1000, mem_mhz = 1375 }, k = 12 }))
--   model:predict(counters, base_time, { cus = 8, core_mhz = 500, mem_mhz = 775 })   -- time, same unit
--   model:predict(counters, base_power, target, "power")
--   assert(model:save("model.gsm")); model = assert(surface.load("model.gsm"))
--   models.get("surface", { model = "model.gsm" })   -- a sweep model (M.new)
--   models.family("surface")                         -- this module
--
-- A kernel measured once at the model's base configuration (its time, power
-- and Table II counters there) is predicted at any configuration of the
-- training grid: per CU count and for the CU axis a k-means cluster set of
-- the training kernels' scaling values, a three-layer network per set that
-- picks the kernel's cluster from its counters, and the chosen centroids
-- multiplied along the path CU -> engine -> memory (wu-spec.md section 2).
-- The numerics are in C (csrc/core/num, csrc/core/surface); this module
-- composes them.  Models never require the experiment engine.
local core = require "gpush.core"
local probe = require "gpush.ml.probe"
local staging = require "gpush.staging"

local M = {}

M.name = "surface"

-- Table II's 22 classifier features, in the paper's order: the counter
-- names a dataset's columns use (gpush.ml.dataset, docs/ml.md).
M.TABLE_II = { "VALUInsts", "SALUInsts", "VFetchInsts", "SFetchInsts", "VWriteInsts", "LDSInsts",
  "VALUUtilization", "VALUBusy", "SALUBusy", "CacheHit", "MemUnitBusy", "MemUnitStalled",
  "WriteUnitStalled", "LDSBankConflict", "Occupancy", "V_IPC", "MemTime", "FetchPerLoadByte",
  "WritePerStoreByte", "NumWorkGroups", "ReadBandwidth", "WriteBandwidth" }

-- The grid axes: a grid's field and what it is.
M.AXES = {
  { key = "cus", what = "CU (SM) count" },
  { key = "core_mhz", what = "engine (core) clock in MHz" },
  { key = "mem_mhz", what = "memory clock in MHz" },
}

-- The indices of a configuration {cus, core_mhz, mem_mhz} on a grid
-- {cus = {...}, core_mhz = {...}, mem_mhz = {...}}, or nil and a message
-- naming the axis whose value is not on the grid.
function M.locate(grid, config)
  local idx = {}
  for i, axis in ipairs(M.AXES) do
    local want = config[axis.key]
    for j, v in ipairs(grid[axis.key]) do
      if v == want then
        idx[i] = j
      end
    end
    if not idx[i] then
      local values = {}
      for j, v in ipairs(grid[axis.key]) do
        values[j] = ("%.15g"):format(v)
      end
      return nil, ("%s %s is not on the grid (%s); the models do not extrapolate"):format(axis.key,
        ("%.15g"):format(tonumber(want) or 0 / 0), table.concat(values, ", "))
    end
  end
  return idx[1], idx[2], idx[3]
end
M.FILE_EXTENSION = ".gsm"

-- Training options and their defaults (docs/ml.md says why each):
-- classifier "neighbours" (the cost-weighted neighbour classifier) or
-- "paper" (Wu et al.'s network per set, trained with epochs,
-- learning_rate, weight_decay and stop_early).
M.DEFAULTS = { k = 12, seed = 1, restarts = 10, max_iter = 100, classifier = "neighbours", epochs = 1000,
  learning_rate = 0.1, weight_decay = 1e-4, stop_early = 1 }
M.CLASSIFIERS = { "neighbours", "paper" }

local Model = {}
Model.__index = Model

-- The configuration at the grid's top (every axis at its largest value):
-- the stock card, the default base.
function M.top_config(grid)
  return { cus = grid.cus[#grid.cus], core_mhz = grid.core_mhz[#grid.core_mhz], mem_mhz = grid.mem_mhz[#grid.mem_mhz] }
end

local function kernel_indices(ds, list)
  if list == nil then
    local all = {}
    for k = 1, #ds.kernels do
      all[k] = k
    end
    return all
  end
  local out = {}
  for i, k in ipairs(list) do
    local index = type(k) == "number" and k or ds:kernel_index(k)
    if not index or not ds.kernels[index] then
      return nil, ("surface: no kernel '%s' in %s"):format(tostring(k), ds.source or "the dataset")
    end
    out[i] = index
  end
  return out
end

local function wrap(parts, order)
  local first = parts[order[1]]:info()
  for _, axis in ipairs(M.AXES) do -- the core's doubles back to whole numbers where they are
    for i, v in ipairs(first.grid[axis.key]) do
      first.grid[axis.key][i] = math.tointeger(v) or v
    end
  end
  local model = setmetatable({ parts = parts, quantities = order, grid = first.grid, features = first.features,
    k = first.k, classifier = first.classifier }, Model)
  -- the clusters a set actually has: fewer than k with fewer training kernels
  model.k_used = 1
  for _, q in ipairs(order) do
    for _, set in ipairs(parts[q]:info().sets) do
      model.k_used = math.max(model.k_used, set.k)
    end
  end
  model.base = { cus = first.grid.cus[first.base[1]], core_mhz = first.grid.core_mhz[first.base[2]],
    mem_mhz = first.grid.mem_mhz[first.base[3]] }
  model.base_index = first.base
  model.feature_index = {}
  for j, f in ipairs(model.features) do
    model.feature_index[f] = j
  end
  return model
end

-- Checks the numeric training options (raises naming the option).
local function check_options(opts)
  for key, v in pairs(opts) do
    if key == "classifier" then
      if v ~= "neighbours" and v ~= "paper" then
        error(("gpush.models.surface.train: classifier must be 'neighbours' or 'paper', got %s"):format(
          tostring(v)), 3)
      end
    elseif M.DEFAULTS[key] ~= nil and (type(v) ~= "number" or v < 0 or (key ~= "learning_rate"
        and key ~= "weight_decay" and math.type(v) ~= "integer")) then
      error(("gpush.models.surface.train: %s must be a non-negative %s, got %s"):format(key,
        (key == "learning_rate" or key == "weight_decay") and "number" or "integer", tostring(v)), 3)
    end
  end
end

-- The group of each training kernel for the neighbour classifier's
-- choice of bandwidth (kernels of one group are held out together):
-- opts.groups (per dataset kernel), else the dataset's families, else
-- none (false: each kernel on its own).
local function groups_of(ds, kernels, groups)
  if groups == nil then
    groups = ds.family_index
  end
  if not groups then
    return nil
  end
  local out = {}
  for i, k in ipairs(kernels) do
    out[i] = groups[k]
  end
  return out
end

-- Trains a model of every quantity the dataset has (or opts.quantities)
-- on opts.kernels (names or indices; default all) at base configuration
-- opts.base ({cus, core_mhz, mem_mhz}; default the grid's top).  Options:
-- k (clusters per set), seed, restarts, max_iter, classifier, epochs,
-- learning_rate, weight_decay (M.DEFAULTS), groups (per dataset kernel a
-- group id, false for none; default the dataset's families).  Returns the
-- model, or nil and a message.
function M.train(ds, opts)
  opts = opts or {}
  if type(ds) ~= "table" or not ds.core then
    error("gpush.models.surface.train: expected a dataset (gpush.ml.dataset.read_csv)", 2)
  end
  check_options(opts)
  local base = opts.base or M.top_config(ds.grid)
  local c, e, m = ds:locate(base)
  if not c then
    return nil, "surface: base configuration: " .. e
  end
  local kernels, err = kernel_indices(ds, opts.kernels)
  if not kernels then
    return nil, err
  end
  local quantities = opts.quantities or ds.quantities
  local parts = {}
  for _, q in ipairs(quantities) do
    local qi = ds:quantity_index(q)
    if not qi then
      return nil, ("surface: %s has no '%s' values"):format(ds.source or "the dataset", q)
    end
    local part, train_err = core.surface_train(ds:core(), { quantity = qi, name = q, kernels = kernels,
      base = { c, e, m }, features = ds.features, k = opts.k or M.DEFAULTS.k, seed = opts.seed or M.DEFAULTS.seed,
      classifier = opts.classifier or M.DEFAULTS.classifier, groups = groups_of(ds, kernels, opts.groups),
      restarts = opts.restarts or M.DEFAULTS.restarts, max_iter = opts.max_iter or M.DEFAULTS.max_iter,
      epochs = opts.epochs or M.DEFAULTS.epochs, learning_rate = opts.learning_rate or M.DEFAULTS.learning_rate,
      weight_decay = opts.weight_decay or M.DEFAULTS.weight_decay,
      stop_early = opts.stop_early or M.DEFAULTS.stop_early })
    if not part then
      local kernel = ds.kernels[tonumber(train_err:match("kernel (%d+)") or 0)]
      if kernel then -- the core numbers kernels; name it
        train_err = train_err:gsub("kernel %d+", ("kernel '%s'"):format(kernel), 1)
      end
      return nil, train_err
    end
    parts[q] = part
  end
  local model = wrap(parts, quantities)
  model.trained_on = kernels
  return model
end

-- The counters as the model's feature list: a list in feature order, or a
-- table by feature name.  Returns the list or nil and a message.
function Model:counter_list(counters)
  if type(counters) ~= "table" then
    error("surface: counters must be a table (by name, or a list in the model's feature order)", 3)
  end
  if #counters == #self.features then
    return counters
  end
  local list = {}
  for j, f in ipairs(self.features) do
    local v = counters[f]
    if type(v) ~= "number" then
      return nil, ("surface: counter '%s' is %s; the model needs %s"):format(f, v == nil and "missing"
        or ("'" .. tostring(v) .. "'"), table.concat(self.features, ", "))
    end
    list[j] = v
  end
  return list
end

-- Predicts `quantity` (default "time") at target {cus, core_mhz, mem_mhz}
-- from a kernel's counters and its value there at the model's base
-- configuration.  Returns the value (in the base value's unit) or nil and a
-- message (a target off the grid, a missing counter).
function Model:predict(counters, base_value, target, quantity)
  quantity = quantity or "time"
  local part = self.parts[quantity]
  if not part then
    return nil, ("surface: the model has no '%s' part (it has %s)"):format(quantity, table.concat(self.quantities, ", "))
  end
  if type(base_value) ~= "number" or not (base_value > 0) then
    error("surface: predict needs the kernel's positive base value, got " .. tostring(base_value), 2)
  end
  if type(target) ~= "table" then
    error("surface: target must be {cus = ..., core_mhz = ..., mem_mhz = ...}", 2)
  end
  local list, err = self:counter_list(counters)
  if not list then
    return nil, err
  end
  local c, e, m = M.locate(self.grid, target)
  if not c then
    return nil, "surface: target: " .. e
  end
  return part:predict(list, base_value, { c, e, m })
end

-- The clusters the classifiers choose per set for these counters.
function Model:classify(counters, quantity)
  local list, err = self:counter_list(counters)
  if not list then
    return nil, err
  end
  return self.parts[quantity or "time"]:classify(list)
end

-- Evaluates quantity `quantity` on kernels (indices or names) of dataset
-- ds: every other configuration of the grid is a target (Sec. V-A).
-- opts.choice: "classifier" (default: the networks), "oracle" (each
-- training kernel's own k-means clusters, Sec. V-B2) or "nearest" (per set
-- the centroid nearest the kernel's own scaling values: the best any
-- classifier could do, for any kernel).  Returns {mean, max, count,
-- histogram, per_kernel} or nil, message.
function Model:evaluate(ds, kernels, quantity, opts)
  local list, err = kernel_indices(ds, kernels)
  if not list then
    return nil, err
  end
  quantity = quantity or "time"
  local part = self.parts[quantity]
  local qi = ds:quantity_index(quantity)
  if not part or not qi then
    return nil, ("surface: no '%s' in the model or the dataset"):format(quantity)
  end
  return part:evaluate(ds:core(), list, { quantity = qi, choice = opts and opts.choice })
end

-- Per set (CU counts' frequency sets, then the CU set): {k, dim}.
function Model:sets(quantity)
  return self.parts[quantity or "time"]:info().sets
end

-- The file image: every part, versioned and checksummed (model_io.c).
function Model:encode()
  local list = {}
  for i, q in ipairs(self.quantities) do
    list[i] = self.parts[q]
  end
  return core.surface_encode(list)
end

-- Writes the model file through a staged file (a failed write leaves the
-- previous file); opts.inputs: files the command read, never replaced.
-- Returns true, or nil and a message.
function Model:save(path, opts)
  return staging.write(path, self:encode(), opts)
end

-- Reads a model file image; `name` names it in messages.
function M.decode(bytes, name)
  local list, err = core.surface_decode(bytes, name)
  if not list then
    return nil, err
  end
  local parts, order = {}, {}
  for i, part in ipairs(list) do
    local q = part:info().quantity
    if parts[q] then
      return nil, ("%s: two '%s' models in one file"):format(name, q)
    end
    parts[q], order[i] = part, q
  end
  local model = wrap(parts, order)
  for _, q in ipairs(order) do
    local info = parts[q]:info()
    if #info.features ~= #model.features or info.base[1] ~= model.base_index[1] or info.base[2] ~= model.base_index[2]
        or info.base[3] ~= model.base_index[3] then
      return nil, ("%s: its models disagree on the base or the counters"):format(name)
    end
  end
  return model
end

function M.load(path)
  local bytes, err = require("gpush.ml.files").read(path)
  if not bytes then
    return nil, err
  end
  return M.decode(bytes, path)
end

-- The sweep model ------------------------------------------------------------------

-- A kernel "measured" on gpush's simulator at a configuration, as the
-- simulated corpus measures it: time, activity power and Table II counters.
function M.measure_simulated(kernel, cfg)
  local sim = require("gpush.models").family("sim")
  local r, err = sim.run(kernel, cfg, { policy = "lrr" })
  if not r then
    return nil, err
  end
  local counters = require("gpush.ml.counters").table_ii(r, cfg)
  return { time_us = r.time_us, power_w = require("gpush.ml.power").estimate(cfg, r), counters = counters }
end

local DERIVED = {}
for _, d in ipairs(require("gpush.schema").derived) do
  DERIVED[d[1]] = true
end

-- cfg with its CU count and clocks set to `point` ({cus, core_mhz,
-- mem_mhz}), everything else kept.
local function at_point(cfg, point)
  local config = require "gpush.config"
  local overrides = {}
  for path, v in pairs(config.flatten(cfg)) do
    if not DERIVED[path] then
      overrides[path] = v
    end
  end
  overrides["sm.count"], overrides["clock.core_mhz"], overrides["clock.mem_mhz"] = point.cus, point.core_mhz,
    point.mem_mhz
  return config.load(nil, overrides)
end

-- The family's sweep model (gpush.models contract): each kernel is measured
-- once at the model's base configuration (prepare: the sweep's base
-- configuration with the model's CU count and clocks), then every point is
-- predicted from that measurement; a point off the model's grid fails with
-- a message.  opts: model (a trained model or a .gsm path; required),
-- measure (function(kernel, cfg) -> {time_us, power_w, counters}; default
-- M.measure_simulated; a model trained with the CU probe measures each
-- kernel a second time, at the base clocks with the probe's CU count,
-- gpush.ml.probe), name (default "surface").  Columns: time_us,
-- power_w (when the model has power), base_time_us.
function M.new(opts)
  opts = opts or {}
  local model = opts.model
  if type(model) == "string" then
    local loaded, err = M.load(model)
    if not loaded then
      error("gpush.models.surface.new: " .. err, 2)
    end
    model = loaded
  end
  if getmetatable(model) ~= Model then
    error("gpush.models.surface.new: opts.model must be a trained model or a .gsm path "
      .. "(train one with `gpush ml train` or surface.train)", 2)
  end
  local measure = opts.measure or M.measure_simulated
  local columns = { "time_us", "power_w", "base_time_us" }
  return {
    name = opts.name or "surface",
    columns = columns,
    prepare = function(kernel, base_cfg)
      local cfg, err = at_point(base_cfg, model.base)
      if not cfg then
        return nil, err
      end
      local measured, measure_err = measure(kernel, cfg)
      if not measured or not probe.used_by(model.features) then
        return measured, measure_err
      end
      -- a model trained with the CU probe: the second run, its inputs added
      local probe_cus = probe.cus(model.grid.cus, model.base.cus)
      local probe_cfg, probe_cfg_err = at_point(base_cfg, { cus = probe_cus, core_mhz = model.base.core_mhz,
        mem_mhz = model.base.mem_mhz })
      if not probe_cfg then
        return nil, probe_cfg_err
      end
      local second, second_err = measure(kernel, probe_cfg)
      if not second then
        return nil, second_err
      end
      for _, input in ipairs(probe.INPUTS) do
        local column = input.quantity == "time" and "time_us" or "power_w"
        if measured[column] and second[column] then
          measured.counters[input.name] = probe.value(input, model.base.cus, probe_cus, measured[column],
            second[column])
        end
      end
      return measured
    end,
    run = function(_, cfg, measured)
      local target = { cus = cfg.sm.count, core_mhz = cfg.clock.core_mhz, mem_mhz = cfg.clock.mem_mhz }
      local row = { base_time_us = measured.time_us }
      for _, q in ipairs(model.quantities) do
        local column = q == "time" and "time_us" or "power_w"
        local v, err = model:predict(measured.counters, measured[column], target, q)
        if not v then
          return nil, err
        end
        row[column] = v
      end
      return row
    end,
  }
end

return M
