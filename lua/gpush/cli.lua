-- gpush.cli: subcommands of the gpush executable.
--
-- `gpush NAME args...` calls require(module).main(args), where args is the
-- list of words after NAME; main returns an exit code (0 success, 1 model or
-- input error, 2 usage error).  A new command is one line in M.commands and
-- one module under gpush/cmd/; the C executable never changes.
local text = require "gpush.text"

local M = {}

M.commands = {
  { name = "config", module = "gpush.cmd.config",
    summary = "describe the parameter schema; show, list, diff presets; import Accel-Sim configurations" },
  { name = "trace", module = "gpush.cmd.trace",
    summary = "read Accel-Sim traces: per-launch geometry, instruction mix, memory behaviour" },
  { name = "workloads", module = "gpush.cmd.workloads",
    summary = "list the embedded synthetic kernel suite (the default workload)" },
  { name = "gpumech", module = "gpush.cmd.gpumech",
    summary = "predict kernel cycles, IPC and CPI stacks with GPUMech (RR/GTO)" },
  { name = "sim", module = "gpush.cmd.sim",
    summary = "simulate kernels warp by warp (abstract timing, LRR/GTO): cycles and stalls" },
  { name = "mech", module = "gpush.cmd.mech",
    summary = "Blem's mechanistic S-core and M-core models: cycles, terms and module breakdown" },
  { name = "correlate", module = "gpush.cmd.correlate",
    summary = "models against measured cycles (CSV): errors, plots; --fit parameters with standard errors" },
  { name = "bounds", module = "gpush.cmd.bounds",
    summary = "first-principles lower bounds on kernel cycles (issue, pipes, DRAM, MSHRs, ...) and which binds" },
  { name = "scenarios", module = "gpush.cmd.scenarios",
    summary = "list the runnable studies in scenarios/ with their descriptions" },
  { name = "run", module = "gpush.cmd.run",
    summary = "run a scenario by name (gpush run kepler_sweep --help), from ./scenarios or the installed ones" },
  { name = "ml", module = "gpush.cmd.ml",
    summary = "scaling surfaces (Wu et al.): simulated corpus, train, predict, evaluate (docs/ml.md)" },
  { name = "merge", module = "gpush.cmd.merge",
    summary = "combine the partial results of a sharded sweep (--shard I/N) into its CSV/JSON/Markdown" },
  { name = "multicore", module = "gpush.cmd.multicore",
    summary = "Hill and Marty's best multicore speedup per topology (searching r finely)" },
  { name = "darksilicon", module = "gpush.cmd.darksilicon",
    summary = "dark-silicon projection 45 -> 8 nm: speedup, dark fraction, cores, topology per node" },
  { name = "translate", module = "gpush.cmd.translate",
    summary = "Blem's S-core <-> M-core translation of the suite kernels (Tables 5.3-5.4), naive beside it" },
  { name = "bench", module = "gpush.cmd.bench",
    summary = "throughput benchmarks next to a same-run baseline (bench trace)" },
}

local function find(name)
  for _, command in ipairs(M.commands) do
    if command.name == name then
      return command
    end
  end
end

-- Parses a command's words against `options`, a table from option to its
-- destination: "json" makes opts.json = true (a flag), "=kernel" stores the
-- next word in opts.kernel, "+overrides" appends the next word to the list
-- opts.overrides (also written glued, as -psm.count=8).  Other words go to
-- opts.words in order.  Returns opts, or nil and a message for the usage.
function M.parse_args(args, options)
  local opts = { words = {} }
  for _, dest in pairs(options) do
    if dest:sub(1, 1) == "+" then
      opts[dest:sub(2)] = {}
    end
  end
  local i = 1
  while i <= #args do
    local a = args[i]
    local dest = options[a]
    local glued
    if not dest and a:sub(1, 1) == "-" then
      for option, d in pairs(options) do
        if d:sub(1, 1) == "+" and #option == 2 and a:sub(1, 2) == option and a:find("=", 3, true) then
          dest, glued = d, a:sub(3)
        end
      end
    end
    if dest == nil then
      if a:sub(1, 1) == "-" and #a > 1 then
        return nil, ("unknown option '%s'"):format(a)
      end
      opts.words[#opts.words + 1] = a
    elseif dest:sub(1, 1) == "=" or dest:sub(1, 1) == "+" then
      local value = glued or args[i + 1]
      if value == nil then
        return nil, ("%s needs a value"):format(a)
      end
      if not glued then
        i = i + 1
      end
      if dest:sub(1, 1) == "=" then
        opts[dest:sub(2)] = value
      else
        table.insert(opts[dest:sub(2)], value)
      end
    else
      opts[dest] = true
    end
    i = i + 1
  end
  return opts
end

-- Writes "PROG: message" and the usage to err; returns 2, the usage exit code.
function M.usage_error(prog, usage, message, err)
  err:write(prog, ": ", message, "\n", usage)
  return 2
end

-- The shape of a subcommand with actions (gpush config show ..., gpush trace
-- info ..., gpush bench sim ...): parses args with spec.options (plus --help
-- and -h), checks them with spec.validate(opts) -> problem or nil when given,
-- takes the first word as the action and returns
-- spec.actions[action](opts, out, err), the exit code.  --help prints
-- spec.usage and spec.help (exit 0); a bad option, a failed check, an unknown or a missing
-- action is a usage error naming spec.prog (exit 2).  spec.noun names an
-- action in messages ("unknown benchmark 'x'"; default "action"),
-- spec.missing is the message when none is given.
function M.dispatch(spec, args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local options = { ["--help"] = "help", ["-h"] = "help" }
  for option, dest in pairs(spec.options or {}) do
    options[option] = dest
  end
  local opts, problem = M.parse_args(args, options)
  if not opts then
    return M.usage_error(spec.prog, spec.usage, problem, err)
  end
  if opts.help then
    out:write(spec.usage, spec.help or "") -- spec.help: what the options mean
    return 0
  end
  problem = spec.validate and spec.validate(opts)
  if problem then
    return M.usage_error(spec.prog, spec.usage, problem, err)
  end
  local name = table.remove(opts.words, 1)
  local action = name and spec.actions[name]
  if not action then
    local noun = spec.noun or "action"
    return M.usage_error(spec.prog, spec.usage,
      name and ("unknown %s '%s'"):format(noun, name) or spec.missing or ("an %s is needed"):format(noun), err)
  end
  return action(opts, out, err)
end

function M.help(out)
  out = out or io.stdout
  out:write("\ncommands:\n")
  local rows = {}
  for i, command in ipairs(M.commands) do
    rows[i] = { command.name, command.summary }
  end
  out:write(text.aligned_list(rows, "  "))
  out:write("\n`gpush COMMAND --help` describes one command.\n")
end

function M.main(name, args)
  local command = find(name)
  if not command then
    local names = {}
    for i, c in ipairs(M.commands) do
      names[i] = c.name
    end
    local guess = text.closest(name, names)
    io.stderr:write(("gpush: unknown command or script '%s'%s\n"):format(name,
      guess and (" (did you mean '" .. guess .. "'?)") or ""))
    M.help(io.stderr)
    return 2
  end
  return require(command.module).main(args)
end

return M
