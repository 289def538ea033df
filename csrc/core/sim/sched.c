/*
 * sched.c -- one warp scheduler: its ready and pending sets, the
 * policies (ScheduleWarp in GATSim's Algorithm 1, line 9) and the reason it
 * did not issue.
 *
 * A warp whose producers are done sits in the ready bitmap of its next
 * instruction's unit; one still waiting sits in the scheduler's pending
 * list, sorted by the cycle its producers finish (latest first).  At a look
 * at cycle t the list's tail gives up the warps due by t, and the warps that
 * can issue are the ready warps minus those of the units busy at t
 * (Algorithm 1 line 7's rdy set): a handful of word operations, whatever the
 * number of waiting warps.  The per-issue parts are inline in sched.h, where
 * the event loop (sim.c) compiles its look at a scheduler per policy (LRR,
 * GTO, the others) and per bitmap width (the usual one word, at most 64
 * warps per scheduler, with the loops unrolled away); this file holds the
 * rest and calls nothing of sim.c.
 *
 * Policies:
 *  - LRR: the first eligible warp after the last issued one, in position
 *    order (loose round-robin);
 *  - GTO: the last issued warp while it can issue, else the oldest eligible
 *    (dispatch order);
 *  - two-level (Narasiman et al., MICRO 2011): round-robin over an active set
 *    of at most active_warps warps; a warp that issues a long-latency load
 *    (global, local, texture, global atomic), reaches a barrier or exits
 *    leaves it, and the oldest pending warp whose producers are done takes
 *    the free place (so a warp waiting for a load stays out, while one whose
 *    next instruction does not need the load may come straight back);
 *  - callback: the caller's pick function chooses among the eligible warps.
 * The reason a scheduler did not issue ranks its warps' reasons (a busy SFU,
 * then another busy unit, then a load, a dependence, a barrier) and takes
 * the first warp in scan order with the highest; the cycles it waits are
 * charged to that warp's next PC.  A warp waiting for its launch (the front
 * end) is not resident yet: it gives no reason, and a scheduler with nothing
 * else is idle (sched_reason_no_warp).
 */
#include "sched.h"

#include <math.h>
#include <string.h>

/* The bytes of a scheduler's bitmaps, reason PCs and positions issued this
 * cycle: one block, as they are read together at every look. */
static size_t block_bytes(const sim *s, uint32_t words) {
  return (size_t)SET_COUNT * words * sizeof(uint64_t) +
         2 * (size_t)s->m->sm.issue_width * sizeof(uint32_t);
}

void sched_init(sim *s, sched_state *q, uint32_t smi, uint32_t sc, uint32_t count) {
  uint32_t u;
  q->sm = smi, q->sc = sc;
  q->sm_stalls = s->out->sm_stalls + (size_t)smi * GP_STALL_COUNT;
  q->warp_step = (size_t)s->S * sizeof(warp_state);
  q->count = count;
  q->words = count > 0 ? (count + 63) / 64 : 1;
  q->issue_width = s->m->sm.issue_width;
  for (u = 0; u < UNIT_COUNT; u++)
    q->unit_free[u] = q->unit_acc[u] = 0;
  q->latest_free = 0;
  q->next_due = INFINITY; /* nothing pending */
  q->issued = 0;
  q->rr = -1; /* the first pick is the scheduler's first warp */
  q->why = GP_STALL_IDLE;
  q->reason_pcs = s->out->pc_stalls != NULL;
}

int sched_alloc(sim *s, sched_state *q) {
  uint32_t width = s->m->sm.issue_width, count = q->count;
  q->warps = &s->sms[q->sm].warps[q->sc];
  q->bits = gp_malloc(&s->alloc, block_bytes(s, q->words));
  if (q->bits == NULL)
    return gp_error_set(s->err, "sim: out of memory");
  memset(q->bits, 0, block_bytes(s, q->words));
  q->why_pcs = (uint32_t *)(q->bits + (size_t)SET_COUNT * q->words);
  q->issued_now = q->why_pcs + width;
  if (count > 0 &&
      ((q->pending = q->pending_mem = gp_malloc(&s->alloc, 2 * count * sizeof *q->pending)) ==
           NULL ||
                    (q->ages = gp_malloc(&s->alloc, count * sizeof *q->ages)) == NULL))
    return gp_error_set(s->err, "sim: out of memory");
  return GP_OK;
}

void sched_free(sim *s, sched_state *q) {
  gp_free(&s->alloc, q->bits, block_bytes(s, q->words));
  gp_free(&s->alloc, q->pending_mem, 2 * q->count * sizeof *q->pending_mem);
  gp_free(&s->alloc, q->ages, q->count * sizeof *q->ages);
}

