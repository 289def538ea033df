/* GPUMech over a traced kernel (gpumech.h) without Lua: the per-PC static
 * inputs, every warp's features from the interval pass on a synthetic
 * kernel (dependent chains of known length: N x L by hand), one warp's
 * profile, the representative warp by k-means, MAX, MIN and RANDOM, and a
 * whole launch on a machine (inputs, waves, block dispatch, the floor at
 * the hard bounds) and its per-PC costs by hand. */
#include "bounds_pass.h"
#include "gp_test.h"
#include "gpumech/gpumech.h"
#include "synth.h"

#include <stdlib.h>
#include <string.h>

static gp_alloc A;

/* A kernel of `warps` warps (one block), each running a body `trips` times
 * (plus a seeded 0..spread extra), then EXIT. */
static gp_kernel *make(uint32_t warps, const gp_synth_op *body, uint32_t n, uint32_t trips,
                       uint32_t spread) {
  static const gp_synth_stream stream = {GP_STREAM_COALESCED, 0x1000, 1 << 20, 0, 1};
  gp_synth_desc d;
  gp_error err;
  gp_kernel *k = NULL;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "gm");
  d.grid[0] = d.grid[1] = d.grid[2] = 1;
  d.block[0] = 32 * warps, d.block[1] = d.block[2] = 1;
  d.body = body, d.body_len = n, d.trips = trips, d.trip_spread = spread;
  d.streams = &stream, d.stream_count = 1, d.seed = 3;
  if (gp_synth_generate(&k, &A, &d, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return k;
}

/* Arrays for a kernel's static PCs, every latency `lat`. */
typedef struct pcs_store {
  gp_gm_pcs p;
  double v[5 * 8], mix[8 * GP_MW_MIX_N];
  int32_t cause[8];
} pcs_store;

static void pcs_of(const gp_kernel *k, pcs_store *s, double lat) {
  uint32_t i;
  memset(s, 0, sizeof *s);
  s->p.n = k->static_count;
  s->p.latency = s->v, s->p.l1_miss_reqs = s->v + 8, s->p.dram_reqs = s->v + 16;
  s->p.mem_insts = s->v + 24, s->p.mix = s->mix, s->p.cause = s->cause;
  for (i = 0; i < s->p.n; i++) {
    s->p.latency[i] = lat;
    s->mix[i * GP_MW_MIX_N + GP_MW_MIX_DEP] = -1; /* must be cleared */
  }
  gp_gm_pcs_fill_static(k, &s->p);
}

static void test_static_inputs(void) {
  const gp_synth_op body[] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_INT, 0, 0, 0, {1}}};
  gp_kernel *k = make(1, body, 2, 3, 0);
  pcs_store s;
  uint32_t i;
  CHECK(k != NULL);
  if (!k)
    return;
  CHECK_EQ_INT(k->static_count, 3); /* the body and EXIT */
  pcs_of(k, &s, 4);
  CHECK_NEAR(s.p.mem_insts[0], 1, 0);
  CHECK_NEAR(s.p.mem_insts[1], 0, 0);
  CHECK_NEAR(s.p.mem_insts[2], 0, 0);
  for (i = 0; i < 3; i++) {
    CHECK_EQ_INT(s.p.cause[i], i);
    CHECK_NEAR(s.mix[i * GP_MW_MIX_N + GP_MW_MIX_DEP], 0, 0);
  }
  gp_kernel_free(k);
}

/* Each warp: a chain of N dependent INTs (latency 4) and EXIT (latency 4,
 * independent): the chain issues at 0, 4, ..., 4(N-1), EXIT one cycle
 * later and its result is ready at 4N + 1: N + 1 instructions in 4N + 1
 * cycles, warp performance (Eq. 5) (N + 1) / (4N + 1). */
static void test_features_and_profile(void) {
  const gp_synth_op body[] = {{GP_OP_INT, 0, 0, 0, {1}}};
  gp_kernel *k = make(6, body, 1, 10, 7);
  gp_gm_feature f[6];
  gp_iv_profile prof;
  gp_error err;
  pcs_store s;
  size_t n = 0, i;
  int differ = 0;
  CHECK(k != NULL);
  if (!k)
    return;
  pcs_of(k, &s, 4);
  CHECK(gp_gm_features(k, &s.p, 1, &A, f, &n, &err) == GP_OK);
  CHECK_EQ_INT(n, 6);
  for (i = 0; i < n; i++) {
    double chain = (double)k->warp_len[i] - 1;
    CHECK_EQ_INT(f[i].warp, i);
    CHECK(chain >= 10 && chain <= 17);
    CHECK_NEAR(f[i].insts, chain + 1, 0);
    CHECK_NEAR(f[i].total_cycles, 4 * chain + 1, 0);
    CHECK_NEAR(f[i].warp_perf, (chain + 1) / (4 * chain + 1), 1e-15);
    differ |= k->warp_len[i] != k->warp_len[0];
  }
  CHECK(differ); /* the spread gave the warps different lengths */
  /* one warp's profile keeps its intervals: one per chain instruction (the
   * last also holds EXIT), each followed by 3 stall cycles */
  gp_iv_profile_init(&prof, &A);
  CHECK(gp_gm_profile(&prof, k, 2, &s.p, 1, &err) == GP_OK);
  CHECK_EQ_INT(prof.insts, k->warp_len[2]);
  CHECK_EQ_INT(prof.count, k->warp_len[2] - 1);
  CHECK_NEAR(prof.stall_cycles, 3.0 * (k->warp_len[2] - 1), 0);
  CHECK_NEAR(prof.total_cycles, f[2].total_cycles, 0);
  CHECK_EQ_INT(prof.iv[prof.count - 1].insts, 2);
  /* at half the issue rate a dependent still issues 4 cycles after its
   * producer; EXIT now takes a 2-cycle slot: 4N + 2 */
  CHECK(gp_gm_profile(&prof, k, 2, &s.p, 2, &err) == GP_OK);
  CHECK_NEAR(prof.total_cycles, 4.0 * (k->warp_len[2] - 1) + 2, 0);
  CHECK(gp_gm_profile(&prof, k, 6, &s.p, 1, &err) == GP_ERR);
  CHECK(strstr(err.msg, "warp 6 out of range (the kernel has 6 warps)") != NULL);
  gp_iv_profile_free(&prof);
  gp_kernel_free(k);
}

