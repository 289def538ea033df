/*
 * train.c -- building a scaling-surface model (Wu et al., Sec. III-C and
 * III-D): cluster sets by k-means over the training kernels' scaling
 * values, centroids as the representative values, one classifier per set.
 */
#include "num/kmeans.h"
#include "num/minmax.h"
#include "num/neighbours.h"
#include "num/ridge.h"
#include "num/rng.h"
#include "surface.h"

#include <math.h>
#include <string.h>

/* From local (1e-5: log scaling values about 0.3 % apart on average; a
 * kernel's nearest relatives decide) to global (1e30: every training kernel
 * weighs the same). */
const double gp_surf_bandwidths[GP_SURF_BANDWIDTHS] = {1e-5, 3e-5, 1e-4, 3e-4, 1e-3,
                                                        3e-3, 0.01, 0.03, 0.1,  1e30};
/* The map's penalty on normalised counters (each in [0, 1]): from nearly
 * least squares to a map that leans on the mean. */
const double gp_surf_ridges[GP_SURF_RIDGES] = {1e-3, 0.01, 0.03, 0.1, 0.3, 1, 3, 10};
/* From none to a prior worth three references at the query's place. */
const double gp_surf_priors[GP_SURF_PRIORS] = {0, 0.03, 0.3, 3};

void gp_surf_train_opts_default(gp_surf_train_opts *o) {
  o->k = 12;
  o->seed = 1;
  o->restarts = 10;
  o->max_iter = 100;
  o->classifier = GP_SURF_NEIGHBOURS;
  o->groups = NULL;
  gp_nn_train_opts_default(&o->nn);
  o->nn.stop_when_separated = 1; /* the paper network's job is the argmax */
}

void gp_surf_model_free(gp_surf_model *m) {
  uint32_t s;
  if (!m)
    return;
  if (m->sets) {
    for (s = 0; s < m->nsets; s++) {
      gp_surf_set *set = &m->sets[s];
      gp_free(&m->alloc, set->centroids, ((size_t)set->k * set->dim + 1) * sizeof(double));
      gp_free(&m->alloc, set->costs, ((size_t)m->refs * set->k + 1) * sizeof(double));
      gp_free(&m->alloc, set->prior, ((size_t)set->k + 1) * sizeof(double));
      gp_nn_free(&set->net);
    }
    gp_free(&m->alloc, m->sets, m->nsets * sizeof *m->sets);
  }
  gp_free(&m->alloc, m->ref_points, ((size_t)m->refs * m->space + 1) * sizeof(double));
  gp_free(&m->alloc, m->map, ((size_t)(m->features + 1) * m->space + 1) * sizeof(double));
  gp_free(&m->alloc, m->names, m->names_len);
  gp_free(&m->alloc, m->fmin, (m->features + 1) * sizeof *m->fmin);
  gp_free(&m->alloc, m->fmax, (m->features + 1) * sizeof *m->fmax);
  gp_free(&m->alloc, m->train_kernels, (m->trained + 1) * sizeof *m->train_kernels);
  gp_free(&m->alloc, m->train_assign, ((size_t)m->trained * m->nsets + 1) *
          sizeof *m->train_assign);
  gp_free(&m->alloc, m, sizeof *m);
}

/* The number of NUL-terminated names in names[0..len). */
static uint32_t count_names(const char *names, size_t len) {
  uint32_t n = 0;
  size_t i;
  for (i = 0; i < len; i++)
    n += names[i] == '\0';
  return len > 0 && names[len - 1] == '\0' ? n : UINT32_MAX;
}

/* The i-th name of a NUL-separated list. */
static const char *name_at(const char *names, uint32_t i) {
  while (i-- > 0)
    names += strlen(names) + 1;
  return names;
}

