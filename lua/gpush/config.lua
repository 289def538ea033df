-- gpush.config: load, validate and resolve GPU configurations.
--
--   local cfg, err = config.load("gtx660ti", { ["l1.mshrs"] = 64, "sm.max_warps=48" })
--   cfg.sm.max_warps, cfg.dram.bandwidth_gbs, cfg._name, cfg._sources
--
-- A configuration is a YAML file whose tree mirrors the dotted parameter paths
-- of gpush.schema.  `preset: NAME` (a shipped preset, or a path relative to the
-- file) inherits another file; chains may be long but never circular.  Layers
-- apply in order: schema defaults, the preset chain base first, the file, then
-- the overrides.  Derived values (schema.derived) are computed once at the end;
-- giving one is an error unless it has a `solve`, which rewrites the parameter
-- it derives from (dram.bandwidth_gbs -> clock.mem_mhz).
--
-- Every error names where (file:line:column, or "-p key=value"), the
-- parameter, the configuration, and what was expected.  load() returns
-- nil, message for bad input; misuse (a non-string name) raises.
local core = require "gpush.core"
local schema = require "gpush.schema"
local text = require "gpush.text"
local closest = text.closest

local M = {}

-- Schema indexes ------------------------------------------------------------------

local params, derived, groups = {}, {}, {}
local all_paths = {}
for _, p in ipairs(schema.params) do
  params[p[1]] = p
  all_paths[#all_paths + 1] = p[1]
end
for _, d in ipairs(schema.derived) do
  derived[d[1]] = d
  all_paths[#all_paths + 1] = d[1]
end
-- Each path's components ("ops.int.latency" -> {"ops", "int", "latency"}),
-- split once for the walks every check makes.
local function split_path(path)
  local parts = {}
  for part in path:gmatch("[^.]+") do
    parts[#parts + 1] = part
  end
  return parts
end
local path_parts = {}
for _, path in ipairs(all_paths) do
  path_parts[path] = split_path(path)
end
-- The paths grouped by the table holding them, for core.config_unchanged:
-- each group lists the keys from the root to that table and `leaves`, its
-- keys there; walk_paths is every path in that walk's order.
local walk_groups, walk_paths = {}, {}
do
  local by_parent = {}
  for _, path in ipairs(all_paths) do
    local parts = path_parts[path]
    local parent = table.concat(parts, ".", 1, #parts - 1)
    local group = by_parent[parent]
    if not group then
      group = { table.unpack(parts, 1, #parts - 1) }
      group.leaves, group.paths = {}, {}
      by_parent[parent] = group
      walk_groups[#walk_groups + 1] = group
    end
    group.leaves[#group.leaves + 1] = parts[#parts]
    group.paths[#group.paths + 1] = path
  end
  for _, group in ipairs(walk_groups) do
    table.move(group.paths, 1, #group.paths, #walk_paths + 1, walk_paths)
    group.paths = nil
  end
end
-- Every proper prefix of a path is a group ("ops", "ops.int").
for _, path in ipairs(all_paths) do
  local prefix = ""
  for _, part in ipairs(path_parts[path]) do
    prefix = prefix == "" and part or prefix .. "." .. part
    if prefix ~= path then
      groups[prefix] = groups[prefix] or {}
      table.insert(groups[prefix], path)
    end
  end
end

-- Formatting ------------------------------------------------------------------------

local function format_value(v)
  if v == core.yaml_null then
    return "null"
  elseif type(v) == "string" then
    return "'" .. v .. "'"
  elseif type(v) == "table" then
    return next(v) ~= nil and #v == 0 and "a mapping" or "a list"
  elseif math.type(v) == "float" then
    if v == math.floor(v) and math.abs(v) < 1e15 then
      return ("%.1f"):format(v)
    end
    -- The shortest form that reads back as the same number.
    for digits = 15, 17 do
      local text = ("%." .. digits .. "g"):format(v)
      if tonumber(text) == v then
        return text
      end
    end
  end
  return tostring(v)
end
M.format_value = format_value

local function format_bound(b)
  if math.type(b) == "float" and b == math.floor(b) and math.abs(b) < 1e15 then
    return ("%d"):format(b)
  end
  return tostring(b)
end

-- "an integer from 1 to 1024", "one of 'a', 'b'", ...
local function expectation(p)
  local kind = p[2]
  if kind == "enum" then
    local quoted = {}
    for i, v in ipairs(p.values) do
      quoted[i] = "'" .. v .. "'"
    end
    return "one of " .. table.concat(quoted, ", ")
  elseif kind == "bool" then
    return "true or false"
  elseif kind == "string" then
    return "a string"
  end
  local noun = kind == "int" and "an integer" or "a number"
  if p.min and p.max then
    return ("%s from %s to %s"):format(noun, format_bound(p.min), format_bound(p.max))
  end
  return noun
end
M.expectation = expectation

-- Where a value came from, for messages: "file:line:col" or "-p key=value".
local function where(layer, path, at_key)
  if layer.override_text then
    return "-p " .. (layer.override_text[path] or path)
  end
  local pos = layer.positions and layer.positions[path]
  if not pos then
    return layer.file
  end
  if at_key then
    return ("%s:%d:%d"):format(layer.file, pos.key_line, pos.key_col)
  end
  return ("%s:%d:%d"):format(layer.file, pos.line, pos.col)
end

local function fail(layer, path, at_key, message)
  error({ config_error = where(layer, path, at_key) .. ": " .. message }, 0)
end

-- Validation of one value ------------------------------------------------------------

-- Returns the value converted to the parameter's type, or nil if it does not fit.
local function coerce(p, v)
  local kind = p[2]
  if kind == "int" then
    if math.type(v) == "float" and v == math.floor(v) and math.abs(v) < 2 ^ 53 then
      v = math.tointeger(v)
    end
    if math.type(v) ~= "integer" then
      return nil
    end
  elseif kind == "number" then
    if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
      return nil
    end
  elseif kind == "bool" then
    if type(v) ~= "boolean" then
      return nil
    end
  elseif kind == "string" then
    if type(v) ~= "string" then
      return nil
    end
    return v
  elseif kind == "enum" then
    for _, allowed in ipairs(p.values) do
      if v == allowed then
        return v
      end
    end
    return nil
  end
  if type(v) == "number" and ((p.min and v < p.min) or (p.max and v > p.max)) then
    return nil
  end
  return v
end
M.coerce = coerce

-- Checks a value against its declaration; `at` names the path whose position
-- the message points at (default: the parameter itself).
local function check_value(layer, p, v, at)
  local ok = coerce(p, v)
  if ok == nil then
    fail(layer, at or p[1], false, ("parameter '%s' of '%s': expected %s, got %s")
      :format(p[1], layer.config_name, expectation(p), format_value(v)))
  end
  return ok
end

local function unknown_key(layer, path)
  local guess = closest(path, all_paths)
  local leaf_guess
  if not guess then
    -- "count" under a wrong group: suggest by the last component.
    local last = path:match("[^.]+$")
    for _, candidate in ipairs(all_paths) do
      if candidate:match("[^.]+$") == last then
        leaf_guess = candidate
        break
      end
    end
  end
  guess = guess or leaf_guess
  fail(layer, path, true, ("unknown parameter '%s' in '%s'%s"):format(path, layer.config_name,
    guess and (" (did you mean '" .. guess .. "'?)") or ""))
end

-- Walks a YAML mapping into layer.values (path -> value), checking structure.
local function collect(layer, tree, prefix)
  local keys = {}
  for k in pairs(tree) do
    keys[#keys + 1] = k
  end
  -- File order, so the first problem in the file is the one reported
  -- (each key's position looked up once, not on every comparison).
  local positions = {}
  for _, k in ipairs(keys) do
    local pos = layer.positions and layer.positions[prefix == "" and tostring(k) or prefix .. "." .. tostring(k)]
    positions[k] = pos and (pos.key_line * 100000 + pos.key_col) or 0
  end
  table.sort(keys, function(a, b)
    local pa, pb = positions[a], positions[b]
    if pa ~= pb then
      return pa < pb
    end
    return tostring(a) < tostring(b)
  end)
  for _, key in ipairs(keys) do
    local v = tree[key]
    local path = prefix == "" and tostring(key) or prefix .. "." .. tostring(key)
    if prefix == "" and key == "preset" then
      if type(v) ~= "string" then
        fail(layer, path, false, ("'preset' of '%s': expected the name of a preset or a path, got %s")
          :format(layer.config_name, format_value(v)))
      end
      layer.preset = v
    elseif params[path] or derived[path] then
      if type(v) == "table" then
        fail(layer, path, false, ("parameter '%s' of '%s': expected %s, got %s")
          :format(path, layer.config_name, expectation(params[path] or derived[path]), format_value(v)))
      end
      if layer.values[path] ~= nil then -- 'sm.count: 9' and 'sm: {count: 3}' in one file
        fail(layer, path, true, ("parameter '%s' of '%s' is given twice, as '%s:' and inside '%s:': keep one")
          :format(path, layer.config_name, path, prefix ~= "" and prefix or path:match("^[^.]+")))
      end
      layer.values[path] = check_value(layer, params[path] or derived[path], v)
      layer.order[#layer.order + 1] = path
    elseif groups[path] then
      if type(v) ~= "table" then
        fail(layer, path, false, ("'%s' of '%s' is a group of parameters (%s, ...): expected a mapping, got %s")
          :format(path, layer.config_name, groups[path][1], format_value(v)))
      end
      collect(layer, v, path)
    else
      unknown_key(layer, path)
    end
  end
end

-- Finding files ------------------------------------------------------------------------

-- The folder of the shipped presets: gpush/arch beside gpush/schema.lua.
function M.preset_dir()
  local schema_file = package.searchpath("gpush.schema", package.path)
  return schema_file and schema_file:gsub("schema%.lua$", "arch")
end

-- Names of the shipped presets, sorted.
function M.presets()
  local dir = M.preset_dir()
  local names = {}
  for _, file in ipairs(dir and core.list_dir(dir) or {}) do
    local name = file:match("^(.+)%.yaml$")
    if name then
      names[#names + 1] = name
    end
  end
  return names
end

local function is_path(name)
  return name:find("/", 1, true) or name:match("%.ya?ml$")
end

local function stem(path)
  return path:match("([^/]+)%.ya?ml$") or path
end

-- Resolves a preset name or a path (relative to `base_dir` when given) to a file.
local function locate(name, base_dir)
  if is_path(name) then
    if base_dir and name:sub(1, 1) ~= "/" then
      return (base_dir .. "/" .. name):gsub("/%./", "/"):gsub("^%./", "")
    end
    return name
  end
  local dir = M.preset_dir()
  local file = dir and (dir .. "/" .. name .. ".yaml")
  local f = file and io.open(file, "r")
  if f then
    f:close()
    return file
  end
  local shipped = M.presets()
  local guess = closest(name, shipped)
  return nil, ("unknown preset '%s'%s; shipped presets: %s"):format(name,
    guess and (" (did you mean '" .. guess .. "'?)") or "", table.concat(shipped, ", "))
end

-- Layers ----------------------------------------------------------------------------------

local function new_layer(file, config_name)
  return { file = file, config_name = config_name, values = {}, order = {} }
end

-- Reads one YAML file into a layer (values and positions), without its preset.
local function read_file_layer(file)
  local tree, positions = core.yaml_load(file)
  if tree == nil then
    error({ config_error = positions }, 0)
  end
  local layer = new_layer(file, stem(file))
  layer.positions = positions
  if tree == core.yaml_null then
    error({ config_error = ("%s:1:1: configuration '%s' is empty: expected 'preset: NAME' and/or parameters"
      .. " (gpush config describe lists them)"):format(file, layer.config_name) }, 0)
  end
  if type(tree) ~= "table" or (#tree > 0) then
    error({ config_error = ("%s:1:1: configuration '%s': expected a mapping of parameters, got %s")
      :format(file, layer.config_name, format_value(tree)) }, 0)
  end
  collect(layer, tree, "")
  return layer
end

-- Reads a file and the chain of presets below it; returns layers base first.
-- `via` is where the `preset:` that led here was written, for cycle messages.
local function read_chain(file, seen, chain, via)
  local canonical = core.realpath(file) or file
  chain[#chain + 1] = stem(file)
  if seen[canonical] then
    error({ config_error = ("%s: preset cycle: %s"):format(via, table.concat(chain, " -> ")) }, 0)
  end
  seen[canonical] = true
  local layer = read_file_layer(file)
  local layers = {}
  if layer.preset then
    local base_file, err = locate(layer.preset, file:match("^(.*)/[^/]*$") or ".")
    if not base_file then
      fail(layer, "preset", false, err)
    end
    layers = read_chain(base_file, seen, chain, where(layer, "preset", false))
  end
  layers[#layers + 1] = layer
  return layers
end

-- Turns overrides ({path = value} and/or {"path=value", ...}) into a layer.
local function override_layer(overrides, config_name)
  local layer = new_layer("-p", config_name)
  layer.override_text = {}
  local function add(path, value, text)
    if not (params[path] or derived[path]) then
      unknown_key(layer, path)
    end
    layer.override_text[path] = text
    layer.values[path] = check_value(layer, params[path] or derived[path], value)
    layer.order[#layer.order + 1] = path
  end
  for i, item in ipairs(overrides) do
    if type(item) ~= "string" or not item:find("=", 1, true) then
      error({ config_error = ("-p %s: expected key=value (override %d)"):format(tostring(item), i) }, 0)
    end
    local path, text = item:match("^%s*(.-)%s*=%s*(.-)%s*$")
    layer.override_text[path] = item
    add(path, core.yaml_scalar(text), item)
  end
  local keys = {}
  for k in pairs(overrides) do
    if type(k) == "string" then
      keys[#keys + 1] = k
    end
  end
  table.sort(keys)
  for _, path in ipairs(keys) do
    add(path, overrides[path], path .. "=" .. format_value(overrides[path]))
  end
  return layer
end

-- Applies a layer onto the flat values: plain parameters first, then the
-- derived values it gives, through their solve.
local function apply(values, layer)
  for _, path in ipairs(layer.order) do
    if params[path] then
      values[path] = layer.values[path]
    end
  end
  for _, path in ipairs(layer.order) do
    local d = derived[path]
    if d then
      if not d.solve then
        fail(layer, path, true, ("parameter '%s' of '%s' is derived (%s) and cannot be set; set %s instead")
          :format(path, layer.config_name, d.desc, d.from))
      end
      if layer.values[d.solves] ~= nil then
        fail(layer, path, true, ("'%s' and '%s' are both given in '%s'; %s is derived from %s, give one of them")
          :format(path, d.solves, layer.config_name, path, d.solves))
      end
      d.solve(layer.values[path], function(k) return values[k] end, function(k, v)
        values[k] = check_value(layer, params[k], v, path)
      end)
    end
  end
end

local function compute_derived(values)
  local get = function(k) return values[k] end
  for _, d in ipairs(schema.derived) do
    local v = d.compute(get)
    if d[2] == "int" then
      v = math.tointeger(v) or v
    end
    values[d[1]] = v
  end
end

-- The parameter each solvable derived value rewrites -> the derived path.
local derived_solves = {}
for _, d in ipairs(schema.derived) do
  if d.solves then
    derived_solves[d.solves] = d[1]
  end
end

-- The derived values a configuration was resolved with, per configuration
-- table (weak keys), so M.check can tell a derived value set from Lua from
-- one that went stale because its inputs changed.
local snapshot = setmetatable({}, { __mode = "k" })

local function derived_values(values)
  local out = {}
  for _, d in ipairs(schema.derived) do
    out[d[1]] = values[d[1]]
  end
  return out
end

-- The values M.check last passed and wrote back, or that M.load resolved
-- (checked_list), per configuration table (weak keys), in walk_paths'
-- order: a table found holding exactly them again is passed as it is (a model checks its configuration on every
-- call, GPUMech once per launch; the full check is the Lua side's largest
-- cost on a real trace).
local passed = setmetatable({}, { __mode = "k" })

-- The list M.check keeps for a table just resolved from `values` (walk_paths'
-- order), or nil where its first check might differ from resolving.  The
-- layers' values went through check_value, and gpush.schema refuses a
-- parameter without a default or with one M.check would convert (its
-- declarer's default_fits), so every parameter is what the
-- check writes back; derived values are computed alike, but one that is
-- NaN the check's comparison with the snapshot would take for one set from
-- Lua.  A configuration is checked by every model before it is read: this
-- first full check cost about 0.7 M instructions a process.
local function checked_list(values)
  for _, d in ipairs(schema.derived) do
    local v = values[d[1]]
    if v ~= v then
      return nil
    end
  end
  local list = {}
  for i, path in ipairs(walk_paths) do
    list[i] = values[path]
  end
  return list
end

-- Builds the nested table from flat values.
local function nest(values)
  local cfg = {}
  for path, v in pairs(values) do
    local node = cfg
    local parts = path_parts[path] or split_path(path)
    for i = 1, #parts - 1 do
      node[parts[i]] = node[parts[i]] or {}
      node = node[parts[i]]
    end
    node[parts[#parts]] = v
  end
  return cfg
end

local function resolve(name_or_path, overrides)
  local values = {}
  for _, p in ipairs(schema.params) do
    values[p[1]] = p.default
  end
  local sources = {}
  local config_name = "defaults"
  local given = {}
  if name_or_path ~= nil then
    local file, err = locate(name_or_path)
    if not file then
      error({ config_error = err }, 0)
    end
    local layers = read_chain(file, {}, {}, file)
    for _, layer in ipairs(layers) do
      apply(values, layer)
      sources[#sources + 1] = layer.file
      for path in pairs(layer.values) do
        given[path] = true
      end
    end
    config_name = layers[#layers].config_name
  else
    sources[1] = "the schema defaults (gpush config describe)"
  end
  if overrides and next(overrides) ~= nil then
    apply(values, override_layer(overrides, config_name))
  end
  compute_derived(values)
  local cfg = nest(values)
  cfg._name = config_name
  cfg._sources = sources
  -- a file chain without a shipped preset at its base: the parameters it
  -- does not give come from the schema defaults, listed here for messages
  -- (optional groups, such as power.*, are meant to be left out)
  if name_or_path ~= nil then
    local defaulted = {}
    for _, p in ipairs(schema.params) do
      if not p.optional and not given[p[1]] and not (derived_solves[p[1]] and given[derived_solves[p[1]]]) then
        defaulted[#defaulted + 1] = p[1]
      end
    end
    if #defaulted > 0 then
      cfg._defaulted = defaulted
    end
  end
  snapshot[cfg] = derived_values(values)
  passed[cfg] = checked_list(values)
  return cfg
end

-- Public API ---------------------------------------------------------------------------------

-- Loads a preset name or YAML path (nil: schema defaults) with optional
-- overrides; returns the resolved nested config, or nil and a message.
function M.load(name_or_path, overrides)
  if name_or_path ~= nil and type(name_or_path) ~= "string" then
    error("gpush.config.load: expected a preset name or a path, got " .. type(name_or_path), 2)
  end
  if overrides ~= nil and type(overrides) ~= "table" then
    error("gpush.config.load: overrides must be a table, got " .. type(overrides), 2)
  end
  local ok, result = pcall(resolve, name_or_path, overrides)
  if ok then
    return result
  end
  if type(result) == "table" and result.config_error then
    return nil, result.config_error
  end
  error(result, 0)
end

-- Whether cfg holds exactly the values `list` (walk_paths' order; M.flatten's
-- walk, without building its table): at every path the same value to a
-- model, equal, of the same number subtype, and (zeros) of the same sign.
-- The walk is C (csrc/lua/l_config.c), each table holding parameters
-- reached once: a model checks its configuration once per launch or more,
-- and on a real trace of short launches this walk in Lua was half of the
-- Lua side's time.
local function unchanged(list, cfg)
  return list ~= nil and core.config_unchanged(cfg, walk_groups, list)
end

-- Checks a configuration table before a model reads it, with the rules a
-- YAML file goes through: every parameter present, of its type and in its
-- range (NaN and infinities refused).  A derived value changed in the table
-- is solved for the parameter it derives from where the schema allows
-- (dram.bandwidth_gbs -> clock.mem_mhz) and refused otherwise; derived
-- values are then recomputed from their inputs and written back, so a
-- table changed from Lua never carries a stale one.  Returns cfg; raises a
-- message naming the parameter and the configuration (`level` as error's).
function M.check(cfg, level)
  level = (level or 1) + 1
  if type(cfg) ~= "table" then
    error(("expected a configuration (gpush.config.load), got %s"):format(type(cfg)), level)
  end
  local name = type(cfg._name) == "string" and cfg._name or "(a table)"
  if unchanged(passed[cfg], cfg) then
    return cfg -- what the check below would find and write back
  end
  local values, flat = {}, M.flatten(cfg)
  for _, p in ipairs(schema.params) do
    local v = flat[p[1]]
    if v == nil then
      error(("parameter '%s' of '%s' is missing: expected %s (configurations come from gpush.config.load)")
        :format(p[1], name, expectation(p)), level)
    end
    values[p[1]] = coerce(p, v)
    if values[p[1]] == nil then
      error(("parameter '%s' of '%s': expected %s, got %s"):format(p[1], name, expectation(p), format_value(v)),
        level)
    end
  end
  local before = snapshot[cfg]
  for _, d in ipairs(schema.derived) do
    local v = flat[d[1]]
    if before and v ~= before[d[1]] then
      if not d.solve then
        error(("parameter '%s' of '%s' is derived (%s) and cannot be set; set %s instead")
          :format(d[1], name, d.desc, d.from), level)
      end
      if coerce(d, v) == nil then
        error(("parameter '%s' of '%s': expected %s, got %s"):format(d[1], name, expectation(d), format_value(v)),
          level)
      end
      d.solve(v, function(k) return values[k] end, function(k, solved)
        values[k] = coerce(params[k], solved)
        if values[k] == nil then
          error(("parameter '%s' of '%s' = %s solves to %s = %s: expected %s"):format(d[1], name,
            format_value(v), k, format_value(solved), expectation(params[k])), level + 1)
        end
      end)
    end
  end
  compute_derived(values)
  for path, v in pairs(values) do
    local node, parts = cfg, path_parts[path] or split_path(path)
    for i = 1, #parts - 1 do
      node = node[parts[i]]
    end
    node[parts[#parts]] = v
  end
  snapshot[cfg] = derived_values(values)
  local list = {}
  for i, path in ipairs(walk_paths) do
    list[i] = values[path]
  end
  passed[cfg] = list
  return cfg
end

-- A token of cfg's last full check: a new value each time M.check checks
-- cfg in full (and when M.load resolves it), the same while M.check finds
-- cfg unchanged, nil before the first check of a table M.load did not
-- give.  What is built from a checked configuration (the C machine,
-- gpush.machine) may be reused while its token is the same.
function M.check_token(cfg)
  return passed[cfg]
end

-- The paths of check_token's list, in its order (a token is that list: the
-- values the last check wrote back, so a key of a checked configuration can
-- be built from it without M.flatten's walk).
function M.token_paths()
  return { table.unpack(walk_paths) }
end

-- The flat view {["sm.count"] = 7, ...} of a resolved config (schema and
-- derived parameters only).
function M.flatten(cfg)
  local flat = {}
  for _, path in ipairs(all_paths) do
    local node = cfg
    for _, part in ipairs(path_parts[path]) do
      if type(node) == "table" then
        node = node[part]
      else
        node = nil
      end
    end
    flat[path] = node
  end
  return flat
end

-- Every path, schema order, derived last.
function M.paths()
  return { table.unpack(all_paths) }
end

-- The declaration of a path (schema params and derived).
function M.declaration(path)
  return params[path] or derived[path]
end

-- Canonical text of a value for hashing and diffs.
local function canonical(v)
  if math.type(v) == "float" then
    return ("%.17g"):format(v)
  end
  return tostring(v)
end

-- A stable 64-bit FNV-1a hash of the resolved values, as 16 hex digits.
function M.hash(cfg)
  local flat = M.flatten(cfg)
  local keys = text.sorted_keys(flat)
  local h = -3750763034362895579 -- 0xcbf29ce484222325, the FNV offset basis
  for _, k in ipairs(keys) do
    local line = k .. "=" .. canonical(flat[k]) .. "\n"
    for i = 1, #line do
      h = (h ~ line:byte(i)) * 1099511628211 -- the FNV prime; wraps mod 2^64
    end
  end
  return ("%016x"):format(h)
end

-- YAML text of every non-derived parameter in schema order (or of `paths`,
-- in their order, paths sharing a prefix kept together; a derived value
-- that can be set may be among them), nested as the dotted paths are:
-- value_of(path, declaration) gives the value and comment_of(path,
-- declaration, value) the end-of-line comment.
function M.to_yaml(value_of, comment_of, paths)
  local lines, open = {}, {}
  for _, path in ipairs(paths or all_paths) do
    local decl = params[path] or (paths and derived[path])
    if decl then
      local parts = {}
      for part in path:gmatch("[^.]+") do
        parts[#parts + 1] = part
      end
      for depth = 1, #parts - 1 do
        local prefix = table.concat(parts, ".", 1, depth)
        if open[depth] ~= prefix then
          lines[#lines + 1] = ("  "):rep(depth - 1) .. parts[depth] .. ":"
          open[depth] = prefix
          for deeper = depth + 1, #open do
            open[deeper] = nil
          end
        end
      end
      local value = value_of(path, decl)
      local text = format_value(value):gsub("^'(.*)'$", "%1")
      if type(value) == "string" and value:find("[:#]") then
        text = ("%q"):format(value)
      end
      local line = ("  "):rep(#parts - 1) .. parts[#parts] .. ": " .. text
      lines[#lines + 1] = ("%-44s # %s"):format(line, comment_of(path, decl, value))
    end
  end
  return table.concat(lines, "\n") .. "\n"
end

-- The schema as a text table: path, type, unit, default, range, description.
function M.describe()
  local lines = { ("%-28s %-7s %-16s %-26s %-18s %s"):format("parameter", "type", "unit", "default", "range",
    "description") }
  local function range(p)
    if p[2] == "enum" then
      return table.concat(p.values, "|")
    elseif p.min then
      return format_bound(p.min) .. ".." .. format_bound(p.max)
    end
    return ""
  end
  local section
  for _, p in ipairs(schema.params) do
    local top = p[1]:match("^[^.]+")
    if top ~= section then
      lines[#lines + 1] = ""
      section = top
    end
    local default = p.default
    if p[2] == "enum" then
      default = tostring(default)
      lines[#lines + 1] = ("%-28s %-7s %-16s %s\n%-28s %-7s %-16s %-26s %s"):format(p[1], p[2], p.unit, default,
        "", "", "", "values: " .. range(p), p.desc)
    else
      lines[#lines + 1] = ("%-28s %-7s %-16s %-26s %-18s %s"):format(p[1], p[2], p.unit,
        tostring(default), range(p), p.desc)
    end
  end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "derived (computed, never given twice):"
  for _, d in ipairs(schema.derived) do
    lines[#lines + 1] = ("%-28s %-7s %-16s %s"):format(d[1], d[2], d.unit, d.desc)
  end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "Latency L: cycles from a producer's issue to the earliest issue of a dependent"
  lines[#lines + 1] = "consumer (a dependent chain of N takes N x L). l1/l2 latencies are totals;"
  lines[#lines + 1] = "dram.latency_ns is the increment beyond an L2 miss."
  return table.concat(lines, "\n") .. "\n"
end

return M
