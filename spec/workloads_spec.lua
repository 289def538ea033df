-- gpush.workloads: synthetic kernels and the embedded suite.
local workloads = require "gpush.workloads"
local helper = require "spec_helper"

local function small(extra)
  local d = {
    name = "small", grid = 2, block = 64, trips = 3, seed = 5,
    streams = { a = { kind = "coalesced", footprint = 1 << 20 } },
    body = { { "ld_global", stream = "a" }, { "fp32", dep = 1 }, { "fp32", dep = 1 } },
  }
  for k, v in pairs(extra or {}) do
    d[k] = v
  end
  return d
end

describe("gpush.workloads", function()
  it("generates the body trips times per warp, then EXIT", function()
    local k = assert(workloads.kernel(small()))
    local info = k:info()
    assert.are.equal(4, info.warps)
    assert.are.equal(4 * (3 * 3 + 1), info.warp_instructions)
    assert.are.same({ ld_global = 12, fp32 = 24, branch = 4 }, info.class_mix)
    local w = k:warp(1)
    assert.are.equal("LDG.E", w[1].opcode)
    assert.are.equal("FFMA", w[2].opcode)
    assert.are.same({ 1 }, w[2].deps)
    assert.are.same({ 1 }, w[2].load_deps)
    assert.are.same({}, w[3].load_deps)
    assert.are.equal("EXIT", w[10].opcode)
  end)

  it("keeps every producer an instruction lists", function()
    local k = assert(workloads.kernel(small {
      body = { { "sfu" }, { "fp32" }, { "fp32", dep = { 1, 2 } }, { "ld_global", stream = "a" },
        { "int", dep = { 1, 3 } } } }))
    local w = k:warp(0)
    assert.are.same({ 1, 2 }, w[3].deps)         -- the FADD and the MUFU
    assert.are.same({ 1, 3 }, w[5].deps)         -- the load and the FFMA
    assert.are.same({ 1 }, w[5].load_deps)
    -- the second trip's FFMA: a producer in the previous trip
    assert.are.same({ 1, 2 }, w[8].deps)
  end)

  it("places coalesced lanes on consecutive words: one line, four sectors", function()
    local k = assert(workloads.kernel(small()))
    assert.are.equal(1, k:info().transactions_per_memory_instruction)
    assert.are.equal(4, k:info().sectors_per_memory_instruction)
  end)

  it("spreads random gathers over many lines and strided lanes over one line each", function()
    local k = assert(workloads.kernel(small {
      streams = { r = { kind = "random", footprint = 1 << 30 }, s = { kind = "strided", stride = 128, footprint = 1 << 30 } },
      body = { { "ld_global", stream = "s" } },
    }))
    assert.are.equal(32, k:info().transactions_per_memory_instruction)
    k = assert(workloads.kernel(small {
      streams = { r = { kind = "random", footprint = 1 << 30 } },
      body = { { "ld_global", stream = "r" } },
    }))
    assert.is_true(k:info().transactions_per_memory_instruction > 30)
  end)

  it("is deterministic for a seed and changes with it", function()
    local d = small { trip_spread = 9, streams = { r = { kind = "random", footprint = 1 << 30 } },
      body = { { "ld_global", stream = "r" }, { "int", dep = 1 } } }
    local a, b = assert(workloads.kernel(d)), assert(workloads.kernel(d))
    assert.are.same(a:warp(3), b:warp(3))
    assert.are.same(a:info(), b:info())
    d.seed = 6
    local c = assert(workloads.kernel(d))
    assert.are_not.same(a:info().warp_instructions .. a:info().cache_lines,
      c:info().warp_instructions .. c:info().cache_lines)
    assert.are.equal(workloads.hash(small()), workloads.hash(small()))
    assert.are_not.equal(workloads.hash(small()), workloads.hash(small { seed = 9 }))
  end)

  it("varies trip counts per warp with trip_spread (control divergence)", function()
    local k = assert(workloads.kernel(small { grid = 8, trip_spread = 20 }))
    local lengths = {}
    for w = 0, k:info().warps - 1 do
      lengths[#k:warp(w)] = true
    end
    local distinct = 0
    for _ in pairs(lengths) do
      distinct = distinct + 1
    end
    assert.is_true(distinct > 3)
  end)

  it("explains bad descriptions", function()
    assert.has_error(function() workloads.kernel(small { body = { { "fp33" } } }) end,
      "workload 'small': instruction 1 has class 'fp33' (did you mean 'fp32'?)")
    assert.has_error(function() workloads.kernel(small { body = { { "ld_global", stream = "b" } } }) end,
      "workload 'small': instruction 1 (ld_global) needs stream = one of: a")
    assert.has_error(function() workloads.kernel(small { streams = { a = { kind = "wavy" } } }) end,
      "workload 'small': stream 'a' has kind 'wavy'; expected coalesced, strided, random, chase or shared")
    local k, err = workloads.kernel(small { block = 2048 })
    assert.is_nil(k)
    assert.are.equal("synthetic kernel 'small': block of 2048 threads, expected at most 1024", err)
    k, err = workloads.kernel(small { body = { { "ld_shared", stream = "a" } } })
    assert.is_nil(k)
    assert.matches("shared%-memory classes need a shared stream", err)
  end)
end)

describe("the embedded suite", function()
  local bounds = require "gpush.bounds"
  local config = require "gpush.config"
  local sim = require "gpush.sim"

  local function contains(list, x)
    for _, y in ipairs(list) do
      if y == x then
        return true
      end
    end
    return false
  end

  it("has one kernel per bottleneck regime, each named by what it is", function()
    assert.are.same({ "issue_mix", "fma_compute", "fma_chain", "sfu_heavy", "fp64_heavy", "shared_bandwidth",
      "shared_conflicts", "tiled_barrier", "l1_resident", "l2_resident", "stream_triad", "pointer_chase",
      "divergent_gather", "divergent_loop", "atomic_histogram", "tiny_blocks" }, workloads.names())
    for _, d in ipairs(workloads.suite) do
      assert.is_string(d.regime)
      assert.is_true(#d.claim.bounds > 0 and #d.claim.stalls > 0, d.name)
    end
  end)

  -- Every base kernel on gtx1080: the expected binding resource (the bounds
  -- with l2, mshr and dram at the functional replay's estimates) is the
  -- claimed one, the simulator is above the hard bound (no exception for
  -- dram since it counts only the bytes no interleaving avoids) and takes at most 1.3 x the
  -- expected limiter's cycles (it limits the run),
  -- the simulator's bottleneck is the claimed stall, and the description's
  -- own bound (without building the kernel) binds the same way.
  -- The claims are the body's: the front end as before issue 25 (a constant
  -- 5,000-cycle launch; on gtx1080 the calibrated one's 648-cycle warm-up and
  -- block drains outlast shared_bandwidth's body, and its dispatcher
  -- tiny_blocks'; docs/frontend.md).
  it("is limited on gtx1080 by what each kernel claims, in the bounds and in the simulator", function()
    local cfg = config.load("gtx1080", helper.no_front_end(5000))
    for _, d in ipairs(workloads.suite) do
      local kernel = assert(workloads.kernel(d))
      local b = assert(bounds.kernel(kernel, cfg))
      assert.is_true(contains(d.claim.bounds, b.expect), ("%s: %s expected to bind"):format(d.name, b.expect))
      local r = assert(sim.run(kernel, cfg, { policy = "gto" }))
      assert.is_true(r.cycles >= b.total,
        ("%s: simulated %.0f below the bound %.0f"):format(d.name, r.cycles, b.total))
      -- (tiled_barrier, which rereads its tiles, is the loosest: 1.31 x its
      -- latency bound since issue 24's achievable DRAM bandwidth)
      assert.is_true(r.cycles <= 1.35 * b.expect_total,
        ("%s: simulated %.0f, %.2f x the %s bound"):format(d.name, r.cycles, r.cycles / b.expect_total, b.expect))
      local total, largest, value = 0, nil, -1
      for _, reason in ipairs(sim.STALL_REASONS) do
        total = total + r.stalls[reason]
        if reason ~= "issued" and r.stalls[reason] > value then
          largest, value = reason, r.stalls[reason]
        end
      end
      local issuing = contains(d.claim.stalls, "issued") and r.stalls.issued > 0.5 * total
      assert.is_true(issuing or contains(d.claim.stalls, largest),
        ("%s: the simulator's largest stall is %s"):format(d.name, largest))
      local from_desc = assert(workloads.bound(d, cfg))
      assert.is_true(contains(d.claim.bounds, from_desc.expect),
        ("%s: the description's bound %s"):format(d.name, from_desc.expect))
      -- exact counts: instructions, LSU requests, bank passes
      for _, field in ipairs { "insts", "lsu_cycles", "shared_passes" } do
        assert.is_true(math.abs(from_desc.counts[field] - b.counts[field]) <= 0.02 * math.max(1, b.counts[field]),
          ("%s: %s %.0f from the description, %.0f from the kernel"):format(d.name, field,
            from_desc.counts[field], b.counts[field]))
      end
    end
  end)

  -- The known exceptions: on rtx3070, whose L1 takes the 128 KB the
  -- kernel's (absent) shared memory leaves, memsim finds l2_resident's warps
  -- rereading lines of their own SM's L1 within a trip (83 % hits), which
  -- the description's capacity model (a 512 KB hot set against a 128 KB L1:
  -- misses) does not see; the kernel is then DRAM-bound, not L2-bound.  The
  -- same L1 reuse on a100 and h100-pcie (global loads cached in L1) leaves
  -- the built kernel issue-bound while the description counts every load at
  -- the L2; the old latency bound, at the loads' AMAT, hid it by binding in
  -- both until it became a floor (docs/bounds.md).
  local KNOWN = { ["rtx3070 l2_resident"] = true, ["a100 l2_resident"] = true,
    ["h100-pcie l2_resident"] = true }

  it("computes each kernel's bound from its description, as the built kernel's on six presets", function()
    local agree, total = 0, 0
    for _, preset in ipairs { "gtx1080", "gtx660ti", "gtx480", "rtx3070", "a100", "h100-pcie" } do
      local cfg = config.load(preset, helper.no_front_end()) -- the counts' bounds, not the front end's
      for _, d in ipairs(workloads.suite) do
        -- stream_triad, the largest, is checked on gtx1080 above
        if d.name ~= "stream_triad" and not KNOWN[preset .. " " .. d.name] then
          local from_kernel = assert(bounds.kernel(assert(workloads.kernel(d)), cfg))
          local from_desc = assert(workloads.bound(d, cfg))
          total = total + 1
          -- the same bound, or two within 5 % of each other
          if from_desc.expect == from_kernel.expect
            or from_kernel.expected[from_desc.expect] >= 0.95 * from_kernel.expect_cycles then
            agree = agree + 1
          end
        end
      end
    end
    assert.are.equal(total, agree)
  end)

  it("lists each kernel's regime, flop/byte, footprint and binding bound quickly, without building it", function()
    local code, out, err = helper.gpush_run { "workloads", "--json" }
    assert.are.equal(0, code, err)
    local rows = require("gpush.json").decode(out)
    assert.are.equal(16, #rows)
    local by = {}
    for _, r in ipairs(rows) do
      by[r.kernel] = r
      assert.is_string(r.regime)
      assert.is_string(r.bound)
      assert.is_true(r.bound_cycles > 0)
    end
    -- 128 FFMA (2 FLOP per lane) per 4-byte load per lane: 64 FLOP per byte
    assert.are.equal(64, by.fma_compute.flop_per_byte)
    -- 3 arrays x 2048 blocks x 256 threads x 8 trips x 16 B = 192 MB
    assert.are.equal(3 * 64 * (1 << 20), by.stream_triad.footprint_bytes)
    assert.are.equal("dram", by.stream_triad.bound)
    assert.are.equal("fp64", by.fp64_heavy.bound)
    assert.are.equal(require("gpush.json").null, by.issue_mix.flop_per_byte) -- no DRAM bytes
    code, out = helper.gpush_run { "workloads", "--config", "gtx660ti", "-p", "l1.mshrs=32" }
    assert.are.equal(0, code)
    assert.truthy(out:match("pointer_chase%s+latency%s+%d+%s+%d+%s+[%d.]+%s+[%d.]+ [KM]B%s+mshr"))
    code, _, err = helper.gpush_run { "workloads", "--seed", "x" }
    assert.are.equal(2, code)
    assert.truthy(err:find("--seed must be an integer", 1, true))
  end)

  -- --measure generates every kernel: what the generated kernels do, and
  -- the instant listing's counts checked against them
  it("measures each kernel's behaviour with --measure, as the instant listing describes it", function()
    local code, out, err = helper.gpush_run { "workloads", "--measure", "--json" }
    assert.are.equal(0, code, err)
    local rows = require("gpush.json").decode(out)
    assert.are.equal(16, #rows)
    local by = {}
    for _, r in ipairs(rows) do
      by[r.kernel] = r
    end
    assert.is_true(by.fma_compute.class_mix.fp32 > 10 * by.fma_compute.memory_instructions)
    assert.is_true(by.divergent_gather.transactions_per_memory_instruction > 10)
    assert.is_true(by.divergent_loop.active_lane_efficiency < 0.9)
    assert.is_true(by.tiled_barrier.class_mix.barrier > 0)
    assert.is_true(by.tiled_barrier.class_mix.ld_shared > 0)
    assert.is_true(by.sfu_heavy.class_mix.sfu > by.sfu_heavy.class_mix.fp32)
    -- the instant listing (from the descriptions) gives the generated counts:
    -- exactly, or within 2 % for a trip count spread per warp
    code, out = helper.gpush_run { "workloads", "--json" }
    assert.are.equal(0, code)
    for _, r in ipairs(require("gpush.json").decode(out)) do
      local m = by[r.kernel]
      local tolerance = r.exact and 0 or 0.02
      assert.are.equal(m.warps, r.warps, r.kernel)
      assert.is_true(math.abs(r.warp_instructions - m.warp_instructions) <= tolerance * m.warp_instructions, r.kernel)
      assert.is_true(math.abs(r.memory_instructions - m.memory_instructions) <= tolerance * m.memory_instructions,
        r.kernel)
      assert.is_near(m.active_lane_efficiency, r.active_lane_efficiency, r.exact and 1e-9 or 0.02)
    end
  end)

  it("reports an unknown workload with a suggestion", function()
    local w, err = workloads.get("stream_triadd")
    assert.is_nil(w)
    assert.matches("no workload 'stream_triadd' in the suite %(did you mean 'stream_triad'%?%)", err)
  end)
end)

describe("gpush.workloads.variants", function()
  local config = require "gpush.config"

  it("gives at least 120 distinct, small kernels over every regime by default", function()
    local list = workloads.variants {}
    assert.is_true(#list >= 120)
    local seen, regimes = {}, {}
    for _, d in ipairs(list) do
      local key = workloads.hash { d.base, d.params }
      assert.is_nil(seen[key], d.name)
      seen[key] = true
      regimes[d.base] = (regimes[d.base] or 0) + 1
    end
    for _, entry in ipairs(workloads.regimes) do
      assert.is_true((regimes[entry.name] or 0) >= 7, entry.name)
    end
    -- small enough for corpora: at most 260 K warp instructions (gtx1080's
    -- simulator: about 40 ms of CPU or less, docs/workloads.md)
    local cfg = config.load("gtx1080")
    for _, d in ipairs(list) do
      local b = assert(workloads.bound(d, cfg))
      assert.is_true(b.counts.insts <= 260000, d.name)
    end
  end)

  it("is deterministic for a seed and changes with it", function()
    local a, b = workloads.variants { seed = 3, count = 20 }, workloads.variants { seed = 3, count = 20 }
    assert.are.same(a, b)
    local ka, kb = assert(workloads.kernel(a[5])), assert(workloads.kernel(b[5]))
    assert.are.same(ka:info(), kb:info())
    assert.are.same(ka:warp(3), kb:warp(3))
    local c = workloads.variants { seed = 4, count = 20 }
    assert.are_not.same(a[5].params, c[5].params)
    assert.are.equal("issue_mix.v1", a[1].name)
    assert.are.equal("fma_compute.v1", a[2].name)
  end)

  it("selects regimes and base kernels, and explains misuse", function()
    local list = workloads.variants { regimes = { "dram", "pointer_chase" }, per = 3 }
    assert.are.equal(6, #list)
    for _, d in ipairs(list) do
      assert.is_true(d.base == "stream_triad" or d.base == "pointer_chase")
    end
    assert.has_error(function() workloads.variants { regimes = { "nope" } } end,
      "gpush.workloads.variants: no regime or base kernel 'nope'")
    assert.has_error(function() workloads.variants { count = -1 } end,
      "gpush.workloads.variants: count must be a non-negative integer")
    -- as workloads of any command
    local code, out = helper.gpush_run { "sim", "variants:sfu", "--config", "gtx1080" }
    assert.are.equal(0, code)
    assert.truthy(out:find("sfu_heavy.v8", 1, true))
  end)
end)

describe("gpush.workloads.load_file", function()
  local function write(dir, name, text)
    local f = assert(io.open(dir .. "/" .. name, "w"))
    f:write(text)
    f:close()
    return dir .. "/" .. name
  end

  it("returns the file's description; a helper beside it loads by dofile relative to the file", function()
    local dir = helper.temp_dir()
    os.execute("mkdir -p " .. dir .. "/sub")
    write(dir .. "/sub", "common.lua", "local M = {} function M.make(n) return { name = n, grid = 3 } end return M")
    local path = write(dir .. "/sub", "k.lua", 'return dofile("common.lua").make("k")')
    -- loaded from another working folder's view: the path is not the cwd
    local d = assert(workloads.load_file(path))
    assert.same({ name = "k", grid = 3 }, d)
    os.execute("rm -rf " .. dir)
  end)

  it("calls a function the file returns with the given values", function()
    local dir = helper.temp_dir()
    local path = write(dir, "f.lua", "return function(v) return { name = 'f', trips = v.iters * 2 } end")
    assert.equal(14, assert(workloads.load_file(path, { iters = 7 })).trips)
    os.execute("rm -rf " .. dir)
  end)

  it("runs the file without io, os, require, load or debug, and names the file in its messages", function()
    local dir = helper.temp_dir()
    for _, name in ipairs { "io", "os", "require", "load", "debug" } do
      local path = write(dir, name .. ".lua", ("return { x = %s ~= nil and 1 or nil }"):format(name))
      assert.is_nil(assert(workloads.load_file(path)).x, name)
    end
    local bad = write(dir, "bad.lua", "return 42")
    local d, err = workloads.load_file(bad)
    assert.is_nil(d)
    assert.truthy(err:find(bad .. " returned number: expected a workload description", 1, true))
    local broken = write(dir, "broken.lua", "return {")
    d, err = workloads.load_file(broken)
    assert.is_nil(d)
    assert.truthy(err:find("broken.lua:1:", 1, true))
    local missing = write(dir, "missing.lua", 'return dofile("nowhere.lua")')
    d, err = workloads.load_file(missing)
    assert.is_nil(d)
    assert.truthy(err:find("nowhere.lua", 1, true))
    os.execute("rm -rf " .. dir)
  end)
end)
