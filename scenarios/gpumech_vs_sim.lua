-- GPUMech against the abstract simulator, like the paper's Fig. 11 and 12: every kernel on
-- several presets under RR/LRR and GTO, gpush's equations next to the paper's GPUMech and its
-- Table II comparison models, with each model's mean and largest |difference| per preset.
--
--   gpush scenarios/gpumech_vs_sim.lua [--config NAME[,NAME...]] [--traces PATH ...] [--out DIR]
--                                      [--jobs N] [--quiet] [-p key=value ...]
--
-- The GPUMech paper validates its analytical model against a detailed
-- simulator; this scenario does the same with gpush's own reference model,
-- which is a reference and not the truth.  Every kernel of the inputs
-- (default: the embedded suite and, when ../shared/traces is present, every
-- real trace there) runs on each preset (default gtx660ti, gtx1080, a100,
-- h100-pcie) through the simulator under loose round-robin and GTO and
-- through GPUMech under RR and GTO: gpush's equations (the default model),
-- the paper's GPUMech (MT_MSHR_BAND under the paper's equations) and the
-- paper's comparison models naive, Markov_Chain, MT and MT_MSHR, on the
-- experiment engine (--jobs N worker processes, default every core; a
-- progress line on stderr unless --quiet).  Per kernel, policy and model it
-- prints the relative difference (model - simulator) / simulator, then per
-- preset, policy and model the mean absolute difference and the largest,
-- and whether gpush's equations meet the targets (mean at most 10 %, no
-- kernel beyond 25 %).  It writes DIR/gpumech_vs_sim.csv (one row per
-- preset, kernel, policy and model) and DIR/gpumech_vs_sim.md (default
-- DIR: gpumech_vs_sim_out).
local gpush = require "gpush"
local experiment = require "gpush.experiment"
local models = require "gpush.models"

local USAGE = "usage: gpush scenarios/gpumech_vs_sim.lua [--config NAME[,NAME...]] [--traces PATH ...] "
  .. "[--out DIR] [--jobs N] [--quiet] [-p key=value ...]\n"
local PRESETS = { "gtx660ti", "gtx1080", "a100", "h100-pcie" }
local POLICIES = { { gpumech = "rr", sim = "lrr", label = "RR" }, { gpumech = "gto", sim = "gto", label = "GTO" } }
local MODELS = models.family("gpumech").COMPARED
local TARGET_MEAN, TARGET_MAX = 0.10, 0.25

