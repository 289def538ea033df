-- Renders every SVG plot kind in headless Chromium (Debian's `chromium`,
-- optional: the spec is pending with a message where it is absent; CI
-- installs it, GPUSH_RENDER_CHECKS=1 bash tools/setup.sh) and checks what a
-- reader sees:
--   * the PNG is not blank: enough pixels differ from the white background,
--     in both halves of the image, in several colours (the PNG is decoded
--     here, a small inflate and the five PNG filters, so the check needs
--     nothing beyond Lua);
--   * every text element's rendered box (Chromium measures each <text>
--     after its transforms, with the font it really uses) lies inside the
--     canvas and meets no other text: no label off the figure, no two
--     labels on top of each other.  The plots checked so are every kind in
--     crowded shapes: the main job's sweep report (16 kernels x 5 models,
--     CPI and stall stacks, cycles, heat map, hierarchical roofline), 80
--     series in one plot, long names, a tornado of near-zero changes and
--     the ML evaluation figures.  GPUSH_SVG_DUMP=DIR keeps them in DIR to look at.
local svg = require "gpush.report.svg"
local helper = require "spec_helper"
local json = require "gpush.json"

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

-- Runs headless Chromium on `url` with `what` ("--screenshot=PNG" or
-- "--dump-dom") in a fresh profile; returns stdout.
local function chromium_run(dir, url, what, width, height)
  -- the sanitizer run preloads ASan into lua5.4: keep it out of Chromium; no
  -- background networking (the machine has no network to reach)
  local command = ("env -u LD_PRELOAD -u ASAN_OPTIONS timeout 120 %s --headless --no-sandbox --disable-gpu "
    .. "--disable-quic --disable-background-networking --disable-component-update --disable-sync "
    .. "--hide-scrollbars --no-first-run --mute-audio --user-data-dir=%s --window-size=%d,%d %s %s")
    :format(helper.shell_quote(chromium), helper.shell_quote(dir .. "/profile"), width, height, what,
      helper.shell_quote(url))
  local code, out, err = helper.run(command)
  assert(code == 0, ("chromium failed (exit %s): %s"):format(tostring(code), err))
  return out
end

-- Renders SVG text to a PNG of width x height; returns the PNG bytes.
local function render(text, width, height)
  local dir = helper.temp_dir()
  local svg_path, png_path = dir .. "/plot.svg", dir .. "/plot.png"
  assert(svg.write(svg_path, text))
  chromium_run(dir, "file://" .. svg_path, "--screenshot=" .. helper.shell_quote(png_path), width, height)
  local f = io.open(png_path, "rb")
  local png = f and f:read("a")
  if f then f:close() end
  os.execute("rm -rf " .. helper.shell_quote(dir))
  assert(png, "chromium wrote no screenshot")
  return png
end

