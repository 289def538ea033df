-- gpush.sweep_merge: checks the partial results of a sharded sweep (read
-- from shard files, so every field is validated before use) and joins them
-- into the single-run Results (gpush merge; gpush.experiment.merge).
local json = require "gpush.json"
local outputs = require "gpush.sweep_outputs"
local results = require "gpush.results"

local M = {}

-- True when v is a list whose items are all of Lua type `kind`.
local function list_of(v, kind)
  if type(v) ~= "table" then
    return false
  end
  for _, x in ipairs(v) do
    if type(x) ~= kind then
      return false
    end
  end
  return true
end

-- What is wrong with a sweep's `summary` (the best-point table's settings,
-- gpush.report.summary) read from a file, or nil.
local function summary_problem(sm)
  if type(sm) ~= "table" then
    return "the sweep's summary must be an object"
  end
  for _, key in ipairs { "objective", "show", "bottleneck", "label" } do
    if sm[key] ~= nil and type(sm[key]) ~= "string" then
      return ("the sweep's summary.%s must be a column name"):format(key)
    end
  end
  -- one number conversion, as the best-point table formats its values
  if sm.format ~= nil and (type(sm.format) ~= "string" or not sm.format:match("^%%[%-+ #0]?%d?%d?%.?%d?%d?[aAeEfgG]$")) then
    return "the sweep's summary.format must be one number format such as %.1f"
  end
  if sm.baseline ~= nil and type(sm.baseline) ~= "table" then
    return "the sweep's summary.baseline must be an object of column values"
  end
  for _, v in pairs(sm.baseline or {}) do
    if type(v) == "table" then
      return "the sweep's summary.baseline values must be numbers or text"
    end
  end
  if sm.notes ~= nil and not list_of(sm.notes, "string") then
    return "the sweep's summary.notes must be a list of lines"
  end
end

-- What is wrong with a sweep description (Sweep:describe()) read from a
-- file, or nil: the fields the merge, the Markdown and the reports read.
local function description_problem(d)
  if type(d) ~= "table" then
    return "\"sweep\" is not an object"
  end
  if type(d.name) ~= "string" or not d.name:match("^[%w_%-]+$") then
    return "the sweep's name must be a word (letters, digits, _ and -)"
  end
  if type(d.preset) ~= "string" or not list_of(d.overrides or {}, "string") then
    return "the sweep's preset must be a name and its overrides strings"
  end
  if not list_of(d.models, "string") or not list_of(d.workloads, "string") or not list_of(d.reports or {}, "string") then
    return "the sweep's models, workloads and reports must be lists of names"
  end
  if not list_of(d.parameters, "table") or not list_of(d.points, "table") then
    return "the sweep's parameters and points must be lists of objects"
  end
  for _, p in ipairs(d.parameters) do
    if type(p.path) ~= "string" or type(p.column) ~= "string" then
      return "each of the sweep's parameters needs a path and a column"
    end
  end
  if type(d.model_columns) ~= "table" then
    return "the sweep description has no model_columns"
  end
  for _, columns in pairs(d.model_columns) do
    if not list_of(columns, "string") then
      return "the sweep's model_columns must be lists of column names"
    end
  end
  if d.title ~= nil and type(d.title) ~= "string" then
    return "the sweep's title must be text"
  end
  return d.summary ~= nil and summary_problem(d.summary) or nil
end

-- What is wrong with the parts of a partial result merge reads (shard,
-- identity, tasks, the sweep description), or nil.
local function partial_problem(p)
  local x = p.extra
  local shard = x.shard
  if type(shard) ~= "table" or math.type(shard.index) ~= "integer" or math.type(shard.count) ~= "integer"
      or shard.count < 1 or shard.index < 1 or shard.index > shard.count then
    return "\"shard\" must be {\"index\": I, \"count\": N} with 1 <= I <= N"
  end
  if type(x.identity) ~= "string" then
    return "\"identity\" must be a string"
  end
  if type(x.tasks) ~= "table" or #x.tasks ~= #p.rows then
    return "\"tasks\" must give one task number per row"
  end
  for _, t in ipairs(x.tasks) do
    if math.type(t) ~= "integer" then
      return "\"tasks\" must hold task numbers"
    end
  end
  if math.type(x.total_tasks) ~= "integer" then
    return "\"total_tasks\" must be an integer"
  end
  return description_problem(x.sweep)
end

