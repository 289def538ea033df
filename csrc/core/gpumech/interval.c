/*
 * interval.c -- GPUMech's interval algorithm (Eq. 4), interval profile
 * (Eq. 2), warp performance (Eq. 5) and AMAT (Sec. V-B).
 */
#include "interval_lean.h"

#include <string.h>

/* Dependence distances are uint16_t, so at most 65535 instructions back are
 * ever looked up: a ring of 65536 issue cycles suffices for any warp. */
#define RING_MAX 65536u

void gp_iv_profile_init(gp_iv_profile *p, const gp_alloc *alloc) {
  memset(p, 0, sizeof *p);
  p->alloc = *alloc;
}

void gp_iv_profile_free(gp_iv_profile *p) {
  gp_free(&p->alloc, p->iv, p->cap * sizeof *p->iv);
  gp_free(&p->alloc, p->cause_stall, p->cause_cap * sizeof *p->cause_stall);
  gp_free(&p->alloc, p->ring, p->ring_cap * sizeof *p->ring);
  p->iv = NULL;
  p->cause_stall = p->ring = NULL;
  p->count = p->cap = p->ncause = p->cause_cap = p->ring_cap = 0;
}

int gp_iv_profile_copy(gp_iv_profile *dst, const gp_iv_profile *src, gp_error *err) {
  if (src->count > dst->cap &&
      gp_grow(&dst->alloc, (void **)&dst->iv, &dst->cap, src->count, sizeof *dst->iv) != GP_OK)
    return gp_error_set(err, "interval: out of memory (%zu intervals)", src->count);
  if (src->ncause > dst->cause_cap) {
    size_t cap = dst->cause_cap;
    if (gp_grow(&dst->alloc, (void **)&dst->cause_stall, &cap, src->ncause, sizeof *dst->cause_stall) !=
        GP_OK)
      return gp_error_set(err, "interval: out of memory");
    dst->cause_cap = cap;
  }
  if (src->count > 0)
    memcpy(dst->iv, src->iv, src->count * sizeof *dst->iv);
  if (src->ncause > 0)
    memcpy(dst->cause_stall, src->cause_stall, src->ncause * sizeof *dst->cause_stall);
  dst->count = src->count, dst->ncause = src->ncause;
  dst->insts = src->insts, dst->stall_events = src->stall_events;
  dst->stall_cycles = src->stall_cycles, dst->issue_cycles = src->issue_cycles;
  dst->total_cycles = src->total_cycles;
  dst->mem_insts = src->mem_insts, dst->l1_miss_reqs = src->l1_miss_reqs;
  dst->dram_reqs = src->dram_reqs, dst->l2_reqs = src->l2_reqs;
  memcpy(dst->unit_insts, src->unit_insts, sizeof dst->unit_insts);
  memcpy(dst->unit_busy, src->unit_busy, sizeof dst->unit_busy);
  return GP_OK;
}

/* Zeroes a profile's counts and sums before a run. */
static void reset_totals(gp_iv_profile *p) {
  p->count = 0;
  p->insts = p->stall_events = 0;
  p->stall_cycles = p->total_cycles = 0;
  p->mem_insts = p->l1_miss_reqs = p->dram_reqs = p->l2_reqs = 0;
  memset(p->unit_insts, 0, sizeof p->unit_insts);
  memset(p->unit_busy, 0, sizeof p->unit_busy);
}

/* Closes the current interval: adds its stall to the totals and to its
 * cause, and stores it unless only totals are wanted. */
static int close_interval(gp_iv_profile *p, gp_iv_interval *cur, int store, gp_error *err) {
  if (cur->stall_cycles > 0) {
    p->stall_cycles += cur->stall_cycles;
    p->stall_events++;
    p->cause_stall[cur->cause] += cur->stall_cycles;
  }
  p->mem_insts += cur->mem_insts;
  p->l1_miss_reqs += cur->l1_miss_reqs;
  p->dram_reqs += cur->dram_reqs;
  p->l2_reqs += cur->l2_reqs;
  if (store) {
    if (p->count == p->cap &&
        gp_grow(&p->alloc, (void **)&p->iv, &p->cap, p->count + 1, sizeof *p->iv) != GP_OK)
      return gp_error_set(err, "interval: out of memory (%zu intervals)", p->count + 1);
    p->iv[p->count] = *cur;
  }
  p->count++;
  return GP_OK;
}

