/*
 * memsim_timed.c -- when does each memory request return?
 *
 * Event-driven: every resource keeps its reserved intervals, so a request
 * costs a few searches and no cycle is simulated when nothing happens.
 *  - L1 (per SM): tag lookup at issue; a hit returns after l1_latency.
 *  - MSHRs (per SM): an L1-missing load takes an entry until its data
 *    returns.  A request to a line already outstanding merges and returns
 *    with it.  When all entries are busy the request waits for the earliest
 *    release (counted as an MSHR-full stall, with its cycles); the rest of
 *    the instruction's requests queue behind it in order (each request
 *    waits, not the whole instruction: requests before the stall are
 *    already on their way).  Entries are released when their data returns;
 *    the release calendar is a min-heap per SM, retired up to the
 *    submission cycle.
 *  - L2 slices (gp_l2_slice_of): a slice accepts one request every
 *    l2_interval cycles; an L2 hit returns l2_latency after its slice
 *    accepted it, or after the line's fill when one is under way.  A hit
 *    accepted before the fill's own requester (which waited for an MSHR)
 *    is the miss in arrival order: it fetches the line itself, and the line
 *    is there at the earlier of the two fills.
 *  - DRAM channels (line index modulo channels): a transfer of the missing
 *    bytes (whole dram_access_bytes units) occupies the channel for
 *    bytes / (bandwidth / channels); the data returns l2_latency +
 *    dram_latency after the transfer ends.  Dirty L2 victims and
 *    write-through stores occupy their channel too.  Once a channel's queue
 *    is full, N requests of S bytes take N x S / B cycles.
 *  - Slices and channels are calendars (memsim_calendar.c): a request that
 *    waited for an MSHR is ready later than one submitted after it, and
 *    takes the earliest free gap from its ready cycle rather than queueing
 *    behind everything submitted before it.
 *  - Stores and atomics do not take MSHRs; stores complete when their slice
 *    accepts them (a write-back L1 absorbs them after l1_latency), atomics
 *    when their data returns.
 * Tags are updated in submission order (no timing inside the tag state), so
 * more MSHRs or bandwidth never change hits; the fills' requesters are
 * timed, so the L2 serves a line's requests in arrival order.
 */
#include "memsim_cache_access.h"
#include "memsim_calendar.h"

#include <math.h>
#include <string.h>

/* A busy MSHR in the release heap: its release time is kept next to its
 * number, so the heap's comparisons read no other array. */
typedef struct heap_item {
  double release;
  uint32_t entry;
} heap_item;

/* One SM's MSHRs: entries, a min-heap of busy entries by release time (so
 * retiring costs O(log n)), a free list, and a line -> entry hash table
 * (open addressing, backward-shift deletion) to find merges in O(1).  Each
 * busy entry knows the slot holding its line (kept when a deletion shifts
 * the line up), so freeing it deletes without probing. */
typedef struct mshr_file {
  uint32_t *slot;      /* per busy entry: its line's slot in keys/values */
  double *release;     /* per entry */
  heap_item *heap;     /* busy entries, earliest release first */
  uint32_t heap_size;
  uint32_t *free_list;
  uint32_t free_count;
  uint64_t *keys;      /* hash: line + 1, 0 = empty */
  uint32_t *values;    /* hash: entry */
  uint32_t hash_cap;   /* power of two, at least four times the entries */
} mshr_file;

/* Per-way cycles of one cache, kept per set: a set's `fields` doubles per
 * way (way-major) are taken from the timed model's arena, zeroed, when the
 * set is first filled (ways fill in order and are never invalidated, so
 * nothing reads a way's cycles before its first fill).  A launch thus pays
 * for the sets it touches, not for the cache's capacity: a100's L2 is
 * 20,480 sets of 16 ways, of which a launch of bfs touches a few hundred,
 * and per-way arrays over every set cost it about 16 fresh pages per slice
 * it used. */
typedef struct set_cycles {
  double **set;    /* per set: its ways' cycles; NULL before its first fill */
  uint32_t sets;
} set_cycles;

/* L1 fields per way: one, when the line's data is there. */
enum { L1_FIELDS = 1 };
/* L2 fields per way: when the line's data is there, and when the slice
 * accepted the request that fetches it. */
enum { L2_READY, L2_FILL_FROM, L2_FIELDS };

/* The arena the sets' cycles come from: blocks of at least ARENA_BYTES,
 * filled in order and freed together with the model. */
typedef struct arena_block {
  struct arena_block *next;
  size_t bytes; /* of the whole block, this header included */
} arena_block;

enum { ARENA_BYTES = 16384 };

