/*
 * gpumech.c -- GPUMech over a traced kernel: per-PC inputs, one warp's
 * interval-pass input, every warp's features, the representative warp and
 * one warp's profile (gpumech.h).
 */
#include "gpumech.h"
#include "bounds_pass.h"
#include "interval_lean.h"
#include "num/kmeans.h"

#include <string.h>

void gp_gm_pcs_fill_static(const gp_kernel *k, gp_gm_pcs *p) {
  uint32_t i;
  for (i = 0; i < p->n; i++) {
    p->mix[(size_t)i * GP_MW_MIX_N + GP_MW_MIX_DEP] = 0;
    p->mem_insts[i] = gp_op_is_memory(k->statics[i].op_class) ? 1 : 0;
    p->cause[i] = (int32_t)i;
  }
}

void gp_gm_warp_input(const gp_kernel *k, uint64_t w, const gp_gm_pcs *p, double issue_cycles,
                      int totals_only, gp_iv_input *in) {
  uint64_t start = k->warp_start[w];
  int j;
  memset(in, 0, sizeof *in);
  in->count = k->warp_len[w];
  in->pc = k->pc_index + start;
  /* every producer: the kernel's GP_DEPS slots, interleaved, nearest first */
  for (j = 0; j < GP_DEPS && j < GP_IV_MAX_SRC; j++)
    in->dep[j] = k->deps + start * GP_DEPS + j;
  in->dep_stride = GP_DEPS;
  in->deps_packed = 1;
  in->latency = p->latency;
  in->cause = p->cause;
  in->ncause = p->n ? p->n : 1;
  in->issue_cycles = issue_cycles;
  in->totals_only = totals_only;
  if (p->inactive_latency) {
    in->active = k->active + start;
    in->inactive_latency = p->inactive_latency;
  }
  if (p->unit_timing || !totals_only) {
    in->unit = p->unit;
    in->unit_busy = p->unit_busy;
    in->unit_timing = p->unit_timing;
  }
  if (!totals_only) {
    in->mem_insts = p->mem_insts;
    in->l1_miss_reqs = p->l1_miss_reqs;
    in->dram_reqs = p->dram_reqs;
    in->l2_reqs = p->l2_reqs;
  }
}

/* Eq. 5's features of the warp whose lean pass gave `total`. */
static void set_feature(gp_gm_feature *f, uint64_t w, const gp_iv_input *in, double total) {
  f->warp = w;
  f->warp_perf = total > 0 ? (double)in->count / total : 0; /* Eq. 5, as gp_iv_warp_perf */
  f->insts = (double)in->count;
  f->total_cycles = total;
}

/* Whether warps a and b give the interval pass the same input, and so the
 * same total, bit for bit: the same length, PCs, producers and active
 * lanes (everything else it reads is per PC).  The suite's generated
 * kernels repeat one warp almost everywhere (docs/experiments.md,
 * "Performance"); a trace's warps mostly differ within a few instructions. */
static int same_walk(const gp_kernel *k, uint64_t a, uint64_t b) {
  uint64_t sa = k->warp_start[a], sb = k->warp_start[b];
  size_t n = k->warp_len[a];
  return n == k->warp_len[b] &&
         memcmp(k->pc_index + sa, k->pc_index + sb, n * sizeof *k->pc_index) == 0 &&
         (k->active == NULL || memcmp(k->active + sa, k->active + sb, n) == 0) &&
         (GP_DEPS == 0 ||
          memcmp(k->deps + sa * GP_DEPS, k->deps + sb * GP_DEPS, n * GP_DEPS * sizeof *k->deps) == 0);
}

/* Two workspaces reused over the warps: Eq. 4's pass per warp (its total
 * cycles only), two warps at a time (gp_iv_total_cycles_pair; a warp alone
 * when it repeats the warp it would pair with, and a last odd one), Eq. 5's
 * performance and the totals kept per warp in warp order.  A warp that
 * repeats the last warp passed (same_walk) takes its total without a pass.
 * The features are those of a pass over every warp, bit for bit. */
