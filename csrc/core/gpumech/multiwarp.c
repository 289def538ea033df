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

/* A mean per warp from the kernel, or the representative warp's own. */
static double mean_or(double kernel_mean, double own) { return kernel_mean > 0 ? kernel_mean : own; }

double gp_mw_nonoverlapped_gto_gpush(double stall_cycles, double issue_prob, double warps,
                                     double others_interval_insts, double issue_rate) {
  double backlog = gp_mw_nonoverlapped_gto(stall_cycles, issue_prob, warps,
                                           others_interval_insts, issue_rate);
  return fmin(backlog, fmax(others_interval_insts - 1, 0));
}

_Static_assert(GP_MW_UNIT_N == GP_IV_UNITS, "one profile unit slot per scheduler unit");

/* Adds `cycles` of representative-warp stall to the stack by the profile's
 * per-cause shares, each cause split by its cause-mix row (columns DEP, L1,
 * L2, DRAM, BANK; BANK counts as L1 under the paper's equations). */
static void apportion_stall(const gp_iv_profile *p, const double *mix, gp_mw_equations eq,
                            double cycles, double *stack) {
  static const int paper_cat[GP_MW_MIX_N] = {GP_MW_DEP, GP_MW_L1, GP_MW_L2, GP_MW_DRAM, GP_MW_L1};
  static const int gpush_cat[GP_MW_MIX_N] = {GP_MW_DEP, GP_MW_L1, GP_MW_L2, GP_MW_DRAM,
                                             GP_MW_BANK};
  const int *cat = eq == GP_MW_EQ_GPUSH ? gpush_cat : paper_cat;
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
      stack[cat[j]] += row[j] > 0 ? share * row[j] / sum : 0;
  }
}

/* Which terms each Table II model includes. */
static int models_overlap(gp_mw_model m) {
  return m == GP_MW_MT || m == GP_MW_MT_MSHR || m == GP_MW_MT_MSHR_BAND;
}
static int models_mshr(gp_mw_model m) { return m == GP_MW_MT_MSHR || m == GP_MW_MT_MSHR_BAND; }
static int models_dram(gp_mw_model m) { return m == GP_MW_MT_MSHR_BAND; }

/* Visits of the representative warp to gpush's queues: intervals with
 * L1-missing loads, with DRAM requests, with L2 requests (an interval's
 * requests overlap, so each such interval waits once). */
typedef struct mw_visits {
  double mshr, dram, l2;
} mw_visits;

/* Per-interval terms: Eq. 8's sum of non-overlapped instructions; under the
 * paper's equations the MSHR (Eq. 18-20) and DRAM (Eq. 21-23) delays,
 * under gpush's the visits to each queue. */
