-- The GPU front end (docs/frontend.md): kernel launch, the GPU-wide block
-- dispatcher, each SM's launcher (per block and per warp), the warm-up and
-- the drain, in the simulator, GPUMech and the bounds.  Grids computed by
-- hand from the calibrated presets' values; the two models against each
-- other on the empty kernels of the calibration grids.
local helper = require "spec_helper"
local config = require "gpush.config"
local bounds = require "gpush.bounds"
local correlate = require "gpush.correlate"
local microbench = require "gpush.workloads.microbench"
local workloads = require "gpush.workloads"

-- A microbenchmark kernel's cycles under the simulator (GTO), GPUMech
-- (GTO) and its bounds.
local function run(name, p, cfg)
  local k = assert(workloads.kernel(assert(microbench.describe(name, p))))
  local out = {}
  for _, model in ipairs { "sim-gto", "gpumech-gto" } do
    local m = assert(correlate.model(model))
    local cache = {}
    local prepared = m.prepare and m.prepare(k, cfg, cache, { seed = 1 })
    out[model] = assert(m.run(k, cfg, prepared, cache, { seed = 1 })).cycles
  end
  out.bounds = assert(bounds.kernel(k, cfg))
  k:close()
  return out
end

describe("the GPU front end", function()
  -- h100-pcie's front end (calibrated): a block of 8 warps launches in
  -- L = 8 x launch.warp_cycles on its SM's launcher.  The empty kernel's
  -- block alone takes 8 cycles: two EXITs a scheduler, the branch unit's
  -- interval (4) apart, the second done 4 (its latency) after its issue.
  local cfg = config.load("h100-pcie")
  local fe = cfg.launch
  local body = 8

  it("runs one empty block in its body alone, by hand", function()
    local r = run("empty", { grid = 1, block = 256 }, config.load("h100-pcie", helper.no_front_end()))
    assert.are.equal(body, r["sim-gto"])
    assert.are.equal(body, r["gpumech-gto"])
  end)

  it("charges a dispatch-bound grid what the dispatcher allows, by hand", function()
    -- 16,384 blocks of 256 threads on 114 SMs: the dispatcher hands one out
    -- every launch.dispatch_cycles (1.048), so an SM gets one every 119.5
    -- cycles and holds it L + 8 + D = 246.9: neither its launcher nor its 8
    -- slots keep a block waiting.  The last block leaves the dispatcher
    -- after 16,383 intervals, is launched, runs alone and drains; the kernel
    -- launch comes on top.
    local L = fe.block_cycles + 8 * fe.warp_cycles
    assert.is_true(114 * fe.dispatch_cycles > L and 114 * fe.dispatch_cycles * 8 > L + body + fe.drain_cycles)
    local hand = fe.kernel_cycles + 16383 * fe.dispatch_cycles + L + body + fe.drain_cycles
    local r = run("empty", { grid = 16384, block = 256 }, cfg)
    -- (the simulator within a cycle: its schedulers, woken at the block's
    -- fractional launch time, issue on a grid of whole cycles behind a unit)
    assert.is_near(hand, r["sim-gto"], 1)
    assert.is_near(hand, r["gpumech-gto"], 1e-6 * hand)
    -- the bound: the same, with the last block's path (one EXIT: its latency, 4)
    local b = r.bounds
    assert.are.equal("dispatch", b.binds)
    assert.is_near(16383 * fe.dispatch_cycles + L + 4 + fe.drain_cycles, b.cycles.dispatch, 1e-9)
    assert.is_true(b.total <= r["sim-gto"] and b.total <= r["gpumech-gto"])
  end)

  it("holds a slot-bound grid's slots for launch, body and drain", function()
    -- 1,024-thread blocks: 2 a SM.  A block holds its slot for its launch (32
    -- warps), its body (8 EXITs a scheduler at interval 4: 32) and its drain;
    -- each SM's 2 slots turn 144 blocks over (16,384 / 114, rounded up): at
    -- least 72 turns of a slot, which the bound's blocks term spreads over
    -- all 228 slots
    local L = fe.block_cycles + 32 * fe.warp_cycles
    local turn = L + 32 + fe.drain_cycles
    local r = run("empty", { grid = 16384, block = 1024 }, cfg)
    local sim, gm = r["sim-gto"], r["gpumech-gto"]
    assert.is_true(sim >= fe.kernel_cycles + 72 * turn, sim)
    assert.is_true(sim <= fe.kernel_cycles + 73 * turn, sim)
    assert.is_true(math.abs(gm / sim - 1) < 0.02, ("GPUMech %.0f, simulator %.0f"):format(gm, sim))
    assert.is_true(r.bounds.total <= sim and r.bounds.total <= gm)
  end)

  it("waits for the SM's warm-up once, and retires each block after its drain", function()
    -- gtx1080's warm-up (its cold instruction and constant caches): one
    -- block of one warp pays the kernel launch, its launch, the warm-up, its
    -- one EXIT (branch latency 6) and its drain
    local g = config.load("gtx1080")
    local e = g.launch
    local hand = e.kernel_cycles + e.block_cycles + e.warp_cycles + e.warmup_cycles + 6 + e.drain_cycles
    local r = run("empty", { grid = 1, block = 32 }, g)
    assert.is_near(hand, r["sim-gto"], 1e-9)
    assert.is_near(hand, r["gpumech-gto"], 1e-9)
    assert.is_near(hand, r.bounds.total, 1e-9) -- the latency bound: path, launch, warm-up, drain
    assert.are.equal("latency", r.bounds.binds)
  end)

  it("keeps its costs in core cycles: the same cycles at any core clock", function()
    local slow = run("empty", { grid = 4096, block = 256 }, config.load("h100-pcie", { "clock.core_mhz=1100" }))
    local fast = run("empty", { grid = 4096, block = 256 }, config.load("h100-pcie", { "clock.core_mhz=1980" }))
    assert.are.equal(slow["sim-gto"], fast["sim-gto"])
    assert.are.equal(slow["gpumech-gto"], fast["gpumech-gto"])
  end)

  it("gives both models within 2 % of each other on the calibration grids' empty kernels", function()
    local worst, where = 0, nil
    local grids = { ["h100-pcie"] = { 1024, 4096, 16384 }, ["h100-sxm"] = { 1, 132, 264, 1024, 4096 } }
    for preset, list in pairs(grids) do
      local c = config.load(preset)
      for _, grid in ipairs(list) do
        for _, block in ipairs { 32, 128, 256, 512, 1024 } do
          local r = run("empty", { grid = grid, block = block }, c)
          local d = math.abs(r["gpumech-gto"] / r["sim-gto"] - 1)
          if d > worst then
            worst, where = d, ("%s %d x %d"):format(preset, grid, block)
          end
        end
      end
    end
    assert.is_true(worst < 0.02, ("%.2f %% at %s"):format(100 * worst, tostring(where)))
  end)
end)
