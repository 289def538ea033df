-- Scaling surfaces (Wu et al., HPCA 2015): every evaluation figure (Fig. 10-17) on the simulated corpus or your data.
--
--   gpush scenarios/ml_scaling.lua [--data CSV | --grid default|full|ci] [--k K] [--ks 2,4,...,20]
--                                  [--split-seed S] [--seed S] [--jobs N] [--out DIR] [--quiet]
--
-- Trains one model per base configuration of the grid (K = 12 clusters per
-- set, a seeded 80/20 split by kernel) and predicts the validation kernels
-- at every other configuration: the per-base error as heat maps at the
-- fastest and slowest engine clock (Fig. 10, 11) and a box plot per engine
-- clock (Fig. 12); then the error against the number of clusters on five
-- bases (Fig. 13, power Fig. 16), the error histograms for K = 2, 6, 12
-- (Fig. 14, 17) and the training set with the neural network against the
-- oracle classifier (Fig. 15).  Writes DIR/ml_scaling.md (tables and which
-- of the paper's qualitative findings hold), ml_scaling.json, the per-base
-- CSV and the SVG figures; prints the Markdown.  Default DIR:
-- ml_scaling_out; default data: the SIMULATED default corpus (gpush ml
-- corpus), built on first use.  docs/ml.md has the measured figures.
local cli = require "gpush.cli"
local core = require "gpush.core"
local corpus = require "gpush.ml.corpus"
local evaluate = require "gpush.ml.evaluate"
local dataset = require "gpush.ml.dataset"
local report = require "gpush.ml.report"

local usage = "usage: gpush scenarios/ml_scaling.lua [--data CSV | --grid default|full|ci] [--k K] [--ks LIST]\n"
  .. "       [--split-seed S] [--seed S] [--jobs N] [--out DIR] [--quiet]\n"

local function main(args)
  local opts, problem = cli.parse_args(args, { ["--data"] = "=data", ["--grid"] = "=grid", ["--k"] = "=k",
    ["--ks"] = "=ks", ["--split-seed"] = "=split_seed", ["--seed"] = "=seed", ["--jobs"] = "=jobs", ["-j"] = "=jobs",
    ["--out"] = "=out", ["--quiet"] = "quiet", ["-q"] = "quiet", ["--help"] = "help", ["-h"] = "help" })
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
  for _, key in ipairs { "k", "split_seed", "seed", "jobs" } do
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
  local settings = { k = numbers.k or 12, split_seed = numbers.split_seed or 1, seed = numbers.seed or 1, jobs = jobs,
    quiet = opts.quiet }
  local ok, main_result = pcall(evaluate.run, ds, settings)
  local sweep
  if ok then
    settings.ks = ks
    ok, sweep = pcall(evaluate.k_sweep, ds, settings)
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
  local written, md = report.write(dir, ds, main_result, sweep, { bins = evaluate.BINS })
  if not opts.quiet then
    io.stdout:write(table.concat(md, "\n"), "\n", "Wrote ", table.concat(written, ", "), ".\n")
  end
  return 0
end

os.exit(main(arg))
