/*
 * trace_deps.c -- the register scoreboard pass that gives every warp
 * instruction its dependence distances (DESIGN.md, "The trace in memory").
 *
 * One scoreboard per warp remembers, for R0..R254, the index of the last
 * instruction that wrote it and whether that writer was a load.  Each
 * instruction then gets
 *   dep      = distance back to the nearest producer of any source register,
 *   dep_load = distance back to the nearest producer that is a load,
 * both saturating at 65535 (0 = no producer in this warp), and the
 * GP_INST_DEP_ON_LOAD flag when the nearest producer is a load.
 *
 * Destinations expand to register ranges (the caller gives the count per
 * listed destination: 2 for .64 / IMAD.WIDE / FP64, 4 for .128); RZ (R255)
 * is never read or written.  Predicate (P0..P6) and uniform (UR*) registers
 * are not in Accel-Sim traces, so dependences through them are invisible.
 */
#include "trace.h"

#include <string.h>

#define NO_WRITER UINT64_MAX

void gp_scoreboard_reset(gp_scoreboard *sb) {
  memset(sb->last_writer, 0xff, sizeof sb->last_writer);
  memset(sb->writer_is_load, 0, sizeof sb->writer_is_load);
}

/* Saturating backward distance from `inst` to `writer`. */
static uint16_t distance(uint64_t inst, uint64_t writer) {
  uint64_t d = inst - writer;
  return (uint16_t)(d > 65535 ? 65535 : d);
}

/* Reads the sources of instruction `inst` (an index that grows by one per
 * instruction of the warp), fills its dependence fields, then makes it the
 * last writer of dests[i] .. dests[i] + dest_regs - 1 for every listed
 * destination. */
void gp_scoreboard_step(gp_scoreboard *sb, uint64_t inst, const uint8_t *srcs,
                        int nsrc, const uint8_t *dests, int ndest,
                        int dest_regs, int is_load, gp_dep *out) {
  uint64_t nearest = NO_WRITER, nearest_load = NO_WRITER;
  int near_is_load = 0, i, r;
  for (i = 0; i < nsrc; i++) {
    uint8_t s = srcs[i];
    uint64_t w;
    if (s >= GP_REG_RZ)
      continue;
    w = sb->last_writer[s];
    if (w == NO_WRITER)
      continue;
    /* Larger index = nearer; ties: a load among equals counts. */
    if (nearest == NO_WRITER || w > nearest) {
      nearest = w;
      near_is_load = sb->writer_is_load[s];
    } else if (w == nearest && sb->writer_is_load[s]) {
      near_is_load = 1;
    }
    if (sb->writer_is_load[s] && (nearest_load == NO_WRITER || w > nearest_load))
      nearest_load = w;
  }
  out->dep = nearest == NO_WRITER ? 0 : distance(inst, nearest);
  out->dep_load = nearest_load == NO_WRITER ? 0 : distance(inst, nearest_load);
  out->on_load = (uint8_t)near_is_load;
  for (i = 0; i < ndest; i++) {
    for (r = dests[i]; r < dests[i] + dest_regs && r < GP_REG_RZ; r++) {
      sb->last_writer[r] = inst;
      sb->writer_is_load[r] = (uint8_t)(is_load != 0);
    }
  }
}
