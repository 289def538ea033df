-- gpush.workloads.analytic: what a synthetic kernel asks of a machine,
-- computed from its description without building it (docs/workloads.md).
--
--   local counts, info = analytic.counts(desc, cfg)
--   local b = bounds.compute(counts, cfg, analytic.geometry(desc))
--
-- counts has the fields of gpush.bounds' counts (instructions per class,
-- LSU cycles, bank passes, L2 / MSHR / DRAM traffic, dependence paths);
-- info has the description's footprint (distinct bytes it touches), its
-- DRAM bytes, FLOPs and FLOP/byte.  Instruction counts, LSU lines and bank
-- passes follow the generator's own address rules and are exact (up to the
-- expected value of seeded draws); cache traffic is a capacity model: a
-- stream whose distinct bytes fit the cache (L1 per SM for classes L1
-- caches, else L2) misses once per sector, every access of a stream that
-- does not fit misses.  The spec compares both with the built kernel's
-- counts (gpush.bounds.kernel).
local machine = require "gpush.machine"
local memsim = require "gpush.memsim"
local occupancy = require "gpush.occupancy"

local M = {}

local LINE, SECTOR = 128, 32

-- What a class without a compute pipeline does here, from gpush.machine's
-- class facts: shared memory, a cached load, store or atomic, or a constant
-- load.
local memory = {}
for _, c in ipairs(machine.CLASSES) do
  if c.shared then
    memory[c.name] = "shared"
  elseif c.cache then
    memory[c.name] = c.store and "store" or c.atomic and "atomic" or "load"
  elseif not c.pipeline then
    memory[c.name] = "const"
  end
end
local flops_per_lane = { fp32 = 2, fp64 = 2 } -- FFMA and DFMA

local function product(v)
  if type(v) == "number" then
    return v
  end
  return (v[1] or 1) * (v[2] or 1) * (v[3] or 1)
end

