/*
 * markov.h -- the Markov-chain throughput model of a fine-grained
 * multithreaded core after Chen and Aamodt, "A First-Order Fine-Grained
 * Multithreaded Throughput Model" (HPCA 2009), GPUMech's reference [9] and
 * Table II's Markov_Chain comparison model.
 *
 * What this implements (the paper's full text was not available; see
 * docs/gpumech.md): the states are the number of suspended (stalled)
 * threads k = 0..N (the HPCA 2009 abstract: "the number of stalled threads
 * as the states ... transition probabilities based upon the rates and
 * latencies of events stalling a thread"); GPUMech Sec. VIII's summary
 * gives the per-thread transitions: an active thread becomes suspended with
 * probability p, a suspended one becomes active with probability 1/M.
 * One issue slot per step:
 *   - if k < N, one active thread issues, and suspends with probability p;
 *   - each of the k threads suspended at the start of the step wakes
 *     independently with probability q = 1/M (M >= 1 slots; M < 1 counts
 *     as 1), so the wake-ups are Binomial(k, q);
 *   - k' = k - wakeups + (1 if the issued instruction stalled).
 * The throughput is the probability that some thread can issue,
 *   IPC = 1 - pi_N   (instructions per issue slot),
 * with pi the stationary distribution.  For N = 1 this is 1 / (1 + p M):
 * a single thread's CPI with a mean suspension of M slots per stall.
 */
#ifndef GP_MARKOV_H
#define GP_MARKOV_H

#include "gp_common.h"

typedef struct gp_mc_result {
  size_t threads;        /* N */
  double p_stall;        /* p as used (clamped to [0, 1]) */
  double stall_slots;    /* M as used (>= 1) */
  double ipc;            /* instructions per issue slot: 1 - pi_N */
  double cpi;            /* 1 / ipc (slots per instruction) */
  double p_all_stalled;  /* pi_N */
  double mean_stalled;   /* sum k pi_k */
} gp_mc_result;

/* Solves the chain for N = threads >= 1 (dense Gaussian elimination with
 * partial pivoting on the (N+1)-state balance equations, O(N^3); N is the
 * warps of one scheduler, so tens).  pi (N + 1 entries) may be NULL. */
int gp_mc_solve(size_t threads, double p_stall, double stall_slots, const gp_alloc *alloc,
                double *pi, gp_mc_result *out, gp_error *err);

/* The chain's inputs from a warp's interval profile, as GPUMech evaluated
 * it against the same representative warp: every interval that ends in a
 * stall is one stall event, so p = stall_events / insts and M = mean stall
 * per event in issue slots, (stall_cycles / stall_events) / issue_cycles
 * (so a single thread reproduces the warp's own total cycles exactly).
 * p = 0, M = 1 when there are no stalls. */
void gp_mc_params_from_profile(double insts, double stall_cycles, double stall_events,
                               double issue_cycles, double *p_stall, double *stall_slots);

#endif
