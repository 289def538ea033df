-- gpush.report.sweep: the reports of a sweep's results, for the experiment
-- engine's `reports` list (each "module:function" is called as
-- f(results, dir) -> list of paths written, or nil, message) and for
-- `gpush merge`:
--
--   "gpush.report.sweep:svg"       CPI stacks, stall stacks, cycles, heat maps
--   "gpush.report.sweep:roofline"  the baseline point's hierarchical roofline
--
-- They read only the results (rows, the sweep's description in
-- extra.sweep, and what the engine gathered for them: extra.roofline),
-- never the experiment engine, the configuration or the traces; the stack
-- and stall categories and their labels come from the model families
-- (gpush.models).  The plots themselves are gpush.report.svg's.
local models = require "gpush.models"
local roofline = require "gpush.roofline"
local svg = require "gpush.report.svg"

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
-- the sim model family): each active stall reason's share of the cycles a
-- scheduler had a block resident (active_<reason>; from the stall_* shares
-- of all cycles, without idle's, for results of an earlier gpush), so every
-- bar is 1 high and every kernel's split stays readable (drawn in CPI
-- units, one slow kernel flattens the others: the suite's divergent_gather
-- runs at about 1000 scheduler cycles per warp instruction, the rest at 5
-- to 50), and the idle share of all scheduler cycles (no block resident)
-- apart, as a marker: a sub-wave kernel's idle SMs no longer fill its bar.
-- The row's active_cpi column scales a share to GPUMech's CPI unit.
local function stall_stacks(rows, bar, sim)
  local categories, reason_of = {}, {}
  for i, reason in ipairs(sim.ACTIVE_REASONS) do
    categories[i] = sim.STALL_LABELS[reason]
    reason_of[categories[i]] = reason
  end
  local data = svg.stack_data(rows, { group = "kernel", bar = bar, categories = categories,
    value = function(row, label)
      local reason = reason_of[label]
      if row["active_" .. reason] ~= nil then
        return row["active_" .. reason]
      end
      local active = 1 - (row.stall_idle or 0)
      return active > 0 and (row["stall_" .. reason] or 0) / active or 0
    end,
    marker = function(row)
      return row.idle_share or row.stall_idle or 0
    end })
  data.colors = M.stall_colors
  return data
end

-- The SVG report of a sweep, for the experiment engine's `reports` list
-- ("gpush.report.sweep:svg", called as f(results, dir); sweeps that name it
-- by its old name "gpush.report.svg:sweep_report" reach it too): with the
-- first swept parameter on the x axis and the others at the baseline,
--   NAME_cpi_MODEL.svg  CPI stacks per kernel (models with cpi_* columns),
--   NAME_stalls_MODEL.svg  the simulator's stall shares of the active
--                       scheduler cycles per kernel, idle apart as a marker
--                       (models with stall_* columns),
--   NAME_cycles.svg     cycles of every kernel and model,
-- and with the first two parameters, NAME_heatmap_KERNEL.svg: the first
-- model's cycles per kernel.  Returns the paths written, or nil, message.
-- The functions a sweep's `reports` list may name (the engine runs no other,
-- since the list may come from a shard file).
M.sweep_reports = { svg = true, roofline = true }

-- What a report needs the engine to gather while the sweep runs
-- (docs/experiments.md, "Reports"): the roofline reads each kernel's FLOPs
-- and bytes per level at the baseline point (extra.roofline).
M.sweep_needs = { roofline = { "kernel_profiles" } }

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
      -- one panel per kernel on its own scale: a kernel at 0.5 CPI stays
      -- as readable as one at 150
      local ok, err = emit("cpi_" .. file_part(model), svg.stacked_bars(svg.stack_data(model_rows,
        { group = "kernel", bar = x.column, categories = gpumech.STACK }),
        { title = ("CPI stacks, %s%s"):format(model, at), x_label = x_label,
          y_label = "CPI of a scheduler (cycles per warp instruction, launch excluded), each kernel on its own scale",
          panels = true }))
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
        { title = ("Stall stacks, %s%s"):format(model, at), x_label = x_label,
          y_label = "share of active scheduler cycles", panels = true, shared_y = true,
          marker_label = "idle: share of all scheduler cycles (no block resident)" }))
      if not ok then
        return nil, err
      end
    end
  end
  if #line_rows > 0 then
    local ok, err = emit("cycles", svg.lines(svg.series_data(line_rows, { x = x.column, y = "cycles" }),
      { title = ("Cycles against %s%s"):format(x.column, at), x_label = x_label,
        y_label = "cycles (log), each kernel on its own scale", log_y = true, x_ticks = "data", panels = true }))
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

-- What is wrong with the engine's roofline facts (extra.roofline, read
-- from a file when merged), or nil.
local function roofline_problem(roof)
  local m = type(roof) == "table" and roof.machine
  if type(roof.point) ~= "table" or type(m) ~= "table" or type(m.roofs) ~= "table" or type(m.ceilings) ~= "table"
      or type(roof.kernels) ~= "table" then
    return "extra.roofline must hold point, machine {roofs, ceilings} and kernels"
  end
  for i, k in ipairs(roof.kernels) do
    for _, field in ipairs { "fp32", "fp64", "l1_bytes", "l2_bytes", "dram_bytes" } do
      if type(k[field]) ~= "number" or k[field] < 0 then
        return ("extra.roofline.kernels[%d].%s must be a non-negative number"):format(i, field)
      end
    end
  end
