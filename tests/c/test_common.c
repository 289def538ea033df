/* Unit tests of gp_common: the allocator hook, growth and error buffers. */
#include "gp_common.h"
#include "gp_test.h"

#include <stdint.h>
#include <string.h>

static void test_grow_doubles_and_keeps_contents(void) {
  gp_alloc a = gp_alloc_default();
  int *buf = NULL;
  size_t cap = 0;
  CHECK(gp_grow(&a, (void **)&buf, &cap, 10, sizeof *buf) == GP_OK);
  CHECK_EQ_INT(cap, 16);
  for (int i = 0; i < 16; i++)
    buf[i] = i;
  CHECK(gp_grow(&a, (void **)&buf, &cap, 17, sizeof *buf) == GP_OK);
  CHECK_EQ_INT(cap, 32);
  CHECK_EQ_INT(buf[15], 15);
  gp_free(&a, buf, cap * sizeof *buf);
}

static void test_grow_refuses_overflow(void) {
  gp_alloc a = gp_alloc_default();
  char *buf = NULL;
  size_t cap = 0;
  CHECK(gp_grow(&a, (void **)&buf, &cap, SIZE_MAX / 2 + 2, 4) == GP_ERR);
  CHECK(buf == NULL);
  CHECK_EQ_INT(cap, 0);
}

static void test_error_formats_and_truncates(void) {
  gp_error err;
  char long_name[2 * GP_ERROR_MAX];
  CHECK(gp_error_set(&err, "%s:%d: bad", "f.yaml", 3) == GP_ERR);
  CHECK(strcmp(err.msg, "f.yaml:3: bad") == 0);
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  gp_error_set(&err, "%s", long_name);
  CHECK_EQ_INT(strlen(err.msg), GP_ERROR_MAX - 1);
  CHECK(gp_error_set(NULL, "ignored") == GP_ERR);
}

static void test_strdup_and_version(void) {
  gp_alloc a = gp_alloc_default();
  char *s = gp_strdup(&a, "gpush");
  CHECK(s != NULL && strcmp(s, "gpush") == 0);
  gp_free(&a, s, 6);
  CHECK(strchr(gp_version(), '.') != NULL);
}

int main(void) {
  RUN(test_grow_doubles_and_keeps_contents);
  RUN(test_grow_refuses_overflow);
  RUN(test_error_formats_and_truncates);
  RUN(test_strdup_and_version);
  return gp_test_finish();
}
