-- gpush.ml.report: Wu et al.'s evaluation figures (HPCA 2015, Fig. 10-17)
-- from gpush.ml.evaluate's results, as SVG plots and Markdown tables, with
-- what the method adds over one cluster per set and what a perfect
-- classifier would reach, how it generalises to unseen families, and the
-- paper's qualitative findings decided by gpush.ml.findings.
--
--   local files, md = report.write(dir, ds, main, sweep, { generalisation = runs })
--   -- main: evaluate.run; sweep: evaluate.k_sweep; runs: report.generalisation's input
local csv = require "gpush.csv"
local findings = require "gpush.ml.findings"
local files = require "gpush.ml.files"
local json = require "gpush.json"
local markdown = require "gpush.report.markdown"
local svg = require "gpush.report.svg"

local M = {}

local QUANTITY_LABEL = { time = "performance", power = "power" }

local function pct(v)
  return ("%.1f"):format(100 * v)
end

local function config_key(c)
  return ("%s/%s/%s"):format(csv.number(c.cus), csv.number(c.core_mhz), csv.number(c.mem_mhz))
end

-- Per-base mean error of quantity q by configuration key.
local function by_config(main, q)
  local t = {}
  for _, b in ipairs(main.bases) do
    t[config_key(b.config)] = b[q].mean
  end
  return t
end

-- Fig. 10/11: the error of every base with engine clock `mhz`, as rows of
-- memory clocks (slowest first) and columns of CU counts.
function M.heat_grid(ds, main, q, mhz)
  local errors = by_config(main, q)
  local data = { x = {}, y = {}, values = {} }
  for i, c in ipairs(ds.grid.cus) do
    data.x[i] = csv.number(c)
  end
  for j, m in ipairs(ds.grid.mem_mhz) do
    data.y[j] = csv.number(m)
    data.values[j] = {}
    for i, c in ipairs(ds.grid.cus) do
      local v = errors[config_key { cus = c, core_mhz = mhz, mem_mhz = m }]
      data.values[j][i] = v and 100 * v or false
    end
  end
  return data
end

