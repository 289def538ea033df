-- gpush.report.summary: the Markdown summary of a sweep's results (what a
-- scenario prints and writes as NAME.md): the sweep's shape, the best-point
-- table when the sweep defines a `summary` (else every row), the failures,
-- and in the file the provenance stamp.  It reads the results only (rows and
-- the sweep's description in extra.sweep), never the experiment engine.
--
--   local summary = require "gpush.report.summary"
--   print(table.concat(summary.lines(res), "\n"))
--   local text = summary.file(res)
local csv = require "gpush.csv"
local markdown = require "gpush.report.markdown"
local results = require "gpush.results"
local sampling = require "gpush.sampling"

local M = {}

-- A row's point as "v1, v2, ..." in parameter order.
local function point_values(description, row)
  local parts = {}
  for i, p in ipairs(description.parameters) do
    parts[i] = csv.text(row[p.column])
  end
  return table.concat(parts, ", ")
end

-- The best-point table: for each kernel and model, the baseline point
-- (summary.baseline) and the point with the smallest summary.objective,
-- the value shown (summary.show) and the bottleneck column at both (with
-- summary.bottleneck_detail, that column's text in brackets: "LATENCY
-- (DEP)").
local function best_point_table(res, d, s)
  local objective, show, bottleneck = s.objective or "cycles", s.show or s.objective or "cycles", s.bottleneck
  local function bottleneck_of(r)
    local detail = s.bottleneck_detail and r[s.bottleneck_detail]
    local label = r[bottleneck]
    if label == nil or label == "" then
      return "-"
    end
    return (detail and detail ~= "") and ("%s (%s)"):format(label, detail) or label
  end
  local label = s.label or show
  local columns = {}
  for i, p in ipairs(d.parameters) do
    columns[i] = p.column
  end
  local headers = { "kernel", "model", "baseline " .. label }
  if bottleneck then
    headers[#headers + 1] = "baseline bottleneck"
  end
  for _, h in ipairs { ("best point (%s)"):format(table.concat(columns, ", ")), "best " .. label, "speed-up" } do
    headers[#headers + 1] = h
  end
  if bottleneck then
    headers[#headers + 1] = "best-point bottleneck"
  end
  local cells = {}
  local fmt = s.format or "%.1f"
  local function shown(r)
    return type(r[show]) == "number" and fmt:format(r[show]) or r[show]
  end
  for _, g in ipairs(res:group("workload", "kernel", "launch", "model")) do
    local base, best
    for _, r in ipairs(g.rows.rows) do
      local is_base = s.baseline ~= nil
      for column, v in pairs(s.baseline or {}) do
        is_base = is_base and r[column] == v
      end
      if is_base then
        base = r
      end
      if type(r[objective]) == "number" and (not best or r[objective] < best[objective]) then
        best = r
      end
    end
    if best then
      local row = { g.key.kernel, g.key.model, base and shown(base) or "-" }
      if bottleneck then
        row[#row + 1] = base and bottleneck_of(base) or "-"
      end
      row[#row + 1] = point_values(d, best)
      row[#row + 1] = shown(best)
      row[#row + 1] = base and ("%.2fx"):format(base[objective] / best[objective]) or "-"
      if bottleneck then
        row[#row + 1] = bottleneck_of(best)
      end
      cells[#cells + 1] = row
    end
  end
  return markdown.table(headers, cells)
end

-- Every row, without the provenance hashes.
local function full_table(res)
  local headers, cells = {}, {}
  for _, c in ipairs(res.columns) do
    if c ~= "config_hash" and c ~= "trace_hash" then
      headers[#headers + 1] = c
    end
  end
  for i, r in ipairs(res.rows) do
    local row = {}
    for j, c in ipairs(headers) do
      row[j] = r[c]
    end
    cells[i] = row
  end
  return markdown.table(headers, cells)
end

-- What each kind of sampling did, by the column its rows carry: the
-- simulator's (simulated_blocks) and GPUMech's memory replay's
-- (replayed_blocks); and the error scenarios/sampling_error.lua measured.
local SAMPLED = {
  simulation = { what = "simulated over its first waves until the cycles per block settled",
    column = "simulated_blocks", whole = "simulates every block", measured = sampling.MEASURED },
  replay = { what = "replayed through the memory model over its first waves until every count the prediction"
    .. " reads grew by the same amount a block", column = "replayed_blocks",
    whole = "replays every block", measured = sampling.MEASURED_REPLAY },
}

-- What was sampled (rows with `sampled` true: gpush.sampling), per model,
-- kernel by kernel with its count of sampled points, and the sampling
-- error measured where the whole launch was simulated (or replayed) too
-- (`sample_error`, the baseline point); nil when no row was sampled.
local function sampling_lines(res)
  local order, by_model, kinds = {}, {}, {}
  for _, r in ipairs(res.rows) do
    if r.sampled == true then
      local m = by_model[r.model]
      if not m then
        m = { kernels = {}, list = {}, points = 0, kind = r.replayed_blocks ~= nil and "replay" or "simulation" }
        by_model[r.model], order[#order + 1] = m, r.model
        kinds[m.kind] = true
      end
      local key = r.kernel .. (r.launch and ("#" .. tostring(r.launch)) or "")
      local k = m.kernels[key]
      if not k then
        k = { name = r.kernel, count = 0 }
        m.kernels[key], m.list[#m.list + 1] = k, k
      end
      k.count = k.count + 1
      if type(r.sample_error) == "number" then
        k.error = r.sample_error
      end
    end
  end
  if #order == 0 then
    return nil
  end
  local points = #res.extra.sweep.points
  local lines = { "" }
  for _, model in ipairs(order) do
    local parts, checks = {}, {}
    for _, k in ipairs(by_model[model].list) do
      parts[#parts + 1] = ("%s (%d of %d points)"):format(k.name, k.count, points)
      if k.error then
        checks[#checks + 1] = ("%s %+.3f %%"):format(k.name, 100 * k.error)
      end
    end
    local kind = SAMPLED[by_model[model].kind]
    lines[#lines + 1] = ("Sampled: %s on %s. Each launch of %d or more waves was %s and extrapolated (column"
      .. " %s; docs/experiments.md, \"Sampling\"); --no-sample %s."):format(model, table.concat(parts, ", "),
      sampling.MIN_WAVES, kind.what, kind.column, kind.whole)
    if #checks > 0 then
      lines[#lines + 1] = ("Sampling error at the baseline point, where the whole launch was %s too: %s."):format(
        by_model[model].kind == "replay" and "replayed" or "simulated", table.concat(checks, ", "))
    end
  end
  for _, name in ipairs { "simulation", "replay" } do
    if kinds[name] then
      lines[#lines + 1] = ("Sampling error%s measured by scenarios/sampling_error.lua on the regime suite (the"
        .. " main job's 54 points) and the shared traces: %s."):format(
        name == "replay" and " of GPUMech's replay" or "", SAMPLED[name].measured)
    end
  end
  return lines
end

-- How much of the sweep a result holds: "N of M tasks ran" (M: the whole
-- sweep, or the shard's slice).
function M.tasks_ran(res)
  local shard = res.extra.shard
  local total = shard and (shard.last_task - shard.first_task + 1) or res.extra.total_tasks or 0
  return ("%d of %d tasks ran"):format(#res.rows + #res.failures, total)
end

-- The Markdown summary: the sweep's shape (and, for an incomplete run, how
-- many tasks ran), then the best-point table when the sweep has a `summary`
-- (else every row), then the failures.
function M.lines(res)
  local d = res.extra.sweep
  local lines = { "# " .. d.title, "" } -- the engine and sweep_merge set it (the name when untitled)
  local names = {}
  for i, p in ipairs(d.parameters) do
    local values = {}
    for j, v in ipairs(p.values or {}) do
      values[j] = csv.text(v)
    end
    names[i] = p.column .. (#values > 0 and (" {" .. table.concat(values, ",") .. "}") or "")
  end
  local kernels = res:group("workload", "kernel", "launch")
  lines[#lines + 1] = ("%d kernels x %d points (%s) x %d models = %d results, %d failed%s."):format(#kernels,
    #d.points, table.concat(names, "; "), #d.models, #res.rows, #res.failures,
    res.incomplete and ("; INCOMPLETE: %s (%s)"):format(M.tasks_ran(res), res.incomplete) or "")
  for _, note in ipairs(d.summary and d.summary.notes or {}) do
    lines[#lines + 1] = note
  end
  for _, l in ipairs(sampling_lines(res) or {}) do
    lines[#lines + 1] = l
  end
  lines[#lines + 1] = ""
  if res.incomplete then
    lines[#lines + 1] = "**Incomplete:** " .. res.incomplete .. "; the table covers the finished points only."
    lines[#lines + 1] = ""
  end
  local table_lines = d.summary and best_point_table(res, d, d.summary) or full_table(res)
  for _, l in ipairs(table_lines) do
    lines[#lines + 1] = l
  end
  results.append_failures(lines, res.failures)
  return lines
end

-- The full Markdown file: the summary and the provenance stamp.
function M.file(res)
  local lines = M.lines(res)
  lines[#lines + 1] = ""
  for _, l in ipairs(markdown.stamp(res.provenance)) do
    lines[#lines + 1] = l
  end
  return table.concat(lines, "\n") .. "\n"
end

return M
