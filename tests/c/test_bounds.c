/* The first-principles bounds (bounds.c): every formula on counts given by
 * hand; the counts of small synthetic kernels computed by hand (dependence
 * path with memory at its AMAT and a unit's initiation interval, LSU lines
 * and bank passes, DRAM bytes, MSHR users); sub-wave kernels use only the
 * SMs that get a block; the simulator never beats the non-DRAM bounds. */
#include "bounds.h"
#include "gp_test.h"
#include "sim/sim.h"
#include "synth.h"

#include <math.h>
#include <string.h>

/* 4 SMs x 2 schedulers, issue width 1 (2 blocks per SM: BLOCKS); latency
 * 4 and interval 1 everywhere except SFU (20, 4) and FP64 (20, 8); L1 16 KB,
 * 30 cycles, L2 1 MB, 100, DRAM +200 cycles (200 ns at 1 GHz), 8 MSHRs per
 * SM, 2 L2 slices at 2 cycles per request, DRAM 32 B per cycle (32 GB/s at
 * 1 GHz); global loads bypass L1; no launch costs. */
#define BLOCKS 2
static gp_machine machine(void) {
  gp_machine m;
  int i;
  memset(&m, 0, sizeof m);
  m.gpu.compute_capability = 7.0;
  m.sm.count = 4, m.sm.schedulers = 2, m.sm.issue_width = 1, m.sm.warp_size = 32;
  for (i = 0; i < GP_OP_COMPUTE_COUNT; i++)
    m.ops[i].latency = 4, m.ops[i].interval = 1;
  m.ops[GP_OP_SFU].latency = 20, m.ops[GP_OP_SFU].interval = 4;
  m.ops[GP_OP_FP64].latency = 20, m.ops[GP_OP_FP64].interval = 8;
  m.shared.latency = 24, m.constant.latency = 8, m.shared.banks = 32, m.shared.bank_bytes = 4;
  m.l1.mshrs = 8, m.l1.size_kb = 16, m.l1.line_bytes = 128, m.l1.ways = 4, m.l1.latency = 30;
  m.l2.size_kb = 1024, m.l2.line_bytes = 128, m.l2.ways = 8, m.l2.sectored = 1;
  m.l2.write_policy = GP_L2_WRITE_BACK, m.l2.slices = 2, m.l2.latency = 100, m.l2.interval = 2;
  m.l1.cache_global = 0, m.l1.write_policy = GP_WRITE_THROUGH_NO_ALLOCATE;
  m.clock.core_mhz = 1000, m.dram.latency_ns = 200;
  m.dram.channels = 2, m.dram.bandwidth_gbs = 32, m.dram.access_bytes = 32;
  m.dram.efficiency = 1, m.dram.achievable_gbs = 32;
  return m;
}

/* Every formula of bounds.h on counts given by hand. */
static void test_formulas_by_hand(void) {
  gp_machine m = machine();
  gp_bounds_counts c;
  gp_bounds b;
  memset(&c, 0, sizeof c);
  c.blocks = 16, c.insts = 1000, c.min_block_insts = 60;
  c.class_insts[GP_OP_FP32] = 500, c.class_insts[GP_OP_IMAD] = 100;
  c.class_insts[GP_OP_SFU] = 100, c.class_insts[GP_OP_INT] = 200;
  c.class_insts[GP_OP_FP64] = 20, c.class_insts[GP_OP_BRANCH] = 80;
  c.lsu_cycles = 640, c.shared_passes = 96, c.l2_requests = 300;
  c.mshr_requests = 100, c.mshr_dram_requests = 50, c.dram_bytes = 6400;
  /* the hard counts: 100 lines loaded, 50 of them cold, 200 store requests;
   * 3200 B read and 1600 B written whatever the interleaving */
  c.hard_mshr_lines = 100, c.hard_mshr_cold_lines = 50, c.hard_l2_requests = 300;
  c.hard_dram_read_bytes = 3200, c.hard_dram_written_bytes = 1600;
  c.longest_path = 500, c.block_paths = 16 * 450;
  m.launch.kernel_cycles = 1000;
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK_NEAR(b.sms_used, 4, 0);
  CHECK_NEAR(b.cycles[GP_BOUND_ISSUE], 1000.0 / 8, 1e-9); /* > ceil(16/4) x 60 / 2 = 120 */
  CHECK_NEAR(b.cycles[GP_BOUND_FMA], 600.0 / 8, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_SFU], 100.0 * 4 / 8, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_FP64], 20.0 * 8 / 8, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_INT], 200.0 / 8, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_CONTROL], 80.0 / 8, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_TENSOR], 0, 0);
  CHECK_NEAR(b.cycles[GP_BOUND_SHARED], 96.0 / 8, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_LSU], 640.0 / 8, 1e-9);
  /* stores among the requests: less the interval the last may still hold */
  CHECK_NEAR(b.cycles[GP_BOUND_L2], 300.0 * 2 / 2 - 2, 1e-9);
  CHECK_NEAR(b.estimate_l2, 300.0 * 2 / 2, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_DRAM], 4800.0 / 32, 1e-9);
  CHECK_NEAR(b.estimate_dram, 6400.0 / 32, 1e-9);
  /* (100 x 100 + 50 x 200) / (4 SMs x 8 MSHRs) */
  CHECK_NEAR(b.cycles[GP_BOUND_MSHR], 20000.0 / 32, 1e-9);
  CHECK_NEAR(b.estimate_mshr, 20000.0 / 32, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_LATENCY], 500, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_BLOCKS], 16.0 * 450 / 8, 1e-9);
  CHECK_EQ_INT(b.binds, GP_BOUND_BLOCKS);
  CHECK_NEAR(b.bound, 900, 1e-9);
  CHECK_NEAR(b.total, 1900, 1e-9);
  /* fewer MSHRs: the MSHR bound takes over */
  m.l1.mshrs = 4;
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK_EQ_INT(b.binds, GP_BOUND_MSHR);
  CHECK_NEAR(b.bound, 1250, 1e-9);
  CHECK(strcmp(gp_bound_name(b.binds), "mshr") == 0);
  /* the functional replay's requests name the expected limiter, not the bound */
  c.l2_requests = 3000;
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK_EQ_INT(b.binds, GP_BOUND_MSHR);
  CHECK_EQ_INT(b.expect, GP_BOUND_L2);
  CHECK_NEAR(b.expect_cycles, 3000, 1e-9);
  CHECK_NEAR(b.bound, 1250, 1e-9);
}

