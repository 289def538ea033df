/* Lines and sectors per memory instruction (trace_coalesce.c) and generic
 * address resolution (trace_opcodes.c), by hand. */
#include "gp_test.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

/* Lane i of memory record m, however the record stores its lanes. */
static uint64_t lane_at(const gp_kernel *k, const gp_mem_record *m, int i) {
  uint64_t buf[32];
  return gp_mem_lanes(k, m, buf)[i];
}

static int lines_of(const uint64_t *addrs, uint32_t n, uint32_t width,
                    uint64_t *lines, uint8_t *masks) {
  return gp_coalesce(addrs, n, width, lines, masks, GP_MAX_LINES_PER_INST);
}

static void test_coalesce_by_hand(void) {
  uint64_t a[32], lines[64];
  uint8_t masks[64];
  int i, n;
  /* 32 lanes x 4 B from 0x1000: one line, all four sectors */
  for (i = 0; i < 32; i++)
    a[i] = 0x1000 + 4u * (unsigned)i;
  n = lines_of(a, 32, 4, lines, masks);
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(lines[0], 0x1000 >> 7);
  CHECK_EQ_INT(masks[0], 0xf);
  /* the same from 0x1010: two lines, sectors 0-3 of the first and 0 of the
   * second (bytes 0x1010..0x108f) */
  for (i = 0; i < 32; i++)
    a[i] = 0x1010 + 4u * (unsigned)i;
  n = lines_of(a, 32, 4, lines, masks);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_INT(masks[0], 0xf);
  CHECK_EQ_INT(lines[1], 0x1080 >> 7);
  CHECK_EQ_INT(masks[1], 0x1);
  /* stride 128: one sector of 32 lines */
  for (i = 0; i < 32; i++)
    a[i] = 0x4000 + 128u * (unsigned)i;
  n = lines_of(a, 32, 4, lines, masks);
  CHECK_EQ_INT(n, 32);
  CHECK_EQ_INT(lines[31], (0x4000 + 31 * 128) >> 7);
  CHECK_EQ_INT(masks[17], 0x1);
  /* broadcast: every lane reads 0x2044 -> one line, sector 2 */
  for (i = 0; i < 32; i++)
    a[i] = 0x2044;
  n = lines_of(a, 32, 4, lines, masks);
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(masks[0], 0x4);
  /* a misaligned 4 B access at 0x7e straddles line 0 (sector 3) and line 1
   * (sector 0) */
  a[0] = 0x7e;
  n = lines_of(a, 1, 4, lines, masks);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_INT(lines[0], 0);
  CHECK_EQ_INT(masks[0], 0x8);
  CHECK_EQ_INT(lines[1], 1);
  CHECK_EQ_INT(masks[1], 0x1);
  /* 16 B per lane, stride 256 and offset 120: every access straddles two
   * lines: 64 lines, the most one instruction may touch */
  for (i = 0; i < 32; i++)
    a[i] = 120 + 256u * (unsigned)i;
  n = lines_of(a, 32, 16, lines, masks);
  CHECK_EQ_INT(n, 64);
  CHECK_EQ_INT(masks[0], 0x8);
  CHECK_EQ_INT(masks[1], 0x1);
  /* a smaller cap is reported, not overrun */
  CHECK_EQ_INT(gp_coalesce(a, 32, 16, lines, masks, 10), -1);
  /* width 0 counts as one byte; an access at the top of the address space
   * does not wrap */
  a[0] = UINT64_MAX - 1;
  n = lines_of(a, 1, 16, lines, masks);
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(lines[0], UINT64_MAX >> 7);
  CHECK_EQ_INT(masks[0], 0x8);
}

/* gp_kernel_add_lines appends to the kernel's pools and counts sectors. */
static void test_kernel_add_lines(void) {
  gp_kernel k;
  gp_mem_record rec;
  uint64_t addrs[4] = {0x100, 0x104, 0x180, 0x1e0};
  memset(&k, 0, sizeof k);
  k.alloc = gp_alloc_default();
  k.addresses = addrs;
  k.address_count = 4;
  memset(&rec, 0, sizeof rec);
  rec.addr_count = 4;
  CHECK_EQ_INT(gp_kernel_add_lines(&k, &rec, 4), 0);
  CHECK_EQ_INT(rec.line_start, 0);
  CHECK_EQ_INT(rec.line_count, 2);
  CHECK_EQ_INT(rec.sector_count, 3); /* line 2: sector 0; line 3: 0 and 3 */
  CHECK_EQ_INT(k.lines[0], 2);
  CHECK_EQ_INT(k.sector_masks[0], 0x1);
  CHECK_EQ_INT(k.lines[1], 3);
  CHECK_EQ_INT(k.sector_masks[1], 0x9);
  rec.addr_start = 2;
  rec.addr_count = 1;
  CHECK_EQ_INT(gp_kernel_add_lines(&k, &rec, 4), 0);
  CHECK_EQ_INT(rec.line_start, 2);
  CHECK_EQ_INT(k.line_count, 3);
  gp_free(&k.alloc, k.lines, k.cap_lines * sizeof *k.lines);
  gp_free(&k.alloc, k.sector_masks, k.cap_lines);
}

