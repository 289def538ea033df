-- gpush.correlate.preset: a fitted configuration as a preset file
-- (`gpush correlate --fit ... --write-preset FILE`).
--
--   local yaml_text = preset.text(result, { command = "gpush correlate ...", base = "h100-pcie" })
--   assert(preset.write(result, "h100-fitted.yaml", opts))
--
-- The file inherits the configuration the fit started from (`preset:` a
-- shipped preset's name, or the path of the YAML file given to --config),
-- repeats the -p overrides of the run, and gives each fitted value with a
-- comment: its standard error, its start, its range, and the data and
-- models it was fitted to.  `gpush config show FILE` reads it back; its
-- values reproduce the fit's predictions (to the six significant digits
-- written).
local config = require "gpush.config"
local core = require "gpush.core"
local staging = require "gpush.staging"

local M = {}

-- A value with six significant digits (what the preset writes).
local function rounded(v)
  return type(v) == "number" and tonumber(("%.6g"):format(v)) or v
end

-- The `preset:` line's value for the starting configuration: a shipped
-- preset's name, or the absolute path of a YAML file.
local function base_of(config_name)
  if config_name:find("/", 1, true) or config_name:match("%.ya?ml$") then
    return core.realpath(config_name) or config_name
  end
  return config_name
end

local function percent(v)
  return v and ("%.1f %%"):format(100 * v) or "-"
end

-- The preset's text.  opts.command: the command line, for the header.
function M.text(result, opts)
  opts = opts or {}
  local f = result.fit
  local lines = {
    ("# Fitted by gpush correlate from '%s' (%d rows) against %s."):format(result.measured.file,
      #result.measured.rows, table.concat(result.models, ", ")),
  }
  if opts.command then
    lines[#lines + 1] = "# Command: " .. opts.command
  end
  lines[#lines + 1] = ("# Method: least squares on (predicted - measured) / measured over every row and model,"
    .. " within the schema's ranges; %s after %d iterations."):format(f.reason, f.iterations)
  for _, m in ipairs(result.models) do
    lines[#lines + 1] = ("# %s: mean |error| %s -> %s, max |error| %s -> %s on the fitted rows"):format(m,
      percent(result.summary[m].mean_abs_error), percent(f.summary[m].mean_abs_error),
      percent(result.summary[m].max_abs_error), percent(f.summary[m].max_abs_error))
    if result.validation then
      local v = result.validation
      lines[#lines + 1] = ("#   on %d held-out rows of '%s': mean |error| %s -> %s, max %s -> %s"):format(v.rows,
        v.file, percent(v.summary_before[m].mean_abs_error), percent(v.summary[m].mean_abs_error),
        percent(v.summary_before[m].max_abs_error), percent(v.summary[m].max_abs_error))
    end
  end
  if f.problem then
    lines[#lines + 1] = "# Standard errors: " .. f.problem
  end
  local base = base_of(result.config)
  lines[#lines + 1] = "preset: " .. (base:match("^[%w_%./%-]+$") and base or ("%q"):format(base))
  local entries, paths = {}, {}
  for _, o in ipairs(result.overrides) do
    local path, value = o:match("^%s*(.-)%s*=%s*(.-)%s*$")
    if path and not entries[path] then
      paths[#paths + 1] = path
    end
    if path then
      entries[path] = { core.yaml_scalar(value), "given with -p" }
    end
  end
  for _, p in ipairs(f.parameters) do
    if not entries[p.name] then
      paths[#paths + 1] = p.name
    end
    local se = p.at_bound and "at the bound of its range" or (p.stderr and ("+- %.3g (1 s.e.)"):format(p.stderr)
      or "no standard error")
    entries[p.name] = { rounded(p.value), ("fitted: %s; start %.6g; range %.6g..%.6g"):format(se, p.start, p.min,
      p.max) }
  end
  table.sort(paths) -- paths sharing a prefix together, as YAML nests them
  lines[#lines + 1] = config.to_yaml(function(path) return entries[path][1] end,
    function(path) return entries[path][2] end, paths)
  return table.concat(lines, "\n")
end

-- Writes the preset to `path` through a staged file; true, or nil and a
-- message.
function M.write(result, path, opts)
  local stage, err = staging.file(path)
  if not stage then
    return nil, err
  end
  local ok, write_err = staging.write(stage.path, M.text(result, opts))
  if not ok then
    stage:abort()
    return nil, write_err
  end
  return stage:commit()
end

return M
