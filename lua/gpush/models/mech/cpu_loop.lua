-- gpush.models.mech.cpu_loop: the S-side measurement of a gpush workload,
-- from its description (gpush.workloads), not from its GPU trace: the loop
-- nest a CPU programmer writes for the same algorithm, as Blem's CAB
-- benchmarks have a CPU and a GPU implementation of each algorithm (thesis
-- L560).  It is what `gpush translate` translates S -> M and compares with
-- the trace's measured M-core inputs (Table 5.3), and what the trace's
-- translation M -> S is compared with (Table 5.4), so neither check uses the
-- other side's numbers.
--
--   local cpu = require "gpush.models.mech.cpu_loop"
--   local s = assert(cpu.record(workloads.get("stream_triad"), { simd_width = 4 }))
--
-- The CPU code: an outer loop over the kernel's threads (one element each,
-- L1656), SIMD chunks of simd_width elements when every global stream is
-- contiguous (coalesced; SSE has no gather, L1644), else one element per
-- iteration; an inner loop over the trips (the mean trip count, trips +
-- trip_spread / 2); in it the body's operations, one micro-op each per
-- chunk (a memory operation: its lanes' bytes in 16-byte SSE accesses),
-- classes through translation's dictionaries; barriers vanish (the inner loop's end is the
-- point every thread reaches); the outer loop adds an increment and a
-- branch per iteration.  Counts are totals over the run (Table 4.1).
local tr = require "gpush.models.mech.translate"

local M = {}

-- GPU op class -> S-core class, through translation's dictionaries (one
-- each: translate.TRACE to the IR's classes, translate.S_CLASS and
-- S_SIMD_CLASS to the S-core's), so the CPU code and the M -> S rules name
-- an operation alike; loads and stores stay loads and stores (SIMD ones in
-- SIMD code: shared and constant memory are ordinary memory on a CPU); the
-- IR's syncs (barriers) have no CPU micro-op.
local function s_class(gpu_class, simd)
  local ir = tr.TRACE[gpu_class]
  if ir == nil then
    return nil, false
  end
  if ir == "sync" then
    return nil, true
  end
  if ir == "load" or ir == "store" then
    return simd and ("simd_" .. ir) or ir, true, ir
  end
  return (simd and tr.S_SIMD_CLASS or tr.S_CLASS)[ir], true, ir
end

-- The GPU classes that reach global memory (the footprint and the misses).
local GLOBAL = { ld_global = true, st_global = true, ld_local = true, st_local = true, tex = true, ldgsts = true,
  atom_global = true }

M.DEFAULTS = {
  simd_width = 4,                                        -- SSE
  line_bytes = 64,                                       -- one miss per line (L1626)
  caches = { 32 * 1024, 256 * 1024, 8 * 1024 * 1024 },   -- Sandybridge L1D, L2, L3
  window = 168,                                          -- Sandybridge's instruction window (L1293)
}

local function class_of(op)
  return op[1] or op.class
end

