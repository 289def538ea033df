-- gpush.scenario_args: the command-line options every experiment scenario
-- takes (scenarios/*.lua, examples/custom_sweep.lua, experiment.main):
--
--   local opts, problem = scenario_args.parse(arg)
--   opts.traces, opts.out, opts.jobs, opts.quiet, opts.shard, opts.overrides, opts.help
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

return M
