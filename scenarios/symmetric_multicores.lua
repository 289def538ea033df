-- Fig. 4.15 (Blem L1376-1393): symmetric multicores of S- and M-cores (2 x Atom, 4 x Sandybridge, 4 x pre-Fermi, 7 x Kepler), the M-cores also simulated.
--
--   gpush scenarios/symmetric_multicores.lua [--kernels NAME,...] [--out DIR] [--quiet]
--
-- The thesis's four chips, each a symmetric multicore of one core of Chapter
-- 4 (L1382): a dual-core Atom and a quad-core Sandybridge (S-cores, 99 %
-- parallel code: L1382-1384 assumes it for CAB's kernels), the Quadro FX 580
-- (4 pre-Fermi SMs) and the GTX 660 Ti (7 Kepler SMs).  The speedups are
-- over one Sandybridge core running scalar code (L1386).  CAB is not
-- available, so the workloads are gpush's suite kernels (--kernels, default
-- every one): the S side is each kernel's CPU loop nest
-- (gpush.models.mech.cpu_loop: SSE on the Atom, AVX on the Sandybridge,
-- scalar for the reference), predicted by the custom S-core models and
-- bounded by the chip's memory bandwidth (Table 2.4a); the M side is the
-- M-core model on the kernel's trace at the chip's own SM count, and
-- gpush's simulator (GTO) on the same configuration in place of the
-- thesis's hardware stars (L1376: "Stars show measured core performance").
-- Into DIR (default symmetric_multicores_out) it writes
--   symmetric_multicores.csv  one row per kernel and chip: seconds, speedup, simulator speedup
--   symmetric_multicores.md   the table, the M-core model against the simulator, and the
--                             thesis's four questions (L1386-1393) as gpush answers them
--   symmetric_multicores.svg  speedup bars per kernel and chip, the simulator as markers
local cli = require "gpush.cli"
local csv = require "gpush.csv"
local markdown = require "gpush.report.markdown"
local svg = require "gpush.report.svg"
local staging = require "gpush.staging"
local workloads = require "gpush.workloads"
local mech = require "gpush.models.mech"
local cpu_loop = require "gpush.models.mech.cpu_loop"
local sim = require "gpush.models.sim"
local topology = require "gpush.models.mech.topology"

local name = "symmetric_multicores"
local usage = ("usage: gpush scenarios/%s.lua [--kernels NAME,...] [--out DIR] [--quiet]\n"):format(name)
local opts, problem = cli.parse_args(arg, { ["--kernels"] = "=kernels", ["--out"] = "=out", ["--quiet"] = "quiet",
  ["--help"] = "help", ["-h"] = "help" })
if not opts or #opts.words > 0 then
  io.stderr:write(name, ": ", problem or ("unexpected argument '" .. opts.words[1] .. "'"), "\n", usage)
  os.exit(2)
end
if opts.help then
  io.stdout:write(usage)
  os.exit(0)
end
local function fail(message)
  io.stderr:write(name, ": ", message, "\n")
  os.exit(1)
end
local function progress(what)
  if not opts.quiet then
    io.stderr:write(name, ": ", what, "\n")
  end
end