static void test_generic_windows(void) {
  uint64_t shmem = 0x7fc867000000ull, local = 0x7fc865000000ull;
  CHECK_EQ_INT(gp_resolve_generic(GP_OP_LD_GLOBAL, shmem + 0x10, shmem, local), GP_OP_LD_SHARED);
  CHECK_EQ_INT(gp_resolve_generic(GP_OP_ST_GLOBAL, shmem + (16u << 20) - 1, shmem, local),
               GP_OP_ST_SHARED);
  CHECK_EQ_INT(gp_resolve_generic(GP_OP_LD_GLOBAL, shmem + (16u << 20), shmem, local),
               GP_OP_LD_GLOBAL);
  CHECK_EQ_INT(gp_resolve_generic(GP_OP_ST_GLOBAL, local + 0x100, shmem, local), GP_OP_ST_LOCAL);
  CHECK_EQ_INT(gp_resolve_generic(GP_OP_ATOM_GLOBAL, shmem, shmem, local), GP_OP_ATOM_SHARED);
  CHECK_EQ_INT(gp_resolve_generic(GP_OP_ATOM_GLOBAL, local, shmem, local), GP_OP_ATOM_GLOBAL);
  CHECK_EQ_INT(gp_resolve_generic(GP_OP_LD_GLOBAL, 0x7fc841500000ull, shmem, local), GP_OP_LD_GLOBAL);
  /* no windows in the header: generic accesses stay global */
  CHECK_EQ_INT(gp_resolve_generic(GP_OP_LD_GLOBAL, 0x10, 0, 0), GP_OP_LD_GLOBAL);
}

/* Through the parser: global accesses make lines; shared ones keep offsets
 * and make none; constant loads carry no addresses; local accesses (LDL and
 * generic in the local window) make lines. */
static void test_parser_spaces(void) {
  static const char text[] =
      "-kernel name = m\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
      "-binary version = 80\n-shmem base_addr = 0x00007f0001000000\n"
      "-local mem base_addr = 0x00007f0003000000\n"
      "-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 6\n"
      "0000 ffffffff 1 R1 LDC 0 0\n"
      "0010 0000000f 1 R2 LDS 1 R1 4 1 0x40 4\n"
      "0020 00000003 0 ST.E 2 R4 R2 4 1 0x7f0001000080 4\n"
      "0030 00000003 1 R5 LD.E.64 1 R4 8 1 0x7f0003000010 8\n"
      "0040 00000001 1 R7 LDL 1 R1 4 0 0xfffc90\n"
      "0050 00000003 1 R8 ATOMS.ADD 2 R1 R2 4 1 0x80 4\n"
      "#END_TB\n";
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  const gp_mem_record *m;
  CHECK(gp_kernel_parse_buffer(&k, &a, text, strlen(text), "m.traceg", &err) == GP_OK);
  if (k == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    return;
  }
  CHECK_EQ_INT(k->op_class[0], GP_OP_LD_CONST);
  CHECK_EQ_INT(k->mem[0], UINT32_MAX);
  CHECK_EQ_INT(k->mem_count, 5);
  m = &k->mem_records[k->mem[1]];
  CHECK_EQ_INT(m->addr_count, 4);
  CHECK_EQ_INT(m->line_count, 0);
  CHECK_EQ_INT(lane_at(k, m, 3), 0x4c);
  CHECK_EQ_INT(k->op_class[2], GP_OP_ST_SHARED);
  m = &k->mem_records[k->mem[2]];
  CHECK_EQ_INT(m->line_count, 0);
  CHECK_EQ_INT(lane_at(k, m, 1), 0x84); /* offset in the window */
  CHECK_EQ_INT(k->op_class[3], GP_OP_LD_LOCAL);
  m = &k->mem_records[k->mem[3]];
  CHECK_EQ_INT(m->line_count, 1);
  CHECK_EQ_INT(m->sector_count, 1); /* 0x...10..0x...1f */
  CHECK_EQ_INT(k->width[3], 8);
  CHECK_EQ_INT(k->op_class[4], GP_OP_LD_LOCAL);
  CHECK_EQ_INT(k->mem_records[k->mem[4]].line_count, 1);
  CHECK_EQ_INT(k->lines[k->mem_records[k->mem[4]].line_start], 0xfffc90 >> 7);
  CHECK_EQ_INT(k->op_class[5], GP_OP_ATOM_SHARED);
  CHECK_EQ_INT(k->mem_records[k->mem[5]].line_count, 0);
  CHECK_EQ_INT(k->line_count, 2);
  gp_kernel_free(k);
}

