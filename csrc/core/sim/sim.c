/*
 * sim.c -- the abstract timing simulator: the event loop, thread blocks,
 * warps and instruction issue.
 *
 * GATSim (Punniyamurthy et al.) schedules warps over occupancy vectors SM
 * after SM (Algorithm 1); gpush runs one time-ordered loop over all SMs so
 * they contend for L2 and DRAM together, and replaces GATSim's one-thread
 * pre-characterisation with per-instruction timing from the configuration:
 *  - an instruction issues when all its producers' results are ready (the
 *    trace's distances to every producer: a dependent instruction issues
 *    L cycles after its producer; Algorithm 1
 *    line 7's l_{s,p} = 0), its unit is free (initiation interval per unit,
 *    per scheduler: FUFree in line 7), and its warp is not waiting at a
 *    barrier;
 *  - each scheduler issues from up to sm.issue_width different warps per
 *    cycle (one instruction per warp per cycle) by its policy (ScheduleWarp,
 *    line 9; sched.c);
 *  - global, local and texture accesses go through memsim's timed mode: the
 *    LSU is busy one cycle per line request, the instruction completes when
 *    its last request returns; shared-memory accesses take the shared latency
 *    plus one cycle per extra bank pass; constant loads the constant latency
 *    (HandleSpecial, line 12);
 *  - BAR.SYNC holds a warp until every live warp of its block arrives;
 *    DEPBAR waits for the warp's outstanding LDGSTS copies;
 *  - the front end (place(); docs/frontend.md): thread blocks go to SMs
 *    round-robin up to occupancy, then each freed slot takes the next block;
 *    the GPU-wide dispatcher hands out one block every
 *    launch.dispatch_cycles, each SM's launcher launches one block at a
 *    time (launch.block_cycles + its warps x launch.warp_cycles), an SM's
 *    warps issue no earlier than launch.warmup_cycles after its first
 *    launch, and a block frees its slot launch.drain_cycles after its last
 *    warp is done; a scheduler whose warps only wait for their launch is
 *    idle (the front end's cycles, not a dependence of the first PC);
 *  - time advances one cycle after an issue (line 21) and otherwise jumps to
 *    the earliest cycle any scheduler can issue (line 23), so idle cycles
 *    cost nothing.
 * The loop is event-driven: a scheduler is looked at only at the cycles it
 * can act (asleep in a calendar by wake-up cycle until then: wake.h), in
 * SM-then-scheduler order within a cycle (run_due_schedulers: the look at a
 * scheduler, with sched.h's sets and policies), so memory requests reach
 * memsim in time order.
 * A warp is done when its last result is ready; an SM's cycles end when its
 * last block retires; the kernel's are the slowest SM's, or the end of its
 * last DRAM transfer when that is later (stores are posted: a warp does
 * not wait for them, but the kernel is not done before they have drained),
 * plus launch.kernel_cycles.
 */
#include "sched.h"

#include <math.h>
#include <string.h>


static const char *const stall_names[GP_STALL_COUNT] = {
    "issued", "dependence", "memory", "lsu_busy", "sfu_busy", "unit_busy", "barrier",
    "no_eligible_warp", "idle"};

const char *gp_stall_name(int s) {
  return s >= 0 && s < GP_STALL_COUNT ? stall_names[s] : "invalid";
}

/* Whether an occupancy of `busy` cycles is a whole number of them (below
 * 2^52, where every double is one). */
static inline int whole_cycles(double busy) {
  return busy < 4503599627370496.0 && busy == (double)(int64_t)busy;
}

/* Each class's unit, kind, latency and unit occupancy, looked up once per
 * run, the units some class occupies for a fractional interval, and which
 * classes take issue()'s rare path (every class when an on_issue observer
 * watches the run). */
static void classify(sim *s) {
  int c;
  memset(s->cls, 0, sizeof s->cls);
  for (c = 0; c < GP_OP_CLASS_COUNT; c++) {
    sim_class *x = &s->cls[c];
    int kind = 0;
    if (gp_op_uses_cache(c))
      kind |= KIND_CACHE;
    if (c == GP_OP_LD_SHARED || c == GP_OP_ST_SHARED || c == GP_OP_ATOM_SHARED)
      kind |= KIND_SHARED;
    if (c == GP_OP_LD_CONST)
      kind |= KIND_CONST;
    if (gp_op_is_memory(c))
      kind |= KIND_MEMORY;
    /* two-level's long-latency loads (which only its active set minds) */
    if (gp_op_is_load(c) && gp_op_uses_cache(c) && s->opt->policy == GP_SIM_TWO_LEVEL)
      kind |= KIND_LONG;
    x->kind = (uint8_t)kind;
    s->unit_of[c] = (uint8_t)gp_machine_op_unit(s->m, c);
    x->latency = gp_machine_class_latency(s->m, c);
    x->busy = gp_machine_class_interval(s->m, c) > 0 ? gp_machine_class_interval(s->m, c) : 1;
  }
  memset(s->unit_frac, 0, sizeof s->unit_frac);
  for (c = 0; c < GP_OP_CLASS_COUNT; c++)
    if (!whole_cycles(s->cls[c].busy))
      s->unit_frac[s->unit_of[c]] = 1;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++) {
    sim_class *x = &s->cls[c];
    x->rare = x->kind != 0 || s->unit_of[c] == UNIT_LSU || c == GP_OP_BARRIER ||
              s->unit_frac[s->unit_of[c]] || s->opt->on_issue != NULL;
  }
}

/* ---------------------------------------------------------------------------
 * Warps, blocks and issue
 * ------------------------------------------------------------------------- */

/* prepare_next reads an instruction's GP_DEPS distances as one word. */
_Static_assert(GP_DEPS * sizeof(uint16_t) == sizeof(uint64_t) &&
                   __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "an instruction's distances are one little-endian 64-bit word");

/* When instruction `next` of warp w may issue as far as its producers go,
 * and whether the producer it waits for last is a load.  Computed once, right after the
 * warp's previous issue: nothing else changes it.  Inline: once per issue. */
