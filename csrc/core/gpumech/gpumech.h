/*
 * gpumech.h -- GPUMech over a traced kernel: the glue between a gp_kernel
 * (trace.h) and the plain-array model phases (interval.h, multiwarp.h,
 * num/kmeans.h).  The binding (csrc/lua/l_gpumech.c) and the C tests call
 * these; the phases themselves stay free of the trace.
 *
 *   gp_gm_pcs_fill_static   per static PC: memory weight, cause id, DEP row
 *   gp_gm_warp_input        one warp of the kernel as an interval-pass input
 *   gp_gm_features          Eq. 4-5 over every warp with instructions
 *   gp_gm_select            Sec. III-C / Fig. 7: the representative warp
 *   gp_gm_profile           Eq. 4 over one warp, intervals kept
 */
#ifndef GP_GPUMECH_H
#define GP_GPUMECH_H

#include "interval.h"
#include "multiwarp.h"
#include "trace.h"

/* The interval pass's per static PC inputs, n = the kernel's static_count
 * entries each (mix: n x GP_MW_MIX_N, row-major).  The caller owns the
 * arrays and fills latency, l1_miss_reqs, dram_reqs and the L1, L2 and DRAM
 * columns of mix (the per-PC memory model); gp_gm_pcs_fill_static fills the
 * rest from the kernel. */
typedef struct gp_gm_pcs {
  uint32_t n;
  double *latency;      /* cycles, issue to dependent issue */
  double *l1_miss_reqs; /* expected L1-missing requests per execution (Eq. 18) */
  double *dram_reqs;    /* expected DRAM requests per execution (Eq. 23) */
  double *mix;          /* miss-event distribution per PC (Sec. VII); DEP column 0 */
  double *mem_insts;    /* 1 for memory PCs (Eq. 20's #warp_mem_insts) */
  int32_t *cause;       /* stall-cause id = static PC index */
} gp_gm_pcs;

/* Fills mem_insts (1 for memory classes), cause (the identity: a stall is
 * charged to the PC that caused it) and mix's DEP column (0: a PC's stall
 * splits over L1, L2 and DRAM by its miss events, all zero for compute PCs,
 * whose stalls multiwarp.c then counts as DEP).  p->n must be
 * k->static_count. */
void gp_gm_pcs_fill_static(const gp_kernel *k, gp_gm_pcs *p);

/* Warp w of the kernel as the interval pass's input: its instructions,
 * both dependence distances (nearest producer, nearest load producer), the
 * per-PC latencies and causes; with totals_only = 0 also the per-PC
 * memory quantities the contention models sum per interval. */
void gp_gm_warp_input(const gp_kernel *k, uint64_t w, const gp_gm_pcs *p, double issue_cycles,
                      int totals_only, gp_iv_input *in);

/* One candidate of the representative-warp selection. */
typedef struct gp_gm_feature {
  uint64_t warp;        /* 0-based global warp index */
  double warp_perf;     /* Eq. 5 */
  double insts;         /* #warp_insts */
  double total_cycles;  /* the warp alone: insts x issue_cycles + stall cycles */
} gp_gm_feature;

/* Runs the interval pass (Eq. 4, totals only) over every warp with
 * instructions, in warp order, into out[0 .. *count) (out: k->warps
 * entries).  Errors: those of gp_iv_run (out of memory). */
int gp_gm_features(const gp_kernel *k, const gp_gm_pcs *p, double issue_cycles,
                   const gp_alloc *alloc, gp_gm_feature *out, size_t *count, gp_error *err);

/* How the representative warp is chosen (Sec. III-C; Fig. 7). */
typedef enum gp_gm_select_method {
  GP_GM_SELECT_KMEANS, /* nearest the centre of the largest of two k-means
                          clusters over Eq. 6's normalised features */
  GP_GM_SELECT_MAX,    /* the largest warp performance */
  GP_GM_SELECT_MIN,    /* the smallest warp performance */
  GP_GM_SELECT_RANDOM  /* a seeded uniform draw */
} gp_gm_select_method;

/* The index into f[0 .. n) of the representative warp.  Errors: n == 0,
 * out of memory. */
int gp_gm_select(const gp_gm_feature *f, size_t n, gp_gm_select_method method, uint64_t seed,
                 const gp_alloc *alloc, size_t *best, gp_error *err);

/* The interval pass (Eq. 4) over warp w with its intervals kept, into
 * prof (initialised by the caller; reused across calls).  Errors: w out of
 * range, those of gp_iv_run. */
int gp_gm_profile(gp_iv_profile *prof, const gp_kernel *k, uint64_t w, const gp_gm_pcs *p,
                  double issue_cycles, gp_error *err);

#endif
