/*
 * wake.c -- the calendar of sleeping schedulers (wake.h): its allocation,
 * the take-out of the sleepers due at a cycle, the earliest wake-up and the
 * overflow beyond the ring.
 */
#include "wake.h"

#include <string.h>

/* No bucket: past the ring. */
#define NO_BUCKET UINT32_MAX
/* The ring's base stays below 2^52, where doubles still hold every whole
 * cycle (a loop that far is long past any real kernel). */
#define WAKE_BASE_MAX 4503599627370496.0

int wake_init(wake_calendar *c, const gp_alloc *alloc, uint32_t count) {
  uint32_t g;
  memset(c, 0, sizeof *c);
  c->count = count;
  c->words = count > 0 ? (count + 63) / 64 : 1;
  c->overflow_min = INFINITY;
  c->at = gp_malloc(alloc, (count > 0 ? count : 1) * sizeof *c->at);
  c->buckets = gp_malloc(alloc, (size_t)WAKE_BUCKETS * c->words * sizeof *c->buckets);
  c->overflow = gp_malloc(alloc, c->words * sizeof *c->overflow);
  if (!c->at || !c->buckets || !c->overflow)
    return GP_ERR;
  for (g = 0; g < count; g++)
    c->at[g] = INFINITY;
  for (g = 0; g < WAKE_BUCKETS; g++)
    c->latest[g] = -INFINITY;
  memset(c->buckets, 0, (size_t)WAKE_BUCKETS * c->words * sizeof *c->buckets);
  memset(c->overflow, 0, c->words * sizeof *c->overflow);
  return GP_OK;
}

void wake_free(wake_calendar *c, const gp_alloc *alloc) {
  gp_free(alloc, c->at, (c->count > 0 ? c->count : 1) * sizeof *c->at);
  gp_free(alloc, c->buckets, (size_t)WAKE_BUCKETS * c->words * sizeof *c->buckets);
  gp_free(alloc, c->overflow, c->words * sizeof *c->overflow);
  c->at = NULL, c->buckets = c->overflow = NULL;
}

/* The first bucket `from` or more buckets after base's (from below
 * WAKE_BUCKETS) with a sleeper: its distance from base's; NO_BUCKET when
 * none within the ring. */
static uint32_t first_nonempty(const wake_calendar *c, uint32_t from) {
  uint32_t off = from;
  while (off < WAKE_BUCKETS) {
    uint32_t b = (c->base_bucket + off) & (WAKE_BUCKETS - 1);
    uint64_t m = c->nonempty[b >> 6] >> (b & 63);
    if (m) {
      off += (uint32_t)__builtin_ctzll(m);
      return off < WAKE_BUCKETS ? off : NO_BUCKET;
    }
    off += 64 - (b & 63);
  }
  return NO_BUCKET;
}

/* Bucket b's bitmap. */
static uint64_t *bucket_bits(const wake_calendar *c, uint32_t b) {
  return c->buckets + (size_t)b * c->words;
}

/* Bucket b has no sleeper left. */
static void mark_empty(wake_calendar *c, uint32_t b) {
  c->nonempty[b >> 6] &= ~((uint64_t)1 << (b & 63));
  c->latest[b] = -INFINITY;
}

/* Clears bucket b's bit in `nonempty` when it has no sleeper left. */
static void note_if_empty(wake_calendar *c, uint32_t b) {
  const uint64_t *bits = bucket_bits(c, b);
  uint32_t wi;
  for (wi = 0; wi < c->words; wi++)
    if (bits[wi])
      return;
  mark_empty(c, b);
}

void wake_cancel(wake_calendar *c, uint32_t g) {
  uint64_t bit = (uint64_t)1 << (g & 63);
  uint32_t b = wake_bucket_of(c, g);
  if (b == WAKE_IN_OVERFLOW) {
    c->overflow[g >> 6] &= ~bit;
    if (--c->overflow_count == 0)
      c->overflow_min = INFINITY;
    return;
  }
  bucket_bits(c, b)[g >> 6] &= ~bit;
  note_if_empty(c, b);
}

/* (wake.h) Out of line: the rare case, a bucket whose latest sleeper is
 * not due yet. */
__attribute__((noinline)) void wake_take_members(wake_calendar *c, uint32_t b, double t,
                                                 uint64_t *due) {
  uint64_t *bits = bucket_bits(c, b), left = 0;
  uint32_t wi;
  for (wi = 0; wi < c->words; wi++) {
    uint64_t m = bits[wi], taken = 0;
    while (m) {
      uint32_t g = wi * 64 + (uint32_t)__builtin_ctzll(m);
      taken |= (uint64_t)(c->at[g] <= t) << (g & 63);
      m &= m - 1;
    }
    due[wi] |= taken;
    left |= bits[wi] &= ~taken;
  }
  if (!left)
    mark_empty(c, b);
}