static inline __attribute__((always_inline)) void prepare_next(const sim *s, warp_state *w) {
  const gp_kernel *k = s->k;
  uint64_t i = w->next;
  double ready = w->not_before, r;
  int on_load = 0, op_class = k->op_class[i];
  uint64_t d;   /* the distances, producer j's in bits 16 j to 16 j + 15 */
  unsigned loads; /* bit j: producer j is a load (its flags' GP_INST_LOAD bits) */
  memcpy(&d, k->deps + i * GP_DEPS, sizeof d); /* first: no pointer kept across the prefetches */
  /* the warp's later lines, requested ahead (its next instructions are
   * issued a few hundred warp instructions apart, too far apart for the
   * hardware's stream prefetch): at each 64-byte line of deps (8
   * instructions) the next deps line, at every 16th instruction the
   * pc_index and mem lines 16 on, at every 64th op_class's and flags' 64
   * on (none in the trace's last 64 instructions, whose addresses would
   * point past the arrays) */
  if ((i & 7) == 0 && i + 64 < k->insts) {
    __builtin_prefetch(k->deps + (i + 8) * GP_DEPS);
    if ((i & 15) == 0) {
      __builtin_prefetch(k->pc_index + i + 16);
      __builtin_prefetch(k->mem + i + 16);
      if ((i & 63) == 0) {
        __builtin_prefetch(k->op_class + i + 64);
        __builtin_prefetch(k->flags + i + 64);
      }
    }
  }
  /* read in place (each warp walks the kernel's arrays forward): every
   * producer, nearest first, 0 after the last; one before the warp's first
   * instruction reads a ring entry not written yet (the ring is longer than
   * any distance, so the entries before i are distinct): 0, never later */
  /* the class's facts first (fewer values live across the loop) */
  w->op_class = (uint8_t)op_class;
  w->unit = s->unit_of[op_class];
  w->pc_index = k->pc_index[i];
  for (loads = (unsigned)k->flags[i] >> GP_INST_LOAD_SHIFT; d != 0; d >>= 16, loads >>= 1) {
    r = w->done[(i - (d & 0xffff)) & s->ring_mask];
    if (r > ready) {
      ready = r;
      on_load = (int)(loads & 1);
    }
  }
  if (op_class == GP_OP_DEPBAR && w->ldgsts_done > ready) {
    ready = w->ldgsts_done;
    on_load = 1;
  }
  w->ready = ready;
  w->on_load = (uint8_t)on_load;
}

/* Every scheduler of SM smi looks again: those after the current one in
 * this cycle, the others in the next (a barrier release or a new block). */
static void wake_sm(sim *s, uint32_t smi) {
  uint32_t sc;
  s->sets_changed = 1;
  for (sc = 0; sc < s->S; sc++) {
    uint32_t g = smi * s->S + sc;
    if (wake_asleep(&s->wake, g))
      wake_cancel(&s->wake, g);
    bit_set(g > s->cur_g ? s->due_now : s->due_next, g);
  }
}

/* Counts the positions of a slot on each scheduler as resident (+1) or not
 * (-1): a scheduler with no resident position is idle, not starved. */
static void mark_resident(sim *s, uint32_t smi, uint32_t slot, int delta) {
  uint32_t w;
  for (w = 0; w < s->wpb; w++) {
    sched_state *q = &s->sms[smi].scheds[(slot * s->wpb + w) % s->S];
    q->resident = (uint32_t)((int64_t)q->resident + delta);
  }
}

/* Puts block b on SM smi in slot `slot`, its warps ready from `when`. */
static int dispatch(sim *s, uint32_t smi, uint32_t slot, uint64_t b, double when) {
  const gp_kernel *k = s->k;
  sm_state *sm = &s->sms[smi];
  uint32_t w;
  wake_sm(s, smi);
  if (sm->slots[slot].block < 0)
    mark_resident(s, smi, slot, +1);
  sm->slots[slot].block = (int64_t)b;
  sm->slots[slot].live = 0;
  sm->slots[slot].arrived = 0;
  sm->slots[slot].finish = when;
  for (w = 0; w < s->wpb; w++) {
    uint32_t idx = slot * s->wpb + w;
    warp_state *ws = &sm->warps[idx];
    uint64_t g = b * s->wpb + w;
    double *done = ws->done;
    memset(ws, 0, sizeof *ws);
    ws->done = done;
    ws->g = g;
    ws->next = k->warp_start[g];
    ws->end = ws->next + k->warp_len[g];
    sm->scheds[idx % s->S].ages[idx / s->S] = s->age++;
    ws->not_before = when;
    ws->last_done = when;
    if (ws->next == ws->end)
      continue; /* a warp the trace does not list never runs */
    if (s->ring_mask < SIM_RING_INLINE)
      ws->done = ws->ring;
    else if (ws->done == NULL &&
             (ws->done = gp_malloc(&s->alloc, (s->ring_mask + 1) * sizeof *ws->done)) == NULL)
      return gp_error_set(s->err, "sim: out of memory");
    memset(ws->done, 0, (s->ring_mask + 1) * sizeof *ws->done);
    ws->live = 1;
    sm->slots[slot].live++;
    prepare_next(s, ws);
    sched_enqueue(&sm->scheds[idx % s->S], ws, idx / s->S, s->t);
  }
  return GP_OK;
}

/* The front end gives slot `slot` of SM smi, free from `when`, the next
 * block.  The GPU-wide dispatcher hands out one block every
 * launch.dispatch_cycles, in block order, to slots in the order the
 * simulator frees them (a slot is freed when its block's last warp issues,
 * with `when` its retirement, so requests arrive within a warp's last
 * latency of time order, and one that arrives after a later one waits for
 * the dispatcher behind it); the SM's launcher launches one block at a time,
 * s->block_launch cycles each, from the later of the dispatch and its
 * previous launch; the block's warps are ready when its launch ends, and no
 * earlier than launch.warmup_cycles after the end of the SM's first launch
 * (its cold instruction and constant caches).  A block whose warps the
 * trace does not list retires as its launch ends (its slot free
 * launch.drain_cycles later) and the slot takes the next. */
static int place(sim *s, uint32_t smi, uint32_t slot, double when) {
  const gp_machine *m = s->m;
  sm_state *sm = &s->sms[smi];
  block_slot *b = &sm->slots[slot];
  while (s->next_block < s->k->blocks) {
    double dispatched = when, launched, ready;
    if (m->launch.dispatch_cycles > 0) { /* without an interval it never holds a block back */
      dispatched = when > s->dispatcher_free ? when : s->dispatcher_free;
      s->dispatcher_free = dispatched + m->launch.dispatch_cycles;
    }
    launched = (dispatched > sm->dispatch_free ? dispatched : sm->dispatch_free) + s->block_launch;
    sm->dispatch_free = launched;
    if (!sm->launched) {
      sm->launched = 1;
      sm->warm_at = launched + m->launch.warmup_cycles;
    }
    ready = launched > sm->warm_at ? launched : sm->warm_at;
    if (dispatch(s, smi, slot, s->next_block++, ready) != GP_OK)
      return GP_ERR;
    if (b->live > 0)
      return GP_OK;
    s->blocks_done++;
    when = ready + m->launch.drain_cycles;
    if (when > sm->finish)
      sm->finish = when;
  }
  if (b->block >= 0)
    mark_resident(s, smi, slot, -1);
  b->block = -1;
  return GP_OK;
}

