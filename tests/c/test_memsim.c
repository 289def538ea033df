/* Unit tests of the memory model: LRU and set indexing by hand, sectored
 * misses, write policies, bank conflicts, CC 1.x coalescing, slice hashing,
 * and the functional replay's AMAT (GPUMech Sec. V-B: 150 cycles). */
#include "gp_test.h"
#include "memsim.h"
#include "memsim_cache_access.h"
#include "synth.h"

#include <stdlib.h>
#include <string.h>

static gp_cache make(uint64_t size, uint32_t ways, int sectored, int write_back) {
  gp_cache c;
  gp_cache_config cfg;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  cfg.size_bytes = size, cfg.line_bytes = 128, cfg.ways = ways;
  cfg.sectored = sectored, cfg.write_back = write_back;
  if (gp_cache_init(&c, &a, &cfg, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return c;
}

/* 2 sets x 2 ways: even lines map to set 0, odd ones to set 1. */
static void test_lru_order_and_set_index(void) {
  gp_cache c = make(512, 2, 0, 0);
  CHECK_EQ_INT(c.sets, 2);
  CHECK_EQ_INT(gp_cache_set_of(&c, 5), 1);
  CHECK_EQ_INT(gp_cache_set_of(&c, 4), 0);
  CHECK_EQ_INT(gp_cache_access(&c, 0, 0xf, 0), GP_CACHE_MISS); /* set 0: {0} */
  CHECK_EQ_INT(gp_cache_access(&c, 2, 0xf, 0), GP_CACHE_MISS); /* {0, 2} */
  CHECK_EQ_INT(gp_cache_access(&c, 1, 0xf, 0), GP_CACHE_MISS); /* set 1 untouched by set 0 */
  CHECK_EQ_INT(gp_cache_access(&c, 0, 0xf, 0), GP_CACHE_HIT);  /* 0 most recent */
  CHECK_EQ_INT(gp_cache_access(&c, 4, 0xf, 0), GP_CACHE_MISS); /* evicts 2, the LRU */
  CHECK(gp_cache_contains(&c, 0));
  CHECK(!gp_cache_contains(&c, 2));
  CHECK(gp_cache_contains(&c, 4));
  CHECK(gp_cache_contains(&c, 1));
  CHECK_EQ_INT(gp_cache_access(&c, 2, 0xf, 0), GP_CACHE_MISS); /* evicts 0 */
  CHECK(!gp_cache_contains(&c, 0));
  CHECK_EQ_INT(c.stats.accesses, 6);
  CHECK_EQ_INT(c.stats.hits, 1);
  gp_cache_free(&c);
}

/* The recency list against the definition of true LRU: a reference that
 * stamps every use and evicts the smallest stamp (the first invalid way
 * before that), over 20,000 seeded reads and writes of 13 lines in one set
 * of 8 ways, both write policies: every result and every victim agree. */
static void test_lru_matches_use_stamps(void) {
  int write_back;
  for (write_back = 0; write_back <= 1; write_back++) {
    gp_cache c = make(8 * 128, 8, 0, write_back);
    uint64_t tag[8] = {0}, stamp[8] = {0}, clock = 0, x = 12345;
    int i, agree = 1;
    for (i = 0; i < 20000; i++) {
      uint64_t line;
      int is_write, w, found = -1, expect_evict = -1;
      gp_cache_result r;
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      line = (x >> 33) % 13;
      is_write = (int)((x >> 20) & 1);
      for (w = 0; w < 8; w++)
        if (tag[w] == line + 1)
          found = w;
      r = gp_cache_access(&c, line, 0xf, is_write);
      if (found >= 0) {
        agree &= r == GP_CACHE_HIT;
        stamp[found] = ++clock;
      } else {
        agree &= r == GP_CACHE_MISS;
        if (!is_write || write_back) {
          int v = -1;
          for (w = 0; w < 8 && v < 0; w++)
            if (tag[w] == 0)
              v = w;
          if (v < 0) {
            v = 0;
            for (w = 1; w < 8; w++)
              if (stamp[w] < stamp[v])
                v = w;
            expect_evict = (int)(tag[v] - 1);
          }
          tag[v] = line + 1;
          stamp[v] = ++clock;
        }
      }
      agree &= c.evicted == (expect_evict >= 0);
      if (expect_evict >= 0)
        agree &= c.evicted_line == (uint64_t)expect_evict;
    }
    CHECK(agree);
    gp_cache_free(&c);
  }
}

/* A plain reference of a tag-only true-LRU cache: per way its line + 1
 * (0: invalid), use stamp, sectors and dirty bit; a lookup scans every way
 * of the set, the victim is the first invalid way, else the smallest
 * stamp.  The rules are gp_cache_access's (header comment). */
typedef struct ref_cache {
  gp_cache_config cfg;
  uint32_t sets;
  uint64_t *tag, *stamp, clock;
  uint8_t *sectors, *dirty;
  gp_cache_stats stats;
} ref_cache;

typedef struct ref_result {
  gp_cache_result r;
  int64_t way;
  uint8_t missing;
  int evicted, evicted_dirty;
  uint64_t evicted_line;
  uint8_t evicted_sectors;
} ref_result;

static ref_result ref_access(ref_cache *c, uint64_t line, uint8_t mask, int is_write) {
  ref_result out;
  uint32_t ways = c->cfg.ways, w;
  uint64_t base = (line % c->sets) * ways;
  int64_t found = -1, v = -1;
  uint8_t full = gp_cache_fill_mask(&c->cfg, mask);
  memset(&out, 0, sizeof out);
  out.way = -1;
  out.missing = is_write ? mask : full;
  c->stats.accesses++;
  for (w = 0; w < ways; w++)
    if (c->tag[base + w] == line + 1)
      found = (int64_t)(base + w);
  if (found >= 0) {
    out.r = GP_CACHE_HIT;
    out.way = found;
    out.missing = (uint8_t)((is_write ? mask : full) & ~c->sectors[found]);
    if ((c->sectors[found] & full) != full) {
      out.r = GP_CACHE_SECTOR_MISS;
      c->stats.sector_misses++;
      c->stats.misses++;
      if (is_write && !c->cfg.write_back)
        return out;
    } else {
      c->stats.hits++;
    }
    c->sectors[found] |= full;
    c->stamp[found] = ++c->clock;
    if (is_write && c->cfg.write_back)
      c->dirty[found] = 1;
    return out;
  }
  out.r = GP_CACHE_MISS;
  c->stats.misses++;
  if (is_write && !c->cfg.write_back)
    return out;
  for (w = 0; w < ways && v < 0; w++)
    if (c->tag[base + w] == 0)
      v = (int64_t)(base + w);
  if (v < 0) {
    v = (int64_t)base;
    for (w = 1; w < ways; w++)
      if (c->stamp[base + w] < c->stamp[v])
        v = (int64_t)(base + w);
    out.evicted = 1;
    out.evicted_line = c->tag[v] - 1;
    out.evicted_dirty = c->dirty[v];
    out.evicted_sectors = c->sectors[v];
    c->stats.writebacks += c->dirty[v];
  }
  out.way = v;
  c->tag[v] = line + 1;
  c->sectors[v] = full;
  c->dirty[v] = (uint8_t)(is_write != 0);
  c->stamp[v] = ++c->clock;
  return out;
}

/* gp_cache_access, and gp_cache_access_inline (the replay's: its 16-way
 * caches take the lookup with the way count constant, gp_cache_lookup_16,
 * each field of a record at a constant offset), against the reference
 * over 60,000 seeded accesses per configuration: 3 sets (not a power of
 * two) and 4 sets, 1, 5, 16 and 40 ways (a direct-mapped cache, whose one
 * way is always the most recent;
 * one, two and three 16-way hint groups, the last partly filled),
 * sectored or not, 128 or 64 B lines, both write policies; about 2.5
 * lines per way of each set, so sets fill, lines return and one-byte
 * hints collide (40 ways hold pairs of equal hints most of the time).
 * Every result, used way, fetched mask, victim and counter agrees.  The
 * cache's memory starts full of 1s in every 16-bit word (dirty_alloc): a
 * recency link or way read before it is written (a direct-mapped set
 * taking its one way's "newer" link as the least recent way) shows. */
static void *dirty_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
static void test_cache_matches_reference(void) {
  static const uint32_t sets_of[] = {3, 4}, ways_of[] = {1, 5, 16, 40};
  uint32_t si, wi, variant;
  for (si = 0; si < 2; si++)
    for (wi = 0; wi < 4; wi++)
      for (variant = 0; variant < 8; variant++) {
        gp_cache c, inl;
        ref_cache ref;
        uint64_t ones = 0x0001000100010001ull;
        gp_alloc a;
        gp_error err;
        uint64_t x = 777 + variant * 31 + wi * 7 + si, n, pool;
        a.fn = dirty_alloc, a.ud = &ones;
        int i, agree = 1;
        memset(&ref, 0, sizeof ref);
        ref.cfg.ways = ways_of[wi];
        ref.cfg.line_bytes = variant & 4 ? 64 : 128;
        ref.cfg.sectored = (int)(variant & 1);
        ref.cfg.write_back = (int)((variant >> 1) & 1);
        ref.cfg.size_bytes = (uint64_t)sets_of[si] * ways_of[wi] * 128;
        ref.sets = sets_of[si];
        n = (uint64_t)ref.sets * ref.cfg.ways;
        pool = n * 5 / 2;
        ref.tag = calloc(n, sizeof *ref.tag);
        ref.stamp = calloc(n, sizeof *ref.stamp);
        ref.sectors = calloc(n, 1);
        ref.dirty = calloc(n, 1);
        CHECK(gp_cache_init(&c, &a, &ref.cfg, &err) == GP_OK);
        CHECK(gp_cache_init(&inl, &a, &ref.cfg, &err) == GP_OK);
        CHECK_EQ_INT(c.sets, ref.sets);
        for (i = 0; i < 60000 && ref.tag && ref.stamp && ref.sectors && ref.dirty; i++) {
          uint64_t line;
          uint8_t mask;
          int is_write;
          gp_cache_result r;
          ref_result e;
          x = x * 6364136223846793005ull + 1442695040888963407ull;
          line = (x >> 33) % pool * 1000003u; /* spread: high bits differ */
          mask = (uint8_t)(((x >> 20) & 0xf) | 1u << ((x >> 24) & 3));
          is_write = (int)((x >> 27) & 1);
          r = gp_cache_access(&c, line, mask, is_write);
          e = ref_access(&ref, line, mask, is_write);
          agree &= r == e.r && c.way == e.way && c.missing == e.missing && c.evicted == e.evicted;
          if (e.evicted)
            agree &= c.evicted_line == e.evicted_line && c.evicted_dirty == e.evicted_dirty &&
                     c.evicted_sectors == e.evicted_sectors;
          r = gp_cache_access_inline(&inl, line, mask, is_write);
          agree &= r == e.r && inl.missing == e.missing && inl.evicted == e.evicted;
          if (e.evicted)
            agree &= inl.evicted_line == e.evicted_line && inl.evicted_dirty == e.evicted_dirty &&
                     inl.evicted_sectors == e.evicted_sectors;
        }
        CHECK(agree);
        CHECK(memcmp(&c.stats, &ref.stats, sizeof c.stats) == 0);
        CHECK(memcmp(&inl.stats, &ref.stats, sizeof inl.stats) == 0);
        gp_cache_free(&c);
        gp_cache_free(&inl);
        free(ref.tag), free(ref.stamp), free(ref.sectors), free(ref.dirty);
      }
}

static void test_sectored_misses(void) {
  gp_cache c = make(1024, 2, 1, 0);
  CHECK_EQ_INT(gp_cache_access(&c, 7, 0x1, 0), GP_CACHE_MISS);
  CHECK_EQ_INT(c.missing, 0x1);
  CHECK_EQ_INT(gp_cache_access(&c, 7, 0x3, 0), GP_CACHE_SECTOR_MISS); /* sector 1 absent */
  CHECK_EQ_INT(c.missing, 0x2); /* only sector 1 is fetched */
  CHECK_EQ_INT(gp_cache_access(&c, 7, 0x2, 0), GP_CACHE_HIT);
  CHECK_EQ_INT(c.missing, 0);
  CHECK_EQ_INT(c.stats.sector_misses, 1);
  gp_cache_free(&c);
  /* a non-sectored cache fills the whole line */
  c = make(1024, 2, 0, 0);
  gp_cache_access(&c, 7, 0x1, 0);
  CHECK_EQ_INT(gp_cache_access(&c, 7, 0x8, 0), GP_CACHE_HIT);
  gp_cache_free(&c);
}

/* 64 B lines (the HD 7970's L1 and L2), not sectored: a tag is a 128 B
 * trace line whose two 64 B halves fill apart.  1 KB of 2 ways holds eight
 * trace lines (four sets), as 16 lines of 64 B would. */
static void test_half_line_granules(void) {
  gp_cache c;
  gp_cache_config cfg;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_timed_config t;
  uint64_t line;
  memset(&cfg, 0, sizeof cfg);
  cfg.size_bytes = 1024, cfg.line_bytes = 64, cfg.ways = 2;
  CHECK(gp_cache_init(&c, &a, &cfg, &err) == GP_OK);
  CHECK_EQ_INT(c.sets, 4);
  CHECK_EQ_INT(gp_cache_access(&c, 5, 0x1, 0), GP_CACHE_MISS);
  CHECK_EQ_INT(c.missing, 0x3);          /* the first half is fetched */
  CHECK_EQ_INT(gp_cache_access(&c, 5, 0x2, 0), GP_CACHE_HIT);
  CHECK_EQ_INT(gp_cache_access(&c, 5, 0x4, 0), GP_CACHE_SECTOR_MISS);
  CHECK_EQ_INT(c.missing, 0xc);          /* then the second */
  CHECK_EQ_INT(gp_cache_access(&c, 5, 0xf, 0), GP_CACHE_HIT);
  gp_cache_free(&c);
  /* capacity: 8 trace lines come back as hits, 16 thrash (LRU, 2 ways) */
  CHECK(gp_cache_init(&c, &a, &cfg, &err) == GP_OK);
  for (line = 0; line < 16; line++)
    gp_cache_access(&c, line % 8, 0xf, 0);
  CHECK_EQ_INT(c.stats.hits, 8);
  for (line = 0; line < 32; line++) /* 16 other lines, twice over */
    gp_cache_access(&c, 16 + line % 16, 0xf, 0);
  CHECK_EQ_INT(c.stats.hits, 8);
  gp_cache_free(&c);
  /* what a fill moves from DRAM, per cache kind */
  memset(&t, 0, sizeof t);
  t.dram_access_bytes = 32;
  t.l2.line_bytes = 64;
  CHECK_EQ_INT(gp_timed_fill_bytes(&t, 0x1), 64);
  CHECK_EQ_INT(gp_timed_fill_bytes(&t, 0x9), 128);
  t.l2.line_bytes = 128;
  CHECK_EQ_INT(gp_timed_fill_bytes(&t, 0x1), 128);
  t.l2.sectored = 1;
  CHECK_EQ_INT(gp_timed_fill_bytes(&t, 0x1), 32);
  /* lines longer than the trace's are refused, not half modelled */
  cfg.line_bytes = 256;
  CHECK(gp_cache_init(&c, &a, &cfg, &err) == GP_ERR);
  CHECK(strstr(err.msg, "256 B lines") != NULL);
}

static void test_write_policies(void) {
  gp_cache c = make(1024, 2, 0, 0); /* write-through, no write-allocate */
  CHECK_EQ_INT(gp_cache_access(&c, 3, 0xf, 1), GP_CACHE_MISS);
  CHECK(!gp_cache_contains(&c, 3));
  gp_cache_access(&c, 3, 0xf, 0);
  CHECK_EQ_INT(gp_cache_access(&c, 3, 0xf, 1), GP_CACHE_HIT);
  gp_cache_free(&c);
  c = make(256, 2, 0, 1); /* write-back: one set of 2 ways */
  CHECK_EQ_INT(gp_cache_access(&c, 0, 0xf, 1), GP_CACHE_MISS); /* allocates, dirty */
  CHECK(gp_cache_contains(&c, 0));
  gp_cache_access(&c, 1, 0xf, 0);
  gp_cache_access(&c, 2, 0xf, 0); /* evicts dirty line 0 */
  CHECK_EQ_INT(c.stats.writebacks, 1);
  gp_cache_access(&c, 3, 0xf, 0); /* evicts clean line 1 */
  CHECK_EQ_INT(c.stats.writebacks, 1);
  gp_cache_free(&c);
  c = make(0, 1, 0, 0); /* no cache */
  CHECK_EQ_INT(gp_cache_access(&c, 3, 0xf, 0), GP_CACHE_MISS);
  CHECK_EQ_INT(gp_cache_access(&c, 3, 0xf, 0), GP_CACHE_MISS);
}

static void test_bank_conflicts(void) {
  uint64_t off[32];
  uint32_t i;
  for (i = 0; i < 32; i++)
    off[i] = i * 4;
  CHECK_EQ_INT(gp_shared_passes(off, 32, 4, 32, 4), 1); /* unit stride */
  for (i = 0; i < 32; i++)
    off[i] = i * 8; /* stride 2 words: lanes l and l+16 share a bank */
  CHECK_EQ_INT(gp_shared_passes(off, 32, 4, 32, 4), 2);
  for (i = 0; i < 32; i++)
    off[i] = i * 128; /* stride 32 words: every lane in bank 0 */
  CHECK_EQ_INT(gp_shared_passes(off, 32, 4, 32, 4), 32);
  for (i = 0; i < 32; i++)
    off[i] = 64; /* broadcast */
  CHECK_EQ_INT(gp_shared_passes(off, 32, 4, 32, 4), 1);
  for (i = 0; i < 32; i++)
    off[i] = i * 8; /* 8-byte accesses, consecutive: 64 words over 32 banks */
  CHECK_EQ_INT(gp_shared_passes(off, 32, 8, 32, 4), 2);
}

/* The passes by definition, slowly: for each bank, the distinct words of
 * that bank any lane touches. */
static uint32_t passes_by_definition(const uint64_t *off, uint32_t n, uint32_t width,
                                     uint32_t banks, uint32_t bank_bytes) {
  uint32_t b, worst = 0;
  for (b = 0; b < banks; b++) {
    uint64_t seen[512];
    uint32_t distinct = 0, l, j;
    for (l = 0; l < n; l++) {
      uint64_t w;
      for (w = off[l] / bank_bytes; w <= (off[l] + width - 1) / bank_bytes; w++) {
        if (w % banks != b)
          continue;
        for (j = 0; j < distinct && seen[j] != w; j++)
          ;
        if (j == distinct)
          seen[distinct++] = w;
      }
    }
    if (distinct > worst)
      worst = distinct;
  }
  return worst;
}

/* 4000 seeded random accesses (lane count, width 1-16 B, offsets from a
 * small range so words repeat and banks collide, 16 or 32 banks of 4 or
 * 8 B) agree with the definition; in the second half the lanes come in
 * address order (the in-order path), a few of them broken by an
 * unaligned or a smaller address late in the warp. */
static void test_bank_conflicts_random(void) {
  uint64_t seed = 7, off[32];
  int t, agree = 1;
  for (t = 0; t < 4000; t++) {
    uint32_t n, l, widths[] = {1, 2, 4, 8, 16}, width, banks, bank_bytes;
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    n = 1 + (uint32_t)(seed >> 59);
    width = widths[(seed >> 40) % 5];
    banks = (seed >> 20) % 2 ? 32 : 16;
    bank_bytes = (seed >> 30) % 2 ? 4 : 8;
    for (l = 0; l < n; l++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      off[l] = (seed >> 33) % 1024 / width * width;
    }
    if (t >= 2000) { /* in order: a running sum of small aligned steps */
      for (l = 1; l < n; l++)
        off[l] = off[l - 1] + off[l] % 3 * width;
      if ((seed >> 10) % 4 == 0)
        off[n - 1] = (seed >> 12) % 2 ? off[n - 1] + 1 : off[0] / 2;
    }
    agree &= gp_shared_passes(off, n, width, banks, bank_bytes) ==
             passes_by_definition(off, n, width, banks, bank_bytes);
  }
  CHECK(agree);
}

/* Lanes at a constant stride (gp_shared_passes' strided path) agree with
 * the definition: every stride of 0 to 40 B and a few long ones (whole
 * bank words or not), first offsets on and off a word's start, widths 1 to
 * 16 B, 2 to 40 lanes (only the first 32 count), 16, 24, 32 and 256 banks
 * of 4 or 8 B; then the same lanes descending, and with the last lane
 * moved off the stride by a word or by a byte. */
static void test_bank_conflicts_strided(void) {
  const uint64_t firsts[] = {0, 3, 4, 12, 4096, 4100};
  const uint64_t long_strides[] = {128, 132, 256, 260, 1024, 4096};
  const uint32_t widths[] = {1, 2, 4, 8, 16}, lanes[] = {2, 3, 7, 16, 31, 32, 33, 40};
  const uint32_t bank_counts[] = {16, 24, 32, 256};
  uint64_t off[40], back[40];
  int agree = 1, checked = 0;
  uint32_t a, w, l, b, bb, x, i;
  for (a = 0; a < 6; a++)
    for (x = 0; x < 41 + 6; x++)
      for (w = 0; w < 5; w++)
        for (l = 0; l < 8; l++)
          for (b = 0; b < 4; b++)
            for (bb = 4; bb <= 8; bb += 4) {
              uint64_t d = x < 41 ? x : long_strides[x - 41];
              uint32_t n = lanes[l], m = n < 32 ? n : 32, width = widths[w], banks = bank_counts[b];
              if ((b == 3 && (x % 16 != 0 || l % 3 != 0)) || (x < 41 && x % 2 && w > 1) ||
                  (a % 2 && w > 2))
                continue; /* fewer: 256 banks (slow), wide lanes at odd strides or offsets */
              for (i = 0; i < n; i++)
                off[i] = firsts[a] + i * d;
              agree &= gp_shared_passes(off, n, width, banks, bb) ==
                       passes_by_definition(off, m, width, banks, bb);
              for (i = 0; i < n; i++)
                back[i] = off[n - 1 - i];
              agree &= gp_shared_passes(back, n, width, banks, bb) ==
                       passes_by_definition(back, m, width, banks, bb);
              off[m - 1] += (x + a) % 2 ? 1 : bb;
              agree &= gp_shared_passes(off, n, width, banks, bb) ==
                       passes_by_definition(off, m, width, banks, bb);
              checked += 3;
            }
  CHECK(agree);
  CHECK(checked > 20000);
}

/* Lanes at a constant stride but one, at each position in turn: the
 * stride check (four lanes a step with SSE2, then one by one) must see a
 * lane off the stride wherever it is.  The lane moves to its neighbour's
 * bank, a whole bank cycle past its neighbour's word, so the stride rule's
 * answer (1 pass) differs from the words' count (2). */
static void test_bank_conflicts_one_lane_off(void) {
  uint64_t off[32];
  uint32_t n, at, i, differ = 0;
  int agree = 1;
  for (n = 3; n <= 32; n++)
    for (at = 0; at < n; at++) {
      for (i = 0; i < n; i++)
        off[i] = 64 + i * 4;
      off[at] = off[(at + 1) % n] + 32 * 4;
      agree &= gp_shared_passes(off, n, 4, 32, 4) == passes_by_definition(off, n, 4, 32, 4);
      differ += passes_by_definition(off, n, 4, 32, 4) == 2;
    }
  CHECK(agree);
  CHECK_EQ_INT(differ, (32 * 33) / 2 - 3); /* every case: 3 + 4 + ... + 32 */
}

static void test_cc1x_coalescing(void) {
  uint64_t a[16], addr[16];
  uint32_t bytes[16], i, n;
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + i * 4; /* 16 x 4 B aligned: one 64 B transaction */
  n = gp_coalesce_cc1x(a, 16, 4, addr, bytes);
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(addr[0], 0x1000);
  CHECK_EQ_INT(bytes[0], 64);
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + i * 8; /* stride 2: 128 B used in one 128 B segment */
  n = gp_coalesce_cc1x(a, 16, 4, addr, bytes);
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(bytes[0], 128);
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + i * 256; /* scattered: 16 segments, 32 B each */
  n = gp_coalesce_cc1x(a, 16, 4, addr, bytes);
  CHECK_EQ_INT(n, 16);
  CHECK_EQ_INT(bytes[5], 32);
  CHECK_EQ_INT(addr[5], 0x1000 + 5 * 256);
  for (i = 0; i < 16; i++)
    a[i] = 0x1040 + i * 4; /* misaligned by 64: upper half of one segment, lower of next */
  n = gp_coalesce_cc1x(a, 16, 4, addr, bytes);
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(addr[0], 0x1040);
  CHECK_EQ_INT(bytes[0], 64);
  for (i = 0; i < 16; i++)
    a[i] = 0x1060 + i * 4; /* straddles a 128 B boundary: two transactions */
  n = gp_coalesce_cc1x(a, 16, 4, addr, bytes);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_INT(bytes[0], 32);
  CHECK_EQ_INT(bytes[1], 32);
}

/* The 128 B line coalescer (trace reader and generator) by hand. */
static void test_line_coalescing(void) {
  uint64_t a[32], lines[64];
  uint8_t masks[64];
  uint32_t i;
  for (i = 0; i < 32; i++)
    a[i] = 0x2000; /* broadcast: one line, one sector */
  CHECK_EQ_INT(gp_coalesce(a, 32, 4, lines, masks, 64), 1);
  CHECK_EQ_INT(lines[0], 0x2000 >> 7);
  CHECK_EQ_INT(masks[0], 1);
  for (i = 0; i < 32; i++)
    a[i] = 0x2000 + i * 8; /* stride 2 words: 256 B = two lines, all sectors */
  CHECK_EQ_INT(gp_coalesce(a, 32, 4, lines, masks, 64), 2);
  CHECK_EQ_INT(masks[0], 0xf);
  CHECK_EQ_INT(masks[1], 0xf);
  for (i = 0; i < 32; i++)
    a[i] = 0x2000 + i * 4 + 16; /* unit stride misaligned by 16 B: 2 lines, 5 sectors */
  CHECK_EQ_INT(gp_coalesce(a, 32, 4, lines, masks, 64), 2);
  CHECK_EQ_INT(masks[0], 0xf);
  CHECK_EQ_INT(masks[1], 0x1);
  for (i = 0; i < 32; i++)
    a[i] = 0x10000 * (i + 1) + 0x60; /* scattered: 32 lines, sector 3 of each */
  CHECK_EQ_INT(gp_coalesce(a, 32, 4, lines, masks, 64), 32);
  CHECK_EQ_INT(masks[31], 0x8);
  a[0] = 0x207e; /* an 8-byte access straddling two lines */
  CHECK_EQ_INT(gp_coalesce(a, 1, 8, lines, masks, 64), 2);
  CHECK_EQ_INT(masks[0], 0x8);
  CHECK_EQ_INT(masks[1], 0x1);
  CHECK_EQ_INT(gp_coalesce(a, 32, 4, lines, masks, 8), -1); /* more lines than room */
}

static void test_slice_hash_spreads_strides(void) {
  uint32_t counts[8] = {0}, i, min = 1000, max = 0;
  for (i = 0; i < 800; i++)
    counts[gp_l2_slice_of((uint64_t)i * 8, 8)]++; /* stride of 8 lines */
  for (i = 0; i < 8; i++) {
    if (counts[i] < min)
      min = counts[i];
    if (counts[i] > max)
      max = counts[i];
  }
  CHECK(min > 50); /* a plain modulo would put all 800 in one slice */
  CHECK_EQ_INT(gp_l2_slice_of(12345, 1), 0);
}

/* One warp reads the same 128 B line ten times with no L1: the first read
 * goes to DRAM, nine hit L2: AMAT = (9 x 120 + 1 x 420) / 10 = 150. */
static void test_functional_amat_example(void) {
  gp_synth_stream s[1] = {{GP_STREAM_COALESCED, 0x1000, 1 << 20, 4, 10}};
  gp_synth_op body[1] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}};
  gp_synth_desc d;
  gp_memsim_config cfg;
  gp_memsim_result r;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "amat");
  d.grid[0] = d.grid[1] = d.grid[2] = 1;
  d.block[0] = 32, d.block[1] = d.block[2] = 1;
  d.trips = 10, d.body = body, d.body_len = 1, d.streams = s, d.stream_count = 1;
  CHECK(gp_synth_generate(&k, &a, &d, &err) == GP_OK);
  if (k == NULL)
    return;
  memset(&cfg, 0, sizeof cfg);
  cfg.sms = 16, cfg.blocks_per_sm = 8;
  cfg.l1.size_bytes = 0;
  cfg.l2.size_bytes = 768 * 1024, cfg.l2.line_bytes = 128, cfg.l2.ways = 8, cfg.l2.write_back = 1;
  cfg.l2_slices = 6, cfg.dram_access_bytes = 32;
  cfg.l1_latency = 25, cfg.l2_latency = 120, cfg.dram_latency = 300;
  CHECK(gp_memsim_functional(k, &cfg, &a, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.pcs[0].instructions, 10);
  CHECK_EQ_INT(r.pcs[0].l2_hits, 9);
  CHECK_EQ_INT(r.pcs[0].dram, 1);
  CHECK_NEAR(r.pcs[0].amat, 150.0, 1e-12);
  CHECK_EQ_INT(r.load_l1_misses, 10);
  CHECK_EQ_INT(r.dram_requests, 4); /* one 128 B line = four 32 B accesses */
  CHECK_EQ_INT(r.dram_bytes_read, 128);
  /* the hierarchical roofline's bytes: every read asks L1/TEX for its four
   * sectors and, with no L1, the L2 too: 10 x 128 B at both levels */
  CHECK_EQ_INT(r.l1_bytes, 1280);
  CHECK_EQ_INT(r.l2_bytes, 1280);
  gp_memsim_result_free(&r, &a);
  /* with a 32 KB L1 caching globals, nine of ten hit L1 at 25 cycles */
  cfg.l1.size_bytes = 32 * 1024, cfg.l1.line_bytes = 128, cfg.l1.ways = 8;
  cfg.cache_global_in_l1 = 1;
  CHECK(gp_memsim_functional(k, &cfg, &a, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.pcs[0].l1_hits, 9);
  CHECK_NEAR(r.pcs[0].amat, (9 * 25.0 + 420.0) / 10.0, 1e-12);
  CHECK_EQ_INT(r.load_l1_misses, 1);
  CHECK_EQ_INT(r.l1_bytes, 1280); /* L1/TEX still sees every read */
  CHECK_EQ_INT(r.l2_bytes, 128);  /* only the first misses to the L2 */
  gp_memsim_result_free(&r, &a);
  gp_kernel_free(k);
}

/* CC 1.x: unit-stride 4-byte loads shifted by 4 bytes.  Half-warp 0 spans
 * 0x1004-0x1043 (one 128 B transaction: it straddles the 64 B halves),
 * half-warp 1 spans 0x1044-0x1083 (64 B upper half, then 32 B): 224 bytes,
 * where the sectored 128 B-line model moves five 32 B sectors, 160 bytes. */
static void test_functional_cc1x_and_banks(void) {
  gp_synth_stream s[2] = {{GP_STREAM_COALESCED, 0x1004, 1 << 20, 4, 1},
                          {GP_STREAM_SHARED, 0, 4096, 8, 1}};
  gp_synth_op body[2] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_LD_SHARED, 4, 1, 0, {0}}};
  gp_synth_desc d;
  gp_memsim_config cfg;
  gp_memsim_result r;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "cc1x");
  d.grid[0] = d.grid[1] = d.grid[2] = 1;
  d.block[0] = 32, d.block[1] = d.block[2] = 1;
  d.trips = 1, d.body = body, d.body_len = 2, d.streams = s, d.stream_count = 2;
  CHECK(gp_synth_generate(&k, &a, &d, &err) == GP_OK);
  if (k == NULL)
    return;
  memset(&cfg, 0, sizeof cfg);
  cfg.sms = 4, cfg.blocks_per_sm = 8, cfg.dram_access_bytes = 32, cfg.l2.sectored = 1;
  cfg.l2_latency = 0, cfg.dram_latency = 400;
  cfg.shared_banks = 32, cfg.shared_bank_bytes = 4, cfg.shared_latency = 38;
  cfg.cc1x = 1;
  CHECK(gp_memsim_functional(k, &cfg, &a, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.dram_bytes_read, 224);
  CHECK_EQ_INT(r.pcs[0].requests, 3);
  CHECK_NEAR(r.pcs[0].amat, 400, 1e-12);
  /* the shared load at stride 2 words: a 2-way bank conflict */
  CHECK_EQ_INT(r.pcs[1].shared_passes, 2);
  CHECK_EQ_INT(r.bank_conflicts, 1);
  CHECK_NEAR(r.pcs[1].amat, 38, 1e-12);
  gp_memsim_result_free(&r, &a);
  cfg.cc1x = 0;
  CHECK(gp_memsim_functional(k, &cfg, &a, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.dram_bytes_read, 160);
  gp_memsim_result_free(&r, &a);
  gp_kernel_free(k);
}

/* Two functional results agree field by field (their per-PC arrays
 * byte for byte: both come zeroed from gp_func_new). */
static int same_result(const gp_memsim_result *x, const gp_memsim_result *y) {
  return x->pc_count == y->pc_count &&
         memcmp(x->pcs, y->pcs, x->pc_count * sizeof *x->pcs) == 0 &&
         x->load_l1_misses == y->load_l1_misses && x->mshr_requests == y->mshr_requests &&
         x->mshr_dram_requests == y->mshr_dram_requests && x->dram_requests == y->dram_requests &&
         x->dram_bytes_read == y->dram_bytes_read && x->dram_bytes_written == y->dram_bytes_written &&
         x->bank_conflicts == y->bank_conflicts && x->l1_bytes == y->l1_bytes &&
         x->l2_bytes == y->l2_bytes && memcmp(&x->l1, &y->l1, sizeof x->l1) == 0 &&
         memcmp(&x->l2, &y->l2, sizeof x->l2) == 0;
}

/* The kernel replay rebuilt from the public pieces, as it was before the
 * preparation: gp_memsim_order's visits into gp_func_access (the trace's
 * lines), then every shared-memory and constant instruction in order. */
typedef struct reference_replay {
  gp_func *f;
  const gp_kernel *k;
  int status;
} reference_replay;

static void reference_visit(void *ctx, uint64_t i, uint32_t sm) {
  reference_replay *r = ctx;
  const gp_kernel *k = r->k;
  const gp_mem_record *m = &k->mem_records[k->mem[i]];
  gp_error err;
  if (gp_func_access(r->f, k->pc_index[i], sm, k->op_class[i], k->lines + m->line_start,
                     k->sector_masks + m->line_start, m->line_count, &err) != GP_OK)
    r->status = GP_ERR;
}

static int reference_functional(const gp_kernel *k, const gp_memsim_config *cfg,
                                gp_memsim_result *out) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  reference_replay r;
  uint64_t i;
  r.k = k, r.status = GP_OK;
  if (gp_func_new(&r.f, &a, cfg, k->static_count, &err) != GP_OK)
    return GP_ERR;
  if (gp_memsim_order(k, cfg->sms, cfg->blocks_per_sm, &a, reference_visit, &r, &err) != GP_OK)
    r.status = GP_ERR;
  for (i = 0; i < k->insts && r.status == GP_OK; i++) {
    int c = k->op_class[i];
    if (c == GP_OP_LD_CONST)
      r.status = gp_func_const(r.f, k->pc_index[i], &err);
    else if (gp_op_is_shared(c) && k->mem[i] != UINT32_MAX) {
      const gp_mem_record *m = &k->mem_records[k->mem[i]];
      r.status = gp_func_shared(r.f, k->pc_index[i], GP_MEM_LANES(k, m), m->addr_count,
                                k->width[i], &err);
    }
  }
  if (r.status == GP_OK)
    r.status = gp_func_result(r.f, out, &err);
  gp_func_free(r.f);
  return r.status;
}