/* Three blocks on four SMs: three SMs do the work; the SM with the most
 * blocks holds one, so the issue bound is one block's instructions. */
static void test_sub_wave_uses_the_sms_with_blocks(void) {
  gp_machine m = machine();
  gp_bounds_counts c;
  gp_bounds b;
  memset(&c, 0, sizeof c);
  c.blocks = 3, c.insts = 300, c.min_block_insts = 100;
  c.class_insts[GP_OP_INT] = 300, c.dram_bytes = 960;
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK_NEAR(b.sms_used, 3, 0);
  CHECK_NEAR(b.cycles[GP_BOUND_ISSUE], 50, 1e-9); /* 300 / (3 x 2) = 100 / 2 */
  CHECK_NEAR(b.cycles[GP_BOUND_INT], 50, 1e-9);
  CHECK_EQ_INT(b.binds, GP_BOUND_ISSUE); /* ties go to the first */
  /* five blocks: one SM holds two, so 2 x 100 / 2 beats 500 / 8 */
  c.blocks = 5, c.insts = 500;
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK_NEAR(b.cycles[GP_BOUND_ISSUE], 100, 1e-9);
  /* no block at all: every bound is 0 */
  memset(&c, 0, sizeof c);
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK_NEAR(b.bound, 0, 0);
}

