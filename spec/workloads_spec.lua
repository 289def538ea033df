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
    assert.are.equal(1, w[2].dep)
    assert.are.equal(1, w[2].dep_load)
    assert.are.equal(0, w[3].dep_load)
    assert.are.equal("EXIT", w[10].opcode)
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
  it("has the eight kernels every model is exercised with", function()
    assert.are.same({ "fma_compute", "stream_triad", "pointer_chase", "divergent_gather",
      "divergent_loop", "tiled_barrier", "cache_reuse", "sfu_heavy" }, workloads.names())
  end)

  it("fills several waves of a large GPU and shows each kernel's behaviour", function()
    local code, out, err = helper.gpush_run { "workloads", "--measure", "--json" }
    assert.are.equal(0, code, err)
    local rows = require("gpush.json").decode(out)
    local by = {}
    for _, r in ipairs(rows) do
      by[r.kernel] = r
      -- an H100 holds 114 SMs x 8 blocks of 256 threads per wave
      assert.is_true(r.thread_blocks >= 3 * 114 * 8, r.kernel)
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
