/*
 * memsim_functional.c -- GPUMech Sec. V: per-PC miss behaviour and AMAT.
 *
 * The replay follows the paper's reading of a GPU's interleaving: thread
 * blocks go to SMs round-robin; every SM runs waves of as many blocks as
 * occupancy allows; within a wave, the warps of all SMs' co-resident blocks
 * advance round-robin, one memory instruction each per turn.  (All SMs run
 * their wave j together: the replay has no timing, so this is the order a
 * GPU with evenly progressing SMs would see.)  Each instruction's requests
 * go to its SM's L1 (loads that L1 caches) and to the L2 slice of the line;
 * the instruction's level is that of its slowest request, and its AMAT
 * contribution the latency of that level (Sec. V-B: 90 % L2 hits at 120 and
 * 10 % misses at 420 give 150).  Shared-memory instructions never reach the
 * caches: they count bank passes; constant loads take const_latency.
 *
 * The model itself (gp_func) takes an access stream in the caller's order;
 * gp_memsim_functional drives it from a kernel.
 */
#include "memsim.h"
#include "memsim_cache_access.h"

#include <stdlib.h>
#include <string.h>

enum { LEVEL_L1 = 1, LEVEL_L2 = 2, LEVEL_DRAM = 3 };
_Static_assert(GP_REUSE_TABLE % 64 == 0, "whole words of recent_used per SM");
enum { KIND_NONE = 0, KIND_CACHE, KIND_SHARED, KIND_CONST };
/* A cache-using class's request path (gp_func.class_path, set once per
 * model: worked out per instruction it was 6 % of a streaming kernel's
 * replay): a store; through the SM's L1 (when it has one); a load whose
 * L1 misses count in the miss-reuse table (atomics do not). */
enum { PATH_STORE = 1, PATH_THROUGH_L1 = 2, PATH_NOTES_MISSES = 4 };

/* A recent L1 miss of an SM: the line (+ 1) and the SM's miss count when
 * it happened; an entry is read only once its bit in gp_func.recent_used
 * is set (so the tables, megabytes on a large GPU, are never cleared). */
typedef struct recent_miss {
  uint64_t line1, seq;
} recent_miss;

struct gp_func {
  gp_alloc alloc;
  gp_memsim_config cfg;
  uint32_t slices;
  gp_cache *l1;      /* one per SM, set up at the SM's first request (l1_ready;
                        read only once set up) */
  uint8_t *l1_ready; /* per SM: its L1 and its words of recent_used are set up */
  gp_cache *l2;      /* one per slice, set up at its first line (l2_ready;
                        read only once set up) */
  uint8_t *l2_ready; /* per slice: it is set up */
  gp_cache_config slice; /* a slice's configuration: l2.size_bytes / slices */
  uint8_t dram_chunks[32]; /* per sector mask (bit 4: these sectors only) */
  uint64_t dram_bytes[32]; /* the same in bytes: dram_chunks x dram_unit */
  uint8_t class_path[GP_OP_CLASS_COUNT]; /* PATH_* per class */
  uint8_t *kind;     /* per PC */
  recent_miss *recent; /* GP_REUSE_TABLE per SM */
  uint64_t *recent_used; /* a bit per entry of `recent`: written at least once
                            (an SM's words cleared at its set-up) */
  uint64_t *misses;  /* per SM: L1-missing load requests so far */
  gp_memsim_result out;
};

/* Files an L1-missing load request of `line` on SM `sm` under PC record p:
 * the bucket of its distance, in the SM's misses, to the previous miss on
 * the line (when the table still holds it). */
static inline __attribute__((always_inline)) void note_miss(gp_func *f, gp_pc_memory *p, uint32_t sm,
                                                            uint64_t line) {
  size_t at = (size_t)sm * GP_REUSE_TABLE + ((line * 0x9E3779B97F4A7C15ull) >> 52) % GP_REUSE_TABLE;
  recent_miss *r = &f->recent[at];
  uint64_t seq = ++f->misses[sm], bit = (uint64_t)1 << (at & 63);
  int used = (f->recent_used[at >> 6] & bit) != 0;
  f->recent_used[at >> 6] |= bit;
  if (used && r->line1 == line + 1) {
    /* bucket b holds distances [2^b, 2^(b+1)); longer ones are not kept */
    int b = 63 - __builtin_clzll(seq - r->seq); /* seq > r->seq */
    if (b < GP_REUSE_BUCKETS)
      p->miss_reuse[b]++;
  }
  r->line1 = line + 1;
  r->seq = seq;
}

/* The bytes of one DRAM access. */
static uint32_t dram_unit(const gp_memsim_config *cfg) {
  return cfg->dram_access_bytes ? cfg->dram_access_bytes : 32;
}

/* The set bits of a sector mask's low four (a table: the shifts and adds
 * were 7 % of a streaming kernel's replay). */
static uint32_t popcount4(uint8_t m) {
  static const uint8_t bits[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  return bits[m & 0x0f];
}

/* DRAM traffic of one L2 fill or write-back of the sectors in `mask`, in
 * access-sized requests (a non-sectored L2 moves its whole lines,
 * gp_cache_fill_mask, unless bit 4 of mask says "these sectors only", as
 * for a write-through store), rounded up to whole accesses.  Worked out
 * once per mask into gp_func.dram_chunks (set_dram_chunks). */
static uint32_t dram_chunks_of(const gp_memsim_config *cfg, uint8_t mask) {
  uint8_t sectors = mask & 0x10 ? (uint8_t)(mask & 0x0f) : gp_cache_fill_mask(&cfg->l2, mask);
  uint64_t moved = (uint64_t)popcount4(sectors) * 32u;
  return (uint32_t)((moved + dram_unit(cfg) - 1) / dram_unit(cfg));
}

static void set_dram_chunks(gp_func *f) {
  uint32_t m;
  for (m = 0; m < 32; m++) {
    f->dram_chunks[m] = (uint8_t)dram_chunks_of(&f->cfg, (uint8_t)m);
    f->dram_bytes[m] = (uint64_t)f->dram_chunks[m] * dram_unit(&f->cfg);
  }
}

/* The requests of one L2 fill or write-back of `mask` (dram_chunks_of);
 * adds their bytes to *bytes. */
static uint64_t dram_chunks(const gp_func *f, uint8_t mask, uint64_t *bytes) {
  *bytes += f->dram_bytes[mask & 0x1f];
  return f->dram_chunks[mask & 0x1f];
}

/* A write of `mask` of `line` arriving at the L2 (a store, or a dirty L1
 * victim); write-through L2s pass it on to DRAM, dirty L2 victims go to
 * DRAM.  Returns the L2 result. */
static inline __attribute__((always_inline)) gp_cache_result l2_write(gp_func *f, gp_cache *l2,
                                                                        uint64_t line, uint8_t mask) {
  gp_cache_result res = gp_cache_access_inline(l2, line, mask, 1);
  f->out.l2_bytes += (uint64_t)popcount4(mask) * 32u;
  if (l2->evicted && l2->evicted_dirty)
    f->out.dram_requests += dram_chunks(f, l2->evicted_sectors, &f->out.dram_bytes_written);
  if (!f->cfg.l2.write_back || l2->sets == 0) /* write-through: the store's sectors */
    f->out.dram_requests += dram_chunks(f, (uint8_t)(mask | 0x10), &f->out.dram_bytes_written);
  return res;
}

/* Sets up L2 slice s at its first line (the rare path of l2_of).  The
 * slice counts as set up even when its cache refuses the configuration
 * (gp_cache_init leaves it empty, so freeing it is safe). */
static int set_up_slice(gp_func *f, uint32_t s, gp_error *err) {
  f->l2_ready[s] = 1;
  return gp_cache_init(&f->l2[s], &f->alloc, &f->slice, err);
}

/* Sets up SM sm at its first request: its L1 and its words of
 * recent_used (SMs a launch never uses are never touched: clearing every
 * SM's, and zeroing every L1 and slice record, was 1.5 M of the 16
 * launches of bfs-rodinia-sm80 on a100's 108 SMs). */
static int set_up_sm(gp_func *f, uint32_t sm, gp_error *err) {
  memset(f->recent_used + (size_t)sm * (GP_REUSE_TABLE / 64), 0,
         GP_REUSE_TABLE / 64 * sizeof *f->recent_used);
  f->l1_ready[sm] = 1;
  return gp_cache_init(&f->l1[sm], &f->alloc, &f->cfg.l1, err);
}

/* The L2 slice of `line` into *l2, set up at its first line; GP_ERR (err
 * set) when it cannot be. */
static inline int l2_of(gp_func *f, uint64_t line, gp_cache **l2, gp_error *err) {
  uint32_t s = gp_l2_slice_of(line, f->slices);
  if (!f->l2_ready[s] && set_up_slice(f, s, err) != GP_OK)
    return GP_ERR;
  *l2 = &f->l2[s];
  return GP_OK;
}

/* Whether class `op`'s requests go through the L1 (when it has one). */
static int goes_through_l1(const gp_func *f, int op) {
  return op == GP_OP_LD_LOCAL || op == GP_OP_ST_LOCAL || op == GP_OP_TEX ||
         ((op == GP_OP_LD_GLOBAL || op == GP_OP_ST_GLOBAL) && f->cfg.cache_global_in_l1);
}

/* Each class's PATH_* flags into f->class_path. */
static void set_class_paths(gp_func *f) {
  int c;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++) {
    int is_store = c == GP_OP_ST_GLOBAL || c == GP_OP_ST_LOCAL;
    f->class_path[c] = (uint8_t)((is_store ? PATH_STORE : 0) |
                                 (goes_through_l1(f, c) ? PATH_THROUGH_L1 : 0) |
                                 (!is_store && c != GP_OP_ATOM_GLOBAL ? PATH_NOTES_MISSES : 0));
  }
}