/* Checks the input and sizes the profile's buffers for it. */
static int prepare(gp_iv_profile *p, const gp_iv_input *in, double *issue_out, gp_error *err) {
  size_t ncause = in->ncause ? in->ncause : 1;
  if (in->count > 0 && in->latency == NULL)
    return gp_error_set(err, "interval: latency array is required");
  if (!(in->issue_cycles > 0))
    return gp_error_set(err, "interval: issue_cycles must be > 0 (got %g)", in->issue_cycles);
  if (ncause > p->cause_cap) {
    size_t cap = p->cause_cap;
    if (gp_grow(&p->alloc, (void **)&p->cause_stall, &cap, ncause, sizeof *p->cause_stall) != GP_OK)
      return gp_error_set(err, "interval: out of memory");
    p->cause_cap = cap;
  }
  memset(p->cause_stall, 0, ncause * sizeof *p->cause_stall);
  p->ncause = ncause;
  if (issue_out == NULL && in->count > 0) {
    size_t ring = 64;
    while (ring < in->count && ring < RING_MAX)
      ring *= 2;
    if (ring > p->ring_cap) {
      double *r = gp_realloc(&p->alloc, p->ring, p->ring_cap * sizeof *r, ring * sizeof *r);
      if (r == NULL)
        return gp_error_set(err, "interval: out of memory");
      p->ring = r;
      p->ring_cap = ring;
    }
  }
  return GP_OK;
}

/* Whether instruction k (of PC idx) runs with no active lane and a latency
 * of its own for that case (gp_iv_input.active / inactive_latency). */
static int inactive(const uint8_t *active, const double *inactive_latency, uint64_t k,
                    size_t idx) {
  return active && inactive_latency && active[k] == 0 && inactive_latency[idx] >= 0;
}

/* The interval algorithm.  One pass over the instructions; the only memory
 * touched per instruction is its per-PC entries, its producers' issue
 * cycles (issue_out or the ring) and the current interval's accumulators.
 * Issue cycles are doubles so fractional issue rates stay exact for the
 * usual power-of-two rates. */