local function heat_markdown(data, title)
  local header = { "mem MHz \\ CUs" }
  for _, x in ipairs(data.x) do
    header[#header + 1] = x
  end
  local rows = {}
  for j = 1, #data.y do
    local row = { data.y[j] }
    for i = 1, #data.x do
      row[#row + 1] = data.values[j][i] and ("%.1f"):format(data.values[j][i]) or "-"
    end
    rows[j] = row
  end
  local lines = { "### " .. title, "" }
  for _, l in ipairs(markdown.table(header, rows)) do
    lines[#lines + 1] = l
  end
  lines[#lines + 1] = ""
  return lines
end

-- Fig. 12: per base engine clock, the distribution of its bases' errors:
-- mean, mean -/+ one standard deviation, min, max.
function M.engine_boxes(ds, main, q)
  local boxes = {}
  for i, mhz in ipairs(ds.grid.core_mhz) do
    local values = {}
    for _, b in ipairs(main.bases) do
      if b.config.core_mhz == mhz then
        values[#values + 1] = 100 * b[q].mean
      end
    end
    local sum, lo, hi = 0, math.huge, -math.huge
    for _, v in ipairs(values) do
      sum, lo, hi = sum + v, math.min(lo, v), math.max(hi, v)
    end
    local mean = sum / #values
    local var = 0
    for _, v in ipairs(values) do
      var = var + (v - mean) ^ 2
    end
    local sd = math.sqrt(var / #values)
    boxes[i] = { label = csv.number(mhz), mean = mean, lo = math.max(lo, mean - sd), hi = math.min(hi, mean + sd),
      min = lo, max = hi, count = #values }
  end
  return { boxes = boxes }
end

-- Fig. 13 and 16: validation error against K, one series per base and
-- their average.
function M.k_lines(sweep, q)
  local series = {}
  for bi, base in ipairs(sweep.bases) do
    local y = {}
    for ki, run in ipairs(sweep.runs) do
      y[ki] = 100 * run.bases[bi][q].mean
    end
    series[#series + 1] = { label = "base " .. config_key(base), y = y }
  end
  local avg = {}
  for ki, run in ipairs(sweep.runs) do
    avg[ki] = 100 * run.mean[q]
  end
  series[#series + 1] = { label = "average", y = avg, style = "average" }
  return { x = sweep.ks, series = series }
end

-- Fig. 15: error against K with the classifier and with the k-means
-- oracle (each training kernel given its own clusters) on the training set,
-- as the paper draws it, and on the validation set the classifier against
-- the oracle (each kernel's nearest centroids: the clustering error of
-- unseen kernels), averaged over bases.
function M.oracle_lines(sweep, q)
  local keys = { "train_mean", "train_oracle_mean", "mean", "oracle_mean" }
  local y = { {}, {}, {}, {} }
  for ki, run in ipairs(sweep.runs) do
    for s, key in ipairs(keys) do
      local sum = 0
      for _, r in ipairs(run.bases) do
        sum = sum + r[q][key]
      end
      y[s][ki] = 100 * sum / #run.bases
    end
  end
  return { x = sweep.ks, series = {
    { label = "training: classifier", y = y[1], group = "network", style = "training" },
    { label = "training: k-means oracle", y = y[2], group = "oracle", style = "training" },
    { label = "validation: classifier", y = y[3], group = "network", style = "validation" },
    { label = "validation: oracle (nearest centroid)", y = y[4], group = "oracle", style = "validation" } } }
end

-- Fig. 14 and 17: counts of validation (kernel, target) pairs per error bin
-- for a few K, summed over the sweep's bases.
function M.histogram_bars(sweep, q, ks, bins)
  local groups = {}
  for b, bin in ipairs(bins) do
    local bars = {}
    for _, k in ipairs(ks) do
      for ki, kk in ipairs(sweep.ks) do
        if kk == k then
          local count = 0
          for _, r in ipairs(sweep.runs[ki].bases) do
            count = count + r[q].histogram[b]
          end
          bars[#bars + 1] = { label = "K=" .. k, values = { ["K = " .. k] = count } }
        end
      end
    end
    groups[b] = { label = bin, bars = bars }
  end
  -- one colour per K, named in the legend (not only under the bars)
  local categories, colors = {}, {}
  for i, k in ipairs(ks) do
    categories[i] = "K = " .. k
    colors[categories[i]] = svg.palette[(i - 1) % #svg.palette + 1]
  end
  return { categories = categories, colors = colors, groups = groups, legend = "given" }
end

local function write(path, text, written)
  assert(files.write(path, text))
  written[#written + 1] = path
end

local function append(md, lines)
  for _, l in ipairs(lines) do
    md[#md + 1] = l
  end
end

-- Wu et al.'s Fig. 10 (base engine 1000 MHz) and Fig. 11 (300 MHz), K = 12,
-- validation error in % (L256-L302): rows by memory clock, columns CUs 4-32.
M.PAPER = {
  [1000] = { [475] = { 20.4, 18.2, 20.5, 20.7, 23.5, 25.9, 26.5, 31.6 },
    [625] = { 20.3, 15.5, 14.4, 13.5, 16.7, 21.1, 20.2, 21.2 },
    [775] = { 24.7, 15.6, 11.9, 13.1, 13.3, 17.0, 17.3, 19.4 },
    [925] = { 14.5, 13.7, 11.3, 13.5, 14.2, 12.9, 13.4, 17.2 },
    [1075] = { 13.5, 13.7, 13.0, 12.6, 13.5, 13.6, 13.2, 18.3 },
    [1225] = { 15.8, 16.3, 12.2, 10.6, 9.0, 13.5, 11.8, 14.2 },
    [1375] = { 15.5, 11.1, 12.8, 10.8, 11.1, 11.6, 12.7, 11.5 } },
  [300] = { [475] = { 21.7, 16.3, 10.6, 11.4, 12.1, 11.4, 13.7, 15.1 },
    [625] = { 22.3, 22.7, 12.0, 10.7, 14.5, 10.2, 13.4, 15.1 },
    [775] = { 15.9, 20.9, 15.8, 13.5, 12.0, 15.8, 16.7, 14.3 },
    [925] = { 18.2, 13.5, 14.7, 12.7, 13.0, 14.7, 16.8, 18.6 },
    [1075] = { 17.9, 16.4, 12.7, 11.8, 13.9, 15.8, 17.2, 13.7 },
    [1225] = { 15.8, 20.1, 14.5, 11.7, 13.7, 16.9, 17.6, 19.4 },
    [1375] = { 26.9, 12.3, 14.8, 12.1, 12.0, 14.9, 16.7, 18.3 } },
}
M.PAPER_CUS = { 4, 8, 12, 16, 20, 24, 28, 32 }

-- Spearman's rank correlation of two equal-length lists (average ranks for
-- ties).
local function spearman(a, b)
  local function ranks(v)
    local order = {}
    for i = 1, #v do
      order[i] = i
    end
    table.sort(order, function(x, y) return v[x] < v[y] or (v[x] == v[y] and x < y) end)
    local r, i = {}, 1
    while i <= #order do
      local j = i
      while j < #order and v[order[j + 1]] == v[order[i]] do
        j = j + 1
      end
      for t = i, j do
        r[order[t]] = (i + j) / 2
      end
      i = j + 1
    end
    return r
  end
  local ra, rb, n = ranks(a), ranks(b), #a
  local ma, mb, sab, saa, sbb = (n + 1) / 2, (n + 1) / 2, 0, 0, 0
  for i = 1, n do
    sab, saa, sbb = sab + (ra[i] - ma) * (rb[i] - mb), saa + (ra[i] - ma) ^ 2, sbb + (rb[i] - mb) ^ 2
  end
  return (saa > 0 and sbb > 0) and sab / math.sqrt(saa * sbb) or 0
end

-- The cells of Fig. 10/11 both grids have: "paper / gpush" per cell, the
-- two means and the rank correlation; nil when none are shared.
function M.paper_comparison(ds, main, mhz)
  local paper = M.PAPER[mhz]
  local errors = by_config(main, "time")
  if not paper then
    return nil
  end
  local header, rows, a, b = { "memory MHz \\ CUs" }, {}, {}, {}
  for _, c in ipairs(M.PAPER_CUS) do
    header[#header + 1] = tostring(c)
  end
  for _, m in ipairs(ds.grid.mem_mhz) do
    if paper[m] then
      local row = { csv.number(m) }
      for i, c in ipairs(M.PAPER_CUS) do
        local v = errors[config_key { cus = c, core_mhz = mhz, mem_mhz = m }]
        row[#row + 1] = v and ("%.1f / %.1f"):format(paper[m][i], 100 * v) or "-"
        if v then
          a[#a + 1], b[#b + 1] = paper[m][i], 100 * v
        end
      end
      rows[#rows + 1] = row
    end
  end
  if #a == 0 then
    return nil
  end
  local function mean(v)
    local t = 0
    for _, x in ipairs(v) do
      t = t + x
    end
    return t / #v
  end
  return { header = header, rows = rows, cells = #a, paper_mean = mean(a), gpush_mean = mean(b),
    spearman = spearman(a, b) }
end

-- The generalisation table: per run {label, result (evaluate.run)}, the
-- performance and power errors with the classifier, K = 1 and the oracle.
function M.generalisation_table(runs)
  local header = { "protocol", "base runs", "classifier", "performance K = 12", "K = 1", "oracle", "power K = 12",
    "K = 1", "oracle" }
  local rows = {}
  for _, run in ipairs(runs) do
    local r = run.result
    rows[#rows + 1] = { run.label, r.cu_probe == "none" and "1 (paper)" or "2 (CU probe)", r.classifier,
      pct(r.mean.time) .. " %", pct(r.baseline_k1.time) .. " %",
      pct(r.oracle.time) .. " %", r.mean.power and (pct(r.mean.power) .. " %") or "-",
      r.baseline_k1.power and (pct(r.baseline_k1.power) .. " %") or "-",
      r.oracle.power and (pct(r.oracle.power) .. " %") or "-" }
  end
  return markdown.table(header, rows)
end

-- The worst `n` families of a by-family list as a Markdown table.
function M.family_table(list, n)
  local rows = {}
  for i = 1, math.min(n, #list) do
    local f = list[i]
    rows[i] = { f.family, tostring(f.kernels), pct(f.mean) .. " %", pct(f.k1_mean) .. " %", pct(f.oracle_mean) .. " %" }
  end
  return markdown.table({ "family", "kernels", "model", "K = 1", "oracle" }, rows)
end

-- How much of the mean the worst families carry: "the 6 worst of 53
-- families carry 5.1 of the 14.1 points of the mean".
function M.family_spread(list)
  local total, worst = 0, 0
  for i, f in ipairs(list) do
    total = total + f.mean
    if i <= math.max(1, #list // 10) then
      worst = worst + f.mean
    end
  end
  return ("the %d worst of %d families carry %.1f of the %.1f points of the mean over families"):format(
    math.max(1, #list // 10), #list, 100 * worst / #list, 100 * total / #list)
end

-- The validation headline of a result: "performance 8.1 % (K = 1: 19.0 %,
-- oracle 5.2 %), power ...".
local function headline(r)
  local parts = {}
  for _, q in ipairs(r.quantities) do
    parts[#parts + 1] = ("%s %s %% (K = 1: %s %%, oracle %s %%; %.2f of K = 1's error)"):format(
      QUANTITY_LABEL[q] or q, pct(r.mean[q]), pct(r.baseline_k1[q]), pct(r.oracle[q]), r.mean[q] / r.baseline_k1[q])
  end
  return table.concat(parts, "; ")
end

local function probe_text(r)
  if r.cu_probe == "none" then
    return "each kernel measured once, at the base (the paper's protocol)"
  end
  return "each kernel measured twice, at the base and at the base clocks with about a quarter of its CUs (the CU "
    .. "probe, `--cu-probe quarter`, a deviation from the paper)"
end

local function split_text(r)
  local what = r.split == "family" and "by kernel family (every variant of a base description on one side)"
    or "by kernel (the paper's split: a validation kernel's siblings are among the training kernels)"
  if r.folds > 1 then
    return ("%d-fold cross-validation %s, every kernel validated once"):format(r.folds, what)
  end
  return ("one seeded 80/20 split %s, seed %d: %d training kernels of %d families, %d validation kernels of %d "
    .. "families"):format(what, r.split_seed, #r.train, r.families.train, #r.valid, r.families.valid)
end

-- The K sweep as a Markdown table: validation error (classifier, K = 1
-- for reference, oracle), the training set's network and k-means oracle.
local function sweep_table(ds, sweep)
  local header, rows = { "K" }, {}
  for _, q in ipairs(ds.quantities) do
    header[#header + 1] = (QUANTITY_LABEL[q] or q) .. " validation %"
  end
  for _, h in ipairs { "performance validation, oracle %", "performance training, classifier %",
    "performance training, k-means oracle %" } do
    header[#header + 1] = h
  end
  local curves = {}
  for _, q in ipairs(ds.quantities) do
    curves[q] = findings.curve(sweep, q)
  end
  local oracle, train, kmeans = findings.curve(sweep, "time", "oracle_mean"),
    findings.curve(sweep, "time", "train_mean"), findings.curve(sweep, "time", "train_oracle_mean")
  for ki, k in ipairs(sweep.ks) do
    local row = { tostring(k) }
    for _, q in ipairs(ds.quantities) do
      row[#row + 1] = pct(curves[q][ki])
    end
    for _, y in ipairs { oracle, train, kmeans } do
      row[#row + 1] = pct(y[ki])
    end
    rows[ki] = row
  end
  return markdown.table(header, rows)
end

-- The histograms of K = 2, 6, 12 as a table: pairs per 10 % bin.
local function histogram_table(ds, sweep, bins)
  local header, rows = { "quantity", "K" }, {}
  for _, b in ipairs(bins) do
    header[#header + 1] = b
  end
  for _, q in ipairs(ds.quantities) do
    for _, k in ipairs { 2, 6, 12 } do
      for ki, kk in ipairs(sweep.ks) do
        if kk == k then
          local row = { QUANTITY_LABEL[q] or q, tostring(k) }
          for b = 1, #bins do
            local n = 0
            for _, r in ipairs(sweep.runs[ki].bases) do
              n = n + r[q].histogram[b]
            end
            row[#row + 1] = tostring(n)
          end
          rows[#rows + 1] = row
        end
      end
    end
  end
  return markdown.table(header, rows)
end

-- Writes every figure and table into dir; returns the list of files and
-- the Markdown lines.  opts: bins (evaluate.BINS), generalisation (a list
-- of {label, result}: evaluate.run results on the sweep's bases), title.
function M.write(dir, ds, main, sweep, opts)
  opts = opts or {}
  local written, md = {}, {}
  local sim = ds.simulated and (" (SIMULATED: %s)"):format(ds.simulated) or ""
  md[#md + 1] = opts.title or ("# Scaling surfaces (Wu et al., HPCA 2015) on " .. ds.source)
  md[#md + 1] = ""
  md[#md + 1] = ("Data: %d kernels of %d families%s; grid %d CU counts x %d engine clocks x %d memory clocks = %d "
    .. "configurations; %d counters%s."):format(#ds.kernels, #ds.families, sim, #ds.grid.cus, #ds.grid.core_mhz,
    #ds.grid.mem_mhz, ds:config_count(), #ds.features, #ds.dropped_features > 0 and ("; constant over the data and "
    .. "dropped: " .. table.concat(ds.dropped_features, ", ")) or "")
  md[#md + 1] = ("Protocol: %s. One model per base configuration, K = %d clusters per set, the %s classifier; %s; "
    .. "every other configuration is a target. Error = mean |predicted - measured| / measured; K = 1 is the mean "
    .. "scaling surface (no classifier), the oracle gives each validation kernel the centroids nearest its own scaling "
    .. "values (a perfect classifier), both measured in the same run on the same kernels."):format(split_text(main),
    main.k, main.classifier, probe_text(main))
  md[#md + 1] = ""
  md[#md + 1] = ("**Validation mean error over all %d bases: %s.**"):format(#main.bases, headline(main))
  md[#md + 1] = ""
  if opts.one_run then
    md[#md + 1] = ("The paper's protocol, one base run (`--cu-probe none`), on the same split and bases in the same "
      .. "run: %s."):format(headline(opts.one_run))
    md[#md + 1] = ""
  end
  if opts.generalisation then
    md[#md + 1] = "### Unseen families against the paper's split (Fig. 13's five bases, K = 12)"
    md[#md + 1] = ""
    append(md, M.generalisation_table(opts.generalisation))
    md[#md + 1] = ""
    local cv = opts.generalisation[1].result
    md[#md + 1] = ("Where the error is (%s, %s classifier): the families with the largest performance error, "
      .. "each over its kernels and the bases, next to one cluster per set and the oracle; %s."):format(
      opts.generalisation[1].label, cv.classifier, M.family_spread(cv.families_error.time))
    md[#md + 1] = ""
    append(md, M.family_table(cv.families_error.time, 10))
    md[#md + 1] = ""
  end
  for _, q in ipairs(ds.quantities) do
    local label = QUANTITY_LABEL[q] or q
    for _, which in ipairs { { ds.grid.core_mhz[#ds.grid.core_mhz], "10" }, { ds.grid.core_mhz[1], "11" } } do
      local data = M.heat_grid(ds, main, q, which[1])
      local title = ("Fig. %s: %s validation error (%%) by base, engine %s MHz, K = %d"):format(which[2], label,
        csv.number(which[1]), main.k)
      write(("%s/fig%s_%s_heatmap.svg"):format(dir, which[2], q), svg.heatmap(data, { title = title,
        x_label = "base CU count", y_label = "base memory clock (MHz)", value_label = "mean error (%)",
        format = "%.1f" }), written)
      append(md, heat_markdown(data, title))
      local cmp = q == "time" and M.paper_comparison(ds, main, which[1])
      if cmp then
        md[#md + 1] = ("Against the paper's Fig. %s at the %d cells both grids have (paper / gpush, %%):"):format(
          which[2], cmp.cells)
        md[#md + 1] = ""
        append(md, markdown.table(cmp.header, cmp.rows))
        md[#md + 1] = ""
        md[#md + 1] = ("Mean of these cells: paper %.1f %%, gpush %.1f %%; Spearman rank correlation %.2f."):format(
          cmp.paper_mean, cmp.gpush_mean, cmp.spearman)
        md[#md + 1] = ""
      end
    end
    local boxes = M.engine_boxes(ds, main, q)
    write(("%s/fig12_%s_engine_boxes.svg"):format(dir, q), svg.boxes(boxes, {
      title = ("Fig. 12: %s error by base engine clock (mean, +/- 1 SD, min-max)"):format(label),
      x_label = "base engine clock (MHz)", y_label = "validation mean error (%)" }), written)
    local parts = {}
    for _, b in ipairs(boxes.boxes) do
      parts[#parts + 1] = ("%s MHz %.1f %% (%.1f-%.1f)"):format(b.label, b.mean, b.min, b.max)
    end
    md[#md + 1] = ("Fig. 12, %s by base engine clock (mean, min-max over its bases): %s."):format(label,
      table.concat(parts, ", "))
    md[#md + 1] = ""
  end
  if sweep then
    for _, q in ipairs(ds.quantities) do
      local fig = q == "time" and "13" or "16"
      write(("%s/fig%s_%s_vs_k.svg"):format(dir, fig, q), svg.lines(M.k_lines(sweep, q), {
        title = ("Fig. %s: %s validation error against clusters per set"):format(fig, QUANTITY_LABEL[q] or q),
        x_label = "clusters per set (K)", y_label = "validation mean error (%)", x_ticks = "data" }), written)
      local hfig = q == "time" and "14" or "17"
      write(("%s/fig%s_%s_histogram.svg"):format(dir, hfig, q), svg.stacked_bars(M.histogram_bars(sweep, q,
        { 2, 6, 12 }, opts.bins), { title = ("Fig. %s: %s error distribution (validation pairs per bin)"):format(hfig,
        QUANTITY_LABEL[q] or q), x_label = "error bin", y_label = "kernel x target pairs" }), written)
    end
    write(dir .. "/fig15_oracle.svg", svg.lines(M.oracle_lines(sweep, "time"), {
      title = ("Fig. 15: %s classifier vs k-means oracle (training) and vs nearest centroid (validation)"):format(
        main.classifier),
      x_label = "clusters per set (K)",
      y_label = "mean error (%): training (solid) and validation (dashed)", x_ticks = "data" }), written)
    local bases = {}
    for i, b in ipairs(sweep.bases) do
      bases[i] = config_key(b)
    end
    md[#md + 1] = ("### Error against K (Fig. 13-17; bases %s, CUs/engine MHz/memory MHz)"):format(
      table.concat(bases, ", "))
    md[#md + 1] = ""
    append(md, sweep_table(ds, sweep))
    md[#md + 1] = ""
    md[#md + 1] = "Error histograms (Fig. 14, 17): validation (kernel, target) pairs per bin, summed over the bases."
    md[#md + 1] = ""
    append(md, histogram_table(ds, sweep, opts.bins))
    md[#md + 1] = ""
    md[#md + 1] = "### The paper's qualitative findings on this data"
    md[#md + 1] = ""
    for _, f in ipairs(findings.all(ds, main, sweep)) do
      md[#md + 1] = ("- %s. Test: %s. **%s** (%s)."):format(f.claim, f.test, f.holds and "Holds" or "Does not hold",
        f.evidence)
    end
    md[#md + 1] = ""
  end
  -- the per-base table and everything as JSON
  local lines = { csv.line { "cus", "core_mhz", "mem_mhz", "time_error", "time_error_k1", "time_error_oracle",
    "power_error", "power_error_k1", "power_error_oracle" } }
  for _, b in ipairs(main.bases) do
    lines[#lines + 1] = csv.line({ b.config.cus, b.config.core_mhz, b.config.mem_mhz, b.time.mean, b.time.k1_mean,
      b.time.oracle_mean, b.power and b.power.mean, b.power and b.power.k1_mean, b.power and b.power.oracle_mean }, 9)
  end
  write(dir .. "/ml_scaling_bases.csv", table.concat(lines, "\n") .. "\n", written)
  write(dir .. "/ml_scaling.json", json.encode({ data = ds.source, simulated = ds.simulated or json.null,
    k = main.k, split = main.split, split_seed = main.split_seed, classifier = main.classifier,
    cu_probe = main.cu_probe, one_run = opts.one_run and { mean_abs_error = opts.one_run.mean.time,
      power_mean_abs_error = opts.one_run.mean.power or json.null,
      baseline_k1 = { mean_abs_error = opts.one_run.baseline_k1.time },
      oracle = { mean_abs_error = opts.one_run.oracle.time } } or json.null,
    mean_abs_error = main.mean.time, power_mean_abs_error = main.mean.power or json.null,
    baseline_k1 = { mean_abs_error = main.baseline_k1.time, power_mean_abs_error = main.baseline_k1.power or json.null },
    oracle = { mean_abs_error = main.oracle.time, power_mean_abs_error = main.oracle.power or json.null },
    main = main, k_sweep = sweep or json.null, generalisation = opts.generalisation or json.null }, true) .. "\n",
    written)
  write(dir .. "/ml_scaling.md", table.concat(md, "\n") .. "\n", written)
  return written, md
end

return M