/* One line request of an instruction of class `op` on SM `sm` (is_store and
 * through_l1: the class path's flags, taken once per instruction);
 * returns the level that served it.  Stores go through a write-through L1
 * (updating a present line) to the L2, or stop in a write-back L1; a
 * write-allocating L2 absorbs a store (level L2), a write-through one sends
 * it to DRAM.  Returns -1 when the line's L2 slice cannot be set up. */
static inline __attribute__((always_inline)) int request(gp_func *f, int op, int is_store,
                                                         int through_l1, uint32_t sm, uint64_t line,
                                                         uint8_t mask, gp_error *err) {
  const gp_memsim_config *cfg = &f->cfg;
  gp_cache *l1 = &f->l1[sm], *l2;
  gp_cache_result res;
  f->out.l1_bytes += (uint64_t)popcount4(mask) * 32u;
  if (through_l1 && l1->sets > 0) {
    res = gp_cache_access_inline(l1, line, mask, is_store);
    if (l1->evicted && l1->evicted_dirty) {
      /* a write-back L1 keeps stores that never reached their slice */
      if (l2_of(f, l1->evicted_line, &l2, err) != GP_OK)
        return -1;
      l2_write(f, l2, l1->evicted_line, l1->evicted_sectors);
    }
    if (is_store && cfg->l1.write_back)
      return LEVEL_L1;
    if (!is_store && res == GP_CACHE_HIT)
      return LEVEL_L1;
    if (!is_store)
      mask = l1->missing; /* L2 is asked for the sectors L1 lacks */
  }
  if (l2_of(f, line, &l2, err) != GP_OK)
    return -1;
  if (is_store) {
    res = l2_write(f, l2, line, mask);
    return res == GP_CACHE_HIT || cfg->l2.write_back || l2->sets == 0 ? LEVEL_L2 : LEVEL_DRAM;
  }
  f->out.load_l1_misses++;
  f->out.mshr_requests += op != GP_OP_ATOM_GLOBAL;
  f->out.l2_bytes += (uint64_t)popcount4(mask) * 32u;
  res = gp_cache_access_inline(l2, line, mask, op == GP_OP_ATOM_GLOBAL);
  if (l2->evicted && l2->evicted_dirty)
    f->out.dram_requests += dram_chunks(f, l2->evicted_sectors, &f->out.dram_bytes_written);
  if (res == GP_CACHE_HIT)
    return LEVEL_L2;
  f->out.mshr_dram_requests += op != GP_OP_ATOM_GLOBAL;
  f->out.dram_requests += dram_chunks(f, l2->missing, &f->out.dram_bytes_read);
  return LEVEL_DRAM;
}

void gp_func_free(gp_func *f) {
  uint32_t s;
  if (f == NULL)
    return;
  if (f->l1 && f->l1_ready)
    for (s = 0; s < f->cfg.sms; s++)
      if (f->l1_ready[s])
        gp_cache_free(&f->l1[s]);
  if (f->l2 && f->l2_ready)
    for (s = 0; s < f->slices; s++)
      if (f->l2_ready[s])
        gp_cache_free(&f->l2[s]);
  gp_free(&f->alloc, f->l1, f->cfg.sms * sizeof *f->l1);
  gp_free(&f->alloc, f->l1_ready, f->cfg.sms);
  gp_free(&f->alloc, f->l2, f->slices * sizeof *f->l2);
  gp_free(&f->alloc, f->l2_ready, f->slices);
  gp_free(&f->alloc, f->kind, f->out.pc_count + 1);
  gp_free(&f->alloc, f->recent, (size_t)f->cfg.sms * GP_REUSE_TABLE * sizeof *f->recent);
  gp_free(&f->alloc, f->recent_used, (size_t)f->cfg.sms * GP_REUSE_TABLE / 64 * sizeof *f->recent_used);
  gp_free(&f->alloc, f->misses, f->cfg.sms * sizeof *f->misses);
  gp_memsim_result_free(&f->out, &f->alloc);
  gp_free(&f->alloc, f, sizeof *f);
}

/* Per-SM L1s and the L2 slices (l2.size_bytes split evenly), zeroed
 * per-PC counters.  SM 0's L1 and slice 0 are set up here (so a
 * configuration the cache refuses fails now), every other SM's L1 at its
 * first request and every other slice at the first request of one of its
 * lines (gp_func_access): a launch of a few blocks on a large GPU touches a
 * few SMs and lines, and setting up a hundred L1s and 80 slices it never
 * uses cost more than its replay (bfs-rodinia-sm80's 8-block launches on
 * a100's 108 SMs). */
