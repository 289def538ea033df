/*
 * memsim_cache.c -- tag-only caches, shared-memory banks, CC 1.x coalescing,
 * L2 slice hashing.
 */
#include "memsim.h"

#include <string.h>

int gp_cache_init(gp_cache *c, const gp_alloc *alloc, const gp_cache_config *config,
                  gp_error *err) {
  uint64_t lines, n;
  memset(c, 0, sizeof *c);
  c->alloc = *alloc;
  c->config = *config;
  if (config->size_bytes == 0)
    return GP_OK;
  if (config->line_bytes == 0 || config->ways == 0)
    return gp_error_set(err, "cache: line size and ways must be above 0");
  lines = config->size_bytes / config->line_bytes;
  if (lines < config->ways)
    return gp_error_set(err, "cache: %llu bytes hold %llu lines, fewer than its %u ways",
                        (unsigned long long)config->size_bytes, (unsigned long long)lines,
                        config->ways);
  c->sets = (uint32_t)(lines / config->ways);
  n = (uint64_t)c->sets * config->ways;
  c->tags = gp_malloc(alloc, n * sizeof *c->tags);
  c->stamp = gp_malloc(alloc, n * sizeof *c->stamp);
  c->sectors = gp_malloc(alloc, n);
  c->dirty = gp_malloc(alloc, n);
  if (!c->tags || !c->stamp || !c->sectors || !c->dirty) {
    gp_cache_free(c);
    return gp_error_set(err, "cache: out of memory");
  }
  memset(c->tags, 0, n * sizeof *c->tags);
  memset(c->stamp, 0, n * sizeof *c->stamp);
  memset(c->sectors, 0, n);
  memset(c->dirty, 0, n);
  return GP_OK;
}

void gp_cache_free(gp_cache *c) {
  uint64_t n = (uint64_t)c->sets * c->config.ways;
  gp_free(&c->alloc, c->tags, n * sizeof *c->tags);
  gp_free(&c->alloc, c->stamp, n * sizeof *c->stamp);
  gp_free(&c->alloc, c->sectors, n);
  gp_free(&c->alloc, c->dirty, n);
  c->tags = c->stamp = NULL;
  c->sectors = c->dirty = NULL;
}

uint32_t gp_cache_set_of(const gp_cache *c, uint64_t line) {
  return c->sets ? (uint32_t)(line % c->sets) : 0;
}

static int64_t find_way(const gp_cache *c, uint64_t base, uint64_t line) {
  uint32_t w;
  for (w = 0; w < c->config.ways; w++)
    if (c->tags[base + w] == line + 1)
      return (int64_t)(base + w);
  return -1;
}

int gp_cache_contains(const gp_cache *c, uint64_t line) {
  if (c->sets == 0)
    return 0;
  return find_way(c, (uint64_t)gp_cache_set_of(c, line) * c->config.ways, line) >= 0;
}

/* The way to replace in a set: an invalid one, else the least recent. */
static uint64_t victim(gp_cache *c, uint64_t base) {
  uint64_t best = base;
  uint32_t w;
  for (w = 0; w < c->config.ways; w++) {
    if (c->tags[base + w] == 0)
      return base + w;
    if (c->stamp[base + w] < c->stamp[best])
      best = base + w;
  }
  if (c->dirty[best])
    c->stats.writebacks++;
  return best;
}