/* The order of GPUMech Sec. V written plainly (the reference for
 * gp_memsim_order, which states it once for both of its walks): wave by
 * wave, the warps of block (wave x bps + b) x sms + s on SM s, SM by SM,
 * block by block, warp by warp; in turns, each warp's next cache-using
 * memory instruction; a warp with none left drops out.  Appends (i, sm). */
typedef struct order_log {
  uint64_t *inst;
  uint32_t *sm;
  size_t n, cap;
} order_log;

static void log_visit(void *ctx, uint64_t i, uint32_t sm) {
  order_log *o = ctx;
  if (o->n < o->cap)
    o->inst[o->n] = i, o->sm[o->n] = sm;
  o->n++;
}

static void reference_order(const gp_kernel *k, uint32_t sms, uint32_t bps, order_log *o) {
  uint64_t wave, waves = (k->blocks + (uint64_t)sms * bps - 1) / ((uint64_t)sms * bps);
  uint64_t cursor[256], warp[256];
  uint32_t on[256];
  for (wave = 0; wave < waves; wave++) {
    uint32_t n = 0, s, b, w, x, left;
    for (s = 0; s < sms; s++)
      for (b = 0; b < bps; b++)
        for (w = 0; w < k->warps_per_block; w++) {
          uint64_t block = (wave * bps + b) * sms + s;
          if (block < k->blocks && n < 256) {
            warp[n] = block * k->warps_per_block + w;
            cursor[n] = k->warp_start[warp[n]], on[n++] = s;
          }
        }
    for (left = n; left > 0;)
      for (x = 0; x < n; x++) {
        uint64_t end = k->warp_start[warp[x]] + k->warp_len[warp[x]];
        if (cursor[x] == UINT64_MAX)
          continue;
        while (cursor[x] < end &&
               (k->mem[cursor[x]] == UINT32_MAX || !gp_op_uses_cache(k->op_class[cursor[x]])))
          cursor[x]++;
        if (cursor[x] == end) {
          cursor[x] = UINT64_MAX, left--;
          continue;
        }
        log_visit(o, cursor[x]++, on[x]);
      }
  }
}