/* Every warp of a block's slot passes its barrier. */
static void release_barrier(sim *s, uint32_t smi, uint32_t slot) {
  sm_state *sm = &s->sms[smi];
  uint32_t x;
  for (x = 0; x < s->wpb; x++) {
    uint32_t idx = slot * s->wpb + x;
    warp_state *w = &sm->warps[idx];
    if (w->at_barrier && w->live) {
      sched_state *q = &sm->scheds[idx % s->S];
      bit_clear(set_of(q, SET_BARRIER), idx / s->S);
      w->at_barrier = 0;
      sched_enqueue(q, w, idx / s->S, s->t);
    }
    w->at_barrier = 0;
  }
  sm->slots[slot].arrived = 0;
  wake_sm(s, smi);
}

/* A warp issued its last instruction. */
static int retire_warp(sim *s, uint32_t smi, uint32_t idx) {
  sm_state *sm = &s->sms[smi];
  warp_state *w = &sm->warps[idx];
  uint32_t slot = idx / s->wpb;
  block_slot *b = &sm->slots[slot];
  w->live = 0;
  w->at_barrier = 0;
  s->out->warp_done[w->g] = w->last_done;
  s->out->counters.resident_warp_cycles += w->last_done - w->not_before;
  if (w->last_done > b->finish)
    b->finish = w->last_done;
  if (w->last_done > sm->finish)
    sm->finish = w->last_done;
  sched_leave_active(&sm->scheds[idx % s->S], idx / s->S);
  sm->scheds[idx % s->S].issued += s->k->warp_len[w->g]; /* every one of its instructions */
  b->live--;
  if (b->live > 0 && b->arrived >= b->live) /* the barrier no longer waits for it */
    release_barrier(s, smi, slot);
  if (b->live == 0) { /* the block retires: its slot is free after the drain */
    double freed = b->finish + s->m->launch.drain_cycles;
    if (freed > sm->finish)
      sm->finish = freed;
    s->blocks_done++;
    return place(s, smi, slot, freed);
  }
  return GP_OK;
}

/* The timing of a memory access (Algorithm 1's HandleSpecial, line 12): sets
 * *busy (the LSU's cycles) and *complete.  Out of line: the issue path of
 * compute instructions stays small. */
static __attribute__((noinline)) int issue_memory(sim *s, const sched_state *q, warp_state *w,
                                                  int kind, double t, double *busy,
                                                  double *complete) {
  const gp_kernel *k = s->k;
  const gp_machine *mach = s->m;
  gp_sim_counters *n = &s->out->counters;
  uint32_t mem = k->mem[w->next];
  int c = w->op_class;
  if (mem != UINT32_MAX && (kind & KIND_CACHE)) {
    const gp_mem_record *m = &k->mem_records[mem];
    double done_each[GP_MAX_LINES_PER_INST];
    if (m->line_count > 0) {
      if (gp_timed_submit(s->mem, q->sm, t, c, k->lines + m->line_start,
                          k->sector_masks + m->line_start, m->line_count, done_each, complete,
                          s->err) != GP_OK)
        return GP_ERR;
      *busy = m->line_count;
    } else {
      *complete = t + 1;
    }
    if (c == GP_OP_LDGSTS && *complete > w->ldgsts_done)
      w->ldgsts_done = *complete;
  } else if (kind & KIND_SHARED) {
    uint32_t passes = 1;
    if (mem != UINT32_MAX) {
      const gp_mem_record *m = &k->mem_records[mem];
      passes = gp_shared_passes(GP_MEM_LANES(k, m), m->addr_count, k->width[w->next],
                                mach->shared.banks, mach->shared.bank_bytes);
    }
    if (passes > 1) {
      n->bank_conflicts++;
      n->bank_extra_passes += passes - 1;
    }
    *busy = passes > 0 ? passes : 1;
    *complete = t + mach->shared.latency + (passes > 1 ? passes - 1 : 0);
  } else if (kind & KIND_CONST) {
    *complete = t + mach->constant.latency;
  } else if (kind & KIND_MEMORY) {
    *complete = t + 1; /* a memory instruction with an empty mask */
  }
  return GP_OK;
}

/* The unit takes an instruction issued at t for `busy` cycles (Algorithm 1
 * line 13, FUFree = t + interval, generalised to fractional intervals).
 * The occupancy accumulates exactly in unit_acc: the instruction starts
 * when the unit's previous work ends or at t, whichever is later.  The unit
 * accepts again in the first cycle on the issue grid (t, t + 1, ...) in
 * which that occupancy ends before the cycle does: t + floor(acc - t).  So
 * Kepler's 2/3-cycle FP32 issues 2, 1, 2, 1, ... warp instructions per
 * cycle at issue width 2.  Within `slack` of a cycle boundary counts as on
 * it.  For an integral interval the unit is always
 * idle by the time it accepts (acc <= t), and unit_free = t + busy as
 * before, bit for bit. */
/* occupy_unit's path for a unit every class of which takes whole cycles (a
 * memory access's line requests and bank passes too): its occupancy always
 * ends on the grid, at unit_free, and the unit takes this instruction only
 * from then (t >= unit_free), so it starts at t, and the general path gives
 * t + busy; unit_acc, read only there, is not kept.  Also issue()'s for a
 * class not on its rare path. */
static inline __attribute__((always_inline)) void occupy_whole(sched_state *q, int unit,
                                                               double t, double busy) {
  double free_at = t + busy;
  q->unit_free[unit] = free_at;
  if (free_at > q->latest_free)
    q->latest_free = free_at;
}

static inline __attribute__((always_inline)) void occupy_unit(const sim *s, sched_state *q,
                                                              int unit, double t, double busy) {
  /* sums of fractions round: 3 x 2/3 may come out just below or above 2 */
  const double slack = 1e-6;
  double start, free_at;
  if (!s->unit_frac[unit]) {
    occupy_whole(q, unit, t, busy);
    return;
  }
  start = q->unit_acc[unit] > t + slack ? q->unit_acc[unit] : t;
  /* an idle unit and whole cycles (a unit shared with a fractional class):
   * floor(busy + slack) is busy itself */
  free_at = start == t && whole_cycles(busy) ? t + busy : t + floor(start - t + busy + slack);
  q->unit_acc[unit] = start + busy;
  q->unit_free[unit] = free_at;
  if (free_at > q->latest_free)
    q->latest_free = free_at;
}

/* issue(): the warp goes on (the caller moves it within ready or to pending). */
#define ENQUEUE 1

