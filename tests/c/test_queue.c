/* MSHR queueing (GPUMech Eq. 18-20) and DRAM M/D/1 queueing (Eq. 21-23) by
 * hand: Fig. 9, Eq. 19's closed form against its sum, Eq. 21's two caps,
 * Eq. 22's service time from Table I, and monotonicity over seeded inputs. */
#include "gp_test.h"
#include "gpumech/queue.h"

#include <math.h>

/* Eq. 19 as written: the mean over j of lat x ceil(j / m), minus lat. */
static double eq19_sum(int n, int m, double lat) {
  double s = 0;
  int j;
  for (j = 1; j <= n; j++)
    s += lat * ceil((double)j / m);
  return s / n - lat;
}

/* Fig. 9: 4 warps, one load each issuing 2 L1-missing requests, 6 MSHRs:
 * 8 requests; requests 1-6 take one round, 7-8 two: (6 + 4) / 8 - 1 =
 * 0.25 x avg_miss_latency per memory instruction. */
static void test_figure9(void) {
  double reqs = gp_q_core_reqs(2, 4);
  CHECK_NEAR(reqs, 8, 0);
  CHECK_NEAR(gp_q_mshr_exp_delay_cycles(reqs, 6, 400), 100, 1e-12);
  CHECK_NEAR(gp_q_mshr_delay_cycles(reqs, 6, 400, 1), 100, 1e-12);
  /* Eq. 20: two memory instructions in the interval wait twice */
  CHECK_NEAR(gp_q_mshr_delay_cycles(reqs, 6, 400, 2), 200, 1e-12);
  /* Eq. 20's threshold: 6 requests on 6 MSHRs wait nothing */
  CHECK_NEAR(gp_q_mshr_delay_cycles(6, 6, 400, 1), 0, 0);
  CHECK_NEAR(gp_q_mshr_delay_cycles(8, 6, 400, 0), 0, 0);
}

/* Other cases by hand and the closed form against the sum. */
static void test_eq19(void) {
  int n, m, bad = 0;
  /* 10 requests, 4 MSHRs: rounds 1,1,1,1,2,2,2,2,3,3 -> 18/10 - 1 = 0.8 */
  CHECK_NEAR(gp_q_mshr_exp_delay_cycles(10, 4, 100), 80, 1e-12);
  /* 32 requests, 32 MSHRs: no wait; 64 on 32: (32 + 64)/64 - 1 = 0.5 */
  CHECK_NEAR(gp_q_mshr_exp_delay_cycles(32, 32, 300), 0, 0);
  CHECK_NEAR(gp_q_mshr_exp_delay_cycles(64, 32, 300), 150, 1e-12);
  /* one MSHR: mean of 1..n is (n + 1)/2, so (n - 1)/2 rounds of waiting */
  CHECK_NEAR(gp_q_mshr_exp_delay_cycles(5, 1, 10), 20, 1e-12);
  for (n = 1; n <= 200; n++)
    for (m = 1; m <= 40; m++)
      bad += fabs(gp_q_mshr_exp_delay_cycles(n, m, 7) - eq19_sum(n, m, 7)) > 1e-9;
  CHECK_EQ_INT(bad, 0);
  /* a fractional expectation interpolates: 8.5 requests on 6 MSHRs lies
   * between 8 (0.25) and 9 (3/9 = 0.333...) */
  CHECK_NEAR(gp_q_mshr_exp_delay_cycles(8.5, 6, 1), 0.5 * 0.25 + 0.5 * (1.0 / 3.0), 1e-12);
  /* a fractional MSHR count is floored, and 0 MSHRs count as 1 */
  CHECK_NEAR(gp_q_mshr_exp_delay_cycles(10, 4.9, 100), 80, 1e-12);
  CHECK_NEAR(gp_q_mshr_exp_delay_cycles(5, 0, 10), 20, 1e-12);
  CHECK_NEAR(gp_q_mshr_exp_delay_cycles(0, 4, 10), 0, 0);
}

