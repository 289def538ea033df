-- gpush.workloads.microbench: the microbenchmark kernels shipped with gpush,
-- the kernels GPU calibration measures (docs/correlate.md), as synthetic
-- descriptions that gpush.workloads.kernel builds.
--
--   local d = assert(microbench.describe("ffma_chain", { iters = 10, grid = 114, block = 32 }))
--   local k = assert(workloads.kernel(d))
--
--   empty       `__global__ void k() {}`: one instruction a warp (EXIT)
--   ffma_chain  `iters` x 128 dependent FP32 FMAs a warp in a loop: the
--               kernel of ../shared/traces/ffma-chain-h100-* (sm_90, CUDA
--               12.5) instruction for instruction: the same count of every
--               opcode class (6 set-up instructions, 132 a trip, 2 after
--               the loop) and the same register dependences
-- Geometry: `grid` blocks (a number or {x, y, z}) of `block` threads,
-- default 1 block of 32 threads (one warp, as the traces ran).
local text = require "gpush.text"

local M = {}

-- The loop of the traced ffmaKernel (one trip, 132 instructions):
--   MOV R0 (the constant); UIADD3 (the counter); FFMA R3 = R3*R0+..;
--   ISETP.LE (the exit test); 127 more FFMA R3, each on the one before;
--   BRA back.
-- Dependences (distances back in the warp's instruction stream): the first
-- FFMA reads R0 (the MOV, 2 back) and R3 (4 back: the previous trip's last
-- FFMA, or in the first trip the prologue's HFMA2.MMA that zeroes R3); the
-- second reads the first (2 back, past the ISETP) and the MOV (4 back); the
-- k-th after that its predecessor and the MOV.  The ISETP reads R2, which
-- the prologue's LDC loaded long before (a distance that grows per trip,
-- which a description cannot state; it is always satisfied: the prologue's
-- ISETP.GE already waited for that LDC), so it is left out.
local function ffma_loop()
  local body = {
    { "int" },                 -- MOV R0, constant
    { "uniform" },             -- UIADD3: the loop counter
    { "fp32", dep = { 2, 4 } }, -- FFMA R3, R3, R0
    { "int" },                 -- ISETP.LE: the exit test
    { "fp32", dep = { 2, 4 } }, -- FFMA R3 (past the ISETP)
  }
  for k = 6, 131 do
    body[k] = { "fp32", dep = { 1, k - 1 } } -- FFMA R3 on the previous one and on the MOV
  end
  body[132] = { "branch" } -- BRA back to the MOV
  return body
end

-- The set-up before the loop and the tail after it, from the same trace:
-- LDC R1 (the stack pointer), LDC R2 (iters), ISETP.GE on R2, EXIT (taken
-- when iters < 1; predicated off here, traced with no active lane and
-- generated with all of them: the models charge its issue slot either
-- way), HFMA2.MMA R3 (zeroes the accumulator), UMOV; after the loop
-- FSETP.NEU on the last FFMA's R3 (2 back, past the BRA), then EXIT (the
-- generator's own).
local FFMA_PROLOGUE = {
  { "ld_const" }, { "ld_const" }, { "int", dep = 1 }, { "branch" }, { "fp32" }, { "uniform" },
}
local FFMA_EPILOGUE = { { "fp32", dep = 2 } }

M.list = {
  {
    name = "empty",
    summary = "__global__ void k() {}: one instruction (EXIT) a warp; its time is the GPU front end alone",
    params = {},
    -- a body that never runs (trips = 0): the generator's EXIT is the
    -- only instruction; 16 registers, what ptxas reports for kernels this
    -- small (assumption: only occupancy reads it, and 16 limits none)
    make = function()
      return { regs = 16, trips = 0, body = { { "branch" } } }
    end,
  },
  {
    name = "ffma_chain",
    summary = "iters x 128 dependent FP32 FMAs a warp (the kernel of ffma-chain-h100-*)",
    params = {
      iters = { min = 1, max = 1000000, desc = "loop trips, each 128 dependent FFMAs" },
    },
    -- 24 registers and binary version 90, as the trace's header says
    make = function(p)
      return { regs = 24, trips = p.iters, binary_version = 90, prologue = FFMA_PROLOGUE, body = ffma_loop(),
        epilogue = FFMA_EPILOGUE }
    end,
  },
}

local by_name = {}
for _, entry in ipairs(M.list) do
  by_name[entry.name] = entry
end

-- The names of the microbenchmarks, in order.
function M.names()
  local names = {}
  for i, entry in ipairs(M.list) do
    names[i] = entry.name
  end
  return names
end

-- The entry of a microbenchmark by name, or nil.
function M.get(name)
  return by_name[name]
end

-- The parameters any microbenchmark takes beyond grid and block (the
-- columns a measured CSV may give for them), sorted.
function M.param_names()
  local seen, names = {}, {}
  for _, entry in ipairs(M.list) do
    for name in pairs(entry.params) do
      if not seen[name] then
        seen[name] = true
        names[#names + 1] = name
      end
    end
  end
  table.sort(names)
  return names
end

-- A geometry value: a positive integer or a list of one to three of them.
local function geometry(v, what)
  local dims = type(v) == "table" and v or { v }
  if #dims < 1 or #dims > 3 then
    return nil, ("%s: expected a number of %s or {x, y, z}"):format(what, what == "grid" and "blocks" or "threads")
  end
  local out = {}
  for i, d in ipairs(dims) do
    out[i] = math.tointeger(d)
    if not out[i] or out[i] < 1 then
      return nil, ("%s: expected positive whole numbers, got %s"):format(what, tostring(d))
    end
  end
  return out
end

-- The description of microbenchmark `name` with parameters p (its own, such
-- as iters, and grid and block), named `name`; or nil and a message saying
-- what is missing or out of range.
function M.describe(name, p)
  p = p or {}
  local entry = by_name[name]
  if not entry then
    return nil, ("no microbenchmark '%s' (gpush ships %s)"):format(tostring(name), table.concat(M.names(), ", "))
  end
  for _, key in ipairs(text.sorted_keys(p)) do
    if key ~= "grid" and key ~= "block" and not entry.params[key] then
      return nil, ("microbenchmark '%s' takes no parameter '%s'"):format(name, key)
    end
  end
  local values = {}
  for key, spec in pairs(entry.params) do
    local v = p[key]
    if v == nil then
      return nil, ("microbenchmark '%s' needs %s (%s)"):format(name, key, spec.desc)
    end
    if type(v) ~= "number" or v ~= math.floor(v) or v < spec.min or v > spec.max then
      return nil, ("microbenchmark '%s': %s must be a whole number from %d to %d, got %s"):format(name, key,
        spec.min, spec.max, tostring(v))
    end
    values[key] = math.tointeger(v)
  end
  local d = entry.make(values)
  local problem
  d.grid, problem = geometry(p.grid or 1, "grid")
  if not d.grid then
    return nil, ("microbenchmark '%s': %s"):format(name, problem)
  end
  d.block, problem = geometry(p.block or 32, "block")
  if not d.block then
    return nil, ("microbenchmark '%s': %s"):format(name, problem)
  end
  d.name = name
  d.params = values
  return d
end

return M
