/*
 * interval_lean.h -- one step of the lean interval pass (gp_iv_total_cycles:
 * a warp's total cycles and nothing else), for interval.c's loops and the
 * walk that also takes the bounds' dependence paths (gpumech.c).  Private
 * to the C core.
 */
#ifndef GP_INTERVAL_LEAN_H
#define GP_INTERVAL_LEAN_H

#include "interval.h"

/* The state of the lean pass over one warp. */
typedef struct gp_iv_lean_state {
  double prev, step, last_done, stall;
} gp_iv_lean_state;

/* Instruction k of the lean pass: its issue cycle from the previous one's,
 * its unit's and its producers' done cycles; the gap it opens and its own
 * done cycle.  Inline with `interleaved` and `timing` constant at each
 * call, so the loops over a kernel's warps carry no tests of them. */
static inline __attribute__((always_inline)) void gp_iv_lean_step(
    gp_iv_lean_state *st, double *unit_free, const gp_iv_pc *r, uint64_t k, int quiet_now,
    const uint16_t *const *deps,
    size_t ndep, size_t stride, int packed, double slot, double *done, size_t mask,
    int interleaved, int timing) {
  double t = st->prev + st->step; /* 0 + 0 at k = 0 */
  double l = r->quiet && quiet_now ? r->quiet_latency : r->latency;
  int u = r->unit;
  size_t j;
  if (timing && u >= 0 && unit_free[u] > t)
    t = unit_free[u];
  if (interleaved) {
    const uint16_t *row = deps[0] + k * stride;
    for (j = 0; j < ndep && row[j] != 0; j++)
      if (row[j] <= k && done[(k - row[j]) & mask] > t)
        t = done[(k - row[j]) & mask];
  } else {
    for (j = 0; j < ndep; j++) {
      uint64_t d = deps[j][k * stride];
      if (d == 0 && packed)
        break;
      if (d != 0 && d <= k && done[(k - d) & mask] > t)
        t = done[(k - d) & mask];
    }
  }
  if (t > st->prev + slot) { /* never at k = 0: t is 0 there, slot above 0 */
    double gap = t - st->prev - slot;
    if (gap > 0) /* as gp_iv_run's intervals count it */
      st->stall += gap;
  }
  done[k & mask] = t + l;
  if (u >= 0)
    unit_free[u] = t + r->busy;
  if (t + l > st->last_done)
    st->last_done = t + l;
  st->prev = t;
  st->step = r->step;
}

/* One warp's lean pass: its input, layout and ring, and its state. */
typedef struct gp_iv_lean {
  const gp_iv_input *in;
  const uint16_t *deps[GP_IV_MAX_SRC];
  size_t ndep, stride, mask;
  double *done;
  int interleaved;
  gp_iv_lean_state st;
  double unit_free[GP_IV_UNITS]; /* apart from st, which stays in registers */
} gp_iv_lean;

/* Sets up r for input `in` on workspace p (its ring sized for the input). */
int gp_iv_lean_setup(gp_iv_lean *r, gp_iv_profile *p, const gp_iv_input *in, gp_error *err);
/* The warp's total: its issue slots and its stalls, the drain included. */
double gp_iv_lean_total(const gp_iv_lean *r);

#endif
