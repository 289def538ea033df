/* Unit tests of the resource calendar (memsim_calendar.c): first-fit
 * placement in gaps, joining of touching intervals and closing of unusable
 * gaps, retirement, chunk splits, zero-length requests.  Every start is
 * computed by hand. */
#include "gp_test.h"
#include "memsim.h"

#include <string.h>

static double reserve(gp_calendar *c, double now, double ready, double length) {
  gp_alloc a = gp_alloc_default();
  double start = -1;
  CHECK(gp_calendar_reserve(c, &a, now, ready, length, &start) == GP_OK);
  return start;
}

static int has_interval(const gp_calendar *c, size_t k, double from, double to) {
  gp_span s = gp_calendar_interval(c, k);
  return s.from == from && s.to == to;
}

/* Requests ready in order are first-come first-served: three 4-cycle
 * requests ready at 0 start at 0, 4, 8 and form one interval [0, 12). */
static void test_in_order_is_fifo(void) {
  gp_alloc a = gp_alloc_default();
  gp_calendar c;
  gp_calendar_init(&c, 1);
  CHECK_NEAR(reserve(&c, 0, 0, 4), 0, 0);
  CHECK_NEAR(reserve(&c, 0, 0, 4), 4, 0);
  CHECK_NEAR(reserve(&c, 0, 0, 4), 8, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 1);
  CHECK(has_interval(&c, 0, 0, 12));
  CHECK_NEAR(reserve(&c, 0, 5, 0), 5, 0); /* takes no time: no reservation */
  CHECK_EQ_INT(gp_calendar_intervals(&c), 1);
  gp_calendar_free(&c, &a);
}

/* A request reserved in the future does not hold back one ready now.
 * [0,12) and [100,110) reserved; ready 20 for 4 -> 20 (the gap);
 * ready 90 for 10 -> 90 (fits exactly, joins [100,110)); ready 85 for 6
 * -> 110 (the gap [85,90) is too short), joining [90,116). */
static void test_gaps_are_filled_first_fit(void) {
  gp_alloc a = gp_alloc_default();
  gp_calendar c;
  gp_calendar_init(&c, 1);
  reserve(&c, 0, 0, 12);
  CHECK_NEAR(reserve(&c, 0, 100, 10), 100, 0);
  CHECK_NEAR(reserve(&c, 0, 20, 4), 20, 0);
  CHECK_NEAR(reserve(&c, 0, 90, 10), 90, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 3);
  CHECK_NEAR(reserve(&c, 0, 85, 6), 110, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 3);
  CHECK(has_interval(&c, 2, 90, 116));
  /* a request closing a gap exactly joins both neighbours: [12,20) */
  CHECK_NEAR(reserve(&c, 0, 12, 8), 12, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 2);
  CHECK(has_interval(&c, 0, 0, 24));
  /* at cycle 50 the intervals that ended are gone */
  CHECK_NEAR(reserve(&c, 50, 50, 5), 50, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 2);
  CHECK(has_interval(&c, 0, 50, 55));
  gp_calendar_free(&c, &a);
}

/* With requests of at least 2 cycles a gap under 2 cycles is useless and
 * closed: [0,4), then ready 5 for 2 -> [5,7) joins it as [0,7); ready 9
 * for 2 -> [9,11) stays apart (a 2-cycle gap); ready 12.5 for 2 -> 1.5
 * after it, joins as [9,14.5); ready 6 for 2 -> 7, the 2-cycle gap,
 * closing everything into [0,14.5). */
