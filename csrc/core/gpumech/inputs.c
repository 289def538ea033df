/*
 * inputs.c -- GPUMech's per-PC inputs of a launch (Sec. V-A) from memsim's
 * functional result and the machine, and the mean warp's demands
 * (gpumech.h, gp_gm_inputs_build).  docs/gpumech.md has the reasoning of
 * each rule; the comments here say where it applies.
 */
#include "gpumech.h"

#include <math.h>
#include <string.h>

double gp_gm_issue_cycles(const gp_machine *m, gp_mw_equations eq) {
  double slot = 1.0 / m->sm.issue_width;
  if (eq == GP_MW_EQ_GPUSH)
    return slot > 1 ? slot : 1;
  return slot;
}

/* The L1-missing requests that find their line still outstanding with m
 * MSHRs (the SM missed on it at most m misses earlier: memsim.h's
 * miss_reuse buckets [2^b, 2^(b+1)), a bucket m falls in counted pro rata),
 * which merge into that entry rather than take one. */
static double merges_of(const uint64_t *reuse, double m) {
  double merged = 0;
  int b;
  for (b = 0; b < GP_REUSE_BUCKETS; b++) {
    double lo = pow(2, b), hi = pow(2, b + 1);
    double share = (m - lo + 1) / (hi - lo);
    merged += (double)reuse[b] * fmax(0, fmin(1, share));
  }
  return merged;
}

/* gpush's MSHR holding time (Little's law with the MSHRs as servers): an
 * entry is held by one L1-missing load request for that request's own round
 * trip, L2 latency for an L2 hit, L2 + DRAM latency for a miss, so the
 * MSHRs' occupancy is requests x the mean round trip per request, not per
 * instruction: a gather's 32 requests, one of them missing L2, hold 31
 * entries for an L2 hit and one for the DRAM trip, while the warp waits for
 * the slowest (its PC's AMAT, Sec. V-B, on the latency path).  `holders`
 * are the requests that take an entry (merges and atomics apart); those
 * that merge into an outstanding entry re-read a line the SM has just
 * missed on, which the L2 holds, so the replay's L2 misses of loads
 * (mshr_dram_requests) are taken to come from holders: the busy time
 * holders x T then counts every L2 miss as one entry's DRAM round trip
 * however many requests merge.  Against D / all requests, this moves the
 * DRAM share by at most 0.006 over the suite on five presets, except
 * tiny_blocks on gtx1080 (0.20 against 0.03: the replay takes 6,912 of 8,192
 * requests for merges, the simulator merges 607; the MSHRs are far from
 * binding there). */
static void mshr_hold(const gp_machine *m, const gp_memsim_result *mem, double holders,
                      gp_gm_inputs *in) {
  double to_dram;
  if (!(holders > 0)) {
    in->mshr_hold_latency = m->l2.latency, in->miss_dram_fraction = 0;
    return;
  }
  to_dram = fmin((double)mem->mshr_dram_requests / holders, 1);
  in->mshr_hold_latency = m->l2.latency + to_dram * gp_machine_dram_latency_cycles(m);
  in->miss_dram_fraction = to_dram;
}

/* Running sums over the static PCs. */
typedef struct pc_sums {
  double miss_latency, misses;          /* Eq. 19's average miss latency */
  double l1, l2, lsu, bank, lsu_counted; /* the kernel's totals */
} pc_sums;

/* A memory PC that reaches the caches, with executions (pm): its AMAT, its
 * requests per execution and miss events; under gpush's equations atomics
 * take no MSHR (they wait at the L2), a store is done once the L1
 * (write-back) or the L2 slice accepts it, and requests that merge into an
 * outstanding entry take none. */