gp_surf_model *gp_surf_model_new(const gp_alloc *alloc, const char *quantity,
                                 const gp_surf_grid *grid, const uint32_t base[3], uint32_t k,
                                 const char *names, size_t names_len, uint32_t features,
                                 uint32_t trained) {
  gp_surf_model *m = gp_malloc(alloc, sizeof *m);
  if (!m)
    return NULL;
  memset(m, 0, sizeof *m);
  m->alloc = *alloc;
  strncpy(m->quantity, quantity, sizeof m->quantity - 1);
  m->grid = *grid;
  memcpy(m->base, base, sizeof m->base);
  m->k = k;
  m->features = features;
  m->nsets = grid->n[GP_SURF_CU] + 1;
  m->trained = trained;
  m->names = gp_malloc(alloc, names_len);
  m->names_len = names_len;
  m->fmin = gp_malloc(alloc, (features + 1) * sizeof *m->fmin);
  m->fmax = gp_malloc(alloc, (features + 1) * sizeof *m->fmax);
  m->sets = gp_malloc(alloc, m->nsets * sizeof *m->sets);
  m->train_kernels = gp_malloc(alloc, (trained + 1) * sizeof *m->train_kernels);
  m->train_assign = gp_malloc(alloc, ((size_t)trained * m->nsets + 1) * sizeof *m->train_assign);
  if (m->sets)
    memset(m->sets, 0, m->nsets * sizeof *m->sets);
  if (!m->names || !m->fmin || !m->fmax || !m->sets || !m->train_kernels || !m->train_assign) {
    gp_surf_model_free(m);
    return NULL;
  }
  memcpy(m->names, names, names_len);
  m->classifier = GP_SURF_PAPER;
  return m;
}

int gp_surf_model_alloc_refs(gp_surf_model *m, uint32_t refs, uint32_t space) {
  m->refs = refs;
  m->space = space;
  m->ref_points = gp_malloc(&m->alloc, ((size_t)refs * space + 1) * sizeof(double));
  m->map = gp_malloc(&m->alloc, ((size_t)(m->features + 1) * space + 1) * sizeof(double));
  return m->ref_points && m->map ? GP_OK : GP_ERR;
}

size_t gp_surf_space_dim(const gp_surf_grid *g) {
  return g->n[GP_SURF_CU] * gp_surf_freq_dim(g) + gp_surf_cu_dim(g);
}

int gp_surf_set_prior(gp_surf_model *m, gp_surf_set *set) {
  set->prior = gp_malloc(&m->alloc, ((size_t)set->k + 1) * sizeof(double));
  if (!set->prior)
    return GP_ERR;
  gp_nb_mean_costs(set->costs, m->refs, set->k, set->prior);
  return GP_OK;
}

/* Set s's costs (refs x k) once its k is known; GP_ERR when out of memory. */
static int alloc_costs(gp_surf_model *m, gp_surf_set *set) {
  set->costs = gp_malloc(&m->alloc, ((size_t)m->refs * set->k + 1) * sizeof(double));
  return set->costs ? GP_OK : GP_ERR;
}

/* The set's scaling-value vectors of the training kernels (n x dim). */
static void set_vectors(const gp_surf_data *d, uint32_t q, const uint32_t *kernels, uint32_t n,
                        uint32_t s, const uint32_t base[3], size_t dim, double *v) {
  uint32_t i;
  for (i = 0; i < n; i++) {
    const double *t = gp_surf_data_tensor(d, q, kernels[i]);
    if (s < d->grid.n[GP_SURF_CU])
      gp_surf_freq_values(&d->grid, t, s, v + i * dim);
    else
      gp_surf_cu_values(&d->grid, t, base[GP_SURF_ENGINE], base[GP_SURF_MEMORY], v + i * dim);
  }
}

/* The neighbour classifier's costs of set s: for every training kernel
 * (its values v, n x dim) and cluster, gp_surf_set_cost. */
static int set_costs(gp_surf_model *m, uint32_t s, const double *v, size_t dim, uint32_t n,
                     gp_error *err) {
  gp_surf_set *set = &m->sets[s];
  double scratch[2 * GP_SURF_MAX_AXIS * GP_SURF_MAX_AXIS];
  uint32_t i, j;
  if (alloc_costs(m, set) != GP_OK)
    return gp_error_set(err, "surface: out of memory for the costs of %u kernels", (unsigned)n);
  for (i = 0; i < n; i++)
    for (j = 0; j < set->k; j++)
      set->costs[(size_t)i * set->k + j] =
          gp_surf_set_cost(&m->grid, s, m->base, v + (size_t)i * dim,
                           set->centroids + (size_t)j * dim, scratch);
  if (gp_surf_set_prior(m, set) != GP_OK)
    return gp_error_set(err, "surface: out of memory for a set's prior");
  return GP_OK;
}

/* Clusters one set (Sec. III-C) and trains its classifier on the
 * normalised base counters x (n x features): the paper's network (Sec.
 * III-D), or the neighbour classifier's costs (its setting is chosen once
 * every set has them, choose_setting). */
