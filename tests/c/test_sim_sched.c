/* Issue-by-issue tests of the simulator's schedulers: a GATSim Fig. 3-style
 * example with every issue cycle and stall computed by hand, LRR fairness,
 * the two-level scheduler's active set, pick callbacks (order, errors), the
 * per-PC stall breakdown, and a launch's wait (idle, not a dependence). */
#include "gp_test.h"
#include "gp_test_sim.h"
#include "synth.h"
#include "sim/sched.h"

#include <string.h>

typedef struct issue_log {
  uint32_t n;
  double cycle[256];
  uint32_t warp[256], pc[256];
} issue_log;

static void log_issue(void *ctx, uint32_t sm, uint32_t sched, double cycle, uint32_t warp,
                      uint32_t pc_index) {
  issue_log *l = ctx;
  (void)sm, (void)sched;
  if (l->n < 256) {
    l->cycle[l->n] = cycle, l->warp[l->n] = warp, l->pc[l->n] = pc_index;
    l->n++;
  }
}

static sim_setup config(void) { return sim_setup_of(1, 1, 1); }

static gp_kernel *parse(const char *text) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  if (gp_kernel_parse_buffer(&k, &a, text, strlen(text), "sched.traceg", &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return k;
}

static int run(const gp_kernel *k, const sim_setup *c, gp_sim_result *r, gp_error *err) {
  return sim_setup_run(k, c, r, err);
}

static void done(gp_sim_result *r) {
  gp_alloc a = gp_alloc_default();
  gp_sim_result_free(r, &a);
}

/* Four warps of FFMA (6), FFMA (6, on the first), MUFU (20, interval 8, on
 * the second), IADD3 (4, on the third), EXIT (1), one LRR scheduler. */
#define FIG3_WARP(w)                                                                             \
  "warp = " #w "\ninsts = 5\n0000 ffffffff 1 R1 FFMA 0 0\n0010 ffffffff 1 R2 FFMA 1 R1 0\n"     \
  "0020 ffffffff 1 R3 MUFU.RCP 1 R2 0\n0030 ffffffff 1 R4 IADD3 1 R3 0\n0040 ffffffff 0 EXIT 0 0\n"
static const char fig3_text[] =
    "-kernel name = fig3\n-grid dim = (1,1,1)\n-block dim = (128,1,1)\n"
    "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
    "#BEGIN_TB\nthread block = 0,0,0\n" FIG3_WARP(0) FIG3_WARP(1) FIG3_WARP(2) FIG3_WARP(3)
    "#END_TB\n";

/* GATSim Fig. 3 in the small, by hand (LRR starts after the last issued
 * warp; a cycle without an issue jumps to the earliest possible one):
 *   0-3   every warp's FFMA;  4-5 nothing (w0's second FFMA waits to 6)
 *   6-9   second FFMAs;       10-11 nothing (w0's MUFU waits to 12)
 *   12    w0 MUFU, the SFU busy to 20; 13-19 SFU busy (w1's MUFU ready)
 *   20    w1 MUFU (SFU to 28); 21-27 SFU busy; 28 w2 MUFU (SFU to 36)
 *   29-31 SFU busy (w3); 32 w0 IADD3 (MUFU done 12 + 20); 33 w0 EXIT
 *   34-35 SFU busy (w3); 36 w3 MUFU (done 56); 37-39 w1's IADD3 waits
 *   40 w1 IADD3; 41 w1 EXIT; 42-47 w2 waits; 48 w2 IADD3; 49 w2 EXIT
 *   50-55 w3 waits; 56 w3 IADD3 (done 60); 57 w3 EXIT.
 * Kernel cycles 60 (the last result); 58 scheduler cycles: 20 issuing, 19
 * dependence, 19 SFU busy. */
static void test_fig3_by_hand(void) {
  static const double cycles[20] = {0,  1,  2,  3,  6,  7,  8,  9,  12, 20,
                                    28, 32, 33, 36, 40, 41, 48, 49, 56, 57};
  static const uint32_t warps[20] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 0, 0, 3, 1, 1, 2, 2, 3, 3};
  gp_kernel *k = parse(fig3_text);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  issue_log log;
  uint32_t i, pc_i3 = UINT32_MAX, pc_i2 = UINT32_MAX, pc_i1 = UINT32_MAX;
  if (k == NULL) {
    CHECK(0);
    return;
  }
  memset(&log, 0, sizeof log);
  c.m.ops[GP_OP_FP32].latency = 6, c.m.ops[GP_OP_SFU].latency = 20, c.m.ops[GP_OP_SFU].interval = 8;
  c.m.ops[GP_OP_INT].latency = 4;
  c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
  c.o.per_pc = 1;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.n, 20);
  for (i = 0; i < 20 && i < log.n; i++) {
    CHECK_NEAR(log.cycle[i], cycles[i], 0);
    CHECK_EQ_INT(log.warp[i], warps[i]);
  }
  CHECK_NEAR(r.cycles, 60, 0);
  CHECK_NEAR(r.warp_done[0], 36, 0);
  CHECK_NEAR(r.warp_done[3], 60, 0);
  CHECK_NEAR(r.stalls[GP_STALL_ISSUED], 20, 1e-12);
  CHECK_NEAR(r.stalls[GP_STALL_DEPENDENCE], 19, 1e-12);
  CHECK_NEAR(r.stalls[GP_STALL_SFU], 19, 1e-12);
  CHECK_NEAR(r.counters.scheduler_cycles, 58, 1e-12);
  /* per PC: each issues 4 times; the waits go to the waiting instruction */
  for (i = 0; i < k->static_count; i++) {
    if (k->statics[i].pc == 0x10)
      pc_i1 = i;
    if (k->statics[i].pc == 0x20)
      pc_i2 = i;
    if (k->statics[i].pc == 0x30)
      pc_i3 = i;
  }
  CHECK(pc_i1 != UINT32_MAX && pc_i2 != UINT32_MAX && pc_i3 != UINT32_MAX);
  if (pc_i3 != UINT32_MAX && pc_i2 != UINT32_MAX && pc_i1 != UINT32_MAX) {
    CHECK_NEAR(r.pc_stalls[pc_i1 * GP_STALL_COUNT + GP_STALL_ISSUED], 4, 1e-12);
    CHECK_NEAR(r.pc_stalls[pc_i1 * GP_STALL_COUNT + GP_STALL_DEPENDENCE], 2, 1e-12);
    CHECK_NEAR(r.pc_stalls[pc_i2 * GP_STALL_COUNT + GP_STALL_DEPENDENCE], 2, 1e-12);
    CHECK_NEAR(r.pc_stalls[pc_i2 * GP_STALL_COUNT + GP_STALL_SFU], 19, 1e-12);
    CHECK_NEAR(r.pc_stalls[pc_i3 * GP_STALL_COUNT + GP_STALL_DEPENDENCE], 15, 1e-12);
  }
  CHECK_EQ_INT(r.counters.class_issued[GP_OP_SFU], 4);
  CHECK_EQ_INT(r.counters.class_lanes[GP_OP_FP32], 8 * 32);
  CHECK_EQ_INT(r.line_count, 0);
  done(&r);
  gp_kernel_free(k);
}

/* A barrier released by the first issue of a cycle at issue width 2 adds
 * a warp to pick in the same cycle (sim.c's evaluate: no further pick only
 * when no other warp was eligible and no barrier release or new block
 * came), and the releasing warp, ready again on another unit, is not
 * picked twice (issue_further's mask of the warps issued this cycle; GTO
 * would take the greedy warp again).  Warp 0: BAR, IADD3; warp 1: five
 * dependent FFMAs (latency 4), BAR, IADD3, one scheduler, by hand under
 * LRR and GTO alike: 0 w0 BAR, w1 FFMA; 4, 8, 12, 16 w1 FFMA; 17 w1 BAR
 * (the release), w0 IADD3 (the INT unit busy to 18); 18 w1 IADD3.  (No
 * further pick after a release: w0's IADD3 at 18, w1's at 19; a warp
 * picked twice: w1's IADD3 at 17, w0's at 18.)  Also with room for 40
 * blocks: 80 warp positions, two bitmap words (the issued positions in
 * q->issued_now).  In issue order: (cycle, warp). */
