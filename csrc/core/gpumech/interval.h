/*
 * interval.h -- GPUMech's single-warp model (Huang et al., MICRO 2014,
 * Sec. III-B): the interval algorithm (Eq. 4) over one warp's instruction
 * stream, its interval profile (Eq. 2), warp performance (Eq. 5) and the
 * per-cause stall sums the CPI stack (Sec. VII) is built from.
 *
 * Plain arrays in, plain numbers out: no trace, no memory simulator.  The
 * glue fills a gp_iv_input from a kernel's per-warp arrays and per-PC
 * latencies (compute PCs: the opcode class latency; memory PCs: their AMAT,
 * see gp_amat_cycles) and runs it once per warp, reusing one profile.
 *
 * Latency convention (DESIGN.md, every gpush model): an instruction's
 * latency L is the distance in cycles from its issue to the earliest issue
 * of a dependent instruction.  Eq. 4's done_cycle(src) + 1 is therefore
 * issue(src) + L(src): the paper's "+1" is absorbed into L.
 */
#ifndef GP_INTERVAL_H
#define GP_INTERVAL_H

#include "gp_common.h"

/* Source operands whose producers an instruction may wait for. */
#define GP_IV_MAX_SRC 4

/* Throughput-limited units a warp scheduler's instructions occupy (the
 * contention terms of gpush's equations, multiwarp.h): one counter pair per
 * unit in a profile.  The ids are the caller's (multiwarp.h names them). */
#define GP_IV_UNITS 8

/* One warp's instruction stream.  Per-instruction attributes are looked up
 * through `pc` when it is given (index = pc[k] into the per-PC arrays),
 * otherwise the per-PC arrays are read per instruction (index = k). */
typedef struct gp_iv_input {
  size_t count;                       /* dynamic instructions */
  const uint32_t *pc;                 /* static PC index per instruction, or NULL */
  /* Backward distances to producers, one array per source slot, NULL when
   * unused; 0 = no producer; a distance reaching before the warp's first
   * instruction is ignored.  Instruction k's entry of slot j is
   * dep[j][k x dep_stride] (dep_stride 0 means 1).  (A kernel gives
   * GP_DEPS slots interleaved: dep[j] = deps + j, dep_stride = GP_DEPS.) */
  const uint16_t *dep[GP_IV_MAX_SRC];
  size_t dep_stride;
  int deps_packed;                    /* 1: an instruction's slots fill from dep[0] on and a
                                         0 ends them (a kernel's are), so the pass stops there */
  const double *latency;              /* cycles, issue to dependent issue (required) */
  const double *ii;                   /* initiation interval in cycles: the warp's next
                                         instruction issues no earlier than this after
                                         this one; NULL = issue_cycles for all */
  const int32_t *cause;               /* stall-cause id in [0, ncause), NULL = all 0;
                                         e.g. 0 = compute dependence, 1 + m = memory PC m */
  size_t ncause;                      /* size of the per-cause sums (>= 1) */
  double issue_cycles;                /* cycles per issue slot = 1 / issue rate (> 0) */
  /* Optional per-PC quantities summed per interval for the contention
   * models (NULL = 0): */
  const double *mem_insts;            /* weight of this instruction in #warp_mem_insts (Eq. 20) */
  const double *l1_miss_reqs;         /* expected requests missing L1, i.e. taking MSHRs (Eq. 18) */
  const double *dram_reqs;            /* expected requests reaching DRAM, stores included (Eq. 23) */
  const double *l2_reqs;              /* expected requests reaching the L2 slices */
  /* Optional per-PC unit use (NULL = none): the unit id in [0, GP_IV_UNITS)
   * or -1, and the cycles the instruction occupies that unit. */
  const int8_t *unit;
  const double *unit_busy;
  int unit_timing;                    /* 1: an instruction also waits until its unit is
                                         free (unit_busy cycles after the unit's previous
                                         use by the warp), as the simulator's units */
  /* Optional (both or neither): active lanes per instruction, and per PC
   * the latency an instruction of that PC takes when no lane is active (a
   * memory instruction with an empty mask returns at once; < 0: the PC's
   * latency stands).  Such an instruction adds none of the per-PC request
   * sums. */
  const uint8_t *active;
  const double *inactive_latency;
  int totals_only;                    /* 1: count intervals but do not store them */
} gp_iv_input;

/* One interval (Eq. 2): instructions issued back to back, then stall cycles. */
typedef struct gp_iv_interval {
  uint64_t first;        /* index of its first instruction */
  uint64_t insts;        /* #interval_insts */
  double stall_cycles;   /* stall cycles after its last instruction */
  int32_t cause;         /* cause id of the stall, -1 when stall_cycles == 0 */
  double mem_insts;      /* sums of the optional per-PC quantities */
  double l1_miss_reqs;
  double dram_reqs;
  double l2_reqs;
} gp_iv_interval;

/* A warp's interval profile and totals.  Init once, run many times (memory
 * is reused), free once. */
