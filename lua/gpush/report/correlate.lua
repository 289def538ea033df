-- gpush.report.correlate: the outputs of `gpush correlate` from its result
-- (gpush.correlate.run): per row the measured cycles, each model's
-- prediction and error (and, after a fit, the fitted prediction and
-- error); per model the summary; the fit and the validation.
--
--   correlate_report.csv(result, provenance)      --> CSV text
--   correlate_report.json(result, provenance)     --> JSON text
--   correlate_report.markdown(result, provenance) --> Markdown text
--   correlate_report.svg(result, "predicted")     --> log-log scatter ("fitted": after the fit)
--   correlate_report.write(result, dir, provenance) --> the paths written, or nil, message
--
-- docs/correlate.md describes every column and field.
local csv = require "gpush.csv"
local json = require "gpush.json"
local markdown = require "gpush.report.markdown"
local measured = require "gpush.correlate.measured"
local metrics = require "gpush.correlate.metrics"
local staging = require "gpush.staging"
local svg = require "gpush.report.svg"
local text = require "gpush.text"

local M = {}

-- The files write() produces (the fitted plot only after a fit).
M.FILES = { "correlate.csv", "correlate.json", "correlate.md", "correlate.svg", "correlate-fitted.svg" }

-- The input columns of the measured file(s), in header order (the
-- validation file's new ones after), without cycles (written as
-- `measured`).
local function input_columns(result)
  local cols, seen = {}, { cycles = true }
  for _, set in ipairs({ result.measured, result.validate }) do
    for _, c in ipairs(set and set.columns or {}) do
      if not seen[c] then
        seen[c] = true
        cols[#cols + 1] = c
      end
    end
  end
  return cols
end

-- The keys of prediction tables a result has: predicted, and fitted after a fit.
local function kinds(result)
  return result.fit and { "predicted", "fitted" } or { "predicted" }
end

-- The CSV's columns: set, file, line, kernel_name, the inputs, measured,
-- then per model MODEL.predicted, MODEL.error (and MODEL.fitted,
-- MODEL.fitted_error).
function M.columns(result)
  local cols = { "set", "file", "line", "kernel_name" }
  for _, c in ipairs(input_columns(result)) do
    cols[#cols + 1] = c
  end
  cols[#cols + 1] = "measured"
  for _, m in ipairs(result.models) do
    for _, kind in ipairs(kinds(result)) do
      cols[#cols + 1] = m .. "." .. kind
      cols[#cols + 1] = m .. "." .. (kind == "predicted" and "error" or "fitted_error")
    end
  end
  return cols
end

local function provenance_lines(provenance, prefix)
  local lines = {}
  for _, k in ipairs(text.sorted_keys(provenance or {})) do
    lines[#lines + 1] = ("%s%s: %s"):format(prefix, k, tostring(provenance[k]):gsub("\r?\n", " "))
  end
  return lines
end

-- The prediction columns: name -> {key of the row entry, model}.
local function output_columns(result)
  local out = {}
  for _, m in ipairs(result.models) do
    for _, kind in ipairs(kinds(result)) do
      out[m .. "." .. kind] = { kind, m }
      out[m .. "." .. (kind == "predicted" and "error" or "fitted_error")] = { kind .. "_error", m }
    end
  end
  return out
end

-- The value of CSV column c for a row entry (`outputs`: output_columns).
local function cell(entry, c, outputs)
  if c == "set" or c == "file" or c == "line" then
    return entry[c]
  elseif c == "kernel_name" then
    return entry.name
  elseif c == "measured" then
    return entry.row.cycles
  elseif outputs[c] then
    local values = entry[outputs[c][1]]
    return values and values[outputs[c][2]]
  end
  local v = entry.row.cells[c]
  return v ~= "" and v or nil
end

function M.csv(result, provenance)
  local lines = provenance_lines(provenance, "# ")
  for _, e in ipairs(result.rows) do
    for _, model in ipairs(result.models) do
      if e.failed[model] then
        lines[#lines + 1] = "# failed: " .. e.failed[model]:gsub("\r?\n", " ")
      end
    end
  end
  local cols, outputs = M.columns(result), output_columns(result)
  lines[#lines + 1] = csv.line(cols)
  for _, e in ipairs(result.rows) do
    local values = {}
    for i, c in ipairs(cols) do
      values[i] = cell(e, c, outputs)
    end
    lines[#lines + 1] = csv.line(values, #cols)
  end
  return table.concat(lines, "\n") .. "\n"
end

-- A summary as a JSON object (missing fields as null).
local function summary_object(s)
  local o = json.object()
  for _, f in ipairs(metrics.FIELDS) do
    o[f] = s[f] == nil and json.null or s[f]
  end
  return o
end

local function summaries_object(result, summaries)
  local o = json.object()
  for _, m in ipairs(result.models) do
    o[m] = summary_object(summaries[m])
  end
  return o
end

-- A row entry as a JSON object: its input cells (numbers where they read
-- as one, except the trace, kernel and label texts), set, file, line,
-- kernel_name, measured, predicted, error (and fitted, fitted_error),
-- failed.
local function row_object(result, e)
  local o = json.object()
  for c, v in pairs(e.row.cells) do
    if v ~= "" then
      o[c] = (c ~= "trace" and c ~= "kernel" and c ~= "label") and measured.decimal(v) or v
    end
  end
  o.cycles = nil
  o.set, o.file, o.line, o.kernel_name, o.measured = e.set, e.file, e.line, e.name, e.row.cycles
  for _, kind in ipairs(kinds(result)) do
    local values, errors = json.object(), json.object()
    for _, m in ipairs(result.models) do
      values[m] = e[kind] and e[kind][m] or json.null
      errors[m] = e[kind .. "_error"] and e[kind .. "_error"][m] or json.null
    end
    o[kind] = values
    o[kind == "predicted" and "error" or "fitted_error"] = errors
  end
  local failed = json.object()
  for m, msg in pairs(e.failed) do
    failed[m] = msg
  end
  o.failed = failed
  return o
end

-- The fit as a JSON object.
local function fit_object(result)
  local f = result.fit
  local params = {}
  for j, p in ipairs(f.parameters) do
    local corr = json.object()
    for k, q in ipairs(f.parameters) do
      local c = f.correlation[j] and f.correlation[j][k]
      corr[q.name] = c == nil and json.null or c
    end
    params[j] = json.object { name = p.name, unit = p.unit, start = p.start, value = p.value,
      stderr = p.stderr == nil and json.null or p.stderr, min = p.min, max = p.max, at_bound = p.at_bound,
      correlation = corr }
  end
  return json.object { parameters = params, summary = summaries_object(result, f.summary),
    method = "bounded Levenberg-Marquardt on (predicted - measured) / measured over every row and model",
    residuals = f.residual_count, dof = f.dof, iterations = f.iterations, evaluations = f.evaluations,
    converged = f.converged, reason = f.reason, cost_start = f.start_cost, cost = f.cost,
    problem = f.problem or json.null }
end

function M.json(result, provenance)
  local rows = {}
  for i, e in ipairs(result.rows) do
    rows[i] = row_object(result, e)
  end
  local t = json.object { format = "gpush.correlate/1", config = result.config_name, models = result.models,
    measured = result.measured.file, summary = summaries_object(result, result.summary), rows = rows,
    provenance = json.object(provenance or {}) }
  if result.fit then
    t.fit = fit_object(result)
  end
  if result.validation then
    local v = result.validation
    t.validation = json.object { file = v.file, rows = v.rows, summary_before = summaries_object(result,
      v.summary_before), summary = summaries_object(result, v.summary) }
  end
  return json.encode(t, true) .. "\n"
end

-- Markdown ----------------------------------------------------------------------------

local function pct(v)
  return v and ("%+.1f %%"):format(100 * v) or "-"
end

local function abs_pct(v)
  return v and ("%.1f %%"):format(100 * v) or "-"
end

local function summary_table(result, summaries)
  local rows = {}
  for i, m in ipairs(result.models) do
    local s = summaries[m]
    rows[i] = { m, s.n, abs_pct(s.mean_abs_error), abs_pct(s.max_abs_error), pct(s.mean_error),
      s.rmse and ("%.0f"):format(s.rmse), s.correlation and ("%.4f"):format(s.correlation) }
  end
  return markdown.table({ "model", "rows", "mean abs error", "max abs error", "mean error", "RMSE (cycles)",
    "correlation" }, rows)
end

local function before_after_table(result, before, after, first, second)
  local rows = {}
  for i, m in ipairs(result.models) do
    rows[i] = { m, abs_pct(before[m].mean_abs_error), abs_pct(after[m].mean_abs_error),
      abs_pct(before[m].max_abs_error), abs_pct(after[m].max_abs_error) }
  end
  return markdown.table({ "model", "mean abs error, " .. first, "mean abs error, " .. second,
    "max abs error, " .. first, "max abs error, " .. second }, rows)
end

local function number_text(v)
  if v == nil then
    return "-"
  end
  return ("%.6g"):format(v)
end

local function append(lines, more)
  for _, l in ipairs(more) do
    lines[#lines + 1] = l
  end
end

function M.markdown(result, provenance)
  local set = result.measured
  local lines = { ("# Correlation: %s on %s"):format(table.concat(result.models, ", "), result.config_name), "",
    ("Measured cycles: `%s` (%d rows). Every error is (predicted - measured) / measured against those"
      .. " measurements; what they are (hardware, another simulator, gpush's own simulator) is what that file"
      .. " holds. Configuration: `%s`%s, each row at its own clocks where it gives them."):format(set.file,
      #set.rows, result.config, #result.overrides > 0 and (" with -p " .. table.concat(result.overrides, " -p "))
      or ""), "", "## Summary", "" }
  append(lines, summary_table(result, result.summary))
  if result.fit then
    local f = result.fit
    lines[#lines + 1] = ""
    lines[#lines + 1] = "## Fit"
    lines[#lines + 1] = ""
    lines[#lines + 1] = ("Least squares on the relative errors of %d rows x %d models (%d residuals, %d degrees of"
      .. " freedom), each parameter within its schema range: %s after %d iterations (%d model evaluations)."
      .. " Standard errors from the Jacobian at the optimum (docs/correlate.md).%s"):format(#set.rows,
      #result.models, f.residual_count, f.dof or 0, f.reason, f.iterations, f.evaluations,
      f.problem and (" " .. f.problem .. ".") or "")
    lines[#lines + 1] = ""
    local rows = {}
    for i, p in ipairs(f.parameters) do
      local se = p.at_bound and "at a bound" or (p.stderr and ("%.3g"):format(p.stderr) or "-")
      rows[i] = { p.name, p.unit, number_text(p.start), number_text(p.value), se,
        ("%s .. %s"):format(number_text(p.min), number_text(p.max)) }
    end
    append(lines, markdown.table({ "parameter", "unit", "start", "fitted", "standard error", "range" }, rows))
    lines[#lines + 1] = ""
    append(lines, before_after_table(result, result.summary, f.summary, "start", "fitted"))
  end
  if result.validation then
    local v = result.validation
    lines[#lines + 1] = ""
    lines[#lines + 1] = "## Validation"
    lines[#lines + 1] = ""
    lines[#lines + 1] = ("`%s` (%d rows, not used in the fit), predicted with the starting and with the fitted"
      .. " values:"):format(v.file, v.rows)
    lines[#lines + 1] = ""
    append(lines, before_after_table(result, v.summary_before, v.summary, "start", "fitted"))
  end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "## Rows"
  lines[#lines + 1] = ""
  local headers = { "set", "line", "what", "measured" }
  for _, m in ipairs(result.models) do
    for _, kind in ipairs(kinds(result)) do
      headers[#headers + 1] = kind == "predicted" and m or (m .. " fitted")
      headers[#headers + 1] = "error"
    end
  end
  local rows = {}
  for i, e in ipairs(result.rows) do
    local r = { e.set, e.line, e.row.label or e.what, ("%.0f"):format(e.row.cycles) }
    for _, m in ipairs(result.models) do
      for _, kind in ipairs(kinds(result)) do
        local v = e[kind] and e[kind][m]
        r[#r + 1] = v and ("%.0f"):format(v) or "failed"
        r[#r + 1] = pct(e[kind .. "_error"] and e[kind .. "_error"][m])
      end
    end
    rows[i] = r
  end
  append(lines, markdown.table(headers, rows))
  local failures = {}
  for _, e in ipairs(result.rows) do
    for _, m in ipairs(result.models) do
      if e.failed[m] then
        failures[#failures + 1] = "- " .. e.failed[m]:gsub("|", "\\|"):gsub("\r?\n", " ")
      end
    end
  end
  if #failures > 0 then
    lines[#lines + 1] = ""
    lines[#lines + 1] = ("## Failed predictions (%d)"):format(#failures)
    lines[#lines + 1] = ""
    append(lines, failures)
  end
  lines[#lines + 1] = ""
  append(lines, markdown.stamp(provenance or {}))
  return table.concat(lines, "\n") .. "\n"
end

-- SVG ---------------------------------------------------------------------------------

-- The scatter of `kind` ("predicted" or "fitted"): a series per model for
-- the measured (fitted) rows, and per model for the held-out rows.
function M.svg(result, kind)
  local series = {}
  for _, m in ipairs(result.models) do
    for _, set_kind in ipairs({ "measured", "validate" }) do
      local points = {}
      for _, e in ipairs(result.rows) do
        local held_out = e.set == "validate"
        local v = e[kind] and e[kind][m]
        if v and held_out == (set_kind == "validate") then
          points[#points + 1] = { measured = e.row.cycles, predicted = v, label = e.row.label or e.what }
        end
      end
      if #points > 0 then
        series[#series + 1] = { label = set_kind == "validate" and (m .. " (held out)") or m, model = m,
          points = points }
      end
    end
  end
  if #series == 0 then
    return nil
  end
  local title = ("%s on %s: %s"):format(kind == "fitted" and "fitted" or "predicted", result.config_name,
    result.measured.file:match("[^/]+$"))
  return svg.correlation({ series = series, band = 0.2 }, { title = title })
end

-- Writes DIR/correlate.{csv,json,md,svg} (and correlate-fitted.svg after a
-- fit) through a staging folder (`stage`: one made earlier, or nil):
-- nothing half-written, and a previous run's files of these names that
-- this run does not write are removed.  Returns the list of paths, or nil
-- and a message.
function M.write(result, dir, provenance, stage)
  local outputs = {
    { "correlate.csv", M.csv(result, provenance) },
    { "correlate.json", M.json(result, provenance) },
    { "correlate.md", M.markdown(result, provenance) },
    { "correlate.svg", M.svg(result, "predicted") },
  }
  if result.fit then
    outputs[#outputs + 1] = { "correlate-fitted.svg", M.svg(result, "fitted") }
  end
  if not stage then
    local err
    stage, err = staging.folder(dir)
    if not stage then
      return nil, err
    end
  end
  local written, names = {}, {}
  for _, o in ipairs(outputs) do
    if o[2] then
      local ok, write_err = staging.write(stage.path .. "/" .. o[1], o[2])
      if not ok then
        stage:abort()
        return nil, write_err
      end
      names[o[1]] = true
      written[#written + 1] = dir:gsub("/+$", "") .. "/" .. o[1]
    end
  end
  local ok, commit_err = stage:commit()
  if not ok then
    return nil, commit_err
  end
  for _, name in ipairs(M.FILES) do
    if not names[name] then
      os.remove(dir .. "/" .. name)
    end
  end
  return written
end

return M
