/*
 * multiwarp.c -- GPUMech's multi-warp model (Sec. IV), Table II's
 * comparison models and the CPI stack (Sec. VII).
 */
#include "multiwarp.h"
#include "markov.h"
#include "queue.h"

#include <math.h>
#include <string.h>

double gp_mw_nonoverlapped_rr(double interval_insts, double issue_prob, double warps) {
  double slots = interval_insts > 1 ? interval_insts - 1 : 0; /* Eq. 10 */
  double others = warps > 1 ? warps - 1 : 0;
  return issue_prob * others * slots;                          /* Eq. 11 */
}

double gp_mw_nonoverlapped_gto(double stall_cycles, double issue_prob, double warps,
                               double avg_interval_insts, double issue_rate) {
  double others = warps > 1 ? warps - 1 : 0;
  double prob_in_stall = fmin(issue_prob * stall_cycles, 1.0);     /* Eq. 15 (erratum) */
  double issue_warps = prob_in_stall * others;                     /* Eq. 14 */
  double issued = avg_interval_insts * issue_warps;                /* Eq. 12 */
  return fmax(issued - stall_cycles * issue_rate, 0.0);            /* Eq. 16 (erratum) */
}

/* Adds `cycles` of representative-warp stall to the stack by the profile's
 * per-cause shares, each cause split by its cause-mix row. */
static void apportion_stall(const gp_iv_profile *p, const double *mix, double cycles,
                            double *stack) {
  size_t c, j;
  if (!(cycles > 0))
    return;
  if (!(p->stall_cycles > 0)) {
    stack[GP_MW_DEP] += cycles;
    return;
  }
  for (c = 0; c < p->ncause; c++) {
    double share = cycles * (p->cause_stall[c] / p->stall_cycles), sum = 0;
    const double *row = mix ? mix + c * GP_MW_MIX_N : NULL;
    if (!(share > 0))
      continue;
    if (row)
      for (j = 0; j < GP_MW_MIX_N; j++)
        sum += row[j] > 0 ? row[j] : 0;
    if (!(sum > 0)) {
      stack[GP_MW_DEP] += share;
      continue;
    }
    for (j = 0; j < GP_MW_MIX_N; j++)
      stack[GP_MW_DEP + j] += row[j] > 0 ? share * row[j] / sum : 0;
  }
}

/* Which terms each Table II model includes. */
static int models_overlap(gp_mw_model m) {
  return m == GP_MW_MT || m == GP_MW_MT_MSHR || m == GP_MW_MT_MSHR_BAND;
}
static int models_mshr(gp_mw_model m) { return m == GP_MW_MT_MSHR || m == GP_MW_MT_MSHR_BAND; }
static int models_dram(gp_mw_model m) { return m == GP_MW_MT_MSHR_BAND; }

/* Per-interval terms: Eq. 8's sum of non-overlapped instructions and the
 * MSHR (Eq. 18-20) and DRAM (Eq. 21-23) delays. */
static void sum_intervals(const gp_iv_profile *p, const gp_mw_params *par, gp_mw_result *out) {
  double r = par->issue_rate, wsm = par->warps_per_sm > 0 ? par->warps_per_sm : par->warps;
  size_t i;
  for (i = 0; i < p->count; i++) {
    const gp_iv_interval *iv = &p->iv[i];
    double insts = (double)iv->insts;
    out->nonoverlapped +=
        par->policy == GP_MW_RR
            ? gp_mw_nonoverlapped_rr(insts, out->issue_prob, par->warps)
            : gp_mw_nonoverlapped_gto(iv->stall_cycles, out->issue_prob, par->warps,
                                      out->avg_interval_insts, r);
    if (models_mshr(par->model))
      out->mshr_cycles += gp_q_mshr_delay_cycles(gp_q_core_reqs(iv->l1_miss_reqs, wsm),
                                                 par->mshrs, par->avg_miss_latency_cycles,
                                                 iv->mem_insts);
    if (models_dram(par->model)) {
      gp_q_dram q;
      gp_q_dram_delay(gp_q_core_reqs(iv->dram_reqs, wsm), par->sms_with_blocks,
                      insts / r + iv->stall_cycles, par->dram_service_cycles, &q);
      out->dram_cycles += q.delay_cycles;
      out->dram_transfer_cycles += q.outstanding_reqs * par->dram_service_cycles;
      out->dram_rho_capped += (size_t)q.rho_capped;
      out->dram_delay_capped += (size_t)q.delay_capped;
    }
  }
}

/* Markov_Chain (Table II): the chain of markov.h over the scheduler's
 * warps, fed with the representative warp's stall rate and mean stall
 * length; its instructions per issue slot scale the issue bound. */
static int markov_cycles(const gp_iv_profile *p, const gp_mw_params *par, gp_mw_result *out,
                         gp_error *err) {
  gp_alloc alloc = gp_alloc_default();
  gp_mc_result mc;
  double threads = floor(par->warps + 0.5);
  gp_mc_params_from_profile((double)p->insts, p->stall_cycles, (double)p->stall_events,
                            p->issue_cycles, &out->markov_p_stall, &out->markov_stall_slots);
  if (gp_mc_solve((size_t)threads, out->markov_p_stall, out->markov_stall_slots, &alloc, NULL,
                  &mc, err) != GP_OK)
    return GP_ERR;
  if (!(mc.ipc > 0))
    return gp_error_set(err, "multiwarp: the Markov chain predicts no issue (p=%g, M=%g)",
                        mc.p_stall, mc.stall_slots);
  out->markov_ipc = mc.ipc;
  return GP_OK;
}

