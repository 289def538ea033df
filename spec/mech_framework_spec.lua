-- The module framework of Blem's mechanistic family: phases, declared inputs
-- and parameters, the breakdown and the marginal effects, errors.
local framework = require "gpush.models.mech.framework"
local params = require "gpush.models.mech.params"

-- A toy base and two modules, all with inline declarations: comp = N_I x
-- cpi, mem = misses x penalty, overlap = half of the smaller.
local function toy()
  local base = framework.module {
    name = "toy_base", base = true, adds = { "comp", "mem", "overlap" },
    description = "comp and mem from counts, half the smaller overlaps",
    inputs = { "N_I", { "misses", "number", min = 0, unit = "misses", desc = "misses of the toy" } },
    params = { { "cpi", "number", default = 2, min = 0, unit = "cycles", desc = "cycles per instruction" },
      { "penalty", "number", default = 10, min = 0, unit = "cycles", desc = "cycles per miss" } },
    setup = function(s)
      s.q.cpi = s.hw.cpi
    end,
    terms = function(s)
      s:add("comp", s.input.N_I * s.q.cpi, "N_I x cpi")
      s:add("mem", s.input.misses * s.hw.penalty, "misses x penalty")
    end,
    overlap = function(s)
      s:add("overlap", 0.5 * math.min(s.terms.comp, s.terms.mem), "half the smaller")
    end,
  }
  local slower = framework.module {
    name = "slower", adds = {}, description = "doubles the cycles per instruction",
    latency = function(s)
      s.q.cpi = s.q.cpi * 2
    end,
  }
  local control = framework.module {
    name = "stalls", adds = { "control" }, description = "a fixed control term",
    inputs = { { "stalls", "number", min = 0, unit = "cycles", desc = "stall cycles" } },
    serial = function(s)
      s:add("control", s.input.stalls)
    end,
  }
  return framework.model { name = "toy", kind = "score", base = "toy_base", modules = { base, slower, control },
    hw = {}, clock_hz = 1e9 }
end