/* A DRAM transfer: its bytes and the cycles it occupies its channel. */
typedef struct dram_cost {
  uint64_t bytes;
  double cycles;
} dram_cost;

struct gp_timed {
  gp_alloc alloc;
  gp_timed_config cfg;
  gp_cache *l1, *l2;
  mshr_file *mshrs;       /* per SM */
  set_cycles *l1_cycles;  /* per SM: L1_FIELDS per way */
  set_cycles *l2_cycles;  /* per slice: L2_FIELDS per way */
  arena_block *arena;     /* the newest block first */
  char *arena_next;       /* the newest block's free part */
  size_t arena_left;
  gp_calendar *slices, *channels; /* reserved intervals per L2 slice and DRAM channel */
  gp_cache_config l2_slice;  /* one slice's share of the L2 */
  uint8_t *sm_built;      /* per SM: its L1, L1 cycles table and MSHRs exist (build_sm) */
  uint8_t *slice_built;   /* per slice: its tags and cycles table exist (build_slice) */
  int out_of_memory;      /* a calendar could not grow during this submission */
  /* per four-sector mask: an L2 fill's and a store's DRAM transfer
   * (gp_timed_fill_bytes, gp_timed_store_bytes), made once */
  dram_cost fill_cost[16], store_cost[16];
  uint8_t route[GP_OP_CLASS_COUNT]; /* route_of each class, made once */
  double last_now;
  gp_timed_stats stats;
};

static void mshr_file_free(const gp_alloc *a, mshr_file *f, uint32_t n) {
  gp_free(a, f->slot, n * sizeof *f->slot);
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
  while (f->hash_cap < 4 * n)
    f->hash_cap *= 2;
  f->slot = gp_malloc(a, n * sizeof *f->slot);
  f->release = gp_malloc(a, n * sizeof *f->release);
  f->heap = gp_malloc(a, n * sizeof *f->heap);
  f->free_list = gp_malloc(a, n * sizeof *f->free_list);
  f->keys = gp_malloc(a, f->hash_cap * sizeof *f->keys);
  f->values = gp_malloc(a, f->hash_cap * sizeof *f->values);
  if (!f->slot || !f->release || !f->heap || !f->free_list || !f->keys || !f->values)
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

/* The slot of `line`: the one holding it, else the empty slot that ends
 * its probe run (where it is put). */
static uint32_t hash_probe(const mshr_file *f, uint64_t line) {
  uint32_t h = hash_slot(f, line);
  while (f->keys[h] != 0 && f->keys[h] != line + 1)
    h = (h + 1) & (f->hash_cap - 1);
  return h;
}

/* Frees busy entry `entry`'s line from the table: linear-probing
 * deletion by backward shift, from the slot the entry knows (what a probe
 * for its line finds: each busy entry's line is in the table once).  Later
 * keys of the same run move up so lookups never stop early at the hole;
 * a moved key's entry learns its new slot. */
static inline __attribute__((always_inline)) void hash_delete(mshr_file *f, uint32_t entry) {
  uint32_t mask = f->hash_cap - 1, h = f->slot[entry], next;
  for (next = (h + 1) & mask; f->keys[next] != 0; next = (next + 1) & mask) {
    uint32_t home = hash_slot(f, f->keys[next] - 1);
    /* move keys[next] into the hole unless its home lies in (h, next] */
    if (((next - home) & mask) >= ((next - h) & mask)) {
      f->keys[h] = f->keys[next];
      f->values[h] = f->values[next];
      f->slot[f->values[h]] = h;
      h = next;
    }
  }
  f->keys[h] = 0;
}

/* Adds busy entry `entry` (its release set). */
static void heap_push(mshr_file *f, uint32_t entry) {
  heap_item *h = f->heap;
  uint32_t i = f->heap_size++;
  double release = f->release[entry];
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (h[parent].release <= release)
      break;
    h[i] = h[parent];
    i = parent;
  }
  h[i].release = release;
  h[i].entry = entry;
}

/* Removes and returns the entry released first.  Bottom-up: the hole at
 * the top goes down along the smaller children to a leaf, then the heap's
 * last item rises from there past the children not below it.  The path
 * is non-decreasing, so the last item ends where the usual top-down sift
 * (stop at the first child not below it) puts it, and the heap is the same
 * item for item; the last item, a recent release, seldom rises far, so
 * this costs one comparison a level instead of two.  The freed slot past
 * the heap reads as a release that never comes, so a node with one child
 * needs no bounds check.  The descent walks byte offsets (a child's is
 * twice its parent's plus one item) and picks the right child by adding
 * the comparison, not by a jump: about ten instructions a level, where
 * indices and a branch took sixteen.  Ties go left, as before (the order
 * is part of the results: test_release_heap_keeps_its_ties).  Inline:
 * retiring pops once per request on a memory-bound kernel. */
