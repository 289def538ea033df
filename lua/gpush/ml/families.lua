-- gpush.ml.families: the kernel families of the simulated ML corpus
-- (docs/ml.md, "The kernel families").  A family is one base description
-- and its seeded variants; the corpus holds the regime suite's sixteen
-- (gpush.workloads.regimes: one bottleneck each) and the ones below, which
-- combine phases and bottlenecks the way applications do, so that a family
-- the models never saw has relatives among those they did.  Several follow
-- the kernels of Wu et al.'s benchmark list (Rodinia, SHOC, Parboil, AMD
-- APP SDK; HPCA 2015, L276-L288) and of ../shared/traces (vectorAdd,
-- Rodinia BFS, matrixMul), which are themselves too small to size for a
-- 32-CU grid (1 to 196 blocks, a fixed grid), so their instruction mix and
-- access pattern are described here instead.
--
--   families.list                 -- every family: the regime entries, then these
--   families.get(name)            -- one entry, or nil and a message
--   families.describe(desc, p)    -- desc's family at parameters p (same name)
--
-- Entries have the regime entries' shape (gpush.workloads.regimes): name,
-- regime (here what the family mixes), summary, defaults, ranges, make(p).
-- Parameters beyond the regime ones: taps, dims, clusters, steps (loop
-- stages of a shared-memory algorithm), probes (dependent lookups), rt
-- (register tile: FMAs per shared load), sfu (transcendentals per
-- element), scalar (uniform-datapath instructions per trip), pitch (bytes
-- between rows of a transposed access).
local regimes = require "gpush.workloads.regimes"
local workloads = require "gpush.workloads"

local M = {}

local KB, MB = 1 << 10, 1 << 20

-- A description with the geometry of p and the given streams and body.
local function desc(p, streams, body)
  return { grid = p.grid, block = p.block, regs = p.regs, shmem = p.shmem, trips = p.trips,
    trip_spread = p.spread, seed = p.seed, streams = streams, body = body }
end

-- A coalesced stream over the bytes the whole grid touches in its trips
-- (each array read once: DRAM traffic), starting at `base`.
local function streaming(p, base, width)
  return { kind = "coalesced", base = base, footprint = p.grid * p.block * p.trips * (width or 4) }
end

