/*
 * digest.c -- the 64-bit provenance hash (see digest.h).
 */
#include "digest.h"

#include "trace.h"

#include <string.h>

#define DIGEST_SEED 0xcbf29ce484222325ull  /* FNV-1a's offset basis */
#define DIGEST_PRIME 0x100000001b3ull      /* FNV-1a's prime */

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/* One step: rotating first lets a word's high bits reach the low bits of
 * the state, which a plain xor-multiply never does. */
static uint64_t step(uint64_t h, uint64_t w) {
  return (rotl(h, 29) ^ w) * DIGEST_PRIME;
}

void gp_digest_start(gp_digest *d) {
  d->h = DIGEST_SEED;
  d->length = 0;
}

void gp_digest_add(gp_digest *d, const void *data, size_t len) {
  const unsigned char *p = data;
  uint64_t h = d->h;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = step(h, w);
  }
  for (; i < len; i++)
    h = step(h, p[i]);
  d->h = h;
  d->length += len;
}

/* Folds in the length and finishes with splitmix64's finaliser. */
uint64_t gp_digest_finish(const gp_digest *d) {
  uint64_t x = step(d->h, d->length);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t gp_digest_bytes(const void *data, size_t len) {
  gp_digest d;
  gp_digest_start(&d);
  gp_digest_add(&d, data, len);
  return gp_digest_finish(&d);
}

static void add_u64(gp_digest *d, uint64_t v) { gp_digest_add(d, &v, sizeof v); }

/* Header and geometry: what the models read besides the instructions. */
static void add_header(gp_digest *d, const gp_kernel *k) {
  int i;
  gp_digest_add(d, k->name, strlen(k->name) + 1);
  for (i = 0; i < 3; i++) {
    add_u64(d, k->grid[i]);
    add_u64(d, k->block[i]);
  }
  add_u64(d, k->shmem_bytes);
  add_u64(d, k->nregs);
  add_u64(d, (uint64_t)(int64_t)k->binary_version);
  add_u64(d, k->warps);
  add_u64(d, k->warps_per_block);
  add_u64(d, k->insts);
}

/* The memory records by content (lane count and the lane addresses, as a
 * list however the record stores them), not by their offsets into the
 * pools: the same trace gives the same digest. */
static void add_memory(gp_digest *d, const gp_kernel *k) {
  uint32_t r;
  for (r = 0; r < k->mem_count; r++) {
    const gp_mem_record *rec = &k->mem_records[r];
    add_u64(d, rec->addr_count);
    if (rec->addr_count > 0)
      gp_digest_add(d, GP_MEM_LANES(k, rec), rec->addr_count * sizeof *k->addresses);
  }
}

static void add_statics(gp_digest *d, const gp_kernel *k) {
  uint32_t s;
  for (s = 0; s < k->static_count; s++) {
    const gp_static_inst *st = &k->statics[s];
    const char *opcode = k->strings + st->opcode;
    add_u64(d, st->pc);
    gp_digest_add(d, opcode, strlen(opcode) + 1);
    add_u64(d, (uint64_t)st->op_class << 8 | st->width);
  }
}

uint64_t gp_digest_kernel(const gp_kernel *k) {
  gp_digest d;
  uint64_t n = k->insts;
  gp_digest_start(&d);
  add_header(&d, k);
  if (k->warps > 0)
    gp_digest_add(&d, k->warp_len, k->warps * sizeof *k->warp_len);
  if (n > 0) {
    gp_digest_add(&d, k->op_class, n);
    gp_digest_add(&d, k->active, n);
    gp_digest_add(&d, k->flags, n);
    gp_digest_add(&d, k->width, n);
    gp_digest_add(&d, k->pc_index, n * sizeof *k->pc_index);
    gp_digest_add(&d, k->deps, n * GP_DEPS * sizeof *k->deps);
  }
  add_memory(&d, k);
  add_statics(&d, k);
  return gp_digest_finish(&d);
}

/* ---- The content checksum (digest.h) ---- */

/* Key words: splitmix64 of the seed "gpushcks".  A stripe s (0-15) of a
 * block reads key words s to s + 7; SCRAMBLE_KEY the last eight. */
static const uint64_t CHECKSUM_KEY[31] = {
  0x2d90988686bb489bull, 0x8d471bfd6ac69e6dull, 0xe3af759b890f3f09ull,
  0x54083b8b9fbed764ull, 0xfcf6963601da93eeull, 0x077b3f9695be1bdbull,
  0xe8864e9878e7620bull, 0x3fbb4aef220daa10ull, 0xfa963776da60b45cull,
  0xbcacac69d6677a2eull, 0x6fadb5a4e92c31b8ull, 0x629dc329e6821f7bull,
  0xb5cf7ad28e325c0aull, 0x8bf86c64b84ec3b9ull, 0x78c754f4dd2a0605ull,
  0x0716f973691eab42ull, 0x0db7ee99ed0d84fbull, 0x8a09af19b918dea4ull,
  0x0af39dc76ed0dc6aull, 0x2a57c314fd9b36c2ull, 0x0d2ab0dc65ffd083ull,
  0xc2c6d45888a0c002ull, 0x479c8ce51f757105ull, 0x754fa26972ceb630ull,
  0xa5aeab2b646971a7ull, 0xfd4c31e95aa717e0ull, 0x008df023c43e8b2bull,
  0x06d8356c71c34137ull, 0x0203d7996eee5e3full, 0x2249398484d37b79ull,
  0xe06c2e6155d9c168ull,
};
#define SCRAMBLE_KEY (CHECKSUM_KEY + 23)
#define STRIPES_PER_BLOCK 16u
#define SCRAMBLE_PRIME 0x9e3779b1u /* 32 bits: a multiply SSE2 does in two */

void gp_checksum_start(gp_checksum *c) {
  int i;
  for (i = 0; i < 8; i++)
    c->acc[i] = CHECKSUM_KEY[i] ^ (uint64_t)i;
  c->length = 0;
  c->stripe = 0;
}

/* The stripe loops, one per form.  Each adds n whole stripes: per 64-bit
 * lane i, word d and key word k, acc[i] += lo32(d ^ k) * hi32(d ^ k) and
 * acc[i ^ 1] += d; after every 16th stripe of a block, the scramble
 * acc = (acc ^ acc >> 47 ^ k) * SCRAMBLE_PRIME.  The plain form says it one
 * word at a time; the vector forms hold two (SSE2) or four (AVX2) lanes to
 * a register and give the same value. */
static void add_stripes_plain(uint64_t acc[8], unsigned *stripe_io, const unsigned char *p,
                              size_t n) {
  unsigned stripe = *stripe_io;
  size_t s;
  int i;
  for (s = 0; s < n; s++, p += GP_CHECKSUM_STRIPE) {
    const uint64_t *key = CHECKSUM_KEY + stripe;
    for (i = 0; i < 8; i++) {
      uint64_t d, x;
      memcpy(&d, p + 8 * i, 8);
      x = d ^ key[i];
      acc[i ^ 1] += d;
      acc[i] += (x & 0xffffffffu) * (x >> 32);
    }
    if (++stripe == STRIPES_PER_BLOCK) {
      stripe = 0;
      for (i = 0; i < 8; i++)
        acc[i] = (acc[i] ^ (acc[i] >> 47) ^ SCRAMBLE_KEY[i]) * SCRAMBLE_PRIME;
    }
  }
  *stripe_io = stripe;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CHECKSUM_FORMS 3

static inline __m128i add_pair(__m128i acc, const unsigned char *p, const uint64_t *key) {
  __m128i d = _mm_loadu_si128((const __m128i *)p);
  __m128i x = _mm_xor_si128(d, _mm_loadu_si128((const __m128i *)key));
  __m128i product = _mm_mul_epu32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(0, 3, 0, 1)));
  return _mm_add_epi64(acc, _mm_add_epi64(product, _mm_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2))));
}

