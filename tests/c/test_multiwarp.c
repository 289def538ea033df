/* GPUMech's multi-warp model against the paper's examples (Fig. 2, Fig. 8,
 * Fig. 9), the CPI stack by hand, Table II's models, and invariants over
 * seeded random profiles. */
#include "gp_test.h"
#include "gpumech/multiwarp.h"
#include "gpumech/queue.h"

#include <string.h>

static gp_alloc A;

static gp_iv_interval iv_of(uint64_t insts, double stall, int32_t cause) {
  gp_iv_interval iv;
  memset(&iv, 0, sizeof iv);
  iv.insts = insts;
  iv.stall_cycles = stall;
  iv.cause = stall > 0 ? cause : -1;
  return iv;
}

static gp_mw_params params(gp_mw_policy pol, gp_mw_model model, double warps) {
  gp_mw_params par;
  memset(&par, 0, sizeof par);
  par.policy = pol, par.model = model, par.warps = warps, par.issue_rate = 1;
  par.mshrs = 32, par.avg_miss_latency_cycles = 300;
  par.sms_with_blocks = 1, par.dram_service_cycles = 1;
  return par;
}

/* Fig. 8: 4 warps, one interval of 3 instructions and 6 stall cycles. */
static void test_figure8(void) {
  gp_iv_interval iv = iv_of(3, 6, 0);
  gp_iv_profile p;
  gp_mw_params par = params(GP_MW_RR, GP_MW_MT, 4);
  gp_mw_result r;
  gp_error err;
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_profile_set(&p, &iv, 1, 1, 1, &err) == GP_OK);
  /* aligned warps (issue_prob = 1): RR 6 non-overlapped instructions, 3
   * remaining stall cycles, 15 cycles for 12 instructions */
  par.issue_prob = 1;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.nonoverlapped, 6, 1e-12);
  CHECK_NEAR(r.remaining_stall_cycles, 3, 1e-12);
  CHECK_NEAR(r.cycles, 15, 1e-12);
  CHECK_NEAR(r.cpi, 15.0 / 12.0, 1e-12);
  CHECK(!r.issue_bound);
  /* Eq. 9: issue_prob = 3 / (3 + 6); Eq. 11 gives 1/3 x 3 x 2 = 2 */
  par.issue_prob = 0;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.issue_prob, 1.0 / 3.0, 1e-15);
  CHECK_NEAR(r.nonoverlapped, 2, 1e-12);
  CHECK_NEAR(r.cycles, 12, 1e-12); /* 9 + 2 < 12: the issue bound */
  CHECK(r.issue_bound);
  /* GTO: 3 either way (W3's i1-i3) */
  par.policy = GP_MW_GTO;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.nonoverlapped, 3, 1e-12);
  CHECK_NEAR(r.cycles, 12, 1e-12);
  par.issue_prob = 1;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.nonoverlapped, 3, 1e-12);
  CHECK_NEAR(r.remaining_stall_cycles, 0, 1e-12);
  /* the per-interval functions directly */
  CHECK_NEAR(gp_mw_nonoverlapped_rr(3, 1, 4), 6, 0);
  CHECK_NEAR(gp_mw_nonoverlapped_rr(1, 1, 4), 0, 0);
  CHECK_NEAR(gp_mw_nonoverlapped_gto(6, 1.0 / 3.0, 4, 3, 1), 3, 1e-12);
  /* Eq. 15's erratum: with max(.., 1) the probability would be 2 and GTO
   * would give 12; Eq. 16's erratum: never negative */
  CHECK_NEAR(gp_mw_nonoverlapped_gto(6, 1, 4, 1, 1), 0, 0);
  /* gpush's GTO: a backlog of 3 x 3 - 2 = 7 instructions after a 2-cycle
   * stall, but the ready representative waits for the greedy warp's
   * interval only: 3 - 1 = 2; none when the backlog is shorter */
  CHECK_NEAR(gp_mw_nonoverlapped_gto(2, 1, 4, 3, 1), 7, 0);
  CHECK_NEAR(gp_mw_nonoverlapped_gto_gpush(2, 1, 4, 3, 1), 2, 0);
  CHECK_NEAR(gp_mw_nonoverlapped_gto_gpush(8, 1, 4, 3, 1), 1, 0);
  CHECK_NEAR(gp_mw_nonoverlapped_gto_gpush(9, 1, 4, 3, 1), 0, 0);
  gp_iv_profile_free(&p);
}