static void test_unusable_gaps_are_closed(void) {
  gp_alloc a = gp_alloc_default();
  gp_calendar c;
  gp_calendar_init(&c, 2);
  reserve(&c, 0, 0, 4);
  CHECK_NEAR(reserve(&c, 0, 5, 2), 5, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 1);
  CHECK(has_interval(&c, 0, 0, 7));
  CHECK_NEAR(reserve(&c, 0, 9, 2), 9, 0); /* 2 cycles after: kept apart */
  CHECK_EQ_INT(gp_calendar_intervals(&c), 2);
  CHECK_NEAR(reserve(&c, 0, 12.5, 2), 12.5, 0); /* 1.5 after [9,11): joins */
  CHECK_EQ_INT(gp_calendar_intervals(&c), 2);
  CHECK(has_interval(&c, 1, 9, 14.5));
  /* the 2-cycle gap [7,9) still takes a 2-cycle request ready at 6 */
  CHECK_NEAR(reserve(&c, 0, 6, 2), 7, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 1);
  CHECK(has_interval(&c, 0, 0, 14.5));
  gp_calendar_free(&c, &a);
}

/* 200 separate intervals (ready 10 i, 5 cycles, reserved last first) fill
 * several chunks and stay sorted; then 200 requests of 5 cycles ready at 0
 * fill the 200 gaps in order, leaving one interval [0, 2000). */
static void test_chunks_split_and_stay_sorted(void) {
  gp_alloc a = gp_alloc_default();
  gp_calendar c;
  int i, sorted = 1;
  gp_calendar_init(&c, 1);
  for (i = 199; i >= 0; i--)
    CHECK_NEAR(reserve(&c, 0, 10.0 * i, 5), 10.0 * i, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 200);
  CHECK(c.count > 200 / GP_CALENDAR_CHUNK);
  for (i = 0; i < 200; i++)
    sorted &= has_interval(&c, (size_t)i, 10.0 * i, 10.0 * i + 5);
  CHECK(sorted);
  for (i = 0; i < 200; i++)
    CHECK_NEAR(reserve(&c, 0, 0, 5), 10.0 * i + 5, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 1);
  CHECK(has_interval(&c, 0, 0, 2000));
  CHECK_EQ_INT(c.count, 1);
  /* everything ended by 3000: the next reservation starts a fresh list */
  CHECK_NEAR(reserve(&c, 3000, 3000, 5), 3000, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 1);
  gp_calendar_free(&c, &a);
}

/* A request that cannot end before the last interval starts skips the
 * search (reserve_at_end); its edges, by hand, with min_length 1 and
 * intervals [0,10), [30,40): ready 29 for 1 cycle ends as the last one
 * starts, so it fits in the gap before it (the search's case; it joins it
 * as [29,40)); ready 29 for 2 -> 40, joining it as [29,42); ready 42.5 for
 * 2 -> 42.5, under min_length after it: [29,44.5); ready 45.5 for 2 ->
 * 45.5, a new interval [45.5,47.5).  A request too short to register at
 * its magnitude (1 cycle at 1e17, whose ulp is 16) ends, in doubles, as an
 * interval starting at its ready cycle starts: it goes before it. */
static void test_requests_at_the_end(void) {
  gp_alloc a = gp_alloc_default();
  gp_calendar c;
  gp_calendar_init(&c, 1);
  reserve(&c, 0, 0, 10);
  reserve(&c, 0, 30, 10);
  CHECK_NEAR(reserve(&c, 0, 29, 1), 29, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 2);
  CHECK(has_interval(&c, 1, 29, 40));
  CHECK_NEAR(reserve(&c, 0, 29, 2), 40, 0);
  CHECK(has_interval(&c, 1, 29, 42));
  CHECK_NEAR(reserve(&c, 0, 42.5, 2), 42.5, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 2);
  CHECK(has_interval(&c, 1, 29, 44.5));
  CHECK_NEAR(reserve(&c, 0, 45.5, 2), 45.5, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 3);
  CHECK(has_interval(&c, 2, 45.5, 47.5));
  gp_calendar_free(&c, &a);
  gp_calendar_init(&c, 1);
  reserve(&c, 0, 1e17, 64);
  CHECK_NEAR(reserve(&c, 0, 1e17, 1), 1e17, 0);
  gp_calendar_free(&c, &a);
}

/* The rules on a plain sorted array, as a reference: intervals that ended
 * by `now` are dropped at once, then first fit from `ready`, joining a
 * neighbour across a gap shorter than min_length. */
typedef struct ref_calendar {
  gp_span s[4096];
  int n;
  double min_length;
} ref_calendar;