static void test_barrier_release_adds_a_pick_in_its_cycle(void) {
  static const char text[] =
      "-kernel name = bar2\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\n"
      "warp = 0\ninsts = 2\n0010 ffffffff 0 BAR.SYNC 0 0\n0020 ffffffff 1 R1 IADD3 0 0\n"
      "warp = 1\ninsts = 7\n0030 ffffffff 1 R2 FFMA 0 0\n0040 ffffffff 1 R2 FFMA 1 R2 0\n"
      "0040 ffffffff 1 R2 FFMA 1 R2 0\n0040 ffffffff 1 R2 FFMA 1 R2 0\n"
      "0040 ffffffff 1 R2 FFMA 1 R2 0\n0010 ffffffff 0 BAR.SYNC 0 0\n"
      "0050 ffffffff 1 R3 IADD3 0 0\n#END_TB\n";
  static const double want[9][2] = {{0, 0},  {0, 1},  {4, 1},  {8, 1}, {12, 1},
                                    {16, 1}, {17, 1}, {17, 0}, {18, 1}};
  static const int policies[3] = {GP_SIM_LRR, GP_SIM_GTO, GP_SIM_GTO};
  gp_kernel *k = parse(text);
  int p;
  if (k == NULL) {
    CHECK(0);
    return;
  }
  for (p = 0; p < 3; p++) {
    sim_setup c = config();
    gp_sim_result r;
    gp_error err;
    issue_log log;
    uint32_t i;
    memset(&log, 0, sizeof log);
    c.m.sm.issue_width = 2;
    c.m.ops[GP_OP_OTHER].latency = 1;
    c.o.policy = policies[p];
    c.o.blocks_per_sm = p == 2 ? 40 : 1;
    c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
    CHECK(run(k, &c, &r, &err) == GP_OK);
    CHECK_EQ_INT(log.n, 9);
    for (i = 0; i < log.n && i < 9; i++) {
      CHECK_NEAR(log.cycle[i], want[i][0], 0);
      CHECK_EQ_INT(log.warp[i], (int)want[i][1]);
    }
    done(&r);
  }
  gp_kernel_free(k);
}

/* A barrier release wakes a later scheduler of the SM in its own cycle
 * (run_due's merge of the due word after a look that set sets_changed).
 * Two schedulers, issue width 1, one block of two warps: warp 0 (scheduler
 * 0) five dependent FFMAs (latency 4), BAR, IADD3; warp 1 (scheduler 1) BAR,
 * IADD3.  By hand: cycle 0 w0's FFMA and w1's BAR (scheduler 1 then waits at
 * the barrier, asleep with no wake-up); w0's FFMAs at 4, 8, 12, 16, its BAR
 * at 17, which releases w1: scheduler 1 (after scheduler 0 in the cycle's
 * order) looks at 17 too and issues w1's IADD3 there; w0's IADD3 at 18.
 * LRR and GTO, the scheduler of the release first and then second in the
 * order (warps swapped: w1's scheduler 1 releases w0's scheduler 0, which
 * then looks at 18, the next cycle). */
static void test_barrier_release_wakes_a_later_scheduler(void) {
  static const char chain_first[] =
      "-kernel name = bar2s\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\n"
      "warp = 0\ninsts = 7\n0030 ffffffff 1 R2 FFMA 0 0\n0040 ffffffff 1 R2 FFMA 1 R2 0\n"
      "0040 ffffffff 1 R2 FFMA 1 R2 0\n0040 ffffffff 1 R2 FFMA 1 R2 0\n"
      "0040 ffffffff 1 R2 FFMA 1 R2 0\n0010 ffffffff 0 BAR.SYNC 0 0\n"
      "0050 ffffffff 1 R3 IADD3 0 0\n"
      "warp = 1\ninsts = 2\n0010 ffffffff 0 BAR.SYNC 0 0\n0020 ffffffff 1 R1 IADD3 0 0\n"
      "#END_TB\n";
  static const char chain_second[] =
      "-kernel name = bar2s\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\n"
      "warp = 0\ninsts = 2\n0010 ffffffff 0 BAR.SYNC 0 0\n0020 ffffffff 1 R1 IADD3 0 0\n"
      "warp = 1\ninsts = 7\n0030 ffffffff 1 R2 FFMA 0 0\n0040 ffffffff 1 R2 FFMA 1 R2 0\n"
      "0040 ffffffff 1 R2 FFMA 1 R2 0\n0040 ffffffff 1 R2 FFMA 1 R2 0\n"
      "0040 ffffffff 1 R2 FFMA 1 R2 0\n0010 ffffffff 0 BAR.SYNC 0 0\n"
      "0050 ffffffff 1 R3 IADD3 0 0\n#END_TB\n";
  static const double want[2][9][2] = {
      {{0, 0}, {0, 1}, {4, 0}, {8, 0}, {12, 0}, {16, 0}, {17, 0}, {17, 1}, {18, 0}},
      {{0, 0}, {0, 1}, {4, 1}, {8, 1}, {12, 1}, {16, 1}, {17, 1}, {18, 0}, {18, 1}}};
  static const int policies[2] = {GP_SIM_LRR, GP_SIM_GTO};
  int order, p;
  for (order = 0; order < 2; order++) {
    gp_kernel *k = parse(order == 0 ? chain_first : chain_second);
    if (k == NULL) {
      CHECK(0);
      return;
    }
    for (p = 0; p < 2; p++) {
      sim_setup c = sim_setup_of(1, 2, 1);
      gp_sim_result r;
      gp_error err;
      issue_log log;
      uint32_t i;
      memset(&log, 0, sizeof log);
      c.m.ops[GP_OP_OTHER].latency = 1;
      c.o.policy = policies[p];
      c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
      CHECK(run(k, &c, &r, &err) == GP_OK);
      CHECK_EQ_INT(log.n, 9);
      for (i = 0; i < log.n && i < 9; i++) {
        CHECK_NEAR(log.cycle[i], want[order][i][0], 0);
        CHECK_EQ_INT(log.warp[i], (int)want[order][i][1]);
      }
      done(&r);
    }
    gp_kernel_free(k);
  }
}

/* A look that issues nothing is not due at the next cycle: its scheduler
 * sleeps until its warp can issue, and with nothing else due the loop
 * jumps there.  One warp of two independent IADD3s whose block's launch
 * takes 2.5 cycles: the look at 0 finds it waiting for its launch, and the
 * issues come at 2.5 and 3.5 (a scheduler kept due after that look would
 * step the loop through 1, 2 and 3 and issue at 3 and 4). */
static void test_look_without_issue_sleeps(void) {
  static const char text[] =
      "-kernel name = late\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\n"
      "warp = 0\ninsts = 2\n0010 ffffffff 1 R1 IADD3 0 0\n0020 ffffffff 1 R2 IADD3 0 0\n"
      "#END_TB\n";
  static const int policies[2] = {GP_SIM_LRR, GP_SIM_GTO};
  gp_kernel *k = parse(text);
  int p;
  if (k == NULL) {
    CHECK(0);
    return;
  }
  for (p = 0; p < 2; p++) {
    sim_setup c = config();
    gp_sim_result r;
    gp_error err;
    issue_log log;
    memset(&log, 0, sizeof log);
    c.m.launch.block_cycles = 2.5;
    c.o.policy = policies[p];
    c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
    CHECK(run(k, &c, &r, &err) == GP_OK);
    CHECK_EQ_INT(log.n, 2);
    CHECK_NEAR(log.cycle[0], 2.5, 0);
    CHECK_NEAR(log.cycle[1], 3.5, 0);
    done(&r);
  }
  gp_kernel_free(k);
}