int gp_mw_predict(const gp_iv_profile *p, const gp_mw_params *par, gp_mw_result *out,
                  gp_error *err) {
  double r = par->issue_rate, stall_part, queue, extra;
  size_t j;
  memset(out, 0, sizeof *out);
  if (!(r > 0) || !(par->warps >= 1))
    return gp_error_set(err, "multiwarp: need issue_rate > 0 and warps >= 1 (got %g, %g)", r,
                        par->warps);
  if (p->insts > 0 && fabs(p->issue_cycles * r - 1) > 1e-9)
    return gp_error_set(err,
                        "multiwarp: the profile was built at %g cycles per issue, the model "
                        "runs at issue rate %g",
                        p->issue_cycles, r);
  if (models_overlap(par->model) && p->count > 0 && p->iv == NULL)
    return gp_error_set(err, "multiwarp: the profile holds totals only; rerun the interval "
                             "pass without totals_only");
  if (models_mshr(par->model) && !(par->mshrs >= 1))
    return gp_error_set(err, "multiwarp: need mshrs >= 1 (got %g)", par->mshrs);
  out->insts = par->warps * (double)p->insts;
  out->base_cycles = out->insts / r;
  out->warp_cycles = p->total_cycles;
  out->issue_prob = par->issue_prob > 0 ? par->issue_prob : gp_iv_warp_perf(p); /* Eq. 9 */
  out->avg_interval_insts = p->count ? (double)p->insts / (double)p->count : 0; /* Eq. 13 */
  if (p->insts == 0) {
    out->stack[GP_MW_BASE] = 1 / r;
    return GP_OK;
  }
  if (models_overlap(par->model))
    sum_intervals(p, par, out);
  if (par->model == GP_MW_MARKOV) {
    if (markov_cycles(p, par, out, err) != GP_OK)
      return GP_ERR;
    stall_part = out->base_cycles / out->markov_ipc;
  } else {
    /* Eq. 7 (as an IPC's reciprocal) with Eq. 17's delays on the shared
     * timeline, never below the issue bound */
    stall_part = p->total_cycles + out->nonoverlapped / r;
  }
  queue = out->mshr_cycles + out->dram_cycles;
  if (models_dram(par->model)) {
    double wsm = par->warps_per_sm > 0 ? par->warps_per_sm : par->warps;
    double mean = par->kernel_dram_reqs_per_warp * wsm * par->sms_with_blocks * par->dram_service_cycles;
    if (mean > out->dram_transfer_cycles) /* the representative warp reads less than most */
      out->dram_transfer_cycles = mean;
  }
  if (models_dram(par->model) && stall_part + queue < out->dram_transfer_cycles) {
    /* Deviation: Eq. 21 caps each interval's M/D/1 delay at half its
     * outstanding requests' service, so a saturated DRAM can be predicted
     * to move more bytes per cycle than it has.  The DRAM needs at least
     * dram_transfer_cycles for the wave's requests; the shortfall is DRAM
     * queueing (QUEUE). */
    double shortfall = out->dram_transfer_cycles - (stall_part + queue);
    out->dram_cycles += shortfall;
    queue += shortfall;
    out->bandwidth_bound = 1;
  }
  out->remaining_stall_cycles = fmax(stall_part - out->base_cycles, 0);
  out->cycles = stall_part + queue;
  if (out->cycles < out->base_cycles) {
    out->cycles = out->base_cycles;
    out->issue_bound = 1;
  }
  out->cpi = out->cycles / out->insts;
  out->ipc = out->insts / out->cycles;
  /* CPI stack (Sec. VII): BASE is the issue bound; the stall cycles left
   * above it split by the warp's per-cause stall shares (the paper shrinks
   * the warp's stack by the multithreading factor, which keeps those
   * shares); MSHR and QUEUE are the queueing delays.  When the stalls are
   * hidden entirely, the cycles above the bound are queueing only, split
   * MSHR : QUEUE in proportion to the two delays. */
  out->stack[GP_MW_BASE] = out->base_cycles;
  extra = out->cycles - out->base_cycles;
  if (stall_part >= out->base_cycles) {
    apportion_stall(p, par->cause_mix, stall_part - out->base_cycles, out->stack);
    out->stack[GP_MW_MSHR] = out->mshr_cycles;
    out->stack[GP_MW_QUEUE] = out->dram_cycles;
  } else if (queue > 0) {
    out->stack[GP_MW_MSHR] = extra * out->mshr_cycles / queue;
    out->stack[GP_MW_QUEUE] = extra * out->dram_cycles / queue;
  }
  for (j = 0; j < GP_MW_STACK_N; j++)
    out->stack[j] /= out->insts;
  return GP_OK;
}
