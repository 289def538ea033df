/* The register scoreboard (trace_deps.c): hand-computed producer lists
 * through the public API and through the parser (every producer, nearest
 * first; register ranges of wide destinations, RZ, one producer per
 * fixed-latency class, more producers than GP_DEPS, saturation, a reset per
 * warp). */
#include "gp_test.h"
#include "trace.h"

#include <string.h>

#define LOAD GP_OP_LD_GLOBAL
#define ALU GP_OP_INT

/* One step with up to 3 sources and 1 destination (dest < 0: none). */
static gp_dep step(gp_scoreboard *sb, uint64_t inst, int dest, int dest_regs,
                   int op_class, int s0, int s1, int s2) {
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
                     op_class, &d);
  return d;
}

/* A .128 load into R4 writes R4..R7: reads of R5, R6 and R7 depend on it;
 * R8 is untouched. */
static void test_wide_load_feeds_r5_r6_r7(void) {
  gp_scoreboard sb;
  gp_dep d;
  gp_scoreboard_reset(&sb);
  d = step(&sb, 0, 4, 4, LOAD, 2, -1, -1); /* LDG.E.128 R4, [R2] */
  CHECK_EQ_INT(d.dist[0], 0);
  d = step(&sb, 1, 9, 1, ALU, 5, -1, -1); /* reads R5 */
  CHECK_EQ_INT(d.dist[0], 1);
  CHECK_EQ_INT(d.loads, 1);
  d = step(&sb, 2, 10, 1, ALU, 6, -1, -1); /* reads R6 */
  CHECK_EQ_INT(d.dist[0], 2);
  d = step(&sb, 3, 11, 1, ALU, 7, -1, -1); /* reads R7 */
  CHECK_EQ_INT(d.dist[0], 3);
  CHECK_EQ_INT(d.dist[1], 0);
  d = step(&sb, 4, 12, 1, ALU, 8, -1, -1); /* R8 was never written */
  CHECK_EQ_INT(d.dist[0], 0);
  CHECK_EQ_INT(d.loads, 0);
}

/* RZ is never a producer or a consumer, even when "written". */
static void test_rz_never_depends(void) {
  gp_scoreboard sb;
  gp_dep d;
  gp_scoreboard_reset(&sb);
  step(&sb, 0, GP_REG_RZ, 1, ALU, -1, -1, -1); /* writes RZ: dropped */
  d = step(&sb, 1, 3, 1, ALU, GP_REG_RZ, GP_REG_RZ, -1);
  CHECK_EQ_INT(d.dist[0], 0);
  /* a 2-register destination at R254 stops before RZ */
  step(&sb, 2, 254, 2, ALU, -1, -1, -1);
  d = step(&sb, 3, 5, 1, ALU, GP_REG_RZ, -1, -1);
  CHECK_EQ_INT(d.dist[0], 0);
  d = step(&sb, 4, 5, 1, ALU, 254, -1, -1);
  CHECK_EQ_INT(d.dist[0], 2);
}

/* MUFU R1; FADD R2; FFMA R3, R1, R2: the FFMA waits for both, the MUFU two
 * back as well as the FADD just before (issue 15's case). */
