-- scenarios/gpumech_sensitivity.lua (Fig. 13-15 style) and scenarios/gpumech_scaling.lua
-- (CPI stacks across SM counts) on small inputs.
local helper = require "spec_helper"

describe("scenarios/gpumech_sensitivity.lua", function()
  it("gives every model's mean |difference| per warps, MSHRs and bandwidth point, with an SVG each", function()
    local dir = helper.temp_dir()
    -- pointer chasing on 2 SMs: MSHR-bound below 16 MSHRs (64 warps x 12 trips of one request
    -- a warp), so the paper's models fall short there and gpush's equations do not
    local code, out, err = helper.gpush_run { "scenarios/gpumech_sensitivity.lua", "--traces", "suite:pointer_chase",
      "--out", dir, "--quiet", "--jobs", "2", "-p", "sm.count=2" }
    assert.are.equal(0, code, err)
    local rows = helper.csv_rows(helper.read_file(dir .. "/gpumech_sensitivity.csv"))
    -- (4 + 5 + 5 points) x 6 models, one kernel
    assert.are.equal(14 * 6, #rows)
    local by = {}
    for _, r in ipairs(rows) do
      assert.is_near((r.cycles - r.sim_cycles) / r.sim_cycles, r.difference, 1e-5)
      by[r.parameter .. " " .. r.value .. " " .. r.model] = r
    end
    -- one kernel: the mean is its |difference|, as printed
    local eight = by["l1.mshrs 8 gpush"]
    assert.matches(("| 8 | %.1f%% |"):format(100 * math.abs(eight.difference)), out, 1, true)
    assert.is_true(math.abs(eight.difference) < 0.1)
    assert.is_true(by["l1.mshrs 8 paper"].difference < -0.2)
    for _, f in ipairs { "fig13_warps.svg", "fig14_mshrs.svg", "fig15_bandwidth.svg" } do
      local svg = helper.read_file(dir .. "/" .. f)
      assert.matches("^<svg", svg)
      assert.matches("GPUMech (gpush)", svg, 1, true)
      assert.matches("Naive_Interval", svg, 1, true)
    end
    assert.matches("## Fig. 14: MSHR entries per SM", helper.read_file(dir .. "/gpumech_sensitivity.md"), 1, true)
    os.execute("rm -rf " .. dir)
  end)
end)

describe("scenarios/gpumech_scaling.lua", function()
  it("shows what stops a bandwidth-bound kernel from scaling: DRAM queueing grows with the SMs", function()
    local dir = helper.temp_dir()
    local code, out, err = helper.gpush_run { "scenarios/gpumech_scaling.lua", "--traces", "suite:stream_triad",
      "--sms", "2,32", "--out", dir, "--quiet", "--jobs", "2" }
    assert.are.equal(0, code, err)
    local rows = helper.csv_rows(helper.read_file(dir .. "/gpumech_scaling.csv"))
    assert.are.equal(2, #rows)
    for _, r in ipairs(rows) do
      local sum = 0
      for _, c in ipairs(require("gpush.gpumech").STACK) do
        sum = sum + r[c:lower()]
      end
      assert.is_near(r.gpumech, sum, 1e-3)
    end
    -- 2 SMs share 320 GB/s easily; 32 saturate it, and the growth is QUEUE
    assert.are.equal("dram", rows[2].bound)
    assert.is_true(rows[2].gpumech > 2 * rows[1].gpumech)
    assert.is_true(rows[2].queue > rows[1].queue + 0.5 * (rows[2].gpumech - rows[1].gpumech))
    assert.matches("| stream_triad | 2 SMs | 32 SMs | ", out, 1, true)
    assert.matches("| QUEUE (+", out, 1, true)
    assert.matches("^<svg", helper.read_file(dir .. "/gpumech_scaling.svg"))
    code, _, err = helper.gpush_run { "scenarios/gpumech_scaling.lua", "--sms", "0,4" }
    assert.are.equal(2, code)
    assert.matches("--sms expects whole numbers of SMs (1 or more), got '0'", err, 1, true)
    os.execute("rm -rf " .. dir)
  end)
end)

describe("gpush.scenario_args.parse_whole", function()
  local scenario_args = require "gpush.scenario_args"

  it("takes a scenario's own one-value options beside the engine's, refuses --shard", function()
    local opts = assert(scenario_args.parse_whole({ [0] = "s.lua", "--config", "a,b", "--jobs", "2", "--sms", "4" },
      { ["--config"] = "config", ["--sms"] = "sms" }, "s_out"))
    assert.are.same({ "a,b", "4", 2, "s_out" }, { opts.config, opts.sms, opts.jobs, opts.out })
    local _, problem = scenario_args.parse_whole({ [0] = "s.lua", "--config" }, { ["--config"] = "config" }, "o")
    assert.are.equal("--config expects a value", problem)
    _, problem = scenario_args.parse_whole({ [0] = "s.lua", "--shard", "1/2" }, {}, "o")
    assert.are.equal("--shard is not supported here: the comparison needs every kernel; use --jobs N", problem)
    _, problem = scenario_args.parse_whole({ [0] = "s.lua", "--sms", "4" }, { ["--config"] = "config" }, "o")
    assert.matches("unknown option '--sms'", problem, 1, true)
  end)
end)
