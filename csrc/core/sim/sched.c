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
 * number of waiting warps.  sched_run_due looks at the schedulers due in a
 * cycle; its body is compiled per policy (LRR, GTO, the others) and per
 * bitmap width (the usual one word, at most 64 warps per scheduler, with the
 * loops unrolled away).
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
 * charged to that warp's next PC.
 */
#include "state.h"

#include <math.h>
#include <string.h>

/* The bytes of a scheduler's bitmaps, reason PCs and positions issued this
 * cycle: one block, as they are read together at every look. */
static size_t block_bytes(const sim *s, uint32_t words) {
  return (size_t)SET_COUNT * words * sizeof(uint64_t) +
         2 * (size_t)s->cfg->issue_width * sizeof(uint32_t);
}

int sched_alloc(sim *s, sched_state *q, uint32_t smi, uint32_t sc, uint32_t count) {
  uint32_t u, width = s->cfg->issue_width;
  q->sm = smi, q->sc = sc;
  q->sm_stalls = s->out->sm_stalls + (size_t)smi * GP_STALL_COUNT;
  q->warps = &s->sms[smi].warps[sc];
  q->stride = s->S;
  q->count = count;
  q->words = count > 0 ? (count + 63) / 64 : 1;
  q->bits = gp_malloc(&s->alloc, block_bytes(s, q->words));
  if (q->bits == NULL)
    return gp_error_set(s->err, "sim: out of memory");
  memset(q->bits, 0, block_bytes(s, q->words));
  q->why_pcs = (uint32_t *)(q->bits + (size_t)SET_COUNT * q->words);
  q->issued_now = q->why_pcs + width;
  if (count > 0 && ((q->pending = gp_malloc(&s->alloc, count * sizeof *q->pending)) == NULL ||
                    (q->ages = gp_malloc(&s->alloc, count * sizeof *q->ages)) == NULL))
    return gp_error_set(s->err, "sim: out of memory");
  for (u = 0; u < UNIT_COUNT; u++)
    q->unit_free[u] = q->unit_acc[u] = 0;
  q->latest_free = 0;
  q->rr = q->greedy = -1; /* the first pick is the scheduler's first warp */
  q->why = GP_STALL_IDLE;
  return GP_OK;
}

void sched_free(sim *s, sched_state *q) {
  gp_free(&s->alloc, q->bits, block_bytes(s, q->words));
  gp_free(&s->alloc, q->pending, q->count * sizeof *q->pending);
  gp_free(&s->alloc, q->ages, q->count * sizeof *q->ages);
}

/* ---------------------------------------------------------------------------
 * Pending lists and bitmaps
 * ------------------------------------------------------------------------- */


void sched_leave_active(sched_state *q, uint32_t pos) {
  uint64_t *active = set_of(q, SET_ACTIVE);
  if (bit_test(active, pos)) {
    bit_clear(active, pos);
    q->active_count--;
  }
}

/* Moves the pending warps whose producers are done by t to ready. */
static inline __attribute__((always_inline)) void promote(sched_state *q, double t,
                                                          uint32_t words) {
  while (q->pending_count > 0 && q->pending[q->pending_count - 1].ready <= t) {
    const pend_entry *p = &q->pending[--q->pending_count];
    uint32_t pos = p->pos;
    int unit = p->unit, set = p->set;
    bit_clear_w(set_w(q, set, words), pos, words);
    bit_set_w(set_w(q, unit, words), pos, words);
    bit_set_w(set_w(q, SET_READY_ANY, words), pos, words);
  }
}

/* Where round-robin scanning starts: the position after the last issue. */
static uint32_t rr_start(const sched_state *q) {
  uint32_t start = (uint32_t)(q->rr + 1);
  return start >= q->count ? 0 : start;
}