-- The parallel fraction of the S-core chips' code (L1382-1384).
local F = 0.99
-- The chips: { label, kind, preset, cores, simd (S: the CPU code's lanes, Table 2.4a) }.
local CHIPS = {
  { label = "2 x Atom", kind = "S", preset = "atom", n = 2, simd = 4 },
  { label = "4 x Sandybridge", kind = "S", preset = "sandybridge", n = 4, simd = 8 },
  { label = "4 x pre-Fermi", kind = "M", preset = "quadro-fx580" },
  { label = "7 x Kepler", kind = "M", preset = "gtx660ti" },
}

local function core_of(chip)
  local m, err = (chip.kind == "S" and mech.score or mech.mcore).core(chip.preset)
  if not m then
    fail(err)
  end
  return m
end
for _, chip in ipairs(CHIPS) do
  chip.model = core_of(chip)
  if chip.kind == "M" then
    chip.n = chip.model.gpu.sm.count
  end
end
local reference = assert(mech.score.core("sandybridge"))

-- The S-side record of a kernel for an S-core: its CPU loop nest with the
-- core's SIMD lanes, caches and window.
local function s_record(desc, model, simd)
  local hw = model.hw
  local r, err = cpu_loop.record(desc, { simd_width = simd, window = hw.window,
    caches = { hw.l1_kb * 1024, hw.l2_kb * 1024, hw.l3_mb * 1024 * 1024 } })
  if not r then
    fail(err)
  end
  return mech.params.declared_inputs(r)
end

-- A symmetric S-core chip's speedup over the reference (Table 2.3, Eq. 2.1):
-- P_1 = min(1 / T, P_B), P_inf = min(n / T, P_B), P_B = BW / (last-level
-- misses x 64 B): workloads per second.
local function s_chip(chip, inputs, t_ref)
  local r, err = chip.model:predict(inputs, { effects = false })
  if not r then
    return nil, err
  end
  local hw = chip.model.hw
  local misses = hw.l3_mb > 0 and inputs.N_mL3 or inputs.N_mL2
  local bytes = misses * hw.bytes_per_access
  local pb = bytes > 0 and hw.bw_gbs * 1e9 / bytes or math.huge
  local p1, pinf = math.min(1 / r.seconds, pb), math.min(chip.n / r.seconds, pb)
  return topology.speedup(F, p1, pinf, 1 / t_ref, 1 / t_ref), r.seconds
end

local names = {}
for k in (opts.kernels or table.concat(workloads.names(), ",")):gmatch("[^,]+") do
  names[#names + 1] = k
end
local rows, notes = {}, {}
for _, k in ipairs(names) do
  local desc, derr = workloads.get(k)
  if not desc then
    fail(derr)
  end
  progress(k)
  local kernel = assert(workloads.kernel(desc))
  local ref_inputs = s_record(desc, reference, 1)
  local ref = assert(reference:predict(ref_inputs, { effects = false }))
  local row = { kernel = k, t_ref = ref.seconds, chips = {} }
  for _, chip in ipairs(CHIPS) do
    local entry = {}
    if chip.kind == "S" then
      local speedup, t = s_chip(chip, s_record(desc, chip.model, chip.simd), ref.seconds)
      if speedup then
        entry.speedup, entry.seconds = speedup, t
      else
        notes[#notes + 1] = ("%s on %s: %s"):format(k, chip.label, t)
      end
    else
      local inputs, why = chip.model:inputs(kernel)
      if inputs then
        local r = assert(chip.model:predict(inputs, { effects = false }))
        entry.seconds, entry.speedup = r.seconds, ref.seconds / r.seconds
        local s, serr = sim.run(kernel, chip.model.gpu, { policy = "gto" })
        if s then
          entry.sim_seconds = s.cycles / (chip.model.gpu.clock.core_mhz * 1e6)
          entry.sim_speedup = ref.seconds / entry.sim_seconds
        else
          notes[#notes + 1] = ("%s on %s (simulator): %s"):format(k, chip.label, serr)
        end
      else
        notes[#notes + 1] = ("%s on %s: %s"):format(k, chip.label, why)
      end
    end
    row.chips[chip.label] = entry
  end
  rows[#rows + 1] = row
end

-- Outputs ----------------------------------------------------------------------------------------

local dir = opts.out or (name .. "_out")
local stage, serr = staging.folder(dir)
if not stage then
  fail(serr)
end
local function write(file, text)
  local f = assert(io.open(stage.path .. "/" .. file, "wb"))
  assert(f:write(text))
  assert(f:close())
  if not opts.quiet then
    io.stdout:write(("wrote %s/%s\n"):format(dir, file))
  end
end

local lines = { "# gpush scenarios/symmetric_multicores.lua: Fig. 4.15's chips on gpush suite kernels; speedup over one "
  .. "Sandybridge core on scalar code",
  csv.line({ "kernel", "chip", "cores", "seconds", "speedup", "sim_seconds", "sim_speedup" }, 7) }
for _, row in ipairs(rows) do
  for _, chip in ipairs(CHIPS) do
    local e = row.chips[chip.label]
    lines[#lines + 1] = csv.line({ row.kernel, chip.label, chip.n, e.seconds or "", e.speedup or "",
      e.sim_seconds or "", e.sim_speedup or "" }, 7)
  end
end
write(name .. ".csv", table.concat(lines, "\n") .. "\n")

local function x(v)
  return v and ("%.3g"):format(v) or "-"
end
local md = { "# Fig. 4.15: symmetric multicores of S- and M-cores (gpush scenarios/symmetric_multicores.lua)", "",
  "Speedup over one Sandybridge core running the kernel's scalar CPU code. S-core chips: the custom",
  "models on the kernel's CPU loop nest (Atom SSE, Sandybridge AVX), 99 % parallel (L1382-1384),",
  "bounded by the chip's memory bandwidth (Table 2.4a). M-core chips: the M-core model on the trace at",
  "the chip's SM count; in brackets gpush's simulator (GTO) on the same configuration, in place of the",
  "thesis's hardware measurements. No column was measured on hardware.", "" }
local headers = { "kernel" }
for _, chip in ipairs(CHIPS) do
  headers[#headers + 1] = chip.label
end
headers[#headers + 1] = "fastest (model)"
headers[#headers + 1] = "fastest M-core chip: model / simulator"
local table_rows = {}
local agree, compared, errors = 0, 0, {}
for _, row in ipairs(rows) do
  local cells, best, best_v = { row.kernel }, nil, -1
  for _, chip in ipairs(CHIPS) do
    local e = row.chips[chip.label]
    local cell = x(e.speedup)
    if e.sim_speedup then
      cell = ("%s (%s)"):format(cell, x(e.sim_speedup))
      errors[#errors + 1] = { row.kernel, chip.label, e.speedup / e.sim_speedup - 1 }
    end
    cells[#cells + 1] = cell
    if e.speedup and e.speedup > best_v then
      best, best_v = chip.label, e.speedup
    end
  end
  cells[#cells + 1] = best or "-"
  local pre, kep = row.chips["4 x pre-Fermi"], row.chips["7 x Kepler"]
  if pre.sim_speedup and kep.sim_speedup then
    local m = pre.speedup > kep.speedup and "pre-Fermi" or "Kepler"
    local s = pre.sim_speedup > kep.sim_speedup and "pre-Fermi" or "Kepler"
    compared, agree = compared + 1, agree + (m == s and 1 or 0)
    cells[#cells + 1] = m .. " / " .. s
  else
    cells[#cells + 1] = "-"
  end
  table_rows[#table_rows + 1] = cells
end
table.move(markdown.table(headers, table_rows), 1, #table_rows + 2, #md + 1, md)
md[#md + 1] = ""
md[#md + 1] = "## The M-core model against the simulator at the chips' SM counts"
md[#md + 1] = ""
local err_rows, sum = {}, 0
for _, e in ipairs(errors) do
  err_rows[#err_rows + 1] = { e[1], e[2], ("%+.0f%%"):format(100 * e[3]) }
  sum = sum + math.abs(e[3])
end
table.move(markdown.table({ "kernel", "chip", "model speedup / simulator speedup - 1" }, err_rows), 1, #err_rows + 2,
  #md + 1, md)
md[#md + 1] = ""
md[#md + 1] = ("Mean |difference| %.0f%% over %d kernel-chips; the model and the simulator pick the same faster "
  .. "M-core chip for %d of %d kernels."):format(#errors > 0 and 100 * sum / #errors or 0, #errors, agree, compared)
md[#md + 1] = ""
md[#md + 1] = "## The thesis's questions (L1386-1393), as far as gpush can answer them"
md[#md + 1] = ""
md[#md + 1] = "- Q1 (trends between S- and M-cores): no hardware here, so no S/M trend can be checked against a"
md[#md + 1] = "  measurement; the M-core trend (pre-Fermi against Kepler) is checked against the simulator above."
md[#md + 1] = "- Q2-Q4 (accuracy per model, intrinsic difficulty, bias): for the M-cores, the differences above;"
md[#md + 1] = "  the S-cores have no reference in gpush (docs/mech.md)."
if #notes > 0 then
  md[#md + 1] = ""
  md[#md + 1] = "## Not predicted"
  md[#md + 1] = ""
  for _, note in ipairs(notes) do
    md[#md + 1] = "- " .. note
  end
end
write(name .. ".md", table.concat(md, "\n") .. "\n")

local categories, colors = {}, {}
local palette = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759" }
for i, chip in ipairs(CHIPS) do
  categories[i], colors[chip.label] = chip.label, palette[i]
end
local groups = {}
for _, row in ipairs(rows) do
  local bars = {}
  for _, chip in ipairs(CHIPS) do
    local e = row.chips[chip.label]
    bars[#bars + 1] = { label = chip.label, values = { [chip.label] = e.speedup or 0 }, marker = e.sim_speedup }
  end
  groups[#groups + 1] = { label = row.kernel, bars = bars }
end
write(name .. ".svg", svg.stacked_bars({ categories = categories, colors = colors, groups = groups },
  { title = "Fig. 4.15: symmetric multicores, speedup over one Sandybridge core on scalar code (gpush suite)",
    y_label = "speedup (x)", marker_label = "simulator (GTO), M-core chips" }))
local ok, commit_err = stage:commit()
if not ok then
  fail(commit_err)
end
