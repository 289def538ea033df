/* The trace reader on the fixtures (tests/c/fixtures/traces: pre-3, version 4
 * with lineinfo, version 5, a kernelslist with copies), version 3 with every
 * address mode, compressed copies written on the fly, warnings, and the bad
 * inputs added with the bounded reader (exact messages). */
#define _POSIX_C_SOURCE 200809L

#include "gp_test.h"
#include "trace.h"

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

#define FIXTURES "tests/c/fixtures/traces"

static gp_kernel *parse_text(const char *text, gp_error *err) {
  gp_alloc a = gp_alloc_default();
  gp_kernel *k = NULL;
  if (gp_kernel_parse_buffer(&k, &a, text, strlen(text), "t.traceg", err) != GP_OK)
    return NULL;
  return k;
}

static gp_kernel *parse_path(const char *path, gp_error *err) {
  gp_alloc a = gp_alloc_default();
  gp_kernel *k = NULL;
  if (gp_trace_parse_file(&k, &a, path, err) != GP_OK) {
    fprintf(stderr, "  %s\n", err->msg);
    return NULL;
  }
  return k;
}

static const char *opcode_of(const gp_kernel *k, uint64_t i) {
  return k->strings + k->statics[k->pc_index[i]].opcode;
}

/* Version 3, grid (2,2,1) x 64 threads: global warp = block index x 2 +
 * warp id; modes 0, 1 (negative stride) and 2 with exact addresses. */
static void test_version3_every_mode(void) {
  gp_error err;
  gp_kernel *k = parse_text(
      "-kernel name = v3\n-kernel id = 5\n-grid dim = (2,2,1)\n-block dim = (64,1,1)\n"
      "-shmem = 0\n-nregs = 24\n-binary version = 75\n-cuda stream id = 3\n"
      "-accelsim tracer version = 3\n\n#traces format = PC mask ...\n\n"
      "#BEGIN_TB\nthread block = 1,1,0\nwarp = 1\ninsts = 3\n"
      "0000 00000005 1 R2 LDG.E 1 R0 4 0 0x1000 0x1100\n"
      "0010 0000000f 0 STG.E 2 R0 R2 4 1 0x2000 -4\n"
      "0020 000000f0 1 R3 LDG.E.U16 1 R0 2 2 0x3000 2 -2 130\n"
      "#END_TB\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
      "0030 ffffffff 0 EXIT 0 0\n#END_TB\n",
      &err);
  const gp_mem_record *m;
  CHECK(k != NULL);
  if (k == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    return;
  }
  CHECK_EQ_INT(k->trace_version, 3);
  CHECK_EQ_INT(k->launch_id, 5);
  CHECK_EQ_INT(k->stream_id, 3);
  CHECK_EQ_INT(k->binary_version, 75);
  CHECK_EQ_INT(k->nregs, 24);
  /* 2 of the grid's 4 blocks are listed: the kernel is those 2, in block
   * order: block (0,0,0) stays block 0, block (1,1,0) (index 3) becomes
   * block 1, its warp 1 global warp 3 */
  CHECK_EQ_INT(k->blocks, 2);
  CHECK_EQ_INT(k->warps, 4);
  CHECK_EQ_INT(k->warp_len[3], 3);
  CHECK_EQ_INT(k->warp_start[3], 0);
  CHECK_EQ_INT(k->warp_len[0], 1);
  CHECK_EQ_INT(k->warp_start[0], 3);
  /* mode 0: lanes 0 and 2 */
  m = &k->mem_records[k->mem[0]];
  CHECK_EQ_INT(k->active[0], 2);
  CHECK_EQ_INT(m->addr_count, 2);
  CHECK_EQ_INT(lane_at(k, m, 0), 0x1000);
  CHECK_EQ_INT(lane_at(k, m, 1), 0x1100);
  CHECK_EQ_INT(m->line_count, 2);
  /* mode 1, stride -4: 0x2000, 0x1ffc, 0x1ff8, 0x1ff4 -> lines 0x3f and
   * 0x40 */
  m = &k->mem_records[k->mem[1]];
  CHECK_EQ_INT(lane_at(k, m, 3), 0x1ff4);
  CHECK_EQ_INT(m->line_count, 2);
  CHECK_EQ_INT(k->lines[m->line_start], 0x40);
  CHECK_EQ_INT(k->sector_masks[m->line_start], 0x1);
  CHECK_EQ_INT(k->lines[m->line_start + 1], 0x3f);
  CHECK_EQ_INT(k->sector_masks[m->line_start + 1], 0x8);
  /* mode 2: 0x3000, +2, -2, +130 -> 0x3000 0x3002 0x3000 0x3082 */
  m = &k->mem_records[k->mem[2]];
  CHECK_EQ_INT(k->active[2], 4);
  CHECK_EQ_INT(lane_at(k, m, 1), 0x3002);
  CHECK_EQ_INT(lane_at(k, m, 2), 0x3000);
  CHECK_EQ_INT(lane_at(k, m, 3), 0x3082);
  CHECK_EQ_INT(m->line_count, 2);
  CHECK_EQ_INT(m->sector_count, 2);
  CHECK_EQ_INT(k->width[2], 2);
  CHECK_EQ_INT(k->op_class[3], GP_OP_BRANCH);
  CHECK(strcmp(k->warnings, "the trace lists 2 of the grid's 4 thread blocks (2,2,1): every model runs "
                            "the 2 listed, as a grid of (2,1,1)") == 0);
  gp_kernel_free(k);
}

