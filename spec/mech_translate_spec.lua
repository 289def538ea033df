-- Translation between S-core and M-core measurements (thesis Chapter 5).
local tr = require "gpush.models.mech.translate"

-- An S-core measurement: n outer iterations of SIMD code `width` lanes wide.
local function s_record(n, width, extra)
  local s = { N_M = 40 * n, N_load = 2 * n, N_store = n, N_outer = n, simd_width = width,
    footprint_bytes = 12 * n * width, simd_fraction = 1, inner_loops = 0, N_branch = n, N_br_miss = 7, ILP = 2.5 }
  for k, v in pairs(extra or {}) do
    s[k] = v
  end
  return s
end

describe("gpush.models.mech.translate: S-core to M-core", function()
  it("forms warps from outer-loop iterations with the unroll factor (Table 5.3's saxpy)", function()
    -- saxpy: 32000 native warps (4000 blocks); the SSE code runs 4 lanes per iteration, unrolled by 4,
    -- so its 64000 outer iterations translate to 8000 warps (1000 blocks) as Table 5.3 prints, and
    -- to the native 32000 (4000 blocks) once the unroll factor is given (L1658)
    local m = assert(tr.s_to_m(s_record(64000, 4)))
    assert.are.same({ 8000, 1000 }, { m.warps, m.blocks })
    m = assert(tr.s_to_m(s_record(64000, 4), { unroll = 4 }))
    assert.are.same({ 32000, 4000 }, { m.warps, m.blocks })
  end)

  it("rounds blocks up at eight warps per block (Table 5.3's translated rows)", function()
    -- outer-loop counts are not printed: these give the translated warps, so the block arithmetic is checked
    for _, row in ipairs { { 76038, 9505 }, { 8176, 1022 }, { 1040384, 130048 }, { 8000, 1000 } } do
      local m = assert(tr.s_to_m(s_record(row[1] * 8, 4)))
      assert.are.same(row, { m.warps, m.blocks })
    end
  end)

  it("keeps lane-operations: per-warp instructions, memory instructions and SFU through the dictionary", function()
    -- 1000 SSE iterations -> 4000 threads -> 125 warps; 40000 uops x 4 lanes / 32 lanes / 125 warps = 40
    local s = s_record(1000, 4, { n_i = { fp_fma = 20000, fp_div = 4000, transcendental = 1000, load = 2000,
      store = 1000, branch = 1000, int_alu = 11000 } })
    local m = assert(tr.s_to_m(s))
    assert.are.equal(125, m.warps)
    assert.are.equal(40, m.N_I)
    assert.are.equal(3, m.N_mem)
    assert.are.equal(5, m.N_SFU) -- divides and transcendentals run on the SFUs: (4000 + 1000) / 1000
    assert.are.same({ fp32 = 20, sfu = 5, ld_global = 2, st_global = 1, branch = 1, int = 11 }, m.n_i)
    assert.are.equal("SFU", tr.M_UNIT.sfu)
    -- scalar code: each uop is one lane
    local scalar = assert(tr.s_to_m(s_record(4000, 1, { N_M = 160000, stride1_fraction = 0.75 })))
    assert.are.same({ 125, 40 }, { scalar.warps, scalar.N_I })
    assert.are.equal(0.75, scalar.coalesced) -- without SIMD code, stride-1 accesses coalesce (L1644)
    assert.are.equal(1, m.coalesced) -- SIMD share of loads and stores
  end)

  it("computes Eq. 5.2-5.3's off-chip transactions and a sync per inner loop by hand", function()
    local s = s_record(1000, 4, { footprint_bytes = 1048576, inner_loops = 3 })
    local m = assert(tr.s_to_m(s, { on_chip_bytes = 65536, bytes_per_transaction = 128 }))
    assert.is_near((1048576 - 65536) / (128 * 125), m.off_chip_transactions, 1e-12)
    -- at most every memory instruction goes off chip; the bytes beyond stay in B_off_chip
    assert.is_near(math.min(m.off_chip_transactions, m.N_mem), m.N_off_chip, 1e-12)
    assert.is_near((1048576 - 65536) / 125, m.B_off_chip, 1e-9)
    assert.are.equal(1, m.avg_trans_warp) -- all SIMD: coalesced
    local half = assert(tr.s_to_m(s_record(1000, 1, { stride1_fraction = 0.5 })))
    assert.are.equal(0.5 + 0.5 * 32, half.avg_trans_warp) -- uncoalesced: one transaction per thread
    assert.are.equal(3, m.N_sync)
    -- a footprint that fits on chip goes nowhere
    m = assert(tr.s_to_m(s_record(1000, 4, { footprint_bytes = 4096 })))
    assert.are.equal(0, m.N_off_chip)
    -- in-order S ILP is the M-core's (L1610); the S-core's uops already run both sides of divergent
    -- code, so no extra divergence instructions; memory-level parallelism low (Table 5.1)
    assert.are.equal(2.5, m.ILP)
    assert.are.same({ 0, 1 }, { m.N_CF_div, m.MLP })
    -- 125 warps on 4 SMs: 32 each, at most 24 resident (compute capability 1.1)
    assert.are.equal(24, m.W_SM)
  end)

  it("names a missing or bad field", function()
    local s = s_record(10, 4)
    s.N_outer = nil
    assert.are.same({ nil, "translate.s_to_m: the measurement has no 'N_outer'" }, { tr.s_to_m(s) })
    s = s_record(10, 4, { N_load = "many" })
    assert.are.same({ nil, "translate.s_to_m: 'N_load' must be a number >= 0, got many" }, { tr.s_to_m(s) })
    s = s_record(10, 4, { n_i = { warp_drive = 3 } })
    assert.are.same({ nil, "translate.s_to_m: unknown instruction class 'warp_drive' in the mix" }, { tr.s_to_m(s) })
    s = s_record(10, 4)
    s.N_load = nil
    assert.are.same({ nil, "translate.s_to_m: the measurement has neither N_load and N_store nor n_i with loads and stores" },
      { tr.s_to_m(s) })
    assert.has_error(function() tr.s_to_m(s_record(10, 4), { unroll = 0 }) end,
      "translate.s_to_m: unroll, simd_width and warp_size must be >= 1")
  end)
end)

