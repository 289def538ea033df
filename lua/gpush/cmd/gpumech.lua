-- gpush gpumech: GPUMech predictions from the command line.
--
--   gpush gpumech PATH --config NAME [-p key=value ...] [--policy rr|gto]
--                 [--model gpumech|mt_mshr_band|mt_mshr|mt|markov|naive]
--                 [--equations gpush|paper] [--select kmeans|max|min|random]
--                 [--kernel SPEC] [--json]
--
-- PATH is a trace (kernelslist.g, folder, .traceg[.gz|.xz], .gpt), `suite`,
-- `suite:NAME`, `variants` or `variants:NAME`.  Prints one row per launch,
-- the application totals and each launch's CPI stack (with gpush's
-- equations, the default, also the resource that bounds it and the largest
-- first-principles bound it respects); --json prints a JSON array, one object per launch
-- (kernel, launch, cycles, time_us, ipc, cpi, stack, bound, hard_bound, ...).
local gpumech = assert(require("gpush.models").family("gpumech"))

local M = {}

local spec = {
  prog = "gpumech",
  usage = [==[
usage: gpush gpumech PATH --config NAME [-p key=value ...] [--policy rr|gto]
                     [--model gpumech|mt_mshr_band|mt_mshr|mt|markov|naive]
                     [--equations gpush|paper] [--select kmeans|max|min|random]
                     [--kernel SPEC] [--json]
]==],
  help = [==[
Predicts each launch's cycles, IPC and CPI stack with GPUMech (interval
analysis of a representative warp, multithreading, MSHR and DRAM queueing;
docs/gpumech.md).
  --policy      warp scheduling: rr (round robin, default) or gto
                (greedy then oldest)
  --model       gpumech (= mt_mshr_band, the default): the full model;
                mt_mshr: without DRAM bandwidth queueing; mt: multithreading
                only; markov: Chen and Aamodt's Markov chain; naive: one
                warp's interval cycles (the paper's Table II comparisons)
  --select      how the representative warp is chosen: kmeans (default: the
                warp nearest the centre of the largest cluster), max or min
                (the slowest or fastest warp), random (seeded)
]==] .. require("gpush.modelcmd").COMMON_HELP,
  policies = { "rr", "gto" },
  options = { ["--model"] = "=model", ["--select"] = "=select", ["--equations"] = "=equations" },
  validate = function(opts)
    if opts.model and not gpumech.models[opts.model] then
      return ("unknown --model '%s' (gpumech, mt_mshr_band, mt_mshr, mt, markov, naive)"):format(opts.model)
    end
    if opts.equations and opts.equations ~= "gpush" and opts.equations ~= "paper" then
      return ("unknown --equations '%s' (gpush, the default, or paper)"):format(opts.equations)
    end
  end,
  run = function(kernel, cfg, opts)
    return gpumech.predict(kernel, cfg, { policy = opts.policy, model = opts.model, select = opts.select,
      equations = opts.equations })
  end,
  title = function(rows, cfg)
    return ("GPUMech (%s, %s, %s equations) on '%s': %d SMs at %g MHz"):format(rows[1].model, rows[1].policy,
      rows[1].equations, cfg._name, cfg.sm.count, cfg.clock.core_mhz)
  end,
  extra = { "CPI", function(r) return ("%.3f"):format(r.cpi) end },
  detail_label = "CPI stack",
  detail = function(r)
    local parts = {}
    for _, name in ipairs(gpumech.STACK) do
      if r.stack[name] > 0.0005 then
        parts[#parts + 1] = ("%s %.3f"):format(name, r.stack[name])
      end
    end
    if r.bound then
      local hard = r.hard_bound and ("; largest hard bound: %s %.0f"):format(r.hard_bound.name, r.hard_bound.cycles)
      parts[#parts + 1] = "(bound: " .. r.bound .. (hard or "") .. ")"
    end
    return table.concat(parts, "  ")
  end,
}

function M.main(args, out, err)
  return require("gpush.modelcmd").main(spec, args, out, err)
end

return M
