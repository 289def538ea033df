-- The invariant behind gpush.bounds: no simulated launch ends below a
-- bound.  Over the regime suite (LRR and GTO) on the five presets of
-- issue 19's check (gtx660ti, gtx480, gtx1080, a100, h100-pcie), the first
-- two seeded variants of every base kernel (GTO) on gtx660ti and gtx480,
-- and stream_triad (LRR) on a100 and h100-pcie, where it once ended below
-- `dram`, the simulator's cycles are at least every bound plus the launch,
-- with the stated slack of docs/bounds.md checked in its exact form:
--  - dram: the DRAM's busy time, which the simulator's last DRAM transfer
--    (not its cycles: write-backs may drain after the last warp) reaches;
--  - l2 and mshr are checked in their hard form (each distinct loaded line
--    one MSHR allocation and one L2 request) with no exception; their
--    functional-replay estimates are no floors where requests merge, which
--    the l2_resident test below shows.
-- Before the dependence-path floors, bfs's launches and tiny_blocks on
-- gtx480 ended below the latency and blocks bounds (docs/bounds.md).
-- stream_triad is the suite's largest kernel (0.8 M warp instructions,
-- about 1.4 s a run under load on a100): its other eight runs (gtx660ti,
-- gtx480, gtx1080; GTO on a100 and h100-pcie) are left out for time; the
-- full sweep (docs/bounds.md) found no run below a bound.
local bounds = require "gpush.bounds"
local config = require "gpush.config"
local sim = require "gpush.sim"
local workloads = require "gpush.workloads"

local helper = require "spec_helper"

