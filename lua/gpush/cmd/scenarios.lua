-- gpush scenarios: the runnable studies shipped in scenarios/, with the
-- one-line description each file starts with.
--
--   gpush scenarios [DIR]     (default: ./scenarios, else the one beside the modules)
local core = require "gpush.core"

local M = {}

-- The scenarios folder: the argument, ./scenarios, or next to the modules
-- root of a source or build tree.
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
  end
end

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  if #args > 1 then
    err:write("usage: gpush scenarios [DIR]\n")
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
  return 0
end

return M
