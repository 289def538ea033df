-- gpush.workloads.regimes: the embedded suite's kernels, one per bottleneck
-- regime, each a generator of descriptions from size and intensity
-- parameters (docs/workloads.md).
--
-- A regime entry:
--   name      the base kernel's name (what it is)
--   regime    the bottleneck it is built to have
--   summary   one line
--   claim     { bounds = {...}, stalls = {...} }: on gtx1080 the first-principles
--             bound that binds (gpush.bounds) is one of `bounds`, and the
--             simulator's largest stall reason one of `stalls`
--   defaults  the base kernel's parameters
--   ranges    per parameter, the values variants draw from: {lo, hi}
--             (integers, drawn uniformly) or a list {values = {...}}
--   make(p)   the description for parameters p (defaults filled in)
-- Parameters every regime takes: grid (blocks), block (threads), regs
-- (registers per thread), shmem (shared bytes per block), trips (loop
-- trips), seed; the others are the regime's intensity knobs: ilp
-- (independent chains), intensity (compute per memory access), footprint
-- (bytes a stream wraps around in), stride (bytes between lanes), width
-- (bytes per lane), reuse, spread (extra trips: control divergence),
-- active (lanes on the divergent path), chain (dependent depth).
local M = {}

local KB, MB = 1 << 10, 1 << 20

-- A description with the geometry of p and the given streams and body.
local function desc(p, streams, body, extra)
  local d = {
    grid = p.grid, block = p.block, regs = p.regs, shmem = p.shmem, trips = p.trips,
    trip_spread = p.spread, seed = p.seed, streams = streams, body = body,
  }
  for k, v in pairs(extra or {}) do
    d[k] = v
  end
  return d
end

