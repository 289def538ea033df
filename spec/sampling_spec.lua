-- gpush.sampling and kernel:prefix: which launches are sampled, the fit by
-- hand, the settling test, the simulator's sampled rows against whole
-- simulations, GPUMech's sampled memory replay (the extrapolation by hand,
-- the settled test and its fall-back to the whole replay), and the sweep's
-- opt-in and opt-out.
local bounds = require "gpush.bounds"
local config = require "gpush.config"
local core = require "gpush.core"
local experiment = require "gpush.experiment"
local machine = require "gpush.machine"
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

describe("gpush.sampling's fit", function()
  it("tests and extrapolates a client's totals with the client's functions", function()
    local kernel = { prefix = function(_, n)
      return { blocks = n, close = function() end }
    end }
    -- cycles linear from the start, `late` growing faster over the first 200
    -- blocks: the cycles alone settle at the third sample, `late` at the fourth
    local function simulate(k)
      local n = k.blocks
      return { cycles = 10 * n, late = 5 * n + 3 * math.min(n, 200) }
    end
    local settled_calls = 0
    local fit = {
      settled = function(a, b, c)
        settled_calls = settled_calls + 1
        return sampling.slopes_agree(a, b, c, a.totals.late, b.totals.late, c.totals.late, nil, 0.01)
      end,
      extrapolate = function(a, b, f)
        return { late = b.late + (b.late - a.late) * f }
      end,
    }
    local plan = assert(sampling.plan(10000, 10))
    local totals, how = assert(sampling.measure(kernel, plan, {}, simulate, fit))
    assert.are.same({ 15, 30, 60, 120 }, how.waves) -- 150 -> 300 blocks: 6 a block, then 5
    assert.are.equal(2, settled_calls)
    assert.are.equal(5 * 10000 + 3 * 200, totals.late)
    assert.is_nil(totals.cycles) -- the client's extrapolation, not the default one
  end)

  it("measures a slope against a scale", function()
    local a, b, c = { blocks = 10 }, { blocks = 20 }, { blocks = 40 }
    -- slopes 10 and 11 a block: 10 % apart
    assert.is_false(sampling.slopes_agree(a, b, c, 0, 100, 320, nil, 0.05))
    assert.is_true(sampling.slopes_agree(a, b, c, 0, 100, 320, nil, 0.1))
    -- against a scale of 100 a block (a count per execution): 1 %
    assert.is_true(sampling.slopes_agree(a, b, c, 0, 100, 320, 100, 0.01))
  end)
end)

