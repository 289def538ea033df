/* The Markov-chain throughput model (Chen and Aamodt, HPCA 2009, as
 * described in markov.h) on small chains solved by hand, its single-thread
 * limit, monotonicity, and a seeded simulation of the same process. */
#include "gp_test.h"
#include "gpumech/markov.h"

static gp_alloc A;

/* One thread: IPC = 1 / (1 + p M). */
static void test_single_thread(void) {
  gp_mc_result r;
  gp_error err;
  double pi[2];
  CHECK(gp_mc_solve(1, 0.2, 10, &A, pi, &r, &err) == GP_OK);
  CHECK_NEAR(r.ipc, 1.0 / 3.0, 1e-12);
  CHECK_NEAR(r.cpi, 3.0, 1e-12);
  CHECK_NEAR(pi[1], 2.0 / 3.0, 1e-12);
  CHECK(gp_mc_solve(1, 0.05, 200, &A, NULL, &r, &err) == GP_OK);
  CHECK_NEAR(r.ipc, 1.0 / 11.0, 1e-12);
  /* no stalls: every slot issues */
  CHECK(gp_mc_solve(3, 0, 50, &A, NULL, &r, &err) == GP_OK);
  CHECK_NEAR(r.ipc, 1, 1e-15);
}

/* N = 2, p = 1/2, M = 2 (q = 1/2).  Rows of P:
 *   0 -> 0: 1/2, 1: 1/2
 *   1 -> 0: 1/4, 1: 1/2, 2: 1/4   (wake 1/2 x stall 1/2 combinations)
 *   2 -> 0: 1/4, 1: 1/2, 2: 1/4   (Binomial(2, 1/2), no issue)
 * Balance: pi2 = pi1/4 + pi2/4 -> pi1 = 3 pi2; pi0 = pi0/2 + pi1/4 + pi2/4
 * -> pi0 = 2 pi2; so pi = (1/3, 1/2, 1/6) and IPC = 5/6. */
static void test_two_threads_by_hand(void) {
  gp_mc_result r;
  gp_error err;
  double pi[3];
  CHECK(gp_mc_solve(2, 0.5, 2, &A, pi, &r, &err) == GP_OK);
  CHECK_NEAR(pi[0], 1.0 / 3.0, 1e-12);
  CHECK_NEAR(pi[1], 0.5, 1e-12);
  CHECK_NEAR(pi[2], 1.0 / 6.0, 1e-12);
  CHECK_NEAR(r.ipc, 5.0 / 6.0, 1e-12);
  CHECK_NEAR(r.mean_stalled, 0.5 + 2.0 / 6.0, 1e-12);
  /* p = 1, M = 2: 0 -> 1; 1 -> 1: 1/2, 2: 1/2; 2 -> 0: 1/4, 1: 1/2, 2: 1/4.
   * pi0 = pi2/4, pi1 = 3 pi2 / 2: pi2 = 4/11, IPC = 7/11 */
  CHECK(gp_mc_solve(2, 1, 2, &A, pi, &r, &err) == GP_OK);
  CHECK_NEAR(pi[0], 1.0 / 11.0, 1e-12);
  CHECK_NEAR(pi[2], 4.0 / 11.0, 1e-12);
  CHECK_NEAR(r.ipc, 7.0 / 11.0, 1e-12);
  /* M = 1: every stalled thread wakes the next slot; two threads hide it */
  CHECK(gp_mc_solve(2, 0.7, 1, &A, pi, &r, &err) == GP_OK);
  CHECK_NEAR(r.ipc, 1, 1e-12);
  CHECK_NEAR(pi[2], 0, 1e-12);
  /* M < 1 counts as 1, p outside [0, 1] is clamped */
  CHECK(gp_mc_solve(1, 1.5, 0.5, &A, NULL, &r, &err) == GP_OK);
  CHECK_NEAR(r.stall_slots, 1, 0);
  CHECK_NEAR(r.p_stall, 1, 0);
  CHECK_NEAR(r.ipc, 0.5, 1e-12);
}

/* More threads never lower the throughput; it never exceeds 1 or the
 * N / (1 + p M) ideal overlap. */
static void test_monotone(void) {
  double ps[3] = {0.02, 0.1, 0.4}, ms[3] = {5, 40, 400};
  int i, j, bad = 0;
  size_t n;
  gp_error err;
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      double prev = 0;
      for (n = 1; n <= 48; n++) {
        gp_mc_result r;
        if (gp_mc_solve(n, ps[i], ms[j], &A, NULL, &r, &err) != GP_OK) {
          bad++;
          continue;
        }
        bad += r.ipc < prev - 1e-9;
        bad += r.ipc > 1 + 1e-12;
        bad += r.ipc > (double)n / (1 + ps[i] * ms[j]) + 1e-9;
        prev = r.ipc;
      }
    }
  CHECK_EQ_INT(bad, 0);
}

/* A seeded simulation of the same process: N threads, one issue per slot
 * when some thread is active (it stalls with probability p), each stalled
 * thread wakes with probability 1/M per slot. */
static void test_simulation(void) {
  uint64_t s = 7;
  int stalled[6] = {0}, n = 6, t, i, issued = 0, slots = 400000;
  double p = 0.15, M = 20;
  gp_mc_result r;
  gp_error err;
  for (t = 0; t < slots; t++) {
    int active = -1, woke[6];
    for (i = 0; i < n; i++)
      if (!stalled[i] && active < 0)
        active = i;
    for (i = 0; i < n; i++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      woke[i] = stalled[i] && (double)(s >> 11) / 9007199254740992.0 < 1 / M;
    }
    if (active >= 0) {
      issued++;
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      if ((double)(s >> 11) / 9007199254740992.0 < p)
        stalled[active] = 1;
    }
    for (i = 0; i < n; i++)
      if (woke[i])
        stalled[i] = 0;
  }
  CHECK(gp_mc_solve(6, p, M, &A, NULL, &r, &err) == GP_OK);
  CHECK_NEAR((double)issued / slots, r.ipc, 0.01);
}

/* Inputs from an interval profile: one thread reproduces the warp's own
 * cycles. */
static void test_from_profile(void) {
  double p, M;
  gp_mc_result r;
  gp_error err;
  /* 100 instructions, 4 stalls totalling 300 cycles: p = 0.04, M = 75;
   * CPI = 1 + 3 = 4 = (100 + 300) / 100 */
  gp_mc_params_from_profile(100, 300, 4, 1, &p, &M);
  CHECK_NEAR(p, 0.04, 1e-15);
  CHECK_NEAR(M, 75, 1e-12);
  CHECK(gp_mc_solve(1, p, M, &A, NULL, &r, &err) == GP_OK);
  CHECK_NEAR(r.cpi, 4, 1e-12);
  /* at 2 cycles per issue the stall is 37.5 slots */
  gp_mc_params_from_profile(100, 300, 4, 2, &p, &M);
  CHECK_NEAR(M, 37.5, 1e-12);
  gp_mc_params_from_profile(100, 0, 0, 1, &p, &M);
  CHECK_NEAR(p, 0, 0);
  CHECK_NEAR(M, 1, 0);
  CHECK(gp_mc_solve(0, 0.1, 10, &A, NULL, &r, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "threads");
}

int main(void) {
  A = gp_alloc_default();
  RUN(test_single_thread);
  RUN(test_two_threads_by_hand);
  RUN(test_monotone);
  RUN(test_simulation);
  RUN(test_from_profile);
  return gp_test_finish();
}