int gp_gm_features(const gp_kernel *k, const gp_gm_pcs *p, double issue_cycles,
                   const gp_alloc *alloc, gp_gm_feature *out, size_t *count, gp_error *err) {
  gp_iv_profile prof, prof2;
  gp_iv_pc *table;
  gp_iv_input held_in;
  uint64_t w, held = 0, known = 0;
  size_t n = 0, npc = p->n ? p->n : 1;
  int holding = 0, knowing = 0, status = GP_OK;
  double known_total = 0;
  table = gp_malloc(alloc, npc * sizeof *table);
  if (table == NULL)
    return gp_error_set(err, "out of memory");
  gp_iv_profile_init(&prof, alloc);
  gp_iv_profile_init(&prof2, alloc);
  for (w = 0; w < k->warps && status == GP_OK; w++) {
    gp_iv_input in;
    double total, total_held;
    if (k->warp_len[w] == 0)
      continue;
    gp_gm_warp_input(k, w, p, issue_cycles, 1, &in);
    if (n == 0 && !holding && gp_iv_pc_table(&in, p->n, table, err) != GP_OK) {
      status = GP_ERR;
    } else if (knowing && same_walk(k, known, w)) { /* the last total passed, again */
      if (holding) { /* the held warp first, alone, to keep warp order */
        if (gp_iv_total_cycles(&prof, &held_in, table, &total_held, err) != GP_OK) {
          status = GP_ERR;
          continue;
        }
        set_feature(&out[n++], held, &held_in, total_held);
        holding = 0;
      }
      set_feature(&out[n++], w, &in, known_total);
    } else if (holding && same_walk(k, held, w)) { /* the held warp once, for both */
      if (gp_iv_total_cycles(&prof, &held_in, table, &total_held, err) != GP_OK) {
        status = GP_ERR;
      } else {
        set_feature(&out[n++], held, &held_in, total_held);
        set_feature(&out[n++], w, &in, total_held);
        known = held, known_total = total_held, knowing = 1, holding = 0;
      }
    } else if (!holding) {
      held = w, held_in = in, holding = 1;
    } else if (gp_iv_total_cycles_pair(&prof, &prof2, &held_in, &in, table, &total_held, &total, err) !=
               GP_OK) {
      status = GP_ERR;
    } else {
      set_feature(&out[n++], held, &held_in, total_held);
      set_feature(&out[n++], w, &in, total);
      known = w, known_total = total, knowing = 1, holding = 0;
    }
  }
  if (status == GP_OK && holding) {
    double total;
    if (gp_iv_total_cycles(&prof, &held_in, table, &total, err) != GP_OK)
      status = GP_ERR;
    else
      set_feature(&out[n++], held, &held_in, total);
  }
  gp_iv_profile_free(&prof);
  gp_iv_profile_free(&prof2);
  gp_free(alloc, table, npc * sizeof *table);
  *count = n;
  return status;
}

/* An instruction's producers' distances as one word, the nearest in the
 * low 16 bits: the walk takes them off the low end until a 0 (the kernel's
 * slots hold 0 after the last), one shift a producer instead of an index
 * and a bound test.  On a little-endian machine the four slots are that
 * word as stored (one load; the shifts below compile to more). */
_Static_assert(GP_DEPS == 4, "deps_word packs four 16-bit distances");
static inline uint64_t deps_word(const uint16_t *row) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t word;
  memcpy(&word, row, sizeof word);
  return word;
#else
  return (uint64_t)row[0] | (uint64_t)row[1] << 16 | (uint64_t)row[2] << 32 |
         (uint64_t)row[3] << 48;
#endif
}

/* Warp w's lean pass (r, set up for its input) and its bounds path (q) in
 * one walk over its instructions: the two are independent chains of
 * dependent floating-point operations, so they overlap in the processor,
 * and the walk reads each instruction's PC and producers once.  Each step
 * is gp_iv_lean_step's (interval_lean.h) and gp_bounds_path_step's
 * (bounds_pass.h) arithmetic in the same order, written out together so
 * that one loop reads the producers for both (a change to either step is
 * made here too; test_gpumech compares the walk with the two passes on
 * seeded random kernels, bit for bit); the warp's LSU cycles and bank
 * passes are added to q's counts in program order.  The two paths'
 * result-ready cycles share one ring of pairs (q's two rings of 65,536
 * doubles: 65,536 pairs), so one index finds both of a producer's; every
 * producer a distance names is still there (the lean pass's own ring,
 * sized to the warp, holds them too), so the cycles read are those of two
 * rings.  Inline with `timing` constant. */
