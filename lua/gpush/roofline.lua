-- gpush.roofline: a configuration's roofline and each kernel's position on it
-- (Williams, Waterman and Patterson, "Roofline", CACM 2009).
--
--   local machine = roofline.machine(cfg)                 -- FP32 roofs
--   local counts = roofline.kernel_flops(kernel)          -- FLOPs by precision
--   local bytes = roofline.dram_bytes(sim_result)         -- or model_dram_bytes(kernel, cfg)
--   local pos = roofline.position(machine, { ops = counts.fp32, dram_bytes = bytes,
--     cycles = result.cycles })
--   pos.intensity, pos.gflops, pos.dram_gbs, pos.bound, pos.fraction_of_roof
--
-- Compute roof (docs/reports.md states it with its assumptions):
--   peak = sm.count x sm.schedulers x min(sm.issue_width, 1 / ops.<class>.interval)
--          x sm.warp_size x FLOPs per lane per instruction x clock.core_mhz
-- i.e. every scheduler issues one FMA warp instruction as often as its
-- pipeline's initiation interval (and its issue width) allow, every lane of
-- the warp doing one fused multiply-add (2 FLOPs; a packed HFMA2 does 4).
-- Memory roof: dram.bandwidth_gbs.  Ridge point: peak / bandwidth.
-- The instruction roofline (Ding and Williams 2019) replaces FLOPs with warp
-- instructions: peak = sm.count x sm.schedulers x sm.issue_width x clock.
local M = {}

-- The roof of each precision: the opcode class whose pipeline runs it and
-- the FLOPs one lane does per instruction at peak (an FMA).
local ROOFS = {
  fp32 = { class = "fp32", flops = 2, label = "FP32 FMA peak" },
  fp16 = { class = "fp32", flops = 4, label = "FP16 HFMA2 peak" }, -- packed pairs on the FP32 pipe
  fp64 = { class = "fp64", flops = 2, label = "FP64 DFMA peak" },
}

local function config_number(cfg, path)
  local v = cfg
  for key in path:gmatch("[^.]+") do
    v = type(v) == "table" and v[key] or nil
  end
  if type(v) ~= "number" or v <= 0 then
    error(("gpush.roofline.machine: configuration parameter '%s' must be a positive number, got %s")
      :format(path, tostring(v)), 3)
  end
  return v
end

