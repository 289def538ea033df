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