static inline __attribute__((always_inline)) void walk_warp(gp_iv_lean *r, const gp_iv_pc *table,
                                                           gp_bounds_pass *q, uint64_t w,
                                                           int timing) {
  const gp_kernel *k = q->k;
  uint64_t start = k->warp_start[w], n = k->warp_len[w], x;
  /* the loop's arrays in locals: the stores into the rings (doubles) could
   * otherwise alias what the compiler reads through r and q */
  const uint32_t *pcs = r->in->pc;
  const uint8_t *act = r->in->active, *cls = k->op_class + start;
  const uint16_t *deps = k->deps + start * GP_DEPS;
  const gp_bounds_class *facts = q->facts;
  const double *pc_lat = q->pc_lat;
  double *done = q->done; /* pairs: [2 slot] the lean pass's, [2 slot + 1] the path's */
  double slot = r->in->issue_cycles, lsu = q->out->lsu_cycles, passes_sum = q->out->shared_passes;
  double t, end, busy, passes, free_g[GP_IV_UNITS], free_b[GP_UNIT_COUNT];
  gp_iv_lean_state st = r->st; /* locals the compiler can keep in registers */
  gp_bounds_path s;
  gp_bounds_path_start(&s, done, &t, &end);
  memcpy(free_g, r->unit_free, sizeof free_g);
  memcpy(free_b, s.unit_free, sizeof free_b);
  for (x = 0; x < n; x++) {
    uint32_t pc = pcs[x];
    const gp_iv_pc *g = &table[pc];
    const gp_bounds_class *f = &facts[cls[x]];
    const uint16_t *row = deps + x * GP_DEPS;
    double tg = st.prev + st.step, tb = t + 1;
    double lg = g->quiet && act[x] == 0 ? g->quiet_latency : g->latency;
    double lb = f->lat == GP_BOUNDS_LAT_PC      ? pc_lat[pc]
                : f->lat == GP_BOUNDS_LAT_FLOOR ? gp_bounds_memory_floor(q, start + x, f->hit)
                                                : 0;
    int ug = g->unit, ub = f->unit;
    uint64_t word;
    if (timing && ug >= 0 && free_g[ug] > tg)
      tg = free_g[ug];
    for (word = deps_word(row); (word & 0xffff) != 0; word >>= 16)
      if ((word & 0xffff) <= x) {
        const double *ready = done + 2 * ((x - (word & 0xffff)) % GP_BOUNDS_RING);
        double dg = ready[0], db = ready[1];
        if (dg > tg)
          tg = dg;
        if (db > tb)
          tb = db;
      }
    if (free_b[ub] > tb)
      tb = free_b[ub];
    if (ub == GP_UNIT_LSU) {
      busy = gp_bounds_lsu_cycles(q, start + x, f, &passes, &lb);
      lsu += busy;
      passes_sum += passes;
    } else {
      busy = f->busy;
    }
    free_b[ub] = tb + busy;
    done[2 * (x % GP_BOUNDS_RING) + 1] = tb + lb;
    if (tb + lb > end)
      end = tb + lb;
    t = tb;
    if (tg > st.prev + slot) {
      double gap = tg - st.prev - slot;
      if (gap > 0)
        st.stall += gap;
    }
    done[2 * (x % GP_BOUNDS_RING)] = tg + lg;
    if (ug >= 0)
      free_g[ug] = tg + g->busy;
    if (tg + lg > st.last_done)
      st.last_done = tg + lg;
    st.prev = tg;
    st.step = g->step;
  }
  r->st = st;
  memcpy(r->unit_free, free_g, sizeof free_g);
  q->out->lsu_cycles = lsu, q->out->shared_passes = passes_sum;
  q->paths[w] = end;
}

int gp_gm_walks_together(const gp_gm_pcs *p) {
  return p->inactive_latency != NULL && GP_DEPS > 0;
}

/* One walk per warp (walk_warp), in warp order; a warp without
 * instructions has a path of 0 and no feature. */