-- The roofs of a configuration.  opts.precision: "fp32" (default), "fp16",
-- "fp64", or "instructions" (warp instructions per second).  Returns
-- { precision, unit, peak (in unit, e.g. GFLOP/s), peak_gbs, ridge (unit
-- per byte), clock_mhz, and the formula's factors }.
function M.machine(cfg, opts)
  if type(cfg) ~= "table" then
    error("gpush.roofline.machine: expected a configuration table, got " .. type(cfg), 2)
  end
  opts = opts or {}
  local precision = opts.precision or "fp32"
  local sms, schedulers = config_number(cfg, "sm.count"), config_number(cfg, "sm.schedulers")
  local issue_width, clock = config_number(cfg, "sm.issue_width"), config_number(cfg, "clock.core_mhz")
  local m = { precision = precision, name = cfg.gpu and cfg.gpu.name or cfg._name, clock_mhz = clock,
    sms = sms, schedulers = schedulers, issue_width = issue_width,
    peak_gbs = config_number(cfg, "dram.bandwidth_gbs") }
  if precision == "instructions" then
    m.unit, m.ops_name, m.label = "warp GIPS", "warp instructions", "issue peak"
    m.peak = sms * schedulers * issue_width * clock * 1e6 / 1e9
  else
    local roof = ROOFS[precision]
    if not roof then
      error(("gpush.roofline.machine: precision must be fp32, fp16, fp64 or instructions, got '%s'")
        :format(tostring(precision)), 2)
    end
    m.unit, m.ops_name, m.label = "GFLOP/s", "FLOPs", roof.label
    m.warp_size = config_number(cfg, "sm.warp_size")
    m.interval = config_number(cfg, ("ops.%s.interval"):format(roof.class))
    m.flops_per_lane = roof.flops
    m.warp_instructions_per_cycle = math.min(issue_width, 1 / m.interval)
    m.peak = sms * schedulers * m.warp_instructions_per_cycle * m.warp_size * roof.flops * clock * 1e6 / 1e9
  end
  m.ridge = m.peak / m.peak_gbs
  return m
end

-- The bytes one line request moves at most: a trace's coalesced request is
-- one 128-byte line, four 32-byte sectors (the unit memsim counts).
M.REQUEST_BYTES = 128

-- The hierarchical roofline of a configuration (Yang et al.'s L1/L2/DRAM
-- roofs, as Nsight Compute draws them): memory roofs at the SMs' L1/TEX
-- stage, the L2 and the DRAM, and compute ceilings at FP32 and FP64.
--   L1   = sm.count x sm.schedulers x REQUEST_BYTES x clock: every
--          scheduler's load/store unit takes one line request a cycle (the
--          simulator's LSU charge and the `lsu` bound's rate)
--   L2   = l2.slices / l2.interval x REQUEST_BYTES x clock: every slice
--          accepts one request per service interval (the `l2` bound's rate;
--          none when l2.interval is 0)
--   DRAM = dram.bandwidth_gbs
--   FP32, FP64 = machine(cfg, {precision = ...}).peak
-- Returns { name, clock_mhz, roofs = { {label, level, gbs}, ... } largest
-- first, ceilings = { {label, precision, gflops}, ... } }.
function M.hierarchy(cfg)
  local fp32, fp64 = M.machine(cfg), M.machine(cfg, { precision = "fp64" })
  local clock_ghz = fp32.clock_mhz / 1000
  local roofs = { { label = "L1", level = "l1", gbs = fp32.sms * fp32.schedulers * M.REQUEST_BYTES * clock_ghz } }
  local interval = config_number(cfg, "l2.slices") and cfg.l2.interval
  if type(interval) == "number" and interval > 0 then
    roofs[#roofs + 1] = { label = "L2", level = "l2", gbs = cfg.l2.slices / interval * M.REQUEST_BYTES * clock_ghz }
  end
  roofs[#roofs + 1] = { label = "DRAM", level = "dram", gbs = fp32.peak_gbs }
  table.sort(roofs, function(a, b) return a.gbs > b.gbs end)
  return { name = fp32.name, clock_mhz = fp32.clock_mhz, roofs = roofs,
    ceilings = { { label = "FP32", precision = "fp32", gflops = fp32.peak },
      { label = "FP64", precision = "fp64", gflops = fp64.peak } } }
end

-- What the hierarchical roofline needs of one kernel on a configuration:
-- FLOPs by precision (kernel_flops, exact) and the
-- bytes at each level from the functional memory replay GPUMech takes its
-- miss rates from (memsim: l1_bytes, the sectors asked of L1/TEX; l2_bytes,
-- the sectors reaching the L2; DRAM bytes read and written).  `cache` as
-- in memsim.functional_cached (the experiment engine passes the kernel's,
-- so a sweep with GPUMech replays once).  Returns { fp32, fp64, fp16,
-- l1_bytes, l2_bytes, dram_bytes }, or nil and a message.
function M.kernel_profile(kernel, cfg, cache)
  local memsim = require "gpush.memsim"
  local mem, err = memsim.functional_cached(kernel, cfg, cache or {})
  if not mem then
    return nil, err
  end
  local flops, ferr = M.kernel_flops(kernel)
  if not flops then
    return nil, ferr
  end
  return { fp32 = flops.fp32, fp64 = flops.fp64, fp16 = flops.fp16, l1_bytes = mem.l1_bytes,
    l2_bytes = mem.l2_bytes, dram_bytes = mem.dram_bytes_read + mem.dram_bytes_written }
end

-- The hierarchical roofline's points of a kernel: for every precision with
-- FLOPs and every level with traffic, intensity FLOPs / bytes and
-- performance FLOPs / time.  profile as kernel_profile gives; time_us the
-- kernel's time (a model's prediction).  Returns a list of { precision
-- ("FP32"/"FP64"), level ("L1"/"L2"/"DRAM"), intensity, gflops }.
function M.hierarchy_points(profile, time_us)
  local out = {}
  if type(time_us) ~= "number" or time_us <= 0 then
    return out
  end
  for _, p in ipairs { { "fp32", "FP32" }, { "fp64", "FP64" } } do
    local flops = profile[p[1]] or 0
    if flops > 0 then
      for _, level in ipairs { { "l1_bytes", "L1" }, { "l2_bytes", "L2" }, { "dram_bytes", "DRAM" } } do
        local bytes = profile[level[1]] or 0
        if bytes > 0 then
          out[#out + 1] = { precision = p[2], level = level[2], intensity = flops / bytes,
            gflops = flops / (time_us * 1e3) }
        end
      end
    end
  end
  return out
end

-- FLOPs of a kernel by precision, exact: every floating-point warp
-- instruction's FLOPs per active lane x its active lanes, counted in C in
-- one pass (kernel:flops(); the FLOPs of each opcode, adds and multiplies 1,
-- fused multiply-adds 2, packed pairs twice that, comparisons, min/max and
-- conversions none, as Nsight Compute counts them, are the trace reader's
-- map, gpush.core.opcode_flops).  Returns { fp32, fp16, fp64, flops (their
-- sum), warp_instructions }, or nil and a message.
function M.kernel_flops(kernel)
  local flops, err = kernel:flops()
  if not flops then
    return nil, err
  end
  flops.flops = flops.fp32 + flops.fp16 + flops.fp64
  flops.warp_instructions = kernel:info().warp_instructions
  return flops
end

-- The operations a machine's roof counts, from kernel_flops' counts.
function M.ops_of(machine, counts)
  if machine.precision == "instructions" then
    return counts.warp_instructions
  end
  return counts[machine.precision]
end

-- DRAM bytes (read + written) from a model result that counts them: the
-- simulator's result, or the memory model's (memsim.functional/timed).
function M.dram_bytes(result)
  if type(result) ~= "table" or type(result.dram_bytes_read) ~= "number"
      or type(result.dram_bytes_written) ~= "number" then
    error("gpush.roofline.dram_bytes: the result has no dram_bytes_read/dram_bytes_written "
      .. "(a gpush.sim or gpush.memsim result has them; for GPUMech use model_dram_bytes)", 2)
  end
  return result.dram_bytes_read + result.dram_bytes_written
end

-- DRAM bytes of GPUMech's memory model for a kernel on a configuration (the
-- functional replay it takes its miss rates from); `cache` as in
-- memsim.functional_cached.  Returns bytes, or nil and a message.
function M.model_dram_bytes(kernel, cfg, cache)
  local memsim = require "gpush.memsim"
  local mem, err
  if cache then
    mem, err = memsim.functional_cached(kernel, cfg, cache)
  else
    mem, err = memsim.functional(kernel, cfg)
  end
  if not mem then
    return nil, err
  end
  return mem.dram_bytes_read + mem.dram_bytes_written
