-- gpush multicore: Hill and Marty's multicore speedups ("Amdahl's Law in the
-- Multicore Era") with perf(r) = sqrt(r), searching r finely.
--
--   gpush multicore --f F --n N [--topology symmetric|asymmetric|dynamic] [--json]
--
-- For each topology (or the one given) prints the r (BCEs per big core) with
-- the best speedup, the cores that gives and the speedup, next to plain
-- Amdahl (n one-BCE cores).  Designs have whole cores: symmetric k cores of
-- N / k BCEs, asymmetric and dynamic a big core of whole BCEs.  --json
-- prints one object per topology with topology, f, n, best_r, cores and
-- speedup.  The optimum is flat: r = 6.6
-- and 7.1 both give 51.2 for n = 256, f = 0.975.  Fused chips have no
-- Hill-Marty formula; they are in the Table 2.3 model (gpush darksilicon).
local cli = require "gpush.cli"
local json = require "gpush.json"
local topology = require "gpush.models.mech.topology"

local M = {}

local usage = [==[
usage: gpush multicore --f F --n N [--topology symmetric|asymmetric|dynamic] [--json]
  F  parallel fraction, 0 <= F <= 1
  N  chip resources in base-core equivalents (BCEs), a whole number >= 1
]==]

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local opts, problem = cli.parse_args(args, { ["--f"] = "=f", ["--n"] = "=n", ["--topology"] = "=topology",
    ["--json"] = "json", ["--help"] = "help", ["-h"] = "help" })
  local function fail(message)
    err:write("gpush multicore: ", message, "\n", usage)
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
  local f, n = tonumber(opts.f), tonumber(opts.n)
  if not opts.f or not opts.n then
    return fail("give --f and --n")
  end
  if not f or f ~= f or f < 0 or f > 1 then
    return fail(("--f must be a parallel fraction in [0, 1], got '%s'"):format(opts.f))
  end
  if not n or n ~= n or n < 1 or n > 1e7 then
    return fail(("--n must be a number of BCEs in [1, 1e7], got '%s'"):format(opts.n))
  end
  if n ~= math.floor(n) then
    return fail(("--n must be a whole number of BCEs (a chip of whole base cores), got '%s'"):format(opts.n))
  end
  local names = topology.HILL_MARTY
  if opts.topology then
    if opts.topology == "fused" then
      return fail("fused chips have no Hill-Marty formula (see gpush darksilicon for the Table 2.3 model)")
    end
    local ok = false
    for _, name in ipairs(names) do
      ok = ok or name == opts.topology
    end
    if not ok then
      return fail(("--topology must be symmetric, asymmetric or dynamic, got '%s'"):format(opts.topology))
    end
    names = { opts.topology }
  end
  local rows = {}
  for i, name in ipairs(names) do
    rows[i] = topology.hill_marty_best(name, f, n)
  end
  if opts.json then
    out:write(json.encode(rows, true), "\n")
    return 0
  end
  out:write(("Hill-Marty speedup, f = %g, n = %g BCEs, perf(r) = sqrt(r)\n"):format(f, n))
  local fmt = "%-11s %9s %7s %9s  %s\n"
  out:write(fmt:format("topology", "best r", "cores", "speedup", "design"))
  for _, r in ipairs(rows) do
    local design
    local function plural(count, noun)
      return ("%d %s%s"):format(count, noun, count == 1 and "" or "s")
    end
    if r.topology == "symmetric" then
      design = ("%s of %.2f BCEs"):format(plural(r.cores, "core"), r.best_r)
    elseif r.topology == "asymmetric" then
      design = ("one %d-BCE core + %s"):format(r.best_r, plural(r.cores - 1, "one-BCE core"))
    else
      design = ("%s, %d of them fuse for serial code"):format(plural(r.cores, "one-BCE core"), r.best_r)
    end
    out:write(fmt:format(r.topology, ("%.2f"):format(r.best_r), r.cores, ("%.2f"):format(r.speedup), design))
  end
  out:write(("Amdahl (n one-BCE cores): %.2f\n"):format(topology.hill_marty("symmetric", f, n, 1)))
  return 0
end

return M