static inline __attribute__((always_inline)) uint32_t heap_pop(mshr_file *f) {
  heap_item *h = f->heap, last;
  char *base = (char *)h;
  uint32_t top = h[0].entry, n = --f->heap_size;
  size_t hole = 0, child, end = (size_t)n * sizeof *h;
  if (n == 0)
    return top;
  last = h[n];
  h[n].release = HUGE_VAL; /* past the heap: a lone child's sibling, never taken */
  while ((child = 2 * hole + sizeof *h) < end) {
    const heap_item *left = (const heap_item *)(const void *)(base + child);
    child += (size_t)(left[1].release < left[0].release) * sizeof *h;
    *(heap_item *)(void *)(base + hole) = *(const heap_item *)(const void *)(base + child);
    hole = child;
  }
  {
    uint32_t i = (uint32_t)(hole / sizeof *h);
    while (i > 0) {
      uint32_t parent = (i - 1) / 2;
      if (h[parent].release < last.release)
        break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = last;
  }
  return top;
}

/* `bytes` (a multiple of 8: doubles) from the arena, for a set's cycles;
 * NULL when out of memory.  A new block is at least ARENA_BYTES, so the sets a launch
 * touches share pages in the order they were first filled. */
static void *arena_take(gp_timed *t, size_t bytes) {
  void *p;
  if (bytes > t->arena_left) {
    size_t header = (sizeof(arena_block) + 15) & ~(size_t)15;
    size_t size = header + (bytes > ARENA_BYTES ? bytes : ARENA_BYTES);
    arena_block *b = gp_malloc(&t->alloc, size);
    if (b == NULL)
      return NULL;
    b->next = t->arena;
    b->bytes = size;
    t->arena = b;
    t->arena_next = (char *)b + header;
    t->arena_left = size - header;
  }
  p = t->arena_next;
  t->arena_next += bytes;
  t->arena_left -= bytes;
  return p;
}

static void arena_free(gp_timed *t) {
  while (t->arena != NULL) {
    arena_block *b = t->arena;
    t->arena = b->next;
    gp_free(&t->alloc, b, b->bytes);
  }
}

/* The per-set table of cache c's cycles: every set without storage yet.
 * GP_ERR when out of memory (the table stays empty). */
static int set_cycles_init(gp_timed *t, set_cycles *sc, const gp_cache *c) {
  sc->sets = c->sets;
  if (c->sets == 0) /* no cache (no ways either) */
    return GP_OK;
  sc->set = gp_malloc(&t->alloc, c->sets * sizeof *sc->set);
  if (sc->set == NULL) {
    sc->sets = 0;
    return GP_ERR;
  }
  memset(sc->set, 0, c->sets * sizeof *sc->set);
  return GP_OK;
}

static void set_cycles_free(gp_timed *t, set_cycles *sc) {
  gp_free(&t->alloc, sc->set, sc->sets * sizeof *sc->set);
  sc->set = NULL;
  sc->sets = 0;
}

/* Set `set` of cache c at its first fill: its `fields` cycles per way from
 * the arena, zeroed.  NULL, with out_of_memory set, when the arena cannot
 * grow.  Out of line: once per set and launch. */
static __attribute__((noinline)) double *first_fill(gp_timed *t, set_cycles *sc,
                                                    const gp_cache *c, uint32_t set,
                                                    uint32_t fields) {
  size_t bytes = (size_t)c->config.ways * fields * sizeof(double);
  double *cycles = arena_take(t, bytes);
  if (cycles == NULL) {
    t->out_of_memory = 1;
    return NULL;
  }
  memset(cycles, 0, bytes);
  sc->set[set] = cycles;
  return cycles;
}

/* The `fields` cycles of the way a lookup of cache c used (o->used: way
 * o->way of set o->set); its set's storage is made at the set's first fill
 * (the first access that uses one of its ways).  NULL when no way was used,
 * or when out of memory: the request is then timed without the way's
 * cycles and the submission fails. */
static inline double *way_cycles(gp_timed *t, set_cycles *sc, const gp_cache *c,
                                 const gp_cache_outcome *o, uint32_t fields) {
  double *cycles;
  if (!o->used)
    return NULL;
  cycles = sc->set[o->set];
  if (cycles == NULL && (cycles = first_fill(t, sc, c, o->set, fields)) == NULL)
    return NULL;
  return cycles + (size_t)o->way * fields;
}

/* n empty calendars for requests of at least min_length cycles; NULL when
 * out of memory. */
static gp_calendar *new_calendars(const gp_alloc *a, uint32_t n, double min_length) {
  gp_calendar *c = gp_malloc(a, n * sizeof *c);
  uint32_t i;
  if (c != NULL)
    for (i = 0; i < n; i++)
      gp_calendar_init(&c[i], min_length);
  return c;
}

static void free_calendars(const gp_alloc *a, gp_calendar *c, uint32_t n) {
  uint32_t i;
  if (c == NULL)
    return;
  for (i = 0; i < n; i++)
    gp_calendar_free(&c[i], a);
  gp_free(a, c, n * sizeof *c);
}

/* Frees the model; the per-SM and per-slice parts only of the SMs and
 * slices built (build_sm, build_slice: nothing of the others was
 * allocated, and a launch of a few blocks builds a few of a100's 108 SMs). */
void gp_timed_free(gp_timed *t) {
  uint32_t i, slices;
  if (t == NULL)
    return;
  slices = t->cfg.l2_slices ? t->cfg.l2_slices : 1;
  if (t->sm_built)
    for (i = 0; i < t->cfg.sms; i++)
      if (t->sm_built[i]) {
        set_cycles_free(t, &t->l1_cycles[i]);
        gp_cache_free(&t->l1[i]);
        mshr_file_free(&t->alloc, &t->mshrs[i], t->cfg.mshrs_per_sm);
      }
  if (t->slice_built)
    for (i = 0; i < slices; i++)
      if (t->slice_built[i]) {
        set_cycles_free(t, &t->l2_cycles[i]);
        gp_cache_free(&t->l2[i]);
      }
  arena_free(t);
  gp_free(&t->alloc, t->l1_cycles, t->cfg.sms * sizeof *t->l1_cycles);
  gp_free(&t->alloc, t->l2_cycles, slices * sizeof *t->l2_cycles);
  gp_free(&t->alloc, t->l1, t->cfg.sms * sizeof *t->l1);
  gp_free(&t->alloc, t->l2, slices * sizeof *t->l2);
  gp_free(&t->alloc, t->mshrs, t->cfg.sms * sizeof *t->mshrs);
  free_calendars(&t->alloc, t->slices, slices);
  free_calendars(&t->alloc, t->channels, t->cfg.dram_channels);
  gp_free(&t->alloc, t->sm_built, t->cfg.sms);
  gp_free(&t->alloc, t->slice_built, slices);
  gp_free(&t->alloc, t, sizeof *t);
}

/* The transfer of `bytes` on one channel: bytes / (bandwidth per channel)
 * cycles. */
static dram_cost make_cost(const gp_timed_config *cfg, uint64_t bytes) {
  double per_channel = cfg->dram_bytes_per_cycle / cfg->dram_channels;
  dram_cost c;
  c.bytes = bytes;
  c.cycles = (double)bytes / per_channel;
  return c;
}

/* How a class's requests travel (gp_timed_submit): through the SM's L1,
 * as stores, as global atomics (straight to the L2); loads without a bit
 * go through an MSHR. */
enum { ROUTE_L1 = 1, ROUTE_STORE = 2, ROUTE_ATOMIC = 4 };

static uint8_t route_of(const gp_timed_config *cfg, int op_class) {
  int is_store = op_class == GP_OP_ST_GLOBAL || op_class == GP_OP_ST_LOCAL;
  int through_l1 = op_class == GP_OP_LD_LOCAL || op_class == GP_OP_ST_LOCAL ||
                   op_class == GP_OP_TEX ||
                   ((op_class == GP_OP_LD_GLOBAL || op_class == GP_OP_ST_GLOBAL) &&
                    cfg->cache_global_in_l1);
  return (uint8_t)((through_l1 ? ROUTE_L1 : 0) | (is_store ? ROUTE_STORE : 0) |
                   (op_class == GP_OP_ATOM_GLOBAL ? ROUTE_ATOMIC : 0));
}

/* Cycles a channel needs for one DRAM access, the shortest transfer (every
 * transfer is whole accesses). */
static double shortest_transfer(const gp_timed_config *cfg) {
  uint32_t unit = cfg->dram_access_bytes ? cfg->dram_access_bytes : 32;
  return (double)unit / (cfg->dram_bytes_per_cycle / cfg->dram_channels);
}

/* n zeroed bytes; NULL when out of memory. */
static void *zeroed(const gp_alloc *a, size_t n) {
  void *p = gp_malloc(a, n);
  if (p != NULL)
    memset(p, 0, n);
  return p;
}

/* SM sm's MSHRs, L1 and L1 cycles table, built at its first request: a
 * launch of a few blocks on a GPU of a hundred SMs uses a few of them, and
 * building every SM's cost more than simulating such a launch (bfs on
 * a100).  An SM not built has no requests: its L1 counts are zero.
 * gp_timed_free frees whatever part of it exists. */
static int build_sm(gp_timed *t, uint32_t sm, gp_error *err) {
  t->sm_built[sm] = 1;
  if (mshr_file_init(&t->alloc, &t->mshrs[sm], t->cfg.mshrs_per_sm) != GP_OK)
    return gp_error_set(err, "memsim: out of memory");
  if (gp_cache_init(&t->l1[sm], &t->alloc, &t->cfg.l1, err) != GP_OK)
    return GP_ERR;
  if (set_cycles_init(t, &t->l1_cycles[sm], &t->l1[sm]) != GP_OK) {
    gp_cache_free(&t->l1[sm]); /* no L1 without its cycles table */
    memset(&t->l1[sm], 0, sizeof t->l1[sm]);
    return gp_error_set(err, "memsim: out of memory");
  }
  return GP_OK;
}

/* L2 slice s's tags and cycles table, built at its first request (as
 * build_sm).  Slice 0, built by gp_timed_new, checks the slice
 * configuration, so later only memory can run out: the slice is then left
 * without a cache (every access a miss) and GP_ERR returned. */
static int build_slice(gp_timed *t, uint32_t s, gp_error *err) {
  int status;
  t->slice_built[s] = 1;
  status = gp_cache_init(&t->l2[s], &t->alloc, &t->l2_slice, err);
  if (status == GP_OK) {
    if (set_cycles_init(t, &t->l2_cycles[s], &t->l2[s]) == GP_OK)
      return GP_OK;
    status = gp_error_set(err, "memsim: out of memory");
  }
  gp_cache_free(&t->l2[s]);
  memset(&t->l2[s], 0, sizeof t->l2[s]);
  return status;
}

int gp_timed_new(gp_timed **out, const gp_alloc *alloc, const gp_timed_config *cfg,
                 gp_error *err) {
  gp_timed *t;
  uint32_t slices = cfg->l2_slices ? cfg->l2_slices : 1, mask;
  int status, op;
  if (cfg->sms == 0 || cfg->mshrs_per_sm == 0 || cfg->dram_channels == 0 ||
      !(cfg->dram_bytes_per_cycle > 0))
    return gp_error_set(err, "memsim: sms, mshrs, DRAM channels and bandwidth must be above 0");
  t = gp_malloc(alloc, sizeof *t);
  if (t == NULL)
    return gp_error_set(err, "memsim: out of memory");
  memset(t, 0, sizeof *t);
  t->alloc = *alloc;
  t->cfg = *cfg;
  t->l2_slice = cfg->l2;
  t->l2_slice.size_bytes = cfg->l2.size_bytes / slices;
  for (op = 0; op < GP_OP_CLASS_COUNT; op++)
    t->route[op] = route_of(cfg, op);
  for (mask = 0; mask < 16; mask++) {
    t->fill_cost[mask] = make_cost(cfg, gp_timed_fill_bytes(cfg, (uint8_t)mask));
    t->store_cost[mask] = make_cost(cfg, gp_timed_store_bytes(cfg, (uint8_t)mask));
  }
  t->l1 = zeroed(alloc, cfg->sms * sizeof *t->l1);
  t->l2 = zeroed(alloc, slices * sizeof *t->l2);
  t->mshrs = zeroed(alloc, cfg->sms * sizeof *t->mshrs);
  t->l1_cycles = zeroed(alloc, cfg->sms * sizeof *t->l1_cycles);
  t->l2_cycles = zeroed(alloc, slices * sizeof *t->l2_cycles);
  t->sm_built = zeroed(alloc, cfg->sms);
  t->slice_built = zeroed(alloc, slices);
  t->slices = new_calendars(alloc, slices, cfg->l2_interval);
  t->channels = new_calendars(alloc, cfg->dram_channels, shortest_transfer(cfg));
  if (!t->l1 || !t->l2 || !t->mshrs || !t->l1_cycles || !t->l2_cycles ||
      !t->sm_built || !t->slice_built || !t->slices || !t->channels) {
    gp_timed_free(t);
    return gp_error_set(err, "memsim: out of memory");
  }
  /* SM 0 and slice 0 now: a configuration the caches reject fails here */
  status = build_sm(t, 0, err);
  if (status == GP_OK)
    status = build_slice(t, 0, err);
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
    t->stats.l1.sector_misses += t->l1[i].stats.sector_misses;
    t->stats.l1.writebacks += t->l1[i].stats.writebacks;
  }
  for (i = 0; i < slices; i++) {
    t->stats.l2.accesses += t->l2[i].stats.accesses, t->stats.l2.hits += t->l2[i].stats.hits;
    t->stats.l2.misses += t->l2[i].stats.misses, t->stats.l2.writebacks += t->l2[i].stats.writebacks;
    t->stats.l2.sector_misses += t->l2[i].stats.sector_misses;
  }
  return &t->stats;
}

