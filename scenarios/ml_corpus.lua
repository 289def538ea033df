-- ML corpus: every kernel variant on the simulator over a CU x engine x memory clock grid (SIMULATED), as a sweep.
--
--   gpush scenarios/ml_corpus.lua [--grid default|full|ci] [--out DIR] [--jobs N] [--quiet]
--                                 [--shard I/N] [-p key=value ...]
--
-- The training corpus of the scaling-surface models (Wu et al., HPCA 2015;
-- docs/ml.md) as an ordinary experiment-engine sweep, for building a big
-- grid on a cluster: `--shard I/N` per array task (examples/slurm:
-- SWEEP_SCRIPT=scenarios/ml_corpus.lua), then `gpush merge`, then
-- `gpush ml evaluate --data DIR/ml_corpus.csv`.  It writes DIR/ml_corpus.csv
-- (a dataset CSV: kernel, cus, core_mhz, mem_mhz, time_us, power_w and the
-- Table II counters per row), .json and .md.  Default DIR: ml_corpus_out.
-- `gpush ml corpus` builds the same data into the user's cache instead.
local corpus = require "gpush.ml.corpus"
local experiment = require "gpush.experiment"

local args, grid = { [0] = arg[0] }, "default"
local sizing = {} -- --jobs and --quiet serve the kernels' sizing too (and stay for the sweep)
local i = 1
while i <= #arg do
  if arg[i] == "--jobs" then
    sizing.jobs = tonumber(arg[i + 1])
  elseif arg[i] == "--quiet" then
    sizing.quiet = true
  end
  if arg[i] == "--grid" then
    grid = arg[i + 1]
    if not grid then
      io.stderr:write("ml_corpus: --grid needs a name (default, full or ci)\n")
      os.exit(2)
    end
    i = i + 2
  else
    args[#args + 1] = arg[i]
    i = i + 1
  end
end
local def, err = corpus.definition { grid = grid, jobs = sizing.jobs and math.tointeger(sizing.jobs), quiet = sizing.quiet }
if not def then
  io.stderr:write("ml_corpus: ", tostring(err), "\n")
  os.exit(2)
end
os.exit(experiment.main(def, args))
