-- GPUMech against the abstract simulator: cycles per kernel under RR/LRR and GTO, relative difference, mean |difference|.
--
--   gpush scenarios/gpumech_vs_sim.lua [--config NAME] [--traces PATH ...] [--out DIR] [--jobs N] [--quiet]
--                                      [-p key=value ...]
--
-- The GPUMech paper validates its analytical model against a detailed
-- simulator; this scenario does the same with gpush's own reference model.
-- Every kernel of the inputs (default: the embedded synthetic suite and, when
-- ../shared/traces is present, every real trace there) is predicted on one
-- configuration (default a100) by GPUMech under round-robin and
-- greedy-then-oldest scheduling and simulated by the abstract timing
-- simulator under loose round-robin and GTO, on the experiment engine
-- (gpush.experiment: --jobs N worker processes, default every core; a
-- progress line on stderr unless --quiet).  For each kernel and policy pair
-- it prints both cycle counts and the relative difference
-- (GPUMech - simulator) / simulator, then the mean absolute difference per
-- policy, as the paper reports its error.  It writes DIR/gpumech_vs_sim.csv
-- and DIR/gpumech_vs_sim.md (default DIR: gpumech_vs_sim_out).
local gpush = require "gpush"
local experiment = require "gpush.experiment"
local scenario_args = require "gpush.scenario_args"

local PAIRS = { { gpumech = "rr", sim = "lrr", label = "RR/LRR" }, { gpumech = "gto", sim = "gto", label = "GTO" } }
local USAGE = "usage: gpush scenarios/gpumech_vs_sim.lua [--config NAME] [--traces PATH ...] [--out DIR] "
  .. "[--jobs N] [--quiet] [-p key=value ...]\n"

local function usage(problem)
  io.stderr:write("gpumech_vs_sim: ", problem, "\n", USAGE)
  os.exit(experiment.EXIT_USAGE)
end

-- --config is this scenario's own option; the rest are the engine's.
local preset, rest = scenario_args.take(arg, "--config", "a100")
if not preset then
  usage(rest)
end
local opts, problem = scenario_args.parse(rest)
if not opts then
  usage(problem)
elseif opts.help then
  io.stdout:write(USAGE)
  os.exit(0)
elseif opts.shard then
  usage("--shard is not supported here: the comparison needs every kernel; use --jobs N")
end
opts.out = opts.out or "gpumech_vs_sim_out"

