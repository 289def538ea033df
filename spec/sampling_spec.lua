-- gpush.sampling and kernel:prefix: which launches are sampled, the fit by
-- hand, the settling test, the simulator's sampled rows against whole
-- simulations, and the sweep's opt-in and opt-out.
local config = require "gpush.config"
local experiment = require "gpush.experiment"
local models = require "gpush.models"
local sampling = require "gpush.sampling"
local trace = require "gpush.trace"

local function suite_kernel(name)
  return assert(trace.loader()(assert(trace.list { "suite:" .. name })[1]))
end

describe("kernel:prefix", function()
  it("is the kernel of the first blocks, and outlives its kernel", function()
    local k = suite_kernel("stream_triad")
    local info = k:info()
    local p = assert(k:prefix(100))
    local pi = p:info()
    assert.are.equal(100, pi.thread_blocks)
    assert.are.same({ 100, 1, 1 }, pi.grid)
    assert.are.equal(100 * info.warps_per_block, pi.warps)
    -- stream_triad's warps are alike: 100 of its 2048 blocks hold 100/2048 of the instructions
    assert.are.equal(info.warp_instructions * 100 // 2048, pi.warp_instructions)
    k:close()
    collectgarbage()
    local r = assert(models.family("sim").run(p, config.load("gtx660ti"), { policy = "gto" }))
    assert.are.equal(pi.warp_instructions, r.warp_instructions)
    p:close()
    assert.has_error(function() k:prefix(1) end, "calling 'prefix' on bad self (the kernel is closed)")
  end)

  it("refuses block counts outside the kernel", function()
    local k = suite_kernel("fma_chain")
    assert.has_error(function() k:prefix(0) end)
    assert.has_error(function() k:prefix(k:info().thread_blocks + 1) end)
    k:close()
  end)
end)

describe("gpush.sampling", function()
  it("plans only launches of at least MIN_WAVES waves", function()
    assert.is_nil(sampling.plan(sampling.MIN_WAVES * 10 - 1, 10))
    local plan = sampling.plan(1000, 7)
    assert.are.same({ blocks = 1000, concurrency = 7, remainder = 1000 % 7, waves = 1000 / 7 }, plan)
  end)

  -- A fake launch on a stand-in kernel: cycles = 100 + 10 per block after a
  -- ramp (the first `ramp` blocks cost 30 each), bytes = 64 per block.
  local function fake(ramp)
    local calls = {}
    local kernel = { prefix = function(_, n)
      return { blocks = n, close = function() end }
    end }
    local function simulate(k)
      calls[#calls + 1] = k.blocks
      local n = k.blocks
      local cycles = 100 + 10 * n + 20 * math.min(n, ramp)
      return { cycles = cycles, nested = { bytes = 64 * n } }
    end
    return kernel, simulate, calls
  end

  it("extrapolates every total from the last two samples once the slope settles", function()
    local kernel, simulate, calls = fake(0)
    local plan = assert(sampling.plan(10000, 10)) -- 1000 waves: the first sample is 1000 / 64 = 15 waves
    local cache = {}
    local totals, how = sampling.measure(kernel, plan, cache, simulate)
    assert.are.same({ 150, 300, 600 }, calls) -- 15, 30, 60 waves of 10 blocks (remainder 0)
    assert.are.equal(100 + 10 * 10000, totals.cycles) -- linear: exact
    assert.are.equal(64 * 10000, totals.nested.bytes)
    assert.are.same({ 15, 30, 60 }, how.waves)
    assert.are.equal(150 + 300 + 600, how.blocks)
    assert.is_table(cache.sample_prefixes[300])
    sampling.release(cache)
    assert.is_nil(cache.sample_prefixes)
  end)

  it("keeps doubling while the slope moves, and gives up at half the launch", function()
    -- a ramp over the first 200 blocks: 150 -> 300 costs 16.7 a block, 300 -> 600 and later 10
    local kernel, simulate, calls = fake(200)
    local plan = assert(sampling.plan(10000, 10))
    local totals = assert(sampling.measure(kernel, plan, {}, simulate))
    assert.are.same({ 150, 300, 600, 1200 }, calls)
    -- the fit from 600 and 1200 blocks, past the ramp: exact
    assert.are.equal(100 + 10 * 10000 + 20 * 200, totals.cycles)
    -- cycles growing as blocks^1.5 never settle: after 150 to 2400 blocks the next sample
    -- would pass half the launch, which is then simulated whole
    calls = {}
    local none, why = sampling.measure(kernel, plan, {}, function(k)
      calls[#calls + 1] = k.blocks
      return { cycles = k.blocks ^ 1.5 }
    end)
    assert.is_nil(none)
    assert.matches("had not settled within 240 waves", why)
    assert.are.same({ 150, 300, 600, 1200, 2400 }, calls)
  end)
end)

describe("the simulator in a sampled sweep", function()
  local sim = models.get("sim", { policy = "gto" })

  it("extrapolates stream_triad within 1 % of the whole simulation", function()
    local k = suite_kernel("stream_triad")
    local cfg = assert(config.load("gtx660ti", { "sm.max_warps=16" }))
    local cache = {}
    local sampled = assert(sim.run(k, cfg, nil, cache, { sample = true, check_sample = true }))
    local whole = assert(sim.run(k, cfg, nil, cache, {}))
    assert.is_true(sampled.sampled)
    assert.is_false(whole.sampled)
    assert.are.equal(2048, whole.simulated_blocks)
    assert.is_true(sampled.simulated_blocks < 2048 / 2)
    -- -0.66 % with the calibrated front end (its per-block drain and dispatch), -0.06 % before it
    assert.is_true(math.abs(sampled.cycles - whole.cycles) / whole.cycles < 0.01)
    assert.are.equal((sampled.cycles - whole.cycles) / whole.cycles, sampled.sample_error)
    -- shares still sum to 1
    local sum = 0
    for _, s in ipairs(models.family("sim").STALL_REASONS) do
      sum = sum + sampled["stall_" .. s]
    end
    assert.is_true(math.abs(sum - 1) < 1e-9)
    sampling.release(cache)
    k:close()
  end)

  it("leaves short launches whole", function()
    local k = suite_kernel("divergent_gather")
    local row = assert(sim.run(k, assert(config.load("gtx660ti")), nil, {}, { sample = true }))
    assert.is_false(row.sampled)
    k:close()
  end)

  it("samples when the definition asks and not with --no-sample; the choice is in the identity", function()
    local function sweep(sample)
      return experiment.new { name = "s", base = "gtx660ti", workloads = { "suite:tiny_blocks" },
        parameters = { { path = "sm.max_warps", values = { 64 } } }, models = { sim }, sample = sample }
    end
    local on = assert(experiment.run(sweep(true), { quiet = true }))
    local off = assert(experiment.run(sweep(true), { quiet = true, sample = false }))
    local plain = assert(experiment.run(sweep(nil), { quiet = true }))
    assert.is_true(on.rows[1].sampled)
    assert.is_number(on.rows[1].sample_error) -- the one point is the baseline: checked whole
    assert.is_false(off.rows[1].sampled)
    assert.are.equal(plain.rows[1].cycles, off.rows[1].cycles)
    assert.are.equal(plain.extra.identity, off.extra.identity)
    assert.are_not.equal(on.extra.identity, off.extra.identity)
    local forced = assert(experiment.run(sweep(nil), { quiet = true, sample = true }))
    assert.are.equal(on.rows[1].cycles, forced.rows[1].cycles)
  end)
end)