int gp_func_new(gp_func **out, const gp_alloc *alloc, const gp_memsim_config *cfg,
                uint32_t pc_count, gp_error *err) {
  gp_func *f;
  int status = GP_OK;
  *out = NULL;
  if (cfg->sms == 0)
    return gp_error_set(err, "memsim: sms must be above 0");
  f = gp_malloc(alloc, sizeof *f);
  if (f == NULL)
    return gp_error_set(err, "memsim: out of memory");
  memset(f, 0, sizeof *f);
  f->alloc = *alloc;
  f->cfg = *cfg;
  f->slices = cfg->l2_slices ? cfg->l2_slices : 1;
  f->out.pc_count = pc_count;
  f->out.pcs = gp_malloc(alloc, (pc_count + 1) * sizeof *f->out.pcs);
  f->kind = gp_malloc(alloc, pc_count + 1);
  f->l1 = gp_malloc(alloc, cfg->sms * sizeof *f->l1);
  f->l1_ready = gp_malloc(alloc, cfg->sms);
  f->l2 = gp_malloc(alloc, f->slices * sizeof *f->l2);
  f->l2_ready = gp_malloc(alloc, f->slices);
  f->recent = gp_malloc(alloc, (size_t)cfg->sms * GP_REUSE_TABLE * sizeof *f->recent);
  f->recent_used = gp_malloc(alloc, (size_t)cfg->sms * GP_REUSE_TABLE / 64 * sizeof *f->recent_used);
  f->misses = gp_malloc(alloc, cfg->sms * sizeof *f->misses);
  if (f->l1_ready)
    memset(f->l1_ready, 0, cfg->sms);
  if (f->l2_ready)
    memset(f->l2_ready, 0, f->slices);
  if (f->misses)
    memset(f->misses, 0, cfg->sms * sizeof *f->misses);
  if (!f->out.pcs || !f->kind || !f->l1 || !f->l1_ready || !f->l2 || !f->l2_ready || !f->recent ||
      !f->recent_used || !f->misses) {
    gp_func_free(f);
    return gp_error_set(err, "memsim: out of memory");
  }
  memset(f->out.pcs, 0, (pc_count + 1) * sizeof *f->out.pcs);
  memset(f->kind, 0, pc_count + 1);
  f->slice = cfg->l2;
  set_dram_chunks(f);
  set_class_paths(f);
  f->slice.size_bytes = cfg->l2.size_bytes / f->slices;
  status = set_up_sm(f, 0, err);
  if (status == GP_OK)
    status = set_up_slice(f, 0, err);
  if (status != GP_OK) {
    gp_func_free(f);
    return GP_ERR;
  }
  *out = f;
  return GP_OK;
}

static int check_pc(const gp_func *f, uint32_t pc, gp_error *err) {
  if (pc >= f->out.pc_count)
    return gp_error_set(err, "memsim: PC index %u of %u", pc, f->out.pc_count);
  return GP_OK;
}

/* An instruction's requests (lines[0..n), masks) through request, with
 * the class path's store and L1 flags constants (access_lines calls it
 * with each of the four): the per-request tests of the flags, and the
 * registers the other paths' code held, were 21 M of stream_triad's 484.5
 * M replay at gtx660ti's base point.  Returns the slowest level, -1 on
 * failure. */
static inline __attribute__((always_inline)) int
request_lines(gp_func *f, gp_pc_memory *p, int op_class, int notes_misses, uint32_t sm,
              const uint64_t *lines, const uint8_t *masks, uint32_t n, int is_store, int through_l1,
              gp_error *err) {
  int worst = LEVEL_L1;
  const uint64_t *end = lines + n;
  for (; lines != end; lines++, masks++) {
    int level = request(f, op_class, is_store, through_l1, sm, *lines, *masks, err);
    if (level < 0)
      return -1;
    /* a load past its L1 (request counted it in load_l1_misses) */
    if (!is_store && notes_misses && level >= LEVEL_L2)
      note_miss(f, p, sm, *lines);
    if (level > worst)
      worst = level;
  }
  return worst;
}

/* gp_func_access past the checks of its SM and class, which the kernel
 * replay's visits pass by construction (an SM of the order, a class whose
 * instructions the order visits). */
static inline __attribute__((always_inline)) int
access_lines(gp_func *f, uint32_t pc, uint32_t sm, int op_class, const uint64_t *lines,
             const uint8_t *masks, uint32_t n, gp_error *err) {
  gp_pc_memory *p;
  int worst, path = f->class_path[op_class];
  uint64_t l1_misses_before = f->out.load_l1_misses, dram_before = f->out.dram_requests;
  int notes_misses = (path & PATH_NOTES_MISSES) != 0;
  if (check_pc(f, pc, err) != GP_OK)
    return GP_ERR;
  if (n == 0)
    return GP_OK;
  if (!f->l1_ready[sm] && set_up_sm(f, sm, err) != GP_OK)
    return GP_ERR;
  p = &f->out.pcs[pc];
  if (path & PATH_STORE)
    worst = path & PATH_THROUGH_L1
                ? request_lines(f, p, op_class, 0, sm, lines, masks, n, 1, 1, err)
                : request_lines(f, p, op_class, 0, sm, lines, masks, n, 1, 0, err);
  else
    worst = path & PATH_THROUGH_L1
                ? request_lines(f, p, op_class, notes_misses, sm, lines, masks, n, 0, 1, err)
                : request_lines(f, p, op_class, notes_misses, sm, lines, masks, n, 0, 0, err);
  if (worst < 0)
    return GP_ERR;
  f->kind[pc] = KIND_CACHE;
  p->instructions++;
  p->requests += n;
  p->l1_miss_requests += f->out.load_l1_misses - l1_misses_before;
  p->dram_requests += f->out.dram_requests - dram_before;
  if (worst == LEVEL_L1)
    p->l1_hits++;
  else if (worst == LEVEL_L2)
    p->l2_hits++;
  else
    p->dram++;
  return GP_OK;
}

/* access_lines as a call: for gp_func_access and the CC 1.x transactions;
 * the kernel replay's usual visit takes it inline (replay_visit: the call
 * and its eight arguments were 13 M of prepare_cost's replay). */
static __attribute__((noinline)) int access_lines_call(gp_func *f, uint32_t pc, uint32_t sm,
                                                       int op_class, const uint64_t *lines,
                                                       const uint8_t *masks, uint32_t n,
                                                       gp_error *err) {
  return access_lines(f, pc, sm, op_class, lines, masks, n, err);
}

int gp_func_access(gp_func *f, uint32_t pc, uint32_t sm, int op_class, const uint64_t *lines,
                   const uint8_t *masks, uint32_t n, gp_error *err) {
  if (check_pc(f, pc, err) != GP_OK)
    return GP_ERR;
  if (sm >= f->cfg.sms)
    return gp_error_set(err, "memsim: SM %u of %u", sm, f->cfg.sms);
  if (!gp_op_uses_cache(op_class))
    return gp_error_set(err, "memsim: class %s does not use the caches",
                        gp_op_class_name(op_class));
  return access_lines_call(f, pc, sm, op_class, lines, masks, n, err);
}

int gp_func_shared(gp_func *f, uint32_t pc, const uint64_t *offsets, uint32_t n,
                   uint32_t width, gp_error *err) {
  gp_pc_memory *p;
  uint32_t passes;
  if (check_pc(f, pc, err) != GP_OK)
    return GP_ERR;
  p = &f->out.pcs[pc];
  passes = gp_shared_passes(offsets, n, width, f->cfg.shared_banks, f->cfg.shared_bank_bytes);
  f->kind[pc] = KIND_SHARED;
  p->instructions++;
  p->shared_passes += passes;
  f->out.bank_conflicts += passes > 1 ? passes - 1 : 0;
  return GP_OK;
}