static void test_every_producer_is_kept(void) {
  gp_scoreboard sb;
  gp_dep d;
  gp_scoreboard_reset(&sb);
  step(&sb, 0, 1, 1, GP_OP_SFU, -1, -1, -1);
  step(&sb, 1, 2, 1, GP_OP_FP32, -1, -1, -1);
  d = step(&sb, 2, 3, 1, GP_OP_FP32, 1, 2, -1);
  CHECK_EQ_INT(d.dist[0], 1);
  CHECK_EQ_INT(d.dist[1], 2);
  CHECK_EQ_INT(d.dist[2], 0);
  CHECK_EQ_INT(d.loads, 0);
  CHECK_EQ_INT(d.dropped, 0);
  /* a load and an ALU op: both, the load's bit set */
  step(&sb, 3, 10, 1, LOAD, -1, -1, -1);
  step(&sb, 4, 20, 1, ALU, -1, -1, -1);
  step(&sb, 5, 30, 1, ALU, -1, -1, -1); /* R30: not read */
  d = step(&sb, 6, 40, 1, ALU, 10, 20, -1);
  CHECK_EQ_INT(d.dist[0], 2);
  CHECK_EQ_INT(d.dist[1], 3);
  CHECK_EQ_INT(d.loads, 2); /* the second, at distance 3 */
  /* a rewrite by an ALU op hides the load */
  step(&sb, 7, 10, 1, ALU, -1, -1, -1);
  d = step(&sb, 8, 41, 1, ALU, 10, -1, -1);
  CHECK_EQ_INT(d.dist[0], 1);
  CHECK_EQ_INT(d.loads, 0);
  /* reading and writing one register: the previous writer, then itself */
  d = step(&sb, 9, 41, 1, ALU, 41, -1, -1);
  CHECK_EQ_INT(d.dist[0], 1);
  d = step(&sb, 10, 42, 1, ALU, 41, 41, -1);
  CHECK_EQ_INT(d.dist[0], 1);
  CHECK_EQ_INT(d.dist[1], 0); /* one producer, listed once */
}

/* Producers of one fixed-latency class reduce to the nearest (issued later
 * with the same latency, never ready earlier); loads never do. */
static void test_one_producer_per_fixed_class(void) {
  gp_scoreboard sb;
  gp_dep d;
  gp_scoreboard_reset(&sb);
  step(&sb, 0, 1, 1, GP_OP_FP32, -1, -1, -1);
  step(&sb, 1, 2, 1, GP_OP_FP32, -1, -1, -1);
  step(&sb, 2, 3, 1, GP_OP_INT, -1, -1, -1);
  d = step(&sb, 3, 4, 1, ALU, 1, 2, 3);
  CHECK_EQ_INT(d.dist[0], 1); /* the INT */
  CHECK_EQ_INT(d.dist[1], 2); /* the nearer FFMA; the FFMA at 3 is implied */
  CHECK_EQ_INT(d.dist[2], 0);
  step(&sb, 4, 5, 1, LOAD, -1, -1, -1);
  step(&sb, 5, 6, 1, LOAD, -1, -1, -1);
  d = step(&sb, 6, 7, 1, ALU, 5, 6, -1);
  CHECK_EQ_INT(d.dist[0], 1);
  CHECK_EQ_INT(d.dist[1], 2);
  CHECK_EQ_INT(d.loads, 3);
}

/* More producers than GP_DEPS: loads first, then the nearest; the rest
 * counted. */
static void test_more_producers_than_slots(void) {
  uint64_t writer[6] = {10, 11, 12, 13, 14, 15};
  uint8_t cls[6] = {LOAD, LOAD, GP_OP_SFU, LOAD, GP_OP_FP32, LOAD};
  gp_dep d;
  gp_deps_pack(16, writer, cls, 6, &d);
  /* kept: the four loads at 15, 13, 11, 10 (distances 1, 3, 5, 6) */
  CHECK_EQ_INT(d.dist[0], 1);
  CHECK_EQ_INT(d.dist[1], 3);
  CHECK_EQ_INT(d.dist[2], 5);
  CHECK_EQ_INT(d.dist[3], 6);
  CHECK_EQ_INT(d.loads, 15);
  CHECK_EQ_INT(d.dropped, 2);
  /* two loads and three compute classes: both loads, then the nearest two */
  cls[0] = GP_OP_FP64, cls[1] = GP_OP_INT, cls[3] = GP_OP_FP32, cls[4] = GP_OP_SFU;
  cls[2] = LOAD; /* loads at 12 and 15 */
  gp_deps_pack(16, writer, cls, 6, &d);
  CHECK_EQ_INT(d.dist[0], 1);  /* load 15 */
  CHECK_EQ_INT(d.dist[1], 2);  /* SFU 14 */
  CHECK_EQ_INT(d.dist[2], 3);  /* FP32 13 */
  CHECK_EQ_INT(d.dist[3], 4);  /* load 12 */
  CHECK_EQ_INT(d.loads, 1 | 8);
  CHECK_EQ_INT(d.dropped, 2);  /* INT 11, FP64 10 */
}

