/*
 * launch.c -- GPUMech over one launch on a machine (gpumech.h): the
 * representative warps (Sec. III-C), the thread-block waves, the
 * multi-warp model per wave shape (multiwarp.h), and the launch's totals:
 * the paper's one wave shape's CPI, or gpush's CPI and stack over every
 * wave with the MSHRs' whole rounds and the floor at the hard bounds.
 * docs/gpumech.md states each step against the paper.
 */
#include "gpumech.h"
#include "bounds_pass.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * Representative warps
 * ------------------------------------------------------------------------- */

void gp_gm_prepared_free(gp_gm_prepared *p) {
  gp_gm_profiles_free(&p->kept, &p->alloc);
  gp_free(&p->alloc, p->critical, (p->critical_count + 1) * sizeof *p->critical);
  p->critical = NULL;
  p->critical_count = 0;
}

/* Each block's critical warp, in block order, from every warp's features
 * (warp order, so a block's warps are adjacent and blocks ascend): the
 * longest alone, the first among equals.  Returns how many. */
static size_t block_critical(const gp_gm_feature *f, size_t n, uint32_t warps_per_block,
                             gp_gm_feature *best_out, gp_gm_critical *out) {
  size_t i, count = 0;
  for (i = 0; i < n; i++) {
    uint32_t b = (uint32_t)(f[i].warp / warps_per_block);
    if (count == 0 || out[count - 1].block != b) {
      out[count].block = b;
      best_out[count] = f[i];
      count++;
    } else if (f[i].total_cycles > best_out[count - 1].total_cycles) {
      best_out[count - 1] = f[i];
    }
  }
  for (i = 0; i < count; i++)
    out[i].warp = best_out[i].warp, out[i].cycles = best_out[i].total_cycles;
  return count;
}

/* The representative warp(s) from every warp's features f[0 .. n) (warp
 * order); frees f (fbytes). */
static int select_prepared(const gp_kernel *k, gp_gm_feature *f, size_t n, size_t fbytes,
                           gp_mw_equations eq, gp_gm_select_method method, uint64_t seed,
                           const gp_alloc *alloc, gp_gm_prepared *out, gp_error *err) {
  size_t count, best = 0;
  gp_gm_feature *crit_f = NULL;
  int status = GP_OK;
  if (n == 0) {
    gp_free(alloc, f, fbytes);
    return gp_error_set(err, "gpumech: the kernel has no instructions");
  }
  if (eq != GP_MW_EQ_GPUSH) { /* Eq. 6 over every warp */
    status = gp_gm_select(f, n, method, seed, alloc, &best, err);
    out->warp = f[best].warp;
    gp_free(alloc, f, fbytes);
    return status;
  }
  /* gpush's: k-means over the blocks' critical warps, so the full waves'
   * representative stands for a block's lifetime; Fig. 7's MAX, MIN and
   * RANDOM still pick among all warps */
  crit_f = gp_malloc(alloc, fbytes);
  out->critical = gp_malloc(alloc, ((size_t)k->warps + 1) * sizeof *out->critical);
  if (crit_f == NULL || out->critical == NULL) {
    gp_free(alloc, crit_f, fbytes);
    gp_free(alloc, f, fbytes);
    gp_free(alloc, out->critical, ((size_t)k->warps + 1) * sizeof *out->critical);
    out->critical = NULL;
    return gp_error_set(err, "gpumech: out of memory");
  }
  count = block_critical(f, n, k->warps_per_block, crit_f, out->critical);
  if (method == GP_GM_SELECT_KMEANS) {
    status = gp_gm_select(crit_f, count, method, seed, alloc, &best, err);
    out->warp = crit_f[best].warp;
  } else {
    status = gp_gm_select(f, n, method, seed, alloc, &best, err);
    out->warp = f[best].warp;
  }
  /* keep exactly `count` entries (gp_gm_prepared_free frees count + 1) */
  out->critical = gp_realloc(alloc, out->critical, ((size_t)k->warps + 1) * sizeof *out->critical,
                             (count + 1) * sizeof *out->critical);
  out->critical_count = count;
  gp_free(alloc, crit_f, fbytes);
  gp_free(alloc, f, fbytes);
  if (status != GP_OK)
    gp_gm_prepared_free(out);
  return status;
}