uint32_t gp_sector_count(uint8_t m) {
  return (m & 1u) + ((m >> 1) & 1u) + ((m >> 2) & 1u) + ((m >> 3) & 1u);
}

/* The transfers of an L2 fill and of a store for sector mask `mask`: from
 * the tables made at gp_timed_new (masks have four sectors), else made. */
static inline dram_cost fill_cost(const gp_timed *t, uint8_t mask) {
  return mask < 16 ? t->fill_cost[mask]
                   : make_cost(&t->cfg, gp_timed_fill_bytes(&t->cfg, mask));
}

static inline dram_cost store_cost(const gp_timed *t, uint8_t mask) {
  return mask < 16 ? t->store_cost[mask]
                   : make_cost(&t->cfg, gp_timed_store_bytes(&t->cfg, mask));
}

/* Occupies the DRAM channel of `line` (line index mod channels) for the
 * transfer `cost`, in the channel calendar's earliest gap from `ready`;
 * returns when the transfer ends.  Counts the bytes inside the window. */
static inline __attribute__((always_inline)) double dram_transfer(gp_timed *t, uint64_t line,
                                                                  double ready, dram_cost cost) {
  gp_timed_stats *st = &t->stats;
  uint32_t n = t->cfg.dram_channels;
  uint32_t c = (n & (n - 1)) == 0 ? (uint32_t)(line & (n - 1)) : (uint32_t)(line % n);
  double length = cost.cycles, start, end;
  if (gp_calendar_reserve_inline(&t->channels[c], &t->alloc, t->last_now, ready, length,
                                 &start) != GP_OK)
    t->out_of_memory = 1;
  end = start + length;
  if (st->dram_transfers == 0 || start < st->first_dram_start)
    st->first_dram_start = start;
  st->dram_transfers++;
  if (end > st->last_dram_done)
    st->last_dram_done = end;
  if (st->window_to > st->window_from && end > start) {
    double lo = start > st->window_from ? start : st->window_from;
    double hi = end < st->window_to ? end : st->window_to;
    if (hi > lo)
      st->window_bytes += (double)cost.bytes * (hi - lo) / (end - start);
  }
  return end;
}

