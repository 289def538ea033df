-- gpush.report.tornado: one-at-a-time sensitivity, checked by hand.
local tornado = require "gpush.report.tornado"

-- Base point 1000 cycles.  By hand:
--   dram.bandwidth_gbs 96 / 192: 1500 / 800  -> +50% / -20%, swing 70%,
--     elasticity ((800 - 1500) / 1000) / ((192 - 96) / 144) = -0.7 / (2/3) = -1.05
--   l1.mshrs 16 / 64: 1200 / 950             -> +20% / -5%, swing 25%,
--     elasticity (-250 / 1000) / (48 / 32) = -0.1667
--   sm.max_warps 16 / 64: 1100 / 1050        -> +10% / +5%, swing 10% (both above the base)
--   policy rr / gto: 1000 / 900              -> 0% / -10%, swing 10%, no elasticity
-- The two 10% swings tie and sort by name: policy before sm.max_warps.
local function study()
  return {
    metric = "cycles",
    base = { cycles = 1000, kernel = "triad" },
    parameters = {
      { name = "l1.mshrs", base = 32, low = 16, high = 64, low_result = { cycles = 1200 }, high_result = { cycles = 950 } },
      { name = "sm.max_warps", base = 32, low = 16, high = 64, low_result = 1100, high_result = 1050 },
      { name = "dram.bandwidth_gbs", base = 144, low = 96, high = 192,
        low_result = { cycles = 1500 }, high_result = { cycles = 800 } },
      { name = "policy", base = "rr", low = "rr", high = "gto", low_result = { cycles = 1000 },
        high_result = { cycles = 900 } },
    },
  }
end

describe("gpush.report.tornado", function()
  it("sorts parameters by swing with changes and elasticities", function()
    local r = tornado.analyze(study())
    assert.equal(1000, r.base_value)
    local names = {}
    for i, row in ipairs(r.rows) do names[i] = row.name end
    assert.same({ "dram.bandwidth_gbs", "l1.mshrs", "policy", "sm.max_warps" }, names)
    local bw = r.rows[1]
    assert.near(0.5, bw.low_change, 1e-12)
    assert.near(-0.2, bw.high_change, 1e-12)
    assert.near(0.7, bw.swing, 1e-12)
    assert.near(-1.05, bw.elasticity, 1e-12)
    assert.near(-0.25 / 1.5, r.rows[2].elasticity, 1e-12)
    assert.near(0.1, r.rows[4].swing, 1e-12) -- +10% and +5%: the bars reach 10%
    assert.is_nil(r.rows[3].elasticity)
  end)

  it("writes the Markdown table", function()
    local md = tornado.markdown(tornado.analyze(study()))
    local lines = {}
    for line in md:gmatch("[^\n]*") do lines[#lines + 1] = line end
    assert.equal("One-at-a-time sensitivity of cycles around the base point (cycles = 1000); rows sorted by swing.",
      lines[1])
    assert.equal("| rank | parameter | base | low | high | cycles at low | cycles at high | change at low "
      .. "| change at high | swing | elasticity |", lines[3])
    assert.equal("| 1 | dram.bandwidth_gbs | 144 | 96 | 192 | 1500 | 800 | +50.0% | -20.0% | 70.0% | -1.050 |",
      lines[5])
    assert.equal("| 2 | l1.mshrs | 32 | 16 | 64 | 1200 | 950 | +20.0% | -5.0% | 25.0% | -0.167 |", lines[6])
    assert.equal("| 3 | policy | rr | rr | gto | 1000 | 900 | 0.0% | -10.0% | 10.0% |  |", lines[7])
    assert.equal("| 4 | sm.max_warps | 32 | 16 | 64 | 1100 | 1050 | +10.0% | +5.0% | 10.0% | -0.033 |", lines[8])
  end)

  it("draws the tornado largest first, bars at the relative changes", function()
    local text = tornado.svg(tornado.analyze(study()), { title = "cycles <triad>" })
    local lows, highs = {}, {}
    for v in text:gmatch('class="bar%-low" data%-value="([^"]+)"') do lows[#lows + 1] = tonumber(v) end
    for v in text:gmatch('class="bar%-high" data%-value="([^"]+)"') do highs[#highs + 1] = tonumber(v) end
    assert.same({ 0.5, 0.2, 0, 0.1 }, lows)
    assert.same({ -0.2, -0.05, -0.1, 0.05 }, highs)
    assert.truthy(text:find(">dram.bandwidth_gbs (96 / 192)</text>", 1, true))
    assert.truthy(text:find("cycles &lt;triad&gt;", 1, true))
    assert.truthy(text:find("change in cycles from the base point 1000 (%)", 1, true))
    assert.equal(text, tornado.svg(tornado.analyze(study()), { title = "cycles <triad>" }))
  end)

  it("designs the one-at-a-time points", function()
    local pts = tornado.design({ ["l1.mshrs"] = 32, ["sm.max_warps"] = 32 },
      { { "l1.mshrs", 16, 64 }, { name = "sm.max_warps", low = 16, high = 64 } })
    assert.equal(4, #pts)
    assert.same({ parameter = "l1.mshrs", side = "low", value = 16,
      overrides = { ["l1.mshrs"] = 16, ["sm.max_warps"] = 32 } }, pts[1])
    assert.same({ parameter = "sm.max_warps", side = "high", value = 64,
      overrides = { ["l1.mshrs"] = 32, ["sm.max_warps"] = 64 } }, pts[4])
    assert.has_error(function() tornado.design({}, { { "x", 1, 2 } }) end,
      "gpush.report.tornado.design: ranges[1] names 'x', which has no base value")
  end)

  it("rejects results without the metric and a zero base", function()
    local s = study()
    s.parameters[2].high_result = { time_us = 3 }
    assert.has_error(function() tornado.analyze(s) end,
      "gpush.report.tornado.analyze: parameters[2] (sm.max_warps) high_result has no number for metric 'cycles'")
    s = study()
    s.base = 0
    assert.has_error(function() tornado.analyze(s) end,
      "gpush.report.tornado.analyze: the base point's metric is 0; relative changes are undefined")
  end)
end)
