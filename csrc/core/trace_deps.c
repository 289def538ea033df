/*
 * trace_deps.c -- the register scoreboard pass that gives every warp
 * instruction the distances to all its producers (DESIGN.md, "The trace in
 * memory").
 *
 * One scoreboard per warp remembers, for R0..R254, the index of the last
 * instruction that wrote it and that instruction's class.  Each instruction
 * then gets the backward distance to every distinct last writer of its
 * sources (saturating at 65535; a producer further back than that is
 * pointed at 65535 instructions back), so a consumer waits for an SFU or
 * FP64 result two instructions back as well as for the ALU result just
 * before it.  gp_deps_pack keeps at most GP_DEPS of them: producers of one
 * fixed-latency class reduce to the nearest (issued later with the same
 * latency, it is never ready earlier), which is exact; only an instruction
 * with more than GP_DEPS producers of distinct classes or in memory loses
 * some, and the parser reports how many instructions did.
 *
 * Destinations expand to register ranges (the caller gives the count per
 * listed destination: 2 for .64 / IMAD.WIDE / FP64, 4 for .128); sources
 * are the registers listed (the second register of a 64-bit source is
 * written by the same instruction as the first in compiled code).  RZ
 * (R255) is never read or written.  Predicate (P0..P6) and uniform (UR*)
 * registers are not in Accel-Sim traces, so dependences through them are
 * invisible.
 */
#include "trace.h"

#include <string.h>

#define NO_WRITER UINT64_MAX

void gp_scoreboard_reset(gp_scoreboard *sb) {
  memset(sb->last_writer, 0xff, sizeof sb->last_writer);
  memset(sb->writer_class, 0, sizeof sb->writer_class);
}

/* Saturating backward distance from `inst` to `writer`. */
static uint16_t distance(uint64_t inst, uint64_t writer) {
  uint64_t d = inst - writer;
  return (uint16_t)(d > 65535 ? 65535 : d);
}

/* A class whose latency is the same at every execution. */
static int fixed_latency(int c) { return c < GP_OP_COMPUTE_COUNT || c == GP_OP_LD_CONST; }

/* Sorts n entries by writer index, nearest (largest) first; n is small. */
static void sort_nearest_first(uint64_t *w, uint8_t *c, int n) {
  int i, j;
  for (i = 1; i < n; i++) {
    uint64_t wi = w[i];
    uint8_t ci = c[i];
    for (j = i; j > 0 && w[j - 1] < wi; j--) {
      w[j] = w[j - 1];
      c[j] = c[j - 1];
    }
    w[j] = wi;
    c[j] = ci;
  }
}

/* gp_deps_pack's usual case, inlined into the scoreboard step: no
 * producer, or one (read once or twice).  0 (out untouched) otherwise. */
static inline int deps_pack_usual(uint64_t inst, const uint64_t *writer, const uint8_t *cls, int n,
                                  gp_dep *out) {
  if (n > 2 || (n == 2 && writer[0] != writer[1]))
    return 0;
  memset(out, 0, sizeof *out);
  if (n > 0) {
    out->dist[0] = distance(inst, writer[0]);
    out->loads = (uint8_t)(gp_op_is_load(cls[0]) != 0);
  }
  return 1;
}

/* gp_deps_pack for two or more distinct producers. */
static void deps_pack_many(uint64_t inst, const uint64_t *writer, const uint8_t *cls, int n,
                           gp_dep *out) {
  uint64_t w[32], kept_w[GP_DEPS];
  uint8_t c[32] = {0}, kept_c[GP_DEPS]; /* zeroed: cppcheck cannot see that c[j < m] is set */
  int m = 0, i, j, kept = 0, pass;
  memset(out, 0, sizeof *out);
  if (n > 32)
    n = 32;
  /* distinct writers; one per fixed-latency class (the nearest) */
  for (i = 0; i < n; i++) {
    int dup = 0;
    for (j = 0; j < m && !dup; j++) {
      if (w[j] == writer[i] || (fixed_latency(cls[i]) && c[j] == cls[i])) {
        if (writer[i] > w[j])
          w[j] = writer[i];
        dup = 1;
      }
    }
    if (!dup) {
      w[m] = writer[i];
      c[m++] = cls[i];
    }
  }
  sort_nearest_first(w, c, m);
  /* at most GP_DEPS: memory producers first, then the nearest others */
  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < m && kept < GP_DEPS; i++)
      if (fixed_latency(c[i]) == pass) {
        kept_w[kept] = w[i];
        kept_c[kept++] = c[i];
      }
  out->dropped = (uint8_t)(m - kept);
  sort_nearest_first(kept_w, kept_c, kept);
  for (i = 0, j = 0; i < kept; i++) {
    uint16_t d = distance(inst, kept_w[i]);
    if (j > 0 && out->dist[j - 1] == d) /* both saturated */
      continue;
    out->dist[j] = d;
    if (gp_op_is_load(kept_c[i]))
      out->loads |= (uint8_t)(1u << j);
    j++;
  }
}

