-- gpush.sampling: a long launch's totals from simulations of its first
-- thread blocks, for sweeps (docs/experiments.md, "Sampling").
--
--   local plan = sampling.plan(blocks, concurrency)   -- nil: simulate every block
--   local totals, how = sampling.measure(kernel, plan, cache, simulate [, fit])
--   sampling.release(cache)                           -- closes the prefixes kept in cache
--
-- Two clients: the simulator's sweep model (its totals, the cycles settled)
-- and GPUMech's (its memory replay's counts, every one settled; `fit` says
-- how a client's totals are tested and extrapolated).
--
-- A launch of many waves (blocks over SMs x blocks per SM) repeats the same
-- work wave after wave: once its caches and queues have settled, every
-- further wave adds the same cycles.  measure simulates the prefixes of w,
-- 2w, 4w, ... waves (w = the larger of 1 and a 64th of the launch's waves;
-- each sample w x C + r blocks, r = blocks mod C, so every sample ends with
-- the launch's own partial wave), until the cycles each added block costs
-- agree between the last two steps within TOLERANCE; every total is then
-- extrapolated linearly from the last two samples to the launch's blocks
-- (a two-point fit: what stays constant, the first wave's ramp and the last
-- wave's tail, cancels).  When the samples would reach half the launch
-- before they agree, the launch is simulated whole.  A launch whose first
-- blocks are not stored first (a trace listing its blocks out of order) is
-- simulated whole too.  What no prefix shows is missed: a launch whose later
-- blocks cost more than its first sixteenth (a slow drift of the memory
-- system's queues, blocks that differ) is extrapolated at the first
-- blocks' rate; scenarios/sampling_error.lua measures how far that goes.
local M = {}

-- Sampling is tried when the launch has at least this many waves: the
-- first three samples (1 + 2 + 4 waves) then cost at most a quarter of it.
M.MIN_WAVES = 32
-- The first sample's waves (at least FIRST_WAVES, at least the launch's
-- waves / REACH, so the fitted samples end at a sixteenth of the launch or
-- later); each next sample doubles them.  (Measured on the main job: 2
-- waves and a 32nd cost 0.28 of the whole simulations for the same
-- errors.)
M.FIRST_WAVES = 1
M.REACH = 64
-- The largest relative difference between the last two per-block slopes
-- accepted as settled.
M.TOLERANCE = 0.005
-- GPUMech's (its memory replay's counts, every one tested): the DRAM
-- requests of a streaming kernel's stores (the L2's dirty victims) move by
-- 0.6-0.8 % a block between prefixes of 4 to 64 waves without a trend
-- (stream_triad on gtx660ti), which 0.5 % would send to the whole replay.
M.REPLAY_TOLERANCE = 0.01

-- The plan for a launch of `blocks` thread blocks on `concurrency` block
-- slots (SMs x blocks per SM), or nil when sampling does not pay.
function M.plan(blocks, concurrency)
  if concurrency < 1 or blocks < M.MIN_WAVES * concurrency then
    return nil
  end
  return { blocks = blocks, concurrency = concurrency, remainder = blocks % concurrency,
    waves = blocks / concurrency }
end

-- The error of sampling measured by scenarios/sampling_error.lua (every
-- sampled point of the regime suite at the main job's 54 points and of
-- the shared traces on four presets against the whole simulation), as the
-- sweep summaries print it; measured again whenever the simulator changes.
M.MEASURED = "mean |error| 0.11 %, largest -1.7 % (stream_triad at 8 warps/SM, 32 MSHRs, 144 GB/s), over the"
  .. " 117 of 2,025 (launch, point) pairs sampling took (gtx660ti; no shared-trace launch has 32 waves on"
  .. " gtx660ti, gtx1080, a100 or rtx3070), with the calibrated front end (issue 25), 2026-11-27"

-- The same for GPUMech's sampled memory replay (the predicted cycles
-- against those of the whole replay, gpush against gpush), measured by
-- scenarios/sampling_error.lua.
M.MEASURED_REPLAY = "mean |error| 0.036 %, largest +0.10 % (stream_triad at 24 warps/SM, 128 MSHRs, 96 GB/s), over"
  .. " the 63 of 2,025 (launch, point) pairs sampling took (gtx660ti, RR and GTO alike; no shared-trace launch has"
  .. " 32 waves on gtx660ti, gtx1080, a100 or rtx3070), 2026-11-28"

