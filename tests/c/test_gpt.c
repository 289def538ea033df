/* Unit tests of the .gpt binary kernel: exact round trips, and every kind of
 * damaged file refused with a message (never a crash). */
#define _POSIX_C_SOURCE 200809L

#include "gp_test.h"
#include "synth.h"

#include <stdlib.h>
#include <string.h>

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

static void test_damaged_files(const char *dir) {
  char path[256];
  long n;
  snprintf(path, sizeof path, "%s/k.gpt", dir);
  n = file_size(path);
  expect_refused(dir, 0, 'X', -1, "bad.gpt: not a gpush .gpt file (bad magic)");
  expect_refused(dir, 8, 9, -1, "bad.gpt: .gpt format version 9, this gpush reads version 2");
  /* a file of the format before every producer was kept: how to redo it */
  expect_refused(dir, 8, 1, -1,
                 "version 1, this gpush reads version 2: regenerate it from its trace with "
                 "`gpush trace convert TRACE ");
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
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  return gp_test_finish();
}