/* Distances saturate at 65535 (two saturated producers are listed once); a
 * reset forgets every writer. */
static void test_saturation_and_reset(void) {
  gp_scoreboard sb;
  gp_dep d;
  gp_scoreboard_reset(&sb);
  step(&sb, 0, 7, 1, LOAD, -1, -1, -1);
  step(&sb, 1, 6, 1, GP_OP_SFU, -1, -1, -1);
  d = step(&sb, 65535, 8, 1, ALU, 7, -1, -1);
  CHECK_EQ_INT(d.dist[0], 65535);
  d = step(&sb, 100000, 9, 1, ALU, 7, 6, -1);
  CHECK_EQ_INT(d.dist[0], 65535);
  CHECK_EQ_INT(d.dist[1], 0);
  gp_scoreboard_reset(&sb);
  d = step(&sb, 100001, 9, 1, ALU, 7, 8, -1);
  CHECK_EQ_INT(d.dist[0], 0);
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
  CHECK_EQ_INT(gp_kernel_dep(k, 0), 0);
  CHECK_EQ_INT(gp_kernel_dep(k, 1), 1);
  CHECK_EQ_INT(gp_kernel_dep(k, 2), 2);
  CHECK_EQ_INT(gp_kernel_dep(k, 3), 1);
  CHECK_EQ_INT(gp_kernel_dep(k, 4), 4);
  CHECK_EQ_INT(gp_kernel_dep_load(k, 4), 0);
  CHECK_EQ_INT(gp_kernel_dep(k, 5), 1);
  CHECK_EQ_INT(gp_kernel_dep_load(k, 5), 1);
  CHECK(k->flags[5] & GP_INST_LOAD(0));
  CHECK_EQ_INT(gp_kernel_dep(k, 7), 1);
  CHECK_EQ_INT(gp_kernel_dep(k, 9), 1);
  CHECK_EQ_INT(gp_kernel_dep(k, 10), 0);
  CHECK_EQ_INT(k->warp_start[1], 11);
  CHECK_EQ_INT(gp_kernel_dep(k, 11), 0);
  CHECK_EQ_INT(k->warnings[0], 0);
  CHECK_EQ_INT(k->op_class[2], GP_OP_FP64);
  CHECK_EQ_INT(k->op_class[6], GP_OP_SFU);
  gp_kernel_free(k);
}

/* Through the parser: MUFU R1; FADD R2; FFMA R3, R1, R2 lists both
 * producers; an instruction reading five loads keeps four and the kernel
 * says so. */
static void test_parser_every_producer(void) {
  static const char text[] =
      "-kernel name = p\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 9\n"
      "0000 ffffffff 1 R1 MUFU.RCP 1 R0 0\n"
      "0010 ffffffff 1 R2 FADD 1 R0 0\n"
      "0020 ffffffff 1 R3 FFMA 3 R1 R2 R2 0\n"
      "0030 ffffffff 1 R4 LDG.E 1 R0 4 1 0x1000 4\n"
      "0040 ffffffff 1 R5 LDG.E 1 R0 4 1 0x2000 4\n"
      "0050 ffffffff 1 R6 LDG.E 1 R0 4 1 0x3000 4\n"
      "0060 ffffffff 1 R7 LDG.E 1 R0 4 1 0x4000 4\n"
      "0070 ffffffff 1 R8 LDG.E 1 R0 4 1 0x5000 4\n"
      "0080 ffffffff 1 R9 IADD3 5 R4 R5 R6 R7 R8 0\n"
      "#END_TB\n";
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  CHECK(gp_kernel_parse_buffer(&k, &a, text, strlen(text), "p.traceg", &err) == GP_OK);
  if (k == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    return;
  }
  CHECK_EQ_INT(k->deps[2 * GP_DEPS], 1);
  CHECK_EQ_INT(k->deps[2 * GP_DEPS + 1], 2);
  CHECK_EQ_INT(k->deps[2 * GP_DEPS + 2], 0);
  CHECK_EQ_INT(k->deps[8 * GP_DEPS], 1);
  CHECK_EQ_INT(k->deps[8 * GP_DEPS + 3], 4);
  CHECK_EQ_INT(k->flags[8] & GP_INST_LOAD_DEPS, GP_INST_LOAD_DEPS);
  CHECK_STR_CONTAINS(k->warnings, "1 instructions have more than 4 producers");
  gp_kernel_free(k);
}

