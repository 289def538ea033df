-- The shipped examples run and print what they promise.
local helper = require "spec_helper"

describe("examples/new_workload.lua", function()
  it("builds the stencil and predicts it with GPUMech (RR, GTO) and the simulator", function()
    local code, out, err = helper.gpush_run { "examples/new_workload.lua", "--grid", "64" }
    assert.are.equal(0, code, err)
    assert.matches("stencil5: 64 blocks x 256 threads, 23040 warp instructions, on 'gtx1080'", out, 1, true)
    local rows = {}
    for model, cycles in out:gmatch("\n(%a+ %u+)%s+(%d+)") do
      rows[model] = tonumber(cycles)
    end
    for _, model in ipairs { "GPUMech RR", "GPUMech GTO", "simulator GTO" } do
      assert.is_true((rows[model] or 0) > 0, model)
    end
  end)
end)
