-- gpush translate: Blem's translation of workload measurements between
-- S-cores and M-cores (thesis Chapter 5), on gpush's suite kernels, both
-- ways, next to the naive translation of Sec. 5.1.
--
--   gpush translate [KERNEL ...] [--to m|s|both] [--m-cores NAME,...] [--s-core NAME]
--                   [--simd 4|8] [--unroll N] [--json]
--
-- Each kernel has two independent measurements: its GPU trace, measured by
-- each M-core (Table 4.2's inputs), and its CPU loop nest
-- (gpush.models.mech.cpu_loop: the same algorithm written for an S-core,
-- from the workload's description, never from the trace), measured on the
-- Sandybridge's caches and window as the S -> M source and on the target
-- S-core's for M -> S.  S -> M (Table
-- 5.3) translates the CPU side for each target M-core (pre-Fermi and Kepler
-- by default) and prints it under the trace's native inputs; M -> S (Table
-- 5.4) translates the trace's record for the S-core (Sandybridge; an Atom
-- takes the in-order rule) under the CPU side's native inputs.  Each target
-- model then predicts the native, translated and naive inputs: the
-- translation's error is how far the prediction moves (the thesis's
-- "input-based error", L1773).  --json prints one object per kernel.
local cli = require "gpush.cli"
local json = require "gpush.json"
local mech = require "gpush.models.mech"
local cpu_loop = require "gpush.models.mech.cpu_loop"
local tr = require "gpush.models.mech.translate"
local workloads = require "gpush.workloads"

local M = {}

local USAGE = [==[
usage: gpush translate [KERNEL ...] [--to m|s|both] [--m-cores NAME,...] [--s-core NAME]
                       [--simd 4|8] [--unroll N] [--json]
  KERNEL     suite kernels (gpush workloads; default: every one)
  --to       m: S -> M (Table 5.3), s: M -> S (Table 5.4), both (default)
  --m-cores  target M-cores (default quadro-fx580,gtx660ti: pre-Fermi and Kepler)
  --s-core   target S-core (default sandybridge; an in-order core takes the in-order ILP rule)
  --simd     SIMD lanes of the CPU code: 4 (SSE, default) or 8 (AVX)
  --unroll   the CPU code's unroll factor (an input of S -> M, L1658; default 1)
Both sides of a kernel are measured independently: the GPU trace by each M-core, the CPU loop
nest from the workload's description.  Each row is native / translated / naive.
]==]

local OPTIONS = { ["--to"] = "=to", ["--m-cores"] = "=m_cores", ["--s-core"] = "=s_core", ["--simd"] = "=simd",
  ["--unroll"] = "=unroll", ["--json"] = "json", ["--help"] = "help", ["-h"] = "help" }

