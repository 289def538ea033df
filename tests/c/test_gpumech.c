/* Unit tests of GPUMech's analytical core against the paper's worked
 * examples (Fig. 2, Fig. 8, Fig. 9), hand-computed queueing cases, k-means
 * edge cases, and invariants over seeded random profiles. */
#include "gp_test.h"
#include "gpumech.h"

#include <string.h>

static gp_interval one(double insts, double stall) {
  gp_interval iv;
  memset(&iv, 0, sizeof iv);
  iv.insts = insts;
  iv.stall_cycles = stall;
  iv.cause_pc = -1;
  return iv;
}

static gp_interval_profile profile_of(gp_interval *ivs, size_t n) {
  gp_interval_profile p;
  size_t i;
  memset(&p, 0, sizeof p);
  p.intervals = ivs;
  p.count = n;
  for (i = 0; i < n; i++) {
    p.insts += ivs[i].insts;
    p.stall_cycles += ivs[i].stall_cycles;
  }
  p.total_cycles = p.insts + p.stall_cycles;
  return p;
}

static gp_multiwarp_input input(gp_policy policy, double warps) {
  gp_multiwarp_input in;
  memset(&in, 0, sizeof in);
  in.policy = policy, in.warps = warps, in.issue_rate = 1;
  in.warps_per_sm = warps, in.cores = 1, in.mshrs = 32;
  return in;
}

/* Interval algorithm (Eq. 4) on hand-made streams. */
static void test_interval_algorithm(void) {
  uint32_t pc[6] = {0, 0, 0, 0, 0, 1};
  uint16_t dep[6] = {0, 1, 1, 1, 1, 0}, dep_load[6] = {0};
  double lat[2] = {4, 1};
  uint8_t is_mem[2] = {0, 0};
  gp_warp_stream w;
  gp_interval_profile p;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  memset(&w, 0, sizeof w);
  w.count = 5, w.pc_index = pc, w.dep = dep, w.dep_load = dep_load, w.pc_latency = lat;
  w.pc_is_memory = is_mem;
  /* a dependent chain of 5 of latency 4 takes 5 x 4 = 20 cycles */
  CHECK(gp_interval_run(&p, &a, &w, &err) == GP_OK);
  CHECK_EQ_INT(p.count, 5);
  CHECK_NEAR(p.insts, 5, 0);
  CHECK_NEAR(p.total_cycles, 20, 1e-12);
  CHECK_NEAR(p.intervals[0].stall_cycles, 3, 1e-12);
  CHECK_EQ_INT(p.intervals[0].cause_pc, 0);
  gp_interval_free(&p);
  /* independent instructions issue back to back: one interval, drain L-1 */
  memset(dep, 0, sizeof dep);
  CHECK(gp_interval_run(&p, &a, &w, &err) == GP_OK);
  CHECK_EQ_INT(p.count, 1);
  CHECK_NEAR(p.total_cycles, 5 + 3, 1e-12);
  gp_interval_free(&p);
  /* the nearest producer is fast but a load 2 back is slow: it wins */
  {
    uint32_t pc2[3] = {0, 1, 1};
    uint16_t d2[3] = {0, 0, 1}, dl2[3] = {0, 0, 2};
    double lat2[2] = {100, 1};
    w.count = 3, w.pc_index = pc2, w.dep = d2, w.dep_load = dl2, w.pc_latency = lat2;
    CHECK(gp_interval_run(&p, &a, &w, &err) == GP_OK);
    CHECK_EQ_INT(p.count, 2);
    CHECK_NEAR(p.intervals[0].insts, 2, 0);
    CHECK_NEAR(p.intervals[0].stall_cycles, 98, 1e-12); /* issue 100 after issue 1 */
    CHECK_EQ_INT(p.intervals[0].cause_pc, 0);
    gp_interval_free(&p);
  }
}

/* Fig. 2: 3 warps, interval 1 of 1 instruction and 10 stall cycles: IPC 3/11. */
static void test_figure2(void) {
  gp_interval ivs[1];
  gp_interval_profile p;
  gp_multiwarp_input in = input(GP_POLICY_RR, 3);
  gp_multiwarp_result r;
  ivs[0] = one(1, 10);
  p = profile_of(ivs, 1);
  gp_multiwarp(&p, &in, &r);
  CHECK_NEAR(3.0 / r.cycles, 3.0 / 11.0, 1e-12);
  CHECK_NEAR(r.cpi, 11.0 / 3.0, 1e-12);
}

