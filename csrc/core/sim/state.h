/*
 * state.h -- the simulator's private state, shared by sim.c (event
 * loop, blocks, issue), sched.c (per-scheduler sets and policies) and
 * out.c (outputs).  Not part of the public API.
 *
 * Every warp of a scheduler sits in exactly one place while it is live:
 *  - ready (ready_any): its producers are done;
 *  - pending: waiting for a producer, in the scheduler's pending list sorted
 *    by the cycle its producers are done, and in pend_mem or pend_dep (why);
 *    or waiting for its launch (the front end: its block's launch and the
 *    SM's warm-up, no producer later), in the same list and in pend_launch;
 *  - barrier: waiting at BAR.SYNC.
 * Besides, a warp ready or pending is in unit[u], u its next instruction's
 * unit: a warp keeps its unit bit while it waits, so a wait and its
 * promotion change one read-modify-write fewer each; the ready warps of
 * unit u are unit[u] & ready_any (a barrier's or an exited warp's unit bit
 * is cleared, but the readers mask with ready_any all the same).
 * A scheduler looks at its warps only when it can act (an issue, a warp's
 * producers finishing, a unit freeing, a barrier release, a new block), so
 * waiting warps cost nothing.  Sets are bitmaps over the scheduler's warp
 * positions (position p of scheduler sc is SM warp slot sc + p x schedulers).
 */
#ifndef GP_SIM_STATE_H
#define GP_SIM_STATE_H

#include "machine.h"
#include "sim.h"
#include "wake.h"

#include <stddef.h>
#include <string.h>

/* The functional units of machine.h's gp_machine_op_unit, one of each per
 * scheduler. */
enum { UNIT_INT = GP_UNIT_INT, UNIT_FMA = GP_UNIT_FMA, UNIT_FP64 = GP_UNIT_FP64,
       UNIT_SFU = GP_UNIT_SFU, UNIT_TENSOR = GP_UNIT_TENSOR, UNIT_UNIFORM = GP_UNIT_UNIFORM,
       UNIT_OTHER = GP_UNIT_OTHER, UNIT_LSU = GP_UNIT_LSU,
       UNIT_COUNT = GP_UNIT_COUNT }; /* units_busy() spells out the eight */
_Static_assert(GP_UNIT_COUNT == 8, "units_busy (sched.h) compares eight units");
#define ALL_UNITS ((1u << UNIT_COUNT) - 1) /* a bit per unit: every one */

/* Bitmaps of a scheduler, each `words` 64-bit words, in sched_state.bits. */
enum { SET_READY_ANY = UNIT_COUNT, SET_PEND_MEM, SET_PEND_DEP, SET_PEND_LAUNCH, SET_BARRIER,
       SET_ACTIVE, SET_SCRATCH, SET_COUNT };

/* What an opcode class does in the simulator (sim.kind). */
enum { KIND_CACHE = 1, KIND_SHARED = 2, KIND_CONST = 4, KIND_MEMORY = 8, KIND_LONG = 16 };

/* What the issue of an opcode class needs, looked up once per run
 * (sim.c's classify) and read at each issue from one entry. */
typedef struct sim_class {
  double latency;          /* the config's latency */
  double busy;             /* its unit's occupancy: the interval (1 when not above 0) */
  uint8_t kind;            /* KIND_* (its unit: sim.unit_of) */
  uint8_t rare;            /* its issue takes issue()'s rare path: a memory access
                              (kind), the LSU's busy count, a barrier, a unit some
                              class occupies fractionally, or an on_issue observer */
} sim_class;

/* A pending warp in its scheduler's list.  Its next unit is the warp's
 * (warp_state.unit, unchanged while it waits), read there by the rare
 * reason that needs it, not stored at every wait. */
typedef struct pend_entry {
  double ready;
  uint32_t pos;
  uint8_t set;             /* SET_PEND_MEM, SET_PEND_DEP or SET_PEND_LAUNCH */
} pend_entry;

/* Completion rings up to this long live in the warp's state. */
#define SIM_RING_INLINE 8

/* A warp slot.  The fields read or written at every issue share one cache
 * line (hundreds of warps are simulated at once, so each warp's state is
 * rarely still in the first-level cache when it issues again); the array is
 * allocated 64-byte aligned (sm_state.warps_mem). */
