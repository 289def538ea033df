/*
 * neighbours.h -- a cost-weighted neighbour classifier: the class chosen
 * for a query is the one of least expected cost, the expectation taken
 * over reference points weighted by a Gaussian of their distance to the
 * query.  With costs that are a one-hot "wrong class" indicator it is a
 * kernel-smoothed nearest-neighbour vote; with real costs (how much it
 * costs to give reference point i class c) it picks the class that would
 * have served the query's neighbours best, so a query between two kinds of
 * reference points gets the class that is least wrong for both rather than
 * a confident guess (Bayes' decision rule with a Nadaraya-Watson estimate
 * of the cost).  The bandwidth is chosen by leave-one-group-out validation
 * on the references themselves.
 *
 * Generic numerics: it knows nothing about kernels or GPUs.  Deterministic:
 * no randomness, every sum in a fixed order.
 */
#ifndef GP_NEIGHBOURS_H
#define GP_NEIGHBOURS_H

#include "gp_common.h"

/* Weights of n reference points (n x dim, row-major) for query x:
 * w_i = exp(-(d_i - d_min) / h2), d_i the squared Euclidean distance, d_min
 * the least over the points used, and exactly 0 where the exponent is below
 * -40 (below 4e-18 of the nearest point's weight); a point with
 * groups[i] == skip is not used (weight 0) unless every point would be
 * skipped, when all are used (groups may be NULL: every point is used).
 * h2 > 0.  Returns d_min. */
double gp_nb_weights(const double *points, size_t n, size_t dim, const double *x, double h2,
                     const uint32_t *groups, uint32_t skip, double *w);

/* A choice's settings: the bandwidth h2 and the prior's mass lambda.  The
 * prior is the mean cost over the reference points (every point weighing
 * the same), counted as lambda points at distance 0 from the query: against
 * the relative weights above it weighs lambda x exp(d_min / h2), so a query
 * far from every reference falls back to the class that suits the
 * references best on average, and one close to some follows them. */
typedef struct gp_nb_setting {
  double h2, lambda;
} gp_nb_setting;

/* The prior's weight against gp_nb_weights' weights: lambda x exp(d_min /
 * h2), INFINITY when that overflows (the prior alone decides) and 0 for
 * lambda = 0. */
double gp_nb_prior_weight(const gp_nb_setting *s, double d_min);

/* The mean over the n points of each class's cost (classes values). */
void gp_nb_mean_costs(const double *costs, size_t n, size_t classes, double *out);

/* The class c of least sum_i w_i costs[i x classes + c] + prior_weight x
 * prior[c] (prior may be NULL when prior_weight is 0; an infinite
 * prior_weight: the least prior[c]); ties: the lowest class.  expected
 * (classes doubles) receives the sums. */
size_t gp_nb_choose(const double *costs, size_t n, size_t classes, const double *w,
                    double prior_weight, const double *prior, double *expected);

/* One cost table for gp_nb_select: n x classes costs, and the weight of its
 * loss in the total. */
typedef struct gp_nb_table {
  const double *costs;
  size_t classes;
  double weight;
} gp_nb_table;

/* Chooses among ncand settings by leave-one-group-out validation: each
 * reference point i gets, per table, the class gp_nb_choose picks from the
 * points of other groups (the prior their mean cost; of the others when its
 * group is all there is; groups NULL: every point its own group), and pays
 * that class's cost; the loss of a setting is the sum over tables of weight
 * x the mean cost.  Point i is placed, as a query, at queries[i] (n x dim;
 * NULL: at points[i]): where the query's coordinates come from a map that
 * was fitted without i's group, the validation sees the place an unseen
 * kernel would get.  loss (ncand, may be NULL) receives every setting's
 * loss; *best the index of the least (ties: the earliest).  Errors: n == 0,
 * ncand == 0, out of memory. */
int gp_nb_select(const double *points, const double *queries, size_t n, size_t dim,
                 const uint32_t *groups,
                 const gp_nb_table *tables, size_t ntables, const gp_nb_setting *candidates,
                 size_t ncand, const gp_alloc *alloc, double *loss, size_t *best,
                 gp_error *err);

#endif
