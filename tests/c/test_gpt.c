/* Unit tests of the .gpt binary kernel: exact round trips, and every kind of
 * damaged file refused with a message (never a crash). */
#define _POSIX_C_SOURCE 200809L

#include "gp_test.h"
#include "synth.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static gp_kernel *make_kernel(void) {
  static const gp_synth_stream s[2] = {{GP_STREAM_RANDOM, 0x100000, 1 << 24, 4, 1},
                                       {GP_STREAM_SHARED, 0, 4096, 4, 1}};
  static const gp_synth_op body[5] = {{GP_OP_LD_GLOBAL, 8, 0, 0, {0}}, {GP_OP_FP32, 0, 0, 0, {1}},
                                      {GP_OP_ST_SHARED, 4, 1, 0, {1}}, {GP_OP_BARRIER, 0, 0, 0, {0}},
                                      {GP_OP_LD_SHARED, 4, 1, 5, {0}}};
  gp_synth_desc d;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  memset(&d, 0, sizeof d);
  strcpy(d.name, "gpt-test");
  d.grid[0] = 3, d.grid[1] = d.grid[2] = 1;
  d.block[0] = 96, d.block[1] = d.block[2] = 1;
  d.trips = 3, d.trip_spread = 2, d.seed = 8;
  d.body = body, d.body_len = 5, d.streams = s, d.stream_count = 2;
  if (gp_synth_generate(&k, &a, &d, &err) != GP_OK)
    fprintf(stderr, "  %s\n", err.msg);
  return k;
}

static char *text_of(const gp_kernel *k, size_t *len) {
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  gp_error err;
  gp_kernel_write_text(k, f, "mem", &err);
  fclose(f);
  return buf;
}

static void test_round_trip(const char *dir) {
  char path[256];
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = make_kernel(), *back = NULL;
  char *t1, *t2;
  size_t n1, n2;
  snprintf(path, sizeof path, "%s/k.gpt", dir);
  CHECK(k != NULL);
  if (k == NULL)
    return;
  CHECK(gp_kernel_write_gpt(k, path, &err) == GP_OK);
  CHECK(gp_gpt_is(path));
  CHECK(gp_trace_parse_file(&back, &a, path, &err) == GP_OK);
  if (back == NULL) {
    fprintf(stderr, "  %s\n", err.msg);
    gp_kernel_free(k);
    return;
  }
  CHECK(strcmp(back->name, "gpt-test") == 0);
  CHECK_EQ_INT(back->insts, k->insts);
  CHECK_EQ_INT(back->warps, 9);
  CHECK(memcmp(back->deps, k->deps, k->insts * GP_DEPS * 2) == 0);
  CHECK(memcmp(back->flags, k->flags, k->insts) == 0);
  CHECK(memcmp(back->addresses, k->addresses, k->address_count * 8) == 0);
  CHECK(memcmp(back->warp_len, k->warp_len, k->warps * 4) == 0);
  t1 = text_of(k, &n1);
  t2 = text_of(back, &n2);
  CHECK(n1 == n2 && memcmp(t1, t2, n1) == 0);
  free(t1);
  free(t2);
  gp_kernel_free(back);
  gp_kernel_free(k);
}

static long file_size(const char *path) {
  FILE *f = fopen(path, "rb");
  long n;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fclose(f);
  return n;
}