/* The end of issue() for a class on its rare path (sim_class.rare) or a
 * warp's last instruction: the barrier, the retirement, the next
 * instruction, the two-level active set.  Out of line: a compute
 * instruction's issue stays small. */
static __attribute__((noinline)) int issue_end(sim *s, sched_state *q, warp_state *w,
                                               uint32_t pos, int c, int unit) {
  uint32_t smi = q->sm;
  if (c == GP_OP_BARRIER) {
    uint32_t slot = (q->sc + pos * s->S) / s->wpb;
    block_slot *b = &s->sms[smi].slots[slot];
    if (++b->arrived >= b->live)
      release_barrier(s, smi, slot);
    else
      w->at_barrier = 1;
  }
  if (w->next == w->end) {
    /* out of the ready sets before a new block's warp may take its
     * position in retire_warp */
    bit_clear(set_of(q, unit), pos);
    bit_clear(set_of(q, SET_READY_ANY), pos);
    return retire_warp(s, smi, q->sc + pos * s->S);
  }
  prepare_next(s, w);
  if (w->at_barrier) {
    bit_clear(set_of(q, unit), pos);
    bit_clear(set_of(q, SET_READY_ANY), pos);
    bit_set(set_of(q, SET_BARRIER), pos);
    sched_leave_active(q, pos);
    return GP_OK;
  }
  /* two-level: a long-latency operation sends the warp to the pending set */
  if (s->cls[c].kind & KIND_LONG)
    sched_leave_active(q, pos);
  return ENQUEUE;
}

/* Issues the next instruction of the warp at position `pos` of scheduler q,
 * still in the ready sets (its unit's and ready_any), at cycle t (Algorithm 1 lines
 * 10-20): the unit's next free cycle, the completion time (memory through
 * memsim), the barrier, and the warp's next instruction's readiness.
 * Returns ENQUEUE when the warp goes on (the caller moves it within ready
 * or to pending), GP_OK when it exited or waits at a barrier (taken out of
 * the ready sets here), GP_ERR on
 * error.  Inline in the look at a scheduler (compiled per policy): the
 * call cost a tenth of a compute instruction's issue.  A class off its
 * rare path (sim_class.rare: a compute class on a whole-cycle unit, no
 * observer) needs its latency and interval only, and one test. */
static inline __attribute__((always_inline)) int issue(sim *s, sched_state *q, warp_state *w,
                                                       uint32_t pos, double t) {
  int c = w->op_class, unit = w->unit;
  const sim_class *cl = &s->cls[c];
  double busy = cl->busy, complete = t + cl->latency;
  int rare = cl->rare;
  if (__builtin_expect(rare, 0)) {
    const gp_sim_options *opt = s->opt;
    /* compute, branch, barrier (kind 0): latency and interval only; a
     * memory access's through copies (busy and complete, their addresses
     * not taken, stay in registers on the usual path) */
    if (cl->kind != 0) {
      double mem_busy = busy, mem_complete = complete;
      if (issue_memory(s, q, w, cl->kind, t, &mem_busy, &mem_complete) != GP_OK)
        return GP_ERR;
      busy = mem_busy, complete = mem_complete;
    }
    if (unit == UNIT_LSU)
      s->out->counters.lsu_busy_cycles += busy;
    if (opt->on_issue)
      opt->on_issue(opt->on_issue_ctx, q->sm, q->sc, t, (uint32_t)w->g, w->pc_index);
    occupy_unit(s, q, unit, t, busy);
  } else {
    occupy_whole(q, unit, t, busy);
  }
  w->done[w->next & s->ring_mask] = complete;
  if (complete > w->last_done)
    w->last_done = complete;
  w->next++;
  if (__builtin_expect(rare || w->next == w->end, 0))
    return issue_end(s, q, w, pos, c, unit);
  prepare_next(s, w);
  return ENQUEUE;
}

/* ---------------------------------------------------------------------------
 * A look at the schedulers due now (Algorithm 1 lines 7-20)
 * ------------------------------------------------------------------------- */

/* What a look at a scheduler found (sched_evaluate): an error; no issue
 * (*when: the cycle it could issue next, INFINITY when only a barrier
 * release or a new block can change that); an issue, and a look at the next
 * cycle; an issue, and the look at the next cycle skipped (*when as with no
 * issue, later than the next cycle).  run_due tells the usual one, an issue
 * and the next cycle, by this code, not by comparing *when with t + 1. */
enum { LOOK_ERROR = -1, LOOK_NO_ISSUE = 0, LOOK_ISSUED = 1, LOOK_ISSUED_ASLEEP = 2 };

/* run_due's cases (its `plain`): the general loop; the plain case
 * (sched_evaluate) at issue width above 1; the plain case at width 1, whose
 * look has no further pick to test for. */
enum { PLAIN_NO = 0, PLAIN_WIDE = 1, PLAIN_ONE = 2 };

/* After an issue at t: when nothing can issue at t1 = t + 1 (no warp
 * ready, none due by t1), the look at t1 is skipped: its reason is set now,
 * *when becomes the cycle it could issue next (later than t1: a pending
 * warp's producers are done after t1, and a unit frees no earlier) and the
 * result is 1, else 0.  Nothing but the scheduler's own look reads or changes
 * its sets, units and pending list before t1, except a barrier release or
 * a new block, which wake it (at t1 at the latest), so the look at t1 would
 * find the same.  Not when the reason is that no warp is left: a block
 * retiring on another scheduler of the SM changes it (idle once no block is
 * resident) without a wake-up.  (A look at t1 that finds a ready warp whose
 * unit is busy is rare after an issue: testing for it here cost more than
 * it saved.) */
static inline __attribute__((always_inline)) int skip_empty_look(sched_state *q, double t1,
                                                                 uint32_t words, int policy,
                                                                 double *when) {
  double next;
  if (!sched_all_waiting(q, t1, words))
    return 0;
  next = sched_reason_from_sets(q, 0, words, policy, 0); /* no ready warp */
  if (q->why == GP_STALL_NO_WARP || q->why == GP_STALL_IDLE)
    return 0;
  *when = next;
  return 1;
}

/* The issue of the warp at position pos picked at a look at t, the
 * `issued`-th of the cycle (from 0): issue(), its move within the sets,
 * the record (its PC only with per-PC stalls, not `plain`; q->rr).
 * Returns the issued instruction's unit, -1 on error. */