/* Fig. 2: 3 warps; interval 1 = 1 instruction + 10 stall cycles gives a
 * core IPC of 3/11 (= Eq. 1's 1/11 x 3); with interval 2 = 4 instructions
 * + 10 stall cycles, RR with aligned warps needs 2 x 3 extra issue cycles
 * (warp 3's i4 and i5 cannot hide in warp 1's stall). */
static void test_figure2(void) {
  gp_iv_interval iv[2];
  gp_iv_profile p;
  gp_mw_params par = params(GP_MW_RR, GP_MW_NAIVE, 3);
  gp_mw_result r;
  gp_error err;
  iv[0] = iv_of(1, 10, 0);
  iv[1] = iv_of(4, 10, 0);
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_profile_set(&p, iv, 1, 1, 1, &err) == GP_OK);
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.ipc, 3.0 / 11.0, 1e-15);
  par.model = GP_MW_MT;
  par.issue_prob = 1;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.ipc, 3.0 / 11.0, 1e-15);
  CHECK(gp_iv_profile_set(&p, iv, 2, 1, 1, &err) == GP_OK);
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.nonoverlapped, 6, 1e-12);
  CHECK_NEAR(r.cycles, 31, 1e-12);
  par.model = GP_MW_NAIVE;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.cycles, 25, 1e-12); /* the optimistic overlap */
  CHECK_NEAR(r.ipc, 15.0 / 25.0, 1e-15);
  gp_iv_profile_free(&p);
}

/* Fig. 9 through the whole model: 4 warps with an interval of 3
 * instructions (one load issuing 2 L1-missing requests); 6 MSHRs: Eq. 19
 * gives 0.25 x 200 = 50 cycles for the load. */
static void test_figure9(void) {
  gp_iv_interval iv = iv_of(3, 200, 1);
  gp_iv_profile p;
  gp_mw_params par = params(GP_MW_RR, GP_MW_MT_MSHR, 4);
  gp_mw_result r, mt;
  gp_error err;
  iv.mem_insts = 1, iv.l1_miss_reqs = 2;
  par.mshrs = 6, par.avg_miss_latency_cycles = 200;
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_profile_set(&p, &iv, 1, 2, 1, &err) == GP_OK);
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.mshr_cycles, 50, 1e-12);
  par.model = GP_MW_MT;
  CHECK(gp_mw_predict(&p, &par, &mt, &err) == GP_OK);
  CHECK_NEAR(r.cycles - mt.cycles, 50, 1e-9);
  CHECK_NEAR(r.stack[GP_MW_MSHR], 50.0 / 12.0, 1e-12);
  /* the SM's other scheduler's warps share the MSHRs: 8 warps on the SM,
   * 16 requests on 6 MSHRs: (6 + 12 + 12) / 16 - 1 = 0.875 */
  par.model = GP_MW_MT_MSHR;
  par.warps_per_sm = 8;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.mshr_cycles, 0.875 * 200, 1e-9);
  gp_iv_profile_free(&p);
}

/* The DRAM floor (a deviation from Eq. 21, multiwarp.c): one warp, one
 * interval of 10 instructions and a 100-cycle stall with 400 DRAM requests
 * at 1 cycle each.  Eq. 23: lambda = 400 / 110 > 1, so rho is capped and
 * Eq. 21's cap wins: 400 / 2 = 200 cycles, 310 in all, less than the 400
 * cycles the DRAM needs to move the requests: the cycles are raised to 400,
 * the 90-cycle shortfall going to QUEUE (stack: BASE 1, DEP 10, QUEUE 29).
 * At 0.5 cycles per request the capped delay (100) already covers the
 * transfer time (200): 210 cycles, no floor.  The kernel's mean requests
 * per warp count when they exceed the representative warp's. */
