/* Interval algorithm (GPUMech Eq. 4) by hand: dependent chains take N x L
 * cycles, independent instructions issue back to back, Fig. 2's warp,
 * several sources, initiation intervals, fractional issue rates, the ring
 * against the full issue array, totals-only runs, per-cause sums, and
 * Sec. V-B's AMAT example. */
#include "gp_test.h"
#include "gpumech/interval.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

static gp_alloc A;

static gp_iv_input base_input(size_t n, const double *lat) {
  gp_iv_input in;
  memset(&in, 0, sizeof in);
  in.count = n;
  in.latency = lat;
  in.issue_cycles = 1;
  in.ncause = 1;
  return in;
}

/* A chain of N dependent instructions of latency L: issues 0, L, 2L, ...,
 * N intervals each ending in L - 1 stall cycles (the last one the drain),
 * N x L cycles in all. */
static void test_chain(void) {
  uint16_t dep[5] = {0, 1, 1, 1, 1};
  double lat[5] = {4, 4, 4, 4, 4}, issue[5];
  gp_iv_input in = base_input(5, lat);
  gp_iv_profile p;
  gp_error err;
  size_t i;
  in.dep[0] = dep;
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_run(&p, &in, issue, &err) == GP_OK);
  for (i = 0; i < 5; i++)
    CHECK_NEAR(issue[i], 4.0 * (double)i, 0);
  CHECK_EQ_INT(p.count, 5);
  CHECK_EQ_INT(p.insts, 5);
  CHECK_NEAR(p.total_cycles, 20, 0);
  CHECK_NEAR(p.stall_cycles, 15, 0);
  CHECK_EQ_INT(p.stall_events, 5);
  for (i = 0; i < 5; i++) {
    CHECK_EQ_INT(p.iv[i].insts, 1);
    CHECK_EQ_INT(p.iv[i].first, i);
    CHECK_NEAR(p.iv[i].stall_cycles, 3, 0);
    CHECK_EQ_INT(p.iv[i].cause, 0);
  }
  CHECK_NEAR(gp_iv_warp_perf(&p), 5.0 / 20.0, 1e-15);
  /* the same chain at one issue every 2 cycles: issue slots of 2, a
   * dependent still issues L = 4 after its producer: 2 stall cycles each */
  in.issue_cycles = 2;
  CHECK(gp_iv_run(&p, &in, issue, &err) == GP_OK);
  CHECK_NEAR(issue[4], 16, 0);
  CHECK_NEAR(p.stall_cycles, 10, 0);
  CHECK_NEAR(p.total_cycles, 20, 0);
  /* N x L for other N and L */
  {
    uint16_t d2[9] = {0, 1, 1, 1, 1, 1, 1, 1, 1};
    double l2[9] = {25, 25, 25, 25, 25, 25, 25, 25, 25};
    gp_iv_input in2 = base_input(9, l2);
    in2.dep[1] = d2; /* any source slot */
    CHECK(gp_iv_run(&p, &in2, NULL, &err) == GP_OK);
    CHECK_NEAR(p.total_cycles, 9 * 25, 0);
  }
  gp_iv_profile_free(&p);
}

/* Independent instructions issue back to back in one interval; the warp
 * ends when the last result is ready: n + L - 1 cycles. */
static void test_independent(void) {
  double lat[6] = {7, 7, 7, 7, 7, 7}, issue[6];
  gp_iv_input in = base_input(6, lat);
  gp_iv_profile p;
  gp_error err;
  size_t i;
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_run(&p, &in, issue, &err) == GP_OK);
  for (i = 0; i < 6; i++)
    CHECK_NEAR(issue[i], (double)i, 0);
  CHECK_EQ_INT(p.count, 1);
  CHECK_EQ_INT(p.iv[0].insts, 6);
  CHECK_NEAR(p.iv[0].stall_cycles, 6, 0);
  CHECK_NEAR(p.total_cycles, 12, 0);
  /* latency 1: no stall at all, cause -1 */
  for (i = 0; i < 6; i++)
    lat[i] = 1;
  CHECK(gp_iv_run(&p, &in, NULL, &err) == GP_OK);
  CHECK_EQ_INT(p.count, 1);
  CHECK_NEAR(p.stall_cycles, 0, 0);
  CHECK_EQ_INT(p.iv[0].cause, -1);
  CHECK_NEAR(p.total_cycles, 6, 0);
  /* an empty warp */
  in.count = 0;
  CHECK(gp_iv_run(&p, &in, NULL, &err) == GP_OK);
  CHECK_EQ_INT(p.count, 0);
  CHECK_NEAR(gp_iv_warp_perf(&p), 0, 0);
  gp_iv_profile_free(&p);
}

