/*
 * memsim_calendar.c -- when is a one-at-a-time resource (an L2 slice, a
 * DRAM channel) free for a request that is ready at a given cycle?
 *
 * The timed mode learns of a request when the simulator issues its
 * instruction, but the request may only be ready to use a resource later
 * (it waited for an MSHR, or for its slice).  Requests therefore reserve
 * resources out of time order.  A single "next free" cycle per resource
 * would make a request ready now wait behind one reserved far in the
 * future and leave the resource idle in between; the calendar instead keeps
 * every reserved interval that has not ended and gives a request the
 * earliest gap, at or after its ready cycle, long enough for it (first
 * fit).  Reservations are never moved once made.  When requests arrive in
 * ready order this is exactly first-come first-served.
 *
 * A memory-bound kernel keeps thousands of future reservations per
 * resource, inserted anywhere, so the sorted intervals live in chunks of
 * GP_CALENDAR_CHUNK (an insertion moves at most one chunk's tail) under a
 * sorted directory of chunks.  Gaps shorter than the shortest request
 * (min_length) can never be used and are closed as they appear, which keeps
 * a saturated stretch one interval.
 *
 * A reservation's usual cases (an empty calendar, a request that cannot
 * end before the last interval starts) are inline in memsim_calendar.h;
 * this file has the rest: retiring chunks, the search, insertions that
 * split a chunk.
 */
#include "memsim_calendar.h"

#include <string.h>

void gp_calendar_init(gp_calendar *c, double min_length) {
  memset(c, 0, sizeof *c);
  c->min_length = min_length;
}

void gp_calendar_free(gp_calendar *c, const gp_alloc *alloc) {
  uint32_t i;
  for (i = 0; i < c->count; i++)
    gp_free(alloc, c->dir[i].chunk, sizeof *c->dir[i].chunk);
  gp_free(alloc, c->spare, sizeof *c->spare);
  gp_free(alloc, c->dir, c->cap * sizeof *c->dir);
  memset(c, 0, sizeof *c);
}

/* Removes chunk i from the directory and frees it, or keeps it as the
 * spare: a calendar that empties as its last interval ends and fills again
 * at the next request (most of them, most of the time) would otherwise
 * allocate and free a chunk per request. */
static void drop_chunk(gp_calendar *c, const gp_alloc *alloc, uint32_t i) {
  if (c->spare == NULL)
    c->spare = c->dir[i].chunk;
  else
    gp_free(alloc, c->dir[i].chunk, sizeof *c->dir[i].chunk);
  if (i + 1 < c->count) /* the usual drop is the only chunk: no call */
    memmove(c->dir + i, c->dir + i + 1, (c->count - i - 1) * sizeof *c->dir);
  c->count--;
}

/* Records chunk i's last end in the directory after a change. */
static void refresh(gp_calendar *c, uint32_t i) {
  const gp_span_chunk *ch = c->dir[i].chunk;
  c->dir[i].end = ch->spans[ch->n - 1].to;
}

/* Intervals that ended by c->now no longer matter (no request is ready
 * earlier) and are dropped a whole chunk at a time: a chunk's last interval
 * ends by then.  Dropping them one by one would move the first chunk's
 * spans at every request.  An ended interval left in the first chunk
 * changes no placement: the search starts at the first interval ending
 * after the ready cycle, and when a new interval joins an ended one the gap
 * between them (under min_length) could serve no request anyway. */
void gp_calendar_drop_ended(gp_calendar *c, const gp_alloc *alloc) {
  while (c->count > 0 && c->dir[0].end <= c->now)
    drop_chunk(c, alloc, 0);
}

/* Lower bounds without branches: the half to keep is chosen by a
 * conditional move, so a search costs a few instructions a step and no
 * mispredicted jump.  The first of the n chunks (spans), in time order,
 * whose end lies after t; n when none does. */
static inline uint32_t first_chunk_after(const gp_chunk_ref *d, uint32_t n, double t) {
  const gp_chunk_ref *base = d;
  while (n > 1) {
    uint32_t half = n / 2;
    base = base[half - 1].end <= t ? base + half : base;
    n -= half;
  }
  return (uint32_t)(base - d) + (n == 1 && base->end <= t);
}

/* The first of the n spans (sorted) whose end lies after t, n when none
 * does: the same index, searched with power-of-two steps so that the
 * steps are unrolled (a chunk's search, once per first-fit search: the
 * loop above took about twelve instructions a step, this about four).
 * With k the largest power of two <= n, the answer lies in [0, k - 1]
 * when span k - 1 ends after t, else in [n - k, n]; either way in
 * [i, i + k] with i + k <= n.  Each step halves that width (span
 * i + step - 1 ends by t: the answer is at least i + step), and the last
 * span left, i, decides between i and i + 1. */