/* The pre-3 fixture (modelled on Rodinia LUD's lud_perimeter on Volta). */
static void test_pre3_fixture(void) {
  gp_error err;
  gp_kernel *k = parse_path(FIXTURES "/pre3.traceg", &err);
  CHECK(k != NULL);
  if (k == NULL)
    return;
  CHECK_EQ_INT(k->trace_version, 0);
  CHECK(strcmp(k->name, "_Z13lud_perimeterPfii") == 0);
  CHECK_EQ_INT(k->launch_id, 8);
  CHECK_EQ_INT(k->shmem_bytes, 3072);
  CHECK_EQ_INT(k->nregs, 166);
  CHECK_EQ_INT(k->insts, 8);
  CHECK_EQ_INT(k->static_count, 8);
  CHECK_EQ_INT(k->active[0], 0);
  CHECK_EQ_INT(k->op_class[0], GP_OP_OTHER); /* SHFL */
  CHECK_EQ_INT(k->op_class[2], GP_OP_IMAD);
  CHECK_EQ_INT(k->op_class[3], GP_OP_LD_GLOBAL);
  CHECK_EQ_INT(gp_kernel_dep(k, 3), 1); /* reads R30 of IMAD.WIDE */
  CHECK_EQ_INT(k->op_class[4], GP_OP_ST_SHARED);
  CHECK_EQ_INT(gp_kernel_dep(k, 4), 1); /* reads R8 of the load */
  CHECK(k->flags[4] & GP_INST_LOAD(0));
  CHECK_EQ_INT(k->op_class[5], GP_OP_BARRIER);
  CHECK_EQ_INT(k->op_class[6], GP_OP_LD_SHARED);
  CHECK_EQ_INT(k->mem_records[k->mem[6]].addr_count, 16);
  CHECK_EQ_INT(lane_at(k, &k->mem_records[k->mem[6]], 15), 0); /* stride 0 */
  /* FFMA reads R145 and R147, written by the LDS.U.128 into R144..R147 */
  CHECK_EQ_INT(gp_kernel_dep(k, 7), 1);
  CHECK_EQ_INT(gp_kernel_dep_load(k, 7), 1);
  /* 16 lanes x 4 B from ...880: one line, sectors 0 and 1 */
  CHECK_EQ_INT(k->mem_records[k->mem[3]].line_count, 1);
  CHECK_EQ_INT(k->sector_masks[k->mem_records[k->mem[3]].line_start], 0x3);
  gp_kernel_free(k);
}

