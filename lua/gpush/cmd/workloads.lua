-- gpush workloads: the embedded synthetic suite (one kernel per bottleneck
-- regime) or its variants, each with the first-principles bound that should
-- bind, computed from the kernel's description without generating it.
--
--   gpush workloads [--config NAME] [-p key=value ...] [--variants [NAME]] [--seed N]
--                   [--measure] [--json]
--
-- Lists from the descriptions alone (instant): regime, warp instructions,
-- flop/byte, footprint, the bound that binds on --config (default gtx1080,
-- where the suite's claims hold), memory instructions, active lanes and
-- what each kernel is.  --variants lists variants{} (or one base kernel's
-- or regime's), --seed their seed.  --measure generates every kernel and
-- adds what only the generated addresses tell: 128 B lines per memory
-- instruction.  --json prints one object per kernel: kernel, regime, base,
-- summary, claim, params, grid, block, regs, shmem, warps,
-- warp_instructions, memory_instructions, active_lane_efficiency, exact,
-- streams, flops, flop_per_byte, footprint_bytes, dram_bytes, bound (the
-- expected binding resource: the largest bound with l2, mshr and dram at
-- their estimates), bound_cycles (its cycles with the launch), bounds =
-- {name = cycles, l2, mshr and dram the estimates}, hash; with --measure also every field of kernel:info(), whose
-- counts replace the description's expectations.
local cli = require "gpush.cli"
local config = require "gpush.config"
local json = require "gpush.json"
local workloads = require "gpush.workloads"

local M = {}

M.usage = [==[
usage: gpush workloads [--config NAME] [-p key=value ...] [--variants [NAME]] [--seed N]
                       [--measure] [--json]
  Lists the embedded synthetic suite, one kernel per bottleneck regime and the
  default workload of every scenario (use a kernel as `suite:NAME`, all of
  them as `suite`, the variants as `variants` or `variants:NAME`, wherever a
  trace PATH is taken: gpush gpumech suite:stream_triad --config gtx660ti).
  Columns come from the descriptions, without generating the kernels: regime,
  warps, warp instructions, flop per DRAM byte, footprint, the expected binding
  resource and its cycles (the first-principles bounds with the L2 and MSHR
  ones at their request estimates; docs/bounds.md), memory instructions and
  the share of active lanes.  A kernel whose trip count varies per warp (a
  seeded spread) shows its expected counts with '~'.
  --config NAME  the machine the bounds are computed for (default gtx1080)
  -p key=value   override one of its parameters (repeatable)
  --variants [NAME]  list variants{} (128 kernels over every regime), or the
                 variants of one base kernel or regime
  --seed N       the variants' seed (default 1)
  --measure      generate every kernel (up to a few seconds each) and add the
                 128 B lines per memory instruction its addresses touch
  --json         one object per kernel; with --measure, every field of
                 `gpush trace info --json` as well
]==]

local memory_classes = {
  ld_global = true, st_global = true, ld_local = true, st_local = true, ld_shared = true,
  st_shared = true, tex = true, atom_global = true, atom_shared = true, ldgsts = true,
}

local function product(v)
  return type(v) == "number" and v or (v[1] or 1) * (v[2] or 1) * (v[3] or 1)
end

-- What the description says, without generating: counts per kernel.
function M.describe(desc)
  local block, blocks = product(desc.block), product(desc.grid)
  local warps_per_block = (block + 31) // 32
  local lanes_last = block - 32 * (warps_per_block - 1)
  local trips = (desc.trips or 1) + (desc.trip_spread or 0) / 2
  local body, memory, lanes = #desc.body, 0, 0
  for _, op in ipairs(desc.body) do
    local class = op[1] or op.class
    if memory_classes[class] then
      memory = memory + 1
    end
    -- active lanes of one instruction, averaged over a block's warps
    local full = op.active and op.active > 0 and math.min(op.active, 32) or 32
    lanes = lanes + ((warps_per_block - 1) * full + math.min(full, lanes_last)) / warps_per_block
  end
  local lanes_exit = ((warps_per_block - 1) * 32 + lanes_last) / warps_per_block
  local streams = {}
  for name, s in pairs(desc.streams or {}) do
    streams[#streams + 1] = name .. ":" .. s.kind
  end
  table.sort(streams)
  return {
    kernel = desc.name, grid = blocks, block = block, warps = blocks * warps_per_block,
    warp_instructions = blocks * warps_per_block * (trips * body + 1), -- each warp ends with EXIT
    memory_instructions = blocks * warps_per_block * trips * memory,
    active_lane_efficiency = (trips * lanes + lanes_exit) / (32 * (trips * body + 1)),
    exact = (desc.trip_spread or 0) == 0,
    streams = table.concat(streams, " "), summary = desc.summary, hash = workloads.hash(desc),
  }
end

-- One row: the description's counts and its bounds on cfg.
local function row(desc, cfg)
  local b, err = workloads.bound(desc, cfg)
  if not b then
    return nil, err
  end
  local r = M.describe(desc)
  local fpb = b.info.flop_per_byte
  r.regime, r.base, r.claim, r.params = desc.regime, desc.base, desc.claim, desc.params
  r.regs, r.shmem = desc.regs, desc.shmem or 0
  r.flops, r.flop_per_byte = b.info.flops, fpb == math.huge and json.null or fpb
  r.footprint_bytes, r.dram_bytes = b.info.footprint, b.info.dram_bytes
  -- the expected binding resource: l2, mshr and dram at the description's
  -- functional-style estimates (docs/bounds.md, "Hard bounds and expected
  -- limiters"), the other bounds hard
  r.bound, r.bound_cycles, r.bounds = b.expect, b.expect_total, b.expected
  return r
end

-- The row with the generated kernel's kernel:info() fields added (its
-- counts replace the description's expectations).
local function measured(r, desc, i)
  local kernel, message = workloads.kernel(desc)
  if not kernel then
    return nil, message
  end
  local info = kernel:info()
  kernel:close()
  for k, v in pairs(info) do
    r[k] = v
  end
  r.launch = i
  r.exact = true
  return r
end

local function bytes(n)
  if n >= 1 << 20 then
    return ("%.1f MB"):format(n / (1 << 20))
  end
  return ("%.0f KB"):format(n / 1024)
end

local function count_text(n, exact)
  return (exact and "" or "~") .. ("%.0f"):format(n)
end

-- The descriptions to list: the suite, or the variants --variants asks for.
local function chosen(opts, err)
  if not opts.variants then
    return workloads.suite
  end
  local ok, result = pcall(workloads.variants, { seed = opts.seed, per = opts.words[1] and 8 or nil,
    regimes = opts.words[1] and { opts.words[1] } or nil })
  if not ok then
    err:write("gpush workloads: ", tostring(result):gsub("^gpush.workloads.variants: ", ""), "\n")
    return nil
  end
  return result
end

local function write_table(rows, cfg, measure, out)
  out:write(("%d kernels; bounds on '%s' (gpush bounds and docs/bounds.md)\n"):format(#rows, cfg._name))
  local fmt = "%-20s %-18s %7s %10s %8s %9s %-8s %10s %10s %7s  %s\n"
  out:write(fmt:format("kernel", "regime", "warps", "warp insts", "flop/B", "footprint", "binds", "cycles",
    "mem inst", measure and "lines/i" or "lanes", "what it is"))
  for _, r in ipairs(rows) do
    local fpb = r.flop_per_byte == json.null and "-" or ("%.2f"):format(r.flop_per_byte)
    local extra = measure and ("%.2f"):format(r.transactions_per_memory_instruction)
      or ("%.0f%%"):format(100 * r.active_lane_efficiency)
    out:write(fmt:format(r.kernel, r.regime, r.warps, count_text(r.warp_instructions, r.exact), fpb,
      bytes(r.footprint_bytes), r.bound, ("%.0f"):format(r.bound_cycles),
      count_text(r.memory_instructions, r.exact), extra, r.summary))
  end
end

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local opts, problem = cli.parse_args(args, { ["--json"] = "json", ["--measure"] = "measure",
    ["--config"] = "=config", ["-p"] = "+overrides", ["--variants"] = "variants", ["--seed"] = "=seed",
    ["--help"] = "help", ["-h"] = "help" })
  if opts and #opts.words > (opts.variants and 1 or 0) then
    opts, problem = nil, ("unexpected argument '%s'"):format(opts.words[#opts.words])
  end
  if not opts then
    return cli.usage_error("gpush workloads", M.usage, problem, err)
  end
  if opts.help then
    out:write(M.usage)
    return 0
  end
  local seed = opts.seed and math.tointeger(tonumber(opts.seed))
  if opts.seed and not seed then
    return cli.usage_error("gpush workloads", M.usage, ("--seed must be an integer, got '%s'"):format(opts.seed), err)
  end
  opts.seed = seed
  local cfg, cfg_err = config.load(opts.config or "gtx1080", opts.overrides)
  if not cfg then
    err:write("gpush workloads: ", cfg_err, "\n")
    return 1
  end
  local list = chosen(opts, err)
  if not list then
    return 1
  end
  local rows = {}
  for i, desc in ipairs(list) do
    local r, message = row(desc, cfg)
    if r and opts.measure then
      err:write(("gpush workloads: generating %s (%d of %d)\n"):format(desc.name, i, #list))
      r, message = measured(r, desc, i)
    end
    if not r then
      err:write("gpush workloads: ", message, "\n")
      return 1
    end
    rows[i] = r
  end
  if opts.json then
    out:write(json.encode(rows, true), "\n")
    return 0
  end
  write_table(rows, cfg, opts.measure, out)
  return 0
end

return M
