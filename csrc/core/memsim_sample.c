/*
 * memsim_sample.c -- a launch's functional result from the results of two
 * prefixes of its blocks (gpush.sampling's two-point fit, used by GPUMech's
 * sweep model; docs/experiments.md, "Sampling"): every count of the result
 * extrapolated linearly, b + (b - a) x f, and each cache-using PC's AMAT
 * computed again from its extrapolated levels (memsim_functional.c's rule),
 * so every ratio a model reads comes from extrapolated totals.
 */
#include "memsim.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* Every field of a result is extrapolated below, by name: a field added to
 * gp_pc_memory, gp_cache_stats or gp_memsim_result stops the build here
 * until it is added there too (or it would read zero in a sampled result). */
_Static_assert(sizeof(gp_pc_memory) == 21 * sizeof(uint64_t) + sizeof(double),
               "memsim_sample.c: extrapolate gp_pc_memory's new field");
_Static_assert(sizeof(gp_cache_stats) == 5 * sizeof(uint64_t),
               "memsim_sample.c: extrapolate gp_cache_stats's new field");
_Static_assert(sizeof(gp_memsim_result) ==
                   offsetof(gp_memsim_result, load_l1_misses) + 9 * sizeof(uint64_t) +
                       2 * sizeof(gp_cache_stats),
               "memsim_sample.c: extrapolate gp_memsim_result's new field");

/* b + (b - a) x f, rounded to the nearest count, never below zero. */
static uint64_t fit(uint64_t a, uint64_t b, double f) {
  double x = (double)b + ((double)b - (double)a) * f;
  return x > 0 ? (uint64_t)llround(x) : 0;
}

static void fit_stats(const gp_cache_stats *a, const gp_cache_stats *b, double f,
                      gp_cache_stats *out) {
  out->accesses = fit(a->accesses, b->accesses, f);
  out->hits = fit(a->hits, b->hits, f);
  out->misses = fit(a->misses, b->misses, f);
  out->sector_misses = fit(a->sector_misses, b->sector_misses, f);
  out->writebacks = fit(a->writebacks, b->writebacks, f);
}

static void fit_pc(const gp_pc_memory *a, const gp_pc_memory *b, double f, gp_pc_memory *out) {
  int i;
  out->instructions = fit(a->instructions, b->instructions, f);
  out->l1_hits = fit(a->l1_hits, b->l1_hits, f);
  out->l2_hits = fit(a->l2_hits, b->l2_hits, f);
  out->dram = fit(a->dram, b->dram, f);
  out->requests = fit(a->requests, b->requests, f);
  out->l1_miss_requests = fit(a->l1_miss_requests, b->l1_miss_requests, f);
  out->dram_requests = fit(a->dram_requests, b->dram_requests, f);
  out->shared_passes = fit(a->shared_passes, b->shared_passes, f);
  for (i = 0; i < GP_REUSE_BUCKETS; i++)
    out->miss_reuse[i] = fit(a->miss_reuse[i], b->miss_reuse[i], f);
  out->amat = b->amat; /* on-chip PCs: their latency (gp_func_result) */
}

int gp_memsim_result_extrapolate(const gp_kernel *k, const gp_memsim_config *cfg,
                                 const gp_memsim_result *a, const gp_memsim_result *b, double f,
                                 const gp_alloc *alloc, gp_memsim_result *out, gp_error *err) {
  uint32_t s, n = b->pc_count;
  if (a->pc_count != n || n != k->static_count)
    return gp_error_set(err, "memsim: the samples have %u and %u static instructions, the kernel %u",
                        a->pc_count, n, k->static_count);
  memset(out, 0, sizeof *out);
  out->pcs = gp_malloc(alloc, ((size_t)n + 1) * sizeof *out->pcs);
  if (out->pcs == NULL)
    return gp_error_set(err, "memsim: out of memory");
  memset(out->pcs, 0, ((size_t)n + 1) * sizeof *out->pcs);
  out->pc_count = n;
  for (s = 0; s < n; s++) {
    gp_pc_memory *pc = &out->pcs[s];
    fit_pc(&a->pcs[s], &b->pcs[s], f, pc);
    if (gp_op_uses_cache(k->statics[s].op_class) && pc->instructions > 0)
      pc->amat = gp_pc_cache_amat(pc, cfg);
  }
  out->load_l1_misses = fit(a->load_l1_misses, b->load_l1_misses, f);
  out->mshr_requests = fit(a->mshr_requests, b->mshr_requests, f);
  out->mshr_dram_requests = fit(a->mshr_dram_requests, b->mshr_dram_requests, f);
  out->dram_requests = fit(a->dram_requests, b->dram_requests, f);
  out->dram_bytes_read = fit(a->dram_bytes_read, b->dram_bytes_read, f);
  out->dram_bytes_written = fit(a->dram_bytes_written, b->dram_bytes_written, f);
  out->bank_conflicts = fit(a->bank_conflicts, b->bank_conflicts, f);
  out->l1_bytes = fit(a->l1_bytes, b->l1_bytes, f);
  out->l2_bytes = fit(a->l2_bytes, b->l2_bytes, f);
  fit_stats(&a->l1, &b->l1, f, &out->l1);
  fit_stats(&a->l2, &b->l2, f, &out->l2);
  return GP_OK;
}