static int build_set(gp_surf_model *m, uint32_t s, const double *v, size_t dim, uint32_t n,
                     const double *x, const gp_surf_train_opts *opts, uint32_t *assign,
                     gp_error *err) {
  gp_surf_set *set = &m->sets[s];
  gp_km_opts km;
  gp_km_result r;
  gp_nn_train_result tr;
  uint32_t i;
  set->dim = (uint32_t)dim;
  set->k = dim == 0 ? 1 : (opts->k < n ? opts->k : n);
  set->centroids = gp_malloc(&m->alloc, ((size_t)set->k * dim + 1) * sizeof *set->centroids);
  if (!set->centroids) {
    set->k = 0;
    return gp_error_set(err, "surface: out of memory for %u centroids", (unsigned)opts->k);
  }
  if (dim == 0) { /* a single-valued axis: nothing scales, one cluster */
    for (i = 0; i < n; i++)
      assign[i] = 0;
    return GP_OK;
  }
  gp_km_opts_default(&km);
  km.k = set->k;
  km.seed = gp_rng_derive(opts->seed, s);
  km.restarts = opts->restarts;
  km.max_iter = opts->max_iter;
  km.normalise = 0; /* Euclidean on the raw ratios; centroids are their means */
  if (gp_km_fit(v, n, dim, &km, &m->alloc, assign, set->centroids, &r, err) != GP_OK)
    return GP_ERR;
  if (set->k == 1)
    return GP_OK;
  if (m->classifier == GP_SURF_NEIGHBOURS)
    return set_costs(m, s, v, dim, n, err);
  /* Fig. 9: K sigmoid hidden nodes, K sigmoid outputs */
  if (gp_nn_init(&set->net, &m->alloc, m->features, set->k, set->k,
                 gp_rng_derive(opts->seed, 1000 + s), err) != GP_OK)
    return GP_ERR;
  return gp_nn_train(&set->net, x, n, assign, &opts->nn, &tr, err);
}

/* The training kernels' base counters (n x features), min-max normalised
 * into x after fitting the model's range on them. */
static int base_features(gp_surf_model *m, const gp_surf_data *d, const uint32_t *kernels,
                         uint32_t n, double *raw, double *x, gp_error *err) {
  size_t g = gp_surf_config_index(&d->grid, m->base[0], m->base[1], m->base[2]);
  uint32_t i, j;
  for (i = 0; i < n; i++) {
    const double *c = d->counters + ((size_t)kernels[i] * gp_surf_configs(&d->grid) + g) *
                                        d->features;
    for (j = 0; j < d->features; j++) {
      if (!isfinite(c[j]))
        return gp_error_set(err, "surface: kernel %u has no value of counter '%s' at the base "
                            "configuration (the classifier's input)", (unsigned)kernels[i] + 1,
                            name_at(m->names, j));
      raw[(size_t)i * d->features + j] = c[j];
    }
  }
  gp_minmax_fit(raw, n, d->features, m->fmin, m->fmax);
  for (i = 0; i < n; i++)
    gp_minmax_apply(raw + (size_t)i * d->features, d->features, m->fmin, m->fmax,
                    x + (size_t)i * d->features);
  return GP_OK;
}

/* The neighbour classifier's setting: the candidate (every bandwidth with
 * every prior mass) of least leave-one-group-out loss over every set with
 * more than one cluster, each set's mean cost weighted by the targets it
 * serves (the CU set every target at another CU count, a frequency set
 * those at its CU count), so the loss approximates the model's own mean
 * error. */
static int choose_setting(gp_surf_model *m, const double *queries, const gp_surf_train_opts *opts,
                          gp_error *err) {
  gp_nb_table tables[GP_SURF_MAX_AXIS + 1];
  gp_nb_setting settings[GP_SURF_SETTINGS];
  size_t ntables = 0, best, b, p;
  uint32_t s, nc = m->grid.n[GP_SURF_CU];
  double per_cu = (double)m->grid.n[GP_SURF_ENGINE] * m->grid.n[GP_SURF_MEMORY];
  for (p = 0; p < GP_SURF_PRIORS; p++)
    for (b = 0; b < GP_SURF_BANDWIDTHS; b++) {
      settings[p * GP_SURF_BANDWIDTHS + b].h2 = gp_surf_bandwidths[b];
      settings[p * GP_SURF_BANDWIDTHS + b].lambda = gp_surf_priors[p];
    }
  for (s = 0; s < m->nsets; s++)
    if (m->sets[s].k > 1) {
      tables[ntables].costs = m->sets[s].costs;
      tables[ntables].classes = m->sets[s].k;
      tables[ntables].weight = s < nc ? per_cu - 1 : (nc - 1) * per_cu;
      ntables++;
    }
  m->setting = settings[GP_SURF_BANDWIDTHS - 1]; /* uniform, no prior */
  if (ntables == 0)
    return GP_OK;
  if (gp_nb_select(m->ref_points, queries, m->refs, m->space, opts->groups, tables, ntables,
                   settings, GP_SURF_SETTINGS, &m->alloc, NULL, &best, err) != GP_OK)
    return GP_ERR;
  m->setting = settings[best];
  return GP_OK;
}

