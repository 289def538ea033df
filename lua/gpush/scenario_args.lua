-- gpush.scenario_args: the command-line options every experiment scenario
-- takes (scenarios/*.lua, examples/custom_sweep.lua, experiment.main):
--
--   local opts, problem = scenario_args.parse(arg)
--   opts.traces, opts.out, opts.jobs, opts.quiet, opts.shard, opts.overrides, opts.help
--   local opts, problem = scenario_args.parse_whole(arg, { ["--config"] = "config" }, "out_dir")
--
-- docs/experiments.md ("Running a scenario") describes them.
local cli = require "gpush.cli"
local core = require "gpush.core"

local M = {}

M.USAGE = "[--traces PATH ...] [--out DIR] [--jobs N] [--quiet] [--shard I/N] [-p key=value ...]"

-- Parses the options; returns opts or nil, message.  opts.jobs: an integer
-- (default: every core), opts.shard {index, count}.
function M.parse(args)
  local opts, problem = cli.parse_args(args, { ["--traces"] = "+traces", ["--out"] = "=out",
    ["--jobs"] = "=jobs", ["-j"] = "=jobs", ["--quiet"] = "quiet", ["-q"] = "quiet", ["--shard"] = "=shard",
    ["-p"] = "+overrides", ["--help"] = "help", ["-h"] = "help" })
  if not opts then
    return nil, problem
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

-- A scenario that compares across every kernel takes the options above
-- without --shard, plus options of its own with one value each (`own`
-- maps an option to the field it fills, e.g. { ["--config"] = "config" }).
-- Returns opts (opts.out defaulting to `default_out`) or nil, message;
-- --help is left to the caller (opts.help).
function M.parse_whole(args, own, default_out)
  local rest = { [0] = args[0] }
  local mine = {}
  local i = 1
  while i <= #args do
    local field = own[args[i]]
    if field then
      if args[i + 1] == nil then
        return nil, ("%s expects a value"):format(args[i])
      end
      mine[field], i = args[i + 1], i + 2
    else
      rest[#rest + 1], i = args[i], i + 1
    end
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

return M
