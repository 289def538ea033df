-- gpush.sim: the abstract timing simulator (GATSim-style) over a kernel and
-- a configuration.
--
--   local r = assert(sim.run(kernel, cfg, { policy = "gto" }))
--   r.cycles, r.time_us, r.ipc, r.stalls.memory, r.sm_cycles, r.dram_gbs
--
-- Per-instruction timing comes from the configuration instead of GATSim's
-- one-thread pre-characterisation: each opcode class's ops.<class>.latency
-- and .interval (barriers and DEPBAR use ops.other), the timed memory model
-- for global/local/texture accesses, shared.latency with bank passes, and
-- const.latency.  Thread blocks fill SMs at the configuration's occupancy.
local core = require "gpush.core"
local memsim = require "gpush.memsim"
local occupancy = require "gpush.occupancy"

local M = {}

local pipeline = {
  int = "int", fp32 = "fp32", imad = "imad", fp64 = "fp64", sfu = "sfu", tensor = "tensor",
  uniform = "uniform", branch = "branch", other = "other", barrier = "other",
  barrier_arrive = "other", depbar = "other",
}

-- The simulator's parameters for a configuration and kernel.
function M.params(cfg, kernel, policy)
  local latency, interval = {}, {}
  for class, ops in pairs(pipeline) do
    latency[class] = cfg.ops[ops].latency
    interval[class] = cfg.ops[ops].interval
  end
  return {
    sms = cfg.sm.count, schedulers = cfg.sm.schedulers, issue_width = cfg.sm.issue_width,
    blocks_per_sm = (occupancy.for_kernel(cfg, kernel)),
    policy = policy or "lrr", latency = latency, interval = interval,
    shared_latency = cfg.shared.latency, const_latency = cfg.const.latency,
    shared_banks = cfg.shared.banks, shared_bank_bytes = cfg.shared.bank_bytes,
    block_launch_cycles = cfg.launch.block_cycles, kernel_launch_cycles = cfg.launch.kernel_cycles,
    memory = memsim.timed_params(cfg, kernel),
  }
end

-- Simulates one kernel on one configuration; returns a result table or nil,
-- message.  opts.policy: "lrr" (default) or "gto".
function M.run(kernel, cfg, opts)
  opts = opts or {}
  local policy = opts.policy or "lrr"
  if policy ~= "lrr" and policy ~= "gto" then
    error(("gpush.sim.run: policy must be 'lrr' or 'gto', got '%s'"):format(tostring(policy)), 2)
  end
  local info = kernel:info()
  local params = M.params(cfg, kernel, policy)
  if params.blocks_per_sm == 0 then
    local _, limit = occupancy.for_kernel(cfg, kernel)
    return nil, ("sim: kernel '%s' does not fit on one SM of '%s' (limit: %s)"):format(info.kernel, cfg._name, limit)
  end
  local r, err = core.sim_run(kernel, params)
  if not r then
    return nil, err
  end
  local seconds = r.cycles / (cfg.clock.core_mhz * 1e6)
  r.kernel, r.launch, r.policy = info.kernel, info.launch, policy
  r.warp_instructions = r.issued
  r.time_us = r.cycles / cfg.clock.core_mhz
  r.ipc = r.cycles > 0 and r.issued / r.cycles or 0
  r.dram_gbs = seconds > 0 and (r.dram_bytes_read + r.dram_bytes_written) / seconds / 1e9 or 0
  r.blocks_per_sm = params.blocks_per_sm
  r.warnings = {}
  if info.thread_blocks < cfg.sm.count * params.blocks_per_sm then
    r.warnings[1] = ("sub-wave kernel: %d blocks for %d SMs x %d blocks"):format(info.thread_blocks,
      cfg.sm.count, params.blocks_per_sm)
  end
  return r
end

return M
