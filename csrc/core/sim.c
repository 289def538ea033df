/*
 * sim.c -- the abstract timing simulator.
 *
 * GATSim (Punniyamurthy et al.) schedules warps over occupancy vectors SM
 * after SM (Algorithm 1); gpush runs one time-ordered loop over all SMs so
 * they contend for L2 and DRAM together, and replaces GATSim's one-thread
 * pre-characterisation with per-instruction timing from the configuration:
 *  - an instruction issues when its producers' results are ready (the
 *    trace's nearest-producer and nearest-load-producer distances: a
 *    dependent instruction issues L cycles after its producer), its unit is
 *    free (initiation interval per unit, per scheduler: FUFree in
 *    Algorithm 1), and its warp is not waiting at a barrier;
 *  - each scheduler issues from up to sm.issue_width different warps per
 *    cycle (one instruction per warp per cycle), choosing by loose
 *    round-robin (LRR) or greedy-then-oldest (GTO);
 *  - global, local and texture accesses go through memsim's timed mode: the
 *    LSU is busy one cycle per line request, the instruction completes when
 *    its last request returns; shared-memory accesses take the shared latency
 *    plus one cycle per extra bank pass; constant loads the constant latency;
 *  - BAR.SYNC holds a warp until every live warp of its block arrives;
 *    DEPBAR waits for the warp's outstanding LDGSTS copies;
 *  - thread blocks go to SMs round-robin up to occupancy, then each freed
 *    slot takes the next block after block_launch_cycles;
 *  - when no scheduler can issue, time jumps to the next cycle one can, so
 *    idle cycles cost nothing.
 * A warp is done when its last result is ready; an SM's cycles are those of
 * its last warp; the kernel's are the slowest SM's plus the launch cost.
 */
#include "sim.h"

#include <math.h>
#include <string.h>

enum { UNIT_INT, UNIT_FMA, UNIT_FP64, UNIT_SFU, UNIT_TENSOR, UNIT_UNIFORM, UNIT_OTHER, UNIT_LSU,
       UNIT_COUNT };

static const char *const stall_names[GP_STALL_COUNT] = {
    "issued", "dependence", "memory", "lsu_busy", "sfu_busy", "unit_busy", "barrier",
    "no_eligible_warp", "idle"};

const char *gp_stall_name(int s) {
  return s >= 0 && s < GP_STALL_COUNT ? stall_names[s] : "invalid";
}

static int unit_of(int c) {
  switch (c) {
  case GP_OP_INT:
    return UNIT_INT;
  case GP_OP_FP32:
  case GP_OP_IMAD:
    return UNIT_FMA;
  case GP_OP_FP64:
    return UNIT_FP64;
  case GP_OP_SFU:
    return UNIT_SFU;
  case GP_OP_TENSOR:
    return UNIT_TENSOR;
  case GP_OP_UNIFORM:
    return UNIT_UNIFORM;
  default:
    return gp_op_is_memory(c) || c == GP_OP_LD_CONST ? UNIT_LSU : UNIT_OTHER;
  }
}

typedef struct warp_state {
  uint64_t g, start, next, end;
  uint64_t age;            /* dispatch order, for GTO */
  double *done;            /* completion ring, indexed by position & mask */
  uint64_t mask;
  double not_before;       /* block launch */
  double last_done, ldgsts_done;
  double issued_at;        /* the cycle of its latest issue: one per cycle */
  int live, at_barrier;
} warp_state;

typedef struct block_slot {
  int64_t block;           /* -1: free */
  uint32_t live, arrived;
  double finish;
} block_slot;

typedef struct sm_state {
  warp_state *warps;       /* blocks_per_sm x warps_per_block */
  block_slot *slots;
  double *unit_free;       /* schedulers x UNIT_COUNT */
  int64_t *rr;             /* per scheduler: position of the last issued warp */
  int64_t *greedy;         /* per scheduler: last issued warp slot, -1 */
  double *wake;            /* per scheduler: no warp can issue before this */
  int *wake_why;           /* ... and why, while it waits */
  double finish;
} sm_state;

