-- gpush.models: the registry of model families and the model contract.
local models = require "gpush.models"

describe("gpush.models", function()
  it("lists the built-in families and builds their sweep models", function()
    local names = models.names()
    assert.is_truthy(#names >= 2)
    local set = {}
    for i, name in ipairs(names) do
      set[name] = true
      assert.is_true(i == 1 or names[i - 1] < name, "sorted")
    end
    assert.is_true(set.gpumech and set.sim)
    local rr = models.get("gpumech", { policy = "rr" })
    assert.are.equal("gpumech-rr", rr.name)
    assert.are.equal("function", type(rr.prepare))
    assert.are.equal("sim-gto", models.get("sim", { policy = "gto" }).name)
    assert.are.equal("sim-lrr", models.get("sim").name)
    assert.are.equal("gpumech-x", models.get("gpumech", { name = "gpumech-x" }).name)
  end)

  it("keeps gpush.gpumech and gpush.sim as aliases of the family modules", function()
    assert.are.equal(require "gpush.gpumech", models.family("gpumech"))
    assert.are.equal(require "gpush.sim", models.family("sim"))
    assert.are.equal(require "gpush.models.gpumech", models.family("gpumech"))
  end)

  it("names the known families when one is unknown", function()
    local module, err = models.family("nosuch")
    assert.is_nil(module)
    assert.matches("unknown model family 'nosuch' (known: ", err, 1, true)
    assert.matches("gpumech", err, 1, true)
    assert.has_error(function() models.get("nosuch") end)
    assert.is_nil(models.by_name.nosuch)
  end)

  it("registers a user's model and a user's family, and refuses misuse", function()
    local toy = { name = "toy", run = function(_, cfg) return { cycles = cfg } end }
    models.register("toy_model", toy)
    assert.are.equal(toy, models.get("toy_model"))
    assert.has_error(function() models.get("toy_model", { policy = "rr" }) end,
      "gpush.models: model 'toy_model' takes no options")
    models.register("toy_family", { new = function(opts) return { name = "t-" .. opts.k, run = toy.run } end })
    assert.are.equal("t-3", models.get("toy_family", { k = 3 }).name)
    assert.are.equal("t-4", models.by_name.toy_family({ k = 4 }).name)
    local listed = {}
    for _, name in ipairs(models.names()) do
      listed[name] = true
    end
    assert.is_true(listed.toy_model and listed.toy_family)
    assert.has_error(function() models.register("bad name", toy) end)
    assert.has_error(function() models.register("empty", {}) end)
    models.register("broken", { new = function() return { name = 1 } end })
    assert.has_error(function() models.get("broken") end,
      "gpush.models: model family 'broken': new(opts) needs a name (string) and run (function)")
  end)

  it("checks a model against the contract", function()
    assert.is_true(models.check({ name = "m", run = print }, "m"))
    local ok, err = models.check({ name = "m" }, "models[2]")
    assert.is_nil(ok)
    assert.are.equal("models[2] needs a name (string) and run (function)", err)
    ok, err = models.check({ name = "m", run = print, prepare = 3 }, "models[1]")
    assert.is_nil(ok)
    assert.are.equal("model 'm': prepare must be a function", err)
  end)
end)

describe("gpush.models.bounds", function()
  it("runs the first-principles bounds as a sweep model: the cycles no model beats and what binds", function()
    local config = require "gpush.config"
    local workloads = require "gpush.workloads"
    local m = models.get("bounds")
    assert.are.equal("bounds", m.name)
    local kernel = assert(workloads.kernel(workloads.get("sfu_heavy")))
    local cfg = config.load("gtx1080")
    local r = assert(m.run(kernel, cfg))
    local b = assert(require("gpush.bounds").kernel(kernel, cfg))
    assert.are.equal(b.total, r.cycles)
    assert.are.equal("sfu", r.bound)
    assert.are.equal("SFU", r.dominant)
    assert.are.equal("SFU", models.family("bounds").dominant(r.bounds))
    local sim = assert(models.get("sim", { policy = "gto" }).run(kernel, cfg))
    assert.is_true(sim.cycles >= r.cycles)
  end)
end)

describe("gpush.models.gpumech categories", function()
  local gpumech = models.family("gpumech")

  it("exports Table III's stack and labels the largest non-BASE component", function()
    assert.are.same({ "BASE", "DEP", "L1", "L2", "DRAM", "MSHR", "QUEUE" }, gpumech.STACK)
    local stack = { BASE = 9, DEP = 1, L1 = 0, L2 = 2, DRAM = 3, MSHR = 0, QUEUE = 0 }
    assert.are.equal("DRAM", gpumech.dominant(stack))
    stack.MSHR = 3 -- a tie goes to the earlier component
    assert.are.equal("DRAM", gpumech.dominant(stack))
    assert.are.equal("BASE", gpumech.dominant { BASE = 1, DEP = 0, L1 = 0, L2 = 0, DRAM = 0, MSHR = 0, QUEUE = 0 })
  end)

  it("names one sweep column per stack component, in stack order", function()
    local columns = models.get("gpumech").columns
    local at = {}
    for i, c in ipairs(columns) do
      at[c] = i
    end
    for i, s in ipairs(gpumech.STACK) do
      assert.are.equal(at.cpi + i, at["cpi_" .. s:lower()], s)
    end
  end)
end)
