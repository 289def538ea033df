/*
 * fexp.h -- exp(x) computed here rather than by the C library, so results
 * that go through it (trained network weights, neighbour weights) do not
 * depend on which libm (or which of its CPU-specific variants) a machine
 * has.
 */
#ifndef GP_FEXP_H
#define GP_FEXP_H

#include <stdint.h>
#include <string.h>

/* x = k ln 2 + r with |r| <= ln 2 / 2 (ln 2 split in two parts
 * so k ln 2 is exact), exp(r) by its Taylor polynomial to degree 13 in
 * Horner form (truncation below 1e-17 relative), times 2^k built from its
 * exponent bits (x is held to [-708, 708], where 2^k stays normal). */
static inline double gp_exp_fixed(double x) {
  static const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  static const double c[14] = {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720,
                               1.0 / 5040, 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800,
                               1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0};
  double r, p, scale;
  long k;
  uint64_t bits;
  int i;
  x = x > 708 ? 708 : (x < -708 ? -708 : x);
  k = (long)(x * 1.44269504088896338700 + (x >= 0 ? 0.5 : -0.5));
  r = (x - (double)k * ln2_hi) - (double)k * ln2_lo;
  p = c[13];
  for (i = 12; i >= 0; i--)
    p = p * r + c[i];
  bits = (uint64_t)(k + 1023) << 52;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

#endif