static void test_bandwidth_floor(void) {
  gp_iv_interval iv = iv_of(10, 100, 0);
  gp_iv_profile p;
  gp_mw_params par = params(GP_MW_RR, GP_MW_MT_MSHR_BAND, 1);
  gp_mw_result r;
  gp_error err;
  iv.mem_insts = 1, iv.dram_reqs = 400;
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_profile_set(&p, &iv, 1, 1, 1, &err) == GP_OK);
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.dram_transfer_cycles, 400, 1e-12);
  CHECK_NEAR(r.cycles, 400, 1e-12);
  CHECK_EQ_INT(r.bandwidth_bound, 1);
  CHECK_NEAR(r.stack[GP_MW_BASE], 1, 1e-12);
  CHECK_NEAR(r.stack[GP_MW_DEP], 10, 1e-12);
  CHECK_NEAR(r.stack[GP_MW_QUEUE], 29, 1e-12);
  CHECK_NEAR(r.cpi, 40, 1e-12);
  par.dram_service_cycles = 0.5;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.cycles, 210, 1e-12);
  CHECK_EQ_INT(r.bandwidth_bound, 0);
  /* the kernel's warps read 600 requests each on average, more than the
   * representative's 400: the floor is 600 cycles, QUEUE (600-110-200)/10 */
  par.dram_service_cycles = 1;
  par.kernel_dram_reqs_per_warp = 600;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.cycles, 600, 1e-12);
  CHECK_NEAR(r.stack[GP_MW_QUEUE], 49, 1e-12);
  par.kernel_dram_reqs_per_warp = 300; /* fewer: the representative's 400 stand */
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.cycles, 400, 1e-12);
  par.kernel_dram_reqs_per_warp = 0;
  par.model = GP_MW_MT_MSHR; /* the floor belongs to the bandwidth model only */
  par.dram_service_cycles = 1;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.cycles, 110, 1e-12);
  gp_iv_profile_free(&p);
}

/* The CPI stack by hand: one warp (no overlap), 10 instructions, a memory
 * stall of 100 cycles whose PC hits L2 10% and misses 90%, and a compute
 * stall of 20 cycles. */
static void test_stack(void) {
  gp_iv_interval iv[2];
  gp_iv_profile p;
  gp_mw_params par = params(GP_MW_GTO, GP_MW_MT_MSHR_BAND, 1);
  gp_mw_result r;
  gp_error err;
  double mix[2 * GP_MW_MIX_N] = {1, 0, 0, 0, 0,   /* cause 0: compute */
                                 0, 0, 0.1, 0.9, 0 /* cause 1: memory PC */};
  double sum = 0;
  int j;
  iv[0] = iv_of(4, 100, 1);
  iv[1] = iv_of(6, 20, 0);
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_profile_set(&p, iv, 2, 2, 1, &err) == GP_OK);
  par.cause_mix = mix;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.cycles, 130, 1e-12);
  CHECK_NEAR(r.stack[GP_MW_BASE], 1, 1e-15);
  CHECK_NEAR(r.stack[GP_MW_DEP], 2, 1e-12);
  CHECK_NEAR(r.stack[GP_MW_L1], 0, 1e-12);
  CHECK_NEAR(r.stack[GP_MW_L2], 1, 1e-12);
  CHECK_NEAR(r.stack[GP_MW_DRAM], 9, 1e-12);
  for (j = 0; j < GP_MW_STACK_N; j++)
    sum += r.stack[j];
  CHECK_NEAR(sum, r.cpi, 1e-12);
  CHECK_NEAR(r.cpi, 13, 1e-12);
  /* at issue rate 0.5 the profile must say 2 cycles per issue */
  par.issue_rate = 0.5;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "issue rate");
  CHECK(gp_iv_profile_set(&p, iv, 2, 2, 2, &err) == GP_OK);
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.cycles, 140, 1e-12);
  CHECK_NEAR(r.stack[GP_MW_BASE], 2, 1e-15);
  /* a totals-only profile serves NAIVE only */
  {
    gp_iv_profile t;
    double lat[2] = {5, 5};
    gp_iv_input in;
    memset(&in, 0, sizeof in);
    in.count = 2, in.latency = lat, in.issue_cycles = 1, in.totals_only = 1;
    gp_iv_profile_init(&t, &A);
    CHECK(gp_iv_run(&t, &in, NULL, &err) == GP_OK);
    par = params(GP_MW_RR, GP_MW_MT, 2);
    CHECK(gp_mw_predict(&t, &par, &r, &err) == GP_ERR);
    par.model = GP_MW_NAIVE;
    CHECK(gp_mw_predict(&t, &par, &r, &err) == GP_OK);
    CHECK_NEAR(r.cycles, 6, 1e-12);
    gp_iv_profile_free(&t);
  }
  gp_iv_profile_free(&p);
}

