-- gpush.ml.probe: the CU probe (a second base run at about a quarter of the
-- base's CUs, docs/ml.md): where it is made, its input by hand, the
-- dataset augmented with it, a prediction that needs it (the CSV columns,
-- their errors), and kernels whose counters cannot tell their CU scaling
-- apart: predicted exactly with the probe, not without it.
local dataset = require "gpush.ml.dataset"
local evaluate = require "gpush.ml.evaluate"
local probe = require "gpush.ml.probe"
local surface = require "gpush.models.surface"
local helper = require "spec_helper"

-- Three families that differ only in how they scale with CUs: time =
-- scale x 100 / CUs^a x 600 / engine MHz, a = 1, 0.5 and 0 (families A, B,
-- C); power = scale x CUs^(a/2).  Their one counter is the kernel's
-- number, which says nothing about a.
local EXPONENT = { A = 1, B = 0.5, C = 0 }
local GRID = { cus = { 4, 8, 16 }, core_mhz = { 300, 600 }, mem_mhz = { 500, 1000 } }

local function time_of(family, scale, c, e)
  return scale * 100 / c ^ EXPONENT[family] * 600 / e
end

local function power_of(family, scale, c)
  return scale * c ^ (EXPONENT[family] / 2)
end

local function families_csv()
  local lines = { "kernel,family,cus,core_mhz,mem_mhz,time_us,power_w,VALUInsts" }
  local n = 0
  for _, f in ipairs { "A", "B", "C" } do
    for v = 1, 4 do
      n = n + 1
      for _, c in ipairs(GRID.cus) do
        for _, e in ipairs(GRID.core_mhz) do
          for _, m in ipairs(GRID.mem_mhz) do
            lines[#lines + 1] = ("%s.v%d,%s,%d,%d,%d,%.17g,%.17g,%d"):format(f, v, f, c, e, m,
              time_of(f, v, c, e), power_of(f, v, c), (n * 7) % 12)
          end
        end
      end
    end
  end
  return table.concat(lines, "\n") .. "\n"
end

describe("gpush.ml.probe", function()
  it("probes at the largest CU count at most a quarter of the base's, else the fewest, else the next up", function()
    local cus = { 4, 8, 12, 16, 20, 24, 28, 32 }
    local want = { [4] = 8, [8] = 4, [12] = 4, [16] = 4, [20] = 4, [24] = 4, [28] = 4, [32] = 8 }
    for base, probe_cus in pairs(want) do
      assert.are.equal(probe_cus, probe.cus(cus, base), "base " .. base)
    end
    assert.are.equal(8, probe.cus({ 8, 32 }, 32)) -- the ci grid
    assert.are.equal(32, probe.cus({ 8, 32 }, 8))
    assert.is_nil(probe.cus({ 16 }, 16))
  end)

  it("computes the CU exponent by hand, the same on either side of the base", function()
    -- 32 CUs 10 us, 8 CUs 40 us: four times the CUs, four times as fast: exponent 1
    assert.are.equal(1, probe.exponent(32, 8, 10, 40))
    assert.are.equal(0, probe.exponent(32, 8, 10, 10)) -- CUs do not matter
    assert.is_true(math.abs(probe.exponent(32, 8, 10, 20) - 0.5) < 1e-15) -- 2x for 4x: ln 2 / ln 4
    -- probed above the base (the grid's fewest CUs): 4 CUs 10 us, 8 CUs 5 us: exponent 1 again
    assert.are.equal(1, probe.exponent(4, 8, 10, 5))
  end)

  local ds = assert(dataset.from_csv(families_csv(), "families.csv"))

  it("adds each quantity's exponent to every configuration, leaving the dataset as it was", function()
    local probed = assert(probe.augment(ds))
    assert.are.same({ "VALUInsts", "CUProbeTime", "CUProbeTimeSquared", "CUProbePower" }, probed.features)
    assert.are.same({ "VALUInsts" }, ds.features)
    for k, name in ipairs(ds.kernels) do
      local a = EXPONENT[name:sub(1, 1)]
      for g = 1, ds:config_count() do
        local values = probed:counters_at(k, g)
        assert.are.equal(ds:counters_at(k, g)[1], values[1])
        assert.is_true(math.abs(values[2] - a) < 1e-12, name .. " time " .. values[2])
        assert.is_true(math.abs(values[3] - a * a) < 1e-12, name .. " time squared " .. values[3])
        assert.is_true(math.abs(values[4] + a / 2) < 1e-12, name .. " power " .. values[4])
      end
    end
    local one_cu = assert(dataset.from_csv(families_csv():gsub("\n[^\n]*,[48],[36]00,[^\n]*", ""), "one.csv"))
    local _, err = probe.augment(one_cu)
    assert.matches("the CU probe needs at least two CU counts on the grid; one.csv has only 16 (use the paper's one "
      .. "base run: --cu-probe none)", err, 1, true)
    assert.has_error(function() evaluate.run(one_cu, { bases = "all", jobs = 1, quiet = true }) end)
  end)

  it("predicts kernels whose counters hide their CU scaling exactly with the probe, not without it", function()
    local base = { cus = 16, core_mhz = 600, mem_mhz = 1000 }
    local target = { cus = 4, core_mhz = 300, mem_mhz = 500 }
    local with = assert(surface.train(assert(probe.augment(ds)), { k = 3, base = base, groups = false }))
    local without = assert(surface.train(ds, { k = 3, base = base, groups = false }))
    local worst_without = 0
    for _, name in ipairs(ds.kernels) do
      local f, v = name:sub(1, 1), tonumber(name:match("v(%d)"))
      local t_base, t_probe = time_of(f, v, 16, 600), time_of(f, v, 4, 600)
      local counters = { VALUInsts = ds:counters_at(ds:kernel_index(name), 1)[1],
        CUProbeTime = probe.exponent(16, 4, t_base, t_probe),
        CUProbePower = probe.exponent(16, 4, power_of(f, v, 16), power_of(f, v, 4)) }
      counters.CUProbeTimeSquared = counters.CUProbeTime ^ 2
      -- by hand: 4x fewer CUs and half the engine clock: 4^a x 2 times the base time
      local want = t_base * 4 ^ EXPONENT[f] * 2
      local got = assert(with:predict(counters, t_base, target))
      assert.is_true(math.abs(got / want - 1) < 1e-9, ("%s: %.17g, by hand %.17g"):format(name, got, want))
      local guess = assert(without:predict({ VALUInsts = counters.VALUInsts }, t_base, target))
      worst_without = math.max(worst_without, math.abs(guess / want - 1))
    end
    -- without the probe some family gets another family's CU scaling: 2x off (4^0.5) or more
    assert.is_true(worst_without > 0.4, worst_without)
  end)

  it("reads the probe's columns for a prediction and refuses them missing or measured elsewhere", function()
    local base = { cus = 16, core_mhz = 600, mem_mhz = 1000 }
    local spec = { cus = 4, columns = { "probe_time_us", "probe_power_w" } }
    local path = helper.write_temp("kernel,cus,time_us,power_w,probe_cus,probe_time_us,probe_power_w,VALUInsts\n"
      .. "a,16,2.5,40,4,10,20,3\nb,16,2.5,40,8,10,20,3\nc,16,2.5,40,,0,20,3\n", ".csv")
    local rows, err = dataset.read_base(path, { "VALUInsts" }, base, spec)
    assert.is_nil(rows)
    assert.matches(":3: column 'probe_cus' is 8, but the model's CU probe is at 4 CUs (base 16/600/1000): the "
      .. "second run must be made there", err, 1, true)
    assert.matches(":4: column 'probe_time_us': expected a positive number (the kernel at the base clocks with 4 "
      .. "CUs), got '0'", err, 1, true)
    assert.is_nil(err:match(":2:"))
    path = helper.write_temp("kernel,time_us,probe_time_us,VALUInsts\na,2.5,10,3\n", ".csv")
    rows, err = dataset.read_base(path, { "VALUInsts" }, base, spec)
    assert.is_nil(rows)
    assert.matches(":1: no 'probe_power_w' column: the model was trained with the CU probe (--cu-probe quarter) "
      .. "and needs the kernel measured a second time at the base clocks with 4 CUs (base 16/600/1000); train with "
      .. "--cu-probe none for the paper's one base run", err, 1, true)
    path = helper.write_temp("kernel,time_us,probe_time_us,probe_power_w,VALUInsts\na,2.5,10,20,3\n", ".csv")
    rows = assert(dataset.read_base(path, { "VALUInsts" }, base, spec))
    assert.are.same({ probe_time_us = 10, probe_power_w = 20 }, rows[1].probe)
  end)

  it("is the evaluation's default, and --cu-probe none is the paper's protocol", function()
    local bases = { { cus = 16, core_mhz = 600, mem_mhz = 1000 } }
    local o = { k = 3, folds = 3, bases = bases, jobs = 1, quiet = true }
    local default = evaluate.run(ds, o)
    o.cu_probe = "none"
    local paper = evaluate.run(ds, o)
    assert.are.equal("quarter", default.cu_probe)
    assert.are.equal("none", paper.cu_probe)
    -- by family: an unseen family's exponent lies between the others' (or beyond), so not exact, but the probe
    -- still beats counters that say nothing about CU scaling
    assert.is_true(default.mean.time < paper.mean.time, default.mean.time .. " vs " .. paper.mean.time)
    assert.has_error(function() evaluate.run(ds, { cu_probe = "half", bases = bases, jobs = 1, quiet = true }) end,
      "gpush.ml.evaluate: the CU probe must be quarter or none, got 'half'")
  end)
end)

describe("gpush.models.surface's sweep model with the CU probe", function()
  it("measures each kernel a second time, at the probe's CU count, and predicts from both runs", function()
    local ds = assert(dataset.from_csv(families_csv(), "families.csv"))
    local model = assert(surface.train(assert(probe.augment(ds)), { k = 3, groups = false,
      base = { cus = 16, core_mhz = 600, mem_mhz = 1000 } }))
    local runs = {}
    local sweep = surface.new { model = model, measure = function(kernel, cfg)
      runs[#runs + 1] = cfg.sm.count
      return { time_us = time_of("B", 2, cfg.sm.count, cfg.clock.core_mhz), power_w = power_of("B", 2, cfg.sm.count),
        counters = { VALUInsts = 3 } }
    end }
    local measured = assert(sweep.prepare("B.v2", assert(require("gpush.config").load("hd7970"))))
    assert.are.same({ 16, 4 }, runs) -- the base, then the probe at a quarter of its CUs
    assert.is_true(math.abs(measured.counters.CUProbeTime - 0.5) < 1e-12)
    assert.is_true(math.abs(measured.counters.CUProbeTimeSquared - 0.25) < 1e-12)
    local target = assert(require("gpush.config").load("hd7970", { ["sm.count"] = 4, ["clock.core_mhz"] = 300,
      ["clock.mem_mhz"] = 500 }))
    local row = assert(sweep.run("B.v2", target, measured))
    local want = time_of("B", 2, 4, 300)
    assert.is_true(math.abs(row.time_us / want - 1) < 1e-9, row.time_us .. " vs " .. want)
  end)
end)
