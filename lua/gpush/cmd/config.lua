-- gpush config: the parameter schema and the GPU presets from the command line.
--
--   gpush config describe                       every parameter
--   gpush config list                           shipped presets
--   gpush config show NAME|PATH [-p k=v]... [--json]
--   gpush config diff A B [-p k=v]...           what differs (overrides apply to B)
--   gpush config import-accelsim DIR [-o OUT.yaml] [--name NAME]
local cli = require "gpush.cli"
local config = require "gpush.config"
local json = require "gpush.json"

local M = {}

local usage = [[
usage: gpush config describe
       gpush config list
       gpush config show NAME|PATH [-p key=value ...] [--json]
       gpush config diff A B [-p key=value ...]
       gpush config import-accelsim DIR [-o OUT.yaml] [--name NAME]
]]

local function usage_error(message, err)
  return cli.usage_error("gpush config", usage, message, err)
end

local function load_or_report(name, overrides, err)
  local cfg, message = config.load(name, overrides)
  if not cfg then
    err:write("gpush config: ", message, "\n")
  end
  return cfg
end

local function show_text(cfg, out)
  local flat = config.flatten(cfg)
  out:write(("# configuration '%s' (hash %s)\n"):format(cfg._name, config.hash(cfg)))
  for _, source in ipairs(cfg._sources) do
    out:write("# from ", source, "\n")
  end
  local defaulted = {}
  for _, path in ipairs(cfg._defaulted or {}) do
    defaulted[path] = true
  end
  out:write(config.to_yaml(function(path) return flat[path] end,
    function(path, decl)
      local unit = decl.unit ~= "" and decl.unit or decl[2]
      return defaulted[path] and (unit .. "; schema default (no preset)") or unit
    end))
  out:write("# derived:\n")
  for _, path in ipairs(config.paths()) do
    local decl = config.declaration(path)
    if decl.compute then
      out:write(("#   %s = %s %s\n"):format(path, config.format_value(flat[path]), decl.unit))
    end
  end
end

local function show(opts, out, err)
  if #opts.words ~= 1 then
    return usage_error("show needs one preset name or YAML path", err)
  end
  local cfg = load_or_report(opts.words[1], opts.overrides, err)
  if not cfg then
    return 1
  end
  if opts.json then
    out:write(json.encode({ name = cfg._name, sources = cfg._sources, hash = config.hash(cfg),
      values = config.flatten(cfg) }, true), "\n")
  else
    show_text(cfg, out)
  end
  return 0
end

local function diff(opts, out, err)
  if #opts.words ~= 2 then
    return usage_error("diff needs two presets or YAML paths", err)
  end
  local a = load_or_report(opts.words[1], nil, err)
  local b = a and load_or_report(opts.words[2], opts.overrides, err)
  if not b then
    return 1
  end
  local fa, fb = config.flatten(a), config.flatten(b)
  local rows = {}
  for _, path in ipairs(config.paths()) do
    if config.format_value(fa[path]) ~= config.format_value(fb[path]) then
      rows[#rows + 1] = { path, config.format_value(fa[path]), config.format_value(fb[path]),
        config.declaration(path).unit }
    end
  end
  if #rows == 0 then
    out:write(("'%s' and '%s' resolve to the same values\n"):format(a._name, b._name))
    return 0
  end
  local fmt = "%-28s %-24s %-24s %s\n"
  out:write(fmt:format("parameter", a._name, b._name, "unit"))
  for _, row in ipairs(rows) do
    out:write(fmt:format(table.unpack(row)))
  end
  return 0
end

local function list(_, out)
  local fmt = "%-18s %-34s %5s %9s %10s\n"
  out:write(fmt:format("preset", "gpu", "SMs", "core MHz", "DRAM GB/s"))
  for _, name in ipairs(config.presets()) do
    local cfg, message = config.load(name)
    if cfg then
      out:write(fmt:format(name, cfg.gpu.name, cfg.sm.count, ("%g"):format(cfg.clock.core_mhz),
        ("%.1f"):format(cfg.dram.bandwidth_gbs)))
    else
      out:write(name, ": ", message, "\n")
    end
  end
  return 0
end

-- Writes `text` to `target` through a staged file, refusing to replace the
-- configuration being read; true or nil, message.
local function write_import(target, text, dir)
  local staging = require "gpush.staging"
  for _, input in ipairs({ dir .. "/gpgpusim.config", dir .. "/trace.config" }) do
    if staging.same(input, target) then
      return nil, ("-o %s is the input %s: give another output file"):format(target, input)
    end
  end
  return staging.write(target, text)
end

local function import_accelsim(opts, out, err)
  if #opts.words ~= 1 then
    return usage_error("import-accelsim needs the folder holding gpgpusim.config", err)
  end
  local dir = opts.words[1]:gsub("(.)/+$", "%1")
  local text, report = require("gpush.accelsim").import(dir, opts.name)
  if not text then
    err:write("gpush config: ", report, "\n")
    return 1
  end
  local target = opts.output
  if target then
    local ok, message = write_import(target, text, dir)
    if not ok then
      err:write("gpush config: ", message, "\n")
      return 1
    end
  else
    out:write(text)
  end
  err:write(("gpush config: mapped %d parameters; %d Accel-Sim options not mapped (listed at the end of the %s);"
    .. " %d assumed, not in the configuration (gpush defaults; the front end the H100 PCIe's calibration): %s\n")
    :format(report.mapped, #report.unmapped, target and "file" or "output", #report.assumed,
      table.concat(report.assumed, ", ")))
  return 0
end

-- Entry point: gpush config ARGS... ; `out` and `err` default to stdout and stderr.
function M.main(args, out, err)
  return cli.dispatch({ prog = "gpush config", usage = usage,
    options = { ["-p"] = "+overrides", ["--json"] = "json", ["-o"] = "=output", ["--name"] = "=name" },
    actions = {
      describe = function(_, o)
        o:write(config.describe())
        return 0
      end,
      list = list, show = show, diff = diff, ["import-accelsim"] = import_accelsim,
    } }, args, out, err)
end

return M
