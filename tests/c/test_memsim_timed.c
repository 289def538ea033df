/* Unit tests of the timed memory model: bandwidth-limited DRAM, MSHR
 * exhaustion and merging, contention between SMs, out-of-order readiness,
 * determinism, and that more MSHRs or bandwidth never make a stream slower. */
#include "gp_test.h"
#include "memsim.h"

#include <stdlib.h>
#include <string.h>

static gp_timed_config base(void) {
  gp_timed_config c;
  memset(&c, 0, sizeof c);
  c.sms = 1, c.mshrs_per_sm = 1000;
  c.l2.size_bytes = 1 << 20, c.l2.line_bytes = 128, c.l2.ways = 8, c.l2.sectored = 1;
  c.l2.write_back = 1, c.l2_slices = 1;
  c.l1_latency = 30, c.l2_latency = 100, c.dram_latency = 200, c.l2_interval = 0;
  c.dram_channels = 1, c.dram_bytes_per_cycle = 8, c.dram_access_bytes = 32;
  return c;
}

static gp_timed *make(const gp_timed_config *c) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_timed *t = NULL;
  if (gp_timed_new(&t, &a, c, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return t;
}

static double load(gp_timed *t, uint32_t sm, double now, uint64_t line) {
  uint8_t mask = 1;
  double done, complete;
  gp_error err;
  if (gp_timed_submit(t, sm, now, GP_OP_LD_GLOBAL, &line, &mask, 1, &done, &complete, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return done;
}

/* 100 misses of 32 B on one 8 B/cycle channel: one every 4 cycles once the
 * queue is full, then l2 + dram latency: the last returns at 400 + 300. */
static void test_bandwidth_bound(void) {
  gp_timed_config c = base();
  gp_timed *t = make(&c);
  double last = 0;
  int i;
  for (i = 0; i < 100; i++)
    last = load(t, 0, 0, 1000 + (uint64_t)i);
  CHECK_NEAR(last, 100 * 32.0 / 8 + 100 + 200, 1e-9);
  CHECK_NEAR(gp_timed_stats_of(t)->last_dram_done, 400, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_read, 3200);
  /* the same lines again hit L2: 100 cycles after issue */
  CHECK_NEAR(load(t, 0, 1000, 1000), 1100, 1e-9);
  /* a sector miss fetches only the missing sectors: line 1000 holds sector
   * 0, a request for all four reads 96 B more (12 cycles), back at
   * 2000 + 12 + 300 */
  {
    uint64_t line = 1000;
    uint8_t all = 0xf;
    double done, complete;
    gp_error err;
    CHECK(gp_timed_submit(t, 0, 2000, GP_OP_LD_GLOBAL, &line, &all, 1, &done, &complete, &err) ==
          GP_OK);
    CHECK_NEAR(done, 2312, 1e-9);
    CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_read, 3200 + 96);
    CHECK_EQ_INT(gp_timed_stats_of(t)->l2.sector_misses, 1);
  }
  gp_timed_free(t);
}

static void test_mshr_exhaustion_and_merging(void) {
  gp_timed_config c = base();
  gp_timed *t;
  double a, b, d;
  c.mshrs_per_sm = 2;
  c.dram_bytes_per_cycle = 32; /* 1 cycle per access */
  t = make(&c);
  a = load(t, 0, 0, 1);  /* 0 + 1 + 300 */
  b = load(t, 0, 0, 2);  /* queued behind a on the channel: 2 + 300 */
  d = load(t, 0, 0, 3);  /* no MSHR free until a returns at 301 */
  CHECK_NEAR(a, 301, 1e-9);
  CHECK_NEAR(b, 302, 1e-9);
  CHECK_NEAR(d, 301 + 1 + 300, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->mshr_full_stalls, 1);
  CHECK_NEAR(gp_timed_stats_of(t)->mshr_stall_cycles, 301, 1e-9);
  /* a request to an outstanding line merges and returns with it */
  CHECK_NEAR(load(t, 0, 400, 3), d, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->mshr_merges, 1);
  gp_timed_free(t);
}

/* A request that waits for an MSHR reserves the channel in the future; a
 * request of another SM submitted later but ready now uses the channel in
 * the meantime (1 cycle per access, one MSHR per SM):
 *   SM 0, line 1 at 0: channel [0,1), back at 1 + 300 = 301;
 *   SM 0, line 2 at 0: waits for the MSHR until 301, channel [301,302),
 *     back at 602;
 *   SM 1, line 3 at 1: channel [1,2), back at 302 (queued behind line 2 it
 *     would be 603). */
static void test_future_reservation_does_not_block(void) {
  gp_timed_config c = base();
  gp_timed *t;
  c.sms = 2, c.mshrs_per_sm = 1, c.dram_bytes_per_cycle = 32;
  t = make(&c);
  CHECK_NEAR(load(t, 0, 0, 1), 301, 1e-9);
  CHECK_NEAR(load(t, 0, 0, 2), 602, 1e-9);
  CHECK_NEAR(load(t, 1, 1, 3), 302, 1e-9);
  gp_timed_free(t);
}

static void test_two_sms_contend_for_one_channel(void) {
  gp_timed_config c = base();
  gp_timed *alone, *shared;
  double last_alone = 0, last_shared = 0;
  int i;
  c.sms = 2;
  alone = make(&c);
  shared = make(&c);
  for (i = 0; i < 50; i++) {
    last_alone = load(alone, 0, i, 100 + (uint64_t)i);
    last_shared = load(shared, 0, i, 100 + (uint64_t)i);
    load(shared, 1, i, 5000 + (uint64_t)i);
  }
  CHECK(last_shared > last_alone + 100); /* SM 1's transfers interleave with SM 0's */
  gp_timed_free(alone);
  gp_timed_free(shared);
}

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Runs a seeded random stream of loads and stores (1-4 lines each) from
 * random SMs at non-decreasing cycles; writes each request's return time
 * (4 slots per instruction, unused ones -1). */
static void run_stream(const gp_timed_config *c, double *out, int n) {
  gp_timed *t = make(c);
  uint64_t seed = 42;
  double now = 0;
  int i;
  for (i = 0; i < n; i++) {
    uint64_t lines[4];
    uint8_t masks[4];
    double done[4] = {-1, -1, -1, -1}, complete;
    uint32_t k, count = 1 + (uint32_t)(xorshift(&seed) % 4);
    gp_error err;
    int op = xorshift(&seed) % 5 == 0 ? GP_OP_ST_GLOBAL : GP_OP_LD_GLOBAL;
    now += (double)(xorshift(&seed) % 3);
    for (k = 0; k < count; k++) {
      lines[k] = xorshift(&seed) % 3000;
      masks[k] = (uint8_t)(1 + xorshift(&seed) % 15);
    }
    gp_timed_submit(t, (uint32_t)(xorshift(&seed) % c->sms), now, op, lines, masks, count, done,
                    &complete, &err);
    for (k = 0; k < 4; k++)
      out[4 * i + (int)k] = done[k];
  }
  gp_timed_free(t);
}

/* The sum and the latest of the return times written by run_stream. */
static void totals(const double *done, int n, double *sum, double *last) {
  int i;
  *sum = 0, *last = 0;
  for (i = 0; i < n; i++) {
    if (done[i] < 0)
      continue;
    *sum += done[i];
    if (done[i] > *last)
      *last = done[i];
  }
}

/* Over a seeded stream (same seed, same result, bit for bit), quadrupling
 * the MSHRs or doubling the DRAM bandwidth returns the requests no later
 * on average and finishes no later; more bandwidth finishes earlier.  Not
 * per request: the slices' and channels' calendars place requests first
 * fit, and a request that becomes ready earlier can take a gap another one
 * used before (a list-scheduling anomaly), so single requests may return a
 * little later.  Two hierarchies: a write-through L1 caching globals over a
 * write-back L2, and a write-back L1 over a write-through L2. */
static void test_more_mshrs_or_bandwidth_never_later(void) {
  enum { N = 3000, R = 4 * N };
  static double small[R], more_mshrs[R], more_bw[R], again[R];
  int variant;
  for (variant = 0; variant < 2; variant++) {
    gp_timed_config c = base();
    double sum_small, last_small, sum_mshrs, last_mshrs, sum_bw, last_bw;
    c.sms = 4, c.mshrs_per_sm = 8, c.dram_channels = 4, c.dram_bytes_per_cycle = 16;
    c.l2.size_bytes = 64 * 1024, c.l2_slices = 4, c.l2_interval = 1;
    c.l1.size_bytes = 16 * 1024, c.l1.line_bytes = 128, c.l1.ways = 4, c.cache_global_in_l1 = 1;
    if (variant == 1)
      c.l1.write_back = 1, c.l2.write_back = 0;
    run_stream(&c, small, N);
    run_stream(&c, again, N);
    CHECK(memcmp(small, again, sizeof small) == 0); /* deterministic */
    c.mshrs_per_sm = 32;
    run_stream(&c, more_mshrs, N);
    c.mshrs_per_sm = 8;
    c.dram_bytes_per_cycle = 32;
    run_stream(&c, more_bw, N);
    totals(small, R, &sum_small, &last_small);
    totals(more_mshrs, R, &sum_mshrs, &last_mshrs);
    totals(more_bw, R, &sum_bw, &last_bw);
    CHECK(sum_mshrs <= sum_small && last_mshrs <= last_small);
    CHECK(sum_bw <= sum_small);
    CHECK(last_bw < last_small); /* and the stream really is faster */
  }
}

static void test_time_order_is_checked(void) {
  gp_timed_config c = base();
  gp_timed *t = make(&c);
  uint64_t line = 1;
  uint8_t mask = 1;
  double done, complete;
  gp_error err;
  load(t, 0, 10, 5);
  CHECK(gp_timed_submit(t, 0, 5, GP_OP_LD_GLOBAL, &line, &mask, 1, &done, &complete, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "memsim: requests must come in time order (5.000 after 10.000)");
  CHECK(gp_timed_submit(t, 0, NAN, GP_OP_LD_GLOBAL, &line, &mask, 1, &done, &complete,
                        &err) == GP_ERR);
  CHECK(gp_timed_submit(t, 3, 20, GP_OP_LD_GLOBAL, &line, &mask, 1, &done, &complete, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "memsim: SM 3 of 1");
  gp_timed_free(t);
}

static double submit(gp_timed *t, uint32_t sm, double now, int op, const uint64_t *lines,
                     const uint8_t *masks, uint32_t n, double *done) {
  double complete = -1;
  gp_error err;
  if (gp_timed_submit(t, sm, now, op, lines, masks, n, done, &complete, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return complete;
}

/* Two instructions to one line on one SM: one DRAM read, the second merges
 * and returns with the first (0 + 32 B / 8 B per cycle + 300 = 304).  A
 * third from another SM hits L2 under the fill and waits for it too. */
static void test_merged_requests_read_dram_once(void) {
  gp_timed_config c = base();
  gp_timed *t;
  c.sms = 2;
  t = make(&c);
  CHECK_NEAR(load(t, 0, 0, 7), 304, 1e-9);
  CHECK_NEAR(load(t, 0, 1, 7), 304, 1e-9);
  CHECK_NEAR(load(t, 1, 2, 7), 304, 1e-9); /* L2 data at 4 + 200, then +100 */
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_read, 32);
  CHECK_EQ_INT(gp_timed_stats_of(t)->mshr_merges, 1);
  CHECK_EQ_INT(gp_timed_stats_of(t)->l2.hits, 1);
  CHECK_EQ_INT(gp_timed_stats_of(t)->l2_fill_waits, 1); /* after the fill's requester: */
  CHECK_EQ_INT(gp_timed_stats_of(t)->l2_early_arrivals, 0); /* no fetch of its own */
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_duplicate_bytes, 0);
  CHECK_NEAR(load(t, 1, 500, 7), 600, 1e-9); /* later: a plain L2 hit */
  gp_timed_free(t);
}

/* Tags change in submission order, but the L2 sees a line's requests in
 * arrival order (1 cycle per access, one MSHR per SM, three SMs):
 *   SM 0, line 1 at 0: channel [0,1), back at 301;
 *   SM 0, line 2 at 0: waits for its MSHR until 301, misses L2, channel
 *     [301,302), the line is in L2 at 502, back at 602;
 *   SM 1, line 2 at 1: an L2 hit on that tag, but it reaches the slice at 1,
 *     before the fill's requester (301): it fetches the line itself, channel
 *     [1,2), the line is there at 202, back at 302 (waiting for the later
 *     requester's fill it came back at 602);
 *   SM 2, line 2 at 150: reaches the slice after SM 1's fetch began: waits
 *     for it, back at 202 + 100 = 302.
 * SM 0's transfer of line 2 stays reserved (its return was already given):
 * 32 B read twice, counted as duplicate. */
static void test_l2_sees_requests_in_arrival_order(void) {
  gp_timed_config c = base();
  gp_timed *t;
  const gp_timed_stats *st;
  c.sms = 3, c.mshrs_per_sm = 1, c.dram_bytes_per_cycle = 32;
  t = make(&c);
  CHECK_NEAR(load(t, 0, 0, 1), 301, 1e-9);
  CHECK_NEAR(load(t, 0, 0, 2), 602, 1e-9);
  CHECK_NEAR(load(t, 1, 1, 2), 302, 1e-9);
  CHECK_NEAR(load(t, 2, 150, 2), 302, 1e-9);
  st = gp_timed_stats_of(t);
  CHECK_EQ_INT(st->l2.hits, 2);
  CHECK_EQ_INT(st->l2_fill_waits, 2);
  CHECK_EQ_INT(st->l2_early_arrivals, 1);
  CHECK_EQ_INT(st->dram_bytes_read, 3 * 32);
  CHECK_EQ_INT(st->dram_duplicate_bytes, 32);
  CHECK_EQ_INT(st->dram_transfers, 3);
  gp_timed_free(t);
}

/* With an L1 caching globals, a hit on a line still being filled waits for
 * the fill (a merge), a later one takes l1_latency.  The L1 is not
 * sectored: its miss on one sector fetches the whole 128 B line from the
 * sectored L2 and DRAM (four sectors at 8 B a cycle: 16 cycles of transfer,
 * 12 more than the one sector's 4, so 304 + 12 = 316). */
static void test_l1_hit_under_fill(void) {
  gp_timed_config c = base();
  gp_timed *t;
  c.l1.size_bytes = 4096, c.l1.line_bytes = 128, c.l1.ways = 4, c.cache_global_in_l1 = 1;
  t = make(&c);
  CHECK_NEAR(load(t, 0, 0, 9), 316, 1e-9);
  CHECK_NEAR(load(t, 0, 10, 9), 316, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->mshr_merges, 1);
  CHECK_NEAR(load(t, 0, 400, 9), 430, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->l1.hits, 2);
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_read, 128);
  gp_timed_free(t);
}

/* Two MSHRs, DRAM 1 cycle per access, L2 interval 0.  Lines 10 and 11 are
 * warmed into L2.  At 1000 instruction B asks for 10, 11, 12, 12: 10 and 11
 * hit L2 (back at 1100, both entries busy until then), the first 12 waits
 * for an entry until 1100 (a stall of 100), reads DRAM 1100-1101 and is back
 * at 1401, the second 12 merges.  C at 1001 finds both entries busy (the one
 * released at 1100 must not count as free at 1001): it waits until 1100
 * (a stall of 99) and transfers 1101-1102: back at 1402. */
static void test_mshr_full_waits_for_release(void) {
  gp_timed_config c = base();
  gp_timed *t;
  uint64_t b[4] = {10, 11, 12, 12};
  uint8_t m[4] = {1, 1, 1, 1};
  double done[4];
  c.mshrs_per_sm = 2, c.dram_bytes_per_cycle = 32;
  t = make(&c);
  load(t, 0, 0, 10);
  load(t, 0, 0, 11);
  CHECK_NEAR(submit(t, 0, 1000, GP_OP_LD_GLOBAL, b, m, 4, done), 1401, 1e-9);
  CHECK_NEAR(done[0], 1100, 1e-9);
  CHECK_NEAR(done[1], 1100, 1e-9);
  CHECK_NEAR(done[2], 1401, 1e-9);
  CHECK_NEAR(done[3], 1401, 1e-9);
  CHECK_NEAR(load(t, 0, 1001, 14), 1402, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->mshr_full_stalls, 2);
  CHECK_NEAR(gp_timed_stats_of(t)->mshr_stall_cycles, 199, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->mshr_merges, 1);
  gp_timed_free(t);
}

/* A one-set, two-way, non-sectored write-back L2 and two channels of
 * 8 B/cycle.  Stores to lines 1 and 2 allocate dirty lines (no DRAM, done
 * when the slice accepts them, at 0).  A load of line 4 evicts line 1: its
 * 128 B write-back occupies channel 1 (line 1 mod 2) for 16 cycles while the
 * 128 B fill of line 4 runs on channel 0: back at 16 + 300. */
static void test_dirty_victim_on_its_channel(void) {
  gp_timed_config c = base();
  gp_timed *t;
  uint64_t l1 = 1, l2 = 2;
  uint8_t m = 1;
  double done;
  c.l2.size_bytes = 256, c.l2.ways = 2, c.l2.sectored = 0;
  c.dram_channels = 2, c.dram_bytes_per_cycle = 16;
  t = make(&c);
  CHECK_NEAR(submit(t, 0, 0, GP_OP_ST_GLOBAL, &l1, &m, 1, &done), 0, 1e-9);
  CHECK_NEAR(submit(t, 0, 0, GP_OP_ST_GLOBAL, &l2, &m, 1, &done), 0, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_written, 0);
  CHECK_NEAR(load(t, 0, 0, 4), 316, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_written, 128);
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_read, 128);
  CHECK_EQ_INT(gp_timed_stats_of(t)->l2.writebacks, 1);
  /* line 3 (channel 1) queues behind the write-back: 16 + 16 + 300 */
  CHECK_NEAR(load(t, 0, 0, 3), 332, 1e-9);
  gp_timed_free(t);
}

/* Write policies in the timed mode: a write-through L2 sends each store's
 * sectors to DRAM; a write-back L1 absorbs a store after l1_latency. */
static void test_timed_write_policies(void) {
  gp_timed_config c = base();
  gp_timed *t;
  uint64_t line = 5;
  uint8_t m = 0x3;
  double done;
  c.l2.write_back = 0;
  t = make(&c);
  CHECK_NEAR(submit(t, 0, 0, GP_OP_ST_GLOBAL, &line, &m, 1, &done), 0, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_written, 64);
  CHECK_NEAR(gp_timed_stats_of(t)->last_dram_done, 8, 1e-9);
  gp_timed_free(t);
  /* a non-sectored write-through L2 fills whole lines (128 B) but writes
   * only the stored sectors through (64 B, 8 cycles) */
  c.l2.sectored = 0;
  t = make(&c);
  CHECK_NEAR(submit(t, 0, 0, GP_OP_ST_GLOBAL, &line, &m, 1, &done), 0, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_written, 64);
  CHECK_NEAR(gp_timed_stats_of(t)->last_dram_done, 8, 1e-9);
  CHECK_NEAR(load(t, 0, 10, 6), 10 + 16 + 300, 1e-9); /* a 128 B fill: 16 cycles */
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_read, 128);
  gp_timed_free(t);
  c = base();
  c.l1.size_bytes = 4096, c.l1.line_bytes = 128, c.l1.ways = 4, c.l1.write_back = 1;
  c.cache_global_in_l1 = 1;
  t = make(&c);
  CHECK_NEAR(submit(t, 0, 0, GP_OP_ST_GLOBAL, &line, &m, 1, &done), 30, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->l2.accesses, 0);
  CHECK_NEAR(load(t, 0, 50, 5), 80, 1e-9); /* the stored sectors hit L1 */
  gp_timed_free(t);
}

/* 100 back-to-back 32 B transfers on one 8 B/cycle channel fill [0, 400):
 * 8 B/cycle inside [100, 200), 4 B/cycle over [350, 450), 8 over the run. */
static void test_bandwidth_windows(void) {
  gp_timed_config c = base();
  gp_timed *t = make(&c), *u = make(&c);
  gp_error err;
  int i;
  CHECK(gp_timed_set_window(t, 100, 200, &err) == GP_OK);
  CHECK(gp_timed_set_window(u, 350, 450, &err) == GP_OK);
  CHECK(gp_timed_set_window(u, 5, 5, &err) == GP_ERR);
  for (i = 0; i < 100; i++) {
    load(t, 0, 0, 1000 + (uint64_t)i);
    load(u, 0, 0, 1000 + (uint64_t)i);
  }
  CHECK_NEAR(gp_timed_window_bandwidth(gp_timed_stats_of(t)), 8, 1e-9);
  CHECK_NEAR(gp_timed_window_bandwidth(gp_timed_stats_of(u)), 4, 1e-9);
  CHECK_NEAR(gp_timed_achieved_bandwidth(gp_timed_stats_of(t)), 8, 1e-9);
  CHECK_NEAR(gp_timed_stats_of(t)->first_dram_start, 0, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_transfers, 100);
  gp_timed_free(t);
  gp_timed_free(u);
}

/* Sectored L1 over a one-set, two-way sectored L2.  SM0 reads sector 0 of
 * line 60; SM1 reads lines 61 and 62, which evict 60 from L2 (SM0's L1
 * keeps it).  SM0 then asks for sectors 0-1 of line 60: L1 lacks sector 1
 * only, so L2 is asked (and misses) for that sector: 32 B, 1000 + 4 + 300. */
static void test_l1_sector_miss_asks_for_missing_sectors(void) {
  gp_timed_config c = base();
  gp_timed *t;
  uint64_t line = 60;
  uint8_t two = 0x3;
  double done;
  c.sms = 2;
  c.l1.size_bytes = 4096, c.l1.line_bytes = 128, c.l1.ways = 4, c.l1.sectored = 1;
  c.cache_global_in_l1 = 1;
  c.l2.size_bytes = 256, c.l2.ways = 2;
  t = make(&c);
  CHECK_NEAR(load(t, 0, 0, 60), 304, 1e-9);
  CHECK_NEAR(load(t, 1, 0, 61), 308, 1e-9);
  CHECK_NEAR(load(t, 1, 0, 62), 312, 1e-9);
  CHECK_NEAR(submit(t, 0, 1000, GP_OP_LD_GLOBAL, &line, &two, 1, &done), 1304, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_read, 128);
  CHECK_EQ_INT(gp_timed_stats_of(t)->l1.sector_misses, 1);
  gp_timed_free(t);
}

/* An SM's L1 and MSHRs and an L2 slice are built at their first request:
 * a configuration the caches reject still fails at gp_timed_new; SM 3 of 4
 * first used at cycle 0 behaves as the only SM does (a miss back at 316, a
 * hit at 400 + 30), SM 1 first used at 500 finds its own L1 cold and the
 * line in L2 (500 + 100), and the SMs never used count nothing. */
static void test_sms_and_slices_built_at_first_use(void) {
  gp_timed_config c = base();
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_timed *t = NULL;
  c.sms = 4, c.l2_slices = 4;
  c.l1.size_bytes = 4096, c.l1.line_bytes = 128, c.l1.ways = 0, c.cache_global_in_l1 = 1;
  CHECK(gp_timed_new(&t, &a, &c, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "cache: line size and ways must be above 0");
  c.l1.ways = 4;
  t = make(&c);
  CHECK_NEAR(load(t, 3, 0, 9), 316, 1e-9);
  CHECK_NEAR(load(t, 3, 400, 9), 430, 1e-9);
  CHECK_NEAR(load(t, 1, 500, 9), 600, 1e-9);
  CHECK_EQ_INT(gp_timed_stats_of(t)->l1.accesses, 3);
  CHECK_EQ_INT(gp_timed_stats_of(t)->l1.hits, 1);
  CHECK_EQ_INT(gp_timed_stats_of(t)->l2.accesses, 2);
  CHECK_EQ_INT(gp_timed_stats_of(t)->l2.hits, 1);
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_read, 128);
  gp_timed_free(t);
}

/* An allocator that gives `left` allocations, then refuses, and fills what
 * it gives with 0x7f bytes (about 1.4e306 as a double): storage a model
 * reads before writing shows as an absurd cycle. */
typedef struct budget_alloc {
  int left, used;
} budget_alloc;

static void *poisoning_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  budget_alloc *b = ud;
  void *p;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (b->left <= 0)
    return NULL;
  b->left--, b->used++;
  p = realloc(ptr, nsize);
  if (p != NULL && nsize > osize)
    memset((char *)p + osize, 0x7f, nsize - osize);
  return p;
}