describe("GPUMech's sampled memory replay", function()
  local gpumech = models.family("gpumech")

  it("extrapolates every count of two prefix replays and the AMATs from them", function()
    -- l2_resident: its loads' mix of L2 hits and DRAM accesses moves with the prefix
    local k = suite_kernel("l2_resident")
    local cfg = assert(config.load("gtx660ti"))
    local m = machine.of(cfg)
    local a_kernel, b_kernel = assert(k:prefix(40)), assert(k:prefix(80))
    local a = assert(core.memsim_replay(a_kernel, m, 8))
    local b = assert(core.memsim_replay(b_kernel, m, 8))
    local whole = assert(core.memsim_extrapolate(k, m, 8, a.replay, b.replay, 0.5))
    local function fit(x, y)
      return math.floor(y + (y - x) * 0.5 + 0.5)
    end
    for _, name in ipairs { "dram_requests", "mshr_requests", "dram_bytes_read", "dram_bytes_written", "l2_bytes" } do
      assert.are.equal(fit(a[name], b[name]), whole[name])
    end
    assert.are.equal(fit(a.l2.accesses, b.l2.accesses), whole.l2.accesses)
    assert.are.equal(fit(a.l1.misses, b.l1.misses), whole.l1.misses)
    local p = m:memsim(8, 0)
    local pa, pb, pw = a.replay:pcs(k), b.replay:pcs(k), whole.replay:pcs(k)
    local cached, moved = 0, 0
    for index, pc in pairs(pb) do
      assert.are.equal(fit(pa[index].instructions, pc.instructions), pw[index].instructions)
      assert.are.equal(fit(pa[index].dram, pc.dram), pw[index].dram)
      if pw[index].l2_hits + pw[index].dram > 0 then -- a global access: AMAT from the levels
        cached = cached + 1
        local w = pw[index]
        assert.is_true(math.abs(w.amat - (w.l1_hits * p.l1_latency + w.l2_hits * p.l2_latency
          + w.dram * (p.l2_latency + p.dram_latency)) / w.instructions) < 1e-9)
        moved = moved + (math.abs(w.amat - pc.amat) > 0.1 and 1 or 0)
      end
    end
    assert.is_true(cached >= 1)
    assert.is_true(moved >= 1) -- not the longer prefix's AMAT
    a_kernel:close()
    b_kernel:close()
    k:close()
  end)

  it("predicts stream_triad within 0.5 % of the whole replay, from under half its blocks", function()
    local k = suite_kernel("stream_triad")
    local base = assert(config.load("gtx660ti"))
    local cfg = assert(config.load("gtx660ti", { "sm.max_warps=16" }))
    for _, policy in ipairs { "rr", "gto" } do
      local model = models.get("gpumech", { policy = policy })
      local cache = {}
      local prepared = assert(model.prepare(k, base, cache, { seed = 1 }))
      -- sampled first: nothing whole at this occupancy in the cache yet
      local first = assert(model.run(k, cfg, prepared, cache, { sample = true }))
      -- the whole replay's users (bounds, M-core) never see sampled counts
      assert.are.same(assert(bounds.kernel(k, cfg, {})), assert(bounds.kernel(k, cfg, cache)))
      local plain = assert(model.run(k, cfg, prepared, cache))
      local sampled = assert(model.run(k, cfg, prepared, cache, { sample = true, check_sample = true }))
      local whole = assert(model.run(k, cfg, prepared, cache, { sample = false }))
      assert.are.equal(first.cycles, sampled.cycles)
      assert.is_nil(first.sample_error)
      assert.is_nil(plain.sampled) -- a sweep that does not sample: the rows of before
      assert.is_nil(plain.replayed_blocks)
      assert.are.equal(plain.cycles, whole.cycles)
      assert.is_true(sampled.sampled)
      assert.is_true(sampled.replayed_blocks < 2048 / 2)
      -- -0.05 % (2026-11-28)
      assert.is_true(math.abs(sampled.cycles - whole.cycles) / whole.cycles < 0.005)
      assert.are.equal((sampled.cycles - whole.cycles) / whole.cycles, sampled.sample_error)
      assert.are_not.equal(whole.cycles, sampled.cycles)
      sampling.release(cache)
    end
    k:close()
  end)

  it("falls back to the whole replay when a count does not grow linearly", function()
    -- tiny_blocks' L2 write-backs stop at 1,024 once its data set is in the L2, and a
    -- PC's miss-reuse bucket appears only after 900 blocks: the counts never settle
    local k = suite_kernel("tiny_blocks")
    local base = assert(config.load("gtx660ti"))
    local model = models.get("gpumech", { policy = "rr" })
    local cache = {}
    local prepared = assert(model.prepare(k, base, cache, { seed = 1 }))
    local sampled = assert(model.run(k, base, prepared, cache, { sample = true, check_sample = true }))
    local whole = assert(model.run(k, base, prepared, {}, {}))
    assert.is_false(sampled.sampled)
    assert.are.equal(k:info().thread_blocks, sampled.replayed_blocks)
    assert.are.equal(whole.cycles, sampled.cycles)
    assert.is_nil(sampled.sample_error)
    -- the attempt is kept: the next point at this occupancy replays nothing more
    local kept = 0
    for key, v in pairs(cache) do
      if type(key) == "string" and key:match("^gpumech%.sampled|") then
        kept = kept + 1
        assert.is_nil(v.memory)
        assert.matches("had not settled", v.how.why)
      end
    end
    assert.are.equal(1, kept)
    sampling.release(cache)
    k:close()
  end)

  it("samples in a sweep that asks, and not with --no-sample", function()
    local function sweep(sample)
      return experiment.new { name = "g", base = "gtx660ti", workloads = { "suite:stream_triad" },
        parameters = { { path = "sm.max_warps", values = { 64 } } },
        models = { models.get("gpumech", { policy = "rr" }) }, sample = sample }
    end
    local on = assert(experiment.run(sweep(true), { quiet = true }))
    local off = assert(experiment.run(sweep(true), { quiet = true, sample = false }))
    local plain = assert(experiment.run(sweep(nil), { quiet = true }))
    assert.is_true(on.rows[1].sampled)
    assert.is_number(on.rows[1].sample_error) -- the one point is the baseline: checked whole
    assert.is_true(on.rows[1].replayed_blocks < 2048 / 2)
    assert.is_nil(off.rows[1].sampled) -- the rows of a sweep that does not sample, as before
    assert.are.same(plain.rows[1], off.rows[1])
    -- the Markdown summary says what was sampled, the error here and the error measured
    local summary = require "gpush.report.summary"
    local text = table.concat(summary.lines(on), "\n")
    assert.matches("Sampled: gpumech%-rr on stream_triad %(1 of 1 points%)%. Each launch of 32 or more waves was"
      .. " replayed through the memory model", text)
    assert.matches("column replayed_blocks", text, 1, true)
    assert.matches("where the whole launch was replayed too: stream_triad [-+]%d", text)
    assert.matches("Sampling error of GPUMech's replay measured by scenarios/sampling_error.lua", text, 1, true)
    assert.is_nil(table.concat(summary.lines(off), "\n"):find("Sampled:", 1, true))
  end)

  it("leaves launches of few waves alone", function()
    local k = suite_kernel("divergent_gather")
    local cfg = assert(config.load("gtx660ti"))
    local none, how = gpumech.sampled_replay(k, cfg, {}, { sample = true })
    assert.is_nil(none)
    assert.are.equal(k:info().thread_blocks, how.blocks)
    assert.is_nil((gpumech.sampled_replay(k, cfg, {}, {})))
    k:close()
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
