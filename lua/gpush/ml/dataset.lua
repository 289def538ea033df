-- gpush.ml.dataset: the data Wu et al.'s scaling-surface models
-- learn from (HPCA 2015, Sec. III-A, Fig. 3): per kernel and configuration
-- (CU count, engine clock, memory clock) the execution time, optionally the
-- power, and the performance counters (Table II) measured there.
--
--   local ds = assert(dataset.read_csv("corpus.csv"))
--   ds.grid.cus, ds.grid.core_mhz, ds.grid.mem_mhz, ds.kernels, ds.features
--   ds.family[k], ds.families, ds.dropped_features
--   ds:value("time", kernel, config), ds:counters_at(kernel, config)
--
-- The CSV (docs/ml.md): one row per kernel and configuration; columns
-- `kernel` (a name, unique per kernel), optionally `family` (the kernel's
-- family: a base description and its variants; without the column, the
-- name less a trailing ".vN"), `cus` (a whole number), `core_mhz`,
-- `mem_mhz`, `time_us` (> 0), optionally `power_w` (> 0), and counters:
-- Table II's names (VALUInsts, ...; any subset) or the columns opts.features
-- names.  A column that looks like a misspelt counter is refused (it would
-- be dropped without a word); a counter constant over the whole data is
-- dropped from the features and listed in ds.dropped_features.  Counter
-- cells may be empty where a configuration was not profiled; a model needs
-- them at its base configuration.  Other columns are ignored, so an
-- experiment's CSV (gpush.experiment) reads as is.  Lines starting with '#'
-- are comments; "# simulated: ..." marks a corpus gpush generated.  Every
-- kernel needs every combination of the three axes' values.  Bad input
-- gives nil and "FILE:LINE: what was expected", one line per problem.
local core = require "gpush.core"
local csv = require "gpush.csv"
local files = require "gpush.ml.files"
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

-- Problems found row by row: every one is reported (up to MAX_PROBLEMS
-- lines, then how many more), so one pass over a file shows all it needs.
M.MAX_PROBLEMS = 20