/* gpush's per-PC inputs through the glue: 6 independent SFU ops (the synth
 * body's one PC), then EXIT, every latency 20, the SFU busy 4 cycles a use.
 * Without unit timing they issue at 0..5, EXIT at 6, done at 26; with it,
 * in every features pass and profile, at 0, 4, ..., 20, EXIT at 21, done at
 * 41; the profile sums the uses. */
static void test_unit_timing(void) {
  const gp_synth_op body[] = {{GP_OP_SFU, 0, 0, 0, {0}}};
  gp_kernel *k = make(1, body, 1, 6, 0);
  gp_gm_feature f[1];
  gp_iv_profile prof;
  gp_error err;
  pcs_store s;
  int8_t unit[8];
  double busy[8], l2[8] = {0};
  size_t n = 0, i;
  CHECK(k != NULL);
  if (!k)
    return;
  pcs_of(k, &s, 20);
  for (i = 0; i < 8; i++)
    unit[i] = -1, busy[i] = 1;
  unit[0] = GP_MW_UNIT_SFU, busy[0] = 4;
  s.p.unit = unit, s.p.unit_busy = busy, s.p.l2_reqs = l2;
  CHECK(gp_gm_features(k, &s.p, 1, &A, f, &n, &err) == GP_OK);
  CHECK_NEAR(f[0].total_cycles, 26, 0);
  s.p.unit_timing = 1;
  CHECK(gp_gm_features(k, &s.p, 1, &A, f, &n, &err) == GP_OK);
  CHECK_NEAR(f[0].total_cycles, 41, 0);
  gp_iv_profile_init(&prof, &A);
  CHECK(gp_gm_profile(&prof, k, 0, &s.p, 1, &err) == GP_OK);
  CHECK_NEAR(prof.total_cycles, f[0].total_cycles, 0);
  CHECK_NEAR(prof.unit_insts[GP_MW_UNIT_SFU], 6, 0);
  CHECK_NEAR(prof.unit_busy[GP_MW_UNIT_SFU], 24, 0);
  gp_iv_profile_free(&prof);
  gp_kernel_free(k);
}

static void test_select(void) {
  /* four similar warps and one outlier: k-means's largest cluster holds the
   * four, its centre (0.25, 100) is nearest warp 1 */
  const gp_gm_feature f[5] = {{0, 0.24, 100, 0}, {1, 0.25, 100, 0}, {2, 0.26, 100, 0},
                              {3, 0.2501, 100, 0}, {4, 1.0, 10, 0}};
  gp_error err;
  size_t best = 99, again = 98;
  CHECK(gp_gm_select(f, 5, GP_GM_SELECT_KMEANS, 1, &A, &best, &err) == GP_OK);
  CHECK_EQ_INT(best, 1);
  CHECK(gp_gm_select(f, 5, GP_GM_SELECT_MAX, 1, &A, &best, &err) == GP_OK);
  CHECK_EQ_INT(best, 4);
  CHECK(gp_gm_select(f, 5, GP_GM_SELECT_MIN, 1, &A, &best, &err) == GP_OK);
  CHECK_EQ_INT(best, 0);
  CHECK(gp_gm_select(f, 5, GP_GM_SELECT_RANDOM, 9, &A, &best, &err) == GP_OK);
  CHECK(gp_gm_select(f, 5, GP_GM_SELECT_RANDOM, 9, &A, &again, &err) == GP_OK);
  CHECK(best < 5);
  CHECK_EQ_INT(best, again); /* seeded */
  CHECK(gp_gm_select(f, 0, GP_GM_SELECT_KMEANS, 1, &A, &best, &err) == GP_ERR);
  CHECK(strstr(err.msg, "no warps") != NULL);
}

/* A machine of `sms` SMs, one scheduler each, every pipeline at latency 4
 * (branches 1), no memory traffic in the kernels below. */
static gp_machine launch_machine(uint32_t sms) {
  gp_machine m;
  int i;
  memset(&m, 0, sizeof m);
  m.gpu.compute_capability = 7.0;
  m.sm.count = sms, m.sm.schedulers = 1, m.sm.issue_width = 1, m.sm.warp_size = 32;
  for (i = 0; i < GP_OP_COMPUTE_COUNT; i++)
    m.ops[i].latency = 4, m.ops[i].interval = 1;
  m.ops[GP_OP_BRANCH].latency = 1;
  m.l1.mshrs = 32, m.l1.line_bytes = 128, m.l1.ways = 4, m.l1.latency = 20;
  m.l2.size_kb = 256, m.l2.line_bytes = 128, m.l2.ways = 8, m.l2.slices = 1, m.l2.latency = 100;
  m.l2.interval = 1, m.shared.banks = 32, m.shared.bank_bytes = 4, m.shared.latency = 20;
  m.constant.latency = 8, m.clock.core_mhz = 1000, m.dram.latency_ns = 200;
  m.dram.channels = 1, m.dram.bandwidth_gbs = 32, m.dram.access_bytes = 32;
  m.dram.efficiency = 1, m.dram.achievable_gbs = 32;
  return m;
}

/* A kernel of `blocks` one-warp blocks, a chain of 10 dependent FFMAs each
 * (latency 4) then EXIT: 11 instructions, the warp done at 40. */
