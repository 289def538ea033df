/*
 * minmax.c -- min-max normalisation with clamping (Wu et al., Sec. III-D).
 */
#include "minmax.h"

#include <math.h>

void gp_minmax_fit(const double *x, size_t n, size_t d, double *min, double *max) {
  size_t i, j;
  for (j = 0; j < d; j++) {
    int seen = 0;
    min[j] = max[j] = 0;
    for (i = 0; i < n; i++) {
      double v = x[i * d + j];
      if (!isfinite(v))
        continue;
      if (!seen || v < min[j])
        min[j] = v;
      if (!seen || v > max[j])
        max[j] = v;
      seen = 1;
    }
  }
}

void gp_minmax_apply(const double *x, size_t d, const double *min, const double *max,
                     double *out) {
  size_t j;
  for (j = 0; j < d; j++) {
    double span = max[j] - min[j], v = x[j];
    if (!(span > 0) || !isfinite(v)) {
      out[j] = 0;
      continue;
    }
    v = (v - min[j]) / span;
    out[j] = v < 0 ? 0 : (v > 1 ? 1 : v);
  }
}