/* ---------------------------------------------------------------------------
 * The active set, callbacks and the two-level reason
 * ------------------------------------------------------------------------- */

void sched_leave_active(sched_state *q, uint32_t pos) {
  uint64_t *active = set_of(q, SET_ACTIVE);
  if (bit_test(active, pos)) {
    bit_clear(active, pos);
    q->active_count--;
  }
}

/* Two-level: fills the active set's free places with the oldest pending
 * warps whose producers are done by t (a warp waiting for a load stays
 * out). */
void sched_fill_active(const sim *s, sched_state *q) {
  uint64_t *c = set_of(q, SET_SCRATCH);
  const uint64_t *a = set_of(q, SET_ACTIVE);
  const uint64_t *any = set_of(q, SET_READY_ANY);
  uint32_t wi;
  if (q->active_count >= s->m->sm.active_warps)
    return;
  for (wi = 0; wi < q->words; wi++)
    c[wi] = any[wi] & ~a[wi];
  while (q->active_count < s->m->sm.active_warps) {
    int64_t pos = oldest_in(q, c, q->words);
    if (pos < 0)
      break;
    bit_clear(c, (uint32_t)pos);
    bit_set(set_of(q, SET_ACTIVE), (uint32_t)pos);
    q->active_count++;
  }
}

/* The callback policy: the eligible warps in position order to opt->pick.
 * Returns the chosen position, or -2 on error. */
int64_t sched_pick_callback(sim *s, sched_state *q, double t, const uint64_t *e) {
  uint32_t n = 0, wi;
  int r;
  for (wi = 0; wi < q->words; wi++) {
    uint64_t m = e[wi];
    while (m) {
      uint32_t pos = wi * 64 + (uint32_t)__builtin_ctzll(m);
      const warp_state *w = warp_at(q, pos);
      gp_sim_candidate *c = &s->cand[n++];
      m &= m - 1;
      c->warp = (uint32_t)w->g, c->slot = pos, c->age = q->ages[pos];
      c->pc_index = w->pc_index;
      c->op_class = w->op_class;
    }
  }
  if (n == 0)
    return -1;
  r = s->opt->pick(s->opt->pick_ctx, q->sm, q->sc, t, s->cand, n, s->err);
  if (r < 0)
    return -2;
  if ((uint32_t)r >= n) {
    gp_error_set(s->err, "sim: the pick callback chose candidate %d of %u", r, n);
    return -2;
  }
  return s->cand[r].slot;
}

/* Two-level: a scan in round-robin order over the warps that matter (the
 * active set, and the pending warps while it has a free place), ranking
 * reasons as sched_reason_from_sets does. */
double sched_reason_two_level(const sim *s, sched_state *q) {
  static const int rank[GP_STALL_COUNT] = {0, 4, 5, 6, 7, 6, 3, 1, 0};
  const uint64_t *active = set_of(q, SET_ACTIVE);
  int full = q->active_count >= s->m->sm.active_warps, best = GP_STALL_NO_WARP;
  uint32_t step;
  int64_t best_pos = -1;
  double when = INFINITY, t = s->t;
  for (step = 0; step < q->count; step++) {
    uint32_t pos = (uint32_t)((q->rr + 1 + step) % q->count);
    const warp_state *w = warp_at(q, pos);
    int is_active = bit_test(active, pos), why;
    double ready, free_at, w_when;
    if (!w->live || w->at_barrier) {
      why = w->live ? GP_STALL_BARRIER : GP_STALL_NO_WARP;
      w_when = INFINITY;
    } else if (!is_active && full) {
      continue; /* it waits for a place in the active set */
    } else {
      ready = w->ready;
      free_at = q->unit_free[w->unit];
      if (ready > t) {
        why = ready == w->not_before ? -1 /* its launch: not resident yet */
              : w->on_load           ? GP_STALL_MEMORY
                                     : GP_STALL_DEPENDENCE;
        w_when = ready > free_at ? ready : free_at;
      } else {
        why = unit_stall(w->unit);
        w_when = free_at > t ? free_at : t + 1;
      }
    }
    if (w_when < when)
      when = w_when;
    if (why >= 0 && rank[why] > rank[best])
      best = why, best_pos = pos;
  }
  if (best == GP_STALL_NO_WARP)
    sched_set_reason(q, sched_reason_no_warp(q, q->words), -1);
  else
    sched_set_reason(q, best, best_pos);
  return when;
}