static gp_kernel *make(uint32_t blocks, uint32_t threads, uint32_t trips, const gp_synth_op *body,
                       uint32_t n, const gp_synth_stream *streams, uint32_t ns) {
  gp_synth_desc d;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "bounds");
  d.grid[0] = blocks, d.grid[1] = d.grid[2] = 1;
  d.block[0] = threads, d.block[1] = d.block[2] = 1;
  d.trips = trips, d.body = body, d.body_len = n, d.streams = streams, d.stream_count = ns;
  d.seed = 1;
  if (gp_synth_generate(&k, &a, &d, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return k;
}

/* memsim's functional mode, then the counts. */
static int count(const gp_kernel *k, const gp_machine *m, gp_bounds_counts *c) {
  gp_alloc a = gp_alloc_default();
  gp_memsim_config mc;
  gp_memsim_result mem;
  gp_error err;
  int status;
  gp_machine_memsim(m, BLOCKS, k->shmem_bytes, &mc);
  if (gp_memsim_functional(k, &mc, &a, &mem, &err) != GP_OK) {
    fprintf(stderr, "  %s\n", err.msg);
    return GP_ERR;
  }
  status = gp_bounds_count(k, m, BLOCKS, &mem, &a, c, &err);
  if (status != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  gp_memsim_result_free(&mem, &a);
  return status;
}

/* One warp, two trips of LD; FFMA (dep 1); MUFU (dep 1), then EXIT.  Both
 * loads miss everything (lines 0 and 1, L1 bypassed): AMAT 100 + 200.
 *   LD0 0 | FFMA0 max(1, 0 + 300) = 300 | MUFU0 304 (SFU free at 308)
 *   LD1 305 | FFMA1 605 | MUFU1 609 | EXIT 610
 * last result: MUFU1 at 609 + 20 = 629. */
static void test_path_by_hand(void) {
  gp_synth_stream s = {GP_STREAM_COALESCED, 0, 1 << 20, 0, 1};
  gp_synth_op body[3] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {1}},
                         {GP_OP_SFU, 0, 0, 0, {1}}};
  gp_kernel *k = make(1, 32, 2, body, 3, &s, 1);
  gp_machine m = machine();
  gp_bounds_counts c;
  gp_bounds b;
  CHECK(count(k, &m, &c) == GP_OK);
  CHECK_NEAR(c.longest_path, 629, 1e-9);
  CHECK_NEAR(c.block_paths, 629, 1e-9);
  CHECK_NEAR(c.insts, 7, 0);
  CHECK_NEAR(c.min_block_insts, 7, 0);
  CHECK_NEAR(c.class_insts[GP_OP_SFU], 2, 0);
  CHECK_NEAR(c.lsu_cycles, 2, 0);            /* one line each */
  CHECK_NEAR(c.mshr_requests, 2, 0);
  CHECK_NEAR(c.mshr_dram_requests, 2, 0);
  CHECK_NEAR(c.l2_requests, 2, 0);
  CHECK_NEAR(c.dram_bytes, 256, 0);          /* two lines of four sectors */
  CHECK_NEAR(c.min_block_path, 629, 1e-9);
  CHECK_NEAR(c.warps_per_block, 1, 0);
  /* the front end: the counts do not depend on it; the block is launched
   * (10 + 1 warp x 3), the SM warms up (50), the block drains (20) */
  m.launch.block_cycles = 10, m.launch.warp_cycles = 3, m.launch.warmup_cycles = 50;
  m.launch.drain_cycles = 20;
  CHECK(count(k, &m, &c) == GP_OK);
  CHECK_NEAR(c.block_paths, 629, 1e-9);
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK_EQ_INT(b.binds, GP_BOUND_LATENCY);
  CHECK_NEAR(b.cycles[GP_BOUND_LATENCY], 13 + 50 + 629 + 20, 1e-9);
  /* one SM with blocks, 2 slots: 50 + (629 + 13 + 20) / 2 */
  CHECK_NEAR(b.cycles[GP_BOUND_BLOCKS], 50 + 662.0 / 2, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_DISPATCH], 13 + 629 + 20, 1e-9);
  CHECK_NEAR(b.bound, 712, 1e-9);
  gp_kernel_free(k);
}

/* The front end's bounds by hand: 100 blocks of 2 warps on 4 SMs (25 on the
 * busiest; 32 slots each, so the slots never bind), dispatch interval 5, launch 6 + 2 x 2 = 10, drain 30, paths
 * 40 (the shortest) to 70.  Dispatcher: the last block leaves at 99 x 5 =
 * 495, is launched by 505; the busiest SM's launcher needs 25 x 10 = 250;
 * so 505 + 40 + 30 = 575.  A launcher twice as slow (20 + 2 x 2 = 24 a
 * block: 600) takes over: 600 + 70 = 670.  A warm-up of 1000 holds every
 * warp until 24 + 1000: the latency bound 24 + 1000 + 70 + 30 = 1124 binds
 * (the dispatch bound stays 670). */
static void test_front_end_by_hand(void) {
  gp_machine m = machine();
  gp_bounds_counts c;
  gp_bounds b;
  memset(&c, 0, sizeof c);
  c.blocks = 100, c.insts = 400, c.min_block_insts = 4, c.class_insts[GP_OP_INT] = 400;
  c.longest_path = 70, c.block_paths = 5500, c.min_block_path = 40, c.warps_per_block = 2;
  m.launch.dispatch_cycles = 5, m.launch.block_cycles = 6, m.launch.warp_cycles = 2;
  m.launch.drain_cycles = 30, m.launch.kernel_cycles = 1000;
  gp_bounds_compute(&c, &m, 32, &b);
  CHECK_NEAR(b.cycles[GP_BOUND_DISPATCH], 575, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_LATENCY], 10 + 70 + 30, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_BLOCKS], (5500 + 100 * 40.0) / 128, 1e-9);
  CHECK_EQ_INT(b.binds, GP_BOUND_DISPATCH);
  CHECK_NEAR(b.total, 1575, 1e-9);
  m.launch.block_cycles = 20;
  gp_bounds_compute(&c, &m, 32, &b);
  CHECK_NEAR(b.cycles[GP_BOUND_DISPATCH], 670, 1e-9);
  m.launch.warmup_cycles = 1000;
  gp_bounds_compute(&c, &m, 32, &b);
  CHECK_NEAR(b.cycles[GP_BOUND_DISPATCH], 670, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_LATENCY], 1124, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_BLOCKS], 1000 + (5500 + 100 * 54.0) / 128, 1e-9);
  CHECK_EQ_INT(b.binds, GP_BOUND_LATENCY);
}

