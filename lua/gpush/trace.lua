-- gpush.trace: Accel-Sim traces, one kernel launch at a time.
--
--   local t = assert(trace.open("../shared/traces/bfs-rodinia-sm80"))
--   for launch, kernel in t:kernels("Kernel2") do
--     print(launch.launch, kernel:info().warp_instructions)
--   end
--
-- A path is a kernelslist.g, a folder holding one, or a single .traceg
-- (optionally .gz, .xz or .gpt).  Only one launch is in memory at a time:
-- the iterator loads a kernel when it is reached and closes it (frees its
-- memory) at the next step, before loading the next, so peak memory follows
-- the largest launch, not the file.  A caller that keeps kernels beyond
-- their step passes { keep = true } and closes them itself (kernel:close(),
-- or `local k <close> = kernel`; the collector frees them otherwise).
local cache = require "gpush.cache"
local core = require "gpush.core"

-- gpush.workloads (the suite's descriptions: three modules, 48 KB of Lua)
-- is loaded by the inputs that name it, so a run on a trace does not
-- compile it.
local function workloads()
  return require "gpush.workloads"
end

-- workloads().resolve(input), without loading gpush.workloads for a path
-- (an input that is neither a table nor a name starting with suite or
-- variants resolves to nil there too).
local function resolve(input)
  if type(input) == "string" and not (input:match("^suite") or input:match("^variants")) then
    return nil
  end
  return workloads().resolve(input)
end

local M = {}

local Trace = {}
Trace.__index = Trace

-- The cap on compressed trace input, in MiB: the decompressed text of one
-- file and the memory of a launch parsed from it (the xz decoder gets half):
-- GPUSH_TRACE_LIMIT_MB, else 512 (docs/traces.md, Bad input).  Plain files
-- are bounded by their size.  Returns the number, or nil and a message.
function M.limit_mb()
  local text = os.getenv("GPUSH_TRACE_LIMIT_MB")
  if text == nil or text == "" then
    return M.DEFAULT_LIMIT_MB
  end
  local mb = math.tointeger(tonumber(text))
  if not mb or mb < 1 then
    return nil, ("GPUSH_TRACE_LIMIT_MB=%s: expected a whole number of MiB, at least 1 (default %d)")
      :format(text, M.DEFAULT_LIMIT_MB)
  end
  return mb
end
M.DEFAULT_LIMIT_MB = 512

-- The parsed-trace cache (docs/traces.md, "The parsed-trace cache"): the
-- folder and its size in MiB, from GPUSH_TRACE_CACHE ("off" or "0": none;
-- a folder; unset: the user's cache folder's traces/) and
-- GPUSH_TRACE_CACHE_MB (default 2048; 0: no limit); nil when there is no
-- cache, or no folder for one.
M.DEFAULT_CACHE_MB = 2048
function M.cache_settings()
  local setting = os.getenv("GPUSH_TRACE_CACHE")
  local mb = math.tointeger(tonumber(os.getenv("GPUSH_TRACE_CACHE_MB") or "")) or M.DEFAULT_CACHE_MB
  if setting == "off" or setting == "0" then
    return nil
  end
  if setting and setting ~= "" then
    return core.mkdir(setting) and setting or nil, mb
  end
  return cache.dir("traces"), mb
end

-- Opens a trace; returns a Trace or nil, message.  opts.limit_mb: the cap
-- on compressed input (default M.limit_mb()); opts.cache = false reads
-- every launch from its text, the parsed-trace cache aside.
function M.open(path, opts)
  if type(path) ~= "string" then
    error("gpush.trace.open: expected a path, got " .. type(path), 2)
  end
  local limit, limit_err = opts and opts.limit_mb, nil
  if not limit then
    limit, limit_err = M.limit_mb()
    if not limit then
      return nil, limit_err
    end
  end
  local reader, err = core.trace_open(path, limit)
  if not reader then
    return nil, err
  end
  if not (opts and opts.cache == false) then
    local dir, mb = M.cache_settings()
    if dir then
      assert(reader:set_cache(dir, math.max(0, mb)))
    end
  end
  return setmetatable({ path = path, reader = reader }, Trace)
end

-- Parses a kernel from a string holding a whole .traceg (tests, tools).
function M.parse(text, name)
  return core.kernel_parse(text, name)
end

-- A launch filter from a spec: nil (all), a number (launch id), or a string
-- of comma-separated items, each a launch id, a range "3-5", or a kernel
-- name (an exact name, or any name containing it).  A range that runs
-- backwards ("5-3") raises.
function M.filter(spec)
  if spec == nil or spec == "" then
    return function() return true end
  end
  if type(spec) == "number" then
    return function(launch) return launch.launch == spec end
  end
  if type(spec) ~= "string" then
    error("gpush.trace.filter: expected a launch id, a range or a kernel name, got " .. type(spec), 2)
  end
  local tests = {}
  for item in spec:gmatch("[^,]+") do
    item = item:match("^%s*(.-)%s*$")
    local lo, hi = item:match("^(%d+)%-(%d+)$")
    if lo then
      lo, hi = tonumber(lo), tonumber(hi)
      if lo > hi then
        error(("--kernel %s: the range %s runs backwards: expected LOW-HIGH (%d-%d)"):format(spec, item, hi, lo), 0)
      end
      tests[#tests + 1] = function(l) return l.launch >= lo and l.launch <= hi end
    elseif item:match("^%d+$") then
      local id = tonumber(item)
      tests[#tests + 1] = function(l) return l.launch == id end
    else
      tests[#tests + 1] = function(l) return l.kernel == item or l.kernel:find(item, 1, true) ~= nil end
    end
  end
  return function(launch)
    for _, test in ipairs(tests) do
      if test(launch) then
        return true
      end
    end
    return false
  end
end

-- Iterates (launch, kernel) over the launches matching `spec`; a launch that
-- cannot be read raises its message (file:line: what was expected).  Each
-- kernel is closed at the next step unless opts.keep.
function Trace:kernels(spec, opts)
  local keep = M.filter(spec)
  local previous
  local closes = not (opts and opts.keep)
  return function()
    if previous and closes then
      previous:close()
    end
    previous = nil
    while true do
      local launch, err = self.reader:next()
      if launch == nil then
        if err then
          error(err, 0)
        end
        return nil
      end
      if keep(launch) then
        local kernel, load_err = self.reader:load()
        if not kernel then
          error(load_err, 0)
        end
        previous = kernel
        return launch, kernel
      end
    end
  end
end

-- The (launch, kernel) pairs of an input: a trace path, or a synthetic
-- workload name ("suite", "suite:NAME", "variants", "variants:NAME": see
-- gpush.workloads.resolve); returns an iterator, or nil and a message.  A
-- kernel that cannot be read raises its message.  Each kernel is closed at
-- the next step unless opts.keep (see Trace:kernels).
function M.kernels_of(input, spec, opts)
  local filter_ok, filter_err = pcall(M.filter, spec)
  if not filter_ok then
    return nil, filter_err
  end
  local list, problem = resolve(input)
  if problem then
    return nil, problem
  end
  if list then
    local i, keep, previous = 0, M.filter(spec), nil
    local closes = not (opts and opts.keep)
    return function()
      if previous and closes then
        previous:close()
      end
      previous = nil
      while i < #list do
        i = i + 1
        local launch = { launch = i, kernel = list[i].name }
        if keep(launch) then
          local kernel, message = workloads().kernel(list[i])
          if not kernel then
            error(message, 0)
          end
          previous = kernel
          return launch, kernel
        end
      end
    end
  end
  local t, message = M.open(input)
  if not t then
    return nil, message
  end
  return t:kernels(spec, opts)
end

-- The files an input reads: its kernelslist.g (if any) and its trace files;
-- {} for a synthetic workload (suite, suite:NAME, variants, variants:NAME).
-- Returns nil, message when the input cannot be opened.
function M.input_files(input)
  local list, problem = resolve(input)
  if problem then
    return nil, problem
  end
  if list then
    return {}
  end
  local t, message = M.open(input)
  if not t then
    return nil, message
  end
  local files = t.reader:files()
  t:close()
  return files
end

-- The input files of this trace (see M.input_files).
function Trace:files()
  return self.reader:files()
end

-- The kernels of every input (trace paths, "suite", "suite:NAME",
-- "variants", "variants:NAME", or generated kernels {label = ...,
-- descs = {workload descriptions}}), listed
-- from the headers only: {workload, position, kernel, launch} in input
-- order, then launch order (what gpush.experiment plans a sweep over); or
-- nil and a message.
function M.list(inputs)
  local list = {}
  for _, input in ipairs(inputs) do
    local descs, problem = resolve(input)
    if problem then
      return nil, problem
    end
    if descs then
      local label = type(input) == "table" and input.label or input
      for i, desc in ipairs(descs) do
        list[#list + 1] = { workload = label, position = i, kernel = desc.name, launch = i, desc = desc }
      end
    else
      local t, err = M.open(input)
      if not t then
        return nil, err
      end
      while true do
        local launch, next_err = t.reader:next()
        if not launch then
          if next_err then
            t:close()
            return nil, next_err
          end
          break
        end
        list[#list + 1] = { workload = input, position = launch.index, kernel = launch.kernel,
          launch = launch.launch }
      end
      t:close()
    end
  end
  return list
end

-- A loader of M.list's entries: load(entry) -> kernel, or nil and a message.
-- Entries taken in list order read each trace once from its start.
function M.loader()
  local open = {} -- workload -> {trace, position}
  return function(entry)
    if entry.desc then
      return workloads().kernel(entry.desc)
    end
    local state = open[entry.workload]
    if not state or state.position >= entry.position then
      if state then
        state.trace:close()
      end
      local t, err = M.open(entry.workload)
      if not t then
        return nil, err
      end
      state = { trace = t, position = 0 }
      open[entry.workload] = state
    end
    while state.position < entry.position do
      local launch, err = state.trace.reader:next()
      if not launch then
        return nil, err or ("%s: launch %d is gone"):format(entry.workload, entry.position)
      end
      state.position = launch.index
    end
    return state.trace.reader:load()
  end
end

-- MemcpyHtoD lines of a kernelslist.g: count and total bytes.
function Trace:memcpy()
  return self.reader:memcpy()
end

function Trace:close()
  self.reader:close()
end

return M
