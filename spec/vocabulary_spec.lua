-- gpush.models.vocabulary: one bottleneck vocabulary, every family mapped onto it.
local vocabulary = require "gpush.models.vocabulary"
local models = require "gpush.models"
local config = require "gpush.config"
local helper = require "spec_helper"

describe("gpush.models.vocabulary", function()
  it("states each label once, with its meaning", function()
    assert.are.same({ "ISSUE", "PIPE", "LSU", "L2", "DRAM", "MSHR", "LATENCY", "BARRIER", "LAUNCH" },
      vocabulary.LABELS)
    for _, label in ipairs(vocabulary.LABELS) do
      assert.is_string(vocabulary.MEANING[label])
      assert.is_true(vocabulary.is_label(label))
    end
    assert.is_false(vocabulary.is_label("DEP"))
    -- docs/models.md shows the same table (the spec keeps the two in step)
    local doc = helper.read_file("docs/models.md")
    for _, label in ipairs(vocabulary.LABELS) do
      assert.matches(("| %s | %s |"):format(label, vocabulary.MEANING[label]), doc, 1, true)
    end
  end)

  it("sums a family's categories by label and names the largest, by hand", function()
    local map = { BASE = "ISSUE", DEP = "LATENCY", L2 = "LATENCY", DRAM = "LATENCY", QUEUE = "DRAM" }
    local order = { "BASE", "DEP", "L2", "DRAM", "QUEUE" }
    -- LATENCY = 0.25 + 0.5 + 0.5 = 1.25 beats ISSUE 1 and DRAM 1.1; its largest part is L2 (first of equals)
    local label, top, sums = vocabulary.largest({ BASE = 1, DEP = 0.25, L2 = 0.5, DRAM = 0.5, QUEUE = 1.1 }, map,
      order)
    assert.are.equal("LATENCY", label)
    assert.are.equal("L2", top)
    assert.are.same({ ISSUE = 1, LATENCY = 1.25, DRAM = 1.1 }, sums)
    -- ties go to the first label of the vocabulary; categories the map lacks count nowhere
    assert.are.equal("ISSUE", (vocabulary.largest({ BASE = 1, DEP = 1, OTHER = 5 }, map, { "BASE", "DEP", "OTHER" })))
    assert.is_nil((vocabulary.largest({ BASE = 0 }, map, order)))
  end)

  it("names ISSUE after the busiest saturated resource, or what the kernel waits for when none is", function()
    local busy_map = { fma = "PIPE", lsu = "LSU", dram = "DRAM" }
    local busy_order = { "dram", "fma", "lsu" }
    local map = { BASE = "ISSUE", DEP = "LATENCY", L2 = "LATENCY", QUEUE = "DRAM" }
    local order = { "BASE", "DEP", "L2", "QUEUE" }
    local stack = { BASE = 0.5, DEP = 0.2, L2 = 0.1, QUEUE = 0.05 }
    assert.are.equal(0.9, vocabulary.SATURATED)
    -- a pipe busier than the issue slots, and saturated: issue_mix on gtx660ti (FP32 97 %, issue 73 %)
    assert.are.same({ "PIPE", "fma" }, { vocabulary.refine_issue("ISSUE", "BASE", 0.73, { fma = 0.97, lsu = 0.1,
      dram = 0.2 }, busy_map, busy_order, stack, map, order) })
    -- the issue slots themselves saturated
    assert.are.same({ "ISSUE", "BASE" }, { vocabulary.refine_issue("ISSUE", "BASE", 0.95, { fma = 0.9 }, busy_map,
      busy_order, stack, map, order) })
    -- nothing saturated: the kernel issues with slack, its time is what it waits for (DEP + L2)
    assert.are.same({ "LATENCY", "DEP" }, { vocabulary.refine_issue("ISSUE", "BASE", 0.63, { fma = 0.55 },
      busy_map, busy_order, stack, map, order) })
    -- ... unless it waits for nothing
    assert.are.same({ "ISSUE", "BASE" }, { vocabulary.refine_issue("ISSUE", "BASE", 0.5, {}, busy_map, busy_order,
      { BASE = 1 }, map, order) })
    -- any other label comes back as given
    assert.are.same({ "LATENCY", "DEP" }, { vocabulary.refine_issue("LATENCY", "DEP", 0.1, { fma = 0.97 }, busy_map,
      busy_order, stack, map, order) })
  end)

  it("refuses a family map with a label outside the vocabulary", function()
    assert.has_error(function()
      vocabulary.check_map({ BASE = "ISSUE", DEP = "DEPENDENCE" }, "mine")
    end, "gpush.models.vocabulary: mine maps 'DEP' to 'DEPENDENCE', which is not a bottleneck label "
      .. "(ISSUE, PIPE, LSU, L2, DRAM, MSHR, LATENCY, BARRIER, LAUNCH)")
  end)

  it("has every family map every category it has onto a label", function()
    local gpumech, sim, bounds = models.family("gpumech"), models.family("sim"), models.family("bounds")
    for _, c in ipairs(gpumech.STACK) do
      assert.is_true(vocabulary.is_label(gpumech.BOTTLENECK[c]), c)
    end
    for _, reason in ipairs(sim.ACTIVE_REASONS) do
      assert.is_true(vocabulary.is_label(sim.BOTTLENECK[reason]), reason)
    end
    assert.is_nil(sim.BOTTLENECK.idle) -- idle is reported apart
    for _, name in ipairs(bounds.NAMES) do
      assert.is_true(vocabulary.is_label(bounds.BOTTLENECK[name]), name)
    end
  end)

  -- The issue's example: fma_chain was DEP, IDLE, COMP and BLOCKS in the four models; one
  -- dependent FFMA chain per warp and two warps per SM, latency-bound in each of them.
  it("gives fma_chain one bottleneck in all four models", function()
    local workloads = require "gpush.workloads"
    local cfg = config.load("gtx660ti")
    local k = assert(workloads.kernel(workloads.get("fma_chain")))
    local cache, labels = {}, {}
    for _, m in ipairs { models.get("gpumech", { policy = "gto" }), models.get("sim", { policy = "gto" }),
      models.get("mcore"), models.get("bounds") } do
      local prepared = m.prepare and m.prepare(k, cfg, cache, { seed = 1 })
      local row = assert(m.run(k, cfg, prepared, cache, { seed = 1 }))
      labels[m.name] = row.bottleneck .. " (" .. row.bottleneck_detail .. ")"
    end
    assert.are.same({ ["gpumech-gto"] = "LATENCY (DEP)", ["sim-gto"] = "LATENCY (DEP)",
      mcore = "LATENCY (gpuperf)", bounds = "LATENCY (BLOCKS)" }, labels)
    k:close()
  end)
end)
