/*
 * multiwarp.h -- GPUMech's multi-warp model (Huang et al., MICRO 2014,
 * Sec. IV): non-overlapped instructions under round-robin (Eq. 10-11) and
 * greedy-then-oldest (Eq. 12-16) scheduling, their total (Eq. 8) and the
 * issue probability (Eq. 9); MSHR (Eq. 18-20) and DRAM (Eq. 21-23) queueing
 * per interval (queue.h); the combined cycles and CPI (Eq. 7 and 17 as
 * DESIGN.md reads them); the CPI stack (Sec. VII, Table III); and Table II's
 * comparison models (Naive_Interval, Markov_Chain, MT, MT_MSHR,
 * MT_MSHR_BAND).
 *
 * The model applies per warp scheduler: #warps is the number of warps that
 * scheduler owns, the issue rate is that scheduler's; the MSHRs (Eq. 18) are
 * the SM's, shared by all warps resident on the SM.
 */
#ifndef GP_MULTIWARP_H
#define GP_MULTIWARP_H

#include "gp_common.h"
#include "interval.h"
#include "machine.h"

typedef enum gp_mw_policy { GP_MW_RR, GP_MW_GTO } gp_mw_policy;

/* Table II. */
typedef enum gp_mw_model {
  GP_MW_NAIVE,        /* Naive_Interval: Eq. 1, capped at the issue rate */
  GP_MW_MT,           /* multithreading only (Sec. IV-A) */
  GP_MW_MT_MSHR,      /* + MSHR queueing (Sec. IV-B1) */
  GP_MW_MT_MSHR_BAND, /* + DRAM bandwidth queueing (Sec. IV-B2): GPUMech */
  GP_MW_MARKOV        /* Markov_Chain: Chen and Aamodt's chain over #warps (markov.h),
                         no queueing */
} gp_mw_model;

/* Which set of contention equations a model uses (docs/gpumech.md shows
 * both, equation by equation). */
typedef enum gp_mw_equations {
  /* The paper's Eq. 17-23 with DESIGN.md's errata: Eq. 19's burst wait x
   * Eq. 20's memory instructions, Eq. 21's per-interval M/D/1, the delays
   * added once to the shared timeline, the DRAM floor. */
  GP_MW_EQ_PAPER,
  /* gpush's: every contended resource (the SM's MSHRs, the DRAM channels,
   * the L2 slices, each scheduler's issue slot and units) is a queue of
   * servers in steady state.  Its utilisation is its demand over the wave's
   * cycles, its wait per visit the M/D/c wait at that utilisation, each
   * interval's overlapping requests wait once, and the wave is never
   * shorter than any resource's demand (Little's law).  The cycles are the
   * fixed point of cycles = max(latency path + waits, demands). */
  GP_MW_EQ_GPUSH
} gp_mw_equations;

/* Unit ids of a scheduler's pipelines (interval.h's GP_IV_UNITS slots):
 * the machine's units (machine.h, the simulator's): FP32 and IMAD share
 * FMA; branches, barriers and the rest use OTHER; LSU is busy a cycle per
 * line request or shared-memory bank pass. */
enum {
  GP_MW_UNIT_INT = GP_UNIT_INT, GP_MW_UNIT_FMA = GP_UNIT_FMA, GP_MW_UNIT_FP64 = GP_UNIT_FP64,
  GP_MW_UNIT_SFU = GP_UNIT_SFU, GP_MW_UNIT_TENSOR = GP_UNIT_TENSOR,
  GP_MW_UNIT_UNIFORM = GP_UNIT_UNIFORM, GP_MW_UNIT_OTHER = GP_UNIT_OTHER,
  GP_MW_UNIT_LSU = GP_UNIT_LSU, GP_MW_UNIT_N = GP_UNIT_COUNT
};

/* CPI-stack categories, in CPI units: Table III's seven, then gpush's
 * throughput categories (zero under the paper's equations): L2BW the L2
 * slices' request rate, SFU and FP64 those units' issue throughput, PIPE the
 * other compute pipelines narrower than the issue rate (INT, FMA, TENSOR,
 * UNIFORM, OTHER), LSU the load-store unit's line requests, BANK its
 * shared-memory bank-conflict passes and their extra latency. */
enum {
  GP_MW_BASE, GP_MW_DEP, GP_MW_L1, GP_MW_L2, GP_MW_DRAM, GP_MW_MSHR, GP_MW_QUEUE,
  GP_MW_L2BW, GP_MW_SFU, GP_MW_FP64, GP_MW_PIPE, GP_MW_LSU, GP_MW_BANK,
  GP_MW_STACK_N
};

