/*
 * trace_kernel.c -- a gp_kernel's lifecycle: a new empty kernel bound to an
 * allocator, and its release (the arrays it owns, or the private copy of a
 * .gpt file they point into).  The parser (trace_parse.c), the .gpt loader
 * (trace_gpt.c) and the synthetic generator (synth.c) all start here, so no
 * reader depends on another to create or free a kernel.
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

void gp_kernel_free(gp_kernel *k) {
  gp_alloc a;
  if (k == NULL)
    return;
  a = k->alloc;
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
