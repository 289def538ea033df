-- gpush trace: inspect Accel-Sim traces.
--
--   gpush trace info PATH [--kernel SPEC] [--json]
--
-- Prints one row per kernel launch and the application totals; with --json,
-- a list with one object per launch (kernel, launch, then its fields), the
-- shape every machine-readable gpush command follows.
local cli = require "gpush.cli"
local trace = require "gpush.trace"
local json = require "gpush.json"
local core = require "gpush.core"
local staging = require "gpush.staging"

local M = {}

local usage = [==[
usage: gpush trace info PATH [--kernel NAME|ID|A-B[,...]] [--json]
       gpush trace convert IN OUT [--kernel NAME|ID|A-B[,...]]
  PATH and IN: a kernelslist.g, a folder holding one, or a .traceg (.gz, .xz)
  or .gpt file; IN may also be suite (every embedded synthetic kernel),
  suite:NAME, variants (the suite's seeded variants) or variants:NAME.
  OUT: a .traceg (Accel-Sim text, version 5) or .gpt (gpush binary) file for
  a single launch; otherwise a folder (an existing one, a path ending in '/'
  or a name without an extension) that receives kernel-N.traceg files and
  their kernelslist.g.  OUT is written under a temporary name and moved into
  place when complete; an OUT that is the input (or its folder) is refused.
  .gpt keeps everything the models read.  The text writer keeps per warp
  instruction its PC, opcode, active-lane count, memory width, addresses and
  dependences shorter than 63 instructions; it drops the original register
  numbers (reallocated from the dependences), longer dependences and those
  on producers that write no register (stores, branches), which lanes were
  active (the lowest lanes are written), source line numbers, the version-5
  immediates, the CUDA stream id and the MemcpyHtoD lines of a kernelslist.g.
  Inputs must be regular files (a trace is read more than once); a .gz or
  .xz trace may give at most GPUSH_TRACE_LIMIT_MB (default 512) MiB of text
  and of parsed launch.
]==]

local function usage_error(message, err)
  return cli.usage_error("gpush trace", usage, message, err)
end

local function mix_text(mix)
  local names = {}
  for name in pairs(mix) do
    names[#names + 1] = name
  end
  table.sort(names, function(a, b) return mix[a] > mix[b] or (mix[a] == mix[b] and a < b) end)
  local parts = {}
  for i = 1, math.min(3, #names) do
    parts[i] = names[i] .. " " .. mix[names[i]]
  end
  return table.concat(parts, ", ")
end

local function info(opts, out, err)
  if #opts.words ~= 1 then
    return usage_error("info needs one trace path", err)
  end
  local t, open_err = trace.open(opts.words[1])
  if not t then
    err:write("gpush trace: ", open_err, "\n")
    return 1
  end
  local rows = {}
  local ok, iter_err = pcall(function()
    for _, kernel in t:kernels(opts.kernel) do
      rows[#rows + 1] = kernel:info()
      kernel:close()
    end
  end)
  if not ok then
    err:write("gpush trace: ", tostring(iter_err), "\n")
    return 1
  end
  if opts.kernel and #rows == 0 then
    err:write(("gpush trace: no launch in %s matches --kernel %s\n"):format(opts.words[1], opts.kernel))
    return 1
  end
  if opts.json then
    out:write(json.encode(rows, true), "\n")
    return 0
  end
  local fmt = "%6s  %-34s %7s %7s %12s %8s %7s %6s  %s\n"
  out:write(fmt:format("launch", "kernel", "blocks", "warps", "warp insts", "mem inst", "lines/i", "lanes", "top classes"))
  local total = { blocks = 0, warps = 0, insts = 0, mem = 0 }
  for _, r in ipairs(rows) do
    local name = #r.kernel > 34 and (r.kernel:sub(1, 31) .. "...") or r.kernel
    out:write(fmt:format(r.launch, name, r.thread_blocks, r.warps, r.warp_instructions, r.memory_instructions,
      ("%.2f"):format(r.transactions_per_memory_instruction), ("%.0f%%"):format(100 * r.active_lane_efficiency),
      mix_text(r.class_mix)))
    if r.warnings ~= "" then
      out:write("        warning: ", r.warnings, "\n")
    end
    total.blocks = total.blocks + r.thread_blocks
    total.warps = total.warps + r.warps
    total.insts = total.insts + r.warp_instructions
    total.mem = total.mem + r.memory_instructions
  end
  out:write(fmt:format("total", ("%d launches"):format(#rows), total.blocks, total.warps, total.insts, total.mem, "", "", ""))
  local copies, bytes = t:memcpy()
  if copies > 0 then
    out:write(("%d host-to-device copies, %d bytes\n"):format(copies, bytes))
  end
  return 0
end

-- Raises `message` without a position when `ok` is falsy.
local function check(ok, message)
  if not ok then
    error(message, 0)
  end
  return ok
end

-- What OUT names: "file" (.traceg or .gpt, one launch) or "folder" (an
-- existing folder, a path ending in '/', or a name without an extension);
-- nil and a message for anything else (out.txt, a .traceg.gz).
local function output_kind(output)
  local st = core.stat(output)
  if st and st.kind == "folder" or output:match("/$") then
    return "folder"
  elseif output:match("%.traceg$") or output:match("%.gpt$") then
    return "file"
  elseif output:match("%.[^/.]*$") then
    return nil, ("OUT '%s': expected a .traceg or .gpt file (one launch) or a folder"
      .. " (an existing one, or a path ending in '/'); the writer writes neither compressed text"
      .. " nor other formats"):format(output)
  end
  return "folder"
end

-- Refuses an OUT that would replace one of the input's files: the same file
-- (through links too) or, for a folder, the folder the input's files are in.
local function check_not_input(input, output, kind)
  local files, message = trace.input_files(input)
  if not files then
    return nil, message
  end
  local target = staging.identity(output)
  if not target then
    return true
  end
  for _, file in ipairs(files) do
    local other = kind == "file" and staging.identity(file) or staging.identity((staging.split(file)))
    if other == target then
      return nil, ("OUT '%s' is %s '%s': converting would replace the trace it reads;"
        .. " give another OUT"):format(output, kind == "file" and "the input" or "the folder of the input", file)
    end
  end
  return true
end

-- Writes one kernel to `path` in the format `name` says (.gpt or text).
local function write_kernel(kernel, path, name)
  if name:match("%.gpt$") then
    return kernel:write_gpt(path)
  end
  return kernel:write_text(path)
end

local function convert(opts, out, err)
  if #opts.words ~= 2 then
    return usage_error("convert needs IN and OUT", err)
  end
  local input, output = opts.words[1], opts.words[2]
  local kind, kind_err = output_kind(output)
  if not kind then
    return usage_error(kind_err, err)
  end
  local safe, unsafe_err = check_not_input(input, output, kind)
  if not safe then
    err:write("gpush trace: ", unsafe_err, "\n")
    return 1
  end
  local iter, message = trace.kernels_of(input, opts.kernel)
  if not iter then
    err:write("gpush trace: ", message, "\n")
    return 1
  end
  local stage, stage_err = (kind == "file" and staging.file or staging.folder)(output)
  if not stage then
    err:write("gpush trace: ", stage_err, "\n")
    return 1
  end
  local written, notes = {}, {}
  local ok, problem = pcall(function()
    for launch, kernel in iter do
      if kind == "file" and #written == 1 then
        error(("%s holds more than one launch: give a folder as OUT, or --kernel"):format(input), 0)
      end
      local name = kind == "file" and output or ("kernel-%d.traceg"):format(#written + 1)
      check(write_kernel(kernel, kind == "file" and stage.path or (stage.path .. "/" .. name), name))
      kernel:close()
      written[#written + 1] = name
      notes[#notes + 1] = ("wrote %s (%s, launch %d)\n"):format(
        kind == "file" and output or (output:gsub("/+$", "") .. "/" .. name), launch.kernel, launch.launch)
    end
    if kind == "folder" and #written > 0 then
      check(staging.write(stage.path .. "/kernelslist.g", table.concat(written, "\n") .. "\n"))
    end
  end)
  if ok and #written == 0 then
    ok, problem = false, ("no launch in %s matches --kernel %s"):format(input, tostring(opts.kernel))
  end
  if ok then
    ok, problem = stage:commit()
  else
    stage:abort()
  end
  if not ok then
    err:write("gpush trace: ", stage:message(problem), "\n")
    return 1
  end
  out:write(table.concat(notes))
  return 0
end

function M.main(args, out, err)
  return cli.dispatch({ prog = "gpush trace", usage = usage,
    options = { ["--json"] = "json", ["--kernel"] = "=kernel" },
    actions = { info = info, convert = convert } }, args, out, err)
end

return M
