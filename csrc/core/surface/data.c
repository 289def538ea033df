/*
 * data.c -- the configuration grid and the dataset of Wu et al.'s models:
 * per kernel and configuration the modelled quantities (execution time,
 * power) and the counters (Table II).
 */
#include "surface.h"

#include <math.h>
#include <string.h>

static const char *const axis_names[3] = {"CU count", "engine clock", "memory clock"};

int gp_surf_grid_check(const gp_surf_grid *g, gp_error *err) {
  int a;
  uint32_t i;
  for (a = 0; a < 3; a++) {
    if (g->n[a] == 0 || g->n[a] > GP_SURF_MAX_AXIS)
      return gp_error_set(err, "surface: the %s axis has %u values (1 to %d expected)",
                          axis_names[a], (unsigned)g->n[a], GP_SURF_MAX_AXIS);
    for (i = 0; i < g->n[a]; i++) {
      double v = g->axis[a][i];
      if (!isfinite(v) || v <= 0)
        return gp_error_set(err, "surface: %s value %u is %g (a positive number expected)",
                            axis_names[a], (unsigned)i + 1, v);
      if (i > 0 && !(v > g->axis[a][i - 1]))
        return gp_error_set(err, "surface: %s values must be strictly ascending (%g after %g)",
                            axis_names[a], v, g->axis[a][i - 1]);
    }
  }
  return GP_OK;
}

size_t gp_surf_configs(const gp_surf_grid *g) {
  return (size_t)g->n[0] * g->n[1] * g->n[2];
}

size_t gp_surf_config_index(const gp_surf_grid *g, uint32_t c, uint32_t e, uint32_t m) {
  return ((size_t)c * g->n[GP_SURF_ENGINE] + e) * g->n[GP_SURF_MEMORY] + m;
}

int gp_surf_axis_find(const gp_surf_grid *g, int a, double value) {
  uint32_t i;
  for (i = 0; i < g->n[a]; i++)
    if (g->axis[a][i] == value)
      return (int)i;
  return -1;
}

int gp_surf_data_alloc(gp_surf_data *d, const gp_alloc *alloc, const gp_surf_grid *grid,
                       uint32_t kernels, uint32_t features, uint32_t quantities, gp_error *err) {
  size_t configs, nv, nc, i;
  memset(d, 0, sizeof *d);
  d->alloc = *alloc;
  if (gp_surf_grid_check(grid, err) != GP_OK)
    return GP_ERR;
  if (kernels == 0 || quantities == 0 || quantities > GP_SURF_MAX_QUANTITIES ||
      features > GP_SURF_MAX_FEATURES)
    return gp_error_set(err, "surface: a dataset needs kernels > 0, 1 to %d quantities and at "
                        "most %d features (got %u, %u, %u)", GP_SURF_MAX_QUANTITIES,
                        GP_SURF_MAX_FEATURES, (unsigned)kernels, (unsigned)quantities,
                        (unsigned)features);
  configs = gp_surf_configs(grid);
  if ((size_t)kernels > SIZE_MAX / sizeof(double) / configs / (features + quantities + 1))
    return gp_error_set(err, "surface: %u kernels x %zu configurations overflow",
                        (unsigned)kernels, configs);
  nv = (size_t)quantities * kernels * configs;
  nc = (size_t)kernels * configs * features;
  d->values = gp_malloc(alloc, nv * sizeof *d->values);
  d->counters = gp_malloc(alloc, (nc ? nc : 1) * sizeof *d->counters);
  if (!d->values || !d->counters) {
    gp_surf_data_free(d);
    return gp_error_set(err, "surface: out of memory for %u kernels x %zu configurations",
                        (unsigned)kernels, configs);
  }
  d->grid = *grid;
  d->kernels = kernels, d->features = features, d->quantities = quantities;
  memset(d->values, 0, nv * sizeof *d->values);
  for (i = 0; i < nc; i++)
    d->counters[i] = NAN;
  return GP_OK;
}

void gp_surf_data_free(gp_surf_data *d) {
  size_t configs = gp_surf_configs(&d->grid);
  size_t nc = (size_t)d->kernels * configs * d->features;
  gp_free(&d->alloc, d->values, (size_t)d->quantities * d->kernels * configs * sizeof *d->values);
  gp_free(&d->alloc, d->counters, (nc ? nc : 1) * sizeof *d->counters);
  d->values = d->counters = NULL;
  d->kernels = d->quantities = d->features = 0;
}

const double *gp_surf_data_tensor(const gp_surf_data *d, uint32_t quantity, uint32_t kernel) {
  return d->values + ((size_t)quantity * d->kernels + kernel) * gp_surf_configs(&d->grid);
}

int gp_surf_data_check(const gp_surf_data *d, gp_error *err) {
  size_t configs = gp_surf_configs(&d->grid), g;
  uint32_t q, k;
  for (q = 0; q < d->quantities; q++)
    for (k = 0; k < d->kernels; k++) {
      const double *t = gp_surf_data_tensor(d, q, k);
      for (g = 0; g < configs; g++)
        if (!isfinite(t[g]) || t[g] <= 0)
          return gp_error_set(err, "surface: quantity %u of kernel %u at configuration %zu is "
                              "%g (a positive number expected)", (unsigned)q + 1,
                              (unsigned)k + 1, g + 1, t[g]);
    }
  return GP_OK;
}