int gp_gm_prepare(const gp_kernel *k, const gp_machine *m, const gp_gm_inputs *in,
                  gp_mw_equations eq, gp_gm_select_method method, uint64_t seed,
                  const gp_alloc *alloc, gp_gm_prepared *out, gp_error *err) {
  size_t n = 0, fbytes = ((size_t)k->warps + 1) * sizeof(gp_gm_feature);
  gp_gm_feature *f = gp_malloc(alloc, fbytes);
  memset(out, 0, sizeof *out);
  out->alloc = *alloc;
  out->equations = eq;
  if (f == NULL)
    return gp_error_set(err, "gpumech: out of memory");
  if (gp_gm_features(k, &in->pcs, gp_gm_issue_cycles(m, eq), alloc, f, &n, err) != GP_OK) {
    gp_free(alloc, f, fbytes);
    return GP_ERR;
  }
  return select_prepared(k, f, n, fbytes, eq, method, seed, alloc, out, err);
}

int gp_gm_prepare_counted(const gp_kernel *k, const gp_machine *m, const gp_gm_inputs *in,
                          gp_mw_equations eq, gp_gm_select_method method, uint64_t seed,
                          uint32_t blocks_per_sm, const gp_memsim_result *mem,
                          const gp_alloc *alloc, gp_gm_prepared *out, gp_bounds_counts *counts,
                          gp_error *err) {
  size_t n = 0, fbytes = ((size_t)k->warps + 1) * sizeof(gp_gm_feature);
  gp_gm_feature *f;
  gp_bounds_pass q;
  memset(out, 0, sizeof *out);
  out->alloc = *alloc;
  out->equations = eq;
  if (!gp_gm_walks_together(&in->pcs)) { /* the two passes apart */
    if (gp_bounds_count(k, m, blocks_per_sm, mem, alloc, counts, err) != GP_OK)
      return GP_ERR;
    return gp_gm_prepare(k, m, in, eq, method, seed, alloc, out, err);
  }
  if (gp_bounds_pass_begin(&q, k, m, blocks_per_sm, mem, alloc, counts, err) != GP_OK)
    return GP_ERR;
  f = gp_malloc(alloc, fbytes);
  if (f == NULL) {
    gp_bounds_pass_free(&q);
    return gp_error_set(err, "gpumech: out of memory");
  }
  if (gp_gm_features_paths(k, &in->pcs, gp_gm_issue_cycles(m, eq), &q, alloc, f, &n, err) != GP_OK) {
    gp_bounds_pass_free(&q);
    gp_free(alloc, f, fbytes);
    return GP_ERR;
  }
  gp_bounds_pass_finish(&q);
  return select_prepared(k, f, n, fbytes, eq, method, seed, alloc, out, err);
}

/* ---------------------------------------------------------------------------
 * Waves
 * ------------------------------------------------------------------------- */

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

/* The wave shapes: full waves and the last partial one, each with the warps
 * resident on its busiest SM and the SMs holding blocks; gpush's also split
 * off the last wave (full or partial: every sub-wave launch) as a shape of
 * its own, modelled with the critical warp of its longest block (the wave
 * ends when that block does), the others with the representative. */
