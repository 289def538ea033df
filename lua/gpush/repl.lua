-- gpush.repl: what the interactive prompt (`gpush -i`) adds to plain Lua:
-- `help`, gpush's modules as globals (config.load("a100") works as typed),
-- completion of Lua names for the Tab key, and how a line's results are
-- shown (a `nil, message` return prints its message).  The executable
-- (csrc/gpush.c) calls setup() once, complete(word) on Tab and show(...)
-- with each line's results.
local M = {}

-- The modules a user reaches from the prompt, as gpush.NAME and as the
-- global NAME (loaded on first use).
M.MODULES = { "config", "trace", "workloads", "models", "gpumech", "sim", "bounds", "memsim", "roofline",
  "experiment", "results", "occupancy", "accelsim", "json", "text" }

local module_set = {}
for _, name in ipairs(M.MODULES) do
  module_set[name] = true
end

M.HELP = [[
gpush -i: Lua 5.4 with gpush loaded.
  gpush               the module; gpush.config, gpush.trace, ... load on first use
  config, trace, workloads, models, gpumech, sim, bounds, memsim, roofline,
  experiment, results, occupancy, accelsim, json, text
                      the same modules as globals
  help(x)             the fields of a module or table x, e.g. help(config)
  Tab                 completes names: globals, gpush.NAME, module fields (config.lo<Tab>)
  A call that returns nil and a message prints the message; Ctrl-C interrupts
  the running line, Ctrl-D leaves.
Try:
  cfg = config.load("gtx660ti", { "l1.mshrs=64" })
  k = workloads.kernel(workloads.get("stream_triad"))
  r = gpumech.predict(k, cfg, { policy = "gto" }); print(r.cycles, r.ipc)
  config.load("a10")  -- a misspelt preset: the message says what exists
Reference: README.md ("From Lua") and docs/*.md.]]

-- The sorted string keys of t that are Lua names.
local function names_of(t, out, seen)
  for k in pairs(t) do
    if type(k) == "string" and k:match("^[%a_][%w_]*$") and not seen[k] then
      seen[k] = true
      out[#out + 1] = k
    end
  end
end

-- The fields a value offers to `.` or `:`: a table's keys (and, for the
-- gpush module, the modules not loaded yet), and the methods its
-- metatable's __index table holds (a kernel's, a trace's).
local function fields_of(v, gpush)
  local out, seen = {}, {}
  if type(v) == "table" then
    names_of(v, out, seen)
    if v == gpush then
      names_of(module_set, out, seen)
    end
  end
  local mt = (type(v) == "table" or type(v) == "userdata") and getmetatable(v)
  if type(mt) == "table" and type(rawget(mt, "__index")) == "table" then
    names_of(mt.__index, out, seen)
  end
  table.sort(out)
  return out
end

-- help: typing `help` prints the text above; help(x) lists x's fields with
-- their types.
local function help_object(gpush)
  return setmetatable({}, {
    __name = "help",
    __tostring = function()
      return M.HELP
    end,
    __call = function(_, x)
      if x == nil then
        print(M.HELP)
        return
      end
      local lines = {}
      for _, name in ipairs(fields_of(x, gpush)) do
        local ok, value = pcall(function() return x[name] end)
        lines[#lines + 1] = ("  %-24s %s"):format(name, ok and type(value) or "?")
      end
      print(#lines > 0 and table.concat(lines, "\n") or ("(a " .. type(x) .. " with no named fields)"))
    end,
  })
end

-- Installs help and the module globals into env (default _G).
function M.setup(env)
  env = env or _G
  local gpush = require "gpush"
  env.gpush = gpush
  env.help = help_object(gpush)
  local mt = getmetatable(env) or {}
  local previous = mt.__index
  mt.__index = function(t, name)
    if module_set[name] then
      return gpush[name]
    end
    if type(previous) == "function" then
      return previous(t, name)
    elseif type(previous) == "table" then
      return previous[name]
    end
  end
  setmetatable(env, mt)
end

-- Completions of `word` (the Lua name under the cursor: `conf`,
-- `gpush.con`, `k:wa`): every global, field or method that starts with
-- what was typed, as the whole word.  Walking a dotted prefix only indexes
-- (a gpush module loads); nothing is called.
function M.complete(word, env)
  env = env or _G
  local gpush = rawget(env, "gpush")
  local head, sep, partial = word:match("^(.-)([.:])([%w_]*)$")
  local candidates
  if head then
    local v = env
    for part in head:gmatch("[^.:]+") do
      if not part:match("^[%a_][%w_]*$") then
        return {}
      end
      local ok, value = pcall(function() return v[part] end)
      if not ok or (type(value) ~= "table" and type(value) ~= "userdata") then
        return {}
      end
      v = value
    end
    candidates = fields_of(v, gpush)
  else
    head, sep, partial = "", "", word
    candidates = {}
    local seen = {}
    names_of(env, candidates, seen)
    names_of(module_set, candidates, seen)
    table.sort(candidates)
  end
  local out = {}
  for _, name in ipairs(candidates) do
    if name:sub(1, #partial) == partial then
      out[#out + 1] = head .. sep .. name
    end
  end
  return out
end

-- Prints a line's results as print() would, except that `nil, message` (a
-- gpush call's way of failing) shows the message as one.
function M.show(...)
  local n = select("#", ...)
  local first, second = ...
  if n == 2 and first == nil and type(second) == "string" then
    print("nil -- " .. second)
  elseif n > 0 then
    print(...)
  end
end

return M