static gp_kernel *synth(uint32_t threads, uint32_t trips, const gp_synth_op *body, uint32_t n) {
  static const gp_synth_stream s[1] = {{GP_STREAM_COALESCED, 0x10000, 1 << 22, 4, 1}};
  gp_synth_desc d;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "s");
  d.grid[0] = d.grid[1] = d.grid[2] = 1;
  d.block[0] = threads, d.block[1] = d.block[2] = 1;
  d.trips = trips, d.body = body, d.body_len = n, d.streams = s, d.stream_count = 1;
  d.seed = 1;
  if (gp_synth_generate(&k, &a, &d, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return k;
}

/* Six warps of independent INTs: LRR gives every warp one issue in every
 * six consecutive issues, one per cycle. */
static void test_lrr_fairness(void) {
  gp_synth_op body[1] = {{GP_OP_INT, 0, 0, 0, {0}}};
  gp_kernel *k = synth(6 * 32, 9, body, 1);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  issue_log log;
  uint32_t i;
  memset(&log, 0, sizeof log);
  c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.n, 60);
  for (i = 0; i < log.n; i++) {
    CHECK_EQ_INT(log.warp[i], i % 6);
    CHECK_NEAR(log.cycle[i], i, 0);
  }
  done(&r);
  gp_kernel_free(k);
}

/* Two-level with an active set of one warp: a warp runs until it issues its
 * global load, then the oldest ready pending warp takes its place (the
 * load's consumer is next, so the warp is not ready); a warp comes back when
 * its load has returned.  LRR interleaves instead. */
static void test_two_level_active_set(void) {
  gp_synth_op body[5] = {{GP_OP_INT, 0, 0, 0, {0}},
                         {GP_OP_INT, 0, 0, 0, {0}},
                         {GP_OP_LD_GLOBAL, 4, 0, 0, {0}},
                         {GP_OP_INT, 0, 0, 0, {1}},
                         {GP_OP_INT, 0, 0, 0, {0}}};
  gp_kernel *k = synth(3 * 32, 1, body, 5);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  issue_log log;
  uint32_t i;
  memset(&log, 0, sizeof log);
  c.o.policy = GP_SIM_TWO_LEVEL, c.m.sm.active_warps = 1;
  c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.n, 18);
  for (i = 0; i < 9; i++) { /* 0 0 0 1 1 1 2 2 2 at cycles 0..8 */
    CHECK_EQ_INT(log.warp[i], i / 3);
    CHECK_NEAR(log.cycle[i], i, 0);
  }
  /* then warp 0 again, no earlier than its load's return (> 300 cycles) */
  CHECK_EQ_INT(log.warp[9], 0);
  CHECK(log.cycle[9] > 300);
  CHECK_EQ_INT(log.warp[10], 0);
  CHECK_EQ_INT(log.warp[11], 0); /* its EXIT: it keeps the active place */
  done(&r);
  memset(&log, 0, sizeof log);
  c.o.policy = GP_SIM_LRR;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.warp[0], 0);
  CHECK_EQ_INT(log.warp[1], 1);
  CHECK_EQ_INT(log.warp[2], 2);
  done(&r);
  c.m.sm.active_warps = 0;
  c.o.policy = GP_SIM_TWO_LEVEL;
  CHECK(run(k, &c, &r, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "active set");
  gp_kernel_free(k);
}

/* A pick callback that always takes the youngest candidate; or fails. */
typedef struct pick_state {
  int mode; /* 0 youngest, 1 error, 2 out of range */
  uint32_t calls;
} pick_state;

static int pick_youngest(void *ctx, uint32_t sm, uint32_t sched, double cycle,
                         const gp_sim_candidate *cand, uint32_t n, gp_error *err) {
  pick_state *p = ctx;
  uint32_t i, best = 0;
  (void)sm, (void)sched, (void)cycle;
  p->calls++;
  if (p->mode == 1)
    return gp_error_set(err, "policy says no"), -1;
  if (p->mode == 2)
    return (int)n;
  for (i = 1; i < n; i++)
    if (cand[i].age > cand[best].age)
      best = i;
  return (int)best;
}

static void test_callback_policy(void) {
  gp_synth_op body[1] = {{GP_OP_INT, 0, 0, 0, {0}}};
  gp_kernel *k = synth(3 * 32, 2, body, 1);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  issue_log log;
  pick_state p = {0, 0};
  uint32_t i;
  static const uint32_t order[9] = {2, 2, 2, 1, 1, 1, 0, 0, 0};
  memset(&log, 0, sizeof log);
  c.o.policy = GP_SIM_CALLBACK, c.o.pick = pick_youngest, c.o.pick_ctx = &p;
  c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.n, 9);
  CHECK_EQ_INT(p.calls, 9);
  for (i = 0; i < 9; i++) {
    CHECK_EQ_INT(log.warp[i], order[i]);
    CHECK_NEAR(log.cycle[i], i, 0);
  }
  done(&r);
  p.mode = 1;
  CHECK(run(k, &c, &r, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "policy says no");
  p.mode = 2;
  CHECK(run(k, &c, &r, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "chose candidate 3 of 3");
  c.o.pick = NULL;
  CHECK(run(k, &c, &r, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "pick function");
  gp_kernel_free(k);
}

/* The issuing cycles by PC (per_pc: the PC of each issue recorded at the
 * look, sim.c's issue_picked, only where the per-PC stalls read it): at
 * issue width 1 every issuing cycle issues one warp instruction and is
 * charged whole to its PC, so a PC's issuing cycles are its executions,
 * exactly, under LRR and GTO, on one scheduler and on two; at width 2 (one
 * scheduler) a cycle of n issues gives each issue's PC 1 / n, summed here
 * from the issue observer's log (eight warps of an independent INT, FP32
 * and load, and an SFU on the load: 22 cycles of two issues, of PCs 0, 1
 * and 2). */
static void test_issuing_cycles_by_pc(void) {
  gp_synth_op body[4] = {{GP_OP_INT, 0, 0, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {0}},
                         {GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_SFU, 0, 0, 0, {1}}};
  gp_kernel *k = synth(256, 6, body, 4);
  int run_i;
  for (run_i = 0; run_i < 6; run_i++) {
    sim_setup c = config();
    gp_sim_result r;
    gp_error err;
    issue_log log;
    double share[16] = {0};
    uint32_t i, j, width = run_i < 4 ? 1 : 2;
    memset(&log, 0, sizeof log);
    c.o.policy = run_i % 2 ? GP_SIM_GTO : GP_SIM_LRR;
    c.m.sm.schedulers = run_i / 2 == 1 ? 2 : 1, c.m.sm.issue_width = width;
    c.o.per_pc = 1;
    c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
    CHECK(run(k, &c, &r, &err) == GP_OK);
    CHECK(log.n < 256 && r.pc_count <= 16);
    for (i = 0; i < log.n && width == 2; i++) {
      uint32_t n = 0;
      for (j = 0; j < log.n; j++)
        n += log.cycle[j] == log.cycle[i];
      if (log.pc[i] < 16)
        share[log.pc[i]] += 1.0 / n;
    }
    for (i = 0; i < r.pc_count && i < 16; i++) {
      double issuing = r.pc_stalls[(size_t)i * GP_STALL_COUNT + GP_STALL_ISSUED];
      CHECK_NEAR(issuing, width == 1 ? (double)r.pc_executions[i] : share[i], 1e-12);
    }
    done(&r);
  }
  gp_kernel_free(k);
}

/* Two schedulers, issue width 2: the per-SM and per-PC stalls each add up
 * to every scheduler's cycles, reason by reason, and the PCs' executions
 * to the warp instructions; without per_pc the run is the same, bit for
 * bit, and keeps nothing per PC. */
static void test_stall_sums(void) {
  gp_synth_op body[3] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {1}},
                         {GP_OP_SFU, 0, 0, 0, {1}}};
  gp_kernel *k = synth(256, 6, body, 3);
  sim_setup c = config();
  gp_sim_result r, plain;
  gp_error err;
  double total = 0, per_sm = 0, per_pc = 0, reason[GP_STALL_COUNT] = {0};
  uint64_t executions = 0;
  uint32_t i;
  int j;
  c.m.sm.schedulers = 2, c.m.sm.issue_width = 2;
  c.o.per_pc = 1;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  for (i = 0; i < GP_STALL_COUNT; i++) {
    total += r.stalls[i];
    per_sm += r.sm_stalls[i];
  }
  for (i = 0; i < r.pc_count; i++) {
    executions += r.pc_executions[i];
    for (j = 0; j < GP_STALL_COUNT; j++) {
      per_pc += r.pc_stalls[(size_t)i * GP_STALL_COUNT + (size_t)j];
      reason[j] += r.pc_stalls[(size_t)i * GP_STALL_COUNT + (size_t)j];
    }
  }
  CHECK_NEAR(per_sm, total, 1e-9 * total);
  CHECK_NEAR(r.counters.scheduler_cycles, total, 1e-9 * total);
  CHECK_NEAR(per_pc, total - r.stalls[GP_STALL_IDLE] - r.stalls[GP_STALL_NO_WARP], 1e-9 * total);
  for (j = 0; j < GP_STALL_COUNT; j++)
    if (j != GP_STALL_IDLE && j != GP_STALL_NO_WARP)
      CHECK_NEAR(reason[j], r.stalls[j], 1e-9 * total);
  CHECK_NEAR(reason[GP_STALL_IDLE] + reason[GP_STALL_NO_WARP], 0, 0);
  CHECK_EQ_INT(executions, r.issued);
  CHECK_EQ_INT(r.issued, 8 * (6 * 3 + 1)); /* 8 warps, 6 trips of 3 and an EXIT */
  CHECK_EQ_INT(r.sm_issued[0], r.issued);
  CHECK(r.counters.lsu_busy_cycles >= 8 * 6); /* 8 warps x 6 loads, a line each */
  c.o.per_pc = 0;
  CHECK(run(k, &c, &plain, &err) == GP_OK);
  CHECK(plain.pc_stalls == NULL && plain.pc_executions == NULL && plain.line_stalls == NULL);
  CHECK(plain.cycles == r.cycles && plain.issued == r.issued);
  for (j = 0; j < GP_STALL_COUNT; j++)
    CHECK(plain.stalls[j] == r.stalls[j]);
  done(&plain);
  done(&r);
  gp_kernel_free(k);
}

