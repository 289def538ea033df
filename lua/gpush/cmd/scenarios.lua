-- gpush scenarios: the runnable studies shipped in scenarios/, with the
-- one-line description each file starts with.
--
--   gpush scenarios [DIR]     (default: ./scenarios, else the one beside the modules)
local core = require "gpush.core"

local M = {}

-- The scenarios folder: the argument, ./scenarios, or next to the modules
-- root: beside lua/ in a source or build tree, gpush/scenarios under the
-- modules of an installed tree (cmake --install, luarocks make).
local function find_dir(given)
  if given then
    return given
  end
  if core.list_dir("scenarios") then
    return "scenarios"
  end
  local root = gpush_module_root and core.realpath(gpush_module_root) -- set by the executable
  if root then
    local beside = root:gsub("/[^/]+$", "") .. "/scenarios" -- lua/ and scenarios/ are siblings
    if core.list_dir(beside) then
      return beside
    end
    local installed = root .. "/gpush/scenarios"
    if core.list_dir(installed) then
      return installed
    end
  end
end

M.usage = [[
usage: gpush scenarios [DIR]
  Lists the runnable studies (Lua scripts) in DIR with the one-line
  description each starts with.  DIR defaults to ./scenarios, else the
  scenarios beside gpush's modules: the source tree's, or share/lua/5.4/gpush/
  scenarios of a `cmake --install` or `luarocks make` tree (examples beside).  Run one with `gpush DIR/NAME.lua [options]`; each
  takes --help.  A scenario writes its outputs to --out DIR, by default to
  NAME_out/ in the current folder (git ignores *_out/ in a checkout).
]]

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  if args[1] == "--help" or args[1] == "-h" then
    out:write(M.usage)
    return 0
  end
  if #args > 1 or (args[1] and args[1]:match("^%-")) then
    err:write("gpush scenarios: ", #args > 1 and "give at most one DIR" or ("unknown option '" .. args[1] .. "'"),
      "\n", M.usage)
    return 2
  end
  local dir = find_dir(args[1])
  local names = dir and core.list_dir(dir)
  if not names then
    err:write("gpush scenarios: no scenarios folder found", args[1] and (" at " .. args[1]) or
      " (run from the gpush source folder, or give DIR)", "\n")
    return 1
  end
  for _, name in ipairs(names) do
    if name:match("%.lua$") then
      local f = assert(io.open(dir .. "/" .. name))
      local first = f:read("l") or ""
      f:close()
      local summary = first:match("^%-%-%s*(.-)%s*$") or ""
      summary = summary:gsub("^scenarios/[%w_]+%.lua:%s*", "")
      out:write(("%-20s %s\n"):format(name, summary))
    end
  end
  out:write(("(in %s; run one with: gpush %s/NAME.lua --help)\n"):format(dir, dir))
  return 0
end

return M
