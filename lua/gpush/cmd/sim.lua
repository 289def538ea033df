-- gpush sim: the abstract timing simulator from the command line.
--
--   gpush sim PATH --config NAME [-p key=value ...] [--policy lrr|gto]
--             [--kernel SPEC] [--json]
--
-- PATH is a trace, `suite` or `suite:NAME`.  Prints per-launch cycles, time,
-- IPC and the stall breakdown per scheduler cycle; --json prints one object
-- per launch (kernel, launch, cycles, warp_instructions, stalls, ...).
local config = require "gpush.config"
local json = require "gpush.json"
local sim = require "gpush.sim"
local trace = require "gpush.trace"

local M = {}

local usage = [==[
usage: gpush sim PATH --config NAME [-p key=value ...] [--policy lrr|gto] [--kernel SPEC] [--json]
]==]

local order = { "issued", "dependence", "memory", "lsu_busy", "sfu_busy", "unit_busy", "barrier",
  "no_eligible_warp", "idle" }

local function stall_text(stalls)
  local total = 0
  for _, v in pairs(stalls) do
    total = total + v
  end
  local parts = {}
  for _, name in ipairs(order) do
    local share = total > 0 and stalls[name] / total or 0
    if share >= 0.005 then
      parts[#parts + 1] = ("%s %.0f%%"):format(name, 100 * share)
    end
  end
  return table.concat(parts, "  ")
end

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local opts, problem = require("gpush.cli").parse_args(args, {
    ["--json"] = "json", ["--help"] = "help", ["-h"] = "help", ["--config"] = "=config",
    ["--policy"] = "=policy", ["--kernel"] = "=kernel", ["-p"] = "+overrides" })
  if not opts then
    err:write("gpush sim: ", problem, "\n", usage)
    return 2
  end
  if opts.help then
    out:write(usage)
    return 0
  end
  if #opts.words ~= 1 or not opts.config then
    err:write("gpush sim: give one PATH and --config NAME\n", usage)
    return 2
  end
  if opts.policy and opts.policy ~= "lrr" and opts.policy ~= "gto" then
    err:write("gpush sim: --policy must be lrr or gto, got '", opts.policy, "'\n")
    return 2
  end
  local cfg, cfg_err = config.load(opts.config, opts.overrides)
  if not cfg then
    err:write("gpush sim: ", cfg_err, "\n")
    return 1
  end
  local iter, message = trace.kernels_of(opts.words[1], opts.kernel)
  if not iter then
    err:write("gpush sim: ", message, "\n")
    return 1
  end
  local rows = {}
  local ok, failure = pcall(function()
    for launch, kernel in iter do
      local r, run_err = sim.run(kernel, cfg, { policy = opts.policy })
      if not r then
        error(run_err, 0)
      end
      r.launch = launch.launch
      rows[#rows + 1] = r
    end
  end)
  if not ok then
    err:write("gpush sim: ", tostring(failure), "\n")
    return 1
  end
  if #rows == 0 then
    err:write("gpush sim: no launch matches --kernel ", tostring(opts.kernel), "\n")
    return 1
  end
  if opts.json then
    out:write(json.encode(rows, true), "\n")
    return 0
  end
  out:write(("abstract simulation (%s) on '%s': %d SMs at %g MHz\n"):format(rows[1].policy, cfg._name,
    cfg.sm.count, cfg.clock.core_mhz))
  local fmt = "%6s  %-30s %12s %10s %7s %8s  %s\n"
  out:write(fmt:format("launch", "kernel", "cycles", "time us", "IPC", "DRAM GB/s", "scheduler cycles"))
  local cycles, us, insts = 0, 0, 0
  for _, r in ipairs(rows) do
    local name = #r.kernel > 30 and (r.kernel:sub(1, 27) .. "...") or r.kernel
    out:write(fmt:format(r.launch, name, ("%.0f"):format(r.cycles), ("%.2f"):format(r.time_us),
      ("%.3f"):format(r.ipc), ("%.1f"):format(r.dram_gbs), stall_text(r.stalls)))
    for _, w in ipairs(r.warnings) do
      out:write("        note: ", w, "\n")
    end
    cycles, us, insts = cycles + r.cycles, us + r.time_us, insts + r.issued
  end
  out:write(fmt:format("total", ("%d launches"):format(#rows), ("%.0f"):format(cycles), ("%.2f"):format(us),
    ("%.3f"):format(insts / cycles), "", ""))
  return 0
end

return M