describe("gpush.models.mech.translate: M-core to S-core", function()
  local function m_record(extra)
    local m = { warps = 100, warp_size = 32, N_I = 50, N_load = 4, N_store = 2, N_mem = 6, N_SFU = 3,
      N_branch = 5, N_sync = 1, N_off_chip = 6, coalesced = 0.5, ILP = 1.7 }
    for k, v in pairs(extra or {}) do
      m[k] = v
    end
    return m
  end

  it("splits thread masks into SIMD chunks", function()
    assert.are.equal(8, tr.chunks(4, 32, 32))
    assert.are.equal(4, tr.chunks(8, 32, 32))
    assert.are.equal(2, tr.chunks(4, 32, 5))
    assert.are.equal(2, tr.chunks(8, 32, 9))
    assert.are.equal(2, tr.chunks(4, 32, nil, 0x80000001)) -- lanes 0 and 31: two chunks, run serially
    assert.are.equal(1, tr.chunks(4, 32, nil, 0xF0))
    assert.are.equal(0, tr.chunks(4, 32, 0))
  end)

  it("converts instructions, accesses, outer loops, ILP and branch misses", function()
    local s = assert(tr.m_to_s(m_record(), { simd_width = 4 }))
    -- 100 warps x 50 warp instructions x 8 SSE chunks
    assert.are.equal(100 * 50 * 8, s.N_M)
    assert.are.same({ 100 * 4 * 8, 100 * 2 * 8 }, { s.N_load, s.N_store })
    assert.are.equal(100 * 32 / 4, s.N_outer) -- threads / SIMD width (L1654)
    assert.are.equal(6.2, s.ILP) -- out-of-order target: the suite average (L1756)
    assert.are.equal(1.7, assert(tr.m_to_s(m_record(), { target = "inorder" })).ILP)
    assert.is_near(0.03 * 100 * 5 * 8, s.N_br_miss, 1e-9) -- 3 % of branches (L1752)
    assert.are.equal(0.5, s.simd_fraction)
    assert.are.equal(1, s.inner_loops)
    -- classes: half the loads and stores SIMD (the coalesced share), SFU work as divides
    assert.are.equal(100 * 4 * 8 / 2, s.n_i.simd_load)
    assert.are.equal(100 * 2 * 8 / 2, s.n_i.store)
    assert.are.equal(100 * 3 * 8, s.n_i.fp_div)
    assert.are.equal(s.N_I, s.N_M)
    -- AVX: 4 chunks per full warp instruction
    assert.are.equal(100 * 50 * 4, assert(tr.m_to_s(m_record(), { simd_width = 8 })).N_M)
  end)

  it("executes diverged instructions serially", function()
    -- half of each warp's instructions run with lanes 0-7 only: 2 SSE chunks instead of 8
    local m = m_record { masks = { { insts = 25, active = 32 }, { insts = 25, active = 8 } } }
    local s = assert(tr.m_to_s(m, { simd_width = 4 }))
    assert.are.equal(100 * (25 * 8 + 25 * 2), s.N_M)
    -- the mean active lanes when no masks are given
    s = assert(tr.m_to_s(m_record { active_lanes = 16 }, { simd_width = 4 }))
    assert.are.equal(100 * 50 * 4, s.N_M)
    assert.are.same({ nil, "translate.m_to_s: masks[1] needs insts and active or mask" },
      { tr.m_to_s(m_record { masks = { { insts = 3 } } }) })
  end)

  it("estimates the footprint with Eq. 5.1 and capacity-only cache misses", function()
    local s = assert(tr.m_to_s(m_record(), { on_chip_bytes = 65536, bytes_per_transaction = 128,
      caches = { 32768, 262144, 1048576 }, line_bytes = 64 }))
    local footprint = 6 * 128 * 100 + 65536 -- F_off-chip + C_on-chip
    assert.are.equal(footprint, s.footprint_bytes)
    assert.are.equal((footprint - 32768) / 64, s.N_mL1)
    assert.are.equal(0, s.N_mL2) -- 142336 B fit in 256 KB
    assert.are.equal(0, s.N_mL3)
  end)

  it("names a missing field and rejects a bad target", function()
    local m = m_record()
    m.N_off_chip = nil
    assert.are.same({ nil, "translate.m_to_s: the measurement has neither 'N_off_chip' nor 'B_off_chip'" },
      { tr.m_to_s(m) })
    assert.are.same({ nil, "translate.m_to_s: an in-order target takes the M-core's ILP: the measurement has no 'ILP' "
      .. "(translate.m_record_from_kernel measures it)" },
      { tr.m_to_s(m_record { ILP = false }, { target = "inorder" }) })
    assert.has_error(function() tr.m_to_s(m_record(), { target = "vliw" }) end,
      "translate.m_to_s: target must be 'ooo' or 'inorder', got 'vliw'")
  end)
end)

