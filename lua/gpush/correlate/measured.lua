-- gpush.correlate.measured: the measured-cycles CSV `gpush correlate` reads
-- (docs/correlate.md, "The measured CSV"), parsed and checked row by row.
--
--   local set = assert(measured.read("empty-kernels.csv"))
--   set.rows[1].cycles, set.rows[1].kernel, set.rows[1].grid, set.rows[1].line
--
-- A header line names the columns, in any order; each later record is one
-- measurement:
--   trace     a trace (folder, kernelslist.g, .traceg[.gz|.xz], .gpt),
--             absolute or relative to the CSV's folder, with
--   launch    the launch number (`gpush trace info` prints it; 1-based),
--             optional when the trace holds one launch; or
--   kernel    a microbenchmark shipped with gpush (empty, ffma_chain: see
--             gpush.workloads.microbench), a suite kernel (`gpush
--             workloads`; also as suite:NAME) or a Lua description file
--             (NAME.lua, relative to the CSV's folder)
--   grid, block  the launch geometry of a kernel row (a number, XxYxZ or
--             "(x, y, z)"); on a trace row a check against the trace
--   iters ... a microbenchmark's own parameters
--   cycles    required: the measured cycles (> 0, at most 1e15)
--   core_mhz, mem_mhz  the clocks the row ran at (absent: the preset's)
--   label     a name for tables and plots
-- Every other column is carried through to the outputs.  An empty cell is
-- a value not given; a record whose cells are all empty, and '#' comment
-- lines, are skipped.  Every problem is reported as FILE:LINE: what was
-- expected.  Nothing here opens a trace or builds a kernel
-- (gpush.correlate.kernels does); parse() reads text alone, so the fuzzer
-- drives it directly (tests/fuzz/fuzz_measured.c).
local csv = require "gpush.csv"
local microbench = require "gpush.workloads.microbench"

local M = {}

-- Columns gpush reads itself; the microbenchmarks' parameters are read too.
M.KNOWN = { "trace", "launch", "kernel", "grid", "block", "cycles", "core_mhz", "mem_mhz", "label" }
-- Column names the outputs use for what they add; an input may not take them.
M.RESERVED = { "set", "file", "line", "kernel_name", "measured" }

local known, reserved, params = {}, {}, {}
for _, c in ipairs(M.KNOWN) do
  known[c] = true
end
for _, c in ipairs(M.RESERVED) do
  reserved[c] = true
end
for _, p in ipairs(microbench.param_names()) do
  params[p] = true
end

-- A plain decimal number (no hex, no inf or nan) from a cell, or nil.
local function decimal(text)
  local t = text:match("^%s*(.-)%s*$")
  if not t:match("^[+-]?%d*%.?%d*[eE]?[+-]?%d*$") or not t:find("%d") then
    return nil
  end
  local n = tonumber(t)
  if not n or n ~= n or n == math.huge or n == -math.huge then
    return nil
  end
  return n
end
M.decimal = decimal

-- Geometry: "N", "XxYxZ" (1 to 3 factors) or "(x, y, z)"; a list of
-- positive integers, or nil.
local function dims(text)
  local t = text:match("^%s*%((.*)%)%s*$") or text
  local out = {}
  for part in (t .. ","):gmatch("([^,xX]*)[,xX]") do
    local n = decimal(part)
    if not n or n < 1 or n ~= math.floor(n) or n > 2 ^ 31 then
      return nil
    end
    out[#out + 1] = math.tointeger(n)
  end
  if #out < 1 or #out > 3 then
    return nil
  end
  return out
end
M.dims = dims

local function product(list)
  local p = 1
  for _, v in ipairs(list) do
    p = p * v
  end
  return p
end
M.product = product

-- Raised inside parse and turned into nil, message.
local function fail(name, line, fmt, ...)
  error({ measured_error = ("%s:%s: " .. fmt):format(name, line, ...) }, 0)
end

-- Checks the header (the names of the columns, on line `line`).
local function check_header(name, header, line)
  local seen = {}
  for i, c in ipairs(header) do
    if c == "" then
      fail(name, line, "column %d has no name: expected a header naming every column", i)
    end
    if seen[c] then
      fail(name, line, "column '%s' appears twice", c)
    end
    if reserved[c] then
      fail(name, line, "column '%s' is a name the outputs use for their own columns (%s): rename it", c,
        table.concat(M.RESERVED, ", "))
    end
    seen[c] = i
  end
  if not seen.cycles then
    fail(name, line, "no 'cycles' column: expected the measured cycles of each row (columns: %s)",
      table.concat(header, ", "))
  end
  if not seen.trace and not seen.kernel then
    fail(name, line, "no 'trace' or 'kernel' column: each row names what was measured by one of them")
  end
  if seen.launch and not seen.trace then
    fail(name, line, "a 'launch' column without a 'trace' column: launch picks one launch of a trace")
  end
end

-- The most cycles a row may give: 11 days at 1 GHz; beyond, sums of
-- squares in the metrics could overflow a double.
M.MAX_CYCLES = 1e15

-- A positive number from cell `c` of a row (at most `max`), or nil when the
-- cell is empty.
local function positive(name, line, cells, c, what, max)
  local text = cells[c]
  if text == nil or text:match("^%s*$") then
    return nil
  end
  local n = decimal(text)
  if not n or n <= 0 or (max and n > max) then
    fail(name, line, "column '%s': expected %s, got '%s'", c, what, text)
  end
  return n
end

-- One record into a row.
local function row_of(name, line, header, record)
  local cells, given = {}, false
  for i, c in ipairs(header) do
    local v = record[i]
    cells[c] = v
    if v ~= "" then
      given = true
    end
  end
  if not given then
    return nil
  end
  local row = { line = line, cells = cells, params = {} }
  local function text(c)
    local v = cells[c]
    if v == nil then
      return nil
    end
    v = v:match("^%s*(.-)%s*$")
    return v ~= "" and v or nil
  end
  row.trace, row.kernel, row.label = text("trace"), text("kernel"), text("label")
  if row.trace and row.kernel then
    fail(name, line, "both trace '%s' and kernel '%s': a row names what was measured by one of them",
      row.trace, row.kernel)
  elseif not row.trace and not row.kernel then
    fail(name, line, "neither a trace nor a kernel: expected one of them to name what was measured")
  end
  row.cycles = positive(name, line, cells, "cycles", "a positive number of cycles (at most 1e15)", M.MAX_CYCLES)
  if not row.cycles then
    fail(name, line, "no cycles: expected the measured cycles (a positive number)")
  end
  row.core_mhz = positive(name, line, cells, "core_mhz", "a positive clock in MHz")
  row.mem_mhz = positive(name, line, cells, "mem_mhz", "a positive clock in MHz")
  local launch = text("launch")
  if launch then
    local n = decimal(launch)
    if not n or n < 1 or n ~= math.floor(n) or n > 2 ^ 31 then
      fail(name, line, "column 'launch': expected a launch number (1, 2, ...), got '%s'", launch)
    end
    if not row.trace then
      fail(name, line, "launch %s without a trace: launch picks one launch of the row's trace", launch)
    end
    row.launch = math.tointeger(n)
  end
  for _, c in ipairs { "grid", "block" } do
    local v = text(c)
    if v then
      row[c] = dims(v)
      if not row[c] then
        fail(name, line, "column '%s': expected a number of %s, XxYxZ or (x, y, z), got '%s'", c,
          c == "grid" and "blocks" or "threads", v)
      end
    end
  end
  for c in pairs(params) do
    local v = text(c)
    if v then
      local n = decimal(v)
      if not n then
        fail(name, line, "column '%s': expected a number, got '%s'", c, v)
      end
      row.params[c] = n
    end
  end
  return row
end

-- Parses measured-CSV text; `name` (the file's path) prefixes messages.
-- Returns { file = name, columns = header list, extra = the columns carried
-- through (in header order), params = the microbenchmark parameter columns
-- present, rows = {...} }, or nil and "NAME:LINE: message".
function M.parse(text, name)
  name = name or "measured.csv"
  if type(text) ~= "string" then
    error("gpush.correlate.measured.parse: expected CSV text", 2)
  end
  if text:sub(1, 3) == "\239\187\191" then -- a UTF-8 byte-order mark (spreadsheet exports)
    text = text:sub(4)
  end
  if text:find("%z") then
    return nil, ("%s: a NUL byte: expected CSV text"):format(name)
  end
  local records, comments, lines = csv.parse(text)
  if not records then
    return nil, ("%s:%s"):format(name, (comments:gsub("^line ", "")))
  end
  local ok, result = pcall(function()
    local first = 1
    while records[first] and #records[first] == 1 and records[first][1]:match("^%s*$") do
      first = first + 1
    end
    local header = records[first]
    if not header then
      error({ measured_error = ("%s: no header line: expected a CSV header naming the columns (cycles, and"
        .. " trace or kernel)"):format(name) }, 0)
    end
    for i, c in ipairs(header) do
      header[i] = c:match("^%s*(.-)%s*$")
    end
    check_header(name, header, lines[first])
    local set = { file = name, columns = header, extra = {}, params = {}, rows = {} }
    for _, c in ipairs(header) do
      if params[c] then
        set.params[#set.params + 1] = c
      elseif not known[c] then
        set.extra[#set.extra + 1] = c
      end
    end
    for i = first + 1, #records do
      local record, line = records[i], lines[i]
      if #record ~= #header and not (#record == 1 and record[1] == "") then
        fail(name, line, "%d fields: expected %d, as the header has", #record, #header)
      end
      if #record == #header then
        local row = row_of(name, line, header, record)
        if row then
          set.rows[#set.rows + 1] = row
        end
      end
    end
    if #set.rows == 0 then
      error({ measured_error = ("%s: no measurements: expected rows after the header line %d"):format(name,
        lines[first]) }, 0)
    end
    return set
  end)
  if ok then
    return result
  end
  if type(result) == "table" and result.measured_error then
    return nil, result.measured_error
  end
  error(result, 0)
end

-- Reads and parses a measured CSV file; the set's `dir` is its folder
-- (trace and .lua paths are relative to it).  Returns the set or nil,
-- message.
function M.read(path)
  local f, err = io.open(path, "rb")
  if not f then
    return nil, ("%s: cannot open: %s"):format(path, tostring(err):gsub("^" .. path:gsub("%p", "%%%0") .. ": ", ""))
  end
  local text = f:read("a")
  f:close()
  if not text then
    return nil, ("%s: cannot read"):format(path)
  end
  local set, problem = M.parse(text, path)
  if not set then
    return nil, problem
  end
  set.dir = path:match("^(.*)/[^/]*$") or "."
  return set
end

return M
