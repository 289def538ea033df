-- The shipped examples run and print what they promise.
local helper = require "spec_helper"

describe("examples/script_args.lua", function()
  it("sees its arguments as arg[1], arg[2]", function()
    local code, out, err = helper.gpush_run { "examples/script_args.lua", "a", "b c" }
    assert.are.equal(0, code, err)
    assert.matches("running examples/script_args.lua with 2 arguments\narg[1] = \"a\"\narg[2] = \"b c\"\n", out, 1, true)
  end)
end)

describe("examples/new_workload.lua", function()
  it("builds the stencil and predicts it with GPUMech (RR, GTO) and the simulator", function()
    local code, out, err = helper.gpush_run { "examples/new_workload.lua", "--grid", "64" }
    assert.are.equal(0, code, err)
    assert.matches("stencil5: 64 blocks x 256 threads, 23040 warp instructions, on 'gtx1080'", out, 1, true)
    local rows = {}
    for model, cycles in out:gmatch("\n(%a+ %u+)%s+(%d+)") do
      rows[model] = tonumber(cycles)
    end
    for _, model in ipairs { "GPUMech RR", "GPUMech GTO", "simulator GTO" } do
      assert.is_true((rows[model] or 0) > 0, model)
    end
  end)
end)

describe("examples/models/bottleneck.lua", function()
  package.path = "examples/?.lua;" .. package.path
  local gpush = require "gpush"
  local bottleneck = require "models.bottleneck"
  local kernel = assert(gpush.workloads.kernel(gpush.workloads.get("stream_triad")))

  it("predicts the largest first-principles bound plus the launch", function()
    local cfg = assert(gpush.config.load("gtx660ti"))
    local r = assert(bottleneck.run(kernel, cfg, nil, {}))
    local largest = 0
    for _, cycles in pairs(r.bounds) do
      largest = math.max(largest, cycles)
    end
    assert.are.equal(r.bounds[r.bound], largest)
    assert.is_near(largest + cfg.launch.kernel_cycles, r.cycles, 1e-6)
    -- stream_triad on gtx660ti: the DRAM binds (64 MSHRs per SM keep a stream's
    -- requests in flight); with 32 the MSHRs do (Little's law)
    assert.are.equal("dram", r.bound)
    r = assert(bottleneck.run(kernel, assert(gpush.config.load("gtx660ti", { "l1.mshrs=32" })), nil, {}))
    assert.are.equal("mshr", r.bound)
  end)

  it("never predicts slower with more MSHRs or more DRAM bandwidth", function()
    local previous
    for _, mshrs in ipairs { 8, 16, 32, 64, 128 } do
      local r = assert(bottleneck.run(kernel, assert(gpush.config.load("gtx660ti", { ["l1.mshrs"] = mshrs })), nil, {}))
      assert.is_true(not previous or r.cycles <= previous, "mshrs " .. mshrs)
      previous = r.cycles
    end
    previous = nil
    for _, gbs in ipairs { 48, 96, 192, 384 } do
      local r = assert(bottleneck.run(kernel, assert(gpush.config.load("gtx660ti",
        { ["dram.bandwidth_gbs"] = gbs, ["l1.mshrs"] = 1024 })), nil, {}))
      assert.is_true(not previous or r.cycles <= previous, "bandwidth " .. gbs)
      previous = r.cycles
    end
  end)
end)

describe("examples/new_model.lua", function()
  it("prints the Lua model next to GPUMech and the simulator", function()
    local code, out, err = helper.gpush_run { "examples/new_model.lua", "--traces", "suite:stream_triad", "--sim" }
    assert.are.equal(0, code, err)
    local b, bound, g, s = out:match("\nstream_triad%s+(%d+) (%a+)%s+(%d+)%s+(%d+)")
    assert.is_truthy(b, out)
    assert.is_true(tonumber(b) > 0 and tonumber(g) > 0 and tonumber(s) > 0)
    assert.are.equal("dram", bound) -- stream_triad is DRAM-bound on the GTX 660 Ti
  end)
end)

describe("examples/custom_sweep.lua", function()
  local results = require "gpush.results"

  it("sweeps a new workload and a suite kernel over 16 points with GPUMech and the bottleneck module", function()
    local dir = helper.temp_dir()
    local code, out, err = helper.gpush_run { "examples/custom_sweep.lua", "--out", dir, "--jobs", "2", "--quiet" }
    assert.are.equal(0, code, err)
    assert.are.equal("", out)
    assert.are.equal("", err)
    for _, name in ipairs { "csr_gather.gpt", "custom_sweep.csv", "custom_sweep.json", "custom_sweep.md",
      "custom_sweep_bandwidth.svg", "custom_sweep_mshrs.svg" } do
      local f = io.open(dir .. "/" .. name)
      assert.is_truthy(f, name)
      f:close()
    end
    local t = assert(results.read_csv(dir .. "/custom_sweep.csv"))
    -- 16 points (4 bandwidths x 4 MSHR counts) x 2 kernels x 2 models
    assert.are.equal(64, #t.rows)
    local count, by = {}, {}
    for _, row in ipairs(t.rows) do
      local key = row.kernel .. " " .. row.model
      count[key] = (count[key] or 0) + 1
      by[("%s %d/%d"):format(key, row.dram_gbs, row.mshrs)] = row
      assert.is_true(row.cycles > 0 and row.time_us > 0, key)
      if row.model == "bottleneck" then
        -- never faster than any bound it reports
        for _, b in ipairs { "issue", "dram", "mshr", "latency", "blocks" } do
          assert.is_true(row.cycles >= row["bounds." .. b], b)
        end
        assert.is_string(row.dominant)
        -- the bound in gpush's one vocabulary, like GPUMech's rows
        assert.are.equal(require("gpush.models").family("bounds").BOTTLENECK[row.dominant:lower()],
          row.bottleneck)
      else
        assert.is_true(require("gpush.models.vocabulary").is_label(row.bottleneck), row.bottleneck)
        assert.is_truthy(row.cpi_base)
      end
    end
    assert.are.same({ ["csr_gather gpumech-gto"] = 16, ["csr_gather bottleneck"] = 16,
      ["stream_triad gpumech-gto"] = 16, ["stream_triad bottleneck"] = 16 }, count)
    -- more bandwidth or MSHRs is never slower in either model
    for _, key in ipairs { "csr_gather gpumech-gto", "csr_gather bottleneck", "stream_triad gpumech-gto",
      "stream_triad bottleneck" } do
      assert.is_true(by[key .. " 288/32"].cycles <= by[key .. " 96/32"].cycles, key)
      assert.is_true(by[key .. " 192/64"].cycles <= by[key .. " 192/8"].cycles, key)
    end
    local md = helper.read_file(dir .. "/custom_sweep.md")
    assert.matches("2 kernels x 16 points (dram_gbs {96,144,192,288}; mshrs {8,16,32,64}) x 2 models = 64 results",
      md, 1, true)
    assert.matches("| csr_gather | bottleneck | [%d.]+ | %u+ %([%l%d]+%) | ", md)
    -- a line per kernel and model, a marker per point
    local plot = helper.read_file(dir .. "/custom_sweep_bandwidth.svg")
    assert.matches("Time against DRAM bandwidth at 32 MSHRs per SM", plot, 1, true)
    for _, key in ipairs { "csr_gather gpumech-gto", "csr_gather bottleneck", "stream_triad bottleneck" } do
      assert.matches(key, plot, 1, true)
    end
    local _, polylines = plot:gsub("<polyline", "")
    assert.are.equal(4, polylines)
    os.execute("rm -rf " .. dir)
  end)
end)

describe("examples/mech_module.lua", function()
  it("writes a tensor-core module and plugs it into an M-core", function()
    local code, out, err = helper.gpush_run { "examples/mech_module.lua", "--width", "32", "--core", "gtx480" }
    assert.are.equal(0, code, err)
    assert.matches("mma_tiles on the M%-core 'gtx480': 16.0 MMAs per warp", out)
    local plain = tonumber(out:match("MMAs issued like FP32%s+(%d+) cycles"))
    local with = tonumber(out:match("with a 32%-lane tensor unit%s+(%d+) cycles"))
    local added, effect = out:match("added (%d+) cycles to T_comp, marginal effect %+(%d+) cycles")
    assert.is_true(with > plain)
    -- the marginal effect is the difference the module makes, at most what it added
    assert.is_near(with - plain, tonumber(effect), 1) -- printed rounded
    assert.is_true(tonumber(added) >= tonumber(effect))
  end)
end)

describe("examples/mech_inputs.yaml", function()
  it("gives every S-core its Table 4.1 inputs; the dependent walk gains least from out-of-order", function()
    local json = require "gpush.json"
    local cycles = {}
    for _, core in ipairs { "a8", "atom", "xeon", "nehalem", "sandybridge" } do
      local code, out, err = helper.gpush_run { "mech", "--core", core, "--input", "examples/mech_inputs.yaml", "--json" }
      assert.are.equal(0, code, err)
      local r = assert(json.decode(out))
      assert.are.same({ "pointer_loop", "dense_kernel" }, { r[1].input, r[2].input })
      cycles[core] = { r[1].cycles, r[2].cycles }
    end
    -- Sandybridge (4-wide, out of order) runs the independent FP loop about 2 x faster than the
    -- Atom (2-wide, in order; the loop's ILP is given at window 2, so never above 2); on the
    -- dependent pointer walk its width hardly helps
    assert.is_true(cycles.atom[2] / cycles.sandybridge[2] > 1.8)
    assert.is_true(cycles.atom[1] / cycles.sandybridge[1] < 1.5)
    assert.is_true(cycles.atom[2] / cycles.sandybridge[2] > cycles.atom[1] / cycles.sandybridge[1])
  end)
end)
