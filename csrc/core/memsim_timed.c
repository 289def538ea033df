/*
 * memsim_timed.c -- when does each memory request return?
 *
 * Event-driven: every resource keeps the cycle it is next free, so a request
 * costs a few comparisons and no cycle is simulated when nothing happens.
 *  - L1 (per SM): tag lookup at issue; a hit returns after l1_latency.
 *  - MSHRs (per SM): an L1-missing load takes an entry until its data
 *    returns.  A request to a line already outstanding merges and returns
 *    with it.  When all entries are busy the request waits for the earliest
 *    release (that wait is counted as an MSHR-full stall); the rest of the
 *    instruction's requests queue behind it in order.
 *  - L2 slices: a slice accepts one request every l2_interval cycles; an L2
 *    hit returns l2_latency after its slice accepted it.
 *  - DRAM channels (line index modulo channels): a transfer of the missing
 *    bytes occupies the channel for bytes / (bandwidth per channel); the
 *    data returns l2_latency + dram_latency after the transfer ends.  Dirty
 *    L2 evictions occupy the channel too.  Once a channel's queue is full, N
 *    requests of S bytes take N x S / B cycles.
 *  - Stores do not take MSHRs; they complete when their slice accepts them.
 * Tags are updated in submission order (no timing inside the tag state), so
 * more MSHRs or bandwidth only moves returns earlier, never changes hits.
 */
#include "memsim.h"

#include <string.h>

/* One SM's MSHRs: entries, a min-heap of busy entries by release time (so
 * retiring costs O(log n)), a free list, and a line -> entry hash table
 * (open addressing, backward-shift deletion) to find merges in O(1). */
typedef struct mshr_file {
  uint64_t *line;      /* per entry */
  double *release;     /* per entry */
  uint32_t *heap;      /* busy entries, earliest release first */
  uint32_t heap_size;
  uint32_t *free_list;
  uint32_t free_count;
  uint64_t *keys;      /* hash: line + 1, 0 = empty */
  uint32_t *values;    /* hash: entry */
  uint32_t hash_cap;   /* power of two, at least twice the entries */
} mshr_file;

struct gp_timed {
  gp_alloc alloc;
  gp_timed_config cfg;
  gp_cache *l1, *l2;
  mshr_file *mshrs;       /* per SM */
  double *slice_free, *channel_free;
  double last_now;
  gp_timed_stats stats;
};

static void mshr_file_free(const gp_alloc *a, mshr_file *f, uint32_t n) {
  gp_free(a, f->line, n * sizeof *f->line);
  gp_free(a, f->release, n * sizeof *f->release);
  gp_free(a, f->heap, n * sizeof *f->heap);
  gp_free(a, f->free_list, n * sizeof *f->free_list);
  gp_free(a, f->keys, f->hash_cap * sizeof *f->keys);
  gp_free(a, f->values, f->hash_cap * sizeof *f->values);
}

static int mshr_file_init(const gp_alloc *a, mshr_file *f, uint32_t n) {
  uint32_t i;
  memset(f, 0, sizeof *f);
  f->hash_cap = 4;
  while (f->hash_cap < 2 * n)
    f->hash_cap *= 2;
  f->line = gp_malloc(a, n * sizeof *f->line);
  f->release = gp_malloc(a, n * sizeof *f->release);
  f->heap = gp_malloc(a, n * sizeof *f->heap);
  f->free_list = gp_malloc(a, n * sizeof *f->free_list);
  f->keys = gp_malloc(a, f->hash_cap * sizeof *f->keys);
  f->values = gp_malloc(a, f->hash_cap * sizeof *f->values);
  if (!f->line || !f->release || !f->heap || !f->free_list || !f->keys || !f->values)
    return GP_ERR;
  memset(f->keys, 0, f->hash_cap * sizeof *f->keys);
  for (i = 0; i < n; i++)
    f->free_list[i] = n - 1 - i;
  f->free_count = n;
  return GP_OK;
}

static uint32_t hash_slot(const mshr_file *f, uint64_t line) {
  return (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> 32) & (f->hash_cap - 1);
}