static void wave_shapes(const gp_kernel *k, const gp_machine *m, uint32_t blocks_per_sm,
                        const gp_gm_prepared *prep, int gpush, gp_gm_prediction *out) {
  uint32_t sms = m->sm.count, per_wave = sms * blocks_per_sm;
  uint32_t full = k->blocks / per_wave, rest = k->blocks - full * per_wave, first_block;
  const gp_gm_critical *tail = NULL;
  size_t i;
  out->shape_count = 0;
  if (full > 0) {
    gp_gm_shape *s = &out->shape[out->shape_count++];
    s->count = full, s->blocks = per_wave;
  }
  if (rest > 0) {
    gp_gm_shape *s = &out->shape[out->shape_count++];
    s->count = 1, s->blocks = rest;
  }
  out->waves = full + (rest > 0);
  if (gpush && out->shape[out->shape_count - 1].count > 1) {
    out->shape[out->shape_count - 1].count -= 1;
    out->shape[out->shape_count] = out->shape[out->shape_count - 1];
    out->shape[out->shape_count].count = 1;
    out->shape_count++;
  }
  for (i = 0; i < out->shape_count; i++) {
    gp_gm_shape *s = &out->shape[i];
    s->blocks_on_sm = ceil_div(s->blocks, sms);
    s->warps_on_sm = s->blocks_on_sm * k->warps_per_block;
    s->cores = s->blocks < sms ? s->blocks : sms;
    s->warp = prep->warp;
  }
  if (!gpush)
    return;
  first_block = k->blocks - out->shape[out->shape_count - 1].blocks;
  for (i = 0; i < prep->critical_count; i++) {
    const gp_gm_critical *c = &prep->critical[i];
    if (c->block >= first_block && (tail == NULL || c->cycles > tail->cycles))
      tail = c;
  }
  if (tail)
    out->shape[out->shape_count - 1].warp = tail->warp;
}

/* The multi-warp model's parameters for one wave shape: the model per warp
 * scheduler, #warps the warps it owns. */
static void wave_params(const gp_kernel *k, const gp_machine *m, const gp_gm_inputs *in,
                        const gp_gm_options *opt, const gp_gm_shape *s,
                        const gp_iv_profile *prof, gp_mw_params *par) {
  int gpush = opt->equations == GP_MW_EQ_GPUSH;
  double schedulers = m->sm.schedulers;
  memset(par, 0, sizeof *par);
  par->model = opt->model, par->policy = opt->policy, par->equations = opt->equations;
  par->warps = ceil(s->warps_on_sm / schedulers);
  par->issue_rate = m->sm.issue_width;
  par->warps_per_sm = s->warps_on_sm;
  par->mshrs = m->l1.mshrs;
  /* an MSHR's service time: Eq. 19's per-instruction latency (the paper's);
   * under gpush's equations each request's own round trip */
  par->avg_miss_latency_cycles = gpush ? in->mshr_hold_latency : in->avg_miss_latency;
  par->sms_with_blocks = s->cores;
  /* Eq. 22: s = L / B, B the achievable bandwidth in bytes per core cycle */
  par->dram_service_cycles =
      m->clock.core_mhz * 1e6 * m->dram.access_bytes / (m->dram.achievable_gbs * 1e9);
  /* every warp's DRAM accesses on average, for the DRAM floor */
  par->kernel_dram_reqs_per_warp = k->warps > 0 ? in->dram_reqs_per_warp : 0;
  par->cause_mix = in->pcs.n >= prof->ncause ? in->pcs.mix : NULL;
  if (!gpush)
    return;
  par->kernel_insts_per_warp = in->insts_per_warp;
  par->kernel_l1_miss_reqs_per_warp = in->l1_miss_reqs_per_warp;
  par->kernel_l2_reqs_per_warp = in->l2_reqs_per_warp;
  memcpy(par->kernel_unit_busy_per_warp, in->unit_busy_per_warp,
         sizeof par->kernel_unit_busy_per_warp);
  par->kernel_bank_busy_per_warp = in->bank_busy_per_warp;
  par->dram_channels = m->dram.channels;
  par->l2_slices = m->l2.slices;
  par->l2_service_cycles = m->l2.interval;
  par->miss_dram_fraction = in->miss_dram_fraction;
}

/* ---------------------------------------------------------------------------
 * gpush's launch totals
 * ------------------------------------------------------------------------- */

/* Resource names of gpush's equations (GP_MW_RES_*). */
static const char *const resource_names[GP_MW_RES_N] = {
    "latency", "issue", "mshr", "dram", "l2", "int", "fma", "fp64", "sfu", "tensor",
    "uniform", "other", "lsu"};

const char *gp_gm_resource_name(int res) {
  return res >= 0 && res < GP_MW_RES_N ? resource_names[res] : "invalid";
}

