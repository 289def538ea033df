/*
 * neighbours.c -- the cost-weighted neighbour classifier (neighbours.h).
 */
#include "neighbours.h"
#include "dist.h"
#include "fexp.h"

#include <math.h>
#include <string.h>

/* exp(-z), and exactly 0 beyond z = 40 (e^-40 = 4e-18 of the nearest
 * point's weight, which is 1): the sums skip those points. */
static double gauss(double z) { return z > 40 ? 0 : gp_exp_fixed(-z); }

/* Gaussian weights from the squared distances d (n) over the points with
 * use[i] set (all of them when none is); the others weigh 0.  Returns the
 * least distance among the points used. */
static double weights_masked(const double *d, size_t n, double h2, const unsigned char *use,
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
  return least;
}

double gp_nb_weights(const double *points, size_t n, size_t dim, const double *x, double h2,
                     const uint32_t *groups, uint32_t skip, double *w) {
  double least = INFINITY;
  size_t i, used = 0;
  for (i = 0; i < n; i++) { /* distances first, into w */
    w[i] = gp_dist2(points + i * dim, x, dim);
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
  return least;
}

double gp_nb_prior_weight(const gp_nb_setting *s, double d_min) {
  double z;
  if (!(s->lambda > 0))
    return 0;
  z = d_min / s->h2;
  return z > 700 ? INFINITY : s->lambda * gp_exp_fixed(z);
}

void gp_nb_mean_costs(const double *costs, size_t n, size_t classes, double *out) {
  size_t c, i;
  for (c = 0; c < classes; c++)
    out[c] = 0;
  for (i = 0; i < n; i++)
    for (c = 0; c < classes; c++)
      out[c] += costs[i * classes + c];
  for (c = 0; c < classes; c++)
    out[c] /= n > 0 ? (double)n : 1;
}

size_t gp_nb_choose(const double *costs, size_t n, size_t classes, const double *w,
                    double prior_weight, const double *prior, double *expected) {
  size_t c, i, best = 0;
  for (c = 0; c < classes; c++)
    expected[c] = 0;
  if (isinf(prior_weight)) { /* the prior alone */
    for (c = 0; c < classes; c++)
      expected[c] = prior[c];
  } else {
    for (i = 0; i < n; i++) /* row by row: the costs in memory order */
      if (w[i] != 0)
        for (c = 0; c < classes; c++)
          expected[c] += w[i] * costs[i * classes + c];
    if (prior_weight > 0)
      for (c = 0; c < classes; c++)
        expected[c] += prior_weight * prior[c];
  }
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

/* Scratch for the leave-one-group-out loop. */
typedef struct scratch {
  double *w, *expected, *prior;
  unsigned char *use;
} scratch;

/* The mean cost per class over the points used (the prior of a held-out
 * point). */
static void used_mean(const gp_nb_table *tb, size_t n, const unsigned char *use, double *out) {
  size_t c, i, used = 0;
  for (c = 0; c < tb->classes; c++)
    out[c] = 0;
  for (i = 0; i < n; i++)
    if (use[i]) {
      used++;
      for (c = 0; c < tb->classes; c++)
        out[c] += tb->costs[i * tb->classes + c];
    }
  for (c = 0; c < tb->classes; c++)
    out[c] /= used > 0 ? (double)used : 1;
}

/* The leave-one-group-out loss of setting `set` over the n x n squared
 * distances d. */
static double logo_loss(const double *d, size_t n, const uint32_t *groups,
                        const gp_nb_table *tables, size_t ntables, const gp_nb_setting *set,
                        scratch *s) {
  double total = 0;
  size_t i, t;
  for (i = 0; i < n; i++) {
    double prior_weight;
    others_of(i, n, groups, s->use);
    prior_weight = gp_nb_prior_weight(set, weights_masked(d + i * n, n, set->h2, s->use, s->w));
    for (t = 0; t < ntables; t++) {
      const gp_nb_table *tb = &tables[t];
      size_t pick;
      if (prior_weight > 0)
        used_mean(tb, n, s->use, s->prior);
      pick = gp_nb_choose(tb->costs, n, tb->classes, s->w, prior_weight, s->prior, s->expected);
      total += tb->weight * tb->costs[i * tb->classes + pick] / (double)n;
    }
  }
  return total;
}

/* The least loss over the settings (ties: the earliest) and its index. */
static double best_over(const double *d, size_t n, const uint32_t *groups,
                        const gp_nb_table *tables, size_t ntables,
                        const gp_nb_setting *candidates, size_t ncand, double *loss,
                        size_t *best, scratch *s) {
  double least = INFINITY;
  size_t c;
  *best = 0;
  for (c = 0; c < ncand; c++) {
    double l = logo_loss(d, n, groups, tables, ntables, &candidates[c], s);
    if (loss)
      loss[c] = l;
    if (l < least)
      least = l, *best = c;
  }
  return least;
}

static int alloc_scratch(scratch *s, size_t n, const gp_nb_table *tables, size_t ntables,
                         const gp_alloc *alloc, size_t *most) {
  size_t t;
  *most = 1;
  for (t = 0; t < ntables; t++)
    if (tables[t].classes > *most)
      *most = tables[t].classes;
  s->w = gp_malloc(alloc, n * sizeof *s->w);
  s->use = gp_malloc(alloc, n);
  s->expected = gp_malloc(alloc, *most * sizeof *s->expected);
  s->prior = gp_malloc(alloc, *most * sizeof *s->prior);
  return s->w && s->use && s->expected && s->prior ? GP_OK : GP_ERR;
}

static void free_scratch(scratch *s, size_t n, size_t most, const gp_alloc *alloc) {
  gp_free(alloc, s->w, n * sizeof *s->w);
  gp_free(alloc, s->use, n);
  gp_free(alloc, s->expected, most * sizeof *s->expected);
  gp_free(alloc, s->prior, most * sizeof *s->prior);
}

int gp_nb_select(const double *points, const double *queries, size_t n, size_t dim,
                 const uint32_t *groups,
                 const gp_nb_table *tables, size_t ntables, const gp_nb_setting *candidates,
                 size_t ncand, const gp_alloc *alloc, double *loss, size_t *best,
                 gp_error *err) {
  double *d;
  scratch s;
  size_t i, j, most;
  if (n == 0 || ncand == 0)
    return gp_error_set(err, "neighbours: %zu reference points, %zu bandwidths (both > 0 needed)",
                        n, ncand);
  if (n > SIZE_MAX / sizeof(double) / (n + 1))
    return gp_error_set(err, "neighbours: %zu reference points overflow", n);
  memset(&s, 0, sizeof s);
  most = 1;
  d = gp_malloc(alloc, n * n * sizeof *d);
  if (!d || alloc_scratch(&s, n, tables, ntables, alloc, &most) != GP_OK) {
    gp_free(alloc, d, n * n * sizeof *d);
    free_scratch(&s, n, most, alloc);
    return gp_error_set(err, "neighbours: out of memory for %zu reference points", n);
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      d[i * n + j] = gp_dist2((queries ? queries : points) + i * dim, points + j * dim, dim);
  best_over(d, n, groups, tables, ntables, candidates, ncand, loss, best, &s);
  gp_free(alloc, d, n * n * sizeof *d);
  free_scratch(&s, n, most, alloc);
  return GP_OK;
}
