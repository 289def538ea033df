-- gpush.gpumech under gpush's equations (the default): queueing that respects
-- Little's law, the L2 and unit throughputs, blocks held by their longest
-- warp; each case against a hand computation or a first-principles bound,
-- with the paper's equations beside it where they differ.
local gpumech = require "gpush.gpumech"
local config = require "gpush.config"
local core = require "gpush.core"
local memsim = require "gpush.memsim"
local occupancy = require "gpush.occupancy"
local workloads = require "gpush.workloads"
local helper = require "spec_helper"

-- The MSHR-busy cycles of an L1-missing load request, summed over the
-- functional replay's requests: each holds its entry for its own round trip,
-- L2 latency for an L2 hit, L2 + DRAM latency for an L2 miss (counted here
-- from memsim's totals, not from GPUMech's parameters).
local function mshr_busy_cycles(mem, cfg)
  return mem.mshr_requests * cfg.l2.latency + mem.mshr_dram_requests * mem.params.dram_latency
end

-- The busiest SM's share of the MSHR-busy cycles / MSHRs (Little's law with
-- the MSHRs as servers), plus the launch cost.
local function little_bound(k, cfg)
  local mem = assert(memsim.functional(k, cfg))
  local info = k:info()
  local busiest = math.ceil(info.thread_blocks / cfg.sm.count) * info.warps_per_block
  return mshr_busy_cycles(mem, cfg) / info.warps * busiest / cfg.l1.mshrs + cfg.launch.kernel_cycles
end

local stack_sum = helper.stack_sum