/* Columns of a cause-mix row: how one cause id's stall cycles split.
 * BANK (a shared-memory PC's extra bank-pass latency) counts as L1 under
 * the paper's equations (Table III has no category for it). */
enum { GP_MW_MIX_DEP, GP_MW_MIX_L1, GP_MW_MIX_L2, GP_MW_MIX_DRAM, GP_MW_MIX_BANK, GP_MW_MIX_N };

/* Resources of gpush's equations, in the order gp_mw_result reports them.
 * gp_mw_result.bound is the busiest resource when its demand sets the
 * cycles or keeps it at least GP_MW_BOUND_UTILISATION busy, else LATENCY
 * (the warps' own path). */
#define GP_MW_BOUND_UTILISATION 0.9
enum {
  GP_MW_RES_LATENCY, GP_MW_RES_ISSUE, GP_MW_RES_MSHR, GP_MW_RES_DRAM, GP_MW_RES_L2,
  GP_MW_RES_UNIT /* + unit id */, GP_MW_RES_N = GP_MW_RES_UNIT + GP_MW_UNIT_N
};

typedef struct gp_mw_params {
  gp_mw_policy policy;
  gp_mw_model model;
  gp_mw_equations equations;
  double warps;                   /* #warps of this scheduler (>= 1) */
  double issue_rate;              /* warp instructions per cycle (> 0); must match the
                                     profile's issue_cycles = 1 / issue_rate */
  double issue_prob;              /* <= 0: Eq. 9; > 0: used as given (Fig. 8's aligned
                                     warps are issue_prob = 1) */
  double warps_per_sm;            /* warps sharing the SM's MSHRs (Eq. 18); <= 0: warps */
  double mshrs;                   /* MSHR entries per SM */
  double avg_miss_latency_cycles; /* the service time of an MSHR: the paper's, Eq. 19's
                                     average miss latency (per load instruction, by its
                                     slowest request); gpush's equations, each request's
                                     own mean round trip (an entry is held by one request:
                                     Little's law), the caller's to give */
  double sms_with_blocks;         /* Eq. 21/23 #cores */
  double dram_service_cycles;     /* Eq. 22's s (gp_q_dram_service_cycles) */
  double kernel_dram_reqs_per_warp; /* the kernel's DRAM requests per warp (all warps'
                                     mean; 0: unknown), for the DRAM floor */
  /* Per cause id (profile ncause rows) the split of its stall cycles into
   * DEP, L1, L2, DRAM, BANK (GP_MW_MIX_N columns; rows are normalised by
   * their sum; a zero row or a NULL table means DEP).  A memory PC's row is
   * its miss-event distribution (Sec. VII: 10% L2 hit / 90% miss -> 10% L2,
   * 90% DRAM). */
  const double *cause_mix;
  /* GP_MW_EQ_GPUSH only.  The mean warp's demand (the kernel's totals over
   * its warps), which sets every resource's utilisation; 0 takes the
   * representative warp's own. */
  double kernel_insts_per_warp;
  double kernel_l1_miss_reqs_per_warp;
  double kernel_l2_reqs_per_warp;
  double kernel_unit_busy_per_warp[GP_MW_UNIT_N]; /* cycles per scheduler unit */
  double kernel_bank_busy_per_warp;  /* of the LSU's, the bank-conflict passes (BANK) */
  double dram_channels;           /* DRAM servers (>= 1; 0: 1); each serves a request in
                                     channels x dram_service_cycles */
  double l2_slices;               /* L2 servers (0: no L2 term) */
  double l2_service_cycles;       /* a slice's cycles per request (l2.interval) */
  double miss_dram_fraction;      /* of the L1-missing load requests, the share that reaches
                                     DRAM (they hold their MSHR through the DRAM queue too) */
} gp_mw_params;