/* The kernelslist fixture, streamed: copies as a list with the launch they
 * precede, headers before bodies, version 4 with lineinfo and version 5. */
static void test_kernelslist_fixture(void) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_trace_reader *r = NULL;
  gp_launch_info info;
  const gp_memcpy *copies;
  uint32_t n;
  uint64_t bytes;
  gp_kernel *k = NULL;
  CHECK(gp_trace_open(&r, &a, FIXTURES "/app", &err) == GP_OK);
  if (r == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    return;
  }
  copies = gp_trace_memcpy_list(r, &n);
  CHECK_EQ_INT(n, 3);
  CHECK(copies != NULL);
  if (copies != NULL) {
    CHECK_EQ_INT(copies[0].addr, 0x00007f2b2d500000ull);
    CHECK_EQ_INT(copies[0].bytes, 4096);
    CHECK_EQ_INT(copies[0].before_launch, 1);
    CHECK_EQ_INT(copies[1].before_launch, 1);
    CHECK_EQ_INT(copies[2].addr, 0x00007f2b2d502000ull);
    CHECK_EQ_INT(copies[2].bytes, 128);
    CHECK_EQ_INT(copies[2].before_launch, 2);
  }
  gp_trace_memcpy(r, &n, &bytes);
  CHECK_EQ_INT(bytes, 8320);
  /* launch 1: header only, then skipped */
  CHECK_EQ_INT(gp_trace_next(r, &info, &err), 1);
  CHECK_EQ_INT(info.index, 1);
  CHECK_EQ_INT(info.launch_id, 1);
  CHECK(strcmp(info.name, "_Z6vecAddIfEvPT_S1_S1_i") == 0);
  CHECK_EQ_INT(info.block[0], 64);
  CHECK(gp_trace_load(r, &k, &err) == GP_OK);
  if (k != NULL) {
    CHECK_EQ_INT(k->trace_version, 4);
    CHECK_EQ_INT(k->lineinfo, 1);
    CHECK_EQ_INT(k->stream_id, 7);
    CHECK_EQ_INT(k->insts, 6);
    CHECK_EQ_INT(k->warp_start[1], 0);
    CHECK_EQ_INT(k->warp_len[1], 4);
    CHECK_EQ_INT(k->warp_start[0], 4);
    CHECK_EQ_INT(k->static_count, 5);     /* PC 0x08 is shared by both warps */
    CHECK_EQ_INT(k->statics[3].line_num, 15);
    CHECK_EQ_INT(k->op_class[1], GP_OP_IMAD); /* XMAD on Pascal */
    CHECK_EQ_INT(gp_kernel_dep(k, 2), 1);
    CHECK_EQ_INT(gp_kernel_dep(k, 3), 1);
    CHECK(k->flags[3] & GP_INST_LOAD(0));
    CHECK_EQ_INT(k->active[4], 16);
    gp_kernel_free(k);
    k = NULL;
  }
  CHECK_EQ_INT(gp_trace_next(r, &info, &err), 1);
  CHECK_EQ_INT(info.index, 2);
  CHECK_EQ_INT(info.grid[0], 2);
  CHECK(gp_trace_load(r, &k, &err) == GP_OK);
  if (k != NULL) {
    const gp_mem_record *m = &k->mem_records[k->mem[1]];
    CHECK_EQ_INT(k->trace_version, 5);
    CHECK_EQ_INT(k->insts, 4);
    CHECK_EQ_INT(k->warp_len[1], 3);
    CHECK_EQ_INT(k->warp_len[0], 1);
    CHECK_EQ_INT(k->op_class[0], GP_OP_LD_CONST);
    /* 3 lanes x 8 B at +0x00, +0x40, +0x08: one line, sectors 0 and 2 */
    CHECK_EQ_INT(m->addr_count, 3);
    CHECK_EQ_INT(m->line_count, 1);
    CHECK_EQ_INT(k->sector_masks[m->line_start], 0x5);
    CHECK_EQ_INT(m->sector_count, 2);
    /* DFMA reads R2 and R3 (the .64 load wrote both) and R1 (LDC) */
    CHECK_EQ_INT(gp_kernel_dep(k, 2), 1);
    CHECK(k->flags[2] & GP_INST_LOAD(0));
    CHECK(strcmp(opcode_of(k, 2), "DFMA") == 0);
    gp_kernel_free(k);
  }
  CHECK_EQ_INT(gp_trace_next(r, &info, &err), 0);
  gp_trace_close(r);
}

