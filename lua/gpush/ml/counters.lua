-- gpush.ml.counters: Wu et al.'s Table II features from the simulator's
-- counters (gpush.sim's r.counters, docs/sim.md), as a simulated CodeXL.
--
--   local row = counters.table_ii(sim_result, cfg)   -- {VALUInsts = ..., ...}
--
-- All 22.  The simulator's LSU is one unit for loads and stores, so
-- MemUnitStalled is the share of scheduler cycles any memory instruction
-- waited for it and WriteUnitStalled the share a store did.  Percentages
-- are fractions (min-max normalisation makes the scale irrelevant).
local M = {}

-- Table II name -> the simulator counter it reads (docs/ml.md explains each).
M.FROM_SIM = {
  VALUInsts = "valu_insts", SALUInsts = "salu_insts", VFetchInsts = "vfetch_insts",
  SFetchInsts = "sfetch_insts", VWriteInsts = "vwrite_insts", LDSInsts = "lds_insts",
  VALUUtilization = "valu_utilization", VALUBusy = "valu_busy", SALUBusy = "salu_busy",
  CacheHit = "l2_hit_rate", MemUnitBusy = "lsu_busy", MemUnitStalled = "lsu_stalled",
  WriteUnitStalled = "write_unit_stalled",
  LDSBankConflict = "bank_conflict", Occupancy = "occupancy", MemTime = "memory_wait",
  FetchPerLoadByte = "fetch_per_load_byte", WritePerStoreByte = "write_per_store_byte",
  NumWorkGroups = "num_work_groups", ReadBandwidth = "read_bandwidth_gbs", WriteBandwidth = "write_bandwidth_gbs",
}

-- The Table II row of a simulated run: V_IPC is vector-ALU instructions per
-- cycle per CU (the simulator's IPC is over the whole GPU).
function M.table_ii(r, cfg)
  local c, out = r.counters, {}
  for name, key in pairs(M.FROM_SIM) do
    out[name] = c[key]
  end
  out.V_IPC = c.ipc * c.valu_insts / cfg.sm.count
  return out
end

return M
