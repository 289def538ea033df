-- gpush.ml.dataset: the data Wu et al.'s scaling-surface models
-- learn from (HPCA 2015, Sec. III-A, Fig. 3): per kernel and configuration
-- (CU count, engine clock, memory clock) the execution time, optionally the
-- power, and the performance counters (Table II) measured there.
--
--   local ds = assert(dataset.read_csv("corpus.csv"))
--   ds.grid.cus, ds.grid.core_mhz, ds.grid.mem_mhz, ds.kernels, ds.features
--   ds:value("time", kernel, config), ds:counters_at(kernel, config)
--
-- The CSV (docs/ml.md): one row per kernel and configuration; columns
-- `kernel` (a name, unique per kernel), `cus` (a whole number), `core_mhz`,
-- `mem_mhz`, `time_us` (> 0), optionally `power_w` (> 0), and counters:
-- Table II's names (VALUInsts, ...; any subset) or the columns opts.features
-- names.  Counter cells may be empty where a configuration was not
-- profiled; a model needs them at its base configuration.  Other columns
-- are ignored, so an experiment's CSV (gpush.experiment) reads as is.
-- Lines starting with '#' are comments; "# simulated: ..." marks a corpus
-- gpush generated.  Every kernel needs every combination of the three
-- axes' values.  Bad input gives nil and "FILE:LINE: what was expected".
local core = require "gpush.core"
local csv = require "gpush.csv"
local surface = require "gpush.models.surface"
local text_util = require "gpush.text"

local M = {}

M.TABLE_II = surface.TABLE_II

-- The modelled quantities: name, CSV column, unit; time is required.
M.QUANTITIES = {
  { name = "time", column = "time_us", unit = "us", what = "execution time in microseconds" },
  { name = "power", column = "power_w", unit = "W", what = "average dynamic power in watts" },
}

M.AXES = surface.AXES

local Dataset = {}
Dataset.__index = Dataset

