-- gpush.ml.corpus: the simulated training corpus of the scaling-surface
-- models (Wu et al., HPCA 2015; docs/ml.md).  No GPU is at hand, so every
-- kernel of the corpus's families (gpush.ml.families) runs on gpush's
-- simulator at every configuration of a CU x engine-clock x memory-clock
-- grid on the hd7970 preset, with the Table II counters (gpush.ml.counters)
-- and the activity power model (gpush.ml.power) at each.  SIMULATED, not
-- measured: every output says so.
--
--   local ds, info = assert(corpus.load { grid = "default", jobs = 2 })
--   info.path, info.cached, info.seconds, info.dropped, info.resumed
--
-- It runs on the experiment engine (workers, progress, shards: a big grid
-- runs as a Slurm array like any sweep, then `gpush merge`), and keeps the
-- result in the user's cache folder ($XDG_CACHE_HOME/gpush, else
-- ~/.cache/gpush; never the install tree) under a hash of every input: the
-- grid, the preset's resolved configuration, the kernels' descriptions,
-- the simulator policy and the gpush version.  The build is checkpointed
-- kernel by kernel (through gpush.ml.files) and resumes after an interrupt.
local cache = require "gpush.cache"
local config = require "gpush.config"
local core = require "gpush.core"
local counters = require "gpush.ml.counters"
local dataset = require "gpush.ml.dataset"
local experiment = require "gpush.experiment"
local files = require "gpush.ml.files"
local families = require "gpush.ml.families"
local json = require "gpush.json"
local models = require "gpush.models"
local parallel = require "gpush.parallel"
local power = require "gpush.ml.power"
local progress = require "gpush.progress"
local results = require "gpush.results"
local workloads = require "gpush.workloads"

local sim = assert(models.family("sim"))

local M = {}

M.PRESET = "hd7970"
M.POLICY = "lrr"
M.NAME = "ml_corpus"

-- Grids: the paper's 8 x 8 x 7 (L240) and documented subsets of it.
local PAPER = {
  cus = { 4, 8, 12, 16, 20, 24, 28, 32 },
  core_mhz = { 300, 400, 500, 600, 700, 800, 900, 1000 },
  mem_mhz = { 475, 625, 775, 925, 1075, 1225, 1375 },
}
M.GRIDS = {
  full = PAPER,
  -- every CU count, every other engine and memory clock (ends kept)
  default = { cus = PAPER.cus, core_mhz = { 300, 500, 700, 1000 }, mem_mhz = { 475, 775, 1075, 1375 } },
  -- the small grid the test suite builds
  ci = { cus = { 8, 32 }, core_mhz = { 300, 1000 }, mem_mhz = { 475, 1375 } },
}
M.GRID_NAMES = { "default", "full", "ci" }

-- Sizing (the analogue of the paper's 1 ms rule, L244): the variants are
-- sized for a 20-SM GPU and most would be mostly launch overhead on 32 CUs
-- at 1 GHz, so each kernel's grid is multiplied until the launch is at most
-- TARGET_LAUNCH_SHARE of its time at the grid's fastest configuration (at
-- most SIZING_ROUNDS simulations, the grid at most MAX_GRID_SCALE times its
-- own); a kernel still more than MAX_LAUNCH_SHARE launch overhead is dropped.
M.TARGET_LAUNCH_SHARE = 0.2
M.MAX_LAUNCH_SHARE = 0.25
M.SIZING_ROUNDS = 6
M.MAX_GRID_SCALE = 256

local function grid_of(grid)
  if type(grid) == "table" then
    return grid
  end
  local g = M.GRIDS[grid or "default"]
  if not g then
    return nil, ("unknown grid '%s' (expected %s)"):format(tostring(grid), table.concat(M.GRID_NAMES, ", "))
  end
  return g
end

-- Variants per family: PER_FAMILY, or what GRID_VARIANTS gives for a named
-- grid (the test suite's ci grid one, so its build stays within a minute on
-- two cores).
M.PER_FAMILY = 3
M.GRID_VARIANTS = { ci = 1 }

