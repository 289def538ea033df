/*
 * ridge.h -- ridge regression of several outputs on the same inputs, with
 * an unpenalised intercept, and the choice of its penalty by
 * leave-one-group-out validation.
 *
 * The fit minimises sum_i |y_i - [x_i, 1] W|^2 + lambda |W without its
 * intercept row|^2 over the rows used, solved through the normal
 * equations by a Cholesky factorisation (p + 1 unknowns per output; the
 * inputs here are a few dozen counters, so forming X^T X is cheap and
 * well within double precision for lambda > 0).
 *
 * Generic numerics: it knows nothing about kernels or GPUs.  Deterministic:
 * every sum in a fixed order.
 */
#ifndef GP_RIDGE_H
#define GP_RIDGE_H

#include "gp_common.h"

/* The map W ((p + 1) x t, row-major; the last row the intercept) of the
 * rows i of x (n x p) and y (n x t) with use[i] set (use NULL: every row).
 * lambda >= 0.  Errors: no row used, out of memory, a singular system
 * (lambda = 0 with too few rows). */
int gp_ridge_fit(const double *x, const double *y, size_t n, size_t p, size_t t,
                 const unsigned char *use, double lambda, const gp_alloc *alloc, double *w,
                 gp_error *err);

/* out (t) = [x, 1] W for one input row x (p). */
void gp_ridge_apply(const double *w, size_t p, size_t t, const double *x, double *out);

/* The held-out predictions of every row: for each group (groups NULL: each
 * row its own), the map fitted on the rows of the other groups applied to
 * the group's rows, into out (n x t).  A group that is every row is
 * predicted by the map of all rows.  Errors as gp_ridge_fit's. */
int gp_ridge_held_out(const double *x, const double *y, size_t n, size_t p, size_t t,
                      const uint32_t *groups, double lambda, const gp_alloc *alloc, double *out,
                      gp_error *err);

/* Chooses among ncand penalties the one of least held-out squared error
 * (gp_ridge_held_out, summed over rows and outputs; ties: the earliest).
 * loss (ncand, may be NULL) receives each; *best the index. */
int gp_ridge_select(const double *x, const double *y, size_t n, size_t p, size_t t,
                    const uint32_t *groups, const double *lambdas, size_t ncand,
                    const gp_alloc *alloc, double *loss, size_t *best, gp_error *err);

#endif