/* The ways' cycles are stored per set, taken from an arena at the set's
 * first fill and zeroed then.  An L2 of 4 sets x 1,024 ways (a set's cycles
 * are 16 KB, one arena block each; a way's set found by a shift) and
 * sectored L1s of 8 sets x 3 ways (by a division), in fresh memory full of
 * 0x7f bytes, on 2 SMs (32 B misses take 4 cycles of the one channel; L1
 * 30, L2 100, DRAM 200 cycles):
 *   1. SM 0, cycle 0, line 0: L1 and L2 set 0 miss, DRAM [0, 4): 304
 *   2. SM 0, cycle 0, line 1: L2 set 1 (a new block), DRAM [4, 8): 308
 *   3. SM 0, cycle 100, line 1: an L1 hit under its fill: 308
 *   4. SM 0, cycle 1000, line 5: L1 set 5, L2 set 1 again: 1304
 *   5. SM 0, cycle 2000, line 1: an L1 hit: 2030
 *   6. SM 1, cycle 3000, line 0: SM 1's cold L1, an L2 hit: 3100
 *   7. SM 0, cycle 4000, store to line 2: the write-back L2 allocates set 2
 *      without a fetch; the line is there from 4000
 *   8. SM 1, cycle 4010, line 2: an L2 hit at 4110 (not 1.4e306 + 100: the
 *      set's cycles were zeroed at its first fill)
 * With allocations refused from each one in turn, every step either gives
 * these cycles or fails with "out of memory" (then the run stops), and one
 * budget fails exactly at step 2, the arena's new block. */
