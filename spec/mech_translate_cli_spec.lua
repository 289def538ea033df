-- gpush translate, the CPU loop nest it translates, the naive translation and
-- Fig. 4.15's scenario: hand computations from the workload descriptions and
-- the thesis's rules (Chapter 5), both directions, no check built from the
-- answer it checks.
local helper = require "spec_helper"
local json = require "gpush.json"
local cpu_loop = require "gpush.models.mech.cpu_loop"
local tr = require "gpush.models.mech.translate"
local workloads = require "gpush.workloads"
local mech = require "gpush.models.mech"

describe("gpush.models.mech.cpu_loop", function()
  it("writes a workload's CPU loop nest by hand: stream_triad in SSE", function()
    local desc = workloads.get("stream_triad")
    local s = assert(cpu_loop.record(desc))
    -- 2048 x 256 threads, 4 per SSE iteration: 131072 outer iterations, 8 trips each
    assert.are.same({ 131072, 4, 1, 1 }, { s.N_outer, s.simd_width, s.simd_fraction, s.inner_loops })
    -- a trip: two float4 loads and a float4 store (16 B per lane x 4 lanes / 16 B: 4 SSE accesses each),
    -- four FP32 ops, an increment and a branch: 4 + 4 + 4 + 4 + 1 + 1 = 18 micro-ops; plus the outer
    -- loop's increment and branch
    local trip = 18
    assert.are.equal(131072 * (8 * trip + 2), s.N_M)
    assert.are.equal(s.N_M, s.N_I)
    assert.are.same({ 131072 * 8 * 8, 131072 * 8 * 4 }, { s.N_load, s.N_store })
    assert.are.equal(131072 * 8 * 8, s.n_i.simd_load)
    -- three arrays of 2048 x 256 x 8 x 16 B, each line missed once at every level
    local array = 2048 * 256 * 8 * 16
    assert.are.equal(3 * array, s.footprint_bytes)
    assert.are.same({ 3 * array / 64, 3 * array / 64, 3 * array / 64 }, { s.N_mL1, s.N_mL2, s.N_mL3 })
    assert.are.equal(131072, s.N_br_miss) -- each inner loop's exit
  end)

  it("writes scalar code for a gather (SSE has none, L1644) and misses by the cache's share", function()
    local s = assert(cpu_loop.record(workloads.get("divergent_gather")))
    assert.are.same({ 1, 0 }, { s.simd_width, s.simd_fraction })
    assert.is_true(s.stride1_fraction > 0 and s.stride1_fraction < 1)
    assert.is_true(s.N_mL3 <= s.N_mL2 and s.N_mL2 <= s.N_mL1)
    assert.is_nil(cpu_loop.record { name = "x" })
  end)
end)

describe("gpush.models.mech.translate: the naive translation and the targets", function()
  it("translates naively: one thread per iteration, one PTX instruction per micro-op, ILP 1", function()
    local s = assert(cpu_loop.record(workloads.get("stream_triad")))
    local m = assert(tr.naive_s_to_m(s))
    -- 131072 iterations are 131072 threads (the SIMD width ignored): 4096 warps
    assert.are.same({ 4096, 512, 1, 1 }, { m.warps, m.blocks, m.ILP, m.MLP })
    assert.are.equal(8 * 18 + 2, m.N_I)
    assert.are.equal(math.min(s.N_mL2 / 4096, m.N_mem), m.N_off_chip) -- L2 miss -> off-chip access
    local back = assert(tr.naive_m_to_s(m))
    assert.are.equal(1, back.ILP)
    assert.are.equal(m.N_I * 4096 * 32, back.N_M)
  end)

  it("takes Eq. 5.2's on-chip capacity from the target M-core", function()
    local fx = tr.target_options(assert(mech.mcore.core("quadro-fx580")))
    -- pre-Fermi: 16 KB of shared memory x 4 SMs (L487, L1636), b a 64 B segment
    assert.are.same({ 65536, 4, 64, false }, { fx.on_chip_bytes, fx.sms, fx.bytes_per_transaction, fx.caching })
    local kepler = tr.target_options(assert(mech.mcore.core("gtx660ti")))
    local cfg = assert(mech.mcore.core("gtx660ti")).gpu
    assert.are.equal(cfg.l2.size_kb * 1024, kepler.on_chip_bytes) -- Kepler's L1 does not hold global loads
    assert.is_true(kepler.caching)
    local m = assert(tr.s_to_m(assert(cpu_loop.record(workloads.get("l2_resident"))), kepler))
    assert.are.equal(m.N_mem * m.avg_trans_warp, m.R_l2)
  end)
end)