int gp_func_const(gp_func *f, uint32_t pc, gp_error *err) {
  if (check_pc(f, pc, err) != GP_OK)
    return GP_ERR;
  f->kind[pc] = KIND_CONST;
  f->out.pcs[pc].instructions++;
  f->out.pcs[pc].l1_hits++;
  return GP_OK;
}

static void add_stats(gp_cache_stats *sum, const gp_cache_stats *s) {
  sum->accesses += s->accesses, sum->hits += s->hits, sum->misses += s->misses;
  sum->sector_misses += s->sector_misses, sum->writebacks += s->writebacks;
}

/* A cache PC's AMAT (GPUMech Sec. V-B): l1 x L1 + l2 x L2 + dram x (L2 +
 * DRAM) over its instructions; stated once for the replay's result and the
 * sampler's extrapolated one (memsim_sample.c). */
double gp_pc_cache_amat(const gp_pc_memory *pc, const gp_memsim_config *cfg) {
  return ((double)pc->l1_hits * cfg->l1_latency + (double)pc->l2_hits * cfg->l2_latency +
          (double)pc->dram * (cfg->l2_latency + cfg->dram_latency)) /
         (double)pc->instructions;
}

/* AMAT per PC: cache PCs gp_pc_cache_amat; shared PCs the shared latency;
 * constant PCs the constant-cache latency.  Cache statistics summed over SMs
 * and slices. */
int gp_func_result(gp_func *f, gp_memsim_result *out, gp_error *err) {
  const gp_memsim_config *cfg = &f->cfg;
  uint32_t s, n = f->out.pc_count;
  *out = f->out;
  out->pcs = gp_malloc(&f->alloc, (n + 1) * sizeof *out->pcs);
  if (out->pcs == NULL)
    return gp_error_set(err, "memsim: out of memory");
  memcpy(out->pcs, f->out.pcs, (n + 1) * sizeof *out->pcs);
  for (s = 0; s < n; s++) {
    gp_pc_memory *pc = &out->pcs[s];
    if (f->kind[s] == KIND_CONST)
      pc->amat = cfg->const_latency;
    else if (f->kind[s] == KIND_SHARED)
      pc->amat = cfg->shared_latency;
    else if (pc->instructions > 0)
      pc->amat = gp_pc_cache_amat(pc, cfg);
  }
  memset(&out->l1, 0, sizeof out->l1);
  memset(&out->l2, 0, sizeof out->l2);
  for (s = 0; s < cfg->sms; s++)
    if (f->l1_ready[s])
      add_stats(&out->l1, &f->l1[s].stats);
  for (s = 0; s < f->slices; s++)
    if (f->l2_ready[s])
      add_stats(&out->l2, &f->l2[s].stats);
  return GP_OK;
}

/* gp_next_memory_record, inline in the preparation's scan of every warp
 * (a call a record was 7 M of prepare_cost's replay). */
static inline __attribute__((always_inline)) uint64_t next_record(const gp_kernel *k, uint64_t i,
                                                                 uint64_t end) {
  const uint32_t *mem = k->mem;
  for (; i + 4 <= end; i += 4) { /* four entries without a record AND to all ones */
    uint64_t a, b;
    memcpy(&a, mem + i, sizeof a);
    memcpy(&b, mem + i + 2, sizeof b);
    if ((a & b) != UINT64_MAX)
      break;
  }
  for (; i < end; i++)
    if (mem[i] != UINT32_MAX)
      return i;
  return end;
}

uint64_t gp_next_memory_record(const gp_kernel *k, uint64_t i, uint64_t end) {
  return next_record(k, i, end);
}

/* Next cache-using memory instruction of a warp at or after *cursor
 * (cached[c]: class c uses the caches). */
static int next_memory(const gp_kernel *k, const uint8_t *cached, uint64_t end, uint64_t *cursor) {
  uint64_t i;
  for (i = gp_next_memory_record(k, *cursor, end); i < end; i = gp_next_memory_record(k, i + 1, end))
    if (cached[k->op_class[i]]) {
      *cursor = i + 1;
      return 1;
    }
  *cursor = end;
  return 0;
}

/* ---------------------------------------------------------------------------
 * The replay order, stated once (GPUMech Sec. V as gpush reads it): thread
 * blocks go to SMs round-robin, every SM runs waves of blocks_per_sm blocks
 * (wave w's block b on SM s is block (w x blocks_per_sm + b) x sms + s),
 * and within a wave the warps of every SM's co-resident blocks -- SM by SM,
 * block by block, warp by warp -- take turns round-robin, one memory
 * instruction per turn; a warp with none left leaves the turn (the others
 * keep their order).
 *
 * Two walks take this order: the kernel's (gp_memsim_order: a warp's
 * instructions, scanned for the cache-using ones) and a preparation's
 * (gp_memsim_functional_prepared: a warp's visits).  A walk says where a
 * warp's positions start and end (range) and takes a warp's turn (turn);
 * walk_waves alone decides who goes when.  Both are inline with the walk's
 * functions known, so no turn pays a call through a pointer.
 * ------------------------------------------------------------------------- */

/* The warps of a wave still taking turns: warp x is at at[x] of its
 * positions [.., end[x]) and runs on SM sm[x]. */
typedef struct wave_warps {
  uint64_t *at, *end;
  uint32_t *sm;
} wave_warps;

/* A walk's warp range: warp g's positions [*at, *end). */
typedef void (*walk_range)(const void *walk, uint64_t g, uint64_t *at, uint64_t *end);
/* A walk's turn of warp x of the n in t: 1 when the warp takes turns
 * again, 0 when it has no position left, GP_ERR on failure. */
typedef int (*walk_turn)(void *walk, wave_warps *t, uint32_t x, uint32_t n);

/* Wave `wave` in the order: its warps in turn order (a warp without
 * positions leaves before its first turn), then their turns. */
static inline __attribute__((always_inline)) int
walk_wave(const gp_kernel *k, uint32_t sms, uint32_t blocks_per_sm, uint32_t wave, wave_warps *t,
          walk_range range, walk_turn turn, void *walk) {
  uint32_t n = 0, s, b, w;
  for (s = 0; s < sms; s++) {
    for (b = 0; b < blocks_per_sm; b++) {
      uint64_t block = ((uint64_t)wave * blocks_per_sm + b) * sms + s;
      if (block >= k->blocks)
        continue;
      for (w = 0; w < k->warps_per_block; w++) {
        range(walk, block * k->warps_per_block + w, &t->at[n], &t->end[n]);
        t->sm[n] = s;
        n += t->at[n] < t->end[n];
      }
    }
  }
  while (n > 0) {
    uint32_t x, kept = 0;
    for (x = 0; x < n; x++) {
      int again = turn(walk, t, x, n);
      if (again < 0)
        return GP_ERR;
      if (!again)
        continue;
      if (kept != x) /* a warp before it left: close the gap */
        t->at[kept] = t->at[x], t->end[kept] = t->end[x], t->sm[kept] = t->sm[x];
      kept++;
    }
    n = kept;
  }
  return GP_OK;
}

/* Waves [first, last) of the kernel in the order, on `sms` SMs of
 * blocks_per_sm blocks each (both above 0). */