static int64_t hash_find(const mshr_file *f, uint64_t line) {
  uint32_t h = hash_slot(f, line);
  while (f->keys[h] != 0) {
    if (f->keys[h] == line + 1)
      return f->values[h];
    h = (h + 1) & (f->hash_cap - 1);
  }
  return -1;
}

static void hash_put(mshr_file *f, uint64_t line, uint32_t entry) {
  uint32_t h = hash_slot(f, line);
  while (f->keys[h] != 0 && f->keys[h] != line + 1)
    h = (h + 1) & (f->hash_cap - 1);
  f->keys[h] = line + 1;
  f->values[h] = entry;
}

/* Linear-probing deletion by backward shift: later keys of the same run
 * move up so lookups never stop early at the hole. */
static void hash_delete(mshr_file *f, uint64_t line) {
  uint32_t mask = f->hash_cap - 1, h = hash_slot(f, line), next;
  while (f->keys[h] != line + 1) {
    if (f->keys[h] == 0)
      return;
    h = (h + 1) & mask;
  }
  for (next = (h + 1) & mask; f->keys[next] != 0; next = (next + 1) & mask) {
    uint32_t home = hash_slot(f, f->keys[next] - 1);
    /* move keys[next] into the hole unless its home lies in (h, next] */
    if (((next - home) & mask) >= ((next - h) & mask)) {
      f->keys[h] = f->keys[next];
      f->values[h] = f->values[next];
      h = next;
    }
  }
  f->keys[h] = 0;
}

static void heap_push(mshr_file *f, uint32_t entry) {
  uint32_t i = f->heap_size++;
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (f->release[f->heap[parent]] <= f->release[entry])
      break;
    f->heap[i] = f->heap[parent];
    i = parent;
  }
  f->heap[i] = entry;
}

static uint32_t heap_pop(mshr_file *f) {
  uint32_t top = f->heap[0], last = f->heap[--f->heap_size], i = 0;
  for (;;) {
    uint32_t child = 2 * i + 1;
    if (child >= f->heap_size)
      break;
    if (child + 1 < f->heap_size && f->release[f->heap[child + 1]] < f->release[f->heap[child]])
      child++;
    if (f->release[last] <= f->release[f->heap[child]])
      break;
    f->heap[i] = f->heap[child];
    i = child;
  }
  if (f->heap_size > 0)
    f->heap[i] = last;
  return top;
}

void gp_timed_free(gp_timed *t) {
  uint32_t i, slices;
  if (t == NULL)
    return;
  slices = t->cfg.l2_slices ? t->cfg.l2_slices : 1;
  if (t->l1)
    for (i = 0; i < t->cfg.sms; i++)
      gp_cache_free(&t->l1[i]);
  if (t->l2)
    for (i = 0; i < slices; i++)
      gp_cache_free(&t->l2[i]);
  gp_free(&t->alloc, t->l1, t->cfg.sms * sizeof *t->l1);
  gp_free(&t->alloc, t->l2, slices * sizeof *t->l2);
  if (t->mshrs)
    for (i = 0; i < t->cfg.sms; i++)
      mshr_file_free(&t->alloc, &t->mshrs[i], t->cfg.mshrs_per_sm);
  gp_free(&t->alloc, t->mshrs, t->cfg.sms * sizeof *t->mshrs);
  gp_free(&t->alloc, t->slice_free, slices * sizeof *t->slice_free);
  gp_free(&t->alloc, t->channel_free, t->cfg.dram_channels * sizeof *t->channel_free);
  gp_free(&t->alloc, t, sizeof *t);
}

