/* The classifier network (Wu et al., Sec. III-D) and min-max normalisation:
 * XOR, a separable three-class problem, determinism, argmax ties, the
 * normalisation's clamping and degenerate features, and errors. */
#include "gp_test.h"
#include "num/minmax.h"
#include "num/nn.h"

#include <math.h>
#include <string.h>

static gp_alloc A;

static void test_xor(void) {
  const double x[8] = {0, 0, 0, 1, 1, 0, 1, 1};
  const uint32_t y[4] = {0, 1, 1, 0};
  double scratch[16];
  gp_nn nn;
  gp_nn_train_opts o;
  gp_nn_train_result r;
  gp_error err;
  int i;
  CHECK(gp_nn_init(&nn, &A, 2, 4, 2, 7, &err) == GP_OK);
  gp_nn_train_opts_default(&o);
  o.epochs = 3000;
  o.learning_rate = 0.05;
  o.weight_decay = 0;
  CHECK(gp_nn_train(&nn, x, 4, y, &o, &r, &err) == GP_OK);
  CHECK_NEAR(r.accuracy, 1.0, 0);
  CHECK(r.loss < 0.1);
  for (i = 0; i < 4; i++) {
    double out[2];
    CHECK_EQ_INT(gp_nn_classify(&nn, x + 2 * i, scratch), y[i]);
    gp_nn_forward(&nn, x + 2 * i, scratch, out);
    CHECK(out[y[i]] > 0.9);
    CHECK(out[1 - y[i]] < 0.1);
  }
  gp_nn_free(&nn);
}

/* Three blobs around (0.1, 0.1), (0.9, 0.2) and (0.5, 0.9), 10 points
 * each on a fixed ring; held-out points nearer each centre. */
static void blobs(double *x, uint32_t *y) {
  const double cx[3] = {0.1, 0.9, 0.5}, cy[3] = {0.1, 0.2, 0.9};
  int c, i;
  for (c = 0; c < 3; c++)
    for (i = 0; i < 10; i++) {
      double a = 2 * 3.14159265358979 * i / 10, r = 0.05 + 0.01 * (i % 3);
      x[2 * (c * 10 + i)] = cx[c] + r * cos(a);
      x[2 * (c * 10 + i) + 1] = cy[c] + r * sin(a);
      y[c * 10 + i] = (uint32_t)c;
    }
}

static void test_three_classes(void) {
  double x[60], scratch[16];
  const double held[6] = {0.12, 0.08, 0.88, 0.22, 0.52, 0.88};
  uint32_t y[30];
  gp_nn nn, again;
  gp_nn_train_opts o;
  gp_nn_train_result r;
  gp_error err;
  int i;
  blobs(x, y);
  gp_nn_train_opts_default(&o);
  CHECK(gp_nn_init(&nn, &A, 2, 3, 3, 1, &err) == GP_OK);
  CHECK(gp_nn_train(&nn, x, 30, y, &o, &r, &err) == GP_OK);
  CHECK_NEAR(r.accuracy, 1.0, 0);
  for (i = 0; i < 3; i++)
    CHECK_EQ_INT(gp_nn_classify(&nn, held + 2 * i, scratch), i);
  /* the same seed and data give the same weights bit for bit */
  CHECK(gp_nn_init(&again, &A, 2, 3, 3, 1, &err) == GP_OK);
  CHECK(gp_nn_train(&again, x, 30, y, &o, NULL, &err) == GP_OK);
  CHECK(memcmp(nn.w1, again.w1, (2 * 3 + 3 + 3 * 3 + 3) * sizeof(double)) == 0);
  gp_nn_free(&again);
  /* stopping once every example is classified right: fewer epochs, the
   * same accuracy; without the flag every epoch runs */
  CHECK_EQ_INT(r.epochs, o.epochs);
  o.stop_when_separated = 1;
  CHECK(gp_nn_init(&again, &A, 2, 3, 3, 1, &err) == GP_OK);
  CHECK(gp_nn_train(&again, x, 30, y, &o, &r, &err) == GP_OK);
  CHECK(r.epochs < o.epochs);
  CHECK_EQ_INT(r.epochs % 25, 0);
  CHECK_NEAR(r.accuracy, 1.0, 0);
  gp_nn_free(&again);
  /* another seed starts elsewhere */
  CHECK(gp_nn_init(&again, &A, 2, 3, 3, 2, &err) == GP_OK);
  CHECK(memcmp(nn.w1, again.w1, 6 * sizeof(double)) != 0);
  gp_nn_free(&again);
  gp_nn_free(&nn);
}

