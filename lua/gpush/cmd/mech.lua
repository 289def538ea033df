-- gpush mech: Blem's modular mechanistic S-core and M-core models.
--
--   gpush mech --core NAME (--input FILE | PATH) [-p key=value ...]
--              [--base gpuperf|mwp_cwp] [--with M,...] [--without M,...]
--              [--module FILE.lua ...] [--kernel SPEC] [--json]
--   gpush mech --list                  shipped cores with their modules
--   gpush mech --describe score|mcore|inputs|modules
--
-- PATH (M-cores) is a trace (kernelslist.g, folder, .traceg[.gz|.xz], .gpt),
-- `suite` or `suite:NAME`: Table 4.2's inputs are measured on every launch.
-- --input FILE is a YAML or Lua file of inputs (one set or a list).  Prints
-- per launch or input the cycles and seconds, the four terms and each
-- module's contribution (what it added, and its marginal effect); --json
-- prints one object per launch or input (core, kernel or input, cycles,
-- seconds, terms, modules, effects, quantities, warnings, inputs; or error).
-- A launch that cannot be measured or predicted is reported and the others
-- still run; the exit status is then 1.  --module FILE.lua adds a user's
-- module (a file returning framework.module {...}); -p sets its parameters.
local cli = require "gpush.cli"
local json = require "gpush.json"
local mech = require "gpush.models.mech"
local text = require "gpush.text"
local trace = require "gpush.trace"

local M = {}

local USAGE = [==[
usage: gpush mech --core NAME (--input FILE | PATH) [-p key=value ...] [--base gpuperf|mwp_cwp]
                  [--with MODULE,...] [--without MODULE,...] [--module FILE.lua ...] [--kernel SPEC]
                  [--json]
       gpush mech --list
       gpush mech --describe score|mcore|inputs|modules

  NAME   an S-core (a8, atom, xeon, nehalem, sandybridge) or M-core (quadro-fx580, 8400gs,
         gt330, gtx480, gtx660ti) preset, or a core preset file
  PATH   M-cores: a trace, `suite` or `suite:NAME`; the inputs are measured on each launch
  -p     S-core parameters; for M-cores GPU schema keys (gpush config describe) and M-core
         parameters (gpush mech --describe mcore); a --module's own parameters
  --module  a Lua file returning a module (gpush.models.mech.framework.module) or a list of
         them, added to the core (examples/modules/tensor.lua)
A launch or input set that cannot be predicted is reported and the others still run (exit 1).
]==]

local OPTIONS = {
  ["--core"] = "=core", ["--input"] = "=input", ["-p"] = "+overrides", ["--base"] = "=base",
  ["--with"] = "+with", ["--without"] = "+without", ["--kernel"] = "=kernel", ["--json"] = "json",
  ["--list"] = "list", ["--describe"] = "=describe", ["--module"] = "+modules", ["--help"] = "help", ["-h"] = "help",
}

