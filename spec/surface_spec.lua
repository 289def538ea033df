-- gpush.models.surface (Wu et al.'s scaling surfaces) from Lua: the dataset
-- CSV and its errors, training and prediction on synthetic kernel families
-- with exact answers, the model file (bit-exact round trip, another version
-- refused), the activity power model by hand, and the Table II counters.
local surface = require "gpush.models.surface"
local dataset = require "gpush.ml.dataset"
local helper = require "spec_helper"

-- Three families on a 3 x 3 x 2 grid: compute-bound (work / (CUs x
-- engine)), bandwidth-bound (bytes / memory clock), and their max; each
-- kernel a multiple of its family's shape.  Counters tell the families
-- apart.  Power rises with the engine clock.
local function family_time(f, scale, c, e, m)
  local compute, memory = 4e4 / (c * e), 60 / m
  local t = f == 0 and compute or (f == 1 and memory or math.max(compute, memory))
  return t * scale
end

local GRID = { cus = { 4, 8, 16 }, core_mhz = { 300, 600, 900 }, mem_mhz = { 500, 1000 } }

local function family_csv(kernels, extra_line)
  local lines = { "# simulated: a spec's synthetic families",
    "kernel,cus,core_mhz,mem_mhz,time_us,power_w,VALUInsts,MemTime,launch" }
  for k = 1, kernels do
    local f = k % 3
    for _, c in ipairs(GRID.cus) do
      for _, e in ipairs(GRID.core_mhz) do
        for _, m in ipairs(GRID.mem_mhz) do
          lines[#lines + 1] = ("k%d,%d,%d,%d,%.17g,%.17g,%g,%g,%d"):format(k, c, e, m, family_time(f, k, c, e, m),
            40 + e / 10 + k, f == 0 and 0.9 or 0.2 + 0.01 * k, f == 1 and 0.9 or 0.1, k)
        end
      end
    end
  end
  if extra_line then
    lines[#lines + 1] = extra_line
  end
  return table.concat(lines, "\n") .. "\n"
end

describe("gpush.ml.dataset", function()
  it("reads a dataset CSV: grid, kernels, quantities, counters, the simulated marker", function()
    local ds = assert(dataset.from_csv(family_csv(6), "f.csv"))
    assert.are.same(GRID, ds.grid)
    assert.are.same({ "k1", "k2", "k3", "k4", "k5", "k6" }, ds.kernels)
    assert.are.same({ "VALUInsts", "MemTime" }, ds.features) -- Table II names only; 'launch' ignored
    assert.are.same({ "time", "power" }, ds.quantities)
    assert.are.equal("a spec's synthetic families", ds.simulated)
    assert.are.equal(18, ds:config_count())
    local g = ds:config_index(2, 3, 1) -- 8 CUs, 900 MHz, 500 MHz
    assert.are.same({ cus = 8, core_mhz = 900, mem_mhz = 500 }, ds:config(g))
    assert.are.equal(family_time(2 % 3, 2, 8, 900, 500), ds:value("time", 2, g))
    assert.are.same({ 0.22, 0.1 }, ds:counters_at(2, g))
    -- written back, it reads the same
    local again = assert(dataset.from_csv(ds:to_csv(), "again.csv"))
    assert.are.same(ds.values, again.values)
    assert.are.same(ds.counters, again.counters)
  end)

  it("names the file, the line and what was expected for bad input", function()
    local cases = {
      { "k1,4,300,500,abc,50,0.9,0.1,1", "f.csv:39: column 'time_us': expected a positive number (execution time in microseconds), got 'abc'" },
      { "k1,4,300,500,-2,50,0.9,0.1,1", "f.csv:39: column 'time_us': expected a positive number" },
      { "k1,4.5,300,500,1,50,0.9,0.1,1", "f.csv:39: column 'cus': expected a whole number of CUs (> 0), got '4.5'" },
      { "k1,4,300,500,1,50,x,0.1,1", "f.csv:39: column 'VALUInsts': expected a number or an empty cell, got 'x'" },
      { "k1,4,300,500,1", "f.csv:39: 5 fields, the header has 9" },
      { "k1,4,300,500,1,50,0.9,0.1,1", "f.csv:39: kernel 'k1' at cus=4 core_mhz=300 mem_mhz=500 is already on line 3" },
      { "k3,4,300,700,1,50,0.9,0.1,1", "f.csv: kernel 'k1' lacks 9 of the grid's 27 configurations, e.g. cus=4 "
        .. "core_mhz=300 mem_mhz=700" },
      { ",4,300,500,1,50,0.9,0.1,1", "f.csv:39: column 'kernel': expected a kernel name, got an empty cell" },
    }
    for _, case in ipairs(cases) do
      local ds, err = dataset.from_csv(family_csv(2, case[1]), "f.csv")
      assert.is_nil(ds)
      assert.is_truthy(err:find(case[2], 1, true), err)
    end
    local _, err = dataset.from_csv("kernel,cus,core_mhz,mem_mhz\n", "h.csv")
    assert.are.equal("h.csv:1: no 'time_us' column; a dataset needs kernel, cus, core_mhz, mem_mhz, time_us, "
      .. "optionally power_w and family, and counter columns (Table II names: VALUInsts, ...)", err)
    _, err = dataset.from_csv("kernel,cus,core_mhz,mem_mhz,time_us,other\n", "h.csv")
    assert.matches("^h.csv:1: no counter columns; expected some of Table II's VALUInsts, SALUInsts", err)
    _, err = dataset.from_csv('kernel,cus\n"k1,4\n', "q.csv")
    assert.are.equal("q.csv: line 2: unterminated quoted field", err)
    _, err = dataset.read_csv("/nonexistent/data.csv")
    assert.matches("/nonexistent/data.csv", err)
  end)

  it("reports every bad row, not only the first", function()
    local text = family_csv(2, "k1,4,300,500,abc,50,0.9,0.1,1\nk2,4,300,500,1,50,x,0.1,1")
    local _, err = dataset.from_csv(text, "f.csv")
    assert.matches("f.csv:39: column 'time_us'", err, 1, true)
    assert.matches("\nf.csv:40: column 'VALUInsts'", err, 1, true)
    local bad = {}
    for i = 1, 25 do
      bad[i] = ("k9,4,300,500,%d,50,0.9,0.1,1,extra"):format(i)
    end
    _, err = dataset.from_csv(family_csv(2, table.concat(bad, "\n")), "f.csv")
    local _, lines = err:gsub("\n", "")
    assert.are.equal(dataset.MAX_PROBLEMS, lines) -- 20 problems and a last line
    assert.matches("f.csv:58: 10 fields, the header has 9\n", err, 1, true)
    assert.matches("... and 5 more problems$", err)
  end)

  it("refuses a column that looks like a misspelt counter instead of dropping it without a word", function()
    local text = family_csv(3):gsub("VALUInsts", "VALUInst", 1)
    local ds, err = dataset.from_csv(text, "f.csv")
    assert.is_nil(ds)
    assert.are.equal("f.csv:2: column 'VALUInst' is not one of Table II's counters (did you mean 'VALUInsts'?); "
      .. "rename it, or give the counters to read explicitly", err)
    _, err = dataset.from_csv(family_csv(3):gsub("MemTime", "memtime", 1), "f.csv")
    assert.matches("column 'memtime' is not one of Table II's counters (did you mean 'MemTime'?)", err, 1, true)
    -- naming the counters explicitly reads the rest as it always did
    assert.are.same({ "MemTime" }, assert(dataset.from_csv(text, "f.csv", { features = { "MemTime" } })).features)
  end)

  it("drops a counter that is constant over the data and says so", function()
    local text = family_csv(3):gsub("launch\n", "SALUBusy\n", 1)
    text = text:gsub(",(%d+)\n", ",0\n") -- the last column, every row: 0
    local ds = assert(dataset.from_csv(text, "c.csv"))
    assert.are.same({ "VALUInsts", "MemTime" }, ds.features)
    assert.are.same({ "SALUBusy" }, ds.dropped_features)
    assert.are.equal(2, #ds:counters_at(1, 1))
    local model = assert(surface.train(ds, { k = 2 }))
    assert.are.same({ "VALUInsts", "MemTime" }, model.features)
    local _, err = dataset.from_csv(family_csv(3):gsub("MemTime", "SALUBusy"):gsub(",0%.9,", ",0.5,")
      :gsub(",0%.1,", ",0.5,"):gsub(",0%.2%d*,", ",0.5,"), "all.csv")
    assert.matches("^all.csv: every counter column is constant over the data", err)
  end)

  it("takes each kernel's family from a family column, or from its name less '.vN'", function()
    local ds = assert(dataset.from_csv(family_csv(6):gsub("\nk(%d)", "\nfam.v%1"), "v.csv"))
    assert.are.same({ "fam" }, ds.families)
    assert.are.same({ 1, 1, 1, 1, 1, 1 }, ds.family_index)
    local lines = {}
    for line in family_csv(4):gmatch("[^\n]+") do
      local k = line:match("^k(%d)")
      lines[#lines + 1] = line:match("^kernel") and (line .. ",family") or (k and (line .. ",F" .. (k % 2)) or line)
    end
    ds = assert(dataset.from_csv(table.concat(lines, "\n") .. "\n", "col.csv"))
    assert.are.same({ "F1", "F0" }, ds.families)
    assert.are.same({ "F1", "F0", "F1", "F0" }, ds.family)
    -- written out and read back: the same families
    assert.are.same(ds.family, assert(dataset.from_csv(ds:to_csv(), "again.csv")).family)
    lines[5] = lines[5]:gsub(",F%d$", ",F9")
    local _, err = dataset.from_csv(table.concat(lines, "\n") .. "\n", "col.csv")
    assert.matches("col.csv:5: kernel 'k1' is in family 'F9' here and in 'F1' on line 3", err, 1, true)
  end)

  it("reads a kernel measured at the base for a prediction, refusing a row measured elsewhere", function()
    local path = helper.write_temp("kernel,cus,core_mhz,mem_mhz,time_us,VALUInsts,MemTime\n"
      .. "a,8,600,1000,2.5,0.9,0.1\nb,4,600,1000,1.5,0.3,0.9\nc,8,600,1000,x,0.3,0.9\n", ".csv")
    local rows, err = dataset.read_base(path, { "VALUInsts", "MemTime" }, { cus = 8, core_mhz = 600, mem_mhz = 1000 })
    assert.is_nil(rows)
    assert.matches(":3: column 'cus' is 4, but the model's base configuration is 8/600/1000", err, 1, true)
    assert.matches(":4: column 'time_us': expected a positive number", err, 1, true)
    -- without a base the configuration columns are not checked
    path = helper.write_temp("kernel,cus,time_us,VALUInsts,MemTime\na,8,2.5,0.9,0.1\nb,4,1.5,0.3,0.9\n", ".csv")
    rows = assert(dataset.read_base(path, { "VALUInsts", "MemTime" }))
    assert.are.same({ "a", "b" }, { rows[1].kernel, rows[2].kernel })
    assert.are.equal(0.3, rows[2].counters.VALUInsts)
  end)
end)

describe("gpush.models.surface", function()
  local ds = assert(dataset.from_csv(family_csv(12), "families.csv"))

  it("predicts every family member exactly from one base measurement (separable scaling)", function()
    local model = assert(surface.train(ds, { k = 3, base = { cus = 8, core_mhz = 600, mem_mhz = 1000 } }))
    assert.are.same({ cus = 8, core_mhz = 600, mem_mhz = 1000 }, model.base)
    assert.are.same({ "time", "power" }, model.quantities)
    -- a new compute-bound kernel, 2.5 times k3's work: its counters and base time
    local counters = { VALUInsts = 0.9, MemTime = 0.1 }
    local base_time = family_time(0, 2.5, 8, 600, 1000)
    for _, c in ipairs(GRID.cus) do
      for _, e in ipairs(GRID.core_mhz) do
        for _, m in ipairs(GRID.mem_mhz) do
          local want = family_time(0, 2.5, c, e, m)
          local got = assert(model:predict(counters, base_time, { cus = c, core_mhz = e, mem_mhz = m }))
          assert.is_near(want, got, want * 1e-12)
        end
      end
    end
    -- by hand: twice the CUs at half the clock is the same time; 4 CUs at 900 MHz takes 4/3 of it
    assert.is_near(base_time, model:predict(counters, base_time, { cus = 16, core_mhz = 300, mem_mhz = 1000 }), 1e-12)
    assert.is_near(base_time * (8 * 600) / (4 * 900),
      model:predict(counters, base_time, { cus = 4, core_mhz = 900, mem_mhz = 500 }), 1e-12)
    -- a bandwidth-bound kernel ignores the engine clock and the CUs
    local mem_counters = { VALUInsts = 0.3, MemTime = 0.9 }
    assert.is_near(7.0, model:predict(mem_counters, 7.0, { cus = 4, core_mhz = 300, mem_mhz = 1000 }), 1e-12)
    assert.is_near(14.0, model:predict(mem_counters, 7.0, { cus = 16, core_mhz = 900, mem_mhz = 500 }), 1e-12)
    local ev = assert(model:evaluate(ds, nil, "time"))
    assert.are.equal(12 * 17, ev.count)
    assert.is_true(ev.mean < 1e-12)
  end)

  it("refuses targets off the grid and missing counters with a message", function()
    local model = assert(surface.train(ds, { k = 3 }))
    local v, err = model:predict({ VALUInsts = 0.9, MemTime = 0.1 }, 1.0, { cus = 8, core_mhz = 650, mem_mhz = 500 })
    assert.is_nil(v)
    assert.are.equal("surface: target: core_mhz 650 is not on the grid (300, 600, 900); the models do not extrapolate",
      err)
    v, err = model:predict({ VALUInsts = 0.9 }, 1.0, { cus = 8, core_mhz = 600, mem_mhz = 500 })
    assert.is_nil(v)
    assert.matches("counter 'MemTime' is missing", err, 1, true)
    v, err = model:predict({ VALUInsts = 0.9, MemTime = 0.1 }, 1.0, { cus = 8, core_mhz = 600, mem_mhz = 500 }, "area")
    assert.is_nil(v)
    assert.matches("no 'area' part", err, 1, true)
    assert.has_error(function() model:predict({ VALUInsts = 0.9, MemTime = 0.1 }, -1, GRID) end)
    local _, base_err = surface.train(ds, { base = { cus = 6, core_mhz = 300, mem_mhz = 500 } })
    assert.matches("base configuration: cus 6 is not on the grid", base_err, 1, true)
    assert.has_error(function() surface.train(ds, { k = 2.5 }) end,
      "gpush.models.surface.train: k must be a non-negative integer, got 2.5")
  end)

  it("saves and loads bit for bit, and refuses another file version", function()
    local model = assert(surface.train(ds, { k = 4, epochs = 300 }))
    local path = os.tmpname()
    assert(model:save(path))
    local back = assert(surface.load(path))
    assert.are.same(model.quantities, back.quantities)
    assert.are.same(model.features, back.features)
    assert.are.equal(model:encode(), back:encode())
    for _, counters in ipairs { { VALUInsts = 0.9, MemTime = 0.1 }, { VALUInsts = 0.5, MemTime = 0.6 } } do
      for _, q in ipairs { "time", "power" } do
        for _, c in ipairs(GRID.cus) do
          local target = { cus = c, core_mhz = 300, mem_mhz = 500 }
          assert.are.equal(model:predict(counters, 3.5, target, q), back:predict(counters, 3.5, target, q))
        end
      end
    end
    local bytes = helper.read_file(path)
    assert.are.equal("\3", bytes:sub(9, 9)) -- this gpush writes version 3
    local f = assert(io.open(path, "wb"))
    f:write(bytes:sub(1, 8) .. "\4" .. bytes:sub(10))
    f:close()
    local none, err = surface.load(path)
    assert.is_nil(none)
    assert.are.equal(path .. ": a surface model of format version 4; this gpush (" .. require("gpush.core").version()
      .. ") reads versions 1 to 3: train it again with `gpush ml train`", err)
    none, err = surface.decode(bytes:sub(1, -2), "cut.gsm")
    assert.is_nil(none)
    assert.matches("^cut.gsm: truncated or padded", err)
    os.remove(path)
  end)
end)

describe("gpush.ml.power", function()
  local config = require "gpush.config"
  local power = require "gpush.ml.power"

  local function counts(issued, lanes, extra)
    local c = { class_issued = {}, class_lanes = {}, bank_extra_passes = 0, l1_accesses = 0, l2_accesses = 0 }
    for _, class in ipairs { "int", "fp32", "imad", "fp64", "sfu", "tensor", "uniform", "branch", "other", "barrier",
      "barrier_arrive", "ld_global", "st_global", "ld_local", "st_local", "ld_shared", "st_shared", "ld_const", "tex",
      "atom_global", "atom_shared", "ldgsts", "depbar" } do
      c.class_issued[class], c.class_lanes[class] = issued[class] or 0, lanes[class] or 0
    end
    for k, v in pairs(extra or {}) do
      c[k] = v
    end
    return c
  end

  it("adds the event energies, the clock and the memory interface by hand", function()
    local cfg = assert(config.load("hd7970", { "clock.core_mhz=925" })) -- the curve's upper point: V^2 factor 1
    local r = { time_us = 10, dram_bytes_read = 1000, dram_bytes_written = 24,
      counts = counts({ fp32 = 100, uniform = 10, ld_shared = 5 }, { fp32 = 3200, ld_shared = 160 },
        { bank_extra_passes = 2, l1_accesses = 7, l2_accesses = 3 }) }
    local watts, parts = power.estimate(cfg, r)
    -- issue 115 x 100 pJ; FP32 lanes 3200 x (12 + 4 x 5); shared lanes 160 x 2 x 5; scalar 10 x 20;
    -- LDS (5 + 2) x 60; L1 7 x 100; L2 3 x 400
    local pj = 115 * 100 + 3200 * 32 + 160 * 10 + 10 * 20 + 7 * 60 + 7 * 100 + 3 * 400
    assert.is_near(pj * 1e-12 / 10e-6, parts.core, 1e-12)
    assert.is_near(120 * 1024 * 1e-12 / 10e-6, parts.dram, 1e-12)
    assert.is_near(0.6 * 32 * 0.925, parts.clock, 1e-12)
    assert.is_near(7 * 1.375, parts.memory_interface, 1e-12)
    assert.is_near(parts.core + parts.dram + parts.clock + parts.memory_interface, watts, 1e-12)
    -- at 300 MHz the core's events and clock scale by (0.85 / 1.175)^2 and the clock term by f; DRAM does not
    local slow = assert(config.load("hd7970", { "clock.core_mhz=300" }))
    local _, p2 = power.estimate(slow, r)
    local v2 = (0.85 / 1.175) ^ 2
    assert.is_near(parts.core * v2, p2.core, 1e-12)
    assert.is_near(parts.dram, p2.dram, 1e-15)
    assert.is_near(0.6 * 32 * 0.3 * v2, p2.clock, 1e-12)
    -- the curve: linear between its points, held below, extended above
    assert.is_near(1.175 + 0.325 * 75 / 625, power.voltage(cfg, 1000), 1e-12)
    assert.is_near(0.85, power.voltage(cfg, 200), 0)
    assert.has_error(function()
      power.voltage(assert(config.load("hd7970", { "power.vf_high_mhz=200" })), 500)
    end)
  end)

  it("reads the simulator's counts on a real kernel: more CUs or engine clock never lower the power", function()
    local sim = require "gpush.sim"
    local workloads = require "gpush.workloads"
    local counters = require "gpush.ml.counters"
    local kernel = assert(workloads.kernel { name = "p", grid = 64, block = 128, trips = 4, seed = 3,
      streams = { a = { kind = "coalesced", footprint = 1 << 22 } },
      body = { { "ld_global", stream = "a" }, { "fp32", dep = 1 }, { "fp32", dep = 1 }, { "sfu" } } })
    local last
    for _, mhz in ipairs { 300, 600, 1000 } do
      local cfg = assert(config.load("hd7970", { "clock.core_mhz=" .. mhz }))
      local r = assert(sim.run(kernel, cfg, { policy = "lrr" }))
      local watts, parts = power.estimate(cfg, r)
      assert.is_true(parts.core > 0 and parts.dram > 0)
      if last then
        assert.is_true(watts > last)
      end
      last = watts
      local t2 = counters.table_ii(r, cfg)
      assert.are.equal(r.counters.valu_insts, t2.VALUInsts)
      assert.are.equal(r.counters.l2_hit_rate, t2.CacheHit)
      assert.are.equal(r.counters.memory_wait, t2.MemTime)
      assert.is_near(r.counters.ipc * r.counters.valu_insts / 32, t2.V_IPC, 1e-15)
      -- no stores: the write unit never stalls
      assert.are.equal(0, t2.WriteUnitStalled)
    end
  end)

  it("counts WriteUnitStalled as the scheduler cycles stores waited for the busy LSU", function()
    local sim = require "gpush.sim"
    local workloads = require "gpush.workloads"
    local counters = require "gpush.ml.counters"
    local cfg = assert(config.load("hd7970", { "sm.count=4" }))
    -- a store-heavy stream: 16-byte stores, every lane its own line
    local kernel = assert(workloads.kernel { name = "w", grid = 32, block = 256, trips = 4, seed = 3,
      streams = { a = { kind = "coalesced", footprint = 1 << 20 }, o = { kind = "strided", stride = 256,
        footprint = 1 << 24, base = 1 << 32 } },
      body = { { "ld_global", stream = "a" }, { "st_global", stream = "o", width = 16, dep = 1 },
        { "st_global", stream = "o", width = 16 } } })
    local r = assert(sim.run(kernel, cfg, { policy = "lrr" }))
    local t2 = counters.table_ii(r, cfg)
    local by_hand = 0
    for _, pc in ipairs(r.pc_stalls) do
      if pc.class == "st_global" then
        by_hand = by_hand + pc.stalls.lsu_busy
      end
    end
    assert.is_true(by_hand > 0)
    assert.is_near(by_hand / r.counts.scheduler_cycles, t2.WriteUnitStalled, 1e-15)
    assert.is_true(t2.WriteUnitStalled <= t2.MemUnitStalled)
    -- every Table II counter comes from the simulator
    for _, name in ipairs(surface.TABLE_II) do
      assert.is_number(t2[name], name)
    end
  end)
end)