static inline __attribute__((always_inline)) int issue_picked(sim *s, sched_state *q, double t,
                                                              int64_t pos, uint32_t issued,
                                                              uint32_t words, int plain) {
  warp_state *w = warp_at(q, (uint32_t)pos);
  uint32_t pc = plain ? 0 : w->pc_index;
  int unit = w->unit;
  /* the warp stays in the ready sets while it issues: issue() takes it
   * out when it retires or waits at a barrier, else sched_requeue_w
   * moves it */
  switch (issue(s, q, w, (uint32_t)pos, t)) {
  case ENQUEUE:
    sched_requeue_w(q, w, (uint32_t)pos, t, unit, words);
    break;
  case GP_OK:
    break;
  default:
    return -1;
  }
  if (!plain)
    q->why_pcs[issued] = pc;
  q->rr = pos;
  return unit;
}

/* After the first issue at t (of the warp at pos, on `unit`), at issue
 * width above 1: the further picks and issues, e the eligible warps before
 * that issue.  Returns the number issued in all, -1 on error.  Not the
 * warps issued this cycle (one word: a local mask; else q->issued_now),
 * nor, unless a barrier release or a new block (s->sets_changed, set
 * until the end of the look: run_due clears it) added warps, the last
 * issued unit's when it is busy now. */
static inline __attribute__((always_inline)) int issue_further(sim *s, sched_state *q, double t,
                                                               uint64_t *e, int64_t pos,
                                                               int unit, uint32_t words,
                                                               int policy, int plain) {
  int two_level = policy == GP_SIM_TWO_LEVEL;
  uint64_t issued_mask = 0;
  uint32_t issued = 1;
  do {
    if (words == 1)
      issued_mask |= (uint64_t)1 << pos;
    else
      q->issued_now[issued - 1] = (uint32_t)pos;
    if (s->sets_changed || two_level) {
      sched_eligible(q, t, words == 1 ? 0 : issued, e, words, policy);
      if (words == 1)
        e[0] &= ~issued_mask;
    } else {
      sched_eligible_after_issue(q, t, (uint32_t)pos, unit, e, words);
      if (words == 1 && e[0] == 0)
        break; /* nothing left this cycle (the usual end after an issue) */
    }
    pos = sched_pick(s, q, t, e, words, policy);
    if (pos < 0)
      return pos == -2 ? -1 : (int)issued;
    unit = issue_picked(s, q, t, pos, issued, words, plain);
    if (unit < 0)
      return -1;
    issued++;
    if (two_level)
      sched_fill_active(s, q);
  } while (issued < q->issue_width);
  return (int)issued;
}

/* sched_evaluate's body for a scheduler of `words` bitmap words and a
 * policy, both constants in the common cases (one word; LRR or GTO), so the
 * compiler drops the word loops and the policy tests.  The first pick and
 * issue come straight after the eligible warps, with no loop counter live
 * across the issue; only a scheduler of issue width above 1 reaches the
 * further ones (issue_further). */
static inline __attribute__((always_inline)) int evaluate(sim *s, sched_state *q, double t,
                                                          double *when, uint32_t words,
                                                          int policy, int plain) {
  /* one word: the eligible mask in a local, which no bitmap's store can
   * change (so it is not read again after each) */
  uint64_t e_word = 0;
  uint64_t *e = words == 1 ? &e_word : set_w(q, SET_SCRATCH, words);
  int issued = 0;
  int two_level = policy == GP_SIM_TWO_LEVEL;
  int64_t pos;
  sched_promote(q, t, words);
  if (two_level)
    sched_fill_active(s, q);
  sched_eligible(q, t, 0, e, words, policy); /* none issued yet */
  pos = words == 1 && e[0] == 0 ? -1 : sched_pick(s, q, t, e, words, policy);
  if (pos >= 0) {
    int unit = issue_picked(s, q, t, pos, 0, words, plain);
    if (unit < 0)
      return LOOK_ERROR;
    if (two_level)
      sched_fill_active(s, q);
    /* one word, not two-level: no further pick when no other warp was
     * eligible (pos is one of e's: another is a second bit) and no barrier
     * release or new block added one (the usual end at width 2) */
    if ((plain ? plain == PLAIN_WIDE : q->issue_width > 1) &&
        (words != 1 || two_level || (e[0] & (e[0] - 1)) != 0 || s->sets_changed))
      issued = issue_further(s, q, t, e, pos, unit, words, policy, plain);
    else
      issued = 1;
    if (issued < 0)
      return LOOK_ERROR;
  } else if (pos == -2) {
    return LOOK_ERROR;
  }
  if (issued > 0) {
    /* the issuing cycle is charged now, not at the next look (which may
     * not come): counted, so the stalls' sums stay the same bit for bit;
     * only scheduler_cycles' order of additions moves (docs/sim.md) */
    out_charge_issue(s, q, t, (uint32_t)issued, plain);
    if (!two_level && skip_empty_look(q, s->issue_end, words, policy, when))
      return LOOK_ISSUED_ASLEEP;
    return LOOK_ISSUED;
  }
  /* the units busy at t narrow the reason's scan of the ready warps' units
   * (sched_reason_from_sets), but not in the wide plain loop: there
   * (gtx1080) a look that issues nothing with a warp ready is rare, and
   * the compares there cost that loop's registers (a spilled position at
   * every issue: +1.5 M of 884 M, callgrind on bench sim's kernel) more
   * than reading all eight units' sets saves; nor is sched_eligible's mask
   * kept for it (the same spill) */
  if (two_level)
    *when = sched_reason_two_level(s, q);
  else
    *when = sched_reason_from_sets(q, plain == PLAIN_WIDE ? ALL_UNITS : units_busy(q, t),
                                   words, policy,
                                   any_bit(set_w(q, SET_READY_ANY, words), words));
  return LOOK_NO_ISSUE;
}

/* One scheduler at cycle t: issues up to issue_width warps; returns what
 * it found (LOOK_*), sets q->why and its PCs and, unless it issued and
 * looks again at t + 1 (LOOK_ISSUED), *when, the earliest cycle it could
 * issue next.  Inline in
 * run_due: once per look at a scheduler.  `policy` is the configuration's
 * when the caller knows it as a constant (LRR, GTO), else -1; `plain` (a
 * constant, only with a constant policy) is PLAIN_WIDE or PLAIN_ONE (the
 * machine's issue width above 1 or 1) in a cycle of run_due's plain case:
 * sim.plain (one bitmap word, no per-PC stalls) and an issue of one whole
 * cycle (sim.issue_whole), none of them tested at the look. */