int gp_iv_run(gp_iv_profile *p, const gp_iv_input *in, double *issue_out, gp_error *err) {
  const uint32_t *pcs = in->pc;
  const double *lat = in->latency, *ii = in->ii;
  const int32_t *cause = in->cause;
  const double *memw = in->mem_insts, *l1r = in->l1_miss_reqs, *drr = in->dram_reqs;
  const double *l2r = in->l2_reqs, *ubusy = in->unit_busy;
  const int8_t *unit = in->unit;
  const uint8_t *act = in->active;
  const double *inact = in->inactive_latency;
  const uint16_t *deps[GP_IV_MAX_SRC];
  double *issue;
  size_t mask, ndep = 0, j, ncause, stride = in->dep_stride ? in->dep_stride : 1;
  int store = !in->totals_only;
  double slot = in->issue_cycles, prev = 0, prev_ii = 0, last_done = 0;
  double unit_free[GP_IV_UNITS] = {0};
  int32_t prev_cause = 0, last_done_cause = 0, unit_cause[GP_IV_UNITS] = {0};
  gp_iv_interval cur;
  uint64_t k, n = in->count;

  reset_totals(p);
  p->insts = n;
  p->issue_cycles = slot;
  if (prepare(p, in, issue_out, err) != GP_OK)
    return GP_ERR;
  if (n == 0)
    return GP_OK;
  ncause = p->ncause;
  for (j = 0; j < GP_IV_MAX_SRC; j++)
    if (in->dep[j])
      deps[ndep++] = in->dep[j];
  if (issue_out) {
    issue = issue_out;
    mask = SIZE_MAX; /* index directly */
  } else {
    issue = p->ring;
    mask = p->ring_cap - 1;
  }
  memset(&cur, 0, sizeof cur);
  cur.cause = -1;

  for (k = 0; k < n; k++) {
    size_t idx = pcs ? pcs[k] : (size_t)k;
    int quiet = inactive(act, inact, k, idx);
    double t = k == 0 ? 0 : prev + prev_ii, l = quiet ? inact[idx] : lat[idx];
    int32_t c = cause ? cause[idx] : 0, why = prev_cause;
    int u = unit ? unit[idx] : -1;
    if (c < 0 || (size_t)c >= ncause)
      return gp_error_set(err, "interval: instruction %llu has cause id %ld outside [0, %zu)",
                          (unsigned long long)k, (long)c, ncause);
    if (u >= GP_IV_UNITS)
      return gp_error_set(err, "interval: instruction %llu has unit id %d outside [0, %d)",
                          (unsigned long long)k, u, GP_IV_UNITS);
    if (in->unit_timing && u >= 0 && unit_free[u] > t) { /* its unit is still busy */
      t = unit_free[u];
      why = unit_cause[u];
    }
    /* Eq. 4 with the project's latency convention: a producer p releases
     * its consumer at issue(p) + L(p) (done_cycle + 1 = issue + L) */
    for (j = 0; j < ndep; j++) {
      uint64_t d = deps[j][k * stride];
      if (d == 0 && in->deps_packed)
        break;
      if (d != 0 && d <= k) {
        uint64_t pk = k - d;
        size_t pidx = pcs ? pcs[pk] : (size_t)pk;
        double ready =
            issue[pk & mask] + (inactive(act, inact, pk, pidx) ? inact[pidx] : lat[pidx]);
        if (ready > t) {
          t = ready;
          why = cause ? cause[pidx] : 0;
        }
      }
    }
    if (k > 0 && t > prev + slot) {
      /* a gap: the interval holding k-1 ends with t - prev - slot stall
       * cycles (Eq. 2), caused by whatever set t */
      cur.stall_cycles = t - prev - slot;
      cur.cause = why;
      if (close_interval(p, &cur, store, err) != GP_OK)
        return GP_ERR;
      cur.first = k;
      cur.insts = 0;
      cur.stall_cycles = 0;
      cur.cause = -1;
      cur.mem_insts = cur.l1_miss_reqs = cur.dram_reqs = cur.l2_reqs = 0;
    }
    issue[k & mask] = t;
    cur.insts++;
    if (memw && !quiet)
      cur.mem_insts += memw[idx];
    if (l1r && !quiet)
      cur.l1_miss_reqs += l1r[idx];
    if (drr && !quiet)
      cur.dram_reqs += drr[idx];
    if (l2r && !quiet)
      cur.l2_reqs += l2r[idx];
    if (u >= 0) {
      double busy = ubusy ? ubusy[idx] : slot;
      p->unit_insts[u] += 1;
      p->unit_busy[u] += busy;
      unit_free[u] = t + busy;
      unit_cause[u] = c;
    }
    if (t + l > last_done) {
      last_done = t + l;
      last_done_cause = c;
    }
    prev = t;
    prev_ii = ii ? (ii[idx] > slot ? ii[idx] : slot) : slot;
    prev_cause = c;
  }
  /* the drain: the warp is done when its last result is ready */
  if (last_done > prev + slot) {
    cur.stall_cycles = last_done - prev - slot;
    cur.cause = last_done_cause;
  }
  if (close_interval(p, &cur, store, err) != GP_OK)
    return GP_ERR;
  p->total_cycles = (double)n * slot + p->stall_cycles;
  return GP_OK;
}

int gp_iv_pc_table(const gp_iv_input *in, size_t npc, gp_iv_pc *out, gp_error *err) {
  double slot = in->issue_cycles;
  size_t i;
  for (i = 0; i < npc; i++) {
    gp_iv_pc *r = &out[i];
    int u = in->unit ? in->unit[i] : -1;
    if (u >= GP_IV_UNITS)
      return gp_error_set(err, "interval: PC %zu has unit id %d outside [0, %d)", i, u, GP_IV_UNITS);
    r->latency = in->latency[i];
    r->quiet = in->active && in->inactive_latency && in->inactive_latency[i] >= 0;
    r->quiet_latency = r->quiet ? in->inactive_latency[i] : 0;
    r->busy = in->unit_busy ? in->unit_busy[i] : slot;
    r->step = in->ii ? (in->ii[i] > slot ? in->ii[i] : slot) : slot;
    r->unit = (int8_t)u;
  }
  return GP_OK;
}

/* The loop of the lean pass over steps [from, n), compiled per layout and
 * unit timing. */
