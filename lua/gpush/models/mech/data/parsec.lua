-- PARSEC inputs of Blem's upper-bound model: thesis Appendix B, Table B.1
-- (L1977-1992), as printed.  f: parallel fraction (f_inf), r_ls: fraction of
-- instructions that are loads or stores, and the constants of the miss-rate
-- model m = min(1, (C / (threads x beta))^(1 - alpha)) for L1 and L2
-- (gpush.models.mech.upper_bound.miss_rate; C in bytes).
return {
  { name = "blackscholes", f = 0.984, r_ls = 0.325, alpha_l1 = 1.5, beta_l1 = 100, alpha_l2 = 2.0, beta_l2 = 8025 },
  { name = "bodytrack", f = 0.75, r_ls = 0.326, alpha_l1 = 3.0, beta_l1 = 27272, alpha_l2 = 5.0, beta_l2 = 351302 },
  { name = "canneal", f = 0.865, r_ls = 0.386, alpha_l1 = 1.6, beta_l1 = 1536, alpha_l2 = 1.6, beta_l2 = 1652000 },
  { name = "dedup", f = 0.87, r_ls = 0.400, alpha_l1 = 1.6, beta_l1 = 269, alpha_l2 = 1.6, beta_l2 = 57810 },
  { name = "facesim", f = 0.86, r_ls = 0.480, alpha_l1 = 2.5, beta_l1 = 16243, alpha_l2 = 2.5, beta_l2 = 365727 },
  { name = "ferret", f = 0.95, r_ls = 0.362, alpha_l1 = 1.5, beta_l1 = 227, alpha_l2 = 2.4, beta_l2 = 348595 },
  { name = "fluidanimate", f = 0.95, r_ls = 0.423, alpha_l1 = 1.9, beta_l1 = 710, alpha_l2 = 1.6, beta_l2 = 337750 },
  { name = "freqmine", f = 0.94, r_ls = 0.495, alpha_l1 = 2.0, beta_l1 = 1540, alpha_l2 = 2.0, beta_l2 = 134851 },
  { name = "streamcluster", f = 0.99, r_ls = 0.429, alpha_l1 = 1.5, beta_l1 = 391, alpha_l2 = 1.4, beta_l2 = 52934 },
  { name = "swaptions", f = 0.9999, r_ls = 0.442, alpha_l1 = 1.8, beta_l1 = 1819, alpha_l2 = 2.0, beta_l2 = 39677 },
  { name = "vips", f = 0.85, r_ls = 0.267, alpha_l1 = 1.5, beta_l1 = 83, alpha_l2 = 3.0, beta_l2 = 325143 },
  { name = "x264", f = 0.99, r_ls = 0.06, alpha_l1 = 2.0, beta_l1 = 5224, alpha_l2 = 2.0, beta_l2 = 84626 },
}
