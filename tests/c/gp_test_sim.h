/*
 * gp_test_sim.h -- the machine and options the simulator's unit tests share:
 * every compute pipeline at latency 4 and interval 1, branches at latency 1,
 * shared memory 20 cycles over 32 banks of 4 B, constants 8; no L1, a 1 MB
 * sectored write-back L2 in one slice (100 cycles, a request per cycle),
 * DRAM 200 cycles beyond it (200 ns at 1 GHz) and 8 B per cycle on one
 * channel (8 GB/s), 64 MSHRs per SM; no launch costs; LRR.  A test changes
 * the fields it is about.
 */
#ifndef GP_TEST_SIM_H
#define GP_TEST_SIM_H

#include "sim/sim.h"

#include <string.h>

typedef struct sim_setup {
  gp_machine m;
  gp_sim_options o;
} sim_setup;

static inline sim_setup sim_setup_of(uint32_t sms, uint32_t schedulers, uint32_t blocks_per_sm) {
  sim_setup c;
  int i;
  memset(&c, 0, sizeof c);
  c.m.gpu.compute_capability = 7.0;
  c.m.sm.count = sms, c.m.sm.schedulers = schedulers, c.m.sm.issue_width = 1;
  c.m.sm.warp_size = 32, c.m.sm.active_warps = 8;
  for (i = 0; i < GP_OP_COMPUTE_COUNT; i++)
    c.m.ops[i].latency = 4, c.m.ops[i].interval = 1;
  c.m.ops[GP_OP_BRANCH].latency = 1;
  c.m.shared.latency = 20, c.m.constant.latency = 8, c.m.shared.banks = 32;
  c.m.shared.bank_bytes = 4;
  c.m.l1.mshrs = 64, c.m.l1.line_bytes = 128, c.m.l1.ways = 4;
  c.m.l2.size_kb = 1024, c.m.l2.line_bytes = 128, c.m.l2.ways = 8, c.m.l2.sectored = 1;
  c.m.l2.write_policy = GP_L2_WRITE_BACK, c.m.l2.slices = 1, c.m.l2.latency = 100;
  c.m.l2.interval = 1;
  c.m.clock.core_mhz = 1000, c.m.dram.latency_ns = 200;
  c.m.dram.channels = 1, c.m.dram.bandwidth_gbs = 8, c.m.dram.access_bytes = 32;
  c.m.dram.efficiency = 1, c.m.dram.achievable_gbs = 8;
  c.o.policy = GP_SIM_LRR, c.o.blocks_per_sm = blocks_per_sm;
  return c;
}

static inline int sim_setup_run(const gp_kernel *k, const sim_setup *c, gp_sim_result *r,
                                gp_error *err) {
  gp_alloc a = gp_alloc_default();
  return gp_sim_run(k, &c->m, &c->o, &a, r, err);
}

#endif
