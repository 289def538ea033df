/* k-means (GPUMech Eq. 6) on hand-made points: two obvious clusters, the
 * representative nearest the big cluster's centre, identical points, n < k,
 * n = 1, determinism, normalisation, and Fig. 7's MAX/MIN/RANDOM picks;
 * gp_km_fit's centres (Wu et al.'s cluster sets): separated clusters
 * recovered with their means, restarts, duplicates and n < k. */
#include "gp_test.h"
#include "num/kmeans.h"

#include <math.h>
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

/* Three well separated groups of scaling-value-like vectors in 4-D: the
 * clusters found are the groups and the centres their means exactly. */
static void test_fit_separated(void) {
  double pts[12 * 4], centres[3 * 4];
  uint32_t assign[12];
  gp_km_opts o;
  gp_km_result r;
  gp_error err;
  int g, i, j;
  for (g = 0; g < 3; g++)
    for (i = 0; i < 4; i++)
      for (j = 0; j < 4; j++)
        pts[(g * 4 + i) * 4 + j] = 1.0 + 0.5 * g + 0.01 * ((i + j) % 4);
  gp_km_opts_default(&o);
  o.k = 3, o.normalise = 0, o.restarts = 5, o.seed = 3;
  CHECK(gp_km_fit(pts, 12, 4, &o, &A, assign, centres, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.k, 3);
  for (g = 0; g < 3; g++) {
    uint32_t c = assign[g * 4];
    for (i = 1; i < 4; i++)
      CHECK_EQ_INT(assign[g * 4 + i], c);
    for (j = 0; j < 4; j++) /* the mean of 0, 0.01, 0.02, 0.03 in some order */
      CHECK_NEAR(centres[c * 4 + j], 1.0 + 0.5 * g + 0.015, 1e-12);
  }
  CHECK(assign[0] != assign[4] && assign[4] != assign[8] && assign[0] != assign[8]);
  /* inertia by hand: each column of a group holds the offsets 0, 1, 2, 3 x
   * 0.01 around their mean 0.015, 2 x (0.015^2 + 0.005^2) = 5e-4; 4 columns
   * per group, 3 groups */
  CHECK_NEAR(r.inertia, 3 * 4 * 5e-4, 1e-12);
}

/* Restarts never end worse than the first run alone, and the run is the
 * same bit for bit each time. */
static void test_fit_restarts(void) {
  double pts[40 * 2], c1[5 * 2], c2[5 * 2];
  uint32_t a1[40], a2[40];
  gp_km_opts o;
  gp_km_result one, many, again;
  gp_error err;
  uint64_t seed;
  int i;
  for (i = 0; i < 40; i++) { /* a ring with a denser arc: local optima exist */
    pts[2 * i] = cos(i * 0.3) * (1 + (i % 5) * 0.1);
    pts[2 * i + 1] = sin(i * 0.3) * (1 + (i % 7) * 0.05);
  }
  gp_km_opts_default(&o);
  o.k = 5, o.normalise = 0;
  for (seed = 1; seed < 20; seed++) {
    o.seed = seed, o.restarts = 1;
    CHECK(gp_km_fit(pts, 40, 2, &o, &A, NULL, c1, &one, &err) == GP_OK);
    o.restarts = 8;
    CHECK(gp_km_fit(pts, 40, 2, &o, &A, a1, c1, &many, &err) == GP_OK);
    CHECK(many.inertia <= one.inertia);
    CHECK(gp_km_fit(pts, 40, 2, &o, &A, a2, c2, &again, &err) == GP_OK);
    CHECK(memcmp(c1, c2, sizeof c1) == 0);
    CHECK(memcmp(a1, a2, sizeof a1) == 0);
  }
}

/* Duplicates and n < k: no division by zero, centres are real points, the
 * rows past min(k, n) are zero. */
static void test_fit_degenerate(void) {
  double same[5 * 3], centres[4 * 3], two[2 * 3] = {1, 1, 1, 2, 2, 2};
  uint32_t assign[5];
  gp_km_opts o;
  gp_km_result r;
  gp_error err;
  int i;
  for (i = 0; i < 15; i++)
    same[i] = 1.25;
  gp_km_opts_default(&o);
  o.k = 3, o.normalise = 0, o.restarts = 3;
  CHECK(gp_km_fit(same, 5, 3, &o, &A, assign, centres, &r, &err) == GP_OK);
  for (i = 0; i < 5; i++)
    CHECK_EQ_INT(assign[i], 0);
  for (i = 0; i < 9; i++)
    CHECK_NEAR(centres[i], 1.25, 0); /* the empty clusters keep their seed */
  CHECK_NEAR(r.inertia, 0, 0);
  o.k = 4;
  CHECK(gp_km_fit(two, 2, 3, &o, &A, assign, centres, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.k, 2);
  CHECK(assign[0] != assign[1]);
  for (i = 0; i < 3; i++) {
    CHECK_NEAR(centres[assign[0] * 3 + i], 1, 0);
    CHECK_NEAR(centres[assign[1] * 3 + i], 2, 0);
  }
  for (i = 6; i < 12; i++)
    CHECK_NEAR(centres[i], 0, 0);
}

int main(void) {
  A = gp_alloc_default();
  RUN(test_fit_separated);
  RUN(test_fit_restarts);
  RUN(test_fit_degenerate);
  RUN(test_two_clusters);
  RUN(test_normalisation);
  RUN(test_edges);
  RUN(test_picks);
  return gp_test_finish();
}