/* gp_memsim_order visits what the plain order visits, in its order, on a
 * kernel whose warps end at different turns (warps cut to 1/5 .. 5/5 of
 * their instructions, some to none), so that warps leave a turn between
 * others that stay; and the prepared replay of that kernel equals the
 * replay rebuilt from gp_memsim_order (test_functional_prepared's check).
 * A turn that closes only gaps of two or more warps fails it. */
static void test_order_uneven_warps(void) {
  gp_synth_stream s[2] = {{GP_STREAM_COALESCED, 0x400000, 1 << 20, 4, 1},
                          {GP_STREAM_RANDOM, 0x10000, 1 << 16, 4, 1}};
  gp_synth_op body[3] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_FP32, 4, 0, 0, {0}},
                         {GP_OP_ST_GLOBAL, 4, 1, 0, {0}}};
  gp_synth_desc d;
  gp_memsim_config cfg;
  gp_memsim_result kept, ref;
  gp_memsim_prep *p = NULL;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  order_log got, want;
  uint32_t g, bps;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "uneven");
  d.grid[0] = 10, d.grid[1] = d.grid[2] = 1;
  d.block[0] = 96, d.block[1] = d.block[2] = 1;
  d.trips = 5, d.body = body, d.body_len = 3, d.streams = s, d.stream_count = 2;
  d.seed = 3;
  CHECK(gp_synth_generate(&k, &a, &d, &err) == GP_OK);
  if (k == NULL)
    return;
  for (g = 0; g < k->warps; g++)
    k->warp_len[g] = (uint32_t)((uint64_t)k->warp_len[g] * ((g * 7) % 6) / 5);
  got.cap = want.cap = 4096;
  got.inst = malloc(got.cap * sizeof *got.inst), got.sm = malloc(got.cap * sizeof *got.sm);
  want.inst = malloc(want.cap * sizeof *want.inst), want.sm = malloc(want.cap * sizeof *want.sm);
  CHECK(gp_memsim_prep_new(&p, k, &a, &err) == GP_OK);
  memset(&cfg, 0, sizeof cfg);
  cfg.sms = 3, cfg.dram_access_bytes = 32, cfg.l2_slices = 2;
  cfg.l1.size_bytes = 1024, cfg.l1.ways = 2, cfg.l1.line_bytes = 128, cfg.cache_global_in_l1 = 1;
  cfg.l2.size_bytes = 2 * 2048, cfg.l2.ways = 4, cfg.l2.line_bytes = 128, cfg.l2.write_back = 1;
  cfg.l1_latency = 20, cfg.l2_latency = 150, cfg.dram_latency = 300;
  for (bps = 1; bps <= 4 && got.inst && got.sm && want.inst && want.sm && p; bps++) {
    got.n = want.n = 0;
    CHECK(gp_memsim_order(k, cfg.sms, bps, &a, log_visit, &got, &err) == GP_OK);
    reference_order(k, cfg.sms, bps, &want);
    CHECK(got.n == want.n && want.n > 100 && want.n <= want.cap);
    CHECK(got.n == want.n && memcmp(got.inst, want.inst, want.n * sizeof *want.inst) == 0 &&
          memcmp(got.sm, want.sm, want.n * sizeof *want.sm) == 0);
    cfg.blocks_per_sm = bps;
    CHECK(gp_memsim_functional_prepared(k, p, &cfg, &a, &kept, &err) == GP_OK);
    CHECK(reference_functional(k, &cfg, &ref) == GP_OK);
    CHECK(same_result(&ref, &kept));
    gp_memsim_result_free(&ref, &a);
    gp_memsim_result_free(&kept, &a);
  }
  free(got.inst), free(got.sm), free(want.inst), free(want.sm);
  gp_memsim_prep_free(p);
  gp_kernel_free(k);
}

