/*
 * memsim_cache_access.h -- a cache's lookup, recency list and fill, inline
 * (memsim_cache.c's gp_cache_access, and the functional replay's request
 * path, which calls it two or three times a request: the call's register
 * saves and the result's round trip through memory were about a tenth of
 * a replay).  Private to the memory model's files; gp_cache's comment
 * (memsim.h) describes the layout.
 */
#ifndef GP_MEMSIM_CACHE_ACCESS_H
#define GP_MEMSIM_CACHE_ACCESS_H

#include "memsim.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The set of `line` in a cache with sets: line mod sets, by a mask
 * (precomputed at init) when the count is a power of two (the common case;
 * a 64-bit division costs tens of cycles on every request). */
static inline uint32_t set_of(const gp_cache *c, uint64_t line) {
  return c->set_mask || c->sets == 1 ? (uint32_t)(line & c->set_mask) : (uint32_t)(line % c->sets);
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

/* A set's record (gp_cache's comment) for `ways` ways: the hint, sector
 * and dirty bytes, the recency neighbours (2-byte aligned), then the tags
 * (8-byte aligned); its size a multiple of 8 so the next record's fields
 * are aligned too (memsim_cache.c's record_bytes).  Here so that a lookup
 * whose way count is a constant has its fields at constant offsets. */
static inline uint32_t record_newer_offset(uint32_t ways) {
  return (3u * ways + 1u) & ~1u;
}
static inline uint32_t record_tags_offset(uint32_t ways) {
  return (record_newer_offset(ways) + 4u * ways + 7u) & ~7u;
}

/* A filled set's record's fields (gp_cache's comment), found once per
 * access (the byte stores into a record could otherwise make the compiler
 * reload the cache's fields after each). */
typedef struct set_view {
  uint8_t *hints, *sectors, *dirty;
  uint16_t *newer, *older;
  uint64_t *tags;
} set_view;

/* view_of for a cache of `ways` ways: with a constant (the 16-way L2s of
 * every preset, gp_cache_lookup_16) every field lies at a constant offset
 * in the record (record_newer_offset, record_tags_offset), so no field's
 * address is computed at all. */
static inline __attribute__((always_inline)) set_view view_of_ways(const gp_cache *c, uint32_t set,
                                                                   uint32_t ways) {
  uint8_t *rec = c->records + c->slot[set];
  int constant = __builtin_constant_p(ways);
  set_view v;
  v.hints = rec;
  v.sectors = rec + ways;
  v.dirty = rec + 2u * ways;
  v.newer = (uint16_t *)(void *)(rec + (constant ? record_newer_offset(ways) : c->newer_offset));
  v.older = v.newer + ways;
  v.tags = (uint64_t *)(void *)(rec + (constant ? record_tags_offset(ways) : c->tags_offset));
  return v;
}

/* The record's fields of filled set `set` of any cache. */
static inline set_view view_of(const gp_cache *c, uint32_t set) {
  return view_of_ways(c, set, c->config.ways);
}

/* The way (within its set) of the set whose record is `v` and whose
 * first `filled` ways are filled (at least one) holding `line`, -1 when
 * none: a line is in at most one filled way (it is filled only when
 * absent).  Sixteen ways' hints are compared at once, the ways past the
 * filled ones masked off; only a matching hint's tag is read.  Returns
 * what a scan of the filled ways' tags returns: a miss in a full 16-way
 * set read 16 tags, now 16 bytes. */
static inline __attribute__((always_inline)) int find_way_ways(const set_view *v, uint32_t filled,
                                                              uint64_t line, uint32_t ways) {
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
  /* every preset's sets: one compare, no loop (a constant way count up to
   * 16 takes no test) */
  if ((__builtin_constant_p(ways) && ways <= 16) || filled <= 16) {
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

/* find_way_ways for any way count (gp_cache_contains). */
static inline int find_way(const set_view *v, uint32_t filled, uint64_t line) {
  return find_way_ways(v, filled, line, UINT32_MAX);
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

/* What one lookup did (gp_cache_lookup): returned by value, so an inline
 * lookup's caller reads it from registers.  gp_cache_access_inline copies
 * it into the cache's last-access fields (gp_cache's comment). */
typedef struct gp_cache_outcome {
  gp_cache_result result;
  int used;                /* a way was used: way `way` of set `set` */
  uint32_t set, way;       /* the way within its set */
  uint8_t missing;         /* requested sectors that were not valid (to fetch) */
  uint8_t evicted;         /* a valid line left: the three fields below */
  uint8_t evicted_dirty, evicted_sectors;
  uint64_t evicted_line;
} gp_cache_outcome;

/* The way (within the set) a missing line fills in set `set` (its record
 * `v`, `filled` ways filled), made the most recent: the first invalid way
 * (ways fill in order), else the least recently used, whose line leaves
 * (o's evicted fields, so the caller can send a dirty one downstream).
 * The set's first fill takes the next free record (*v is set to it).  Only
 * recency lists are written here: the way's own bytes are the caller's,
 * stored last. */
static inline __attribute__((always_inline)) uint32_t fill_way(gp_cache *c, uint32_t set, set_view *v,
                                                                uint32_t filled, uint32_t ways,
                                                                gp_cache_outcome *o) {
  uint16_t w, mru;
  if (filled == 0) { /* the set's first fill: the next free record */
    c->slot[set] = c->records_used++ * c->record_bytes;
    *v = view_of_ways(c, set, ways);
    c->mru[set] = c->lru[set] = 0;
    c->filled[set] = 1;
    return 0;
  }
  mru = c->mru[set];
  if (filled < ways) { /* an invalid way becomes valid */
    w = (uint16_t)filled;
    c->filled[set] = (uint16_t)(filled + 1);
  } else {
    w = c->lru[set];
    o->evicted = 1;
    o->evicted_line = v->tags[w] - 1;
    o->evicted_dirty = v->dirty[w];
    o->evicted_sectors = v->sectors[w];
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

/*
 * One request for the sectors in `mask` of `line`.  Reads: a hit needs every
 * requested sector valid (a non-sectored cache fills whole lines, so there
 * a present line always hits); a missing line is filled into the LRU way,
 * missing sectors of a present line are added.  `missing` is what the
 * fill fetches from the next level (gp_cache_fill_mask of the request, less
 * what is present); for a write, the written sectors the line lacks.  Writes: write-back caches
 * allocate and mark the line dirty; write-through caches update a present
 * line (LRU touch) and never allocate.  Every use makes the line its set's
 * most recent.  The counters are the cache's; what the lookup did is
 * returned (the timed model reads it from registers: stored into the cache
 * and read back it was about a tenth of an L2 lookup).  `ways` is the
 * cache's way count, a constant in gp_cache_lookup_16's copy.
 */
static inline __attribute__((always_inline)) gp_cache_outcome
lookup_ways(gp_cache *c, uint64_t line, uint8_t mask, int is_write, uint32_t ways) {
  gp_cache_outcome o;
  set_view v;
  uint32_t set, filled, w;
  int found = -1;
  uint8_t full = mask < 16 ? c->fill[mask] : gp_cache_fill_mask(&c->config, mask);
  o.result = GP_CACHE_MISS;
  o.used = 0;
  o.set = o.way = 0;
  o.evicted = 0;
  o.evicted_dirty = o.evicted_sectors = 0;
  o.evicted_line = 0;
  o.missing = is_write ? mask : full;
  c->stats.accesses++;
  if (c->sets == 0) {
    c->stats.misses++;
    return o;
  }
  set = set_of(c, line);
  filled = c->filled[set];
  if (filled > 0) { /* a set never filled has no record yet: a miss */
    v = view_of_ways(c, set, ways);
    /* a miss in a full set reads its least recent way's tag next: fetch it
     * while the hints are compared (a lookup no longer reads the tags) */
    if (filled == ways)
      __builtin_prefetch(&v.tags[c->lru[set]]);
    found = find_way_ways(&v, filled, line, ways);
  }
  if (found >= 0) {
    uint8_t present;
    w = (uint32_t)found;
    present = v.sectors[w];
    o.result = GP_CACHE_HIT;
    o.used = 1, o.set = set, o.way = w;
    o.missing = (uint8_t)((is_write ? mask : full) & ~present);
    if ((present & full) != full) {
      o.result = GP_CACHE_SECTOR_MISS;
      c->stats.sector_misses++;
      if (is_write && !c->config.write_back) {
        c->stats.misses++;
        return o; /* write-through: no sector allocation either */
      }
    }
    /* the recency list first: a byte store to the record would make the
     * compiler read the set's fields again */
    touch(c, set, &v, (uint16_t)w);
    v.sectors[w] = present | full;
    if (is_write && c->config.write_back)
      v.dirty[w] = 1;
    if (o.result == GP_CACHE_HIT)
      c->stats.hits++;
    else
      c->stats.misses++;
    return o;
  }
  c->stats.misses++;
  if (is_write && !c->config.write_back)
    return o; /* write-through, no write-allocate */
  w = fill_way(c, set, &v, filled, ways, &o);
  o.used = 1, o.set = set, o.way = w;
  v.tags[w] = line + 1;
  v.hints[w] = hint_of(line);
  v.sectors[w] = full;
  v.dirty[w] = (uint8_t)(is_write != 0);
  return o;
}

/* lookup_ways, with the way count a constant for 16-way caches (every
 * preset's L2 slices): their record's fields at constant offsets, the
 * fill and victim tests against a constant (a copy of the lookup per
 * call site; the other caches share the general one). */
static inline __attribute__((always_inline)) gp_cache_outcome
gp_cache_lookup_16(gp_cache *c, uint64_t line, uint8_t mask, int is_write) {
  if (c->config.ways == 16)
    return lookup_ways(c, line, mask, is_write, 16);
  return lookup_ways(c, line, mask, is_write, c->config.ways);
}

/* lookup_ways for any way count: one copy of the lookup.  The timed model
 * takes this one for its L1s and L2s: with gp_cache_lookup_16 there (L2
 * only, or both) its lookups took 1.2 to 1.5 M fewer instructions on
 * bench sim's kernel but gcc took the MSHR take and retirement out of
 * line, +3.5 M in all (docs/memsim.md, "Round nine, second part"). */
static inline __attribute__((always_inline)) gp_cache_outcome
gp_cache_lookup(gp_cache *c, uint64_t line, uint8_t mask, int is_write) {
  return lookup_ways(c, line, mask, is_write, c->config.ways);
}

/* The last-access fields (gp_cache's comment) that the functional replay
 * reads, from an outcome: the missing sectors and the victim (`way` is
 * gp_cache_access's: the replay reads no way, and working it out per
 * lookup cost its replays about 1 %). */
static inline __attribute__((always_inline)) void
gp_cache_note(gp_cache *c, const gp_cache_outcome *o) {
  c->missing = o->missing;
  c->evicted = o->evicted;
  if (o->evicted) {
    c->evicted_line = o->evicted_line;
    c->evicted_dirty = o->evicted_dirty;
    c->evicted_sectors = o->evicted_sectors;
  }
}

/* gp_cache_lookup with the missing sectors and the victim stored into the
 * cache (gp_cache_note), for the functional replay's request path. */
static inline __attribute__((always_inline)) gp_cache_result
gp_cache_access_inline(gp_cache *c, uint64_t line, uint8_t mask, int is_write) {
  gp_cache_outcome o = gp_cache_lookup_16(c, line, mask, is_write);
  gp_cache_note(c, &o);
  return o.result;
}

#endif
