-- gpush.bounds: every bound of small kernels on shipped presets, computed by
-- hand in the comments; counts given directly; bad input.
local bounds = require "gpush.bounds"
local config = require "gpush.config"
local machine = require "gpush.machine"
local workloads = require "gpush.workloads"
local helper = require "spec_helper"

local function near(expected, actual, tol)
  assert(math.abs(expected - actual) <= (tol or 1e-9),
    ("expected %.6f, got %.6f"):format(expected, actual))
end

-- 80 blocks of 256 threads, 8 trips of four independent FFMA chains.
local ffma = {
  name = "ffma4", grid = 80, block = 256, regs = 32, trips = 8,
  body = { { "fp32", dep = 4 }, { "fp32", dep = 4 }, { "fp32", dep = 4 }, { "fp32", dep = 4 } },
}

describe("gpush.bounds", function()
  it("computes an FFMA kernel's bounds on gtx1080 by hand", function()
    local cfg = config.load("gtx1080")
    local b = assert(bounds.kernel(assert(workloads.kernel(ffma)), cfg))
    -- 640 warps x (32 FFMA + EXIT) = 21120 warp instructions
    near(21120, b.counts.insts)
    -- issue: 21120 / (20 SMs x 4 schedulers x 2) = 132
    near(132, b.cycles.issue)
    -- FMA pipe: 20480 x 1 cycle / (20 x 4) = 256: binds
    near(256, b.cycles.fma)
    -- a warp: chains of 6 cycles (FFMA latency), 8 trips: the last FFMA at
    -- 7 x 6 + 3 = 45, done at 51; EXIT at 46 + 6 = 52; between its block's
    -- launch L (8 warps x launch.warp_cycles), the SM's warm-up W and its
    -- block's drain D
    local fe = cfg.launch
    local L, W, D = 8 * fe.warp_cycles + fe.block_cycles, fe.warmup_cycles, fe.drain_cycles
    near(52 + L + W + D, b.cycles.latency)
    -- 8 blocks per SM (warps and registers), 80 blocks of path 52 + L + D
    -- over 20 SMs x 8 slots, after the warm-up
    assert.are.equal(8, b.blocks_per_sm)
    near(W + 80 * (52 + L + D) / 160, b.cycles.blocks)
    -- the front end: the 80th block leaves the dispatcher after 79 intervals,
    -- the busiest SM launches 4 blocks; then the shortest path and the drain
    near(math.max(79 * fe.dispatch_cycles + L, 4 * L) + 52 + D, b.cycles.dispatch)
    near(0, b.cycles.dram)
    assert.are.equal("latency", b.binds)
    near(52 + L + W + D + fe.kernel_cycles, b.total)
    near(b.total / 1607, b.time_us)
    -- without a front end the FMA pipe binds: 256 cycles
    b = assert(bounds.kernel(assert(workloads.kernel(ffma)), config.load("gtx1080", helper.no_front_end())))
    near(52, b.cycles.latency)
    near(26, b.cycles.blocks)
    assert.are.equal("fma", b.binds)
    near(256, b.bound)
    near(256, b.total)
    assert.are.equal("fma", b.ranked[1].name)
    assert.truthy(bounds.format(b):find("fma binds at 256 cycles", 1, true))
  end)

  it("finds gtx660ti's loads MSHR-bound: Little's law with 32 MSHRs per SM", function()
    local cfg = config.load("gtx660ti", { "l1.mshrs=32" })
    local k = assert(workloads.kernel {
      name = "loads", grid = 14, block = 256, trips = 4,
      streams = { a = { kind = "coalesced", footprint = 64 << 20 } },
      body = { { "ld_global", stream = "a" } },
    })
    local b = assert(bounds.kernel(k, cfg))
    -- 14 x 8 warps x 4 loads, one fresh 128 B line each: all miss L1 (global
    -- loads bypass it) and L2
    near(448, b.counts.mshr_requests)
    near(448, b.counts.mshr_dram_requests)
    -- every line is loaded once and never written: the hard counts are the same
    near(448, b.counts.hard_mshr_lines)
    near(448, b.counts.hard_mshr_cold_lines)
    near(448, b.counts.hard_l2_requests)
    near(b.cycles.mshr, b.estimates.mshr, 1e-9)
    assert.are.equal("mshr", b.expect)
    near(448 * 128, b.counts.dram_bytes)
    -- round trip 200 + 200 ns x 0.915 GHz = 383 cycles; 7 SMs x 32 MSHRs
    near(448 * 383 / (7 * 32), b.cycles.mshr, 1e-6)
    -- DRAM: 57344 B / (144.192 GB/s x 0.78 achievable / 0.915 GHz) = 466.5 cycles
    near(57344 / (1502e6 * 24 * 4 * 0.78 / 915e6), b.cycles.dram, 1e-6)
    assert.are.equal("mshr", b.binds)
  end)

  it("computes the same bounds from counts as from the kernel", function()
    local cfg = config.load("gtx1080")
    local k = assert(workloads.kernel(ffma))
    local from_kernel = assert(bounds.kernel(k, cfg))
    local from_counts = bounds.compute(from_kernel.counts, cfg, { threads = 256, registers = 32 })
    for _, name in ipairs(bounds.NAMES) do
      near(from_kernel.cycles[name], from_counts.cycles[name])
    end
    assert.are.equal(from_kernel.binds, from_counts.binds)
    -- counts by hand: 1000 SFU instructions over 10 blocks on gtx1080
    -- (interval 4): 4000 / (10 SMs x 4 schedulers) = 100
    cfg = config.load("gtx1080", helper.no_front_end())
    local b = bounds.compute({ blocks = 10, insts = 1000, class_insts = { sfu = 1000 } }, cfg,
      { threads = 128 })
    near(100, b.cycles.sfu)
    assert.are.equal("sfu", b.binds)
  end)

  it("reports a kernel that does not fit and refuses bad counts", function()
    local cfg = config.load("gtx1080")
    local k = assert(workloads.kernel { name = "fat", grid = 1, block = 1024, regs = 255,
      body = { { "fp32" } } })
    local b, err = bounds.kernel(k, cfg)
    assert.is_nil(b)
    assert.truthy(err:find("does not fit", 1, true))
    local ok, message = pcall(bounds.compute, { blocks = 1, dram_bytes = -5 }, cfg, { threads = 32 })
    assert.is_false(ok)
    assert.truthy(message:find("bounds: count 'dram_bytes' must be a finite number >= 0, got -5", 1, true))
    assert.has_error(function()
      bounds.compute({ blocks = 1, insts = "many" }, cfg, { threads = 32 })
    end)
  end)
end)