static void test_initialisation_and_ties(void) {
  gp_nn nn;
  gp_error err;
  double scratch[8], x[4] = {0.3, 0.1, 0.9, 0.5};
  size_t i;
  CHECK(gp_nn_init(&nn, &A, 4, 3, 2, 5, &err) == GP_OK);
  for (i = 0; i < 12; i++)
    CHECK(fabs(nn.w1[i]) <= 0.5); /* 1 / sqrt(4) */
  for (i = 0; i < 6; i++)
    CHECK(fabs(nn.w2[i]) <= 1 / sqrt(3.0));
  CHECK_NEAR(nn.b1[0] + nn.b1[1] + nn.b1[2] + nn.b2[0] + nn.b2[1], 0, 0);
  /* equal outputs: the lowest index wins */
  memset(nn.w2, 0, 6 * sizeof(double));
  CHECK_EQ_INT(gp_nn_classify(&nn, x, scratch), 0);
  nn.b2[1] = 1e-9;
  CHECK_EQ_INT(gp_nn_classify(&nn, x, scratch), 1);
  gp_nn_free(&nn);
}

static void test_errors(void) {
  gp_nn nn;
  gp_nn_train_opts o;
  gp_error err;
  double x[2] = {0, 1};
  uint32_t y[1] = {2};
  gp_nn_train_opts_default(&o);
  CHECK(gp_nn_init(&nn, &A, 0, 2, 2, 1, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "in, hidden, out > 0");
  gp_nn_free(&nn);
  CHECK(gp_nn_init(&nn, &A, 2, 2, 2, 1, &err) == GP_OK);
  CHECK(gp_nn_train(&nn, x, 1, y, &o, NULL, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "label 2");
  CHECK(gp_nn_train(&nn, x, 0, y, &o, NULL, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "no training examples");
  gp_nn_free(&nn);
}

static void test_minmax(void) {
  /* three rows of four features: a normal one, a constant one, one with a
   * NaN, one negative */
  const double x[12] = {1, 5, NAN, -2, 3, 5, 4, -6, 2, 5, 8, -4};
  double min[4], max[4], out[4];
  const double q[4] = {4, 7, 6, 0}, nan_q[4] = {NAN, 5, 2, -10};
  gp_minmax_fit(x, 3, 4, min, max);
  CHECK_NEAR(min[0], 1, 0);
  CHECK_NEAR(max[0], 3, 0);
  CHECK_NEAR(min[1], 5, 0);
  CHECK_NEAR(max[1], 5, 0);
  CHECK_NEAR(min[2], 4, 0); /* NaN skipped */
  CHECK_NEAR(max[2], 8, 0);
  CHECK_NEAR(min[3], -6, 0);
  gp_minmax_apply(x + 4, 4, min, max, out);
  CHECK_NEAR(out[0], 1, 0);
  CHECK_NEAR(out[1], 0, 0); /* max == min maps to 0 */
  CHECK_NEAR(out[2], 0, 0);
  CHECK_NEAR(out[3], 0, 0);
  gp_minmax_apply(q, 4, min, max, out);
  CHECK_NEAR(out[0], 1, 0);   /* above the range: clamped */
  CHECK_NEAR(out[1], 0, 0);
  CHECK_NEAR(out[2], 0.5, 0); /* (6 - 4) / 4 */
  CHECK_NEAR(out[3], 1, 0);
  gp_minmax_apply(nan_q, 4, min, max, out);
  CHECK_NEAR(out[0], 0, 0);   /* non-finite: 0 */
  CHECK_NEAR(out[3], 0, 0);   /* below the range: clamped */
}

int main(void) {
  A = gp_alloc_default();
  RUN(test_xor);
  RUN(test_three_classes);
  RUN(test_initialisation_and_ties);
  RUN(test_errors);
  RUN(test_minmax);
  return gp_test_finish();
}