static inline __attribute__((always_inline)) int
walk_wave_range(const gp_kernel *k, uint32_t sms, uint32_t blocks_per_sm, uint32_t first,
                uint32_t last, const gp_alloc *alloc, walk_range range, walk_turn turn,
                void *walk, gp_error *err) {
  uint64_t per_wave = (uint64_t)sms * blocks_per_sm * k->warps_per_block + 1;
  uint32_t w;
  wave_warps t;
  int status;
  t.at = gp_malloc(alloc, per_wave * sizeof *t.at);
  t.end = gp_malloc(alloc, per_wave * sizeof *t.end);
  t.sm = gp_malloc(alloc, per_wave * sizeof *t.sm);
  status = t.at && t.end && t.sm ? GP_OK : gp_error_set(err, "memsim: out of memory");
  for (w = first; w < last && status == GP_OK; w++)
    status = walk_wave(k, sms, blocks_per_sm, w, &t, range, turn, walk);
  gp_free(alloc, t.at, per_wave * sizeof *t.at);
  gp_free(alloc, t.end, per_wave * sizeof *t.end);
  gp_free(alloc, t.sm, per_wave * sizeof *t.sm);
  return status;
}

/* Every wave of the kernel in the order (walk_wave_range's). */
static inline __attribute__((always_inline)) int
walk_waves(const gp_kernel *k, uint32_t sms, uint32_t blocks_per_sm, const gp_alloc *alloc,
           walk_range range, walk_turn turn, void *walk, gp_error *err) {
  uint64_t per_sm_wave = (uint64_t)sms * blocks_per_sm;
  uint32_t waves = (uint32_t)((k->blocks + per_sm_wave - 1) / per_sm_wave);
  return walk_wave_range(k, sms, blocks_per_sm, 0, waves, alloc, range, turn, walk, err);
}

/* The kernel's walk (gp_memsim_order): a warp's positions are its
 * instructions; a turn visits the next cache-using one. */
typedef struct kernel_walk {
  const gp_kernel *k;
  uint8_t cached[GP_OP_CLASS_COUNT]; /* class c uses the caches */
  gp_memsim_visit visit;
  void *ctx;
} kernel_walk;

static inline void kernel_range(const void *walk, uint64_t g, uint64_t *at, uint64_t *end) {
  const gp_kernel *k = ((const kernel_walk *)walk)->k;
  *at = k->warp_start[g];
  *end = k->warp_start[g] + k->warp_len[g];
}

static inline int kernel_turn(void *walk, wave_warps *t, uint32_t x, uint32_t n) {
  kernel_walk *kw = walk;
  (void)n;
  if (!next_memory(kw->k, kw->cached, t->end[x], &t->at[x]))
    return 0;
  kw->visit(kw->ctx, t->at[x] - 1, t->sm[x]);
  return 1;
}

int gp_memsim_order(const gp_kernel *k, uint32_t sms, uint32_t blocks_per_sm,
                    const gp_alloc *alloc, gp_memsim_visit visit, void *ctx, gp_error *err) {
  kernel_walk kw;
  int c;
  if (sms == 0 || blocks_per_sm == 0)
    return gp_error_set(err, "memsim: sms and blocks_per_sm must be above 0");
  kw.k = k, kw.visit = visit, kw.ctx = ctx;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++)
    kw.cached[c] = (uint8_t)gp_op_uses_cache(c);
  return walk_waves(k, sms, blocks_per_sm, alloc, kernel_range, kernel_turn, &kw, err);
}

/* One cache-using memory instruction of a warp, as a replay visits it. */
typedef struct prep_visit {
  uint32_t line_start; /* its lines in k->lines / k->sector_masks */
  uint32_t pc;         /* k->pc_index */
  uint32_t record;     /* k->mem: its lanes, for the CC 1.x transactions */
  uint8_t line_count;
  uint8_t op_class;
  uint8_t width;
} prep_visit;

/* A static PC's on-chip instructions (shared memory, constant loads). */
typedef struct prep_onchip {
  uint64_t shared, constant; /* instructions */
  uint64_t passes;           /* bank passes of its shared ones (at p->banks) */
} prep_onchip;

struct gp_memsim_prep {
  gp_alloc alloc;
  const gp_kernel *k; /* identity only (gp_memsim_prep_of), never read */
  uint64_t insts;
  uint32_t warps, static_count;
  prep_visit *visits;   /* every warp's, warp by warp */
  size_t visit_cap;
  uint64_t *warp_first; /* warps + 1: warp g's visits [warp_first[g], warp_first[g + 1]) */
  uint64_t *shared_insts; /* shared-memory instructions with lanes, in order */
  size_t shared_count, shared_cap;
  prep_onchip *onchip;  /* static_count */
  uint8_t *onchip_kind; /* per PC: KIND_SHARED / KIND_CONST of its last on-chip
                           instruction (the one a replay's loop sets last) */
  uint32_t banks, bank_bytes; /* of `passes`; banks 0: not counted yet */
  uint64_t bank_conflicts;
};

void gp_memsim_prep_free(gp_memsim_prep *p) {
  if (p == NULL)
    return;
  gp_free(&p->alloc, p->visits, p->visit_cap * sizeof *p->visits);
  gp_free(&p->alloc, p->warp_first, ((size_t)p->warps + 1) * sizeof *p->warp_first);
  gp_free(&p->alloc, p->shared_insts, p->shared_cap * sizeof *p->shared_insts);
  gp_free(&p->alloc, p->onchip, ((size_t)p->static_count + 1) * sizeof *p->onchip);
  gp_free(&p->alloc, p->onchip_kind, (size_t)p->static_count + 1);
  gp_free(&p->alloc, p, sizeof *p);
}

int gp_memsim_prep_of(const gp_memsim_prep *p, const gp_kernel *k) {
  return p->k == k && p->insts == k->insts && p->warps == k->warps &&
         p->static_count == k->static_count;
}

/* Per class: whether its instructions reach the caches (cached), are
 * shared-memory accesses (shared), or stay on chip: shared or constant
 * (onchip). */
typedef struct prep_classes {
  uint8_t cached[GP_OP_CLASS_COUNT], shared[GP_OP_CLASS_COUNT], onchip[GP_OP_CLASS_COUNT];
  uint8_t onchip_lo, onchip_hi; /* the on-chip classes' range */
} prep_classes;

static void set_classes(prep_classes *t) {
  int c;
  t->onchip_lo = GP_OP_CLASS_COUNT, t->onchip_hi = 0;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++) {
    t->cached[c] = (uint8_t)gp_op_uses_cache(c);
    t->shared[c] = (uint8_t)gp_op_is_shared(c);
    t->onchip[c] = (uint8_t)(t->shared[c] || c == GP_OP_LD_CONST);
    if (t->onchip[c]) {
      t->onchip_lo = t->onchip_lo < c ? t->onchip_lo : (uint8_t)c;
      t->onchip_hi = (uint8_t)c;
    }
  }
}

_Static_assert(GP_OP_CLASS_COUNT < 128, "a class byte's top bit is free (next_onchip)");

/* The first instruction at or after i of an on-chip class (k->insts where
 * none).  Eight class bytes at a time: a byte b < 128 is in [lo, hi] when
 * b + 128 - lo has its top bit and b + 127 - hi has not (no carries: the
 * sums stay below 256); eight bytes without one are skipped, the others
 * read one by one.  The byte-by-byte scan was 1.6 M of the 91 M of
 * gpush gpumech bfs-rodinia-sm80 --config a100. */
