/*
 * kmeans.c -- k-means++ / Lloyd clustering with seeded restarts, the
 * representative warp (GPUMech Sec. III-C, Eq. 6), the centres of Wu et
 * al.'s cluster sets, and Fig. 7's MAX/MIN/RANDOM picks.
 */
#include "kmeans.h"
#include "dist.h"
#include "rng.h"

#include <string.h>

void gp_km_opts_default(gp_km_opts *o) {
  o->k = 2;
  o->seed = 1;
  o->max_iter = 100;
  o->normalise = 1;
  o->restarts = 1;
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
  memcpy(centre, x + gp_rng_index(state, n) * d, d * sizeof *centre);
  for (i = 0; i < n; i++)
    nearest[i] = gp_dist2(x + i * d, centre, d);
  for (c = 1; c < k; c++) {
    double total = 0, pick, acc = 0;
    size_t chosen = 0, last_positive = 0;
    for (i = 0; i < n; i++)
      total += nearest[i];
    if (total > 0) {
      pick = gp_rng_uniform(state) * total;
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
      double e = gp_dist2(x + i * d, centre + c * d, d);
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
    double e = gp_dist2(x + i * d, centre, d);
    for (c = 1; c < k; c++) {
      double f = gp_dist2(x + i * d, centre + c * d, d);
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

/* Copies the points, divided by each feature's mean when `normalise` (Eq.
 * 6; a feature whose mean is 0 becomes 0).  NULL when out of memory. */
static double *prepare_points(const double *points, size_t n, size_t d, int normalise,
                              const gp_alloc *alloc) {
  size_t i, j;
  double *x = gp_malloc(alloc, n * d * sizeof *x);
  if (!x)
    return NULL;
  memcpy(x, points, n * d * sizeof *x);
  if (normalise) {
    for (j = 0; j < d; j++) {
      double mean = 0;
      for (i = 0; i < n; i++)
        mean += points[i * d + j];
      mean /= (double)n;
      for (i = 0; i < n; i++)
        x[i * d + j] = mean != 0 ? points[i * d + j] / mean : 0;
    }
  }
  return x;
}

/* Sum of squared distances of the points to their centres. */
static double inertia_of(const double *x, size_t n, size_t d, const double *centre,
                         const uint32_t *assign) {
  size_t i;
  double s = 0;
  for (i = 0; i < n; i++)
    s += gp_dist2(x + i * d, centre + (size_t)assign[i] * d, d);
  return s;
}

/* Working memory of the restarts: the current run's centres and
 * assignments, the best run's, and the seeding / update scratch. */
typedef struct km_work {
  double *centre, *best_centre, *scratch;
  uint32_t *assign, *best_assign;
  size_t *count;
  size_t k, nc, ns;
} km_work;

static void work_free(km_work *w, const gp_alloc *alloc, size_t n) {
  gp_free(alloc, w->centre, w->nc * sizeof *w->centre);
  gp_free(alloc, w->best_centre, w->nc * sizeof *w->best_centre);
  gp_free(alloc, w->scratch, w->ns * sizeof *w->scratch);
  gp_free(alloc, w->assign, n * sizeof *w->assign);
  gp_free(alloc, w->best_assign, n * sizeof *w->best_assign);
  gp_free(alloc, w->count, w->k * sizeof *w->count);
}

/* k-means++ seeding and Lloyd iterations, `restarts` times from one
 * generator stream; the run with the lowest inertia (the earliest among
 * equals) is left in w->best_centre / w->best_assign, its statistics in
 * out.  Points are x (already normalised when asked). */
static void cluster(const double *x, size_t n, size_t d, size_t k, const gp_km_opts *opts,
                    km_work *w, gp_km_result *out) {
  size_t i, iter, run, runs = opts->restarts ? opts->restarts : 1;
  uint64_t state = opts->seed;
  for (run = 0; run < runs; run++) {
    size_t iterations = 0;
    int converged = 0;
    double inertia;
    seed_centres(x, n, d, k, &state, w->centre, w->scratch);
    for (i = 0; i < n; i++)
      w->assign[i] = UINT32_MAX;
    for (iter = 0; iter < (opts->max_iter ? opts->max_iter : 1); iter++) {
      iterations++;
      if (!assign_points(x, n, d, k, w->centre, w->assign)) {
        converged = 1;
        break;
      }
      update_centres(x, n, d, k, w->assign, w->centre, w->scratch, w->count);
    }
    inertia = inertia_of(x, n, d, w->centre, w->assign);
    if (run == 0 || inertia < out->inertia) {
      out->inertia = inertia;
      out->iterations = iterations;
      out->converged = converged;
      memcpy(w->best_centre, w->centre, k * d * sizeof *w->centre);
      memcpy(w->best_assign, w->assign, n * sizeof *w->assign);
    }
  }
}

/* The largest cluster (lowest index among equals), then its member nearest
 * the centre (lowest index among equals); fills w->count with sizes. */
static void find_representative(const double *x, size_t n, size_t d, size_t k, km_work *w,
                                gp_km_result *out) {
  size_t i, c;
  double best_d = 0;
  memset(w->count, 0, k * sizeof *w->count);
  for (i = 0; i < n; i++)
    w->count[w->best_assign[i]]++;
  out->largest = 0;
  for (c = 1; c < k; c++)
    if (w->count[c] > w->count[out->largest])
      out->largest = c;
  out->largest_size = w->count[out->largest];
  out->representative = SIZE_MAX;
  for (i = 0; i < n; i++) {
    double e;
    if (w->best_assign[i] != out->largest)
      continue;
    e = gp_dist2(x + i * d, w->best_centre + out->largest * d, d);
    if (out->representative == SIZE_MAX || e < best_d) {
      out->representative = i;
      best_d = e;
    }
  }
}

/* The shared body of gp_km_run and gp_km_fit. */
static int run_kmeans(const double *points, size_t n, size_t d, const gp_km_opts *opts,
                      const gp_alloc *alloc, uint32_t *assign_out, size_t *sizes,
                      double *centres_out, gp_km_result *out, gp_error *err) {
  size_t k, c;
  double *x = NULL;
  km_work w;
  int rc = GP_ERR;
  memset(out, 0, sizeof *out);
  memset(&w, 0, sizeof w);
  if (n == 0 || d == 0 || opts->k == 0)
    return gp_error_set(err, "kmeans: need n > 0, d > 0, k > 0 (got n=%zu d=%zu k=%zu)", n, d,
                        opts->k);
  if (n > SIZE_MAX / d / sizeof(double) || opts->k > SIZE_MAX / d / sizeof(double))
    return gp_error_set(err, "kmeans: %zu x %zu points overflow", n, d);
  k = opts->k < n ? opts->k : n;
  w.k = k;
  w.nc = k * d;
  w.ns = (k * d > n ? k * d : n); /* scratch: D^2 per point, then sums per centre */
  x = prepare_points(points, n, d, opts->normalise, alloc);
  w.centre = gp_malloc(alloc, w.nc * sizeof *w.centre);
  w.best_centre = gp_malloc(alloc, w.nc * sizeof *w.best_centre);
  w.scratch = gp_malloc(alloc, w.ns * sizeof *w.scratch);
  w.assign = gp_malloc(alloc, n * sizeof *w.assign);
  w.best_assign = gp_malloc(alloc, n * sizeof *w.best_assign);
  w.count = gp_malloc(alloc, k * sizeof *w.count);
  if (!x || !w.centre || !w.best_centre || !w.scratch || !w.assign || !w.best_assign ||
      !w.count) {
    gp_error_set(err, "kmeans: out of memory (%zu points x %zu features)", n, d);
    goto done;
  }
  cluster(x, n, d, k, opts, &w, out);
  find_representative(x, n, d, k, &w, out);
  out->k = k;
  if (assign_out)
    memcpy(assign_out, w.best_assign, n * sizeof *w.best_assign);
  if (sizes)
    for (c = 0; c < opts->k; c++)
      sizes[c] = c < k ? w.count[c] : 0;
  if (centres_out) {
    memcpy(centres_out, w.best_centre, k * d * sizeof *centres_out);
    memset(centres_out + k * d, 0, (opts->k - k) * d * sizeof *centres_out);
  }
  rc = GP_OK;
done:
  gp_free(alloc, x, n * d * sizeof *x);
  work_free(&w, alloc, n);
  return rc;
}

int gp_km_run(const double *points, size_t n, size_t d, const gp_km_opts *opts,
              const gp_alloc *alloc, uint32_t *assign_out, size_t *sizes, gp_km_result *out,
              gp_error *err) {
  return run_kmeans(points, n, d, opts, alloc, assign_out, sizes, NULL, out, err);
}

int gp_km_fit(const double *points, size_t n, size_t d, const gp_km_opts *opts,
              const gp_alloc *alloc, uint32_t *assign, double *centres, gp_km_result *out,
              gp_error *err) {
  return run_kmeans(points, n, d, opts, alloc, assign, NULL, centres, out, err);
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
    return gp_rng_index(&state, n);
  }
}
