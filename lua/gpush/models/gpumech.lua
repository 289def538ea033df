-- gpush.models.gpumech (also gpush.gpumech): GPUMech (Huang et al., MICRO
-- 2014) over a kernel and a configuration, a model family of gpush.models.
--
--   local r = assert(gpumech.predict(kernel, cfg, { policy = "gto" }))
--   r.cycles, r.time_us, r.ipc, r.cpi, r.stack.DRAM, r.representative_warp
--   models.get("gpumech", { policy = "gto" })   -- the sweep model (M.new)
--
-- The steps (paper section in brackets):
--  1. memory behaviour per static PC from the functional memory model: the
--     AMAT of each load, its expected L1-missing and DRAM requests [V];
--  2. per-PC latencies: memory PCs their AMAT, compute PCs the config's
--     ops.<class>.latency, shared/constant loads their latencies [V-A];
--  3. every warp's interval profile (Eq. 4) and the representative warp,
--     nearest the centre of the largest of two k-means clusters over
--     (warp performance, instructions) normalised by their means (Eq. 5-6)
--     [III]; MAX, MIN and RANDOM selections too (Fig. 7);
--  4. the multi-warp model per warp scheduler (#warps: the warps that
--     scheduler owns; issue rate: sm.issue_width) with RR or GTO overlap
--     (Eq. 7-16), MSHR queueing over the SM's warps (Eq. 17-20) and M/D/1
--     DRAM queueing over the SMs holding blocks (Eq. 21-23) [IV];
--  5. kernel cycles: thread-block waves over the SMs at the configuration's
--     occupancy, each modelled with the warps resident on the busiest SM
--     (sub-wave kernels are the normal case) plus that SM's serialised block
--     launches (its blocks x launch.block_cycles), summed, plus the kernel
--     launch;
--  6. the CPI stack of Table III (BASE, DEP, L1, L2, DRAM, MSHR, QUEUE), in
--     the units of the CPI and summing to it [VII].
-- Reuse across configurations (Sec. VI-D): prepare() selects the
-- representative warp once; predict(..., {prepared = p}) then reruns only
-- the memory model and that warp's interval pass.
local bounds = require "gpush.bounds"
local core = require "gpush.core"
local config = require "gpush.config"
local memsim = require "gpush.memsim"
local occupancy = require "gpush.occupancy"

local M = {}

-- The CPI stack of Table III, in the order every table and plot shows it.
M.STACK = { "BASE", "DEP", "L1", "L2", "DRAM", "MSHR", "QUEUE" }

-- The comparison models of Table II, by the name the C core knows them.
M.models = {
  naive = "naive",                -- Naive_Interval: Eq. 1, capped at the issue rate
  markov = "markov",              -- Markov_Chain: Chen and Aamodt's chain over the warps
  mt = "mt",                      -- multithreading only (Sec. IV-A)
  mt_mshr = "mt_mshr",            -- + MSHR queueing (Sec. IV-B1)
  mt_mshr_band = "mt_mshr_band",  -- + DRAM bandwidth queueing (Sec. IV-B2)
  gpumech = "mt_mshr_band",       -- GPUMech = MT_MSHR_BAND
}

-- Opcode classes without a pipeline of their own use ops.other.
local pipeline = bounds.PIPELINE

