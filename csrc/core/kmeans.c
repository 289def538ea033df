/*
 * kmeans.c -- the representative warp (GPUMech Sec. III-C, Eq. 6).
 */
#include "gpumech.h"

#include <string.h>

static uint64_t splitmix(uint64_t *state) {
  uint64_t x = (*state += 0x9e3779b97f4a7c15ull);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* A uniform draw in [0, 1). */
static double uniform(uint64_t *state) { return (double)(splitmix(state) >> 11) / 9007199254740992.0; }

static double dist2(const double *a, const double *b, size_t d) {
  double s = 0;
  size_t i;
  for (i = 0; i < d; i++)
    s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

int64_t gp_kmeans_representative(const double *raw, size_t n, size_t d, size_t k,
                                 uint64_t seed, const gp_alloc *alloc, uint32_t *assign_out) {
  double *x, *centre, *nearest;
  uint32_t *assign, *size;
  size_t i, j, c, iter, best_cluster = 0;
  uint64_t state = seed;
  int64_t best = -1;
  double best_d = 0;
  if (n == 0 || d == 0)
    return -1;
  if (k > n)
    k = n;
  if (k == 0)
    k = 1;
  x = gp_malloc(alloc, n * d * sizeof *x);
  centre = gp_malloc(alloc, k * d * sizeof *centre);
  nearest = gp_malloc(alloc, n * sizeof *nearest);
  assign = gp_malloc(alloc, n * sizeof *assign);
  size = gp_malloc(alloc, k * sizeof *size);
  if (!x || !centre || !nearest || !assign || !size)
    goto done;
  /* Eq. 6: each feature divided by its mean (a zero mean leaves zeros) */
  for (j = 0; j < d; j++) {
    double mean = 0;
    for (i = 0; i < n; i++)
      mean += raw[i * d + j];
    mean /= (double)n;
    for (i = 0; i < n; i++)
      x[i * d + j] = mean != 0 ? raw[i * d + j] / mean : 0;
  }
  /* k-means++: the first centre by a seeded draw, each next one with
   * probability proportional to D^2 (the farthest point when all D^2 = 0
   * would divide by zero: then the lowest-index point not yet a centre) */
  memcpy(centre, x + (splitmix(&state) % n) * d, d * sizeof *centre);
  for (i = 0; i < n; i++)
    nearest[i] = dist2(x + i * d, centre, d);
  for (c = 1; c < k; c++) {
    double total = 0, pick, acc = 0;
    size_t chosen = 0;
    for (i = 0; i < n; i++)
      total += nearest[i];
    if (total > 0) {
      pick = uniform(&state) * total;
      for (i = 0; i < n; i++) {
        acc += nearest[i];
        if (acc > pick) {
          chosen = i;
          break;
        }
        chosen = i;
      }
    }
    memcpy(centre + c * d, x + chosen * d, d * sizeof *centre);
    for (i = 0; i < n; i++) {
      double e = dist2(x + i * d, centre + c * d, d);
      if (e < nearest[i])
        nearest[i] = e;
    }
  }
  /* Lloyd iterations */
  for (i = 0; i < n; i++)
    assign[i] = UINT32_MAX;
  for (iter = 0; iter < 100; iter++) {
    int changed = 0;
    for (i = 0; i < n; i++) {
      uint32_t a = 0;
      double e = dist2(x + i * d, centre, d);
      for (c = 1; c < k; c++) {
        double f = dist2(x + i * d, centre + c * d, d);
        if (f < e) { /* ties keep the lower cluster */
          e = f;
          a = (uint32_t)c;
        }
      }
      changed |= assign[i] != a;
      assign[i] = a;
    }
    if (!changed)
      break;
    for (c = 0; c < k; c++) {
      size_t members = 0;
      double *mc = centre + c * d;
      memset(mc, 0, d * sizeof *mc);
      for (i = 0; i < n; i++) {
        if (assign[i] != c)
          continue;
        members++;
        for (j = 0; j < d; j++)
          mc[j] += x[i * d + j];
      }
      for (j = 0; j < d && members > 0; j++)
        mc[j] /= (double)members;
    }
  }
  /* the largest cluster, then its point nearest the centre */
  memset(size, 0, k * sizeof *size);
  for (i = 0; i < n; i++)
    size[assign[i]]++;
  for (c = 1; c < k; c++)
    if (size[c] > size[best_cluster])
      best_cluster = c;
  for (i = 0; i < n; i++) {
    double e;
    if (assign[i] != best_cluster)
      continue;
    e = dist2(x + i * d, centre + best_cluster * d, d);
    if (best < 0 || e < best_d) {
      best = (int64_t)i;
      best_d = e;
    }
  }
  if (assign_out)
    memcpy(assign_out, assign, n * sizeof *assign);
done:
  gp_free(alloc, x, n * d * sizeof *x);
  gp_free(alloc, centre, k * d * sizeof *centre);
  gp_free(alloc, nearest, n * sizeof *nearest);
  gp_free(alloc, assign, n * sizeof *assign);
  gp_free(alloc, size, k * sizeof *size);
  return best;
}
