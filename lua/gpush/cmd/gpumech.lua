-- gpush gpumech: GPUMech predictions from the command line.
--
--   gpush gpumech PATH --config NAME [-p key=value ...] [--policy rr|gto]
--                 [--model gpumech|mt_mshr_band|mt_mshr|mt|naive]
--                 [--select kmeans|max|min|random] [--kernel SPEC] [--json]
--
-- PATH is a trace (kernelslist.g, folder, .traceg[.gz|.xz], .gpt), `suite`
-- or `suite:NAME`.  Prints one row per launch, the application totals and
-- each launch's CPI stack; --json prints one object per launch (kernel,
-- launch, cycles, time_us, ipc, cpi, stack, ...).
local config = require "gpush.config"
local gpumech = require "gpush.gpumech"
local json = require "gpush.json"
local trace = require "gpush.trace"

local M = {}

local usage = [==[
usage: gpush gpumech PATH --config NAME [-p key=value ...] [--policy rr|gto]
                     [--model gpumech|mt_mshr_band|mt_mshr|mt|naive]
                     [--select kmeans|max|min|random] [--kernel SPEC] [--json]
]==]

local stack_order = { "BASE", "DEP", "L1", "L2", "DRAM", "MSHR", "QUEUE" }

local function parse(args, err)
  local opts, problem = require("gpush.cli").parse_args(args, {
    ["--json"] = "json", ["--help"] = "help", ["-h"] = "help", ["--config"] = "=config",
    ["--policy"] = "=policy", ["--model"] = "=model", ["--select"] = "=select",
    ["--kernel"] = "=kernel", ["-p"] = "+overrides" })
  if not opts then
    err:write("gpush gpumech: ", problem, "\n", usage)
    return nil, 2
  end
  return opts
end

local function stack_text(stack)
  local parts = {}
  for _, name in ipairs(stack_order) do
    if stack[name] > 0.0005 then
      parts[#parts + 1] = ("%s %.3f"):format(name, stack[name])
    end
  end
  return table.concat(parts, "  ")
end

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local opts, code = parse(args, err)
  if not opts then
    return code
  end
  if opts.help then
    out:write(usage)
    return 0
  end
  if #opts.words ~= 1 or not opts.config then
    err:write("gpush gpumech: give one PATH and --config NAME\n", usage)
    return 2
  end
  if opts.policy and opts.policy ~= "rr" and opts.policy ~= "gto" then
    err:write("gpush gpumech: --policy must be rr or gto, got '", opts.policy, "'\n")
    return 2
  end
  if opts.model and not gpumech.models[opts.model] then
    err:write("gpush gpumech: unknown --model '", opts.model, "' (gpumech, mt_mshr_band, mt_mshr, mt, naive)\n")
    return 2
  end
  local cfg, cfg_err = config.load(opts.config, opts.overrides)
  if not cfg then
    err:write("gpush gpumech: ", cfg_err, "\n")
    return 1
  end
  local iter, message = trace.kernels_of(opts.words[1], opts.kernel)
  if not iter then
    err:write("gpush gpumech: ", message, "\n")
    return 1
  end
  local rows = {}
  local ok, problem = pcall(function()
    for launch, kernel in iter do
      local r, perr = gpumech.predict(kernel, cfg, { policy = opts.policy, model = opts.model,
        select = opts.select })
      if not r then
        error(perr, 0)
      end
      r.launch = launch.launch
      r.intervals = nil
      rows[#rows + 1] = r
    end
  end)
  if not ok then
    err:write("gpush gpumech: ", tostring(problem), "\n")
    return 1
  end
  if #rows == 0 then
    err:write("gpush gpumech: no launch matches --kernel ", tostring(opts.kernel), "\n")
    return 1
  end
  if opts.json then
    out:write(json.encode(rows, true), "\n")
    return 0
  end
  out:write(("GPUMech (%s, %s) on '%s': %d SMs at %g MHz\n"):format(rows[1].model, rows[1].policy,
    cfg._name, cfg.sm.count, cfg.clock.core_mhz))
  local fmt = "%6s  %-30s %12s %10s %7s %7s  %s\n"
  out:write(fmt:format("launch", "kernel", "cycles", "time us", "IPC", "CPI", "CPI stack"))
  local cycles, us, insts = 0, 0, 0
  for _, r in ipairs(rows) do
    local name = #r.kernel > 30 and (r.kernel:sub(1, 27) .. "...") or r.kernel
    out:write(fmt:format(r.launch, name, ("%.0f"):format(r.cycles), ("%.2f"):format(r.time_us),
      ("%.3f"):format(r.ipc), ("%.3f"):format(r.cpi), stack_text(r.stack)))
    for _, w in ipairs(r.warnings) do
      out:write("        note: ", w, "\n")
    end
    cycles, us, insts = cycles + r.cycles, us + r.time_us, insts + r.ipc * r.cycles
  end
  out:write(fmt:format("total", ("%d launches"):format(#rows), ("%.0f"):format(cycles), ("%.2f"):format(us),
    ("%.3f"):format(insts / cycles), "", ""))
  return 0
end

return M
