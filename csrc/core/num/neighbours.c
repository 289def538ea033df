/*
 * neighbours.c -- the cost-weighted neighbour classifier (neighbours.h).
 */
#include "neighbours.h"
#include "fexp.h"

#include <math.h>
#include <string.h>

static double dist2(const double *a, const double *b, size_t dim) {
  double s = 0;
  size_t j;
  for (j = 0; j < dim; j++) {
    double diff = a[j] - b[j];
    s += diff * diff;
  }
  return s;
}

/* exp(-z), and exactly 0 beyond z = 40 (e^-40 = 4e-18 of the nearest
 * point's weight, which is 1): the sums skip those points. */
static double gauss(double z) { return z > 40 ? 0 : gp_exp_fixed(-z); }

/* Gaussian weights from the squared distances d (n) over the points with
 * use[i] set (all of them when none is); the others weigh 0. */
static void weights_masked(const double *d, size_t n, double h2, const unsigned char *use,
                           double *w) {
  double least = INFINITY;
  size_t i, used = 0;
  for (i = 0; i < n; i++)
    if (use[i]) {
      used++;
      if (d[i] < least)
        least = d[i];
    }
  for (i = 0; i < n; i++)
    if (used == 0 && d[i] < least)
      least = d[i];
  for (i = 0; i < n; i++)
    w[i] = used > 0 && !use[i] ? 0 : gauss((d[i] - least) / h2);
}

void gp_nb_weights(const double *points, size_t n, size_t dim, const double *x, double h2,
                   const uint32_t *groups, uint32_t skip, double *w) {
  double least = INFINITY;
  size_t i, used = 0;
  for (i = 0; i < n; i++) { /* distances first, into w */
    w[i] = dist2(points + i * dim, x, dim);
    if (!groups || groups[i] != skip) {
      used++;
      if (w[i] < least)
        least = w[i];
    }
  }
  if (used == 0) /* the query's group is everything: use it all */
    for (i = 0; i < n; i++)
      if (w[i] < least)
        least = w[i];
  for (i = 0; i < n; i++)
    w[i] = used > 0 && groups && groups[i] == skip ? 0 : gauss((w[i] - least) / h2);
}

size_t gp_nb_choose(const double *costs, size_t n, size_t classes, const double *w,
                    double *expected) {
  size_t c, i, best = 0;
  for (c = 0; c < classes; c++)
    expected[c] = 0;
  for (i = 0; i < n; i++) /* row by row: the costs in memory order */
    if (w[i] != 0)
      for (c = 0; c < classes; c++)
        expected[c] += w[i] * costs[i * classes + c];
  for (c = 1; c < classes; c++)
    if (expected[c] < expected[best])
      best = c;
  return best;
}

/* Which points may speak for point i under leave-one-group-out: those of
 * other groups, or, when i's group is all there is (or there are no
 * groups), every point but i. */
static void others_of(size_t i, size_t n, const uint32_t *groups, unsigned char *use) {
  size_t j, used = 0;
  for (j = 0; j < n; j++) {
    use[j] = groups ? groups[j] != groups[i] : j != i;
    used += use[j];
  }
  if (used == 0)
    for (j = 0; j < n; j++)
      use[j] = j != i || n == 1;
}

int gp_nb_select(const double *points, size_t n, size_t dim, const uint32_t *groups,
                 const gp_nb_table *tables, size_t ntables, const double *candidates,
                 size_t ncand, const gp_alloc *alloc, double *loss, size_t *best,
                 gp_error *err) {
  double *d, *w, *expected, best_loss = INFINITY;
  unsigned char *use;
  size_t i, j, c, t, most = 1;
  if (n == 0 || ncand == 0)
    return gp_error_set(err, "neighbours: %zu reference points, %zu bandwidths (both > 0 needed)",
                        n, ncand);
  if (n > SIZE_MAX / sizeof(double) / (n + 1))
    return gp_error_set(err, "neighbours: %zu reference points overflow", n);
  for (t = 0; t < ntables; t++)
    if (tables[t].classes > most)
      most = tables[t].classes;
  d = gp_malloc(alloc, n * n * sizeof *d);
  w = gp_malloc(alloc, n * sizeof *w);
  use = gp_malloc(alloc, n);
  expected = gp_malloc(alloc, most * sizeof *expected);
  if (!d || !w || !use || !expected) {
    gp_free(alloc, d, n * n * sizeof *d);
    gp_free(alloc, w, n * sizeof *w);
    gp_free(alloc, use, n);
    gp_free(alloc, expected, most * sizeof *expected);
    return gp_error_set(err, "neighbours: out of memory for %zu reference points", n);
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      d[i * n + j] = dist2(points + i * dim, points + j * dim, dim);
  *best = 0;
  for (c = 0; c < ncand; c++) {
    double total = 0;
    for (i = 0; i < n; i++) {
      others_of(i, n, groups, use);
      weights_masked(d + i * n, n, candidates[c], use, w);
      for (t = 0; t < ntables; t++) {
        const gp_nb_table *tb = &tables[t];
        size_t pick = gp_nb_choose(tb->costs, n, tb->classes, w, expected);
        total += tb->weight * tb->costs[i * tb->classes + pick] / (double)n;
      }
    }
    if (loss)
      loss[c] = total;
    if (total < best_loss)
      best_loss = total, *best = c;
  }
  gp_free(alloc, d, n * n * sizeof *d);
  gp_free(alloc, w, n * sizeof *w);
  gp_free(alloc, use, n);
  gp_free(alloc, expected, most * sizeof *expected);
  return GP_OK;
}