typedef struct gp_mw_result {
  double issue_prob;             /* Eq. 9 (or the given value) */
  double avg_interval_insts;     /* Eq. 13 */
  double insts;                  /* #warps x the warp's instructions (gpush: the mean
                                    warp's when kernel_insts_per_warp is given) */
  double base_cycles;            /* insts / issue rate: the issue bound */
  double warp_cycles;            /* the representative warp's total_cycles */
  double nonoverlapped;          /* Eq. 8 (0 for NAIVE) */
  double remaining_stall_cycles; /* max(warp_cycles + nonoverlapped / rate - base, 0):
                                    stall cycles no other warp hides (Fig. 8: RR 3) */
  double mshr_cycles;            /* MSHR queueing: paper sum of Eq. 20; gpush the MSHR
                                    waits plus any excess the MSHR demand sets */
  double dram_cycles;            /* DRAM queueing: paper sum of Eq. 21 (+ floor) */
  size_t dram_rho_capped;        /* intervals whose utilisation hit GP_Q_RHO_MAX */
  size_t dram_delay_capped;      /* intervals where Eq. 21's half-outstanding cap won */
  int issue_bound;               /* the cycles were raised to base_cycles */
  double dram_transfer_cycles;   /* MT_MSHR_BAND: every SM's DRAM requests (the larger of
                                    the representative warp's and the kernel's mean per
                                    warp) x the service time: the least time the DRAM
                                    needs for them */
  int bandwidth_bound;           /* the cycles were raised to dram_transfer_cycles */
  double markov_p_stall;         /* MARKOV: the chain's p and M (in issue slots) and its */
  double markov_stall_slots;     /* instructions per issue slot (1 - pi_N) */
  double markov_ipc;
  /* GP_MW_EQ_GPUSH: per resource (GP_MW_RES_*; LATENCY holds the latency
   * path with its waits) the cycles its demand needs in the wave, its
   * utilisation and its wait per visit at the solution, and the binding
   * one. */
  double demand_cycles[GP_MW_RES_N];
  double utilisation[GP_MW_RES_N];
  double wait_cycles[GP_MW_RES_N];
  int bound;                     /* GP_MW_RES_*: LATENCY when no demand sets the cycles */
  double cycles;                 /* scheduler cycles for `insts` instructions */
  double cpi, ipc;               /* cycles / insts and its inverse */
  double stack[GP_MW_STACK_N];   /* CPI stack, sums to cpi */
} gp_mw_result;

/* Eq. 10-11: RR non-overlapped instructions of one interval. */
double gp_mw_nonoverlapped_rr(double interval_insts, double issue_prob, double warps);

/* Eq. 12-16 with DESIGN.md's errata (Eq. 15: min(issue_prob x stall, 1);
 * Eq. 16: max(issued - stall x issue_rate, 0)): GTO non-overlapped
 * instructions of one interval. */
double gp_mw_nonoverlapped_gto(double stall_cycles, double issue_prob, double warps,
                               double avg_interval_insts, double issue_rate);

/* gpush's GTO non-overlapped instructions of one interval (docs/gpumech.md,
 * "RR and GTO"): Eq. 12-16 with the other warps' mean interval
 * (`others_interval_insts`) for Eq. 13's, and at most the rest of one such
 * interval.  GTO gives the oldest ready warp the scheduler once the greedy
 * warp stalls, so the representative, ready after its stall, waits for the
 * greedy warp's interval to end, not for every warp that issued in its
 * stall; the rest of that backlog is the issue slots' demand, which gpush's
 * equations already take as the wave's floor. */
double gp_mw_nonoverlapped_gto_gpush(double stall_cycles, double issue_prob, double warps,
                                     double others_interval_insts, double issue_rate);

/* The multi-warp prediction for one scheduler from the representative
 * warp's profile (which must hold its intervals unless the model is NAIVE).
 * Under the paper's equations:
 *   cycles = max(total_cycles + nonoverlapped / issue_rate
 *                + sum(MSHR_delay_i) + sum(Bandwidth_delay_i),
 *                #warps x insts / issue_rate)
 *   CPI = cycles / (#warps x insts)
 * (Eq. 7 is an IPC written as a CPI; Eq. 17's delays extend the timeline
 * all the scheduler's warps share rather than one warp's CPI.)  NAIVE:
 * cycles = max(total_cycles, #warps x insts / issue_rate) (Eq. 1).  MARKOV:
 * cycles = #warps x insts / (issue_rate x (1 - pi_N)) with the chain's
 * inputs from the profile (gp_mc_params_from_profile).  Under gpush's
 * equations (MT and up) the contention terms are the steady-state queues of
 * gp_mw_equations; MT_MSHR adds the MSHRs, MT_MSHR_BAND also the DRAM, the
 * L2 slices and the scheduler's units; NAIVE and MARKOV are as above. */
int gp_mw_predict(const gp_iv_profile *p, const gp_mw_params *par, gp_mw_result *out,
                  gp_error *err);

#endif