end

-- The legend's lines naming the kernels the roofline cannot place (no
-- FP32/FP64 FLOPs, or no memory traffic: no intensity), a few to a line.
local function not_drawn_notes(kernels)
  if #kernels == 0 then
    return nil
  end
  local lines, line = { "not drawn (no FLOPs or no memory traffic):" }, ""
  for i, k in ipairs(kernels) do
    local piece = k .. (i < #kernels and "," or "")
    if #line > 0 and #line + 1 + #piece > 36 then
      lines[#lines + 1] = line
      line = piece
    else
      line = #line > 0 and (line .. " " .. piece) or piece
    end
  end
  lines[#lines + 1] = line
  return lines
end

-- The roofline report of a sweep ("gpush.report.sweep:roofline" in a sweep's
-- reports list; the old name "gpush.roofline:sweep_report" reaches it
-- too): the hierarchical roofline of the sweep's baseline point
-- (summary.baseline, else its first point), one panel per model, every
-- kernel placed at its L1, L2 and DRAM intensities (its FLOPs over the
-- bytes the memory model moved at each level) and at the performance the
-- model predicts (FLOPs / its time), under the L1, L2 and DRAM roofs and
-- the FP32 and FP64 ceilings of that point's configuration.  Everything
-- comes from the results: the engine hands the roofs and each kernel's
-- profile over in extra.roofline (gpush.roofline.hierarchy and
-- kernel_profile).  Models without memory traffic (the bounds) are left
-- out.  Writes DIR/NAME_roofline.svg (results without the engine's facts,
-- an earlier gpush's, get a figure saying so); returns the paths written.
function M.roofline(res, dir)
  local sweep = res.extra and res.extra.sweep
  if type(sweep) ~= "table" or type(sweep.parameters) ~= "table" then
    return nil, "gpush.report.sweep.roofline needs a sweep's results"
  end
  local roof = res.extra.roofline
  local path = ("%s/%s_roofline.svg"):format(dir, sweep.name)
  if roof == nil then -- an earlier gpush's results (old shards), or no baseline: say so in the figure's place
    local ok, err = svg.write(path, svg.note({ lines = {
      "These results carry no kernel profiles: a gpush that did not gather them wrote them, or the",
      "baseline point's configuration did not validate (see the failures). Run the sweep again with",
      "this gpush to draw its hierarchical roofline; the other outputs are complete." } },
      { title = "No roofline for " .. sweep.name, height = 200 }))
    if not ok then
      return nil, err
    end
    return { path }
  end
  local problem = roofline_problem(roof)
  if problem then
    return nil, "gpush.report.sweep.roofline: " .. problem
  end
  local profiles = {}
  for _, k in ipairs(roof.kernels) do
    profiles[("%s\0%s\0%s"):format(k.workload, k.kernel, tostring(k.launch))] = k
  end
  local points, flopless, seen = {}, {}, {}
  for _, row in ipairs(res.rows or {}) do
    local at_point = true
    for column, v in pairs(roof.point) do
      at_point = at_point and row[column] == v
    end
    local profile = profiles[("%s\0%s\0%s"):format(row.workload, row.kernel, tostring(row.launch))]
    if at_point and row.achieved_gbs ~= nil and profile then
      local placed = roofline.hierarchy_points(profile, row.time_us)
      for _, p in ipairs(placed) do
        local kernel = row.kernel .. (p.precision == "FP64" and " (FP64)" or "")
        points[#points + 1] = { label = ("%s %s, %s bytes"):format(row.kernel, row.model, p.level), group = kernel,
          style = p.level, panel = row.model, link = kernel, intensity = p.intensity, gflops = p.gflops }
      end
      if #placed == 0 and not seen[row.kernel] then -- compute-only kernels have no intensity
        seen[row.kernel] = true
        flopless[#flopless + 1] = row.kernel
      end
    end
  end
  if #points == 0 then
    return {}
  end
  local at = {}
  for _, p in ipairs(sweep.parameters) do
    if roof.point[p.column] ~= nil then
      at[#at + 1] = ("%s %s"):format(p.column, svg.format_compact(roof.point[p.column]))
    end
  end
  local ok, err = svg.write(path, svg.roofline({ roofs = roof.machine.roofs, ceilings = roof.machine.ceilings,
    unit = "GFLOP/s", intensity_unit = "FLOP/B", points = points, group_heading = "kernels (colour)",
    style_heading = "bytes at (marker)",
    notes = not_drawn_notes(flopless) },
    { title = ("Hierarchical roofline of %s at %s"):format(roof.machine.name or sweep.preset,
      #at > 0 and table.concat(at, ", ") or "the base point") }))
  if not ok then
    return nil, err
  end
  return { path }
end

return M