/* The first set bit at or after `start`, wrapping round; -1 when none. */
static inline __attribute__((always_inline)) int64_t first_from(const uint64_t *b, uint32_t words,
                                                                 uint32_t start) {
  uint32_t wi = start >> 6, n;
  uint64_t m = b[wi] & (~(uint64_t)0 << (start & 63));
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

static inline warp_state *warp_at(const sched_state *q, uint32_t pos) {
  return &q->warps[(size_t)pos * q->stride];
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

/* The warps that can issue at t (Algorithm 1 line 7): ready, their unit
 * free, not issued this cycle, in the active set under two-level. */
static inline __attribute__((always_inline)) void eligible(sched_state *q, double t,
                                                          uint32_t issued, uint64_t *e,
                                                          uint32_t words, int policy) {
  const uint64_t *any = set_w(q, SET_READY_ANY, words);
  uint32_t wi, x, busy;
  for (wi = 0; wi < words; wi++)
    e[wi] = any[wi];
  if (t >= q->latest_free)
    busy = 0; /* every unit is free */
  else /* branch-free: units are busy or not at random */
    busy = (uint32_t)(q->unit_free[0] > t) | (uint32_t)(q->unit_free[1] > t) << 1 |
         (uint32_t)(q->unit_free[2] > t) << 2 | (uint32_t)(q->unit_free[3] > t) << 3 |
         (uint32_t)(q->unit_free[4] > t) << 4 | (uint32_t)(q->unit_free[5] > t) << 5 |
         (uint32_t)(q->unit_free[6] > t) << 6 | (uint32_t)(q->unit_free[7] > t) << 7;
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
static inline void eligible_after_issue(sched_state *q, double t, uint32_t pos, int unit,
                                        uint64_t *e, uint32_t words) {
  uint32_t wi;
  bit_clear_w(e, pos, words);
  if (q->unit_free[unit] > t) {
    const uint64_t *r = set_w(q, unit, words);
    for (wi = 0; wi < words; wi++)
      e[wi] &= ~r[wi];
  }
}

/* Two-level: fills the active set's free places with the oldest pending
 * warps whose producers are done by t (a warp waiting for a load stays
 * out). */
static void fill_active(const sim *s, sched_state *q) {
  uint64_t *c = set_of(q, SET_SCRATCH);
  const uint64_t *a = set_of(q, SET_ACTIVE);
  const uint64_t *any = set_of(q, SET_READY_ANY);
  uint32_t wi;
  if (q->active_count >= s->cfg->active_warps)
    return;
  for (wi = 0; wi < q->words; wi++)
    c[wi] = any[wi] & ~a[wi];
  while (q->active_count < s->cfg->active_warps) {
    int64_t pos = oldest_in(q, c, q->words);
    if (pos < 0)
      break;
    bit_clear(c, (uint32_t)pos);
    bit_set(set_of(q, SET_ACTIVE), (uint32_t)pos);
    q->active_count++;
  }
}

/* The callback policy: the eligible warps in position order to cfg->pick.
 * Returns the chosen position, or -2 on error. */
static int64_t pick_callback(sim *s, sched_state *q, double t, const uint64_t *e) {
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
  r = s->cfg->pick(s->cfg->pick_ctx, q->sm, q->sc, t, s->cand, n, s->err);
  if (r < 0)
    return -2;
  if ((uint32_t)r >= n) {
    gp_error_set(s->err, "sim: the pick callback chose candidate %d of %u", r, n);
    return -2;
  }
  return s->cand[r].slot;
}

/* The position the policy issues next among e; -1 none, -2 error. */
static inline __attribute__((always_inline)) int64_t pick(sim *s, sched_state *q, double t,
                                                           const uint64_t *e, uint32_t words,
                                                           int policy) {
  switch (policy) {
  case GP_SIM_GTO:
    if (q->greedy >= 0 && bit_test(e, (uint32_t)q->greedy))
      return q->greedy;
    return oldest_in(q, e, words);
  case GP_SIM_CALLBACK:
    return pick_callback(s, q, t, e);
  default: /* LRR, and two-level within its active set */
    return first_from(e, words, rr_start(q));
  }
}

/* ---------------------------------------------------------------------------
 * Why nothing issued, and when something can
 * ------------------------------------------------------------------------- */

static int unit_stall(int unit) {
  return unit == UNIT_LSU ? GP_STALL_LSU : unit == UNIT_SFU ? GP_STALL_SFU : GP_STALL_UNIT;
}

static void set_reason(sched_state *q, int why, int64_t pos) {
  q->why = why;
  q->why_pc_count = 0;
  if (pos >= 0) {
    q->why_pcs[0] = warp_at(q, (uint32_t)pos)->pc_index;
    q->why_pc_count = 1;
  }
}

/* From the sets (LRR, GTO, callback): every ready warp waits for its busy
 * unit here; the next chance is the earliest free unit with a ready warp,
 * or a pending warp's producers and its unit. */
static inline __attribute__((always_inline)) double reason_from_sets(sched_state *q,
                                                                     uint32_t words,
                                                                     int policy) {
  uint32_t start = policy == GP_SIM_LRR ? rr_start(q) : 0, wi, x;
  uint64_t *busy = set_w(q, SET_SCRATCH, words);
  double when = INFINITY;
  int64_t pos;
  int u, any_ready = any_bit(set_w(q, SET_READY_ANY, words), words);
  for (wi = 0; wi < words; wi++)
    busy[wi] = 0;
  if (any_ready) /* else every unit's set is empty */
    for (u = 0; u < UNIT_COUNT; u++) {
      const uint64_t *r = set_w(q, u, words);
      if (!any_bit(r, words))
        continue;
      if (q->unit_free[u] < when)
        when = q->unit_free[u];
      if (u != UNIT_SFU)
        for (wi = 0; wi < words; wi++)
          busy[wi] |= r[wi];
    }
  if (q->pending_count > 0) {
    /* the earliest pending warp decides unless a unit is busy beyond it */
    double first = q->pending[q->pending_count - 1].ready;
    if (q->latest_free <= first) {
      if (first < when)
        when = first;
    } else {
      for (x = q->pending_count; x-- > 0;) { /* soonest first */
        const pend_entry *p = &q->pending[x];
        double w;
        if (p->ready >= when)
          break; /* this one and the later ones cannot be earlier */
        w = p->ready > q->unit_free[p->unit] ? p->ready : q->unit_free[p->unit];
        if (w < when)
          when = w;
      }
    }
  }
  if (any_ready && (pos = first_from(set_w(q, UNIT_SFU, words), words, start)) >= 0)
    set_reason(q, GP_STALL_SFU, pos);
  else if (any_ready && (pos = first_from(busy, words, start)) >= 0)
    set_reason(q, unit_stall(warp_at(q, (uint32_t)pos)->unit), pos);
  else if ((pos = first_from(set_w(q, SET_PEND_MEM, words), words, start)) >= 0)
    set_reason(q, GP_STALL_MEMORY, pos);
  else if ((pos = first_from(set_w(q, SET_PEND_DEP, words), words, start)) >= 0)
    set_reason(q, GP_STALL_DEPENDENCE, pos);
  else if ((pos = first_from(set_w(q, SET_BARRIER, words), words, start)) >= 0)
    set_reason(q, GP_STALL_BARRIER, pos);
  else
    set_reason(q, q->resident > 0 ? GP_STALL_NO_WARP : GP_STALL_IDLE, -1);
  return when;
}

/* Two-level: a scan in round-robin order over the warps that matter (the
 * active set, and the pending warps while it has a free place), ranking
 * reasons as above. */
static double reason_two_level(const sim *s, sched_state *q) {
  static const int rank[GP_STALL_COUNT] = {0, 4, 5, 6, 7, 6, 3, 1, 0};
  const uint64_t *active = set_of(q, SET_ACTIVE);
  int full = q->active_count >= s->cfg->active_warps, best = GP_STALL_NO_WARP;
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
        why = w->on_load ? GP_STALL_MEMORY : GP_STALL_DEPENDENCE;
        w_when = ready > free_at ? ready : free_at;
      } else {
        why = unit_stall(w->unit);
        w_when = free_at > t ? free_at : t + 1;
      }
    }
    if (w_when < when)
      when = w_when;
    if (rank[why] > rank[best])
      best = why, best_pos = pos;
  }
  if (best == GP_STALL_NO_WARP)
    set_reason(q, q->resident > 0 ? GP_STALL_NO_WARP : GP_STALL_IDLE, -1);
  else
    set_reason(q, best, best_pos);
  return when;
}

