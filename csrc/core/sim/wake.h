/*
 * wake.h -- the sleeping schedulers of the event loop (sim.c): a calendar
 * of cycle buckets over their wake-up cycles, in place of a tournament
 * tree.  A scheduler that cannot act before a known cycle sleeps until it;
 * the loop takes out the sleepers due at each cycle it moves to and, when
 * no scheduler issued, jumps to the earliest wake-up.
 *
 * The results depend on that earliest wake-up exactly (the loop's next
 * cycle is t + (wake - t)), so the calendar keeps every wake-up as it was
 * given and finds the minimum among the members of the first non-empty
 * bucket; the buckets only narrow the search.  A sleeper waking at w is in
 * the bucket of the whole cycle floor(w) (never before `base`, the last
 * take-out's whole cycle), modulo WAKE_BUCKETS, so at a take-out at t the
 * buckets before floor(t) are due whole (a few word operations) and
 * floor(t)'s too when its latest wake-up (`latest`, an upper bound kept at
 * each sleep) is due, else member by member.  A wake-up further ahead than
 * the ring waits in an overflow set and moves into the ring once `base`
 * comes near enough.
 * Invariants: a sleeper of absolute bucket a (base <= a < base +
 * WAKE_BUCKETS) wakes before a + 1, and at or after a unless a == base (a
 * wake-up behind base, due at the next take-out); every overflow sleeper
 * wakes at or after base + WAKE_BUCKETS.  A scheduler is asleep when its
 * bit is set in its bucket (or the overflow): a take-out clears bits only.
 *
 * Cost: a sleep is a few stores (inline, below); a take-out reads the
 * bucket of each whole cycle passed (usually two: after an issue the loop
 * moves one cycle on, inline in wake_take_step); the minimum reads one
 * bucket's members.  The tournament tree this replaces walked its depth
 * (7 levels for 80 schedulers) at each sleep, take-out and removal.
 */
#ifndef GP_SIM_WAKE_H
#define GP_SIM_WAKE_H

#include "gp_common.h"

#include <math.h>
#include <stdint.h>

/* Buckets in the ring (a power of two): a wake-up up to this many cycles
 * ahead goes straight into its bucket. */
#define WAKE_BUCKETS 1024u
/* A sleeper's bucket when it waits in the overflow set. */
#define WAKE_IN_OVERFLOW UINT32_MAX

typedef struct wake_calendar {
  uint32_t count, words;    /* schedulers; 64-bit words of a bucket's bitmap */
  double base;              /* the ring's first whole cycle (below 2^52) */
  uint32_t base_bucket;     /* its bucket: base modulo WAKE_BUCKETS */
  double *at;               /* per scheduler: its last wake-up (valid while asleep; its
                               bucket follows from it: wake_bucket_of) */
  uint64_t *buckets;        /* WAKE_BUCKETS x words: each bucket's sleepers */
  uint64_t *overflow;       /* words: the sleepers beyond the ring */
  uint32_t overflow_count;
  double overflow_min;      /* at most the overflow's earliest wake-up */
  uint64_t nonempty[WAKE_BUCKETS / 64]; /* the buckets with a sleeper */
  double latest[WAKE_BUCKETS]; /* per bucket: at least its latest wake-up (a cancel or a
                              partial take-out does not lower it), -INFINITY when empty */
} wake_calendar;

/* A calendar of `count` schedulers, none asleep, its ring at cycle 0. */
int wake_init(wake_calendar *c, const gp_alloc *alloc, uint32_t count);
void wake_free(wake_calendar *c, const gp_alloc *alloc);
/* Scheduler g (asleep) is woken before its time. */
void wake_cancel(wake_calendar *c, uint32_t g);
/* The earliest wake-up, exactly as given; INFINITY when none sleeps. */
double wake_min(wake_calendar *c);
/* Takes every sleeper whose wake-up is at most t out of the calendar and
 * sets its bit in `due` (c->words words); t never below the t of the
 * previous call. */
void wake_take_due(wake_calendar *c, double t, uint64_t *due);

/* The overflow's part of a take-out at t (wake_take_due's last step). */
void wake_take_overflow(wake_calendar *c, double t, uint64_t *due);
/* The sleepers of bucket b (t's whole cycle) due by t, member by member. */
void wake_take_members(wake_calendar *c, uint32_t b, double t, uint64_t *due);