/* Shared-memory loads at an 8-byte stride with 4-byte words: lanes l and
 * l + 16 share bank 2l mod 32 at different words, so 2 passes each, and an
 * FFMA reading each: 3 trips give 6 LSU cycles, 6 passes, and the FFMA
 * waits for the load's latency plus its extra pass (24 + 1):
 *   LDS 0, FFMA 25 | LDS 26, FFMA 51 | LDS 52, FFMA 77 (done 81) | EXIT 78
 * (done 82). */
static void test_bank_passes(void) {
  gp_synth_stream s = {GP_STREAM_SHARED, 0, 4096, 8, 1};
  gp_synth_op body[2] = {{GP_OP_LD_SHARED, 4, 0, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {1}}};
  gp_kernel *k = make(1, 32, 3, body, 2, &s, 1);
  gp_machine m = machine();
  gp_bounds_counts c;
  gp_bounds b;
  CHECK(count(k, &m, &c) == GP_OK);
  CHECK_NEAR(c.shared_passes, 6, 0);
  CHECK_NEAR(c.lsu_cycles, 6, 0);
  CHECK_NEAR(c.longest_path, 82, 1e-9);
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK_NEAR(b.cycles[GP_BOUND_SHARED], 6.0 / 2, 1e-9); /* one SM, 2 schedulers */
  CHECK_NEAR(b.cycles[GP_BOUND_LSU], 6.0 / 2, 1e-9);
  gp_kernel_free(k);
}

/* The simulator's options on the test machine (GTO). */
static gp_sim_options sim_options(void) {
  gp_sim_options o;
  memset(&o, 0, sizeof o);
  o.blocks_per_sm = BLOCKS, o.policy = GP_SIM_GTO;
  return o;
}

/* The simulator on machine m (GTO): cycles without the kernel launch (-1
 * on an error), its memory counters in *memory when that is not NULL. */
static double simulate(const gp_kernel *k, const gp_machine *m, gp_timed_stats *memory) {
  gp_sim_options sc = sim_options();
  gp_sim_result r;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  double cycles = -1;
  if (gp_sim_run(k, m, &sc, &a, &r, &err) != GP_OK) {
    fprintf(stderr, "  %s\n", err.msg);
    return -1;
  }
  cycles = r.cycles;
  if (memory != NULL)
    *memory = r.memory;
  gp_sim_result_free(&r, &a);
  return cycles;
}

/* The simulator on the same machine never beats the bounds (the DRAM's
 * against its last transfer: write-backs may drain after the kernel), and
 * comes within 10 % of the binding one: 64 blocks of 4 warps with a load, a 4-deep
 * FFMA chain, an SFU op and a store. */
static void test_simulator_respects_the_bounds(void) {
  gp_synth_stream s[2] = {{GP_STREAM_COALESCED, 0, 1 << 22, 0, 1},
                          {GP_STREAM_COALESCED, 1ull << 32, 1 << 22, 0, 1}};
  gp_synth_op body[7] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {1}},
                         {GP_OP_FP32, 0, 0, 0, {1}},      {GP_OP_FP32, 0, 0, 0, {1}},
                         {GP_OP_FP32, 0, 0, 0, {1}},      {GP_OP_SFU, 0, 0, 0, {1}},
                         {GP_OP_ST_GLOBAL, 4, 1, 0, {1}}};
  gp_kernel *k = make(64, 128, 4, body, 7, s, 2);
  gp_machine m = machine();
  gp_bounds_counts c;
  gp_bounds b;
  gp_sim_options sc;
  gp_sim_result r;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  int i;
  CHECK(count(k, &m, &c) == GP_OK);
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  sc = sim_options();
  CHECK(gp_sim_run(k, &m, &sc, &a, &r, &err) == GP_OK);
  for (i = 0; i < GP_BOUND_COUNT; i++)
    if (i != GP_BOUND_DRAM) {
      if (!(r.cycles >= b.cycles[i]))
        fprintf(stderr, "  %s: simulated %.1f < bound %.1f\n", gp_bound_name(i), r.cycles,
                b.cycles[i]);
      CHECK(r.cycles >= b.cycles[i]);
    }
  /* block slots bind: a trip is LD (AMAT 300: every line misses), four
   * FFMAs (4 each), MUFU (20), then STG: 337 cycles; three trips, the
   * fourth up to its MUFU's result (316 + 20) and EXIT (+ 1 + 4): 1352 per
   * block; 64 x 1352 / (4 SMs x 2 slots) = 10816.  Simulated: 11314. */
  CHECK_EQ_INT(b.binds, GP_BOUND_BLOCKS);
  CHECK_NEAR(b.bound, 10816, 1e-6);
  CHECK(r.cycles <= 1.1 * b.bound);
  /* the DRAM bound is the DRAM's busy time: the last transfer ends after it */
  CHECK(r.memory.last_dram_done >= b.cycles[GP_BOUND_DRAM]);
  gp_sim_result_free(&r, &a);
  /* with a front end every bound still holds, the front end's three too */
  m.launch.dispatch_cycles = 7, m.launch.block_cycles = 40, m.launch.warp_cycles = 5;
  m.launch.drain_cycles = 60, m.launch.warmup_cycles = 300;
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK(gp_sim_run(k, &m, &sc, &a, &r, &err) == GP_OK);
  for (i = 0; i < GP_BOUND_COUNT; i++) {
    if (!(r.cycles >= b.cycles[i]))
      fprintf(stderr, "  %s: simulated %.1f < bound %.1f\n", gp_bound_name(i), r.cycles,
              b.cycles[i]);
    CHECK(r.cycles >= b.cycles[i]);
  }
  gp_sim_result_free(&r, &a);
  gp_kernel_free(k);
}

