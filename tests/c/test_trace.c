/* Unit tests of the trace reader: every format version and address mode on
 * hand-written miniature traces, dependences, coalescing, compressed input,
 * bad input with its exact message, and the shared real traces. */
#define _POSIX_C_SOURCE 200809L

#include "gp_test.h"
#include "trace.h"

#include <dirent.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* Lane i of memory record m, however the record stores its lanes. */
static uint64_t lane_at(const gp_kernel *k, const gp_mem_record *m, int i) {
  uint64_t buf[32];
  return gp_mem_lanes(k, m, buf)[i];
}

static gp_kernel *parse(const char *text, gp_error *err) {
  gp_alloc a = gp_alloc_default();
  gp_kernel *k = NULL;
  if (gp_kernel_parse_buffer(&k, &a, text, strlen(text), "mini.traceg", err) != GP_OK)
    return NULL;
  return k;
}

static const char *opcode_of(const gp_kernel *k, uint64_t i) {
  return k->strings + k->statics[k->pc_index[i]].opcode;
}

#define HEADER_V4                                                              \
  "-kernel name = mini\n-kernel id = 7\n-grid dim = (2,1,1)\n"                 \
  "-block dim = (64,1,1)\n-shmem = 1024\n-nregs = 32\n-binary version = 80\n"  \
  "-shmem base_addr = 0x00007f0000000000\n"                                     \
  "-local mem base_addr = 0x00007e0000000000\n"                                 \
  "-accelsim tracer version = 4\n-enable lineinfo = 0\n\n"                      \
  "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "   \
  "[reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n"

/* The same with a grid of three blocks of one warp each. */
#define HEADER_V4_GRID3                                                        \
  "-kernel name = mini\n-kernel id = 7\n-grid dim = (3,1,1)\n"                 \
  "-block dim = (32,1,1)\n-shmem = 0\n-nregs = 32\n-binary version = 80\n"     \
  "-accelsim tracer version = 4\n-enable lineinfo = 0\n\n"                      \
  "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "   \
  "[reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n"

