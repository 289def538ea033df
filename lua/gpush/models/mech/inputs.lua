-- gpush.models.mech.inputs: workload inputs from a YAML or Lua file.
--
--   local sets = assert(inputs.load("saxpy.yaml"))
--   for _, set in ipairs(sets) do print(set.name, core:predict(set.inputs).cycles) end
--
-- A file holds one set of inputs (a mapping of Table 4.1 / 4.2 names to
-- values) or a list of sets; a set may carry `name` (a label for reports).
-- A Lua file returns the same shape as a table.  Names and values are checked
-- against gpush.models.mech.params at load time, so a YAML mistake is
-- reported at its line and column; whether a model has every input it needs
-- is checked when it predicts.
local text = require "gpush.text"
local core = require "gpush.core"
local framework = require "gpush.models.mech.framework"
local params = require "gpush.models.mech.params"

local M = {}

local function input_names()
  local names = {}
  for _, d in ipairs(params.inputs.list) do
    names[#names + 1] = d.name
  end
  return names
end

-- Checks one set (a table) at `path` ("" or "[2]"); `place(path)` says where.
local function check_set(set, path, place, index)
  if type(set) ~= "table" or (#set > 0) then
    framework.fail(("%s: input set %d: expected a mapping of input names to values"):format(place(path), index))
  end
  local out = { name = ("input %d"):format(index), inputs = {} }
  local prefix = path == "" and "" or path .. "."
  for k, v in pairs(set) do
    if k == "name" then
      if type(v) ~= "string" then
        framework.fail(("%s: 'name' must be a string"):format(place(prefix .. "name")))
      end
      out.name = v
    else
      local decl = params.inputs.by_name[k]
      if not decl then
        local guess = text.closest(tostring(k), input_names())
        framework.fail(("%s: unknown input '%s'%s"):format(place(prefix .. tostring(k), true), tostring(k),
          guess and (" (did you mean '" .. guess .. "'?)") or ""))
      end
      local ok, err = params.check(decl, v)
      if ok == nil then
        framework.fail(("%s: input '%s' (%s): %s"):format(place(prefix .. k), k, decl.desc, err))
      end
      out.inputs[k] = ok
    end
  end
  return out
end

local function sets_of(value, place)
  local list = {}
  if type(value) == "table" and #value > 0 then
    for i, set in ipairs(value) do
      list[i] = check_set(set, ("[%d]"):format(i), place, i)
    end
  else
    list[1] = check_set(value, "", place, 1)
  end
  return list
end

local function load_yaml(path)
  local tree, positions = core.yaml_load(path)
  if tree == nil then
    framework.fail(positions)
  end
  return sets_of(tree, function(p, at_key)
    return framework.where(path, positions, p, at_key)
  end)
end

local function load_lua(path)
  local chunk, err = loadfile(path, "t", { math = math })
  if not chunk then
    framework.fail(err)
  end
  local ok, value = pcall(chunk)
  if not ok then
    framework.fail(("%s: %s"):format(path, tostring(value)))
  end
  return sets_of(value, function(p)
    return p == "" and path or ("%s: set %s"):format(path, p)
  end)
end

-- Reads a .yaml/.yml or .lua file of inputs; returns a list of
-- { name =, inputs = } or nil, message (file:line:column for YAML).
function M.load(path)
  if type(path) ~= "string" then
    error("gpush.mech.inputs.load: expected a path, got " .. type(path), 2)
  end
  local f = io.open(path, "r")
  if not f then
    return nil, ("%s: cannot open the input file"):format(path)
  end
  f:close()
  if path:match("%.lua$") then
    return framework.protect(load_lua, path)
  end
  return framework.protect(load_yaml, path)
end

-- Checks a Lua table of inputs (one set or a list) as load() does.
function M.from_table(t)
  return framework.protect(sets_of, t, function(p) return p == "" and "inputs" or "inputs" .. p end)
end

return M
