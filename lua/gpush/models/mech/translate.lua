-- gpush.models.mech.translate: Blem's translation of workload measurements
-- between S-cores (CPUs) and M-cores (GPU SMs), thesis Chapter 5 (Tables
-- 5.1-5.2, Eq. 5.1-5.3).  A measurement taken on one architecture becomes
-- the inputs of the other architecture's core model.
--
--   local tr = require "gpush.models.mech.translate"
--   local m = assert(tr.s_to_m(s_record, { unroll = 4 }))   -- M-core inputs (per warp, as Table 4.2)
--   local s = assert(tr.m_to_s(m_record, { target = "ooo", simd_width = 4 }))   -- S-core inputs
--   local m2 = tr.m_record_from_kernel_info(kernel:info())   -- an M-side record from a gpush kernel
--
-- Records are plain tables; the field names follow Tables 4.1-4.2 and 5.1-5.2
-- (tr.S_FIELDS, tr.M_FIELDS describe each with its unit).  Misuse raises;
-- a record missing a field returns nil and a message naming the field and
-- the direction.  The intermediate representation of Table 5.2 is not
-- materialised (nor is it in the thesis, L1600): each rule maps one side's
-- measurement to the other side's input directly, through the IR's
-- instruction classes.

local machine = require "gpush.machine"
local text = require "gpush.text"

local M = {}

-- Field names follow the mechanistic family's workload inputs (Tables
-- 4.1-4.2 as gpush.models.mech.params declares them: N_I, N_M, n_i, ILP,
-- N_mL1 ... N_br_miss; warps, blocks, W_SM, N_SFU, N_sync, N_CF_div, N_con,
-- N_mem, N_off_chip, avg_trans_warp, B_off_chip, MLP), plus the
-- measurements only translation uses (footprint, loop structure, SIMD and
-- coalescing shares).