int gp_timed_set_window(gp_timed *t, double from, double to, gp_error *err) {
  if (!(to > from))
    return gp_error_set(err, "memsim: window [%.3f, %.3f) is empty", from, to);
  t->stats.window_from = from;
  t->stats.window_to = to;
  t->stats.window_bytes = 0;
  return GP_OK;
}

double gp_timed_window_bandwidth(const gp_timed_stats *s) {
  return s->window_to > s->window_from ? s->window_bytes / (s->window_to - s->window_from) : 0;
}

double gp_timed_achieved_bandwidth(const gp_timed_stats *s) {
  double span = s->last_dram_done - s->first_dram_start;
  return s->dram_transfers > 0 && span > 0
             ? (double)(s->dram_bytes_read + s->dram_bytes_written) / span
             : 0;
}

uint64_t gp_timed_store_bytes(const gp_timed_config *cfg, uint8_t mask) {
  uint32_t unit = cfg->dram_access_bytes ? cfg->dram_access_bytes : 32;
  uint64_t raw = (uint64_t)gp_sector_count(mask) * 32u;
  return (raw + unit - 1) / unit * unit;
}

uint64_t gp_timed_fill_bytes(const gp_timed_config *cfg, uint8_t mask) {
  uint32_t unit = cfg->dram_access_bytes ? cfg->dram_access_bytes : 32;
  uint64_t raw = (uint64_t)gp_sector_count(gp_cache_fill_mask(&cfg->l2, mask)) * 32u;
  return (raw + unit - 1) / unit * unit;
}

