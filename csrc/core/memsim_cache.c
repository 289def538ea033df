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

/* The bytes of a cache's one allocation for `sets` sets and n = sets x
 * ways ways: the tags, then the 16-bit recency lists and per-set fields,
 * then the per-way sector, dirty and hint bytes and 16 bytes of padding
 * (a lookup reads a set's hints 16 at a time; each part aligned for its
 * type).
 * One block instead of eight: a timed launch builds an L1 per SM it uses
 * and an L2 cache per slice it touches (67 of a100's 80 slices on each
 * launch of bfs), and the allocator's calls were a visible part of a short
 * launch. */
static size_t block_bytes(uint32_t sets, uint64_t n) {
  return (size_t)n * sizeof(uint64_t) + (size_t)(2 * n + 3 * (uint64_t)sets) * sizeof(uint16_t) +
         (size_t)(3 * n + 16);
}

/* Sizes the tag arrays: sets = size / 128 B / ways (size 0: no cache).
 * A tag is a 128 B trace line whatever the line size: a cache of shorter
 * lines holds each trace line's lines in one entry (gp_cache_fill_mask
 * says which it fills), so its capacity in bytes is kept and a trace
 * line's lines leave the cache together (a deviation from a cache of
 * 64 B lines, whose two halves of a trace line may sit in different
 * sets). */
int gp_cache_init(gp_cache *c, const gp_alloc *alloc, const gp_cache_config *config,
                  gp_error *err) {
  uint64_t lines, n;
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
  n = (uint64_t)c->sets * config->ways;
  c->tags = gp_malloc(alloc, block_bytes(c->sets, n));
  if (!c->tags) {
    gp_cache_free(c);
    return gp_error_set(err, "cache: out of memory");
  }
  c->newer = (uint16_t *)(c->tags + n);
  c->older = c->newer + n;
  c->mru = c->older + n;
  c->lru = c->mru + c->sets;
  c->filled = c->lru + c->sets;
  c->sectors = (uint8_t *)(c->filled + c->sets);
  c->dirty = c->sectors + n;
  c->hints = c->dirty + n;
  memset(c->hints + n, 0, 16); /* the padding: defined, never a match (masked) */
  c->set_mask = (c->sets & (c->sets - 1)) == 0 ? c->sets - 1 : 0;
  /* a set's ways [filled, ways) are invalid and never read: only the fill
   * counts start at zero (a replay on a large L2 need not clear megabytes) */
  memset(c->filled, 0, c->sets * sizeof *c->filled);
  return GP_OK;
}

