/* The cost-weighted neighbour classifier (num/neighbours.h): Gaussian
 * weights by hand (the nearest point weighs 1, a skipped group 0, points
 * beyond e^-40 exactly 0, every point when all would be skipped), the
 * class of least expected cost by hand, with and without the prior, and the
 * bandwidth chosen by
 * leave-one-group-out validation on a case worked out on paper: two
 * clusters of points that each prefer their own class, where only a narrow
 * bandwidth lets a held-out point follow its neighbours, and a held-out
 * point asked from another place (its query) follows the neighbours there. */
#include "gp_test.h"
#include "num/fexp.h"
#include "num/neighbours.h"

#include <math.h>

static gp_alloc A;

static void test_weights(void) {
  const double points[6] = {0, 0, 1, 0, 0, 2}; /* 3 points in 2-D */
  const double x[2] = {0, 0.5};
  const uint32_t groups[3] = {1, 2, 2};
  double w[3];
  /* squared distances 0.25, 1.25, 2.25; h2 = 1: exp(0), exp(-1), exp(-2) */
  gp_nb_weights(points, 3, 2, x, 1.0, NULL, 0, w);
  CHECK(w[0] == 1);
  CHECK_NEAR(w[1], exp(-1.0), 1e-15);
  CHECK_NEAR(w[2], exp(-2.0), 1e-15);
  /* group 1 skipped: the nearest of the rest (1.25) weighs 1 */
  gp_nb_weights(points, 3, 2, x, 1.0, groups, 1, w);
  CHECK(w[0] == 0);
  CHECK(w[1] == 1);
  CHECK_NEAR(w[2], exp(-1.0), 1e-15);
  /* every point skipped: all of them are used */
  {
    const uint32_t same[3] = {5, 5, 5};
    gp_nb_weights(points, 3, 2, x, 1.0, same, 5, w);
    CHECK(w[0] == 1);
    CHECK(w[2] > 0);
  }
  /* a narrow bandwidth: (1.25 - 0.25) / 0.04 = 25, (2.25 - 0.25) / 0.04 =
   * 50 > 40: exactly 0 */
  gp_nb_weights(points, 3, 2, x, 0.04, NULL, 0, w);
  CHECK(w[0] == 1);
  CHECK_NEAR(w[1], exp(-25.0), 1e-25);
  CHECK(w[2] == 0);
  /* the fixed exp agrees with the C library's to rounding */
  CHECK_NEAR(gp_exp_fixed(-3.5), exp(-3.5), 1e-16);
}

static void test_choose(void) {
  /* 3 points x 2 classes; weights 1, 0.5, 0: expected 1*0.2 + 0.5*0.9 = 0.65
   * for class 0 and 1*0.4 + 0.5*0.1 = 0.45 for class 1 */
  const double costs[6] = {0.2, 0.4, 0.9, 0.1, 0.0, 5.0};
  const double w[3] = {1, 0.5, 0};
  double expected[2];
  CHECK_EQ_INT(gp_nb_choose(costs, 3, 2, w, 0, NULL, expected), 1);
  CHECK_NEAR(expected[0], 0.65, 1e-15);
  CHECK_NEAR(expected[1], 0.45, 1e-15);
  /* ties go to the lower class */
  {
    const double even[2] = {0.3, 0.3}, one[1] = {1};
    CHECK_EQ_INT(gp_nb_choose(even, 1, 2, one, 0, NULL, expected), 0);
  }
}

/* Points at 0, 0.2 (class 0 is right for them) and 1.0, 1.2, 1.4, 1.6
 * (class 1 is right), each its own group.  Held out with a narrow
 * bandwidth, every point follows its nearest neighbour, which is of its own
 * kind: loss 0.  With every point weighing the same, the majority class 1
 * wins for all of them and the two points near 0 pay 1 each: loss 2/6.  So
 * the narrow candidate wins. */
