/*
 * machine.c -- the machine's field table and what follows from its
 * parameters (machine.h).
 */
#include "machine.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static const char *const unit_names[GP_UNIT_COUNT] = {"int",     "fma",   "fp64", "sfu",
                                                      "tensor",  "uniform", "other", "lsu"};

const char *gp_unit_name(int unit) {
  return unit >= 0 && unit < GP_UNIT_COUNT ? unit_names[unit] : "invalid";
}

int gp_op_pipeline(int c) {
  if (c >= 0 && c < GP_OP_COMPUTE_COUNT)
    return c; /* the first classes are the pipelines themselves */
  if (c == GP_OP_BARRIER || c == GP_OP_BARRIER_ARRIVE || c == GP_OP_DEPBAR)
    return GP_OP_OTHER;
  return -1;
}

/* The unit of each pipeline: FP32 and IMAD share the FMA unit, branches go
 * to OTHER with the rest. */
static int pipeline_unit(int pipe) {
  switch (pipe) {
  case GP_OP_INT:
    return GP_UNIT_INT;
  case GP_OP_FP32:
  case GP_OP_IMAD:
    return GP_UNIT_FMA;
  case GP_OP_FP64:
    return GP_UNIT_FP64;
  case GP_OP_SFU:
    return GP_UNIT_SFU;
  case GP_OP_TENSOR:
    return GP_UNIT_TENSOR;
  case GP_OP_UNIFORM:
    return GP_UNIT_UNIFORM;
  default:
    return GP_UNIT_OTHER;
  }
}

int gp_op_unit(int c) {
  int pipe = gp_op_pipeline(c);
  return pipe < 0 ? GP_UNIT_LSU : pipeline_unit(pipe);
}

int gp_machine_op_unit(const gp_machine *m, int c) {
  int unit = gp_op_unit(c);
  return unit == GP_UNIT_INT && m->sm.int_fp32_shared ? GP_UNIT_FMA : unit;
}

double gp_machine_class_latency(const gp_machine *m, int c) {
  int pipe = gp_op_pipeline(c);
  return pipe < 0 ? 0 : m->ops[pipe].latency;
}

double gp_machine_class_interval(const gp_machine *m, int c) {
  int pipe = gp_op_pipeline(c);
  return pipe < 0 ? 1 : m->ops[pipe].interval;
}

double gp_machine_dram_latency_cycles(const gp_machine *m) {
  return m->dram.latency_ns * m->clock.core_mhz / 1000;
}

double gp_machine_dram_bytes_per_cycle(const gp_machine *m) {
  return m->dram.achievable_gbs * 1e9 / (m->clock.core_mhz * 1e6);
}

double gp_machine_block_launch_cycles(const gp_machine *m, uint32_t warps) {
  return m->launch.block_cycles + warps * m->launch.warp_cycles;
}

uint64_t gp_machine_l1_bytes(const gp_machine *m, uint32_t blocks, uint64_t shared_bytes) {
  double fixed = floor(m->l1.size_kb * 1024), unified = floor(m->l1.unified_kb * 1024);
  double left = unified - (double)blocks * (double)shared_bytes;
  if (unified <= 0)
    return (uint64_t)fixed;
  return (uint64_t)(left > fixed ? left : fixed);
}

void gp_machine_memsim(const gp_machine *m, uint32_t blocks_per_sm, uint64_t shared_bytes,
                       gp_memsim_config *c) {
  int no_caches = m->gpu.compute_capability < 2;
  uint32_t blocks = blocks_per_sm > 0 ? blocks_per_sm : 1;
  memset(c, 0, sizeof *c);
  c->sms = m->sm.count;
  c->blocks_per_sm = blocks;
  c->l1.size_bytes = no_caches ? 0 : gp_machine_l1_bytes(m, blocks, shared_bytes);
  c->l1.line_bytes = m->l1.line_bytes;
  c->l1.ways = m->l1.ways;
  c->l1.sectored = m->l1.sectored;
  c->l1.write_back = m->l1.write_policy == GP_WRITE_BACK;
  c->l2.size_bytes = no_caches ? 0 : (uint64_t)floor(m->l2.size_kb * 1024);
  c->l2.line_bytes = m->l2.line_bytes;
  c->l2.ways = m->l2.ways;
  c->l2.sectored = m->l2.sectored;
  c->l2.write_back = m->l2.write_policy == GP_L2_WRITE_BACK;
  c->l2_slices = m->l2.slices;
  c->cache_global_in_l1 = m->l1.cache_global;
  c->dram_access_bytes = m->dram.access_bytes;
  c->l1_latency = m->l1.latency;
  c->l2_latency = m->l2.latency;
  c->dram_latency = gp_machine_dram_latency_cycles(m);
  c->cc1x = no_caches ? GP_CC1X_12 : GP_CC1X_OFF; /* half-warp coalescing before Fermi */
  c->shared_banks = m->shared.banks;
  c->shared_bank_bytes = m->shared.bank_bytes;
  c->shared_latency = m->shared.latency;
  c->const_latency = m->constant.latency;
}

