/* Coalescing by hand: the 128 B line coalescer over an active mask
 * (unit stride, stride 2, scattered, broadcast, misaligned, partial masks),
 * the CC 1.2/1.3 half-warp rule for every word size, the strict CC 1.0/1.1
 * rule, and whole-warp CC 1.x line requests. */
#include "gp_test.h"
#include "memsim.h"

static uint64_t lanes[32];

static void fill(uint64_t base, uint64_t stride) {
  uint32_t i;
  for (i = 0; i < 32; i++)
    lanes[i] = base + i * stride;
}

static void test_unit_stride(void) {
  uint64_t lines[64];
  uint8_t masks[64];
  fill(0x1000, 4); /* 32 lanes x 4 B, aligned: one line, its 4 sectors */
  CHECK_EQ_INT(gp_coalesce_active(lanes, 0xffffffffu, 4, lines, masks, 64), 1);
  CHECK_EQ_INT(lines[0], 0x20);
  CHECK_EQ_INT(masks[0], 0xf);
  /* the first half-warp only: 64 B, sectors 0 and 1 */
  CHECK_EQ_INT(gp_coalesce_active(lanes, 0x0000ffffu, 4, lines, masks, 64), 1);
  CHECK_EQ_INT(masks[0], 0x3);
  /* odd lanes: 0x1004 .. 0x107c still touch all four sectors */
  CHECK_EQ_INT(gp_coalesce_active(lanes, 0xaaaaaaaau, 4, lines, masks, 64), 1);
  CHECK_EQ_INT(masks[0], 0xf);
  /* lanes 8-15 only: 0x1020 .. 0x103f, sector 1 */
  CHECK_EQ_INT(gp_coalesce_active(lanes, 0x0000ff00u, 4, lines, masks, 64), 1);
  CHECK_EQ_INT(masks[0], 0x2);
  /* no lane active: no request */
  CHECK_EQ_INT(gp_coalesce_active(lanes, 0, 4, lines, masks, 64), 0);
}

static void test_stride_scatter_broadcast_misaligned(void) {
  uint64_t lines[64];
  uint8_t masks[64];
  uint32_t i;
  fill(0x1000, 8); /* stride 2 words: 256 B, two full lines */
  CHECK_EQ_INT(gp_coalesce_active(lanes, 0xffffffffu, 4, lines, masks, 64), 2);
  CHECK_EQ_INT(lines[0], 0x20);
  CHECK_EQ_INT(lines[1], 0x21);
  CHECK_EQ_INT(masks[0], 0xf);
  CHECK_EQ_INT(masks[1], 0xf);
  fill(0x1000 + 0x40, 4096); /* scattered: 32 lines, sector 2 of each */
  CHECK_EQ_INT(gp_coalesce_active(lanes, 0xffffffffu, 4, lines, masks, 64), 32);
  for (i = 0; i < 32; i++) {
    CHECK_EQ_INT(lines[i], (0x1040 + i * 4096) >> 7);
    CHECK_EQ_INT(masks[i], 0x4);
  }
  fill(0x1234, 0); /* broadcast: one line, one sector (0x1234 is sector 1) */
  CHECK_EQ_INT(gp_coalesce_active(lanes, 0xffffffffu, 4, lines, masks, 64), 1);
  CHECK_EQ_INT(lines[0], 0x24);
  CHECK_EQ_INT(masks[0], 0x2);
  fill(0x1004, 4); /* misaligned by one word: 0x1004 .. 0x1083 */
  CHECK_EQ_INT(gp_coalesce_active(lanes, 0xffffffffu, 4, lines, masks, 64), 2);
  CHECK_EQ_INT(masks[0], 0xf);
  CHECK_EQ_INT(masks[1], 0x1);
}

/* CC 1.2/1.3 (App. F.3.2.2), one half-warp each. */
static void test_cc12_rule(void) {
  uint64_t a[16], addr[16];
  uint32_t bytes[16], i;
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + i; /* 1-byte words: 32 B segment, one 32 B transaction */
  CHECK_EQ_INT(gp_coalesce_cc1x(a, 16, 1, addr, bytes), 1);
  CHECK_EQ_INT(bytes[0], 32);
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + 2 * i; /* 2-byte words: 32 B used of a 64 B segment: 32 B */
  CHECK_EQ_INT(gp_coalesce_cc1x(a, 16, 2, addr, bytes), 1);
  CHECK_EQ_INT(addr[0], 0x1000);
  CHECK_EQ_INT(bytes[0], 32);
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + 8 * i; /* 8-byte words: the whole 128 B segment */
  CHECK_EQ_INT(gp_coalesce_cc1x(a, 16, 8, addr, bytes), 1);
  CHECK_EQ_INT(bytes[0], 128);
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + 16 * i; /* 16-byte words: two 128 B segments */
  CHECK_EQ_INT(gp_coalesce_cc1x(a, 16, 16, addr, bytes), 2);
  CHECK_EQ_INT(addr[1], 0x1080);
  CHECK_EQ_INT(bytes[0] + bytes[1], 256);
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + 4 * (15 - i); /* any order inside 64 B: one 64 B */
  CHECK_EQ_INT(gp_coalesce_cc1x(a, 16, 4, addr, bytes), 1);
  CHECK_EQ_INT(bytes[0], 64);
  for (i = 0; i < 16; i++)
    a[i] = 0x1004 + 4 * i; /* one word off: both 64 B halves used: 128 B */
  CHECK_EQ_INT(gp_coalesce_cc1x(a, 16, 4, addr, bytes), 1);
  CHECK_EQ_INT(addr[0], 0x1000);
  CHECK_EQ_INT(bytes[0], 128);
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + 4 * (i % 2); /* lanes on two words of one 32 B piece */
  CHECK_EQ_INT(gp_coalesce_cc1x(a, 16, 4, addr, bytes), 1);
  CHECK_EQ_INT(bytes[0], 32);
}