-- Per static PC (steps 1-2): latency in cycles; expected L1-missing load
-- requests (MSHR users, Eq. 18) and DRAM accesses (stores and write-backs
-- included, Eq. 23) per execution; the miss-event distribution that splits
-- the PC's stalls in the CPI stack (Sec. VII: L1 hit, L2 hit, DRAM; compute
-- PCs none, so DEP; shared-memory and constant loads count as L1, on-chip
-- latency, since Table III has no category of their own); and Eq. 19's
-- average L2/DRAM latency of L1-missing loads.
function M.pc_params(kernel, cfg, mem)
  local params = { latency = {}, l1_miss_reqs = {}, dram_reqs = {}, mix_l1 = {}, mix_l2 = {},
    mix_dram = {} }
  local miss_latency, misses = 0, 0
  local dram_cycles = mem.params.dram_latency
  for i, st in ipairs(kernel:statics()) do
    local pc = mem.pcs[i]
    local latency, l1_miss, dram, mix_l1, mix_l2, mix_dram = 0, 0, 0, 0, 0, 0
    if pipeline[st.class] then
      latency = cfg.ops[pipeline[st.class]].latency
    elseif pc and pc.instructions > 0 and pc.shared_passes == nil then
      local n = pc.instructions
      latency = pc.amat
      l1_miss, dram = pc.l1_miss_requests / n, pc.dram_requests / n
      mix_l1, mix_l2, mix_dram = pc.l1_hits / n, pc.l2_hits / n, pc.dram / n
      if pc.l1_miss_requests > 0 then
        miss_latency = miss_latency + pc.l2_hits * cfg.l2.latency
          + pc.dram * (cfg.l2.latency + dram_cycles)
        misses = misses + pc.l2_hits + pc.dram
      end
    else
      mix_l1 = 1
      if pc and pc.instructions > 0 then
        latency = pc.amat -- shared memory with its bank passes, or constant
      elseif st.class == "ld_const" then
        latency = cfg.const.latency
      elseif st.class == "ld_shared" or st.class == "atom_shared" then
        latency = cfg.shared.latency
      else
        latency = cfg.l1.latency -- memory instruction with no request (empty mask)
      end
    end
    params.latency[i], params.l1_miss_reqs[i], params.dram_reqs[i] = latency, l1_miss, dram
    params.mix_l1[i], params.mix_l2[i], params.mix_dram[i] = mix_l1, mix_l2, mix_dram
  end
  params.avg_miss_latency = misses > 0 and miss_latency / misses or cfg.l2.latency
  return params
end

