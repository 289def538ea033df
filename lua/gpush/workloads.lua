-- gpush.workloads: synthetic kernels described in Lua, and the embedded suite.
--
--   local k = assert(workloads.kernel {
--     name = "saxpy", grid = 2048, block = 256, trips = 8,
--     streams = { x = { kind = "coalesced", footprint = 64 << 20 },
--                 y = { kind = "coalesced", footprint = 64 << 20, base = 0x40000000 } },
--     body = {
--       { "ld_global", stream = "x" },
--       { "ld_global", stream = "y" },
--       { "fp32", dep = 1 },            -- waits for the y load
--       { "st_global", stream = "y", dep = 1 },
--     },
--   })
--
-- A body entry is { class, dep = distance back to its producer in the warp's
-- instruction stream (0: none; reaching before the body's start means the
-- previous trip), width = bytes per lane (memory), stream = name, active =
-- lanes (0/absent: all) }.  Streams: coalesced, strided (stride bytes between
-- lanes), random (gather over the footprint), chase (one random address per
-- warp: pointer chasing), shared (a shared-memory tile; stride between lanes).
-- Generation is in C, deterministic for a seed.  The suite's kernels are the
-- default workload of every scenario.
local core = require "gpush.core"
local text = require "gpush.text"
local closest = text.closest

local M = {}

local classes = {
  "int", "fp32", "imad", "fp64", "sfu", "tensor", "uniform", "branch", "other", "barrier",
  "barrier_arrive", "ld_global", "st_global", "ld_local", "st_local", "ld_shared", "st_shared",
  "ld_const", "tex", "atom_global", "atom_shared", "ldgsts", "depbar",
}
local is_class = {}
for _, c in ipairs(classes) do
  is_class[c] = true
end
local memory_classes = {
  ld_global = true, st_global = true, ld_local = true, st_local = true, ld_shared = true,
  st_shared = true, tex = true, atom_global = true, atom_shared = true, ldgsts = true,
}
local stream_kinds = { coalesced = true, strided = true, random = true, chase = true, shared = true }

local function fail(desc, message)
  error(("workload '%s': %s"):format(desc.name or "?", message), 3)
end