static inline __m128i scramble_pair(__m128i acc, const uint64_t *key) {
  const __m128i prime = _mm_set1_epi32((int)SCRAMBLE_PRIME);
  __m128i a = _mm_xor_si128(_mm_xor_si128(acc, _mm_srli_epi64(acc, 47)),
                            _mm_loadu_si128((const __m128i *)key));
  return _mm_add_epi64(_mm_mul_epu32(a, prime),
                       _mm_slli_epi64(_mm_mul_epu32(_mm_srli_epi64(a, 32), prime), 32));
}

static void add_stripes_sse2(uint64_t acc[8], unsigned *stripe_io, const unsigned char *p,
                             size_t n) {
  __m128i a0 = _mm_loadu_si128((const __m128i *)(acc + 0));
  __m128i a1 = _mm_loadu_si128((const __m128i *)(acc + 2));
  __m128i a2 = _mm_loadu_si128((const __m128i *)(acc + 4));
  __m128i a3 = _mm_loadu_si128((const __m128i *)(acc + 6));
  unsigned stripe = *stripe_io;
  while (n > 0) { /* the rest of a block, then its scramble */
    size_t run = STRIPES_PER_BLOCK - stripe < n ? STRIPES_PER_BLOCK - stripe : n, t;
    const uint64_t *key = CHECKSUM_KEY + stripe;
    for (t = 0; t < run; t++, p += GP_CHECKSUM_STRIPE, key++) {
      a0 = add_pair(a0, p, key);
      a1 = add_pair(a1, p + 16, key + 2);
      a2 = add_pair(a2, p + 32, key + 4);
      a3 = add_pair(a3, p + 48, key + 6);
    }
    n -= run;
    stripe += (unsigned)run;
    if (stripe == STRIPES_PER_BLOCK) {
      stripe = 0;
      a0 = scramble_pair(a0, SCRAMBLE_KEY);
      a1 = scramble_pair(a1, SCRAMBLE_KEY + 2);
      a2 = scramble_pair(a2, SCRAMBLE_KEY + 4);
      a3 = scramble_pair(a3, SCRAMBLE_KEY + 6);
    }
  }
  _mm_storeu_si128((__m128i *)(acc + 0), a0);
  _mm_storeu_si128((__m128i *)(acc + 2), a1);
  _mm_storeu_si128((__m128i *)(acc + 4), a2);
  _mm_storeu_si128((__m128i *)(acc + 6), a3);
  *stripe_io = stripe;
}

