-- Importing Accel-Sim configurations (the three tested ones in ../shared).
local config = require "gpush.config"
local helper = require "spec_helper"

local base = helper.shared .. "/reference/accelsim-configs/"

local function import(name)
  local out = os.tmpname() .. ".yaml"
  local code, _, err = helper.gpush_run { "config", "import-accelsim", base .. name, "-o", out }
  assert.are.equal(0, code, err)
  return out, err
end

describe("gpush config import-accelsim", function()
  local present = io.open(base .. "SM86_RTX3070/gpgpusim.config", "r")
  if present then
    present:close()
  end

  it("imports the RTX 3070 configuration into a preset that matches the shipped one", function()
    if not present then
      pending("../shared/reference not found: the Accel-Sim import checks are skipped")
      return
    end
    local file, summary = import("SM86_RTX3070")
    assert.matches("gpush config: mapped %d+ parameters; %d+ Accel%-Sim options not mapped %(listed at the end of the file%); %d+ assumed, not in the configuration %(gpush defaults%): sm%.", summary)
    local imported = assert(config.load(file))
    local shipped = config.load("rtx3070")
    local text = assert(io.open(file)):read("a")
    -- every value the import took from the configuration equals the shipped
    -- preset's, except the block limit (Accel-Sim's 32 is above the
    -- hardware's 16, which the preset keeps) and the launch costs (the preset
    -- takes the H100's calibrated front end, not Accel-Sim's 5,000-cycle
    -- constant: docs/frontend.md)
    local fi, fs = config.flatten(imported), config.flatten(shipped)
    local compared = 0
    for line in text:gmatch("[^\n]+") do
      local key = line:match("^%s*([%w_]+):%s.-# from %-")
      if key then
        compared = compared + 1
      end
    end
    assert.is_true(compared > 40)
    for _, path in ipairs { "sm.count", "sm.max_warps", "sm.schedulers", "sm.registers", "clock.core_mhz",
      "clock.mem_mhz", "l1.size_kb", "l1.ways", "l1.latency", "l1.mshrs", "l1.sectored", "shared.latency",
      "l2.size_kb", "l2.ways", "l2.slices", "l2.latency", "dram.channels", "dram.bus_bits", "dram.latency_ns",
      "dram.bandwidth_gbs", "ops.fp32.latency", "ops.int.interval", "ops.fp64.latency", "ops.sfu.interval",
      "ops.tensor.latency", "ops.uniform.latency", "ops.branch.interval" } do
      assert.are.equal(fs[path], fi[path], path)
    end
    assert.are.equal(5000, fi["launch.kernel_cycles"])
    assert.are.equal(32, fi["sm.max_blocks"])
    assert.are.equal(16, fs["sm.max_blocks"])
    assert.matches("#   gpgpusim.config: %-gpgpu_dram_timing_opt ", text)
    os.remove(file)
  end)

  it("imports the TITAN X (Pascal) and Quadro V100 configurations", function()
    if not present then
      pending("../shared/reference not found: the Accel-Sim import checks are skipped")
      return
    end
    local titan = assert(config.load((import("SM6_TITANX"))))
    assert.are.equal(28, titan.sm.count)
    assert.are.equal(480, titan.dram.bandwidth_gbs)     -- 12 x 4 B x 2500 MHz x 4
    assert.are.equal(3072, titan.l2.size_kb)            -- 64 x 128 x 16 x 24 sub-partitions
    assert.is_false(titan.l1.cache_global)              -- -gpgpu_gmem_skip_L1D 1
    assert.are.equal(82, titan.l1.latency)
    local v100 = assert(config.load((import("SM7_QV100"))))
    assert.are.equal(80, v100.sm.count)
    assert.are.equal(4096, v100.dram.bus_bits)          -- 32 x 16 B
    assert.is_near(870.4, v100.dram.bandwidth_gbs, 1e-9)
    assert.are.equal(7.0, v100.gpu.compute_capability)
  end)

  it("fails with a message for a folder without a configuration", function()
    local code, _, err = helper.gpush_run { "config", "import-accelsim", "/nonexistent" }
    assert.are.equal(1, code)
    assert.matches("/nonexistent/gpgpusim.config: cannot read", err, 1, true)
    code = helper.gpush_run { "config", "import-accelsim" }
    assert.are.equal(2, code)
  end)
end)