enum { REQ_LOAD, REQ_STORE, REQ_ATOMIC };

/* The L2 and DRAM part of a request ready to leave the SM at `ready`:
 * waits for its slice, looks the tags up (stores and atomics write), sends
 * a dirty victim to its own channel, and returns when its data is back
 * (stores: when the slice accepted them; a write-through L2 also sends the
 * store's bytes to DRAM). */
static inline __attribute__((always_inline)) double l2_and_dram(gp_timed *t, uint64_t line,
                                                                uint8_t mask, double ready,
                                                                int kind) {
  uint32_t slices = t->cfg.l2_slices ? t->cfg.l2_slices : 1;
  uint32_t s = gp_l2_slice_of(line, slices);
  gp_cache *l2 = &t->l2[s];
  gp_cache_outcome o;
  double *cycles, *ready_at, *fill_from, arrive, start;
  if (!t->slice_built[s] && build_slice(t, s, NULL) != GP_OK)
    t->out_of_memory = 1;
  if (gp_calendar_reserve_inline(&t->slices[s], &t->alloc, t->last_now, ready,
                                 t->cfg.l2_interval, &start) != GP_OK)
    t->out_of_memory = 1;
  o = gp_cache_lookup(l2, line, mask, kind != REQ_LOAD);
  cycles = way_cycles(t, &t->l2_cycles[s], l2, &o, L2_FIELDS);
  ready_at = cycles ? &cycles[L2_READY] : NULL;
  fill_from = cycles ? &cycles[L2_FILL_FROM] : NULL;
  if (o.evicted && o.evicted_dirty) {
    dram_cost cost = fill_cost(t, o.evicted_sectors);
    t->stats.dram_bytes_written += cost.bytes;
    dram_transfer(t, o.evicted_line, start, cost);
  }
  if (kind == REQ_STORE) {
    if (!t->cfg.l2.write_back || l2->sets == 0) {
      dram_cost cost = store_cost(t, mask);
      t->stats.dram_bytes_written += cost.bytes;
      dram_transfer(t, line, start, cost);
    }
    if (ready_at && o.result != GP_CACHE_HIT && *ready_at < start)
      *ready_at = *fill_from = start; /* allocated without a fetch */
    return start;
  }
  if (o.result == GP_CACHE_HIT) {
    if (ready_at && *ready_at > start) { /* the line's fill is under way */
      t->stats.l2_fill_waits++;
      if (*fill_from > start) {
        /* Tags change in submission order, but this request reaches the
         * slice before the fill's own requester (which waited for an MSHR):
         * in arrival order it is the miss.  It fetches the line itself and
         * the line is there at the earlier of the two fills.  The other
         * transfer is already reserved and stays (reservations never move):
         * its bytes are counted as duplicates. */
        dram_cost cost = fill_cost(t, mask);
        t->stats.l2_early_arrivals++;
        t->stats.dram_bytes_read += cost.bytes;
        t->stats.dram_duplicate_bytes += cost.bytes;
        arrive = dram_transfer(t, line, start, cost) + t->cfg.dram_latency;
        *fill_from = start;
        if (arrive < *ready_at)
          *ready_at = arrive;
      }
      return *ready_at + t->cfg.l2_latency; /* with the earliest fill */
    }
    return start + t->cfg.l2_latency;
  }
  {
    dram_cost cost = fill_cost(t, o.missing);
    t->stats.dram_bytes_read += cost.bytes;
    arrive = dram_transfer(t, line, start, cost) + t->cfg.dram_latency;
    if (ready_at) {
      *ready_at = arrive;
      *fill_from = start;
    }
    return arrive + t->cfg.l2_latency;
  }
}

