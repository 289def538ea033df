/* k-means (GPUMech Eq. 6) on hand-made points: two obvious clusters, the
 * representative nearest the big cluster's centre, identical points, n < k,
 * n = 1, determinism, normalisation, and Fig. 7's MAX/MIN/RANDOM picks. */
#include "gp_test.h"
#include "num/kmeans.h"

#include <string.h>

static gp_alloc A;

/* 8 warps near (1, 10), 3 outliers near (4, 40). */
static void fill_two_clusters(double *pts) {
  int i;
  for (i = 0; i < 8; i++)
    pts[2 * i] = 1.0 + 0.01 * i, pts[2 * i + 1] = 10.0 + 0.1 * i;
  for (i = 8; i < 11; i++)
    pts[2 * i] = 4.0, pts[2 * i + 1] = 40.0 + i;
}

static void test_two_clusters(void) {
  double pts[22];
  uint32_t assign[11];
  size_t sizes[2];
  gp_km_opts o;
  gp_km_result r, r2;
  gp_error err;
  uint64_t seed;
  int i;
  fill_two_clusters(pts);
  gp_km_opts_default(&o);
  CHECK_EQ_INT(o.k, 2);
  CHECK(gp_km_run(pts, 11, 2, &o, &A, assign, sizes, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.k, 2);
  CHECK(r.converged);
  CHECK_EQ_INT(r.largest_size, 8);
  CHECK_EQ_INT(sizes[r.largest], 8);
  CHECK_EQ_INT(sizes[1 - r.largest], 3);
  for (i = 0; i < 8; i++)
    CHECK_EQ_INT(assign[i], r.largest);
  for (i = 8; i < 11; i++)
    CHECK(assign[i] != r.largest);
  /* the centre of the 8 (normalised) is the mean of (1 + 0.01 i, 10 + 0.1 i):
   * i = 3.5, so warps 3 and 4 are equidistant and the lower index wins */
  CHECK_EQ_INT(r.representative, 3);
  /* deterministic, and the same answer from other seeds here */
  for (seed = 0; seed < 50; seed++) {
    o.seed = seed;
    CHECK(gp_km_run(pts, 11, 2, &o, &A, NULL, NULL, &r2, &err) == GP_OK);
    CHECK_EQ_INT(r2.representative, 3);
  }
  /* k = 3 splits the outliers further but keeps the 8 together */
  o.k = 3, o.seed = 7;
  CHECK(gp_km_run(pts, 11, 2, &o, &A, assign, NULL, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.largest_size, 8);
  CHECK_EQ_INT(r.representative, 3);
}

/* Eq. 6's normalisation: a feature scaled by a constant changes nothing,
 * and a zero-mean feature becomes 0 instead of dividing by zero. */
static void test_normalisation(void) {
  double pts[22], scaled[22], zero[33];
  gp_km_opts o;
  gp_km_result a, b;
  gp_error err;
  int i;
  fill_two_clusters(pts);
  for (i = 0; i < 11; i++) {
    scaled[2 * i] = pts[2 * i] * 1000, scaled[2 * i + 1] = pts[2 * i + 1] * 1e-3;
    zero[3 * i] = pts[2 * i], zero[3 * i + 1] = 0, zero[3 * i + 2] = pts[2 * i + 1];
  }
  gp_km_opts_default(&o);
  CHECK(gp_km_run(pts, 11, 2, &o, &A, NULL, NULL, &a, &err) == GP_OK);
  CHECK(gp_km_run(scaled, 11, 2, &o, &A, NULL, NULL, &b, &err) == GP_OK);
  CHECK_EQ_INT(b.representative, a.representative);
  CHECK(gp_km_run(zero, 11, 3, &o, &A, NULL, NULL, &b, &err) == GP_OK);
  CHECK_EQ_INT(b.representative, a.representative);
  /* Eq. 6's feature matrix */
  {
    double perf[2] = {0.5, 0.25}, insts[2] = {100, 300}, f[4];
    gp_km_warp_features(f, 2, perf, insts);
    CHECK_NEAR(f[0], 0.5, 0);
    CHECK_NEAR(f[1], 100, 0);
    CHECK_NEAR(f[3], 300, 0);
  }
}

/* Degenerate inputs. */
static void test_edges(void) {
  double same[22], one[2] = {3, 7}, two[4] = {1, 1, 5, 5};
  uint32_t assign[11];
  size_t sizes[4];
  gp_km_opts o;
  gp_km_result r;
  gp_error err;
  int i;
  gp_km_opts_default(&o);
  /* all identical: every D^2 = 0; one cluster holds everything, the
   * representative is the first point */
  for (i = 0; i < 22; i++)
    same[i] = 2.0;
  CHECK(gp_km_run(same, 11, 2, &o, &A, assign, sizes, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.representative, 0);
  CHECK_EQ_INT(r.largest, 0);
  CHECK_EQ_INT(sizes[0], 11);
  CHECK_EQ_INT(sizes[1], 0);
  /* all zero (every mean 0) */
  memset(same, 0, sizeof same);
  CHECK(gp_km_run(same, 11, 2, &o, &A, NULL, NULL, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.representative, 0);
  /* n = 1 */
  CHECK(gp_km_run(one, 1, 2, &o, &A, assign, sizes, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.k, 1);
  CHECK_EQ_INT(r.representative, 0);
  CHECK_EQ_INT(assign[0], 0);
  /* n < k: two points, four clusters asked: two used, sizes padded */
  o.k = 4;
  CHECK(gp_km_run(two, 2, 2, &o, &A, assign, sizes, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.k, 2);
  CHECK(assign[0] != assign[1]);
  CHECK_EQ_INT(sizes[2] + sizes[3], 0);
  CHECK_EQ_INT(sizes[0] + sizes[1], 2);
  /* equal sizes: the lower cluster is the largest, its only member the
   * representative */
  CHECK_EQ_INT(r.largest, 0);
  CHECK_EQ_INT(r.representative, assign[0] == 0 ? 0 : 1);
  /* errors */
  CHECK(gp_km_run(one, 0, 2, &o, &A, NULL, NULL, &r, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "n > 0");
  o.k = 0;
  CHECK(gp_km_run(one, 1, 2, &o, &A, NULL, NULL, &r, &err) == GP_ERR);
}

/* Fig. 7's alternatives. */
static void test_picks(void) {
  double v[6] = {5, 9, 1, 9, 1, 3};
  size_t counts[6] = {0}, i, r;
  CHECK_EQ_INT(gp_km_pick_index(v, 6, GP_KM_PICK_MAX, 0), 1);
  CHECK_EQ_INT(gp_km_pick_index(v, 6, GP_KM_PICK_MIN, 0), 2);
  CHECK_EQ_INT(gp_km_pick_index(v, 0, GP_KM_PICK_MAX, 0), SIZE_MAX);
  r = gp_km_pick_index(v, 6, GP_KM_PICK_RANDOM, 42);
  CHECK(r < 6);
  CHECK_EQ_INT(gp_km_pick_index(v, 6, GP_KM_PICK_RANDOM, 42), r);
  /* seeds spread over every index */
  for (i = 0; i < 600; i++)
    counts[gp_km_pick_index(v, 6, GP_KM_PICK_RANDOM, i)]++;
  for (i = 0; i < 6; i++)
    CHECK(counts[i] > 50 && counts[i] < 150);
}

int main(void) {
  A = gp_alloc_default();
  RUN(test_two_clusters);
  RUN(test_normalisation);
  RUN(test_edges);
  RUN(test_picks);
  return gp_test_finish();
}
