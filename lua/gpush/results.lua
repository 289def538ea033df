-- gpush.results: a table of result rows with its provenance, as sweeps
-- produce and reports read it.
--
--   local t = results.new { columns = { "kernel", "cycles" }, rows = { ... },
--                           provenance = { gpush = "0.1.0", ... } }
--   t:filter { kernel = "stream_triad" } :sort("-cycles")
--   for _, g in ipairs(t:group("kernel", "model")) do print(g.key.kernel, #g.rows.rows) end
--   t:pivot("kernel", "model", "cycles")       -- one row per kernel, a column per model
--   t:write_csv(path); t:write_json(path); t:write_markdown(path, { title = "..." })
--   local back = assert(results.read_csv(path))  -- or read_json
--
-- Rows are tables keyed by column name; a missing value is nil (an empty CSV
-- field, an absent JSON key, "-" in Markdown).  Every file carries the
-- provenance table: '# key: value' lines in CSV (failures as
-- '# failed: message'), a "provenance" object in
-- JSON, a closing "Provenance" list in Markdown.  `failures` (a list of
-- tables with at least `message`) and `incomplete` (nil or the reason the
-- run stopped early) travel with the rows; `extra` holds further top-level
-- JSON fields (a sweep's description, a shard's task list).
local csv = require "gpush.csv"
local json = require "gpush.json"
local markdown = require "gpush.report.markdown"
local staging = require "gpush.staging"
local text = require "gpush.text"

local M = {}

local Results = {}
Results.__index = Results

-- JSON keys the table itself uses; `extra` may not take them.
local RESERVED = { format = true, provenance = true, columns = true, rows = true, failures = true,
  incomplete = true }

M.FORMAT = "gpush.results/1"

local function copy_list(list)
  local out = {}
  for i, v in ipairs(list or {}) do
    out[i] = v
  end
  return out
end

-- Columns of rows that give none: every key, sorted.
local function columns_of(rows)
  local seen, columns = {}, {}
  for _, row in ipairs(rows) do
    for k in pairs(row) do
      if not seen[k] then
        seen[k] = true
        columns[#columns + 1] = k
      end
    end
  end
  table.sort(columns)
  return columns
end

function M.new(t)
  t = t or {}
  if type(t) ~= "table" then
    error("gpush.results.new: expected a table, got " .. type(t), 2)
  end
  local rows = copy_list(t.rows)
  for i, row in ipairs(rows) do
    if type(row) ~= "table" then
      error(("gpush.results.new: row %d is a %s, expected a table"):format(i, type(row)), 2)
    end
  end
  local extra = {}
  for k, v in pairs(t.extra or {}) do
    if RESERVED[k] then
      error(("gpush.results.new: extra field '%s' is reserved"):format(k), 2)
    end
    extra[k] = v
  end
  local provenance = {}
  for k, v in pairs(t.provenance or {}) do
    provenance[k] = tostring(v)
  end
  return setmetatable({
    columns = t.columns and copy_list(t.columns) or columns_of(rows),
    rows = rows,
    provenance = provenance,
    failures = copy_list(t.failures),
    incomplete = t.incomplete,
    extra = extra,
  }, Results)
end

-- A new table with these rows and everything else of self.
function Results:with_rows(rows)
  return M.new { columns = self.columns, rows = rows, provenance = self.provenance, failures = self.failures,
    incomplete = self.incomplete, extra = self.extra }
end

-- The rows for which pred(row) is true; pred may be a table {column = value}
-- or {column = {value, value, ...}} (any of them).
function Results:filter(pred)
  local test = pred
  if type(pred) == "table" then
    test = function(row)
      for column, wanted in pairs(pred) do
        local v = row[column]
        if type(wanted) == "table" then
          local any = false
          for _, w in ipairs(wanted) do
            any = any or v == w
          end
          if not any then
            return false
          end
        elseif v ~= wanted then
          return false
        end
      end
      return true
    end
  elseif type(pred) ~= "function" then
    error("Results:filter: expected a function or a table of column = value, got " .. type(pred), 2)
  end
  local kept = {}
  for _, row in ipairs(self.rows) do
    if test(row) then
      kept[#kept + 1] = row
    end
  end
  return self:with_rows(kept)
end

-- nil sorts first; numbers before strings; otherwise by value.
local function less(a, b)
  if a == nil or b == nil then
    return a == nil and b ~= nil
  end
  local ta, tb = type(a), type(b)
  if ta ~= tb then
    return ta == "number"
  end
  if ta == "boolean" then
    return not a and b
  end
  return a < b
end

-- Sorted by the given columns ("-name" descending), stable.
function Results:sort(...)
  local keys = { ... }
  if #keys == 0 then
    error("Results:sort: give at least one column", 2)
  end
  local order = {}
  for i, row in ipairs(self.rows) do
    order[i] = { row = row, index = i }
  end
  table.sort(order, function(x, y)
    for _, key in ipairs(keys) do
      local descending = key:sub(1, 1) == "-"
      local column = descending and key:sub(2) or key
      local a, b = x.row[column], y.row[column]
      if a ~= b then
        if descending then
          return less(b, a)
        end
        return less(a, b)
      end
    end
    return x.index < y.index
  end)
  local rows = {}
  for i, o in ipairs(order) do
    rows[i] = o.row
  end
  return self:with_rows(rows)
end

local function key_text(row, columns)
  local parts = {}
  for i, c in ipairs(columns) do
    parts[i] = tostring(row[c])
  end
  return table.concat(parts, "\0")
end

-- Groups by the given columns, in the order each key first appears: a list
-- of { key = {column = value, ...}, rows = Results }.
function Results:group(...)
  local columns = { ... }
  local groups, index = {}, {}
  for _, row in ipairs(self.rows) do
    local k = key_text(row, columns)
    local g = index[k]
    if not g then
      local key = {}
      for _, c in ipairs(columns) do
        key[c] = row[c]
      end
      g = { key = key, list = {} }
      index[k] = g
      groups[#groups + 1] = g
    end
    g.list[#g.list + 1] = row
  end
  for i, g in ipairs(groups) do
    groups[i] = { key = g.key, rows = self:with_rows(g.list) }
  end
  return groups
end

-- One row per distinct value of `row_columns` (a column name or a list),
-- one column per distinct value of `column` (in order of appearance, named
-- by its text), holding `value` (the last one when several rows share a
-- cell, or aggregate(list of values) when given).
function Results:pivot(row_columns, column, value, aggregate)
  if type(row_columns) == "string" then
    row_columns = { row_columns }
  end
  local out_columns, seen_column = copy_list(row_columns), {}
  local rows = {}
  for _, g in ipairs(self:group(table.unpack(row_columns))) do
    local row = {}
    for c, v in pairs(g.key) do
      row[c] = v
    end
    local lists = {}
    for _, r in ipairs(g.rows.rows) do
      local name = r[column] == nil and "-" or (type(r[column]) == "number" and csv.number(r[column])
        or tostring(r[column]))
      if not seen_column[name] then
        seen_column[name] = true
        out_columns[#out_columns + 1] = name
      end
      lists[name] = lists[name] or {}
      table.insert(lists[name], r[value])
    end
    for name, list in pairs(lists) do
      row[name] = aggregate and aggregate(list) or list[#list]
    end
    rows[#rows + 1] = row
  end
  return M.new { columns = out_columns, rows = rows, provenance = self.provenance }
end

-- The values of one column, in row order (nil where missing).
function Results:column(name)
  local values = {}
  for i, row in ipairs(self.rows) do
    values[i] = row[name]
  end
  return values, #self.rows
end

-- Only the given columns, in that order.
function Results:select(...)
  local t = self:with_rows(self.rows)
  t.columns = { ... }
  return t
end

-- CSV ---------------------------------------------------------------------------------

-- Per column: "n" when every value is a number, "b" booleans, else "s".
local function column_types(self)
  local types = {}
  for i, c in ipairs(self.columns) do
    local kind
    for _, row in ipairs(self.rows) do
      local v = row[c]
      if v ~= nil then
        local k = type(v) == "number" and "n" or type(v) == "boolean" and "b" or "s"
        if kind and kind ~= k then
          kind = "s"
          break
        end
        kind = k
      end
    end
    types[i] = kind or "s"
  end
  return types
end

local function one_line(s)
  return (tostring(s):gsub("\r?\n", " "))
end

-- The text of a failure for one line: its message, which names the
-- kernel, model and parameters of the point.
local function failure_text(f)
  return one_line(f.message)
end

function Results:to_csv()
  local lines = { "# format: " .. M.FORMAT }
  for _, k in ipairs(text.sorted_keys(self.provenance)) do
    lines[#lines + 1] = ("# %s: %s"):format(k, one_line(self.provenance[k]))
  end
  if self.incomplete then
    lines[#lines + 1] = "# incomplete: " .. one_line(self.incomplete)
  end
  for _, f in ipairs(self.failures) do
    lines[#lines + 1] = "# failed: " .. failure_text(f)
  end
  lines[#lines + 1] = "# types: " .. table.concat(column_types(self), ",")
  lines[#lines + 1] = csv.line(self.columns)
  local values = {}
  for _, row in ipairs(self.rows) do
    for i, c in ipairs(self.columns) do
      values[i] = row[c]
    end
    lines[#lines + 1] = csv.line(values, #self.columns)
  end
  return table.concat(lines, "\n") .. "\n"
end

-- Writes writer(self, opts), the text of one format (Results.to_csv, a
-- report's function of the results such as gpush.report.summary.file, or a
-- caller's own), to `path` through a staged file (gpush.staging.write: a
-- failed write leaves the previous file); returns true, or nil and a message.
function Results:write(path, writer, opts)
  return staging.write(path, writer(self, opts))
end

function Results:write_csv(path)
  return self:write(path, Results.to_csv)
end

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then
    return nil, err
  end
  local text = f:read("a")
  f:close()
  return text
end

local function convert(text, kind, where)
  if text == "" then
    return nil
  elseif kind == "n" then
    local n = tonumber(text)
    if not n or n == math.huge or n == -math.huge then -- 1e999 reads as inf, which no writer accepts
      return nil, ("%s: expected a finite number, got '%s'"):format(where, text)
    end
    return n
  elseif kind == "b" then
    if text ~= "true" and text ~= "false" then
      return nil, ("%s: expected true or false, got '%s'"):format(where, text)
    end
    return text == "true"
  end
  return text
end

-- Reads what to_csv wrote (other CSV too: without a types line every
-- column is text); returns a Results or nil, message.
function M.from_csv(text, name)
  name = name or "csv"
  local records, comments = csv.parse(text)
  if not records then
    return nil, name .. ": " .. comments
  end
  local provenance, failures, incomplete, types = {}, {}, nil, {}
  for _, c in ipairs(comments) do
    local key, value = c:match("^([%w_%.%-]+): ?(.*)$")
    if key == "failed" then
      failures[#failures + 1] = { message = value }
    elseif key == "incomplete" then
      incomplete = value
    elseif key == "types" then
      for kind in value:gmatch("[^,]+") do
        types[#types + 1] = kind
      end
    elseif key and key ~= "format" then
      provenance[key] = value
    end
  end
  local header = table.remove(records, 1)
  if not header then
    return nil, name .. ": no header line"
  end
  local rows = {}
  for i, record in ipairs(records) do
    if not (#record == 1 and record[1] == "") then
      if #record ~= #header then
        return nil, ("%s: row %d has %d fields, the header %d"):format(name, i, #record, #header)
      end
      local row = {}
      for j, column in ipairs(header) do
        local v, err = convert(record[j], types[j] or "s", ("%s: row %d, column '%s'"):format(name, i, column))
        if err then
          return nil, err
        end
        row[column] = v
      end
      rows[#rows + 1] = row
    end
  end
  return M.new { columns = header, rows = rows, provenance = provenance, failures = failures,
    incomplete = incomplete }
end

function M.read_csv(path)
  local text, err = read_file(path)
  if not text then
    return nil, err
  end
  return M.from_csv(text, path)
end

-- JSON --------------------------------------------------------------------------------

local shape_problem

function Results:to_table()
  local t = {}
  for k, v in pairs(self.extra) do
    t[k] = v
  end
  t.format = M.FORMAT
  t.provenance = json.object(self.provenance)
  t.columns = self.columns
  t.rows = {}
  for i, row in ipairs(self.rows) do
    t.rows[i] = json.object(row)
  end
  t.failures = self.failures
  t.incomplete = self.incomplete
  return t
end

function Results:to_json()
  return json.encode(self:to_table(), true) .. "\n"
end

function Results:write_json(path)
  return self:write(path, Results.to_json)
end

-- What is wrong with the shape of a decoded results file, or nil: columns
-- a list of strings, rows a list of objects of scalars, provenance an
-- object of scalars, failures a list of objects with a message, incomplete
-- a string (or null).
local function is_scalar(v)
  local kind = type(v)
  return kind == "string" or kind == "number" or kind == "boolean" or v == json.null
end

shape_problem = function(t)
  for i, c in ipairs(t.columns) do
    if type(c) ~= "string" then
      return ("\"columns\" item %d is not a string"):format(i)
    end
  end
  if #t.columns ~= 0 and next(t.columns, #t.columns) ~= nil or (#t.columns == 0 and next(t.columns) ~= nil) then
    return "\"columns\" is not a list"
  end
  if (#t.rows == 0 and next(t.rows) ~= nil) or (#t.rows > 0 and next(t.rows, #t.rows) ~= nil) then
    return "\"rows\" is not a list"
  end
  for i, row in ipairs(t.rows) do
    if type(row) ~= "table" then
      return ("row %d is not an object"):format(i)
    end
    for k, v in pairs(row) do
      if type(k) ~= "string" or not is_scalar(v) then
        return ("row %d, column '%s': expected a number, string or boolean"):format(i, tostring(k))
      end
    end
  end
  if t.provenance ~= nil then
    if type(t.provenance) ~= "table" then
      return "\"provenance\" is not an object"
    end
    for k, v in pairs(t.provenance) do
      if not is_scalar(v) then
        return ("provenance '%s' is not a string or number"):format(tostring(k))
      end
    end
  end
  if t.failures ~= nil then
    if type(t.failures) ~= "table" then
      return "\"failures\" is not a list"
    end
    for i, f in ipairs(t.failures) do
      if type(f) ~= "table" or type(f.message) ~= "string" then
        return ("failure %d has no message"):format(i)
      end
    end
  end
  if t.incomplete ~= nil and t.incomplete ~= json.null and type(t.incomplete) ~= "string" then
    return "\"incomplete\" is not a string"
  end
end

-- Reads what to_json wrote; returns a Results or nil, message.
function M.from_json(text, name)
  name = name or "json"
  local t, err = json.decode(text)
  if not t then
    return nil, ("%s: %s"):format(name, err)
  end
  if type(t) ~= "table" or t.format ~= M.FORMAT then
    return nil, ("%s: not a gpush results file (expected \"format\": \"%s\")"):format(name, M.FORMAT)
  end
  if type(t.rows) ~= "table" or type(t.columns) ~= "table" then
    return nil, name .. ": missing \"rows\" or \"columns\""
  end
  local problem = shape_problem(t)
  if problem then
    return nil, ("%s: %s"):format(name, problem)
  end
  local extra = {}
  for k, v in pairs(t) do
    if not RESERVED[k] then
      extra[k] = v
    end
  end
  local incomplete = t.incomplete
  if incomplete == json.null then
    incomplete = nil
  end
  return M.new { columns = t.columns, rows = t.rows, provenance = t.provenance, failures = t.failures,
    incomplete = incomplete, extra = extra }
end

function M.read_json(path)
  local text, err = read_file(path)
  if not text then
    return nil, err
  end
  return M.from_json(text, path)
end

-- Markdown ----------------------------------------------------------------------------

-- opts: title, text (lines before the table), columns (default all),
-- formats {column = "%.1f"}.
function Results:to_markdown(opts)
  opts = opts or {}
  local lines = {}
  if opts.title then
    lines[#lines + 1] = "# " .. opts.title
    lines[#lines + 1] = ""
  end
  for _, l in ipairs(opts.text or {}) do
    lines[#lines + 1] = l
  end
  if opts.text then
    lines[#lines + 1] = ""
  end
  if self.incomplete then
    lines[#lines + 1] = "**Incomplete:** " .. self.incomplete
    lines[#lines + 1] = ""
  end
  local columns = opts.columns or self.columns
  local formats = opts.formats or {}
  local cells = {}
  for i, row in ipairs(self.rows) do
    local r = {}
    for j, c in ipairs(columns) do
      local v = row[c]
      r[j] = (formats[c] and type(v) == "number") and formats[c]:format(v) or v
    end
    cells[i] = r
  end
  for _, l in ipairs(markdown.table(columns, cells)) do
    lines[#lines + 1] = l
  end
  M.append_failures(lines, self.failures)
  lines[#lines + 1] = ""
  for _, l in ipairs(markdown.stamp(self.provenance)) do
    lines[#lines + 1] = l
  end
  return table.concat(lines, "\n") .. "\n"
end

-- Appends a "Failed points" list to Markdown lines.
function M.append_failures(lines, failures)
  if #failures == 0 then
    return
  end
  lines[#lines + 1] = ""
  lines[#lines + 1] = ("## Failed points (%d)"):format(#failures)
  lines[#lines + 1] = ""
  -- one line per distinct cause when failures carry one (experiment runs)
  local order, count = {}, {}
  for _, f in ipairs(failures) do
    local key = type(f.cause) == "string" and f.cause or failure_text(f)
    if not count[key] then
      order[#order + 1] = { key = key, first = f }
      count[key] = 0
    end
    count[key] = count[key] + 1
  end
  for _, o in ipairs(order) do
    local text = count[o.key] > 1 and ("%d points: %s (the first: %s)"):format(count[o.key], one_line(o.key),
      failure_text(o.first)) or failure_text(o.first)
    lines[#lines + 1] = "- " .. text:gsub("|", "\\|")
  end
end

function Results:write_markdown(path, opts)
  return self:write(path, Results.to_markdown, opts)
end

M.failure_text = failure_text

return M