/* The address-mode-1 shortcut (gp_coalesce_strided) against the lane by
 * lane coalescer on seeded bases, strides (negative, 0-32 and wider), widths,
 * lane counts and caps, and by hand: the same count, lines and masks. */
static void test_strided_matches_lanes(void) {
  uint64_t a[32], lines_a[64], lines_b[64], seed = 0x9e3779b97f4a7c15ull, base;
  uint8_t masks_a[64], masks_b[64];
  int i, trial, mismatches = 0;
  static const uint64_t bases[] = {0, 0x1000, 0x101f, 0x7fb0fc430e7c, UINT64_MAX - 100, UINT64_MAX - 1200};
  /* by hand: 32 lanes x 4 B, stride 4, from 0x1010: lines 0x20 (all four
   * sectors) and 0x21 (sector 0) */
  for (i = 0; i < 32; i++)
    a[i] = 0x1010 + 4u * (unsigned)i;
  CHECK_EQ_INT(gp_coalesce_strided(a, 32, 4, 4, lines_a, masks_a, 64), 2);
  CHECK_EQ_INT(lines_a[0], 0x20);
  CHECK_EQ_INT(masks_a[0], 0xf);
  CHECK_EQ_INT(lines_a[1], 0x21);
  CHECK_EQ_INT(masks_a[1], 0x1);
  for (trial = 0; trial < 20000; trial++) {
    uint32_t n, width, cap;
    int64_t stride;
    int na, nb;
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    n = 1 + (uint32_t)((seed >> 20) % 32);
    width = (uint32_t)((seed >> 30) % 70); /* 0 reads as 1 */
    stride = (int64_t)((seed >> 40) % 80) - 8;
    cap = (seed >> 50) % 4 == 0 ? 1 + (uint32_t)((seed >> 52) % 8) : 64;
    base = (seed >> 12) % 3 == 0 ? bases[(seed >> 14) % 6] + (seed >> 58) : seed >> 16;
    for (i = 0; i < (int)n; i++)
      a[i] = base + (uint64_t)stride * (uint64_t)i;
    na = gp_coalesce(a, n, width, lines_a, masks_a, cap);
    nb = gp_coalesce_strided(a, n, width, stride, lines_b, masks_b, cap);
    if (na != nb || (na > 0 && (memcmp(lines_a, lines_b, (size_t)na * sizeof *lines_a) != 0 ||
                                memcmp(masks_a, masks_b, (size_t)na) != 0)))
      mismatches++;
  }
  CHECK_EQ_INT(mismatches, 0);
}

/* The lanes a record gives (gp_mem_lanes: a list, base and stride, or deltas)
 * against the lanes the trace's text spells, expanded here lane by lane as
 * the parser did before records kept strides: on seeded lines in modes 0, 1
 * and 2 (evenly spaced or not, strides past 32 bits, wrapping past 2^64),
 * global, shared and generic accesses (shared lanes on both sides of the
 * window's base), the lanes, the stored-address count and the coalesced
 * lines must match. */
