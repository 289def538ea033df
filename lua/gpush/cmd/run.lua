-- gpush run: a scenario by name, wherever it is installed.
--
--   gpush run NAME [args...]
--
-- NAME (kepler_sweep, or kepler_sweep.lua) is looked up in ./scenarios,
-- then beside gpush's modules (a source or build tree's scenarios/, an
-- installed tree's share/lua/5.4/gpush/scenarios); the script runs as
-- `gpush PATH args...` would run it: arg[0] is its path, arg[1..] the words
-- after NAME, and its exit code is gpush's.
local text = require "gpush.text"
local scenarios = require "gpush.cmd.scenarios"

local M = {}

M.usage = [[
usage: gpush run NAME [args...]
  Runs scenario NAME (as `gpush scenarios` lists them) with the arguments
  after it; `gpush run NAME --help` shows the scenario's own options.
]]

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local name = args[1]
  if name == nil or name == "--help" or name == "-h" then
    (name and out or err):write(M.usage)
    return name and 0 or 2
  end
  local path, known = scenarios.locate(name)
  if not path then
    local guess = text.closest(name:gsub("%.lua$", ""), known)
    err:write(("gpush run: no scenario '%s'%s; the scenarios: %s\n"):format(name,
      guess and (" (did you mean '" .. guess .. "'?)") or "", #known > 0 and table.concat(known, ", ")
      or "none found (run from the gpush source folder)"))
    return 2
  end
  local chunk, load_err = loadfile(path)
  if not chunk then
    err:write("gpush run: ", load_err, "\n")
    return 1
  end
  local script_args = { [0] = path }
  for i = 2, #args do
    script_args[i - 1] = args[i]
  end
  _G.arg = script_args
  chunk(table.unpack(script_args, 1, #script_args))
  return 0
end

return M