/* Appends set s's scaling values of the n training kernels (v, n x dim)
 * to the scaling-space targets y (n x space, from column off) as logs
 * scaled by 1/sqrt(space): a squared distance in the space is then the
 * mean squared difference of log scaling values, whatever the grid. */
static void space_targets(const gp_surf_model *m, const double *v, size_t dim, uint32_t n,
                          size_t off, double *y) {
  double scale = 1 / sqrt((double)m->space);
  uint32_t i;
  size_t j;
  for (i = 0; i < n; i++)
    for (j = 0; j < dim; j++)
      y[(size_t)i * m->space + off + j] = scale * log(v[(size_t)i * dim + j]);
}

/* The neighbour classifier's scaling space: the ridge map from the
 * normalised counters x (n x features) to the kernels' scaling values y
 * (n x space), its penalty chosen by leave-one-group-out squared error;
 * the references are the training kernels' mapped counters, and queries
 * (n x space) each training kernel's counters mapped by the map fitted
 * without its group (where the setting's validation places it, as an
 * unseen kernel would be). */
static int build_space(gp_surf_model *m, const double *x, const double *y, uint32_t n,
                       const uint32_t *groups, double *queries, gp_error *err) {
  size_t best, i, F = m->features;
  if (gp_ridge_select(x, y, n, F, m->space, groups, gp_surf_ridges, GP_SURF_RIDGES, &m->alloc,
                      NULL, &best, err) != GP_OK)
    return GP_ERR;
  m->ridge = gp_surf_ridges[best];
  if (gp_ridge_fit(x, y, n, F, m->space, NULL, m->ridge, &m->alloc, m->map, err) != GP_OK ||
      gp_ridge_held_out(x, y, n, F, m->space, groups, m->ridge, &m->alloc, queries, err) !=
          GP_OK)
    return GP_ERR;
  for (i = 0; i < n; i++)
    gp_ridge_apply(m->map, F, m->space, x + i * F, m->ref_points + i * m->space);
  return GP_OK;
}

static int check_request(const gp_surf_data *d, uint32_t q, const char *quantity,
                         const uint32_t *kernels, uint32_t n, const uint32_t base[3],
                         const char *names, size_t names_len, const gp_surf_train_opts *opts,
                         gp_error *err) {
  uint32_t i;
  int a;
  if (q >= d->quantities)
    return gp_error_set(err, "surface: quantity %u of a dataset with %u", (unsigned)q + 1,
                        (unsigned)d->quantities);
  if (strlen(quantity) == 0 || strlen(quantity) >= sizeof(((gp_surf_model *)0)->quantity))
    return gp_error_set(err, "surface: a quantity name of 1 to 31 characters expected");
  if (n == 0)
    return gp_error_set(err, "surface: no training kernels");
  for (i = 0; i < n; i++)
    if (kernels[i] >= d->kernels)
      return gp_error_set(err, "surface: training kernel %u of a dataset of %u",
                          (unsigned)kernels[i] + 1, (unsigned)d->kernels);
  for (a = 0; a < 3; a++)
    if (base[a] >= d->grid.n[a])
      return gp_error_set(err, "surface: base configuration index %u outside the grid",
                          (unsigned)base[a] + 1);
  if (d->features == 0 || count_names(names, names_len) != d->features)
    return gp_error_set(err, "surface: %u feature names for %u features (at least one needed)",
                        (unsigned)count_names(names, names_len), (unsigned)d->features);
  if (opts->k == 0 || opts->k > GP_SURF_MAX_K)
    return gp_error_set(err, "surface: k = %u clusters (1 to %d expected)", (unsigned)opts->k,
                        GP_SURF_MAX_K);
  if (opts->classifier != GP_SURF_PAPER && opts->classifier != GP_SURF_NEIGHBOURS)
    return gp_error_set(err, "surface: classifier %u (1: paper, 2: neighbours expected)",
                        (unsigned)opts->classifier);
  if (opts->classifier == GP_SURF_NEIGHBOURS && n > GP_SURF_MAX_REFS)
    return gp_error_set(err, "surface: the neighbour classifier takes at most %d training kernels, "
                        "got %u (train on fewer, or with the paper's network)", GP_SURF_MAX_REFS,
                        (unsigned)n);
  if (opts->classifier == GP_SURF_NEIGHBOURS && gp_surf_space_dim(&d->grid) > GP_SURF_MAX_SPACE)
    return gp_error_set(err, "surface: the neighbour classifier's scaling space has %zu values on "
                        "this grid, at most %d allowed (use a smaller grid, or the paper's "
                        "network)", gp_surf_space_dim(&d->grid), GP_SURF_MAX_SPACE);
  return gp_surf_data_check(d, err);
}