static uint64_t next_onchip(const gp_kernel *k, const prep_classes *t, uint64_t i) {
  const uint64_t ones = 0x0101010101010101ull, top = ones << 7;
  const uint64_t add_lo = ones * (uint64_t)(128 - t->onchip_lo);
  const uint64_t add_hi = ones * (uint64_t)(127 - t->onchip_hi);
  const uint8_t *cls = k->op_class;
  uint64_t n = k->insts;
  while (i < n) {
    uint64_t end = n;
    if (i + 8 <= n) {
      uint64_t x;
      memcpy(&x, cls + i, sizeof x);
      if (((x + add_lo) & ~(x + add_hi) & top) == 0) {
        i += 8;
        continue;
      }
      end = i + 8;
    }
    for (; i < end; i++)
      if (t->onchip[cls[i]])
        return i;
  }
  return n;
}

/* The instructions of the classes `which` marks: the capacity the arrays
 * start with (the kernel's class counts, which hold every instruction of
 * a class, with or without a record; prep_fill_visits and prep_fill_onchip
 * grow them if a count falls short). */
static size_t class_total(const gp_kernel *k, const uint8_t *which) {
  size_t n = 0;
  int c;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++)
    n += which[c] ? (size_t)k->class_counts[c] : 0;
  return n;
}

/* The visit of cache-using memory instruction i (one with a record). */
static void visit_of(const gp_kernel *k, uint64_t i, prep_visit *v) {
  const gp_mem_record *m = &k->mem_records[k->mem[i]];
  v->line_start = m->line_start;
  v->line_count = m->line_count;
  v->pc = k->pc_index[i];
  v->record = k->mem[i];
  v->op_class = k->op_class[i];
  v->width = k->width[i];
}

/* Fills the visits warp by warp (the order a replay walks them). */
static int prep_fill_visits(gp_memsim_prep *p, const gp_kernel *k, const prep_classes *t) {
  uint64_t v = 0, i;
  uint32_t g;
  for (g = 0; g < k->warps; g++) {
    uint64_t end = k->warp_start[g] + k->warp_len[g];
    p->warp_first[g] = v;
    for (i = next_record(k, k->warp_start[g], end); i < end; i = next_record(k, i + 1, end)) {
      if (!t->cached[k->op_class[i]])
        continue;
      if (v == p->visit_cap &&
          gp_grow(&p->alloc, (void **)&p->visits, &p->visit_cap, v + 1, sizeof *p->visits) != GP_OK)
        return GP_ERR;
      visit_of(k, i, &p->visits[v++]);
    }
  }
  p->warp_first[k->warps] = v;
  return GP_OK;
}

/* The shared instructions and on-chip counts in instruction order (the
 * same pass a replay made before the preparation). */
static int prep_fill_onchip(gp_memsim_prep *p, const gp_kernel *k, const prep_classes *t) {
  uint64_t i, left = 0;
  int c;
  /* the on-chip instructions: a constant load counts with or without a
   * record, a shared access only with one; the loop ends after the last */
  for (c = 0; c < GP_OP_CLASS_COUNT; c++)
    left += t->onchip[c] ? k->class_counts[c] : 0;
  for (i = 0; left > 0 && (i = next_onchip(k, t, i)) < k->insts; i++) {
    uint32_t pc;
    c = k->op_class[i];
    left--;
    pc = k->pc_index[i];
    if (c == GP_OP_LD_CONST) {
      p->onchip[pc].constant++;
      p->onchip_kind[pc] = KIND_CONST;
    } else if (k->mem[i] != UINT32_MAX) {
      p->onchip[pc].shared++;
      p->onchip_kind[pc] = KIND_SHARED;
      if (p->shared_count == p->shared_cap &&
          gp_grow(&p->alloc, (void **)&p->shared_insts, &p->shared_cap, p->shared_count + 1,
                  sizeof *p->shared_insts) != GP_OK)
        return GP_ERR;
      p->shared_insts[p->shared_count++] = i;
    }
  }
  return GP_OK;
}

/* p's visits, warp by warp, their array sized from the kernel's class
 * counts (grown if one falls short).  Even a replay made once runs
 * through them: walking the kernel instead (gp_memsim_order's visits)
 * took 0.35 M fewer instructions of gpush gpumech bfs-rodinia-sm80
 * --config a100's 91 M, but bench gpumech --size 20's whole prediction
 * fell from about 57 to 45 M warp-inst/s (the walk scans every warp's
 * instructions in turn, without the visits' prefetches). */
static int prep_build_visits(gp_memsim_prep *p, const gp_kernel *k, const prep_classes *t) {
  p->visit_cap = class_total(k, t->cached);
  p->visits = gp_malloc(&p->alloc, p->visit_cap * sizeof *p->visits);
  p->warp_first = gp_malloc(&p->alloc, ((size_t)k->warps + 1) * sizeof *p->warp_first);
  return p->visits && p->warp_first ? prep_fill_visits(p, k, t) : GP_ERR;
}

/* A kernel's replay order and on-chip counts, its arrays sized from the
 * kernel's class counts. */
int gp_memsim_prep_new(gp_memsim_prep **out, const gp_kernel *k, const gp_alloc *alloc,
                       gp_error *err) {
  gp_memsim_prep *p;
  prep_classes t;
  *out = NULL;
  set_classes(&t);
  p = gp_malloc(alloc, sizeof *p);
  if (p == NULL)
    return gp_error_set(err, "memsim: out of memory");
  memset(p, 0, sizeof *p);
  p->alloc = *alloc;
  p->k = k, p->insts = k->insts, p->warps = k->warps, p->static_count = k->static_count;
  p->shared_cap = class_total(k, t.shared);
  /* gp_malloc takes 0 bytes as 1: the frees pass the capacities alike */
  p->shared_insts = gp_malloc(alloc, p->shared_cap * sizeof *p->shared_insts);
  p->onchip = gp_malloc(alloc, ((size_t)k->static_count + 1) * sizeof *p->onchip);
  p->onchip_kind = gp_malloc(alloc, (size_t)k->static_count + 1);
  if (!p->shared_insts || !p->onchip || !p->onchip_kind) {
    gp_memsim_prep_free(p);
    return gp_error_set(err, "memsim: out of memory");
  }
  memset(p->onchip, 0, ((size_t)k->static_count + 1) * sizeof *p->onchip);
  memset(p->onchip_kind, KIND_NONE, (size_t)k->static_count + 1);
  if (prep_fill_onchip(p, k, &t) != GP_OK || prep_build_visits(p, k, &t) != GP_OK) {
    gp_memsim_prep_free(p);
    return gp_error_set(err, "memsim: out of memory");
  }
  *out = p;
  return GP_OK;
}

/* The bank passes of p's shared instructions at cfg's banks, per PC and
 * as conflicts (kept in p until the banks change). */
static void prep_passes(gp_memsim_prep *p, const gp_kernel *k, const gp_memsim_config *cfg) {
  uint64_t s;
  uint32_t pc;
  if (p->banks != 0 && p->banks == cfg->shared_banks && p->bank_bytes == cfg->shared_bank_bytes)
    return;
  for (pc = 0; pc < p->static_count; pc++)
    p->onchip[pc].passes = 0;
  p->bank_conflicts = 0;
  for (s = 0; s < p->shared_count; s++) {
    uint64_t i = p->shared_insts[s];
    const gp_mem_record *m = &k->mem_records[k->mem[i]];
    uint32_t passes = gp_shared_passes(GP_MEM_LANES(k, m), m->addr_count, k->width[i],
                                       cfg->shared_banks, cfg->shared_bank_bytes);
    p->onchip[k->pc_index[i]].passes += passes;
    p->bank_conflicts += passes > 1 ? passes - 1 : 0;
  }
  /* a configuration of 0 banks counts again every time (never equal) */
  p->banks = cfg->shared_banks, p->bank_bytes = cfg->shared_bank_bytes;
}

