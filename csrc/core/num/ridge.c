/*
 * ridge.c -- ridge regression with leave-one-group-out penalty choice
 * (ridge.h).
 */
#include "ridge.h"

#include <math.h>
#include <string.h>

/* Factors the q x q symmetric matrix a in place into its lower Cholesky
 * factor; GP_ERR when a pivot is not positive (singular). */
static int cholesky(double *a, size_t q) {
  size_t i, j, k;
  for (j = 0; j < q; j++) {
    double d = a[j * q + j];
    for (k = 0; k < j; k++)
      d -= a[j * q + k] * a[j * q + k];
    if (!(d > 0))
      return GP_ERR;
    a[j * q + j] = sqrt(d);
    for (i = j + 1; i < q; i++) {
      double v = a[i * q + j];
      for (k = 0; k < j; k++)
        v -= a[i * q + k] * a[j * q + k];
      a[i * q + j] = v / a[j * q + j];
    }
  }
  return GP_OK;
}

/* Solves L L^T b = b in place for each of the t columns of b (q x t). */
static void cholesky_solve(const double *l, size_t q, double *b, size_t t) {
  size_t i, k, c;
  for (c = 0; c < t; c++) {
    for (i = 0; i < q; i++) {
      double v = b[i * t + c];
      for (k = 0; k < i; k++)
        v -= l[i * q + k] * b[k * t + c];
      b[i * t + c] = v / l[i * q + i];
    }
    for (i = q; i-- > 0;) {
      double v = b[i * t + c];
      for (k = i + 1; k < q; k++)
        v -= l[k * q + i] * b[k * t + c];
      b[i * t + c] = v / l[i * q + i];
    }
  }
}

/* Input j of row i with the intercept's 1 appended. */
static double input(const double *x, size_t p, size_t i, size_t j) {
  return j < p ? x[i * p + j] : 1.0;
}

int gp_ridge_fit(const double *x, const double *y, size_t n, size_t p, size_t t,
                 const unsigned char *use, double lambda, const gp_alloc *alloc, double *w,
                 gp_error *err) {
  size_t q = p + 1, i, j, k, c, used = 0;
  double *a;
  if (q > SIZE_MAX / sizeof(double) / q)
    return gp_error_set(err, "ridge: %zu inputs overflow", p);
  a = gp_malloc(alloc, q * q * sizeof *a);
  if (!a)
    return gp_error_set(err, "ridge: out of memory for %zu inputs", p);
  memset(a, 0, q * q * sizeof *a);
  memset(w, 0, q * t * sizeof *w);
  for (i = 0; i < n; i++) { /* X^T X and X^T Y over the rows used */
    if (use && !use[i])
      continue;
    used++;
    for (j = 0; j < q; j++) {
      double xj = input(x, p, i, j);
      for (k = 0; k <= j; k++)
        a[j * q + k] += xj * input(x, p, i, k);
      for (c = 0; c < t; c++)
        w[j * t + c] += xj * y[i * t + c];
    }
  }
  for (j = 0; j < q; j++) {
    for (k = j + 1; k < q; k++)
      a[j * q + k] = a[k * q + j];
    if (j < p)
      a[j * q + j] += lambda;
  }
  if (used == 0 || cholesky(a, q) != GP_OK) {
    gp_free(alloc, a, q * q * sizeof *a);
    return used == 0 ? gp_error_set(err, "ridge: no rows to fit")
                     : gp_error_set(err, "ridge: a singular system (%zu rows, %zu inputs, "
                                    "penalty %g)", used, p, lambda);
  }
  cholesky_solve(a, q, w, t);
  gp_free(alloc, a, q * q * sizeof *a);
  return GP_OK;
}

void gp_ridge_apply(const double *w, size_t p, size_t t, const double *x, double *out) {
  size_t j, c;
  for (c = 0; c < t; c++)
    out[c] = w[p * t + c];
  for (j = 0; j < p; j++)
    if (x[j] != 0)
      for (c = 0; c < t; c++)
        out[c] += x[j] * w[j * t + c];
}

int gp_ridge_held_out(const double *x, const double *y, size_t n, size_t p, size_t t,
                      const uint32_t *groups, double lambda, const gp_alloc *alloc, double *out,
                      gp_error *err) {
  size_t q = p + 1, i, j;
  unsigned char *use = gp_malloc(alloc, n ? n : 1), *done = gp_malloc(alloc, n ? n : 1);
  double *w = gp_malloc(alloc, q * t * sizeof *w + 1);
  int rc = GP_OK;
  if (!use || !done || !w) {
    rc = gp_error_set(err, "ridge: out of memory for %zu rows", n);
    goto end;
  }
  memset(done, 0, n);
  for (i = 0; i < n && rc == GP_OK; i++) {
    size_t others = 0;
    if (done[i])
      continue;
    for (j = 0; j < n; j++) { /* the rows of i's group are held out together */
      int same = groups ? groups[j] == groups[i] : j == i;
      use[j] = !same;
      others += !same;
      done[j] |= (unsigned char)same;
    }
    if (others == 0)
      memset(use, 1, n);
    rc = gp_ridge_fit(x, y, n, p, t, use, lambda, alloc, w, err);
    for (j = 0; j < n && rc == GP_OK; j++)
      if (groups ? groups[j] == groups[i] : j == i)
        gp_ridge_apply(w, p, t, x + j * p, out + j * t);
  }
end:
  gp_free(alloc, use, n ? n : 1);
  gp_free(alloc, done, n ? n : 1);
  gp_free(alloc, w, q * t * sizeof *w + 1);
  return rc;
}

int gp_ridge_select(const double *x, const double *y, size_t n, size_t p, size_t t,
                    const uint32_t *groups, const double *lambdas, size_t ncand,
                    const gp_alloc *alloc, double *loss, size_t *best, gp_error *err) {
  double *pred, least = INFINITY;
  size_t c, i;
  *best = 0;
  if (n == 0 || ncand == 0)
    return gp_error_set(err, "ridge: %zu rows, %zu penalties (both > 0 needed)", n, ncand);
  if (t > SIZE_MAX / sizeof(double) / n)
    return gp_error_set(err, "ridge: %zu rows x %zu outputs overflow", n, t);
  pred = gp_malloc(alloc, n * t * sizeof *pred);
  if (!pred)
    return gp_error_set(err, "ridge: out of memory for %zu rows", n);
  for (c = 0; c < ncand; c++) {
    double sum = 0;
    if (gp_ridge_held_out(x, y, n, p, t, groups, lambdas[c], alloc, pred, err) != GP_OK) {
      gp_free(alloc, pred, n * t * sizeof *pred);
      return GP_ERR;
    }
    for (i = 0; i < n * t; i++)
      sum += (pred[i] - y[i]) * (pred[i] - y[i]);
    if (loss)
      loss[c] = sum;
    if (sum < least)
      least = sum, *best = c;
  }
  gp_free(alloc, pred, n * t * sizeof *pred);
  return GP_OK;
}
