-- gpush darksilicon: dark-silicon projection 45 -> 8 nm (Blem's thesis
-- Ch. 2-3 after Esmaeilzadeh et al., ISCA 2011) with the upper-bound core
-- model and an exhaustive search over core type, count, topology and
-- organisation per node and benchmark.
--
--   gpush darksilicon [--scaling itrs|conservative|both] [--benchmarks FILE.csv]
--                     [-p name=value ...] [--no-band] [--detail] [--params] [--json]
--
-- Prints one row per node: the geometric-mean speedup over the 45 nm
-- quad-core baseline and the mean dark fraction, each with its sensitivity
-- band (the unknown inputs of [28] one at a time at either end of their
-- ranges, dark_silicon.UNKNOWNS), the span of dark fractions among designs
-- as fast as the best, the median core count, the most frequent topology and
-- organisation of the benchmarks' best designs, and each topology's
-- geometric mean.  --json prints one object per node (node_nm, scaling,
-- speedup, dark_fraction, dark_tied, band, cores, topology, organization,
-- by_topology, benchmarks).  -p overrides an assumed input (--params lists
-- them); --benchmarks reads Table B.1-style inputs from a CSV file.
local cli = require "gpush.cli"
local json = require "gpush.json"
local ds = require "gpush.models.mech.dark_silicon"
local text = require "gpush.text"

local M = {}

local usage = [==[
usage: gpush darksilicon [--scaling itrs|conservative|both] [--benchmarks FILE.csv]
                         [-p name=value ...] [--no-band] [--detail] [--params] [--json]
  --scaling     device scaling (default itrs)
  --benchmarks  inputs per benchmark, header name,f,r_ls,alpha_l1,beta_l1,alpha_l2,beta_l2
                (default: PARSEC, thesis Table B.1)
  -p            override an assumed input, e.g. -p power_w=100 (see --params)
  --no-band     skip the sensitivity band (one projection instead of five)
  --detail      also print each benchmark's best design per node
  --params      list the assumed inputs with unit, value and source, and exit
]==]

local function print_params(p, out)
  local fmt = "%-17s %-9s %-10s %s\n"
  out:write(fmt:format("parameter", "value", "unit", "description (source)"))
  for _, spec in ipairs(ds.PARAMS) do
    out:write(fmt:format(spec[1], tostring(p[spec[1]]), spec.unit,
      text.without_line_refs(spec.desc .. " (" .. spec.source .. ")")))
  end
end

-- The JSON row of one node.
local function node_object(node)
  local benches = {}
  for i, row in ipairs(node.benchmarks) do
    local b = row.best
    benches[i] = { benchmark = row.benchmark, speedup = b.speedup, organization = b.organization,
      topology = b.topology, light = b.light, heavy = b.heavy, light_cores = b.n, cores = b.cores,
      dark_fraction = b.dark_fraction, dark_tied = b.dark_tied, limit = b.limit }
  end
  local band
  if node.band then
    band = { speedup = node.band.speedup, dark_fraction = node.band.dark_fraction, runs = node.band.runs }
  end
  return { node_nm = node.node_nm, scaling = node.scaling, speedup = node.speedup,
    dark_fraction = node.dark_fraction, dark_tied = node.dark_tied, band = band, cores = node.cores,
    topology = node.topology, organization = node.organization, by_topology = json.object(node.by_topology),
    benchmarks = benches }
