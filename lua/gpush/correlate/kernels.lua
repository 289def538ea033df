-- gpush.correlate.kernels: what each row of a measured CSV ran, found
-- before any model runs (so every bad row is reported at once, with its
-- file and line) and built when a model needs it.
--
--   local src = assert(kernels.source(row, set))   -- checks the row
--   local kernel = assert(src.load())              -- builds or reads it
--
-- A row names a trace (and a launch), or a kernel: a microbenchmark shipped
-- with gpush (gpush.workloads.microbench), a Lua description file, or a
-- suite kernel (gpush.workloads).  See gpush.correlate.measured for the
-- columns and docs/correlate.md for the rules.
local microbench = require "gpush.workloads.microbench"
local measured = require "gpush.correlate.measured"
local text = require "gpush.text"
local trace = require "gpush.trace"
local workloads = require "gpush.workloads"

local M = {}

-- A path from a CSV cell: absolute as written, else relative to the CSV's
-- folder.
local function resolve_path(path, dir)
  if path:sub(1, 1) == "/" or not dir or dir == "." then
    return path
  end
  return dir .. "/" .. path
end

local function where(set, row)
  return ("%s:%d"):format(set.file, row.line)
end

local function dims_text(d)
  return table.concat(d, "x")
end

-- The launch headers of a trace: {launch, kernel, grid, block} in order, or
-- nil and a message.
local function launches_of(path)
  local t, err = trace.open(path)
  if not t then
    return nil, err
  end
  local list = {}
  while true do
    local launch, next_err = t.reader:next()
    if not launch then
      t:close()
      if next_err then
        return nil, next_err
      end
      return list
    end
    list[#list + 1] = launch
  end
end

-- A geometry the row gives must equal the one the trace recorded.
local function same_dims(a, b)
  return (a[1] or 1) == (b[1] or 1) and (a[2] or 1) == (b[2] or 1) and (a[3] or 1) == (b[3] or 1)
end

-- A trace row: the launch it names, checked against the trace's headers.
local function trace_source(row, set)
  local at = where(set, row)
  local path = resolve_path(row.trace, set.dir)
  local param = next(row.params)
  if param then
    return nil, ("%s: %s is a microbenchmark's parameter; a trace row takes none"):format(at, param)
  end
  local list, err = launches_of(path)
  if not list then
    return nil, ("%s: trace '%s': %s"):format(at, row.trace, err)
  end
  if #list == 0 then
    return nil, ("%s: trace '%s' holds no launch"):format(at, row.trace)
  end
  local chosen
  if row.launch then
    for _, l in ipairs(list) do
      if l.launch == row.launch then
        chosen = l
      end
    end
    if not chosen then
      return nil, ("%s: trace '%s' has no launch %d (its launches: %d to %d)"):format(at, row.trace, row.launch,
        list[1].launch, list[#list].launch)
    end
  elseif #list == 1 then
    chosen = list[1]
  else
    return nil, ("%s: trace '%s' holds %d launches: give the launch column (1 to %d)"):format(at, row.trace,
      #list, #list)
  end
  for _, c in ipairs { "grid", "block" } do
    if row[c] and not same_dims(row[c], chosen[c]) then
      return nil, ("%s: %s %s, but launch %d of trace '%s' ran %s %s: a trace's geometry is recorded, not"
        .. " chosen"):format(at, c, dims_text(row[c]), chosen.launch, row.trace, c, dims_text(chosen[c]))
    end
  end
  return {
    what = ("%s launch %d"):format(row.trace, chosen.launch),
    name = chosen.kernel,
    load = function()
      local t, open_err = trace.open(path)
      if not t then
        return nil, open_err
      end
      local ok, launch_or_err, kernel = pcall(t:kernels(chosen.launch, { keep = true }))
      t:close()
      if not ok then
        return nil, launch_or_err
      end
      if not kernel then
        return nil, ("trace '%s': launch %d is gone"):format(row.trace, chosen.launch)
      end
      return kernel
    end,
  }
end

-- The row's cells as a Lua description file's function sees them: numbers
-- where a cell reads as one, strings otherwise, empty cells absent; grid
-- and block as their lists.
local function cell_values(row)
  local values = {}
  for c, v in pairs(row.cells) do
    if v ~= "" then
      values[c] = measured.decimal(v) or v
    end
  end
  values.grid, values.block = row.grid, row.block
  return values
end

-- A Lua description file (gpush.workloads.load_file: a description, or a
-- function of the row's cells returning one; the file runs sandboxed).
local function lua_description(row, set, at)
  local path = resolve_path(row.kernel, set.dir)
  local desc, load_err = workloads.load_file(path, cell_values(row))
  if not desc then
    return nil, ("%s: kernel '%s': %s"):format(at, row.kernel, load_err)
  end
  local copy = {}
  for k, v in pairs(desc) do
    copy[k] = v
  end
  copy.name = copy.name or row.kernel:match("([^/]+)%.lua$")
  copy.grid = row.grid or copy.grid
  copy.block = row.block or copy.block
  return copy
end

-- The description a kernel row names, or nil and a message.
local function description(row, set)
  local at = where(set, row)
  local name = row.kernel
  if name:match("%.lua$") then
    return lua_description(row, set, at)
  end
  if microbench.get(name) then
    local p = {}
    for k, v in pairs(row.params) do
      p[k] = v
    end
    p.grid, p.block = row.grid, row.block
    local d, err = microbench.describe(name, p)
    if not d then
      return nil, ("%s: %s"):format(at, err)
    end
    return d
  end
  local suite_name = name:match("^suite:(.+)$") or name
  if workloads.get(suite_name) then
    local param = next(row.params)
    if param then
      return nil, ("%s: %s is a microbenchmark's parameter; suite kernel '%s' takes grid and block"):format(at,
        param, suite_name)
    end
    local p = {}
    if row.grid then
      p.grid = measured.product(row.grid)
    end
    if row.block then
      p.block = measured.product(row.block)
    end
    return workloads.make(suite_name, p)
  end
  local candidates = microbench.names()
  for _, n in ipairs(workloads.names()) do
    candidates[#candidates + 1] = n
  end
  local guess = text.closest(suite_name, candidates)
  return nil, ("%s: kernel '%s' is neither a microbenchmark (%s), a suite kernel (gpush workloads lists them)"
    .. " nor a .lua description file%s"):format(at, name, table.concat(microbench.names(), ", "),
    guess and (" (did you mean '" .. guess .. "'?)") or "")
end

-- A kernel row: its description, checked by compiling it.
local function kernel_source(row, set)
  local d, err = description(row, set)
  if not d then
    return nil, err
  end
  local ok, problem = pcall(workloads.compile, d)
  if not ok then
    return nil, ("%s: kernel '%s': %s"):format(where(set, row), row.kernel, tostring(problem))
  end
  local grid = type(d.grid) == "table" and d.grid or { d.grid or 1 }
  local block = type(d.block) == "table" and d.block or { d.block or 1 }
  return {
    what = ("%s %s x %s"):format(row.kernel, dims_text(grid), dims_text(block)),
    name = d.name,
    description = d,
    load = function()
      return workloads.kernel(d)
    end,
  }
end

-- What a row ran: { what (a short text), name (the kernel's name), load()
-- -> kernel or nil, message }, or nil and "FILE:LINE: message".
function M.source(row, set)
  if row.trace then
    return trace_source(row, set)
  end
  return kernel_source(row, set)
end

return M
