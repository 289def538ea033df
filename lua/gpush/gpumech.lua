-- gpush.gpumech: GPUMech (Huang et al., MICRO 2014) over a kernel and a
-- configuration.
--
--   local r = assert(gpumech.predict(kernel, cfg, { policy = "gto" }))
--   r.cycles, r.time_us, r.ipc, r.cpi, r.stack.DRAM, r.representative_warp
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
--     (sub-wave kernels are the normal case), summed, plus launch overheads;
--  6. the CPI stack of Table III (BASE, DEP, L1, L2, DRAM, MSHR, QUEUE), in
--     the units of the CPI and summing to it [VII].
-- Reuse across configurations (Sec. VI-D): prepare() selects the
-- representative warp once; predict(..., {prepared = p}) then reruns only
-- the memory model and that warp's interval pass.
local core = require "gpush.core"
local memsim = require "gpush.memsim"
local occupancy = require "gpush.occupancy"

local M = {}

-- The comparison models of Table II: what each includes.
M.models = {
  naive = { naive = true },                                  -- Eq. 1, capped at the issue rate
  mt = { mshr = false, dram = false },                       -- multithreading only
  mt_mshr = { mshr = true, dram = false },
  mt_mshr_band = { mshr = true, dram = true },
  gpumech = { mshr = true, dram = true },                    -- = MT_MSHR_BAND
}

-- Opcode classes without a pipeline of their own use ops.other.
local pipeline = {
  int = "int", fp32 = "fp32", imad = "imad", fp64 = "fp64", sfu = "sfu", tensor = "tensor",
  uniform = "uniform", branch = "branch", other = "other", barrier = "other",
  barrier_arrive = "other", depbar = "other",
}
local loads = { ld_global = true, ld_local = true, tex = true, atom_global = true, ldgsts = true }

-- Per static PC: latency, expected L1-missing and DRAM requests (steps 1-2),
-- and the average L2/DRAM latency of L1-missing loads (Eq. 19).
function M.pc_params(kernel, cfg, mem)
  local params = { latency = {}, l1_miss_reqs = {}, dram_reqs = {}, class = {}, mix = {} }
  local miss_latency, misses = 0, 0
  local dram_cycles = mem.params.dram_latency
  for i, st in ipairs(kernel:statics()) do
    local pc = mem.pcs[i]
    local latency, l1_miss, dram = 0, 0, 0
    if pipeline[st.class] then
      latency = cfg.ops[pipeline[st.class]].latency
    elseif pc and pc.instructions > 0 then
      latency = pc.amat
      if loads[st.class] then
        local per_inst = pc.requests / pc.instructions
        l1_miss = per_inst * (pc.l2_hits + pc.dram) / pc.instructions
        dram = per_inst * pc.dram / pc.instructions
        miss_latency = miss_latency + pc.l2_hits * cfg.l2.latency + pc.dram * (cfg.l2.latency + dram_cycles)
        misses = misses + pc.l2_hits + pc.dram
      end
      params.mix[i] = pc
    elseif st.class == "ld_const" then
      latency = cfg.const.latency
    elseif st.class == "ld_shared" or st.class == "atom_shared" then
      latency = cfg.shared.latency
    else
      latency = cfg.l1.latency -- memory instruction with no request (empty mask)
    end
    params.latency[i], params.l1_miss_reqs[i], params.dram_reqs[i] = latency, l1_miss, dram
    params.class[i] = st.class
  end
  params.avg_miss_latency = misses > 0 and miss_latency / misses or cfg.l2.latency
  return params
end

-- Step 3: the representative warp (0-based global warp index).
function M.select(kernel, pcs, method, seed)
  local features = core.gpumech_features(kernel, pcs)
  if #features == 0 then
    return nil, "gpumech: the kernel has no instructions"
  end
  return features[core.gpumech_select(features, method or "kmeans", seed or 1)].warp
end

