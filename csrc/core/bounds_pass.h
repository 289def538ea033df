/*
 * bounds_pass.h -- gp_bounds_count's pass over a kernel in parts, for a
 * walk over each warp that does other work in the same steps (GPUMech's
 * pass over every warp, gpumech/gpumech.c: one walk gives both).  Private
 * to the C core: bounds.c and the walk include it, nothing else.
 *
 *   gp_bounds_pass_begin    the tables, the lines' hard counts and every
 *                           count but the paths and the LSU sums
 *   gp_bounds_path_start    a warp's path from its first instruction
 *   gp_bounds_path_step     one instruction on it (inline: the walk's loop)
 *   gp_bounds_pass_finish   the block totals from every warp's path (set in
 *                           pass->paths) and the replay's totals; frees
 *   gp_bounds_pass_free     frees (after an error)
 * A warp's LSU cycles and bank passes go into out->lsu_cycles and
 * out->shared_passes in warp order, each warp's in program order, as
 * gp_bounds_count adds them (the same sums, bit for bit).
 */
#ifndef GP_BOUNDS_PASS_H
#define GP_BOUNDS_PASS_H

#include "bounds.h"

/* Dependence distances are uint16_t, so a ring of 65,536 result-ready
 * cycles holds every producer an instruction can name. */
#define GP_BOUNDS_RING ((uint64_t)UINT16_MAX + 1)

/* What the dependence path needs of an instruction's class, looked up once
 * per pass instead of through the class predicates per instruction.  The
 * latency of a class that skips the caches is its PC's (pc_lat, from the
 * static instruction's class). */
enum { GP_BOUNDS_LAT_PC, GP_BOUNDS_LAT_FLOOR, GP_BOUNDS_LAT_STORE };
typedef struct gp_bounds_class {
  double busy;    /* unit_busy */
  double hit;     /* memory_floor's latency of a line another request touches */
  int8_t unit;    /* gp_machine_op_unit */
  uint8_t lat;    /* LAT_PC: pc_lat; LAT_FLOOR: memory_floor; LAT_STORE: 0 */
  uint8_t cached; /* gp_op_uses_cache */
  uint8_t shared; /* gp_op_is_shared */
} gp_bounds_class;

/* A tagged request's key when the bits of its index in k->lines, its warp,
 * its role and the span of the kernel's lines (highest less lowest) fit in
 * 64 together (the suite's and the shared traces' launches take 2-37 bits
 * for the first three) and no entry of k->lines is requested twice: from
 * the low bits, its index in k->lines (entry_bits), its warp (warp_bits),
 * its ROLE_* (2 bits), and from bit `line_shift` its line less the
 * kernel's lowest.  The sort then moves one word a request and the hard
 * counts read the warp and role from the key instead of from two arrays
 * indexed by entry, a cache miss each in line order. */
typedef struct gp_bounds_pack {
  int on;                  /* 0: tagged holds lines, entry/role_of/warp_of the rest */
  unsigned entry_bits, warp_bits, line_shift;
  uint64_t line_base;      /* the kernel's lowest line */
} gp_bounds_pack;

/* What a pass over the kernel keeps. */
typedef struct gp_bounds_pass {
  const gp_kernel *k;
  const gp_machine *m;
  const gp_alloc *alloc;
  const gp_memsim_result *replay; /* its totals go into the counts at the end */
  gp_timed_config mem;  /* the memory the simulator has (machine.h) */
  double *pc_lat;    /* per static PC: latency of the classes that skip the caches */
  uint64_t *tagged;  /* the line of every cache-using request, sorted (stably: a line's
                        requests stay in warp order, each warp's in program order);
                        packed: the request's key (gp_bounds_pack) */
  uint32_t *entry;   /* unpacked: each tagged request's index in k->lines, sorted along */
  uint8_t *role_of;  /* unpacked: per index in k->lines, its request's ROLE_* */
  uint32_t *warp_of; /* unpacked: per index in k->lines, its warp */
  uint64_t *tmp;     /* the sort's scratch: keys, then (unpacked) entries */
  uint64_t tagged_count, cap;
  gp_bounds_pack pack;
  uint8_t *shared;   /* per index in k->lines: whether another request touches its line */
  double *done;      /* two rings of result-ready cycles (two warps at a time) */
  double *paths;     /* per warp: its dependence path */
  double *lsu_held;  /* the second warp's LSU cycles and bank passes, pairwise */
  uint64_t max_len;  /* the longest warp's instructions */
  gp_bounds_counts *out;
  double cold;       /* memory_floor's latency of a line no other request touches */
  gp_bounds_class facts[GP_OP_CLASS_COUNT];
  double fill_of[256]; /* per sector mask: gp_timed_fill_bytes */
  double held_of[256]; /* per sector mask: its sectors' bytes (32 x gp_sector_count) */
} gp_bounds_pass;

/* Everything of gp_bounds_count's pass but the warps' paths: *q set up
 * (its rings, q->paths for every warp), *out zeroed and filled but for the
 * paths' counts and the LSU sums.  GP_ERR as gp_bounds_count (nothing is
 * left allocated). */
int gp_bounds_pass_begin(gp_bounds_pass *q, const gp_kernel *k, const gp_machine *m,
                         uint32_t blocks_per_sm, const gp_memsim_result *mem,
                         const gp_alloc *alloc, gp_bounds_counts *out, gp_error *err);