/* The CPI and stack over every wave, each wave's cycles and stack weighted
 * by its instructions (per scheduler: its warps x the mean warp's); the
 * MSHRs' whole rounds (MT_MSHR and up): the busiest SM's N L1-missing
 * requests over the launch hold its m MSHRs for at least ceil(N / m) round
 * trips of the mean request, all warps starting together (a one-off burst,
 * as Fig. 9, needs whole rounds where the waves' steady state counts N /
 * m); the binding resource (of the wave that takes most cycles, or the
 * MSHRs when their rounds raise the launch).  Returns the body cycles. */
static double launch_totals(const gp_kernel *k, const gp_machine *m, const gp_gm_inputs *in,
                            const gp_gm_options *opt, gp_gm_prediction *out) {
  double body = 0, insts = 0;
  size_t i, j, longest = 0;
  memset(out->stack, 0, sizeof out->stack);
  for (i = 0; i < out->shape_count; i++) {
    const gp_gm_shape *s = &out->shape[i];
    double n = s->count * s->r.cycles / s->r.cpi;
    body += s->count * s->r.cycles, insts += n;
    for (j = 0; j < GP_MW_STACK_N; j++)
      out->stack[j] += s->r.stack[j] * n;
    if (s->count * s->r.cycles > out->shape[longest].count * out->shape[longest].r.cycles)
      longest = i;
  }
  out->longest = longest;
  out->bound = gp_gm_resource_name(out->shape[longest].r.bound);
  if (opt->model == GP_MW_MT_MSHR || opt->model == GP_MW_MT_MSHR_BAND) {
    double busiest_warps = (double)ceil_div(k->blocks, m->sm.count) * k->warps_per_block;
    double requests = in->l1_miss_reqs_per_warp * busiest_warps;
    double whole = ceil(requests / m->l1.mshrs - 1e-9) + 0.0; /* + 0.0: no -0 rounds */
    double rounds = whole * in->mshr_hold_latency;
    out->mshr_rounds_cycles = rounds;
    if (rounds > body) {
      out->stack[GP_MW_MSHR] += rounds - body;
      body = rounds, out->bound = "mshr";
    }
  }
  for (j = 0; j < GP_MW_STACK_N; j++)
    out->stack[j] /= insts;
  out->cpi = body / insts;
  return body;
}

/* The stack category that takes the cycles a hard bound adds (bounds.h's
 * order). */
static int hard_bound_category(int bound) {
  switch (bound) {
  case GP_BOUND_ISSUE:
  case GP_BOUND_DISPATCH:
    return GP_MW_BASE;
  case GP_BOUND_FP64:
    return GP_MW_FP64;
  case GP_BOUND_SFU:
    return GP_MW_SFU;
  case GP_BOUND_SHARED:
    return GP_MW_BANK;
  case GP_BOUND_LSU:
    return GP_MW_LSU;
  case GP_BOUND_L2:
    return GP_MW_L2BW;
  case GP_BOUND_DRAM:
    return GP_MW_QUEUE;
  case GP_BOUND_MSHR:
    return GP_MW_MSHR;
  case GP_BOUND_LATENCY:
  case GP_BOUND_BLOCKS:
    return GP_MW_DEP;
  default:
    return GP_MW_PIPE; /* int, fma, tensor, uniform, control */
  }
}

/* Raises the body cycles (dispatch included, the kernel launch apart) to
 * the largest hard bound when it is higher, the excess in that bound's
 * stack category: every bound of bounds.h, all hard (the l2 and mshr ones
 * count each distinct loaded line once, merges aside, not the functional
 * replay's estimates, which the timed mode beats by merging requests).
 * A prediction on the largest bound (within 1e-12) names it as the binding
 * resource too.  Returns the body cycles. */
static double floor_at_bounds(const gp_machine *m, uint32_t blocks_per_sm,
                              const gp_bounds_counts *counts, double body,
                              gp_gm_prediction *out) {
  gp_bounds b;
  gp_bounds_compute(counts, m, blocks_per_sm, &b);
  out->hard_bound = gp_bound_name(b.binds);
  out->hard_bound_cycles = b.bound + m->launch.kernel_cycles;
  if (b.bound >= body * (1 - 1e-12)) /* on the bound (the front end's may equal it) */
    out->bound = gp_bound_name(b.binds);
  if (b.bound > body) {
    double added = (b.bound - body) * out->cpi / fmax(body - out->dispatch_cycles, 1e-300);
    out->stack[hard_bound_category(b.binds)] += added;
    out->cpi += added;
    return b.bound;
  }
  return body;
}

