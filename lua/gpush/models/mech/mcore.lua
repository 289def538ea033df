-- gpush.models.mech.mcore: Blem's M-core models (thesis Sec. 4.1.2, 4.2.2,
-- 4.3.2) over Hong and Kim's MWP-CWP and Sim et al.'s GPUPerf
-- (../shared/reference/mwp-cwp.md), as modules of
-- gpush.models.mech.framework.
--
--   local kepler = assert(mcore.core("gtx660ti", { "dram.bandwidth_gbs=96" }))
--   local r = assert(kepler:predict(assert(kepler:inputs(kernel))))
--
-- T = T_comp + T_mem - T_overlap (Eq. 4.4); every term is cycles of one SM
-- over the whole kernel (the warps of the kernel spread over the active SMs).
-- Quantities the modules share (s.q):
--   N             warps resident per SM (W_SM, at most the warps per SM)
--   warps_per_sm  the kernel's warps per active SM
--   insts         instructions per warp the base issues: N_I without SFU
--                 and divergence-extra instructions (their modules add them)
--   avg_lat       average instruction latency (l; timing: per class)
--   issue_cycles  SM cycles per warp instruction at full throughput:
--                 warp_size / SIMD_width (Eq. 4.11's denominator)
--   itilp_factor  1, or W with multi-issue (Eq. 4.12)
--   dispatch      instructions per SM per cycle (schedulers x W)
--   trans, miss, hit_lat, outstanding   memory: transactions per access
--                 (coalescing), the off-chip share and hit latency
--                 (caching), transactions in flight per SM (mshr)
--   amat, mwp, cwp, itilp, itmlp, cycles_per_inst   set by the bases
local bounds = require "gpush.bounds"
local config = require "gpush.config"
local core = require "gpush.core"
local machine = require "gpush.machine"
local text = require "gpush.text"
local framework = require "gpush.models.mech.framework"
local memsim = require "gpush.memsim"
local occupancy = require "gpush.occupancy"
local params = require "gpush.models.mech.params"
local vocabulary = require "gpush.models.vocabulary"

local M = {}

local reg = params.mcore
local function module(spec)
  spec.kind = "mcore"
  return framework.module(spec, reg)
end

-- Bases ---------------------------------------------------------------------------------

local BASE_INPUTS = { "W_SM", "warps", "blocks", "N_I", "N_SFU", "N_CF_div", "N_mem", "ILP", "MLP", "B_off_chip" }
local BASE_PARAMS = { "sms", "freq_mhz", "warp_size", "simd_width", "schedulers", "latency", "t_mem", "delta",
  "bw_gbs", "b" }

local function setup(s)
  local i, hw, q = s.input, s.hw, s.q
  q.active_sms = math.min(hw.sms, i.blocks)
  q.warps_per_sm = i.warps / q.active_sms
  q.N = math.min(i.W_SM, q.warps_per_sm)
  if i.W_SM > q.warps_per_sm * (1 + 1e-9) then
    s:warn(("W_SM = %g exceeds the kernel's %g warps per active SM; using %g"):format(i.W_SM, q.warps_per_sm, q.N))
  end
  q.insts = math.max(0, i.N_I - i.N_SFU - i.N_CF_div)
  q.avg_lat = hw.latency
  q.issue_cycles = hw.warp_size / hw.simd_width
  q.itilp_factor = 1
  q.dispatch = hw.schedulers
  q.trans, q.miss, q.hit_lat, q.outstanding, q.l2_per_access = 1, 1, 0, math.huge, 0
  q.ILP, q.MLP = i.ILP, i.MLP
end

-- The memory side both bases share (Hong and Kim; GPUPerf's AMAT):
--   AMAT = miss x (t_mem + (trans - 1) x Delta) + (1 - miss) x hit latency
--     (Mem_L_Uncoal = Mem_LD + (#Uncoal_per_mw - 1) x Departure_del_uncoal)
--   MWP = min(AMAT / departure, MWP_peak_BW, N, outstanding / trans),
--     departure = Delta x trans, MWP_peak_BW = BW_max / (BW_per_warp x SMs),
--     BW_per_warp = nu x bytes per memory instruction / AMAT.
-- The bytes are B_off_chip when measured, else miss x trans x b per access.
local function memory(s)
  local i, hw, q = s.input, s.hw, s.q
  q.amat = q.miss * (hw.t_mem + (q.trans - 1) * hw.delta) + (1 - q.miss) * q.hit_lat
  q.departure = hw.delta * q.trans
  q.mwp_no_bw = q.amat / q.departure
  q.bytes_per_warp = i.B_off_chip or q.miss * i.N_mem * q.trans * hw.b
  local per_access = i.N_mem > 0 and q.bytes_per_warp / i.N_mem or 0
  local bw_per_warp = hw.freq_mhz * 1e6 * per_access / q.amat
  q.mwp_bw = bw_per_warp > 0 and hw.bw_gbs * 1e9 / (bw_per_warp * q.active_sms) or math.huge
  q.mwp_mshr = q.outstanding / q.trans
  -- the l2 module: accesses in flight per SM the L2 slices sustain over an AMAT
  q.mwp_l2 = q.l2_per_access > 0 and q.l2_rate * q.amat / q.l2_per_access or math.huge
  q.mwp = math.min(q.mwp_no_bw, q.mwp_bw, q.N, q.mwp_mshr, q.mwp_l2)
end

-- The issue floor per warp, in SM cycles, when the timing module measured
-- the units' busy time: the busiest execution unit (global memory at one
-- line request per cycle on a scheduler's load/store unit), or dispatch
-- (N_I / instructions per cycle).  nil without the timing module.
local function issue_floor(s)
  local q = s.q
  if not q.unit_busy then
    return nil
  end
  local floor, busiest = s.input.N_I / q.dispatch, "dispatch"
  local lsu = (s.input.N_mem * q.trans + q.lsu_fixed) / s.hw.schedulers
  local units = { lsu = lsu }
  for unit, cycles in pairs(q.unit_busy) do
    units[unit] = cycles
  end
  for unit, cycles in pairs(units) do
    if cycles > floor or (cycles == floor and unit < busiest) then
      floor, busiest = cycles, unit
    end
  end
  q.issue_floor, q.busiest_unit = floor, busiest
  return floor
end

M.gpuperf = module {
  name = "gpuperf", base = true, adds = { "comp", "mem", "overlap" },
  description = "GPUPerf: W_parallel = insts x warps/SM x l / ITILP, T_mem = N_mem x warps/SM x AMAT / ITMLP, overlap",
  source = "Sim et al. PPoPP 2012 (mwp-cwp.md); Blem Eq. 4.4, 4.11",
  inputs = BASE_INPUTS, params = { "overlap", table.unpack(BASE_PARAMS) },
  setup = setup,
  terms = function(s)
    memory(s)
    local i, q = s.input, s.q
    q.itilp_max = q.itilp_factor * q.avg_lat / q.issue_cycles -- Eq. 4.11 (x W: Eq. 4.12)
    q.itilp = math.min(q.ILP * q.N, q.itilp_max)
    q.cycles_per_inst = q.avg_lat / q.itilp
    local comp_warp = q.insts * q.cycles_per_inst
    s:add("comp", comp_warp * q.warps_per_sm, "W_parallel")
    local mem_warp = i.N_mem * q.amat / q.MLP
    q.cwp = comp_warp > 0 and math.min((mem_warp + comp_warp) / comp_warp, q.N) or q.N
    q.mwp_cp = math.min(math.max(1, q.cwp - 1), q.mwp)
    q.itmlp = math.min(q.MLP * q.mwp_cp, q.mwp_bw, q.mwp_mshr, q.mwp_l2)
    if i.N_mem > 0 then
      s:add("mem", i.N_mem * q.warps_per_sm * q.amat / q.itmlp, "N_mem x warps/SM x AMAT / ITMLP")
    end
  end,
  overlap = function(s)
    local q = s.q
    -- F_overlap = (N - zeta) / N; GPUPerf sets zeta = 0 when CWP > MWP
    local zeta = (s.hw.overlap == "gpuperf" and q.cwp > q.mwp) and 0 or 1
    q.f_overlap = (q.N - zeta) / q.N
    s:add("overlap", math.min(s.terms.comp * q.f_overlap, s.terms.mem), "min(T_comp x F_overlap, T_mem)")
  end,
}

M.mwp_cwp = module {
  name = "mwp_cwp", base = true, adds = { "comp", "mem", "overlap" },
  description = "Hong and Kim: Comp/Mem cycles per warp, MWP and CWP, their three cases, x Rep",
  source = "Hong and Kim ISCA 2009 (mwp-cwp.md)",
  inputs = BASE_INPUTS, params = BASE_PARAMS,
  setup = setup,
  terms = function(s)
    memory(s)
    local i, q = s.input, s.q
    q.cycles_per_inst = q.issue_cycles / q.itilp_factor
    local comp = q.insts * q.cycles_per_inst -- Comp_cycles = #Issue_cycles x #insts
    local floor = issue_floor(s)
    if floor and i.N_I > 0 and floor * q.insts / i.N_I > comp then
      -- timing: the busiest unit's cycles for the instructions the base issues
      comp = floor * q.insts / i.N_I
      q.cycles_per_inst = comp / q.insts
    end
    local mem = i.N_mem * q.amat             -- Mem_cycles = Mem_L x #mem_insts
    local N, mwp = q.N, q.mwp
    q.cwp = comp > 0 and math.min((mem + comp) / comp, N) or N
    q.rep = q.warps_per_sm / N -- #Blocks / (#ActiveBlocksPerSM x #ActiveSMs)
    local exec
    if i.N_mem == 0 then
      exec, q.case = comp * N, 0
    elseif mwp >= N * (1 - 1e-12) and q.cwp >= N * (1 - 1e-12) then
      exec, q.case = mem + comp + comp / i.N_mem * (mwp - 1), 1 -- not enough warps
    elseif q.cwp >= mwp or comp > mem then
      exec, q.case = mem * N / mwp + comp / i.N_mem * math.max(0, mwp - 1), 2 -- memory bound
    else
      exec, q.case = q.amat + comp * N, 3 -- MWP > CWP: computation bound
    end
    local comp_term, mem_term = comp * N * q.rep, mem * N / mwp * q.rep
    s:add("comp", comp_term, "N x Comp_cycles x Rep")
    if mem_term > 0 then
      s:add("mem", mem_term, "N x Mem_cycles / MWP x Rep")
    end
    q.exec = exec * q.rep
    q.overlap_cycles = math.max(0, comp_term + mem_term - q.exec)
  end,
  overlap = function(s)
    s:add("overlap", s.q.overlap_cycles, "N Comp + N Mem / MWP - Exec (per case)")
  end,
}

-- Table 4.2 / Fig. 4.5 modules ---------------------------------------------------------------

-- The op classes that issue to an execution unit of the scheduler (compute
-- classes: their unit is the machine's, class_unit, the C core's map that
-- puts INT on the FMA unit where sm.int_fp32_shared says so, as the
-- simulator, GPUMech and the bounds do).  Shared-memory classes and
-- constant loads hold the LSU once per instruction (LSU_ONCE); global
-- memory is the memory terms'.
local COMPUTE, LSU_ONCE = {}, {}
for _, c in ipairs(machine.CLASSES) do
  if c.pipeline then
    COMPUTE[c.name] = true
  elseif c.shared or not c.memory then
    LSU_ONCE[c.name] = true
  end
end

M.timing = module {
  name = "timing", adds = { "comp" },
  description = "latency per class (l = mix average) and throughput per unit (issue floor of the busiest unit)",
  source = "Blem Sec. 4.2.2 instruction timing (L1157); [101] latencies from the GPU configuration",
  inputs = { "n_i", "N_I", "N_mem" }, params = { "class_latency", "class_interval", "class_unit", "schedulers" },
  latency = function(s)
    local lat, interval, unit_of, n_i = s.hw.class_latency, s.hw.class_interval, s.hw.class_unit, s.input.n_i
    local cycles, count = 0, 0
    local busy, lsu_fixed = {}, 0
    for class, n in pairs(n_i) do
      if lat[class] then -- memory classes have none (the framework refuses a name that is no op class)
        cycles, count = cycles + n * lat[class], count + n
      end
      if COMPUTE[class] then
        local unit = unit_of[class]
        busy[unit] = (busy[unit] or 0) + n * interval[class] / s.hw.schedulers
      elseif LSU_ONCE[class] then
        lsu_fixed = lsu_fixed + n
      end
    end
    if count > 0 then
      s.q.avg_lat = cycles / count
    end
    s.q.unit_busy, s.q.lsu_fixed = busy, lsu_fixed
  end,
  bounds = function(s)
    -- GPUPerf's T_comp is latency over ITILP; the units' throughput bounds it
    -- from below (MWP-CWP takes the floor into Comp_cycles itself)
    if s.base ~= "gpuperf" then
      return
    end
    local floor = issue_floor(s)
    local extra = floor * s.q.warps_per_sm - s.terms.comp
    if extra > 0 then
      s:add("comp", extra, "busiest unit (" .. s.q.busiest_unit .. ") beyond T_comp")
    end
  end,
}

M.sfu = module {
  name = "sfu", adds = { "comp" },
  description = "SFU instructions are issued (counted in W_parallel) and O_SFU adds what the SFUs cannot overlap",
  source = "Blem Sec. 4.2.2 SFU (L1159); GPUPerf O_SFU",
  inputs = { "N_SFU", "N_I" }, params = { "warp_size", "sfu_width", "simd_width" },
  counts = function(s)
    s.q.insts = s.q.insts + s.input.N_SFU
  end,
  serial = function(s)
    local i, hw = s.input, s.hw
    if i.N_SFU <= 0 or i.N_I <= 0 then
      return
    end
    local f = math.max(0, math.min(1, i.N_SFU / i.N_I - hw.sfu_width / hw.simd_width))
    s.q.f_sfu = f
    s:add("comp", i.N_SFU * s.q.warps_per_sm * hw.warp_size / hw.sfu_width * f, "O_SFU")
  end,
}

M.sync = module {
  name = "sync", adds = { "comp" },
  description = "each barrier costs every block F_sync: Hong and Kim's departure x (MWP - 1), or GPUPerf's",
  source = "Blem Sec. 4.3.2 (L1329); Hong and Kim's Synch_cost; GPUPerf O_sync",
  inputs = { "N_sync", "blocks", "N_mem", "N_I" }, params = { "sync_rule", "sync_gamma" },
  serial = function(s)
    local i, q = s.input, s.q
    if i.N_sync <= 0 then
      return
    end
    local f
    if s.hw.sync_rule == "gpuperf" then
      f = s.hw.sync_gamma * q.amat * (i.N_I > 0 and i.N_mem / i.N_I or 0) -- F_sync
    else
      f = i.N_mem > 0 and q.departure * math.max(0, q.mwp - 1) or 0 -- Departure_delay x (MWP - 1)
    end
    q.f_sync = f
    s:add("comp", i.N_sync * i.blocks / q.active_sms * f, "N_sync x blocks/SM x F_sync")
  end,
}

M.branches = module {
  name = "branches", adds = { "comp" },
  description = "divergent paths are issued one after another: N_CF_div extra instructions per warp (O_CFdiv)",
  source = "Blem Table 4.2 (N_CF_div -> Branches); GPUPerf O_CFdiv",
  inputs = { "N_CF_div" }, params = {},
  serial = function(s)
    local q = s.q
    if s.input.N_CF_div > 0 then
      s:add("comp", s.input.N_CF_div * q.warps_per_sm * q.cycles_per_inst, "N_CF_div x warps/SM x cycles/inst")
    end
  end,
}

M.banks = module {
  name = "banks", adds = { "comp" },
  description = "every extra shared-memory pass holds a scheduler's load/store unit one cycle (O_bank)",
  source = "Blem Table 4.2 (N_con -> Banks); GPUPerf O_bank",
  inputs = { "N_con" }, params = { "schedulers" },
  serial = function(s)
    if s.input.N_con > 0 then
      s:add("comp", s.input.N_con * s.q.warps_per_sm / s.hw.schedulers, "N_con x warps/SM / schedulers")
    end
  end,
}

M.multi_issue = module {
  name = "multi_issue", adds = {},
  description = "a warp issues up to W instructions per cycle: ITILP_max = W x l / (warp_size / SIMD) (Eq. 4.12)",
  source = "Blem Eq. 4.11-4.12 (L1161-1167)",
  inputs = {}, params = { "multi_issue", "schedulers" },
  latency = function(s)
    s.q.itilp_factor = s.hw.multi_issue
    s.q.dispatch = s.hw.schedulers * s.hw.multi_issue
  end,
}

M.coalescing = module {
  name = "coalescing", adds = {},
  description = "memory instructions cost avg_trans_warp transactions (the core's compute-capability rule)",
  source = "Blem Sec. 4.2.2 memory coalescing (L1169-1177), Fig. 4.6",
  inputs = { "avg_trans_warp" }, params = {},
  memory = function(s)
    s.q.trans = s.input.avg_trans_warp
  end,
}

M.caching = module {
  name = "caching", adds = {},
  description = "only N_off_chip of the N_mem accesses go off chip; the rest take the on-chip hit latency (AMAT): "
    .. "t_l1 for the N_L1 served by L1, t_l2 for the others when N_L1 is given, else t_hit",
  source = "Blem Sec. 4.3.2 caching (L1360); GPUPerf AMAT = t_mem x miss ratio + hit latency; the L1/L2 split "
    .. "is gpush's",
  inputs = { "N_off_chip", "N_mem", "N_L1" }, params = { "t_hit", "t_l1", "t_l2" },
  memory = function(s)
    local i = s.input
    s.q.miss = i.N_mem > 0 and math.min(1, i.N_off_chip / i.N_mem) or 1
    local hits = i.N_mem - math.min(i.N_mem, i.N_off_chip)
    if i.N_L1 and hits > 0 then
      local l1 = math.min(hits, i.N_L1)
      s.q.hit_lat = (l1 * s.hw.t_l1 + (hits - l1) * s.hw.t_l2) / hits
    else
      s.q.hit_lat = s.hw.t_hit
    end
  end,
}

-- Load classes: they hold an MSHR until their data returns; stores do not
-- (gpush's memory model writes through without allocating).
local LOAD_CLASSES = { "ld_global", "ld_local", "tex", "atom_global", "ldgsts" }

M.mshr = module {
  name = "mshr", adds = {},
  description = "gpush: loads missing L1 hold MSHRs, so at most mshrs / (their share x trans) accesses are in "
    .. "flight per SM",
  source = "gpush addition (DESIGN.md: MSHRs as servers, Little's law); not in the thesis",
  inputs = { "n_i", "N_mem", "R_mshr", "avg_trans_warp" }, params = { "mshrs" },
  memory = function(s)
    local i, share = s.input, 1
    if i.N_mem > 0 and i.R_mshr then -- requests holding an MSHR per transaction
      share = math.min(1, i.R_mshr / (i.N_mem * i.avg_trans_warp))
    elseif i.N_mem > 0 then
      local loads = 0
      for _, class in ipairs(LOAD_CLASSES) do
        loads = loads + (i.n_i[class] or 0)
      end
      share = math.min(1, loads / i.N_mem)
    end
    s.q.load_share = share
    s.q.outstanding = share > 0 and s.hw.mshrs / share or math.huge
  end,
}

M.l2 = module {
  name = "l2", adds = {},
  description = "gpush: the L2 slices serve l2_slices / l2_interval requests per cycle, so at most that rate x AMAT "
    .. "/ (L2 requests per access) accesses are in flight per SM (like MWP_peak_BW for DRAM)",
  source = "gpush addition (Little's law with the L2 slices as servers, as gpush.bounds' l2 bound); not in the thesis",
  inputs = { "R_l2", "N_mem" }, params = { "l2_slices", "l2_interval" },
  memory = function(s)
    local q, i = s.q, s.input
    q.l2_rate = s.hw.l2_slices / s.hw.l2_interval / q.active_sms
    q.l2_per_access = i.N_mem > 0 and i.R_l2 / i.N_mem or 0
  end,
}

M.paths = module {
  name = "paths", adds = { "comp" },
  description = "gpush: no kernel ends before T_path, its longest dependence path (the longest warp's, or the "
    .. "block slots' Little's law), however well the mean warp overlaps",
  source = "gpush addition (gpush.bounds' latency and blocks bounds, docs/bounds.md); not in the thesis, whose "
    .. "bases model the mean warp",
  inputs = { "T_path" }, params = {},
  overlap = function(s)
    local t = s.terms
    local extra = s.input.T_path + (s.q.kernel_launch or 0) - (t.comp + t.mem + t.control - t.overlap)
    if extra > 0 then
      s:add("comp", extra, "longest dependence path beyond T")
    end
  end,
}

M.launch = module {
  name = "launch", adds = { "comp" },
  description = "gpush: the kernel launch and each wave of thread blocks cost fixed cycles (not overlapped)",
  source = "gpush addition: launch.kernel_cycles, launch.block_cycles, as GPUMech and the simulator",
  inputs = { "warps", "W_SM" }, params = { "launch_cycles", "block_launch_cycles" },
  overlap = function(s)
    local q = s.q
    local waves = math.ceil(s.input.warps / (q.N * q.active_sms) - 1e-9)
    q.waves = waves
    local cycles = s.hw.launch_cycles + waves * s.hw.block_launch_cycles
    q.kernel_launch = s.hw.launch_cycles
    if cycles > 0 then
      s:add("comp", cycles, "launch + waves x block launch")
    end
  end,
}

M.bases = { gpuperf = M.gpuperf, mwp_cwp = M.mwp_cwp }
M.modules = {}
for _, name in ipairs { "gpuperf", "mwp_cwp", "timing", "sfu", "sync", "branches", "banks", "multi_issue",
  "coalescing", "caching", "mshr", "l2", "launch", "paths" } do
  M.modules[name] = M[name]
end

-- Inputs measured on a kernel ---------------------------------------------------------------------

-- The coalescing rule of a compute capability (Sec. 4.2.2).
function M.rule_of(cc)
  return cc >= 2 and "lines" or cc >= 1.2 and "cc12" or "cc10"
end

-- Table 4.2's inputs measured on a kernel for a GPU configuration: per-warp
-- counts over the warps that run, W_SM from occupancy (and the blocks there
-- are), transactions per access under the configuration's coalescing rule,
-- off-chip accesses and bytes from the functional memory model (compute
-- capability >= 2.0; before it there are no caches and every transaction
-- leaves the chip), ILP and MLP from trace_mix.c.  opts.cache: a table reused
-- across calls (memory replays and mixes are kept there, keyed by what they
-- depend on).  Returns inputs, about (kernel, launch, warnings) or nil, message.
function M.inputs_of(kernel, cfg, opts)
  opts = opts or {}
  local info = kernel:info()
  local cc = cfg.gpu.compute_capability
  local rule = M.rule_of(cc)
  local cache = opts.cache or {}
  local mix_key = ("mech.mix/%s/%s/%d/%d"):format(tostring(kernel), rule, cfg.shared.banks, cfg.shared.bank_bytes)
  local mix = cache[mix_key]
  if not mix then
    local err
    mix, err = kernel:mix { rule = rule, banks = cfg.shared.banks, bank_bytes = cfg.shared.bank_bytes }
    if not mix then
      return nil, err
    end
    cache[mix_key] = mix
  end
  if mix.warps == 0 then
    return nil, ("mcore: kernel '%s' has no instructions"):format(info.kernel)
  end
  local blocks_per_sm, limit = occupancy.for_kernel(cfg, kernel)
  if blocks_per_sm == 0 then
    return nil, ("mcore: kernel '%s' does not fit on one SM of '%s' (limit: %s)"):format(info.kernel, cfg._name,
      limit)
  end
  local warps = mix.warps
  local active_sms = math.min(cfg.sm.count, info.thread_blocks)
  local n_i = {}
  for class, n in pairs(info.class_mix) do
    n_i[class] = n / warps
  end
  local inputs = {
    W_SM = math.min(blocks_per_sm, math.ceil(info.thread_blocks / active_sms)) * info.warps_per_block,
    warps = warps, blocks = info.thread_blocks,
    N_I = mix.insts / warps, n_i = n_i,
    N_SFU = n_i.sfu or 0, N_sync = n_i.barrier or 0,
    N_CF_div = mix.divergence_extra / warps, N_con = mix.shared_extra_passes / warps,
    N_mem = mix.mem_insts / warps,
    avg_trans_warp = mix.mem_insts > 0 and mix.transactions / mix.mem_insts or 1,
    ILP = math.max(1, mix.insts / mix.ilp_levels),
    MLP = mix.mem_rounds > 0 and math.max(1, mix.mem_insts / mix.mem_rounds) or 1,
  }
  local mem -- the functional replay, which the bounds below reuse
  if cc >= 2 then
    local err
    mem, err = memsim.functional_cached(kernel, cfg, cache)
    if not mem then
      return nil, err
    end
    local off, l1 = 0, 0
    for _, pc in pairs(mem.pcs) do
      off, l1 = off + pc.dram, l1 + pc.l1_hits
    end
    inputs.N_off_chip = off / warps
    inputs.N_L1 = l1 / warps
    inputs.R_mshr = mem.mshr_requests / warps
    inputs.R_l2 = mem.l2.accesses / warps
    inputs.B_off_chip = (mem.dram_bytes_read + mem.dram_bytes_written) / warps
  else
    inputs.N_off_chip = inputs.N_mem
    inputs.B_off_chip = mix.transaction_bytes / warps
  end
  local floor, floor_err = bounds.kernel(kernel, cfg, cache, mem)
  if not floor then
    return nil, floor_err
  end
  inputs.T_path = math.max(floor.cycles.latency, floor.cycles.blocks)
  local warnings = {}
  if info.warnings ~= "" then
    warnings[1] = info.warnings
  end
  return inputs, { kernel = info.kernel, launch = info.launch, warnings = warnings, rule = rule }
end

-- Cores -------------------------------------------------------------------------------------------

local PRESET_KEYS = { kind = true, name = true, gpu = true, base = true, modules = true, params = true }

-- Splits overrides into GPU schema keys and M-core parameters.
local function split_overrides(flat, owner)
  local gpu, mech = {}, {}
  for k, v in pairs(flat) do
    if config.declaration(k) then
      gpu[k] = v
    elseif reg.by_name[k] then
      mech[k] = v
    else
      local names = config.paths()
      for _, d in ipairs(reg.list) do
        names[#names + 1] = d.name
      end
      local guess = text.closest(k, names)
      framework.fail(("-p %s: unknown parameter of %s: neither a GPU schema key (gpush config describe) nor an "
        .. "M-core parameter (gpush mech --describe mcore)%s"):format(k, owner,
          guess and (" (did you mean '" .. guess .. "'?)") or ""))
    end
  end
  return gpu, mech
end

-- A model from a read preset and a resolved GPU configuration: the GPU's
-- hardware inputs, the preset's M-core parameters, then `mech_overrides`.
local function assemble(name, tree, place, file, cfg, mech_overrides, opts)
  local owner = ("M-core '%s'"):format(name)
  local hw = {}
  for _, d in ipairs(reg.list) do
    if d.gpu then
      hw[d.name] = d.gpu(cfg)
    else
      hw[d.name] = d.default
    end
  end
  if tree.params ~= nil and type(tree.params) ~= "table" then
    framework.fail(("%s: 'params' must be a mapping"):format(place("params")))
  end
  for k, v in pairs(framework.check_params(tree.params or {}, reg, owner, function(k, at_key)
    return place("params." .. k, at_key)
  end)) do
    hw[k] = v
  end
  for k, v in pairs(framework.check_params(mech_overrides, reg, owner, function(k) return "-p " .. k end)) do
    hw[k] = v
  end
  local base_name = opts.base or tree.base or "gpuperf"
  local base = M.bases[base_name]
  if not base then
    framework.fail(("unknown M-core base '%s' (gpuperf, mwp_cwp)"):format(tostring(base_name)))
  end
  local modules = framework.module_list(tree, place, M.modules, base, opts)
  local model = framework.model {
    name = name, kind = "mcore", base = base_name, modules = modules, hw = hw,
    clock_hz = hw.freq_mhz * 1e6, registry = reg, gpu = cfg,
    classes = { names = core.op_classes(), noun = "op class", label = "expected a trace op class" },
    info = { name = tree.name or cfg.gpu.name, file = file, gpu = cfg._name, cc = hw.cc, sms = hw.sms,
      freq_mhz = hw.freq_mhz, bw_gbs = hw.bw_gbs, simd_width = hw.simd_width, tdp_w = hw.tdp_w,
      area_mm2 = hw.area_mm2 },
  }
  model.inputs = function(self, kernel, input_opts)
    return M.inputs_of(kernel, self.gpu, input_opts)
  end
  return model
end

local function read(name)
  local tree, place, file = framework.read_preset(name, "mcore", PRESET_KEYS)
  if type(tree.gpu) ~= "string" then
    framework.fail(("%s: 'gpu' must name the GPU configuration the M-core derives from"):format(place("gpu")))
  end
  return tree, place, file, name:match("([^/]+)%.ya?ml$") or name
end

local function build(name, overrides, opts)
  opts = opts or {}
  local tree, place, file, short = read(name)
  local gpu_name = tree.gpu
  if gpu_name:find("/", 1, true) or gpu_name:match("%.ya?ml$") then
    gpu_name = (file:match("^(.*)/[^/]*$") or ".") .. "/" .. gpu_name
  end
  local gpu_overrides, mech_overrides = split_overrides(framework.parse_overrides(overrides),
    ("M-core '%s'"):format(short))
  local cfg, err = config.load(gpu_name, gpu_overrides)
  if not cfg then
    framework.fail(err)
  end
  return assemble(short, tree, place, file, cfg, mech_overrides, opts)
end

-- A core model from a preset name (quadro-fx580, 8400gs, gt330, gtx480,
-- gtx660ti) or file, with overrides of GPU schema keys and M-core parameters
-- (a map or "key=value" strings); opts: base ("gpuperf" | "mwp_cwp"), with,
-- without.  The model's :inputs(kernel, {cache = t}) measures Table 4.2's
-- inputs on a kernel with its GPU configuration.  Returns the model or nil,
-- message.
function M.core(name, overrides, opts)
  if type(name) ~= "string" then
    error("gpush.mech.mcore.core: expected a preset name or a path, got " .. type(name), 2)
  end
  return framework.protect(build, name, overrides, opts)
end

-- Shipped M-core presets.
function M.presets()
  return framework.presets("mcore")
end

-- The preset whose modules and M-core parameters fit a GPU configuration of
-- no M-core preset of its own: by compute capability.
function M.preset_for(cfg)
  local cc = cfg.gpu.compute_capability
  return cc >= 3 and "gtx660ti" or cc >= 2 and "gtx480" or "quadro-fx580"
end

-- An M-core over an already resolved GPU configuration (a sweep's point):
-- the hardware inputs from `cfg`, modules and M-core parameters from the
-- preset opts.core (default: preset_for(cfg)); opts.overrides are M-core
-- parameters; opts.base, with, without as for core().  Returns the model or
-- nil, message.
function M.for_config(cfg, opts)
  opts = opts or {}
  return framework.protect(function()
    local tree, place, file, short = read(opts.core or M.preset_for(cfg))
    return assemble(short, tree, place, file, cfg, framework.parse_overrides(opts.overrides), opts)
  end)
end

-- The sweep adapter behind models.get("mcore", opts) (docs/models.md): for
-- every point, the M-core of the point's configuration (M.for_config with
-- opts.core, base, with, without, overrides) predicts the kernel from inputs
-- measured on it (the memory replay shared with GPUMech through the kernel's
-- cache).  Columns: cycles, time_us, ipc, the four terms, MWP, CWP, achieved
-- DRAM bandwidth and its share of the peak, the dominant term, the
-- bottleneck in the shared vocabulary and its source (M.bottleneck),
-- warnings.
-- model.predict(inputs) predicts a table of inputs with opts.core's M-core
-- (default gtx660ti) as configured by its preset.
function M.new(opts)
  opts = opts or {}
  local base = opts.base or "gpuperf"
  local name = opts.name or (base == "gpuperf" and "mcore" or "mcore-" .. base)
  local core_opts = { core = opts.core, base = base, with = opts.with, without = opts.without,
    overrides = opts.overrides }
  local columns = { "cycles", "time_us", "ipc", "comp", "mem", "control", "overlap", "mwp", "cwp", "achieved_gbs",
    "dram_util", "dominant", "bottleneck", "bottleneck_detail", "warnings" }
  local standalone
  return {
    name = name, columns = columns,
    run = function(kernel, cfg, _, cache)
      local m, err = M.for_config(cfg, core_opts)
      if not m then
        return nil, err
      end
      local inputs, about = m:inputs(kernel, { cache = cache })
      if not inputs then
        return nil, about
      end
      local r, perr = m:predict(inputs, { effects = false })
      if not r then
        return nil, perr
      end
      local seconds = r.seconds
      local bytes = (inputs.B_off_chip or 0) * inputs.warps
      local achieved = seconds > 0 and bytes / seconds / 1e9 or 0
      local warnings = {}
      for _, w in ipairs(about.warnings) do
        warnings[#warnings + 1] = w
      end
      for _, w in ipairs(r.warnings) do
        warnings[#warnings + 1] = w
      end
      local label, detail = M.bottleneck(r)
      return { cycles = r.cycles, time_us = seconds * 1e6, ipc = kernel:info().warp_instructions / r.cycles,
        comp = r.terms.comp, mem = r.terms.mem, control = r.terms.control, overlap = r.terms.overlap,
        mwp = r.quantities.mwp, cwp = r.quantities.cwp, achieved_gbs = achieved,
        dram_util = achieved / cfg.dram.bandwidth_gbs, dominant = M.dominant(r), bottleneck = label,
        bottleneck_detail = detail, warnings = table.concat(warnings, "; ") }
    end,
    predict = function(inputs, predict_opts)
      if not standalone then
        standalone = assert(M.core(opts.core or "gtx660ti", opts.overrides, core_opts))
      end
      return standalone:predict(inputs, predict_opts)
    end,
  }
end

-- The bottleneck label of a prediction: MEM when the memory term exceeds
-- the computation term (memory time is what remains exposed), else COMP.
function M.dominant(r)
  return r.terms.mem > r.terms.comp and "MEM" or "COMP"
end

-- The label in the bottleneck vocabulary (gpush.models.vocabulary) of the
-- cycles each module adds to the computation term; the bases' and
-- timing's depend on the prediction (M.bottleneck).  A user's module not
-- listed here counts as its base's.
M.BOTTLENECK = vocabulary.check_map({ sfu = "PIPE", sync = "BARRIER", branches = "ISSUE", banks = "LSU",
  paths = "LATENCY", launch = "LAUNCH" }, "mcore")

-- What limits the memory term's parallelism (GPUPerf's ITMLP, MWP-CWP's
-- MWP), in the order ties are named: the DRAM's bandwidth, the MSHRs,
-- the L2's request rate; otherwise the warps and their latency.
local MWP_LIMITS = { { "mwp_bw", "DRAM" }, { "mwp_mshr", "MSHR" }, { "mwp_l2", "L2" } }

-- The label of a busiest unit (issue_floor's names: dispatch, lsu or a
-- machine unit).
local function unit_label(unit)
  return unit == "dispatch" and "ISSUE" or unit == "lsu" and "LSU" or "PIPE"
end

-- The label of the cycles the base adds to the computation term: GPUPerf's
-- W_parallel is latency over ITILP, latency-bound while the warps' ILP x N
-- is below ITILP_max, else issue-bound; MWP-CWP's Comp_cycles are issue
-- cycles, or the busiest unit's when the timing module raised them.
local function base_label(r)
  local q = r.quantities
  if r.base == "gpuperf" then
    return (q.itilp and q.itilp_max and q.itilp < q.itilp_max * (1 - 1e-9)) and "LATENCY" or "ISSUE"
  end
  local issue = q.issue_cycles and q.itilp_factor and q.issue_cycles / q.itilp_factor
  if q.busiest_unit and issue and q.cycles_per_inst and q.cycles_per_inst > issue * (1 + 1e-9) then
    return unit_label(q.busiest_unit)
  end
  return "ISSUE"
end

-- The label of the memory term: the resource that caps its parallelism,
-- or LATENCY.
local function memory_label(r)
  local q = r.quantities
  local limit = r.base == "gpuperf" and q.itmlp or q.mwp
  for _, l in ipairs(MWP_LIMITS) do
    if limit and q[l[1]] and q[l[1]] <= limit * (1 + 1e-9) then
      return l[2], l[1]
    end
  end
  return "LATENCY", "mem"
end

-- A prediction's bottleneck in the vocabulary, and its own source (a
-- module's name, or the memory term's limit: mem, mwp_bw, mwp_mshr,
-- mwp_l2).  The term that M.dominant names (the larger of T_mem and T_comp,
-- the kernel launch apart, as every model's bottleneck is of the kernel's
-- body) decides: the memory term by what caps its parallelism; the
-- computation term by the module adding the most cycles to it, each
-- labelled by M.BOTTLENECK (the bases by base_label, timing by its busiest
-- unit, the launch module by its block dispatch only).
function M.bottleneck(r)
  local sums, order = {}, {}
  local mem = 0
  for _, row in ipairs(r.breakdown) do
    local cycles = row.cycles
    if row.term == "mem" then
      mem = mem + cycles
    elseif row.term == "comp" then
      if row.module == "launch" then
        cycles = cycles - (r.quantities.kernel_launch or 0)
      end
      if not sums[row.module] then
        order[#order + 1] = row.module
      end
      sums[row.module] = (sums[row.module] or 0) + cycles
    end
  end
  local comp = 0
  for _, name in ipairs(order) do
    comp = comp + math.max(sums[name], 0)
  end
  if mem > comp then
    return memory_label(r)
  end
  local map = {}
  for _, name in ipairs(order) do
    map[name] = name == r.base and base_label(r)
      or name == "timing" and unit_label(r.quantities.busiest_unit or "dispatch")
      or M.BOTTLENECK[name] or base_label(r)
  end
  local label, module = vocabulary.largest(sums, map, order)
  local q = r.quantities
  if q.busiest_unit and q.busiest_unit ~= "dispatch" and label == "ISSUE" then
    -- the timing module found a unit busier than the issue slots
    return unit_label(q.busiest_unit), q.busiest_unit
  end
  return label or "", module or ""
end

return M
