/*
 * out.c -- the simulator's outputs: scheduler cycles charged to a stall
 * reason overall, per SM and, when asked (gp_sim_options.per_pc), per
 * static PC (out_charge, inline in state.h), with each PC's executions and
 * the per-source-line sums.
 *
 * A scheduler's reason holds from the cycle it was decided until the
 * scheduler looks again (nothing it depends on changes in between), so the
 * cycles are charged then, in one piece: an issuing cycle to the issued
 * instructions' PCs (split evenly when several issued), a waiting one to
 * the next PC of the warp that gave the reason, idle and no-warp cycles to
 * no PC.
 */
#include "state.h"

#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void out_charge_cold(sim *s, sched_state *q, double until) {
  out_charge(s, q, until);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Every warp's instructions of k, counted per class, their active lanes
 * per class and, when pc_executions is not NULL, per static PC. */
static void count_trace(const gp_kernel *k, uint64_t *class_issued, uint64_t *class_lanes,
                        uint64_t *pc_executions) {
  uint32_t g;
  uint64_t i;
  if (pc_executions == NULL)
    for (g = 0; g < k->warps; g++)
      for (i = k->warp_start[g]; i < k->warp_start[g] + k->warp_len[g]; i++) {
        class_issued[k->op_class[i]]++;
        class_lanes[k->op_class[i]] += k->active[i];
      }
  else
    for (g = 0; g < k->warps; g++)
      for (i = k->warp_start[g]; i < k->warp_start[g] + k->warp_len[g]; i++) {
        class_issued[k->op_class[i]]++;
        class_lanes[k->op_class[i]] += k->active[i];
        pc_executions[k->pc_index[i]]++;
      }
}

/* The OR of every dependence distance of k: the longest one's top bit,
 * which is all a completion ring's size needs (sim.c's size_rings; an
 * instruction's four distances at a time in a 64-bit word). */
uint32_t count_dep_bits(const gp_kernel *k) {
  uint64_t i, all = 0;
  _Static_assert(GP_DEPS == 4, "one 64-bit word holds an instruction's distances");
  for (i = 0; i < k->insts; i++) {
    uint64_t d;
    memcpy(&d, k->deps + i * GP_DEPS, sizeof d);
    all |= d;
  }
  return (uint32_t)((all | all >> 16 | all >> 32 | all >> 48) & 0xffff);
}

int gp_sim_count(const gp_kernel *k, const gp_alloc *alloc, gp_sim_counts *out, gp_error *err) {
  memset(out, 0, sizeof *out);
  out->pc_count = k->static_count;
  out->pc_executions = gp_malloc(alloc, ((size_t)k->static_count + 1) * sizeof *out->pc_executions);
  if (out->pc_executions == NULL)
    return gp_error_set(err, "sim: out of memory");
  memset(out->pc_executions, 0, ((size_t)k->static_count + 1) * sizeof *out->pc_executions);
  count_trace(k, out->class_issued, out->class_lanes, out->pc_executions);
  out->dep_bits = count_dep_bits(k);
  return GP_OK;
}

void gp_sim_counts_free(gp_sim_counts *c, const gp_alloc *alloc) {
  gp_free(alloc, c->pc_executions, ((size_t)c->pc_count + 1) * sizeof *c->pc_executions);
  c->pc_executions = NULL;
}

/* The issue counts of a finished run, which issued every instruction of
 * every warp once: per class and active lanes per class (the kernel's
 * counts when the caller passes them, else one pass over the trace), each
 * unit's occupancy from them (a compute class holds its unit its interval
 * per issue; the LSU's was counted at issue), per static PC when the run
 * keeps per-PC results, the total from the SMs'. */
static void count_issued(sim *s) {
  const gp_sim_counts *kc = s->opt->counts;
  gp_sim_result *r = s->out;
  gp_sim_counters *n = &r->counters;
  uint32_t g;
  int c;
  if (kc != NULL) {
    memcpy(n->class_issued, kc->class_issued, sizeof n->class_issued);
    memcpy(n->class_lanes, kc->class_lanes, sizeof n->class_lanes);
    if (r->pc_executions != NULL)
      memcpy(r->pc_executions, kc->pc_executions,
             ((size_t)r->pc_count + 1) * sizeof *r->pc_executions);
  } else {
    count_trace(s->k, n->class_issued, n->class_lanes, r->pc_executions);
  }
  for (c = 0; c < GP_OP_CLASS_COUNT; c++)
    if (s->unit_of[c] != UNIT_LSU)
      n->unit_busy_cycles[s->unit_of[c]] += (double)n->class_issued[c] * s->cls[c].busy;
  n->unit_busy_cycles[UNIT_LSU] = n->lsu_busy_cycles;
  r->issued = 0;
  for (g = 0; g < r->sms; g++)
    r->issued += r->sm_issued[g];
}

/* Completes the result: the issue counts, and with per-PC results the
 * per-PC stalls summed by source line (statics' line_num; 0 = none). */
int out_finish(sim *s) {
  const gp_kernel *k = s->k;
  gp_sim_result *r = s->out;
  uint32_t i, n = 0, distinct = 0, *sorted;
  count_issued(s);
  if (r->pc_stalls == NULL)
    return GP_OK;
  for (i = 0; i < k->static_count; i++)
    n += k->statics[i].line_num > 0;
  if (n == 0)
    return GP_OK;
  sorted = gp_malloc(&s->alloc, n * sizeof *sorted);
  if (sorted == NULL)
    return gp_error_set(s->err, "sim: out of memory");
  for (i = 0; i < k->static_count; i++)
    if (k->statics[i].line_num > 0)
      sorted[distinct++] = k->statics[i].line_num;
  qsort(sorted, n, sizeof *sorted, cmp_u32);
  for (i = 1, distinct = 1; i < n; i++)
    if (sorted[i] != sorted[distinct - 1])
      sorted[distinct++] = sorted[i];
  r->lines = gp_malloc(&s->alloc, distinct * sizeof *r->lines);
  if (r->lines != NULL) {
    memcpy(r->lines, sorted, distinct * sizeof *r->lines);
    r->line_count = distinct;
  }
  gp_free(&s->alloc, sorted, n * sizeof *sorted);
  if (r->lines == NULL)
    return gp_error_set(s->err, "sim: out of memory");
  r->line_stalls = gp_malloc(&s->alloc, distinct * GP_STALL_COUNT * sizeof *r->line_stalls);
  if (r->line_stalls == NULL)
    return gp_error_set(s->err, "sim: out of memory");
  memset(r->line_stalls, 0, distinct * GP_STALL_COUNT * sizeof *r->line_stalls);
  for (i = 0; i < k->static_count; i++) {
    uint32_t line = k->statics[i].line_num, lo = 0, hi = distinct, c;
    if (line == 0)
      continue;
    while (hi - lo > 1) { /* binary search: lines[lo] <= line */
      uint32_t mid = (lo + hi) / 2;
      if (r->lines[mid] <= line)
        lo = mid;
      else
        hi = mid;
    }
    for (c = 0; c < GP_STALL_COUNT; c++)
      r->line_stalls[(size_t)lo * GP_STALL_COUNT + c] +=
          r->pc_stalls[(size_t)i * GP_STALL_COUNT + c];
  }
  return GP_OK;
}