/* Retires the MSHRs of SM `sm` whose data returned by `now`. */
static void retire_mshrs(gp_timed *t, uint32_t sm, double now) {
  mshr_file *f = &t->mshrs[sm];
  while (f->heap_size > 0 && f->heap[0].release <= now) {
    uint32_t done = heap_pop(f);
    hash_delete(f, done);
    f->free_list[f->free_count++] = done;
  }
}

/* Takes an MSHR of SM `sm` for `line`, for a request ready at `ready`
 * (entries were retired up to the submission cycle): merges with an
 * outstanding request to the line (returns when its data is back, at the
 * earliest `ready`; *merged = 1), or returns the cycle an entry is free in
 * *entry (`ready`, or the earliest release when all are busy: an MSHR-full
 * stall).  The caller then sets the entry's release with mshr_busy. */
static double take_mshr(gp_timed *t, uint32_t sm, uint64_t line, double ready, int *merged,
                        uint32_t *entry) {
  mshr_file *f = &t->mshrs[sm];
  uint32_t slot = hash_probe(f, line);
  double start = ready;
  if (f->keys[slot] != 0) {
    uint32_t same = f->values[slot];
    *merged = 1;
    t->stats.mshr_merges++;
    return f->release[same] > ready ? f->release[same] : ready;
  }
  *merged = 0;
  if (f->free_count > 0) {
    *entry = f->free_list[--f->free_count];
  } else {
    *entry = heap_pop(f); /* wait for the earliest release */
    hash_delete(f, *entry);
    slot = hash_probe(f, line); /* the deletion may have moved the line's run */
    if (f->release[*entry] > ready) {
      start = f->release[*entry];
      t->stats.mshr_full_stalls++;
      t->stats.mshr_stall_cycles += start - ready;
    }
  }
  f->slot[*entry] = slot;
  f->keys[slot] = line + 1; /* the line is absent: the probe's empty slot */
  f->values[slot] = *entry;
  return start;
}