/* The policies the front-end tests run under: the set-based reasons (LRR,
 * GTO, a callback) and the two-level scan. */
static int pick_first(void *ctx, uint32_t sm, uint32_t sched, double cycle,
                      const gp_sim_candidate *cand, uint32_t n, gp_error *err) {
  (void)ctx, (void)sm, (void)sched, (void)cycle, (void)cand, (void)n, (void)err;
  return 0;
}
static const int policies[4] = {GP_SIM_LRR, GP_SIM_GTO, GP_SIM_TWO_LEVEL, GP_SIM_CALLBACK};
static void set_policy(sim_setup *c, int policy) {
  c->o.policy = policy;
  c->o.pick = policy == GP_SIM_CALLBACK ? pick_first : NULL;
}

/* The scheduler cycles charged to PC `pc` for reason `why` (-1: no such
 * PC). */
static double pc_charge(const gp_kernel *k, const gp_sim_result *r, uint64_t pc, int why) {
  uint32_t i;
  for (i = 0; i < r->pc_count; i++)
    if (k->statics[i].pc == pc)
      return r->pc_stalls[(size_t)i * GP_STALL_COUNT + (size_t)why];
  return -1;
}

/* A warp waiting for its launch is the front end's, not a dependence of
 * its first instruction.  One block of one warp, a chain of four FFMAs
 * (latency 4) and an EXIT; launch 2 + 1 warp x 1 = 3 cycles, warm-up 100:
 * the warp is ready at 103, the FFMAs issue at 103, 107, 111, 115, the
 * EXIT at 116; the kernel ends with the last FFMA's result at 119.  Its
 * 117 scheduler cycles: 103 idle (0-102: W + the launch, charged to no
 * PC), 5 issuing, 9 dependence (104-106, 108-110, 112-114: 3 on each
 * FFMA but the first, which has none). */
static void test_launch_wait_is_idle(void) {
  static const char text[] =
      "-kernel name = warm\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 5\n"
      "0000 ffffffff 1 R1 FFMA 0 0\n0010 ffffffff 1 R2 FFMA 1 R1 0\n"
      "0020 ffffffff 1 R3 FFMA 1 R2 0\n0030 ffffffff 1 R4 FFMA 1 R3 0\n"
      "0040 ffffffff 0 EXIT 0 0\n#END_TB\n";
  gp_kernel *k = parse(text);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  int x;
  if (k == NULL)
    return;
  c.m.launch.block_cycles = 2, c.m.launch.warp_cycles = 1, c.m.launch.warmup_cycles = 100;
  c.o.per_pc = 1;
  for (x = 0; x < 4; x++) {
    set_policy(&c, policies[x]);
    CHECK(run(k, &c, &r, &err) == GP_OK);
    CHECK_NEAR(r.cycles, 119, 0);
    CHECK_NEAR(r.stalls[GP_STALL_IDLE], 103, 0);
    CHECK_NEAR(r.stalls[GP_STALL_ISSUED], 5, 0);
    CHECK_NEAR(r.stalls[GP_STALL_DEPENDENCE], 9, 0);
    CHECK_NEAR(r.stalls[GP_STALL_NO_WARP], 0, 0);
    CHECK_NEAR(pc_charge(k, &r, 0x00, GP_STALL_DEPENDENCE), 0, 0);
    CHECK_NEAR(pc_charge(k, &r, 0x10, GP_STALL_DEPENDENCE), 3, 0);
    CHECK_NEAR(pc_charge(k, &r, 0x20, GP_STALL_DEPENDENCE), 3, 0);
    CHECK_NEAR(pc_charge(k, &r, 0x30, GP_STALL_DEPENDENCE), 3, 0);
    done(&r);
  }
  gp_kernel_free(k);
}

/* A warp waiting for its launch is not resident yet, a finished warp of a
 * live block is.  Three blocks of two warps on one SM of two slots and two
 * schedulers (warp w of a block on scheduler w), launch 10 a block, no
 * warm-up: blocks 0 and 1 are launched by 10 and 20 (one at a time); block
 * 0's two EXITs issue at 10 and retire it at 11; block 2 takes its slot,
 * launched by 30 (the launcher is busy to 20), two EXITs at 30.  Block 1:
 * an EXIT on scheduler 0 at 20, a chain of eight FFMAs on scheduler 1 at
 * 20, 24, ..., 48 (block 2's EXIT fits at 30), its EXIT at 49; the kernel
 * ends at 52.  Scheduler 0, 50 cycles: idle 0-9 and 11-19 (only launches
 * to wait for), issuing at 10, 20, 30, and no eligible warp 21-29 (block
 * 1's finished warp is resident; block 2's is still launching) and 31-49.
 * Scheduler 1: idle 0-9 and 11-19, eleven issues, the chain's 20
 * dependence cycles (3 between FFMAs, 1 at 29 and 31 around block 2's
 * EXIT). */
static void test_launch_wait_beside_a_finished_warp(void) {
  static const char text[] =
      "-kernel name = tail\n-grid dim = (3,1,1)\n-block dim = (64,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0100 ffffffff 0 EXIT 0 0\n"
      "warp = 1\ninsts = 1\n0100 ffffffff 0 EXIT 0 0\n#END_TB\n"
      "#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 1\n0100 ffffffff 0 EXIT 0 0\n"
      "warp = 1\ninsts = 9\n0000 ffffffff 1 R1 FFMA 0 0\n0010 ffffffff 1 R1 FFMA 1 R1 0\n"
      "0020 ffffffff 1 R1 FFMA 1 R1 0\n0030 ffffffff 1 R1 FFMA 1 R1 0\n"
      "0040 ffffffff 1 R1 FFMA 1 R1 0\n0050 ffffffff 1 R1 FFMA 1 R1 0\n"
      "0060 ffffffff 1 R1 FFMA 1 R1 0\n0070 ffffffff 1 R1 FFMA 1 R1 0\n"
      "0100 ffffffff 0 EXIT 0 0\n#END_TB\n"
      "#BEGIN_TB\nthread block = 2,0,0\nwarp = 0\ninsts = 1\n0100 ffffffff 0 EXIT 0 0\n"
      "warp = 1\ninsts = 1\n0100 ffffffff 0 EXIT 0 0\n#END_TB\n";
  gp_kernel *k = parse(text);
  sim_setup c = sim_setup_of(1, 2, 2);
  gp_sim_result r;
  gp_error err;
  int x;
  if (k == NULL)
    return;
  c.m.launch.block_cycles = 10;
  for (x = 0; x < 4; x++) {
    set_policy(&c, policies[x]);
    CHECK(run(k, &c, &r, &err) == GP_OK);
    CHECK_NEAR(r.cycles, 52, 0);
    CHECK_NEAR(r.stalls[GP_STALL_IDLE], 19 + 19, 0);
    CHECK_NEAR(r.stalls[GP_STALL_ISSUED], 3 + 11, 0);
    CHECK_NEAR(r.stalls[GP_STALL_NO_WARP], 9 + 19, 0);
    CHECK_NEAR(r.stalls[GP_STALL_DEPENDENCE], 20, 0);
    done(&r);
  }
  gp_kernel_free(k);
}

