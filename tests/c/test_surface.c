/* Scaling surfaces (Wu et al., HPCA 2015, Sec. III): scaling values and the
 * prediction path on synthetic surfaces (exact where the surface is
 * separable, exact with each kernel's own values everywhere), k-means
 * cluster sets and classifiers on three kernel families, the oracle
 * classifier's prediction against the centroids multiplied out by hand,
 * the model file (bit-exact round trip, version, checksum, truncation,
 * versions 1 and 2 read),
 * and errors. */
#include "gp_test.h"
#include "num/minmax.h"
#include "num/ridge.h"
#include "surface/surface.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gp_alloc A;

/* 3 CU counts x 4 engine clocks x 3 memory clocks */
static void small_grid(gp_surf_grid *g) {
  const double cu[3] = {4, 8, 16}, eng[4] = {300, 500, 700, 900}, mem[3] = {500, 800, 1100};
  memset(g, 0, sizeof *g);
  g->n[0] = 3, g->n[1] = 4, g->n[2] = 3;
  memcpy(g->axis[0], cu, sizeof cu);
  memcpy(g->axis[1], eng, sizeof eng);
  memcpy(g->axis[2], mem, sizeof mem);
}

/* A kernel's time: `family` 0 compute-bound (work / (CUs x engine)),
 * 1 bandwidth-bound (bytes / memory clock), 2 a roofline max of the two
 * with a CU-dependent cache term (not separable). */
static double kernel_time(int family, double scale, double cu, double eng, double mem) {
  double compute = 4e4 / (cu * eng), memory = 60.0 / mem;
  switch (family) {
  case 0:
    return scale * (compute + 1e-3);
  case 1:
    return scale * (memory + 1e-3);
  default:
    return scale * (fmax(compute, memory * (1 + cu / 64)) + 2e-3);
  }
}

static void fill_tensor(const gp_surf_grid *g, double *t, int family, double scale) {
  uint32_t c, e, m;
  for (c = 0; c < g->n[0]; c++)
    for (e = 0; e < g->n[1]; e++)
      for (m = 0; m < g->n[2]; m++)
        t[gp_surf_config_index(g, c, e, m)] =
            kernel_time(family, scale, g->axis[0][c], g->axis[1][e], g->axis[2][m]);
}

/* Every base and target: the path over a kernel's own scaling values gives
 * its own target time (the telescoping reading of Eq. 1); on a separable
 * surface that holds for every CU-value base row too. */
static void test_path_on_own_values(void) {
  gp_surf_grid g;
  double t[36], freq[3][30], cu[2];
  uint32_t b[3], tg[3], c;
  int family;
  small_grid(&g);
  CHECK_EQ_INT(gp_surf_freq_dim(&g), 3 * 3 + 4 * 2);
  CHECK_EQ_INT(gp_surf_cu_dim(&g), 2);
  for (family = 0; family < 3; family++) {
    double worst = 0;
    fill_tensor(&g, t, family, 1 + family);
    for (c = 0; c < 3; c++)
      gp_surf_freq_values(&g, t, c, freq[c]);
    for (b[0] = 0; b[0] < 3; b[0]++)
      for (b[1] = 0; b[1] < 4; b[1]++)
        for (b[2] = 0; b[2] < 3; b[2]++) {
          gp_surf_cu_values(&g, t, b[1], b[2], cu);
          for (tg[0] = 0; tg[0] < 3; tg[0]++)
            for (tg[1] = 0; tg[1] < 4; tg[1]++)
              for (tg[2] = 0; tg[2] < 3; tg[2]++) {
                double want = t[gp_surf_config_index(&g, tg[0], tg[1], tg[2])];
                double got = t[gp_surf_config_index(&g, b[0], b[1], b[2])] *
                             gp_surf_path(&g, cu, freq[tg[0]], b, tg);
                double rel = fabs(got - want) / want;
                worst = rel > worst ? rel : worst;
              }
        }
    CHECK(worst < 1e-13);
  }
  /* the values themselves, by hand: family 1 (memory-bound) has engine
   * values of exactly 1 and memory values (60/800 + 1e-3) / (60/500 + 1e-3) */
  fill_tensor(&g, t, 1, 1);
  gp_surf_freq_values(&g, t, 0, freq[0]);
  CHECK_NEAR(freq[0][0], 1, 0);
  CHECK_NEAR(freq[0][9], (60.0 / 800 + 1e-3) / (60.0 / 500 + 1e-3), 1e-15);
  CHECK_NEAR(freq[0][10], (60.0 / 1100 + 1e-3) / (60.0 / 800 + 1e-3), 1e-15);
}

