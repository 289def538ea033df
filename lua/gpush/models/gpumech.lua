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
-- Two sets of contention and wave equations (docs/gpumech.md): "paper"
-- (Eq. 17-23 and one wave shape's CPI, with DESIGN.md's errata) and the
-- default "gpush" (every contended resource a queue in steady state, never
-- shorter than its demand; the L2 slices, SFU/FP64 and other units, bank
-- conflicts; blocks held until their longest warp ends; CPI and stack over
-- every wave).
-- Reuse across configurations (Sec. VI-D): prepare() selects the
-- representative warp once; predict(..., {prepared = p}) then reruns only
-- the memory model and that warp's interval pass.
local bounds = require "gpush.bounds"
local core = require "gpush.core"
local config = require "gpush.config"
local machine = require "gpush.machine"
local memsim = require "gpush.memsim"
local occupancy = require "gpush.occupancy"

local M = {}

-- The comparison models of Table II, by the name the C core knows them.
M.models = {
  naive = "naive",                -- Naive_Interval: Eq. 1, capped at the issue rate
  markov = "markov",              -- Markov_Chain: Chen and Aamodt's chain over the warps
  mt = "mt",                      -- multithreading only (Sec. IV-A)
  mt_mshr = "mt_mshr",            -- + MSHR queueing (Sec. IV-B1)
  mt_mshr_band = "mt_mshr_band",  -- + DRAM bandwidth queueing (Sec. IV-B2)
  gpumech = "mt_mshr_band",       -- GPUMech = MT_MSHR_BAND
}