/* The step's one- and two-source path (registers, no arrays) against the
 * scoreboard kept by hand and gp_deps_pack on 200,000 seeded steps: sources
 * among few registers (so they repeat, meet RZ and never-written ones),
 * classes among loads, LDC, SFU and ALU, wide destinations, a reset now and
 * then, and three or more sources sometimes. */
static void test_step_matches_deps_pack(void) {
  static const int classes[] = {LOAD, ALU, GP_OP_SFU, GP_OP_LD_CONST, GP_OP_LD_SHARED, GP_OP_FP32};
  gp_scoreboard sb;
  uint64_t last[256], writer[8];
  uint8_t last_class[256], cls[8], srcs[4], dests[2];
  uint32_t x = 2026;
  uint64_t inst = 0;
  int step_no, mismatches = 0, two_distinct = 0;
  gp_scoreboard_reset(&sb);
  memset(last, 0xff, sizeof last);
  for (step_no = 0; step_no < 200000; step_no++) {
    gp_dep got, want;
    int nsrc, ndest, dest_regs, op_class, i, r, n = 0;
    x = x * 1664525u + 1013904223u;
    if ((x >> 24) == 0) { /* about one step in 256: a new warp */
      gp_scoreboard_reset(&sb);
      memset(last, 0xff, sizeof last);
      inst = 0;
    }
    nsrc = (int)((x >> 8) % 5) == 4 ? 3 : (int)((x >> 8) % 3);
    for (i = 0; i < nsrc; i++) {
      x = x * 1664525u + 1013904223u;
      srcs[i] = (x >> 20) % 9 == 8 ? GP_REG_RZ : (uint8_t)(250 + (x >> 16) % 6);
    }
    x = x * 1664525u + 1013904223u;
    ndest = (int)((x >> 10) % 3);
    dest_regs = 1 + (int)((x >> 12) % 4);
    op_class = classes[(x >> 14) % 6];
    dests[0] = (uint8_t)(250 + (x >> 17) % 6);
    dests[1] = (uint8_t)(250 + (x >> 20) % 6);
    if ((x >> 23) % 64 == 0) /* now and then a producer 65,535 or more back */
      inst += 70000;
    for (i = 0; i < nsrc; i++) {
      if (srcs[i] >= GP_REG_RZ || last[srcs[i]] == UINT64_MAX)
        continue;
      writer[n] = last[srcs[i]];
      cls[n++] = last_class[srcs[i]];
    }
    gp_deps_pack(inst, writer, cls, n, &want);
    gp_scoreboard_step(&sb, inst, srcs, nsrc, dests, ndest, dest_regs, op_class, &got);
    for (i = 0; i < ndest; i++)
      for (r = dests[i]; r < dests[i] + dest_regs && r < GP_REG_RZ; r++) {
        last[r] = inst;
        last_class[r] = (uint8_t)op_class;
      }
    two_distinct += nsrc == 2 && n == 2 && writer[0] != writer[1];
    mismatches += memcmp(&got, &want, sizeof got) != 0;
    inst++;
  }
  CHECK_EQ_INT(mismatches, 0);
  CHECK(two_distinct > 10000);
}

int main(void) {
  RUN(test_wide_load_feeds_r5_r6_r7);
  RUN(test_rz_never_depends);
  RUN(test_every_producer_is_kept);
  RUN(test_one_producer_per_fixed_class);
  RUN(test_more_producers_than_slots);
  RUN(test_saturation_and_reset);
  RUN(test_parser_register_ranges);
  RUN(test_parser_every_producer);
  RUN(test_step_matches_deps_pack);
  return gp_test_finish();
}
