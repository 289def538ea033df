-- The machine's facts (issue 24), each checked against a first-principles
-- bound computed by hand here, never against the other model: the FP64
-- rate, the INT/FP32 pipe pre-Volta GPUs share, the achievable DRAM
-- bandwidth, the DRAM reads of lines a kernel updates in place, and the
-- order of issue under RR and GTO.  docs/presets.md sources the facts.
local bounds = require "gpush.bounds"
local config = require "gpush.config"
local models = require "gpush.models"
local workloads = require "gpush.workloads"

local gpumech = models.family("gpumech")
local sim = models.family("sim")

local function near(expected, actual, tol)
  assert(math.abs(expected - actual) <= (tol or 1e-9), ("expected %.6f, got %.6f"):format(expected, actual))
end

-- A regime-suite kernel at its default size.
local function suite(name)
  return assert(workloads.kernel(workloads.get(name)))
end

describe("the machine's facts", function()
  it("runs FP64 at 1/32 of FP32 on gtx1080 (GP104: 4 DFMA lanes an SM, one a scheduler)", function()
    local cfg = config.load("gtx1080")
    near(32, cfg.ops.fp64.interval)
    -- fp64_heavy: 160 blocks x 8 warps x 12 trips x 4 DFMAs = 61,440 DFMAs
    -- over 20 SMs x 4 schedulers: 768 a scheduler, 32 cycles apart; the
    -- last one's result 20 cycles (its latency) after its issue:
    -- 767 x 32 + 20 = 24,564, + the 5,000-cycle launch = 29,564
    local k = suite("fp64_heavy")
    local b = assert(bounds.kernel(k, cfg))
    near(61440, b.counts.class_insts.fp64)
    assert.are.equal("fp64", b.binds)
    near(29564, b.total)
    for _, policy in ipairs { "lrr", "gto" } do
      local r = assert(sim.run(k, cfg, { policy = policy }))
      assert.is_true(r.cycles >= 29564, policy)
      assert.is_true(r.cycles <= 29564 * 1.01, policy) -- the DFMA unit is all it waits for
    end
    for _, policy in ipairs { "rr", "gto" } do
      assert.is_true(assert(gpumech.predict(k, cfg, { policy = policy })).cycles >= 29564, policy)
    end
  end)
end)
