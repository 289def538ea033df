-- Per static instruction (SASS PC): where GPUMech's predicted cycles and the simulator's
-- scheduler cycles go (gpumech.predict / sim.run with per_pc, gpush gpumech|sim --per-pc).
local gpumech = require "gpush.gpumech"
local sim = require "gpush.sim"
local config = require "gpush.config"
local workloads = require "gpush.workloads"
local json = require "gpush.json"
local helper = require "spec_helper"

-- One warp, five trips of FFMA (10 cycles) -> MUFU (30 cycles) -> the next FFMA, then EXIT.
local function chain()
  return assert(workloads.kernel { name = "chain2", grid = 1, block = 32, trips = 5,
    body = { { "fp32", dep = 1 }, { "sfu", dep = 1 } } })
end
local function chain_cfg()
  return config.load("gpumech-baseline", { "ops.fp32.latency=10", "ops.sfu.latency=30", "ops.sfu.interval=1",
    "ops.fp32.interval=1" })
end

-- The PCs' sums: executions, cycles, and cycles per category.
local function sums(per_pc)
  local executions, cycles, by = 0, 0, {}
  for _, p in ipairs(per_pc) do
    executions, cycles = executions + p.executions, cycles + p.cycles
    local own = 0
    for c, v in pairs(p.stalls) do
      by[c] = (by[c] or 0) + v
      own = own + v
    end
    assert.is_near(p.cycles, own, 1e-9 * math.max(own, 1))
  end
  return executions, cycles, by
end

local function costliest_first(per_pc)
  for i = 2, #per_pc do
    assert.is_true(per_pc[i - 1].cycles >= per_pc[i].cycles)
  end
end

describe("gpush.gpumech per PC", function()
  it("charges a stall to the instruction that waited, by its cause's category, by hand", function()
    -- the chain's 200 cycles (5 x 10 + 5 x 30): every MUFU waits 9 cycles for its FFMA, every
    -- FFMA but the first 29 for the MUFU before it, and the last MUFU's result drains 28
    -- cycles after EXIT issues (charged to its cause); BASE by executions
    for _, eq in ipairs { "gpush", "paper" } do
      local r = assert(gpumech.predict(chain(), chain_cfg(), { per_pc = true, equations = eq }))
      assert.are.equal(200, r.cycles)
      local by = {}
      for _, p in ipairs(r.per_pc) do
        by[p.opcode] = p
      end
      assert.are.equal(5, by.FFMA.executions)
      assert.is_near(4 * 29, by.FFMA.stalls.DEP, 1e-9)
      assert.is_near(5, by.FFMA.stalls.BASE, 1e-9)
      assert.is_near(5 * 9 + 28, by["MUFU.RCP"].stalls.DEP, 1e-9)
      assert.is_near(1, by.EXIT.cycles, 1e-9)
      assert.are.equal("FFMA", r.per_pc[1].opcode) -- costliest first
    end
  end)

  it("sums every category over the PCs to the stack x the warp instructions, executions to them", function()
    local cfg = config.load("gtx660ti")
    for _, name in ipairs { "fma_chain", "stream_triad", "shared_conflicts", "sfu_heavy", "divergent_loop",
      "atomic_histogram", "tiled_barrier" } do
      local k = helper.small_kernel(name, 24)
      local insts = k:info().warp_instructions
      for _, opts in ipairs { { policy = "gto" }, { policy = "rr", equations = "paper" },
        { model = "naive", equations = "paper" }, { model = "markov", equations = "paper" }, { model = "mt" } } do
        opts.per_pc = true
        local r = assert(gpumech.predict(k, cfg, opts))
        local executions, cycles, by = sums(r.per_pc)
        assert.are.equal(insts, executions, name)
        assert.is_near(r.cpi * insts, cycles, 1e-9 * r.cpi * insts)
        for c, v in pairs(r.stack) do
          assert.is_near(v * insts, by[c] or 0, 1e-9 * r.cpi * insts, name .. " " .. c)
        end
        costliest_first(r.per_pc)
      end
      -- built only on request; the prediction is the same either way
      local plain = assert(gpumech.predict(k, cfg, { policy = "gto" }))
      local asked = assert(gpumech.predict(k, cfg, { policy = "gto", per_pc = true }))
      assert.is_nil(rawget(plain, "per_pc"))
      assert.are.equal(plain.cycles, asked.cycles)
      assert.are.same(plain.stack, asked.stack)
      k:close()
    end
  end)
end)

