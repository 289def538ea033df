-- gpush.sweep_merge: checks the partial results of a sharded sweep (read
-- from shard files, so every field is validated before use) and joins them
-- into the single-run Results (gpush merge; gpush.experiment.merge).
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