#define LANE_CASES 3000
static void test_lanes_accessor_matches_expansion(void) {
  static const char header[] =
      "-kernel name = lanes\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
      "-binary version = 80\n-shmem base_addr = 0x00007f0001000000\n"
      "-local mem base_addr = 0x00007f0003000000\n"
      "-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3000\n";
  static const char *const ops[] = {"LDG.E", "STG.E", "LDS", "LD.E"};
  const uint64_t sb = 0x00007f0001000000ull, lb = 0x00007f0003000000ull;
  static uint64_t expect[LANE_CASES][32];
  static uint32_t lanes_of[LANE_CASES];
  uint64_t seed = 0x5eed30ull;
  size_t cap = (size_t)LANE_CASES * 800 + sizeof header + 16, len;
  char *text = malloc(cap);
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  int c, i, mismatches = 0, stored_mismatches = 0, line_mismatches = 0, strided = 0, deltas = 0,
      lists = 0, sector_mismatches = 0, wide_records = 0;
  CHECK(text != NULL);
  if (text == NULL)
    return;
  len = (size_t)snprintf(text, cap, "%s", header);
  for (c = 0; c < LANE_CASES; c++) {
    uint64_t *e = expect[c], base;
    uint32_t mask, n;
    int64_t stride;
    int op, mode, even, kind;
#define NEXT() (seed = seed * 6364136223846793005ull + 1442695040888963407ull, seed >> 16)
    mask = NEXT() % 3 == 0 ? 0xffffffffu : (uint32_t)NEXT(); /* full warps, or any lanes */
    mask = mask ? mask : 1u;
    n = (uint32_t)__builtin_popcount(mask);
    op = (int)(NEXT() % 4);
    kind = (int)(NEXT() % 5);
    base = kind == 0   ? sb - 64 + NEXT() % 128                     /* across the shared window's base */
           : kind == 1 ? UINT64_MAX - NEXT() % 256                  /* wraps past 2^64 */
           : kind == 2 ? NEXT() % 0x4000                            /* small offsets */
                       : 0x7f0000000000ull + (NEXT() % (1ull << 36)); /* global, or the window */
    stride = NEXT() % 4 == 0 ? (int64_t)(int32_t)(uint32_t)NEXT()   /* any 32-bit stride */
                             : (int64_t)(NEXT() % 48) - 8;
    even = NEXT() % 3 != 0;
    if (!even && NEXT() % 2 == 0)
      stride = (int64_t)1 << 33; /* evenly spaced, but past a 32-bit stride */
    for (i = 0; i < (int)n; i++)
      e[i] = base + (uint64_t)stride * (uint64_t)i +
             (!even && stride != ((int64_t)1 << 33) ? NEXT() % 512 : 0);
    mode = even && NEXT() % 2 == 0 ? 1 : (NEXT() % 2 == 0 ? 0 : 2);
    len += (size_t)snprintf(text + len, cap - len, "%04x %08x 1 R2 %s 1 R1 4 %d", c * 16, mask,
                            ops[op], mode);
    if (mode == 1) {
      len += (size_t)snprintf(text + len, cap - len, " 0x%llx %lld", (unsigned long long)e[0],
                              (long long)stride);
    } else if (mode == 0) {
      for (i = 0; i < (int)n; i++)
        len += (size_t)snprintf(text + len, cap - len, " 0x%llx", (unsigned long long)e[i]);
    } else {
      len += (size_t)snprintf(text + len, cap - len, " 0x%llx", (unsigned long long)e[0]);
      for (i = 1; i < (int)n; i++)
        len += (size_t)snprintf(text + len, cap - len, " %lld", (long long)(int64_t)(e[i] - e[i - 1]));
    }
    len += (size_t)snprintf(text + len, cap - len, "\n");
    { /* the class the access resolves to, and shared lanes as window offsets */
      int cls = op == 0 ? GP_OP_LD_GLOBAL : op == 1 ? GP_OP_ST_GLOBAL : op == 2 ? GP_OP_LD_SHARED
                : gp_resolve_generic(GP_OP_LD_GLOBAL, e[0], sb, lb);
      if (cls == GP_OP_LD_SHARED || cls == GP_OP_ST_SHARED)
        for (i = 0; i < (int)n; i++)
          if (e[i] >= sb)
            e[i] -= sb;
    }
    lanes_of[c] = n;
#undef NEXT
  }
  len += (size_t)snprintf(text + len, cap - len, "#END_TB\n");
  CHECK(gp_kernel_parse_buffer(&k, &a, text, len, "lanes.traceg", &err) == GP_OK);
  free(text);
  if (k == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    return;
  }
  for (c = 0; c < LANE_CASES; c++) {
    const gp_mem_record *m = &k->mem_records[k->mem[c]];
    uint64_t buf[32], lines[GP_MAX_LINES_PER_INST];
    uint8_t masks[GP_MAX_LINES_PER_INST];
    const uint64_t *got = gp_mem_lanes(k, m, buf);
    int n;
    if (m->addr_count != lanes_of[c] || memcmp(got, expect[c], lanes_of[c] * sizeof *got) != 0)
      mismatches++;
    if (gp_mem_stored(m) != (m->lanes == GP_LANES_STRIDED  ? 1u
                             : m->lanes == GP_LANES_DELTAS ? 1u + lanes_of[c] / 2u
                                                           : lanes_of[c]))
      stored_mismatches++;
    strided += m->lanes == GP_LANES_STRIDED;
    deltas += m->lanes == GP_LANES_DELTAS;
    lists += m->lanes == GP_LANES_LIST;
    if (!gp_op_uses_cache(k->op_class[c]))
      continue;
    n = gp_coalesce(expect[c], lanes_of[c], 4, lines, masks, GP_MAX_LINES_PER_INST);
    if (n != m->line_count ||
        (n > 0 && (memcmp(lines, k->lines + m->line_start, (size_t)n * sizeof *lines) != 0 ||
                   memcmp(masks, k->sector_masks + m->line_start, (size_t)n) != 0)))
      line_mismatches++;
    { /* the record's sector count: every bit of its masks, counted one by one */
      int j, b, sectors = 0;
      for (j = 0; j < n; j++)
        for (b = 0; b < 4; b++)
          sectors += (masks[j] >> b) & 1;
      sector_mismatches += sectors != m->sector_count;
      wide_records += n >= 16;
    }
  }
  CHECK_EQ_INT(mismatches, 0);
  CHECK_EQ_INT(stored_mismatches, 0);
  CHECK_EQ_INT(line_mismatches, 0);
  CHECK_EQ_INT(sector_mismatches, 0);
  CHECK(wide_records > LANE_CASES / 20); /* eight masks at a time, then the rest */
  CHECK(strided > LANE_CASES / 3); /* the cases exercise every form */
  CHECK(deltas > LANE_CASES / 20);
  CHECK(lists > LANE_CASES / 20);
  gp_kernel_free(k);
}

