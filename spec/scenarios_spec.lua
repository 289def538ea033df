-- The shipped scenarios run from the command line.
local helper = require "spec_helper"

describe("scenarios/kepler_sweep.lua", function()
  it("sweeps 54 points x 2 policies with GPUMech and writes CSV, JSON and Markdown", function()
    local dir = helper.temp_dir()
    local code, out, err = helper.gpush_run { "scenarios/kepler_sweep.lua", "--traces", "suite:pointer_chase",
      "--out", dir, "--quiet" }
    assert.are.equal(0, code, err)
    assert.are.equal("", err) -- --quiet
    assert.are.equal("", out)
    local csv = helper.read_file(dir .. "/kepler_sweep.csv")
    local rows = 0
    for line in csv:gmatch("[^\n]+") do
      if line:match("^suite:pointer_chase,pointer_chase,") then
        rows = rows + 1
      end
    end
    assert.are.equal(108, rows)
    assert.matches("# gpush: %d+%.%d+%.%d+\n", csv)
    assert.matches("# base: gtx660ti %(config hash %x+%)", csv)
    assert.matches("workload,kernel,launch,model,warps_per_sm,mshrs,dram_gbs,cycles,time_us,ipc,cpi,cpi_base,cpi_dep,"
      .. "cpi_l1,cpi_l2,cpi_dram,cpi_mshr,cpi_queue,achieved_gbs,dram_util,dominant,waves,warnings,config_hash,trace_hash",
      csv, 1, true)
    -- more DRAM bandwidth never slower at a fixed (warps, MSHRs) point
    local by = {}
    for line in csv:gmatch("[^\n]+") do
      local model, w, m, b, cycles = line:match("^suite:pointer_chase,pointer_chase,1,gpumech%-(%a+),(%d+),(%d+),(%d+),([%d.]+),")
      if model then
        by[model .. w .. "/" .. m .. "/" .. b] = tonumber(cycles)
      end
    end
    assert.is_true(by["rr64/32/192"] <= by["rr64/32/96"])
    local md = helper.read_file(dir .. "/kepler_sweep.md")
    assert.matches("1 kernels x 54 points", md, 1, true)
    assert.matches("| pointer_chase | gpumech-rr | ", md, 1, true)
    assert.matches("| pointer_chase | gpumech-gto | ", md, 1, true)
    assert.matches('"format": "gpush.results/1"', helper.read_file(dir .. "/kepler_sweep.json"), 1, true)
    os.execute("rm -rf " .. dir)
  end)

  it("prints the summary, reports progress on stderr, applies -p to every point and rejects bad arguments", function()
    local dir = helper.temp_dir()
    local code, out, err = helper.gpush_run { "scenarios/kepler_sweep.lua", "--traces", "suite:sfu_heavy",
      "--out", dir, "-p", "clock.core_mhz=1200", "--jobs", "1" }
    assert.are.equal(0, code, err)
    assert.matches("| sfu_heavy | gpumech-gto | ", out, 1, true)
    assert.matches("kepler_sweep: 108 of 108 done in", err, 1, true)
    assert.matches("# base: gtx660ti clock.core_mhz=1200 (config hash", helper.read_file(dir .. "/kepler_sweep.csv"),
      1, true)
    code, _, err = helper.gpush_run { "scenarios/kepler_sweep.lua", "--bogus" }
    assert.are.equal(2, code)
    assert.matches("unknown option '--bogus'", err, 1, true)
    code, _, err = helper.gpush_run { "scenarios/kepler_sweep.lua", "--shard", "3/2" }
    assert.are.equal(2, code)
    assert.matches("--shard expects I/N with 1 <= I <= N, got '3/2'", err, 1, true)
    code, _, err = helper.gpush_run { "scenarios/kepler_sweep.lua", "-p", "l1.mshrs=0", "--out", dir }
    assert.are.equal(1, code)
    assert.matches("-p l1.mshrs=0: parameter 'l1.mshrs' of 'gtx660ti'", err, 1, true)
    os.execute("rm -rf " .. dir)
  end)
end)

describe("gpush scenarios", function()
  it("lists the scenarios with their first-line descriptions", function()
    local code, out = helper.gpush_run { "scenarios" }
    assert.are.equal(0, code)
    assert.matches("kepler_sweep%.lua%s+Kepler design sweep: warps/SM x MSHRs x DRAM bandwidth", out)
    local code2, _, err = helper.gpush_run { "scenarios", "/nonexistent" }
    assert.are.equal(1, code2)
    assert.matches("no scenarios folder found at /nonexistent", err, 1, true)
  end)
end)
