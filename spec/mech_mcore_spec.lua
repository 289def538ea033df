-- Blem's M-core models: each MWP-CWP case and each GPUPerf term by hand on a
-- toy GPU, the invariants on the suite, inputs measured on kernels, every
-- preset and shared trace end to end.
local config = require "gpush.config"
local helper = require "spec_helper"
local mcore = require "gpush.models.mech.mcore"
local workloads = require "gpush.workloads"

-- A toy GPU: 2 SMs at 1000 MHz, one scheduler, 8 SPs (FP32 interval 4), 2
-- SFUs (interval 16), FP32 latency 20, L1 hit 50, t_mem = L2 100 + 300 ns =
-- 400 cycles, 128 B transactions, 64 MSHRs, no launch cost.
local TOY_GPU = [[
gpu: {name: toy, compute_capability: 2.0}
sm: {count: 2, warp_size: 32, max_warps: 64, max_blocks: 8, schedulers: 1, issue_width: 1}
clock: {core_mhz: 1000}
ops:
  fp32: {latency: 20, interval: 4}
  sfu: {latency: 40, interval: 16}
  other: {latency: 20, interval: 4}
l1: {size_kb: 16, latency: 50, mshrs: 64, cache_global: true}
l2: {latency: 100}
dram: {latency_ns: 300, bandwidth_gbs: 100}
launch: {kernel_cycles: 0, block_cycles: 0}
]]

local dir
local function toy(modules, base, overrides)
  local file = dir .. "/toy-" .. base .. "-" .. #modules .. ".yaml"
  local f = assert(io.open(file, "w"))
  f:write(("kind: mcore\ngpu: toy-gpu.yaml\nbase: %s\nmodules: [%s]\n"):format(base, table.concat(modules, ", ")))
  f:close()
  return assert(mcore.core(file, overrides))
end

local with = helper.with

local small = helper.small_kernel

-- The former suite's kernels (fixed inputs: spec/fixtures/legacy_suite.lua)
-- for the inputs computed by hand: a change of those numbers is then a change
-- of the measures, never of the workloads.
local legacy = require "fixtures.legacy_suite"
local function fixed(name)
  return assert(workloads.kernel(legacy.get(name, 96)))
end

-- The regime suite's kernels that do not fit on one SM of a preset, by hand:
-- fma_chain's 32 KB of shared memory per block against CC 1.x's 16 KB;
-- fp64_heavy (256 threads x 48 registers = 12288) and tiled_barrier (256 x 56
-- = 14336) against CC 1.1's 8192 registers per SM.
local MISFITS = {
  ["8400gs"] = { fma_chain = "shared" },
  gt330 = { fma_chain = "shared" },
  ["quadro-fx580"] = { fma_chain = "shared", fp64_heavy = "registers", tiled_barrier = "registers" },
}

-- The core's inputs on `kernel`, the regime suite's kernel `name`, or nil
-- after checking the kernel is one of MISFITS with its message.
local function suite_inputs(m, preset, name, kernel)
  local inputs, err = m:inputs(kernel)
  local limit = (MISFITS[preset] or {})[name]
  if limit then
    assert.are.equal(("mcore: kernel '%s' does not fit on one SM of '%s' (limit: %s)"):format(name, preset, limit),
      err)
    return nil
  end
  return assert(inputs, err)
end

