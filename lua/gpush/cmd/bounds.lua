-- gpush bounds: the first-principles lower bounds of kernels on a
-- configuration (gpush.bounds, docs/bounds.md).
--
--   gpush bounds PATH --config NAME [-p key=value ...] [--kernel SPEC] [--json]
--
-- PATH is a trace, `suite`, `suite:NAME`, `variants` or `variants:NAME`.
-- Prints per launch the lower bound on its cycles (the largest bound plus
-- the kernel launch), the time and IPC it allows, the bound that binds, the
-- expected binding resource in the shared vocabulary and the next two
-- bounds; --json prints a JSON array, one object per launch (kernel,
-- launch, cycles = the total, binds, bound, bottleneck, bottleneck_detail,
-- bounds = {name = cycles}, counts, ...).
local bounds = require "gpush.bounds"
local family = assert(require("gpush.models").family("bounds"))

local M = {}

local spec = {
  prog = "bounds",
  usage = [==[
usage: gpush bounds PATH --config NAME [-p key=value ...] [--kernel SPEC] [--json]
]==],
  help = [==[
Computes each launch's first-principles lower bounds on its cycles (issue,
each pipe, shared memory, LSU, L2, DRAM bytes / bandwidth, MSHR Little bound,
dependence chain x latency, block lifetime; docs/bounds.md) and prints the
least cycles any model may predict, the time and IPC that allows, the bound
that binds and the next two.
]==] .. require("gpush.modelcmd").COMMON_HELP,
  policies = {},
  run = function(kernel, cfg)
    local b, err = bounds.kernel(kernel, cfg)
    if not b then
      return nil, err
    end
    local info = kernel:info()
    b.bounds, b.cycles = b.cycles, b.total
    b.kernel = info.kernel
    b.ipc = b.cycles > 0 and info.warp_instructions / b.cycles or 0
    b.warnings = { info.warnings ~= "" and info.warnings or nil }
    b.bottleneck, b.bottleneck_detail = family.bottleneck(b)
    return b
  end,
  title = function(_, cfg)
    return ("lower bounds on '%s': %d SMs at %g MHz (cycles include %g launch cycles)"):format(cfg._name,
      cfg.sm.count, cfg.clock.core_mhz, cfg.launch.kernel_cycles)
  end,
  legend = {
    "  IPC/GPU: the most warp instructions per cycle of the whole GPU the bounds allow, the kernel launch",
    "  included (as cycles and time); binds: the largest hard bound; bottleneck: the expected binding",
    "  resource (the functional replay's L2, MSHR and DRAM estimates in place) in gpush's vocabulary",
    "  (docs/models.md)",
  },
  extra = { "binds", function(r) return r.binds end },
  detail_label = "next bounds (cycles)",
  detail = function(r)
    local parts = {}
    for i = 2, 3 do
      local b = r.ranked[i]
      if b and b.cycles > 0 then
        parts[#parts + 1] = ("%s %.0f"):format(b.name, b.cycles)
      end
    end
    if r.expect ~= r.binds then -- the functional replay's l2 / mshr estimate is larger
      parts[#parts + 1] = ("(expected: %s %.0f)"):format(r.expect, r.expect_cycles)
    end
    return table.concat(parts, "  ")
  end,
}

function M.main(args, out, err)
  return require("gpush.modelcmd").main(spec, args, out, err)
end

return M
