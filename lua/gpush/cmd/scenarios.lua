-- gpush scenarios: the runnable studies shipped in scenarios/, with the
-- description each file starts with.
--
--   gpush scenarios [DIR]     (default: ./scenarios, else the one beside the modules)
local core = require "gpush.core"
local text = require "gpush.text"

local M = {}

-- The scenarios folders, in the order they are searched: the argument
-- alone when given, else ./scenarios and the one next to the modules
-- root: beside lua/ in a source or build tree, gpush/scenarios under the
-- modules of an installed tree (cmake --install, luarocks make).
function M.dirs(given)
  if given then
    return { given }
  end
  local list = {}
  if core.list_dir("scenarios") then
    list[#list + 1] = "scenarios"
  end
  local root = gpush_module_root and core.realpath(gpush_module_root) -- set by the executable
  if root then
    local beside = root:gsub("/[^/]+$", "") .. "/scenarios" -- lua/ and scenarios/ are siblings
    local here = core.realpath("scenarios")
    if core.list_dir(beside) and core.realpath(beside) ~= here then
      list[#list + 1] = beside
    end
    local installed = root .. "/gpush/scenarios"
    if core.list_dir(installed) then
      list[#list + 1] = installed
    end
  end
  return list
end

-- The path of scenario NAME (with or without .lua) in the first folder
-- that has it, or nil and the names there are (for a suggestion).
function M.locate(name)
  local file = name:match("%.lua$") and name or (name .. ".lua")
  local known = {}
  for _, dir in ipairs(M.dirs()) do
    for _, entry in ipairs(core.list_dir(dir) or {}) do
      if entry == file then
        return dir .. "/" .. entry
      end
      if entry:match("%.lua$") then
        known[#known + 1] = entry:gsub("%.lua$", "")
      end
    end
  end
  return nil, known
end

-- The description a scenario starts with: its first comment paragraph
-- (the `-- ` lines before the first empty `--` line), joined, without a
-- leading "scenarios/NAME.lua:".
function M.description(path)
  local f = io.open(path)
  if not f then
    return ""
  end
  local parts = {}
  for line in f:lines() do
    local body = line:match("^%-%-%s?(.*)$")
    if not body or not body:find("%S") then
      break
    end
    parts[#parts + 1] = body
  end
  f:close()
  return (table.concat(parts, " "):gsub("^scenarios/[%w_]+%.lua:%s*", ""):gsub("%s+", " "))
end

M.usage = [[
usage: gpush scenarios [DIR]
  Lists the runnable studies (Lua scripts) in DIR with the description each
  starts with.  DIR defaults to ./scenarios, else the scenarios beside
  gpush's modules: the source tree's, or share/lua/5.4/gpush/scenarios of a
  `cmake --install` or `luarocks make` tree (examples beside).  Run one with
  `gpush run NAME [options]` (or `gpush PATH/NAME.lua`); each takes --help.
  A scenario writes its outputs to --out DIR, by default to NAME_out/ in the
  current folder (git ignores *_out/ in a checkout).
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
  local dir = M.dirs(args[1])[1]
  local names = dir and core.list_dir(dir)
  if not names then
    err:write("gpush scenarios: no scenarios folder found", args[1] and (" at " .. args[1]) or
      " (run from the gpush source folder, or give DIR)", "\n")
    return 1
  end
  local rows = {}
  for _, name in ipairs(names) do
    if name:match("%.lua$") then
      rows[#rows + 1] = { name:gsub("%.lua$", ""), M.description(dir .. "/" .. name) }
    end
  end
  out:write(text.aligned_list(rows))
  out:write(("(in %s; run one with: gpush run NAME --help)\n"):format(dir))
  return 0
end

return M