-- The inputs: the ones given, else the suite and every shared trace folder.
local function default_inputs()
  local inputs = { "suite" }
  local shared = (os.getenv("GPUSH_SHARED") or "../shared") .. "/traces"
  local names = gpush.core.list_dir(shared)
  if not names then
    if not opts.quiet then
      io.stderr:write(("gpumech_vs_sim: no real traces at %s (absent in a fresh clone); "
        .. "comparing the embedded suite only\n"):format(shared))
    end
    return inputs
  end
  for _, name in ipairs(names) do
    if gpush.core.list_dir(shared .. "/" .. name) then
      inputs[#inputs + 1] = shared .. "/" .. name
    end
  end
  return inputs
end

local cfg, cfg_err = gpush.config.load(preset, opts.overrides)
if not cfg then
  usage(cfg_err)
end

local models = {}
for _, pair in ipairs(PAIRS) do
  models[#models + 1] = experiment.models.gpumech { policy = pair.gpumech }
  models[#models + 1] = experiment.models.sim { policy = pair.sim }
end
local sweep = experiment.new { name = "gpumech_vs_sim", base = { preset = preset, overrides = opts.overrides },
  parameters = {}, workloads = #opts.traces > 0 and opts.traces or default_inputs(), models = models,
  source = arg[0] }
local started = gpush.core.now()
local res, run_err = experiment.run(sweep, { jobs = opts.jobs, quiet = opts.quiet, command = arg })
if not res then
  io.stderr:write("gpumech_vs_sim: ", run_err, "\n")
  os.exit(experiment.EXIT_FAILED)
end

-- One row per kernel launch and policy pair, in the engine's order.
local by_key = {}
for _, r in ipairs(res.rows) do
  by_key[table.concat({ r.workload, r.launch, r.kernel, r.model }, "\0")] = r
end
local rows = {}
for _, r in ipairs(res.rows) do
  for _, pair in ipairs(PAIRS) do
    if r.model == "gpumech-" .. pair.gpumech then
      local s = by_key[table.concat({ r.workload, r.launch, r.kernel, "sim-" .. pair.sim }, "\0")]
      if s then
        rows[#rows + 1] = { source = r.workload:match("([^/]+)/*$"), launch = r.launch, kernel = r.kernel,
          policy = pair.label, gpumech_cycles = r.cycles, sim_cycles = s.cycles,
          difference = (r.cycles - s.cycles) / s.cycles }
      end
    end
  end
end

-- Mean absolute relative difference per policy pair, and the largest one.
local summary = {}
for _, pair in ipairs(PAIRS) do
  local sum, n, worst = 0, 0, nil
  for _, r in ipairs(rows) do
    if r.policy == pair.label then
      sum, n = sum + math.abs(r.difference), n + 1
      if not worst or math.abs(r.difference) > math.abs(worst.difference) then
        worst = r
      end
    end
  end
  summary[#summary + 1] = { policy = pair.label, kernels = n, mean_abs = n > 0 and sum / n or 0, worst = worst }
end

local ok, mkdir_err = gpush.core.mkdir(opts.out)
if not ok then
  error(mkdir_err, 0)
end
local provenance = {
  ("gpush %s"):format(gpush.version),
  ("config %s, hash %s%s"):format(cfg._name, gpush.config.hash(cfg),
    #opts.overrides > 0 and (", overrides " .. table.concat(opts.overrides, " ")) or ""),
  ("command gpush scenarios/gpumech_vs_sim.lua %s"):format(table.concat(arg, " ")),
  "trace hashes: " .. (function()
    local seen, list = {}, {}
    for _, r in ipairs(res.rows) do
      local h = r.workload .. ":" .. r.kernel .. "=" .. r.trace_hash
      if not seen[h] then
        seen[h], list[#list + 1] = true, h
      end
    end
    return table.concat(list, " ")
  end)(),
}
if res.incomplete then -- an interrupted run says so first in both files
  table.insert(provenance, 1, ("incomplete: %s; %s"):format(res.incomplete, experiment.tasks_ran(res)))
end

local csv = assert(io.open(opts.out .. "/gpumech_vs_sim.csv", "w"))
for _, line in ipairs(provenance) do
  csv:write("# ", line, "\n")
end
csv:write("source,launch,kernel,policy,gpumech_cycles,sim_cycles,difference\n")
for _, r in ipairs(rows) do
  csv:write(("%s,%d,%s,%s,%.0f,%.0f,%.6f\n"):format(r.source, r.launch, r.kernel, r.policy,
    r.gpumech_cycles, r.sim_cycles, r.difference))
end
csv:close()

local lines = {
  ("# GPUMech against the abstract simulator on '%s'"):format(cfg._name), "",
  ("%d kernel launches x %d policies in %.1f s (%d worker%s). Difference = (GPUMech - simulator) / simulator."):format(
    #rows // #PAIRS, #PAIRS, gpush.core.now() - started, opts.jobs, opts.jobs == 1 and "" or "s"), "",
  "| source | launch | kernel | policy | GPUMech cycles | simulator cycles | difference |",
  "|---|---|---|---|---|---|---|",
}
if res.incomplete then
  table.insert(lines, 3, ("**Incomplete run:** %s; %s; the tables cover the finished launches only."):format(
    res.incomplete, experiment.tasks_ran(res)))
  table.insert(lines, 4, "")
end
for _, r in ipairs(rows) do
  lines[#lines + 1] = ("| %s | %d | %s | %s | %.0f | %.0f | %+.1f%% |"):format(r.source, r.launch, r.kernel,
    r.policy, r.gpumech_cycles, r.sim_cycles, 100 * r.difference)
end
lines[#lines + 1] = ""
lines[#lines + 1] = "| policy | kernels | mean abs. difference | largest |"
lines[#lines + 1] = "|---|---|---|---|"
for _, s in ipairs(summary) do
  lines[#lines + 1] = ("| %s | %d | %.1f%% | %s |"):format(s.policy, s.kernels, 100 * s.mean_abs,
    s.worst and ("%s %+.1f%%"):format(s.worst.kernel, 100 * s.worst.difference) or "-")
end
local body = table.concat(lines, "\n")
local md = assert(io.open(opts.out .. "/gpumech_vs_sim.md", "w"))
md:write(body, "\n\n")
for _, line in ipairs(provenance) do
  md:write("<!-- ", line, " -->\n")
end
md:close()
print(body)
print(("Wrote %s/gpumech_vs_sim.csv and %s/gpumech_vs_sim.md."):format(opts.out, opts.out))
os.exit(experiment.report_end("gpumech_vs_sim", res, io.stderr))