static uint64_t rs = 2024;
static double urand(void) {
  rs = rs * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rs >> 11) / 9007199254740992.0;
}

/* Over seeded random profiles and machines, under both sets of equations:
 * more MSHRs or more DRAM bandwidth never predict slower; the CPI is never
 * below 1 / issue rate; the bandwidth model never moves requests faster
 * than the DRAM serves them; the stack sums to the CPI with no negative
 * category; Table II's models never get faster as terms are added.  gpush's
 * equations also: the cycles are never below any resource's demand
 * (Little's law for the MSHRs, the DRAM, the L2 slices and every unit), and
 * more L2 slices never predict slower. */
static void check_invariants(gp_mw_equations eq) {
  int t, bad_mshr = 0, bad_bw = 0, bad_floor = 0, bad_sum = 0, bad_order = 0, bad_neg = 0,
      bad_peak = 0, bad_demand = 0, bad_l2 = 0;
  gp_iv_profile p;
  gp_error err;
  gp_iv_profile_init(&p, &A);
  for (t = 0; t < 500; t++) {
    gp_iv_interval iv[40];
    size_t n = 1 + (size_t)(urand() * 39), i, u;
    double rate = urand() < 0.5 ? 1 : 0.5, mix[4 * GP_MW_MIX_N];
    gp_mw_params par;
    gp_mw_result r[4], more;
    int m, j;
    for (i = 0; i < n; i++) {
      iv[i] = iv_of(1 + (uint64_t)(urand() * 20), urand() < 0.2 ? 0 : urand() * 500,
                    (int32_t)(urand() * 4));
      iv[i].mem_insts = (double)(int)(urand() * 3);
      iv[i].l1_miss_reqs = iv[i].mem_insts * urand() * 32;
      iv[i].dram_reqs = iv[i].mem_insts * urand() * 32;
      iv[i].l2_reqs = iv[i].l1_miss_reqs + urand() * 4;
    }
    for (i = 0; i < 4 * GP_MW_MIX_N; i++)
      mix[i] = urand();
    if (gp_iv_profile_set(&p, iv, n, 4, 1 / rate, &err) != GP_OK) {
      CHECK(0);
      break;
    }
    for (u = 0; u < GP_MW_UNIT_N; u++) {
      p.unit_insts[u] = (double)(int)(urand() * 10);
      p.unit_busy[u] = p.unit_insts[u] * (0.5 + urand() * 8);
    }
    par = params(urand() < 0.5 ? GP_MW_RR : GP_MW_GTO, GP_MW_NAIVE, 1 + (int)(urand() * 48));
    par.equations = eq;
    par.issue_rate = rate;
    par.warps_per_sm = par.warps * (1 + (int)(urand() * 4));
    par.mshrs = 1 + (int)(urand() * 64);
    par.avg_miss_latency_cycles = 100 + urand() * 400;
    par.sms_with_blocks = 1 + (int)(urand() * 16);
    par.dram_service_cycles = 0.1 + urand() * 4;
    par.dram_channels = 1 + (int)(urand() * 8);
    par.l2_slices = 1 + (int)(urand() * 16);
    par.l2_service_cycles = urand() * 2;
    par.miss_dram_fraction = urand();
    par.cause_mix = urand() < 0.5 ? mix : NULL;
    if (urand() < 0.5) { /* the kernel's mean warp differs from the representative */
      par.kernel_insts_per_warp = (double)p.insts * (0.5 + urand());
      par.kernel_l1_miss_reqs_per_warp = p.l1_miss_reqs * (0.5 + urand());
      par.kernel_l2_reqs_per_warp = p.l2_reqs * (0.5 + urand());
      par.kernel_dram_reqs_per_warp = p.dram_reqs * (0.5 + urand());
      for (u = 0; u < GP_MW_UNIT_N; u++)
        par.kernel_unit_busy_per_warp[u] = p.unit_busy[u] * (0.5 + urand());
      par.kernel_bank_busy_per_warp = par.kernel_unit_busy_per_warp[GP_MW_UNIT_LSU] * urand();
    }
    for (m = GP_MW_NAIVE; m <= GP_MW_MT_MSHR_BAND; m++) {
      double sum = 0;
      par.model = (gp_mw_model)m;
      if (gp_mw_predict(&p, &par, &r[m], &err) != GP_OK) {
        CHECK(0);
        continue;
      }
      bad_floor += r[m].cpi < 1 / rate - 1e-12;
      for (j = 0; j < GP_MW_STACK_N; j++) {
        sum += r[m].stack[j];
        bad_neg += r[m].stack[j] < -1e-12;
      }
      bad_sum += fabs(sum - r[m].cpi) > 1e-9 * r[m].cpi;
      if (eq == GP_MW_EQ_GPUSH && m != GP_MW_NAIVE)
        for (j = GP_MW_RES_ISSUE; j < GP_MW_RES_N; j++)
          bad_demand += r[m].cycles < r[m].demand_cycles[j] * (1 - 1e-12);
    }
    /* never more DRAM requests per cycle than the DRAM serves */
    bad_peak += r[GP_MW_MT_MSHR_BAND].cycles < r[GP_MW_MT_MSHR_BAND].dram_transfer_cycles - 1e-9;
    for (m = GP_MW_MT + 1; m <= GP_MW_MT_MSHR_BAND; m++)
      bad_order += r[m].cycles < r[m - 1].cycles - 1e-9;
    par.model = GP_MW_MT_MSHR_BAND;
    par.mshrs *= 2;
    gp_mw_predict(&p, &par, &more, &err);
    bad_mshr += more.cycles > r[GP_MW_MT_MSHR_BAND].cycles * (1 + 1e-9);
    par.mshrs /= 2;
    par.dram_service_cycles /= 2;
    gp_mw_predict(&p, &par, &more, &err);
    bad_bw += more.cycles > r[GP_MW_MT_MSHR_BAND].cycles * (1 + 1e-9);
    par.dram_service_cycles *= 2;
    par.l2_slices *= 2;
    gp_mw_predict(&p, &par, &more, &err);
    bad_l2 += more.cycles > r[GP_MW_MT_MSHR_BAND].cycles * (1 + 1e-9);
  }
  CHECK_EQ_INT(bad_mshr, 0);
  CHECK_EQ_INT(bad_bw, 0);
  CHECK_EQ_INT(bad_floor, 0);
  CHECK_EQ_INT(bad_sum, 0);
  CHECK_EQ_INT(bad_neg, 0);
  CHECK_EQ_INT(bad_order, 0);
  CHECK_EQ_INT(bad_peak, 0);
  CHECK_EQ_INT(bad_demand, 0);
  CHECK_EQ_INT(bad_l2, 0);
  gp_iv_profile_free(&p);
}

