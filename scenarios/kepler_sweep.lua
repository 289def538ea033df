-- Kepler design sweep: warps/SM x MSHRs x DRAM bandwidth on the GTX 660 Ti over the regime suite, GPUMech RR and GTO, the simulator, Blem's M-core, the bounds.
--
--   gpush scenarios/kepler_sweep.lua [--traces PATH ...] [--out DIR] [--jobs N] [--quiet]
--                                    [--shard I/N] [-p key=value ...]
--
-- The main job.  Starting from the `gtx660ti` preset it sweeps warps per SM
-- {8,16,24,32,48,64} x MSHRs per SM {32,64,128} x DRAM bandwidth {96,144,192}
-- GB/s (54 points) over the embedded regime suite (one kernel per
-- bottleneck: docs/workloads.md; or the workloads given with --traces: trace
-- paths, `suite`, `suite:NAME`, `variants`), predicting every point with
-- GPUMech under round-robin and greedy-then-oldest scheduling, simulating it
-- with the abstract timing simulator (greedy-then-oldest), predicting it with
-- Blem's mechanistic M-core model (GPUPerf base, the GTX 660 Ti's modules;
-- docs/mech.md), the model the thesis validated on this GPU, and computing
-- its first-principles bounds (the cycles no model may beat, and which binds:
-- the summary's `bounds` rows name the binding bound at the baseline).
-- It runs on the experiment engine (gpush.experiment, docs/experiments.md):
-- --jobs N worker processes (default: every core), --shard I/N for one
-- slice of a cluster job (then `gpush merge`), -p overrides on every point.
-- It writes DIR/kepler_sweep.csv and .json (one row per kernel, model and
-- point: cycles, microseconds, IPC, GPUMech's CPI stack or the simulator's
-- stall shares, achieved DRAM bandwidth, each model's own dominant category
-- and the bottleneck in the shared vocabulary, provenance hashes),
-- DIR/kepler_sweep.md (each kernel's best configuration and its bottleneck
-- per model) and SVG plots (GPUMech's CPI stacks, the
-- simulator's stall stacks, cycles, heat maps, the roofline of the baseline
-- point with every kernel and model on it), and prints the summary.
-- Default DIR: kepler_sweep_out.  The whole suite takes about 25 s on
-- two idle cores (--jobs 2), most of it the simulator (docs/experiments.md).
local experiment = require "gpush.experiment"
local vocabulary = require "gpush.models.vocabulary"

-- The models side by side, one column group each.  The simulator runs
-- greedy-then-oldest: it is the policy of GPUMech's GTO model in the next
-- column group, so sim-gto is that model's reference point for point, and
-- the scheduler GPGPU-Sim/Accel-Sim configure for the Kepler-to-Pascal
-- generation (the SM6_TITANX reference config sets -gpgpu_scheduler gto).
-- The M-core reuses GPUMech's memory replays (the kernel's cache) and costs
-- little more than its equations (docs/mech.md: about 1 % of the job).  The
-- bounds (gpush.bounds) are the floor every model's cycles must stay above,
-- and name the bottleneck from first principles.
local MODELS = {
  experiment.models.gpumech { policy = "rr" },
  experiment.models.gpumech { policy = "gto" },
  experiment.models.sim { policy = "gto" },
  experiment.models.mcore {},
  experiment.models.bounds {},
}

-- Reports written after the CSV, JSON and Markdown (also by `gpush merge`):
-- SVG CPI stacks per kernel for each GPUMech model, the simulator's stall
-- stacks (shares of its scheduler cycles), cycles against warps/SM, and
-- per-kernel heat maps over warps/SM x MSHRs of the first model, and the
-- FP32 roofline of the baseline point (docs/reports.md).
local REPORTS = { "gpush.report.svg:sweep_report", "gpush.roofline:sweep_report" }

-- What the summary's columns mean: the bottleneck vocabulary, stated once
-- in gpush.models.vocabulary, and each model's own category in brackets.
local NOTES = {
  "The baseline is the preset's own point (64 warps/SM, 64 MSHRs, 144 GB/s); the best point has the fewest",
  "cycles. Every model's bottleneck is in one vocabulary (docs/models.md), the kernel launch apart, with the",
  "model's own category that gave it in brackets: GPUMech's CPI-stack category (Table III and gpush's), the",
  "simulator's stall reason (of the cycles a scheduler had a block resident; idle apart), the M-core's",
  "module or memory limit, the bounds' expected binding resource (docs/bounds.md); the bounds' time is the",
  "least any model may predict.",
  "",
}
for _, line in ipairs(vocabulary.lines("- ")) do
  NOTES[#NOTES + 1] = line
end

local sweep = {
  name = "kepler_sweep",
  title = "Kepler sweep (GTX 660 Ti) over the regime suite: GPUMech RR and GTO, simulator GTO, Blem M-core, bounds",
  base = { preset = "gtx660ti" },
  parameters = {
    { path = "sm.max_warps", values = { 8, 16, 24, 32, 48, 64 }, column = "warps_per_sm" },
    { path = "l1.mshrs", values = { 32, 64, 128 }, column = "mshrs" },
    { path = "dram.bandwidth_gbs", values = { 96, 144, 192 }, column = "dram_gbs" },
  },
  workloads = { "suite" },
  models = MODELS,
  seed = 1,
  -- launches of many waves are simulated over their first waves and
  -- extrapolated (docs/experiments.md, "Sampling"; --no-sample: every block)
  sample = true,
  summary = {
    objective = "cycles", show = "time_us", label = "time (us)", bottleneck = "bottleneck",
    bottleneck_detail = "bottleneck_detail",
    baseline = { warps_per_sm = 64, mshrs = 64, dram_gbs = 144 },
    notes = NOTES,
  },
  reports = REPORTS,
}

os.exit(experiment.main(sweep, arg))