describe("gpush.gpumech (gpush's equations)", function()
  it("waits whole MSHR rounds in a Fig. 9-style burst: 8 requests on 6 MSHRs take 2 x 420 cycles", function()
    -- four warps on one SM, each: two integer instructions, a load of two L1-missing lines
    -- (the 256 B a warp's 8-byte stride covers), a consumer; GPUMech's Table I (L2 120 +
    -- DRAM 300 = 420 cycles a miss), one scheduler issuing one instruction a cycle
    local k = assert(workloads.kernel { name = "fig9", grid = 1, block = 128, trips = 1,
      streams = { a = { kind = "strided", footprint = 64 << 20, stride = 8 } },
      body = { { "int" }, { "int" }, { "ld_global", stream = "a", width = 4 }, { "fp32", dep = 1 } } })
    local cfg = config.load("gpumech-baseline", { "l1.mshrs=6", "launch.kernel_cycles=0" })
    local r = assert(gpumech.predict(k, cfg))
    assert.are.equal(2 * 420, r.cycles) -- W1-W3 in the first round, W4 in the second
    assert.are.equal("mshr", r.bound)
    assert.is_near(r.cpi, stack_sum(r), 1e-9)
    -- the paper's equations: Eq. 19's mean wait of the burst, 10/8 - 1 = 0.25 rounds, once
    -- (and Eq. 21's few cycles of DRAM queueing): 448 + 105 + 0.1 = 553 cycles
    local paper = assert(gpumech.predict(k, cfg, { equations = "paper" }))
    assert.are.equal(448, paper.profile.total_cycles) -- 2 issues, the load, 420, the FFMA's 25
    assert.are.equal(0.25 * 420, paper.mshr_delay)
    assert.is_near(448 + paper.nonoverlapped + 105 + paper.dram_delay, paper.cycles, 1e-9)
    assert.is_true(paper.cycles < 0.7 * r.cycles)
  end)

  it("never predicts pointer chasing below Little's law with 16-256 MSHRs (the paper's equations do)", function()
    local k = helper.suite_kernel("pointer_chase", 320) -- two blocks' worth of waves on gtx1080
    for _, mshrs in ipairs { 16, 32, 64, 128, 256 } do
      local cfg = config.load("gtx1080", { "l1.mshrs=" .. mshrs })
      local little = little_bound(k, cfg)
      local r = assert(gpumech.predict(k, cfg))
      assert.is_true(r.cycles >= little * (1 - 1e-9), mshrs)
      if mshrs <= 32 then -- MSHR-bound: every warp waits its rounds, no more
        assert.is_true(r.cycles <= 1.05 * little, mshrs)
        assert.are.equal("mshr", r.bound) -- at least 90 % busy
        assert.is_true(r.stack.MSHR >= r.stack.DRAM) -- r - 1 rounds of waiting a load, 1 of latency
        local paper = assert(gpumech.predict(k, cfg, { equations = "paper" }))
        assert.is_true(paper.cycles < little, mshrs) -- Eq. 19's burst wait, once
      end
    end
  end)

  it("keeps stream_triad between Little's law and bytes over bandwidth with 8-256 MSHRs", function()
    local k = helper.suite_kernel("stream_triad", 320)
    local last = math.huge
    for _, mshrs in ipairs { 8, 16, 32, 64, 128, 256 } do
      local cfg = config.load("gtx1080", { "l1.mshrs=" .. mshrs })
      local mem = assert(memsim.functional(k, cfg))
      local bytes = (mem.dram_bytes_read + mem.dram_bytes_written) / (cfg.dram.achievable_gbs * 1e3 / cfg.clock.core_mhz)
      local floor = math.max(little_bound(k, cfg), bytes + cfg.launch.kernel_cycles)
      local r = assert(gpumech.predict(k, cfg))
      assert.is_true(r.cycles >= floor * (1 - 1e-9), mshrs)
      assert.is_true(r.cycles <= 1.05 * floor, mshrs)
      assert.is_true(r.cycles <= last, mshrs) -- more MSHRs never slower
      last = r.cycles
    end
  end)

  it("holds an MSHR for its own request's round trip, while the warp waits for the slowest (by hand)", function()
    -- one warp on one SM, two MSHRs, L1 not caching global loads; each trip loads 32 lanes
    -- x 16 B of a 768 B (6-line) table: trip 1 lines 0-3 (four DRAM misses), trip 2 lines
    -- 4, 5 (DRAM) and 0, 1 (L2 hits: missed 6 requests earlier, beyond the 2 MSHRs' merge
    -- window); an FFMA consumes each load
    local k = assert(workloads.kernel { name = "mixed_trips", grid = 1, block = 32, trips = 2,
      streams = { a = { kind = "coalesced", footprint = 768 } },
      body = { { "ld_global", stream = "a", width = 16 }, { "fp32", dep = 1 } } })
    local cfg = config.load("gpumech-baseline", { "l1.mshrs=2", "l1.cache_global=false", "launch.kernel_cycles=0" })
    local mem = assert(memsim.functional(k, cfg))
    assert.are.equal(8, mem.mshr_requests)
    assert.are.equal(6, mem.mshr_dram_requests)
    local pcs = gpumech.pc_params(k, cfg, mem)
    -- the paper's Eq. 19 latency: both loads have a DRAM request, so 420 each
    assert.are.equal(420, pcs.avg_miss_latency)
    -- an entry's holding time: (6 x 420 + 2 x 120) / 8 requests
    assert.are.equal((6 * 420 + 2 * 120) / 8, pcs.mshr_hold_latency)
    assert.are.equal(6 / 8, pcs.miss_dram_fraction)
    local r = assert(gpumech.predict(k, cfg))
    -- the two MSHRs serve trip 1's four misses in two rounds of 420 and trip 2's in 420 +
    -- 120: 1,380 cycles = 4 rounds of 345 (the slowest-request rule: 4 x 420 = 1,680)
    assert.are.equal(4 * 345, r.mshr_rounds_cycles)
    -- the warp's path keeps the slowest request: 420 + 1 + 420 + 25 + 1 = 867 cycles alone
    -- (the load, the FFMA, the second load, its FFMA, EXIT); each load then waits r - 1 = 1
    -- round of 345 for an entry (4 requests on 2 MSHRs)
    assert.are.equal(867, r.profile.total_cycles)
    assert.is_near(867 + 2 * 345, r.cycles, 1e-6)
    assert.is_true(r.cycles >= r.hard_bound.cycles)
    -- the paper's equations keep Eq. 19's per-instruction latency
    local paper = assert(gpumech.predict(k, cfg, { equations = "paper" }))
    assert.are.equal(867, paper.profile.total_cycles)
    assert.is_true(paper.cycles < r.cycles)
  end)

  it("puts divergent_gather (32 requests a load) on the MSHR Little estimate where the MSHRs bind", function()
    -- gpumech-baseline: 61 % of the requests hit L2, so an entry is held 238 cycles on
    -- average, not the 420 of the loads' slowest requests (that rule gave 1.77 x); gtx660ti:
    -- 88 % reach DRAM.  The estimate has every SM's requests spread evenly over the SMs.
    local k = assert(workloads.kernel(workloads.get("divergent_gather")))
    for _, preset in ipairs { "gpumech-baseline", "gtx660ti" } do
      local cfg = config.load(preset)
      local mem = assert(memsim.functional(k, cfg))
      local estimate = mshr_busy_cycles(mem, cfg) / (cfg.sm.count * cfg.l1.mshrs) + cfg.launch.kernel_cycles
      local r = assert(gpumech.predict(k, cfg))
      assert.are.equal("mshr", r.bound, preset)
      assert.is_true(r.cycles >= estimate * (1 - 1e-9), preset)
      assert.is_true(r.cycles <= 1.02 * estimate, ("%s: %.0f vs %.0f"):format(preset, r.cycles, estimate))
      assert.is_true(r.cycles >= r.hard_bound.cycles, preset)
    end
  end)

  it("counts the SFU's issue throughput as its own category (1 warp instruction per interval per scheduler)", function()
    -- 160 blocks of 8 warps on gtx1080: 8 blocks, 64 warps, 16 per scheduler on each of 20 SMs;
    -- each warp: 4 trips of 4 independent SFU and 4 FFMA
    local k = assert(workloads.kernel { name = "sfu", grid = 160, block = 256, trips = 4, streams = {},
      body = { { "sfu" }, { "sfu" }, { "sfu" }, { "sfu" }, { "fp32", dep = 4 }, { "fp32", dep = 4 },
        { "fp32", dep = 4 }, { "fp32", dep = 4 } } })
    for _, interval in ipairs { 2, 8, 32 } do
      local cfg = config.load("gtx1080", helper.no_front_end(0, { "ops.sfu.interval=" .. interval }))
      local sfu_bound = 16 * 16 * interval -- warps per scheduler x SFU instructions x interval
      local r = assert(gpumech.predict(k, cfg))
      assert.is_true(r.cycles >= sfu_bound, interval)
      assert.is_true(r.cycles <= 1.05 * sfu_bound, interval)
      assert.are.equal("sfu", r.bound)
      assert.is_true(r.stack.SFU > 0, interval)
      -- the paper leaves the SFU to future work: the issue bound of 16 x 33 / 2 cycles
      local paper = assert(gpumech.predict(k, cfg, { equations = "paper" }))
      assert.is_true(paper.cycles < 300, interval)
    end
  end)

  it("counts the L2 slices' request rate when the MSHRs do not bind (divergent_gather on gtx660ti)", function()
    local k = helper.suite_kernel("divergent_gather", 96)
    -- the DRAM at its peak, so that only the slices bind
    local cfg = config.load("gtx660ti", { "l1.mshrs=65536", "dram.efficiency=1" })
    local mem = assert(memsim.functional(k, cfg))
    local pcs = gpumech.pc_params(k, cfg, mem)
    local info = k:info()
    -- every SM's requests reach the 3 slices, one per cycle each; 96 blocks over 7 SMs at
    -- 8 blocks per SM is one wave and a partial one
    local l2_bound = pcs.kernel.l2_reqs_per_warp * info.warps * cfg.l2.interval / cfg.l2.slices
    local r = assert(gpumech.predict(k, cfg))
    assert.is_true(r.cycles - cfg.launch.kernel_cycles >= l2_bound * (1 - 1e-9))
    assert.are.equal("l2", r.bound)
    assert.is_true(r.stack.L2BW > 0.5 * r.cpi)
    local paper = assert(gpumech.predict(k, cfg, { equations = "paper" }))
    assert.is_true(paper.cycles - cfg.launch.kernel_cycles < 0.8 * l2_bound)
  end)

  it("holds a block's slot until its longest warp ends (divergent_loop: warps of 4 to 32 trips)", function()
    local k = helper.suite_kernel("divergent_loop", 96)
    local cfg = config.load("a100", { "launch.kernel_cycles=0" })
    local mem = assert(memsim.functional(k, cfg))
    local pcs = gpumech.pc_params(k, cfg, mem)
    -- each block alone takes at least its longest warp's cycles alone; 96 blocks on 108 SMs
    -- run at once, so the launch lasts at least the longest block
    local longest = 0
    for _, f in ipairs(core.gpumech_features(k, pcs, 1 / cfg.sm.issue_width)) do
      longest = math.max(longest, f.total_cycles)
    end
    local r = assert(gpumech.predict(k, cfg))
    assert.is_true(r.cycles >= longest, r.cycles .. " vs " .. longest)
    local paper = assert(gpumech.predict(k, cfg, { equations = "paper" }))
    assert.is_true(paper.cycles < 0.8 * longest) -- the k-means centre is a shorter warp
    assert.is_true(occupancy.for_kernel(cfg, k) * cfg.sm.count > 96) -- one partial wave
  end)

  it("reports a CPI and stack over every wave that sum to the launch's body cycles", function()
    local k = helper.suite_kernel("divergent_loop", 1000)
    local cfg = config.load("gtx1080", helper.no_front_end())
    local r = assert(gpumech.predict(k, cfg))
    assert.is_true(#r.wave_shapes >= 2)
    local cycles, insts = 0, 0
    for _, w in ipairs(r.wave_shapes) do
      cycles = cycles + w.count * w.cycles
    end
    assert.is_near(cycles, r.cycles, 1e-6 * r.cycles)
    assert.is_near(r.cpi, stack_sum(r), 1e-9 * r.cpi)
    -- per scheduler: the busiest SM's warps over its schedulers x the mean warp's instructions
    for _, w in ipairs(r.wave_shapes) do
      insts = insts + w.count * math.ceil(w.warps_on_sm / cfg.sm.schedulers) * k:info().warp_instructions / k:info().warps
    end
    assert.is_near(r.cycles / insts, r.cpi, 1e-9 * r.cpi)
  end)

  it("never predicts below a hard bound: the regime suite on four presets, 128 seeded variants on two", function()
    local bounds = require "gpush.bounds"
    -- every bound of gpush.bounds holds whatever the timing (mshr and l2 in their hard form:
    -- each distinct loaded line once, docs/bounds.md)
    local hard = bounds.NAMES
    local raised = 0
    local function check(d, cfg)
      local k = assert(workloads.kernel(d))
      local b = assert(bounds.kernel(k, cfg))
      local r = assert(gpumech.predict(k, cfg))
      local largest, name = 0, nil
      for _, n in ipairs(hard) do
        assert.is_true(r.cycles >= b.cycles[n] + b.launch - 1e-6 * r.cycles,
          ("%s on %s: %.0f below the %s bound %.0f"):format(d.name, cfg._name, r.cycles, n, b.cycles[n] + b.launch))
        if b.cycles[n] > largest then
          largest, name = b.cycles[n], n
        end
      end
      -- the result names the largest hard bound, and it binds when the prediction sits on it
      assert.are.equal(name, r.hard_bound.name)
      assert.is_near(largest + b.launch, r.hard_bound.cycles, 1e-9 * r.hard_bound.cycles)
      if r.cycles <= r.hard_bound.cycles * (1 + 1e-12) then
        assert.are.equal(name, r.bound)
        raised = raised + 1
      end
      assert.is_near(r.cpi, stack_sum(r), 1e-9 * r.cpi)
      k:close()
    end
    for _, preset in ipairs { "gtx660ti", "gtx1080", "a100", "h100-pcie" } do
      local cfg = config.load(preset)
      for _, name in ipairs(workloads.names()) do
        if name ~= "stream_triad" then -- 3 x 64 MB: the variants cover it at small sizes
          check(assert(workloads.get(name)), cfg)
        end
      end
    end
    for _, preset in ipairs { "gtx660ti", "gtx1080" } do
      local cfg = config.load(preset)
      for _, d in ipairs(workloads.variants {}) do
        check(d, cfg)
      end
    end
    -- the bounds raise some predictions (the longest warp's dependence path or the blocks'
    -- lifetimes, above what the representative warps give), so the floor is exercised
    assert.is_true(raised > 0)
  end)
end)