/* ---------------------------------------------------------------------------
 * Compressed copies of a fixture, written on the fly
 * ------------------------------------------------------------------------- */

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  if (f == NULL)
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  rewind(f);
  buf = malloc((size_t)n + 1);
  if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static void write_bytes(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (f != NULL) {
    fwrite(data, 1, len, f);
    fclose(f);
  }
}

static void check_pre3(const char *path) {
  gp_error err;
  gp_kernel *k = parse_path(path, &err);
  CHECK(k != NULL);
  if (k != NULL) {
    CHECK_EQ_INT(k->insts, 8);
    CHECK_EQ_INT(gp_kernel_dep(k, 7), 1);
    CHECK_EQ_INT(k->mem_count, 3);
    gp_kernel_free(k);
  }
}

static void test_gzip_and_xz_by_magic(void) {
  char dir[] = "/tmp/gpush_fmt_XXXXXX", path[512];
  size_t len, out_len = 0;
  char *text = read_all(FIXTURES "/pre3.traceg", &len);
  uint8_t *out;
  CHECK(text != NULL);
  if (text == NULL || mkdtemp(dir) == NULL) {
    free(text);
    return;
  }
  /* gzip, named .traceg: detected by 1f 8b, not by the name */
  snprintf(path, sizeof path, "%s/a.traceg", dir);
  {
    gzFile gz = gzopen(path, "wb");
    gzwrite(gz, text, (unsigned)len);
    gzclose(gz);
  }
  check_pre3(path);
  /* xz, named .traceg.xz */
  out = malloc(len + 1024);
  CHECK(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)text, len,
                                out, &out_len, len + 1024) == LZMA_OK);
  snprintf(path, sizeof path, "%s/b.traceg.xz", dir);
  write_bytes(path, out, out_len);
  check_pre3(path);
  /* a gzip stream cut in half is an error with the file's name */
  {
    size_t glen;
    char *gz;
    gp_error err;
    gp_alloc a = gp_alloc_default();
    gp_kernel *k = NULL;
    snprintf(path, sizeof path, "%s/a.traceg", dir);
    gz = read_all(path, &glen);
    snprintf(path, sizeof path, "%s/c.traceg.gz", dir);
    write_bytes(path, gz, glen / 2);
    free(gz);
    CHECK(gp_trace_parse_file(&k, &a, path, &err) == GP_ERR);
    CHECK_STR_CONTAINS(err.msg, "c.traceg.gz");
  }
  free(out);
  free(text);
  snprintf(path, sizeof path, "rm -rf %s", dir);
  CHECK(system(path) == 0);
}

/* ---------------------------------------------------------------------------
 * Warnings
 * ------------------------------------------------------------------------- */

