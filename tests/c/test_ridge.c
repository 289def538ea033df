/* Ridge regression (num/ridge.h) on cases worked out on paper: an exact
 * line, the penalty's shrinkage of a slope (centred sums: slope =
 * Sxy / (Sxx + lambda), the intercept unpenalised), rows left out by the
 * mask, held-out predictions by group, and the penalty chosen by
 * leave-one-out error on data where the inputs carry no signal. */
#include "gp_test.h"
#include "num/ridge.h"

#include <math.h>

static gp_alloc A;

static void test_exact_line(void) {
  /* y = 2x + 1 and y = -x + 4 at x = 0, 1, 2: lambda 0 recovers both */
  const double x[3] = {0, 1, 2}, y[6] = {1, 4, 3, 3, 5, 2};
  double w[4], out[2];
  gp_error err;
  CHECK(gp_ridge_fit(x, y, 3, 1, 2, NULL, 0, &A, w, &err) == GP_OK);
  CHECK_NEAR(w[0], 2, 1e-12);  /* slope, output 0 */
  CHECK_NEAR(w[1], -1, 1e-12); /* slope, output 1 */
  CHECK_NEAR(w[2], 1, 1e-12);  /* intercepts */
  CHECK_NEAR(w[3], 4, 1e-12);
  {
    const double at[1] = {10};
    gp_ridge_apply(w, 1, 2, at, out);
    CHECK_NEAR(out[0], 21, 1e-11);
    CHECK_NEAR(out[1], -6, 1e-11);
  }
}

static void test_shrinkage(void) {
  /* x = 0, 1, 2, y = 1, 3, 5: mean x 1, mean y 3, Sxx 2, Sxy 4; lambda 2:
   * slope 4 / (2 + 2) = 1, intercept 3 - 1 x 1 = 2 (not shrunk) */
  const double x[3] = {0, 1, 2}, y[3] = {1, 3, 5};
  double w[2];
  gp_error err;
  CHECK(gp_ridge_fit(x, y, 3, 1, 1, NULL, 2, &A, w, &err) == GP_OK);
  CHECK_NEAR(w[0], 1, 1e-12);
  CHECK_NEAR(w[1], 2, 1e-12);
  /* the mask: without row 2 (y = 5 replaced by 50, so it would show) the
   * line through (0, 1) and (1, 3) */
  {
    const double y2[3] = {1, 3, 50};
    const unsigned char use[3] = {1, 1, 0};
    CHECK(gp_ridge_fit(x, y2, 3, 1, 1, use, 0, &A, w, &err) == GP_OK);
    CHECK_NEAR(w[0], 2, 1e-12);
    CHECK_NEAR(w[1], 1, 1e-12);
  }
  /* no row used; a singular system (one row, no penalty) */
  {
    const unsigned char none[3] = {0, 0, 0}, one[3] = {1, 0, 0};
    CHECK(gp_ridge_fit(x, y, 3, 1, 1, none, 1, &A, w, &err) == GP_ERR);
    CHECK_STR_CONTAINS(err.msg, "no rows");
    CHECK(gp_ridge_fit(x, y, 3, 1, 1, one, 0, &A, w, &err) == GP_ERR);
    CHECK_STR_CONTAINS(err.msg, "singular");
  }
}

static void test_held_out(void) {
  /* an exact line: every held-out prediction is exact, by row or by pairs */
  const double x[4] = {0, 1, 2, 3}, y[4] = {1, 3, 5, 7};
  const uint32_t pairs[4] = {7, 7, 9, 9}, all[4] = {1, 1, 1, 1};
  double out[4];
  gp_error err;
  size_t i;
  CHECK(gp_ridge_held_out(x, y, 4, 1, 1, NULL, 0, &A, out, &err) == GP_OK);
  for (i = 0; i < 4; i++)
    CHECK_NEAR(out[i], y[i], 1e-12);
  CHECK(gp_ridge_held_out(x, y, 4, 1, 1, pairs, 0, &A, out, &err) == GP_OK);
  for (i = 0; i < 4; i++)
    CHECK_NEAR(out[i], y[i], 1e-12);
  /* one group of everything: the fit on all rows */
  CHECK(gp_ridge_held_out(x, y, 4, 1, 1, all, 0, &A, out, &err) == GP_OK);
  CHECK_NEAR(out[3], 7, 1e-12);
}

/* x = 0..3, y = 1, -1, 1, -1 (no signal).  Leave-one-out with an infinite
 * penalty predicts the others' mean: -1/3 or 1/3, each off by 4/3, loss
 * 4 x 16/9 = 64/9.  With none: rows 0 and 3 see a flat line at -/+ 1/3
 * (16/9 each); row 1 the line through (0, 1), (2, 1), (3, -1) (slope
 * -4/7, intercept 9/7: 5/7 at x = 1, off by 12/7) and row 2 its mirror:
 * 2 x 16/9 + 2 x 144/49.  The large penalty wins. */
static void test_select(void) {
  const double x[4] = {0, 1, 2, 3}, y[4] = {1, -1, 1, -1}, lambdas[2] = {0, 1e12};
  double loss[2];
  size_t best;
  gp_error err;
  CHECK(gp_ridge_select(x, y, 4, 1, 1, NULL, lambdas, 2, &A, loss, &best, &err) == GP_OK);
  CHECK_NEAR(loss[0], 32.0 / 9 + 288.0 / 49, 1e-9);
  CHECK_NEAR(loss[1], 64.0 / 9, 1e-9);
  CHECK_EQ_INT(best, 1);
  CHECK(gp_ridge_select(x, y, 0, 1, 1, NULL, lambdas, 2, &A, loss, &best, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "0 rows");
}

int main(void) {
  A = gp_alloc_default();
  RUN(test_exact_line);
  RUN(test_shrinkage);
  RUN(test_held_out);
  RUN(test_select);
  return gp_test_finish();
}
