-- gpush bench: the output contract only; speed is measured, never asserted.
local helper = require "spec_helper"
local json = require "gpush.json"

describe("gpush bench trace", function()
  it("prints {name, value, unit, baseline, ratio} objects with --json", function()
    local code, out, err = helper.gpush_run { "bench", "trace", "--size", "2", "--json" }
    assert.are.equal(0, code, err)
    local rows = json.decode(out)
    assert.are.equal(5, #rows)
    local names, units = {}, {}
    for i, r in ipairs(rows) do
      names[i], units[i] = r.name, r.unit
    end
    assert.are.same({ "plain read", "text parse", "text parse", "gpt load", "gpt load" }, names)
    assert.are.same({ "MB/s", "MB/s", "warp-inst/s", "MB/s", "warp-inst/s" }, units)
    assert.are.equal(rows[1].value, rows[2].baseline)
    assert.are.equal(rows[3].value, rows[5].baseline)
    assert.is_near(rows[2].value / rows[2].baseline, rows[2].ratio, 1e-9)
    assert.matches("writing a 2 MB synthetic trace", err, 1, true)
  end)

  it("rejects unknown benchmarks and bad sizes", function()
    local code, _, err = helper.gpush_run { "bench", "nosuch" }
    assert.are.equal(2, code)
    assert.matches("unknown benchmark 'nosuch'", err, 1, true)
    code, _, err = helper.gpush_run { "bench", "trace", "--size", "zero" }
    assert.are.equal(2, code)
    assert.matches("--size needs a number of megabytes", err, 1, true)
  end)
end)

describe("gpush bench all", function()
  it("runs every benchmark and keeps their rows and names, each with its bench", function()
    local code, out, err = helper.gpush_run { "bench", "all", "--size", "0.05", "--json" }
    assert.are.equal(0, code, err)
    local rows = json.decode(out)
    local seen = {}
    for _, r in ipairs(rows) do
      seen[r.bench .. ": " .. r.name .. " (" .. r.unit .. ")"] = true
      assert.is_number(r.value)
    end
    for _, name in ipairs { "trace: text parse (MB/s)", "trace: gpt load (warp-inst/s)", "memsim: timed (requests/s)",
      "gpumech: interval pass (warp-inst/s)", "gpumech: whole prediction (warp-inst/s)",
      "sim: sim lrr (warp-inst/s)", "sim: sim gto (warp-inst/s)", "mech: whole prediction (warp-inst/s)",
      "ml: predict (pairs/s)" } do
      assert.is_true(seen[name], name)
    end
  end)
end)

describe("gpush bench memsim", function()
  it("prints the plain pass and both modes with --json", function()
    local code, out, err = helper.gpush_run { "bench", "memsim", "--size", "1", "--json" }
    assert.are.equal(0, code, err)
    local rows = json.decode(out)
    assert.are.equal(3, #rows)
    assert.are.same({ "plain pass", "functional", "timed" }, { rows[1].name, rows[2].name, rows[3].name })
    assert.are.equal("requests/s", rows[2].unit)
    assert.are.equal(rows[1].value, rows[2].baseline)
  end)
end)

describe("gpush bench gpumech", function()
  it("prints the plain pass, the interval pass and a whole prediction under both equations with --json", function()
    local code, out, err = helper.gpush_run { "bench", "gpumech", "--size", "1", "--json" }
    assert.are.equal(0, code, err)
    local rows = json.decode(out)
    assert.are.same({ "plain pass", "interval pass", "whole prediction", "whole prediction, paper equations" },
      { rows[1].name, rows[2].name, rows[3].name, rows[4].name })
    assert.are.equal("warp-inst/s", rows[3].unit)
    assert.are.equal(rows[1].value, rows[3].baseline)
    assert.are.equal(rows[1].value, rows[4].baseline)
  end)
end)

describe("gpush bench sim", function()
  it("prints the plain pass and the simulator under LRR and GTO with --json", function()
    local code, out, err = helper.gpush_run { "bench", "sim", "--size", "1", "--json" }
    assert.are.equal(0, code, err)
    local rows = json.decode(out)
    assert.are.same({ "plain pass", "sim lrr", "sim gto" }, { rows[1].name, rows[2].name, rows[3].name })
    assert.are.equal("warp-inst/s", rows[2].unit)
    assert.are.equal(rows[1].value, rows[2].baseline)
    assert.are.equal(rows[1].value, rows[3].baseline)
    assert.is_near(rows[2].value / rows[2].baseline, rows[2].ratio, 1e-9)
    assert.matches("generating 1 M warp instructions", err, 1, true)
  end)
end)
