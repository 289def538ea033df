/*
 * rng.h -- the seeded generator every numeric routine uses: splitmix64
 * (Steele, Lea and Flood, OOPSLA 2014), small and well mixed.  The state
 * belongs to the caller, so there is no global and the same seed gives the
 * same stream on every machine.
 */
#ifndef GP_RNG_H
#define GP_RNG_H

#include <stddef.h>
#include <stdint.h>

/* The next 64 random bits; advances *state. */
static inline uint64_t gp_rng_next(uint64_t *state) {
  uint64_t x = (*state += 0x9e3779b97f4a7c15ull);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* A uniform double in [0, 1) from the top 53 bits. */
static inline double gp_rng_uniform(uint64_t *state) {
  return (double)(gp_rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* A uniform index in [0, n): floor(u x n) with u in [0, 1). */
static inline size_t gp_rng_index(uint64_t *state, size_t n) {
  size_t i = (size_t)(gp_rng_uniform(state) * (double)n);
  return i < n ? i : n - 1;
}

/* A seed derived from a base seed and a stream number (one per cluster set,
 * restart or network), well separated for neighbouring numbers. */
static inline uint64_t gp_rng_derive(uint64_t seed, uint64_t stream) {
  uint64_t s = seed ^ (stream * 0xd1b54a32d192ed03ull);
  return gp_rng_next(&s);
}

#endif
