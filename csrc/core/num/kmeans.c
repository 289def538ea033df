/*
 * kmeans.c -- k-means++ / Lloyd clustering and the representative warp
 * (GPUMech Sec. III-C, Eq. 6), and Fig. 7's MAX/MIN/RANDOM picks.
 */
#include "kmeans.h"

#include <string.h>

/* splitmix64 (Steele, Lea, Flood): a small, well-mixed, seedable
 * generator; the state is the caller's, so there is no global. */
static uint64_t splitmix(uint64_t *state) {
  uint64_t x = (*state += 0x9e3779b97f4a7c15ull);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* A uniform double in [0, 1) from the top 53 bits. */
static double uniform01(uint64_t *state) {
  return (double)(splitmix(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* A uniform index in [0, n): floor(u x n) with u in [0, 1). */
static size_t uniform_index(uint64_t *state, size_t n) {
  size_t i = (size_t)(uniform01(state) * (double)n);
  return i < n ? i : n - 1;
}

static double dist2(const double *a, const double *b, size_t d) {
  double s = 0;
  size_t i;
  for (i = 0; i < d; i++) {
    double e = a[i] - b[i];
    s += e * e;
  }
  return s;
}

void gp_km_opts_default(gp_km_opts *o) {
  o->k = 2;
  o->seed = 1;
  o->max_iter = 100;
  o->normalise = 1;
}

void gp_km_warp_features(double *out, size_t n, const double *warp_perf,
                         const double *warp_insts) {
  size_t i;
  for (i = 0; i < n; i++) {
    out[2 * i] = warp_perf[i];
    out[2 * i + 1] = warp_insts[i];
  }
}

/* k-means++ seeding (Arthur and Vassilvitskii): the first centre uniformly,
 * each next one with probability D(x)^2 / sum D^2, D the distance to the
 * nearest chosen centre.  When sum D^2 == 0 (all remaining points sit on a
 * centre) the lowest-index point is taken. */
static void seed_centres(const double *x, size_t n, size_t d, size_t k, uint64_t *state,
                         double *centre, double *nearest) {
  size_t i, c;
  memcpy(centre, x + uniform_index(state, n) * d, d * sizeof *centre);
  for (i = 0; i < n; i++)
    nearest[i] = dist2(x + i * d, centre, d);
  for (c = 1; c < k; c++) {
    double total = 0, pick, acc = 0;
    size_t chosen = 0, last_positive = 0;
    for (i = 0; i < n; i++)
      total += nearest[i];
    if (total > 0) {
      pick = uniform01(state) * total;
      chosen = SIZE_MAX;
      for (i = 0; i < n; i++) {
        if (nearest[i] > 0)
          last_positive = i;
        acc += nearest[i];
        if (acc > pick && nearest[i] > 0) {
          chosen = i;
          break;
        }
      }
      if (chosen == SIZE_MAX) /* rounding left pick beyond the sum */
        chosen = last_positive;
    }
    memcpy(centre + c * d, x + chosen * d, d * sizeof *centre);
    for (i = 0; i < n; i++) {
      double e = dist2(x + i * d, centre + c * d, d);
      if (e < nearest[i])
        nearest[i] = e;
    }
  }
}

/* One Lloyd assignment pass; returns whether any assignment changed.
 * Ties keep the lower-numbered cluster (strict <). */
static int assign_points(const double *x, size_t n, size_t d, size_t k, const double *centre,
                         uint32_t *assign) {
  size_t i, c;
  int changed = 0;
  for (i = 0; i < n; i++) {
    uint32_t a = 0;
    double e = dist2(x + i * d, centre, d);
    for (c = 1; c < k; c++) {
      double f = dist2(x + i * d, centre + c * d, d);
      if (f < e) {
        e = f;
        a = (uint32_t)c;
      }
    }
    changed |= assign[i] != a;
    assign[i] = a;
  }
  return changed;
}

/* The Lloyd update: each centre moves to its members' mean; a cluster
 * left empty keeps its previous centre. */
static void update_centres(const double *x, size_t n, size_t d, size_t k, const uint32_t *assign,
                           double *centre, double *sum, size_t *count) {
  size_t i, j, c;
  memset(sum, 0, k * d * sizeof *sum);
  memset(count, 0, k * sizeof *count);
  for (i = 0; i < n; i++) {
    double *s = sum + (size_t)assign[i] * d;
    count[assign[i]]++;
    for (j = 0; j < d; j++)
      s[j] += x[i * d + j];
  }
  for (c = 0; c < k; c++)
    if (count[c] > 0)
      for (j = 0; j < d; j++)
        centre[c * d + j] = sum[c * d + j] / (double)count[c];
}

int gp_km_run(const double *points, size_t n, size_t d, const gp_km_opts *opts,
              const gp_alloc *alloc, uint32_t *assign_out, size_t *sizes, gp_km_result *out,
              gp_error *err) {
  size_t k, i, j, c, iter, nx, ns;
  double *x = NULL, *centre = NULL, *scratch = NULL, best_d = 0;
  uint32_t *assign = NULL;
  size_t *count = NULL;
  uint64_t state;
  int rc = GP_ERR;
  memset(out, 0, sizeof *out);
  if (n == 0 || d == 0 || opts->k == 0)
    return gp_error_set(err, "kmeans: need n > 0, d > 0, k > 0 (got n=%zu d=%zu k=%zu)", n, d,
                        opts->k);
  if (n > SIZE_MAX / d / sizeof(double))
    return gp_error_set(err, "kmeans: %zu x %zu points overflow", n, d);
  k = opts->k < n ? opts->k : n;
  nx = n * d;
  ns = (k * d > n ? k * d : n); /* scratch: D^2 per point, then sums per centre */
  x = gp_malloc(alloc, nx * sizeof *x);
  centre = gp_malloc(alloc, k * d * sizeof *centre);
  scratch = gp_malloc(alloc, ns * sizeof *scratch);
  assign = gp_malloc(alloc, n * sizeof *assign);
  count = gp_malloc(alloc, k * sizeof *count);
  if (!x || !centre || !scratch || !assign || !count) {
    gp_error_set(err, "kmeans: out of memory (%zu points x %zu features)", n, d);
    goto done;
  }
  /* Eq. 6: each feature divided by its average over all points */
  memcpy(x, points, nx * sizeof *x);
  if (opts->normalise) {
    for (j = 0; j < d; j++) {
      double mean = 0;
      for (i = 0; i < n; i++)
        mean += points[i * d + j];
      mean /= (double)n;
      for (i = 0; i < n; i++)
        x[i * d + j] = mean != 0 ? points[i * d + j] / mean : 0;
    }
  }
  state = opts->seed;
  seed_centres(x, n, d, k, &state, centre, scratch);
  for (i = 0; i < n; i++)
    assign[i] = UINT32_MAX;
  for (iter = 0; iter < (opts->max_iter ? opts->max_iter : 1); iter++) {
    out->iterations++;
    if (!assign_points(x, n, d, k, centre, assign)) {
      out->converged = 1;
      break;
    }
    update_centres(x, n, d, k, assign, centre, scratch, count);
  }
  /* the largest cluster (lowest index among equals), then its member
   * nearest the centre (lowest index among equals) */
  memset(count, 0, k * sizeof *count);
  for (i = 0; i < n; i++)
    count[assign[i]]++;
  out->k = k;
  out->largest = 0;
  for (c = 1; c < k; c++)
    if (count[c] > count[out->largest])
      out->largest = c;
  out->largest_size = count[out->largest];
  out->representative = SIZE_MAX;
  for (i = 0; i < n; i++) {
    double e;
    if (assign[i] != out->largest)
      continue;
    e = dist2(x + i * d, centre + out->largest * d, d);
    if (out->representative == SIZE_MAX || e < best_d) {
      out->representative = i;
      best_d = e;
    }
  }
  if (assign_out)
    memcpy(assign_out, assign, n * sizeof *assign);
  if (sizes) {
    for (c = 0; c < opts->k; c++)
      sizes[c] = c < k ? count[c] : 0;
  }
  rc = GP_OK;
done:
  gp_free(alloc, x, nx * sizeof *x);
  gp_free(alloc, centre, k * d * sizeof *centre);
  gp_free(alloc, scratch, ns * sizeof *scratch);
  gp_free(alloc, assign, n * sizeof *assign);
  gp_free(alloc, count, k * sizeof *count);
  return rc;
}

size_t gp_km_pick_index(const double *values, size_t n, gp_km_pick how, uint64_t seed) {
  size_t i, best = 0;
  uint64_t state = seed;
  if (n == 0)
    return SIZE_MAX;
  switch (how) {
  case GP_KM_PICK_MAX:
    for (i = 1; i < n; i++)
      if (values[i] > values[best])
        best = i;
    return best;
  case GP_KM_PICK_MIN:
    for (i = 1; i < n; i++)
      if (values[i] < values[best])
        best = i;
    return best;
  case GP_KM_PICK_RANDOM:
  default:
    return uniform_index(&state, n);
  }
}