end

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local opts, problem = cli.parse_args(args, { ["--scaling"] = "=scaling", ["--benchmarks"] = "=benchmarks",
    ["-p"] = "+overrides", ["--detail"] = "detail", ["--params"] = "params", ["--json"] = "json", ["--no-band"] = "no_band",
    ["--help"] = "help", ["-h"] = "help" })
  local function fail(message)
    err:write("gpush darksilicon: ", message, "\n", usage)
    return 2
  end
  if not opts then
    return fail(problem)
  end
  if opts.help then
    out:write(usage)
    return 0
  end
  if #opts.words > 0 then
    return fail(("unexpected argument '%s'"):format(opts.words[1]))
  end
  local scalings = { "itrs" }
  if opts.scaling == "both" then
    scalings = ds.SCALINGS
  elseif opts.scaling then
    if opts.scaling ~= "itrs" and opts.scaling ~= "conservative" then
      return fail(("--scaling must be itrs, conservative or both, got '%s'"):format(opts.scaling))
    end
    scalings = { opts.scaling }
  end
  local overrides = {}
  for _, kv in ipairs(opts.overrides) do
    local k, v = kv:match("^([%w_]+)=(.+)$")
    if not k then
      return fail(("-p needs name=value, got '%s'"):format(kv))
    end
    overrides[k] = v
  end
  local ok, p = pcall(ds.params, overrides)
  if not ok then
    return fail(tostring(p):gsub("^.-dark_silicon: ", ""))
  end
  if opts.params then
    print_params(p, out)
    return 0
  end
  local benchmarks
  if opts.benchmarks then
    local message
    benchmarks, message = ds.load_benchmarks(opts.benchmarks)
    if not benchmarks then
      err:write("gpush darksilicon: ", message, "\n")
      return 1
    end
  end
  local project = opts.no_band and ds.project or ds.project_band
  local run_ok, result = pcall(project, { params = overrides, scalings = scalings, benchmarks = benchmarks,
    progress = not opts.json and not opts.no_band and function(what)
      if type(what) == "string" then
        err:write("gpush darksilicon: band: ", what, "\n")
      end
    end or nil })
  if not run_ok then
    err:write("gpush darksilicon: ", tostring(result), "\n")
    return 1
  end
  if opts.json then
    local rows = {}
    for i, node in ipairs(result.nodes) do
      rows[i] = node_object(node)
    end
    out:write(json.encode(rows, true), "\n")
    return 0
  end
  local n_bench = #result.nodes[1].benchmarks
  local function range(pair, fmt)
    return ("[%s-%s]"):format(fmt:format(pair[1]), fmt:format(pair[2]))
  end
  for _, scaling in ipairs(scalings) do
    out:write(("Dark silicon, %s scaling: %d benchmarks, best design per benchmark over CPU/GPU-like x 4 " ..
      "topologies x light and heavy cores,\neach with the most light cores its budgets allow; speedup over a 45 nm " ..
      "quad-core %s (geometric mean); budgets %g mm^2, %g W\n")
      :format(scaling, n_bench, ds.named_core(p.baseline_core).name, p.area_mm2, p.power_w))
    local fmt = "%4s %8s %-15s %5s %-11s %-9s %6s %-10s %-4s %7s %7s %7s %7s\n"
    out:write(fmt:format("nm", "speedup", opts.no_band and "" or "band", "dark", opts.no_band and "" or "band",
      "tied", "cores", "topology", "org", "sym", "asym", "dyn", "fused"))
    for _, node in ipairs(result.nodes) do
      if node.scaling == scaling then
        local t = node.by_topology
        local function g(name)
          return t[name] and ("%.2f"):format(t[name]) or "-"
        end
        local band = node.band
        out:write(fmt:format(node.node_nm, ("%.2f"):format(node.speedup), band and range(band.speedup, "%.2f") or "",
          ("%.0f%%"):format(100 * node.dark_fraction),
          band and range({ 100 * band.dark_fraction[1], 100 * band.dark_fraction[2] }, "%.0f%%") or "",
          ("%.0f-%.0f%%"):format(100 * node.dark_tied[1], 100 * node.dark_tied[2]), node.cores, node.topology,
          node.organization, g("symmetric"), g("asymmetric"), g("dynamic"), g("fused")))
        if opts.detail then
          for _, row in ipairs(node.benchmarks) do
            local b = row.best
            out:write(("       %-14s %7.2f  %s %-10s light %-7s x%-4d heavy %-7s dark %3.0f%% (tied %.0f-%.0f%%; %s-limited)\n")
              :format(row.benchmark, b.speedup, b.organization, b.topology, b.light, b.n, b.heavy or "-",
                100 * b.dark_fraction, 100 * b.dark_tied[1], 100 * b.dark_tied[2], b.limit))
          end
          if band then
            for _, run in ipairs(band.runs) do
              out:write(("       with %s = %g: speedup %.2f, dark %.0f%%\n"):format(run.name, run.value, run.speedup,
                100 * run.dark_fraction))
            end
          end
        end
      end
    end
    out:write("\n")
  end
  if not opts.no_band then
    out:write("band: lowest and highest figure with one unknown input of [28] at a time at either end of its range:\n")
    for _, u in ipairs(ds.UNKNOWNS) do
      out:write(("  %-16s %g-%g (%s)\n"):format(u.name, u.values[1], u.values[2], u.why))
    end
  end
  out:write("tied: dark fractions of the designs as fast as each benchmark's best (mean over the benchmarks);\n" ..
    "  the dark column is the first of them in the search order (docs/darksilicon.md).\n")
  out:write("Every input above is an assumption documented in docs/darksilicon.md (gpush darksilicon --params).\n")
  for _, note in ipairs(result.notes) do
    out:write("note: ", note, "\n")
  end
  return 0
end

return M