static gp_kernel *chain_blocks(uint32_t blocks) {
  static const gp_synth_op body[] = {{GP_OP_FP32, 0, 0, 0, {1}}};
  gp_synth_desc d;
  gp_error err;
  gp_kernel *k = NULL;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "chain");
  d.grid[0] = blocks, d.grid[1] = d.grid[2] = 1;
  d.block[0] = 32, d.block[1] = d.block[2] = 1;
  d.body = body, d.body_len = 1, d.trips = 10, d.seed = 1;
  if (gp_synth_generate(&k, &A, &d, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return k;
}

/* One launch through the C entry: memsim's replay, the inputs, the
 * representative, the bound counts, the prediction, and with `costs` its
 * per-PC costs. */
static int launch_costs(const gp_kernel *k, const gp_machine *m, gp_mw_equations eq,
                        uint32_t blocks, gp_gm_prediction *p, gp_gm_pc_costs *costs) {
  gp_memsim_config mc;
  gp_memsim_result mem;
  gp_gm_inputs in;
  gp_gm_prepared prep;
  gp_bounds_counts counts;
  gp_gm_options opt;
  gp_iv_profile prof;
  gp_error err;
  int status;
  gp_machine_memsim(m, blocks, k->shmem_bytes, &mc);
  if (gp_memsim_functional(k, &mc, &A, &mem, &err) != GP_OK)
    return GP_ERR;
  status = gp_gm_inputs_build(k, m, &mem, eq, &A, &in, &err);
  if (status == GP_OK)
    status = gp_gm_prepare(k, m, &in, eq, GP_GM_SELECT_KMEANS, 1, &A, &prep, &err);
  if (status == GP_OK)
    status = gp_bounds_count(k, m, blocks, &mem, &A, &counts, &err);
  memset(&opt, 0, sizeof opt);
  opt.model = GP_MW_MT_MSHR_BAND, opt.policy = GP_MW_RR, opt.equations = eq;
  opt.blocks_per_sm = blocks;
  gp_iv_profile_init(&prof, &A);
  if (status == GP_OK)
    status = gp_gm_predict(k, m, &in, &prep, &counts, &opt, &prof, p, &err);
  if (status == GP_OK && costs)
    status = gp_gm_pc_costs_build(k, m, &in, p, &opt, &A, costs, &err);
  if (status != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  gp_iv_profile_free(&prof);
  gp_gm_prepared_free(&prep);
  gp_gm_inputs_free(&in);
  gp_memsim_result_free(&mem, &A);
  return status;
}

static int launch(const gp_kernel *k, const gp_machine *m, gp_mw_equations eq, uint32_t blocks,
                  gp_gm_prediction *p) {
  return launch_costs(k, m, eq, blocks, p, NULL);
}

/* One block of one chain warp: 40 cycles (10 x 4), CPI 40 / 11, one wave.
 * Eight such blocks on 2 SMs at 1 block per SM: four waves of 2 blocks (the
 * paper's one shape of count 4; gpush's the full waves and the last one
 * apart: counts 3 and 1), each wave one warp per scheduler, 40 cycles (no
 * other warp to overlap or queue behind): 160, which is also the `blocks`
 * bound (8 x 40 / 2).  With 10 cycles per block launch each wave adds its
 * launch: 200; the bounds say 200 (`blocks`: 8 x 50 / 2) and 40
 * (`dispatch`: 4 x 10): the floor adds nothing. */
static void test_launch_by_hand(void) {
  gp_kernel *one = chain_blocks(1), *eight = chain_blocks(8);
  gp_machine m = launch_machine(1);
  gp_gm_prediction p;
  CHECK(one != NULL && eight != NULL);
  if (!one || !eight)
    return;
  CHECK(launch(one, &m, GP_MW_EQ_PAPER, 1, &p) == GP_OK);
  CHECK_NEAR(p.cycles, 40, 1e-9);
  CHECK_NEAR(p.cpi, 40.0 / 11, 1e-12);
  CHECK_EQ_INT(p.waves, 1);
  CHECK(launch(one, &m, GP_MW_EQ_GPUSH, 1, &p) == GP_OK);
  CHECK_NEAR(p.cycles, 40, 1e-9);
  CHECK(strcmp(p.hard_bound, "latency") == 0);
  CHECK_NEAR(p.hard_bound_cycles, 40, 1e-9);
  m = launch_machine(2);
  CHECK(launch(eight, &m, GP_MW_EQ_PAPER, 1, &p) == GP_OK);
  CHECK_EQ_INT(p.shape_count, 1);
  CHECK_NEAR(p.shape[0].count, 4, 0);
  CHECK_EQ_INT(p.shape[0].warps_on_sm, 1);
  CHECK_NEAR(p.cycles, 160, 1e-9);
  CHECK(launch(eight, &m, GP_MW_EQ_GPUSH, 1, &p) == GP_OK);
  CHECK_EQ_INT(p.shape_count, 2);
  CHECK_NEAR(p.shape[0].count, 3, 0);
  CHECK_NEAR(p.shape[1].count, 1, 0);
  CHECK_EQ_INT(p.waves, 4);
  CHECK_NEAR(p.cycles, 160, 1e-9);
  CHECK_NEAR(p.dispatch_cycles, 0, 0);
  m.launch.block_cycles = 10;
  CHECK(launch(eight, &m, GP_MW_EQ_GPUSH, 1, &p) == GP_OK);
  CHECK_NEAR(p.dispatch_cycles, 40, 1e-9);
  CHECK_NEAR(p.cycles, 200, 1e-9);
  CHECK_NEAR(p.hard_bound_cycles, 200, 1e-9);
  CHECK(strcmp(p.hard_bound, "blocks") == 0);
  m.launch.kernel_cycles = 1000;
  CHECK(launch(eight, &m, GP_MW_EQ_GPUSH, 1, &p) == GP_OK);
  CHECK_NEAR(p.cycles, 1200, 1e-9);
  CHECK_NEAR(p.hard_bound_cycles, 1200, 1e-9);
  gp_kernel_free(one);
  gp_kernel_free(eight);
}

/* The chain's 40 cycles per PC, by hand: BASE 1 per execution (FFMA 10,
 * EXIT 1); DEP 29 = 40 - 11 issue cycles, all the FFMA's: nine FFMAs wait
 * 3 cycles each for the one before (charged to the waiting instruction),
 * and the last result drains 2 cycles after EXIT issues (charged to its
 * cause, the FFMA).  Over the PCs each category sums to the stack x 11. */
static void test_pc_costs_by_hand(void) {
  gp_kernel *one = chain_blocks(1);
  gp_machine m = launch_machine(1);
  gp_gm_prediction p;
  gp_gm_pc_costs c;
  int eq;
  uint32_t i, ffma = UINT32_MAX, exit_pc = UINT32_MAX;
  if (!one)
    return;
  memset(&c, 0, sizeof c);
  for (i = 0; i < one->static_count; i++) {
    if (one->statics[i].op_class == GP_OP_FP32)
      ffma = i;
    else
      exit_pc = i;
  }
  CHECK(ffma != UINT32_MAX && exit_pc != UINT32_MAX && one->static_count == 2);
  for (eq = 0; eq < 2 && ffma != UINT32_MAX && exit_pc != UINT32_MAX; eq++) {
    int j;
    CHECK(launch_costs(one, &m, eq ? GP_MW_EQ_GPUSH : GP_MW_EQ_PAPER, 1, &p, &c) == GP_OK);
    CHECK_EQ_INT(c.n, 2);
    CHECK_EQ_INT(c.executions[ffma], 10);
    CHECK_EQ_INT(c.executions[exit_pc], 1);
    CHECK_NEAR(c.cycles[ffma * GP_MW_STACK_N + GP_MW_BASE], 10, 1e-9);
    CHECK_NEAR(c.cycles[exit_pc * GP_MW_STACK_N + GP_MW_BASE], 1, 1e-9);
    CHECK_NEAR(c.cycles[ffma * GP_MW_STACK_N + GP_MW_DEP], 29, 1e-9);
    CHECK_NEAR(c.cycles[exit_pc * GP_MW_STACK_N + GP_MW_DEP], 0, 1e-12);
    for (j = 0; j < GP_MW_STACK_N; j++)
      CHECK_NEAR(c.cycles[ffma * GP_MW_STACK_N + (size_t)j] + c.cycles[exit_pc * GP_MW_STACK_N + (size_t)j],
                 p.stack[j] * 11, 1e-9);
    gp_gm_pc_costs_free(&c);
  }
  gp_kernel_free(one);
}

/* The front end by hand (launch.c, front_end_cycles): 64 one-warp chain
 * blocks (40 cycles each) on 4 SMs of 8 slots, dispatch interval 5, launch
 * 2 + 1 warp x 1 = 3, drain 20.  The dispatcher binds: the last block
 * leaves at 63 x 5 = 315, is launched by 318, runs alone 40 and drains 20:
 * 378 (the slots: the last wave's stagger 31 x 5 = 155, a wave turned over
 * every max(3 + 40 + 20, its cycles, 8 x 3) = 63, the last wave's launch,
 * body and drain; the launcher: 15 x 3 + 63 = 108; both below).  The hard
 * bound says the same (`dispatch`: 318 + 40 + 20), and the simulator
 * (tests/c/test_sim.c has the same grid of 8-cycle blocks) 378 too. */
static void test_front_end_by_hand(void) {
  gp_kernel *k = chain_blocks(64);
  gp_machine m = launch_machine(4);
  gp_gm_prediction p;
  m.launch.dispatch_cycles = 5, m.launch.block_cycles = 2, m.launch.warp_cycles = 1;
  m.launch.drain_cycles = 20, m.launch.kernel_cycles = 1000;
  CHECK(launch(k, &m, GP_MW_EQ_GPUSH, 8, &p) == GP_OK);
  CHECK_NEAR(p.cycles, 1378, 1e-9);
  CHECK(strcmp(p.hard_bound, "dispatch") == 0);
  CHECK_NEAR(p.hard_bound_cycles, 1378, 1e-9);
  CHECK_NEAR(p.dispatch_cycles, 378 - p.shape[0].count * p.shape[0].r.cycles -
                                    p.shape[1].count * p.shape[1].r.cycles, 1e-9);
  CHECK(launch(k, &m, GP_MW_EQ_PAPER, 8, &p) == GP_OK);
  CHECK_NEAR(p.cycles, 1378, 1e-9);
  gp_kernel_free(k);
}

/* The inputs refuse a memory result of another kernel. */
static void test_inputs_check_the_kernel(void) {
  gp_kernel *one = chain_blocks(1);
  gp_memsim_result mem;
  gp_gm_inputs in;
  gp_error err;
  gp_machine m = launch_machine(1);
  if (!one)
    return;
  memset(&mem, 0, sizeof mem);
  mem.pc_count = one->static_count + 1;
  CHECK(gp_gm_inputs_build(one, &m, &mem, GP_MW_EQ_GPUSH, &A, &in, &err) == GP_ERR);
  CHECK(strstr(err.msg, "static instructions") != NULL);
  gp_kernel_free(one);
}

/* xorshift64: the random kernels' seeded draws. */
static uint64_t rnd(uint64_t *state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

/* A seeded random kernel: 2-5 blocks of 1-6 warps, a body of 3-24
 * instructions of compute, global, local, shared, constant and atomic
 * classes with random producers (some loop-carried) and active lanes,
 * 1-12 trips with a spread, global streams coalesced, strided, random and
 * chased, a shared tile. */
static gp_kernel *random_kernel(uint64_t *seed) {
  static const uint8_t classes[] = {GP_OP_FP32, GP_OP_INT, GP_OP_IMAD, GP_OP_SFU, GP_OP_FP64,
                                    GP_OP_BRANCH, GP_OP_OTHER, GP_OP_LD_GLOBAL, GP_OP_ST_GLOBAL,
                                    GP_OP_LD_LOCAL, GP_OP_ST_LOCAL, GP_OP_LD_SHARED,
                                    GP_OP_ST_SHARED, GP_OP_LD_CONST, GP_OP_ATOM_GLOBAL,
                                    GP_OP_LD_GLOBAL, GP_OP_FP32};
  static const gp_synth_stream streams[] = {{GP_STREAM_COALESCED, 0x10000, 1 << 16, 0, 1},
                                            {GP_STREAM_STRIDED, 0x100000, 1 << 18, 256, 1},
                                            {GP_STREAM_RANDOM, 0x800000, 1 << 14, 0, 2},
                                            {GP_STREAM_CHASE, 0x900000, 1 << 12, 0, 1},
                                            {GP_STREAM_SHARED, 0, 4096, 8, 1}};
  gp_synth_op body[24];
  gp_synth_desc d;
  gp_error err;
  gp_kernel *k = NULL;
  uint32_t n = 3 + (uint32_t)(rnd(seed) % 22), i, j;
  memset(body, 0, sizeof body);
  for (i = 0; i < n; i++) {
    gp_synth_op *op = &body[i];
    op->op_class = classes[rnd(seed) % sizeof classes];
    if (gp_op_is_memory(op->op_class) && op->op_class != GP_OP_LD_CONST) {
      op->width = (uint8_t)(4u << (rnd(seed) % 3));
      op->stream = gp_op_is_shared(op->op_class) ? 4 : (uint8_t)(rnd(seed) % 4);
    }
    op->active = (uint8_t)(rnd(seed) % 3 == 0 ? 1 + rnd(seed) % 32 : 0);
    for (j = 0; j < GP_DEPS && rnd(seed) % 2; j++)
      op->dep[j] = (uint16_t)(1 + rnd(seed) % (i + 3));
  }
  memset(&d, 0, sizeof d);
  strcpy(d.name, "walk");
  d.grid[0] = 2 + (uint32_t)(rnd(seed) % 4), d.grid[1] = d.grid[2] = 1;
  d.block[0] = 32 * (1 + (uint32_t)(rnd(seed) % 6)), d.block[1] = d.block[2] = 1;
  d.shmem = 4096;
  d.body = body, d.body_len = n, d.trips = 1 + (uint32_t)(rnd(seed) % 12);
  d.trip_spread = (uint32_t)(rnd(seed) % 4);
  d.streams = streams, d.stream_count = 5, d.seed = rnd(seed);
  if (gp_synth_generate(&k, &A, &d, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return k;
}

/* The walk that takes every warp's interval pass and its bounds path
 * together (gp_gm_features_paths, gp_gm_prepare_counted) against the two
 * passes apart (gp_gm_features, gp_bounds_count, gp_gm_prepare) on 150
 * seeded random kernels, with write-back and write-through caches, unit
 * intervals above 1 and a load latency an empty mask changes: the same
 * features, counts, representative and critical warps, bit for bit.  The
 * features apart take a repeated warp's total from the warp it repeats
 * (the generated kernels repeat warps, as the suite's do); the walk passes
 * every warp, so this also checks that reuse. */
static void test_walk_matches_the_passes(void) {
  uint64_t seed = 20261128;
  int trial;
  for (trial = 0; trial < 150; trial++) {
    gp_kernel *k = random_kernel(&seed);
    gp_machine m = launch_machine(1 + trial % 3);
    gp_memsim_config mc;
    gp_memsim_result mem;
    gp_gm_inputs in;
    gp_gm_prepared apart, together;
    gp_bounds_counts counts_apart, counts_together, counts_walk;
    gp_bounds_pass q;
    gp_gm_feature *fa, *fw;
    size_t na = 0, nw = 0, i;
    uint32_t blocks = 1 + trial % 2;
    gp_error err;
    double issue;
    CHECK(k != NULL);
    if (!k)
      return;
    m.l1.size_kb = trial % 4 == 0 ? 0 : 16, m.l1.sector_bytes = 32, m.l2.sector_bytes = 32;
    m.l1.write_policy = trial % 2 ? GP_WRITE_BACK : GP_WRITE_THROUGH_NO_ALLOCATE;
    m.l2.write_policy = trial % 3 ? GP_L2_WRITE_BACK : GP_L2_WRITE_THROUGH;
    m.l1.cache_global = trial % 5 != 0;
    m.ops[GP_OP_SFU].interval = 4, m.ops[GP_OP_FP64].interval = 8, m.ops[GP_OP_FP64].latency = 12;
    gp_machine_memsim(&m, blocks, k->shmem_bytes, &mc);
    CHECK(gp_memsim_functional(k, &mc, &A, &mem, &err) == GP_OK);
    CHECK(gp_gm_inputs_build(k, &m, &mem, GP_MW_EQ_GPUSH, &A, &in, &err) == GP_OK);
    CHECK(gp_gm_walks_together(&in.pcs));
    issue = gp_gm_issue_cycles(&m, GP_MW_EQ_GPUSH);
    fa = calloc(k->warps + 1, sizeof *fa), fw = calloc(k->warps + 1, sizeof *fw);
    CHECK(gp_gm_features(k, &in.pcs, issue, &A, fa, &na, &err) == GP_OK);
    CHECK(gp_bounds_count(k, &m, blocks, &mem, &A, &counts_apart, &err) == GP_OK);
    CHECK(gp_bounds_pass_begin(&q, k, &m, blocks, &mem, &A, &counts_walk, &err) == GP_OK);
    CHECK(gp_gm_features_paths(k, &in.pcs, issue, &q, &A, fw, &nw, &err) == GP_OK);
    gp_bounds_pass_finish(&q);
    CHECK_EQ_INT(nw, na);
    for (i = 0; i < na && i < nw; i++) {
      CHECK(fw[i].warp == fa[i].warp);
      CHECK(memcmp(&fw[i].total_cycles, &fa[i].total_cycles, sizeof(double)) == 0);
      CHECK(memcmp(&fw[i].warp_perf, &fa[i].warp_perf, sizeof(double)) == 0);
    }
    CHECK(memcmp(&counts_walk, &counts_apart, sizeof counts_apart) == 0);
    CHECK(counts_apart.longest_path > 0);
    CHECK(gp_gm_prepare(k, &m, &in, GP_MW_EQ_GPUSH, GP_GM_SELECT_KMEANS, 7, &A, &apart, &err) == GP_OK);
    CHECK(gp_gm_prepare_counted(k, &m, &in, GP_MW_EQ_GPUSH, GP_GM_SELECT_KMEANS, 7, blocks, &mem, &A,
                                &together, &counts_together, &err) == GP_OK);
    CHECK(memcmp(&counts_together, &counts_apart, sizeof counts_apart) == 0);
    CHECK(together.warp == apart.warp);
    CHECK_EQ_INT(together.critical_count, apart.critical_count);
    for (i = 0; i < apart.critical_count && i < together.critical_count; i++) {
      CHECK_EQ_INT(together.critical[i].block, apart.critical[i].block);
      CHECK(together.critical[i].warp == apart.critical[i].warp);
      CHECK(memcmp(&together.critical[i].cycles, &apart.critical[i].cycles, sizeof(double)) == 0);
    }
    gp_gm_prepared_free(&apart);
    gp_gm_prepared_free(&together);
    free(fa), free(fw);
    gp_gm_inputs_free(&in);
    gp_memsim_result_free(&mem, &A);
    gp_kernel_free(k);
  }
}

/* Whether the counting pass over k packs its tagged requests' keys
 * (gp_bounds_pack). */
static int packs_keys(const gp_kernel *k, const gp_machine *m, uint32_t blocks,
                      const gp_memsim_result *mem) {
  gp_bounds_pass q;
  gp_bounds_counts c;
  gp_error err;
  int on;
  if (gp_bounds_pass_begin(&q, k, m, blocks, mem, &A, &c, &err) != GP_OK)
    return -1;
  on = q.pack.on;
  gp_bounds_pass_free(&q);
  return on;
}

/* The counting pass's two layouts of the tagged requests (bounds_pass.h's
 * gp_bounds_pack): on 80 seeded random kernels (stores, atomics, local and
 * shared classes, write-back and write-through caches) the pass packs each
 * request's line, role, warp and entry in one key; the same kernel with
 * its upper lines moved up by 2^56 (the same lines shared, the same order)
 * is too wide to pack, and its counts, paths included, are the packed
 * ones bit for bit.  With records that share lines (the tagged arrays
 * grow past the line count) too. */
static void test_packed_keys_match_the_arrays(void) {
  uint64_t seed = 424242;
  int trial, spread = 0, unpacked = 0;
  for (trial = 0; trial < 80; trial++) {
    gp_kernel *k = random_kernel(&seed);
    gp_machine m = launch_machine(1 + trial % 3);
    gp_memsim_config mc;
    gp_memsim_result mem;
    gp_bounds_counts packed, wide;
    uint32_t blocks = 1 + trial % 2, i, r;
    uint64_t lo = UINT64_MAX, hi = 0;
    gp_error err;
    CHECK(k != NULL);
    if (!k)
      return;
    m.l1.size_kb = trial % 4 == 0 ? 0 : 16, m.l1.sector_bytes = 32, m.l2.sector_bytes = 32;
    m.l1.write_policy = trial % 2 ? GP_WRITE_BACK : GP_WRITE_THROUGH_NO_ALLOCATE;
    m.l2.write_policy = trial % 3 ? GP_L2_WRITE_BACK : GP_L2_WRITE_THROUGH;
    m.l1.cache_global = trial % 5 != 0;
    if (trial % 4 == 3 && k->mem_count > 2) /* records share lines: the arrays grow */
      for (r = 1; r < k->mem_count; r += 2)
        k->mem_records[r].line_start = k->mem_records[r - 1].line_start,
        k->mem_records[r].line_count = k->mem_records[r - 1].line_count;
    gp_machine_memsim(&m, blocks, k->shmem_bytes, &mc);
    CHECK(gp_memsim_functional(k, &mc, &A, &mem, &err) == GP_OK);
    if (trial % 4 != 3)
      CHECK(packs_keys(k, &m, blocks, &mem) == 1);
    else /* entries requested twice: collected again into the arrays */
      unpacked += packs_keys(k, &m, blocks, &mem) == 0;
    CHECK(gp_bounds_count(k, &m, blocks, &mem, &A, &packed, &err) == GP_OK);
    for (i = 0; i < k->line_count; i++) {
      lo = k->lines[i] < lo ? k->lines[i] : lo;
      hi = k->lines[i] > hi ? k->lines[i] : hi;
    }
    if (hi > lo) {
      for (i = 0; i < k->line_count; i++)
        if (k->lines[i] > lo + (hi - lo) / 2)
          k->lines[i] += (uint64_t)1 << 56;
      CHECK(packs_keys(k, &m, blocks, &mem) == 0);
      CHECK(gp_bounds_count(k, &m, blocks, &mem, &A, &wide, &err) == GP_OK);
      CHECK(memcmp(&wide, &packed, sizeof packed) == 0);
      spread++;
    }
    gp_memsim_result_free(&mem, &A);
    gp_kernel_free(k);
  }
  CHECK(spread >= 70);
  CHECK(unpacked >= 15);
}

/* The walk against the two passes on long warps with producers in all
 * four slots, the farthest at the largest distance a slot holds (65,535)
 * and the one the consumer waits for: two warps of 11,000 trips of an SFU,
 * an integer op, a global load, a shared-memory load on 7 lanes with bank
 * conflicts (the LSU's cases, no instruction waits for them), an IMAD, an
 * FP64 op of latency 200,000, and an FFMA reading the IMAD (2 back), the
 * integer op (5), the SFU (6) and the FP64 op 65,535 back, whose result
 * comes after every nearer one (a trip issues in a few cycles).  A
 * producer read from the wrong slot, or a ring too short for the distance,
 * moves the path.  The same features and counts, bit for bit. */
static void test_walk_far_producers(void) {
  static const gp_synth_stream streams[] = {{GP_STREAM_COALESCED, 0x10000, 1 << 16, 0, 1},
                                            {GP_STREAM_SHARED, 0, 4096, 8, 1}};
  gp_synth_op body[7];
  gp_synth_desc d;
  gp_machine m = launch_machine(1);
  gp_memsim_config mc;
  gp_memsim_result mem;
  gp_gm_inputs in;
  gp_bounds_counts counts_apart, counts_walk;
  gp_bounds_pass q;
  gp_gm_feature *fa, *fw;
  size_t na = 0, nw = 0, i;
  gp_kernel *k = NULL;
  gp_error err;
  double issue;
  const uint16_t *far;
  m.ops[GP_OP_FP64].latency = 200000;
  memset(body, 0, sizeof body);
  body[0].op_class = GP_OP_SFU;
  body[1].op_class = GP_OP_INT;
  body[2].op_class = GP_OP_LD_GLOBAL, body[2].width = 4, body[2].stream = 0;
  body[3].op_class = GP_OP_LD_SHARED, body[3].width = 4, body[3].stream = 1, body[3].active = 7;
  body[4].op_class = GP_OP_IMAD;
  body[5].op_class = GP_OP_FP64;
  body[6].op_class = GP_OP_FP32;
  body[6].dep[0] = 2, body[6].dep[1] = 5, body[6].dep[2] = 6, body[6].dep[3] = 65535;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "far");
  d.grid[0] = 1, d.grid[1] = d.grid[2] = 1;
  d.block[0] = 64, d.block[1] = d.block[2] = 1;
  d.shmem = 4096;
  d.body = body, d.body_len = 7, d.trips = 11000, d.trip_spread = 0;
  d.streams = streams, d.stream_count = 2, d.seed = 11;
  CHECK(gp_synth_generate(&k, &A, &d, &err) == GP_OK);
  if (!k)
    return;
  CHECK_EQ_INT(k->warp_len[0], 77001); /* and EXIT */
  far = k->deps + (size_t)(7 * 9400 + 6) * GP_DEPS; /* an FFMA past 65,535 */
  CHECK_EQ_INT(far[0], 2);
  CHECK_EQ_INT(far[1], 5);
  CHECK_EQ_INT(far[2], 6);
  CHECK_EQ_INT(far[3], 65535);
  CHECK_EQ_INT(k->op_class[7 * 9400 + 6 - 65535], GP_OP_FP64);
  gp_machine_memsim(&m, 1, k->shmem_bytes, &mc);
  CHECK(gp_memsim_functional(k, &mc, &A, &mem, &err) == GP_OK);
  CHECK(gp_gm_inputs_build(k, &m, &mem, GP_MW_EQ_GPUSH, &A, &in, &err) == GP_OK);
  CHECK(gp_gm_walks_together(&in.pcs));
  issue = gp_gm_issue_cycles(&m, GP_MW_EQ_GPUSH);
  fa = calloc(k->warps + 1, sizeof *fa), fw = calloc(k->warps + 1, sizeof *fw);
  CHECK(gp_gm_features(k, &in.pcs, issue, &A, fa, &na, &err) == GP_OK);
  CHECK(gp_bounds_count(k, &m, 1, &mem, &A, &counts_apart, &err) == GP_OK);
  CHECK(gp_bounds_pass_begin(&q, k, &m, 1, &mem, &A, &counts_walk, &err) == GP_OK);
  CHECK(gp_gm_features_paths(k, &in.pcs, issue, &q, &A, fw, &nw, &err) == GP_OK);
  gp_bounds_pass_finish(&q);
  CHECK_EQ_INT(nw, 2);
  CHECK_EQ_INT(na, 2);
  for (i = 0; i < na && i < nw; i++) {
    CHECK(fw[i].warp == fa[i].warp);
    CHECK(memcmp(&fw[i].total_cycles, &fa[i].total_cycles, sizeof(double)) == 0);
  }
  CHECK(memcmp(&counts_walk, &counts_apart, sizeof counts_apart) == 0);
  CHECK(counts_apart.shared_passes > 0);
  CHECK(counts_apart.longest_path > 77001 + 200000); /* the last FP64 result */
  free(fa), free(fw);
  gp_gm_inputs_free(&in);
  gp_memsim_result_free(&mem, &A);
  gp_kernel_free(k);
}

/* Under the paper's equations the PCs have no empty-mask latencies: the
 * walk refuses them, and gp_gm_prepare_counted takes the two passes apart
 * (the same counts as gp_bounds_count). */
static void test_prepare_counted_apart(void) {
  uint64_t seed = 7;
  gp_kernel *k = random_kernel(&seed);
  gp_machine m = launch_machine(2);
  gp_memsim_config mc;
  gp_memsim_result mem;
  gp_gm_inputs in;
  gp_gm_prepared apart, together;
  gp_bounds_counts counts_apart, counts_together;
  gp_bounds_pass q;
  gp_gm_feature *f;
  size_t n = 0;
  gp_error err;
  CHECK(k != NULL);
  if (!k)
    return;
  gp_machine_memsim(&m, 1, k->shmem_bytes, &mc);
  CHECK(gp_memsim_functional(k, &mc, &A, &mem, &err) == GP_OK);
  CHECK(gp_gm_inputs_build(k, &m, &mem, GP_MW_EQ_PAPER, &A, &in, &err) == GP_OK);
  CHECK(!gp_gm_walks_together(&in.pcs));
  f = calloc(k->warps + 1, sizeof *f);
  CHECK(gp_bounds_pass_begin(&q, k, &m, 1, &mem, &A, &counts_together, &err) == GP_OK);
  CHECK(gp_gm_features_paths(k, &in.pcs, 1, &q, &A, f, &n, &err) == GP_ERR);
  CHECK(strstr(err.msg, "active lanes") != NULL);
  gp_bounds_pass_free(&q);
  free(f);
  CHECK(gp_bounds_count(k, &m, 1, &mem, &A, &counts_apart, &err) == GP_OK);
  CHECK(gp_gm_prepare(k, &m, &in, GP_MW_EQ_PAPER, GP_GM_SELECT_KMEANS, 1, &A, &apart, &err) == GP_OK);
  CHECK(gp_gm_prepare_counted(k, &m, &in, GP_MW_EQ_PAPER, GP_GM_SELECT_KMEANS, 1, 1, &mem, &A, &together,
                              &counts_together, &err) == GP_OK);
  CHECK(memcmp(&counts_together, &counts_apart, sizeof counts_apart) == 0);
  CHECK(together.warp == apart.warp);
  gp_gm_prepared_free(&apart);
  gp_gm_prepared_free(&together);
  gp_gm_inputs_free(&in);
  gp_memsim_result_free(&mem, &A);
  gp_kernel_free(k);
}

/* Whether two predictions and their reported profiles agree bit for bit
 * (cycles, CPI, stack, every shape's cycles; the profile's totals and
 * intervals). */
static int same_prediction(const gp_gm_prediction *a, const gp_iv_profile *pa,
                           const gp_gm_prediction *b, const gp_iv_profile *pb) {
  size_t i;
  if (memcmp(&a->cycles, &b->cycles, sizeof a->cycles) || memcmp(&a->cpi, &b->cpi, sizeof a->cpi) ||
      memcmp(a->stack, b->stack, sizeof a->stack) || a->shape_count != b->shape_count)
    return 0;
  for (i = 0; i < a->shape_count; i++)
    if (memcmp(&a->shape[i].r.cycles, &b->shape[i].r.cycles, sizeof(double)) ||
        memcmp(&a->shape[i].single_cycles, &b->shape[i].single_cycles, sizeof(double)))
      return 0;
  return pa->count == pb->count && pa->insts == pb->insts &&
         !memcmp(&pa->total_cycles, &pb->total_cycles, sizeof(double)) &&
         !memcmp(&pa->stall_cycles, &pb->stall_cycles, sizeof(double)) &&
         (pa->count == 0 || !memcmp(pa->iv, pb->iv, pa->count * sizeof *pa->iv));
}

/* One prediction of k on m, with the prepared kernel's kept profiles or
 * (kept NULL) without; true when the two agree bit for bit. */
static int kept_agrees(const gp_kernel *k, const gp_machine *m, const gp_gm_inputs *in,
                       gp_gm_prepared *prep, uint32_t blocks, gp_mw_policy policy) {
  gp_gm_options opt;
  gp_gm_prediction with, without;
  gp_iv_profile pw, po;
  gp_error err;
  int ok;
  memset(&opt, 0, sizeof opt);
  opt.model = GP_MW_MT_MSHR_BAND, opt.policy = policy, opt.equations = GP_MW_EQ_GPUSH;
  opt.blocks_per_sm = blocks;
  gp_iv_profile_init(&pw, &A);
  gp_iv_profile_init(&po, &A);
  ok = gp_gm_predict(k, m, in, prep, NULL, &opt, &po, &without, &err) == GP_OK;
  opt.kept = &prep->kept;
  ok = ok && gp_gm_predict(k, m, in, prep, NULL, &opt, &pw, &with, &err) == GP_OK;
  ok = ok && same_prediction(&with, &pw, &without, &po);
  gp_iv_profile_free(&pw);
  gp_iv_profile_free(&po);
  return ok;
}

/* Profiles kept across predictions (gp_gm_profile_kept): on 40 seeded
 * random kernels of several waves (a last-wave warp of its own), each
 * prediction through the prepared kernel's kept profiles equals the one
 * made without, bit for bit: at the first point (made), at other MSHR
 * counts, DRAM bandwidths and policies (found again: the interval pass
 * does not read them), after every memory PC's latency moved by 7 cycles
 * (made again: a kept profile of the old latencies would give the old
 * cycles), and restored (found). */
static void test_kept_profiles(void) {
  uint64_t seed = 20261129;
  int trial;
  uint64_t reused = 0;
  for (trial = 0; trial < 40; trial++) {
    gp_kernel *k = random_kernel(&seed);
    gp_machine m = launch_machine(2);
    gp_memsim_config mc;
    gp_memsim_result mem;
    gp_gm_inputs in;
    gp_gm_prepared prep;
    gp_error err;
    uint64_t made;
    uint32_t i, moved = 0;
    double *saved;
    CHECK(k != NULL);
    if (!k)
      return;
    m.l1.size_kb = 16, m.l1.sector_bytes = 32, m.l2.sector_bytes = 32;
    gp_machine_memsim(&m, 1, k->shmem_bytes, &mc);
    CHECK(gp_memsim_functional(k, &mc, &A, &mem, &err) == GP_OK);
    CHECK(gp_gm_inputs_build(k, &m, &mem, GP_MW_EQ_GPUSH, &A, &in, &err) == GP_OK);
    CHECK(gp_gm_prepare(k, &m, &in, GP_MW_EQ_GPUSH, GP_GM_SELECT_KMEANS, 3, &A, &prep, &err) == GP_OK);
    CHECK(kept_agrees(k, &m, &in, &prep, 1, GP_MW_RR));
    made = prep.kept.made;
    CHECK(made >= 1);
    m.l1.mshrs = 8, m.dram.achievable_gbs = 4;
    CHECK(kept_agrees(k, &m, &in, &prep, 1, GP_MW_GTO));
    m.l1.mshrs = 128;
    CHECK(kept_agrees(k, &m, &in, &prep, 1, GP_MW_RR));
    CHECK(prep.kept.made == made);
    saved = malloc((in.pcs.n + 1) * sizeof *saved);
    CHECK(saved != NULL);
    if (!saved)
      return;
    memcpy(saved, in.pcs.latency, in.pcs.n * sizeof *saved);
    for (i = 0; i < in.pcs.n; i++)
      if (in.pcs.mem_insts[i] > 0)
        in.pcs.latency[i] += 7, moved++;
    CHECK(kept_agrees(k, &m, &in, &prep, 1, GP_MW_RR));
    CHECK(moved == 0 || prep.kept.made > made);
    made = prep.kept.made;
    memcpy(in.pcs.latency, saved, in.pcs.n * sizeof *saved);
    free(saved);
    CHECK(kept_agrees(k, &m, &in, &prep, 1, GP_MW_RR));
    CHECK(prep.kept.made == made);
    reused += prep.kept.reused;
    gp_gm_prepared_free(&prep);
    gp_gm_inputs_free(&in);
    gp_memsim_result_free(&mem, &A);
    gp_kernel_free(k);
  }
  CHECK(reused >= 40 * 3);
}

int main(void) {
  A = gp_alloc_default();
  RUN(test_launch_by_hand);
  RUN(test_front_end_by_hand);
  RUN(test_inputs_check_the_kernel);
  RUN(test_pc_costs_by_hand);
  RUN(test_static_inputs);
  RUN(test_features_and_profile);
  RUN(test_select);
  RUN(test_unit_timing);
  RUN(test_walk_matches_the_passes);
  RUN(test_walk_far_producers);
  RUN(test_prepare_counted_apart);
  RUN(test_packed_keys_match_the_arrays);
  RUN(test_kept_profiles);
  return gp_test_finish();
}