/* Fig. 8: 4 warps, one interval of 3 instructions and 6 stall cycles. */
static void test_figure8(void) {
  gp_interval iv = one(3, 6);
  gp_interval_profile p = profile_of(&iv, 1);
  gp_multiwarp_input in = input(GP_POLICY_RR, 4);
  gp_multiwarp_result r;
  /* aligned warps (issue_prob = 1): RR leaves 6 non-overlapped instructions,
   * so 15 cycles for 12 instructions: 3 stall cycles remain */
  CHECK_NEAR(gp_nonoverlapped_rr(&iv, 1.0, 4), 6, 1e-12);
  CHECK_NEAR(p.total_cycles + 6 - 12, 3, 1e-12);
  /* Eq. 9's issue_prob = 3/9: Eq. 11 gives 2 */
  CHECK_NEAR(gp_nonoverlapped_rr(&iv, 3.0 / 9.0, 4), 2, 1e-12);
  gp_multiwarp(&p, &in, &r);
  CHECK_NEAR(r.nonoverlapped, 2, 1e-12);
  /* 9 + 2 = 11 cycles is below the issue bound of 12 instructions: 12 */
  CHECK_NEAR(r.cycles, 12, 1e-12);
  /* GTO gives 3 either way */
  CHECK_NEAR(gp_nonoverlapped_gto(&iv, 1.0, 4, 3, 1), 3, 1e-12);
  CHECK_NEAR(gp_nonoverlapped_gto(&iv, 3.0 / 9.0, 4, 3, 1), 3, 1e-12);
  in.policy = GP_POLICY_GTO;
  gp_multiwarp(&p, &in, &r);
  CHECK_NEAR(r.nonoverlapped, 3, 1e-12);
  CHECK_NEAR(r.cycles, 12, 1e-12);
}

/* Fig. 9 and Eq. 19 by hand. */
static void test_mshr_queueing(void) {
  gp_interval iv = one(3, 50);
  gp_interval_profile p;
  gp_multiwarp_input in = input(GP_POLICY_RR, 4);
  gp_multiwarp_result r;
  /* 4 warps x 2 L1-missing requests = 8 on 6 MSHRs: 0.25 x latency */
  CHECK_NEAR(gp_mshr_expected_delay(8, 6, 200), 0.25 * 200, 1e-12);
  /* 13 on 4: rounds 1,1,1,1,2,2,2,2,3,3,3,3,4 = 28: 28/13 - 1 = 15/13 */
  CHECK_NEAR(gp_mshr_expected_delay(13, 4, 13), 15, 1e-12);
  CHECK_NEAR(gp_mshr_expected_delay(6, 6, 200), 0, 1e-12);
  iv.mem_insts = 1, iv.l1_miss_reqs = 2;
  p = profile_of(&iv, 1);
  in.mshrs = 6, in.model_mshr = 1, in.avg_miss_latency = 200;
  gp_multiwarp(&p, &in, &r);
  CHECK_NEAR(r.mshr_delay, 50, 1e-12); /* Eq. 20: x 1 memory instruction */
  in.mshrs = 8;
  gp_multiwarp(&p, &in, &r);
  CHECK_NEAR(r.mshr_delay, 0, 1e-12); /* 8 requests fit 8 MSHRs */
}

/* Eq. 21-23 by hand. */
static void test_dram_queueing(void) {
  int capped;
  /* 8 requests x 2 cores over 100 cycles, s = 4: lambda 0.16, rho 0.64,
   * delay = 0.16 x 16 / (2 x 0.36) = 32/9 */
  CHECK_NEAR(gp_dram_delay(8, 2, 100, 4, &capped), 32.0 / 9.0, 1e-12);
  CHECK_EQ_INT(capped, 0);
  /* saturated: rho capped below 1, then the delay capped at s x 200 / 2 */
  CHECK_NEAR(gp_dram_delay(100, 2, 100, 4, &capped), 400, 1e-12);
  CHECK_EQ_INT(capped, 1);
  CHECK_NEAR(gp_dram_delay(0, 2, 100, 4, &capped), 0, 0);
}

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* More MSHRs or bandwidth never predict slower; CPI never below the issue
 * bound; over seeded random profiles. */
