/*
 * per_pc.c -- where a launch's predicted cycles go, per static PC
 * (gpumech.h, gp_gm_pc_costs_build): the launch's CPI stack (Sec. VII,
 * Table III, and gpush's throughput categories) split over the PCs that
 * cause each category, in scheduler cycles.  Built only on request, after
 * gp_gm_predict, from its shapes and the launch's inputs; the prediction
 * itself is untouched.
 *
 * A category's cycles are the stack's CPI x the launch's warp
 * instructions (each scheduler's cycles per instruction times the
 * instructions all schedulers issue: the busy schedulers' cycles
 * together), so the PCs' cycles sum to the stack, category by category.
 * Each category goes to the PCs in proportion to what causes it:
 *  - BASE (the issue slots): every execution alike;
 *  - DEP, L1, L2, DRAM (the stalls on the latency path): the modelled
 *    warps' stall cycles, each split by its causing PC's cause-mix row as
 *    the stack was (multiwarp.c, apportion_stall) and charged to the
 *    instruction that waited (as the simulator and Nsight Compute charge a
 *    stall: a load's DRAM latency shows at its first consumer), each wave
 *    shape weighted by its share of the category;
 *  - BANK: the shared-memory PCs' extra bank passes (the LSU's conflict
 *    passes and the extra latency they add);
 *  - MSHR, QUEUE, L2BW: each PC's L1-missing, DRAM and L2 requests;
 *  - SFU, FP64, PIPE, LSU: the cycles each PC occupies that unit (the
 *    LSU's first pass of a shared access; its extra passes are BANK).
 * A category none of the PCs causes (a hard bound's excess where no PC
 * has, say, a request) goes to the executions, so every cycle has a PC.
 */
#include "gpumech.h"

#include <math.h>
#include <string.h>

void gp_gm_pc_costs_free(gp_gm_pc_costs *c) {
  gp_free(&c->alloc, c->executions, ((size_t)c->n + 1) * sizeof *c->executions);
  gp_free(&c->alloc, c->cycles, ((size_t)c->n + 1) * GP_MW_STACK_N * sizeof *c->cycles);
  c->executions = NULL, c->cycles = NULL, c->n = 0;
}

/* The stack category a cause-mix column's stall cycles go to (as
 * multiwarp.c's apportion_stall: BANK is L1 under the paper's equations). */
static int mix_category(int column, int gpush) {
  static const int cat[GP_MW_MIX_N] = {GP_MW_DEP, GP_MW_L1, GP_MW_L2, GP_MW_DRAM, GP_MW_BANK};
  return column == GP_MW_MIX_BANK && !gpush ? GP_MW_L1 : cat[column];
}

/* Adds one wave shape's latency-path stalls to the weights w (n x
 * GP_MW_STACK_N): each interval's stall, split over the categories by its
 * causing PC's cause-mix row as the stack apportions it, charged to the
 * instruction that waited (the next interval's first, the simulator's and
 * Nsight Compute's convention; the warp's final drain to its cause), and
 * scaled so the shape adds `amount[cat]` (its instructions x its stack's
 * CPI in that category).  `p` is warp w's profile with its intervals. */
static void add_path_weights(const gp_kernel *k, uint64_t w_index, const gp_iv_profile *p,
                             const gp_gm_pcs *pcs, int gpush, const double *amount, double *split,
                             double *w) {
  const uint32_t *pc_of = k->pc_index + k->warp_start[w_index];
  uint64_t len = k->warp_len[w_index];
  double sum[GP_MW_STACK_N];
  size_t i, c;
  int j;
  memset(sum, 0, sizeof sum);
  memset(split, 0, (size_t)pcs->n * GP_MW_STACK_N * sizeof *split);
  for (i = 0; i < p->count; i++) {
    const gp_iv_interval *iv = &p->iv[i];
    uint64_t next = iv->first + iv->insts;
    const double *row;
    double total = 0, stall = iv->stall_cycles;
    size_t at;
    if (!(stall > 0) || iv->cause < 0 || (size_t)iv->cause >= pcs->n)
      continue;
    row = pcs->mix + (size_t)iv->cause * GP_MW_MIX_N;
    at = next < len ? pc_of[next] : (size_t)iv->cause;
    for (j = 0; j < GP_MW_MIX_N; j++)
      total += row[j] > 0 ? row[j] : 0;
    if (!(total > 0)) {
      split[at * GP_MW_STACK_N + GP_MW_DEP] += stall;
      sum[GP_MW_DEP] += stall;
      continue;
    }
    for (j = 0; j < GP_MW_MIX_N; j++)
      if (row[j] > 0) {
        int cat = mix_category(j, gpush);
        split[at * GP_MW_STACK_N + (size_t)cat] += stall * row[j] / total;
        sum[cat] += stall * row[j] / total;
      }
  }
  for (c = 0; c < pcs->n; c++)
    for (j = 0; j < GP_MW_STACK_N; j++)
      if (sum[j] > 0)
        w[c * GP_MW_STACK_N + (size_t)j] += amount[j] * split[c * GP_MW_STACK_N + (size_t)j] / sum[j];
}

/* The weights no profile gives: what each PC asks of the issue slots, the
 * queues and the units, over all its executions. */