typedef struct sim {
  const gp_kernel *k;
  const gp_sim_config *cfg;
  gp_alloc alloc;
  sm_state *sms;
  gp_timed *mem;
  uint64_t next_block, blocks_done, age;
  uint32_t wpb, slots_per_sm;
  gp_sim_result *out;
  gp_error *err;
} sim;

/* When instruction `next` of warp w may issue as far as its producers go. */
static double deps_ready(const sim *s, const warp_state *w, int *on_load) {
  const gp_kernel *k = s->k;
  uint64_t i = w->next, j = i - w->start;
  double ready = w->not_before, r;
  *on_load = 0;
  if (k->dep[i] && k->dep[i] <= j) {
    r = w->done[(j - k->dep[i]) & w->mask];
    if (r > ready) {
      ready = r;
      *on_load = (k->flags[i] & GP_INST_DEP_ON_LOAD) != 0;
    }
  }
  if (k->dep_load[i] && k->dep_load[i] <= j) {
    r = w->done[(j - k->dep_load[i]) & w->mask];
    if (r > ready) {
      ready = r;
      *on_load = 1;
    }
  }
  if (k->op_class[i] == GP_OP_DEPBAR && w->ldgsts_done > ready) {
    ready = w->ldgsts_done;
    *on_load = 1;
  }
  return ready;
}

/* Puts block b on SM sm in slot `slot`, its warps ready from `when`. */
static int dispatch(sim *s, uint32_t smi, uint32_t slot, uint64_t b, double when) {
  const gp_kernel *k = s->k;
  sm_state *sm = &s->sms[smi];
  uint32_t w;
  for (w = 0; w < s->cfg->schedulers; w++)
    sm->wake[w] = 0; /* new warps: every scheduler looks again */
  sm->slots[slot].block = (int64_t)b;
  sm->slots[slot].live = 0;
  sm->slots[slot].arrived = 0;
  sm->slots[slot].finish = when;
  for (w = 0; w < s->wpb; w++) {
    warp_state *ws = &sm->warps[slot * s->wpb + w];
    uint64_t g = b * s->wpb + w, ring = 1;
    memset(ws, 0, sizeof *ws);
    ws->g = g;
    ws->start = ws->next = k->warp_start[g];
    ws->end = k->warp_start[g] + k->warp_len[g];
    ws->age = s->age++;
    ws->not_before = when;
    ws->last_done = when;
    ws->issued_at = -1;
    if (ws->end == ws->start)
      continue; /* a warp the trace does not list never runs */
    while (ring < k->warp_len[g] && ring < 65536)
      ring *= 2;
    ws->done = gp_malloc(&s->alloc, ring * sizeof *ws->done);
    if (ws->done == NULL)
      return gp_error_set(s->err, "sim: out of memory");
    ws->mask = ring - 1;
    ws->live = 1;
    sm->slots[slot].live++;
  }
  return GP_OK;
}

/* The next block for a freed slot, if any; otherwise the slot stays free. */
static int refill(sim *s, uint32_t smi, uint32_t slot, double when) {
  if (s->next_block >= s->k->blocks) {
    s->sms[smi].slots[slot].block = -1;
    return GP_OK;
  }
  return dispatch(s, smi, slot, s->next_block++, when + s->cfg->block_launch_cycles);
}

/* Every warp of a block's slot passes its barrier; schedulers look again. */
static void release_barrier(sim *s, sm_state *sm, uint32_t slot) {
  uint32_t x;
  for (x = 0; x < s->wpb; x++)
    sm->warps[slot * s->wpb + x].at_barrier = 0;
  sm->slots[slot].arrived = 0;
  for (x = 0; x < s->cfg->schedulers; x++)
    sm->wake[x] = 0;
}

