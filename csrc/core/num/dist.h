/*
 * dist.h -- the squared Euclidean distance the clustering (kmeans.c) and the
 * neighbour classifier (neighbours.c) share: summed in index order, so both
 * give the same bits for the same points.
 */
#ifndef GP_DIST_H
#define GP_DIST_H

#include <stddef.h>

static inline double gp_dist2(const double *a, const double *b, size_t dim) {
  double s = 0;
  size_t j;
  for (j = 0; j < dim; j++) {
    double diff = a[j] - b[j];
    s += diff * diff;
  }
  return s;
}

#endif
