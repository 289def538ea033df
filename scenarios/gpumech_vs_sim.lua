-- GPUMech against the abstract simulator: cycles per kernel under RR/LRR and GTO, relative difference, mean |difference|.
--
--   gpush scenarios/gpumech_vs_sim.lua [--config NAME] [--traces PATH ...] [--out DIR] [--quiet] [-p key=value ...]
--
-- The GPUMech paper validates its analytical model against a detailed
-- simulator; this scenario does the same with gpush's own reference model.
-- Every kernel of the inputs (default: the embedded synthetic suite and, when
-- ../shared/traces is present, every real trace there) is predicted on one
-- configuration (default a100) by GPUMech under round-robin and
-- greedy-then-oldest scheduling and simulated by the abstract timing
-- simulator under loose round-robin and GTO.  For each kernel and policy pair
-- it prints both cycle counts and the relative difference
-- (GPUMech - simulator) / simulator, then the mean absolute difference per
-- policy, as the paper reports its error.  It writes DIR/gpumech_vs_sim.csv
-- and DIR/gpumech_vs_sim.md (default DIR: gpumech_vs_sim_out).
local gpush = require "gpush"

local PAIRS = { { gpumech = "rr", sim = "lrr", label = "RR/LRR" }, { gpumech = "gto", sim = "gto", label = "GTO" } }

local function usage(problem)
  io.stderr:write("gpumech_vs_sim: ", problem, "\n", "usage: gpush scenarios/gpumech_vs_sim.lua ",
    "[--config NAME] [--traces PATH ...] [--out DIR] [--quiet] [-p key=value ...]\n")
  os.exit(2)
end

local opts, problem = require("gpush.cli").parse_args(arg, { ["--config"] = "=config",
  ["--traces"] = "+traces", ["--out"] = "=out", ["--quiet"] = "quiet", ["-p"] = "+overrides" })
if not opts then
  usage(problem)
end
if #opts.words > 0 then
  usage("unknown argument '" .. opts.words[1] .. "'")
end
opts.out = opts.out or "gpumech_vs_sim_out"

local function note(fmt, ...)
  if not opts.quiet then
    io.stderr:write("gpumech_vs_sim: ", fmt:format(...), "\n")
  end
end

-- The inputs: the ones given, else the suite and every shared trace folder.
local function default_inputs()
  local inputs = { "suite" }
  local shared = (os.getenv("GPUSH_SHARED") or "../shared") .. "/traces"
  local names = gpush.core.list_dir(shared)
  if not names then
    note("no real traces at %s (absent in a fresh clone); comparing the embedded suite only", shared)
    return inputs
  end
  for _, name in ipairs(names) do
    if gpush.core.list_dir(shared .. "/" .. name) then
      inputs[#inputs + 1] = shared .. "/" .. name
    end
  end
  return inputs
end

local cfg, cfg_err = gpush.config.load(opts.config or "a100", opts.overrides)
if not cfg then
  error(cfg_err, 0)
end

-- One row per kernel launch and policy pair.
local rows = {}
local started = gpush.core.now()
for _, input in ipairs(#opts.traces > 0 and opts.traces or default_inputs()) do
  local iter, iter_err = gpush.trace.kernels_of(input)
  if not iter then
    error(iter_err, 0)
  end
  local source = input:match("([^/]+)/*$")
  for launch, kernel in iter do
    local t0 = gpush.core.now()
    local prepared = assert(gpush.gpumech.prepare(kernel, cfg))
    for _, pair in ipairs(PAIRS) do
      local g = assert(gpush.gpumech.predict(kernel, cfg, { policy = pair.gpumech, prepared = prepared }))
      local s = assert(gpush.sim.run(kernel, cfg, { policy = pair.sim }))
      rows[#rows + 1] = { source = source, launch = launch.launch, kernel = launch.kernel, policy = pair.label,
        warp_instructions = s.warp_instructions, gpumech_cycles = g.cycles, sim_cycles = s.cycles,
        difference = (g.cycles - s.cycles) / s.cycles }
    end
    note("%-28s launch %-3d %.2f s", source .. ":" .. launch.kernel:sub(1, 20), launch.launch, gpush.core.now() - t0)
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
}

local csv = assert(io.open(opts.out .. "/gpumech_vs_sim.csv", "w"))
for _, line in ipairs(provenance) do
  csv:write("# ", line, "\n")
end
csv:write("source,launch,kernel,policy,warp_instructions,gpumech_cycles,sim_cycles,difference\n")
for _, r in ipairs(rows) do
  csv:write(("%s,%d,%s,%s,%d,%.0f,%.0f,%.6f\n"):format(r.source, r.launch, r.kernel, r.policy,
    r.warp_instructions, r.gpumech_cycles, r.sim_cycles, r.difference))
end
csv:close()

local lines = {
  ("# GPUMech against the abstract simulator on '%s'"):format(cfg._name), "",
  ("%d kernel launches x %d policies in %.1f s. Difference = (GPUMech - simulator) / simulator."):format(
    #rows // #PAIRS, #PAIRS, gpush.core.now() - started), "",
  "| source | launch | kernel | policy | GPUMech cycles | simulator cycles | difference |",
  "|---|---|---|---|---|---|---|",
}
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