static void test_invariants(void) {
  check_invariants(GP_MW_EQ_PAPER);
  check_invariants(GP_MW_EQ_GPUSH);
}

/* gpush's equations by hand: pointer chasing, one SM of 64 warps (16 per
 * scheduler, GTO), 12 trips of a load (1 request missing L1, 400 cycles)
 * then 2 dependent instructions (12 cycles): one warp takes 12 x 412 =
 * 4,944 cycles (GTO hides nothing here: Eq. 16 gives 0).  Little's law:
 * 768 requests x 400 cycles / MSHRs.  With 16 MSHRs the requests need 4
 * rounds per trip, so every warp waits r - 1 = 3 rounds per load (the
 * saturated queue's wait, below the M/D/16 wait at the solution), 4,944 +
 * 12 x 1,200 = 19,344 cycles, just above the demand of 19,200; with 8 MSHRs
 * 4,944 + 12 x 2,800 = 38,544 (demand 38,400); with 256 MSHRs the MSHRs
 * are 24 % busy and the warp's own 4,944 cycles stand.  The paper's
 * equations give 4,944 + 12 x Eq. 19's (4 + 1) / 2 - 1 = 1.5 rounds =
 * 12,144 at 16 MSHRs: 37 % below what the MSHRs can serve. */
/* The pointer chase's profile: 12 trips of a load (1 request missing L1,
 * and reaching DRAM when `dram`) and 2 dependent instructions. */