/* Copies the good file with a change, then expects a refusal. */
static void expect_refused(const char *dir, long offset, int byte, long truncate_to,
                           const char *message) {
  char good[256], bad[256];
  unsigned char *data;
  long n;
  FILE *f;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  snprintf(good, sizeof good, "%s/k.gpt", dir);
  snprintf(bad, sizeof bad, "%s/bad.gpt", dir);
  n = file_size(good);
  data = malloc((size_t)n);
  f = fopen(good, "rb");
  CHECK(fread(data, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  if (offset >= 0)
    data[offset] = (unsigned char)byte;
  f = fopen(bad, "wb");
  fwrite(data, 1, (size_t)(truncate_to >= 0 ? truncate_to : n), f);
  fclose(f);
  free(data);
  CHECK(gp_kernel_load_gpt(&k, &a, bad, 1, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, message);
}

/* The byte offset of the header's nregs field: found by writing a kernel
 * whose nregs is a marker value and searching the header for it. */
static long offsetof_nregs(void) {
  static long offset = -1;
  if (offset < 0) {
    gp_kernel *k = make_kernel();
    char path[] = "/tmp/gpush_gpt_nregs_XXXXXX";
    unsigned char head[512];
    uint32_t marker = 0x00c0ffeeu;
    gp_error err;
    int fd = mkstemp(path);
    long i;
    FILE *f;
    close(fd);
    k->nregs = marker;
    gp_kernel_write_gpt(k, path, &err);
    f = fopen(path, "rb");
    CHECK(fread(head, 1, sizeof head, f) == sizeof head);
    fclose(f);
    remove(path);
    for (i = 0; i + 4 <= (long)sizeof head && offset < 0; i++)
      if (memcmp(head + i, &marker, 4) == 0)
        offset = i;
    gp_kernel_free(k);
  }
  return offset;
}

/* A header changed and re-sealed (both checksums right) is still refused
 * when a field disagrees with the data or with the other fields. */
static void expect_resealed_refused(const char *dir, long offset, uint32_t value, const char *message) {
  char good[256], bad[256];
  unsigned char *data;
  long n;
  FILE *f;
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  snprintf(good, sizeof good, "%s/k.gpt", dir);
  snprintf(bad, sizeof bad, "%s/bad.gpt", dir);
  n = file_size(good);
  data = malloc((size_t)n);
  f = fopen(good, "rb");
  CHECK(fread(data, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  memcpy(data + offset, &value, 4);
  CHECK(gp_gpt_seal(data, (size_t)n) == GP_OK);
  f = fopen(bad, "wb");
  fwrite(data, 1, (size_t)n, f);
  fclose(f);
  free(data);
  CHECK(gp_kernel_load_gpt(&k, &a, bad, 1, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, message);
}

static void test_resealed_headers(const char *dir) {
  long nregs = offsetof_nregs();
  /* layout after nregs: binary_version, trace_version, lineinfo, synthetic */
  expect_resealed_refused(dir, nregs, 300, "bad.gpt: header field 'nregs' is out of range");
  expect_resealed_refused(dir, nregs - 4, 1u << 31, "bad.gpt: header field 'shmem_bytes'");
  expect_resealed_refused(dir, nregs - 8, 97, "bad.gpt: header field 'block'");      /* block z */
  expect_resealed_refused(dir, nregs - 24, 7, "bad.gpt: header field 'grid'");       /* grid y */
  expect_resealed_refused(dir, nregs + 12, 2, "bad.gpt: header field 'flags'");      /* lineinfo */
}

/* A payload changed and re-sealed: a dependence that points before its
 * warp's first instruction, or a distance after an empty slot (the list is
 * packed), is refused rather than followed. */
static void test_resealed_deps(const char *dir) {
  char path[256];
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  long deps;
  snprintf(path, sizeof path, "%s/k.gpt", dir);
  CHECK(gp_kernel_load_gpt(&k, &a, path, 1, &err) == GP_OK);
  if (k == NULL)
    return;
  deps = (long)((const unsigned char *)k->deps - (const unsigned char *)k->image);
  CHECK(k->deps[0] == 0); /* warp 0's first instruction has no producer */
  gp_kernel_free(k);
  /* instruction 0, slot 0: one instruction back, before the warp */
  expect_resealed_refused(dir, deps, 1u, "bad.gpt: instruction 0 has a dependence outside its warp");
  /* instruction 2, slots 0-1: empty, then a distance of 1 */
  expect_resealed_refused(dir, deps + 2 * GP_DEPS * 2, 1u << 16,
                          "bad.gpt: instruction 2 has a dependence outside its warp");
}

/* Seeded dependence changes, each re-sealed: the loader accepts exactly
 * the files whose distances all stay inside their warps and are packed,
 * and names the first instruction that does not (the reference below reads
 * one distance at a time; the loader takes eight at once). */
static void test_resealed_deps_seeded(const char *dir) {
  char path[256], bad[256];
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL, *back = NULL;
  unsigned char *data;
  uint64_t x = 99, insts, i, w, j;
  uint64_t *pos;
  long n, deps;
  int trial, d;
  FILE *f;
  snprintf(path, sizeof path, "%s/k.gpt", dir);
  snprintf(bad, sizeof bad, "%s/bad.gpt", dir);
  CHECK(gp_kernel_load_gpt(&k, &a, path, 1, &err) == GP_OK);
  if (k == NULL)
    return;
  insts = k->insts;
  deps = (long)((const unsigned char *)k->deps - (const unsigned char *)k->image);
  pos = malloc(insts * sizeof *pos);
  for (w = 0; w < k->warps; w++)
    for (j = 0; j < k->warp_len[w]; j++)
      pos[k->warp_start[w] + j] = j;
  gp_kernel_free(k);
  n = file_size(path);
  data = malloc((size_t)n);
  for (trial = 0; trial < 300; trial++) {
    uint16_t *dist = (uint16_t *)(data + deps), v;
    uint64_t expect = UINT64_MAX;
    f = fopen(path, "rb");
    CHECK(fread(data, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    i = (x >> 33) % insts;
    d = (int)((x >> 20) % GP_DEPS);
    v = (x >> 8) % 16 == 0 ? 0xffffu : (uint16_t)((x >> 40) % (pos[i] + 3));
    dist[i * GP_DEPS + (unsigned)d] = v;
    for (i = 0; i < insts && expect == UINT64_MAX; i++)
      for (d = 0; d < GP_DEPS; d++)
        if (dist[i * GP_DEPS + (unsigned)d] > pos[i] ||
            (d > 0 && dist[i * GP_DEPS + (unsigned)d] != 0 && dist[i * GP_DEPS + (unsigned)d - 1] == 0))
          expect = i;
    CHECK(gp_gpt_seal(data, (size_t)n) == GP_OK);
    f = fopen(bad, "wb");
    fwrite(data, 1, (size_t)n, f);
    fclose(f);
    if (expect == UINT64_MAX) {
      CHECK(gp_kernel_load_gpt(&back, &a, bad, 1, &err) == GP_OK);
      gp_kernel_free(back);
      back = NULL;
    } else {
      char message[128];
      snprintf(message, sizeof message, "bad.gpt: instruction %llu has a dependence outside its warp",
               (unsigned long long)expect);
      CHECK(gp_kernel_load_gpt(&back, &a, bad, 1, &err) == GP_ERR);
      CHECK_STR_CONTAINS(err.msg, message);
    }
  }
  free(data);
  free(pos);
}

/* Seeded PC and memory-record indices, each re-sealed: the loader (four
 * instructions at a time) refuses exactly the files a one-by-one reading
 * refuses, naming the first instruction out of range, or the header's
 * memory-record count where an index moved on or off an instruction. */
static void test_resealed_indices_seeded(const char *dir) {
  char path[256], bad[256];
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL, *back = NULL;
  unsigned char *data;
  uint64_t x = 2026, insts, i, records;
  uint32_t statics, mems;
  long n, pcs, mem;
  int trial;
  FILE *f;
  snprintf(path, sizeof path, "%s/k.gpt", dir);
  snprintf(bad, sizeof bad, "%s/bad.gpt", dir);
  CHECK(gp_kernel_load_gpt(&k, &a, path, 1, &err) == GP_OK);
  if (k == NULL)
    return;
  insts = k->insts, statics = k->static_count, mems = k->mem_count;
  pcs = (long)((const unsigned char *)k->pc_index - (const unsigned char *)k->image);
  mem = (long)((const unsigned char *)k->mem - (const unsigned char *)k->image);
  gp_kernel_free(k);
  CHECK(insts > 8 && mems > 0);
  n = file_size(path);
  data = malloc((size_t)n);
  for (trial = 0; trial < 400; trial++) {
    uint32_t *pc = (uint32_t *)(void *)(data + pcs), *m = (uint32_t *)(void *)(data + mem);
    const uint32_t pc_values[4] = {statics - 1u, statics, statics + 7u, UINT32_MAX};
    const uint32_t mem_values[5] = {mems - 1u, mems, mems + 3u, UINT32_MAX - 1u, UINT32_MAX};
    uint64_t expect = UINT64_MAX;
    int changes = 1 + trial % 2, c;
    f = fopen(path, "rb");
    CHECK(fread(data, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    for (c = 0; c < changes; c++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      i = (x >> 33) % insts;
      if ((x >> 20) % 2 == 0)
        pc[i] = pc_values[(x >> 24) % 4];
      else
        m[i] = mem_values[(x >> 24) % 5];
    }
    for (i = 0, records = 0; i < insts; i++) {
      if (expect == UINT64_MAX && (pc[i] >= statics || (m[i] != UINT32_MAX && m[i] >= mems)))
        expect = i;
      records += m[i] != UINT32_MAX;
    }
    CHECK(gp_gpt_seal(data, (size_t)n) == GP_OK);
    f = fopen(bad, "wb");
    fwrite(data, 1, (size_t)n, f);
    fclose(f);
    if (expect == UINT64_MAX && records == mems) {
      CHECK(gp_kernel_load_gpt(&back, &a, bad, 1, &err) == GP_OK);
      gp_kernel_free(back);
      back = NULL;
    } else {
      char message[160];
      if (expect != UINT64_MAX)
        snprintf(message, sizeof message, "bad.gpt: instruction %llu is corrupt", (unsigned long long)expect);
      else
        snprintf(message, sizeof message, "bad.gpt: header field 'mem_count' says %u memory records, %llu instructions have one",
                 mems, (unsigned long long)records);
      CHECK(gp_kernel_load_gpt(&back, &a, bad, 1, &err) == GP_ERR);
      CHECK_STR_CONTAINS(err.msg, message);
    }
  }
  free(data);
}

/* A memory record changed and re-sealed: an unknown lane form, a nonzero
 * spare byte, a list with a stride, or a strided record of more than 32
 * lanes (gp_mem_lanes expands into 32 entries) is refused. */
static void test_resealed_records(const char *dir) {
  char path[256];
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  long rec;
  uint32_t line_count;
  snprintf(path, sizeof path, "%s/k.gpt", dir);
  CHECK(gp_kernel_load_gpt(&k, &a, path, 1, &err) == GP_OK);
  if (k == NULL)
    return;
  CHECK(k->mem_count > 0);
  rec = (long)((const unsigned char *)k->mem_records - (const unsigned char *)k->image);
  line_count = k->mem_records[0].line_count;
  CHECK_EQ_INT(k->mem_records[0].lanes, GP_LANES_LIST); /* the generator stores lists */
  gp_kernel_free(k);
  /* bytes 16-19 of a record: lanes, then three zero bytes */
  expect_resealed_refused(dir, rec + 16, 3u, "bad.gpt: memory record 0 is corrupt");
  expect_resealed_refused(dir, rec + 16, 1u << 8, "bad.gpt: memory record 0 is corrupt");
  expect_resealed_refused(dir, rec + 8, 4u, "bad.gpt: memory record 0 is corrupt"); /* stride */
  /* bytes 14-17: addr_count 40, line_count as it was, strided */
  expect_resealed_refused(dir, rec + 14, 40u | line_count << 8 | 1u << 16,
                          "bad.gpt: memory record 0 is corrupt");
}

static void test_header_only_load(const char *dir) {
  char path[256];
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel header;
  gp_kernel *k = make_kernel();
  snprintf(path, sizeof path, "%s/k.gpt", dir);
  CHECK(gp_trace_parse_header(&header, &a, path, NULL, &err) == GP_OK);
  CHECK(strcmp(header.name, "gpt-test") == 0);
  CHECK_EQ_INT(header.grid[0], 3);
  /* the stream id survives (format version 2 and later) */
  k->stream_id = 77;
  snprintf(path, sizeof path, "%s/s.gpt", dir);
  CHECK(gp_kernel_write_gpt(k, path, &err) == GP_OK);
  gp_kernel_free(k);
  k = NULL;
  CHECK(gp_kernel_load_gpt(&k, &a, path, 1, &err) == GP_OK);
  if (k != NULL) {
    CHECK_EQ_INT(k->stream_id, 77);
    gp_kernel_free(k);
  }
}

static void test_damaged_files(const char *dir) {
  char path[256];
  long n;
  snprintf(path, sizeof path, "%s/k.gpt", dir);
  n = file_size(path);
  expect_refused(dir, 0, 'X', -1, "bad.gpt: not a gpush .gpt file: it does not start with 'GPUSHGPT'");
  expect_refused(dir, 8, 9, -1, "bad.gpt: .gpt format version 9, this gpush reads version 5");
  /* the formats before the header checksum (1), before every producer was
   * kept (2), before strided lanes were stored as base and stride (3) and
   * before the faster checksum (4): how to redo them */
  expect_refused(dir, 8, 1, -1,
                 "bad.gpt: .gpt format version 1, this gpush reads version 5: regenerate it from its "
                 "trace with `gpush trace convert TRACE ");
  expect_refused(dir, 8, 2, -1,
                 "bad.gpt: .gpt format version 2, this gpush reads version 5: regenerate it from its "
                 "trace with `gpush trace convert TRACE ");
  expect_refused(dir, 8, 3, -1,
                 "bad.gpt: .gpt format version 3, this gpush reads version 5: regenerate it from its "
                 "trace with `gpush trace convert TRACE ");
  expect_refused(dir, 8, 4, -1,
                 "bad.gpt: .gpt format version 4, this gpush reads version 5: regenerate it from its "
                 "trace with `gpush trace convert TRACE ");
  expect_refused(dir, 12, 9, -1, "bad.gpt: written with another byte order");
  expect_refused(dir, -1, 0, 0, "bad.gpt: empty file: expected a gpush .gpt kernel");
  /* every header byte counts: the register count, the name, a class count */
  expect_refused(dir, offsetof_nregs(), 56, -1, "bad.gpt: header checksum mismatch: the header is corrupt");
  expect_refused(dir, 64, 'Y', -1, "bad.gpt: header checksum mismatch");
  expect_refused(dir, -1, 0, n - 64, "bad.gpt: truncated or extended");
  expect_refused(dir, n - 200, 0x5a, -1, "bad.gpt: checksum mismatch: the file is corrupt");
  expect_refused(dir, -1, 0, 10, "bad.gpt: too short for a .gpt file");
}

int main(void) {
  char dir[] = "/tmp/gpush_gpt_XXXXXX", cmd[64];
  if (mkdtemp(dir) == NULL)
    return 1;
  gp_test_current = "test_round_trip";
  test_round_trip(dir);
  gp_test_current = "test_damaged_files";
  test_damaged_files(dir);
  gp_test_current = "test_resealed_headers";
  test_resealed_headers(dir);
  gp_test_current = "test_resealed_deps";
  test_resealed_deps(dir);
  gp_test_current = "test_resealed_deps_seeded";
  test_resealed_deps_seeded(dir);
  gp_test_current = "test_resealed_indices_seeded";
  test_resealed_indices_seeded(dir);
  test_resealed_records(dir);
  gp_test_current = "test_header_only_load";
  test_header_only_load(dir);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  return gp_test_finish();
}