static inline __attribute__((always_inline)) void lean_loop(
    gp_iv_lean_state *st, double *unit_free, const gp_iv_input *in, const gp_iv_pc *table,
    const uint16_t *const *deps,
    size_t ndep, size_t stride, double *done, size_t mask, uint64_t from, uint64_t n,
    int interleaved, int timing) {
  const uint32_t *pcs = in->pc;
  const uint8_t *act = in->active;
  uint64_t k;
  if (pcs && act) /* a kernel's warp (GPUMech's input): no tests of the arrays per step */
    for (k = from; k < n; k++)
      gp_iv_lean_step(st, unit_free, &table[pcs[k]], k, act[k] == 0, deps, ndep, stride, in->deps_packed,
                in->issue_cycles, done, mask, interleaved, timing);
  else if (pcs) /* without active lanes no PC is quiet */
    for (k = from; k < n; k++)
      gp_iv_lean_step(st, unit_free, &table[pcs[k]], k, 0, deps, ndep, stride, in->deps_packed, in->issue_cycles,
                done, mask, interleaved, timing);
  else
    for (k = from; k < n; k++)
      gp_iv_lean_step(st, unit_free, &table[k], k, act != NULL && act[k] == 0, deps, ndep, stride, in->deps_packed,
                in->issue_cycles, done, mask, interleaved, timing);
}

int gp_iv_lean_setup(gp_iv_lean *r, gp_iv_profile *p, const gp_iv_input *in, gp_error *err) {
  size_t j;
  memset(r, 0, sizeof *r);
  r->in = in;
  if (prepare(p, in, NULL, err) != GP_OK)
    return GP_ERR;
  r->stride = in->dep_stride ? in->dep_stride : 1;
  for (j = 0; j < GP_IV_MAX_SRC; j++)
    if (in->dep[j])
      r->deps[r->ndep++] = in->dep[j];
  /* a kernel's layout: every slot of an instruction side by side, the
   * nearest first and a 0 after the last; read as one row */
  for (j = 0; j < r->ndep && r->deps[j] == r->deps[0] + j; j++)
    ;
  r->interleaved = in->deps_packed && r->ndep > 0 && j == r->ndep && r->stride >= r->ndep;
  r->done = p->ring;
  r->mask = p->ring_cap - 1;
  return GP_OK;
}

/* Steps [from, to) of r's warp. */
static void lean_run_steps(gp_iv_lean *r, const gp_iv_pc *table, uint64_t from, uint64_t to) {
  gp_iv_lean_state state = r->st, *st = &state; /* a local the compiler can keep in registers */
  const gp_iv_input *in = r->in;
  if (r->interleaved && in->unit_timing)
    lean_loop(st, r->unit_free, in, table, r->deps, r->ndep, r->stride, r->done, r->mask, from, to, 1, 1);
  else if (r->interleaved)
    lean_loop(st, r->unit_free, in, table, r->deps, r->ndep, r->stride, r->done, r->mask, from, to, 1, 0);
  else
    lean_loop(st, r->unit_free, in, table, r->deps, r->ndep, r->stride, r->done, r->mask, from, to, 0,
              in->unit_timing);
  r->st = state;
}

double gp_iv_lean_total(const gp_iv_lean *r) {
  double slot = r->in->issue_cycles, stall = r->st.stall;
  if (r->in->count == 0)
    return 0;
  if (r->st.last_done > r->st.prev + slot) { /* the drain */
    double drain = r->st.last_done - r->st.prev - slot;
    if (drain > 0)
      stall += drain;
  }
  return (double)r->in->count * slot + stall;
}

/* gp_iv_run's total cycles alone, for the pass over every warp: the same
 * issue cycles in the same arithmetic (so the same total, bit for bit),
 * without what only a stored profile needs (causes, intervals, request and
 * unit sums).  The per-PC facts come from one table (one record per PC
 * instead of a load from each per-PC array), and the ring holds each
 * instruction's done cycle, issue + latency, added once at the producer
 * instead of at every consumer. */
int gp_iv_total_cycles(gp_iv_profile *p, const gp_iv_input *in, const gp_iv_pc *table,
                       double *total, gp_error *err) {
  gp_iv_lean r;
  if (gp_iv_lean_setup(&r, p, in, err) != GP_OK)
    return GP_ERR;
  lean_run_steps(&r, table, 0, in->count);
  *total = gp_iv_lean_total(&r);
  return GP_OK;
}

