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
local machine = require "gpush.machine"
local memsim = require "gpush.memsim"
local occupancy = require "gpush.occupancy"
local sampling = require "gpush.sampling"
local vocabulary = require "gpush.models.vocabulary"

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

-- The per-PC inputs of a launch (steps 1-2), as the C core builds them
-- (csrc/core/gpumech/inputs.c): per static PC its latency in cycles,
-- expected L1-missing load requests (MSHR users, Eq. 18; under gpush's
-- equations without atomics and the requests that merge into an outstanding
-- entry), DRAM accesses (stores and write-backs included, Eq. 23) and L2
-- requests per execution, the scheduler unit it occupies and for how many
-- cycles, its miss-event distribution (mix_l1, mix_l2, mix_dram, mix_bank:
-- Sec. VII's split of its stalls), and under gpush's equations the latency
-- of an execution with no active lane; Eq. 19's avg_miss_latency, gpush's
-- mshr_hold_latency and miss_dram_fraction, and `kernel`, the mean warp's
-- demands.  `mem` is memsim.functional's result for this kernel and
-- configuration.  The table core.gpumech_features and core.gpumech_profile
-- read (predict does not need it: per-PC data on request).
function M.pc_params(kernel, cfg, mem, equations)
  return core.gpumech_inputs(kernel, machine.of(cfg, 2), mem.replay, equations or "gpush")
end

-- Step 3 over a per-PC table (M.pc_params): the representative warp
-- (0-based global warp index) of Eq. 6 or Fig. 7 among every warp.
function M.select(kernel, pcs, method, seed, issue_cycles)
  local features = core.gpumech_features(kernel, pcs, issue_cycles or 1)
  if #features == 0 then
    return nil, "gpumech: the kernel has no instructions"
  end
  return features[core.gpumech_select(features, method or "kmeans", seed or 1)].warp
end

local function check_equations(equations, level)
  local eq = equations or "gpush"
  if not is_equations[eq] then
    error(("gpush.gpumech: equations must be 'gpush' or 'paper', got '%s'"):format(tostring(eq)), level + 1)
  end
  return eq
end

-- A kernel's machine, geometry and occupancy on a configuration; its
-- kernel:info() (a table built by a walk over the kernel) kept in `cache`
-- when given, as the sweep asks it at every point.
local function fit(kernel, cfg, level, cache)
  local m = machine.of(cfg, level + 1)
  local info
  if cache then
    local key = tostring(kernel) .. "|info"
    info = cache[key]
    if not info then
      info = kernel:info()
      cache[key] = info
    end
  else
    info = kernel:info()
  end
  local blocks_per_sm, limit = occupancy.blocks_per_sm(cfg, occupancy.geometry(info))
  return m, info, blocks_per_sm, limit
end

-- fit's answer as a table, for the sweep model's run to compute once and
-- hand to the sampler and the prediction (fit checks the configuration in
-- full: it was a second 10 us of a further point's RR prediction).
local function fitted(kernel, cfg, level, cache)
  local m, info, blocks_per_sm, limit = fit(kernel, cfg, level + 1, cache)
  return { m = m, info = info, blocks_per_sm = blocks_per_sm, limit = limit }
end

-- Step 3, once for predictions across configurations (Sec. VI-D): the
-- representative warp (gpush's equations: k-means over the blocks' critical
-- warps, and each block's critical warp for the last wave); opts: select,
-- seed, equations, memory_cache (predict's: the base configuration's memory
-- replay goes there, and under gpush's equations its bound counts, so the
-- sweep's base point replays nothing and every point that keeps the L1
-- size counts nothing), spend (optional: spend(part, seconds) is told the
-- CPU seconds of the memory replay and of the C call, for the sweep's log).
-- Returns { warp, select, equations, critical (gpush's:
-- { {block, warp, cycles}, ... }, on first use), handle (the C core's) }.
function M.prepare(kernel, cfg, opts)
  opts = opts or {}
  local equations = check_equations(opts.equations, 2)
  local m, info, blocks_per_sm = fit(kernel, cfg, 2)
  local cache = opts.memory_cache
  local spend, started = opts.spend or function() end, os.clock()
  -- a kernel that does not fit is refused by predict; its representative
  -- is still that of one block per SM
  local mem, err = memsim.replay(kernel, m, math.max(1, blocks_per_sm), info.shared_bytes_per_block, cache)
  spend("memory replay", os.clock() - started)
  if not mem then
    return nil, err
  end
  -- the bound counts, when the cache lacks them, in one walk with the pass
  -- over every warp
  local count = cache and equations == "gpush" and blocks_per_sm > 0 and
    not bounds.cached_counts(kernel, cfg, m, blocks_per_sm, cache, mem, info.shared_bytes_per_block)
  started = os.clock()
  local handle, message = core.gpumech_prepare(kernel, m, mem.replay,
    { equations = equations, select = opts.select, seed = opts.seed, count_bounds = count and blocks_per_sm or nil })
  spend(count and "selection + bound counts (one walk)" or "selection", os.clock() - started)
  if not handle then
    return nil, message
  end
  if count then
    bounds.keep_counts(kernel, cfg, blocks_per_sm, cache, mem, message)
  end
  return setmetatable({ warp = handle:warp(), select = opts.select or "kmeans", equations = equations,
    handle = handle }, {
    __index = function(t, key)
      if key == "critical" and equations == "gpush" then
        rawset(t, key, handle:critical())
        return rawget(t, key)
      end
    end,
  })
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

-- What makes the prediction less trustworthy.  `flags`: dram_capped and
-- bandwidth_bound (the paper's equations, and NAIVE and MARKOV).
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

-- Models that gpush's launch totals (and the floor at the hard bounds) apply to.
local launch_models = { mt = true, mt_mshr = true, mt_mshr_band = true }

-- result -> the functional replay it was predicted from (weak keys): the
-- sweep model's row reads its DRAM bytes without a second cache lookup.
local replay_of = setmetatable({}, { __mode = "k" })

-- Predicts one kernel on one configuration; returns a result table or nil,
-- message.  opts: policy "rr"|"gto", model (a key of M.models), equations
-- "gpush" (default) | "paper", select "kmeans"|"max"|"min"|"random", seed,
-- prepared (from M.prepare), memory_cache (a table reused across calls: the
-- memory replay and the bound counts, memsim.replay and bounds.counts),
-- memory (a replay of this kernel on this configuration to use instead of
-- memsim.replay's: the sweep's sampled one, M.sampled_replay),
-- per_pc (true: r.per_pc, where the launch's cycles go per static PC:
-- {pc, opcode, line, executions, cycles, stalls = {BASE = ..., ...}},
-- costliest first, in scheduler cycles: the CPI stack x the launch's warp
-- instructions; csrc/core/gpumech/per_pc.c; not built otherwise).
-- Steps 3-6 are one call into the C core (csrc/core/gpumech/launch.c);
-- r.intervals, the reported warp's intervals, are built on first use.
-- M.predict with fit's answer for (kernel, cfg) given (the sweep model's
-- run, which fits once) or nil (fitted here).
local function predict_fitted(kernel, cfg, opts, given)
  opts = opts or {}
  local policy, model_name, equations = check_options(opts)
  local f = given or fitted(kernel, cfg, 2, opts.memory_cache)
  local m, info, blocks_per_sm, limit = f.m, f.info, f.blocks_per_sm, f.limit
  if blocks_per_sm == 0 then
    return nil, ("gpumech: kernel '%s' does not fit on one SM of '%s' (limit: %s)")
      :format(info.kernel, cfg._name, limit)
  end
  local cache = opts.memory_cache
  local mem, err = opts.memory, nil
  if not mem then
    mem, err = memsim.replay(kernel, m, blocks_per_sm, info.shared_bytes_per_block, cache)
    if not mem then
      return nil, err
    end
  end
  local totals = equations == "gpush" and launch_models[M.models[model_name]]
  -- the floor's counts: from the cache, or counted in the C call (without
  -- a prepared warp, in one walk with the pass over every warp) and kept
  local counts = totals and bounds.cached_counts(kernel, cfg, m, blocks_per_sm, cache, mem,
    info.shared_bytes_per_block)
  local p = opts.prepared
  local prepared = p and (p.equations or "paper") == equations and p.handle or nil
  local r, profile = core.gpumech_predict(kernel, m, mem.replay, { model = M.models[model_name], policy = policy,
    equations = equations, blocks_per_sm = blocks_per_sm, prepared = prepared, select = opts.select,
    seed = opts.seed, per_pc = opts.per_pc }, counts or totals or nil)
  if not r then
    return nil, profile
  end
  if r.bound_counts then
    bounds.keep_counts(kernel, cfg, blocks_per_sm, cache, mem, r.bound_counts)
    r.bound_counts = nil
  end
  r.kernel, r.launch, r.model, r.policy, r.equations = info.kernel, info.launch, model_name, policy, equations
  r.blocks_per_sm, r.occupancy_limit = blocks_per_sm, limit
  r.warnings = validity_warnings(info, cfg, blocks_per_sm, totals and {} or r)
  r.dram_capped, r.bandwidth_bound = nil, nil
  r.time_us, r.ipc = r.cycles / cfg.clock.core_mhz, info.warp_instructions / r.cycles
  r.bottleneck, r.bottleneck_detail = M.bottleneck(r.stack, r.resources)
  if r.per_pc then
    table.sort(r.per_pc, function(a, b)
      if a.cycles ~= b.cycles then
        return a.cycles > b.cycles
      end
      return a.pc < b.pc
    end)
  end
  replay_of[r] = mem
  return setmetatable(r, {
    __index = function(t, key)
      if key == "intervals" then
        rawset(t, key, profile:intervals())
        return rawget(t, key)
      end
    end,
  })
end

function M.predict(kernel, cfg, opts)
  return predict_fitted(kernel, cfg, opts, nil)
end

-- Sampling the memory replay in sweeps ----------------------------------------

-- The counts of a replay each sample's settled test reads: the kernel's
-- totals GPUMech and its floor take from the replay (DRAM requests and
-- bytes, MSHR users, every level's accesses, hits and misses), and per PC
-- the counts inputs.c reads per execution (its executions, levels,
-- requests, L1 misses, bank passes, miss-reuse buckets).  A PC's own DRAM
-- requests are left to the kernel's total: they include the dirty victims
-- its fills evict, whose attribution among PCs moves by 3-5 % a block
-- between prefixes of a streaming kernel (stream_triad on gtx660ti, 4 to
-- 64 waves) while their sum stays within 1 %.
local KERNEL_TOTALS = { "dram_requests", "mshr_requests", "mshr_dram_requests", "load_l1_misses",
  "dram_bytes_read", "dram_bytes_written", "bank_conflicts", "l1_bytes", "l2_bytes" }
local CACHE_TOTALS = { "accesses", "hits", "misses", "sector_misses", "writebacks" }
local PC_TOTALS = { "l1_hits", "l2_hits", "dram", "requests", "l1_miss_requests", "shared_passes" }

-- Whether every count of three prefix replays (M.sampled_replay's
-- samples) grows by the same amount a block between the last two steps
-- (sampling.slopes_agree): the kernel's totals against themselves, a PC's
-- counts against its executions' slope (GPUMech reads them per execution).
local function replay_settled(a, b, c)
  local ta, tb, tc = a.totals, b.totals, c.totals
  local function agree(x, y, z, scale)
    return sampling.slopes_agree(a, b, c, x or 0, y or 0, z or 0, scale, sampling.REPLAY_TOLERANCE)
  end
  for _, name in ipairs(KERNEL_TOTALS) do
    if not agree(ta.memory[name], tb.memory[name], tc.memory[name]) then
      return false
    end
  end
  for _, level in ipairs { "l1", "l2" } do
    for _, name in ipairs(CACHE_TOTALS) do
      if not agree(ta.memory[level][name], tb.memory[level][name], tc.memory[level][name]) then
        return false
      end
    end
  end
  local empty = { miss_reuse = {} }
  for index, pc in pairs(tc.pcs) do
    local pa, pb = ta.pcs[index] or empty, tb.pcs[index] or empty
    local x, y, z = pa.instructions or 0, pb.instructions or 0, pc.instructions
    if not agree(x, y, z) then
      return false
    end
    local executions = math.abs((z - y) / (c.blocks - b.blocks))
    for _, name in ipairs(PC_TOTALS) do
      if not agree(pa[name], pb[name], pc[name], executions) then
        return false
      end
    end
    for bucket, n in ipairs(pc.miss_reuse or {}) do
      if not agree((pa.miss_reuse or {})[bucket], (pb.miss_reuse or {})[bucket], n, executions) then
        return false
      end
    end
  end
  -- a PC the last sample lacks but an earlier one has cannot grow linearly
  for index in pairs(tb.pcs) do
    if not tc.pcs[index] then
      return false
    end
  end
  return true
end

-- M.sampled_replay's replay of the whole launch from two prefix replays.
local function replay_fit(kernel, m, blocks_per_sm, params)
  return { settled = replay_settled, extrapolate = function(a, b, f)
    local mem = assert(core.memsim_extrapolate(kernel, m, blocks_per_sm, a.memory.replay, b.memory.replay, f))
    mem.params = params
    return mem
  end }
end

-- M.sampled_replay's answer for a configuration: { memory, how }, the
-- sampled replay kept per memory parameters, or { how = { blocks, why } }.
local function sample(kernel, cfg, cache, f)
  local m, info, blocks_per_sm = f.m, f.info, f.blocks_per_sm
  local plan = blocks_per_sm > 0 and sampling.plan(info.thread_blocks, cfg.sm.count * blocks_per_sm)
  if not plan then
    return { how = { blocks = info.thread_blocks, why = "fewer waves than sampling needs" } }
  end
  local shared = info.shared_bytes_per_block
  local params = m:memsim(blocks_per_sm, shared)
  local key = "gpumech.sampled|" .. memsim.params_key(params)
  local kept = cache[key]
  if kept == nil then
    -- each sample goes on from the last one's full waves (core.memsim_carry)
    local carry = core.memsim_carry()
    local mem, how = sampling.measure(kernel, plan, cache, function(k)
      local r, err = memsim.replay(k, m, blocks_per_sm, shared, cache, carry)
      return r and { memory = r, pcs = r.pcs }, err
    end, replay_fit(kernel, m, blocks_per_sm, params))
    carry:close()
    kept = mem and { memory = mem, how = how } or { how = { blocks = info.thread_blocks, why = how } }
    cache[key] = kept
  end
  return kept
end

-- The memory replay of a launch of many waves from replays of its first
-- waves, in a sweep that samples (ctx.sample; docs/experiments.md,
-- "Sampling"): gpush.sampling's plan and settled test over every count the
-- prediction reads (replay_settled), each extrapolated linearly to the
-- launch (core.memsim_extrapolate) and the AMATs computed from the
-- extrapolated levels.  Kept in the kernel's cache per memory parameters,
-- so RR and GTO share it, and the answer per configuration, so a point
-- asks the kernel nothing twice (kernel:info() walks the kernel).  Returns
-- the replay (memsim.replay's shape) and how it was found (sampling.
-- measure's); or nil and { blocks = the launch's, why } when the launch is
-- replayed whole (too few waves, counts that did not settle, blocks stored
-- out of order); nil alone outside a sweep that samples.
local function sampled_fitted(kernel, cfg, cache, ctx, given)
  if not (ctx and ctx.sample and cache) then
    return nil
  end
  local per_config = cache["gpumech.sampled"]
  if not per_config then
    per_config = setmetatable({}, { __mode = "k" })
    cache["gpumech.sampled"] = per_config
  end
  local found = per_config[cfg]
  if not found then
    found = sample(kernel, cfg, cache, given or fitted(kernel, cfg, 2, cache))
    per_config[cfg] = found
  end
  return found.memory, found.how
end

function M.sampled_replay(kernel, cfg, cache, ctx)
  return sampled_fitted(kernel, cfg, cache, ctx, nil)
end

-- A table that reads through to `cache` and keeps its own writes: a
-- prediction from a sampled replay leaves no counts with sampled totals
-- where the whole replay's users (the bounds, the M-core) find them.
local function reading_through(cache)
  return setmetatable({}, { __index = cache })
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

-- Each CPI-stack category's label in the bottleneck vocabulary
-- (gpush.models.vocabulary): BASE is the issue bound (ISSUE); the stalls
-- on the latency path, whatever they wait for (DEP, and L1, L2, DRAM: a
-- load's round trip by its miss events), are LATENCY; the queues are their
-- resources (MSHR, QUEUE = the DRAM's, L2BW = the L2 slices'); SFU, FP64
-- and PIPE a compute unit (PIPE); LSU and BANK the load/store unit.
M.BOTTLENECK = vocabulary.check_map({ BASE = "ISSUE", DEP = "LATENCY", L1 = "LATENCY", L2 = "LATENCY",
  DRAM = "LATENCY", MSHR = "MSHR", QUEUE = "DRAM", L2BW = "L2", SFU = "PIPE", FP64 = "PIPE", PIPE = "PIPE",
  LSU = "LSU", BANK = "LSU" }, "gpumech")

-- The label of each resource of gpush's equations (r.resources, r.bound,
-- csrc/core/gpumech/launch.c's names): the latency path, the issue slots,
-- the queues, and the scheduler's units.
M.RESOURCE_BOTTLENECK = vocabulary.check_map({ issue = "ISSUE", int = "PIPE", fma = "PIPE", fp64 = "PIPE",
  sfu = "PIPE", tensor = "PIPE", uniform = "PIPE", other = "PIPE", lsu = "LSU", l2 = "L2", dram = "DRAM",
  mshr = "MSHR", latency = "LATENCY" }, "gpumech resources")

-- A CPI stack's bottleneck in the vocabulary: the label whose categories
-- sum to the most CPI, BASE included (M.dominant names the largest stall
-- category alone), and the category that gave it the most; "" and "" for
-- an empty stack.  With gpush's `resources` (r.resources, the longest
-- wave's utilisations), an issue-bound stack is named after the busiest of
-- the issue slots and the units when that one is saturated (a pipe
-- narrower than the issue rate: PIPE, with its name, fma, as the detail),
-- and after its largest other category when none is
-- (vocabulary.refine_issue).
function M.bottleneck(stack, resources)
  local label, category = vocabulary.largest(stack, M.BOTTLENECK, M.STACK)
  if resources and resources.issue then
    local busy, names = {}, {}
    for name, r in pairs(resources) do
      if name ~= "latency" then
        busy[name], names[#names + 1] = r.utilisation, name
      end
    end
    table.sort(names)
    label, category = vocabulary.refine_issue(label, category, busy.issue, busy, M.RESOURCE_BOTTLENECK, names,
      stack, M.BOTTLENECK, M.STACK)
  end
  return label or "", category or ""
end

-- GPUMech under a policy, as a model of a sweep: the representative warp is
-- chosen once per kernel on the base configuration (shared by every GPUMech
-- model of the sweep with the same selection and equations through the
-- kernel's cache), the memory replay is cached per memory parameters.
-- Columns: cycles, time_us, ipc, cpi, the CPI stack (cpi_base ...
-- cpi_bank), achieved DRAM bandwidth (achieved_gbs: bytes the functional
-- memory model moved over the predicted time) and its share of the
-- configuration's peak (dram_util), the dominant stall category
-- (M.dominant), the bottleneck in the shared vocabulary (M.bottleneck), the
-- binding resource (gpush's equations: the busiest, "" under the paper's).
-- In a sweep that samples (ctx.sample), a launch of many waves is
-- predicted from a replay extrapolated from its first waves
-- (M.sampled_replay) and the rows say `sampled` and `replayed_blocks` (the
-- blocks replayed for it: the launch's when replayed whole); at the point
-- where ctx.check_sample is set the whole replay's prediction is made too
-- and `sample_error` is the sampled cycles' relative difference from it.
-- opts: policy "rr"|"gto", model (a key of M.models), equations
-- "gpush"|"paper", select, name (default gpumech-POLICY, or
-- gpumech-paper-POLICY under the paper's equations).
function M.new(opts)
  opts = opts or {}
  local policy = opts.policy or "rr"
  local equations = check_equations(opts.equations, 2)
  local columns, stack_columns = { "cycles", "time_us", "ipc", "cpi" }, {}
  for i, s in ipairs(M.STACK) do
    stack_columns[i] = "cpi_" .. s:lower()
    columns[#columns + 1] = stack_columns[i]
  end
  for _, c in ipairs { "achieved_gbs", "dram_util", "dominant", "bottleneck", "bottleneck_detail", "bound", "waves",
    "warnings" } do
    columns[#columns + 1] = c
  end
  return {
    name = opts.name or ("gpumech-" .. (equations == "paper" and "paper-" or "") .. policy),
    columns = columns,
    prepare = function(kernel, base, cache, ctx)
      local key = "gpumech.prepare/" .. (opts.select or "kmeans") .. "/" .. equations
      if not cache[key] then
        cache[key] = { M.prepare(kernel, base, { select = opts.select, seed = ctx.seed, equations = equations,
          memory_cache = cache, spend = ctx.spend }) }
      end
      return cache[key][1], cache[key][2]
    end,
    run = function(kernel, cfg, prepared, cache, ctx)
      local predict_opts = { policy = policy, model = opts.model, select = opts.select, equations = equations,
        prepared = prepared, memory_cache = cache }
      -- fit's answer once for the sampler and the prediction(s)
      local f = fitted(kernel, cfg, 1, cache)
      local sampled, how = sampled_fitted(kernel, cfg, cache, ctx, f)
      local whole
      if sampled and ctx.check_sample then
        local err
        whole, err = predict_fitted(kernel, cfg, predict_opts, f)
        if not whole then
          return nil, err
        end
      end
      if sampled then
        predict_opts.memory, predict_opts.memory_cache = sampled, reading_through(cache)
      end
      local r, err = predict_fitted(kernel, cfg, predict_opts, f)
      if not r then
        return nil, err
      end
      local mem = replay_of[r]
      local seconds = r.time_us * 1e-6
      local achieved = seconds > 0 and (mem.dram_bytes_read + mem.dram_bytes_written) / seconds / 1e9 or 0
      local row = { cycles = r.cycles, time_us = r.time_us, ipc = r.ipc, cpi = r.cpi, achieved_gbs = achieved,
        dram_util = achieved / cfg.dram.bandwidth_gbs, dominant = M.dominant(r.stack),
        bound = r.bound or "",
        waves = r.waves, warnings = table.concat(r.warnings, "; ") }
      for i, s in ipairs(M.STACK) do
        row[stack_columns[i]] = r.stack[s]
      end
      row.bottleneck, row.bottleneck_detail = r.bottleneck, r.bottleneck_detail
      if how then
        row.sampled = sampled ~= nil
        row.replayed_blocks = how.blocks
        if whole then
          row.sample_error = (r.cycles - whole.cycles) / whole.cycles
        end
      end
      return row
    end,
  }
end

return M
