-- The shipped scenarios run from the command line.
local helper = require "spec_helper"

describe("scenarios/kepler_sweep.lua", function()
  it("prints the Kepler base configuration and says the sweep is not there yet", function()
    local code, out, err = helper.gpush_run { "scenarios/kepler_sweep.lua" }
    assert.are.equal(0, code, err)
    assert.matches("preset 'gtx660ti'", out, 1, true)
    assert.matches("sm%.count%s+7 SMs", out)
    assert.matches("dram%.bandwidth_gbs%s+144%.192 GB/s", out)
    assert.matches("arrives with the models; nothing is\npredicted yet", out, 1, true)
  end)

  it("takes -p overrides and rejects bad ones with the message", function()
    local code, out = helper.gpush_run { "scenarios/kepler_sweep.lua", "-p", "dram.bandwidth_gbs=96" }
    assert.are.equal(0, code)
    assert.matches("dram%.bandwidth_gbs%s+96%.0 GB/s", out)
    local err
    code, _, err = helper.gpush_run { "scenarios/kepler_sweep.lua", "-p", "l1.mshrs=0" }
    assert.are.equal(1, code)
    assert.matches("-p l1.mshrs=0: parameter 'l1.mshrs' of 'gtx660ti': expected an integer from 1 to 65536, got 0", err, 1, true)
  end)
end)