/* A replay through a kept preparation (gp_memsim_prep) gives what a fresh
 * replay gives, and both what the replay rebuilt from gp_memsim_order and
 * gp_func_* gives, at every occupancy and after the shared banks change
 * (the kept bank passes are counted again); a preparation of another
 * kernel is refused.  The kernel: random and coalesced global loads, a store, a
 * local load through the L1, shared loads at a stride of 2 words (2-way
 * conflicts at 32 banks of 4 B, 1 pass at 32 banks of 8 B) over 24 blocks
 * of 4 warps. */
static void test_functional_prepared(void) {
  gp_synth_stream s[3] = {{GP_STREAM_RANDOM, 0x10000, 1 << 16, 4, 1},
                          {GP_STREAM_COALESCED, 0x400000, 1 << 20, 4, 1},
                          {GP_STREAM_SHARED, 0, 4096, 8, 1}};
  gp_synth_op body[5] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_LD_SHARED, 4, 2, 0, {0}},
                         {GP_OP_ST_GLOBAL, 4, 1, 0, {0}}, {GP_OP_LD_LOCAL, 4, 1, 0, {0}},
                         {GP_OP_LD_GLOBAL, 4, 1, 0, {0}}};
  gp_synth_desc d;
  gp_memsim_config cfg;
  gp_memsim_result fresh, kept, ref;
  gp_memsim_prep *p = NULL, *other = NULL;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL, *k2 = NULL;
  uint32_t blocks;
  int banks;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "prepared");
  d.grid[0] = 24, d.grid[1] = d.grid[2] = 1;
  d.block[0] = 128, d.block[1] = d.block[2] = 1;
  d.trips = 6, d.body = body, d.body_len = 5, d.streams = s, d.stream_count = 3;
  d.seed = 7;
  CHECK(gp_synth_generate(&k, &a, &d, &err) == GP_OK);
  d.grid[0] = 8;
  CHECK(gp_synth_generate(&k2, &a, &d, &err) == GP_OK);
  if (k == NULL || k2 == NULL)
    return;
  CHECK(gp_memsim_prep_new(&p, k, &a, &err) == GP_OK);
  CHECK(gp_memsim_prep_new(&other, k2, &a, &err) == GP_OK);
  if (p == NULL || other == NULL)
    return;
  CHECK(gp_memsim_prep_of(p, k) && !gp_memsim_prep_of(p, k2));
  memset(&cfg, 0, sizeof cfg);
  cfg.sms = 3, cfg.dram_access_bytes = 32, cfg.l2_slices = 3;
  cfg.l1.size_bytes = 2048, cfg.l1.ways = 4, cfg.l1.line_bytes = 128;
  cfg.l2.size_bytes = 3 * 4096, cfg.l2.ways = 8, cfg.l2.line_bytes = 128, cfg.l2.sectored = 1;
  cfg.l2.write_back = 1;
  cfg.l1_latency = 20, cfg.l2_latency = 150, cfg.dram_latency = 300, cfg.shared_latency = 30;
  for (banks = 0; banks < 2; banks++) {
    cfg.shared_banks = 32, cfg.shared_bank_bytes = banks ? 8 : 4;
    for (blocks = 1; blocks <= 8; blocks *= 2) {
      cfg.blocks_per_sm = blocks;
      CHECK(gp_memsim_functional(k, &cfg, &a, &fresh, &err) == GP_OK);
      CHECK(gp_memsim_functional_prepared(k, p, &cfg, &a, &kept, &err) == GP_OK);
      CHECK(same_result(&fresh, &kept));
      CHECK(reference_functional(k, &cfg, &ref) == GP_OK);
      CHECK(same_result(&ref, &kept));
      gp_memsim_result_free(&ref, &a);
      CHECK(fresh.pcs[1].shared_passes == (banks ? 1u : 2u) * fresh.pcs[1].instructions);
      CHECK(fresh.l1.accesses > 0 && fresh.l2.accesses > 0 && fresh.dram_bytes_written > 0);
      gp_memsim_result_free(&fresh, &a);
      gp_memsim_result_free(&kept, &a);
    }
  }
  /* CC 1.x transactions (made from the lanes, not the trace's lines): a
   * fresh replay and one through p alike, and unlike the trace's lines */
  cfg.cc1x = 1;
  CHECK(gp_memsim_functional(k, &cfg, &a, &fresh, &err) == GP_OK);
  CHECK(gp_memsim_functional_prepared(k, p, &cfg, &a, &kept, &err) == GP_OK);
  CHECK(same_result(&fresh, &kept));
  CHECK(reference_functional(k, &cfg, &ref) == GP_OK);
  CHECK(!same_result(&ref, &kept));
  gp_memsim_result_free(&ref, &a);
  gp_memsim_result_free(&fresh, &a);
  gp_memsim_result_free(&kept, &a);
  cfg.cc1x = 0;
  CHECK(gp_memsim_functional_prepared(k, other, &cfg, &a, &kept, &err) == GP_ERR);
  CHECK(strstr(err.msg, "another kernel") != NULL);
  /* a class count below its records (the preparation's first size): the
   * visits grow (the on-chip counts need the shared and constant counts
   * right, as the replay always did) */
  k->class_counts[GP_OP_LD_GLOBAL] = 1;
  gp_memsim_prep_free(p);
  CHECK(gp_memsim_prep_new(&p, k, &a, &err) == GP_OK);
  CHECK(gp_memsim_functional_prepared(k, p, &cfg, &a, &kept, &err) == GP_OK);
  CHECK(reference_functional(k, &cfg, &ref) == GP_OK);
  CHECK(same_result(&ref, &kept));
  gp_memsim_result_free(&ref, &a);
  gp_memsim_result_free(&kept, &a);
  gp_memsim_prep_free(p);
  gp_memsim_prep_free(other);
  gp_kernel_free(k);
  gp_kernel_free(k2);
}