static inline __attribute__((always_inline)) int sched_evaluate(sim *s, sched_state *q, double t,
                                                                double *when, int policy,
                                                                int plain) {
  out_charge_w(s, q, t, plain);
  if (plain) /* no scheduler without warp positions, none of more than 64 */
    return evaluate(s, q, t, when, 1, policy, plain);
  if (q->count == 0) {
    sched_set_reason(q, GP_STALL_IDLE, -1);
    *when = INFINITY;
    return LOOK_NO_ISSUE;
  }
  if (policy < 0)
    return evaluate(s, q, t, when, q->words, (int)s->opt->policy, 0);
  if (q->words == 1)
    return evaluate(s, q, t, when, 1, policy, 0);
  return evaluate(s, q, t, when, q->words, policy, 0);
}

/* Looks at every scheduler due at cycle s->t, in SM-then-scheduler order
 * (wake-ups may add later ones of the same SM); *issued tells whether any
 * issued.  `policy` and `plain` as in sched_evaluate.  The cycle and the
 * due bitmaps' addresses stay the same during the look (advance changes
 * them), so they are read once.  A due word is taken whole into a local
 * (cleared in due_now) and read again only after a look that set
 * sets_changed: only wake_sm adds due schedulers during the loop, always
 * after cur_g, and it sets sets_changed, which is cleared here.  The
 * scheduler's index is read back from cur_g after the look, not kept
 * across it.  A scheduler due again at the next cycle after its issue (the
 * usual case) is set in due_next once per word (`keep`: the word's looked-at
 * schedulers but those that sleep or wait, which are fewer to collect):
 * nothing reads its bit there before (wake_sm sets bits of due_next itself,
 * and a scheduler is looked at once a cycle). */
static inline __attribute__((always_inline)) int run_due(sim *s, int *issued, int policy,
                                                         int plain) {
  const double t = s->t;
  uint64_t *due_now = s->due_now, *due_next = s->due_next;
  sched_state *const *sched_of = s->sched_of;
  uint32_t wi, words = s->due_words;
  int any = 0; /* an issue whose scheduler sleeps after it; the others are in `kept` */
  uint64_t kept = 0;
  for (wi = 0; wi < words; wi++) {
    uint64_t m = due_now[wi], looked = m, asleep = 0, keep;
    due_now[wi] = 0;
    while (m != 0) {
      uint32_t g = wi * 64 + (uint32_t)__builtin_ctzll(m);
      double when;
      m &= m - 1;
      s->cur_g = g;
      switch (sched_evaluate(s, sched_of[g], t, &when, policy, plain)) {
      case LOOK_ISSUED:
        break;
      case LOOK_ISSUED_ASLEEP:
        /* asleep unless a barrier release or a new block of the issue made
         * it due at the next cycle anyway (a scheduler is never due and
         * asleep at once) */
        any = 1;
        asleep |= (uint64_t)1 << (s->cur_g & 63);
        if (when < INFINITY && !bit_test(due_next, s->cur_g))
          wake_sleep(&s->wake, s->cur_g, when);
        break;
      case LOOK_NO_ISSUE:
        asleep |= (uint64_t)1 << (s->cur_g & 63);
        if (when < INFINITY)
          wake_sleep(&s->wake, s->cur_g, when);
        break; /* else asleep until a barrier release or a new block */
      default:
        return GP_ERR;
      }
      if (s->sets_changed) { /* wake_sm's schedulers after g, due now */
        m |= due_now[wi];
        looked |= due_now[wi];
        due_now[wi] = 0;
        s->sets_changed = 0;
      }
    }
    keep = looked & ~asleep;
    due_next[wi] |= keep;
    kept |= keep;
  }
  *issued = any || kept != 0;
  return GP_OK;
}

/* run_due compiled for the policy and the plain case (sched_evaluate)
 * where both are the usual ones, the plain case for issue width 1 and
 * above 1. */
static int run_due_schedulers(sim *s, int *issued) {
  int plain = !(s->plain && s->issue_whole) ? PLAIN_NO
              : s->m->sm.issue_width > 1    ? PLAIN_WIDE
                                            : PLAIN_ONE;
  switch (s->opt->policy) {
  case GP_SIM_LRR:
    return plain == PLAIN_WIDE  ? run_due(s, issued, GP_SIM_LRR, PLAIN_WIDE)
           : plain == PLAIN_ONE ? run_due(s, issued, GP_SIM_LRR, PLAIN_ONE)
                                : run_due(s, issued, GP_SIM_LRR, PLAIN_NO);
  case GP_SIM_GTO:
    return plain == PLAIN_WIDE  ? run_due(s, issued, GP_SIM_GTO, PLAIN_WIDE)
           : plain == PLAIN_ONE ? run_due(s, issued, GP_SIM_GTO, PLAIN_ONE)
                                : run_due(s, issued, GP_SIM_GTO, PLAIN_NO);
  default:
    return run_due(s, issued, -1, PLAIN_NO);
  }
}

/* ---------------------------------------------------------------------------
 * Setup and the loop
 * ------------------------------------------------------------------------- */

static void free_sim(sim *s) {
  uint32_t i, x;
  if (s->sms) {
    for (i = 0; i < s->sm_count; i++) {
      sm_state *sm = &s->sms[i];
      if (sm->scheds == NULL)
        continue; /* never built (build_sm allocates its schedulers first) */
      if (sm->warps_mem)
        for (x = 0; x < s->slots_per_sm * s->wpb; x++)
          if (sm->warps[x].done != sm->warps[x].ring)
            gp_free(&s->alloc, sm->warps[x].done, (s->ring_mask + 1) * sizeof(double));
      gp_free(&s->alloc, sm->warps_mem, s->slots_per_sm * s->wpb * sizeof *sm->warps + 64);
      gp_free(&s->alloc, sm->slots, s->slots_per_sm * sizeof *sm->slots);
      if (sm->scheds)
        for (x = 0; x < s->S; x++)
          sched_free(s, &sm->scheds[x]);
      gp_free(&s->alloc, sm->scheds, s->S * sizeof *sm->scheds);
    }
    gp_free(&s->alloc, s->sms, s->sm_count * sizeof *s->sms);
  }
  gp_free(&s->alloc, s->due_now, s->due_words * sizeof *s->due_now);
  gp_free(&s->alloc, s->due_next, s->due_words * sizeof *s->due_next);
  wake_free(&s->wake, &s->alloc);
  gp_free(&s->alloc, s->cand, s->slots_per_sm * s->wpb * sizeof *s->cand);
  gp_free(&s->alloc, s->sched_of, s->sm_count * s->S * sizeof *s->sched_of);
  gp_timed_free(s->mem);
}

/* The completion ring of every warp holds more entries than the longest
 * dependence distance of the kernel (the next power of two), so a warp's
 * ring stays a few cache lines however long the warp runs. */
