-- gpush.schema: every configuration parameter, declared once.
--
-- Each parameter has a dotted path (the YAML tree mirrors it: `sm.count` is
-- `sm: {count: ...}`), a type, a unit, a default, a valid range and a one-line
-- description, in the spirit of gem5's SimObject params and Ramulator 2's
-- param<T>().desc().  Later model issues append their own parameters here.
--
-- Conventions the descriptions rely on:
--  * Instruction latency L is the distance in cycles between the issue of a
--    producer and the earliest issue of a dependent consumer, so a dependent
--    chain of N instructions takes N x L cycles in every model.
--  * Every opcode class also has an initiation interval: how many cycles its
--    unit, per scheduler, needs before it accepts the next warp instruction.
--  * Memory latencies are load-to-use totals unless the description says
--    "increment": l1.latency and l2.latency are totals seen by the warp,
--    dram.latency_ns is the increment beyond an L2 miss, in nanoseconds so
--    core-clock sweeps do not scale it.
--  * A parameter marked `optional = true` (the power.* group of the activity
--    power model) may be left out of a preset: it then takes its default and
--    is not reported as a defaulted or assumed parameter.
--  * Derived values are computed here and never given in a config: see
--    M.derived.  Setting a derived value that has a `solve` rewrites the
--    parameter it derives from (setting dram.bandwidth_gbs solves for
--    clock.mem_mhz).
local M = {}

-- Types: "int", "number", "bool", "string", "enum" (with `values`).
local params = {}
M.params = params

-- Per type, whether a default is one: exactly what gpush.config's check
-- (coerce) gives back unchanged, an int's an integer, a number's finite.
local default_fits = setmetatable({
  int = function(d) return math.type(d) == "integer" end,
  number = function(d) return type(d) == "number" and d == d and d ~= math.huge and d ~= -math.huge end,
  bool = function(d) return type(d) == "boolean" end,
  string = function(d) return type(d) == "string" end,
  enum = function(d, spec)
    for _, v in ipairs(spec.values or {}) do
      if v == d then
        return true
      end
    end
    return false
  end,
}, { __index = function() return function() return true end end })

