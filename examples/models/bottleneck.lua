-- A new model module written in Lua: a first-order bottleneck model.
--
-- A kernel cannot run faster than its slowest shared resource allows, so
-- this model predicts the cycles of each thread-block wave as the largest of
-- four lower bounds and adds the launch costs, like the other gpush models:
--
--   issue   warp instructions of the busiest SM / (schedulers x issue width)
--   dram    DRAM bytes of the wave / DRAM bytes per core cycle
--   mshr    Little's law: L1-missing load requests of the busiest SM x their
--           mean latency below L1 / MSHRs of the SM
--   latency one warp's dependent critical path: GPUMech's representative-warp
--           interval profile (issue slots + stall cycles, Eq. 4)
--
-- It reuses what gpush already computes: the functional memory model
-- (per-PC request counts and AMAT) and GPUMech's representative warp, so the
-- module is short; the same shape fits any new model.  A model module is a
-- table with `name`, `prepare(kernel, base_cfg)` for work that does not depend
-- on the swept parameters (computed once per kernel), and
-- `run(kernel, cfg, prepared, cache)` returning at least `cycles`, `time_us`
-- and `ipc` (plus anything else worth a column): the model contract of
-- gpush.models.  Registered there (models.register("bottleneck", module)),
-- gpush.experiment and the example scripts call it exactly like the built-in
-- models.
local gpumech = assert(require("gpush.models").family("gpumech"))
local memsim = require "gpush.memsim"
local occupancy = require "gpush.occupancy"

local M = { name = "bottleneck" }

-- Per-kernel work shared by every configuration of a sweep: the kernel's
-- summary and GPUMech's representative warp.
function M.prepare(kernel, base_cfg)
  local prepared, err = gpumech.prepare(kernel, base_cfg)
  if not prepared then
    return nil, err
  end
  return { info = kernel:info(), gpumech = prepared }
end

-- The memory model's L1-missing load requests over the kernel and their
-- mean latency: per PC, its L2 hits take the L2 load-to-use latency and its
-- DRAM accesses that plus the DRAM increment (memsim's convention), weighted
-- by the PC's L1-missing requests.
local function l1_misses(mem)
  local l2, dram = mem.params.l2_latency, mem.params.l2_latency + mem.params.dram_latency
  local requests, weighted_latency = 0, 0
  for _, pc in pairs(mem.pcs) do
    local below_l1 = pc.l2_hits + pc.dram
    if pc.l1_miss_requests > 0 and below_l1 > 0 then
      local latency = (pc.l2_hits * l2 + pc.dram * dram) / below_l1
      requests = requests + pc.l1_miss_requests
      weighted_latency = weighted_latency + latency * pc.l1_miss_requests
    end
  end
  return requests, requests > 0 and weighted_latency / requests or 0
end

-- Cycles of one configuration: the largest bound per wave, times the waves,
-- plus launch costs.  Returns the result table and which bound binds.
function M.run(kernel, cfg, prepared, cache)
  prepared = prepared or assert(M.prepare(kernel, cfg))
  local info = prepared.info
  local blocks_per_sm = occupancy.for_kernel(cfg, kernel)
  if blocks_per_sm == 0 then
    return nil, ("bottleneck: kernel '%s' does not fit on one SM of '%s'"):format(info.kernel, cfg._name)
  end
  local mem, err = memsim.functional_cached(kernel, cfg, cache or {})
  if not mem then
    return nil, err
  end
  local blocks = info.thread_blocks
  local waves = math.ceil(blocks / (cfg.sm.count * blocks_per_sm))
  -- the share of the kernel's work on the busiest SM in one wave
  local busiest_sm_share = math.min(blocks, blocks_per_sm) / blocks
  local l1_miss_requests, miss_latency = l1_misses(mem)
  local dram_bytes = mem.dram_bytes_read + mem.dram_bytes_written
  local bytes_per_cycle = cfg.dram.bandwidth_gbs * 1e9 / (cfg.clock.core_mhz * 1e6)
  local profile = gpumech.predict(kernel, cfg, { prepared = prepared.gpumech, memory_cache = cache }).profile
  local bounds = {
    issue = info.warp_instructions * busiest_sm_share / (cfg.sm.schedulers * cfg.sm.issue_width),
    dram = dram_bytes / waves / bytes_per_cycle,
    mshr = l1_miss_requests * busiest_sm_share * miss_latency / cfg.l1.mshrs,
    latency = profile.total_cycles,
  }
  local binding, wave_cycles = "issue", -1
  for _, name in ipairs { "issue", "dram", "mshr", "latency" } do
    if bounds[name] > wave_cycles then
      binding, wave_cycles = name, bounds[name]
    end
  end
  local cycles = waves * (wave_cycles + cfg.launch.block_cycles) + cfg.launch.kernel_cycles
  return {
    kernel = info.kernel, cycles = cycles, time_us = cycles / cfg.clock.core_mhz,
    ipc = info.warp_instructions / cycles, bound = binding, bounds = bounds, waves = waves,
  }
end

return M