local function problems_text(list)
  local shown = { table.unpack(list, 1, math.min(#list, M.MAX_PROBLEMS)) }
  if #list > M.MAX_PROBLEMS then
    shown[#shown + 1] = ("... and %d more problems"):format(#list - M.MAX_PROBLEMS)
  end
  return table.concat(shown, "\n")
end

-- Reading ---------------------------------------------------------------------------

-- The columns a dataset knows besides the counters.
local KEYS = { kernel = true, cus = true, core_mhz = true, mem_mhz = true, family = true }
for _, q in ipairs(M.QUANTITIES) do
  KEYS[q.column] = true
end

-- A header column that is no counter but looks like a misspelt one (edit
-- distance, or the same name in another case): the counter it resembles.
local function misspelt_counter(column)
  if KEYS[column] then
    return nil
  end
  for _, name in ipairs(M.TABLE_II) do
    if name == column then
      return nil
    end
    if name:lower() == column:lower() then
      return name
    end
  end
  return text_util.closest(column, M.TABLE_II)
end

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
        .. "optionally power_w and family, and counter columns (Table II names: VALUInsts, ...)"):format(name,
        opts.header_line, key)
    end
  end
  if not opts.features then
    for _, column in ipairs(header) do
      local meant = misspelt_counter(column)
      if meant then
        return nil, ("%s:%d: column '%s' is not one of Table II's counters (did you mean '%s'?); rename it, "
          .. "or give the counters to read explicitly"):format(name, opts.header_line, column, meant)
      end
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

-- One data row parsed: {kernel, family, line, cus, core_mhz, mem_mhz,
-- time, power, counters}, or nil and "FILE:LINE: ...".
local function parse_row(r, line, where, header, pos, quantities, features)
  if #r ~= #header then
    return nil, ("%s: %d fields, the header has %d"):format(where, #r, #header)
  end
  local row = { kernel = r[pos.kernel], line = line, family = pos.family and r[pos.family] }
  if row.kernel == "" then
    return nil, ("%s: column 'kernel': expected a kernel name, got an empty cell"):format(where)
  end
  if row.family == "" then
    return nil, ("%s: column 'family': expected the kernel's family (a name), got an empty cell"):format(where)
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
  return row
end

-- A kernel's family when the data has no `family` column: its name less
-- a trailing ".v<number>" (the corpus's variants are named "<family>.vN").
function M.family_of_name(kernel)
  return kernel:match("^(.+)%.v%d+$") or kernel
end

-- The families of the kernels (ds.family[k], ds.families in order of first
-- appearance, ds.family_index[k]); with a `family` column every row of a
-- kernel must name the same one.  Returns true or nil, message.
local function assign_families(ds, rows, name)
  local by_kernel, first_line = {}, {}
  for _, row in ipairs(rows) do
    local family = row.family or M.family_of_name(row.kernel)
    local seen = by_kernel[row.kernel]
    if seen and seen ~= family then
      return nil, ("%s:%d: kernel '%s' is in family '%s' here and in '%s' on line %d"):format(name, row.line,
        row.kernel, family, seen, first_line[row.kernel])
    end
    by_kernel[row.kernel], first_line[row.kernel] = family, first_line[row.kernel] or row.line
  end
  ds.family, ds.families, ds.family_index = {}, {}, {}
  local index = {}
  for k, kname in ipairs(ds.kernels) do
    local family = by_kernel[kname]
    if not index[family] then
      ds.families[#ds.families + 1] = family
      index[family] = #ds.families
    end
    ds.family[k], ds.family_index[k] = family, index[family]
  end
  return true
end

-- Features whose every measured value is the same (or that have none):
-- nothing for a classifier to read.  Returns their positions.
local function constant_features(counters, F)
  local lo, hi = {}, {}
  for i, v in pairs(counters) do
    local j = (i - 1) % F + 1
    if not lo[j] or v < lo[j] then
      lo[j] = v
    end
    if not hi[j] or v > hi[j] then
      hi[j] = v
    end
  end
  local out = {}
  for j = 1, F do
    if not lo[j] or lo[j] == hi[j] then
      out[#out + 1] = j
    end
  end
  return out
end

-- Drops features at positions `drop` (ascending) from ds.features and
-- ds.counters, and lists them in ds.dropped_features with why.
local function drop_features(ds, drop)
  local F, gone = #ds.features, {}
  for _, j in ipairs(drop) do
    gone[j] = true
    ds.dropped_features[#ds.dropped_features + 1] = ds.features[j]
  end
  local keep = {}
  for j = 1, F do
    if not gone[j] then
      keep[#keep + 1] = j
    end
  end
  local counters = {}
  local cells = ds:config_count() * #ds.kernels
  for cell = 0, cells - 1 do
    for jj, j in ipairs(keep) do
      counters[cell * #keep + jj] = ds.counters[cell * F + j]
    end
  end
  local features = {}
  for jj, j in ipairs(keep) do
    features[jj] = ds.features[j]
  end
  ds.features, ds.counters = features, counters
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
  -- first pass: parse and validate every row (every problem collected),
  -- collect the axes' values
  local rows, axis_values, kernel_order, seen_kernel, problems = {}, { {}, {}, {} }, {}, {}, {}
  for i = 2, #records do
    local r = records[i]
    if not (#r == 1 and r[1] == "") then
      local row, err = parse_row(r, lines[i], ("%s:%d"):format(name, lines[i]), header, pos, quantities, features)
      if not row then
        problems[#problems + 1] = err
      else
        axis_values[1][row.cus], axis_values[2][row.core_mhz], axis_values[3][row.mem_mhz] = true, true, true
        if not seen_kernel[row.kernel] then
          seen_kernel[row.kernel] = true
          kernel_order[#kernel_order + 1] = row.kernel
        end
        rows[#rows + 1] = row
      end
    end
  end
  if #problems > 0 then
    return nil, problems_text(problems)
  end
  if #rows == 0 then
    return nil, name .. ": no data rows"
  end
  local ds = setmetatable({ source = name, comments = comments, features = features, kernels = kernel_order,
    index = {}, quantities = {}, values = {}, dropped_features = {} }, Dataset)
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
  local ok, family_err = assign_families(ds, rows, name)
  if not ok then
    return nil, family_err
  end
  ds.has_family_column = pos.family ~= nil
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
      problems[#problems + 1] = ("%s:%d: kernel '%s' at cus=%s core_mhz=%s mem_mhz=%s is already on line %d"):format(
        name, row.line, row.kernel, csv.number(row.cus), csv.number(row.core_mhz), csv.number(row.mem_mhz),
        line_of[slot])
    else
      line_of[slot] = row.line
      for _, q in ipairs(quantities) do
        ds.values[q.name][slot] = row[q.name]
      end
      for j = 1, F do
        ds.counters[(slot - 1) * F + j] = row.counters[j]
      end
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
      problems[#problems + 1] = ("%s: kernel '%s' lacks %d of the grid's %d configurations, e.g. cus=%s core_mhz=%s "
        .. "mem_mhz=%s (every kernel needs every combination of the %d CU counts, %d engine clocks and %d memory "
        .. "clocks)"):format(name, kname, missing, G, csv.number(c.cus), csv.number(c.core_mhz),
        csv.number(c.mem_mhz), #ds.grid.cus, #ds.grid.core_mhz, #ds.grid.mem_mhz)
    end
  end
  if #problems > 0 then
    return nil, problems_text(problems)
  end
  if not opts.features then
    local drop = constant_features(ds.counters, F)
    if #drop == F then
      return nil, ("%s: every counter column is constant over the data (%s): nothing tells kernels apart"):format(
        name, table.concat(features, ", "))
    end
    if #drop > 0 then
      drop_features(ds, drop)
    end
  end
  return ds
end

-- Parses dataset CSV text; `name` names it in messages.  opts.features: the
-- counter columns to use (default: the Table II names present, less those
-- constant over the data, which are listed in ds.dropped_features).
function M.from_csv(text, name, opts)
  name = name or "dataset"
  local records, comments, lines = csv.parse(text)
  if not records then
    return nil, name .. ": " .. comments
  end
  return from_records(records, lines, comments, name, opts)
end

function M.read_csv(path, opts)
  local text, err = files.read(path)
  if not text then
    return nil, err
  end
  return M.from_csv(text, path, opts)
end

-- A kernel measured at one configuration, for a prediction: rows of
-- `kernel`, `time_us` and/or `power_w`, and every counter in `features`;
-- where the file has cus, core_mhz or mem_mhz columns, every row's values
-- must be `base`'s (the configuration the model scales from).  Other
-- columns are ignored.  `probe` (optional, a model trained with the CU
-- probe, gpush.ml.probe): {cus = the probe's CU count, columns = {the
-- probe's value columns, e.g. "probe_time_us"}}: every row needs those
-- columns (positive numbers: the kernel measured at the base clocks with
-- probe.cus CUs), and where the file has a `probe_cus` column its value must
-- be probe.cus.  Returns a list of {kernel, line, time_us, power_w,
-- counters = {by name}, probe = {by column}} or nil and "FILE:LINE: ..."
-- (every bad row).
function M.read_base(path, features, base, probe)
  local text, err = files.read(path)
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
  if not pos.kernel then
    return nil, ("%s:%d: no 'kernel' column"):format(path, lines[1])
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
  for _, column in ipairs(probe and probe.columns or {}) do
    if not pos[column] then
      return nil, ("%s:%d: no '%s' column: the model was trained with the CU probe (--cu-probe quarter) and needs the "
        .. "kernel measured a second time at the base clocks with %s CUs (base %s); train with --cu-probe none for "
        .. "the paper's one base run"):format(path, lines[1], column, csv.number(probe.cus), M.config_text(base))
    end
  end
  local rows, problems = {}, {}
  for i = 2, #records do
    local r = records[i]
    local where = ("%s:%d"):format(path, lines[i])
    if not (#r == 1 and r[1] == "") then
      local row, row_err = { kernel = r[pos.kernel], line = lines[i], counters = {}, probe = {} }, nil
      if #r ~= #header then
        row_err = ("%s: %d fields, the header has %d"):format(where, #r, #header)
      end
      for _, axis in ipairs(base and not row_err and M.AXES or {}) do
        local at = pos[axis.key] and r[pos[axis.key]]
        if at and at ~= "" and tonumber(at) ~= base[axis.key] then
          row_err = ("%s: column '%s' is %s, but the model's base configuration is %s: the counters and base value "
            .. "must be measured there"):format(where, axis.key, at, M.config_text(base))
          break
        end
      end
      local probe_at = probe and not row_err and pos.probe_cus and r[pos.probe_cus]
      if probe_at and probe_at ~= "" and tonumber(probe_at) ~= probe.cus then
        row_err = ("%s: column 'probe_cus' is %s, but the model's CU probe is at %s CUs (base %s): the second run "
          .. "must be made there"):format(where, probe_at, csv.number(probe.cus), M.config_text(base))
      end
      for _, column in ipairs(probe and not row_err and probe.columns or {}) do
        row.probe[column], row_err = number_cell(r[pos[column]], where, column, ("a positive number (the kernel at "
          .. "the base clocks with %s CUs)"):format(csv.number(probe.cus)), true)
        if not row.probe[column] then
          break
        end
      end
      for _, q in ipairs(row_err and {} or M.QUANTITIES) do
        if pos[q.column] and r[pos[q.column]] ~= "" then
          row[q.column], row_err = number_cell(r[pos[q.column]], where, q.column, "a positive number (" .. q.what
            .. ")", true)
          if not row[q.column] then
            break
          end
        end
      end
      for _, name in ipairs(row_err and {} or features) do
        row.counters[name], row_err = number_cell(r[pos[name]], where, name, "a number", false)
        if not row.counters[name] then
          break
        end
      end
      if row_err then
        problems[#problems + 1] = row_err
      else
        rows[#rows + 1] = row
      end
    end
  end
  if #problems > 0 then
    return nil, problems_text(problems)
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
  local header = { "kernel", "family", "cus", "core_mhz", "mem_mhz" }
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
      local row = { kname, self.family[k], c.cus, c.core_mhz, c.mem_mhz }
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
  return files.write(path, self:to_csv(comments))
end

return M