/* sched_evaluate's body for a scheduler of `words` bitmap words and a
 * policy, both constants in the common cases (one word; LRR or GTO), so the
 * compiler drops the word loops and the policy tests. */
static inline __attribute__((always_inline)) int evaluate(sim *s, sched_state *q, double t,
                                                          double *when, uint32_t words,
                                                          int policy) {
  uint64_t *e = set_w(q, SET_SCRATCH, words);
  uint32_t issued = 0, width = s->cfg->issue_width;
  int two_level = policy == GP_SIM_TWO_LEVEL, sets_changed = 1;
  promote(q, t, words);
  if (two_level)
    fill_active(s, q);
  s->sets_changed = 0;
  while (issued < width) {
    int64_t pos;
    uint32_t pc;
    int unit;
    warp_state *w;
    if (sets_changed || two_level)
      eligible(q, t, issued, e, words, policy);
    else if (words == 1 && e[0] == 0)
      break; /* nothing left this cycle (the usual end after an issue) */
    pos = pick(s, q, t, e, words, policy);
    if (pos < 0) {
      if (pos == -2)
        return -1;
      break;
    }
    w = warp_at(q, (uint32_t)pos);
    pc = w->pc_index;
    unit = w->unit;
    bit_clear_w(set_w(q, unit, words), (uint32_t)pos, words);
    bit_clear_w(set_w(q, SET_READY_ANY, words), (uint32_t)pos, words);
    switch (sim_issue(s, q, w, (uint32_t)pos, t)) {
    case SIM_ENQUEUE:
      sched_enqueue_w(q, w, (uint32_t)pos, t, words);
      break;
    case GP_OK:
      break;
    default:
      return -1;
    }
    /* a barrier release or a new block (s->sets_changed) may add warps */
    sets_changed = s->sets_changed;
    s->sets_changed = 0;
    eligible_after_issue(q, t, (uint32_t)pos, unit, e, words);
    q->issued_now[issued] = (uint32_t)pos;
    q->why_pcs[issued] = pc;
    issued++;
    q->rr = q->greedy = pos;
    if (two_level)
      fill_active(s, q);
  }
  if (issued > 0) {
    q->why = GP_STALL_ISSUED;
    q->why_pc_count = issued;
    *when = t + 1;
    return (int)issued;
  }
  *when = two_level ? reason_two_level(s, q) : reason_from_sets(q, words, policy);
  return 0;
}

