/* The register scoreboard (trace_deps.c): hand-computed distances through the
 * public API and through the parser (register ranges of wide destinations,
 * RZ, ties, saturation, a reset per warp). */
#include "gp_test.h"
#include "trace.h"

#include <string.h>

/* One step with up to 4 sources and 1 destination. */
static gp_dep step(gp_scoreboard *sb, uint64_t inst, int dest, int dest_regs,
                   int is_load, int s0, int s1, int s2) {
  uint8_t srcs[3], dests[1];
  int nsrc = 0;
  gp_dep d;
  if (s0 >= 0)
    srcs[nsrc++] = (uint8_t)s0;
  if (s1 >= 0)
    srcs[nsrc++] = (uint8_t)s1;
  if (s2 >= 0)
    srcs[nsrc++] = (uint8_t)s2;
  dests[0] = (uint8_t)(dest < 0 ? GP_REG_RZ : dest);
  gp_scoreboard_step(sb, inst, srcs, nsrc, dests, dest < 0 ? 0 : 1, dest_regs,
                     is_load, &d);
  return d;
}

/* A .128 load into R4 writes R4..R7: reads of R5, R6 and R7 depend on it;
 * R8 is untouched. */
static void test_wide_load_feeds_r5_r6_r7(void) {
  gp_scoreboard sb;
  gp_dep d;
  gp_scoreboard_reset(&sb);
  d = step(&sb, 0, 4, 4, 1, 2, -1, -1); /* LDG.E.128 R4, [R2] */
  CHECK_EQ_INT(d.dep, 0);
  d = step(&sb, 1, 9, 1, 0, 5, -1, -1); /* reads R5 */
  CHECK_EQ_INT(d.dep, 1);
  CHECK_EQ_INT(d.dep_load, 1);
  CHECK_EQ_INT(d.on_load, 1);
  d = step(&sb, 2, 10, 1, 0, 6, -1, -1); /* reads R6 */
  CHECK_EQ_INT(d.dep, 2);
  CHECK_EQ_INT(d.dep_load, 2);
  d = step(&sb, 3, 11, 1, 0, 7, -1, -1); /* reads R7 */
  CHECK_EQ_INT(d.dep, 3);
  CHECK_EQ_INT(d.on_load, 1);
  d = step(&sb, 4, 12, 1, 0, 8, -1, -1); /* R8 was never written */
  CHECK_EQ_INT(d.dep, 0);
  CHECK_EQ_INT(d.dep_load, 0);
  CHECK_EQ_INT(d.on_load, 0);
}

/* RZ is never a producer or a consumer, even when "written". */
static void test_rz_never_depends(void) {
  gp_scoreboard sb;
  gp_dep d;
  gp_scoreboard_reset(&sb);
  d = step(&sb, 0, GP_REG_RZ, 1, 0, -1, -1, -1); /* writes RZ: dropped */
  d = step(&sb, 1, 3, 1, 0, GP_REG_RZ, GP_REG_RZ, -1);
  CHECK_EQ_INT(d.dep, 0);
  /* a 2-register destination at R254 stops before RZ */
  d = step(&sb, 2, 254, 2, 0, -1, -1, -1);
  d = step(&sb, 3, 5, 1, 0, GP_REG_RZ, -1, -1);
  CHECK_EQ_INT(d.dep, 0);
  d = step(&sb, 4, 5, 1, 0, 254, -1, -1);
  CHECK_EQ_INT(d.dep, 2);
}

/* The nearest producer wins; dep_load still finds an older load. */
static void test_nearest_and_load_distances(void) {
  gp_scoreboard sb;
  gp_dep d;
  gp_scoreboard_reset(&sb);
  step(&sb, 0, 10, 1, 1, -1, -1, -1); /* load R10 */
  step(&sb, 1, 20, 1, 0, -1, -1, -1); /* ALU R20 */
  step(&sb, 2, 30, 1, 0, -1, -1, -1); /* ALU R30 (not read) */
  d = step(&sb, 3, 40, 1, 0, 10, 20, -1);
  CHECK_EQ_INT(d.dep, 2);      /* R20 at index 1 */
  CHECK_EQ_INT(d.dep_load, 3); /* R10 at index 0 */
  CHECK_EQ_INT(d.on_load, 0);
  /* a rewrite by an ALU op hides the load */
  step(&sb, 4, 10, 1, 0, -1, -1, -1);
  d = step(&sb, 5, 41, 1, 0, 10, -1, -1);
  CHECK_EQ_INT(d.dep, 1);
  CHECK_EQ_INT(d.dep_load, 0);
  /* an instruction reading and writing the same register depends on the
   * previous writer, then becomes the writer */
  d = step(&sb, 6, 41, 1, 0, 41, -1, -1);
  CHECK_EQ_INT(d.dep, 1);
  d = step(&sb, 7, 42, 1, 0, 41, -1, -1);
  CHECK_EQ_INT(d.dep, 1);
}