-- Seconds of `model` on each of entry.native, .translated and .naive (the
-- inputs the model declares) into entry.seconds; what fails goes to notes.
local function predict_all(model, entry, notes)
  entry.seconds = {}
  for _, which in ipairs { "native", "translated", "naive" } do
    if entry[which] then
      local r, err = model:predict(mech.params.declared_inputs(entry[which]), { effects = false })
      entry.seconds[which] = r and r.seconds
      if not r then
        notes[#notes + 1] = ("%s: %s inputs: %s"):format(model.name, which, err)
      end
    end
  end
end

local function num(v, scale)
  if v == nil then
    return "-"
  end
  v = v / (scale or 1)
  if v ~= 0 and (math.abs(v) >= 1e5 or math.abs(v) < 0.01) then
    return ("%.3g"):format(v)
  end
  return ("%.4g"):format(v)
end

-- One kernel, both directions: the records, the predictions and any
-- translation that failed (with why).
local function translate_kernel(name, opts, m_cores, s_core)
  local desc, err = workloads.get(name)
  if not desc then
    return nil, err
  end
  local kernel, kerr = workloads.kernel(desc)
  if not kernel then
    return nil, kerr
  end
  -- the CPU loop nest measured on the S-core's caches and window: the
  -- Sandybridge's as the S -> M source (Table 5.3), the target's for M -> S
  local function cpu_on(core)
    local hw = core.hw
    return cpu_loop.record(desc, { simd_width = opts.simd, window = hw.window,
      caches = { hw.l1_kb * 1024, hw.l2_kb * 1024, hw.l3_mb * 1024 * 1024 } })
  end
  local cpu, cerr = cpu_on(opts.source)
  if not cpu then
    return nil, cerr
  end
  local out = { kernel = name, cpu = cpu, to_m = {}, to_s = nil, notes = {} }
  if opts.to ~= "s" then
    for _, mc in ipairs(m_cores) do
      local target = tr.target_options(mc)
      target.unroll = opts.unroll
      local entry = { m_core = mc.name }
      local native, why = mc:inputs(kernel)
      entry.native = native
      if not native then
        out.notes[#out.notes + 1] = ("%s: native inputs: %s"):format(mc.name, why)
      end
      local translated, terr = tr.s_to_m(cpu, target)
      entry.translated = translated
      if not translated then
        out.notes[#out.notes + 1] = ("%s: translated: %s"):format(mc.name, terr)
      end
      local naive, nerr = tr.naive_s_to_m(cpu, target)
      entry.naive = naive
      if not naive then
        out.notes[#out.notes + 1] = ("%s: naive: %s"):format(mc.name, nerr)
      end
      -- every record predicted by the model without the paths floor: a
      -- translated record has no measured dependence path
      predict_all(assert(mc:without { "paths" }), entry, out.notes)
      out.to_m[#out.to_m + 1] = entry
    end
  end
  if opts.to ~= "m" then
    local m_record, merr = tr.m_record_from_kernel(kernel)
    local entry = { s_core = s_core.name, native = cpu_on(s_core) }
    if m_record then
      local target = s_core.hw.exec == "in_order" and "inorder" or "ooo"
      local translated, terr = tr.m_to_s(m_record, { simd_width = opts.simd, target = target })
      entry.translated = translated
      if not translated then
        out.notes[#out.notes + 1] = ("%s: translated: %s"):format(s_core.name, terr)
      end
      entry.naive = tr.naive_m_to_s(m_record)
    else
      out.notes[#out.notes + 1] = ("M-side record: %s"):format(merr)
    end
    predict_all(s_core, entry, out.notes)
    out.to_s = entry
  end
  return out
end

local function print_to_m(out, results, m_core)
  local mc = m_core
  local target = tr.target_options(mc)
  out:write(("\nS -> M (Table 5.3) on %s (%s; %d SMs, C_on-chip %d KB, b %d B): native = the trace measured by " ..
    "the M-core\n"):format(mc.name, mc.info.name, target.sms, target.on_chip_bytes // 1024,
    target.bytes_per_transaction))
  local fmt = "%-17s %-10s %8s %7s %8s %9s %7s %7s %10s %9s %6s\n"
  out:write(fmt:format("kernel", "inputs", "warps", "blocks", "syncs/w", "insts/w", "SFU/w", "mem/w", "offchip/w",
    "trans/acc", "ILP"))
  for _, r in ipairs(results) do
    for _, e in ipairs(r.to_m) do
      if e.m_core == mc.name then
        for i, which in ipairs { "native", "translated", "naive" } do
          local m = e[which]
          if m then
            out:write(fmt:format(i == 1 and r.kernel or "", which, num(m.warps), num(m.blocks), num(m.N_sync),
              num(m.N_I), num(m.N_SFU), num(m.N_mem), num(m.N_off_chip), num(m.avg_trans_warp), num(m.ILP)))
          else
            out:write(fmt:format(i == 1 and r.kernel or "", which, "-", "-", "-", "-", "-", "-", "-", "-", "-"))
          end
        end
      end
    end
  end
end

local function print_to_s(out, results, s_core)
  out:write(("\nM -> S (Table 5.4) on %s (%s): native = the CPU loop nest of the workload\n"):format(s_core.name,
    s_core.info.name))
  local fmt = "%-17s %-10s %10s %12s %6s %12s %12s %12s\n"
  out:write(fmt:format("kernel", "inputs", "br. misses", "insts (1e6)", "ILP", "L1D (1e3)", "L2 (1e3)", "LLC"))
  for _, r in ipairs(results) do
    local e = r.to_s
    if e then
      for i, which in ipairs { "native", "translated", "naive" } do
        local s = e[which]
        if s then
          out:write(fmt:format(i == 1 and r.kernel or "", which, num(s.N_br_miss), num(s.N_I, 1e6), num(s.ILP),
            num(s.N_mL1, 1e3), num(s.N_mL2, 1e3), num(s.N_mL3)))
        end
      end
    end
  end
end

local function print_predictions(out, results)
  out:write("\nPredictions (seconds): each model on the native, translated and naive inputs; error = how far the " ..
    "translated (naive)\nprediction is from the native one (the input-based error, L1773)\n")
  local fmt = "%-17s %-13s %11s %11s %9s %11s %9s\n"
  out:write(fmt:format("kernel", "model", "native", "translated", "error", "naive", "error"))
  for _, r in ipairs(results) do
    local entries = {}
    for _, e in ipairs(r.to_m) do
      entries[#entries + 1] = { e.m_core, e.seconds }
    end
    if r.to_s then
      entries[#entries + 1] = { r.to_s.s_core, r.to_s.seconds }
    end
    for i, e in ipairs(entries) do
      local t = e[2]
      local function err(v)
        if not (v and t.native) then
          return "-"
        end
        return ("%+.0f%%"):format(100 * (v / t.native - 1))
      end
      out:write(fmt:format(i == 1 and r.kernel or "", e[1], num(t.native), num(t.translated), err(t.translated),
        num(t.naive), err(t.naive)))
    end
  end
end

function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local opts, problem = cli.parse_args(args, OPTIONS)
  local function fail(message)
    err:write("gpush translate: ", message, "\n", USAGE)
    return 2
  end
  if not opts then
    return fail(problem)
  end
  if opts.help then
    out:write(USAGE)
    return 0
  end
  opts.to = opts.to or "both"
  if opts.to ~= "m" and opts.to ~= "s" and opts.to ~= "both" then
    return fail(("--to must be m, s or both, got '%s'"):format(opts.to))
  end
  local simd = tonumber(opts.simd or 4)
  if simd ~= 4 and simd ~= 8 then
    return fail(("--simd must be 4 (SSE) or 8 (AVX), got '%s'"):format(tostring(opts.simd)))
  end
  opts.simd = simd
  local unroll = tonumber(opts.unroll or 1)
  if not unroll or unroll < 1 or unroll ~= math.floor(unroll) then
    return fail(("--unroll must be a whole number >= 1, got '%s'"):format(tostring(opts.unroll)))
  end
  opts.unroll = unroll
  local m_cores = {}
  for name in (opts.m_cores or "quadro-fx580,gtx660ti"):gmatch("[^,%s]+") do
    local m, merr = mech.mcore.core(name)
    if not m then
      err:write("gpush translate: --m-cores: ", merr, "\n")
      return 1
    end
    m_cores[#m_cores + 1] = m
  end
  local s_core, serr = mech.score.core(opts.s_core or "sandybridge")
  if not s_core then
    err:write("gpush translate: --s-core: ", serr, "\n")
    return 1
  end
  opts.source = assert(mech.score.core("sandybridge")) -- the S side of Table 5.3 (L1704)
  local names = #opts.words > 0 and opts.words or workloads.names()
  local results = {}
  for _, name in ipairs(names) do
    local r, rerr = translate_kernel(name, opts, m_cores, s_core)
    if not r then
      err:write("gpush translate: ", rerr, "\n")
      return 1
    end
    results[#results + 1] = r
  end
  if opts.json then
    out:write(json.encode(results, true), "\n")
    return 0
  end
  out:write(("Translation (Blem Ch. 5) of %d suite kernels; CPU code with %d-lane SIMD, unroll %d; " ..
    "native / translated / naive\n"):format(#results, simd, unroll))
  if opts.to ~= "s" then
    for _, mc in ipairs(m_cores) do
      print_to_m(out, results, mc)
    end
  end
  if opts.to ~= "m" then
    print_to_s(out, results, s_core)
  end
  print_predictions(out, results)
  local notes = {}
  for _, r in ipairs(results) do
    for _, note in ipairs(r.notes) do
      notes[#notes + 1] = ("%s: %s"):format(r.kernel, note)
    end
  end
  if #notes > 0 then
    out:write("\nnot translated or not predicted:\n")
    for _, note in ipairs(notes) do
      out:write("  ", note, "\n")
    end
  end
  return 0
end

return M
