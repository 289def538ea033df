/*
 * trace_mix.c -- one pass over a kernel for the measures analytical models
 * take as inputs (Blem's M-core, Table 4.2): instruction-level and
 * memory-level parallelism per warp, the extra instructions of control-flow
 * divergence, memory transactions under a compute capability's coalescing
 * rule and shared-memory bank-conflict passes.
 *
 * Parallelism is measured the way a warp issues, in order:
 *  - ILP: unit latency, unbounded width, in order.  Instruction i issues at
 *    level[i] = max(level[i-1], level[producer] + 1) over its recorded
 *    producers (up to GP_DEPS, k->deps); the warp needs
 *    level[last] + 1 levels and ILP = instructions / levels.  A dependent
 *    chain gives 1, four interleaved independent chains give 4.
 *  - MLP: only loads that leave the SM take time (one "round"), everything
 *    else is free: time[i] = max(time[i-1], time[producer] + (producer is a
 *    cache-using load)); the warp's rounds are the distinct times at which
 *    its memory instructions issue, and MLP = memory instructions / rounds.
 *    A pointer chase gives 1; three independent streams per iteration give 3.
 * Producers further back than the 16-bit saturated distance are read at that
 * distance (a ring of at most 65536 entries, as long as the longest warp).
 *
 * FLOPs (gp_kernel_flops, the roofline's counts): every floating-point warp
 * instruction's FLOPs per lane (trace_opcodes.c's map) x its active lanes.
 */
#include "memsim.h"
#include "trace.h"

#include <string.h>

#define RING_MAX 65536u /* 16-bit dependence distances: enough history */

static int is_long_load(int c) {
  return gp_op_is_load(c) && gp_op_uses_cache(c);
}

static int is_shared(int c) {
  return c == GP_OP_LD_SHARED || c == GP_OP_ST_SHARED || c == GP_OP_ATOM_SHARED;
}

static uint32_t popcount4(uint8_t m) {
  return (uint32_t)((m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1));
}

/* Transactions and bytes of one cache-using memory instruction under the
 * rule: the trace's 128 B lines (CC >= 2.0, and for texture, atomics and
 * LDGSTS always), or the CC 1.x half-warp rules for global and local
 * accesses. */
static void transactions_of(const gp_kernel *k, uint64_t x, int rule,
                            uint32_t *txns, uint32_t *bytes) {
  const gp_mem_record *m = &k->mem_records[k->mem[x]];
  int c = k->op_class[x];
  uint32_t t, n = 0, b = 0;
  if (rule != GP_CC1X_OFF && (c == GP_OP_LD_GLOBAL || c == GP_OP_ST_GLOBAL ||
                              c == GP_OP_LD_LOCAL || c == GP_OP_ST_LOCAL)) {
    uint64_t lines[32];
    uint8_t masks[32];
    n = gp_cc1x_requests_rule(GP_MEM_LANES(k, m), m->addr_count, k->width[x], rule,
                              lines, masks);
    for (t = 0; t < n; t++)
      b += 32u * popcount4(masks[t]);
  } else {
    n = m->line_count;
    b = 32u * m->sector_count;
  }
  *txns = n;
  *bytes = b;
}

/* Raises *level and *time to what instruction p of the warp (at `start`)
 * allows its consumer: one ILP level later; one MLP round later when p is a
 * load that leaves the SM. */
static void after_producer(const gp_kernel *k, uint64_t start, uint64_t p, const uint32_t *lvl,
                           const uint32_t *tim, uint64_t mask, uint32_t *level, uint32_t *time) {
  uint32_t t = tim[p & mask] + (uint32_t)is_long_load(k->op_class[start + p]);
  if (lvl[p & mask] + 1 > *level)
    *level = lvl[p & mask] + 1;
  if (t > *time)
    *time = t;
}

/* Accumulates one warp's measures into *out; lvl and tim are rings of
 * `ring` entries (a power of two). */