-- --config is this scenario's own option; the rest are the engine's.
local opts, usage = experiment.scenario_options("gpumech_vs_sim", arg, { ["--config"] = "config" }, USAGE)
local presets = PRESETS
if opts.config then
  presets = {}
  for name in opts.config:gmatch("[^,]+") do
    presets[#presets + 1] = name
  end
end

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

local cfgs = {}
for i, preset in ipairs(presets) do
  local cfg, cfg_err = gpush.config.load(preset, opts.overrides)
  if not cfg then
    usage(cfg_err)
  end
  cfgs[i] = cfg
end

local sweep_models = {}
for _, pol in ipairs(POLICIES) do
  sweep_models[#sweep_models + 1] = models.get("sim", { policy = pol.sim, name = "sim-" .. pol.label })
  for _, m in ipairs(MODELS) do
    local o = { policy = pol.gpumech, name = m.key .. "-" .. pol.label }
    for k, v in pairs(m.opts) do
      o[k] = v
    end
    sweep_models[#sweep_models + 1] = models.get("gpumech", o)
  end
end

-- One sweep per preset; rows: one per preset, kernel launch, policy and model.
local inputs = #opts.traces > 0 and opts.traces or default_inputs()
local started = gpush.core.now()
-- An interrupted or failing preset ends the run: the finished rows are
-- written, marked, and the exit code says so.
local rows, all_rows, res = {}, {}, nil
for pi, preset in ipairs(presets) do
  local sweep = experiment.new { name = "gpumech_vs_sim", base = { preset = preset, overrides = opts.overrides },
    parameters = {}, workloads = inputs, models = sweep_models, source = arg[0] }
  res = experiment.run_scenario("gpumech_vs_sim", sweep, opts, arg, true)
  local by_key = {}
  for _, r in ipairs(res.rows) do
    by_key[table.concat({ r.workload, r.launch, r.kernel, r.model }, "\0")] = r
    all_rows[#all_rows + 1] = r
  end
  for _, r in ipairs(res.rows) do
    for _, pol in ipairs(POLICIES) do
      if r.model == "sim-" .. pol.label then
        local partners = {}
        for j, m in ipairs(MODELS) do
          partners[j] = by_key[table.concat({ r.workload, r.launch, r.kernel, m.key .. "-" .. pol.label }, "\0")]
        end
        if #partners == #MODELS then -- an interrupted run may lack some
          for j, m in ipairs(MODELS) do
            local g = partners[j]
            rows[#rows + 1] = { preset = cfgs[pi]._name, source = r.workload:match("([^/]+)/*$"),
              launch = r.launch, kernel = r.kernel, policy = pol.label, model = m.key, cycles = g.cycles,
              sim_cycles = r.cycles, difference = (g.cycles - r.cycles) / r.cycles,
              bound = g.bound ~= "" and g.bound or nil }
          end
        end
      end
    end
  end
  if res.incomplete or #res.failures > 0 then
    break
  end
end

-- Per preset, policy and model: kernels, mean |difference|, the largest.
local summary = {}
for _, preset in ipairs(presets) do
  for _, pol in ipairs(POLICIES) do
    for _, m in ipairs(MODELS) do
      local s = { preset = preset, policy = pol.label, model = m, kernels = 0, sum = 0 }
      for _, r in ipairs(rows) do
        if r.preset == preset and r.policy == pol.label and r.model == m.key then
          s.kernels, s.sum = s.kernels + 1, s.sum + math.abs(r.difference)
          if not s.worst or math.abs(r.difference) > math.abs(s.worst.difference) then
            s.worst = r
          end
        end
      end
      s.mean = s.kernels > 0 and s.sum / s.kernels or 0
      summary[#summary + 1] = s
    end
  end
end

local provenance = {
  ("gpush %s"):format(gpush.version),
  "presets " .. table.concat((function()
    local list = {}
    for i, cfg in ipairs(cfgs) do
      list[i] = ("%s (hash %s)"):format(cfg._name, gpush.config.hash(cfg))
    end
    return list
  end)(), ", ") .. (#opts.overrides > 0 and (", overrides " .. table.concat(opts.overrides, " ")) or ""),
  ("command gpush scenarios/gpumech_vs_sim.lua %s"):format(table.concat(arg, " ")),
  "trace hashes: " .. (function()
    local seen, list = {}, {}
    for _, r in ipairs(all_rows) do
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

local csv_lines = { "preset,source,launch,kernel,policy,model,cycles,sim_cycles,difference,bound" }
for _, r in ipairs(rows) do
  csv_lines[#csv_lines + 1] = ("%s,%s,%d,%s,%s,%s,%.1f,%.1f,%.6f,%s"):format(r.preset, r.source, r.launch, r.kernel,
    r.policy, r.model, r.cycles, r.sim_cycles, r.difference, r.bound or "")
end
experiment.write_scenario_csv(opts.out, "gpumech_vs_sim.csv", provenance, csv_lines)

-- Markdown: per preset a table of kernels x (policy, model), then the summary.
local lines = {
  "# GPUMech against the abstract simulator", "",
  ("%d kernel launches over %d presets x %d policies in %.1f s (%d worker%s). Difference = (model - simulator) "
    .. "/ simulator; the simulator is a reference, not the truth. gpush = GPUMech under gpush's equations "
    .. "(the default; in brackets the resource that binds it), paper = the paper's GPUMech (MT_MSHR_BAND), "
    .. "then the paper's comparison models."):format(#rows // (#POLICIES * #MODELS), #presets,
    #POLICIES, gpush.core.now() - started, opts.jobs, opts.jobs == 1 and "" or "s"), "",
}
if res.incomplete then
  table.insert(lines, 3, ("**Incomplete run:** %s; %s; the tables cover the finished launches only."):format(
    res.incomplete, experiment.tasks_ran(res)))
  table.insert(lines, 4, "")
end
local header = { "source", "launch", "kernel", "policy", "simulator cycles" }
for _, m in ipairs(MODELS) do
  header[#header + 1] = m.key
end
for _, preset in ipairs(presets) do
  lines[#lines + 1] = ("## %s"):format(preset)
  lines[#lines + 1] = ""
  lines[#lines + 1] = "| " .. table.concat(header, " | ") .. " |"
  lines[#lines + 1] = "|" .. ("---|"):rep(#header)
  for i = 1, #rows, #MODELS do
    local r = rows[i]
    if r.preset == preset then
      local cells = { r.source, tostring(r.launch), r.kernel, r.policy, ("%.0f"):format(r.sim_cycles) }
      for j = 0, #MODELS - 1 do
        local x = rows[i + j]
        cells[#cells + 1] = ("%+.1f%%"):format(100 * x.difference) .. (x.bound and (" (" .. x.bound .. ")") or "")
      end
      lines[#lines + 1] = "| " .. table.concat(cells, " | ") .. " |"
    end
  end
  lines[#lines + 1] = ""
end
lines[#lines + 1] = "## Summary"
lines[#lines + 1] = ""
lines[#lines + 1] = "| preset | policy | model | kernels | mean abs. difference | largest |"
lines[#lines + 1] = "|---|---|---|---|---|---|"
local misses = {}
for _, s in ipairs(summary) do
  lines[#lines + 1] = ("| %s | %s | %s | %d | %.1f%% | %s |"):format(s.preset, s.policy, s.model.label, s.kernels,
    100 * s.mean, s.worst and ("%s %+.1f%%"):format(s.worst.kernel, 100 * s.worst.difference) or "-")
  if s.model.key == "gpush" and s.worst and (s.mean > TARGET_MEAN or math.abs(s.worst.difference) > TARGET_MAX) then
    misses[#misses + 1] = ("%s %s"):format(s.preset, s.policy)
  end
end
lines[#lines + 1] = ""
lines[#lines + 1] = #misses == 0
    and ("gpush's equations meet the targets on every preset and policy (mean |difference| at most %d %%, "
      .. "no kernel beyond %d %%)."):format(100 * TARGET_MEAN, 100 * TARGET_MAX)
  or ("gpush's equations miss the targets (mean at most %d %%, no kernel beyond %d %%) on: %s.")
    :format(100 * TARGET_MEAN, 100 * TARGET_MAX, table.concat(misses, ", "))
local body = table.concat(lines, "\n")
experiment.write_scenario_markdown(opts.out, "gpumech_vs_sim.md", body, provenance)
print(body)
print(("Wrote %s/gpumech_vs_sim.csv and %s/gpumech_vs_sim.md."):format(opts.out, opts.out))
os.exit(experiment.report_end("gpumech_vs_sim", res, io.stderr))