end

-- A kernel's position: work = { ops (in the machine's unit, e.g. FLOPs),
-- dram_bytes, cycles (predicted, core clock) }.  Returns { intensity (ops
-- per DRAM byte; math.huge without DRAM traffic), performance (machine's
-- unit; gflops for FLOP roofs), dram_gbs (achieved), time_us, attainable
-- (the roof at that intensity), fraction_of_roof, bound "memory"|"compute" }.
function M.position(machine, work)
  if type(machine) ~= "table" or not machine.peak then
    error("gpush.roofline.position: expected a machine from roofline.machine", 2)
  end
  for _, field in ipairs({ "ops", "dram_bytes", "cycles" }) do
    local v = type(work) == "table" and work[field]
    if type(v) ~= "number" or v < 0 or v ~= v then
      error(("gpush.roofline.position: work.%s must be a non-negative number, got %s"):format(field,
        tostring(v)), 2)
    end
  end
  if work.cycles == 0 then
    error("gpush.roofline.position: work.cycles must be positive", 2)
  end
  local seconds = work.cycles / (machine.clock_mhz * 1e6)
  local p = {
    ops = work.ops, dram_bytes = work.dram_bytes, cycles = work.cycles,
    time_us = seconds * 1e6,
    intensity = work.dram_bytes > 0 and work.ops / work.dram_bytes or math.huge,
    performance = work.ops / seconds / 1e9,
    dram_gbs = work.dram_bytes / seconds / 1e9,
  }
  p.attainable = math.min(machine.peak, machine.peak_gbs * p.intensity)
  p.fraction_of_roof = p.performance / p.attainable
  p.bound = p.intensity < machine.ridge and "memory" or "compute"
  if machine.unit == "GFLOP/s" then
    p.gflops = p.performance
  end
  return p
end

-- The data of svg.roofline for a machine and points { label, group, style,
-- position }: points that cannot sit on a log-log plot (no operations or no
-- DRAM traffic) are left out and listed in the second result.
function M.plot_data(machine, points)
  local data = { peak_gflops = machine.peak, peak_gbs = machine.peak_gbs, compute_label = machine.label,
    memory_label = "DRAM", unit = machine.unit,
    intensity_unit = machine.precision == "instructions" and "inst/B" or "FLOP/B", points = {} }
  local skipped = {}
  for i, pt in ipairs(points) do
    local pos = pt.position
    if type(pos) ~= "table" then
      error(("gpush.roofline.plot_data: points[%d].position must be a table from roofline.position"):format(i), 2)
    end
    if pos.performance > 0 and pos.intensity > 0 and pos.intensity < math.huge then
      data.points[#data.points + 1] = { label = pt.label, group = pt.group, style = pt.style,
        intensity = pos.intensity, gflops = pos.performance }
    else
      skipped[#skipped + 1] = pt.label or ("point " .. i)
    end
  end
  return data, skipped
end

-- The roofline as SVG text: plot_data drawn by svg.roofline, with axis
-- labels in the machine's unit.  opts as svg.roofline's.
function M.svg(machine, points, opts)
  local svg = require "gpush.report.svg"
  local data = M.plot_data(machine, points)
  local o = {}
  for k, v in pairs(opts or {}) do
    o[k] = v
  end
  o.x_label = o.x_label or ("Arithmetic intensity (%s per DRAM byte)"):format(machine.ops_name)
  o.y_label = o.y_label or ("Performance (%s)"):format(machine.unit)
  o.title = o.title or ("Roofline: %s"):format(machine.name or "configuration")
  return svg.roofline(data, o)
end

return M
