-- GPUMech's per-kernel preparation, part by part, on the main job's 16 suite
-- kernels at its base point (the gtx660ti preset): issue 30's "per-kernel
-- preparation (memory replay, clustering)" (docs/experiments.md, "Performance").
--
--   gpush tools/prepare_cost.lua [REPS]      CPU ms per kernel and part, best / median of REPS (5)
--   gpush tools/prepare_cost.lua MODE        one pass of MODE, for callgrind's instruction counts:
--     load     the kernels and the preset only (subtract it from the others)
--     replay   + the memory replay (memsim.replay, no cache)
--     select   + the representative warp: every warp's interval pass and the k-means
--              (core.gpumech_prepare without the bound counts)
--     counts   + the same with the bound counts in the same walk (as the sweep prepares)
--     prepare  gpumech.prepare as the sweep calls it (a fresh memory cache a kernel)
--
-- The kernels are generated before any clock starts.  At the filing commit
-- 8656704 the same parts are memsim.functional(kernel, cfg) (the replay),
-- gpumech.select_blocks(kernel, gpumech.pc_params(kernel, cfg, mem, "gpush"),
-- nil, 1, math.max(1 / cfg.sm.issue_width, 1)) (the selection) and
-- bounds.kernel(kernel, cfg, nil, mem) (the counts, which its base point did).
local config = require "gpush.config"
local core = require "gpush.core"
local gpumech = require "gpush.models.gpumech"
local machine = require "gpush.machine"
local memsim = require "gpush.memsim"
local occupancy = require "gpush.occupancy"
local workloads = require "gpush.workloads"

local MODES = { load = true, replay = true, select = true, counts = true, prepare = true }

local cfg = assert(config.load("gtx660ti"))
local m = machine.of(cfg)

local kernels = {}
for i, desc in ipairs(workloads.suite) do
  local kernel = assert(workloads.kernel(desc))
  local info = kernel:info()
  kernels[i] = { name = desc.name, kernel = kernel, shared = info.shared_bytes_per_block,
    blocks = occupancy.blocks_per_sm(cfg, occupancy.geometry(info)) }
end

local function replay(x)
  return assert(memsim.replay(x.kernel, m, math.max(1, x.blocks), x.shared, nil))
end

local function select(x, mem, counted)
  return assert(core.gpumech_prepare(x.kernel, m, mem.replay,
    { equations = "gpush", seed = 1, count_bounds = counted and x.blocks or nil }))
end

local function prepare(x)
  return assert(gpumech.prepare(x.kernel, cfg, { seed = 1, memory_cache = {} }))
end

-- One pass of a mode over every kernel.
local function pass(mode)
  for _, x in ipairs(kernels) do
    if mode == "replay" then
      replay(x)
    elseif mode == "select" or mode == "counts" then
      select(x, replay(x), mode == "counts")
    elseif mode == "prepare" then
      prepare(x)
    end
  end
end

-- Best and median CPU ms of `reps` calls of f.
local function best_median(f, reps)
  local t = {}
  for r = 1, reps do
    collectgarbage()
    local started = os.clock()
    f()
    t[r] = os.clock() - started
  end
  table.sort(t)
  return t[1] * 1e3, t[(reps + 1) // 2] * 1e3
end

local mode = arg[1]
if MODES[mode] then
  pass(mode)
  return
end
local reps = math.tointeger(tonumber(mode or "5"))
if not reps or reps < 1 then
  io.stderr:write("usage: gpush tools/prepare_cost.lua [REPS | load | replay | select | counts | prepare]\n")
  os.exit(2)
end
local sums = { 0, 0, 0, 0, 0, 0, 0, 0 }
local format = "%-18s %7.2f %7.2f  %7.2f %7.2f  %7.2f %7.2f  %7.2f %7.2f\n"
io.write(("CPU ms, best and median of %d, gtx660ti's base point\n"):format(reps))
io.write(("%-18s %15s  %15s  %15s  %15s\n"):format("kernel", "replay", "selection", "+ bound counts",
  "gpumech.prepare"))
for _, x in ipairs(kernels) do
  local mem = replay(x)
  local r1, r2 = best_median(function() replay(x) end, reps)
  local s1, s2 = best_median(function() select(x, mem, false) end, reps)
  local c1, c2 = best_median(function() select(x, mem, true) end, reps)
  local p1, p2 = best_median(function() prepare(x) end, reps)
  local row = { r1, r2, s1, s2, c1 - s1, c2 - s2, p1, p2 }
  for i, v in ipairs(row) do
    sums[i] = sums[i] + v
  end
  io.write(format:format(x.name, table.unpack(row)))
end
io.write(format:format("all 16", table.unpack(sums)))
