-- gpush.models.sim (also gpush.sim): the abstract timing simulator
-- (GATSim-style) over a kernel and a configuration, a model family of
-- gpush.models.
--
--   local r = assert(sim.run(kernel, cfg, { policy = "gto" }))
--   models.get("sim", { policy = "gto" })   -- the sweep model (M.new)
--   r.cycles, r.time_us, r.ipc, r.stalls.memory, r.sm_cycles, r.dram_gbs,
--   r.stall_shares (of the active cycles), r.idle_share, r.bottleneck,
--   r.per_pc, r.pc_stalls, r.line_stalls, r.sm_utilisation, r.counters
--
-- opts.policy: "lrr" (default), "gto", "two-level" (active set of
-- cfg.sm.active_warps warps per scheduler) or a Lua function
-- policy(where, candidates) -> index, called for every issue (slower; see
-- docs/sim.md).
-- Per-instruction timing comes from the configuration instead of GATSim's
-- one-thread pre-characterisation: each opcode class's ops.<class>.latency
-- and .interval (barriers and DEPBAR use ops.other), the timed memory model
-- for global/local/texture accesses, shared.latency with bank passes, and
-- const.latency.  Thread blocks fill SMs at the configuration's occupancy.
local bounds = require "gpush.bounds"
local core = require "gpush.core"
local config = require "gpush.config"
local occupancy = require "gpush.occupancy"
local sampling = require "gpush.sampling"
local vocabulary = require "gpush.models.vocabulary"

local M = {}

-- The simulator's inputs for a configuration and kernel: the machine
-- (gpush.machine, which every model shares), and the options core.sim_run
-- takes: the kernel's occupancy and the policy.
function M.params(cfg, kernel, policy)
  local m, blocks = bounds.machine(cfg, kernel)
  return m, { blocks_per_sm = blocks, policy = policy or "lrr" }
end

local builtin = { lrr = true, gto = true, ["two-level"] = true }

-- Instruction classes by Wu et al.'s Table II instruction-mix features; the
-- uniform datapath stands in for AMD's scalar ALU.
local mix = {
  valu_insts = { "int", "fp32", "imad", "fp64", "sfu", "tensor" },
  salu_insts = { "uniform" },
  vfetch_insts = { "ld_global", "ld_local", "tex", "atom_global", "ldgsts" },
  sfetch_insts = { "ld_const" },
  vwrite_insts = { "st_global", "st_local" }, -- also the stores of WriteUnitStalled (store_lsu_stall_cycles in C)
  lds_insts = { "ld_shared", "st_shared", "atom_shared" },
  other_insts = { "branch", "other", "barrier", "barrier_arrive", "depbar" },
}

local function sum_classes(counts, classes)
  local n = 0
  for _, c in ipairs(classes) do
    n = n + counts[c]
  end
  return n
end

local function ratio(a, b)
  return b > 0 and a / b or 0
end

