-- gpush sim: the abstract timing simulator from the command line.
--
--   gpush sim PATH --config NAME [-p key=value ...] [--policy lrr|gto|two-level]
--             [--kernel SPEC] [--per-pc [--top N]] [--json]
--
-- PATH is a trace, `suite`, `suite:NAME`, `variants` or `variants:NAME`.
-- Prints per-launch cycles, time, IPC, achieved DRAM bandwidth, the
-- bottleneck in the shared vocabulary and where the active scheduler
-- cycles went (shares of the cycles a scheduler had a block resident),
-- idle apart; with --per-pc the stalls per PC.  --json prints a JSON
-- array, one object per launch (kernel, launch, cycles, warp_instructions,
-- stalls, stall_shares, idle_share, bottleneck, pc_stalls, line_stalls,
-- sm_utilisation, counters, ..., with --per-pc per_pc).
local sim = assert(require("gpush.models").family("sim"))

local M = {}

local spec = {
  prog = "sim",
  usage = [==[
usage: gpush sim PATH --config NAME [-p key=value ...] [--policy lrr|gto|two-level] [--kernel SPEC]
                 [--per-pc [--top N]] [--json]
]==],
  help = [==[
Simulates each launch warp by warp (GATSim-style abstract timing: every SM's
schedulers, the shared memory hierarchy in timed mode; docs/sim.md) and
prints cycles, IPC, the achieved DRAM bandwidth, the bottleneck and where
the active scheduler cycles went (issued, dependence, memory, unit busy,
barrier, no eligible warp), idle cycles (no block resident) apart.
  --policy      warp scheduling: lrr (loose round robin, default), gto
                (greedy then oldest) or two-level (an active set of
                sm.active_warps warps per scheduler)
]==] .. require("gpush.modelcmd").COMMON_HELP .. require("gpush.modelcmd").PER_PC_HELP,
  policies = { "lrr", "gto", "two-level" },
  run = function(kernel, cfg, opts)
    -- per PC for --per-pc, and for --json, whose objects have always held pc_stalls
    local r, err = sim.run(kernel, cfg, { policy = opts.policy, per_pc = opts.per_pc or opts.json or false })
    if r and not opts.per_pc then
      r.per_pc = nil
    end
    return r, err
  end,
  title = function(rows, cfg)
    return ("abstract simulation (%s) on '%s': %d SMs at %g MHz"):format(rows[1].policy, cfg._name,
      cfg.sm.count, cfg.clock.core_mhz)
  end,
  legend = {
    "  IPC/GPU: warp instructions per cycle of the whole GPU, the kernel launch included (as cycles and time);",
    "  shares: of the scheduler cycles with a block resident (every scheduler of every SM, the launch",
    "  excluded), idle ones (no block resident) apart as a share of all; bottleneck: the largest share in",
    "  gpush's vocabulary (docs/models.md)",
  },
  extra = { "DRAM GB/s", function(r) return ("%.1f"):format(r.dram_gbs) end },
  detail_label = "active scheduler cycles (idle: of all)",
  detail = function(r)
    local parts = {}
    for _, name in ipairs(sim.ACTIVE_REASONS) do
      local share = r.stall_shares[name]
      if share >= 0.005 then
        parts[#parts + 1] = ("%s %.0f%%"):format(name, 100 * share)
      end
    end
    if r.idle_share >= 0.005 then
      parts[#parts + 1] = ("(idle %.0f%%)"):format(100 * r.idle_share)
    end
    return table.concat(parts, "  ")
  end,
  per_pc = { categories = sim.PC_REASONS, unit = "scheduler cycles charged to the PC" },
}

function M.main(args, out, err)
  return require("gpush.modelcmd").main(spec, args, out, err)
end

return M