-- Every bound of a kernel (a description, or a built kernel named `name`)
-- against one simulated run; returns the list of violations (empty when the
-- invariant holds).
local function violations(d, cfg, policy, name)
  local k = name and d or assert(workloads.kernel(d))
  d = name and { name = name } or d
  local b = assert(bounds.kernel(k, cfg))
  local r = assert(sim.run(k, cfg, { policy = policy }))
  local body, bad = r.cycles - b.launch, {}
  local function check(name, have, floor)
    if not (have >= floor - 1e-6) then
      bad[#bad + 1] = ("%s on %s (%s): %s %.1f < bound %.1f"):format(d.name, cfg._name, policy, name, have, floor)
    end
  end
  for _, name in ipairs(bounds.NAMES) do
    if name == "dram" then
      check("last DRAM transfer", r.last_dram_done, b.cycles.dram)
    else
      check(name, body, b.cycles[name])
    end
  end
  return bad
end

describe("the simulator against gpush.bounds", function()
  local VARIANTS = { gtx660ti = true, gtx480 = true }
  for _, preset in ipairs { "gtx660ti", "gtx480", "gtx1080", "a100", "h100-pcie" } do
    local with = VARIANTS[preset] and ": the regime suite and 32 variants" or ": the regime suite"
    it("never ends below a bound on " .. preset .. with, function()
      local cfg = config.load(preset)
      local bad, runs = {}, 0
      local function add(d, policy)
        runs = runs + 1
        for _, v in ipairs(violations(d, cfg, policy)) do
          bad[#bad + 1] = v
        end
      end
      for _, d in ipairs(workloads.suite) do
        if d.name ~= "stream_triad" then -- the largest: below, where it matters
          add(d, "lrr")
          add(d, "gto")
        end
      end
      if VARIANTS[preset] then
        for _, d in ipairs(workloads.variants { per = 2 }) do
          add(d, "gto")
        end
      end
      assert.are.equal(2 * 15 + (VARIANTS[preset] and 32 or 0), runs)
      assert.are.same({}, bad)
    end)
  end

  it("keeps stream_triad above the dram bound on a100 and h100-pcie: dirty lines left in the L2 are never written", function()
    -- 2048 blocks of 256 threads, 8 trips of b[i] + s * c[i] -> a[i] in
    -- 16 B lanes: 64 MB read from each of b and c, 64 MB stored into a.
    -- Every line of b and c is only loaded: 134,217,728 B read whatever
    -- the order.  The stores stay in the write-back L2 until evicted, and
    -- at the end it holds at most its size: 67,108,864 - 41,943,040 (a100,
    -- 40 MB) = 25,165,824 B, - 52,428,800 (h100-pcie, 50 MB) = 14,680,064 B
    -- written at least.  At 1215 MHz x 640 B x 2 / 1410 MHz = 1102.98 B per
    -- cycle (a100) and 1593 x 640 x 2 / 1755 = 1161.85 (h100-pcie), the peaks:
    -- 144,502.8 and 128,156.2 cycles; at the achievable bandwidths (issue 24:
    -- 87 % and 85 % of the peaks) 166,095.2 and 150,772.0.  The bound used to take the functional
    -- replay's 52,238,336 / 48,078,848 B written (169,047.7 / 156,902.5
    -- cycles, now estimates.dram); the simulator, in its own order, writes
    -- 51,099,648 / 46,913,536 and ended 0.45 % / 0.30 % below that.
    local k = assert(workloads.kernel(workloads.get("stream_triad")))
    for preset, want in pairs { a100 = { 25165824, 1555200 * 0.87 / 1410 },
      ["h100-pcie"] = { 14680064, 2039040 * 0.85 / 1755 } } do
      local cfg = config.load(preset)
      local b = assert(bounds.kernel(k, cfg))
      local written, per_cycle = want[1], want[2]
      assert.are.equal(134217728, b.counts.hard_dram_read_bytes)
      assert.are.equal(written, b.counts.hard_dram_written_bytes)
      assert.is_near((134217728 + written) / per_cycle, b.cycles.dram, 1e-6)
      assert.are.equal("dram", b.binds)
      assert.are.equal("dram", b.expect)
      assert.is_near(b.counts.dram_bytes / per_cycle, b.estimates.dram, 1e-6)
      local r = assert(sim.run(k, cfg, { policy = "lrr" }))
      -- the simulator moves every hard byte, at no more than the bandwidth
      assert.are.equal(134217728, r.dram_bytes_read)
      assert.is_true(r.dram_bytes_written >= written)
      assert.is_true(r.last_dram_done >= (r.dram_bytes_read + r.dram_bytes_written) / per_cycle)
      assert.are.same({}, violations(k, cfg, "lrr", "stream_triad"))
    end
    k:close()
  end)

  it("never ends below a bound on the bfs trace's 16 launches, gtx660ti and gtx480", function()
    if not helper.have_shared_traces() then
      pending("../shared/traces not found: the bfs checks are skipped")
      return
    end
    local trace = require "gpush.trace"
    local bad, runs = {}, 0
    for _, preset in ipairs { "gtx660ti", "gtx480" } do
      local cfg = config.load(preset)
      for launch, k in assert(trace.kernels_of(helper.shared .. "/traces/bfs-rodinia-sm80")) do
        runs = runs + 1
        for _, v in ipairs(violations(k, cfg, "lrr", "bfs launch " .. launch.launch)) do
          bad[#bad + 1] = v
        end
      end
    end
    assert.are.equal(32, runs)
    assert.are.same({}, bad)
  end)

  it("ends above l2_resident.v5's hard mshr and l2 bounds on gtx660ti, below their estimates", function()
    -- 153 blocks of 8 warps reread a 64 KB hot set: 512 lines, loaded by
    -- every block and written by none.  The functional replay counts
    -- 87,480 L1-missing load requests (global loads bypass L1), 39,409
    -- cycles of MSHR time; the simulator merges warps' requests for a line
    -- already outstanding and ends at 24,386 body cycles (issue 19: 29,386
    -- against the 44,409-cycle "bound", launches included).  Hard: each of
    -- the 512 lines needs one allocation on some SM, its first an L2 miss:
    -- 512 x (200 + 183) / (7 SMs x 64 MSHRs) = 437.7 cycles; l2 512 x 1 / 3
    -- slices = 170.7.
    local cfg = config.load("gtx660ti")
    local d
    for _, v in ipairs(workloads.variants { per = 5 }) do
      if v.name == "l2_resident.v5" then
        d = v
      end
    end
    local k = assert(workloads.kernel(d))
    local b = assert(bounds.kernel(k, cfg))
    local r = assert(sim.run(k, cfg, { policy = "gto" }))
    assert.are.equal(512, b.counts.hard_mshr_lines)
    assert.are.equal(512, b.counts.hard_mshr_cold_lines)
    assert.are.equal(512, b.counts.hard_l2_requests)
    assert.is_near(512 * 383 / (7 * 64), b.cycles.mshr, 1e-9)
    assert.is_near(512 / 3, b.cycles.l2, 1e-9)
    assert.are.equal("mshr", b.expect)
    local body = r.cycles - b.launch
    assert.is_true(r.mshr_merges > 0)
    assert.is_true(body < b.estimates.mshr, ("%.0f %.0f"):format(body, b.estimates.mshr))
    assert.are.same({}, violations(d, cfg, "gto"))
    k:close()
  end)

  it("keeps divergent_gather on gtx660ti near the MSHR Little estimate: the L2 sees requests in arrival order", function()
    -- MSHR-bound (64 per SM, 32 line requests per load) with the L2 and DRAM
    -- far from busy, so Little's law's estimate (the functional replay's
    -- MSHR users x the unloaded round trip / (7 SMs x 64)) is what the run
    -- should take.  Before the L2 served a line's requests in arrival order,
    -- a hit that reached its slice early waited for a fill whose requester,
    -- queued behind its SM's MSHRs, reached the L2 later: 215,514 body
    -- cycles (LRR), 1.58 x the estimate, 5,044 such hits.  Now they fetch
    -- the line themselves (the sectors they ask for, read twice).
    local cfg = config.load("gtx660ti")
    local k = assert(workloads.kernel(workloads.get("divergent_gather")))
    local b = assert(bounds.kernel(k, cfg))
    assert.are.equal("mshr", b.expect)
    for _, policy in ipairs { "lrr", "gto" } do
      local r = assert(sim.run(k, cfg, { policy = policy }))
      local body = r.cycles - b.launch
      assert.is_true(body >= b.cycles.mshr and body >= b.estimates.mshr, ("%s %.0f %.0f"):format(policy, body, b.estimates.mshr))
      assert.is_true(body <= 1.10 * b.estimates.mshr, ("%s %.0f %.0f"):format(policy, body, b.estimates.mshr))
      assert.is_true(r.l2_early_arrivals > 0 and r.l2_early_arrivals <= r.l2_fill_waits)
      -- the gather's requests are one 32 B sector each (a few index loads more)
      assert.is_true(r.dram_duplicate_bytes >= 32 * r.l2_early_arrivals)
      assert.is_true(r.dram_duplicate_bytes <= 33 * r.l2_early_arrivals)
      assert.is_true(r.dram_duplicate_bytes < 0.05 * r.dram_bytes_read)
    end
    k:close()
  end)

  it("keeps fma_compute on gtx660ti just above the FMA bound: a 2/3-cycle FP32 unit takes 3 warp instructions per 2 cycles", function()
    -- 80 blocks x 8 warps x 4 trips x 128 FFMAs = 327,680, and one IADD3 a
    -- trip (2,560) on the same pipe (Kepler's INT and FP32 share it,
    -- sm.int_fp32_shared), on 7 SMs x 4 schedulers at 1 / 0.6667 a cycle:
    -- 7,863.3 cycles (7,802.3 for the FFMAs alone).  While the
    -- simulator's units were busy for whole cycles it issued one FFMA a
    -- cycle per scheduler and took 12,300 body cycles (LRR), 1.58 x.  The
    -- busiest SM holds 12 of the 80 blocks (8 a wave): 24 warps a scheduler
    -- x 516 FFMAs and IADD3s x 0.6667 = 8,256.4 cycles, which LRR meets
    -- within the load of the first trip and the last chain (8,282
    -- measured); GTO's greedy warp runs into its own chains (8,824).  (The
    -- body alone: the front end off.)
    local cfg = config.load("gtx660ti", helper.no_front_end())
    local k = assert(workloads.kernel(workloads.get("fma_compute")))
    local b = assert(bounds.kernel(k, cfg))
    assert.are.equal("fma", b.binds)
    assert.are.equal(327680, b.counts.class_insts.fp32)
    assert.are.equal(2560, b.counts.class_insts.int)
    assert.is_near((327680 + 2560) * 0.6667 / 28, b.cycles.fma, 1e-6)
    local busiest = 24 * 516 * 0.6667
    for policy, most in pairs { lrr = 1.01, gto = 1.08 } do
      local r = assert(sim.run(k, cfg, { policy = policy }))
      local body = r.cycles - b.launch
      assert.is_true(body >= busiest, ("%s %.0f"):format(policy, body))
      assert.is_true(body <= most * busiest, ("%s %.0f"):format(policy, body))
      assert.are.same({}, violations(k, cfg, policy, "fma_compute"))
    end
    k:close()
  end)

  it("ends above tiny_blocks' blocks bound on gtx480, which once was 25,515 cycles", function()
    -- 8192 one-warp blocks of LDG, FFMA, FFMA, STG, EXIT on 15 SMs x 8
    -- slots.  The old path took the load at its functional AMAT (L2 310 +
    -- 256 of 8192 DRAM misses x 280 = 318.75): 373.76 per block, 25,515
    -- cycles; the simulator's dynamic block placement found 40 % of the
    -- loads in L1 (45 cycles) and ended at 18,601.  Every line of the 32 KB
    -- array is read 32 times, so the floor is the L1 hit: 45 + 18 + 18 + 1
    -- + 18 = 100 cycles a block, 8192 x 100 / 120 = 6826.7 (the body alone:
    -- the front end off).
    local cfg = config.load("gtx480", helper.no_front_end())
    local d = workloads.get("tiny_blocks")
    local b = assert(bounds.kernel(assert(workloads.kernel(d)), cfg))
    assert.are.equal("blocks", b.binds)
    assert.is_true(math.abs(b.cycles.blocks - 8192 * 100 / 120) < 1e-6, tostring(b.cycles.blocks))
    assert.are.same({}, violations(d, cfg, "lrr"))
  end)
end)