enum { LAZY_STEPS = 8 };

static int lazy_sets_run(const gp_alloc *a, double *got, int *failed_at, gp_error *err) {
  static const uint32_t sm[LAZY_STEPS] = {0, 0, 0, 0, 0, 1, 0, 1};
  static const double now[LAZY_STEPS] = {0, 0, 100, 1000, 2000, 3000, 4000, 4010};
  static const uint64_t line[LAZY_STEPS] = {0, 1, 1, 5, 1, 0, 2, 2};
  gp_timed_config c = base();
  gp_timed *t = NULL;
  uint8_t mask = 1;
  double complete;
  int i;
  c.sms = 2;
  c.l2.size_bytes = 4 * 1024 * 128, c.l2.ways = 1024;
  c.l1.size_bytes = 3072, c.l1.line_bytes = 128, c.l1.ways = 3, c.l1.sectored = 1;
  c.cache_global_in_l1 = 1;
  *failed_at = 0;
  if (gp_timed_new(&t, a, &c, err) != GP_OK)
    return GP_ERR;
  for (i = 0; i < LAZY_STEPS; i++) {
    int op = i == 6 ? GP_OP_ST_GLOBAL : GP_OP_LD_GLOBAL;
    if (gp_timed_submit(t, sm[i], now[i], op, &line[i], &mask, 1, &got[i], &complete, err) !=
        GP_OK) {
      *failed_at = i + 1;
      gp_timed_free(t);
      return GP_ERR;
    }
  }
  gp_timed_free(t);
  return GP_OK;
}

