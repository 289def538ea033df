-- scenarios/kepler_sweep.lua: the main job.
--
-- The full study (issue: experiments) sweeps the GTX 660 Ti preset over warps
-- per SM {8..64} x MSHRs {16,32,64} x DRAM bandwidth {96,144,192} GB/s with
-- GPUMech (RR and GTO) and the abstract simulator side by side.  Those models
-- have not landed yet, so for now this scenario prints the resolved Kepler
-- configuration the sweep starts from, and says so.
--
--   gpush scenarios/kepler_sweep.lua [-p key=value ...]
local gpush = require "gpush"

local overrides = {}
local i = 1
while i <= #arg do
  if arg[i] == "-p" and arg[i + 1] then
    overrides[#overrides + 1] = arg[i + 1]
    i = i + 2
  else
    io.stderr:write(("kepler_sweep: unknown argument '%s' (expected -p key=value)\n"):format(arg[i]))
    os.exit(2)
  end
end

local cfg, err = gpush.config.load("gtx660ti", overrides)
if not cfg then
  error(err, 0)
end

local rows = {
  { "gpu.name", "" }, { "sm.count", "SMs" }, { "clock.core_mhz", "MHz" },
  { "sm.max_warps", "warps/SM" }, { "sm.schedulers", "schedulers/SM" },
  { "l1.mshrs", "MSHRs/SM" }, { "l2.size_kb", "KiB" },
  { "dram.bandwidth_gbs", "GB/s" }, { "dram.latency_ns", "ns" },
}
local flat = gpush.config.flatten(cfg)
print(("Kepler sweep base configuration: preset 'gtx660ti' (config hash %s)")
  :format(gpush.config.hash(cfg)))
for _, row in ipairs(rows) do
  print(("  %-20s %12s %s"):format(row[1], gpush.config.format_value(flat[row[1]]):gsub("^'(.*)'$", "%1"), row[2]))
end
print()
print("The sweep (warps/SM {8,16,24,32,48,64} x MSHRs {16,32,64} x DRAM {96,144,192} GB/s,")
print("GPUMech RR/GTO and the abstract simulator) arrives with the models; nothing is")
print("predicted yet.")
