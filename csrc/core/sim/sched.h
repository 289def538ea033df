/*
 * sched.h -- one warp scheduler's sets and policies (sched.c), as the event
 * loop (sim.c) reads them at every look at a scheduler: the pending list's
 * promotion, the eligible warps (GATSim's Algorithm 1 line 7), the policy's
 * pick (ScheduleWarp, line 9) and the reason a scheduler did not issue.  The
 * per-issue helpers are inline here, so the loop that calls them is compiled
 * per policy and per bitmap width; the rarer work (allocation, the two-level
 * active set, a callback policy, the two-level reason scan) is in sched.c,
 * which calls nothing of sim.c.
 */
#ifndef GP_SIM_SCHED_H
#define GP_SIM_SCHED_H

#include "state.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Scheduler sc of SM smi, `count` warp positions, idle: its fields, no
 * memory. */
void sched_init(sim *s, sched_state *q, uint32_t smi, uint32_t sc, uint32_t count);
/* Its sets, lists and warps (when its SM is built: sim.c's build_sm). */
int sched_alloc(sim *s, sched_state *q);
void sched_free(sim *s, sched_state *q);
/* A warp of the scheduler left the active set's candidates (exited, at a
 * barrier, or issued a long-latency load): two-level bookkeeping. */
void sched_leave_active(sched_state *q, uint32_t pos);
/* Two-level: fills the active set's free places with the oldest pending
 * warps whose producers are done (a warp waiting for a load stays out). */
void sched_fill_active(const sim *s, sched_state *q);
/* The callback policy: the chosen position among e, -1 none, -2 error. */
int64_t sched_pick_callback(sim *s, sched_state *q, double t, const uint64_t *e);
/* Two-level: why nothing issued (q->why) and the earliest cycle anything
 * can. */
double sched_reason_two_level(const sim *s, sched_state *q);

/* Moves the pending warps whose producers are done by t to ready (their
 * unit bits stayed set while they waited: state.h). */
static inline __attribute__((always_inline)) void sched_promote(sched_state *q, double t,
                                                          uint32_t words) {
  uint32_t n;
  const pend_entry *p;
  if (q->next_due > t)
    return; /* the usual look: nothing due (or nothing pending) */
  n = q->pending_count;
  p = q->pending + n; /* one past the soonest */
  do {
    uint32_t pos;
    p--;
    pos = p->pos;
    bit_drop_w(set_w(q, p->set, words), pos, words); /* in its pending set */
    bit_set_w(set_w(q, SET_READY_ANY, words), pos, words);
  } while (--n > 0 && p[-1].ready <= t);
  q->pending_count = n;
  q->next_due = n > 0 ? p[-1].ready : INFINITY;
}

/* Where round-robin scanning starts: the position after the last issue.
 * One word (`words` 1, a constant in the hot paths): rr + 1 as it is, no
 * test against the count, as first_from takes the bits from start & 63 and
 * wraps to the whole word when none is set there: a start of 64 is 0, and
 * one from the count to 63 finds no bit (no position there) and wraps, as
 * 0 would. */
static inline uint32_t rr_start(const sched_state *q, uint32_t words) {
  uint32_t start = (uint32_t)(q->rr + 1);
  if (words == 1)
    return start;
  return start >= q->count ? 0 : start;
}

/* The first set bit at or after `start`, wrapping round; -1 when none.
 * One word (start up to 64, rr_start's): the bits from start & 63, else
 * the whole word. */
static inline __attribute__((always_inline)) int64_t first_from(const uint64_t *b, uint32_t words,
                                                                 uint32_t start) {
  uint32_t wi = start >> 6, n;
  uint64_t m;
  if (words == 1) { /* b[0], not b[wi]: a one-word mask stays in a register */
    m = b[0] & (~(uint64_t)0 << (start & 63));
    if (m == 0)
      m = b[0];
    return m ? (int64_t)__builtin_ctzll(m) : -1;
  }
  m = b[wi] & (~(uint64_t)0 << (start & 63));
  for (n = 0; n <= words; n++) {
    if (m)
      return (int64_t)wi * 64 + __builtin_ctzll(m);
    wi = wi + 1 == words ? 0 : wi + 1;
    m = b[wi];
  }
  return -1;
}

static inline int any_bit(const uint64_t *b, uint32_t words) {
  uint32_t i;
  for (i = 0; i < words; i++)
    if (b[i])
      return 1;
  return 0;
}

/* Whether every warp of the scheduler waits at t for a known later cycle
 * (its producers, its launch) or for a barrier: no warp is ready and none
 * is due by t, so a look at t issues nothing whatever the policy (tested
 * for t one cycle after an issue, whose look is then skipped). */
static inline __attribute__((always_inline)) int sched_all_waiting(const sched_state *q, double t,
                                                                   uint32_t words) {
  return !any_bit(set_w(q, SET_READY_ANY, words), words) && q->next_due > t;
}

/* The warp at position pos: one multiplication by a byte step (the slot
 * index times the warp's size cost two instructions more at every pick). */
static inline warp_state *warp_at(const sched_state *q, uint32_t pos) {
  return (warp_state *)((char *)q->warps + (size_t)pos * q->warp_step);
}

