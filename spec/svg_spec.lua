-- gpush.report.svg: every plot kind is well-formed XML, draws its data to
-- scale and in order, labels axes at 1-2-5 ticks, escapes text and is
-- deterministic.
local svg = require "gpush.report.svg"
local helper = require "spec_helper"

-- A tiny XML reader, strict enough to catch what browsers reject: one root,
-- balanced tags, quoted attributes without '<', only the five predefined
-- entities and numeric references.  Returns the root element
-- { name, attrs, children, text } or raises with the offending position.
local function parse_xml(s)
  local pos, stack, root = 1, {}, nil
  local function check_text(text, where)
    for ref in text:gmatch("&([^;]*);?") do
      assert(ref == "amp" or ref == "lt" or ref == "gt" or ref == "quot" or ref == "apos"
        or ref:match("^#%d+$") or ref:match("^#x%x+$"), "bad entity &" .. ref .. " at " .. where)
    end
    assert(not text:find("&[^;]*$"), "unterminated entity at " .. where)
  end
  while pos <= #s do
    local lt = s:find("<", pos, true)
    local text = s:sub(pos, (lt or #s + 1) - 1)
    check_text(text, pos)
    assert(not text:find(">", 1, true), "stray '>' at " .. pos)
    if #stack > 0 then
      local top = stack[#stack]
      top.text = top.text .. text
    else
      assert(not text:find("%S"), "text outside the root at " .. pos)
    end
    if not lt then
      break
    end
    local gt = s:find(">", lt, true)
    assert(gt, "unterminated tag at " .. lt)
    local tag = s:sub(lt + 1, gt - 1)
    if tag:sub(1, 1) == "/" then
      local name = tag:sub(2)
      local open = table.remove(stack)
      assert(open and open.name == name, ("closing </%s> at %d does not match <%s>"):format(name, lt,
        open and open.name or "nothing"))
    else
      local self_closing = tag:sub(-1) == "/"
      if self_closing then
        tag = tag:sub(1, -2)
      end
      local name, rest = tag:match("^([%a_][%w_:%-]*)(.*)$")
      assert(name, "bad tag name at " .. lt)
      local el = { name = name, attrs = {}, children = {}, text = "" }
      rest = rest:gsub('%s+([%a_][%w_:%-]*)="([^"<]*)"', function(k, v)
        assert(el.attrs[k] == nil, "duplicate attribute " .. k .. " at " .. lt)
        check_text(v, lt)
        el.attrs[k] = v
        return ""
      end)
      assert(not rest:find("%S"), ("malformed attributes '%s' at %d"):format(rest, lt))
      if #stack > 0 then
        table.insert(stack[#stack].children, el)
      else
        assert(root == nil, "second root element at " .. lt)
        root = el
      end
      if not self_closing then
        stack[#stack + 1] = el
      end
    end
    pos = gt + 1
  end
  assert(#stack == 0, "unclosed <" .. (stack[#stack] and stack[#stack].name or "?") .. ">")
  assert(root, "no root element")
  return root
end

-- Every element below `el` (depth first, document order) matching `pred`.
local function find_all(el, pred, out)
  out = out or {}
  for _, c in ipairs(el.children) do
    if pred(c) then
      out[#out + 1] = c
    end
    find_all(c, pred, out)
  end
  return out
end

local function by_class(root, class)
  return find_all(root, function(e) return e.attrs.class == class end)
end

local function n(v)
  return tonumber(v)
end

local function unescape(s)
  return (s:gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&quot;", '"'):gsub("&#39;", "'"):gsub("&amp;", "&"))
end

-- Tick pixel positions of an axis: { [value] = pixel }.
local function tick_positions(root, axis_class, coordinate)
  local out = {}
  for _, g in ipairs(by_class(root, axis_class)) do
    for _, t in ipairs(find_all(g, function(e) return e.name == "text" end)) do
      out[n(t.attrs["data-value"])] = n(t.attrs[coordinate])
    end
  end
  return out
end

local function cpi_data()
  return { groups = {
    { label = "stream_triad", bars = {
      { label = "8 warps", values = { BASE = 0.25, DEP = 1.0, DRAM = 2.0 }, marker = 3.5 },
      { label = "16 warps", values = { BASE = 0.25, DEP = 0.5, DRAM = 1.0, MSHR = 0.25 }, marker = 2.0 } } },
    { label = "a<b & \"c\"", bars = {
      { label = "8 warps", values = { BASE = 0.25, L2 = 0.75 } } } },
  } }
end

describe("svg ticks", function()
  it("chooses 1-2-5 steps covering the range", function()
    local t, lo, hi, step = svg.nice_ticks(0, 4.2, 5)
    assert.same({ 0, 1, 2, 3, 4, 5 }, t)
    assert.equal(0, lo); assert.equal(5, hi); assert.equal(1, step)
    t, lo, hi, step = svg.nice_ticks(3, 97, 5)
    assert.same({ 0, 20, 40, 60, 80, 100 }, t)
    assert.equal(20, step)
    local _
    t, _, _, step = svg.nice_ticks(0, 0.37, 4)
    assert.equal(0.1, step)
    assert.equal(5, #t)
    assert.near(0.4, t[5], 1e-12)
    t, _, _, step = svg.nice_ticks(-30, 45, 6)
    assert.equal(20, step)
    assert.same({ -40, -20, 0, 20, 40, 60 }, t)
  end)

  it("labels ticks with one suffix per axis and the step's decimals", function()
    assert.equal("0.3", svg.tick_label(0.30000000000000004, 0.1))
    assert.equal("1.5M", svg.tick_label(1.5e6, 5e5, 2e6))
    assert.equal("0.5M", svg.tick_label(5e5, 5e5, 2e6))
    assert.equal("0", svg.tick_label(0, 5e5, 2e6))
    assert.equal("0.05", svg.tick_label(0.05, 0.05))
    assert.equal("120k", svg.tick_label(120000, 20000))
  end)

  it("puts log ticks at decades, with 2 and 5 over ranges shorter than three decades", function()
    local t = svg.log_ticks(0.02, 700)
    local labels = {}
    for i, v in ipairs(t) do labels[i] = v.label end
    assert.same({ "0.01", "0.1", "1", "10", "100", "1000" }, labels)
    t = svg.log_ticks(3, 40)
    labels = {}
    for i, v in ipairs(t) do labels[i] = v.label end
    assert.same({ "2", "5", "10", "20", "50" }, labels) -- the axis ends at 1-2-5 values around the data
  end)

  it("formats values with three significant digits", function()
    assert.equal("1.50", svg.format_value(1.5))
    assert.equal("12.3", svg.format_value(12.34))
    assert.equal("0.0123", svg.format_value(0.012345))
    assert.equal("123k", svg.format_value(123456))
    assert.equal("2.46G", svg.format_value(2.4594e9))
    assert.equal("48", svg.format_compact(48))
    assert.equal("0.6667", svg.format_compact(2 / 3))
  end)

  it("signs percentages, and a change that rounds to zero has no sign (never -0.0%)", function()
    assert.equal("+12.5%", svg.format_percent(12.5))
    assert.equal("-3.0%", svg.format_percent(-3))
    assert.equal("0.0%", svg.format_percent(-0.04))
    assert.equal("0.0%", svg.format_percent(0.04))
    assert.equal("0.0%", svg.format_percent(0))
    assert.equal("-0.04%", svg.format_percent(-0.04, 2))
  end)
end)

describe("svg.stacked_bars", function()
  local text = svg.stacked_bars(cpi_data(), { title = "CPI <stacks>", y_label = "CPI (cycles/warp inst)",
    marker_label = "simulator CPI" })
  local root = parse_xml(text)

  it("is a standalone SVG with a generic font and no script", function()
    assert.equal("svg", root.name)
    assert.equal("http://www.w3.org/2000/svg", root.attrs.xmlns)
    assert.equal("sans-serif", root.attrs["font-family"])
    assert.is_nil(text:find("<script", 1, true))
    assert.is_nil(text:find("href", 1, true))
  end)

  it("stacks the categories in the fixed order, heights proportional to the values", function()
    local segs = by_class(root, "segment")
    local cats = {}
    for i, s in ipairs(segs) do cats[i] = s.attrs["data-category"] end
    -- zero and missing categories draw nothing; order is BASE, DEP, L1, L2, DRAM, MSHR, QUEUE
    assert.same({ "BASE", "DEP", "DRAM", "BASE", "DEP", "DRAM", "MSHR", "BASE", "L2" }, cats)
    local px_per_unit = n(segs[1].attrs.height) / 0.25
    local expected = { 0.25, 1.0, 2.0, 0.25, 0.5, 1.0, 0.25, 0.25, 0.75 }
    for i, s in ipairs(segs) do
      assert.near(expected[i] * px_per_unit, n(s.attrs.height), 0.02)
    end
    -- each segment sits on the one below it
    for i = 2, 3 do
      assert.near(n(segs[i - 1].attrs.y), n(segs[i].attrs.y) + n(segs[i].attrs.height), 0.02)
    end
    -- the bars start on the y axis' zero
    local y_ticks = tick_positions(root, "y-axis", "y")
    assert.near(y_ticks[0] - 4, n(segs[1].attrs.y) + n(segs[1].attrs.height), 0.02)
    -- and a tick's pixel distance matches the scale
    assert.near((y_ticks[0] - y_ticks[1]), px_per_unit, 0.02)
  end)

  it("labels the y axis at 0..4 (largest stack 3.5 with its marker)", function()
    local values = {}
    for _, g in ipairs(by_class(root, "y-axis")) do
      for _, t in ipairs(g.children) do
        if t.name == "text" then values[#values + 1] = unescape(t.text) end
      end
    end
    assert.same({ "0", "1", "2", "3", "4" }, values)
  end)

  it("has a legend with every category top first and the marker's entry", function()
    local entries = {}
    for i, e in ipairs(by_class(root, "legend-entry")) do entries[i] = e.text end
    assert.same({ "QUEUE", "MSHR", "DRAM", "L2", "L1", "DEP", "BASE", "simulator CPI" }, entries)
  end)

  it("draws the markers joined within a group, at their values", function()
    local lines = by_class(root, "marker-line")
    assert.equal(1, #lines) -- the second group has no markers
    local y_ticks = tick_positions(root, "y-axis", "y")
    local pts = {}
    for x, y in lines[1].attrs.points:gmatch("([%d.]+),([%d.]+)") do pts[#pts + 1] = { n(x), n(y) } end
    assert.equal(2, #pts)
    local unit = y_ticks[0] - y_ticks[1]
    assert.near(y_ticks[0] - 4 - 3.5 * unit, pts[1][2], 0.02)
    assert.near(y_ticks[0] - 4 - 2.0 * unit, pts[2][2], 0.02)
  end)

  it("escapes titles and labels", function()
    assert.truthy(text:find("CPI &lt;stacks&gt;", 1, true))
    assert.truthy(text:find("a&lt;b &amp; &quot;c&quot;", 1, true))
    assert.is_nil(text:find("a<b", 1, true))
    local groups = by_class(root, "group-label")
    assert.equal('a<b & "c"', unescape(groups[2].text))
  end)

  it("gives the same bytes for the same data, however its tables were built", function()
    local again = cpi_data()
    local values = {}
    for _, c in ipairs({ "DRAM", "DEP", "BASE" }) do -- other insertion order
      values[c] = again.groups[1].bars[1].values[c]
    end
    again.groups[1].bars[1].values = values
    local opts = { title = "CPI <stacks>", y_label = "CPI (cycles/warp inst)", marker_label = "simulator CPI" }
    assert.equal(text, svg.stacked_bars(again, opts))
  end)

  it("rejects bad data naming the field", function()
    local bad = cpi_data()
    bad.groups[1].bars[2].values.DRAM = "lots"
    assert.has_error(function() svg.stacked_bars(bad) end,
      "gpush.report.svg.stacked_bars: data.groups[1].bars[2].values.DRAM must be a finite number, got lots")
    bad.groups[1].bars[2].values.DRAM = -1
    assert.has_error(function() svg.stacked_bars(bad) end,
      "gpush.report.svg.stacked_bars: data.groups[1].bars[2].values.DRAM must not be negative, got -1")
    assert.has_error(function() svg.stacked_bars({ groups = {} }) end,
      "gpush.report.svg.stacked_bars: data.groups must be a non-empty list")
  end)
end)

describe("svg.lines", function()
  local data = { x = { 8, 16, 32, 64 }, series = {
    { label = "triad RR", group = "triad", style = "RR", y = { 400, 200, 100, 50 } },
    { label = "triad GTO", group = "triad", style = "GTO", y = { 380, 190, false, 60 } },
    { label = "chase <RR>", group = "chase", style = "RR", y = { 100, 100, 100, 100 } },
  } }
  local text = svg.lines(data, { title = "Cycles", x_label = "warps per SM", y_label = "cycles", x_ticks = "data" })
  local root = parse_xml(text)

  it("draws one polyline per unbroken run, points at their data positions", function()
    local series = find_all(root, function(e) return e.attrs.class == "series" end)
    assert.equal(3, #series)
    local function polylines(g)
      return find_all(g, function(e) return e.name == "polyline" end)
    end
    assert.equal(1, #polylines(series[1]))
    assert.equal(1, #polylines(series[2])) -- {380, 190} then a gap: the lone 60 has no line
    local xt, yt = tick_positions(root, "x-axis", "x"), tick_positions(root, "y-axis", "y")
    -- x ticks at the data values
    assert.truthy(xt[8] and xt[16] and xt[32] and xt[64])
    assert.near((xt[64] - xt[32]), 2 * (xt[32] - xt[16]), 0.05)
    local pts = {}
    for x, y in polylines(series[1])[1].attrs.points:gmatch("([%d.]+),([%d.]+)") do pts[#pts + 1] = { n(x), n(y) } end
    assert.equal(4, #pts)
    assert.near(xt[8], pts[1][1], 0.01)
    local y0 = yt[0] - 4
    local unit = (yt[0] - yt[100]) / 100
    assert.near(y0 - 400 * unit, pts[1][2], 0.05)
    assert.near(y0 - 50 * unit, pts[4][2], 0.05)
  end)

  it("colours by group and marks by style, one legend entry per series", function()
    local entries = {}
    for i, e in ipairs(by_class(root, "legend-entry")) do entries[i] = unescape(e.text) end
    assert.same({ "triad RR", "triad GTO", "chase <RR>" }, entries)
    local lines = {}
    for _, g in ipairs(by_class(root, "series")) do
      lines[#lines + 1] = find_all(g, function(e) return e.name == "polyline" end)[1]
    end
    assert.equal(lines[1].attrs.stroke, lines[2].attrs.stroke)
    assert.are_not.equal(lines[1].attrs.stroke, lines[3].attrs.stroke)
    assert.are_not.equal(lines[1].attrs["stroke-dasharray"], lines[2].attrs["stroke-dasharray"])
    assert.equal(lines[1].attrs["stroke-dasharray"], lines[3].attrs["stroke-dasharray"])
  end)

  it("puts a log axis at 1-2-5 steps and refuses values it cannot show", function()
    local log = parse_xml(svg.lines(data, { log_y = true }))
    local yt = tick_positions(log, "y-axis", "y")
    -- y from 50 to 400: ticks 50, 100, 200, 500, equal distance per doubling
    assert.truthy(yt[50] and yt[100] and yt[200] and yt[500])
    assert.near(yt[50] - yt[100], yt[100] - yt[200], 0.02)
    local bad = { x = { 1, 2 }, series = { { label = "s", y = { 0, 1 } } } }
    assert.has_error(function() svg.lines(bad, { log_y = true }) end,
      "gpush.report.svg.lines: data.series[1].y[1] must be positive on a log axis, got 0")
    assert.has_error(function() svg.lines({ x = { 1, 2 }, series = { { y = { 1 } } } }) end,
      "gpush.report.svg.lines: data.series[1] has 2 x values and 1 y values")
  end)

  it("is deterministic", function()
    assert.equal(text, svg.lines(data, { title = "Cycles", x_label = "warps per SM", y_label = "cycles",
      x_ticks = "data" }))
  end)
end)

describe("svg.heatmap", function()
  local data = { x = { 16, 32, 64 }, y = { 96, 192 }, values = { { 100, 150, 200 }, { 50, false, 125 } } }
  local text = svg.heatmap(data, { title = "cycles", x_label = "MSHRs", y_label = "DRAM GB/s", value_label = "cycles" })
  local root = parse_xml(text)

  it("colours each cell by its value on the scale, writes the value, marks missing cells", function()
    local cells = by_class(root, "cell")
    assert.equal(6, #cells)
    local texts = {}
    for i, t in ipairs(by_class(root, "cell-text")) do texts[i] = t.text end
    assert.same({ "100", "150", "200", "50.0", "125" }, texts)
    -- 50 is the scale's bottom, 200 its top (nice ticks 50..200)
    assert.equal("#440154", cells[4].attrs.fill)
    assert.equal("#fde725", cells[3].attrs.fill)
    assert.equal("#f0f0f0", cells[5].attrs.fill)
    assert.equal(select(1, svg.scale_color((100 - 50) / 150)), cells[1].attrs.fill)
    -- the first row (y = 96) is drawn at the bottom
    assert.is_true(n(cells[1].attrs.y) > n(cells[4].attrs.y))
  end)

  it("has a colour scale legend with ticks and the value label", function()
    local scale = by_class(root, "color-scale")[1]
    local rects = find_all(scale, function(e) return e.name == "rect" end)
    assert.equal(33, #rects) -- 32 steps and the frame
    local ticks = {}
    for _, t in ipairs(find_all(scale, function(e) return e.attrs.class == "tick" end)) do
      ticks[#ticks + 1] = t.text
    end
    assert.same({ "50", "100", "150", "200" }, ticks)
    assert.equal("cycles", by_class(root, "value-label")[1].text)
  end)

  it("rejects ragged rows", function()
    assert.has_error(function() svg.heatmap({ x = { 1, 2 }, y = { 1 }, values = { { 1 } } }) end,
      "gpush.report.svg.heatmap: data.values[1] must hold 2 values (one per x label)")
  end)
end)

describe("svg.roofline", function()
  local data = { peak_gflops = 1000, peak_gbs = 100, compute_label = "FP32 FMA peak",
    points = { { label = "mem <bound>", intensity = 0.5, gflops = 50 },
      { label = "compute", intensity = 100, gflops = 800 } } }
  local text = svg.roofline(data, { title = "Roofline" })
  local root = parse_xml(text)

  it("bends the roof at the ridge point, on log-log axes", function()
    local xt, yt = tick_positions(root, "x-axis", "x"), tick_positions(root, "y-axis", "y")
    -- decades: equal pixel distance per factor of ten
    assert.near(xt[1] - xt[0.1], xt[10] - xt[1], 0.02)
    assert.near(yt[10] - yt[100], yt[100] - yt[1000], 0.02)
    local roof = by_class(root, "roof")[1]
    local pts = {}
    for x, y in roof.attrs.points:gmatch("([%d.]+),([%d.]+)") do pts[#pts + 1] = { n(x), n(y) } end
    assert.equal(3, #pts)
    -- knee at intensity 10 FLOP/B (1000 / 100), performance 1000 (tick labels sit 16 px below / 4 px below)
    assert.near(xt[10], pts[2][1], 0.02)
    assert.near(yt[1000] - 4, pts[2][2], 0.02)
    assert.near(pts[2][2], pts[3][2], 1e-9) -- flat compute roof
    local ridge = by_class(root, "ridge")[1]
    assert.near(xt[10], n(ridge.attrs.x1), 0.02)
    assert.truthy(text:find("ridge 10.0 FLOP/B", 1, true))
    assert.truthy(text:find("FP32 FMA peak 1000 GFLOP/s", 1, true))
    assert.truthy(text:find("DRAM 100 GB/s", 1, true))
  end)

  it("places each kernel at its intensity and performance", function()
    local xt, yt = tick_positions(root, "x-axis", "x"), tick_positions(root, "y-axis", "y")
    local g = by_class(root, "points")[1]
    local first = g.children[1]
    assert.equal("circle", first.name)
    local decade_x = xt[10] - xt[1]
    local decade_y = yt[10] - yt[100]
    assert.near(xt[1] + math.log(0.5, 10) * decade_x, n(first.attrs.cx), 0.02)
    assert.near(yt[10] - 4 - math.log(5, 10) * decade_y, n(first.attrs.cy), 0.02)
    local entries = {}
    for i, e in ipairs(by_class(root, "legend-entry")) do entries[i] = unescape(e.text) end
    assert.same({ "mem <bound>", "compute" }, entries)
  end)

  it("refuses points a log-log plot cannot show", function()
    data.points[1].gflops = 0
    assert.has_error(function() svg.roofline(data) end,
      "gpush.report.svg.roofline: data.points[1] needs a positive intensity and gflops for a log-log plot, got 0.5 and 0")
  end)
end)

describe("svg.tornado", function()
  local data = { rows = { { label = "bw <GB/s>", low = 0.3, high = -0.2 }, { label = "mshrs", low = 0.1, high = 0.05 } } }
  local root = parse_xml(svg.tornado(data, { title = "t" }))

  it("draws bars from zero, widths proportional to the changes", function()
    local xt = tick_positions(root, "x-axis", "x")
    local px = (xt[20] - xt[0]) / 20 -- pixels per percent
    local low = by_class(root, "bar-low")
    local high = by_class(root, "bar-high")
    assert.equal(2, #low)
    assert.near(30 * px, n(low[1].attrs.width), 0.02)
    assert.near(xt[0], n(low[1].attrs.x), 0.02)
    assert.near(20 * px, n(high[1].attrs.width), 0.02)
    assert.near(xt[0] - 20 * px, n(high[1].attrs.x), 0.02)
    assert.near(5 * px, n(high[2].attrs.width), 0.02)
    -- rows top to bottom in the given order
    assert.is_true(n(low[1].attrs.y) < n(low[2].attrs.y))
    local labels = {}
    for i, t in ipairs(by_class(root, "row-label")) do labels[i] = unescape(t.text) end
    assert.same({ "bw <GB/s>", "mshrs" }, labels)
  end)
end)

describe("svg.boxes", function()
  local data = { boxes = { { label = "300", mean = 6, lo = 4, hi = 8, min = 3, max = 10 },
    { label = "1000", mean = 2, lo = 1.5, hi = 2.5, min = 1, max = 4 } } }
  local root = parse_xml(svg.boxes(data, { title = "Fig. 12", y_label = "error (%)" }))

  it("draws whiskers min-max, the box lo-hi and the mean line at their values", function()
    local yt = tick_positions(root, "y-axis", "y")
    local py = (yt[0] - yt[10]) / 10 -- pixels per unit, y grows downwards
    local y0 = yt[0] - 4 -- tick labels sit 4 px below their grid line
    local boxes = by_class(root, "box")
    assert.equal(2, #boxes)
    assert.equal("300", boxes[1].attrs["data-label"])
    assert.equal("6", boxes[1].attrs["data-mean"])
    local lines = find_all(boxes[1], function(e) return e.name == "line" end)
    local rect = find_all(boxes[1], function(e) return e.name == "rect" end)[1]
    assert.near(y0 - 3 * py, n(lines[1].attrs.y1), 0.02) -- the whisker from min
    assert.near(y0 - 10 * py, n(lines[1].attrs.y2), 0.02) -- to max
    assert.near(y0 - 8 * py, n(rect.attrs.y), 0.02)
    assert.near(4 * py, n(rect.attrs.height), 0.02)
    assert.near(y0 - 6 * py, n(lines[4].attrs.y1), 0.02) -- the mean
    -- left to right in the given order
    assert.is_true(n(lines[1].attrs.x1) < n(find_all(boxes[2], function(e) return e.name == "line" end)[1].attrs.x1))
  end)

  it("rejects boxes out of order", function()
    assert.has_error(function() svg.boxes({ boxes = { { mean = 1, lo = 2, hi = 1, min = 0, max = 3 } } }) end,
      "gpush.report.svg.boxes: data.boxes[1] needs min <= lo <= hi <= max")
  end)
end)

describe("svg.write", function()
  it("writes the text, or returns nil and a message", function()
    local path = os.tmpname()
    assert.is_true(svg.write(path, "<svg/>\n"))
    local f = assert(io.open(path, "rb"))
    assert.equal("<svg/>\n", f:read("a"))
    f:close()
    os.remove(path)
    local ok, err = svg.write("/nonexistent-dir/x.svg", "<svg/>")
    assert.is_nil(ok)
    assert.truthy(err:find("^/nonexistent%-dir/x.svg: cannot write"))
  end)
end)

describe("plot data from result rows", function()
  local rows = {
    { kernel = "k1", model = "gto", warps = 16, bw = 96, cycles = 300, cpi_base = 0.5, cpi_dram = 2, sim_cpi = 2.4 },
    { kernel = "k1", model = "gto", warps = 8, bw = 96, cycles = 500, cpi_base = 0.5, cpi_dram = 4, sim_cpi = 4.1 },
    { kernel = "k1", model = "rr", warps = 8, bw = 96, cycles = 520 },
    { kernel = "k2", model = "gto", warps = 8, bw = 192, cycles = 100, cpi_base = 0.5, cpi_dep = 1 },
  }

  it("groups CPI stacks by kernel, bars sorted by the swept value", function()
    local gto = {}
    for _, r in ipairs(rows) do
      if r.model == "gto" then gto[#gto + 1] = r end
    end
    local d = svg.stack_data(gto, { bar = "warps", bar_format = "%s warps", marker = "sim_cpi" })
    assert.equal(2, #d.groups)
    assert.equal("k1", d.groups[1].label)
    assert.equal("8 warps", d.groups[1].bars[1].label)
    assert.equal(4, d.groups[1].bars[1].values.DRAM)
    assert.equal(4.1, d.groups[1].bars[1].marker)
    assert.equal("16 warps", d.groups[1].bars[2].label)
    assert.equal(1, d.groups[2].bars[1].values.DEP)
    assert.has_error(function() svg.stack_data(rows, { bar = "warps" }) end,
      "gpush.report.svg.stack_data: rows 2 and 3 are both kernel=k1 warps=8: filter the rows to one per bar")
  end)

  it("makes one series per kernel and model over the sorted x values", function()
    local d = svg.series_data(rows, { x = "warps", y = "cycles" })
    assert.same({ 8, 16 }, d.x)
    assert.equal(3, #d.series)
    assert.equal("k1 gto", d.series[1].label)
    assert.same({ 500, 300 }, d.series[1].y)
    assert.same({ 520, false }, d.series[2].y)
    assert.equal("k1", d.series[2].group)
    assert.equal("rr", d.series[2].style)
  end)

  it("lays a grid over two columns, bottom row the smallest y", function()
    local d = svg.grid_data({ rows[1], rows[2], rows[4] }, { x = "warps", y = "bw", value = "cycles" })
    assert.same({ "8", "16" }, d.x)
    assert.same({ "96", "192" }, d.y)
    assert.same({ { 500, 300 }, { 100, false } }, d.values)
  end)

  it("writes a sweep's CPI, cycles and heat-map SVGs from its results", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir " .. dir))
    local res = { rows = rows, extra = { sweep = { name = "s", models = { "gto", "rr" },
      parameters = { { path = "sm.max_warps", column = "warps", values = { 8, 16 } },
        { path = "dram.bandwidth_gbs", column = "bw", values = { 96, 192 } } },
      summary = { baseline = { bw = 96 } } } } }
    local paths = assert(require("gpush.report.sweep").svg(res, dir))
    assert.same({ dir .. "/s_cpi_gto.svg", dir .. "/s_cycles.svg", dir .. "/s_heatmap_k1.svg",
      dir .. "/s_heatmap_k2.svg" }, paths)
    local root = parse_xml(helper.read_file(paths[1]))
    -- at bw = 96 only k1 has CPI stacks: two bars of two segments, in k1's panel
    assert.equal(4, #by_class(root, "segment"))
    local panels = by_class(root, "panel-title")
    assert.equal(1, #panels)
    assert.equal("k1", panels[1].text)
    -- the cycles: one panel per kernel, the legend lists the models once each
    local cycles = parse_xml(helper.read_file(paths[2]))
    local titles, entries = {}, {}
    for i, t in ipairs(by_class(cycles, "panel-title")) do titles[i] = t.text end
    for i, e in ipairs(by_class(cycles, "legend-entry")) do entries[i] = e.text end
    assert.same({ "k1" }, titles) -- k2 has no row at the baseline bw = 96
    assert.same({ "gto", "rr" }, entries)
    for _, p in ipairs(paths) do os.remove(p) end
    os.remove(dir)
  end)
end)

describe("scenarios/report_gallery.lua", function()
  it("writes every plot kind and the roofline and tornado tables", function()
    local dir = os.tmpname()
    os.remove(dir)
    local code, out, err = helper.gpush_run { "scenarios/report_gallery.lua", "--traces", "suite:stream_triad",
      "--jobs", "1", "--quiet", "--out", dir }
    assert.equal(0, code, err)
    assert.equal("", out)
    for _, suffix in ipairs({ "fig16", "speedup", "roofline", "tornado", "cpi_gpumech-gto", "cycles",
      "heatmap_stream_triad_1" }) do
      local root = parse_xml(helper.read_file(dir .. "/report_gallery_" .. suffix .. ".svg"))
      assert.equal("svg", root.name)
    end
    local index = helper.read_file(dir .. "/report_gallery_index.md")
    -- stream_triad: a[i] = b[i] + s * c[i], one FFMA (2 FLOPs) per element against two 4-byte loads
    -- and one 4-byte store: 2/12 FLOP/B
    assert.truthy(index:find("| stream_triad | gpumech-gto | 0.167 |", 1, true))
    assert.truthy(index:find("| l1.mshrs | 32 | 16 | 64 |", 1, true))
    assert.truthy(index:find("| dram.bandwidth_gbs | 144 | 96 | 192 |", 1, true))
    assert.truthy(index:find("- report_gallery.csv", 1, true))
    os.execute("rm -rf " .. helper.shell_quote(dir))
  end)
end)
