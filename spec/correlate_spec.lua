-- gpush correlate: the microbenchmark kernels against their traces, the
-- measured CSV's rules, the metrics by hand, planted parameters recovered
-- from simulator-generated "measurements" (and judged on held-out rows),
-- the preset a fit writes, the outputs and the command line.
local helper = require "spec_helper"
local config = require "gpush.config"
local correlate = require "gpush.correlate"
local json = require "gpush.json"
local measured = require "gpush.correlate.measured"
local metrics = require "gpush.correlate.metrics"
local microbench = require "gpush.workloads.microbench"
local models = require "gpush.models"
local report = require "gpush.report.correlate"
local svg = require "gpush.report.svg"
local trace = require "gpush.trace"
local workloads = require "gpush.workloads"

local shared = helper.have_shared_traces()

-- Writes `text` as NAME in a fresh folder; returns the path.
local function csv_file(text, name, dir)
  dir = dir or helper.temp_dir()
  local path = dir .. "/" .. (name or "m.csv")
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path, dir
end

-- The cycles `model` predicts for a microbenchmark on a configuration.
local function predict(model_name, name, p, cfg)
  local m = assert(correlate.model(model_name))
  local k = assert(workloads.kernel(assert(microbench.describe(name, p))))
  local cache = {}
  local prepared = m.prepare and m.prepare(k, cfg, cache, { seed = 1 })
  local r = assert(m.run(k, cfg, prepared, cache, { seed = 1 }))
  k:close()
  return r.cycles
end

describe("gpush.workloads.microbench", function()
  it("builds empty as one EXIT a warp", function()
    local k = assert(workloads.kernel(assert(microbench.describe("empty", { grid = 1024, block = 256 }))))
    local info = k:info()
    assert.are.equal(1024 * 8, info.warps)
    assert.are.equal(1024 * 8, info.warp_instructions)
    assert.are.same({ branch = 1024 * 8 }, info.class_mix)
    k:close()
  end)

  it("builds ffma_chain as 6 set-up instructions, 132 a trip (128 dependent FFMAs) and 2 after", function()
    local k = assert(workloads.kernel(assert(microbench.describe("ffma_chain", { iters = 10 }))))
    local info = k:info()
    assert.are.equal(6 + 132 * 10 + 2, info.warp_instructions)
    -- FFMAs, HFMA2.MMA and FSETP; MOV and ISETP; LDC x 2; BRA and EXIT; UMOV and UIADD3
    assert.are.same({ fp32 = 1280 + 2, int = 21, ld_const = 2, branch = 12, uniform = 11 }, info.class_mix)
    k:close()
    -- a dependent chain: 1280 FFMAs take 1280 x the FP32 latency at least
    local cfg = assert(config.load("h100-pcie", helper.no_front_end()))
    local cycles = predict("sim-gto", "ffma_chain", { iters = 10 }, cfg)
    assert.is_true(cycles >= 1280 * cfg.ops.fp32.latency)
    assert.is_true(cycles < 1280 * cfg.ops.fp32.latency * 1.05)
  end)

  it("matches the ffma-chain-h100 traces instruction for instruction", function()
    if not shared then
      pending("../shared/traces is absent: the ffma-chain-h100 traces are not here to compare with")
      return
    end
    local cfg = assert(config.load("h100-pcie", { "clock.core_mhz=1088" }))
    for _, iters in ipairs { 10, 20, 30, 40 } do
      local t = assert(trace.open(helper.shared .. "/traces/ffma-chain-h100-" .. iters))
      local _, traced = t:kernels(nil, { keep = true })()
      t:close()
      local k = assert(workloads.kernel(assert(microbench.describe("ffma_chain", { iters = iters }))))
      local a, b = traced:info(), k:info()
      assert.are.equal(a.warp_instructions, b.warp_instructions)
      assert.are.same(a.class_mix, b.class_mix)
      assert.are.same(a.grid, b.grid)
      assert.are.same(a.block, b.block)
      -- and the models see the same kernel: the same cycles to the cycle
      for _, name in ipairs { "sim-gto", "gpumech-gto" } do
        local m = assert(correlate.model(name))
        local function run(kernel)
          local cache = {}
          return m.run(kernel, cfg, m.prepare and m.prepare(kernel, cfg, cache, { seed = 1 }), cache).cycles
        end
        assert.are.equal(run(traced), run(k))
      end
      traced:close()
      k:close()
    end
  end)

  it("says what a description is missing", function()
    local d, err = microbench.describe("ffma_chain", {})
    assert.is_nil(d)
    assert.are.equal("microbenchmark 'ffma_chain' needs iters (loop trips, each 128 dependent FFMAs)", err)
    d, err = microbench.describe("ffma_chain", { iters = 2.5 })
    assert.matches("iters must be a whole number from 1 to 1000000, got 2.5", err, 1, true)
    d, err = microbench.describe("empty", { iters = 3 })
    assert.are.equal("microbenchmark 'empty' takes no parameter 'iters'", err)
    d, err = microbench.describe("empty", { grid = { 0 } })
    assert.matches("grid: expected positive whole numbers, got 0", err, 1, true)
  end)
end)