static double ref_reserve(ref_calendar *r, double now, double ready, double length) {
  int i = 0;
  double at = ready, end;
  while (i < r->n && r->s[i].to <= now)
    i++;
  memmove(r->s, r->s + i, (size_t)(r->n - i) * sizeof *r->s);
  r->n -= i;
  for (i = 0; i < r->n && r->s[i].to <= ready; i++)
    ;
  for (; i < r->n && at + length > r->s[i].from; i++)
    if (r->s[i].to > at)
      at = r->s[i].to;
  end = at + length;
  if (i > 0 && at - r->s[i - 1].to < r->min_length) {
    r->s[i - 1].to = end;
    if (i < r->n && r->s[i].from - end < r->min_length) {
      r->s[i - 1].to = r->s[i].to;
      memmove(r->s + i, r->s + i + 1, (size_t)(r->n - i - 1) * sizeof *r->s);
      r->n--;
    }
    return at;
  }
  if (i < r->n && r->s[i].from - end < r->min_length) {
    r->s[i].from = at;
    return at;
  }
  memmove(r->s + i + 1, r->s + i, (size_t)(r->n - i) * sizeof *r->s);
  r->s[i].from = at, r->s[i].to = end;
  r->n++;
  return at;
}

/* 30,000 seeded requests (lengths 1-2 cycles, ready up to 1,000 cycles after
 * a clock that moves 2 cycles a request on average, so reservations land
 * out of order among a hundred or more intervals in several chunks) against
 * the reference: every start is the same, and so are the intervals that
 * have not ended. */
static void test_matches_the_plain_rules(void) {
  gp_alloc a = gp_alloc_default();
  gp_calendar c;
  static ref_calendar r;
  double now = 0;
  uint64_t x = 99;
  int i, same = 1;
  size_t k;
  gp_calendar_init(&c, 1);
  memset(&r, 0, sizeof r);
  r.min_length = 1;
  for (i = 0; i < 30000 && r.n < 4000; i++) {
    double ready, length;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    now += (double)((x >> 40) % 5);
    ready = now + (double)((x >> 20) % 4000) * 0.25;
    length = 1 + (double)((x >> 10) % 5) * 0.25;
    same &= reserve(&c, now, ready, length) == ref_reserve(&r, now, ready, length);
  }
  CHECK(same);
  CHECK_EQ_INT(gp_calendar_intervals(&c), r.n);
  for (k = 0; k < (size_t)r.n; k++)
    same &= gp_calendar_interval(&c, k).to == r.s[k].to;
  CHECK(same);
  gp_calendar_free(&c, &a);
}

/* A calendar that empties and fills again (the usual case of an L2 slice or
 * a DRAM channel on a small launch: its one interval ends before the next
 * request, which reuses the spare chunk): 20,000 seeded requests ready 0-8
 * cycles after a clock that moves 0-19 cycles a request, against the
 * reference; thousands of them find the calendar empty. */
static void test_empties_and_fills_again(void) {
  gp_alloc a = gp_alloc_default();
  gp_calendar c;
  static ref_calendar r;
  double now = 0;
  uint64_t x = 7;
  int i, j, same = 1, empty = 0;
  gp_calendar_init(&c, 1);
  memset(&r, 0, sizeof r);
  r.min_length = 1;
  for (i = 0; i < 20000; i++) {
    double ready, length;
    int live = 0;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    now += (double)((x >> 40) % 20);
    ready = now + (double)((x >> 20) % 33) * 0.25;
    length = 1 + (double)((x >> 10) % 9) * 0.5;
    for (j = 0; j < r.n; j++)
      live += r.s[j].to > now;
    empty += live == 0;
    same &= reserve(&c, now, ready, length) == ref_reserve(&r, now, ready, length);
  }
  CHECK(same);
  CHECK(empty > 2000);
  CHECK_EQ_INT(gp_calendar_intervals(&c), r.n);
  gp_calendar_free(&c, &a);
}