describe("gpush.models.mech.framework", function()
  it("runs the phases in order and returns terms, the breakdown and the effects", function()
    local r = assert(toy():predict { N_I = 100, misses = 30, stalls = 7 })
    -- cpi 2 doubled by `slower` to 4: comp 400, mem 300, overlap 150, control 7
    assert.are.same({ comp = 400, mem = 300, control = 7, overlap = 150 }, r.terms)
    assert.are.equal(400 + 300 + 7 - 150, r.cycles)
    assert.are.equal(557e-9, r.seconds)
    -- direct contributions: the base 400 + 300 - 150, `stalls` 7, `slower` none
    assert.are.same({ toy_base = 550, slower = 0, stalls = 7 }, r.modules)
    -- marginal effects: without `slower` comp is 200 and overlap 100 -> 407
    assert.are.equal(557 - 407, r.effects.slower)
    assert.are.equal(7, r.effects.stalls)
    assert.is_nil(r.effects.toy_base)
    local sum = 0
    for _, row in ipairs(r.breakdown) do
      sum = sum + (row.term == "overlap" and -row.cycles or row.cycles)
    end
    assert.are.equal(r.cycles, sum)
  end)

  it("names the missing input and the module that needs it", function()
    local r, err = toy():predict { N_I = 100, misses = 3 }
    assert.is_nil(r)
    assert.are.equal("module 'stalls' of S-core 'toy' needs input 'stalls' (stall cycles), which the inputs do not give",
      err)
  end)

  it("rejects unknown inputs and bad values with what was expected", function()
    local _, err = toy():predict { N_I = 100, misses = 3, stalls = 1, N_SUF = 2 }
    assert.are.equal("unknown input 'N_SUF' (did you mean 'N_SFU'?)", err)
    _, err = toy():predict { N_I = -1, misses = 3, stalls = 1 }
    assert.matches("input 'N_I' %(.*%): expected a number >= 0, got %-1", err)
    _, err = toy():predict { N_I = "many", misses = 3, stalls = 1 }
    assert.matches("expected a number >= 0, got 'many'", err)
  end)

  it("refuses n_i classes outside the family's list before any module runs, when a module reads n_i", function()
    local ran = false
    local mix = framework.module {
      name = "mix", base = true, adds = { "comp" }, description = "comp = the mix's instructions",
      inputs = { "n_i" },
      terms = function(s)
        ran = true
        s:add("comp", (s.input.n_i.a or 0) + (s.input.n_i.b or 0))
      end,
    }
    local function model(modules)
      return framework.model { name = "mixer", kind = "mcore", base = "mix", modules = modules, hw = {},
        clock_hz = 1e9, classes = { names = { "a", "b" }, noun = "op class", label = "expected" } }
    end
    assert.are.equal(5, assert(model({ mix }):predict { n_i = { a = 2, b = 3 } }).cycles)
    ran = false
    local r, err = model({ mix }):predict { n_i = { a = 2, c = 3 } }
    assert.is_nil(r)
    assert.are.equal("M-core 'mixer': input n_i: unknown op class 'c' (expected: a, b)", err)
    assert.is_false(ran) -- the input check refused it; the module never saw the class
    -- no module reads n_i: the framework leaves the classes alone
    local toy_model = toy()
    toy_model.classes = { names = { "a" }, noun = "op class", label = "expected" }
    assert(toy_model:predict { N_I = 100, misses = 3, stalls = 1, n_i = { c = 1 } })
  end)

  it("raises when a module reads or adds what it did not declare", function()
    local sneaky = framework.module {
      name = "sneaky", adds = { "comp" }, description = "reads an input it does not declare",
      serial = function(s)
        s:add("comp", s.input.N_I)
      end,
    }
    assert.has_error(function() toy():with(sneaky):predict { N_I = 1, misses = 0, stalls = 0 } end,
      "gpush.mech: module 'sneaky' reads input 'N_I' it does not declare")
    local wrong_term = framework.module {
      name = "wrong", adds = { "comp" }, description = "adds to mem", inputs = { "N_I" },
      serial = function(s)
        s:add("mem", 1)
      end,
    }
    assert.has_error(function() toy():with(wrong_term):predict { N_I = 1, misses = 0, stalls = 0 } end,
      "gpush.mech: module 'wrong' adds to 'mem' but declares adds = {comp}")
  end)

  it("adds and removes modules; the base stays", function()
    local m = toy()
    local lean = assert(m:without { "slower" })
    assert.are.same({ "toy_base", "stalls" }, lean:module_names())
    assert.are.equal(407, assert(lean:predict { N_I = 100, misses = 30, stalls = 7 }).cycles)
    local _, err = m:without { "toy_base" }
    assert.are.equal("module 'toy_base' is part of the toy_base base of 'toy' and cannot be removed", err)
    _, err = m:without { "slowr" }
    assert.matches("'toy' has no module 'slowr' %(did you mean 'slower'%?%)", err)
    local extra = framework.module {
      name = "extra", adds = { "mem" }, description = "a parameterised constant",
      params = { { "amount", "number", default = 5, min = 0, unit = "cycles", desc = "cycles added" } },
      serial = function(s)
        s:add("mem", s.hw.amount)
      end,
    }
    -- mem 305, overlap half of it: 400 + 305 + 7 - 152.5
    assert.are.equal(559.5, assert(m:with(extra):predict { N_I = 100, misses = 30, stalls = 7 }).cycles)
    -- mem 325: 400 + 325 + 7 - 162.5
    assert.are.equal(569.5, assert(m:with(extra, { amount = 25 }):predict { N_I = 100, misses = 30, stalls = 7 }).cycles)
    assert.has_error(function() m:with(extra, { amount = -1 }) end)
  end)

  it("checks module definitions", function()
    assert.has_error(function() framework.module { name = "x y", description = "d", serial = print } end,
      "gpush.mech: a module needs name = a word (letters, digits, _)")
    assert.has_error(function() framework.module { name = "x", serial = print } end,
      "gpush.mech: module 'x' needs a one-line description")
    assert.has_error(function() framework.module { name = "x", description = "d" } end)
    assert.has_error(function() framework.module { name = "x", description = "d", inputs = { "N_II" }, serial = print } end,
      "gpush.mech: module 'x' declares unknown input 'N_II' (did you mean 'N_I'?)")
  end)

  it("keeps the family's files away from experiment, report, cmd and cli", function()
    local files = {}
    local p = io.popen("ls lua/gpush/models/mech/*.lua")
    for file in p:lines() do
      files[#files + 1] = file
    end
    p:close()
    assert.is_true(#files >= 6)
    for _, file in ipairs(files) do
      local f = assert(io.open(file))
      local text = f:read("a")
      f:close()
      for name in text:gmatch('require%s*%(?%s*"([^"]+)"') do
        assert.is_nil(name:match("^gpush%.experiment") or name:match("^gpush%.report") or name:match("^gpush%.cmd")
          or name:match("^gpush%.cli"), file .. " requires " .. name)
      end
    end
  end)

  it("validates structured parameters", function()
    local ports = params.score.by_name.ports
    assert.are.same({ alu = { 0, 1, 5 } }, params.check(ports, { alu = { 0, 1, 5 } }))
    local _, err = params.check(ports, { alu = { 0, 1.5 } })
    assert.are.equal("micro-op type 'alu': port 2 must be an integer from 0 to 15, got 1.5", err)
    local latency = params.score.by_name.latency
    _, err = params.check(latency, { int_alu = 1 })
    assert.matches("class 'int_mul' is missing", err)
    _, err = params.check(params.inputs.by_name.n_i, { int = -2 })
    assert.are.equal("'int': expected a non-negative number, got -2", err)
  end)
end)

describe("gpush.models.mech.params: declarations and relations", function()
  it("declares Blem's parameters with gpush.schema's helper, in groups of their own", function()
    assert.are.same({ "mech.score", "mech.mcore", "mech.inputs" }, { params.score.name, params.mcore.name,
      params.inputs.name })
    assert.are.equal(params.score.by_name.issue_width, params.score.list[2])
    local schema = require "gpush.schema"
    local g = schema.group("test")
    g.declare { "x", "number", unit = "W", default = 1, min = 0, max = 2, desc = "a test parameter" }
    assert.are.same({ "x", "number" }, { g.by_name.x.name, g.by_name.x.type })
    -- a declaration without a unit, or with a default outside its range, is refused where it is written
    assert.has_error(function() g.declare { "y", "number", default = 1, desc = "no unit" } end)
    assert.has_error(function() g.declare { "z", "number", unit = "W", default = 3, min = 0, max = 2, desc = "d" } end,
      "schema: parameter z: default 3 outside [0, 2]")
  end)

  it("repairs inputs that noise pushed out of a relation, onto its edge", function()
    local i = { N_I = 10, n_i = { int_alu = 8, branch = 4 }, N_mL1 = 10, N_mL2 = 12, N_mL3 = 11, N_mL3o = 20,
      N_br_miss = 9, ILP = 3 }
    local hw = { window = 2 }
    assert.is_not_nil(params.check_relations(i, hw, "score", function() return true end))
    local r = params.repair_relations(i, hw, "score")
    assert.is_nil(params.check_relations(r, hw, "score", function() return true end))
    assert.are.same({ 12, 10, 10, 10, 4, 2 }, { r.N_I, r.N_mL2, r.N_mL3, r.N_mL3o, r.N_br_miss, r.ILP })
    assert.are.equal(12, i.N_mL2) -- the input is left alone
  end)
end)
