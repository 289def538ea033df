-- gpush merge: combine the partial results of a sharded sweep.
--
--   gpush merge [--out DIR] [--quiet] PARTIAL.json ...
--
-- Each PARTIAL is OUT/<sweep>.shard-I-of-N.json as `--shard I/N` writes it.
-- The partials must come from the same sweep (same identity: definition,
-- parameters, workloads, models, gpush version), be complete, and cover
-- shards 1..N exactly once; then merge writes DIR/<sweep>.csv, .json and
-- .md, the files the single-process run writes (DIR defaults to the folder
-- of the first partial).  Exit codes: 0, 1 (refused, unreadable, or the
-- merged sweep has failed points), 2 (usage).
local cli = require "gpush.cli"
local experiment = require "gpush.experiment"
local results = require "gpush.results"

local M = {}

M.usage = "usage: gpush merge [--out DIR] [--quiet] PARTIAL.json ...\n"

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local opts, problem = cli.parse_args(args, { ["--out"] = "=out", ["--quiet"] = "quiet", ["-q"] = "quiet",
    ["--help"] = "help", ["-h"] = "help" })
  if not opts then
    err:write("gpush merge: ", problem, "\n", M.usage)
    return 2
  end
  if opts.help then
    out:write(M.usage)
    return 0
  end
  if #opts.words == 0 then
    err:write("gpush merge: give the partial results to merge (DIR/*.shard-*.json)\n", M.usage)
    return 2
  end
  local partials = {}
  for i, path in ipairs(opts.words) do
    local p, read_err = results.read_json(path)
    if not p then
      err:write("gpush merge: ", read_err, "\n")
      return 1
    end
    partials[i] = p
  end
  local command = experiment.command_line { [0] = "merge", table.unpack(args) }
  local merged, merge_err = experiment.merge(partials, opts.words, command)
  if not merged then
    err:write("gpush merge: ", merge_err, "\n")
    return 1
  end
  local dir = opts.out or opts.words[1]:match("^(.*)/[^/]*$") or "."
  local written, write_err = experiment.write_outputs(merged, dir, { inputs = opts.words })
  if not written then
    err:write("gpush merge: ", write_err, "\n")
    return 1
  end
  if not opts.quiet then
    out:write(("Merged %d shards of '%s' (%d rows). Wrote %s.\n"):format(#partials, merged.extra.sweep.name,
      #merged.rows, table.concat(written, ", ")))
  end
  return experiment.report_end("gpush merge", merged, err)
end

return M