void gp_cache_free(gp_cache *c) {
  gp_free(&c->alloc, c->tags, block_bytes(c->sets, (uint64_t)c->sets * c->config.ways));
  c->tags = NULL;
  c->sectors = c->dirty = c->hints = NULL;
  c->newer = c->older = c->mru = c->lru = c->filled = NULL;
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

/* The way of set `set` (its ways from `base`) holding `line`, -1 when
 * none: only the filled ways hold lines, and a line is in at most one of
 * them (it is filled only when absent).  Sixteen ways' hints are compared
 * at once, the ways past the filled ones masked off; only a matching
 * hint's tag is read.  Returns what a scan of the filled ways' tags
 * returns: a miss in a full 16-way set read 16 tags, now 16 bytes. */
static inline int64_t find_way(const gp_cache *c, uint32_t set, uint64_t base, uint64_t line) {
  const uint8_t *hints = c->hints + base;
  uint8_t hint;
  uint32_t w, filled = c->filled[set];
  if (filled <= 4) { /* a set still filling (a short launch's): its few tags */
    for (w = 0; w < filled; w++)
      if (c->tags[base + w] == line + 1)
        return (int64_t)(base + w);
    return -1;
  }
  hint = hint_of(line);
  for (w = 0; w < filled; w += 16) {
    uint32_t match = hint_matches(hints + w, hint);
    if (filled - w < 16)
      match &= (1u << (filled - w)) - 1;
    for (; match; match &= match - 1) {
      uint64_t way = base + w + (uint32_t)__builtin_ctz(match);
      if (c->tags[way] == line + 1)
        return (int64_t)way;
    }
  }
  return -1;
}

int gp_cache_contains(const gp_cache *c, uint64_t line) {
  uint32_t set;
  if (c->sets == 0)
    return 0;
  set = gp_cache_set_of(c, line);
  return find_way(c, set, (uint64_t)set * c->config.ways, line) >= 0;
}

/* Makes way `w` (0..ways-1) of set `set` (its ways from `base`) the most
 * recent: a use.  The recency list is what a per-way use stamp would order
 * (every use is a new, larger stamp), kept so that the least recent way is
 * known without a scan. */
static inline void touch(gp_cache *c, uint32_t set, uint64_t base, uint16_t w) {
  uint16_t *newer = c->newer + base, *older = c->older + base;
  if (c->filled[set] == 0) {
    c->mru[set] = c->lru[set] = w;
    c->filled[set] = 1;
    return;
  }
  if (c->mru[set] == w)
    return;
  if (w < c->filled[set]) { /* a valid way: unlink it */
    if (c->lru[set] == w) {
      c->lru[set] = newer[w];
    } else {
      older[newer[w]] = older[w];
      newer[older[w]] = newer[w];
    }
  } else {
    c->filled[set]++; /* the first invalid way becomes valid */
  }
  older[w] = c->mru[set];
  newer[c->mru[set]] = w;
  c->mru[set] = w;
}

/* The way to replace in a set: the first invalid one (ways fill in order),
 * else the least recently used.  Records a valid victim in evicted_line /
 * evicted_dirty so the caller can send a dirty one downstream. */
static inline uint64_t victim(gp_cache *c, uint32_t set, uint64_t base) {
  uint64_t best;
  if (c->filled[set] < c->config.ways)
    return base + c->filled[set];
  best = base + c->lru[set];
  c->evicted = 1;
  c->evicted_line = c->tags[best] - 1;
  c->evicted_dirty = c->dirty[best];
  c->evicted_sectors = c->sectors[best];
  if (c->dirty[best])
    c->stats.writebacks++;
  return best;
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
  uint64_t base;
  uint32_t set;
  int64_t way;
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
  base = (uint64_t)set * c->config.ways;
  /* a miss in a full set reads its least recent way's tag next: fetch it
   * while the hints are compared (a lookup no longer reads the tags) */
  if (c->filled[set] == c->config.ways)
    __builtin_prefetch(&c->tags[base + c->lru[set]]);
  way = find_way(c, set, base, line);
  if (way >= 0) {
    gp_cache_result r = GP_CACHE_HIT;
    c->way = way;
    c->missing = (uint8_t)((is_write ? mask : full) & ~c->sectors[way]);
    if ((c->sectors[way] & full) != full) {
      r = GP_CACHE_SECTOR_MISS;
      c->stats.sector_misses++;
      if (is_write && !c->config.write_back) {
        c->stats.misses++;
        return r; /* write-through: no sector allocation either */
      }
    }
    c->sectors[way] |= full;
    touch(c, set, base, (uint16_t)(way - (int64_t)base));
    if (is_write && c->config.write_back)
      c->dirty[way] = 1;
    if (r == GP_CACHE_HIT)
      c->stats.hits++;
    else
      c->stats.misses++;
    return r;
  }
  c->stats.misses++;
  if (is_write && !c->config.write_back)
    return GP_CACHE_MISS; /* write-through, no write-allocate */
  way = (int64_t)victim(c, set, base);
  c->way = way;
  c->tags[way] = line + 1;
  c->hints[way] = hint_of(line);
  c->sectors[way] = full;
  c->dirty[way] = (uint8_t)(is_write != 0);
  touch(c, set, base, (uint16_t)(way - (int64_t)base));
  return GP_CACHE_MISS;
}