/* Version 4: address modes 1 and 2, a .128 load feeding R5..R7, RZ. */
static void test_version4_modes_and_dependences(void) {
  gp_error err;
  gp_kernel *k = parse(HEADER_V4
                       "#BEGIN_TB\nthread block = 1,0,0\nwarp = 1\ninsts = 6\n"
                       "0010 ffffffff 1 R4 LDG.E.128 1 R2 16 1 0x1000 16\n"
                       "0020 ffffffff 1 R8 IADD3 3 R5 R255 R255 0\n"
                       "0030 ffffffff 1 R9 FADD 2 R6 R7 0\n"
                       "0040 0000000f 1 R10 LDG.E 1 R2 4 2 0x2000 4 124 4\n"
                       "0050 ffffffff 1 R11 IADD3 2 R255 R255 0\n"
                       "0060 ffffffff 1 R12 IMAD 2 R10 R11 0\n"
                       "#END_TB\n",
                       &err);
  CHECK(k != NULL);
  if (k == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    return;
  }
  CHECK(strcmp(k->name, "mini") == 0);
  CHECK_EQ_INT(k->launch_id, 7);
  /* the grid's 2 blocks list only block 1: the kernel is that block */
  CHECK_EQ_INT(k->blocks, 1);
  CHECK_EQ_INT(k->grid[0], 1);
  CHECK_EQ_INT(k->warps_per_block, 2);
  CHECK_EQ_INT(k->warps, 2);
  CHECK_EQ_INT(k->insts, 6);
  /* block 1 moves to block 0: its warp 1 is global warp 1; warp 0 is empty */
  CHECK_EQ_INT(k->warp_len[1], 6);
  CHECK_EQ_INT(k->warp_start[1], 0);
  CHECK_EQ_INT(k->warp_len[0], 0);
  CHECK_EQ_INT(k->op_class[0], GP_OP_LD_GLOBAL);
  CHECK_EQ_INT(k->op_class[1], GP_OP_INT);
  CHECK_EQ_INT(k->op_class[2], GP_OP_FP32);
  CHECK_EQ_INT(k->op_class[5], GP_OP_IMAD);
  /* the .128 load writes R4..R7: both readers depend on it, at distance 1 and 2 */
  CHECK_EQ_INT(gp_kernel_dep(k, 0), 0);
  CHECK_EQ_INT(gp_kernel_dep(k, 1), 1);
  CHECK_EQ_INT(gp_kernel_dep_load(k, 1), 1);
  CHECK(k->flags[1] & GP_INST_LOAD(0));
  CHECK_EQ_INT(gp_kernel_dep(k, 2), 2);
  CHECK_EQ_INT(gp_kernel_dep_load(k, 2), 2);
  /* RZ (R255) is never a dependence */
  CHECK_EQ_INT(gp_kernel_dep(k, 4), 0);
  /* IMAD reads R10 (load, distance 2) and R11 (ALU, distance 1): both
   * producers, the nearest first */
  CHECK_EQ_INT(gp_kernel_dep(k, 5), 1);
  CHECK_EQ_INT(gp_kernel_dep_load(k, 5), 2);
  CHECK_EQ_INT(k->deps[5 * GP_DEPS + 1], 2);
  CHECK_EQ_INT(k->deps[5 * GP_DEPS + 2], 0);
  CHECK(!(k->flags[5] & GP_INST_LOAD(0)));
  CHECK(k->flags[5] & GP_INST_LOAD(1));
  /* mode 1: 32 lanes x 16 B from 0x1000 = 512 B = 4 lines of 4 sectors */
  CHECK_EQ_INT(k->active[0], 32);
  CHECK_EQ_INT(k->mem_records[k->mem[0]].addr_count, 32);
  CHECK_EQ_INT(lane_at(k, &k->mem_records[k->mem[0]], 31), 0x1000 + 31 * 16);
  CHECK_EQ_INT(k->mem_records[k->mem[0]].line_count, 4);
  CHECK_EQ_INT(k->mem_records[k->mem[0]].sector_count, 16);
  CHECK_EQ_INT(k->lines[k->mem_records[k->mem[0]].line_start], 0x1000 >> 7);
  /* mode 2: base 0x2000 then deltas 4, 124, 4 over 4 active lanes:
   * 0x2000, 0x2004, 0x2080, 0x2084 -> 2 lines, 1 sector each */
  {
    const gp_mem_record *m = &k->mem_records[k->mem[3]];
    CHECK_EQ_INT(k->active[3], 4);
    CHECK_EQ_INT(m->addr_count, 4);
    CHECK_EQ_INT(lane_at(k, m, 2), 0x2080);
    CHECK_EQ_INT(lane_at(k, m, 3), 0x2084);
    CHECK_EQ_INT(m->line_count, 2);
    CHECK_EQ_INT(m->sector_count, 2);
    CHECK_EQ_INT(k->sector_masks[m->line_start], 1);
    CHECK_EQ_INT(k->sector_masks[m->line_start + 1], 1);
  }
  CHECK_EQ_INT(k->mem[1], UINT32_MAX);
  CHECK_EQ_INT(k->static_count, 6);
  CHECK(strcmp(opcode_of(k, 0), "LDG.E.128") == 0);
  CHECK_EQ_INT(k->class_counts[GP_OP_LD_GLOBAL], 2);
  CHECK(strcmp(k->warnings, "the trace lists 1 of the grid's 2 thread blocks (2,1,1): every model runs "
                            "the 1 listed, as a grid of (1,1,1)") == 0);
  gp_kernel_free(k);
}

/* Version 5 (trailing immediate) with mode 0, LDC without addresses,
 * HFMA2.MMA as a move, an empty-mask store, and generic LD resolution. */
static void test_version5_mode0_generic_and_empty_mask(void) {
  gp_error err;
  gp_kernel *k = parse(
      "-kernel name = v5\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
      "-binary version = 90\n-shmem base_addr = 0x00007f5e00000000\n"
      "-local mem base_addr = 0x00007f5ddd000000\n"
      "-accelsim tracer version = 5\n-enable lineinfo = 0\n"
      "#traces format = ... immediate\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 6\n"
      "0000 ffffffff 1 R1 LDC 0 0 0\n"
      "0010 ffffffff 1 R3 HFMA2.MMA 2 R255 R255 0 0\n"
      "0020 00000003 1 R4 LD.E 1 R2 4 0 0x00007f5e00000010 0x00007f5e00000014 0\n"
      "0030 00000001 1 R5 LD.E 1 R2 4 0 0x00007f5ddd000100 0\n"
      "0040 00000003 0 ST.E 2 R2 R4 4 0 0x0000000000009000 0x0000000000009100 0\n"
      "0050 00000000 0 STG.E 2 R2 R4 4 0 0\n"
      "#END_TB\n",
      &err);
  CHECK(k != NULL);
  if (k == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    return;
  }
  CHECK_EQ_INT(k->trace_version, 5);
  CHECK_EQ_INT(k->op_class[0], GP_OP_LD_CONST);
  CHECK_EQ_INT(k->mem[0], UINT32_MAX);
  CHECK_EQ_INT(k->op_class[1], GP_OP_FP32);
  CHECK_EQ_INT(k->op_class[2], GP_OP_LD_SHARED);
  /* shared addresses become offsets and make no cache lines */
  CHECK_EQ_INT(lane_at(k, &k->mem_records[k->mem[2]], 1), 0x14);
  CHECK_EQ_INT(k->mem_records[k->mem[2]].line_count, 0);
  CHECK_EQ_INT(k->op_class[3], GP_OP_LD_LOCAL);
  CHECK_EQ_INT(k->op_class[4], GP_OP_ST_GLOBAL);
  CHECK_EQ_INT(k->mem_records[k->mem[4]].line_count, 2);
  /* the empty mask issues but makes no request */
  CHECK_EQ_INT(k->active[5], 0);
  CHECK(k->flags[5] & GP_INST_NO_MEMORY);
  CHECK_EQ_INT(k->mem[5], UINT32_MAX);
  gp_kernel_free(k);
}