/* Fig. 2's warp: interval 1 = 1 instruction + 10 stall cycles, interval 2 =
 * 4 instructions + 10 stall cycles, through per-PC arrays: PC 0 a load of
 * latency 11 (cause 1 = memory PC 0), PC 1 an add of latency 1, PC 2 a
 * load of latency 11 at the end (the drain). */
static void test_figure2_warp(void) {
  uint32_t pc[5] = {0, 1, 1, 1, 2};
  uint16_t dep[5] = {0, 1, 0, 0, 0};
  double lat[3] = {11, 1, 11}, mem[3] = {1, 0, 1}, l1[3] = {2, 0, 1}, dr[3] = {2, 0, 0.5};
  int32_t cause[3] = {1, 0, 2};
  gp_iv_input in = base_input(5, lat);
  gp_iv_profile p;
  gp_error err;
  in.pc = pc;
  in.dep[0] = dep;
  in.cause = cause;
  in.ncause = 3;
  in.mem_insts = mem, in.l1_miss_reqs = l1, in.dram_reqs = dr;
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_run(&p, &in, NULL, &err) == GP_OK);
  CHECK_EQ_INT(p.count, 2);
  CHECK_EQ_INT(p.iv[0].insts, 1);
  CHECK_NEAR(p.iv[0].stall_cycles, 10, 0);
  CHECK_EQ_INT(p.iv[0].cause, 1);
  CHECK_EQ_INT(p.iv[1].insts, 4);
  CHECK_NEAR(p.iv[1].stall_cycles, 10, 0);
  CHECK_EQ_INT(p.iv[1].cause, 2);
  CHECK_NEAR(p.iv[0].mem_insts, 1, 0);
  CHECK_NEAR(p.iv[1].l1_miss_reqs, 1, 0);
  CHECK_NEAR(p.iv[1].dram_reqs, 0.5, 0);
  CHECK_NEAR(p.dram_reqs, 2.5, 0);
  CHECK_NEAR(p.total_cycles, 25, 0);
  CHECK_NEAR(p.cause_stall[0], 0, 0);
  CHECK_NEAR(p.cause_stall[1], 10, 0);
  CHECK_NEAR(p.cause_stall[2], 10, 0);
  CHECK_NEAR(gp_iv_warp_perf(&p), 5.0 / 25.0, 1e-15);
  /* totals only: same totals, no stored intervals */
  in.totals_only = 1;
  CHECK(gp_iv_run(&p, &in, NULL, &err) == GP_OK);
  CHECK_EQ_INT(p.count, 2);
  CHECK_NEAR(p.total_cycles, 25, 0);
  CHECK_NEAR(p.dram_reqs, 2.5, 0);
  CHECK_NEAR(p.cause_stall[2], 10, 0);
  /* a cause id out of range is an error, not a write out of bounds */
  cause[1] = 3;
  CHECK(gp_iv_run(&p, &in, NULL, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "cause id 3");
  gp_iv_profile_free(&p);
}

/* Several sources: the later-ready producer sets the issue cycle and names
 * the cause; an initiation interval delays the next issue. */
