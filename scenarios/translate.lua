-- Translation S-core <-> M-core (Blem Ch. 5): a CPU measurement to GPU inputs and gpush kernels to CPU inputs, and back.
--
--   gpush scenarios/translate.lua [--kernels NAME,...] [--simd 4|8] [--json]
--
-- 1. S -> M: a saxpy measurement on the Sandybridge (SSE, 64000 outer-loop
--    iterations, unrolled by 4 in the source; the counts are inferred from
--    Table 5.3, whose inputs are not printed) becomes pre-Fermi M-core inputs,
--    without and with the unroll factor, next to Table 5.3's native row.
-- 2. M -> S: gpush suite kernels (default stream_triad, sfu_heavy,
--    divergent_loop, tiled_barrier), measured from their traces, become
--    S-core inputs for an out-of-order core (Sandybridge, ILP 6.2); an
--    in-order target (Atom) takes the M-core's ILP, which a kernel's info()
--    does not measure (issue 16's kernel measurements do).
-- 3. Round trips: M -> S -> M keeps warps, instructions and accesses per warp.
-- 4. Both sides predicted with the custom core models (gpush.models.mech,
--    docs/mech.md): the S side on the Sandybridge, the M side on the
--    pre-Fermi Quadro FX 580 and the Kepler GTX 660 Ti (saxpy's translated
--    record; a kernel's inputs measured on its trace by each M-core).
local cli = require "gpush.cli"
local json = require "gpush.json"
local svg = require "gpush.report.svg"
local workloads = require "gpush.workloads"
local tr = require "gpush.models.mech.translate"
local mech = require "gpush.models.mech"

local name = "translate"
local usage = ("usage: gpush scenarios/%s.lua [--kernels NAME,...] [--simd 4|8] [--json]\n"):format(name)
local opts, problem = cli.parse_args(arg, { ["--kernels"] = "=kernels", ["--simd"] = "=simd", ["--json"] = "json",
  ["--help"] = "help", ["-h"] = "help" })
if not opts or #opts.words > 0 then
  io.stderr:write(name, ": ", problem or ("unexpected argument '" .. opts.words[1] .. "'"), "\n", usage)
  os.exit(2)
end
if opts.help then
  io.stdout:write(usage)
  os.exit(0)
end
local simd = tonumber(opts.simd or 4)
if simd ~= 4 and simd ~= 8 then
  io.stderr:write(name, ": --simd must be 4 (SSE) or 8 (AVX), got '", tostring(opts.simd), "'\n", usage)
  os.exit(2)
end
local kernels = {}
for k in (opts.kernels or "stream_triad,sfu_heavy,divergent_loop,tiled_barrier"):gmatch("[^,]+") do
  kernels[#kernels + 1] = k
end

local function fail(message)
  io.stderr:write(name, ": ", message, "\n")
  os.exit(1)
end
local out = {}
local function line(...)
  out[#out + 1] = table.concat({ ... }, "")
end
local function row(cells)
  local t = {}
  for i, c in ipairs(cells) do
    t[i] = svg.format_compact(c)
  end
  line("| ", table.concat(t, " | "), " |")
end

-- 1. S -> M -------------------------------------------------------------------------------

-- saxpy on the Sandybridge, per Table 5.3's translated column: 8000 warps at
-- 8 SSE iterations per warp (64000 iterations), 20 instructions, 4 SFU and 2
-- memory instructions per warp; footprint: two arrays of 1,024,000 floats.
local saxpy = { N_outer = 64000, simd_width = 4, N_M = 20 * 8000 * 8, N_load = 8000 * 8, N_store = 8000 * 8,
  n_i = { simd_mul = 7 * 64000, fp_div = 4 * 64000, simd_load = 64000, simd_store = 64000, int_alu = 6 * 64000,
    branch = 64000 }, N_branch = 64000, N_br_miss = 8, simd_fraction = 1, inner_loops = 0, ILP = 6.1,
  footprint_bytes = 2 * 1024000 * 4 }
-- what the S-core model also takes (section 4): the instruction total, and
-- capacity-only misses of the footprint (L1626: one per 64 B line above each
-- of the Sandybridge's 32 KB, 256 KB and 8 MB levels), no TLB misses
saxpy.N_I = 20 * 64000
saxpy.N_mL1 = (saxpy.footprint_bytes - 32 * 1024) // 64
saxpy.N_mL2 = (saxpy.footprint_bytes - 256 * 1024) // 64
saxpy.N_mL3, saxpy.N_mL3o, saxpy.N_mITLB, saxpy.N_mDTLB = 0, 0, 0, 0
local records = { saxpy = { s = saxpy } }
line("## 1. S-core -> M-core: saxpy (Sandybridge -> pre-Fermi)")
line("")
line("| | warps | blocks | syncs/warp | insts/warp | SFU/warp | mem/warp | off-chip/warp | coalesced |")
line("|---|---|---|---|---|---|---|---|---|")
row { "Table 5.3 native", 32000, 4000, 0, 17, 3, 2, "-", 1.0 }
row { "Table 5.3 translated", 8000, 1000, 0, 20, 4, 2, "-", 0.0 }
for _, unroll in ipairs { 1, 4 } do
  local m, err = tr.s_to_m(saxpy, { unroll = unroll })
  if not m then
    fail(err)
  end
  records.saxpy["m_unroll" .. unroll] = m
  row { ("gpush, unroll %d"):format(unroll), m.warps, m.blocks, m.N_sync, m.N_I, m.N_SFU, m.N_mem, m.N_off_chip,
    m.coalesced }
end
line("")
line("The thesis's translated coalescing (0.0) predates its SIMD rule (Ch. 5, coalescing); gpush applies the")
line("rule: the SIMD share of loads and stores. Its memory instructions per warp are Eq. 5.3's off-chip count")
line("with an on-chip capacity and b it does not print; gpush keeps the access count (mem/warp) and Eq. 5.3")
line("(off-chip/warp, b = 128 B, C_on-chip = 16 KB x 4 SMs) apart.")

-- 2. and 3. M -> S and back -----------------------------------------------------------------

line("")
line(("## 2. M-core -> S-core: gpush kernels (SIMD width %d)"):format(simd))
line("")
line("| kernel | target | uops | ILP | loads | stores | SIMD share | footprint (B) | L1D miss | L2 miss | LLC miss | branch miss | outer loops |")
line("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
local trips, skipped = {}, {}
for _, k in ipairs(kernels) do
  local desc = workloads.get(k)
  if not desc then
    fail(("no suite kernel '%s' (gpush workloads lists them)"):format(k))
  end
  local kernel, err = workloads.kernel(desc)
  if not kernel then
    fail(err)
  end
  local m = assert(tr.m_record_from_kernel(kernel))
  records[k] = { m = m }
  for _, target in ipairs { "ooo", "inorder" } do
    local s, why = tr.m_to_s(m, { simd_width = simd, target = target })
    if s then
      records[k]["s_" .. target] = s
      row { k, target == "ooo" and "Sandybridge (OoO)" or "Atom (in order)", s.N_M, s.ILP, s.N_load, s.N_store,
        s.simd_fraction, s.footprint_bytes, s.N_mL1, s.N_mL2, s.N_mL3, s.N_br_miss, s.N_outer }
    else
      skipped[#skipped + 1] = ("%s, in order: %s"):format(k, why)
    end
  end
  local back = assert(tr.s_to_m(records[k].s_ooo))
  trips[#trips + 1] = { k, m, back }
end
if #skipped > 0 then
  line("")
  line("Not translated (the in-order ILP of a traced warp is not measured from the kernel yet):")
  for _, s in ipairs(skipped) do
    line("- ", s)
  end
end
line("")
line("## 3. Round trip M -> S -> M")
line("")
line("| kernel | warps | insts/warp | back | mem/warp | back | SFU/warp | back |")
line("|---|---|---|---|---|---|---|---|")
for _, t in ipairs(trips) do
  local k, m, back = t[1], t[2], t[3]
  row { k, m.warps .. " / " .. back.warps, m.N_I, back.N_I, m.N_mem, back.N_mem, m.N_SFU, back.N_SFU }
end
line("")
line("Divergent kernels come back with fewer instructions per warp: the S side runs only the SIMD chunks")
line("holding an active lane (the mean active lanes packed from lane 0: 26 lanes need 7 of 8 SSE chunks),")
line("and S -> M assumes every lane of a warp busy. Without divergence the trip is exact.")

-- 4. Both sides predicted ------------------------------------------------------------------

-- The fields of a translated record the core models take (the rest are
-- measurements only translation needs).
local declared = mech.params.inputs.by_name
local function model_inputs(record)
  local t = {}
  for k, v in pairs(record) do
    if declared[k] then
      t[k] = v
    end
  end
  return t
end
local function core(kind, preset)
  local m, err = (kind == "score" and mech.score or mech.mcore).core(preset)
  if not m then
    fail(err)
  end
  return m
end
local sandybridge = core("score", "sandybridge")
local m_cores = { core("mcore", "quadro-fx580"), core("mcore", "gtx660ti") }
line("")
line("## 4. Both sides predicted with the custom core models")
line("")
line("| workload | S-core | S seconds | M-core | M inputs | M seconds | M over S |")
line("|---|---|---|---|---|---|---|")
local predictions = {}
local function predict_both(label, s_record, m_inputs_of, only_core)
  local rs, err = sandybridge:predict(model_inputs(s_record), { effects = false })
  if not rs then
    fail(("%s: %s"):format(label, err))
  end
  for _, mc in ipairs(only_core and { only_core } or m_cores) do
    local inputs, how = m_inputs_of(mc)
    local rm, why
    if inputs then
      rm, why = mc:predict(inputs, { effects = false })
    else
      why = how
    end
    predictions[#predictions + 1] = { workload = label, s_core = sandybridge.name, s_seconds = rs.seconds,
      m_core = mc.name, m_seconds = rm and rm.seconds, m_inputs = inputs and how, note = not rm and why or nil }
    if rm then
      row { label, "Sandybridge", rs.seconds, mc.name, how, rm.seconds, ("%.3gx"):format(rs.seconds / rm.seconds) }
    else
      row { label, "Sandybridge", rs.seconds, mc.name, "-", "-", why }
    end
  end
end
-- saxpy's M side is the translation's, for its pre-Fermi target (Table 5.3;
-- a Kepler M-core also needs L2 requests, which translation does not give),
-- on the FX 580 without gpush's paths module: its T_path (the longest
-- dependence path) is measured on a trace, and a translated record has none
local fx580_no_paths = assert(m_cores[1]:without { "paths" })
predict_both("saxpy", saxpy, function()
  return model_inputs(records.saxpy.m_unroll4), "translated (unroll 4), no paths module"
end, fx580_no_paths)
for _, k in ipairs(kernels) do
  local kernel = assert(workloads.kernel(workloads.get(k)))
  predict_both(k, records[k].s_ooo, function(mc)
    local inputs, err = mc:inputs(kernel)
    return inputs, inputs and "measured" or err
  end)
end
records.predictions = predictions
line("")
line("S seconds: the Sandybridge model on the translated (or, for saxpy, the measured) S-side inputs; M")
line("seconds: the M-core model on the whole kernel. Neither side was measured on hardware here: the")
line("ratio is what the two models say, not a speedup the thesis reports.")

if opts.json then
  io.stdout:write(json.encode(records, true), "\n")
else
  io.stdout:write(table.concat(out, "\n"), "\n")
end
