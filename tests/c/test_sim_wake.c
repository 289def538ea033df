/* The simulator's calendar of sleeping schedulers (csrc/core/sim/wake.h):
 * a worked example by hand (fractional wake-ups in one bucket, the overflow
 * beyond the ring, a cancel), a bucket taken out whole or member by member
 * by its latest wake-up, then a long seeded run of sleeps, cancels,
 * one-cycle steps (wake_take_step, the loop's inline take-out) and jumps
 * checked against a plain array: the earliest wake-up bit for bit and the
 * set taken out at every cycle. */
#include "gp_test.h"
#include "sim/wake.h"

#include <string.h>

static gp_alloc alloc;

/* The bits of `due` as a mask (the hand example has fewer than 64). */
static uint64_t take(wake_calendar *c, double t) {
  uint64_t due[4] = {0, 0, 0, 0};
  wake_take_due(c, t, due);
  return due[0];
}

static void test_by_hand(void) {
  wake_calendar c;
  CHECK(wake_init(&c, &alloc, 8) == GP_OK);
  CHECK(wake_min(&c) == INFINITY);
  wake_sleep(&c, 0, 3.5);
  wake_sleep(&c, 1, 2);
  wake_sleep(&c, 2, 2.25);
  wake_sleep(&c, 3, 1500); /* beyond the ring's 1024 cycles: the overflow */
  wake_sleep(&c, 4, 2000.75);
  wake_sleep(&c, 5, 2.5);
  CHECK_EQ_INT(c.overflow_count, 2);
  CHECK(wake_min(&c) == 2);
  CHECK(take(&c, 1) == 0);
  CHECK(take(&c, 2) == 1u << 1);
  CHECK(wake_min(&c) == 2.25); /* the rest of cycle 2's bucket stays */
  wake_cancel(&c, 5);
  CHECK(!wake_asleep(&c, 5));
  CHECK(take(&c, 3) == 1u << 2);
  CHECK(take(&c, 3.5) == 1u << 0);
  CHECK(wake_min(&c) == 1500); /* only the overflow is left: its exact minimum */
  CHECK(take(&c, 1500) == 1u << 3);
  CHECK_EQ_INT(c.overflow_count, 0); /* 2000.75 is within the ring of base 1500 now */
  CHECK(wake_min(&c) == 2000.75);
  wake_sleep(&c, 6, 1800);
  wake_cancel(&c, 4);
  CHECK(wake_min(&c) == 1800);
  CHECK(take(&c, 5000) == 1u << 6);
  CHECK(wake_min(&c) == INFINITY);
  wake_free(&c, &alloc);
}

/* A cycle's bucket is taken out whole only when its latest wake-up is due
 * (wake_calendar.latest); else member by member.  The latest sleeper is
 * put in first, so a bucket remembering the last wake-up given instead of
 * the latest would be taken whole at 5.25. */
static void test_bucket_taken_whole(void) {
  wake_calendar c;
  CHECK(wake_init(&c, &alloc, 8) == GP_OK);
  wake_sleep(&c, 0, 5.75);
  wake_sleep(&c, 2, 5.5);
  wake_sleep(&c, 1, 5);
  CHECK(c.latest[5] == 5.75);
  CHECK(take(&c, 5.25) == 1u << 1);
  CHECK(take(&c, 5.5) == 1u << 2);
  CHECK(wake_min(&c) == 5.75);
  wake_cancel(&c, 0); /* the bucket is empty: its latest is forgotten */
  CHECK(c.latest[5] == -INFINITY);
  wake_sleep(&c, 3, 5.625);
  CHECK(take(&c, 5.625) == 1u << 3); /* taken whole */
  CHECK(c.latest[5] == -INFINITY);
  wake_sleep(&c, 4, 6.25);
  wake_sleep(&c, 5, 6);
  wake_sleep(&c, 6, 7);
  CHECK(take(&c, 6.625) == ((1u << 4) | (1u << 5))); /* the next cycle's bucket whole */
  CHECK(c.latest[6] == -INFINITY && c.latest[7] == 7);
  CHECK(take(&c, 7) == 1u << 6);
  CHECK(wake_min(&c) == INFINITY);
  wake_free(&c, &alloc);
}

/* A 64-bit LCG (Knuth's MMIX constants): the run is the same every time. */
static uint64_t rng_state = 12345;
static uint32_t rng(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33) % n;
}

/* How far ahead a sleeper wakes: mostly within a few cycles (after an
 * issue), often fractional, sometimes hundreds (memory) or thousands (the
 * overflow), now and then behind the current cycle. */
static double wake_after(double t) {
  switch (rng(6)) {
  case 0: return t + 1;
  case 1: return t + 1 + rng(8);
  case 2: return t + 0.125 * (1 + rng(40));
  case 3: return t + rng(900) + 0.5 * rng(2);
  case 4: return t + 1000 + rng(4000) + 0.25 * rng(4);
  default: return rng(4) == 0 ? t - 0.5 * rng(3) : t + 3;
  }
}

static void test_against_an_array(void) {
  enum { N = 150, STEPS = 200000 };
  static double ref[N];
  wake_calendar c;
  double t = 0;
  uint32_t step, g, wrong_min = 0, wrong_due = 0, jumps = 0, overflowed = 0;
  CHECK(wake_init(&c, &alloc, N) == GP_OK);
  for (g = 0; g < N; g++)
    ref[g] = INFINITY;
  for (step = 0; step < STEPS; step++) {
    uint32_t op = rng(10);
    g = rng(N);
    if (op < 5) { /* a sleep (of a scheduler not asleep) */
      if (ref[g] == INFINITY) {
        ref[g] = wake_after(t);
        wake_sleep(&c, g, ref[g]);
        overflowed += wake_bucket_of(&c, g) == WAKE_IN_OVERFLOW;
      }
    } else if (op < 6) { /* woken early */
      if (ref[g] != INFINITY) {
        wake_cancel(&c, g);
        ref[g] = INFINITY;
      }
    } else { /* the loop moves on: one cycle, or a jump to the earliest */
      uint64_t due[3] = {0, 0, 0};
      double first = INFINITY;
      for (g = 0; g < N; g++)
        if (ref[g] < first)
          first = ref[g];
      wrong_min += wake_min(&c) != first;
      if (op < 8 || !(first > t)) { /* the loop never moves back */
        t += 1; /* the loop's inline take-out after an issue */
        wake_take_step(&c, t, due);
      } else {
        t += first - t;
        jumps++;
        wake_take_due(&c, t, due);
      }
      for (g = 0; g < N; g++) {
        int is_due = ref[g] <= t, taken = (int)((due[g >> 6] >> (g & 63)) & 1);
        wrong_due += is_due != taken || wake_asleep(&c, g) != (!is_due && ref[g] != INFINITY);
        if (is_due)
          ref[g] = INFINITY;
      }
    }
  }
  CHECK_EQ_INT(wrong_min, 0);
  CHECK_EQ_INT(wrong_due, 0);
  CHECK(jumps > 10000);
  CHECK(overflowed > 1000); /* the overflow was exercised */
  wake_free(&c, &alloc);
}

int main(void) {
  alloc = gp_alloc_default();
  RUN(test_by_hand);
  RUN(test_bucket_taken_whole);
  RUN(test_against_an_array);
  return gp_test_finish();
}
