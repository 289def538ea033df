-- gpush.cli: subcommands of the gpush executable.
--
-- `gpush NAME args...` calls require(module).main(args), where args is the
-- list of words after NAME; main returns an exit code (0 success, 1 model or
-- input error, 2 usage error).  A new command is one line in M.commands and
-- one module under gpush/cmd/; the C executable never changes.
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
  { name = "scenarios", module = "gpush.cmd.scenarios",
    summary = "list the runnable studies in scenarios/ with their descriptions" },
  { name = "ml", module = "gpush.cmd.ml",
    summary = "scaling surfaces (Wu et al.): simulated corpus, train, predict, evaluate (docs/ml.md)" },
  { name = "merge", module = "gpush.cmd.merge",
    summary = "combine the partial results of a sharded sweep (--shard I/N) into its CSV/JSON/Markdown" },
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

-- Levenshtein distance, for "did you mean".
function M.edit_distance(a, b)
  local previous = {}
  for j = 0, #b do
    previous[j] = j
  end
  for i = 1, #a do
    local current = { [0] = i }
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      current[j] = math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
    end
    previous = current
  end
  return previous[#b]
end

-- The closest of `candidates` to `word`, if it is close enough to suggest.
function M.closest(word, candidates)
  local best, best_distance
  for _, candidate in ipairs(candidates) do
    local d = M.edit_distance(word, candidate)
    if best_distance == nil or d < best_distance then
      best, best_distance = candidate, d
    end
  end
  if best and best_distance <= math.max(2, #word // 3) then
    return best
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

function M.help(out)
  out = out or io.stdout
  out:write("\ncommands:\n")
  for _, command in ipairs(M.commands) do
    out:write(("  %-10s %s\n"):format(command.name, command.summary))
  end
  out:write("\n`gpush COMMAND --help` describes one command.\n")
end

function M.main(name, args)
  local command = find(name)
  if not command then
    local names = {}
    for i, c in ipairs(M.commands) do
      names[i] = c.name
    end
    local guess = M.closest(name, names)
    io.stderr:write(("gpush: unknown command or script '%s'%s\n"):format(name,
      guess and (" (did you mean '" .. guess .. "'?)") or ""))
    M.help(io.stderr)
    return 2
  end
  return require(command.module).main(args)
end

return M
