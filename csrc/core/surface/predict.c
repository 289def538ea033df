/*
 * predict.c -- using a scaling-surface model (Wu et al., Sec. III-A and
 * III-D): classify a kernel's base counters once per set, scale its base
 * value by the chosen centroids along the path; and the evaluation of
 * Sec. V (mean relative error over kernels and targets, Fig. 14's bins).
 */
#include "num/minmax.h"
#include "num/ridge.h"
#include "surface.h"

#include <math.h>
#include <string.h>

/* The neighbour classifier: the normalised counters x mapped into the
 * scaling space, the reference kernels' weights there once (and the
 * prior's), then per set the cluster of least expected cost. */
static void classify_neighbours(const gp_surf_model *m, const double *x, uint32_t *choice) {
  double w[GP_SURF_MAX_REFS], expected[GP_SURF_MAX_K], at[GP_SURF_MAX_SPACE], prior_weight;
  uint32_t s;
  gp_ridge_apply(m->map, m->features, m->space, x, at);
  prior_weight = gp_nb_prior_weight(&m->setting, gp_nb_weights(m->ref_points, m->refs,
                                                                m->space, at, m->setting.h2,
                                                                NULL, 0, w));
  for (s = 0; s < m->nsets; s++)
    choice[s] = m->sets[s].k > 1 ? (uint32_t)gp_nb_choose(m->sets[s].costs, m->refs,
                                                           m->sets[s].k, w, prior_weight,
                                                           m->sets[s].prior, expected)
                                 : 0;
}

void gp_surf_classify(const gp_surf_model *m, const double *counters, uint32_t *choice) {
  double x[GP_SURF_MAX_FEATURES], scratch[2 * GP_SURF_MAX_K];
  uint32_t s;
  gp_minmax_apply(counters, m->features, m->fmin, m->fmax, x);
  if (m->classifier == GP_SURF_NEIGHBOURS) {
    classify_neighbours(m, x, choice);
    return;
  }
  for (s = 0; s < m->nsets; s++)
    choice[s] = m->sets[s].k > 1 ? (uint32_t)gp_nn_classify(&m->sets[s].net, x, scratch) : 0;
}

double gp_surf_factor(const gp_surf_model *m, const uint32_t *choice, const uint32_t target[3]) {
  const gp_surf_set *cu = &m->sets[m->nsets - 1];
  const gp_surf_set *freq = &m->sets[target[GP_SURF_CU]];
  return gp_surf_path(&m->grid, cu->centroids + (size_t)choice[m->nsets - 1] * cu->dim,
                      freq->centroids + (size_t)choice[target[GP_SURF_CU]] * freq->dim, m->base,
                      target);
}

double gp_surf_predict(const gp_surf_model *m, const double *counters, double base_value,
                       const uint32_t target[3]) {
  uint32_t choice[GP_SURF_MAX_AXIS + 1];
  gp_surf_classify(m, counters, choice);
  return base_value * gp_surf_factor(m, choice, target);
}

void gp_surf_predict_batch(const gp_surf_model *m, const double *counters,
                           const double *base_values, size_t n, const uint32_t *targets, size_t t,
                           double *out) {
  uint32_t choice[GP_SURF_MAX_AXIS + 1];
  size_t i, j;
  for (i = 0; i < n; i++) {
    gp_surf_classify(m, counters + i * m->features, choice);
    for (j = 0; j < t; j++)
      out[i * t + j] = base_values[i] * gp_surf_factor(m, choice, targets + 3 * j);
  }
}

static int same_grid(const gp_surf_grid *a, const gp_surf_grid *b) {
  int x;
  uint32_t i;
  for (x = 0; x < 3; x++) {
    if (a->n[x] != b->n[x])
      return 0;
    for (i = 0; i < a->n[x]; i++)
      if (a->axis[x][i] != b->axis[x][i])
        return 0;
  }
  return 1;
}

/* Per set, the centroid nearest the kernel's own scaling values of
 * quantity q (ties: the lower cluster). */
