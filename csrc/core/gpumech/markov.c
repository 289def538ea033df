/*
 * markov.c -- Chen and Aamodt's Markov-chain throughput model (HPCA 2009)
 * as described in markov.h.
 */
#include "markov.h"

#include <math.h>
#include <string.h>

/* Binomial(k, q) probabilities into b[0..k], by the multiplicative
 * recurrence b[j+1] = b[j] (k - j) / (j + 1) q / (1 - q). */
static void binomial(double *b, size_t k, double q) {
  size_t j;
  if (q >= 1) {
    memset(b, 0, (k + 1) * sizeof *b);
    b[k] = 1;
    return;
  }
  b[0] = pow(1 - q, (double)k);
  for (j = 0; j < k; j++)
    b[j + 1] = b[j] * (double)(k - j) / (double)(j + 1) * (q / (1 - q));
}

/* Transition matrix P (row-major, s x s, s = N + 1): row k is the
 * distribution of the next state from k. */
static void transitions(double *P, size_t n, double p, double q, double *b) {
  size_t s = n + 1, k, w;
  memset(P, 0, s * s * sizeof *P);
  for (k = 0; k <= n; k++) {
    double stall = k < n ? p : 0; /* an issue happens only when k < N */
    binomial(b, k, q);
    for (w = 0; w <= k; w++) {
      size_t to = k - w;
      P[k * s + to] += b[w] * (1 - stall);
      if (stall > 0)
        P[k * s + to + 1] += b[w] * stall;
    }
  }
}

/* Solves pi (P - I) = 0 with sum pi = 1: the system A x = e with
 * A = (P - I)^T and its last equation replaced by the normalisation.
 * Gaussian elimination with partial pivoting; A is s x s. */
static int stationary(double *A, const double *P, size_t s, double *x) {
  size_t i, j, c;
  for (i = 0; i < s; i++)
    for (j = 0; j < s; j++)
      A[i * s + j] = P[j * s + i] - (i == j ? 1 : 0);
  for (j = 0; j < s; j++)
    A[(s - 1) * s + j] = 1;
  for (i = 0; i < s; i++)
    x[i] = i == s - 1 ? 1 : 0;
  for (c = 0; c < s; c++) {
    size_t piv = c;
    for (i = c + 1; i < s; i++)
      if (fabs(A[i * s + c]) > fabs(A[piv * s + c]))
        piv = i;
    if (fabs(A[piv * s + c]) < 1e-300)
      return GP_ERR;
    if (piv != c) {
      for (j = 0; j < s; j++) {
        double t = A[c * s + j];
        A[c * s + j] = A[piv * s + j];
        A[piv * s + j] = t;
      }
      {
        double t = x[c];
        x[c] = x[piv];
        x[piv] = t;
      }
    }
    for (i = c + 1; i < s; i++) {
      double f = A[i * s + c] / A[c * s + c];
      if (f == 0)
        continue;
      for (j = c; j < s; j++)
        A[i * s + j] -= f * A[c * s + j];
      x[i] -= f * x[c];
    }
  }
  for (i = s; i-- > 0;) {
    double v = x[i];
    for (j = i + 1; j < s; j++)
      v -= A[i * s + j] * x[j];
    x[i] = v / A[i * s + i];
  }
  /* clean rounding: probabilities are >= 0 and sum to 1 */
  {
    double sum = 0;
    for (i = 0; i < s; i++) {
      if (x[i] < 0)
        x[i] = 0;
      sum += x[i];
    }
    if (!(sum > 0))
      return GP_ERR;
    for (i = 0; i < s; i++)
      x[i] /= sum;
  }
  return GP_OK;
}

int gp_mc_solve(size_t threads, double p_stall, double stall_slots, const gp_alloc *alloc,
                double *pi, gp_mc_result *out, gp_error *err) {
  size_t s = threads + 1, k;
  double *P, *A, *x, *b, p, M, q;
  int rc;
  memset(out, 0, sizeof *out);
  if (threads == 0 || threads > 4096)
    return gp_error_set(err, "markov: threads must be in [1, 4096] (got %zu)", threads);
  if (!(p_stall == p_stall) || !(stall_slots == stall_slots))
    return gp_error_set(err, "markov: p and M must be numbers");
  p = p_stall < 0 ? 0 : p_stall > 1 ? 1 : p_stall;
  M = stall_slots < 1 ? 1 : stall_slots;
  q = 1 / M;
  P = gp_malloc(alloc, s * s * sizeof *P);
  A = gp_malloc(alloc, s * s * sizeof *A);
  x = gp_malloc(alloc, s * sizeof *x);
  b = gp_malloc(alloc, s * sizeof *b);
  if (!P || !A || !x || !b) {
    rc = gp_error_set(err, "markov: out of memory (%zu states)", s);
    goto done;
  }
  transitions(P, threads, p, q, b);
  if (stationary(A, P, s, x) != GP_OK) {
    rc = gp_error_set(err, "markov: singular chain (N=%zu p=%g M=%g)", threads, p, M);
    goto done;
  }
  out->threads = threads;
  out->p_stall = p;
  out->stall_slots = M;
  out->p_all_stalled = x[threads];
  out->ipc = 1 - x[threads];
  out->cpi = out->ipc > 0 ? 1 / out->ipc : HUGE_VAL;
  for (k = 0; k <= threads; k++)
    out->mean_stalled += (double)k * x[k];
  if (pi)
    memcpy(pi, x, s * sizeof *x);
  rc = GP_OK;
done:
  gp_free(alloc, P, s * s * sizeof *P);
  gp_free(alloc, A, s * s * sizeof *A);
  gp_free(alloc, x, s * sizeof *x);
  gp_free(alloc, b, s * sizeof *b);
  return rc;
}

void gp_mc_params_from_profile(double insts, double stall_cycles, double stall_events,
                               double issue_cycles, double *p_stall, double *stall_slots) {
  if (!(insts > 0) || !(stall_events > 0) || !(stall_cycles > 0) || !(issue_cycles > 0)) {
    *p_stall = 0;
    *stall_slots = 1;
    return;
  }
  *p_stall = stall_events / insts;
  *stall_slots = stall_cycles / stall_events / issue_cycles;
}
