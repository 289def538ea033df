/* Unit tests of the timed memory model: bandwidth-limited DRAM, MSHR
 * exhaustion and merging, contention between SMs, determinism, and the
 * invariant that more MSHRs or bandwidth never return a request later. */
#include "gp_test.h"
#include "memsim.h"

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

/* Runs a seeded random stream; writes each request's return time. */
static void run_stream(const gp_timed_config *c, double *out, int n) {
  gp_timed *t = make(c);
  uint64_t seed = 42;
  double now = 0;
  int i;
  for (i = 0; i < n; i++) {
    uint64_t lines[4];
    uint8_t masks[4];
    double done[4], complete;
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
    out[i] = complete;
  }
  gp_timed_free(t);
}

static void test_more_mshrs_or_bandwidth_never_later(void) {
  static double small[3000], more_mshrs[3000], more_bw[3000], again[3000];
  gp_timed_config c = base();
  int i, later = 0;
  c.sms = 4, c.mshrs_per_sm = 8, c.dram_channels = 4, c.dram_bytes_per_cycle = 16;
  c.l2.size_bytes = 64 * 1024, c.l2_slices = 4, c.l2_interval = 1;
  c.l1.size_bytes = 16 * 1024, c.l1.line_bytes = 128, c.l1.ways = 4, c.cache_global_in_l1 = 1;
  run_stream(&c, small, 3000);
  run_stream(&c, again, 3000);
  CHECK(memcmp(small, again, sizeof small) == 0); /* deterministic */
  c.mshrs_per_sm = 32;
  run_stream(&c, more_mshrs, 3000);
  c.mshrs_per_sm = 8;
  c.dram_bytes_per_cycle = 32;
  run_stream(&c, more_bw, 3000);
  for (i = 0; i < 3000; i++)
    later += more_mshrs[i] > small[i] + 1e-9 || more_bw[i] > small[i] + 1e-9;
  CHECK_EQ_INT(later, 0);
  CHECK(more_bw[2999] < small[2999]); /* and the stream really is faster */
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
  CHECK(gp_timed_submit(t, 3, 20, GP_OP_LD_GLOBAL, &line, &mask, 1, &done, &complete, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "memsim: SM 3 of 1");
  gp_timed_free(t);
}

int main(void) {
  RUN(test_bandwidth_bound);
  RUN(test_mshr_exhaustion_and_merging);
  RUN(test_two_sms_contend_for_one_channel);
  RUN(test_more_mshrs_or_bandwidth_never_later);
  RUN(test_time_order_is_checked);
  return gp_test_finish();
}
