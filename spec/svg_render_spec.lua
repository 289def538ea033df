-- Renders every SVG plot kind in headless Chromium (Debian's `chromium`,
-- optional: the spec is pending with a message where it is absent) and
-- checks the PNG is not blank: enough pixels differ from the white
-- background, in both halves of the image, in several colours.  The PNG is
-- decoded here (a small inflate and the five PNG filters) so the check needs
-- nothing beyond Lua.
local svg = require "gpush.report.svg"
local helper = require "spec_helper"

-- Inflate (RFC 1950/1951) ----------------------------------------------------------

local LENGTH_BASE = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99,
  115, 131, 163, 195, 227, 258 }
local LENGTH_EXTRA = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 }
local DIST_BASE = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
  2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577 }
local DIST_EXTRA = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 }
local CODE_LENGTH_ORDER = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 }

-- A canonical Huffman code from code lengths (lengths[1..n] for symbols 0..n-1).
local function huffman(lengths, n)
  local count, offsets, symbols = {}, {}, {}
  for len = 0, 15 do count[len] = 0 end
  for s = 1, n do count[lengths[s]] = count[lengths[s]] + 1 end
  offsets[1] = 0
  for len = 1, 14 do offsets[len + 1] = offsets[len] + count[len] end
  for s = 1, n do
    local len = lengths[s]
    if len > 0 then
      symbols[offsets[len]] = s - 1
      offsets[len] = offsets[len] + 1
    end
  end
  return { count = count, symbols = symbols }
end

local function inflate(data)
  local pos, bitbuf, bitcnt = 3, 0, 0 -- after the 2-byte zlib header
  assert(data:byte(1) & 0x0f == 8, "zlib stream is not deflate")
  local out, n = {}, 0
  local function bits(need)
    while bitcnt < need do
      local b = data:byte(pos)
      assert(b, "deflate stream ends early")
      pos = pos + 1
      bitbuf = bitbuf | (b << bitcnt)
      bitcnt = bitcnt + 8
    end
    local v = bitbuf & ((1 << need) - 1)
    bitbuf = bitbuf >> need
    bitcnt = bitcnt - need
    return v
  end
  local function decode(h)
    local code, first, index = 0, 0, 0
    for len = 1, 15 do
      code = code | bits(1)
      local count = h.count[len]
      if code - count < first then
        return h.symbols[index + code - first]
      end
      index = index + count
      first = (first + count) << 1
      code = code << 1
    end
    error("bad Huffman code")
  end
  local function codes(lit, dist)
    while true do
      local sym = decode(lit)
      if sym < 256 then
        n = n + 1
        out[n] = sym
      elseif sym == 256 then
        return
      else
        sym = sym - 256
        local len = LENGTH_BASE[sym] + bits(LENGTH_EXTRA[sym])
        local d = decode(dist) + 1
        local distance = DIST_BASE[d] + bits(DIST_EXTRA[d])
        for _ = 1, len do
          n = n + 1
          out[n] = out[n - distance]
        end
      end
    end
  end
  local fixed_lit, fixed_dist
  repeat
    local last = bits(1)
    local kind = bits(2)
    if kind == 0 then
      bitbuf, bitcnt = 0, 0
      local len = data:byte(pos) | (data:byte(pos + 1) << 8)
      pos = pos + 4
      for i = 0, len - 1 do
        n = n + 1
        out[n] = data:byte(pos + i)
      end
      pos = pos + len
    elseif kind == 1 then
      if not fixed_lit then
        local l = {}
        for s = 1, 288 do l[s] = s <= 144 and 8 or s <= 256 and 9 or s <= 280 and 7 or 8 end
        fixed_lit = huffman(l, 288)
        local d = {}
        for s = 1, 30 do d[s] = 5 end
        fixed_dist = huffman(d, 30)
      end
      codes(fixed_lit, fixed_dist)
    elseif kind == 2 then
      local nlen, ndist, ncode = bits(5) + 257, bits(5) + 1, bits(4) + 4
      local cl = {}
      for i = 1, 19 do cl[i] = 0 end
      for i = 1, ncode do cl[CODE_LENGTH_ORDER[i] + 1] = bits(3) end
      local clh = huffman(cl, 19)
      local lengths, i = {}, 1
      while i <= nlen + ndist do
        local sym = decode(clh)
        if sym < 16 then
          lengths[i] = sym
          i = i + 1
        else
          local value, rep = 0, 0
          if sym == 16 then
            value, rep = lengths[i - 1], 3 + bits(2)
          elseif sym == 17 then
            rep = 3 + bits(3)
          else
            rep = 11 + bits(7)
          end
          for _ = 1, rep do
            lengths[i] = value
            i = i + 1
          end
        end
      end
      local lit, dist = {}, {}
      for s = 1, nlen do lit[s] = lengths[s] end
      for s = 1, ndist do dist[s] = lengths[nlen + s] end
      codes(huffman(lit, nlen), huffman(dist, ndist))
    else
      error("bad deflate block type")
    end
  until last == 1
  return out
