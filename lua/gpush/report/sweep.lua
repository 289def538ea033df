-- gpush.report.sweep: the reports of a sweep's results, for the experiment
-- engine's `reports` list (each "module:function" is called as
-- f(results, dir) -> list of paths written, or nil, message) and for
-- `gpush merge`:
--
--   "gpush.report.sweep:svg"       CPI stacks, stall stacks, cycles, heat maps
--   "gpush.report.sweep:roofline"  the baseline point's FP32 roofline
--
-- They read only the results (rows and the sweep's description in
-- extra.sweep), never the experiment engine; the stack and stall categories
-- and their labels come from the model families (gpush.models).  The plots
-- themselves are gpush.report.svg's.
local config = require "gpush.config"
local models = require "gpush.models"
local roofline = require "gpush.roofline"
local svg = require "gpush.report.svg"
local trace = require "gpush.trace"

local M = {}

local function file_part(s)
  return (tostring(s):gsub("[^%w_.-]+", "_"))
end

-- The rows with every parameter column but `free` ones at its fixed value:
-- the summary's baseline when the sweep names one, else the first value.
local function slice(rows, sweep, free)
  local fixed = {}
  local baseline = sweep.summary and sweep.summary.baseline or {}
  for _, p in ipairs(sweep.parameters or {}) do
    if not free[p.column] and p.values and #p.values > 0 then
      local v = baseline[p.column]
      if v == nil then
        v = p.values[1]
      end
      fixed[p.column] = v
    end
  end
  local out = {}
  for _, row in ipairs(rows) do
    local keep = true
    for c, v in pairs(fixed) do
      if row[c] ~= v then
        keep = false
        break
      end
    end
    if keep then
      out[#out + 1] = row
    end
  end
  return out, fixed
end

local function fixed_text(fixed, sweep)
  local parts = {}
  for _, p in ipairs(sweep.parameters) do
    if fixed[p.column] ~= nil then
      parts[#parts + 1] = p.column .. " " .. svg.format_compact(fixed[p.column])
    end
  end
  return #parts > 0 and (" at " .. table.concat(parts, ", ")) or ""
end

-- Colours of the simulator's stall stack, by the labels of
-- gpush.models.sim.STALL_LABELS: the categories GPUMech shares keep
-- their CPI-stack colours (MEM takes DRAM's), IDLE is pale.
M.stall_colors = { BASE = svg.cpi_colors.BASE, DEP = svg.cpi_colors.DEP, MEM = svg.cpi_colors.DRAM,
  LSU = "#D55E00", SFU = "#CC79A7", UNIT = "#56B4E9", BARRIER = "#009E73", NO_WARP = "#F0E442", IDLE = "#E0E0E0" }

-- The simulator's stall stacks per kernel (rows with stall_* shares, from
-- the sim model family): each stall reason's share of the scheduler
-- cycles, so every bar is 1 high and every kernel's split stays readable
-- (drawn in CPI units, one slow kernel flattens the others: the suite's
-- divergent_gather runs at about 1000 scheduler cycles per warp
-- instruction, the rest at 5 to 50).  The row's cpi column scales a share
-- to GPUMech's CPI unit.
local function stall_stacks(rows, bar, sim)
  local categories, reason_of = {}, {}
  for i, reason in ipairs(sim.STALL_REASONS) do
    categories[i] = sim.STALL_LABELS[reason]
    reason_of[categories[i]] = reason
  end
  local data = svg.stack_data(rows, { group = "kernel", bar = bar, categories = categories,
    value = function(row, label)
      return row["stall_" .. reason_of[label]] or 0
    end })
  data.colors = M.stall_colors
  return data
end

-- The SVG report of a sweep, for the experiment engine's `reports` list
-- ("gpush.report.sweep:svg", called as f(results, dir); sweeps that name it
-- by its old name "gpush.report.svg:sweep_report" reach it too): with the
-- first swept parameter on the x axis and the others at the baseline,
--   NAME_cpi_MODEL.svg  CPI stacks per kernel (models with cpi_* columns),
--   NAME_stalls_MODEL.svg  the simulator's stall shares per kernel (models
--                       with stall_* columns),
--   NAME_cycles.svg     cycles of every kernel and model,
-- and with the first two parameters, NAME_heatmap_KERNEL.svg: the first
-- model's cycles per kernel.  Returns the paths written, or nil, message.
-- The functions a sweep's `reports` list may name (the engine runs no other,
-- since the list may come from a shard file).
M.sweep_reports = { svg = true, roofline = true }