static void test_way_cycles_stored_per_set(void) {
  static const double want[LAZY_STEPS] = {304, 308, 308, 1304, 2030, 3100, 4000, 4110};
  budget_alloc budget = {1000, 0};
  gp_alloc a;
  gp_error err;
  double got[LAZY_STEPS];
  int i, all, budget_left, failed_at, failed_at_block = 0;
  a.fn = poisoning_alloc, a.ud = &budget;
  CHECK(lazy_sets_run(&a, got, &failed_at, &err) == GP_OK);
  for (i = 0; i < LAZY_STEPS; i++)
    CHECK_NEAR(got[i], want[i], 1e-9);
  all = budget.used;
  for (budget_left = 0; budget_left < all; budget_left++) {
    int step;
    budget.left = budget_left, budget.used = 0;
    memset(got, 0, sizeof got);
    CHECK(lazy_sets_run(&a, got, &failed_at, &err) == GP_ERR);
    CHECK_STR_CONTAINS(err.msg, "out of memory");
    for (step = 0; step + 1 < failed_at; step++)
      CHECK_NEAR(got[step], want[step], 1e-9);
    if (failed_at == 2)
      failed_at_block = 1;
  }
  CHECK(failed_at_block);
}

/* A global atomic takes no MSHR and completes when its data returns: with
 * one MSHR, busy with a load of line 10 (its 32 B on the channel at
 * [0,4), back at 4 + 200 + 100), an atomic on line 20 at cycle 0 does not
 * wait for it: its 32 B follow at [4,8), back at 308, and no MSHR-full
 * stall is counted. */
