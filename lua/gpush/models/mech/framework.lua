-- gpush.models.mech.framework: a core model as an ordered list of modules
-- over Blem's T = T_comp + T_mem + T_control - T_overlap (Eq. 4.1; Eq. 4.2 for
-- S-cores, Eq. 4.4 for M-cores).
--
--   local m = framework.module {
--     name = "l3", description = "...", source = "Blem Sec. 4.2.1",
--     inputs = { "N_mL2", "N_mL3" },          -- workload inputs it reads
--     params = { "t_l3" },                    -- hardware parameters it reads
--     adds = { "comp" },                      -- terms it may add to
--     latency = function(s) s.q.latency_sum = s.q.latency_sum + ... end,
--   }
--
-- A module's hooks are named by phase and run phase by phase, each phase in
-- the model's module order: setup (the base sets its quantities), counts
-- (instruction counts), latency (latencies, issue rates), memory (memory
-- quantities), terms (the base's terms), serial (terms added after the base:
-- W_serial, T_control, ...), bounds (throughput floors over what the terms
-- hold so far), overlap (the base's T_overlap, last).  A hook
-- reads s.input.NAME and s.hw.NAME (only what the module declares: reading
-- anything else raises, so a module's declaration is its interface), shares
-- intermediate values through s.q, adds cycles with s:add(term, cycles) and
-- notes problems with s:warn(message).
--
-- Inputs and parameters are names from gpush.models.mech.params, or inline
-- declarations ({ "N_tensor", "number", min = 0, unit = ..., desc = ... };
-- a parameter with a default) for modules written outside the family.
-- A module with base = true is part of the core's base model and cannot be
-- removed; the others can, and every prediction reports each one's marginal
-- effect (cycles with it minus cycles without it) next to what it added.
local config = require "gpush.config"
local text = require "gpush.text"
local params = require "gpush.models.mech.params"

local M = {}

-- A shallow copy of a table.
local function copy(t)
  local c = {}
  for k, v in pairs(t) do
    c[k] = v
  end
  return c
end

M.PHASES = { "setup", "counts", "latency", "memory", "terms", "serial", "bounds", "overlap" }
M.TERMS = { "comp", "mem", "control", "overlap" }
local is_phase, is_term = {}, {}
for _, p in ipairs(M.PHASES) do
  is_phase[p] = true
end
for _, t in ipairs(M.TERMS) do
  is_term[t] = true
end

-- Modules ----------------------------------------------------------------------------

-- Resolves a list of names or inline declarations against a registry.
local function declarations(list, registry, what, module_name)
  local out = {}
  for i, item in ipairs(list or {}) do
    local decl
    if type(item) == "string" then
      decl = registry.by_name[item]
      if not decl then
        local names = {}
        for _, d in ipairs(registry.list) do
          names[#names + 1] = d.name
        end
        local guess = text.closest(item, names)
        error(("gpush.mech: module '%s' declares unknown %s '%s'%s"):format(module_name, what, item,
          guess and (" (did you mean '" .. guess .. "'?)") or ""), 4)
      end
    elseif type(item) == "table" and type(item[1]) == "string" and type(item[2]) == "string" then
      decl = copy(item)
      decl.name, decl.type = item[1], item[2]
      if type(decl.desc) ~= "string" or decl.unit == nil then
        error(("gpush.mech: module '%s': %s '%s' needs unit and desc"):format(module_name, what, decl.name), 4)
      end
      if what == "parameter" and decl.default == nil and not decl.optional then
        error(("gpush.mech: module '%s': parameter '%s' needs a default"):format(module_name, decl.name), 4)
      end
    else
      error(("gpush.mech: module '%s': %ss[%d] must be a name or a declaration { name, type, ... }")
        :format(module_name, what, i), 4)
    end
    out[#out + 1] = decl
  end
  return out
end

-- Checks a module definition and returns the module (see the header).
-- `registry` is the parameter registry of the core kind it belongs to
-- (params.score or params.mcore; default: both are searched).
function M.module(spec, registry)
  if type(spec) ~= "table" or type(spec.name) ~= "string" or not spec.name:match("^[%w_]+$") then
    error("gpush.mech: a module needs name = a word (letters, digits, _)", 2)
  end
  if type(spec.description) ~= "string" then
    error(("gpush.mech: module '%s' needs a one-line description"):format(spec.name), 2)
  end
  local m = { name = spec.name, description = spec.description, source = spec.source or "",
    base = spec.base == true, terms = {}, hooks = {}, kind = spec.kind }
  for k, v in pairs(spec) do
    if is_phase[k] then
      if type(v) ~= "function" then
        error(("gpush.mech: module '%s': %s must be a function"):format(spec.name, k), 2)
      end
      m.hooks[k] = v
    end
  end
  if next(m.hooks) == nil then
    error(("gpush.mech: module '%s' has no hook (one of %s)"):format(spec.name, table.concat(M.PHASES, ", ")), 2)
  end
  for _, t in ipairs(spec.adds or {}) do
    if not is_term[t] then
      error(("gpush.mech: module '%s': unknown term '%s' (comp, mem, control, overlap)"):format(spec.name, t), 2)
    end
    m.terms[t] = true
  end
  local hw_registry = registry
  if not hw_registry then
    hw_registry = { by_name = setmetatable({}, { __index = function(_, k)
      return params.mcore.by_name[k] or params.score.by_name[k]
    end }), list = {} }
    for _, d in ipairs(params.score.list) do
      hw_registry.list[#hw_registry.list + 1] = d
    end
    for _, d in ipairs(params.mcore.list) do
      hw_registry.list[#hw_registry.list + 1] = d
    end
  end
  m.inputs = declarations(spec.inputs, params.inputs, "input", spec.name)
  m.params = declarations(spec.params, hw_registry, "parameter", spec.name)
  return m
end

-- The prediction state ----------------------------------------------------------------

local function fail(message)
  error({ mech_error = message }, 0)
end
M.fail = fail

local State = {}
State.__index = State

-- Adds `cycles` to a term on behalf of the module being run.
function State:add(term, cycles, note)
  local m = self.current
  if not m.terms[term] then
    error(("gpush.mech: module '%s' adds to '%s' but declares adds = {%s}"):format(m.name, tostring(term),
      table.concat((function()
        local t = {}
        for k in pairs(m.terms) do
          t[#t + 1] = k
        end
        table.sort(t)
        return t
      end)(), ", ")), 2)
  end
  if type(cycles) ~= "number" or cycles ~= cycles or cycles == math.huge or cycles == -math.huge then
    error(("gpush.mech: module '%s' added %s cycles to %s"):format(m.name, tostring(cycles), term), 2)
  end
  self.totals[term] = self.totals[term] + cycles
  self.breakdown[#self.breakdown + 1] = { module = m.name, term = term, cycles = cycles, note = note }
end

function State:warn(message)
  self.warnings[#self.warnings + 1] = self.current.name .. ": " .. message
end

-- Whether the model has a module of that name.
function State:has(name)
  return self.present[name] == true
end

-- A view of a table that allows only declared names.
local function guarded(source, allowed, module_name, what)
  return setmetatable({}, {
    __index = function(_, k)
      if not allowed[k] then
        error(("gpush.mech: module '%s' reads %s '%s' it does not declare"):format(module_name, what, tostring(k)), 2)
      end
      return source[k]
    end,
    __newindex = function()
      error(("gpush.mech: module '%s' cannot write its %ss"):format(module_name, what), 2)
    end,
  })
end

local function names_of(decls)
  local t = {}
  for _, d in ipairs(decls) do
    t[d.name] = true
  end
  return t
end

-- Runs the model's modules phase by phase, leaving out `skip` (a module name).
local function run(model, inputs, skip)
  local s = setmetatable({ q = {}, totals = { comp = 0, mem = 0, control = 0, overlap = 0 }, breakdown = {},
    warnings = {}, present = {}, core = model.name, kind = model.kind, base = model.base }, State)
  local views = {}
  for _, m in ipairs(model.modules) do
    if m.name ~= skip then
      s.present[m.name] = true
      views[m] = { input = guarded(inputs, names_of(m.inputs), m.name, "input"),
        hw = guarded(model.hw, names_of(m.params), m.name, "parameter") }
    end
  end
  s.terms = setmetatable({}, { __index = s.totals, __newindex = function()
    error("gpush.mech: terms change only through s:add(term, cycles)", 2)
  end })
  for _, phase in ipairs(M.PHASES) do
    for _, m in ipairs(model.modules) do
      local hook = m.name ~= skip and m.hooks[phase]
      if hook then
        s.current, s.input, s.hw = m, views[m].input, views[m].hw
        hook(s)
      end
    end
  end
  s.current = nil
  return s
end

-- Models ---------------------------------------------------------------------------------

local Model = {}
Model.__index = Model


-- Builds a model: { name, kind ("score"|"mcore"), base (base module name),
-- modules (list, in order), hw (resolved parameters), clock_hz, info,
-- registry (the kind's parameter registry), gpu (the GPU configuration behind
-- an M-core), classes (the family's n_i classes: { names = ordered list,
-- noun = "instruction class", label = what the message lists them as }) }.
-- Inline parameters of the modules get their defaults unless hw already has
-- them.
function M.model(def)
  local model = setmetatable(copy(def), Model)
  local seen = {}
  for _, m in ipairs(model.modules) do
    if seen[m.name] then
      error(("gpush.mech: two modules named '%s' in '%s'"):format(m.name, model.name), 2)
    end
    seen[m.name] = true
    for _, d in ipairs(m.params) do
      if model.hw[d.name] == nil and not d.optional then
        model.hw[d.name] = d.default
      end
    end
  end
  return model
end

-- The names of the model's modules, in order.
function Model:module_names()
  local t = {}
  for i, m in ipairs(self.modules) do
    t[i] = m.name
  end
  return t
end

-- A copy of the model with a module added (before the first module listed in
-- opts.before, else at the end) and its inline parameters set from `overrides`.
function Model:with(module, overrides)
  if type(module) ~= "table" or type(module.hooks) ~= "table" then
    error("gpush.mech: with() takes a module made by framework.module", 2)
  end
  local modules = {}
  for i, m in ipairs(self.modules) do
    if m.name == module.name then
      error(("gpush.mech: '%s' already has a module '%s'"):format(self.name, module.name), 2)
    end
    modules[i] = m
  end
  modules[#modules + 1] = module
  local hw = copy(self.hw)
  for k, v in pairs(overrides or {}) do
    local decl
    for _, d in ipairs(module.params) do
      if d.name == k then
        decl = d
      end
    end
    if not decl then
      error(("gpush.mech: module '%s' has no parameter '%s'"):format(module.name, tostring(k)), 2)
    end
    local ok, err = params.check(decl, v)
    if ok == nil then
      error(("gpush.mech: parameter '%s' of module '%s': %s"):format(k, module.name, err), 2)
    end
    hw[k] = ok
  end
  local def = copy(self)
  def.modules, def.hw = modules, hw
  return M.model(def)
end

-- A copy without the named (non-base) modules; nil, message when one is
-- unknown or part of the base.
function Model:without(names)
  local drop = {}
  for _, n in ipairs(names) do
    drop[n] = true
  end
  local modules = {}
  for _, m in ipairs(self.modules) do
    if drop[m.name] then
      if m.base then
        return nil, ("module '%s' is part of the %s base of '%s' and cannot be removed"):format(m.name, self.base,
          self.name)
      end
      drop[m.name] = nil
    else
      modules[#modules + 1] = m
    end
  end
  local unknown = next(drop)
  if unknown then
    local guess = text.closest(unknown, self:module_names())
    return nil, ("'%s' has no module '%s'%s; its modules: %s"):format(self.name, unknown,
      guess and (" (did you mean '" .. guess .. "'?)") or "", table.concat(self:module_names(), ", "))
  end
  local def = copy(self)
  def.modules = modules
  return M.model(def)
end

-- Every input name a module of the model may read.
function Model:input_declarations()
  local by_name, list = {}, {}
  for _, m in ipairs(self.modules) do
    for _, d in ipairs(m.inputs) do
      if not by_name[d.name] then
        by_name[d.name] = d
        list[#list + 1] = d
      end
    end
  end
  return by_name, list
end

-- "S-core" or "M-core", as messages name the model's kind.
local function kind_label(model)
  return model.kind == "score" and "S-core" or model.kind == "mcore" and "M-core" or model.kind
end

-- The first class of n_i that is not one of the model's family (its
-- latency, unit or micro-ops would be nil), as a message; nil when all are.
local function unknown_class(model, n_i)
  local known = {}
  for _, name in ipairs(model.classes.names) do
    known[name] = true
  end
  for class in pairs(n_i) do
    if not known[class] then
      return ("%s '%s': input n_i: unknown %s '%s' (%s: %s)"):format(kind_label(model), model.name,
        model.classes.noun, tostring(class), model.classes.label, table.concat(model.classes.names, ", "))
    end
  end
end

-- Checks an input table against the model: unknown names, bad values,
-- inputs a module needs but the table lacks, n_i classes the model's
-- family does not know (when a module reads n_i), and the relations no
-- measurement breaks (params.relations) among the inputs the model reads.  Returns the checked
-- copy, or nil and a message naming the input (and the module that needs
-- it).
function Model:check_inputs(inputs)
  local by_name = self:input_declarations()
  local checked = {}
  for k, v in pairs(inputs) do
    local decl = by_name[k] or params.inputs.by_name[k]
    if not decl then
      local names = {}
      for _, d in ipairs(params.inputs.list) do
        names[#names + 1] = d.name
      end
      for name in pairs(by_name) do
        names[#names + 1] = name
      end
      local guess = text.closest(tostring(k), names)
      return nil, ("unknown input '%s'%s"):format(tostring(k), guess and (" (did you mean '" .. guess .. "'?)") or "")
    end
    local ok, err = params.check(decl, v)
    if ok == nil then
      return nil, ("input '%s' (%s): %s"):format(k, decl.desc, err)
    end
    checked[k] = ok
  end
  for _, m in ipairs(self.modules) do
    for _, d in ipairs(m.inputs) do
      if checked[d.name] == nil and not d.optional then
        return nil, ("module '%s' of %s '%s' needs input '%s' (%s), which the inputs do not give")
          :format(m.name, kind_label(self), self.name, d.name, d.desc)
      end
    end
  end
  if by_name.n_i and checked.n_i and self.classes then
    local err = unknown_class(self, checked.n_i)
    if err then
      return nil, err
    end
  end
  local broken = params.check_relations(checked, self.hw, self.kind, function(name) return by_name[name] ~= nil end)
  if broken then
    return nil, ("%s '%s': %s"):format(kind_label(self), self.name, broken)
  end
  return checked
end

local function result_of(model, s)
  local t = s.totals
  local cycles = t.comp + t.mem + t.control - t.overlap
  if t.overlap < -1e-9 or cycles < -1e-9 then
    error(("gpush.mech: '%s' produced overlap %g and cycles %g; the overlap must be >= 0 and the total >= 0")
      :format(model.name, t.overlap, cycles), 0)
  end
  local modules = {}
  for _, m in ipairs(model.modules) do
    modules[m.name] = 0
  end
  for _, row in ipairs(s.breakdown) do
    local sign = row.term == "overlap" and -1 or 1
    modules[row.module] = modules[row.module] + sign * row.cycles
  end
  local quantities = {}
  for k, v in pairs(s.q) do
    -- numbers that are finite (an unbounded limit is left out), labels, flags
    if (type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge) or type(v) == "string"
      or type(v) == "boolean" then
      quantities[k] = v
    end
  end
  return {
    core = model.name, kind = model.kind, base = model.base, cycles = cycles,
    seconds = cycles / model.clock_hz,
    terms = { comp = t.comp, mem = t.mem, control = t.control, overlap = t.overlap },
    modules = modules, module_order = model:module_names(), breakdown = s.breakdown,
    quantities = quantities, warnings = s.warnings,
  }
end

local function protected_run(model, inputs, skip)
  local ok, s = pcall(run, model, inputs, skip)
  if ok then
    return s
  end
  if type(s) == "table" and s.mech_error then
    return nil, ("%s '%s': %s"):format(kind_label(model), model.name, s.mech_error)
  end
  error(s, 0)
end

-- Predicts from a table of workload inputs; returns the result (see
-- docs/mech.md) or nil and a message.  opts.effects = false skips the
-- marginal effects (one extra run per optional module).
function Model:predict(inputs, opts)
  if type(inputs) ~= "table" then
    error("gpush.mech: predict takes a table of inputs, got " .. type(inputs), 2)
  end
  local checked, err = self:check_inputs(inputs)
  if not checked then
    return nil, err
  end
  local s, run_err = protected_run(self, checked)
  if not s then
    return nil, run_err
  end
  local r = result_of(self, s)
  r.effects = {}
  if not (opts and opts.effects == false) then
    for _, m in ipairs(self.modules) do
      if not m.base then
        local without = protected_run(self, checked, m.name)
        if without then
          local w = without.totals
          r.effects[m.name] = r.cycles - (w.comp + w.mem + w.control - w.overlap)
        end
      end
    end
  end
  return r
end

-- Presets -----------------------------------------------------------------------------------

-- Where a preset value (or with at_key, its key) was written: "file:line:col".
function M.where(file, positions, path, at_key)
  local p = positions and positions[path]
  if p then
    return ("%s:%d:%d"):format(file, at_key and p.key_line or p.line, at_key and p.key_col or p.col)
  end
  return file
end

-- Validates a mapping of parameter values against a registry (preset files,
-- -p overrides): returns name -> value, or raises {mech_error = message}.
-- `place(name)` says where a value came from.
function M.check_params(values, registry, owner, place)
  local out = {}
  local names = {}
  for _, d in ipairs(registry.list) do
    names[#names + 1] = d.name
  end
  for k, v in pairs(values) do
    local decl = registry.by_name[k]
    if not decl then
      local guess = text.closest(tostring(k), names)
      fail(("%s: unknown parameter '%s' of %s%s"):format(place(k, true), tostring(k), owner,
        guess and (" (did you mean '" .. guess .. "'?)") or ""))
    end
    if decl.gpu then
      fail(("%s: parameter '%s' of %s derives from the GPU configuration (%s); set %s instead")
        :format(place(k), k, owner, decl.desc, decl.from))
    end
    local ok, err = params.check(decl, v)
    if ok == nil then
      fail(("%s: parameter '%s' of %s: %s"):format(place(k), k, owner, err))
    end
    out[k] = ok
  end
  return out
end

-- The folder of the shipped core presets (mech/cores beside this file).
function M.preset_dir()
  local file = package.searchpath("gpush.models.mech.framework", package.path)
  return file and file:gsub("framework%.lua$", "cores")
end

-- Names of the shipped presets of a kind ("score" or "mcore"), sorted.
function M.presets(kind)
  local core = require "gpush.core"
  local names = {}
  local dir = M.preset_dir()
  for _, file in ipairs(dir and core.list_dir(dir) or {}) do
    local name = file:match("^(.+)%.yaml$")
    if name then
      local tree = core.yaml_load(dir .. "/" .. file)
      if type(tree) == "table" and tree.kind == kind then
        names[#names + 1] = name
      end
    end
  end
  table.sort(names)
  return names
end

-- Reads a core preset (a shipped name or a path to a YAML file): checks its
-- top-level keys (`allowed`: key -> true) and kind; returns the tree, a
-- place(path) function for messages and the file.  Raises {mech_error}.
function M.read_preset(name, kind, allowed)
  local core = require "gpush.core"
  local file = name
  if not (name:find("/", 1, true) or name:match("%.ya?ml$")) then
    file = (M.preset_dir() or ".") .. "/" .. name .. ".yaml"
    local f = io.open(file, "r")
    if not f then
      local shipped = M.presets(kind)
      local guess = text.closest(name, shipped)
      fail(("unknown %s preset '%s'%s; shipped: %s"):format(kind == "score" and "S-core" or "M-core", name,
        guess and (" (did you mean '" .. guess .. "'?)") or "", table.concat(shipped, ", ")))
    end
    f:close()
  end
  local tree, positions = core.yaml_load(file)
  if tree == nil then
    fail(positions)
  end
  if type(tree) ~= "table" or #tree > 0 then
    fail(("%s:1:1: a core preset is a mapping (kind, name, modules, params, ...)"):format(file))
  end
  local function place(path, at_key)
    return M.where(file, positions, path, at_key)
  end
  for k in pairs(tree) do
    if not allowed[k] then
      local keys = {}
      for a in pairs(allowed) do
        keys[#keys + 1] = a
      end
      table.sort(keys)
      fail(("%s: unknown key '%s' in core preset (keys: %s)"):format(place(k, true), tostring(k),
        table.concat(keys, ", ")))
    end
  end
  if tree.kind ~= kind then
    fail(("%s: 'kind' must be '%s' here, got %s"):format(place("kind"), kind, config.format_value(tree.kind)))
  end
  return tree, place, file
end

-- The module list of a preset (`modules:` a list of names from `known`),
-- with opts.without removed and opts.with added (names or modules).
function M.module_list(tree, place, known, base, opts)
  local list = { base }
  local names = {}
  for n in pairs(known) do
    names[#names + 1] = n
  end
  table.sort(names)
  local function resolve(item, where_)
    if type(item) == "table" and item.hooks then
      return item
    end
    local m = known[item]
    if not m then
      local guess = text.closest(tostring(item), names)
      fail(("%s: unknown module '%s'%s; modules: %s"):format(where_, tostring(item),
        guess and (" (did you mean '" .. guess .. "'?)") or "", table.concat(names, ", ")))
    end
    if m.base then
      fail(("%s: '%s' is a base model; the preset's execution model selects it"):format(where_, item))
    end
    return m
  end
  if type(tree.modules) ~= "table" or (next(tree.modules) ~= nil and #tree.modules == 0) then
    fail(("%s: 'modules' must be a list of module names"):format(place("modules")))
  end
  local present = { [base.name] = true }
  for i, item in ipairs(tree.modules) do
    local m = resolve(item, place(("modules[%d]"):format(i)))
    if present[m.name] then
      fail(("%s: module '%s' listed twice"):format(place(("modules[%d]"):format(i)), m.name))
    end
    present[m.name] = true
    list[#list + 1] = m
  end
  for _, item in ipairs(opts.with or {}) do
    local m = resolve(item, "with")
    if not present[m.name] then
      present[m.name] = true
      list[#list + 1] = m
    end
  end
  local kept = {}
  local drop = {}
  for _, n in ipairs(opts.without or {}) do
    if not present[n] then
      local have = {}
      for _, m in ipairs(list) do
        have[#have + 1] = m.name
      end
      local guess = text.closest(n, have)
      fail(("without: the model has no module '%s'%s; its modules: %s"):format(n,
        guess and guess ~= n and (" (did you mean '" .. guess .. "'?)") or "", table.concat(have, ", ")))
    end
    drop[n] = true
  end
  for _, m in ipairs(list) do
    if drop[m.name] then
      if m.base then
        fail(("without: '%s' is the base model"):format(m.name))
      end
    else
      kept[#kept + 1] = m
    end
  end
  return kept
end

-- Overrides as a flat map: a map is taken as is, "key=value" strings are
-- split and their values read as YAML scalars.  Raises {mech_error}.
function M.parse_overrides(overrides)
  local core = require "gpush.core"
  local flat = {}
  for k, v in pairs(overrides or {}) do
    if math.type(k) == "integer" then
      local key, text = tostring(v):match("^%s*([^=]-)%s*=%s*(.-)%s*$")
      if not key or key == "" then
        fail(("-p %s: expected key=value"):format(tostring(v)))
      end
      flat[key] = core.yaml_scalar(text)
    else
      flat[k] = v
    end
  end
  return flat
end

-- Calls f(...) and turns a {mech_error} raised inside into nil, message.
function M.protect(f, ...)
  local ok, a, b = pcall(f, ...)
  if ok then
    return a, b
  end
  if type(a) == "table" and a.mech_error then
    return nil, a.mech_error
  end
  error(a, 0)
end

return M