-- The declaration helper of every parameter group: the GPU parameters below,
-- Blem's S-core, M-core and workload inputs (gpush.models.mech.params) and
-- the dark-silicon projection's (gpush.models.mech.dark_silicon).  A spec is
-- { name, type, unit =, default =, min =, max =, desc =, ... }; declaring
-- checks its shape (a default of its type, a number's inside its range;
-- with `needs_default` one is required) and appends it to `list` (and
-- indexes it in `by_name` when given).
function M.declarer(list, by_name, needs_default)
  return function(spec)
    local name = spec[1]
    if type(name) ~= "string" or type(spec[2]) ~= "string" or type(spec.unit) ~= "string"
      or type(spec.desc) ~= "string" then
      error(("schema: parameter %s needs a name, a type, a unit and a description"):format(tostring(name)), 2)
    end
    local d = spec.default
    if type(d) == "number" and ((spec.min and d < spec.min) or (spec.max and d > spec.max)) then
      error(("schema: parameter %s: default %s outside [%s, %s]"):format(name, tostring(d), tostring(spec.min),
        tostring(spec.max)), 2)
    end
    -- a default is what gpush.config's check makes of it (so a resolved
    -- configuration counts as checked: gpush.config, checked_list)
    if (d ~= nil or needs_default) and not default_fits[spec[2]](d, spec) then
      error(("schema: parameter %s: default %s is no %s"):format(name, tostring(d), spec[2]), 2)
    end
    list[#list + 1] = spec
    if by_name then
      by_name[name] = spec
    end
    return spec
  end
end

-- A parameter group of its own (a model family's hardware or inputs): its
-- list and index, filled through M.declarer.  Specs of a group also carry
-- name = spec[1] and type = spec[2].
function M.group(name)
  local group = { name = name, list = {}, by_name = {} }
  local declare = M.declarer(group.list, group.by_name)
  group.declare = function(spec)
    spec.name, spec.type = spec[1], spec[2]
    return declare(spec)
  end
  return group
end

local param = M.declarer(params, nil, true)

-- gpu ------------------------------------------------------------------------
param { "gpu.name", "string", unit = "", default = "unnamed GPU",
  desc = "Product name, for reports" }
param { "gpu.compute_capability", "number", unit = "", default = 7.0, min = 1.0, max = 10.0,
  desc = "CUDA compute capability; below 2.0 selects half-warp (CC 1.x) coalescing and no caches" }

-- sm -------------------------------------------------------------------------
param { "sm.count", "int", unit = "SMs", default = 16, min = 1, max = 1024,
  desc = "Streaming multiprocessors (cores) on the chip" }
param { "sm.warp_size", "int", unit = "threads", default = 32, min = 1, max = 64,
  desc = "Threads per warp (SIMT width)" }
param { "sm.max_warps", "int", unit = "warps", default = 32, min = 1, max = 256,
  desc = "Resident warps per SM at most" }
param { "sm.max_blocks", "int", unit = "blocks", default = 8, min = 1, max = 256,
  desc = "Resident thread blocks per SM at most" }
param { "sm.max_block_threads", "int", unit = "threads", default = 1024, min = 1, max = 4096,
  desc = "Threads per thread block at most (launch limit)" }
param { "sm.schedulers", "int", unit = "schedulers", default = 1, min = 1, max = 16,
  desc = "Warp schedulers per SM; warps are split evenly among them" }
param { "sm.issue_width", "int", unit = "warp-inst/cycle", default = 1, min = 1, max = 8,
  desc = "Warp instructions one scheduler can issue per cycle" }
param { "sm.int_fp32_shared", "bool", unit = "", default = false,
  desc = "INT32 instructions issue to the FP32/FMA unit (one pipe for both: NVIDIA before Volta, GCN's VALU); false: an INT32 unit of its own" }
param { "sm.active_warps", "int", unit = "warps", default = 8, min = 1, max = 256,
  desc = "Two-level scheduling (simulator --policy two-level): warps in each scheduler's active set" }
param { "sm.registers", "int", unit = "registers", default = 32768, min = 1, max = 1048576,
  desc = "32-bit registers in one SM's register file" }
param { "sm.register_alloc_unit", "int", unit = "registers", default = 256, min = 1, max = 4096,
  desc = "Registers are allocated per warp in multiples of this" }
param { "sm.max_registers_per_thread", "int", unit = "registers", default = 255, min = 1, max = 1024,
  desc = "Registers one thread may use at most" }
param { "sm.shared_kb", "number", unit = "KiB", default = 48, min = 0, max = 1024,
  desc = "Shared memory per SM available to thread blocks" }
param { "sm.shared_alloc_bytes", "int", unit = "bytes", default = 256, min = 1, max = 65536,
  desc = "Shared memory is allocated per block in multiples of this" }

-- clocks ---------------------------------------------------------------------
param { "clock.core_mhz", "number", unit = "MHz", default = 1000, min = 1, max = 10000,
  desc = "SM (core) clock" }
param { "clock.mem_mhz", "number", unit = "MHz", default = 1000, min = 1, max = 20000,
  desc = "DRAM I/O clock; with dram.bus_bits and dram.transfers_per_clock it gives the bandwidth" }

-- compute pipelines: latency and initiation interval per opcode class ----------
M.op_classes = {
  { "int", "integer ALU (IADD3, LOP3, SHF, ISETP, MOV, ...)" },
  { "fp32", "single-precision FADD/FMUL/FFMA" },
  { "imad", "integer multiply-add on the FMA pipe (IMAD from Volta on, XMAD on Pascal)" },
  { "fp64", "double precision (DADD, DMUL, DFMA)" },
  { "sfu", "special-function unit (MUFU: rcp, rsq, sin, ex2, ...)" },
  { "tensor", "tensor-core MMA (HMMA, IMMA, HGMMA, ...)" },
  { "uniform", "uniform-datapath ops (UMOV, UIADD3, ...)" },
  { "branch", "control flow (BRA, EXIT, BSSY, BSYNC, ...)" },
  { "other", "everything else that is not memory (NOP, S2R, CS2R, ...)" },
}
for _, class in ipairs(M.op_classes) do
  local name, what = class[1], class[2]
  param { "ops." .. name .. ".latency", "number", unit = "cycles", default = 4, min = 0, max = 10000,
    desc = "Latency of " .. what .. ": producer issue to dependent issue" }
  param { "ops." .. name .. ".interval", "number", unit = "cycles", default = 1, min = 0.03125, max = 1024,
    desc = "Initiation interval of " .. name .. ": cycles per warp instruction per scheduler" }
end

-- L1 data cache (per SM) ---------------------------------------------------------
param { "l1.size_kb", "number", unit = "KiB", default = 32, min = 0, max = 4096,
  desc = "L1 data cache per SM; 0 means no L1" }
param { "l1.unified_kb", "number", unit = "KiB", default = 0, min = 0, max = 4096,
  desc = "L1 and shared memory share this capacity per SM (Volta on): L1 gets what the resident blocks' shared memory leaves, at least l1.size_kb; 0: L1 is l1.size_kb" }
param { "l1.line_bytes", "int", unit = "bytes", default = 128, min = 32, max = 128,
  desc = "L1 line size: what a fill of a non-sectored L1 brings (32, 64 or 128; the trace's lines are 128 B, the coalescer's sectors 32 B)" }
param { "l1.sector_bytes", "int", unit = "bytes", default = 32, min = 4, max = 1024,
  desc = "L1 sector size: the unit of fill when l1.sectored" }
param { "l1.sectored", "bool", unit = "", default = false,
  desc = "Fill L1 per sector instead of per line" }
param { "l1.ways", "int", unit = "ways", default = 8, min = 1, max = 1024,
  desc = "L1 associativity" }
param { "l1.latency", "number", unit = "cycles", default = 25, min = 0, max = 10000,
  desc = "Load-to-use latency of an L1 hit (total)" }
param { "l1.mshrs", "int", unit = "entries", default = 32, min = 1, max = 65536,
  desc = "Miss status holding registers per SM; requests to one line merge" }
param { "l1.cache_global", "bool", unit = "", default = true,
  desc = "Global loads allocate in L1 (false: they bypass it, as Kepler's default)" }
param { "l1.write_policy", "enum", values = { "write_through_no_allocate", "write_back" },
  unit = "", default = "write_through_no_allocate",
  desc = "L1 policy for global stores (GPGPU-Sim's L1 is write-through, no write-allocate)" }

-- shared memory and constant cache ----------------------------------------------
param { "shared.banks", "int", unit = "banks", default = 32, min = 1, max = 256,
  desc = "Shared-memory banks; lanes hitting one bank at different words serialise" }
param { "shared.bank_bytes", "int", unit = "bytes", default = 4, min = 1, max = 64,
  desc = "Width of one shared-memory bank" }
param { "shared.latency", "number", unit = "cycles", default = 25, min = 0, max = 10000,
  desc = "Load-to-use latency of a conflict-free shared-memory access (total)" }
param { "const.latency", "number", unit = "cycles", default = 8, min = 0, max = 10000,
  desc = "Load-to-use latency of a constant-cache hit (total)" }

-- L2 (shared by all SMs) ----------------------------------------------------------
param { "l2.size_kb", "number", unit = "KiB", default = 768, min = 0, max = 1048576,
  desc = "L2 cache over all slices; 0 means no L2" }
param { "l2.line_bytes", "int", unit = "bytes", default = 128, min = 32, max = 128,
  desc = "L2 line size: what a fill of a non-sectored L2 brings (32, 64 or 128; the trace's lines are 128 B, the coalescer's sectors 32 B)" }
param { "l2.sector_bytes", "int", unit = "bytes", default = 32, min = 4, max = 1024,
  desc = "L2 sector size: the unit of fill when l2.sectored" }
param { "l2.sectored", "bool", unit = "", default = false,
  desc = "Fill L2 per sector instead of per line" }
param { "l2.ways", "int", unit = "ways", default = 8, min = 1, max = 1024,
  desc = "L2 associativity" }
param { "l2.slices", "int", unit = "slices", default = 1, min = 1, max = 1024,
  desc = "L2 slices, selected by an address hash" }
param { "l2.latency", "number", unit = "cycles", default = 120, min = 0, max = 10000,
  desc = "Load-to-use latency of an L2 hit (total, including the L1 miss)" }
param { "l2.interval", "number", unit = "cycles", default = 1, min = 0, max = 1000,
  desc = "Cycles one L2 slice needs per request (its service interval): slice bandwidth" }
param { "l2.write_policy", "enum", values = { "write_back", "write_through" },
  unit = "", default = "write_back", desc = "L2 write policy" }

-- DRAM ------------------------------------------------------------------------------
param { "dram.channels", "int", unit = "channels", default = 6, min = 1, max = 1024,
  desc = "Independent DRAM channels (memory partitions)" }
param { "dram.bus_bits", "int", unit = "bits", default = 384, min = 1, max = 16384,
  desc = "Total DRAM data bus width over all channels" }
param { "dram.transfers_per_clock", "number", unit = "transfers/clock", default = 4, min = 0.5, max = 64,
  desc = "Data transfers per clock.mem_mhz cycle (GDDR5: 4 per command clock, HBM2: 2)" }
param { "dram.latency_ns", "number", unit = "ns", default = 300, min = 0, max = 100000,
  desc = "DRAM access latency beyond an L2 miss (increment)" }
param { "dram.access_bytes", "int", unit = "bytes", default = 32, min = 1, max = 1024,
  desc = "DRAM access granularity; what counts as DRAM traffic per request" }
param { "dram.efficiency", "number", unit = "", default = 1, min = 0.05, max = 1,
  desc = "Share of the peak bandwidth a streaming kernel sustains (row switches, refresh, read/write turnarounds): dram.achievable_gbs = peak x this" }

-- the GPU front end: kernel launch, block dispatch, warp launch, retirement --------
-- Every cost is in core cycles (the front end runs on the SM clock: on two H100s at
-- 1.1 and 1.97 GHz its per-block costs agree within 11 % in cycles and differ 60 % in
-- time; docs/frontend.md).  A block leaves the GPU-wide dispatcher dispatch_cycles after
-- the previous one, waits for its SM's launcher (block_cycles + warp_cycles x its warps,
-- one launch at a time per SM), runs, and frees its slot drain_cycles after its last
-- warp; an SM's warps issue no earlier than warmup_cycles after its first launch.
param { "launch.kernel_cycles", "number", unit = "cycles", default = 0, min = 0, max = 1e9,
  desc = "Kernel launch latency: fixed cycles every launch adds to its blocks' schedule" }
param { "launch.dispatch_cycles", "number", unit = "cycles", default = 0, min = 0, max = 1e6,
  desc = "GPU-wide block dispatch interval: the work distributor hands out one thread block every this many cycles, to any SM" }
param { "launch.block_cycles", "number", unit = "cycles", default = 0, min = 0, max = 1e9,
  desc = "Cost of launching one thread block on an SM (its launcher, one block at a time)" }
param { "launch.warp_cycles", "number", unit = "cycles", default = 0, min = 0, max = 1e6,
  desc = "Cost of launching one warp of a block on an SM, added to launch.block_cycles on the SM's launcher" }
param { "launch.drain_cycles", "number", unit = "cycles", default = 0, min = 0, max = 1e6,
  desc = "Block retirement: cycles from a block's last warp finishing until its slot takes the next block (the launch ends after its last block's)" }
param { "launch.warmup_cycles", "number", unit = "cycles", default = 0, min = 0, max = 1e6,
  desc = "Cold start: an SM's warps issue no earlier than this after its first block launch of a kernel (its instruction and constant caches fill from L2)" }

-- dynamic power (the activity model of gpush.ml.power, docs/ml.md) ----------------
-- Optional (`optional = true`): a preset may leave the group out and take
-- these defaults, which are gpush's 28 nm assumptions (the hd7970 preset
-- gives and sources every one).  Event energies apply at power.vf_high_v;
-- core events scale with (V(f) / power.vf_high_v)^2 on the linear
-- voltage-frequency curve through the two power.vf_* points.
local function power_param(path, unit, default, max, desc)
  param { path, "number", unit = unit, default = default, min = 0, max = max, optional = true, desc = desc }
