/*
 * machine.h -- the GPU as every model sees it: one struct, filled once from
 * the resolved configuration, read by every family's C entry.
 *
 * Each field holds one parameter of lua/gpush/schema.lua, under the same
 * name (schema `l1.ways` is `m->l1.ways`; `const.latency`, a C keyword, is
 * `m->constant.latency`), in the schema's unit.  No default lives here: the
 * binding fills every field from the configuration by walking
 * gp_machine_fields (each entry names its schema parameter), and refuses a
 * configuration that lacks one.  Adding a parameter is one schema
 * declaration, one field below and its line in gp_machine_fields
 * (spec/machine_spec.lua checks that the two lists agree both ways).
 *
 * The rest of this header is what follows from the parameters, computed
 * here once for every model:
 *   gp_op_pipeline()     the ops.<pipeline> whose latency and interval a
 *                        class takes (barriers and DEPBAR: other)
 *   gp_machine_op_unit() the scheduler unit a class issues to (INT shares
 *                        the FMA unit where sm.int_fp32_shared says so)
 *   gp_machine_class_latency/_interval()  per opcode class
 *   gp_machine_memsim()  the functional memory model's configuration for a
 *                        kernel at an occupancy
 *   gp_machine_timed()   the timed memory model's (the simulator's)
 *   gp_machine_dram_latency_cycles(), gp_machine_dram_bytes_per_cycle()
 *   gp_machine_block_launch_cycles()  the front end's per-SM launch of a block
 */
#ifndef GP_MACHINE_H
#define GP_MACHINE_H

#include "memsim.h"
#include "trace.h"

/* The scheduler units, one of each per scheduler (the simulator's, the
 * bounds' pipes, GPUMech's queues): FP32 and IMAD share FMA; branches,
 * barriers, DEPBAR and the rest use OTHER; every memory class and constant
 * loads use the LSU. */
enum {
  GP_UNIT_INT, GP_UNIT_FMA, GP_UNIT_FP64, GP_UNIT_SFU, GP_UNIT_TENSOR, GP_UNIT_UNIFORM,
  GP_UNIT_OTHER, GP_UNIT_LSU, GP_UNIT_COUNT
};

/* "int", "fma", "fp64", "sfu", "tensor", "uniform", "other", "lsu";
 * "invalid". */
const char *gp_unit_name(int unit);

/* The compute pipeline (0 .. GP_OP_COMPUTE_COUNT - 1, the ops.<name>
 * groups) whose latency and initiation interval opcode class c takes, or -1
 * for memory classes and constant loads (their timing is the memory
 * model's). */
int gp_op_pipeline(int op_class);

/* Latency and initiation interval of one compute pipeline. */
typedef struct gp_op_timing {
  double latency;  /* cycles from a producer's issue to a dependent issue */
  double interval; /* cycles its unit needs per warp instruction, per scheduler */
} gp_op_timing;

/* Enum parameters: the index into the value names gp_machine_fields gives. */
enum { GP_WRITE_THROUGH_NO_ALLOCATE, GP_WRITE_BACK };          /* l1.write_policy */
enum { GP_L2_WRITE_BACK, GP_L2_WRITE_THROUGH };                /* l2.write_policy */