/* Kepler's FP32 pipe: interval 2/3 (48 lanes per scheduler), issue width
 * 2, three warps of 80 independent FFMAs.  The unit's occupancy
 * accumulates: cycle 0 issues 2 (busy to 4/3), cycle 1 issues 1 (to 2),
 * cycle 2 issues 2 (to 10/3), ...: 3 per 2 cycles, so FFMA i issues at
 * 2 floor(i / 3) + (i mod 3 == 2), the last (i = 239) at cycle 159, and
 * the kernel ends with its result at 159 + 9.  (Whole-cycle occupancy
 * would issue one a cycle: 240 cycles.) */
static void test_fractional_interval(void) {
  gp_synth_op body[1] = {{GP_OP_FP32, 0, 0, 0, {0}}};
  gp_kernel *k = synth(3 * 32, 80, body, 1);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  issue_log log;
  uint32_t i, ffma = 0;
  memset(&log, 0, sizeof log);
  c.m.sm.issue_width = 2;
  c.m.ops[GP_OP_FP32].latency = 9, c.m.ops[GP_OP_FP32].interval = 2.0 / 3.0;
  c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.n, 3 * 81); /* and an EXIT per warp */
  for (i = 0; i < log.n; i++) {
    if (log.pc[i] != 0)
      continue; /* the EXITs, on the branch unit */
    CHECK_NEAR(log.cycle[i], 2 * (ffma / 3) + (ffma % 3 == 2), 0);
    ffma++;
  }
  CHECK_EQ_INT(ffma, 240);
  CHECK_NEAR(r.cycles, 159 + 9, 0);
  done(&r);
  gp_kernel_free(k);
}

/* Kepler with INT on the FP32 pipe (int_fp32_shared): a whole-cycle class
 * (INT, interval 1) shares the unit with a fractional one (FP32, 2/3), so
 * its occupancy starts where the fractional work ends, off the grid, and
 * the unit keeps the exact accumulation for it too (occupy_unit's fast
 * path is only for a unit whose every class is whole).  Two warps of FFMA,
 * FFMA, IADD3, FFMA, independent, issue width 2, LRR; the unit's
 * occupancy by hand (acc: where it ends; free: t + floor(acc - t)):
 *   0: w0 FFMA (acc 2/3, free 0), w1 FFMA (4/3, free 1)
 *   1: w0 FFMA (2, free 2)
 *   2: w1 FFMA (8/3, free 2), w0 IADD3 (11/3, free 3)
 *   3: w1 IADD3 (14/3, free 4)
 *   4: w0 FFMA (16/3, free 5)
 *   5: w1 FFMA (6, free 6).
 * (An IADD3 taken as starting at its issue, the occupancy left at 8/3,
 * lets both last FFMAs issue at 4.)  In issue order: (cycle, warp, PC). */
static void test_whole_class_on_a_fractional_unit(void) {
  static const double want[8][3] = {{0, 0, 0}, {0, 1, 0}, {1, 0, 1}, {2, 1, 1},
                                    {2, 0, 2}, {3, 1, 2}, {4, 0, 3}, {5, 1, 3}};
  gp_synth_op body[4] = {{GP_OP_FP32, 0, 0, 0, {0}},
                         {GP_OP_FP32, 0, 0, 0, {0}},
                         {GP_OP_INT, 0, 0, 0, {0}},
                         {GP_OP_FP32, 0, 0, 0, {0}}};
  gp_kernel *k = synth(2 * 32, 1, body, 4);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  issue_log log;
  uint32_t i, n = 0;
  memset(&log, 0, sizeof log);
  c.m.sm.issue_width = 2;
  c.m.sm.int_fp32_shared = 1;
  c.m.ops[GP_OP_FP32].latency = 9, c.m.ops[GP_OP_FP32].interval = 2.0 / 3.0;
  c.m.ops[GP_OP_INT].latency = 4, c.m.ops[GP_OP_INT].interval = 1;
  c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.n, 2 * 5); /* and an EXIT per warp */
  for (i = 0; i < log.n; i++) {
    if (log.pc[i] >= 4)
      continue; /* the EXITs, on the branch unit */
    if (n < 8) {
      CHECK_NEAR(log.cycle[i], want[n][0], 0);
      CHECK_EQ_INT(log.warp[i], (int)want[n][1]);
      CHECK_EQ_INT(log.pc[i], (int)want[n][2]);
    }
    n++;
  }
  CHECK_EQ_INT(n, 8);
  done(&r);
  gp_kernel_free(k);
}

/* A warp whose next instruction is ready at its issue stays in the ready
 * sets and moves to the next instruction's unit (sched_requeue_w).  Two
 * warps of an IADD3 and an independent MUFU (SFU interval 8), issue width
 * 1, LRR, by hand: 0 w0 IADD3 (its MUFU ready at once: the SFU's set);
 * 1 w1 IADD3; 2 w0 MUFU (the SFU busy to 10); 3 w0 EXIT (w1's MUFU waits
 * for the SFU); 10 w1 MUFU; 11 w1 EXIT.  (A warp left in the IADD3's unit
 * set issues its MUFU when the INT unit is free: w1's at 3.)  In issue
 * order: (cycle, warp, PC). */
static void test_ready_warp_moves_to_its_next_unit(void) {
  static const double want[6][3] = {{0, 0, 0}, {1, 1, 0}, {2, 0, 1},
                                    {3, 0, 2}, {10, 1, 1}, {11, 1, 2}};
  gp_synth_op body[2] = {{GP_OP_INT, 0, 0, 0, {0}}, {GP_OP_SFU, 0, 0, 0, {0}}};
  gp_kernel *k = synth(2 * 32, 1, body, 2);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  issue_log log;
  uint32_t i;
  memset(&log, 0, sizeof log);
  c.m.sm.issue_width = 1;
  c.m.ops[GP_OP_INT].latency = 4, c.m.ops[GP_OP_INT].interval = 1;
  c.m.ops[GP_OP_SFU].latency = 20, c.m.ops[GP_OP_SFU].interval = 8;
  c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.n, 6);
  for (i = 0; i < log.n && i < 6; i++) {
    CHECK_NEAR(log.cycle[i], want[i][0], 0);
    CHECK_EQ_INT(log.warp[i], (int)want[i][1]);
    CHECK_EQ_INT(log.pc[i], (int)want[i][2]);
  }
  done(&r);
  gp_kernel_free(k);
}

/* A warp that retires gives its position to the next block's warp within
 * its own issue (issue() takes it out of the ready sets first): one block
 * slot, no launch costs, three blocks of one warp with only an EXIT of
 * latency 0.  Block b's EXIT completes at its issue, cycle b, so its slot
 * is free then and block b + 1's warp is ready in the same cycle, at the
 * same position: it issues at b + 1.  (Taken out after the retirement,
 * the new warp would lose its place in the ready sets and never issue.) */
