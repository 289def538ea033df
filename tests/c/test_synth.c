/* Unit tests of synthetic kernels and of writing kernels as Accel-Sim text:
 * hand-computed addresses and dependences, determinism, and text round
 * trips (write, read back, write again: identical). */
#define _POSIX_C_SOURCE 200809L

#include "gp_test.h"
#include "synth.h"

#include <stdlib.h>
#include <string.h>

static gp_kernel *generate(const gp_synth_desc *d) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  if (gp_synth_generate(&k, &a, d, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return k;
}

static gp_synth_desc base_desc(const gp_synth_op *body, uint32_t n,
                               const gp_synth_stream *streams, uint32_t ns) {
  gp_synth_desc d;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "t");
  d.grid[0] = 2, d.grid[1] = 1, d.grid[2] = 1;
  d.block[0] = 64, d.block[1] = 1, d.block[2] = 1;
  d.regs = 16;
  d.trips = 2;
  d.body = body;
  d.body_len = n;
  d.streams = streams;
  d.stream_count = ns;
  d.seed = 3;
  return d;
}

static void test_coalesced_addresses_and_dependences(void) {
  gp_synth_stream s[1] = {{GP_STREAM_COALESCED, 0x1000, 1 << 20, 4, 1}};
  gp_synth_op body[3] = {{GP_OP_LD_GLOBAL, 4, 0, 0, {0}},
                         {GP_OP_FP32, 0, 0, 0, {1}},
                         {GP_OP_FP32, 0, 0, 16, {3}}};
  gp_synth_desc d = base_desc(body, 3, s, 1);
  gp_kernel *k = generate(&d);
  const gp_mem_record *m;
  CHECK(k != NULL);
  if (k == NULL)
    return;
  CHECK_EQ_INT(k->warps, 4);
  CHECK_EQ_INT(k->insts, 4 * 7);
  /* warp 1, trip 0: lane l reads 0x1000 + (32 + l) x 4 */
  m = &k->mem_records[k->mem[k->warp_start[1]]];
  CHECK_EQ_INT(k->addresses[m->addr_start], 0x1000 + 32 * 4);
  CHECK_EQ_INT(k->addresses[m->addr_start + 31], 0x1000 + 63 * 4);
  CHECK_EQ_INT(m->line_count, 1);
  CHECK_EQ_INT(m->sector_count, 4);
  /* trip 1 moves on by the 128 threads of the grid */
  m = &k->mem_records[k->mem[k->warp_start[1] + 3]];
  CHECK_EQ_INT(k->addresses[m->addr_start], 0x1000 + (32 + 128) * 4);
  /* dependences: the FFMA waits on the load; the third op (dep 3) is
   * loop-carried: none in trip 0, the previous trip's third op in trip 1 */
  CHECK_EQ_INT(gp_kernel_dep(k, 1), 1);
  CHECK_EQ_INT(gp_kernel_dep_load(k, 1), 1);
  CHECK_EQ_INT(gp_kernel_dep(k, 2), 0);
  CHECK_EQ_INT(gp_kernel_dep(k, 5), 3);
  CHECK_EQ_INT(k->active[2], 16);
  CHECK_EQ_INT(k->op_class[6], GP_OP_BRANCH);
  gp_kernel_free(k);
}