/* Eq. 21-23 by hand. */
static void test_dram(void) {
  gp_q_dram q;
  /* 4 requests per SM, 2 SMs, an interval of 100 cycles, s = 10:
   * lambda = 8 / 100, rho = 0.8, M/D/1 = 0.08 x 100 / (2 x 0.2) = 20,
   * cap = 10 x 8 / 2 = 40: the delay is 20 */
  gp_q_dram_delay(4, 2, 100, 10, &q);
  CHECK_NEAR(q.outstanding_reqs, 8, 0);
  CHECK_NEAR(q.lambda_per_cycle, 0.08, 1e-15);
  CHECK_NEAR(q.rho, 0.8, 1e-15);
  CHECK_NEAR(q.md1_cycles, 20, 1e-12);
  CHECK_NEAR(q.cap_cycles, 40, 0);
  CHECK_NEAR(q.delay_cycles, 20, 1e-12);
  CHECK(!q.rho_capped && !q.delay_capped);
  /* 10 per SM: rho = 2 >= 1 is capped at 0.999 (0.2 x 100 / 0.002 =
   * 10000) and Eq. 21's cap, 10 x 20 / 2 = 100, wins */
  gp_q_dram_delay(10, 2, 100, 10, &q);
  CHECK_NEAR(q.rho, 2, 1e-15);
  CHECK(q.rho_capped);
  CHECK_NEAR(q.md1_cycles, 0.2 * 100 / (2 * (1 - GP_Q_RHO_MAX)), 1e-6);
  CHECK_NEAR(q.delay_cycles, 100, 0);
  CHECK(q.delay_capped);
  /* rho below 1 but the cap still smaller: 1 request, s = 10, 11 cycles:
   * rho = 10/11, M/D/1 = (1/11) 100 / (2/11) = 50, cap = 5 */
  gp_q_dram_delay(1, 1, 11, 10, &q);
  CHECK_NEAR(q.md1_cycles, 50, 1e-9);
  CHECK_NEAR(q.delay_cycles, 5, 0);
  CHECK(q.delay_capped && !q.rho_capped);
  /* nothing outstanding, or no interval: no delay */
  gp_q_dram_delay(0, 16, 100, 10, &q);
  CHECK_NEAR(q.delay_cycles, 0, 0);
  gp_q_dram_delay(5, 16, 0, 10, &q);
  CHECK_NEAR(q.delay_cycles, 0, 0);
}

/* Eq. 22's s from Table I: 128 B lines, 192 GB/s at 1.0 GHz = 192 B per
 * core cycle: s = 2/3 cycle. */
static void test_service_time(void) {
  double bpc = gp_q_bytes_per_cycle(192e9, 1e9);
  CHECK_NEAR(bpc, 192, 1e-12);
  CHECK_NEAR(gp_q_dram_service_cycles(128, bpc), 2.0 / 3.0, 1e-15);
  CHECK_NEAR(gp_q_dram_service_cycles(128, 0), 0, 0);
  /* textbook waits: rho = 0.5, s = 4: M/D/1 0.5 x 4 / 1 = 2, M/M/1 4 */
  CHECK_NEAR(gp_q_md1_wait_cycles(0.125, 4), 2, 1e-12);
  CHECK_NEAR(gp_q_mm1_wait_cycles(0.125, 4), 4, 1e-12);
  CHECK_NEAR(gp_q_md1_wait_cycles(0, 4), 0, 0);
}

/* Over seeded random inputs: more MSHRs never wait longer, more bandwidth
 * (smaller s) never waits longer, and every delay is finite and >= 0. */
static void test_monotone(void) {
  uint64_t s = 99;
  int i, bad = 0;
  for (i = 0; i < 20000; i++) {
    double reqs, m, lat, sv, cyc, sms;
    gp_q_dram a, b;
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    reqs = (double)((s >> 33) % 4000) / 10.0;
    m = (double)(1 + (s >> 20) % 64);
    lat = (double)(1 + (s >> 40) % 600);
    sv = (double)(1 + (s >> 12) % 100) / 20.0;
    cyc = (double)(1 + (s >> 50) % 2000);
    sms = (double)(1 + (s >> 5) % 16);
    bad += gp_q_mshr_exp_delay_cycles(reqs, m + 1, lat) >
           gp_q_mshr_exp_delay_cycles(reqs, m, lat) + 1e-9;
    bad += gp_q_mshr_exp_delay_cycles(reqs, m, lat) < 0;
    gp_q_dram_delay(reqs, sms, cyc, sv, &a);
    gp_q_dram_delay(reqs, sms, cyc, sv * 0.8, &b);
    bad += b.delay_cycles > a.delay_cycles + 1e-9;
    bad += !(a.delay_cycles >= 0 && isfinite(a.delay_cycles));
  }
  CHECK_EQ_INT(bad, 0);
}