static void warp_pass(const gp_kernel *k, uint32_t w, const gp_mix_config *c, uint32_t *lvl,
                      uint32_t *tim, uint64_t ring, gp_mix *out) {
  const uint64_t mask = ring - 1;
  uint64_t start = k->warp_start[w], i;
  uint32_t n = k->warp_len[w], widest = 0, last_round = 0;
  int any_round = 0;
  for (i = 0; i < n; i++)
    if (k->active[start + i] > widest)
      widest = k->active[start + i];
  for (i = 0; i < n; i++) {
    uint64_t x = start + i;
    const uint16_t *deps = k->deps + (size_t)GP_DEPS * x;
    uint32_t level = i > 0 ? lvl[(i - 1) & mask] : 0;
    uint32_t time = i > 0 ? tim[(i - 1) & mask] : 0;
    int cls = k->op_class[x], j;
    for (j = 0; j < GP_DEPS && deps[j] > 0; j++)
      if (deps[j] <= i)
        after_producer(k, start, i - deps[j], lvl, tim, mask, &level, &time);
    lvl[i & mask] = level;
    tim[i & mask] = time;
    if (widest > 0)
      out->divergence_extra += 1.0 - (double)k->active[x] / (double)widest;
    if (k->mem[x] == UINT32_MAX)
      continue;
    if (gp_op_uses_cache(cls)) {
      uint32_t txns, bytes;
      transactions_of(k, x, c->rule, &txns, &bytes);
      if (txns == 0)
        continue; /* an empty mask: nothing leaves the SM */
      out->mem_insts++;
      out->transactions += txns;
      out->transaction_bytes += bytes;
      if (!any_round || time != last_round)
        out->mem_rounds++;
      any_round = 1;
      last_round = time;
    } else if (is_shared(cls)) {
      const gp_mem_record *m = &k->mem_records[k->mem[x]];
      uint32_t passes = gp_shared_passes(GP_MEM_LANES(k, m), m->addr_count,
                                         k->width[x], c->shared_banks, c->shared_bank_bytes);
      out->shared_insts++;
      if (passes > 1)
        out->shared_extra_passes += passes - 1;
    }
  }
  if (n > 0) {
    out->warps++;
    out->insts += n;
    out->ilp_levels += (uint64_t)lvl[(n - 1) & mask] + 1;
  }
}

int gp_kernel_mix(const gp_kernel *k, const gp_mix_config *c, const gp_alloc *a, gp_mix *out,
                  gp_error *err) {
  uint32_t *lvl, *tim, w, longest = 1;
  uint64_t ring = 1;
  memset(out, 0, sizeof *out);
  if (c->rule != GP_CC1X_OFF && c->rule != GP_CC1X_12 && c->rule != GP_CC1X_10)
    return gp_error_set(err, "kernel mix: unknown coalescing rule %d", c->rule);
  for (w = 0; w < k->warps; w++)
    if (k->warp_len[w] > longest)
      longest = k->warp_len[w];
  while (ring < longest && ring < RING_MAX)
    ring *= 2;
  lvl = gp_malloc(a, 2 * ring * sizeof *lvl);
  if (lvl == NULL)
    return gp_error_set(err, "kernel mix: out of memory");
  tim = lvl + ring;
  for (w = 0; w < k->warps; w++)
    warp_pass(k, w, c, lvl, tim, ring, out);
  gp_free(a, lvl, 2 * ring * sizeof *lvl);
  return GP_OK;
}

/* The FLOPs per lane and precision of each static instruction, looked up
 * once, then one pass over the instructions adding FLOPs x active lanes to
 * their precision's sum (the zeros of everything else go to GP_FLOP_NONE's).
 * Only fp32- and fp64-class instructions count: a static's class is every
 * one of its instructions' (only generic memory accesses are resolved per
 * instruction). */
int gp_kernel_flops(const gp_kernel *k, const gp_alloc *a, uint64_t out[GP_FLOP_PRECISIONS],
                    gp_error *err) {
  uint8_t *per_lane, *precision;
  uint64_t i;
  uint32_t s;
  memset(out, 0, GP_FLOP_PRECISIONS * sizeof *out);
  if (k->static_count == 0)
    return GP_OK;
  per_lane = gp_malloc(a, 2 * (size_t)k->static_count);
  if (per_lane == NULL)
    return gp_error_set(err, "kernel FLOPs: out of memory");
  precision = per_lane + k->static_count;
  for (s = 0; s < k->static_count; s++) {
    const gp_static_inst *st = &k->statics[s];
    const char *op = k->strings + st->opcode;
    per_lane[s] = gp_opcode_flops(op, strlen(op), &precision[s]);
    if (st->op_class != GP_OP_FP32 && st->op_class != GP_OP_FP64)
      per_lane[s] = 0, precision[s] = GP_FLOP_NONE;
  }
  for (i = 0; i < k->insts; i++) {
    uint32_t x = k->pc_index[i];
    out[precision[x]] += (uint64_t)per_lane[x] * k->active[i];
  }
  out[GP_FLOP_NONE] = 0;
  gp_free(a, per_lane, 2 * (size_t)k->static_count);
  return GP_OK;
}
