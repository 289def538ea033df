/*
 * gpumech_multiwarp.c -- GPUMech's multi-warp model (Sec. IV): overlap under
 * round-robin and greedy-then-oldest scheduling, MSHR and DRAM queueing.
 */
#include "gpumech.h"

#include <math.h>

double gp_nonoverlapped_rr(const gp_interval *iv, double issue_prob, double warps) {
  double waiting_slots = iv->insts > 1 ? iv->insts - 1 : 0;   /* Eq. 10 */
  return issue_prob * (warps - 1) * waiting_slots;            /* Eq. 11 */
}

double gp_nonoverlapped_gto(const gp_interval *iv, double issue_prob, double warps,
                            double avg_interval_insts, double issue_rate) {
  /* Eq. 15 as corrected: a probability is capped at 1 */
  double prob_in_stall = fmin(issue_prob * iv->stall_cycles, 1.0);
  double issue_warps = prob_in_stall * (warps - 1);            /* Eq. 14 */
  double issued = avg_interval_insts * issue_warps;            /* Eq. 12 */
  /* Eq. 16 as corrected: never negative */
  return fmax(issued - iv->stall_cycles * issue_rate, 0.0);
}

double gp_mshr_expected_delay(double core_reqs, double mshrs, double avg_miss_latency) {
  /* Eq. 19: request j (1-based) waits ceil(j / #MSHR) service rounds; the
   * sum over j has a closed form by whole rounds */
  double n = floor(core_reqs), full, rest, sum;
  if (n <= 0 || mshrs <= 0)
    return 0;
  full = floor(n / mshrs);             /* complete rounds of #MSHR requests */
  rest = n - full * mshrs;             /* requests in the last, partial round */
  sum = mshrs * full * (full + 1) / 2 + rest * (full + 1);
  return avg_miss_latency * sum / n - avg_miss_latency;
}

double gp_dram_delay(double core_reqs, double cores, double interval_cycles,
                     double service_cycles, int *capped) {
  double all = core_reqs * cores, lambda, rho, queue, cap;
  *capped = 0;
  if (all <= 0 || interval_cycles <= 0 || service_cycles <= 0)
    return 0;
  lambda = all / interval_cycles;                  /* Eq. 23 */
  rho = lambda * service_cycles;                   /* Eq. 22 */
  if (rho >= 0.999) {                              /* DESIGN.md: keep rho below 1 */
    rho = 0.999;
    *capped = 1;
  }
  queue = lambda * service_cycles * service_cycles / (2 * (1 - rho)); /* Eq. 21 */
  cap = service_cycles * all / 2;
  if (queue > cap) {
    queue = cap;
    *capped = 1;
  }
  return queue;
}

void gp_multiwarp(const gp_interval_profile *p, const gp_multiwarp_input *in,
                  gp_multiwarp_result *out) {
  double issue_prob = gp_warp_perf(p, 1.0); /* Eq. 9 */
  double avg_interval_insts = p->count ? p->insts / (double)p->count : 0; /* Eq. 13 */
  double floor_cycles;
  size_t i;
  out->nonoverlapped = out->mshr_delay = out->dram_delay = 0;
  out->dram_capped = 0;
  for (i = 0; i < p->count; i++) {
    const gp_interval *iv = &p->intervals[i];
    out->nonoverlapped += in->policy == GP_POLICY_RR
                              ? gp_nonoverlapped_rr(iv, issue_prob, in->warps)
                              : gp_nonoverlapped_gto(iv, issue_prob, in->warps,
                                                     avg_interval_insts, in->issue_rate);
    if (in->model_mshr) {
      double core_reqs = iv->l1_miss_reqs * in->warps_per_sm; /* Eq. 18 */
      if (core_reqs > in->mshrs)                                /* Eq. 20 */
        out->mshr_delay += gp_mshr_expected_delay(core_reqs, in->mshrs, in->avg_miss_latency) *
                           iv->mem_insts;
    }
    if (in->model_dram) {
      int capped;
      out->dram_delay += gp_dram_delay(iv->dram_reqs * in->warps_per_sm, in->cores,
                                       iv->insts / in->issue_rate + iv->stall_cycles,
                                       in->dram_service_cycles, &capped);
      out->dram_capped |= capped;
    }
  }
  out->base_cycles = in->warps * p->insts / in->issue_rate;
  out->cycles = p->total_cycles + out->nonoverlapped / in->issue_rate + out->mshr_delay +
                out->dram_delay;
  floor_cycles = out->base_cycles;
  if (out->cycles < floor_cycles)
    out->cycles = floor_cycles;
  out->cpi = in->warps * p->insts > 0 ? out->cycles / (in->warps * p->insts) : 0;
}