/* Pre-3 traces carry block and warp ids on every line; version 4 with
 * lineinfo puts the source line first. */
static void test_pre3_and_lineinfo(void) {
  gp_error err;
  gp_kernel *k = parse("-kernel name = old\n-kernel id = 8\n-grid dim = (1,1,1)\n"
                       "-block dim = (32,1,1)\n-shmem = 3072\n-nregs = 166\n"
                       "-binary version = 70\n\n#traces format = threadblock_x ...\n\n"
                       "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 2\n"
                       "0 0 0 0 0290 ffff0000 1 R8 LDG.E.SYS 1 R2 4 1 0x00007fe033702880 4 \n"
                       "0 0 0 0 0430 ffff0000 0 STS 2 R25 R8 4 1 0x0000000000000200 4 \n"
                       "#END_TB\n",
                       &err);
  CHECK(k != NULL);
  if (k != NULL) {
    CHECK_EQ_INT(k->trace_version, 0);
    CHECK_EQ_INT(k->insts, 2);
    CHECK_EQ_INT(k->active[0], 16);
    CHECK_EQ_INT(k->op_class[1], GP_OP_ST_SHARED);
    CHECK_EQ_INT(gp_kernel_dep(k, 1), 1);
    /* 16 lanes x 4 B stride 4 from ...880: one line, sectors 0 and 1 */
    CHECK_EQ_INT(k->mem_records[k->mem[0]].line_count, 1);
    CHECK_EQ_INT(k->sector_masks[k->mem_records[k->mem[0]].line_start], 3);
    gp_kernel_free(k);
  } else {
    fprintf(stderr, "  %s\n", err.msg);
  }
  k = parse("-kernel name = li\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
            "-binary version = 86\n-accelsim tracer version = 4\n"
            "-enable lineinfo = 1\n#traces format = x\n#BEGIN_TB\n"
            "thread block = 0,0,0\nwarp = 0\ninsts = 1\n"
            "42 0010 ffffffff 1 R2 MUFU.RCP 1 R1 0\n#END_TB\n",
            &err);
  CHECK(k != NULL);
  if (k != NULL) {
    CHECK_EQ_INT(k->statics[0].line_num, 42);
    CHECK_EQ_INT(k->op_class[0], GP_OP_SFU);
    gp_kernel_free(k);
  }
}