typedef struct gp_iv_profile {
  gp_alloc alloc;
  gp_iv_interval *iv;       /* count intervals (none when totals_only) */
  size_t count, cap;
  double *cause_stall;      /* stall cycles per cause id, ncause entries */
  size_t ncause, cause_cap;
  uint64_t insts;           /* instructions */
  uint64_t stall_events;    /* intervals with stall_cycles > 0 */
  double stall_cycles;      /* sum over intervals */
  double issue_cycles;      /* the input's cycles per issue slot */
  double total_cycles;      /* insts x issue_cycles + stall_cycles */
  double mem_insts, l1_miss_reqs, dram_reqs, l2_reqs; /* sums over the warp */
  double unit_insts[GP_IV_UNITS]; /* instructions using each unit */
  double unit_busy[GP_IV_UNITS];  /* cycles they occupy it */
  double *ring;             /* issue-cycle workspace */
  size_t ring_cap;
} gp_iv_profile;

void gp_iv_profile_init(gp_iv_profile *p, const gp_alloc *alloc);
void gp_iv_profile_free(gp_iv_profile *p);

/* Makes *dst a copy of src's intervals, per-cause stalls and totals (its
 * own buffers grown as needed; the workspace is not copied). */
int gp_iv_profile_copy(gp_iv_profile *dst, const gp_iv_profile *src, gp_error *err);

/* Fills *p from intervals given by hand (tests, replayed profiles): copies
 * them (their mem_insts / l1_miss_reqs / dram_reqs / l2_reqs included) and
 * computes the totals and per-cause sums; a cause of -1 is allowed only with
 * zero stall cycles.  issue_cycles = 1 / issue rate.  Unit totals are zero
 * (set p->unit_insts / unit_busy afterwards when a test needs them). */
int gp_iv_profile_set(gp_iv_profile *p, const gp_iv_interval *iv, size_t n, size_t ncause,
                      double issue_cycles, gp_error *err);

/* Runs the interval algorithm (Eq. 4) over one warp in one pass:
 *   issue(k) = max(issue(k-1) + ii(k-1), max over producers p of issue(p) + L(p))
 * A gap issue(k) - issue(k-1) - issue_cycles > 0 closes the interval holding
 * k-1 with that many stall cycles, caused by the producer (or, for an
 * initiation-interval gap, the previous instruction) that set issue(k).
 * The warp ends when its last result is ready: the drain after the last
 * issue slot is the final interval's stall, so a dependent chain of N
 * instructions of latency L takes N x L cycles.  issue_out (count doubles,
 * may be NULL) receives each instruction's issue cycle.  Resets *p first. */
int gp_iv_run(gp_iv_profile *p, const gp_iv_input *in, double *issue_out, gp_error *err);

/* One PC's facts for gp_iv_total_cycles, gathered once from an input's
 * per-PC arrays by gp_iv_pc_table (npc records; GP_ERR for a unit id out of
 * range).  quiet: an instruction of the PC with no active lane takes
 * quiet_latency; step: the issue cycles to the warp's next instruction. */
typedef struct gp_iv_pc {
  double latency, quiet_latency, busy, step;
  int8_t unit;
  uint8_t quiet;
} gp_iv_pc;
int gp_iv_pc_table(const gp_iv_input *in, size_t npc, gp_iv_pc *out, gp_error *err);

/* The total cycles gp_iv_run would give the warp (insts x issue_cycles +
 * its stall cycles, bit for bit), in one lean pass that keeps nothing else
 * (every warp's features, gpumech.h): `in` gives the instructions (pc,
 * producers, active lanes, unit_timing, issue_cycles), `table` the PCs'
 * facts (gp_iv_pc_table of an input with the same per-PC arrays); *p is
 * workspace only. */
int gp_iv_total_cycles(gp_iv_profile *p, const gp_iv_input *in, const gp_iv_pc *table,
                       double *total, gp_error *err);
/* gp_iv_total_cycles of two warps (the same totals, bit for bit) with their
 * steps taken in turn while both have some: each warp's issue cycles form
 * one chain of dependent floating-point operations, and two independent
 * chains overlap in the processor where one waits on each result.  Inputs
 * of a kernel's layout (pc, active, interleaved producers, the same issue
 * rate and unit timing) pair; others run one after the other.  p and q are
 * the two warps' workspaces. */
int gp_iv_total_cycles_pair(gp_iv_profile *p, gp_iv_profile *q, const gp_iv_input *a,
                            const gp_iv_input *b, const gp_iv_pc *table, double *total_a,
                            double *total_b, gp_error *err);

/* Eq. 5: warp performance, insts / (insts x issue_cycles + stall_cycles),
 * in instructions per cycle; 0 for an empty warp.  At issue rate 1 this is
 * also Eq. 9's issue probability. */
double gp_iv_warp_perf(const gp_iv_profile *p);

/* Sec. V-B: average memory access time of a memory PC from the fractions of
 * its executions served at each level (longest-latency request decides) and
 * the level latencies: sum frac[i] x latency_cycles[i].  The fractions are
 * used as given (they should sum to 1). */
double gp_amat_cycles(const double *frac, const double *latency_cycles, size_t levels);

#endif
