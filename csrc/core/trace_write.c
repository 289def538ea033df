/*
 * trace_write.c -- a gp_kernel as Accel-Sim text (tracer version 5).
 *
 * Synthetic kernels can be fed to other tools, and any kernel can be
 * written back.  The kernel keeps dependences as distances, not registers,
 * so the writer allocates registers: instruction j of a warp writes the
 * 4-register block R(4 x (j mod 63)) (wide results fit in the block), and
 * reads the blocks of its producers (deps).  Read
 * back, the writer's text gives the same dependences for distances below 63;
 * longer ones (and producers that write no register: stores, branches) are
 * dropped.  Active lanes are written as the lowest lanes of the mask, and
 * addresses in mode 1 or 2 as the tracer compresses them.  The output is
 * deterministic:
 * the same kernel always gives the same bytes.
 */
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define REG_BLOCKS 63

static int writes_register(int c) {
  return !(c == GP_OP_ST_GLOBAL || c == GP_OP_ST_LOCAL || c == GP_OP_ST_SHARED ||
           c == GP_OP_BRANCH || c == GP_OP_BARRIER || c == GP_OP_BARRIER_ARRIVE ||
           c == GP_OP_DEPBAR || c == GP_OP_LDGSTS);
}

static void write_header(const gp_kernel *k, FILE *f) {
  fprintf(f, "-kernel name = %s\n-kernel id = %u\n", k->name, k->launch_id);
  fprintf(f, "-grid dim = (%u,%u,%u)\n-block dim = (%u,%u,%u)\n", k->grid[0], k->grid[1],
          k->grid[2], k->block[0], k->block[1], k->block[2]);
  fprintf(f, "-shmem = %u\n-nregs = %u\n-binary version = %d\n-cuda stream id = 0\n",
          k->shmem_bytes, k->nregs, k->binary_version);
  fprintf(f, "-shmem base_addr = 0x%016llx\n-local mem base_addr = 0x%016llx\n",
          (unsigned long long)k->shmem_base, (unsigned long long)k->local_base);
  fprintf(f, "-nvbit version = gpush\n-accelsim tracer version = 5\n"
             "-enable lineinfo = 0\n\n");
  fprintf(f, "#traces format = [line_num] PC mask dest_num [reg_dests] opcode "
             "src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] "
             "immediate\n\n");
}

/* The memory part of a line: mode 1 (base stride) when the lanes are evenly
 * spaced, else mode 2 (base, then each lane's delta from the previous),
 * the tracer's own compressions. */
static void write_addresses(const uint64_t *addrs, uint32_t n, uint64_t offset,
                            unsigned width, FILE *f) {
  uint32_t a;
  int64_t stride = n > 1 ? (int64_t)(addrs[1] - addrs[0]) : 0;
  int even = stride >= INT32_MIN && stride <= INT32_MAX;
  for (a = 2; a < n && even; a++)
    even = (int64_t)(addrs[a] - addrs[a - 1]) == stride;
  if (even) {
    fprintf(f, " %u 1 0x%016llx %lld", width, (unsigned long long)(addrs[0] + offset),
            (long long)stride);
    return;
  }
  fprintf(f, " %u 2 0x%016llx", width, (unsigned long long)(addrs[0] + offset));
  for (a = 1; a < n; a++)
    fprintf(f, " %lld", (long long)(int64_t)(addrs[a] - addrs[a - 1]));
}

/* One instruction line; j is its index within the warp. */
static void write_instruction(const gp_kernel *k, uint64_t i, uint64_t j, FILE *f) {
  const gp_static_inst *s = &k->statics[k->pc_index[i]];
  int c = k->op_class[i];
  uint32_t mask = k->active[i] >= 32 ? 0xffffffffu : ((1u << k->active[i]) - 1u);
  int srcs[GP_DEPS], nsrc = 0;
  int d;
  for (d = 0; d < GP_DEPS; d++) {
    uint64_t dist = k->deps[i * GP_DEPS + d];
    if (dist == 0 || dist >= REG_BLOCKS || dist > j)
      continue;
    if (!writes_register(k->op_class[i - dist]))
      continue;
    srcs[nsrc++] = (int)(4 * ((j - dist) % REG_BLOCKS));
  }
  fprintf(f, "%04llx %08x ", (unsigned long long)s->pc, mask);
  if (writes_register(c))
    fprintf(f, "1 R%d ", (int)(4 * (j % REG_BLOCKS)));
  else
    fputs("0 ", f);
  fprintf(f, "%s %d", k->strings + s->opcode, nsrc);
  for (d = 0; d < nsrc; d++)
    fprintf(f, " R%d", srcs[d]);
  if (k->mem[i] != UINT32_MAX) {
    const gp_mem_record *m = &k->mem_records[k->mem[i]];
    int shared = c == GP_OP_LD_SHARED || c == GP_OP_ST_SHARED || c == GP_OP_ATOM_SHARED;
    uint64_t offset = shared && s->generic ? k->shmem_base : 0;
    write_addresses(GP_MEM_LANES(k, m), m->addr_count, offset, k->width[i], f);
  } else {
    fprintf(f, " %u", gp_op_is_memory(c) && !(k->flags[i] & GP_INST_NO_MEMORY) ? k->width[i] : 0u);
    if (gp_op_is_memory(c) && !(k->flags[i] & GP_INST_NO_MEMORY))
      fputs(" 0", f);
  }
  fputs(" 0\n", f);
}

int gp_kernel_write_text(const gp_kernel *k, FILE *f, const char *name,
                         gp_error *err) {
  uint32_t b, w;
  write_header(k, f);
  for (b = 0; b < k->blocks; b++) {
    uint32_t x = b % k->grid[0], y = (b / k->grid[0]) % k->grid[1],
             z = b / (k->grid[0] * k->grid[1]);
    fprintf(f, "#BEGIN_TB\n\nthread block = %u,%u,%u\n\n", x, y, z);
    for (w = 0; w < k->warps_per_block; w++) {
      uint64_t g = (uint64_t)b * k->warps_per_block + w, j;
      if (k->warp_len[g] == 0)
        continue;
      fprintf(f, "warp = %u\ninsts = %u\n", w, k->warp_len[g]);
      for (j = 0; j < k->warp_len[g]; j++)
        write_instruction(k, k->warp_start[g] + j, j, f);
      fputc('\n', f);
    }
    fputs("#END_TB\n\n", f);
  }
  if (ferror(f))
    return gp_error_set(err, "%s: cannot write: %s", name, strerror(errno));
  return GP_OK;
}
