/* The measures for analytical models (trace_mix.c), by hand: in-order ILP
 * and MLP levels, divergence's extra instructions, transactions and bytes
 * under the three coalescing rules, shared-memory bank passes. */
#include "gp_test.h"
#include "memsim.h"
#include "trace.h"

#include <string.h>

/* Warp 0 (levels in brackets: ILP level / MLP time):
 *  0 LDG R2 <- 32 lanes x 4 B from 0x1000: one line          [0 / 0] round 0
 *  1 LDG R4 <- 32 lanes x 4 B, stride 128: 32 lines          [0 / 0] round 0
 *  2 FADD R3 <- R2 (a load two back)                         [1 / 1]
 *  3 FADD R5 <- R3                                           [2 / 1]
 *  4 FFMA R6 <- R4, R5 (R5 one back, the load R4 three back) [3 / 1]
 *  5 FADD R7 <- R6 on 16 lanes (divergent: 0.5 extra)        [4 / 1]
 *  6 STG <- R7, 32 lanes x 4 B from 0x3000: one line         [5 / 1] round 1
 * 7 instructions in 6 levels; 3 memory instructions in 2 rounds.
 * Warp 1: 16 lanes read the 16 words of one 64 B segment in reverse order
 * (coalesced by CC 1.2 and 2.0, not by CC 1.0's k-th-word rule), then an
 * STS whose 32 lanes hit bank 0 at 32 different words (31 extra passes). */
static const char text[] =
    "-kernel name = mix\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"
    "-binary version = 70\n-accelsim tracer version = 3\n#traces format = x\n"
    "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 7\n"
    "0000 ffffffff 1 R2 LDG.E 1 R0 4 1 0x1000 4\n"
    "0010 ffffffff 1 R4 LDG.E 1 R0 4 1 0x2000 128\n"
    "0020 ffffffff 1 R3 FADD 1 R2 0\n"
    "0030 ffffffff 1 R5 FADD 1 R3 0\n"
    "0040 ffffffff 1 R6 FFMA 2 R4 R5 0\n"
    "0050 0000ffff 1 R7 FADD 1 R6 0\n"
    "0060 ffffffff 0 STG.E 2 R0 R7 4 1 0x3000 4\n"
    "warp = 1\ninsts = 2\n"
    "0070 0000ffff 1 R2 LDG.E 1 R0 4 0 0x403c 0x4038 0x4034 0x4030 0x402c 0x4028 0x4024 "
    "0x4020 0x401c 0x4018 0x4014 0x4010 0x400c 0x4008 0x4004 0x4000\n"
    "0080 ffffffff 0 STS 2 R0 R9 4 1 0x0 128\n"
    "#END_TB\n";

static gp_kernel *load(void) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  if (gp_kernel_parse_buffer(&k, &a, text, strlen(text), "mix.traceg", &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return k;
}

static gp_mix mix_of(const gp_kernel *k, int rule) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_mix m;
  gp_mix_config c;
  c.rule = rule;
  c.shared_banks = 32;
  c.shared_bank_bytes = 4;
  CHECK(gp_kernel_mix(k, &c, &a, &m, &err) == GP_OK);
  return m;
}

static void test_levels_and_rounds(void) {
  gp_kernel *k = load();
  gp_mix m;
  CHECK(k != NULL);
  if (k == NULL)
    return;
  m = mix_of(k, GP_CC1X_OFF);
  CHECK_EQ_INT(m.warps, 2);
  CHECK_EQ_INT(m.insts, 9);
  /* warp 0: 6 levels; warp 1: the LDG and the independent STS share level 0 */
  CHECK_EQ_INT(m.ilp_levels, 6 + 1);
  /* warp 0: rounds at times 0 and 1; warp 1: one round (the STS is shared) */
  CHECK_EQ_INT(m.mem_insts, 4);
  CHECK_EQ_INT(m.mem_rounds, 2 + 1);
  /* warp 0: 0.5; warp 1: its 16-lane load under its 32-lane STS, 0.5 */
  CHECK_NEAR(m.divergence_extra, 1.0, 1e-12);
  gp_kernel_free(k);
}

static void test_transactions_by_rule(void) {
  gp_kernel *k = load();
  gp_mix m;
  if (k == NULL)
    return;
  /* CC >= 2.0: 128 B lines.  1 + 32 + 1 (warp 0) + 1 (warp 1's 64 B);
   * bytes: 4 sectors + 32 x 1 + 4 + 2 sectors of 32 B */
  m = mix_of(k, GP_CC1X_OFF);
  CHECK_EQ_INT(m.transactions, 35);
  CHECK_EQ_INT(m.transaction_bytes, (4 + 32 + 4 + 2) * 32);
  /* CC 1.2: a contiguous half-warp of 4 B words is one 64 B transaction, the
   * strided load 16 x 32 B per half-warp, the reversed half-warp one 64 B */
  m = mix_of(k, GP_CC1X_12);
  CHECK_EQ_INT(m.transactions, 2 + 32 + 2 + 1);
  CHECK_EQ_INT(m.transaction_bytes, 128 + 1024 + 128 + 64);
  /* CC 1.0/1.1: the same, except the reversed half-warp: 16 x 32 B */
  m = mix_of(k, GP_CC1X_10);
  CHECK_EQ_INT(m.transactions, 2 + 32 + 2 + 16);
  CHECK_EQ_INT(m.transaction_bytes, 128 + 1024 + 128 + 16 * 32);
  gp_kernel_free(k);
}

static void test_bank_passes(void) {
  gp_kernel *k = load();
  gp_mix m;
  if (k == NULL)
    return;
  m = mix_of(k, GP_CC1X_OFF);
  CHECK_EQ_INT(m.shared_insts, 1);
  CHECK_EQ_INT(m.shared_extra_passes, 31); /* 32 words in bank 0 */
  gp_kernel_free(k);
}

static void test_unknown_rule(void) {
  gp_kernel *k = load();
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_mix m;
  gp_mix_config c = {7, 32, 4};
  if (k == NULL)
    return;
  CHECK(gp_kernel_mix(k, &c, &a, &m, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "unknown coalescing rule 7");
  gp_kernel_free(k);
}

int main(void) {
  RUN(test_levels_and_rounds);
  RUN(test_transactions_by_rule);
  RUN(test_bank_passes);
  RUN(test_unknown_rule);
  return gp_test_finish();
}