-- The S-core measurement (Table 4.1 inputs plus Table 5.1's CPU column).
M.S_FIELDS = {
  { "N_M", "uops", "dynamic micro-ops of the kernel (x86 instructions through the uop dictionary)" },
  { "n_i", "uops by class", "micro-ops per class (the S-core classes of M.S_CLASS, or M.CLASSES)" },
  { "ILP", "uops/cycle", "instruction-level parallelism (MICA, window W)" },
  { "N_load", "uops", "load micro-ops (default: n_i's load and simd_load)" },
  { "N_store", "uops", "store micro-ops (default: n_i's store and simd_store)" },
  { "simd_fraction", "", "share of loads and stores that are SIMD (SSE/AVX)" },
  { "stride1_fraction", "", "share of accesses with stride 1 (used when the code has no SIMD accesses)" },
  { "footprint_bytes", "B", "data footprint (MICA)" },
  { "N_outer", "iterations", "outer-loop iterations" },
  { "inner_loops", "loops", "inner loops each outer iteration runs through" },
  { "simd_width", "lanes", "lanes of one SIMD instruction in this code (1 scalar, 4 SSE, 8 AVX)" },
  { "N_branch", "uops", "branch micro-ops" },
  { "N_br_miss", "mispredictions", "branch mispredictions" },
  { "N_mL1", "misses", "L1 data misses" },
  { "N_mL2", "misses", "L2 misses" },
  { "N_mL3", "misses", "last-level (L3) misses" },
}

-- The M-core measurement or inputs (Table 4.2, per warp unless noted; plus
-- Table 5.1's GPU column).
M.M_FIELDS = {
  { "warps", "warps", "warps of the launch (total)" },
  { "blocks", "blocks", "thread blocks of the launch (total)" },
  { "warp_size", "threads", "threads per warp" },
  { "W_SM", "warps", "warps resident per SM" },
  { "N_I", "warp insts/warp", "instructions per warp" },
  { "n_i", "warp insts/warp by class", "instructions per warp per class (trace op classes, PTX names or M.CLASSES)" },
  { "N_SFU", "warp insts/warp", "SFU instructions per warp" },
  { "N_mem", "warp insts/warp", "memory instructions per warp (loads and stores)" },
  { "N_load", "warp insts/warp", "load instructions per warp" },
  { "N_store", "warp insts/warp", "store instructions per warp" },
  { "N_sync", "syncs/warp", "barriers per warp" },
  { "N_branch", "warp insts/warp", "branch instructions per warp" },
  { "N_CF_div", "warp insts/warp", "extra instructions per warp due to control-flow divergence" },
  { "N_off_chip", "insts/warp", "memory instructions per warp served off chip (Eq. 5.3, at most N_mem)" },
  { "off_chip_transactions", "transactions/warp", "Eq. 5.3 as printed: F_off-chip / (b N_warps)" },
  { "avg_trans_warp", "transactions", "transactions per memory instruction" },
  { "B_off_chip", "B/warp", "bytes per warp moved off chip" },
  { "MLP", "requests", "memory-level parallelism per warp" },
  { "coalesced", "", "share of memory instructions whose accesses coalesce" },
  { "ILP", "insts/cycle", "instruction-level parallelism of one warp (in order)" },
  { "active_lanes", "lanes", "mean active lanes per warp instruction (divergence)" },
  { "masks", "list", "optional: { { insts = per-warp count, active = lanes or mask = bits } } per mask" },
}

-- The IR's instruction classes (Table 5.2, "RISC-like instructions"),
-- with the unit an M-core executes each on (the PTX dictionary records the
-- unit, L1612, so SFU instructions are counted).
M.CLASSES = { "int", "fp_add", "fp_mul", "sfu", "load", "store", "branch", "sync", "other" }
M.M_UNIT = { int = "SP", fp_add = "SP", fp_mul = "SP", sfu = "SFU", load = "LDST", store = "LDST", branch = "SP",
  sync = "SYNC", other = "SP" }

-- x86 micro-op classes -> IR class (a dictionary in the spirit of [36]: the
-- thesis's is not printed).  The S-core classes are the mechanistic
-- family's (params.SCORE_CLASSES), plus names for what runs on an M-core's
-- SFUs (square roots, reciprocals, transcendentals).
M.X86 = { int_alu = "int", int_mul = "int", int_div = "int", bool = "int", shift = "int", regmov = "int",
  lea = "int", fp_add = "fp_add", fp_mul = "fp_mul", fp_fma = "fp_mul", fp_div = "sfu", fp_sqrt = "sfu",
  fp_rcp = "sfu", transcendental = "sfu", load = "load", store = "store", branch = "branch",
  simd_alu = "fp_add", simd_mul = "fp_mul", simd_load = "load", simd_store = "store", fence = "sync",
  other = "other" }

-- IR class -> S-core class for translated code: vector classes when the
-- target runs SIMD chunks (loads and stores are split by the SIMD share
-- separately).
M.S_CLASS = { int = "int_alu", fp_add = "fp_add", fp_mul = "fp_mul", sfu = "fp_div", branch = "branch",
  sync = "other", other = "other" }
M.S_SIMD_CLASS = { int = "simd_alu", fp_add = "simd_alu", fp_mul = "simd_mul", sfu = "fp_div", branch = "branch",
  sync = "other", other = "other" }

-- PTX opcodes -> IR class.
M.PTX = { add = "int", sub = "int", mul = "int", mad = "int", ["and"] = "int", ["or"] = "int", xor = "int",
  ["not"] = "int", shl = "int", shr = "int", setp = "int", selp = "int", mov = "int", cvt = "int",
  min = "int", max = "int", ["add.f32"] = "fp_add", ["sub.f32"] = "fp_add", ["mul.f32"] = "fp_mul",
  ["fma.f32"] = "fp_mul", ["mad.f32"] = "fp_mul", ["div.f32"] = "sfu", sqrt = "sfu", rsqrt = "sfu", rcp = "sfu",
  sin = "sfu", cos = "sfu", ex2 = "sfu", lg2 = "sfu", ld = "load", st = "store", atom = "store", bra = "branch",
  bar = "sync", ret = "other", exit = "other" }

-- gpush trace opcode classes (kernel:info().class_mix, the M-core's n_i)
-- -> IR class, and back.  Classes with a compute pipeline by what they
-- compute (the IR counts IMAD as integer work, although it issues to the
-- FMA unit); the others by the C core's class facts (gpush.machine):
-- stores and atomics write, every other memory class and constant loads
-- read.
local IR_OF_COMPUTE = { int = "int", imad = "int", uniform = "int", fp32 = "fp_mul", fp64 = "fp_mul",
  tensor = "fp_mul", sfu = "sfu", branch = "branch", barrier = "sync", barrier_arrive = "sync", depbar = "other",
  other = "other" }
M.TRACE = {}
for _, c in ipairs(machine.CLASSES) do
  M.TRACE[c.name] = c.pipeline and IR_OF_COMPUTE[c.name] or ((c.store or c.atomic) and "store" or "load")
end
M.TRACE_CLASS = { int = "int", fp_add = "fp32", fp_mul = "fp32", sfu = "sfu", load = "ld_global",
  store = "st_global", branch = "branch", sync = "barrier", other = "other" }

-- Constants of the rules (docs/darksilicon.md "Translation").
M.DEFAULTS = {
  warp_size = 32,
  warps_per_block = 8,           -- block size when the M-core's is unknown (most of Table 5.3's rows)
  unroll = 1,                    -- S-core outer-loop unroll factor (an input, L1658)
  bytes_per_transaction = 128,   -- b of Eq. 5.3: one coalesced 128 B segment
  on_chip_bytes = 16 * 1024 * 4, -- C_on-chip of Eq. 5.1-5.2: pre-Fermi shared memory, 16 KB x 4 SMs (L487)
  ooo_ilp = 6.2,                 -- OoO S-core target: the suite average ILP (L1610, L1756)
  inorder_window = 2,            -- in-order S-core target: its ILP is measured at window 2 (Eq. 4.7), so the
                                 -- M-core's ILP (L1610) is taken up to 2
  branch_miss_rate = 0.03,       -- M -> S: 3 % of branches mispredict (L1752)
  line_bytes = 64,               -- S-core cache line: one miss per line (L1626)
  caches = { 32 * 1024, 256 * 1024, 8 * 1024 * 1024 }, -- S-core L1D, L2, L3 capacities (Sandybridge i7-2600)
  sms = 4,                       -- target M-core SMs (FX580), for W_SM
  max_warps = 24,                -- resident warps per SM at most (compute capability 1.1)
  uncoalesced_transactions = 32, -- an uncoalesced warp access: one transaction per thread (CC < 1.2, Sec. 4.2.2)
}

local function option(opts, key)
  local v = opts and opts[key]
  if v == nil then
    v = M.DEFAULTS[key]
  end
  return v
end

local function need(record, key, direction)
  local v = record[key]
  if v == nil then
    return nil, ("translate.%s: the measurement has no '%s'"):format(direction, key)
  end
  if type(v) ~= "number" or v ~= v or v < 0 then
    return nil, ("translate.%s: '%s' must be a number >= 0, got %s"):format(direction, key, tostring(v))
  end
  return v
end

-- Counts per IR class from a mix keyed by IR classes or by a dictionary's
-- names (M.X86, M.PTX, M.TRACE); unknown names are an error naming them.
function M.classify(mix, dictionary, direction)
  local by = {}
  for _, c in ipairs(M.CLASSES) do
    by[c] = 0
  end
  for _, name in ipairs(text.sorted_keys(mix)) do
    local count = mix[name]
    local class = (dictionary and dictionary[name]) or (by[name] and name)
    if not class then
      return nil, ("translate.%s: unknown instruction class '%s' in the mix"):format(direction or "classify", name)
    end
    if type(count) ~= "number" or count < 0 then
      return nil, ("translate.%s: n_i['%s'] must be a count >= 0"):format(direction or "classify", name)
    end
    by[class] = by[class] + count
  end
  return by
end

-- A mix keyed by `names` (IR class -> target class), each count x factor.
local function rename(by, names, factor)
  local out = {}
  for _, c in ipairs(M.CLASSES) do
    local target = names[c]
    if target and by[c] > 0 then
      out[target] = (out[target] or 0) + by[c] * factor
    end
  end
  return out
end

-- S -> M ------------------------------------------------------------------------------

-- Table 5.1-5.2 and Sec. 5.2, S-core measurement to M-core inputs:
--  * threads: every element an outer-loop iteration computes: N_outer x
--    simd_width x unroll (outer loop -> thread, L1656; the unroll factor is
--    an input, L1658); eight SSE iterations form one warp (L1656).
--  * warps = threads / warp_size; blocks = warps / warps_per_block, rounded
--    up; W_SM = warps / sms, at most max_warps.
--  * per warp: N_I, n_i, N_SFU, N_mem from the uop counts (lane-operations
--    are kept: a warp instruction works on warp_size lanes, a SIMD uop on
--    simd_width), SFU through the dictionary (L1612).
--  * N_sync: one sync after every inner loop (L1660).
--  * N_CF_div = 0: the S-core code already runs both sides of a divergent
--    path (masks and blends), so its uops hold the divergence (L1662).
--  * coalescing (L1644): the SIMD share of loads and stores; without SIMD
--    code the stride-1 share; avg_trans_warp = 1 coalesced, one per thread
--    otherwise.
--  * off-chip (Eq. 5.2-5.3): F_off-chip = max(F_CPU - C_on-chip, 0);
--    N_off_chip = F_off-chip / (b x warps); B_off_chip = F_off-chip / warps.
--  * MLP = 1 and ILP = the S-core's (Table 5.1: "Low (~1)"; in-order ILP
--    equivalent, L1610).
-- opts: unroll, warp_size, warps_per_block, bytes_per_transaction,
-- on_chip_bytes, sms, max_warps, uncoalesced_transactions, caching (the
-- target has an L2: R_l2 is given), dictionary (default M.X86); a target
-- M-core's own are M.target_options(model).  Returns the M record or nil,
-- message.
function M.s_to_m(s, opts)
  opts = opts or {}
  if type(s) ~= "table" then
    error("translate.s_to_m: the S-core measurement must be a table", 2)
  end
  local fields = {}
  for _, key in ipairs { "N_M", "N_outer", "simd_width", "footprint_bytes" } do
    local v, err = need(s, key, "s_to_m")
    if not v then
      return nil, err
    end
    fields[key] = v
  end
  for _, key in ipairs { "N_load", "N_store", "N_branch", "inner_loops", "simd_fraction", "stride1_fraction", "ILP" } do
    if s[key] ~= nil then
      local ok, err = need(s, key, "s_to_m")
      if not ok then
        return nil, err
      end
    end
  end
  local unroll, warp_size = option(opts, "unroll"), option(opts, "warp_size")
  if unroll < 1 or fields.simd_width < 1 or warp_size < 1 then
    error("translate.s_to_m: unroll, simd_width and warp_size must be >= 1", 2)
  end
  local by
  if s.n_i then
    local err
    by, err = M.classify(s.n_i, opts.dictionary or M.X86, "s_to_m")
    if not by then
      return nil, err
    end
  end
  local loads = s.N_load or (by and by.load)
  local stores = s.N_store or (by and by.store)
  if type(loads) ~= "number" or type(stores) ~= "number" then
    return nil, "translate.s_to_m: the measurement has neither N_load and N_store nor n_i with loads and stores"
  end
  if not by then
    by = { int = 0, fp_add = 0, fp_mul = 0, sfu = 0, load = loads, store = stores, branch = s.N_branch or 0,
      sync = 0, other = 0 }
  end
  local threads = fields.N_outer * fields.simd_width * unroll
  local warps = math.ceil(threads / warp_size - 1e-9)
  if warps < 1 then
    return nil, "translate.s_to_m: no outer-loop iterations, so no threads"
  end
  -- lane-operations are kept: a uop works on simd_width lanes, a warp
  -- instruction on warp_size, so each uop is simd_width / warp_size warp
  -- instructions, spread over the warps
  local per_warp = fields.simd_width / warp_size / warps
  local coalesced = s.simd_fraction
  if fields.simd_width == 1 or coalesced == nil then
    coalesced = s.stride1_fraction or 0
  end
  local on_chip, b = option(opts, "on_chip_bytes"), option(opts, "bytes_per_transaction")
  local avg_trans = coalesced + (1 - coalesced) * option(opts, "uncoalesced_transactions")
  local off_chip_bytes = math.max(fields.footprint_bytes - on_chip, 0) -- Eq. 5.2
  local sms = option(opts, "sms")
  return {
    warps = warps,
    blocks = math.ceil(warps / option(opts, "warps_per_block") - 1e-9),
    threads = threads,
    warp_size = warp_size,
    W_SM = math.min(math.ceil(warps / sms - 1e-9), option(opts, "max_warps")),
    N_I = fields.N_M * per_warp,
    n_i = rename(by, M.TRACE_CLASS, per_warp),
    N_SFU = by.sfu * per_warp,
    N_load = loads * per_warp,
    N_store = stores * per_warp,
    N_mem = (loads + stores) * per_warp,
    N_branch = by.branch * per_warp,
    N_sync = s.inner_loops or 0,
    N_CF_div = 0,
    N_con = 0,
    -- Eq. 5.3 as printed (b-byte transactions per warp); an instruction moves
    -- at least one, so at most every memory instruction goes off chip
    -- (N_off_chip), the bytes beyond stay in B_off_chip
    off_chip_transactions = off_chip_bytes / (b * warps),
    N_off_chip = math.min(off_chip_bytes / (b * warps), (loads + stores) * per_warp),
    B_off_chip = off_chip_bytes / warps,
    coalesced = coalesced,
    avg_trans_warp = avg_trans,
    -- a caching M-core (Fermi, Kepler; opts.caching): every global access reaches
    -- the L2 (Kepler's L1 does not hold global loads), one request per transaction
    R_l2 = opts.caching and (loads + stores) * per_warp * avg_trans or nil,
    MLP = 1,
    ILP = s.ILP,
    active_lanes = warp_size,
    footprint_bytes = fields.footprint_bytes,
  }
end

-- The translation options of a target M-core model (gpush.models.mech.mcore):
-- its SMs and resident warps, b (its transaction bytes), and the on-chip
-- capacity of Eq. 5.2: before compute capability 2.0 the shared memory per
-- SM x the SMs (L1636; 16 KB on the pre-Fermi SM, L487, where the thesis
-- writes 64 KB), from 2.0 the L2 plus the L1s that hold global loads (the
-- thesis's "could be modified for newer M-cores with on-chip caches", L1636);
-- caching = the target has an L2.
function M.target_options(model)
  local cfg = model.gpu
  local cc, sms = cfg.gpu.compute_capability, cfg.sm.count
  local on_chip
  if cc < 2 then
    on_chip = cfg.sm.shared_kb * 1024 * sms
  else
    on_chip = cfg.l2.size_kb * 1024 + (cfg.l1.cache_global and cfg.l1.size_kb * 1024 * sms or 0)
  end
  return { on_chip_bytes = on_chip, sms = sms, max_warps = cfg.sm.max_warps, bytes_per_transaction = model.hw.b,
    warp_size = cfg.sm.warp_size, caching = cc >= 2 }
end

-- The naive translation of Sec. 5.1 (Table 5.1 taken literally, L1574-1577):
-- one thread per outer-loop iteration (the SIMD width and unroll ignored),
-- each x86 micro-op one PTX instruction of every thread (the per-iteration
-- counts are the per-warp counts), an L2 miss an off-chip access, an SSE
-- access a coalesced one, ILP and MLP 1, a sync per inner loop.  opts as
-- s_to_m (warp_size, warps_per_block, sms, max_warps,
-- uncoalesced_transactions, caching).  Returns the M record or nil, message.
function M.naive_s_to_m(s, opts)
  opts = opts or {}
  for _, key in ipairs { "N_M", "N_outer", "N_mL2" } do
    local _, err = need(s, key, "naive_s_to_m")
    if err then
      return nil, err
    end
  end
  local by, err = M.classify(s.n_i or {}, M.X86, "naive_s_to_m")
  if not by then
    return nil, err
  end
  local warp_size = option(opts, "warp_size")
  local iterations = s.N_outer
  if iterations < 1 then
    return nil, "translate.naive_s_to_m: no outer-loop iterations, so no threads"
  end
  local warps = math.ceil(iterations / warp_size - 1e-9)
  local per = 1 / iterations
  local loads, stores = s.N_load or by.load, s.N_store or by.store
  local coalesced = s.simd_fraction or 0
  local avg_trans = coalesced + (1 - coalesced) * option(opts, "uncoalesced_transactions")
  local n_mem = (loads + stores) * per
  return {
    warps = warps, blocks = math.ceil(warps / option(opts, "warps_per_block") - 1e-9), threads = iterations,
    warp_size = warp_size,
    W_SM = math.min(math.ceil(warps / option(opts, "sms") - 1e-9), option(opts, "max_warps")),
    N_I = s.N_M * per, n_i = rename(by, M.TRACE_CLASS, per), N_SFU = by.sfu * per,
    N_load = loads * per, N_store = stores * per, N_mem = n_mem, N_branch = by.branch * per,
    N_sync = s.inner_loops or 0, N_CF_div = 0, N_con = 0,
    N_off_chip = math.min(s.N_mL2 / warps, n_mem),
    coalesced = coalesced, avg_trans_warp = avg_trans,
    R_l2 = opts.caching and n_mem * avg_trans or nil,
    MLP = 1, ILP = 1, active_lanes = warp_size,
  }
end

-- The naive translation the other way (Table 5.1 taken literally): scalar
-- code, one iteration per thread, each warp instruction one micro-op per
-- thread, ILP 1, every off-chip access an L1, L2 and LLC miss, each
-- divergent extra instruction a mispredicted branch (at most the branches).
-- Returns the S record or nil, message.
function M.naive_m_to_s(m, opts)
  opts = opts or {}
  for _, key in ipairs { "warps", "N_I" } do
    local _, err = need(m, key, "naive_m_to_s")
    if err then
      return nil, err
    end
  end
  local by, err = M.classify(m.n_i or {}, M.TRACE, "naive_m_to_s")
  if not by then
    return nil, err
  end
  local warp_size = m.warp_size or option(opts, "warp_size")
  local threads = m.threads or m.warps * warp_size
  local factor = m.warps * warp_size
  local n_i = rename(by, M.S_CLASS, factor)
  n_i.load, n_i.store = by.load * factor, by.store * factor
  local off_chip = (m.N_off_chip or (m.B_off_chip or 0) / option(opts, "bytes_per_transaction")) * m.warps
  local branches = by.branch * factor
  return {
    N_I = m.N_I * factor, N_M = m.N_I * factor, n_i = n_i, ILP = 1,
    N_load = by.load * factor, N_store = by.store * factor, simd_fraction = 0, simd_width = 1,
    N_outer = threads, inner_loops = m.N_sync or 0, N_branch = branches,
    N_br_miss = math.min((m.N_CF_div or 0) * m.warps, branches),
    N_mL1 = off_chip, N_mL2 = off_chip, N_mL3 = off_chip, N_mL3o = 0, N_mITLB = 0, N_mDTLB = 0,
  }
end

-- M -> S ------------------------------------------------------------------------------

-- The SIMD chunks one warp instruction becomes on an S-core of `width`
-- lanes: the width-lane groups holding an active thread (Sec. 5.2.3: the
-- thread mask split into SIMD chunks, diverged code executed serially).
-- `mask` is a bit mask of active lanes, or `active` a count of lanes
-- active from lane 0.
function M.chunks(width, warp_size, active, mask)
  local groups = 0
  for start = 0, warp_size - 1, width do
    local any = false
    for lane = start, math.min(start + width, warp_size) - 1 do
      if mask then
        any = any or (mask // (2 ^ lane)) % 2 >= 1
      else
        any = any or lane < active
      end
    end
    groups = groups + (any and 1 or 0)
  end
  return groups
end

-- Table 5.1-5.2 and Sec. 5.2, M-core measurement to S-core inputs:
--  * uops (N_M, and N_I: one x86 instruction per uop): every warp
--    instruction becomes the SIMD chunks its mask covers (opts.simd_width
--    lanes; masks or the mean active lanes); n_i through the dictionaries,
--    vector classes for SIMD code, loads and stores split by the SIMD share;
--  * N_outer = threads / simd_width (L1654);
--  * ILP: the M-core's for an in-order target (opts.target = "inorder",
--    A8/Atom, L1610), at most the window it is measured at (inorder_window,
--    2); the suite average (6.2) for an out-of-order one;
--  * N_load, N_store: copied (as lane-operations, L1618);
--  * simd_fraction = the M-core's coalesced share (L1644);
--  * N_br_miss = 3 % of the branches (L1752);
--  * footprint (Eq. 5.1): F_CPU = F_off-chip + C_on-chip, F_off-chip the
--    M-core's off-chip bytes (B_off_chip, or N_off_chip x b, per warp);
--  * N_mL1, N_mL2, N_mL3: capacity only, the part of the footprint above
--    each level's capacity misses, one miss per line (L1626); no TLB misses
--    and no overlapping L3 misses are predicted.
-- opts: target ("ooo" default, or "inorder"), simd_width (4 SSE default, 8
-- AVX), bytes_per_transaction, on_chip_bytes, ooo_ilp, inorder_window,
-- branch_miss_rate, line_bytes, caches = { L1D, L2, L3 } bytes.
function M.m_to_s(m, opts)
  opts = opts or {}
  if type(m) ~= "table" then
    error("translate.m_to_s: the M-core measurement must be a table", 2)
  end
  local fields = {}
  for _, key in ipairs { "warps", "N_I" } do
    local v, err = need(m, key, "m_to_s")
    if not v then
      return nil, err
    end
    fields[key] = v
  end
  if m.N_off_chip == nil and m.B_off_chip == nil then
    return nil, "translate.m_to_s: the measurement has neither 'N_off_chip' nor 'B_off_chip'"
  end
  local width = opts.simd_width or 4
  local target = opts.target or "ooo"
  if target ~= "ooo" and target ~= "inorder" then
    error(("translate.m_to_s: target must be 'ooo' or 'inorder', got '%s'"):format(tostring(target)), 2)
  end
  if target == "inorder" and type(m.ILP) ~= "number" then
    return nil, "translate.m_to_s: an in-order target takes the M-core's ILP: the measurement has no 'ILP' "
      .. "(translate.m_record_from_kernel measures it)"
  end
  local warp_size = m.warp_size or option(opts, "warp_size")
  local warps = fields.warps
  -- chunks per warp instruction (the same for every class: a class-blind mask profile)
  local chunks_per_inst
  if m.masks then
    local insts, chunks = 0, 0
    for i, entry in ipairs(m.masks) do
      if type(entry.insts) ~= "number" or (entry.active == nil and entry.mask == nil) then
        return nil, ("translate.m_to_s: masks[%d] needs insts and active or mask"):format(i)
      end
      insts = insts + entry.insts
      chunks = chunks + entry.insts * M.chunks(width, warp_size, entry.active, entry.mask)
    end
    chunks_per_inst = insts > 0 and chunks / insts or 0
  else
    chunks_per_inst = M.chunks(width, warp_size, math.ceil((m.active_lanes or warp_size) - 1e-9))
  end
  local factor = warps * chunks_per_inst -- S uops per (per-warp) M instruction
  local loads = m.N_load or (m.N_mem or 0) - (m.N_store or 0)
  local stores = m.N_store or 0
  local by
  if m.n_i then
    local err
    by, err = M.classify(m.n_i, M.TRACE, "m_to_s")
    if not by then
      local ptx
      ptx, err = M.classify(m.n_i, M.PTX, "m_to_s")
      if not ptx then
        return nil, err
      end
      by = ptx
    end
    loads, stores = m.N_load or by.load, m.N_store or by.store
  else
    by = { int = 0, fp_add = 0, fp_mul = 0, sfu = m.N_SFU or 0, load = loads, store = stores,
      branch = m.N_branch or 0, sync = m.N_sync or 0, other = 0 }
    by.other = math.max(0, fields.N_I - by.sfu - loads - stores - by.branch - by.sync)
  end
  local simd = m.coalesced or 0
  local n_i = rename(by, width > 1 and M.S_SIMD_CLASS or M.S_CLASS, factor)
  n_i.load = loads * factor * (1 - simd)
  n_i.store = stores * factor * (1 - simd)
  if width > 1 then
    n_i.simd_load = loads * factor * simd
    n_i.simd_store = stores * factor * simd
  else
    n_i.load, n_i.store = loads * factor, stores * factor
  end
  local b, on_chip = option(opts, "bytes_per_transaction"), option(opts, "on_chip_bytes")
  local off_chip_bytes = (m.B_off_chip or m.N_off_chip * b) * warps
  local footprint = off_chip_bytes + on_chip -- Eq. 5.1
  local line = option(opts, "line_bytes")
  local caches = opts.caches or M.DEFAULTS.caches
  local function misses(capacity)
    return math.max(footprint - capacity, 0) / line
  end
  local branches = by.branch * factor
  local threads = m.threads or warps * warp_size
  return {
    N_I = fields.N_I * factor,
    N_M = fields.N_I * factor,
    n_i = n_i,
    ILP = target == "inorder" and math.min(m.ILP, option(opts, "inorder_window")) or option(opts, "ooo_ilp"),
    N_load = loads * factor,
    N_store = stores * factor,
    simd_fraction = simd,
    footprint_bytes = footprint,
    N_outer = threads / width,
    simd_width = width,
    inner_loops = m.N_sync or 0,
    N_branch = branches,
    N_br_miss = branches * option(opts, "branch_miss_rate"),
    N_mL1 = misses(caches[1]),
    N_mL2 = misses(caches[2]),
    N_mL3 = misses(caches[3]),
    N_mL3o = 0,
    N_mITLB = 0,
    N_mDTLB = 0,
  }
end

-- An M-core measurement from a gpush kernel (any trace or synthetic
-- kernel): m_record_from_kernel_info's record plus the warp's ILP (in order,
-- unit latency, gpush's kernel:mix pass, as the M-core's measured input), so
-- an in-order S-core target can take it (L1610).
function M.m_record_from_kernel(kernel, opts)
  local record, err = M.m_record_from_kernel_info(kernel:info(), opts)
  if not record then
    return nil, err
  end
  local mix, mix_err = kernel:mix { rule = "lines", banks = 32, bank_bytes = 4 }
  if not mix then
    return nil, mix_err
  end
  record.ILP = mix.ilp_levels > 0 and math.max(1, mix.insts / mix.ilp_levels) or 1
  return record
end

-- An M-core measurement from a gpush kernel's info() (any trace or
-- synthetic kernel): warps, blocks, per-warp instructions by class (n_i:
-- the trace's op classes), SFU, memory, branch and barrier counts, mean
-- active lanes, coalescing (memory instructions needing one transaction
-- count as coalesced: 1 / transactions per memory instruction, at most 1)
-- and off-chip bytes (every cache line requested, opts.line_bytes 128).
function M.m_record_from_kernel_info(info, opts)
  opts = opts or {}
  local warps = info.warps
  if not warps or warps < 1 then
    return nil, "translate.m_record_from_kernel_info: the kernel has no warps"
  end
  local by, err = M.classify(info.class_mix or {}, M.TRACE, "m_record_from_kernel_info")
  if not by then
    return nil, err
  end
  local n_i = {}
  for name, count in pairs(info.class_mix or {}) do
    n_i[name] = count / warps
  end
  local line = opts.line_bytes or 128
  local per_inst = info.transactions_per_memory_instruction or 1
  local warp_size = opts.warp_size or 32
  return {
    warps = warps,
    blocks = info.thread_blocks,
    warp_size = warp_size,
    N_I = info.warp_instructions / warps,
    n_i = n_i,
    N_SFU = by.sfu / warps,
    N_load = by.load / warps,
    N_store = by.store / warps,
    N_mem = (by.load + by.store) / warps,
    N_branch = by.branch / warps,
    N_sync = by.sync / warps,
    B_off_chip = (info.cache_lines or 0) * line / warps,
    avg_trans_warp = per_inst,
    coalesced = per_inst > 0 and math.min(1, 1 / per_inst) or 0,
    active_lanes = (info.active_lane_efficiency or 1) * warp_size,
  }
end

return M
