/*
 * memsim_cache.c -- tag-only set-associative caches (true LRU, sectored or
 * not, write-through/no-allocate or write-back/allocate); the L2 slice hash
 * is inline in memsim.h.
 */
#include "memsim.h"
#include "memsim_cache_access.h"

#include <string.h>

/* A set's record's bytes (record_tags_offset, memsim_cache_access.h, and
 * the tags).  The hints come first so that a lookup's 16-byte read of them
 * (from a multiple of 16 below the ways) ends inside the record (at most
 * the ways rounded up to 16, never above 15 x ways rounded up to 8): no
 * padding after the last record, whose end a short launch never writes. */
static uint32_t record_bytes(uint32_t ways) {
  return record_tags_offset(ways) + 8u * ways;
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
  c->newer_offset = record_newer_offset(config->ways);
  c->tags_offset = record_tags_offset(config->ways);
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

/* Points dst's per-set fields and records into its block dst->slot. */
static void point_into_block(gp_cache *dst) {
  dst->filled = (uint16_t *)(dst->slot + dst->sets);
  dst->mru = dst->filled + dst->sets;
  dst->lru = dst->mru + dst->sets;
  dst->records = (uint8_t *)dst->slot + records_offset(dst->sets);
}

/* Copies src's state into dst's block: the per-set fields whole and the
 * records of the sets filled so far (the rest was never written, nor is
 * read). */
static void copy_block(gp_cache *dst, const gp_cache *src) {
  uint32_t *slot = dst->slot;
  *dst = *src;
  dst->slot = slot;
  point_into_block(dst);
  memcpy(dst->slot, src->slot, records_offset(src->sets));
  memcpy(dst->records, src->records, (size_t)src->records_used * src->record_bytes);
}

/* A copy of cache src into dst, with its own allocation (gp_cache_free
 * frees it), or into dst's own block when dst is a cache of the same
 * configuration already (`reuse`: a sampled replay copies its caches before
 * each prefix's partial wave into the same scratch caches). */
int gp_cache_copy(gp_cache *dst, const gp_cache *src, int reuse, gp_error *err) {
  if (src->slot == NULL) {
    if (reuse)
      gp_cache_free(dst);
    *dst = *src; /* no cache (size 0) */
    return GP_OK;
  }
  if (!(reuse && dst->slot != NULL && dst->sets == src->sets &&
        dst->config.ways == src->config.ways)) {
    if (reuse)
      gp_cache_free(dst);
    dst->slot = gp_malloc(&src->alloc, block_bytes(src->sets, src->config.ways));
    if (dst->slot == NULL) {
      dst->filled = dst->mru = dst->lru = NULL;
      dst->records = NULL;
      return gp_error_set(err, "cache: out of memory");
    }
  }
  copy_block(dst, src);
  return GP_OK;
}

uint32_t gp_cache_set_of(const gp_cache *c, uint64_t line) {
  return c->sets ? set_of(c, line) : 0;
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

uint8_t gp_cache_fill_mask(const gp_cache_config *c, uint8_t mask) {
  if (c->sectored || c->line_bytes <= 32)
    return mask;
  if (c->line_bytes < GP_TRACE_LINE_BYTES) /* 64 B lines: the halves touched */
    return (uint8_t)((mask & 0x3 ? 0x3 : 0) | (mask & 0xc ? 0xc : 0));
  return 0x0f;
}

/* One request (gp_cache_lookup, memsim_cache_access.h), its outcome stored
 * into the cache's last-access fields, the way it used included. */
gp_cache_result gp_cache_access(gp_cache *c, uint64_t line, uint8_t mask, int is_write) {
  gp_cache_outcome o = gp_cache_lookup(c, line, mask, is_write);
  gp_cache_note(c, &o);
  c->way = o.used ? (int64_t)o.set * c->config.ways + o.way : -1;
  return o.result;
}