static void test_warnings_once_per_opcode(void) {
  gp_error err;
  gp_kernel *k = parse_text(
      "-kernel name = w\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
      "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n"
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 6\n"
      "0010 ffffffff 1 R2 FROB 0 0\n0020 ffffffff 1 R3 QUUX.X 0 0\n"
      "0030 ffffffff 1 R4 FROB 0 0\n0040 ffffffff 1 R5 FROB 1 R2 0\n"
      "0050 00000001 1 R6 LDG.E.64 1 R2 4 1 0x1000 0\n"
      "0060 00000001 1 R7 LDG.E 1 R2 4 1 0x1000 0\n#END_TB\n",
      &err);
  CHECK(k != NULL);
  if (k == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    return;
  }
  CHECK(strcmp(k->warnings,
               "3 instructions of unknown opcode FROB classed as integer ALU; "
               "1 instructions of unknown opcode QUUX.X classed as integer ALU; "
               "1 instructions of LDG.E.64 give a mem_width other than the 8 bytes "
               "of the suffix: mem_width used") == 0);
  if (strstr(k->warnings, "FROB") == NULL)
    fprintf(stderr, "  warnings: %s\n", k->warnings);
  CHECK_EQ_INT(k->class_counts[GP_OP_INT], 4);
  CHECK_EQ_INT(k->width[4], 4);
  CHECK_EQ_INT(gp_kernel_dep(k, 3), 3);
  gp_kernel_free(k);
}

/* ---------------------------------------------------------------------------
 * Bad input
 * ------------------------------------------------------------------------- */

static void expect(const char *text, const char *message) {
  gp_error err;
  gp_kernel *k = parse_text(text, &err);
  CHECK(k == NULL);
  if (k != NULL)
    gp_kernel_free(k);
  else
    CHECK_STR_CONTAINS(err.msg, message);
}

#define H3                                                                     \
  "-kernel name = bad\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"         \
  "-binary version = 80\n-accelsim tracer version = 3\n#traces format = x\n" \
  "#BEGIN_TB\nthread block = 0,0,0\n"

static void test_bad_input(void) {
  /* an insts count the rest of the buffer cannot hold (8 lines: no alloc) */
  expect(H3 "warp = 0\ninsts = 50000000\n0010 ffffffff 1 R2 IADD3 0 0\n",
         "t.traceg:10: 'insts = 50000000' cannot fit in the 29 bytes left: an "
         "instruction line takes at least 12");
  /* truncated in the middle of a line */
  expect(H3 "warp = 0\ninsts = 2\n0010 ffffffff 1 R2 IADD3 0 0\n0020 fffff",
         "t.traceg:12: expected a destination count, found the end of the line");
  /* grid x block overflowing 64 bits */
  expect("-grid dim = (4294967295,4294967295,4294967295)\n-block dim = (1024,1,1)\n"
         "#traces format = x\n",
         "t.traceg:3: grid (4294967295,4294967295,4294967295) of blocks (1024,1,1) "
         "overflows 64 bits: expected at most 16777216 warps");
  expect("-grid dim = (1,1,1)\n-block dim = (4294967295,4294967295,4294967295)\n"
         "#traces format = x\n",
         "t.traceg:3: grid (1,1,1) of blocks (4294967295,4294967295,4294967295) overflows 64 bits");
  expect("-grid dim = (1,1,1)\n-block dim = (2048,4,1)\n#traces format = x\n",
         "t.traceg:3: block of 8192 threads: expected at most 4096");
  /* a pre-3 line naming another block or warp */
  expect("-kernel name = old\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"
         "#traces format = x\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\ninsts = 1\n"
         "0 0 0 0 0010 ffffffff 1 R2 IADD3 0 0\n#END_TB\n",
         "t.traceg:9: expected block 0 0 0 warp 1 at the start of the line (a trace "
         "without a tracer version), found 0 0 0 0");
  /* a mask wider than 32 bits, and one PC with two opcodes */
  expect(H3 "warp = 0\ninsts = 1\n0010 1ffffffff 1 R2 IADD3 0 0\n#END_TB\n",
         "t.traceg:11: expected a 32-bit active mask (hex), found '1ffffffff'");
  expect(H3 "warp = 0\ninsts = 2\n0010 ffffffff 1 R2 IADD3 0 0\n"
            "0010 ffffffff 1 R2 FADD 0 0\n#END_TB\n",
         "t.traceg:12: PC 0x10 holds 'IADD3' earlier and 'FADD' here");
  /* bad delta, bad stride, missing immediate in version 5 */
  expect(H3 "warp = 0\ninsts = 1\n0010 00000003 1 R2 LDG.E 1 R0 4 2 0x10 4x\n",
         "t.traceg:11: expected an address delta from -4611686018427387904 to "
         "4611686018427387903, found '4x'");
  expect(H3 "warp = 0\ninsts = 1\n0010 00000003 1 R2 LDG.E 1 R0 4 1 0x10\n",
         "t.traceg:11: expected an address stride, found the end of the line");
  expect("-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 5\n"
         "#traces format = x\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
         "0010 ffffffff 1 R2 IADD3 0 0\n#END_TB\n",
         "t.traceg:9: expected the immediate operand (tracer version 5)");
  /* a structure line the body does not know */
  expect(H3 "warp = 0\ninsts = 0\nthreads = 5\n",
         "t.traceg:11: expected an instruction line, 'warp = N', 'insts = K' or #END_TB, "
         "found 'threads = 5'");
  /* binary garbage inside a block */
  expect(H3 "warp = 0\ninsts = 1\n\x01\x02\xff\xfe\x7f" "ELF\x02\x01\x01\x00\x00\x00\n",
         "t.traceg:11: expected an instruction line");
  /* a file cut after its header lists no thread block */
  expect("-grid dim = (4,1,1)\n-block dim = (32,1,1)\n#traces format = x\n\n",
         "t.traceg:4: the file ended before the first thread block: expected 4 "
         "(#BEGIN_TB, 'thread block = x,y,z')");
  /* an opcode with NUL bytes at a PC seen before (found by the fuzzer) */
  {
    static const char text[] = H3 "warp = 0\ninsts = 2\n0010 ffffffff 1 R2 LDL 0 0\n"
                                  "0010 ffffffff 1 R2 LDL\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0 0 0\n";
    gp_alloc a = gp_alloc_default();
    gp_error err;
    gp_kernel *k = NULL;
    CHECK(gp_kernel_parse_buffer(&k, &a, text, sizeof text - 1, "t.traceg", &err) == GP_ERR);
    CHECK_STR_CONTAINS(err.msg, "t.traceg:12: expected an opcode, found bytes that are not printable text");
  }
  /* a warp appearing twice */
  expect(H3 "warp = 0\ninsts = 1\n0010 ffffffff 1 R2 IADD3 0 0\n#END_TB\n"
            "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n",
         "t.traceg:15: warp 0 of block (0,0,0) appears twice");
}

