-- gpush.accelsim: import an Accel-Sim / GPGPU-Sim configuration as a preset.
--
--   local yaml_text, report = accelsim.import("../shared/reference/accelsim-configs/SM86_RTX3070")
--
-- Reads gpgpusim.config (and trace.config when present: its per-class
-- latency/initiation pairs are what trace-driven Accel-Sim uses), maps every
-- option gpush has a parameter for, and writes a preset YAML whose comments
-- name the option each value came from.  Options gpush does not model are
-- listed at the end of the file, so nothing is dropped silently; parameters
-- the configuration does not give keep gpush's defaults, marked as such.
--
-- Readings (GPGPU-Sim manual conventions):
--  * cache geometry "S:64:128:16,L:B:m:L:P,A:192:4,32:0,32": S sectored / N
--    not, sets:line:assoc; then replacement, write policy (T through, B back),
--    allocation, write-allocate (N none), set indexing; then MSHR
--    type:entries:merge.  dl2 describes one memory sub-partition.
--  * with -gpgpu_unified_l1d_size the L1 gets what the shared-memory carve-out
--    (-gpgpu_shmem_size) leaves (with -gpgpu_adaptive_cache_config 1 also
--    l1.unified_kb: what the kernel's own shared memory leaves); otherwise
--    the dl1 geometry gives its size.
--  * -gpgpu_clock_domains core:interconnect:L2:DRAM in MHz; DRAM bandwidth is
--    n_mem x dram_buswidth bytes x DRAM clock x dram_data_command_freq_ratio.
--  * -dram_latency and -gpgpu_l2_rop_latency are in core cycles; the DRAM one
--    becomes nanoseconds at the core clock.
--  * INT and FP32 share one pipe (sm.int_fp32_shared) when the configuration
--    has no INT units (-gpgpu_num_int_units 0, GPGPU-Sim's default: it then
--    runs every ALU and INT instruction on the SP unit, "as in Fermi,
--    Pascal"); without that option, when the compute capability is below
--    7.0 (INT32 cores of their own came with Volta).
--  * FP64's rate is the compute capability's where the CUDA C Programming
--    Guide's throughput table gives one rate for every GPU of it
--    (FP64_RESULTS): its initiation interval is warp_size x schedulers /
--    results a clock an SM.  Accel-Sim's TITAN X gives DFMA an interval of 8,
--    4 x the hardware's; the value replaced is named in the comment.  Else
--    trace.config's pair.
--  * The front end (launch.*) is the H100 PCIe's calibration, as every gpush
--    preset without measurements of its own takes it (docs/frontend.md);
--    Accel-Sim's constant -gpgpu_kernel_launch_latency is named in the
--    comment and listed with the options not mapped.
local config = require "gpush.config"

local M = {}

-- Raises an import error (caught by M.import, which returns nil, message).
local function refuse(message)
  error({ import_error = message }, 0)
end

-- Reads "-option value..." lines; returns {option = {value=, line=, file=}}
-- and the names in file order.  A value opened with '"' continues over the
-- following lines up to its closing quote (GPGPU-Sim's -gpgpu_dram_timing_opt).
-- Bytes that are not printable text, a line that is neither an option nor
-- a comment, an unclosed quote and a file without any option are refused.
local function read_options(path)
  local f, err = io.open(path, "rb")
  if not f then
    return nil, err
  end
  local options, order = {}, {}
  local n, open_quote, open_name = 0, nil, nil
  for line in f:lines() do
    n = n + 1
    local bad = line:find("[^\t\r\32-\126]")
    if bad then
      f:close()
      refuse(("%s:%d: expected an Accel-Sim configuration (text), found byte 0x%02x at column %d")
        :format(path, n, line:byte(bad), bad))
    end
    -- a carriage return ends a line (CRLF) or nothing: inside one, it would
    -- split the option text echoed into the preset's comments
    local cr = line:find("\r[^\r]")
    if cr then
      f:close()
      refuse(("%s:%d: expected a line ending in LF or CRLF, found a carriage return inside the line at column %d")
        :format(path, n, cr))
    end
    if open_quote then
      open_quote.value = open_quote.value .. " " .. line:match("^%s*(.-)%s*$")
      if line:find('"', 1, true) then
        open_quote = nil
      end
    else
      local text = line:gsub("#.*$", ""):match("^%s*(.-)%s*$")
      local name, value = text:match("^%-(%S+)%s*(.*)$")
      if name then
        if not options[name] then
          order[#order + 1] = name
        end
        options[name] = { value = value, line = n, file = path }
        local _, quotes = value:gsub('"', "")
        if quotes % 2 == 1 then
          open_quote, open_name = options[name], name
        end
      elseif text ~= "" then
        f:close()
        refuse(("%s:%d: expected '-option value' or a # comment, found '%s'"):format(path, n, text:sub(1, 60)))
      end
    end
  end
  f:close()
  if open_quote then
    refuse(("%s:%d: -%s: the quoted value is never closed"):format(path, open_quote.line, open_name))
  end
  return options, order
end

-- The option record, raising for one that is present but does not match
-- `pattern` (its captures are returned).
local function parsed(options, name, pattern, expected)
  local o = options[name]
  if not o then
    return nil
  end
  local captures = { o.value:match(pattern) }
  if #captures == 0 then
    refuse(("%s:%d: -%s %s: expected %s"):format(o.file, o.line, name, o.value, expected))
  end
  return table.unpack(captures)
end

-- A number option: nil when absent, an error when present but not a number.
local function number(options, name)
  local text = parsed(options, name, "^([%-%+]?[%d%.]+[eE]?[%-%+]?%d*)$", "a number")
  if text == nil then
    return nil
  end
  local v = tonumber(text)
  if v == nil then
    local o = options[name]
    refuse(("%s:%d: -%s %s: expected a number"):format(o.file, o.line, name, o.value))
  end
  return v
end

-- "S:4:128:256,L:T:m:L:L,A:384:48,16:0,32" -> fields; nil when the option
-- is absent, an error naming it when it does not parse.
local function cache_geometry(options, name)
  local o = options[name]
  if not o then
    return nil
  end
  local text = o.value
  local parts = {}
  for part in (text .. ","):gmatch("([^,]*),") do
    parts[#parts + 1] = part
  end
  local kind, sets, line, assoc = parts[1]:match("^([SN]):(%d+):(%d+):(%d+)")
  if not kind or not (parts[3] or ""):match("^%a:%d+:%d+") then
    refuse(("%s:%d: -%s %s: expected a cache geometry such as S:4:128:64,L:T:m:L:L,A:512:8,16:0,32"
      .. " (sets:line:ways, policies, MSHR type:entries:merge)"):format(o.file, o.line, name, text))
  end
  local policy = {}
  for p in (parts[2] or ""):gmatch("[^:]+") do
    policy[#policy + 1] = p
  end
  local mshr_type, mshrs, merge = (parts[3] or ""):match("^(%a):(%d+):(%d+)")
  return {
    sectored = kind == "S", sets = tonumber(sets), line = tonumber(line), assoc = tonumber(assoc),
    write = policy[2], write_allocate = policy[4], mshrs = tonumber(mshrs), merge = tonumber(merge),
    mshr_type = mshr_type,
  }
end

-- FP64 results a clock an SM by compute capability (CUDA C Programming
-- Guide, "Arithmetic Instructions", 64-bit floating-point add, multiply,
-- multiply-add), for the capabilities whose GPUs all run at one rate.  Left
-- out: 1.0-1.2 (no FP64), 2.0 and 3.5 (Tesla parts at 1/2 or 1/3, GeForce
-- parts capped at 1/8 or 1/24: the capability does not decide), and the
-- embedded parts (3.2, 5.3, 6.2, 7.2, 8.7).
local FP64_RESULTS = {
  ["1.3"] = 1, ["2.1"] = 4, ["3.0"] = 8, ["3.7"] = 64, ["5.0"] = 4, ["5.2"] = 4, ["6.0"] = 32, ["6.1"] = 4,
  ["7.0"] = 32, ["7.5"] = 2, ["8.0"] = 32, ["8.6"] = 2, ["8.9"] = 2, ["9.0"] = 64,
}

-- Maps the options onto gpush parameters: returns {path = {value, source}}.
local function map(options, trace_options)
  local out = {}
  local used = {}
  local function set(path, value, ...)
    if value == nil then
      return
    end
    local sources = { ... }
    for _, s in ipairs(sources) do
      used[s] = true
    end
    local shown = {}
    for i, s in ipairs(sources) do
      local o = options[s] or trace_options[s]
      shown[i] = "-" .. s .. (o and (" " .. o.value) or "")
    end
    out[path] = { value = value, source = table.concat(shown, ", "), options = sources }
  end

  local clusters, per_cluster = number(options, "gpgpu_n_clusters"), number(options, "gpgpu_n_cores_per_cluster") or 1
  set("sm.count", clusters and math.tointeger(clusters * per_cluster), "gpgpu_n_clusters", "gpgpu_n_cores_per_cluster")
  local threads, warp = parsed(options, "gpgpu_shader_core_pipeline", "^(%d+):(%d+)$",
    "threads per SM:warp size, such as 2048:32")
  if threads then
    threads, warp = tonumber(threads), tonumber(warp)
    set("sm.warp_size", math.tointeger(warp), "gpgpu_shader_core_pipeline")
    set("sm.max_warps", warp > 0 and math.tointeger(threads // warp) or 0, "gpgpu_shader_core_pipeline")
  end
  set("sm.max_blocks", math.tointeger(number(options, "gpgpu_shader_cta")), "gpgpu_shader_cta")
  set("sm.registers", math.tointeger(number(options, "gpgpu_shader_registers")), "gpgpu_shader_registers")
  set("sm.schedulers", math.tointeger(number(options, "gpgpu_num_sched_per_core")), "gpgpu_num_sched_per_core")
  set("sm.issue_width", math.tointeger(number(options, "gpgpu_max_insn_issue_per_warp")), "gpgpu_max_insn_issue_per_warp")
  local shmem = number(options, "gpgpu_shmem_size")
  set("sm.shared_kb", shmem and shmem / 1024, "gpgpu_shmem_size")

  local major, minor = number(options, "gpgpu_compute_capability_major"), number(options, "gpgpu_compute_capability_minor")
  if major and minor then
    set("gpu.compute_capability", major + minor / 10, "gpgpu_compute_capability_major", "gpgpu_compute_capability_minor")
  elseif number(options, "gpgpu_occupancy_sm_number") then
    set("gpu.compute_capability", number(options, "gpgpu_occupancy_sm_number") / 10, "gpgpu_occupancy_sm_number")
  elseif number(options, "gpgpu_coalesce_arch") then
    set("gpu.compute_capability", number(options, "gpgpu_coalesce_arch") / 10, "gpgpu_coalesce_arch")
  end
  local cc = out["gpu.compute_capability"]
  local int_units = number(options, "gpgpu_num_int_units")
  if int_units then
    set("sm.int_fp32_shared", int_units == 0, "gpgpu_num_int_units")
    out["sm.int_fp32_shared"].note = int_units == 0 and "no INT units: GPGPU-Sim runs INT on the SP unit"
      or "INT units of their own"
  elseif cc then
    set("sm.int_fp32_shared", cc.value < 7, table.unpack(cc.options))
    out["sm.int_fp32_shared"].note = cc.value < 7
      and "before Volta one set of cores runs INT and FP32 (GPGPU-Sim's default of 0 INT units agrees)"
      or "INT32 cores of their own since Volta"
  end

  local c, _, _, d = parsed(options, "gpgpu_clock_domains", "^([%d%.]+):([%d%.]+):([%d%.]+):([%d%.]+)$",
    "four clocks in MHz, core:interconnect:L2:DRAM")
  local core_mhz = tonumber(c)
  if c then
    if not (core_mhz and tonumber(d)) then
      refuse(("%s:%d: -gpgpu_clock_domains %s: expected four clocks in MHz, core:interconnect:L2:DRAM")
        :format(options.gpgpu_clock_domains.file, options.gpgpu_clock_domains.line, options.gpgpu_clock_domains.value))
    end
    set("clock.core_mhz", core_mhz, "gpgpu_clock_domains")
    set("clock.mem_mhz", tonumber(d), "gpgpu_clock_domains")
  end

  local dl1 = cache_geometry(options, "gpgpu_cache:dl1")
  if dl1 then
    local unified = number(options, "gpgpu_unified_l1d_size")
    local size_kb = dl1.sets * dl1.line * dl1.assoc / 1024
    if unified and shmem then
      size_kb = unified - shmem / 1024
      set("l1.size_kb", size_kb, "gpgpu_unified_l1d_size", "gpgpu_shmem_size")
      if number(options, "gpgpu_adaptive_cache_config") == 1 then
        -- adaptive: the L1 takes what the kernel's shared memory leaves
        set("l1.unified_kb", unified, "gpgpu_unified_l1d_size", "gpgpu_adaptive_cache_config")
      end
      set("l1.ways", math.tointeger(math.max(1, size_kb * 1024 // (dl1.sets * dl1.line))), "gpgpu_cache:dl1",
        "gpgpu_unified_l1d_size", "gpgpu_shmem_size")
    else
      set("l1.size_kb", size_kb, "gpgpu_cache:dl1")
      set("l1.ways", math.tointeger(dl1.assoc), "gpgpu_cache:dl1")
    end
    set("l1.line_bytes", math.tointeger(dl1.line), "gpgpu_cache:dl1")
    set("l1.sectored", dl1.sectored, "gpgpu_cache:dl1")
    if dl1.sectored then
      set("l1.sector_bytes", 32, "gpgpu_cache:dl1") -- GPGPU-Sim sectors are 32 B
    end
    set("l1.mshrs", math.tointeger(dl1.mshrs), "gpgpu_cache:dl1")
    set("l1.write_policy", dl1.write == "B" and "write_back" or "write_through_no_allocate", "gpgpu_cache:dl1")
  end
  local skip = number(options, "gpgpu_gmem_skip_L1D")
  if skip ~= nil then
    set("l1.cache_global", skip == 0, "gpgpu_gmem_skip_L1D")
  end
  set("l1.latency", number(options, "gpgpu_l1_latency"), "gpgpu_l1_latency")
  set("shared.latency", number(options, "gpgpu_smem_latency"), "gpgpu_smem_latency")
  set("shared.banks", math.tointeger(number(options, "gpgpu_shmem_num_banks")), "gpgpu_shmem_num_banks")

  local n_mem, n_sub = number(options, "gpgpu_n_mem"), number(options, "gpgpu_n_sub_partition_per_mchannel") or 1
  local dl2 = cache_geometry(options, "gpgpu_cache:dl2")
  if dl2 and n_mem then
    set("l2.size_kb", dl2.sets * dl2.line * dl2.assoc * n_mem * n_sub / 1024, "gpgpu_cache:dl2", "gpgpu_n_mem",
      "gpgpu_n_sub_partition_per_mchannel")
    set("l2.line_bytes", math.tointeger(dl2.line), "gpgpu_cache:dl2")
    set("l2.ways", math.tointeger(dl2.assoc), "gpgpu_cache:dl2")
    set("l2.sectored", dl2.sectored, "gpgpu_cache:dl2")
    if dl2.sectored then
      set("l2.sector_bytes", 32, "gpgpu_cache:dl2")
    end
    set("l2.slices", math.tointeger(n_mem * n_sub), "gpgpu_n_mem", "gpgpu_n_sub_partition_per_mchannel")
    set("l2.write_policy", dl2.write == "T" and "write_through" or "write_back", "gpgpu_cache:dl2")
  end
  set("l2.latency", number(options, "gpgpu_l2_rop_latency"), "gpgpu_l2_rop_latency")
  set("dram.channels", n_mem and math.tointeger(n_mem), "gpgpu_n_mem")
  local bus = number(options, "gpgpu_dram_buswidth")
  set("dram.bus_bits", n_mem and bus and math.tointeger(n_mem * bus * 8), "gpgpu_n_mem", "gpgpu_dram_buswidth")
  set("dram.transfers_per_clock", number(options, "dram_data_command_freq_ratio"), "dram_data_command_freq_ratio")
  local dram_cycles = number(options, "dram_latency")
  set("dram.latency_ns", dram_cycles and core_mhz and math.floor(dram_cycles / core_mhz * 1000 + 0.5),
    "dram_latency", "gpgpu_clock_domains")
  set("launch.kernel_cycles", number(options, "gpgpu_kernel_launch_latency"), "gpgpu_kernel_launch_latency")
  set("launch.block_cycles", number(options, "gpgpu_TB_launch_latency"), "gpgpu_TB_launch_latency")

  -- trace.config: latency,initiation per class; specialised units by name
  local function pair(name)
    local l, i = parsed(trace_options, name, "^([%d%.]+)%s*,%s*([%d%.]+)$", "latency,initiation interval")
    return tonumber(l), tonumber(i)
  end
  local classes = { int = "int", sp = "fp32", dp = "fp64", sfu = "sfu", tensor = "tensor" }
  for suffix, class in pairs(classes) do
    local name = "trace_opcode_latency_initiation_" .. suffix
    local l, i = pair(name)
    set("ops." .. class .. ".latency", l, name)
    set("ops." .. class .. ".interval", i, name)
    if suffix == "sp" then
      -- IMAD issues to the FMA (SP) pipe in trace-driven Accel-Sim
      set("ops.imad.latency", l, name)
      set("ops.imad.interval", i, name)
    end
  end
  local unit_class = { BRA = "branch", UDP = "uniform", TENSOR = "tensor" }
  for n = 1, 8 do
    local unit = trace_options["specialized_unit_" .. n]
    local name = unit and unit.value:match(",%s*(%u+)%s*$")
    local class = name and unit_class[name]
    if class and not (class == "tensor" and out["ops.tensor.latency"]) then
      local l, i = pair("trace_opcode_latency_initiation_spec_op_" .. n)
      set("ops." .. class .. ".latency", l, "trace_opcode_latency_initiation_spec_op_" .. n, "specialized_unit_" .. n)
      set("ops." .. class .. ".interval", i, "trace_opcode_latency_initiation_spec_op_" .. n)
    end
  end
  local results = cc and FP64_RESULTS[("%.1f"):format(cc.value)]
  local warp, schedulers = out["sm.warp_size"], out["sm.schedulers"]
  if results and warp and schedulers then
    -- warp_size x schedulers / results: the cycles one scheduler's FP64
    -- lanes take per warp instruction
    local lanes = warp.value * schedulers.value
    local given = out["ops.fp64.interval"]
    local interval = math.tointeger(lanes / results) or lanes / results
    local rate = ("compute capability %.1f's %d FP64 results a clock an SM (CUDA C Programming Guide)")
      :format(cc.value, results)
    if given and given.value == interval then
      given.note = "as " .. rate
    else
      local sources = { table.unpack(cc.options) }
      for _, o in ipairs { "gpgpu_shader_core_pipeline", "gpgpu_num_sched_per_core" } do
        sources[#sources + 1] = o
      end
      set("ops.fp64.interval", interval, table.unpack(sources))
      out["ops.fp64.interval"].note = rate .. (given and given.value > 0 and ("; replaces %s (%g a clock an SM)")
        :format(given.source, lanes / given.value) or "")
    end
  end
  return out, used
end

-- The option (and its file:line) a mapped parameter came from, for messages.
local function origin(options, trace_options, sources)
  for _, name in ipairs(sources) do
    local o = options[name] or trace_options[name]
    if o then
      return ("%s:%d: -%s %s"):format(o.file, o.line, name, o.value)
    end
  end
end

-- Checks the mapped values with the schema, as a YAML load would: raises
-- naming the Accel-Sim option that gave a value gpush cannot use.
local function validate(values, options, trace_options)
  local flat = {}
  for path, v in pairs(values) do
    if config.declaration(path) then
      flat[path] = v.value
    end
  end
  local ok, message = config.load(nil, flat)
  if ok then
    return
  end
  local path = message:match("parameter '([^']+)'")
  local from = path and values[path] and origin(options, trace_options, values[path].options)
  refuse(("%s gives %s: %s"):format(from or "the configuration", path and ("%s = %s"):format(path,
    config.format_value(values[path] and values[path].value)) or "values",
    (message:gsub("^%-p [^:]*: ", ""):gsub(" of 'defaults'", ""))))
end

-- The front end gpush's presets take where nothing was measured: the H100
-- PCIe's calibration (lua/gpush/arch/h100-pcie.yaml), read from that preset
-- so it is stated once.  Returns {path = value} for every launch.* parameter
-- (read once a process).
local front_end
local function calibrated_front_end()
  if front_end then
    return front_end
  end
  local h100, err = config.load("h100-pcie")
  if not h100 then
    error("gpush.accelsim: the h100-pcie preset (the front end's calibration) does not load: " .. tostring(err), 0)
  end
  local out = {}
  for path, v in pairs(config.flatten(h100)) do
    if path:match("^launch%.") and config.declaration(path) then
      out[path] = v
    end
  end
  front_end = out
  return out
end

local FRONT_END_NOTE = "assumption: the H100 PCIe's, calibrated on its Nsight Compute rows (h100-pcie.yaml); "
  .. "nothing measured for this GPU"

local function import(dir, name)
  local options, order = read_options(dir .. "/gpgpusim.config")
  if not options then
    refuse(("%s/gpgpusim.config: cannot read (%s)"):format(dir, order))
  end
  if #order == 0 then
    refuse(("%s/gpgpusim.config: no options: expected an Accel-Sim configuration ('-option value' lines)")
      :format(dir))
  end
  local trace_options, trace_order = {}, {}
  if io.open(dir .. "/trace.config", "r") then
    trace_options, trace_order = read_options(dir .. "/trace.config")
  end
  local values, used = map(options, trace_options)
  for path, v in pairs(calibrated_front_end()) do
    local replaced = values[path]
    values[path] = { value = v, assumed = true, source = FRONT_END_NOTE
      .. (replaced and ("; replaces Accel-Sim's %s"):format(replaced.source) or "") }
    for _, option in ipairs(replaced and replaced.options or {}) do
      used[option] = nil
    end
  end
  name = name or dir:match("([^/]+)/*$")
  values["gpu.name"] = { value = name .. " (imported from Accel-Sim)", source = "the configuration's folder name" }
  validate(values, options, trace_options)

  local lines = {
    ("# %s: imported by `gpush config import-accelsim` from %s"):format(name, dir),
    "# Each value names the Accel-Sim option it came from; parameters the configuration",
    "# does not give are assumed: they keep gpush's defaults, marked 'assumed' (the front end",
    "# takes the H100 PCIe's calibration). Options gpush does not model are listed at the end.",
  }
  local report = { mapped = 0, assumed = {}, unmapped = {} }
  lines[#lines + 1] = config.to_yaml(function(path, decl)
    if values[path] and values[path].assumed then
      report.assumed[#report.assumed + 1] = path
      return values[path].value
    elseif values[path] then
      report.mapped = report.mapped + 1
      return values[path].value
    end
    if not decl.optional then -- an optional group (power.*) is gpush's own, never Accel-Sim's
      report.assumed[#report.assumed + 1] = path
    end
    return decl.default
  end, function(path, decl)
    local v = values[path]
    return v and (v.assumed and v.source or ("from " .. v.source .. (v.note and ("; " .. v.note) or "")))
      or (decl.optional and "gpush default of an optional group (docs/ml.md), not an Accel-Sim option")
      or "assumed: gpush default, not in the Accel-Sim configuration"
  end)
  lines[#lines + 1] = ""
  lines[#lines + 1] = "# Accel-Sim options not mapped to gpush parameters:"
  local function list_unmapped(opts, names, file)
    for _, option in ipairs(names) do
      if not used[option] then
        report.unmapped[#report.unmapped + 1] = option
        lines[#lines + 1] = ("#   %s: -%s %s"):format(file, option, opts[option].value)
      end
    end
  end
  list_unmapped(options, order, "gpgpusim.config")
  list_unmapped(trace_options, trace_order, "trace.config")
  return table.concat(lines, "\n") .. "\n", report
end

-- Imports the configuration in `dir`; returns the preset YAML text and a
-- report {mapped = n, assumed = {paths}, unmapped = {options}}, or nil and
-- a message naming the file, the line and the option: an option present
-- but unparsable, a value the schema refuses, a file that is not a
-- configuration.  Nothing is guessed: an absent option is listed as assumed.
function M.import(dir, name)
  local ok, text, report = pcall(import, dir, name)
  if ok then
    return text, report
  end
  if type(text) == "table" and text.import_error then
    return nil, text.import_error
  end
  error(text, 0)
end

return M
