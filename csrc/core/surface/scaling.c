/*
 * scaling.c -- scaling values (Wu et al., Sec. III-B, Fig. 7 and 8) and the
 * path that applies them (Eq. 1 and the text after Fig. 8).
 */
#include "surface.h"

#include <math.h>

size_t gp_surf_freq_dim(const gp_surf_grid *g) {
  size_t ne = g->n[GP_SURF_ENGINE], nm = g->n[GP_SURF_MEMORY];
  return nm * (ne - 1) + ne * (nm - 1);
}

size_t gp_surf_cu_dim(const gp_surf_grid *g) { return g->n[GP_SURF_CU] - 1; }

/* Fig. 7(c) then 7(b): engine values (rows: memory clock; columns: engine
 * steps), then memory values (rows: engine clock; columns: memory steps);
 * each value is time(higher clock) / time(lower clock). */
void gp_surf_freq_values(const gp_surf_grid *g, const double *t, uint32_t c, double *out) {
  uint32_t ne = g->n[GP_SURF_ENGINE], nm = g->n[GP_SURF_MEMORY], r, k;
  for (r = 0; r < nm; r++)
    for (k = 0; k + 1 < ne; k++)
      *out++ = t[gp_surf_config_index(g, c, k + 1, r)] / t[gp_surf_config_index(g, c, k, r)];
  for (r = 0; r < ne; r++)
    for (k = 0; k + 1 < nm; k++)
      *out++ = t[gp_surf_config_index(g, c, r, k + 1)] / t[gp_surf_config_index(g, c, r, k)];
}

/* Fig. 8: one value per CU step at the base engine and memory clocks. */
void gp_surf_cu_values(const gp_surf_grid *g, const double *t, uint32_t e, uint32_t m,
                       double *out) {
  uint32_t k;
  for (k = 0; k + 1 < g->n[GP_SURF_CU]; k++)
    out[k] = t[gp_surf_config_index(g, k + 1, e, m)] / t[gp_surf_config_index(g, k, e, m)];
}

/* Walks one axis from index `from` to `to` over the values row[0..]:
 * multiplying by row[k] steps from k to k + 1, by 1 / row[k] from k + 1
 * back to k (the reciprocals of Sec. III-B). */
static double walk(const double *row, uint32_t from, uint32_t to) {
  double f = 1;
  uint32_t k;
  for (k = from; k < to; k++)
    f *= row[k];
  for (k = from; k > to; k--)
    f *= 1.0 / row[k - 1];
  return f;
}

double gp_surf_path(const gp_surf_grid *g, const double *cu, const double *freq,
                    const uint32_t base[3], const uint32_t target[3]) {
  uint32_t ne = g->n[GP_SURF_ENGINE], nm = g->n[GP_SURF_MEMORY];
  const double *engine = freq, *memory = freq + (size_t)nm * (ne - 1);
  double f = walk(cu, base[GP_SURF_CU], target[GP_SURF_CU]);
  /* engine values of the target CU count, along the base memory row */
  f *= walk(engine + (size_t)base[GP_SURF_MEMORY] * (ne - 1), base[GP_SURF_ENGINE],
            target[GP_SURF_ENGINE]);
  /* then memory values along the target engine row (Eq. 1's m_{3,i}) */
  f *= walk(memory + (size_t)target[GP_SURF_ENGINE] * (nm - 1), base[GP_SURF_MEMORY],
            target[GP_SURF_MEMORY]);
  return f;
}

void gp_surf_freq_factors(const gp_surf_grid *g, const double *freq, const uint32_t base[3],
                          double *out) {
  uint32_t ne = g->n[GP_SURF_ENGINE], nm = g->n[GP_SURF_MEMORY], e, m;
  const double *engine = freq, *memory = freq + (size_t)nm * (ne - 1);
  for (e = 0; e < ne; e++) {
    double fe = walk(engine + (size_t)base[GP_SURF_MEMORY] * (ne - 1), base[GP_SURF_ENGINE], e);
    for (m = 0; m < nm; m++)
      out[(size_t)e * nm + m] =
          fe * walk(memory + (size_t)e * (nm - 1), base[GP_SURF_MEMORY], m);
  }
}

void gp_surf_cu_factors(const gp_surf_grid *g, const double *cu, const uint32_t base[3],
                        double *out) {
  uint32_t c;
  for (c = 0; c < g->n[GP_SURF_CU]; c++)
    out[c] = walk(cu, base[GP_SURF_CU], c);
}

double gp_surf_set_cost(const gp_surf_grid *g, uint32_t s, const uint32_t base[3],
                        const double *own, const double *centroid, double *scratch) {
  size_t n, skip, i, count = 0;
  double *a, *b, sum = 0;
  if (s < g->n[GP_SURF_CU]) {
    n = (size_t)g->n[GP_SURF_ENGINE] * g->n[GP_SURF_MEMORY];
    a = scratch, b = scratch + n;
    gp_surf_freq_factors(g, own, base, a);
    gp_surf_freq_factors(g, centroid, base, b);
    skip = (size_t)base[GP_SURF_ENGINE] * g->n[GP_SURF_MEMORY] + base[GP_SURF_MEMORY];
  } else {
    n = g->n[GP_SURF_CU];
    a = scratch, b = scratch + n;
    gp_surf_cu_factors(g, own, base, a);
    gp_surf_cu_factors(g, centroid, base, b);
    skip = base[GP_SURF_CU];
  }
  for (i = 0; i < n; i++)
    if (i != skip) {
      sum += fabs(b[i] / a[i] - 1);
      count++;
    }
  return count ? sum / (double)count : 0;
}