int gp_surf_train(const gp_surf_data *d, uint32_t q, const char *quantity, const uint32_t *kernels,
                  uint32_t n, const uint32_t base[3], const char *names, size_t names_len,
                  const gp_surf_train_opts *opts, const gp_alloc *alloc, gp_surf_model **out,
                  gp_error *err) {
  gp_surf_model *m;
  size_t dim_max, raw_n, v_n, y_n = 1, off = 0;
  double *raw = NULL, *x = NULL, *v = NULL, *y = NULL, *queries = NULL;
  uint32_t s, i, *assign = NULL;
  int rc = GP_ERR;
  *out = NULL;
  if (check_request(d, q, quantity, kernels, n, base, names, names_len, opts, err) != GP_OK)
    return GP_ERR;
  m = gp_surf_model_new(alloc, quantity, &d->grid, base, opts->k, names, names_len, d->features,
                        n);
  if (!m)
    return gp_error_set(err, "surface: out of memory for a model");
  dim_max = gp_surf_freq_dim(&d->grid);
  if (gp_surf_cu_dim(&d->grid) > dim_max)
    dim_max = gp_surf_cu_dim(&d->grid);
  raw_n = (size_t)n * d->features;
  v_n = (size_t)n * dim_max + 1;
  raw = gp_malloc(alloc, raw_n * sizeof *raw);
  x = gp_malloc(alloc, raw_n * sizeof *x);
  v = gp_malloc(alloc, v_n * sizeof *v);
  assign = gp_malloc(alloc, n * sizeof *assign);
  if (!raw || !x || !v || !assign) {
    gp_error_set(err, "surface: out of memory training on %u kernels", (unsigned)n);
    goto done;
  }
  memcpy(m->train_kernels, kernels, n * sizeof *kernels);
  if (base_features(m, d, kernels, n, raw, x, err) != GP_OK)
    goto done;
  m->classifier = opts->classifier;
  if (m->classifier == GP_SURF_NEIGHBOURS) {
    uint32_t space = (uint32_t)gp_surf_space_dim(&d->grid);
    y_n = (size_t)n * space + 1;
    y = gp_malloc(alloc, y_n * sizeof *y);
    queries = gp_malloc(alloc, y_n * sizeof *queries);
    if (!y || !queries || gp_surf_model_alloc_refs(m, n, space) != GP_OK) {
      gp_error_set(err, "surface: out of memory for %u reference kernels", (unsigned)n);
      goto done;
    }
  }
  for (s = 0; s < m->nsets; s++) {
    size_t dim = s < d->grid.n[GP_SURF_CU] ? gp_surf_freq_dim(&d->grid)
                                           : gp_surf_cu_dim(&d->grid);
    set_vectors(d, q, kernels, n, s, base, dim, v);
    if (y)
      space_targets(m, v, dim, n, off, y);
    off += dim;
    if (build_set(m, s, v, dim, n, x, opts, assign, err) != GP_OK)
      goto done;
    for (i = 0; i < n; i++)
      m->train_assign[(size_t)i * m->nsets + s] = assign[i];
  }
  if (m->classifier == GP_SURF_NEIGHBOURS &&
      (build_space(m, x, y, n, opts->groups, queries, err) != GP_OK ||
       choose_setting(m, queries, opts, err) != GP_OK))
    goto done;
  *out = m;
  m = NULL;
  rc = GP_OK;
done:
  gp_free(alloc, raw, raw_n * sizeof *raw);
  gp_free(alloc, x, raw_n * sizeof *x);
  gp_free(alloc, v, v_n * sizeof *v);
  gp_free(alloc, assign, n * sizeof *assign);
  gp_free(alloc, y, y_n * sizeof *y);
  gp_free(alloc, queries, y_n * sizeof *queries);
  gp_surf_model_free(m);
  return rc;
}