static void cached_pc(const gp_machine *m, int c, const gp_pc_memory *pm, int gpush,
                      gp_gm_pcs *p, uint32_t i, pc_sums *s) {
  double n = (double)pm->instructions, l1_miss, l2, busy;
  double *mix = p->mix + (size_t)i * GP_MW_MIX_N;
  int store_like = gp_op_is_store(c) || gp_op_is_atomic(c);
  p->latency[i] = pm->amat;
  l1_miss = (double)pm->l1_miss_requests / n;
  p->dram_reqs[i] = (double)pm->dram_requests / n;
  mix[GP_MW_MIX_L1] = (double)pm->l1_hits / n;
  mix[GP_MW_MIX_L2] = (double)pm->l2_hits / n;
  mix[GP_MW_MIX_DRAM] = (double)pm->dram / n;
  /* loads reach L2 when they miss L1; stores and atomics unless L1 keeps them */
  l2 = store_like ? (double)pm->requests / n * (1 - mix[GP_MW_MIX_L1]) : l1_miss;
  if (gpush && gp_op_is_atomic(c))
    l1_miss = 0;
  else if (gpush && store_like)
    p->latency[i] = m->l1.write_policy == GP_WRITE_BACK ? m->l1.latency : m->l2.interval;
  else if (gpush)
    l1_miss = ((double)pm->l1_miss_requests - merges_of(pm->miss_reuse, m->l1.mshrs)) / n;
  busy = fmax((double)pm->requests / n, 1);
  p->l1_miss_reqs[i] = l1_miss, p->l2_reqs[i] = l2, p->unit_busy[i] = busy;
  s->l2 += l2 * n, s->lsu += busy * n, s->lsu_counted += n;
  s->l1 += l1_miss * n;
  if (l1_miss > 0) {
    s->miss_latency += (double)pm->l2_hits * m->l2.latency +
                       (double)pm->dram * (m->l2.latency + gp_machine_dram_latency_cycles(m));
    s->misses += (double)(pm->l2_hits + pm->dram);
  }
}

/* A shared-memory or constant PC, or a memory PC without executions: on-chip
 * latency (Table III counts it as L1); a shared PC's extra bank passes hold
 * the LSU and, under gpush's equations, are BANK of its latency. */
static void on_chip_pc(const gp_machine *m, int c, const gp_pc_memory *pm, int gpush,
                       gp_gm_pcs *p, uint32_t i, pc_sums *s) {
  double *mix = p->mix + (size_t)i * GP_MW_MIX_N;
  double busy = 1;
  mix[GP_MW_MIX_L1] = 1;
  if (pm->instructions > 0) {
    double n = (double)pm->instructions;
    p->latency[i] = pm->amat; /* shared memory with its bank passes, or constant */
    if (pm->shared_passes > 0) {
      busy = fmax((double)pm->shared_passes / n, 1);
      s->bank += (busy - 1) * n;
      if (gpush && p->latency[i] > m->shared.latency) {
        mix[GP_MW_MIX_L1] = m->shared.latency / p->latency[i];
        mix[GP_MW_MIX_BANK] = 1 - m->shared.latency / p->latency[i];
      }
    }
    s->lsu += busy * n, s->lsu_counted += n;
  } else if (c == GP_OP_LD_CONST) {
    p->latency[i] = m->constant.latency;
  } else if (gp_op_is_shared(c) && !gp_op_is_store(c)) {
    p->latency[i] = m->shared.latency;
  } else {
    p->latency[i] = m->l1.latency; /* memory instruction with no request (empty mask) */
  }
  p->unit_busy[i] = busy;
}

static int alloc_pcs(const gp_alloc *alloc, uint32_t n, int gpush, gp_gm_pcs *p) {
  size_t d = (size_t)n + 1;
  memset(p, 0, sizeof *p);
  p->n = n;
  p->latency = gp_malloc(alloc, d * sizeof(double));
  p->l1_miss_reqs = gp_malloc(alloc, d * sizeof(double));
  p->dram_reqs = gp_malloc(alloc, d * sizeof(double));
  p->l2_reqs = gp_malloc(alloc, d * sizeof(double));
  p->mem_insts = gp_malloc(alloc, d * sizeof(double));
  p->unit_busy = gp_malloc(alloc, d * sizeof(double));
  p->mix = gp_malloc(alloc, d * GP_MW_MIX_N * sizeof(double));
  p->cause = gp_malloc(alloc, d * sizeof *p->cause);
  p->unit = gp_malloc(alloc, d * sizeof *p->unit);
  p->inactive_latency = gpush ? gp_malloc(alloc, d * sizeof(double)) : NULL;
  if (!p->latency || !p->l1_miss_reqs || !p->dram_reqs || !p->l2_reqs || !p->mem_insts ||
      !p->unit_busy || !p->mix || !p->cause || !p->unit || (gpush && !p->inactive_latency))
    return GP_ERR;
  memset(p->mix, 0, d * GP_MW_MIX_N * sizeof(double));
  return GP_OK;
}

