-- Blem's S-core models by hand: Eq. 4.3 with Eq. 4.6-4.7 on the Atom, the
-- out-of-order IPC with micro-ops, Algorithm 4.1's balance and Eq. 4.8-4.10's
-- wait, the presets and their errors.
local helper = require "spec_helper"
local score = require "gpush.models.mech.score"

local with = helper.with

local ATOM_INPUTS = {
  N_I = 1000, n_i = { int_alu = 600, load = 300, branch = 100 }, ILP = 1.5,
  N_mL1 = 10, N_mL2 = 2, N_mITLB = 0, N_mDTLB = 1, N_br_miss = 5,
}

describe("gpush.models.mech.score", function()
  it("predicts the Atom by hand (Eq. 4.3, 4.6-4.7, simple ports with Eq. 4.8-4.10)", function()
    local atom = assert(score.core("atom"))
    local r = assert(atom:predict(ATOM_INPUTS))
    -- issue: 1000 / 2 = 500 (one micro-op per instruction: no M(i, mu) for the Atom)
    -- latency: 600 x 1 + 300 x t_L1 3 + 100 x 1 = 1600; L2: (10 - 2) x (15 - 3) = 96 -> 1696
    -- ports: port 0 loads 300, port 1 branches 100, int_alu either: 200 / 400 -> 500 / 500
    --   IPC before contention 1000 / (500 + 696); lambda = min(2, IPC) / 2 x 0.5 (Eq. 4.8)
    local ipc = 1000 / (500 + 696)
    local lambda = ipc / 2 * 0.5
    local w = 1 / (1 - lambda) - 1 -- Eq. 4.9
    local long = 696 + 1000 * w -- Eq. 4.10: every micro-op waits W_max more
    -- in-order issue: p = 2 - ILP = 0.5; P_d N_d = 0.5 x 1000 x (2 - 1) / 2 = 250
    assert.is_near(500 + long + 250, r.terms.comp, 1e-9)
    -- memory: 2 x 100 ns x 1.66 GHz; DTLB 1 x 25
    assert.is_near(2 * 100 * 1.66 + 25, r.terms.mem, 1e-9)
    assert.are.equal(5 * 13, r.terms.control)
    assert.are.equal(0, r.terms.overlap)
    assert.is_near(r.terms.comp + r.terms.mem + r.terms.control, r.cycles, 1e-9)
    assert.is_near(r.cycles / 1.66e9, r.seconds, 1e-18)
    assert.is_near(250, r.modules.inorder_issue, 1e-9)
    assert.is_near(0.5, r.quantities.p_dep, 1e-12)
    -- the ports' effect is their wait: without them comp is 500 + 696 + 250
    assert.is_near(1000 * w, r.effects.simple_ports, 1e-9)
    local sum = 0
    for _, c in pairs(r.modules) do
      sum = sum + c
    end
    assert.is_near(r.cycles, sum, 1e-9)
  end)

  it("reads Eq. 4.7 both ways", function()
    assert.is_near(0.7, score.p_distance1(1.3, "dependence"), 1e-12)
    assert.is_near(0.3, score.p_distance1(1.3, "printed"), 1e-12)
    assert.are.equal(0, score.p_distance1(2.4, "dependence"))
    local printed = assert(score.core("atom", { eq47 = "printed" }))
    local r = assert(printed:predict(ATOM_INPUTS))
    assert.is_near(0.5 * 1000 * 0.5, r.modules.inorder_issue, 1e-9) -- ILP - 1 = 0.5 too at ILP 1.5
    -- at ILP 1.2 the printed reading charges 0.2 of the pairs, the dependence one 0.8
    r = assert(printed:predict(with(ATOM_INPUTS, { ILP = 1.2 })))
    assert.is_near(0.2 * 1000 * 0.5, r.modules.inorder_issue, 1e-9)
    r = assert(assert(score.core("atom")):predict(with(ATOM_INPUTS, { ILP = 1.2 })))
    assert.is_near(0.8 * 1000 * 0.5, r.modules.inorder_issue, 1e-9)
  end)

  it("balances micro-ops over ports by Algorithm 4.1", function()
    local ports = { alu = { 0, 1, 5 }, shift = { 0, 5 }, fmul = { 0 }, branch = { 5 }, load = { 2 },
      store_addr = { 3 }, store_data = { 4 } }
    -- pinned: fmul 100 on 0, branch 100 on 5; alu 300 water-fills 0, 1, 5 to 500/3 each
    local load, total = score.balance_ports({ alu = 300, fmul = 100, branch = 100, load = 200, store_addr = 50,
      store_data = 50 }, ports, 6)
    assert.are.equal(800, total)
    for _, p in ipairs { 1, 2, 6 } do
      assert.is_near(500 / 3, load[p], 1e-9)
    end
    assert.are.same({ 200, 50, 50 }, { load[3], load[4], load[5] })
    -- two flexible types sharing ports need several rounds: 200 on each of 0, 1, 5
    load = score.balance_ports({ shift = 300, alu = 300 }, ports, 6)
    for _, p in ipairs { 1, 2, 6 } do
      assert.is_near(200, load[p], 1e-9)
    end
    assert.has_error(function() score.balance_ports({ odd = 1 }, ports, 6) end)
  end)

  it("computes the M/M/1 wait of Eq. 4.8-4.9 and keeps lambda below 1", function()
    -- two ports, shares 3/4 and 1/4, IPC 2 on a 2-wide core: printed lambda = 1 x share
    local w, l = score.port_waits({ 300, 100 }, 400, 2, 2, "printed", 0.95)
    assert.is_near(1 / (1 - 0.75) - 1, w, 1e-12)
    assert.is_near(0.75, l, 1e-12)
    -- utilization reading: lambda = 2 x 0.75 = 1.5, capped at 0.95
    local w2, l2, capped = score.port_waits({ 300, 100 }, 400, 2, 2, "utilization", 0.95)
    assert.is_true(capped)
    assert.is_near(0.95, l2, 1e-12)
    assert.is_near(19, w2, 1e-9)
    -- IPC above D counts as D (min(D, IPC))
    assert.are.equal(w, (score.port_waits({ 300, 100 }, 400, 2, 5, "printed", 0.95)))
  end)

  it("predicts out-of-order cores: IPC = ILP / l_avg capped at D, micro-ops, L3 and memory", function()
    local nehalem = assert(score.core("nehalem", nil, { without = { "contention" } }))
    -- (10 of the 500 one-cycle, one-micro-op integer instructions are the branches that mispredict)
    local inputs = { N_I = 1000, n_i = { int_alu = 490, branch = 10, load = 300, store = 200 }, ILP = 2,
      N_mL1 = 40, N_mL2 = 20, N_mL3 = 10, N_mL3o = 4, N_mITLB = 1, N_mDTLB = 2, N_br_miss = 10 }
    local r = assert(nehalem:predict(inputs))
    -- micro-ops: a store is two (address, data): N_M = 500 + 300 + 400 = 1200
    -- latency: 500 x 1 + 300 x 4 + 200 x 1 = 1900; L2 hits 20 x (10 - 4); L3 hits 10 x (38 - 4)
    local latency = 1900 + 20 * 6 + 10 * 34
    local ipc = math.min(4, 2 * 1200 / latency)
    assert.is_near(1200 / ipc, r.terms.comp, 1e-9)
    assert.is_near(ipc, r.quantities.ipc, 1e-12)
    -- memory: (10 - 4) x 62.5 ns x 3.2 GHz; TLBs 1 x 20 + 2 x 20
    assert.is_near(6 * 200 + 60, r.terms.mem, 1e-9)
    assert.are.equal(10 * (5 + 17), r.terms.control)
    -- a high ILP hits the issue width: IPC = D
    local wide = assert(nehalem:predict(with(inputs, { ILP = 50 })))
    assert.is_near(1200 / 4, wide.terms.comp, 1e-9)
    -- the measured micro-op count replaces the dictionary's
    local measured = assert(nehalem:predict(with(inputs, { N_M = 1500 })))
    assert.is_near(1500 / math.min(4, 2 * 1500 / latency), measured.terms.comp, 1e-9)
  end)

  it("adds contention on the Sandybridge's ports and never makes it faster", function()
    local inputs = { N_I = 1000, n_i = { fp_mul = 700, int_alu = 100, load = 200 }, ILP = 4,
      N_mL1 = 0, N_mL2 = 0, N_mL3 = 0, N_mL3o = 0, N_mITLB = 0, N_mDTLB = 0, N_br_miss = 0 }
    local contended = assert(assert(score.core("sandybridge")):predict(inputs))
    local free = assert(assert(score.core("sandybridge", nil, { without = { "contention" } })):predict(inputs))
    assert.is_true(contended.cycles > free.cycles)
    -- fp_mul only on port 0: the busiest port needs 700 cycles, more than the issue bound
    assert.is_true(contended.cycles >= 700 - 1e-9)
    assert.is_near(contended.cycles - free.cycles, contended.effects.contention, 1e-9)
  end)

  it("refuses an n_i class the S-core does not know, naming it, on every core", function()
    for _, name in ipairs { "atom", "sandybridge" } do
      local r, err = assert(score.core(name)):predict { N_I = 10, n_i = { fp_fma = 10 }, ILP = 2, N_mL1 = 0,
        N_mL2 = 0, N_mL3 = 0, N_mL3o = 0, N_mITLB = 0, N_mDTLB = 0, N_br_miss = 0 }
      assert.is_nil(r, name)
      assert.matches(("S-core '%s': input n_i: unknown instruction class 'fp_fma' (S-core classes: int_alu,"):format(name),
        err, 1, true)
    end
    -- from a file, the command names the file and the set
    local file = helper.temp_dir() .. "/mix.yaml"
    local f = assert(io.open(file, "w"))
    f:write("N_I: 10\nILP: 2\nn_i: {fp_fma: 10}\nN_mL1: 0\nN_mL2: 0\nN_mL3: 0\nN_mL3o: 0\nN_mITLB: 0\n"
      .. "N_mDTLB: 0\nN_br_miss: 0\n")
    f:close()
    local code, _, stderr = helper.gpush_run({ "mech", "--core", "sandybridge", "--input", file })
    assert.are.equal(1, code)
    assert.matches(file .. ": input 1: S-core 'sandybridge': input n_i: unknown instruction class 'fp_fma'", stderr, 1,
      true)
  end)

  it("ships the five cores of Table 2.4a with their module sets", function()
    assert.are.same({ "a8", "atom", "nehalem", "sandybridge", "xeon" }, score.presets())
    local expect = {
      a8 = "in_order,latency,l2,mem_l2,itlb,dtlb,branch,inorder_issue,simple_ports",
      atom = "in_order,uops,latency,l2,mem_l2,itlb,dtlb,branch,inorder_issue,simple_ports",
      xeon = "out_of_order,uops,latency,l2,l3,mem,itlb,dtlb,branch,contention",
    }
    for name, modules in pairs(expect) do
      assert.are.equal(modules, table.concat(assert(score.core(name)):module_names(), ","))
    end
    local sb = assert(score.core("sandybridge"))
    assert.are.same({ 6, 168, 3.4, 47.1, 38, 29.1 }, { sb.hw.issue_width, sb.hw.window, sb.hw.freq_ghz,
      sb.info.specmark, sb.info.tdp_w, sb.info.area_mm2 })
    for _, name in ipairs(score.presets()) do
      local core = assert(score.core(name))
      local inputs = { N_I = 1e6, n_i = { int_alu = 5e5, load = 3e5, store = 1e5, branch = 1e5 }, ILP = 1.8,
        N_mL1 = 2e4, N_mL2 = 5e3, N_mL3 = 1e3, N_mL3o = 200, N_mITLB = 10, N_mDTLB = 100, N_br_miss = 3e3 }
      local r = assert(core:predict(inputs))
      assert.is_true(r.cycles > 1e6 / core.hw.issue_width, name)
      -- a faster clock never takes longer in seconds
      local fast = assert(assert(score.core(name, { freq_ghz = core.hw.freq_ghz * 2 })):predict(inputs))
      assert.is_true(fast.seconds <= r.seconds, name)
    end
  end)

  it("reports bad presets and overrides with where and what", function()
    local dir = helper.temp_dir()
    local file = dir .. "/bad.yaml"
    local f = assert(io.open(file, "w"))
    f:write("kind: score\nmodules: [latency]\nparams:\n  issue_width: 0\n")
    f:close()
    local c, err = score.core(file)
    assert.is_nil(c)
    assert.are.equal(file .. ":4:16: parameter 'issue_width' of S-core '" .. file
      .. "': expected an integer from 1 to 16, got 0", err)
    f = assert(io.open(file, "w"))
    f:write("kind: score\nmodules: [latency, l4]\n")
    f:close()
    _, err = score.core(file)
    assert.matches(":2:20: unknown module 'l4' %(did you mean 'l2'%?%)", err)
    f = assert(io.open(file, "w"))
    f:write("kind: mcore\nmodules: []\n")
    f:close()
    _, err = score.core(file)
    assert.matches(":1:7: 'kind' must be 'score' here, got 'mcore'", err)
    os.execute("rm -rf " .. helper.shell_quote(dir))
    _, err = score.core("atomm")
    assert.matches("^unknown S%-core preset 'atomm' %(did you mean 'atom'%?%); shipped: a8, atom", err)
    _, err = score.core("atom", { "freq_ghz=fast" })
    assert.are.equal("-p freq_ghz: parameter 'freq_ghz' of S-core 'atom': expected a number from 0.001 to 100, "
      .. "got 'fast'", err)
    _, err = score.core("atom", { "fre_ghz=2" })
    assert.are.equal("-p fre_ghz: unknown parameter 'fre_ghz' of S-core 'atom' (did you mean 'freq_ghz'?)", err)
    _, err = score.core("atom", nil, { without = { "in_order" } })
    assert.matches("'in_order' is the base model", err)
    assert.has_error(function() score.core(3) end)
  end)
end)