static void test_select(void) {
  const double points[6] = {0, 0.2, 1.0, 1.2, 1.4, 1.6};
  const double costs[12] = {0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0};
  const gp_nb_setting candidates[2] = {{0.01, 0}, {1e30, 0}};
  gp_nb_table table = {costs, 2, 1.0};
  double loss[2];
  size_t best;
  gp_error err;
  CHECK(gp_nb_select(points, NULL, 6, 1, NULL, &table, 1, candidates, 2, &A, loss, &best, &err) == GP_OK);
  CHECK_EQ_INT(best, 0);
  CHECK_NEAR(loss[0], 0, 1e-15);
  CHECK_NEAR(loss[1], 2.0 / 6, 1e-15);
  /* with the two points near 0 in one group, neither may speak for the
   * other: both get class 1 whatever the bandwidth, both candidates lose
   * 2/6 and the earliest wins */
  {
    const uint32_t groups[6] = {1, 1, 2, 3, 4, 5};
    CHECK(gp_nb_select(points, NULL, 6, 1, groups, &table, 1, candidates, 2, &A, loss, &best, &err) ==
          GP_OK);
    CHECK_NEAR(loss[0], 2.0 / 6, 1e-15);
    CHECK_NEAR(loss[1], 2.0 / 6, 1e-15);
    CHECK_EQ_INT(best, 0);
  }
  /* a table's weight scales its loss */
  table.weight = 3;
  CHECK(gp_nb_select(points, NULL, 6, 1, NULL, &table, 1, candidates, 2, &A, loss, &best, &err) == GP_OK);
  CHECK_NEAR(loss[1], 1.0, 1e-15);
  /* queries elsewhere than the points: point 0 (class 0) asked from 1.1,
   * among the class-1 points, follows them with the narrow bandwidth and
   * pays 1 (loss 1/6); the others' queries are their points */
  table.weight = 1;
  {
    const double queries[6] = {1.1, 0.2, 1.0, 1.2, 1.4, 1.6};
    CHECK(gp_nb_select(points, queries, 6, 1, NULL, &table, 1, candidates, 2, &A, loss, &best,
                       &err) == GP_OK);
    CHECK_NEAR(loss[0], 1.0 / 6, 1e-15);
    CHECK_NEAR(loss[1], 2.0 / 6, 1e-15);
    CHECK(gp_nb_select(points, points, 6, 1, NULL, &table, 1, candidates, 2, &A, loss, &best,
                       &err) == GP_OK);
    CHECK_NEAR(loss[0], 0, 1e-15);
  }
  CHECK(gp_nb_select(points, NULL, 0, 1, NULL, &table, 1, candidates, 2, &A, loss, &best, &err) ==
        GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "0 reference points");
}

/* The prior: lambda x exp(d_min / h2) against the relative weights, so a
 * query far from every reference follows the references' mean cost. */
static void test_prior(void) {
  const gp_nb_setting set = {1.0, 0.5}, none = {1.0, 0};
  const double costs[4] = {0, 1, 1, 0}; /* point 0 prefers class 0, point 1 class 1 */
  const double w[2] = {1, 0.1}, prior[2] = {0.9, 0.1};
  double expected[2], mean[2];
  CHECK_NEAR(gp_nb_prior_weight(&set, 2.0), 0.5 * exp(2.0), 1e-12);
  CHECK(gp_nb_prior_weight(&none, 2.0) == 0);
  CHECK(isinf(gp_nb_prior_weight(&set, 701.0)));
  /* no prior: 0.1 against 1, class 0; a prior of weight 5: 0.1 + 4.5 against
   * 1 + 0.5, class 1; an infinite one: the prior's least, class 1 */
  CHECK_EQ_INT(gp_nb_choose(costs, 2, 2, w, 0, NULL, expected), 0);
  CHECK_EQ_INT(gp_nb_choose(costs, 2, 2, w, 5, prior, expected), 1);
  CHECK_NEAR(expected[0], 4.6, 1e-15);
  CHECK_NEAR(expected[1], 1.5, 1e-15);
  CHECK_EQ_INT(gp_nb_choose(costs, 2, 2, w, INFINITY, prior, expected), 1);
  gp_nb_mean_costs(costs, 2, 2, mean);
  CHECK(mean[0] == 0.5 && mean[1] == 0.5);
}

int main(void) {
  A = gp_alloc_default();
  RUN(test_weights);
  RUN(test_choose);
  RUN(test_select);
  RUN(test_prior);
  return gp_test_finish();
}