/* The M/D/c wait of gpush's equations: M/D/1 exactly at one server (u =
 * 0.5, s = 2: rho s / (2 (1 - rho)) = 1), Sakasegawa's approximation above
 * (c = 2, u = 0.5, s = 1: 0.5^(sqrt 6 - 1) / 2), no wait when idle, an
 * unbounded one at u >= 1, fewer waits with more servers at the same
 * utilisation and more waits at higher utilisation. */
static void test_mdc(void) {
  int c;
  double u;
  CHECK_NEAR(gp_q_mdc_wait_cycles(0.5, 1, 2), 1, 1e-15);
  CHECK_NEAR(gp_q_mdc_wait_cycles(0.5, 1, 2), gp_q_md1_wait_cycles(0.25, 2), 1e-15);
  CHECK_NEAR(gp_q_mdc_wait_cycles(0.5, 2, 1), pow(0.5, sqrt(6.0) - 1) / 2, 1e-15);
  CHECK_NEAR(gp_q_mdc_wait_cycles(0.5, 2.7, 1), gp_q_mdc_wait_cycles(0.5, 2, 1), 0); /* floored */
  CHECK_NEAR(gp_q_mdc_wait_cycles(0, 4, 10), 0, 0);
  CHECK_NEAR(gp_q_mdc_wait_cycles(0.5, 4, 0), 0, 0);
  CHECK(gp_q_mdc_wait_cycles(1, 4, 10) == HUGE_VAL);
  for (c = 1; c < 64; c *= 2)
    for (u = 0.05; u < 0.99; u += 0.05) {
      CHECK(gp_q_mdc_wait_cycles(u, 2 * c, 1) <= gp_q_mdc_wait_cycles(u, c, 1));
      CHECK(gp_q_mdc_wait_cycles(u + 0.01, c, 1) > gp_q_mdc_wait_cycles(u, c, 1));
    }
}

/* The M/D/c queue set up once (gp_q_mdc, the wave solve's) against
 * Sakasegawa's formula written out, bit for bit, over 1 to 200 servers
 * (fractional ones floored, fewer than one taken as one), utilisations
 * from 0 to past 1 and three service times. */
static void test_mdc_set_up_once(void) {
  static const double servers[] = {0.3, 1, 1.9, 2, 3, 6.5, 7, 16, 32, 200};
  static const double services[] = {0, 0.7, 420};
  size_t i, j;
  int bad = 0;
  for (i = 0; i < sizeof servers / sizeof servers[0]; i++) {
    gp_q_mdc q;
    double c = floor(servers[i]) < 1 ? 1 : floor(servers[i]);
    gp_q_mdc_init(&q, servers[i]);
    for (j = 0; j < sizeof services / sizeof services[0]; j++) {
      double s = services[j], u;
      for (u = -0.01; u < 1.02; u += 0.0137) {
        double want = !(u > 0) || !(s > 0) ? 0
                      : u >= 1             ? HUGE_VAL
                      : c == 1             ? s * u / (2 * (1 - u))
                                           : s * pow(u, sqrt(2 * (c + 1)) - 1) / (2 * c * (1 - u));
        double got = gp_q_mdc_wait(&q, u, s), again = gp_q_mdc_wait_cycles(u, servers[i], s);
        bad += memcmp(&got, &want, sizeof got) != 0 || memcmp(&again, &want, sizeof got) != 0;
      }
    }
  }
  CHECK_EQ_INT(bad, 0);
}

int main(void) {
  RUN(test_figure9);
  RUN(test_eq19);
  RUN(test_dram);
  RUN(test_service_time);
  RUN(test_monotone);
  RUN(test_mdc);
  RUN(test_mdc_set_up_once);
  return gp_test_finish();
}