/* A warp issued its last instruction. */
static int retire_warp(sim *s, uint32_t smi, uint32_t idx) {
  sm_state *sm = &s->sms[smi];
  warp_state *w = &sm->warps[idx];
  uint32_t slot = idx / s->wpb;
  block_slot *b = &sm->slots[slot];
  w->live = 0;
  s->out->warp_done[w->g] = w->last_done;
  if (w->last_done > b->finish)
    b->finish = w->last_done;
  if (w->last_done > sm->finish)
    sm->finish = w->last_done;
  gp_free(&s->alloc, w->done, (w->mask + 1) * sizeof *w->done);
  w->done = NULL;
  b->live--;
  if (b->live > 0 && b->arrived >= b->live) /* the barrier no longer waits for it */
    release_barrier(s, sm, slot);
  if (b->live == 0) {
    s->blocks_done++;
    return refill(s, smi, slot, b->finish);
  }
  return GP_OK;
}

/* Issues instruction `next` of warp `idx` on SM smi, scheduler sc, at t. */
static int issue(sim *s, uint32_t smi, uint32_t sc, uint32_t idx, double t) {
  const gp_kernel *k = s->k;
  const gp_sim_config *cfg = s->cfg;
  sm_state *sm = &s->sms[smi];
  warp_state *w = &sm->warps[idx];
  uint64_t i = w->next, j = i - w->start;
  int c = k->op_class[i], unit = unit_of(c);
  double busy = cfg->interval[c] > 0 ? cfg->interval[c] : 1, complete = t + cfg->latency[c];
  if (k->mem[i] != UINT32_MAX && gp_op_uses_cache(c)) {
    const gp_mem_record *m = &k->mem_records[k->mem[i]];
    double done_each[64];
    if (m->line_count > 0) {
      if (gp_timed_submit(s->mem, smi, t, c, k->lines + m->line_start,
                          k->sector_masks + m->line_start, m->line_count, done_each, &complete,
                          s->err) != GP_OK)
        return GP_ERR;
      busy = m->line_count;
    } else {
      complete = t + 1;
    }
    if (c == GP_OP_LDGSTS && complete > w->ldgsts_done)
      w->ldgsts_done = complete;
  } else if (c == GP_OP_LD_SHARED || c == GP_OP_ST_SHARED || c == GP_OP_ATOM_SHARED) {
    uint32_t passes = 1;
    if (k->mem[i] != UINT32_MAX) {
      const gp_mem_record *m = &k->mem_records[k->mem[i]];
      passes = gp_shared_passes(k->addresses + m->addr_start, m->addr_count, k->width[i],
                                cfg->shared_banks, cfg->shared_bank_bytes);
    }
    busy = passes > 0 ? passes : 1;
    complete = t + cfg->shared_latency + (passes > 1 ? passes - 1 : 0);
  } else if (c == GP_OP_LD_CONST) {
    complete = t + cfg->const_latency;
  } else if (gp_op_is_memory(c)) {
    complete = t + 1; /* a memory instruction with an empty mask */
  }
  sm->unit_free[sc * UNIT_COUNT + unit] = t + busy;
  w->done[j & w->mask] = complete;
  if (complete > w->last_done)
    w->last_done = complete;
  w->next++;
  w->issued_at = t;
  s->out->issued++;
  if (c == GP_OP_BARRIER) {
    uint32_t slot = idx / s->wpb;
    block_slot *b = &sm->slots[slot];
    if (++b->arrived >= b->live)
      release_barrier(s, sm, slot);
    else
      w->at_barrier = 1;
  }
  if (w->next == w->end)
    return retire_warp(s, smi, idx);
  return GP_OK;
}

/* Whether warp idx can issue at t; else the earliest time it might, and why
 * not (a gp_stall). */
