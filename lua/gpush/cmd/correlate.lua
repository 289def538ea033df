-- gpush correlate: models against measured cycles, fitting and validating
-- machine parameters (docs/correlate.md).
--
--   gpush correlate MEASURED.csv --config NAME [--model NAMES] [-p KEY=VALUE ...]
--                   [--fit PARAM[,PARAM...]] [--validate OTHER.csv]
--                   [--write-preset FILE] [--out DIR] [--jobs N] [--json] [--quiet]
--
-- Prints a table (or with --json the JSON document) and writes
-- DIR/correlate.csv, .json, .md, .svg (and correlate-fitted.svg after a
-- fit); exit 0, 1 (bad input, or a model failed on a row: the outputs are
-- written and the failures listed), 2 (usage).
local cli = require "gpush.cli"
local core = require "gpush.core"
local correlate = require "gpush.correlate"
local preset = require "gpush.correlate.preset"
local report = require "gpush.report.correlate"
local staging = require "gpush.staging"

local M = {}

local USAGE = [==[
usage: gpush correlate MEASURED.csv --config NAME [--model NAMES] [-p KEY=VALUE ...]
                       [--fit PARAM[,PARAM...]] [--validate OTHER.csv] [--write-preset FILE]
                       [--out DIR] [--jobs N] [--json] [--quiet]
]==]