static void sum_intervals(const gp_iv_profile *p, const gp_mw_params *par, gp_mw_result *out,
                          mw_visits *visits) {
  double r = par->issue_rate, wsm = par->warps_per_sm > 0 ? par->warps_per_sm : par->warps;
  int paper = par->equations != GP_MW_EQ_GPUSH;
  /* gpush's GTO: the other warps' intervals are the mean warp's (its
   * instructions over the representative's intervals), not the
   * representative's own */
  double others_interval =
      p->count ? mean_or(par->kernel_insts_per_warp, (double)p->insts) / (double)p->count : 0;
  size_t i;
  for (i = 0; i < p->count; i++) {
    const gp_iv_interval *iv = &p->iv[i];
    double insts = (double)iv->insts;
    if (par->policy == GP_MW_RR)
      out->nonoverlapped += gp_mw_nonoverlapped_rr(insts, out->issue_prob, par->warps);
    else if (paper)
      out->nonoverlapped += gp_mw_nonoverlapped_gto(iv->stall_cycles, out->issue_prob, par->warps,
                                                    out->avg_interval_insts, r);
    else
      out->nonoverlapped += gp_mw_nonoverlapped_gto_gpush(iv->stall_cycles, out->issue_prob,
                                                          par->warps, others_interval, r);
    if (!paper) {
      visits->mshr += iv->l1_miss_reqs > 0;
      visits->dram += iv->dram_reqs > 0;
      visits->l2 += iv->l2_reqs > 0;
      continue;
    }
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

/* ---------------------------------------------------------------------------
 * gpush's equations: contended resources as queues in steady state
 * ------------------------------------------------------------------------- */

/* One wave's queues.  Per resource: servers, service time per visit,
 * busy cycles per server the wave's demand needs at that service time
 * (for the MSHRs, requests per server: their service grows with the
 * downstream waits), visits on the latency path. */
typedef struct mw_queues {
  double latency;                 /* the multithreaded latency path without waits */
  double servers[GP_MW_RES_N], service[GP_MW_RES_N], demand[GP_MW_RES_N],
      visits[GP_MW_RES_N];
  /* The closed population's cap on a visit's wait, in services: a visit
   * never waits behind more than every other warp's requests of the same
   * kind (all the wave's warps queued: the saturated steady state, where
   * each waits r - 1 rounds of r = requests / servers). */
  double ahead[GP_MW_RES_N];
  double mshr_reqs_per_server;    /* the SM's L1-missing requests / MSHRs */
  double miss_dram_fraction;
  /* Worked out once per wave for the solve's forty-odd queues_at calls
   * (index_queues): each resource's M/D/c constants and wait cap (ahead x
   * service), and the resources with demand, the issue slots and the
   * MSHRs apart, in ascending order (the only ones queues_at's first loop
   * computes; most of the units have none). */
  gp_q_mdc mdc[GP_MW_RES_N];
  double cap[GP_MW_RES_N];
  uint8_t queued[GP_MW_RES_N];
  size_t queued_n;
} mw_queues;

/* Services a visit can wait for: r - 1 rounds, r = the population's
 * requests of one visit / servers (`per_visit` requests from each of
 * `population` warps; the last of a burst of n starts after n / c - 1
 * rounds). */
static double services_ahead(double per_visit, double population, double servers) {
  double ahead = per_visit * population / servers - 1;
  return ahead > 0 ? ahead : 0;
}

/* The constants queues_at reads at every call (mw_queues' last fields). */
static void index_queues(mw_queues *q) {
  size_t r;
  q->queued_n = 0;
  for (r = GP_MW_RES_ISSUE; r < GP_MW_RES_N; r++) {
    gp_q_mdc_init(&q->mdc[r], q->servers[r]);
    q->cap[r] = q->ahead[r] * q->service[r];
    if (r != GP_MW_RES_ISSUE && r != GP_MW_RES_MSHR && q->demand[r] > 0)
      q->queued[q->queued_n++] = (uint8_t)r;
  }
}

/* Fills the queues of one wave from the parameters, the profile and its
 * visits.  Resources the model does not include keep zero demand. */
static void fill_queues(const gp_iv_profile *p, const gp_mw_params *par, const mw_visits *v,
                         double latency, mw_queues *q) {
  double wsm = par->warps_per_sm > 0 ? par->warps_per_sm : par->warps;
  double cores = par->sms_with_blocks > 0 ? par->sms_with_blocks : 1;
  double insts = mean_or(par->kernel_insts_per_warp, (double)p->insts);
  size_t u;
  memset(q, 0, sizeof *q);
  q->latency = latency;
  q->servers[GP_MW_RES_ISSUE] = 1;
  q->service[GP_MW_RES_ISSUE] = 1 / par->issue_rate;
  q->demand[GP_MW_RES_ISSUE] = par->warps * insts / par->issue_rate;
  if (models_mshr(par->model)) {
    double m = floor(par->mshrs) < 1 ? 1 : floor(par->mshrs);
    q->servers[GP_MW_RES_MSHR] = m;
    q->service[GP_MW_RES_MSHR] = par->avg_miss_latency_cycles;
    q->mshr_reqs_per_server = wsm * mean_or(par->kernel_l1_miss_reqs_per_warp, p->l1_miss_reqs) / m;
    q->visits[GP_MW_RES_MSHR] = v->mshr;
    if (v->mshr > 0)
      q->ahead[GP_MW_RES_MSHR] = services_ahead(p->l1_miss_reqs / v->mshr, wsm, m);
    q->miss_dram_fraction = fmin(fmax(par->miss_dram_fraction, 0), 1);
  }
  if (!models_dram(par->model))
    return;
  if (par->dram_service_cycles > 0) {
    double ch = floor(par->dram_channels) < 1 ? 1 : floor(par->dram_channels);
    q->servers[GP_MW_RES_DRAM] = ch;
    q->service[GP_MW_RES_DRAM] = ch * par->dram_service_cycles;
    q->demand[GP_MW_RES_DRAM] = cores * wsm *
                                mean_or(par->kernel_dram_reqs_per_warp, p->dram_reqs) *
                                par->dram_service_cycles;
    q->visits[GP_MW_RES_DRAM] = v->dram;
    if (v->dram > 0)
      q->ahead[GP_MW_RES_DRAM] = services_ahead(p->dram_reqs / v->dram, cores * wsm, ch);
  }
  if (par->l2_slices >= 1 && par->l2_service_cycles > 0) {
    double slices = floor(par->l2_slices);
    q->servers[GP_MW_RES_L2] = slices;
    q->service[GP_MW_RES_L2] = par->l2_service_cycles;
    q->demand[GP_MW_RES_L2] = cores * wsm * mean_or(par->kernel_l2_reqs_per_warp, p->l2_reqs) *
                              par->l2_service_cycles / slices;
    q->visits[GP_MW_RES_L2] = v->l2;
    if (v->l2 > 0)
      q->ahead[GP_MW_RES_L2] = services_ahead(p->l2_reqs / v->l2, cores * wsm, slices);
  }
  for (u = 0; u < GP_MW_UNIT_N; u++) {
    size_t res = GP_MW_RES_UNIT + u;
    double busy = mean_or(par->kernel_unit_busy_per_warp[u], p->unit_busy[u]);
    if (!(busy > 0))
      continue;
    q->servers[res] = 1;
    /* the representative warp's mean occupancy per use of the unit */
    q->service[res] = p->unit_insts[u] > 0 ? p->unit_busy[u] / p->unit_insts[u] : busy;
    q->demand[res] = par->warps * busy;
    q->visits[res] = p->unit_insts[u];
    q->ahead[res] = services_ahead(1, par->warps, 1); /* in-order: one waiting use per warp */
  }
}

/* fill_queues, then index_queues. */
static void build_queues(const gp_iv_profile *p, const gp_mw_params *par, const mw_visits *v,
                         double latency, mw_queues *q) {
  fill_queues(p, par, v, latency, q);
  index_queues(q);
}

/* The queues at `cycles` wave cycles: each resource's utilisation (demand /
 * cycles) and M/D/c wait per visit; the MSHRs are held through the L2 and
 * (for the share of misses that reach it) the DRAM queues, so their
 * service and demand follow those waits.  Returns the latency path with
 * its waits; demand[] receives the demands at these cycles. */
static double queues_at(const mw_queues *q, double cycles, double *util, double *wait,
                        double *demand) {
  double path = q->latency, hold;
  size_t r, i;
  memcpy(demand, q->demand, sizeof q->demand);
  memset(util + GP_MW_RES_ISSUE, 0, (GP_MW_RES_N - GP_MW_RES_ISSUE) * sizeof *util);
  memset(wait + GP_MW_RES_ISSUE, 0, (GP_MW_RES_N - GP_MW_RES_ISSUE) * sizeof *wait);
  for (i = 0; i < q->queued_n; i++) {
    r = q->queued[i];
    util[r] = q->demand[r] / cycles;
    wait[r] = fmin(gp_q_mdc_wait(&q->mdc[r], util[r], q->service[r]), q->cap[r]);
  }
  util[GP_MW_RES_ISSUE] = q->demand[GP_MW_RES_ISSUE] / cycles;
  if (q->mshr_reqs_per_server > 0 && q->service[GP_MW_RES_MSHR] > 0) {
    hold = q->service[GP_MW_RES_MSHR] + wait[GP_MW_RES_L2] +
           q->miss_dram_fraction * wait[GP_MW_RES_DRAM];
    demand[GP_MW_RES_MSHR] = q->mshr_reqs_per_server * hold; /* Little: N x T / m */
    util[GP_MW_RES_MSHR] = demand[GP_MW_RES_MSHR] / cycles;
    wait[GP_MW_RES_MSHR] = fmin(gp_q_mdc_wait(&q->mdc[GP_MW_RES_MSHR], util[GP_MW_RES_MSHR], hold),
                                q->ahead[GP_MW_RES_MSHR] * hold);
  }
  for (r = GP_MW_RES_ISSUE; r < GP_MW_RES_N; r++)
    if (q->visits[r] > 0 && wait[r] > 0)
      path += q->visits[r] * wait[r];
  return path;
}

/* g(cycles) = max(latency path + waits, every demand): the wave lasts as
 * long as the slower of its warps' path and its busiest resource. */
static double wave_cycles_at(const mw_queues *q, double cycles) {
  double util[GP_MW_RES_N], wait[GP_MW_RES_N], demand[GP_MW_RES_N];
  double g = queues_at(q, cycles, util, wait, demand);
  size_t r;
  for (r = GP_MW_RES_ISSUE; r < GP_MW_RES_N; r++)
    if (demand[r] > g)
      g = demand[r];
  return g;
}

/* The fixed point cycles = g(cycles).  g never grows with its argument (a
 * longer wave means lower utilisations and shorter waits), so cycles -
 * g(cycles) is increasing: bisection between the largest unloaded term,
 * which g never undercuts, and a doubling upper end. */
static double solve_wave(const mw_queues *q) {
  double lo = q->latency, hi;
  int i;
  for (i = GP_MW_RES_ISSUE; i < GP_MW_RES_N; i++)
    if (q->demand[i] > lo)
      lo = q->demand[i];
  if (q->mshr_reqs_per_server * q->service[GP_MW_RES_MSHR] > lo)
    lo = q->mshr_reqs_per_server * q->service[GP_MW_RES_MSHR];
  if (!(lo > 0) || !isfinite(lo) || wave_cycles_at(q, lo) <= lo)
    return lo;
  hi = 2 * lo;
  while (isfinite(hi) && wave_cycles_at(q, hi) > hi)
    hi *= 2;
  for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    double mid = lo + (hi - lo) / 2;
    if (wave_cycles_at(q, mid) > mid)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

/* The stack category each resource's waits and excess cycles go to. */
static int category_of(size_t res) {
  switch (res) {
  case GP_MW_RES_ISSUE:
    return GP_MW_BASE;
  case GP_MW_RES_MSHR:
    return GP_MW_MSHR;
  case GP_MW_RES_DRAM:
    return GP_MW_QUEUE;
  case GP_MW_RES_L2:
    return GP_MW_L2BW;
  case GP_MW_RES_UNIT + GP_MW_UNIT_FP64:
    return GP_MW_FP64;
  case GP_MW_RES_UNIT + GP_MW_UNIT_SFU:
    return GP_MW_SFU;
  case GP_MW_RES_UNIT + GP_MW_UNIT_LSU:
    return GP_MW_LSU;
  default:
    return GP_MW_PIPE;
  }
}

/* Adds `cycles` of resource `res` to the stack; the LSU's split LSU : BANK
 * by the bank-conflict passes' share of its busy cycles. */
static void add_resource(const gp_mw_params *par, size_t res, double cycles, double *stack) {
  int cat = category_of(res);
  if (!(cycles > 0))
    return;
  if (res == GP_MW_RES_UNIT + GP_MW_UNIT_LSU && par->kernel_bank_busy_per_warp > 0 &&
      par->kernel_unit_busy_per_warp[GP_MW_UNIT_LSU] > 0) {
    double bank = fmin(par->kernel_bank_busy_per_warp / par->kernel_unit_busy_per_warp[GP_MW_UNIT_LSU], 1);
    stack[GP_MW_BANK] += cycles * bank;
    stack[GP_MW_LSU] += cycles * (1 - bank);
    return;
  }
  stack[cat] += cycles;
}

/* gpush's contention model for MT, MT_MSHR and MT_MSHR_BAND (multiwarp.h,
 * gp_mw_equations): solves the wave's cycles, names the binding resource
 * and builds the stack (BASE; the latency path's stalls above the issue
 * bound by cause; each queue's waits; the excess a binding demand adds to
 * its own category). */
static void gpush_contention(const gp_iv_profile *p, const gp_mw_params *par,
                             const mw_visits *v, double latency, gp_mw_result *out) {
  mw_queues q;
  double path, best = 0;
  size_t r;
  build_queues(p, par, v, latency, &q);
  out->cycles = solve_wave(&q);
  path = queues_at(&q, out->cycles, out->utilisation, out->wait_cycles, out->demand_cycles);
  out->demand_cycles[GP_MW_RES_LATENCY] = path;
  out->utilisation[GP_MW_RES_LATENCY] = path / out->cycles;
  /* the binding resource: the busiest, when its demand sets the cycles or
   * keeps it at least GP_MW_BOUND_UTILISATION busy (its waits then make up
   * the path); else the latency path.  The MSHRs compete with their own
   * demand, at the unloaded round trip: their holding time also counts the
   * L2 and DRAM queues' waits, so a saturated DRAM keeps them as busy as
   * itself, and the DRAM, not the MSHRs, then binds. */
  out->bound = GP_MW_RES_LATENCY;
  for (r = GP_MW_RES_ISSUE; r < GP_MW_RES_N; r++) {
    double busy = r == GP_MW_RES_MSHR
                      ? q.mshr_reqs_per_server * q.service[GP_MW_RES_MSHR] / out->cycles
                      : out->utilisation[r];
    if (busy > best) {
      best = busy;
      if (best >= GP_MW_BOUND_UTILISATION || out->cycles > path * (1 + 1e-12))
        out->bound = (int)r;
    }
  }
  out->remaining_stall_cycles = fmax(latency - out->base_cycles, 0);
  out->issue_bound = out->bound == GP_MW_RES_ISSUE;
  out->bandwidth_bound = out->bound == GP_MW_RES_DRAM;
  out->dram_transfer_cycles = out->demand_cycles[GP_MW_RES_DRAM];
  out->stack[GP_MW_BASE] = out->base_cycles;
  if (path >= out->base_cycles) {
    /* the waits that show above the issue bound, each in proportion */
    double waits = path - latency, shown = path - fmax(latency, out->base_cycles);
    double scale = waits > 0 ? shown / waits : 0;
    apportion_stall(p, par->cause_mix, GP_MW_EQ_GPUSH, out->remaining_stall_cycles, out->stack);
    for (r = GP_MW_RES_MSHR; r < GP_MW_RES_N; r++)
      add_resource(par, r, scale * q.visits[r] * out->wait_cycles[r], out->stack);
    add_resource(par, (size_t)out->bound, out->cycles - path, out->stack);
  } else if (out->bound != GP_MW_RES_LATENCY) {
    add_resource(par, (size_t)out->bound, out->cycles - out->base_cycles, out->stack);
  }
  out->mshr_cycles = out->stack[GP_MW_MSHR];
  out->dram_cycles = out->stack[GP_MW_QUEUE];
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
  int gpush = par->equations == GP_MW_EQ_GPUSH && models_overlap(par->model);
  mw_visits visits = {0, 0, 0};
  size_t j;
  memset(out, 0, sizeof *out);
  if (!(r > 0) || !(par->warps >= 1))
    return gp_error_set(err, "multiwarp: need issue_rate > 0 and warps >= 1 (got %g, %g)", r,
                        par->warps);
  /* the paper's: a warp issues at its scheduler's rate; gpush's: a warp
   * issues at most once a cycle (the simulator's schedulers issue from
   * issue_rate different warps), never faster than its scheduler */
  if (p->insts > 0 && (gpush ? p->issue_cycles * r < 1 - 1e-9 : fabs(p->issue_cycles * r - 1) > 1e-9))
    return gp_error_set(err,
                        "multiwarp: the profile was built at %g cycles per issue, the model "
                        "runs at issue rate %g",
                        p->issue_cycles, r);
  if (models_overlap(par->model) && p->count > 0 && p->iv == NULL)
    return gp_error_set(err, "multiwarp: the profile holds totals only; rerun the interval "
                             "pass without totals_only");
  if (models_mshr(par->model) && !(par->mshrs >= 1))
    return gp_error_set(err, "multiwarp: need mshrs >= 1 (got %g)", par->mshrs);
  out->insts = par->warps * (gpush ? mean_or(par->kernel_insts_per_warp, (double)p->insts)
                                   : (double)p->insts);
  out->base_cycles = out->insts / r;
  out->warp_cycles = p->total_cycles;
  out->issue_prob = par->issue_prob > 0 ? par->issue_prob : gp_iv_warp_perf(p); /* Eq. 9 */
  out->avg_interval_insts = p->count ? (double)p->insts / (double)p->count : 0; /* Eq. 13 */
  if (p->insts == 0) {
    out->stack[GP_MW_BASE] = 1 / r;
    return GP_OK;
  }
  if (models_overlap(par->model))
    sum_intervals(p, par, out, &visits);
  if (par->model == GP_MW_MARKOV) {
    if (markov_cycles(p, par, out, err) != GP_OK)
      return GP_ERR;
    stall_part = out->base_cycles / out->markov_ipc;
  } else {
    /* Eq. 7 (as an IPC's reciprocal) with Eq. 17's delays on the shared
     * timeline, never below the issue bound */
    stall_part = p->total_cycles + out->nonoverlapped / r;
  }
  if (gpush) {
    gpush_contention(p, par, &visits, stall_part, out);
    out->cpi = out->cycles / out->insts;
    out->ipc = out->insts / out->cycles;
    for (j = 0; j < GP_MW_STACK_N; j++)
      out->stack[j] /= out->insts;
    return GP_OK;
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
    apportion_stall(p, par->cause_mix, GP_MW_EQ_PAPER, stall_part - out->base_cycles, out->stack);
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
