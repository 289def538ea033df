-- gpush mech: the command's output, its JSON contract, input files and errors.
local helper = require "spec_helper"
local json = require "gpush.json"

local ATOM_YAML = [[
- name: loop
  N_I: 1000
  n_i: {int_alu: 600, load: 300, branch: 100}
  ILP: 1.5
  N_mL1: 10
  N_mL2: 2
  N_mITLB: 0
  N_mDTLB: 1
  N_br_miss: 5
- name: longer
  N_I: 2000
  n_i: {int_alu: 1200, load: 600, branch: 200}
  ILP: 1.5
  N_mL1: 20
  N_mL2: 4
  N_mITLB: 0
  N_mDTLB: 2
  N_br_miss: 10
]]

local function check_contract(r)
  for _, field in ipairs { "core", "cycles", "seconds", "terms", "modules" } do
    assert.is_not_nil(r[field], field)
  end
  local t = r.terms
  assert.is_true(t.overlap >= 0)
  assert.is_near(r.cycles, t.comp + t.mem + t.control - t.overlap, 1e-6 * r.cycles)
  local sum = 0
  for _, c in pairs(r.modules) do
    sum = sum + c
  end
  assert.is_near(r.cycles, sum, 1e-6 * r.cycles)
end

describe("gpush mech command", function()
  it("prints one JSON object per launch with core, cycles, seconds, terms and modules", function()
    local code, out, err = helper.gpush_run { "mech", "--core", "gtx660ti", "suite:stream_triad",
      "-p", "dram.bandwidth_gbs=96", "--json" }
    assert.are.equal(0, code, err)
    local rows = json.decode(out)
    assert.are.equal(1, #rows)
    local r = rows[1]
    assert.are.equal("gtx660ti", r.core)
    assert.are.equal("stream_triad", r.kernel)
    assert.are.equal(1, r.launch)
    check_contract(r)
    assert.is_near(r.cycles / 915e6, r.seconds, 1e-12)
    assert.is_not_nil(r.effects.caching)
    assert.is_true(r.inputs.N_mem > 0)
  end)

  it("prints terms and the module breakdown as text", function()
    local code, out, err = helper.gpush_run { "mech", "--core", "gtx480", "suite:sfu_heavy" }
    assert.are.equal(0, code, err)
    assert.matches("M%-core 'gtx480' %(GeForce GTX 480 %(Fermi%); GPU configuration 'gtx480', base gpuperf%)", out)
    assert.matches("launch 1  sfu_heavy: %d+ cycles, [%d.e-]+ s", out)
    assert.matches("T = comp [%d.]+ %+ mem [%d.]+ %+ control 0 %- overlap [%d.]+", out)
    for _, m in ipairs { "gpuperf", "timing", "sfu", "caching", "launch", "total" } do
      assert.matches("\n  " .. m .. " ", out)
    end
  end)

  it("predicts S-cores from a YAML input file, one object per input set", function()
    local file = helper.write_temp(ATOM_YAML, ".yaml")
    local code, out, err = helper.gpush_run { "mech", "--core", "atom", "--input", file, "--json" }
    assert.are.equal(0, code, err)
    local rows = json.decode(out)
    assert.are.equal(2, #rows)
    assert.are.equal("loop", rows[1].input)
    for _, r in ipairs(rows) do
      check_contract(r)
      assert.are.equal("atom", r.core)
    end
    -- twice the work, twice the cycles (every term is linear in the counts)
    assert.is_near(2 * rows[1].cycles, rows[2].cycles, 1e-6 * rows[2].cycles)
    code, out = helper.gpush_run { "mech", "--core", "atom", "--input", file, "--without", "simple_ports" }
    assert.are.equal(0, code)
    assert.matches("total: %d+ cycles, [%d.e-]+ s over 2 input sets", out)
    assert.is_nil(out:find("simple_ports", 1, true))
    os.remove(file)
  end)

  it("reads a Lua input file", function()
    local file = helper.write_temp([[
return { name = "lua set", N_I = 1000, n_i = { int_alu = 1000 }, ILP = 2, N_mL1 = 0, N_mL2 = 0, N_mL3 = 0,
  N_mL3o = 0, N_mITLB = 0, N_mDTLB = 0, N_br_miss = 0 }
]], ".lua")
    local code, out, err = helper.gpush_run { "mech", "--core", "nehalem", "--input", file, "--json" }
    assert.are.equal(0, code, err)
    local r = json.decode(out)[1]
    assert.are.equal("lua set", r.input)
    -- 1000 single-cycle ALU instructions at ILP 2 on a 4-wide core: 500 cycles + a port floor of 1000/3
    assert.is_true(r.cycles >= 500 - 1e-9)
    os.remove(file)
  end)

  it("explains bad input and usage", function()
    local file = helper.write_temp("N_I: 10\nN_SUF: 3\n", ".yaml")
    local code, _, err = helper.gpush_run { "mech", "--core", "gtx660ti", "--input", file }
    assert.are.equal(1, code)
    assert.are.equal("gpush mech: " .. file .. ":2:1: unknown input 'N_SUF' (did you mean 'N_SFU'?)\n", err)
    os.remove(file)
    file = helper.write_temp("N_I: 10\n", ".yaml")
    code, _, err = helper.gpush_run { "mech", "--core", "gtx660ti", "--input", file }
    assert.are.equal(1, code)
    assert.matches("input 1: module 'gpuperf' of M%-core 'gtx660ti' needs input 'W_SM'", err)
    os.remove(file)
    code, _, err = helper.gpush_run { "mech", "--core", "atom", "suite" }
    assert.are.equal(1, code)
    assert.matches("S%-core 'atom' takes %-%-input FILE", err)
    code, _, err = helper.gpush_run { "mech", "--core", "gtx660ti", "suite", "-p", "sm.cont=8" }
    assert.are.equal(1, code)
    assert.matches("did you mean 'sm.count'", err)
    code, _, err = helper.gpush_run { "mech", "suite" }
    assert.are.equal(2, code)
    assert.matches("give %-%-core NAME", err)
    code, _, err = helper.gpush_run { "mech", "--core", "gtx660ti", "--base", "roofline", "suite" }
    assert.are.equal(2, code)
    code, _, err = helper.gpush_run { "mech", "--core", "gtx660ti", "suite", "--without", "gpuperf" }
    assert.are.equal(1, code)
    assert.matches("'gpuperf' is the base model", err)
    code, _, err = helper.gpush_run { "mech", "--core", "gtx660ti", "/nonexistent/trace" }
    assert.are.equal(1, code)
  end)

  it("benchmarks the measuring pass and a whole prediction next to a plain pass", function()
    local code, out, err = helper.gpush_run { "bench", "mech", "--size", "1", "--json" }
    assert.are.equal(0, code, err)
    local rows = json.decode(out)
    assert.are.same({ "plain pass", "mix pass, lines", "mix pass, CC 1.0", "whole prediction" },
      { rows[1].name, rows[2].name, rows[3].name, rows[4].name })
    for i = 2, 4 do
      assert.is_true(rows[i].value > 0 and rows[i].baseline == rows[1].value)
    end
  end)

  it("lists cores and describes parameters, inputs and modules", function()
    local code, out = helper.gpush_run { "mech", "--list" }
    assert.are.equal(0, code)
    assert.matches("sandybridge +Intel Core i7%-2600", out)
    assert.matches("gtx660ti +GeForce GTX 660 Ti", out)
    code, out = helper.gpush_run { "mech", "--describe", "mcore" }
    assert.are.equal(0, code)
    assert.matches("simd_width +number +lanes +GPU: sm.schedulers", out)
    code, out = helper.gpush_run { "mech", "--describe", "inputs" }
    assert.matches("N_CF_div", out)
    code, out = helper.gpush_run { "mech", "--describe", "modules" }
    assert.matches("contention", out)
    assert.matches("Algorithm 4.1", out)
  end)
end)
