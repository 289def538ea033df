-- gpush.sim and gpush sim: the abstract simulator from Lua and the CLI.
local sim = require "gpush.sim"
local config = require "gpush.config"
local workloads = require "gpush.workloads"
local helper = require "spec_helper"

local function small(name, grid)
  local d = {}
  for k, v in pairs(workloads.get(name)) do
    d[k] = v
  end
  d.grid = grid or 32
  return assert(workloads.kernel(d))
end

describe("gpush.sim", function()
  it("takes N x L cycles for one warp's dependent chain, plus the launch costs", function()
    local k = assert(workloads.kernel { name = "chain", grid = 1, block = 32, trips = 10,
      body = { { "fp32", dep = 1 } } })
    local r = assert(sim.run(k, config.load("gpumech-baseline", { "ops.branch.latency=1" })))
    assert.are.equal(250, r.cycles)
    assert.are.equal(11, r.warp_instructions)
    r = assert(sim.run(k, config.load("gtx480", { "ops.fp32.latency=20", "ops.branch.latency=1",
      "launch.kernel_cycles=300", "launch.block_cycles=12" })))
    assert.are.equal(10 * 20 + 300 + 12, r.cycles)
  end)

  it("issues every instruction and accounts every scheduler cycle", function()
    local k = small("tiled_barrier")
    local cfg = config.load("gtx1080")
    local r = assert(sim.run(k, cfg, { policy = "gto" }))
    assert.are.equal(k:info().warp_instructions, r.issued)
    local total = 0
    for _, v in pairs(r.stalls) do
      total = total + v
    end
    -- each scheduler is accounted for every cycle until the last SM finishes
    assert.is_true(total >= (r.cycles - cfg.launch.kernel_cycles) * cfg.sm.count * cfg.sm.schedulers * 0.99)
    assert.is_true(r.stalls.issued > 0)
    assert.is_true(r.dram_gbs <= cfg.dram.bandwidth_gbs * 1.0001)
  end)

  it("never runs slower with more DRAM bandwidth on a stream, and is deterministic", function()
    local k = small("stream_triad", 64)
    local slow = assert(sim.run(k, config.load("gtx660ti", { "dram.bandwidth_gbs=48" })))
    local fast = assert(sim.run(k, config.load("gtx660ti", { "dram.bandwidth_gbs=192" })))
    assert.is_true(fast.cycles <= slow.cycles)
    assert.are.same(slow, assert(sim.run(k, config.load("gtx660ti", { "dram.bandwidth_gbs=48" }))))
  end)

  it("explains misuse", function()
    assert.has_error(function() sim.run(small("sfu_heavy", 1), config.load("gtx480"), { policy = "two-level" }) end,
      "gpush.sim.run: policy must be 'lrr' or 'gto', got 'two-level'")
  end)
end)

describe("gpush sim command", function()
  it("prints one JSON object per launch with the contract fields", function()
    local code, out, err = helper.gpush_run { "sim", "suite:sfu_heavy", "--config", "gtx1080", "--json",
      "-p", "sm.count=4" }
    assert.are.equal(0, code, err)
    local r = require("gpush.json").decode(out)[1]
    assert.are.equal("sfu_heavy", r.kernel)
    assert.are.equal(1, r.launch)
    assert.is_true(r.cycles > 0)
    assert.is_true(r.warp_instructions > 0)
    assert.is_true(r.stalls.issued > 0)
  end)

  it("prints a table and rejects bad arguments", function()
    if not helper.have_shared_traces() then
      pending("../shared/traces not found: the real-trace check is skipped")
      return
    end
    local code, out = helper.gpush_run { "sim", helper.shared .. "/traces/vectoradd-sm61", "--config", "gtx1080" }
    assert.are.equal(0, code)
    assert.matches("abstract simulation %(lrr%) on 'gtx1080'", out)
    assert.matches("_Z6vecAddIfEvPT_S1_S1_i", out, 1, true)
    code = helper.gpush_run { "sim", "suite", "--config", "gtx1080", "--policy", "fifo" }
    assert.are.equal(2, code)
  end)
end)
