-- gpush.ml.probe: a second base measurement, the CU probe (docs/ml.md; a
-- deviation from Wu et al., who run each kernel once, at the base).
--
-- The kernel is run a second time at the base's engine and memory clocks
-- with fewer CUs enabled (on real GPUs: ROCm's HSA_CU_MASK, NVIDIA MPS's
-- active-thread percentage), and its CU scaling between the two runs goes
-- to the classifiers as more inputs (M.INPUTS): per quantity (time, power)
-- the local CU exponent, and the time exponent's square
--
--   x = ln(v_probe / v_base) / ln(C_base / C_probe)
--
-- (time: 1 when the kernel scales perfectly with CUs, 0 when CUs do not
-- matter; the same sign and scale whichever side of the base the probe is).
-- The base counters say little about how a kernel of an unseen family
-- scales with CUs, the set that carries most of the error; one more run
-- measures it.
--
--   local ds2 = probe.augment(ds)                 -- a dataset with the inputs added
--   probe.cus(grid.cus, 32) --> 8                 -- where the second run is made
--   probe.exponent(32, 8, t_base, t_probe)        -- the exponent from two runs
--   probe.value(probe.input("CUProbeTimeSquared"), 32, 8, t_base, t_probe)
local M = {}

-- The protocols: "quarter" (the default: a second run at about a quarter of
-- the base's CUs) and "none" (the paper's: one base run).
M.CHOICES = { "quarter", "none" }
M.DEFAULT = "quarter"

-- The inputs the probe adds, in order: per quantity its exponent, and the
-- time exponent's square (the ridge map of the neighbour classifier is
-- linear in its inputs; the square lets it bend, chosen by the same
-- cross-validation).  quantity: the value the exponent is of.
M.INPUTS = {
  { name = "CUProbeTime", quantity = "time" },
  { name = "CUProbeTimeSquared", quantity = "time", squared = true },
  { name = "CUProbePower", quantity = "power" },
}
-- The CSV columns a prediction reads the probe's values from, per quantity.
M.COLUMNS = { time = "probe_time_us", power = "probe_power_w" }
local IS_INPUT = {}
for _, input in ipairs(M.INPUTS) do
  IS_INPUT[input.name] = input
end

-- The CU count of the probe for a base of `base_cus` on a grid whose CU
-- counts are `grid_cus` (ascending): the largest at most a quarter of the
-- base's; else the grid's fewest when it is below the base; else (the base
-- is the fewest) the next count up.  Chosen among a half, a quarter and the
-- fewest by cross-validation on the training families (docs/ml.md).  nil
-- when the grid has one CU count.
function M.cus(grid_cus, base_cus)
  local best
  for _, c in ipairs(grid_cus) do
    if c <= base_cus / 4 then
      best = c
    end
  end
  if best then
    return best
  end
  if grid_cus[1] < base_cus then
    return grid_cus[1]
  end
  for _, c in ipairs(grid_cus) do
    if c > base_cus then
      return c
    end
  end
  return nil
end

-- The probe's input from the base's and the probe's CU counts and values.
function M.exponent(base_cus, probe_cus, base_value, probe_value)
  return math.log(probe_value / base_value) / math.log(base_cus / probe_cus)
end

-- The probe's input of that name ({name, quantity, squared}), or nil for
-- a counter.
function M.input(name)
  return IS_INPUT[name]
end

-- Whether a model (its feature list) was trained with the probe.
function M.used_by(features)
  for _, f in ipairs(features) do
    if IS_INPUT[f] then
      return true
    end
  end
  return false
end

-- The value of input `input` from the base's and the probe's CU counts and
-- the quantity's values there.
function M.value(input, base_cus, probe_cus, base_value, probe_value)
  local x = M.exponent(base_cus, probe_cus, base_value, probe_value)
  return input.squared and x * x or x
end

-- The inputs a dataset with these quantities gets, in order.
local function inputs_for(quantities)
  local has, out = {}, {}
  for _, q in ipairs(quantities) do
    has[q] = true
  end
  for _, input in ipairs(M.INPUTS) do
    if has[input.quantity] then
      out[#out + 1] = input
    end
  end
  return out
end

-- A copy of dataset `ds` with the probe's inputs added as counters at every
-- configuration (each configuration taken as a base: the exponent to the
-- probe's CU count at the same clocks): M.INPUTS of the quantities it has.
-- The original is not changed.  Returns the dataset, or nil and a message
-- (a grid with one CU count has nowhere to probe).
function M.augment(ds)
  local grid = ds.grid
  if #grid.cus < 2 then
    return nil, ("the CU probe needs at least two CU counts on the grid; %s has only %s (use the paper's one base "
      .. "run: --cu-probe none)"):format(ds.source or "the dataset", tostring(grid.cus[1]))
  end
  local position = {}
  for j, c in ipairs(grid.cus) do
    position[c] = j
  end
  local inputs = inputs_for(ds.quantities)
  local G, F = ds:config_count(), #ds.features
  local counters, nf = {}, F + #inputs
  for k = 1, #ds.kernels do
    for g = 1, G do
      local c, e, m = ds:config_indices(g)
      local cus = grid.cus[c]
      local pc = M.cus(grid.cus, cus)
      local gp = ds:config_index(position[pc], e, m)
      local slot = (k - 1) * G + g
      for j = 1, F do
        counters[(slot - 1) * nf + j] = ds.counters[(slot - 1) * F + j]
      end
      for i, input in ipairs(inputs) do
        counters[(slot - 1) * nf + F + i] = M.value(input, cus, pc, ds:value(input.quantity, k, g),
          ds:value(input.quantity, k, gp))
      end
    end
  end
  local out = setmetatable({}, getmetatable(ds))
  for key, v in pairs(ds) do
    out[key] = v
  end
  out.features = {}
  for j = 1, F do
    out.features[j] = ds.features[j]
  end
  for i, input in ipairs(inputs) do
    out.features[F + i] = input.name
  end
  out.counters, out.c = counters, nil
  return out
end

-- The dataset a protocol trains on: `ds` itself for "none", the augmented
-- copy for "quarter".  Returns it, or nil and a message.
function M.apply(ds, choice)
  if choice == "none" then
    return ds
  elseif choice == "quarter" then
    return M.augment(ds)
  end
  return nil, ("the CU probe must be %s, got '%s'"):format(table.concat(M.CHOICES, " or "), tostring(choice))
end

return M
