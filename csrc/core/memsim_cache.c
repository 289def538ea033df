/*
 * memsim_cache.c -- tag-only set-associative caches (true LRU, sectored or
 * not, write-through/no-allocate or write-back/allocate); the L2 slice hash
 * is inline in memsim.h.
 */
#include "memsim.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* A set's record (gp_cache's comment) for `ways` ways: the hint, sector
 * and dirty bytes, the recency neighbours (2-byte aligned), then the tags
 * (8-byte aligned); its size a multiple of 8 so the next record's fields
 * are aligned too.  The hints come first so that a lookup's 16-byte read
 * of them (from a multiple of 16 below the ways) ends inside the record
 * (at most the ways rounded up to 16, never above 15 x ways rounded up to
 * 8): no padding after the last record, whose end a short launch never
 * writes. */
static uint32_t newer_offset(uint32_t ways) {
  return (3u * ways + 1u) & ~1u;
}
static uint32_t tags_offset(uint32_t ways) {
  return (newer_offset(ways) + 4u * ways + 7u) & ~7u;
}
static uint32_t record_bytes(uint32_t ways) {
  return tags_offset(ways) + 8u * ways;
}

/* Where the per-set fields end and the records begin: the slots, then the
 * fill counts and recency ends (4 + 3 x 2 bytes a set), rounded up to 8. */
static size_t records_offset(uint32_t sets) {
  return ((size_t)sets * 10u + 7u) & ~(size_t)7u;
}

/* The bytes of a cache's one allocation for `sets` sets of `ways` ways:
 * the per-set fields and a record per set.
 * One block instead of several: a timed launch builds an L1 per SM it uses
 * and an L2 cache per slice it touches (67 of a100's 80 slices on each
 * launch of bfs), and the allocator's calls were a visible part of a short
 * launch. */
static size_t block_bytes(uint32_t sets, uint32_t ways) {
  return records_offset(sets) + (size_t)sets * record_bytes(ways);
}

/* Sizes the tag arrays: sets = size / 128 B / ways (size 0: no cache).
 * A tag is a 128 B trace line whatever the line size: a cache of shorter
 * lines holds each trace line's lines in one entry (gp_cache_fill_mask
 * says which it fills), so its capacity in bytes is kept and a trace
 * line's lines leave the cache together (a deviation from a cache of
 * 64 B lines, whose two halves of a trace line may sit in different
 * sets).
 * A set's record takes the next free slot at its first fill, so the sets a
 * launch uses lie together at the block's start whatever their numbers: a
 * short launch touches a few sets of each of many L2 slices (bfs on a100:
 * 67 slices of 256 sets), and records laid out by set number (or one array
 * per field) made each new set a page fault or more; the untouched rest of
 * the block is never written, so the system never maps it. */