/* A separable surface t = a(c) b(e) g(m): any kernel's values transfer
 * exactly to another kernel of the same shape (what clustering relies on),
 * so a model trained on one predicts the other exactly. */
static void test_separable_transfer(void) {
  gp_surf_grid g;
  double t[36], freq[30], cu[2];
  uint32_t c, e, m, b[3] = {1, 2, 1}, tg[3];
  small_grid(&g);
  for (c = 0; c < 3; c++)
    for (e = 0; e < 4; e++)
      for (m = 0; m < 3; m++)
        t[gp_surf_config_index(&g, c, e, m)] = (1.0 + c * c) * (2.0 / (1 + e)) * (3.0 + m);
  gp_surf_cu_values(&g, t, b[1], b[2], cu);
  CHECK_NEAR(cu[0], 2.0, 0);
  CHECK_NEAR(cu[1], 2.5, 0);
  for (tg[0] = 0; tg[0] < 3; tg[0]++) {
    gp_surf_freq_values(&g, t, tg[0], freq);
    for (tg[1] = 0; tg[1] < 4; tg[1]++)
      for (tg[2] = 0; tg[2] < 3; tg[2]++) {
        /* another kernel: the same shape at 7.5 times the time */
        double base = 7.5 * t[gp_surf_config_index(&g, b[0], b[1], b[2])];
        double want = 7.5 * t[gp_surf_config_index(&g, tg[0], tg[1], tg[2])];
        CHECK_NEAR(base * gp_surf_path(&g, cu, freq, b, tg), want, want * 1e-14);
      }
  }
}

/* 24 kernels, 8 per family, scales 1..8; counters: compute share, memory
 * share, a family-independent one, and a constant. */
#define NK 24
static void family_dataset(gp_surf_data *d) {
  gp_surf_grid g;
  gp_error err;
  uint32_t k, c, e, m;
  small_grid(&g);
  CHECK(gp_surf_data_alloc(d, &A, &g, NK, 4, 2, &err) == GP_OK);
  for (k = 0; k < NK; k++) {
    int family = (int)(k % 3);
    double *t = d->values + (size_t)k * 36, *p = d->values + (size_t)(NK + k) * 36;
    fill_tensor(&g, t, family, 1 + (k / 3));
    for (c = 0; c < 3; c++)
      for (e = 0; e < 4; e++)
        for (m = 0; m < 3; m++) {
          size_t i = gp_surf_config_index(&g, c, e, m);
          double *x = d->counters + ((size_t)k * 36 + i) * 4;
          /* power: switching per second, rising with engine clock */
          p[i] = 50 + g.axis[1][e] * 0.1 * (family == 1 ? 0.5 : 1.0) + (double)k;
          x[0] = family == 0 ? 0.9 - 0.01 * (double)(k / 3) : (family == 1 ? 0.1 : 0.5);
          x[1] = family == 1 ? 0.95 : (family == 0 ? 0.05 + 0.01 * (double)(k / 3) : 0.6);
          x[2] = (double)(k % 5);
          x[3] = 3;
        }
  }
}

static const char NAMES[] = "compute\0memory\0noise\0constant";
#define NAMES_LEN sizeof NAMES