end
power_param("power.vf_low_mhz", "MHz", 300, 10000, "Core voltage-frequency curve: the clock of its lower point")
power_param("power.vf_low_v", "V", 0.85, 5, "Core voltage-frequency curve: the voltage at power.vf_low_mhz")
power_param("power.vf_high_mhz", "MHz", 925, 10000, "Core voltage-frequency curve: the clock of its upper point")
power_param("power.vf_high_v", "V", 1.175, 5,
  "Core voltage-frequency curve: the voltage at power.vf_high_mhz (event energies apply there)")
power_param("power.issue_pj", "pJ", 100, 1e6, "Fetch, decode and issue of one warp instruction")
power_param("power.alu_lane_pj", "pJ", 4, 1e6, "One active lane of an integer, branch or other ALU instruction")
power_param("power.fp32_lane_pj", "pJ", 12, 1e6, "One active lane of an FP32 or integer multiply-add")
power_param("power.fp64_lane_pj", "pJ", 40, 1e6, "One active lane of an FP64 instruction")
power_param("power.sfu_lane_pj", "pJ", 30, 1e6, "One active lane of a special-function (transcendental) instruction")
power_param("power.scalar_inst_pj", "pJ", 20, 1e6, "One scalar (uniform-datapath) warp instruction")
power_param("power.rf_access_pj", "pJ", 5, 1e6,
  "One 32-bit register-file access of one lane (an ALU lane reads 2 and writes 1, an FMA lane reads 3)")
