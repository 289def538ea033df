-- gpush sim: the abstract timing simulator from the command line.
--
--   gpush sim PATH --config NAME [-p key=value ...] [--policy lrr|gto|two-level]
--             [--kernel SPEC] [--json]
--
-- PATH is a trace, `suite`, `suite:NAME`, `variants` or `variants:NAME`.
-- Prints per-launch cycles, time, IPC, achieved DRAM bandwidth and the
-- stall breakdown per scheduler cycle;
-- --json prints a JSON array, one object per launch (kernel, launch, cycles,
-- warp_instructions, stalls, pc_stalls, line_stalls, sm_utilisation,
-- counters, ...).
local sim = assert(require("gpush.models").family("sim"))

local M = {}

local order = sim.STALL_REASONS

local spec = {
  prog = "sim",
  usage = [==[
usage: gpush sim PATH --config NAME [-p key=value ...] [--policy lrr|gto|two-level] [--kernel SPEC] [--json]
]==],
  help = [==[
Simulates each launch warp by warp (GATSim-style abstract timing: every SM's
schedulers, the shared memory hierarchy in timed mode; docs/sim.md) and
prints cycles, IPC, the achieved DRAM bandwidth and where the scheduler
cycles went (issued, dependence, memory, unit busy, barrier, idle).
  --policy      warp scheduling: lrr (loose round robin, default), gto
                (greedy then oldest) or two-level (an active set of
                sm.active_warps warps per scheduler)
]==] .. require("gpush.modelcmd").COMMON_HELP,
  policies = { "lrr", "gto", "two-level" },
  run = function(kernel, cfg, opts)
    return sim.run(kernel, cfg, { policy = opts.policy })
  end,
  title = function(rows, cfg)
    return ("abstract simulation (%s) on '%s': %d SMs at %g MHz"):format(rows[1].policy, cfg._name,
      cfg.sm.count, cfg.clock.core_mhz)
  end,
  extra = { "DRAM GB/s", function(r) return ("%.1f"):format(r.dram_gbs) end },
  detail_label = "scheduler cycles",
  detail = function(r)
    local total = 0
    for _, name in ipairs(order) do
      total = total + r.stalls[name]
    end
    local parts = {}
    for _, name in ipairs(order) do
      local share = total > 0 and r.stalls[name] / total or 0
      if share >= 0.005 then
        parts[#parts + 1] = ("%s %.0f%%"):format(name, 100 * share)
      end
    end
    return table.concat(parts, "  ")
  end,
}

function M.main(args, out, err)
  return require("gpush.modelcmd").main(spec, args, out, err)
end

return M
