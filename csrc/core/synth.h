/*
 * synth.h -- synthetic kernels: a loop body of instruction classes, run by
 * every warp a given number of times, with memory streams; optionally a
 * prologue before the loop and an epilogue after it (a compiled kernel's
 * set-up and tail, as in the microbenchmarks gpush ships).
 *
 * A synthetic kernel is the same gp_kernel a trace gives, so every model
 * reads it the same way.  Generation is deterministic for a seed: the same
 * description always gives the same kernel, bit for bit.
 */
#ifndef GP_SYNTH_H
#define GP_SYNTH_H

#include "trace.h"

/* How a memory stream forms each lane's address. */
typedef enum gp_stream_kind {
  GP_STREAM_COALESCED, /* consecutive lanes, consecutive elements */
  GP_STREAM_STRIDED,   /* lane i at i x stride bytes */
  GP_STREAM_RANDOM,    /* uniform random element in the footprint */
  GP_STREAM_CHASE,     /* one random address per warp (pointer chasing) */
  GP_STREAM_SHARED     /* shared-memory tile, lane i at i x stride bytes */
} gp_stream_kind;

typedef struct gp_synth_stream {
  gp_stream_kind kind;
  uint64_t base;       /* first byte (global streams) */
  uint64_t footprint;  /* bytes the stream wraps around in (> 0) */
  uint32_t stride;     /* bytes between lanes (STRIDED, SHARED) */
  uint32_t reuse;      /* iterations that revisit the same addresses (>= 1) */
} gp_synth_stream;

/* One instruction of the loop body. */
typedef struct gp_synth_op {
  uint8_t op_class; /* gp_op_class */
  uint8_t width;    /* bytes per lane for memory classes (1..16) */
  uint8_t stream;   /* memory stream index */
  uint8_t active;   /* active lanes (1..32; 0 means all) */
  uint16_t dep[GP_DEPS]; /* distances back to its producers in the dynamic
                       stream (0: none; entries after the first 0 are
                       ignored); loop-carried when one reaches before the
                       body's start */
} gp_synth_op;

#define GP_SYNTH_MAX_BODY 4096
#define GP_SYNTH_MAX_STREAMS 16

typedef struct gp_synth_desc {
  char name[128];
  uint32_t grid[3], block[3];
  uint32_t regs;            /* registers per thread */
  uint32_t shmem;           /* shared bytes per block */
  const gp_synth_op *body;
  uint32_t body_len;
  const gp_synth_op *prologue; /* run once before the loop (may be NULL) */
  uint32_t prologue_len;       /* 0 .. GP_SYNTH_MAX_BODY */
  const gp_synth_op *epilogue; /* run once after the loop, before EXIT */
  uint32_t epilogue_len;       /* 0 .. GP_SYNTH_MAX_BODY */
  uint32_t trips;           /* loop trips of every warp */
  uint32_t trip_spread;     /* control divergence: warp w runs trips + a
                               seeded draw in [0, trip_spread] extra trips */
  const gp_synth_stream *streams;
  uint32_t stream_count;
  uint64_t seed;
  int binary_version;       /* for opcode names (default 80) */
} gp_synth_desc;

/* Generates the kernel; checks the description (ranges, stream indices,
 * memory classes, size limits) and reports the first problem. */
int gp_synth_generate(gp_kernel **out, const gp_alloc *alloc,
                      const gp_synth_desc *desc, gp_error *err);

/* The SASS opcode text gpush writes for a class (e.g. "FFMA", "LDG.E"). */
const char *gp_synth_opcode(int op_class, int width);

#endif