/* The hard DRAM bytes by hand, and the simulator above them.  64 blocks
 * of 4 warps, 4 trips of LDG b[i]; FFMA; STG a[i] (4 B, coalesced): 1024
 * warp trips, each one full 128 B line of b and one of a, 128 KB each,
 * against a 64 KB write-back L2.  Reads: every line of b is loaded only,
 * filled once in full: 131,072 B.  Writes: the 131,072 B stored stay in
 * the L2 until evicted, and at the end it holds at most 65,536 B of them:
 * 65,536 B written, 6,144 cycles at 32 B per cycle.  The functional
 * replay writes back more (its LRU keeps reads too), the simulator too:
 * the estimate, not the bound.  Write-through L2: every store's 128 B
 * goes to DRAM (131,072 B, exactly what the simulator writes).  A
 * write-back L1 caching the stores adds 4 SMs x 16 KB of room: 0 B. */
static void test_hard_dram_bytes_by_hand(void) {
  gp_synth_stream s[2] = {{GP_STREAM_COALESCED, 0, 1 << 17, 0, 1},
                          {GP_STREAM_COALESCED, 1ull << 32, 1 << 17, 0, 1}};
  gp_synth_op body[3] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {1}},
                         {GP_OP_ST_GLOBAL, 4, 1, 0, {1}}};
  gp_kernel *k = make(64, 128, 4, body, 3, s, 2);
  gp_machine m = machine();
  gp_bounds_counts c;
  gp_bounds b;
  gp_timed_stats mem;
  if (k == NULL)
    return;
  m.l2.size_kb = 64;
  CHECK(count(k, &m, &c) == GP_OK);
  CHECK_NEAR(c.hard_dram_read_bytes, 131072, 0);
  CHECK_NEAR(c.hard_dram_written_bytes, 65536, 0);
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK_NEAR(b.cycles[GP_BOUND_DRAM], 196608.0 / 32, 1e-9);
  CHECK(c.dram_bytes > 196608 && b.estimate_dram > b.cycles[GP_BOUND_DRAM]);
  CHECK(simulate(k, &m, &mem) >= 0);
  CHECK_NEAR((double)mem.dram_bytes_read, 131072, 0);
  CHECK(mem.dram_bytes_written >= 65536);
  CHECK(mem.last_dram_done >= b.cycles[GP_BOUND_DRAM]);
  m.l2.write_policy = GP_L2_WRITE_THROUGH;
  CHECK(count(k, &m, &c) == GP_OK);
  CHECK_NEAR(c.hard_dram_read_bytes, 131072, 0);
  CHECK_NEAR(c.hard_dram_written_bytes, 131072, 0);
  CHECK(simulate(k, &m, &mem) >= 0);
  CHECK_NEAR((double)mem.dram_bytes_written, 131072, 0);
  m.l2.write_policy = GP_L2_WRITE_BACK, m.l1.write_policy = GP_WRITE_BACK, m.l1.cache_global = 1;
  CHECK(count(k, &m, &c) == GP_OK);
  CHECK_NEAR(c.hard_dram_read_bytes, 131072, 0);
  CHECK_NEAR(c.hard_dram_written_bytes, 0, 0);
  gp_kernel_free(k);
}

