/*
 * memsim_calendar.h -- a calendar's chunks and the usual cases of a
 * reservation, inline.
 *
 * The timed model reserves a slice and often a channel per request, and
 * most reservations are one of two short cases: the calendar is empty (its
 * last interval ended before the request), or the request cannot end
 * before the last interval starts, so it goes after it.  Those cost fewer
 * instructions than the call to reach them, so they are inline here; the
 * search, the retirement of ended chunks and the insertions that split a
 * chunk are in memsim_calendar.c.  gp_calendar_reserve (memsim.h) is the
 * same function out of line.
 */
#ifndef GP_MEMSIM_CALENDAR_H
#define GP_MEMSIM_CALENDAR_H

#include "memsim.h"

struct gp_span_chunk {
  uint32_t n;                          /* 1..GP_CALENDAR_CHUNK spans in use */
  gp_span spans[GP_CALENDAR_CHUNK];
};

/* memsim_calendar.c: drops the chunks whose last interval ended by c->now;
 * first fit anywhere (the search); a new last interval when the last chunk
 * is full. */
void gp_calendar_drop_ended(gp_calendar *c, const gp_alloc *alloc);
int gp_calendar_first_fit(gp_calendar *c, const gp_alloc *alloc, double ready, double length,
                          double *start);
int gp_calendar_append_split(gp_calendar *c, const gp_alloc *alloc, gp_span span);

/* A request that cannot end before the last interval `last` starts
 * (ready + length > last->from: a saturated resource's queue, or one idle
 * again) takes no gap before `last`, so first fit starts it at `ready` or
 * when `last` ends, whichever is later, and it joins `last` across a gap
 * shorter than min_length -- what gp_calendar_first_fit finds (its walk
 * passes `last`), without the search. */
static inline __attribute__((always_inline)) int
gp_calendar_reserve_at_end(gp_calendar *c, const gp_alloc *alloc, gp_span *last, double ready,
                           double length, double *start) {
  gp_span_chunk *ch = c->dir[c->count - 1].chunk;
  double at = last->to > ready ? last->to : ready;
  gp_span span;
  *start = at;
  if (at - last->to < c->min_length) {
    last->to = at + length;
    c->dir[c->count - 1].end = last->to;
    return GP_OK;
  }
  span.from = at, span.to = at + length;
  if (ch->n == GP_CALENDAR_CHUNK)
    return gp_calendar_append_split(c, alloc, span);
  ch->spans[ch->n++] = span; /* what an insertion there does: no split, no move */
  c->dir[c->count - 1].end = span.to;
  return GP_OK;
}

/* gp_calendar_reserve (memsim.h): retires the chunks ended by `now`, then
 * takes the usual cases here and leaves the search to
 * gp_calendar_first_fit. */
static inline __attribute__((always_inline)) int
gp_calendar_reserve_inline(gp_calendar *c, const gp_alloc *alloc, double now, double ready,
                           double length, double *start) {
  if (!(length > 0)) { /* takes no time: nothing to reserve */
    *start = ready;
    return GP_OK;
  }
  c->now = now;
  if (c->count == 1 && c->dir[0].end <= now) {
    /* the only chunk ended: the calendar is empty again (an L2 slice's,
     * most of the time), and that chunk takes the one interval in place
     * -- what dropping it as the spare and taking the spare back does,
     * without the call */
    gp_span_chunk *ch = c->dir[0].chunk;
    ch->n = 1;
    ch->spans[0].from = ready;
    ch->spans[0].to = ready + length;
    c->dir[0].end = ch->spans[0].to;
    *start = ready;
    return GP_OK;
  }
  if (c->count > 0 && c->dir[0].end <= now)
    gp_calendar_drop_ended(c, alloc);
  if (c->count == 0 && c->spare != NULL) {
    /* an empty calendar (most of them, most of the time): the spare chunk
     * holds the one interval, as an insertion would put it */
    gp_span_chunk *ch = c->spare;
    c->spare = NULL;
    ch->n = 1;
    ch->spans[0].from = ready;
    ch->spans[0].to = ready + length;
    c->dir[0].chunk = ch; /* the directory kept its room (cap >= 1) */
    c->dir[0].end = ch->spans[0].to;
    c->count = 1;
    *start = ready;
    return GP_OK;
  }
  if (c->count > 0) {
    gp_span_chunk *ch = c->dir[c->count - 1].chunk;
    gp_span *last = &ch->spans[ch->n - 1];
    if (ready + length > last->from)
      return gp_calendar_reserve_at_end(c, alloc, last, ready, length, start);
  }
  return gp_calendar_first_fit(c, alloc, ready, length, start);
}

#endif