describe("gpush.correlate.metrics", function()
  it("computes the errors, RMSE and Pearson's r by hand", function()
    local s = metrics.summary { { 100, 110 }, { 200, 180 }, { 400, 400 } }
    -- errors +0.1, -0.1, 0
    assert.are.equal(3, s.n)
    assert.is_near(0.2 / 3, s.mean_abs_error, 1e-15)
    assert.is_near(0.1, s.max_abs_error, 1e-15)
    assert.is_near(0, s.mean_error, 1e-15)
    assert.is_near(math.sqrt((100 + 400 + 0) / 3), s.rmse, 1e-12)
    -- deviations from the means 700/3 and 230: Sxy = 46000, Sxx = 140000/3, Syy = 45800
    assert.is_near(46000 / math.sqrt(140000 / 3 * 45800), s.correlation, 1e-12)
    assert.is_nil(metrics.summary({ { 5, 6 } }).correlation)
    assert.is_nil(metrics.summary({ { 5, 6 }, { 5, 7 } }).correlation)
    assert.are.same({ n = 0 }, metrics.summary {})
  end)
end)

describe("gpush.correlate: the measured CSV", function()
  it("reads rows, clocks, geometry and the columns to carry through", function()
    local set = assert(measured.parse(table.concat({
      "\239\187\191# a comment line",
      "label,kernel,grid,block,iters,core_mhz,cycles,note",
      "one,empty,1024,256,,1081,5055,ncu",
      "two,ffma_chain,\"(114, 1, 1)\",32x1,10,,9576,",
      ",,,,,,,",
      "three,suite:stream_triad,2x2x2,128,,, 7e3 ,x",
    }, "\r\n"), "m.csv"))
    assert.are.same({ "note" }, set.extra)
    assert.are.same({ "iters" }, set.params)
    assert.are.equal(3, #set.rows)
    local one, two, three = set.rows[1], set.rows[2], set.rows[3]
    assert.are.equal(3, one.line)
    assert.are.same({ 1024 }, one.grid)
    assert.are.equal(1081, one.core_mhz)
    assert.are.equal(5055, one.cycles)
    assert.are.same({ 114, 1, 1 }, two.grid)
    assert.are.same({ 32, 1 }, two.block)
    assert.are.equal(10, two.params.iters)
    assert.is_nil(two.core_mhz)
    assert.are.equal(6, three.line)
    assert.are.equal(7000, three.cycles)
    assert.are.equal("x", three.cells.note)
  end)

  it("refuses bad rows with FILE:LINE and what was expected", function()
    local cases = {
      { "kernel,cycles\nempty,abc\n",
        "m.csv:2: column 'cycles': expected a positive number of cycles (at most 1e15), got 'abc'" },
      { "kernel,cycles\nempty,-5\n", "got '-5'" },
      { "kernel,cycles\nempty,\n", "m.csv:2: no cycles: expected the measured cycles (a positive number)" },
      { "kernel,cycles\nempty,1e999\n", "got '1e999'" },
      { "kernel,cycles\nempty,2e15\n", "got '2e15'" },
      { "kernel,cycles\nempty,0x10\n", "got '0x10'" },
      { "kernel,cycles,core_mhz\nempty,5,fast\n", "m.csv:2: column 'core_mhz': expected a positive clock in MHz" },
      { "kernel,grid,cycles\nempty,1.5,5\n",
        "m.csv:2: column 'grid': expected a number of blocks, XxYxZ or (x, y, z), got '1.5'" },
      { "kernel,cycles\nempty,5,6\n", "m.csv:2: 3 fields: expected 2, as the header has" },
      { "trace,kernel,cycles\nt,empty,5\n", "m.csv:2: both trace 't' and kernel 'empty'" },
      { "trace,kernel,cycles\n,,5\n", "m.csv:2: neither a trace nor a kernel" },
      { "trace,launch,cycles\nt,0,5\n", "m.csv:2: column 'launch': expected a launch number (1, 2, ...), got '0'" },
      { "trace,launch,kernel,cycles\n,2,empty,5\n", "m.csv:2: launch 2 without a trace" },
      { "kernel,cycle\nempty,5\n", "m.csv:1: no 'cycles' column" },
      { "name,cycles\nx,5\n", "m.csv:1: no 'trace' or 'kernel' column" },
      { "kernel,cycles,cycles\n", "m.csv:1: column 'cycles' appears twice" },
      { "kernel,,cycles\n", "m.csv:1: column 2 has no name" },
      { "kernel,cycles,measured\n", "m.csv:1: column 'measured' is a name the outputs use" },
      { "kernel,cycles\n", "m.csv: no measurements: expected rows after the header line 1" },
      { "", "m.csv: no header line" },
      { "kernel,cycles\n\"empty,5\n", "m.csv:2: unterminated quoted field" },
      { "kernel,cycles\nempty\0,5\n", "m.csv: a NUL byte: expected CSV text" },
    }
    for _, case in ipairs(cases) do
      local set, err = measured.parse(case[1], "m.csv")
      assert.is_nil(set, case[1])
      assert.matches(case[2], err, 1, true)
    end
  end)

  it("finds what each row ran before any model runs, and names every bad row", function()
    local path = csv_file(table.concat({
      "kernel,grid,iters,cycles",
      "emtpy,1,,5",
      "ffma_chain,1,,5",
      "stream_triad,4,3,5",
      "nothing_here.lua,1,,5",
      "empty,1,,5",
    }, "\n"))
    local result, err = correlate.run { measured = path, config = "h100-pcie", models = { "sim-gto" } }
    assert.is_nil(result)
    local lines = {}
    for l in err:gmatch("[^\n]+") do
      lines[#lines + 1] = l
    end
    assert.are.equal(4, #lines, err)
    assert.matches(path .. ":2: kernel 'emtpy' is neither a microbenchmark (empty, ffma_chain), a suite kernel"
      .. " (gpush workloads lists them) nor a .lua description file (did you mean 'empty'?)", lines[1], 1, true)
    assert.matches(path .. ":3: microbenchmark 'ffma_chain' needs iters", lines[2], 1, true)
    assert.matches(path .. ":4: iters is a microbenchmark's parameter; suite kernel 'stream_triad' takes grid"
      .. " and block", lines[3], 1, true)
    assert.matches(path .. ":5: kernel 'nothing_here.lua': cannot open", lines[4], 1, true)
  end)

  it("reads traces relative to the CSV's folder, and checks launch and geometry against them", function()
    if not shared then
      pending("../shared/traces is absent")
      return
    end
    local dir = helper.temp_dir()
    local traces = assert(require("gpush.core").realpath(helper.shared .. "/traces"))
    os.execute(("ln -s %s %s/traces"):format(helper.shell_quote(traces), dir))
    local path = csv_file(table.concat({
      "trace,launch,grid,block,cycles",
      "traces/vectoradd-sm61,1,,,4468",
      "traces/bfs-rodinia-sm80,,,,100",
      "traces/bfs-rodinia-sm80,17,,,100",
      "traces/vectoradd-sm61,1,2,,100",
      "traces/missing,1,,,100",
    }, "\n"), "m.csv", dir)
    local _, err = correlate.run { measured = path, config = "gtx1080", models = { "sim-gto" } }
    assert.matches(":3: trace 'traces/bfs-rodinia-sm80' holds 16 launches: give the launch column (1 to 16)", err, 1,
      true)
    assert.matches(":4: trace 'traces/bfs-rodinia-sm80' has no launch 17 (its launches: 1 to 16)", err, 1, true)
    assert.matches(":5: grid 2, but launch 1 of trace 'traces/vectoradd-sm61' ran grid 1x1x1", err, 1, true)
    assert.matches(":6: trace 'traces/missing': ", err, 1, true)
    assert.is_nil(err:find(":2:", 1, true))
  end)

  it("works on the shared calibration CSVs as they are", function()
    if not shared then
      pending("../shared is absent: no calibration data")
      return
    end
    local r = assert(correlate.run { measured = helper.shared .. "/calibration/h100-pcie/empty-kernels.csv",
      config = "h100-pcie" })
    assert.are.equal(8, #r.rows)
    for _, e in ipairs(r.rows) do
      for _, m in ipairs { "sim-gto", "gpumech-gto" } do
        assert.is_near((e.predicted[m] - e.row.cycles) / e.row.cycles, e.predicted_error[m], 1e-15)
      end
    end
    -- every row at its own clock (core_mhz): the launch's 5000 cycles are clock-free,
    -- so the 1024-block rows only say the clock was applied if the time is asked
    assert.are.equal(8, r.summary["sim-gto"].n)
    local v = assert(correlate.run { measured = helper.shared .. "/calibration/gtx1080/vectoradd-measured.csv",
      config = "gtx1080" })
    assert.are.equal(1, #v.rows)
    assert.are.equal("_Z6vecAddIfEvPT_S1_S1_i", v.rows[1].name)
    assert.are.equal(4468, v.rows[1].row.cycles)
  end)
end)

describe("gpush.correlate: model names", function()
  it("knows the sweep tables' names and suggests one for a typo", function()
    for _, name in ipairs { "sim-gto", "sim-lrr", "sim-two-level", "gpumech-gto", "gpumech-rr", "gpumech-paper-gto",
      "gpumech-paper-rr", "mcore", "mcore-mwp_cwp", "bounds" } do
      assert.are.equal(name, assert(correlate.model(name)).name)
    end
    local m, err = correlate.model("gpumech-gt0")
    assert.is_nil(m)
    assert.matches("unknown model 'gpumech-gt0' (did you mean 'gpumech-gto'?)", err, 1, true)
  end)
end)

-- A model that predicts by a rule of the kernel's blocks, for hand-checked
-- plumbing: 100 cycles a block, plus `extra` from the configuration's
-- launch.kernel_cycles.
local stub = {
  name = "stub",
  run = function(kernel, cfg)
    return { cycles = 100 * kernel:info().thread_blocks + cfg.launch.kernel_cycles }
  end,
}

describe("gpush.correlate: predictions and outputs", function()
  setup(function()
    models.register("stub", stub)
  end)

  it("gives each row's error and each model's summary, by hand", function()
    local path = csv_file(table.concat({
      "kernel,grid,cycles,label,source",
      "empty,1,110,a,x1",
      "empty,2,180,b,x2",
      "empty,4,400,c,",
    }, "\n"))
    local r = assert(correlate.run { measured = path, config = "gtx1080", models = { "stub" },
      overrides = { "launch.kernel_cycles=0" } })
    -- predictions 100, 200, 400 against 110, 180, 400
    assert.are.same({ 100, 200, 400 }, { r.rows[1].predicted.stub, r.rows[2].predicted.stub, r.rows[3].predicted.stub })
    local s = r.summary.stub
    assert.is_near((10 / 110 + 20 / 180) / 3, s.mean_abs_error, 1e-15)
    assert.is_near(20 / 180, s.max_abs_error, 1e-15)
    assert.is_near(math.sqrt((100 + 400) / 3), s.rmse, 1e-12)
    -- the outputs carry the inputs through
    local rows = helper.csv_rows(report.csv(r, { gpush = "test" }):gsub("#[^\n]*\n", ""))
    assert.are.equal("x1", rows[1].source)
    assert.are.equal(110, rows[1].measured)
    assert.are.equal(100, rows[1]["stub.predicted"])
    assert.is_near(-10 / 110, rows[1]["stub.error"], 1e-15)
    assert.are.equal("", rows[3].source)
    local doc = assert(json.decode(report.json(r, {})))
    assert.is_near(s.mean_abs_error, doc.summary.stub.mean_abs_error, 1e-15)
    assert.are.equal(3, #doc.rows)
    assert.are.equal("x2", doc.rows[2].source)
    assert.are.equal(200, doc.rows[2].predicted.stub)
    assert.are.equal(180, doc.rows[2].measured)
    assert.is_near(20 / 180, doc.rows[2].error.stub, 1e-15)
    assert.matches("| stub | 3 | 6.7 % | 11.1 % |", report.markdown(r, {}), 1, true)
  end)

  it("recovers a planted value with a standard error from the Jacobian", function()
    -- the stub is linear in launch.kernel_cycles: cycles = 100 blocks + k; measured
    -- at k = 300 with +-1 % deviations, fitted from k = 0
    local dev = { 0.01, -0.01, 0.005, -0.005 }
    local lines = { "kernel,grid,cycles" }
    local grids = { 1, 2, 4, 8 }
    for i, g in ipairs(grids) do
      lines[#lines + 1] = ("empty,%d,%.17g"):format(g, (100 * g + 300) * (1 + dev[i]))
    end
    local r = assert(correlate.run { measured = csv_file(table.concat(lines, "\n")), config = "gtx1080",
      models = { "stub" }, overrides = { "launch.kernel_cycles=0" }, fit = { "launch.kernel_cycles" } })
    local p = r.fit.parameters[1]
    -- by hand: minimise sum ((100 g + k) / m - 1)^2 over k: k = sum (1 - 100 g / m) / m / sum 1 / m^2
    local num, den = 0, 0
    local ms = {}
    for i, g in ipairs(grids) do
      local m = (100 * g + 300) * (1 + dev[i])
      ms[i] = m
      num = num + (1 - 100 * g / m) / m
      den = den + 1 / m ^ 2
    end
    local k = num / den
    assert.is_near(k, p.value, 1e-6)
    assert.is_true(math.abs(p.value - 300) < 3 * p.stderr)
    -- the standard error of a one-parameter linear fit: sqrt(s^2 / sum (1/m)^2)
    local rss = 0
    for i, g in ipairs(grids) do
      rss = rss + ((100 * g + k) / ms[i] - 1) ^ 2
    end
    assert.is_near(math.sqrt(rss / 3 / den), p.stderr, 1e-6 * p.stderr)
    assert.is_false(p.at_bound)
  end)
end)

-- Writes a CSV of microbenchmark rows whose cycles the simulator predicts
-- on `preset` with `planted` values (and optional deviations `dev`, one
-- per row, as fractions).  rows: {name, grid, block, iters}.
local function simulated_csv(preset, planted, rows, dev, model)
  local overrides = {}
  for k, v in pairs(planted) do
    overrides[k] = v
  end
  local cfg = assert(config.load(preset, overrides))
  local lines = { "kernel,grid,block,iters,cycles" }
  for i, r in ipairs(rows) do
    local cycles = predict(model or "sim-gto", r[1], { grid = r[2], block = r[3], iters = r[4] }, cfg)
    lines[#lines + 1] = ("%s,%d,%d,%s,%.17g"):format(r[1], r[2], r[3], r[4] and tostring(r[4]) or "",
      cycles * (1 + (dev and dev[i] or 0)))
  end
  return csv_file(table.concat(lines, "\n"))
end

describe("gpush.correlate: planted values recovered from simulator-generated measurements", function()
  it("recovers the launch cost and the FP32 latency, and the fit holds on held-out rows", function()
    local planted = { ["launch.kernel_cycles"] = 2000, ["ops.fp32.latency"] = 4.5 }
    local fit_rows = { { "ffma_chain", 1, 32, 1 }, { "ffma_chain", 1, 32, 5 }, { "ffma_chain", 1, 32, 10 },
      { "empty", 114, 256 } }
    local held_out = { { "ffma_chain", 1, 32, 40 }, { "ffma_chain", 114, 32, 20 }, { "ffma_chain", 228, 64, 3 },
      { "empty", 4096, 1024 } }
    local r = assert(correlate.run { measured = simulated_csv("h100-pcie", planted, fit_rows), config = "h100-pcie",
      models = { "sim-gto" }, fit = { "launch.kernel_cycles", "ops.fp32.latency" },
      validate = simulated_csv("h100-pcie", planted, held_out) })
    local k, lat = r.fit.parameters[1], r.fit.parameters[2]
    assert.are.equal(3694, k.start) -- the preset's, calibrated (docs/correlate.md)
    assert.are.equal(4, lat.start)
    assert.is_near(2000, k.value, 2000 * 1e-6)
    assert.is_near(4.5, lat.value, 4.5 * 1e-6)
    assert.is_true(r.fit.summary["sim-gto"].max_abs_error < 1e-6)
    -- held out: far off at the start, exact after the fit
    assert.is_true(r.validation.summary_before["sim-gto"].mean_abs_error > 0.1)
    assert.is_true(r.validation.summary["sim-gto"].max_abs_error < 1e-6)
    assert.are.equal(8, #r.rows)
    assert.are.equal("validate", r.rows[8].set)
  end)

  it("recovers them from noisy measurements within three standard errors", function()
    local planted = { ["launch.kernel_cycles"] = 3000, ["ops.fp32.latency"] = 4.5 }
    local rows = { { "ffma_chain", 1, 32, 1 }, { "ffma_chain", 1, 32, 2 }, { "ffma_chain", 1, 32, 5 },
      { "ffma_chain", 1, 32, 10 }, { "ffma_chain", 1, 32, 20 }, { "empty", 114, 256 } }
    local dev = { 0.01, -0.015, 0.005, -0.01, 0.012, -0.004 }
    local r = assert(correlate.run { measured = simulated_csv("h100-pcie", planted, rows, dev),
      config = "h100-pcie", models = { "sim-gto" }, fit = { "launch.kernel_cycles", "ops.fp32.latency" } })
    for _, p in ipairs(r.fit.parameters) do
      local truth = planted[p.name]
      assert.is_true(p.stderr > 0 and p.stderr < 0.05 * truth, p.name .. " s.e. " .. tostring(p.stderr))
      assert.is_true(math.abs(p.value - truth) < 3 * p.stderr,
        ("%s: %g, planted %g, s.e. %g"):format(p.name, p.value, truth, p.stderr))
    end
    assert.are.equal(4, r.fit.dof)
  end)

  it("recovers DRAM bandwidth from a streaming kernel, and GPUMech's block launch cost", function()
    local planted_bw = 240 -- gtx1080's preset: 320 GB/s
    local cfg = assert(config.load("gtx1080", { ["dram.bandwidth_gbs"] = planted_bw }))
    local lines = { "kernel,grid,cycles" }
    for _, g in ipairs { 20, 40, 80 } do
      local d = workloads.make("stream_triad", { grid = g })
      local k = assert(workloads.kernel(d))
      lines[#lines + 1] = ("stream_triad,%d,%.17g"):format(g, assert(correlate.model("sim-gto")).run(k, cfg, nil, {})
        .cycles)
      k:close()
    end
    local r = assert(correlate.run { measured = csv_file(table.concat(lines, "\n")), config = "gtx1080",
      models = { "sim-gto" }, fit = { "dram.bandwidth_gbs" } })
    assert.is_near(planted_bw, r.fit.parameters[1].value, planted_bw * 1e-4)
    assert.are.equal(320, r.fit.parameters[1].start)
    -- GPUMech charges every block of the busiest SM launch.block_cycles
    local path = simulated_csv("h100-pcie", { ["launch.block_cycles"] = 2.5 },
      { { "empty", 1024, 256 }, { "empty", 16384, 256 }, { "empty", 65536, 1024 } }, nil, "gpumech-gto")
    r = assert(correlate.run { measured = path, config = "h100-pcie", models = { "gpumech-gto" },
      fit = { "launch.block_cycles" } })
    assert.is_near(2.5, r.fit.parameters[1].value, 1e-6)
  end)

  it("stops at a range's bound and refuses parameters it cannot fit", function()
    -- measured far below what any launch cost allows: kernel_cycles goes to its bound 0
    local r = assert(correlate.run { measured = csv_file("kernel,cycles\nempty,1\nempty,1.5\n"),
      config = "h100-pcie", models = { "sim-gto" }, fit = { "launch.kernel_cycles" } })
    assert.are.equal(0, r.fit.parameters[1].value)
    assert.is_true(r.fit.parameters[1].at_bound)
    assert.is_nil(r.fit.parameters[1].stderr)
    local path = csv_file("kernel,cycles,core_mhz\nempty,5000,1000\n")
    local only = "; the fit moves continuous (number) parameters only"
    for _, case in ipairs {
      { "sm.count", "--fit sm.count: a parameter of type int" .. only },
      { "launch.kernel_cycle", "--fit launch.kernel_cycle: no such parameter (did you mean 'launch.kernel_cycles'?)"
        .. " (gpush config describe lists them)" },
      { "sm.max_threads", "--fit sm.max_threads: a parameter of type int" .. only },
      { "clock.core_mhz", "--fit clock.core_mhz: the rows of " .. path .. " give their own core_mhz" },
      { "l1.write_policy", "--fit l1.write_policy: a parameter of type enum" .. only },
    } do
      local res, err = correlate.run { measured = path, config = "h100-pcie", models = { "sim-gto" },
        fit = { case[1] } }
      assert.is_nil(res)
      assert.are.equal(case[2], err)
    end
    local _, err = correlate.run { measured = path, config = "h100-pcie", models = { "sim-gto" },
      fit = { "l2.interval" } }
    assert.matches("--fit: parameter 1 (l2.interval) changes no residual", err, 1, true)
  end)

  it("writes a preset that reloads to the fitted predictions", function()
    local planted = { ["launch.kernel_cycles"] = 2500 }
    local path = simulated_csv("gtx1080", planted, { { "empty", 40, 256 }, { "ffma_chain", 20, 64, 2 } })
    local dir = helper.temp_dir()
    local preset_path = dir .. "/fitted.yaml"
    local code, out, err = helper.gpush_run { "correlate", path, "--config", "gtx1080", "--model", "sim-gto",
      "--fit", "launch.kernel_cycles", "-p", "l1.mshrs=64", "--write-preset", preset_path, "--out", dir .. "/o",
      "--quiet" }
    assert.are.equal(0, code, err)
    assert.are.equal("", err)
    assert.matches("launch.kernel_cycles", out, 1, true)
    local text = helper.read_file(preset_path)
    assert.matches("\npreset: gtx1080\n", text, 1, true)
    assert.matches("kernel_cycles: 2500 ", text, 1, true)
    assert.matches("mshrs: 64 +# given with %-p", text)
    assert.matches("# sim%-gto: mean |error| [%d.]+ %% %-> 0.0 %%", text)
    local cfg = assert(config.load(preset_path))
    assert.are.equal(2500, cfg.launch.kernel_cycles)
    assert.are.equal(64, cfg.l1.mshrs)
    local again = assert(correlate.run { measured = path, config = preset_path, models = { "sim-gto" } })
    assert.is_true(again.summary["sim-gto"].max_abs_error < 1e-6)
    for _, f in ipairs { "correlate.csv", "correlate.json", "correlate.md", "correlate.svg", "correlate-fitted.svg" } do
      assert.is_truthy(io.open(dir .. "/o/" .. f), f)
    end
    os.execute("rm -rf " .. helper.shell_quote(dir))
  end)

  it("is deterministic: the same input gives the same JSON, bit for bit, on any number of workers", function()
    local path = simulated_csv("gtx1080", { ["launch.kernel_cycles"] = 2500 }, { { "empty", 40, 256 },
      { "ffma_chain", 20, 64, 2 } }, { 0.01, -0.02 })
    local texts = {}
    for i, jobs in ipairs { 1, 1, 2 } do
      local r = assert(correlate.run { measured = path, config = "gtx1080", fit = { "launch.kernel_cycles" },
        jobs = jobs })
      texts[i] = report.json(r, {})
    end
    assert.are.equal(texts[1], texts[2])
    -- a fit's evaluations on two forked workers give the same bytes
    assert.are.equal(texts[1], texts[3])
  end)
end)

describe("gpush.report.svg.correlation", function()
  it("draws y = x, the band, and one marker shape per model", function()
    local text = svg.correlation({ band = 0.2, series = {
      { label = "sim-gto", model = "sim-gto", points = { { measured = 100, predicted = 120, label = "a" },
        { measured = 1000, predicted = 900 } } },
      { label = "gpumech-gto", model = "gpumech-gto", points = { { measured = 100, predicted = 90 } } },
      { label = "sim-gto (held out)", model = "sim-gto", points = { { measured = 5000, predicted = 5000 } } },
    } }, { title = "t" })
    assert.matches('class="identity"', text, 1, true)
    assert.matches('class="band"', text, 1, true)
    assert.are.equal(2, select(2, text:gsub('class="band%-edge"', "")))
    assert.matches("sim-gto, a: measured 100, predicted 120 (+20.0%)", text, 1, true)
    -- sim-gto's points and its held-out point are circles, gpumech-gto's a square
    local shapes = {}
    for group in text:gmatch('<g class="series".-</g>') do
      shapes[#shapes + 1] = ("%d circles, %d squares"):format(select(2, group:gsub("<circle", "")),
        select(2, group:gsub("<rect", "")))
    end
    assert.are.same({ "2 circles, 0 squares", "0 circles, 1 squares", "1 circles, 0 squares" }, shapes)
    assert.has_error(function() svg.correlation({ series = { { points = { { measured = 0, predicted = 1 } } } } }) end,
      "gpush.report.svg.correlation: data.series[1].points[1] needs positive values for a log-log plot, got 0 and 1")
    assert.has_error(function() svg.correlation({ band = 1, series = { { points = {} } } }) end)
  end)
end)

describe("gpush correlate (command line)", function()
  it("explains itself and refuses bad usage (exit 2)", function()
    local code, out = helper.gpush_run { "correlate", "--help" }
    assert.are.equal(0, code)
    for _, word in ipairs { "--fit", "--validate", "--write-preset", "ffma_chain", "sim-gto,gpumech-gto" } do
      assert.matches(word, out, 1, true)
    end
    local err
    code, _, err = helper.gpush_run { "correlate", "m.csv" }
    assert.are.equal(2, code)
    assert.matches("^gpush correlate: give one MEASURED.csv and %-%-config NAME\n", err)
    code, _, err = helper.gpush_run { "correlate", "m.csv", "--config", "gtx1080", "--validate", "o.csv" }
    assert.are.equal(2, code)
    assert.matches("--validate needs --fit", err, 1, true)
    code, _, err = helper.gpush_run { "correlate", "m.csv", "--config", "gtx1080", "--write-preset", "p.yaml" }
    assert.are.equal(2, code)
    assert.matches("--write-preset needs --fit", err, 1, true)
  end)

  it("exits 1 with FILE:LINE on bad input and writes nothing", function()
    local path, dir = csv_file("kernel,cycles\nempty,5\nempty,abc\n")
    local code, out, err = helper.gpush_run { "correlate", path, "--config", "gtx1080", "--out", dir .. "/o" }
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal(("gpush correlate: %s:3: column 'cycles': expected a positive number of cycles (at most 1e15),"
      .. " got 'abc'\n"):format(path), err)
    assert.is_nil(io.open(dir .. "/o/correlate.csv"))
    code, _, err = helper.gpush_run { "correlate", path, "--config", "gtx1080", "--model", "sim-gt" }
    assert.are.equal(1, code)
    assert.matches("unknown model 'sim-gt' (did you mean 'sim-gto'?)", err, 1, true)
  end)

  it("writes the outputs, lists a model's failure on a row and exits 1", function()
    local dir = helper.temp_dir()
    local lua = assert(io.open(dir .. "/big.lua", "wb"))
    lua:write('return { name = "big", grid = 2, block = 64, shmem = 1 << 20, body = { { "fp32" } } }')
    lua:close()
    local path = csv_file("kernel,cycles\nbig.lua,700\nempty,5000\n", "m.csv", dir)
    local code, out, err = helper.gpush_run { "correlate", path, "--config", "gtx1080", "--model", "sim-gto",
      "--out", dir .. "/o", "--quiet" }
    assert.are.equal(1, code)
    assert.are.equal(("gpush correlate: %s:2: model sim-gto: sim: kernel 'big' does not fit on one SM of 'gtx1080'"
      .. " (limit: shared)\n"):format(path), err)
    assert.matches("failed", out, 1, true)
    local text = helper.read_file(dir .. "/o/correlate.csv")
    assert.matches("# failed: " .. path .. ":2: model sim-gto: sim: kernel 'big' does not fit", text, 1, true)
    local doc = assert(json.decode(helper.read_file(dir .. "/o/correlate.json")))
    assert.are.equal(1, doc.summary["sim-gto"].n)
    assert.are.equal(json.null, doc.rows[1].predicted["sim-gto"])
    os.execute("rm -rf " .. helper.shell_quote(dir))
  end)

  it("prints the JSON document with --json", function()
    local path, dir = csv_file("kernel,grid,block,cycles,label\nempty,1024,256,5055,one\nempty,4096,256,8314,two\n")
    local code, out, err = helper.gpush_run { "correlate", path, "--config", "h100-pcie", "--json", "--quiet",
      "--out", dir .. "/o" }
    assert.are.equal(0, code, err)
    local doc = assert(json.decode(out))
    assert.are.same({ "sim-gto", "gpumech-gto" }, doc.models)
    assert.are.equal(2, doc.summary["sim-gto"].n)
    assert.are.equal(2, #doc.rows)
    assert.are.equal("one", doc.rows[1].label)
    assert.are.equal(5055, doc.rows[1].measured)
    assert.is_number(doc.rows[1].predicted["gpumech-gto"])
    assert.are.equal(out, helper.read_file(dir .. "/o/correlate.json"))
    os.execute("rm -rf " .. helper.shell_quote(dir))
  end)
end)