/* The oldest warp of bitmap b; -1 when empty. */
static inline __attribute__((always_inline)) int64_t oldest_in(const sched_state *q,
                                                                const uint64_t *b,
                                                                uint32_t words) {
  int64_t best = -1;
  uint64_t best_age = UINT64_MAX;
  uint32_t wi;
  for (wi = 0; wi < words; wi++) {
    uint64_t m = b[wi];
    while (m) {
      uint32_t pos = wi * 64 + (uint32_t)__builtin_ctzll(m);
      uint64_t age = q->ages[pos];
      m &= m - 1;
      if (age < best_age)
        best_age = age, best = pos;
    }
  }
  return best;
}

/* The units busy at t, a bit each (unit_free above t).  With SSE2 two
 * units a compare and a sign mask, about a third of the scalar compares'
 * instructions (eight loads, compares, shifts and ors), and the same bits:
 * an ordered greater-than, as `>` is. */
static inline __attribute__((always_inline)) uint32_t units_busy(const sched_state *q,
                                                                 double t) {
  const double *f = q->unit_free;
#if defined(__SSE2__)
  __m128d at = _mm_set1_pd(t);
  return (uint32_t)_mm_movemask_pd(_mm_cmpgt_pd(_mm_loadu_pd(f), at)) |
         (uint32_t)_mm_movemask_pd(_mm_cmpgt_pd(_mm_loadu_pd(f + 2), at)) << 2 |
         (uint32_t)_mm_movemask_pd(_mm_cmpgt_pd(_mm_loadu_pd(f + 4), at)) << 4 |
         (uint32_t)_mm_movemask_pd(_mm_cmpgt_pd(_mm_loadu_pd(f + 6), at)) << 6;
#else /* branch-free: units are busy or not at random */
  return (uint32_t)(f[0] > t) | (uint32_t)(f[1] > t) << 1 | (uint32_t)(f[2] > t) << 2 |
         (uint32_t)(f[3] > t) << 3 | (uint32_t)(f[4] > t) << 4 | (uint32_t)(f[5] > t) << 5 |
         (uint32_t)(f[6] > t) << 6 | (uint32_t)(f[7] > t) << 7;
#endif
}

/* The warps that can issue at t (Algorithm 1 line 7): ready, their unit
 * free, not issued this cycle, in the active set under two-level. */
static inline __attribute__((always_inline)) void sched_eligible(sched_state *q, double t,
                                                          uint32_t issued, uint64_t *e,
                                                          uint32_t words, int policy) {
  const uint64_t *any = set_w(q, SET_READY_ANY, words);
  uint32_t wi, x, busy;
  for (wi = 0; wi < words; wi++)
    e[wi] = any[wi];
  if (t >= q->latest_free)
    busy = 0; /* every unit is free */
  else
    busy = units_busy(q, t);
  while (busy) {
    const uint64_t *r = set_w(q, __builtin_ctz(busy), words);
    busy &= busy - 1;
    for (wi = 0; wi < words; wi++)
      e[wi] &= ~r[wi];
  }
  if (policy == GP_SIM_TWO_LEVEL) {
    const uint64_t *a = set_w(q, SET_ACTIVE, words);
    for (wi = 0; wi < words; wi++)
      e[wi] &= a[wi];
  }
  for (x = 0; x < issued; x++)
    bit_clear(e, q->issued_now[x]);
}

/* After an issue from e: the issued warp and, when its unit is now busy,
 * the unit's other warps drop out (no new warp can have become ready unless
 * a barrier release or a new block changed the sets). */
static inline void sched_eligible_after_issue(sched_state *q, double t, uint32_t pos, int unit,
                                        uint64_t *e, uint32_t words) {
  uint32_t wi;
  bit_drop_w(e, pos, words); /* picked from e */
  if (q->unit_free[unit] > t) {
    const uint64_t *r = set_w(q, unit, words);
    for (wi = 0; wi < words; wi++)
      e[wi] &= ~r[wi];
  }
}

/* The position the policy issues next among e; -1 none, -2 error. */
static inline __attribute__((always_inline)) int64_t sched_pick(sim *s, sched_state *q, double t,
                                                           const uint64_t *e, uint32_t words,
                                                           int policy) {
  switch (policy) {
  case GP_SIM_GTO: /* the greedy warp is the last issued */
    if (q->rr >= 0 && bit_test_w(e, (uint32_t)q->rr, words))
      return q->rr;
    return oldest_in(q, e, words);
  case GP_SIM_CALLBACK:
    return sched_pick_callback(s, q, t, e);
  default: /* LRR, and two-level within its active set */
    return first_from(e, words, rr_start(q, words));
  }
}

/* Why nothing issued, and when something can */

static inline int unit_stall(int unit) {
  return unit == UNIT_LSU ? GP_STALL_LSU : unit == UNIT_SFU ? GP_STALL_SFU : GP_STALL_UNIT;
}

/* The reason `why` and its warp at pos (-1: none).  The warp's PC is read
 * only where it will be: with per-PC stalls, or for an LSU stall (the
 * store stall count reads it); else why_pcs[0] is left as it was and read
 * by no one (out_charge_w reads the PCs of no other reason without
 * pc_stalls). */