-- Counters after Wu et al.'s Table II from the simulator's raw counts.
local function counters(r, cfg, kernel_info, blocks_per_sm)
  local c = r.counts
  local issued, sched = r.issued, c.scheduler_cycles
  local out = {}
  local n = {}
  for name, classes in pairs(mix) do
    n[name] = sum_classes(c.class_issued, classes)
    out[name] = ratio(n[name], issued)
  end
  local valu_lanes = sum_classes(c.class_lanes, mix.valu_insts)
  local busy_cycles = r.cycles - cfg.launch.kernel_cycles
  local seconds = r.cycles / (cfg.clock.core_mhz * 1e6)
  out.valu_utilization = ratio(valu_lanes, n.valu_insts * cfg.sm.warp_size)
  out.valu_busy = ratio(n.valu_insts, sched)
  out.salu_busy = ratio(n.salu_insts, sched)
  out.l1_hit_rate = ratio(c.l1_hits, c.l1_accesses)
  out.l2_hit_rate = ratio(c.l2_hits, c.l2_accesses)
  out.lsu_busy = ratio(c.lsu_busy_cycles, sched)
  out.lsu_stalled = ratio(r.stalls.lsu_busy, sched)
  -- the stores among them: scheduler cycles a store waited for the busy LSU
  -- (the LSU is one unit for loads and stores; Table II's WriteUnitStalled)
  out.write_unit_stalled = ratio(c.store_lsu_stall_cycles, sched)
  out.memory_wait = ratio(r.stalls.memory, sched)
  out.bank_conflicts = c.bank_conflicts
  out.bank_conflict = ratio(c.bank_extra_passes, sched)
  out.occupancy = math.min(1, blocks_per_sm * kernel_info.warps_per_block / cfg.sm.max_warps)
  out.achieved_occupancy = ratio(c.resident_warp_cycles, cfg.sm.count * busy_cycles * cfg.sm.max_warps)
  out.ipc = ratio(issued, r.cycles)
  out.dram_bytes_read, out.dram_bytes_written = r.dram_bytes_read, r.dram_bytes_written
  out.read_bandwidth_gbs = ratio(r.dram_bytes_read, seconds) / 1e9
  out.write_bandwidth_gbs = ratio(r.dram_bytes_written, seconds) / 1e9
  out.fetch_per_load_byte = ratio(n.vfetch_insts, r.dram_bytes_read)
  out.write_per_store_byte = ratio(n.vwrite_insts, r.dram_bytes_written)
  out.num_work_groups = math.min(kernel_info.thread_blocks, 320)
  return out
end

-- The stall reasons in a fixed order: sums over them are the same bit for
-- bit on every run (a pairs() walk's order is not).
M.STALL_REASONS = { "issued", "dependence", "memory", "lsu_busy", "sfu_busy", "unit_busy", "barrier",
  "no_eligible_warp", "idle" }

-- The reasons a scheduler with a block resident can have: every one but
-- idle.  Shares of these (M.active_shares) sum to 1 over the cycles the
-- schedulers were active; idle is reported apart.
M.ACTIVE_REASONS = {}
for _, reason in ipairs(M.STALL_REASONS) do
  if reason ~= "idle" then
    M.ACTIVE_REASONS[#M.ACTIVE_REASONS + 1] = reason
  end
end

-- Each active reason's share of the active scheduler cycles {reason =
-- share}, the active cycles (scheduler cycles with a block resident) and
-- all scheduler cycles (every scheduler of every SM from the kernel's first
-- cycle to its last issue; the kernel launch apart), from a stalls table
-- {reason = cycles}.
function M.active_shares(stalls)
  local total, active, shares = 0, 0, {}
  for _, reason in ipairs(M.STALL_REASONS) do
    total = total + (stalls[reason] or 0)
  end
  for _, reason in ipairs(M.ACTIVE_REASONS) do
    active = active + (stalls[reason] or 0)
  end
  for _, reason in ipairs(M.ACTIVE_REASONS) do
    shares[reason] = active > 0 and (stalls[reason] or 0) / active or 0
  end
  return shares, active, total
end

-- The per-PC table of a run (the binding's per_pc list, in static order):
-- r.pc_stalls as before ({pc, opcode, class, line, total, stalls} for every PC
-- with cycles, in static order, every reason a key), and r.per_pc, every
-- PC that executed or was charged cycles as {pc, opcode, line, executions,
-- cycles, stalls = {reason = cycles}} over the reasons a PC can be charged
-- (M.PC_REASONS), costliest first (ties: lower PC first).
local function per_pc_tables(r)
  local pc_stalls, per_pc = {}, {}
  for _, p in ipairs(r.per_pc) do
    if p.cycles > 0 then
      pc_stalls[#pc_stalls + 1] = { pc = p.pc, opcode = p.opcode, class = p.class, line = p.line, total = p.cycles,
        stalls = p.stalls }
    end
    local stalls = {}
    for _, reason in ipairs(M.PC_REASONS) do
      stalls[reason] = p.stalls[reason]
    end
    per_pc[#per_pc + 1] = { pc = p.pc, opcode = p.opcode, line = p.line, executions = p.executions,
      cycles = p.cycles, stalls = stalls }
  end
  table.sort(per_pc, function(a, b)
    if a.cycles ~= b.cycles then
      return a.cycles > b.cycles
    end
    return a.pc < b.pc
  end)
  r.pc_stalls, r.per_pc = pc_stalls, per_pc
end

-- Simulates one kernel on one configuration; returns a result table or nil,
-- message.  opts.policy: "lrr" (default), "gto", "two-level" or a function;
-- opts.per_pc: false skips the per-PC accounting (r.per_pc, r.pc_stalls,
-- r.line_stalls), which a sweep does not read; true or nil keeps it.
function M.run(kernel, cfg, opts)
  opts = opts or {}
  local policy = opts.policy or "lrr"
  if type(policy) ~= "function" and not builtin[policy] then
    error(("gpush.sim.run: policy must be 'lrr', 'gto', 'two-level' or a function, got '%s'"):format(tostring(policy)), 2)
  end
  config.check(cfg, 2)
  local info = kernel:info()
  local m, params = M.params(cfg, kernel, policy)
  params.per_pc = opts.per_pc ~= false
  if params.blocks_per_sm == 0 then
    local _, limit = occupancy.for_kernel(cfg, kernel)
    return nil, ("sim: kernel '%s' does not fit on one SM of '%s' (limit: %s)"):format(info.kernel, cfg._name, limit)
  end
  local r, err = core.sim_run(kernel, m, params)
  if not r then
    return nil, err
  end
  local seconds = r.cycles / (cfg.clock.core_mhz * 1e6)
  r.kernel, r.launch = info.kernel, info.launch
  r.policy = type(policy) == "function" and "lua" or policy
  r.warp_instructions = r.issued
  r.time_us = r.cycles / cfg.clock.core_mhz
  r.ipc = r.cycles > 0 and r.issued / r.cycles or 0
  r.dram_gbs = seconds > 0 and (r.dram_bytes_read + r.dram_bytes_written) / seconds / 1e9 or 0
  r.blocks_per_sm = params.blocks_per_sm
  -- r.sm_utilisation, r.sm_active: per SM, the share of its schedulers' cycles that
  -- issued, and that had a block resident (not idle), from the binding
  r.counters = counters(r, cfg, info, params.blocks_per_sm)
  local scheduler_cycles
  r.stall_shares, r.active_cycles, scheduler_cycles = M.active_shares(r.stalls)
  r.idle_share = ratio(r.stalls.idle, scheduler_cycles)
  r.bottleneck, r.bottleneck_detail = M.bottleneck(r, cfg)
  if r.per_pc then
    per_pc_tables(r)
  end
  r.warnings = {}
  if info.thread_blocks < cfg.sm.count * params.blocks_per_sm then
    r.warnings[1] = ("sub-wave kernel: %d blocks for %d SMs x %d blocks"):format(info.thread_blocks,
      cfg.sm.count, params.blocks_per_sm)
  end
  if info.warnings ~= "" then -- the trace's own (blocks it does not list, unknown opcodes, ...)
    r.warnings[#r.warnings + 1] = info.warnings
  end
  return r
end

-- The sweep model (the contract in gpush.models) -----------------------------

-- The bottleneck label of each stall reason (each scheduler cycle goes to
-- exactly one reason, csrc/core/sim/sim.h's gp_stall order).  `issued` is
-- BASE, as in GPUMech's stack (Table III: 1 / issue rate per instruction; a
-- cycle that issues two instructions counts once, so issued cycles per
-- instruction are 1 / issue rate too).  `dependence` is DEP (waiting for a
-- compute producer: GPUMech's DEP).  `memory` (waiting for a load) is MEM:
-- what GPUMech splits into L1, L2, DRAM, MSHR and QUEUE, one category here
-- because the simulator does not record which level a load waited on.  The
-- rest have no GPUMech counterpart and keep their own labels: a busy LSU,
-- SFU or other unit (structural), a barrier, resident warps with nothing
-- left to issue (NO_WARP: a block's tail), no block resident (IDLE: load
-- imbalance, the kernel's tail, and warps waiting for their launch or their
-- SM's warm-up: the front end).
M.STALL_LABELS = { issued = "BASE", dependence = "DEP", memory = "MEM", lsu_busy = "LSU", sfu_busy = "SFU",
  unit_busy = "UNIT", barrier = "BARRIER", no_eligible_warp = "NO_WARP", idle = "IDLE" }

-- The reasons a static instruction can be charged (idle and
-- no_eligible_warp cycles have no PC).
M.PC_REASONS = {}
for _, reason in ipairs(M.ACTIVE_REASONS) do
  if reason ~= "no_eligible_warp" then
    M.PC_REASONS[#M.PC_REASONS + 1] = reason
  end
end

-- Each active stall reason's label in the bottleneck vocabulary
-- (gpush.models.vocabulary): issuing is ISSUE; waiting for a compute
-- producer or for a load is LATENCY (the simulator does not record which
-- level a load waited on, nor for how long it queued); a busy LSU is LSU,
-- a busy SFU or other unit PIPE; a barrier BARRIER; resident warps with
-- nothing left to issue wait for their block's longest warp (LATENCY).
-- Idle cycles (no block resident) have no label: reported apart.
M.BOTTLENECK = vocabulary.check_map({ issued = "ISSUE", dependence = "LATENCY", memory = "LATENCY",
  lsu_busy = "LSU", sfu_busy = "PIPE", unit_busy = "PIPE", barrier = "BARRIER", no_eligible_warp = "LATENCY" },
  "sim")

-- How busy a run kept the DRAM (its bytes over the achievable bandwidth,
-- dram.achievable_gbs) and the L2 slices (its L2 requests x l2.interval
-- over l2.slices), over the kernel's body (the kernel launch apart).
function M.memory_busy(r, cfg)
  local body = math.max(r.cycles - cfg.launch.kernel_cycles, 1)
  local bytes_per_cycle = cfg.dram.achievable_gbs * 1e3 / cfg.clock.core_mhz
  local dram = (r.dram_bytes_read + r.dram_bytes_written) / (bytes_per_cycle * body)
  local l2 = cfg.l2.slices > 0 and r.counts.l2_accesses * cfg.l2.interval / (cfg.l2.slices * body) or 0
  return dram, l2
end

-- The bottleneck of a run `r` (M.run's result on configuration `cfg`) in
-- the vocabulary: the label whose active stall reasons hold the most
-- scheduler cycles, with loads' waits counted as DRAM, or else L2, when
-- the run kept that resource vocabulary.SATURATED busy or more (M.memory_busy; the
-- simulator does not measure how long requests queue for an MSHR, so an
-- MSHR-bound run reads LATENCY).  An issue-bound run is named after the
-- busiest of its issue slots (the warp instructions / sm.issue_width) and
-- units (r.counts' unit_busy_cycles: a pipe narrower than the issue rate,
-- the LSU), each over the active scheduler cycles, when that one is
-- saturated, and after its largest stall otherwise
-- (vocabulary.refine_issue).  Returns the label and the own label of the
-- reason (M.STALL_LABELS), or the unit's name, that gave it ("", "" when
-- no scheduler was active).
function M.bottleneck(r, cfg)
  local map = M.BOTTLENECK
  local dram, l2 = M.memory_busy(r, cfg)
  if dram >= vocabulary.SATURATED or l2 >= vocabulary.SATURATED then
    map = setmetatable({ memory = dram >= vocabulary.SATURATED and "DRAM" or "L2" }, { __index = M.BOTTLENECK })
  end
  local label, reason = vocabulary.largest(r.stalls, map, M.ACTIVE_REASONS)
  local active = math.max(r.active_cycles, 1)
  local busy, names, unit_labels = {}, {}, {}
  for name, cycles in pairs(r.counts.unit_busy_cycles) do
    busy[name], names[#names + 1], unit_labels[name] = cycles / active, name, name == "lsu" and "LSU" or "PIPE"
  end
  table.sort(names)
  local detail
  label, detail = vocabulary.refine_issue(label, reason, r.issued / cfg.sm.issue_width / active, busy, unit_labels,
    names, r.stalls, map, M.ACTIVE_REASONS)
  return label or "", M.STALL_LABELS[detail] or detail or ""
end

-- The label of the largest non-issued stall reason (BASE when every cycle
-- issued), like gpumech.dominant for a CPI stack; equal shares go to the
-- first in M.STALL_REASONS order.  Over every scheduler cycle, idle ones
-- included (as it always was); M.bottleneck reads the active ones.
function M.dominant(stalls)
  local best, value = "issued", 0
  for _, name in ipairs(M.STALL_REASONS) do
    local v = stalls[name] or 0
    if name ~= "issued" and v > value then
      best, value = name, v
    end
  end
  return M.STALL_LABELS[best]
end

-- The totals a sweep row is made of, from a result of M.run: cycles,
-- warp instructions issued, the scheduler cycles of each stall reason, the
-- DRAM bytes moved, the L2 requests and each unit's busy cycles (what
-- M.bottleneck reads).  Sampling extrapolates these (gpush.sampling);
-- everything in the row follows from them.
local function totals_of(r)
  local stalls, busy = {}, {}
  for _, s in ipairs(M.STALL_REASONS) do
    stalls[s] = r.stalls[s]
  end
  for name, cycles in pairs(r.counts.unit_busy_cycles) do
    busy[name] = cycles
  end
  return { cycles = r.cycles, issued = r.issued, stalls = stalls, dram_bytes_read = r.dram_bytes_read,
    dram_bytes_written = r.dram_bytes_written, counts = { l2_accesses = r.counts.l2_accesses, unit_busy_cycles = busy } }
end

-- A sweep row from totals (whole or extrapolated): the shares over every
-- scheduler cycle, and over the active ones with the bottleneck.
local function row_of(totals, cfg)
  local cycles, issued = totals.cycles, totals.issued
  local seconds = cycles / (cfg.clock.core_mhz * 1e6)
  local achieved = seconds > 0 and (totals.dram_bytes_read + totals.dram_bytes_written) / seconds / 1e9 or 0
  local shares, active, scheduler_cycles = M.active_shares(totals.stalls)
  totals.active_cycles = active
  local bottleneck, detail = M.bottleneck(totals, cfg)
  local row = { cycles = cycles, time_us = cycles / cfg.clock.core_mhz, ipc = cycles > 0 and issued / cycles or 0,
    achieved_gbs = achieved, dram_util = achieved / cfg.dram.bandwidth_gbs, dominant = M.dominant(totals.stalls),
    cpi = issued > 0 and scheduler_cycles / issued or 0, bottleneck = bottleneck, bottleneck_detail = detail,
    active_cpi = issued > 0 and active / issued or 0, idle_share = ratio(totals.stalls.idle, scheduler_cycles) }
  for _, s in ipairs(M.STALL_REASONS) do
    row["stall_" .. s] = scheduler_cycles > 0 and totals.stalls[s] / scheduler_cycles or 0
  end
  for _, s in ipairs(M.ACTIVE_REASONS) do
    row["active_" .. s] = shares[s]
  end
  return row
end

-- The launch's totals from samples of its first blocks when the sweep
-- allows it (ctx.sample) and the launch is long enough (gpush.sampling);
-- nil when it is simulated whole.
local function sampled_totals(kernel, cfg, policy, cache, ctx)
  if not (ctx and ctx.sample and cache) then
    return nil
  end
  local _, params = M.params(cfg, kernel, policy)
  local plan = sampling.plan(kernel:info().thread_blocks, cfg.sm.count * params.blocks_per_sm)
  if not plan then
    return nil
  end
  local totals, how = sampling.measure(kernel, plan, cache, function(k)
    local r, err = M.run(k, cfg, { policy = policy, per_pc = false })
    return r and totals_of(r), err
  end)
  if not totals then
    return nil
  end
  for _, s in ipairs(M.STALL_REASONS) do -- a share that shrinks may extrapolate below 0
    totals.stalls[s] = math.max(0, totals.stalls[s])
  end
  totals.issued = kernel:info().warp_instructions
  return totals, how
end

-- The simulator under a policy ("lrr"|"gto"), as a model of a sweep:
-- cycles, time_us, ipc, achieved_gbs, dram_util, cpi (scheduler cycles per
-- warp instruction: every SM's schedulers over the kernel, idle ones
-- included, divided by the warp instructions), the dominant stall reason
-- (M.dominant, idle included) and the stall shares stall_<reason> (each
-- reason's share of all scheduler cycles; they sum to 1); over the active
-- scheduler cycles only (a block resident), idle apart: active_cpi (active
-- scheduler cycles per warp instruction, GPUMech's per-scheduler CPI),
-- active_<reason> (each active reason's share of them; they sum to 1),
-- idle_share (= stall_idle) and the bottleneck in the shared vocabulary
-- with the reason's own label (M.bottleneck); and whether the row was
-- `sampled` with the blocks simulated for it (`simulated_blocks`: the
-- launch's blocks when simulated whole).  No per-PC accounting, no
-- per-kernel preparation.  In a sweep that samples (ctx.sample,
-- docs/experiments.md), a launch of many waves is extrapolated from its
-- first waves (gpush.sampling); at the point where ctx.check_sample is set
-- the whole launch is simulated too and `sample_error` is the relative
-- difference of the sampled cycles from it.  opts: policy, name.
function M.new(opts)
  opts = opts or {}
  local policy = opts.policy or "lrr"
  local columns = { "cycles", "time_us", "ipc", "cpi", "achieved_gbs", "dram_util", "dominant" }
  for _, s in ipairs(M.STALL_REASONS) do
    columns[#columns + 1] = "stall_" .. s
  end
  for _, c in ipairs { "bottleneck", "bottleneck_detail", "active_cpi", "idle_share" } do
    columns[#columns + 1] = c
  end
  for _, s in ipairs(M.ACTIVE_REASONS) do
    columns[#columns + 1] = "active_" .. s
  end
  columns[#columns + 1] = "sampled"
  columns[#columns + 1] = "simulated_blocks"
  return {
    name = opts.name or ("sim-" .. policy),
    columns = columns,
    run = function(kernel, cfg, _, cache, ctx)
      local info = kernel:info()
      local totals, how = sampled_totals(kernel, cfg, policy, cache, ctx)
      local full
      if not totals or (ctx and ctx.check_sample) then
        local r, err = M.run(kernel, cfg, { policy = policy, per_pc = false })
        if not r then
          return nil, err
        end
        full = totals_of(r)
      end
      local row
      if totals then
        row = row_of(totals, cfg)
        row.sampled, row.simulated_blocks = true, how.blocks
        if full then
          row.sample_error = (totals.cycles - full.cycles) / full.cycles
        end
      else
        row = row_of(full, cfg)
        row.sampled, row.simulated_blocks = false, info.thread_blocks
      end
      return row
    end,
  }
end

return M