describe("gpush.models.mech.mcore", function()
  setup(function()
    dir = helper.temp_dir()
    local f = assert(io.open(dir .. "/toy-gpu.yaml", "w"))
    f:write(TOY_GPU)
    f:close()
  end)
  teardown(function()
    os.execute("rm -rf " .. helper.shell_quote(dir))
  end)

  -- Per warp: 10 instructions (Comp_cycles = 10 x 32/8 = 40), 2 memory
  -- instructions (Mem_cycles = 2 x 400 = 800), one 128 B transaction each.
  local CASE = { N_I = 10, N_SFU = 0, N_CF_div = 0, N_mem = 2, ILP = 1, MLP = 1 }

  it("computes MWP-CWP's case 1 (not enough warps) by hand", function()
    local m = toy({}, "mwp_cwp")
    local r = assert(m:predict(with(CASE, { W_SM = 4, warps = 8, blocks = 2 })))
    -- BW_per_warp = 1e9 x 128 / 400; MWP_peak_BW = 100e9 / (BW_per_warp x 2) = 156.25 > N
    assert.is_near(156.25, r.quantities.mwp_bw, 1e-9)
    assert.are.equal(4, r.quantities.mwp)
    assert.are.equal(4, r.quantities.cwp) -- CWP_full = (800 + 40) / 40 = 21 > N
    assert.are.equal(1, r.quantities.case)
    -- Exec = 800 + 40 + 40/2 x (4 - 1) = 900 (Rep = 1)
    assert.is_near(900, r.cycles, 1e-9)
    assert.is_near(4 * 40, r.terms.comp, 1e-9)
    assert.is_near(4 * 800 / 4, r.terms.mem, 1e-9)
    assert.is_near(160 + 800 - 900, r.terms.overlap, 1e-9)
  end)

  it("computes MWP-CWP's case 2 (CWP >= MWP, memory bound) by hand", function()
    -- bandwidth for MWP_peak_BW = 4: 4 x 3.2e8 x 2 = 2.56 GB/s
    local m = toy({}, "mwp_cwp", { "dram.bandwidth_gbs=2.56" })
    local r = assert(m:predict(with(CASE, { W_SM = 16, warps = 32, blocks = 2 })))
    assert.is_near(4, r.quantities.mwp, 1e-9)
    assert.are.equal(16, r.quantities.cwp)
    assert.are.equal(2, r.quantities.case)
    -- Exec = 800 x 16 / 4 + 40/2 x (4 - 1) = 3260
    assert.is_near(3260, r.cycles, 1e-9)
    assert.is_near(16 * 40 + 3200 - 3260, r.terms.overlap, 1e-9)
  end)

  it("computes MWP-CWP's case 3 (MWP > CWP, computation bound) by hand and repeats it", function()
    local m = toy({}, "mwp_cwp")
    local r = assert(m:predict(with(CASE, { W_SM = 32, warps = 64, blocks = 2 })))
    assert.are.equal(32, r.quantities.mwp)
    assert.is_near(21, r.quantities.cwp, 1e-12)
    assert.are.equal(3, r.quantities.case)
    -- Exec = Mem_L + Comp_cycles x N = 400 + 40 x 32 = 1680
    assert.is_near(1680, r.cycles, 1e-9)
    -- twice the warps: Rep = 2
    local twice = assert(m:predict(with(CASE, { W_SM = 32, warps = 128, blocks = 4 })))
    assert.is_near(2, twice.quantities.rep, 1e-12)
    assert.is_near(3360, twice.cycles, 1e-9)
    -- no memory instruction: all computation
    local compute = assert(m:predict(with(CASE, { W_SM = 32, warps = 64, blocks = 2, N_mem = 0 })))
    assert.is_near(40 * 32, compute.cycles, 1e-9)
  end)

  it("adds Hong and Kim's synchronisation cost under MWP-CWP", function()
    local m = toy({ "sync" }, "mwp_cwp")
    local r = assert(m:predict(with(CASE, { W_SM = 4, warps = 8, blocks = 2, N_sync = 3 })))
    -- Departure_delay (1 cycle x 1 transaction) x (MWP - 1) x 3 barriers x 1 block per SM
    assert.is_near(1 * 3 * 3 * 1, r.modules.sync, 1e-9)
    assert.is_near(900 + 9, r.cycles, 1e-9)
  end)

  it("computes GPUPerf's base terms by hand, with both overlap rules", function()
    local inputs = { N_I = 20, N_SFU = 0, N_CF_div = 0, N_mem = 4, ILP = 1, MLP = 1, W_SM = 4, warps = 8,
      blocks = 2 }
    local r = assert(toy({}, "gpuperf"):predict(inputs))
    -- ITILP_max = 20 / (32/8) = 5 (Eq. 4.11); ITILP = min(1 x 4, 5) = 4; W_parallel = 20 x 4 x 20/4
    assert.are.equal(5, r.quantities.itilp_max)
    assert.are.equal(4, r.quantities.itilp)
    assert.is_near(400, r.terms.comp, 1e-9)
    -- CWP = min((4 x 400 + 100) / 100, 4) = 4; MWP = 4; MWP_cp = 3; ITMLP = 3
    assert.are.equal(3, r.quantities.itmlp)
    assert.is_near(4 * 4 * 400 / 3, r.terms.mem, 1e-9)
    -- F_overlap = 3/4 (zeta = 1): min(400 x 3/4, T_mem)
    assert.is_near(300, r.terms.overlap, 1e-9)
    assert.is_near(400 + 6400 / 3 - 300, r.cycles, 1e-9)
    -- at 1.28 GB/s MWP = 2 < CWP = 4: GPUPerf's zeta is 0 (all computation overlaps), ours stays 1
    local slow = { "dram.bandwidth_gbs=1.28" }
    local literal = assert(toy({}, "gpuperf", { slow[1], "overlap=gpuperf" }):predict(inputs))
    assert.is_near(2, literal.quantities.mwp, 1e-9)
    assert.is_near(16 * 400 / 2, literal.terms.mem, 1e-9)
    assert.is_near(3200, literal.cycles, 1e-9)
    local continuous = assert(toy({}, "gpuperf", slow):predict(inputs))
    assert.is_near(3300, continuous.cycles, 1e-9)
  end)

  it("computes every GPUPerf module by hand and the breakdown sums to the total", function()
    local m = toy({ "timing", "sfu", "sync", "branches", "banks", "multi_issue", "coalescing", "caching", "mshr" },
      "gpuperf")
    local r = assert(m:predict {
      N_I = 20, n_i = { fp32 = 9, sfu = 6, ld_global = 3, st_global = 1, barrier = 1 }, N_SFU = 6, N_CF_div = 1,
      N_sync = 1, N_con = 2, N_mem = 4, N_off_chip = 1, avg_trans_warp = 2, B_off_chip = 512, ILP = 2, MLP = 2,
      W_SM = 8, warps = 32, blocks = 4,
    })
    local q = r.quantities
    -- timing: l = (9 x 20 + 6 x 40 + 1 x 20) / 16 (global memory is T_mem's)
    assert.is_near(27.5, q.avg_lat, 1e-12)
    -- caching and coalescing: AMAT = 1/4 x (400 + (2 - 1) x 1) + 3/4 x 50
    assert.is_near(137.75, q.amat, 1e-12)
    -- MWP: min(137.75 / 2, 100e9 / (1e9 x 128 / 137.75 x 2), N = 8, (64 / (3/4)) / 2) = N
    assert.are.equal(8, q.mwp)
    assert.is_near(64 / 0.75 / 2, q.mwp_mshr, 1e-9)
    -- ITILP = min(2 x 8, 27.5 / 4) -> 4 cycles per instruction; SFU instructions counted: 13 + 6
    assert.is_near(4, q.cycles_per_inst, 1e-12)
    assert.is_near(19 * 4 * 16, r.breakdown[1].cycles, 1e-9) -- W_parallel, 16 warps per SM
    -- CWP = min((4 x 137.75 / 2 + 76) / 76, 8); MWP_cp = CWP - 1; ITMLP = 2 x MWP_cp
    assert.is_near(351.5 / 76, q.cwp, 1e-12)
    assert.is_near(2 * (351.5 / 76 - 1), q.itmlp, 1e-12)
    assert.is_near(4 * 16 * 137.75 / q.itmlp, r.terms.mem, 1e-9)
    -- O_SFU = 6 x 16 x 32/2 x (6/20 - 2/8); O_sync = 1 x 4/2 x (1 x 2 departure x (MWP 8 - 1));
    -- O_CFdiv = 1 x 16 x 4; O_bank = 2 x 16 / 1
    assert.is_near(6 * 16 * 16 * 0.05, r.modules.sfu, 1e-9)
    assert.is_near(2 * 2 * 7, r.modules.sync, 1e-9)
    assert.is_near(64, r.modules.branches, 1e-9)
    assert.is_near(32, r.modules.banks, 1e-9)
    -- timing's floor: the SFU unit needs 6 x 16 cycles per warp, 16 warps per SM
    assert.are.equal("sfu", q.busiest_unit)
    assert.is_near(96 * 16, r.terms.comp, 1e-9)
    assert.is_near(96 * 16 - (1216 + 76.8 + 28 + 64 + 32), r.modules.timing, 1e-9)
    -- overlap: min(T_comp x 7/8, T_mem) = T_mem
    assert.is_near(r.terms.mem, r.terms.overlap, 1e-9)
    assert.is_near(1536, r.cycles, 1e-9)
    local sum = 0
    for _, c in pairs(r.modules) do
      sum = sum + c
    end
    assert.is_near(r.cycles, sum, 1e-9)
    -- the adjusting modules show in the effects: caching makes memory cheaper
    assert.is_true(r.effects.caching <= 0)
    -- GPUPerf's own barrier cost: F_sync = Gamma x AMAT x N_mem / N_I, per barrier per block
    local gp = assert(mcore.core(dir .. "/toy-gpuperf-9.yaml", { "sync_rule=gpuperf", "sync_gamma=2" }))
    local r2 = assert(gp:predict {
      N_I = 20, n_i = { fp32 = 9, sfu = 6, ld_global = 3, st_global = 1, barrier = 1 }, N_SFU = 6, N_CF_div = 1,
      N_sync = 1, N_con = 2, N_mem = 4, N_off_chip = 1, avg_trans_warp = 2, B_off_chip = 512, ILP = 2, MLP = 2,
      W_SM = 8, warps = 32, blocks = 4,
    })
    assert.is_near(1 * 4 / 2 * 2 * 137.75 * 4 / 20, r2.modules.sync, 1e-9)
  end)

  it("refuses an n_i class that is no trace op class, naming it", function()
    local m = toy({ "timing" }, "gpuperf")
    local r, err = m:predict {
      N_I = 20, n_i = { fp32 = 9, fp_fma = 11 }, N_SFU = 0, N_CF_div = 0, N_sync = 0, N_con = 0, N_mem = 0,
      N_off_chip = 0, avg_trans_warp = 1, B_off_chip = 0, ILP = 2, MLP = 1, W_SM = 8, warps = 32, blocks = 4,
    }
    assert.is_nil(r)
    assert.matches("M-core 'toy-gpuperf", err, 1, true)
    assert.matches("input n_i: unknown op class 'fp_fma' (expected a trace op class: int, fp32,", err, 1, true)
    -- the framework's input check refuses it for any module that reads n_i, not only timing
    r, err = toy({ "mshr" }, "gpuperf"):predict {
      N_I = 20, n_i = { ld_global = 9, fp_fma = 11 }, N_SFU = 0, N_CF_div = 0, N_sync = 0, N_con = 0, N_mem = 9,
      N_off_chip = 0, avg_trans_warp = 1, B_off_chip = 0, ILP = 2, MLP = 1, W_SM = 8, warps = 32, blocks = 4,
      R_mshr = 9,
    }
    assert.is_nil(r)
    assert.matches("M-core 'toy-gpuperf-1': input n_i: unknown op class 'fp_fma'", err, 1, true)
  end)

  -- INT and FP32 on one pipe before Volta (sm.int_fp32_shared): the timing
  -- module's units are the machine's, as the simulator's, GPUMech's and the
  -- bounds' are.  By hand, on the toy with 2 schedulers that each issue 2
  -- instructions a cycle to a 32-lane INT and a 32-lane FP32 pipe (interval
  -- 1): 8 warps per SM of 16 INT + 16 FP32 instructions are 256 warp
  -- instructions per SM.  Two pipes a scheduler: dispatch binds, 256 / (2 x
  -- 2) = 64 cycles.  One shared pipe a scheduler: 256 / 2 = 128 cycles.
  it("issues INT to the FP32 unit where the GPU shares one pipe, by hand", function()
    local SHARED_TOY = { "sm.schedulers=2", "sm.issue_width=2", "ops.int.interval=1", "ops.fp32.interval=1",
      "ops.int.latency=20", "ops.fp32.latency=20" }
    local inputs = { N_I = 32, n_i = { int = 16, fp32 = 16 }, N_SFU = 0, N_CF_div = 0, N_mem = 0, ILP = 32,
      MLP = 1, W_SM = 8, warps = 16, blocks = 2 }
    for _, base in ipairs { "mwp_cwp", "gpuperf" } do
      local two = assert(toy({ "timing", "multi_issue" }, base, SHARED_TOY))
      local r = assert(two:predict(inputs))
      assert.is_near(64, r.cycles, 1e-9, base)
      assert.are.equal("dispatch", r.quantities.busiest_unit, base)
      local shared = assert(toy({ "timing", "multi_issue" }, base,
        { "sm.int_fp32_shared=true", table.unpack(SHARED_TOY) }))
      r = assert(shared:predict(inputs))
      assert.is_near(128, r.cycles, 1e-9, base)
      assert.are.equal("fma", r.quantities.busiest_unit, base)
      assert.are.equal("PIPE", (mcore.bottleneck(r)), base)
      assert.are.same({ "int", "fma", "fma" }, { two.hw.class_unit.int, shared.hw.class_unit.int,
        shared.hw.class_unit.imad })
    end
    -- derived from the GPU only: the GPU's key sets it
    local _, err = mcore.core("gtx660ti", { "class_unit=x" })
    assert.matches("parameter 'class_unit' of M%-core 'gtx660ti' derives from the GPU configuration", err)
  end)

  -- The same on a real preset against a first-principles bound: issue_mix on
  -- gtx1080 (Pascal: one set of CUDA cores for INT and FP32) is 64 INT + 64
  -- FP32 + 1 branch per warp, 2,560 warps over 20 SMs: 128 warps x 128
  -- instructions / 4 schedulers at one a cycle = 4,096 cycles an SM, plus
  -- the 3,694-cycle launch = 7,790, which the M-core went below (5,758,
  -- the INT and FP32 pipes apart) before it honoured sm.int_fp32_shared.
  it("never goes below the shared INT/FP32 pipe's bound on gtx1080 (issue_mix)", function()
    local bounds = require "gpush.bounds"
    local cfg = assert(config.load("gtx1080"))
    local desc = assert(workloads.resolve("suite:issue_mix"))[1]
    local kernel = assert(workloads.kernel(desc))
    local floor = assert(bounds.kernel(kernel, cfg, {}))
    assert.is_near(7790, floor.total, 1e-6)
    for _, base in ipairs { "gpuperf", "mwp_cwp" } do
      local row = assert(mcore.new({ base = base }).run(kernel, cfg, nil, {}))
      assert.is_true(row.cycles >= 7790 * (1 - 1e-12), base .. ": " .. row.cycles)
      assert.are.equal("PIPE", row.bottleneck, base)
    end
    kernel:close()
  end)

  it("splits on-chip hits between L1 and L2, holds MSHRs for L1 misses only and caps MWP by the L2 slices", function()
    local inputs = { N_I = 20, N_SFU = 0, N_CF_div = 0, N_mem = 4, N_off_chip = 1, N_L1 = 2, avg_trans_warp = 2,
      R_mshr = 4, R_l2 = 6, ILP = 1, MLP = 1, W_SM = 4, warps = 8, blocks = 2,
      n_i = { ld_global = 2, st_global = 2, fp32 = 16 } }
    local l2 = { "l2.slices=1", "l2.interval=24" }
    local r = assert(toy({ "coalescing", "caching", "mshr", "l2" }, "gpuperf", l2):predict(inputs))
    local q = r.quantities
    -- one access off chip, two L1 hits (50 cycles), one L2 hit (100): AMAT = 1/4 x (400 + 1) + 3/4 x 200/3
    assert.is_near(150.25, q.amat, 1e-12)
    -- 4 of the 8 transactions miss L1: 64 MSHRs hold 128 transactions, 64 accesses of 2
    assert.is_near(0.5, q.load_share, 1e-12)
    assert.is_near(64, q.mwp_mshr, 1e-12)
    -- one slice every 24 cycles for 2 SMs; 1.5 L2 requests per access: MWP_L2 = AMAT / 48 / 1.5
    assert.is_near(150.25 / 72, q.mwp_l2, 1e-12)
    assert.is_near(150.25 / 72, q.itmlp, 1e-12)
    -- T_mem is then Little's law on the slices: 4 warps x 6 requests x 24 cycles x 2 SMs / 1 slice
    assert.is_near(1152, r.terms.mem, 1e-9)
    assert.is_near(400 + 1152 - 300, r.cycles, 1e-9)
    -- without the l2 module the L2 does not bind: ITMLP = MWP_cp = 3
    local free = assert(toy({ "coalescing", "caching", "mshr" }, "gpuperf", l2):predict(inputs))
    assert.are.equal(3, free.quantities.itmlp)
    assert.is_near(4 * 4 * 150.25 / 3, free.terms.mem, 1e-9)
    -- without N_L1 and R_mshr (an input file): every hit takes t_hit (L1, 50) and loads hold MSHRs
    local unmeasured = with(inputs, {})
    unmeasured.N_L1, unmeasured.R_mshr = nil, nil
    local plain = assert(toy({ "coalescing", "caching", "mshr" }, "gpuperf", l2):predict(unmeasured))
    assert.is_near(137.75, plain.quantities.amat, 1e-12)
    assert.is_near(0.5, plain.quantities.load_share, 1e-12)
  end)

  it("never ends a kernel before its longest dependence path (paths)", function()
    local inputs = with(CASE, { W_SM = 4, warps = 8, blocks = 2, N_mem = 0, T_path = 900 })
    -- GPUPerf alone: 10 instructions x 4 warps x 20 / min(1 x 4, 20 / 4) = 200 cycles
    assert.is_near(200, assert(toy({}, "gpuperf"):predict(inputs)).cycles, 1e-9)
    local r = assert(toy({ "paths" }, "gpuperf"):predict(inputs))
    assert.is_near(900, r.cycles, 1e-9)
    assert.is_near(700, r.modules.paths, 1e-9)
    -- the kernel launch comes on top of the path; a shorter path adds nothing
    local launched = assert(toy({ "launch", "paths" }, "gpuperf", { "launch.kernel_cycles=50" }):predict(inputs))
    assert.is_near(950, launched.cycles, 1e-9)
    assert.are.equal(0, assert(toy({ "paths" }, "gpuperf"):predict(with(inputs, { T_path = 150 }))).modules.paths)
  end)

  it("derives the M-core's hardware from the GPU preset and takes its keys", function()
    local k = assert(mcore.core("gtx660ti"))
    local cfg = assert(config.load("gtx660ti"))
    assert.are.same({ 7, 915, 4, 2 }, { k.hw.sms, k.hw.freq_mhz, k.hw.schedulers, k.hw.multi_issue })
    assert.is_near(192, k.hw.simd_width, 0.1) -- 4 x 32 / 0.6667
    assert.is_near(cfg.l2.latency + cfg.dram.latency_ns * 0.915, k.hw.t_mem, 1e-9)
    assert.are.equal(35.7, k.info.tdp_w)
    local slow = assert(mcore.core("gtx660ti", { "dram.bandwidth_gbs=96", "sync_gamma=2" }))
    assert.are.equal(96, slow.hw.bw_gbs)
    assert.are.equal(2, slow.hw.sync_gamma)
    local _, err = mcore.core("gtx660ti", { "simd_width=64" })
    assert.matches("parameter 'simd_width' of M%-core 'gtx660ti' derives from the GPU configuration", err)
    _, err = mcore.core("gtx660ti", { "sm.cont=8" })
    assert.matches("unknown parameter of M%-core 'gtx660ti'.*did you mean 'sm.count'", err)
    _, err = mcore.core("gtx660ti", { "sm.count=0" })
    assert.matches("parameter 'sm.count' of 'gtx660ti': expected an integer from 1 to 1024, got 0", err)
    _, err = mcore.core("gtx660ti", nil, { base = "roofline" })
    assert.are.equal("unknown M-core base 'roofline' (gpuperf, mwp_cwp)", err)
    assert.are.same({ "8400gs", "gt330", "gtx480", "gtx660ti", "quadro-fx580" }, mcore.presets())
    local gt330 = assert(mcore.core("gt330"))
    assert.are.same({ 12, 1340, 1.2 }, { gt330.hw.sms, gt330.hw.freq_mhz, gt330.hw.cc })
    assert.is_near(25.3, gt330.hw.bw_gbs, 1e-9)
  end)

  it("measures Table 4.2's inputs on a kernel", function()
    local k = assert(mcore.core("gtx660ti"))
    local inputs, about = k:inputs(fixed("divergent_loop"))
    assert.is_truthy(inputs, about)
    assert.are.equal("divergent_loop", about.kernel)
    assert.are.equal(96, inputs.blocks)
    assert.are.equal(96 * 8, inputs.warps)
    -- 96 blocks over 7 SMs: 14 blocks on the busiest, at most 8 resident (64 warps)
    assert.are.equal(64, inputs.W_SM)
    -- three FP32 on 16 of 32 lanes per trip: 1.5 extra instructions per trip
    local per_trip = 7
    local trips = (inputs.N_I - 1) / per_trip -- the trailing EXIT
    assert.is_near(1.5 * trips, inputs.N_CF_div, 1e-9)
    local chase = assert(k:inputs(fixed("pointer_chase")))
    assert.are.equal(1, chase.MLP)
    assert.are.equal(1, chase.avg_trans_warp) -- 32 lanes read one 8 B word
    local gather = assert(k:inputs(fixed("divergent_gather")))
    assert.is_true(gather.avg_trans_warp > 10)
    -- pre-Fermi: CC 1.1's rule splits the chase's broadcast into 32 transactions; no caches
    local fx = assert(assert(mcore.core("quadro-fx580")):inputs(fixed("pointer_chase")))
    assert.are.equal(32, fx.avg_trans_warp)
    assert.are.equal(fx.N_mem, fx.N_off_chip)
    local narrow = assert(mcore.core("gtx660ti", { "sm.max_block_threads=128" }))
    local _, err = narrow:inputs(fixed("fma_compute"))
    assert.are.equal("mcore: kernel 'fma_compute' does not fit on one SM of 'gtx660ti' (limit: threads)", err)
  end)

  it("never gets slower with more bandwidth or more SMs, never faster with more SFU work", function()
    for _, preset in ipairs { "gtx660ti", "gtx480", "quadro-fx580" } do
      for _, base in ipairs { "gpuperf", "mwp_cwp" } do
        for _, name in ipairs(workloads.names()) do
          local kernel = small(name, 192)
          local function cycles(overrides)
            local m = assert(mcore.core(preset, overrides, { base = base }))
            return assert(m:predict(assert(m:inputs(kernel)), { effects = false })).cycles
          end
          local m = assert(mcore.core(preset, nil, { base = base }))
          local inputs = suite_inputs(m, preset, name, kernel)
          if inputs then
            local cfg = assert(config.load(preset))
            local label = preset .. "/" .. base .. "/" .. name
            local bw = cfg.dram.bandwidth_gbs
            local slow, mid, fast = cycles { "dram.bandwidth_gbs=" .. bw / 2 }, cycles {},
              cycles { "dram.bandwidth_gbs=" .. bw * 2 }
            assert.is_true(fast <= mid * (1 + 1e-12) and mid <= slow * (1 + 1e-12), label .. " bandwidth")
            local few, many = cycles { "sm.count=" .. math.max(1, cfg.sm.count // 2) },
              cycles { "sm.count=" .. cfg.sm.count * 2 }
            assert.is_true(many <= mid * (1 + 1e-12) and mid <= few * (1 + 1e-12), label .. " SMs")
            -- SFU work: 4 more SFU instructions per warp (turning FP32 instructions into SFU ones may
            -- rightly be faster: it relieves a saturated FMA pipe)
            local more = with(inputs, { N_I = inputs.N_I + 4, N_SFU = inputs.N_SFU + 4,
              n_i = with(inputs.n_i, { sfu = (inputs.n_i.sfu or 0) + 4 }) })
            local base_cycles = assert(m:predict(inputs)).cycles
            assert.is_true(assert(m:predict(more)).cycles >= base_cycles * (1 - 1e-12), label .. " SFU added")
          end
        end
      end
    end
  end)

  it("predicts every suite kernel on every preset and base, the breakdown summing to the total", function()
    for _, preset in ipairs(mcore.presets()) do
      for _, base in ipairs { "gpuperf", "mwp_cwp" } do
        local m = assert(mcore.core(preset, nil, { base = base }))
        for _, name in ipairs(workloads.names()) do
          local inputs = suite_inputs(m, preset, name, small(name))
          if inputs then
            local r = assert(m:predict(inputs))
            assert.is_true(r.cycles > 0 and r.terms.overlap >= 0, preset .. "/" .. name)
            local sum = 0
            for _, c in pairs(r.modules) do
              sum = sum + c
            end
            assert.is_near(r.cycles, sum, 1e-6 * r.cycles)
            assert.is_near(r.cycles, r.terms.comp + r.terms.mem + r.terms.control - r.terms.overlap,
              1e-6 * r.cycles)
          end
        end
      end
    end
  end)

  it("is reached through the models registry: get('mcore') for sweeps, get('score') for inputs", function()
    local models = require "gpush.models"
    local names = table.concat(models.names(), ",")
    assert.matches("mcore", names)
    assert.matches("score", names)
    local m = models.get("mcore")
    assert.are.equal("mcore", m.name)
    assert.are.equal("mcore-mwp_cwp", models.get("mcore", { base = "mwp_cwp" }).name)
    local cfg = assert(config.load("gtx660ti", { "dram.bandwidth_gbs=96" }))
    local kernel = small("stream_triad")
    local row = assert(m.run(kernel, cfg, nil, {}))
    local direct = assert(mcore.core("gtx660ti", { "dram.bandwidth_gbs=96" }))
    local expected = assert(direct:predict(assert(direct:inputs(kernel))))
    assert.is_near(expected.cycles, row.cycles, 1e-9 * row.cycles)
    assert.is_near(expected.cycles / 915, row.time_us, 1e-9 * row.time_us)
    assert.are.equal(expected.terms.mem > expected.terms.comp and "MEM" or "COMP", row.dominant)
    -- a configuration without an M-core preset of its own takes the modules of its generation's
    local a100 = assert(config.load("a100"))
    assert.are.equal("gtx660ti", mcore.preset_for(a100))
    assert.is_true(assert(m.run(kernel, a100, nil, {})).cycles > 0)
    -- predict(inputs) on the family's default core
    assert.is_near(expected.cycles, assert(models.get("mcore", { overrides = { "dram.bandwidth_gbs=96" } })
      .predict(assert(direct:inputs(kernel)))).cycles, 1e-9 * expected.cycles)
    local s = models.get("score", { core = "atom" })
    assert.are.equal("score-atom", s.name)
    local r, err = s.run(kernel, cfg)
    assert.is_nil(r)
    assert.matches("S%-core 'atom' predicts workload inputs", err)
    assert.is_true(assert(s.predict { N_I = 1000, n_i = { int_alu = 1000 }, ILP = 2, N_mL1 = 0, N_mL2 = 0,
      N_mITLB = 0, N_mDTLB = 0, N_br_miss = 0 }).cycles >= 500)
    assert.are.equal("score-sandybridge", models.get("score").name)
  end)

  it("runs every shared real trace end to end", function()
    if not helper.have_shared_traces() then
      pending("../shared/traces not found: the real-trace checks are skipped")
      return
    end
    local trace = require "gpush.trace"
    local m = assert(mcore.core("gtx660ti"))
    local runs = 0
    for _, folder in ipairs { "vectoradd-sm61", "matrixmul-sm61", "vectoradd-sm80", "bfs-rodinia-sm80",
      "ffma-chain-h100-10", "ffma-chain-h100-20", "ffma-chain-h100-30", "ffma-chain-h100-40" } do
      local cache = {}
      for _, kernel in assert(trace.open(helper.shared .. "/traces/" .. folder)):kernels() do
        local r = assert(m:predict(assert(m:inputs(kernel, { cache = cache }))))
        assert.is_true(r.cycles > 0, folder)
        runs = runs + 1
      end
    end
    assert.are.equal(1 + 1 + 1 + 16 + 4, runs)
  end)
end)