static void test_retiring_warp_gives_its_position(void) {
  static const char text[] =
      "-kernel name = exits\n-grid dim = (3,1,1)\n-block dim = (32,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n#END_TB\n"
      "#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n#END_TB\n"
      "#BEGIN_TB\nthread block = 2,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n#END_TB\n";
  gp_kernel *k = parse(text);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  issue_log log;
  uint32_t i;
  if (k == NULL)
    return;
  memset(&log, 0, sizeof log);
  c.m.ops[GP_OP_BRANCH].latency = 0;
  c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.n, 3);
  for (i = 0; i < log.n && i < 3; i++) {
    CHECK_NEAR(log.cycle[i], i, 0);
    CHECK_EQ_INT(log.warp[i], i);
  }
  done(&r);
  gp_kernel_free(k);
}

/* The wait for an instruction's producers is charged to memory when the
 * producer done last is a load, whichever of its distances that is
 * (prepare_next reads the distances as one word and the load bits beside
 * them).  One warp: LDG, IADD3, then an FFMA on both (distances 1, the
 * IADD3, and 2, the load): issues at 0 and 1, the FFMA waits for the load
 * from 2 to its issue L, the EXIT at L + 1; so memory L - 2 cycles and no
 * dependence (with the load bit of distance 1 read for both, all L - 2
 * would be dependence). */
static void test_last_producer_is_a_load(void) {
  gp_synth_op body[3] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}},
                         {GP_OP_INT, 0, 0, 0, {0}},
                         {GP_OP_FP32, 0, 0, 0, {1, 2}}};
  gp_kernel *k = synth(32, 1, body, 3);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  issue_log log;
  memset(&log, 0, sizeof log);
  c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.n, 4);
  CHECK_NEAR(log.cycle[1], 1, 0);
  CHECK(log.cycle[2] > 100); /* the load's round trip to L2 and DRAM */
  CHECK_NEAR(r.stalls[GP_STALL_MEMORY], log.cycle[2] - 2, 0);
  CHECK_NEAR(r.stalls[GP_STALL_DEPENDENCE], 0, 0);
  done(&r);
  gp_kernel_free(k);
}

/* Counts the issues it observes. */
static void count_issue(void *ctx, uint32_t sm, uint32_t sched, double cycle, uint32_t warp,
                        uint32_t pc_index) {
  (void)sm, (void)sched, (void)cycle, (void)warp, (void)pc_index;
  (*(uint64_t *)ctx)++;
}

/* Whether two runs' results are the same bit for bit (the per-PC arrays
 * are not kept). */
static int same_result(const gp_sim_result *a, const gp_sim_result *b) {
  return a->cycles == b->cycles && a->issued == b->issued && a->sms == b->sms &&
         a->warps == b->warps && memcmp(a->stalls, b->stalls, sizeof a->stalls) == 0 &&
         memcmp(a->sm_cycles, b->sm_cycles, a->sms * sizeof *a->sm_cycles) == 0 &&
         memcmp(a->sm_issued, b->sm_issued, a->sms * sizeof *a->sm_issued) == 0 &&
         memcmp(a->sm_stalls, b->sm_stalls, a->sms * GP_STALL_COUNT * sizeof(double)) == 0 &&
         memcmp(a->warp_done, b->warp_done, a->warps * sizeof *a->warp_done) == 0 &&
         memcmp(&a->counters, &b->counters, sizeof a->counters) == 0 &&
         memcmp(&a->memory, &b->memory, sizeof a->memory) == 0;
}

/* An on_issue observer sends every class through issue()'s rare path
 * (sim.c's sim_class.rare), so the by-hand tests above check that path;
 * without one, a compute class on a unit of whole cycles takes the short
 * path (occupy_whole, no memory, barrier or LSU test).  Both must give the
 * same run bit for bit: three blocks of four warps (one SM of two slots
 * and two schedulers: a block retires and the third is placed) over a mix
 * of every path (FP32 on Kepler's 2/3-cycle pipe shared with INT; IMAD and
 * MUFU of whole cycles; a global load and its consumer, a store, a shared
 * load of two bank passes, an asynchronous copy and its DEPBAR; a
 * barrier), under LRR, GTO and two-level (an active set of 2), with and
 * without an observer: the same cycles, stalls, occupancies, memory
 * statistics and warp ends, and the observer sees every issue. */
static void test_observer_changes_nothing(void) {
  static const gp_synth_stream streams[2] = {{GP_STREAM_COALESCED, 0x10000, 1 << 22, 4, 1},
                                             {GP_STREAM_SHARED, 0, 4096, 8, 1}};
  static const gp_synth_op body[12] = {
      {GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {1}},
      {GP_OP_INT, 0, 0, 0, {0}},       {GP_OP_FP32, 0, 0, 0, {2}},
      {GP_OP_SFU, 0, 0, 0, {1}},       {GP_OP_IMAD, 0, 0, 0, {0}},
      {GP_OP_LD_SHARED, 4, 1, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {1, 7}},
      {GP_OP_ST_GLOBAL, 4, 0, 0, {1}}, {GP_OP_LDGSTS, 4, 0, 0, {0}},
      {GP_OP_DEPBAR, 0, 0, 0, {0}},    {GP_OP_BARRIER, 0, 0, 0, {0}}};
  static const int policy[3] = {GP_SIM_LRR, GP_SIM_GTO, GP_SIM_TWO_LEVEL};
  gp_synth_desc d;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  int p;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "paths");
  d.grid[0] = 3, d.grid[1] = d.grid[2] = 1;
  d.block[0] = 4 * 32, d.block[1] = d.block[2] = 1;
  d.shmem = 4096;
  d.trips = 6, d.body = body, d.body_len = 12, d.streams = streams, d.stream_count = 2;
  d.seed = 3;
  if (gp_synth_generate(&k, &a, &d, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  CHECK(k != NULL);
  if (k == NULL)
    return;
  for (p = 0; p < 3; p++) {
    sim_setup c = sim_setup_of(1, 2, 2);
    gp_sim_result plain, watched;
    uint64_t seen = 0;
    c.o.policy = (gp_sim_policy)policy[p];
    c.m.sm.issue_width = 2, c.m.sm.active_warps = 2, c.m.sm.int_fp32_shared = 1;
    c.m.ops[GP_OP_FP32].latency = 9, c.m.ops[GP_OP_FP32].interval = 2.0 / 3.0;
    c.m.ops[GP_OP_SFU].latency = 20, c.m.ops[GP_OP_SFU].interval = 4;
    CHECK(run(k, &c, &plain, &err) == GP_OK);
    c.o.on_issue = count_issue, c.o.on_issue_ctx = &seen;
    CHECK(run(k, &c, &watched, &err) == GP_OK);
    CHECK(same_result(&plain, &watched));
    CHECK_EQ_INT(seen, plain.issued);
    CHECK_EQ_INT(plain.issued, 3 * 4 * (6 * 12 + 1)); /* and an EXIT per warp */
    /* the LSU's count, and the shared stride of 8 bytes in two passes */
    CHECK(plain.counters.lsu_busy_cycles > 0 && plain.counters.bank_conflicts > 0);
    done(&plain);
    done(&watched);
  }
  gp_kernel_free(k);
}

/* GTO keeps the last issued warp while it can issue, even where an older
 * one is ready too (the greedy warp is the scheduler's last issued
 * position).  Two warps, FFMA latency 4, issue width 1: w0's second FFMA
 * needs its first; w1's four FFMAs are independent.  0: w0 (the oldest);
 * 1-3: w1 (w0 waits to 4); 4: w0 is ready but w1, the greedy warp, keeps
 * issuing (its FFMA, then its EXIT at 5); 6-9: w0's last four.  (The
 * oldest warp at 4 instead would give w0 there, as LRR does.) */
static void test_gto_keeps_the_greedy_warp(void) {
  static const char text[] =
      "-kernel name = greedy\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 5\n"
      "0000 ffffffff 1 R1 FFMA 0 0\n0010 ffffffff 1 R2 FFMA 1 R1 0\n"
      "0020 ffffffff 1 R3 FFMA 0 0\n0030 ffffffff 1 R4 FFMA 0 0\n0040 ffffffff 0 EXIT 0 0\n"
      "warp = 1\ninsts = 5\n"
      "0000 ffffffff 1 R1 FFMA 0 0\n0010 ffffffff 1 R2 FFMA 0 0\n"
      "0020 ffffffff 1 R3 FFMA 0 0\n0030 ffffffff 1 R4 FFMA 0 0\n0040 ffffffff 0 EXIT 0 0\n"
      "#END_TB\n";
  static const uint32_t gto[10] = {0, 1, 1, 1, 1, 1, 0, 0, 0, 0};
  gp_kernel *k = parse(text);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  issue_log log;
  uint32_t i;
  if (k == NULL) {
    CHECK(0);
    return;
  }
  memset(&log, 0, sizeof log);
  c.o.policy = GP_SIM_GTO;
  c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.n, 10);
  for (i = 0; i < log.n && i < 10; i++) {
    CHECK_NEAR(log.cycle[i], i, 0);
    CHECK_EQ_INT(log.warp[i], gto[i]);
  }
  done(&r);
  memset(&log, 0, sizeof log);
  c.o.policy = GP_SIM_LRR; /* round-robin: w0 at 4, as soon as it is ready */
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.n, 10);
  if (log.n == 10) {
    CHECK_NEAR(log.cycle[4], 4, 0);
    CHECK_EQ_INT(log.warp[4], 0);
  }
  done(&r);
  gp_kernel_free(k);
}