-- The kernel families (gpush.ml.families: the regime suite's sixteen and
-- the mixes), opts.per (default PER_FAMILY) seeded variants of each, before
-- sizing (M.size).  opts: seed (default 1), per.
function M.kernels(opts)
  opts = opts or {}
  return workloads.variants { entries = families.list, seed = opts.seed or 1, per = opts.per or M.PER_FAMILY }
end

-- A variant with its grid multiplied by `scale` (same name and parameters
-- otherwise; the scale is kept as grid_scale).
local function scaled(d, scale)
  local p = {}
  for key, v in pairs(d.params) do
    p[key] = v
  end
  p.grid = d.params.grid * scale
  local out = families.describe(d, p)
  out.grid_scale = scale
  return out
end

-- The numeric columns of the corpus model: time, power, Table II.
local function value_columns()
  local columns = { "time_us", "power_w" }
  for _, name in ipairs(dataset.TABLE_II) do
    columns[#columns + 1] = name
  end
  return columns
end

-- The sweep's model: the simulator, then the Table II counters and the
-- activity power at the same configuration, and the kernel's family
-- (family_of: kernel name -> family name; the dataset's `family` column,
-- which the family split of gpush.ml.evaluate reads).
function M.model(family_of)
  local columns = value_columns()
  columns[#columns + 1] = "family"
  family_of = family_of or {}
  return {
    name = "sim-" .. M.POLICY .. "+power",
    columns = columns,
    run = function(kernel, cfg)
      local r, err = sim.run(kernel, cfg, { policy = M.POLICY })
      if not r then
        return nil, err
      end
      local row = counters.table_ii(r, cfg)
      row.time_us = r.time_us
      row.power_w = power.estimate(cfg, r)
      row.family = family_of[kernel:info().kernel]
      return row
    end,
  }
end

-- The configuration at the grid's top (every axis at its largest value).
local function fastest(grid, preset)
  return assert(config.load(preset or M.PRESET, { "sm.count=" .. grid.cus[#grid.cus],
    "clock.core_mhz=" .. grid.core_mhz[#grid.core_mhz], "clock.mem_mhz=" .. grid.mem_mhz[#grid.mem_mhz] }))
end

-- How much one kernel's grid is multiplied (see TARGET_LAUNCH_SHARE):
-- simulated at the fastest configuration `cfg`, the grid multiplied by
-- ceil(wanted work / simulated work) until the launch share is at most the
-- target (a kernel with fewer blocks than the CUs hold does not lengthen
-- in proportion, so the next round measures again).  Returns {scale,
-- share} or raises.
local function sizing(d, cfg)
  local launch_us = cfg.launch.kernel_cycles / cfg.clock.core_mhz
  local wanted_us = launch_us * (1 / M.TARGET_LAUNCH_SHARE - 1)
  local sized, scale, share = d, 1, 1
  for round = 1, M.SIZING_ROUNDS do
    local r = assert(sim.run(assert(workloads.kernel(sized)), cfg, { policy = M.POLICY }))
    share = launch_us / r.time_us
    local grow = math.min(math.ceil(wanted_us / math.max(r.time_us - launch_us, 1e-3)), M.MAX_GRID_SCALE // scale)
    if share <= M.TARGET_LAUNCH_SHARE or round == M.SIZING_ROUNDS or not d.params or grow <= 1 then
      break
    end
    scale = scale * grow
    sized = scaled(d, scale)
  end
  return { scale = scale, share = share }
end

-- The sizes of the kernels, one simulation round per kernel on opts.jobs
-- workers (parallel.map; opts.quiet): per kernel {scale, share}, or nil
-- and a message.
local function sizes_of(descs, grid, preset, opts)
  local cfg = fastest(grid, preset)
  local ok, sizes = pcall(parallel.map, #descs, function(i)
    return sizing(descs[i], cfg)
  end, { jobs = opts.jobs, quiet = opts.quiet, label = "sizing the corpus's kernels",
    progress_stream = opts.progress_stream })
  if not ok then
    return nil, tostring(sizes)
  end
  return sizes
end

-- The sized descriptions and the names of those dropped (still above
-- MAX_LAUNCH_SHARE), from the sizes.
local function apply_sizes(descs, sizes)
  local kept, dropped = {}, {}
  for i, d in ipairs(descs) do
    if sizes[i].share > M.MAX_LAUNCH_SHARE then
      dropped[#dropped + 1] = d.name
    else
      kept[#kept + 1] = sizes[i].scale > 1 and scaled(d, sizes[i].scale) or d
    end
  end
  return kept, dropped
end

-- The kernels sized for the grid: the sized descriptions and the names of
-- those dropped, or nil and a message.  opts: jobs, quiet,
-- progress_stream.
function M.size(descs, grid, preset, opts)
  local sizes, err = sizes_of(descs, grid, preset, opts or {})
  if not sizes then
    return nil, err
  end
  return apply_sizes(descs, sizes)
end

-- The user's cache folder for gpush: $XDG_CACHE_HOME/gpush, else
-- ~/.cache/gpush (created on demand); or nil and a message saying what to
-- set.
function M.cache_dir()
  local dir, err = cache.dir()
  if not dir then
    return nil, ("no cache folder for the ML corpus: %s; set XDG_CACHE_HOME to a folder you can write,"
      .. " or give the data with --data CSV"):format(err)
  end
  return dir
end

-- A fingerprint of the code that makes a corpus: the first kernel's row at
-- the grid's fastest configuration (simulator, counters and power model),
-- so a change to any of them that moves a number names another cache file.
local function probe(grid, descs, preset)
  local row = assert(M.model().run(assert(workloads.kernel(descs[1])), fastest(grid, preset)))
  local parts = {}
  for _, column in ipairs(value_columns()) do
    parts[#parts + 1] = ("%s=%.17g"):format(column, row[column] or 0 / 0)
  end
  return core.digest(table.concat(parts, ";"))
end

-- The Lua modules whose code computes a corpus row (sizing, the
-- simulator's row, the counters, the power model, the kernels, the
-- configuration as C sees it).
M.CODE_MODULES = { "gpush.ml.corpus", "gpush.ml.counters", "gpush.ml.power", "gpush.ml.families",
  "gpush.models.sim", "gpush.models.vocabulary", "gpush.bounds", "gpush.occupancy", "gpush.machine",
  "gpush.config", "gpush.schema", "gpush.workloads", "gpush.workloads.regimes", "gpush.workloads.analytic",
  "gpush.experiment" }

-- The identity of the code that makes a corpus: the numeric core's
-- (core.code_id, a hash of its sources made at build time) and a digest of
-- the sources of M.CODE_MODULES, so a corpus cached or checkpointed by other
-- code (an upgrade, an edit, another branch) is never taken for this
-- one's.  The probe alone missed a memory-model change that left the
-- probe's compute-bound first kernel as it was.
function M.code_identity()
  local parts = { core.code_id() }
  for _, name in ipairs(M.CODE_MODULES) do
    local path = package.searchpath(name, package.path)
    local f = path and io.open(path, "rb")
    parts[#parts + 1] = name .. "=" .. (f and core.digest(f:read("a")) or "?")
    if f then
      f:close()
    end
  end
  return core.digest(table.concat(parts, ";"))
end

-- The hash of everything a corpus depends on.
function M.key(grid, descs, preset)
  local cfg = assert(config.load(preset or M.PRESET))
  local hashes = {}
  for i, d in ipairs(descs) do
    hashes[i] = workloads.hash(d)
  end
  return core.digest(json.encode { gpush = core.version(), preset = preset or M.PRESET,
    config = config.hash(cfg), grid = { grid.cus, grid.core_mhz, grid.mem_mhz }, kernels = hashes,
    policy = M.POLICY, sizing = { M.TARGET_LAUNCH_SHARE, M.MAX_LAUNCH_SHARE, M.SIZING_ROUNDS, M.MAX_GRID_SCALE },
    columns = M.model().columns, probe = probe(grid, descs, preset), code = M.code_identity() })
end

local function grid_label(name, grid)
  return ("%s (%d CU counts x %d engine clocks x %d memory clocks = %d configurations)"):format(
    type(name) == "string" and name or "custom", #grid.cus, #grid.core_mhz, #grid.mem_mhz,
    #grid.cus * #grid.core_mhz * #grid.mem_mhz)
end

-- The experiment definition of sized kernels `kept` (those in `dropped`
-- named in the provenance): the grid's points, the model with every
-- kernel's family, the "simulated" marker.
local function definition_of(kept, dropped, grid, grid_name, preset)
  local scales, family_of = {}, {}
  for _, d in ipairs(kept) do
    family_of[d.name] = d.base
    if d.grid_scale then
      scales[#scales + 1] = ("%s x%d"):format(d.name, d.grid_scale)
    end
  end
  return {
    name = M.NAME,
    title = "ML corpus (SIMULATED on gpush's simulator, " .. preset .. ")",
    base = { preset = preset },
    parameters = {
      { path = "sm.count", values = grid.cus, column = "cus" },
      { path = "clock.core_mhz", values = grid.core_mhz, column = "core_mhz" },
      { path = "clock.mem_mhz", values = grid.mem_mhz, column = "mem_mhz" },
    },
    workloads = { { label = "variants", descs = kept } },
    models = { M.model(family_of) },
    seed = 1,
    provenance = {
      simulated = ("gpush's abstract simulator (%s scheduling) on the %s preset with the activity power model "
        .. "(gpush.ml.power); not measured on a GPU"):format(M.POLICY, preset),
      grid = grid_label(grid_name, grid),
      sized = ("grids multiplied until the launch is at most %.2f of the time at the fastest configuration: %s")
        :format(M.TARGET_LAUNCH_SHARE, #scales > 0 and table.concat(scales, ", ") or "none"),
      dropped = #dropped > 0 and ("%d kernels more than %.2f launch overhead at the fastest configuration: %s")
        :format(#dropped, M.MAX_LAUNCH_SHARE, table.concat(dropped, " ")) or "none",
    },
  }
end

-- The experiment definition of the corpus (for experiment.new or
-- experiment.main): its kernels sized first (M.size), the "simulated"
-- marker and the grid in the provenance.  opts: grid (a name or {cus,
-- core_mhz, mem_mhz}), descs (default M.kernels()), preset, and jobs and
-- quiet for the sizing.  Returns the definition, or nil and a message.
function M.definition(opts)
  opts = opts or {}
  local grid, err = grid_of(opts.grid)
  if not grid then
    return nil, err
  end
  local preset = opts.preset or M.PRESET
  local descs = opts.descs or M.kernels { per = M.GRID_VARIANTS[opts.grid] }
  local kept, dropped = M.size(descs, grid, preset, opts)
  if not kept then
    return nil, dropped
  end
  if #kept == 0 then
    return nil, "every kernel is mostly launch overhead at the grid's fastest configuration"
  end
  return definition_of(kept, dropped, grid, opts.grid, preset)
end

-- Runs the corpus sweep in one go (no checkpoints: scenarios/ml_corpus.lua
-- and its shards); returns the experiment Results or nil, message.  opts:
-- as M.definition, and jobs, quiet, shard, progress_stream, command.
function M.run(opts)
  local def, err = M.definition(opts)
  if not def then
    return nil, err
  end
  return experiment.run(experiment.new(def), { jobs = opts.jobs or 1, quiet = opts.quiet, shard = opts.shard,
    progress_stream = opts.progress_stream, command = opts.command })
end

-- The checkpointed build --------------------------------------------------------------

-- The sizes of descs, from the checkpoint when a previous run made them.
local function checkpointed_sizes(cp, descs, grid, preset, opts)
  local text = cp:has("sizing.json") and cp:read("sizing.json")
  local saved = text and json.decode(text)
  if type(saved) == "table" and #saved == #descs then
    return saved
  end
  local sizes, err = sizes_of(descs, grid, preset, opts)
  if not sizes then
    return nil, err
  end
  local ok, write_err = cp:write("sizing.json", json.encode(sizes) .. "\n")
  if not ok then
    return nil, write_err
  end
  return sizes
end

local function piece_name(i)
  return ("kernel-%04d.csv"):format(i)
end

-- The rows of kernel d from its checkpoint piece, or nil when the piece is
-- missing or not whole (every configuration of d, nothing failed).
local function piece_rows(cp, i, d, configs)
  local text = cp:has(piece_name(i)) and cp:read(piece_name(i))
  local res = text and results.from_csv(text, cp:path(piece_name(i)))
  if not res or res.incomplete or #res.failures > 0 or #res.rows ~= configs then
    return nil
  end
  for _, row in ipairs(res.rows) do
    if row.kernel ~= d.name then
      return nil
    end
  end
  return res
end

-- Simulates kernel d at every configuration (one experiment run of one
-- kernel) and writes its piece; the Results, or nil and a message.
local function simulate_piece(cp, i, def, d, opts)
  local one = {}
  for k, v in pairs(def) do
    one[k] = v
  end
  one.workloads = { { label = "variants", descs = { d } } }
  local res, err = experiment.run(experiment.new(one), { jobs = opts.jobs or 1, quiet = true,
    command = opts.command })
  if not res then
    return nil, err
  end
  if res.incomplete then
    return nil, res.incomplete
  end
  if #res.failures > 0 then
    return nil, ("the simulation of %s failed at %d configurations, e.g. %s"):format(d.name, #res.failures,
      res.failures[1].message)
  end
  local ok, write_err = cp:write(piece_name(i), res:to_csv())
  if not ok then
    return nil, write_err
  end
  return res
end

-- Builds the corpus CSV at `path` kernel by kernel, each kernel's rows kept
-- in the checkpoint folder path .. ".partial" as soon as they are done, so
-- an interrupted build resumes where it stopped (same inputs: the folder's
-- name carries the corpus's key).  The CSV is written only when every
-- kernel is done and it reads back as a complete dataset; then the folder
-- goes.  Returns info {resumed (kernels found done), kernels, dropped}, or
-- nil and a message (saying how far it got).
local function build(path, grid, grid_name, descs, preset, opts)
  local cp, cp_err = files.checkpoint(path .. ".partial")
  if not cp then
    return nil, cp_err
  end
  local sizes, size_err = checkpointed_sizes(cp, descs, grid, preset, opts)
  if not sizes then
    return nil, size_err
  end
  local kept, dropped = apply_sizes(descs, sizes)
  if #kept == 0 then
    return nil, "every kernel is mostly launch overhead at the grid's fastest configuration"
  end
  local def = definition_of(kept, dropped, grid, grid_name, preset)
  local configs = #grid.cus * #grid.core_mhz * #grid.mem_mhz
  local pieces, todo = {}, {}
  for i, d in ipairs(kept) do
    pieces[i] = piece_rows(cp, i, d, configs)
    if not pieces[i] then
      todo[#todo + 1] = i
    end
  end
  local resumed = #kept - #todo
  local stream = opts.progress_stream or io.stderr
  if resumed > 0 and not opts.quiet then
    stream:write(("ml corpus: resuming: %d of %d kernels already simulated (%s)\n"):format(resumed, #kept, cp.dir))
  end
  local bar = progress.new(#todo * configs, { label = "ml corpus", stream = opts.progress_stream, quiet = opts.quiet })
  for n, i in ipairs(todo) do
    local res, err = simulate_piece(cp, i, def, kept[i], opts)
    if not res then
      return nil, ("%s; %d of %d kernels are done and kept in %s: run the same command again to resume"):format(err,
        resumed + n - 1, #kept, cp.dir), err:find("interrupted", 1, true) and err
    end
    pieces[i] = res
    for _ = 1, configs do
      bar:step(false)
    end
  end
  bar:finish()
  local rows = {}
  for _, piece in ipairs(pieces) do
    for _, row in ipairs(piece.rows) do
      rows[#rows + 1] = row
    end
  end
  local sweep = experiment.new(def)
  local description = sweep:describe()
  local provenance = experiment.provenance(description, sweep:identity(),
    config.hash(assert(config.load(preset))), experiment.command_line(opts.command), sweep.notes)
  provenance.build_seconds = ("%.1f"):format(opts.seconds())
  provenance.resumed = resumed > 0 and ("%d of %d kernels from an interrupted build"):format(resumed, #kept) or nil
  local whole = results.new { columns = pieces[1].columns, rows = rows, failures = {}, provenance = provenance }
  local text = whole:to_csv()
  local ds, check_err = dataset.from_csv(text, path)
  if not ds or #ds.kernels ~= #kept then
    return nil, ("the assembled corpus does not read back whole: %s"):format(check_err or
      ("%d of %d kernels"):format(ds and #ds.kernels or 0, #kept))
  end
  local ok, write_err = files.write(path, text)
  if not ok then
    return nil, write_err
  end
  cp:clear()
  return { resumed = resumed, kernels = #kept, dropped = dropped }
end

-- The corpus of opts.grid (default "default"): from the cache when it is
-- there (unless opts.force), else built (resuming an interrupted build) and
-- cached (opts.on_build(info) is called first, info = {path, grid, kernels,
-- configurations}: the caller says what is about to take minutes).  Returns
-- the dataset and info {path, cached, seconds, kernels, dropped, resumed},
-- or nil, a message and (when a signal stopped the build) "interrupted
-- (SIGINT)" or "interrupted (SIGTERM)".
function M.load(opts)
  opts = opts or {}
  local grid, err = grid_of(opts.grid)
  if not grid then
    return nil, err
  end
  local descs = opts.descs or M.kernels { per = M.GRID_VARIANTS[opts.grid] }
  local dir, dir_err = opts.cache_dir, nil
  if not dir then
    dir, dir_err = M.cache_dir()
  end
  if not dir then
    return nil, dir_err
  end
  local name = type(opts.grid) == "string" and opts.grid or "custom"
  local path = ("%s/ml-corpus-%s-%s.csv"):format(dir, name, M.key(grid, descs, opts.preset))
  local info = { path = path, cached = false, seconds = 0, resumed = 0 }
  if opts.force then -- from scratch: no cached corpus, no checkpoint
    os.remove(path)
    local cp = files.checkpoint(path .. ".partial")
    if cp then
      cp:clear()
    end
  end
  if not core.stat(path) then
    if opts.on_build then -- the caller says what is about to take minutes
      opts.on_build { path = path, grid = name, kernels = #descs,
        configurations = #grid.cus * #grid.core_mhz * #grid.mem_mhz }
    end
    local t0 = core.now()
    local built, build_err, interrupted = build(path, grid, opts.grid, descs, opts.preset or M.PRESET, {
      jobs = opts.jobs, quiet = opts.quiet, progress_stream = opts.progress_stream, command = opts.command,
      seconds = function() return core.now() - t0 end })
    if not built then
      return nil, build_err, interrupted
    end
    info.seconds, info.resumed, info.dropped = core.now() - t0, built.resumed, built.dropped
  else
    info.cached = true
  end
  local ds, read_err = dataset.read_csv(path)
  if ds then
    read_err = M.check_cached(ds, #descs)
  end
  if read_err then
    return nil, ("%s (the ML corpus cache: remove the file, or rebuild it with `gpush ml corpus --force`)")
      :format(read_err)
  end
  info.kernels = #ds.kernels
  return ds, info
end

-- What is wrong with a corpus read back from the cache, or nil: it must hold
-- every kernel its provenance does not list as dropped (a file cut at a
-- kernel boundary still parses).
function M.check_cached(ds, kernel_count)
  local dropped = 0
  for _, c in ipairs(ds.comments or {}) do
    local n = c:match("^dropped: (%d+) kernels")
    dropped = n and tonumber(n) or dropped
  end
  if #ds.kernels ~= kernel_count - dropped then
    return ("%s: holds %d kernels, the corpus has %d (%d of %d dropped): the file is cut short"):format(ds.source,
      #ds.kernels, kernel_count - dropped, dropped, kernel_count)
  end
end

return M