static void test_invariants(void) {
  gp_interval ivs[20];
  uint64_t seed = 99;
  int trial, bad = 0;
  for (trial = 0; trial < 200; trial++) {
    gp_interval_profile p;
    gp_multiwarp_input in;
    gp_multiwarp_result a, b;
    size_t i, n = 1 + xorshift(&seed) % 20;
    for (i = 0; i < n; i++) {
      ivs[i] = one((double)(1 + xorshift(&seed) % 12), (double)(xorshift(&seed) % 400));
      ivs[i].mem_insts = (double)(xorshift(&seed) % 3);
      ivs[i].l1_miss_reqs = ivs[i].mem_insts * (double)(xorshift(&seed) % 8);
      ivs[i].dram_reqs = ivs[i].l1_miss_reqs * 0.5;
    }
    p = profile_of(ivs, n);
    in = input(trial % 2 ? GP_POLICY_GTO : GP_POLICY_RR, (double)(1 + xorshift(&seed) % 48));
    in.issue_rate = trial % 3 ? 1 : 2;
    in.model_mshr = in.model_dram = 1;
    in.mshrs = 16, in.avg_miss_latency = 300, in.cores = 16, in.dram_service_cycles = 2;
    gp_multiwarp(&p, &in, &a);
    bad += a.cpi < 1.0 / in.issue_rate - 1e-12;
    in.mshrs = 64;
    gp_multiwarp(&p, &in, &b);
    bad += b.cycles > a.cycles + 1e-9;
    in.mshrs = 16, in.dram_service_cycles = 1;
    gp_multiwarp(&p, &in, &b);
    bad += b.cycles > a.cycles + 1e-9;
  }
  CHECK_EQ_INT(bad, 0);
}

static void test_kmeans(void) {
  gp_alloc a = gp_alloc_default();
  double pts[11 * 2];
  uint32_t assign[11];
  int i;
  /* 8 warps near (1, 10), 3 outliers near (4, 40); raw features */
  for (i = 0; i < 8; i++)
    pts[2 * i] = 1.0 + 0.01 * i, pts[2 * i + 1] = 10.0 + 0.1 * i;
  for (i = 8; i < 11; i++)
    pts[2 * i] = 4.0, pts[2 * i + 1] = 40.0 + i;
  {
    int64_t r = gp_kmeans_representative(pts, 11, 2, 2, 1, &a, assign);
    CHECK(r >= 0 && r < 8);
    CHECK(assign[0] == assign[7] && assign[0] != assign[9]);
    /* the mean of the 8 is (1.035, 10.35): warp 3 or 4 is nearest */
    CHECK(r == 3 || r == 4);
    CHECK_EQ_INT(gp_kmeans_representative(pts, 11, 2, 2, 1, &a, NULL), r); /* deterministic */
    CHECK_EQ_INT(gp_kmeans_representative(pts, 11, 2, 2, 77, &a, NULL), r); /* seed-robust here */
  }
  /* all identical: every D^2 = 0, no division by zero, the first warp */
  for (i = 0; i < 22; i++)
    pts[i] = 2.0;
  CHECK_EQ_INT(gp_kmeans_representative(pts, 11, 2, 2, 1, &a, NULL), 0);
  /* fewer warps than clusters, and one warp */
  CHECK_EQ_INT(gp_kmeans_representative(pts, 1, 2, 2, 1, &a, NULL), 0);
  CHECK_EQ_INT(gp_kmeans_representative(pts, 0, 2, 2, 1, &a, NULL), -1);
}

int main(void) {
  RUN(test_interval_algorithm);
  RUN(test_figure2);
  RUN(test_figure8);
  RUN(test_mshr_queueing);
  RUN(test_dram_queueing);
  RUN(test_invariants);
  RUN(test_kmeans);
  return gp_test_finish();
}
