-- gpush.experiment: design sweeps over configurations, workloads and models,
-- run in-process or on local worker processes, sliced into shards for
-- clusters, with results and provenance in CSV, JSON and Markdown.
--
--   local experiment = require "gpush.experiment"
--   local sweep = experiment.new {
--     name = "mysweep",
--     base = { preset = "gtx660ti", overrides = { "clock.core_mhz=1100" } },
--     parameters = {                               -- cartesian product, first outermost
--       { path = "sm.max_warps", values = { 16, 32, 64 }, column = "warps_per_sm" },
--       { path = "l1.mshrs", values = { 16, 64 } },
--     },                                           -- or points = { {["l1.mshrs"] = 8}, ... }
--     workloads = { "suite" },                     -- trace paths, "suite", "suite:NAME", "variants", "variants:NAME",
--                                                  -- or {label = ..., descs = {...}} (generated kernels)
--     models = { models.get("gpumech", { policy = "rr" }), models.get("gpumech", { policy = "gto" }) },
--     seed = 1,
--     sample = true,                               -- optional: long launches from their first waves
--   }                                              -- (gpush.sampling; run opts.sample overrides)
--   local results = assert(experiment.run(sweep, { jobs = 2 }))
--   results:write_csv("out.csv")
--
-- `models` is a list of models following the contract of gpush.models
-- (name, run, optional prepare and columns): models.get(NAME, opts) for a
-- registered family, or any table that follows it.
--
-- Tasks are (kernel, model, point) in that nesting order, numbered 1..T; the
-- rows come out in task order whatever runs them.  A shard i/N takes the
-- i-th of N contiguous runs of tasks; --jobs J forks J workers, which take
-- a run's kernels (each kernel's tasks, cut smaller when there are few) one
-- at a time as they come free and stream each finished row back to the
-- parent as one JSON line, so the parent holds every finished row at any
-- moment.
-- Every row passes through that encoding, in-process too, so --jobs J and
-- --jobs 1 give the same bytes.
local config = require "gpush.config"
local core = require "gpush.core"
local csv = require "gpush.csv"
local json = require "gpush.json"
local memsim = require "gpush.memsim"
local models = require "gpush.models"
local parallel = require "gpush.parallel"
local outputs = require "gpush.sweep_outputs"
local progress = require "gpush.progress"
local results = require "gpush.results"
local roofline = require "gpush.roofline"
local sampling = require "gpush.sampling"
local scenario_args = require "gpush.scenario_args"
local staging = require "gpush.staging"
local summary = require "gpush.report.summary"
local sweep_merge = require "gpush.sweep_merge"
local trace = require "gpush.trace"
local workloads = require "gpush.workloads"

local M = {}

M.EXIT_FAILED = 1
M.EXIT_USAGE = 2
M.EXIT_INTERRUPTED = 130 -- 128 + SIGINT, as shells report Ctrl-C
M.EXIT_TERMINATED = 143 -- 128 + SIGTERM

-- Columns every row starts with, and the provenance ones it ends with.
M.KEY_COLUMNS = outputs.KEY_COLUMNS
M.STAMP_COLUMNS = outputs.STAMP_COLUMNS

-- The parts that live in their own modules, under the names scripts use:
-- experiment.progress(total, opts) (gpush.progress), write_outputs(res,
-- dir, opts) and shard_path (gpush.sweep_outputs), merge (gpush.sweep_merge),
-- tasks_ran (gpush.report.summary).
M.progress = progress.new
M.write_outputs = outputs.write
M.shard_path = outputs.shard_path
M.merge = sweep_merge.merge
M.tasks_ran = summary.tasks_ran

local Sweep = {}
Sweep.__index = Sweep

-- Definition -------------------------------------------------------------------------

local function fail(message, level)
  error("gpush.experiment: " .. message, level + 1)
end

