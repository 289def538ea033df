-- tools/hwkit/kernels/common.lua: the gpush descriptions of the hardware
-- kit's CUDA kernels (docs/workloads.md has the description format).
--
-- Each description file beside this one returns one description, built here,
-- of the plain kernel a benchmark times: per warp, its loop body in SASS
-- order, one entry per SASS instruction, with the class, the producers
-- (dep) and the memory stream, run `trips` times.  `hwkit` names the CUDA
-- kernel (its source and template, as c++filt writes it) for the checks:
-- spec/hwkit_spec.lua compares `regs` and `shmem` with ptxas, and
-- tools/hwkit/sass_check.lua compares the body's instruction classes with
-- the kernel's SASS from a run (sass.txt).  The SASS a body writes down is
-- what the PTX (checked) becomes on sm_90 as far as it is predictable: the
-- measured instructions exactly (FFMA, DFMA, MUFU, LDG, LDS, ATOM...), the
-- loop's own instructions (a counter, a compare, a branch) as predicted;
-- sass_check.lua says where a run's SASS differs.  Instructions before and
-- after the loop (parameter loads, the never-taken store) are not described:
-- a few a warp.  Grids are nominal (h100-pcie's 114 SMs): the measured CSV's
-- grid column gives the grid that ran.
local M = {}

local KB, MB = 1 << 10, 1 << 20

-- The PTX instruction each chain and stream operation is (a Lua pattern)
-- and how many of them a trip of 128 operations holds: spec/hwkit_nvcc_spec.lua
-- counts them in the kernel's PTX loop.
local PTX = {
  FfmaOp = { "^fma%.rn%.f32", 128 }, DfmaOp = { "^fma%.rn%.f64", 128 },
  MufuOp = { "^rsqrt%.approx%.ftz%.f32", 128 }, ImadOp = { "^mad%.lo%.s32", 128 },
  IntOp = { "^xor%.b32", 64 },                 -- and 64 add.s32 (with the counter's, 65)
}

-- The SASS classes of a chain's step where it is not one instruction of the
-- measured class: in a dependent chain ptxas issues IntOp's add as IMAD.IADD
-- (the FMA pipe) and its xor as LOP3 on sm_90, where in independent streams
-- both are IADD3/LOP3 on the integer pipe (read off an H100 run's SASS;
-- tools/hwkit/sass_check.lua).
local STEPS = { IntOp = { "imad", "int" } }

-- The loop's own instructions at the end of a trip: the counter, the
-- compare (depends on it) and the branch back (on the compare).
local function loop_tail(body)
  body[#body + 1] = { "uniform" } -- ptxas keeps the counter in a uniform register (UIADD3)
  body[#body + 1] = { "int", dep = 1 }
  body[#body + 1] = { "branch", dep = 1 }
  return body
end

-- A description with the kit's seed; hwkit.per_trip, where not given, is the
-- body's instructions of the measured class (for the integer classes that
-- takes in the loop's counter and compare).
local function desc(t)
  t.seed = t.seed or 31
  if t.hwkit and not t.hwkit.per_trip then
    local n = 0
    for _, op in ipairs(t.body) do
      n = n + (op[1] == t.hwkit.class and 1 or 0)
    end
    t.hwkit.per_trip = n
  end
  return t
end

-- A dependent chain: 128 instructions of `class` a trip, each reading the
-- previous one (the first, the previous trip's last: past the loop tail).
-- chains.cu: chain<Op, false>.
function M.chain(name, class, op, regs, trips)
  local body = {}
  local pattern = STEPS[op] or { class }
  for i = 1, 128 do
    body[i] = { pattern[(i - 1) % #pattern + 1], dep = i == 1 and 4 or 1 }
  end
  loop_tail(body)
  return desc { name = name, grid = 1, block = 32, regs = regs, shmem = 0, trips = trips, body = body,
    hwkit = { source = "chains.cu", kernel = ("chain<%s, false>"):format(op), class = class,
      ptx = PTX[op] } }
end

-- Independent streams: ILP 8 chains of `class`, 16 instructions each a trip,
-- interleaved (chain c's next instruction 8 back).  throughput.cu:
-- streams<Op, false>.
function M.stream_op(name, class, op, regs, trips)
  local body = {}
  for i = 1, 128 do
    body[i] = { class, dep = i <= 8 and 8 + 3 or 8 }
  end
  loop_tail(body)
  return desc { name = name, grid = 114 * 8, block = 256, regs = regs, shmem = 0, trips = trips, body = body,
    hwkit = { source = "throughput.cu", kernel = ("streams<%s, false>"):format(op), class = class,
      ptx = PTX[op] } }
end

-- FP32 and integer together (throughput.cu: mixed<false>): sixteen steps a
-- trip of four FFMA chains; every other step also advances four integer
-- chains by an IADD3 and a LOP3.
function M.mixed(name, regs, trips)
  local body, first, last = {}, {}, {}
  local function add(class, chain)
    local at = #body + 1
    body[at] = { class, dep = last[chain] and (at - last[chain]) or nil }
    first[chain] = first[chain] or at
    last[chain] = at
  end
  for j = 0, 15 do
    for c = 1, 4 do
      add("fp32", c)
      if j % 2 == 0 then
        add("int", 4 + c)
        add("int", 4 + c)
      end
    end
  end
  -- each chain's first instruction reads its last of the previous trip
  local length = #body + 3
  for chain = 1, 8 do
    body[first[chain]].dep = length - last[chain] + first[chain]
  end
  loop_tail(body)
  return desc { name = name, grid = 114 * 8, block = 256, regs = regs, shmem = 0, trips = trips, body = body,
    hwkit = { source = "throughput.cu", kernel = "mixed<false>", class = "fp32", per_trip = 64,
      ptx = { "^fma%.rn%.f32", 64 } } }
end

-- A pointer chase (pchase.cu: chase<bypass, false>): one 8-byte load a
-- trip, its address the previous trip's load.
function M.chase(name, footprint, loads, bypass)
  return desc { name = name, grid = 1, block = 32, regs = 8, shmem = 0, trips = loads,
    streams = { p = { kind = "chase", footprint = footprint } },
    body = loop_tail { { "ld_global", stream = "p", width = 8, dep = 4 } },
    hwkit = { source = "pchase.cu", kernel = ("chase<%s, false>"):format(bypass and "true" or "false"),
      class = "ld_global", per_trip = 1, ptx = { bypass and "^ld%.global%.cg%.u64" or "^ld%.global%.ca%.u64", 1 } } }
end

-- STREAM kernels (stream.cu: stream<kind, false>), in the form of the suite's
-- stream_triad: 16-byte accesses, thread g at element g + t x threads.  A
-- trip: the 64-bit index step (two integer instructions), the addresses
-- (two a array), the loads, the FFMAs, the store, the loop tail.
local STREAM_KIND = { triad = 0, copy = 1, read = 2 }
local STREAM_REGS = { triad = 20, copy = 14, read = 20 }
function M.stream(name, kind, grid)
  local trips, block = 8, 256
  local bytes = grid * block * trips * 16
  local function array(base)
    return { kind = "coalesced", base = base, footprint = bytes }
  end
  local body = { { "int" }, { "int", dep = 1 } }
  local loads = kind == "triad" and { "b", "c" } or { "b" }
  for _, s in ipairs(loads) do
    body[#body + 1] = { "int", dep = #body }
    body[#body + 1] = { "int", dep = 1 }
    body[#body + 1] = { "ld_global", stream = s, width = 16, dep = 1 }
  end
  if kind == "triad" then
    for i = 1, 4 do
      body[#body + 1] = { "fp32", dep = { i, i + 3 } }
    end
  elseif kind == "read" then
    -- acc.x += x.x ...: each reads the load and its own previous trip
    for i = 1, 4 do
      body[#body + 1] = { "fp32", dep = { i, 12 } }
    end
  end
  if kind ~= "read" then
    body[#body + 1] = { "int", dep = #body }
    body[#body + 1] = { "int", dep = 1 }
    -- the store reads its address and the data: the FFMAs, or the load
    body[#body + 1] = { "st_global", stream = "a", width = 16, dep = kind == "triad" and { 1, 3, 4, 5 } or { 1, 3 } }
  end
  loop_tail(body)
  local streams = { b = array(0x100000000) }
  if kind == "triad" then
    streams.c = array(0x200000000)
  end
  if kind ~= "read" then
    streams.a = array(0x300000000)
  end
  return desc { name = name, grid = grid, block = block, regs = STREAM_REGS[kind], shmem = 0, trips = trips,
    streams = streams, body = body,
    hwkit = { source = "stream.cu", kernel = ("stream<(Kind)%d, false>"):format(STREAM_KIND[kind]),
      class = "ld_global", per_trip = #loads, ptx = { "^ld%.global%.v4%.", #loads } } }
end

-- Shared-memory bandwidth (shared.cu: lds_bw<false>): four LDS a trip from
-- an 8 KB tile, lanes `stride` bytes apart, folded into an accumulator by
-- two FFMAs.
function M.lds_bw(name, stride)
  local body = {
    { "ld_shared", stream = "tile" }, { "ld_shared", stream = "tile" },
    { "ld_shared", stream = "tile" }, { "ld_shared", stream = "tile" },
    { "fp32", dep = { 3, 4, 8 } },       -- acc = a0 * a1 + acc (the previous trip's)
    { "fp32", dep = { 1, 3, 4 } },       -- acc = a2 * a3 + acc
  }
  loop_tail(body)
  return desc { name = name, grid = 114 * 8, block = 256, regs = 18, shmem = 8 * KB, trips = 64,
    streams = { tile = { kind = "shared", footprint = 8 * KB, stride = stride } }, body = body,
    hwkit = { source = "shared.cu", kernel = "lds_bw<false>", class = "ld_shared", per_trip = 4,
      ptx = { "^ld%.volatile%.shared%.f32", 4 } } }
end

-- The LDS chain (shared.cu: lds_chain<false>): one LDS a trip, its address
-- the previous LDS's value; lanes 4 bytes apart (no bank conflict).
function M.lds_chain(name)
  return desc { name = name, grid = 1, block = 32, regs = 15, shmem = 1 * KB, trips = 2048,
    streams = { tile = { kind = "shared", footprint = 1 * KB, stride = 4 } },
    body = loop_tail { { "ld_shared", stream = "tile", dep = 4 } },
    hwkit = { source = "shared.cu", kernel = "lds_chain<false>", class = "ld_shared", per_trip = 1,
      ptx = { "^ld%.volatile%.shared%.u32", 1 } } }
end

-- Global atomics (atomics.cu: atom_global<false>): a trip loads a word
-- (coalesced), masks it, forms the bin's address and adds to the bin
-- (RED.ADD, no value returned).  `bins` bytes of 4-byte bins: 16 KB
-- (atom_hist) or one bin (atom_same).
function M.atom_global(name, bins)
  local body = {
    { "int" }, { "int", dep = 1 },                      -- the data address
    { "ld_global", stream = "data", dep = 1 },
    { "int", dep = 1 },                                 -- & mask
    { "imad", dep = 1 },                                -- the bin's address
    { "atom_global", stream = "bins", dep = 1 },
  }
  loop_tail(body)
  return desc { name = name, grid = 114 * 8, block = 256, regs = 18, shmem = 0, trips = 8,
    streams = { data = { kind = "coalesced", footprint = 64 * MB },
      bins = { kind = "random", base = 0x100000000, footprint = bins } }, body = body,
    hwkit = { source = "atomics.cu", kernel = "atom_global<false>", class = "atom_global", per_trip = 1,
      ptx = { "^atom%.global%.add%.u32", 1 } } }
end

-- Shared-memory atomics (atomics.cu: atom_shared<false>): as atom_global,
-- with ATOMS.ADD to 256 bins a block, lanes in different banks.
function M.atom_shared(name)
  local body = {
    { "int" }, { "int", dep = 1 },
    { "ld_global", stream = "data", dep = 1 },
    { "int", dep = 1 },                                 -- & 7, then lane + 32 x
    { "int", dep = 1 },
    { "atom_shared", stream = "bins", dep = 1 },
  }
  loop_tail(body)
  return desc { name = name, grid = 114 * 8, block = 256, regs = 16, shmem = 1 * KB, trips = 8,
    streams = { data = { kind = "coalesced", footprint = 64 * MB },
      bins = { kind = "shared", footprint = 1 * KB, stride = 4 } }, body = body,
    hwkit = { source = "atomics.cu", kernel = "atom_shared<false>", class = "atom_shared", per_trip = 1,
      ptx = { "^atom%.shared%.add%.u32", 1 } } }
end

-- Short blocks (dispatch.cu: dispatch_lean<false>): straight-line, one
-- trip: the thread index, the address, one 16-byte load, three FADDs and the
-- sentinel compare (the EXIT is gpush's own).  `shmem`: the dynamic shared
-- memory a block is launched with.
function M.dispatch_lean(name, shmem)
  return desc { name = name, grid = 16384, block = 256, regs = 10, shmem = shmem, trips = 1,
    streams = { a = { kind = "coalesced", footprint = 4 * KB } },
    body = {
      { "other" },                                      -- S2R tid
      { "imad", dep = 1 },                              -- the address
      { "ld_global", stream = "a", width = 16, dep = 1 },
      { "fp32", dep = 1 }, { "fp32", dep = 1 }, { "fp32", dep = 1 },
      { "fp32", dep = 1 },                              -- FSETP against the sentinel
    },
    hwkit = { source = "dispatch.cu", kernel = "dispatch_lean<false>", class = "ld_global", per_trip = 1,
      ptx = { "^ld%.global%.v4%.f32", 1 }, dynamic_shmem = shmem } }
end

-- Short blocks with about 70 registers (dispatch.cu: dispatch_fat<false>):
-- sixteen 16-byte loads from sixteen 4 KB slices, then 63 dependent FADDs
-- starting from the last load.
function M.dispatch_fat(name)
  local streams, body = {}, { { "other" }, { "imad", dep = 1 } }
  for j = 1, 16 do
    local s = "a" .. j
    streams[s] = { kind = "coalesced", base = (j - 1) * 4 * KB, footprint = 4 * KB }
    body[#body + 1] = { "ld_global", stream = s, width = 16, dep = #body - 1 }
  end
  -- 63 FADDs (loads at 3..18): the first adds the last load's w to the first
  -- load's x; FADD k then adds component k - 1 of the sum's order, from load
  -- (k - 1) // 4 + 1
  for k = 1, 63 do
    body[#body + 1] = { "fp32", dep = k == 1 and { 1, 16 } or { 1, 15 + k - (k - 1) // 4 } }
  end
  body[#body + 1] = { "fp32", dep = 1 }                 -- FSETP against the sentinel
  return desc { name = name, grid = 16384, block = 256, regs = 70, shmem = 0, trips = 1, streams = streams,
    body = body,
    hwkit = { source = "dispatch.cu", kernel = "dispatch_fat<false>", class = "ld_global", per_trip = 16,
      ptx = { "^ld%.volatile%.global%.v4%.f32", 16 } } }
end

return M
