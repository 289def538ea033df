/*
 * minmax.h -- per-feature min-max normalisation to [0, 1] (Wu et al., Sec.
 * III-D: the training set's minimum and maximum of each feature are stored
 * and reused for every later input).
 */
#ifndef GP_MINMAX_H
#define GP_MINMAX_H

#include <stddef.h>

/* The minimum and maximum of each of d features over n rows (x: n x d,
 * row-major).  Non-finite values are skipped; a feature with no finite
 * value gets min = max = 0. */
void gp_minmax_fit(const double *x, size_t n, size_t d, double *min, double *max);

/* out[j] = (x[j] - min[j]) / (max[j] - min[j]), clamped to [0, 1] (a value
 * outside the training range maps to its nearer end); a feature with
 * max == min, and a non-finite value, maps to 0. */
void gp_minmax_apply(const double *x, size_t d, const double *min, const double *max,
                     double *out);

#endif
