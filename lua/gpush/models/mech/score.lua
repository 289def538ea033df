-- gpush.models.mech.score: Blem's S-core models (thesis Sec. 4.1.1, 4.2.1,
-- 4.3.1) as modules of gpush.models.mech.framework.
--
--   local atom = assert(score.core("atom", { freq_ghz = 2.0 }))
--   local r = assert(atom:predict { N_I = 1e6, n_i = {...}, ILP = 1.6, ... })
--
-- T = T_comp + T_mem + T_control (Eq. 4.2: one thread, no overlap term).
-- Quantities the modules share (s.q):
--   N            what the issue bound counts (N_I; with micro-ops N_M)
--   latency_sum  cycles of latency summed over the instructions: N_I at unit
--                latency; Avg. Inst. Lat. makes it sum(n_i l_i), the cache
--                and port modules add to it (Eq. 4.10).  Micro-ops of one
--                instruction form a chain within its latency, so the sum
--                stays per instruction (Eq. 4.5: mu-LP = ILP)
--   D, ILP       issue width, ILP at the core's window
--   port_floor   cycles the busiest execution port needs (port modules)
-- Bases: in_order, T_comp = N/D + P_d N_d + P_L N_L (Eq. 4.3) with
-- P_L N_L = latency_sum - N_I (every instruction's latency beyond one cycle;
-- an in-order core has no window to hide it) and P_d N_d from the in-order
-- issue module (Eq. 4.6-4.7); out_of_order, T_comp = N / IPC with IPC =
-- min(D, ILP / l_avg), l_avg = latency_sum / N.
local framework = require "gpush.models.mech.framework"
local params = require "gpush.models.mech.params"
local text = require "gpush.text"

local M = {}

local reg = params.score
local function module(spec)
  spec.kind = "score"
  return framework.module(spec, reg)
end

-- Bases ------------------------------------------------------------------------------

local function base_setup(s)
  s.q.N = s.input.N_I
  s.q.N_I = s.input.N_I
  s.q.latency_sum = s.input.N_I
  s.q.D = s.hw.issue_width
  s.q.ILP = s.input.ILP
end

M.in_order = module {
  name = "in_order", base = true, adds = { "comp" },
  description = "in-order base: N/D issue cycles plus every instruction's latency beyond one cycle (Eq. 4.3)",
  source = "Blem Eq. 4.3 (L949-953)",
  inputs = { "N_I", "ILP" }, params = { "issue_width" },
  setup = base_setup,
  terms = function(s)
    local q = s.q
    q.issue_cycles = q.N / q.D
    s:add("comp", q.issue_cycles, "N / D")
    s:add("comp", math.max(0, q.latency_sum - s.input.N_I), "P_L N_L: latency beyond one cycle")
  end,
}

M.out_of_order = module {
  name = "out_of_order", base = true, adds = { "comp" },
  description = "out-of-order base: N / IPC with IPC = ILP / l_avg, at most the issue width",
  source = "Blem Sec. 4.1.1 (L957-959)",
  inputs = { "N_I", "ILP" }, params = { "issue_width" },
  setup = base_setup,
  terms = function(s)
    local q = s.q
    local l_avg = q.N > 0 and q.latency_sum / q.N or 1
    q.ipc = math.min(q.D, q.ILP / l_avg) -- IPC = ILP / l_avg, capped at the issue width
    q.l_avg = l_avg
    q.issue_cycles = q.N / q.ipc
    s:add("comp", q.issue_cycles, "N / min(D, ILP / l_avg)")
  end,
}

-- Counts and latencies -----------------------------------------------------------------