typedef struct gp_machine {
  struct {
    double compute_capability;
  } gpu;
  struct {
    uint32_t count, warp_size, max_warps, max_blocks, max_block_threads;
    uint32_t schedulers, issue_width;
    int int_fp32_shared;   /* INT instructions issue to the FMA unit */
    uint32_t active_warps;
    uint32_t registers, register_alloc_unit, max_registers_per_thread;
    double shared_kb;
    uint32_t shared_alloc_bytes;
    uint32_t max_threads;  /* derived: max_warps x warp_size */
  } sm;
  struct {
    double core_mhz, mem_mhz;
  } clock;
  gp_op_timing ops[GP_OP_COMPUTE_COUNT]; /* ops.<gp_op_class_name(c)>.* */
  struct {
    double size_kb, unified_kb;
    uint32_t line_bytes, sector_bytes, ways;
    int sectored;
    double latency;
    uint32_t mshrs;
    int cache_global;
    int write_policy;      /* GP_WRITE_THROUGH_NO_ALLOCATE or GP_WRITE_BACK */
  } l1;
  struct {
    uint32_t banks, bank_bytes;
    double latency;
  } shared;
  struct {
    double latency;
  } constant;              /* schema group `const` */
  struct {
    double size_kb;
    uint32_t line_bytes, sector_bytes, ways, slices;
    int sectored;
    double latency, interval;
    int write_policy;      /* GP_L2_WRITE_BACK or GP_L2_WRITE_THROUGH */
  } l2;
  struct {
    uint32_t channels, bus_bits;
    double transfers_per_clock, latency_ns;
    uint32_t access_bytes;
    double efficiency;     /* the share of the peak a stream sustains */
    double bandwidth_gbs;  /* derived: the peak */
    double achievable_gbs; /* derived: the peak x efficiency, what the models use */
  } dram;
  struct {                 /* the front end (schema: launch.*), core cycles */
    double kernel_cycles;  /* kernel launch latency */
    double dispatch_cycles; /* GPU-wide: one block every this many cycles */
    double block_cycles, warp_cycles; /* an SM's launcher, per block and per warp */
    double drain_cycles;   /* a block's retirement: last warp done -> slot free */
    double warmup_cycles;  /* an SM's cold start after its first launch */
  } launch;
} gp_machine;

/* How a field is stored. */
typedef enum gp_field_type { GP_FIELD_U32, GP_FIELD_F64, GP_FIELD_BOOL, GP_FIELD_ENUM } gp_field_type;

/* One parameter: its schema path, where it lives and how it is stored
 * (enum values: names in index order, NULL-terminated). */
typedef struct gp_machine_field {
  const char *path;
  size_t offset;
  gp_field_type type;
  const char *const *values;
} gp_machine_field;

/* Every field, in the schema's order; *count gets how many. */
const gp_machine_field *gp_machine_fields(size_t *count);

/* The unit class c issues to on every machine (its pipeline's; memory
 * classes and constant loads the LSU), and on machine m. */
int gp_op_unit(int op_class);
int gp_machine_op_unit(const gp_machine *m, int op_class);
/* Class c's latency and its unit's occupancy per warp instruction: the
 * pipeline's; memory classes and constant loads 0 and 1 (the LSU's cycle
 * for an access without requests; the memory models time the rest). */
double gp_machine_class_latency(const gp_machine *m, int op_class);
double gp_machine_class_interval(const gp_machine *m, int op_class);

/* DRAM latency beyond an L2 miss in core cycles (dram.latency_ns at the core
 * clock, so core-clock sweeps do not scale it). */
double gp_machine_dram_latency_cycles(const gp_machine *m);
/* Achievable DRAM bytes per core cycle (dram.achievable_gbs), all channels
 * together: what every model moves bytes at. */
double gp_machine_dram_bytes_per_cycle(const gp_machine *m);

/* The cycles an SM's launcher spends on one block of `warps` warps (one
 * block at a time per SM): launch.block_cycles + warps x launch.warp_cycles. */
double gp_machine_block_launch_cycles(const gp_machine *m, uint32_t warps);

/* The L1 bytes an SM has for `blocks` resident blocks of `shared_bytes`
 * shared memory each: l1.size_kb, or with l1.unified_kb what the blocks'
 * shared memory leaves of the combined capacity, at least l1.size_kb (the
 * memory configurations below also drop it below compute capability 2.0). */
uint64_t gp_machine_l1_bytes(const gp_machine *m, uint32_t blocks, uint64_t shared_bytes);

/* The functional memory model's configuration for a kernel resident at
 * blocks_per_sm blocks per SM (at least 1 is used) of shared_bytes shared
 * memory each (the L1 a unified L1 leaves them). */
void gp_machine_memsim(const gp_machine *m, uint32_t blocks_per_sm, uint64_t shared_bytes,
                       gp_memsim_config *out);
/* The timed memory model's (the simulator's). */
void gp_machine_timed(const gp_machine *m, uint32_t blocks_per_sm, uint64_t shared_bytes,
                      gp_timed_config *out);

#endif