/* The on-chip instructions' counts into f (what gp_func_shared and
 * gp_func_const add per instruction, added per PC). */
static void add_onchip(gp_func *f, const gp_memsim_prep *p) {
  uint32_t pc;
  for (pc = 0; pc < p->static_count; pc++) {
    const prep_onchip *o = &p->onchip[pc];
    gp_pc_memory *out = &f->out.pcs[pc];
    if (p->onchip_kind[pc] == KIND_NONE)
      continue;
    f->kind[pc] = p->onchip_kind[pc];
    out->instructions += o->shared + o->constant;
    out->l1_hits += o->constant;
    out->shared_passes += o->passes;
  }
  f->out.bank_conflicts += p->bank_conflicts;
}

/* One visit's requests through f on SM sm (requests_of's: CC 1.x
 * transactions for global and local accesses, else the trace's lines).
 * Inline in the wave's loop (a call a visit was 1 % of a replay). */
static inline __attribute__((always_inline)) int replay_visit(gp_func *f, const gp_kernel *k,
                                                             const prep_visit *v, uint32_t sm,
                                                             gp_error *err) {
  int c = v->op_class;
  if (f->cfg.cc1x && (c == GP_OP_LD_GLOBAL || c == GP_OP_ST_GLOBAL || c == GP_OP_ATOM_GLOBAL ||
                      c == GP_OP_LD_LOCAL || c == GP_OP_ST_LOCAL)) {
    const gp_mem_record *m = &k->mem_records[v->record];
    uint64_t lines[32];
    uint8_t masks[32];
    uint32_t n = gp_cc1x_requests_rule(GP_MEM_LANES(k, m), m->addr_count, v->width, f->cfg.cc1x,
                                       lines, masks);
    return access_lines_call(f, v->pc, sm, c, lines, masks, n, err);
  }
  return access_lines(f, v->pc, sm, c, k->lines + v->line_start, k->sector_masks + v->line_start,
                      v->line_count, err);
}

/* A preparation's walk (the replay): a warp's positions are its visits;
 * a turn replays the next one through f. */
typedef struct prep_walk {
  gp_func *f;
  const gp_kernel *k;
  const gp_memsim_prep *p;
  gp_error *err;
} prep_walk;

static inline void prep_range(const void *walk, uint64_t g, uint64_t *at, uint64_t *end) {
  const gp_memsim_prep *p = ((const prep_walk *)walk)->p;
  *at = p->warp_first[g];
  *end = p->warp_first[g + 1];
}

static inline __attribute__((always_inline)) int prep_turn(void *walk, wave_warps *t, uint32_t x,
                                                           uint32_t n) {
  prep_walk *pw = walk;
  const gp_kernel *k = pw->k;
  const prep_visit *visits = pw->p->visits;
  /* each warp's visits and lines are a stream of their own, hundreds in
   * turn: fetch the next warp's record and the one after's ahead (a
   * replay waited on them for about a tenth of its time) */
  if (x + 2 < n)
    __builtin_prefetch(&visits[t->at[x + 2]]);
  if (x + 1 < n) {
    const prep_visit *next = &visits[t->at[x + 1]];
    __builtin_prefetch(k->lines + next->line_start);
    __builtin_prefetch(k->sector_masks + next->line_start);
  }
  if (replay_visit(pw->f, k, &visits[t->at[x]], t->sm[x], pw->err) != GP_OK)
    return GP_ERR;
  return ++t->at[x] != t->end[x];
}

/* The checks both prepared replays (whole and carried) make before they
 * replay: an empty result, a configuration with SMs and blocks, the
 * preparation of this kernel. */
static int check_prepared_replay(const gp_kernel *k, const gp_memsim_prep *p,
                                 const gp_memsim_config *cfg, gp_memsim_result *out,
                                 gp_error *err) {
  memset(out, 0, sizeof *out);
  if (cfg->sms == 0 || cfg->blocks_per_sm == 0)
    return gp_error_set(err, "memsim: sms and blocks_per_sm must be above 0");
  if (!gp_memsim_prep_of(p, k))
    return gp_error_set(err, "memsim: the prepared replay is of another kernel");
  return GP_OK;
}

int gp_memsim_functional_prepared(const gp_kernel *k, gp_memsim_prep *p,
                                  const gp_memsim_config *cfg, const gp_alloc *alloc,
                                  gp_memsim_result *out, gp_error *err) {
  gp_func *f;
  prep_walk pw;
  int status;
  if (check_prepared_replay(k, p, cfg, out, err) != GP_OK)
    return GP_ERR;
  if (gp_func_new(&f, alloc, cfg, k->static_count, err) != GP_OK)
    return GP_ERR;
  pw.f = f, pw.k = k, pw.p = p, pw.err = err;
  status = walk_waves(k, cfg->sms, cfg->blocks_per_sm, alloc, prep_range, prep_turn, &pw, err);
  if (status == GP_OK) {
    /* shared-memory and constant instructions: order does not matter */
    prep_passes(p, k, cfg);
    add_onchip(f, p);
    status = gp_func_result(f, out, err);
  }
  gp_func_free(f);
  return status;
}

/* A gp_func of f's shape, its arrays allocated but not filled and no cache
 * set up (for func_copy_into). */
static gp_func *func_shell(const gp_func *f, gp_error *err) {
  size_t pcs = (size_t)f->out.pc_count + 1, recent = (size_t)f->cfg.sms * GP_REUSE_TABLE;
  gp_func *g = gp_malloc(&f->alloc, sizeof *g);
  if (g == NULL) {
    gp_error_set(err, "memsim: out of memory");
    return NULL;
  }
  *g = *f;
  g->out.pcs = gp_malloc(&f->alloc, pcs * sizeof *g->out.pcs);
  g->kind = gp_malloc(&f->alloc, pcs);
  g->l1 = gp_malloc(&f->alloc, f->cfg.sms * sizeof *g->l1);
  g->l1_ready = gp_malloc(&f->alloc, f->cfg.sms);
  g->l2 = gp_malloc(&f->alloc, f->slices * sizeof *g->l2);
  g->l2_ready = gp_malloc(&f->alloc, f->slices);
  g->recent = gp_malloc(&f->alloc, recent * sizeof *g->recent);
  g->recent_used = gp_malloc(&f->alloc, recent / 64 * sizeof *g->recent_used);
  g->misses = gp_malloc(&f->alloc, f->cfg.sms * sizeof *g->misses);
  if (g->l1_ready) /* no cache of g's to free until one is copied */
    memset(g->l1_ready, 0, f->cfg.sms);
  if (g->l2_ready)
    memset(g->l2_ready, 0, f->slices);
  if (!g->out.pcs || !g->kind || !g->l1 || !g->l1_ready || !g->l2 || !g->l2_ready || !g->recent ||
      !g->recent_used || !g->misses) {
    gp_func_free(g);
    gp_error_set(err, "memsim: out of memory");
    return NULL;
  }
  return g;
}

/* Copies cache `from` (ready: set up) into `to` (its ready flag *to_ready),
 * reusing to's block where it has one. */
