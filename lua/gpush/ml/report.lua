-- gpush.ml.report: Wu et al.'s evaluation figures (HPCA 2015, Fig. 10-17)
-- from gpush.ml.evaluate's results, as SVG plots, Markdown tables and a
-- statement of which of the paper's qualitative findings hold.
--
--   local files = report.write(dir, ds, main, sweep)   -- main: evaluate.run, sweep: evaluate.k_sweep
local csv = require "gpush.csv"
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

-- Fig. 15: error against K with the classifiers and with the oracle (each
-- training kernel given its own k-means clusters) on the training set, as
-- the paper draws it, and on the validation set the classifiers against
-- each kernel's nearest centroids (the clustering error of unseen
-- kernels), averaged over bases.
function M.oracle_lines(sweep, q)
  local keys = { "train_mean", "oracle_mean", "mean", "nearest_mean" }
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
    { label = "training: neural network", y = y[1], group = "network", style = "training" },
    { label = "training: oracle", y = y[2], group = "oracle", style = "training" },
    { label = "validation: neural network", y = y[3], group = "network", style = "validation" },
    { label = "validation: nearest centroid", y = y[4], group = "oracle", style = "validation" } } }
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

-- The paper's qualitative findings (wu-spec.md section 6), checked on this
-- data: each {finding, holds (bool), evidence}.
function M.findings(ds, main, sweep)
  local out = {}
  local function at_k(k, q)
    for ki, kk in ipairs(sweep.ks) do
      if kk == k then
        return sweep.runs[ki].mean[q]
      end
    end
  end
  local first, last = sweep.ks[1], sweep.ks[#sweep.ks]
  local e_first, e12, e_last = at_k(first, "time"), at_k(12, "time") or main.mean.time, at_k(last, "time")
  local listed = {}
  for ki, k in ipairs(sweep.ks) do
    listed[ki] = ("K=%d %s %%"):format(k, pct(sweep.runs[ki].mean.time))
  end
  -- flat: the largest K within a quarter (and half a point) of K = 12
  out[#out + 1] = { finding = ("performance error falls from K = %d to about 8-12, then stays flat"):format(first),
    holds = e12 < e_first and math.abs(e_last - e12) <= 0.25 * e12 + 0.005, evidence = table.concat(listed, ", ") }
  local oracle = M.oracle_lines(sweep, "time")
  -- the training oracle must also fall monotonically (wu-spec.md section 6,
  -- Fig. 15); the nearest-centroid line of the validation set need not
  local function gap_finding(what, nn_y, or_y, monotone_oracle)
    local monotone = true
    for i = 2, monotone_oracle and #or_y or 0 do
      monotone = monotone and or_y[i] <= or_y[i - 1] + 1e-9
    end
    -- the gap must grow by at least 0.1 percentage point to count
    return { finding = what, holds = monotone and (nn_y[#nn_y] - or_y[#or_y]) > (nn_y[1] - or_y[1]) + 0.1,
      evidence = ("oracle %.1f %% -> %.1f %%, network %.1f %% -> %.1f %% (K=%d -> %d)"):format(or_y[1], or_y[#or_y],
        nn_y[1], nn_y[#nn_y], first, last) }
  end
  out[#out + 1] = gap_finding("on the training set the oracle's error decreases with K while the network's "
    .. "flattens: the gap (classification error) grows", oracle.series[1].y, oracle.series[2].y, true)
  out[#out + 1] = gap_finding("on the validation set, against each kernel's nearest centroids, the gap grows "
    .. "with K", oracle.series[3].y, oracle.series[4].y, false)
  -- memory-bound bases (slowest memory, most CUs, fastest engine) against the rest
  local g = ds.grid
  local errors = by_config(main, "time")
  local hard = errors[config_key { cus = g.cus[#g.cus], core_mhz = g.core_mhz[#g.core_mhz], mem_mhz = g.mem_mhz[1] }]
  local rank, total = 1, 0
  for _, v in pairs(errors) do
    total = total + 1
    if v > hard then
      rank = rank + 1
    end
  end
  out[#out + 1] = { finding = "memory-bound bases (most CUs, fastest engine, slowest memory) are the hardest",
    holds = hard and hard > main.mean.time,
    evidence = ("base %s: %s %% against a mean of %s %% (rank %d of %d bases)"):format(config_key {
      cus = g.cus[#g.cus], core_mhz = g.core_mhz[#g.core_mhz], mem_mhz = g.mem_mhz[1] }, pct(hard or 0),
      pct(main.mean.time), rank, total) }
  if main.mean.power then
    local p2, p6 = at_k(first, "power"), at_k(6, "power") or at_k(sweep.ks[math.min(3, #sweep.ks)], "power")
    out[#out + 1] = { finding = "power needs fewer clusters and errs less than performance",
      holds = main.mean.power < main.mean.time and p6 <= p2,
      evidence = ("power %s %% vs performance %s %% at K = %d; power K=%d %s %%, K=6 %s %%"):format(
        pct(main.mean.power), pct(main.mean.time), main.k, first, pct(p2), pct(p6)) }
  end
  return out
end

local function write(path, text, written)
  assert(require("gpush.staging").write(path, text))
  written[#written + 1] = path
end

-- Writes every figure and table into dir; returns the list of files.
function M.write(dir, ds, main, sweep, opts)
  opts = opts or {}
  local written, md = {}, {}
  local sim = ds.simulated and (" (SIMULATED: %s)"):format(ds.simulated) or ""
  md[#md + 1] = "# Scaling surfaces (Wu et al., HPCA 2015) on " .. ds.source
  md[#md + 1] = ""
  md[#md + 1] = ("Data: %d kernels%s; grid %d CU counts x %d engine clocks x %d memory clocks = %d configurations."):format(
    #ds.kernels, sim, #ds.grid.cus, #ds.grid.core_mhz, #ds.grid.mem_mhz, ds:config_count())
  md[#md + 1] = ("Split: %d training, %d validation kernels (seed %d). One model per base configuration, K = %d "
    .. "clusters per set; every other configuration is a target. Error = mean |predicted - measured| / measured."):format(
    #main.train, #main.valid, main.split_seed, main.k)
  md[#md + 1] = ""
  md[#md + 1] = ("**Validation mean error at K = %d over all %d bases: performance %s %%%s.**"):format(main.k,
    #main.bases, pct(main.mean.time), main.mean.power and (", power " .. pct(main.mean.power) .. " %") or "")
  md[#md + 1] = ""
  for _, q in ipairs(ds.quantities) do
    local label = QUANTITY_LABEL[q] or q
    for _, which in ipairs { { ds.grid.core_mhz[#ds.grid.core_mhz], "10" }, { ds.grid.core_mhz[1], "11" } } do
      local data = M.heat_grid(ds, main, q, which[1])
      local title = ("Fig. %s: %s validation error (%%) by base, engine %s MHz, K = %d"):format(which[2], label,
        csv.number(which[1]), main.k)
      write(("%s/fig%s_%s_heatmap.svg"):format(dir, which[2], q), svg.heatmap(data, { title = title,
        x_label = "base CU count", y_label = "base memory clock (MHz)", value_label = "mean error (%)",
        format = "%.1f" }), written)
      for _, line in ipairs(heat_markdown(data, title)) do
        md[#md + 1] = line
      end
    end
    write(("%s/fig12_%s_engine_boxes.svg"):format(dir, q), svg.boxes(M.engine_boxes(ds, main, q), {
      title = ("Fig. 12: %s error by base engine clock (mean, +/- 1 SD, min-max)"):format(label),
      x_label = "base engine clock (MHz)", y_label = "validation mean error (%)" }), written)
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
      title = "Fig. 15: neural network vs oracle (training) and nearest centroid (validation)",
      x_label = "clusters per set (K)",
      y_label = "mean error (%): training (solid) and validation (dashed)", x_ticks = "data" }), written)
    md[#md + 1] = "### Error against K (Fig. 13, 15, 16)"
    md[#md + 1] = ""
    local header, rows = { "K" }, {}
    for _, q in ipairs(ds.quantities) do
      header[#header + 1] = (QUANTITY_LABEL[q] or q) .. " validation %"
    end
    header[#header + 1] = "training % (network)"
    header[#header + 1] = "training % (oracle)"
    header[#header + 1] = "validation % (nearest centroid)"
    local oracle = M.oracle_lines(sweep, "time")
    for ki, k in ipairs(sweep.ks) do
      local row = { tostring(k) }
      for _, q in ipairs(ds.quantities) do
        row[#row + 1] = pct(sweep.runs[ki].mean[q])
      end
      row[#row + 1] = ("%.1f"):format(oracle.series[1].y[ki])
      row[#row + 1] = ("%.1f"):format(oracle.series[2].y[ki])
      row[#row + 1] = ("%.1f"):format(oracle.series[4].y[ki])
      rows[ki] = row
    end
    for _, l in ipairs(markdown.table(header, rows)) do
      md[#md + 1] = l
    end
    md[#md + 1] = ""
    md[#md + 1] = "Bases of the K sweep: " .. table.concat((function()
      local t = {}
      for i, b in ipairs(sweep.bases) do
        t[i] = config_key(b)
      end
      return t
    end)(), ", ") .. " (CUs/engine MHz/memory MHz)."
    md[#md + 1] = ""
    md[#md + 1] = "### The paper's qualitative findings on this data"
    md[#md + 1] = ""
    for _, f in ipairs(M.findings(ds, main, sweep)) do
      md[#md + 1] = ("- %s: **%s** (%s)"):format(f.finding, f.holds and "holds" or "does not hold", f.evidence)
    end
    md[#md + 1] = ""
  end
  -- the per-base table and everything as JSON
  local lines = { csv.line { "cus", "core_mhz", "mem_mhz", "time_error", "power_error" } }
  for _, b in ipairs(main.bases) do
    lines[#lines + 1] = csv.line({ b.config.cus, b.config.core_mhz, b.config.mem_mhz, b.time.mean,
      b.power and b.power.mean }, 5)
  end
  write(dir .. "/ml_scaling_bases.csv", table.concat(lines, "\n") .. "\n", written)
  write(dir .. "/ml_scaling.json", json.encode({ data = ds.source, simulated = ds.simulated or json.null,
    k = main.k, split_seed = main.split_seed, mean_abs_error = main.mean.time,
    power_mean_abs_error = main.mean.power or json.null, main = main, k_sweep = sweep or json.null }, true) .. "\n",
    written)
  write(dir .. "/ml_scaling.md", table.concat(md, "\n") .. "\n", written)
  return written, md
end

return M