int gp_cache_init(gp_cache *c, const gp_alloc *alloc, const gp_cache_config *config,
                  gp_error *err) {
  uint64_t lines;
  uint8_t m;
  memset(c, 0, sizeof *c);
  c->alloc = *alloc;
  c->config = *config;
  for (m = 0; m < 16; m++)
    c->fill[m] = gp_cache_fill_mask(config, m);
  if (config->size_bytes == 0)
    return GP_OK;
  if (config->line_bytes == 0 || config->ways == 0)
    return gp_error_set(err, "cache: line size and ways must be above 0");
  if (config->line_bytes > GP_TRACE_LINE_BYTES)
    return gp_error_set(err, "cache: %u B lines, longer than the trace's %u B lines (not modelled)",
                        config->line_bytes, (unsigned)GP_TRACE_LINE_BYTES);
  if (config->ways > UINT16_MAX)
    return gp_error_set(err, "cache: %u ways, more than the %u a set can hold", config->ways,
                        (unsigned)UINT16_MAX);
  lines = config->size_bytes / GP_TRACE_LINE_BYTES;
  if (lines < config->ways)
    return gp_error_set(err, "cache: %llu bytes hold %llu lines, fewer than its %u ways",
                        (unsigned long long)config->size_bytes, (unsigned long long)lines,
                        config->ways);
  c->sets = (uint32_t)(lines / config->ways);
  if ((uint64_t)c->sets * record_bytes(config->ways) > UINT32_MAX)
    return gp_error_set(err, "cache: %llu bytes (%u sets) need over 4 GB of tag records (not modelled)",
                        (unsigned long long)config->size_bytes, c->sets);
  c->record_bytes = record_bytes(config->ways);
  c->newer_offset = newer_offset(config->ways);
  c->tags_offset = tags_offset(config->ways);
  c->slot = gp_malloc(alloc, block_bytes(c->sets, config->ways));
  if (!c->slot) {
    gp_cache_free(c);
    return gp_error_set(err, "cache: out of memory");
  }
  c->filled = (uint16_t *)(c->slot + c->sets);
  c->mru = c->filled + c->sets;
  c->lru = c->mru + c->sets;
  c->records = (uint8_t *)c->slot + records_offset(c->sets);
  c->set_mask = (c->sets & (c->sets - 1)) == 0 ? c->sets - 1 : 0;
  /* a set's ways [filled, ways) are invalid and never read, nor is an
   * unfilled set's slot: only the fill counts start at zero (a replay on a
   * large L2 need not clear megabytes) */
  memset(c->filled, 0, c->sets * sizeof *c->filled);
  return GP_OK;
}

void gp_cache_free(gp_cache *c) {
  gp_free(&c->alloc, c->slot, block_bytes(c->sets, c->config.ways));
  c->slot = NULL;
  c->filled = c->mru = c->lru = NULL;
  c->records = NULL;
  c->records_used = 0;
}

/* The set of `line` in a cache with sets: line mod sets, by a mask
 * (precomputed at init) when the count is a power of two (the common case;
 * a 64-bit division costs tens of cycles on every request). */
static inline uint32_t set_of(const gp_cache *c, uint64_t line) {
  return c->set_mask || c->sets == 1 ? (uint32_t)(line & c->set_mask) : (uint32_t)(line % c->sets);
}

uint32_t gp_cache_set_of(const gp_cache *c, uint64_t line) {
  return c->sets ? set_of(c, line) : 0;
}

/* A way's hint: the top byte of a multiplicative hash of its line, so
 * lines of one set (which share their low bits) rarely share a hint. */
static inline uint8_t hint_of(uint64_t line) {
  return (uint8_t)((line * 0x9E3779B97F4A7C15ull) >> 56);
}

/* The ways among 16 hint bytes from `hints` whose hint is `hint`, as a
 * bit mask (bit i: way i): one SSE2 compare where the host has it. */
static inline uint32_t hint_matches(const uint8_t *hints, uint8_t hint) {
#ifdef __SSE2__
  __m128i h = _mm_loadu_si128((const __m128i *)(const void *)hints);
  return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(h, _mm_set1_epi8((char)hint)));
#else
  uint32_t i, m = 0;
  for (i = 0; i < 16; i++)
    m |= (uint32_t)(hints[i] == hint) << i;
  return m;
#endif
}

/* A filled set's record's fields (gp_cache's comment), found once per
 * access (the byte stores into a record could otherwise make the compiler
 * reload the cache's fields after each). */
typedef struct set_view {
  uint8_t *hints, *sectors, *dirty;
  uint16_t *newer, *older;
  uint64_t *tags;
} set_view;

static inline set_view view_of(const gp_cache *c, uint32_t set) {
  uint8_t *rec = c->records + c->slot[set];
  uint32_t ways = c->config.ways;
  set_view v;
  v.hints = rec;
  v.sectors = rec + ways;
  v.dirty = rec + 2u * ways;
  v.newer = (uint16_t *)(void *)(rec + c->newer_offset);
  v.older = v.newer + ways;
  v.tags = (uint64_t *)(void *)(rec + c->tags_offset);
  return v;
}