power_param("power.lds_access_pj", "pJ", 60, 1e6, "One shared-memory (LDS) warp access or extra bank pass")
power_param("power.l1_access_pj", "pJ", 100, 1e6, "One L1 request (a line or sector)")
power_param("power.l2_access_pj", "pJ", 400, 1e6, "One L2 request, including the on-chip network")
power_param("power.dram_byte_pj", "pJ/B", 120, 1e6,
  "One byte moved to or from DRAM (device and interface; not scaled by the core voltage)")
power_param("power.clock_w_per_cu_ghz", "W/(CU GHz)", 0.6, 1e4,
  "Clock tree and always-switching logic per active CU per GHz at power.vf_high_v")
power_param("power.mem_interface_w_per_ghz", "W/GHz", 7, 1e4,
  "Memory controllers and PHY per GHz of clock.mem_mhz, whatever the traffic")

-- Derived values: computed in one place (here), never given in a config.
-- `compute(get)` reads other parameters through `get(path)`; `solve(value, get,
-- set)` maps a value a user sets for the derived parameter back onto the
-- parameter named by `solves`, so a config gives one or the other, never both.
M.derived = {
  { "sm.max_threads", "int", unit = "threads", from = "sm.max_warps",
    desc = "Resident threads per SM at most: sm.max_warps x sm.warp_size",
    compute = function(get) return get("sm.max_warps") * get("sm.warp_size") end },
  { "dram.bandwidth_gbs", "number", unit = "GB/s", min = 0.001, max = 1e6,
    desc = "Peak DRAM bandwidth: clock.mem_mhz x dram.bus_bits/8 x dram.transfers_per_clock; "
      .. "setting it solves for clock.mem_mhz",
    solves = "clock.mem_mhz",
    compute = function(get)
      return get("clock.mem_mhz") * 1e6 * get("dram.bus_bits") / 8
        * get("dram.transfers_per_clock") / 1e9
    end,
    solve = function(value, get, set)
      set("clock.mem_mhz", value * 1e9 / (get("dram.bus_bits") / 8
        * get("dram.transfers_per_clock")) / 1e6)
    end },
  { "dram.achievable_gbs", "number", unit = "GB/s", min = 0.001, max = 1e6, from = "dram.efficiency",
    desc = "DRAM bandwidth a streaming kernel sustains, what every model and bound moves bytes at: "
      .. "dram.bandwidth_gbs x dram.efficiency",
    compute = function(get) return get("dram.bandwidth_gbs") * get("dram.efficiency") end },
}

return M