void gp_gm_inputs_free(gp_gm_inputs *in) {
  gp_gm_pcs *p = &in->pcs;
  size_t d = (size_t)p->n + 1;
  gp_free(&in->alloc, p->latency, d * sizeof(double));
  gp_free(&in->alloc, p->l1_miss_reqs, d * sizeof(double));
  gp_free(&in->alloc, p->dram_reqs, d * sizeof(double));
  gp_free(&in->alloc, p->l2_reqs, d * sizeof(double));
  gp_free(&in->alloc, p->mem_insts, d * sizeof(double));
  gp_free(&in->alloc, p->unit_busy, d * sizeof(double));
  gp_free(&in->alloc, p->mix, d * GP_MW_MIX_N * sizeof(double));
  gp_free(&in->alloc, p->cause, d * sizeof *p->cause);
  gp_free(&in->alloc, p->unit, d * sizeof *p->unit);
  gp_free(&in->alloc, p->inactive_latency, d * sizeof(double));
  memset(p, 0, sizeof *p);
}

/* The mean warp's demand: instructions, requests and unit cycles over every
 * warp; memory instructions the functional model saw no request of take the
 * LSU a cycle. */
static void kernel_means(const gp_kernel *k, const gp_machine *m, const gp_memsim_result *mem,
                         const pc_sums *s, gp_gm_inputs *in) {
  double warps = k->warps > 1 ? (double)k->warps : 1, memory_insts = 0;
  int c;
  memset(in->unit_busy_per_warp, 0, sizeof in->unit_busy_per_warp);
  for (c = 0; c < GP_OP_CLASS_COUNT; c++) {
    double count = (double)k->class_counts[c];
    if (k->class_counts[c] == 0)
      continue;
    if (gp_op_pipeline(c) >= 0)
      in->unit_busy_per_warp[gp_machine_op_unit(m, c)] +=
          count * gp_machine_class_interval(m, c) / warps;
    else
      memory_insts += count;
  }
  in->unit_busy_per_warp[GP_UNIT_LSU] = (s->lsu + fmax(memory_insts - s->lsu_counted, 0)) / warps;
  in->insts_per_warp = (double)k->insts / warps;
  in->l1_miss_reqs_per_warp = s->l1 / warps;
  in->l2_reqs_per_warp = s->l2 / warps;
  in->dram_reqs_per_warp = (double)mem->dram_requests / warps;
  in->bank_busy_per_warp = s->bank / warps;
}

int gp_gm_inputs_build(const gp_kernel *k, const gp_machine *m, const gp_memsim_result *mem,
                       gp_mw_equations eq, const gp_alloc *alloc, gp_gm_inputs *in,
                       gp_error *err) {
  int gpush = eq == GP_MW_EQ_GPUSH;
  gp_gm_pcs *p = &in->pcs;
  pc_sums s;
  uint32_t i;
  memset(in, 0, sizeof *in);
  memset(&s, 0, sizeof s);
  in->alloc = *alloc;
  if (mem->pc_count != k->static_count)
    return gp_error_set(err, "gpumech: the memory result has %u static instructions, the kernel %u",
                        mem->pc_count, k->static_count);
  if (alloc_pcs(alloc, k->static_count, gpush, p) != GP_OK) {
    gp_gm_inputs_free(in);
    return gp_error_set(err, "gpumech: out of memory");
  }
  p->unit_timing = gpush;
  for (i = 0; i < p->n; i++) {
    int c = k->statics[i].op_class, pipe = gp_op_pipeline(c);
    const gp_pc_memory *pm = &mem->pcs[i];
    p->latency[i] = p->l1_miss_reqs[i] = p->dram_reqs[i] = p->l2_reqs[i] = 0;
    p->unit[i] = (int8_t)gp_machine_op_unit(m, c);
    if (pipe >= 0) {
      p->latency[i] = m->ops[pipe].latency;
      p->unit_busy[i] = m->ops[pipe].interval;
    } else if (pm->instructions > 0 && pm->shared_passes == 0) {
      cached_pc(m, c, pm, gpush, p, i, &s);
    } else {
      on_chip_pc(m, c, pm, gpush, p, i, &s);
    }
    if (gpush) /* an execution with no active lane: a cached access returns the next
                  cycle, a shared one after the shared latency (the simulator's timing) */
      p->inactive_latency[i] = gp_op_uses_cache(c) ? 1 : gp_op_is_shared(c) ? m->shared.latency : -1;
  }
  gp_gm_pcs_fill_static(k, p);
  in->avg_miss_latency = s.misses > 0 ? s.miss_latency / s.misses : m->l2.latency;
  if (gpush)
    mshr_hold(m, mem, s.l1, in);
  kernel_means(k, m, mem, &s, in);
  return GP_OK;
}