-- Appends `n` copies of op (a table copied each time) to body.
local function rep(body, n, op)
  for _ = 1, n do
    local o = {}
    for k, v in pairs(op) do
      o[k] = v
    end
    body[#body + 1] = o
  end
  return body
end

-- A shared-memory stage: `loads` LDS from `stream`, `alu` ops of `class`
-- on them, an STS, a barrier (active: lanes still working at this stage).
local function shared_stage(body, loads, alu, class, active)
  rep(body, loads, { "ld_shared", stream = "tile", active = active })
  for i = 1, alu do
    body[#body + 1] = { class, dep = i == 1 and { 1, math.max(1, loads) } or 1, active = active }
  end
  body[#body + 1] = { "st_shared", stream = "tile", dep = 1, active = active }
  body[#body + 1] = { "barrier" }
  return body
end

-- A tiled shared-memory pass: a streamed load into the tile, a barrier,
-- `steps` stages of two LDS (the tile, then the view of it named `other`
-- at lane stride p.stride), `alu(body)` appending the work on them, two STS
-- back and a barrier; then the tile streamed out.
local function tile_stages(p, other, alu)
  local body = { { "ld_global", stream = "in" }, { "st_shared", stream = "tile", dep = 1 }, { "barrier" } }
  for _ = 1, p.steps do
    body[#body + 1] = { "ld_shared", stream = "tile" }
    body[#body + 1] = { "ld_shared", stream = other }
    alu(body)
    body[#body + 1] = { "st_shared", stream = "tile", dep = 1 }
    body[#body + 1] = { "st_shared", stream = other, dep = 2 }
    body[#body + 1] = { "barrier" }
  end
  body[#body + 1] = { "ld_shared", stream = "tile" }
  body[#body + 1] = { "st_global", stream = "out", dep = 1 }
  return desc(p, { ["in"] = streaming(p, 0x100000000), out = streaming(p, 0x200000000),
    tile = { kind = "shared", footprint = p.shmem, stride = 4 },
    [other] = { kind = "shared", footprint = p.shmem, stride = p.stride } }, body)
end

local SIZE = { grid = { 24, 96 }, block = { values = { 128, 256 } } }

-- The ranges every family draws its size from, plus its own.
local function ranges(own)
  local out = { grid = SIZE.grid, block = SIZE.block }
  for k, v in pairs(own) do
    out[k] = v
  end
  return out
end

M.mixes = {
  {
    name = "vector_add", regime = "dram + integer addressing",
    summary = "c[i] = a[i] + b[i] after the vectorAdd trace: IMAD/IADD address arithmetic, two loads, an add, a store",
    defaults = { grid = 64, block = 256, regs = 16, shmem = 0, trips = 2, width = 4, seed = 101 },
    ranges = ranges { trips = { 1, 3 }, width = { values = { 4, 8 } }, regs = { values = { 16, 24 } } },
    make = function(p)
      return desc(p, { a = streaming(p, 0x100000000, p.width), b = streaming(p, 0x200000000, p.width),
        c = streaming(p, 0x300000000, p.width) }, {
        { "imad" }, { "int", dep = 1 }, { "ld_global", stream = "a", width = p.width, dep = 1 },
        { "ld_global", stream = "b", width = p.width, dep = 2 }, { "fp32", dep = { 1, 2 } },
        { "st_global", stream = "c", width = p.width, dep = 1 }, { "int" }, { "branch", dep = 1 },
      })
    end,
  },
  {
    name = "saxpy_compute", regime = "dram + fma",
    summary = "y = f(x, y): two streamed loads, a dependent FFMA chain of `intensity`, a store (memory to compute bound as intensity grows)",
    defaults = { grid = 64, block = 256, regs = 24, shmem = 0, trips = 2, intensity = 8, seed = 102 },
    ranges = ranges { trips = { 1, 3 }, intensity = { 4, 24 } },
    make = function(p)
      local body = { { "ld_global", stream = "x" }, { "ld_global", stream = "y" }, { "fp32", dep = { 1, 2 } } }
      rep(body, p.intensity - 1, { "fp32", dep = 1 })
      body[#body + 1] = { "st_global", stream = "y", dep = 1 }
      return desc(p, { x = streaming(p, 0x100000000), y = streaming(p, 0x200000000) }, body)
    end,
  },
  {
    name = "stencil_const", regime = "l1/l2 reuse + constant memory",
    summary = "a 5-point stencil: neighbour loads that hit the caches, five coefficients from constant memory, FFMAs, a store",
    defaults = { grid = 64, block = 256, regs = 32, shmem = 0, trips = 4, footprint = 4 * MB, seed = 103 },
    ranges = ranges { trips = { 2, 6 }, footprint = { values = { 256 * KB, 1 * MB, 4 * MB, 16 * MB } } },
    make = function(p)
      local streams, body = { out = streaming(p, 0x400000000) }, {}
      for i, offset in ipairs { 0, 4, 8, 4096, 8192 } do
        streams["n" .. i] = { kind = "coalesced", base = 0x100000000 + offset, footprint = p.footprint }
        body[#body + 1] = { "ld_global", stream = "n" .. i }
      end
      rep(body, 5, { "ld_const" })
      for i = 1, 5 do -- point i and coefficient i (10 and 5 back), the previous sum
        body[#body + 1] = { "fp32", dep = i == 1 and { 10, 5 } or { 1, 10, 5 } }
      end
      body[#body + 1] = { "st_global", stream = "out", dep = 1 }
      return desc(p, streams, body)
    end,
  },
  {
    name = "conv_const", regime = "constant memory + fma",
    summary = "a 1-D convolution: per tap a coefficient from constant memory, an input load reused across taps (L1), an FFMA",
    defaults = { grid = 64, block = 256, regs = 32, shmem = 0, trips = 2, taps = 8, seed = 104 },
    ranges = ranges { trips = { 1, 3 }, taps = { 4, 16 } },
    make = function(p)
      local body = {}
      for t = 1, p.taps do
        body[#body + 1] = { "ld_const" }
        body[#body + 1] = { "ld_global", stream = "in" }
        body[#body + 1] = { "fp32", dep = t == 1 and { 1, 2 } or { 1, 2, 3 } }
      end
      body[#body + 1] = { "st_global", stream = "out", dep = 1 }
      return desc(p, { ["in"] = { kind = "coalesced", base = 0x100000000, footprint = p.grid * p.block * 4,
        reuse = p.taps }, out = streaming(p, 0x200000000) }, body)
    end,
  },
  {
    name = "spmv_csr", regime = "gather + control divergence",
    summary = "CSR sparse matrix-vector product: per nonzero a column index and value (streamed) and a gather of x; row lengths differ per warp",
    defaults = { grid = 64, block = 128, regs = 32, shmem = 0, trips = 4, spread = 8, footprint = 4 * MB, seed = 105 },
    ranges = ranges { trips = { 2, 6 }, spread = { 2, 16 }, footprint = { values = { 512 * KB, 4 * MB, 32 * MB } } },
    make = function(p)
      return desc(p, { col = streaming(p, 0x100000000), val = streaming(p, 0x200000000),
        x = { kind = "random", base = 0x300000000, footprint = p.footprint } }, {
        { "ld_global", stream = "col" }, { "ld_global", stream = "val" }, { "imad", dep = 2 },
        { "ld_global", stream = "x", dep = 1 }, { "fp32", dep = { 1, 3 } }, { "int" }, { "branch", dep = 1 },
      })
    end,
  },
  {
    name = "bfs_frontier", regime = "integer + divergent gathers",
    summary = "BFS level expansion after the Rodinia BFS trace: a mask byte per node, integer work, a third of the lanes gathering edges and visiting neighbours",
    defaults = { grid = 64, block = 256, regs = 24, shmem = 0, trips = 3, active = 10, footprint = 8 * MB, seed = 106 },
    ranges = ranges { trips = { 2, 4 }, active = { 4, 16 }, footprint = { values = { 1 * MB, 8 * MB, 64 * MB } } },
    make = function(p)
      return desc(p, { mask = streaming(p, 0x100000000, 1),
        edges = { kind = "random", base = 0x200000000, footprint = p.footprint },
        visited = { kind = "random", base = 0x300000000, footprint = p.footprint // 4 } }, {
        { "ld_global", stream = "mask", width = 1 }, { "int", dep = 1 }, { "branch", dep = 1 },
        { "imad", active = p.active }, { "ld_global", stream = "edges", dep = 1, active = p.active },
        { "int", dep = 1, active = p.active }, { "ld_global", stream = "visited", dep = 1, active = p.active },
        { "int", dep = 1, active = p.active }, { "st_global", stream = "visited", dep = 1, active = p.active },
        { "int" }, { "imad", dep = 1 }, { "branch" },
      })
    end,
  },
  {
    name = "matmul_regtile", regime = "shared memory + fma",
    summary = "GEMM after the matrixMul trace with register tiling: per k-step tiles streamed to shared memory, a barrier, `rt` FFMAs per shared load, a barrier",
    defaults = { grid = 32, block = 256, regs = 64, shmem = 16 * KB, trips = 4, rt = 8, seed = 107 },
    ranges = ranges { grid = { 16, 48 }, trips = { 2, 6 }, rt = { 4, 16 }, shmem = { values = { 8 * KB, 16 * KB } } },
    make = function(p)
      local body = { { "ld_global", stream = "a" }, { "ld_global", stream = "b" },
        { "st_shared", stream = "tile", dep = 2 }, { "st_shared", stream = "tile", dep = 2 }, { "barrier" } }
      for _ = 1, 4 do
        body[#body + 1] = { "ld_shared", stream = "row" }
        body[#body + 1] = { "ld_shared", stream = "tile" }
        for r = 1, p.rt do
          body[#body + 1] = { "fp32", dep = r == 1 and { 1, 2 } or { r, r + 1 } }
        end
      end
      body[#body + 1] = { "barrier" }
      return desc(p, { a = { kind = "coalesced", base = 0x100000000, footprint = 16 * MB },
        b = { kind = "coalesced", base = 0x200000000, footprint = 16 * MB },
        tile = { kind = "shared", footprint = p.shmem, stride = 4 },
        row = { kind = "shared", footprint = p.shmem, stride = 0 } }, body)
    end,
  },
  {
    name = "reduction_tree", regime = "dram + barriers",
    summary = "a sum reduction: streamed loads summed in registers, then a shared-memory tree of halving stages with barriers and one atomic per block",
    defaults = { grid = 64, block = 256, regs = 24, shmem = 1 * KB, trips = 2, ilp = 4, seed = 108 },
    ranges = ranges { trips = { 1, 3 }, ilp = { 2, 8 } },
    make = function(p)
      local body = {}
      rep(body, p.ilp, { "ld_global", stream = "in" })
      for i = 1, p.ilp do
        body[#body + 1] = { "fp32", dep = i == 1 and p.ilp or { 1, p.ilp } }
      end
      body[#body + 1] = { "st_shared", stream = "tile", dep = 1 }
      body[#body + 1] = { "barrier" }
      local active = 16
      while active >= 1 do
        shared_stage(body, 2, 1, "fp32", active)
        active = active // 2
      end
      body[#body + 1] = { "atom_global", stream = "sum", active = 1 }
      return desc(p, { ["in"] = streaming(p, 0x100000000), sum = { kind = "coalesced", base = 0x200000000,
        footprint = 64 }, tile = { kind = "shared", footprint = p.shmem, stride = 4 } }, body)
    end,
  },
  {
    name = "histogram_shared", regime = "shared atomics + dram",
    summary = "a privatised histogram: streamed loads, a bin computed per element, a shared-memory atomic per element, block bins merged by global atomics",
    defaults = { grid = 64, block = 256, regs = 24, shmem = 4 * KB, trips = 3, stride = 4, seed = 109 },
    ranges = ranges { trips = { 2, 4 }, stride = { values = { 0, 4, 36, 132 } }, shmem = { values = { 1 * KB, 4 * KB } } },
    make = function(p)
      return desc(p, { ["in"] = streaming(p, 0x100000000), bins = { kind = "shared", footprint = p.shmem,
        stride = p.stride }, merged = { kind = "random", base = 0x200000000, footprint = 1 * KB } }, {
        { "ld_global", stream = "in" }, { "int", dep = 1 }, { "imad", dep = 1 },
        { "atom_shared", stream = "bins", dep = 1 }, { "int" }, { "branch" },
        { "atom_global", stream = "merged", active = 4 },
      })
    end,
  },
  {
    name = "transpose_naive", regime = "uncoalesced stores",
    summary = "a matrix transpose without shared memory: coalesced row loads, column stores `pitch` bytes apart (one line per lane)",
    defaults = { grid = 64, block = 256, regs = 16, shmem = 0, trips = 2, pitch = 4096, seed = 110 },
    ranges = ranges { trips = { 1, 3 }, pitch = { values = { 256, 1024, 4096, 16384 } } },
    make = function(p)
      return desc(p, { ["in"] = streaming(p, 0x100000000), out = { kind = "strided", base = 0x200000000,
        stride = p.pitch, footprint = 64 * MB } }, {
        { "imad" }, { "ld_global", stream = "in", dep = 1 }, { "st_global", stream = "out", dep = 1 }, { "int" },
      })
    end,
  },
  {
    name = "transpose_shared", regime = "shared memory + dram",
    summary = "a tiled transpose: coalesced loads into shared memory, a barrier, column reads of the tile (bank conflicts unless padded), coalesced stores",
    defaults = { grid = 64, block = 256, regs = 16, shmem = 4 * KB, trips = 2, stride = 128, seed = 111 },
    ranges = ranges { trips = { 1, 3 }, stride = { values = { 4, 128, 132 } } },
    make = function(p)
      return desc(p, { ["in"] = streaming(p, 0x100000000), out = streaming(p, 0x200000000),
        tile = { kind = "shared", footprint = p.shmem, stride = 4 },
        col = { kind = "shared", footprint = p.shmem, stride = p.stride } }, {
        { "ld_global", stream = "in" }, { "st_shared", stream = "tile", dep = 1 }, { "barrier" },
        { "ld_shared", stream = "col" }, { "st_global", stream = "out", dep = 1 }, { "barrier" },
      })
    end,
  },
  {
    name = "nbody_tiled", regime = "fma + sfu + shared broadcast",
    summary = "all-pairs n-body: body positions tiled through shared memory, per pair a broadcast read, ten FFMAs and a reciprocal square root",
    defaults = { grid = 32, block = 256, regs = 40, shmem = 4 * KB, trips = 2, reuse = 8, seed = 112 },
    ranges = ranges { grid = { 16, 48 }, trips = { 1, 3 }, reuse = { 4, 16 } },
    make = function(p)
      local body = { { "ld_global", stream = "pos" }, { "st_shared", stream = "tile", dep = 1 }, { "barrier" } }
      for _ = 1, p.reuse do
        body[#body + 1] = { "ld_shared", stream = "body" }
        rep(body, 3, { "fp32", dep = 1 })
        body[#body + 1] = { "fp32", dep = { 1, 2, 3 } }
        body[#body + 1] = { "sfu", dep = 1 }
        body[#body + 1] = { "fp32", dep = 1 }
        rep(body, 3, { "fp32", dep = 1 })
      end
      body[#body + 1] = { "barrier" }
      return desc(p, { pos = { kind = "coalesced", base = 0x100000000, footprint = 1 * MB },
        tile = { kind = "shared", footprint = p.shmem, stride = 4 },
        body = { kind = "shared", footprint = p.shmem, stride = 0 } }, body)
    end,
  },
  {
    name = "black_scholes", regime = "sfu + fma + dram",
    summary = "option pricing: three streamed inputs, logarithm, square root, exponentials and the normal CDF (SFU) among FFMAs, two streamed outputs",
    defaults = { grid = 64, block = 256, regs = 32, shmem = 0, trips = 2, sfu = 4, seed = 113 },
    ranges = ranges { trips = { 1, 3 }, sfu = { 2, 6 } },
    make = function(p)
      local body = { { "ld_global", stream = "s" }, { "ld_global", stream = "k" }, { "ld_global", stream = "t" },
        { "fp32", dep = { 1, 2, 3 } } }
      for _ = 1, p.sfu do
        body[#body + 1] = { "sfu", dep = 1 }
        rep(body, 3, { "fp32", dep = 1 })
      end
      body[#body + 1] = { "st_global", stream = "call", dep = 1 }
      body[#body + 1] = { "fp32", dep = 2 }
      body[#body + 1] = { "st_global", stream = "put", dep = 1 }
      return desc(p, { s = streaming(p, 0x100000000), k = streaming(p, 0x200000000), t = streaming(p, 0x300000000),
        call = streaming(p, 0x400000000), put = streaming(p, 0x500000000) }, body)
    end,
  },
  {
    name = "monte_carlo_rng", regime = "integer + sfu",
    summary = "Monte Carlo paths: a xorshift generator (integer shifts and IMADs), a Box-Muller transform (log, sqrt, sin), FFMA accumulation, one store every few paths",
    defaults = { grid = 48, block = 256, regs = 32, shmem = 0, trips = 4, seed = 114, active = 8 },
    ranges = ranges { grid = { 24, 64 }, trips = { 2, 6 }, active = { 4, 32 } },
    make = function(p)
      return desc(p, { out = { kind = "coalesced", base = 0x100000000, footprint = 4 * MB } }, {
        { "uniform" }, { "int", dep = 6 }, { "int", dep = 1 }, { "int", dep = 1 }, { "imad", dep = 1 },
        { "fp32", dep = 1 }, { "sfu", dep = 1 }, { "sfu", dep = 1 }, { "sfu", dep = 2 }, { "fp32", dep = { 1, 2 } },
        { "fp32", dep = 1 }, { "st_global", stream = "out", dep = 1, active = p.active },
      })
    end,
  },
  {
    name = "kmeans_assign", regime = "constant memory + fma + dram",
    summary = "k-means assignment: a point's coordinates streamed in, each centroid's coordinates from constant memory, squared distances, a compare per centroid",
    defaults = { grid = 64, block = 256, regs = 32, shmem = 0, trips = 1, dims = 4, clusters = 8, seed = 115 },
    ranges = ranges { dims = { 2, 8 }, clusters = { 4, 16 } },
    make = function(p)
      local body = {}
      rep(body, p.dims, { "ld_global", stream = "pts" })
      for c = 1, p.clusters do
        for d = 1, p.dims do
          body[#body + 1] = { "ld_const" }
          -- the first centroid reads the point's coordinate d (dims + d back)
          body[#body + 1] = { "fp32", dep = c == 1 and { 1, p.dims + d } or { 1, 2 } }
        end
        body[#body + 1] = { "int", dep = 1 }
      end
      body[#body + 1] = { "st_global", stream = "out", dep = 1 }
      return desc(p, { pts = { kind = "coalesced", base = 0x100000000, footprint = p.grid * p.block * p.dims * 4 },
        out = streaming(p, 0x200000000) }, body)
    end,
  },
  {
    name = "mri_q", regime = "sfu + constant memory",
    summary = "MRI Q computation after Parboil: per k-space sample (constant memory) a phase, its sine and cosine, four FFMAs",
    defaults = { grid = 48, block = 256, regs = 24, shmem = 0, trips = 4, reuse = 6, seed = 116 },
    ranges = ranges { grid = { 24, 64 }, trips = { 2, 6 }, reuse = { 4, 10 } },
    make = function(p)
      local body = { { "ld_global", stream = "x" } }
      for r = 1, p.reuse do
        rep(body, 4, { "ld_const" })
        body[#body + 1] = { "fp32", dep = r == 1 and { 1, 2, 5 } or { 1, 2 } } -- the first reads the voxel
        body[#body + 1] = { "fp32", dep = { 1, 4 } }
        body[#body + 1] = { "sfu", dep = 1 }
        body[#body + 1] = { "sfu", dep = 2 }
        body[#body + 1] = { "fp32", dep = { 1, 2 } }
        body[#body + 1] = { "fp32", dep = { 2, 3 } }
      end
      body[#body + 1] = { "st_global", stream = "q", dep = 1 }
      return desc(p, { x = streaming(p, 0x100000000), q = streaming(p, 0x200000000) }, body)
    end,
  },
  {
    name = "lbm_d2q9", regime = "dram, read and write heavy",
    summary = "lattice Boltzmann collide in place: nine distributions streamed in, a collision of FFMAs, nine written back",
    defaults = { grid = 48, block = 128, regs = 48, shmem = 0, trips = 1, intensity = 3, seed = 117 },
    ranges = ranges { grid = { 24, 64 }, block = { values = { 64, 128 } }, intensity = { 2, 5 } },
    make = function(p)
      local streams, body = {}, {}
      for i = 1, 9 do -- in place: each distribution is read, then written back
        streams["f" .. i] = streaming(p, i << 32)
        body[#body + 1] = { "ld_global", stream = "f" .. i }
      end
      for i = 1, 9 do
        body[#body + 1] = { "fp32", dep = 10 - i + (i - 1) * (p.intensity + 1) }
        rep(body, p.intensity - 1, { "fp32", dep = 1 })
        body[#body + 1] = { "st_global", stream = "f" .. i, dep = 1 }
      end
      return desc(p, streams, body)
    end,
  },
  {
    name = "memset_store", regime = "dram writes",
    summary = "a fill: streamed stores only, with the index arithmetic",
    defaults = { grid = 64, block = 256, regs = 16, shmem = 0, trips = 2, width = 4, seed = 118 },
    ranges = ranges { trips = { 1, 3 }, width = { values = { 4, 8, 16 } } },
    make = function(p)
      return desc(p, { out = streaming(p, 0x100000000, p.width) }, {
        { "int" }, { "st_global", stream = "out", width = p.width, dep = 1 }, { "int" }, { "branch", dep = 1 },
      })
    end,
  },
  {
    name = "copy_strided", regime = "uncoalesced loads",
    summary = "a strided gather copy: loads `stride` bytes apart per lane, coalesced stores",
    defaults = { grid = 64, block = 256, regs = 16, shmem = 0, trips = 2, stride = 64, seed = 119 },
    ranges = ranges { trips = { 1, 3 }, stride = { values = { 8, 32, 128, 512 } } },
    make = function(p)
      return desc(p, { ["in"] = { kind = "strided", base = 0x100000000, stride = p.stride, footprint = 128 * MB },
        out = streaming(p, 0x200000000) }, {
        { "imad" }, { "ld_global", stream = "in", dep = 1 }, { "st_global", stream = "out", dep = 1 },
      })
    end,
  },
  {
    name = "hash_probe", regime = "dependent gathers + integer",
    summary = "hash-join probes: a streamed key, integer hashing, then `probes` dependent lookups into a table of `footprint` bytes",
    defaults = { grid = 64, block = 256, regs = 24, shmem = 0, trips = 2, probes = 2, footprint = 32 * MB, seed = 120 },
    ranges = ranges { trips = { 1, 3 }, probes = { 1, 4 }, footprint = { values = { 2 * MB, 32 * MB, 256 * MB } } },
    make = function(p)
      local body = { { "ld_global", stream = "keys" }, { "int", dep = 1 }, { "imad", dep = 1 }, { "int", dep = 1 } }
      for _ = 1, p.probes do
        body[#body + 1] = { "ld_global", stream = "table", dep = 1, width = 8 }
        body[#body + 1] = { "int", dep = 1 }
      end
      body[#body + 1] = { "st_global", stream = "out", dep = 1 }
      return desc(p, { keys = streaming(p, 0x100000000), out = streaming(p, 0x200000000),
        table = { kind = "random", base = 0x300000000, footprint = p.footprint } }, body)
    end,
  },
  {
    name = "scan_shared", regime = "shared memory + barriers",
    summary = "a block prefix sum: a load to shared memory, `steps` up- and down-sweep stages of LDS, add, STS and barrier with halving lanes, a store",
    defaults = { grid = 64, block = 256, regs = 16, shmem = 2 * KB, trips = 2, steps = 5, seed = 121 },
    ranges = ranges { trips = { 1, 3 }, steps = { 3, 8 } },
    make = function(p)
      local body = { { "ld_global", stream = "in" }, { "st_shared", stream = "tile", dep = 1 }, { "barrier" } }
      for s = 1, p.steps do
        shared_stage(body, 2, 1, "fp32", math.max(1, 32 >> (s - 1)))
      end
      for s = p.steps, 1, -1 do
        shared_stage(body, 2, 1, "fp32", math.max(1, 32 >> (s - 1)))
      end
      body[#body + 1] = { "ld_shared", stream = "tile" }
      body[#body + 1] = { "st_global", stream = "out", dep = 1 }
      return desc(p, { ["in"] = streaming(p, 0x100000000), out = streaming(p, 0x200000000),
        tile = { kind = "shared", footprint = p.shmem, stride = 4 } }, body)
    end,
  },
  {
    name = "bitonic_shared", regime = "shared memory + integer + barriers",
    summary = "a bitonic sort of a shared-memory tile: `steps` compare-exchange stages of two LDS, integer compares, two STS and a barrier",
    defaults = { grid = 48, block = 256, regs = 24, shmem = 4 * KB, trips = 1, steps = 10, stride = 8, seed = 122 },
    ranges = ranges { steps = { 6, 15 }, stride = { values = { 4, 8, 64 } } },
    make = function(p)
      return tile_stages(p, "partner", function(body) -- compare, exchange
        body[#body + 1] = { "int", dep = { 1, 2 } }
        body[#body + 1] = { "int", dep = 1 }
      end)
    end,
  },
  {
    name = "fft_shared", regime = "shared memory (conflicts) + fma + sfu",
    summary = "radix-2 FFT stages in shared memory: two LDS at a stage stride, a twiddle (sine or cosine), a complex butterfly of FFMAs, two STS, a barrier",
    defaults = { grid = 48, block = 256, regs = 32, shmem = 8 * KB, trips = 1, steps = 8, stride = 16, seed = 123 },
    ranges = ranges { steps = { 5, 10 }, stride = { values = { 4, 16, 64, 128 } }, shmem = { values = { 4 * KB, 8 * KB } } },
    make = function(p)
      return tile_stages(p, "strided", function(body) -- a twiddle, the butterfly
        body[#body + 1] = { "sfu" }
        body[#body + 1] = { "fp32", dep = { 1, 2 } }
        rep(body, 3, { "fp32", dep = { 1, 4 } })
      end)
    end,
  },
  {
    name = "mandelbrot", regime = "fma + control divergence",
    summary = "escape-time fractal after Phoronix MandelGPU: a dependent FFMA iteration whose trip count differs per warp, a rare store",
    defaults = { grid = 48, block = 256, regs = 24, shmem = 0, trips = 8, spread = 24, active = 24, seed = 124 },
    ranges = ranges { grid = { 24, 64 }, trips = { 4, 12 }, spread = { 8, 48 }, active = { 12, 32 } },
    make = function(p)
      return desc(p, { out = { kind = "coalesced", base = 0x100000000, footprint = 4 * MB } }, {
        { "fp32", dep = 5, active = p.active }, { "fp32", dep = 5, active = p.active },
        { "fp32", dep = { 1, 2 }, active = p.active }, { "int", dep = 1, active = p.active },
        { "branch", dep = 1 }, { "st_global", stream = "out", dep = 2, active = 1 },
      })
    end,
  },
  {
    name = "crc_bytes", regime = "integer + byte loads + constant memory",
    summary = "table-driven CRC: byte loads, shifts and XORs, a table lookup in constant memory per byte, scalar loop control",
    defaults = { grid = 64, block = 256, regs = 16, shmem = 0, trips = 4, scalar = 2, seed = 125 },
    ranges = ranges { trips = { 2, 6 }, scalar = { 1, 4 } },
    make = function(p)
      local body = { { "ld_global", stream = "data", width = 1 } }
      rep(body, p.scalar, { "uniform" })
      body[#body + 1] = { "int", dep = p.scalar + 1 }
      body[#body + 1] = { "int", dep = 1 }
      body[#body + 1] = { "ld_const", dep = 1 }
      body[#body + 1] = { "int", dep = { 1, 2 } }
      body[#body + 1] = { "int", dep = 1 }
      body[#body + 1] = { "branch" }
      return desc(p, { data = streaming(p, 0x100000000, 1) }, body)
    end,
  },
  {
    name = "dgemm_shared", regime = "fp64 + shared memory",
    summary = "double-precision GEMM tiles: global tiles to shared memory, a barrier, `reuse` shared reads each feeding two DFMAs, a barrier",
    defaults = { grid = 32, block = 256, regs = 64, shmem = 16 * KB, trips = 3, reuse = 8, seed = 126 },
    ranges = ranges { grid = { 16, 48 }, trips = { 2, 4 }, reuse = { 4, 12 } },
    make = function(p)
      local body = { { "ld_global", stream = "a", width = 8 }, { "st_shared", stream = "tile", dep = 1, width = 8 },
        { "barrier" } }
      for _ = 1, p.reuse do
        body[#body + 1] = { "ld_shared", stream = "tile", width = 8 }
        body[#body + 1] = { "fp64", dep = { 1, 3 } }
        body[#body + 1] = { "fp64", dep = { 2, 3 } }
      end
      body[#body + 1] = { "barrier" }
      return desc(p, { a = { kind = "coalesced", base = 0x100000000, footprint = 8 * MB },
        tile = { kind = "shared", footprint = p.shmem, stride = 8 } }, body)
    end,
  },
  {
    name = "xs_lookup", regime = "fp64 + random gathers",
    summary = "cross-section lookup after XSBench: a random energy index, gathers of 8-byte grid points, FP64 interpolation",
    defaults = { grid = 64, block = 256, regs = 48, shmem = 0, trips = 2, intensity = 4, footprint = 16 * MB, seed = 127 },
    ranges = ranges { trips = { 1, 3 }, intensity = { 2, 8 }, footprint = { values = { 1 * MB, 16 * MB, 128 * MB } } },
    make = function(p)
      local body = { { "int" }, { "ld_global", stream = "grid", dep = 1, width = 8 },
        { "ld_global", stream = "grid", dep = 2, width = 8 }, { "fp64", dep = { 1, 2 } } }
      rep(body, p.intensity - 1, { "fp64", dep = 1 })
      body[#body + 1] = { "st_global", stream = "out", dep = 1, width = 8 }
      return desc(p, { grid = { kind = "random", base = 0x100000000, footprint = p.footprint },
        out = streaming(p, 0x200000000, 8) }, body)
    end,
  },
  {
    name = "pathfinder_dp", regime = "shared memory + integer + barriers",
    summary = "dynamic-programming rows after Rodinia pathfinder: per step three neighbour LDS, integer minima, an STS and a barrier; a streamed cost row per step",
    defaults = { grid = 64, block = 256, regs = 16, shmem = 2 * KB, trips = 2, steps = 6, seed = 128 },
    ranges = ranges { trips = { 1, 3 }, steps = { 3, 10 } },
    make = function(p)
      local body = {}
      for _ = 1, p.steps do
        body[#body + 1] = { "ld_global", stream = "wall" }
        rep(body, 3, { "ld_shared", stream = "tile" })
        body[#body + 1] = { "int", dep = { 1, 2 } }
        body[#body + 1] = { "int", dep = { 1, 3 } }
        body[#body + 1] = { "int", dep = { 1, 6 } }
        body[#body + 1] = { "st_shared", stream = "tile", dep = 1 }
        body[#body + 1] = { "barrier" }
      end
      body[#body + 1] = { "st_global", stream = "out", dep = 3 }
      return desc(p, { wall = { kind = "coalesced", base = 0x100000000, footprint = 64 * MB },
        out = streaming(p, 0x200000000), tile = { kind = "shared", footprint = p.shmem, stride = 4 } }, body)
    end,
  },
  {
    name = "hotspot_shared", regime = "shared stencil + fma + barriers",
    summary = "thermal simulation after Rodinia hotspot: temperature and power tiles in shared memory, `steps` iterations of five LDS, FFMAs, an STS and a barrier",
    defaults = { grid = 48, block = 256, regs = 32, shmem = 8 * KB, trips = 1, steps = 4, seed = 129 },
    ranges = ranges { grid = { 24, 64 }, trips = { 1, 2 }, steps = { 2, 8 } },
    make = function(p)
      local body = { { "ld_global", stream = "temp" }, { "ld_global", stream = "power" },
        { "st_shared", stream = "tile", dep = { 1, 2 } }, { "barrier" } }
      for _ = 1, p.steps do
        rep(body, 5, { "ld_shared", stream = "tile" })
        body[#body + 1] = { "fp32", dep = { 1, 2 } }
        body[#body + 1] = { "fp32", dep = { 1, 4 } }
        body[#body + 1] = { "fp32", dep = { 1, 6 } }
        body[#body + 1] = { "fp32", dep = 1 }
        body[#body + 1] = { "st_shared", stream = "tile", dep = 1 }
        body[#body + 1] = { "barrier" }
      end
      body[#body + 1] = { "st_global", stream = "out", dep = 3 }
      return desc(p, { temp = streaming(p, 0x100000000), power = streaming(p, 0x200000000),
        out = streaming(p, 0x300000000), tile = { kind = "shared", footprint = p.shmem, stride = 4 } }, body)
    end,
  },
  {
    name = "backprop_update", regime = "dram read-modify-write + l1",
    summary = "a weight update after Rodinia backprop: streamed weights and their previous deltas, an L1-resident activation, three FFMAs, two streamed stores",
    defaults = { grid = 64, block = 256, regs = 24, shmem = 0, trips = 2, seed = 130 },
    ranges = ranges { trips = { 1, 3 } },
    make = function(p)
      return desc(p, { w = streaming(p, 0x100000000), dw = streaming(p, 0x200000000),
        act = { kind = "coalesced", base = 0x300000000, footprint = 8 * KB } }, {
        { "ld_global", stream = "w" }, { "ld_global", stream = "dw" }, { "ld_global", stream = "act" },
        { "fp32", dep = { 1, 2 } }, { "fp32", dep = 1 }, { "fp32", dep = { 1, 5 } },
        { "st_global", stream = "w", dep = 1 }, { "st_global", stream = "dw", dep = 2 },
      })
    end,
  },
  {
    name = "cutcp_cutoff", regime = "fma + sfu + divergence",
    summary = "cutoff Coulomb potential after Parboil cutcp: atoms broadcast from shared memory, distances, and for the lanes within the cutoff a reciprocal square root and FFMAs",
    defaults = { grid = 32, block = 128, regs = 32, shmem = 4 * KB, trips = 2, reuse = 8, active = 12, seed = 131 },
    ranges = ranges { grid = { 16, 48 }, block = { values = { 64, 128 } }, trips = { 1, 3 }, reuse = { 4, 12 },
      active = { 4, 24 } },
    make = function(p)
      local body = { { "ld_global", stream = "atoms" }, { "st_shared", stream = "tile", dep = 1 }, { "barrier" } }
      for _ = 1, p.reuse do
        body[#body + 1] = { "ld_shared", stream = "atom" }
        rep(body, 3, { "fp32", dep = 1 })
        body[#body + 1] = { "int", dep = 1 }
        body[#body + 1] = { "sfu", dep = 2, active = p.active }
        body[#body + 1] = { "fp32", dep = 1, active = p.active }
        body[#body + 1] = { "fp32", dep = 1, active = p.active }
      end
      body[#body + 1] = { "barrier" }
      body[#body + 1] = { "st_global", stream = "lattice", dep = 2 }
      return desc(p, { atoms = { kind = "coalesced", base = 0x100000000, footprint = 512 * KB },
        lattice = streaming(p, 0x200000000), tile = { kind = "shared", footprint = p.shmem, stride = 4 },
        atom = { kind = "shared", footprint = p.shmem, stride = 0 } }, body)
    end,
  },
  {
    name = "sad_texture", regime = "texture + integer",
    summary = "sum of absolute differences after Parboil sad: reference pixels through the texture path, current pixels streamed, integer differences and sums",
    defaults = { grid = 64, block = 128, regs = 32, shmem = 0, trips = 3, taps = 4, footprint = 1 * MB, seed = 132 },
    ranges = ranges { trips = { 2, 4 }, taps = { 2, 8 }, footprint = { values = { 256 * KB, 1 * MB, 8 * MB } } },
    make = function(p)
      local body = { { "ld_global", stream = "cur", width = 2 } }
      for t = 1, p.taps do
        body[#body + 1] = { "tex", stream = "ref", width = 2 }
        body[#body + 1] = { "int", dep = t == 1 and { 1, 2 } or { 1, 3 } } -- the texel, the running sum
        body[#body + 1] = { "int", dep = 1 }
      end
      body[#body + 1] = { "st_global", stream = "out", dep = 1, width = 2 }
      return desc(p, { cur = streaming(p, 0x100000000, 2), out = streaming(p, 0x200000000, 2),
        ref = { kind = "coalesced", base = 0x300000000, footprint = p.footprint, reuse = 2 } }, body)
    end,
  },
  {
    name = "atomic_contention", regime = "global atomics, contended",
    summary = "a global accumulator: a streamed value, an FFMA, an atomic add to one of a few hot addresses",
    defaults = { grid = 64, block = 256, regs = 16, shmem = 0, trips = 2, footprint = 256, seed = 133 },
    ranges = ranges { trips = { 1, 3 }, footprint = { values = { 64, 256, 4096 } } },
    make = function(p)
      return desc(p, { ["in"] = streaming(p, 0x100000000),
        hot = { kind = "random", base = 0x200000000, footprint = p.footprint } }, {
        { "ld_global", stream = "in" }, { "fp32", dep = 1 }, { "atom_global", stream = "hot", dep = 1 },
      })
    end,
  },
  {
    name = "gemv_rows", regime = "dram + l1 reuse",
    summary = "a matrix-vector product: matrix rows streamed from DRAM, the vector re-read from a small L1/L2-resident array, a dependent FFMA accumulation",
    defaults = { grid = 64, block = 256, regs = 24, shmem = 0, trips = 2, ilp = 4, footprint = 16 * KB, seed = 134 },
    ranges = ranges { trips = { 1, 3 }, ilp = { 2, 6 }, footprint = { values = { 4 * KB, 16 * KB, 256 * KB } } },
    make = function(p)
      local body = {}
      for i = 1, p.ilp do
        body[#body + 1] = { "ld_global", stream = "a" }
        body[#body + 1] = { "ld_global", stream = "x" }
        body[#body + 1] = { "fp32", dep = i == 1 and { 1, 2 } or { 1, 2, 3 } }
      end
      return desc(p, { a = { kind = "coalesced", base = 0x100000000, footprint = p.grid * p.block * p.trips * p.ilp * 4 },
        x = { kind = "coalesced", base = 0x200000000, footprint = p.footprint } }, body)
    end,
  },
  {
    name = "scalar_indexed", regime = "scalar ALU + scalar fetch + fma",
    summary = "a kernel with heavy wave-uniform work, as GCN compilers emit it: `scalar` scalar-ALU instructions and a scalar (constant) load per trip driving vector FFMAs and a streamed load",
    defaults = { grid = 64, block = 256, regs = 24, shmem = 0, trips = 4, scalar = 4, intensity = 4, seed = 135 },
    ranges = ranges { trips = { 2, 6 }, scalar = { 2, 8 }, intensity = { 2, 8 } },
    make = function(p)
      local body = {}
      rep(body, p.scalar, { "uniform", dep = 1 })
      body[#body + 1] = { "ld_const", dep = 1 }
      body[#body + 1] = { "ld_global", stream = "in" }
      body[#body + 1] = { "fp32", dep = { 1, 2 } }
      rep(body, p.intensity - 1, { "fp32", dep = 1 })
      body[#body + 1] = { "st_global", stream = "out", dep = 1 }
      return desc(p, { ["in"] = streaming(p, 0x100000000), out = streaming(p, 0x200000000) }, body)
    end,
  },
  {
    name = "streamcluster_dist", regime = "dram + local-memory reuse + fma",
    summary = "distance to a candidate centre after Rodinia streamcluster: point coordinates streamed, the centre from L1 (local memory), FFMAs, a compare and a store",
    defaults = { grid = 64, block = 256, regs = 32, shmem = 0, trips = 1, dims = 8, seed = 136 },
    ranges = ranges { dims = { 4, 16 } },
    make = function(p)
      local body = {}
      for d = 1, p.dims do
        body[#body + 1] = { "ld_global", stream = "pts" }
        body[#body + 1] = { "ld_local", stream = "centre" }
        body[#body + 1] = { "fp32", dep = d == 1 and { 1, 2 } or { 1, 2, 3 } }
      end
      body[#body + 1] = { "int", dep = 1 }
      body[#body + 1] = { "st_global", stream = "out", dep = 1 }
      return desc(p, { pts = { kind = "coalesced", base = 0x100000000, footprint = p.grid * p.block * p.dims * 4 },
        centre = { kind = "coalesced", base = 0x200000000, footprint = 2 * KB }, out = streaming(p, 0x300000000) },
        body)
    end,
  },
  {
    name = "binary_search", regime = "dependent l2 gathers",
    summary = "sorted-array search after Rodinia particlefilter's resampling: `probes` dependent gathers into an L2-sized table, an integer compare each",
    defaults = { grid = 64, block = 256, regs = 16, shmem = 0, trips = 1, probes = 8, footprint = 256 * KB, seed = 137 },
    ranges = ranges { probes = { 4, 12 }, footprint = { values = { 64 * KB, 256 * KB, 2 * MB } } },
    make = function(p)
      local body = { { "ld_global", stream = "u" } }
      for _ = 1, p.probes do
        body[#body + 1] = { "ld_global", stream = "cdf", dep = 1 }
        body[#body + 1] = { "int", dep = 1 }
      end
      body[#body + 1] = { "st_global", stream = "out", dep = 1 }
      return desc(p, { u = streaming(p, 0x100000000), out = streaming(p, 0x200000000),
        cdf = { kind = "random", base = 0x300000000, footprint = p.footprint } }, body)
    end,
  },
}

-- Every family: the regime suite's, then the mixes.
M.list = {}
for _, entry in ipairs(regimes.list) do
  M.list[#M.list + 1] = entry
end
for _, entry in ipairs(M.mixes) do
  M.list[#M.list + 1] = entry
end

local by_name = {}
for _, entry in ipairs(M.list) do
  assert(not by_name[entry.name], "two families named " .. entry.name)
  by_name[entry.name] = entry
end

-- A family's entry by name, or nil and a message.
function M.get(name)
  local entry = by_name[name]
  if entry then
    return entry
  end
  return nil, ("no kernel family '%s'"):format(tostring(name))
end

-- Description `d` (a variant of a family) rebuilt at parameters p, keeping
-- its name and variant number.
function M.describe(d, p)
  local entry = assert(M.get(d.base))
  local out = workloads.describe(entry, p, d.name)
  out.variant = d.variant
  return out
end

return M