static int eligible(const sim *s, const sm_state *sm, uint32_t sc, uint32_t idx, double t,
                    double *when, int *why) {
  const warp_state *w = &sm->warps[idx];
  int on_load, c, unit;
  double ready, free_at;
  if (!w->live) {
    *why = GP_STALL_NO_WARP;
    *when = INFINITY;
    return 0;
  }
  if (w->at_barrier) {
    *why = GP_STALL_BARRIER;
    *when = INFINITY; /* released by another warp's issue */
    return 0;
  }
  if (w->issued_at == t) { /* one instruction per warp per cycle */
    *why = GP_STALL_DEPENDENCE;
    *when = t + 1;
    return 0;
  }
  ready = deps_ready(s, w, &on_load);
  c = s->k->op_class[w->next];
  unit = unit_of(c);
  free_at = sm->unit_free[sc * UNIT_COUNT + unit];
  if (ready > t) {
    *why = on_load ? GP_STALL_MEMORY : GP_STALL_DEPENDENCE;
    *when = ready > free_at ? ready : free_at;
    return 0;
  }
  if (free_at > t) {
    *why = unit == UNIT_LSU ? GP_STALL_LSU : unit == UNIT_SFU ? GP_STALL_SFU : GP_STALL_UNIT;
    *when = free_at;
    return 0;
  }
  *when = t;
  return 1;
}

/* One scheduler at cycle t: issues up to issue_width warps; returns the
 * number issued, the reason it did not issue (when it issued nothing) and
 * the earliest cycle it could issue next. */
static int schedule(sim *s, uint32_t smi, uint32_t sc, double t, int *why, double *next_t) {
  sm_state *sm = &s->sms[smi];
  const gp_sim_config *cfg = s->cfg;
  uint32_t n = s->slots_per_sm * s->wpb, S = cfg->schedulers, count = (n + S - 1 - sc) / S;
  uint32_t issued = 0, step;
  int best_why = GP_STALL_IDLE, any_resident = 0;
  /* reasons by priority: a busy unit, then memory, dependence, barrier */
  static const int rank[GP_STALL_COUNT] = {0, 4, 5, 6, 7, 6, 3, 1, 0};
  *next_t = INFINITY;
  while (issued < cfg->issue_width) {
    int64_t pick = -1;
    uint64_t best_age = UINT64_MAX;
    for (step = 0; step < count; step++) {
      uint32_t pos, idx;
      double when;
      int reason;
      if (cfg->policy == GP_SIM_LRR)
        pos = (uint32_t)((sm->rr[sc] + 1 + step) % count);
      else
        pos = step;
      idx = sc + pos * S;
      if (idx >= n)
        continue;
      if (sm->slots[idx / s->wpb].block >= 0)
        any_resident = 1;
      if (!eligible(s, sm, sc, idx, t, &when, &reason)) {
        if (when < *next_t)
          *next_t = when;
        if (rank[reason] > rank[best_why])
          best_why = reason;
        continue;
      }
      if (cfg->policy == GP_SIM_LRR) {
        pick = idx;
        break;
      }
      /* GTO: the greedy warp if it can go, else the oldest */
      if ((int64_t)idx == sm->greedy[sc]) {
        pick = idx;
        break;
      }
      if (sm->warps[idx].age < best_age) {
        best_age = sm->warps[idx].age;
        pick = idx;
      }
    }
    if (pick < 0)
      break;
    if (issue(s, smi, sc, (uint32_t)pick, t) != GP_OK)
      return -1;
    sm->rr[sc] = (pick - sc) / S;
    sm->greedy[sc] = pick;
    issued++;
  }
  if (issued > 0) {
    *why = GP_STALL_ISSUED;
    *next_t = t + 1;
  } else {
    *why = any_resident ? best_why : GP_STALL_IDLE;
    if (*why == GP_STALL_IDLE && !any_resident)
      *next_t = INFINITY;
  }
  return (int)issued;
}