typedef struct warp_state {
  _Alignas(64) double *done;            /* completion ring, indexed by trace position & ring_mask:
                              `ring`, or kept per slot when longer */
  double ready;            /* when the next instruction's producers are done */
  double last_done;
  double not_before;       /* when its block's launch (and the SM's warm-up) ends */
  uint64_t next;           /* trace position of the next instruction */
  uint64_t end;            /* ... after its last one (next == end: none left) */
  uint32_t pc_index;       /* the next instruction's static index and class (copies */
  uint8_t op_class;        /* of its record's, read at every pick and issue) */
  uint8_t on_load;         /* the producer the next instruction waits for last is a load
                              (1, else 0: sched_pend_issued_w subtracts it) */
  uint8_t unit;            /* the next instruction's unit */
  uint8_t live, at_barrier;
  /* the completion ring when it is short (the usual case), next to them */
  _Alignas(64) double ring[SIM_RING_INLINE];
  /* the rest: at dispatch, DEPBAR, exit */
  uint64_t g;
  double ldgsts_done;
} warp_state;
_Static_assert(offsetof(warp_state, ring) == 64, "a warp's per-issue fields fit one cache line");

typedef struct block_slot {
  int64_t block;           /* -1: free */
  uint32_t live, arrived;
  double finish;
} block_slot;

typedef struct sched_state {
  uint32_t sm, sc;         /* its SM and its index there */
  double *sm_stalls;       /* its SM's row of the result's sm_stalls */
  warp_state *warps;       /* position p is warps[p x schedulers per SM], */
  size_t warp_step;        /* warp_step bytes after position p - 1's (warp_at) */
  uint32_t count, words;   /* warp positions and bitmap words */
  uint32_t issue_width;    /* the machine's sm.issue_width, next to what a look reads */
  uint64_t *bits;          /* SET_COUNT x words, then why_pcs and issued_now */
  pend_entry *pending;     /* pending warps, latest `ready` first (pending_count entries),
                              somewhere in pending_mem */
  pend_entry *pending_mem; /* 2 x count entries: room to add a latest warp in front */
  uint64_t *ages;          /* per position: its warp's dispatch order (GTO, two-level),
                              kept here so finding the oldest reads one array */
  uint32_t pending_count;
  double next_due;         /* the soonest pending `ready` (the list's last entry's),
                              INFINITY when none: read at every look */
  double unit_free[UNIT_COUNT]; /* FUFree of Algorithm 1: the first cycle (on this
                                   scheduler's issue grid) a unit accepts again */
  double unit_acc[UNIT_COUNT];  /* when the unit's occupancy, accumulated exactly
                                   (fractional intervals), ends */
  double latest_free;      /* the largest unit_free: no unit is busy from then on */
  int64_t rr;              /* position of the last issued warp (-1: none); GTO's
                              greedy warp */
  uint32_t resident;       /* positions in slots holding a block */
  uint32_t active_count;   /* two-level: warps in the active set */
  /* the event loop */
  double since;            /* when `why` started */
  uint64_t issue_cycles;   /* its issuing cycles of exactly one cycle, added to the
                              sums at the end (out_issue_cycles) */
  uint64_t issued;         /* warp instructions it issued, counted as its warps retire
                              (retire_warp), added to its SM's sm_issued at the end */
  int why;
  uint32_t *why_pcs, why_pc_count; /* the PCs `why` is charged to */
  int reason_pcs;          /* the run keeps per-PC stalls: a reason's PC is always
                              recorded (else only an LSU stall's, the one read) */
  uint32_t *issued_now;    /* positions issued in the current cycle */
} sched_state;

typedef struct sm_state {
  warp_state *warps;       /* blocks_per_sm x warps_per_block, in warps_mem */
  void *warps_mem;         /* the allocation, 64 bytes more than the warps */
  block_slot *slots;
  sched_state *scheds;
  double finish;           /* when its last block retired (last warp done + drain) */
  double dispatch_free;    /* when the SM's launcher finished its last launch */
  double warm_at;          /* its warps issue from then on: first launch + warm-up */
  int launched;            /* whether it launched a block of this kernel yet */
} sm_state;