/* The way (within its set) of the set whose record is `v` and whose
 * first `filled` ways are filled (at least one) holding `line`, -1 when
 * none: a line is in at most one filled way (it is filled only when
 * absent).  Sixteen ways' hints are compared at once, the ways past the
 * filled ones masked off; only a matching hint's tag is read.  Returns
 * what a scan of the filled ways' tags returns: a miss in a full 16-way
 * set read 16 tags, now 16 bytes. */
static inline int find_way(const set_view *v, uint32_t filled, uint64_t line) {
  const uint64_t *tags = v->tags;
  uint8_t hint;
  uint32_t w;
  if (filled <= 4) { /* a set still filling (a short launch's): its few tags */
    for (w = 0; w < filled; w++)
      if (tags[w] == line + 1)
        return (int)w;
    return -1;
  }
  hint = hint_of(line);
  if (filled <= 16) { /* every preset's sets: one compare, no loop */
    uint32_t match = hint_matches(v->hints, hint) & ((1u << filled) - 1);
    for (; match; match &= match - 1) {
      uint32_t way = (uint32_t)__builtin_ctz(match);
      if (tags[way] == line + 1)
        return (int)way;
    }
    return -1;
  }
  for (w = 0; w < filled; w += 16) {
    uint32_t match = hint_matches(v->hints + w, hint);
    if (filled - w < 16)
      match &= (1u << (filled - w)) - 1;
    for (; match; match &= match - 1) {
      uint32_t way = w + (uint32_t)__builtin_ctz(match);
      if (tags[way] == line + 1)
        return (int)way;
    }
  }
  return -1;
}

int gp_cache_contains(const gp_cache *c, uint64_t line) {
  uint32_t set;
  set_view v;
  if (c->sets == 0)
    return 0;
  set = gp_cache_set_of(c, line);
  if (c->filled[set] == 0)
    return 0;
  v = view_of(c, set);
  return find_way(&v, c->filled[set], line) >= 0;
}

/* Makes filled way `w` of set `set` (its record `v`) the most recent: a
 * hit's use.  The recency list is what a per-way use stamp would order
 * (every use is a new, larger stamp), kept so that the least recent way is
 * known without a scan. */
static inline void touch(gp_cache *c, uint32_t set, const set_view *v, uint16_t w) {
  uint16_t *newer = v->newer, *older = v->older, mru = c->mru[set];
  if (mru == w)
    return;
  if (c->lru[set] == w) {
    c->lru[set] = newer[w];
  } else { /* unlink it */
    older[newer[w]] = older[w];
    newer[older[w]] = newer[w];
  }
  older[w] = mru;
  newer[mru] = w;
  c->mru[set] = w;
}

/* The way (within the set) a missing line fills in set `set` (its record
 * `v`, `filled` ways filled), made the most recent: the first invalid way
 * (ways fill in order), else the least recently used, whose line leaves
 * (evicted_line / evicted_dirty / evicted_sectors, so the caller can send
 * a dirty one downstream).  The set's first fill takes the next free
 * record (*v is set to it).  Only recency lists and victims' fields are
 * written here: the way's own bytes are the caller's, stored last. */
static inline uint32_t fill_way(gp_cache *c, uint32_t set, set_view *v, uint32_t filled) {
  uint16_t w, mru;
  if (filled == 0) { /* the set's first fill: the next free record */
    c->slot[set] = c->records_used++ * c->record_bytes;
    *v = view_of(c, set);
    c->mru[set] = c->lru[set] = 0;
    c->filled[set] = 1;
    return 0;
  }
  mru = c->mru[set];
  if (filled < c->config.ways) { /* an invalid way becomes valid */
    w = (uint16_t)filled;
    c->filled[set] = (uint16_t)(filled + 1);
  } else {
    w = c->lru[set];
    c->evicted = 1;
    c->evicted_line = v->tags[w] - 1;
    c->evicted_dirty = v->dirty[w];
    c->evicted_sectors = v->sectors[w];
    if (v->dirty[w])
      c->stats.writebacks++;
    if (mru == w) /* one way: it stays the most recent */
      return w;
    c->lru[set] = v->newer[w];
  }
  v->older[w] = mru;
  v->newer[mru] = w;
  c->mru[set] = w;
  return w;
}

