-- gpush bench: throughput benchmarks, each next to a baseline measured in
-- the same run.  Performance is measured here, never asserted in tests.
--
--   gpush bench trace [PATH] [--size MB] [--keep] [--json]
--
-- Without PATH, `bench trace` writes a synthetic Accel-Sim trace of at least
-- --size MB (default 512) to a temporary file with the synthetic generator
-- (never committed), then times a plain read of the file (the memory-bound
-- limit) and the full parse into a kernel, one core, from the page cache.
-- --json prints a list of {name, value, unit, baseline, ratio} objects.
local core = require "gpush.core"
local json = require "gpush.json"
local trace = require "gpush.trace"
local workloads = require "gpush.workloads"

local M = {}

local usage = [[
usage: gpush bench trace [PATH] [--size MB] [--keep] [--json]
       gpush bench memsim [--size M] [--json]    (M: million memory instructions, default 10)
       gpush bench gpumech [--size M] [--json]   (M: million warp instructions, default 50)
       gpush bench sim [--size M] [--json]       (M: million warp instructions, default 50)
       gpush bench mech [--size M] [--json]      (M: million warp instructions, default 50)
       gpush bench ml [--grid default|ci] [--size M] [--json]   (M: million predictions, default 4)
       gpush bench all [--size F] [--json]       (every one above, smaller, in under a minute;
                                                  F: a factor on every size, default 1)
]]

local help = [[
Throughput benchmarks, each printed next to a baseline measured in the same
run on the same data (the memory-bound limit a model cannot beat), on one
core.  Timings depend on the machine's load: compare the ratios.
  trace    writes a synthetic trace of --size MB (default 512) to a temporary
           file (or reads PATH) and times a plain read of the file, the text
           parse and the .gpt load; --keep leaves the file behind
  memsim   the memory model's functional and timed modes on a synthetic
           kernel of --size million memory instructions, against a plain pass
           over its line arrays
  gpumech  the interval pass and the whole GPUMech prediction on --size
           million warp instructions, against a plain pass over the arrays
  sim      the abstract simulator (LRR and GTO) on --size million warp
           instructions, against the same plain pass
  mech     Blem's M-core: its measuring pass over every warp (two coalescing
           rules) and a whole prediction on --size million warp instructions,
           against the same plain pass
  ml       the scaling-surface model on the SIMULATED corpus of --grid (built
           and cached on first use): the time to train one time + power model,
           and (kernel, target) predictions per second, about --size million,
           against a plain loop over the same arrays
  all      every benchmark above in turn (trace 64 MB, memsim 2 M, gpumech 20 M,
           sim 4 M, mech 20 M, ml on the ci corpus): one table, each row
           with its benchmark
  --json   a list of {name, value, unit, baseline, ratio} objects (bench all:
           and `bench`)
]]

-- A mixed kernel (ALU chains, coalesced and gathered loads, stores, shared
-- memory, barriers) scaled to about `mb` megabytes of text.
local function bench_workload(blocks)
  return {
    name = "bench_trace_mix", grid = blocks, block = 256, trips = 4, seed = 99, shmem = 4096,
    streams = {
      a = { kind = "coalesced", footprint = 256 << 20 },
      g = { kind = "random", base = 0x100000000, footprint = 256 << 20 },
      s = { kind = "shared", footprint = 4096, stride = 4 },
    },
    body = {
      { "ld_global", stream = "a" }, { "fp32", dep = 1 }, { "imad", dep = 1 },
      { "ld_global", stream = "g", dep = 1 }, { "fp32", dep = 1 }, { "st_shared", stream = "s", dep = 1 },
      { "barrier" }, { "ld_shared", stream = "s" }, { "fp32", dep = 1 }, { "fp32", dep = 1 },
      { "int" }, { "st_global", stream = "a", dep = 2 }, { "branch" },
    },
  }
end

local function file_size(path)
  local f = assert(io.open(path, "rb"))
  local size = f:seek("end")
  f:close()
  return size
end

-- Writes the synthetic trace: calibrate bytes per block on a small grid,
-- then scale the grid to reach `mb`.
local function generate(path, mb, err)
  local probe = assert(workloads.kernel(bench_workload(16)))
  assert(probe:write_text(path))
  local per_block = file_size(path) / 16
  local blocks = math.max(16, math.ceil(mb * 1e6 / per_block))
  err:write(("bench trace: writing a %d MB synthetic trace (%d blocks) to %s\n"):format(mb, blocks, path))
  local kernel = assert(workloads.kernel(bench_workload(blocks)))
  assert(kernel:write_text(path))