static void size_rings(sim *s) {
  uint64_t ring = 1;
  uint32_t bits = s->opt->counts != NULL ? s->opt->counts->dep_bits : count_dep_bits(s->k);
  while (ring <= bits)
    ring *= 2;
  s->ring_mask = ring - 1;
}

/* SM i's schedulers, warps, block slots and scheduler sets, built when the
 * first round gives it a block: an SM without one then never gets one, and
 * a launch of fewer blocks than SMs (bfs on a100's 108) paid more for
 * building every SM than for simulating.  An SM not built has no
 * schedulers: they would stay idle from cycle 0 (sched_init's state, which
 * a look at them would not change), and charge_unbuilt charges them so. */
static int build_sm(sim *s, uint32_t i) {
  sm_state *sm = &s->sms[i];
  uint32_t x, per_sm = s->slots_per_sm * s->wpb;
  sm->scheds = gp_malloc(&s->alloc, s->S * sizeof *sm->scheds);
  if (!sm->scheds)
    return gp_error_set(s->err, "sim: out of memory");
  memset(sm->scheds, 0, s->S * sizeof *sm->scheds);
  for (x = 0; x < s->S; x++) {
    s->sched_of[i * s->S + x] = &sm->scheds[x];
    sched_init(s, &sm->scheds[x], i, x, (per_sm + s->S - 1 - x) / s->S);
  }
  sm->warps_mem = gp_malloc(&s->alloc, per_sm * sizeof *sm->warps + 64);
  sm->warps = (warp_state *)(((uintptr_t)sm->warps_mem + 63) & ~(uintptr_t)63);
  if (sm->warps_mem) /* cleared first: free_sim reads the warps of any allocation */
    memset(sm->warps, 0, per_sm * sizeof *sm->warps);
  sm->slots = gp_malloc(&s->alloc, s->slots_per_sm * sizeof *sm->slots);
  if (!sm->warps_mem || !sm->slots)
    return gp_error_set(s->err, "sim: out of memory");
  for (x = 0; x < s->slots_per_sm; x++)
    sm->slots[x].block = -1;
  for (x = 0; x < s->S; x++)
    if (sched_alloc(s, &sm->scheds[x]) != GP_OK)
      return GP_ERR;
  return GP_OK;
}

/* The schedulers the event loop can ever see due or asleep: those of the
 * SMs the first round may build (one block each before any SM gets a
 * second: at most as many SMs as blocks, the first ones by index), as no
 * other SM ever gets a block.  The due bitmaps and the wake-up calendar
 * cover these only: bfs's launches of 8 blocks on a100 look at 1 bitmap
 * word a cycle, not 7, and a bucket is one word (same order, same picks:
 * the others would stay clear and never asleep). */
static uint32_t event_schedulers(const sim *s) {
  uint64_t sms = s->k->blocks < s->sm_count ? s->k->blocks : s->sm_count;
  return (uint32_t)sms * s->S;
}

static int setup(sim *s) {
  uint32_t i, x, per_sm = s->slots_per_sm * s->wpb, events = event_schedulers(s);
  size_rings(s);
  s->due_words = events > 0 ? (events + 63) / 64 : 1;
  s->due_now = gp_malloc(&s->alloc, s->due_words * sizeof *s->due_now);
  s->due_next = gp_malloc(&s->alloc, s->due_words * sizeof *s->due_next);
  s->cand = gp_malloc(&s->alloc, per_sm * sizeof *s->cand);
  s->sms = gp_malloc(&s->alloc, s->sm_count * sizeof *s->sms);
  if (s->sms) /* cleared first: free_sim reads every SM of the allocation */
    memset(s->sms, 0, s->sm_count * sizeof *s->sms);
  s->sched_of = gp_malloc(&s->alloc, s->sm_count * s->S * sizeof *s->sched_of);
  if (wake_init(&s->wake, &s->alloc, events) != GP_OK || !s->due_now || !s->due_next ||
      !s->cand || !s->sms || !s->sched_of)
    return gp_error_set(s->err, "sim: out of memory");
  memset(s->due_now, 0, s->due_words * sizeof *s->due_now);
  memset(s->due_next, 0, s->due_words * sizeof *s->due_next);
  s->issue_end = 1, s->issue_whole = 1; /* at cycle 0 */
  /* each scheduler's positions (sched_init's count): from per_sm / S to
   * that rounded up */
  s->plain = per_sm >= s->S && (per_sm + s->S - 1) / s->S <= 64 && s->out->pc_stalls == NULL;
  /* the first round: blocks to SMs round-robin up to occupancy */
  for (x = 0; x < s->slots_per_sm; x++)
    for (i = 0; i < s->sm_count; i++)
      if (s->next_block < s->k->blocks &&
          ((!s->sms[i].slots && build_sm(s, i) != GP_OK) || place(s, i, x, 0) != GP_OK))
        return GP_ERR;
  /* every scheduler of an SM with blocks looks at cycle 0 */
  memset(s->due_next, 0, s->due_words * sizeof *s->due_next);
  for (x = 0; x < events; x++)
    if (s->sms[x / s->S].slots)
      bit_set(s->due_now, x);
  return GP_OK;
}

/* Algorithm 1 lines 21-25: one cycle on after an issue, else a jump to the
 * earliest wake-up; then the schedulers due at the new cycle. */
static int advance(sim *s, int issued) {
  uint64_t *swap;
  if (issued) {
    s->t += 1;
  } else {
    double first = wake_min(&s->wake);
    if (first == INFINITY)
      return gp_error_set(s->err,
                          "sim: deadlock at cycle %.0f: warps wait at a barrier no warp can reach",
                          s->t);
    s->t += first - s->t;
  }
  s->issue_end = s->t + 1;
  s->issue_whole = s->issue_end - s->t == 1;
  swap = s->due_now, s->due_now = s->due_next, s->due_next = swap;
  if (issued)
    wake_take_step(&s->wake, s->t, s->due_now);
  else
    wake_take_due(&s->wake, s->t, s->due_now);
  return GP_OK;
}

/* SM smi, never built: each of its schedulers idle from cycle 0 to `end`,
 * charged at the end of the run as out_charge and out_issue_cycles charge
 * a scheduler in sched_init's state (the same additions in the same order,
 * so the same bits). */
static void charge_unbuilt(sim *s, uint32_t smi, double end) {
  sched_state idle;
  uint32_t sc;
  memset(&idle, 0, sizeof idle);
  for (sc = 0; sc < s->S; sc++) {
    idle.since = 0, idle.why = GP_STALL_IDLE, idle.issue_cycles = 0;
    idle.sm_stalls = s->out->sm_stalls + (size_t)smi * GP_STALL_COUNT;
    out_charge(s, &idle, end);
    out_issue_cycles(s, &idle);
  }
}