/* A warp waiting right after its issue is charged to its last producer's
 * kind: a load's consumer to memory, an FFMA's to a dependence.  One warp
 * of a global load, an FFMA on it, an FFMA on that (latency 4) and an
 * EXIT, one scheduler, no launch costs: the load issues at 0, the first
 * FFMA at the load's return c (1 .. c - 1 memory, on that FFMA's PC), the
 * second at c + 4 (3 dependence cycles on its PC), the EXIT at c + 5;
 * c + 6 scheduler cycles.  The same under LRR and GTO. */
static void test_issued_warp_waits_for_its_producer_kind(void) {
  gp_synth_op body[3] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {1}},
                         {GP_OP_FP32, 0, 0, 0, {1}}};
  gp_kernel *k = synth(32, 1, body, 3);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  issue_log log;
  int x;
  c.o.per_pc = 1;
  c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
  for (x = 0; x < 2; x++) {
    double back;
    memset(&log, 0, sizeof log);
    c.o.policy = x == 0 ? GP_SIM_LRR : GP_SIM_GTO;
    CHECK(run(k, &c, &r, &err) == GP_OK);
    CHECK_EQ_INT(log.n, 4);
    if (log.n != 4) {
      done(&r);
      continue;
    }
    back = log.cycle[1];
    CHECK(back > 100); /* an L2 latency of 100 at least */
    CHECK_NEAR(log.cycle[0], 0, 0);
    CHECK_NEAR(log.cycle[2], back + 4, 0);
    CHECK_NEAR(log.cycle[3], back + 5, 0);
    CHECK_NEAR(r.stalls[GP_STALL_ISSUED], 4, 0);
    CHECK_NEAR(r.stalls[GP_STALL_MEMORY], back - 1, 0);
    CHECK_NEAR(r.stalls[GP_STALL_DEPENDENCE], 3, 0);
    CHECK_NEAR(r.counters.scheduler_cycles, back + 6, 0);
    CHECK_NEAR(r.pc_stalls[(size_t)log.pc[1] * GP_STALL_COUNT + GP_STALL_MEMORY], back - 1, 0);
    CHECK_NEAR(r.pc_stalls[(size_t)log.pc[2] * GP_STALL_COUNT + GP_STALL_DEPENDENCE], 3, 0);
    done(&r);
  }
  gp_kernel_free(k);
}

/* A pending warp keeps its next instruction's unit bit (state.h), so a
 * unit's ready warps are its set within ready_any.  Two warps of an INT
 * (latency 4, interval 4), an SFU on it (latency 20, interval 8) and an
 * EXIT, one LRR scheduler issuing one a cycle: w0's INT at 0; at 1-3 w1's
 * INT waits for the INT unit while w0 waits for its INT with the SFU next:
 * a unit stall (ranked above the dependence), not the SFU's, as no ready
 * warp wants the SFU; w1's INT at 4, w0's SFU at 5 (the SFU busy to 13),
 * w0's EXIT at 6; from 7 w1 waits for its INT (ready at 8) and then the
 * SFU, charged to the dependence the reason found at 7 (6 cycles); w1's
 * SFU at 13, its EXIT at 14. */
static void test_pending_warp_keeps_its_unit(void) {
  static const double want[6][2] = {{0, 0}, {1, 4}, {0, 5}, {0, 6}, {1, 13}, {1, 14}};
  gp_synth_op body[2] = {{GP_OP_INT, 0, 0, 0, {0}}, {GP_OP_SFU, 0, 0, 0, {1}}};
  gp_kernel *k = synth(2 * 32, 1, body, 2);
  sim_setup c = config();
  gp_sim_result r;
  gp_error err;
  issue_log log;
  uint32_t i;
  memset(&log, 0, sizeof log);
  c.m.sm.issue_width = 1;
  c.m.ops[GP_OP_INT].latency = 4, c.m.ops[GP_OP_INT].interval = 4;
  c.m.ops[GP_OP_SFU].latency = 20, c.m.ops[GP_OP_SFU].interval = 8;
  c.o.on_issue = log_issue, c.o.on_issue_ctx = &log;
  CHECK(run(k, &c, &r, &err) == GP_OK);
  CHECK_EQ_INT(log.n, 6);
  for (i = 0; i < log.n && i < 6; i++) {
    CHECK_EQ_INT(log.warp[i], (int)want[i][0]);
    CHECK_NEAR(log.cycle[i], want[i][1], 0);
  }
  CHECK_NEAR(r.stalls[GP_STALL_UNIT], 3, 0);
  CHECK_NEAR(r.stalls[GP_STALL_SFU], 0, 0);
  CHECK_NEAR(r.stalls[GP_STALL_DEPENDENCE], 6, 0);
  CHECK_NEAR(r.stalls[GP_STALL_ISSUED], 6, 0);
  done(&r);
  gp_kernel_free(k);
}

/* The reason and next chance of a scheduler by hand from its sets
 * (sched.h's sched_reason_from_sets), a scheduler of 3 positions in one
 * word, LRR, built field by field: positions 0 and 1 (unit INT) wait for
 * loads due at 50 and 40, position 2 (unit FP32) for a dependence due at
 * 30.  After the last position's issue (rr 2) the scan starts at
 * the count, 3, and wraps to position 0 (rr_start on one word is rr + 1
 * untested: first_from wraps); after rr 0 it finds 1.  No unit busy: the
 * next chance is the soonest pending warp's, 30 (no ready warp: taken
 * without a comparison).  The FP32 unit busy to 60: position 2's 30 waits
 * for it (each pending warp's unit read from the warp), so 40.  Then
 * position 2 ready with the FP32 unit busy to 35: a unit stall, next chance
 * 35, before the soonest pending 40. */