end

-- PNG ---------------------------------------------------------------------------------

local function u32(s, i)
  return (s:byte(i) << 24) | (s:byte(i + 1) << 16) | (s:byte(i + 2) << 8) | s:byte(i + 3)
end

-- Decodes an 8-bit RGB or RGBA, non-interlaced PNG; returns width, height,
-- channels and a pixel(x, y) -> r, g, b function.
local function decode_png(s)
  assert(s:sub(1, 8) == "\137PNG\r\n\26\n", "not a PNG")
  local pos, idat, width, height, channels = 9, {}, nil, nil, nil
  while pos <= #s do
    local len, kind = u32(s, pos), s:sub(pos + 4, pos + 7)
    local body = s:sub(pos + 8, pos + 7 + len)
    if kind == "IHDR" then
      width, height = u32(body, 1), u32(body, 5)
      local depth, color, interlace = body:byte(9), body:byte(10), body:byte(13)
      assert(depth == 8 and (color == 2 or color == 6) and interlace == 0,
        ("unsupported PNG: depth %d colour type %d interlace %d"):format(depth, color, interlace))
      channels = color == 6 and 4 or 3
    elseif kind == "IDAT" then
      idat[#idat + 1] = body
    end
    pos = pos + 12 + len
  end
  local raw = inflate(table.concat(idat))
  local stride = width * channels
  local pixels, prev = {}, {}
  for i = 1, stride do prev[i] = 0 end
  local at = 1
  for y = 0, height - 1 do
    local filter = raw[at]
    at = at + 1
    local row = {}
    for i = 1, stride do
      local x = raw[at + i - 1]
      local a = i > channels and row[i - channels] or 0
      local b = prev[i]
      local c = i > channels and prev[i - channels] or 0
      if filter == 1 then
        x = x + a
      elseif filter == 2 then
        x = x + b
      elseif filter == 3 then
        x = x + ((a + b) >> 1)
      elseif filter == 4 then
        local p = a + b - c
        local pa, pb, pc = math.abs(p - a), math.abs(p - b), math.abs(p - c)
        x = x + ((pa <= pb and pa <= pc) and a or (pb <= pc and b or c))
      end
      row[i] = x & 0xff
    end
    pixels[y] = row
    prev = row
    at = at + stride
  end
  return width, height, channels, function(px, py)
    local r, i = pixels[py], px * channels
    return r[i + 1], r[i + 2], r[i + 3]
  end
end

-- Rendering ----------------------------------------------------------------------------------

local chromium = io.popen("command -v chromium 2>/dev/null"):read("l")

-- Renders SVG text to a PNG of width x height; returns the PNG bytes.
local function render(text, width, height)
  local dir = io.popen("mktemp -d"):read("l")
  local svg_path, png_path = dir .. "/plot.svg", dir .. "/plot.png"
  assert(svg.write(svg_path, text))
  -- the sanitizer run preloads ASan into lua5.4: keep it out of Chromium
  local command = ("env -u LD_PRELOAD -u ASAN_OPTIONS timeout 120 %s --headless --no-sandbox --disable-gpu "
    .. "--hide-scrollbars --no-first-run --mute-audio --user-data-dir=%s --window-size=%d,%d --screenshot=%s %s")
    :format(helper.shell_quote(chromium), helper.shell_quote(dir .. "/profile"), width, height,
      helper.shell_quote(png_path), helper.shell_quote("file://" .. svg_path))
  local code, _, err = helper.run(command)
  local f = io.open(png_path, "rb")
  local png = f and f:read("a")
  if f then f:close() end
  os.execute("rm -rf " .. helper.shell_quote(dir))
  assert(code == 0 and png, ("chromium failed (exit %s): %s"):format(tostring(code), err))
  return png
end

-- Pixels differing from white, per half, and the colours (4 bits a channel)
-- covering at least 50 pixels.
local function image_stats(png)
  local width, height, _, pixel = decode_png(png)
  local inked, left, right, colors, ncolors = 0, 0, 0, {}, 0
  for y = 0, height - 1 do
    for x = 0, width - 1 do
      local r, g, b = pixel(x, y)
      if r < 240 or g < 240 or b < 240 then
        inked = inked + 1
        if x < width // 2 then left = left + 1 else right = right + 1 end
      end
      local key = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4)
      colors[key] = (colors[key] or 0) + 1
      if colors[key] == 50 then -- a colour that fills an area, not an anti-aliased edge
        ncolors = ncolors + 1
      end
    end
  end
  return { width = width, height = height, inked = inked / (width * height), left = left, right = right,
    colors = ncolors }