static void test_opcode_classes(void) {
#define CLASS(op, v) gp_opcode_classify(op, strlen(op), v).op_class
  CHECK_EQ_INT(CLASS("XMAD.PSL.CBCC", 61), GP_OP_IMAD);
  CHECK_EQ_INT(CLASS("IMAD.WIDE.U32", 80), GP_OP_IMAD);
  CHECK_EQ_INT(gp_opcode_classify("IMAD.WIDE", 9, 80).dest_regs, 2);
  CHECK_EQ_INT(gp_opcode_classify("DFMA", 4, 80).dest_regs, 2);
  CHECK_EQ_INT(gp_opcode_classify("LDS.U.64", 8, 70).dest_regs, 2);
  CHECK_EQ_INT(gp_opcode_classify("LDG.E.128.SYS", 13, 70).width, 16);
  CHECK_EQ_INT(gp_opcode_classify("LDG.E.U8", 8, 70).width, 1);
  CHECK_EQ_INT(CLASS("HMMA.16816.F32", 80), GP_OP_TENSOR);
  CHECK_EQ_INT(CLASS("HGMMA.64x128x16.F32", 90), GP_OP_TENSOR);
  CHECK_EQ_INT(CLASS("HFMA2.MMA", 90), GP_OP_FP32);
  CHECK_EQ_INT(CLASS("BAR.SYNC", 70), GP_OP_BARRIER);
  CHECK_EQ_INT(CLASS("BAR.SYNC.DEFER_BLOCKING", 80), GP_OP_BARRIER);
  CHECK_EQ_INT(CLASS("BAR.ARV", 70), GP_OP_BARRIER_ARRIVE);
  CHECK_EQ_INT(CLASS("UIADD3", 80), GP_OP_UNIFORM);
  CHECK_EQ_INT(CLASS("ULDC.64", 80), GP_OP_LD_CONST);
  CHECK_EQ_INT(CLASS("MUFU.EX2", 75), GP_OP_SFU);
  CHECK_EQ_INT(CLASS("I2F.F64", 80), GP_OP_SFU);
  CHECK_EQ_INT(gp_opcode_classify("F2F.F64.F32", 11, 80).dest_regs, 2);
  CHECK_EQ_INT(CLASS("I2F", 61), GP_OP_INT);
  CHECK_EQ_INT(CLASS("ATOMS.ADD", 80), GP_OP_ATOM_SHARED);
  CHECK_EQ_INT(CLASS("RED.E.ADD.STRONG.GPU", 80), GP_OP_ATOM_GLOBAL);
  CHECK_EQ_INT(CLASS("LDGSTS.E.BYPASS.128", 80), GP_OP_LDGSTS);
  CHECK_EQ_INT(CLASS("LDGDEPBAR", 80), GP_OP_DEPBAR);
  CHECK_EQ_INT(CLASS("EXIT", 80), GP_OP_BRANCH);
  CHECK_EQ_INT(CLASS("S2R", 80), GP_OP_OTHER);
  CHECK_EQ_INT(gp_opcode_classify("FROB.X", 6, 80).known, 0);
  CHECK_EQ_INT(CLASS("FROB.X", 80), GP_OP_INT);
  CHECK(strcmp(gp_op_class_name(GP_OP_IMAD), "imad") == 0);
  CHECK(strcmp(gp_op_class_name(GP_OP_LD_GLOBAL), "ld_global") == 0);
#undef CLASS
}

/* Every class against the predicates (trace.h, inline), written out by
 * hand: memory, reaches L1/L2, load, store, shared, atomic. */
static void test_class_predicates(void) {
  static const struct {
    int c;
    int memory, cache, load, store, shared, atomic;
  } want[GP_OP_CLASS_COUNT] = {
      {GP_OP_INT, 0, 0, 0, 0, 0, 0},          {GP_OP_FP32, 0, 0, 0, 0, 0, 0},
      {GP_OP_IMAD, 0, 0, 0, 0, 0, 0},         {GP_OP_FP64, 0, 0, 0, 0, 0, 0},
      {GP_OP_SFU, 0, 0, 0, 0, 0, 0},          {GP_OP_TENSOR, 0, 0, 0, 0, 0, 0},
      {GP_OP_UNIFORM, 0, 0, 0, 0, 0, 0},      {GP_OP_BRANCH, 0, 0, 0, 0, 0, 0},
      {GP_OP_OTHER, 0, 0, 0, 0, 0, 0},        {GP_OP_BARRIER, 0, 0, 0, 0, 0, 0},
      {GP_OP_BARRIER_ARRIVE, 0, 0, 0, 0, 0, 0}, {GP_OP_LD_GLOBAL, 1, 1, 1, 0, 0, 0},
      {GP_OP_ST_GLOBAL, 1, 1, 0, 1, 0, 0},    {GP_OP_LD_LOCAL, 1, 1, 1, 0, 0, 0},
      {GP_OP_ST_LOCAL, 1, 1, 0, 1, 0, 0},     {GP_OP_LD_SHARED, 1, 0, 1, 0, 1, 0},
      {GP_OP_ST_SHARED, 1, 0, 0, 1, 1, 0},    {GP_OP_LD_CONST, 0, 0, 1, 0, 0, 0},
      {GP_OP_TEX, 1, 1, 1, 0, 0, 0},          {GP_OP_ATOM_GLOBAL, 1, 1, 1, 0, 0, 1},
      {GP_OP_ATOM_SHARED, 1, 0, 1, 0, 1, 1},  {GP_OP_LDGSTS, 1, 1, 0, 0, 0, 0},
      {GP_OP_DEPBAR, 0, 0, 0, 0, 0, 0}};
  int i;
  for (i = 0; i < GP_OP_CLASS_COUNT; i++) {
    int c = want[i].c;
    CHECK_EQ_INT(c, i);
    CHECK_EQ_INT(gp_op_is_memory(c) != 0, want[i].memory);
    CHECK_EQ_INT(gp_op_uses_cache(c) != 0, want[i].cache);
    CHECK_EQ_INT(gp_op_is_load(c) != 0, want[i].load);
    CHECK_EQ_INT(gp_op_is_store(c) != 0, want[i].store);
    CHECK_EQ_INT(gp_op_is_shared(c) != 0, want[i].shared);
    CHECK_EQ_INT(gp_op_is_atomic(c) != 0, want[i].atomic);
  }
}

