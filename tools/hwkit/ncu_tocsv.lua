-- Turns the records of tools/hwkit/ncu.sh (Nsight Compute's raw CSV and the
-- cases hwkit-ncu_front launched, in order) into gpush correlate's measured
-- CSV, the method of ../shared/calibration/h100-pcie/ (docs/hwkit.md,
-- "Nsight Compute rows").
--
--   gpush tools/hwkit/ncu_tocsv.lua NCU-RAW.csv CASES.txt OUT.csv
--        [--repeat NCU-RAW-2.csv] [--device NAME]
--
-- Each profiled launch is one row: kernel (empty or ffma_chain), iters, grid,
-- block, cycles = sm__cycles_elapsed.max (the kernel's duration in SM
-- cycles, the calibration rows' figure), core_mhz = the SM clock ncu saw
-- during the launch (sm__cycles_elapsed.avg.per_second), and ncu's other
-- figures as extra columns.  --repeat adds a second profiling run's cycles
-- (cycles_repeat: how well a row repeats).  ncu's records are paired with
-- the cases by launch order; a kernel name or geometry that disagrees with
-- its case is an error naming the record.
local csv = require "gpush.csv"
local staging = require "gpush.staging"

local usage = "usage: gpush tools/hwkit/ncu_tocsv.lua NCU-RAW.csv CASES.txt OUT.csv [--repeat NCU-RAW-2.csv]"
  .. " [--device NAME]\n"

local function fail(message)
  io.stderr:write("ncu_tocsv: ", message, "\n")
  os.exit(1)
end

local function read(path)
  local f, err = io.open(path, "rb")
  if not f then
    fail(err)
  end
  local text = f:read("a")
  f:close()
  return text
end

-- ncu's raw page: a header record, a units record, then one record per
-- profiled launch.  Lines ncu or the program print around it (==PROF==,
-- the program's own "case" lines) are not CSV records of ncu's and are
-- dropped first: ncu's records all start with a quote.
local function ncu_records(path)
  local lines = {}
  for line in read(path):gmatch("[^\n]+") do
    if line:sub(1, 1) == '"' then
      lines[#lines + 1] = line
    end
  end
  local records, err = csv.parse(table.concat(lines, "\n") .. "\n")
  if not records then
    fail(("%s: %s"):format(path, err))
  end
  if #records < 3 then
    fail(("%s: no profiled launches (a header, units and at least one record expected)"):format(path))
  end
  local header, out = records[1], {}
  for i = 3, #records do
    local r = {}
    for c, name in ipairs(header) do
      r[name] = records[i][c]
    end
    out[#out + 1] = r
  end
  return out
end

-- A figure of ncu's ("4,181" or "1,948,404,285.39"): thousands separators
-- dropped.
local function figure(record, name, where)
  local text = record[name]
  local n = text and tonumber((text:gsub(",", "")))
  if not n then
    fail(("%s: no number in column '%s' (got '%s')"):format(where, name, tostring(text)))
  end
  return n
end

-- The cases file: case<TAB>index<TAB>kernel<TAB>grid<TAB>block<TAB>iters.
local function cases(path)
  local out = {}
  local n = 0
  for line in read(path):gmatch("[^\n]+") do
    n = n + 1
    local index, kernel, grid, block, iters = line:match("^case\t(%d+)\t(%S+)\t(%d+)\t(%d+)\t(%d+)$")
    if not index then
      fail(("%s:%d: expected case<TAB>index<TAB>kernel<TAB>grid<TAB>block<TAB>iters"):format(path, n))
    end
    out[#out + 1] = { kernel = kernel, grid = tonumber(grid), block = tonumber(block), iters = tonumber(iters) }
  end
  return out
end

local args, opts = {}, {}
local i = 1
while arg[i] do
  if arg[i] == "--repeat" or arg[i] == "--device" then
    opts[arg[i]:sub(3)] = arg[i + 1] or fail(arg[i] .. " needs a value")
    i = i + 2
  elseif arg[i] == "--help" or arg[i] == "-h" then
    io.stdout:write(usage)
    os.exit(0)
  else
    args[#args + 1] = arg[i]
    i = i + 1
  end
end
if #args ~= 3 then
  io.stderr:write(usage)
  os.exit(2)
end
local raw_path, cases_path, out_path = args[1], args[2], args[3]

local list = cases(cases_path)
local records = ncu_records(raw_path)
if #records ~= #list then
  fail(("%s holds %d profiled launches, %s %d cases"):format(raw_path, #records, cases_path, #list))
end
local again = opts["repeat"] and ncu_records(opts["repeat"])
if again and #again ~= #list then
  fail(("%s holds %d profiled launches, %s %d cases"):format(opts["repeat"], #again, cases_path, #list))
end

local columns = { "kernel", "iters", "grid", "block", "cycles", "core_mhz", "label", "method", "sm_cycles_avg",
  "gpc_cycles_max", "duration_ns", "smsp_cycles_active_avg", "cycles_repeat" }
local lines = {
  "# gpush hardware kit (tools/hwkit): Nsight Compute rows" .. (opts.device and (", " .. opts.device) or ""),
  "# cycles = sm__cycles_elapsed.max, core_mhz = sm__cycles_elapsed.avg.per_second / 1e6; ncu --clock-control"
    .. " none (clocks as found); docs/hwkit.md",
  csv.line(columns, #columns),
}
for n, case in ipairs(list) do
  local r = records[n]
  local where = ("%s: record %d (case %d)"):format(raw_path, n, n)
  local name = (r["Kernel Name"] or ""):match("^([%w_]+)")
  if name ~= case.kernel then
    fail(("%s: kernel '%s' where the case launched '%s'"):format(where, tostring(r["Kernel Name"]), case.kernel))
  end
  local grid = tonumber((r["Grid Size"] or ""):match("^%((%d+),"))
  local block = tonumber((r["Block Size"] or ""):match("^%((%d+),"))
  if grid ~= case.grid or block ~= case.block then
    fail(("%s: geometry %s x %s where the case launched %d x %d"):format(where, tostring(r["Grid Size"]),
      tostring(r["Block Size"]), case.grid, case.block))
  end
  local row = {
    case.kernel, case.kernel == "ffma_chain" and case.iters or "", case.grid, case.block,
    figure(r, "sm__cycles_elapsed.max", where),
    math.floor(figure(r, "sm__cycles_elapsed.avg.per_second", where) / 1e4 + 0.5) / 100,
    case.kernel == "empty" and "empty kernel (ncu)" or "ffma chain (ncu)", "ncu",
    figure(r, "sm__cycles_elapsed.avg", where), figure(r, "gpc__cycles_elapsed.max", where),
    figure(r, "gpu__time_duration.sum", where), figure(r, "smsp__cycles_active.avg", where),
    again and figure(again[n], "sm__cycles_elapsed.max", ("%s: record %d"):format(opts["repeat"], n)) or "",
  }
  lines[#lines + 1] = csv.line(row, #columns)
end

local stage, err = staging.file(out_path)
if not stage then
  fail(err)
end
local ok, write_err = staging.write(stage.path, table.concat(lines, "\n") .. "\n")
if not ok then
  stage:abort()
  fail(write_err)
end
assert(stage:commit())
print(("ncu_tocsv: %d rows -> %s"):format(#list, out_path))