end

local W, H = 640, 400

local plots = {
  { "stacked bars", 8, function()
    local bars = {}
    for i, w in ipairs({ 8, 16, 32 }) do
      bars[i] = { label = w .. " warps", values = { BASE = 0.25, DEP = 2 / i, L1 = 0.2, L2 = 0.3 * i, DRAM = 1.5 / i,
        MSHR = 0.1 * i, QUEUE = 0.05 * i * i }, marker = 3 + 0.3 * i }
    end
    return svg.stacked_bars({ groups = { { label = "stream_triad", bars = bars }, { label = "a<b", bars = bars } } },
      { title = "CPI stacks", y_label = "CPI", width = W, height = H, marker_label = "sim CPI" })
  end },
  { "lines", 3, function()
    return svg.lines({ x = { 8, 16, 32, 64 }, series = {
      { label = "triad RR", group = "triad", style = "RR", y = { 400, 200, 120, 100 } },
      { label = "triad GTO", group = "triad", style = "GTO", y = { 380, 190, 110, 90 } },
      { label = "chase RR", group = "chase", style = "RR", y = { 300, 250, 240, 235 } } } },
      { title = "Cycles", x_label = "warps per SM", y_label = "cycles", width = W, height = H })
  end },
  { "heat map", 9, function()
    return svg.heatmap({ x = { 16, 32, 64 }, y = { 96, 144, 192 }, values = { { 9, 8, 7 }, { 6, 5, 4 }, { 3, 2, 1 } } },
      { title = "cycles", x_label = "MSHRs", y_label = "GB/s", value_label = "cycles", width = W, height = H })
  end },
  { "roofline", 3, function()
    return svg.roofline({ peak_gflops = 2459, peak_gbs = 144, points = {
      { label = "triad", intensity = 0.08, gflops = 11 }, { label = "fma", intensity = 60, gflops = 1800 } } },
      { title = "Roofline", width = W, height = H })
  end },
  { "tornado", 3, function()
    return svg.tornado({ rows = { { label = "dram.bandwidth_gbs", low = 0.4, high = -0.2 },
      { label = "l1.mshrs", low = 0.1, high = -0.05 } } }, { title = "Sensitivity", width = W, height = H })
  end },
  { "correlation", 3, function()
    return svg.correlation({ band = 0.2, series = {
      { label = "sim-gto", points = { { measured = 5055, predicted = 5072 }, { measured = 73720, predicted = 9600 } } },
      { label = "gpumech-gto", points = { { measured = 28173, predicted = 27338 } } } } },
      { title = "Correlation", width = W, height = H })
  end },
}

describe("SVG plots rendered by headless Chromium", function()
  if not chromium then
    pending("chromium not installed (optional: apt-get install -y chromium); SVG render check skipped")
    return
  end
  it("tells a blank drawing from a plot (the check can fail)", function()
    local blank = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">'
      .. '<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/></svg>'):format(W, H, W, H)
    local stats = image_stats(render(blank, W, H))
    assert.equal(0, stats.inked)
    assert.equal(1, stats.colors)
  end)
  for _, p in ipairs(plots) do
    local name, min_colors, make = p[1], p[2], p[3]
    it(name .. " renders to a non-blank PNG", function()
      local stats = image_stats(render(make(), W, H))
      assert.equal(W, stats.width)
      assert.equal(H, stats.height)
      assert.is_true(stats.inked > 0.02, ("%s: only %.2f%% of the pixels are drawn"):format(name, stats.inked * 100))
      assert.is_true(stats.left > 500 and stats.right > 500, name .. ": one half of the image is empty")
      assert.is_true(stats.colors >= min_colors, ("%s: %d colours, expected at least %d"):format(name,
        stats.colors, min_colors))
    end)
  end
end)