describe("gpush bounds", function()

  it("prints each launch's binding bound, and JSON", function()
    local code, out = helper.gpush_run { "bounds", "suite:pointer_chase", "--config", "gtx660ti", "-p", "l1.mshrs=32" }
    assert.are.equal(0, code)
    assert.truthy(out:find("lower bounds on 'gtx660ti'", 1, true))
    assert.truthy(out:match("pointer_chase%s+%d+%s+[%d.]+%s+[%d.]+%s+mshr"))
    code, out = helper.gpush_run { "bounds", "suite:pointer_chase", "--config", "gtx660ti", "-p", "l1.mshrs=32",
      "--json" }
    assert.are.equal(0, code)
    local rows = require("gpush.json").decode(out)
    assert.are.equal("mshr", rows[1].binds)
    assert.are.equal(rows[1].bound + 3694, rows[1].cycles) -- + launch.kernel_cycles
  end)

  it("refuses --policy and a missing --config", function()
    local code, _, err = helper.gpush_run { "bounds", "suite", "--config", "gtx1080", "--policy", "gto" }
    assert.are.equal(2, code)
    assert.truthy(err:find("takes no --policy", 1, true))
    code = helper.gpush_run { "bounds", "suite" }
    assert.are.equal(2, code)
  end)
end)

