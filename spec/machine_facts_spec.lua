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

  it("runs INT and FP32 on one pipe before Volta (gtx1080, gtx660ti), on two from Volta on (a100)", function()
    -- issue_mix: 320 blocks x 8 warps x 16 trips x (4 FFMA + 4 IADD3) =
    -- 327,680 INT and FP32 instructions over 80 (gtx1080) or 28
    -- (gtx660ti) schedulers, each taking its pipe one interval
    local k = suite("issue_mix")
    local cases = {
      -- gtx1080: 4,096 a scheduler at interval 1 on the shared pipe, + 5,000 launch
      gtx1080 = { total = 4096 + 5000, binds = "fma" },
      -- gtx660ti: 11,703 INT and FP32 instructions a scheduler at 0.6667 of
      -- a cycle each (48 lanes): 327,680 x 0.6667 / 28 = 7,802, + 5,000 launch
      gtx660ti = { total = 327680 * 0.6667 / 28 + 5000, binds = "fma" },
    }
    for name, want in pairs(cases) do
      local cfg = config.load(name)
      assert.is_true(cfg.sm.int_fp32_shared, name)
      local b = assert(bounds.kernel(k, cfg))
      near(327680, b.counts.class_insts.int + b.counts.class_insts.fp32)
      assert.are.equal(want.binds, b.binds, name)
      near(want.total, b.total, 1e-6)
      near(0, b.cycles.int) -- no INT pipe of its own
      for _, policy in ipairs { "lrr", "gto" } do
        local r = assert(sim.run(k, cfg, { policy = policy }))
        assert.is_true(r.cycles >= want.total, name .. " " .. policy)
        assert.is_true(r.cycles <= want.total * 1.02, name .. " " .. policy)
      end
      for _, policy in ipairs { "rr", "gto" } do
        assert.is_true(assert(gpumech.predict(k, cfg, { policy = policy })).cycles >= want.total, name)
      end
    end
    -- a100: 16 INT32 and 16 FP32 lanes a partition, apart (interval 2 each):
    -- 163,840 of each over 108 SMs x 4 schedulers, 758.5 cycles a pipe
    local a100 = config.load("a100")
    assert.is_false(a100.sm.int_fp32_shared)
    local b = assert(bounds.kernel(k, a100))
    near(b.cycles.int, b.cycles.fma)
    near(163840 * 2 / (108 * 4), b.cycles.fma, 1e-6)
  end)

  it("moves DRAM bytes at the achievable bandwidth, 78 % of gtx1080's peak, not at the peak", function()
    local cfg = config.load("gtx1080")
    near(0.78, cfg.dram.efficiency)
    near(320 * 0.78, cfg.dram.achievable_gbs, 1e-9)
    -- stream_triad: a = b + s c over three 64 MB arrays (2048 blocks x 256
    -- threads x 8 trips x 16 B): every line of b and c read once (128 MB),
    -- a written beyond what the 2 MB L2 keeps at the end (62 MB), at
    -- 249.6 GB/s / 1607 MHz = 155.3 B a cycle, + 5,000 launch
    local k = suite("stream_triad")
    local bytes = 2 * 64 * 2 ^ 20 + (64 - 2) * 2 ^ 20
    local cycles = bytes / (320e9 * 0.78 / 1607e6) + 5000
    local b = assert(bounds.kernel(k, cfg))
    assert.are.equal("dram", b.binds)
    near(bytes, b.counts.hard_dram_read_bytes + b.counts.hard_dram_written_bytes)
    near(cycles, b.total, 1e-6)
    for _, policy in ipairs { "lrr", "gto" } do
      local r = assert(sim.run(k, cfg, { policy = policy }))
      -- never faster than the achievable bandwidth allows, and close to it
      assert.is_true(r.dram_gbs <= 320 * 0.78 * 1.001, policy)
      assert.is_true(r.dram_gbs >= 320 * 0.78 * 0.95, policy)
      assert.is_true(r.cycles >= cycles, policy)
    end
    for _, policy in ipairs { "rr", "gto" } do
      assert.is_true(assert(gpumech.predict(k, cfg, { policy = policy })).cycles >= cycles, policy)
    end
  end)

  it("counts the DRAM reads of lines a kernel updates in place (each warp loads a line before it stores it)", function()
    -- a[i] = f(a[i]) over 64 MB (2048 blocks x 256 threads x 8 trips x 16 B):
    -- whatever the interleaving a line's first access is a load, which
    -- reads it (64 MB); the stores stay in the 2 MB write-back L2 until
    -- evicted (62 MB written at least); at the achievable 249.6 GB/s on
    -- 1607 MHz, + 5,000 launch
    local cfg = config.load("gtx1080")
    local bytes = 64 << 20
    local k = assert(workloads.kernel { name = "in_place", grid = 2048, block = 256, trips = 8,
      streams = { a = { kind = "coalesced", footprint = bytes } },
      body = { { "ld_global", stream = "a", width = 16 }, { "fp32", dep = 1 }, { "fp32", dep = 1 },
        { "st_global", stream = "a", width = 16, dep = 1 } } })
    local cycles = (bytes + bytes - (2 << 20)) / (320e9 * 0.78 / 1607e6) + 5000
    local b = assert(bounds.kernel(k, cfg))
    near(bytes, b.counts.hard_dram_read_bytes) -- was 0: lines a store touches counted no read
    near(bytes - (2 << 20), b.counts.hard_dram_written_bytes)
    assert.are.equal("dram", b.binds)
    near(cycles, b.total, 1e-6)
    for _, policy in ipairs { "lrr", "gto" } do
      local r = assert(sim.run(k, cfg, { policy = policy }))
      assert.is_true(r.cycles >= b.total, policy)
      assert.is_true(b.total >= 0.8 * r.cycles, policy) -- the bound reaches the simulation
    end
  end)
end)