/* Marks an entry busy until its release. */
static void mshr_busy(gp_timed *t, uint32_t sm, uint32_t entry, double release) {
  mshr_file *f = &t->mshrs[sm];
  f->release[entry] = release;
  heap_push(f, entry);
}

/* Checks the preconditions (SM in range, non-decreasing submission
 * cycles), retires the SM's MSHRs up to `now`, then routes each request:
 * L1 (when it caches the class), then stores/atomics straight to the L2,
 * loads through an MSHR. */
int gp_timed_submit(gp_timed *t, uint32_t sm, double now, int op_class,
                    const uint64_t *lines, const uint8_t *masks, uint32_t n,
                    double *done, double *complete, gp_error *err) {
  uint8_t route = op_class >= 0 && op_class < GP_OP_CLASS_COUNT ? t->route[op_class]
                                                                 : route_of(&t->cfg, op_class);
  int is_store = (route & ROUTE_STORE) != 0, through_l1 = (route & ROUTE_L1) != 0;
  double ready = now, last = now, *l1_ready;
  gp_cache *l1;
  uint32_t j;
  if (sm >= t->cfg.sms)
    return gp_error_set(err, "memsim: SM %u of %u", sm, t->cfg.sms);
  if (!(now >= t->last_now)) /* also rejects NaN */
    return gp_error_set(err, "memsim: requests must come in time order (%.3f after %.3f)", now,
                        t->last_now);
  t->last_now = now;
  if (!t->sm_built[sm] && build_sm(t, sm, err) != GP_OK)
    return GP_ERR;
  l1 = &t->l1[sm];
  retire_mshrs(t, sm, now);
  for (j = 0; j < n; j++) {
    double d;
    uint8_t mask = masks[j];
    l1_ready = NULL;
    if (through_l1 && l1->sets > 0) {
      gp_cache_outcome o = gp_cache_lookup(l1, lines[j], masks[j], is_store);
      l1_ready = way_cycles(t, &t->l1_cycles[sm], l1, &o, L1_FIELDS);
      if (o.evicted && o.evicted_dirty) /* write-back L1: the victim goes to L2 */
        l2_and_dram(t, o.evicted_line, o.evicted_sectors, now, REQ_STORE);
      if (is_store && t->cfg.l1.write_back) {
        d = now + t->cfg.l1_latency;
        if (l1_ready && *l1_ready < now)
          *l1_ready = now;
        goto next;
      }
      if (!is_store && o.result == GP_CACHE_HIT) {
        d = now + t->cfg.l1_latency;
        if (l1_ready && *l1_ready > d) { /* the line's fill is still under way */
          d = *l1_ready;
          t->stats.mshr_merges++;
        }
        goto next;
      }
      if (!is_store)
        mask = o.missing; /* L2 is asked for the sectors L1 lacks */
    }
    if (route & (ROUTE_STORE | ROUTE_ATOMIC)) {
      d = l2_and_dram(t, lines[j], masks[j], now, is_store ? REQ_STORE : REQ_ATOMIC);
    } else {
      int merged;
      uint32_t entry = 0;
      double start = take_mshr(t, sm, lines[j], ready, &merged, &entry);
      if (merged) {
        d = start;
      } else {
        ready = start; /* later requests of the instruction queue behind */
        d = l2_and_dram(t, lines[j], mask, start, REQ_LOAD);
        mshr_busy(t, sm, entry, d);
      }
      if (l1_ready) /* a load: stores and atomics took the branch above */
        *l1_ready = d; /* the L1 line (filled at lookup) holds data from d */
    }
  next:
    done[j] = d;
    if (d > last)
      last = d;
  }
  *complete = last;
  if (t->out_of_memory)
    return gp_error_set(err, "memsim: out of memory");
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
  if (r->cc1x && k->op_class[i] != GP_OP_TEX && k->op_class[i] != GP_OP_LDGSTS) {
    n = gp_cc1x_requests_rule(GP_MEM_LANES(k, m), m->addr_count, k->width[i], r->cc1x,
                              buf_lines, buf_masks);
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
