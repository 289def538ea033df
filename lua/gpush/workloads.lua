-- gpush.workloads: synthetic kernels described in Lua, and the embedded suite.
--
--   local k = assert(workloads.kernel {
--     name = "saxpy", grid = 2048, block = 256, trips = 8,
--     streams = { x = { kind = "coalesced", footprint = 64 << 20 },
--                 y = { kind = "coalesced", footprint = 64 << 20, base = 0x40000000 } },
--     body = {
--       { "ld_global", stream = "x" },
--       { "ld_global", stream = "y" },
--       { "fp32", dep = 1 },            -- waits for the y load
--       { "st_global", stream = "y", dep = 1 },
--     },
--   })
--
-- A body entry is { class, dep = distance back to its producer in the warp's
-- instruction stream, or a list of up to four distances (every producer:
-- dep = { 1, 3 }; 0: none; reaching before the body's start means the
-- previous trip), width = bytes per lane (memory), stream = name, active =
-- lanes (0/absent: all) }.  Streams: coalesced, strided (stride bytes between
-- lanes), random (gather over the footprint), chase (one random address per
-- warp: pointer chasing), shared (a shared-memory tile; stride between lanes).
-- Generation is in C, deterministic for a seed.
--
-- The embedded suite (M.suite) has one kernel per bottleneck regime, each
-- named by what it is and carrying its regime and claim (the bound that
-- binds on gtx1080, gpush.workloads.regimes); M.bound computes a
-- description's bounds without building it (gpush.workloads.analytic), and
-- M.variants generates seeded families of the suite's kernels for studies
-- and corpora.  docs/workloads.md describes all of it.
local analytic = require "gpush.workloads.analytic"
local bounds = require "gpush.bounds"
local core = require "gpush.core"
local regimes = require "gpush.workloads.regimes"
local text = require "gpush.text"
local closest = text.closest

local M = {}

local classes = {
  "int", "fp32", "imad", "fp64", "sfu", "tensor", "uniform", "branch", "other", "barrier",
  "barrier_arrive", "ld_global", "st_global", "ld_local", "st_local", "ld_shared", "st_shared",
  "ld_const", "tex", "atom_global", "atom_shared", "ldgsts", "depbar",
}
local is_class = {}
for _, c in ipairs(classes) do
  is_class[c] = true
end
local memory_classes = {
  ld_global = true, st_global = true, ld_local = true, st_local = true, ld_shared = true,
  st_shared = true, tex = true, atom_global = true, atom_shared = true, ldgsts = true,
}
local stream_kinds = { coalesced = true, strided = true, random = true, chase = true, shared = true }

-- Raises a description's problem at the caller of M.compile (`extra`
-- levels further down when raised from a helper of it).
local function fail(desc, message, extra)
  error(("workload '%s': %s"):format(desc.name or "?", message), 3 + (extra or 0))
end

