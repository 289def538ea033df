-- gpush workloads: the embedded synthetic suite.
--
--   gpush workloads [--measure] [--json]
--
-- Lists the suite from the descriptions alone (instant): shape, warp and
-- memory instructions, active lanes, streams, what each kernel stresses.
-- --measure generates every kernel (seconds each) and adds what only the
-- generated addresses tell: 128 B lines per memory instruction.  --json
-- prints one object per kernel (with --measure: kernel:info()'s fields).
local workloads = require "gpush.workloads"
local json = require "gpush.json"
local cli = require "gpush.cli"

local M = {}

M.usage = [[
usage: gpush workloads [--measure] [--json]
  Lists the embedded synthetic suite, the default workload of every scenario
  (use a kernel as `suite:NAME`, all of them as `suite`, wherever a trace
  PATH is taken: gpush gpumech suite:stream_triad --config gtx660ti).
  Columns come from the descriptions, without generating the kernels:
  grid x block, warps, warp instructions, memory instructions, the share of
  active lanes and the memory streams.  A kernel whose trip count varies per
  warp (a seeded spread) shows its expected counts with '~'.
  --measure  generate every kernel (a few seconds each) and add the 128 B
             lines per memory instruction its addresses touch
  --json     one object per kernel; with --measure, every field of
             `gpush trace info --json`
]]

local memory_classes = {
  ld_global = true, st_global = true, ld_local = true, st_local = true, ld_shared = true,
  st_shared = true, tex = true, atom_global = true, atom_shared = true, ldgsts = true,
}

-- What the description says, without generating: counts per kernel.
function M.describe(desc)
  local block = type(desc.block) == "table" and (desc.block[1] * (desc.block[2] or 1) * (desc.block[3] or 1))
    or desc.block
  local blocks = type(desc.grid) == "table" and (desc.grid[1] * (desc.grid[2] or 1) * (desc.grid[3] or 1))
    or desc.grid
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

local function count_text(n, exact)
  return (exact and "" or "~") .. ("%.0f"):format(n)
end

local function measured(desc, i)
  local kernel, message = workloads.kernel(desc)
  if not kernel then
    return nil, message
  end
  local info = kernel:info()
  kernel:close()
  info.launch = i
  info.summary = desc.summary
  info.hash = workloads.hash(desc)
  return info
end

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local opts, problem = cli.parse_args(args, { ["--json"] = "json", ["--measure"] = "measure",
    ["--help"] = "help", ["-h"] = "help" })
  if opts and #opts.words > 0 then
    opts, problem = nil, ("unknown argument '%s'"):format(opts.words[1])
  end
  if not opts then
    err:write("gpush workloads: ", problem, "\n", M.usage)
    return 2
  end
  if opts.help then
    out:write(M.usage)
    return 0
  end
  local rows = {}
  for i, desc in ipairs(workloads.suite) do
    local row, message = M.describe(desc)
    if opts.measure then
      err:write(("gpush workloads: generating %s (%d of %d)\n"):format(desc.name, i, #workloads.suite))
      row, message = measured(desc, i)
    end
    if not row then
      err:write("gpush workloads: ", message, "\n")
      return 1
    end
    rows[i] = row
  end
  if opts.json then
    out:write(json.encode(rows, true), "\n")
    return 0
  end
  if opts.measure then
    local fmt = "%-18s %7s %11s %8s %7s %6s  %s\n"
    out:write(fmt:format("kernel", "warps", "warp insts", "mem inst", "lines/i", "lanes", "what it stresses"))
    for _, r in ipairs(rows) do
      out:write(fmt:format(r.kernel, r.warps, r.warp_instructions, r.memory_instructions,
        ("%.2f"):format(r.transactions_per_memory_instruction), ("%.0f%%"):format(100 * r.active_lane_efficiency),
        r.summary))
    end
    return 0
  end
  local fmt = "%-18s %11s %7s %11s %10s %6s  %-38s %s\n"
  out:write(fmt:format("kernel", "grid x blk", "warps", "warp insts", "mem inst", "lanes", "streams",
    "what it stresses"))
  for _, r in ipairs(rows) do
    out:write(fmt:format(r.kernel, ("%dx%d"):format(r.grid, r.block), r.warps,
      count_text(r.warp_instructions, r.exact), count_text(r.memory_instructions, r.exact),
      ("%.0f%%"):format(100 * r.active_lane_efficiency), r.streams, r.summary))
  end
  return 0
end

return M