/* The result's arrays; the per-PC ones only when the run keeps them (a
 * NULL pc_stalls is what out_charge tests). */
static int alloc_result(gp_sim_result *out, const gp_alloc *alloc, const gp_kernel *k,
                        uint32_t sms, int per_pc) {
  out->sms = sms, out->warps = k->warps, out->pc_count = per_pc ? k->static_count : 0;
  out->sm_cycles = gp_malloc(alloc, sms * sizeof *out->sm_cycles);
  out->sm_issued = gp_malloc(alloc, sms * sizeof *out->sm_issued);
  out->sm_stalls = gp_malloc(alloc, sms * GP_STALL_COUNT * sizeof *out->sm_stalls);
  out->warp_done = gp_malloc(alloc, (k->warps + 1) * sizeof *out->warp_done);
  if (!out->sm_cycles || !out->sm_issued || !out->sm_stalls || !out->warp_done)
    return GP_ERR;
  memset(out->sm_issued, 0, sms * sizeof *out->sm_issued);
  memset(out->sm_stalls, 0, sms * GP_STALL_COUNT * sizeof *out->sm_stalls);
  memset(out->warp_done, 0, (k->warps + 1) * sizeof *out->warp_done);
  if (!per_pc)
    return GP_OK;
  out->pc_stalls = gp_malloc(alloc, (out->pc_count + 1) * GP_STALL_COUNT * sizeof(double));
  out->pc_executions = gp_malloc(alloc, (out->pc_count + 1) * sizeof *out->pc_executions);
  if (!out->pc_stalls || !out->pc_executions)
    return GP_ERR;
  memset(out->pc_stalls, 0, (out->pc_count + 1) * GP_STALL_COUNT * sizeof(double));
  memset(out->pc_executions, 0, (out->pc_count + 1) * sizeof *out->pc_executions);
  return GP_OK;
}

int gp_sim_run(const gp_kernel *k, const gp_machine *m, const gp_sim_options *opt,
               const gp_alloc *alloc, gp_sim_result *out, gp_error *err) {
  sim s;
  uint32_t i;
  int status = GP_OK;
  if (m->sm.count == 0 || m->sm.schedulers == 0 || m->sm.issue_width == 0 || opt->blocks_per_sm == 0)
    return gp_error_set(err, "sim: SMs, schedulers, issue width and blocks per SM must be above 0");
  if (opt->policy == GP_SIM_TWO_LEVEL && m->sm.active_warps == 0)
    return gp_error_set(err, "sim: the two-level scheduler's active set needs at least 1 warp");
  if (opt->policy == GP_SIM_CALLBACK && opt->pick == NULL)
    return gp_error_set(err, "sim: the callback policy needs a pick function");
  if ((unsigned)opt->policy > GP_SIM_CALLBACK)
    return gp_error_set(err, "sim: unknown scheduling policy %d", (int)opt->policy);
  if (opt->counts != NULL && opt->counts->pc_count != k->static_count)
    return gp_error_set(err, "sim: the issue counts passed are another kernel's");
  memset(&s, 0, sizeof s);
  memset(out, 0, sizeof *out);
  s.k = k, s.m = m, s.opt = opt, s.alloc = *alloc, s.out = out, s.err = err;
  s.sm_count = m->sm.count;
  gp_machine_timed(m, opt->blocks_per_sm, k->shmem_bytes, &s.memory);
  s.wpb = k->warps_per_block;
  s.slots_per_sm = opt->blocks_per_sm;
  s.S = m->sm.schedulers;
  s.block_launch = gp_machine_block_launch_cycles(m, s.wpb);
  classify(&s);
  if (alloc_result(out, alloc, k, s.sm_count, opt->per_pc) != GP_OK) {
    gp_sim_result_free(out, alloc);
    return gp_error_set(err, "sim: out of memory");
  }
  status = gp_timed_new(&s.mem, alloc, &s.memory, err);
  if (status == GP_OK)
    status = setup(&s);
  while (status == GP_OK && s.blocks_done < k->blocks) {
    int issued;
    status = run_due_schedulers(&s, &issued);
    if (status == GP_OK && s.blocks_done < k->blocks)
      status = advance(&s, issued);
  }
  if (status == GP_OK) {
    double end = k->blocks > 0 ? s.t + 1 : 0; /* the last issue's cycle is counted */
    uint32_t sc;
    out->cycles = 0;
    for (i = 0; i < s.sm_count; i++) {
      if (s.sms[i].scheds == NULL)
        charge_unbuilt(&s, i, end);
      else
        for (sc = 0; sc < s.S; sc++) {
          out_charge(&s, &s.sms[i].scheds[sc], end);
          out_issue_cycles(&s, &s.sms[i].scheds[sc]);
          out->sm_issued[i] += s.sms[i].scheds[sc].issued;
        }
      out->sm_cycles[i] = s.sms[i].finish;
      if (s.sms[i].finish > out->cycles)
        out->cycles = s.sms[i].finish;
    }
    if (gp_timed_stats_of(s.mem)->last_dram_done > out->cycles) /* posted stores drain */
      out->cycles = gp_timed_stats_of(s.mem)->last_dram_done;
    out->cycles += m->launch.kernel_cycles;
    out->memory = *gp_timed_stats_of(s.mem);
    status = out_finish(&s);
  }
  free_sim(&s);
  if (status != GP_OK)
    gp_sim_result_free(out, alloc);
  return status;
}

void gp_sim_result_free(gp_sim_result *r, const gp_alloc *alloc) {
  gp_free(alloc, r->sm_cycles, r->sms * sizeof *r->sm_cycles);
  gp_free(alloc, r->sm_issued, r->sms * sizeof *r->sm_issued);
  gp_free(alloc, r->sm_stalls, r->sms * GP_STALL_COUNT * sizeof *r->sm_stalls);
  gp_free(alloc, r->warp_done, (r->warps + 1) * sizeof *r->warp_done);
  gp_free(alloc, r->pc_stalls, (r->pc_count + 1) * GP_STALL_COUNT * sizeof *r->pc_stalls);
  gp_free(alloc, r->pc_executions, (r->pc_count + 1) * sizeof *r->pc_executions);
  gp_free(alloc, r->lines, r->line_count * sizeof *r->lines);
  gp_free(alloc, r->line_stalls, r->line_count * GP_STALL_COUNT * sizeof *r->line_stalls);
  r->sm_cycles = r->warp_done = r->sm_stalls = r->pc_stalls = r->line_stalls = NULL;
  r->sm_issued = r->pc_executions = NULL;
  r->lines = NULL;
}