describe("gpush.bounds with a cache", function()
  it("reuses a kernel's counts across MSHRs and bandwidth, and recounts when occupancy changes", function()
    local k = assert(workloads.kernel(workloads.get("pointer_chase")))
    local cache = {}
    for _, o in ipairs { { "l1.mshrs=16" }, { "l1.mshrs=64", "dram.bandwidth_gbs=96" }, { "sm.max_warps=16" } } do
      local cfg = config.load("gtx660ti", o)
      local cached = assert(bounds.kernel(k, cfg, cache))
      local fresh = assert(bounds.kernel(k, cfg))
      for _, name in ipairs(bounds.NAMES) do
        assert.are.equal(fresh.cycles[name], cached.cycles[name], name)
      end
    end
    local entries = 0
    for _ in pairs(cache) do
      entries = entries + 1
    end
    assert.are.equal(2, entries) -- one pass at 64 warps per SM, one at 16
  end)

  -- the keys' parameter part is kept per configuration table while
  -- config.check finds it unchanged: a table changed and used again gets the
  -- counts of its new values
  it("keys a configuration changed after a count by its new values", function()
    local k = assert(workloads.kernel(workloads.get("pointer_chase")))
    local cache, cfg = {}, config.load("gtx660ti")
    local before = assert(bounds.kernel(k, cfg, cache))
    cfg.l2.latency = cfg.l2.latency * 3
    local after = assert(bounds.kernel(k, cfg, cache))
    local fresh = assert(bounds.kernel(k, config.load("gtx660ti", { "l2.latency=" .. cfg.l2.latency })))
    assert.is_true(after.cycles.latency > before.cycles.latency)
    for _, name in ipairs(bounds.NAMES) do
      assert.are.equal(fresh.cycles[name], after.cycles[name], name)
    end
  end)
  -- a key holds a short id of its parameters' text; ids are never reused,
  -- so texts forgotten (bounds.KEY_TEXTS) cost a count again, never another
  -- configuration's counts
  it("keys counts by an id of the parameters' text, right after forgetting the texts", function()
    local k = assert(workloads.kernel(workloads.get("pointer_chase")))
    local cache, kept = {}, bounds.KEY_TEXTS
    bounds.KEY_TEXTS = 1
    local ok, err = pcall(function()
      for round = 1, 2 do
        for _, latency in ipairs { 200, 300, 400 } do
          local cfg = config.load("gtx660ti", { "l2.latency=" .. latency })
          local cached = assert(bounds.kernel(k, cfg, cache))
          local fresh = assert(bounds.kernel(k, config.load("gtx660ti", { "l2.latency=" .. latency })))
          for _, name in ipairs(bounds.NAMES) do
            assert.are.equal(fresh.cycles[name], cached.cycles[name], name .. " at " .. latency .. ", round " .. round)
          end
        end
      end
    end)
    bounds.KEY_TEXTS = kept
    assert(ok, err)
  end)

  -- core.bounds_key_text is the Lua text of the parts, each value as
  -- tostring prints it: integers, floats that look like integers, -0.0,
  -- sums that print like another number, huge numbers, booleans, strings.
  it("builds the key text in C as tostring and table.concat would", function()
    local core = require "gpush.core"
    local values = { 3, 2.5, true, "x", 1e300, -0.0, 0.1 + 0.2, 4.0, 2 ^ 63, false }
    local at, prefixes, parts = { 10, 1, 2, 3, 4, 5, 6, 7, 8, 9 }, {}, {}
    for i, place in ipairs(at) do
      prefixes[i] = "p" .. i .. "="
      parts[i] = prefixes[i] .. tostring(values[place])
    end
    assert.are.equal(table.concat(parts, ";"), core.bounds_key_text(values, at, prefixes))
    assert.are.equal("", core.bounds_key_text(values, {}, {}))
    assert.has_error(function() core.bounds_key_text({ {} }, { 1 }, { "a=" }) end)
  end)

  -- Two configurations that differ in a parameter the counts read never
  -- share counts: every parameter that gtx660ti loads changed (an integer
  -- doubled, a number times 1.5, a boolean flipped) misses the base's
  -- counts unless each parameter that changed with it is one the counts
  -- do not read (bounds.lua's COUNT_FREE, written out here).
  it("never gives one configuration's counts to one differing in a parameter the counts read", function()
    local count_free = {}
    for _, path in ipairs { "sm.schedulers", "sm.issue_width", "l1.mshrs", "launch.kernel_cycles",
      "launch.dispatch_cycles", "launch.block_cycles", "launch.warp_cycles", "launch.drain_cycles",
      "launch.warmup_cycles", "dram.bandwidth_gbs", "dram.efficiency", "dram.achievable_gbs", "clock.mem_mhz",
      "dram.bus_bits", "dram.transfers_per_clock", "dram.channels", "l2.interval" } do
      count_free[path] = true
    end
    local k = assert(workloads.kernel(workloads.get("pointer_chase")))
    local base = config.load("gtx660ti")
    local m, flat, cache, counts = machine.of(base), config.flatten(base), {}, { dram_bytes = 1.0 }
    bounds.keep_counts(k, base, 4, cache, nil, counts)
    assert.are.equal(counts, bounds.cached_counts(k, config.load("gtx660ti"), m, 4, cache))
    local misses, hits = 0, 0
    for _, path in ipairs(config.paths()) do
      local v, changed = flat[path], nil
      if math.type(v) == "integer" then
        changed = { v * 2 }
      elseif type(v) == "number" then
        changed = { v * 1.5 }
      elseif type(v) == "boolean" then
        changed = { not v }
      end
      local ok, cfg = pcall(config.load, "gtx660ti", changed and { path .. "=" .. tostring(changed[1]) })
      if changed and ok and cfg then
        local free = true
        for p, w in pairs(config.flatten(cfg)) do
          free = free and (w == flat[p] or count_free[p] == true)
        end
        local got = bounds.cached_counts(k, cfg, m, 4, cache)
        assert.are.equal(free and counts or nil, got, path)
        misses, hits = misses + (got and 0 or 1), hits + (got and 1 or 0)
      end
    end
    assert.is_true(misses >= 40, "only " .. misses .. " parameters were changed") -- most of the schema
    assert.is_true(hits >= 5, "only " .. hits .. " count-free parameters were changed")
  end)
end)

describe("gpush.bounds with a caller's functional replay", function()
  local memsim = require "gpush.memsim"
  local core = require "gpush.core"

  -- A sweep over the occupancy (GPUMech's, with its replays) counts the
  -- kernel once per L1 size: the pass reads the occupancy only there.
  it("reuses the kernel pass across occupancies, the replay's totals in place, bit for bit", function()
    local count, passes = core.bounds_kernel, 0
    core.bounds_kernel = function(...)
      passes = passes + 1
      return count(...)
    end
    local ok, err = pcall(function()
      -- gtx660ti's L1 is fixed: one pass for every occupancy; a100's is what
      -- the blocks' shared memory leaves of the unified 192 KB: tiled_barrier
      -- (shared memory) gets a pass per L1 size, l2_resident (none) one
      for _, case in ipairs { { "gtx660ti", "l2_resident", 1 }, { "gtx660ti", "tiled_barrier", 1 },
        { "a100", "l2_resident", 1 }, { "a100", "tiled_barrier", 3 } } do
        local kernel = assert(workloads.kernel(workloads.get(case[2])))
        local cache, before, l1_sizes, blocks_seen = {}, passes, {}, {}
        for _, warps in ipairs { 8, 16, 32, 64 } do
          local cfg = config.load(case[1], { "sm.max_warps=" .. warps })
          local mem = assert(memsim.functional_cached(kernel, cfg, cache))
          local m, blocks = bounds.machine(cfg, kernel)
          local reused = assert(bounds.counts(kernel, cfg, m, blocks, cache, mem))
          local fresh = assert(bounds.counts(kernel, cfg, m, blocks, nil, mem))
          assert.are.same(fresh, reused)
          l1_sizes[mem.params.l1_bytes], blocks_seen[blocks] = true, true
        end
        local sizes, occupancies = 0, 0
        for _ in pairs(l1_sizes) do
          sizes = sizes + 1
        end
        for _ in pairs(blocks_seen) do
          occupancies = occupancies + 1
        end
        assert.is_true(occupancies >= 3, case[2]) -- the sweep does change the occupancy
        assert.are.equal(case[3], sizes, case[1] .. " " .. case[2])
        -- each point's fresh count, and one cached pass per L1 size
        assert.are.equal(4 + sizes, passes - before, case[1] .. " " .. case[2])
      end
    end)
    core.bounds_kernel = count
    assert(ok, err)
  end)

  -- l2_resident: loads reread lines (L2 hits, merges in the estimates), so
  -- every traffic count is non-zero and a mix-up of totals would show.
  local k = assert(workloads.kernel(workloads.get("l2_resident")))

  it("gives the counts and bounds of its own replay, bit for bit", function()
    for _, preset in ipairs { "gtx660ti", "gtx1080" } do
      local cfg = config.load(preset)
      local fresh = assert(bounds.kernel(k, cfg))
      local reused = assert(bounds.kernel(k, cfg, nil, assert(memsim.functional(k, cfg))))
      assert.is_true(fresh.counts.l2_requests > 0 and fresh.counts.dram_bytes > 0, preset)
      assert.are.same(fresh.counts, reused.counts)
      assert.are.same(fresh.cycles, reused.cycles)
      assert.are.same(fresh.estimates, reused.estimates)
    end
  end)

  it("does not replay the memory again, in bounds.kernel nor in GPUMech's floor", function()
    local cfg = config.load("gtx1080")
    local mem = assert(memsim.functional(k, cfg))
    -- replays: memsim.functional's, and core.bounds_kernel's own when it is given none
    local replay, count, replays = core.memsim_replay, core.bounds_kernel, 0
    core.memsim_replay = function(...)
      replays = replays + 1
      return replay(...)
    end
    core.bounds_kernel = function(kernel, machine, blocks, functional)
      replays = replays + (functional and 0 or 1)
      return count(kernel, machine, blocks, functional)
    end
    local ok, err = pcall(function()
      assert(bounds.kernel(k, cfg, nil, mem))
      assert.are.equal(0, replays)
      local r = assert(require("gpush.models").family("gpumech").predict(k, cfg))
      assert.are.equal(1, replays) -- GPUMech's own replay; the floor reuses it
      assert.truthy(r.hard_bound.name)
      local inputs = assert(require("gpush.models.mech.mcore").inputs_of(k, cfg))
      assert.are.equal(2, replays) -- so do M-core's path inputs
      assert.is_true(inputs.T_path > 0)
    end)
    core.memsim_replay, core.bounds_kernel = replay, count
    assert(ok, err)
  end)

  it("refuses a replay of other memory parameters, and a table that is no replay", function()
    local mem = assert(memsim.functional(k, config.load("gtx1080")))
    assert.has_error(function()
      bounds.kernel(k, config.load("gtx1080", { "l2.size_kb=1024" }), nil, mem)
    end, "gpush.bounds.kernel: the functional result was replayed with other memory parameters than "
      .. "'gtx1080' gives this kernel")
    assert.has_error(function()
      bounds.kernel(k, config.load("gtx1080"), nil, { pcs = {} })
    end, "gpush.bounds.kernel: 'functional' must be memsim.functional's result, got table")
    -- a replay that kept its parameters but not its totals: the C side names what is wrong
    local broken = { params = mem.params, pc_count = mem.pc_count }
    assert.has_error(function()
      bounds.kernel(k, config.load("gtx1080"), nil, broken)
    end, "bounds: the functional result's 'l2' must be a table of cache counts, got nil")
    -- the same through a cache that holds the kernel pass already (another occupancy's)
    local cache, cfg, cfg16 = {}, config.load("gtx1080"), config.load("gtx1080", { "sm.max_warps=16" })
    local m, blocks = bounds.machine(cfg, k)
    local m16, blocks16 = bounds.machine(cfg16, k)
    assert.are_not.equal(blocks, blocks16)
    assert(bounds.counts(k, cfg, m, blocks, cache, mem))
    assert.has_error(function()
      bounds.counts(k, cfg16, m16, blocks16, cache, { params = memsim.params(cfg16, k), pc_count = mem.pc_count })
    end, "bounds: the functional result's 'l2' must be a table of cache counts, got nil")
  end)
end)