static void test_invalid_descriptions(void) {
  gp_synth_op body[1] = {{GP_OP_LD_GLOBAL, 3, 0, 0, {0}}};
  gp_synth_stream s[1] = {{GP_STREAM_COALESCED, 0, 1 << 20, 4, 1}};
  gp_synth_desc d = base_desc(body, 1, s, 1);
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  CHECK(gp_synth_generate(&k, &a, &d, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "synthetic kernel 't': instruction 1 has width 3, expected 1, 2, 4, 8 or 16 bytes");
  body[0].width = 4;
  d.stream_count = 0;
  CHECK(gp_synth_generate(&k, &a, &d, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "instruction 1 (ld_global) uses stream 1 of 0");
  d.stream_count = 1;
  d.trips = 100000000;
  d.grid[0] = 1000;
  CHECK(gp_synth_generate(&k, &a, &d, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "more than gpush generates");
}

/* Writes a kernel to a string. */
static char *write_text(const gp_kernel *k, size_t *len) {
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  gp_error err;
  CHECK(gp_kernel_write_text(k, f, "mem", &err) == GP_OK);
  fclose(f);
  return buf;
}

static void test_text_round_trip(void) {
  gp_synth_stream s[3] = {{GP_STREAM_RANDOM, 0x100000, 1 << 24, 4, 1},
                          {GP_STREAM_SHARED, 0, 4096, 8, 1},
                          {GP_STREAM_STRIDED, 0x900000, 1 << 24, 64, 2}};
  gp_synth_op body[7] = {{GP_OP_LD_GLOBAL, 16, 0, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {1}},
                         {GP_OP_ST_SHARED, 8, 1, 0, {1}},  {GP_OP_BARRIER, 0, 0, 0, {0}},
                         {GP_OP_LD_SHARED, 4, 1, 7, {0}},  {GP_OP_IMAD, 0, 0, 0, {4}},
                         {GP_OP_ST_GLOBAL, 4, 2, 0, {1}}};
  gp_synth_desc d = base_desc(body, 7, s, 3);
  gp_kernel *k = generate(&d), *back = NULL;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  char *text, *again;
  size_t len, len2;
  uint64_t i;
  CHECK(k != NULL);
  if (k == NULL)
    return;
  text = write_text(k, &len);
  CHECK(gp_kernel_parse_buffer(&back, &a, text, len, "written.traceg", &err) == GP_OK);
  if (back == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    free(text);
    gp_kernel_free(k);
    return;
  }
  CHECK_EQ_INT(back->insts, k->insts);
  CHECK_EQ_INT(back->mem_count, k->mem_count);
  CHECK_EQ_INT(back->line_count, k->line_count);
  for (i = 0; i < k->insts; i++) {
    if (back->op_class[i] != k->op_class[i] || back->active[i] != k->active[i] ||
        memcmp(back->deps + i * GP_DEPS, k->deps + i * GP_DEPS, GP_DEPS * 2) != 0 ||
        (back->flags[i] & GP_INST_LOAD_DEPS) != (k->flags[i] & GP_INST_LOAD_DEPS)) {
      fprintf(stderr, "  instruction %llu differs after a round trip\n", (unsigned long long)i);
      CHECK(0);
      break;
    }
  }
  for (i = 0; i < k->mem_count; i++) { /* the same lanes, stored as a list or strided */
    uint64_t buf_k[32], buf_b[32];
    const gp_mem_record *mk = &k->mem_records[i], *mb = &back->mem_records[i];
    CHECK_EQ_INT(mb->addr_count, mk->addr_count);
    if (mb->addr_count != mk->addr_count ||
        memcmp(gp_mem_lanes(back, mb, buf_b), gp_mem_lanes(k, mk, buf_k),
               mk->addr_count * sizeof *k->addresses) != 0) {
      fprintf(stderr, "  memory record %llu differs after a round trip\n", (unsigned long long)i);
      CHECK(0);
      break;
    }
  }
  CHECK(memcmp(back->sector_masks, k->sector_masks, k->line_count) == 0);
  again = write_text(back, &len2);
  CHECK_EQ_INT(len2, len);
  CHECK(len == len2 && memcmp(text, again, len) == 0);
  free(text);
  free(again);
  gp_kernel_free(back);
  gp_kernel_free(k);
}

/* A prologue and an epilogue run once per warp around the loop: their
 * instructions, static PCs, dependences reaching across the parts, and
 * memory addresses (the prologue's at trip 0, the epilogue's after the
 * last trip), counted by hand. */
static void test_prologue_and_epilogue(void) {
  gp_synth_stream s[1] = {{GP_STREAM_COALESCED, 0x1000, 1 << 20, 4, 1}};
  gp_synth_op prologue[2] = {{GP_OP_LD_CONST, 4, 0, 0, {0}}, {GP_OP_LD_GLOBAL, 4, 0, 0, {0}}};
  gp_synth_op body[2] = {{GP_OP_INT, 0, 0, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {2, 5}}};
  gp_synth_op epilogue[1] = {{GP_OP_ST_GLOBAL, 4, 0, 0, {1}}};
  gp_synth_desc d = base_desc(body, 2, s, 1);
  gp_kernel *k;
  const gp_mem_record *m;
  d.trips = 3;
  d.prologue = prologue, d.prologue_len = 2;
  d.epilogue = epilogue, d.epilogue_len = 1;
  k = generate(&d);
  CHECK(k != NULL);
  if (k == NULL)
    return;
  /* 4 warps x (2 + 3 x 2 + 1 + EXIT) */
  CHECK_EQ_INT(k->insts, 4 * 10);
  CHECK_EQ_INT(k->static_count, 6);
  CHECK_EQ_INT(k->statics[1].op_class, GP_OP_LD_GLOBAL);
  CHECK_EQ_INT(k->statics[4].op_class, GP_OP_ST_GLOBAL);
  CHECK_EQ_INT(k->statics[5].op_class, GP_OP_BRANCH);
  CHECK_EQ_INT(k->statics[5].pc, 0x60);
  CHECK_EQ_INT(k->class_counts[GP_OP_FP32], 4 * 3);
  CHECK_EQ_INT(k->class_counts[GP_OP_BRANCH], 4);
  CHECK_EQ_INT(k->mem_count, 4 * 2);
  /* warp 0: LDC, LDG, (IADD3, FFMA) x 3, STG, EXIT; the first FFMA's
   * producers: 2 back the prologue's LDG, 5 back before the warp (none);
   * the second's: 2 back the first FFMA, 5 back the LDC */
  CHECK_EQ_INT(k->pc_index[0], 0);
  CHECK_EQ_INT(k->pc_index[3], 3);
  CHECK_EQ_INT(k->pc_index[8], 4);
  CHECK_EQ_INT(k->pc_index[9], 5);
  CHECK_EQ_INT(gp_kernel_dep(k, 3), 2);
  CHECK_EQ_INT(gp_kernel_dep_load(k, 3), 2);
  CHECK_EQ_INT(gp_kernel_dep_load(k, 5), 5); /* LDC counts as a load */
  CHECK_EQ_INT(gp_kernel_dep(k, 5), 2);
  CHECK_EQ_INT(gp_kernel_dep(k, 8), 1);
  /* the prologue's load reads trip 0's addresses, the epilogue's store
   * those of trip 3 (the 128 threads of the grid on per trip) */
  m = &k->mem_records[k->mem[1]];
  CHECK_EQ_INT(k->addresses[m->addr_start], 0x1000);
  m = &k->mem_records[k->mem[8]];
  CHECK_EQ_INT(k->addresses[m->addr_start], 0x1000 + 3 * 128 * 4);
  gp_kernel_free(k);
  /* a bad prologue instruction is named as such */
  prologue[1].width = 3;
  {
    gp_alloc a = gp_alloc_default();
    gp_error err;
    k = NULL;
    CHECK(gp_synth_generate(&k, &a, &d, &err) == GP_ERR);
    CHECK_STR_CONTAINS(err.msg, "synthetic kernel 't': prologue instruction 2 has width 3");
  }
}

int main(void) {
  RUN(test_coalesced_addresses_and_dependences);
  RUN(test_invalid_descriptions);
  RUN(test_text_round_trip);
  RUN(test_prologue_and_epilogue);
  return gp_test_finish();
}