static void test_sources_and_ii(void) {
  /* i0: load (lat 30, cause 1); i1: add (lat 4); i2 needs i0 (dist 2) and
   * i1 (dist 1): ready max(30, 1 + 4) = 30, stall 28 caused by the load */
  uint16_t d0[3] = {0, 0, 1}, d1[3] = {0, 0, 2};
  double lat[3] = {30, 4, 1}, ii[3] = {1, 1, 1}, issue[3];
  int32_t cause[3] = {1, 0, 0};
  gp_iv_input in = base_input(3, lat);
  gp_iv_profile p;
  gp_error err;
  in.dep[0] = d0, in.dep[2] = d1;
  in.cause = cause, in.ncause = 2;
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_run(&p, &in, issue, &err) == GP_OK);
  CHECK_NEAR(issue[2], 30, 0);
  CHECK_EQ_INT(p.count, 2);
  CHECK_NEAR(p.iv[0].stall_cycles, 28, 0);
  CHECK_EQ_INT(p.iv[0].cause, 1);
  CHECK_NEAR(p.cause_stall[1], 28, 0);
  CHECK_NEAR(p.total_cycles, 31, 0);
  /* the add's producer is now slower: the add's own producer wins */
  lat[1] = 40;
  CHECK(gp_iv_run(&p, &in, issue, &err) == GP_OK);
  CHECK_NEAR(issue[2], 41, 0);
  CHECK_EQ_INT(p.iv[0].cause, 0);
  /* no dependences, but i0 holds the warp's issue for 4 cycles */
  in.dep[0] = in.dep[2] = NULL;
  lat[0] = lat[1] = lat[2] = 1;
  ii[0] = 4;
  in.ii = ii;
  CHECK(gp_iv_run(&p, &in, issue, &err) == GP_OK);
  CHECK_NEAR(issue[1], 4, 0);
  CHECK_NEAR(issue[2], 5, 0);
  CHECK_NEAR(p.iv[0].stall_cycles, 3, 0);
  CHECK_EQ_INT(p.iv[0].cause, 1);
  /* a distance reaching before the first instruction is ignored */
  {
    uint16_t far[3] = {5, 9, 3};
    in.ii = NULL;
    in.dep[0] = far;
    CHECK(gp_iv_run(&p, &in, issue, &err) == GP_OK);
    CHECK_NEAR(issue[2], 2, 0);
  }
  gp_iv_profile_free(&p);
}

static uint64_t rng_state = 12345;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* A long random warp (longer than the 65536-entry ring, with distances up
 * to 65535): the ring gives the same profile as the full issue array, and a
 * straightforward O(n x sources) reference gives the same issue cycles. */
static void test_ring_matches_reference(void) {
  size_t n = 200000, k, npc = 64;
  uint32_t *pc = malloc(n * sizeof *pc);
  uint16_t *d0 = malloc(n * sizeof *d0), *d1 = malloc(n * sizeof *d1);
  double *issue = malloc(n * sizeof *issue), lat[64], ref_prev = 0, ref_done = 0;
  double *ref = malloc(n * sizeof *ref);
  int32_t cause[64];
  gp_iv_input in;
  gp_iv_profile p, q;
  gp_error err;
  double total_a, stall_sum = 0;
  size_t c;
  for (k = 0; k < npc; k++) {
    lat[k] = (double)(1 + rnd() % 40);
    cause[k] = (int32_t)(k % 5);
  }
  for (k = 0; k < n; k++) {
    pc[k] = (uint32_t)(rnd() % npc);
    d0[k] = (uint16_t)(rnd() % 4 == 0 ? 0 : 1 + rnd() % 8);
    d1[k] = (uint16_t)(rnd() % 50 == 0 ? 60000 + rnd() % 5536 : rnd() % 3);
  }
  /* reference */
  for (k = 0; k < n; k++) {
    double t = k ? ref_prev + 1 : 0;
    if (d0[k] && d0[k] <= k && ref[k - d0[k]] + lat[pc[k - d0[k]]] > t)
      t = ref[k - d0[k]] + lat[pc[k - d0[k]]];
    if (d1[k] && d1[k] <= k && ref[k - d1[k]] + lat[pc[k - d1[k]]] > t)
      t = ref[k - d1[k]] + lat[pc[k - d1[k]]];
    ref[k] = t;
    ref_prev = t;
    if (t + lat[pc[k]] > ref_done)
      ref_done = t + lat[pc[k]];
  }
  in = base_input(n, lat);
  in.pc = pc, in.dep[0] = d0, in.dep[1] = d1, in.cause = cause, in.ncause = 5;
  gp_iv_profile_init(&p, &A);
  gp_iv_profile_init(&q, &A);
  CHECK(gp_iv_run(&p, &in, issue, &err) == GP_OK);
  CHECK(gp_iv_run(&q, &in, NULL, &err) == GP_OK);
  {
    size_t bad = 0;
    for (k = 0; k < n; k++)
      bad += issue[k] != ref[k];
    CHECK_EQ_INT(bad, 0);
  }
  total_a = p.total_cycles;
  CHECK_NEAR(total_a, ref_done, 0);
  CHECK_NEAR(q.total_cycles, total_a, 0);
  CHECK_EQ_INT(q.count, p.count);
  for (c = 0; c < 5; c++) {
    CHECK_NEAR(q.cause_stall[c], p.cause_stall[c], 0);
    stall_sum += p.cause_stall[c];
  }
  CHECK_NEAR(stall_sum, p.stall_cycles, 1e-6);
  {
    uint64_t sum_insts = 0;
    for (k = 0; k < p.count; k++)
      sum_insts += p.iv[k].insts;
    CHECK_EQ_INT(sum_insts, n);
  }
  /* per-instruction mode (no pc array) gives the same profile */
  {
    double *lat_i = malloc(n * sizeof *lat_i);
    int32_t *cause_i = malloc(n * sizeof *cause_i);
    for (k = 0; k < n; k++)
      lat_i[k] = lat[pc[k]], cause_i[k] = cause[pc[k]];
    in.pc = NULL, in.latency = lat_i, in.cause = cause_i;
    CHECK(gp_iv_run(&q, &in, NULL, &err) == GP_OK);
    CHECK_NEAR(q.total_cycles, total_a, 0);
    CHECK_NEAR(q.cause_stall[3], p.cause_stall[3], 0);
    free(lat_i);
    free(cause_i);
  }
  gp_iv_profile_free(&p);
  gp_iv_profile_free(&q);
  free(pc), free(d0), free(d1), free(issue), free(ref);
}