/* Distances saturate at 65535; a reset forgets every writer. */
static void test_saturation_and_reset(void) {
  gp_scoreboard sb;
  gp_dep d;
  gp_scoreboard_reset(&sb);
  step(&sb, 0, 7, 1, 1, -1, -1, -1);
  d = step(&sb, 65535, 8, 1, 0, 7, -1, -1);
  CHECK_EQ_INT(d.dep, 65535);
  d = step(&sb, 100000, 9, 1, 0, 7, -1, -1);
  CHECK_EQ_INT(d.dep, 65535);
  CHECK_EQ_INT(d.dep_load, 65535);
  gp_scoreboard_reset(&sb);
  d = step(&sb, 100001, 9, 1, 0, 7, 8, -1);
  CHECK_EQ_INT(d.dep, 0);
}

/* Through the parser: 64-bit results (IMAD.WIDE, DFMA, LDG.E.64, F2F.F64,
 * IADD.64) cover two registers, ordinary ops one, and each warp starts with
 * an empty scoreboard. */
static void test_parser_register_ranges(void) {
  static const char text[] =
      "-kernel name = d\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"
      "-binary version = 90\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 11\n"
      "0000 ffffffff 1 R2 IMAD.WIDE 2 R0 R1 0\n"      /* R2,R3 */
      "0010 ffffffff 1 R8 IADD3 1 R3 0\n"             /* dep 1 on R3 */
      "0020 ffffffff 1 R10 DFMA 3 R2 R2 R2 0\n"       /* R10,R11; dep 2 */
      "0030 ffffffff 1 R12 FADD 1 R11 0\n"            /* dep 1 on R11 */
      "0040 ffffffff 1 R14 LDG.E.64 1 R2 8 1 0x1000 8\n" /* R14,R15; dep 4 */
      "0050 ffffffff 1 R16 FADD 1 R15 0\n"            /* dep 1, on a load */
      "0060 ffffffff 1 R18 F2F.F64.F32 1 R16 0\n"     /* R18,R19 */
      "0070 ffffffff 1 R20 FADD 1 R19 0\n"            /* dep 1 */
      "0080 ffffffff 1 R22 IADD.64 2 R20 R20 0\n"     /* R22,R23 */
      "0090 ffffffff 1 R24 IADD3 1 R23 0\n"           /* dep 1 */
      "00a0 ffffffff 1 R26 ISETP.GE.AND 1 R9 0\n"     /* R9 never written: 0 */
      "warp = 1\ninsts = 1\n"
      "0000 ffffffff 1 R2 IMAD.WIDE 2 R3 R1 0\n"      /* new warp: no dep */
      "#END_TB\n";
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  CHECK(gp_kernel_parse_buffer(&k, &a, text, strlen(text), "d.traceg", &err) == GP_OK);
  if (k == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    return;
  }
  CHECK_EQ_INT(k->insts, 12);
  CHECK_EQ_INT(k->dep[0], 0);
  CHECK_EQ_INT(k->dep[1], 1);
  CHECK_EQ_INT(k->dep[2], 2);
  CHECK_EQ_INT(k->dep[3], 1);
  CHECK_EQ_INT(k->dep[4], 4);
  CHECK_EQ_INT(k->dep_load[4], 0);
  CHECK_EQ_INT(k->dep[5], 1);
  CHECK_EQ_INT(k->dep_load[5], 1);
  CHECK(k->flags[5] & GP_INST_DEP_ON_LOAD);
  CHECK_EQ_INT(k->dep[7], 1);
  CHECK_EQ_INT(k->dep[9], 1);
  CHECK_EQ_INT(k->dep[10], 0);
  CHECK_EQ_INT(k->warp_start[1], 11);
  CHECK_EQ_INT(k->dep[11], 0);
  CHECK_EQ_INT(k->op_class[2], GP_OP_FP64);
  CHECK_EQ_INT(k->op_class[6], GP_OP_SFU);
  gp_kernel_free(k);
}

int main(void) {
  RUN(test_wide_load_feeds_r5_r6_r7);
  RUN(test_rz_never_depends);
  RUN(test_nearest_and_load_distances);
  RUN(test_saturation_and_reset);
  RUN(test_parser_register_ranges);
  return gp_test_finish();
}
