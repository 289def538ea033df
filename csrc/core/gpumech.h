/*
 * gpumech.h -- GPUMech's analytical core (Huang et al., MICRO 2014):
 * interval profiles (Eq. 4-5), k-means selection of the representative warp
 * (Eq. 6), the multithreading model for round-robin and greedy-then-oldest
 * scheduling (Eq. 7-16), and the MSHR (Eq. 17-20) and DRAM M/D/1 (Eq. 21-23)
 * queueing models, with the errata of DESIGN.md.
 *
 * Everything here works on plain arrays, so it can be tested against the
 * paper's worked examples without a trace or a configuration.
 */
#ifndef GP_GPUMECH_H
#define GP_GPUMECH_H

#include "gp_common.h"

/* ---------------------------------------------------------------------------
 * Interval profiles (Sec. III-B)
 * ------------------------------------------------------------------------- */

/* One warp's instruction stream for the interval algorithm. */
typedef struct gp_warp_stream {
  uint64_t count;
  const uint32_t *pc_index;  /* static instruction of each dynamic one */
  const uint16_t *dep;       /* distance back to the nearest producer, 0 none */
  const uint16_t *dep_load;  /* distance back to the nearest load producer */
  const double *pc_latency;  /* per static PC: producer issue to consumer issue */
  const double *pc_l1_miss_reqs; /* per static PC: expected L1-missing requests
                                    per instruction (MSHR users), may be NULL */
  const double *pc_dram_reqs;    /* per static PC: expected DRAM requests per
                                    instruction (stores included), may be NULL */
  const uint8_t *pc_is_memory;   /* per static PC: a memory instruction */
} gp_warp_stream;

/* One interval: instructions issued back to back, then stall cycles. */
typedef struct gp_interval {
  double insts;
  double stall_cycles;
  int64_t cause_pc;          /* static PC whose latency ended it, -1 none */
  double mem_insts;          /* memory instructions in the interval */
  double l1_miss_reqs;       /* expected L1-missing requests (Eq. 18) */
  double dram_reqs;          /* expected DRAM requests (Eq. 23) */
} gp_interval;

typedef struct gp_interval_profile {
  gp_alloc alloc;
  gp_interval *intervals;
  size_t count, cap;
  double insts, stall_cycles;
  double total_cycles;       /* insts / issue rate + stall cycles */
} gp_interval_profile;

/* Runs the interval algorithm (Eq. 4) over one warp.  Project convention: a
 * dependent instruction issues L cycles after its producer, so the paper's
 * done_cycle + 1 is issue(producer) + L (the "+1" is absorbed into L):
 *   issue(k+1) = max(issue(k) + 1, issue(p) + L(p)) over its producers p
 * (the nearest producer and the nearest load producer).  A new interval
 * starts where issue(k+1) > issue(k) + 1; the gap is its predecessor's stall,
 * caused by the producer that set issue(k+1). */
int gp_interval_run(gp_interval_profile *out, const gp_alloc *alloc,
                    const gp_warp_stream *warp, gp_error *err);
void gp_interval_free(gp_interval_profile *p);

/* Eq. 5 (and Eq. 9, the same quantity): instructions over
 * (instructions / issue rate + stall cycles). */
double gp_warp_perf(const gp_interval_profile *p, double issue_rate);

/* ---------------------------------------------------------------------------
 * Representative warp (Sec. III-C)
 * ------------------------------------------------------------------------- */

typedef enum gp_select {
  GP_SELECT_KMEANS, /* nearest the centre of the largest of k clusters */
  GP_SELECT_MAX,    /* the warp with the most total cycles */
  GP_SELECT_MIN,    /* the warp with the fewest */
  GP_SELECT_RANDOM  /* a seeded draw */
} gp_select;

/* k-means over n points of d features (row-major), features first divided
 * by their means (Eq. 6); k-means++ seeding from a fixed seed; Lloyd
 * iterations until assignments stop changing (at most 100).  Ties go to the
 * lowest index.  Writes each point's cluster to assign (may be NULL) and
 * returns the index of the point nearest the centre of the largest cluster
 * (lowest cluster index among equally large ones).  Works for n < k, n = 1 and
 * identical points. */
int64_t gp_kmeans_representative(const double *points, size_t n, size_t d, size_t k,
                                 uint64_t seed, const gp_alloc *alloc, uint32_t *assign);

/* ---------------------------------------------------------------------------
 * Multithreading and contention (Sec. IV)
 * ------------------------------------------------------------------------- */

typedef enum gp_policy { GP_POLICY_RR, GP_POLICY_GTO } gp_policy;

/* Non-overlapped instructions of one interval (Eq. 10-16, errata applied:
 * Eq. 15 is min(issue_prob x stall, 1), Eq. 16 is max(issued - stall, 0)). */
double gp_nonoverlapped_rr(const gp_interval *iv, double issue_prob, double warps);
double gp_nonoverlapped_gto(const gp_interval *iv, double issue_prob, double warps,
                            double avg_interval_insts, double issue_rate);

/* Eq. 19: expected queueing delay of a request when core_reqs requests
 * share `mshrs` entries, each served in avg_miss_latency. */
double gp_mshr_expected_delay(double core_reqs, double mshrs, double avg_miss_latency);

/* Eq. 21-23: M/D/1 DRAM queueing delay of an interval.  service_cycles is
 * s = freq_core x L / B; arrival rate from all cores' requests over the
 * interval's cycles; utilisation capped below 1 (DESIGN.md) and the delay
 * capped at half the outstanding requests (Eq. 21).  *capped reports
 * whether a cap engaged. */
double gp_dram_delay(double core_reqs, double cores, double interval_cycles,
                     double service_cycles, int *capped);

/* Inputs of the multi-warp model for one warp scheduler. */
typedef struct gp_multiwarp_input {
  gp_policy policy;
  double warps;          /* warps this scheduler owns */
  double issue_rate;     /* warp instructions per cycle of this scheduler */
  double mshrs;          /* per SM */
  double warps_per_sm;   /* warps sharing the SM's MSHRs (Eq. 18) */
  double cores;          /* SMs holding blocks (Eq. 21, 23) */
  double avg_miss_latency;   /* cycles (Eq. 19) */
  double dram_service_cycles; /* s (Eq. 22) */
  int model_mshr, model_dram; /* switch the contention terms (Table II) */
} gp_multiwarp_input;

typedef struct gp_multiwarp_result {
  double cycles;             /* core cycles for #warps x insts instructions */
  double cpi;                /* cycles / (#warps x insts) */
  double base_cycles;        /* (#warps x insts) / issue rate: the issue bound */
  double nonoverlapped;      /* Eq. 8 */
  double mshr_delay, dram_delay; /* Eq. 20 and 21, summed over intervals */
  int dram_capped;
} gp_multiwarp_result;

/* The reading of Eq. 7 and Eq. 17 in DESIGN.md: the queueing delays extend
 * the representative warp's timeline, which every warp shares, so
 *   cycles = total_cycles + nonoverlapped / issue rate + sum(MSHR + DRAM delays)
 * never below (#warps x insts) / issue rate, and CPI = cycles / (#warps x insts). */
void gp_multiwarp(const gp_interval_profile *p, const gp_multiwarp_input *in,
                  gp_multiwarp_result *out);

#endif