describe("gpush.models.mech.translate: round trips", function()
  it("S -> M -> S keeps instruction and access totals, outer loops and the footprint", function()
    for _, width in ipairs { 1, 4, 8 } do
      local s = s_record(4096, width, { footprint_bytes = 8 * 1048576 })
      local m = assert(tr.s_to_m(s))
      local back = assert(tr.m_to_s(m, { simd_width = width }))
      assert.is_near(s.N_M, back.N_M, 1e-9 * s.N_M)
      assert.is_near(s.N_load, back.N_load, 1e-9 * s.N_load)
      assert.is_near(s.N_store, back.N_store, 1e-9 * s.N_store)
      assert.is_near(s.N_outer, back.N_outer, 1e-9)
      assert.is_near(s.footprint_bytes, back.footprint_bytes, 1e-6)
    end
  end)

  it("M -> S -> M keeps warps and per-warp instructions, accesses and SFU instructions", function()
    local m = { warps = 2048, warp_size = 32, N_I = 173, N_load = 2, N_store = 1, N_SFU = 5, N_branch = 9,
      N_sync = 0, N_off_chip = 2, coalesced = 0.3, ILP = 1.2,
      n_i = { ["fma.f32"] = 100, sin = 5, ld = 2, st = 1, bra = 9, add = 56 } }
    local s = assert(tr.m_to_s(m, { simd_width = 8 }))
    local back = assert(tr.s_to_m(s))
    assert.are.equal(2048, back.warps)
    assert.is_near(173, back.N_I, 1e-9)
    assert.is_near(3, back.N_mem, 1e-12)
    assert.is_near(5, back.N_SFU, 1e-12)
    assert.is_near(m.N_off_chip, back.N_off_chip, 1e-12)
  end)

  it("takes an M-core measurement from a gpush kernel", function()
    local workloads = require "gpush.workloads"
    local info = assert(workloads.kernel(workloads.get("sfu_heavy"))):info()
    local m = assert(tr.m_record_from_kernel_info(info))
    assert.are.equal(info.warps, m.warps)
    assert.are.equal(info.warp_instructions / info.warps, m.N_I)
    assert.are.equal(info.class_mix.sfu / info.warps, m.N_SFU)
    -- coalesced: a suite kernel with coalesced loads (sfu_heavy has no memory access)
    local loads = assert(tr.m_record_from_kernel_info(assert(workloads.kernel(workloads.get("fma_compute"))):info()))
    assert.are.equal(1, loads.coalesced)
    local s = assert(tr.m_to_s(m))
    assert.is_near(info.warp_instructions * 8, s.N_M, 1e-6) -- full warps: 8 SSE chunks each
    local divergent = assert(tr.m_record_from_kernel_info(assert(workloads.kernel(workloads.get("divergent_loop"))):info()))
    assert.is_true(divergent.active_lanes < 32)
  end)
end)
