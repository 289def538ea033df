-- gpush.gpumech: predictions on synthetic kernels, real traces and presets.
local gpumech = require "gpush.gpumech"
local config = require "gpush.config"
local workloads = require "gpush.workloads"
local helper = require "spec_helper"

-- The former suite's kernels (fixed inputs: spec/fixtures/legacy_suite.lua)
-- at a small grid.
local function small(name, grid)
  return helper.suite_kernel(name, grid or 96)
end

local stack_sum = helper.stack_sum

describe("gpush.gpumech", function()
  it("takes N x L cycles for one warp's dependent chain", function()
    local k = assert(workloads.kernel { name = "chain", grid = 1, block = 32, trips = 10,
      body = { { "fp32", dep = 1 } } })
    -- GPUMech's Table I: FP latency 25; EXIT issues right after the chain
    local cfg = config.load("gpumech-baseline", { "ops.branch.latency=1" })
    local r = assert(gpumech.predict(k, cfg))
    assert.are.equal(10 * 25, r.cycles)
    assert.are.equal(250 / 1000, r.time_us)
    assert.are.equal(11 / 250, r.ipc)
    assert.is_near(r.cpi, stack_sum(r), 1e-12)
    assert.is_true(r.stack.DEP > 0.9 * r.cpi)
    assert.matches("sub%-wave kernel: 1 blocks", r.warnings[1])
  end)

  it("never predicts slower with more MSHRs or more DRAM bandwidth, and never below the issue bound", function()
    for _, name in ipairs { "stream_triad", "divergent_gather", "pointer_chase", "cache_reuse" } do
      local k = small(name)
      for _, policy in ipairs { "rr", "gto" } do
        local base = assert(gpumech.predict(k, config.load("gtx660ti", { "l1.mshrs=16", "dram.bandwidth_gbs=96" }), { policy = policy }))
        local mshrs = assert(gpumech.predict(k, config.load("gtx660ti", { "l1.mshrs=64", "dram.bandwidth_gbs=96" }), { policy = policy }))
        local band = assert(gpumech.predict(k, config.load("gtx660ti", { "l1.mshrs=16", "dram.bandwidth_gbs=192" }), { policy = policy }))
        assert.is_true(mshrs.cycles <= base.cycles + 1e-6, name .. " " .. policy .. " mshrs")
        assert.is_true(band.cycles <= base.cycles + 1e-6, name .. " " .. policy .. " bandwidth")
        for _, r in ipairs { base, mshrs, band } do
          assert.is_true(r.cpi >= 1 / 2 - 1e-12) -- Kepler issues 2 per scheduler per cycle
          assert.is_near(r.cpi, stack_sum(r), 1e-9)
        end
      end
    end
  end)

  it("orders Table II's models: naive <= Markov_Chain, naive <= MT <= MT_MSHR <= MT_MSHR_BAND", function()
    local k = small("divergent_gather")
    local cfg = config.load("gtx480")
    local last = 0
    for _, model in ipairs { "naive", "mt", "mt_mshr", "mt_mshr_band" } do
      local r = assert(gpumech.predict(k, cfg, { model = model }))
      assert.is_true(r.cycles >= last - 1e-6, model)
      assert.is_near(r.cpi, stack_sum(r), 1e-9)
      last = r.cycles
    end
    assert.are.equal(last, assert(gpumech.predict(k, cfg, { model = "gpumech" })).cycles)
    local naive = assert(gpumech.predict(k, cfg, { model = "naive" }))
    local markov = assert(gpumech.predict(k, cfg, { model = "markov" }))
    assert.is_true(markov.cycles >= naive.cycles - 1e-6)
    assert.is_near(markov.cpi, stack_sum(markov), 1e-9)
    assert.is_true(markov.markov.p_stall > 0 and markov.markov.stall_slots >= 1)
  end)

  it("selects representative warps by k-means, MAX, MIN and RANDOM (Fig. 7: by warp performance)", function()
    local core = require "gpush.core"
    local memsim = require "gpush.memsim"
    local k = small("divergent_loop", 8)
    local cfg = config.load("gtx1080")
    local pcs = gpumech.pc_params(k, cfg, assert(memsim.functional(k, cfg)))
    local perf = {}
    for _, f in ipairs(core.gpumech_features(k, pcs, 1 / cfg.sm.issue_width)) do
      perf[f.warp] = f.warp_perf
    end
    local best, worst = -math.huge, math.huge
    for _, v in pairs(perf) do
      best, worst = math.max(best, v), math.min(worst, v)
    end
    assert.is_true(best > worst) -- the divergent loop gives warps different trip counts
    local max = assert(gpumech.predict(k, cfg, { select = "max" }))
    local min = assert(gpumech.predict(k, cfg, { select = "min" }))
    assert.are.equal(best, perf[max.representative_warp])
    assert.are.equal(worst, perf[min.representative_warp])
    local km = assert(gpumech.predict(k, cfg))
    assert.is_not_nil(perf[km.representative_warp])
    local r1 = gpumech.predict(k, cfg, { select = "random", seed = 3 })
    local r2 = gpumech.predict(k, cfg, { select = "random", seed = 3 })
    assert.are.equal(r1.representative_warp, r2.representative_warp)
  end)

  it("reproduces Fig. 8 through the profile API: RR 6 non-overlapped, Eq. 9's 3/9 gives 2, GTO 3", function()
    local core = require "gpush.core"
    -- one interval of 3 instructions and 6 stall cycles; 4 warps at one issue per cycle
    local p = core.gpumech_profile_of({ { insts = 3, stall_cycles = 6 } }, 1)
    assert.are.same({ insts = 3, stall_cycles = 6, stall_events = 1, total_cycles = 9, issue_cycles = 1,
      intervals = 1 }, p:summary())
    local rr = p:predict { model = "mt", policy = "rr", warps = 4, issue_prob = 1 }
    assert.are.equal(6, rr.nonoverlapped)
    assert.are.equal(3, rr.remaining_stall_cycles) -- 9 + 6 - 12
    assert.are.equal(15, rr.cycles)
    assert.is_near(2, p:predict { model = "mt", policy = "rr", warps = 4 }.nonoverlapped, 1e-12)
    assert.are.equal(3, p:predict { model = "mt", policy = "gto", warps = 4, issue_prob = 1 }.nonoverlapped)
    assert.are.equal(3, p:predict { model = "mt", policy = "gto", warps = 4 }.nonoverlapped)
    -- the stack sums to the CPI: BASE 12 cycles, DEP the 3 left, over 12 instructions
    assert.are.same({ BASE = 1, DEP = 0.25, L1 = 0, L2 = 0, DRAM = 0, MSHR = 0, QUEUE = 0, L2BW = 0, SFU = 0,
      FP64 = 0, PIPE = 0, LSU = 0, BANK = 0 }, rr.stack)
    assert.has_error(function() p:predict { model = "fancy" } end,
      "gpumech: parameter 'model' must be one of naive, markov, mt, mt_mshr, mt_mshr_band (got fancy)")
  end)

  it("solves the Markov chain (Table II's Markov_Chain) by hand for one and two warps", function()
    local core = require "gpush.core"
    -- a stall of 2 cycles after every 2 instructions: p = 1/2 per issue, M = 2 slots
    local p = core.gpumech_profile_of({ { insts = 2, stall_cycles = 2 }, { insts = 2, stall_cycles = 2 } }, 1)
    -- one warp: IPC = 1 / (1 + p M) = 1/2, so the warp's own 8 cycles
    local one = p:predict { model = "markov", warps = 1 }
    assert.is_near(8, one.cycles, 1e-12)
    assert.are.same({ p_stall = 0.5, stall_slots = 2, ipc = 0.5 }, one.markov)
    -- two warps, states k = 0, 1, 2 stalled, q = 1/M = 1/2:
    --   from 0: 1 w.p. 1/2 (the issue stalls), else 0
    --   from 1: one wake-up w.p. 1/2, one stall w.p. 1/2: 0 1/4, 1 1/2, 2 1/4
    --   from 2: no issue, Binomial(2, 1/2) wake-ups: 2 1/4, 1 1/2, 0 1/4
    -- balance: pi1 = 3 pi2, pi0 = 2 pi2, so pi = (1/3, 1/2, 1/6), IPC = 5/6
    local two = p:predict { model = "markov", warps = 2 }
    assert.is_near(5 / 6, two.markov.ipc, 1e-12)
    assert.is_near(8 / (5 / 6), two.cycles, 1e-9)
    assert.is_near(two.cpi, two.stack.BASE + two.stack.DEP, 1e-12)
    -- more warps never lower the chain's throughput, and the issue rate caps it
    local last = 0
    for warps = 1, 16 do
      local r = p:predict { model = "markov", warps = warps }
      assert.is_true(r.markov.ipc >= last - 1e-12)
      assert.is_true(r.cpi >= 1 - 1e-12)
      last = r.markov.ipc
    end
  end)

  it("reuses the representative warp across configurations", function()
    local k = small("divergent_loop", 16)
    local prepared = assert(gpumech.prepare(k, config.load("gtx660ti")))
    local direct = assert(gpumech.predict(k, config.load("gtx660ti")))
    local reused = assert(gpumech.predict(k, config.load("gtx660ti"), { prepared = prepared }))
    assert.are.equal(direct.cycles, reused.cycles)
    assert.are.equal(prepared.warp, reused.representative_warp)
  end)

  -- A sweep's preparation leaves the base configuration's replay and bound
  -- counts in the kernel's cache (the counts from its walk over every warp,
  -- not gpush.bounds' pass): the base point replays and counts nothing, a
  -- point at another occupancy replays once and, its L1 size unchanged
  -- (gtx660ti's is fixed), counts nothing; every prediction is the one made
  -- without a cache, bit for bit.
  it("prepares a sweep's base replay and counts once, for every point", function()
    local core = require "gpush.core"
    local k = assert(workloads.kernel(workloads.get("l2_resident")))
    local replay, count, replays, counts = core.memsim_replay, core.bounds_kernel, 0, 0
    core.memsim_replay = function(...)
      replays = replays + 1
      return replay(...)
    end
    core.bounds_kernel = function(...)
      counts = counts + 1
      return count(...)
    end
    local ok, err = pcall(function()
      local base, cache = config.load("gtx660ti"), {}
      local prepared = assert(gpumech.prepare(k, base, { memory_cache = cache }))
      assert.are.same({ 1, 0 }, { replays, counts })
      local m, blocks = require("gpush.bounds").machine(base, k)
      local mem = assert(require("gpush.memsim").functional_cached(k, base, cache))
      assert.are.same(count(k, m, blocks, mem).counts,
        require("gpush.bounds").cached_counts(k, base, m, blocks, cache, mem))
      counts = 0
      local points = { config.load("gtx660ti", { "l1.mshrs=32" }), config.load("gtx660ti", { "sm.max_warps=16" }) }
      local seen = {}
      for i, cfg in ipairs(points) do
        local r = assert(gpumech.predict(k, cfg, { prepared = prepared, memory_cache = cache }))
        seen[i] = { replays, counts, r.cycles, r.cpi }
      end
      assert.are.same({ 1, 0 }, { seen[1][1], seen[1][2] }) -- the base occupancy: nothing again
      assert.are.same({ 2, 0 }, { seen[2][1], seen[2][2] }) -- another occupancy: its replay only
      for i, cfg in ipairs(points) do
        local direct = assert(gpumech.predict(k, cfg, { prepared = prepared }))
        assert.are.same({ direct.cycles, direct.cpi }, { seen[i][3], seen[i][4] })
      end
    end)
    core.memsim_replay, core.bounds_kernel = replay, count
    assert(ok, err)
  end)

  -- The sweep model's row reads the DRAM bytes of the replay its prediction
  -- used (no second lookup): at each occupancy, that occupancy's replay.
  it("gives the sweep's rows the achieved bandwidth of each point's own replay", function()
    local memsim = require "gpush.memsim"
    local k = assert(workloads.kernel(workloads.get("stream_triad")))
    local model, cache = gpumech.new { policy = "gto" }, {}
    local prepared = assert(model.prepare(k, config.load("gtx660ti"), cache, { seed = 1 }))
    local achieved = {}
    for _, warps in ipairs { 64, 16 } do
      local cfg = config.load("gtx660ti", { "sm.max_warps=" .. warps })
      local row = assert(model.run(k, cfg, prepared, cache))
      local mem = assert(memsim.functional(k, cfg))
      local bytes = mem.dram_bytes_read + mem.dram_bytes_written
      assert.are.equal(bytes / (row.time_us * 1e-6) / 1e9, row.achieved_gbs)
      achieved[#achieved + 1] = row.achieved_gbs
    end
    assert.are_not.equal(achieved[1], achieved[2])
  end)

  -- The sweep model's run fits (kernel, configuration) once for the sampler
  -- and the prediction: each point's row is predict's at that point's own
  -- occupancy, across points of one kernel's cache, sampling asked or not.
  it("predicts each sweep point at its own occupancy from the one fit of the point", function()
    local k = assert(workloads.kernel(workloads.get("l2_resident")))
    local base = config.load("gtx660ti")
    for _, ctx in ipairs { { seed = 1 }, { seed = 1, sample = true } } do
      local model, cache = gpumech.new { policy = "rr" }, {}
      local prepared = assert(model.prepare(k, base, cache, ctx))
      local seen = {}
      for _, o in ipairs { { "sm.max_warps=8" }, { "sm.max_warps=64" }, { "sm.max_warps=16", "l1.mshrs=32" } } do
        local cfg = config.load("gtx660ti", o)
        local row = assert(model.run(k, cfg, prepared, cache, ctx))
        local r = assert(gpumech.predict(k, cfg, { policy = "rr", prepared = prepared }))
        assert.are.equal(r.cycles, row.cycles, table.concat(o, " "))
        seen[r.blocks_per_sm] = true
      end
      assert.is_true(seen[1] and seen[2] and seen[8])
    end
  end)

  -- Without counts in the cache and without a prepared warp, predict counts
  -- the floor's bounds in the C call, in one walk with the pass over every
  -- warp (gp_gm_prepare_counted), and keeps them where bounds.counts finds
  -- them: the same counts as gpush.bounds' own pass, and no count of its own.
  it("counts the floor's bounds in the walk over every warp and keeps them", function()
    local bounds, core = require "gpush.bounds", require "gpush.core"
    local machine, memsim = require "gpush.machine", require "gpush.memsim"
    local k = assert(workloads.kernel(workloads.get("l2_resident")))
    local count, counts = core.bounds_kernel, 0
    core.bounds_kernel = function(...)
      counts = counts + 1
      return count(...)
    end
    local ok, err = pcall(function()
      local cfg, cache = config.load("gtx1080"), {}
      local r = assert(gpumech.predict(k, cfg, { memory_cache = cache }))
      assert.are.equal(0, counts)
      assert.is_nil(r.bound_counts)
      local m, blocks = bounds.machine(cfg, k)
      local mem = assert(memsim.functional_cached(k, cfg, cache))
      local kept = assert(bounds.cached_counts(k, cfg, m, blocks, cache, mem))
      local fresh = assert(core.bounds_kernel(k, machine.of(cfg), blocks, mem)).counts
      assert.are.same(fresh, kept)
      assert.are.equal(r.cycles, assert(gpumech.predict(k, cfg, { memory_cache = cache })).cycles)
      assert.are.equal(1, counts) -- the fresh one above; the second prediction found the kept counts
    end)
    core.bounds_kernel = count
    assert(ok, err)
  end)

  it("explains misuse and kernels that do not fit", function()
    local k = small("fma_compute", 4)
    assert.has_error(function() gpumech.predict(k, config.load("gtx480"), { policy = "lifo" }) end,
      "gpush.gpumech.predict: policy must be 'rr' or 'gto', got 'lifo'")
    local r, err = gpumech.predict(k, config.load("gtx480", { "sm.max_block_threads=128" }))
    assert.is_nil(r)
    assert.are.equal("gpumech: kernel 'fma_compute' does not fit on one SM of 'gtx480' (limit: threads)", err)
  end)

  it("names the parameter the binding cannot read (the shared field reader)", function()
    local core = require "gpush.core"
    local profile = core.gpumech_profile_of({ { insts = 4, stall_cycles = 0 } }, 1)
    assert.has_error(function() profile:predict { warps = "many" } end,
      "gpumech: parameter 'warps' must be a number")
    -- a boolean reads as 0 or 1, an absent field takes its default
    assert.are.equal(profile:predict { warps = true }.cycles, profile:predict {}.cycles)
    -- the machine names the parameter a configuration lacks or gets wrong
    local cfg = config.load("gtx1080")
    cfg.l1.ways = -1
    assert.has_error(function() core.machine(cfg) end,
      "machine: parameter 'l1.ways' must be a whole number from 0 to 2^32 - 1, got -1")
    cfg.l1.ways = nil
    assert.has_error(function() core.machine(cfg) end,
      "machine: parameter 'l1.ways' is missing from the configuration (gpush.config.load gives every parameter)")
  end)

  it("runs every shared real trace end to end", function()
    if not helper.have_shared_traces() then
      pending("../shared/traces not found: the real-trace checks are skipped")
      return
    end
    local trace = require "gpush.trace"
    local cfgs = { sm61 = config.load("gtx1080"), sm80 = config.load("a100"), h100 = config.load("h100-pcie") }
    local runs = 0
    for _, folder in ipairs { "vectoradd-sm61", "matrixmul-sm61", "vectoradd-sm80", "bfs-rodinia-sm80",
      "ffma-chain-h100-10", "ffma-chain-h100-40" } do
      local cfg = cfgs[folder:match("sm61") and "sm61" or folder:match("h100") and "h100" or "sm80"]
      for _, kernel in assert(trace.open(helper.shared .. "/traces/" .. folder)):kernels() do
        local r = assert(gpumech.predict(kernel, cfg, { policy = "gto" }))
        assert.is_true(r.cycles > 0 and r.ipc > 0, folder)
        assert.is_near(r.cpi, stack_sum(r), 1e-9)
        runs = runs + 1
      end
    end
    assert.are.equal(1 + 1 + 1 + 16 + 1 + 1, runs)
  end)
end)

describe("gpush gpumech command", function()
  it("prints one JSON object per launch with the contract fields", function()
    local code, out, err = helper.gpush_run { "gpumech", "suite:stream_triad", "--config", "gtx660ti",
      "--policy", "gto", "--json" }
    assert.are.equal(0, code, err)
    local rows = require("gpush.json").decode(out)
    assert.are.equal(1, #rows)
    local r = rows[1]
    assert.are.equal("stream_triad", r.kernel)
    assert.are.equal(1, r.launch)
    assert.are.equal("gto", r.policy)
    for _, field in ipairs { "cycles", "ipc", "cpi", "time_us" } do
      assert.is_true(r[field] > 0, field)
    end
    local sum = 0
    for _, v in pairs(r.stack) do
      sum = sum + v
    end
    assert.is_near(r.cpi, sum, 1e-9)
  end)

  -- The issue's two readings: "bound: mshr" printed beside an MSHR stack of 0.000 (the MSHRs
  -- are busy, the cycles go to the loads' DRAM latency), and "bound: l2; largest hard bound:
  -- latency" (the busiest resource beside the floor no model goes below)
  it("names the bottleneck from the stack, the busiest resource and the floor apart", function()
    local code, out = helper.gpush_run { "gpumech", "suite:pointer_chase", "--config", "gpumech-baseline" }
    assert.are.equal(0, code)
    assert.matches("pointer_chase%s+%d+%s+[%d.]+%s+[%d.]+%s+[%d.]+%s+LATENCY%s+BASE [%d.]+%s+DEP [%d.]+%s+L2 [%d.]+%s+"
      .. "DRAM [%d.]+", out)
    assert.matches("\n%s+busiest resource mshr, 9%d %% busy; floor %d+ cycles %(the blocks bound", out)
    assert.is_nil(out:find("bound: mshr", 1, true))
    if not helper.have_shared_traces() then
      return
    end
    code, out = helper.gpush_run { "gpumech", helper.shared .. "/traces/bfs-rodinia-sm80", "--config", "gtx660ti",
      "--kernel", "9" }
    assert.are.equal(0, code)
    assert.matches("LATENCY%s+BASE [^\n]+\n%s+busiest resource l2, %d+ %% busy; floor %d+ cycles %(the latency bound, "
      .. "which no model goes below%): the prediction is [%d.]+ x the floor", out)
  end)

  -- M.bottleneck hands refine_issue the resources' names in sorted order:
  -- of two resources equally saturated the first in that order names the
  -- bottleneck; a name outside the vocabulary's map is passed over
  it("breaks a tie between saturated resources by their names' order", function()
    local stack = { BASE = 1.0, DEP = 0.1 }
    local function busy(list)
      local r = {}
      for name, u in pairs(list) do
        r[name] = { utilisation = u }
      end
      return r
    end
    assert.are.same({ "PIPE", "fma" }, { gpumech.bottleneck(stack, busy { issue = 0.5, int = 0.95, fma = 0.95,
      latency = 0.2 }) })
    assert.are.same({ "PIPE", "fp64" }, { gpumech.bottleneck(stack, busy { issue = 0.5, sfu = 0.97, fp64 = 0.97,
      lsu = 0.2 }) })
    assert.are.same({ "LSU", "lsu" }, { gpumech.bottleneck(stack, busy { issue = 0.5, lsu = 0.99, sfu = 0.99,
      zzz = 0.99 }) })
    assert.are.same({ "LATENCY", "DEP" }, { gpumech.bottleneck(stack, busy { issue = 0.5, fma = 0.6 }) })
  end)

  it("prints a table with totals and explains bad arguments", function()
    local code, out = helper.gpush_run { "gpumech", "suite", "--config", "gpumech-baseline", "--kernel", "1-2" }
    assert.are.equal(0, code)
    assert.matches("GPUMech %(gpumech, rr, gpush equations%) on 'gpumech%-baseline'", out)
    assert.matches("\n total%s+2 launches", out)
    -- the headers say what IPC and CPI are
    assert.matches("IPC/GPU: warp instructions per cycle of the whole GPU, the kernel launch included", out, 1, true)
    assert.matches("CPI/sched: cycles per warp instruction of one warp scheduler, the kernel launch excluded", out,
      1, true)
    assert.matches("busiest resource [a-z0-9]+, %d+ %% busy; floor %d+ cycles %(the [a-z0-9]+ bound", out)
    -- issue_mix sits on its issue bound (warp instructions / issue slots, plus
    -- the launch), and within 2 % of it: its INT and FP32 instructions share
    -- one pipe (sm.int_fp32_shared), a queue of utilisation near 1 whose
    -- M/D/1 waits add 1.6 %
    local cycles, bottleneck, hard = out:match("issue_mix%s+(%d+)%s+[%d.]+%s+[%d.]+%s+[%d.]+%s+(%u+)[^\n]-\n"
      .. "[^\n]-floor (%d+) cycles %(the issue bound")
    assert.are.equal("ISSUE", bottleneck)
    assert.is_true(tonumber(cycles) >= tonumber(hard) and tonumber(cycles) <= 1.02 * tonumber(hard))
    code, out = helper.gpush_run { "gpumech", "suite", "--config", "gpumech-baseline", "--kernel", "1",
      "--equations", "paper" }
    assert.are.equal(0, code)
    assert.matches("GPUMech %(gpumech, rr, paper equations%)", out)
    assert.is_nil(out:find("busiest resource", 1, true))
    assert.is_nil(out:find("floor", 1, true))
    local err
    code, _, err = helper.gpush_run { "gpumech", "suite" }
    assert.are.equal(2, code)
    assert.matches("give one PATH and --config NAME", err, 1, true)
    code, _, err = helper.gpush_run { "gpumech", "suite", "--config", "gtx480", "--policy", "fifo" }
    assert.are.equal(2, code)
    code, _, err = helper.gpush_run { "gpumech", "suite", "--config", "gtx480", "--equations", "fancy" }
    assert.are.equal(2, code)
    assert.matches("unknown --equations 'fancy' (gpush, the default, or paper)", err, 1, true)
    code, _, err = helper.gpush_run { "gpumech", "suite", "--config", "gtx480", "-p", "l1.mshrs=0" }
    assert.are.equal(1, code)
    assert.matches("-p l1.mshrs=0: parameter 'l1.mshrs' of 'gtx480'", err, 1, true)
  end)
end)
