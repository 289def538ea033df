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

  it("refuses inputs no measurement gives, naming the relation and the values", function()
    local cases = {
      { "score", "xeon", "N_mL3o: 5\nN_mL3: 3", "inputs break N_mL3o <= N_mL3 (N_mL3o = 5, N_mL3 = 3)" },
      { "score", "atom", "N_mL2: 50\nN_mL1: 20", "inputs break N_mL2 <= N_mL1 (N_mL2 = 50, N_mL1 = 20)" },
      { "score", "atom", "ILP: 3", "inputs break ILP <= window (ILP = 3, window = 2)" },
      { "score", "xeon", "N_I: 10", "inputs break sum of n_i = N_I (sum of n_i = 1000, N_I = 10)" },
    }
    local base = { "N_I: 1000", "n_i: {int_alu: 500, load: 250, branch: 250}", "ILP: 1.2", "N_mL1: 20", "N_mL2: 5",
      "N_mL3: 3", "N_mL3o: 0", "N_mITLB: 0", "N_mDTLB: 8", "N_br_miss: 20" }
    for _, case in ipairs(cases) do
      local lines = {}
      local given = {}
      for line in (case[3] .. "\n"):gmatch("([^\n]+)\n") do
        given[line:match("^([%w_]+):")] = line
      end
      for _, line in ipairs(base) do
        lines[#lines + 1] = given[line:match("^([%w_]+):")] or line
      end
      local file = helper.write_temp(table.concat(lines, "\n") .. "\n", ".yaml")
      local code, _, err = helper.gpush_run { "mech", "--core", case[2], "--input", file }
      assert.are.equal(1, code, case[4])
      assert.matches(case[4], err, 1, true)
      os.remove(file)
    end
    -- M-core inputs: N_SFU above N_I, blocks above warps, 10^6 transactions per access, off chip above N_mem
    local m = { "W_SM: 8", "warps: 64", "blocks: 8", "N_I: 100", "n_i: {fp32: 100}", "N_SFU: 0", "N_sync: 0",
      "N_CF_div: 0", "N_con: 0", "N_mem: 10", "N_off_chip: 10", "avg_trans_warp: 1", "ILP: 1", "MLP: 1",
      "R_l2: 10", "T_path: 0" }
    for _, case in ipairs {
      { "N_SFU: 150", "inputs break N_SFU + N_CF_div <= N_I" },
      { "blocks: 100", "inputs break blocks <= warps (blocks = 100, warps = 64)" },
      { "avg_trans_warp: 1000000", "inputs break avg_trans_warp <= 2 x warp_size (avg_trans_warp = 1e+06, warp_size = 32)" },
      { "N_off_chip: 20", "inputs break N_off_chip <= N_mem (N_off_chip = 20, N_mem = 10)" },
    } do
      local key = case[1]:match("^([%w_]+):")
      local lines = {}
      for _, line in ipairs(m) do
        lines[#lines + 1] = line:match("^([%w_]+):") == key and case[1] or line
      end
      local file = helper.write_temp(table.concat(lines, "\n") .. "\n", ".yaml")
      local code, _, err = helper.gpush_run { "mech", "--core", "gtx660ti", "--input", file }
      assert.are.equal(1, code, case[2])
      assert.matches(case[2], err, 1, true)
      os.remove(file)
    end
  end)

  it("finishes the other launches when one does not fit a core's SM (exit 1)", function()
    local code, out, err = helper.gpush_run { "mech", "--core", "quadro-fx580", "suite" }
    assert.are.equal(1, code)
    assert.matches("launch 3  fma_chain: not predicted: mcore: kernel 'fma_chain' does not fit on one SM of "
      .. "'quadro-fx580' (limit: shared)", out, 1, true)
    assert.matches("launch 16  tiny_blocks: %d+ cycles", out)
    assert.matches("3 of 16 launches not predicted (above)", out, 1, true)
    assert.matches("gpush mech: launch 5  fp64_heavy: mcore: kernel 'fp64_heavy' does not fit", err, 1, true)
    code, out = helper.gpush_run { "mech", "--core", "quadro-fx580", "suite", "--json" }
    assert.are.equal(1, code)
    local rows = assert(json.decode(out))
    assert.are.equal(16, #rows)
    assert.matches("does not fit", rows[3].error, 1, true)
    assert.is_true(rows[4].cycles > 0)
    -- a module the core does not have: named with the core's own modules
    local _, _, werr = helper.gpush_run { "mech", "--core", "quadro-fx580", "--without", "l2", "suite:stream_triad" }
    assert.matches("the model has no module 'l2'; its modules: gpuperf, timing", werr, 1, true)
    assert.is_nil(werr:find("did you mean 'l2'", 1, true))
  end)

  it("plugs in a user's module from a Lua file, with -p for its parameters", function()
    local code, out, err = helper.gpush_run { "mech", "--core", "gtx660ti", "--module", "examples/modules/tensor.lua",
      "-p", "tensor_width=64", "suite:fma_compute", "--json" }
    assert.are.equal(0, code, err)
    local rows = assert(json.decode(out))
    assert.is_not_nil(rows[1].modules.tensor)
    local bad = helper.write_temp("return 42\n", ".lua")
    code, _, err = helper.gpush_run { "mech", "--core", "gtx660ti", "--module", bad, "suite:fma_compute" }
    assert.are.equal(1, code)
    assert.matches("expected the file to return a module made by gpush.models.mech.framework.module", err, 1, true)
    code, _, err = helper.gpush_run { "mech", "--core", "gtx660ti", "--module", "examples/modules/tensor.lua",
      "-p", "tensor_width=0", "suite:fma_compute" }
    assert.are.equal(1, code)
    assert.matches("tensor_width", err, 1, true)
    os.remove(bad)
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