gp_cache_result gp_cache_access(gp_cache *c, uint64_t line, uint8_t mask, int is_write) {
  uint64_t base;
  int64_t way;
  uint8_t full = c->config.sectored ? mask : 0x0f;
  c->stats.accesses++;
  if (c->sets == 0) {
    c->stats.misses++;
    return GP_CACHE_MISS;
  }
  base = (uint64_t)gp_cache_set_of(c, line) * c->config.ways;
  way = find_way(c, base, line);
  if (way >= 0) {
    gp_cache_result r = GP_CACHE_HIT;
    if ((c->sectors[way] & full) != full) {
      r = GP_CACHE_SECTOR_MISS;
      c->stats.sector_misses++;
      if (is_write && !c->config.write_back) {
        c->stats.misses++;
        return r; /* write-through: no sector allocation either */
      }
    }
    c->sectors[way] |= full;
    c->stamp[way] = ++c->clock;
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
  way = (int64_t)victim(c, base);
  c->tags[way] = line + 1;
  c->sectors[way] = full;
  c->dirty[way] = (uint8_t)(is_write != 0);
  c->stamp[way] = ++c->clock;
  return GP_CACHE_MISS;
}

uint32_t gp_l2_slice_of(uint64_t line, uint32_t slices) {
  uint64_t h = line;
  if (slices <= 1)
    return 0;
  h ^= h >> 7;
  h ^= h >> 13;
  h ^= h >> 23;
  return (uint32_t)(h % slices);
}

uint32_t gp_shared_passes(const uint64_t *offsets, uint32_t n, uint32_t width,
                          uint32_t banks, uint32_t bank_bytes) {
  /* The distinct words the lanes touch (32 lanes x at most 16 words each),
   * then how many of them fall in each bank. */
  uint64_t words[512];
  uint32_t count[256], distinct = 0, worst = 0, i, j;
  if (banks == 0 || banks > 256 || bank_bytes == 0)
    return n > 0;
  for (i = 0; i < n && i < 32; i++) {
    uint64_t first = offsets[i] / bank_bytes;
    uint64_t last = (offsets[i] + (width ? width : 1) - 1) / bank_bytes;
    uint64_t word;
    for (word = first; word <= last && word - first < 16; word++) {
      for (j = 0; j < distinct && words[j] != word; j++)
        ;
      if (j == distinct)
        words[distinct++] = word;
    }
  }
  memset(count, 0, sizeof count);
  for (j = 0; j < distinct; j++) {
    uint32_t b = (uint32_t)(words[j] % banks);
    if (++count[b] > worst)
      worst = count[b];
  }
  return worst;
}

uint32_t gp_coalesce_cc1x(const uint64_t *addrs, uint32_t n, uint32_t width,
                          uint64_t *txn_addr, uint32_t *txn_bytes) {
  uint32_t segment = width == 1 ? 32 : width == 2 ? 64 : 128, count = 0, i;
  uint64_t seen[16];
  for (i = 0; i < n && i < 16; i++) {
    uint64_t seg = addrs[i] / segment;
    uint32_t j;
    for (j = 0; j < count && seen[j] != seg; j++)
      ;
    if (j == count)
      seen[count++] = seg;
  }
  /* For each segment: the smallest aligned 32/64/128 B piece holding the
   * bytes the half-warp uses in it. */
  for (i = 0; i < count; i++) {
    uint64_t lo = UINT64_MAX, hi = 0, size;
    uint32_t j;
    for (j = 0; j < n && j < 16; j++) {
      if (addrs[j] / segment != seen[i])
        continue;
      if (addrs[j] < lo)
        lo = addrs[j];
      if (addrs[j] + width - 1 > hi)
        hi = addrs[j] + width - 1;
    }
    size = segment;
    while (size > 32 && lo / (size / 2) == hi / (size / 2))
      size /= 2;
    txn_addr[i] = lo / size * size;
    txn_bytes[i] = (uint32_t)size;
  }
  return count;
}

uint32_t gp_cc1x_requests(const uint64_t *addrs, uint32_t n, uint32_t width,
                          uint64_t *lines, uint8_t *masks) {
  uint32_t count = 0, half;
  for (half = 0; half * 16 < n && half < 2; half++) {
    uint64_t addr[16];
    uint32_t bytes[16], t, m = n - half * 16 < 16 ? n - half * 16 : 16;
    uint32_t txns = gp_coalesce_cc1x(addrs + half * 16, m, width, addr, bytes);
    for (t = 0; t < txns; t++) {
      /* transactions are aligned to their size, so one stays in one line */
      uint32_t first = (uint32_t)((addr[t] >> 5) & 3), sectors = bytes[t] / 32;
      lines[count] = addr[t] >> 7;
      masks[count++] = (uint8_t)(((1u << sectors) - 1u) << first);
    }
  }
  return count;
}