-- Turns a friendly description (named streams, positional class) into the
-- form core.synth takes, checking it with messages that say what to fix.
function M.compile(desc)
  if type(desc) ~= "table" then
    error("gpush.workloads: a workload is a table, got " .. type(desc), 2)
  end
  local stream_index, streams = {}, {}
  local names = text.sorted_keys(desc.streams or {})
  for i, name in ipairs(names) do
    local s = desc.streams[name]
    if not stream_kinds[s.kind] then
      fail(desc, ("stream '%s' has kind '%s'; expected coalesced, strided, random, chase or shared")
        :format(name, tostring(s.kind)))
    end
    stream_index[name] = i
    streams[i] = { kind = s.kind, base = s.base, footprint = s.footprint, stride = s.stride, reuse = s.reuse }
  end
  if type(desc.body) ~= "table" or #desc.body == 0 then
    fail(desc, "needs a body: a list of instructions such as { 'fp32', dep = 1 }")
  end
  local body = {}
  for i, op in ipairs(desc.body) do
    local class = op[1] or op.class
    if not is_class[class] then
      local guess = closest(tostring(class), classes)
      fail(desc, ("instruction %d has class '%s'%s"):format(i, tostring(class),
        guess and (" (did you mean '" .. guess .. "'?)") or ""))
    end
    local stream
    if memory_classes[class] then
      stream = stream_index[op.stream]
      if not stream then
        fail(desc, ("instruction %d (%s) needs stream = one of: %s"):format(i, class,
          #names > 0 and table.concat(names, ", ") or "(no streams declared)"))
      end
    end
    body[i] = { class = class, dep = op.dep, width = op.width, stream = stream, active = op.active }
  end
  return {
    name = desc.name, grid = desc.grid, block = desc.block, regs = desc.regs, shmem = desc.shmem,
    trips = desc.trips, trip_spread = desc.trip_spread, seed = desc.seed or 1,
    binary_version = desc.binary_version, streams = streams, body = body,
  }
end

-- Generates a kernel from a description; returns it or nil, message.
function M.kernel(desc)
  return core.synth(M.compile(desc))
end

-- A stable hash of a description (for provenance): FNV-1a over its
-- canonical text.
function M.hash(desc)
  local parts = {}
  local function walk(v, prefix)
    if type(v) == "table" then
      local keys = {}
      for k in pairs(v) do
        keys[#keys + 1] = k
      end
      table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
      for _, k in ipairs(keys) do
        walk(v[k], prefix .. "/" .. tostring(k))
      end
    else
      parts[#parts + 1] = prefix .. "=" .. tostring(v)
    end
  end
  walk(desc, "")
  local h = -3750763034362895579
  for _, line in ipairs(parts) do
    for i = 1, #line do
      h = (h ~ line:byte(i)) * 1099511628211
    end
  end
  return ("%016x"):format(h)
end

-- The embedded suite ---------------------------------------------------------------
--
-- Each kernel is large enough to fill several waves of a large GPU (3072
-- blocks of 256 threads: about 3.4 waves of an H100's 114 SMs at 8 blocks
-- per SM) and stresses one behaviour the models must capture.

local MB = 1 << 20
local big = { grid = 3072, block = 256, regs = 32 }

local function suite_kernel(t)
  for k, v in pairs(big) do
    if t[k] == nil then
      t[k] = v
    end
  end
  return t
end

M.suite = {
  suite_kernel {
    name = "fma_compute", seed = 11, trips = 8,
    summary = "compute-bound: four independent FFMA chains, one coalesced load per trip",
    streams = { a = { kind = "coalesced", footprint = 64 * MB } },
    body = {
      { "ld_global", stream = "a" },
      { "fp32", dep = 1 }, { "fp32" }, { "fp32" }, { "fp32" },
      { "fp32", dep = 4 }, { "fp32", dep = 4 }, { "fp32", dep = 4 }, { "fp32", dep = 4 },
      { "fp32", dep = 4 }, { "fp32", dep = 4 }, { "fp32", dep = 4 }, { "fp32", dep = 4 },
      { "fp32", dep = 4 }, { "fp32", dep = 4 }, { "fp32", dep = 4 }, { "fp32", dep = 4 },
      { "int" },
    },
  },
  suite_kernel {
    name = "stream_triad", seed = 12, trips = 4,
    summary = "bandwidth-bound: a[i] = b[i] + s * c[i] over 3 x 256 MB",
    streams = {
      b = { kind = "coalesced", base = 0x100000000, footprint = 256 * MB },
      c = { kind = "coalesced", base = 0x200000000, footprint = 256 * MB },
      a = { kind = "coalesced", base = 0x300000000, footprint = 256 * MB },
    },
    body = {
      { "ld_global", stream = "b" },
      { "ld_global", stream = "c" },
      { "fp32", dep = 1 },
      { "st_global", stream = "a", dep = 1 },
      { "int" }, { "branch" },
    },
  },
  suite_kernel {
    name = "pointer_chase", seed = 13, trips = 12,
    summary = "latency-bound: each load's address comes from the previous load",
    streams = { list = { kind = "chase", footprint = 512 * MB, reuse = 1 } },
    body = {
      { "ld_global", stream = "list", width = 8, dep = 1 },
      { "imad", dep = 1 },
      { "int", dep = 1 },
    },
  },
  suite_kernel {
    name = "divergent_gather", seed = 14, trips = 4,
    summary = "memory-divergent gather like kmeans invert_mapping: 32 random lines per load",
    streams = {
      idx = { kind = "coalesced", footprint = 32 * MB },
      table = { kind = "random", base = 0x100000000, footprint = 128 * MB },
      out = { kind = "strided", base = 0x200000000, footprint = 128 * MB, stride = 128 },
    },
    body = {
      { "ld_global", stream = "idx" },
      { "imad", dep = 1 },
      { "ld_global", stream = "table", dep = 1 },
      { "fp32", dep = 1 },
      { "st_global", stream = "out", dep = 1 },
      { "int" },
    },
  },
  suite_kernel {
    name = "divergent_loop", seed = 15, trips = 4, trip_spread = 28,
    summary = "control-divergent loop: trip counts differ per warp, half the lanes idle in the branch",
    streams = { a = { kind = "coalesced", footprint = 64 * MB } },
    body = {
      { "ld_global", stream = "a" },
      { "int", dep = 1 },
      { "branch", dep = 1 },
      { "fp32", dep = 3, active = 16 }, { "fp32", dep = 1, active = 16 }, { "fp32", dep = 1, active = 16 },
      { "branch" },
    },
  },
  suite_kernel {
    name = "tiled_barrier", seed = 16, trips = 4, shmem = 8192,
    summary = "matrix-multiply tiles: global loads to shared memory, barriers, shared-memory FMAs",
    streams = {
      a = { kind = "coalesced", footprint = 64 * MB },
      b = { kind = "strided", base = 0x100000000, footprint = 64 * MB, stride = 4 },
      tile = { kind = "shared", footprint = 8192, stride = 4 },
    },
    body = {
      { "ld_global", stream = "a" }, { "ld_global", stream = "b" },
      { "st_shared", stream = "tile", dep = 2 }, { "st_shared", stream = "tile", dep = 2 },
      { "barrier" },
      { "ld_shared", stream = "tile" }, { "ld_shared", stream = "tile" }, { "fp32", dep = 1 },
      { "ld_shared", stream = "tile" }, { "ld_shared", stream = "tile" }, { "fp32", dep = 1 },
      { "ld_shared", stream = "tile" }, { "ld_shared", stream = "tile" }, { "fp32", dep = 1 },
      { "ld_shared", stream = "tile" }, { "ld_shared", stream = "tile" }, { "fp32", dep = 1 },
      { "barrier" },
    },
  },
  suite_kernel {
    name = "cache_reuse", seed = 17, trips = 8,
    summary = "cache-friendly: four trips reread the same lines of a 256 KB working set",
    streams = { hot = { kind = "coalesced", footprint = 256 * 1024, reuse = 4 } },
    body = {
      { "ld_global", stream = "hot" }, { "fp32", dep = 1 },
      { "ld_global", stream = "hot" }, { "fp32", dep = 1 },
      { "int" },
    },
  },
  suite_kernel {
    name = "sfu_heavy", seed = 18, trips = 6,
    summary = "SFU-heavy: reciprocal/exp chains through the special-function unit",
    streams = { a = { kind = "coalesced", footprint = 64 * MB } },
    body = {
      { "ld_global", stream = "a" },
      { "sfu", dep = 1 }, { "fp32", dep = 1 }, { "sfu", dep = 1 }, { "fp32", dep = 1 },
      { "sfu" }, { "sfu" }, { "fp32", dep = 2 },
    },
  },
}

local by_name = {}
for _, w in ipairs(M.suite) do
  by_name[w.name] = w
end

-- The names of the suite's kernels, in order.
function M.names()
  local names = {}
  for i, w in ipairs(M.suite) do
    names[i] = w.name
  end
  return names
end

-- A suite kernel's description by name, or nil and a message.
function M.get(name)
  local w = by_name[name]
  if w then
    return w
  end
  local guess = closest(name, M.names())
  return nil, ("no workload '%s' in the suite%s; it has %s"):format(name,
    guess and (" (did you mean '" .. guess .. "'?)") or "", table.concat(M.names(), ", "))
end

return M