local HELP = [==[
Predicts every row of a CSV of measured cycles with each model and reports
the errors: per row (predicted - measured) / measured, per model the mean and
largest absolute error, the mean (signed) error, the RMSE in cycles and
Pearson's correlation; with --fit it fits parameters to the rows and reports
the errors before and after, with --validate on rows left out of the fit.
  MEASURED.csv  a header, then a row per measurement: `cycles` (required)
                and what ran, either `trace` (a trace folder, kernelslist.g,
                .traceg[.gz|.xz] or .gpt; relative to the CSV's folder) with
                `launch`, or `kernel`: a microbenchmark (empty, ffma_chain
                with `iters`), a suite kernel or a .lua description file,
                with `grid` and `block`; optional `core_mhz`, `mem_mhz` (the
                row's clocks), `label`; other columns are carried through
                (docs/correlate.md has every rule)
  --config NAME the configuration: a preset (`gpush config list`) or YAML
  --model NAMES comma-separated, as the sweep tables name them: sim-gto,
                sim-lrr, sim-two-level, gpumech-gto, gpumech-rr,
                gpumech-paper-gto, gpumech-paper-rr, mcore, mcore-mwp_cwp,
                bounds (default sim-gto,gpumech-gto)
  -p KEY=VALUE  override a parameter (repeatable); a fitted one starts there
  --fit PARAMS  comma-separated schema parameters (numbers, such as
                launch.kernel_cycles, ops.fp32.latency, dram.bandwidth_gbs)
                to fit: least squares on the relative errors of every row
                and model together, each within its schema range, with a
                standard error per value
  --validate F  with --fit: the errors on the rows of F, not used in the fit,
                with the starting and the fitted values
  --write-preset FILE  with --fit: a YAML preset (`preset:` the starting
                configuration, the fitted values, comments naming the data,
                the models and the fit)
  --out DIR     where the CSV, JSON, Markdown and SVG go (default
                correlate_out)
  --jobs N      worker processes for a fit's evaluations (default: every
                core; the rows are shared among them, the results are the
                same bit for bit)
  --json        print the JSON document instead of the tables
  --quiet       no progress lines on stderr
Exit codes: 0, 1 (bad input, or a model failed on a row), 2 (usage).
]==]

-- Splits a comma-separated option value into trimmed, non-empty words.
local function words(value)
  local list = {}
  for w in value:gmatch("[^,]+") do
    w = w:match("^%s*(.-)%s*$")
    if w ~= "" then
      list[#list + 1] = w
    end
  end
  return list
end

local function pct(v)
  return v and ("%+.1f%%"):format(100 * v) or "-"
end

local function abs_pct(v)
  return v and ("%.1f%%"):format(100 * v) or "-"
end

-- The per-model summary lines.
local function print_summaries(out, result, summaries, title)
  out:write(title, "\n")
  local fmt = "  %-20s %5s %10s %10s %10s %12s %12s\n"
  out:write(fmt:format("model", "rows", "mean |err|", "max |err|", "mean err", "RMSE cycles", "correlation"))
  for _, m in ipairs(result.models) do
    local s = summaries[m]
    out:write(fmt:format(m, s.n, abs_pct(s.mean_abs_error), abs_pct(s.max_abs_error), pct(s.mean_error),
      s.rmse and ("%.0f"):format(s.rmse) or "-", s.correlation and ("%.4f"):format(s.correlation) or "-"))
  end
end

-- The table a person reads: rows, summaries, the fit, the validation.
local function print_tables(out, result)
  local fitted = result.fit ~= nil
  out:write(("%s against %s on '%s'\n"):format(table.concat(result.models, ", "), result.measured.file,
    result.config_name))
  local head = ("  %-8s %-34s %10s"):format("row", "what", "measured")
  for _, m in ipairs(result.models) do
    head = head .. ("  %22s"):format(m .. (fitted and " start/fitted" or ""))
  end
  out:write(head, "\n")
  for _, e in ipairs(result.rows) do
    local what = e.row.label or e.what
    if #what > 34 then
      what = what:sub(1, 31) .. "..."
    end
    local line = ("  %-8s %-34s %10.0f"):format((e.set == "validate" and "v" or "") .. e.line, what, e.row.cycles)
    for _, m in ipairs(result.models) do
      local p = e.predicted[m]
      local cellv = p and ("%.0f %s"):format(p, pct(e.predicted_error[m])) or "failed"
      if fitted and e.fitted and e.fitted[m] then
        cellv = ("%s / %s"):format(pct(e.predicted_error[m]), pct(e.fitted_error[m]))
      end
      line = line .. ("  %22s"):format(cellv)
    end
    out:write(line, "\n")
  end
  print_summaries(out, result, result.summary, ("errors against the measured cycles (%s%s):"):format(
    result.measured.file, fitted and ", starting values" or ""))
  if fitted then
    local f = result.fit
    out:write(("fit (%s; %d iterations, %d evaluations; least squares on relative error, %d residuals):\n")
      :format(f.reason, f.iterations, f.evaluations, f.residual_count))
    for _, p in ipairs(f.parameters) do
      local se = p.at_bound and "at a bound of its range" or (p.stderr and ("+- %.4g"):format(p.stderr)
        or "no standard error")
      out:write(("  %-28s %12.6g %s  %s (start %.6g, range %.6g..%.6g)\n"):format(p.name, p.value, p.unit, se,
        p.start, p.min, p.max))
    end
    if f.problem then
      out:write("  note: ", f.problem, "\n")
    end
    print_summaries(out, result, f.summary, "errors with the fitted values:")
  end
  if result.validation then
    local v = result.validation
    print_summaries(out, result, v.summary_before, ("held-out rows (%s), starting values:"):format(v.file))
    print_summaries(out, result, v.summary, ("held-out rows (%s), fitted values:"):format(v.file))
  end
end

-- Checks the output paths before any model runs: --out a folder (made if
-- missing), --write-preset neither the configuration nor a measured file
-- it reads.  Returns the staging folder for --out, or nil and a message.
local function open_outputs(opts, dir)
  local st = core.stat(dir)
  if st and st.kind ~= "folder" then
    return nil, ("--out %s exists and is not a folder"):format(dir)
  end
  if opts.write_preset then
    for _, input in ipairs({ opts.config, opts.words[1], opts.validate }) do
      if input and staging.same(input, opts.write_preset) then
        return nil, ("--write-preset %s is the input %s: give another file"):format(opts.write_preset, input)
      end
    end
    local pst = core.stat(opts.write_preset)
    if pst and pst.kind == "folder" then
      return nil, ("--write-preset %s is a folder: give a file name"):format(opts.write_preset)
    end
  end
  local stage, err = staging.folder(dir)
  if not stage then
    return nil, ("--out %s: cannot create the folder: %s"):format(dir, err:match(": ([^:]+)$") or err)
  end
  return stage
end

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local prefix = "gpush correlate: "
  local usage = USAGE .. "(gpush correlate --help explains every option)\n"
  local opts, problem = cli.parse_args(args, { ["--help"] = "help", ["-h"] = "help", ["--config"] = "=config",
    ["--model"] = "=model", ["-p"] = "+overrides", ["--fit"] = "=fit", ["--validate"] = "=validate",
    ["--write-preset"] = "=write_preset", ["--out"] = "=out", ["--jobs"] = "=jobs", ["--json"] = "json", ["--quiet"] = "quiet" })
  if not opts then
    return cli.usage_error("gpush correlate", usage, problem, err)
  end
  if opts.help then
    out:write(USAGE, HELP)
    return 0
  end
  if #opts.words ~= 1 or not opts.config then
    return cli.usage_error("gpush correlate", usage, "give one MEASURED.csv and --config NAME", err)
  end
  if opts.validate and not opts.fit then
    return cli.usage_error("gpush correlate", usage, "--validate needs --fit (it judges fitted values on other rows)",
      err)
  end
  if opts.write_preset and not opts.fit then
    return cli.usage_error("gpush correlate", usage, "--write-preset needs --fit (it writes the fitted values)", err)
  end
  local jobs = 0
  if opts.jobs then
    jobs = math.tointeger(tonumber(opts.jobs))
    if not jobs or jobs < 1 then
      return cli.usage_error("gpush correlate", usage, ("--jobs must be a whole number above 0, got '%s'")
        :format(opts.jobs), err)
    end
  end
  local fit = opts.fit and words(opts.fit)
  if fit and #fit == 0 then
    return cli.usage_error("gpush correlate", usage, "--fit needs parameter names (launch.kernel_cycles,...)", err)
  end
  local dir = opts.out or "correlate_out"
  local stage, stage_err = open_outputs(opts, dir)
  if not stage then
    err:write(prefix, stage_err, "\n")
    return 1
  end
  local model_names = opts.model and words(opts.model) or correlate.DEFAULT_MODELS
  local progress = function(line)
    if not opts.quiet then
      err:write(prefix, line, "\n")
    end
  end
  local result, run_err = correlate.run { measured = opts.words[1], config = opts.config,
    overrides = opts.overrides, models = model_names, fit = fit, validate = opts.validate, jobs = jobs,
    progress = progress }
  if not result then
    stage:abort()
    err:write(prefix, run_err:gsub("\n", "\n" .. prefix), "\n")
    return 1
  end
  local command = require("gpush.experiment").command_line({ [0] = "correlate", table.unpack(args) })
  local provenance = { gpush = core.version(), command = command, config = result.config_name,
    measured = result.measured.file }
  if #result.overrides > 0 then
    provenance.overrides = table.concat(result.overrides, " ")
  end
  if result.validate then
    provenance.validate = result.validate.file
  end
  local written, write_err = report.write(result, dir, provenance, stage)
  if not written then
    err:write(prefix, write_err, "\n")
    return 1
  end
  if opts.write_preset then
    local ok, preset_err = preset.write(result, opts.write_preset, { command = command })
    if not ok then
      err:write(prefix, preset_err, "\n")
      return 1
    end
    written[#written + 1] = opts.write_preset
  end
  if opts.json then
    out:write(report.json(result, provenance))
  else
    print_tables(out, result)
    out:write("wrote ", table.concat(written, ", "), "\n")
  end
  local failures = 0
  for _, e in ipairs(result.rows) do
    for _, m in ipairs(result.models) do
      if e.failed[m] then
        failures = failures + 1
        err:write(prefix, e.failed[m], "\n")
      end
    end
  end
  return failures > 0 and 1 or 0
end

return M