uint8_t gp_cache_fill_mask(const gp_cache_config *c, uint8_t mask) {
  if (c->sectored || c->line_bytes <= 32)
    return mask;
  if (c->line_bytes < GP_TRACE_LINE_BYTES) /* 64 B lines: the halves touched */
    return (uint8_t)((mask & 0x3 ? 0x3 : 0) | (mask & 0xc ? 0xc : 0));
  return 0x0f;
}

/*
 * One request for the sectors in `mask` of `line`.  Reads: a hit needs every
 * requested sector valid (a non-sectored cache fills whole lines, so there
 * a present line always hits); a missing line is filled into the LRU way,
 * missing sectors of a present line are added.  `missing` is what the
 * fill fetches from the next level (gp_cache_fill_mask of the request, less
 * what is present); for a write, the written sectors the line lacks.  Writes: write-back caches
 * allocate and mark the line dirty; write-through caches update a present
 * line (LRU touch) and never allocate.  Every use makes the line its set's
 * most recent.
 */
gp_cache_result gp_cache_access(gp_cache *c, uint64_t line, uint8_t mask, int is_write) {
  set_view v;
  uint32_t set, filled, w;
  int found = -1;
  uint8_t full = mask < 16 ? c->fill[mask] : gp_cache_fill_mask(&c->config, mask);
  c->evicted = 0;
  c->way = -1;
  c->missing = is_write ? mask : full;
  c->stats.accesses++;
  if (c->sets == 0) {
    c->stats.misses++;
    return GP_CACHE_MISS;
  }
  set = set_of(c, line);
  filled = c->filled[set];
  if (filled > 0) { /* a set never filled has no record yet: a miss */
    v = view_of(c, set);
    /* a miss in a full set reads its least recent way's tag next: fetch it
     * while the hints are compared (a lookup no longer reads the tags) */
    if (filled == c->config.ways)
      __builtin_prefetch(&v.tags[c->lru[set]]);
    found = find_way(&v, filled, line);
  }
  if (found >= 0) {
    gp_cache_result r = GP_CACHE_HIT;
    uint8_t present;
    w = (uint32_t)found;
    present = v.sectors[w];
    c->way = (int64_t)set * c->config.ways + w;
    c->missing = (uint8_t)((is_write ? mask : full) & ~present);
    if ((present & full) != full) {
      r = GP_CACHE_SECTOR_MISS;
      c->stats.sector_misses++;
      if (is_write && !c->config.write_back) {
        c->stats.misses++;
        return r; /* write-through: no sector allocation either */
      }
    }
    /* the recency list first: a byte store to the record would make the
     * compiler read the set's fields again */
    touch(c, set, &v, (uint16_t)w);
    v.sectors[w] = present | full;
    if (is_write && c->config.write_back)
      v.dirty[w] = 1;
    if (r == GP_CACHE_HIT)
      c->stats.hits++;
    else
      c->stats.misses++;
    return r;
  }
  c->stats.misses++;
  if (is_write && !c->config.write_back)
    return GP_CACHE_MISS; /* write-through, no write-allocate */
  w = fill_way(c, set, &v, filled);
  c->way = (int64_t)set * c->config.ways + w;
  v.tags[w] = line + 1;
  v.hints[w] = hint_of(line);
  v.sectors[w] = full;
  v.dirty[w] = (uint8_t)(is_write != 0);
  return GP_CACHE_MISS;
}