-- n independent chains of `class`, each op depending on the same chain's op
-- of the previous group (distance `period`).
local function chains(body, class, n, period)
  for _ = 1, n do
    body[#body + 1] = { class, dep = period }
  end
end

-- n independent accesses of `class` (extra fields in op; with `streams`,
-- access i uses streams[i]: different lines, as real loads of one trip
-- read), then an FFMA consuming each pair: loads first, so that in-order
-- issue overlaps them.
local function loads_then_pairs(body, n, op, streams)
  for i = 1, n do
    local o = { op[1] }
    for k, v in pairs(op) do
      o[k] = v
    end
    o.stream = streams and streams[i] or o.stream
    body[#body + 1] = o
  end
  for m = 0, n // 2 - 1 do
    body[#body + 1] = { "fp32", dep = { n - m - 1, n - m } }
  end
  return body
end

M.list = {
  {
    name = "issue_mix", regime = "issue",
    summary = "issue-bound: independent FFMA and IADD3 chains (ILP 4 each), no memory",
    -- issue-bound where INT and FP32 have pipes of their own (Volta on); on
    -- GPUs whose INT and FP32 share one (sm.int_fp32_shared: gtx1080), that
    -- pipe binds first
    claim = { bounds = { "issue", "fma" }, stalls = { "issued" } },
    defaults = { grid = 320, block = 256, regs = 32, shmem = 0, trips = 16, ilp = 4, seed = 21 },
    ranges = { grid = { 40, 120 }, block = { values = { 128, 256 } }, regs = { values = { 32, 56 } },
      trips = { 2, 6 }, ilp = { 4, 8 } },
    make = function(p)
      local body = {}
      for _ = 1, p.ilp do
        body[#body + 1] = { "fp32", dep = 2 * p.ilp }
        body[#body + 1] = { "int", dep = 2 * p.ilp }
      end
      return desc(p, nil, body)
    end,
  },
  {
    name = "fma_compute", regime = "fma",
    summary = "FP32-pipe-bound: 128 FFMA (ILP 4) per coalesced load, the load one trip ahead",
    claim = { bounds = { "fma" }, stalls = { "issued" } },
    defaults = { grid = 80, block = 256, regs = 32, shmem = 0, trips = 4, intensity = 128, ilp = 4,
      footprint = 64 * MB, seed = 11 },
    ranges = { grid = { 60, 100 }, block = { values = { 256 } }, regs = { values = { 32, 48 } },
      trips = { 1, 2 }, intensity = { 96, 160 }, ilp = { 4, 8 } },
    make = function(p)
      -- the FFMA chains start from the previous trip's load (software
      -- pipelining: the load's latency overlaps a trip of FFMAs)
      local n = p.intensity + 2
      local body = { { "ld_global", stream = "a" } }
      for i = 1, p.intensity do
        -- chain c's first FFMA continues chain c of the previous trip (past
        -- the INT and the load: ilp + 2 back) and reads that trip's load
        body[#body + 1] = { "fp32", dep = i <= p.ilp and { p.ilp + 2, n + i } or p.ilp }
      end
      body[#body + 1] = { "int" }
      return desc(p, { a = { kind = "coalesced", footprint = p.footprint } }, body)
    end,
  },
  {
    name = "fma_chain", regime = "latency",
    summary = "latency-bound: one dependent FFMA chain per warp at low occupancy (32 KB shared per block)",
    claim = { bounds = { "latency", "blocks" }, stalls = { "dependence" } },
    defaults = { grid = 120, block = 64, regs = 32, shmem = 32 * KB, trips = 16, chain = 16, seed = 22 },
    ranges = { grid = { 40, 120 }, block = { values = { 32, 64, 128 } }, shmem = { values = { 24 * KB, 32 * KB, 40 * KB } },
      trips = { 4, 12 }, chain = { 8, 16 } },
    make = function(p)
      local body = {}
      chains(body, "fp32", p.chain, 1)
      return desc(p, nil, body)
    end,
  },
  {
    name = "sfu_heavy", regime = "sfu",
    summary = "SFU-throughput-bound: independent MUFU chains (ILP 4), an FFMA consuming each pair",
    claim = { bounds = { "sfu" }, stalls = { "sfu_busy" } },
    defaults = { grid = 160, block = 256, regs = 32, shmem = 0, trips = 12, ilp = 4, seed = 18 },
    ranges = { grid = { 60, 120 }, block = { values = { 256 } }, regs = { values = { 32, 56 } },
      trips = { 2, 6 }, ilp = { 4, 8 } },
    make = function(p)
      local period = p.ilp + p.ilp // 2
      local body = {}
      for i = 1, p.ilp do
        body[#body + 1] = { "sfu", dep = period }
        if i % 2 == 0 then
          body[#body + 1] = { "fp32", dep = { 1, 2 } }
        end
      end
      return desc(p, nil, body)
    end,
  },
  {
    name = "fp64_heavy", regime = "fp64",
    summary = "FP64-throughput-bound: independent DFMA chains (ILP 4)",
    claim = { bounds = { "fp64" }, stalls = { "unit_busy" } },
    defaults = { grid = 160, block = 256, regs = 48, shmem = 0, trips = 12, ilp = 4, seed = 23 },
    ranges = { grid = { 8, 48 }, block = { values = { 128, 256 } }, regs = { values = { 40, 48, 56 } },
      trips = { 4, 10 }, ilp = { 4, 8 } },
    make = function(p)
      local body = {}
      chains(body, "fp64", p.ilp, p.ilp + 1)
      body[#body + 1] = { "int" }
      return desc(p, nil, body)
    end,
  },
  {
    name = "shared_bandwidth", regime = "shared",
    summary = "shared-memory-bandwidth-bound: conflict-free LDS, an FFMA per two",
    claim = { bounds = { "shared" }, stalls = { "issued", "lsu_busy" } },
    defaults = { grid = 160, block = 256, regs = 32, shmem = 8 * KB, trips = 12, ilp = 4, stride = 4, seed = 24 },
    ranges = { grid = { 60, 160 }, block = { values = { 128, 256 } }, shmem = { values = { 4 * KB, 8 * KB, 16 * KB } },
      trips = { 2, 6 }, ilp = { 4, 8 } },
    make = function(p)
      local body = loads_then_pairs({}, p.ilp, { "ld_shared", stream = "tile" })
      return desc(p, { tile = { kind = "shared", footprint = p.shmem, stride = p.stride } }, body)
    end,
  },
  {
    name = "shared_conflicts", regime = "shared",
    summary = "bank-conflict-bound: LDS with lanes 32 B apart, 8 lanes per bank (8 passes each)",
    claim = { bounds = { "shared" }, stalls = { "lsu_busy" } },
    defaults = { grid = 160, block = 256, regs = 32, shmem = 8 * KB, trips = 8, stride = 32, seed = 25 },
    ranges = { grid = { 40, 120 }, block = { values = { 128, 256 } }, shmem = { values = { 4 * KB, 8 * KB } },
      trips = { 2, 6 }, stride = { values = { 8, 16, 32, 64, 128 } } },
    make = function(p)
      local body = {
        { "ld_shared", stream = "tile" }, { "ld_shared", stream = "tile" }, { "fp32", dep = { 1, 2 } },
      }
      return desc(p, { tile = { kind = "shared", footprint = p.shmem, stride = p.stride } }, body)
    end,
  },
  {
    name = "tiled_barrier", regime = "barrier",
    summary = "barrier-bound GEMM tiles: per k-step two L2-resident tiles to shared memory, a barrier, each element reused 8 times, a barrier",
    claim = { bounds = { "latency", "blocks" }, stalls = { "barrier", "memory" } },
    defaults = { grid = 80, block = 256, regs = 56, shmem = 16 * KB, trips = 8, reuse = 8,
      footprint = 256 * KB, seed = 16 },
    ranges = { grid = { 8, 40 }, block = { values = { 128, 256 } }, shmem = { values = { 8 * KB, 16 * KB, 32 * KB } },
      trips = { 2, 6 }, reuse = { 4, 16 } },
    make = function(p)
      local body = {
        { "ld_global", stream = "a" }, { "ld_global", stream = "b" },
        { "st_shared", stream = "tile", dep = 2 }, { "st_shared", stream = "tile", dep = 2 },
        { "barrier" },
      }
      for _ = 1, p.reuse do
        body[#body + 1] = { "ld_shared", stream = "row" }
        body[#body + 1] = { "ld_shared", stream = "col" }
        body[#body + 1] = { "fp32", dep = { 1, 2 } }
      end
      body[#body + 1] = { "barrier" }
      return desc(p, {
        a = { kind = "coalesced", footprint = p.footprint },
        b = { kind = "coalesced", base = 0x100000000, footprint = p.footprint },
        tile = { kind = "shared", footprint = p.shmem, stride = 4 },
        row = { kind = "shared", footprint = p.shmem, stride = 0 },  -- one word to all lanes (broadcast)
        col = { kind = "shared", footprint = p.shmem, stride = 4 },
      }, body)
    end,
  },
  {
    name = "l1_resident", regime = "l1",
    summary = "L1-bound: independent 16-byte local-memory loads (4 lines each) over a 16 KB working set that L1 holds",
    claim = { bounds = { "lsu" }, stalls = { "lsu_busy", "issued" } },
    defaults = { grid = 160, block = 256, regs = 32, shmem = 0, trips = 8, ilp = 8, width = 16,
      footprint = 16 * KB, seed = 26 },
    ranges = { grid = { 60, 160 }, block = { values = { 256 } }, trips = { 2, 4 }, ilp = { 4, 8 },
      footprint = { values = { 4 * KB, 8 * KB, 16 * KB } } },
    make = function(p)
      local streams, names = {}, {}
      for i = 1, p.ilp do
        names[i] = "w" .. i
        streams[names[i]] = { kind = "coalesced", base = (i - 1) * (p.footprint // p.ilp),
          footprint = p.footprint // p.ilp }
      end
      return desc(p, streams, loads_then_pairs({}, p.ilp, { "ld_local", width = p.width }, names))
    end,
  },
  {
    name = "l2_resident", regime = "l2",
    summary = "L2-bandwidth-bound: 8 independent global loads per trip rereading a 512 KB working set (global loads bypass L1 on gtx1080)",
    claim = { bounds = { "l2" }, stalls = { "memory" } },
    defaults = { grid = 160, block = 256, regs = 32, shmem = 0, trips = 12, ilp = 8, footprint = 512 * KB, seed = 17 },
    ranges = { grid = { 80, 200 }, block = { values = { 256 } }, trips = { 3, 6 }, ilp = { 4, 8 },
      footprint = { values = { 32 * KB, 64 * KB, 128 * KB } } },
    make = function(p)
      -- ilp streams, each a slice of the working set: a trip's loads read
      -- different lines
      local streams, names = {}, {}
      for i = 1, p.ilp do
        names[i] = "hot" .. i
        streams[names[i]] = { kind = "coalesced", base = 0x100000000 + (i - 1) * (p.footprint // p.ilp),
          footprint = p.footprint // p.ilp }
      end
      return desc(p, streams, loads_then_pairs({}, p.ilp, { "ld_global" }, names))
    end,
  },
  {
    name = "stream_triad", regime = "dram",
    summary = "DRAM-bandwidth-bound: a[i] = b[i] + s * c[i] with 16-byte accesses over 3 x 64 MB (3.8 x the largest L2)",
    claim = { bounds = { "dram" }, stalls = { "memory" } },
    defaults = { grid = 2048, block = 256, regs = 32, shmem = 0, trips = 8, width = 16, seed = 12 },
    ranges = { grid = { 64, 160 }, block = { values = { 128, 256 } }, trips = { 2, 4 },
      width = { values = { 4, 8, 16 } } },
    make = function(p)
      local bytes = p.grid * p.block * p.trips * p.width -- touched per array
      local function array(base)
        return { kind = "coalesced", base = base, footprint = bytes }
      end
      -- one FFMA per 4-byte element (a float4 access: four), 2 FLOP per 12 B
      local body = { { "ld_global", stream = "b", width = p.width }, { "ld_global", stream = "c", width = p.width } }
      local n = math.max(1, p.width // 4)
      for i = 1, n do
        body[#body + 1] = { "fp32", dep = { i, i + 1 } }
      end
      body[#body + 1] = { "st_global", stream = "a", width = p.width, dep = { 1, 2, 3, 4 } }
      body[#body + 1] = { "int" }
      body[#body + 1] = { "branch" }
      return desc(p, { b = array(0x100000000), c = array(0x200000000), a = array(0x300000000) }, body)
    end,
  },
  {
    name = "pointer_chase", regime = "latency",
    summary = "memory-latency-bound (MSHR-bound with few MSHRs): each load's address comes from the previous load",
    claim = { bounds = { "latency", "blocks" }, stalls = { "memory" } },
    defaults = { grid = 320, block = 128, regs = 32, shmem = 0, trips = 12, footprint = 512 * MB, seed = 13 },
    ranges = { grid = { 8, 64 }, block = { values = { 64, 128, 256 } }, trips = { 4, 10 },
      footprint = { values = { 64 * MB, 512 * MB } } },
    make = function(p)
      return desc(p, { list = { kind = "chase", footprint = p.footprint } }, {
        { "ld_global", stream = "list", width = 8, dep = 3 }, { "imad", dep = 1 }, { "int", dep = 1 },
      })
    end,
  },
  {
    name = "divergent_gather", regime = "memory divergence",
    summary = "memory-divergent gather: every lane of a load in its own line of a 1 MB table (32 requests per load)",
    -- the L2 slices' request rate; at gtx1080's achievable DRAM bandwidth (78 %
    -- of the peak) the DRAM's estimate is 4 % above it
    claim = { bounds = { "l2", "dram" }, stalls = { "memory", "lsu_busy" } },
    defaults = { grid = 160, block = 256, regs = 32, shmem = 0, trips = 4, footprint = 1 * MB, seed = 14 },
    ranges = { grid = { 60, 160 }, block = { values = { 128, 256 } }, trips = { 2, 6 },
      footprint = { values = { 64 * KB, 128 * KB, 256 * KB } } },
    make = function(p)
      return desc(p, {
        idx = { kind = "coalesced", footprint = 64 * MB },
        table = { kind = "random", base = 0x100000000, footprint = p.footprint },
      }, {
        { "ld_global", stream = "idx" }, { "imad", dep = 1 }, { "ld_global", stream = "table", dep = 1 },
        { "fp32", dep = 1 }, { "int" },
      })
    end,
  },
  {
    name = "divergent_loop", regime = "control divergence",
    summary = "control-divergent loop: trip counts differ per warp (up to 8 x), half the lanes idle in the branch",
    claim = { bounds = { "latency", "blocks" }, stalls = { "dependence", "no_eligible_warp" } },
    defaults = { grid = 40, block = 256, regs = 32, shmem = 0, trips = 4, spread = 28, active = 16, seed = 15 },
    ranges = { grid = { 8, 40 }, block = { values = { 128, 256 } }, trips = { 2, 4 }, spread = { 4, 28 },
      active = { 8, 24 } },
    make = function(p)
      return desc(p, nil, {
        { "int", dep = 6 }, { "branch", dep = 1 },
        { "fp32", dep = 6, active = p.active }, { "fp32", dep = 1, active = p.active },
        { "fp32", dep = 1, active = p.active }, { "branch" },
      })
    end,
  },
  {
    name = "atomic_histogram", regime = "atomics",
    summary = "atomics-bound histogram: a coalesced load, then ATOMG.ADD to random bins of a 16 KB table",
    claim = { bounds = { "l2" }, stalls = { "memory", "lsu_busy" } },
    defaults = { grid = 160, block = 256, regs = 32, shmem = 0, trips = 4, footprint = 16 * KB, seed = 27 },
    ranges = { grid = { 60, 160 }, block = { values = { 128, 256 } }, trips = { 2, 6 },
      footprint = { values = { 4 * KB, 16 * KB, 64 * KB } } },
    make = function(p)
      return desc(p, {
        data = { kind = "coalesced", footprint = 64 * MB },
        bins = { kind = "random", base = 0x100000000, footprint = p.footprint },
      }, {
        { "ld_global", stream = "data" }, { "int", dep = 1 }, { "atom_global", stream = "bins", dep = 1 },
      })
    end,
  },
  {
    name = "tiny_blocks", regime = "launch",
    summary = "block-lifetime-bound: 8192 one-warp blocks of a few instructions each (an L2-resident 32 KB array)",
    claim = { bounds = { "blocks" }, stalls = { "dependence", "memory", "idle", "no_eligible_warp" } },
    defaults = { grid = 8192, block = 32, regs = 32, shmem = 0, trips = 1, footprint = 32 * KB, seed = 28 },
    ranges = { grid = { 512, 2048 }, block = { values = { 32, 64 } }, trips = { 1, 2 } },
    make = function(p)
      return desc(p, { a = { kind = "coalesced", footprint = p.footprint } }, {
        { "ld_global", stream = "a" }, { "fp32", dep = 1 }, { "fp32", dep = 1 },
        { "st_global", stream = "a", dep = 1 },
      })
    end,
  },
}

return M