static void test_unknown_opcode_is_reported(void) {
  gp_error err;
  gp_kernel *k = parse("-kernel name = u\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
                       "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
                       "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n"
                       "0010 ffffffff 1 R2 FROB.X 0 0\n0020 ffffffff 1 R3 FROB.X 0 0\n"
                       "0030 ffffffff 1 R4 IADD3 1 R2 0\n#END_TB\n",
                       &err);
  CHECK(k != NULL);
  if (k != NULL) {
    CHECK(strcmp(k->warnings, "2 instructions of unknown opcode FROB.X classed as integer ALU") == 0);
    CHECK_EQ_INT(k->class_counts[GP_OP_INT], 3);
    gp_kernel_free(k);
  }
}

static void expect_error(const char *body, const char *message) {
  char text[4096];
  gp_error err;
  gp_kernel *k;
  snprintf(text, sizeof text,
           "-kernel name = bad\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"
           "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n%s",
           body);
  k = parse(text, &err);
  CHECK(k == NULL);
  if (k != NULL)
    gp_kernel_free(k);
  else
    CHECK_STR_CONTAINS(err.msg, message);
}

#define TB "#BEGIN_TB\nthread block = 0,0,0\n"

static void test_bad_input_messages(void) {
  expect_error(TB "warp = 0\ninsts = 2\n0010 ffffffff 1 R2 IADD3 0 0\n#END_TB\n",
               "mini.traceg:12: warp 0 of block (0,0,0) has 1 instructions but 'insts = 2'");
  expect_error(TB "warp = 0\ninsts = 1\n0010 ffffffff 1 R2 IADD3 0 0\n0020 ffffffff 1 R2 IADD3 0 0\n",
               "mini.traceg:12: more instruction lines than the warp's 'insts =' count");
  expect_error(TB "warp = 0\ninsts = 1\n0010 ffffzzff 1 R2 IADD3 0 0\n",
               "mini.traceg:11: expected an active mask (hex), found 'ffffzzff'");
  expect_error(TB "warp = 0\ninsts = 1\n0010 ffffffff 1 R2 LDG.E 1 R4 4 7 0x10 4\n",
               "mini.traceg:11: expected an address mode (0, 1 or 2) from 0 to 2, found '7'");
  expect_error(TB "warp = 0\ninsts = 1\n0010 ffffffff 1 R2 IADD3 0 0\n",
               "mini.traceg:11: the file ended inside thread block (0,0,0): expected #END_TB");
  expect_error(TB "warp = 2\n", "mini.traceg:9: warp 2 is out of range: a block of 64 threads has 2 warps");
  expect_error("#BEGIN_TB\nthread block = 0,3,0\n",
               "mini.traceg:8: thread block (0,3,0) is outside the grid (1,1,1)");
  expect_error(TB "warp = 0\ninsts = 1\n0010 ffffffff 1 R2 LDG.E 1 R4 4 0 0x10 0x14\n",
               "mini.traceg:11: expected a lane address (hex), found the end of the line");
  expect_error(TB "warp = 0\ninsts = 1\n0010 ffffffff 1 R2 IADD3 0 0 junk\n",
               "mini.traceg:11: unexpected 'junk' after the instruction");
  expect_error(TB "0010 ffffffff 1 R2 IADD3 0 0\n",
               "mini.traceg:9: expected 'warp = N' before the first instruction of a warp");
  expect_error(TB "warp = 0\ninsts = 1\n0010 ffffffff 3 R2\n",
               "mini.traceg:11: expected 3 destination registers, found 1");
  expect_error("\x7f" "ELF\x01\x02garbage\n", "mini.traceg:7: expected #BEGIN_TB before thread-block contents");
  {
    gp_error err;
    gp_kernel *k = parse("-kernel name = x\n-grid dim = (100000,100000,1)\n-block dim = (1024,1,1)\n"
                         "#traces format = x\n", &err);
    CHECK(k == NULL);
    CHECK_STR_CONTAINS(err.msg, "mini.traceg:4: grid of 320000000000 warps is larger than gpush reads");
    k = parse("-kernel name = x\n-nregs = 300\n", &err);
    CHECK(k == NULL);
    CHECK_STR_CONTAINS(err.msg, "mini.traceg:2: expected registers per thread (at most 255), found '300'");
    k = parse("-kernel name = x\n-grid dim = (1,1,1)\n", &err);
    CHECK(k == NULL);
    CHECK_STR_CONTAINS(err.msg, "mini.traceg:2: the file ended inside the header");
    k = parse(TB, &err);
    CHECK(k == NULL);
    CHECK_STR_CONTAINS(err.msg, "mini.traceg:1: the header must give '-grid dim' and '-block dim'");
  }
  expect_error(TB "warp = 0\ninsts = 999999999999\n",
               "mini.traceg:10: expected an instruction count (at most 100000000), found '999999999999'");
}