/* A plain file: the insts check uses the bytes left in the file. */
static void test_insts_bound_on_files(void) {
  char path[] = "/tmp/gpush_insts_XXXXXX";
  const char *text = H3 "warp = 0\ninsts = 3\n0010 ffffffff 1 R2 IADD3 0 0\n";
  int fd = mkstemp(path);
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  CHECK(fd >= 0);
  if (fd < 0)
    return;
  CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  close(fd);
  CHECK(gp_trace_parse_file(&k, &a, path, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, ":10: 'insts = 3' cannot fit in the 29 bytes left");
  unlink(path);
}

/* A single trace file named by a relative path opens as it is (it once got
 * a "/" prefixed, reading /tests/... instead of tests/...). */
static void test_relative_single_file(void) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_trace_reader *r = NULL;
  gp_launch_info info;
  CHECK(gp_trace_open(&r, &a, FIXTURES "/pre3.traceg", &err) == GP_OK);
  if (r == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    return;
  }
  CHECK_EQ_INT(gp_trace_next(r, &info, &err), 1);
  CHECK_EQ_INT(info.index, 1);
  gp_trace_close(r);
}

int main(void) {
  RUN(test_version3_every_mode);
  RUN(test_pre3_fixture);
  RUN(test_kernelslist_fixture);
  RUN(test_gzip_and_xz_by_magic);
  RUN(test_warnings_once_per_opcode);
  RUN(test_bad_input);
  RUN(test_insts_bound_on_files);
  RUN(test_relative_single_file);
  return gp_test_finish();
}