int gp_timed_new(gp_timed **out, const gp_alloc *alloc, const gp_timed_config *cfg,
                 gp_error *err) {
  gp_timed *t;
  uint32_t i, slices = cfg->l2_slices ? cfg->l2_slices : 1;
  gp_cache_config slice = cfg->l2;
  int status = GP_OK;
  if (cfg->sms == 0 || cfg->mshrs_per_sm == 0 || cfg->dram_channels == 0 ||
      !(cfg->dram_bytes_per_cycle > 0))
    return gp_error_set(err, "memsim: sms, mshrs, DRAM channels and bandwidth must be above 0");
  t = gp_malloc(alloc, sizeof *t);
  if (t == NULL)
    return gp_error_set(err, "memsim: out of memory");
  memset(t, 0, sizeof *t);
  t->alloc = *alloc;
  t->cfg = *cfg;
  t->l1 = gp_malloc(alloc, cfg->sms * sizeof *t->l1);
  t->l2 = gp_malloc(alloc, slices * sizeof *t->l2);
  t->mshrs = gp_malloc(alloc, cfg->sms * sizeof *t->mshrs);
  t->slice_free = gp_malloc(alloc, slices * sizeof *t->slice_free);
  t->channel_free = gp_malloc(alloc, cfg->dram_channels * sizeof *t->channel_free);
  if (t->mshrs)
    memset(t->mshrs, 0, cfg->sms * sizeof *t->mshrs);
  if (!t->l1 || !t->l2 || !t->mshrs || !t->slice_free || !t->channel_free) {
    gp_timed_free(t);
    return gp_error_set(err, "memsim: out of memory");
  }
  memset(t->l1, 0, cfg->sms * sizeof *t->l1);
  memset(t->l2, 0, slices * sizeof *t->l2);
  for (i = 0; i < cfg->sms && status == GP_OK; i++)
    if (mshr_file_init(alloc, &t->mshrs[i], cfg->mshrs_per_sm) != GP_OK)
      status = gp_error_set(err, "memsim: out of memory");
  for (i = 0; i < slices; i++)
    t->slice_free[i] = 0;
  for (i = 0; i < cfg->dram_channels; i++)
    t->channel_free[i] = 0;
  slice.size_bytes = cfg->l2.size_bytes / slices;
  for (i = 0; i < cfg->sms && status == GP_OK; i++)
    status = gp_cache_init(&t->l1[i], alloc, &cfg->l1, err);
  for (i = 0; i < slices && status == GP_OK; i++)
    status = gp_cache_init(&t->l2[i], alloc, &slice, err);
  if (status != GP_OK) {
    gp_timed_free(t);
    return GP_ERR;
  }
  *out = t;
  return GP_OK;
}

const gp_timed_stats *gp_timed_stats_of(gp_timed *t) {
  uint32_t i, slices = t->cfg.l2_slices ? t->cfg.l2_slices : 1;
  memset(&t->stats.l1, 0, sizeof t->stats.l1);
  memset(&t->stats.l2, 0, sizeof t->stats.l2);
  for (i = 0; i < t->cfg.sms; i++) {
    t->stats.l1.accesses += t->l1[i].stats.accesses, t->stats.l1.hits += t->l1[i].stats.hits;
    t->stats.l1.misses += t->l1[i].stats.misses;
  }
  for (i = 0; i < slices; i++) {
    t->stats.l2.accesses += t->l2[i].stats.accesses, t->stats.l2.hits += t->l2[i].stats.hits;
    t->stats.l2.misses += t->l2[i].stats.misses, t->stats.l2.writebacks += t->l2[i].stats.writebacks;
  }
  return &t->stats;
}

static uint32_t sectors_of(uint8_t m) {
  return (m & 1u) + ((m >> 1) & 1u) + ((m >> 2) & 1u) + ((m >> 3) & 1u);
}

/* Occupies DRAM channel `c` from `ready` for `bytes`; returns when it ends. */
static double dram_transfer(gp_timed *t, uint64_t line, double ready, uint64_t bytes) {
  uint32_t c = (uint32_t)(line % t->cfg.dram_channels);
  double per_channel = t->cfg.dram_bytes_per_cycle / t->cfg.dram_channels;
  double start = ready > t->channel_free[c] ? ready : t->channel_free[c];
  double end = start + (double)bytes / per_channel;
  t->channel_free[c] = end;
  if (end > t->stats.last_dram_done)
    t->stats.last_dram_done = end;
  return end;
}

