/*
 * gpumech_interval.c -- the interval algorithm (GPUMech Eq. 4) and warp
 * performance (Eq. 5).
 */
#include "gpumech.h"

#include <string.h>

#define RING_MAX 65536u /* dependence distances are at most 65535 */

static int push_interval(gp_interval_profile *p, const gp_interval *iv, gp_error *err) {
  if (gp_grow(&p->alloc, (void **)&p->intervals, &p->cap, p->count + 1, sizeof *p->intervals) !=
      GP_OK)
    return gp_error_set(err, "gpumech: out of memory");
  p->intervals[p->count++] = *iv;
  p->insts += iv->insts;
  p->stall_cycles += iv->stall_cycles;
  return GP_OK;
}

int gp_interval_run(gp_interval_profile *out, const gp_alloc *alloc,
                    const gp_warp_stream *w, gp_error *err) {
  double *issue;
  uint64_t ring = 64, mask;
  gp_interval cur;
  double prev = 0, last_done = 0;
  int64_t last_done_pc = -1;
  uint64_t k;
  memset(out, 0, sizeof *out);
  out->alloc = *alloc;
  if (w->count == 0)
    return GP_OK;
  /* issue cycles of the last `ring` instructions: a power of two covering
   * both the warp's length and the longest dependence distance */
  while (ring < w->count && ring < RING_MAX)
    ring *= 2;
  mask = ring - 1;
  issue = gp_malloc(alloc, ring * sizeof *issue);
  if (issue == NULL)
    return gp_error_set(err, "gpumech: out of memory");
  memset(&cur, 0, sizeof cur);
  cur.cause_pc = -1;
  for (k = 0; k < w->count; k++) {
    uint32_t pc = w->pc_index[k];
    double t = k == 0 ? 0 : prev + 1;
    int64_t cause = -1;
    uint64_t d[2];
    int j;
    d[0] = w->dep[k];
    d[1] = w->dep_load ? w->dep_load[k] : 0;
    /* Eq. 4: wait for every producer: issue(p) + L(p) */
    for (j = 0; j < 2; j++) {
      if (d[j] > 0 && d[j] <= k) {
        uint64_t p = k - d[j];
        uint32_t ppc = w->pc_index[p];
        double ready = issue[p & mask] + w->pc_latency[ppc];
        if (ready > t) {
          t = ready;
          cause = ppc;
        }
      }
    }
    if (k > 0 && t > prev + 1) {
      /* the stall ends the current interval */
      cur.stall_cycles = t - prev - 1;
      cur.cause_pc = cause;
      if (push_interval(out, &cur, err) != GP_OK) {
        gp_free(alloc, issue, ring * sizeof *issue);
        return GP_ERR;
      }
      memset(&cur, 0, sizeof cur);
      cur.cause_pc = -1;
    }
    issue[k & mask] = t;
    prev = t;
    if (t + w->pc_latency[pc] > last_done) {
      last_done = t + w->pc_latency[pc];
      last_done_pc = pc;
    }
    cur.insts += 1;
    if (w->pc_is_memory && w->pc_is_memory[pc])
      cur.mem_insts += 1;
    if (w->pc_l1_miss_reqs)
      cur.l1_miss_reqs += w->pc_l1_miss_reqs[pc];
    if (w->pc_dram_reqs)
      cur.dram_reqs += w->pc_dram_reqs[pc];
  }
  gp_free(alloc, issue, ring * sizeof *issue);
  /* the warp ends when its last result is ready: the drain after the last
   * issue is the final interval's stall (so a dependent chain of N
   * instructions of latency L takes N x L cycles, as in every gpush model) */
  if (last_done > prev + 1) {
    cur.stall_cycles = last_done - prev - 1;
    cur.cause_pc = last_done_pc;
  }
  if (push_interval(out, &cur, err) != GP_OK)
    return GP_ERR;
  out->total_cycles = out->insts + out->stall_cycles;
  return GP_OK;
}

void gp_interval_free(gp_interval_profile *p) {
  gp_free(&p->alloc, p->intervals, p->cap * sizeof *p->intervals);
  p->intervals = NULL;
  p->count = p->cap = 0;
}

double gp_warp_perf(const gp_interval_profile *p, double issue_rate) {
  double cycles = p->insts / issue_rate + p->stall_cycles;
  return cycles > 0 ? p->insts / cycles : 0;
}
