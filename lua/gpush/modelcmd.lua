-- gpush.modelcmd: the shared shape of the model commands (gpush gpumech,
-- gpush sim): parse PATH --config NAME -p ... --policy P --kernel SPEC
-- --json, load the configuration once, run the model on every selected
-- launch, and print either a JSON array of one object per launch or a table with
-- totals.  A command gives a spec:
--   prog, usage (the synopsis), help (what the options mean, printed by
--   --help after the synopsis), policies (allowed --policy values), options (extra
--   cli.parse_args entries), run(kernel, cfg, opts) -> row or nil, message,
--   title(rows, cfg) -> first line, extra = {label, format(row)} (one numeric
--   column after IPC), detail(row) -> the last column's text.
local cli = require "gpush.cli"
local config = require "gpush.config"
local json = require "gpush.json"
local trace = require "gpush.trace"

local M = {}

-- The options every model command takes, for its --help.
M.COMMON_HELP = [==[
  PATH          what to model: a trace (a kernelslist.g, a folder holding
                one, a .traceg, .traceg.gz, .traceg.xz or .gpt file), `suite`
                (every kernel of the embedded synthetic suite),
                `suite:NAME` (one of them; `gpush workloads` lists them),
                `variants` or `variants:NAME` (the suite's seeded variants:
                all, or one base kernel's or regime's; `gpush workloads
                --variants` lists them)
  --config NAME a shipped preset (`gpush config list`) or a YAML file
  -p KEY=VALUE  override one parameter (repeatable; `gpush config describe`)
  --kernel SPEC the launches to model: comma-separated launch ids, ranges
                LOW-HIGH and kernel names (exact, or any name containing it)
  --json        a JSON array with one object per launch instead of the table
Exit codes: 0, 1 (bad input or a model error), 2 (usage).
]==]

function M.main(spec, args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local options = { ["--json"] = "json", ["--help"] = "help", ["-h"] = "help", ["--config"] = "=config",
    ["--policy"] = "=policy", ["--kernel"] = "=kernel", ["-p"] = "+overrides" }
  for option, dest in pairs(spec.options or {}) do
    options[option] = dest
  end
  local prefix = "gpush " .. spec.prog .. ": "
  local usage = spec.usage .. ("(gpush %s --help explains every option)\n"):format(spec.prog)
  local opts, problem = cli.parse_args(args, options)
  if not opts then
    err:write(prefix, problem, "\n", usage)
    return 2
  end
  if opts.help then
    out:write(spec.usage, spec.help or "")
    return 0
  end
  if #opts.words ~= 1 or not opts.config then
    err:write(prefix, "give one PATH and --config NAME\n", usage)
    return 2
  end
  if opts.policy and #spec.policies == 0 then
    err:write(prefix, "takes no --policy\n", spec.usage)
    return 2
  elseif opts.policy then
    local allowed = false
    for _, p in ipairs(spec.policies) do
      allowed = allowed or p == opts.policy
    end
    if not allowed then
      err:write(prefix, "--policy must be ", table.concat(spec.policies, " or "), ", got '", opts.policy, "'\n")
      return 2
    end
  end
  local invalid = spec.validate and spec.validate(opts)
  if invalid then
    err:write(prefix, invalid, "\n")
    return 2
  end
  local cfg, cfg_err = config.load(opts.config, opts.overrides)
  if not cfg then
    err:write(prefix, cfg_err, "\n")
    return 1
  end
  if cfg._defaulted then
    err:write(prefix, ("note: '%s' has no preset: %d parameters take the schema defaults (gpush config show %s"
      .. " lists them; 'preset: NAME' inherits a shipped GPU)\n"):format(cfg._name, #cfg._defaulted, opts.config))
  end
  local iter, message = trace.kernels_of(opts.words[1], opts.kernel)
  if not iter then
    err:write(prefix, message, "\n")
    return 1
  end
  local rows = {}
  local ok, failure = pcall(function()
    for launch, kernel in iter do
      local row, run_err = spec.run(kernel, cfg, opts)
      kernel:close()
      if not row then
        error(run_err, 0)
      end
      row.launch = launch.launch
      rows[#rows + 1] = row
    end
  end)
  if not ok then
    err:write(prefix, tostring(failure), "\n")
    return 1
  end
  if #rows == 0 then
    err:write(prefix, "no launch matches --kernel ", tostring(opts.kernel), "\n")
    return 1
  end
  if opts.json then
    out:write(json.encode(rows, true), "\n")
    return 0
  end
  out:write(spec.title(rows, cfg), "\n")
  local fmt = "%6s  %-30s %12s %10s %7s %9s  %s\n"
  out:write(fmt:format("launch", "kernel", "cycles", "time us", "IPC", spec.extra[1], spec.detail_label))
  local cycles, us, insts = 0, 0, 0
  for _, r in ipairs(rows) do
    local name = #r.kernel > 30 and (r.kernel:sub(1, 27) .. "...") or r.kernel
    out:write(fmt:format(r.launch, name, ("%.0f"):format(r.cycles), ("%.2f"):format(r.time_us),
      ("%.3f"):format(r.ipc), spec.extra[2](r), spec.detail(r)))
    for _, w in ipairs(r.warnings) do
      out:write("        note: ", w, "\n")
    end
    cycles, us, insts = cycles + r.cycles, us + r.time_us, insts + r.ipc * r.cycles
  end
  out:write(fmt:format("total", ("%d launches"):format(#rows), ("%.0f"):format(cycles), ("%.2f"):format(us),
    ("%.3f"):format(insts / cycles), "", ""))
  return 0
end

return M