/* gp_coalesce by a linear search over every 32 B sector each lane touches
 * (first to last byte, clipped at 2^64 - 1): the reference for the
 * coalescer's hash table and its one-sector lane path. */
static int lines_by_search(const uint64_t *a, uint32_t n, uint32_t width, uint64_t *lines,
                           uint8_t *masks, uint32_t cap) {
  uint32_t count = 0, i, j, w = width ? width : 1;
  for (i = 0; i < n; i++) {
    uint64_t end = a[i] + w - 1 < a[i] ? UINT64_MAX : a[i] + w - 1, s;
    for (s = a[i] >> 5; s <= end >> 5; s++) {
      for (j = 0; j < count && lines[j] != s >> 2; j++)
        ;
      if (j == count) {
        if (count == cap)
          return -1;
        lines[count] = s >> 2;
        masks[count++] = 0;
      }
      masks[j] = (uint8_t)(masks[j] | (1u << (s & 3)));
      if (s == UINT64_MAX >> 5)
        break;
    }
  }
  return (int)count;
}

/* gp_coalesce against lines_by_search on 100,000 seeded warps: lanes drawn
 * from a few lines (repeats adjacent and not, new lines, two sectors of one
 * line), gathers over many lines, widths 0-70, the top of the address
 * space, small caps. */
static void test_coalesce_matches_search(void) {
  uint64_t a[32], lines_a[64], lines_b[64], seed = 0x30c0a1e5ull;
  uint8_t masks_a[64], masks_b[64];
  int t, mismatches = 0, full = 0;
  for (t = 0; t < 100000; t++) {
    uint32_t n, width, cap, i;
    uint64_t base, spread;
    int na, nb;
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    n = 1 + (uint32_t)((seed >> 20) % 32);
    width = (seed >> 26) % 3 == 0 ? (uint32_t)((seed >> 30) % 71) : 4u << ((seed >> 30) % 3);
    cap = (seed >> 50) % 4 == 0 ? 1 + (uint32_t)((seed >> 52) % 8) : 64;
    base = (seed >> 12) % 5 == 0 ? UINT64_MAX - 4096 : (seed >> 16) << 7;
    spread = (seed >> 40) % 2 == 0 ? 4 * 128 : (uint64_t)1 << 20; /* few lines, or a gather */
    for (i = 0; i < n; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      a[i] = base + (seed >> 24) % spread;
      if (a[i] < base) /* stay below 2^64 */
        a[i] = UINT64_MAX - (seed >> 40) % 64;
    }
    na = gp_coalesce(a, n, width, lines_a, masks_a, cap);
    nb = lines_by_search(a, n, width, lines_b, masks_b, cap);
    full += nb < 0;
    if (na != nb || (na > 0 && (memcmp(lines_a, lines_b, (size_t)na * sizeof *lines_a) != 0 ||
                                memcmp(masks_a, masks_b, (size_t)na) != 0)))
      mismatches++;
  }
  CHECK_EQ_INT(mismatches, 0);
  CHECK(full > 1000); /* the cap is reached often enough to be tested */
}

int main(void) {
  RUN(test_coalesce_by_hand);
  RUN(test_kernel_add_lines);
  RUN(test_generic_windows);
  RUN(test_parser_spaces);
  RUN(test_strided_matches_lanes);
  RUN(test_lanes_accessor_matches_expansion);
  RUN(test_coalesce_matches_search);
  return gp_test_finish();
}