/* The sleepers of bucket b (t's whole cycle) due by t, into `due`: the
 * whole bucket when its latest wake-up is due (the usual case: sleepers
 * of the current cycle only), else member by member. */
static inline __attribute__((always_inline)) void take_some(wake_calendar *c, uint32_t b,
                                                            double t, uint64_t *due) {
  if (c->latest[b] <= t)
    wake_take_bucket(c, b, due);
  else
    wake_take_members(c, b, t, due);
}

/* After the ring moved to t's cycle: the overflow's sleepers due by t go
 * into `due`, those now within the ring into their buckets; the rest stay
 * (overflow_min becomes their exact minimum). */
void wake_take_overflow(wake_calendar *c, double t, uint64_t *due) {
  uint32_t wi;
  c->overflow_min = INFINITY;
  for (wi = 0; wi < c->words; wi++) {
    uint64_t m = c->overflow[wi];
    while (m) {
      uint32_t g = wi * 64 + (uint32_t)__builtin_ctzll(m);
      uint64_t bit = m & -m;
      double wake = c->at[g];
      m &= m - 1;
      if (wake <= t) {
        c->overflow[wi] &= ~bit;
        c->overflow_count--;
        due[wi] |= bit;
      } else if (wake - c->base < (double)WAKE_BUCKETS) {
        c->overflow[wi] &= ~bit;
        c->overflow_count--;
        wake_sleep(c, g, wake); /* into the ring now */
      } else if (wake < c->overflow_min) {
        c->overflow_min = wake;
      }
    }
  }
}

/* The ring moves on to t's whole cycle (t at least base + 1): every
 * bucket before it is empty. */
static void move_base(wake_calendar *c, double t) {
  double base = t < WAKE_BASE_MAX ? (double)(int64_t)t : WAKE_BASE_MAX;
  uint64_t moved = (uint64_t)(base - c->base);
  c->base_bucket = (uint32_t)((c->base_bucket + moved) & (WAKE_BUCKETS - 1));
  c->base = base;
}

void wake_take_due(wake_calendar *c, double t, uint64_t *due) {
  double ahead = t - c->base;
  uint32_t off, b = c->base_bucket;
  if (ahead < 1) { /* t in base's cycle: its bucket member by member */
    if ((c->nonempty[b >> 6] >> (b & 63)) & 1)
      take_some(c, b, t, due);
  } else if (ahead < 2) { /* the next cycle (after an issue): base's bucket whole, then t's */
    if ((c->nonempty[b >> 6] >> (b & 63)) & 1)
      wake_take_bucket(c, b, due);
    b = (b + 1) & (WAKE_BUCKETS - 1);
    if ((c->nonempty[b >> 6] >> (b & 63)) & 1)
      take_some(c, b, t, due);
    c->base += 1, c->base_bucket = b;
  } else { /* a jump: the buckets in between are empty, so skipped */
    for (off = first_nonempty(c, 0); off != NO_BUCKET && (double)off <= ahead;
         off = first_nonempty(c, off + 1)) {
      b = (c->base_bucket + off) & (WAKE_BUCKETS - 1);
      if ((double)(off + 1) <= ahead)
        wake_take_bucket(c, b, due);
      else
        take_some(c, b, t, due);
    }
    move_base(c, t);
  }
  /* (the first test matters only once base stops at WAKE_BASE_MAX) */
  if (c->overflow_count > 0 &&
      (c->overflow_min <= t || c->overflow_min - c->base < (double)WAKE_BUCKETS))
    wake_take_overflow(c, t, due);
}

double wake_min(wake_calendar *c) {
  uint32_t off = first_nonempty(c, 0), wi;
  double best = INFINITY;
  if (off != NO_BUCKET) { /* the ring's first bucket wakes before any later one */
    const uint64_t *bits = bucket_bits(c, (c->base_bucket + off) & (WAKE_BUCKETS - 1));
    for (wi = 0; wi < c->words; wi++) {
      uint64_t m = bits[wi];
      while (m) {
        uint32_t g = wi * 64 + (uint32_t)__builtin_ctzll(m);
        m &= m - 1;
        if (c->at[g] < best)
          best = c->at[g];
      }
    }
    return best;
  }
  if (c->overflow_count == 0)
    return INFINITY;
  for (wi = 0; wi < c->words; wi++) { /* only the overflow: its exact minimum */
    uint64_t m = c->overflow[wi];
    while (m) {
      uint32_t g = wi * 64 + (uint32_t)__builtin_ctzll(m);
      m &= m - 1;
      if (c->at[g] < best)
        best = c->at[g];
    }
  }
  c->overflow_min = best;
  return best;
}