/* Random per-PC facts for the total-cycles tests, drawn in one order so
 * each test's seeded sequence is what it was: fractional latencies, some
 * initiation intervals, timed units with busy cycles, an inactive-lane
 * latency on a third. */
static void random_pcs(size_t npc, double *lat, double *ii, double *busy, double *inact,
                       int8_t *unit, int32_t *cause) {
  size_t k;
  for (k = 0; k < npc; k++) {
    lat[k] = (double)(1 + rnd() % 30) + (rnd() % 3) * 0.25;
    ii[k] = rnd() % 4 == 0 ? 1.5 + (double)(rnd() % 3) : 0;
    busy[k] = 0.6667 * (double)(1 + rnd() % 4);
    inact[k] = rnd() % 3 == 0 ? 1 : -1;
    unit[k] = (int8_t)(rnd() % 4 == 0 ? -1 : (int)(rnd() % GP_IV_UNITS));
    cause[k] = (int32_t)k;
  }
}

/* The lean pass over every warp (gp_iv_total_cycles) against gp_iv_run's
 * totals, bit for bit, on 300 random warps: fractional latencies, packed
 * and unpacked producers, initiation intervals, timed units with their
 * busy cycles, empty masks with their own latency. */
static void test_total_cycles_match_the_run(void) {
  size_t npc = 24, w, k, bad = 0;
  double lat[24], ii[24], busy[24], inact[24], total = 0;
  gp_iv_pc table[24];
  int8_t unit[24];
  int32_t cause[24];
  gp_iv_profile p, q;
  gp_error err;
  gp_iv_profile_init(&p, &A);
  gp_iv_profile_init(&q, &A);
  random_pcs(npc, lat, ii, busy, inact, unit, cause);
  for (w = 0; w < 300; w++) {
    size_t n = 1 + rnd() % 3000;
    uint32_t *pc = malloc(n * sizeof *pc);
    uint16_t *deps = malloc(n * 4 * sizeof *deps);
    uint8_t *active = malloc(n);
    gp_iv_input in = base_input(n, lat);
    int packed = (int)(w % 2);
    for (k = 0; k < n; k++) {
      size_t j, m = rnd() % 5;
      pc[k] = (uint32_t)(rnd() % npc);
      active[k] = (uint8_t)(rnd() % 10 == 0 ? 0 : 32);
      for (j = 0; j < 4; j++)
        deps[k * 4 + j] = (uint16_t)(j < m || !packed ? (packed || rnd() % 2 ? 1 + rnd() % 40 : 0) : 0);
    }
    in.pc = pc, in.cause = cause, in.ncause = npc, in.dep_stride = 4, in.deps_packed = packed;
    in.dep[0] = deps, in.dep[1] = deps + 1, in.dep[2] = deps + 2, in.dep[3] = deps + 3;
    in.totals_only = 1;
    if (w % 3 != 0)
      in.ii = ii;
    if (w % 4 != 0)
      in.unit = unit, in.unit_busy = busy, in.unit_timing = (int)(w % 2 == 1 || w % 5 == 0);
    if (w % 5 != 1)
      in.active = active, in.inactive_latency = inact;
    CHECK(gp_iv_run(&p, &in, NULL, &err) == GP_OK);
    CHECK(gp_iv_pc_table(&in, npc, table, &err) == GP_OK);
    CHECK(gp_iv_total_cycles(&q, &in, table, &total, &err) == GP_OK);
    bad += total != p.total_cycles;
    free(pc), free(deps), free(active);
  }
  CHECK_EQ_INT(bad, 0);
  gp_iv_profile_free(&p);
  gp_iv_profile_free(&q);
}

