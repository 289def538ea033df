/*
 * bounds.h -- first-principles lower bounds on a kernel's cycles: the one
 * place the specs, the docs, the workload suite and GPUMech compute them.
 *
 * API
 *   gp_bounds_counts     what a kernel asks of the machine
 *   gp_bounds_count()    fills the counts from a kernel, a machine
 *                        (machine.h) and memsim's functional result (one
 *                        pass over the kernel)
 *   gp_bounds_compute()  every bound in cycles and the one that binds
 *   gp_bound_name()      "issue", "dram", ... (GP_BOUND_* order)
 * A caller that knows the counts another way (a synthetic kernel's
 * descriptor, gpush.workloads) fills gp_bounds_counts itself and calls
 * gp_bounds_compute: the formulas live only in bounds.c.
 *
 * The bounds, in cycles of the kernel body (the launch overhead is
 * reported apart).  SMs = the SMs that get a block, min(sm count, blocks);
 * "per scheduler" units are those of gp_machine_op_unit, one per scheduler:
 *   issue    insts / (SMs x schedulers x issue_width), and at least
 *            ceil(blocks / sm count) x the smallest block's insts /
 *            (schedulers x issue_width) on the SM with the most blocks
 *   int, fma, fp64, sfu, tensor, uniform, control
 *            sum over the unit's classes of insts x interval
 *            / (SMs x schedulers), less the largest interval - latency of
 *            its classes when above 0 (the last result is ready `latency`
 *            after its issue, before the unit's occupancy ends)
 *   shared   shared-memory bank passes / (SMs x schedulers)
 *   lsu      LSU cycles (line requests, bank passes, one interval per
 *            other LSU instruction) / (SMs x schedulers)
 *   l2       hard L2 requests x l2_interval / slices (less one interval
 *            when stores reach the L2: the last may still hold its slice);
 *            hard requests: each distinct line of MSHR-taking loads once,
 *            every store request not absorbed by a write-back L1, every
 *            atomic request
 *   dram     hard DRAM bytes (read + written) / DRAM bytes per cycle:
 *            the DRAM's busy time; reads: each line only loads touch, or
 *            that every warp touching it loads before it stores it (an
 *            in-place update), filled once, at least its smallest request's
 *            fill; writes:
 *            every write-through store's sectors, plus the distinct
 *            sectors written into write-back caches beyond what they hold
 *            (dirty lines left in the L2 at the end are never written);
 *            a kernel may end while write-backs of dirty victims still
 *            drain (nothing waits for them)
 *   mshr     Little's law with the MSHRs as servers: (hard MSHR lines x
 *            l2_latency + the cold ones x dram_latency) / (SMs x MSHRs
 *            per SM); every distinct line loaded needs one allocation on
 *            some SM, the first of a line nothing writes misses the L2
 * The functional replay's l2 and mshr (every L1-missing request, merged or
 * not) and its DRAM bytes (its interleaving's write-backs) are kept as
 * estimates for naming the expected binding resource.
 *   latency  the longest warp's dependence path: in order, one
 *            instruction per cycle, each waiting for its producers
 *            (issue + latency) and its unit (initiation interval), memory
 *            at the least latency any interleaving allows (1 without a
 *            request; a line no other request touches: L2 + DRAM; else
 *            the L1 or L2 hit; merges with outstanding requests aside);
 *            after its block's launch L (launch.block_cycles + its warps x
 *            launch.warp_cycles) and the SM's warm-up W, before its
 *            block's drain D: path + L + W + D
 *   blocks   block slots as servers: W + sum over blocks of (longest warp
 *            path + L + D) / (SMs x blocks per SM)
 *   dispatch the front end (docs/frontend.md): the last block leaves the
 *            GPU-wide dispatcher at (blocks - 1) x launch.dispatch_cycles
 *            at the earliest and is launched L later, the busiest SM
 *            launches its ceil(blocks / sm count) blocks one at a time; the
 *            later of the two, + the shortest block path + D
 * The binding bound is the largest (ties: the first in GP_BOUND_* order).
 * docs/bounds.md states each with its assumptions.
 */
#ifndef GP_BOUNDS_H
#define GP_BOUNDS_H

#include "machine.h"