/* A calendar whose one chunk has ended takes the next interval into that
 * chunk in place (memsim_calendar.h): a full chunk of intervals [4i,
 * 4i + 2) (GP_CALENDAR_CHUNK of them, at most 64), all ended by cycle 300,
 * then a request at 300 ready at 305 of 3 cycles is the calendar's only
 * interval [305, 308); the next, ready at 306, queues behind it (starts at
 * 308, joins it: [305, 311)), and one ready at 320 is a second interval;
 * at 322 both have ended and a request ready then is again alone.  A chunk
 * reused with its old count, or with its directory end left stale, fails
 * it. */
static void test_an_ended_chunk_is_reused(void) {
  gp_alloc a = gp_alloc_default();
  gp_calendar c;
  int i;
  gp_calendar_init(&c, 1);
  for (i = 0; i < GP_CALENDAR_CHUNK; i++)
    reserve(&c, 0, 4.0 * i, 2);
  CHECK_EQ_INT(c.count, 1);
  CHECK_EQ_INT(gp_calendar_intervals(&c), GP_CALENDAR_CHUNK);
  CHECK_NEAR(reserve(&c, 300, 305, 3), 305, 0);
  CHECK_EQ_INT(c.count, 1);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 1);
  CHECK(has_interval(&c, 0, 305, 308));
  CHECK_NEAR(reserve(&c, 300, 306, 3), 308, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 1);
  CHECK(has_interval(&c, 0, 305, 311));
  CHECK_NEAR(reserve(&c, 301, 320, 2), 320, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 2);
  CHECK(has_interval(&c, 1, 320, 322));
  CHECK_NEAR(reserve(&c, 322, 322, 1), 322, 0);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 1);
  CHECK(has_interval(&c, 0, 322, 323));
  gp_calendar_free(&c, &a);
}

/* The finger (the chunk the last search found, tried first) is only a
 * hint: whatever chunk it names, a search starts in the first chunk that
 * ends after the ready cycle.  200 intervals [10i, 10i + 5) in several
 * chunks; 200 requests of 3 cycles ready at 10k + 6 (k in a scrambled
 * order), each with the finger set to k mod (chunks + 2) first (a chunk
 * before the right one, the right one, one after it, past the directory):
 * each fits its own gap and starts at 10k + 6 (min_length 1: no gap it
 * leaves is closed), and the intervals alternate [10i, 10i + 5),
 * [10i + 6, 10i + 9).  A finger taken without checking that the chunk
 * before it ended by the ready cycle fails it (the starts are right, the
 * intervals are inserted out of order). */
static void test_a_stale_finger(void) {
  gp_alloc a = gp_alloc_default();
  gp_calendar c;
  int i, right = 1;
  uint32_t chunks;
  gp_calendar_init(&c, 1);
  for (i = 199; i >= 0; i--)
    reserve(&c, 0, 10.0 * i, 5);
  chunks = c.count;
  CHECK(chunks >= 4);
  for (i = 0; i < 200; i++) {
    int k = (i * 77) % 200;
    c.finger = (uint32_t)k % (chunks + 2);
    right &= reserve(&c, 0, 10.0 * k + 6, 3) == 10.0 * k + 6;
  }
  CHECK(right);
  CHECK_EQ_INT(gp_calendar_intervals(&c), 400);
  for (i = 0; i < 200; i++)
    right &= has_interval(&c, 2 * (size_t)i, 10.0 * i, 10.0 * i + 5) &&
             has_interval(&c, 2 * (size_t)i + 1, 10.0 * i + 6, 10.0 * i + 9);
  CHECK(right);
  gp_calendar_free(&c, &a);
}

int main(void) {
  RUN(test_in_order_is_fifo);
  RUN(test_gaps_are_filled_first_fit);
  RUN(test_unusable_gaps_are_closed);
  RUN(test_requests_at_the_end);
  RUN(test_chunks_split_and_stay_sorted);
  RUN(test_matches_the_plain_rules);
  RUN(test_empties_and_fills_again);
  RUN(test_an_ended_chunk_is_reused);
  RUN(test_a_stale_finger);
  return gp_test_finish();
}