/* Bytes an L2 fill or write-back moves, in whole DRAM accesses. */
static uint64_t fill_bytes(const gp_timed *t, uint8_t mask) {
  uint32_t unit = t->cfg.dram_access_bytes ? t->cfg.dram_access_bytes : 32;
  uint64_t raw = t->cfg.l2.sectored ? (uint64_t)sectors_of(mask) * 32u
                                    : (t->cfg.l2.line_bytes ? t->cfg.l2.line_bytes : 128);
  return (raw + unit - 1) / unit * unit;
}

/* The L2 and DRAM part of a request ready to leave the SM at `ready`;
 * returns when its data is back (stores: when the slice accepted it). */
static double l2_and_dram(gp_timed *t, uint64_t line, uint8_t mask, double ready, int is_store) {
  uint32_t slices = t->cfg.l2_slices ? t->cfg.l2_slices : 1;
  uint32_t s = gp_l2_slice_of(line, slices);
  gp_cache *l2 = &t->l2[s];
  uint64_t writebacks = l2->stats.writebacks;
  double start = ready > t->slice_free[s] ? ready : t->slice_free[s];
  gp_cache_result res;
  t->slice_free[s] = start + t->cfg.l2_interval;
  res = gp_cache_access(l2, line, mask, is_store);
  if (l2->stats.writebacks > writebacks) {
    uint64_t bytes = fill_bytes(t, 0x0f);
    t->stats.dram_bytes_written += bytes;
    dram_transfer(t, line, start, bytes);
  }
  if (is_store) {
    if (!t->cfg.l2.write_back || l2->sets == 0) {
      uint64_t bytes = fill_bytes(t, mask);
      t->stats.dram_bytes_written += bytes;
      dram_transfer(t, line, start, bytes);
    }
    return start;
  }
  if (res == GP_CACHE_HIT)
    return start + t->cfg.l2_latency;
  {
    uint64_t bytes = fill_bytes(t, mask);
    t->stats.dram_bytes_read += bytes;
    return dram_transfer(t, line, start, bytes) + t->cfg.l2_latency + t->cfg.dram_latency;
  }
}

/* Takes an MSHR for `line` at `now` on SM `sm`: merges with an outstanding
 * request (returns its release, *merged = 1), or returns the cycle an entry
 * is free (now, or the earliest release when all are busy) in *entry; the
 * caller then sets the entry's release and calls mshr_busy. */
static double take_mshr(gp_timed *t, uint32_t sm, uint64_t line, double now, int *merged,
                        uint32_t *entry) {
  mshr_file *f = &t->mshrs[sm];
  int64_t same;
  double start = now;
  while (f->heap_size > 0 && f->release[f->heap[0]] <= now) {
    uint32_t done = heap_pop(f);
    hash_delete(f, f->line[done]);
    f->free_list[f->free_count++] = done;
  }
  same = hash_find(f, line);
  if (same >= 0) {
    *merged = 1;
    t->stats.mshr_merges++;
    return f->release[same];
  }
  *merged = 0;
  if (f->free_count > 0) {
    *entry = f->free_list[--f->free_count];
  } else {
    *entry = heap_pop(f); /* wait for the earliest release */
    start = f->release[*entry];
    hash_delete(f, f->line[*entry]);
    t->stats.mshr_full_stalls++;
    t->stats.mshr_stall_cycles += start - now;
  }
  f->line[*entry] = line;
  hash_put(f, line, *entry);
  return start;
}

/* Marks an entry busy until its release. */
static void mshr_busy(gp_timed *t, uint32_t sm, uint32_t entry, double release) {
  mshr_file *f = &t->mshrs[sm];
  f->release[entry] = release;
  heap_push(f, entry);
}