/* Every sleeper of bucket b is due: into `due`, the bucket left empty. */
static inline __attribute__((always_inline)) void wake_take_bucket(wake_calendar *c, uint32_t b,
                                                                   uint64_t *due) {
  uint64_t *bits = c->buckets + (size_t)b * c->words;
  uint32_t wi;
  for (wi = 0; wi < c->words; wi++) {
    due[wi] |= bits[wi];
    bits[wi] = 0;
  }
  c->nonempty[b >> 6] &= ~((uint64_t)1 << (b & 63));
  c->latest[b] = -INFINITY;
}

/* wake_take_due at t one cycle after the last take-out's (the loop after
 * an issue), inline: base's bucket whole, then t's (whole when its latest
 * wake-up is due, else member by member), as wake_take_due would; when t
 * is not in the next whole cycle, wake_take_due itself. */
static inline void wake_take_step(wake_calendar *c, double t, uint64_t *due) {
  double ahead = t - c->base;
  uint32_t b0 = c->base_bucket, b1 = (b0 + 1) & (WAKE_BUCKETS - 1);
  if (!(ahead >= 1 && ahead < 2)) {
    wake_take_due(c, t, due);
    return;
  }
  if ((c->nonempty[b0 >> 6] >> (b0 & 63)) & 1)
    wake_take_bucket(c, b0, due);
  if ((c->nonempty[b1 >> 6] >> (b1 & 63)) & 1) {
    if (c->latest[b1] <= t)
      wake_take_bucket(c, b1, due);
    else
      wake_take_members(c, b1, t, due);
  }
  c->base += 1, c->base_bucket = b1;
  if (c->overflow_count > 0 &&
      (c->overflow_min <= t || c->overflow_min - c->base < (double)WAKE_BUCKETS))
    wake_take_overflow(c, t, due);
}

/* Scheduler g (not asleep) sleeps until `wake` (finite; usually after the
 * last take-out's cycle).  Inline: about once every three warp
 * instructions. */
static inline void wake_sleep(wake_calendar *c, uint32_t g, double wake) {
  double ahead = wake - c->base; /* exact: both below 2^53, base whole */
  uint32_t b;
  c->at[g] = wake;
  if (!(ahead < (double)WAKE_BUCKETS)) {
    c->overflow[g >> 6] |= (uint64_t)1 << (g & 63);
    c->overflow_count++;
    if (wake < c->overflow_min)
      c->overflow_min = wake;
    return;
  }
  /* floor(wake), by truncation, modulo the ring (base_bucket is base's, base
   * whole); a wake-up behind base goes into base's bucket */
  b = ahead > 0 ? (uint32_t)(uint64_t)(int64_t)wake & (WAKE_BUCKETS - 1) : c->base_bucket;
  c->buckets[(size_t)b * c->words + (g >> 6)] |= (uint64_t)1 << (g & 63);
  c->nonempty[b >> 6] |= (uint64_t)1 << (b & 63);
  c->latest[b] = wake > c->latest[b] ? wake : c->latest[b];
}

/* The bucket of scheduler g while it is asleep (WAKE_IN_OVERFLOW in the
 * overflow), from its wake-up as wake_sleep chose it: base changes only at
 * a take-out, which leaves no sleeper behind base, and moves every
 * overflow sleeper now within the ring into its bucket.  Not asleep: some
 * bucket (or the overflow), none holding g. */
static inline uint32_t wake_bucket_of(const wake_calendar *c, uint32_t g) {
  double wake = c->at[g], ahead = wake - c->base;
  if (!(ahead < (double)WAKE_BUCKETS))
    return WAKE_IN_OVERFLOW;
  return ahead > 0 ? (uint32_t)(uint64_t)(int64_t)wake & (WAKE_BUCKETS - 1) : c->base_bucket;
}

/* Whether scheduler g is asleep. */
static inline int wake_asleep(const wake_calendar *c, uint32_t g) {
  uint32_t b = wake_bucket_of(c, g);
  const uint64_t *bits =
      b == WAKE_IN_OVERFLOW ? c->overflow : c->buckets + (size_t)b * c->words;
  return (int)((bits[g >> 6] >> (g & 63)) & 1);
}

#endif