/* ---------------------------------------------------------------------------
 * The front end (docs/frontend.md)
 * ------------------------------------------------------------------------- */

/* The launch's body cycles with the GPU front end, from each wave shape's
 * cycles: the simulator's dispatcher, launchers, warm-up and drain (sim.c,
 * place()) for blocks whose bodies the multi-warp model gives.  With
 * L = launch.block_cycles + a block's warps x launch.warp_cycles (an SM's
 * launcher, one block at a time), D = launch.drain_cycles, g =
 * launch.dispatch_cycles, W = launch.warmup_cycles, B blocks and, per shape,
 * n blocks on the busiest SM, its wave's cycles C (all n together) and c1
 * (one of its blocks alone: s->single_cycles), the latest of
 *   slots       an SM turns a wave over every P = max(L + c1 + D, C, n L):
 *               each slot's block is launched, runs at least alone and
 *               drains; the n blocks' work; the launcher.  While one slot
 *               launches or drains the others run, so a wave whose blocks
 *               keep the SM busy costs C, not C + L + D.  The slot that
 *               takes the last block turns every wave before it over, then
 *               the last block starts staggered by max((bl - 1) g,
 *               (nl - 1) L, W) (its place in the last wave's dispatch and
 *               its SM's launches; the warm-up) and ends with its launch,
 *               body and drain: L + C + D in place of the last P
 *               (blocks take the slots in the order they free, so with
 *               uniform blocks block j starts at max(j g, the start of
 *               block j - S + P), S the slots: the later of the two ends)
 *   dispatcher  the last block leaves the GPU-wide dispatcher at (B - 1) g
 *               at the earliest, then is launched, runs alone and drains:
 *               max((B - 1) g, W) + L + c1 + D
 *   launcher    the busiest SM launches its ceil(B / SMs) blocks one every L:
 *               max((ceil(B / SMs) - 1) L, W) + L + c1 + D
 * (c1 of the last shape in the last two).  *paced: whether the dispatcher
 * or the launcher, not the slots, set the cycles. */
static double front_end_cycles(const gp_kernel *k, const gp_machine *m,
                               const gp_gm_prediction *out, int *paced) {
  double g = m->launch.dispatch_cycles, W = m->launch.warmup_cycles;
  double L = gp_machine_block_launch_cycles(m, k->warps_per_block), D = m->launch.drain_cycles;
  const gp_gm_shape *last = &out->shape[out->shape_count - 1];
  double busiest = ceil_div(k->blocks, m->sm.count), slots, dispatcher, launcher, period = 0;
  double tail = L + last->single_cycles + D;
  size_t i;
  slots = fmax(fmax((last->blocks - 1.0) * g, (last->blocks_on_sm - 1.0) * L), W);
  for (i = 0; i < out->shape_count; i++) {
    const gp_gm_shape *s = &out->shape[i];
    period = fmax(fmax(L + s->single_cycles + D, s->r.cycles), s->blocks_on_sm * L);
    slots += s->count * period;
  }
  slots += L + last->r.cycles + D - period; /* the last wave: launch, body, drain */
  dispatcher = fmax((k->blocks - 1.0) * g, W) + tail;
  launcher = fmax((busiest - 1) * L, W) + tail;
  *paced = fmax(dispatcher, launcher) > slots;
  return fmax(slots, fmax(dispatcher, launcher));
}

/* ---------------------------------------------------------------------------
 * The launch
 * ------------------------------------------------------------------------- */

/* The Table II models gpush's launch totals apply to (NAIVE and MARKOV
 * keep one wave shape's CPI, as under the paper's equations). */
static int models_launch(gp_mw_model model) {
  return model == GP_MW_MT || model == GP_MW_MT_MSHR || model == GP_MW_MT_MSHR_BAND;
}

