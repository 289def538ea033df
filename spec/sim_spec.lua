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

-- Cycles, instructions and the stall breakdown of the scan-based simulator
-- (before the event-driven rewrite) on small suite kernels: the rewrite keeps
-- LRR and GTO issue order, so cycles must match bit for bit; the stall sums
-- are accumulated in another order, so they match to 1e-9 relative.
local pinned = {
  { "fma_compute", 24, "gtx660ti", "lrr", 8545.4940079893477, 27840, { 25961, 269, 72177.832223701756, 0, 0, 0, 0, 481, 161 } },
  { "fma_compute", 24, "gtx660ti", "gto", 8516.4940079893477, 27840, { 26195, 249, 71268.832223701786, 0, 0, 0, 0, 344, 181 } },
  { "stream_triad", 40, "gtx660ti", "lrr", 9988.9041278295572, 8000, { 7988, 226.57256990680253, 127891.0013315557, 0, 0, 0, 0, 2546.3768308921299, 813.36484687083248 } },
  { "stream_triad", 40, "gtx660ti", "gto", 9867.4820239680412, 8000, { 8000, 224, 126741.49667110379, 0, 0, 0, 0, 829, 271 } },
  { "pointer_chase", 16, "gtx480", "lrr", 12653.208441558443, 4736, { 4736, 2586, 221362.25324675339, 0, 0, 79, 0, 209, 114 } },
  { "pointer_chase", 16, "gtx480", "gto", 12651.435714285715, 4736, { 4736, 2472, 221483.03896103887, 0, 0, 75.032467532468218, 0, 197, 70 } },
  { "divergent_gather", 8, "gtx1080", "lrr", 9811.3144000000284, 1600, { 1600, 293.41759999998931, 141741.57759999891, 6796.39119999995, 0, 0, 0, 2606.4664000003531, 231467.29920001081 } },
  { "divergent_gather", 8, "gtx1080", "gto", 9811.3144000000284, 1600, { 1600, 293.41759999998931, 141741.57759999891, 6796.39119999995, 0, 0, 0, 2606.4664000003531, 231467.29920001081 } },
  { "divergent_loop", 24, "a100", "lrr", 23382.54320987653, 24993, { 24993, 12996, 1275367.2654320716, 0, 0, 2158, 0, 418729.50000000425, 6205718.9012352899 } },
  { "divergent_loop", 24, "a100", "gto", 23363.54320987653, 24993, { 24993, 12052, 1274858.2654320716, 0, 0, 2161, 0, 418426.50000000425, 6199263.9012352889 } },
  { "tiled_barrier", 24, "gtx660ti", "lrr", 8549.2623169107828, 14016, { 12112, 0, 81100.283621835682, 0, 0, 0, 14, 0, 5929.0612516644105 } },
  { "tiled_barrier", 24, "gtx660ti", "gto", 8487.4793608521941, 14016, { 12491, 0, 82803.18109187542, 0, 0, 0, 41.720372836222396, 0, 2089.5206391478314 } },
  { "cache_reuse", 16, "rtx3070", "lrr", 6515.6583539494359, 5248, { 5248, 0, 90282.134652763212, 0, 0, 128, 0, 0, 182671.00247393094 } },
  { "cache_reuse", 16, "rtx3070", "gto", 6506.5736517640335, 5248, { 5248, 0, 89780.713712897224, 0, 0, 64, 0, 0, 181564.83821168222 } },
  { "sfu_heavy", 20, "gtx1080", "lrr", 8689.116, 7840, { 7828, 20577.996800000001, 258903.98079999897, 0, 3443.3023999999887, 0, 0, 0, 3976 } },
  { "sfu_heavy", 20, "gtx1080", "gto", 8688.3976000000002, 7840, { 7824, 20814.694400000015, 258594.26559999725, 0, 3522.2784000000001, 0, 0, 0, 3916.5696000000007 } },
}

local stall_order = { "issued", "dependence", "memory", "lsu_busy", "sfu_busy", "unit_busy", "barrier",
  "no_eligible_warp", "idle" }

describe("gpush.sim pinned results", function()
  it("reproduces the scan-based simulator's cycles and stalls under LRR and GTO", function()
    local kernels = {}
    for _, p in ipairs(pinned) do
      local name, grid, preset, policy, cycles, issued, stalls = table.unpack(p)
      local key = name .. grid
      kernels[key] = kernels[key] or small(name, grid)
      local r = assert(sim.run(kernels[key], config.load(preset), { policy = policy }))
      local what = ("%s x%d on %s, %s"):format(name, grid, preset, policy)
      assert.are.equal(cycles, r.cycles, what)
      assert.are.equal(issued, r.issued, what)
      for i, reason in ipairs(stall_order) do
        assert.is_true(math.abs(r.stalls[reason] - stalls[i]) <= 1e-9 * math.max(1, stalls[i]),
          ("%s: %s %.17g, pinned %.17g"):format(what, reason, r.stalls[reason], stalls[i]))
      end
    end
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
