/*
 * sim.h -- abstract timing simulation of a kernel (GATSim-style, generalised):
 * warps scheduled over every SM in one time-ordered loop, per-warp
 * scoreboards from the trace's dependence distances, functional units with
 * initiation intervals, memory through memsim's timed mode, barriers, and
 * thread blocks dispatched to SMs as slots free.
 */
#ifndef GP_SIM_H
#define GP_SIM_H

#include "memsim.h"
#include "trace.h"

typedef enum gp_sim_policy { GP_SIM_LRR, GP_SIM_GTO } gp_sim_policy;

/* Why a scheduler did not issue in a cycle. */
typedef enum gp_stall {
  GP_STALL_ISSUED,      /* it issued (counted per cycle with an issue) */
  GP_STALL_DEPENDENCE,  /* the next instructions wait for compute results */
  GP_STALL_MEMORY,      /* ... for a load */
  GP_STALL_LSU,         /* the load/store unit is busy */
  GP_STALL_SFU,         /* the special-function unit is busy */
  GP_STALL_UNIT,        /* another functional unit is busy */
  GP_STALL_BARRIER,     /* waiting at a barrier */
  GP_STALL_NO_WARP,     /* warps resident, none with an instruction left */
  GP_STALL_IDLE,        /* no warp resident */
  GP_STALL_COUNT
} gp_stall;

const char *gp_stall_name(int stall);

typedef struct gp_sim_config {
  uint32_t sms, schedulers, issue_width, blocks_per_sm;
  gp_sim_policy policy;
  double latency[GP_OP_CLASS_COUNT];   /* producer issue to consumer issue */
  double interval[GP_OP_CLASS_COUNT];  /* cycles a unit needs per warp instruction */
  double shared_latency, const_latency;
  uint32_t shared_banks, shared_bank_bytes;
  double block_launch_cycles, kernel_launch_cycles;
  gp_timed_config memory;              /* sms must equal the above */
} gp_sim_config;

typedef struct gp_sim_result {
  double cycles;          /* kernel: the slowest SM plus the launch overhead */
  double *sm_cycles;      /* per SM: when its last warp finished */
  double *warp_done;      /* per global warp: when its last result was ready */
  uint64_t issued;        /* warp instructions */
  double stalls[GP_STALL_COUNT]; /* scheduler cycles by reason, over all schedulers */
  gp_timed_stats memory;
} gp_sim_result;

/* Simulates the kernel.  Deterministic: the same inputs give the same
 * result.  Free the result's arrays with gp_sim_result_free. */
int gp_sim_run(const gp_kernel *k, const gp_sim_config *cfg, const gp_alloc *alloc,
               gp_sim_result *out, gp_error *err);
void gp_sim_result_free(gp_sim_result *r, const gp_alloc *alloc, const gp_kernel *k,
                        uint32_t sms);

#endif
