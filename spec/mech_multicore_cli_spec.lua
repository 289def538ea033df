-- gpush multicore, gpush darksilicon and scenarios/darksilicon.lua from the
-- command line.
local helper = require "spec_helper"
local json = require "gpush.json"

describe("gpush multicore", function()
  it("prints the best r, cores and speedup per topology", function()
    local code, out, err = helper.gpush_run { "multicore", "--f", "0.975", "--n", "256" }
    assert.are.equal(0, code, err)
    assert.matches("symmetric%s+6%.%d+%s+3%d%s+51%.2%d", out)
    assert.matches("asymmetric%s+%d+%.%d+%s+%d+%s+125%.0%d", out)
    assert.matches("dynamic%s+256%.00%s+256%s+186%.18", out)
    assert.matches("Amdahl (n one-BCE cores): 34.71", out, 1, true)
  end)

  it("prints one JSON object per topology; Amdahl's 72.1 at f = 0.99 on 256 cores is r = 1's value", function()
    local code, out, err = helper.gpush_run { "multicore", "--f", "0.975", "--n", "256", "--json" }
    assert.are.equal(0, code, err)
    local rows = assert(json.decode(out))
    assert.are.equal(3, #rows)
    local by = {}
    for _, r in ipairs(rows) do
      for _, key in ipairs { "topology", "best_r", "cores", "speedup", "f", "n" } do
        assert.is_not_nil(r[key], key)
      end
      by[r.topology] = r
    end
    assert.is_near(51.2, by.symmetric.speedup, 0.05) -- the speedup, not the (flat) core count
    assert.is_near(125, by.asymmetric.speedup, 1)
    code, out = helper.gpush_run { "multicore", "--f", "0.5", "--n", "16", "--topology", "symmetric", "--json" }
    assert.are.equal(0, code)
    rows = assert(json.decode(out))
    assert.are.equal(1, #rows)
    assert.is_near(4, rows[1].speedup, 1e-9)
    assert.are.equal(1, rows[1].cores)
    code, out = helper.gpush_run { "multicore", "--f", "0.99", "--n", "256" }
    assert.matches("Amdahl (n one-BCE cores): 72.11", out, 1, true)
  end)

  it("rejects bad input with the usage and exit code 2", function()
    for _, case in ipairs {
      { { "multicore", "--f", "0.9" }, "give --f and --n" },
      { { "multicore", "--f", "1.2", "--n", "16" }, "--f must be a parallel fraction in [0, 1], got '1.2'" },
      { { "multicore", "--f", "0.9", "--n", "zero" }, "--n must be a number of BCEs in [1, 1e7], got 'zero'" },
      { { "multicore", "--f", "0.9", "--n", "1.5" }, "--n must be a whole number of BCEs" },
      { { "multicore", "--f", "0.9", "--n", "16", "--topology", "fused" }, "fused chips have no Hill-Marty formula" },
      { { "multicore", "--f", "0.9", "--n", "16", "--topology", "ring" }, "--topology must be symmetric, asymmetric" },
      { { "multicore", "--bogus" }, "unknown option '--bogus'" },
    } do
      local code, _, err = helper.gpush_run(case[1])
      assert.are.equal(2, code)
      assert.matches(case[2], err, 1, true)
      assert.matches("usage: gpush multicore", err, 1, true)
    end
  end)
end)

describe("gpush darksilicon", function()
  it("prints one JSON object per node with the projection's fields", function()
    local code, out, err = helper.gpush_run { "darksilicon", "--json" }
    assert.are.equal(0, code, err)
    local rows = assert(json.decode(out))
    assert.are.equal(6, #rows)
    local nodes = {}
    for i, r in ipairs(rows) do
      for _, key in ipairs { "node_nm", "speedup", "dark_fraction", "dark_tied", "band", "cores", "topology",
        "organization", "scaling", "benchmarks" } do
        assert.is_not_nil(r[key], key)
      end
      assert.are.equal("itrs", r.scaling)
      assert.are.equal(12, #r.benchmarks)
      assert.is_true(r.band.speedup[1] <= r.speedup and r.speedup <= r.band.speedup[2])
      nodes[i] = r.node_nm
    end
    assert.are.same({ 45, 32, 22, 16, 11, 8 }, nodes)
    assert.is_near(6.641, rows[6].speedup, 0.001)
    assert.is_near(0.048, rows[3].dark_fraction, 0.001)
    assert.is_near(18.186, rows[6].band.speedup[2], 0.001) -- BW_max = 200 GB/s
    assert.are.equal(4, #rows[6].band.runs)
  end)

  it("prints the table for a scaling and lets -p override an assumption", function()
    local code, out, err = helper.gpush_run { "darksilicon", "--scaling", "conservative", "-p", "power_w=60", "--detail",
      "--no-band" }
    assert.are.equal(0, code, err)
    assert.matches("Dark silicon, conservative scaling: 12 benchmarks", out, 1, true)
    assert.matches("budgets 111 mm^2, 60 W", out, 1, true)
    assert.matches("\n   8 ", out, 1, true)
    assert.matches("streamcluster", out, 1, true)
    assert.matches("(tied ", out, 1, true)
    -- the band, next to each projection
    code, out, err = helper.gpush_run { "darksilicon" }
    assert.are.equal(0, code, err)
    assert.matches("\n   8     6.64 [4.37-18.19]      32% [1%-69%]", out, 1, true)
    assert.matches("bandwidth_gbs    21-200", out, 1, true)
    assert.matches("band: bandwidth_gbs = 200", err, 1, true) -- progress on stderr
    code, out = helper.gpush_run { "darksilicon", "--params" }
    assert.are.equal(0, code)
    assert.matches("power_w%s+125%s+W%s+Chip power budget", out)
  end)

  it("reads benchmarks from a CSV file and reports a bad one with file and line", function()
    local path = helper.write_temp("name,f,r_ls,alpha_l1,beta_l1,alpha_l2,beta_l2\nk,0.99,0.2,1.5,300,2,9000\n", ".csv")
    local code, out, err = helper.gpush_run { "darksilicon", "--benchmarks", path, "--json" }
    assert.are.equal(0, code, err)
    local rows = assert(json.decode(out))
    assert.are.equal("k", rows[1].benchmarks[1].benchmark)
    local bad = helper.write_temp("name,f,r_ls,alpha_l1,beta_l1,alpha_l2,beta_l2\nk,0.99,2,1.5,300,2,9000\n", ".csv")
    code, _, err = helper.gpush_run { "darksilicon", "--benchmarks", bad }
    assert.are.equal(1, code)
    assert.matches(bad .. ":2: r_ls must be a number in [0, 1] (a fraction of the instructions), got '2'", err, 1, true)
    local inverted = helper.write_temp("name,f,r_ls,alpha_l1,beta_l1,alpha_l2,beta_l2\nk,0.99,0.2,0.5,300,2,9000\n",
      ".csv")
    code, _, err = helper.gpush_run { "darksilicon", "--benchmarks", inverted }
    assert.are.equal(1, code)
    assert.matches(":2: alpha_l1 must be a number in [1, 100]", err, 1, true)
  end)

  it("rejects bad options with exit code 2", function()
    for _, case in ipairs {
      { { "darksilicon", "--scaling", "moore" }, "--scaling must be itrs, conservative or both, got 'moore'" },
      { { "darksilicon", "-p", "tdp=3" }, "unknown parameter 'tdp'" },
      { { "darksilicon", "-p", "power_w=-1" }, "parameter 'power_w': expected a number from 0.01 to 100000 W, got '-1'" },
      { { "darksilicon", "-p", "l2_share=0.9" }, "unknown parameter 'l2_share'" },
      { { "darksilicon", "-p", "clock_min_ghz=5" }, "clock_min_ghz (5 GHz) must not be above clock_max_ghz" },
      { { "darksilicon", "-p", "power_w" }, "-p needs name=value, got 'power_w'" },
    } do
      local code, _, err = helper.gpush_run(case[1])
      assert.are.equal(2, code)
      assert.matches(case[2], err, 1, true)
    end
  end)
end)

describe("scenarios/darksilicon.lua", function()
  it("writes the tables, the report with the published figures and the SVG plots", function()
    local dir = helper.temp_dir()
    local code, out, err = helper.gpush_run { "scenarios/darksilicon.lua", "--out", dir, "--quiet", "--noise-seeds", "1" }
    assert.are.equal(0, code, err)
    assert.are.equal("", out)
    assert.are.equal("", err)
    local md = helper.read_file(dir .. "/darksilicon.md")
    assert.matches("| 8 nm geometric-mean speedup, ITRS | 7.9x | 6.64x | 4.37x - 18.19x |  | yes |", md, 1, true)
    assert.matches("| 8 nm geometric-mean speedup, conservative | 3.7x | 4.70x | 3.56x - 6.72x |  | no |", md, 1, true)
    assert.matches("| dark fraction at 22 nm, ITRS | 21% (target 10-35%) | 5% | 1% - 18% | 5% - 5% | no |", md, 1, true)
    assert.matches("| dark fraction at 8 nm, ITRS | > 50% | 32% | 1% - 69% | 32% - 66% | no |", md, 1, true)
    assert.matches("| dark fraction at 8 nm, ITRS | 32% | 1% | 6% | 69% | 32% |", md, 1, true)
    assert.matches("| 22 nm ITRS | 21% | 18.4 |", md, 1, true)
    assert.matches("Fig. 4.16; 111 mm^2, 125 W", md, 1, true)
    assert.matches("## Chapters 4-5 variant with the custom core models (gpush suite kernels)", md, 1, true)
    assert.matches("| itrs | S-cores | 6.80 |", md, 1, true)
    assert.matches("| L1414 | initially (45 nm) every chip is area-constrained | all area-limited | all area-limited | yes",
      md, 1, true)
    assert.matches("## Assumed inputs", md, 1, true)
    assert.matches("| power_w | 125 | W |", md, 1, true)
    local nodes = helper.read_file(dir .. "/darksilicon_nodes.csv")
    assert.matches("\nitrs,8,6.6407", nodes, 1, true)
    assert.matches("\nconservative,45,", nodes, 1, true)
    local detail = helper.read_file(dir .. "/darksilicon.csv")
    local rows = 0
    for _ in detail:gmatch("\n[ic][to][rn][%a]*,%d+,") do
      rows = rows + 1
    end
    assert.are.equal(2 * 6 * 12, rows)
    for _, plot in ipairs { "speedup", "dark", "cores", "l2", "smt", "bandwidth", "counts" } do
      local text = helper.read_file(dir .. "/darksilicon_" .. plot .. ".svg")
      assert.matches("^<svg", text)
      assert.matches("</svg>\n?$", text)
    end
    assert.matches('data-label="itrs"', helper.read_file(dir .. "/darksilicon_speedup.svg"), 1, true)
    assert.matches('data-label="2x per generation"', helper.read_file(dir .. "/darksilicon_speedup.svg"), 1, true)
    os.execute("rm -rf " .. helper.shell_quote(dir))
  end)
end)

describe("scenarios/translate.lua", function()
  it("translates saxpy S -> M with and without the unroll factor and gpush kernels M -> S and back", function()
    local code, out, err = helper.gpush_run { "scenarios/translate.lua", "--kernels", "stream_triad,divergent_loop" }
    assert.are.equal(0, code, err)
    assert.matches("| gpush, unroll 1 | 8000 | 1000 | 0 | 20 | 4 | 2 |", out, 1, true)
    assert.matches("| gpush, unroll 4 | 32000 | 4000 | 0 | 5 | 1 | 0.5 |", out, 1, true)
    -- the regime suite's stream_triad: 16384 warps of 8 trips of 9 instructions and EXIT
    assert.matches("| stream_triad | 16384 / 16384 | 73 | 73 | 24 | 24 | 0 | 0 |", out, 1, true)
    assert.matches("| stream_triad | Sandybridge (OoO) | 9568256 | 6.2 |", out, 1, true)
    -- both sides predicted with the custom core models: saxpy on the FX 580 (translated), kernels measured
    assert.matches("| saxpy | Sandybridge | [%d.e-]+ | quadro%-fx580 | translated %(unroll 4%), no paths module | [%d.e-]+ |", out)
    assert.matches("| stream_triad | Sandybridge | [%d.e-]+ | gtx660ti | measured | [%d.e-]+ | [%d.]+x |", out)
    code, out = helper.gpush_run { "scenarios/translate.lua", "--kernels", "sfu_heavy", "--json" }
    assert.are.equal(0, code)
    local records = assert(json.decode(out))
    assert.are.equal(8000, records.saxpy.m_unroll1.warps)
    assert.are.equal(48, records.sfu_heavy.m.N_SFU) -- 12 trips of 4 MUFU
    code, _, err = helper.gpush_run { "scenarios/translate.lua", "--kernels", "nope" }
    assert.are.equal(1, code)
    assert.matches("no suite kernel 'nope'", err, 1, true)
  end)
end)