end

-- Ends a benchmark that prints its rows as JSON (--json) or hands them to
-- `bench all` (opts.collect); false when it should print its text.
local function finished(opts, out, rows)
  if opts.collect then
    for _, r in ipairs(rows) do
      r.bench = opts.bench
      opts.collect[#opts.collect + 1] = r
    end
    return true
  end
  if opts.json then
    out:write(json.encode(rows, true), "\n")
    return true
  end
  return false
end

local function row(name, value, unit, baseline)
  return { name = name, value = value, unit = unit, baseline = baseline,
    ratio = baseline and baseline > 0 and value / baseline or json.null }
end

local function bench_trace(opts, out, err)
  local path = opts.words[1]
  local generated = false
  if not path then
    path = os.tmpname() .. ".traceg"
    generate(path, opts.size, err)
    generated = true
  end
  -- warm the page cache, then measure
  core.read_file_plain(path)
  local t0 = core.now()
  local bytes, lines = core.read_file_plain(path)
  if not bytes then
    err:write("gpush bench: ", lines, "\n")
    return 1
  end
  local read_s = core.now() - t0
  local t, open_err = trace.open(path, { cache = false })
  if not t then
    err:write("gpush bench: ", open_err, "\n")
    return 1
  end
  local insts = 0
  t0 = core.now()
  for _, kernel in t:kernels() do
    insts = insts + kernel:info().warp_instructions
  end
  local parse_s = core.now() - t0
  -- the same launches as .gpt, loaded (checksum verified) from the page cache
  local gpt = os.tmpname() .. ".gpt"
  local gpt_s, gpt_bytes = 0, 0
  for _, kernel in assert(trace.open(path, { cache = false })):kernels() do
    assert(kernel:write_gpt(gpt))
    gpt_bytes = gpt_bytes + core.read_file_plain(gpt)
    local g0 = core.now()
    local loaded = assert(trace.open(gpt, { cache = false }))
    for _, k in loaded:kernels() do
      local _ = k
    end
    gpt_s = gpt_s + core.now() - g0
  end
  os.remove(gpt)
  if generated and not opts.keep then
    os.remove(path)
  end
  local mb = bytes / 1e6
  local rows = {
    row("plain read", mb / read_s, "MB/s", nil),
    row("text parse", mb / parse_s, "MB/s", mb / read_s),
    row("text parse", insts / parse_s, "warp-inst/s", nil),
    row("gpt load", gpt_bytes / 1e6 / gpt_s, "MB/s", mb / read_s),
    row("gpt load", insts / gpt_s, "warp-inst/s", insts / parse_s),
  }
  if finished(opts, out, rows) then
    return 0
  end
  out:write(("trace: %s, %.0f MB, %d lines, %d warp instructions (one core, page cache)\n")
    :format(generated and "synthetic" or path, mb, lines, insts))
  out:write(("  plain read   %10.0f MB/s            (baseline: touching every byte once)\n"):format(mb / read_s))
  out:write(("  text parse   %10.0f MB/s  = %.2f x the plain read\n"):format(mb / parse_s, read_s / parse_s))
  out:write(("  text parse   %10.2f M warp-inst/s\n"):format(insts / parse_s / 1e6))
  out:write(("  .gpt load    %10.0f MB/s of .gpt (%.0f MB), checksum verified\n"):format(gpt_bytes / 1e6 / gpt_s, gpt_bytes / 1e6))
  out:write(("  .gpt load    %10.2f M warp-inst/s  = %.1f x the text parse\n"):format(insts / gpt_s / 1e6, parse_s / gpt_s))
  return 0
end

-- bench memsim: requests per second of the functional and timed modes on a
-- generated kernel of --size million memory instructions, next to a plain
-- pass over the same line arrays.
local function bench_memsim(opts, out, err)
  local millions = opts.size_given and opts.size or 10
  local memsim = require "gpush.memsim"
  local config = require "gpush.config"
  local cfg = config.load("gtx1080")
  -- 4 memory instructions per trip and warp; 8 lanes x 16 B = one line each
  local warps = math.ceil(millions * 1e6 / (4 * 16))
  local desc = {
    name = "bench_memsim", grid = math.ceil(warps / 8), block = 256, trips = 16, seed = 7,
    streams = {
      a = { kind = "coalesced", footprint = 512 << 20 },
      g = { kind = "random", base = 0x100000000, footprint = 64 << 20 },
    },
    body = {
      { "ld_global", stream = "a", width = 16, active = 8 }, { "fp32", dep = 1 },
      { "ld_global", stream = "g", width = 16, active = 8 }, { "fp32", dep = 1 },
      { "ld_global", stream = "a", width = 16, active = 8 },
      { "st_global", stream = "a", width = 16, active = 8, dep = 2 },
    },
  }
  err:write(("bench memsim: generating %d M memory instructions\n"):format(millions))
  local kernel = assert(workloads.kernel(desc))
  local info = kernel:info()
  local t0 = core.now()
  local lines = core.kernel_line_scan(kernel)
  local scan_s = core.now() - t0
  t0 = core.now()
  assert(memsim.functional(kernel, cfg))
  local functional_s = core.now() - t0
  t0 = core.now()
  local timed = assert(memsim.timed_replay(kernel, cfg))
  local timed_s = core.now() - t0
  local rows = {
    row("plain pass", lines / scan_s, "requests/s", nil),
    row("functional", lines / functional_s, "requests/s", lines / scan_s),
    row("timed", timed.requests / timed_s, "requests/s", lines / scan_s),
  }
  if finished(opts, out, rows) then
    return 0
  end
  out:write(("memsim: %d memory instructions, %d line requests, gtx1080 preset (one core)\n")
    :format(info.memory_instructions, lines))
  out:write(("  plain pass   %8.1f M requests/s   (baseline: reading the line arrays once)\n"):format(lines / scan_s / 1e6))
  out:write(("  functional   %8.1f M requests/s   = %.3f x the plain pass\n"):format(lines / functional_s / 1e6, scan_s / functional_s))
  out:write(("  timed        %8.1f M requests/s   = %.3f x the plain pass\n"):format(timed.requests / timed_s / 1e6, scan_s / timed_s))
  return 0
end

-- The synthetic kernel of `bench gpumech` and `bench sim`: about `millions`
-- million warp instructions in 64 trips of ALU chains, an SFU op and a
-- coalesced 16-byte load per 16-instruction trip, 8 warps per block.
local function warp_kernel(bench, millions, seed, err)
  local trips = 64
  local warps = math.ceil(millions * 1e6 / (16 * trips + 1))
  local desc = {
    name = "bench_" .. bench, grid = math.ceil(warps / 8), block = 256, trips = trips, seed = seed,
    streams = { a = { kind = "coalesced", footprint = 256 << 20 } },
    body = {
      { "ld_global", stream = "a", width = 16, active = 4 },
      { "fp32", dep = 1 }, { "fp32", dep = 1 }, { "imad" }, { "fp32", dep = 2 }, { "int" },
      { "fp32", dep = 4 }, { "sfu", dep = 1 }, { "fp32", dep = 1 }, { "int", dep = 3 }, { "fp32" },
      { "fp32", dep = 1 }, { "imad", dep = 2 }, { "fp32", dep = 1 }, { "int" }, { "branch" },
    },
  }
  err:write(("bench %s: generating %d M warp instructions\n"):format(bench, millions))
  return assert(workloads.kernel(desc))
end

-- bench gpumech: the interval pass over every warp and a whole prediction
-- (gpush's equations, then the paper's), in warp instructions per second,
-- next to a plain pass over the arrays the interval pass reads.
local function bench_gpumech(opts, out, err)
  local millions = opts.size_given and opts.size or 50
  local gpumech = assert(require("gpush.models").family("gpumech"))
  local memsim = require "gpush.memsim"
  local config = require "gpush.config"
  local cfg = config.load("gtx1080")
  local kernel = warp_kernel("gpumech", millions, 5, err)
  local t0 = core.now()
  local insts = core.kernel_inst_scan(kernel)
  local scan_s = core.now() - t0
  local mem = assert(memsim.functional(kernel, cfg))
  local pcs = gpumech.pc_params(kernel, cfg, mem)
  t0 = core.now()
  core.gpumech_features(kernel, pcs, 1 / cfg.sm.issue_width)
  local interval_s = core.now() - t0
  t0 = core.now()
  assert(gpumech.predict(kernel, cfg))
  local predict_s = core.now() - t0
  t0 = core.now()
  assert(gpumech.predict(kernel, cfg, { equations = "paper" }))
  local paper_s = core.now() - t0
  local rows = {
    row("plain pass", insts / scan_s, "warp-inst/s", nil),
    row("interval pass", insts / interval_s, "warp-inst/s", insts / scan_s),
    row("whole prediction", insts / predict_s, "warp-inst/s", insts / scan_s),
    row("whole prediction, paper equations", insts / paper_s, "warp-inst/s", insts / scan_s),
  }
  if finished(opts, out, rows) then
    return 0
  end
  out:write(("gpumech: %d warp instructions, gtx1080 preset (one core)\n"):format(insts))
  out:write(("  plain pass        %8.1f M warp-inst/s   (baseline: reading the arrays once)\n"):format(insts / scan_s / 1e6))
  out:write(("  interval pass     %8.1f M warp-inst/s   = %.3f x the plain pass (every warp)\n")
    :format(insts / interval_s / 1e6, scan_s / interval_s))
  out:write(("  whole prediction  %8.1f M warp-inst/s   = %.3f x (memory replay, clustering, model; gpush's equations)\n")
    :format(insts / predict_s / 1e6, scan_s / predict_s))
  out:write(("    paper equations %8.1f M warp-inst/s   = %.3f x\n"):format(insts / paper_s / 1e6, scan_s / paper_s))
  return 0
end

-- bench sim: the abstract simulator's simulated warp instructions per
-- second (LRR and GTO, gtx1080 preset) on a generated kernel of --size
-- million warp instructions (ALU chains, an SFU op, a coalesced load per
-- trip), next to a plain pass over the same instruction arrays; each
-- policy without the per-PC accounting (as a sweep runs) and with it
-- (sim.run's default, gpush sim --per-pc and --json).
local function bench_sim(opts, out, err)
  local millions = opts.size_given and opts.size or 50
  local sim = assert(require("gpush.models").family("sim"))
  local config = require "gpush.config"
  local cfg = config.load("gtx1080")
  local kernel = warp_kernel("sim", millions, 11, err)
  local t0 = core.now()
  local insts = core.kernel_inst_scan(kernel)
  local scan_s = core.now() - t0
  local runs = { { "sim lrr", "lrr", false }, { "sim gto", "gto", false }, { "sim lrr per-PC", "lrr", true },
    { "sim gto per-PC", "gto", true } }
  local rows = { row("plain pass", insts / scan_s, "warp-inst/s", nil) }
  for _, run in ipairs(runs) do
    t0 = core.now()
    local r = assert(sim.run(kernel, cfg, { policy = run[2], per_pc = run[3] }))
    run.seconds = core.now() - t0
    assert(r.warp_instructions == insts, "bench sim: the simulator issued a different count")
    rows[#rows + 1] = row(run[1], insts / run.seconds, "warp-inst/s", insts / scan_s)
  end
  if finished(opts, out, rows) then
    return 0
  end
  out:write(("sim: %d warp instructions, gtx1080 preset (one core)\n"):format(insts))
  out:write(("  plain pass      %8.1f M warp-inst/s   (baseline: reading the arrays once)\n")
    :format(insts / scan_s / 1e6))
  for _, run in ipairs(runs) do
    out:write(("  %-14s  %8.1f M warp-inst/s   = %.3f x the plain pass\n")
      :format(run[1], insts / run.seconds / 1e6, scan_s / run.seconds))
  end
  return 0
end

-- bench mech: the M-core's measuring pass over every warp (trace_mix.c,
-- CC >= 2.0 lines and the CC 1.0/1.1 rule) and a whole M-core prediction
-- (inputs measured, memory replay included), in warp instructions per
-- second, next to a plain pass over the same arrays.
local function bench_mech(opts, out, err)
  local millions = opts.size_given and opts.size or 50
  local mcore = assert(require("gpush.models").family("mcore"))
  local kernel = warp_kernel("mech", millions, 7, err)
  local t0 = core.now()
  local insts = core.kernel_inst_scan(kernel)
  local scan_s = core.now() - t0
  local seconds = {}
  for _, rule in ipairs { "lines", "cc10" } do
    t0 = core.now()
    assert(kernel:mix { rule = rule })
    seconds[rule] = core.now() - t0
  end
  local m = assert(mcore.core("gtx660ti"))
  t0 = core.now()
  assert(m:predict(assert(m:inputs(kernel))))
  seconds.predict = core.now() - t0
  local labels = { lines = "mix pass, lines", cc10 = "mix pass, CC 1.0", predict = "whole prediction" }
  local rows = { row("plain pass", insts / scan_s, "warp-inst/s", nil) }
  for _, k in ipairs { "lines", "cc10", "predict" } do
    rows[#rows + 1] = row(labels[k], insts / seconds[k], "warp-inst/s", insts / scan_s)
  end
  if finished(opts, out, rows) then
    return 0
  end
  out:write(("mech: %d warp instructions, gtx660ti M-core (one core)\n"):format(insts))
  out:write(("  plain pass        %8.1f M warp-inst/s   (baseline: reading the arrays once)\n"):format(insts / scan_s / 1e6))
  for _, k in ipairs { "lines", "cc10", "predict" } do
    out:write(("  %-17s %8.1f M warp-inst/s   = %.3f x the plain pass\n"):format(labels[k], insts / seconds[k] / 1e6,
      scan_s / seconds[k]))
  end
  return 0
end

-- bench ml: the scaling-surface model (Wu et al.) on the simulated corpus
-- of --grid (default "default"; built and cached on first use): the time
-- to train one time + power model at the grid's top configuration on the
-- 80 % training split by family (k = 12, the default classifier), then
-- predictions per second with it and with the paper's networks for (kernel,
-- target configuration) pairs, every kernel's base counters classified
-- once and scaled to every other configuration, repeated to about --size
-- million pairs, next to a plain loop over the same arrays.
local function bench_ml(opts, out, err)
  local corpus = require "gpush.ml.corpus"
  local evaluate = require "gpush.ml.evaluate"
  local surface = require "gpush.models.surface"
  local grid = opts.grid or "default"
  if not corpus.GRIDS[grid] then
    err:write(("gpush bench ml: --grid expects %s, got '%s'\n"):format(table.concat(corpus.GRID_NAMES, ", "), grid))
    return 2
  end
  local ds, info = corpus.load { grid = grid, jobs = 2, quiet = opts.json,
    on_build = require("gpush.cmd.ml").announce_build("gpush bench ml", err) }
  if not ds then
    err:write("gpush bench ml: ", info, "\n")
    return 1
  end
  local probe = require "gpush.ml.probe"
  ds = assert(probe.apply(ds, probe.DEFAULT)) -- the default model's inputs: the counters and the CU probe's
  local train = evaluate.split_dataset(ds, "family", 1)
  local base = surface.top_config(ds.grid)
  local t0 = core.now()
  local model = assert(surface.train(ds, { kernels = train, base = base }))
  local train_s = core.now() - t0
  local paper = assert(surface.train(ds, { kernels = train, base = base, classifier = "paper" }))
  -- every kernel at the base, every other configuration a target
  local c, e, m = ds:locate(base)
  local g = ds:config_index(c, e, m)
  local counters, bases, targets = {}, {}, {}
  for k = 1, #ds.kernels do
    for _, v in ipairs(ds:counters_at(k, g)) do
      counters[#counters + 1] = v
    end
    bases[k] = ds:value("time", k, g)
  end
  for tg = 1, ds:config_count() do
    if tg ~= g then
      local tc, te, tm = ds:config_indices(tg)
      targets[#targets + 1], targets[#targets + 2], targets[#targets + 3] = tc, te, tm
    end
  end
  local millions = opts.size_given and opts.size or 4
  local pairs_once = #bases * #targets // 3
  local copies = math.max(1, math.ceil(millions * 1e6 / pairs_once))
  local all_counters, all_bases = {}, {}
  for _ = 1, copies do
    for _, v in ipairs(counters) do
      all_counters[#all_counters + 1] = v
    end
    for _, v in ipairs(bases) do
      all_bases[#all_bases + 1] = v
    end
  end
  local batch = core.surface_batch(#ds.features, all_counters, all_bases, targets)
  local n = #all_bases * #targets // 3
  local plain_s = batch:plain()
  local predict_s = batch:predict(model.parts.time)
  local paper_s = batch:predict(paper.parts.time)
  local rows = {
    row("train", train_s, "s", nil),
    row("plain loop", n / plain_s, "pairs/s", nil),
    row("predict", n / predict_s, "pairs/s", n / plain_s),
    row("predict (paper)", n / paper_s, "pairs/s", n / plain_s),
  }
  if finished(opts, out, rows) then
    return 0
  end
  out:write(("ml: %s corpus (SIMULATED), %d kernels x %d configurations, %d counters (one core)\n"):format(grid,
    #ds.kernels, ds:config_count(), #ds.features))
  out:write(("  train         %8.2f s   time + power model, k = 12, %s classifier, base %s, %d training kernels\n")
    :format(train_s, model.classifier, require("gpush.ml.dataset").config_text(base), #train))
  out:write(("  plain loop    %8.1f M pairs/s   (baseline: one pass over the counters, base times and targets)\n")
    :format(n / plain_s / 1e6))
  out:write(("  predict       %8.1f M pairs/s   = %.3f x the plain loop (%d kernels classified once, %d targets each)\n")
    :format(n / predict_s / 1e6, plain_s / predict_s, #all_bases, #targets // 3))
  out:write(("  predict, paper %7.1f M pairs/s   = %.3f x the plain loop (the paper's networks as classifiers)\n")
    :format(n / paper_s / 1e6, plain_s / paper_s))
  return 0
end

-- What --size counts for each benchmark (the usage says the same).
local SIZE_UNIT = { trace = "megabytes", memsim = "million memory instructions", gpumech = "million warp instructions",
  sim = "million warp instructions", mech = "million warp instructions", ml = "million predictions" }

-- bench all: every benchmark in turn at sizes that keep the whole under a
-- minute on two busy cores (the trace at 64 MB, the models on 4-20 M
-- warp instructions, ml on the ci corpus, built once if missing), one list
-- of rows, each with the benchmark it came from (`bench`).
local ALL = {
  { name = "trace", size = 64 }, { name = "memsim", size = 2 }, { name = "gpumech", size = 20 },
  { name = "sim", size = 4 }, { name = "mech", size = 20 }, { name = "ml", size = 1, grid = "ci" },
}
local function bench_all(opts, out, err)
  local actions = { trace = bench_trace, memsim = bench_memsim, gpumech = bench_gpumech, sim = bench_sim,
    mech = bench_mech, ml = bench_ml }
  local scale = opts.size_given and opts.size or 1
  local rows, started = {}, core.now()
  for _, b in ipairs(ALL) do
    local t0 = core.now()
    local code = actions[b.name]({ words = {}, size = math.max(1, math.floor(b.size * scale + 0.5)),
      size_given = true, grid = b.grid, collect = rows, bench = b.name, json = opts.json }, out, err)
    if code ~= 0 then
      return code
    end
    err:write(("bench all: %s in %.1f s\n"):format(b.name, core.now() - t0))
  end
  if opts.json then
    out:write(json.encode(rows, true), "\n")
    return 0
  end
  out:write(("every benchmark, one core each, in %.1f s (compare the ratios: the baselines ran in the same"
    .. " run)\n"):format(core.now() - started))
  out:write(("  %-8s %-34s %14s %-12s %14s %9s\n"):format("bench", "name", "value", "unit", "baseline", "ratio"))
  for _, r in ipairs(rows) do
    local ratio = r.ratio ~= json.null and ("%.3f"):format(r.ratio) or ""
    out:write(("  %-8s %-34s %14.4g %-12s %14s %9s\n"):format(r.bench, r.name, r.value, r.unit,
      r.baseline and ("%.4g"):format(r.baseline) or "", ratio))
  end
  return 0
end

-- --size (megabytes for trace, default 512; millions of the benchmark's
-- unit for the others; for `bench all` a factor above 0 on every
-- benchmark's size): opts.size, and opts.size_given when set.
local function check_size(opts)
  if opts.size then
    opts.size, opts.size_given = tonumber(opts.size), true
    if opts.words[1] == "all" then
      if not opts.size or opts.size <= 0 then
        return "--size needs a factor above 0 for bench all (each benchmark's size times it)"
      end
    elseif not opts.size or opts.size < 1 then
      return ("--size needs a number of %s (at least 1)"):format(SIZE_UNIT[opts.words[1]] or "megabytes")
    end
  else
    opts.size = 512
  end
end

-- bench gpumech's and bench sim's kernel, for profiling drivers
-- (tools/sim_profile.lua): warp_kernel(bench, millions, seed, err).
M.warp_kernel = warp_kernel

function M.main(args, out, err)
  return require("gpush.cli").dispatch({ prog = "gpush bench", usage = usage,
    options = { ["--json"] = "json", ["--keep"] = "keep", ["--size"] = "=size", ["--grid"] = "=grid" },
    validate = check_size,
    actions = { trace = bench_trace, memsim = bench_memsim, gpumech = bench_gpumech, sim = bench_sim,
      mech = bench_mech, ml = bench_ml, all = bench_all },
    noun = "benchmark", missing = "which benchmark?", help = help }, args, out, err)
end

return M
