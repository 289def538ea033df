-- gpush.memsim: the functional mode on the synthetic suite and presets.
local memsim = require "gpush.memsim"
local config = require "gpush.config"
local workloads = require "gpush.workloads"

-- The former suite's kernels (fixed inputs: spec/fixtures/legacy_suite.lua)
-- at a small grid.
local legacy = require "fixtures.legacy_suite"
local function small(name, grid)
  return assert(workloads.kernel(legacy.get(name, grid or 64)))
end

local function helper_shared()
  return require("spec_helper").shared
end

local function totals(r)
  local t = { instructions = 0, l1 = 0, l2 = 0, dram = 0 }
  for _, pc in pairs(r.pcs) do
    t.instructions = t.instructions + pc.instructions
    t.l1, t.l2, t.dram = t.l1 + pc.l1_hits, t.l2 + pc.l2_hits, t.dram + pc.dram
  end
  return t
end

describe("gpush.memsim functional mode", function()
  it("derives the model's parameters from a configuration", function()
    local p = memsim.params(config.load("gtx660ti"), small("stream_triad"))
    assert.are.equal(7, p.sms)
    assert.are.equal(8, p.blocks_per_sm)
    assert.are.equal(16 * 1024, p.l1_bytes)
    assert.is_false(p.cache_global)
    assert.are.equal(3, p.l2_slices)
    assert.is_near(200 * 915 / 1000, p.dram_latency, 1e-9)
    assert.are.equal(0, memsim.params(config.load("quadro-fx580"), small("stream_triad")).l2_bytes)
  end)

  it("builds the cache key in C as the Lua walk builds it", function()
    local core = require "gpush.core"
    local kernel = small("stream_triad")
    local checked = 0
    for _, name in ipairs(config.presets()) do
      local ok, p = pcall(memsim.params, config.load(name), kernel)
      if ok then
        checked = checked + 1
        local key = core.params_key(p)
        assert.is_string(key, name)
        assert.are.equal(memsim.params_key_walk(p), key, name)
        assert.are.equal(key, memsim.params_key(p))
      end
    end
    assert.is_true(checked >= 10)
    -- nested tables, every leaf type the walk prints alike, sorted keys
    local odd = { b = { z = -0.0, a = 1 / 0, m = { deep = "x" } }, a = 1, a_ = 1.0, A = false,
      n = 0 / 0, s = "semi;colon", t = true, big = 2 ^ 63, i = math.mininteger }
    assert.are.equal(memsim.params_key_walk(odd), core.params_key(odd))
    assert.are.equal("A=false;a=1;a_=1.0;b.a=inf;b.m.deep=x;b.z=-0.0",
      core.params_key(odd):match("^(.-);big="))
    assert.are.equal("", core.params_key({}))
    -- what only the walk answers: C gives it back, params_key walks
    local with_meta = setmetatable({ a = 1 }, { __index = function() return 2 end })
    for _, t in ipairs({ { [1] = 1 }, { f = print }, with_meta, { a = { [true] = 1 } } }) do
      assert.is_nil(core.params_key(t))
    end
    assert.are.equal("a=1", memsim.params_key(with_meta))
    assert.are.equal("x=1", memsim.params_key({ x = 1, y = 2 }, { y = true }))
  end)

  it("keys a replay in C (core.memsim_key) exactly where the parameters' text is the same", function()
    local core = require "gpush.core"
    local machine = require "gpush.machine"
    -- presets, occupancies (0 replays as 1), shared memory (a unified L1
    -- shrinks) and one parameter of each kind moved: integers, booleans, the
    -- latencies (numbers, printed), an L1 size that leaves the key alone
    local overrides = { {}, { ["l1.latency"] = 36 }, { ["l2.latency"] = 201.5 }, { ["shared.latency"] = 31 },
      { ["const.latency"] = 29 }, { ["l2.ways"] = 8 }, { ["sm.count"] = 8 }, { ["l1.cache_global"] = true },
      { ["dram.bandwidth_gbs"] = 96 } }
    local cases = {}
    for _, name in ipairs { "gtx660ti", "gtx1080", "a100", "quadro-fx580" } do
      for i, o in ipairs(name == "gtx660ti" and overrides or { {} }) do
        local m = machine.of(config.load(name, o))
        for _, blocks in ipairs { 0, 1, 2, 8 } do
          for _, shared in ipairs { 0, 49152 } do
            cases[#cases + 1] = { label = ("%s/%d/%d/%d"):format(name, i, blocks, shared),
              key = core.memsim_key(m, blocks, shared), text = memsim.params_key(m:memsim(blocks, shared)) }
          end
        end
      end
    end
    local same = 0
    for i = 1, #cases do
      for j = i + 1, #cases do
        local a, b = cases[i], cases[j]
        assert.are.equal(a.text == b.text, a.key == b.key, a.label .. " against " .. b.label)
        same = same + (a.text == b.text and 1 or 0)
      end
    end
    -- both answers occur: blocks 0 and 1, the bandwidth (not a replay
    -- parameter), the shared memory of a fixed L1
    assert.is_true(same > #cases)
    assert.has_error(function() core.memsim_key(machine.of(config.load("gtx660ti")), -1, 0) end)
  end)

  it("compares parameter tables as their cache keys do", function()
    local p = memsim.params(config.load("gtx1080"), small("stream_triad"))
    local q = memsim.params(config.load("gtx1080"), small("stream_triad"))
    assert.is_true(memsim.params_equal(p, q))
    assert.are.equal(memsim.params_key(p), memsim.params_key(q))
    q.sms = q.sms + 1
    assert.is_false(memsim.params_equal(p, q))
    assert.is_false(memsim.params_equal({ a = { b = 1 } }, { a = { b = 2 } }))
    assert.is_false(memsim.params_equal({ a = 1 }, { a = 1, b = 2 }))
    assert.is_false(memsim.params_equal({ a = 1, b = 2 }, { a = 1 }))
    assert.is_false(memsim.params_equal({ a = 1 }, { a = { 1 } }))
    assert.is_false(memsim.params_equal({ a = 1 }, { a = 1.0 })) -- "1" vs "1.0", as the keys
    assert.is_true(memsim.params_equal({ a = { b = true } }, { a = { b = true } }))
    -- leaves that differ yet print alike: C's fast answer is no, the walk's yes
    assert.is_true(memsim.params_equal({ a = 0.1 + 0.2 }, { a = 0.3 }))
    assert.is_true(memsim.params_equal({ a = 0 / 0 }, { a = 0 / 0 }))
    assert.is_false(memsim.params_equal({ a = 0.0 }, { a = -0.0 }))
    assert.is_true(memsim.params_equal({ a = 1 }, { a = "1" }))
    -- C's answer alone: never yes where the printed keys differ
    local core = require "gpush.core"
    assert.is_true(core.params_same(p, memsim.params(config.load("gtx1080"), small("stream_triad"))))
    assert.is_false(core.params_same({ a = 0.1 + 0.2 }, { a = 0.3 }))
    assert.is_false(core.params_same({ a = 0.0 }, { a = -0.0 }))
    assert.is_false(core.params_same({ a = 1 }, { a = 1.0 }))
    assert.is_false(core.params_same({ a = 1 }, { a = 1, b = 2 }))
    assert.is_false(core.params_same({ a = { b = 1 } }, { a = { b = 2 } }))
    assert.is_true(core.params_same({ a = { b = -0.0 } }, { a = { b = -0.0 } }))
    local cyclic = {}
    cyclic.self = cyclic
    assert.is_false(core.params_same(cyclic, cyclic)) -- too deep: left to the walk
  end)

  it("sends a streaming kernel to DRAM and a reusing one to the caches", function()
    local cfg = config.load("gpumech-baseline")
    local stream = assert(memsim.functional(small("stream_triad"), cfg))
    for _, pc in pairs(stream.pcs) do
      if pc.opcode:match("^LDG") then
        assert.are.equal(pc.instructions, pc.dram)       -- every streamed load misses
        assert.are.equal(420, pc.amat)                   -- 120 + 300
      else
        assert.are.equal(pc.instructions, pc.l2_hits)    -- write-allocating stores stop at L2
      end
    end
    local reuse = totals(assert(memsim.functional(small("cache_reuse"), cfg)))
    assert.is_true(reuse.l1 + reuse.l2 > 0.85 * reuse.instructions) -- 7 of 8 here
    assert.is_true(reuse.l1 > 0) -- Table I's L1 caches global loads
  end)

  it("keeps global loads out of Kepler's L1, and AMAT between the level latencies", function()
    local cfg = config.load("gtx660ti")
    local r = assert(memsim.functional(small("cache_reuse"), cfg))
    assert.are.equal(0, r.l1.accesses)
    for _, pc in pairs(r.pcs) do
      assert.is_true(pc.amat >= cfg.l2.latency - 1e-9)
      assert.is_true(pc.amat <= cfg.l2.latency + r.params.dram_latency + 1e-9)
    end
  end)

  it("counts DRAM traffic in access-sized requests, stores included", function()
    local r = assert(memsim.functional(small("stream_triad"), config.load("rtx3070")))
    assert.are.equal((r.dram_bytes_read + r.dram_bytes_written) / 32, r.dram_requests)
    assert.is_true(r.dram_bytes_read > 0)
  end)

  it("has no caches and coalesces per half-warp on the compute capability 1.1 Quadro", function()
    local r = assert(memsim.functional(small("stream_triad"), config.load("quadro-fx580")))
    assert.is_true(r.params.cc1x)
    assert.are.equal(0, r.l1.hits + r.l2.hits)
    for _, pc in pairs(r.pcs) do
      if pc.opcode:match("^LDG") then
        assert.are.equal(2 * pc.instructions, pc.requests) -- one 64 B transaction per half-warp
        assert.are.equal(391 * 1125 / 1000, pc.amat)     -- l2.latency 0 + DRAM
      end
    end
  end)

  it("counts shared-memory bank conflicts", function()
    local r = assert(memsim.functional(small("tiled_barrier"), config.load("gtx1080")))
    assert.are.equal(0, r.bank_conflicts) -- the tile is read at unit stride
    local d = {}
    for k, v in pairs(legacy.get("tiled_barrier")) do
      d[k] = v
    end
    d.grid = 16
    d.streams = { a = d.streams.a, b = d.streams.b, tile = { kind = "shared", footprint = 8192, stride = 8 } }
    r = assert(memsim.functional(assert(workloads.kernel(d)), config.load("gtx1080")))
    assert.is_true(r.bank_conflicts > 0)
    for _, pc in pairs(r.pcs) do
      if pc.opcode:match("^LDS") then
        assert.are.equal(2 * pc.instructions, pc.shared_passes) -- stride 2 words: 2 passes
      end
    end
  end)

  it("gives constant loads the constant-cache latency", function()
    if not require("spec_helper").have_shared_traces() then
      pending("../shared/traces not found: the real-trace check is skipped")
      return
    end
    local cfg = config.load("rtx3070")
    local t = assert(require("gpush.trace").open(helper_shared() .. "/traces/vectoradd-sm80"))
    local _, k = t:kernels()()
    local r = assert(memsim.functional(k, cfg))
    local seen = 0
    for _, pc in pairs(r.pcs) do
      if pc.opcode:match("^U?LDC") then
        assert.are.equal(cfg.const.latency, pc.amat)
        seen = seen + 1
      end
    end
    assert.is_true(seen > 0)
  end)

  it("gives the same result twice", function()
    local k = small("divergent_gather")
    local a = memsim.functional(k, config.load("gtx1080"))
    local b = memsim.functional(k, config.load("gtx1080"))
    assert.are.same(a.pcs, b.pcs) -- built on first use
    a.replay, b.replay = nil, nil -- the results in C: two userdata
    assert.are.same(a, b)
  end)

  it("replays through a kernel's cache (its kept preparation) as without one", function()
    local core = require "gpush.core"
    for _, name in ipairs { "tiled_barrier", "divergent_gather", "stream_triad" } do
      local k, cache = small(name), {}
      for _, warps in ipairs { 64, 8, 24, 48 } do
        local cfg = config.load("gtx660ti", { ["sm.max_warps"] = warps })
        local kept = assert(memsim.functional_cached(k, cfg, cache))
        local fresh = assert(memsim.functional(k, cfg))
        assert.are.same(fresh.pcs, kept.pcs)
        fresh.replay, kept.replay = nil, nil
        assert.are.same(fresh, kept)
      end
      local preps = 0
      for key in pairs(cache) do
        preps = preps + (key:match("|prep$") and 1 or 0)
      end
      assert.are.equal(1, preps) -- one preparation for the kernel's four replays
    end
    -- a preparation is of one kernel
    local prep = assert(core.memsim_prepare(small("stream_triad")))
    local m = require("gpush.machine").of(config.load("gtx660ti"), 1)
    assert.has_error(function() core.memsim_replay(small("tiled_barrier"), m, 1, prep) end,
      "bad argument #4 to 'memsim_replay' (memsim: the prepared replay is of another kernel)")
  end)

  it("carries a replay across a kernel's prefixes as each prefix replayed from its start", function()
    local core = require "gpush.core"
    local machine = require "gpush.machine"
    -- each prefix against its own replay from the first wave, bit for bit:
    -- samples of w, 2w, 4w, 8w waves and the launch's partial wave (as
    -- gpush.sampling takes them), then a shorter one, a whole number of
    -- waves, another occupancy and another kernel's prefix through the
    -- same carry (each must start again or go on correctly)
    local opened = {}
    local function replays_alike(k, bps, n, carry)
      local p = k
      if n then
        p = assert(k:prefix(n))
        opened[#opened + 1] = p
      end
      local m = machine.of(config.load("gtx660ti"), 1)
      local fresh = assert(core.memsim_replay(p, m, bps, assert(core.memsim_prepare(p))))
      local carried = assert(core.memsim_replay(p, m, bps, assert(core.memsim_prepare(p)), carry))
      assert.are.same(fresh.replay:pcs(p), carried.replay:pcs(p))
      fresh.replay, carried.replay = nil, nil
      assert.are.same(fresh, carried)
    end
    for _, name in ipairs { "stream_triad", "divergent_gather", "tiled_barrier" } do
      local k, carry = small(name, 1500), core.memsim_carry()
      for _, bps in ipairs { 1, 3 } do
        local c = 7 * bps
        for _, n in ipairs { c + 5, 2 * c + 5, 4 * c + 5, 8 * c + 5, 3 * c + 5, 9 * c, 9 * c + 1 } do
          replays_alike(k, bps, n, carry)
        end
      end
      replays_alike(k, 2, nil, carry) -- the whole kernel after its prefixes
      replays_alike(k, 2, 6 * 14 + 3, carry)
      replays_alike(small("stream_triad", 700), 2, 8 * 14 + 3, carry) -- another kernel's
    end
    for _, p in ipairs(opened) do
      p:close()
    end
    local m = machine.of(config.load("gtx660ti"), 1)
    assert.has_error(function() core.memsim_replay(small("stream_triad"), m, 1, nil, core.memsim_carry()) end,
      "bad argument #5 to 'memsim_replay' (memsim: a carried replay needs a preparation)")
  end)
end)

describe("gpush.memsim timed replay", function()
  it("never beats the configured DRAM bandwidth; MSHRs bound what a stream gets", function()
    local k = small("stream_triad", 256)
    local cfg = config.load("gtx660ti", { "l1.mshrs=32" }) -- GPUMech Table I's count
    local r = assert(memsim.timed_replay(k, cfg))
    assert.is_true(r.dram_gbs <= cfg.dram.bandwidth_gbs * (1 + 1e-9))
    -- Little's law: 7 SMs x 32 MSHRs x 128 B per round trip of L2 + DRAM
    -- latency (200 cycles + 200 ns = 419 ns) is 68.4 GB/s of reads, under
    -- the 144 GB/s the bus offers; the stream's loads keep every MSHR busy
    -- and get nearly all of it (the stores' write-backs come on top)
    local round_trip_ns = cfg.l2.latency / cfg.clock.core_mhz * 1e3 + cfg.dram.latency_ns
    local little_gbs = cfg.sm.count * cfg.l1.mshrs * 128 / round_trip_ns
    local read_gbs = r.dram_bytes_read / (r.last_dram_done / cfg.clock.core_mhz * 1e3)
    assert.is_true(math.abs(little_gbs - 68.4) < 0.1)
    assert.is_true(read_gbs <= little_gbs and read_gbs > 0.95 * little_gbs)
    local wide = config.load("gtx660ti", { "l1.mshrs=1024" })
    r = assert(memsim.timed_replay(k, wide))
    assert.is_true(r.dram_gbs > 0.8 * wide.dram.achievable_gbs)
    assert.is_true(r.dram_gbs <= wide.dram.achievable_gbs * (1 + 1e-9))
  end)

  it("runs a stream faster with more bandwidth and a chase no slower with more MSHRs", function()
    local k = small("stream_triad", 256)
    local slow = assert(memsim.timed_replay(k, config.load("gtx660ti", { "dram.bandwidth_gbs=96" })))
    local fast = assert(memsim.timed_replay(k, config.load("gtx660ti", { "dram.bandwidth_gbs=192" })))
    assert.is_true(fast.last_cycle < slow.last_cycle)
    local chase = small("divergent_gather", 64)
    local few = assert(memsim.timed_replay(chase, config.load("gtx660ti", { "l1.mshrs=16" })))
    local many = assert(memsim.timed_replay(chase, config.load("gtx660ti", { "l1.mshrs=64" })))
    assert.is_true(many.last_cycle <= few.last_cycle)
    assert.is_true(few.mshr_full_stalls > many.mshr_full_stalls)
  end)
end)
