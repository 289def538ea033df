-- gpush.modelcmd: the shared shape of the model commands (gpush gpumech,
-- gpush sim, gpush bounds): parse PATH --config NAME -p ... --policy P
-- --kernel SPEC --json [--per-pc [--top N]], load the configuration once,
-- run the model on every selected launch, and print either a JSON array of
-- one object per launch or a table with totals.  A command gives a spec:
--   prog, usage (the synopsis), help (what the options mean, printed by
--   --help after the synopsis), policies (allowed --policy values), options (extra
--   cli.parse_args entries), run(kernel, cfg, opts) -> row or nil, message,
--   title(rows, cfg) -> first line, legend (lines under it saying what each
--   column is), extra = {label, format(row)} (one numeric column after
--   IPC), detail(row) -> the last column's text, notes(row) -> lines
--   printed under the row (optional); per_pc = {categories = the family's
--   own, in order, unit = what a PC's cycles are} when the command takes
--   --per-pc (run then sees opts.per_pc and returns row.per_pc, costliest
--   first: {pc, opcode, line, executions, cycles, stalls = {category =
--   cycles}}).  Every row's `bottleneck` (the shared vocabulary,
--   gpush.models.vocabulary) has a column of its own.
local cli = require "gpush.cli"
local config = require "gpush.config"
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

-- The --per-pc options, for the help of the commands that take them.
M.PER_PC_HELP = [==[
  --per-pc      per static instruction (SASS PC): its opcode, executions
                and where its cycles go, costliest first, under each
                launch's row (with --json: each launch object's per_pc,
                every PC)
  --top N       the table's PCs per launch (default 20; 0: all)
]==]

function M.main(spec, args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local options = { ["--json"] = "json", ["--help"] = "help", ["-h"] = "help", ["--config"] = "=config",
    ["--policy"] = "=policy", ["--kernel"] = "=kernel", ["-p"] = "+overrides" }
  for option, dest in pairs(spec.options or {}) do
    options[option] = dest
  end
  if spec.per_pc then
    options["--per-pc"], options["--top"] = "per_pc", "=top"
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
  if opts.top and not (opts.per_pc and tonumber(opts.top) and math.floor(tonumber(opts.top)) == tonumber(opts.top)
      and tonumber(opts.top) >= 0) then
    err:write(prefix, opts.per_pc and ("--top takes a whole number >= 0, got '" .. opts.top .. "'")
      or "--top goes with --per-pc", "\n", usage)
    return 2
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
  if opts.json then -- gpush.json loaded here: a table run does not compile it
    out:write(require("gpush.json").encode(rows, true), "\n")
    return 0
  end
  out:write(spec.title(rows, cfg), "\n")
  for _, line in ipairs(spec.legend or {}) do
    out:write(line, "\n")
  end
  local fmt = "%6s  %-30s %12s %10s %8s %10s  %-10s  %s\n"
  out:write(fmt:format("launch", "kernel", "cycles", "time us", "IPC/GPU", spec.extra[1], "bottleneck",
    spec.detail_label))
  local cycles, us, insts = 0, 0, 0
  for _, r in ipairs(rows) do
    local name = #r.kernel > 30 and (r.kernel:sub(1, 27) .. "...") or r.kernel
    out:write(fmt:format(r.launch, name, ("%.0f"):format(r.cycles), ("%.2f"):format(r.time_us),
      ("%.3f"):format(r.ipc), spec.extra[2](r), r.bottleneck or "", spec.detail(r)))
    for _, line in ipairs(spec.notes and spec.notes(r) or {}) do
      out:write("        ", line, "\n")
    end
    for _, w in ipairs(r.warnings) do
      out:write("        note: ", w, "\n")
    end
    if opts.per_pc then
      M.write_per_pc(out, r, spec.per_pc, tonumber(opts.top or 20))
    end
    cycles, us, insts = cycles + r.cycles, us + r.time_us, insts + r.ipc * r.cycles
  end
  out:write(fmt:format("total", ("%d launches"):format(#rows), ("%.0f"):format(cycles), ("%.2f"):format(us),
    ("%.3f"):format(insts / cycles), "", "", ""))
  return 0
end

-- A PC's cycles by category as "DEP 89%  BASE 11%": its categories of at
-- least 0.5 % of its cycles, largest first (ties in the family's order).
local function where_they_go(p, categories)
  local parts = {}
  for i, c in ipairs(categories) do
    local v = p.stalls[c] or 0
    if p.cycles > 0 and v / p.cycles >= 0.005 then
      parts[#parts + 1] = { c, v, i }
    end
  end
  table.sort(parts, function(a, b)
    if a[2] ~= b[2] then
      return a[2] > b[2]
    end
    return a[3] < b[3]
  end)
  for i, part in ipairs(parts) do
    parts[i] = ("%s %.0f%%"):format(part[1], 100 * part[2] / p.cycles)
  end
  return table.concat(parts, "  ")
end

-- The per-PC table under a launch's row: row.per_pc's first `top` PCs (0:
-- all), costliest first, each with its share of the PCs' cycles and where
-- its cycles go (the family's categories, `about.categories`).
function M.write_per_pc(out, row, about, top)
  local list = row.per_pc or {}
  local total, executions = 0, 0
  for _, p in ipairs(list) do
    total, executions = total + p.cycles, executions + p.executions
  end
  local shown = top > 0 and math.min(top, #list) or #list
  out:write(("        per PC, %d of %d, costliest first; cycles: %s, %.0f in all; executions: warp "
    .. "instructions, %.0f in all\n"):format(shown, #list, about.unit, total, executions))
  local fmt = "        %10s  %-22s %11s %14s %6s  %s\n"
  out:write(fmt:format("pc", "opcode", "executions", "cycles", "share", "where its cycles go"))
  for i = 1, shown do
    local p = list[i]
    local opcode = #p.opcode > 22 and (p.opcode:sub(1, 19) .. "...") or p.opcode
    out:write(fmt:format(("0x%04x"):format(p.pc), opcode, ("%d"):format(p.executions), ("%.0f"):format(p.cycles),
      ("%.1f%%"):format(total > 0 and 100 * p.cycles / total or 0), where_they_go(p, about.categories)))
  end
end

return M