/* The block totals from q->paths (every warp's path set) and the replay's
 * totals into the counts; frees what begin allocated. */
void gp_bounds_pass_finish(gp_bounds_pass *q);
void gp_bounds_pass_free(gp_bounds_pass *q);

/* Instruction i's latency on the dependence path when its class uses the
 * caches: the least the timed memory can return it in under any
 * interleaving of the warps.  Stores 0 (done once accepted); an instruction
 * without a request (every lane off, as predicated loads often are) 1, as
 * the simulator completes it; otherwise the slowest of its requests' floors:
 * a line no other request touches must come from DRAM (L2 + DRAM latency),
 * another may hit in L1 (classes L1 caches) or L2 (when there are caches).  The per-PC mean (AMAT)
 * is no floor: the longest warp's loads may hit more often than the PC's
 * average over all warps (bfs on gtx660ti, docs/bounds.md).  Stores are
 * priced 0 by their class (gp_bounds_class); `hit` is the class's class_hit
 * (bounds.c).  Inline: the walk's loop calls it for every load. */
static inline double gp_bounds_memory_floor(const gp_bounds_pass *q, uint64_t i, double hit) {
  const gp_kernel *k = q->k;
  uint32_t rec = k->mem[i], j;
  const gp_mem_record *r;
  double worst = 1;
  if (rec == UINT32_MAX || k->mem_records[rec].line_count == 0)
    return 1;
  r = &k->mem_records[rec];
  for (j = 0; j < r->line_count; j++) {
    double floor = q->shared[r->line_start + j] ? hit : q->cold;
    if (floor > worst)
      worst = floor;
  }
  return worst;
}

/* A shared-memory instruction's LSU occupancy and bank passes (bounds.c). */
double gp_bounds_shared_cycles(const gp_bounds_pass *q, uint64_t i, double *passes_out,
                               double *lat);

/* Instruction i's LSU occupancy and bank passes (the simulator's charges):
 * a cache-using request one cycle per line, a shared-memory access one per
 * bank pass (gp_bounds_shared_cycles, which also adds a cycle of latency
 * per extra pass), anything else (a request without lines, a constant
 * load) its class's interval, with no bank passes.  Inline but for shared
 * memory: a call would make the walk's loop spill its registers. */
static inline double gp_bounds_lsu_cycles(const gp_bounds_pass *q, uint64_t i,
                                          const gp_bounds_class *f, double *passes_out,
                                          double *lat) {
  const gp_kernel *k = q->k;
  uint32_t rec;
  if (f->shared)
    return gp_bounds_shared_cycles(q, i, passes_out, lat);
  *passes_out = 0;
  rec = k->mem[i];
  if (f->cached && rec != UINT32_MAX && k->mem_records[rec].line_count > 0)
    return k->mem_records[rec].line_count;
  return f->busy;
}

/* A warp's dependence path so far: its last issue cycle t and its last
 * result `end` (scalars the loops keep in registers: each step's issue
 * waits on the previous one), its units' free cycles and its ring of
 * result-ready cycles (indexed by position in the warp). */
typedef struct gp_bounds_path {
  double unit_free[GP_UNIT_COUNT];
  double *done;
} gp_bounds_path;

static inline void gp_bounds_path_start(gp_bounds_path *s, double *done, double *t, double *end) {
  int u;
  for (u = 0; u < GP_UNIT_COUNT; u++)
    s->unit_free[u] = 0;
  s->done = done;
  *t = -1; /* -1 + 1: the first instruction issues at 0 */
  *end = 0;
}

/* Instruction i, at position x of its warp, on the warp's path: in order,
 * one instruction per cycle, after its producers' results and its unit.
 * Returns 1, with its LSU cycles and bank passes in *busy_out and
 * *passes_out, when it takes the LSU; 0 otherwise. */
static inline __attribute__((always_inline)) int gp_bounds_path_step(
    const gp_bounds_pass *q, gp_bounds_path *s, double *t_io, double *end_io, uint64_t i,
    uint64_t x, double *busy_out, double *passes_out) {
  const gp_kernel *k = q->k;
  const gp_bounds_class *f = &q->facts[k->op_class[i]];
  int u = f->unit, j, lsu = u == GP_UNIT_LSU;
  double lat = f->lat == GP_BOUNDS_LAT_PC      ? q->pc_lat[k->pc_index[i]]
               : f->lat == GP_BOUNDS_LAT_FLOOR ? gp_bounds_memory_floor(q, i, f->hit)
                                               : 0,
         busy;
  const uint16_t *d = k->deps + i * GP_DEPS;
  double t = *t_io + 1; /* one instruction per warp per cycle */
  for (j = 0; j < GP_DEPS && d[j] != 0; j++)
    if (d[j] <= x) {
      double ready = s->done[(x - d[j]) % GP_BOUNDS_RING];
      if (ready > t)
        t = ready;
    }
  if (s->unit_free[u] > t)
    t = s->unit_free[u];
  if (lsu) {
    busy = gp_bounds_lsu_cycles(q, i, f, passes_out, &lat);
    *busy_out = busy;
  } else {
    busy = f->busy;
  }
  s->unit_free[u] = t + busy;
  s->done[x % GP_BOUNDS_RING] = t + lat;
  if (t + lat > *end_io)
    *end_io = t + lat;
  *t_io = t;
  return lsu;
}

#endif
