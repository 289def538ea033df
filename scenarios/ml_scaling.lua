-- Scaling surfaces (Wu et al., HPCA 2015): every evaluation figure (Fig. 10-17) on the simulated corpus or your data.
--
--   gpush scenarios/ml_scaling.lua [--data CSV | --grid default|full|ci] [--k K] [--ks 2,4,...,20]
--                                  [--classifier neighbours|paper] [--split family|kernel] [--folds F]
--                                  [--split-seed S] [--seed S] [--cu-probe quarter|none] [--jobs N] [--out DIR]
--                                  [--docs FILE] [--quiet]
--
-- Trains one model per base configuration of the grid (K = 12 clusters per
-- set, a seeded 80/20 split by kernel family) and predicts the validation
-- kernels at every other configuration, next to one cluster per set (K = 1)
-- and a perfect classifier (the oracle), and next to the paper's protocol of
-- one base run when the CU probe (gpush.ml.probe, the default) is used: the
-- per-base error as heat maps at
-- the fastest and slowest engine clock (Fig. 10, 11, with the paper's cells)
-- and a box plot per engine clock (Fig. 12); on five bases, F-fold
-- cross-validation (default 5) by family and by kernel with both classifiers
-- (how the method generalises to families it never saw); then the error
-- against the number of clusters (Fig. 13, power Fig. 16), the error
-- histograms for K = 2, 6, 12 (Fig. 14, 17) and the training set with the
-- classifier against the k-means oracle (Fig. 15); and each of the paper's
-- qualitative findings with the test that decides it (gpush.ml.findings).
-- Writes DIR/ml_scaling.md, ml_scaling.json, the per-base CSV and the SVG
-- figures; prints the Markdown.  --docs FILE replaces the block between
-- "<!-- ml_scaling:begin -->" and "<!-- ml_scaling:end -->" in FILE with
-- the Markdown (docs/ml.md's measured figures come from here, not by hand).
-- Default DIR: ml_scaling_out; default data: the SIMULATED default corpus
-- (gpush ml corpus), built on first use.
local cli = require "gpush.cli"
local core = require "gpush.core"
local corpus = require "gpush.ml.corpus"
local evaluate = require "gpush.ml.evaluate"
local dataset = require "gpush.ml.dataset"
local files = require "gpush.ml.files"
local probe = require "gpush.ml.probe"
local report = require "gpush.ml.report"

local usage = "usage: gpush scenarios/ml_scaling.lua [--data CSV | --grid default|full|ci] [--k K] [--ks LIST]\n"
  .. "       [--classifier neighbours|paper] [--split family|kernel] [--folds F] [--split-seed S] [--seed S]\n"
  .. "       [--cu-probe quarter|none] [--jobs N] [--out DIR] [--docs FILE] [--quiet]\n"

local BEGIN, END = "<!-- ml_scaling:begin -->", "<!-- ml_scaling:end -->"

-- Replaces the block between the markers in `path` with `lines`; true or
-- nil and a message.
local function update_docs(path, lines)
  local text, err = files.read(path)
  if not text then
    return nil, err
  end
  local first = text:find(BEGIN, 1, true)
  local last = text:find(END, 1, true)
  if not first or not last or last < first then
    return nil, ("%s: no %s ... %s block to replace"):format(path, BEGIN, END)
  end
  local body = table.concat(lines, "\n")
  return files.write(path, text:sub(1, first + #BEGIN - 1) .. "\n" .. body .. "\n" .. text:sub(last))
end

local function main(args)
  local opts, problem = cli.parse_args(args, { ["--data"] = "=data", ["--grid"] = "=grid", ["--k"] = "=k",
    ["--ks"] = "=ks", ["--split-seed"] = "=split_seed", ["--seed"] = "=seed", ["--jobs"] = "=jobs", ["-j"] = "=jobs",
    ["--out"] = "=out", ["--quiet"] = "quiet", ["-q"] = "quiet", ["--help"] = "help", ["-h"] = "help",
    ["--classifier"] = "=classifier", ["--split"] = "=split", ["--folds"] = "=folds", ["--docs"] = "=docs",
    ["--cu-probe"] = "=cu_probe" })
  if opts and #opts.words > 0 then
    opts, problem = nil, ("unknown argument '%s'"):format(opts.words[1])
  end
  if not opts then
    io.stderr:write("ml_scaling: ", problem, "\n", usage)
    return 2
  end
  if opts.help then
    io.stdout:write(usage)
    return 0
  end
  local numbers = {}
  for _, key in ipairs { "k", "split_seed", "seed", "jobs", "folds" } do
    if opts[key] then
      numbers[key] = tonumber(opts[key])
      if not numbers[key] or math.type(numbers[key]) ~= "integer" or numbers[key] < (key == "seed" and 0 or 1) then
        io.stderr:write(("ml_scaling: --%s expects a whole number, got '%s'\n"):format(key:gsub("_", "-"), opts[key]),
          usage)
        return 2
      end
    end
  end
  local ks
  if opts.ks then
    ks = {}
    for word in opts.ks:gmatch("[^,]+") do
      local k = tonumber(word)
      if not k or math.type(k) ~= "integer" or k < 1 then
        io.stderr:write(("ml_scaling: --ks expects whole numbers separated by commas, got '%s'\n"):format(opts.ks))
        return 2
      end
      ks[#ks + 1] = k
    end
  end
  for _, choice in ipairs { { "classifier", { neighbours = true, paper = true }, "neighbours or paper" },
    { "split", { family = true, kernel = true }, "family or kernel" },
    { "cu_probe", { quarter = true, none = true }, "quarter or none" } } do
    if opts[choice[1]] and not choice[2][opts[choice[1]]] then
      io.stderr:write(("ml_scaling: --%s expects %s, got '%s'\n"):format(choice[1], choice[3], opts[choice[1]]),
        usage)
      return 2
    end
  end
  if opts.grid and not corpus.GRIDS[opts.grid] then
    io.stderr:write(("ml_scaling: --grid expects %s, got '%s'\n"):format(table.concat(corpus.GRID_NAMES, ", "),
      opts.grid))
    return 2
  end
  local jobs = numbers.jobs or core.proc_cpus()
  local ds, info
  if opts.data then
    ds, info = dataset.read_csv(opts.data)
  else
    ds, info = corpus.load { grid = opts.grid or "default", jobs = jobs, quiet = opts.quiet }
  end
  if not ds then
    io.stderr:write("ml_scaling: ", info, "\n")
    return 1
  end
  local settings = { k = numbers.k or 12, split = opts.split or "family", split_seed = numbers.split_seed or 1,
    seed = numbers.seed or 1, classifier = opts.classifier, cu_probe = opts.cu_probe or probe.DEFAULT, jobs = jobs,
    quiet = opts.quiet }
  local ok, main_result = pcall(evaluate.run, ds, settings)
  local sweep, generalisation, one_run
  if ok and settings.cu_probe ~= "none" then -- the paper's protocol, one base run, on the same split and bases
    local o = {}
    for key, v in pairs(settings) do
      o[key] = v
    end
    o.cu_probe, o.label = "none", "ml evaluate, one base run"
    ok, one_run = pcall(evaluate.run, ds, o)
    if not ok then
      main_result = one_run
    end
  end
  if ok then
    settings.ks = ks
    ok, sweep = pcall(evaluate.k_sweep, ds, settings)
  end
  if ok then -- cross-validation on the sweep's bases: families against the paper's split, both classifiers
    generalisation = {}
    local folds = math.min(numbers.folds or 5, #ds.families)
    local runs = { { "family", "neighbours" }, { "family", "paper" }, { "kernel", "neighbours" },
      { "kernel", "paper" } }
    if settings.cu_probe ~= "none" then -- the paper's one base run, by family
      table.insert(runs, 2, { "family", "neighbours", "none" })
    end
    for _, run in ipairs(runs) do
      local o = {}
      for key, v in pairs(settings) do
        o[key] = v
      end
      o.split, o.classifier, o.folds, o.bases, o.ks = run[1], run[2], folds, sweep.bases, nil
      o.cu_probe = run[3] or settings.cu_probe
      o.label = ("ml cv %s %s %s"):format(run[1], run[2], o.cu_probe)
      local run_ok, r = pcall(evaluate.run, ds, o)
      if not run_ok then
        ok, sweep = false, r
        break
      end
      generalisation[#generalisation + 1] = { label = ("%d-fold by %s"):format(folds, run[1]), result = r }
    end
  end
  if not ok then
    io.stderr:write("ml_scaling: ", tostring(sweep or main_result), "\n")
    return 1
  end
  local dir = opts.out or "ml_scaling_out"
  local made, mkdir_err = core.mkdir(dir)
  if not made then
    io.stderr:write("ml_scaling: ", mkdir_err, "\n")
    return 1
  end
  local written, md = report.write(dir, ds, main_result, sweep, { bins = evaluate.BINS,
    generalisation = generalisation, one_run = one_run })
  if opts.docs then
    local docs_ok, docs_err = update_docs(opts.docs, { table.unpack(md, 3) }) -- less the title
    if not docs_ok then
      io.stderr:write("ml_scaling: ", docs_err, "\n")
      return 1
    end
    written[#written + 1] = opts.docs
  end
  if not opts.quiet then
    io.stdout:write(table.concat(md, "\n"), "\n", "Wrote ", table.concat(written, ", "), ".\n")
  end
  return 0
end

os.exit(main(arg))