static void free_sim(sim *s) {
  uint32_t i, x;
  const gp_sim_config *cfg = s->cfg;
  if (s->sms) {
    for (i = 0; i < cfg->sms; i++) {
      sm_state *sm = &s->sms[i];
      if (sm->warps)
        for (x = 0; x < s->slots_per_sm * s->wpb; x++)
          if (sm->warps[x].done)
            gp_free(&s->alloc, sm->warps[x].done, (sm->warps[x].mask + 1) * sizeof(double));
      gp_free(&s->alloc, sm->warps, s->slots_per_sm * s->wpb * sizeof *sm->warps);
      gp_free(&s->alloc, sm->slots, s->slots_per_sm * sizeof *sm->slots);
      gp_free(&s->alloc, sm->unit_free, cfg->schedulers * UNIT_COUNT * sizeof *sm->unit_free);
      gp_free(&s->alloc, sm->rr, cfg->schedulers * sizeof *sm->rr);
      gp_free(&s->alloc, sm->greedy, cfg->schedulers * sizeof *sm->greedy);
      gp_free(&s->alloc, sm->wake, cfg->schedulers * sizeof *sm->wake);
      gp_free(&s->alloc, sm->wake_why, cfg->schedulers * sizeof *sm->wake_why);
    }
    gp_free(&s->alloc, s->sms, cfg->sms * sizeof *s->sms);
  }
  gp_timed_free(s->mem);
}

static int setup(sim *s) {
  const gp_sim_config *cfg = s->cfg;
  uint32_t i, x;
  s->sms = gp_malloc(&s->alloc, cfg->sms * sizeof *s->sms);
  if (s->sms == NULL)
    return gp_error_set(s->err, "sim: out of memory");
  memset(s->sms, 0, cfg->sms * sizeof *s->sms);
  for (i = 0; i < cfg->sms; i++) {
    sm_state *sm = &s->sms[i];
    sm->warps = gp_malloc(&s->alloc, s->slots_per_sm * s->wpb * sizeof *sm->warps);
    sm->slots = gp_malloc(&s->alloc, s->slots_per_sm * sizeof *sm->slots);
    sm->unit_free = gp_malloc(&s->alloc, cfg->schedulers * UNIT_COUNT * sizeof *sm->unit_free);
    sm->rr = gp_malloc(&s->alloc, cfg->schedulers * sizeof *sm->rr);
    sm->greedy = gp_malloc(&s->alloc, cfg->schedulers * sizeof *sm->greedy);
    sm->wake = gp_malloc(&s->alloc, cfg->schedulers * sizeof *sm->wake);
    sm->wake_why = gp_malloc(&s->alloc, cfg->schedulers * sizeof *sm->wake_why);
    if (!sm->warps || !sm->slots || !sm->unit_free || !sm->rr || !sm->greedy || !sm->wake ||
        !sm->wake_why)
      return gp_error_set(s->err, "sim: out of memory");
    memset(sm->warps, 0, s->slots_per_sm * s->wpb * sizeof *sm->warps);
    for (x = 0; x < s->slots_per_sm; x++)
      sm->slots[x].block = -1;
    for (x = 0; x < cfg->schedulers * UNIT_COUNT; x++)
      sm->unit_free[x] = 0;
    for (x = 0; x < cfg->schedulers; x++) {
      sm->rr[x] = -1; /* the first pick is the scheduler's first warp */
      sm->greedy[x] = -1;
      sm->wake[x] = 0;
      sm->wake_why[x] = GP_STALL_IDLE;
    }
  }
  /* the first round: blocks to SMs round-robin up to occupancy */
  for (x = 0; x < s->slots_per_sm; x++)
    for (i = 0; i < cfg->sms; i++)
      if (s->next_block < s->k->blocks &&
          dispatch(s, i, x, s->next_block++, cfg->block_launch_cycles) != GP_OK)
        return GP_ERR;
  return GP_OK;
}