static void test_atomics_take_no_mshr(void) {
  gp_timed_config c = base();
  gp_timed *t;
  uint64_t line = 20;
  uint8_t m = 1;
  double done;
  c.mshrs_per_sm = 1;
  t = make(&c);
  CHECK_NEAR(load(t, 0, 0, 10), 304, 0);
  CHECK_NEAR(submit(t, 0, 0, GP_OP_ATOM_GLOBAL, &line, &m, 1, &done), 308, 0);
  CHECK_EQ_INT(gp_timed_stats_of(t)->mshr_full_stalls, 0);
  CHECK_EQ_INT(gp_timed_stats_of(t)->dram_bytes_read, 64);
  gp_timed_free(t);
}

/* A seeded MSHR-bound stream of 20,000 instructions (1-8 lines of 400,
 * whole-cycle latencies, one-cycle slice and DRAM steps, 2 SMs with
 * `mshrs` MSHRs each); its totals in got[]: the sum and the latest of the
 * return times, MSHR merges, MSHR-full stalls and their cycles, DRAM bytes
 * read and written, L2 hits, early arrivals. */
static void tie_stream(uint32_t mshrs, double got[9]) {
  gp_timed_config c = base();
  gp_timed *t;
  const gp_timed_stats *st;
  uint64_t seed = 5;
  double now = 0, sum = 0, last = 0;
  int i, ok = 1;
  c.sms = 2, c.mshrs_per_sm = mshrs, c.l2.size_bytes = 16 * 1024, c.l2_slices = 2;
  c.l2_interval = 1, c.dram_channels = 2, c.dram_bytes_per_cycle = 64;
  t = make(&c);
  for (i = 0; i < 20000; i++) {
    uint64_t lines[8];
    uint8_t masks[8];
    double done[8], complete;
    uint32_t k, n = 1 + (uint32_t)(xorshift(&seed) % 8);
    gp_error err;
    int op = xorshift(&seed) % 6 == 0 ? GP_OP_ST_GLOBAL : GP_OP_LD_GLOBAL;
    now += (double)(xorshift(&seed) % 3);
    for (k = 0; k < n; k++) {
      lines[k] = xorshift(&seed) % 400;
      masks[k] = (uint8_t)(1 + xorshift(&seed) % 15);
    }
    ok &= gp_timed_submit(t, (uint32_t)(xorshift(&seed) % 2), now, op, lines, masks, n, done,
                          &complete, &err) == GP_OK;
    for (k = 0; k < n; k++) {
      sum += done[k];
      if (done[k] > last)
        last = done[k];
    }
  }
  CHECK(ok);
  st = gp_timed_stats_of(t);
  got[0] = sum, got[1] = last, got[2] = (double)st->mshr_merges;
  got[3] = (double)st->mshr_full_stalls, got[4] = st->mshr_stall_cycles;
  got[5] = (double)st->dram_bytes_read, got[6] = (double)st->dram_bytes_written;
  got[7] = (double)st->l2.hits, got[8] = (double)st->l2_early_arrivals;
  gp_timed_free(t);
}

