-- gpush.ml.power: a deterministic activity-based dynamic power model over
-- the simulator's counts, standing in for the HD 7970's on-chip power
-- estimate Wu et al. train on (HPCA 2015, Sec. IV: "a deterministic estimate
-- of dynamic power based on switching activity", static power excluded).
--
--   local watts, parts = power.estimate(cfg, sim_result)
--   parts.core, parts.dram, parts.clock, parts.memory_interface   -- watts
--
-- P = (E_core x (V(f) / V_high)^2 + E_dram) / t + P_clock + P_memif where
--   E_core = issue_pj x warp instructions
--          + sum over classes of lane_pj(class) x active lanes
--          + scalar_inst_pj x uniform-datapath instructions
--          + rf_access_pj x register accesses (ALU lanes 3, FMA-class and
--            FP64 lanes 4, SFU lanes 2, memory lanes 2: address and data)
--          + lds_access_pj x (shared-memory instructions + extra bank passes)
--          + l1_access_pj x L1 requests + l2_access_pj x L2 requests
--   E_dram = dram_byte_pj x DRAM bytes read and written
--   P_clock = clock_w_per_cu_ghz x CUs x f_core(GHz) x (V(f) / V_high)^2
--   P_memif = mem_interface_w_per_ghz x f_mem(GHz)
-- with V(f) linear through (vf_low_mhz, vf_low_v) and (vf_high_mhz,
-- vf_high_v), held at vf_low_v below vf_low_mhz and extended linearly
-- above vf_high_mhz.  Every constant is a `power.*` parameter of the
-- configuration (gpush.schema); the hd7970 preset sources them.
local M = {}

-- Lane energy parameter and register accesses per active lane, by class.
local LANE = {
  int = { "alu_lane_pj", 3 }, branch = { "alu_lane_pj", 3 }, other = { "alu_lane_pj", 3 },
  fp32 = { "fp32_lane_pj", 4 }, imad = { "fp32_lane_pj", 4 }, tensor = { "fp32_lane_pj", 4 },
  fp64 = { "fp64_lane_pj", 4 }, sfu = { "sfu_lane_pj", 2 },
}
local MEMORY = { "ld_global", "st_global", "ld_local", "st_local", "ld_shared", "st_shared", "ld_const", "tex",
  "atom_global", "atom_shared", "ldgsts" }
local SHARED = { "ld_shared", "st_shared", "atom_shared" }

-- The core voltage at `mhz` on the configuration's V-f curve; raises when
-- the curve's two points are not in order (a configuration error the user
-- must fix).
function M.voltage(cfg, mhz)
  local p = cfg.power
  if not (p.vf_high_mhz > p.vf_low_mhz) then
    error(("power: power.vf_high_mhz (%g) must exceed power.vf_low_mhz (%g) in '%s'"):format(p.vf_high_mhz,
      p.vf_low_mhz, cfg._name or "?"), 2)
  end
  if mhz <= p.vf_low_mhz then
    return p.vf_low_v
  end
  return p.vf_low_v + (p.vf_high_v - p.vf_low_v) * (mhz - p.vf_low_mhz) / (p.vf_high_mhz - p.vf_low_mhz)
end

-- The dynamic energy of the core's events in picojoules at power.vf_high_v.
local function core_energy_pj(p, counts)
  local issued, lanes = counts.class_issued, counts.class_lanes
  local e = 0
  for class, n in pairs(issued) do
    e = e + p.issue_pj * n
  end
  for class, spec in pairs(LANE) do
    e = e + (p[spec[1]] + spec[2] * p.rf_access_pj) * lanes[class]
  end
  for _, class in ipairs(MEMORY) do
    e = e + 2 * p.rf_access_pj * lanes[class]
  end
  e = e + p.scalar_inst_pj * issued.uniform
  local shared = counts.bank_extra_passes
  for _, class in ipairs(SHARED) do
    shared = shared + issued[class]
  end
  e = e + p.lds_access_pj * shared + p.l1_access_pj * counts.l1_accesses + p.l2_access_pj * counts.l2_accesses
  return e
end

-- Average dynamic power in watts of a simulated run (gpush.sim.run's
-- result) on configuration cfg, and its parts.
function M.estimate(cfg, r)
  local p = cfg.power
  local seconds = r.time_us * 1e-6
  local v2 = (M.voltage(cfg, cfg.clock.core_mhz) / p.vf_high_v) ^ 2
  local parts = {
    core = core_energy_pj(p, r.counts) * 1e-12 * v2 / seconds,
    dram = p.dram_byte_pj * (r.dram_bytes_read + r.dram_bytes_written) * 1e-12 / seconds,
    clock = p.clock_w_per_cu_ghz * cfg.sm.count * cfg.clock.core_mhz / 1000 * v2,
    memory_interface = p.mem_interface_w_per_ghz * cfg.clock.mem_mhz / 1000,
  }
  return parts.core + parts.dram + parts.clock + parts.memory_interface, parts
end

return M
