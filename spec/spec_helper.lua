-- Helpers shared by the specs: where the build tree is, how to run the gpush
-- executable and capture what it prints, temporary files.
local M = {}

M.build_dir = os.getenv("GPUSH_BUILD_DIR") or "build"
M.gpush = M.build_dir .. "/bin/gpush"
M.shared = os.getenv("GPUSH_SHARED") or "../shared"

local function shell_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end
M.shell_quote = shell_quote

-- Runs a shell command with `input` (default: nothing) on its standard input;
-- returns exit code, stdout, stderr.
function M.run(command, env, input)
  local out, err = os.tmpname(), os.tmpname()
  local stdin = M.write_temp(input or "")
  local prefix = ""
  for k, v in pairs(env or {}) do
    prefix = prefix .. "export " .. k .. "=" .. shell_quote(v) .. "; "
  end
  local ok, _, code = os.execute(prefix .. "(" .. command .. ") >" .. out .. " 2>" .. err .. " <" .. stdin)
  os.remove(stdin)
  local function slurp(path)
    local f = assert(io.open(path, "rb"))
    local s = f:read("a")
    f:close()
    os.remove(path)
    return s
  end
  local stdout, stderr = slurp(out), slurp(err)
  return ok and 0 or code, stdout, stderr
end

-- Runs the build tree's gpush with the given argument list.
function M.gpush_run(args, env, input)
  local words = { shell_quote(M.gpush) }
  for _, a in ipairs(args) do
    words[#words + 1] = shell_quote(a)
  end
  return M.run(table.concat(words, " "), env, input)
end

-- Writes `text` to a fresh temporary file and returns its path.
function M.write_temp(text, suffix)
  local path = os.tmpname() .. (suffix or "")
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

-- The whole content of a file.
function M.read_file(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- A fresh temporary directory.
function M.temp_dir()
  local p = io.popen("mktemp -d")
  local dir = p:read("l")
  p:close()
  return dir
end

-- A copy of table `t` with the fields of `changes` replaced.
function M.with(t, changes)
  local c = {}
  for k, v in pairs(t) do
    c[k] = v
  end
  for k, v in pairs(changes) do
    c[k] = v
  end
  return c
end

-- Overrides that switch the GPU front end off (every launch.* parameter 0:
-- the specs of a kernel's body take it out), with launch.kernel_cycles =
-- kernel_cycles when given (the presets before issue 25 calibrated a front
-- end: a constant launch cost and nothing else), then the strings of `more`.
function M.no_front_end(kernel_cycles, more)
  local o = { "launch.kernel_cycles=" .. (kernel_cycles or 0), "launch.dispatch_cycles=0", "launch.block_cycles=0",
    "launch.warp_cycles=0", "launch.drain_cycles=0", "launch.warmup_cycles=0" }
  for _, m in ipairs(more or {}) do
    o[#o + 1] = m
  end
  return o
end

-- The same as gpush command-line arguments (-p KEY=VALUE each).
function M.no_front_end_args(kernel_cycles)
  local a = {}
  for _, o in ipairs(M.no_front_end(kernel_cycles)) do
    a[#a + 1] = "-p"
    a[#a + 1] = o
  end
  return a
end

-- A suite kernel with a smaller grid (default 96 blocks), for fast specs.
function M.small_kernel(name, grid)
  local workloads = require "gpush.workloads"
  local d = M.with(assert(workloads.get(name)), { grid = grid or 96 })
  return assert(workloads.kernel(d))
end

function M.have_shared_traces()
  local f = io.open(M.shared .. "/traces/SOURCES.md", "r")
  if f then
    f:close()
    return true
  end
  return false
end

-- A CSV's data rows (its first record the header) as tables keyed by the
-- header's names, numbers converted.
function M.csv_rows(text)
  local records = assert(require("gpush.csv").parse(text))
  local header, rows = records[1], {}
  for i = 2, #records do
    local row = {}
    for j, name in ipairs(header) do
      row[name] = tonumber(records[i][j]) or records[i][j]
    end
    rows[#rows + 1] = row
  end
  return rows
end

-- A kernel of the former suite (spec/fixtures/legacy_suite.lua: fixed
-- inputs for the specs that pin model numbers) built with another grid
-- (default its own).
function M.suite_kernel(name, grid)
  local workloads = require "gpush.workloads"
  local legacy = require "fixtures.legacy_suite"
  return assert(workloads.kernel(legacy.get(name, grid)))
end

-- The sum of a model result's CPI stack (it should equal the CPI).
function M.stack_sum(r)
  local s = 0
  for _, v in pairs(r.stack) do
    s = s + v
  end
  return s
end

return M
