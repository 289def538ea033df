-- The shipped examples run and print what they promise.
local helper = require "spec_helper"

describe("examples/new_workload.lua", function()
  it("builds the stencil and predicts it with GPUMech (RR, GTO) and the simulator", function()
    local code, out, err = helper.gpush_run { "examples/new_workload.lua", "--grid", "64" }
    assert.are.equal(0, code, err)
    assert.matches("stencil5: 64 blocks x 256 threads, 23040 warp instructions, on 'gtx1080'", out, 1, true)
    local rows = {}
    for model, cycles in out:gmatch("\n(%a+ %u+)%s+(%d+)") do
      rows[model] = tonumber(cycles)
    end
    for _, model in ipairs { "GPUMech RR", "GPUMech GTO", "simulator GTO" } do
      assert.is_true((rows[model] or 0) > 0, model)
    end
  end)
end)

describe("examples/models/bottleneck.lua", function()
  package.path = "examples/?.lua;" .. package.path
  local gpush = require "gpush"
  local bottleneck = require "models.bottleneck"
  local kernel = assert(gpush.workloads.kernel(gpush.workloads.get("stream_triad")))

  it("predicts the largest per-wave bound times the waves plus the launch costs", function()
    local cfg = assert(gpush.config.load("gtx660ti"))
    local r = assert(bottleneck.run(kernel, cfg, nil, {}))
    local largest = math.max(r.bounds.issue, r.bounds.dram, r.bounds.mshr, r.bounds.latency)
    assert.are.equal(r.bounds[r.bound], largest)
    assert.is_near(r.waves * (largest + cfg.launch.block_cycles) + cfg.launch.kernel_cycles, r.cycles, 1e-6)
    -- stream_triad: 3072 blocks, 8 resident per SM on 7 SMs = 55 waves; each warp issues 25 instructions
    assert.are.equal(55, r.waves)
    assert.is_near(8 * 8 * 25 / (cfg.sm.schedulers * cfg.sm.issue_width), r.bounds.issue, 1e-9)
  end)

  it("never predicts slower with more MSHRs or more DRAM bandwidth", function()
    local previous
    for _, mshrs in ipairs { 8, 16, 32, 64, 128 } do
      local r = assert(bottleneck.run(kernel, assert(gpush.config.load("gtx660ti", { ["l1.mshrs"] = mshrs })), nil, {}))
      assert.is_true(not previous or r.cycles <= previous, "mshrs " .. mshrs)
      previous = r.cycles
    end
    previous = nil
    for _, gbs in ipairs { 48, 96, 192, 384 } do
      local r = assert(bottleneck.run(kernel, assert(gpush.config.load("gtx660ti",
        { ["dram.bandwidth_gbs"] = gbs, ["l1.mshrs"] = 1024 })), nil, {}))
      assert.is_true(not previous or r.cycles <= previous, "bandwidth " .. gbs)
      previous = r.cycles
    end
  end)
end)

describe("examples/new_model.lua", function()
  it("prints the Lua model next to GPUMech and the simulator", function()
    local code, out, err = helper.gpush_run { "examples/new_model.lua", "--traces", "suite:stream_triad", "--sim" }
    assert.are.equal(0, code, err)
    local b, bound, g, s = out:match("\nstream_triad%s+(%d+) (%a+)%s+(%d+)%s+(%d+)")
    assert.is_truthy(b, out)
    assert.is_true(tonumber(b) > 0 and tonumber(g) > 0 and tonumber(s) > 0)
    assert.are.equal("mshr", bound) -- 64 warps x 3 misses per trip on 32 MSHRs
  end)
end)