-- The occupancy geometry of a description (gpush.occupancy's input).
function M.geometry(desc)
  return { threads = product(desc.block), registers = desc.regs or 32, shared_bytes = desc.shmem or 0 }
end

local function deps_of(op)
  if type(op.dep) == "table" then
    return op.dep
  end
  return (op.dep and op.dep > 0) and { op.dep } or {}
end

-- Distinct 128 B lines and 32 B sectors of lane addresses.
local function lines_and_sectors(addrs, width)
  local lines, sectors, nl, ns = {}, {}, 0, 0
  for _, a in ipairs(addrs) do
    for s = a // SECTOR, (a + width - 1) // SECTOR do
      if not sectors[s] then
        sectors[s], ns = true, ns + 1
      end
      local l = s * SECTOR // LINE
      if not lines[l] then
        lines[l], nl = true, nl + 1
      end
    end
  end
  return nl, ns
end

-- Lines and sectors one warp instruction of a stream touches, as the
-- generator forms its lanes (csrc/core/synth.c lane_address): coalesced and
-- strided exactly for warp 0, random as the expected distinct lines of
-- `lanes` uniform draws, chase one element.
local function access_shape(s, width, lanes)
  local footprint = s.footprint or (1 << 24)
  if s.kind == "coalesced" or s.kind == "strided" then
    local step = s.kind == "coalesced" and width or (s.stride or 4)
    local addrs = {}
    for l = 0, lanes - 1 do
      addrs[#addrs + 1] = (l * step) % footprint
    end
    return lines_and_sectors(addrs, width)
  elseif s.kind == "random" then
    local nlines = math.max(1, footprint // LINE)
    local nsectors = math.max(1, footprint // SECTOR)
    return nlines * (1 - (1 - 1 / nlines) ^ lanes), nsectors * (1 - (1 - 1 / nsectors) ^ lanes)
  end
  return 1, 1 -- chase: every lane reads one element
end

-- Bank passes of a shared-memory access (memsim's gp_shared_passes on the
-- generator's offsets: lane l at l x stride).
local function bank_passes(s, width, lanes, banks, bank_bytes)
  local per_bank, seen, worst = {}, {}, 0
  for l = 0, lanes - 1 do
    local offset = (l * (s.stride or 4)) % (s.footprint or 4096)
    for word = offset // bank_bytes, (offset + width - 1) // bank_bytes do
      if not seen[word] then
        seen[word] = true
        local b = word % banks
        per_bank[b] = (per_bank[b] or 0) + 1
        if per_bank[b] > worst then
          worst = per_bank[b]
        end
      end
    end
  end
  return math.max(1, worst)
end

-- Distinct bytes, lines and sectors a stream's accesses cover over the
-- kernel: `execs` warp instructions of 32 lanes x `width` bytes over
-- `epochs` distinct address sets (random: the expected distinct units of
-- the draws; a touched element brings its whole sector and line).
local function distinct(s, width, warps, epochs, execs)
  local footprint = s.footprint or (1 << 24)
  if s.kind == "coalesced" or s.kind == "strided" then
    local step = s.kind == "coalesced" and width or math.max(s.stride or 4, width)
    local bytes = math.min(footprint, warps * 32 * epochs * step)
    if s.kind == "strided" and step > width then
      return bytes * width / step, math.ceil(bytes / math.max(LINE, step)),
        math.ceil(bytes / math.max(SECTOR, step))
    end
    return bytes, math.ceil(bytes / LINE), math.ceil(bytes / SECTOR)
  end
  local draws = s.kind == "random" and execs * 32 or warps * epochs
  local function covered(units)
    return units * (1 - math.exp(-draws / units))
  end
  local lines, sectors = covered(math.max(1, footprint / LINE)), covered(math.max(1, footprint / SECTOR))
  return math.min(footprint, draws * width), lines, sectors
end

-- The share of a stream's line requests whose line another request also
-- touches (only those can hit a cache; the others are cold misses):
-- coalesced and strided streams wrap round their footprint, so a line is
-- reread once the requests outnumber the distinct lines; random and chase
-- requests land on footprint / 128 lines at random.
local function reread_share(s, u)
  local requests = u.line_requests or 0
  if requests <= 1 then
    return 0
  end
  if s.kind == "coalesced" or s.kind == "strided" then
    return math.min(1, math.max(0, 2 * (requests - u.lines) / requests))
  end
  return 1 - math.exp(-(requests - 1) / math.max(1, (s.footprint or (1 << 24)) / LINE))
end

-- E[max] of n independent uniform draws from 0..s.
local function expected_max(s, n)
  local e = s
  for k = 0, s - 1 do
    e = e - ((k + 1) / (s + 1)) ^ n
  end
  return e
end

local function config_values(cfg, desc)
  local clock = cfg.clock.core_mhz
  local no_caches = cfg.gpu.compute_capability < 2
  local geometry = M.geometry(desc)
  local blocks = math.max(1, (occupancy.blocks_per_sm(cfg, geometry)))
  return {
    l1 = no_caches and 0 or memsim.l1_bytes(cfg, blocks, geometry.shared_bytes),
    l2 = no_caches and 0 or cfg.l2.size_kb * 1024,
    cache_global = cfg.l1.cache_global, l1_latency = cfg.l1.latency, l2_latency = cfg.l2.latency,
    dram_latency = cfg.dram.latency_ns * clock / 1000,
    shared_latency = cfg.shared.latency, const_latency = cfg.const.latency,
    banks = cfg.shared.banks, bank_bytes = cfg.shared.bank_bytes,
  }
end

-- One warp's dependence path over `trips` trips (bounds.c's rules: in
-- order, one instruction per cycle, producers' issue + latency, units'
-- intervals), then EXIT.
local function path(ops, trips, cfg)
  local issue, unit_free, t, finish = {}, {}, 0, 0
  local n = 0
  for _ = 1, trips do
    for _, op in ipairs(ops) do
      n = n + 1
      if n > 1 then
        t = t + 1
      end
      for _, d in ipairs(op.deps) do
        if d < n then
          local p = n - d
          local ready = issue[p] + ops[(p - 1) % #ops + 1].latency
          if ready > t then
            t = ready
          end
        end
      end
      if (unit_free[op.unit] or 0) > t then
        t = unit_free[op.unit]
      end
      unit_free[op.unit] = t + op.busy
      issue[n] = t
      finish = math.max(finish, t + op.latency)
    end
  end
  local exit = n > 0 and t + 1 or 0
  return math.max(finish, exit + cfg.ops.branch.latency)
end

-- The counts of gpush.bounds for a description on a configuration, and a
-- summary of its memory behaviour.  A description with a prologue or an
-- epilogue (the microbenchmarks, gpush.workloads.microbench) is refused:
-- these counts model the loop body alone.
function M.counts(desc, cfg)
  if desc.prologue or desc.epilogue then
    error(("gpush.workloads.analytic: '%s' has a prologue or an epilogue, and the analytic counts model the"
      .. " loop body alone: build the kernel and bound it (gpush.bounds.kernel)"):format(tostring(desc.name)), 2)
  end
  local v = config_values(cfg, desc)
  local unit_of = machine.unit_of(cfg)
  local blocks, threads = product(desc.grid), product(desc.block)
  local wpb = (threads + 31) // 32
  local warps = blocks * wpb
  local last_lanes = threads - 32 * (wpb - 1)
  local trips, spread = desc.trips or 1, desc.trip_spread or 0
  local mean_trips = trips + spread / 2
  local warp_trips = warps * mean_trips
  local streams = desc.streams or {}
  local counts = { blocks = blocks, class_insts = {}, lsu_cycles = 0, shared_passes = 0,
    l2_requests = 0, mshr_requests = 0, mshr_dram_requests = 0, dram_bytes = 0 }
  local info = { footprint = 0, dram_bytes_read = 0, dram_bytes_written = 0, flops = 0 }
  local body = desc.body
  counts.insts = warp_trips * #body + warps
  counts.min_block_insts = wpb * (trips * #body + 1)
  counts.class_insts.branch = warps -- EXIT
  -- per stream: its accesses, by kind of use
  local use = {}
  for _, op in ipairs(body) do
    local class = op[1] or op.class
    counts.class_insts[class] = (counts.class_insts[class] or 0) + warp_trips
    if memory[class] and op.stream then
      local u = use[op.stream] or { execs = 0, requests = 0, sectors = 0, width = 0, kinds = {} }
      use[op.stream] = u
      u.width = math.max(u.width, op.width or 4)
      u.execs = u.execs + warp_trips
      if memory[class] ~= "store" then
        u.read_execs = (u.read_execs or 0) + warp_trips
      end
      u.kinds[memory[class]] = true
      local s = streams[op.stream]
      if s and s.kind ~= "shared" then
        local lanes = math.min(op.active and op.active > 0 and op.active or 32, 32)
        u.line_requests = (u.line_requests or 0) + access_shape(s, op.width or 4, lanes) * warp_trips
      end
      u.through_l1 = u.through_l1 or class == "ld_local" or class == "st_local" or class == "tex"
        or (class == "ld_global" and v.cache_global)
    end
    local lanes = math.min(op.active and op.active > 0 and op.active or 32, 32)
    local fl = flops_per_lane[class]
    if fl then
      info.flops = info.flops + fl * lanes * warp_trips
    end
  end
  -- distinct bytes per stream, and which fit which cache
  local total_distinct, l1_distinct = 0, 0
  for name, u in pairs(use) do
    local s = streams[name]
    local epochs = math.ceil((trips + spread) / math.max(1, s.reuse or 1))
    if s.kind == "shared" then
      u.distinct, u.lines, u.sectors = 0, 0, 0
    else
      u.distinct, u.lines, u.sectors = distinct(s, u.width, warps, epochs, u.execs)
    end
    u.reread = reread_share(s, u)
    total_distinct = total_distinct + u.distinct
    l1_distinct = l1_distinct + (u.through_l1 and u.distinct or 0)
    info.footprint = info.footprint + u.distinct
  end
  -- a cache keeps a stream when everything it caches fits, or when the
  -- streams it rereads (hot: more bytes accessed than distinct) fit
  -- together; streaming data passes through
  local hot_l2, hot_l1 = 0, 0
  for _, u in pairs(use) do
    u.hot = u.execs * 32 * u.width > 1.5 * u.distinct
    hot_l2 = hot_l2 + (u.hot and u.distinct or 0)
    hot_l1 = hot_l1 + ((u.hot and u.through_l1) and u.distinct or 0)
  end
  local function keeps(size, all, hot, u)
    return size > 0 and (all <= size or (u.hot and hot <= size))
  end
  for _, u in pairs(use) do
    u.fits_l2 = keeps(v.l2, total_distinct, hot_l2, u)
    u.fits_l1 = u.through_l1 and keeps(v.l1, l1_distinct, hot_l1, u)
  end
  -- per op: LSU charge, traffic, latency on the path
  local ops = {}
  for i, op in ipairs(body) do
    local class = op[1] or op.class
    local kind = memory[class]
    local lanes = math.min(op.active and op.active > 0 and op.active or 32, 32)
    local o = { deps = deps_of(op), unit = unit_of[class], busy = 1, latency = 0 }
    if not kind then
      local pipe = cfg.ops[machine.PIPELINE[class]]
      o.latency, o.busy = pipe.latency, pipe.interval
    elseif kind == "const" then
      o.latency = v.const_latency
    elseif kind == "shared" then
      local s = streams[op.stream]
      local passes = bank_passes(s, op.width or 4, lanes, v.banks, v.bank_bytes)
      o.busy, o.latency = passes, v.shared_latency + passes - 1
      counts.shared_passes = counts.shared_passes + passes * warp_trips
    else
      local s, u = streams[op.stream], use[op.stream]
      local width = op.width or 4
      local nlines, nsectors = access_shape(s, width, lanes)
      local requests = nlines * warp_trips
      o.busy = nlines
      -- misses: a stream that fits misses once per distinct line (sector);
      -- one that does not, on every access
      local l1_miss, l2_miss_lines, l2_miss_sectors
      if u.fits_l1 and kind == "load" then
        l1_miss = math.min(requests, u.lines * math.min(counts.blocks, cfg.sm.count))
      else
        l1_miss = requests
      end
      if u.fits_l2 then
        -- the stream's first touches, shared among the ops that read it; a
        -- sectored L2 misses once per sector (a request for a missing
        -- sector of a present line goes to DRAM too)
        local share = kind == "store" and 0 or warp_trips / u.read_execs
        local first = cfg.l2.sectored and u.sectors * nlines / nsectors or u.lines
        l2_miss_lines = math.min(l1_miss, first * share)
        l2_miss_sectors = math.min(nsectors * warp_trips, u.sectors * share)
      else
        l2_miss_lines = l1_miss
        l2_miss_sectors = nsectors * warp_trips * (l1_miss / math.max(1, requests))
      end
      if kind == "store" then
        counts.l2_requests = counts.l2_requests + requests
        if not u.fits_l2 then
          info.dram_bytes_written = info.dram_bytes_written + nsectors * SECTOR * warp_trips
        end
        o.latency = 0
      else
        counts.l2_requests = counts.l2_requests + l1_miss
        if kind == "load" then
          counts.mshr_requests = counts.mshr_requests + l1_miss
          counts.mshr_dram_requests = counts.mshr_dram_requests + l2_miss_lines
        end
        info.dram_bytes_read = info.dram_bytes_read + l2_miss_sectors * SECTOR
        -- latency: the floor gpush.bounds takes per request (a line only
        -- this request touches comes from DRAM; another may hit in L1,
        -- for the classes L1 caches, or in L2), over the stream's share of
        -- reread lines
        local l1 = v.l1 > 0 and (class == "ld_local" or class == "tex" or (class == "ld_global" and v.cache_global))
        local cold = v.l2_latency + v.dram_latency
        local hit = l1 and v.l1_latency or (v.l2 > 0 and v.l2_latency or cold)
        o.latency = u.reread * hit + (1 - u.reread) * cold
      end
    end
    if kind then -- the LSU: one cycle per line request, per bank pass, or per instruction
      counts.lsu_cycles = counts.lsu_cycles + o.busy * warp_trips
    end
    ops[i] = o
  end
  counts.dram_bytes = info.dram_bytes_read + info.dram_bytes_written
  info.dram_bytes = counts.dram_bytes
  info.flop_per_byte = counts.dram_bytes > 0 and info.flops / counts.dram_bytes or math.huge
  -- dependence paths: the longest warp, and each block's longest warp
  counts.longest_path = path(ops, trips + spread, cfg)
  local block_trips = trips + math.floor(expected_max(spread, wpb) + 0.5)
  local block_path = path(ops, block_trips, cfg)
  counts.block_paths = blocks * block_path
  counts.min_block_path = block_path
  counts.warps_per_block = wpb
  info.last_lanes = last_lanes
  return counts, info
end

return M