/* The MSHR release heap decides which of two entries released at the same
 * cycle a request that finds every MSHR busy takes, hence which line stops
 * being mergeable: ties change results.  tie_stream (about 73,000
 * MSHR-full stalls, many between tied releases) must give what the
 * top-down heap of c341ef9 gave (recorded from it), with 6 MSHRs (a full
 * heap pops to 5 items) and with 7 (to 6: a node with one child).  The
 * bottom-up pop is the same heap item for item: letting the last item rise
 * past an equal parent, taking the right child on a tie, or a lone child's
 * missing sibling taken as earlier than it, each moves these numbers. */
static void test_release_heap_keeps_its_ties(void) {
  static const double six[9] = {64025946247.0, 1717983, 1079, 73188, 14075460883.0,
                                4114272, 1206272, 11882, 1563};
  static const double seven[9] = {54805536953.0, 1469772, 1261, 72886, 12016505862.0,
                                  4108896, 1205824, 11800, 1554};
  double got[9];
  int k;
  tie_stream(6, got);
  for (k = 0; k < 9; k++)
    CHECK_NEAR(got[k], six[k], 0);
  tie_stream(7, got);
  for (k = 0; k < 9; k++)
    CHECK_NEAR(got[k], seven[k], 0);
}

/* Freeing an MSHR deletes its line from the line -> MSHR table starting at
 * the slot the MSHR kept, and a deletion that shifts another line up must
 * tell that line's MSHR its new slot.  For every ordered pair of 24 lines
 * (two MSHRs: an 8-slot table, so by pigeonhole some pairs share a home
 * slot and the second one shifts when the first is freed): A and B miss at
 * 0 (back at 301 and 302), a store at 301.5 frees A only, and B asked
 * again at 1000 must find its MSHR freed (an L2 hit: 1100), not merge with
 * the old entry (1000) nor hang on a table that never empties.  Then the
 * other order: the line put second (into the later slot of a shared run)
 * freed first. */
