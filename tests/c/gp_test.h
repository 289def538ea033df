/*
 * gp_test.h -- a minimal unit-test harness for the C core (no Lua).
 *
 *   static void test_something(void) { CHECK(x == 1); CHECK_NEAR(y, 2.0, 1e-9); }
 *   int main(void) { RUN(test_something); return gp_test_finish(); }
 *
 * Every CHECK counts; the closing line is "N passed, N failed" and the exit
 * code is non-zero when anything failed.
 */
#ifndef GP_TEST_H
#define GP_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int gp_test_passed, gp_test_failed;
static const char *gp_test_current = "";

static void gp_test_report(int ok, const char *file, int line,
                           const char *what) {
  if (ok) {
    gp_test_passed++;
  } else {
    gp_test_failed++;
    fprintf(stderr, "%s:%d: %s: check failed: %s\n", file, line,
            gp_test_current, what);
  }
}

#define CHECK(cond) gp_test_report((cond) != 0, __FILE__, __LINE__, #cond)

#define CHECK_EQ_INT(a, b)                                                     \
  do {                                                                         \
    long long gp_a_ = (long long)(a), gp_b_ = (long long)(b);                  \
    if (gp_a_ != gp_b_)                                                        \
      fprintf(stderr, "  %s = %lld, expected %lld\n", #a, gp_a_, gp_b_);       \
    gp_test_report(gp_a_ == gp_b_, __FILE__, __LINE__, #a " == " #b);          \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                  \
  do {                                                                         \
    double gp_a_ = (double)(a), gp_b_ = (double)(b);                           \
    int gp_ok_ = fabs(gp_a_ - gp_b_) <= (tol);                                 \
    if (!gp_ok_)                                                               \
      fprintf(stderr, "  %s = %.17g, expected %.17g\n", #a, gp_a_, gp_b_);     \
    gp_test_report(gp_ok_, __FILE__, __LINE__, #a " ~= " #b);                  \
  } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                        \
  do {                                                                         \
    const char *gp_h_ = (hay);                                                 \
    int gp_ok_ = gp_h_ != NULL && strstr(gp_h_, (needle)) != NULL;             \
    if (!gp_ok_)                                                               \
      fprintf(stderr, "  \"%s\" does not contain \"%s\"\n",                    \
              gp_h_ ? gp_h_ : "(null)", (needle));                             \
    gp_test_report(gp_ok_, __FILE__, __LINE__, #hay " contains " #needle);     \
  } while (0)

#define RUN(fn)                                                                \
  do {                                                                         \
    gp_test_current = #fn;                                                     \
    fn();                                                                      \
  } while (0)

static int gp_test_finish(void) {
  printf("%d passed, %d failed\n", gp_test_passed, gp_test_failed);
  return gp_test_failed == 0 && gp_test_passed > 0 ? 0 : 1;
}

#endif
