-- Kepler design sweep: warps/SM x MSHRs x DRAM bandwidth on the GTX 660 Ti, GPUMech RR and GTO.
--
--   gpush scenarios/kepler_sweep.lua [--traces PATH] [--out DIR] [--quiet] [-p key=value ...]
--
-- The main job.  Starting from the `gtx660ti` preset it sweeps warps per SM
-- {8,16,24,32,48,64} x MSHRs per SM {16,32,64} x DRAM bandwidth {96,144,192}
-- GB/s over the embedded synthetic suite (or the traces given with --traces:
-- a trace path, `suite` or `suite:NAME`), predicting every point with GPUMech
-- under round-robin and greedy-then-oldest scheduling.  It writes
-- DIR/kepler_sweep.csv (one row per kernel, policy and point, with the CPI
-- stack) and DIR/kepler_sweep.md (each kernel's best configuration and its
-- dominant bottleneck), and prints the summary.  The abstract simulator's
-- column joins when that model lands; -p overrides apply to every point.
local gpush = require "gpush"
local config, gpumech, trace = gpush.config, gpush.gpumech, gpush.trace

local WARPS = { 8, 16, 24, 32, 48, 64 }
local MSHRS = { 16, 32, 64 }
local BANDWIDTH = { 96, 144, 192 }
local POLICIES = { "rr", "gto" }
local STACK = { "BASE", "DEP", "L1", "L2", "DRAM", "MSHR", "QUEUE" }

local function usage(problem)
  io.stderr:write("kepler_sweep: ", problem, "\n",
    "usage: gpush scenarios/kepler_sweep.lua [--traces PATH] [--out DIR] [--quiet] [-p key=value ...]\n")
  os.exit(2)
end

local opts, problem = require("gpush.cli").parse_args(arg, {
  ["--traces"] = "=traces", ["--out"] = "=out", ["--quiet"] = "quiet", ["-p"] = "+overrides" })
if not opts then
  usage(problem)
end
if #opts.words > 0 then
  usage("unknown argument '" .. opts.words[1] .. "'")
end
opts.traces = opts.traces or "suite"
opts.out = opts.out or "kepler_sweep_out"

local function progress(fmt, ...)
  if not opts.quiet then
    io.stderr:write(fmt:format(...), "\n")
  end
end