local function check_parameter(p, i)
  if type(p) ~= "table" then
    fail(("parameters[%d] must be a table {path = ..., values = {...}}"):format(i), 4)
  end
  local path, values = p.path or p[1], p.values or p[2]
  if type(path) ~= "string" or not config.declaration(path) then
    fail(("parameters[%d]: '%s' is not a configuration parameter (see gpush config describe)")
      :format(i, tostring(path)), 4)
  end
  if values ~= nil and (type(values) ~= "table" or #values == 0) then
    fail(("parameters[%d] (%s): values must be a non-empty list"):format(i, path), 4)
  end
  return { path = path, values = values, column = p.column or path }
end

-- The points: the cartesian product of the parameters' values (the first
-- parameter varies slowest), or the explicit list.
local function expand_points(parameters, explicit)
  local points = {}
  if explicit then
    for i, given in ipairs(explicit) do
      local values = {}
      for path, v in pairs(given) do
        local known = false
        for _, p in ipairs(parameters) do
          if p.path == path then
            values[p.column], known = v, true
          end
        end
        if not known then
          fail(("points[%d]: '%s' is not among the parameters"):format(i, tostring(path)), 4)
        end
      end
      points[i] = values
    end
    return points
  end
  local function extend(depth, values)
    if depth > #parameters then
      local copy = {}
      for k, v in pairs(values) do
        copy[k] = v
      end
      points[#points + 1] = copy
      return
    end
    local p = parameters[depth]
    for _, v in ipairs(p.values) do
      values[p.column] = v
      extend(depth + 1, values)
    end
    values[p.column] = nil
  end
  extend(1, {})
  return points
end

-- Parameters of an explicit point list without declared parameters: every
-- path any point sets, sorted.
local function parameters_of_points(points)
  local seen, list = {}, {}
  for _, point in ipairs(points) do
    for path in pairs(point) do
      if not seen[path] then
        seen[path] = true
        list[#list + 1] = { path = path }
      end
    end
  end
  table.sort(list, function(a, b) return a.path < b.path end)
  return list
end

local function check_models(list)
  if type(list) ~= "table" or #list == 0 then
    fail("models must be a non-empty list of {name = ..., run = function ...}", 4)
  end
  local names = {}
  for i, m in ipairs(list) do
    local ok, problem = models.check(m, ("models[%d]"):format(i))
    if not ok then
      fail(problem, 4)
    end
    if names[m.name] then
      fail(("two models are named '%s'"):format(m.name), 4)
    end
    names[m.name] = true
  end
end

-- Validates a sweep definition (see the header); raises on misuse.
function M.new(def)
  if type(def) ~= "table" then
    fail("expected a sweep definition table, got " .. type(def), 2)
  end
  if type(def.name) ~= "string" or not def.name:match("^[%w_%-]+$") then
    fail("name must be a word (letters, digits, _ and -), used in file names", 2)
  end
  local base = def.base
  if type(base) == "string" then
    base = { preset = base }
  end
  if type(base) ~= "table" or type(base.preset) ~= "string" then
    fail("base must be a preset name or {preset = NAME, overrides = {...}}", 2)
  end
  local overrides = {}
  for i, o in ipairs(base.overrides or {}) do
    if type(o) ~= "string" then
      fail(("base.overrides[%d] must be a 'key=value' string"):format(i), 2)
    end
    overrides[i] = o
  end
  local raw_parameters = def.parameters
  if raw_parameters == nil and def.points then
    raw_parameters = parameters_of_points(def.points)
  end
  if type(raw_parameters) ~= "table" then
    fail("give parameters (a list of {path, values}) or points (a list of {path = value})", 2)
  end
  local parameters = {}
  for i, p in ipairs(raw_parameters) do
    parameters[i] = check_parameter(p, i)
    if not def.points and not parameters[i].values then
      fail(("parameters[%d] (%s) has no values and no points are given"):format(i, parameters[i].path), 2)
    end
  end
  local wl = def.workloads
  if type(wl) == "string" then
    wl = { wl }
  end
  if type(wl) ~= "table" or #wl == 0 then
    fail("workloads must be a non-empty list of trace paths, 'suite', 'suite:NAME', 'variants', 'variants:NAME' or {label, descs}", 2)
  end
  for i, w in ipairs(wl) do
    if type(w) == "table" and (type(w.label) ~= "string" or type(w.descs) ~= "table" or #w.descs == 0) then
      fail(("workloads[%d]: a generated workload is {label = NAME, descs = {workload descriptions}}"):format(i), 2)
    elseif type(w) ~= "table" and type(w) ~= "string" then
      fail(("workloads[%d] must be a string or {label, descs}"):format(i), 2)
    end
  end
  check_models(def.models)
  local seed = def.seed or 1
  if math.type(seed) ~= "integer" then
    fail("seed must be an integer", 2)
  end
  local sweep = setmetatable({
    name = def.name, title = def.title or def.name,
    preset = base.preset, overrides = overrides,
    parameters = parameters, workloads = { table.unpack(wl) }, models = { table.unpack(def.models) },
    seed = seed, summary = def.summary, reports = def.reports or {}, source = def.source,
    notes = def.provenance, sample = def.sample == true or nil,
  }, Sweep)
  sweep.points = expand_points(parameters, def.points)
  if #sweep.points == 0 then
    fail("the sweep has no points", 2)
  end
  return sweep
end

-- The overrides of one point, after the base overrides (a point wins).
function Sweep:point_overrides(point)
  local list = { table.unpack(self.overrides) }
  for _, p in ipairs(self.parameters) do
    if point[p.column] ~= nil then
      list[#list + 1] = p.path .. "=" .. csv.text(point[p.column])
    end
  end
  return list
end

-- "warps_per_sm=8 mshrs=16" for messages.
function Sweep:point_text(point)
  local parts = {}
  for _, p in ipairs(self.parameters) do
    if point[p.column] ~= nil then
      parts[#parts + 1] = p.column .. "=" .. csv.text(point[p.column])
    end
  end
  return table.concat(parts, " ")
end

-- The serializable description stored in every output (and what merge and
-- the reports read back).
function Sweep:describe()
  local parameters, model_names = {}, {}
  for i, p in ipairs(self.parameters) do
    parameters[i] = { path = p.path, column = p.column, values = p.values }
  end
  for i, m in ipairs(self.models) do
    model_names[i] = m.name
  end
  local model_columns = json.object()
  for _, m in ipairs(self.models) do
    model_columns[m.name] = m.columns or {}
  end
  local points = {}
  for i, point in ipairs(self.points) do
    points[i] = json.object(point)
  end
  local workload_texts = {}
  for i, w in ipairs(self.workloads) do
    workload_texts[i] = M.workload_text(w)
  end
  return {
    name = self.name, title = self.title, preset = self.preset, overrides = self.overrides,
    parameters = parameters, points = points, workloads = workload_texts, models = model_names,
    model_columns = model_columns,
    seed = self.seed, summary = self.summary, reports = self.reports, sample = self.sample,
    source_digest = self:source_digest(),
  }
end

-- The digest of the defining script's text, when the sweep names one.
function Sweep:source_digest()
  if not self.source then
    return nil
  end
  local f = io.open(self.source, "rb")
  if not f then
    return nil
  end
  local text = f:read("a")
  f:close()
  return core.digest(text)
end

-- The sweep's identity: a digest of its description (definition,
-- parameters and points, workloads, models, seed, script) and the gpush
-- version.  Shards merge only when their identities agree.
function Sweep:identity()
  local d = self:describe()
  d.gpush = core.version()
  return core.digest(json.encode(d))
end

-- Workloads -------------------------------------------------------------------------

-- A workload as text: a string as given; generated kernels as their label,
-- count and a hash of their descriptions (so the sweep's identity changes
-- with any of them).
function M.workload_text(w)
  if type(w) == "string" then
    return w
  end
  local hashes = {}
  for i, desc in ipairs(w.descs) do
    hashes[i] = workloads.hash(desc)
  end
  return ("%s (%d generated kernels, %s)"):format(w.label, #w.descs, core.digest(table.concat(hashes, ",")))
end

-- Tasks -----------------------------------------------------------------------------

local decode_task = outputs.decode_task
M.slice = outputs.slice

-- Flattens nested result tables into "outer.inner" keys and checks values.
local function flatten(result, prefix, out)
  for k, v in pairs(result) do
    local key = prefix .. tostring(k)
    if type(v) == "table" then
      flatten(v, key .. ".", out)
    elseif type(v) == "number" then
      if v ~= v or v == math.huge or v == -math.huge then
        return nil, ("result field '%s' is %s"):format(key, tostring(v))
      end
      out[key] = v
    elseif type(v) == "string" or type(v) == "boolean" then
      out[key] = v
    else
      return nil, ("result field '%s' is a %s (numbers, strings and booleans only)"):format(key, type(v))
    end
  end
  return out
end

-- Calls f in protected mode; a failure is a raise or nil, message.
local function attempt(f, ...)
  local ok, value, message = pcall(f, ...)
  if not ok then
    return false, tostring(value)
  end
  if value == nil and message ~= nil then
    return false, tostring(message)
  end
  return true, value
end

-- The reports' per-kernel facts (docs/experiments.md, "Reports"): kernel
-- k's profile at the baseline point (gpush.roofline.kernel_profile: FLOPs
-- by precision, bytes at L1, L2 and DRAM), computed once in the whole run,
-- by whoever runs the kernel's first task, and sent as a record of its own.
-- A kernel whose profile fails is left out (the roofline names it).  Its
-- memory replay goes into the kernel's cache first, timed apart (`spent`:
-- { s, replay_s, n }), as GPUMech's preparation reuses it when the baseline
-- is the base point (the main job's).
local function emit_profile(plan, k, entry, kernel, cache, emit, spent)
  local started = os.clock()
  pcall(memsim.functional_cached, kernel, plan.profile_config, cache)
  local replayed = os.clock()
  local ok, profile = pcall(roofline.kernel_profile, kernel, plan.profile_config, cache)
  spent.s, spent.replay_s, spent.n = spent.s + os.clock() - started, spent.replay_s + replayed - started, spent.n + 1
  if ok and profile then
    profile.kernel_index, profile.workload, profile.kernel, profile.launch = k, entry.workload, entry.kernel,
      entry.launch
    emit(json.encode { profile = json.object(profile) })
  end
end

-- Adds `seconds` to the part named `name` of a preparation's cost (a list
-- of { name, s }, in the order the parts were first named).
local function add_part(parts, name, seconds)
  for _, part in ipairs(parts) do
    if part.name == name then
      part.s = part.s + seconds
      return
    end
  end
  parts[#parts + 1] = { name = name, s = seconds }
end

-- A runner of tasks for one process: run(first, last) runs those tasks
-- and hands each record (a JSON line) to emit, stopping early when
-- should_stop() is true; the kernel of the last task stays loaded and
-- prepared for the next call (a worker takes several units of one kernel
-- in a row), finish() closes it.  `plan` holds the resolved sweep.
local function runner(plan, emit, should_stop)
  local sweep = plan.sweep
  local n_models, n_points = #sweep.models, #sweep.points
  local load = trace.loader()
  local current, kernel, kernel_err, digest, cache, prepared
  local r = {}
  -- each model's CPU seconds in this process: its per-kernel preparation
  -- (and the parts of it the model names through ctx.spend) and its runs
  -- (one a point), sent to the parent at finish (M.costs)
  local cost = {}
  for m = 1, n_models do
    cost[m] = { model = sweep.models[m].name, prepare_s = 0, prepares = 0, run_s = 0, runs = 0, parts = {} }
  end
  -- and the reports' kernel profiles (emit_profile)
  local profiles = { s = 0, replay_s = 0, n = 0 }

  local function drop_kernel()
    if kernel then
      sampling.release(cache)
      kernel:close() -- one launch in memory at a time
    end
    kernel = nil
  end

  function r.run(first, last)
    for t = first, last do
      if should_stop() then
        return
      end
      local k, m, p = decode_task(t, n_models, n_points)
      local entry, model, point = plan.kernels[k], sweep.models[m], sweep.points[p]
      if k ~= current then
        drop_kernel()
        current, cache, prepared = k, {}, {}
        local ok, loaded, err = pcall(load, entry)
        kernel, kernel_err = ok and loaded or nil, ok and err or loaded
        digest = kernel and core.kernel_digest(kernel)
      end
      local ctx = { seed = sweep.seed, workload = entry.workload, kernel = entry.kernel, launch = entry.launch,
        sample = sweep.sample, check_sample = sweep.sample and p == plan.baseline }
      if kernel and plan.profile_config and t == (k - 1) * n_models * n_points + 1 then
        emit_profile(plan, k, entry, kernel, cache, emit, profiles)
      end
      local message
      local cfg = plan.configs[p]
      if not kernel then
        message = "cannot load the kernel: " .. tostring(kernel_err)
      elseif not cfg then
        message = plan.config_errors[p]
      else
        if prepared[m] == nil then
          if model.prepare then
            ctx.spend = function(part, seconds)
              add_part(cost[m].parts, part, seconds)
            end
            local started = os.clock()
            local ok, value = attempt(model.prepare, kernel, plan.base, cache, ctx)
            ctx.spend = nil
            cost[m].prepare_s, cost[m].prepares = cost[m].prepare_s + os.clock() - started, cost[m].prepares + 1
            prepared[m] = { ok = ok, value = value }
          else
            prepared[m] = { ok = true }
          end
        end
        if not prepared[m].ok then
          message = "prepare: " .. prepared[m].value
        else
          local started = os.clock()
          local ok, value = attempt(model.run, kernel, cfg, prepared[m].value, cache, ctx)
          cost[m].run_s, cost[m].runs = cost[m].run_s + os.clock() - started, cost[m].runs + 1
          if not ok then
            message = value
          elseif type(value) ~= "table" then
            message = ("run returned a %s, expected a result table"):format(type(value))
          else
            local row, flat_err = flatten(value, "", {})
            if not row then
              message = flat_err
            else
              row.workload, row.kernel, row.launch, row.model = entry.workload, entry.kernel, entry.launch, model.name
              for column, v in pairs(point) do
                row[column] = v
              end
              row.config_hash, row.trace_hash = plan.config_hashes[p], digest
              emit(json.encode { task = t, row = row })
            end
          end
        end
      end
      if message then
        local params = json.object()
        for column, v in pairs(point) do
          params[column] = v
        end
        emit(json.encode { task = t, failure = { workload = entry.workload, kernel = entry.kernel,
          launch = entry.launch, model = model.name, params = params, cause = message,
          message = ("%s [%s] at %s: %s"):format(entry.kernel, model.name, sweep:point_text(point), message) } })
      end
    end
  end

  function r.finish()
    drop_kernel()
    current = nil
    emit(json.encode { cost = cost, profiles = profiles })
  end
  return r
end

-- The units of work of tasks first..last for `jobs` workers: each kernel's
-- run of tasks (every model and point of it), so that a worker loads and
-- prepares a kernel once; when there are fewer than four units a worker,
-- each kernel's run is cut into as many contiguous pieces as make four.
-- Units are taken in order by whichever worker is free (a shared counter).
local function units_of(plan, first, last, jobs)
  local per_kernel = #plan.sweep.models * #plan.sweep.points
  local runs = {}
  for k = 1, #plan.kernels do
    local lo, hi = math.max(first, (k - 1) * per_kernel + 1), math.min(last, k * per_kernel)
    if lo <= hi then
      runs[#runs + 1] = { first = lo, last = hi }
    end
  end
  local pieces = math.max(1, math.ceil(4 * jobs / #runs))
  local units = {}
  for _, run in ipairs(runs) do
    local n = run.last - run.first + 1
    local cut = math.min(pieces, n)
    for i = 0, cut - 1 do
      units[#units + 1] = { first = run.first + (n * i) // cut, last = run.first + (n * (i + 1)) // cut - 1 }
    end
  end
  return units
end

-- Running ---------------------------------------------------------------------------

-- Resolves the base and every point's configuration, lists the kernels.
local function make_plan(sweep)
  local base, err = config.load(sweep.preset, sweep.overrides)
  if not base then
    return nil, err
  end
  local kernels, list_err = trace.list(sweep.workloads)
  if not kernels then
    return nil, list_err
  end
  local plan = { sweep = sweep, base = base, kernels = kernels, configs = {}, config_hashes = {},
    config_errors = {} }
  for i, point in ipairs(sweep.points) do
    local cfg, cfg_err = config.load(sweep.preset, sweep:point_overrides(point))
    if cfg then
      plan.configs[i], plan.config_hashes[i] = cfg, config.hash(cfg)
    else
      plan.config_errors[i] = cfg_err
    end
  end
  plan.tasks = #kernels * #sweep.models * #sweep.points
  plan.baseline = M.baseline_index(sweep)
  if outputs.reports_need(sweep.reports, "kernel_profiles") then
    plan.profile_config = plan.configs[plan.baseline]
  end
  return plan
end

-- The index of the sweep's baseline point: the point whose columns equal
-- summary.baseline's values (columns the sweep does not vary, or that -p
-- pinned to one value, are not compared when no point matches them all),
-- else the first point.
function M.baseline_index(sweep)
  local baseline = sweep.summary and sweep.summary.baseline
  if type(baseline) ~= "table" then
    return 1
  end
  local varied = {}
  for _, p in ipairs(sweep.parameters) do
    varied[p.column] = p.values == nil or #p.values > 1
  end
  for _, strict in ipairs { true, false } do
    for i, point in ipairs(sweep.points) do
      local match = true
      for column, v in pairs(baseline) do
        if (strict or varied[column]) and point[column] ~= v then
          match = false
        end
      end
      if match then
        return i
      end
    end
  end
  return 1
end

-- Collects decoded records by task.
local function collector(progress)
  local c = { rows = {}, failures = {}, received = 0, profiles = {}, costs = {},
    profile_cost = { s = 0, replay_s = 0, n = 0 } }
  function c.take(line)
    local record, err = json.decode(line)
    if not record or (type(record.task) ~= "number" and type(record.profile) ~= "table"
        and type(record.cost) ~= "table") then
      error("gpush.experiment: a worker sent a malformed record: " .. tostring(err or line), 0)
    end
    if record.fatal then
      c.fatal = c.fatal or record.fatal
      return
    end
    if record.cost then
      for m, part in ipairs(record.cost) do
        local sum = c.costs[m] or { model = part.model, prepare_s = 0, prepares = 0, run_s = 0, runs = 0, parts = {} }
        for _, key in ipairs { "prepare_s", "prepares", "run_s", "runs" } do
          sum[key] = sum[key] + part[key]
        end
        for _, p in ipairs(part.parts or {}) do
          add_part(sum.parts, p.name, p.s)
        end
        c.costs[m] = sum
      end
      for _, key in ipairs { "s", "replay_s", "n" } do
        c.profile_cost[key] = c.profile_cost[key] + ((record.profiles or {})[key] or 0)
      end
      return
    end
    if record.profile then
      c.profiles[record.profile.kernel_index] = record.profile
      return
    end
    if record.row then
      c.rows[record.task] = record.row
    else
      c.failures[record.task] = record.failure
    end
    c.received = c.received + 1
    progress:step(record.failure ~= nil)
  end
  return c
end

-- What a preparation's parts cost each (ms), when the model named them
-- (ctx.spend), and the rest: ": memory replay 6.1, ..., the rest 0.3".
local function parts_text(c)
  local parts, named = {}, 0
  for _, part in ipairs(c.parts or {}) do
    parts[#parts + 1] = ("%s %.1f"):format(part.name, part.s / c.prepares * 1e3)
    named = named + part.s
  end
  if #parts == 0 then
    return ""
  end
  parts[#parts + 1] = ("the rest %.1f"):format(math.max(c.prepare_s - named, 0) / c.prepares * 1e3)
  return ": " .. table.concat(parts, ", ")
end

-- The log's account of what each model cost (collector's costs: CPU
-- seconds summed over the workers, os.clock): its per-kernel preparations
-- (once a kernel in each worker that runs some of its points; split into
-- the parts the model named, GPUMech's memory replay and its walk that
-- selects the representative warp and counts the bounds) and its cost a
-- point, and how many times cheaper a point is than the
-- costliest model's (a simulated point, in the main job); and `profiles`
-- (optional: { s, replay_s, n }), the reports' kernel profiles and their
-- memory replays at the baseline point, which a GPUMech preparation on the
-- same point then finds in the kernel's cache.  Timings vary from run to
-- run, so they go to the log, never into the outputs.
function M.cost_text(label, costs, profiles)
  local costliest
  for _, c in ipairs(costs) do
    if c.runs > 0 and (not costliest or c.run_s / c.runs > costliest.run_s / costliest.runs) then
      costliest = c
    end
  end
  local lines = { ("%s: CPU time per model (every worker's, summed):"):format(label) }
  for _, c in ipairs(costs) do
    local per_point = c.runs > 0 and c.run_s / c.runs or 0
    local text = ("  %-16s %7.2f s over %d points (%.2f ms a point"):format(c.model, c.run_s, c.runs, per_point * 1e3)
    if costliest and c ~= costliest and per_point > 0 then
      text = text .. (", %.0fx cheaper than %s's"):format(costliest.run_s / costliest.runs / per_point,
        costliest.model)
    end
    text = text .. ")"
    if c.prepares > 0 then
      text = text .. ("; %d kernel preparations %.2f s (%.1f ms each%s)"):format(c.prepares, c.prepare_s,
        c.prepare_s / c.prepares * 1e3, parts_text(c))
    end
    lines[#lines + 1] = text
  end
  if profiles and profiles.n > 0 then
    lines[#lines + 1] = ("  %-16s %7.2f s for %d kernels (%.1f ms each: the baseline's memory replay %.1f, which a"
      .. " preparation on that point reuses; the rest %.1f)"):format("reports' profiles", profiles.s, profiles.n,
      profiles.s / profiles.n * 1e3, profiles.replay_s / profiles.n * 1e3,
      (profiles.s - profiles.replay_s) / profiles.n * 1e3)
  end
  return table.concat(lines, "\n") .. "\n"
end

-- "interrupted (SIGINT)" or "interrupted (SIGTERM)" once either arrived
-- under the run's guard, else nil.
local function interruption()
  local pending, signal = core.sigint_pending()
  return pending and ("interrupted (%s)"):format(signal) or nil
end

local function run_in_process(plan, first, last, c)
  local r = runner(plan, c.take, core.sigint_pending)
  r.run(first, last)
  r.finish()
  return interruption()
end

local function start_worker(plan, units, counter)
  local process, pipe = core.proc_fork()
  if process == nil then
    return nil, pipe
  end
  if not process then -- in the worker
    local ok, err = pcall(function()
      local r = runner(plan, function(line)
        assert(pipe:write(line .. "\n"))
      end, function() return false end)
      while true do
        local u = units[counter:next() + 1]
        if not u then
          break
        end
        r.run(u.first, u.last)
      end
      r.finish()
    end)
    if not ok then
      pipe:write(json.encode { task = 0, fatal = tostring(err) } .. "\n")
    end
    pipe:close()
    core.proc_exit(ok and 0 or 1)
  end
  return { process = process, pipe = pipe, buffer = "", open = true }
end

-- Forks `jobs` workers over first..last and collects their rows; returns
-- the reason the run is incomplete, if it is.  The tasks are cut into
-- units (units_of: a kernel's tasks each, so each kernel is loaded and
-- prepared once), which the workers take in order as they come free.
local function run_workers(plan, first, last, jobs, c)
  local units = units_of(plan, first, last, jobs)
  local counter, counter_err = core.proc_counter()
  if not counter then
    error("gpush.experiment: " .. counter_err, 0)
  end
  local workers = {}
  for j = 1, math.min(jobs, #units) do
    local w, err = start_worker(plan, units, counter)
    if not w then
      for _, started in ipairs(workers) do
        started.process:signal("TERM")
        started.process:wait()
      end
      error("gpush.experiment: " .. err, 0)
    end
    w.index = j
    workers[#workers + 1] = w
  end
  local incomplete
  local ok, loop_err = pcall(function()
    while not core.sigint_pending() and parallel.poll_round(workers, c.take) do
    end
  end)
  incomplete = interruption() or incomplete
  for _, w in ipairs(workers) do
    if w.open then
      w.process:signal("TERM")
      w.pipe:close()
    end
  end
  if not ok then -- stop every worker before passing the error on
    for _, w in ipairs(workers) do
      w.process:wait()
    end
    error(loop_err, 0)
  end
  for _, w in ipairs(workers) do
    local how, code = w.process:wait()
    if not incomplete and not (how == "exit" and code == 0) then
      incomplete = ("worker %d of %d ended (%s %s) before its tasks were done%s"):format(w.index, #workers,
        tostring(how), tostring(code), c.fatal and (": " .. c.fatal) or "")
    end
  end
  return incomplete
end

-- The command line of this process, as words.
local function command_line(args)
  args = args or _G.arg
  if type(args) ~= "table" then
    return "(library call)"
  end
  local words = { "gpush" }
  local first = args[0] and 0 or 1
  for i = first, #args do
    local a = tostring(args[i])
    words[#words + 1] = a:find("[%s'\"]") and ("'" .. a:gsub("'", "'\\''") .. "'") or a
  end
  return table.concat(words, " ")
end
M.command_line = command_line

-- Provenance stamp of a sweep's outputs; `notes` (the definition's
-- `provenance` table, optional) adds lines of its own, such as a corpus's
-- "simulated" marker.
function M.provenance(description, identity, base_hash, command, notes)
  local stamp = {
    gpush = core.version(),
    sweep = description.name,
    identity = identity,
    base = ("%s%s (config hash %s)"):format(description.preset,
      #description.overrides > 0 and (" " .. table.concat(description.overrides, " ")) or "", base_hash),
    seed = tostring(description.seed),
    workloads = table.concat(description.workloads, " "),
    command = command,
    hashes = "config_hash (resolved configuration) and trace_hash (kernel content) per row",
  }
  for k, v in pairs(notes or {}) do
    stamp[k] = v
  end
  return stamp
end

-- What the roofline report reads (docs/reports.md): the baseline point,
-- its configuration's roofs and ceilings, and the profiles of the kernels
-- this run (or shard) holds, in kernel order.
local function roofline_facts(plan, profiles)
  local kernels = {}
  for k = 1, #plan.kernels do
    if profiles[k] then
      kernels[#kernels + 1] = profiles[k]
    end
  end
  return { point = json.object(plan.sweep.points[plan.baseline]), machine = roofline.hierarchy(plan.profile_config),
    kernels = kernels }
end

-- Runs a sweep (or its shard).  opts: jobs (default 1; 0 = every core),
-- shard = {index, count}, quiet, progress_stream, tty, command (string or
-- arg-style table), sample (true or false: sample long launches or not,
-- whatever the definition says; docs/experiments.md, "Sampling").  Returns a Results (with extra.sweep, extra.tasks, and
-- extra.shard when sharded), or nil and a message when the sweep cannot
-- start (an unreadable trace, a bad base configuration).
function M.run(sweep, opts)
  if getmetatable(sweep) ~= Sweep then
    error("gpush.experiment.run: expected a sweep from experiment.new", 2)
  end
  opts = opts or {}
  local jobs = opts.jobs or 1
  if math.type(jobs) ~= "integer" or jobs < 0 then
    error("gpush.experiment.run: jobs must be a non-negative integer", 2)
  end
  if jobs == 0 then
    jobs = core.proc_cpus()
  end
  if opts.sample ~= nil and (opts.sample == true) ~= (sweep.sample == true) then
    local copy = setmetatable({}, Sweep) -- this run's choice, in its identity too
    for k, v in pairs(sweep) do
      copy[k] = v
    end
    copy.sample, sweep = opts.sample == true or nil, copy
  end
  local plan, err = make_plan(sweep)
  if not plan then
    return nil, err
  end
  local first, last = 1, plan.tasks
  local shard = opts.shard
  if shard then
    first, last = M.slice(1, plan.tasks, shard.index, shard.count)
  end
  local count = math.max(0, last - first + 1)
  local progress = M.progress(count, { label = sweep.name, stream = opts.progress_stream, tty = opts.tty,
    quiet = opts.quiet })
  local c = collector(progress)
  local guard = core.sigint_catch()
  local ok, incomplete = pcall(function()
    if jobs <= 1 or count <= 1 then
      return run_in_process(plan, first, last, c)
    end
    return run_workers(plan, first, last, math.min(jobs, count), c)
  end)
  guard:release()
  if not ok then
    error(incomplete, 0)
  end
  progress:finish()
  if not opts.quiet and #c.costs > 0 then
    local stream = opts.progress_stream or io.stderr
    stream:write(M.cost_text(sweep.name, c.costs, c.profile_cost))
    stream:flush()
  end
  local rows, failures, tasks = {}, {}, {}
  for t = first, last do
    if c.rows[t] then
      rows[#rows + 1] = c.rows[t]
      tasks[#tasks + 1] = t
    elseif c.failures[t] then
      local f = c.failures[t]
      f.task = t
      failures[#failures + 1] = f
    end
  end
  local description = sweep:describe()
  local identity = sweep:identity()
  local command = type(opts.command) == "string" and opts.command or command_line(opts.command)
  local extra = { sweep = description, identity = identity, tasks = tasks, total_tasks = plan.tasks }
  if plan.profile_config then
    extra.roofline = roofline_facts(plan, c.profiles)
  end
  if shard then
    extra.shard = { index = shard.index, count = shard.count, first_task = first, last_task = last }
  end
  return results.new { columns = outputs.columns(description.parameters, description.models,
    description.model_columns, rows), rows = rows, failures = failures,
    incomplete = incomplete, extra = extra,
    provenance = M.provenance(description, identity, config.hash(plan.base), command, sweep.notes) }
end

-- Scenarios ---------------------------------------------------------------------------

-- Checks the output folder before the first point runs and makes the
-- fresh folder the outputs are written into (moved into place at the end):
-- an --out that is a file, a folder that cannot be created or written is
-- refused now rather than after the whole sweep.  Returns the stage, or
-- nil and a message.
local function prepare_output(dir, shard_file)
  local st = core.stat(dir)
  if st and st.kind ~= "folder" then
    return nil, ("--out %s exists and is not a folder"):format(dir)
  end
  if not st then
    local ok, err = core.mkdir(dir)
    if not ok then
      return nil, ("--out: %s"):format(err)
    end
  end
  if shard_file then
    return staging.file(shard_file)
  end
  return staging.folder(dir)
end

-- A warning when more workers are asked for than the machine has cores.
local function jobs_warning(jobs)
  local cpus = core.proc_cpus()
  if jobs > cpus then
    return ("--jobs %d is more than the %d cores here: the workers share them, each point runs slower"
      .. " and the sweep ends no sooner"):format(jobs, cpus)
  end
end

-- The whole life of an experiment scenario: parse args (the options above),
-- apply --traces and -p to the definition, check --out, run, write the
-- outputs (or the shard's partial), print the summary.  Returns the exit
-- code: 0, 1 (some points failed, or a run error), 2 (usage), 130
-- (interrupted by SIGINT), 143 (by SIGTERM).  def is a sweep definition;
-- def.default_out names the default folder.
function M.main(def, args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local usage = ("usage: gpush %s %s\n"):format(args[0] or def.name, scenario_args.USAGE)
  local opts, problem = scenario_args.parse(args)
  if not opts then
    err:write(def.name, ": ", problem, "\n", usage)
    return M.EXIT_USAGE
  end
  if opts.help then
    out:write(usage)
    return 0
  end
  local d, notes = scenario_args.apply_overrides(def, opts.overrides)
  if not d then
    err:write(def.name, ": ", notes, "\n")
    return M.EXIT_USAGE
  end
  for _, note in ipairs(notes) do
    err:write(def.name, ": note: ", note, "\n")
  end
  local warning = jobs_warning(opts.jobs)
  if warning then
    err:write(def.name, ": warning: ", warning, "\n")
  end
  if #opts.traces > 0 then
    d.workloads = opts.traces
  end
  d.source = d.source or args[0]
  local sweep = M.new(d)
  local dir = opts.out or def.default_out or (def.name .. "_out")
  local shard_file = opts.shard and M.shard_path(dir, sweep.name, opts.shard.index, opts.shard.count)
  local stage, stage_err = prepare_output(dir, shard_file)
  if not stage then
    err:write(def.name, ": ", stage_err, "\n")
    return M.EXIT_FAILED
  end
  local ok, res, run_err = pcall(M.run, sweep, { jobs = opts.jobs, shard = opts.shard, quiet = opts.quiet,
    command = args, sample = opts.sample })
  if not ok or not res then
    stage:abort()
    if not ok then
      error(res, 0)
    end
    err:write(def.name, ": ", run_err, "\n")
    return M.EXIT_FAILED
  end
  local written, write_err
  if opts.shard then
    local done
    done, write_err = res:write_json(stage.path)
    if done then
      done, write_err = stage:commit()
    else
      stage:abort()
    end
    written = done and { shard_file } or nil
  else
    written, write_err = M.write_outputs(res, dir, { stage = stage })
  end
  if not written then
    err:write(def.name, ": ", write_err, "\n")
    return M.EXIT_FAILED
  end
  if not opts.shard and not opts.quiet then
    out:write(table.concat(summary.lines(res), "\n"), "\n")
  end
  if not opts.quiet then
    out:write("Wrote ", table.concat(written, ", "), ".\n")
  end
  return M.report_end(def.name, res, err)
end

-- Prints failures (each distinct cause once, with how many points it
-- failed) and the interruption note; returns the exit code.
function M.report_end(label, res, err)
  local order, by_cause = {}, {}
  for _, f in ipairs(res.failures) do
    local cause = f.cause or f.message
    if not by_cause[cause] then
      by_cause[cause] = { first = f.message, count = 0 }
      order[#order + 1] = cause
    end
    by_cause[cause].count = by_cause[cause].count + 1
  end
  for _, cause in ipairs(order) do
    local c = by_cause[cause]
    if c.count == 1 then
      err:write(label, ": failed: ", c.first, "\n")
    else
      local first = c.first:sub(-#cause - 2) == ": " .. cause and c.first:sub(1, -#cause - 3) or c.first
      err:write(("%s: failed %d times: %s (the first: %s)\n"):format(label, c.count, cause, first))
    end
  end
  if res.incomplete then
    err:write(("%s: %s; %s; wrote the %d finished rows, every file marked incomplete\n"):format(label,
      res.incomplete, summary.tasks_ran(res), #res.rows))
    if res.incomplete:find("SIGTERM", 1, true) then
      return M.EXIT_TERMINATED
    end
    return res.incomplete:find("SIGINT", 1, true) and M.EXIT_INTERRUPTED or M.EXIT_FAILED
  end
  if #res.failures > 0 then
    err:write(("%s: %d of %d points failed (listed above); the other results are written\n"):format(label,
      #res.failures, #res.failures + #res.rows))
    return M.EXIT_FAILED
  end
  return 0
end

-- A comparison scenario's command line (gpumech_vs_sim, gpumech_sensitivity,
-- gpumech_scaling): scenario_args.parse_whole with its own one-value options
-- `own` and DIR defaulting to NAME_out, --help answered with `usage_text`.
-- Returns opts and usage(problem), which prints the problem and the usage
-- and exits with EXIT_USAGE.
function M.scenario_options(name, args, own, usage_text)
  local function usage(problem)
    io.stderr:write(name, ": ", problem, "\n", usage_text)
    os.exit(M.EXIT_USAGE)
  end
  local opts, problem = scenario_args.parse_whole(args, own, name .. "_out")
  if not opts then
    usage(problem)
  elseif opts.help then
    io.stdout:write(usage_text)
    os.exit(0)
  end
  return opts, usage
end

-- Writes the text of a comparison scenario's output file DIR/NAME, making
-- DIR; a folder or file that cannot be written raises its message.
local function write_scenario_file(dir, name, text)
  local ok, mkdir_err = core.mkdir(dir)
  if not ok then
    error(mkdir_err, 0)
  end
  local ok, write_err = staging.write(dir .. "/" .. name, text)
  if not ok then
    error(write_err, 0)
  end
end

-- A comparison scenario's CSV table: the provenance lines as '# ' comments,
-- then the header and rows (`lines`, without line ends).
function M.write_scenario_csv(dir, name, provenance, lines)
  local out = {}
  for _, line in ipairs(provenance) do
    out[#out + 1] = "# " .. line
  end
  table.move(lines, 1, #lines, #out + 1, out)
  write_scenario_file(dir, name, table.concat(out, "\n") .. "\n")
end

-- A comparison scenario's Markdown report: the body, then after a blank
-- line the provenance lines as HTML comments (none: the body alone).
function M.write_scenario_markdown(dir, name, body, provenance)
  local out = { body }
  if #provenance > 0 then
    out[2] = ""
    for _, line in ipairs(provenance) do
      out[#out + 1] = "<!-- " .. line .. " -->"
    end
  end
  write_scenario_file(dir, name, table.concat(out, "\n") .. "\n")
end

-- Runs a scenario's sweep with its options (jobs, quiet; the command line
-- for the provenance).  A sweep that cannot start ends the process with
-- EXIT_FAILED; unless `keep_partial`, so does an interrupted or failing one,
-- after report_end has written what it finished.  Returns the result.
function M.run_scenario(name, sweep, opts, command, keep_partial)
  local res, run_err = M.run(sweep, { jobs = opts.jobs, quiet = opts.quiet, command = command,
    sample = opts.sample })
  if not res then
    io.stderr:write(name, ": ", run_err, "\n")
    os.exit(M.EXIT_FAILED)
  end
  if not keep_partial and (res.incomplete or #res.failures > 0) then
    os.exit(M.report_end(name, res, io.stderr))
  end
  return res
end

-- Models: shorthand constructors over the registry, experiment.models.NAME(opts)
-- = gpush.models.get(NAME, opts) (docs/models.md).
M.models = models.by_name

return M