-- Configurations are numbered 1..G with the memory clock fastest, then the
-- engine clock, then the CU count (the C core's order).
function Dataset:config_count()
  return #self.grid.cus * #self.grid.core_mhz * #self.grid.mem_mhz
end

function Dataset:config_index(c, e, m)
  return ((c - 1) * #self.grid.core_mhz + (e - 1)) * #self.grid.mem_mhz + m
end

-- The (c, e, m) indices of configuration g.
function Dataset:config_indices(g)
  local nm, ne = #self.grid.mem_mhz, #self.grid.core_mhz
  local i = g - 1
  return i // (ne * nm) + 1, i // nm % ne + 1, i % nm + 1
end

-- {cus = ..., core_mhz = ..., mem_mhz = ...} of configuration g.
function Dataset:config(g)
  local c, e, m = self:config_indices(g)
  return { cus = self.grid.cus[c], core_mhz = self.grid.core_mhz[e], mem_mhz = self.grid.mem_mhz[m] }
end

-- "32/1000/1375" for messages and tables.
function M.config_text(config)
  return ("%s/%s/%s"):format(csv.number(config.cus), csv.number(config.core_mhz), csv.number(config.mem_mhz))
end

function Dataset:locate(config)
  return surface.locate(self.grid, config)
end

function Dataset:kernel_index(name)
  return self.index[name]
end

function Dataset:has(quantity)
  return self.values[quantity] ~= nil
end

-- Quantity `quantity` ("time" or "power") of kernel k at configuration g.
function Dataset:value(quantity, k, g)
  return self.values[quantity][(k - 1) * self:config_count() + g]
end

-- The counters of kernel k at configuration g, in feature order (nil for
-- cells not measured).
function Dataset:counters_at(k, g)
  local f, out = #self.features, {}
  local start = ((k - 1) * self:config_count() + g - 1) * f
  for j = 1, f do
    out[j] = self.counters[start + j]
  end
  return out
end

-- The C dataset (built once): quantities in self.quantities order.
function Dataset:core()
  if not self.c then
    local c = core.surface_dataset { grid = self.grid, kernels = #self.kernels, features = #self.features,
      quantities = #self.quantities }
    for q, name in ipairs(self.quantities) do
      c:fill("values", q, self.values[name])
    end
    c:fill("counters", self.counters)
    self.c = c
  end
  return self.c
end

-- The position of a quantity in self.quantities (the C dataset's index).
function Dataset:quantity_index(name)
  for q, n in ipairs(self.quantities) do
    if n == name then
      return q
    end
  end
end

-- Number parsing with messages ------------------------------------------------------

local function number_cell(text, where, column, what, positive)
  local v = tonumber(text)
  if not v or v ~= v or v == math.huge or v == -math.huge or (positive and v <= 0) then
    return nil, ("%s: column '%s': expected %s, got '%s'"):format(where, column, what, text)
  end
  return v
end

-- Reading ---------------------------------------------------------------------------

-- The columns a dataset reads, from a header: positions of the keys,
-- quantities and features.
local function header_columns(header, name, opts)
  local pos = {}
  for i, column in ipairs(header) do
    if pos[column] then
      return nil, ("%s:%d: column '%s' appears twice in the header"):format(name, opts.header_line, column)
    end
    pos[column] = i
  end
  for _, key in ipairs { "kernel", "cus", "core_mhz", "mem_mhz", "time_us" } do
    if not pos[key] then
      return nil, ("%s:%d: no '%s' column; a dataset needs kernel, cus, core_mhz, mem_mhz, time_us, "
        .. "optionally power_w, and counter columns (Table II names: VALUInsts, ...)"):format(name,
        opts.header_line, key)
    end
  end
  local features = {}
  for _, f in ipairs(opts.features or M.TABLE_II) do
    if pos[f] then
      features[#features + 1] = f
    elseif opts.features then
      return nil, ("%s:%d: no counter column '%s'"):format(name, opts.header_line, f)
    end
  end
  if #features == 0 then
    return nil, ("%s:%d: no counter columns; expected some of Table II's %s"):format(name, opts.header_line,
      table.concat(M.TABLE_II, ", "))
  end
  return pos, features
end

-- Builds a dataset from parsed records (records[i] a list of fields,
-- lines[i] its line in `name`), the header first.
local function from_records(records, lines, comments, name, opts)
  opts = opts or {}
  local header = records[1]
  if not header then
    return nil, name .. ": no header line"
  end
  local pos, features = header_columns(header, name, { header_line = lines[1], features = opts.features })
  if not pos then
    return nil, features
  end
  local quantities = {}
  for _, q in ipairs(M.QUANTITIES) do
    if pos[q.column] then
      quantities[#quantities + 1] = q
    end
  end
  -- first pass: parse and validate every row, collect the axes' values
  local rows, axis_values, kernel_order, seen_kernel = {}, { {}, {}, {} }, {}, {}
  for i = 2, #records do
    local r = records[i]
    local where = ("%s:%d"):format(name, lines[i])
    if not (#r == 1 and r[1] == "") then
      if #r ~= #header then
        return nil, ("%s: %d fields, the header has %d"):format(where, #r, #header)
      end
      local row = { kernel = r[pos.kernel], line = lines[i] }
      if row.kernel == "" then
        return nil, ("%s: column 'kernel': expected a kernel name, got an empty cell"):format(where)
      end
      local err
      row.cus, err = number_cell(r[pos.cus], where, "cus", "a whole number of CUs (> 0)", true)
      if not row.cus or row.cus ~= math.floor(row.cus) then
        return nil, err or ("%s: column 'cus': expected a whole number of CUs (> 0), got '%s'"):format(where, r[pos.cus])
      end
      row.core_mhz, err = number_cell(r[pos.core_mhz], where, "core_mhz", "a clock in MHz (> 0)", true)
      if not row.core_mhz then
        return nil, err
      end
      row.mem_mhz, err = number_cell(r[pos.mem_mhz], where, "mem_mhz", "a clock in MHz (> 0)", true)
      if not row.mem_mhz then
        return nil, err
      end
      for _, q in ipairs(quantities) do
        row[q.name], err = number_cell(r[pos[q.column]], where, q.column, "a positive number (" .. q.what .. ")", true)
        if not row[q.name] then
          return nil, err
        end
      end
      row.counters = {}
      for j, f in ipairs(features) do
        local text = r[pos[f]]
        if text ~= "" then
          row.counters[j], err = number_cell(text, where, f, "a number or an empty cell", false)
          if not row.counters[j] then
            return nil, err
          end
        end
      end
      axis_values[1][row.cus], axis_values[2][row.core_mhz], axis_values[3][row.mem_mhz] = true, true, true
      if not seen_kernel[row.kernel] then
        seen_kernel[row.kernel] = true
        kernel_order[#kernel_order + 1] = row.kernel
      end
      rows[#rows + 1] = row
    end
  end
  if #rows == 0 then
    return nil, name .. ": no data rows"
  end
  local ds = setmetatable({ source = name, comments = comments, features = features, kernels = kernel_order,
    index = {}, quantities = {}, values = {} }, Dataset)
  ds.grid = { cus = text_util.sorted_keys(axis_values[1]), core_mhz = text_util.sorted_keys(axis_values[2]),
    mem_mhz = text_util.sorted_keys(axis_values[3]) }
  for _, c in ipairs(comments) do
    if c:match("^simulated:") then
      ds.simulated = c:match("^simulated:%s*(.*)$")
    end
  end
  for k, kname in ipairs(kernel_order) do
    ds.index[kname] = k
  end
  local G, F = ds:config_count(), #features
  local position = { {}, {}, {} }
  for i, axis in ipairs(M.AXES) do
    for j, v in ipairs(ds.grid[axis.key]) do
      position[i][v] = j
    end
  end
  for _, q in ipairs(quantities) do
    ds.quantities[#ds.quantities + 1] = q.name
    ds.values[q.name] = {}
  end
  ds.counters = {}
  local line_of = {}
  for _, row in ipairs(rows) do
    local k = ds.index[row.kernel]
    local g = ds:config_index(position[1][row.cus], position[2][row.core_mhz], position[3][row.mem_mhz])
    local slot = (k - 1) * G + g
    if line_of[slot] then
      return nil, ("%s:%d: kernel '%s' at cus=%s core_mhz=%s mem_mhz=%s is already on line %d"):format(name,
        row.line, row.kernel, csv.number(row.cus), csv.number(row.core_mhz), csv.number(row.mem_mhz), line_of[slot])
    end
    line_of[slot] = row.line
    for _, q in ipairs(quantities) do
      ds.values[q.name][slot] = row[q.name]
    end
    for j = 1, F do
      ds.counters[(slot - 1) * F + j] = row.counters[j]
    end
  end
  -- every kernel at every configuration
  for k, kname in ipairs(kernel_order) do
    local missing, first = 0, nil
    for g = 1, G do
      if not line_of[(k - 1) * G + g] then
        missing = missing + 1
        first = first or g
      end
    end
    if missing > 0 then
      local c = ds:config(first)
      return nil, ("%s: kernel '%s' lacks %d of the grid's %d configurations, e.g. cus=%s core_mhz=%s mem_mhz=%s "
        .. "(every kernel needs every combination of the %d CU counts, %d engine clocks and %d memory clocks)")
        :format(name, kname, missing, G, csv.number(c.cus), csv.number(c.core_mhz), csv.number(c.mem_mhz),
          #ds.grid.cus, #ds.grid.core_mhz, #ds.grid.mem_mhz)
    end
  end
  return ds
end

-- Parses dataset CSV text; `name` names it in messages.  opts.features: the
-- counter columns to use (default: the Table II names present).
function M.from_csv(text, name, opts)
  name = name or "dataset"
  local records, comments, lines = csv.parse(text)
  if not records then
    return nil, name .. ": " .. comments
  end
  return from_records(records, lines, comments, name, opts)
end

local function read_text(path)
  local f, err = io.open(path, "rb")
  if not f then
    return nil, err
  end
  local text = f:read("a")
  f:close()
  return text
end

function M.read_csv(path, opts)
  local text, err = read_text(path)
  if not text then
    return nil, err
  end
  return M.from_csv(text, path, opts)
end

-- A kernel measured at one configuration, for a prediction: rows of
-- `kernel`, `time_us` and/or `power_w`, and every counter in `features`
-- (other columns, such as cus, core_mhz and mem_mhz, are ignored).
-- Returns a list of {kernel, line, time_us, power_w, counters = {by
-- name}} or nil and "FILE:LINE: ...".
function M.read_base(path, features)
  local text, err = read_text(path)
  if not text then
    return nil, err
  end
  local records, comments, lines = csv.parse(text)
  if not records then
    return nil, path .. ": " .. comments
  end
  local header = records[1]
  if not header then
    return nil, path .. ": no header line"
  end
  local pos = {}
  for i, column in ipairs(header) do
    pos[column] = i
  end
  for _, need in ipairs { "kernel" } do
    if not pos[need] then
      return nil, ("%s:%d: no '%s' column"):format(path, lines[1], need)
    end
  end
  if not pos.time_us and not pos.power_w then
    return nil, ("%s:%d: no 'time_us' or 'power_w' column: the value at the base configuration to scale"):format(path,
      lines[1])
  end
  for _, name in ipairs(features) do
    if not pos[name] then
      return nil, ("%s:%d: no counter column '%s' (the model reads %s)"):format(path, lines[1], name,
        table.concat(features, ", "))
    end
  end
  local rows = {}
  for i = 2, #records do
    local r = records[i]
    local where = ("%s:%d"):format(path, lines[i])
    if not (#r == 1 and r[1] == "") then
      if #r ~= #header then
        return nil, ("%s: %d fields, the header has %d"):format(where, #r, #header)
      end
      local row = { kernel = r[pos.kernel], line = lines[i], counters = {} }
      for _, q in ipairs(M.QUANTITIES) do
        if pos[q.column] and r[pos[q.column]] ~= "" then
          row[q.column], err = number_cell(r[pos[q.column]], where, q.column, "a positive number (" .. q.what .. ")",
            true)
          if not row[q.column] then
            return nil, err
          end
        end
      end
      for _, name in ipairs(features) do
        row.counters[name], err = number_cell(r[pos[name]], where, name, "a number", false)
        if not row.counters[name] then
          return nil, err
        end
      end
      rows[#rows + 1] = row
    end
  end
  if #rows == 0 then
    return nil, path .. ": no data rows"
  end
  return rows
end

-- Writing ---------------------------------------------------------------------------

-- The CSV text of a dataset, comment lines first (comments: a list of
-- strings, each written as "# text"; by default the ones read, less a
-- results file's "format:" and "types:" lines, which described its columns).
function Dataset:to_csv(comments)
  local out = {}
  for _, c in ipairs(comments or self.comments or {}) do
    if comments or not (c:match("^format:") or c:match("^types:")) then
      out[#out + 1] = "# " .. c
    end
  end
  local header = { "kernel", "cus", "core_mhz", "mem_mhz" }
  for _, q in ipairs(M.QUANTITIES) do
    if self.values[q.name] then
      header[#header + 1] = q.column
    end
  end
  for _, f in ipairs(self.features) do
    header[#header + 1] = f
  end
  out[#out + 1] = csv.line(header)
  local G = self:config_count()
  for k, kname in ipairs(self.kernels) do
    for g = 1, G do
      local c = self:config(g)
      local row = { kname, c.cus, c.core_mhz, c.mem_mhz }
      for _, q in ipairs(M.QUANTITIES) do
        if self.values[q.name] then
          row[#row + 1] = self:value(q.name, k, g)
        end
      end
      local counters = self:counters_at(k, g)
      for j = 1, #self.features do
        row[#row + 1] = counters[j]
      end
      out[#out + 1] = csv.line(row, #header)
    end
  end
  return table.concat(out, "\n") .. "\n"
end

-- Writes the CSV through a staged file (a failed write leaves the
-- previous file); true, or nil and a message.
function Dataset:write_csv(path, comments)
  return require("gpush.staging").write(path, self:to_csv(comments))
end

return M