static void test_freed_mshrs_leave_the_line_table(void) {
  gp_timed_config c = base();
  uint64_t a, b, other = 5000;
  uint8_t m = 1;
  double done;
  int wrong = 0, pairs = 0;
  c.mshrs_per_sm = 2, c.dram_bytes_per_cycle = 32;
  for (a = 1; a <= 24; a++)
    for (b = 1; b <= 24; b++) {
      gp_timed *t;
      if (a == b)
        continue;
      t = make(&c);
      wrong += load(t, 0, 0, a) != 301;
      wrong += load(t, 0, 0, b) != 302;
      submit(t, 0, 301.5, GP_OP_ST_GLOBAL, &other, &m, 1, &done);
      wrong += load(t, 0, 1000, b) != 1100;
      wrong += gp_timed_stats_of(t)->mshr_merges != 0;
      gp_timed_free(t);
      /* the line put second freed first: B (in L2 since 301) hits at 2000
       * and is back at 2100, A misses (2301); a store at 2200 frees B
       * only, so A asked at 2250 merges (2301) and B takes a free MSHR
       * and hits again (2350) */
      t = make(&c);
      wrong += load(t, 0, 0, b) != 301;
      wrong += load(t, 0, 2000, a) != 2301;
      wrong += load(t, 0, 2000, b) != 2100;
      submit(t, 0, 2200, GP_OP_ST_GLOBAL, &other, &m, 1, &done);
      wrong += load(t, 0, 2250, a) != 2301;
      wrong += load(t, 0, 2250, b) != 2350;
      wrong += gp_timed_stats_of(t)->mshr_merges != 1;
      pairs++;
      gp_timed_free(t);
    }
  CHECK_EQ_INT(pairs, 24 * 23);
  CHECK_EQ_INT(wrong, 0);
}

int main(void) {
  RUN(test_bandwidth_bound);
  RUN(test_mshr_exhaustion_and_merging);
  RUN(test_future_reservation_does_not_block);
  RUN(test_two_sms_contend_for_one_channel);
  RUN(test_more_mshrs_or_bandwidth_never_later);
  RUN(test_time_order_is_checked);
  RUN(test_merged_requests_read_dram_once);
  RUN(test_l2_sees_requests_in_arrival_order);
  RUN(test_l1_hit_under_fill);
  RUN(test_mshr_full_waits_for_release);
  RUN(test_dirty_victim_on_its_channel);
  RUN(test_timed_write_policies);
  RUN(test_bandwidth_windows);
  RUN(test_l1_sector_miss_asks_for_missing_sectors);
  RUN(test_sms_and_slices_built_at_first_use);
  RUN(test_way_cycles_stored_per_set);
  RUN(test_release_heap_keeps_its_ties);
  RUN(test_atomics_take_no_mshr);
  RUN(test_freed_mshrs_leave_the_line_table);
  return gp_test_finish();
}