static inline uint32_t first_span_after(const gp_span *s, uint32_t n, double t) {
  uint32_t i, k, step;
  if (n == 0)
    return 0;
  k = 1u << (31 - __builtin_clz(n));
  i = s[k - 1].to <= t ? n - k : 0;
  switch (k) {
  default: /* chunks above 32 spans */
    for (step = k >> 1; step > 16; step >>= 1)
      i += (uint32_t)(s[i + step - 1].to <= t) * step;
    /* fall through */
  case 32:
    i += (uint32_t)(s[i + 15].to <= t) << 4;
    /* fall through */
  case 16:
    i += (uint32_t)(s[i + 7].to <= t) << 3;
    /* fall through */
  case 8:
    i += (uint32_t)(s[i + 3].to <= t) << 2;
    /* fall through */
  case 4:
    i += (uint32_t)(s[i + 1].to <= t) << 1;
    /* fall through */
  case 2:
    i += (uint32_t)(s[i].to <= t);
    /* fall through */
  case 1:
    break;
  }
  return i + (s[i].to <= t);
}

/* Whether chunk i of the directory is the first whose end lies after t
 * (the ends increase): what the search over chunks returns. */
static inline int first_after_is(const gp_calendar *c, uint32_t i, double t) {
  return i < c->count && c->dir[i].end > t && (i == 0 || c->dir[i - 1].end <= t);
}

/* The first interval that ends after t: chunk *ci, span *si (*ci = count
 * when none does).  The chunk is the one the last search found when it
 * still is the first ending after t (the finger: a slice's or channel's
 * searches come in roughly increasing ready order, and chunk indices go
 * stale when chunks are dropped or split, so it is checked), else the
 * last chunk, else a binary search over chunks; then a search inside the
 * chunk. */
static void locate(gp_calendar *c, double t, uint32_t *ci, uint32_t *si) {
  uint32_t hi = c->count, lo;
  const gp_span_chunk *ch;
  if (first_after_is(c, c->finger, t))
    lo = c->finger;
  else if (hi > 0 && first_after_is(c, hi - 1, t))
    lo = hi - 1; /* most other searches are in the last chunk */
  else if (hi > 0 && c->dir[hi - 1].end <= t)
    lo = hi;
  else
    lo = first_chunk_after(c->dir, hi, t);
  *ci = lo, *si = 0;
  if (lo == c->count)
    return;
  c->finger = lo;
  ch = c->dir[lo].chunk;
  /* spans[n - 1] ends after t: search the others */
  *si = first_span_after(ch->spans, ch->n - 1, t);
}

/* The chunk holding the interval before position (ci, si); -1 when there
 * is none. */
static int64_t chunk_before(uint32_t ci, uint32_t si) {
  return si > 0 ? (int64_t)ci : (int64_t)ci - 1;
}

/* Removes the interval at (ci, si). */
static void remove_at(gp_calendar *c, const gp_alloc *alloc, uint32_t ci, uint32_t si) {
  gp_span_chunk *ch = c->dir[ci].chunk;
  memmove(ch->spans + si, ch->spans + si + 1, (ch->n - si - 1) * sizeof *ch->spans);
  if (--ch->n == 0)
    drop_chunk(c, alloc, ci);
}

/* Puts a new, empty chunk into the directory at position i. */
static int add_chunk(gp_calendar *c, const gp_alloc *alloc, uint32_t i) {
  size_t cap = c->cap;
  gp_span_chunk *ch;
  if (gp_grow(alloc, (void **)&c->dir, &cap, (size_t)c->count + 1, sizeof *c->dir) != GP_OK)
    return GP_ERR;
  c->cap = (uint32_t)cap;
  ch = c->spare != NULL ? c->spare : gp_malloc(alloc, sizeof *ch);
  if (ch == NULL)
    return GP_ERR;
  c->spare = NULL;
  ch->n = 0;
  memmove(c->dir + i + 1, c->dir + i, (c->count - i) * sizeof *c->dir);
  c->dir[i].chunk = ch;
  c->count++;
  return GP_OK;
}

/* Inserts `span` before position (ci, si) (ci = count: at the end),
 * splitting a full chunk in two halves first. */