/* ---------------------------------------------------------------------------
 * Files: compressed input and the kernelslist
 * ------------------------------------------------------------------------- */

static const char mini_trace[] =
    "-kernel name = zipped\n-kernel id = 3\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
    "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
    "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
    "0010 ffffffff 1 R2 IADD3 0 0\n0020 ffffffff 1 R3 FFMA 2 R2 R2 0\n#END_TB\n";

static void write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  fwrite(data, 1, len, f);
  fclose(f);
}

static void check_two_inst_kernel(const char *path) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  CHECK(gp_trace_parse_file(&k, &a, path, &err) == GP_OK);
  if (k == NULL) {
    fprintf(stderr, "  %s: %s\n", path, err.msg);
    return;
  }
  CHECK(strcmp(k->name, "zipped") == 0);
  CHECK_EQ_INT(k->insts, 2);
  CHECK_EQ_INT(gp_kernel_dep(k, 1), 1);
  gp_kernel_free(k);
}

static void test_gzip_xz_and_kernelslist(void) {
  char dir[] = "/tmp/gpush_trace_XXXXXX", path[256];
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_trace_reader *r;
  gp_launch_info info;
  uint32_t copies;
  uint64_t bytes;
  if (mkdtemp(dir) == NULL)
    return;
  /* gzip */
  snprintf(path, sizeof path, "%s/k1.traceg.gz", dir);
  {
    gzFile gz = gzopen(path, "wb");
    gzwrite(gz, mini_trace, (unsigned)strlen(mini_trace));
    gzclose(gz);
  }
  check_two_inst_kernel(path);
  /* xz */
  snprintf(path, sizeof path, "%s/k2.traceg.xz", dir);
  {
    uint8_t out[4096];
    size_t out_len = 0;
    CHECK(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)mini_trace,
                                  strlen(mini_trace), out, &out_len, sizeof out) == LZMA_OK);
    write_file(path, out, out_len);
    check_two_inst_kernel(path);
    /* truncated xz is an error, not a crash */
    snprintf(path, sizeof path, "%s/k3.traceg.xz", dir);
    write_file(path, out, out_len / 2);
    {
      gp_kernel *k = NULL;
      CHECK(gp_trace_parse_file(&k, &a, path, &err) == GP_ERR);
      CHECK_STR_CONTAINS(err.msg, "k3.traceg.xz: cannot decompress: the file ends in the middle of the xz "
                                  "stream: truncated");
    }
    /* a corrupted byte in the middle: the data error, named */
    out[out_len / 2] ^= 0x55;
    snprintf(path, sizeof path, "%s/k4.traceg.xz", dir);
    write_file(path, out, out_len);
    {
      gp_kernel *k = NULL;
      CHECK(gp_trace_parse_file(&k, &a, path, &err) == GP_ERR);
      CHECK_STR_CONTAINS(err.msg, "k4.traceg.xz: cannot decompress: the compressed data is corrupt");
    }
  }
  /* truncated and corrupt gzip: named, without zlib's "<fd:N>" */
  {
    char gz_path[300];
    FILE *f;
    unsigned char buf[4096];
    size_t n;
    snprintf(path, sizeof path, "%s/k1.traceg.gz", dir);
    f = fopen(path, "rb");
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    snprintf(gz_path, sizeof gz_path, "%s/k5.traceg.gz", dir);
    write_file(gz_path, buf, n - 12);
    {
      gp_kernel *k = NULL;
      CHECK(gp_trace_parse_file(&k, &a, gz_path, &err) == GP_ERR);
      CHECK_STR_CONTAINS(err.msg, "k5.traceg.gz: cannot decompress: the file ends in the middle of the gzip "
                                  "stream: truncated");
      CHECK(strstr(err.msg, "<fd:") == NULL);
    }
    buf[12] ^= 0xff, buf[13] ^= 0xff;
    write_file(gz_path, buf, n);
    {
      gp_kernel *k = NULL;
      CHECK(gp_trace_parse_file(&k, &a, gz_path, &err) == GP_ERR);
      CHECK_STR_CONTAINS(err.msg, "k5.traceg.gz: cannot decompress: the gzip data is corrupt (");
      CHECK(strstr(err.msg, "<fd:") == NULL);
    }
  }
  /* a kernelslist with copies, walked launch by launch */
  snprintf(path, sizeof path, "%s/kernelslist.g", dir);
  {
    const char *list = "MemcpyHtoD,0x00007f2b2d500000,400\nk1.traceg.gz\n"
                       "MemcpyHtoD,0x00007f2b2d500200,100\nk2.traceg.xz\n";
    write_file(path, list, strlen(list));
  }
  CHECK(gp_trace_open(&r, &a, dir, &err) == GP_OK);
  CHECK_EQ_INT(gp_trace_next(r, &info, &err), 1);
  CHECK_EQ_INT(info.index, 1);
  CHECK_EQ_INT(info.launch_id, 3);
  CHECK(strcmp(info.name, "zipped") == 0);
  CHECK_EQ_INT(gp_trace_next(r, &info, &err), 1);
  {
    gp_kernel *k = NULL;
    CHECK(gp_trace_load(r, &k, &err) == GP_OK);
    CHECK(k != NULL && k->insts == 2);
    gp_kernel_free(k);
  }
  CHECK_EQ_INT(gp_trace_next(r, &info, &err), 0);
  gp_trace_memcpy(r, &copies, &bytes);
  CHECK_EQ_INT(copies, 2);
  CHECK_EQ_INT(bytes, 500);
  gp_trace_close(r);
  /* a bad kernelslist line */
  {
    const char *list = "k1.traceg.gz\nMemcpyDtoH,0x1 2\n";
    write_file(path, list, strlen(list));
    CHECK(gp_trace_open(&r, &a, path, &err) == GP_ERR);
    CHECK_STR_CONTAINS(err.msg, "kernelslist.g:2: expected a kernel trace file name or 'MemcpyHtoD,address,bytes'");
  }
  CHECK(gp_trace_open(&r, &a, "/nonexistent/trace.traceg", &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "/nonexistent/trace.traceg: cannot open");
  snprintf(path, sizeof path, "rm -rf %s", dir);
  CHECK(system(path) == 0);
}

