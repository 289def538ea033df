-- gpush.report.tornado: one-at-a-time sensitivity around a base point.
--
--   local points = tornado.design({ ["l1.mshrs"] = 32 }, { { "l1.mshrs", 16, 64 } })
--   -- run the base point and every point (points[i].overrides), then:
--   local report = tornado.analyze {
--     metric = "cycles", base = base_result,
--     parameters = { { name = "l1.mshrs", base = 32, low = 16, high = 64,
--                      low_result = r16, high_result = r64 } } }
--   print(tornado.markdown(report))
--   svg.write("tornado.svg", tornado.svg(report, { title = "..." }))
--
-- Each parameter moves alone to its low and to its high value while every
-- other parameter stays at the base point.  For each the report gives the
-- metric at both ends, the relative changes (value - base) / base, the swing
-- (the extent of the bars: max(0, changes) - min(0, changes)) and, for
-- numeric parameters, the arc elasticity ((y_high - y_low) / y_base) /
-- ((x_high - x_low) / x_base).  Rows are sorted by swing, largest first
-- (ties by name), so the plot narrows downwards like a tornado.
local svg = require "gpush.report.svg"

local M = {}

-- The points to run: for each range {name, low, high} in order, the low
-- then the high point, each with the base values and that one parameter
-- changed.  `base` maps parameter names to their base values.
function M.design(base, ranges)
  if type(base) ~= "table" or type(ranges) ~= "table" then
    error("gpush.report.tornado.design: expected (base values, list of {name, low, high})", 2)
  end
  local points = {}
  for i, r in ipairs(ranges) do
    local name, low, high = r[1] or r.name, r[2] or r.low, r[3] or r.high
    if type(name) ~= "string" or low == nil or high == nil then
      error(("gpush.report.tornado.design: ranges[%d] must be {name, low, high}"):format(i), 2)
    end
    if base[name] == nil then
      error(("gpush.report.tornado.design: ranges[%d] names '%s', which has no base value"):format(i, name), 2)
    end
    for _, side in ipairs({ { "low", low }, { "high", high } }) do
      local overrides = {}
      for k, v in pairs(base) do
        overrides[k] = v
      end
      overrides[name] = side[2]
      points[#points + 1] = { parameter = name, side = side[1], value = side[2], overrides = overrides }
    end
  end
  return points
end

-- The metric of a result: a number, or result[metric].
local function metric_of(v, metric, what)
  if type(v) == "table" then
    v = v[metric]
  end
  if type(v) ~= "number" or v ~= v then
    error(("gpush.report.tornado.analyze: %s has no number for metric '%s'"):format(what, tostring(metric)), 3)
  end
  return v
end

-- The sorted report of a one-at-a-time study; see the header for `spec`.
-- Returns { metric, unit, base_value, rows = { { name, base, low, high,
-- low_value, high_value, low_change, high_change, swing, elasticity } } }.
function M.analyze(spec)
  if type(spec) ~= "table" or type(spec.parameters) ~= "table" or #spec.parameters == 0 then
    error("gpush.report.tornado.analyze: expected { metric, base, parameters = { ... } }", 2)
  end
  local metric = spec.metric or "cycles"
  local base_value = metric_of(spec.base, metric, "base")
  if base_value == 0 then
    error("gpush.report.tornado.analyze: the base point's metric is 0; relative changes are undefined", 2)
  end
  local rows = {}
  for i, p in ipairs(spec.parameters) do
    if type(p) ~= "table" or type(p.name) ~= "string" then
      error(("gpush.report.tornado.analyze: parameters[%d] needs a name"):format(i), 2)
    end
    local lv = metric_of(p.low_result, metric, ("parameters[%d] (%s) low_result"):format(i, p.name))
    local hv = metric_of(p.high_result, metric, ("parameters[%d] (%s) high_result"):format(i, p.name))
    local row = { name = p.name, base = p.base, low = p.low, high = p.high, low_value = lv, high_value = hv,
      low_change = (lv - base_value) / base_value, high_change = (hv - base_value) / base_value }
    row.swing = math.max(0, row.low_change, row.high_change) - math.min(0, row.low_change, row.high_change)
    if type(p.low) == "number" and type(p.high) == "number" and type(p.base) == "number"
        and p.high ~= p.low and p.base ~= 0 then
      row.elasticity = ((hv - lv) / base_value) / ((p.high - p.low) / p.base)
    end
    rows[#rows + 1] = row
  end
  table.sort(rows, function(a, b)
    if a.swing ~= b.swing then
      return a.swing > b.swing
    end
    return a.name < b.name
  end)
  return { metric = metric, unit = spec.unit, base_value = base_value, rows = rows }
end

local function plain(v)
  if type(v) ~= "number" then
    return v == nil and "" or tostring(v)
  end
  if v == math.floor(v) and math.abs(v) < 1e15 then
    return ("%d"):format(v)
  end
  if math.abs(v) >= 100 then
    return ("%.1f"):format(v)
  end
  return (("%.4g"):format(v))
end

local function percent(v)
  return svg.format_percent(v * 100)
end

local function cell(s)
  return (tostring(s):gsub("|", "\\|"))
end

-- The report as a Markdown table (rank order), with a line naming the base.
function M.markdown(report)
  local metric = report.metric .. (report.unit and (" (" .. report.unit .. ")") or "")
  local lines = {
    ("One-at-a-time sensitivity of %s around the base point (%s = %s); rows sorted by swing."):format(
      report.metric, metric, plain(report.base_value)),
    "",
    ("| rank | parameter | base | low | high | %s at low | %s at high | change at low | change at high "
      .. "| swing | elasticity |"):format(metric, metric),
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  }
  for i, r in ipairs(report.rows) do
    lines[#lines + 1] = ("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"):format(i, cell(r.name),
      cell(plain(r.base)), cell(plain(r.low)), cell(plain(r.high)), plain(r.low_value), plain(r.high_value),
      percent(r.low_change), percent(r.high_change), ("%.1f%%"):format(r.swing * 100),
      r.elasticity and ("%.3f"):format(r.elasticity) or "")
  end
  return table.concat(lines, "\n") .. "\n"
end

-- The report as a tornado SVG (svg.tornado): one row per parameter, labelled
-- "name (low / high)", bars of the relative change at each end.
function M.svg(report, opts)
  local rows = {}
  for i, r in ipairs(report.rows) do
    local range = (r.low ~= nil and r.high ~= nil) and (" (" .. plain(r.low) .. " / " .. plain(r.high) .. ")") or ""
    rows[i] = { label = r.name .. range, low = r.low_change, high = r.high_change }
  end
  local o = {}
  for k, v in pairs(opts or {}) do
    o[k] = v
  end
  o.title = o.title or ("Sensitivity of %s around the base point"):format(report.metric)
  o.x_label = o.x_label or ("change in %s from the base point %s (%%)"):format(report.metric,
    plain(report.base_value) .. (report.unit and (" " .. report.unit) or ""))
  return svg.tornado({ rows = rows, low_label = "parameter at its low value",
    high_label = "parameter at its high value" }, o)
end

return M
