-- gpush.sweep_outputs: what a sweep's results look like on disk: the column
-- order of its rows, DIR/NAME.csv, .json, .md and the reports' plots written
-- through a staging folder (nothing half-written, an incomplete run's files
-- marked), and the shard file names.  gpush.experiment re-exports
-- write_outputs and shard_path (docs/experiments.md).
local staging = require "gpush.staging"
local summary = require "gpush.report.summary"

local M = {}

-- Task t (1-based) as (kernel, model, point) indices: tasks are numbered
-- kernel by kernel, model by model within a kernel, point by point within
-- a model.
function M.decode_task(t, n_models, n_points)
  local i = t - 1
  local p = i % n_points
  i = i // n_points
  return i // n_models + 1, i % n_models + 1, p + 1
end

-- The i-th of n contiguous runs of tasks first..last (empty when first > last):
-- the tasks of shard i/n.
function M.slice(first, last, i, n)
  local count = last - first + 1
  return first + (i - 1) * count // n, first + i * count // n - 1
end

-- Columns every row starts with, and the provenance ones it ends with.
M.KEY_COLUMNS = { "workload", "kernel", "launch", "model" }
M.STAMP_COLUMNS = { "config_hash", "trace_hash" }

-- The columns of the rows, in a fixed order: keys, parameters, each
-- model's declared columns, any other result fields (sorted), stamps.
-- `model_columns` maps a model name to its declared columns.
function M.columns(parameters, model_names, model_columns, rows)
  local columns, seen = {}, {}
  for _, c in ipairs(M.STAMP_COLUMNS) do
    seen[c] = true
  end
  local function add(c)
    if not seen[c] then
      seen[c] = true
      columns[#columns + 1] = c
    end
  end
  for _, c in ipairs(M.KEY_COLUMNS) do
    add(c)
  end
  for _, p in ipairs(parameters) do
    add(p.column)
  end
  for _, name in ipairs(model_names) do
    for _, c in ipairs(model_columns[name] or {}) do
      add(c)
    end
  end
  local extra = {}
  for _, row in ipairs(rows) do
    for k in pairs(row) do
      if not seen[k] then
        extra[#extra + 1] = k
        seen[k] = true
      end
    end
  end
  table.sort(extra)
  for _, c in ipairs(extra) do
    columns[#columns + 1] = c
  end
  for _, c in ipairs(M.STAMP_COLUMNS) do
    columns[#columns + 1] = c
  end
  return columns
end

-- Report functions that moved, by the names sweep definitions written before
-- the move (and the shards they left, which gpush merge reports from) give.
local MOVED_REPORTS = {
  ["gpush.report.svg:sweep_report"] = "gpush.report.sweep:svg",
  ["gpush.roofline:sweep_report"] = "gpush.report.sweep:roofline",
}

-- The module and function a report name points to (moved names mapped),
-- or nil when the name is not MODULE:FUNCTION.
local function report_parts(spec)
  return (MOVED_REPORTS[spec] or spec):match("^([%w_%.]+):([%w_]+)$")
end

-- Whether any of the named reports declares `need` in its module's
-- `sweep_needs[function]` list: what the engine must gather while the sweep
-- runs for the report to read afterwards ("kernel_profiles": each kernel's
-- FLOPs and bytes per level at the baseline point, for the roofline).
-- A report that cannot be loaded needs nothing here (writing it fails
-- later with its own message).
function M.reports_need(reports, need)
  for _, spec in ipairs(reports or {}) do
    local module, fn = report_parts(spec)
    local loaded, report = pcall(require, module or "")
    if loaded and type(report) == "table" and type(report.sweep_needs) == "table"
        and type(report.sweep_needs[fn]) == "table" then
      for _, n in ipairs(report.sweep_needs[fn]) do
        if n == need then
          return true
        end
      end
    end
  end
  return false
end

-- Marks a report file of an incomplete run so it cannot pass for a finished
-- study: an SVG gets a red line of text along its bottom edge, a Markdown
-- or CSV file a first line.  Other files are left as they are.  Returns
-- true, or nil and the message of a failed write.
local function mark_partial(path, note)
  local f = io.open(path, "rb")
  if not f then
    return nil, ("%s: cannot read it back to mark it incomplete"):format(path)
  end
  local text = f:read("a")
  f:close()
  if path:match("%.svg$") then
    local height = tonumber(text:match('<svg[^>]-height="([%d%.]+)"')) or 20
    local banner = ('<text x="6" y="%g" font-family="sans-serif" font-size="13" font-weight="bold" '
      .. 'fill="#c00000">INCOMPLETE RUN: %s</text>\n'):format(height - 6, note:gsub("&", "&amp;"):gsub("<", "&lt;"))
    text = text:gsub("</svg>%s*$", function(close) return banner .. close end)
  elseif path:match("%.md$") then
    text = ("**Incomplete run:** %s.\n\n"):format(note) .. text
  elseif path:match("%.csv$") then
    text = ("# incomplete: %s\n"):format(note) .. text
  else
    return true
  end
  return staging.write(path, text)
end

-- The files of one sweep's outputs: what its last run wrote, recorded in
-- DIR/.NAME.outputs so the next run removes exactly those before moving
-- its own in (stale plots of an earlier, larger run never sit next to a new
-- partial one; other files in DIR are left alone).
local function manifest_path(dir, name)
  return ("%s/.%s.outputs"):format(dir, name)
end

local function previous_outputs(dir, name)
  local names = {}
  local f = io.open(manifest_path(dir, name), "r")
  if f then
    for line in f:lines() do
      if line ~= "" and not line:find("/", 1, true) then
        names[#names + 1] = line
      end
    end
    f:close()
  end
  return names
end

-- Writes the sweep's files into the staging folder `stage_path`: NAME.csv,
-- .json and .md, then each report ("module:function", called as f(results,
-- dir) -> list of paths written), every file marked when the run is
-- incomplete, and the manifest.  Returns the file names, or nil and a
-- message; a report that raises propagates.
local function write_files(res, stage_path)
  local name = res.extra.sweep.name
  local base = stage_path .. "/" .. name
  local files = {}
  for _, step in ipairs {
    { base .. ".csv", function(path) return res:write_csv(path) end },
    { base .. ".json", function(path) return res:write_json(path) end },
    { base .. ".md", function(path) return res:write(path, summary.file) end },
  } do
    local done, write_err = step[2](step[1])
    if not done then
      return nil, write_err
    end
    files[#files + 1] = step[1]:match("[^/]+$")
  end
  for _, spec in ipairs(res.extra.sweep.reports or {}) do
    local module, fn = report_parts(spec)
    local loaded, report = pcall(require, module or "")
    if not module or not loaded or type(report) ~= "table" or type(report[fn]) ~= "function" then
      return nil, ("report '%s': expected MODULE:FUNCTION naming a Lua function"):format(spec)
    end
    -- The list may come from a shard file: run only what a module declares.
    if type(report.sweep_reports) ~= "table" or report.sweep_reports[fn] ~= true then
      return nil, ("report '%s': %s.sweep_reports does not list '%s' as a sweep report"):format(spec, module, fn)
    end
    local paths, report_err = report[fn](res, stage_path)
    if not paths then
      return nil, ("report '%s': %s"):format(spec, tostring(report_err))
    end
    for _, p in ipairs(paths) do
      local file = p:match("[^/]+$")
      if res.incomplete then
        local marked, mark_err = mark_partial(stage_path .. "/" .. file,
          ("%s: %s"):format(res.incomplete, summary.tasks_ran(res)))
        if not marked then
          return nil, mark_err
        end
      end
      files[#files + 1] = file
    end
  end
  local listed, list_err = staging.write(stage_path .. "/" .. manifest_path("", name):sub(2),
    table.concat(files, "\n") .. "\n")
  if not listed then
    return nil, list_err
  end
  return files
end

-- Writes DIR/NAME.csv, .json and .md and the sweep's reports (write_files);
-- returns the list of paths, or nil and a message.  Everything is written
-- into a fresh folder beside DIR (opts.stage: one made earlier) and moved
-- into DIR at the end, replacing the files of the same names; then the files
-- the sweep's previous run left there under other names are removed.  A
-- failure, or a report that raises, removes the staging folder and leaves
-- DIR as it was.  A result of an incomplete run marks every file it writes,
-- the reports' SVGs included.  opts.inputs: files the command read (gpush
-- merge's partials), which no output may replace.
function M.write(res, dir, opts)
  local stage = opts and opts.stage
  if not stage then
    local stage_err
    stage, stage_err = staging.folder(dir)
    if not stage then
      return nil, stage_err
    end
  end
  local name = res.extra.sweep.name
  local old_files = previous_outputs(dir, name)
  local ran, files, write_err = pcall(write_files, res, stage.path)
  if not ran or not files then
    stage:abort()
    return nil, stage:message(ran and write_err or files)
  end
  for _, file in ipairs(files) do
    for _, input in ipairs(opts and opts.inputs or {}) do
      if staging.same(dir .. "/" .. file, input) then
        stage:abort()
        return nil, ("%s/%s is the input %s: writing it would replace what the command reads; give another --out")
          :format(dir:gsub("/+$", ""), file, input)
      end
    end
  end
  local moved, move_err = stage:commit()
  if not moved then
    return nil, move_err
  end
  local kept = {}
  for _, file in ipairs(files) do
    kept[file] = true
  end
  for _, old in ipairs(old_files) do
    if not kept[old] then
      os.remove(dir .. "/" .. old)
    end
  end
  local written = {}
  for i, file in ipairs(files) do
    written[i] = dir:gsub("/+$", "") .. "/" .. file
  end
  return written
end

-- DIR/NAME.shard-I-of-N.json
function M.shard_path(dir, name, index, count)
  return ("%s/%s.shard-%d-of-%d.json"):format(dir, name, index, count)
end

return M
