/*
 * sim.h -- abstract timing simulation of a kernel (GATSim-style, generalised):
 * warps scheduled over every SM in one time-ordered loop, per-warp
 * scoreboards from the trace's dependence distances, functional units with
 * initiation intervals, memory through memsim's timed mode, barriers, and
 * thread blocks dispatched to SMs as slots free.
 *
 * The machine (machine.h) is the configuration's; the options say how to
 * schedule and how many blocks of this kernel an SM holds (gpush.occupancy).
 *
 * Files: sim.c (the event loop, blocks, warps, issue), sched.c and sched.h
 * (each scheduler's ready and pending sets, the policies, stall reasons),
 * out.c (per-PC and per-line stalls, counters); state.h holds the
 * state they share.  docs/sim.md describes the model and its deviations.
 */
#ifndef GP_SIM_H
#define GP_SIM_H

#include "machine.h"

typedef enum gp_sim_policy {
  GP_SIM_LRR,       /* loose round-robin from the warp after the last issued */
  GP_SIM_GTO,       /* greedy-then-oldest */
  GP_SIM_TWO_LEVEL, /* Narasiman et al.: round-robin over a small active set */
  GP_SIM_CALLBACK   /* gp_sim_config.pick chooses */
} gp_sim_policy;

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
  GP_STALL_IDLE,        /* no warp resident (one waiting for its launch is not yet) */
  GP_STALL_COUNT
} gp_stall;

const char *gp_stall_name(int stall);

/* A warp that can issue now, as a pick callback sees it. */
typedef struct gp_sim_candidate {
  uint32_t warp;     /* global warp index (block x warps per block + warp) */
  uint32_t slot;     /* its position among the scheduler's warp slots */
  uint64_t age;      /* dispatch order: smaller is older */
  uint32_t pc_index; /* static instruction of its next instruction */
  uint8_t op_class;  /* ... and its class */
} gp_sim_candidate;

/* Chooses which candidate issues on scheduler `sched` of SM `sm` at
 * `cycle`: returns an index into cand[0..n) (n >= 1), or -1 after filling
 * err (the simulation then stops with that error).  Called once per issue,
 * so up to issue_width times per scheduler cycle. */
typedef int (*gp_sim_pick_fn)(void *ctx, uint32_t sm, uint32_t sched, double cycle,
                              const gp_sim_candidate *cand, uint32_t n, gp_error *err);

/* Observes every issue (tests, traces of the schedule): the SM, the
 * scheduler, the cycle, the global warp index and its static instruction. */
typedef void (*gp_sim_issue_fn)(void *ctx, uint32_t sm, uint32_t sched, double cycle,
                                uint32_t warp, uint32_t pc_index);

/* A kernel's issue counts, the same for every complete run of it (each
 * instruction of each warp issues once, whatever the machine, policy or
 * occupancy), and its longest dependence distance: counted once per kernel
 * by gp_sim_count and passed to every run (a sweep's points, each policy)
 * through gp_sim_options.counts instead of two passes over the trace per
 * run. */
typedef struct gp_sim_counts {
  uint64_t class_issued[GP_OP_CLASS_COUNT]; /* warp instructions per class */
  uint64_t class_lanes[GP_OP_CLASS_COUNT];  /* active lanes summed per class */
  uint64_t *pc_executions; /* per static PC (static_count + 1 entries) */
  uint32_t pc_count;       /* the kernel's static_count */
  uint32_t dep_bits;       /* the OR of every dependence distance (the completion
                              rings' size) */
} gp_sim_counts;

typedef struct gp_sim_options {
  gp_sim_policy policy;
  uint32_t blocks_per_sm;              /* resident blocks per SM (occupancy) */
  gp_sim_pick_fn pick;                 /* GP_SIM_CALLBACK */
  void *pick_ctx;
  gp_sim_issue_fn on_issue;            /* optional */
  void *on_issue_ctx;
  int per_pc;                          /* 1: charge cycles per static PC and count its
                                          executions (pc_stalls, pc_executions,
                                          line_stalls); 0: skip (the default, and the
                                          faster: nothing per PC is kept) */
  const gp_sim_counts *counts;         /* optional: the kernel's, from gp_sim_count
                                          (NULL: counted after the run) */
} gp_sim_options;

/* Raw event counts behind Wu et al.'s Table II features (the Lua layer
 * turns them into fractions). */
typedef struct gp_sim_counters {
  uint64_t class_issued[GP_OP_CLASS_COUNT]; /* warp instructions per class */
  uint64_t class_lanes[GP_OP_CLASS_COUNT];  /* active lanes summed per class */
  double lsu_busy_cycles;      /* LSU occupancy summed over schedulers */
  double store_lsu_stall_cycles; /* scheduler cycles a global or local store waited for
                                    the busy LSU (Wu et al.'s WriteUnitStalled); kept
                                    whether or not per-PC accounting is on */
  double unit_busy_cycles[GP_UNIT_COUNT]; /* each unit's occupancy summed over schedulers
                                 (the LSU's is lsu_busy_cycles) */
  uint64_t bank_conflicts;     /* shared accesses needing more than one pass */
  uint64_t bank_extra_passes;  /* passes beyond the first, summed */
  double resident_warp_cycles; /* sum over warps of (last result - launch) */
  double scheduler_cycles;     /* all schedulers' cycles (the stalls' sum) */
} gp_sim_counters;

typedef struct gp_sim_result {
  double cycles;          /* kernel: the slowest SM plus the launch overhead */
  uint32_t sms, warps, pc_count;
  double *sm_cycles;      /* per SM: when its last warp finished */
  uint64_t *sm_issued;    /* per SM: warp instructions */
  double *sm_stalls;      /* per SM x GP_STALL_COUNT: its schedulers' cycles */
  double *warp_done;      /* per global warp: when its last result was ready */
  uint64_t issued;        /* warp instructions */
  double stalls[GP_STALL_COUNT]; /* scheduler cycles by reason, over all schedulers */
  /* per_pc only (else NULL and 0): */
  double *pc_stalls;      /* per static PC x GP_STALL_COUNT (idle and no-warp cycles
                             have no PC) */
  uint64_t *pc_executions; /* per static PC: its warp instructions (they sum to issued) */
  uint32_t line_count;    /* distinct source lines (0 without line info) */
  uint32_t *lines;        /* line numbers, ascending */
  double *line_stalls;    /* per line x GP_STALL_COUNT: the sum of its PCs */
  gp_sim_counters counters;
  gp_timed_stats memory;
} gp_sim_result;

/* Simulates the kernel.  Deterministic: the same inputs give the same
 * result.  Free the result's arrays with gp_sim_result_free. */
int gp_sim_run(const gp_kernel *k, const gp_machine *m, const gp_sim_options *opt,
               const gp_alloc *alloc, gp_sim_result *out, gp_error *err);
void gp_sim_result_free(gp_sim_result *r, const gp_alloc *alloc);

/* Counts k's issues (gp_sim_counts); free with gp_sim_counts_free. */
int gp_sim_count(const gp_kernel *k, const gp_alloc *alloc, gp_sim_counts *out, gp_error *err);
void gp_sim_counts_free(gp_sim_counts *c, const gp_alloc *alloc);

#endif