static void test_train_families(void) {
  gp_surf_data d;
  gp_surf_model *m;
  gp_surf_train_opts o;
  gp_surf_eval ev;
  gp_error err;
  uint32_t kernels[NK], base[3] = {2, 3, 2}, s, k, choice[4];
  family_dataset(&d);
  for (k = 0; k < NK; k++)
    kernels[k] = k;
  gp_surf_train_opts_default(&o);
  o.k = 3;
  o.classifier = GP_SURF_PAPER; /* the network learns the clusters exactly (below) */
  CHECK(gp_surf_train(&d, 0, "time", kernels, NK, base, NAMES, NAMES_LEN, &o, &A, &m, &err) ==
        GP_OK);
  CHECK_EQ_INT(m->nsets, 4);
  /* every set separates the three families: members of a family share a
   * cluster (the scale does not matter: ratios) and families differ */
  for (s = 0; s < m->nsets; s++) {
    const uint32_t *a = m->train_assign;
    CHECK_EQ_INT(m->sets[s].k, 3);
    for (k = 3; k < NK; k++)
      CHECK_EQ_INT(a[k * 4 + s], a[(k % 3) * 4 + s]);
  }
  for (s = 0; s < 3; s++) { /* compute- and bandwidth-bound differ in every frequency set */
    const uint32_t *a = m->train_assign;
    CHECK(a[0 * 4 + s] != a[1 * 4 + s]);
  }
  /* the classifier reproduces the clusters from the counters */
  for (k = 0; k < NK; k++) {
    const double *x = d.counters + ((size_t)k * 36 + 35) * 4;
    gp_surf_classify(m, x, choice);
    for (s = 0; s < 4; s++)
      CHECK_EQ_INT(choice[s], m->train_assign[k * 4 + s]);
  }
  /* the model's normalisation range: the training set's */
  CHECK_NEAR(m->fmin[3], 3, 0);
  CHECK_NEAR(m->fmax[3], 3, 0);
  CHECK_NEAR(m->fmax[1], 0.95, 0);
  /* families 0 and 1 are separable, so their centroids predict every
   * member exactly; family 2 shares one scaling shape too */
  CHECK(gp_surf_evaluate(m, &d, 0, kernels, NK, GP_SURF_CLASSIFIER, NULL, &ev, &err) == GP_OK);
  CHECK_EQ_INT(ev.count, NK * 35);
  CHECK(ev.mean < 1e-12);
  CHECK_EQ_INT(ev.histogram[0], NK * 35);
  /* k-means converged: every training kernel's own cluster is its nearest
   * centroid, so the nearest-centroid choice errs exactly as the oracle */
  {
    gp_surf_eval oracle, nearest;
    CHECK(gp_surf_evaluate(m, &d, 0, kernels, NK, GP_SURF_ORACLE, NULL, &oracle, &err) == GP_OK);
    CHECK(gp_surf_evaluate(m, &d, 0, kernels, NK, GP_SURF_NEAREST, NULL, &nearest, &err) == GP_OK);
    CHECK(oracle.mean == nearest.mean);
    CHECK(oracle.max == nearest.max);
  }
  gp_surf_model_free(m);
  /* the power quantity trains from the same counters */
  CHECK(gp_surf_train(&d, 1, "power", kernels, NK, base, NAMES, NAMES_LEN, &o, &A, &m, &err) ==
        GP_OK);
  CHECK(strcmp(m->quantity, "power") == 0);
  CHECK(gp_surf_evaluate(m, &d, 1, kernels, NK, GP_SURF_ORACLE, NULL, &ev, &err) == GP_OK);
  CHECK(ev.mean < 0.05);
  gp_surf_model_free(m);
  gp_surf_data_free(&d);
}

/* The oracle: a training kernel's prediction is its base value times its
 * own clusters' centroids walked along the path, multiplied out here by
 * hand in the same order (so the equality is exact). */
