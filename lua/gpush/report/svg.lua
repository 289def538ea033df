-- gpush.report.svg: standalone SVG plots a person reads at a glance.
--
--   local svg = require "gpush.report.svg"
--   local text = svg.stacked_bars(data, { title = "CPI stacks", y_label = "CPI (cycles/warp inst)" })
--   assert(svg.write("out/cpi.svg", text))
--
-- Plot kinds, each a function (data, opts) -> SVG text over plain tables:
--   stacked_bars  CPI/stall stacks per configuration and kernel (GPUMech Fig. 16)
--   lines         a metric against a swept parameter, several series
--   heatmap       a metric over two swept parameters, value in each cell
--   roofline      compute and memory roofs (log-log) with kernels as points;
--                 hierarchical: L1/L2/DRAM roofs, FP32/FP64 ceilings, a panel per model
--   tornado       one-at-a-time sensitivity bars around a base point
--   boxes         a distribution per category: box, whiskers and mean line
--   correlation   predicted against measured, log-log, y = x and a +-band
--   note          a figure saying why a plot is missing
-- Common opts: title, x_label, y_label (put the unit in the label), width,
-- height (pixels, default 800 x 480, grown to fit a title, a long legend or
-- panels); stacked_bars and lines take panels = true (small multiples: one
-- panel per group on its own y scale).  No text leaves the canvas or meets
-- another (spec/svg_render_spec.lua measures them in Chromium).  The output has no script, no external
-- reference and only the generic `sans-serif` font; numbers are written with
-- fixed precision and tables are walked in array order, so the same data
-- gives the same bytes.  docs/reports.md describes every data layout.
local staging = require "gpush.staging"

local M = {}

local FONT = "sans-serif"
local TITLE_SIZE, LABEL_SIZE, TICK_SIZE, LEGEND_SIZE = 16, 13, 11, 12

-- Categorical colours (Okabe-Ito, distinguishable with colour-vision
-- deficiencies), then Tableau-like extras for long legends.
M.palette = { "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
  "#000000", "#8C564B", "#7F7F7F", "#BCBD22", "#17BECF" }

-- The CPI stack of GPUMech Table III in its fixed order, each with its
-- colour; gpush's throughput categories (gpush.gpumech.STACK, passed as
-- data.categories) have colours too.
M.cpi_categories = { "BASE", "DEP", "L1", "L2", "DRAM", "MSHR", "QUEUE" }
M.cpi_colors = { BASE = "#9E9E9E", DEP = "#0072B2", L1 = "#56B4E9", L2 = "#009E73",
  DRAM = "#E69F00", MSHR = "#D55E00", QUEUE = "#CC79A7", L2BW = "#006D4F", SFU = "#F0E442",
  FP64 = "#8C564B", PIPE = "#17BECF", LSU = "#7F7F7F", BANK = "#BCBD22" }

-- Sequential colour scale for heat maps (viridis at ten stops).
local SCALE = { { 68, 1, 84 }, { 72, 40, 120 }, { 62, 73, 137 }, { 49, 104, 142 }, { 38, 130, 142 },
  { 31, 158, 137 }, { 53, 183, 121 }, { 109, 205, 89 }, { 180, 222, 44 }, { 253, 231, 37 } }

local MARKERS = { "circle", "square", "triangle", "diamond", "cross" }
local DASHES = { "", "6 3", "2 3", "8 3 2 3" }

-- Text ------------------------------------------------------------------------------

-- XML-escapes text for element content and attribute values.
function M.escape(s)
  return (tostring(s):gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
    ['"'] = "&quot;", ["'"] = "&#39;" }))
end
local escape = M.escape

-- A coordinate with two decimals (never "-0.00").
local function num(v)
  local s = ("%.2f"):format(v)
  if s == "-0.00" then
    return "0.00"
  end
  return s
end