int gp_gm_features_paths(const gp_kernel *k, const gp_gm_pcs *p, double issue_cycles,
                         gp_bounds_pass *q, const gp_alloc *alloc, gp_gm_feature *out,
                         size_t *count, gp_error *err) {
  gp_iv_profile prof;
  gp_iv_pc *table;
  uint64_t w;
  size_t n = 0, npc = p->n ? p->n : 1;
  int status = GP_OK;
  table = gp_malloc(alloc, npc * sizeof *table);
  if (table == NULL)
    return gp_error_set(err, "out of memory");
  gp_iv_profile_init(&prof, alloc);
  for (w = 0; w < k->warps && status == GP_OK; w++) {
    gp_iv_input in;
    gp_iv_lean r;
    if (k->warp_len[w] == 0) {
      q->paths[w] = 0;
      continue;
    }
    gp_gm_warp_input(k, w, p, issue_cycles, 1, &in);
    if (n == 0 && gp_iv_pc_table(&in, p->n, table, err) != GP_OK)
      status = GP_ERR;
    else if (gp_iv_lean_setup(&r, &prof, &in, err) != GP_OK)
      status = GP_ERR;
    else if (!r.interleaved || in.active == NULL)
      status = gp_error_set(err, "gpumech: the walk needs active lanes (gp_gm_walks_together)");
    else {
      if (in.unit_timing)
        walk_warp(&r, table, q, w, 1);
      else
        walk_warp(&r, table, q, w, 0);
      set_feature(&out[n++], w, &in, gp_iv_lean_total(&r));
    }
  }
  gp_iv_profile_free(&prof);
  gp_free(alloc, table, npc * sizeof *table);
  *count = n;
  return status;
}

/* Sec. III-C: k-means over Eq. 6's features (warp performance, #insts,
 * each divided by its mean), the representative nearest the largest
 * cluster's centre; or Fig. 7's MAX / MIN by warp performance, as the paper
 * ranks them, or a seeded RANDOM pick. */
int gp_gm_select(const gp_gm_feature *f, size_t n, gp_gm_select_method method, uint64_t seed,
                 const gp_alloc *alloc, size_t *best, gp_error *err) {
  static const gp_km_pick picks[] = {GP_KM_PICK_MAX, GP_KM_PICK_MAX, GP_KM_PICK_MIN,
                                     GP_KM_PICK_RANDOM};
  size_t bytes = 4 * (n ? n : 1) * sizeof(double), i;
  double *perf, *insts, *features;
  int status = GP_OK;
  if (n == 0)
    return gp_error_set(err, "no warps to select from");
  perf = gp_malloc(alloc, bytes);
  if (perf == NULL)
    return gp_error_set(err, "out of memory");
  insts = perf + n;
  features = insts + n;
  for (i = 0; i < n; i++) {
    perf[i] = f[i].warp_perf;
    insts[i] = f[i].insts;
  }
  if (method == GP_GM_SELECT_KMEANS) {
    gp_km_opts opts;
    gp_km_result r;
    gp_km_opts_default(&opts);
    opts.seed = seed;
    gp_km_warp_features(features, n, perf, insts);
    status = gp_km_run(features, n, 2, &opts, alloc, NULL, NULL, &r, err);
    if (status == GP_OK)
      *best = r.representative;
  } else {
    *best = gp_km_pick_index(perf, n, picks[method], seed);
  }
  gp_free(alloc, perf, bytes);
  return status;
}

int gp_gm_profile(gp_iv_profile *prof, const gp_kernel *k, uint64_t w, const gp_gm_pcs *p,
                  double issue_cycles, gp_error *err) {
  gp_iv_input in;
  if (w >= k->warps)
    return gp_error_set(err, "warp %llu out of range (the kernel has %u warps)",
                        (unsigned long long)w, k->warps);
  gp_gm_warp_input(k, w, p, issue_cycles, 0, &in);
  return gp_iv_run(prof, &in, NULL, err);
}

/* ---------------------------------------------------------------------------
 * Profiles kept across predictions (gpumech.h, gp_gm_profiles)
 * ------------------------------------------------------------------------- */

enum { KEPT_ARRAYS = 9 };

/* The per-PC arrays gp_gm_warp_input hands the interval pass (totals_only
 * 0), with their sizes in bytes (0 where not given). */
static void kept_arrays(const gp_gm_pcs *p, const void *a[KEPT_ARRAYS], size_t bytes[KEPT_ARRAYS]) {
  size_t n = p->n, d = n * sizeof(double), i;
  a[0] = p->latency, bytes[0] = d;
  a[1] = p->cause, bytes[1] = n * sizeof *p->cause;
  a[2] = p->unit, bytes[2] = n * sizeof *p->unit;
  a[3] = p->unit_busy, a[4] = p->mem_insts, a[5] = p->l1_miss_reqs;
  a[6] = p->dram_reqs, a[7] = p->l2_reqs, a[8] = p->inactive_latency;
  for (i = 3; i < KEPT_ARRAYS; i++)
    bytes[i] = d;
  for (i = 0; i < KEPT_ARRAYS; i++)
    if (a[i] == NULL)
      bytes[i] = 0;
}