-- Cycles per issue slot of one warp scheduler (the interval pass's unit).
local function issue_cycles_of(cfg)
  return 1 / cfg.sm.issue_width
end

-- Step 3: the representative warp (0-based global warp index).
function M.select(kernel, pcs, method, seed, issue_cycles)
  local features = core.gpumech_features(kernel, pcs, issue_cycles or 1)
  if #features == 0 then
    return nil, "gpumech: the kernel has no instructions"
  end
  return features[core.gpumech_select(features, method or "kmeans", seed or 1)].warp
end

-- Selects the representative warp once, for predictions across configurations.
function M.prepare(kernel, cfg, opts)
  opts = opts or {}
  config.check(cfg, 2)
  local mem, err = memsim.functional(kernel, cfg)
  if not mem then
    return nil, err
  end
  local warp, select_err = M.select(kernel, M.pc_params(kernel, cfg, mem), opts.select, opts.seed,
    issue_cycles_of(cfg))
  if not warp then
    return nil, select_err
  end
  return { warp = warp, select = opts.select or "kmeans" }
end

-- The wave shapes: full waves and the last partial one, each with the warps
-- resident on its busiest SM and the SMs holding blocks.
local function waves_of(kernel_info, cfg, blocks_per_sm)
  local sms = cfg.sm.count
  local per_wave = sms * blocks_per_sm
  local blocks = kernel_info.thread_blocks
  local full = blocks // per_wave
  local rest = blocks - full * per_wave
  local shapes = {}
  local function shape(count, in_wave)
    local busiest = math.ceil(in_wave / sms)
    shapes[#shapes + 1] = { count = count, blocks = in_wave, blocks_on_sm = busiest,
      warps_on_sm = busiest * kernel_info.warps_per_block, cores = math.min(sms, in_wave) }
  end
  if full > 0 then
    shape(full, per_wave)
  end
  if rest > 0 then
    shape(1, rest)
  end
  return shapes, full + (rest > 0 and 1 or 0)
end

local function check_options(opts)
  local policy = opts.policy or "rr"
  if policy ~= "rr" and policy ~= "gto" then
    error(("gpush.gpumech.predict: policy must be 'rr' or 'gto', got '%s'"):format(tostring(policy)), 3)
  end
  local model_name = opts.model or "gpumech"
  if not M.models[model_name] then
    error(("gpush.gpumech.predict: unknown model '%s' (naive, markov, mt, mt_mshr, mt_mshr_band, gpumech)")
      :format(tostring(model_name)), 3)
  end
  return policy, model_name
end

-- Step 7: what makes the prediction less trustworthy.
local function validity_warnings(info, cfg, blocks_per_sm, dram_capped, bandwidth_bound)
  local warnings = {}
  local per_wave = cfg.sm.count * blocks_per_sm
  if info.thread_blocks < per_wave then
    warnings[#warnings + 1] = ("sub-wave kernel: %d blocks fill %.0f%% of one wave (%d SMs x %d blocks)")
      :format(info.thread_blocks, 100 * info.thread_blocks / per_wave, cfg.sm.count, blocks_per_sm)
  end
  local traced_cc = info.binary_version / 10
  if not info.synthetic and math.floor(traced_cc) ~= math.floor(cfg.gpu.compute_capability) then
    warnings[#warnings + 1] = ("trace retargeted: recorded for SASS %d, modelled on compute capability %.1f")
      :format(info.binary_version, cfg.gpu.compute_capability)
  end
  if dram_capped then
    warnings[#warnings + 1] = "DRAM queue saturated: the M/D/1 delay was capped (Eq. 21)"
  end
  if bandwidth_bound then
    warnings[#warnings + 1] = "DRAM bandwidth bound: cycles raised to the DRAM transfer time of the "
      .. "wave's requests (Eq. 21's capped delay alone would exceed the peak bandwidth)"
  end
  if info.warnings ~= "" then
    warnings[#warnings + 1] = info.warnings
  end
  return warnings
end

-- Predicts one kernel on one configuration; returns a result table or nil,
-- message.  opts: policy "rr"|"gto", model (a key of M.models), select
-- "kmeans"|"max"|"min"|"random", seed, prepared (from M.prepare),
-- memory_cache (a table reused across calls: see memsim.functional_cached).
function M.predict(kernel, cfg, opts)
  opts = opts or {}
  config.check(cfg, 2)
  local policy, model_name = check_options(opts)
  local info = kernel:info()
  local blocks_per_sm, limit = occupancy.for_kernel(cfg, kernel)
  if blocks_per_sm == 0 then
    return nil, ("gpumech: kernel '%s' does not fit on one SM of '%s' (limit: %s)")
      :format(info.kernel, cfg._name, limit)
  end
  local mem, err
  if opts.memory_cache then
    mem, err = memsim.functional_cached(kernel, cfg, opts.memory_cache)
  else
    mem, err = memsim.functional(kernel, cfg)
  end
  if not mem then
    return nil, err
  end
  local pcs = M.pc_params(kernel, cfg, mem)
  local issue_cycles = issue_cycles_of(cfg)
  local warp = opts.prepared and opts.prepared.warp
  if not warp then
    local select_err
    warp, select_err = M.select(kernel, pcs, opts.select, opts.seed, issue_cycles)
    if not warp then
      return nil, select_err
    end
  end
  local profile = core.gpumech_profile(kernel, warp, pcs, issue_cycles)
  local shapes, waves = waves_of(info, cfg, blocks_per_sm)
  local dram_bytes_per_s = cfg.dram.bandwidth_gbs * 1e9
  local service = cfg.clock.core_mhz * 1e6 * cfg.dram.access_bytes / dram_bytes_per_s -- Eq. 22
  -- every warp's DRAM accesses on average, for the DRAM floor (docs/gpumech.md)
  local dram_reqs_per_warp = info.warps > 0 and mem.dram_requests / info.warps or 0
  local cycles, first, capped, bandwidth_bound = 0, nil, false, false
  for _, w in ipairs(shapes) do
    -- step 4: the model per warp scheduler, #warps the warps it owns
    local r = profile:predict {
      model = M.models[model_name], policy = policy,
      warps = math.ceil(w.warps_on_sm / cfg.sm.schedulers), issue_rate = cfg.sm.issue_width,
      warps_per_sm = w.warps_on_sm, mshrs = cfg.l1.mshrs, avg_miss_latency = pcs.avg_miss_latency,
      sms_with_blocks = w.cores, dram_service_cycles = service,
      kernel_dram_reqs_per_warp = dram_reqs_per_warp,
    }
    r.warps = math.ceil(w.warps_on_sm / cfg.sm.schedulers)
    -- each SM launches its blocks of the wave one at a time (launch.block_cycles each)
    cycles = cycles + w.count * (r.cycles + w.blocks_on_sm * cfg.launch.block_cycles)
    capped = capped or r.dram_capped
    bandwidth_bound = bandwidth_bound or r.bandwidth_bound
    first = first or r
  end
  cycles = cycles + cfg.launch.kernel_cycles
  local summary = profile:summary()
  return {
    kernel = info.kernel, launch = info.launch, model = model_name, policy = policy,
    cycles = cycles, time_us = cycles / cfg.clock.core_mhz,
    ipc = info.warp_instructions / cycles,
    cpi = first.cpi,
    stack = first.stack,
    representative_warp = warp,
    profile = summary,
    intervals = profile:intervals(),
    waves = waves, blocks_per_sm = blocks_per_sm, occupancy_limit = limit,
    warps_per_scheduler = first.warps,
    nonoverlapped = first.nonoverlapped, mshr_delay = first.mshr_delay, dram_delay = first.dram_delay,
    markov = first.markov,
    warnings = validity_warnings(info, cfg, blocks_per_sm, capped, bandwidth_bound),
  }
end

-- The sweep model (the contract in gpush.models) -----------------------------

-- The largest non-BASE component of a CPI stack (BASE when none is > 0).
function M.dominant(stack)
  local best, value = "BASE", 0
  for _, name in ipairs(M.STACK) do
    if name ~= "BASE" and stack[name] > value then
      best, value = name, stack[name]
    end
  end
  return best
end

-- GPUMech under a policy, as a model of a sweep: the representative warp is
-- chosen once per kernel on the base configuration (shared by every GPUMech
-- model of the sweep through the kernel's cache), the memory replay is
-- cached per memory parameters.  Columns: cycles, time_us, ipc, cpi, the CPI
-- stack (cpi_base ... cpi_queue), achieved DRAM bandwidth (achieved_gbs:
-- bytes the functional memory model moved over the predicted time) and its
-- share of the configuration's peak (dram_util), the dominant bottleneck.
-- opts: policy "rr"|"gto", model (a key of M.models), select, name.
function M.new(opts)
  opts = opts or {}
  local policy = opts.policy or "rr"
  local columns = { "cycles", "time_us", "ipc", "cpi" }
  for _, s in ipairs(M.STACK) do
    columns[#columns + 1] = "cpi_" .. s:lower()
  end
  for _, c in ipairs { "achieved_gbs", "dram_util", "dominant", "waves", "warnings" } do
    columns[#columns + 1] = c
  end
  return {
    name = opts.name or ("gpumech-" .. policy),
    columns = columns,
    prepare = function(kernel, base, cache, ctx)
      local key = "gpumech.prepare/" .. (opts.select or "kmeans")
      if not cache[key] then
        cache[key] = { M.prepare(kernel, base, { select = opts.select, seed = ctx.seed }) }
      end
      return cache[key][1], cache[key][2]
    end,
    run = function(kernel, cfg, prepared, cache)
      local r, err = M.predict(kernel, cfg, { policy = policy, model = opts.model, select = opts.select,
        prepared = prepared, memory_cache = cache })
      if not r then
        return nil, err
      end
      local mem = assert(memsim.functional_cached(kernel, cfg, cache))
      local seconds = r.time_us * 1e-6
      local achieved = seconds > 0 and (mem.dram_bytes_read + mem.dram_bytes_written) / seconds / 1e9 or 0
      local row = { cycles = r.cycles, time_us = r.time_us, ipc = r.ipc, cpi = r.cpi, achieved_gbs = achieved,
        dram_util = achieved / cfg.dram.bandwidth_gbs, dominant = M.dominant(r.stack), waves = r.waves,
        warnings = table.concat(r.warnings, "; ") }
      for _, s in ipairs(M.STACK) do
        row["cpi_" .. s:lower()] = r.stack[s]
      end
      return row
    end,
  }
end

return M
