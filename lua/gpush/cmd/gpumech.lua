-- gpush gpumech: GPUMech predictions from the command line.
--
--   gpush gpumech PATH --config NAME [-p key=value ...] [--policy rr|gto]
--                 [--model gpumech|mt_mshr_band|mt_mshr|mt|markov|naive]
--                 [--equations gpush|paper] [--select kmeans|max|min|random]
--                 [--kernel SPEC] [--per-pc [--top N]] [--json]
--
-- PATH is a trace (kernelslist.g, folder, .traceg[.gz|.xz], .gpt), `suite`,
-- `suite:NAME`, `variants` or `variants:NAME`.  Prints one row per launch
-- (the GPU's IPC with the launch, the CPI of one scheduler without it, the
-- bottleneck in the shared vocabulary, the CPI stack), under it with
-- gpush's equations the busiest resource and the first-principles floor,
-- with --per-pc the stack per PC; and the application totals.  --json
-- prints a JSON array, one object per launch (kernel, launch, cycles,
-- time_us, ipc, cpi, stack, bottleneck, bottleneck_detail, bound,
-- hard_bound, with --per-pc per_pc, ...).
local gpumech = assert(require("gpush.models").family("gpumech"))
local vocabulary = require "gpush.models.vocabulary"

local M = {}

local spec = {
  prog = "gpumech",
  usage = [==[
usage: gpush gpumech PATH --config NAME [-p key=value ...] [--policy rr|gto]
                     [--model gpumech|mt_mshr_band|mt_mshr|mt|markov|naive]
                     [--equations gpush|paper] [--select kmeans|max|min|random]
                     [--kernel SPEC] [--per-pc [--top N]] [--json]
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
]==] .. require("gpush.modelcmd").COMMON_HELP .. require("gpush.modelcmd").PER_PC_HELP,
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
      equations = opts.equations, per_pc = opts.per_pc })
  end,
  title = function(rows, cfg)
    return ("GPUMech (%s, %s, %s equations) on '%s': %d SMs at %g MHz"):format(rows[1].model, rows[1].policy,
      rows[1].equations, cfg._name, cfg.sm.count, cfg.clock.core_mhz)
  end,
  legend = {
    "  IPC/GPU: warp instructions per cycle of the whole GPU, the kernel launch included (as cycles and time);",
    "  CPI/sched: cycles per warp instruction of one warp scheduler, the kernel launch excluded: the CPI",
    "  stack's unit (IPC/GPU is not 1 / CPI/sched: it counts every scheduler and the launch);",
    "  bottleneck: the stack's largest share in gpush's vocabulary (docs/models.md)",
  },
  extra = { "CPI/sched", function(r) return ("%.3f"):format(r.cpi) end },
  detail_label = "CPI stack (per scheduler)",
  detail = function(r)
    local parts = {}
    for _, name in ipairs(gpumech.STACK) do
      if r.stack[name] > 0.0005 then
        parts[#parts + 1] = ("%s %.3f"):format(name, r.stack[name])
      end
    end
    return table.concat(parts, "  ")
  end,
  notes = function(r)
    return { M.resources_note(r) }
  end,
  per_pc = { categories = gpumech.STACK,
    unit = "scheduler cycles (the CPI stack x the warp instructions)" },
}

-- Under gpush's equations, one line on the resources (nil otherwise): the
-- busiest resource of the launch's longest wave and how busy (the `bound`
-- of the JSON; the latency path when none is saturated), or the
-- first-principles bound it was raised to; and the largest such bound, a
-- floor no model may go below (`hard_bound`).
function M.resources_note(r)
  if not r.bound then
    return nil
  end
  local hard = r.hard_bound
  local floored = hard and r.cycles <= hard.cycles * (1 + 1e-9)
  local busiest
  if floored then
    busiest = ("raised to its floor, the first-principles %s bound"):format(hard.name)
  elseif r.bound == "latency" then
    busiest = ("no resource %.0f %% busy (the warps' latency path sets the cycles)")
      :format(100 * vocabulary.SATURATED)
  elseif r.resources and r.resources[r.bound] then
    busiest = ("busiest resource %s, %.0f %% busy"):format(r.bound, 100 * r.resources[r.bound].utilisation)
  else -- the MSHRs' whole rounds
    busiest = ("bound by %s"):format(r.bound)
  end
  if hard and not floored then
    busiest = busiest .. ("; floor %.0f cycles (the %s bound, which no model goes below): the prediction is "
      .. "%.2f x the floor"):format(hard.cycles, hard.name, r.cycles / hard.cycles)
  end
  return busiest
end

function M.main(args, out, err)
  return require("gpush.modelcmd").main(spec, args, out, err)
end

return M