int gp_timed_submit(gp_timed *t, uint32_t sm, double now, int op_class,
                    const uint64_t *lines, const uint8_t *masks, uint32_t n,
                    double *done, double *complete, gp_error *err) {
  int is_store = op_class == GP_OP_ST_GLOBAL || op_class == GP_OP_ST_LOCAL;
  int through_l1 = op_class == GP_OP_LD_LOCAL || op_class == GP_OP_ST_LOCAL ||
                   op_class == GP_OP_TEX ||
                   ((op_class == GP_OP_LD_GLOBAL || op_class == GP_OP_ST_GLOBAL) &&
                    t->cfg.cache_global_in_l1);
  double ready = now, last = now;
  uint32_t j;
  if (sm >= t->cfg.sms)
    return gp_error_set(err, "memsim: SM %u of %u", sm, t->cfg.sms);
  if (now < t->last_now)
    return gp_error_set(err, "memsim: requests must come in time order (%.3f after %.3f)", now,
                        t->last_now);
  t->last_now = now;
  for (j = 0; j < n; j++) {
    double d;
    if (through_l1 && t->l1[sm].sets > 0 &&
        gp_cache_access(&t->l1[sm], lines[j], masks[j], is_store) == GP_CACHE_HIT && !is_store) {
      d = now + t->cfg.l1_latency;
    } else if (is_store || op_class == GP_OP_ATOM_GLOBAL) {
      d = l2_and_dram(t, lines[j], masks[j], now, is_store);
    } else {
      int merged;
      uint32_t entry = 0;
      double start = take_mshr(t, sm, lines[j], ready, &merged, &entry);
      if (merged) {
        d = start;
      } else {
        ready = start; /* later requests of the instruction queue behind */
        d = l2_and_dram(t, lines[j], masks[j], start, 0);
        mshr_busy(t, sm, entry, d);
      }
    }
    done[j] = d;
    if (d > last)
      last = d;
  }
  *complete = last;
  return GP_OK;
}

/* The timed replay: the functional mode's order, each SM issuing one memory
 * instruction per cycle. */
typedef struct timed_replay {
  gp_timed *t;
  const gp_kernel *k;
  double step, now, last;
  uint64_t requests;
  int status, cc1x;
  gp_error *err;
} timed_replay;

static void visit_timed(void *ctx, uint64_t i, uint32_t sm) {
  timed_replay *r = ctx;
  const gp_kernel *k = r->k;
  const gp_mem_record *m = &k->mem_records[k->mem[i]];
  double done[64], complete;
  uint64_t buf_lines[32];
  uint8_t buf_masks[32];
  const uint64_t *lines = k->lines + m->line_start;
  const uint8_t *masks = k->sector_masks + m->line_start;
  uint32_t n = m->line_count;
  if (r->status != GP_OK)
    return;
  if (r->cc1x && k->op_class[i] != GP_OP_TEX) {
    n = gp_cc1x_requests(k->addresses + m->addr_start, m->addr_count, k->width[i], buf_lines,
                         buf_masks);
    lines = buf_lines;
    masks = buf_masks;
  }
  r->now += r->step;
  r->status = gp_timed_submit(r->t, sm, r->now, k->op_class[i], lines, masks, n, done,
                              &complete, r->err);
  r->requests += n;
  if (complete > r->last)
    r->last = complete;
}

int gp_memsim_timed_replay(const gp_kernel *k, const gp_timed_config *cfg,
                           uint32_t blocks_per_sm, const gp_alloc *alloc,
                           gp_timed_stats *stats, uint64_t *requests, double *last_cycle,
                           gp_error *err) {
  timed_replay r;
  int status;
  memset(&r, 0, sizeof r);
  if (gp_timed_new(&r.t, alloc, cfg, err) != GP_OK)
    return GP_ERR;
  r.k = k;
  r.cc1x = cfg->cc1x;
  r.step = 1.0 / cfg->sms;
  r.err = err;
  r.status = GP_OK;
  status = gp_memsim_order(k, cfg->sms, blocks_per_sm, alloc, visit_timed, &r, err);
  if (status == GP_OK)
    status = r.status;
  *stats = *gp_timed_stats_of(r.t);
  *requests = r.requests;
  *last_cycle = r.last;
  gp_timed_free(r.t);
  return status;
}