static int copy_cache(gp_cache *to, uint8_t *to_ready, const gp_cache *from, uint8_t ready,
                      gp_error *err) {
  if (!ready) {
    if (*to_ready)
      gp_cache_free(to);
    *to_ready = 0;
    return GP_OK;
  }
  if (gp_cache_copy(to, from, *to_ready, err) != GP_OK) {
    *to_ready = 0; /* to holds no allocation */
    return GP_ERR;
  }
  *to_ready = 1;
  return GP_OK;
}

/* *gp = a copy of f (free with gp_func_free); *gp, when not NULL, is an
 * earlier copy of a model of f's configuration whose arrays and cache
 * blocks are reused (a sampled replay copies its model before each
 * prefix's partial wave: allocating them anew cost more than the waves the
 * copy saves).  On failure *gp is freed and NULL. */
static int func_copy_into(gp_func **gp, const gp_func *f, gp_error *err) {
  size_t pcs = (size_t)f->out.pc_count + 1;
  uint32_t s;
  int status = GP_OK;
  gp_func *g = *gp, kept;
  if (g == NULL && (g = func_shell(f, err)) == NULL)
    return GP_ERR;
  *gp = g;
  kept = *g;
  *g = *f;
  g->out.pcs = kept.out.pcs, g->kind = kept.kind, g->l1 = kept.l1, g->l1_ready = kept.l1_ready;
  g->l2 = kept.l2, g->l2_ready = kept.l2_ready, g->recent = kept.recent;
  g->recent_used = kept.recent_used, g->misses = kept.misses;
  memcpy(g->out.pcs, f->out.pcs, pcs * sizeof *g->out.pcs);
  memcpy(g->kind, f->kind, pcs);
  memcpy(g->misses, f->misses, f->cfg.sms * sizeof *g->misses);
  for (s = 0; s < f->cfg.sms && status == GP_OK; s++) {
    size_t word, first = (size_t)s * (GP_REUSE_TABLE / 64);
    status = copy_cache(&g->l1[s], &g->l1_ready[s], &f->l1[s], f->l1_ready[s], err);
    if (status != GP_OK || !f->l1_ready[s])
      continue;
    /* an SM's recent misses are read only once it is set up, and an entry
     * only once its bit is set: the entries written so far are copied (a
     * sample's few thousand of the 4,096 x SMs) */
    memcpy(g->recent_used + first, f->recent_used + first,
           GP_REUSE_TABLE / 64 * sizeof *g->recent_used);
    for (word = first; word < first + GP_REUSE_TABLE / 64; word++) {
      uint64_t bits = f->recent_used[word];
      while (bits) {
        size_t at = word * 64 + (size_t)__builtin_ctzll(bits);
        g->recent[at] = f->recent[at];
        bits &= bits - 1;
      }
    }
  }
  for (s = 0; s < f->slices && status == GP_OK; s++)
    status = copy_cache(&g->l2[s], &g->l2_ready[s], &f->l2[s], f->l2_ready[s], err);
  if (status != GP_OK) {
    gp_func_free(g);
    *gp = NULL;
    return GP_ERR;
  }
  return GP_OK;
}

struct gp_memsim_carry {
  gp_func *f;            /* after `waves` full waves; NULL: none yet */
  gp_func *scratch;      /* f's copy for a partial wave (func_copy_into) */
  gp_memsim_config cfg;  /* f's configuration, byte for byte as given */
  const gp_kernel *base; /* the kernel whose prefixes they are */
  uint32_t waves;
};

gp_memsim_carry *gp_memsim_carry_new(void) {
  gp_memsim_carry *c = malloc(sizeof *c);
  if (c)
    memset(c, 0, sizeof *c);
  return c;
}

void gp_memsim_carry_free(gp_memsim_carry *c) {
  if (c == NULL)
    return;
  gp_func_free(c->f);
  gp_func_free(c->scratch);
  free(c);
}

/* Whether the carry's full waves are the first waves of k at cfg: made of
 * a prefix of the same kernel, at a configuration of the same bytes (one
 * that differs only in its padding starts again: slower, never wrong), no
 * more of them than k has. */
static int carry_fits(const gp_memsim_carry *c, const gp_kernel *k, const gp_memsim_config *cfg,
                      uint32_t full_waves) {
  const gp_kernel *base = k->base ? k->base : k;
  return c->f != NULL && c->base == base && memcmp(&c->cfg, cfg, sizeof *cfg) == 0 &&
         c->f->out.pc_count == k->static_count && c->waves <= full_waves;
}

int gp_memsim_functional_carried(const gp_kernel *k, gp_memsim_prep *p,
                                 const gp_memsim_config *cfg, gp_memsim_carry *carry,
                                 const gp_alloc *alloc, gp_memsim_result *out, gp_error *err) {
  uint64_t per_sm_wave = (uint64_t)cfg->sms * cfg->blocks_per_sm;
  uint32_t full, waves;
  gp_func *g;
  prep_walk pw;
  int status;
  if (check_prepared_replay(k, p, cfg, out, err) != GP_OK)
    return GP_ERR;
  full = (uint32_t)(k->blocks / per_sm_wave);
  waves = (uint32_t)((k->blocks + per_sm_wave - 1) / per_sm_wave);
  if (!carry_fits(carry, k, cfg, full)) {
    gp_func_free(carry->f);
    gp_func_free(carry->scratch);
    carry->f = carry->scratch = NULL;
    if (gp_func_new(&carry->f, alloc, cfg, k->static_count, err) != GP_OK)
      return GP_ERR;
    carry->base = k->base ? k->base : k;
    memcpy(&carry->cfg, cfg, sizeof *cfg); /* its padding too: carry_fits compares bytes */
    carry->waves = 0;
  }
  pw.k = k, pw.p = p, pw.err = err;
  pw.f = carry->f;
  status = walk_wave_range(k, cfg->sms, cfg->blocks_per_sm, carry->waves, full, alloc, prep_range,
                           prep_turn, &pw, err);
  if (status != GP_OK) { /* the carry is part-way through a wave: not reused */
    gp_func_free(carry->f);
    carry->f = NULL;
    return GP_ERR;
  }
  carry->waves = full;
  if (func_copy_into(&carry->scratch, carry->f, err) != GP_OK)
    return GP_ERR;
  g = carry->scratch;
  pw.f = g;
  status = walk_wave_range(k, cfg->sms, cfg->blocks_per_sm, full, waves, alloc, prep_range,
                           prep_turn, &pw, err);
  if (status == GP_OK) {
    prep_passes(p, k, cfg);
    add_onchip(g, p);
    status = gp_func_result(g, out, err);
  }
  return status;
}

/* A replay without a kept preparation: one made for it. */
int gp_memsim_functional(const gp_kernel *k, const gp_memsim_config *cfg,
                         const gp_alloc *alloc, gp_memsim_result *out, gp_error *err) {
  gp_memsim_prep *p;
  int status;
  memset(out, 0, sizeof *out);
  if (cfg->sms == 0 || cfg->blocks_per_sm == 0)
    return gp_error_set(err, "memsim: sms and blocks_per_sm must be above 0");
  if (gp_memsim_prep_new(&p, k, alloc, err) != GP_OK)
    return GP_ERR;
  status = gp_memsim_functional_prepared(k, p, cfg, alloc, out, err);
  gp_memsim_prep_free(p);
  return status;
}

void gp_memsim_result_free(gp_memsim_result *r, const gp_alloc *alloc) {
  gp_free(alloc, r->pcs, (r->pc_count + 1) * sizeof *r->pcs);
  r->pcs = NULL;
}
