/*
 * kmeans.h -- k-means clustering and representative-warp selection
 * (GPUMech, Huang et al., MICRO 2014, Sec. III-C, Eq. 5-6; Fig. 7's MAX,
 * MIN and random alternatives), and the cluster sets of Wu et al. (HPCA
 * 2015, Sec. III-C) through gp_km_fit's centres.
 *
 * Generic over an n x d row-major feature matrix, so the same code serves
 * GPUMech's two warp features (Eq. 6) and other clusterings.  Deterministic:
 * a fixed seed drives a splitmix64 generator of our own (never rand()), and
 * every tie goes to the lowest index.
 */
#ifndef GP_KMEANS_H
#define GP_KMEANS_H

#include "gp_common.h"

typedef struct gp_km_opts {
  size_t k;            /* clusters wanted (GPUMech: 2); clamped to n */
  uint64_t seed;       /* k-means++ seeding */
  unsigned max_iter;   /* Lloyd iteration cap */
  int normalise;       /* 1: divide each feature by its mean first (Eq. 6) */
  unsigned restarts;   /* k-means++ runs from one seeded stream; the lowest
                          inertia wins (ties: the earliest run); 0 counts as 1 */
} gp_km_opts;

/* k = 2, seed = 1, max_iter = 100, normalise = 1, restarts = 1. */
void gp_km_opts_default(gp_km_opts *o);

typedef struct gp_km_result {
  size_t k;               /* clusters used: min(k, n), at least 1 */
  size_t iterations;      /* Lloyd assignment passes */
  int converged;          /* assignments stopped changing before the cap */
  size_t largest;         /* index of the largest cluster (ties: lowest) */
  size_t largest_size;
  size_t representative;  /* the point nearest the largest cluster's centre */
  double inertia;         /* sum of squared distances to the assigned centres */
} gp_km_result;

/* Clusters n points of d features: optional normalisation by feature means
 * (a feature whose mean is 0 becomes 0), k-means++ seeding (first centre a
 * seeded uniform draw, each next one drawn with probability proportional to
 * D^2; when every D^2 is 0 the lowest-index point is taken, so identical
 * points never divide by zero), then Lloyd iterations until no assignment
 * changes or max_iter passes.  Ties: a point equidistant from two centres
 * joins the lower-numbered cluster; an emptied cluster keeps its centre.
 * assign (n entries) and sizes (k entries, k as requested) may be NULL.
 * Errors: n == 0, d == 0, k == 0, out of memory. */
int gp_km_run(const double *points, size_t n, size_t d, const gp_km_opts *opts,
              const gp_alloc *alloc, uint32_t *assign, size_t *sizes, gp_km_result *out,
              gp_error *err);

/* The same clustering, returning the centres instead of a representative:
 * centres (k x d row-major, k as requested) receives each cluster's mean in
 * the space the clustering ran in (the raw points when normalise = 0); an
 * empty cluster, and every row from min(k, n) on, keeps its seed or is 0.
 * out->largest and out->representative are filled as by gp_km_run. */
int gp_km_fit(const double *points, size_t n, size_t d, const gp_km_opts *opts,
              const gp_alloc *alloc, uint32_t *assign, double *centres, gp_km_result *out,
              gp_error *err);

/* Eq. 6's feature matrix for n warps, row-major n x 2: [warp_perf (Eq. 5),
 * #warp_insts]; gp_km_run with normalise = 1 divides each by its average. */
void gp_km_warp_features(double *out, size_t n, const double *warp_perf,
                         const double *warp_insts);

/* Fig. 7's alternatives to clustering, over one value per warp (the paper
 * ranks by warp performance; gpush's callers may pass total cycles). */
typedef enum gp_km_pick {
  GP_KM_PICK_MAX,    /* the largest value (ties: lowest index) */
  GP_KM_PICK_MIN,    /* the smallest value (ties: lowest index) */
  GP_KM_PICK_RANDOM  /* a seeded uniform draw */
} gp_km_pick;

/* Returns the chosen index, or SIZE_MAX when n == 0. */
size_t gp_km_pick_index(const double *values, size_t n, gp_km_pick how, uint64_t seed);

#endif