typedef struct sim {
  const gp_kernel *k;
  const gp_machine *m;
  const gp_sim_options *opt;
  uint32_t sm_count;
  gp_timed_config memory;  /* the machine's memory at this kernel's occupancy */
  gp_alloc alloc;
  sm_state *sms;
  gp_timed *mem;
  uint64_t next_block, blocks_done, age;
  double dispatcher_free;  /* the GPU-wide dispatcher hands out its next block from then */
  double block_launch;     /* an SM's launcher per block (gp_machine_block_launch_cycles) */
  uint32_t wpb, slots_per_sm, S;
  uint64_t ring_mask;      /* completion rings: ring_mask + 1 entries */
  sim_class cls[GP_OP_CLASS_COUNT]; /* per class: what its issue needs (classify) */
  uint8_t unit_of[GP_OP_CLASS_COUNT]; /* per class: its unit (classify; a byte table,
                           read at every issue's next instruction) */
  uint8_t unit_frac[UNIT_COUNT]; /* a unit some class occupies for a fractional interval
                           (occupy_unit's exact path; the others take whole cycles) */
  sched_state **sched_of;  /* scheduler g = sm x schedulers + sc */
  /* the event loop: schedulers due now and at the next cycle, the rest
   * asleep in a calendar by wake time (wake.h) */
  double t;
  double issue_end;        /* t + 1: the end of an issuing cycle at t */
  int issue_whole;         /* whether issue_end - t is 1 (not where t + 1 rounds) */
  int sets_changed;        /* a barrier release or a new block since the end of the
                              last look (run_due clears it; set before the first, it
                              only costs that look the full eligible scan) */
  int plain;               /* every scheduler has 1 to 64 warp positions (one bitmap word)
                              and the run keeps no per-PC stalls (run_due's usual case) */
  uint32_t cur_g, due_words;
  uint64_t *due_now, *due_next;
  wake_calendar wake;      /* the sleeping schedulers, due_words words a bucket */
  gp_sim_candidate *cand;  /* GP_SIM_CALLBACK's candidate list */
  gp_sim_result *out;
  gp_error *err;
} sim;

static inline uint64_t *set_of(const sched_state *q, int set) {
  return q->bits + (size_t)set * q->words;
}
/* The same with the word count as a constant where the caller knows it. */
static inline uint64_t *set_w(const sched_state *q, int set, uint32_t words) {
  return q->bits + (size_t)set * words;
}
static inline void bit_set(uint64_t *b, uint32_t p) { b[p >> 6] |= (uint64_t)1 << (p & 63); }
static inline void bit_clear(uint64_t *b, uint32_t p) { b[p >> 6] &= ~((uint64_t)1 << (p & 63)); }
static inline int bit_test(const uint64_t *b, uint32_t p) { return (int)((b[p >> 6] >> (p & 63)) & 1); }
/* The same for bitmaps of `words` words, a constant 1 in the hot paths. */
static inline void bit_set_w(uint64_t *b, uint32_t p, uint32_t words) {
  if (words == 1)
    b[0] |= (uint64_t)1 << p;
  else
    bit_set(b, p);
}
static inline int bit_test_w(const uint64_t *b, uint32_t p, uint32_t words) {
  return words == 1 ? (int)((b[0] >> p) & 1) : bit_test(b, p);
}
/* Clears bit p where it is known to be set (a warp leaving a set it is
 * in): one XOR with the bit, no complemented mask (two instructions fewer
 * than an AND with its complement; a bit that was clear would be set
 * instead).  `words` as in bit_set_w. */
static inline void bit_drop_w(uint64_t *b, uint32_t p, uint32_t words) {
  if (words == 1)
    b[0] ^= (uint64_t)1 << p;
  else
    b[p >> 6] ^= (uint64_t)1 << (p & 63);
}

/* out.c */
int out_finish(sim *s);
/* The OR of k's dependence distances (gp_sim_counts.dep_bits). */
uint32_t count_dep_bits(const gp_kernel *k);
/* out_charge (below) out of line, for the rare path of a hot caller. */
void out_charge_cold(sim *s, sched_state *q, double until);