-- Micro-ops of each type from the instruction mix and M(i, mu) (one micro-op
-- of the class's own type where the map is silent).
local function uop_counts(n_i, uops)
  local counts, total = {}, 0
  for class, n in pairs(n_i) do
    local map = uops and uops[class] or { [class] = 1 }
    for t, per in pairs(map) do
      counts[t] = (counts[t] or 0) + n * per
      total = total + n * per
    end
  end
  return counts, total
end
M.uop_counts = uop_counts

M.uops = module {
  name = "uops", adds = {},
  description = "issued micro-ops: N_M (measured, or n_i through M(i, mu)); mu-LP = ILP (Eq. 4.5)",
  source = "Blem Eq. 4.5 (L1059-1068, L1302)",
  inputs = { "n_i", "N_M" }, params = { "uops" },
  counts = function(s)
    local _, total = uop_counts(s.input.n_i, s.hw.uops)
    s.q.N = s.input.N_M or total
    s.q.uops_from_mix = s.input.N_M == nil
  end,
}

M.latency = module {
  name = "latency", adds = {},
  description = "average instruction latency: sum of n_i l_i, loads at t_L1 (Avg. Inst. Lat.)",
  source = "Blem Table 4.1 (L969-1002)",
  inputs = { "n_i", "N_I" }, params = { "latency", "t_l1", "simd_mem_extra" },
  latency = function(s)
    local n_i, lat = s.input.n_i, s.hw.latency
    local total, cycles = params.mix_total(n_i), 0
    for class, n in pairs(n_i) do
      local l = params.SCORE_LOADS[class] and s.hw.t_l1 or lat[class]
      if params.SCORE_SIMD_MEMORY[class] then
        l = l + s.hw.simd_mem_extra
      end
      cycles = cycles + n * l
    end
    if math.abs(total - s.input.N_I) > 0.01 * math.max(1, s.input.N_I) then
      s:warn(("the mix n_i sums to %.0f instructions, N_I is %.0f; latencies are scaled to N_I"):format(total,
        s.input.N_I))
    end
    -- the mix's latency per instruction, over N_I instructions
    s.q.latency_sum = total > 0 and cycles / total * s.input.N_I or s.input.N_I
  end,
}

-- A cache level whose hits act as long-latency loads: the misses of the
-- level above that do not miss here, each + (t_level - t_L1) of latency.
local function cache_level(level, above, t_level, table_module)
  local misses_above, misses_here = "N_m" .. above:upper(), "N_m" .. level:upper()
  return module {
    name = level, adds = {},
    description = ("%s misses that hit %s act as long-latency loads: + (t_%s - t_L1) each (%s)"):format(
      above:upper(), level:upper(), level:upper(), table_module),
    source = "Blem Table 4.1; Sec. 4.2.1 L3 Accesses (L1070-1072)",
    inputs = { misses_above, misses_here }, params = { "t_l1", t_level },
    latency = function(s)
      local hits = math.max(0, s.input[misses_above] - s.input[misses_here])
      s.q.latency_sum = s.q.latency_sum + hits * math.max(0, s.hw[t_level] - s.hw.t_l1)
    end,
  }
end
M.l2 = cache_level("l2", "l1", "t_l2", "L2 Accesses")
M.l3 = cache_level("l3", "l2", "t_l3", "L3 Accesses")

-- Memory, TLBs, branches (interval terms of [34]) ---------------------------------------

local function mem_cycles(s)
  return s.hw.mem_latency_ns * s.hw.freq_ghz
end

M.mem = module {
  name = "mem", adds = { "mem" },
  description = "L3 misses stall for t_mem, except those overlapping an earlier miss (Mem Accesses)",
  source = "Blem Table 4.1 (N_mL3, N_mL3.o, t_mem); interval model [34]",
  inputs = { "N_mL3", "N_mL3o" }, params = { "mem_latency_ns", "freq_ghz" },
  serial = function(s)
    local misses = math.max(0, s.input.N_mL3 - s.input.N_mL3o)
    s:add("mem", misses * mem_cycles(s), "(N_mL3 - N_mL3.o) x t_mem")
  end,
}

M.mem_l2 = module {
  name = "mem_l2", adds = { "mem" },
  description = "two-level hierarchy: every L2 miss stalls for t_mem (blocking, in order)",
  source = "Blem Table 4.1 (Mem Accesses for cores without L3); Sec. 3.2 blocking memory",
  inputs = { "N_mL2" }, params = { "mem_latency_ns", "freq_ghz" },
  serial = function(s)
    s:add("mem", s.input.N_mL2 * mem_cycles(s), "N_mL2 x t_mem")
  end,
}

-- A TLB's misses stall for its miss latency each (ITLB and DTLB alike).
local function tlb(which)
  local upper = which:upper()
  return module {
    name = which .. "tlb", adds = { "mem" },
    description = ("%s misses stall for t_%sTLB each"):format(which == "i" and "instruction TLB" or "data TLB", upper),
    source = "Blem Table 4.1 (labels swapped in print); interval model [34]",
    inputs = { ("N_m%sTLB"):format(upper) }, params = { ("t_%stlb"):format(which) },
    serial = function(s)
      local misses, latency = s.input[("N_m%sTLB"):format(upper)], s.hw[("t_%stlb"):format(which)]
      s:add("mem", misses * latency, ("N_m%sTLB x t_%sTLB"):format(upper, upper))
    end,
  }
end
M.itlb = tlb("i")
M.dtlb = tlb("d")

M.branch = module {
  name = "branch", adds = { "control" },
  description = "each mispredicted branch drains the window and refills the front end: L_dr + L_fe",
  source = "Blem Table 4.1 (L_dr, L_fe -> T_control); interval model [34]",
  inputs = { "N_br_miss" }, params = { "l_dr", "l_fe" },
  serial = function(s)
    s:add("control", s.input.N_br_miss * (s.hw.l_dr + s.hw.l_fe), "N_br_miss x (L_dr + L_fe)")
  end,
}

-- In-order issue (Eq. 4.6-4.7) ------------------------------------------------------------

-- The probability that an instruction depends on the one just before it, from
-- ILP measured at window 2 (Eq. 4.7).  `printed` keeps the thesis's ILP - 1,
-- which is the probability that the pair is independent (blem-spec.md item 6).
function M.p_distance1(ilp, reading)
  local p = reading == "printed" and ilp - 1 or 2 - ilp
  return math.max(0, math.min(1, p))
end

M.inorder_issue = module {
  name = "inorder_issue", adds = { "comp" },
  description = "dependent pairs cannot issue together: P_d N_d = N_dep (D-1)/D (Eq. 4.6), N_dep from ILP (Eq. 4.7)",
  source = "Blem Eq. 4.6-4.7 (L1074-1084)",
  inputs = { "ILP" }, params = { "issue_width", "eq47" },
  terms = function(s)
    local D = s.hw.issue_width
    local p = M.p_distance1(s.input.ILP, s.hw.eq47)
    s.q.p_dep = p
    s:add("comp", p * s.q.N * (D - 1) / D, "N_dep (D - 1) / D")
  end,
}

-- Ports: Algorithm 4.1 and the M/M/1 wait of Eq. 4.8-4.10 -----------------------------------

-- Algorithm 4.1: micro-ops with one port are pinned; those with several are
-- redistributed, type by type, to level the ports they may use (water
-- filling), until no type moves any more.  counts: type -> micro-ops;
-- ports: type -> list of ports.  Returns the load of each port (1-based
-- index = port + 1) and the total.
function M.balance_ports(counts, ports, port_count)
  local load, total = {}, 0
  for p = 1, port_count do
    load[p] = 0
  end
  local flexible, share = {}, {}
  for _, t in ipairs(text.sorted_keys(counts)) do
    local n, list = counts[t], ports[t]
    if not list then
      error({ mech_error = ("micro-op type '%s' has no ports in R(mu, r)"):format(t) }, 0)
    end
    for _, p in ipairs(list) do
      if p >= port_count then
        error({ mech_error = ("micro-op type '%s' names port %d; the core has %d ports"):format(t, p, port_count) }, 0)
      end
    end
    total = total + n
    if #list == 1 then
      load[list[1] + 1] = load[list[1] + 1] + n
    elseif n > 0 then
      flexible[#flexible + 1] = t
      share[t] = {}
      for _, p in ipairs(list) do
        share[t][p + 1] = n / #list
        load[p + 1] = load[p + 1] + n / #list
      end
    end
  end
  for _ = 1, 1000 do
    local moved = 0
    for _, t in ipairs(flexible) do
      local list = ports[t]
      for _, p in ipairs(list) do
        load[p + 1] = load[p + 1] - share[t][p + 1]
      end
      -- water filling: the level L with sum(max(0, L - load)) = n
      local sorted = {}
      for i, p in ipairs(list) do
        sorted[i] = load[p + 1]
      end
      table.sort(sorted)
      local n, level = counts[t], nil
      local acc = 0
      for i = 1, #sorted do
        acc = acc + sorted[i]
        local candidate = (n + acc) / i
        if i == #sorted or candidate <= sorted[i + 1] then
          level = candidate
          break
        end
      end
      for _, p in ipairs(list) do
        local x = math.max(0, level - load[p + 1])
        moved = math.max(moved, math.abs(x - share[t][p + 1]))
        share[t][p + 1] = x
        load[p + 1] = load[p + 1] + x
      end
    end
    if moved <= 1e-12 * math.max(1, total) then
      break
    end
  end
  return load, total
end

-- Eq. 4.8-4.9 for every port: lambda_i = min(D, IPC)/D x share_i as printed
-- (share_i: the port's part of the micro-ops, the probability that a ready
-- micro-op goes there); `utilization` leaves out the / D, making lambda the
-- port's busy fraction per cycle; either is capped at lambda_max < 1.  W_i =
-- 1/(1 - lambda) - 1.  Returns W_max, the largest lambda and whether a cap
-- was applied.
function M.port_waits(load, total, D, ipc, reading, lambda_max)
  local w_max, l_max, capped = 0, 0, false
  for _, n in ipairs(load) do
    local share = total > 0 and n / total or 0
    local lambda = math.min(D, ipc) * share -- Eq. 4.8
    if reading == "printed" then
      lambda = lambda / D
    end
    if lambda > lambda_max then
      lambda, capped = lambda_max, true
    end
    local w = 1 / (1 - lambda) - 1 -- Eq. 4.9, service time 1
    w_max = math.max(w_max, w)
    l_max = math.max(l_max, lambda)
  end
  return w_max, l_max, capped
end

-- The IPC before contention: out of order min(D, ILP / l_avg); in order N
-- over its issue and latency cycles.
local function ipc_before(s)
  local q = s.q
  if s.base == "in_order" then
    return q.N / (q.N / q.D + math.max(0, q.latency_sum - q.N_I))
  end
  return math.min(q.D, q.ILP * q.N / q.latency_sum)
end

-- Shared by both port modules: balance, wait (Eq. 4.10: every micro-op's
-- latency grows by W_max) and the busiest port's floor.
local function contend(s, counts, ports)
  if s.q.N <= 0 then
    return
  end
  local load, total = M.balance_ports(counts, ports, s.hw.port_count)
  local ipc = ipc_before(s)
  local w_max, l_max, capped = M.port_waits(load, total, s.q.D, ipc, s.hw.eq48, s.hw.lambda_max)
  if capped then
    s:warn(("a port's arrival rate reached lambda_max = %g (Eq. 4.9 needs lambda < 1)"):format(s.hw.lambda_max))
  end
  local busiest = 0
  for _, n in ipairs(load) do
    busiest = math.max(busiest, n)
  end
  s.q.port_ipc = ipc
  s.q.w_max = w_max
  s.q.lambda_max = l_max
  s.q.latency_sum = s.q.latency_sum + s.q.N * w_max -- Eq. 4.10
  s.q.port_floor = total > 0 and busiest / total * s.q.N or 0
end

-- Adds what the busiest port needs beyond the base's issue cycles.
local function port_floor(s)
  local extra = (s.q.port_floor or 0) - s.q.issue_cycles
  if extra > 0 then
    s:add("comp", extra, "busiest port beyond the issue cycles")
  end
end

M.simple_ports = module {
  name = "simple_ports", adds = { "comp" },
  description = "two-port pipelines: port-0-only, port-1-only and either-port instructions balanced, M/M/1 wait",
  source = "Blem Sec. 4.2.1 simple pipelines (L1086-1096), Eq. 4.8-4.10",
  inputs = { "n_i" }, params = { "ports", "port_count", "eq48", "lambda_max" },
  latency = function(s)
    if not s.hw.ports then
      error({ mech_error = "simple_ports needs the preset's ports (R(mu, r))" }, 0)
    end
    contend(s, s.input.n_i, s.hw.ports)
  end,
  serial = port_floor,
}

M.contention = module {
  name = "contention", adds = { "comp" },
  description = "wide pipelines: micro-ops spread over ports by Algorithm 4.1, M/M/1 wait added to latency",
  source = "Blem Algorithm 4.1, Eq. 4.8-4.10 (L1098-1142)",
  inputs = { "n_i" }, params = { "uops", "ports", "port_count", "eq48", "lambda_max" },
  latency = function(s)
    if not s.hw.ports then
      error({ mech_error = "contention needs the preset's ports (R(mu, r))" }, 0)
    end
    local counts = uop_counts(s.input.n_i, s.hw.uops)
    contend(s, counts, s.hw.ports)
  end,
  serial = port_floor,
}

-- The registry of S-core modules by name.
M.modules = {}
for _, name in ipairs { "in_order", "out_of_order", "uops", "latency", "l2", "l3", "mem", "mem_l2", "itlb", "dtlb",
  "branch", "inorder_issue", "simple_ports", "contention" } do
  M.modules[name] = M[name]
end

-- Cores --------------------------------------------------------------------------------------

local PRESET_KEYS = { kind = true, name = true, modules = true, params = true }

local function build(name, overrides, opts)
  local tree, place, file = framework.read_preset(name, "score", PRESET_KEYS)
  local preset_params = tree.params or {}
  if type(preset_params) ~= "table" then
    framework.fail(("%s: 'params' must be a mapping"):format(place("params")))
  end
  local hw = {}
  for _, d in ipairs(reg.list) do
    hw[d.name] = d.default
  end
  local owner = ("S-core '%s'"):format(name)
  for k, v in pairs(framework.check_params(preset_params, reg, owner, function(k, at_key)
    return place("params." .. k, at_key)
  end)) do
    hw[k] = v
  end
  local flat = framework.parse_overrides(overrides)
  for k, v in pairs(framework.check_params(flat, reg, owner, function(k) return "-p " .. k end)) do
    hw[k] = v
  end
  local base = hw.exec == "out_of_order" and M.out_of_order or M.in_order
  local modules = framework.module_list(tree, place, M.modules, base, opts or {})
  local info = { name = tree.name or name, file = file }
  for _, k in ipairs { "tdp_w", "area_mm2", "specmark", "l1_kb", "l2_kb", "l3_mb", "bw_gbs", "simd_width",
    "freq_ghz", "issue_width" } do
    info[k] = hw[k]
  end
  return framework.model {
    name = name:match("([^/]+)%.ya?ml$") or name, kind = "score", base = base.name, modules = modules,
    hw = hw, clock_hz = hw.freq_ghz * 1e9, info = info, registry = reg,
    classes = { names = params.SCORE_CLASSES, noun = "instruction class", label = "S-core classes" },
  }
end

-- A core model from a preset name (a8, atom, xeon, nehalem, sandybridge) or
-- a preset file, with overrides (a map, or "key=value" strings) of S-core
-- parameters; opts.with / opts.without add or remove modules.  Returns the
-- model or nil, message.
function M.core(name, overrides, opts)
  if type(name) ~= "string" then
    error("gpush.mech.score.core: expected a preset name or a path, got " .. type(name), 2)
  end
  return framework.protect(build, name, overrides, opts)
end

-- Shipped S-core presets.
function M.presets()
  return framework.presets("score")
end

-- The registry's face of the family (models.get("score", opts)): S-cores
-- take workload inputs (Table 4.1), not GPU kernels, so the model predicts
-- tables through model.predict(inputs) with the core opts.core (default
-- sandybridge, the thesis's reference core) and opts.overrides, opts.with,
-- opts.without; run() on a kernel says so.  model.core is the core model.
function M.new(opts)
  opts = opts or {}
  local name = opts.core or "sandybridge"
  local core = assert(M.core(name, opts.overrides, { with = opts.with, without = opts.without }))
  return {
    name = opts.name or ("score-" .. name), core = core,
    columns = { "cycles", "seconds" },
    run = function()
      return nil, ("S-core '%s' predicts workload inputs (Table 4.1) through predict(inputs); a GPU kernel "
        .. "needs translating first"):format(name)
    end,
    predict = function(inputs, predict_opts)
      return core:predict(inputs, predict_opts)
    end,
  }
end

return M