enum {
  GP_BOUND_ISSUE, GP_BOUND_INT, GP_BOUND_FMA, GP_BOUND_FP64, GP_BOUND_SFU, GP_BOUND_TENSOR,
  GP_BOUND_UNIFORM, GP_BOUND_CONTROL, GP_BOUND_SHARED, GP_BOUND_LSU, GP_BOUND_L2,
  GP_BOUND_DRAM, GP_BOUND_MSHR, GP_BOUND_LATENCY, GP_BOUND_BLOCKS, GP_BOUND_DISPATCH,
  GP_BOUND_COUNT
};

/* "issue", "int", "fma", "fp64", "sfu", "tensor", "uniform", "control",
 * "shared", "lsu", "l2", "dram", "mshr", "latency", "blocks"; "invalid". */
const char *gp_bound_name(int bound);

typedef struct gp_bounds_counts {
  double blocks;                       /* thread blocks */
  double insts;                        /* warp instructions */
  double min_block_insts;              /* warp instructions of the smallest block */
  double class_insts[GP_OP_CLASS_COUNT];
  double lsu_cycles;                   /* LSU occupancy summed over instructions */
  double shared_passes;                /* shared-memory bank passes */
  double l2_requests;                  /* requests the L2 slices accept */
  double mshr_requests;                /* load requests missing L1 (each holds an MSHR) */
  double mshr_dram_requests;           /* ... of which also miss L2 */
  /* The same three as no interleaving or block placement can go below
   * (docs/bounds.md, "Hard MSHR and L2 bounds"): */
  double hard_l2_requests;             /* hard_mshr_lines + store and atomic requests
                                          that reach the L2 */
  double hard_mshr_lines;              /* distinct lines of MSHR-taking loads, less those a
                                          write-back L1 may hold from a store */
  double hard_mshr_cold_lines;         /* ... of which no store or atomic touches */
  double hard_dram_read_bytes;         /* DRAM reads no interleaving avoids: per line only
                                          loads touch, its smallest request's fill */
  double hard_dram_written_bytes;      /* DRAM writes no interleaving avoids: write-through
                                          stores, and what the write-back caches cannot
                                          hold at the end (docs/bounds.md) */
  double dram_bytes;                   /* the functional replay's read + written */
  double longest_path;                 /* cycles: the longest warp's dependence path */
  double block_paths;                  /* cycles: sum over blocks of the longest warp path */
  double min_block_path;               /* cycles: the shortest block's longest warp path */
  double warps_per_block;              /* what each block's launch costs (L) */
} gp_bounds_counts;

typedef struct gp_bounds {
  double cycles[GP_BOUND_COUNT];       /* each bound */
  int binds;                           /* GP_BOUND_* of the largest */
  double bound;                        /* cycles[binds] */
  double total;                        /* bound + kernel launch cycles */
  double sms_used;                     /* min(sm count, blocks) */
  /* The functional replay's l2, mshr (its L1 misses, merges counted as
   * requests) and dram (its bytes): estimates, not bounds; `expect` is the binding resource
   * with them in place of the hard l2, mshr and dram (what the workload suite
   * labels a kernel by), expect_cycles its cycles. */
  double estimate_l2, estimate_mshr, estimate_dram;
  int expect;
  double expect_cycles;
} gp_bounds;

/* The counts of kernel k on machine m at blocks_per_sm resident blocks
 * (gpush.occupancy), with memory traffic from memsim's functional result
 * `mem` (run on the same kernel, machine and occupancy: GPUMech passes its
 * own).  Only mem's totals are read (pc_count, mshr_requests,
 * mshr_dram_requests, dram_bytes_read, dram_bytes_written, l2.accesses),
 * never its per-PC entries, so a caller holding the totals alone (the Lua
 * binding, from memsim's result table) may fill just those.  GP_ERR only
 * when out of memory or when mem does not belong to the kernel. */
int gp_bounds_count(const gp_kernel *k, const gp_machine *m, uint32_t blocks_per_sm,
                    const gp_memsim_result *mem, const gp_alloc *alloc,
                    gp_bounds_counts *out, gp_error *err);

/* Every bound from the counts, for a kernel at blocks_per_sm resident
 * blocks.  Never fails: zero SMs, schedulers or bandwidth give infinite
 * bounds for what needs them. */
void gp_bounds_compute(const gp_bounds_counts *c, const gp_machine *m, uint32_t blocks_per_sm,
                       gp_bounds *out);

#endif
