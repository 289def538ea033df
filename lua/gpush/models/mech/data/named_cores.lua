-- The named cores of Blem's thesis, Table 2.4 (L620-651), with what the
-- dark-silicon projections use: SPECmark score q (S-cores), clock in GHz,
-- area (mm^2) and TDP (W) of one core or SM at 45 nm, and the chapters
-- whose dark-silicon study includes the core ("Dark Silicon Chapter" row).
-- kind: "S" (single-threaded) or "M" (many-threaded SM).  The M-cores have
-- no SPECmark (L679: "we cannot usefully map M-Core performance to a
-- SPECmark score"); the upper-bound model takes their lanes instead (sps:
-- SP/SM of Table 2.4b, at lane_clock_ghz where the SPs run faster than the
-- printed clock: the GTX 480's 0.71 GHz is its graphics clock, its SPs run
-- at 1.401 GHz, NVIDIA's GTX 480 specification and gpush's gtx480 preset),
-- gpush.models.mech.variant.
return {
  { id = "S1", name = "Cortex-A8", kind = "S", q = 1.19, clock_ghz = 0.6, area = 7.5, power = 0.8,
    issue = 2, order = "in-order", chapters = { 4, 5 } },
  { id = "S2", name = "Atom N450", kind = "S", q = 6, clock_ghz = 1.66, area = 8.1, power = 2.8,
    issue = 2, order = "in-order", chapters = { 3, 4, 5 } },
  { id = "S3", name = "Xeon E2550", kind = "S", q = 26, clock_ghz = 2.27, area = 18.4, power = 16.8,
    issue = 4, order = "out-of-order", chapters = { 3, 4, 5 } },
  { id = "S4", name = "Nehalem i7-965", kind = "S", q = 36.5, clock_ghz = 3.2, area = 28.7, power = 30,
    issue = 4, order = "out-of-order", chapters = { 3 } },
  { id = "S4+", name = "Sandybridge i7-2600", kind = "S", q = 47.1, clock_ghz = 3.4, area = 29.1, power = 38,
    issue = 4, order = "out-of-order", chapters = { 4, 5 } },
  { id = "M1", name = "GeForce GT330 SM (pre-Fermi)", kind = "M", clock_ghz = 1.34, area = 8.1, power = 2.4,
    sps = 8, chapters = { 3, 4, 5 } },
  { id = "M2", name = "GeForce GTX480 SM (Fermi)", kind = "M", clock_ghz = 0.71, lane_clock_ghz = 1.401, area = 16.1,
    power = 16.7, sps = 32, chapters = { 4, 5 } },
  { id = "M3", name = "GeForce GTX660 Ti SM (Kepler)", kind = "M", clock_ghz = 0.98, area = 54.0, power = 35.7,
    sps = 192, chapters = { 4, 5 } },
}