/* ---------------------------------------------------------------------------
 * The shared real traces: totals equal the sum of their `insts =` lines
 * ------------------------------------------------------------------------- */

static uint64_t sum_insts_lines(const char *path) {
  FILE *f = fopen(path, "r");
  char line[65536];
  uint64_t sum = 0;
  if (f == NULL)
    return 0;
  while (fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, "insts = ", 8) == 0)
      sum += strtoull(line + 8, NULL, 10);
  fclose(f);
  return sum;
}

static void test_shared_traces(void) {
  const char *shared = getenv("GPUSH_SHARED");
  char root[1024];
  DIR *d;
  struct dirent *e;
  int folders = 0;
  snprintf(root, sizeof root, "%s/traces", shared ? shared : "../shared");
  d = opendir(root);
  if (d == NULL) {
    printf("SKIP: %s not found; the shared real traces are not checked\n", root);
    return;
  }
  while ((e = readdir(d)) != NULL) {
    char dir[2048];
    gp_alloc a = gp_alloc_default();
    gp_error err;
    gp_trace_reader *r;
    gp_launch_info info;
    int status;
    if (e->d_name[0] == '.' || strchr(e->d_name, '.') != NULL)
      continue; /* folders only: SOURCES.md is not a trace */
    snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
    if (gp_trace_open(&r, &a, dir, &err) != GP_OK) {
      CHECK_STR_CONTAINS(err.msg, "(no error expected)");
      continue;
    }
    folders++;
    while ((status = gp_trace_next(r, &info, &err)) == 1) {
      gp_kernel *k = NULL;
      CHECK(gp_trace_load(r, &k, &err) == GP_OK);
      if (k == NULL) {
        fprintf(stderr, "  %s\n", err.msg);
        continue;
      }
      CHECK_EQ_INT(k->insts, sum_insts_lines(info.path));
      CHECK(k->warnings[0] == '\0');
      gp_kernel_free(k);
    }
    CHECK(status == 0);
    gp_trace_close(r);
  }
  closedir(d);
  CHECK(folders >= 8);
}