/* Adds a pending warp to the scheduler's pending list, kept sorted latest
 * first: the next due is the last entry (taken in O(1)); a new entry due
 * no earlier than every other (a load's consumer, usually) goes in front,
 * in O(1); one due sooner (a dependence) moves only the few due before it.
 * The list starts in the middle of pending_mem when it is empty (and is
 * moved back there when its front reaches the start), so there is room on
 * both sides: its end stays below 2 x count. */
static inline void pending_insert(sched_state *q, double ready, uint32_t pos, uint8_t set) {
  pend_entry *h = q->pending, *at;
  uint32_t n = q->pending_count;
  q->pending_count = n + 1;
  if (ready < q->next_due) /* the list's soonest (before the stores below) */
    q->next_due = ready;
  if (n != 0 && ready < h[0].ready) {
    at = h + n; /* one past the soonest: move the ones due sooner back */
    while (at[-1].ready < ready) { /* h[0] is due later: it stops the loop */
      at[0] = at[-1];
      at--;
    }
  } else {
    if (n == 0)
      h = q->pending_mem + q->count;
    else if (h == q->pending_mem) {
      memmove(q->pending_mem + q->count, h, n * sizeof *h);
      h = q->pending_mem + q->count;
    }
    q->pending = at = h - 1;
  }
  *at = (pend_entry){.ready = ready, .pos = pos, .set = set};
}

/* Puts a live warp not at a barrier into ready or pending by its `ready`
 * (inline: once per issue; `words` as in set_w).  A pending warp whose
 * `ready` is its launch's end waits for the front end, not for a producer
 * (no producer is done later): only a warp that has not issued yet, as its
 * later instructions are ready no earlier than its first issue. */
static inline void sched_pend_w(sched_state *q, const warp_state *w, uint32_t pos,
                                uint32_t words) {
  uint8_t set =
      w->ready == w->not_before ? SET_PEND_LAUNCH : w->on_load ? SET_PEND_MEM : SET_PEND_DEP;
  pending_insert(q, w->ready, pos, set);
  bit_set_w(set_w(q, set, words), pos, words);
  bit_set_w(set_w(q, w->unit, words), pos, words);
}
/* The same for a warp that has just issued: it waits for a producer, never
 * for its launch (its `ready` is later than the issue, which was no earlier
 * than its launch's end), so the reason is its last producer's kind. */
_Static_assert(SET_PEND_MEM + 1 == SET_PEND_DEP, "a pending reason from on_load");
static inline void sched_pend_issued_w(sched_state *q, const warp_state *w, uint32_t pos,
                                       uint32_t words) {
  uint8_t set = (uint8_t)(SET_PEND_DEP - w->on_load); /* on_load is 0 or 1 */
  pending_insert(q, w->ready, pos, set);
  bit_set_w(set_w(q, set, words), pos, words);
}
static inline void sched_enqueue_w(sched_state *q, const warp_state *w, uint32_t pos, double t,
                                   uint32_t words) {
  if (w->ready <= t) {
    bit_set_w(set_w(q, w->unit, words), pos, words);
    bit_set_w(set_w(q, SET_READY_ANY, words), pos, words);
    return;
  }
  sched_pend_w(q, w, pos, words);
}

/* A warp that issued at t and goes on, left in the unit set of `unit`
 * (the issued instruction's) and ready_any during its issue: it moves to
 * its next instruction's unit set when that differs, and stays ready when
 * that instruction's producers are done by t, else it leaves ready_any for
 * pending (keeping its unit bit).  The same sets as taking it out at the
 * pick and enqueueing it again (sched_enqueue_w), with two to four
 * read-modify-writes fewer when it stays ready, and two fewer when it
 * waits in the same unit. */
static inline void sched_requeue_w(sched_state *q, const warp_state *w, uint32_t pos, double t,
                                   int unit, uint32_t words) {
  if (w->unit != unit) {
    bit_drop_w(set_w(q, unit, words), pos, words);
    bit_set_w(set_w(q, w->unit, words), pos, words);
  }
  if (w->ready <= t)
    return;
  bit_drop_w(set_w(q, SET_READY_ANY, words), pos, words);
  sched_pend_issued_w(q, w, pos, words);
}
static inline void sched_enqueue(sched_state *q, const warp_state *w, uint32_t pos, double t) {
  sched_enqueue_w(q, w, pos, t, q->words);
}