static void add_demand_weights(const gp_kernel *k, const gp_gm_pcs *pcs, const uint64_t *exec,
                               double *w) {
  uint32_t i;
  for (i = 0; i < pcs->n; i++) {
    double n = (double)exec[i], busy = pcs->unit_busy[i];
    double *row = w + (size_t)i * GP_MW_STACK_N;
    int shared = gp_op_is_shared(k->statics[i].op_class);
    row[GP_MW_BASE] = n;
    row[GP_MW_MSHR] = n * pcs->l1_miss_reqs[i];
    row[GP_MW_QUEUE] = n * pcs->dram_reqs[i];
    row[GP_MW_L2BW] = n * pcs->l2_reqs[i];
    if (shared)
      row[GP_MW_BANK] = n * fmax(busy - 1, 0);
    switch (pcs->unit[i]) {
    case GP_UNIT_SFU:
      row[GP_MW_SFU] = n * busy;
      break;
    case GP_UNIT_FP64:
      row[GP_MW_FP64] = n * busy;
      break;
    case GP_UNIT_LSU:
      row[GP_MW_LSU] = n * (shared ? fmin(busy, 1) : busy);
      break;
    case GP_UNIT_INT:
    case GP_UNIT_FMA:
    case GP_UNIT_TENSOR:
    case GP_UNIT_UNIFORM:
    case GP_UNIT_OTHER:
      row[GP_MW_PIPE] = n * busy;
      break;
    default:
      break;
    }
  }
}

/* Splits total[cat] over the PCs by the weights (the executions where a
 * category has none). */
static void distribute(const double *w, const uint64_t *exec, uint32_t n, const double *total,
                       double *out) {
  int j;
  uint32_t i;
  for (j = 0; j < GP_MW_STACK_N; j++) {
    double sum = 0, all = 0;
    for (i = 0; i < n; i++) {
      sum += w[(size_t)i * GP_MW_STACK_N + (size_t)j];
      all += (double)exec[i];
    }
    for (i = 0; i < n; i++) {
      double share = sum > 0 ? w[(size_t)i * GP_MW_STACK_N + (size_t)j] / sum
                     : all > 0 ? (double)exec[i] / all
                               : 0;
      out[(size_t)i * GP_MW_STACK_N + (size_t)j] = total[j] * share;
    }
  }
}

int gp_gm_pc_costs_build(const gp_kernel *k, const gp_machine *m, const gp_gm_inputs *in,
                         const gp_gm_prediction *pred, const gp_gm_options *opt,
                         const gp_alloc *alloc, gp_gm_pc_costs *out, gp_error *err) {
  const gp_gm_pcs *pcs = &in->pcs;
  size_t n = pcs->n, cells = (n + 1) * GP_MW_STACK_N, shapes, s;
  int gpush = opt->equations == GP_MW_EQ_GPUSH, status = GP_OK, j;
  double total[GP_MW_STACK_N], *w, *split;
  gp_iv_profile prof;
  uint32_t g;
  uint64_t i;
  memset(out, 0, sizeof *out);
  out->alloc = *alloc;
  if (n != k->static_count)
    return gp_error_set(err, "gpumech: the inputs have %zu static instructions, the kernel %u", n,
                        k->static_count);
  out->n = (uint32_t)n;
  out->executions = gp_malloc(alloc, (n + 1) * sizeof *out->executions);
  out->cycles = gp_malloc(alloc, cells * sizeof *out->cycles);
  w = gp_malloc(alloc, cells * sizeof *w);
  split = gp_malloc(alloc, cells * sizeof *split);
  if (!out->executions || !out->cycles || !w || !split) {
    gp_free(alloc, w, cells * sizeof *w);
    gp_free(alloc, split, cells * sizeof *split);
    gp_gm_pc_costs_free(out);
    return gp_error_set(err, "gpumech: out of memory");
  }
  memset(out->executions, 0, (n + 1) * sizeof *out->executions);
  memset(w, 0, cells * sizeof *w);
  for (g = 0; g < k->warps; g++)
    for (i = k->warp_start[g]; i < k->warp_start[g] + k->warp_len[g]; i++)
      out->executions[k->pc_index[i]]++;
  add_demand_weights(k, pcs, out->executions, w);
  /* the path categories (DEP, L1, L2, DRAM) from the profiles; gpush's launch totals weigh every shape; otherwise the stack is the
   * first shape's (BANK under gpush's equations: by the passes above) */
  shapes = pred->launch_totals ? pred->shape_count : 1;
  gp_iv_profile_init(&prof, alloc);
  for (s = 0; s < shapes && status == GP_OK; s++) {
    const gp_gm_shape *sh = &pred->shape[s];
    double insts = sh->r.cpi > 0 ? sh->count * sh->r.cycles / sh->r.cpi : 0, amount[GP_MW_STACK_N];
    if (gp_gm_profile(&prof, k, sh->warp, pcs, gp_gm_issue_cycles(m, opt->equations), err) != GP_OK) {
      status = GP_ERR;
      break;
    }
    for (j = 0; j < GP_MW_STACK_N; j++)
      amount[j] = (j == GP_MW_BANK && gpush) ? 0 : insts * sh->r.stack[j];
    add_path_weights(k, sh->warp, &prof, pcs, gpush, amount, split, w);
  }
  gp_iv_profile_free(&prof);
  gp_free(alloc, split, cells * sizeof *split);
  if (status == GP_OK) {
    for (j = 0; j < GP_MW_STACK_N; j++)
      total[j] = pred->stack[j] * (double)k->insts;
    distribute(w, out->executions, out->n, total, out->cycles);
  }
  gp_free(alloc, w, cells * sizeof *w);
  if (status != GP_OK)
    gp_gm_pc_costs_free(out);
  return status;
}
