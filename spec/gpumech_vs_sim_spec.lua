-- scenarios/gpumech_vs_sim.lua: both models over the same kernels, the
-- relative difference per kernel and its mean absolute value per policy.
local helper = require "spec_helper"

describe("scenarios/gpumech_vs_sim.lua", function()
  it("compares every GPUMech model with the simulator per preset, kernel and policy", function()
    local dir = helper.temp_dir()
    local args = { "scenarios/gpumech_vs_sim.lua", "--config", "gtx660ti,gtx1080", "--traces", "suite:pointer_chase",
      "--out", dir, "--quiet", "--jobs", "2", "-p", "sm.count=4" }
    local chain = helper.shared .. "/traces/ffma-chain-h100-10"
    local with_chain = helper.have_shared_traces()
    if with_chain then
      args[#args + 1] = "--traces"
      args[#args + 1] = chain
    else
      print("gpumech_vs_sim spec: " .. helper.shared .. "/traces absent; the FFMA-chain check is skipped")
    end
    local code, out, err = helper.gpush_run(args)
    assert.are.equal(0, code, err)
    assert.are.equal("", err)
    local rows = helper.csv_rows(helper.read_file(dir .. "/gpumech_vs_sim.csv"))
    local models = { "gpush", "paper", "mt_mshr", "mt", "markov", "naive" }
    -- presets x kernels x policies x models
    assert.are.equal(2 * (with_chain and 2 or 1) * 2 * #models, #rows)
    local sums, counts = {}, {}
    for i, r in ipairs(rows) do
      assert.are.equal(models[(i - 1) % #models + 1], r.model)
      -- the difference column is (model - simulator) / simulator (the CSV
      -- rounds cycles to integers and the difference to 1e-6)
      assert.is_near((r.cycles - r.sim_cycles) / r.sim_cycles, r.difference, 1 / r.sim_cycles + 1e-6)
      local key = r.preset .. "|" .. r.policy .. "|" .. r.model
      sums[key], counts[key] = (sums[key] or 0) + math.abs(r.difference), (counts[key] or 0) + 1
      if r.kernel == "_Z10ffmaKerneli" and r.model == "gpush" then
        -- one warp, a dependent FFMA chain: N x L plus the same overheads, the warp issuing at
        -- most once a cycle as in the simulator (the CSV rounds to integers)
        assert.is_near(r.sim_cycles, r.cycles, 0.5)
      elseif r.kernel == "_Z10ffmaKerneli" and r.model == "paper" then
        -- the paper's warp issues at its dual-issue scheduler's rate, half a cycle for each
        -- instruction that issues right after its predecessor: 11.5 cycles short here
        assert.is_near(r.sim_cycles - 11.5, r.cycles, 0.5)
      end
      -- the binding resource under gpush's equations only
      assert.are.equal(r.model == "gpush", r.bound ~= nil and r.bound ~= "", r.model)
    end
    local md = helper.read_file(dir .. "/gpumech_vs_sim.md")
    for key, sum in pairs(sums) do
      local preset, policy, model = key:match("([^|]+)|([^|]+)|([^|]+)")
      local label = ({ gpush = "GPUMech (gpush)", paper = "GPUMech (paper)", mt_mshr = "MT_MSHR", mt = "MT",
        markov = "Markov_Chain", naive = "Naive_Interval" })[model]
      local mean = ("%.1f%%"):format(100 * sum / counts[key])
      assert.matches(("| %s | %s | %s | %d | %s |"):format(preset, policy, label, counts[key], mean), out, 1, true)
      assert.matches(("| %s | %s | %s | %d | %s |"):format(preset, policy, label, counts[key], mean), md, 1, true)
    end
    assert.matches("## gtx1080", md, 1, true)
    assert.matches("| pointer_chase | GTO |", md, 1, true)
    assert.matches("gpush's equations m[a-z]+ the targets", md)
    os.execute("rm -rf " .. dir)
  end)

  it("rejects unknown arguments and bad parameters with a usage message", function()
    local code, _, err = helper.gpush_run { "scenarios/gpumech_vs_sim.lua", "--bogus" }
    assert.are.equal(2, code)
    assert.matches("unknown option '--bogus'", err, 1, true)
    code, _, err = helper.gpush_run { "scenarios/gpumech_vs_sim.lua", "--traces", "suite:nope", "--quiet" }
    assert.are.equal(1, code)
    assert.matches("nope", err, 1, true)
    code, _, err = helper.gpush_run { "scenarios/gpumech_vs_sim.lua", "--shard", "1/2" }
    assert.are.equal(2, code)
    assert.matches("--shard is not supported here", err, 1, true)
    code, _, err = helper.gpush_run { "scenarios/gpumech_vs_sim.lua", "--config", "gtx9999" }
    assert.are.equal(2, code)
    assert.matches("gtx9999", err, 1, true)
  end)
end)
