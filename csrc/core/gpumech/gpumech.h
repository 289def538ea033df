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
 * and a whole launch on a machine (machine.h), the family's C entry:
 *   gp_gm_inputs_build      Sec. V-A: per-PC latencies, requests, units and
 *                           miss events from memsim's functional result;
 *                           the mean warp's demands (inputs.c)
 *   gp_gm_prepare           the representative warp(s) of a kernel, once
 *                           for every configuration (launch.c)
 *   gp_gm_prepare_counted   ... and the bounds' counts (bounds.h), the pass
 *                           over every warp and the bounds' dependence paths
 *                           in one walk (gp_gm_features_paths)
 *   gp_gm_predict           the launch: wave shapes, the multi-warp model per
 *                           wave (multiwarp.h), the launch's totals, CPI
 *                           stack and floor at the hard bounds (launch.c)
 *   gp_gm_pc_costs_build    on request: the launch's stack per static PC
 *                           (per_pc.c)
 */
#ifndef GP_GPUMECH_H
#define GP_GPUMECH_H

#include "bounds.h"
#include "interval.h"
#include "machine.h"
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
  double *l2_reqs;      /* expected L2 requests per execution (gpush's equations) */
  double *mix;          /* miss-event distribution per PC (Sec. VII); DEP column 0 */
  double *mem_insts;    /* 1 for memory PCs (Eq. 20's #warp_mem_insts) */
  int32_t *cause;       /* stall-cause id = static PC index */
  int8_t *unit;         /* scheduler unit (GP_MW_UNIT_*) or -1 */
  double *unit_busy;    /* cycles an execution occupies its unit */
  double *inactive_latency; /* latency with no active lane (< 0: latency), or NULL */
  int unit_timing;      /* 1: instructions wait for their unit (interval.h) */
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
 * memory quantities the contention models sum per interval and the unit
 * uses; the units and the active lanes in every pass when the PCs ask for
 * unit_timing or give inactive_latency (they shape the warp's path). */
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

/* gp_gm_features and the bounds' dependence paths of every warp in one
 * walk over each warp's instructions (gp_gm_prepare_counted's): the
 * features as gp_gm_features gives them, and q's paths and LSU sums (q
 * from gp_bounds_pass_begin, bounds_pass.h; gp_bounds_pass_finish left to
 * the caller) as gp_bounds_count's pass gives them, bit for bit.  The walk
 * needs the PCs' active-lane latencies (gpush's equations):
 * gp_gm_walks_together says whether `p` has them; without, GP_ERR. */
struct gp_bounds_pass;
int gp_gm_walks_together(const gp_gm_pcs *p);
int gp_gm_features_paths(const gp_kernel *k, const gp_gm_pcs *p, double issue_cycles,
                         struct gp_bounds_pass *q, const gp_alloc *alloc, gp_gm_feature *out,
                         size_t *count, gp_error *err);

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

/* ---------------------------------------------------------------------------
 * A launch on a machine
 * ------------------------------------------------------------------------- */

/* The interval pass's cycles per issue slot: the paper's one issue slot of
 * its scheduler (1 / sm.issue_width); gpush's at least a cycle, as the
 * simulator's schedulers issue from issue_width different warps a cycle
 * (one instruction per warp) and the bounds' latency path assumes. */
double gp_gm_issue_cycles(const gp_machine *m, gp_mw_equations eq);

/* Everything a launch's model reads of the kernel's memory behaviour
 * (Sec. V-A), per static PC and for the mean warp. */
typedef struct gp_gm_inputs {
  gp_alloc alloc;
  gp_gm_pcs pcs;                /* arrays owned here; unit ids are GP_UNIT_* */
  double avg_miss_latency;      /* Eq. 19's: per L1-missing load instruction, by its
                                   slowest request (the paper's MSHR service time) */
  double mshr_hold_latency;     /* gpush's: an MSHR's holding time per request */
  double miss_dram_fraction;    /* ... and the share of its requests that reach DRAM */
  /* the mean warp (the kernel's totals over its warps): */
  double insts_per_warp, l1_miss_reqs_per_warp, l2_reqs_per_warp, dram_reqs_per_warp;
  double unit_busy_per_warp[GP_UNIT_COUNT];
  double bank_busy_per_warp;
} gp_gm_inputs;

/* Builds the inputs of kernel k on machine m from memsim's functional result
 * `mem` of the same kernel, machine and occupancy, under a set of equations
 * (gpush's add the MSHR holding time, merges, stores' and empty
 * instructions' latencies, unit timing).  Free with gp_gm_inputs_free.
 * Errors: out of memory, `mem` not of this kernel. */
int gp_gm_inputs_build(const gp_kernel *k, const gp_machine *m, const gp_memsim_result *mem,
                       gp_mw_equations eq, const gp_alloc *alloc, gp_gm_inputs *out,
                       gp_error *err);
void gp_gm_inputs_free(gp_gm_inputs *in);

/* A block's critical warp: its longest alone (a block holds its slot until
 * its last warp ends). */
typedef struct gp_gm_critical {
  uint32_t block;
  uint64_t warp;
  double cycles;
} gp_gm_critical;

/* The representative warp of a kernel and, under gpush's equations, every
 * block's critical warp in block order (the last wave ends with its longest
 * block).  Chosen once per kernel on a base configuration. */
/* Interval profiles kept for later predictions of one kernel
 * (gp_gm_profile_kept): a sweep predicts a kernel at many points whose
 * per-PC inputs are the same bit for bit (every point that keeps the
 * occupancy and the memory parameters has the same replay and latencies;
 * the main job's MSHRs and DRAM bandwidth do not reach the interval pass),
 * and the pass over the representative and the last wave's warps was a
 * quarter of such a prediction's instructions.  An entry is the profile of
 * one warp under one input; GP_GM_KEPT_PROFILES entries, the least
 * recently used replaced.  Zeroed: empty. */
#define GP_GM_KEPT_PROFILES 4
typedef struct gp_gm_kept_profile {
  uint64_t last_use;        /* 0: empty */
  const gp_kernel *k;       /* the kernel and where its warp's instructions lie */
  const uint32_t *pcs;
  uint64_t warp, insts;
  double issue_cycles;
  uint32_t n;
  int unit_timing;
  unsigned char *inputs;    /* copies of the per-PC arrays the pass reads */
  size_t input_bytes;
  uint32_t present;         /* a bit per array: given (not NULL) */
  gp_iv_profile prof;
} gp_gm_kept_profile;

typedef struct gp_gm_profiles {
  gp_gm_kept_profile entry[GP_GM_KEPT_PROFILES];
  uint64_t uses;
  uint64_t made, reused;    /* profiles run and profiles found (tests, benchmarks) */
} gp_gm_profiles;

/* Warp w's profile as gp_gm_profile(.., k, w, p, issue_cycles, ..) makes
 * it, from `kept` when an entry holds the same kernel (its address and
 * those of the warp's instructions), warp and issue cycles and the same
 * bytes of every per-PC array the pass reads (latency, cause, unit,
 * unit_busy, mem_insts, l1_miss_reqs, dram_reqs, l2_reqs,
 * inactive_latency) and unit_timing; else made and kept.  *out points
 * into `kept` until the next call with it.  `alloc`: the entries'
 * memory. */
int gp_gm_profile_kept(gp_gm_profiles *kept, const gp_alloc *alloc, const gp_iv_profile **out,
                       const gp_kernel *k, uint64_t w, const gp_gm_pcs *p, double issue_cycles,
                       gp_error *err);
void gp_gm_profiles_free(gp_gm_profiles *kept, const gp_alloc *alloc);

typedef struct gp_gm_prepared {
  gp_alloc alloc;
  gp_mw_equations equations;
  uint64_t warp;
  gp_gm_critical *critical;
  size_t critical_count;
  gp_gm_profiles kept;      /* predictions' profiles (gp_gm_options.kept) */
} gp_gm_prepared;

/* Selects the representative warp from inputs `in` (built under
 * equations `eq`): Eq. 6's k-means (gpush's: over the blocks' critical
 * warps) or Fig. 7's MAX, MIN, RANDOM over every warp.  Free with
 * gp_gm_prepared_free.  Errors: a kernel without instructions, out of
 * memory. */
int gp_gm_prepare(const gp_kernel *k, const gp_machine *m, const gp_gm_inputs *in,
                  gp_mw_equations eq, gp_gm_select_method method, uint64_t seed,
                  const gp_alloc *alloc, gp_gm_prepared *out, gp_error *err);
void gp_gm_prepared_free(gp_gm_prepared *p);

/* gp_gm_prepare and gp_bounds_count (this machine at blocks_per_sm, the
 * memory totals from memsim's functional result `mem`) together: every
 * warp's pass and its dependence path in one walk (gp_gm_features_paths),
 * where the inputs allow it, else the two calls.  The same representative,
 * critical warps and counts as the two calls, bit for bit.  Errors: those
 * of both. */
int gp_gm_prepare_counted(const gp_kernel *k, const gp_machine *m, const gp_gm_inputs *in,
                          gp_mw_equations eq, gp_gm_select_method method, uint64_t seed,
                          uint32_t blocks_per_sm, const gp_memsim_result *mem,
                          const gp_alloc *alloc, gp_gm_prepared *out, gp_bounds_counts *counts,
                          gp_error *err);

/* One launch's options. */
typedef struct gp_gm_options {
  gp_mw_model model;
  gp_mw_policy policy;
  gp_mw_equations equations;
  uint32_t blocks_per_sm;       /* the kernel's occupancy (gpush.occupancy), >= 1 */
  gp_gm_profiles *kept;         /* profiles kept across predictions (gp_gm_profile_kept;
                                   the prepared kernel's), or NULL: each made anew */
} gp_gm_options;

/* A wave shape: `count` waves of `blocks` blocks, the busiest SM holding
 * blocks_on_sm of them (warps_on_sm warps), `cores` SMs holding blocks,
 * modelled with warp `warp`. */
typedef struct gp_gm_shape {
  double count;
  uint32_t blocks, blocks_on_sm, warps_on_sm, cores;
  uint64_t warp;
  gp_mw_result r;               /* the multi-warp model of one of its waves */
  double single_cycles;         /* ... of one of its blocks alone on an SM (the
                                   front end's slot turnover; r.cycles when
                                   blocks_on_sm is 1) */
} gp_gm_shape;

#define GP_GM_MAX_SHAPES 3

/* A launch's prediction. */
typedef struct gp_gm_prediction {
  double cycles;                /* the launch, its kernel launch cost included */
  double cpi, stack[GP_MW_STACK_N]; /* per scheduler; the stack sums to the CPI */
  uint32_t waves;
  gp_gm_shape shape[GP_GM_MAX_SHAPES];
  size_t shape_count;
  size_t longest;               /* the shape taking most cycles (gpush's) */
  double dispatch_cycles;       /* the front end's cycles beyond the waves' bodies
                                   (launch.c, front_end_cycles) */
  double mshr_rounds_cycles;    /* gpush's MT_MSHR and up: the MSHRs' whole rounds */
  int launch_totals;            /* gpush's equations, MT and up: the totals below */
  const char *bound;            /* the binding resource (gpush's launch totals) */
  const char *hard_bound;       /* the largest hard bound (bounds.h), and its cycles */
  double hard_bound_cycles;     /* with the kernel launch */
  uint64_t representative_warp; /* the full waves' representative */
  uint64_t profile_warp;        /* whose profile the result reports */
  int dram_capped, bandwidth_bound; /* the paper's validity flags (any shape) */
} gp_gm_prediction;

/* "latency", "issue", "mshr", "dram", "l2", then the units (GP_MW_RES_*
 * order); "invalid". */
const char *gp_gm_resource_name(int resource);

/* Predicts a launch of kernel k on machine m: inputs `in` (built under
 * opt->equations), the representative warps `prep` (from gp_gm_prepare
 * under the same equations, on this or a base configuration), and under
 * gpush's equations the kernel's hard bound counts `counts` (gp_bounds_count
 * on this machine and occupancy; the prediction is floored at its bounds).
 * `profile` (initialised by the caller) receives the reported warp's
 * interval profile.  Errors: those of the interval pass and the multi-warp
 * model. */
int gp_gm_predict(const gp_kernel *k, const gp_machine *m, const gp_gm_inputs *in,
                  const gp_gm_prepared *prep, const gp_bounds_counts *counts,
                  const gp_gm_options *opt, gp_iv_profile *profile, gp_gm_prediction *out,
                  gp_error *err);

/* Where a predicted launch's cycles go, per static PC: its executions and
 * its scheduler cycles per CPI-stack category (the stack's CPI x the
 * launch's warp instructions, split over the PCs that cause each category;
 * per_pc.c says how).  Over the PCs, the cycles of a category sum to
 * stack[cat] x k->insts and the executions to k->insts. */
typedef struct gp_gm_pc_costs {
  gp_alloc alloc;
  uint32_t n;                   /* the kernel's static_count */
  uint64_t *executions;         /* n */
  double *cycles;               /* n x GP_MW_STACK_N, row-major */
} gp_gm_pc_costs;

/* Builds the per-PC costs of prediction `pred` (gp_gm_predict of kernel k
 * on machine m with inputs `in` and options `opt`): reruns the interval
 * pass of each wave shape's warp (one to three warps), nothing else.  Free
 * with gp_gm_pc_costs_free.  Errors: out of memory, inputs of another
 * kernel, those of the interval pass. */
int gp_gm_pc_costs_build(const gp_kernel *k, const gp_machine *m, const gp_gm_inputs *in,
                         const gp_gm_prediction *pred, const gp_gm_options *opt,
                         const gp_alloc *alloc, gp_gm_pc_costs *out, gp_error *err);
void gp_gm_pc_costs_free(gp_gm_pc_costs *c);

#endif
