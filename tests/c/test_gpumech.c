/* GPUMech over a traced kernel (gpumech.h) without Lua: the per-PC static
 * inputs, every warp's features from the interval pass on a synthetic
 * kernel (dependent chains of known length: N x L by hand), one warp's
 * profile, and the representative warp by k-means, MAX, MIN and RANDOM. */
#include "gp_test.h"
#include "gpumech/gpumech.h"
#include "synth.h"

#include <stdlib.h>
#include <string.h>

static gp_alloc A;

/* A kernel of `warps` warps (one block), each running a body `trips` times
 * (plus a seeded 0..spread extra), then EXIT. */
static gp_kernel *make(uint32_t warps, const gp_synth_op *body, uint32_t n, uint32_t trips,
                       uint32_t spread) {
  static const gp_synth_stream stream = {GP_STREAM_COALESCED, 0x1000, 1 << 20, 0, 1};
  gp_synth_desc d;
  gp_error err;
  gp_kernel *k = NULL;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "gm");
  d.grid[0] = d.grid[1] = d.grid[2] = 1;
  d.block[0] = 32 * warps, d.block[1] = d.block[2] = 1;
  d.body = body, d.body_len = n, d.trips = trips, d.trip_spread = spread;
  d.streams = &stream, d.stream_count = 1, d.seed = 3;
  if (gp_synth_generate(&k, &A, &d, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return k;
}

/* Arrays for a kernel's static PCs, every latency `lat`. */
typedef struct pcs_store {
  gp_gm_pcs p;
  double v[5 * 8], mix[8 * GP_MW_MIX_N];
  int32_t cause[8];
} pcs_store;

static void pcs_of(const gp_kernel *k, pcs_store *s, double lat) {
  uint32_t i;
  memset(s, 0, sizeof *s);
  s->p.n = k->static_count;
  s->p.latency = s->v, s->p.l1_miss_reqs = s->v + 8, s->p.dram_reqs = s->v + 16;
  s->p.mem_insts = s->v + 24, s->p.mix = s->mix, s->p.cause = s->cause;
  for (i = 0; i < s->p.n; i++) {
    s->p.latency[i] = lat;
    s->mix[i * GP_MW_MIX_N + GP_MW_MIX_DEP] = -1; /* must be cleared */
  }
  gp_gm_pcs_fill_static(k, &s->p);
}

static void test_static_inputs(void) {
  const gp_synth_op body[] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_INT, 0, 0, 0, {1}}};
  gp_kernel *k = make(1, body, 2, 3, 0);
  pcs_store s;
  uint32_t i;
  CHECK(k != NULL);
  if (!k)
    return;
  CHECK_EQ_INT(k->static_count, 3); /* the body and EXIT */
  pcs_of(k, &s, 4);
  CHECK_NEAR(s.p.mem_insts[0], 1, 0);
  CHECK_NEAR(s.p.mem_insts[1], 0, 0);
  CHECK_NEAR(s.p.mem_insts[2], 0, 0);
  for (i = 0; i < 3; i++) {
    CHECK_EQ_INT(s.p.cause[i], i);
    CHECK_NEAR(s.mix[i * GP_MW_MIX_N + GP_MW_MIX_DEP], 0, 0);
  }
  gp_kernel_free(k);
}

/* Each warp: a chain of N dependent INTs (latency 4) and EXIT (latency 4,
 * independent): the chain issues at 0, 4, ..., 4(N-1), EXIT one cycle
 * later and its result is ready at 4N + 1: N + 1 instructions in 4N + 1
 * cycles, warp performance (Eq. 5) (N + 1) / (4N + 1). */
