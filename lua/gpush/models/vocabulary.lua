-- gpush.models.vocabulary: the one bottleneck vocabulary.  Every model
-- family keeps its own categories (GPUMech's CPI stack, the simulator's
-- stall reasons, Blem's M-core terms and modules, the first-principles
-- bounds) and maps them onto these labels, so that one kernel gets one
-- word from every model that can tell, and a table of several models
-- compares like with like.  The families say how they map (their
-- BOTTLENECK tables and bottleneck functions); this module says what the
-- labels are, once.
--
--   local vocabulary = require "gpush.models.vocabulary"
--   vocabulary.LABELS                       -- { "ISSUE", "PIPE", ... } in this order
--   vocabulary.MEANING.LATENCY              -- one line of what it means
--   vocabulary.largest(values, map, order)  -- the label with the most, its largest own
--                                           -- category, the sums by label
--
-- The split follows what an architect changes: a throughput resource
-- (issue slots, a pipe, the load/store unit, the L2, the DRAM, the MSHRs),
-- latency that too little parallelism leaves exposed, synchronisation, or
-- the launch.  Where a cycle is idle (no block resident), no label applies:
-- families report idle apart (docs/models.md, "One bottleneck vocabulary").
local M = {}

M.LABELS = { "ISSUE", "PIPE", "LSU", "L2", "DRAM", "MSHR", "LATENCY", "BARRIER", "LAUNCH" }

M.MEANING = {
  ISSUE = "the warp schedulers' issue slots: most cycles issue, and the slots are the busiest resource, "
    .. "90 % busy or more",
  PIPE = "a compute unit's throughput (FP32/IMAD, INT, FP64, SFU, tensor, uniform, branch)",
  LSU = "the load/store unit: line requests and shared-memory bank passes",
  L2 = "the L2 slices' request rate",
  DRAM = "DRAM bandwidth",
  MSHR = "the SM's miss registers: how many misses may be outstanding",
  LATENCY = "dependence latency the resident warps do not hide: compute results, shared memory, "
    .. "cache and DRAM round trips, a block's longest warp",
  BARRIER = "warps waiting at barriers",
  LAUNCH = "the serialised block dispatch (launch.block_cycles a block on each SM; the kernel launch itself "
    .. "is counted apart)",
}

local is_label = {}
for i, label in ipairs(M.LABELS) do
  is_label[label] = i
end

-- Whether `label` is one of M.LABELS.
function M.is_label(label)
  return is_label[label] ~= nil
end

-- Checks a family's map (own category -> label); raises naming the family
-- and the category whose label is not in the vocabulary.  Returns the map.
function M.check_map(map, family)
  for category, label in pairs(map) do
    if not is_label[label] then
      error(("gpush.models.vocabulary: %s maps '%s' to '%s', which is not a bottleneck label (%s)")
        :format(family, tostring(category), tostring(label), table.concat(M.LABELS, ", ")), 2)
    end
  end
  return map
end

-- The categories of `values`, sorted by their text (a stable order).
local function sorted_categories(values)
  local order = {}
  for category in pairs(values) do
    order[#order + 1] = category
  end
  table.sort(order, function(a, b) return tostring(a) < tostring(b) end)
  return order
end

-- The sums of `values` by label through `map` over the categories
-- `order` lists, leaving out the categories mapped to `skip` (nil: none),
-- and the best label (M.largest's); a loop without closures or metamethods:
-- every model's bottleneck asks once or twice a launch.
local function tally(values, map, order, skip)
  local sums, top = {}, {}
  for _, category in ipairs(order) do
    local label, v = map[category], values[category]
    if label and label ~= skip and type(v) == "number" and v > 0 then
      sums[label] = (sums[label] or 0) + v
      local held = top[label]
      if not held or v > values[held] then
        top[label] = category
      end
    end
  end
  local best, value = nil, 0
  for _, label in ipairs(M.LABELS) do
    local sum = sums[label]
    if sum and sum > value then
      best, value = label, sum
    end
  end
  return best, best and top[best], sums
end

-- Sums `values` (own category -> a non-negative amount) by label through
-- `map` (categories the map lacks count nowhere) and returns the label
-- with the largest sum (ties: the first in M.LABELS; nil when every sum is
-- 0), the own category that gave that label the most (ties: the first in
-- `order`), and the sums {label = amount}.  `order`, a list of the
-- categories, makes the floating-point sums independent of the table's
-- walk order.
function M.largest(values, map, order)
  return tally(values, map, order or sorted_categories(values))
end

-- How busy a throughput resource must be to be the bottleneck when the
-- largest share of the cycles issues: GPUMech's threshold for a busy
-- resource (GP_MW_BOUND_UTILISATION in csrc/core/gpumech/multiwarp.h).
M.SATURATED = 0.9

-- ISSUE means the schedulers issue at the pace of a saturated resource.
-- Where the largest share of the cycles is issuing (`label` ISSUE), that
-- resource is the busiest of the issue slots (`issue_busy`, a busy share)
-- and `busy` ({resource = busy share}, each labelled by `busy_map`, ties in
-- `busy_order`: a pipe narrower than the issue rate, the LSU): its label
-- when it is M.SATURATED busy or more.  When none is, the kernel issues
-- with slack and its time is set by what it waits for: the label of the
-- largest other share (`values` by `map` over `order`, as M.largest), or
-- ISSUE when nothing else took cycles.  Returns the label and the own
-- category (or resource name) that gave it; any label but ISSUE comes back
-- as given.
function M.refine_issue(label, detail, issue_busy, busy, busy_map, busy_order, values, map, order)
  if label ~= "ISSUE" or not issue_busy then
    return label, detail
  end
  local best, value = nil, issue_busy
  for _, name in ipairs(busy_order) do
    local v = busy[name]
    if busy_map[name] and type(v) == "number" and v > value * (1 + 1e-9) then
      best, value = name, v
    end
  end
  if value >= M.SATURATED then
    if best then
      return busy_map[best], best
    end
    return label, detail
  end
  local waited, category = tally(values, map, order or sorted_categories(values), "ISSUE")
  if waited then
    return waited, category
  end
  return label, detail
end

-- The vocabulary as lines of text ("LABEL  meaning"), for help texts and
-- report notes.
function M.lines(indent)
  local out = {}
  for _, label in ipairs(M.LABELS) do
    out[#out + 1] = ("%s%-8s %s"):format(indent or "", label, M.MEANING[label])
  end
  return out
end

return M