/* gp_iv_total_cycles_pair against gp_iv_run's totals, bit for bit, on 200
 * random pairs of warps sharing their per-PC arrays: lengths equal and not
 * (either longer, and one empty), a kernel's layout (paired steps) and
 * unpacked producers (one after the other), unit timing on and off. */
static void test_total_cycles_pair(void) {
  size_t npc = 16, t, k, bad = 0;
  double lat[16], ii[16], busy[16], inact[16], totals[2];
  gp_iv_pc table[16];
  int8_t unit[16];
  int32_t cause[16];
  gp_iv_profile run, p, q;
  gp_error err;
  gp_iv_profile_init(&run, &A);
  gp_iv_profile_init(&p, &A);
  gp_iv_profile_init(&q, &A);
  random_pcs(npc, lat, ii, busy, inact, unit, cause);
  for (t = 0; t < 200; t++) {
    gp_iv_input in[2];
    uint32_t *pc[2];
    uint16_t *deps[2];
    uint8_t *active[2];
    int packed = t % 5 != 0, x;
    for (x = 0; x < 2; x++) {
      size_t n = t % 17 == 3 && x == 1 ? 0 : 1 + rnd() % 2000;
      pc[x] = malloc((n + 1) * sizeof *pc[x]);
      deps[x] = malloc((n + 1) * 4 * sizeof *deps[x]);
      active[x] = malloc(n + 1);
      for (k = 0; k < n; k++) {
        size_t j, m = rnd() % 5;
        pc[x][k] = (uint32_t)(rnd() % npc);
        active[x][k] = (uint8_t)(rnd() % 10 == 0 ? 0 : 32);
        for (j = 0; j < 4; j++)
          deps[x][k * 4 + j] =
              (uint16_t)(j < m || !packed ? (packed || rnd() % 2 ? 1 + rnd() % 40 : 0) : 0);
      }
      in[x] = base_input(n, lat);
      in[x].pc = pc[x], in[x].cause = cause, in[x].ncause = npc, in[x].dep_stride = 4;
      in[x].deps_packed = packed, in[x].totals_only = 1, in[x].ii = ii;
      in[x].dep[0] = deps[x], in[x].dep[1] = deps[x] + 1, in[x].dep[2] = deps[x] + 2;
      in[x].dep[3] = deps[x] + 3;
      in[x].unit = unit, in[x].unit_busy = busy, in[x].unit_timing = (int)(t % 2);
      in[x].active = active[x], in[x].inactive_latency = inact;
    }
    CHECK(gp_iv_pc_table(&in[0], npc, table, &err) == GP_OK);
    CHECK(gp_iv_total_cycles_pair(&p, &q, &in[0], &in[1], table, &totals[0], &totals[1], &err) == GP_OK);
    for (x = 0; x < 2; x++) {
      CHECK(gp_iv_run(&run, &in[x], NULL, &err) == GP_OK);
      bad += totals[x] != (in[x].count ? run.total_cycles : 0);
      free(pc[x]), free(deps[x]), free(active[x]);
    }
  }
  CHECK_EQ_INT(bad, 0);
  gp_iv_profile_free(&run);
  gp_iv_profile_free(&p);
  gp_iv_profile_free(&q);
}