__attribute__((target("avx2"))) static inline __m256i add_quad(__m256i acc, const unsigned char *p,
                                                              const uint64_t *key) {
  __m256i d = _mm256_loadu_si256((const __m256i *)p);
  __m256i x = _mm256_xor_si256(d, _mm256_loadu_si256((const __m256i *)key));
  __m256i product = _mm256_mul_epu32(x, _mm256_shuffle_epi32(x, _MM_SHUFFLE(0, 3, 0, 1)));
  return _mm256_add_epi64(acc, _mm256_add_epi64(product,
                                                _mm256_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2))));
}

__attribute__((target("avx2"))) static inline __m256i scramble_quad(__m256i acc, const uint64_t *key) {
  const __m256i prime = _mm256_set1_epi32((int)SCRAMBLE_PRIME);
  __m256i a = _mm256_xor_si256(_mm256_xor_si256(acc, _mm256_srli_epi64(acc, 47)),
                               _mm256_loadu_si256((const __m256i *)key));
  return _mm256_add_epi64(_mm256_mul_epu32(a, prime),
                          _mm256_slli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), prime), 32));
}

__attribute__((target("avx2"))) static void add_stripes_avx2(uint64_t acc[8], unsigned *stripe_io,
                                                            const unsigned char *p, size_t n) {
  __m256i a0 = _mm256_loadu_si256((const __m256i *)(acc + 0));
  __m256i a1 = _mm256_loadu_si256((const __m256i *)(acc + 4));
  unsigned stripe = *stripe_io;
  while (n > 0) {
    size_t run = STRIPES_PER_BLOCK - stripe < n ? STRIPES_PER_BLOCK - stripe : n, t;
    const uint64_t *key = CHECKSUM_KEY + stripe;
    for (t = 0; t < run; t++, p += GP_CHECKSUM_STRIPE, key++) {
      a0 = add_quad(a0, p, key);
      a1 = add_quad(a1, p + 32, key + 4);
    }
    n -= run;
    stripe += (unsigned)run;
    if (stripe == STRIPES_PER_BLOCK) {
      stripe = 0;
      a0 = scramble_quad(a0, SCRAMBLE_KEY);
      a1 = scramble_quad(a1, SCRAMBLE_KEY + 4);
    }
  }
  _mm256_storeu_si256((__m256i *)(acc + 0), a0);
  _mm256_storeu_si256((__m256i *)(acc + 4), a1);
  *stripe_io = stripe;
}

/* The best form this machine runs (form < 0), or the one asked for. */
static void add_stripes(gp_checksum *c, const unsigned char *p, size_t n, int form) {
  if (form < 0)
    form = __builtin_cpu_supports("avx2") ? 2 : 1;
  if (form == 2)
    add_stripes_avx2(c->acc, &c->stripe, p, n);
  else if (form == 1)
    add_stripes_sse2(c->acc, &c->stripe, p, n);
  else
    add_stripes_plain(c->acc, &c->stripe, p, n);
}
#else
#define CHECKSUM_FORMS 1

static void add_stripes(gp_checksum *c, const unsigned char *p, size_t n, int form) {
  (void)form;
  add_stripes_plain(c->acc, &c->stripe, p, n);
}
#endif

int gp_checksum_forms(void) { return CHECKSUM_FORMS; }

/* Whole stripes as they come; a last piece's tail padded with zeros (the
 * length, folded in at the end, tells the padding from data). */
static void checksum_add(gp_checksum *c, const void *data, size_t len, int form) {
  const unsigned char *p = data;
  size_t whole = len / GP_CHECKSUM_STRIPE;
  add_stripes(c, p, whole, form);
  if (len % GP_CHECKSUM_STRIPE != 0) {
    unsigned char tail[GP_CHECKSUM_STRIPE] = {0};
    memcpy(tail, p + whole * GP_CHECKSUM_STRIPE, len % GP_CHECKSUM_STRIPE);
    add_stripes(c, tail, 1, form);
  }
  c->length += len;
}

void gp_checksum_add(gp_checksum *c, const void *data, size_t len) {
  checksum_add(c, data, len, -1);
}

/* Folds the length and the accumulators in with the digest's step and
 * finishes with splitmix64's finaliser. */
uint64_t gp_checksum_finish(const gp_checksum *c) {
  uint64_t h = step(DIGEST_SEED, c->length);
  int i;
  for (i = 0; i < 8; i++)
    h = step(h, c->acc[i] ^ SCRAMBLE_KEY[i]);
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

uint64_t gp_checksum_bytes_form(const void *data, size_t len, int form) {
  gp_checksum c;
  gp_checksum_start(&c);
  checksum_add(&c, data, len, form);
  return gp_checksum_finish(&c);
}

uint64_t gp_checksum_bytes(const void *data, size_t len) {
  return gp_checksum_bytes_form(data, len, -1);
}