describe("gpush translate", function()
  it("prints Tables 5.3 and 5.4 for suite kernels, native / translated / naive, and the predictions", function()
    local code, out, err = helper.gpush_run { "translate", "stream_triad", "sfu_heavy" }
    assert.are.equal(0, code, err)
    assert.matches("S -> M (Table 5.3) on quadro-fx580", out, 1, true)
    assert.matches("S -> M (Table 5.3) on gtx660ti", out, 1, true)
    assert.matches("M -> S (Table 5.4) on sandybridge", out, 1, true)
    -- the trace's 16384 warps and the CPU loop's (131072 SSE iterations x 4 / 32) agree; naive: 4096
    assert.matches("stream_triad      native     1.638e%+04    2048", out)
    assert.matches("                  translated 1.638e%+04    2048", out)
    assert.matches("                  naive          4096     512", out, 1, true)
    assert.matches("Predictions (seconds)", out, 1, true)
    code, out = helper.gpush_run { "translate", "sfu_heavy", "--json", "--s-core", "atom" }
    assert.are.equal(0, code)
    local r = assert(json.decode(out))[1]
    assert.are.equal("sfu_heavy", r.kernel)
    -- 160 x 256 threads: 1280 warps; the SFU count per warp survives both ways (12 trips of 4 MUFU)
    assert.are.equal(1280, r.to_m[1].native.warps)
    assert.are.equal(1280, r.to_m[1].translated.warps)
    assert.are.equal(48, r.to_m[1].native.N_SFU)
    assert.are.equal(48, r.to_m[1].translated.N_SFU)
    -- the Atom is in order: it takes the warp's ILP, never above its window of 2
    assert.is_true(r.to_s.translated.ILP <= 2)
    assert.is_true(r.to_s.seconds.native > 0 and r.to_s.seconds.translated > 0)
  end)

  it("reports what it cannot translate and rejects bad options", function()
    local code, out = helper.gpush_run { "translate", "fma_chain", "--to", "m" }
    assert.are.equal(0, code)
    assert.matches("fma_chain: quadro-fx580: native inputs: mcore: kernel 'fma_chain' does not fit", out, 1, true)
    local err
    code, _, err = helper.gpush_run { "translate", "--to", "x" }
    assert.are.equal(2, code)
    assert.matches("--to must be m, s or both", err, 1, true)
    code, _, err = helper.gpush_run { "translate", "nope" }
    assert.are.equal(1, code)
    assert.matches("no workload 'nope'", err, 1, true)
    code, _, err = helper.gpush_run { "translate", "--unroll", "0" }
    assert.are.equal(2, code)
    assert.matches("--unroll must be a whole number >= 1", err, 1, true)
  end)
end)

describe("scenarios/symmetric_multicores.lua (Fig. 4.15)", function()
  it("writes the four chips' speedups over a scalar Sandybridge core, the M-core chips also simulated", function()
    local dir = helper.temp_dir()
    local code, _, err = helper.gpush_run { "scenarios/symmetric_multicores.lua", "--out", dir, "--quiet",
      "--kernels", "stream_triad,sfu_heavy" }
    assert.are.equal(0, code, err)
    local md = helper.read_file(dir .. "/symmetric_multicores.md")
    assert.matches("| kernel | 2 x Atom | 4 x Sandybridge | 4 x pre-Fermi | 7 x Kepler |", md, 1, true)
    assert.matches("| stream_triad | ", md, 1, true)
    local csv = helper.read_file(dir .. "/symmetric_multicores.csv")
    local sim_rows = 0
    for line in csv:gmatch("[^\n]+") do
      local fields = {}
      for f in (line .. ","):gmatch("([^,]*),") do
        fields[#fields + 1] = f
      end
      if fields[2] == "7 x Kepler" or fields[2] == "4 x pre-Fermi" then
        assert.is_true(tonumber(fields[7]) > 0) -- the simulator's speedup
        sim_rows = sim_rows + 1
      end
      if fields[2] == "7 x Kepler" then
        assert.are.equal("7", fields[3])
      end
    end
    assert.are.equal(4, sim_rows)
    local text = helper.read_file(dir .. "/symmetric_multicores.svg")
    assert.matches("^<svg", text)
    os.execute("rm -rf " .. helper.shell_quote(dir))
  end)
end)
