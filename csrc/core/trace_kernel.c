/*
 * trace_kernel.c -- a gp_kernel's lifecycle: a new empty kernel bound to an
 * allocator, a prefix of its first thread blocks sharing its arrays, and
 * the release (the arrays it owns, or the private copy of a .gpt file they
 * point into, once no prefix reads them).  The parser (trace_parse.c), the
 * .gpt loader (trace_gpt.c) and the synthetic generator (synth.c) all start
 * here, so no reader depends on another to create or free a kernel.
 */
#include "gpt_guard.h"
#include "trace.h"

#include <string.h>

gp_kernel *gp_kernel_new(const gp_alloc *alloc) {
  gp_kernel *k = gp_malloc(alloc, sizeof *k);
  if (k != NULL) {
    memset(k, 0, sizeof *k);
    k->alloc = *alloc;
  }
  return k;
}

/* Frees what a kernel owns (its arrays, or the .gpt image they point into)
 * and the kernel. */
static void free_owned(gp_kernel *k) {
  gp_alloc a = k->alloc;
  if (k->image != NULL) { /* arrays live in the .gpt image */
    if (k->image_mapped)
      gp_gpt_guard_unmap(k->image, k->image_bytes);
    else
      gp_free(&a, k->image, k->image_bytes);
    gp_free(&a, k, sizeof *k);
    return;
  }
  gp_free(&a, k->warp_start, k->cap_warps * sizeof *k->warp_start);
  gp_free(&a, k->warp_len, k->cap_warps * sizeof *k->warp_len);
  gp_free(&a, k->op_class, k->cap_insts);
  gp_free(&a, k->active, k->cap_insts);
  gp_free(&a, k->flags, k->cap_insts);
  gp_free(&a, k->width, k->cap_insts);
  gp_free(&a, k->pc_index, k->cap_insts * sizeof *k->pc_index);
  gp_free(&a, k->deps, k->cap_insts * GP_DEPS * sizeof *k->deps);
  gp_free(&a, k->mem, k->cap_insts * sizeof *k->mem);
  gp_free(&a, k->mem_records, k->cap_mem * sizeof *k->mem_records);
  gp_free(&a, k->addresses, k->cap_addr * sizeof *k->addresses);
  gp_free(&a, k->lines, k->cap_lines * sizeof *k->lines);
  gp_free(&a, k->sector_masks, k->cap_lines);
  gp_free(&a, k->statics, k->cap_statics * sizeof *k->statics);
  gp_free(&a, k->strings, k->cap_strings);
  gp_free(&a, k->pc_table, k->pc_table_cap * sizeof *k->pc_table);
  gp_free(&a, k, sizeof *k);
}

void gp_kernel_free(gp_kernel *k) {
  gp_kernel *base;
  if (k == NULL)
    return;
  base = k->base;
  if (base != NULL) { /* a prefix owns nothing but itself */
    gp_alloc a = k->alloc;
    gp_free(&a, k, sizeof *k);
    if (--base->prefixes == 0 && base->released)
      free_owned(base);
    return;
  }
  if (k->prefixes > 0) { /* its prefixes still read the arrays */
    k->released = 1;
    return;
  }
  free_owned(k);
}

const uint64_t *gp_mem_lanes(const gp_kernel *k, const gp_mem_record *m, uint64_t buf[32]) {
  const uint64_t *stored = k->addresses + m->addr_start;
  uint32_t i;
  uint64_t a, step;
  if (m->lanes == GP_LANES_LIST || m->addr_count == 0)
    return stored;
  a = stored[0];
  buf[0] = a;
  if (m->lanes == GP_LANES_DELTAS) {
    const unsigned char *deltas = (const unsigned char *)(stored + 1);
    for (i = 1; i < m->addr_count; i++) {
      int32_t d;
      memcpy(&d, deltas + 4u * (i - 1), sizeof d);
      a += (uint64_t)(int64_t)d; /* wraps as the tracer's deltas do */
      buf[i] = a;
    }
    return buf;
  }
  step = (uint64_t)(int64_t)m->stride; /* wraps like the tracer's base + i x stride */
  for (i = 1; i < m->addr_count; i++)
    buf[i] = a += step;
  return buf;
}

/* The instructions, memory records, lines and lane addresses of the first
 * `warps` warps, when they are the first of each array in order: *insts
 * etc. are their counts; 0 when the warps are stored otherwise. */
static int prefix_extent(const gp_kernel *k, uint32_t warps, uint64_t *insts, uint32_t *mem,
                         uint32_t *lines, uint32_t *addresses) {
  uint64_t next = 0, i;
  uint32_t w, records = 0;
  for (w = 0; w < warps; w++) {
    if (k->warp_len[w] == 0)
      continue;
    if (k->warp_start[w] != next)
      return 0;
    next += k->warp_len[w];
  }
  for (i = 0; i < next; i++)
    if (k->mem[i] != UINT32_MAX && k->mem[i] != records++)
      return 0;
  *insts = next, *mem = records, *lines = 0, *addresses = 0;
  if (records > 0) {
    const gp_mem_record *last = &k->mem_records[records - 1];
    *lines = last->line_start + last->line_count;
    *addresses = last->addr_start + gp_mem_stored(last);
  }
  return 1;
}

int gp_kernel_prefix(gp_kernel *k, uint32_t blocks, gp_kernel **out, gp_error *err) {
  gp_kernel *base = k->base != NULL ? k->base : k, *p;
  uint64_t insts, i;
  uint32_t mem, lines, addresses, warps;
  if (blocks == 0 || blocks > k->blocks)
    return gp_error_set(err, "%s: a prefix of %u thread blocks, where the kernel has 1 to %u", k->name,
                        blocks, k->blocks);
  warps = blocks * k->warps_per_block;
  if (!prefix_extent(k, warps, &insts, &mem, &lines, &addresses))
    return gp_error_set(err, "%s: the first %u thread blocks are not stored first, in order", k->name,
                        blocks);
  p = gp_malloc(&k->alloc, sizeof *p);
  if (p == NULL)
    return gp_error_set(err, "%s: out of memory", k->name);
  *p = *k;
  p->base = base;
  p->prefixes = 0;
  p->released = 0;
  p->grid[0] = blocks, p->grid[1] = 1, p->grid[2] = 1;
  p->blocks = blocks;
  p->warps = warps;
  p->insts = insts;
  p->mem_count = mem, p->line_count = lines, p->address_count = addresses;
  memset(p->class_counts, 0, sizeof p->class_counts);
  for (i = 0; i < insts; i++)
    p->class_counts[k->op_class[i]]++;
  base->prefixes++;
  *out = p;
  return GP_OK;
}