-- Selects the representative warp once, for predictions across configurations.
function M.prepare(kernel, cfg, opts)
  opts = opts or {}
  local mem, err = memsim.functional(kernel, cfg)
  if not mem then
    return nil, err
  end
  local warp, select_err = M.select(kernel, M.pc_params(kernel, cfg, mem), opts.select, opts.seed)
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
    shapes[#shapes + 1] = { count = count, blocks = in_wave,
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

-- Step 6: the CPI stack of one wave's result, summing exactly to its CPI.
local function cpi_stack(profile, result, pcs, insts_all, issue_rate)
  local stack = { BASE = 0, DEP = 0, L1 = 0, L2 = 0, DRAM = 0, MSHR = 0, QUEUE = 0 }
  local cpi = result.cpi
  if insts_all <= 0 then
    return stack
  end
  local base = result.base_cycles / insts_all
  if result.cycles <= result.base_cycles + 1e-9 then
    stack.BASE = cpi -- issue-bound: every stall hidden
    return stack
  end
  local extra = (result.cycles - result.base_cycles) / insts_all
  local mshr, queue = result.mshr_delay / insts_all, result.dram_delay / insts_all
  local stalls = extra - mshr - queue
  if stalls < 0 then
    -- the queueing delays alone explain the cycles above the issue bound
    local scale = extra / (mshr + queue)
    mshr, queue, stalls = mshr * scale, queue * scale, 0
  end
  stack.BASE, stack.MSHR, stack.QUEUE = base, mshr, queue
  -- the remaining stall cycles, by the causes of the representative warp's stalls
  local by_cause = { DEP = 0, L1 = 0, L2 = 0, DRAM = 0 }
  local total = 0
  for _, iv in ipairs(profile.intervals) do
    local s = iv.stall_cycles
    if s > 0 then
      local mix = iv.cause_pc > 0 and pcs.mix[iv.cause_pc]
      if mix and mix.instructions > 0 then
        local l1 = mix.l1_hits * pcs.l1_latency
        local l2 = mix.l2_hits * pcs.l2_latency
        local dram = mix.dram * pcs.dram_total
        local sum = l1 + l2 + dram
        if sum > 0 then
          by_cause.L1 = by_cause.L1 + s * l1 / sum
          by_cause.L2 = by_cause.L2 + s * l2 / sum
          by_cause.DRAM = by_cause.DRAM + s * dram / sum
        else
          by_cause.L1 = by_cause.L1 + s
        end
      else
        by_cause.DEP = by_cause.DEP + s
      end
      total = total + s
    end
  end
  for name, v in pairs(by_cause) do
    stack[name] = total > 0 and stalls * v / total or 0
  end
  if total == 0 then
    stack.DEP = stalls -- non-overlapped issue cycles with no stall to blame
  end
  -- exact sum: fold rounding into BASE
  local sum = 0
  for _, v in pairs(stack) do
    sum = sum + v
  end
  stack.BASE = stack.BASE + (cpi - sum)
  return stack
end

-- Predicts one kernel on one configuration; returns a result table or nil,
-- message.  opts: policy "rr"|"gto", model (M.models), select
-- "kmeans"|"max"|"min"|"random", seed, prepared (from M.prepare),
-- memory_cache (a table reused across calls: see memsim.functional_cached).
function M.predict(kernel, cfg, opts)
  opts = opts or {}
  local policy = opts.policy or "rr"
  if policy ~= "rr" and policy ~= "gto" then
    error(("gpush.gpumech.predict: policy must be 'rr' or 'gto', got '%s'"):format(tostring(policy)), 2)
  end
  local model_name = opts.model or "gpumech"
  local model = M.models[model_name]
  if not model then
    error(("gpush.gpumech.predict: unknown model '%s' (naive, mt, mt_mshr, mt_mshr_band, gpumech)")
      :format(tostring(model_name)), 2)
  end
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
  pcs.l1_latency, pcs.l2_latency = cfg.l1.latency, cfg.l2.latency
  pcs.dram_total = cfg.l2.latency + mem.params.dram_latency
  local warp = opts.prepared and opts.prepared.warp
  if not warp then
    local select_err
    warp, select_err = M.select(kernel, pcs, opts.select, opts.seed)
    if not warp then
      return nil, select_err
    end
  end
  local profile = core.gpumech_profile(kernel, warp, pcs)
  local shapes, waves = waves_of(info, cfg, blocks_per_sm)
  local issue_rate = cfg.sm.issue_width
  local dram_bytes_per_s = cfg.dram.bandwidth_gbs * 1e9
  local service = cfg.clock.core_mhz * 1e6 * cfg.dram.access_bytes / dram_bytes_per_s -- Eq. 22
  local cycles, first, capped = 0, nil, false
  for _, w in ipairs(shapes) do
    local warps = math.ceil(w.warps_on_sm / cfg.sm.schedulers)
    local r
    if model.naive then
      -- Eq. 1: one warp's cycles, all others hidden in its stalls, capped at the issue rate
      local bound = warps * profile.insts / issue_rate
      local c = math.max(profile.total_cycles, bound)
      r = { cycles = c, cpi = c / (warps * profile.insts), base_cycles = bound, nonoverlapped = 0,
        mshr_delay = 0, dram_delay = 0, dram_capped = false }
    else
      r = core.gpumech_multiwarp(profile, {
        policy = policy, warps = warps, issue_rate = issue_rate, mshrs = cfg.l1.mshrs,
        warps_per_sm = w.warps_on_sm, cores = w.cores, avg_miss_latency = pcs.avg_miss_latency,
        dram_service_cycles = service, model_mshr = model.mshr and 1 or 0, model_dram = model.dram and 1 or 0,
      })
    end
    r.warps = warps
    cycles = cycles + w.count * r.cycles
    capped = capped or r.dram_capped
    first = first or r
  end
  cycles = cycles + cfg.launch.kernel_cycles + waves * cfg.launch.block_cycles
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
  if capped then
    warnings[#warnings + 1] = "DRAM queue saturated: the M/D/1 delay was capped (Eq. 21)"
  end
  if info.warnings ~= "" then
    warnings[#warnings + 1] = info.warnings
  end
  local intervals = profile.intervals
  return {
    kernel = info.kernel, launch = info.launch, model = model_name, policy = policy,
    cycles = cycles, time_us = cycles / cfg.clock.core_mhz,
    ipc = info.warp_instructions / cycles,
    cpi = first.cpi,
    stack = cpi_stack(profile, first, pcs, first.warps * profile.insts, issue_rate),
    representative_warp = warp,
    profile = { insts = profile.insts, stall_cycles = profile.stall_cycles,
      total_cycles = profile.total_cycles, intervals = #intervals },
    intervals = intervals,
    waves = waves, blocks_per_sm = blocks_per_sm, occupancy_limit = limit,
    warps_per_scheduler = first.warps,
    nonoverlapped = first.nonoverlapped, mshr_delay = first.mshr_delay, dram_delay = first.dram_delay,
    warnings = warnings,
  }
end

return M
