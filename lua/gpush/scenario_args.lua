-- gpush.scenario_args: the command-line options every experiment scenario
-- takes (scenarios/*.lua, examples/custom_sweep.lua, experiment.main):
--
--   local opts, problem = scenario_args.parse(arg)
--   opts.traces, opts.out, opts.jobs, opts.quiet, opts.shard, opts.overrides, opts.help,
--   opts.sample (true: --sample, false: --no-sample, nil: the sweep's own choice)
--   local opts, problem = scenario_args.parse_whole(arg, { ["--config"] = "config" }, "out_dir")
--
-- docs/experiments.md ("Running a scenario") describes them.
--
--   local def2, notes = scenario_args.apply_overrides(def, opts.overrides)
local cli = require "gpush.cli"
local core = require "gpush.core"
local csv = require "gpush.csv"
local schema = require "gpush.schema"
local text = require "gpush.text"

local M = {}

M.USAGE = "[--traces PATH ...] [--out DIR] [--jobs N] [--quiet] [--shard I/N] [--sample|--no-sample]\n"
  .. "         [-p key=value ...]"

-- Parses the options; returns opts or nil, message.  opts.jobs: an integer
-- (default: every core), opts.shard {index, count}.
function M.parse(args)
  local opts, problem = cli.parse_args(args, { ["--traces"] = "+traces", ["--out"] = "=out",
    ["--jobs"] = "=jobs", ["-j"] = "=jobs", ["--quiet"] = "quiet", ["-q"] = "quiet", ["--shard"] = "=shard",
    ["-p"] = "+overrides", ["--help"] = "help", ["-h"] = "help", ["--sample"] = "sample",
    ["--no-sample"] = "no_sample" })
  if not opts then
    return nil, problem
  end
  if opts.sample and opts.no_sample then
    return nil, "--sample and --no-sample contradict each other: give one"
  end
  if opts.no_sample then
    opts.sample, opts.no_sample = false, nil
  end
  if #opts.words > 0 then
    return nil, ("unknown argument '%s'"):format(opts.words[1])
  end
  if opts.jobs then
    local n = tonumber(opts.jobs)
    if not n or math.type(n) ~= "integer" or n < 1 then
      return nil, ("--jobs expects a whole number of workers (1 or more), got '%s'"):format(opts.jobs)
    end
    opts.jobs = n
  else
    opts.jobs = core.proc_cpus()
  end
  if opts.shard then
    local i, n = opts.shard:match("^(%d+)/(%d+)$")
    i, n = tonumber(i), tonumber(n)
    if not i or n < 1 or i < 1 or i > n then
      return nil, ("--shard expects I/N with 1 <= I <= N, got '%s'"):format(opts.shard)
    end
    opts.shard = { index = i, count = n }
  end
  return opts
end

-- A scenario's own option `name` taking one value (the last given wins),
-- split from the engine's options: returns the value (or `default`) and the
-- other arguments (with [0] kept) for M.parse; or nil and a message when the
-- option has no value.
function M.take(args, name, default)
  local value, rest, i = default, { [0] = args[0] }, 1
  while i <= #args do
    if args[i] == name then
      if args[i + 1] == nil then
        return nil, ("%s expects a value"):format(name)
      end
      value, i = args[i + 1], i + 2
    else
      rest[#rest + 1], i = args[i], i + 1
    end
  end
  return value, rest
end

-- A scenario that compares across every kernel takes the options above
-- without --shard, plus options of its own with one value each (`own`
-- maps an option to the field it fills, e.g. { ["--config"] = "config" }).
-- Returns opts (opts.out defaulting to `default_out`) or nil, message;
-- --help is left to the caller (opts.help).
function M.parse_whole(args, own, default_out)
  local rest, mine = args, {}
  for _, option in ipairs(text.sorted_keys(own)) do
    local value
    value, rest = M.take(rest, option)
    if type(rest) == "string" then
      return nil, rest
    end
    mine[own[option]] = value
  end
  local opts, problem = M.parse(rest)
  if not opts then
    return nil, problem
  end
  if opts.shard then
    return nil, "--shard is not supported here: the comparison needs every kernel; use --jobs N"
  end
  for field, value in pairs(mine) do
    opts[field] = value
  end
  opts.out = opts.out or default_out
  return opts
end

-- Explicit points with duplicates removed (first kept), in order.
local function dedupe_points(points)
  local seen, out = {}, {}
  for _, point in ipairs(points) do
    local keys = text.sorted_keys(point)
    for i, k in ipairs(keys) do
      keys[i] = k .. "=" .. csv.text(point[k])
    end
    local key = table.concat(keys, ";")
    if not seen[key] then
      seen[key] = true
      out[#out + 1] = point
    end
  end
  return out
end

-- The -p overrides of a scenario against its swept parameters.  An
-- override of a swept parameter replaces that axis with its one value (the
-- sweep ran unchanged before, while the provenance claimed the override),
-- and the notes say so; an override of a parameter a swept one rewrites
-- (clock.mem_mhz when dram.bandwidth_gbs is swept, and the reverse) would be
-- overwritten at every point, so it is refused.  Returns the definition to
-- run (a copy) and the notes, or nil and a message.
function M.apply_overrides(def, overrides)
  local d = {}
  for k, v in pairs(def) do
    d[k] = v
  end
  local base = type(def.base) == "string" and { preset = def.base } or def.base
  d.base = { preset = base.preset, overrides = { table.unpack(base.overrides or {}) } }
  local swept, by_path = {}, {}
  for i, p in ipairs(def.parameters or {}) do
    local path = p.path or p[1]
    swept[path] = i
    by_path[path] = p
  end
  for _, point in ipairs(def.points or {}) do
    for path in pairs(point) do
      swept[path] = swept[path] or true
    end
  end
  local linked = {}
  for _, dv in ipairs(schema.derived) do
    if dv.solves then
      linked[dv[1]], linked[dv.solves] = dv.solves, dv[1]
    end
  end
  local notes = {}
  local parameters = def.parameters and { table.unpack(def.parameters) } or nil
  local points = def.points and {} or nil
  for i, point in ipairs(def.points or {}) do
    points[i] = {}
    for k, v in pairs(point) do
      points[i][k] = v
    end
  end
  for _, o in ipairs(overrides) do
    local path, value_text = tostring(o):match("^%s*(.-)%s*=%s*(.-)%s*$")
    if path and swept[path] then
      local value = core.yaml_scalar(value_text)
      if points then
        for _, point in ipairs(points) do
          if point[path] ~= nil then
            point[path] = value
          end
        end
      end
      if type(swept[path]) == "number" and parameters then
        local p = by_path[path]
        local old = {}
        for j, v in ipairs(p.values or p[2] or {}) do
          old[j] = csv.text(v)
        end
        parameters[swept[path]] = { path = path, values = { value }, column = p.column }
        notes[#notes + 1] = ("-p %s replaces the swept values {%s} of %s: one value on that axis"):format(o,
          table.concat(old, ", "), path)
      else
        notes[#notes + 1] = ("-p %s sets %s at every point of the sweep"):format(o, path)
      end
    elseif path and linked[path] and swept[linked[path]] then
      return nil, ("-p %s would be overwritten at every point: the sweep varies %s, which sets %s;"
        .. " give -p %s=VALUE to fix that axis instead"):format(o, linked[path], path, linked[path])
    else
      table.insert(d.base.overrides, o)
    end
  end
  d.parameters, d.points = parameters, points and dedupe_points(points) or nil
  return d, notes
end

return M
