-- gpush ml: machine-learned scaling surfaces (Wu et al., HPCA 2015;
-- docs/ml.md): build the simulated corpus, train, predict, evaluate.
local cli = require "gpush.cli"
local corpus = require "gpush.ml.corpus"
local csv = require "gpush.csv"
local dataset = require "gpush.ml.dataset"
local evaluate = require "gpush.ml.evaluate"
local json = require "gpush.json"
local probe = require "gpush.ml.probe"
local staging = require "gpush.staging"
local surface = require "gpush.models.surface"
local text = require "gpush.text"

local M = {}

local usage = [[
usage: gpush ml corpus [--grid default|full|ci] [--jobs N] [--force] [--quiet] [--json]
       gpush ml train [--data CSV | --grid NAME] [--base CUS/CORE/MEM] [--k K] [--seed S]
                      [--classifier neighbours|paper] [--kernels all|train] [--split family|kernel]
                      [--split-seed S] [--cu-probe quarter|none] --out MODEL.gsm
       gpush ml predict --model MODEL.gsm (--counters CSV | [--data CSV | --grid NAME] --kernel NAME)
                        [--target CUS/CORE/MEM ...] [--json]
       gpush ml evaluate [--data CSV | --grid NAME] [--k K] [--classifier neighbours|paper]
                         [--split family|kernel] [--split-seed S] [--folds F] [--seed S]
                         [--bases all|top] [--cu-probe quarter|none] [--jobs N] [--quiet] [--json]
       gpush ml info MODEL.gsm

Without --data the default simulated corpus is used (built on first use into
$XDG_CACHE_HOME/gpush, about 10 minutes on two idle cores, said before it
starts; `gpush ml corpus` builds it, `--grid ci` a small one in about a minute,
and an interrupted build resumes where it stopped).  `predict --kernel NAME`
takes a kernel of the data: an unknown NAME lists them.  `evaluate` holds out
whole kernel families by default (--split kernel: the paper's per-kernel
split, where every validation kernel's siblings are in training) and reports
next to its error the error with one cluster per set (K = 1) and with a
perfect classifier (the oracle).  By default each kernel is measured twice:
at the base and at the base clocks with about a quarter of its CUs (the CU
probe: `predict --counters` then needs probe_time_us, and probe_power_w for a
power model, measured there); --cu-probe none is the paper's protocol of one
base run.  The data CSV and the model file are described in docs/ml.md.
]]

local OPTIONS = {
  ["--grid"] = "=grid", ["--jobs"] = "=jobs", ["-j"] = "=jobs", ["--force"] = "force", ["--quiet"] = "quiet",
  ["-q"] = "quiet", ["--json"] = "json", ["--data"] = "=data", ["--base"] = "=base", ["--k"] = "=k",
  ["--seed"] = "=seed", ["--split-seed"] = "=split_seed", ["--kernels"] = "=kernels", ["--out"] = "=out",
  ["--model"] = "=model", ["--counters"] = "=counters", ["--target"] = "+targets", ["--bases"] = "=bases",
  ["--kernel"] = "=kernel", ["--split"] = "=split", ["--folds"] = "=folds", ["--classifier"] = "=classifier",
  ["--cu-probe"] = "=cu_probe",
}

-- Which options each subcommand takes (others are usage errors).
local ALLOWED = {
  corpus = { grid = true, jobs = true, force = true, quiet = true, json = true },
  train = { data = true, grid = true, base = true, k = true, seed = true, kernels = true, split = true,
    split_seed = true, classifier = true, cu_probe = true, out = true, jobs = true, quiet = true },
  predict = { model = true, counters = true, targets = true, json = true, data = true, grid = true, kernel = true,
    quiet = true },
  evaluate = { data = true, grid = true, k = true, split = true, split_seed = true, folds = true, seed = true,
    classifier = true, cu_probe = true, bases = true, jobs = true, quiet = true, json = true },
  info = {},
}

local function whole(text, option, min)
  local n = tonumber(text)
  if not n or math.type(n) ~= "integer" or n < min then
    return nil, ("%s expects a whole number of at least %d, got '%s'"):format(option, min, tostring(text))
  end
  return n
end

-- "32/1000/1375" -> {cus = 32, core_mhz = 1000, mem_mhz = 1375}
local function parse_config(text, option)
  local c, e, m = tostring(text):match("^([%d.]+)/([%d.]+)/([%d.]+)$")
  if not c then
    return nil, ("%s expects CUS/CORE_MHZ/MEM_MHZ such as 32/1000/1375, got '%s'"):format(option, tostring(text))
  end
  return { cus = tonumber(c), core_mhz = tonumber(e), mem_mhz = tonumber(m) }
end

-- Checks the options of the subcommand (the first word) and converts
-- numbers in place; returns a problem for the usage, or nil.
local function validate(opts)
  local sub = opts.words[1]
  if not ALLOWED[sub] then
    return nil -- cli.dispatch reports the unknown subcommand
  end
  for key in pairs(opts) do
    if key ~= "words" and key ~= "targets" and key ~= "help" and not ALLOWED[sub][key] then
      return ("'%s' does not take --%s"):format(sub, (key:gsub("_", "-")))
    end
  end
  if #opts.targets > 0 and not ALLOWED[sub].targets then
    return ("'%s' does not take --target"):format(sub)
  end
  if #opts.words > (sub == "info" and 2 or 1) then
    return ("unknown argument '%s'"):format(opts.words[#opts.words])
  end
  local err
  for _, spec in ipairs { { "jobs", "--jobs", 1 }, { "k", "--k", 1 }, { "seed", "--seed", 0 },
    { "split_seed", "--split-seed", 0 }, { "folds", "--folds", 1 } } do
    if opts[spec[1]] then
      opts[spec[1]], err = whole(opts[spec[1]], spec[2], spec[3])
      if not opts[spec[1]] then
        return err
      end
    end
  end
  if opts.grid and not corpus.GRIDS[opts.grid] then
    return ("--grid expects %s, got '%s'"):format(table.concat(corpus.GRID_NAMES, ", "), opts.grid)
  end
  if opts.data and opts.grid then
    return "give --data or --grid, not both"
  end
  if opts.base then
    opts.base, err = parse_config(opts.base, "--base")
    if not opts.base then
      return err
    end
  end
  for i, t in ipairs(opts.targets) do
    opts.targets[i], err = parse_config(t, "--target")
    if not opts.targets[i] then
      return err
    end
  end
  if opts.kernels and opts.kernels ~= "all" and opts.kernels ~= "train" then
    return ("--kernels expects all or train, got '%s'"):format(opts.kernels)
  end
  if opts.bases and opts.bases ~= "all" and opts.bases ~= "top" then
    return ("--bases expects all or top, got '%s'"):format(opts.bases)
  end
  if opts.split and opts.split ~= "family" and opts.split ~= "kernel" then
    return ("--split expects family or kernel, got '%s'"):format(opts.split)
  end
  if opts.classifier and opts.classifier ~= "neighbours" and opts.classifier ~= "paper" then
    return ("--classifier expects neighbours or paper, got '%s'"):format(opts.classifier)
  end
  if opts.cu_probe and opts.cu_probe ~= "quarter" and opts.cu_probe ~= "none" then
    return ("--cu-probe expects quarter or none, got '%s'"):format(opts.cu_probe)
  end
end

-- corpus.load's on_build for a command `prog`: says, before the build
-- starts, that it takes minutes and how to get a small corpus instead.
function M.announce_build(prog, err)
  return function(build)
    local ci = corpus.GRIDS.ci
    err:write(("%s: building the %s corpus: simulating %d kernels x %d configurations, which takes minutes on two "
      .. "cores (ci about half a minute, default about ten minutes on idle cores); it is then cached in %s.%s\n")
      :format(prog, build.grid, build.kernels, build.configurations, build.path, build.grid == "ci" and "" or
        (" For a first look, --grid ci builds a small corpus (%d configurations) in about a minute.")
        :format(#ci.cus * #ci.core_mhz * #ci.mem_mhz)))
  end
end

-- The exit status of a build stopped by a signal, as the sweeps report it.
local EXIT_SIGNAL = { ["interrupted (SIGINT)"] = 130, ["interrupted (SIGTERM)"] = 143 }

-- The dataset: --data CSV, or the simulated corpus of --grid (default
-- "default") from the cache, built when missing (resuming an interrupted
-- build).  Says on err which counters were dropped as constant (unless
-- quiet).  Returns the dataset and info, or nil, a message and the exit
-- status.
local function load_data(opts, err)
  local ds, info, interrupted
  if opts.data then
    ds, info = dataset.read_csv(opts.data)
  else
    ds, info, interrupted = corpus.load { grid = opts.grid or "default", jobs = opts.jobs or 2, quiet = opts.quiet,
      force = opts.force, on_build = M.announce_build("gpush ml", err) }
    if ds and not info.cached and not opts.quiet then
      err:write(("gpush ml: built the %s corpus (SIMULATED) in %.0f s%s: %s\n"):format(opts.grid or "default",
        info.seconds, info.resumed > 0 and (", resuming after %d kernels"):format(info.resumed) or "", info.path))
    end
  end
  if not ds then
    return nil, info, EXIT_SIGNAL[interrupted] or 1
  end
  if #ds.dropped_features > 0 and not opts.quiet then
    err:write(("gpush ml: %s: %d counters are constant over the data and dropped from the inputs: %s\n"):format(
      ds.source, #ds.dropped_features, table.concat(ds.dropped_features, ", ")))
  end
  return ds, info
end

local function corpus_cmd(opts, out, err)
  local ds, info, code = load_data({ grid = opts.grid, jobs = opts.jobs, quiet = opts.quiet, force = opts.force },
    err)
  if not ds then
    err:write("gpush ml corpus: ", info, "\n")
    return code
  end
  local summary = { path = info.path, cached = info.cached, build_seconds = info.seconds, kernels = #ds.kernels,
    kernel_names = ds.kernels, families = ds.families, configurations = ds:config_count(), grid = ds.grid,
    features = ds.features, dropped_counters = ds.dropped_features, simulated = ds.simulated }
  if opts.json then
    out:write(json.encode(summary, true), "\n")
    return 0
  end
  out:write(("SIMULATED corpus (%s): %d kernels of %d families x %d configurations (%d CU counts x %d engine x %d "
    .. "memory clocks), %d counters, time and power\n%s%s\n"):format(ds.simulated or "gpush", #ds.kernels,
    #ds.families, ds:config_count(), #ds.grid.cus, #ds.grid.core_mhz, #ds.grid.mem_mhz, #ds.features, info.path,
    info.cached and " (cached)" or (" (built in %.0f s)"):format(info.seconds)))
  return 0
end

-- "k = 12", or "k = 5 (12 asked for; 5 training kernels)" when the sets
-- have fewer clusters than asked.
local function k_text(asked, used, kernels)
  if used < asked then
    return ("k = %d (%d asked for; %d training kernels)"):format(used, asked, kernels)
  end
  return ("k = %d"):format(used)
end

-- ", with the CU probe at 8 CUs" for a model trained with it, else "".
local function probe_text(model)
  if not probe.used_by(model.features) then
    return ""
  end
  return (" with the CU probe at %s CUs"):format(csv.number(probe.cus(model.grid.cus, model.base.cus)))
end

local function train_cmd(opts, out, err)
  if not opts.out then
    err:write("gpush ml train: --out MODEL.gsm is required\n", usage)
    return 2
  end
  local ds, info, code = load_data(opts, err)
  if not ds then
    err:write("gpush ml train: ", info, "\n")
    return code
  end
  local input = opts.data or info.path -- the CSV read, or the corpus cache file
  if staging.same(input, opts.out) then
    err:write(("gpush ml train: --out %s is the data %s: saving the model would replace it; give another --out\n")
      :format(opts.out, input))
    return 1
  end
  local probed, probe_err = probe.apply(ds, opts.cu_probe or probe.DEFAULT)
  if not probed then
    err:write("gpush ml train: ", probe_err, "\n")
    return 1
  end
  ds = probed
  local kernels
  if opts.kernels == "train" then
    kernels = evaluate.split_dataset(ds, opts.split or "family", opts.split_seed or 1)
  end
  local model, train_err = surface.train(ds, { base = opts.base, k = opts.k, seed = opts.seed, kernels = kernels,
    classifier = opts.classifier })
  if not model then
    err:write("gpush ml train: ", train_err, "\n")
    return 1
  end
  -- staged (gpush.staging.write): written beside the target, its folder made when missing
  local ok, save_err = model:save(opts.out, { inputs = { input }, make_folder = true })
  if not ok then
    err:write("gpush ml train: ", save_err, "\n")
    return 1
  end
  out:write(("trained %s on %d kernels of %s%s at base %s%s, %s, %s classifier: %s\n"):format(
    table.concat(model.quantities, " and "), #model.trained_on, ds.source,
    ds.simulated and " (SIMULATED)" or "", dataset.config_text(model.base), probe_text(model),
    k_text(model.k, model.k_used, #model.trained_on), model.classifier, opts.out))
  return 0
end

-- The targets of a prediction: the ones given, else every configuration of
-- the model's grid.
local function targets_of(model, given)
  if #given > 0 then
    return given
  end
  local list = {}
  for _, c in ipairs(model.grid.cus) do
    for _, e in ipairs(model.grid.core_mhz) do
      for _, m in ipairs(model.grid.mem_mhz) do
        list[#list + 1] = { cus = c, core_mhz = e, mem_mhz = m }
      end
    end
  end
  return list
end

-- A dataset kernel's row at the model's base: {kernel, time_us, power_w,
-- counters by name}, or nil and a message.
local function base_row(ds, name, model)
  if probe.used_by(model.features) then
    local probed, probe_err = probe.augment(ds)
    if not probed then
      return nil, probe_err
    end
    ds = probed
  end
  local k = ds:kernel_index(name)
  if not k then
    local guess = text.closest(name, ds.kernels)
    return nil, ("no kernel '%s' in %s%s; its kernels: %s"):format(name, ds.source,
      guess and (" (did you mean '" .. guess .. "'?)") or "", table.concat(ds.kernels, ", "))
  end
  local c, e, m = ds:locate(model.base)
  if not c then
    return nil, ("the model's base is not on %s's grid: %s"):format(ds.source, e)
  end
  local g = ds:config_index(c, e, m)
  local row = { kernel = name, line = 0, time_us = ds:value("time", k, g),
    power_w = ds:has("power") and ds:value("power", k, g) or nil, counters = {} }
  local values = ds:counters_at(k, g)
  for j, f in ipairs(ds.features) do
    row.counters[f] = values[j]
  end
  return { row }
end

-- The rows of a --counters CSV for `model` (dataset.read_base); for a model
-- trained with the CU probe, the probe's inputs computed from each row's
-- base and probe values (gpush.ml.probe).  Returns the rows or nil, message.
local function read_counters(path, model)
  local used = probe.used_by(model.features)
  local counters, columns, inputs, listed = {}, {}, {}, {}
  for _, f in ipairs(model.features) do
    local input = probe.input(f)
    if input then
      inputs[#inputs + 1] = input
      if not listed[input.quantity] then
        listed[input.quantity] = true
        columns[#columns + 1] = probe.COLUMNS[input.quantity]
      end
    else
      counters[#counters + 1] = f
    end
  end
  local probe_cus = used and probe.cus(model.grid.cus, model.base.cus)
  local rows, err = dataset.read_base(path, counters, model.base, used and { cus = probe_cus, columns = columns })
  if not rows then
    return nil, err
  end
  for _, row in ipairs(rows) do
    for _, input in ipairs(inputs) do
      local base_column = input.quantity == "time" and "time_us" or "power_w"
      local probe_column = probe.COLUMNS[input.quantity]
      if not row[base_column] then
        return nil, ("%s:%d: no %s at the base: the CU probe's input %s is the ratio of %s to it"):format(path,
          row.line, base_column, input.name, probe_column)
      end
      row.counters[input.name] = probe.value(input, model.base.cus, probe_cus, row[base_column],
        row.probe[probe_column])
    end
  end
  return rows
end

local function predict_cmd(opts, out, err)
  if not opts.model or (opts.counters == nil) == (opts.kernel == nil) then
    err:write("gpush ml predict: give --model, and --counters CSV or --kernel NAME (from --data or the corpus)\n",
      usage)
    return 2
  end
  local model, load_err = surface.load(opts.model)
  if not model then
    err:write("gpush ml predict: ", load_err, "\n")
    return 1
  end
  local rows, read_err
  if opts.counters then
    rows, read_err = read_counters(opts.counters, model)
  else
    local ds, data_err, code = load_data(opts, err)
    if not ds then
      err:write("gpush ml predict: ", data_err, "\n")
      return code
    end
    rows, read_err = base_row(ds, opts.kernel, model)
  end
  if not rows then
    err:write("gpush ml predict: ", read_err, "\n")
    return 1
  end
  local results = {}
  for _, row in ipairs(rows) do
    for _, target in ipairs(targets_of(model, opts.targets)) do
      local r = { kernel = row.kernel, cus = target.cus, core_mhz = target.core_mhz, mem_mhz = target.mem_mhz }
      for _, q in ipairs(model.quantities) do
        local base = q == "time" and row.time_us or row.power_w
        if base then
          local v, p_err = model:predict(row.counters, base, target, q)
          if not v then
            local where = opts.counters and ("%s:%d"):format(opts.counters, row.line)
              or ("kernel '%s' of %s"):format(row.kernel, opts.data or "the corpus")
            err:write(("gpush ml predict: %s: %s\n"):format(where, p_err))
            return 1
          end
          r[q == "time" and "time_us" or "power_w"] = v
        end
      end
      results[#results + 1] = r
    end
  end
  if opts.json then
    out:write(json.encode({ base = model.base, model = opts.model, predictions = results }, true), "\n")
    return 0
  end
  out:write(("predicted from base %s by %s\n"):format(dataset.config_text(model.base), opts.model))
  local fmt = "%-28s %5s %8s %8s %14s %10s\n"
  out:write(fmt:format("kernel", "CUs", "core MHz", "mem MHz", "time (us)", "power (W)"))
  for _, r in ipairs(results) do
    out:write(fmt:format(r.kernel, csv.number(r.cus), csv.number(r.core_mhz), csv.number(r.mem_mhz),
      r.time_us and ("%.4g"):format(r.time_us) or "-", r.power_w and ("%.4g"):format(r.power_w) or "-"))
  end
  return 0
end

-- {mean_abs_error, power_mean_abs_error} of a result's per-quantity table.
local function errors(t)
  return { mean_abs_error = t.time, power_mean_abs_error = t.power or json.null }
end

local function evaluate_cmd(opts, out, err)
  local ds, data_err, code = load_data(opts, err)
  if not ds then
    err:write("gpush ml evaluate: ", data_err, "\n")
    return code
  end
  local bases = opts.bases == "top" and { surface.top_config(ds.grid) } or "all"
  local ok, r = pcall(evaluate.run, ds, { k = opts.k or 12, split = opts.split or "family",
    split_seed = opts.split_seed or 1, folds = opts.folds, seed = opts.seed or 1, classifier = opts.classifier,
    cu_probe = opts.cu_probe, bases = bases, jobs = opts.jobs or 2, quiet = opts.quiet })
  if not ok then
    err:write("gpush ml evaluate: ", tostring(r), "\n")
    return 1
  end
  local per_base = {}
  for i, b in ipairs(r.bases) do
    per_base[i] = { cus = b.config.cus, core_mhz = b.config.core_mhz, mem_mhz = b.config.mem_mhz,
      mean_abs_error = b.time.mean, power_mean_abs_error = b.power and b.power.mean or json.null,
      baseline_k1 = { mean_abs_error = b.time.k1_mean, power_mean_abs_error = b.power and b.power.k1_mean or json.null },
      oracle = { mean_abs_error = b.time.oracle_mean,
        power_mean_abs_error = b.power and b.power.oracle_mean or json.null } }
  end
  local summary = { split = r.split, folds = r.folds, k = r.k_used, k_requested = r.k, classifier = r.classifier,
    cu_probe = r.cu_probe,
    split_seed = r.split_seed, seed = r.seed, mean_abs_error = r.mean.time,
    power_mean_abs_error = r.mean.power or json.null, baseline_k1 = errors(r.baseline_k1), oracle = errors(r.oracle),
    bases = #r.bases, per_base = per_base, targets_per_base = ds:config_count() - 1,
    train_kernels = #r.train, validation_kernels = #r.valid, families = r.families, data = ds.source,
    simulated = ds.simulated or json.null, dropped_counters = ds.dropped_features, grid = ds.grid,
    histogram = r.histogram, bins = evaluate.BINS }
  if opts.json then
    out:write(json.encode(summary, true), "\n")
    return 0
  end
  local how = r.split == "family"
    and ("split by family: %d families (%d kernels) train, %d families (%d kernels) validate"):format(
      r.families.train, #r.train, r.families.valid, #r.valid)
    or ("the paper's per-kernel split: %d kernels train, %d validate, siblings of validation kernels among the "
      .. "training ones"):format(#r.train, #r.valid)
  if r.folds > 1 then
    how = ("%d-fold cross-validation by %s, every kernel validated once"):format(r.folds, r.split)
  end
  out:write(("%s%s: %d kernels of %d families; %s (seed %d); %d base configurations x %d targets, %s, %s "
    .. "classifier, %s\n"):format(ds.source, ds.simulated and " (SIMULATED)" or "", #ds.kernels, #ds.families, how,
    r.split_seed, #r.bases, ds:config_count() - 1, k_text(r.k, r.k_used, #r.train), r.classifier,
    r.cu_probe == "none" and "one base run (the paper's protocol)"
      or "two base runs (the base and the CU probe at about a quarter of its CUs)"))
  out:write(("%-13s %10s %14s %12s\n"):format("mean |error|", "model", "K = 1 (mean)", "oracle"))
  for _, q in ipairs(ds.quantities) do
    out:write(("%-13s %8.1f %% %12.1f %% %10.1f %%\n"):format(q == "time" and "performance" or q, 100 * r.mean[q],
      100 * r.baseline_k1[q], 100 * r.oracle[q]))
  end
  return 0
end

local function info_cmd(opts, out, err)
  local path = opts.words[1]
  if not path or #opts.words > 1 then
    err:write("gpush ml info: give one model file\n", usage)
    return 2
  end
  local model, load_err = surface.load(path)
  if not model then
    err:write("gpush ml info: ", load_err, "\n")
    return 1
  end
  out:write(("%s: %s model, base %s%s, k = %d, %s classifier, %d counters (%s)\n"):format(path,
    table.concat(model.quantities, " + "), dataset.config_text(model.base), probe_text(model), model.k,
    model.classifier,
    #model.features, table.concat(model.features, ", ")))
  out:write(("grid: CUs %s; engine MHz %s; memory MHz %s\n"):format(table.concat(model.grid.cus, " "),
    table.concat(model.grid.core_mhz, " "), table.concat(model.grid.mem_mhz, " ")))
  for _, q in ipairs(model.quantities) do
    local ks = {}
    for i, set in ipairs(model:sets(q)) do
      ks[i] = tostring(set.k)
    end
    out:write(("%s: clusters per set (one per CU count, then the CU set): %s\n"):format(q, table.concat(ks, " ")))
  end
  return 0
end

function M.main(args, out, err)
  return cli.dispatch({ prog = "gpush ml", usage = usage, options = OPTIONS, validate = validate, noun = "subcommand",
    missing = "which subcommand? (corpus, train, predict, evaluate, info)",
    actions = { corpus = corpus_cmd, train = train_cmd, predict = predict_cmd, evaluate = evaluate_cmd,
      info = info_cmd } }, args, out, err)
end

return M
