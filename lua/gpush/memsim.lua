-- gpush.memsim: the shared memory hierarchy, driven from a configuration.
--
--   local r = memsim.functional(kernel, cfg)
--   for pc_index, pc in pairs(r.pcs) do print(pc.opcode, pc.amat) end
--
-- The functional mode (GPUMech Sec. V) replays the kernel's memory
-- instructions, interleaved round-robin over the co-resident blocks of every
-- SM per wave at this configuration's occupancy, through per-SM L1s and the
-- sliced L2; it reports per static PC the mix of L1 hits, L2 hits and DRAM
-- accesses (by each instruction's slowest request) and the AMAT in core
-- cycles.  Compute capability 1.x configurations have no caches.
local core = require "gpush.core"
local occupancy = require "gpush.occupancy"
local config = require "gpush.config"
local text = require "gpush.text"

local M = {}

-- The L1 capacity in bytes for `blocks` resident blocks of `shared` bytes of
-- shared memory each: l1.size_kb, or with l1.unified_kb what the blocks'
-- shared memory leaves of the combined capacity (at least l1.size_kb).
function M.l1_bytes(cfg, blocks, shared)
  local fixed = math.floor(cfg.l1.size_kb * 1024)
  local unified = math.floor((cfg.l1.unified_kb or 0) * 1024)
  if unified <= 0 then
    return fixed
  end
  return math.max(fixed, unified - blocks * (shared or 0))
end

local function shared_per_block(kernel)
  if type(kernel) == "table" then
    return kernel.shared_bytes or 0
  end
  return kernel:info().shared_bytes_per_block or 0
end

-- The flat parameters of the C model for a configuration and a kernel.
function M.params(cfg, kernel)
  config.check(cfg, 3)
  local blocks = occupancy.for_kernel(cfg, kernel)
  local no_caches = cfg.gpu.compute_capability < 2
  return {
    sms = cfg.sm.count,
    blocks_per_sm = math.max(1, blocks),
    l1_bytes = no_caches and 0 or M.l1_bytes(cfg, math.max(1, blocks), shared_per_block(kernel)),
    l1_line = cfg.l1.line_bytes, l1_ways = cfg.l1.ways, l1_sectored = cfg.l1.sectored,
    l1_write_back = cfg.l1.write_policy == "write_back",
    l2_bytes = no_caches and 0 or math.floor(cfg.l2.size_kb * 1024),
    l2_line = cfg.l2.line_bytes, l2_ways = cfg.l2.ways, l2_sectored = cfg.l2.sectored,
    l2_write_back = cfg.l2.write_policy == "write_back", l2_slices = cfg.l2.slices,
    cache_global = cfg.l1.cache_global,
    dram_access_bytes = cfg.dram.access_bytes,
    l1_latency = cfg.l1.latency,
    l2_latency = cfg.l2.latency,
    -- DRAM latency is given in ns so core-clock sweeps do not scale it
    dram_latency = cfg.dram.latency_ns * cfg.clock.core_mhz / 1000,
    cc1x = no_caches, -- half-warp coalescing before Fermi
    shared_banks = cfg.shared.banks, shared_bank_bytes = cfg.shared.bank_bytes,
    shared_latency = cfg.shared.latency,
    const_latency = cfg.const.latency,
  }
end

-- Parameters of the timed model: the functional ones plus MSHRs, the L2
-- slice service interval and DRAM bandwidth in bytes per core cycle.
function M.timed_params(cfg, kernel)
  local p = M.params(cfg, kernel)
  p.mshrs = cfg.l1.mshrs
  p.l2_interval = cfg.l2.interval
  p.dram_channels = cfg.dram.channels
  p.dram_bytes_per_cycle = cfg.dram.bandwidth_gbs * 1e9 / (cfg.clock.core_mhz * 1e6)
  return p
end

-- Drives the timed model with the kernel (each SM issuing one memory
-- instruction per cycle in the functional order); returns counters, the
-- last return cycle and the achieved DRAM bandwidth in GB/s.
function M.timed_replay(kernel, cfg)
  local params = M.timed_params(cfg, kernel)
  local result, err = core.memsim_timed_replay(kernel, params)
  if not result then
    return nil, err
  end
  local seconds = result.last_dram_done / (cfg.clock.core_mhz * 1e6)
  result.dram_gbs = seconds > 0 and (result.dram_bytes_read + result.dram_bytes_written) / seconds / 1e9 or 0
  result.params = params
  return result
end

-- A stable text of a parameter table, for cache keys (nested tables
-- flattened with dotted keys; fields named in `skip` left out).
function M.params_key(p, skip)
  local parts = {}
  local function walk(t, prefix)
    for _, k in ipairs(text.sorted_keys(t)) do
      local name = prefix .. k
      if not (skip and skip[name]) then
        if type(t[k]) == "table" then
          walk(t[k], name .. ".")
        else
          parts[#parts + 1] = name .. "=" .. tostring(t[k])
        end
      end
    end
  end
  walk(p, "")
  return table.concat(parts, ";")
end

-- The functional mode through a cache: sweeps that vary parameters the
-- memory replay does not read (MSHRs, DRAM bandwidth, latencies of compute
-- pipelines) replay each kernel once.  `cache` is any table the caller keeps;
-- entries are keyed by the kernel and every parameter the replay reads.
function M.functional_cached(kernel, cfg, cache)
  local params = M.params(cfg, kernel)
  local key = tostring(kernel) .. "|" .. M.params_key(params)
  local hit = cache[key]
  if hit then
    return hit
  end
  local result, err = M.functional(kernel, cfg)
  if result then
    cache[key] = result
  end
  return result, err
end

-- Runs the functional mode; returns the result (see csrc/lua/l_memsim.c)
-- with the parameters used, or nil and a message.
function M.functional(kernel, cfg)
  local params = M.params(cfg, kernel)
  local result, err = core.memsim_functional(kernel, params)
  if not result then
    return nil, err
  end
  result.params = params
  return result
end

return M
