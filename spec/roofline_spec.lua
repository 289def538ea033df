-- gpush.roofline: roofs of a configuration, FLOPs of a kernel and its
-- position, all against numbers worked out by hand.
local roofline = require "gpush.roofline"
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
    assert.equal(2, c.warps_visited)
  end)

  it("scales a sample of warps by the kernel's exact class counts", function()
    local c = roofline.kernel_flops(kernel, { max_warps = 1 })
    assert.equal(1, c.warps_visited)
    -- warp 0 holds 5 of the kernel's 6 FP32-class instructions: 64 x 6/5
    assert.near(64 * 6 / 5, c.fp32, 1e-9)
    assert.near(128 * 6 / 5, c.fp16, 1e-9)
    assert.equal(64, c.fp64) -- the only FP64 instruction was seen
  end)

  it("matches the exact count on the suite's FMA kernel when sampling", function()
    local workloads = require "gpush.workloads"
    local k = assert(workloads.kernel(workloads.get("fma_compute")))
    local sampled = roofline.kernel_flops(k, { max_warps = 16 })
    local info = k:info()
    -- fma_compute is FFMA chains on full warps: 2 FLOPs x 32 lanes per FP32 warp instruction
    assert.equal(info.class_mix.fp32 * 64, sampled.fp32)
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

describe("gpush.roofline.sweep_report", function()
  it("places every model's kernel at the sweep's baseline point on that point's roofline", function()
    local experiment = require "gpush.experiment"
    local helper = require "spec_helper"
    local sweep = experiment.new { name = "roof", base = { preset = "gtx660ti" },
      parameters = { { path = "dram.bandwidth_gbs", values = { 96, 192 }, column = "dram_gbs" } },
      workloads = { "suite:fma_compute" }, models = { experiment.models.gpumech { policy = "gto" } },
      summary = { objective = "cycles", baseline = { dram_gbs = 96 } } }
    local res = assert(experiment.run(sweep, { jobs = 1, quiet = true }))
    local dir = helper.temp_dir()
    local paths = assert(require("gpush.report.sweep").roofline(res, dir))
    assert.are.same({ dir .. "/roof_roofline.svg" }, paths)
    local text = helper.read_file(paths[1])
    assert.matches("FP32 roofline at dram_gbs 96", text, 1, true)
    assert.matches("DRAM 96.0 GB/s", text, 1, true) -- the baseline's memory roof, not the preset's 144
    assert.matches("fma_compute gpumech-gto", text, 1, true)
    os.execute("rm -rf " .. dir)
  end)
end)
