-- gpush.models: every model family behind one contract and one registry.
--
--   local models = require "gpush.models"
--   local rr = models.get("gpumech", { policy = "rr" })   -- a model (the contract below)
--   models.names()                                        --> { "gpumech", "sim", ... }
--   models.family("sim").STALL_REASONS                    -- the family's own module
--   models.register("bottleneck", require "models.bottleneck")  -- a user's Lua model
--
-- The model contract (what gpush.experiment runs, and what models.get
-- returns): a table
--   name     string, the row's `model` column ("gpumech-rr");
--   run      function(kernel, cfg, prepared, cache, ctx) -> result table (flat
--            or nested numbers, strings, booleans), or nil, message;
--   prepare  optional function(kernel, base_cfg, cache, ctx) -> prepared:
--            per-kernel work independent of the swept parameters, done once
--            per kernel on the sweep's base configuration;
--   columns  optional list, the order of its result fields in tables.
-- `cache` is one table per kernel shared by every model and point (GPUMech
-- keeps its memory replays there); ctx = { seed, workload, kernel, launch }.
-- prepare and run signal failure by raising or returning nil, message.
--
-- A family is a module registered under a name: either a table with
-- new(opts) -> model (opts are the family's options: policy, ...), or a
-- model itself (a table with run; models.get then returns it and takes no
-- options).  A family also exports its own categories and labels, so that
-- nothing outside it spells them again: GPUMech its CPI stack (STACK) and
-- dominant(stack), the simulator STALL_REASONS, STALL_LABELS and
-- dominant(stalls); and how they map onto the one bottleneck vocabulary
-- (gpush.models.vocabulary): BOTTLENECK and bottleneck(...).  The built-in families below load on first use; a new
-- family shipped with gpush adds one line to `builtin`, a user's module calls
-- models.register.  docs/models.md describes both.
local M = {}

-- Name -> module path of the families shipped with gpush.
local builtin = {
  gpumech = "gpush.models.gpumech", -- GPUMech (Huang et al., MICRO 2014): docs/gpumech.md
  sim = "gpush.models.sim",         -- the abstract timing simulator (GATSim-style): docs/sim.md
  surface = "gpush.models.surface", -- scaling surfaces (Wu et al., HPCA 2015): docs/ml.md
  mcore = "gpush.models.mech.mcore", -- Blem's M-core over GPUPerf / MWP-CWP: docs/mech.md
  score = "gpush.models.mech.score", -- Blem's S-cores (workload inputs, not kernels): docs/mech.md
  bounds = "gpush.models.bounds",   -- first-principles lower bounds (gpush.bounds): docs/bounds.md
}

local registered = {} -- name -> family module

local function fail(message, level)
  error("gpush.models: " .. message, level + 1)
end

-- Checks one model against the contract; `where` names it in the message
-- ("models[2]").  Returns true, or nil and what is wrong.
function M.check(model, where)
  if type(model) ~= "table" or type(model.name) ~= "string" or type(model.run) ~= "function" then
    return nil, ("%s needs a name (string) and run (function)"):format(where)
  end
  if model.prepare ~= nil and type(model.prepare) ~= "function" then
    return nil, ("model '%s': prepare must be a function"):format(model.name)
  end
  return true
end

local function is_family(module)
  return type(module) == "table" and (type(module.new) == "function" or type(module.run) == "function")
end

-- Registers a family (or a single model) under `name`, replacing a
-- registration of the same name; `module` is the module table or the name to
-- require on first use.  Raises on misuse.
function M.register(name, module)
  if type(name) ~= "string" or not name:match("^[%w_%-]+$") then
    fail(("register: the name must be a word (letters, digits, _ and -), got '%s'"):format(tostring(name)), 2)
  end
  if type(module) == "string" then
    builtin[name], registered[name] = module, nil
    return
  end
  if not is_family(module) then
    fail(("register '%s': expected a family with new(opts) or a model with run, got a %s")
      :format(name, type(module)), 2)
  end
  registered[name] = module
end

-- The module registered as `name`, or nil and a message naming the known
-- families.
function M.family(name)
  local module = registered[name]
  if module then
    return module
  end
  local path = builtin[name]
  if not path then
    return nil, ("unknown model family '%s' (known: %s)"):format(tostring(name), table.concat(M.names(), ", "))
  end
  module = require(path)
  if not is_family(module) then
    return nil, ("model family '%s': module '%s' has neither new(opts) nor run"):format(name, path)
  end
  registered[name] = module
  return module
end

-- A model of family `name` with the family's options: new(opts), or the
-- registered model itself.  Raises on an unknown name or a model breaking
-- the contract (misuse, like any bad argument).
function M.get(name, opts)
  local module, err = M.family(name)
  if not module then
    fail(err, 2)
  end
  local model = module
  if type(module.new) == "function" then
    model = module.new(opts or {})
  elseif opts ~= nil and next(opts) ~= nil then
    fail(("model '%s' takes no options"):format(name), 2)
  end
  local ok, problem = M.check(model, ("model family '%s': new(opts)"):format(name))
  if not ok then
    fail(problem, 2)
  end
  return model
end

-- The registered family names, sorted.
function M.names()
  local seen, list = {}, {}
  for _, t in ipairs { builtin, registered } do
    for name in pairs(t) do
      if not seen[name] then
        seen[name] = true
        list[#list + 1] = name
      end
    end
  end
  table.sort(list)
  return list
end

-- Shorthand constructors: M.by_name.gpumech(opts) is M.get("gpumech", opts)
-- (what gpush.experiment offers as experiment.models).
M.by_name = setmetatable({}, {
  __index = function(_, name)
    if not builtin[name] and not registered[name] then
      return nil
    end
    return function(opts)
      return M.get(name, opts)
    end
  end,
})

return M