int gp_gm_predict(const gp_kernel *k, const gp_machine *m, const gp_gm_inputs *in,
                  const gp_gm_prepared *prep, const gp_bounds_counts *counts,
                  const gp_gm_options *opt, gp_iv_profile *profile, gp_gm_prediction *out,
                  gp_error *err) {
  int gpush = opt->equations == GP_MW_EQ_GPUSH;
  double issue_cycles = gp_gm_issue_cycles(m, opt->equations), cycles;
  gp_iv_profile shape_prof;
  const gp_iv_profile *kept = NULL;
  double bodies = 0;
  size_t i;
  int status, paced;
  memset(out, 0, sizeof *out);
  if (opt->blocks_per_sm == 0 || m->sm.count == 0 || k->blocks == 0)
    return gp_error_set(err, "gpumech: a launch needs blocks, SMs and at least one block per SM");
  out->representative_warp = prep->warp;
  wave_shapes(k, m, opt->blocks_per_sm, prep, gpush, out);
  /* the representative's profile is the one reported; a launch whose only
   * shape is its last wave reports that wave's warp */
  out->profile_warp = out->shape[0].warp;
  for (i = 0; i < out->shape_count; i++)
    if (out->shape[i].warp == prep->warp)
      out->profile_warp = prep->warp;
  if (opt->kept) { /* the reported profile is the caller's own copy */
    status = gp_gm_profile_kept(opt->kept, &profile->alloc, &kept, k, out->profile_warp, &in->pcs,
                                issue_cycles, err);
    if (status == GP_OK)
      status = gp_iv_profile_copy(profile, kept, err);
  } else {
    status = gp_gm_profile(profile, k, out->profile_warp, &in->pcs, issue_cycles, err);
  }
  gp_iv_profile_init(&shape_prof, &profile->alloc);
  for (i = 0; i < out->shape_count && status == GP_OK; i++) {
    gp_gm_shape *s = &out->shape[i];
    const gp_iv_profile *p = profile;
    gp_mw_params par;
    if (s->warp != out->profile_warp) {
      if (opt->kept)
        status = gp_gm_profile_kept(opt->kept, &profile->alloc, &p, k, s->warp, &in->pcs,
                                    issue_cycles, err);
      else {
        status = gp_gm_profile(&shape_prof, k, s->warp, &in->pcs, issue_cycles, err);
        p = &shape_prof;
      }
      if (status != GP_OK)
        break;
    }
    wave_params(k, m, in, opt, s, p, &par);
    status = gp_mw_predict(p, &par, &s->r, err);
    bodies += s->count * s->r.cycles;
    s->single_cycles = s->r.cycles;
    if (status == GP_OK && s->blocks_on_sm > 1) { /* one block of the wave alone */
      gp_gm_shape one = *s;
      gp_mw_result alone;
      one.blocks_on_sm = 1, one.warps_on_sm = k->warps_per_block;
      wave_params(k, m, in, opt, &one, p, &par);
      status = gp_mw_predict(p, &par, &alone, err);
      s->single_cycles = alone.cycles;
    }
    out->dram_capped = out->dram_capped || s->r.dram_rho_capped + s->r.dram_delay_capped > 0;
    out->bandwidth_bound = out->bandwidth_bound || s->r.bandwidth_bound;
  }
  gp_iv_profile_free(&shape_prof);
  if (status != GP_OK)
    return GP_ERR;
  /* the front end's cycles beyond the waves' bodies */
  out->dispatch_cycles = front_end_cycles(k, m, out, &paced) - bodies;
  cycles = bodies;
  out->cpi = out->shape[0].r.cpi;
  memcpy(out->stack, out->shape[0].r.stack, sizeof out->stack);
  if (gpush && models_launch(opt->model)) {
    out->launch_totals = 1;
    cycles = launch_totals(k, m, in, opt, out) + out->dispatch_cycles;
    if (paced) /* the front end hands out the blocks slower than they run */
      out->bound = gp_bound_name(GP_BOUND_DISPATCH);
    if (counts)
      cycles = floor_at_bounds(m, opt->blocks_per_sm, counts, cycles, out);
  } else {
    cycles += out->dispatch_cycles;
  }
  out->cycles = cycles + m->launch.kernel_cycles;
  return GP_OK;
}