-- The roofline facts of the whole run (gpush.experiment): the baseline
-- point and its roofs from the first shard that has them, every shard's
-- kernel profiles in shard (so kernel) order; nil when the sweep gathered
-- none, or nil and a message for a malformed shard.
local function merged_roofline(partials, by_index, names, count)
  local roof
  for index = 1, count do
    local i = by_index[index]
    local x = partials[i].extra.roofline
    if x ~= nil then
      if type(x) ~= "table" or type(x.point) ~= "table" or type(x.machine) ~= "table"
          or not list_of(x.kernels, "table") then
        return nil, ("%s: \"roofline\" must be {\"point\", \"machine\", \"kernels\": [...]}"):format(names[i])
      end
      roof = roof or { point = x.point, machine = x.machine, kernels = {} }
      table.move(x.kernels, 1, #x.kernels, #roof.kernels + 1, roof.kernels)
    end
  end
  return roof
end

-- The key columns every row holds, with their Lua types.
local KEY_TYPES = { workload = "string", kernel = "string", launch = "number", model = "string" }

local function value_kind(v)
  return v == json.null and "null" or type(v)
end

-- What is wrong with the slice of tasks partial p (shard index of count)
-- covers, or nil: its range is the one the shard count gives, its rows'
-- task numbers rise within it, and every task of it has a row or a failure.
local function slice_problem(p, total)
  local x = p.extra
  local lo, hi = outputs.slice(1, total, x.shard.index, x.shard.count)
  if x.shard.first_task ~= lo or x.shard.last_task ~= hi then
    return ("shard %d of %d says tasks %s-%s; %d tasks in %d shards give it tasks %d-%d"):format(x.shard.index,
      x.shard.count, tostring(x.shard.first_task), tostring(x.shard.last_task), total, x.shard.count, lo, hi)
  end
  local seen, previous = {}, lo - 1
  for j, t in ipairs(x.tasks) do
    if t <= previous or t > hi then
      return ("row %d has task %d: expected task numbers rising within the shard's tasks %d-%d"):format(j, t, lo, hi)
    end
    seen[t], previous = true, t
  end
  for i, f in ipairs(p.failures) do
    if math.type(f.task) ~= "integer" or f.task < lo or f.task > hi or seen[f.task] then
      return ("failure %d has task %s: expected a task of the shard's %d-%d that has no row"):format(i,
        tostring(f.task), lo, hi)
    end
    seen[f.task] = true
  end
  for t = lo, hi do
    if not seen[t] then
      return ("task %d of the shard's tasks %d-%d has neither a row nor a failure"):format(t, lo, hi)
    end
  end
end

-- What is wrong with one row of partial p, or nil: the model and the
-- parameter values its task number gives (task = kernel x models x points),
-- the same kernel as every other row of that kernel, the key columns'
-- types, a value in every column its model declares, each column of one
-- type across all rows (`kinds`: column -> {kind, where}), and a positive
-- cycle count (the reports plot it on log axes).
local function row_problem(d, row, j, t, kernels, kinds, name)
  local k, m, point = outputs.decode_task(t, #d.models, #d.points)
  for column, kind in pairs(KEY_TYPES) do
    if type(row[column]) ~= kind then
      return ("row %d, column '%s': expected a %s, got %s"):format(j, column, kind, value_kind(row[column]))
    end
  end
  if row.model ~= d.models[m] then
    return ("row %d, column 'model': '%s', but its task %d is model '%s'"):format(j, row.model, t, d.models[m])
  end
  for _, p in ipairs(d.parameters) do
    local want = d.points[point][p.column]
    if want ~= nil and row[p.column] ~= want then
      return ("row %d, column '%s': %s, but its task %d is the point with %s"):format(j, p.column,
        tostring(row[p.column]), t, tostring(want))
    end
  end
  local key = ("%s\0%s\0%s"):format(row.workload, row.kernel, row.launch)
  if kernels[k] and kernels[k].key ~= key then
    return ("row %d: kernel '%s' (launch %s) of %s, but its task %d is kernel %d, '%s' in %s"):format(j, row.kernel,
      tostring(row.launch), row.workload, t, k, kernels[k].kernel, kernels[k].where)
  end
  kernels[k] = kernels[k] or { key = key, kernel = row.kernel, where = name }
  for _, column in ipairs(d.model_columns[row.model] or {}) do
    if row[column] == nil then
      return ("row %d (model %s): no value in its column '%s'"):format(j, row.model, column)
    end
  end
  for column, v in pairs(row) do
    local kind = value_kind(v)
    if kind == "null" then
      return ("row %d, column '%s': null: expected a number, string or boolean"):format(j, column)
    end
    local first = kinds[column]
    if first and first.kind ~= kind then
      return ("row %d, column '%s': a %s, where %s has a %s"):format(j, column, kind, first.where, first.kind)
    end
    kinds[column] = first or { kind = kind, where = ("%s row %d"):format(name, j) }
  end
  if row.cycles ~= nil and not (type(row.cycles) == "number" and row.cycles > 0) then
    return ("row %d, column 'cycles': %s: expected a positive number of cycles"):format(j, tostring(row.cycles))
  end
end

-- What is wrong with the partials taken together, in shard order, or nil:
-- one identity is a claim, so they must also describe the same sweep (its
-- definition, task count, columns) and hold rows that fit it (slice_problem,
-- row_problem).  Messages name the file, and the row and column.
local function agreement_problem(ordered, names)
  local ref = ordered[1].partial
  local d, total = ref.extra.sweep, ref.extra.total_tasks
  local description = json.encode(d)
  if #d.models == 0 or #d.points == 0 or total % (#d.models * #d.points) ~= 0 or total < 1 then
    return ("%s: \"total_tasks\" %d is not a whole number of kernels x %d models x %d points"):format(names[ordered[1].i],
      total, #d.models, #d.points)
  end
  local kernels, kinds = {}, {}
  for _, o in ipairs(ordered) do
    local p, name = o.partial, names[o.i]
    if json.encode(p.extra.sweep) ~= description then
      return ("%s and %s carry the same identity but describe different sweeps: a partial was edited; run its shard"
        .. " again"):format(names[ordered[1].i], name)
    end
    if p.extra.total_tasks ~= total then
      return ("%s says %d tasks in all, %s %d"):format(name, p.extra.total_tasks, names[ordered[1].i], total)
    end
    local problem = slice_problem(p, total)
    if problem then
      return ("%s: %s"):format(name, problem)
    end
    local expected = outputs.columns(d.parameters, d.models, d.model_columns, p.rows)
    if table.concat(expected, "\0") ~= table.concat(p.columns, "\0") then
      return ("%s: \"columns\" does not list its rows' columns in the sweep's order (expected %s)"):format(name,
        table.concat(expected, ", "))
    end
    for j, row in ipairs(p.rows) do
      problem = row_problem(d, row, j, p.extra.tasks[j], kernels, kinds, name)
      if problem then
        return ("%s: %s"):format(name, problem)
      end
    end
  end
end

-- Combines partial results (each a Results read from a shard file, with
-- its file name in `names`) into the single-run Results; refuses partials
-- of different sweeps, duplicate and missing shards, incomplete shards and
-- kernels whose content differs between shards.  Returns Results or nil,
-- message.
function M.merge(partials, names, command)
  if #partials == 0 then
    return nil, "no partial results given"
  end
  local first = partials[1]
  local by_index, count = {}, nil
  for i, p in ipairs(partials) do
    local name = names[i]
    local shard = p.extra.shard
    if not shard or not p.extra.identity or not p.extra.sweep then
      return nil, ("%s is not a shard's partial result (no \"shard\" and \"identity\")"):format(name)
    end
    local problem = partial_problem(p)
    if problem then
      return nil, ("%s: %s"):format(name, problem)
    end
    if p.extra.identity ~= first.extra.identity then
      return nil, ("%s and %s belong to different sweeps (identity %s, sweep '%s' vs identity %s, sweep '%s'): "
        .. "same definition, workloads, models and gpush version needed"):format(names[1], name,
        first.extra.identity, first.extra.sweep.name, p.extra.identity, p.extra.sweep.name)
    end
    count = count or shard.count
    if shard.count ~= count then
      return nil, ("%s is shard %d of %d, but %s is of %d"):format(name, shard.index, shard.count, names[1], count)
    end
    if by_index[shard.index] then
      return nil, ("%s and %s are both shard %d of %d"):format(names[by_index[shard.index]], name, shard.index, count)
    end
    if p.incomplete then
      return nil, ("%s (shard %d of %d) is incomplete: %s; run that shard again"):format(name, shard.index, count,
        p.incomplete)
    end
    by_index[shard.index] = i
  end
  local missing = {}
  for index = 1, count do
    if not by_index[index] then
      missing[#missing + 1] = tostring(index)
    end
  end
  if #missing > 0 then
    return nil, ("missing shard%s %s of %d"):format(#missing > 1 and "s" or "", table.concat(missing, ", "), count)
  end
  local ordered = {}
  for index = 1, count do
    ordered[index] = { partial = partials[by_index[index]], i = by_index[index] }
  end
  local disagreement = agreement_problem(ordered, names)
  if disagreement then
    return nil, disagreement
  end
  local rows, failures, tasks, digests = {}, {}, {}, {}
  for index = 1, count do
    local p = partials[by_index[index]]
    for j, row in ipairs(p.rows) do
      local key = ("%s\0%s"):format(tostring(row.workload), tostring(row.launch))
      if digests[key] and digests[key] ~= row.trace_hash then
        return nil, ("kernel '%s' of %s differs between shards (trace hash %s vs %s)"):format(row.kernel,
          row.workload, digests[key], row.trace_hash)
      end
      digests[key] = row.trace_hash
      rows[#rows + 1] = row
      tasks[#tasks + 1] = p.extra.tasks[j]
    end
    for _, f in ipairs(p.failures) do
      failures[#failures + 1] = f
    end
  end
  local roof, roof_err = merged_roofline(partials, by_index, names, count)
  if roof_err then
    return nil, roof_err
  end
  local d = first.extra.sweep -- the merged result's (the partials are read for the merge only)
  d.title = d.title or d.name -- optional in a shard; the summary and the reports read it
  local provenance = {}
  for k, v in pairs(first.provenance) do
    provenance[k] = v
  end
  provenance.command = command
  return results.new { columns = outputs.columns(d.parameters, d.models, d.model_columns, rows),
    rows = rows, failures = failures, provenance = provenance,
    extra = { sweep = d, identity = first.extra.identity, tasks = tasks, total_tasks = first.extra.total_tasks,
      roofline = roof } }
end

return M