-- The prefix of `n` blocks, kept in the kernel's cache (every point of a
-- sweep samples the same prefixes); nil, message when the trace does not
-- store its first blocks first.
local function prefix(kernel, cache, n)
  cache.sample_prefixes = cache.sample_prefixes or {}
  local kept = cache.sample_prefixes[n]
  if kept == nil then
    local p, err = kernel:prefix(n)
    kept = p or { failed = err }
    cache.sample_prefixes[n] = kept
  end
  if kept.failed then
    return nil, kept.failed
  end
  return kept
end

-- a + (b - a) x f over every number of two totals of the same shape.
local function extrapolate(a, b, f)
  if type(a) == "number" then
    return b + (b - a) * f
  end
  local out = {}
  for k, v in pairs(a) do
    out[k] = extrapolate(v, b[k], f)
  end
  return out
end

-- Whether the per-block slopes of one total agree between the last two
-- steps of samples a, b, c (values x, y, z): |s2 - s1| <= tolerance
-- (default TOLERANCE) x max(|s2|, scale), where `scale` (optional, >= 0)
-- is the slope of the total this one is read against (GPUMech reads a
-- PC's counts per execution: its executions' slope).
function M.slopes_agree(a, b, c, x, y, z, scale, tolerance)
  local s1 = (y - x) / (b.blocks - a.blocks)
  local s2 = (z - y) / (c.blocks - b.blocks)
  return math.abs(s2 - s1) <= (tolerance or M.TOLERANCE) * math.max(math.abs(s2), scale or 0)
end

-- The simulator's settled-ness test: the cycles per added block of the
-- last two steps agree within TOLERANCE.
local function cycles_settled(a, b, c)
  return M.slopes_agree(a, b, c, a.totals.cycles, b.totals.cycles, c.totals.cycles)
end

-- The simulator's fit: its cycles settled, every number extrapolated.
M.CYCLES_FIT = { settled = cycles_settled, extrapolate = extrapolate }

-- The launch's totals from samples (plan from M.plan): simulate(k) runs the
-- model on kernel k and returns its totals, or nil, message.  `fit`
-- (default M.CYCLES_FIT: totals a table of numbers, nested tables of
-- numbers allowed, with `cycles`) holds settled(a, b, c), whether the last
-- three samples ({blocks, waves, totals}) have settled, and extrapolate(ta,
-- tb, f), the totals tb + (tb - ta) x f.  Returns the extrapolated totals
-- and how they were found, {sampled = true, waves = {2, 4, 8}, blocks =
-- simulated blocks, launch_waves = ...}; or nil and the reason the launch
-- must be simulated whole (a message from simulate is raised as an error).
function M.measure(kernel, plan, cache, simulate, fit)
  fit = fit or M.CYCLES_FIT
  local samples, simulated = {}, 0
  local waves = math.max(M.FIRST_WAVES, math.floor(plan.waves / M.REACH))
  while true do
    local n = waves * plan.concurrency + plan.remainder
    if simulated + n > plan.blocks / 2 then
      return nil, ("the cycles per block had not settled within %d waves"):format(waves // 2)
    end
    local k, why = prefix(kernel, cache, n)
    if not k then
      return nil, why
    end
    local totals, err = simulate(k)
    if not totals then
      error(err, 0)
    end
    simulated = simulated + n
    samples[#samples + 1] = { blocks = n, waves = waves, totals = totals }
    local n_samples = #samples
    if n_samples >= 3 and fit.settled(samples[n_samples - 2], samples[n_samples - 1], samples[n_samples]) then
      break
    end
    waves = waves * 2
  end
  local a, b = samples[#samples - 1], samples[#samples]
  local list = {}
  for i, s in ipairs(samples) do
    list[i] = s.waves
  end
  return fit.extrapolate(a.totals, b.totals, (plan.blocks - b.blocks) / (b.blocks - a.blocks)),
    { sampled = true, waves = list, blocks = simulated, launch_waves = plan.waves }
end

-- Closes the prefixes a kernel's cache holds (the sweep calls it when it
-- drops the cache), so the kernel's arrays go with the kernel.
function M.release(cache)
  for _, k in pairs(cache.sample_prefixes or {}) do
    if not k.failed then
      k:close()
    end
  end
  cache.sample_prefixes = nil
end

return M