static inline void sched_set_reason(sched_state *q, int why, int64_t pos) {
  q->why = why;
  q->why_pc_count = 0;
  if (pos >= 0) {
    if (why == GP_STALL_LSU || q->reason_pcs)
      q->why_pcs[0] = warp_at(q, (uint32_t)pos)->pc_index;
    q->why_pc_count = 1;
  }
}

/* The reason of a scheduler none of whose warps issues or waits for
 * anything but its launch: a warp waiting for its launch (its block's
 * launch, the SM's warm-up) is not resident yet, so its cycles are idle,
 * charged to no PC, unless a resident warp has no instruction left. */
static inline int sched_reason_no_warp(const sched_state *q, uint32_t words) {
  const uint64_t *launching = set_w(q, SET_PEND_LAUNCH, words);
  uint32_t wi, n = 0;
  for (wi = 0; wi < words; wi++)
    n += (uint32_t)__builtin_popcountll(launching[wi]);
  return q->resident > n ? GP_STALL_NO_WARP : GP_STALL_IDLE;
}

/* From the sets (LRR, GTO, callback): every ready warp waits for its busy
 * unit here; the next chance is the earliest free unit with a ready warp,
 * or a pending warp's producers (or launch) and its unit.  `any_ready`:
 * whether the ready set has a warp (a constant 0 where the caller knows it
 * is empty, so the units' part compiles away).  `busy_units`: the units
 * busy at the look (units_busy), read for ready warps under LRR and GTO,
 * where a look that issued nothing with a ready warp found every ready
 * warp's unit busy (one or two units, not eight); a callback may pass over
 * a free unit's warps, so there all eight are read. */
static inline __attribute__((always_inline)) double sched_reason_from_sets(sched_state *q,
                                                                     uint32_t busy_units,
                                                                     uint32_t words,
                                                                     int policy,
                                                                     int any_ready) {
  uint32_t start = policy == GP_SIM_LRR ? rr_start(q, words) : 0, wi, x;
  uint64_t *busy = set_w(q, SET_SCRATCH, words);
  const uint64_t *any = set_w(q, SET_READY_ANY, words);
  double when = INFINITY;
  int64_t pos, sfu_pos = -1;
  int u;
  if (any_ready) { /* else no warp is ready, and busy unread */
    /* a unit's ready warps are its set's within ready_any (state.h) */
    const uint64_t *sfu = set_w(q, UNIT_SFU, words);
    uint32_t units = policy == GP_SIM_LRR || policy == GP_SIM_GTO ? busy_units : ALL_UNITS;
    for (wi = 0; wi < words; wi++)
      busy[wi] = sfu[wi] & any[wi];
    sfu_pos = first_from(busy, words, start);
    for (wi = 0; wi < words; wi++)
      busy[wi] = 0;
    for (; units; units &= units - 1) {
      const uint64_t *r = set_w(q, u = __builtin_ctz(units), words);
      uint64_t ready = 0;
      for (wi = 0; wi < words; wi++)
        ready |= r[wi] & any[wi];
      if (!ready)
        continue;
      if (q->unit_free[u] < when)
        when = q->unit_free[u];
      if (u != UNIT_SFU)
        for (wi = 0; wi < words; wi++)
          busy[wi] |= r[wi] & any[wi];
    }
  }
  {
    /* the earliest pending warp decides unless a unit is busy beyond it
     * (none pending: next_due is INFINITY, which leaves `when` as it is,
     * and the loop below finds no entry) */
    double first = q->next_due;
    if (q->latest_free <= first) {
      if (!any_ready)
        when = first; /* `when` is still INFINITY: first is the smaller */
      else if (first < when)
        when = first;
    } else {
      for (x = q->pending_count; x-- > 0;) { /* soonest first */
        const pend_entry *p = &q->pending[x];
        double w;
        if (p->ready >= when)
          break; /* this one and the later ones cannot be earlier */
        u = warp_at(q, p->pos)->unit;
        w = p->ready > q->unit_free[u] ? p->ready : q->unit_free[u];
        if (w < when)
          when = w;
      }
    }
  }
  if (sfu_pos >= 0)
    sched_set_reason(q, GP_STALL_SFU, sfu_pos);
  else if (any_ready && (pos = first_from(busy, words, start)) >= 0)
    sched_set_reason(q, unit_stall(warp_at(q, (uint32_t)pos)->unit), pos);
  else if ((pos = first_from(set_w(q, SET_PEND_MEM, words), words, start)) >= 0)
    sched_set_reason(q, GP_STALL_MEMORY, pos);
  else if ((pos = first_from(set_w(q, SET_PEND_DEP, words), words, start)) >= 0)
    sched_set_reason(q, GP_STALL_DEPENDENCE, pos);
  else if ((pos = first_from(set_w(q, SET_BARRIER, words), words, start)) >= 0)
    sched_set_reason(q, GP_STALL_BARRIER, pos);
  else
    sched_set_reason(q, sched_reason_no_warp(q, words), -1);
  return when;
}

#endif