static void pointer_chase_profile(gp_iv_profile *p, int dram) {
  gp_iv_interval iv[24];
  gp_error err;
  int i;
  for (i = 0; i < 12; i++) {
    iv[2 * i] = iv_of(1, 399, 1);
    iv[2 * i].mem_insts = 1, iv[2 * i].l1_miss_reqs = 1, iv[2 * i].dram_reqs = dram;
    iv[2 * i + 1] = iv_of(2, 10, 0);
  }
  gp_iv_profile_init(p, &A);
  CHECK(gp_iv_profile_set(p, iv, 24, 2, 1, &err) == GP_OK);
}

static void test_little_pointer_chase(void) {
  gp_iv_profile p;
  gp_mw_params par = params(GP_MW_GTO, GP_MW_MT_MSHR, 16);
  gp_mw_result r;
  gp_error err;
  pointer_chase_profile(&p, 0);
  CHECK_NEAR(p.total_cycles, 4944, 1e-12);
  par.warps_per_sm = 64, par.avg_miss_latency_cycles = 400, par.mshrs = 16;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.mshr_cycles, 12 * 1.5 * 400, 1e-9); /* the paper's */
  CHECK_NEAR(r.cycles, 12144, 1e-9);
  par.equations = GP_MW_EQ_GPUSH;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.nonoverlapped, 0, 0);
  CHECK_NEAR(r.demand_cycles[GP_MW_RES_MSHR], 19200, 1e-9);
  CHECK_NEAR(r.wait_cycles[GP_MW_RES_MSHR], 1200, 1e-9);
  CHECK_NEAR(r.cycles, 19344, 1e-6);
  /* the waits, not the demand, set the cycles, but the MSHRs are 99 % busy */
  CHECK_NEAR(r.utilisation[GP_MW_RES_MSHR], 19200.0 / 19344.0, 1e-9);
  CHECK_EQ_INT(r.bound, GP_MW_RES_MSHR);
  CHECK_NEAR(r.stack[GP_MW_MSHR] * r.insts, 14400, 1e-6);
  CHECK_NEAR(r.stack[GP_MW_BASE] * r.insts, 16 * 36, 1e-9);
  par.mshrs = 8;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.demand_cycles[GP_MW_RES_MSHR], 38400, 1e-9);
  CHECK_NEAR(r.cycles, 38544, 1e-6);
  par.mshrs = 256;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.utilisation[GP_MW_RES_MSHR], 1200.0 / r.cycles, 1e-12);
  CHECK(r.cycles >= 4944 && r.cycles < 4944 * (1 + 1e-9));
  CHECK_EQ_INT(r.bound, GP_MW_RES_LATENCY); /* 24 % busy: the warps' own path */
  gp_iv_profile_free(&p);
}

/* The DRAM, not the MSHRs, binds when it is saturated: the pointer chase
 * above with 64 MSHRs (unloaded, 768 x 400 / 64 = 4,800 cycles of MSHR
 * demand, 12 %) whose every request goes to one DRAM channel of 50 cycles
 * a request: 768 x 50 = 38,400 cycles, and the first request's 400-cycle
 * trip before it (38,740 at the fixed point, within 1 %).  The MSHRs'
 * holding time includes the DRAM queue's wait, so by their loaded demand
 * they are as busy as the DRAM (99.6 % against its 99.1 %). */
static void test_saturated_dram_binds(void) {
  gp_iv_profile p;
  gp_mw_params par = params(GP_MW_GTO, GP_MW_MT_MSHR_BAND, 16);
  gp_mw_result r;
  gp_error err;
  pointer_chase_profile(&p, 1);
  par.equations = GP_MW_EQ_GPUSH;
  par.warps_per_sm = 64, par.avg_miss_latency_cycles = 400, par.mshrs = 64;
  par.dram_service_cycles = 50, par.dram_channels = 1, par.miss_dram_fraction = 1;
  par.kernel_dram_reqs_per_warp = 12;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.demand_cycles[GP_MW_RES_DRAM], 38400, 1e-9);
  CHECK(r.cycles >= 38400 && r.cycles <= 38400 * 1.01);
  CHECK(r.utilisation[GP_MW_RES_MSHR] > r.utilisation[GP_MW_RES_DRAM]);
  CHECK_EQ_INT(r.bound, GP_MW_RES_DRAM);
  CHECK_NEAR(r.stack[GP_MW_MSHR], 0, 0);
  gp_iv_profile_free(&p);
}