/* Both warps' steps [0, n) in turn, a's then b's for each k: a kernel's
 * layout (PCs, active lanes, interleaved producers) with unit timing on or
 * off.  Inline with `timing` constant, so each warp's step is the one
 * lean_loop takes. */
static inline __attribute__((always_inline)) void lean_pair_steps(gp_iv_lean *a, gp_iv_lean *b,
                                                                   const gp_iv_pc *table,
                                                                   uint64_t n, int timing) {
  const uint32_t *pa = a->in->pc, *pb = b->in->pc;
  const uint8_t *xa = a->in->active, *xb = b->in->active;
  double slot = a->in->issue_cycles;
  gp_iv_lean_state sa = a->st, sb = b->st; /* locals the compiler can keep in registers */
  uint64_t k;
  for (k = 0; k < n; k++) {
    gp_iv_lean_step(&sa, a->unit_free, &table[pa[k]], k, xa[k] == 0, a->deps, a->ndep, a->stride, 1, slot, a->done,
              a->mask, 1, timing);
    gp_iv_lean_step(&sb, b->unit_free, &table[pb[k]], k, xb[k] == 0, b->deps, b->ndep, b->stride, 1, slot, b->done,
              b->mask, 1, timing);
  }
  a->st = sa, b->st = sb;
}

int gp_iv_total_cycles_pair(gp_iv_profile *p, gp_iv_profile *q, const gp_iv_input *a,
                            const gp_iv_input *b, const gp_iv_pc *table, double *total_a,
                            double *total_b, gp_error *err) {
  gp_iv_lean ra, rb;
  uint64_t common = a->count < b->count ? a->count : b->count;
  if (gp_iv_lean_setup(&ra, p, a, err) != GP_OK || gp_iv_lean_setup(&rb, q, b, err) != GP_OK)
    return GP_ERR;
  if (ra.interleaved && rb.interleaved && a->pc && b->pc && a->active && b->active &&
      a->unit_timing == b->unit_timing && a->issue_cycles == b->issue_cycles) {
    if (a->unit_timing)
      lean_pair_steps(&ra, &rb, table, common, 1);
    else
      lean_pair_steps(&ra, &rb, table, common, 0);
  } else {
    common = 0; /* another layout: one warp after the other */
  }
  lean_run_steps(&ra, table, common, a->count);
  lean_run_steps(&rb, table, common, b->count);
  *total_a = gp_iv_lean_total(&ra);
  *total_b = gp_iv_lean_total(&rb);
  return GP_OK;
}

int gp_iv_profile_set(gp_iv_profile *p, const gp_iv_interval *iv, size_t n, size_t ncause,
                      double issue_cycles, gp_error *err) {
  gp_iv_input in;
  size_t i;
  memset(&in, 0, sizeof in);
  in.ncause = ncause;
  in.issue_cycles = issue_cycles;
  if (prepare(p, &in, NULL, err) != GP_OK)
    return GP_ERR;
  reset_totals(p);
  p->issue_cycles = issue_cycles;
  for (i = 0; i < n; i++) {
    gp_iv_interval cur = iv[i];
    if (cur.stall_cycles < 0 || (cur.stall_cycles > 0 && (cur.cause < 0 || (size_t)cur.cause >= p->ncause)))
      return gp_error_set(err, "interval: interval %zu has stall %g with cause %ld (ncause %zu)",
                          i, cur.stall_cycles, (long)cur.cause, p->ncause);
    p->insts += cur.insts;
    if (close_interval(p, &cur, 1, err) != GP_OK)
      return GP_ERR;
  }
  p->total_cycles = (double)p->insts * issue_cycles + p->stall_cycles;
  return GP_OK;
}

double gp_iv_warp_perf(const gp_iv_profile *p) {
  /* Eq. 5 */
  return p->total_cycles > 0 ? (double)p->insts / p->total_cycles : 0;
}

double gp_amat_cycles(const double *frac, const double *latency_cycles, size_t levels) {
  double s = 0;
  size_t i;
  for (i = 0; i < levels; i++)
    s += frac[i] * latency_cycles[i];
  return s;
}