-- Measures every <text> of each SVG in Chromium: one page holds them all,
-- a script takes each text's box (getBBox, in its own coordinates) through
-- its transform to the SVG's (getCTM) and writes the corners as JSON, which
-- --dump-dom prints.  Returns, per SVG, { width, height, boxes = { { text,
-- class, corners = { {x, y} x 4 } } } }.
local function text_boxes(svgs)
  local dir = helper.temp_dir()
  local page = { '<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}div{margin:0}</style>'
    .. "</head><body>" }
  for _, text in ipairs(svgs) do
    page[#page + 1] = '<div class="plot">' .. text .. "</div>"
  end
  page[#page + 1] = [==[<pre id="gpush-boxes"></pre><script>
const out = [];
for (const div of document.querySelectorAll("div.plot")) {
  const root = div.querySelector("svg"), boxes = [];
  for (const t of root.querySelectorAll("text")) {
    const b = t.getBBox(), m = t.getCTM();
    const own = Array.from(t.childNodes).filter(n => n.nodeType === 3).map(n => n.data).join("");
    const corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
      .map(p => [m.a * p[0] + m.c * p[1] + m.e, m.b * p[0] + m.d * p[1] + m.f]);
    boxes.push({ text: own, class: t.getAttribute("class") || "", corners: corners });
  }
  out.push({ width: root.width.baseVal.value, height: root.height.baseVal.value, boxes: boxes });
}
document.getElementById("gpush-boxes").textContent = JSON.stringify(out);
</script></body></html>]==]
  local path = dir .. "/page.html"
  assert(svg.write(path, table.concat(page, "\n")))
  local dom = chromium_run(dir, "file://" .. path, "--dump-dom", 1280, 1024)
  os.execute("rm -rf " .. helper.shell_quote(dir))
  local body = assert(dom:match('<pre id="gpush%-boxes">(.-)</pre>'), "the measuring script wrote nothing")
  body = body:gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&nbsp;", " "):gsub("&amp;", "&")
  local measured = assert(json.decode(body))
  assert.equal(#svgs, #measured)
  return measured
end

-- How deep two convex quadrilaterals overlap (0 when apart): the smallest
-- overlap of their projections on the edge normals of both (separating
-- axes).
local function overlap(a, b)
  local depth = math.huge
  for _, quad in ipairs { a, b } do
    for i = 1, 4 do
      local p, q = quad[i], quad[i % 4 + 1]
      local nx, ny = q[2] - p[2], p[1] - q[1]
      local len = math.sqrt(nx * nx + ny * ny)
      if len > 0 then
        nx, ny = nx / len, ny / len
        local function extent(corners)
          local lo, hi = math.huge, -math.huge
          for _, c in ipairs(corners) do
            local d = c[1] * nx + c[2] * ny
            lo, hi = math.min(lo, d), math.max(hi, d)
          end
          return lo, hi
        end
        local alo, ahi = extent(a)
        local blo, bhi = extent(b)
        local o = math.min(ahi, bhi) - math.max(alo, blo)
        if o <= 0 then
          return 0
        end
        depth = math.min(depth, o)
      end
    end
  end
  return depth
end

-- The problems a reader would see in one measured SVG: text outside the
-- canvas, two texts overlapping by more than a pixel.  Returns a list of
-- messages (empty when the figure is clean).
local function text_problems(m)
  local problems, boxes = {}, {}
  for _, b in ipairs(m.boxes) do
    if b.text:find("%S") then
      boxes[#boxes + 1] = b
    end
  end
  for _, b in ipairs(boxes) do
    for _, c in ipairs(b.corners) do
      if c[1] < -0.5 or c[2] < -0.5 or c[1] > m.width + 0.5 or c[2] > m.height + 0.5 then
        problems[#problems + 1] = ("'%s' (%s) reaches (%.1f, %.1f), outside the %d x %d canvas"):format(b.text,
          b.class, c[1], c[2], m.width, m.height)
        break
      end
    end
  end
  for i = 1, #boxes do
    for j = i + 1, #boxes do
      local d = overlap(boxes[i].corners, boxes[j].corners)
      if d > 1 then
        problems[#problems + 1] = ("'%s' (%s) and '%s' (%s) overlap by %.1f px"):format(boxes[i].text,
          boxes[i].class, boxes[j].text, boxes[j].class, d)
      end
    end
  end
  return problems
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

-- Crowded figures ------------------------------------------------------------------------

-- The regime suite's kernel names (docs/workloads.md), the main job's models.
local KERNELS = { "issue_mix", "fma_compute", "fma_chain", "sfu_heavy", "fp64_heavy", "shared_bandwidth",
  "shared_conflicts", "tiled_barrier", "l1_resident", "l2_resident", "stream_triad", "pointer_chase",
  "divergent_gather", "divergent_loop", "atomic_histogram", "tiny_blocks" }
local MODELS = { "gpumech-rr", "gpumech-gto", "sim-gto", "mcore", "bounds" }
local WARPS = { 8, 16, 24, 32, 48, 64 }

-- Rows shaped like the main job's at its baseline MSHRs and bandwidth:
-- CPI stacks from 0.5 (issue_mix) to about 150 (divergent_gather), stall
-- shares, cycles from a thousand to a million, plus a second swept
-- parameter for the heat map; deterministic.
local function main_job_results()
  local gpumech = require("gpush.models").family("gpumech")
  local sim = require("gpush.models").family("sim")
  local rows = {}
  for ki, kernel in ipairs(KERNELS) do
    local scale = 0.5 * 1.45 ^ (ki - 1)
    for _, model in ipairs(MODELS) do
      for wi, w in ipairs(WARPS) do
        for _, bw in ipairs { 96, 144 } do
          local row = { workload = "suite", kernel = kernel, launch = ki, model = model, warps_per_sm = w,
            dram_gbs = bw, cycles = 1000 * scale * (1 + 2 / wi) * (bw == 96 and 1.2 or 1), time_us = scale }
          if model:match("^gpumech") then
            for ci, c in ipairs(gpumech.STACK) do
              row["cpi_" .. c:lower()] = scale * (((ki + ci) % 4) + 1) / (4 * wi ^ 0.3) / #gpumech.STACK
            end
          elseif model == "sim-gto" then
            local total = 0
            for ri in ipairs(sim.STALL_REASONS) do
              total = total + ((ki * ri + wi) % 5) + 1
            end
            for ri, reason in ipairs(sim.STALL_REASONS) do
              row["stall_" .. reason] = (((ki * ri + wi) % 5) + 1) / total
            end
          end
          if model ~= "bounds" then
            row.achieved_gbs = 10 + ki
          end
          rows[#rows + 1] = row
        end
      end
    end
  end
  local profiles = {}
  for ki, kernel in ipairs(KERNELS) do
    local compute = ki <= 7
    profiles[ki] = { workload = "suite", kernel = kernel, launch = ki, kernel_index = ki,
      fp32 = ki == 5 and 0 or 1e6 * ki, fp64 = ki == 5 and 4e6 or 0, fp16 = 0,
      l1_bytes = compute and 0 or 4e6 * ki, l2_bytes = compute and 0 or 1e6 * ki, dram_bytes = compute and 0 or 3e5 * ki }
  end
  return { rows = rows, extra = {
    sweep = { name = "kepler_sweep", preset = "gtx660ti", models = MODELS,
      parameters = { { path = "sm.max_warps", column = "warps_per_sm", values = WARPS },
        { path = "dram.bandwidth_gbs", column = "dram_gbs", values = { 96, 144 } } },
      summary = { baseline = { warps_per_sm = 64, dram_gbs = 144 } } },
    roofline = { point = { warps_per_sm = 64, dram_gbs = 144 }, kernels = profiles,
      machine = require("gpush.roofline").hierarchy(assert(require("gpush.config").load("gtx660ti"))) } } }
end

-- Wu et al.'s figures (gpush.ml.report) on a small evaluation's results:
-- a 4 x 3 x 3 grid, 6 bases in the K sweep; returns the SVG texts.
local function ml_figures()
  local report = require "gpush.ml.report"
  local grid = { cus = { 4, 8, 16, 32 }, core_mhz = { 300, 650, 1000 }, mem_mhz = { 475, 925, 1375 } }
  local bins = { "0-5%", "5-10%", "10-20%", "20-40%", ">40%" }
  local function errors(seed)
    return { mean = 0.05 + 0.01 * (seed % 7), train_mean = 0.03 + 0.002 * seed, oracle_mean = 0.02 / (1 + seed),
      nearest_mean = 0.04 + 0.001 * seed, k1_mean = 0.15 + 0.001 * seed, train_oracle_mean = 0.025 / (1 + seed),
      histogram = { 40 + seed, 20, 10, 5, seed % 3 } }
  end
  local main = { bases = {}, quantities = { "time", "power" }, train = { 1, 2, 3 }, valid = { 4, 5 }, split_seed = 1,
    k = 12, split = "family",
    folds = 1, families = { train = 2, valid = 1 }, classifier = "neighbours",
    mean = { time = 0.068, power = 0.029 }, baseline_k1 = { time = 0.19, power = 0.11 },
    oracle = { time = 0.06, power = 0.03 } }
  local n = 0
  for _, c in ipairs(grid.cus) do
    for _, e in ipairs(grid.core_mhz) do
      for _, m in ipairs(grid.mem_mhz) do
        n = n + 1
        main.bases[n] = { config = { cus = c, core_mhz = e, mem_mhz = m }, time = errors(n), power = errors(n + 3) }
      end
    end
  end
  local ks = { 2, 6, 12, 18 }
  local sweep = { ks = ks, bases = {}, runs = {} }
  for i = 1, 6 do
    sweep.bases[i] = main.bases[i * 5].config
  end
  for ki in ipairs(ks) do
    local run = { bases = {}, mean = { time = 0.1 / ki, power = 0.05 / ki } }
    for bi = 1, 6 do
      run.bases[bi] = { time = errors(bi + ki), power = errors(bi * ki) }
    end
    sweep.runs[ki] = run
  end
  local ds = { quantities = { "time", "power" }, kernels = { "a", "b", "c", "d", "e" }, families = { "a", "b", "c" },
    features = { "VALUInsts", "MemUnitBusy" }, dropped_features = {}, grid = grid, source = "corpus.csv",
    simulated = "gpush's simulator", config_count = function() return n end }
  local dir = helper.temp_dir()
  local written = report.write(dir, ds, main, sweep, { bins = bins })
  local out = {}
  for _, path in ipairs(written) do
    if path:match("%.svg$") then
      out[#out + 1] = { path:match("[^/]+$"), helper.read_file(path) }
    end
  end
  os.execute("rm -rf " .. helper.shell_quote(dir))
  return out
end

-- Every figure whose text boxes the spec checks: { name, svg text }.
local function crowded_figures()
  local figures = {}
  for _, p in ipairs(plots) do
    figures[#figures + 1] = { p[1], p[3]() }
  end
  -- the main job's sweep report and roofline, from rows shaped like its own
  local res = main_job_results()
  local dir = helper.temp_dir()
  local paths = assert(require("gpush.report.sweep").svg(res, dir))
  for _, path in ipairs(assert(require("gpush.report.sweep").roofline(res, dir))) do
    paths[#paths + 1] = path
  end
  for _, path in ipairs(paths) do
    figures[#figures + 1] = { path:match("[^/]+$"), helper.read_file(path) }
  end
  -- and the note in the roofline's place for results without kernel profiles
  res.extra.roofline = nil
  local note = assert(require("gpush.report.sweep").roofline(res, dir))[1]
  figures[#figures + 1] = { "roofline note", helper.read_file(note) }
  os.execute("rm -rf " .. helper.shell_quote(dir))
  -- 80 series in one plot, 16 groups of bars with long names, a tornado of
  -- near-zero changes with long labels, boxes with many labels
  local series, groups = {}, {}
  for _, kernel in ipairs(KERNELS) do
    for mi, model in ipairs(MODELS) do
      series[#series + 1] = { label = kernel .. " " .. model, group = kernel, style = model,
        y = { 1e4 * mi, 8e3 * mi, 6e3 * mi, 5e3 * mi, 4e3 * mi, 4e3 * mi } }
    end
    local bars = {}
    for wi, w in ipairs(WARPS) do
      bars[wi] = { label = tostring(w), values = { BASE = 0.5, DEP = 1 + wi, DRAM = 100 / wi } }
    end
    groups[#groups + 1] = { label = kernel, bars = bars }
  end
  figures[#figures + 1] = { "80 series", svg.lines({ x = WARPS, series = series },
    { title = "Cycles of every kernel and model", x_label = "warps_per_sm (sm.max_warps)", y_label = "cycles",
      log_y = true, x_ticks = "data" }) }
  figures[#figures + 1] = { "one panel, a long y label, markers", svg.stacked_bars({ groups = { { label = "stream_triad",
    bars = { { label = "8", values = { BASE = 1, DRAM = 20, QUEUE = 9 }, marker = 30 },
      { label = "16", values = { BASE = 1, DRAM = 10, QUEUE = 19 }, marker = 30 } } } } },
    { title = "CPI stacks of GPUMech (GTO) at 144 GB/s; simulator as markers", x_label = "warps per SM",
      y_label = "CPI (cycles per warp instruction), each kernel on its own scale", marker_label = "simulator",
      panels = true }) }
  figures[#figures + 1] = { "16 groups of bars", svg.stacked_bars({ groups = groups },
    { title = "CPI stacks in one plot", x_label = "warps per SM, by kernel", y_label = "CPI" }) }
  figures[#figures + 1] = { "tornado", svg.tornado({ rows = {
    { label = "dram.bandwidth_gbs (96 / 192)", low = 0.52, high = -0.21 },
    { label = "launch.kernel_cycles (2500 / 10000)", low = -0.0004, high = 0.0003 },
    { label = "l2.latency (150 / 250)", low = -0.02, high = 0.0 } } }, { title = "Sensitivity of time_us" }) }
  local boxes = {}
  for i = 1, 24 do
    boxes[i] = { label = tostring(100 + 25 * i), mean = i, lo = i - 1, hi = i + 1, min = 0, max = i + 3 }
  end
  figures[#figures + 1] = { "24 boxes", svg.boxes({ boxes = boxes }, { title = "Boxes", x_label = "engine MHz",
    y_label = "error (%)" }) }
  figures[#figures + 1] = { "hierarchical roofline, one panel", svg.roofline({
    roofs = { { label = "L1", gbs = 3279 }, { label = "L2", gbs = 351 }, { label = "DRAM", gbs = 144 } },
    ceilings = { { label = "FP32", gflops = 2459 }, { label = "FP64", gflops = 102 } },
    points = { { label = "triad L1", group = "triad", style = "L1", link = "triad", intensity = 0.1, gflops = 20 },
      { label = "triad DRAM", group = "triad", style = "DRAM", link = "triad", intensity = 0.16, gflops = 20 } } },
    { title = "Hierarchical roofline" }) }
  for _, f in ipairs(ml_figures()) do
    figures[#figures + 1] = f
  end
  return figures
end

describe("SVG plots rendered by headless Chromium", function()
  if not chromium then
    pending("chromium not installed (GPUSH_RENDER_CHECKS=1 bash tools/setup.sh, as CI does, or apt-get install -y "
      .. "chromium): SVG render and text-box checks skipped")
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

  it("finds text off the canvas and overlapping labels (the check can fail)", function()
    local bad = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" font-family="sans-serif" '
      .. 'font-size="12"><text x="10" y="20">overlapping</text><text x="14" y="22">labels</text>'
      .. '<text x="150" y="60">off the canvas</text><text x="110" y="20" transform="rotate(-90 110 20)">rotated '
      .. 'out of the top</text><text x="60" y="90"> </text></svg>'
    local problems = text_problems(text_boxes({ bad })[1])
    assert.equal(3, #problems, table.concat(problems, "\n"))
    assert.matches("'overlapping' %(%) and 'labels' %(%) overlap by", problems[3])
    assert.matches("'off the canvas' %(%) reaches", problems[1])
    assert.matches("'rotated out of the top' %(%) reaches", problems[2])
    -- two rotated labels side by side whose axis-aligned boxes would meet do not overlap
    local slanted = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200" font-family="sans-serif" '
      .. 'font-size="11"><text x="40" y="150" transform="rotate(-45 40 150)">a long slanted label</text>'
      .. '<text x="60" y="150" transform="rotate(-45 60 150)">a long slanted label</text></svg>'
    assert.same({}, text_problems(text_boxes({ slanted })[1]))
  end)

  it("keeps every text inside the canvas and apart from every other, in crowded figures", function()
    local figures = crowded_figures()
    local texts, keep = {}, os.getenv("GPUSH_SVG_DUMP") -- a folder to keep the figures in, to look at them
    for i, f in ipairs(figures) do
      texts[i] = f[2]
      if keep then
        assert(svg.write(("%s/%02d_%s.svg"):format(keep, i, (f[1]:gsub("%.svg$", ""):gsub("[^%w_.-]+", "_"))), f[2]))
      end
    end
    local measured = text_boxes(texts)
    local problems = {}
    for i, m in ipairs(measured) do
      assert.is_true(#m.boxes > 3, figures[i][1] .. ": no text measured")
      for _, p in ipairs(text_problems(m)) do
        problems[#problems + 1] = figures[i][1] .. ": " .. p
      end
    end
    assert.same({}, problems)
  end)
end)
