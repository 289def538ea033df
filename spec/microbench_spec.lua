-- scenarios/microbench.lua: the simulator measured as a microbenchmark paper
-- measures a GPU reproduces each preset's latencies, and the streams reach
-- the bandwidth the MSHRs allow (docs/presets.md).
local helper = require "spec_helper"
local json = require "gpush.json"

describe("scenarios/microbench.lua", function()
  it("measures latencies and bandwidth that match the presets' parameters", function()
    local code, out, err = helper.gpush_run { "scenarios/microbench.lua", "--config", "gtx1080", "--config",
      "gtx660ti", "--config", "rtx3070-measured", "--json" }
    assert.are.equal(0, code, err)
    local by = {}
    for _, r in ipairs(json.decode(out)) do
      by[r.preset] = r
    end
    local g = by.gtx1080
    -- dependent latency per class: ops.<class>.latency of the preset, or its
    -- interval where that is longer (gtx1080's DFMA unit takes a warp
    -- instruction 32 cycles, its result ready after 20: a chain goes at 32)
    for class, cycles in pairs { int = 6, fp32 = 6, imad = 6, fp64 = 32, sfu = 20 } do
      assert.is_near(cycles, g.latency[class], 1e-9)
    end
    -- pointer chases: the L1 and L2 hit latencies, and L2 + DRAM (190 ns at
    -- 1607 MHz) + one 32-byte sector's transfer on a channel (the achievable
    -- 320 x 0.78 GB/s / 8)
    assert.is_near(82, g.l1, 1e-9)
    assert.is_near(216, g.l2, 1e-9)
    assert.is_near(216 + 190 * 1.607 + 32 / (320e9 * 0.78 / 1.607e9 / 8), g.dram, 1e-6)
    assert.is_near(24, g.shared, 1e-9)
    -- a read stream reaches nearly the achievable bandwidth (78 % of the peak), never more
    assert.is_true(g.stream_share > 0.95 * 0.78 and g.stream_share <= 0.78)
    -- the GTX 660 Ti's 64 MSHRs let a read stream reach over 90 % of its achievable
    -- bandwidth, 78 % of the peak (32 MSHRs allowed 47 % of the peak)
    assert.is_true(by.gtx660ti.stream_share > 0.9 * 0.78 and by.gtx660ti.stream_share <= 0.78,
      by.gtx660ti.stream_share)
    assert.is_near(9, by.gtx660ti.latency.fp32, 1e-9)
    -- the measured RTX 3070 variant: 4-cycle ALU and FFMA, the Turing sibling's caches
    assert.is_near(4, by["rtx3070-measured"].latency.fp32, 1e-9)
    assert.is_near(236, by["rtx3070-measured"].l2, 1e-9)
    code, _, err = helper.gpush_run { "scenarios/microbench.lua", "--bogus" }
    assert.are.equal(2, code)
    assert.truthy(err:find("unknown option '--bogus'", 1, true))
  end)
end)

describe("l1.unified_kb", function()
  it("gives a kernel the L1 its blocks' shared memory leaves of the combined capacity", function()
    local config = require "gpush.config"
    local memsim = require "gpush.memsim"
    local a100 = config.load("a100")
    assert.are.equal(192 * 1024, memsim.l1_bytes(a100, 8, 0))
    assert.are.equal(192 * 1024 - 8 * 16384, memsim.l1_bytes(a100, 8, 16384))
    assert.are.equal(28 * 1024, memsim.l1_bytes(a100, 4, 49152)) -- never below l1.size_kb
    assert.are.equal(28 * 1024, memsim.l1_bytes(config.load("a100", { "l1.unified_kb=0" }), 8, 0))
    -- a working set between the old 28 KB and the combined 192 KB now stays in L1
    local workloads = require "gpush.workloads"
    local k = assert(workloads.kernel(workloads.make("l2_resident", { grid = 108, footprint = 128 * 1024 })))
    local unified = assert(memsim.functional(k, a100))
    local fixed = assert(memsim.functional(k, config.load("a100", { "l1.unified_kb=0" })))
    assert.is_true(unified.l1.hits > 2 * fixed.l1.hits, ("%d vs %d"):format(unified.l1.hits, fixed.l1.hits))
  end)
end)