/* CC 1.0/1.1 (App. F.3.2.1): the k-th lane must read the k-th word. */
static void test_cc10_rule(void) {
  uint64_t a[16], addr[16];
  uint32_t bytes[16], i;
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + 4 * i; /* in sequence: one 64 B transaction */
  CHECK_EQ_INT(gp_coalesce_cc10(a, 16, 4, addr, bytes), 1);
  CHECK_EQ_INT(addr[0], 0x1000);
  CHECK_EQ_INT(bytes[0], 64);
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + 4 * (15 - i); /* permuted: 16 separate 32 B */
  CHECK_EQ_INT(gp_coalesce_cc10(a, 16, 4, addr, bytes), 16);
  CHECK_EQ_INT(bytes[15], 32);
  CHECK_EQ_INT(addr[0], 0x1020); /* lane 0 reads 0x103c */
  for (i = 0; i < 16; i++)
    a[i] = 0x1004 + 4 * i; /* one word off: not in one 64 B segment */
  CHECK_EQ_INT(gp_coalesce_cc10(a, 16, 4, addr, bytes), 16);
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + 8 * i; /* 8-byte words in sequence: one 128 B */
  CHECK_EQ_INT(gp_coalesce_cc10(a, 16, 8, addr, bytes), 1);
  CHECK_EQ_INT(bytes[0], 128);
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + 16 * i; /* 16-byte words: two 128 B */
  CHECK_EQ_INT(gp_coalesce_cc10(a, 16, 16, addr, bytes), 2);
  CHECK_EQ_INT(addr[1], 0x1080);
  CHECK_EQ_INT(bytes[1], 128);
  for (i = 0; i < 16; i++)
    a[i] = 0x1000 + 2 * i; /* 2-byte words never coalesce */
  CHECK_EQ_INT(gp_coalesce_cc10(a, 16, 2, addr, bytes), 16);
  for (i = 0; i < 8; i++)
    a[i] = 0x1000 + 8 * i; /* 8 active lanes, rising words of one segment */
  CHECK_EQ_INT(gp_coalesce_cc10(a, 8, 4, addr, bytes), 1);
  CHECK_EQ_INT(bytes[0], 64);
  for (i = 0; i < 16; i++)
    a[i] = 0x1000; /* all lanes one word (a broadcast): 16 x 32 B on 1.0 */
  CHECK_EQ_INT(gp_coalesce_cc10(a, 16, 4, addr, bytes), 16);
  CHECK_EQ_INT(gp_coalesce_cc1x(a, 16, 4, addr, bytes), 1); /* 1.2: one 32 B */
  CHECK_EQ_INT(bytes[0], 32);
}

/* A whole warp as line requests: half-warp 0 then half-warp 1. */
static void test_cc1x_warp_requests(void) {
  uint64_t lines[32];
  uint8_t masks[32];
  fill(0x1000, 4);
  CHECK_EQ_INT(gp_cc1x_requests_rule(lanes, 32, 4, GP_CC1X_10, lines, masks), 2);
  CHECK_EQ_INT(lines[0], 0x20);
  CHECK_EQ_INT(masks[0], 0x3);
  CHECK_EQ_INT(lines[1], 0x20);
  CHECK_EQ_INT(masks[1], 0xc);
  fill(0x1004, 4); /* 1.2: 128 B (both halves) + 64 B upper + 32 B = 3 */
  CHECK_EQ_INT(gp_cc1x_requests(lanes, 32, 4, lines, masks), 3);
  CHECK_EQ_INT(masks[0], 0xf);
  CHECK_EQ_INT(masks[1], 0xc);
  CHECK_EQ_INT(lines[2], 0x21);
  CHECK_EQ_INT(masks[2], 0x1);
  /* 1.0: neither half-warp coalesces: 32 transactions of 32 B */
  CHECK_EQ_INT(gp_cc1x_requests_rule(lanes, 32, 4, GP_CC1X_10, lines, masks), 32);
  CHECK_EQ_INT(masks[31], 0x1); /* lane 31 reads 0x1080 */
}

int main(void) {
  RUN(test_unit_stride);
  RUN(test_stride_scatter_broadcast_misaligned);
  RUN(test_cc12_rule);
  RUN(test_cc10_rule);
  RUN(test_cc1x_warp_requests);
  return gp_test_finish();
}