/* The access-stream API by hand: 2 SMs, a 1-set 2-way write-through L1
 * caching globals, a 2-set 2-way write-back L2 (set = line mod 2),
 * latencies L1 10, L2 100, DRAM +200.
 *   pc0 SM0 ld 0   L1 miss, L2 miss -> DRAM (4 x 32 B read)
 *   pc0 SM0 ld 0   L1 hit
 *   pc0 SM1 ld 0   SM1's L1 miss, L2 hit
 *   pc1 SM0 st 2   L1 no-allocate; L2 allocates line 2 dirty (set 0: 0, 2)
 *   pc1 SM0 st 4   L2 evicts 0 (clean, least recent)
 *   pc1 SM0 st 6   L2 evicts 2 (dirty): a 128 B write-back
 *   pc0 SM0 ld 0   L1 hit (stores did not disturb it)
 *   pc2 SM1 ld {1, 0}  line 1 misses both levels, line 0 hits SM1's L1:
 *                  the instruction counts as DRAM
 * pc0: 2 L1 + 1 L2 + 1 DRAM: AMAT (2 x 10 + 100 + 300) / 4 = 105. */
static void test_functional_stream_by_hand(void) {
  gp_memsim_config cfg;
  gp_memsim_result r;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_func *f = NULL;
  uint64_t l0 = 0, l2 = 2, l4 = 4, l6 = 6, pair[2] = {1, 0}, off[32];
  uint8_t full = 0xf, one = 0x1, masks[2] = {0x1, 0xf};
  uint32_t i;
  memset(&cfg, 0, sizeof cfg);
  cfg.sms = 2, cfg.blocks_per_sm = 1;
  cfg.l1.size_bytes = 256, cfg.l1.line_bytes = 128, cfg.l1.ways = 2;
  cfg.cache_global_in_l1 = 1;
  cfg.l2.size_bytes = 512, cfg.l2.line_bytes = 128, cfg.l2.ways = 2, cfg.l2.write_back = 1;
  cfg.l2_slices = 1, cfg.dram_access_bytes = 32;
  cfg.l1_latency = 10, cfg.l2_latency = 100, cfg.dram_latency = 200;
  cfg.shared_banks = 32, cfg.shared_bank_bytes = 4, cfg.shared_latency = 30;
  cfg.const_latency = 8;
  CHECK(gp_func_new(&f, &a, &cfg, 5, &err) == GP_OK);
  if (f == NULL)
    return;
  CHECK(gp_func_access(f, 0, 0, GP_OP_LD_GLOBAL, &l0, &full, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 0, 0, GP_OP_LD_GLOBAL, &l0, &full, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 0, 1, GP_OP_LD_GLOBAL, &l0, &full, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 1, 0, GP_OP_ST_GLOBAL, &l2, &one, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 1, 0, GP_OP_ST_GLOBAL, &l4, &one, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 1, 0, GP_OP_ST_GLOBAL, &l6, &one, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 0, 0, GP_OP_LD_GLOBAL, &l0, &full, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 2, 1, GP_OP_LD_GLOBAL, pair, masks, 2, &err) == GP_OK);
  for (i = 0; i < 32; i++)
    off[i] = i * 8; /* stride 2 words on 32 banks: 2 passes */
  CHECK(gp_func_shared(f, 3, off, 32, 4, &err) == GP_OK);
  CHECK(gp_func_const(f, 4, &err) == GP_OK);
  /* misuse is an error, not a crash */
  CHECK(gp_func_access(f, 5, 0, GP_OP_LD_GLOBAL, &l0, &full, 1, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "memsim: PC index 5 of 5");
  CHECK(gp_func_access(f, 0, 2, GP_OP_LD_GLOBAL, &l0, &full, 1, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "memsim: SM 2 of 2");
  CHECK(gp_func_access(f, 0, 0, GP_OP_LD_SHARED, &l0, &full, 1, &err) == GP_ERR);
  CHECK(gp_func_result(f, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.pcs[0].instructions, 4);
  CHECK_EQ_INT(r.pcs[0].l1_hits, 2);
  CHECK_EQ_INT(r.pcs[0].l2_hits, 1);
  CHECK_EQ_INT(r.pcs[0].dram, 1);
  CHECK_NEAR(r.pcs[0].amat, 105.0, 1e-12);
  CHECK_EQ_INT(r.pcs[1].l2_hits, 3); /* a write-allocating L2 absorbs stores */
  CHECK_NEAR(r.pcs[1].amat, 100.0, 1e-12);
  CHECK_EQ_INT(r.pcs[2].requests, 2);
  CHECK_EQ_INT(r.pcs[2].dram, 1);
  CHECK_NEAR(r.pcs[2].amat, 300.0, 1e-12);
  CHECK_EQ_INT(r.pcs[3].shared_passes, 2);
  CHECK_NEAR(r.pcs[3].amat, 30.0, 1e-12);
  /* per PC, the L1-missing load requests and the DRAM accesses it caused:
   * PC 0 fills line 0 (4 x 32 B) and misses L1 twice (SM0, SM1); PC 1's
   * third store evicts the dirty line 2 (4 x 32 B written); PC 2 fills line
   * 1 (4 x 32 B); the sums are the totals below */
  CHECK_EQ_INT(r.pcs[0].l1_miss_requests, 2);
  CHECK_EQ_INT(r.pcs[0].dram_requests, 4);
  CHECK_EQ_INT(r.pcs[1].l1_miss_requests, 0);
  CHECK_EQ_INT(r.pcs[1].dram_requests, 4);
  CHECK_EQ_INT(r.pcs[2].l1_miss_requests, 1);
  CHECK_EQ_INT(r.pcs[2].dram_requests, 4);
  CHECK_NEAR(r.pcs[4].amat, 8.0, 1e-12);
  CHECK_EQ_INT(r.bank_conflicts, 1);
  CHECK_EQ_INT(r.load_l1_misses, 3);   /* SM0 ld 0, SM1 ld 0, SM1 ld 1 */
  CHECK_EQ_INT(r.dram_requests, 12);   /* two 128 B fills + one 128 B write-back */
  CHECK_EQ_INT(r.dram_bytes_read, 256);
  CHECK_EQ_INT(r.dram_bytes_written, 128);
  CHECK_EQ_INT(r.l1.accesses, 9);
  CHECK_EQ_INT(r.l1.hits, 3);
  CHECK_EQ_INT(r.l2.accesses, 6);
  CHECK_EQ_INT(r.l2.hits, 1);
  CHECK_EQ_INT(r.l2.writebacks, 1);
  /* sectors by level: L1/TEX sees five full-line loads (5 x 128 B), three
   * one-sector stores (96 B) and pc2's 32 + 128 B; the L2 gets the two
   * line fills that missed L1 (2 x 128 B), the three write-through stores
   * (96 B) and the fill of pc2's one-sector miss (the L1 is not sectored:
   * its fill is the whole 128 B line) */
  CHECK_EQ_INT(r.l1_bytes, 5 * 128 + 96 + 32);
  CHECK_EQ_INT(r.l2_bytes, 2 * 128 + 96 + 128);
  gp_memsim_result_free(&r, &a);
  gp_func_free(f);

  /* a write-through L2: each 32 B store goes to DRAM as 32 B, and counts at
   * the DRAM level; nothing is ever dirty */
  cfg.l2.write_back = 0;
  CHECK(gp_func_new(&f, &a, &cfg, 5, &err) == GP_OK);
  if (f == NULL)
    return;
  gp_func_access(f, 0, 0, GP_OP_LD_GLOBAL, &l0, &full, 1, &err);
  gp_func_access(f, 1, 0, GP_OP_ST_GLOBAL, &l2, &one, 1, &err);
  gp_func_access(f, 1, 0, GP_OP_ST_GLOBAL, &l4, &one, 1, &err);
  gp_func_access(f, 1, 0, GP_OP_ST_GLOBAL, &l0, &one, 1, &err); /* hits L2, still written */
  CHECK(gp_func_result(f, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.dram_bytes_written, 96);
  CHECK_EQ_INT(r.dram_requests, 4 + 3);
  CHECK_EQ_INT(r.pcs[1].dram, 2);
  CHECK_EQ_INT(r.pcs[1].l2_hits, 1);
  CHECK_EQ_INT(r.l2.writebacks, 0);
  gp_memsim_result_free(&r, &a);
  gp_func_free(f);
}

/* A write-back L1 keeps stores; its dirty victim is written to L2. */
static void test_functional_write_back_l1(void) {
  gp_memsim_config cfg;
  gp_memsim_result r;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_func *f = NULL;
  uint64_t lines[3] = {0, 1, 2};
  uint8_t full = 0xf;
  memset(&cfg, 0, sizeof cfg);
  cfg.sms = 1, cfg.blocks_per_sm = 1;
  cfg.l1.size_bytes = 256, cfg.l1.line_bytes = 128, cfg.l1.ways = 2, cfg.l1.write_back = 1;
  cfg.cache_global_in_l1 = 1;
  cfg.l2.size_bytes = 4096, cfg.l2.line_bytes = 128, cfg.l2.ways = 4, cfg.l2.write_back = 1;
  cfg.l2_slices = 1, cfg.dram_access_bytes = 32;
  CHECK(gp_func_new(&f, &a, &cfg, 1, &err) == GP_OK);
  if (f == NULL)
    return;
  gp_func_access(f, 0, 0, GP_OP_ST_GLOBAL, &lines[0], &full, 1, &err); /* L1 only */
  gp_func_access(f, 0, 0, GP_OP_ST_GLOBAL, &lines[1], &full, 1, &err);
  gp_func_access(f, 0, 0, GP_OP_ST_GLOBAL, &lines[2], &full, 1, &err); /* evicts dirty 0 */
  CHECK(gp_func_result(f, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.pcs[0].l1_hits, 3);
  CHECK_EQ_INT(r.l1.writebacks, 1);
  CHECK_EQ_INT(r.l2.accesses, 1); /* the victim, line 0 */
  CHECK_EQ_INT(r.dram_requests, 0);
  gp_memsim_result_free(&r, &a);
  gp_func_free(f);
}

/* An allocator that refuses every request after `left` of them. */
typedef struct counted_alloc {
  int left;
} counted_alloc;

static void *refusing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  counted_alloc *c = ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (c->left <= 0)
    return NULL;
  c->left--;
  return realloc(ptr, nsize);
}

/* An allocator that fills each new block with 0xa5 (the bytes a cache
 * writes differ from it where the test looks) and records the block's
 * address and size; refuses once `left` reaches 0. */
typedef struct poison_alloc {
  int left;
  unsigned char *block;
  size_t bytes;
} poison_alloc;

static void *poisoning_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  poison_alloc *p = ud;
  unsigned char *b;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (p->left <= 0)
    return NULL;
  p->left--;
  b = realloc(ptr, nsize);
  if (b != NULL)
    memset(b, 0xa5, nsize), p->block = b, p->bytes = nsize;
  return b;
}

/* The sets' records are handed out in first-fill order from the start of
 * the cache's one block (memsim_cache.c's gp_cache_init comment): a 256-set
 * 16-way cache (a100's L2 slice) filled in sets 200, 7 and 255 writes
 * nothing past the per-set fields and three records, whatever the sets'
 * numbers (a record laid out by set number would write near the block's
 * end), and a write-through write miss takes no record.  The fills are
 * read back, evictions and all (a 17th line in set 7 evicts its first).
 * Refused allocations fail gp_cache_init with a message, and freeing the
 * failed cache is safe; so does a cache whose records' byte offsets would
 * not fit in 32 bits. */
static void test_cache_records_in_fill_order(void) {
  poison_alloc pa = {10, NULL, 0};
  gp_alloc a;
  gp_cache c;
  gp_cache_config cfg;
  gp_error err;
  size_t used, i;
  int untouched = 1;
  uint64_t w;
  a.fn = poisoning_alloc, a.ud = &pa;
  cfg.size_bytes = 256 * 16 * 128, cfg.line_bytes = 128, cfg.ways = 16;
  cfg.sectored = 1, cfg.write_back = 0;
  CHECK(gp_cache_init(&c, &a, &cfg, &err) == GP_OK);
  CHECK_EQ_INT(c.sets, 256);
  CHECK_EQ_INT(c.record_bytes, 240); /* 16 x (1 + 1 + 1 + 2 + 2 + 8) bytes */
  CHECK(pa.block != NULL && pa.bytes >= 256 * 240u);
  CHECK_EQ_INT(gp_cache_access(&c, 256 * 3 + 100, 0x1, 1), GP_CACHE_MISS); /* no allocation */
  CHECK_EQ_INT(c.records_used, 0);
  CHECK_EQ_INT(gp_cache_access(&c, 200, 0x1, 0), GP_CACHE_MISS);
  for (w = 0; w < 17; w++) /* set 7: 16 ways filled, then line 7 evicted */
    CHECK_EQ_INT(gp_cache_access(&c, 7 + 256 * w, 0xf, 0), GP_CACHE_MISS);
  CHECK(c.evicted && c.evicted_line == 7);
  CHECK_EQ_INT(c.way, 7 * 16 + 0); /* the way reported is set x ways + way */
  CHECK_EQ_INT(gp_cache_access(&c, 255, 0x3, 0), GP_CACHE_MISS);
  CHECK_EQ_INT(c.records_used, 3);
  CHECK_EQ_INT(gp_cache_access(&c, 200, 0x1, 0), GP_CACHE_HIT);
  CHECK_EQ_INT(gp_cache_access(&c, 255, 0x4, 0), GP_CACHE_SECTOR_MISS);
  CHECK(!gp_cache_contains(&c, 7));
  for (w = 1; w < 17; w++)
    CHECK(gp_cache_contains(&c, 7 + 256 * w));
  CHECK(!gp_cache_contains(&c, 8));
  used = (size_t)(c.records - pa.block) + 3 * c.record_bytes;
  CHECK_EQ_INT(used, 256 * 10 + 3 * 240); /* the fields of 256 sets, 3 records */
  for (i = used; i < pa.bytes; i++)
    untouched &= pa.block[i] == 0xa5;
  CHECK(untouched);
  gp_cache_free(&c);
  pa.left = 0;
  CHECK(gp_cache_init(&c, &a, &cfg, &err) == GP_ERR);
  CHECK(strstr(err.msg, "out of memory") != NULL);
  gp_cache_free(&c);
  CHECK(c.records == NULL && c.slot == NULL);
  pa.left = 10; /* 4 TB: records past the 32-bit offsets, refused before allocating */
  cfg.size_bytes = (uint64_t)1 << 42;
  CHECK(gp_cache_init(&c, &a, &cfg, &err) == GP_ERR);
  CHECK(strstr(err.msg, "over 4 GB of tag records") != NULL);
  CHECK_EQ_INT(pa.left, 10);
  gp_cache_free(&c);
}

/* Every way count from 1 to 40 (record sizes not a multiple of 16, hint
 * reads of 16 bytes from the last record, which must stay inside the
 * block: ASan in CI) with every set filled past four ways (the hint
 * compare's path) in an order that is not the sets': each line filled
 * is found again and one more per set evicts the least recent. */
static void test_cache_every_way_count(void) {
  uint32_t ways;
  for (ways = 1; ways <= 40; ways++) {
    gp_cache c = make((uint64_t)5 * ways * 128, ways, 0, 1);
    uint64_t set, k;
    int agree = c.sets == 5;
    for (k = 0; k < ways; k++)
      for (set = 5; set-- > 0;)
        agree &= gp_cache_access(&c, set + 5 * k, 0xf, (int)(k & 1)) == GP_CACHE_MISS;
    for (set = 0; set < 5; set++)
      for (k = 0; k < ways; k++)
        agree &= gp_cache_access(&c, set + 5 * k, 0x1, 0) == GP_CACHE_HIT;
    agree &= c.records_used == 5;
    for (set = 0; set < 5; set++) { /* the least recent: line set + 0 */
      agree &= gp_cache_access(&c, set + 5 * ways, 0xf, 0) == GP_CACHE_MISS;
      agree &= c.evicted && c.evicted_line == set && c.evicted_dirty == 0;
      agree &= !gp_cache_contains(&c, set) && gp_cache_contains(&c, set + 5 * ways);
    }
    CHECK(agree);
    gp_cache_free(&c);
  }
}

/* The L1s are set up lazily (SM 0's at gp_func_new, every other SM's at its
 * first request): an L1 configuration the cache refuses still fails at
 * creation; SM 3, first used after SM 0's requests, misses then hits its
 * own line like SM 0 (and the summed L1 counts are those of the two SMs
 * used); an allocation failure at an SM's first request is an error, not a
 * request served without an L1. */
static void test_functional_lazy_l1(void) {
  gp_memsim_config cfg;
  gp_memsim_result r;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_func *f = NULL;
  uint64_t line = 4;
  uint8_t full = 0xf;
  counted_alloc budget;
  int used;
  memset(&cfg, 0, sizeof cfg);
  cfg.sms = 8, cfg.blocks_per_sm = 1;
  cfg.l1.size_bytes = 1024, cfg.l1.line_bytes = 0, cfg.l1.ways = 2;
  cfg.cache_global_in_l1 = 1;
  cfg.l2.size_bytes = 4096, cfg.l2.line_bytes = 128, cfg.l2.ways = 4, cfg.l2.write_back = 1;
  cfg.l2_slices = 1, cfg.dram_access_bytes = 32;
  CHECK(gp_func_new(&f, &a, &cfg, 1, &err) == GP_ERR);
  CHECK(strstr(err.msg, "line size and ways") != NULL);
  cfg.l1.line_bytes = 128;
  CHECK(gp_func_new(&f, &a, &cfg, 1, &err) == GP_OK);
  if (f == NULL)
    return;
  CHECK(gp_func_access(f, 0, 0, GP_OP_LD_GLOBAL, &line, &full, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 0, 0, GP_OP_LD_GLOBAL, &line, &full, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 0, 3, GP_OP_LD_GLOBAL, &line, &full, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 0, 3, GP_OP_LD_GLOBAL, &line, &full, 1, &err) == GP_OK);
  CHECK(gp_func_result(f, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.l1.accesses, 4);
  CHECK_EQ_INT(r.l1.hits, 2);
  CHECK_EQ_INT(r.pcs[0].l1_hits, 2);
  CHECK_EQ_INT(r.pcs[0].l2_hits, 1); /* SM 3's miss finds SM 0's line in the L2 */
  CHECK_EQ_INT(r.pcs[0].dram, 1);
  gp_memsim_result_free(&r, &a);
  gp_func_free(f);
  /* how many allocations creation takes, then none left for SM 5's L1 (a
   * cache is one allocation since memsim_cache.c allocates it in one block) */
  budget.left = 1000;
  a.fn = refusing_alloc, a.ud = &budget;
  CHECK(gp_func_new(&f, &a, &cfg, 1, &err) == GP_OK);
  gp_func_free(f);
  used = 1000 - budget.left;
  budget.left = used;
  CHECK(gp_func_new(&f, &a, &cfg, 1, &err) == GP_OK);
  if (f == NULL)
    return;
  CHECK(gp_func_access(f, 0, 5, GP_OP_LD_GLOBAL, &line, &full, 1, &err) == GP_ERR);
  CHECK(strstr(err.msg, "out of memory") != NULL);
  gp_func_free(f);
}

/* The L2 slices are set up lazily too (slice 0 at gp_func_new, every other
 * at the first request of one of its lines): an L2 configuration the cache
 * refuses fails at creation.  A store stays in the write-back L1 (line a,
 * never sent to its slice), a load of line b (another slice, neither 0)
 * evicts it: the dirty victim reaches a's slice, which is set up then, and
 * allocates there (write-back L2), so a's load afterwards is an L2 hit and
 * b's was DRAM's.  An allocation failure at a slice's first line is an
 * error. */
static void test_functional_lazy_l2(void) {
  gp_memsim_config cfg;
  gp_memsim_result r;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_func *f = NULL;
  uint64_t line_a = 1, line_b;
  uint8_t full = 0xf;
  counted_alloc budget;
  int used;
  memset(&cfg, 0, sizeof cfg);
  cfg.sms = 1, cfg.blocks_per_sm = 1;
  cfg.l1.size_bytes = 128, cfg.l1.line_bytes = 128, cfg.l1.ways = 1, cfg.l1.write_back = 1;
  cfg.cache_global_in_l1 = 1;
  cfg.l2.size_bytes = 4 * 4096, cfg.l2.line_bytes = 128, cfg.l2.ways = 0, cfg.l2.write_back = 1;
  cfg.l2_slices = 4, cfg.dram_access_bytes = 32;
  CHECK(gp_func_new(&f, &a, &cfg, 2, &err) == GP_ERR);
  CHECK(strstr(err.msg, "line size and ways") != NULL);
  cfg.l2.ways = 4;
  while (gp_l2_slice_of(line_a, 4) == 0)
    line_a++;
  line_b = line_a + 1;
  while (gp_l2_slice_of(line_b, 4) == 0 || gp_l2_slice_of(line_b, 4) == gp_l2_slice_of(line_a, 4))
    line_b++;
  CHECK(gp_func_new(&f, &a, &cfg, 2, &err) == GP_OK);
  if (f == NULL)
    return;
  CHECK(gp_func_access(f, 0, 0, GP_OP_ST_GLOBAL, &line_a, &full, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 1, 0, GP_OP_LD_GLOBAL, &line_b, &full, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 1, 0, GP_OP_LD_GLOBAL, &line_a, &full, 1, &err) == GP_OK);
  CHECK(gp_func_result(f, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.pcs[0].l1_hits, 1); /* the store stopped in the write-back L1 */
  CHECK_EQ_INT(r.pcs[1].dram, 1);    /* line b */
  CHECK_EQ_INT(r.pcs[1].l2_hits, 1); /* line a, written back into its slice */
  CHECK_EQ_INT(r.l2.accesses, 3);
  CHECK_EQ_INT(r.l2.hits, 1);
  gp_memsim_result_free(&r, &a);
  gp_func_free(f);
  /* how many allocations creation takes, then none left for b's slice */
  budget.left = 1000;
  a.fn = refusing_alloc, a.ud = &budget;
  CHECK(gp_func_new(&f, &a, &cfg, 2, &err) == GP_OK);
  gp_func_free(f);
  used = 1000 - budget.left;
  budget.left = used;
  CHECK(gp_func_new(&f, &a, &cfg, 2, &err) == GP_OK);
  if (f == NULL)
    return;
  CHECK(gp_func_access(f, 1, 0, GP_OP_LD_GLOBAL, &line_b, &full, 1, &err) == GP_ERR);
  CHECK(strstr(err.msg, "out of memory") != NULL);
  gp_func_free(f);
}

/* DRAM traffic in accesses of dram_access_bytes (gp_func's per-mask
 * tables): on a sectored, write-through L2, a one-sector load miss moves
 * 32 B (one access), a whole-line miss 128 B (two accesses of 64 B or of
 * 96 B), a two-sector store passes 64 B on (one access); bytes are
 * accesses x their size. */
static void test_functional_dram_units(void) {
  static const uint64_t lines[3] = {1, 2, 3};
  static const uint8_t masks[3] = {0x1, 0xf, 0x3};
  gp_memsim_config cfg;
  gp_memsim_result r;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  uint32_t unit;
  for (unit = 64; unit <= 96; unit += 32) {
    gp_func *f = NULL;
    memset(&cfg, 0, sizeof cfg);
    cfg.sms = 1, cfg.blocks_per_sm = 1, cfg.dram_access_bytes = unit;
    cfg.l2.size_bytes = 4096, cfg.l2.ways = 4, cfg.l2.line_bytes = 128, cfg.l2.sectored = 1;
    CHECK(gp_func_new(&f, &a, &cfg, 2, &err) == GP_OK);
    if (f == NULL)
      return;
    CHECK(gp_func_access(f, 0, 0, GP_OP_LD_GLOBAL, lines, masks, 2, &err) == GP_OK);
    CHECK(gp_func_access(f, 1, 0, GP_OP_ST_GLOBAL, lines + 2, masks + 2, 1, &err) == GP_OK);
    CHECK(gp_func_result(f, &r, &err) == GP_OK);
    CHECK_EQ_INT(r.dram_requests, 4);
    CHECK_EQ_INT(r.dram_bytes_read, 3 * unit);
    CHECK_EQ_INT(r.dram_bytes_written, unit);
    gp_memsim_result_free(&r, &a);
    gp_func_free(f);
  }
}

/* Reuse of L1 misses by line on one SM (the MSHR merges GPUMech's gpush
 * equations subtract): global loads bypass L1 (Kepler's default), so every
 * load request misses it.  SM0 asks for lines 5, 7, 5, 9, 9, 5: the second 5
 * is 2 misses after the first (bucket 1: [2, 4)), the second 9 1 after the
 * first (bucket 0), the third 5 3 after the second (bucket 1).  SM1's 5
 * reuses nothing: the table is per SM.  Stores and atomics take no MSHR and
 * are not counted. */
static void test_functional_miss_reuse(void) {
  gp_memsim_config cfg;
  gp_memsim_result r;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_func *f = NULL;
  uint64_t seq[6] = {5, 7, 5, 9, 9, 5}, five = 5;
  uint8_t full = 0xf;
  int i;
  memset(&cfg, 0, sizeof cfg);
  cfg.sms = 2, cfg.blocks_per_sm = 1;
  cfg.l1.size_bytes = 256, cfg.l1.line_bytes = 128, cfg.l1.ways = 2;
  cfg.l2.size_bytes = 4096, cfg.l2.line_bytes = 128, cfg.l2.ways = 4, cfg.l2.write_back = 1;
  cfg.l2_slices = 1, cfg.dram_access_bytes = 32;
  cfg.l1_latency = 10, cfg.l2_latency = 100, cfg.dram_latency = 200;
  CHECK(gp_func_new(&f, &a, &cfg, 3, &err) == GP_OK);
  if (f == NULL)
    return;
  for (i = 0; i < 6; i++)
    CHECK(gp_func_access(f, 0, 0, GP_OP_LD_GLOBAL, &seq[i], &full, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 0, 1, GP_OP_LD_GLOBAL, &five, &full, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 1, 0, GP_OP_ST_GLOBAL, &five, &full, 1, &err) == GP_OK);
  CHECK(gp_func_access(f, 2, 0, GP_OP_ATOM_GLOBAL, &five, &full, 1, &err) == GP_OK);
  CHECK(gp_func_result(f, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.pcs[0].l1_miss_requests, 7);
  CHECK_EQ_INT(r.pcs[0].miss_reuse[0], 1);
  CHECK_EQ_INT(r.pcs[0].miss_reuse[1], 2);
  for (i = 2; i < GP_REUSE_BUCKETS; i++)
    CHECK_EQ_INT(r.pcs[0].miss_reuse[i], 0);
  for (i = 0; i < GP_REUSE_BUCKETS; i++)
    CHECK_EQ_INT(r.pcs[1].miss_reuse[i] + r.pcs[2].miss_reuse[i], 0);
  gp_memsim_result_free(&r, &a);
  gp_func_free(f);
}

/* The on-chip counts (shared-memory and constant instructions, found
 * eight class bytes at a time) equal the plain loop's of the reference
 * replay: a body of 23 (so the on-chip instructions fall at every place of
 * an 8-byte group), a texture load between the on-chip classes' values (a
 * group that must be read byte by byte), the shared atomic (the highest
 * on-chip class) eight instructions from any other of the range. */
static void test_functional_onchip_scan(void) {
  gp_synth_stream st[2] = {{GP_STREAM_RANDOM, 0x10000, 1 << 16, 4, 1},
                           {GP_STREAM_SHARED, 0, 4096, 8, 1}};
  gp_synth_op body[23];
  int j;
  gp_alloc a = gp_alloc_default();
  gp_memsim_config cfg;
  gp_memsim_result r, ref;
  gp_synth_desc d;
  gp_kernel *k = NULL;
  gp_error err;
  uint32_t pc;
  uint64_t onchip = 0;
  memset(body, 0, sizeof body);
  for (j = 0; j < 23; j++)
    body[j].op_class = j % 2 ? GP_OP_INT : GP_OP_FP32;
  body[1].op_class = GP_OP_LD_CONST, body[1].width = 4;
  body[4].op_class = GP_OP_TEX, body[4].width = 4;
  body[6].op_class = GP_OP_LD_SHARED, body[6].width = 4, body[6].stream = 1;
  body[14].op_class = GP_OP_ATOM_SHARED, body[14].width = 4, body[14].stream = 1;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "onchip");
  d.grid[0] = 5, d.grid[1] = d.grid[2] = 1;
  d.block[0] = 96, d.block[1] = d.block[2] = 1;
  d.trips = 5, d.body = body, d.body_len = 23, d.streams = st, d.stream_count = 2;
  d.seed = 11;
  CHECK(gp_synth_generate(&k, &a, &d, &err) == GP_OK);
  if (k == NULL)
    return;
  memset(&cfg, 0, sizeof cfg);
  cfg.sms = 2, cfg.blocks_per_sm = 2, cfg.l2_slices = 2, cfg.dram_access_bytes = 32;
  cfg.l1.size_bytes = 2048, cfg.l1.line_bytes = 128, cfg.l1.ways = 4;
  cfg.l2.size_bytes = 2 * 4096, cfg.l2.line_bytes = 128, cfg.l2.ways = 8;
  cfg.l1_latency = 10, cfg.l2_latency = 100, cfg.dram_latency = 200, cfg.shared_latency = 30;
  cfg.const_latency = 8, cfg.shared_banks = 32, cfg.shared_bank_bytes = 4;
  CHECK(gp_memsim_functional(k, &cfg, &a, &r, &err) == GP_OK);
  CHECK(reference_functional(k, &cfg, &ref) == GP_OK);
  CHECK(same_result(&ref, &r));
  for (pc = 0; pc < r.pc_count; pc++)
    if (r.pcs[pc].amat == 8 || r.pcs[pc].amat == 30)
      onchip += r.pcs[pc].instructions;
  CHECK_EQ_INT(onchip, 3 * 5 * 15); /* three on-chip PCs, 5 trips, 15 warps */
  gp_memsim_result_free(&r, &a);
  gp_memsim_result_free(&ref, &a);
  gp_kernel_free(k);
}

/* An allocator that fills every fresh block (and every grown tail) with a
 * 64-bit pattern (*ud) repeated: what the replay reads before it writes
 * shows up in its results. */
static void *dirty_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  uint64_t pattern = *(const uint64_t *)ud;
  unsigned char *out;
  size_t i;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  out = realloc(ptr, nsize);
  if (out != NULL)
    for (i = ptr ? osize : 0; i < nsize; i++)
      out[i] = (unsigned char)(pattern >> (8 * (i % 8)));
  return out;
}

/* SMs, L1s, slices and the miss-reuse table are set up at first use, never
 * cleared whole: on memory full of a pattern, the replay gives what it
 * gives on fresh memory.  The pattern 30 makes every never-cleared entry of
 * the miss-reuse table look like a miss of line 29 at miss 30 (line 29's
 * entry, 3780, is bit 4 of its word, set in 30), so line 29 missing as
 * SM 1's 31st miss would count a reuse at distance 1 (bucket 0) if SM 1's
 * words were not cleared at its set-up; it is a first miss. */
static void test_functional_dirty_memory(void) {
  gp_synth_stream st[2] = {{GP_STREAM_RANDOM, 0x10000, 1 << 16, 4, 1},
                           {GP_STREAM_SHARED, 0, 4096, 8, 1}};
  gp_synth_op body[3] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}}, {GP_OP_LD_SHARED, 4, 1, 0, {0}},
                         {GP_OP_ST_GLOBAL, 4, 0, 0, {0}}};
  uint64_t pattern = 30, line;
  gp_alloc a = gp_alloc_default(), dirty;
  gp_memsim_config cfg;
  gp_memsim_result clean, r;
  gp_memsim_prep *p = NULL;
  gp_synth_desc d;
  gp_kernel *k = NULL;
  gp_error err;
  gp_func *f = NULL;
  uint8_t full = 0xf;
  int i;
  dirty.fn = dirty_alloc, dirty.ud = &pattern;
  memset(&cfg, 0, sizeof cfg);
  cfg.sms = 4, cfg.blocks_per_sm = 2, cfg.l2_slices = 4, cfg.dram_access_bytes = 32;
  cfg.l1.size_bytes = 2048, cfg.l1.line_bytes = 128, cfg.l1.ways = 4;
  cfg.l2.size_bytes = 4 * 4096, cfg.l2.line_bytes = 128, cfg.l2.ways = 8, cfg.l2.write_back = 1;
  cfg.l1_latency = 10, cfg.l2_latency = 100, cfg.dram_latency = 200, cfg.shared_latency = 30;
  cfg.shared_banks = 32, cfg.shared_bank_bytes = 4;
  CHECK(gp_func_new(&f, &dirty, &cfg, 1, &err) == GP_OK);
  if (f == NULL)
    return;
  for (i = 0; i < 30; i++) {
    line = 1000 + (uint64_t)i;
    CHECK(gp_func_access(f, 0, 1, GP_OP_LD_GLOBAL, &line, &full, 1, &err) == GP_OK);
  }
  line = 29;
  CHECK(gp_func_access(f, 0, 1, GP_OP_LD_GLOBAL, &line, &full, 1, &err) == GP_OK);
  CHECK(gp_func_result(f, &r, &err) == GP_OK);
  CHECK_EQ_INT(r.pcs[0].l1_miss_requests, 31);
  for (i = 0; i < GP_REUSE_BUCKETS; i++)
    CHECK_EQ_INT(r.pcs[0].miss_reuse[i], 0);
  CHECK_EQ_INT(r.l1.accesses, 0); /* global loads bypass the L1 here */
  CHECK_EQ_INT(r.l2.accesses, 31);
  gp_memsim_result_free(&r, &dirty);
  gp_func_free(f);
  /* a kernel's replay, fresh and twice through a preparation */
  memset(&d, 0, sizeof d);
  strcpy(d.name, "dirty");
  d.grid[0] = 6, d.grid[1] = d.grid[2] = 1;
  d.block[0] = 64, d.block[1] = d.block[2] = 1;
  d.trips = 4, d.body = body, d.body_len = 3, d.streams = st, d.stream_count = 2;
  d.seed = 3;
  cfg.cache_global_in_l1 = 1;
  CHECK(gp_synth_generate(&k, &a, &d, &err) == GP_OK);
  if (k == NULL)
    return;
  CHECK(gp_memsim_functional(k, &cfg, &a, &clean, &err) == GP_OK);
  CHECK(clean.l1.accesses > 0 && clean.l2.accesses > 0);
  CHECK(gp_memsim_functional(k, &cfg, &dirty, &r, &err) == GP_OK);
  CHECK(same_result(&clean, &r));
  gp_memsim_result_free(&r, &dirty);
  CHECK(gp_memsim_prep_new(&p, k, &dirty, &err) == GP_OK);
  for (i = 0; i < 2 && p != NULL; i++) {
    CHECK(gp_memsim_functional_prepared(k, p, &cfg, &dirty, &r, &err) == GP_OK);
    CHECK(same_result(&clean, &r));
    gp_memsim_result_free(&r, &dirty);
  }
  gp_memsim_prep_free(p);
  gp_memsim_result_free(&clean, &a);
  gp_kernel_free(k);
}

/* gp_next_memory_record against a plain scan over every start and end of
 * arrays with records at seeded places (runs of none longer and shorter
 * than the four-entry step, records at either end). */
static void test_next_memory_record(void) {
  enum { N = 67 };
  uint32_t mem[N];
  gp_kernel k;
  uint64_t seed = 12345, i, end;
  int trial, wrong = 0;
  memset(&k, 0, sizeof k);
  k.mem = mem;
  for (trial = 0; trial < 40; trial++) {
    for (i = 0; i < N; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      mem[i] = (seed >> 33) % (uint64_t)(2 + trial) == 0 ? (uint32_t)i : UINT32_MAX;
    }
    for (i = 0; i <= N; i++)
      for (end = i; end <= N; end++) {
        uint64_t want = i;
        while (want < end && mem[want] == UINT32_MAX)
          want++;
        wrong += gp_next_memory_record(&k, i, end) != want;
      }
  }
  CHECK(wrong == 0);
  for (i = 0; i < N; i++)
    mem[i] = UINT32_MAX;
  CHECK(gp_next_memory_record(&k, 0, N) == N);
  mem[N - 1] = 0;
  CHECK(gp_next_memory_record(&k, 0, N) == N - 1);
  CHECK(gp_next_memory_record(&k, 0, N - 1) == N - 1);
}

int main(void) {
  RUN(test_next_memory_record);
  RUN(test_lru_order_and_set_index);
  RUN(test_lru_matches_use_stamps);
  RUN(test_cache_matches_reference);
  RUN(test_cache_records_in_fill_order);
  RUN(test_cache_every_way_count);
  RUN(test_sectored_misses);
  RUN(test_half_line_granules);
  RUN(test_write_policies);
  RUN(test_bank_conflicts);
  RUN(test_bank_conflicts_random);
  RUN(test_bank_conflicts_strided);
  RUN(test_bank_conflicts_one_lane_off);
  RUN(test_cc1x_coalescing);
  RUN(test_line_coalescing);
  RUN(test_slice_hash_spreads_strides);
  RUN(test_functional_amat_example);
  RUN(test_functional_cc1x_and_banks);
  RUN(test_functional_prepared);
  RUN(test_order_uneven_warps);
  RUN(test_functional_stream_by_hand);
  RUN(test_functional_miss_reuse);
  RUN(test_functional_dram_units);
  RUN(test_functional_dirty_memory);
  RUN(test_functional_onchip_scan);
  RUN(test_functional_write_back_l1);
  RUN(test_functional_lazy_l1);
  RUN(test_functional_lazy_l2);
  return gp_test_finish();
}
