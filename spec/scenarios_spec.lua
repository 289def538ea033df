-- The shipped scenarios run from the command line.
local helper = require "spec_helper"

describe("scenarios/kepler_sweep.lua", function()
  local results = require "gpush.results"

  it("sweeps 54 points x GPUMech RR, GTO, the simulator, the M-core and the bounds and writes CSV, JSON, Markdown and SVG",
    function()
    local dir = helper.temp_dir()
    local code, out, err = helper.gpush_run { "scenarios/kepler_sweep.lua", "--traces", "suite:divergent_gather",
      "--out", dir, "--quiet" }
    assert.are.equal(0, code, err)
    assert.are.equal("", err) -- --quiet
    assert.are.equal("", out)
    local csv = helper.read_file(dir .. "/kepler_sweep.csv")
    assert.matches("# gpush: %d+%.%d+%.%d+\n", csv)
    assert.matches("# base: gtx660ti %(config hash %x+%)", csv)
    assert.matches("workload,kernel,launch,model,warps_per_sm,mshrs,dram_gbs,cycles,time_us,ipc,cpi,cpi_base,cpi_dep,"
      .. "cpi_l1,cpi_l2,cpi_dram,cpi_mshr,cpi_queue,cpi_l2bw,cpi_sfu,cpi_fp64,cpi_pipe,cpi_lsu,cpi_bank,achieved_gbs,"
      .. "dram_util,dominant,bottleneck,bottleneck_detail,bound,waves,warnings,stall_issued,"
      .. "stall_dependence,stall_memory,stall_lsu_busy,stall_sfu_busy,stall_unit_busy,stall_barrier,"
      .. "stall_no_eligible_warp,stall_idle,active_cpi,idle_share,active_issued,active_dependence,active_memory,"
      .. "active_lsu_busy,active_sfu_busy,active_unit_busy,active_barrier,active_no_eligible_warp,sampled,simulated_blocks,"
      .. "comp,mem,control,overlap,mwp,cwp,bounds.issue,bounds.int,bounds.fma,"
      .. "bounds.fp64,bounds.sfu,bounds.tensor,bounds.uniform,bounds.control,bounds.shared,bounds.lsu,bounds.l2,"
      .. "bounds.dram,bounds.mshr,bounds.latency,bounds.blocks,bounds.dispatch,"
      -- GPUMech's in a sweep that samples (docs/experiments.md, "Sampling")
      .. "replayed_blocks,config_hash,trace_hash", csv, 1, true)
    local t = assert(results.read_csv(dir .. "/kepler_sweep.csv"))
    assert.are.equal(270, #t.rows)
    local per_model, by = {}, {}
    local vocabulary = require "gpush.models.vocabulary"
    for _, row in ipairs(t.rows) do
      assert.are.equal("divergent_gather", row.kernel)
      -- every model names its bottleneck in the one vocabulary, with its own category beside it
      assert.is_true(vocabulary.is_label(row.bottleneck), row.model .. " " .. tostring(row.bottleneck))
      assert.is_true(type(row.bottleneck_detail) == "string" and #row.bottleneck_detail > 0, row.model)
      per_model[row.model] = (per_model[row.model] or 0) + 1
      by[("%s %d/%d/%d"):format(row.model, row.warps_per_sm, row.mshrs, row.dram_gbs)] = row
      if row.model == "sim-gto" then
        -- the stall shares split every scheduler cycle; the bottleneck is a stall label, never BASE here
        local sum = 0
        for _, reason in ipairs { "issued", "dependence", "memory", "lsu_busy", "sfu_busy", "unit_busy", "barrier",
          "no_eligible_warp", "idle" } do
          assert.is_true(row["stall_" .. reason] >= 0)
          sum = sum + row["stall_" .. reason]
        end
        assert.is_near(1, sum, 1e-12)
        assert.is_truthy(({ DEP = true, MEM = true, LSU = true, SFU = true, UNIT = true, BARRIER = true,
          NO_WARP = true, IDLE = true })[row.dominant], row.dominant)
        assert.is_nil(row.cpi_base)
      elseif row.model == "mcore" then
        -- Blem's M-core: cycles = comp + mem + control - overlap, its bottleneck MEM or COMP
        assert.is_near(row.cycles, row.comp + row.mem + row.control - row.overlap, 1e-6 * row.cycles)
        assert.is_truthy(({ MEM = true, COMP = true })[row.dominant], row.dominant)
        assert.is_nil(row.cpi_base)
        assert.is_nil(row.stall_issued)
      else
        assert.is_nil(row.stall_issued)
      end
    end
    assert.are.same({ ["gpumech-rr"] = 54, ["gpumech-gto"] = 54, ["sim-gto"] = 54, mcore = 54, bounds = 54 },
      per_model)
    -- neither the simulator nor the M-core beats the bounds at any point
    for key, row in pairs(by) do
      if row.model == "sim-gto" or row.model == "mcore" then
        assert.is_true(row.cycles >= by["bounds " .. key:match("%S+$")].cycles, key)
      end
    end
    -- divergent_gather on gtx660ti: the MSHRs are the expected limiter (Little's law on the
    -- functional replay's requests); the hard bound that binds is mshr too.  The hard mshr and
    -- dram bounds both count each of the table's lines once (docs/bounds.md): before the hard
    -- DRAM bytes (issue 19) dram bound here with the replay's 33,371 cycles of rereads, which
    -- another order of the same loads need not make (now 5,822)
    assert.are.equal("MSHR", by["bounds 64/64/144"].dominant)
    assert.are.equal("mshr", by["bounds 64/64/144"].bound)
    -- more DRAM bandwidth never slower at a fixed (warps, MSHRs) point, in either model
    assert.is_true(by["gpumech-rr 64/32/192"].cycles <= by["gpumech-rr 64/32/96"].cycles)
    assert.is_true(by["mcore 64/32/192"].cycles <= by["mcore 64/32/96"].cycles)
    -- divergent_gather waits on memory at the preset's point in the simulator and the M-core
    assert.are.equal("MEM", by["sim-gto 64/64/144"].dominant)
    assert.are.equal("MEM", by["mcore 64/64/144"].dominant)
    local md = helper.read_file(dir .. "/kepler_sweep.md")
    assert.matches("1 kernels x 54 points", md, 1, true)
    assert.matches("x 5 models = 270 results, 0 failed", md, 1, true)
    assert.matches("| divergent_gather | gpumech-rr | ", md, 1, true)
    assert.matches("| divergent_gather | gpumech-gto | ", md, 1, true)
    assert.matches("| divergent_gather | mcore | ", md, 1, true)
    -- every row names its bottleneck in the shared vocabulary at the baseline and the best point, the
    -- model's own category in brackets: the simulator waits for loads (it does not measure MSHR
    -- queueing: LATENCY), GPUMech, the M-core and the bounds' expected resource name the MSHRs
    assert.matches("| divergent_gather | sim%-gto | [%d.]+ | LATENCY %(MEM%) | %d+, %d+, %d+ | [%d.]+ | [%d.]+x | "
      .. "%u+ %([%w_]+%) |", md)
    assert.matches("| divergent_gather | bounds | [%d.]+ | MSHR %(MSHR%) | %d+, %d+, %d+ | [%d.]+ | [%d.]+x | "
      .. "%u+ %([%w_]+%) |", md)
    assert.matches("| divergent_gather | gpumech%-gto | [%d.]+ | MSHR %(MSHR%) |", md)
    assert.matches("| divergent_gather | mcore | [%d.]+ | MSHR %(mwp_mshr%) |", md)
    -- the vocabulary is stated in the summary, from the one place it is defined
    for _, line in ipairs(vocabulary.lines("- ")) do
      assert.matches(line, md, 1, true)
    end
    assert.matches('"format": "gpush.results/1"', helper.read_file(dir .. "/kepler_sweep.json"), 1, true)
    -- the simulator's stall stacks: one bar per warps/SM value at the baseline (64 MSHRs, 144 GB/s), the
    -- row's shares of the active scheduler cycles, summing to 1 each, idle apart (a marker)
    local svg = helper.read_file(dir .. "/kepler_sweep_stalls_sim-gto.svg")
    assert.matches("Stall stacks, sim-gto at mshrs 64, dram_gbs 144", svg, 1, true)
    assert.matches("share of active scheduler cycles", svg, 1, true)
    assert.is_nil(svg:find('data-category="IDLE"', 1, true))
    local drawn, bars = {}, 0
    for category, value in svg:gmatch('class="segment" data%-category="(%u[%u_]*)" data%-value="([^"]+)"') do
      drawn[category] = (drawn[category] or 0) + tonumber(value)
      bars = bars + (category == "BASE" and 1 or 0)
    end
    assert.are.equal(6, bars)
    local base, mem = 0, 0
    for _, w in ipairs { 8, 16, 24, 32, 48, 64 } do
      base = base + by[("sim-gto %d/64/144"):format(w)].active_issued
      mem = mem + by[("sim-gto %d/64/144"):format(w)].active_memory
    end
    assert.is_near(base, drawn.BASE, 1e-5)
    assert.is_near(mem, drawn.MEM, 1e-5)
    local total = 0
    for _, v in pairs(drawn) do
      total = total + v
    end
    assert.is_near(6, total, 1e-4)
    assert.matches('data-category="MEM"', svg, 1, true)
    assert.is_nil(svg:find('data-category="L2"', 1, true))
    for _, name in ipairs { "cpi_gpumech-rr", "cpi_gpumech-gto", "cycles", "heatmap_divergent_gather_1", "roofline" } do
      assert.matches("<svg", helper.read_file(("%s/kepler_sweep_%s.svg"):format(dir, name)), 1, true)
    end
    assert.is_nil(io.open(dir .. "/kepler_sweep_cpi_sim-gto.svg"))
    os.execute("rm -rf " .. dir)
  end)

  it("prints the summary, reports progress on stderr, applies -p to every point and rejects bad arguments", function()
    local dir = helper.temp_dir()
    local code, out, err = helper.gpush_run { "scenarios/kepler_sweep.lua", "--traces", "suite:divergent_gather",
      "--out", dir, "-p", "clock.core_mhz=1200", "--jobs", "1" }
    assert.are.equal(0, code, err)
    assert.matches("| divergent_gather | gpumech-gto | ", out, 1, true)
    assert.matches("| divergent_gather | sim-gto | ", out, 1, true)
    assert.matches("| divergent_gather | mcore | ", out, 1, true)
    assert.matches("kepler_sweep: 270 of 270 done in", err, 1, true)
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
  it("lists the scenarios by name, aligned, each with its whole description", function()
    local code, out = helper.gpush_run { "scenarios" }
    assert.are.equal(0, code)
    assert.matches("\nkepler_sweep%s+Kepler design sweep: warps/SM x MSHRs x DRAM bandwidth", "\n" .. out)
    -- every scenario, with its first comment paragraph whole (wrapped under its first line)
    local scenarios = require "gpush.cmd.scenarios"
    local flat = out:gsub("\n%s+", " ")
    local listed, column = 0, nil
    for _, name in ipairs(assert(require("gpush.core").list_dir("scenarios"))) do
      if name:match("%.lua$") then
        local bare = name:gsub("%.lua$", "")
        local description = scenarios.description("scenarios/" .. name)
        assert.is_true(#description > 20, name)
        assert.is_truthy(flat:find(bare .. " ", 1, true) and flat:find(description, 1, true), name)
        -- every description starts in the same column
        local line = out:match("\n(" .. bare:gsub("%p", "%%%0") .. " +)") or out:match("^(" .. bare:gsub("%p", "%%%0") .. " +)")
        column = column or #line
        assert.are.equal(column, #line, name)
        listed = listed + 1
      end
    end
    assert.is_true(listed >= 3)
    -- a description longer than one line is not cut: gpumech_scaling's runs on to its end
    assert.matches("the category that grows%.", flat)
    local code2, _, err = helper.gpush_run { "scenarios", "/nonexistent" }
    assert.are.equal(1, code2)
    assert.matches("no scenarios folder found at /nonexistent", err, 1, true)
  end)
end)

describe("gpush run", function()
  it("runs a scenario by name with its arguments, and suggests a name it does not know", function()
    local code, out = helper.gpush_run { "run", "report_gallery", "--help" }
    assert.are.equal(0, code)
    assert.matches("^usage: gpush scenarios/report_gallery.lua ", out)
    code, out = helper.gpush_run { "run", "kepler_sweep.lua", "--bogus" }
    assert.are.equal(2, code)
    local err
    code, _, err = helper.gpush_run { "run", "kepler_swep" }
    assert.are.equal(2, code)
    assert.matches("gpush run: no scenario 'kepler_swep' (did you mean 'kepler_sweep'?); the scenarios: ", err, 1, true)
    code, _, err = helper.gpush_run { "run" }
    assert.are.equal(2, code)
    assert.matches("usage: gpush run NAME", err, 1, true)
  end)
end)