static void test_reason_from_sets_by_hand(void) {
  uint64_t bits[SET_COUNT + 1];
  warp_state warps[3];
  pend_entry room[6];
  sched_state q;
  double when;
  uint32_t p;
  memset(bits, 0, sizeof bits);
  memset(warps, 0, sizeof warps);
  memset(&q, 0, sizeof q);
  q.count = 3, q.words = 1, q.bits = bits;
  q.why_pcs = (uint32_t *)(bits + SET_COUNT);
  q.warps = warps, q.warp_step = sizeof(warp_state);
  q.pending = q.pending_mem = room;
  q.next_due = INFINITY;
  q.reason_pcs = 1; /* as in a per-PC run: every reason records its PC */
  for (p = 0; p < 3; p++)
    warps[p].pc_index = 10 + p, warps[p].unit = p < 2 ? UNIT_INT : UNIT_FMA;
  pending_insert(&q, 50, 0, SET_PEND_MEM);
  pending_insert(&q, 40, 1, SET_PEND_MEM);
  pending_insert(&q, 30, 2, SET_PEND_DEP);
  set_of(&q, SET_PEND_MEM)[0] = 3, set_of(&q, SET_PEND_DEP)[0] = 4;
  set_of(&q, UNIT_INT)[0] = 3, set_of(&q, UNIT_FMA)[0] = 4;
  CHECK_NEAR(q.next_due, 30, 0);
  q.rr = 2;
  when = sched_reason_from_sets(&q, units_busy(&q, 20), 1, GP_SIM_LRR, 0);
  CHECK_NEAR(when, 30, 0);
  CHECK_EQ_INT(q.why, GP_STALL_MEMORY);
  CHECK_EQ_INT(q.why_pc_count, 1);
  CHECK_EQ_INT(q.why_pcs[0], 10);
  q.rr = 0;
  when = sched_reason_from_sets(&q, units_busy(&q, 20), 1, GP_SIM_LRR, 0);
  CHECK_NEAR(when, 30, 0);
  CHECK_EQ_INT(q.why_pcs[0], 11);
  q.unit_free[UNIT_FMA] = q.latest_free = 60;
  when = sched_reason_from_sets(&q, units_busy(&q, 20), 1, GP_SIM_LRR, 0);
  CHECK_NEAR(when, 40, 0);
  /* position 2 promoted: ready, its unit busy to 35 */
  q.pending_count = 2, q.next_due = 40;
  set_of(&q, SET_PEND_DEP)[0] = 0, set_of(&q, SET_READY_ANY)[0] = 4;
  q.unit_free[UNIT_FMA] = q.latest_free = 35;
  when = sched_reason_from_sets(&q, units_busy(&q, 20), 1, GP_SIM_LRR, 1);
  CHECK_NEAR(when, 35, 0);
  CHECK_EQ_INT(q.why, GP_STALL_UNIT);
  CHECK_EQ_INT(q.why_pcs[0], 12);
  /* without per-PC stalls a reason other than the LSU's reads no PC */
  q.reason_pcs = 0, q.why_pcs[0] = 99;
  sched_reason_from_sets(&q, units_busy(&q, 20), 1, GP_SIM_LRR, 1);
  CHECK_EQ_INT(q.why_pcs[0], 99);
  CHECK_EQ_INT(q.why_pc_count, 1);
  /* positions 1 and 2 ready at 20, INT busy to 25 and FMA to 35: the
   * busy units' ready warps (sched.h reads only the units busy at t) give
   * 25 and a unit stall of position 1, the first from rr_start's 1 */
  q.rr = 0, q.reason_pcs = 1;
  q.pending_count = 1, q.next_due = 50;
  set_of(&q, SET_PEND_MEM)[0] = 1, set_of(&q, SET_READY_ANY)[0] = 6;
  q.unit_free[UNIT_INT] = 25;
  when = sched_reason_from_sets(&q, units_busy(&q, 20), 1, GP_SIM_LRR, 1);
  CHECK_NEAR(when, 25, 0);
  CHECK_EQ_INT(q.why, GP_STALL_UNIT);
  CHECK_EQ_INT(q.why_pcs[0], 11);
  CHECK_NEAR(sched_reason_from_sets(&q, units_busy(&q, 20), 1, GP_SIM_GTO, 1), 25, 0);
  CHECK_EQ_INT(q.why_pcs[0], 11);
  /* INT free again by 30 (a look there would have issued position 1):
   * with only FMA busy its warp decides, 35 */
  set_of(&q, SET_READY_ANY)[0] = 4;
  CHECK_NEAR(sched_reason_from_sets(&q, units_busy(&q, 30), 1, GP_SIM_LRR, 1), 35, 0);
  CHECK_EQ_INT(q.why_pcs[0], 12);
}

/* The units busy at t (sched.h's units_busy, SSE2 two units a compare
 * where the compiler has it): a unit is busy while unit_free is above t,
 * free at it; every unit's bit in its place. */
static void test_units_busy_by_hand(void) {
  sched_state q;
  uint32_t u;
  memset(&q, 0, sizeof q);
  CHECK_EQ_INT((int)units_busy(&q, 0), 0);
  for (u = 0; u < UNIT_COUNT; u++) {
    q.unit_free[u] = 10 + u;
    CHECK_EQ_INT((int)units_busy(&q, 9), (int)((2u << u) - 1));
    CHECK_EQ_INT((int)units_busy(&q, 9.5 + u), (int)(1u << u));
    CHECK_EQ_INT((int)units_busy(&q, 10 + u), 0); /* free at its unit_free */
  }
  /* at 12.5: units 3 to 7 (free at 13 to 17) busy, 0 to 2 free */
  CHECK_EQ_INT((int)units_busy(&q, 12.5), 0xf8);
  q.unit_free[UNIT_LSU] = INFINITY, q.unit_free[UNIT_INT] = 100;
  CHECK_EQ_INT((int)units_busy(&q, 50), (1 << UNIT_LSU) | (1 << UNIT_INT));
}

/* The cycles a scheduler waits for the LSU with a store next
 * (counters.store_lsu_stall_cycles) come from the LSU reason's PC, which a
 * run without per-PC stalls records too (sched_set_reason reads no other
 * reason's PC there).  Eight warps of an INT and two global stores of 16
 * bytes a lane (four lines each), one scheduler: the stores keep the LSU
 * busy and the warps wait for it with a store next; the counter is above 0
 * and the same with and without per-PC stalls, where the scheduler's first
 * PC (the INT, what a PC never recorded reads) would count none. */
static void test_store_lsu_stall_without_per_pc(void) {
  gp_synth_op body[3] = {{GP_OP_INT, 0, 0, 0, {0}}, {GP_OP_ST_GLOBAL, 16, 0, 0, {0}},
                         {GP_OP_ST_GLOBAL, 16, 0, 0, {0}}};
  gp_kernel *k = synth(256, 6, body, 3);
  sim_setup c = config();
  gp_sim_result with_pcs, without;
  gp_error err;
  c.o.per_pc = 1;
  CHECK(run(k, &c, &with_pcs, &err) == GP_OK);
  c.o.per_pc = 0;
  CHECK(run(k, &c, &without, &err) == GP_OK);
  CHECK(with_pcs.stalls[GP_STALL_LSU] > 0);
  CHECK(with_pcs.counters.store_lsu_stall_cycles > 0);
  CHECK(with_pcs.counters.store_lsu_stall_cycles <= with_pcs.stalls[GP_STALL_LSU]);
  CHECK(without.counters.store_lsu_stall_cycles == with_pcs.counters.store_lsu_stall_cycles);
  CHECK(without.stalls[GP_STALL_LSU] == with_pcs.stalls[GP_STALL_LSU]);
  done(&without);
  done(&with_pcs);
  gp_kernel_free(k);
}

int main(void) {
  RUN(test_reason_from_sets_by_hand); /* first: a broken wrap hangs the others */
  RUN(test_units_busy_by_hand);
  RUN(test_ready_warp_moves_to_its_next_unit);
  RUN(test_retiring_warp_gives_its_position);
  RUN(test_fig3_by_hand);
  RUN(test_whole_class_on_a_fractional_unit);
  RUN(test_lrr_fairness);
  RUN(test_fractional_interval);
  RUN(test_two_level_active_set);
  RUN(test_callback_policy);
  RUN(test_stall_sums);
  RUN(test_launch_wait_is_idle);
  RUN(test_launch_wait_beside_a_finished_warp);
  RUN(test_observer_changes_nothing);
  RUN(test_last_producer_is_a_load);
  RUN(test_gto_keeps_the_greedy_warp);
  RUN(test_issued_warp_waits_for_its_producer_kind);
  RUN(test_pending_warp_keeps_its_unit);
  RUN(test_store_lsu_stall_without_per_pc);

  RUN(test_barrier_release_adds_a_pick_in_its_cycle);
  RUN(test_barrier_release_wakes_a_later_scheduler);
  RUN(test_look_without_issue_sleeps);
  RUN(test_issuing_cycles_by_pc);
  return gp_test_finish();
}
