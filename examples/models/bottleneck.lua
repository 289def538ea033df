-- A new model module written in Lua: a first-order bottleneck model.
--
-- A kernel cannot run faster than its slowest shared resource allows, so
-- this model predicts a kernel's cycles as the largest of gpush's
-- first-principles lower bounds (gpush.bounds, docs/bounds.md: issue slots,
-- each pipe's initiation interval, shared-memory bank passes, the LSU, the
-- L2 slices' request rate, DRAM bytes over bandwidth, MSHRs by Little's law,
-- the longest warp's dependence path, block slots by Little's law) plus the
-- kernel launch.  It is what a roofline does with more roofs.
--
-- The module is short because it reuses what gpush computes; the same shape
-- fits any new model.  A model module is a table with `name`,
-- `prepare(kernel, base_cfg)` for work that does not depend on the swept
-- parameters (computed once per kernel), and `run(kernel, cfg, prepared,
-- cache)` returning at least `cycles`, `time_us` and `ipc` (plus anything
-- else worth a column): the model contract of gpush.models.  Registered
-- there (models.register("bottleneck", module)), gpush.experiment and the
-- example scripts call it exactly like the built-in models.
local bounds = require "gpush.bounds"

local M = { name = "bottleneck" }

-- Per-kernel work shared by every configuration of a sweep: the kernel's
-- summary.
function M.prepare(kernel)
  return { info = kernel:info() }
end

-- Cycles of one configuration: the largest bound plus the launch.  Returns
-- the result table (bound: the name of the binding bound; bounds: every
-- bound in cycles) or nil, message.
function M.run(kernel, cfg, prepared)
  prepared = prepared or M.prepare(kernel)
  local b, err = bounds.kernel(kernel, cfg)
  if not b then
    return nil, "bottleneck: " .. err
  end
  local info = prepared.info
  return {
    kernel = info.kernel, cycles = b.total, time_us = b.time_us, ipc = info.warp_instructions / b.total,
    bound = b.binds, bounds = b.cycles,
  }
end

return M