describe("gpush.sim per PC", function()
  it("charges a waiting cycle to the instruction that waited, by hand", function()
    local r = assert(sim.run(chain(), chain_cfg(), { per_pc = true }))
    local by = {}
    for _, p in ipairs(r.per_pc) do
      by[p.opcode] = p
    end
    assert.are.same({ issued = 5, dependence = 116, memory = 0, lsu_busy = 0, sfu_busy = 0, unit_busy = 0,
      barrier = 0 }, by.FFMA.stalls)
    assert.are.equal(5 + 45, by["MUFU.RCP"].cycles)
    assert.are.equal(1, by.EXIT.executions)
  end)

  it("sums every reason over the PCs to the run's stalls, executions to its warp instructions", function()
    local cfg = config.load("gtx660ti")
    for _, name in ipairs { "tiled_barrier", "stream_triad", "shared_conflicts", "sfu_heavy", "divergent_loop" } do
      local k = helper.small_kernel(name, 24)
      for _, policy in ipairs { "lrr", "gto", "two-level" } do
        local r = assert(sim.run(k, cfg, { policy = policy, per_pc = true }))
        local executions, cycles, by = sums(r.per_pc)
        assert.are.equal(r.warp_instructions, executions)
        for _, reason in ipairs(sim.PC_REASONS) do
          assert.is_near(r.stalls[reason], by[reason] or 0, 1e-9 * cycles, name .. " " .. reason)
        end
        assert.is_near(r.active_cycles - r.stalls.no_eligible_warp, cycles, 1e-9 * cycles)
        costliest_first(r.per_pc)
        -- without the accounting: the same run, nothing per PC
        local plain = assert(sim.run(k, cfg, { policy = policy, per_pc = false }))
        assert.are.equal(r.cycles, plain.cycles)
        assert.are.same(r.stalls, plain.stalls)
        assert.is_nil(plain.per_pc)
        assert.is_nil(plain.pc_stalls)
      end
      k:close()
    end
  end)
end)

describe("gpush.sim active shares", function()
  -- The issue's sub-wave kernel: one block on 16 SMs leaves 15 idle; the shares of all
  -- scheduler cycles said "idle 94 %", the active cycles say where the one SM's time goes
  it("reports shares of the active scheduler cycles, idle apart", function()
    local r = assert(sim.run(chain(), chain_cfg()))
    assert.is_near(15 / 16, r.idle_share, 0.01)
    local total = 0
    for _, reason in ipairs(sim.ACTIVE_REASONS) do
      total = total + r.stall_shares[reason]
    end
    assert.is_near(1, total, 1e-12)
    assert.is_nil(r.stall_shares.idle)
    assert.is_near(116 + 45, r.stall_shares.dependence * r.active_cycles, 1e-9)
    assert.are.equal("LATENCY", r.bottleneck)
    assert.are.equal("DEP", r.bottleneck_detail)
  end)
end)

describe("gpush gpumech|sim --per-pc", function()
  it("prints each launch's PCs costliest first, and per_pc in --json", function()
    for _, prog in ipairs { "gpumech", "sim" } do
      local code, out, err = helper.gpush_run { prog, "suite:tiled_barrier", "--config", "gtx660ti", "--per-pc",
        "--top", "3" }
      assert.are.equal(0, code, err)
      assert.matches("per PC, 3 of %d+, costliest first; cycles: [^\n]+, %d+ in all; executions: warp instructions", out)
      local rows = 0
      for pc in out:gmatch("\n%s+(0x%x+)%s+%u") do
        rows = rows + 1
        assert.is_string(pc)
      end
      assert.are.equal(3, rows)
      code, out, err = helper.gpush_run { prog, "suite:tiled_barrier", "--config", "gtx660ti", "--per-pc", "--json" }
      assert.are.equal(0, code, err)
      local r = json.decode(out)[1]
      assert.is_true(#r.per_pc > 3)
      local p = r.per_pc[1]
      for _, field in ipairs { "pc", "opcode", "executions", "cycles", "stalls" } do
        assert.is_not_nil(p[field], field)
      end
      assert.is_string(r.bottleneck)
    end
    -- sim --json keeps its pc_stalls; per_pc comes with --per-pc
    local code, out = helper.gpush_run { "sim", "suite:tiled_barrier", "--config", "gtx660ti", "--json" }
    assert.are.equal(0, code)
    local r = json.decode(out)[1]
    assert.is_table(r.pc_stalls)
    assert.is_nil(r.per_pc)
    code, out = helper.gpush_run { "gpumech", "suite:tiled_barrier", "--config", "gtx660ti", "--json" }
    assert.is_nil(json.decode(out)[1].per_pc)
  end)

  it("rejects --top without --per-pc and a --top that is not a whole number", function()
    local code, _, err = helper.gpush_run { "sim", "suite:fma_chain", "--config", "gtx660ti", "--top", "3" }
    assert.are.equal(2, code)
    assert.matches("--top goes with --per-pc", err, 1, true)
    code, _, err = helper.gpush_run { "gpumech", "suite:fma_chain", "--config", "gtx660ti", "--per-pc", "--top",
      "many" }
    assert.are.equal(2, code)
    assert.matches("--top takes a whole number >= 0, got 'many'", err, 1, true)
    code, _, err = helper.gpush_run { "bounds", "suite:fma_chain", "--config", "gtx660ti", "--per-pc" }
    assert.are.equal(2, code)
    assert.matches("unknown option '--per-pc'", err, 1, true)
  end)

  it("shows a shared trace's costliest instruction in both models", function()
    if not helper.have_shared_traces() then
      pending("../shared/traces not found: the real-trace check is skipped")
      return
    end
    -- matrixmul-sm61 on gtx1080: the STS that stores each loaded tile waits for its global load
    -- (both models charge the wait to the waiting instruction), the costliest PC in both
    for _, prog in ipairs { "gpumech", "sim" } do
      local code, out = helper.gpush_run { prog, helper.shared .. "/traces/matrixmul-sm61", "--config", "gtx1080",
        "--policy", "gto", "--per-pc", "--json" }
      assert.are.equal(0, code)
      local p = json.decode(out)[1].per_pc[1]
      assert.are.equal("STS", p.opcode)
      assert.are.equal(0x248, p.pc)
      assert.are.equal(32, p.executions)
    end
  end)
end)