/* Charges the scheduler's cycles from q->since to `until` to its reason:
 * overall, on its SM and, when the run keeps per-PC stalls (per_pc), on
 * the reason's PCs (an issuing cycle split evenly among the instructions
 * issued).  Inline: once per look at a scheduler.  `plain`: 1 in the
 * event loop's plain case (a constant; sim.c's sched_evaluate), where the
 * run keeps no per-PC stalls and an issue is one whole cycle; else 0 (the
 * result's pc_stalls and sim.issue_whole tell). */
static inline __attribute__((always_inline)) void out_charge_w(sim *s, sched_state *q,
                                                               double until, int plain) {
  gp_sim_result *r;
  double since = q->since, d;
  uint32_t x;
  q->since = until;
  if (!(until > since))
    return; /* the look right after an issue (since is its cycle's end): no
               difference computed, the result's address not read */
  d = until - since; /* above 0: the difference of two distinct doubles */
  r = s->out;
  r->stalls[q->why] += d;
  q->sm_stalls[q->why] += d;
  r->counters.scheduler_cycles += d;
  if (q->why == GP_STALL_LSU)
    for (x = 0; x < q->why_pc_count; x++) {
      uint8_t c = s->k->statics[q->why_pcs[x]].op_class;
      if (c == GP_OP_ST_GLOBAL || c == GP_OP_ST_LOCAL)
        r->counters.store_lsu_stall_cycles += d / q->why_pc_count;
    }
  if (plain || r->pc_stalls == NULL)
    return;
  if (q->why_pc_count == 1) {
    r->pc_stalls[(size_t)q->why_pcs[0] * GP_STALL_COUNT + (size_t)q->why] += d;
    return;
  }
  for (x = 0; x < q->why_pc_count; x++)
    r->pc_stalls[(size_t)q->why_pcs[x] * GP_STALL_COUNT + (size_t)q->why] +=
        d / q->why_pc_count;
}
static inline void out_charge(sim *s, sched_state *q, double until) {
  out_charge_w(s, q, until, 0);
}

/* Charges an issuing cycle [t, t + 1] of `issued` instructions (their PCs
 * in why_pcs), right at the issue, t the loop's cycle s->t: a whole cycle
 * (s->issue_whole: t + 1 - t is 1 unless the addition rounds; both set
 * once a cycle by the loop) is counted in q->issue_cycles, which
 * out_issue_cycles adds to the stalls and scheduler cycles at the end,
 * exactly as the ones it stands for would have summed; the per-PC shares
 * (1 / issued each) are added now, in the order they were before.
 * `plain` as in out_charge_w. */
static inline __attribute__((always_inline)) void out_charge_issue(sim *s, sched_state *q,
                                                                   double t, uint32_t issued,
                                                                   int plain) {
  double *pc_stalls;
  uint32_t x;
  q->why = GP_STALL_ISSUED;
  q->why_pc_count = issued;
  if (!plain && !s->issue_whole) { /* not one whole cycle: charged as any other (q->since is t) */
    out_charge_cold(s, q, t + 1);
    return;
  }
  q->since = s->issue_end;
  q->issue_cycles++;
  if (plain || (pc_stalls = s->out->pc_stalls) == NULL)
    return;
  if (issued == 1) {
    pc_stalls[(size_t)q->why_pcs[0] * GP_STALL_COUNT + GP_STALL_ISSUED] += 1;
    return;
  }
  for (x = 0; x < issued; x++)
    pc_stalls[(size_t)q->why_pcs[x] * GP_STALL_COUNT + GP_STALL_ISSUED] += 1.0 / issued;
}

/* At the end of the run: the issuing cycles q->issue_cycles stands for,
 * into the stalls and the scheduler cycles (whole numbers below 2^53: the
 * stalls' sums come out as they would have one cycle at a time). */
static inline void out_issue_cycles(sim *s, sched_state *q) {
  gp_sim_result *r = s->out;
  double n = (double)q->issue_cycles;
  r->stalls[GP_STALL_ISSUED] += n;
  q->sm_stalls[GP_STALL_ISSUED] += n;
  r->counters.scheduler_cycles += n;
  q->issue_cycles = 0;
}

#endif