/* One scheduler at cycle t: issues up to issue_width warps; returns the
 * number issued (-1 on error), sets q->why and its PCs, and *when, the
 * earliest cycle it could issue next when it issued nothing.  Inline in
 * run_due: once per look at a scheduler.  `policy` is the configuration's
 * when the caller knows it as a constant (LRR, GTO), else -1. */
static inline __attribute__((always_inline)) int sched_evaluate(sim *s, sched_state *q, double t,
                                                                double *when, int policy) {
  out_charge(s, q, t);
  if (q->count == 0) {
    set_reason(q, GP_STALL_IDLE, -1);
    *when = INFINITY;
    return 0;
  }
  if (policy < 0)
    return evaluate(s, q, t, when, q->words, (int)s->cfg->policy);
  if (q->words == 1)
    return evaluate(s, q, t, when, 1, policy);
  return evaluate(s, q, t, when, q->words, policy);
}

/* Looks at every scheduler due at cycle s->t, in SM-then-scheduler order
 * (wake-ups may add later ones of the same SM); *issued tells whether any
 * issued.  `policy` as in sched_evaluate. */
static inline __attribute__((always_inline)) int run_due(sim *s, int *issued, int policy) {
  uint32_t wi;
  *issued = 0;
  for (wi = 0; wi < s->due_words; wi++) {
    while (s->due_now[wi]) {
      uint32_t b = (uint32_t)__builtin_ctzll(s->due_now[wi]);
      uint32_t g = wi * 64 + b;
      sched_state *q = s->sched_of[g];
      double when;
      int n;
      s->due_now[wi] &= s->due_now[wi] - 1;
      s->cur_g = g;
      n = sched_evaluate(s, q, s->t, &when, policy);
      if (n < 0)
        return GP_ERR;
      if (n > 0) {
        *issued = 1;
        bit_set(s->due_next, g);
      } else if (when < INFINITY) {
        sim_sleep(s, g, when);
      } /* else asleep until a barrier release or a new block */
    }
  }
  return GP_OK;
}

int sched_run_due(sim *s, int *issued) {
  switch (s->cfg->policy) {
  case GP_SIM_LRR:
    return run_due(s, issued, GP_SIM_LRR);
  case GP_SIM_GTO:
    return run_due(s, issued, GP_SIM_GTO);
  default:
    return run_due(s, issued, -1);
  }
}
