-- Microbenchmarks on the simulator: latencies, pointer chases, shared memory and streaming bandwidth per preset.
--
--   gpush scenarios/microbench.lua [--config NAME ...] [--json] [--out DIR]
--
-- The figures a microbenchmark paper reports for a GPU, measured the same way
-- on gpush's abstract simulator with synthetic kernels (docs/presets.md sets
-- them next to the published ones):
--   - dependent latency per opcode class: one warp, a chain of dependent
--     instructions of the class; the slope between 64 and 128 instructions
--     (cycles per instruction, end effects cancelled);
--   - L1, L2 and DRAM load-to-use latency: one warp chasing pointers (each
--     load's address from the previous load) over a working set that L1
--     holds (1 KB of local memory, cached in L1 on every preset), that L2 holds
--     (global loads with L1 bypassed, as `ld.global.cg` microbenchmarks do)
--     and that nothing holds (512 MB); the slope between 256 and 512 loads,
--     so the cold misses of a warm-up do not count;
--   - shared-memory latency: a chain of dependent conflict-free LDS;
--   - achievable DRAM bandwidth: a read stream with 16-byte loads over every
--     SM at full occupancy (64 MB per pass), in GB/s and as a share of the
--     preset's peak.
-- The front end (launch.*, docs/frontend.md) is switched off for the
-- measurements (the slopes cancel its fixed costs, the stream's ramp would
-- not) and reported apart.  Default presets:
-- every shipped one except the compute capability 1.x Quadro (no caches to
-- chase through).  --json prints one object per preset; --out DIR also
-- writes DIR/microbench.md and DIR/microbench.json.
local gpush = require "gpush"
local json = require "gpush.json"

local MB = 1 << 20
local USAGE = "usage: gpush scenarios/microbench.lua [--config NAME ...] [--json] [--out DIR]\n"

local opts, problem = gpush.cli.parse_args(arg, { ["--config"] = "+configs", ["--json"] = "json",
  ["--out"] = "=out", ["--help"] = "help", ["-h"] = "help" })
if not opts then
  io.stderr:write("microbench: ", problem, "\n", USAGE)
  os.exit(2)
elseif opts.help then
  io.stdout:write(USAGE)
  os.exit(0)
elseif #opts.words > 0 then
  io.stderr:write("microbench: unexpected argument '", opts.words[1], "'\n", USAGE)
  os.exit(2)
end
local presets = #opts.configs > 0 and opts.configs
  or { "gpumech-baseline", "gtx480", "gtx660ti", "gtx1080", "rtx3070", "a100", "h100-pcie", "h100-sxm" }

-- The front end off: every launch.* parameter 0.
local NO_FRONT_END = { "launch.kernel_cycles=0", "launch.dispatch_cycles=0", "launch.block_cycles=0",
  "launch.warp_cycles=0", "launch.drain_cycles=0", "launch.warmup_cycles=0" }
local function without_front_end(name, more)
  local o = { table.unpack(NO_FRONT_END) }
  for _, m in ipairs(more or {}) do
    o[#o + 1] = m
  end
  return assert(gpush.config.load(name, o))
end

-- Simulated cycles of a one-block kernel (its configuration without a front end).
local function cycles(cfg, desc)
  local kernel = assert(gpush.workloads.kernel(desc))
  local r = assert(gpush.sim.run(kernel, cfg))
  kernel:close()
  return r.cycles
end

-- Cycles per body instruction between n1 and n2 trips of a one-warp chain.
local function slope(cfg, desc, n1, n2)
  desc.trips = n1
  local c1 = cycles(cfg, desc)
  desc.trips = n2
  local c2 = cycles(cfg, desc)
  return (c2 - c1) / (n2 - n1)
end

local function chain(class)
  return { name = "chain_" .. class, grid = 1, block = 32, regs = 32, body = { { class, dep = 1 } } }
end

local function chase(class, footprint)
  return { name = "chase", grid = 1, block = 32, regs = 32, seed = 3,
    streams = { p = { kind = "chase", footprint = footprint } },
    body = { { class, stream = "p", width = 8, dep = 1 } } }
end

-- One preset's measurements.
local function measure(name)
  local cfg = without_front_end(name)
  local bypass = without_front_end(name, { "l1.cache_global=false" })
  local r = { preset = name, gpu = cfg.gpu.name, clock_mhz = cfg.clock.core_mhz, latency = {} }
  for _, class in ipairs { "int", "fp32", "imad", "fp64", "sfu" } do
    r.latency[class] = slope(cfg, chain(class), 64, 128)
  end
  -- 128 elements of 8 bytes: every 32-byte sector is warm after the first
  -- 256 loads, so sectored caches hit in the measured window
  r.l1 = slope(cfg, chase("ld_local", 1024), 256, 512)
  r.l2 = slope(bypass, chase("ld_global", 1024), 256, 512)
  r.dram = slope(bypass, chase("ld_global", 512 * MB), 256, 512)
  r.dram_ns = r.dram * 1000 / cfg.clock.core_mhz
  r.shared = slope(cfg, { name = "lds", grid = 1, block = 32, shmem = 4096,
    streams = { s = { kind = "shared", footprint = 4096, stride = 4 } },
    body = { { "ld_shared", stream = "s", dep = 1 } } }, 64, 128)
  -- a read stream: every SM at full occupancy, 16 B per lane, 64 MB per pass
  local blocks = cfg.sm.count * math.max(1, cfg.sm.max_warps // 8)
  local stream = gpush.workloads.kernel { name = "read_stream", grid = blocks, block = 256, regs = 32, trips = 16,
    streams = { a = { kind = "coalesced", footprint = 1 << 40 } },
    body = { { "ld_global", stream = "a", width = 16 }, { "int" } } }
  local s = assert(gpush.sim.run(assert(stream), cfg))
  stream:close()
  r.stream_gbs = s.dram_gbs
  r.peak_gbs = cfg.dram.bandwidth_gbs
  r.stream_share = s.dram_gbs / cfg.dram.bandwidth_gbs
  r.kernel_launch_cycles = gpush.config.load(name).launch.kernel_cycles
  r.block_launch_cycles = gpush.config.load(name).launch.block_cycles
  return r
end

local rows = {}
for i, name in ipairs(presets) do
  rows[i] = measure(name)
end

local function markdown()
  local lines = { "# Microbenchmarks on gpush's simulator", "",
    "Cycles at the preset's core clock; latencies are producer issue to dependent issue (load-to-use for",
    "memory); the stream is 16-byte loads on every SM at full occupancy. docs/presets.md compares them",
    "with published measurements.", "",
    "| preset | int | fp32 | imad | fp64 | sfu | L1 | L2 | DRAM (ns) | shared | stream GB/s (of peak) | kernel / block launch |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|" }
  for _, r in ipairs(rows) do
    local l = r.latency
    lines[#lines + 1] = ("| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f (%.0f) | %.0f | %.0f (%.0f%% of %.0f) | %.0f / %.0f |")
      :format(r.preset, l.int, l.fp32, l.imad, l.fp64, l.sfu, r.l1, r.l2, r.dram, r.dram_ns, r.shared, r.stream_gbs,
        100 * r.stream_share, r.peak_gbs, r.kernel_launch_cycles, r.block_launch_cycles)
  end
  return table.concat(lines, "\n") .. "\n"
end

local text = opts.json and (json.encode(rows, true) .. "\n") or markdown()
io.stdout:write(text)
if opts.out then
  assert(gpush.core.mkdir(opts.out))
  local function write(path, data)
    assert(require("gpush.staging").write(path, data))
  end
  write(opts.out .. "/microbench.md", markdown())
  write(opts.out .. "/microbench.json", json.encode(rows, true) .. "\n")
end