-- The instructions of one list of a description (its body, prologue or
-- epilogue) in core.synth's form; `what` names an entry in messages.
local function compile_ops(desc, list, what, stream_index, names)
  if type(list) ~= "table" then
    fail(desc, ("%ss must be a list, got a %s"):format(what, type(list)), 1)
  end
  local ops = {}
  for i, op in ipairs(list) do
    local class = op[1] or op.class
    if not is_class[class] then
      local guess = closest(tostring(class), classes)
      fail(desc, ("%s %d has class '%s'%s"):format(what, i, tostring(class),
        guess and (" (did you mean '" .. guess .. "'?)") or ""), 1)
    end
    local stream
    if memory_classes[class] then
      stream = stream_index[op.stream]
      if not stream then
        fail(desc, ("%s %d (%s) needs stream = one of: %s"):format(what, i, class,
          #names > 0 and table.concat(names, ", ") or "(no streams declared)"), 1)
      end
    end
    ops[i] = { class = class, dep = op.dep, width = op.width, stream = stream, active = op.active }
  end
  return ops
end

-- Turns a friendly description (named streams, positional class) into the
-- form core.synth takes, checking it with messages that say what to fix.
function M.compile(desc)
  if type(desc) ~= "table" then
    error("gpush.workloads: a workload is a table, got " .. type(desc), 2)
  end
  local stream_index, streams = {}, {}
  local names = text.sorted_keys(desc.streams or {})
  for i, name in ipairs(names) do
    local s = desc.streams[name]
    if not stream_kinds[s.kind] then
      fail(desc, ("stream '%s' has kind '%s'; expected coalesced, strided, random, chase or shared")
        :format(name, tostring(s.kind)))
    end
    stream_index[name] = i
    streams[i] = { kind = s.kind, base = s.base, footprint = s.footprint, stride = s.stride, reuse = s.reuse }
  end
  if type(desc.body) ~= "table" or #desc.body == 0 then
    fail(desc, "needs a body: a list of instructions such as { 'fp32', dep = 1 }")
  end
  local body = compile_ops(desc, desc.body, "instruction", stream_index, names)
  local prologue = desc.prologue and compile_ops(desc, desc.prologue, "prologue instruction", stream_index, names)
  local epilogue = desc.epilogue and compile_ops(desc, desc.epilogue, "epilogue instruction", stream_index, names)
  return {
    name = desc.name, grid = desc.grid, block = desc.block, regs = desc.regs, shmem = desc.shmem,
    trips = desc.trips, trip_spread = desc.trip_spread, seed = desc.seed or 1,
    binary_version = desc.binary_version, streams = streams, body = body, prologue = prologue,
    epilogue = epilogue,
  }
end

-- Generates a kernel from a description; returns it or nil, message.
function M.kernel(desc)
  return core.synth(M.compile(desc))
end

-- A stable hash of a description (for provenance): FNV-1a over its
-- canonical text.
function M.hash(desc)
  local parts = {}
  local function walk(v, prefix)
    if type(v) == "table" then
      local keys = {}
      for k in pairs(v) do
        keys[#keys + 1] = k
      end
      table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
      for _, k in ipairs(keys) do
        walk(v[k], prefix .. "/" .. tostring(k))
      end
    else
      parts[#parts + 1] = prefix .. "=" .. tostring(v)
    end
  end
  walk(desc, "")
  local h = -3750763034362895579
  for _, line in ipairs(parts) do
    for i = 1, #line do
      h = (h ~ line:byte(i)) * 1099511628211
    end
  end
  return ("%016x"):format(h)
end

-- The embedded suite -------------------------------------------------------

-- A regime entry's parameters: its defaults overridden by p.
local function params_of(entry, p)
  local out = {}
  for k, v in pairs(entry.defaults) do
    out[k] = v
  end
  for k, v in pairs(p or {}) do
    out[k] = v
  end
  return out
end

-- The description of a regime's kernel at parameters p, with its metadata.
local function described(entry, p, name)
  local d = entry.make(p)
  d.name = name
  d.regime = entry.regime
  d.base = entry.name
  d.summary = entry.summary
  d.claim = entry.claim
  d.params = p
  return d
end

M.regimes = regimes.list

-- The description of a regime-format entry (a regime of
-- gpush.workloads.regimes, or any table of that shape: name, regime,
-- summary, defaults, make) at parameters p over its defaults, named `name`
-- (default the entry's), with its metadata.
function M.describe(entry, p, name)
  return described(entry, params_of(entry, p), name or entry.name)
end

-- The base kernels, one per regime entry, at their default parameters.
M.suite = {}
for i, entry in ipairs(regimes.list) do
  M.suite[i] = described(entry, params_of(entry), entry.name)
end

local by_name = {}
for _, w in ipairs(M.suite) do
  by_name[w.name] = w
end

-- The names of the suite's kernels, in order.
function M.names()
  local names = {}
  for i, w in ipairs(M.suite) do
    names[i] = w.name
  end
  return names
end

-- A suite kernel's description by name, or nil and a message.
function M.get(name)
  local w = by_name[name]
  if w then
    return w
  end
  local guess = closest(name, M.names())
  return nil, ("no workload '%s' in the suite%s; it has %s"):format(name,
    guess and (" (did you mean '" .. guess .. "'?)") or "", table.concat(M.names(), ", "))
end

-- A base kernel at other parameters: workloads.make("l2_resident", { grid = 40 }).
function M.make(name, p)
  for _, entry in ipairs(regimes.list) do
    if entry.name == name then
      return described(entry, params_of(entry, p), name)
    end
  end
  local _, message = M.get(name)
  error("gpush.workloads.make: " .. message, 2)
end

-- Bounds from a description --------------------------------------------------

-- A description's first-principles bounds on a configuration, computed from
-- the description alone (nothing is generated): gpush.bounds' report plus
-- `info` (footprint: distinct bytes touched, dram_bytes, flops,
-- flop_per_byte).  A block that does not fit on an SM is nil, message.
function M.bound(desc, cfg)
  local geometry = analytic.geometry(desc)
  local occupancy = require "gpush.occupancy"
  local fits, limit = occupancy.blocks_per_sm(cfg, geometry)
  if fits == 0 then
    return nil, ("workload '%s' does not fit on one SM of '%s' (limit: %s)"):format(desc.name or "?",
      cfg._name or "?", tostring(limit))
  end
  local counts, info = analytic.counts(desc, cfg)
  local r = bounds.compute(counts, cfg, geometry)
  r.info = info
  return r
end

-- Variants -------------------------------------------------------------------

-- splitmix64: the next state and a well-mixed 64-bit value.
local function splitmix(state)
  state = state + 0x9e3779b97f4a7c15
  local z = state
  z = (z ~ (z >> 30)) * 0xbf58476d1ce4e5b9
  z = (z ~ (z >> 27)) * 0x94d049bb133111eb
  return state, z ~ (z >> 31)
end

-- A uniform integer in [lo, hi] from the generator table g.
local function draw(g, lo, hi)
  local value
  g.state, value = splitmix(g.state)
  return lo + (value >> 1) % (hi - lo + 1)
end

local function draw_params(entry, g)
  local p = params_of(entry)
  local names = {}
  for k in pairs(entry.ranges) do
    names[#names + 1] = k
  end
  table.sort(names)
  for _, k in ipairs(names) do
    local range = entry.ranges[k]
    if range.values then
      p[k] = range.values[draw(g, 1, #range.values)]
    else
      p[k] = draw(g, range[1], range[2])
    end
  end
  p.seed = draw(g, 1, 1 << 30)
  return p
end

-- A seeded, deterministic family of the suite's kernels for studies and
-- corpora.  opts: seed (default 1), count (default 8 per regime entry:
-- 128), regimes (base kernel or regime names; default all), per (variants
-- per entry, instead of count), entries (regime-format entries to draw
-- from instead of the suite's, such as gpush.ml.families').  Each variant is a description like the
-- suite's (name "<base>.v<n>", regime, base, claim, params) with parameters
-- drawn from its entry's ranges: grid, block, registers and shared memory
-- (so occupancy varies), trips and the regime's intensity knobs.  Variants
-- are distinct (no two have the same parameters) and small: each simulates
-- in about 40 ms or less on one core.
function M.variants(opts)
  opts = opts or {}
  if type(opts) ~= "table" then
    error("gpush.workloads.variants: expected an options table, got " .. type(opts), 2)
  end
  local pool = opts.entries or regimes.list
  local chosen = {}
  if opts.regimes then
    for _, want in ipairs(opts.regimes) do
      local found = false
      for _, entry in ipairs(pool) do
        if entry.name == want or entry.regime == want then
          chosen[#chosen + 1], found = entry, true
        end
      end
      if not found then
        error(("gpush.workloads.variants: no regime or base kernel '%s'"):format(tostring(want)), 2)
      end
    end
  else
    chosen = pool
  end
  local per = opts.per
  local count = opts.count or (per and per * #chosen) or 8 * #chosen
  if math.type(count) ~= "integer" or count < 0 then
    error("gpush.workloads.variants: count must be a non-negative integer", 2)
  end
  local g = { state = math.tointeger(opts.seed or 1) or error("gpush.workloads.variants: seed must be an integer", 2) }
  local out, seen, numbered = {}, {}, {}
  local attempts = 0
  while #out < count do
    local entry = chosen[#out % #chosen + 1]
    local p = draw_params(entry, g)
    local key = entry.name .. M.hash(p)
    attempts = attempts + 1
    if not seen[key] then
      seen[key] = true
      numbered[entry.name] = (numbered[entry.name] or 0) + 1
      local d = described(entry, p, ("%s.v%d"):format(entry.name, numbered[entry.name]))
      d.variant = numbered[entry.name]
      out[#out + 1] = d
    elseif attempts > 100 * (count + 1) then
      error(("gpush.workloads.variants: only %d distinct variants of these regimes"):format(#out), 2)
    end
  end
  return out
end

-- The descriptions a workload input names: "suite" (the base kernels),
-- "suite:NAME" (one), "variants" (variants{}) or "variants:NAME" (the
-- default variants of one base kernel or regime), or a generated workload
-- {label = NAME, descs = {descriptions}} (its descs).  Returns the list; nil
-- when the input is not a workload name (a trace path); nil, message for
-- an unknown NAME.
function M.resolve(input)
  if type(input) == "table" then
    return input.descs
  end
  local kind, name = input:match("^(suite):(.+)$")
  if not kind then
    kind, name = input:match("^(variants):(.+)$")
  end
  kind = kind or ((input == "suite" or input == "variants") and input)
  if not kind then
    return nil
  end
  if kind == "suite" then
    if not name then
      return M.suite
    end
    local desc, message = M.get(name)
    if not desc then
      return nil, message
    end
    return { desc }
  end
  if not name then
    return M.variants {}
  end
  for _, entry in ipairs(regimes.list) do
    if entry.name == name or entry.regime == name then
      return M.variants { regimes = { name }, per = 8 }
    end
  end
  local _, message = M.get(name)
  return nil, message:gsub("^no workload", "no variants of")
end

-- The Lua standard library's parts a description file may use: no io, os,
-- require, load or debug, so a file a measured CSV names cannot touch
-- anything but the description it returns.
local SAFE_GLOBALS = {
  "math", "string", "table", "utf8", "ipairs", "pairs", "select", "tonumber", "tostring", "type",
  "error", "assert", "next", "pcall", "setmetatable", "getmetatable", "rawget", "rawset", "rawequal",
}

-- Runs one description file in `env`, with env.dofile loading a file named
-- relative to this one's folder into the same environment (so a file can
-- share a helper beside it: `dofile("common.lua")`).
local function run_description_file(path, env)
  local dir = path:match("^(.*[/\\])") or ""
  local chunk, load_err = loadfile(path, "t", env)
  if not chunk then
    return false, load_err
  end
  local saved = env.dofile
  env.dofile = function(name)
    local target = name:match("^/") and name or dir .. name
    local ok, result = run_description_file(target, env)
    if not ok then
      error(result, 2)
    end
    return result
  end
  local ok, result = pcall(chunk)
  env.dofile = saved
  return ok, result
end

-- A workload description from a Lua file: the file returns a description,
-- or a function(values) returning one (values: a table of named inputs, such
-- as a measured CSV row's cells).  The file runs with the standard library's
-- safe parts only (SAFE_GLOBALS) plus dofile(NAME), which loads NAME
-- relative to the file's folder in the same environment.  Returns the
-- description table (the file's own; copy it before changing it), or nil and
-- a message naming the file.
function M.load_file(path, values)
  local env = {}
  for _, name in ipairs(SAFE_GLOBALS) do
    env[name] = _G[name]
  end
  local ok, desc = run_description_file(path, env)
  if ok and type(desc) == "function" then
    ok, desc = pcall(desc, values or {})
  end
  if not ok then
    return nil, tostring(desc)
  end
  if type(desc) ~= "table" then
    return nil, ("%s returned %s: expected a workload description (a table; docs/workloads.md) or a"
      .. " function returning one"):format(path, type(desc))
  end
  return desc
end

return M