local function split_list(items)
  local out = {}
  for _, item in ipairs(items) do
    for name in item:gmatch("[^,%s]+") do
      out[#out + 1] = name
    end
  end
  return out
end

-- Which kind a core name is: a shipped preset of either kind, or a file
-- whose `kind:` says.
local function kind_of(name)
  for _, kind in ipairs { "score", "mcore" } do
    for _, preset in ipairs(mech.framework.presets(kind)) do
      if preset == name then
        return kind
      end
    end
  end
  if name:find("/", 1, true) or name:match("%.ya?ml$") then
    local tree = require("gpush.core").yaml_load(name)
    if type(tree) == "table" and (tree.kind == "score" or tree.kind == "mcore") then
      return tree.kind
    end
    return nil, ("%s: not a core preset (kind: score or mcore)"):format(name)
  end
  local all = mech.framework.presets("score")
  for _, n in ipairs(mech.framework.presets("mcore")) do
    all[#all + 1] = n
  end
  local guess = require("gpush.text").closest(name, all)
  return nil, ("unknown core '%s'%s; cores: %s"):format(name, guess and (" (did you mean '" .. guess .. "'?)") or "",
    table.concat(all, ", "))
end

local function fmt_cycles(v)
  if v == nil then
    return ""
  end
  if math.abs(v) < 0.05 then
    return "0"
  end
  return ("%.1f"):format(v)
end

-- The per-term direct contributions of each module.
local function per_term(r)
  local t = {}
  for _, row in ipairs(r.breakdown) do
    t[row.module] = t[row.module] or {}
    t[row.module][row.term] = (t[row.module][row.term] or 0) + row.cycles
  end
  return t
end

local QUANTITIES = {
  mcore = { { "N", "N (warps/SM)", "%.0f" }, { "mwp", "MWP", "%.2f" }, { "cwp", "CWP", "%.2f" },
    { "itilp", "ITILP", "%.2f" }, { "itmlp", "ITMLP", "%.2f" }, { "amat", "AMAT", "%.1f" },
    { "avg_lat", "l", "%.2f" }, { "trans", "trans/access", "%.2f" }, { "case", "case", "%d" },
    { "busiest_unit", "busiest unit", "%s" } },
  score = { { "ipc", "IPC", "%.3f" }, { "N", "N", "%.0f" }, { "latency_sum", "latency sum", "%.0f" },
    { "p_dep", "p(dep)", "%.3f" }, { "w_max", "W_max", "%.3f" } },
}

local function print_result(out, label, r, model)
  out:write(("%s: %.0f cycles, %.4g s\n"):format(label, r.cycles, r.seconds))
  local t = r.terms
  out:write(("  T = comp %s + mem %s + control %s - overlap %s\n"):format(fmt_cycles(t.comp), fmt_cycles(t.mem),
    fmt_cycles(t.control), fmt_cycles(t.overlap)))
  local fmt = "  %-14s %11s %11s %11s %11s %11s %11s\n"
  out:write(fmt:format("module", "comp", "mem", "control", "overlap", "added", "effect"))
  local terms = per_term(r)
  for _, m in ipairs(model.modules) do
    local tm = terms[m.name] or {}
    local effect = r.effects[m.name]
    out:write(fmt:format(m.name, fmt_cycles(tm.comp), fmt_cycles(tm.mem), fmt_cycles(tm.control),
      tm.overlap and fmt_cycles(-tm.overlap) or "", fmt_cycles(r.modules[m.name]),
      m.base and "(base)" or fmt_cycles(effect)))
  end
  out:write(fmt:format("total", fmt_cycles(t.comp), fmt_cycles(t.mem), fmt_cycles(t.control),
    fmt_cycles(-t.overlap), fmt_cycles(r.cycles), ""))
  local parts = {}
  for _, q in ipairs(QUANTITIES[r.kind] or {}) do
    local v = r.quantities[q[1]]
    if v ~= nil then
      parts[#parts + 1] = q[2] .. " " .. q[3]:format(v)
    end
  end
  if #parts > 0 then
    out:write("  ", table.concat(parts, "  "), "\n")
  end
  if r.kind == "mcore" then
    out:write(("  bottleneck %s (from %s)\n"):format(mech.mcore.bottleneck(r)))
  end
  for _, w in ipairs(r.warnings) do
    out:write("  note: ", w, "\n")
  end
end

local function describe(what, stream, err)
  -- sources cite sections and equations, not the reference texts' line numbers
  local out = { write = function(_, ...)
    for i = 1, select("#", ...) do
      stream:write(text.without_line_refs((select(i, ...))))
    end
  end }
  local p = mech.params
  if what == "score" then
    out:write(p.describe(p.score, "S-core parameters (-p key=value; presets under lua/gpush/models/mech/cores):"))
  elseif what == "mcore" then
    out:write(p.describe(p.mcore, "M-core parameters (those from 'GPU:' follow the GPU configuration; set its keys):"))
  elseif what == "inputs" then
    out:write(p.describe(p.inputs, "workload inputs (Tables 4.1 and 4.2; --input FILE):"))
  elseif what == "modules" then
    for _, family in ipairs { { "S-core", mech.score.modules }, { "M-core", mech.mcore.modules } } do
      out:write(family[1], " modules:\n")
      local names = {}
      for name in pairs(family[2]) do
        names[#names + 1] = name
      end
      table.sort(names)
      for _, name in ipairs(names) do
        local m = family[2][name]
        local inputs = {}
        for i, d in ipairs(m.inputs) do
          inputs[i] = d.name
        end
        out:write(("  %-14s %s%s\n  %-14s inputs: %s; source: %s\n"):format(name, m.base and "(base) " or "",
          m.description, "", #inputs > 0 and table.concat(inputs, ", ") or "none", m.source))
      end
    end
  else
    err:write("gpush mech: --describe takes score, mcore, inputs or modules\n")
    return 2
  end
  return 0
end

local function list(out)
  for _, family in ipairs { { "S-cores", "score", mech.score }, { "M-cores", "mcore", mech.mcore } } do
    out:write(family[1], ":\n")
    for _, name in ipairs(family[3].presets()) do
      local c, e = family[3].core(name)
      if c then
        out:write(("  %-14s %-36s %s\n"):format(name, c.info.name, table.concat(c:module_names(), ", ")))
      else
        out:write(("  %-14s %s\n"):format(name, e))
      end
    end
  end
  return 0
end

-- The (label, inputs, about) items to predict.  An item whose inputs
-- cannot be measured (a kernel that does not fit an SM of the core) carries
-- `error` instead, so the other launches still run.
local function items(opts, model)
  if opts.input then
    local sets, err = mech.inputs.load(opts.input)
    if not sets then
      return nil, err
    end
    local list_ = {}
    for i, set in ipairs(sets) do
      list_[i] = { label = set.name, where = ("%s: %s"):format(opts.input, set.name), inputs = set.inputs,
        row = { input = set.name } }
    end
    return list_
  end
  if model.kind ~= "mcore" then
    return nil, ("S-core '%s' takes --input FILE: a trace is GPU code (translate it first: gpush translate --to s)")
      :format(model.name)
  end
  local iter, message = trace.kernels_of(opts.words[1], opts.kernel)
  if not iter then
    return nil, message
  end
  local list_ = {}
  local ok, failure = pcall(function()
    for launch, kernel in iter do
      local inputs, about = model:inputs(kernel, { cache = {} }) -- one kernel at a time
      local name = inputs and about.kernel or kernel:info().kernel
      list_[#list_ + 1] = { label = ("launch %d  %s"):format(launch.launch, name), inputs = inputs,
        error = not inputs and about or nil, row = { kernel = name, launch = launch.launch },
        warnings = inputs and about.warnings or nil }
    end
  end)
  if not ok then
    return nil, tostring(failure)
  end
  if #list_ == 0 then
    return nil, "no launch matches --kernel " .. tostring(opts.kernel)
  end
  return list_
end

-- User modules from Lua files (--module FILE.lua): each file returns a module
-- made by gpush.models.mech.framework.module, or a list of them.  Returns the
-- list, or nil and a message naming the file.
local function load_modules(files)
  local list_ = {}
  for _, file in ipairs(files) do
    local chunk, load_err = loadfile(file)
    if not chunk then
      return nil, ("--module %s: %s"):format(file, load_err)
    end
    local ok, value = pcall(chunk)
    if not ok then
      return nil, ("--module %s: %s"):format(file, tostring(value))
    end
    local mods = (type(value) == "table" and value.hooks) and { value } or value
    if type(mods) ~= "table" or #mods == 0 then
      return nil, ("--module %s: expected the file to return a module made by gpush.models.mech.framework.module "
        .. "(or a list of them), got %s"):format(file, type(value))
    end
    for i, m in ipairs(mods) do
      if type(m) ~= "table" or type(m.hooks) ~= "table" then
        return nil, ("--module %s: item %d is not a module made by gpush.models.mech.framework.module"):format(file, i)
      end
      list_[#list_ + 1] = m
    end
  end
  return list_
end

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local opts, problem = cli.parse_args(args, OPTIONS)
  if not opts then
    err:write("gpush mech: ", problem, "\n", USAGE)
    return 2
  end
  if opts.help then
    out:write(USAGE)
    return 0
  end
  if opts.list then
    return list(out)
  end
  if opts.describe then
    return describe(opts.describe, out, err)
  end
  if not opts.core then
    err:write("gpush mech: give --core NAME\n", USAGE)
    return 2
  end
  if (opts.input and #opts.words > 0) or (not opts.input and #opts.words ~= 1) then
    err:write("gpush mech: give either --input FILE or one PATH\n", USAGE)
    return 2
  end
  if opts.base and opts.base ~= "gpuperf" and opts.base ~= "mwp_cwp" then
    err:write("gpush mech: --base must be gpuperf or mwp_cwp, got '", opts.base, "'\n")
    return 2
  end
  local kind, kind_err = kind_of(opts.core)
  if not kind then
    err:write("gpush mech: ", kind_err, "\n")
    return 1
  end
  if kind == "score" and opts.base then
    err:write("gpush mech: --base applies to M-cores; '", opts.core, "' is an S-core\n")
    return 2
  end
  local user_modules, module_err = load_modules(opts.modules)
  if not user_modules then
    err:write("gpush mech: ", module_err, "\n")
    return 1
  end
  -- -p keys a user module declares as its own parameters go to that module
  local overrides, module_overrides = {}, {}
  local owner = {}
  for _, m in ipairs(user_modules) do
    for _, d in ipairs(m.params) do
      if d.default ~= nil or d.optional then -- inline declarations; names of the core's registry stay the core's
        owner[d.name] = m
      end
    end
    module_overrides[m] = {}
  end
  for _, kv in ipairs(opts.overrides) do
    local key, value = kv:match("^%s*([^=]-)%s*=%s*(.-)%s*$")
    if key and owner[key] then
      module_overrides[owner[key]][key] = require("gpush.core").yaml_scalar(value)
    else
      overrides[#overrides + 1] = kv
    end
  end
  local family = kind == "score" and mech.score or mech.mcore
  local model, model_err = family.core(opts.core, overrides,
    { base = opts.base, with = split_list(opts.with), without = split_list(opts.without) })
  if not model then
    err:write("gpush mech: ", model_err, "\n")
    return 1
  end
  for _, m in ipairs(user_modules) do
    local ok, with_model = pcall(model.with, model, m, module_overrides[m])
    if not ok then
      err:write("gpush mech: --module: ", tostring(with_model):gsub("^gpush%.mech: ", ""), "\n")
      return 1
    end
    model = with_model
  end
  local list_, list_err = items(opts, model)
  if not list_ then
    err:write("gpush mech: ", list_err, "\n")
    return 1
  end
  -- every item runs; one that cannot be measured or predicted is reported and
  -- the others still are
  local rows, failed = {}, 0
  for _, item in ipairs(list_) do
    local r, predict_err
    if item.inputs then
      r, predict_err = model:predict(item.inputs)
    else
      predict_err = item.error
    end
    local row = item.row
    if r then
      for _, w in ipairs(item.warnings or {}) do
        table.insert(r.warnings, w)
      end
      for _, k in ipairs { "core", "kind", "base", "cycles", "seconds", "terms", "modules", "effects", "quantities",
        "warnings" } do
        row[k] = r[k]
      end
      row.inputs = item.inputs
      if r.kind == "mcore" then
        row.bottleneck, row.bottleneck_detail = mech.mcore.bottleneck(r)
      end
      item.result = r
    else
      failed = failed + 1
      row.core, row.error = model.name, predict_err
      item.failure = predict_err
      err:write("gpush mech: ", item.where or item.label, ": ", predict_err, "\n")
    end
    rows[#rows + 1] = row
  end
  local status = failed > 0 and 1 or 0
  if opts.json then
    out:write(json.encode(rows, true), "\n")
    return status
  end
  local info = model.info
  if kind == "mcore" then
    out:write(("M-core '%s' (%s; GPU configuration '%s', base %s): %d SMs at %g MHz, %.1f GB/s\n"):format(model.name,
      info.name, info.gpu, model.base, info.sms, info.freq_mhz, info.bw_gbs))
  else
    out:write(("S-core '%s' (%s, %s): %d-wide at %g GHz\n"):format(model.name, info.name, model.base,
      info.issue_width, info.freq_ghz))
  end
  local total_cycles, total_seconds, done = 0, 0, 0
  for _, item in ipairs(list_) do
    out:write("\n")
    if item.result then
      print_result(out, item.label, item.result, model)
      total_cycles, total_seconds = total_cycles + item.result.cycles, total_seconds + item.result.seconds
      done = done + 1
    else
      out:write(("%s: not predicted: %s\n"):format(item.label, item.failure))
    end
  end
  local noun = opts.input and "input sets" or "launches"
  if done > 1 then
    out:write(("\ntotal: %.0f cycles, %.6g s over %d %s\n"):format(total_cycles, total_seconds, done, noun))
  end
  if failed > 0 then
    out:write(("%d of %d %s not predicted (above)\n"):format(failed, #list_, noun))
  end
  return status
end

return M