int gp_sim_run(const gp_kernel *k, const gp_sim_config *cfg, const gp_alloc *alloc,
               gp_sim_result *out, gp_error *err) {
  sim s;
  double t = 0;
  uint32_t i, sc;
  int status = GP_OK, *whys;
  if (cfg->sms == 0 || cfg->schedulers == 0 || cfg->issue_width == 0 || cfg->blocks_per_sm == 0)
    return gp_error_set(err, "sim: SMs, schedulers, issue width and blocks per SM must be above 0");
  if (cfg->memory.sms != cfg->sms)
    return gp_error_set(err, "sim: the memory model has %u SMs, the simulator %u", cfg->memory.sms,
                        cfg->sms);
  memset(&s, 0, sizeof s);
  memset(out, 0, sizeof *out);
  s.k = k, s.cfg = cfg, s.alloc = *alloc, s.out = out, s.err = err;
  s.wpb = k->warps_per_block;
  s.slots_per_sm = cfg->blocks_per_sm;
  out->sm_cycles = gp_malloc(alloc, cfg->sms * sizeof *out->sm_cycles);
  out->warp_done = gp_malloc(alloc, (k->warps + 1) * sizeof *out->warp_done);
  if (!out->sm_cycles || !out->warp_done) {
    gp_sim_result_free(out, alloc, k, cfg->sms);
    return gp_error_set(err, "sim: out of memory");
  }
  memset(out->warp_done, 0, (k->warps + 1) * sizeof *out->warp_done);
  whys = gp_malloc(alloc, (size_t)cfg->sms * cfg->schedulers * sizeof *whys);
  if (whys == NULL) {
    gp_sim_result_free(out, alloc, k, cfg->sms);
    return gp_error_set(err, "sim: out of memory");
  }
  status = gp_timed_new(&s.mem, alloc, &cfg->memory, err);
  if (status == GP_OK)
    status = setup(&s);
  while (status == GP_OK && s.blocks_done < k->blocks) {
    double next = INFINITY;
    int any = 0;
    uint32_t counted = 0;
    for (i = 0; i < cfg->sms && status == GP_OK; i++) {
      for (sc = 0; sc < cfg->schedulers; sc++) {
        sm_state *sm = &s.sms[i];
        int why, n = 0;
        double when;
        if (t < sm->wake[sc]) {
          /* nothing changed since its last look: it still cannot issue */
          why = sm->wake_why[sc];
          when = sm->wake[sc];
        } else {
          n = schedule(&s, i, sc, t, &why, &when);
          if (n < 0) {
            status = GP_ERR;
            break;
          }
          sm->wake[sc] = n > 0 ? 0 : when;
          sm->wake_why[sc] = why;
        }
        any |= n > 0;
        if (when < next)
          next = when;
        whys[counted++] = why;
      }
    }
    if (status != GP_OK)
      break;
    if (!any && !(next < INFINITY)) {
      /* nothing can ever issue again: every live warp waits at a barrier */
      status = gp_error_set(err, "sim: deadlock at cycle %.0f: warps wait at a barrier no warp can reach",
                            t);
      break;
    }
    {
      /* charge this step's cycles to each scheduler's reason */
      double step = any || next <= t ? 1 : next - t;
      uint32_t x;
      for (x = 0; x < counted; x++)
        out->stalls[whys[x]] += step;
      t += step;
    }
  }
  if (status == GP_OK) {
    out->cycles = 0;
    for (i = 0; i < cfg->sms; i++) {
      out->sm_cycles[i] = s.sms[i].finish;
      if (s.sms[i].finish > out->cycles)
        out->cycles = s.sms[i].finish;
    }
    out->cycles += cfg->kernel_launch_cycles;
    out->memory = *gp_timed_stats_of(s.mem);
  }
  free_sim(&s);
  gp_free(alloc, whys, (size_t)cfg->sms * cfg->schedulers * sizeof *whys);
  if (status != GP_OK)
    gp_sim_result_free(out, alloc, k, cfg->sms);
  return status;
}

void gp_sim_result_free(gp_sim_result *r, const gp_alloc *alloc, const gp_kernel *k, uint32_t sms) {
  gp_free(alloc, r->sm_cycles, sms * sizeof *r->sm_cycles);
  gp_free(alloc, r->warp_done, (k->warps + 1) * sizeof *r->warp_done);
  r->sm_cycles = NULL;
  r->warp_done = NULL;
}