-- The dependence-limited ILP of one inner-loop trip (unit latency, every
-- recorded producer; a producer before the trip's start is the previous
-- trip's, so a loop-carried chain limits it across trips), at most the
-- window: micro-ops / levels over `trips` trips.
local function loop_ilp(body, uops_of, trips, window)
  local level, total, depth = {}, 0, 0
  local n = #body
  local trips_seen = math.max(1, math.min(trips, 64))
  for t = 0, trips_seen - 1 do
    for i, op in ipairs(body) do
      local at = 1
      local deps = op.dep
      if type(deps) == "number" then
        deps = { deps }
      end
      for _, d in ipairs(deps or {}) do
        local j = t * n + i - d
        if d > 0 and j >= 1 and level[j] then
          at = math.max(at, level[j] + 1)
        end
      end
      level[t * n + i] = at
      depth = math.max(depth, at)
      total = total + uops_of(op)
    end
  end
  if total == 0 then
    return 1
  end
  return math.max(1, math.min(window, total / depth))
end

-- The S-side record of a workload description `desc` (gpush.workloads.get
-- or a Lua description): the Table 4.1 inputs an S-core model takes (N_I,
-- N_M, n_i, ILP, N_mL1, N_mL2, N_mL3, N_mL3o, N_mITLB, N_mDTLB, N_br_miss)
-- and translation's measurements (N_outer, simd_width, N_load, N_store,
-- N_branch, simd_fraction, stride1_fraction, footprint_bytes, inner_loops).
-- Misses (one per 64 B line, L1626): a contiguous stream's lines once
-- (compulsory) at every level, and again on every further pass at the
-- levels the streams do not fit; a random or chased stream's accesses with
-- the probability their line is not held; no TLB misses.
-- Branch misses: each inner loop's exit, one per outer iteration.  opts:
-- simd_width (default 4; 1 forces scalar code), line_bytes, caches, window.
-- Returns the record, or nil and a message.
function M.record(desc, opts)
  opts = opts or {}
  if type(desc) ~= "table" or type(desc.body) ~= "table" or #desc.body == 0 then
    return nil, "cpu_loop: a workload description with a body is needed"
  end
  local line = opts.line_bytes or M.DEFAULTS.line_bytes
  local caches = opts.caches or M.DEFAULTS.caches
  local threads = (desc.grid or 1) * (desc.block or 1)
  local trips = (desc.trips or 1) + (desc.trip_spread or 0) / 2
  local streams = desc.streams or {}
  -- SIMD code when every global access is contiguous (L1644)
  local contiguous, global_accesses, stride1 = true, 0, 0
  for _, op in ipairs(desc.body) do
    local class = class_of(op)
    local _, known = s_class(class, false)
    if not known then
      return nil, ("cpu_loop: workload '%s': no CPU micro-op for GPU class '%s'"):format(tostring(desc.name), class)
    end
    if GLOBAL[class] then
      local s = streams[op.stream]
      local kind = s and s.kind or "coalesced"
      global_accesses = global_accesses + 1
      if kind == "coalesced" then
        stride1 = stride1 + 1
      else
        contiguous = false
      end
    end
  end
  local width = contiguous and (opts.simd_width or M.DEFAULTS.simd_width) or 1
  local outer = math.ceil(threads / width - 1e-9)
  -- micro-ops of one body op per chunk
  local function uops_of(op)
    local class, _, ir = s_class(class_of(op), width > 1)
    if not class then
      return 0
    end
    if ir == "load" or ir == "store" then
      return math.max(1, math.ceil((op.width or 4) * width / 16 - 1e-9))
    end
    return 1
  end
  local n_i, loads, stores, branches = {}, 0, 0, 0
  for _, op in ipairs(desc.body) do
    local class, _, ir = s_class(class_of(op), width > 1)
    if class then
      local count = uops_of(op) * trips * outer
      n_i[class] = (n_i[class] or 0) + count
      if ir == "load" then
        loads = loads + count
      elseif ir == "store" then
        stores = stores + count
      elseif ir == "branch" then
        branches = branches + count
      end
    end
  end
  -- the outer loop: an increment and a branch per iteration
  n_i.int_alu = (n_i.int_alu or 0) + outer
  n_i.branch = (n_i.branch or 0) + outer
  branches = branches + outer
  local total = 0
  for _, v in pairs(n_i) do
    total = total + v
  end
  -- footprint and misses: the global streams the body touches, each with the
  -- bytes its accesses read or write over the run
  local footprint, used, bytes, accesses = 0, {}, {}, {}
  for _, op in ipairs(desc.body) do
    local name = op.stream
    if GLOBAL[class_of(op)] and name and streams[name] then
      if not used[name] then
        used[name] = true
        footprint = footprint + (streams[name].footprint or 0)
      end
      bytes[name] = (bytes[name] or 0) + (op.width or 4) * threads * trips
      accesses[name] = (accesses[name] or 0) + threads * trips
    end
  end
  -- misses of a cache of `capacity` bytes: a contiguous stream misses each
  -- line once, and once more on every further pass over it when the
  -- streams do not fit; a random or chased stream misses each access whose
  -- line is not among those the cache holds (probability 1 - capacity /
  -- footprint), its first touches included
  local function misses(capacity)
    local m = 0
    for name in pairs(used) do
      local st = streams[name]
      local f = math.max(st.footprint or 0, line)
      if st.kind == "random" or st.kind == "chase" then
        local held = footprint > 0 and math.min(1, capacity / footprint) or 1
        m = m + math.min(accesses[name], f / line) * held + accesses[name] * (1 - held)
      else
        local passes = math.max(1, bytes[name] / f)
        m = m + f / line + (footprint > capacity and (passes - 1) * f / line or 0)
      end
    end
    return m
  end
  local l1, l2, l3 = misses(caches[1]), misses(caches[2]), misses(caches[3])
  return {
    N_I = total, N_M = total, n_i = n_i,
    ILP = loop_ilp(desc.body, uops_of, trips, opts.window or M.DEFAULTS.window),
    N_mL1 = l1, N_mL2 = math.min(l2, l1), N_mL3 = math.min(l3, l2, l1), N_mL3o = 0, N_mITLB = 0, N_mDTLB = 0,
    N_br_miss = outer,
    N_outer = outer, simd_width = width, N_load = loads, N_store = stores, N_branch = branches,
    simd_fraction = width > 1 and 1 or 0,
    stride1_fraction = global_accesses > 0 and stride1 / global_accesses or 1,
    footprint_bytes = footprint, inner_loops = 1,
  }
end

return M