/* A warp's issue spacing against its scheduler's rate: the paper's set
 * needs them equal (1 / rate); gpush's lets a warp issue at most once a
 * cycle on a dual-issue scheduler, never faster than the scheduler. */
static void test_warp_issue_spacing(void) {
  gp_iv_interval iv = iv_of(10, 5, 0);
  gp_iv_profile p;
  gp_mw_params par = params(GP_MW_RR, GP_MW_MT, 1);
  gp_mw_result r;
  gp_error err;
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_profile_set(&p, &iv, 1, 1, 1, &err) == GP_OK); /* 1 cycle per issue */
  par.issue_rate = 2;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_ERR);
  CHECK(strstr(err.msg, "built at 1 cycles per issue, the model runs at issue rate 2") != NULL);
  par.equations = GP_MW_EQ_GPUSH;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.cycles, 15, 1e-9); /* one warp: its own 10 + 5 cycles */
  CHECK_NEAR(r.base_cycles, 5, 1e-9); /* the scheduler's issue bound at 2 a cycle */
  par.issue_rate = 0.5; /* a warp faster than its scheduler: refused */
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_ERR);
  gp_iv_profile_free(&p);
}

/* A demand that sets the cycles and where its excess goes: 4 warps (GTO:
 * with no stall nothing interleaves), 100 instructions each, one SFU use
 * per warp in the representative warp, but the kernel's mean warp keeps
 * the SFU busy 250 cycles: the SFU needs 4 x 250 = 1,000 cycles, the issue
 * slot 400.  The waits are capped at the 3 other warps' uses (3 x 8), so
 * the path is 100 + 24 = 124 cycles and the SFU's demand binds: 1,000
 * cycles, BASE 400, SFU 600 (the excess above the issue bound, since the
 * path hides under the issue bound). */
static void test_unit_demand(void) {
  gp_iv_interval iv = iv_of(100, 0, 0);
  gp_iv_profile p;
  gp_mw_params par = params(GP_MW_GTO, GP_MW_MT_MSHR_BAND, 4);
  gp_mw_result r;
  gp_error err;
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_profile_set(&p, &iv, 1, 1, 1, &err) == GP_OK);
  p.unit_insts[GP_MW_UNIT_SFU] = 1, p.unit_busy[GP_MW_UNIT_SFU] = 8;
  par.equations = GP_MW_EQ_GPUSH;
  par.kernel_unit_busy_per_warp[GP_MW_UNIT_SFU] = 250;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.cycles, 1000, 1e-9);
  CHECK_EQ_INT(r.bound, GP_MW_RES_UNIT + GP_MW_UNIT_SFU);
  CHECK_NEAR(r.wait_cycles[GP_MW_RES_UNIT + GP_MW_UNIT_SFU], 24, 1e-9);
  CHECK_NEAR(r.stack[GP_MW_BASE] * r.insts, 400, 1e-9);
  CHECK_NEAR(r.stack[GP_MW_SFU] * r.insts, 600, 1e-9);
  /* the paper's equations have no SFU term: the issue bound */
  par.equations = GP_MW_EQ_PAPER;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.cycles, 400, 1e-12);
  /* the LSU's excess splits LSU : BANK by the bank-conflict passes' share */
  par.equations = GP_MW_EQ_GPUSH;
  par.kernel_unit_busy_per_warp[GP_MW_UNIT_SFU] = 0;
  p.unit_insts[GP_MW_UNIT_SFU] = p.unit_busy[GP_MW_UNIT_SFU] = 0;
  par.kernel_unit_busy_per_warp[GP_MW_UNIT_LSU] = 300;
  par.kernel_bank_busy_per_warp = 100;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.cycles, 1200, 1e-9);
  CHECK_EQ_INT(r.bound, GP_MW_RES_UNIT + GP_MW_UNIT_LSU);
  CHECK_NEAR(r.stack[GP_MW_LSU] * r.insts, 800 * 2.0 / 3.0, 1e-9);
  CHECK_NEAR(r.stack[GP_MW_BANK] * r.insts, 800 / 3.0, 1e-9);
  gp_iv_profile_free(&p);
}

