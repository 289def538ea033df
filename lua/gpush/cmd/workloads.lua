-- gpush workloads: the embedded synthetic suite.
--
--   gpush workloads [--json]     one row per kernel: shape, size, behaviour
local workloads = require "gpush.workloads"
local json = require "gpush.json"

local M = {}

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local as_json = false
  for _, a in ipairs(args) do
    if a == "--json" then
      as_json = true
    else
      err:write("gpush workloads: unknown argument '", a, "'\nusage: gpush workloads [--json]\n")
      return 2
    end
  end
  local rows = {}
  for i, desc in ipairs(workloads.suite) do
    local kernel, message = workloads.kernel(desc)
    if not kernel then
      err:write("gpush workloads: ", message, "\n")
      return 1
    end
    local info = kernel:info()
    info.launch = i
    info.summary = desc.summary
    info.hash = workloads.hash(desc)
    rows[i] = info
  end
  if as_json then
    out:write(json.encode(rows, true), "\n")
    return 0
  end
  local fmt = "%-18s %7s %11s %8s %7s %6s  %s\n"
  out:write(fmt:format("kernel", "warps", "warp insts", "mem inst", "lines/i", "lanes", "what it stresses"))
  for _, r in ipairs(rows) do
    out:write(fmt:format(r.kernel, r.warps, r.warp_instructions, r.memory_instructions,
      ("%.2f"):format(r.transactions_per_memory_instruction), ("%.0f%%"):format(100 * r.active_lane_efficiency),
      r.summary))
  end
  return 0
end

return M
