-- Device scaling factors relative to 45 nm (Esmaeilzadeh et al., ISCA 2011,
-- Table 1, via ../shared/reference/darksilicon.md: frequency, Vdd and power
-- from public re-implementations of the model, capacitance recalled; power
-- = capacitance x Vdd^2 x frequency within 0.013 in every cell).  "itrs":
-- the ITRS projections; "conservative": Borkar's.  Area halves per node.
local nodes = { 45, 32, 22, 16, 11, 8 }
local area = { 1, 0.5, 0.25, 0.125, 0.0625, 0.03125 }
local function rows(freq, vdd, cap, power)
  local t = {}
  for i, node in ipairs(nodes) do
    t[i] = { node_nm = node, freq = freq[i], vdd = vdd[i], cap = cap[i], power = power[i], area = area[i] }
  end
  return t
end
return {
  nodes = nodes,
  itrs = rows({ 1.00, 1.09, 2.38, 3.21, 4.17, 3.85 }, { 1.00, 0.93, 0.84, 0.75, 0.68, 0.62 },
    { 1.00, 0.70, 0.33, 0.21, 0.13, 0.08 }, { 1.00, 0.66, 0.54, 0.38, 0.25, 0.12 }),
  conservative = rows({ 1.00, 1.10, 1.19, 1.25, 1.30, 1.34 }, { 1.00, 0.93, 0.88, 0.86, 0.84, 0.84 },
    { 1.00, 0.75, 0.56, 0.42, 0.32, 0.24 }, { 1.00, 0.71, 0.52, 0.39, 0.29, 0.22 }),
}