/* Whether entry e was made from this input (every byte the pass reads). */
static int kept_matches(const gp_gm_kept_profile *e, const gp_kernel *k, uint64_t w,
                        const gp_gm_pcs *p, double issue_cycles) {
  const void *a[KEPT_ARRAYS];
  size_t bytes[KEPT_ARRAYS], i, at = 0;
  uint32_t present = 0;
  if (e->last_use == 0 || e->k != k || e->warp != w || w >= k->warps || e->pcs != k->pc_index + k->warp_start[w] ||
      e->insts != k->warp_len[w] || e->n != p->n ||
      e->unit_timing != p->unit_timing || memcmp(&e->issue_cycles, &issue_cycles, sizeof issue_cycles))
    return 0;
  kept_arrays(p, a, bytes);
  for (i = 0; i < KEPT_ARRAYS; i++)
    present |= (uint32_t)(a[i] != NULL) << i;
  if (present != e->present)
    return 0;
  for (i = 0; i < KEPT_ARRAYS; i++) {
    if (bytes[i] > 0 && memcmp(e->inputs + at, a[i], bytes[i]) != 0)
      return 0;
    at += bytes[i];
  }
  return 1;
}

/* Stores the input's key in entry e (its profile already made). */
static int kept_store(gp_gm_kept_profile *e, const gp_alloc *alloc, const gp_kernel *k, uint64_t w,
                      const gp_gm_pcs *p, double issue_cycles, gp_error *err) {
  const void *a[KEPT_ARRAYS];
  size_t bytes[KEPT_ARRAYS], i, total = 0, at = 0;
  kept_arrays(p, a, bytes);
  for (i = 0; i < KEPT_ARRAYS; i++)
    total += bytes[i];
  if (total != e->input_bytes) {
    gp_free(alloc, e->inputs, e->input_bytes);
    e->input_bytes = 0;
    e->inputs = total ? gp_malloc(alloc, total) : NULL;
    if (total && e->inputs == NULL)
      return gp_error_set(err, "gpumech: out of memory (a kept profile's inputs)");
    e->input_bytes = total;
  }
  e->present = 0;
  for (i = 0; i < KEPT_ARRAYS; i++) {
    e->present |= (uint32_t)(a[i] != NULL) << i;
    if (bytes[i] > 0)
      memcpy(e->inputs + at, a[i], bytes[i]);
    at += bytes[i];
  }
  e->k = k, e->warp = w, e->n = p->n, e->unit_timing = p->unit_timing;
  e->pcs = k->pc_index + k->warp_start[w], e->insts = k->warp_len[w];
  e->issue_cycles = issue_cycles;
  return GP_OK;
}

int gp_gm_profile_kept(gp_gm_profiles *kept, const gp_alloc *alloc, const gp_iv_profile **out,
                       const gp_kernel *k, uint64_t w, const gp_gm_pcs *p, double issue_cycles,
                       gp_error *err) {
  gp_gm_kept_profile *e, *victim = &kept->entry[0];
  size_t i;
  *out = NULL;
  for (i = 0; i < GP_GM_KEPT_PROFILES; i++) {
    e = &kept->entry[i];
    if (kept_matches(e, k, w, p, issue_cycles)) {
      e->last_use = ++kept->uses;
      kept->reused++;
      *out = &e->prof;
      return GP_OK;
    }
    if (e->last_use < victim->last_use)
      victim = e;
  }
  e = victim;
  if (e->prof.alloc.fn == NULL) /* never used */
    gp_iv_profile_init(&e->prof, alloc);
  e->last_use = 0; /* empty until made and stored */
  if (gp_gm_profile(&e->prof, k, w, p, issue_cycles, err) != GP_OK ||
      kept_store(e, alloc, k, w, p, issue_cycles, err) != GP_OK)
    return GP_ERR;
  e->last_use = ++kept->uses;
  kept->made++;
  *out = &e->prof;
  return GP_OK;
}

void gp_gm_profiles_free(gp_gm_profiles *kept, const gp_alloc *alloc) {
  size_t i;
  for (i = 0; i < GP_GM_KEPT_PROFILES; i++) {
    gp_gm_kept_profile *e = &kept->entry[i];
    gp_iv_profile_free(&e->prof);
    gp_free(alloc, e->inputs, e->input_bytes);
  }
  memset(kept, 0, sizeof *kept);
}
