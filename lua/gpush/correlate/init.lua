-- gpush.correlate: models against measured cycles (docs/correlate.md).
--
--   local correlate = require "gpush.correlate"
--   local result = assert(correlate.run {
--     measured = "empty-kernels.csv", config = "h100-pcie",
--     models = { "sim-gto", "gpumech-gto" },            -- the sweep tables' names
--     fit = { "launch.kernel_cycles" },                 -- optional
--     validate = "other.csv",                           -- optional, with fit
--   })
--   result.summary["sim-gto"].mean_abs_error, result.fit.parameters[1].value
--
-- Every row of the measured CSV (gpush.correlate.measured) is predicted by
-- every model on the configuration (the preset, then -p overrides, then
-- the row's clocks); its error is (predicted - measured) / measured, and
-- each model is summarised over the rows (gpush.correlate.metrics).  A fit
-- (gpush.correlate.fit) moves the named schema parameters within their
-- schema ranges to minimise the squared relative errors of every model on
-- every row together, one value per parameter for all models (what a
-- preset holds), and reports a standard error per value; validation
-- predicts other rows with the starting and the fitted configuration.
-- Outputs are written by gpush.report.correlate.
local config = require "gpush.config"
local core = require "gpush.core"
local fit = require "gpush.correlate.fit"
local kernels = require "gpush.correlate.kernels"
local measured = require "gpush.correlate.measured"
local metrics = require "gpush.correlate.metrics"
local models = require "gpush.models"
local parallel = require "gpush.parallel"
local text = require "gpush.text"

local M = {}

M.DEFAULT_MODELS = { "sim-gto", "gpumech-gto" }

-- The option sets of the families whose models predict a kernel's cycles;
-- M.model builds each and keeps the one whose `name` (its column in the
-- sweep tables) is the one asked for, so the names stay the families' own.
local CANDIDATES = {
  { "sim", { { policy = "lrr" }, { policy = "gto" }, { policy = "two-level" } } },
  { "gpumech", { { policy = "rr" }, { policy = "gto" }, { policy = "rr", equations = "paper" },
    { policy = "gto", equations = "paper" } } },
  { "mcore", { {}, { base = "mwp_cwp" } } },
  { "bounds", { {} } },
}

-- The names M.model knows, in the order above.
function M.model_names()
  local names = {}
  for _, c in ipairs(CANDIDATES) do
    for _, opts in ipairs(c[2]) do
      names[#names + 1] = models.get(c[1], opts).name
    end
  end
  return names
end

-- The model whose sweep-table name is `name` (sim-gto, gpumech-rr, mcore,
-- ...; a family registered with models.register and taking no options, by
-- its own name), or nil and a message listing the known names.
function M.model(name)
  for _, c in ipairs(CANDIDATES) do
    for _, opts in ipairs(c[2]) do
      local m = models.get(c[1], opts)
      if m.name == name then
        return m
      end
    end
  end
  local family = models.family(name)
  if family then
    local ok, m = pcall(models.get, name)
    if ok and m.name == name then
      return m
    end
  end
  local known = M.model_names()
  local guess = text.closest(name, known)
  return nil, ("unknown model '%s'%s: expected one of %s"):format(name,
    guess and (" (did you mean '" .. guess .. "'?)") or "", table.concat(known, ", "))
end

local Correlator = {}
Correlator.__index = Correlator

-- A correlator over a configuration: opts.config (a preset name or YAML
-- path), opts.overrides ({"key=value", ...}), opts.models (names; default
-- M.DEFAULT_MODELS), opts.keep (hold every row's kernel between
-- predictions: what a fit needs), opts.jobs (worker processes for a fit's
-- evaluations: default 1, 0 every core), opts.seed (1), opts.progress (a
-- function called with a line of text on long runs).  Returns it or nil,
-- message.
function M.new(opts)
  opts = opts or {}
  local list = {}
  for i, name in ipairs(opts.models or M.DEFAULT_MODELS) do
    local m, err = M.model(name)
    if not m then
      return nil, err
    end
    for j = 1, i - 1 do
      if list[j].name == name then
        return nil, ("model '%s' is named twice"):format(name)
      end
    end
    list[i] = m
  end
  if #list == 0 then
    return nil, "no model to correlate: give at least one"
  end
  local base, err = config.load(opts.config, opts.overrides)
  if not base then
    return nil, err
  end
  local jobs = opts.jobs or 1
  if math.type(jobs) ~= "integer" or jobs < 0 then
    return nil, ("jobs must be a whole number of worker processes (0: every core), got %s"):format(tostring(jobs))
  end
  if jobs == 0 then
    jobs = core.proc_cpus()
  end
  return setmetatable({ config_name = opts.config, overrides = opts.overrides or {}, models = list, base = base,
    keep = opts.keep, jobs = jobs, seed = opts.seed or 1, progress = opts.progress or function() end, state = {} },
    Correlator)
end

-- The configuration of a row with `values` ({path = value}) applied last:
-- preset, -p overrides, the row's clocks, the values.  Returns it or nil,
-- "FILE:LINE: message".
function Correlator:config_for(set, row, values)
  for _, clock in ipairs({ { "core_mhz", "clock.core_mhz" }, { "mem_mhz", "clock.mem_mhz" } }) do
    local column, path = clock[1], clock[2]
    local decl, v = config.declaration(path), row[column]
    if v and (v < decl.min or v > decl.max) then
      return nil, ("%s:%d: column '%s': expected a clock from %g to %g MHz (the range of %s), got %s"):format(
        set.file, row.line, column, decl.min, decl.max, path, row.cells[column])
    end
  end
  local overrides = { table.unpack(self.overrides) }
  overrides["clock.core_mhz"] = row.core_mhz
  overrides["clock.mem_mhz"] = row.mem_mhz
  for k, v in pairs(values or {}) do
    overrides[k] = v
  end
  local cfg, err = config.load(self.config_name, overrides)
  if not cfg then
    return nil, ("%s:%d: %s"):format(set.file, row.line, err)
  end
  return cfg
end

-- Reads a measured CSV and finds what every row ran (and its configuration
-- loads); returns the set or nil and every problem found, one per line.
function Correlator:load(path)
  local set, err = measured.read(path)
  if not set then
    return nil, err
  end
  local problems = {}
  for _, row in ipairs(set.rows) do
    local src, src_err = kernels.source(row, set)
    if src then
      row.source = src
      local _, cfg_err = self:config_for(set, row)
      problems[#problems + 1] = cfg_err
    else
      problems[#problems + 1] = src_err
    end
  end
  if #problems > 0 then
    return nil, table.concat(problems, "\n")
  end
  return set
end

-- A row's kernel and its per-kernel state (the models' shared cache, each
-- model's preparation on the row's starting configuration); built on first
-- use and kept when self.keep.
function Correlator:row_state(set, row)
  local st = self.state[row]
  if st then
    return st
  end
  local kernel, err = row.source.load()
  if not kernel then
    return nil, ("%s:%d: %s: %s"):format(set.file, row.line, row.source.what, tostring(err))
  end
  st = { kernel = kernel, cache = {}, prepared = {} }
  local base, cfg_err = self:config_for(set, row)
  if not base then
    kernel:close()
    return nil, cfg_err
  end
  local ctx = { seed = self.seed, workload = row.source.what, kernel = row.source.name, launch = row.launch or 1 }
  st.ctx = ctx
  for _, m in ipairs(self.models) do
    if m.prepare then
      local ok, prepared, prep_err = pcall(m.prepare, kernel, base, st.cache, ctx)
      if not ok or (prepared == nil and prep_err) then
        kernel:close()
        return nil, ("%s:%d: model %s: %s"):format(set.file, row.line, m.name, tostring(ok and prep_err or prepared))
      end
      st.prepared[m.name] = prepared
    end
  end
  if self.keep then
    self.state[row] = st
  end
  return st
end

-- Releases the kernels held.
function Correlator:release()
  for _, st in pairs(self.state) do
    st.kernel:close()
  end
  self.state = {}
end

-- Every model's cycles for one row with `values` applied: a table {model
-- name = cycles} and a table {model name = message} of the models that
-- failed; or nil, message when the row cannot be set up.
function Correlator:predict_row(set, row, values)
  local cfg, cfg_err = self:config_for(set, row, values)
  if not cfg then
    return nil, cfg_err
  end
  local st, err = self:row_state(set, row)
  if not st then
    return nil, err
  end
  local cycles, failed = {}, {}
  for _, m in ipairs(self.models) do
    local ok, r, run_err = pcall(m.run, st.kernel, cfg, st.prepared[m.name], st.cache, st.ctx)
    if ok and r and type(r.cycles) == "number" and r.cycles == r.cycles and r.cycles > 0 then
      cycles[m.name] = r.cycles
    else
      local why = not ok and r or run_err or (r and ("cycles %s"):format(tostring(r.cycles))) or "no result"
      failed[m.name] = ("%s:%d: model %s: %s"):format(set.file, row.line, m.name, tostring(why))
    end
  end
  if not self.keep then
    st.kernel:close()
  end
  return cycles, failed
end

-- Whether every row of `set` has its kernel held (a fit's evaluations
-- after the first prediction): then the rows may be predicted on forked
-- workers, which see the held kernels and preparations.
function Correlator:all_held(set)
  for _, row in ipairs(set.rows) do
    if not self.state[row] then
      return false
    end
  end
  return true
end

-- Predictions for every row of `set` with `values`: a list (row order) of
-- {cycles = {...}, failed = {...}}, or nil, message.  With self.jobs > 1
-- and every kernel held, the rows are shared among that many forked
-- workers (gpush.parallel.map: the same values as one process, bit for
-- bit, since every value passes through the same JSON encoding).
function Correlator:predict(set, values)
  if self.jobs > 1 and #set.rows > 1 and self:all_held(set) then
    local ok, out = pcall(parallel.map, #set.rows, function(i)
      local cycles, failed = self:predict_row(set, set.rows[i], values)
      if not cycles then
        error(failed, 0)
      end
      return { cycles = cycles, failed = failed }
    end, { jobs = self.jobs, quiet = true, label = "correlate" })
    if not ok then
      return nil, (tostring(out):gsub("^correlate: item %d+: ", ""))
    end
    return out
  end
  local out = {}
  for i, row in ipairs(set.rows) do
    local cycles, failed = self:predict_row(set, row, values)
    if not cycles then
      return nil, failed
    end
    out[i] = { cycles = cycles, failed = failed }
  end
  return out
end

-- The summary of each model over predictions `preds` of `set` (rows a
-- model failed on left out).
function Correlator:summaries(set, preds)
  local out = {}
  for _, m in ipairs(self.models) do
    local pairs_list = {}
    for i, row in ipairs(set.rows) do
      local c = preds[i].cycles[m.name]
      if c then
        pairs_list[#pairs_list + 1] = { row.cycles, c }
      end
    end
    out[m.name] = metrics.summary(pairs_list)
  end
  return out
end

-- Checks the names of the parameters to fit against the schema and the
-- rows of `sets`; returns the list of {name, unit, min, max, start} or nil,
-- message.
function Correlator:fit_parameters(names, sets)
  local out, seen = {}, {}
  local flat = config.flatten(self.base)
  local sets_clock = {}
  for _, set in ipairs(sets) do
    for _, row in ipairs(set.rows) do
      sets_clock.core = sets_clock.core or (row.core_mhz and set.file)
      sets_clock.mem = sets_clock.mem or (row.mem_mhz and set.file)
    end
  end
  for _, name in ipairs(names) do
    local decl = config.declaration(name)
    if not decl then
      local guess = text.closest(name, config.paths())
      return nil, ("--fit %s: no such parameter%s (gpush config describe lists them)"):format(name,
        guess and (" (did you mean '" .. guess .. "'?)") or "")
    end
    if seen[name] then
      return nil, ("--fit %s: named twice"):format(name)
    end
    seen[name] = true
    if decl[2] ~= "number" then
      return nil, ("--fit %s: a parameter of type %s; the fit moves continuous (number) parameters only")
        :format(name, decl[2])
    end
    if decl.compute and not decl.solve then
      return nil, ("--fit %s: a derived value that cannot be set (%s)"):format(name, decl.desc)
    end
    if (name == "clock.core_mhz" and sets_clock.core) then
      return nil, ("--fit %s: the rows of %s give their own core_mhz"):format(name, sets_clock.core)
    end
    if (name == "clock.mem_mhz" or decl.solves == "clock.mem_mhz") and sets_clock.mem then
      return nil, ("--fit %s: the rows of %s give their own mem_mhz, which %s would replace"):format(name,
        sets_clock.mem, name)
    end
    out[#out + 1] = { name = name, unit = decl.unit, min = decl.min, max = decl.max, start = flat[name],
      desc = decl.desc }
  end
  if #out == 0 then
    return nil, "--fit: name at least one parameter"
  end
  return out
end

-- Fits `params` (from fit_parameters) to the rows of `set`; returns the
-- fit's table (gpush.correlate.fit's result plus `parameters`: each with
-- value, stderr, at_bound; `values`: {name = value}) or nil, message.
function Correlator:fit(set, params, opts)
  opts = opts or {}
  local start, lower, upper, names = {}, {}, {}, {}
  for j, p in ipairs(params) do
    start[j], lower[j], upper[j], names[j] = p.start, p.min, p.max, p.name
  end
  local function values_of(theta)
    local v = {}
    for j, p in ipairs(params) do
      v[p.name] = theta[j]
    end
    return v
  end
  local function residuals(theta)
    local preds, err = self:predict(set, values_of(theta))
    if not preds then
      return nil, err
    end
    local r = {}
    for i, row in ipairs(set.rows) do
      for _, m in ipairs(self.models) do
        local c = preds[i].cycles[m.name]
        if not c then
          local parts = {}
          for j, p in ipairs(params) do
            parts[j] = ("%s=%.6g"):format(p.name, theta[j])
          end
          return nil, ("%s (at %s)"):format(preds[i].failed[m.name], table.concat(parts, ", "))
        end
        r[#r + 1] = metrics.error(row.cycles, c)
      end
    end
    return r
  end
  local progress = self.progress
  local result, err = fit.least_squares(residuals, start, lower, upper, { names = names,
    max_iterations = opts.max_iterations, on_iteration = function(info)
      local parts = {}
      for j, p in ipairs(params) do
        parts[j] = ("%s=%.6g"):format(p.name, info.theta[j])
      end
      progress(("fit iteration %d: rms relative error %.4g, %s"):format(info.iteration,
        math.sqrt(2 * info.cost / math.max(1, #set.rows * #self.models)), table.concat(parts, ", ")))
    end })
  if not result then
    return nil, "--fit: " .. err
  end
  result.parameters = {}
  for j, p in ipairs(params) do
    result.parameters[j] = { name = p.name, unit = p.unit, min = p.min, max = p.max, start = p.start,
      value = result.theta[j], stderr = result.stderr[j], at_bound = result.at_bound[j], desc = p.desc }
  end
  result.values = values_of(result.theta)
  result.residual_count = #result.residuals
  return result
end

-- The rows of `set` with their predictions (`key`: predicted or fitted)
-- and errors merged into `rows` (created when nil), labelled `kind`.
local function merge_rows(rows, set, preds, key, kind)
  rows = rows or {}
  for i, row in ipairs(set.rows) do
    local entry = rows[i]
    if not entry then
      entry = { set = kind, file = set.file, line = row.line, row = row, what = row.source.what,
        name = row.source.name, failed = {} }
      rows[i] = entry
    end
    entry[key], entry[key .. "_error"] = {}, {}
    for name, c in pairs(preds[i].cycles) do
      entry[key][name] = c
      entry[key .. "_error"][name] = metrics.error(row.cycles, c)
    end
    for name, msg in pairs(preds[i].failed) do
      entry.failed[name] = msg
    end
  end
  return rows
end

-- The whole command: reads opts.measured, predicts it, fits opts.fit (a
-- list of parameter names) when given, predicts opts.validate (a second
-- CSV; with a fit) with the starting and the fitted configuration.  opts:
-- config, overrides, models, jobs, seed, progress, max_iterations.  Returns the
-- result (see the header) or nil, message.
function M.run(opts)
  if opts.validate and not opts.fit then
    return nil, "--validate needs --fit: it judges fitted values on rows they were not fitted on"
  end
  local c, err = M.new { config = opts.config, overrides = opts.overrides, models = opts.models,
    keep = opts.fit ~= nil, jobs = opts.jobs, seed = opts.seed, progress = opts.progress }
  if not c then
    return nil, err
  end
  local set, load_err = c:load(opts.measured)
  if not set then
    return nil, load_err
  end
  local other
  if opts.validate then
    other, load_err = c:load(opts.validate)
    if not other then
      return nil, load_err
    end
  end
  local result = { config = opts.config, overrides = opts.overrides or {}, measured = set, validate = other,
    models = {}, config_name = c.base._name }
  for i, m in ipairs(c.models) do
    result.models[i] = m.name
  end
  c.progress(("predicting %d rows of %s with %s"):format(#set.rows, set.file, table.concat(result.models, ", ")))
  local preds, pred_err = c:predict(set)
  if not preds then
    c:release()
    return nil, pred_err
  end
  result.summary = c:summaries(set, preds)
  result.rows = merge_rows(nil, set, preds, "predicted", opts.fit and "fit" or "measured")
  if opts.fit then
    local params, perr = c:fit_parameters(opts.fit, { set, other })
    if not params then
      c:release()
      return nil, perr
    end
    for _, r in ipairs(result.rows) do
      for _, name in ipairs(result.models) do
        if r.failed[name] then
          c:release()
          return nil, "--fit: a model fails on a row at the starting values: " .. r.failed[name]
        end
      end
    end
    c.progress(("fitting %s to %d rows x %d models"):format(table.concat(opts.fit, ", "), #set.rows, #c.models))
    local f, fit_err = c:fit(set, params, { max_iterations = opts.max_iterations })
    if not f then
      c:release()
      return nil, fit_err
    end
    local fitted = assert(c:predict(set, f.values))
    f.summary = c:summaries(set, fitted)
    merge_rows(result.rows, set, fitted, "fitted")
    result.fit = f
    if other then
      c:release()
      c.progress(("validating on %d rows of %s"):format(#other.rows, other.file))
      local before, verr = c:predict(other)
      local after = before and select(1, c:predict(other, f.values))
      if not before or not after then
        c:release()
        return nil, verr or "validation failed"
      end
      local vrows = merge_rows(nil, other, before, "predicted", "validate")
      merge_rows(vrows, other, after, "fitted")
      for _, r in ipairs(vrows) do
        result.rows[#result.rows + 1] = r
      end
      result.validation = { file = other.file, rows = #other.rows, summary_before = c:summaries(other, before),
        summary = c:summaries(other, after) }
    end
  end
  c:release()
  return result
end

return M