/* Profiles given by hand, and bad inputs. */
static void test_profile_set(void) {
  gp_iv_interval iv[2];
  gp_iv_profile p;
  gp_error err;
  double lat[1] = {1};
  gp_iv_input in = base_input(1, lat);
  memset(iv, 0, sizeof iv);
  iv[0].insts = 3, iv[0].stall_cycles = 6, iv[0].cause = 1;
  iv[1].insts = 2, iv[1].stall_cycles = 0, iv[1].cause = -1;
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_profile_set(&p, iv, 2, 2, 1, &err) == GP_OK);
  CHECK_EQ_INT(p.insts, 5);
  CHECK_NEAR(p.total_cycles, 11, 0);
  CHECK_EQ_INT(p.stall_events, 1);
  CHECK_NEAR(p.cause_stall[1], 6, 0);
  iv[1].stall_cycles = 2; /* a stall needs a cause */
  CHECK(gp_iv_profile_set(&p, iv, 2, 2, 1, &err) == GP_ERR);
  in.issue_cycles = 0;
  CHECK(gp_iv_run(&p, &in, NULL, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "issue_cycles");
  gp_iv_profile_free(&p);
}

/* Sec. V-B: 90% L2 hits at 120 cycles, 10% misses at 420: AMAT 150. */
static void test_amat(void) {
  double frac[3] = {0, 0.9, 0.1}, lat[3] = {25, 120, 420};
  CHECK_NEAR(gp_amat_cycles(frac, lat, 3), 150, 1e-12);
}

/* The sums gpush's equations need, by hand.  Per PC: 0 a load (latency
 * 400, 2 L2 requests, 1 L1-missing, the LSU busy 2 cycles; with no active
 * lane 1 cycle), 1 an SFU op (unit 3, 4 cycles), 2 a consumer of the load.
 * Stream: load, sfu, consumer, load (inactive), sfu, consumer.  The first
 * consumer waits for the load: issue 400, so the interval of load + sfu
 * holds 2 L2 requests; the inactive load (401) is done at 402, its consumer
 * issues right after the SFU op (403) and the last interval holds no L2
 * request.  Units: 2 loads x 2 LSU cycles
 * (the inactive one too, as the simulator's LSU), 2 SFU x 4. */