static int insert_at(gp_calendar *c, const gp_alloc *alloc, uint32_t ci, uint32_t si,
                     gp_span span) {
  gp_span_chunk *ch;
  uint32_t split = UINT32_MAX;
  if (c->count == 0) {
    if (add_chunk(c, alloc, 0) != GP_OK)
      return GP_ERR;
    ci = 0, si = 0;
  } else if (ci == c->count) {
    ci = c->count - 1, si = c->dir[ci].chunk->n;
  }
  if (c->dir[ci].chunk->n == GP_CALENDAR_CHUNK) {
    const uint32_t half = GP_CALENDAR_CHUNK / 2;
    gp_span_chunk *full, *upper;
    if (add_chunk(c, alloc, ci + 1) != GP_OK)
      return GP_ERR;
    full = c->dir[ci].chunk, upper = c->dir[ci + 1].chunk;
    memcpy(upper->spans, full->spans + half, (GP_CALENDAR_CHUNK - half) * sizeof *full->spans);
    upper->n = GP_CALENDAR_CHUNK - half;
    full->n = half;
    split = ci;
    if (si > half)
      ci++, si -= half;
  }
  ch = c->dir[ci].chunk;
  memmove(ch->spans + si + 1, ch->spans + si, (ch->n - si) * sizeof *ch->spans);
  ch->spans[si] = span;
  ch->n++;
  if (split != UINT32_MAX) {
    refresh(c, split);
    refresh(c, split + 1);
  }
  refresh(c, ci);
  return GP_OK;
}

/* First fit anywhere: the earliest start >= ready at which `length`
 * cycles overlap no reserved interval; the reservation then joins a
 * neighbour when the gap between them is shorter than min_length
 * (unusable). */
int gp_calendar_first_fit(gp_calendar *c, const gp_alloc *alloc, double ready, double length,
                          double *start) {
  uint32_t ci, si;
  int64_t pci;
  double at = ready, end;
  gp_span *prev, *next;
  locate(c, ready, &ci, &si);
  while (ci < c->count) {
    const gp_span *s = &c->dir[ci].chunk->spans[si];
    if (at + length <= s->from)
      break; /* fits in the gap before s */
    if (s->to > at)
      at = s->to;
    if (++si == c->dir[ci].chunk->n)
      ci++, si = 0;
  }
  *start = at;
  end = at + length;
  pci = chunk_before(ci, si);
  prev = pci < 0 ? NULL
       : si > 0 ? &c->dir[ci].chunk->spans[si - 1]
                : &c->dir[pci].chunk->spans[c->dir[pci].chunk->n - 1];
  next = ci < c->count ? &c->dir[ci].chunk->spans[si] : NULL;
  if (prev != NULL && at - prev->to < c->min_length) {
    prev->to = end;
    if (next != NULL && next->from - end < c->min_length) { /* closes the gap */
      prev->to = next->to;
      remove_at(c, alloc, ci, si);
    }
    refresh(c, (uint32_t)pci);
    return GP_OK;
  }
  if (next != NULL && next->from - end < c->min_length) {
    next->from = at;
    return GP_OK;
  }
  {
    gp_span span;
    span.from = at, span.to = end;
    return insert_at(c, alloc, ci, si, span);
  }
}

/* A new last interval when the last chunk is full: it is split. */
int gp_calendar_append_split(gp_calendar *c, const gp_alloc *alloc, gp_span span) {
  return insert_at(c, alloc, c->count, 0, span);
}

int gp_calendar_reserve(gp_calendar *c, const gp_alloc *alloc, double now, double ready,
                        double length, double *start) {
  return gp_calendar_reserve_inline(c, alloc, now, ready, length, start);
}

/* The first interval that has not ended by c->now: chunk 0's spans
 * before it ended but were kept (gp_calendar_drop_ended). */
static uint32_t first_live(const gp_calendar *c) {
  uint32_t k = 0;
  if (c->count > 0)
    while (c->dir[0].chunk->spans[k].to <= c->now)
      k++; /* the chunk's last span ends after now */
  return k;
}

size_t gp_calendar_intervals(const gp_calendar *c) {
  size_t n = 0;
  uint32_t i;
  for (i = 0; i < c->count; i++)
    n += c->dir[i].chunk->n;
  return n - first_live(c);
}

gp_span gp_calendar_interval(const gp_calendar *c, size_t k) {
  uint32_t i;
  k += first_live(c);
  for (i = 0; i < c->count && k >= c->dir[i].chunk->n; i++)
    k -= c->dir[i].chunk->n;
  return c->dir[i].chunk->spans[k];
}
