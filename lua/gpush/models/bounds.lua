-- gpush.models.bounds: the first-principles lower bounds (gpush.bounds,
-- docs/bounds.md) as a model of a sweep: at every point the cycles no model
-- may beat (the largest bound plus the launch) and the bound that binds.
--
--   local m = models.get("bounds")
--   m.run(kernel, cfg) -> { cycles, time_us, ipc, bound, dominant, bottleneck, bottleneck_detail,
--                           bounds = {name = cycles} }
--
-- bound is the hard binding bound's name; dominant is the expected binding
-- resource's (gpush.bounds' `expect`: l2, mshr and dram at the functional
-- replay's estimates, docs/bounds.md) in upper case (DRAM, MSHR, ISSUE,
-- LATENCY, ...: M.LABELS); bottleneck is that resource in the shared
-- vocabulary (M.bottleneck), the column every model's summary reads.
local bounds = require "gpush.bounds"
local vocabulary = require "gpush.models.vocabulary"

local M = {}

M.NAMES = bounds.NAMES
M.LABELS = {}
for _, name in ipairs(bounds.NAMES) do
  M.LABELS[name] = name:upper()
end

-- Each bound's label in the bottleneck vocabulary
-- (gpush.models.vocabulary): the issue slots, the compute pipes (int, fma,
-- fp64, sfu, tensor, uniform, control: PIPE), the LSU (line requests and
-- shared-memory bank passes), the L2, DRAM and MSHRs as themselves; the
-- dependence path and the block lifetimes (a block holds its slot until
-- its longest warp ends) are LATENCY; the serialised block launches LAUNCH.
M.BOTTLENECK = vocabulary.check_map({ issue = "ISSUE", int = "PIPE", fma = "PIPE", fp64 = "PIPE",
  sfu = "PIPE", tensor = "PIPE", uniform = "PIPE", control = "PIPE", shared = "LSU", lsu = "LSU", l2 = "L2",
  dram = "DRAM", mshr = "MSHR", latency = "LATENCY", blocks = "LATENCY", dispatch = "LAUNCH" }, "bounds")

-- The bottleneck of a bounds result in the vocabulary: the label of the
-- expected binding resource (`expect`, as `dominant`), and that bound's
-- own label (M.LABELS).
function M.bottleneck(b)
  return M.BOTTLENECK[b.expect] or "", M.LABELS[b.expect] or ""
end

-- The label of a bounds table's largest entry (ties: the first in NAMES).
function M.dominant(cycles)
  local best, value = M.NAMES[1], -1
  for _, name in ipairs(M.NAMES) do
    if (cycles[name] or 0) > value then
      best, value = name, cycles[name] or 0
    end
  end
  return M.LABELS[best]
end

-- The model: opts.name (default "bounds").
function M.new(opts)
  opts = opts or {}
  local columns = { "cycles", "time_us", "ipc", "bound", "dominant", "bottleneck", "bottleneck_detail" }
  for _, name in ipairs(M.NAMES) do
    columns[#columns + 1] = "bounds." .. name
  end
  return {
    name = opts.name or "bounds",
    columns = columns,
    run = function(kernel, cfg, _, cache)
      local b, err = bounds.kernel(kernel, cfg, cache)
      if not b then
        return nil, err
      end
      local insts = b.counts.insts
      local label, detail = M.bottleneck(b)
      return { cycles = b.total, time_us = b.time_us, ipc = b.total > 0 and insts / b.total or 0,
        bound = b.binds, dominant = M.LABELS[b.expect], bottleneck = label, bottleneck_detail = detail,
        bounds = b.cycles }
    end,
  }
end

return M