-- GPUMech under gpush's equations next to the paper's Table II models (the
-- paper's GPUMech = MT_MSHR_BAND, MT_MSHR, MT, Markov_Chain, naive), as the
-- comparison scenarios show them: key, label and the predict/registry options.
M.COMPARED = {
  { key = "gpush", label = "GPUMech (gpush)", opts = {} },
  { key = "paper", label = "GPUMech (paper)", opts = { equations = "paper" } },
  { key = "mt_mshr", label = "MT_MSHR", opts = { equations = "paper", model = "mt_mshr" } },
  { key = "mt", label = "MT", opts = { equations = "paper", model = "mt" } },
  { key = "markov", label = "Markov_Chain", opts = { equations = "paper", model = "markov" } },
  { key = "naive", label = "Naive_Interval", opts = { equations = "paper", model = "naive" } },
}

-- The sets of equations (multiwarp.h, gp_mw_equations); gpush is the default.
M.equations = { "gpush", "paper" }
local is_equations = { gpush = true, paper = true }

-- The CPI-stack categories, in the order every table and plot shows them:
-- Table III's, then gpush's throughput categories (zero under the paper's
-- equations).
M.STACK = { "BASE", "DEP", "L1", "L2", "DRAM", "MSHR", "QUEUE", "L2BW", "SFU", "FP64", "PIPE", "LSU", "BANK" }

-- The compute pipeline (ops.<name>) each class takes, and what each class is
-- (gpush.machine, from C).
local pipeline, class_of = machine.PIPELINE, machine.CLASS

-- The L1-missing requests that find their line still outstanding with m
-- MSHRs (the SM missed on it at most m misses earlier: memsim.h's
-- miss_reuse buckets [2^b, 2^(b+1)), a bucket m falls in counted pro rata),
-- which merge into that entry rather than take one.
local function merges_of(reuse, m)
  local merged = 0
  for b, count in ipairs(reuse or {}) do
    local lo, hi = 2 ^ (b - 1), 2 ^ b
    merged = merged + count * math.max(0, math.min(1, (m - lo + 1) / (hi - lo)))
  end
  return merged
end

-- gpush's MSHR holding time (Little's law with the MSHRs as servers): an
-- entry is held by one L1-missing load request for that request's own round
-- trip, L2 latency for an L2 hit, L2 + DRAM latency for a miss, so the
-- MSHRs' occupancy is requests x the mean round trip per request, not per
-- instruction: a gather's 32 requests, one of them missing L2, hold 31
-- entries for an L2 hit and one for the DRAM trip, while the warp waits for
-- the slowest (its PC's AMAT, Sec. V-B, on the latency path).  `holders`
-- are the requests that take an entry (merges and atomics apart); those
-- that merge into an outstanding entry re-read a line the SM has just
-- missed on, which the L2 holds, so the replay's L2 misses of loads
-- (memsim's mshr_dram_requests) are taken to come from holders: the busy
-- time holders x T then counts every L2 miss as one entry's DRAM round trip
-- however many requests merge.  Against D / all requests, this moves the
-- DRAM share by at most 0.006 over the suite on five presets, except
-- tiny_blocks on gtx1080 (0.20 against 0.03: the replay takes 6,912 of 8,192
-- requests for merges, the simulator merges 607; the MSHRs are far from
-- binding there).  Returns the mean round trip and the share of holders
-- that reach DRAM.
local function mshr_hold(mem, cfg, holders)
  if not (holders > 0) then
    return cfg.l2.latency, 0
  end
  local to_dram = math.min(mem.mshr_dram_requests / holders, 1)
  return cfg.l2.latency + to_dram * mem.params.dram_latency, to_dram
end

-- Per static PC (steps 1-2): latency in cycles; expected L1-missing load
-- requests (MSHR users, Eq. 18; under gpush's equations without atomics
-- and the requests that merge into an outstanding entry), DRAM accesses (stores and write-backs
-- included, Eq. 23) and L2 requests per execution; the scheduler unit it
-- occupies and for how many cycles (a compute class's ops.<class>.interval;
-- the LSU a cycle per line request or shared-memory bank pass); the
-- miss-event distribution that splits the PC's stalls in the CPI stack
-- (Sec. VII: L1 hit, L2 hit, DRAM; compute PCs none, so DEP; shared-memory
-- and constant loads count as L1, on-chip latency, since Table III has no
-- category of their own; under gpush's equations a shared PC's extra
-- bank-pass latency is BANK; an execution with no active lane takes the
-- simulator's latency for it, since the AMAT counts executions with
-- requests); and Eq. 19's average L2/DRAM latency of L1-missing loads
-- (avg_miss_latency: per instruction, by its slowest request, as the AMAT).
-- Under gpush's equations also the MSHRs' holding time per request
-- (mshr_hold_latency, miss_dram_fraction: mshr_hold below) and the kernel's
-- totals per warp over every warp (the mean warp's demand on each resource).
function M.pc_params(kernel, cfg, mem, equations)
  local gpush = (equations or "gpush") == "gpush"
  local params = { latency = {}, l1_miss_reqs = {}, dram_reqs = {}, l2_reqs = {}, unit = {}, unit_busy = {},
    mix_l1 = {}, mix_l2 = {}, mix_dram = {}, mix_bank = {}, inactive_latency = gpush and {} or nil,
    unit_timing = gpush }
  local miss_latency, misses = 0, 0
  local l1_total, l2_total, lsu_total, bank_total, lsu_counted = 0, 0, 0, 0, 0
  local dram_cycles = mem.params.dram_latency
  local unit_of = machine.unit_of(cfg)
  for i, st in ipairs(kernel:statics()) do
    local pc = mem.pcs[i]
    local class = class_of[st.class]
    -- stores and global atomics reach the L2 unless L1 keeps them
    local store_like = class.cache and (class.store or class.atomic)
    local latency, l1_miss, dram, l2, mix_l1, mix_l2, mix_dram, mix_bank = 0, 0, 0, 0, 0, 0, 0, 0
    local unit, busy = unit_of[st.class], 1
    if pipeline[st.class] then
      latency = cfg.ops[pipeline[st.class]].latency
      busy = cfg.ops[pipeline[st.class]].interval
    elseif pc and pc.instructions > 0 and pc.shared_passes == nil then
      local n = pc.instructions
      latency = pc.amat
      l1_miss, dram = pc.l1_miss_requests / n, pc.dram_requests / n
      mix_l1, mix_l2, mix_dram = pc.l1_hits / n, pc.l2_hits / n, pc.dram / n
      -- loads reach L2 when they miss L1; stores and atomics unless L1 keeps them
      l2 = store_like and pc.requests / n * (1 - mix_l1) or l1_miss
      if gpush and class.atomic and class.cache then
        l1_miss = 0 -- atomics take no MSHR (they wait at the L2)
      elseif gpush and store_like then
        -- a store is done when L1 (write-back) or the L2 slice accepts it; nothing
        -- reads its result, so this only ends the warp's drain
        latency = cfg.l1.write_policy == "write_back" and cfg.l1.latency or cfg.l2.interval
      elseif gpush then
        l1_miss = (pc.l1_miss_requests - merges_of(pc.miss_reuse, cfg.l1.mshrs)) / n
      end
      busy = math.max(pc.requests / n, 1)
      l2_total, lsu_total, lsu_counted = l2_total + l2 * n, lsu_total + busy * n, lsu_counted + n
      l1_total = l1_total + l1_miss * n
      if l1_miss > 0 then
        miss_latency = miss_latency + pc.l2_hits * cfg.l2.latency
          + pc.dram * (cfg.l2.latency + dram_cycles)
        misses = misses + pc.l2_hits + pc.dram
      end
    else
      mix_l1 = 1
      if pc and pc.instructions > 0 then
        latency = pc.amat -- shared memory with its bank passes, or constant
        if pc.shared_passes then
          busy = math.max(pc.shared_passes / pc.instructions, 1)
          bank_total = bank_total + (busy - 1) * pc.instructions
          if gpush and latency > cfg.shared.latency then
            mix_l1, mix_bank = cfg.shared.latency / latency, 1 - cfg.shared.latency / latency
          end
        end
        lsu_total, lsu_counted = lsu_total + busy * pc.instructions, lsu_counted + pc.instructions
      elseif st.class == "ld_const" then
        latency = cfg.const.latency
      elseif class.shared and not class.store then
        latency = cfg.shared.latency
      else
        latency = cfg.l1.latency -- memory instruction with no request (empty mask)
      end
    end
    params.latency[i], params.l1_miss_reqs[i], params.dram_reqs[i] = latency, l1_miss, dram
    params.l2_reqs[i], params.unit[i], params.unit_busy[i] = l2, unit, busy
    params.mix_l1[i], params.mix_l2[i], params.mix_dram[i] = mix_l1, mix_l2, mix_dram
    params.mix_bank[i] = mix_bank
    if gpush then
      -- an execution with no active lane: a cached access returns the next
      -- cycle, a shared one after the shared latency (the simulator's timing)
      params.inactive_latency[i] = class.cache and 1 or (class.shared and cfg.shared.latency) or -1
    end
  end
  params.avg_miss_latency = misses > 0 and miss_latency / misses or cfg.l2.latency
  if gpush then
    params.mshr_hold_latency, params.miss_dram_fraction = mshr_hold(mem, cfg, l1_total)
  end
  -- the mean warp's demand: instructions, requests and unit cycles over every warp
  local info = kernel:info()
  local warps = math.max(info.warps, 1)
  local unit_busy, memory_insts = {}, 0
  for class, count in pairs(info.class_mix) do
    if pipeline[class] then
      local u = unit_of[class]
      unit_busy[u] = (unit_busy[u] or 0) + count * cfg.ops[pipeline[class]].interval / warps
    else
      memory_insts = memory_insts + count
    end
  end
  -- memory instructions the functional model saw no request of take the LSU a cycle
  unit_busy.lsu = (lsu_total + math.max(memory_insts - lsu_counted, 0)) / warps
  params.kernel = { insts_per_warp = info.warp_instructions / warps,
    l1_miss_reqs_per_warp = l1_total / warps, l2_reqs_per_warp = l2_total / warps,
    dram_reqs_per_warp = mem.dram_requests / warps, unit_busy_per_warp = unit_busy,
    bank_busy_per_warp = bank_total / warps }
  return params
end

-- Cycles between a warp's consecutive issues (the interval pass's unit):
-- the paper's, one issue slot of its scheduler (1 / sm.issue_width);
-- gpush's, at least a cycle, as the simulator's schedulers issue from
-- sm.issue_width different warps a cycle (one instruction per warp) and
-- the bounds' latency path assumes.  The scheduler's rate stays
-- sm.issue_width in the multi-warp model (Eq. 7, the issue demand).
local function issue_cycles_of(cfg, equations)
  if equations == "gpush" then
    return math.max(1 / cfg.sm.issue_width, 1)
  end
  return 1 / cfg.sm.issue_width
end

-- Every warp's totals (Eq. 4-5), or nil and a message for an empty kernel.
local function features_of(kernel, pcs, issue_cycles)
  local features = core.gpumech_features(kernel, pcs, issue_cycles or 1)
  if #features == 0 then
    return nil, "gpumech: the kernel has no instructions"
  end
  return features
end

-- Step 3: the representative warp (0-based global warp index).
function M.select(kernel, pcs, method, seed, issue_cycles)
  local features, err = features_of(kernel, pcs, issue_cycles)
  if not features then
    return nil, err
  end
  return features[core.gpumech_select(features, method or "kmeans", seed or 1)].warp
end

-- Each block's critical warp: its longest alone (a block holds its slot
-- until its last warp ends), in block order: { {block, warp, cycles}, ... }.
local function block_critical(features, warps_per_block)
  local best, order = {}, {}
  for _, f in ipairs(features) do
    local b = f.warp // warps_per_block
    local cur = best[b]
    if not cur then
      order[#order + 1] = b
    end
    if not cur or f.total_cycles > cur.total_cycles then
      best[b] = f
    end
  end
  table.sort(order)
  local list = {}
  for i, b in ipairs(order) do
    list[i] = best[b]
  end
  return list
end

-- Step 3 under gpush's equations: k-means (Eq. 6) runs over the blocks'
-- critical warps, so the full waves' representative stands for a block's
-- lifetime and not for the kernel's short warps (Fig. 7's MAX, MIN and
-- RANDOM still pick among all warps); the last wave ends with its longest
-- block, so predict() takes that block's critical warp for it (`critical`).
function M.select_blocks(kernel, pcs, method, seed, issue_cycles)
  local features, err = features_of(kernel, pcs, issue_cycles)
  if not features then
    return nil, err
  end
  local wpb = kernel:info().warps_per_block
  local list = block_critical(features, wpb)
  local critical = {}
  for i, f in ipairs(list) do
    critical[i] = { block = f.warp // wpb, warp = f.warp, cycles = f.total_cycles }
  end
  method = method or "kmeans"
  local candidates = method == "kmeans" and list or features
  return candidates[core.gpumech_select(candidates, method, seed or 1)].warp, critical
end

local function check_equations(equations, level)
  local eq = equations or "gpush"
  if not is_equations[eq] then
    error(("gpush.gpumech: equations must be 'gpush' or 'paper', got '%s'"):format(tostring(eq)), level + 1)
  end
  return eq
end

-- Selects the representative warp once, for predictions across
-- configurations; opts: select, seed, equations.
function M.prepare(kernel, cfg, opts)
  opts = opts or {}
  local equations = check_equations(opts.equations, 2)
  config.check(cfg, 2)
  local mem, err = memsim.functional(kernel, cfg)
  if not mem then
    return nil, err
  end
  local pcs = M.pc_params(kernel, cfg, mem, equations)
  local warp, critical_or_err
  if equations == "gpush" then
    warp, critical_or_err = M.select_blocks(kernel, pcs, opts.select, opts.seed, issue_cycles_of(cfg, equations))
  else
    warp, critical_or_err = M.select(kernel, pcs, opts.select, opts.seed, issue_cycles_of(cfg))
  end
  if not warp then
    return nil, critical_or_err
  end
  return { warp = warp, select = opts.select or "kmeans", equations = equations,
    critical = equations == "gpush" and critical_or_err or nil }
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

-- gpush's waves: as waves_of, but the last wave (full or partial) is a shape
-- of its own whose warp is the critical warp of its longest block (the wave
-- ends when that block does); the others take the full waves'
-- representative.
local function gpush_waves(kernel_info, cfg, blocks_per_sm, rep_warp, critical)
  local shapes, waves = waves_of(kernel_info, cfg, blocks_per_sm)
  local last = shapes[#shapes]
  if last.count > 1 then
    last.count = last.count - 1
    shapes[#shapes + 1] = { count = 1, blocks = last.blocks, blocks_on_sm = last.blocks_on_sm,
      warps_on_sm = last.warps_on_sm, cores = last.cores }
    last = shapes[#shapes]
  end
  for _, shape in ipairs(shapes) do
    shape.warp = rep_warp
  end
  local first_block = kernel_info.thread_blocks - last.blocks
  local tail
  for _, c in ipairs(critical) do
    if c.block >= first_block and (not tail or c.cycles > tail.cycles) then
      tail = c
    end
  end
  last.warp = tail and tail.warp or rep_warp
  return shapes, waves
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
  return policy, model_name, check_equations(opts.equations, 3)
end

-- Step 7: what makes the prediction less trustworthy.  `flags`: dram_capped
-- and bandwidth_bound (paper), or bound (gpush: the binding resource of the
-- wave that takes most cycles).
local function validity_warnings(info, cfg, blocks_per_sm, flags)
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
  if flags.dram_capped then
    warnings[#warnings + 1] = "DRAM queue saturated: the M/D/1 delay was capped (Eq. 21)"
  end
  if flags.bandwidth_bound then
    warnings[#warnings + 1] = "DRAM bandwidth bound: cycles raised to the DRAM transfer time of the "
      .. "wave's requests (Eq. 21's capped delay alone would exceed the peak bandwidth)"
  end
  if info.warnings ~= "" then
    warnings[#warnings + 1] = info.warnings
  end
  return warnings
end

-- The representative warps of a prediction: from opts.prepared when it was
-- made under the same equations, else selected now.
local function representatives(kernel, pcs, opts, equations, issue_cycles)
  local p = opts.prepared
  if p and (p.equations or "paper") == equations then
    return p.warp, p.critical
  end
  if equations == "gpush" then
    return M.select_blocks(kernel, pcs, opts.select, opts.seed, issue_cycles)
  end
  return M.select(kernel, pcs, opts.select, opts.seed, issue_cycles)
end

-- The core's parameters for one wave shape (step 4: the model per warp
-- scheduler, #warps the warps it owns).
local function wave_params(cfg, pcs, w, model, policy, equations, service, dram_reqs_per_warp)
  local par = {
    model = model, policy = policy, equations = equations,
    warps = math.ceil(w.warps_on_sm / cfg.sm.schedulers), issue_rate = cfg.sm.issue_width,
    warps_per_sm = w.warps_on_sm, mshrs = cfg.l1.mshrs,
    -- an MSHR's service time: Eq. 19's per-instruction latency (the paper's);
    -- under gpush's equations each request's own round trip (mshr_hold)
    avg_miss_latency = equations == "gpush" and pcs.mshr_hold_latency or pcs.avg_miss_latency,
    sms_with_blocks = w.cores, dram_service_cycles = service,
    kernel_dram_reqs_per_warp = dram_reqs_per_warp,
  }
  if equations == "gpush" then
    local k = pcs.kernel
    par.kernel_insts_per_warp = k.insts_per_warp
    par.kernel_l1_miss_reqs_per_warp = k.l1_miss_reqs_per_warp
    par.kernel_l2_reqs_per_warp = k.l2_reqs_per_warp
    par.kernel_unit_busy_per_warp = k.unit_busy_per_warp
    par.kernel_bank_busy_per_warp = k.bank_busy_per_warp
    par.dram_channels = cfg.dram.channels
    par.l2_slices, par.l2_service_cycles = cfg.l2.slices, cfg.l2.interval
    par.miss_dram_fraction = pcs.miss_dram_fraction
  end
  return par
end

-- gpush's launch: the CPI and stack over every wave, each wave's cycles and
-- stack weighted by its instructions (per scheduler: its warps x the mean
-- warp's); the MSHRs' whole rounds (MT_MSHR and up): the busiest SM's N
-- L1-missing requests over the launch hold its m MSHRs for at least
-- ceil(N / m) round trips of the mean request (mshr_hold), all warps
-- starting together (a one-off burst,
-- as Fig. 9, needs whole rounds where the waves' steady state counts N /
-- m); the binding resource (of the wave that takes most cycles, or the
-- MSHRs when their rounds raise the launch).  Returns the body cycles.
local function gpush_launch(result, results, shapes, info, cfg, pcs, model)
  local body, insts, stack, longest = 0, 0, {}, 1
  for _, name in ipairs(M.STACK) do
    stack[name] = 0
  end
  for i, r in ipairs(results) do
    local n = shapes[i].count * r.cycles / r.cpi
    body, insts = body + shapes[i].count * r.cycles, insts + n
    for _, name in ipairs(M.STACK) do
      stack[name] = stack[name] + r.stack[name] * n
    end
    if shapes[i].count * r.cycles > shapes[longest].count * results[longest].cycles then
      longest = i
    end
  end
  result.bound, result.resources = results[longest].bound, results[longest].resources
  if model == "mt_mshr" or model == "mt_mshr_band" then
    local busiest_warps = math.ceil(info.thread_blocks / cfg.sm.count) * info.warps_per_block
    local requests = pcs.kernel.l1_miss_reqs_per_warp * busiest_warps
    local rounds = math.ceil(requests / cfg.l1.mshrs - 1e-9) * pcs.mshr_hold_latency
    result.mshr_rounds_cycles = rounds
    if rounds > body then
      stack.MSHR = stack.MSHR + (rounds - body)
      body, result.bound = rounds, "mshr"
    end
  end
  for _, name in ipairs(M.STACK) do
    stack[name] = stack[name] / insts
  end
  result.cpi, result.stack = body / insts, stack
  result.critical_warp = shapes[#shapes].warp
  result.wave_shapes = {}
  for i, w in ipairs(shapes) do
    result.wave_shapes[i] = { count = w.count, blocks = w.blocks, warps_on_sm = w.warps_on_sm, warp = w.warp,
      cycles = results[i].cycles, bound = results[i].bound }
  end
  return body
end

-- The first-principles bounds (gpush.bounds) a prediction under gpush's
-- equations never undercuts, and the stack category that takes the cycles
-- one adds: every bound of gpush.bounds, all hard.  mshr and l2 are the
-- hard ones (each distinct loaded line one MSHR allocation and one L2
-- request, merges aside: docs/bounds.md), not the functional replay's
-- estimates, which the timed mode beats by merging requests.
local HARD_BOUNDS = {
  issue = "BASE", int = "PIPE", fma = "PIPE", fp64 = "FP64", sfu = "SFU", tensor = "PIPE", uniform = "PIPE",
  control = "PIPE", shared = "BANK", lsu = "LSU", l2 = "L2BW", dram = "QUEUE", mshr = "MSHR", latency = "DEP",
  blocks = "DEP", dispatch = "BASE",
}

-- Raises gpush's body cycles (launches included, the kernel launch apart) to
-- the largest hard bound when it is higher, the excess in that bound's
-- stack category; the result says which bound binds (`hard_bound`: the
-- largest, its cycles with the kernel launch as the prediction's; `bound`
-- when it raised the prediction).  `mem`, GPUMech's functional replay,
-- gives the bounds their memory traffic (no second replay).  Returns the
-- body cycles.
local function floor_at_bounds(result, kernel, cfg, body, cache, mem)
  local b, err = bounds.kernel(kernel, cfg, cache, mem)
  if not b then
    error("gpumech: " .. tostring(err))
  end
  local name, hard = "issue", 0
  for _, n in ipairs(bounds.NAMES) do
    if HARD_BOUNDS[n] and b.cycles[n] > hard then
      name, hard = n, b.cycles[n]
    end
  end
  result.hard_bound = { name = name, cycles = hard + b.launch } -- as the prediction, launch included
  if hard > body then
    local category = HARD_BOUNDS[name]
    local added = (hard - body) * result.cpi / math.max(body - result.dispatch_cycles, 1e-300)
    result.stack[category] = result.stack[category] + added
    result.cpi, result.bound = result.cpi + added, name
    return hard
  end
  return body
end

-- Predicts one kernel on one configuration; returns a result table or nil,
-- message.  opts: policy "rr"|"gto", model (a key of M.models), equations
-- "gpush" (default) | "paper", select "kmeans"|"max"|"min"|"random", seed,
-- prepared (from M.prepare), memory_cache (a table reused across calls: see
-- memsim.functional_cached).
function M.predict(kernel, cfg, opts)
  opts = opts or {}
  config.check(cfg, 2)
  local policy, model_name, equations = check_options(opts)
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
  local pcs = M.pc_params(kernel, cfg, mem, equations)
  local issue_cycles = issue_cycles_of(cfg, equations)
  local warp, critical = representatives(kernel, pcs, opts, equations, issue_cycles)
  if not warp then
    return nil, critical
  end
  local shapes, waves
  if equations == "gpush" then
    shapes, waves = gpush_waves(info, cfg, blocks_per_sm, warp, critical)
  else
    shapes, waves = waves_of(info, cfg, blocks_per_sm)
  end
  local dram_bytes_per_s = cfg.dram.bandwidth_gbs * 1e9
  local service = cfg.clock.core_mhz * 1e6 * cfg.dram.access_bytes / dram_bytes_per_s -- Eq. 22
  -- every warp's DRAM accesses on average, for the DRAM floor (docs/gpumech.md)
  local dram_reqs_per_warp = info.warps > 0 and mem.dram_requests / info.warps or 0
  local profiles, results = {}, {}
  local cycles, dispatch, first, capped, bandwidth_bound = 0, 0, nil, false, false
  for i, w in ipairs(shapes) do
    local wwarp = w.warp or warp
    profiles[wwarp] = profiles[wwarp] or core.gpumech_profile(kernel, wwarp, pcs, issue_cycles)
    local r = profiles[wwarp]:predict(wave_params(cfg, pcs, w, M.models[model_name], policy, equations,
      service, dram_reqs_per_warp))
    r.warps = math.ceil(w.warps_on_sm / cfg.sm.schedulers)
    cycles = cycles + w.count * r.cycles
    -- each SM launches its blocks of the wave one at a time (launch.block_cycles each)
    dispatch = dispatch + w.count * w.blocks_on_sm * cfg.launch.block_cycles
    capped = capped or r.dram_capped
    bandwidth_bound = bandwidth_bound or r.bandwidth_bound
    first = first or r
    results[i] = r
  end
  local profile = profiles[warp] or profiles[shapes[1].warp]
  local result = {
    kernel = info.kernel, launch = info.launch, model = model_name, policy = policy, equations = equations,
    cpi = first.cpi,
    stack = first.stack,
    representative_warp = warp,
    profile = profile:summary(),
    intervals = profile:intervals(),
    waves = waves, blocks_per_sm = blocks_per_sm, occupancy_limit = limit,
    warps_per_scheduler = first.warps,
    nonoverlapped = first.nonoverlapped, mshr_delay = first.mshr_delay, dram_delay = first.dram_delay,
    markov = first.markov,
  }
  result.dispatch_cycles = dispatch
  if equations == "gpush" and model_name ~= "naive" and model_name ~= "markov" then
    cycles = gpush_launch(result, results, shapes, info, cfg, pcs, M.models[model_name]) + dispatch
    cycles = floor_at_bounds(result, kernel, cfg, cycles, opts.memory_cache, mem)
    result.warnings = validity_warnings(info, cfg, blocks_per_sm, {})
  else
    cycles = cycles + dispatch
    result.warnings = validity_warnings(info, cfg, blocks_per_sm,
      { dram_capped = capped, bandwidth_bound = bandwidth_bound })
  end
  cycles = cycles + cfg.launch.kernel_cycles
  result.cycles, result.time_us, result.ipc = cycles, cycles / cfg.clock.core_mhz, info.warp_instructions / cycles
  return result
end

-- The sweep model (the contract in gpush.models) -----------------------------

-- The largest non-BASE component of a CPI stack (BASE when none is > 0; a
-- category the stack lacks, as Table III's seven-category stacks lack
-- gpush's, counts as 0).
function M.dominant(stack)
  local best, value = "BASE", 0
  for _, name in ipairs(M.STACK) do
    if name ~= "BASE" and (stack[name] or 0) > value then
      best, value = name, stack[name]
    end
  end
  return best
end

-- GPUMech under a policy, as a model of a sweep: the representative warp is
-- chosen once per kernel on the base configuration (shared by every GPUMech
-- model of the sweep with the same selection and equations through the
-- kernel's cache), the memory replay is cached per memory parameters.
-- Columns: cycles, time_us, ipc, cpi, the CPI stack (cpi_base ...
-- cpi_bank), achieved DRAM bandwidth (achieved_gbs: bytes the functional
-- memory model moved over the predicted time) and its share of the
-- configuration's peak (dram_util), the dominant bottleneck, the binding
-- resource (gpush's equations; "" under the paper's).
-- opts: policy "rr"|"gto", model (a key of M.models), equations
-- "gpush"|"paper", select, name (default gpumech-POLICY, or
-- gpumech-paper-POLICY under the paper's equations).
function M.new(opts)
  opts = opts or {}
  local policy = opts.policy or "rr"
  local equations = check_equations(opts.equations, 2)
  local columns = { "cycles", "time_us", "ipc", "cpi" }
  for _, s in ipairs(M.STACK) do
    columns[#columns + 1] = "cpi_" .. s:lower()
  end
  for _, c in ipairs { "achieved_gbs", "dram_util", "dominant", "bound", "waves", "warnings" } do
    columns[#columns + 1] = c
  end
  return {
    name = opts.name or ("gpumech-" .. (equations == "paper" and "paper-" or "") .. policy),
    columns = columns,
    prepare = function(kernel, base, cache, ctx)
      local key = "gpumech.prepare/" .. (opts.select or "kmeans") .. "/" .. equations
      if not cache[key] then
        cache[key] = { M.prepare(kernel, base, { select = opts.select, seed = ctx.seed, equations = equations }) }
      end
      return cache[key][1], cache[key][2]
    end,
    run = function(kernel, cfg, prepared, cache)
      local r, err = M.predict(kernel, cfg, { policy = policy, model = opts.model, select = opts.select,
        equations = equations, prepared = prepared, memory_cache = cache })
      if not r then
        return nil, err
      end
      local mem = assert(memsim.functional_cached(kernel, cfg, cache))
      local seconds = r.time_us * 1e-6
      local achieved = seconds > 0 and (mem.dram_bytes_read + mem.dram_bytes_written) / seconds / 1e9 or 0
      local row = { cycles = r.cycles, time_us = r.time_us, ipc = r.ipc, cpi = r.cpi, achieved_gbs = achieved,
        dram_util = achieved / cfg.dram.bandwidth_gbs, dominant = M.dominant(r.stack), bound = r.bound or "",
        waves = r.waves, warnings = table.concat(r.warnings, "; ") }
      for _, s in ipairs(M.STACK) do
        row["cpi_" .. s:lower()] = r.stack[s]
      end
      return row
    end,
  }
end

return M