void gp_machine_timed(const gp_machine *m, uint32_t blocks_per_sm, uint64_t shared_bytes,
                      gp_timed_config *t) {
  gp_memsim_config c;
  gp_machine_memsim(m, blocks_per_sm, shared_bytes, &c);
  memset(t, 0, sizeof *t);
  t->sms = c.sms;
  t->mshrs_per_sm = m->l1.mshrs;
  t->l1 = c.l1, t->l2 = c.l2, t->l2_slices = c.l2_slices;
  t->cache_global_in_l1 = c.cache_global_in_l1;
  t->l1_latency = c.l1_latency, t->l2_latency = c.l2_latency, t->dram_latency = c.dram_latency;
  t->l2_interval = m->l2.interval;
  t->dram_channels = m->dram.channels;
  t->dram_bytes_per_cycle = gp_machine_dram_bytes_per_cycle(m);
  t->dram_access_bytes = c.dram_access_bytes;
  t->cc1x = c.cc1x;
}

/* ---------------------------------------------------------------------------
 * The field table: schema path, place, storage
 * ------------------------------------------------------------------------- */

static const char *const l1_write_policies[] = {"write_through_no_allocate", "write_back", NULL};
static const char *const l2_write_policies[] = {"write_back", "write_through", NULL};

/* A field whose C name is its schema path. */
#define FIELD(type, member) {#member, offsetof(gp_machine, member), GP_FIELD_##type, NULL}
/* ops.<name>.latency and .interval of pipeline c. */
#define OPS(name, c)                                                                     \
  {"ops." #name ".latency", offsetof(gp_machine, ops[c].latency), GP_FIELD_F64, NULL},   \
      {"ops." #name ".interval", offsetof(gp_machine, ops[c].interval), GP_FIELD_F64, NULL}

static const gp_machine_field fields[] = {
    FIELD(F64, gpu.compute_capability),
    FIELD(U32, sm.count),
    FIELD(U32, sm.warp_size),
    FIELD(U32, sm.max_warps),
    FIELD(U32, sm.max_blocks),
    FIELD(U32, sm.max_block_threads),
    FIELD(U32, sm.schedulers),
    FIELD(U32, sm.issue_width),
    FIELD(BOOL, sm.int_fp32_shared),
    FIELD(U32, sm.active_warps),
    FIELD(U32, sm.registers),
    FIELD(U32, sm.register_alloc_unit),
    FIELD(U32, sm.max_registers_per_thread),
    FIELD(F64, sm.shared_kb),
    FIELD(U32, sm.shared_alloc_bytes),
    FIELD(F64, clock.core_mhz),
    FIELD(F64, clock.mem_mhz),
    OPS(int, GP_OP_INT),
    OPS(fp32, GP_OP_FP32),
    OPS(imad, GP_OP_IMAD),
    OPS(fp64, GP_OP_FP64),
    OPS(sfu, GP_OP_SFU),
    OPS(tensor, GP_OP_TENSOR),
    OPS(uniform, GP_OP_UNIFORM),
    OPS(branch, GP_OP_BRANCH),
    OPS(other, GP_OP_OTHER),
    FIELD(F64, l1.size_kb),
    FIELD(F64, l1.unified_kb),
    FIELD(U32, l1.line_bytes),
    FIELD(U32, l1.sector_bytes),
    FIELD(BOOL, l1.sectored),
    FIELD(U32, l1.ways),
    FIELD(F64, l1.latency),
    FIELD(U32, l1.mshrs),
    FIELD(BOOL, l1.cache_global),
    {"l1.write_policy", offsetof(gp_machine, l1.write_policy), GP_FIELD_ENUM, l1_write_policies},
    FIELD(U32, shared.banks),
    FIELD(U32, shared.bank_bytes),
    FIELD(F64, shared.latency),
    {"const.latency", offsetof(gp_machine, constant.latency), GP_FIELD_F64, NULL},
    FIELD(F64, l2.size_kb),
    FIELD(U32, l2.line_bytes),
    FIELD(U32, l2.sector_bytes),
    FIELD(BOOL, l2.sectored),
    FIELD(U32, l2.ways),
    FIELD(U32, l2.slices),
    FIELD(F64, l2.latency),
    FIELD(F64, l2.interval),
    {"l2.write_policy", offsetof(gp_machine, l2.write_policy), GP_FIELD_ENUM, l2_write_policies},
    FIELD(U32, dram.channels),
    FIELD(U32, dram.bus_bits),
    FIELD(F64, dram.transfers_per_clock),
    FIELD(F64, dram.latency_ns),
    FIELD(U32, dram.access_bytes),
    FIELD(F64, dram.efficiency),
    FIELD(F64, launch.kernel_cycles),
    FIELD(F64, launch.dispatch_cycles),
    FIELD(F64, launch.block_cycles),
    FIELD(F64, launch.warp_cycles),
    FIELD(F64, launch.drain_cycles),
    FIELD(F64, launch.warmup_cycles),
    /* derived parameters (schema.derived) */
    FIELD(U32, sm.max_threads),
    FIELD(F64, dram.bandwidth_gbs),
    FIELD(F64, dram.achievable_gbs),
};

const gp_machine_field *gp_machine_fields(size_t *count) {
  *count = sizeof fields / sizeof fields[0];
  return fields;
}