/* An in-place update: 64 blocks of 4 warps, 4 trips of a 4-byte load of
 * stream 0, an FFMA and a store of the same address (128 KB, 1,024 lines,
 * each loaded and stored by one warp only).  Every warp loads a line before
 * it stores it, so whatever the interleaving a line's first access is a
 * load, a cold miss: 131,072 B read (issue 24; the bound used to count
 * none, as a line a store touches may be in the L2 without a read), and
 * with a 64 KB write-back L2, 65,536 B written at least: 196,608 B at 32 B
 * a cycle.  The line's first allocation holds an MSHR for L2 + DRAM: 1,024
 * cold lines.  A store first in a warp (the same kernel with the store
 * before the load) may leave the line in the L2 for its load: no read. */
static void test_in_place_update_reads(void) {
  gp_synth_stream s[1] = {{GP_STREAM_COALESCED, 0, 1 << 17, 0, 1}};
  gp_synth_op update[3] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {1}},
                           {GP_OP_ST_GLOBAL, 4, 0, 0, {1}}};
  gp_synth_op store_first[3] = {{GP_OP_ST_GLOBAL, 4, 0, 0, {0}}, {GP_OP_LD_GLOBAL, 4, 0, 0, {0}},
                                {GP_OP_FP32, 0, 0, 0, {1}}};
  gp_kernel *k = make(64, 128, 4, update, 3, s, 1), *w = make(64, 128, 4, store_first, 3, s, 1);
  gp_machine m = machine();
  gp_bounds_counts c;
  gp_bounds b;
  gp_timed_stats mem;
  if (k == NULL || w == NULL)
    return;
  m.l2.size_kb = 64;
  CHECK(count(k, &m, &c) == GP_OK);
  CHECK_NEAR(c.hard_dram_read_bytes, 131072, 0);
  CHECK_NEAR(c.hard_dram_written_bytes, 65536, 0);
  CHECK_NEAR(c.hard_mshr_lines, 1024, 0);
  CHECK_NEAR(c.hard_mshr_cold_lines, 1024, 0);
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK_NEAR(b.cycles[GP_BOUND_DRAM], 196608.0 / 32, 1e-9);
  CHECK(simulate(k, &m, &mem) >= b.cycles[GP_BOUND_DRAM]);
  CHECK_NEAR((double)mem.dram_bytes_read, 131072, 0);
  CHECK(count(w, &m, &c) == GP_OK);
  CHECK_NEAR(c.hard_dram_read_bytes, 0, 0);
  CHECK_NEAR(c.hard_mshr_cold_lines, 0, 0);
  gp_kernel_free(k);
  gp_kernel_free(w);
}

