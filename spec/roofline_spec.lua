-- gpush.roofline: roofs of a configuration, FLOPs of a kernel and its
-- position, all against numbers worked out by hand.
local roofline = require "gpush.roofline"
local helper = require "spec_helper"
local trace = require "gpush.trace"
local config = require "gpush.config"

-- A configuration table with round numbers: 2 SMs x 2 schedulers, FP32 at
-- two warp instructions per cycle (interval 0.5) but issue width 1, FP64 one
-- every 4 cycles, 1000 MHz, 64 GB/s.
local function toy(issue_width)
  return { gpu = { name = "toy" }, sm = { count = 2, schedulers = 2, issue_width = issue_width or 1, warp_size = 32 },
    clock = { core_mhz = 1000 }, ops = { fp32 = { interval = 0.5 }, fp64 = { interval = 4 } },
    dram = { bandwidth_gbs = 64 } }
end

-- One block of 64 threads (two warps).  Warp 0: FFMA on 16 lanes (32 FLOPs),
-- FADD on 32 (32), DFMA on 32 (64 FP64), HFMA2 on 32 (128 FP16), the
-- HFMA2.MMA move idiom and an FSETP (none); warp 1: FMUL on 8 lanes (8).
local flops_trace = table.concat({
  "-kernel name = flops", "-kernel id = 1", "-grid dim = (1,1,1)", "-block dim = (64,1,1)",
  "-shmem = 0", "-nregs = 24", "-binary version = 86", "-accelsim tracer version = 4",
  "-enable lineinfo = 0", "#traces format = x",
  "#BEGIN_TB", "thread block = 0,0,0", "warp = 0", "insts = 6",
  "0010 0000ffff 1 R8 FFMA 3 R5 R6 R7 0",
  "0020 ffffffff 1 R9 FADD.FTZ 2 R5 R6 0",
  "0030 ffffffff 1 R10 DFMA 3 R2 R4 R6 0",
  "0040 ffffffff 1 R12 HFMA2 3 R5 R6 R7 0",
  "0050 ffffffff 1 R13 HFMA2.MMA 3 R5 R6 R7 0",
  "0060 ffffffff 1 P0 FSETP.GT.AND 2 R5 R6 0",
  "warp = 1", "insts = 1",
  "0070 000000ff 1 R8 FMUL 2 R5 R6 0",
  "#END_TB", "" }, "\n")

describe("gpush.roofline.machine", function()
  it("computes the FP32 roof, the DRAM roof and the ridge", function()
    local m = roofline.machine(toy())
    -- 2 SMs x 2 schedulers x min(1, 1/0.5) x 32 lanes x 2 FLOPs x 1 GHz
    assert.equal(256, m.peak)
    assert.equal(64, m.peak_gbs)
    assert.equal(4, m.ridge)
    assert.equal("GFLOP/s", m.unit)
    -- issue width 2 lets the pipeline's rate through: 512
    assert.equal(512, roofline.machine(toy(2)).peak)
  end)

  it("computes FP64, FP16 and instruction roofs", function()
    assert.equal(2 * 2 * 0.25 * 32 * 2, roofline.machine(toy(), { precision = "fp64" }).peak) -- 64
    assert.equal(512, roofline.machine(toy(), { precision = "fp16" }).peak)
    local inst = roofline.machine(toy(), { precision = "instructions" })
    assert.equal(4, inst.peak) -- 2 x 2 x 1 warp instructions per ns
    assert.equal("warp GIPS", inst.unit)
    assert.equal(4 / 64, inst.ridge)
  end)

  it("gives the GTX 660 Ti's published 2460 GFLOP/s and 144 GB/s", function()
    local m = roofline.machine(assert(config.load("gtx660ti")))
    -- 7 SMX x 4 schedulers x (1 / 0.6667) x 32 x 2 x 0.915 GHz
    assert.near(7 * 4 * (1 / 0.6667) * 32 * 2 * 0.915, m.peak, 1e-9)
    assert.near(2459.4, m.peak, 0.05)
    assert.near(144.192, m.peak_gbs, 1e-9)
    assert.near(2459.4 / 144.192, m.ridge, 0.001)
  end)

  it("names the parameter it cannot use", function()
    local cfg = toy()
    cfg.ops.fp32 = nil
    assert.has_error(function() roofline.machine(cfg) end,
      "gpush.roofline.machine: configuration parameter 'ops.fp32.interval' must be a positive number, got nil")
    assert.has_error(function() roofline.machine(toy(), { precision = "int8" }) end,
      "gpush.roofline.machine: precision must be fp32, fp16, fp64 or instructions, got 'int8'")
  end)
end)