-- Approximate rendered width of a label in pixels (sans-serif averages
-- about 0.6 em per character; bold about a tenth more).
local function text_width(s, size, bold)
  return (utf8.len(tostring(s)) or #tostring(s)) * size * (bold and 0.66 or 0.6)
end

-- `s` cut to fit `width` pixels at `size`, ending in "..." when cut (the
-- caller keeps the whole text in a tooltip).
local function fit_text(s, width, size, bold)
  s = tostring(s)
  if text_width(s, size, bold) <= width then
    return s
  end
  local keep = math.floor(width / (size * (bold and 0.66 or 0.6))) - 3
  if keep < 1 then
    return ""
  end
  return s:sub(1, utf8.offset(s, keep + 1) - 1) .. "..."
end

-- Formats a value with `decimals` places, or with a k/M/G suffix when large.
local function format_scaled(v, decimals)
  local s = ("%." .. decimals .. "f"):format(v)
  if s:match("^%-0%.?0*$") then
    s = s:sub(2)
  end
  return s
end

-- A tick label for value v on an axis whose step is `step` and whose
-- largest tick magnitude is `extent` (default |v|): one suffix per axis.
function M.tick_label(v, step, extent)
  if v == 0 then
    return "0"
  end
  local scale, suffix = 1, ""
  local magnitude = math.max(extent or math.abs(v), math.abs(step))
  if magnitude >= 1e9 then
    scale, suffix = 1e9, "G"
  elseif magnitude >= 1e6 then
    scale, suffix = 1e6, "M"
  elseif magnitude >= 1e4 then
    scale, suffix = 1e3, "k"
  end
  local scaled_step = step / scale
  local decimals = 0
  if scaled_step < 1 then
    decimals = math.min(9, math.ceil(-math.log(scaled_step, 10) - 1e-9))
  end
  return format_scaled(v / scale, decimals) .. suffix
end

-- A value printed with three significant digits (cell texts, annotations).
function M.format_value(v)
  if v ~= v then
    return "n/a"
  end
  local a = math.abs(v)
  if a >= 1e9 then
    return format_scaled(v / 1e9, a >= 1e11 and 0 or (a >= 1e10 and 1 or 2)) .. "G"
  elseif a >= 1e6 then
    return format_scaled(v / 1e6, a >= 1e8 and 0 or (a >= 1e7 and 1 or 2)) .. "M"
  elseif a >= 1e4 then
    return format_scaled(v / 1e3, a >= 1e5 and 0 or 1) .. "k"
  elseif a >= 100 or a == 0 then
    return format_scaled(v, 0)
  end
  local decimals = math.min(9, 2 - math.floor(math.log(a, 10)))
  return format_scaled(v, decimals)
end

-- A data value as a short label: integers as such, others with up to four
-- significant digits and no trailing zeros.
function M.format_compact(v)
  if type(v) ~= "number" then
    return tostring(v)
  end
  if v == math.floor(v) and math.abs(v) < 1e15 then
    return ("%d"):format(v)
  end
  return (("%.4g"):format(v))
end

-- A signed percentage with `decimals` places (default 1), v in percent:
-- "+12.5%", "-3.0%", and "0.0%" for anything that rounds to zero (never
-- "-0.0%").
function M.format_percent(v, decimals)
  local s = ("%+." .. (decimals or 1) .. "f"):format(v)
  if s:match("^[-+]0%.?0*$") then
    s = s:sub(2)
  end
  return s .. "%"
end

-- Ticks ------------------------------------------------------------------------------

-- Ticks at "nice" numbers (1-2-5 steps) covering [lo, hi], about `target`
-- of them; returns the tick list, the widened range and the step.
function M.nice_ticks(lo, hi, target)
  target = target or 5
  if hi < lo then
    lo, hi = hi, lo
  end
  if hi == lo then
    local pad = lo == 0 and 1 or math.abs(lo) * 0.1
    lo, hi = lo - pad, hi + pad
  end
  local raw = (hi - lo) / target
  local magnitude = 10 ^ math.floor(math.log(raw, 10))
  local step
  for _, m in ipairs({ 1, 2, 5, 10 }) do
    step = m * magnitude
    if step >= raw * (1 - 1e-9) then
      break
    end
  end
  local first = math.floor(lo / step + 1e-9)
  local last = math.ceil(hi / step - 1e-9)
  local ticks = {}
  for i = first, last do
    local v = i * step
    if math.abs(v) < step * 1e-9 then
      v = 0
    end
    ticks[#ticks + 1] = v
  end
  return ticks, first * step, last * step, step
end

-- Ticks for a log axis over [lo, hi] (both > 0).  Ranges of three decades
-- or more get whole decades; shorter ones 1-2-5 steps, the axis ending at
-- the nearest such value outside the data.  Returns ticks, axis lo, axis hi.
function M.log_ticks(lo, hi)
  local d0, d1 = math.floor(math.log(lo, 10) + 1e-9), math.ceil(math.log(hi, 10) - 1e-9)
  if d1 == d0 then
    d1 = d0 + 1
  end
  local mantissas = (d1 - d0) < 3 and { 1, 2, 5 } or { 1 }
  local candidates = {}
  for d = d0, d1 do
    for _, m in ipairs(mantissas) do
      if d < d1 or m == 1 then
        candidates[#candidates + 1] = { value = m * 10 ^ d, decade = d }
      end
    end
  end
  local first, last = 1, #candidates
  for i, c in ipairs(candidates) do
    if c.value <= lo * (1 + 1e-9) then
      first = i
    end
  end
  for i = #candidates, 1, -1 do
    if candidates[i].value >= hi * (1 - 1e-9) then
      last = i
    end
  end
  local ticks = {}
  for i = first, last do
    local c = candidates[i]
    ticks[#ticks + 1] = { value = c.value, label = M.tick_label(c.value, 10 ^ c.decade) }
  end
  return ticks, ticks[1].value, ticks[#ticks].value
end

-- Checking ---------------------------------------------------------------------------

local function fail(fn, fmt, ...)
  error(("gpush.report.svg.%s: " .. fmt):format(fn, ...), 3)
end

local function check_number(fn, v, what)
  if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
    fail(fn, "%s must be a finite number, got %s", what, tostring(v))
  end
  return v
end

local function check_list(fn, v, what)
  if type(v) ~= "table" or #v == 0 then
    fail(fn, "%s must be a non-empty list", what)
  end
  return v
end

-- Document ---------------------------------------------------------------------------

-- An SVG document being built: a list of lines.
local Doc = {}
Doc.__index = Doc

local function attributes(attrs)
  local parts = {}
  for i = 1, #attrs, 2 do
    local v = attrs[i + 1]
    if type(v) == "number" then
      v = num(v)
    end
    parts[#parts + 1] = (' %s="%s"'):format(attrs[i], escape(v))
  end
  return table.concat(parts)
end

local function new_doc(fn, opts)
  opts = opts or {}
  if type(opts) ~= "table" then
    fail(fn, "opts must be a table, got %s", type(opts))
  end
  local copy = {}
  for k, v in pairs(opts) do
    copy[k] = v
  end
  opts = copy -- plots fill in default labels without touching the caller's table
  local width, height = opts.width or 800, opts.height or 480
  if not opts.width and opts.title then -- a figure sized here is at least as wide as its title
    width = math.max(width, math.ceil(text_width(opts.title, TITLE_SIZE, true)) + 24)
  end
  check_number(fn, width, "opts.width")
  check_number(fn, height, "opts.height")
  if width < 200 or height < 150 then
    fail(fn, "opts.width x opts.height must be at least 200 x 150, got %s x %s", width, height)
  end
  local doc = setmetatable({ lines = {}, width = width, height = height, opts = opts }, Doc)
  doc:raw(('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
    .. 'font-family="%s" font-size="%d">'):format(width, height, width, height, FONT, TICK_SIZE))
  doc:raw(("<title>%s</title>"):format(escape(opts.title or fn)))
  doc:element("rect", { "x", 0, "y", 0, "width", width, "height", height, "fill", "#ffffff" })
  return doc
end

function Doc:raw(line)
  self.lines[#self.lines + 1] = line
end

-- An element; `attrs` is a flat list name, value, ... (kept in order);
-- `tooltip` becomes a <title> child (shown on hover by browsers).
function Doc:element(name, attrs, tooltip)
  if tooltip then
    self:raw(("<%s%s><title>%s</title></%s>"):format(name, attributes(attrs), escape(tooltip), name))
  else
    self:raw(("<%s%s/>"):format(name, attributes(attrs)))
  end
end

function Doc:text(x, y, s, attrs)
  local all = { "x", x, "y", y }
  for _, v in ipairs(attrs or {}) do
    all[#all + 1] = v
  end
  self:raw(("<text%s>%s</text>"):format(attributes(all), escape(s)))
end

function Doc:open_group(attrs)
  self:raw(("<g%s>"):format(attributes(attrs)))
end

function Doc:close_group()
  self:raw("</g>")
end

function Doc:finish()
  self:raw("</svg>")
  return table.concat(self.lines, "\n") .. "\n"
end

-- A marker of `shape` centred at (x, y), radius r.
function Doc:marker(shape, x, y, r, color, tooltip)
  local attrs
  if shape == "square" then
    attrs = { "x", x - r, "y", y - r, "width", 2 * r, "height", 2 * r }
    shape = "rect"
  elseif shape == "triangle" then
    attrs = { "points", ("%s,%s %s,%s %s,%s"):format(num(x), num(y - r * 1.15), num(x + r), num(y + r * 0.85),
      num(x - r), num(y + r * 0.85)) }
    shape = "polygon"
  elseif shape == "diamond" then
    attrs = { "points", ("%s,%s %s,%s %s,%s %s,%s"):format(num(x), num(y - r * 1.2), num(x + r * 1.2), num(y),
      num(x), num(y + r * 1.2), num(x - r * 1.2), num(y)) }
    shape = "polygon"
  elseif shape == "cross" then
    attrs = { "d", ("M%s %sL%s %sM%s %sL%s %s"):format(num(x - r), num(y - r), num(x + r), num(y + r),
      num(x - r), num(y + r), num(x + r), num(y - r)), "stroke-width", 2.5 }
    shape = "path"
  else
    attrs = { "cx", x, "cy", y, "r", r }
    shape = "circle"
  end
  attrs[#attrs + 1] = shape == "path" and "stroke" or "fill"
  attrs[#attrs + 1] = color
  if shape ~= "path" then
    for _, v in ipairs({ "stroke", "#ffffff", "stroke-width", 0.8 }) do
      attrs[#attrs + 1] = v
    end
  end
  self:element(shape, attrs, tooltip)
end

-- Frame: title, plot area, axis labels -------------------------------------------------

-- The top of the plot area: below the title when there is one.
local function plot_top(doc)
  return doc.opts.title and 44 or 16
end

-- The plot rectangle for a document with a legend `legend_width` wide on the
-- right and `bottom` pixels below the plot for tick labels.
local function layout(doc, legend_width, bottom, left)
  local area = { left = left or 78, top = plot_top(doc) }
  area.right = doc.width - 16 - (legend_width > 0 and legend_width + 18 or 0)
  area.bottom = doc.height - (bottom or 58)
  if area.right - area.left < 60 or area.bottom - area.top < 40 then
    error("gpush.report.svg: the plot does not fit: make opts.width/opts.height larger or labels shorter", 3)
  end
  return area
end

local function draw_title_and_labels(doc, area)
  local opts = doc.opts
  if opts.title then
    doc:text(doc.width / 2, 26, fit_text(opts.title, doc.width - 12, TITLE_SIZE, true), { "text-anchor", "middle",
      "font-size", TITLE_SIZE, "font-weight", "bold", "class", "title" })
  end
  if opts.x_label then
    doc:text((area.left + area.right) / 2, doc.height - 12, opts.x_label,
      { "text-anchor", "middle", "font-size", LABEL_SIZE, "class", "x-label" })
  end
  if opts.y_label then
    local y = (area.top + area.bottom) / 2
    local room = 2 * math.min(y, doc.height - y) - 8 -- centred on the plot, inside the canvas
    doc:text(18, y, fit_text(opts.y_label, room, LABEL_SIZE), { "text-anchor", "middle", "font-size", LABEL_SIZE,
      "class", "y-label", "transform", ("rotate(-90 18 %s)"):format(num(y)) })
  end
end

-- A linear or log mapping from data to pixels.
local function scale_of(lo, hi, p0, p1, log)
  if log then
    local l0, l1 = math.log(lo, 10), math.log(hi, 10)
    return function(v) return p0 + (math.log(v, 10) - l0) / (l1 - l0) * (p1 - p0) end
  end
  return function(v) return p0 + (v - lo) / (hi - lo) * (p1 - p0) end
end

-- Y axis: grid lines and tick labels; `ticks` is a list of {value, label}.
-- A label closer than a text line to the last one written is left out
-- (its grid line stays).
local function draw_y_axis(doc, area, ticks, y_of)
  doc:open_group({ "class", "y-axis" })
  local last
  for _, t in ipairs(ticks) do
    local y = y_of(t.value)
    doc:element("line", { "x1", area.left, "y1", y, "x2", area.right, "y2", y, "stroke", "#e0e0e0" })
    if not last or math.abs(last - y) >= TICK_SIZE + 3 then
      doc:text(area.left - 6, y + 4, t.label, { "text-anchor", "end", "class", "tick", "data-value",
        ("%.6g"):format(t.value) })
      last = y
    end
  end
  doc:close_group()
end

-- X axis: grid lines and tick labels, thinned so that no two labels touch:
-- a label that would meet the last one written is left out.
local function draw_x_axis(doc, area, ticks, x_of)
  doc:open_group({ "class", "x-axis" })
  local last_right
  for _, t in ipairs(ticks) do
    local x = x_of(t.value)
    doc:element("line", { "x1", x, "y1", area.top, "x2", x, "y2", area.bottom, "stroke", "#e0e0e0" })
    local half = text_width(t.label, TICK_SIZE) / 2
    if not last_right or x - half >= last_right + 6 then
      doc:text(x, area.bottom + 16, t.label, { "text-anchor", "middle", "class", "tick", "data-value",
        ("%.6g"):format(t.value) })
      last_right = x + half
    end
  end
  doc:close_group()
end

local function draw_frame(doc, area)
  doc:element("rect", { "x", area.left, "y", area.top, "width", area.right - area.left,
    "height", area.bottom - area.top, "fill", "none", "stroke", "#404040" })
end

-- Linear ticks as {value, label}.
local function linear_ticks(lo, hi, target)
  local values, tlo, thi, step = M.nice_ticks(lo, hi, target)
  local extent = math.max(math.abs(tlo), math.abs(thi))
  local ticks = {}
  for i, v in ipairs(values) do
    ticks[i] = { value = v, label = M.tick_label(v, step, extent) }
  end
  return ticks, tlo, thi
end

-- The widest label of a tick list, in pixels.
local function ticks_width(ticks)
  local w = 0
  for _, t in ipairs(ticks) do
    w = math.max(w, text_width(t.label, TICK_SIZE))
  end
  return w
end

-- Legend: entries {label, color, kind = "box"|"line"|"marker"|"heading"|"note"
-- (a line of text), marker, dash}, in columns of as many rows as the figure's height holds
-- (a legend longer than that wraps into further columns; the plot area
-- narrows to make room).
local LEGEND_ROW = 18

local function legend_layout(entries, heading, doc)
  local rows = #entries + (heading and 1 or 0)
  local per_column = rows
  if doc then
    per_column = math.max(1, math.floor((doc.height - plot_top(doc) - 14) / LEGEND_ROW))
  end
  local columns = math.max(1, math.ceil(rows / per_column))
  per_column = math.ceil(rows / columns)
  local w = heading and text_width(heading, LEGEND_SIZE, true) or 0
  for _, e in ipairs(entries) do
    w = math.max(w, e.kind == "heading" and text_width(e.label, LEGEND_SIZE, true)
      or e.kind == "note" and text_width(e.label, LEGEND_SIZE) or 30 + text_width(e.label, LEGEND_SIZE))
  end
  w = math.ceil(w)
  return { columns = columns, per_column = per_column, column_width = w, width = columns * w + (columns - 1) * 14 }
end

-- The legend's width; with `doc`, wrapped to the figure's height.
local function legend_width(entries, heading, doc)
  return legend_layout(entries, heading, doc).width
end

local function draw_legend(doc, area, entries, heading)
  local l = legend_layout(entries, heading, doc)
  local items = {}
  if heading then
    items[1] = { label = heading, kind = "heading" }
  end
  for _, e in ipairs(entries) do
    items[#items + 1] = e
  end
  doc:open_group({ "class", "legend" })
  for i, e in ipairs(items) do
    local column, row = (i - 1) // l.per_column, (i - 1) % l.per_column
    local x, y = area.right + 18 + column * (l.column_width + 14), plot_top(doc) + 4 + row * LEGEND_ROW
    if e.kind == "heading" then
      doc:text(x, y + 10, e.label, { "font-size", LEGEND_SIZE, "font-weight", "bold", "class", "legend-heading" })
    elseif e.kind == "note" then
      doc:text(x, y + 10, e.label, { "font-size", LEGEND_SIZE, "fill", "#505050", "class", "legend-note" })
    else
      if e.kind == "line" then
        doc:element("line", { "x1", x, "y1", y + 6, "x2", x + 22, "y2", y + 6, "stroke", e.color,
          "stroke-width", 2, "stroke-dasharray", e.dash or "" })
        if e.marker then
          doc:marker(e.marker, x + 11, y + 6, 4, e.color)
        end
      elseif e.kind == "marker" then
        doc:marker(e.marker or "circle", x + 11, y + 6, 4.5, e.color)
      else
        doc:element("rect", { "x", x + 4, "y", y, "width", 14, "height", 12, "fill", e.color,
          "stroke", "#404040", "stroke-width", 0.5 })
      end
      doc:text(x + 28, y + 10, e.label, { "font-size", LEGEND_SIZE, "class", "legend-entry" })
    end
  end
  doc:close_group()
end

-- Small multiples: a grid of panels with one legend -------------------------------------

-- Each panel's plot rectangle is at least this big; above it sits the
-- panel's title, below it its x tick labels.
local PANEL_W, PANEL_H, PANEL_TITLE, PANEL_TICKS = 170, 110, 22, 24

-- Columns of a grid of n panels: opts.columns, else up to four.
local function panel_columns(n, opts)
  if opts.columns then
    return opts.columns
  end
  return n <= 3 and n or n <= 4 and 2 or n <= 9 and 3 or 4
end

-- The figure size a grid of n panels needs (opts.width/height win): room
-- for the shared y label, each panel's y tick labels (y_tick_w wide), the
-- legend on the right, the title and the shared x label.
local function panel_figure_size(n, opts, y_tick_w, legend_w)
  local columns = panel_columns(n, opts)
  local rows = math.ceil(n / columns)
  local width = 30 + columns * (y_tick_w + 10 + (opts.panel_width or PANEL_W) + 16)
    + (legend_w > 0 and legend_w + 18 or 0) + 16
  local height = (opts.title and 44 or 16) + rows * (PANEL_TITLE + (opts.panel_height or PANEL_H) + PANEL_TICKS) + 36
  return opts.width or math.ceil(width), opts.height or math.ceil(height)
end

-- The plot rectangles of n panels in the figure (row by row), and the
-- rectangle around them all (where the shared axis labels centre).
local function panel_areas(doc, n, y_tick_w, legend_w)
  local columns = panel_columns(n, doc.opts)
  local rows = math.ceil(n / columns)
  local outer = { left = 30, top = plot_top(doc) - 12,
    right = doc.width - 16 - (legend_w > 0 and legend_w + 18 or 0), bottom = doc.height - 36 }
  local cell_w, cell_h = (outer.right - outer.left) / columns, (outer.bottom - outer.top) / rows
  local areas = {}
  for i = 1, n do
    local c, r = (i - 1) % columns, (i - 1) // columns
    areas[i] = { left = outer.left + c * cell_w + y_tick_w + 10, right = outer.left + (c + 1) * cell_w - 16,
      top = outer.top + r * cell_h + PANEL_TITLE, bottom = outer.top + (r + 1) * cell_h - PANEL_TICKS }
    if areas[i].right - areas[i].left < 60 or areas[i].bottom - areas[i].top < 40 then
      error("gpush.report.svg: the panels do not fit: make opts.width/opts.height larger or use fewer panels", 3)
    end
  end
  return areas, outer
end

-- A panel's title centred above it, cut to the panel's width (the whole
-- text stays as its tooltip).
local function draw_panel_title(doc, area, label, y_tick_w)
  local room = area.right - area.left + y_tick_w
  doc:raw(("<text%s>%s<title>%s</title></text>"):format(attributes({ "x", (area.left - y_tick_w + area.right) / 2,
    "y", area.top - 7, "text-anchor", "middle", "font-size", LABEL_SIZE, "font-weight", "bold",
    "class", "panel-title" }), escape(fit_text(label, room, LABEL_SIZE, true)), escape(label)))
end

-- (a) Stacked bars -------------------------------------------------------------------

-- A copy of opts with the figure's size filled in where opts gives none.
local function sized(fn, opts, width, height)
  if opts ~= nil and type(opts) ~= "table" then
    fail(fn, "opts must be a table, got %s", type(opts))
  end
  local copy = {}
  for k, v in pairs(opts or {}) do
    copy[k] = v
  end
  copy.width, copy.height = copy.width or width, copy.height or height
  return copy
end

-- A copy of opts whose width, unless given, leaves a plot area of at
-- least 420 pixels beside the legend (which wraps into columns when the
-- figure's height cannot hold it): many series widen the figure instead of
-- squeezing the plot or running off the canvas.
local function wide_enough(fn, opts, entries)
  local probe = sized(fn, opts)
  if probe.width then
    return probe
  end
  local legend_w = legend_width(entries, nil, { height = probe.height or 480, opts = probe })
  local needed = 78 + 420 + 34 + legend_w
  return needed > 800 and sized(fn, opts, needed) or probe
end

-- The document of a grid of n panels, sized for them unless opts says,
-- with the panels' plot rectangles and the rectangle around them.
local function panel_doc(fn, opts, n, y_tick_w, entries)
  local probe = sized(fn, opts)
  local legend_w = legend_width(entries)
  local _, height = panel_figure_size(n, probe, y_tick_w, legend_w)
  legend_w = legend_width(entries, nil, { height = probe.height or height, opts = probe })
  local width, height = panel_figure_size(n, probe, y_tick_w, legend_w)
  if probe.title then -- a figure sized here is at least as wide as its title
    width = math.max(width, math.ceil(text_width(probe.title, TITLE_SIZE, true)) + 24)
  end
  if probe.y_label then -- and as tall as its y label
    height = math.max(height, math.ceil(text_width(probe.y_label, LABEL_SIZE)) + (probe.title and 88 or 32))
  end
  local doc = new_doc(fn, sized(fn, opts, width, height))
  local areas, outer = panel_areas(doc, n, y_tick_w, legend_width(entries, nil, doc))
  return doc, areas, outer
end

-- Draws group g's bars from x with `slot` pixels each, on y_of, the bar
-- labels under `bottom` (every `every`-th one, so labels never touch);
-- returns the x after the last bar.
local function draw_bars(doc, g, x, slot, bottom, every, y_of, categories, colors, marker_label)
  local bar_width = slot * 0.72
  local marker_points = {}
  for bi, bar in ipairs(g.bars) do
    local left = x + (slot - bar_width) / 2
    local base = 0
    for _, c in ipairs(categories) do
      local v = bar.values[c] or 0
      if v > 0 then
        local y0, y1 = y_of(base), y_of(base + v)
        doc:element("rect", { "class", "segment", "data-category", c, "data-value", ("%.6g"):format(v),
          "x", left, "y", y1, "width", bar_width, "height", y0 - y1,
          "fill", colors[c] or "#888888", "stroke", "#ffffff", "stroke-width", 0.5 },
          ("%s, %s: %s %s"):format(g.label or "", bar.label or "", c, M.format_value(v)))
      end
      base = base + v
    end
    if bar.marker then
      marker_points[#marker_points + 1] = { x + slot / 2, y_of(bar.marker), bar.marker }
    end
    if (bi - 1) % every == 0 then
      doc:text(x + slot / 2, bottom + 14, bar.label or "", { "text-anchor", "middle", "class", "bar-label" })
    end
    x = x + slot
  end
  if #marker_points > 0 then
    local pts = {}
    for i, p in ipairs(marker_points) do
      pts[i] = num(p[1]) .. "," .. num(p[2])
    end
    doc:element("polyline", { "class", "marker-line", "points", table.concat(pts, " "), "fill", "none",
      "stroke", "#000000", "stroke-width", 1.5 })
    for _, p in ipairs(marker_points) do
      doc:marker("circle", p[1], p[2], 3.5, "#000000", (marker_label or "reference") .. " "
        .. M.format_value(p[3]))
    end
  end
  return x
end

-- How often a bar label can be written when labels are `longest` pixels
-- wide and bars `slot` apart: every bar, every second, ...
local function label_every(longest, slot)
  return math.max(1, math.ceil((longest + 6) / slot))
end

-- One panel per group, each with its own y scale (opts.shared_y: one for
-- all), the bars' labels under each panel.
local function stacked_panels(fn, data, opts, categories, colors, entries, tops, top)
  local scales, y_tick_w = {}, 0
  for gi in ipairs(data.groups) do
    local panel_top = opts.shared_y and top or tops[gi]
    local ticks, _, hi = linear_ticks(0, panel_top > 0 and panel_top * 1.04 or 1, 4) -- markers off the frame
    scales[gi] = { ticks = ticks, hi = hi }
    y_tick_w = math.max(y_tick_w, ticks_width(ticks))
  end
  local doc, areas, outer = panel_doc(fn, opts, #data.groups, y_tick_w, entries)
  for gi, g in ipairs(data.groups) do
    local area = areas[gi]
    local y_of = scale_of(0, scales[gi].hi, area.bottom, area.top)
    draw_y_axis(doc, area, scales[gi].ticks, y_of)
    doc:open_group({ "class", "bar-group", "data-group", g.label or tostring(gi) })
    draw_panel_title(doc, area, g.label or "", y_tick_w)
    local slot = (area.right - area.left) / #g.bars
    local longest = 0
    for _, bar in ipairs(g.bars) do
      longest = math.max(longest, text_width(bar.label or "", TICK_SIZE))
    end
    draw_bars(doc, g, area.left, slot, area.bottom, label_every(longest, slot), y_of, categories, colors,
      doc.opts.marker_label)
    doc:close_group()
    draw_frame(doc, area)
  end
  draw_legend(doc, outer, entries)
  draw_title_and_labels(doc, outer)
  return doc:finish()
end

-- data = { categories = {..} (default the CPI stack order), colors = {cat = "#rrggbb"},
--          groups = { { label = "kernel", bars = { { label = "8 warps",
--            values = { BASE = .., DEP = .. }, marker = number or nil }, ... } }, ... },
--          legend = "given" (list the categories in their order; default top of the stack first) }
-- opts: title, x_label, y_label, width, height, marker_label (legend text of
-- the markers, e.g. "simulator CPI"; Fig. 16 draws the oracle CPI so),
-- panels (one panel per group, each on its own y scale, so a kernel at 0.5
-- CPI stays as readable as one at 150; shared_y puts them on one scale;
-- columns, panel_width, panel_height size the grid).  Bar labels that
-- would touch are thinned (every second one, ...), never rotated.
function M.stacked_bars(data, opts)
  local fn = "stacked_bars"
  if type(data) ~= "table" then
    fail(fn, "data must be a table, got %s", type(data))
  end
  local categories = data.categories or M.cpi_categories
  local colors = data.colors or M.cpi_colors
  check_list(fn, categories, "data.categories")
  check_list(fn, data.groups, "data.groups")
  local top, nbars, has_marker, tops = 0, 0, false, {}
  for gi, g in ipairs(data.groups) do
    check_list(fn, g.bars, ("data.groups[%d].bars"):format(gi))
    tops[gi] = 0
    for bi, bar in ipairs(g.bars) do
      local where = ("data.groups[%d].bars[%d]"):format(gi, bi)
      if type(bar.values) ~= "table" then
        fail(fn, "%s.values must be a table of category = number", where)
      end
      local total = 0
      for _, c in ipairs(categories) do
        local v = check_number(fn, bar.values[c] or 0, ("%s.values.%s"):format(where, c))
        if v < 0 then
          fail(fn, "%s.values.%s must not be negative, got %s", where, c, v)
        end
        total = total + v
      end
      if bar.marker ~= nil then
        check_number(fn, bar.marker, where .. ".marker")
        has_marker = true
        total = math.max(total, bar.marker)
      end
      tops[gi] = math.max(tops[gi], total)
      nbars = nbars + 1
    end
    top = math.max(top, tops[gi])
  end
  local entries = {}
  for j = 1, #categories do -- top of the stack first, as it is drawn (data.legend = "given": as given)
    local i = data.legend == "given" and j or #categories + 1 - j
    local c = categories[i]
    entries[#entries + 1] = { label = c, color = colors[c] or M.palette[(i - 1) % #M.palette + 1] }
  end
  if has_marker then
    entries[#entries + 1] = { label = type(opts) == "table" and opts.marker_label or "reference", color = "#000000",
      kind = "line", marker = "circle" }
  end
  if type(opts) == "table" and opts.panels then
    return stacked_panels(fn, data, opts, categories, colors, entries, tops, top)
  end
  local doc = new_doc(fn, opts)
  opts = doc.opts
  local slots = nbars + (#data.groups - 1)
  local longest = 0
  for _, g in ipairs(data.groups) do
    for _, bar in ipairs(g.bars) do
      longest = math.max(longest, text_width(bar.label or "", TICK_SIZE))
    end
  end
  local area = layout(doc, legend_width(entries, nil, doc), 58 + 18)
  local slot = (area.right - area.left) / slots
  local every = label_every(longest, slot)
  local ticks, _, y_hi = linear_ticks(0, top > 0 and top * 1.04 or 1, 5) -- markers off the frame
  local y_of = scale_of(0, y_hi, area.bottom, area.top)
  draw_y_axis(doc, area, ticks, y_of)
  -- group labels wider than their bars shrink, all alike (no smaller than 9 px), then are cut
  local group_size = LABEL_SIZE
  for _, g in ipairs(data.groups) do
    local span, width = #g.bars * slot - 8, text_width(g.label or "", LABEL_SIZE, true)
    if width > span then
      group_size = math.min(group_size, math.max(9, math.floor(LABEL_SIZE * span / width * 10) / 10))
    end
  end
  local x = area.left
  for gi, g in ipairs(data.groups) do
    local group_start = x
    doc:open_group({ "class", "bar-group", "data-group", g.label or tostring(gi) })
    x = draw_bars(doc, g, x, slot, area.bottom, every, y_of, categories, colors, opts.marker_label)
    local gy = area.bottom + 18 + 14
    doc:element("line", { "x1", group_start + 4, "y1", gy - 12, "x2", x - 4, "y2", gy - 12, "stroke", "#404040" })
    local label = g.label or ""
    local shown = fit_text(label, #g.bars * slot + slot - 8, group_size, true)
    local attrs = attributes({ "x", (group_start + x) / 2, "y", gy + 2, "text-anchor", "middle",
      "font-size", group_size, "font-weight", "bold", "class", "group-label" })
    if shown == label then
      doc:raw(("<text%s>%s</text>"):format(attrs, escape(label)))
    else
      doc:raw(("<text%s>%s<title>%s</title></text>"):format(attrs, escape(shown), escape(label)))
    end
    doc:close_group()
    x = x + slot
  end
  draw_frame(doc, area)
  draw_legend(doc, area, entries)
  -- the x label sits under the group labels
  draw_title_and_labels(doc, area)
  return doc:finish()
end

-- Series styles shared by lines and roofline: colour by `group` (or by
-- series), marker and dash by `style`.
local function series_styles(series)
  local colors, styles, ncolors, nstyles = {}, {}, 0, 0
  local out = {}
  for i, s in ipairs(series) do
    local ckey = s.group or s.label or tostring(i)
    if not colors[ckey] then
      ncolors = ncolors + 1
      colors[ckey] = M.palette[(ncolors - 1) % #M.palette + 1]
    end
    local skey = s.style or (s.group and "" or ckey)
    if not styles[skey] then
      nstyles = nstyles + 1
      styles[skey] = nstyles
    end
    local si = styles[skey]
    out[i] = { color = s.color or colors[ckey], marker = MARKERS[(si - 1) % #MARKERS + 1],
      dash = s.group and DASHES[(si - 1) % #DASHES + 1] or "" }
  end
  return out
end

-- The ticks and mapping of a numeric axis over the data range [lo, hi];
-- `zero` takes 0 into a linear range, `pad` keeps the data off the frame
-- (a linear axis gets that share of the range above the data, a log axis
-- that factor either side).
local function axis(lo, hi, p0, p1, log, zero, pad)
  if log then
    if pad then
      lo, hi = lo / (1 + pad), hi * (1 + pad)
    end
    local ticks, tlo, thi = M.log_ticks(lo, hi)
    return ticks, scale_of(tlo, thi, p0, p1, true)
  end
  if zero then
    lo, hi = math.min(lo, 0), math.max(hi, 0)
  end
  if pad and hi > lo then
    hi = hi + (hi - lo) * pad
  end
  local ticks, tlo, thi = linear_ticks(lo, hi, 6)
  return ticks, scale_of(tlo, thi, p0, p1, false)
end

-- (b) Lines --------------------------------------------------------------------------

-- Checks the series; returns each series' x values and the data ranges
-- ({x_lo, x_hi} over all, {y_lo, y_hi} per series, nil where all gaps).
local function check_series(fn, data, opts)
  local xs_of, x_lo, x_hi, y_range = {}, math.huge, -math.huge, {}
  for si, s in ipairs(data.series) do
    local xs = s.x or data.x
    check_list(fn, xs, ("data.series[%d].x (or data.x)"):format(si))
    check_list(fn, s.y, ("data.series[%d].y"):format(si))
    if #xs ~= #s.y then
      fail(fn, "data.series[%d] has %d x values and %d y values", si, #xs, #s.y)
    end
    xs_of[si] = xs
    for i = 1, #xs do
      local xv = check_number(fn, xs[i], ("data.series[%d].x[%d]"):format(si, i))
      if opts.log_x and xv <= 0 then
        fail(fn, "data.series[%d].x[%d] must be positive on a log axis, got %s", si, i, xv)
      end
      x_lo, x_hi = math.min(x_lo, xv), math.max(x_hi, xv)
      if s.y[i] ~= false then
        local yv = check_number(fn, s.y[i], ("data.series[%d].y[%d]"):format(si, i))
        if opts.log_y and yv <= 0 then
          fail(fn, "data.series[%d].y[%d] must be positive on a log axis, got %s", si, i, yv)
        end
        local r = y_range[si] or { yv, yv }
        y_range[si] = { math.min(r[1], yv), math.max(r[2], yv) }
      end
    end
  end
  return xs_of, x_lo, x_hi, y_range
end

-- The x axis of a lines plot over [left, right]: ticks at the data's x
-- values (opts.x_ticks = "data", the axis padded so no point sits on the
-- frame) or at 1-2-5 steps.
local function lines_x_axis(xs_of, x_lo, x_hi, left, right, opts)
  if opts.x_ticks == "data" and not opts.log_x then
    local pad = (x_hi - x_lo) * 0.04
    if pad == 0 then
      pad = 1
    end
    local seen, values, ticks = {}, {}, {}
    for _, xs in ipairs(xs_of) do
      for _, v in ipairs(xs) do
        if not seen[v] then
          seen[v] = true
          values[#values + 1] = v
        end
      end
    end
    table.sort(values)
    for i, v in ipairs(values) do
      ticks[i] = { value = v, label = M.format_compact(v) }
    end
    return ticks, scale_of(x_lo - pad, x_hi + pad, left, right, false)
  end
  return axis(x_lo, x_hi, left, right, opts.log_x, false)
end

-- The y range of some series (indices `which`).
local function y_range_of(y_range, which)
  local lo, hi = math.huge, -math.huge
  for _, si in ipairs(which) do
    if y_range[si] then
      lo, hi = math.min(lo, y_range[si][1]), math.max(hi, y_range[si][2])
    end
  end
  return lo, hi
end

-- Draws series si (polylines over unbroken runs, then its markers).
local function draw_series(doc, s, xs, st, label, x_of, y_of)
  doc:open_group({ "class", "series", "data-label", label })
  local run = {}
  local function flush()
    if #run > 1 then
      doc:element("polyline", { "points", table.concat(run, " "), "fill", "none", "stroke", st.color,
        "stroke-width", 2, "stroke-dasharray", st.dash })
    end
    run = {}
  end
  for i = 1, #xs do
    if s.y[i] == false then
      flush()
    else
      run[#run + 1] = num(x_of(xs[i])) .. "," .. num(y_of(s.y[i]))
    end
  end
  flush()
  for i = 1, #xs do
    if s.y[i] ~= false then
      doc:marker(st.marker, x_of(xs[i]), y_of(s.y[i]), 4, st.color,
        ("%s: x %s, y %s"):format(label, M.format_compact(xs[i]), M.format_value(s.y[i])))
    end
  end
  doc:close_group()
end

-- One panel per group (a kernel), its series told apart by style (a
-- model): colour, marker and dash by style, one legend entry per style;
-- x shared, y per panel unless opts.shared_y.
local function lines_panels(fn, data, opts, xs_of, x_lo, x_hi, y_range)
  local panels, by_group, styles, entries = {}, {}, {}, {}
  for si, s in ipairs(data.series) do
    local g = s.group or s.label or tostring(si)
    if not by_group[g] then
      by_group[g] = { label = g, series = {} }
      panels[#panels + 1] = by_group[g]
    end
    table.insert(by_group[g].series, si)
    local key = s.style or s.label or tostring(si)
    if not styles[key] then
      local n = #entries + 1
      styles[key] = { color = M.palette[(n - 1) % #M.palette + 1], marker = MARKERS[(n - 1) % #MARKERS + 1],
        dash = DASHES[(n - 1) % #DASHES + 1] }
      entries[n] = { label = key, color = styles[key].color, kind = "line", marker = styles[key].marker,
        dash = styles[key].dash }
    end
  end
  local all = {}
  for si in ipairs(data.series) do
    all[si] = si
  end
  local y_tick_w, scales = 0, {}
  for pi, p in ipairs(panels) do
    local lo, hi = y_range_of(y_range, opts.shared_y and all or p.series)
    if lo == math.huge then
      lo, hi = opts.log_y and 1 or 0, opts.log_y and 10 or 1
    end
    scales[pi] = { lo = lo, hi = hi }
    y_tick_w = math.max(y_tick_w, ticks_width((axis(lo, hi, 0, 1, opts.log_y, opts.y_zero ~= false, 0.04))))
  end
  local doc, areas, outer = panel_doc(fn, opts, #panels, y_tick_w, entries)
  for pi, p in ipairs(panels) do
    local area = areas[pi]
    local x_ticks, x_of = lines_x_axis(xs_of, x_lo, x_hi, area.left, area.right, opts)
    local y_ticks, y_of = axis(scales[pi].lo, scales[pi].hi, area.bottom, area.top, opts.log_y,
      opts.y_zero ~= false, 0.04)
    draw_y_axis(doc, area, y_ticks, y_of)
    draw_x_axis(doc, area, x_ticks, x_of)
    draw_panel_title(doc, area, p.label, y_tick_w)
    for _, si in ipairs(p.series) do
      local s = data.series[si]
      draw_series(doc, s, xs_of[si], styles[s.style or s.label or tostring(si)], s.label or ("series " .. si),
        x_of, y_of)
    end
    draw_frame(doc, area)
  end
  draw_legend(doc, outer, entries)
  draw_title_and_labels(doc, outer)
  return doc:finish()
end

-- data = { x = {..} (shared x values, optional),
--          series = { { label = "stream_triad GPUMech-RR", y = {..}, x = {..} (optional),
--                       group = "stream_triad" (colour), style = "GPUMech-RR" (marker, dash) } } }
-- A y value `false` leaves a gap.  opts: title, x_label, y_label, width,
-- height, log_x, log_y, y_zero (start the y axis at 0; default true on a
-- linear axis), x_ticks = "data" (ticks at the data's x values), panels
-- (one panel per group, series told apart by style; shared_y, columns,
-- panel_width, panel_height as for stacked_bars).  The y axis keeps the
-- data off the frame; a legend longer than the figure wraps into columns.
function M.lines(data, opts)
  local fn = "lines"
  if type(data) ~= "table" then
    fail(fn, "data must be a table, got %s", type(data))
  end
  check_list(fn, data.series, "data.series")
  local given = sized(fn, opts)
  local xs_of, x_lo, x_hi, y_range = check_series(fn, data, given)
  local all = {}
  for si in ipairs(data.series) do
    all[si] = si
  end
  local y_lo, y_hi = y_range_of(y_range, all)
  if y_lo == math.huge then
    fail(fn, "no y value to plot")
  end
  if given.panels then
    return lines_panels(fn, data, opts, xs_of, x_lo, x_hi, y_range)
  end
  local styles = series_styles(data.series)
  local entries = {}
  for i, s in ipairs(data.series) do
    entries[i] = { label = s.label or ("series " .. i), color = styles[i].color, kind = "line",
      marker = styles[i].marker, dash = styles[i].dash }
  end
  local doc = new_doc(fn, wide_enough(fn, opts, entries))
  opts = doc.opts
  local area = layout(doc, legend_width(entries, nil, doc), 58)
  local x_ticks, x_of = lines_x_axis(xs_of, x_lo, x_hi, area.left, area.right, opts)
  local y_ticks, y_of = axis(y_lo, y_hi, area.bottom, area.top, opts.log_y, opts.y_zero ~= false, 0.04)
  draw_y_axis(doc, area, y_ticks, y_of)
  draw_x_axis(doc, area, x_ticks, x_of)
  for si, s in ipairs(data.series) do
    draw_series(doc, s, xs_of[si], styles[si], entries[si].label, x_of, y_of)
  end
  draw_frame(doc, area)
  draw_legend(doc, area, entries)
  draw_title_and_labels(doc, area)
  return doc:finish()
end

-- (b2) Boxes -------------------------------------------------------------------------

-- data = { boxes = { { label = "300 MHz", mean = .., lo = .., hi = .., min = .., max = .. }, ... } }
-- One box per category, left to right: whiskers from min to max, a box
-- from lo to hi (for example mean -/+ one standard deviation, as Wu et al.'s
-- Fig. 12 draws them), a line at the mean.  opts: title, x_label, y_label,
-- width, height, y_zero (default true).
function M.boxes(data, opts)
  local fn = "boxes"
  if type(data) ~= "table" then
    fail(fn, "data must be a table, got %s", type(data))
  end
  check_list(fn, data.boxes, "data.boxes")
  local doc = new_doc(fn, opts)
  opts = doc.opts
  local y_lo, y_hi = math.huge, -math.huge
  for i, b in ipairs(data.boxes) do
    for _, key in ipairs { "min", "lo", "mean", "hi", "max" } do
      local v = check_number(fn, b[key], ("data.boxes[%d].%s"):format(i, key))
      y_lo, y_hi = math.min(y_lo, v), math.max(y_hi, v)
    end
    if not (b.min <= b.lo and b.lo <= b.hi and b.hi <= b.max) then
      fail(fn, "data.boxes[%d] needs min <= lo <= hi <= max", i)
    end
  end
  local area = layout(doc, 0, 58)
  local y_ticks, y_of = axis(y_lo, y_hi, area.bottom, area.top, false, opts.y_zero ~= false, 0.04)
  draw_y_axis(doc, area, y_ticks, y_of)
  local n = #data.boxes
  local slot = (area.right - area.left) / n
  local half = math.min(28, slot * 0.3)
  local longest = 0
  for i, b in ipairs(data.boxes) do
    longest = math.max(longest, text_width(b.label or tostring(i), TICK_SIZE))
  end
  local every = label_every(longest, slot)
  for i, b in ipairs(data.boxes) do
    local x = area.left + slot * (i - 0.5)
    local label = b.label or tostring(i)
    doc:open_group({ "class", "box", "data-label", label, "data-mean", ("%.6g"):format(b.mean) })
    doc:element("line", { "x1", x, "y1", y_of(b.min), "x2", x, "y2", y_of(b.max), "stroke", "#404040" })
    for _, v in ipairs { b.min, b.max } do
      doc:element("line", { "x1", x - half / 2, "y1", y_of(v), "x2", x + half / 2, "y2", y_of(v), "stroke", "#404040" })
    end
    doc:element("rect", { "x", x - half, "y", y_of(b.hi), "width", 2 * half, "height", y_of(b.lo) - y_of(b.hi),
      "fill", M.palette[1], "fill-opacity", 0.35, "stroke", M.palette[1] },
      ("%s: mean %s, box %s to %s, range %s to %s"):format(label, M.format_value(b.mean), M.format_value(b.lo),
        M.format_value(b.hi), M.format_value(b.min), M.format_value(b.max)))
    doc:element("line", { "x1", x - half, "y1", y_of(b.mean), "x2", x + half, "y2", y_of(b.mean),
      "stroke", "#000000", "stroke-width", 2 })
    if (i - 1) % every == 0 then
      doc:text(x, area.bottom + 16, label, { "text-anchor", "middle", "class", "tick" })
    end
    doc:close_group()
  end
  draw_frame(doc, area)
  draw_title_and_labels(doc, area)
  return doc:finish()
end

-- (c) Heat map -------------------------------------------------------------------------

-- The scale's colour at t in [0, 1], and whether text on it should be white.
function M.scale_color(t)
  t = math.max(0, math.min(1, t))
  local pos = t * (#SCALE - 1)
  local i = math.min(#SCALE - 2, math.floor(pos))
  local f = pos - i
  local a, b = SCALE[i + 1], SCALE[i + 2]
  local rgb = {}
  for k = 1, 3 do
    rgb[k] = math.floor(a[k] + (b[k] - a[k]) * f + 0.5)
  end
  local luminance = (0.2126 * rgb[1] + 0.7152 * rgb[2] + 0.0722 * rgb[3]) / 255
  return ("#%02x%02x%02x"):format(rgb[1], rgb[2], rgb[3]), luminance < 0.5
end

-- data = { x = {labels of columns}, y = {labels of rows, bottom first},
--          values = { {row y[1]: one value per x}, ... } }  (false: no value)
-- opts: title, x_label, y_label, width, height, value_label (the colour
-- scale's label with its unit), range = {lo, hi} (default the data's),
-- format (a string.format pattern for the cell texts; default 3 digits).
function M.heatmap(data, opts)
  local fn = "heatmap"
  if type(data) ~= "table" then
    fail(fn, "data must be a table, got %s", type(data))
  end
  check_list(fn, data.x, "data.x")
  check_list(fn, data.y, "data.y")
  check_list(fn, data.values, "data.values")
  if #data.values ~= #data.y then
    fail(fn, "data.values has %d rows for %d y labels", #data.values, #data.y)
  end
  local lo, hi = math.huge, -math.huge
  for r, row in ipairs(data.values) do
    if type(row) ~= "table" or #row ~= #data.x then
      fail(fn, "data.values[%d] must hold %d values (one per x label)", r, #data.x)
    end
    for c = 1, #data.x do
      if row[c] ~= false then
        local v = check_number(fn, row[c], ("data.values[%d][%d]"):format(r, c))
        lo, hi = math.min(lo, v), math.max(hi, v)
      end
    end
  end
  local doc = new_doc(fn, opts)
  opts = doc.opts
  if opts.range then
    lo, hi = check_number(fn, opts.range[1], "opts.range[1]"), check_number(fn, opts.range[2], "opts.range[2]")
  end
  if lo == math.huge then
    lo, hi = 0, 1
  end
  local scale_ticks, s_lo, s_hi = linear_ticks(lo, hi, 5)
  -- the colour legend is a bar 18 px wide with tick labels right of it
  local tick_w = 0
  for _, t in ipairs(scale_ticks) do
    tick_w = math.max(tick_w, text_width(t.label, TICK_SIZE))
  end
  local label_w = opts.value_label and 20 or 0
  local legend_w = math.ceil(18 + 8 + tick_w + label_w)
  local ylab_w = 0
  for _, v in ipairs(data.y) do
    ylab_w = math.max(ylab_w, text_width(v, TICK_SIZE))
  end
  local area = layout(doc, legend_w, 58, math.max(78, 40 + ylab_w))
  local cw = (area.right - area.left) / #data.x
  local ch = (area.bottom - area.top) / #data.y
  local font = math.max(8, math.min(13, math.floor(ch * 0.4), math.floor(cw / 4)))
  for r, row in ipairs(data.values) do
    local y = area.bottom - r * ch
    doc:text(area.left - 6, y + ch / 2 + 4, data.y[r], { "text-anchor", "end", "class", "tick" })
    for c = 1, #data.x do
      local x = area.left + (c - 1) * cw
      local v = row[c]
      if v == false then
        doc:element("rect", { "class", "cell", "x", x, "y", y, "width", cw, "height", ch, "fill", "#f0f0f0",
          "stroke", "#ffffff" })
        doc:text(x + cw / 2, y + ch / 2 + font * 0.35, "n/a", { "text-anchor", "middle", "font-size", font,
          "fill", "#707070" })
      else
        local t = s_hi > s_lo and (v - s_lo) / (s_hi - s_lo) or 0.5
        local color, dark = M.scale_color(t)
        local label = opts.format and opts.format:format(v) or M.format_value(v)
        doc:element("rect", { "class", "cell", "data-value", ("%.6g"):format(v), "x", x, "y", y, "width", cw,
          "height", ch, "fill", color, "stroke", "#ffffff" },
          ("%s = %s, %s = %s: %s"):format(opts.x_label or "x", tostring(data.x[c]), opts.y_label or "y",
            tostring(data.y[r]), label))
        doc:text(x + cw / 2, y + ch / 2 + font * 0.35, label, { "text-anchor", "middle", "font-size", font,
          "fill", dark and "#ffffff" or "#000000", "class", "cell-text" })
      end
    end
  end
  for c = 1, #data.x do
    doc:text(area.left + (c - 0.5) * cw, area.bottom + 16, data.x[c], { "text-anchor", "middle", "class", "tick" })
  end
  -- colour scale legend
  local bx = area.right + 18
  local steps = 32
  local bar_h = area.bottom - area.top
  local y_of = scale_of(s_lo, s_hi, area.bottom, area.top)
  doc:open_group({ "class", "color-scale" })
  for i = 0, steps - 1 do
    local y1 = area.bottom - (i + 1) * bar_h / steps
    doc:element("rect", { "x", bx, "y", y1, "width", 18, "height", bar_h / steps + 0.5,
      "fill", (M.scale_color((i + 0.5) / steps)) })
  end
  doc:element("rect", { "x", bx, "y", area.top, "width", 18, "height", bar_h, "fill", "none", "stroke", "#404040" })
  for _, t in ipairs(scale_ticks) do
    local y = y_of(t.value)
    doc:element("line", { "x1", bx + 18, "y1", y, "x2", bx + 22, "y2", y, "stroke", "#404040" })
    doc:text(bx + 25, y + 4, t.label, { "class", "tick", "data-value", ("%.6g"):format(t.value) })
  end
  if opts.value_label then
    local lx, ly = bx + 30 + tick_w + 8, (area.top + area.bottom) / 2
    doc:text(lx, ly, opts.value_label, { "text-anchor", "middle", "font-size", LABEL_SIZE, "class", "value-label",
      "transform", ("rotate(-90 %s %s)"):format(num(lx), num(ly)) })
  end
  doc:close_group()
  draw_title_and_labels(doc, area)
  return doc:finish()
end

-- (d) Roofline ---------------------------------------------------------------------------

-- The rate a roof or ceiling value reads best in: 3.28 TB/s, 144 GB/s.
local function rate_text(v, unit)
  local prefixes = { G = { "T", 1e3 }, M = { "G", 1e3 } }
  local head, tail = unit:match("^(%a)(.*)$")
  local up = head and prefixes[head]
  if up and v >= up[2] then
    return ("%s %s%s"):format(M.format_value(v / up[2]), up[1], tail)
  end
  return ("%s %s"):format(M.format_value(v), unit)
end

-- Checks the roofline's points: positive intensity and performance.
local function check_roof_points(fn, points)
  for i, p in ipairs(points) do
    local ai = check_number(fn, p.intensity, ("data.points[%d].intensity"):format(i))
    local perf = check_number(fn, p.gflops, ("data.points[%d].gflops"):format(i))
    if ai <= 0 or perf <= 0 then
      fail(fn, "data.points[%d] needs a positive intensity and gflops for a log-log plot, got %s and %s",
        i, ai, perf)
    end
  end
end

-- The roofs (memory, GB/s) and ceilings (compute) of data, largest first:
-- data.roofs / data.ceilings, or the one of each data.peak_gbs and
-- data.peak_gflops give.
local function roofs_of(fn, data)
  local roofs, ceilings = {}, {}
  local given_roofs = data.roofs or { { label = data.memory_label or "DRAM", gbs = data.peak_gbs } }
  local given_ceilings = data.ceilings or { { label = data.compute_label or "compute peak", gflops = data.peak_gflops } }
  for i, r in ipairs(given_roofs) do
    local what = data.roofs and ("data.roofs[%d].gbs"):format(i) or "data.peak_gbs"
    local v = check_number(fn, r.gbs, what)
    if v <= 0 then
      fail(fn, data.roofs and (what .. " must be positive") or "data.peak_gflops and data.peak_gbs must be positive")
    end
    roofs[i] = { label = tostring(r.label or ("roof " .. i)), gbs = v }
  end
  for i, c in ipairs(given_ceilings) do
    local what = data.ceilings and ("data.ceilings[%d].gflops"):format(i) or "data.peak_gflops"
    local v = check_number(fn, c.gflops, what)
    if v <= 0 then
      fail(fn, data.ceilings and (what .. " must be positive") or "data.peak_gflops and data.peak_gbs must be positive")
    end
    ceilings[i] = { label = tostring(c.label or ("ceiling " .. i)), gflops = v }
  end
  check_list(fn, roofs, "data.roofs")
  check_list(fn, ceilings, "data.ceilings")
  table.sort(roofs, function(a, b) return a.gbs > b.gbs end)
  table.sort(ceilings, function(a, b) return a.gflops > b.gflops end)
  return roofs, ceilings
end

-- The axes' data ranges: every point, every ridge (roof meets ceiling), a
-- factor 4 of room left and right, the top ceiling doubled on top.
local function roofline_ranges(points, roofs, ceilings)
  local top, low = ceilings[1].gflops, ceilings[#ceilings].gflops
  local x_lo, x_hi, y_lo = math.huge, -math.huge, low
  for _, r in ipairs(roofs) do
    x_lo, x_hi = math.min(x_lo, low / r.gbs), math.max(x_hi, top / r.gbs)
  end
  for _, p in ipairs(points) do
    x_lo, x_hi, y_lo = math.min(x_lo, p.intensity), math.max(x_hi, p.intensity), math.min(y_lo, p.gflops)
  end
  x_lo, x_hi = x_lo / 4, x_hi * 4
  return x_lo, x_hi, math.min(y_lo / 2, roofs[#roofs].gbs * x_lo), top * 2
end

-- The dash pattern of the i-th roof or ceiling (largest first): solid,
-- dashed, dotted, ...
local function roof_dash(i)
  return DASHES[(i - 1) % #DASHES + 1]
end

-- Draws the roofs and ceilings of a hierarchical roofline in `area`: each
-- roof from where it enters the plot to the top ceiling, labelled along
-- its slope (staggered so labels never meet), each ceiling from the
-- highest roof to the right edge, labelled at its right end.
local function draw_roofs(doc, area, roofs, ceilings, x_of, y_of, ax_lo, ax_hi, ay_lo)
  local top = ceilings[1].gflops
  doc:open_group({ "class", "roofs" })
  local angle
  local stagger = 0
  for i, r in ipairs(roofs) do
    local a = math.max(ax_lo, ay_lo / r.gbs)
    local b = math.min(ax_hi, top / r.gbs)
    if a < b then
      doc:element("line", { "class", "roof", "data-label", r.label, "x1", x_of(a), "y1", y_of(r.gbs * a),
        "x2", x_of(b), "y2", y_of(r.gbs * b), "stroke", "#202020", "stroke-width", i == 1 and 2.5 or 2,
        "stroke-dasharray", roof_dash(i) })
      angle = angle or math.atan(y_of(r.gbs * b) - y_of(r.gbs * a), x_of(b) - x_of(a))
      local length = text_width(r.label, TICK_SIZE) + 4
      local px = math.max(area.left + 8 + stagger, x_of(a) + 6)
      px = math.min(px, x_of(b) - 4 - length * math.cos(angle))
      stagger = px - area.left + length * math.cos(angle) + 10
      local ai = 10 ^ (math.log(ax_lo, 10) + (px - area.left) / (area.right - area.left)
        * (math.log(ax_hi, 10) - math.log(ax_lo, 10)))
      local py = y_of(r.gbs * ai) - 5
      doc:text(px, py, r.label, { "font-size", TICK_SIZE, "font-weight", "bold", "class", "roof-label",
        "transform", ("rotate(%s %s %s)"):format(num(math.deg(angle)), num(px), num(py)) })
    end
  end
  local last_y
  for i, c in ipairs(ceilings) do
    local from = math.max(ax_lo, c.gflops / roofs[1].gbs)
    local y = y_of(c.gflops)
    doc:element("line", { "class", "ceiling", "data-label", c.label, "x1", x_of(from), "y1", y, "x2", area.right,
      "y2", y, "stroke", "#202020", "stroke-width", i == 1 and 2.5 or 2,
      "stroke-dasharray", roof_dash(i) })
    local ly = (last_y and y - 5 < last_y + 14) and y + 14 or y - 5
    doc:text(area.right - 4, ly, c.label, { "text-anchor", "end", "font-size", TICK_SIZE, "font-weight", "bold",
      "class", "roof-label" })
    last_y = ly
  end
  doc:close_group()
end

-- Draws points (indices `which` of data.points) with their styles; points
-- sharing a `link` are joined by a thin line in intensity order.
local function draw_roof_points(doc, points, which, styles, x_of, y_of, unit, per_byte)
  local links, order = {}, {}
  for _, i in ipairs(which) do
    local p = points[i]
    if p.link ~= nil then
      local key = tostring(p.link)
      if not links[key] then
        links[key] = {}
        order[#order + 1] = key
      end
      table.insert(links[key], i)
    end
  end
  doc:open_group({ "class", "points" })
  for _, key in ipairs(order) do
    local list = links[key]
    if #list > 1 then
      table.sort(list, function(a, b) return points[a].intensity < points[b].intensity end)
      local pts = {}
      for j, i in ipairs(list) do
        pts[j] = num(x_of(points[i].intensity)) .. "," .. num(y_of(points[i].gflops))
      end
      doc:element("polyline", { "class", "point-link", "points", table.concat(pts, " "), "fill", "none",
        "stroke", styles[list[1]].color, "stroke-width", 1, "stroke-opacity", 0.6 })
    end
  end
  for _, i in ipairs(which) do
    local p = points[i]
    doc:marker(styles[i].marker, x_of(p.intensity), y_of(p.gflops), 5, styles[i].color,
      ("%s: %s %s, %s %s"):format(p.label or ("point " .. i), M.format_value(p.intensity), per_byte,
        M.format_value(p.gflops), unit))
  end
  doc:close_group()
end

-- A hierarchical roofline (several roofs or ceilings, or panels): one
-- panel per distinct points[i].panel on shared log-log axes (they compare),
-- or one plot; colour by group, marker by style; a legend of the groups,
-- the styles, and the roofs and ceilings with their values.
local function hierarchical_roofline(fn, data, opts, roofs, ceilings)
  local points = data.points or {}
  local unit, per_byte = data.unit or "GFLOP/s", data.intensity_unit or "FLOP/B"
  local x_lo, x_hi, y_lo, y_hi = roofline_ranges(points, roofs, ceilings)
  local panels, by_panel = {}, {}
  for i, p in ipairs(points) do
    local key = p.panel ~= nil and tostring(p.panel) or ""
    if not by_panel[key] then
      by_panel[key] = { label = key, points = {} }
      panels[#panels + 1] = by_panel[key]
    end
    table.insert(by_panel[key].points, i)
  end
  if #panels == 0 then
    panels[1] = { label = "", points = {} }
  end
  local colors, markers, styles, entries, kinds = {}, {}, {}, {}, {}
  local group_entries, style_entries = {}, {}
  for i, p in ipairs(points) do
    local g, st = tostring(p.group or p.label or i), tostring(p.style or "")
    if not colors[g] then
      colors[g] = M.palette[#group_entries % #M.palette + 1]
      group_entries[#group_entries + 1] = { label = g, color = colors[g] }
    end
    if not markers[st] then
      markers[st] = MARKERS[#style_entries % #MARKERS + 1]
      style_entries[#style_entries + 1] = { label = st, color = "#404040", kind = "marker", marker = markers[st] }
    end
    styles[i] = { color = colors[g], marker = markers[st] }
  end
  local function section(heading, list)
    if #list > 0 then
      entries[#entries + 1] = { label = heading, kind = "heading" }
      for _, e in ipairs(list) do
        entries[#entries + 1] = e
      end
    end
  end
  section(data.group_heading or "kernels", group_entries)
  if #style_entries > 1 or style_entries[1] and style_entries[1].label ~= "" then
    section(data.style_heading or "points", style_entries)
  end
  for i, r in ipairs(roofs) do
    kinds[#kinds + 1] = { label = ("%s %s"):format(r.label, rate_text(r.gbs, "GB/s")), color = "#202020", kind = "line",
      dash = roof_dash(i) }
  end
  for i, c in ipairs(ceilings) do
    kinds[#kinds + 1] = { label = ("%s %s"):format(c.label, rate_text(c.gflops, unit)), color = "#202020",
      kind = "line", dash = roof_dash(i) }
  end
  section("roofs and ceilings", kinds)
  for _, note in ipairs(data.notes or {}) do
    entries[#entries + 1] = { label = tostring(note), kind = "note" }
  end
  local x_ticks, y_ticks = M.log_ticks(x_lo, x_hi), M.log_ticks(y_lo, y_hi)
  local y_tick_w = ticks_width(y_ticks)
  local doc, areas, outer
  if #panels > 1 then
    local o = sized(fn, opts)
    o.panel_width, o.panel_height = o.panel_width or 250, o.panel_height or 210
    doc, areas, outer = panel_doc(fn, o, #panels, y_tick_w, entries)
  else
    doc = new_doc(fn, opts)
    areas = { layout(doc, legend_width(entries, nil, doc), 58) }
    outer = areas[1]
    if panels[1].label ~= "" then -- one named panel (a model): its name above the plot
      areas[1].top = areas[1].top + 18
    end
  end
  for pi, panel in ipairs(panels) do
    local area = areas[pi]
    local xt, x_of = axis(x_lo, x_hi, area.left, area.right, true)
    local yt, y_of = axis(y_lo, y_hi, area.bottom, area.top, true)
    draw_y_axis(doc, area, yt, y_of)
    draw_x_axis(doc, area, xt, x_of)
    if panel.label ~= "" then
      draw_panel_title(doc, area, panel.label, y_tick_w)
    end
    draw_roofs(doc, area, roofs, ceilings, x_of, y_of, xt[1].value, xt[#xt].value, yt[1].value)
    draw_roof_points(doc, points, panel.points, styles, x_of, y_of, unit, per_byte)
    draw_frame(doc, area)
  end
  local o = doc.opts
  o.x_label = o.x_label or ("Arithmetic intensity (%s of the level's traffic)"):format(per_byte)
  o.y_label = o.y_label or ("Performance (%s)"):format(unit)
  draw_legend(doc, outer, entries)
  draw_title_and_labels(doc, outer)
  return doc:finish()
end

-- data = { peak_gflops = .., peak_gbs = .., compute_label = "FP32 FMA peak",
--          memory_label = "DRAM", unit = "GFLOP/s", intensity_unit = "FLOP/B",
--          points = { { label = "stream_triad", intensity = FLOP/byte, gflops = ..,
--                       group = kernel (colour), style = model (marker) } } }
-- (`gflops` is the performance in `unit`, whatever the unit.)  opts: title,
-- x_label, y_label, width, height.  gpush.roofline builds data.
-- Hierarchical: data.roofs = { { label = "L1", gbs = .. }, { label = "L2", .. },
-- { label = "DRAM", .. } } and data.ceilings = { { label = "FP32", gflops = .. },
-- { label = "FP64", .. } } instead of the peaks; a point may name a `panel`
-- (one panel per value, shared axes: a model) and a `link` (points of one
-- link are joined: a kernel's L1, L2 and DRAM points); group_heading and
-- style_heading title the legend's sections, notes adds lines under it.
function M.roofline(data, opts)
  local fn = "roofline"
  if type(data) ~= "table" then
    fail(fn, "data must be a table, got %s", type(data))
  end
  local roofs, ceilings = roofs_of(fn, data)
  check_roof_points(fn, data.points or {})
  local panelled = false
  for _, p in ipairs(data.points or {}) do
    panelled = panelled or p.panel ~= nil
  end
  if data.roofs or data.ceilings or panelled then
    return hierarchical_roofline(fn, data, opts, roofs, ceilings)
  end
  local peak, bw = ceilings[1].gflops, roofs[1].gbs
  local points = data.points or {}
  local ridge = peak / bw
  local x_lo, x_hi, y_lo = ridge, ridge, peak
  for _, p in ipairs(points) do
    x_lo, x_hi, y_lo = math.min(x_lo, p.intensity), math.max(x_hi, p.intensity), math.min(y_lo, p.gflops)
  end
  x_lo, x_hi = x_lo / 4, x_hi * 4
  y_lo = math.min(y_lo / 2, bw * x_lo)
  local styles = series_styles(points)
  local entries, seen = {}, {}
  for i, p in ipairs(points) do
    local key = (p.group or p.label or "") .. "\0" .. (p.style or "")
    if not seen[key] then
      seen[key] = true
      local label = p.label or ("point " .. i)
      entries[#entries + 1] = { label = label, color = styles[i].color, kind = "marker", marker = styles[i].marker }
    end
  end
  local doc = new_doc(fn, wide_enough(fn, opts, entries))
  opts = doc.opts
  opts.x_label = opts.x_label or "Arithmetic intensity (FLOP/byte of DRAM traffic)"
  opts.y_label = opts.y_label or "Performance (GFLOP/s)"
  local area = layout(doc, legend_width(entries, nil, doc), 58)
  local x_ticks, x_of = axis(x_lo, x_hi, area.left, area.right, true)
  local y_ticks, y_of = axis(y_lo, peak * 2, area.bottom, area.top, true)
  draw_y_axis(doc, area, y_ticks, y_of)
  draw_x_axis(doc, area, x_ticks, x_of)
  -- axis ranges after widening to whole decades
  local ax_lo, ax_hi = x_ticks[1].value, x_ticks[#x_ticks].value
  local ay_lo = y_ticks[1].value
  local start = math.max(ax_lo, ay_lo / bw)
  doc:open_group({ "class", "roofs" })
  doc:element("polyline", { "class", "roof", "points", ("%s,%s %s,%s %s,%s"):format(num(x_of(start)),
    num(y_of(bw * start)), num(x_of(ridge)), num(y_of(peak)), num(x_of(ax_hi)), num(y_of(peak))),
    "fill", "none", "stroke", "#202020", "stroke-width", 2.5 })
  doc:element("line", { "class", "ridge", "x1", x_of(ridge), "y1", y_of(peak), "x2", x_of(ridge),
    "y2", area.bottom, "stroke", "#808080", "stroke-dasharray", "4 3" })
  local unit, per_byte = data.unit or "GFLOP/s", data.intensity_unit or "FLOP/B"
  doc:text(x_of(ridge) + 4, area.bottom - 6, ("ridge %s %s"):format(M.format_value(ridge), per_byte),
    { "font-size", TICK_SIZE, "fill", "#505050", "class", "ridge-label" })
  doc:text(area.right - 4, y_of(peak) - 6, ("%s %s %s"):format(data.compute_label or "compute peak",
    M.format_value(peak), unit), { "text-anchor", "end", "font-size", LEGEND_SIZE, "class", "roof-label" })
  -- the memory roof's label runs along its slope, left of the ridge
  local lx = math.max(x_of(start) + 10, x_of(ridge) - 230)
  local ai_at = 10 ^ (math.log(ax_lo, 10) + (lx - area.left) / (area.right - area.left)
    * (math.log(ax_hi, 10) - math.log(ax_lo, 10)))
  local ly = y_of(bw * ai_at)
  local angle = math.deg(math.atan(y_of(bw * ridge) - y_of(bw * start), x_of(ridge) - x_of(start)))
  doc:text(lx, ly - 8, ("%s %s GB/s"):format(data.memory_label or "DRAM", M.format_value(bw)),
    { "font-size", LEGEND_SIZE, "class", "roof-label",
      "transform", ("rotate(%s %s %s)"):format(num(angle), num(lx), num(ly - 8)) })
  doc:close_group()
  doc:open_group({ "class", "points" })
  for i, p in ipairs(points) do
    doc:marker(styles[i].marker, x_of(p.intensity), y_of(p.gflops), 5, styles[i].color,
      ("%s: %s %s, %s %s"):format(p.label or ("point " .. i), M.format_value(p.intensity), per_byte,
        M.format_value(p.gflops), unit))
  end
  doc:close_group()
  draw_frame(doc, area)
  draw_legend(doc, area, entries)
  draw_title_and_labels(doc, area)
  return doc:finish()
end

-- (e) Tornado ------------------------------------------------------------------------------

-- data = { rows = { { label = "l1.mshrs (16 / 64)", low = relative change at the
--          low value, high = relative change at the high value }, ... } }
-- (largest first; gpush.report.tornado sorts them), low_label, high_label.
-- opts: title, x_label (default "change from the base point (%)"), width, height.
function M.tornado(data, opts)
  local fn = "tornado"
  if type(data) ~= "table" then
    fail(fn, "data must be a table, got %s", type(data))
  end
  check_list(fn, data.rows, "data.rows")
  local lo, hi, label_w = 0, 0, 0
  for i, r in ipairs(data.rows) do
    local a = check_number(fn, r.low, ("data.rows[%d].low"):format(i))
    local b = check_number(fn, r.high, ("data.rows[%d].high"):format(i))
    lo, hi = math.min(lo, a, b), math.max(hi, a, b)
    label_w = math.max(label_w, text_width(r.label or "", TICK_SIZE))
  end
  local doc = new_doc(fn, opts)
  opts = doc.opts
  opts.x_label = opts.x_label or "change from the base point (%)"
  local entries = { { label = data.low_label or "low value", color = M.palette[1] },
    { label = data.high_label or "high value", color = M.palette[2] } }
  local area = layout(doc, legend_width(entries), 58, math.max(78, 16 + label_w))
  -- room for the value written at a bar's end (about 48 px) on either side
  local half = (area.right - area.left) / 2
  local span = math.max(-lo, hi) * half / math.max(half - 48, half / 2)
  if span == 0 then
    span = 0.01
  end
  local x_ticks, x_of = axis(-span * 100, span * 100, area.left, area.right, false, true)
  for _, t in ipairs(x_ticks) do
    t.label = (t.value > 0 and "+" or "") .. t.label
  end
  draw_x_axis(doc, area, x_ticks, x_of)
  local row_h = (area.bottom - area.top) / #data.rows
  local bar_h = math.min(14, row_h * 0.36)
  for i, r in ipairs(data.rows) do
    local yc = area.top + (i - 0.5) * row_h
    doc:open_group({ "class", "tornado-row", "data-label", r.label or tostring(i) })
    doc:text(area.left - 6, yc + 4, r.label or "", { "text-anchor", "end", "class", "row-label" })
    for k, which in ipairs({ "low", "high" }) do
      local v = r[which] * 100
      local x0, x1 = x_of(0), x_of(v)
      local y = yc + (k == 1 and -bar_h or 0)
      doc:element("rect", { "class", "bar-" .. which, "data-value", ("%.6g"):format(r[which]),
        "x", math.min(x0, x1), "y", y, "width", math.abs(x1 - x0), "height", bar_h, "fill", entries[k].color },
        ("%s, %s: %+.2f%%"):format(r.label or "", entries[k].label, v))
      local tx = x1 + (v < 0 and -4 or 4)
      doc:text(tx, y + bar_h - 2, M.format_percent(v), { "text-anchor", v < 0 and "end" or "start",
        "font-size", math.max(8, math.min(TICK_SIZE, bar_h)), "class", "bar-value" })
    end
    doc:close_group()
  end
  doc:element("line", { "x1", x_of(0), "y1", area.top, "x2", x_of(0), "y2", area.bottom, "stroke", "#202020",
    "stroke-width", 1.5 })
  draw_frame(doc, area)
  draw_legend(doc, area, entries)
  draw_title_and_labels(doc, area)
  return doc:finish()
end

-- (f) Correlation -----------------------------------------------------------------------

-- data = { band = 0.2 (the shaded +-band around y = x, a fraction),
--          series = { { label = "sim-gto", model = "sim-gto" (one marker
--            shape per distinct model, in order of appearance), color =
--            "#rrggbb" (optional), points = { { measured = .., predicted = ..,
--            label = "empty 1024 x 256" }, ... } }, ... } }
-- A log-log scatter of predicted against measured values on one common
-- range: the y = x line, the +-band lines with the band shaded, a marker per
-- point (hover: its label, both values, its error).  opts: title, x_label
-- (default "measured (cycles)"), y_label (default "predicted (cycles)"),
-- width, height (default 640 x 560).
function M.correlation(data, opts)
  local fn = "correlation"
  if type(data) ~= "table" then
    fail(fn, "data must be a table, got %s", type(data))
  end
  check_list(fn, data.series, "data.series")
  local band = data.band or 0.2
  check_number(fn, band, "data.band")
  if band < 0 or band >= 1 then
    fail(fn, "data.band must be a fraction from 0 to below 1, got %s", band)
  end
  local lo, hi = math.huge, -math.huge
  for si, s in ipairs(data.series) do
    if type(s.points) ~= "table" then
      fail(fn, "data.series[%d].points must be a list", si)
    end
    for i, p in ipairs(s.points) do
      local where = ("data.series[%d].points[%d]"):format(si, i)
      local x = check_number(fn, p.measured, where .. ".measured")
      local y = check_number(fn, p.predicted, where .. ".predicted")
      if x <= 0 or y <= 0 then
        fail(fn, "%s needs positive values for a log-log plot, got %s and %s", where, x, y)
      end
      lo, hi = math.min(lo, x, y), math.max(hi, x, y)
    end
  end
  if lo == math.huge then
    fail(fn, "no point to plot")
  end
  local copy = {}
  for k, v in pairs(opts or {}) do
    copy[k] = v
  end
  copy.width, copy.height = copy.width or 640, copy.height or 560
  local doc = new_doc(fn, copy)
  opts = doc.opts
  opts.x_label = opts.x_label or "measured (cycles)"
  opts.y_label = opts.y_label or "predicted (cycles)"
  local shapes, nshapes, entries = {}, 0, {}
  local styles = {}
  for si, s in ipairs(data.series) do
    local key = s.model or s.label or tostring(si)
    if not shapes[key] then
      nshapes = nshapes + 1
      shapes[key] = MARKERS[(nshapes - 1) % #MARKERS + 1]
    end
    styles[si] = { marker = shapes[key], color = s.color or M.palette[(si - 1) % #M.palette + 1] }
    entries[#entries + 1] = { label = s.label or ("series " .. si), color = styles[si].color, kind = "marker",
      marker = styles[si].marker }
  end
  local band_label = ("+-%s%%"):format(M.format_compact(band * 100))
  entries[#entries + 1] = { label = "y = x", color = "#202020", kind = "line" }
  entries[#entries + 1] = { label = band_label, color = "#9E9E9E", kind = "line", dash = "5 3" }
  local area = layout(doc, legend_width(entries), 58)
  -- one range for both axes, with room for the band at the ends
  local ticks, a_lo, a_hi = M.log_ticks(lo / (1 + band), hi * (1 + band))
  local x_of = scale_of(a_lo, a_hi, area.left, area.right, true)
  local y_of = scale_of(a_lo, a_hi, area.bottom, area.top, true)
  draw_y_axis(doc, area, ticks, y_of)
  draw_x_axis(doc, area, ticks, x_of)
  doc:raw(('<clipPath id="correlation-plot"><rect x="%s" y="%s" width="%s" height="%s"/></clipPath>'):format(
    num(area.left), num(area.top), num(area.right - area.left), num(area.bottom - area.top)))
  doc:open_group({ "class", "reference", "clip-path", "url(#correlation-plot)" })
  local function at(v, f)
    return num(x_of(v)) .. "," .. num(y_of(v * f))
  end
  doc:element("polygon", { "class", "band", "points", table.concat({ at(a_lo, 1 - band), at(a_hi, 1 - band),
    at(a_hi, 1 + band), at(a_lo, 1 + band) }, " "), "fill", "#9E9E9E", "fill-opacity", 0.15 })
  for _, f in ipairs({ 1 - band, 1 + band }) do
    doc:element("polyline", { "class", "band-edge", "points", at(a_lo, f) .. " " .. at(a_hi, f), "fill", "none",
      "stroke", "#9E9E9E", "stroke-dasharray", "5 3" })
  end
  doc:element("polyline", { "class", "identity", "points", at(a_lo, 1) .. " " .. at(a_hi, 1), "fill", "none",
    "stroke", "#202020", "stroke-width", 1.5 })
  doc:close_group()
  for si, s in ipairs(data.series) do
    -- slightly translucent, so that coinciding models stay visible
    doc:open_group({ "class", "series", "data-label", entries[si].label, "opacity", 0.8 })
    for _, p in ipairs(s.points) do
      local err = (p.predicted - p.measured) / p.measured * 100
      doc:marker(styles[si].marker, x_of(p.measured), y_of(p.predicted), 5, styles[si].color,
        ("%s%s: measured %s, predicted %s (%+.1f%%)"):format(entries[si].label, p.label and (", " .. p.label) or "",
          M.format_value(p.measured), M.format_value(p.predicted), err))
    end
    doc:close_group()
  end
  draw_frame(doc, area)
  draw_legend(doc, area, entries)
  draw_title_and_labels(doc, area)
  return doc:finish()
end

-- (g) A note in place of a plot ------------------------------------------------------------

-- A figure that says why a plot is missing: the title and `lines` of text
-- (data = { lines = {...} }), so a report never leaves a reader guessing.
function M.note(data, opts)
  local fn = "note"
  if type(data) ~= "table" then
    fail(fn, "data must be a table, got %s", type(data))
  end
  check_list(fn, data.lines, "data.lines")
  local doc = new_doc(fn, opts)
  local y = plot_top(doc) + 16
  for _, line in ipairs(data.lines) do
    doc:text(24, y, fit_text(line, doc.width - 48, LABEL_SIZE), { "font-size", LABEL_SIZE, "class", "note" })
    y = y + 20
  end
  draw_title_and_labels(doc, { left = 0, right = doc.width, top = 0, bottom = doc.height })
  return doc:finish()
end

-- From result rows ----------------------------------------------------------------------
-- Rows are plain tables keyed by column (gpush.results rows: `res.rows`, or
-- any list of tables).  Filter them to what one plot shows first; a plot
-- cell that two rows claim is an error naming both.

local function where_of(row, columns)
  local parts = {}
  for _, c in ipairs(columns) do
    parts[#parts + 1] = c .. "=" .. tostring(row[c])
  end
  return table.concat(parts, " ")
end

local function check_rows(fn, rows)
  if type(rows) ~= "table" then
    fail(fn, "rows must be a list of row tables, got %s", type(rows))
  end
  if #rows == 0 then
    fail(fn, "no rows to plot (check the filter)")
  end
end

-- Distinct values of column `c` in order of first appearance, or sorted when
-- all are numbers.
local function distinct(rows, c)
  local seen, list, numeric = {}, {}, true
  for _, row in ipairs(rows) do
    local v = row[c]
    if v ~= nil and not seen[v] then
      seen[v] = true
      list[#list + 1] = v
      numeric = numeric and type(v) == "number"
    end
  end
  if numeric then
    table.sort(list)
  end
  return list
end

-- stacked_bars data from rows holding a CPI stack in columns prefix..category
-- (lower case: cpi_base ... cpi_queue) or a `stack` table.  opts: group
-- (column, default "kernel"), bar (column), bar_format (string.format
-- pattern for a bar's label, default "%s"), prefix ("cpi_"), marker (a
-- column or a function(row) -> number or nil, e.g. the simulator's CPI),
-- categories (default M.cpi_categories) and value (a function(row,
-- category) -> number instead of the prefixed column; both are how
-- gpush.report.sweep draws the simulator's stall stacks).
function M.stack_data(rows, opts)
  local fn = "stack_data"
  check_rows(fn, rows)
  opts = opts or {}
  local group_col, bar_col = opts.group or "kernel", opts.bar
  if type(bar_col) ~= "string" then
    fail(fn, "opts.bar must name the column whose values make the bars")
  end
  local prefix, fmt = opts.prefix or "cpi_", opts.bar_format or "%s"
  local groups, by_group, seen = {}, {}, {}
  for i, row in ipairs(rows) do
    local g = row[group_col]
    if g == nil or row[bar_col] == nil then
      fail(fn, "rows[%d] has no '%s' or '%s'", i, group_col, bar_col)
    end
    local key = tostring(g) .. "\0" .. tostring(row[bar_col])
    if seen[key] then
      fail(fn, "rows %d and %d are both %s: filter the rows to one per bar", seen[key], i,
        where_of(row, { group_col, bar_col }))
    end
    seen[key] = i
    if not by_group[g] then
      by_group[g] = { label = tostring(g), bars = {} }
      groups[#groups + 1] = by_group[g]
    end
    local values = {}
    for _, c in ipairs(opts.categories or M.cpi_categories) do
      if opts.value then
        values[c] = opts.value(row, c)
      else
        values[c] = row.stack and row.stack[c] or row[prefix .. c:lower()]
      end
    end
    local marker = opts.marker
    if type(marker) == "function" then
      marker = marker(row)
    elseif marker ~= nil then
      marker = row[marker]
    end
    local bar_value = row[bar_col]
    by_group[g].bars[#by_group[g].bars + 1] = { label = fmt:format(M.format_compact(bar_value)), values = values,
      marker = marker, order = bar_value }
  end
  for _, g in ipairs(groups) do
    table.sort(g.bars, function(a, b)
      if type(a.order) == "number" and type(b.order) == "number" then
        return a.order < b.order
      end
      return tostring(a.order) < tostring(b.order)
    end)
    for _, bar in ipairs(g.bars) do
      bar.order = nil
    end
  end
  return { groups = groups, categories = opts.categories }
end

-- lines data: one series per distinct combination of the `series` columns
-- (in order of first appearance), x = the distinct values of column x
-- (sorted), y = column y (false where a series has no row).  opts: x, y,
-- series (list of columns, default {"kernel", "model"}), group and style
-- (columns that pick colour and marker; default the first and second
-- series columns).
function M.series_data(rows, opts)
  local fn = "series_data"
  check_rows(fn, rows)
  opts = opts or {}
  if type(opts.x) ~= "string" or type(opts.y) ~= "string" then
    fail(fn, "opts.x and opts.y must name columns")
  end
  local cols = opts.series or { "kernel", "model" }
  local group_col, style_col = opts.group or cols[1], opts.style or cols[2]
  local xs = distinct(rows, opts.x)
  local index = {}
  for i, v in ipairs(xs) do
    index[v] = i
  end
  local series, by_key = {}, {}
  for i, row in ipairs(rows) do
    local parts = {}
    for j, c in ipairs(cols) do
      parts[j] = tostring(row[c])
    end
    local key = table.concat(parts, " ")
    local s = by_key[key]
    if not s then
      s = { label = key, group = group_col and tostring(row[group_col]), style = style_col and tostring(row[style_col]),
        y = {}, rows = {} }
      for k = 1, #xs do
        s.y[k] = false
      end
      by_key[key] = s
      series[#series + 1] = s
    end
    local k = index[row[opts.x]]
    if not k then
      fail(fn, "rows[%d] has no '%s'", i, opts.x)
    end
    if s.rows[k] then
      fail(fn, "rows %d and %d are both %s: filter the rows to one per point", s.rows[k], i,
        where_of(row, { opts.x, table.unpack(cols) }))
    end
    s.rows[k] = i
    s.y[k] = row[opts.y] == nil and false or row[opts.y]
  end
  for _, s in ipairs(series) do
    s.rows = nil
  end
  return { x = xs, series = series }
end

-- heatmap data over two columns: x and y the distinct values (sorted),
-- values[iy][ix] = column `value` (false where no row).  opts: x, y, value.
function M.grid_data(rows, opts)
  local fn = "grid_data"
  check_rows(fn, rows)
  opts = opts or {}
  if type(opts.x) ~= "string" or type(opts.y) ~= "string" or type(opts.value) ~= "string" then
    fail(fn, "opts.x, opts.y and opts.value must name columns")
  end
  local xs, ys = distinct(rows, opts.x), distinct(rows, opts.y)
  local xi, yi, values, owner = {}, {}, {}, {}
  for i, v in ipairs(xs) do xi[v] = i end
  for i, v in ipairs(ys) do
    yi[v] = i
    values[i], owner[i] = {}, {}
    for j = 1, #xs do
      values[i][j] = false
    end
  end
  for i, row in ipairs(rows) do
    local c, r = xi[row[opts.x]], yi[row[opts.y]]
    if not c or not r then
      fail(fn, "rows[%d] has no '%s' or '%s'", i, opts.x, opts.y)
    end
    if owner[r][c] then
      fail(fn, "rows %d and %d are both %s: filter the rows to one per cell", owner[r][c], i,
        where_of(row, { opts.x, opts.y }))
    end
    owner[r][c] = i
    values[r][c] = row[opts.value] == nil and false or row[opts.value]
  end
  local xl, yl = {}, {}
  for i, v in ipairs(xs) do xl[i] = M.format_compact(v) end
  for i, v in ipairs(ys) do yl[i] = M.format_compact(v) end
  return { x = xl, y = yl, values = values }
end

-- Files ------------------------------------------------------------------------------------

-- Writes SVG text to `path` through a staged file (gpush.staging.write);
-- returns true, or nil and a message.
function M.write(path, text)
  if type(path) ~= "string" or type(text) ~= "string" then
    error("gpush.report.svg.write: expected (path, svg text)", 2)
  end
  return staging.write(path, text)
end

return M
