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
 */
#include "memsim.h"

#include <string.h>

struct gp_span_chunk {
  uint32_t n;                          /* 1..GP_CALENDAR_CHUNK spans in use */
  gp_span spans[GP_CALENDAR_CHUNK];
};

void gp_calendar_init(gp_calendar *c, double min_length) {
  memset(c, 0, sizeof *c);
  c->min_length = min_length;
}

void gp_calendar_free(gp_calendar *c, const gp_alloc *alloc) {
  uint32_t i;
  for (i = 0; i < c->count; i++)
    gp_free(alloc, c->chunks[i], sizeof *c->chunks[i]);
  gp_free(alloc, c->chunks, c->cap * sizeof *c->chunks);
  memset(c, 0, sizeof *c);
}

/* Removes chunk i from the directory and frees it. */
static void drop_chunk(gp_calendar *c, const gp_alloc *alloc, uint32_t i) {
  gp_free(alloc, c->chunks[i], sizeof *c->chunks[i]);
  memmove(c->chunks + i, c->chunks + i + 1, (c->count - i - 1) * sizeof *c->chunks);
  c->count--;
}

/* Drops the intervals that ended by `now`: no request is ready earlier. */
static void retire(gp_calendar *c, const gp_alloc *alloc, double now) {
  while (c->count > 0) {
    gp_span_chunk *first = c->chunks[0];
    uint32_t k = 0;
    while (k < first->n && first->spans[k].to <= now)
      k++;
    if (k < first->n) {
      memmove(first->spans, first->spans + k, (first->n - k) * sizeof *first->spans);
      first->n -= k;
      return;
    }
    drop_chunk(c, alloc, 0);
  }
}

/* The first interval that ends after t: chunk *ci, span *si (*ci = count
 * when none does), by binary search over chunks, then inside one. */
static void locate(const gp_calendar *c, double t, uint32_t *ci, uint32_t *si) {
  uint32_t lo = 0, hi = c->count;
  const gp_span_chunk *ch;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    ch = c->chunks[mid];
    if (ch->spans[ch->n - 1].to > t)
      hi = mid;
    else
      lo = mid + 1;
  }
  *ci = lo, *si = 0;
  if (lo == c->count)
    return;
  ch = c->chunks[lo];
  hi = ch->n - 1; /* spans[n - 1] ends after t */
  lo = 0;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (ch->spans[mid].to > t)
      hi = mid;
    else
      lo = mid + 1;
  }
  *si = lo;
}

/* The interval before position (ci, si), or NULL. */
static gp_span *before(gp_calendar *c, uint32_t ci, uint32_t si) {
  if (si > 0)
    return &c->chunks[ci]->spans[si - 1];
  if (ci > 0)
    return &c->chunks[ci - 1]->spans[c->chunks[ci - 1]->n - 1];
  return NULL;
}

/* Removes the interval at (ci, si). */
static void remove_at(gp_calendar *c, const gp_alloc *alloc, uint32_t ci, uint32_t si) {
  gp_span_chunk *ch = c->chunks[ci];
  memmove(ch->spans + si, ch->spans + si + 1, (ch->n - si - 1) * sizeof *ch->spans);
  if (--ch->n == 0)
    drop_chunk(c, alloc, ci);
}

/* Puts a new, empty chunk into the directory at position i. */
static int add_chunk(gp_calendar *c, const gp_alloc *alloc, uint32_t i) {
  size_t cap = c->cap;
  gp_span_chunk *ch;
  if (gp_grow(alloc, (void **)&c->chunks, &cap, (size_t)c->count + 1, sizeof *c->chunks) != GP_OK)
    return GP_ERR;
  c->cap = (uint32_t)cap;
  ch = gp_malloc(alloc, sizeof *ch);
  if (ch == NULL)
    return GP_ERR;
  ch->n = 0;
  memmove(c->chunks + i + 1, c->chunks + i, (c->count - i) * sizeof *c->chunks);
  c->chunks[i] = ch;
  c->count++;
  return GP_OK;
}

/* Inserts `span` before position (ci, si) (ci = count: at the end),
 * splitting a full chunk in two halves first. */
static int insert_at(gp_calendar *c, const gp_alloc *alloc, uint32_t ci, uint32_t si,
                     gp_span span) {
  gp_span_chunk *ch;
  if (c->count == 0) {
    if (add_chunk(c, alloc, 0) != GP_OK)
      return GP_ERR;
    ci = 0, si = 0;
  } else if (ci == c->count) {
    ci = c->count - 1, si = c->chunks[ci]->n;
  }
  if (c->chunks[ci]->n == GP_CALENDAR_CHUNK) {
    const uint32_t half = GP_CALENDAR_CHUNK / 2;
    gp_span_chunk *full, *upper;
    if (add_chunk(c, alloc, ci + 1) != GP_OK)
      return GP_ERR;
    full = c->chunks[ci], upper = c->chunks[ci + 1];
    memcpy(upper->spans, full->spans + half, (GP_CALENDAR_CHUNK - half) * sizeof *full->spans);
    upper->n = GP_CALENDAR_CHUNK - half;
    full->n = half;
    if (si > half)
      ci++, si -= half;
  }
  ch = c->chunks[ci];
  memmove(ch->spans + si + 1, ch->spans + si, (ch->n - si) * sizeof *ch->spans);
  ch->spans[si] = span;
  ch->n++;
  return GP_OK;
}

/* First fit: the earliest start >= ready at which `length` cycles overlap
 * no reserved interval; the reservation then joins a neighbour when the gap
 * between them is shorter than min_length (unusable). */
int gp_calendar_reserve(gp_calendar *c, const gp_alloc *alloc, double now, double ready,
                        double length, double *start) {
  uint32_t ci, si;
  double at = ready, end;
  gp_span *prev, *next;
  if (!(length > 0)) { /* takes no time: nothing to reserve */
    *start = ready;
    return GP_OK;
  }
  retire(c, alloc, now);
  locate(c, ready, &ci, &si);
  while (ci < c->count) {
    const gp_span *s = &c->chunks[ci]->spans[si];
    if (at + length <= s->from)
      break; /* fits in the gap before s */
    if (s->to > at)
      at = s->to;
    if (++si == c->chunks[ci]->n)
      ci++, si = 0;
  }
  *start = at;
  end = at + length;
  prev = before(c, ci, si);
  next = ci < c->count ? &c->chunks[ci]->spans[si] : NULL;
  if (prev != NULL && at - prev->to < c->min_length) {
    prev->to = end;
    if (next != NULL && next->from - end < c->min_length) { /* closes the gap */
      prev->to = next->to;
      remove_at(c, alloc, ci, si);
    }
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

size_t gp_calendar_intervals(const gp_calendar *c) {
  size_t n = 0;
  uint32_t i;
  for (i = 0; i < c->count; i++)
    n += c->chunks[i]->n;
  return n;
}

gp_span gp_calendar_interval(const gp_calendar *c, size_t k) {
  uint32_t i;
  for (i = 0; i < c->count && k >= c->chunks[i]->n; i++)
    k -= c->chunks[i]->n;
  return c->chunks[i]->spans[k];
}