describe("gpush.roofline.kernel_flops", function()
  local kernel = assert(trace.parse(flops_trace, "flops.traceg"))

  it("counts FLOPs per active lane by opcode and precision", function()
    local c = roofline.kernel_flops(kernel)
    assert.equal(32 + 32 + 8, c.fp32)
    assert.equal(128, c.fp16)
    assert.equal(64, c.fp64)
    assert.equal(72 + 128 + 64, c.flops)
    assert.equal(7, c.warp_instructions)
  end)

  it("takes each opcode's FLOPs from the trace reader's one map", function()
    local core = require "gpush.core"
    local function flops(op)
      local n, precision = core.opcode_flops(op)
      return { n, precision }
    end
    assert.same({ 2, "fp32" }, flops("FFMA.FTZ"))
    assert.same({ 1, "fp32" }, flops("FADD32I"))
    assert.same({ 4, "fp32" }, flops("FFMA2"))
    assert.same({ 4, "fp16" }, flops("HFMA2"))
    assert.same({ 2, "fp16" }, flops("HMUL2.BF16"))
    assert.same({ 2, "fp64" }, flops("DFMA.RN"))
    assert.same({ 0, "none" }, flops("HFMA2.MMA")) -- the compiler's move idiom
    assert.same({ 0, "none" }, flops("FSETP.GT.AND"))
    assert.same({ 0, "none" }, flops("F2F.F64.F32"))
    assert.same({ 0, "none" }, flops("FFMAX")) -- a base name is matched whole
  end)

  -- The count of every warp instruction, walked in Lua: the definition the
  -- C pass must equal on kernels whose warps differ (divergent masks, tails).
  local function walked(k)
    local core = require "gpush.core"
    local sums = { fp32 = 0, fp16 = 0, fp64 = 0 }
    for w = 0, k:info().warps - 1 do
      for _, inst in ipairs(k:warp(w)) do
        local n, precision = core.opcode_flops(inst.opcode)
        if n > 0 and (inst.class == "fp32" or inst.class == "fp64") then
          sums[precision] = sums[precision] + n * inst.active
        end
      end
    end
    return sums
  end

  it("counts every warp exactly, as a walk over all of them does", function()
    local workloads = require "gpush.workloads"
    for _, name in ipairs { "fma_compute", "fp64_heavy", "divergent_loop", "issue_mix" } do
      local k = assert(workloads.kernel(workloads.get(name)))
      local c = roofline.kernel_flops(k)
      local want = walked(k)
      assert.equal(want.fp32, c.fp32, name)
      assert.equal(want.fp16, c.fp16, name)
      assert.equal(want.fp64, c.fp64, name)
      assert.is_true(c.flops > 0, name)
    end
    -- fma_compute is FFMA chains on full warps: 2 FLOPs x 32 lanes per FP32 warp instruction
    local k = assert(workloads.kernel(workloads.get("fma_compute")))
    assert.equal(k:info().class_mix.fp32 * 64, roofline.kernel_flops(k).fp32)
  end)

  it("counts a warp a 256-warp sample would skip", function()
    -- 300 warps of one FADD on all lanes, and warp 1 (which an even sample
    -- of 256 of 300 warps never visits) with an FFMA on 4 lanes.
    local lines = { "-kernel name = tail", "-kernel id = 1", "-grid dim = (300,1,1)", "-block dim = (32,1,1)",
      "-shmem = 0", "-nregs = 24", "-binary version = 86", "-accelsim tracer version = 4",
      "-enable lineinfo = 0", "#traces format = x" }
    for b = 0, 299 do
      lines[#lines + 1] = ("#BEGIN_TB\nthread block = %d,0,0\nwarp = 0"):format(b)
      if b == 1 then
        lines[#lines + 1] = "insts = 2\n0010 ffffffff 1 R9 FADD 2 R5 R6 0\n0020 0000000f 1 R8 FFMA 3 R5 R6 R7 0"
      else
        lines[#lines + 1] = "insts = 1\n0010 ffffffff 1 R9 FADD 2 R5 R6 0"
      end
      lines[#lines + 1] = "#END_TB"
    end
    local k = assert(trace.parse(table.concat(lines, "\n") .. "\n", "tail.traceg"))
    assert.equal(300 * 32 + 2 * 4, roofline.kernel_flops(k).fp32)
  end)
end)

describe("gpush.roofline.position", function()
  it("places a kernel by intensity and achieved performance", function()
    local m = roofline.machine(toy())
    -- 1e6 FLOPs, 1e6 bytes in 2e4 cycles at 1 GHz = 20 us
    local p = roofline.position(m, { ops = 1e6, dram_bytes = 1e6, cycles = 2e4 })
    assert.equal(1, p.intensity)
    assert.near(50, p.gflops, 1e-9)
    assert.near(50, p.dram_gbs, 1e-9)
    assert.near(20, p.time_us, 1e-9)
    assert.equal(64, p.attainable) -- min(256, 64 x 1)
    assert.near(50 / 64, p.fraction_of_roof, 1e-12)
    assert.equal("memory", p.bound)
    local c = roofline.position(m, { ops = 8e6, dram_bytes = 1e6, cycles = 5e4 })
    assert.equal("compute", c.bound) -- 8 FLOP/B is right of the ridge at 4
    assert.near(160, c.gflops, 1e-9)
    assert.near(160 / 256, c.fraction_of_roof, 1e-12)
    local none = roofline.position(m, { ops = 100, dram_bytes = 0, cycles = 10 })
    assert.equal(math.huge, none.intensity)
    assert.has_error(function() roofline.position(m, { ops = 1, dram_bytes = 1, cycles = 0 }) end,
      "gpush.roofline.position: work.cycles must be positive")
    assert.has_error(function() roofline.position(m, { ops = 1, cycles = 1 }) end,
      "gpush.roofline.position: work.dram_bytes must be a non-negative number, got nil")
  end)

  it("reads DRAM bytes from a simulator or memory-model result", function()
    assert.equal(96 + 32, roofline.dram_bytes({ dram_bytes_read = 96, dram_bytes_written = 32 }))
    assert.has_error(function() roofline.dram_bytes({ cycles = 3 }) end)
    local workloads = require "gpush.workloads"
    local memsim = require "gpush.memsim"
    local cfg = assert(config.load("gtx660ti"))
    local k = assert(workloads.kernel(workloads.get("stream_triad")))
    local mem = assert(memsim.functional(k, cfg))
    assert.equal(mem.dram_bytes_read + mem.dram_bytes_written, roofline.model_dram_bytes(k, cfg))
    assert.is_true(mem.dram_bytes_read > 0)
  end)

  it("builds plot data, leaving out points a log-log plot cannot show", function()
    local m = roofline.machine(toy())
    local data, skipped = roofline.plot_data(m, {
      { label = "a", group = "a", style = "sim", position = roofline.position(m, { ops = 1e6, dram_bytes = 1e6, cycles = 2e4 }) },
      { label = "no flops", position = roofline.position(m, { ops = 0, dram_bytes = 1e6, cycles = 2e4 }) } })
    assert.equal(256, data.peak_gflops)
    assert.equal(64, data.peak_gbs)
    assert.equal(1, #data.points)
    assert.near(50, data.points[1].gflops, 1e-9)
    assert.same({ "no flops" }, skipped)
    local text = roofline.svg(m, { { label = "a", position = roofline.position(m, { ops = 1e6, dram_bytes = 1e6,
      cycles = 2e4 }) } })
    assert.truthy(text:find("Roofline: toy", 1, true))
    assert.truthy(text:find("Arithmetic intensity (FLOPs per DRAM byte)", 1, true))
  end)
end)

describe("gpush.roofline.hierarchy and kernel_profile", function()
  it("computes the L1, L2 and DRAM roofs and the FP32 and FP64 ceilings of a preset", function()
    local h = roofline.hierarchy(assert(config.load("gtx660ti")))
    -- L1: 7 SMs x 4 schedulers x one 128 B line request a cycle x 0.915 GHz;
    -- L2: 3 slices / 1 cycle x 128 B x 0.915 GHz; DRAM: the preset's 144.2 GB/s
    assert.same({ "L1", "L2", "DRAM" }, { h.roofs[1].label, h.roofs[2].label, h.roofs[3].label })
    assert.near(7 * 4 * 128 * 0.915, h.roofs[1].gbs, 1e-9)
    assert.near(3 * 128 * 0.915, h.roofs[2].gbs, 1e-9)
    assert.near(144.192, h.roofs[3].gbs, 1e-9)
    -- FP32 2459.4 GFLOP/s; FP64 at ops.fp64.interval 16: 7 x 4 x 1/16 x 32 x 2 x 0.915
    assert.same({ "FP32", "FP64" }, { h.ceilings[1].label, h.ceilings[2].label })
    assert.near(2459.4, h.ceilings[1].gflops, 0.01)
    assert.near(7 * 4 / 16 * 32 * 2 * 0.915, h.ceilings[2].gflops, 1e-9)
    -- an L2 without a service interval has no roof
    local cfg = assert(config.load("gtx660ti", { "l2.interval=0" }))
    assert.same({ "L1", "DRAM" }, { roofline.hierarchy(cfg).roofs[1].label, roofline.hierarchy(cfg).roofs[2].label })
  end)

  it("counts a streaming kernel's bytes at every level by hand", function()
    -- stream_triad: a[i] = b[i] + s * c[i], one FFMA (2 FLOPs) per element against two 4-byte
    -- loads and a 4-byte store.  Kepler's L1 does not cache globals, so every sector the SMs
    -- ask for reaches the L2: 12 bytes per element at L1 and at L2; DRAM reads both inputs
    -- (8 B) and writes what the write-back L2 evicts (at most 4 B)
    local k = helper.small_kernel("stream_triad", 64)
    local p = assert(roofline.kernel_profile(k, assert(config.load("gtx660ti"))))
    local elements = p.fp32 / 2
    assert.equal(0, p.fp64)
    assert.equal(12 * elements, p.l1_bytes)
    assert.equal(12 * elements, p.l2_bytes)
    assert.is_true(p.dram_bytes >= 8 * elements and p.dram_bytes <= 12 * elements)
    local points = roofline.hierarchy_points(p, 10)
    assert.equal(3, #points)
    assert.same({ "L1", "L2", "DRAM" }, { points[1].level, points[2].level, points[3].level })
    assert.near(1 / 6, points[1].intensity, 1e-12)
    assert.near(p.fp32 / 10e3, points[1].gflops, 1e-9) -- FLOPs over 10 us, in GFLOP/s
    -- a compute-only kernel has FLOPs but no intensity: no point
    assert.same({}, roofline.hierarchy_points({ fp32 = 100, fp64 = 0, l1_bytes = 0, l2_bytes = 0, dram_bytes = 0 }, 1))
  end)
end)

describe("gpush.report.sweep.roofline", function()
  it("draws the baseline point's hierarchical roofline from what the engine gathered, one panel per model", function()
    local experiment = require "gpush.experiment"
    local sweep = experiment.new { name = "roof", base = { preset = "gtx660ti" },
      parameters = { { path = "dram.bandwidth_gbs", values = { 96, 192 }, column = "dram_gbs" } },
      workloads = { "suite:fma_compute", "suite:stream_triad" },
      models = { experiment.models.gpumech { policy = "gto" }, experiment.models.bounds {} },
      summary = { objective = "cycles", baseline = { dram_gbs = 96 } }, reports = { "gpush.report.sweep:roofline" } }
    local res = assert(experiment.run(sweep, { jobs = 1, quiet = true }))
    local facts = res.extra.roofline
    assert.same({ dram_gbs = 96 }, facts.point)
    assert.near(96, facts.machine.roofs[3].gbs, 1e-9) -- the baseline's DRAM roof, not the preset's 144
    assert.same({ "fma_compute", "stream_triad" }, { facts.kernels[1].kernel, facts.kernels[2].kernel })
    local triad = facts.kernels[2]
    assert.equal(6 * triad.fp32, triad.l1_bytes)
    -- the same facts with two workers (each kernel profiled once, by whoever runs its first task)
    local two = assert(experiment.run(sweep, { jobs = 2, quiet = true }))
    assert.equal(require("gpush.json").encode(facts), require("gpush.json").encode(two.extra.roofline))
    local dir = helper.temp_dir()
    local paths = assert(require("gpush.report.sweep").roofline(res, dir))
    assert.are.same({ dir .. "/roof_roofline.svg" }, paths)
    local text = helper.read_file(paths[1])
    assert.matches("Hierarchical roofline of NVIDIA GeForce GTX 660 Ti at dram_gbs 96", text, 1, true)
    for _, label in ipairs { "L1 3.28 TB/s", "L2 351 GB/s", "DRAM 96.0 GB/s", "FP32 2.46 TFLOP/s",
      "FP64 102 GFLOP/s", ">L1</text>", ">L2</text>", ">DRAM</text>", ">FP32</text>", ">FP64</text>",
      "stream_triad gpumech-gto, DRAM bytes: 0.167 FLOP/B", "stream_triad gpumech-gto, L1 bytes: 0.167 FLOP/B" } do
      assert.matches(label, text, 1, true)
    end
    -- the bounds have no memory traffic of their own: no panel
    assert.matches('class="panel%-title">gpumech%-gto<', text)
    assert.is_nil(text:find(">bounds<", 1, true))
    -- results without the engine's facts (an earlier gpush's) get a figure that says so
    res.extra.roofline = nil
    assert.are.same({ dir .. "/roof_roofline.svg" }, assert(require("gpush.report.sweep").roofline(res, dir)))
    assert.matches("These results carry no kernel profiles", helper.read_file(paths[1]), 1, true)
    res.extra.roofline = { point = {}, machine = { roofs = {}, ceilings = {} }, kernels = { { fp32 = -1 } } }
    local ok, err = require("gpush.report.sweep").roofline(res, dir)
    assert.is_nil(ok)
    assert.matches("extra.roofline.kernels[1].fp32 must be a non-negative number", err, 1, true)
    os.execute("rm -rf " .. dir)
  end)
end)