static gp_kernel *parse(const char *text) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  if (gp_kernel_parse_buffer(&k, &a, text, strlen(text), "bounds.traceg", &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  CHECK(k != NULL);
  return k;
}

/* Memory records that share their lines (block 1's eight loads of one line
 * all pointing at the first one's entry, the kernel's line count cut to
 * match): the counting pass's line arrays, sized by the line count, grow,
 * and every count is that of the kernel `text` gave (`want`). */
static void test_records_sharing_lines(const char *text, const gp_bounds_counts *want) {
  gp_kernel *k = parse(text);
  gp_machine m = machine();
  gp_bounds_counts c;
  uint32_t r;
  if (k == NULL)
    return;
  CHECK_EQ_INT(k->mem_count, 12);
  for (r = 5; r < k->mem_count; r++)
    k->mem_records[r].line_start = k->mem_records[4].line_start;
  k->line_count = k->mem_records[4].line_start + 1;
  CHECK(count(k, &m, &c) == GP_OK);
  CHECK_NEAR(c.longest_path, want->longest_path, 0);
  CHECK_NEAR(c.block_paths, want->block_paths, 0);
  CHECK_NEAR(c.lsu_cycles, want->lsu_cycles, 0);
  CHECK_NEAR(c.hard_mshr_lines, want->hard_mshr_lines, 0);
  CHECK_NEAR(c.hard_mshr_cold_lines, want->hard_mshr_cold_lines, 0);
  CHECK_NEAR(c.hard_l2_requests, want->hard_l2_requests, 0);
  CHECK_NEAR(c.hard_dram_read_bytes, want->hard_dram_read_bytes, 0);
  gp_kernel_free(k);
}

/* A PC's mean latency (AMAT) is no floor for one warp.  Two one-warp
 * blocks (SMs 0 and 1: no MSHR merges) run a chain of dependent loads at
 * one PC: block 0 four lines nobody else reads (DRAM each, 300), block 1
 * one line eight times (one DRAM miss, then L2 hits, 100).  The PC's AMAT is
 * (5 x 300 + 7 x 100) / 12 = 183.3, so the old path of block 1 was 8 x 183.3
 * = 1466.7, while the simulator finishes block 1 at 308 + 7 x 100 = 1008 and
 * block 0 at 4 x 308 = 1232 (300 + an 8-cycle transfer per miss): it ran
 * below that "bound".  The floors: block 0's lines are touched once, so
 * 4 x 300 = 1200; block 1's line by others too, so 8 x 100 = 800. */
static void test_amat_is_no_floor_for_one_warp(void) {
  static const char text[] =
      "-kernel name = amat\n-grid dim = (2,1,1)\n-block dim = (32,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 4\n"
      "0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x10000 4\n0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x20000 4\n"
      "0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x30000 4\n0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x40000 4\n"
      "#END_TB\n#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 8\n"
      "0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x50000 4\n0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x50000 4\n"
      "0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x50000 4\n0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x50000 4\n"
      "0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x50000 4\n0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x50000 4\n"
      "0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x50000 4\n0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x50000 4\n"
      "#END_TB\n";
  gp_kernel *k = parse(text);
  gp_machine m = machine();
  gp_bounds_counts c;
  gp_bounds b;
  double cycles;
  if (k == NULL)
    return;
  CHECK(count(k, &m, &c) == GP_OK);
  CHECK_NEAR(c.mshr_requests, 12, 0);
  CHECK_NEAR(c.mshr_dram_requests, 5, 0);
  CHECK_NEAR(c.longest_path, 1200, 1e-9);
  CHECK_NEAR(c.block_paths, 1200 + 800, 1e-9);
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK_EQ_INT(b.binds, GP_BOUND_LATENCY);
  cycles = simulate(k, &m, NULL);
  CHECK_NEAR(cycles, 1232, 1e-9);
  CHECK(cycles >= b.bound);
  gp_kernel_free(k);
  test_records_sharing_lines(text, &c);
}

/* A load whose lanes are all off makes no request: the simulator completes
 * it the next cycle, so its dependants wait 1 cycle, not the PC's AMAT.
 * Block 0 loads one cold line (DRAM, 300) for an FFMA; block 1 runs four
 * dependent instances of the same PC with an empty mask (bfs's predicated
 * loads).  The old path charged them the PC's AMAT, 4 x 300 = 1200; the
 * simulator ends at 300 + 8 (transfer) + 4 (FFMA) = 312.  Floors: block 0
 * LDG at 0, FFMA at 300, done 304; block 1 at 0, 1, 2, 3, done 4. */
static void test_empty_loads_cost_one_cycle(void) {
  static const char text[] =
      "-kernel name = empty\n-grid dim = (2,1,1)\n-block dim = (32,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
      "0010 ffffffff 1 R2 LDG.E 1 R2 4 1 0x10000 4\n0020 ffffffff 1 R3 FFMA 1 R2 0\n"
      "#END_TB\n#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 4\n"
      "0010 00000000 1 R2 LDG.E 1 R2 0\n0010 00000000 1 R2 LDG.E 1 R2 0\n"
      "0010 00000000 1 R2 LDG.E 1 R2 0\n0010 00000000 1 R2 LDG.E 1 R2 0\n"
      "#END_TB\n";
  gp_kernel *k = parse(text);
  gp_machine m = machine();
  gp_bounds_counts c;
  gp_bounds b;
  double cycles;
  if (k == NULL)
    return;
  CHECK(count(k, &m, &c) == GP_OK);
  CHECK_NEAR(c.longest_path, 304, 1e-9);
  CHECK_NEAR(c.block_paths, 304 + 4, 1e-9);
  CHECK_NEAR(c.lsu_cycles, 1 + 4, 0); /* one line; an empty load takes the LSU a cycle */
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  cycles = simulate(k, &m, NULL);
  CHECK_NEAR(cycles, 312, 1e-9);
  CHECK(cycles >= b.bound);
  gp_kernel_free(k);
}

/* Requests that merge: the hard MSHR and L2 bounds count each distinct
 * loaded line once, the functional estimates every L1-missing request.
 * One block of four warps on one SM with one MSHR (global loads bypass L1,
 * the L2 is write-back); every warp loads line A (0x10000), warp 0 stores
 * line B (0x20000), warp 1 then loads B:
 *   hard: lines loaded A, B (2 allocations, 2 L2 requests); A is touched
 *   by no store, so its first allocation misses the L2 (cold), B may be
 *   in the L2 from the store; the store is one more L2 request:
 *   mshr (2 x 100 + 1 x 200) / (1 SM x 1 MSHR) = 400; l2 3 x 2 / 2 slices
 *   less the one interval the last store may still hold = 1.
 *   functional replay (round-robin: the four LDG A, then STG B, LDG B):
 *   5 load requests miss L1, A's first misses the L2, B hits the line the
 *   store allocated: (5 x 100 + 1 x 200) / 1 = 700; L2 accesses 6 (five
 *   loads and the store): 6 x 2 / 2 = 6.
 * The simulator (GTO: warp 1 runs on to its second load): warp 0's LDG A
 * takes the MSHR at 0 and returns at 100 + 8 (transfer) + 200 = 308; warp
 * 1's LDG A merges into it; warp 1's LDG B waits for the entry (308) and
 * hits the L2 line the store allocated: 408; warp 2's LDG A, issued after,
 * finds the entry given to B (A no longer outstanding), waits for it and
 * hits the L2: 508; warp 3's merges into that.  Three allocations held
 * 308 + 100 + 100 = 508 cycles: the run ends at 508, below the estimate
 * (700), above the hard bound (400: two allocations, one cold). */
static void test_merged_requests(void) {
  static const char text[] =
      "-kernel name = merge\n-grid dim = (1,1,1)\n-block dim = (128,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\n"
      "warp = 0\ninsts = 2\n"
      "0010 ffffffff 1 R2 LDG.E 1 R0 4 1 0x10000 4\n0030 ffffffff 0 STG.E 2 R0 R5 4 1 0x20000 4\n"
      "warp = 1\ninsts = 3\n"
      "0010 ffffffff 1 R2 LDG.E 1 R0 4 1 0x10000 4\n0040 ffffffff 1 R4 LDG.E 1 R0 4 1 0x20000 4\n"
      "0050 ffffffff 1 R3 FFMA 2 R2 R4 0\n"
      "warp = 2\ninsts = 1\n0010 ffffffff 1 R2 LDG.E 1 R0 4 1 0x10000 4\n"
      "warp = 3\ninsts = 1\n0010 ffffffff 1 R2 LDG.E 1 R0 4 1 0x10000 4\n"
      "#END_TB\n";
  gp_kernel *k = parse(text);
  gp_machine m = machine();
  gp_bounds_counts c;
  gp_bounds b;
  double cycles;
  if (k == NULL)
    return;
  m.l1.mshrs = 1;
  CHECK(count(k, &m, &c) == GP_OK);
  CHECK_NEAR(c.hard_mshr_lines, 2, 0);
  CHECK_NEAR(c.hard_mshr_cold_lines, 1, 0);
  CHECK_NEAR(c.hard_l2_requests, 3, 0);
  /* line 0x10000 only loaded (full 128 B requests), 0x20000 also stored:
   * it may be in the L2 from the store, and the store stays there */
  CHECK_NEAR(c.hard_dram_read_bytes, 128, 0);
  CHECK_NEAR(c.hard_dram_written_bytes, 0, 0);
  CHECK_NEAR(c.mshr_requests, 5, 0);
  CHECK_NEAR(c.mshr_dram_requests, 1, 0);
  CHECK_NEAR(c.l2_requests, 6, 0);
  gp_bounds_compute(&c, &m, BLOCKS, &b);
  CHECK_NEAR(b.cycles[GP_BOUND_MSHR], 400, 1e-9);
  CHECK_NEAR(b.cycles[GP_BOUND_L2], 1, 1e-9);
  CHECK_NEAR(b.estimate_mshr, 700, 1e-9);
  CHECK_NEAR(b.estimate_l2, 6, 1e-9);
  CHECK_EQ_INT(b.binds, GP_BOUND_MSHR);
  CHECK_EQ_INT(b.expect, GP_BOUND_MSHR);
  CHECK_NEAR(b.expect_cycles, 700, 1e-9);
  cycles = simulate(k, &m, NULL);
  CHECK_NEAR(cycles, 508, 1e-9);
  CHECK(cycles >= b.bound);
  CHECK(cycles < b.estimate_mshr);
  gp_kernel_free(k);
}

/* A memory result of another kernel is refused. */
static void test_mismatched_memory_result(void) {
  gp_synth_op body[1] = {{GP_OP_FP32, 0, 0, 0, {1}}};
  gp_kernel *k = make(1, 32, 2, body, 1, NULL, 0);
  gp_machine m = machine();
  gp_memsim_result mem;
  gp_bounds_counts c;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  memset(&mem, 0, sizeof mem);
  mem.pc_count = 7;
  CHECK(gp_bounds_count(k, &m, BLOCKS, &mem, &a, &c, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "7 static instructions");
  gp_kernel_free(k);
}

int main(void) {
  RUN(test_formulas_by_hand);
  RUN(test_sub_wave_uses_the_sms_with_blocks);
  RUN(test_path_by_hand);
  RUN(test_front_end_by_hand);
  RUN(test_bank_passes);
  RUN(test_simulator_respects_the_bounds);
  RUN(test_hard_dram_bytes_by_hand);
  RUN(test_in_place_update_reads);
  RUN(test_amat_is_no_floor_for_one_warp);
  RUN(test_empty_loads_cost_one_cycle);
  RUN(test_merged_requests);
  RUN(test_mismatched_memory_result);
  return gp_test_finish();
}
