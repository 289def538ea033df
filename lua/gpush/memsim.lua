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
local machine = require "gpush.machine"
local occupancy = require "gpush.occupancy"
local text = require "gpush.text"

local M = {}

-- The L1 capacity in bytes for `blocks` resident blocks of `shared` bytes of
-- shared memory each: l1.size_kb, or with l1.unified_kb what the blocks'
-- shared memory leaves of the combined capacity (at least l1.size_kb).
function M.l1_bytes(cfg, blocks, shared)
  return machine.of(cfg, 2):l1_bytes(blocks, shared or 0)
end

local function shared_per_block(kernel)
  if type(kernel) == "table" then
    return kernel.shared_bytes or 0
  end
  return kernel:info().shared_bytes_per_block or 0
end

-- The machine of a configuration and a kernel's occupancy on it (at least
-- one block, as the memory model replays every kernel).
local function fit(cfg, kernel, level)
  local m = machine.of(cfg, level + 1)
  return m, math.max(1, (occupancy.for_kernel(cfg, kernel)))
end

-- The memory configuration the functional mode runs with for a
-- configuration and a kernel (derived in C from the machine: caches,
-- latencies in cycles, shared memory, half-warp coalescing below compute
-- capability 2.0), as a table: sms, blocks_per_sm, l1_bytes, ...
-- (csrc/lua/l_machine.c).
function M.params(cfg, kernel)
  local m, blocks = fit(cfg, kernel, 2)
  return m:memsim(blocks, shared_per_block(kernel))
end

-- The timed model's: the functional ones plus MSHRs, the L2 slice service
-- interval, the DRAM channels and bandwidth in bytes per core cycle.
function M.timed_params(cfg, kernel)
  local m, blocks = fit(cfg, kernel, 2)
  return m:timed(blocks, shared_per_block(kernel))
end

-- Drives the timed model with the kernel (each SM issuing one memory
-- instruction per cycle in the functional order); returns counters, the
-- last return cycle and the achieved DRAM bandwidth in GB/s.
function M.timed_replay(kernel, cfg)
  local m, blocks = fit(cfg, kernel, 2)
  local result, err = core.memsim_timed_replay(kernel, m, blocks)
  if not result then
    return nil, err
  end
  local seconds = result.last_dram_done / (cfg.clock.core_mhz * 1e6)
  result.dram_gbs = seconds > 0 and (result.dram_bytes_read + result.dram_bytes_written) / seconds / 1e9 or 0
  result.params = m:timed(blocks, shared_per_block(kernel))
  return result
end

-- A stable text of a parameter table, for cache keys (nested tables
-- flattened with dotted keys; fields named in `skip` left out).  Without
-- `skip`, built in C (core.params_key: 12 us a key in this walk) where C
-- can answer; the walk otherwise.
function M.params_key(p, skip)
  local key = not skip and core.params_key(p)
  if key then
    return key
  end
  return M.params_key_walk(p, skip)
end

-- M.params_key's walk in Lua (the definition core.params_key follows).
function M.params_key_walk(p, skip)
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

local math_type = math.type

-- M.params_equal's walk in Lua, comparing printed leaves.
local function printed_equal(a, b)
  for k, v in pairs(a) do
    local w = b[k]
    if type(v) == "table" then
      if type(w) ~= "table" or not printed_equal(v, w) then
        return false
      end
    elseif type(w) == "table" or w == nil then
      return false
    -- equal values of one number subtype print alike (but 0.0 and -0.0
    -- do not): no strings to build
    elseif not (v == w and (type(v) ~= "number" or (math_type(v) == math_type(w) and v ~= 0)))
      and tostring(v) ~= tostring(w) then
      return false
    end
  end
  for k in pairs(b) do
    if a[k] == nil then
      return false
    end
  end
  return true
end

-- Whether two parameter tables give the same M.params_key (the same keys,
-- nested alike, each leaf with the same tostring), without building the
-- keys.  The usual case, the same values (the bounds check a replay's
-- parameters once per launch), is answered in C (core.params_same, about
-- 1 M instructions less than this walk over 16 launches); the walk, only
-- where that answers false (different, or leaves that differ yet may
-- print alike).
function M.params_equal(a, b)
  return core.params_same(a, b) or printed_equal(a, b)
end

-- The functional mode of kernel k on machine m at `blocks` (>= 1)
-- resident blocks of `shared` bytes of shared memory each, through `cache`
-- (nil: none): sweeps that vary parameters the memory replay does not read
-- (MSHRs, DRAM bandwidth, latencies of compute pipelines) replay each kernel
-- once, since entries are keyed by the kernel and every parameter the
-- replay reads.  The cache also keeps the kernel's replay preparation
-- (core.memsim_prepare: each warp's memory instructions in order, the bank
-- passes), so its replays at other occupancies neither scan the kernel nor
-- count the passes again.  Returns the result (see csrc/lua/l_memsim.c)
-- with the parameters used, or nil and a message.  GPUMech calls it with
-- what it knows already.  The entries' keys are core.memsim_key's (equal
-- where params_key of the parameters is, read from the machine without
-- building the table: a sweep looks its replay up at every point).
-- `carry` (core.memsim_carry, with a cache only): the replays of a
-- sampled launch's prefixes at one configuration share it, each going on
-- from the last one's full waves (the same results).
function M.replay(kernel, m, blocks, shared, cache, carry)
  local key = cache and tostring(kernel) .. "|" .. core.memsim_key(m, blocks, shared)
  local hit = key and cache[key]
  if hit then
    return hit
  end
  local params = m:memsim(blocks, shared)
  local prep
  if cache then
    local prep_key = tostring(kernel) .. "|prep"
    prep = cache[prep_key]
    if not prep then
      local err
      prep, err = core.memsim_prepare(kernel)
      if not prep then
        return nil, err
      end
      cache[prep_key] = prep
    end
  end
  local result, err = core.memsim_replay(kernel, m, blocks, prep, cache and carry)
  if not result then
    return nil, err
  end
  result.params = params
  -- the per-PC table on first use (GPUMech reads the replay in C)
  setmetatable(result, { __index = function(t, k)
    if k == "pcs" then
      rawset(t, k, t.replay:pcs(kernel))
      return rawget(t, k)
    end
  end })
  if key then
    cache[key] = result
  end
  return result
end

-- The functional mode through a cache (M.replay's): `cache` is any table
-- the caller keeps.
function M.functional_cached(kernel, cfg, cache)
  local m, blocks = fit(cfg, kernel, 2)
  return M.replay(kernel, m, blocks, shared_per_block(kernel), cache)
end

-- Runs the functional mode; returns the result (see csrc/lua/l_memsim.c)
-- with the parameters used, or nil and a message.
function M.functional(kernel, cfg)
  local m, blocks = fit(cfg, kernel, 2)
  return M.replay(kernel, m, blocks, shared_per_block(kernel))
end

return M