/* A prefix of the first thread blocks shares the kernel's arrays: three
 * blocks of one warp each (2, 3 and 1 instructions, two loads), the prefix
 * of two holds the first five instructions, two memory records and their
 * lines, and outlives its kernel (freed first); a trace listing its blocks
 * out of order has no prefix. */
static void test_prefix_of_blocks(void) {
  gp_error err;
  gp_kernel *k = parse(HEADER_V4_GRID3
                       "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
                       "0010 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4\n"
                       "0020 ffffffff 1 R8 IADD3 1 R4 0\n#END_TB\n"
                       "#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 3\n"
                       "0010 ffffffff 1 R4 LDG.E 1 R2 4 1 0x2000 4\n"
                       "0020 ffffffff 1 R8 IADD3 1 R4 0\n"
                       "0030 ffffffff 1 R9 FADD 1 R8 0\n#END_TB\n"
                       "#BEGIN_TB\nthread block = 2,0,0\nwarp = 0\ninsts = 1\n"
                       "0010 ffffffff 1 R4 LDG.E 1 R2 4 1 0x3000 4\n#END_TB\n",
                       &err), *p = NULL, *q = NULL;
  CHECK(k != NULL);
  if (k == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    return;
  }
  CHECK_EQ_INT(gp_kernel_prefix(k, 2, &p, &err), GP_OK);
  CHECK_EQ_INT(gp_kernel_prefix(k, 0, &q, &err), GP_ERR);
  CHECK_EQ_INT(gp_kernel_prefix(k, 4, &q, &err), GP_ERR);
  gp_kernel_free(k); /* the prefix keeps the arrays */
  CHECK_EQ_INT(p->blocks, 2);
  CHECK_EQ_INT(p->grid[0], 2);
  CHECK_EQ_INT(p->warps, 2);
  CHECK_EQ_INT(p->insts, 5);
  CHECK_EQ_INT(p->mem_count, 2);
  CHECK_EQ_INT(p->line_count, 2);
  CHECK_EQ_INT(p->address_count, 2); /* two strided records: one stored address each */
  CHECK_EQ_INT(p->class_counts[GP_OP_LD_GLOBAL], 2);
  CHECK_EQ_INT(p->class_counts[GP_OP_FP32], 1);
  CHECK_EQ_INT(p->lines[1], 0x2000 >> 7);
  CHECK_EQ_INT(gp_kernel_prefix(p, 1, &q, &err), GP_OK); /* a prefix of a prefix */
  gp_kernel_free(p);
  CHECK_EQ_INT(q->insts, 2);
  gp_kernel_free(q);
  k = parse(HEADER_V4_GRID3
            "#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 1\n"
            "0020 ffffffff 1 R8 IADD3 1 R4 0\n#END_TB\n"
            "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
            "0020 ffffffff 1 R8 IADD3 1 R4 0\n#END_TB\n"
            "#BEGIN_TB\nthread block = 2,0,0\nwarp = 0\ninsts = 1\n"
            "0020 ffffffff 1 R8 IADD3 1 R4 0\n#END_TB\n",
            &err);
  CHECK(k != NULL);
  if (k == NULL)
    return;
  CHECK_EQ_INT(gp_kernel_prefix(k, 1, &q, &err), GP_ERR);
  CHECK(strstr(err.msg, "not stored first") != NULL);
  gp_kernel_free(k);
}

int main(void) {
  RUN(test_version4_modes_and_dependences);
  RUN(test_version5_mode0_generic_and_empty_mask);
  RUN(test_pre3_and_lineinfo);
  RUN(test_opcode_classes);
  RUN(test_class_predicates);
  RUN(test_unknown_opcode_is_reported);
  RUN(test_bad_input_messages);
  RUN(test_gzip_xz_and_kernelslist);
  RUN(test_shared_traces);
  RUN(test_prefix_of_blocks);
  return gp_test_finish();
}