void gp_deps_pack(uint64_t inst, const uint64_t *writer, const uint8_t *cls, int n,
                  gp_dep *out) {
  if (!deps_pack_usual(inst, writer, cls, n, out))
    deps_pack_many(inst, writer, cls, n, out);
}

/* The scoreboard step's usual case, one or two sources: their producers
 * read into registers, no arrays.  No producer, one, or one read twice is
 * packed here as deps_pack_usual does; two distinct producers go to
 * deps_pack_many.  Same result as the general step. */
static inline void sources_two(const gp_scoreboard *sb, uint64_t inst, const uint8_t *srcs,
                               int nsrc, gp_dep *out) {
  uint64_t w0 = NO_WRITER, w1 = NO_WRITER;
  uint8_t s0 = srcs[0], s1 = nsrc > 1 ? srcs[1] : GP_REG_RZ;
  if (s0 < GP_REG_RZ)
    w0 = sb->last_writer[s0];
  if (s1 < GP_REG_RZ)
    w1 = sb->last_writer[s1];
  memset(out, 0, sizeof *out);
  if (w0 == NO_WRITER) { /* the first producer, if any, is the second source's */
    w0 = w1;
    s0 = s1;
  } else if (w1 != NO_WRITER && w1 != w0) {
    uint64_t writer[2] = {w0, w1};
    uint8_t cls[2] = {sb->writer_class[s0], sb->writer_class[s1]};
    deps_pack_many(inst, writer, cls, 2, out);
    return;
  }
  if (w0 != NO_WRITER) {
    out->dist[0] = distance(inst, w0);
    out->loads = (uint8_t)(gp_op_is_load(sb->writer_class[s0]) != 0);
  }
}

/* The scoreboard step's producers for three or more sources (rare: kept
 * out of line so the usual step needs no arrays on its stack). */
static void sources_many(const gp_scoreboard *sb, uint64_t inst, const uint8_t *srcs, int nsrc,
                         gp_dep *out) {
  uint64_t writer[32];
  uint8_t cls[32];
  int i, n = 0;
  for (i = 0; i < nsrc && n < 32; i++) {
    uint8_t s = srcs[i];
    if (s >= GP_REG_RZ || sb->last_writer[s] == NO_WRITER)
      continue;
    writer[n] = sb->last_writer[s];
    cls[n++] = sb->writer_class[s];
  }
  if (!deps_pack_usual(inst, writer, cls, n, out))
    deps_pack_many(inst, writer, cls, n, out);
}

/* Reads the sources of instruction `inst` (an index that grows by one per
 * instruction of the warp), fills its producers, then makes it the last
 * writer of dests[i] .. dests[i] + dest_regs - 1 for every listed
 * destination. */
void gp_scoreboard_step(gp_scoreboard *sb, uint64_t inst, const uint8_t *srcs,
                        int nsrc, const uint8_t *dests, int ndest,
                        int dest_regs, int op_class, gp_dep *out) {
  int i, r;
  if (nsrc == 0)
    memset(out, 0, sizeof *out);
  else if (nsrc <= 2)
    sources_two(sb, inst, srcs, nsrc, out);
  else
    sources_many(sb, inst, srcs, nsrc, out);
  for (i = 0; i < ndest; i++) {
    for (r = dests[i]; r < dests[i] + dest_regs && r < GP_REG_RZ; r++) {
      sb->last_writer[r] = inst;
      sb->writer_class[r] = (uint8_t)op_class;
    }
  }
}

uint16_t gp_kernel_dep(const gp_kernel *k, uint64_t i) { return k->deps[i * GP_DEPS]; }

uint16_t gp_kernel_dep_load(const gp_kernel *k, uint64_t i) {
  int j;
  for (j = 0; j < GP_DEPS && k->deps[i * GP_DEPS + j] != 0; j++)
    if (k->flags[i] & GP_INST_LOAD(j))
      return k->deps[i * GP_DEPS + j];
  return 0;
}
