-- scenarios/mech_vs_sim.lua: the M-core (both bases) and GPUMech against the
-- simulator per kernel, with the first-principles bound as the floor.
local helper = require "spec_helper"

-- The table's rows keyed by kernel: the cells of each row.
local function table_rows(text)
  local rows = {}
  for line in text:gmatch("[^\n]+") do
    if line:match("^| suite") then
      local cells = {}
      for cell in line:gmatch("|([^|]*)") do
        cells[#cells + 1] = cell:match("^%s*(.-)%s*$")
      end
      cells[#cells] = nil -- after the closing bar
      rows[cells[3]] = cells
    end
  end
  return rows
end

describe("scenarios/mech_vs_sim.lua", function()
  it("prints each model's cycles, its difference to the simulator and the bound, and writes the table", function()
    local dir = helper.temp_dir()
    local code, out, err = helper.gpush_run { "scenarios/mech_vs_sim.lua", "--config", "gtx660ti", "--traces",
      "suite:atomic_histogram", "--traces", "suite:l1_resident", "--out", dir, "--quiet", "--jobs", "1" }
    assert.are.equal(0, code, err)
    assert.are.equal("", err)
    assert.matches("# Blem's M-core against the simulator on 'gtx660ti'", out, 1, true)
    local rows = table_rows(out)
    local sum = 0
    for _, kernel in ipairs { "atomic_histogram", "l1_resident" } do
      local c = assert(rows[kernel], kernel)
      -- source, launch, kernel, sim, GPUPerf, diff, MWP-CWP, diff, GPUMech, diff, larger term, bound, binds
      assert.are.equal(13, #c)
      local sim, gpuperf, bound = tonumber(c[4]), tonumber(c[5]), tonumber(c[12])
      local diff = (gpuperf - sim) / sim
      assert.are.equal(("%+.1f%%"):format(100 * diff), c[6])
      sum = sum + math.abs(diff)
      -- the simulator and the M-core (its L1 hits and its L2 slices) stay above the floor
      assert.is_true(sim >= bound and gpuperf >= bound, kernel)
    end
    assert.are.equal("l2", rows.atomic_histogram[13])
    assert.are.equal("lsu", rows.l1_resident[13])
    -- the mean line is the mean of the two |differences| as printed
    local mean = out:match("M%-core GPUPerf: mean |difference| to the simulator ([%d.]+)%% over 2 launches; below the bound on 0")
    assert.is_truthy(mean, out)
    assert.is_near(100 * sum / 2, tonumber(mean), 0.051)
    assert.are.equal(out:match("(# Blem.-launches[^\n]*\n[^\n]*\n[^\n]*)\n"),
      helper.read_file(dir .. "/mech_vs_sim.md"):match("(# Blem.-launches[^\n]*\n[^\n]*\n[^\n]*)\n"))
    os.execute("rm -rf " .. helper.shell_quote(dir))
  end)

  it("rejects bad arguments with a usage line", function()
    local code, _, err = helper.gpush_run { "scenarios/mech_vs_sim.lua", "--bogus" }
    assert.are.equal(2, code)
    assert.matches("mech_vs_sim: unknown option '--bogus'", err, 1, true)
    assert.matches("usage: gpush scenarios/mech_vs_sim.lua", err, 1, true)
    code, _, err = helper.gpush_run { "scenarios/mech_vs_sim.lua", "--shard", "1/2" }
    assert.are.equal(2, code)
    assert.matches("--shard is not supported here", err, 1, true)
    code, _, err = helper.gpush_run { "scenarios/mech_vs_sim.lua", "--quiet", "--config" }
    assert.are.equal(2, code)
    assert.matches("mech_vs_sim: --config expects a value", err, 1, true)
    code, _, err = helper.gpush_run { "scenarios/mech_vs_sim.lua", "--config", "nope", "--quiet" }
    assert.are.equal(2, code)
    assert.matches("nope", err, 1, true)
  end)
end)

describe("gpush.scenario_args.take", function()
  it("splits a scenario's own option from the engine's, the last value winning", function()
    local take = require("gpush.scenario_args").take
    local value, rest = take({ [0] = "s.lua", "--jobs", "2", "--config", "a", "--quiet", "--config", "b" }, "--config",
      "x")
    assert.are.equal("b", value)
    assert.are.same({ [0] = "s.lua", "--jobs", "2", "--quiet" }, rest)
    assert.are.equal("x", (take({ "--quiet" }, "--config", "x")))
    assert.are.same({ nil, "--config expects a value" }, { take({ "--config" }, "--config", "x") })
  end)
end)