static void test_oracle_by_hand(void) {
  gp_surf_data d;
  gp_surf_model *m;
  gp_surf_train_opts o;
  gp_surf_eval ev;
  gp_error err;
  uint32_t kernels[6] = {0, 1, 2, 4, 5, 7}, base[3] = {2, 1, 0}, target[3] = {0, 3, 2};
  uint32_t choice[4], i;
  double per_kernel[6];
  family_dataset(&d);
  gp_surf_train_opts_default(&o);
  o.k = 2;
  CHECK(gp_surf_train(&d, 0, "time", kernels, 6, base, NAMES, NAMES_LEN, &o, &A, &m, &err) ==
        GP_OK);
  for (i = 0; i < 6; i++) {
    const double *t = gp_surf_data_tensor(&d, 0, kernels[i]);
    const uint32_t *a = m->train_assign + i * 4;
    const double *cu = m->sets[3].centroids + a[3] * 2;
    const double *fr = m->sets[0].centroids + a[0] * 17;
    /* CU 16 -> 4: two steps down; engine 500 -> 900 along memory row 0
     * (engine values [r][k] at r * 3 + k); memory 500 -> 1100 along the
     * target engine row 3 (memory values after the 9 engine values, [r][k]
     * at 9 + r * 2 + k) */
    double fc = 1, fe = 1, fm = 1, f;
    fc *= 1.0 / cu[1];
    fc *= 1.0 / cu[0];
    fe *= fr[0 * 3 + 1];
    fe *= fr[0 * 3 + 2];
    fm *= fr[9 + 3 * 2 + 0];
    fm *= fr[9 + 3 * 2 + 1];
    f = fc;
    f *= fe;
    f *= fm;
    memcpy(choice, a, sizeof choice);
    CHECK(t[gp_surf_config_index(&d.grid, 2, 1, 0)] * f ==
          t[gp_surf_config_index(&d.grid, 2, 1, 0)] * gp_surf_factor(m, choice, target));
  }
  /* with as many clusters as kernels every kernel is its own centroid: the
   * oracle's error is rounding only */
  gp_surf_model_free(m);
  o.k = 6;
  CHECK(gp_surf_train(&d, 0, "time", kernels, 6, base, NAMES, NAMES_LEN, &o, &A, &m, &err) ==
        GP_OK);
  CHECK(gp_surf_evaluate(m, &d, 0, kernels, 6, GP_SURF_ORACLE, per_kernel, &ev, &err) == GP_OK);
  CHECK(ev.mean < 1e-14);
  CHECK(per_kernel[5] < 1e-14);
  /* the oracle knows training kernels only */
  kernels[0] = 3;
  CHECK(gp_surf_evaluate(m, &d, 0, kernels, 1, GP_SURF_ORACLE, NULL, &ev, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "kernel 4 is not one");
  gp_surf_model_free(m);
  gp_surf_data_free(&d);
}

/* n < k, a single-valued axis, and the errors. */
static void test_edges_and_errors(void) {
  gp_surf_data d, flat;
  gp_surf_grid g;
  gp_surf_model *m;
  gp_surf_train_opts o;
  gp_error err;
  uint32_t kernels[2] = {0, 1}, base[3] = {0, 0, 0}, k;
  family_dataset(&d);
  gp_surf_train_opts_default(&o); /* k = 12 > 2 kernels */
  CHECK(gp_surf_train(&d, 0, "time", kernels, 2, base, NAMES, NAMES_LEN, &o, &A, &m, &err) ==
        GP_OK);
  CHECK_EQ_INT(m->sets[0].k, 2);
  gp_surf_model_free(m);
  /* errors: a missing base counter, a bad name list, k = 0, a zero time */
  d.counters[0 * 4 + 1] = NAN; /* kernel 0 at configuration 0 (the base): 'memory' */
  CHECK(gp_surf_train(&d, 0, "time", kernels, 2, base, NAMES, NAMES_LEN, &o, &A, &m, &err) ==
        GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "counter 'memory'");
  CHECK(gp_surf_train(&d, 0, "time", kernels, 2, base, "a\0b", 4, &o, &A, &m, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "2 feature names for 4 features");
  o.k = 0;
  CHECK(gp_surf_train(&d, 0, "time", kernels, 2, base, NAMES, NAMES_LEN, &o, &A, &m, &err) ==
        GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "k = 0");
  o.k = 2;
  d.values[5] = 0;
  CHECK(gp_surf_train(&d, 0, "time", kernels, 2, base, NAMES, NAMES_LEN, &o, &A, &m, &err) ==
        GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "configuration 6 is 0");
  gp_surf_data_free(&d);
  /* one engine and one memory clock: frequency sets are empty, one cluster */
  memset(&g, 0, sizeof g);
  g.n[0] = 2, g.n[1] = 1, g.n[2] = 1;
  g.axis[0][0] = 8, g.axis[0][1] = 16, g.axis[1][0] = 1000, g.axis[2][0] = 1000;
  CHECK(gp_surf_data_alloc(&flat, &A, &g, 3, 1, 1, &err) == GP_OK);
  for (k = 0; k < 3; k++) {
    flat.values[k * 2] = 10 + k, flat.values[k * 2 + 1] = 6 + k;
    flat.counters[k * 2] = k, flat.counters[k * 2 + 1] = k;
  }
  CHECK(gp_surf_train(&flat, 0, "time", kernels, 2, base, "x", 2, &o, &A, &m, &err) == GP_OK);
  CHECK_EQ_INT(m->sets[0].k, 1);
  CHECK_EQ_INT(m->sets[0].dim, 0);
  CHECK_EQ_INT(m->sets[2].k, 2);
  gp_surf_model_free(m);
  gp_surf_data_free(&flat);
  /* grids */
  g.axis[0][1] = 8;
  CHECK(gp_surf_grid_check(&g, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "CU count values must be strictly ascending");
  CHECK_EQ_INT(gp_surf_axis_find(&g, GP_SURF_ENGINE, 1000), 0);
  CHECK_EQ_INT(gp_surf_axis_find(&g, GP_SURF_ENGINE, 999), -1);
}

static void test_file_round_trip(void) {
  gp_surf_data d;
  gp_surf_model *m[2], **back;
  gp_surf_train_opts o;
  gp_error err;
  uint32_t kernels[NK], base[3] = {1, 2, 1}, k, count, s, target[3] = {2, 0, 2};
  unsigned char *bytes, *again, *copy;
  size_t len, len2;
  family_dataset(&d);
  for (k = 0; k < NK; k++)
    kernels[k] = k;
  gp_surf_train_opts_default(&o);
  o.k = 4;
  o.nn.epochs = 200;
  CHECK(gp_surf_train(&d, 0, "time", kernels, NK, base, NAMES, NAMES_LEN, &o, &A, &m[0], &err) ==
        GP_OK);
  CHECK(gp_surf_train(&d, 1, "power", kernels, NK, base, NAMES, NAMES_LEN, &o, &A, &m[1], &err) ==
        GP_OK);
  CHECK(gp_surf_encode(m, 2, &A, &bytes, &len, &err) == GP_OK);
  CHECK(memcmp(bytes, "GPSURFMD", 8) == 0);
  CHECK(gp_surf_decode(bytes, len, "m.gsm", &A, &back, &count, &err) == GP_OK);
  CHECK_EQ_INT(count, 2);
  CHECK(strcmp(back[1]->quantity, "power") == 0);
  CHECK(gp_surf_encode(back, 2, &A, &again, &len2, &err) == GP_OK);
  CHECK_EQ_INT(len2, len);
  CHECK(memcmp(bytes, again, len) == 0);
  for (k = 0; k < NK; k++) { /* the same predictions bit for bit */
    const double *x = d.counters + ((size_t)k * 36 + 20) * 4;
    CHECK(gp_surf_predict(m[0], x, 3.0, target) == gp_surf_predict(back[0], x, 3.0, target));
    CHECK(gp_surf_predict(m[1], x, 3.0, target) == gp_surf_predict(back[1], x, 3.0, target));
  }
  for (s = 0; s < 4; s++)
    CHECK_EQ_INT(back[0]->sets[s].k, m[0]->sets[s].k);
  gp_free(&A, again, len2);
  for (k = 0; k < count; k++)
    gp_surf_model_free(back[k]);
  gp_free(&A, back, count * sizeof *back);
  /* another format version is refused by name */
  copy = malloc(len);
  memcpy(copy, bytes, len);
  copy[8] = 4;
  CHECK(gp_surf_decode(copy, len, "new.gsm", &A, &back, &count, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "new.gsm: a surface model of format version 4");
  CHECK_STR_CONTAINS(err.msg, "reads versions 1 to 3: train it again with `gpush ml train`");
  /* a flipped payload byte fails the checksum; resealed, the structure
   * checks still hold it */
  memcpy(copy, bytes, len);
  copy[len / 2] ^= 0x40;
  CHECK(gp_surf_decode(copy, len, "m.gsm", &A, &back, &count, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "checksum mismatch");
  CHECK(gp_surf_decode(bytes, len - 9, "cut.gsm", &A, &back, &count, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "cut.gsm: truncated");
  memcpy(copy, bytes, len);
  copy[0] = 'X';
  CHECK(gp_surf_decode(copy, len, "x.bin", &A, &back, &count, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "not a gpush surface model");
  /* a sealed image cut short inside the models */
  gp_surf_seal(copy, len - 100);
  memcpy(copy, bytes, 8);
  gp_surf_seal(copy, len - 100);
  CHECK(gp_surf_decode(copy, len - 100, "short.gsm", &A, &back, &count, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "short.gsm: damaged surface model");
  free(copy);
  gp_free(&A, bytes, len);
  gp_surf_model_free(m[0]);
  gp_surf_model_free(m[1]);
  gp_surf_data_free(&d);
}

/* A version-1 file (before the classifier kind: the paper's networks
 * only) still reads, with the same predictions: the version-2 image of a
 * paper model less its classifier field, resealed. */
static void test_version_1(void) {
  gp_surf_data d;
  gp_surf_model *m, **back;
  gp_surf_train_opts o;
  gp_error err;
  uint32_t kernels[NK], base[3] = {1, 2, 1}, k, count, target[3] = {2, 0, 2};
  unsigned char *bytes, *old;
  size_t len, at;
  family_dataset(&d);
  for (k = 0; k < NK; k++)
    kernels[k] = k;
  gp_surf_train_opts_default(&o);
  o.k = 3;
  o.classifier = GP_SURF_PAPER;
  o.nn.epochs = 100;
  CHECK(gp_surf_train(&d, 0, "time", kernels, NK, base, NAMES, NAMES_LEN, &o, &A, &m, &err) ==
        GP_OK);
  CHECK(gp_surf_encode(&m, 1, &A, &bytes, &len, &err) == GP_OK);
  /* header, count, quantity "time", grid sizes and values, base, k,
   * features, names, ranges: then the classifier field */
  at = 32 + 4 + (4 + 4) + 12 + 8 * (3 + 4 + 3) + 12 + 4 + 4 + 4 + NAMES_LEN + 2 * 8 * 4;
  CHECK(bytes[at] == GP_SURF_PAPER && bytes[at + 1] == 0);
  old = malloc(len - 4);
  memcpy(old, bytes, at);
  memcpy(old + at, bytes + at + 4, len - at - 4);
  old[8] = 1;
  gp_surf_seal(old, len - 4);
  CHECK(gp_surf_decode(old, len - 4, "v1.gsm", &A, &back, &count, &err) == GP_OK);
  CHECK_EQ_INT(count, 1);
  CHECK_EQ_INT(back[0]->classifier, GP_SURF_PAPER);
  for (k = 0; k < NK; k++) {
    const double *x = d.counters + ((size_t)k * 36 + 20) * 4;
    CHECK(gp_surf_predict(m, x, 3.0, target) == gp_surf_predict(back[0], x, 3.0, target));
  }
  gp_surf_model_free(back[0]);
  gp_free(&A, back, sizeof *back);
  free(old);
  gp_free(&A, bytes, len);
  gp_surf_model_free(m);
  gp_surf_data_free(&d);
}

/* A version-2 file (the neighbour classifier on normalised counters, no
 * map) reads as the identity map: made here from a version-3 image by
 * dropping the space's dimension, the penalty and the map and storing the
 * references' normalised counters; its choices are the classifier's on the
 * counters themselves, recomputed from the parts. */
static void test_version_2(void) {
  gp_surf_data d;
  gp_surf_model *m, **back;
  gp_surf_train_opts o;
  gp_error err;
  uint32_t kernels[NK], base[3] = {1, 2, 1}, k, s, j, count, choice[4];
  unsigned char *bytes, *old;
  size_t len, at, v3_refs, v2_len, rest, g = 0;
  double x[NK * 4];
  family_dataset(&d);
  for (k = 0; k < NK; k++)
    kernels[k] = k;
  gp_surf_train_opts_default(&o);
  o.k = 3;
  CHECK(gp_surf_train(&d, 0, "time", kernels, NK, base, NAMES, NAMES_LEN, &o, &A, &m, &err) ==
        GP_OK);
  CHECK(gp_surf_encode(&m, 1, &A, &bytes, &len, &err) == GP_OK);
  g = gp_surf_config_index(&d.grid, base[0], base[1], base[2]);
  for (k = 0; k < NK; k++)
    gp_minmax_apply(d.counters + ((size_t)k * 36 + g) * 4, 4, m->fmin, m->fmax, x + k * 4);
  at = 32 + 4 + (4 + 4) + 12 + 8 * (3 + 4 + 3) + 12 + 4 + 4 + 4 + NAMES_LEN + 2 * 8 * 4;
  CHECK(bytes[at] == GP_SURF_NEIGHBOURS && bytes[at + 4] == NK && bytes[at + 8] == 53);
  /* version 3: kind, refs, space, h2, lambda, ridge, map 5 x 53, refs x 53 */
  v3_refs = at + 12 + 24 + 8 * 5 * 53;
  rest = len - (v3_refs + 8 * NK * 53);
  v2_len = at + 8 + 16 + 8 * NK * 4 + rest;
  old = malloc(v2_len);
  memcpy(old, bytes, at + 8);                    /* up to the reference count */
  memcpy(old + at + 8, bytes + at + 12, 16);     /* h2 and lambda */
  for (j = 0; j < NK * 4; j++) {                 /* the normalised counters */
    uint64_t bits;
    int b;
    memcpy(&bits, &x[j], 8);
    for (b = 0; b < 8; b++)
      old[at + 24 + 8 * j + b] = (unsigned char)(bits >> (8 * b));
  }
  memcpy(old + at + 24 + 8 * NK * 4, bytes + len - rest, rest); /* the sets */
  old[8] = 2;
  gp_surf_seal(old, v2_len);
  CHECK(gp_surf_decode(old, v2_len, "v2.gsm", &A, &back, &count, &err) == GP_OK);
  CHECK_EQ_INT(back[0]->classifier, GP_SURF_NEIGHBOURS);
  CHECK_EQ_INT(back[0]->space, 4);
  CHECK(back[0]->ridge == 0);
  for (j = 0; j < 5 * 4; j++)
    CHECK(back[0]->map[j] == (j < 16 && j % 5 == 0 ? 1 : 0));
  for (k = 0; k < NK; k++) {
    double w[NK], expected[3], prior;
    prior = gp_nb_prior_weight(&back[0]->setting, gp_nb_weights(x, NK, 4, x + k * 4,
                                                                 back[0]->setting.h2, NULL, 0, w));
    gp_surf_classify(back[0], d.counters + ((size_t)k * 36 + g) * 4, choice);
    for (s = 0; s < 4; s++)
      CHECK_EQ_INT(choice[s], gp_nb_choose(back[0]->sets[s].costs, NK, 3, w, prior,
                                           back[0]->sets[s].prior, expected));
  }
  gp_surf_model_free(back[0]);
  gp_free(&A, back, sizeof *back);
  free(old);
  gp_free(&A, bytes, len);
  gp_surf_model_free(m);
  gp_surf_data_free(&d);
}

/* The neighbour classifier: each set's cost table is gp_surf_set_cost of
 * every training kernel against every centroid; the scaling space is the
 * ridge map of the normalised counters to every set's log scaling values
 * (scaled by 1/sqrt(space)), fitted on all training kernels with the
 * chosen penalty; the references are the training kernels' mapped
 * counters; a kernel's clusters are, per set, those of least expected cost
 * under the Gaussian weights of its mapped counters (recomputed here from
 * the parts); the setting and penalty are among the candidates; and the
 * choice errs little on these three families. */
static void test_neighbours(void) {
  gp_surf_data d;
  gp_surf_model *m;
  gp_surf_train_opts o;
  gp_error err;
  uint32_t kernels[NK], groups[NK], base[3] = {1, 2, 1}, k, s, j, choice[4], hits = 0;
  double scratch[2 * 64], v[32], own[32];
  family_dataset(&d);
  for (k = 0; k < NK; k++)
    kernels[k] = k, groups[k] = k / 3; /* groups of three: one of each family */
  gp_surf_train_opts_default(&o);
  o.k = 3;
  o.groups = groups;
  CHECK_EQ_INT(o.classifier, GP_SURF_NEIGHBOURS);
  CHECK(gp_surf_train(&d, 0, "time", kernels, NK, base, NAMES, NAMES_LEN, &o, &A, &m, &err) ==
        GP_OK);
  CHECK_EQ_INT(m->classifier, GP_SURF_NEIGHBOURS);
  CHECK_EQ_INT(m->refs, NK);
  for (j = 0, s = 0; j < GP_SURF_BANDWIDTHS; j++)
    s += m->setting.h2 == gp_surf_bandwidths[j];
  for (j = 0, k = 0; j < GP_SURF_PRIORS; j++)
    k += m->setting.lambda == gp_surf_priors[j];
  CHECK_EQ_INT(s, 1);
  CHECK_EQ_INT(k, 1);
  for (j = 0, s = 0; j < GP_SURF_RIDGES; j++)
    s += m->ridge == gp_surf_ridges[j];
  CHECK_EQ_INT(s, 1);
  /* 3 CU counts x 17 frequency values + 2 CU values */
  CHECK_EQ_INT(m->space, 53);
  CHECK_EQ_INT(gp_surf_space_dim(&d.grid), 53);
  {
    /* the map refitted by hand from the kernels' own log values, and every
     * reference its kernel's mapped counters */
    double x[NK * 4], y[NK * 53], w[5 * 53], at[53];
    for (k = 0; k < NK; k++) {
      const double *t = gp_surf_data_tensor(&d, 0, k);
      gp_minmax_apply(d.counters + ((size_t)k * 36 + gp_surf_config_index(&d.grid, 1, 2, 1)) * 4,
                      4, m->fmin, m->fmax, x + k * 4);
      for (s = 0; s < 3; s++) {
        gp_surf_freq_values(&d.grid, t, s, v);
        for (j = 0; j < 17; j++)
          y[k * 53 + s * 17 + j] = (1 / sqrt(53.0)) * log(v[j]);
      }
      gp_surf_cu_values(&d.grid, t, base[1], base[2], v);
      y[k * 53 + 51] = (1 / sqrt(53.0)) * log(v[0]);
      y[k * 53 + 52] = (1 / sqrt(53.0)) * log(v[1]);
    }
    CHECK(gp_ridge_fit(x, y, NK, 4, 53, NULL, m->ridge, &A, w, &err) == GP_OK);
    for (j = 0; j < 5 * 53; j++)
      CHECK(w[j] == m->map[j]);
    for (k = 0; k < NK; k++) {
      gp_ridge_apply(w, 4, 53, x + k * 4, at);
      for (j = 0; j < 53; j++)
        CHECK(at[j] == m->ref_points[k * 53 + j]);
    }
    /* a kernel's choice from the parts: weights at its mapped counters,
     * the prior, the least expected cost */
    for (k = 0; k < NK; k += 5) {
      double wt[NK], expected[3], prior;
      gp_ridge_apply(w, 4, 53, x + k * 4, at);
      prior = gp_nb_prior_weight(&m->setting, gp_nb_weights(m->ref_points, NK, 53, at,
                                                             m->setting.h2, NULL, 0, wt));
      gp_surf_classify(m, d.counters + ((size_t)k * 36 + gp_surf_config_index(&d.grid, 1, 2, 1)) *
                                           4, choice);
      for (s = 0; s < 4; s++)
        CHECK_EQ_INT(choice[s], gp_nb_choose(m->sets[s].costs, NK, 3, wt, prior, m->sets[s].prior,
                                             expected));
    }
  }
  /* the costs, recomputed: kernel 4 against every centroid of set 0 and
   * of the CU set; its own cluster costs (nearly) nothing */
  gp_surf_freq_values(&d.grid, gp_surf_data_tensor(&d, 0, 4), 0, own);
  for (j = 0; j < m->sets[0].k; j++)
    CHECK(m->sets[0].costs[4 * m->sets[0].k + j] ==
          gp_surf_set_cost(&d.grid, 0, base, own, m->sets[0].centroids + j * 17, scratch));
  CHECK(m->sets[0].costs[4 * m->sets[0].k + m->train_assign[4 * 4 + 0]] < 1e-12);
  gp_surf_cu_values(&d.grid, gp_surf_data_tensor(&d, 0, 4), base[1], base[2], v);
  CHECK(m->sets[3].costs[4 * 3 + 1] == gp_surf_set_cost(&d.grid, 3, base, v,
                                                         m->sets[3].centroids + 2, scratch));
  /* nearly every kernel's counters pick its own clusters (the linear map
   * brings a few kernels of the compute-bound and the mixed family close,
   * where a neighbour of the other family weighs as much), and the choice
   * errs little: below 2 % against the 1-cluster surface's 30 % and more */
  for (k = 0; k < NK; k++) {
    gp_surf_classify(m, d.counters + ((size_t)k * 36 + gp_surf_config_index(&d.grid, 1, 2, 1)) * 4,
                     choice);
    for (s = 0; s < 4; s++)
      hits += choice[s] == m->train_assign[k * 4 + s];
  }
  CHECK(hits >= NK * 4 * 9 / 10);
  {
    gp_surf_eval ev;
    CHECK(gp_surf_evaluate(m, &d, 0, kernels, NK, GP_SURF_CLASSIFIER, NULL, &ev, &err) == GP_OK);
    CHECK(ev.mean < 0.02);
  }
  gp_surf_model_free(m);
  gp_surf_data_free(&d);
}

/* gp_surf_set_cost by hand: a CU set of 3 CU counts (2 values) at base CU
 * index 1; factors to CU 0, 1, 2 are 1/cu[0], 1, cu[1]; the cost averages
 * |centroid factor / own factor - 1| over targets 0 and 2. */
static void test_set_cost_by_hand(void) {
  gp_surf_grid g;
  uint32_t base[3] = {1, 0, 0};
  double own[2] = {0.5, 0.8}, cent[2] = {0.4, 0.9}, scratch[16], want;
  small_grid(&g);
  want = (fabs((1 / 0.4) / (1 / 0.5) - 1) + fabs(0.9 / 0.8 - 1)) / 2;
  CHECK_NEAR(gp_surf_set_cost(&g, 3, base, own, cent, scratch), want, 1e-15);
  CHECK(gp_surf_set_cost(&g, 3, base, own, own, scratch) == 0);
}

static void test_batch(void) {
  gp_surf_data d;
  gp_surf_model *m;
  gp_surf_train_opts o;
  gp_error err;
  uint32_t kernels[NK], base[3] = {1, 1, 1}, targets[6] = {0, 0, 0, 2, 3, 2}, k;
  double counters[2 * 4], bases[2] = {2.0, 5.0}, out[4];
  family_dataset(&d);
  for (k = 0; k < NK; k++)
    kernels[k] = k;
  gp_surf_train_opts_default(&o);
  o.k = 3;
  CHECK(gp_surf_train(&d, 0, "time", kernels, NK, base, NAMES, NAMES_LEN, &o, &A, &m, &err) ==
        GP_OK);
  memcpy(counters, d.counters + 17 * 4, 4 * sizeof(double));
  memcpy(counters + 4, d.counters + ((size_t)1 * 36 + 17) * 4, 4 * sizeof(double));
  gp_surf_predict_batch(m, counters, bases, 2, targets, 2, out);
  for (k = 0; k < 2; k++) {
    CHECK(out[k * 2] == gp_surf_predict(m, counters + k * 4, bases[k], targets));
    CHECK(out[k * 2 + 1] == gp_surf_predict(m, counters + k * 4, bases[k], targets + 3));
  }
  gp_surf_model_free(m);
  gp_surf_data_free(&d);
}

int main(void) {
  A = gp_alloc_default();
  RUN(test_path_on_own_values);
  RUN(test_separable_transfer);
  RUN(test_train_families);
  RUN(test_oracle_by_hand);
  RUN(test_edges_and_errors);
  RUN(test_file_round_trip);
  RUN(test_version_1);
  RUN(test_version_2);
  RUN(test_neighbours);
  RUN(test_set_cost_by_hand);
  RUN(test_batch);
  return gp_test_finish();
}
