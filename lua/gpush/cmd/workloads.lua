-- gpush workloads: the embedded synthetic suite (one kernel per bottleneck
-- regime) or its variants, each with the first-principles bound that should
-- bind, computed from the kernel's description without generating it.
--
--   gpush workloads [--config NAME] [-p key=value ...] [--variants [NAME]] [--seed N] [--json]
--
-- --config (default gtx1080, where the suite's claims hold) is the machine
-- the bounds are computed for; --variants lists variants{} (or one base
-- kernel's or regime's), --seed their seed.  --json prints one object per
-- kernel: kernel, regime, base, summary, claim, params, grid, block, regs,
-- shmem, warps, warp_instructions, flops, flop_per_byte, footprint_bytes,
-- dram_bytes, bound (the binding bound's name), bound_cycles (with the
-- launch), bounds = {name = cycles}, hash.
local cli = require "gpush.cli"
local config = require "gpush.config"
local json = require "gpush.json"
local workloads = require "gpush.workloads"

local M = {}

local usage = [==[
usage: gpush workloads [--config NAME] [-p key=value ...] [--variants [NAME]] [--seed N] [--json]
]==]

local function product(v)
  return type(v) == "number" and v or (v[1] or 1) * (v[2] or 1) * (v[3] or 1)
end

-- One row: the description's shape and its bounds on cfg.
local function row(desc, cfg)
  local b, err = workloads.bound(desc, cfg)
  if not b then
    return nil, err
  end
  local threads = product(desc.block)
  local warps = product(desc.grid) * ((threads + 31) // 32)
  local fpb = b.info.flop_per_byte
  return {
    kernel = desc.name, regime = desc.regime, base = desc.base, summary = desc.summary,
    claim = desc.claim, params = desc.params, grid = desc.grid, block = desc.block, regs = desc.regs,
    shmem = desc.shmem or 0, warps = warps, warp_instructions = b.counts.insts,
    flops = b.info.flops, flop_per_byte = fpb == math.huge and json.null or fpb,
    footprint_bytes = b.info.footprint, dram_bytes = b.info.dram_bytes, bound = b.binds,
    bound_cycles = b.total, bounds = b.cycles, hash = workloads.hash(desc),
  }
end

local function bytes(n)
  if n >= 1 << 20 then
    return ("%.1f MB"):format(n / (1 << 20))
  end
  return ("%.0f KB"):format(n / 1024)
end

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local opts, problem = cli.parse_args(args, { ["--json"] = "json", ["--config"] = "=config",
    ["-p"] = "+overrides", ["--variants"] = "variants", ["--seed"] = "=seed", ["--help"] = "help",
    ["-h"] = "help" })
  if not opts then
    err:write("gpush workloads: ", problem, "\n", usage)
    return 2
  end
  if opts.help then
    out:write(usage)
    return 0
  end
  local seed = opts.seed and math.tointeger(tonumber(opts.seed))
  if opts.seed and not seed then
    err:write("gpush workloads: --seed must be an integer, got '", opts.seed, "'\n")
    return 2
  end
  if #opts.words > (opts.variants and 1 or 0) then
    err:write("gpush workloads: unexpected argument '", opts.words[#opts.words], "'\n", usage)
    return 2
  end
  local cfg, cfg_err = config.load(opts.config or "gtx1080", opts.overrides)
  if not cfg then
    err:write("gpush workloads: ", cfg_err, "\n")
    return 1
  end
  local list = workloads.suite
  if opts.variants then
    local ok, result = pcall(workloads.variants, { seed = seed, per = opts.words[1] and 8 or nil,
      regimes = opts.words[1] and { opts.words[1] } or nil })
    if not ok then
      err:write("gpush workloads: ", tostring(result):gsub("^gpush.workloads.variants: ", ""), "\n")
      return 1
    end
    list = result
  end
  local rows = {}
  for i, desc in ipairs(list) do
    local r, row_err = row(desc, cfg)
    if not r then
      err:write("gpush workloads: ", row_err, "\n")
      return 1
    end
    rows[i] = r
  end
  if opts.json then
    out:write(json.encode(rows, true), "\n")
    return 0
  end
  out:write(("%d kernels; bounds on '%s' (gpush bounds and docs/bounds.md)\n"):format(#rows, cfg._name))
  local fmt = "%-20s %-18s %7s %10s %8s %9s %-8s %10s  %s\n"
  out:write(fmt:format("kernel", "regime", "warps", "warp insts", "flop/B", "footprint", "binds",
    "cycles", "what it is"))
  for _, r in ipairs(rows) do
    local fpb = r.flop_per_byte == json.null and "-" or ("%.2f"):format(r.flop_per_byte)
    out:write(fmt:format(r.kernel, r.regime, r.warps, ("%.0f"):format(r.warp_instructions), fpb,
      bytes(r.footprint_bytes), r.bound, ("%.0f"):format(r.bound_cycles), r.summary))
  end
  return 0
end

return M
