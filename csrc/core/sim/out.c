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

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void out_charge_cold(sim *s, sched_state *q, double until) {
  out_charge(s, q, until);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

_Static_assert(sizeof(gp_sim_inst) == 16 && offsetof(gp_sim_inst, pc_index) == 8 &&
                   offsetof(gp_sim_inst, op_class) == 12 && offsetof(gp_sim_inst, loads) == 13 &&
                   __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "a record: the distances, then the PC index, class and load bits in one word");

/* Warp instructions [i, end) of k: each one's record (gp_sim_inst),
 * counted per class, its active lanes per class and, when `pcs` (a
 * constant), per static PC.  Returns the OR of their dependence distances.
 * The arrays through local pointers: a store through a byte pointer (the
 * records hold bytes) could otherwise change k's fields, which the loop
 * would then read again at every instruction. */
static inline __attribute__((always_inline)) uint64_t
prepare_warp(const gp_kernel *k, uint64_t i, uint64_t end, gp_sim_inst *rec,
             uint64_t *class_issued, uint64_t *class_lanes, uint64_t *pc_executions, int pcs) {
  const uint8_t *op_class = k->op_class, *active = k->active, *flags = k->flags;
  const uint32_t *pc_index = k->pc_index;
  const uint16_t *deps = k->deps;
  uint64_t all = 0;
  for (; i < end; i++) {
    uint64_t d;
    uint32_t pc = pc_index[i];
    uint8_t c = op_class[i];
    memcpy(&d, deps + i * GP_DEPS, sizeof d);
    all |= d;
    rec[i].deps = d;
    rec[i].pc_index = pc; /* field by field: fewer instructions than one word */
    rec[i].op_class = c;
    rec[i].loads = (uint8_t)(flags[i] >> GP_INST_LOAD_SHIFT);
    class_issued[c]++;
    class_lanes[c] += active[i];
    if (pcs)
      pc_executions[pc]++;
  }
  return all;
}

/* Whether k's warps list every instruction of its arrays, in order, each
 * warp from where the one before ends. */
static int warps_list_every_inst(const gp_kernel *k) {
  uint64_t at = 0;
  uint32_t g;
  for (g = 0; g < k->warps; g++) {
    if (k->warp_len[g] == 0)
      continue;
    if (k->warp_start[g] != at)
      return 0;
    at += k->warp_len[g];
  }
  return at == k->insts;
}

/* One pass over every warp's instructions of k: their records into rec
 * (prepare_next reads one instead of four arrays; k->insts of them, then
 * GP_SIM_INST_PAD zero ones, and zero ones for instructions no warp lists,
 * which no warp reads), and their issue counts: per class, their active
 * lanes per class and, when pc_executions is not NULL, per static PC.
 * Returns the OR of their dependence distances: the longest one's top
 * bit, which is all a completion ring's size needs (sim.c's
 * prepare_kernel; an instruction's four distances at a time in a 64-bit
 * word). */
uint32_t prepare_insts(const gp_kernel *k, gp_sim_inst *rec, uint64_t *class_issued,
                       uint64_t *class_lanes, uint64_t *pc_executions) {
  uint64_t all = 0;
  uint32_t g;
  _Static_assert(GP_DEPS == 4, "one 64-bit word holds an instruction's distances");
  if (!warps_list_every_inst(k))
    memset(rec, 0, k->insts * sizeof *rec);
  memset(rec + k->insts, 0, GP_SIM_INST_PAD * sizeof *rec);
  for (g = 0; g < k->warps; g++) {
    uint64_t i = k->warp_start[g], end = i + k->warp_len[g];
    all |= pc_executions != NULL
               ? prepare_warp(k, i, end, rec, class_issued, class_lanes, pc_executions, 1)
               : prepare_warp(k, i, end, rec, class_issued, class_lanes, NULL, 0);
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
  out->inst_count = k->insts;
  out->insts = gp_malloc(alloc, (k->insts + GP_SIM_INST_PAD) * sizeof *out->insts);
  if (out->insts == NULL) {
    gp_sim_counts_free(out, alloc);
    return gp_error_set(err, "sim: out of memory");
  }
  out->dep_bits =
      prepare_insts(k, out->insts, out->class_issued, out->class_lanes, out->pc_executions);
  return GP_OK;
}

void gp_sim_counts_free(gp_sim_counts *c, const gp_alloc *alloc) {
  gp_free(alloc, c->pc_executions, ((size_t)c->pc_count + 1) * sizeof *c->pc_executions);
  c->pc_executions = NULL;
  gp_free(alloc, c->insts, (c->inst_count + GP_SIM_INST_PAD) * sizeof *c->insts);
  c->insts = NULL;
}

/* The issue counts of a finished run, which issued every instruction of
 * every warp once: per class and active lanes per class (the kernel's
 * counts when the caller passes them, else counted into the result by
 * prepare_insts as the run began), each
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
