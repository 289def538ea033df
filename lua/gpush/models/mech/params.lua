-- gpush.models.mech.params: every parameter and workload input of Blem's
-- mechanistic family, declared once (name, type, unit, default, range, one-line
-- description), and the checks that validate them the way gpush.schema's GPU
-- parameters are validated (gpush.config's coercion and wording).
--
-- Three registries (parameter groups of gpush.schema, declared with its helper):
--  * score: S-core hardware (Table 2.4a, Table 4.1's core-level inputs);
--  * mcore: M-core hardware (Table 2.4b, Table 4.2's core- and chip-level
--    inputs).  Those with `gpu` derive from a GPU configuration (gpush.schema):
--    an M-core is always backed by one, so `-p` takes the GPU schema's keys and
--    a derived value is never given twice;
--  * inputs: workload inputs, named as in Tables 4.1 and 4.2.
-- Types: int, number, bool, enum (values), string, and three structured ones:
-- `counts` (a mapping name -> non-negative number), `uops` (M(i, mu): class ->
-- {micro-op type -> count}) and `ports` (R(mu, r): micro-op type -> list of
-- port numbers); `units` (op class -> scheduler unit name) only derives from a
-- GPU configuration, never given.
local config = require "gpush.config"
local machine = require "gpush.machine"
local schema = require "gpush.schema"
local text = require "gpush.text"

local M = {}

-- S-core instruction classes (the keys of n_i, latency, uops): Table 4.1's
-- "instruction of type i" at the granularity the port rules of Sec. 4.2.1
-- need (f_regmov, f_INTadd, f_BOOL, f_fpadd, f_branch, f_LEA).
M.SCORE_CLASSES = {
  "int_alu", "int_mul", "int_div", "bool", "shift", "regmov", "lea", "fp_add", "fp_mul", "fp_div",
  "load", "store", "branch", "simd_alu", "simd_mul", "simd_load", "simd_store", "other",
}
M.SCORE_LOADS = { load = true, simd_load = true }
M.SCORE_SIMD_MEMORY = { simd_load = true, simd_store = true }

-- A registry is a parameter group of gpush.schema, declared with the same
-- helper as the GPU parameters.
local function registry(name)
  local group = schema.group(name)
  return group, group.declare
end

-- S-core hardware ------------------------------------------------------------------

local score, sp = registry("mech.score")
M.score = score
sp { "exec", "enum", values = { "in_order", "out_of_order" }, unit = "", default = "in_order",
  desc = "Execution model (Table 2.4a); selects the in-order (Eq. 4.3) or out-of-order base" }
sp { "issue_width", "int", unit = "inst/cycle", default = 2, min = 1, max = 16,
  desc = "D: instructions issued per cycle (Table 2.4a issue width)" }
sp { "window", "int", unit = "instructions", default = 2, min = 1, max = 1024,
  desc = "W: instruction window the ILP input is measured over (= D for in-order cores, Table 4.1)" }
sp { "freq_ghz", "number", unit = "GHz", default = 1.0, min = 0.001, max = 100,
  desc = "nu: core clock (Table 2.4a)" }
sp { "simd_width", "int", unit = "32-bit lanes", default = 4, min = 1, max = 64,
  desc = "SIMD width (Table 2.4a); used by translation, not by the single-core model" }
sp { "l1_kb", "number", unit = "KiB", default = 32, min = 0, max = 1e6, desc = "L1 cache per core (Table 2.4a)" }
sp { "l2_kb", "number", unit = "KiB", default = 256, min = 0, max = 1e7, desc = "L2 cache per core (Table 2.4a)" }
sp { "l3_mb", "number", unit = "MiB", default = 0, min = 0, max = 1e5, desc = "L3 cache per chip, 0 for none (Table 2.4a)" }
sp { "bw_gbs", "number", unit = "GB/s", default = 10, min = 0.001, max = 1e6,
  desc = "BW_max: chip memory bandwidth (Table 2.4a)" }
sp { "bytes_per_access", "int", unit = "bytes", default = 64, min = 1, max = 4096,
  desc = "b: bytes one memory access moves (a cache line)" }
sp { "tdp_w", "number", unit = "W", min = 0, max = 1e4, optional = true,
  desc = "TDP of one core at 45 nm (Table 2.4a)" }
sp { "area_mm2", "number", unit = "mm^2", min = 0, max = 1e5, optional = true,
  desc = "Area of one core at 45 nm (Table 2.4a)" }
sp { "specmark", "number", unit = "", min = 0, max = 1e6, optional = true,
  desc = "SPECmark score (Table 2.4a)" }
sp { "t_l1", "number", unit = "cycles", default = 3, min = 0, max = 1e5,
  desc = "t_L1: load-to-use latency of an L1 hit (the latency of a load in Avg. Inst. Lat.)" }
sp { "t_l2", "number", unit = "cycles", default = 15, min = 0, max = 1e5, desc = "t_L2: L2 hit latency (total)" }
sp { "t_l3", "number", unit = "cycles", default = 40, min = 0, max = 1e5, desc = "t_L3: L3 hit latency (total)" }
sp { "mem_latency_ns", "number", unit = "ns", default = 80, min = 0, max = 1e6,
  desc = "t_mem in nanoseconds (cycles = ns x nu: memory does not speed up with the core clock, Sec. 3.2)" }
sp { "t_itlb", "number", unit = "cycles", default = 10, min = 0, max = 1e5, desc = "t_ITLB: cost of an ITLB miss" }
sp { "t_dtlb", "number", unit = "cycles", default = 10, min = 0, max = 1e5, desc = "t_DTLB: cost of a DTLB miss" }
sp { "l_dr", "number", unit = "cycles", default = 0, min = 0, max = 1e5,
  desc = "L_dr: window drain time before a mispredicted branch resolves (0 in order)" }
sp { "l_fe", "number", unit = "cycles", default = 10, min = 0, max = 1e5,
  desc = "L_fe: front-end pipeline length, refilled after a misprediction" }
sp { "latency", "counts", unit = "cycles", keys = M.SCORE_CLASSES, all_keys = true,
  desc = "l_i: latency per instruction class (loads take t_L1 instead)" }
sp { "simd_mem_extra", "number", unit = "cycles", default = 0, min = 0, max = 100,
  desc = "Extra cycles of SIMD loads and stores over scalar ones (Sandybridge: +1, L1293)" }
sp { "uops", "uops", unit = "micro-ops", optional = true, keys = M.SCORE_CLASSES,
  desc = "M(i, mu): micro-ops each instruction class decodes into (default: one of its own type)" }
sp { "ports", "ports", unit = "", optional = true,
  desc = "R(mu, r): execution ports each micro-op type may issue on" }
sp { "port_count", "int", unit = "ports", default = 2, min = 1, max = 16,
  desc = "Execution ports (Atom and A8: 2; Sandybridge: 6, Fig. 4.4)" }
sp { "eq47", "enum", values = { "dependence", "printed" }, unit = "", default = "dependence",
  desc = "Eq. 4.7 reading: dependence (p = 2 - ILP at window 2) or printed (p = ILP - 1)" }
sp { "eq48", "enum", values = { "printed", "utilization" }, unit = "", default = "printed",
  desc = "Eq. 4.8 reading: printed (lambda = min(D, IPC)/D x share) or utilization (without the / D)" }
sp { "lambda_max", "number", unit = "", default = 0.95, min = 0, max = 0.999,
  desc = "Cap on a port's arrival rate in Eq. 4.9 (the M/M/1 wait needs lambda < 1)" }

-- M-core hardware ------------------------------------------------------------------

-- The latency and initiation interval of every trace op class from a GPU
-- configuration (shared and constant loads their own latencies; global memory
-- is T_mem's, not an instruction latency).
local pipeline_of = machine.PIPELINE -- the C core's map (gpush.machine)
M.GPU_PIPELINE_OF = pipeline_of

local function no_caches(cfg)
  return cfg.gpu.compute_capability < 2
end

local mcore, mp = registry("mech.mcore")
M.mcore = mcore
mp { "sms", "int", unit = "SMs", desc = "SM: streaming multiprocessors (Table 4.2)",
  gpu = function(cfg) return cfg.sm.count end, from = "sm.count" }
mp { "freq_mhz", "number", unit = "MHz", desc = "nu: SM clock (Table 4.2)",
  gpu = function(cfg) return cfg.clock.core_mhz end, from = "clock.core_mhz" }
mp { "warp_size", "int", unit = "threads", desc = "Threads per warp",
  gpu = function(cfg) return cfg.sm.warp_size end, from = "sm.warp_size" }
mp { "schedulers", "int", unit = "schedulers", desc = "Warp schedulers per SM",
  gpu = function(cfg) return cfg.sm.schedulers end, from = "sm.schedulers" }
mp { "simd_width", "number", unit = "lanes", desc = "SP: SIMD lanes per SM (schedulers x warp / fp32 interval)",
  gpu = function(cfg) return cfg.sm.schedulers * cfg.sm.warp_size / cfg.ops.fp32.interval end,
  from = "sm.schedulers, sm.warp_size, ops.fp32.interval" }
mp { "sfu_width", "number", unit = "lanes", desc = "SFU lanes per SM (schedulers x warp / sfu interval)",
  gpu = function(cfg) return cfg.sm.schedulers * cfg.sm.warp_size / cfg.ops.sfu.interval end,
  from = "sm.schedulers, sm.warp_size, ops.sfu.interval" }
mp { "multi_issue", "int", unit = "inst/cycle", desc = "W of Eq. 4.12: instructions one warp issues per cycle",
  gpu = function(cfg) return cfg.sm.issue_width end, from = "sm.issue_width" }
mp { "latency", "number", unit = "cycles", desc = "l: instruction latency without the timing module (FP32)",
  gpu = function(cfg) return cfg.ops.fp32.latency end, from = "ops.fp32.latency" }
mp { "class_latency", "counts", unit = "cycles", desc = "l_i: latency per trace op class (timing module)",
  gpu = function(cfg)
    local t = {}
    for class, pipe in pairs(pipeline_of) do
      t[class] = cfg.ops[pipe].latency
    end
    t.ld_shared, t.st_shared, t.atom_shared = cfg.shared.latency, cfg.shared.latency, cfg.shared.latency
    t.ld_const = cfg.const.latency
    return t
  end, from = "ops.<class>.latency, shared.latency, const.latency" }
mp { "class_interval", "counts", unit = "cycles", desc = "Initiation interval per op class, per scheduler",
  gpu = function(cfg)
    local t = {}
    for class, pipe in pairs(pipeline_of) do
      t[class] = cfg.ops[pipe].interval
    end
    return t
  end, from = "ops.<class>.interval" }
mp { "class_unit", "units", unit = "", desc = "The scheduler unit each op class issues to (timing module; INT on FMA if shared)",
  gpu = function(cfg) return machine.unit_of(cfg) end, from = "sm.int_fp32_shared" }
mp { "t_mem", "number", unit = "cycles", desc = "t_mem: off-chip access latency (l2.latency + DRAM increment)",
  gpu = function(cfg) return cfg.l2.latency + cfg.dram.latency_ns * cfg.clock.core_mhz / 1000 end,
  from = "l2.latency, dram.latency_ns, clock.core_mhz" }
mp { "t_hit", "number", unit = "cycles",
  desc = "On-chip hit latency (caching): L1 when it caches global loads, else L2",
  gpu = function(cfg)
    if no_caches(cfg) then
      return cfg.l2.latency + cfg.dram.latency_ns * cfg.clock.core_mhz / 1000
    end
    return (cfg.l1.cache_global and cfg.l1.size_kb > 0) and cfg.l1.latency or cfg.l2.latency
  end, from = "l1.latency or l2.latency" }
mp { "t_l1", "number", unit = "cycles",
  desc = "L1 hit latency (caching, when N_L1 is given: accesses served by L1)",
  gpu = function(cfg) return cfg.l1.latency end, from = "l1.latency" }
mp { "t_l2", "number", unit = "cycles",
  desc = "L2 hit latency (caching, when N_L1 is given: on-chip accesses L1 does not serve)",
  gpu = function(cfg) return cfg.l2.latency end, from = "l2.latency" }
mp { "l2_slices", "int", unit = "slices", desc = "L2 slices, each serving one request per l2_interval (l2 module)",
  gpu = function(cfg) return cfg.l2.slices end, from = "l2.slices" }
mp { "l2_interval", "number", unit = "cycles", desc = "Cycles between requests one L2 slice accepts (l2 module)",
  gpu = function(cfg) return cfg.l2.interval end, from = "l2.interval" }
mp { "bw_gbs", "number", unit = "GB/s", desc = "BW_max: DRAM bandwidth (Table 4.2)",
  gpu = function(cfg) return cfg.dram.bandwidth_gbs end, from = "dram.bandwidth_gbs" }
mp { "b", "int", unit = "bytes",
  desc = "b: bytes per memory transaction (an L1 line from CC 2.0; a 64 B half-warp segment before)",
  gpu = function(cfg) return no_caches(cfg) and 64 or cfg.l1.line_bytes end, from = "l1.line_bytes" }
mp { "mshrs", "int", unit = "entries", desc = "Outstanding transactions per SM (mshr module)",
  gpu = function(cfg) return cfg.l1.mshrs end, from = "l1.mshrs" }
mp { "cc", "number", unit = "", desc = "Compute capability: selects the coalescing rule (Sec. 4.2.2)",
  gpu = function(cfg) return cfg.gpu.compute_capability end, from = "gpu.compute_capability" }
mp { "launch_cycles", "number", unit = "cycles", desc = "Fixed cost of a kernel launch (launch module)",
  gpu = function(cfg) return cfg.launch.kernel_cycles end, from = "launch.kernel_cycles" }
mp { "block_launch_cycles", "number", unit = "cycles", desc = "Cost per wave of thread blocks (launch module)",
  gpu = function(cfg) return cfg.launch.block_cycles end, from = "launch.block_cycles" }
mp { "delta", "number", unit = "cycles", default = 1, min = 0.001, max = 1e4,
  desc = "Delta: departure delay between one warp's memory transactions (one line request per cycle)" }
mp { "sync_rule", "enum", values = { "hong_kim", "gpuperf" }, unit = "", default = "hong_kim",
  desc = "Barrier cost per block: hong_kim (departure x (MWP - 1)) or gpuperf (Gamma x AMAT x N_mem / N_I)" }
mp { "sync_gamma", "number", unit = "", default = 1, min = 0, max = 1e4,
  desc = "Gamma of GPUPerf's F_sync (sync_rule = gpuperf; machine-dependent)" }
mp { "overlap", "enum", values = { "continuous", "gpuperf" }, unit = "", default = "continuous",
  desc = "GPUPerf's F_overlap: continuous (zeta = 1 always) or gpuperf (zeta = 1 only when CWP <= MWP)" }
mp { "tdp_w", "number", unit = "W", min = 0, max = 1e4, optional = true,
  desc = "TDP of one SM at 45 nm (Table 2.4b)" }
mp { "area_mm2", "number", unit = "mm^2", min = 0, max = 1e5, optional = true,
  desc = "Area of one SM at 45 nm (Table 2.4b)" }

-- Workload inputs -------------------------------------------------------------------

local inputs, ip = registry("mech.inputs")
M.inputs = inputs
-- S-core (Table 4.1): totals over the run
ip { "f_inf", "number", unit = "", min = 0, max = 1, optional = true,
  desc = "f_inf: fraction of the code that can be parallelised (multicore models)" }
ip { "N_I", "number", unit = "instructions", min = 0, desc = "Instructions (S: total; M: per warp, all issued)" }
ip { "N_M", "number", unit = "micro-ops", min = 0, optional = true,
  desc = "N_M: micro-ops in total (measured); else from n_i and M(i, mu)" }
ip { "n_i", "counts", unit = "instructions", desc = "n_i: instructions per class (S: classes of M.SCORE_CLASSES; M: trace op classes, per warp)" }
ip { "ILP", "number", unit = "inst/cycle", min = 1, desc = "ILP at the core's window (unit latency), per warp for M-cores" }
ip { "N_mL1", "number", unit = "misses", min = 0, desc = "N_mL1: L1 data cache misses" }
ip { "N_mL2", "number", unit = "misses", min = 0, desc = "N_mL2: L2 misses" }
ip { "N_mL3", "number", unit = "misses", min = 0, desc = "N_mL3: L3 misses" }
ip { "N_mL3o", "number", unit = "misses", min = 0, desc = "N_mL3.o: L3 misses that overlap an earlier one" }
ip { "N_mITLB", "number", unit = "misses", min = 0, desc = "N_mITLB: instruction TLB misses" }
ip { "N_mDTLB", "number", unit = "misses", min = 0, desc = "N_mDTLB: data TLB misses" }
ip { "N_br_miss", "number", unit = "branches", min = 0,
  desc = "Mispredicted branches (not in Table 4.1, which has no branch input; Table 5.4 lists them)" }
-- M-core (Table 4.2): per warp unless stated
ip { "W_SM", "number", unit = "warps", min = 1, desc = "W_SM: warps resident per SM" }
ip { "warps", "number", unit = "warps", min = 1, desc = "Warps in the kernel (Table 5.3)" }
ip { "blocks", "number", unit = "blocks", min = 1, desc = "Thread blocks in the kernel (Table 5.3)" }
ip { "N_SFU", "number", unit = "instructions", min = 0, desc = "N_SFU: SFU instructions per warp" }
ip { "N_sync", "number", unit = "instructions", min = 0, desc = "N_sync: barriers per warp" }
ip { "N_CF_div", "number", unit = "instructions", min = 0,
  desc = "N_CF_div: extra instructions per warp due to control-flow divergence" }
ip { "N_con", "number", unit = "passes", min = 0, desc = "N_con: shared-memory bank-conflict passes per warp" }
ip { "N_mem", "number", unit = "instructions", min = 0,
  desc = "N_mem: memory instructions per warp that leave the SM (global, local, texture, atomics)" }
ip { "N_off_chip", "number", unit = "instructions", min = 0,
  desc = "N_off_chip: memory instructions per warp served off chip" }
ip { "N_L1", "number", unit = "instructions", min = 0, optional = true,
  desc = "Memory instructions per warp served by L1 (measured from CC 2.0; else every on-chip hit takes t_hit)" }
ip { "R_mshr", "number", unit = "requests", min = 0, optional = true,
  desc = "Load requests per warp that miss L1 and hold an MSHR (measured from CC 2.0; else loads x avg_trans_warp)" }
ip { "R_l2", "number", unit = "requests", min = 0,
  desc = "L2 requests per warp (loads missing L1, stores, atomics, L1 victims; measured from CC 2.0)" }
ip { "T_path", "number", unit = "cycles", min = 0,
  desc = "The kernel's longest dependence path: the longest warp's, or the block slots' (gpush.bounds latency, blocks)" }
ip { "avg_trans_warp", "number", unit = "transactions", min = 1,
  desc = "Transactions per memory instruction under the core's coalescing rule" }
ip { "B_off_chip", "number", unit = "bytes", min = 0, optional = true,
  desc = "Bytes per warp moved off chip (measured; else N_off_chip x avg_trans_warp x b)" }
ip { "MLP", "number", unit = "requests", min = 1, desc = "Memory-level parallelism per warp" }

-- The fields of `record` that are declared workload inputs: what a core
-- model takes from a record that also carries measurements only other
-- models use (a translated record's footprint, loop counts, SIMD shares).
function M.declared_inputs(record)
  local out = {}
  for k, v in pairs(record) do
    if inputs.by_name[k] then
      out[k] = v
    end
  end
  return out
end

-- Relations between inputs ------------------------------------------------------------

-- What no measurement can give, declared once: relations between inputs
-- (and the core's parameters).  The framework checks each relation whose
-- inputs a model reads (`needs`; `hw`: parameters of the core) before any
-- module runs, and refuses the inputs naming the relation, the values and
-- why.  `holds(i, hw)` -> true when the values are possible.  A relative
-- slack of 1e-9 absorbs rounding of per-warp averages.  `repair(i, hw)`
-- moves inputs that noise pushed out of a relation back onto its edge
-- (gpush.models.mech.variant's +-20 % input noise), in list order.
local SLACK = 1e-9
local function at_most(a, b)
  return a <= b * (1 + SLACK) + SLACK
end
-- The instructions a class mix (n_i) counts.
local function mix_total(n_i)
  local total = 0
  for _, v in pairs(n_i) do
    total = total + v
  end
  return total
end
M.mix_total = mix_total

M.relations = {
  { "N_mL2 <= N_mL1", needs = { "N_mL2", "N_mL1" }, why = "an L2 miss is an L1 miss first",
    holds = function(i) return at_most(i.N_mL2, i.N_mL1) end,
    repair = function(i) i.N_mL2 = math.min(i.N_mL2, i.N_mL1) end },
  { "N_mL3 <= N_mL2", needs = { "N_mL3", "N_mL2" }, why = "an L3 miss is an L2 miss first",
    holds = function(i) return at_most(i.N_mL3, i.N_mL2) end,
    repair = function(i) i.N_mL3 = math.min(i.N_mL3, i.N_mL2) end },
  { "N_mL3o <= N_mL3", needs = { "N_mL3o", "N_mL3" }, why = "overlapping L3 misses are L3 misses",
    holds = function(i) return at_most(i.N_mL3o, i.N_mL3) end,
    repair = function(i) i.N_mL3o = math.min(i.N_mL3o, i.N_mL3) end },
  { "ILP <= window", needs = { "ILP" }, hw = { "window" }, kind = "score",
    why = "ILP is measured over the window: no more instructions issue together than the window holds",
    holds = function(i, hw) return at_most(i.ILP, hw.window) end,
    repair = function(i, hw) i.ILP = math.min(i.ILP, hw.window) end },
  { "sum of n_i = N_I", needs = { "n_i", "N_I" },
    why = "n_i counts the same instructions by class (1 % apart at most)",
    holds = function(i) return math.abs(mix_total(i.n_i) - i.N_I) <= 0.01 * math.max(1, i.N_I) end,
    values = function(i) return ("sum of n_i = %.6g, N_I = %.6g"):format(mix_total(i.n_i), i.N_I) end,
    repair = function(i) i.N_I = mix_total(i.n_i) end },
  { "N_br_miss <= n_i.branch", needs = { "N_br_miss", "n_i" }, kind = "score",
    why = "a mispredicted branch is a branch",
    holds = function(i) return at_most(i.N_br_miss, i.n_i.branch or 0) end,
    values = function(i) return ("N_br_miss = %.6g, n_i.branch = %.6g"):format(i.N_br_miss, i.n_i.branch or 0) end,
    repair = function(i) i.N_br_miss = math.min(i.N_br_miss, i.n_i.branch or 0) end },
  { "N_SFU + N_CF_div <= N_I", needs = { "N_SFU", "N_CF_div", "N_I" },
    why = "SFU and divergence-extra instructions are instructions of the warp",
    holds = function(i) return at_most(i.N_SFU + i.N_CF_div, i.N_I) end,
    repair = function(i)
      i.N_SFU = math.min(i.N_SFU, i.N_I)
      i.N_CF_div = math.min(i.N_CF_div, i.N_I - i.N_SFU)
    end },
  { "N_mem <= N_I", needs = { "N_mem", "N_I" }, why = "memory instructions are instructions of the warp",
    holds = function(i) return at_most(i.N_mem, i.N_I) end,
    repair = function(i) i.N_mem = math.min(i.N_mem, i.N_I) end },
  { "N_sync <= N_I", needs = { "N_sync", "N_I" }, why = "barriers are instructions of the warp",
    holds = function(i) return at_most(i.N_sync, i.N_I) end,
    repair = function(i) i.N_sync = math.min(i.N_sync, i.N_I) end },
  { "N_off_chip <= N_mem", needs = { "N_off_chip", "N_mem" },
    why = "an access served off chip is a memory instruction",
    holds = function(i) return at_most(i.N_off_chip, i.N_mem) end,
    repair = function(i) i.N_off_chip = math.min(i.N_off_chip, i.N_mem) end },
  { "blocks <= warps", needs = { "blocks", "warps" }, why = "every thread block holds at least one warp",
    holds = function(i) return at_most(i.blocks, i.warps) end,
    repair = function(i) i.blocks = math.min(i.blocks, i.warps) end },
  { "avg_trans_warp <= 2 x warp_size", needs = { "avg_trans_warp" }, hw = { "warp_size" }, kind = "mcore",
    why = "a warp access takes at most one transaction per thread, two when it straddles a line",
    holds = function(i, hw) return at_most(i.avg_trans_warp, 2 * hw.warp_size) end,
    repair = function(i, hw) i.avg_trans_warp = math.min(i.avg_trans_warp, 2 * hw.warp_size) end },
}

-- A copy of inputs `i` with every relation that applies (as check_relations
-- decides, every input read) repaired, in list order: what the variant's
-- input noise needs so perturbed inputs stay possible.
function M.repair_relations(i, hw, kind)
  local out = {}
  for k, v in pairs(i) do
    out[k] = v
  end
  for _, rel in ipairs(M.relations) do
    local applies = rel.kind == nil or rel.kind == kind
    for _, name in ipairs(rel.needs) do
      applies = applies and out[name] ~= nil
    end
    for _, name in ipairs(rel.hw or {}) do
      applies = applies and hw[name] ~= nil
    end
    if applies and not rel.holds(out, hw) then
      rel.repair(out, hw)
    end
  end
  return out
end

-- Checks the relations against checked inputs `i` and a core's parameters
-- `hw` (kind "score" or "mcore"); `reads(name)` says whether the model reads
-- an input.  Returns nil, or a message naming the relation, the values and
-- why it must hold.
function M.check_relations(i, hw, kind, reads)
  for _, rel in ipairs(M.relations) do
    local applies = rel.kind == nil or rel.kind == kind
    for _, name in ipairs(rel.needs) do
      applies = applies and i[name] ~= nil and reads(name)
    end
    for _, name in ipairs(rel.hw or {}) do
      applies = applies and hw[name] ~= nil
    end
    if applies and not rel.holds(i, hw) then
      local values
      if rel.values then
        values = rel.values(i)
      else
        local parts = {}
        for _, name in ipairs(rel.needs) do
          parts[#parts + 1] = ("%s = %.6g"):format(name, i[name])
        end
        for _, name in ipairs(rel.hw or {}) do
          parts[#parts + 1] = ("%s = %s"):format(name, tostring(hw[name]))
        end
        values = table.concat(parts, ", ")
      end
      return ("inputs break %s (%s): %s"):format(rel[1], values, rel.why)
    end
  end
end

-- Validation -----------------------------------------------------------------------

local function is_finite(v)
  return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge
end

local function count_map(decl, v)
  if type(v) ~= "table" then
    return nil, "expected a mapping of names to non-negative numbers"
  end
  local allowed
  if decl.keys then
    allowed = {}
    for _, k in ipairs(decl.keys) do
      allowed[k] = true
    end
  end
  local out = {}
  for k, x in pairs(v) do
    if type(k) ~= "string" then
      return nil, "expected a mapping of names to numbers, got a list"
    end
    if allowed and not allowed[k] then
      local guess = text.closest(k, decl.keys)
      return nil, ("unknown class '%s'%s (classes: %s)"):format(k, guess and (" (did you mean '" .. guess .. "'?)") or "",
        table.concat(decl.keys, ", "))
    end
    if not is_finite(x) or x < 0 then
      return nil, ("'%s': expected a non-negative number, got %s"):format(k, config.format_value(x))
    end
    out[k] = x
  end
  if decl.all_keys then
    for _, k in ipairs(decl.keys) do
      if out[k] == nil then
        return nil, ("class '%s' is missing (every class needs a value: %s)"):format(k, table.concat(decl.keys, ", "))
      end
    end
  end
  return out
end

local function uops_map(decl, v)
  if type(v) ~= "table" then
    return nil, "expected a mapping of instruction classes to {micro-op type: count}"
  end
  local out = {}
  for class, types in pairs(v) do
    local ok, err = count_map({ keys = decl.keys }, { [class] = 0 })
    if not ok then
      return nil, err
    end
    local counts, cerr = count_map({}, types)
    if not counts then
      return nil, ("class '%s': %s"):format(class, cerr)
    end
    out[class] = counts
  end
  return out
end

local function ports_map(_, v)
  if type(v) ~= "table" then
    return nil, "expected a mapping of micro-op types to lists of port numbers"
  end
  local out = {}
  for t, list in pairs(v) do
    if type(t) ~= "string" or type(list) ~= "table" or #list == 0 then
      return nil, ("micro-op type '%s': expected a non-empty list of port numbers"):format(tostring(t))
    end
    local ports = {}
    for i, p in ipairs(list) do
      if not (is_finite(p) and p == math.floor(p) and p >= 0 and p <= 15) then
        return nil, ("micro-op type '%s': port %d must be an integer from 0 to 15, got %s")
          :format(t, i, config.format_value(p))
      end
      ports[i] = math.tointeger(p)
    end
    out[t] = ports
  end
  return out
end

local structured = { counts = count_map, uops = uops_map, ports = ports_map }

-- What a declaration expects, for messages.
function M.expectation(decl)
  if decl.type == "counts" then
    return "a mapping of names to non-negative numbers"
  elseif decl.type == "uops" then
    return "a mapping of classes to {micro-op type: count}"
  elseif decl.type == "ports" then
    return "a mapping of micro-op types to port lists"
  end
  if (decl.type == "number" or decl.type == "int") and decl.min and not decl.max then
    return ("%s >= %s"):format(decl.type == "int" and "an integer" or "a number", tostring(decl.min))
  end
  return config.expectation { decl.name, decl.type, values = decl.values, min = decl.min, max = decl.max }
end

-- Checks a value against its declaration: the value converted to its type,
-- or nil and what was expected.
function M.check(decl, v)
  local check = structured[decl.type]
  if check then
    return check(decl, v)
  end
  local ok = config.coerce({ decl.name, decl.type, values = decl.values, min = decl.min, max = decl.max }, v)
  if ok == nil or (type(ok) == "number" and not is_finite(ok)) then
    return nil, ("expected %s, got %s"):format(M.expectation(decl), config.format_value(v))
  end
  return ok
end

-- The parameter table of one registry as text: name, type, unit, default or
-- source, description.
function M.describe(reg, title)
  local lines = { title, ("%-20s %-8s %-14s %-28s %s"):format("parameter", "type", "unit", "default / from", "description") }
  for _, d in ipairs(reg.list) do
    local default = d.gpu and ("GPU: " .. d.from) or (d.default ~= nil and tostring(d.default))
      or (d.optional and "(optional)" or "(required)")
    if d.type == "enum" then
      default = default .. " [" .. table.concat(d.values, "|") .. "]"
    end
    lines[#lines + 1] = ("%-20s %-8s %-14s %-28s %s"):format(d.name, d.type, d.unit or "", default, d.desc)
  end
  return table.concat(lines, "\n") .. "\n"
end

return M