/* The interval pass feeding the model: one warp's stream through both. */
static void test_end_to_end(void) {
  /* a load (latency 100, cause 1) feeding an add, 4 times */
  uint16_t dep[8] = {0, 1, 0, 1, 0, 1, 0, 1};
  uint32_t pc[8] = {0, 1, 0, 1, 0, 1, 0, 1};
  double lat[2] = {100, 1};
  int32_t cause[2] = {1, 0};
  gp_iv_input in;
  gp_iv_profile p;
  gp_mw_params par = params(GP_MW_GTO, GP_MW_MT, 8);
  gp_mw_result r;
  gp_error err;
  memset(&in, 0, sizeof in);
  in.count = 8, in.pc = pc, in.dep[0] = dep, in.latency = lat, in.cause = cause, in.ncause = 2;
  in.issue_cycles = 1;
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_run(&p, &in, NULL, &err) == GP_OK);
  /* intervals: [ld] 99, [add ld] 99, [add ld] 99, [add ld] 99, [add] 0 */
  CHECK_EQ_INT(p.count, 5);
  CHECK_NEAR(p.total_cycles, 8 + 4 * 99, 0);
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  /* GTO: issue_prob = 8/404; in a 99-cycle stall 7 x min(99 x 8/404, 1)
   * warps issue 8/5 instructions each: 11.2 < 99, nothing non-overlapped */
  CHECK_NEAR(r.nonoverlapped, 0, 1e-12);
  CHECK_NEAR(r.cycles, 404, 1e-9);
  CHECK_NEAR(r.stack[GP_MW_DEP] + r.stack[GP_MW_DRAM], (404.0 - 64.0) / 64.0, 1e-12);
  gp_iv_profile_free(&p);
}

/* Table II's Markov_Chain through the model: a stall of 2 cycles after every
 * 2 instructions gives p = 1/2, M = 2.  One warp: IPC 1 / (1 + p M) = 1/2,
 * its own 8 cycles.  Two warps: the 3-state chain's pi = (1/3, 1/2, 1/6)
 * (markov.h, solved by hand in test_markov.c), IPC 5/6, 8 / (5/6) cycles;
 * the stall part of the stack is the warp's cause (here DEP). */
static void test_markov_model(void) {
  gp_iv_interval iv[2];
  gp_iv_profile p;
  gp_mw_params par = params(GP_MW_RR, GP_MW_MARKOV, 1);
  gp_mw_result r;
  gp_error err;
  iv[0] = iv_of(2, 2, 0);
  iv[1] = iv_of(2, 2, 0);
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_profile_set(&p, iv, 2, 1, 1, &err) == GP_OK);
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.markov_p_stall, 0.5, 1e-15);
  CHECK_NEAR(r.markov_stall_slots, 2, 1e-15);
  CHECK_NEAR(r.cycles, 8, 1e-12);
  par.warps = 2;
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.markov_ipc, 5.0 / 6.0, 1e-12);
  CHECK_NEAR(r.cycles, 9.6, 1e-12);
  CHECK_NEAR(r.stack[GP_MW_BASE], 1, 1e-12); /* 8 instructions at one per cycle */
  CHECK_NEAR(r.stack[GP_MW_DEP], (9.6 - 8) / 8, 1e-12);
  CHECK_NEAR(r.mshr_cycles + r.dram_cycles + r.nonoverlapped, 0, 0);
  /* no stalls: the issue bound */
  iv[0] = iv_of(4, 0, 0);
  CHECK(gp_iv_profile_set(&p, iv, 1, 1, 1, &err) == GP_OK);
  CHECK(gp_mw_predict(&p, &par, &r, &err) == GP_OK);
  CHECK_NEAR(r.cycles, 8, 1e-12);
  gp_iv_profile_free(&p);
}

int main(void) {
  A = gp_alloc_default();
  RUN(test_figure8);
  RUN(test_figure2);
  RUN(test_figure9);
  RUN(test_stack);
  RUN(test_bandwidth_floor);
  RUN(test_invariants);
  RUN(test_little_pointer_chase);
  RUN(test_saturated_dram_binds);
  RUN(test_warp_issue_spacing);
  RUN(test_unit_demand);
  RUN(test_end_to_end);
  RUN(test_markov_model);
  return gp_test_finish();
}