-- The sweep's points, each a resolved configuration.
local points = {}
for _, w in ipairs(WARPS) do
  for _, m in ipairs(MSHRS) do
    for _, b in ipairs(BANDWIDTH) do
      local overrides = { ("sm.max_warps=%d"):format(w), ("l1.mshrs=%d"):format(m),
        ("dram.bandwidth_gbs=%d"):format(b) }
      for _, o in ipairs(opts.overrides) do
        overrides[#overrides + 1] = o
      end
      local cfg, err = config.load("gtx660ti", overrides)
      if not cfg then
        error(err, 0)
      end
      points[#points + 1] = { warps = w, mshrs = m, bandwidth = b, cfg = cfg }
    end
  end
end
local base, base_err = config.load("gtx660ti", opts.overrides)
if not base then
  error(base_err, 0)
end

local function dominant(stack)
  local best, value = "BASE", -1
  for _, name in ipairs(STACK) do
    if name ~= "BASE" and stack[name] > value then
      best, value = name, stack[name]
    end
  end
  return value > 0 and best or "BASE"
end

-- Predict every kernel at every point.
local iter, iter_err = trace.kernels_of(opts.traces)
if not iter then
  error(iter_err, 0)
end
local rows, kernels = {}, {}
local started = gpush.core.now()
for launch, kernel in iter do
  local name = launch.kernel
  kernels[#kernels + 1] = name
  local prepared = assert(gpumech.prepare(kernel, base))
  local cache = {}
  local t0 = gpush.core.now()
  for _, policy in ipairs(POLICIES) do
    for _, p in ipairs(points) do
      local r, err = gpumech.predict(kernel, p.cfg, { policy = policy, prepared = prepared, memory_cache = cache })
      if not r then
        error(("%s at warps=%d mshrs=%d bandwidth=%d: %s"):format(name, p.warps, p.mshrs, p.bandwidth, err), 0)
      end
      rows[#rows + 1] = { kernel = name, launch = launch.launch, policy = policy, warps = p.warps,
        mshrs = p.mshrs, bandwidth = p.bandwidth, cycles = r.cycles, time_us = r.time_us, ipc = r.ipc,
        cpi = r.cpi, stack = r.stack, dominant = dominant(r.stack) }
    end
  end
  progress("kepler_sweep: %-20s %d predictions in %.1f s", name, 2 * #points, gpush.core.now() - t0)
end

-- Outputs ----------------------------------------------------------------------------

local function ensure_dir(dir)
  local ok, err = gpush.core.mkdir(dir)
  if not ok then
    error(err, 0)
  end
end
ensure_dir(opts.out)

local provenance = {
  ("gpush %s"):format(gpush.version),
  ("preset gtx660ti, config hash %s%s"):format(config.hash(base),
    #opts.overrides > 0 and (", overrides " .. table.concat(opts.overrides, " ")) or ""),
  ("workloads %s"):format(opts.traces),
  ("command gpush scenarios/kepler_sweep.lua %s"):format(table.concat(arg, " ")),
}

local csv = assert(io.open(opts.out .. "/kepler_sweep.csv", "w"))
for _, line in ipairs(provenance) do
  csv:write("# ", line, "\n")
end
csv:write("kernel,policy,warps_per_sm,mshrs,dram_gbs,cycles,time_us,ipc,cpi,")
csv:write(table.concat(STACK, ","):lower(), ",dominant\n")
for _, r in ipairs(rows) do
  local stack = {}
  for i, name in ipairs(STACK) do
    stack[i] = ("%.6g"):format(r.stack[name])
  end
  csv:write(("%s,%s,%d,%d,%d,%.0f,%.3f,%.6g,%.6g,%s,%s\n"):format(r.kernel, r.policy, r.warps, r.mshrs,
    r.bandwidth, r.cycles, r.time_us, r.ipc, r.cpi, table.concat(stack, ","), r.dominant))
end
csv:close()

-- Per kernel and policy: the base point (the preset) and the best point.
local function find(kernel, policy, pick)
  local best
  for _, r in ipairs(rows) do
    if r.kernel == kernel and r.policy == policy and pick(r, best) then
      best = r
    end
  end
  return best
end

local summary = {
  "# Kepler sweep (GTX 660 Ti): GPUMech, RR and GTO",
  "",
  ("%d kernels x %d points (warps/SM %s; MSHRs %s; DRAM %s GB/s) x 2 policies = %d predictions in %.1f s.")
    :format(#kernels, #points, table.concat(WARPS, ","), table.concat(MSHRS, ","), table.concat(BANDWIDTH, ","),
      #rows, gpush.core.now() - started),
  "The preset's own point is 64 warps/SM, 32 MSHRs, 144 GB/s. Times are microseconds;",
  "the bottleneck is the largest non-BASE component of the CPI stack.",
  "",
  "| kernel | policy | preset time (us) | preset bottleneck | best point (warps, MSHRs, GB/s) | best time (us) | speed-up | best-point bottleneck |",
  "|---|---|---|---|---|---|---|---|",
}
for _, kernel in ipairs(kernels) do
  for _, policy in ipairs(POLICIES) do
    local preset = find(kernel, policy, function(r)
      return r.warps == base.sm.max_warps and r.mshrs == base.l1.mshrs and r.bandwidth == 144
    end)
    local best = find(kernel, policy, function(r, b) return not b or r.cycles < b.cycles end)
    summary[#summary + 1] = ("| %s | %s | %s | %s | %d, %d, %d | %.1f | %s | %s |"):format(kernel,
      policy:upper(), preset and ("%.1f"):format(preset.time_us) or "-", preset and preset.dominant or "-",
      best.warps, best.mshrs, best.bandwidth, best.time_us,
      preset and ("%.2fx"):format(preset.cycles / best.cycles) or "-", best.dominant)
  end
end
summary[#summary + 1] = ""
summary[#summary + 1] = "The abstract simulator's predictions join this table when that model lands."
summary[#summary + 1] = ""
for _, line in ipairs(provenance) do
  summary[#summary + 1] = "<!-- " .. line .. " -->"
end
local md = assert(io.open(opts.out .. "/kepler_sweep.md", "w"))
md:write(table.concat(summary, "\n"), "\n")
md:close()

print(table.concat(summary, "\n", 1, #summary - #provenance - 1))
print(("Wrote %s/kepler_sweep.csv and %s/kepler_sweep.md."):format(opts.out, opts.out))