static void nearest_centroids(const gp_surf_model *m, const gp_surf_data *d, uint32_t q,
                              uint32_t kernel, uint32_t *choice) {
  double v[GP_SURF_MAX_AXIS * GP_SURF_MAX_AXIS * 2];
  const double *t = gp_surf_data_tensor(d, q, kernel);
  uint32_t s, c;
  size_t j;
  for (s = 0; s < m->nsets; s++) {
    const gp_surf_set *set = &m->sets[s];
    double best = 0;
    if (s + 1 < m->nsets)
      gp_surf_freq_values(&d->grid, t, s, v);
    else
      gp_surf_cu_values(&d->grid, t, m->base[GP_SURF_ENGINE], m->base[GP_SURF_MEMORY], v);
    choice[s] = 0;
    for (c = 0; c < set->k; c++) {
      double e = 0;
      for (j = 0; j < set->dim; j++) {
        double diff = v[j] - set->centroids[(size_t)c * set->dim + j];
        e += diff * diff;
      }
      if (c == 0 || e < best)
        best = e, choice[s] = c;
    }
  }
}

/* The kernel's clusters as `how` says. */
static int choose(const gp_surf_model *m, const gp_surf_data *d, uint32_t q, uint32_t kernel,
                  gp_surf_choice how, uint32_t *choice, gp_error *err) {
  size_t g = gp_surf_config_index(&d->grid, m->base[0], m->base[1], m->base[2]);
  const double *c;
  uint32_t i;
  if (how == GP_SURF_NEAREST) {
    nearest_centroids(m, d, q, kernel, choice);
    return GP_OK;
  }
  if (how == GP_SURF_ORACLE) {
    for (i = 0; i < m->trained; i++)
      if (m->train_kernels[i] == kernel) {
        memcpy(choice, m->train_assign + (size_t)i * m->nsets, m->nsets * sizeof *choice);
        return GP_OK;
      }
    return gp_error_set(err, "surface: the oracle classifier knows only training kernels; "
                        "kernel %u is not one", (unsigned)kernel + 1);
  }
  c = d->counters + ((size_t)kernel * gp_surf_configs(&d->grid) + g) * d->features;
  for (i = 0; i < d->features; i++)
    if (!isfinite(c[i]))
      return gp_error_set(err, "surface: kernel %u has no value of counter %u at the base "
                          "configuration (the classifier's input)", (unsigned)kernel + 1,
                          (unsigned)i + 1);
  gp_surf_classify(m, c, choice);
  return GP_OK;
}

static void add_error(gp_surf_eval *out, double e) {
  size_t bin = e >= 1 ? GP_SURF_BINS - 1 : (size_t)(e * 10);
  out->histogram[bin < GP_SURF_BINS ? bin : GP_SURF_BINS - 1]++;
  out->mean += e;
  if (e > out->max)
    out->max = e;
  out->count++;
}

int gp_surf_evaluate(const gp_surf_model *m, const gp_surf_data *d, uint32_t q,
                     const uint32_t *kernels, uint32_t n, gp_surf_choice how,
                     double *per_kernel, gp_surf_eval *out, gp_error *err) {
  uint32_t choice[GP_SURF_MAX_AXIS + 1], i, target[3];
  size_t base = gp_surf_config_index(&m->grid, m->base[0], m->base[1], m->base[2]);
  memset(out, 0, sizeof *out);
  if (!same_grid(&m->grid, &d->grid) || m->features != d->features)
    return gp_error_set(err, "surface: the dataset's grid or counters differ from the model's");
  if (q >= d->quantities)
    return gp_error_set(err, "surface: quantity %u of a dataset with %u", (unsigned)q + 1,
                        (unsigned)d->quantities);
  for (i = 0; i < n; i++) {
    const double *t;
    double sum = 0, base_value;
    uint64_t before = out->count;
    if (kernels[i] >= d->kernels)
      return gp_error_set(err, "surface: kernel %u of a dataset of %u", (unsigned)kernels[i] + 1,
                          (unsigned)d->kernels);
    if (choose(m, d, q, kernels[i], how, choice, err) != GP_OK)
      return GP_ERR;
    t = gp_surf_data_tensor(d, q, kernels[i]);
    base_value = t[base];
    for (target[0] = 0; target[0] < d->grid.n[0]; target[0]++)
      for (target[1] = 0; target[1] < d->grid.n[1]; target[1]++)
        for (target[2] = 0; target[2] < d->grid.n[2]; target[2]++) {
          size_t g = gp_surf_config_index(&d->grid, target[0], target[1], target[2]);
          double e;
          if (g == base)
            continue;
          e = fabs(base_value * gp_surf_factor(m, choice, target) - t[g]) / t[g];
          sum += e;
          add_error(out, e);
        }
    if (per_kernel)
      per_kernel[i] = out->count > before ? sum / (double)(out->count - before) : 0;
  }
  out->mean = out->count ? out->mean / (double)out->count : 0;
  return GP_OK;
}