static void test_features_and_profile(void) {
  const gp_synth_op body[] = {{GP_OP_INT, 0, 0, 0, {1}}};
  gp_kernel *k = make(6, body, 1, 10, 7);
  gp_gm_feature f[6];
  gp_iv_profile prof;
  gp_error err;
  pcs_store s;
  size_t n = 0, i;
  int differ = 0;
  CHECK(k != NULL);
  if (!k)
    return;
  pcs_of(k, &s, 4);
  CHECK(gp_gm_features(k, &s.p, 1, &A, f, &n, &err) == GP_OK);
  CHECK_EQ_INT(n, 6);
  for (i = 0; i < n; i++) {
    double chain = (double)k->warp_len[i] - 1;
    CHECK_EQ_INT(f[i].warp, i);
    CHECK(chain >= 10 && chain <= 17);
    CHECK_NEAR(f[i].insts, chain + 1, 0);
    CHECK_NEAR(f[i].total_cycles, 4 * chain + 1, 0);
    CHECK_NEAR(f[i].warp_perf, (chain + 1) / (4 * chain + 1), 1e-15);
    differ |= k->warp_len[i] != k->warp_len[0];
  }
  CHECK(differ); /* the spread gave the warps different lengths */
  /* one warp's profile keeps its intervals: one per chain instruction (the
   * last also holds EXIT), each followed by 3 stall cycles */
  gp_iv_profile_init(&prof, &A);
  CHECK(gp_gm_profile(&prof, k, 2, &s.p, 1, &err) == GP_OK);
  CHECK_EQ_INT(prof.insts, k->warp_len[2]);
  CHECK_EQ_INT(prof.count, k->warp_len[2] - 1);
  CHECK_NEAR(prof.stall_cycles, 3.0 * (k->warp_len[2] - 1), 0);
  CHECK_NEAR(prof.total_cycles, f[2].total_cycles, 0);
  CHECK_EQ_INT(prof.iv[prof.count - 1].insts, 2);
  /* at half the issue rate a dependent still issues 4 cycles after its
   * producer; EXIT now takes a 2-cycle slot: 4N + 2 */
  CHECK(gp_gm_profile(&prof, k, 2, &s.p, 2, &err) == GP_OK);
  CHECK_NEAR(prof.total_cycles, 4.0 * (k->warp_len[2] - 1) + 2, 0);
  CHECK(gp_gm_profile(&prof, k, 6, &s.p, 1, &err) == GP_ERR);
  CHECK(strstr(err.msg, "warp 6 out of range (the kernel has 6 warps)") != NULL);
  gp_iv_profile_free(&prof);
  gp_kernel_free(k);
}

static void test_select(void) {
  /* four similar warps and one outlier: k-means's largest cluster holds the
   * four, its centre (0.25, 100) is nearest warp 1 */
  const gp_gm_feature f[5] = {{0, 0.24, 100, 0}, {1, 0.25, 100, 0}, {2, 0.26, 100, 0},
                              {3, 0.2501, 100, 0}, {4, 1.0, 10, 0}};
  gp_error err;
  size_t best = 99, again = 98;
  CHECK(gp_gm_select(f, 5, GP_GM_SELECT_KMEANS, 1, &A, &best, &err) == GP_OK);
  CHECK_EQ_INT(best, 1);
  CHECK(gp_gm_select(f, 5, GP_GM_SELECT_MAX, 1, &A, &best, &err) == GP_OK);
  CHECK_EQ_INT(best, 4);
  CHECK(gp_gm_select(f, 5, GP_GM_SELECT_MIN, 1, &A, &best, &err) == GP_OK);
  CHECK_EQ_INT(best, 0);
  CHECK(gp_gm_select(f, 5, GP_GM_SELECT_RANDOM, 9, &A, &best, &err) == GP_OK);
  CHECK(gp_gm_select(f, 5, GP_GM_SELECT_RANDOM, 9, &A, &again, &err) == GP_OK);
  CHECK(best < 5);
  CHECK_EQ_INT(best, again); /* seeded */
  CHECK(gp_gm_select(f, 0, GP_GM_SELECT_KMEANS, 1, &A, &best, &err) == GP_ERR);
  CHECK(strstr(err.msg, "no warps") != NULL);
}

int main(void) {
  A = gp_alloc_default();
  RUN(test_static_inputs);
  RUN(test_features_and_profile);
  RUN(test_select);
  return gp_test_finish();
}