function M.svg(res, dir)
  local sweep = res.extra and res.extra.sweep
  if type(sweep) ~= "table" or type(sweep.parameters) ~= "table" or #sweep.parameters == 0 then
    return nil, "gpush.report.sweep.svg needs a sweep's results with at least one swept parameter"
  end
  local rows = res.rows or {}
  if #rows == 0 then
    return {}
  end
  local x = sweep.parameters[1]
  local x_label = x.column .. (x.column ~= x.path and (" (" .. x.path .. ")") or "")
  local gpumech, sim = assert(models.family("gpumech")), assert(models.family("sim"))
  local written = {}
  local function emit(name, text)
    local path = ("%s/%s_%s.svg"):format(dir, sweep.name, name)
    local ok, err = svg.write(path, text)
    if not ok then
      return nil, err
    end
    written[#written + 1] = path
    return true
  end
  local line_rows, fixed = slice(rows, sweep, { [x.column] = true })
  local at = fixed_text(fixed, sweep)
  for _, model in ipairs(sweep.models or {}) do
    local model_rows = {}
    for _, row in ipairs(line_rows) do
      if row.model == model and row.cpi_base ~= nil then
        model_rows[#model_rows + 1] = row
      end
    end
    if #model_rows > 0 then
      local ok, err = emit("cpi_" .. file_part(model), svg.stacked_bars(svg.stack_data(model_rows,
        { group = "kernel", bar = x.column, categories = gpumech.STACK }),
        { title = ("CPI stacks, %s%s"):format(model, at), x_label = x_label .. ", by kernel",
          y_label = "CPI (cycles per warp instruction)" }))
      if not ok then
        return nil, err
      end
    end
    local stall_rows = {}
    for _, row in ipairs(line_rows) do
      if row.model == model and row.stall_issued ~= nil then
        stall_rows[#stall_rows + 1] = row
      end
    end
    if #stall_rows > 0 then
      local ok, err = emit("stalls_" .. file_part(model),
        svg.stacked_bars(stall_stacks(stall_rows, x.column, sim),
        { title = ("Stall stacks, %s%s"):format(model, at), x_label = x_label .. ", by kernel",
          y_label = "share of scheduler cycles" }))
      if not ok then
        return nil, err
      end
    end
  end
  if #line_rows > 0 then
    local ok, err = emit("cycles", svg.lines(svg.series_data(line_rows, { x = x.column, y = "cycles" }),
      { title = ("Cycles against %s%s"):format(x.column, at), x_label = x_label, y_label = "cycles",
        log_y = true, x_ticks = "data" }))
    if not ok then
      return nil, err
    end
  end
  local y = sweep.parameters[2]
  if y and sweep.models and sweep.models[1] then
    local grid_rows, grid_fixed = slice(rows, sweep, { [x.column] = true, [y.column] = true })
    local by_kernel, kernels = {}, {}
    for _, row in ipairs(grid_rows) do
      if row.model == sweep.models[1] and row.cycles ~= nil then
        local k = tostring(row.kernel) .. (row.launch and ("_" .. tostring(row.launch)) or "")
        if not by_kernel[k] then
          by_kernel[k] = {}
          kernels[#kernels + 1] = k
        end
        table.insert(by_kernel[k], row)
      end
    end
    for _, k in ipairs(kernels) do
      local first = by_kernel[k][1]
      local ok, err = emit("heatmap_" .. file_part(k), svg.heatmap(svg.grid_data(by_kernel[k],
        { x = x.column, y = y.column, value = "cycles" }),
        { title = ("%s, %s: cycles%s"):format(first.kernel, sweep.models[1], fixed_text(grid_fixed, sweep)),
          x_label = x_label, y_label = y.column, value_label = "cycles" }))
      if not ok then
        return nil, err
      end
    end
  end
  return written
end

-- The roofline report of a sweep ("gpush.report.sweep:roofline" in a sweep's
-- reports list; the old name "gpush.roofline:sweep_report" reaches it
-- too): the FP32 roofline of the sweep's baseline point (summary.baseline,
-- else its first point), every kernel and model at that
-- point placed by its FP32 FLOPs (counted from the trace, 256 sampled warps
-- scaled to the kernel) and the DRAM bytes its model moved (achieved GB/s x
-- time).  Writes DIR/NAME_roofline.svg; returns the paths written.
function M.roofline(res, dir)
  local sweep = res.extra and res.extra.sweep
  if type(sweep) ~= "table" or type(sweep.preset) ~= "string" then
    return nil, "gpush.report.sweep.roofline needs a sweep's results"
  end
  local point = sweep.summary and sweep.summary.baseline or sweep.points[1] or {}
  local overrides = { table.unpack(sweep.overrides or {}) }
  for _, p in ipairs(sweep.parameters) do
    if point[p.column] ~= nil then
      overrides[#overrides + 1] = ("%s=%s"):format(p.path, tostring(point[p.column]))
    end
  end
  local cfg, cfg_err = config.load(sweep.preset, overrides)
  if not cfg then
    return nil, cfg_err
  end
  local machine, flops, placed, at_point = roofline.machine(cfg), {}, {}, {}
  for _, p in ipairs(sweep.parameters) do
    at_point[p.column] = point[p.column]
  end
  for _, row in ipairs(res:filter(at_point).rows) do
    if row.achieved_gbs and row.time_us then
      if not flops[row.workload] then
        local iter, iter_err = trace.kernels_of(row.workload)
        if not iter then
          return nil, iter_err
        end
        flops[row.workload] = {}
        for launch, kernel in iter do
          flops[row.workload][launch.kernel .. "\0" .. launch.launch] =
            roofline.kernel_flops(kernel, { max_warps = 256 })
        end
      end
      local counts = flops[row.workload][row.kernel .. "\0" .. row.launch]
      if counts then
        placed[#placed + 1] = { label = row.kernel .. " " .. row.model, group = row.kernel, style = row.model,
          position = roofline.position(machine, { ops = counts.fp32, dram_bytes = row.achieved_gbs * row.time_us * 1e3,
            cycles = row.cycles }) }
      end
    end
  end
  local _, skipped = roofline.plot_data(machine, placed)
  if #placed == #skipped then
    return {}
  end
  local at = {}
  for _, p in ipairs(sweep.parameters) do
    if point[p.column] ~= nil then
      at[#at + 1] = ("%s %s"):format(p.column, tostring(point[p.column]))
    end
  end
  local path = ("%s/%s_roofline.svg"):format(dir, sweep.name)
  local ok, err = svg.write(path, roofline.svg(machine, placed,
    { title = ("FP32 roofline at %s"):format(#at > 0 and table.concat(at, ", ") or "the base point") }))
  if not ok then
    return nil, err
  end
  return { path }
end

return M