static void test_unit_and_l2_sums(void) {
  uint32_t pc[6] = {0, 1, 2, 0, 1, 2};
  uint16_t dep[6] = {0, 0, 2, 0, 0, 2};
  uint8_t active[6] = {32, 32, 32, 0, 32, 32};
  double lat[3] = {400, 20, 6}, l2[3] = {2, 0, 0}, l1[3] = {1, 0, 0}, busy[3] = {2, 4, 1};
  double inactive_lat[3] = {1, -1, -1}, issue[6];
  int8_t unit[3] = {7, 3, -1};
  gp_iv_input in = base_input(6, lat);
  gp_iv_profile p;
  gp_error err;
  in.pc = pc, in.dep[0] = dep, in.l2_reqs = l2, in.l1_miss_reqs = l1;
  in.unit = unit, in.unit_busy = busy, in.active = active, in.inactive_latency = inactive_lat;
  gp_iv_profile_init(&p, &A);
  CHECK(gp_iv_run(&p, &in, issue, &err) == GP_OK);
  CHECK_NEAR(issue[2], 400, 0);
  CHECK_NEAR(issue[3], 401, 0);
  CHECK_NEAR(issue[5], 403, 0); /* the inactive load is done the next cycle */
  CHECK_EQ_INT(p.count, 2);
  CHECK_NEAR(p.iv[0].l2_reqs, 2, 0);
  CHECK_NEAR(p.iv[0].l1_miss_reqs, 1, 0);
  CHECK_NEAR(p.iv[1].l2_reqs, 0, 0); /* the inactive load sends nothing */
  CHECK_NEAR(p.l2_reqs, 2, 0);
  CHECK_NEAR(p.unit_insts[7], 2, 0);
  CHECK_NEAR(p.unit_busy[7], 4, 0);
  CHECK_NEAR(p.unit_insts[3], 2, 0);
  CHECK_NEAR(p.unit_busy[3], 8, 0);
  /* the unit sums survive a totals-only run; without the active lanes the
   * inactive load takes its PC's 400 cycles again */
  in.totals_only = 1, in.active = NULL;
  CHECK(gp_iv_run(&p, &in, NULL, &err) == GP_OK);
  CHECK_NEAR(p.unit_busy[3], 8, 0);
  CHECK_NEAR(p.total_cycles, 807, 1e-12); /* the last consumer at 401 + 400, done 6 later */
  /* unit_timing: of two SFU ops in a row (busy 4 cycles each, latency 20)
   * the second waits for the unit, issuing at 4 instead of 1 */
  {
    uint32_t two[2] = {1, 1};
    double seq_issue[2];
    gp_iv_input t2 = base_input(2, lat);
    t2.pc = two, t2.unit = unit, t2.unit_busy = busy, t2.unit_timing = 1;
    unit[1] = 3;
    CHECK(gp_iv_run(&p, &t2, seq_issue, &err) == GP_OK);
    CHECK_NEAR(seq_issue[1], 4, 0);             /* busy 4 cycles after the first at 0 */
    CHECK_NEAR(p.stall_cycles, 3 + 19, 1e-12);  /* the unit's 3 cycles, then the drain */
    t2.unit_timing = 0;
    CHECK(gp_iv_run(&p, &t2, seq_issue, &err) == GP_OK);
    CHECK_NEAR(seq_issue[1], 1, 0);
  }
  /* a unit id past GP_IV_UNITS is an error naming the instruction */
  unit[1] = GP_IV_UNITS;
  CHECK(gp_iv_run(&p, &in, NULL, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "instruction 1 has unit id 8");
  gp_iv_profile_free(&p);
}

/* A kernel's producers as the glue passes them (GP_DEPS interleaved
 * slots): MUFU R1; FADD R2; FFMA R3, R1, R2 at latencies 20, 4, 4 issue at
 * 0, 1 and 20 (the MUFU's result, not the FADD's at 5): 24 cycles. */
static void test_kernel_producers(void) {
  static const char text[] =
      "-kernel name = p\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n"
      "0000 ffffffff 1 R1 MUFU.RCP 1 R0 0\n"
      "0010 ffffffff 1 R2 FADD 1 R0 0\n"
      "0020 ffffffff 1 R3 FFMA 3 R1 R2 R2 0\n"
      "#END_TB\n";
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  gp_iv_input in;
  gp_iv_profile p;
  double lat[3] = {20, 4, 4}, issue[3];
  int j;
  CHECK(gp_kernel_parse_buffer(&k, &a, text, strlen(text), "p.traceg", &err) == GP_OK);
  if (k == NULL)
    return;
  memset(&in, 0, sizeof in);
  in.count = k->insts;
  in.pc = k->pc_index;
  for (j = 0; j < GP_DEPS; j++)
    in.dep[j] = k->deps + j;
  in.dep_stride = GP_DEPS;
  in.deps_packed = 1;
  in.latency = lat;
  in.issue_cycles = 1;
  gp_iv_profile_init(&p, &a);
  CHECK(gp_iv_run(&p, &in, issue, &err) == GP_OK);
  CHECK_NEAR(issue[2], 20, 1e-12);
  CHECK_NEAR(p.total_cycles, 24, 1e-12);
  gp_iv_profile_free(&p);
  gp_kernel_free(k);
}

int main(void) {
  RUN(test_kernel_producers);
  A = gp_alloc_default();
  RUN(test_chain);
  RUN(test_independent);
  RUN(test_figure2_warp);
  RUN(test_sources_and_ii);
  RUN(test_ring_matches_reference);
  RUN(test_total_cycles_match_the_run);
  RUN(test_total_cycles_pair);
  RUN(test_profile_set);
  RUN(test_amat);
  RUN(test_unit_and_l2_sums);
  return gp_test_finish();
}
