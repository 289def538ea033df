/*
 * trace.h -- one kernel launch in memory, read from an Accel-Sim trace.
 *
 * Every model in gpush reads a gp_kernel: the launch geometry and, for every
 * warp, its dynamic instruction stream as a structure of arrays.  The arrays
 * of all warps are concatenated in trace order; warp w (global index: block
 * index x warps per block + warp id) owns instructions
 * [warp_start[w], warp_start[w] + warp_len[w]).  Per warp instruction the kernel keeps
 * 20 bytes (op class, active lanes, flags, data width, static-PC index, the
 * distances to up to GP_DEPS producers and the index of its memory record); memory
 * instructions also own a record with their lane addresses and their
 * coalesced 128 B lines with a 32 B sector mask per line, computed once at
 * load time.
 *
 * Reading is streaming: gp_trace_open() takes a kernelslist.g or one
 * .traceg (optionally .gz or .xz), gp_trace_next() steps to the next launch
 * and reads only its header, gp_trace_load() parses that launch's body.  At
 * most one launch is in memory at a time.
 *
 * Files: trace_kernel.c (a kernel's allocation and release), trace_io.c
 * (line input: plain, gzip, xz, memory), trace_parse.c (the text reader),
 * trace_gpt.c (the .gpt binary), trace_write.c (text output),
 * trace_opcodes.c (classes), trace_deps.c (scoreboard), trace_coalesce.c
 * (lines and sectors), trace_reader.c (kernelslist.g streaming), trace_mix.c
 * (ILP, MLP, divergence and transactions for the analytical models).
 * docs/traces.md describes the layout and the known limits.
 */
#ifndef GP_TRACE_H
#define GP_TRACE_H

#include "gp_common.h"

#include <stdio.h>

/* ---------------------------------------------------------------------------
 * Opcode classes
 * ------------------------------------------------------------------------- */

/* The first GP_OP_COMPUTE_COUNT classes map 1:1 onto the configuration's
 * ops.<name> pipelines (gp_op_class_name gives the name). */
typedef enum gp_op_class {
  GP_OP_INT,     /* integer ALU: IADD3, LOP3, SHF, ISETP, MOV, ... */
  GP_OP_FP32,    /* FADD, FMUL, FFMA, HFMA2.MMA (a move idiom) ... */
  GP_OP_IMAD,    /* integer multiply-add on the FMA pipe: IMAD, XMAD */
  GP_OP_FP64,    /* DADD, DMUL, DFMA, ... */
  GP_OP_SFU,     /* MUFU, ... */
  GP_OP_TENSOR,  /* HMMA, IMMA, HGMMA, DMMA, BMMA, ... */
  GP_OP_UNIFORM, /* uniform datapath: UMOV, UIADD3, ULDC is memory below */
  GP_OP_BRANCH,  /* BRA, EXIT, RET, CALL, BSSY, BSYNC, WARPSYNC, ... */
  GP_OP_OTHER,   /* NOP, S2R, CS2R, SHFL, VOTE, ... */
  GP_OP_BARRIER, /* BAR.SYNC / BAR / BAR.RED: blocks until the block arrives */
  GP_OP_BARRIER_ARRIVE, /* BAR.ARV: signals arrival, does not block */
  GP_OP_LD_GLOBAL,
  GP_OP_ST_GLOBAL,
  GP_OP_LD_LOCAL,
  GP_OP_ST_LOCAL,
  GP_OP_LD_SHARED,
  GP_OP_ST_SHARED,
  GP_OP_LD_CONST, /* LDC, ULDC: no addresses in traces */
  GP_OP_TEX,      /* TEX, TLD, TLD4, TXQ, ... */
  GP_OP_ATOM_GLOBAL, /* ATOM, ATOMG, RED on global memory */
  GP_OP_ATOM_SHARED, /* ATOMS */
  GP_OP_LDGSTS,      /* async global -> shared copy */
  GP_OP_DEPBAR,      /* wait for async copies */
  GP_OP_CLASS_COUNT
} gp_op_class;

#define GP_OP_COMPUTE_COUNT (GP_OP_OTHER + 1)

/* "int", "fp32", ..., "ld_global", ... */
const char *gp_op_class_name(int op_class);
/* The class predicates, inline: the parser asks them of every instruction
 * (out of line they were about 1 % of a text parse). */
/* Loads, stores, atomics, texture, LDGSTS (not LDC, not DEPBAR). */
static inline int gp_op_is_memory(int c) {
  return (c >= GP_OP_LD_GLOBAL && c <= GP_OP_ST_SHARED) || c == GP_OP_TEX ||
         c == GP_OP_ATOM_GLOBAL || c == GP_OP_ATOM_SHARED || c == GP_OP_LDGSTS;
}
/* Memory classes that reach L1/L2 (global, local, texture, global atomics,
 * LDGSTS); shared-memory classes never do. */
static inline int gp_op_uses_cache(int c) {
  return c == GP_OP_LD_GLOBAL || c == GP_OP_ST_GLOBAL || c == GP_OP_LD_LOCAL ||
         c == GP_OP_ST_LOCAL || c == GP_OP_TEX || c == GP_OP_ATOM_GLOBAL ||
         c == GP_OP_LDGSTS;
}
/* Loads (their destination is written by memory). */
static inline int gp_op_is_load(int c) {
  return c == GP_OP_LD_GLOBAL || c == GP_OP_LD_LOCAL || c == GP_OP_LD_SHARED ||
         c == GP_OP_LD_CONST || c == GP_OP_TEX || c == GP_OP_ATOM_GLOBAL ||
         c == GP_OP_ATOM_SHARED;
}
/* Stores: global, local, shared. */
static inline int gp_op_is_store(int c) {
  return c == GP_OP_ST_GLOBAL || c == GP_OP_ST_LOCAL || c == GP_OP_ST_SHARED;
}
/* Shared-memory classes: loads, stores and atomics. */
static inline int gp_op_is_shared(int c) {
  return c == GP_OP_LD_SHARED || c == GP_OP_ST_SHARED || c == GP_OP_ATOM_SHARED;
}
/* Atomics: global and shared. */
static inline int gp_op_is_atomic(int c) { return c == GP_OP_ATOM_GLOBAL || c == GP_OP_ATOM_SHARED; }

/* Resolves a generic LD / ST / ATOM / RED (classified as ld_global,
 * st_global or atom_global) by its first active address: the shared window
 * [shmem_base, shmem_base + 16 MB) gives the shared class, the local window
 * [local_base, local_base + 16 MB) the local one, anything else stays
 * global.  A zero base means the trace gave no window.  See trace_opcodes.c
 * for the conventions of NVBit and Accel-Sim. */
int gp_resolve_generic(int op_class, uint64_t addr, uint64_t shmem_base,
                       uint64_t local_base);

/* Opcode classification: class, data width in bytes, registers written per
 * destination register listed. */
typedef struct gp_opcode_info {
  uint8_t op_class;
  uint8_t width;      /* bytes per lane from the suffix (.64 = 8, .128 = 16) */
  uint8_t dest_regs;  /* registers written per listed destination (1, 2, 4) */
  uint8_t known;      /* 0: unknown opcode, classed as integer ALU */
  uint8_t generic;    /* generic LD/ST/ATOM: space resolved by address */
} gp_opcode_info;

/* Classifies one SASS opcode with its modifiers ("LDG.E.128.SYS") for a
 * binary version (61, 70, 75, 80, 86, 90). */
gp_opcode_info gp_opcode_classify(const char *opcode, size_t len,
                                  int binary_version);

/* The precisions the roofline counts FLOPs in (GP_FLOP_NONE: no FLOPs). */
enum { GP_FLOP_NONE, GP_FLOP_FP32, GP_FLOP_FP16, GP_FLOP_FP64, GP_FLOP_PRECISIONS };
/* "none", "fp32", "fp16", "fp64". */
const char *gp_flop_precision_name(int precision);
/* FLOPs one active lane does for a SASS opcode with its modifiers ("FFMA.FTZ":
 * 2) and their precision (*precision; GP_FLOP_NONE and 0 for anything that
 * is not an add, multiply or fused multiply-add, e.g. FSETP, FMNMX, F2F). */
uint8_t gp_opcode_flops(const char *opcode, size_t len, uint8_t *precision);

/* ---------------------------------------------------------------------------
 * Dependences: the per-warp register scoreboard (trace_deps.c)
 * ------------------------------------------------------------------------- */

/* Producers kept per warp instruction: the distinct earlier instructions of
 * its warp that wrote one of its source registers. */
#define GP_DEPS 4

/* Last writer (instruction index) of R0..R254 and its opcode class. */
typedef struct gp_scoreboard {
  uint64_t last_writer[256];
  uint8_t writer_class[256];
} gp_scoreboard;

/* One instruction's producers: backward distances (saturating at 65535),
 * distinct, nearest first, 0 after the last; bit j of `loads` says
 * dist[j]'s producer is a load; `dropped` counts producers not kept (more
 * than GP_DEPS left after gp_deps_pack's reduction). */
typedef struct gp_dep {
  uint16_t dist[GP_DEPS];
  uint8_t loads;
  uint8_t dropped;
} gp_dep;

/* Clears the scoreboard at the start of a warp. */
void gp_scoreboard_reset(gp_scoreboard *sb);
/* Instruction `inst` (its index; increases by one per instruction of the
 * warp) of class op_class reads srcs[0..nsrc) and writes, for each listed
 * destination d, registers d .. d + dest_regs - 1.  Register numbers >=
 * GP_REG_RZ are ignored.  Fills *out with every producer of its sources
 * (gp_deps_pack). */
void gp_scoreboard_step(gp_scoreboard *sb, uint64_t inst, const uint8_t *srcs,
                        int nsrc, const uint8_t *dests, int ndest,
                        int dest_regs, int op_class, gp_dep *out);
/* Packs the producers of instruction `inst`: writer[0..n) are their
 * instruction indices (< inst, repeats allowed), cls[] their classes.
 * Among producers of one fixed-latency class (compute classes and LDC) only
 * the nearest is kept: issued later with the same latency, it is never
 * ready earlier.  When more than GP_DEPS remain, variable-latency
 * producers (memory) are kept first, then the nearest; the rest are
 * counted in out->dropped. */
void gp_deps_pack(uint64_t inst, const uint64_t *writer, const uint8_t *cls, int n,
                  gp_dep *out);

/* ---------------------------------------------------------------------------
 * The kernel
 * ------------------------------------------------------------------------- */

/* Flag bits of gp_kernel.flags[i]. */
#define GP_INST_NO_MEMORY 0x02   /* memory class with an empty mask */
#define GP_INST_LOAD_SHIFT 4     /* bit 4 + j: producer j (deps[GP_DEPS x i + j]) is a load */
#define GP_INST_LOAD_DEPS 0xf0
#define GP_INST_LOAD(j) (1u << (GP_INST_LOAD_SHIFT + (j)))

/* Register R255 is RZ: reads as zero, writes are dropped. */
#define GP_REG_RZ 255
/* Most distinct 128 B lines one warp instruction may touch (32 lanes x a
 * 16 B access straddling two lines). */
#define GP_MAX_LINES_PER_INST 64

/* How a memory record stores its lanes' addresses (gp_mem_record.lanes). */
#define GP_LANES_LIST 0    /* addr_count addresses from kernel.addresses[addr_start] */
#define GP_LANES_STRIDED 1 /* lane i at kernel.addresses[addr_start] + i x stride
                              (evenly spaced lanes: one address stored, not 32) */
#define GP_LANES_DELTAS 2  /* the first lane at kernel.addresses[addr_start], then
                              each lane's int32 difference from the previous, two
                              to a stored u64 (a gather: 17 stored, not 32) */

/* A memory instruction's record (20 bytes, no implicit padding: the .gpt
 * file holds records as bytes). */
typedef struct gp_mem_record {
  uint32_t addr_start; /* first stored address in kernel.addresses */
  uint32_t line_start; /* first line in kernel.lines / sector_masks */
  int32_t stride;      /* bytes from lane to lane (GP_LANES_STRIDED), else 0 */
  uint16_t sector_count; /* distinct 32 B sectors over all lines */
  uint8_t addr_count;  /* active lanes with an address */
  uint8_t line_count;  /* distinct 128 B lines */
  uint8_t lanes;       /* GP_LANES_LIST, GP_LANES_STRIDED or GP_LANES_DELTAS */
  uint8_t zero[3];     /* always 0 */
} gp_mem_record;

/* The u64 slots a record takes in kernel.addresses: 1 when strided, the
 * first lane and (addr_count - 1) 4-byte deltas for deltas, one per lane
 * for a list. */
static inline uint32_t gp_mem_stored(const gp_mem_record *m) {
  if (m->addr_count == 0)
    return 0;
  if (m->lanes == GP_LANES_STRIDED)
    return 1;
  if (m->lanes == GP_LANES_DELTAS)
    return 1u + m->addr_count / 2u;
  return m->addr_count;
}

/* A distinct static instruction (PC). */
typedef struct gp_static_inst {
  uint64_t pc;
  uint32_t opcode;   /* offset of the opcode text in kernel.strings */
  uint32_t line_num; /* source line (format 4+ with lineinfo), 0 if none */
  uint8_t op_class;   /* as classified (generic LD/ST: before resolution) */
  uint8_t width;      /* bytes per lane from the opcode suffix */
  uint8_t dest_regs;  /* registers written per listed destination */
  uint8_t known;      /* 0: unknown opcode, classed as integer ALU */
  uint8_t generic;    /* generic address space, resolved per instruction */
} gp_static_inst;

/* One slot of the parser's PC -> static index table: open addressing over
 * PC keys (every 64-bit value is a PC); index UINT32_MAX marks a free slot. */
typedef struct gp_pc_slot {
  uint64_t key;
  uint32_t index;
  uint32_t op_len; /* the opcode's length: a PC seen again is checked with memcmp */
  uint64_t op8;    /* an opcode of at most 8 bytes, zero-padded (0 if longer): checked whole */
} gp_pc_slot;

typedef struct gp_kernel {
  gp_alloc alloc;
  /* header */
  char name[256];
  uint32_t launch_id;           /* -kernel id */
  uint32_t grid[3], block[3];   /* -grid dim, -block dim */
  uint32_t shmem_bytes;         /* -shmem: per thread block */
  uint32_t nregs;               /* -nregs: per thread */
  int binary_version;           /* -binary version */
  int trace_version;            /* -accelsim tracer version (0: pre-3) */
  int lineinfo;                 /* -enable lineinfo */
  int synthetic;                /* made by the generator, not recorded */
  uint64_t shmem_base, local_base; /* generic windows (0: not given) */
  uint64_t stream_id;           /* -cuda stream id */
  /* geometry */
  uint32_t blocks;              /* thread blocks in the grid */
  uint32_t warps_per_block;
  uint32_t warps;               /* blocks x warps_per_block */
  /* per warp: instructions [warp_start[w], warp_start[w] + warp_len[w]) */
  uint64_t *warp_start;
  uint32_t *warp_len;           /* 0 for a warp the trace does not list */
  /* per warp instruction (structure of arrays, 20 bytes) */
  uint64_t insts;
  uint8_t *op_class;
  uint8_t *active;              /* active lanes (popcount of the mask) */
  uint8_t *flags;               /* GP_INST_* */
  uint8_t *width;               /* bytes per lane for memory instructions */
  uint32_t *pc_index;           /* into statics */
  uint16_t *deps;               /* GP_DEPS per instruction: distances to its
                                   producers, nearest first, 0 after the last
                                   (gp_dep.dist); flags bits say which are loads */
  uint32_t *mem;                /* index into mem_records, UINT32_MAX none */
  /* memory */
  gp_mem_record *mem_records;
  uint32_t mem_count;
  uint64_t *addresses;          /* lane addresses, active lanes in order */
  uint32_t address_count;
  uint64_t *lines;              /* 128 B line addresses (address >> 7) */
  uint8_t *sector_masks;        /* 4 bits: which 32 B sectors of the line */
  uint32_t line_count;
  /* static instructions */
  gp_static_inst *statics;
  uint32_t static_count;
  char *strings;                /* opcode texts */
  size_t strings_len;
  /* diagnostics, "; "-separated: "N instructions of unknown opcode FOO
   * classed as integer ALU" once per unknown opcode, and mem_width
   * disagreements with the opcode suffix */
  char warnings[1024];
  uint64_t class_counts[GP_OP_CLASS_COUNT];
  /* capacities (private) */
  size_t cap_insts, cap_mem, cap_addr, cap_lines, cap_statics, cap_strings;
  size_t cap_warps;
  gp_pc_slot *pc_table; /* PC -> static index hash (private to trace_parse.c) */
  size_t pc_table_cap;
  /* a kernel loaded from .gpt points into this image of the file: a guarded
   * mapping (image_mapped, gpt_guard.h) or a private copy */
  void *image;
  size_t image_bytes;
  int image_mapped;
  /* a prefix (gp_kernel_prefix) reads `base`'s arrays; a kernel with
   * prefixes still open keeps its arrays after gp_kernel_free (`released`)
   * until the last prefix is freed */
  struct gp_kernel *base;
  uint32_t prefixes;
  int released;
} gp_kernel;

/* A new empty kernel (every field zero) using `alloc`, or NULL when out of
 * memory; gp_kernel_free releases it and whatever it owns (trace_kernel.c). */
gp_kernel *gp_kernel_new(const gp_alloc *alloc);
void gp_kernel_free(gp_kernel *k);

/* The kernel of k's first `blocks` thread blocks (a grid of (blocks, 1, 1)),
 * reading k's arrays without a copy: their warps must hold the first
 * instructions, memory records, lines and lane addresses in order (the
 * parser, the .gpt loader and the generator store them so when a trace
 * lists its blocks in order); GP_ERR with a message otherwise, or for
 * blocks outside 1..k->blocks.  Free it with gp_kernel_free, before or
 * after k (sampling a sweep's launches: docs/experiments.md). */
int gp_kernel_prefix(gp_kernel *k, uint32_t blocks, gp_kernel **out, gp_error *err);

/* Instruction i's nearest producer: its distance (0: none). */
uint16_t gp_kernel_dep(const gp_kernel *k, uint64_t i);
/* Instruction i's nearest producer that is a load: its distance (0: none). */
uint16_t gp_kernel_dep_load(const gp_kernel *k, uint64_t i);

/* The lane addresses of memory record m, active lanes in order
 * (m->addr_count of them): a pointer into k->addresses for a list, or `buf`
 * filled from the base and stride or the deltas (trace_kernel.c).  The one place a model
 * reads lanes; the coalesced lines were computed when the record was made. */
const uint64_t *gp_mem_lanes(const gp_kernel *k, const gp_mem_record *m, uint64_t buf[32]);
/* gp_mem_lanes for a call's argument, `f(GP_MEM_LANES(k, m), ...)`: a list
 * is read in place; other forms expand into a buffer that lives until the
 * end of the caller's enclosing block, made (and zeroed) only then.  k and
 * m are evaluated more than once: pass plain names. */
#define GP_MEM_LANES(k, m)                                                     \
  ((m)->lanes == GP_LANES_LIST ? (const uint64_t *)(k)->addresses + (m)->addr_start \
                               : gp_mem_lanes((k), (m), (uint64_t[32]){0}))

/* Parses a whole .traceg held in memory (header and body); `name` is used in
 * messages.  On success *out is a new kernel (free with gp_kernel_free). */
int gp_kernel_parse_buffer(gp_kernel **out, const gp_alloc *alloc,
                           const char *text, size_t len, const char *name,
                           gp_error *err);

/* Appends the coalesced lines and sector masks of the record's lanes
 * (gp_mem_lanes; a strided record by gp_coalesce_strided) to the kernel's
 * pools and fills rec->line_start, line_count and sector_count.  Returns 0,
 * -1 when the access touches more than GP_MAX_LINES_PER_INST lines, -2 when
 * out of memory. */
int gp_kernel_add_lines(gp_kernel *k, gp_mem_record *rec, uint32_t width);

/* Room for `need` lines and sector masks in the kernel's pools (GP_ERR:
 * out of memory, the pools unchanged). */
int gp_kernel_reserve_lines(gp_kernel *k, size_t need);

/* Coalesces the lanes' accesses of `width` bytes at addrs[0..n) into distinct
 * 128 B lines (line address = byte address >> 7) with the 32 B sectors each
 * touches (bit s of masks[i] = sector s of lines[i]); an access covers its
 * first to its last byte.  Returns the number of lines (at most `cap`), or
 * -1 when more than `cap` lines would be needed. */
int gp_coalesce(const uint64_t *addrs, uint32_t n, uint32_t width,
                uint64_t *lines, uint8_t *masks, uint32_t cap);

/* gp_coalesce for lanes addrs[i] = addrs[0] + i * stride: the same lines,
 * masks and result.  With 0 <= stride <= 32 (and no wrap past 2^64) every
 * sector from the first lane's first byte to the last lane's last byte is
 * touched, so the lines follow from those two ends without a look at each
 * lane; other strides go to gp_coalesce. */
int gp_coalesce_strided(const uint64_t *addrs, uint32_t n, uint32_t width, int64_t stride,
                        uint64_t *lines, uint8_t *masks, uint32_t cap);

/* Writes the kernel as Accel-Sim text (tracer version 5, address modes 1/2)
 * to f; `name` is used in messages.  Deterministic; dependences shorter than
 * 63 instructions survive a write and re-read (see trace_write.c). */
int gp_kernel_write_text(const gp_kernel *k, FILE *f, const char *name,
                         gp_error *err);

/* The .gpt binary kernel (trace_gpt.c): written once (staged), read into a
 * private copy on load.  verify = 0 reads and checks the header only: the
 * kernel then has the header's fields and no arrays (gp_trace_next reads
 * launches that way). */
int gp_kernel_write_gpt(const gp_kernel *k, const char *path, gp_error *err);
int gp_kernel_load_gpt(gp_kernel **out, const gp_alloc *alloc, const char *path,
                       int verify, gp_error *err);
/* 1 when the file starts with the .gpt magic. */
int gp_gpt_is(const char *path);
/* Re-stamps the length and checksum of a .gpt image in memory (tools that
 * patch files; the .gpt fuzzer, so mutated images reach the index checks).
 * GP_ERR when the image is shorter than a header or its header_bytes. */
int gp_gpt_seal(unsigned char *image, size_t size);

/* Caps on compressed trace input (gzip, xz), where the size of the file does
 * not bound the work: a few kilobytes can decompress to gigabytes of text
 * whose address modes expand again when parsed.  text_bytes caps the
 * decompressed bytes of one file, kernel_bytes the memory of a launch parsed
 * from one, decoder_bytes the memory the xz decoder may ask for.  A plain
 * file is bounded by its size (the parser reserves only what the rest of
 * the file can hold).  0: no cap. */
typedef struct gp_trace_limits {
  uint64_t text_bytes, kernel_bytes, decoder_bytes;
} gp_trace_limits;

#define GP_TRACE_LIMIT_MB_DEFAULT 512u
/* How a user lifts the caps, in every message that names one. */
#define GP_TRACE_LIMIT_HINT                                                     \
  "set GPUSH_TRACE_LIMIT_MB to raise it, or decompress the file: a plain file is bounded by its size"
/* The caps of a limit of `mb` MiB: text and kernel `mb` MiB each, the
 * decoder half of it (xz -9 needs 65 MiB). */
gp_trace_limits gp_trace_limits_mb(uint64_t mb);

/* Parses one trace file (plain, .gz, .xz, or a .gpt) into a new kernel;
 * compressed input within the default limits (GP_TRACE_LIMIT_MB_DEFAULT). */
int gp_trace_parse_file(gp_kernel **out, const gp_alloc *alloc,
                        const char *path, gp_error *err);
int gp_trace_parse_file_limited(gp_kernel **out, const gp_alloc *alloc, const char *path,
                                const gp_trace_limits *limits, gp_error *err);

/* A text trace through the parsed-trace cache in `dir` (trace_cache.c): the
 * entry for the file's content and this reader's code when there is one
 * (*hit = 1), else the parse, then kept as a new entry; entries beyond
 * max_bytes in all (0: no limit) go, least recently used first. */
int gp_trace_cache_load(gp_kernel **out, const gp_alloc *alloc, const char *path,
                        const gp_trace_limits *limits, const char *dir, uint64_t max_bytes, int *hit,
                        gp_error *err);

/* Reads only the header of a trace file into *k (a caller-owned struct with
 * no arrays; nothing to free). */
int gp_trace_parse_header(gp_kernel *k, const gp_alloc *alloc, const char *path,
                          const gp_trace_limits *limits, gp_error *err);

/* ---------------------------------------------------------------------------
 * Measures for analytical models (trace_mix.c)
 * ------------------------------------------------------------------------- */

typedef struct gp_mix_config {
  int rule;                    /* coalescing: GP_CC1X_OFF (the trace's 128 B
                                  lines, CC >= 2.0), GP_CC1X_12 or GP_CC1X_10
                                  (memsim.h) */
  uint32_t shared_banks, shared_bank_bytes;
} gp_mix_config;

typedef struct gp_mix {
  uint32_t warps;              /* warps with at least one instruction */
  uint64_t insts;              /* their warp instructions */
  double divergence_extra;     /* sum of 1 - active / the warp's widest mask */
  uint64_t ilp_levels;         /* sum over warps of in-order unit-latency levels */
  uint64_t mem_insts;          /* cache-using memory instructions with a request */
  uint64_t mem_rounds;         /* sum over warps of rounds of memory requests */
  uint64_t transactions;       /* of mem_insts, under the rule */
  uint64_t transaction_bytes;  /* 32 B sectors those transactions cover */
  uint64_t shared_insts;       /* shared-memory instructions with addresses */
  uint64_t shared_extra_passes; /* bank-conflict passes beyond the first */
} gp_mix;

/* One pass over every warp (see trace_mix.c for the definitions of ILP and
 * MLP); *out is filled.  GP_ERR on an unknown rule or out of memory. */
int gp_kernel_mix(const gp_kernel *k, const gp_mix_config *c, const gp_alloc *a, gp_mix *out,
                  gp_error *err);

/* A kernel's FLOPs by precision (index GP_FLOP_*; [GP_FLOP_NONE] is 0):
 * every fp32- or fp64-class warp instruction's gp_opcode_flops x its active
 * lanes, exactly, in one pass over the instructions.  GP_ERR out of memory. */
int gp_kernel_flops(const gp_kernel *k, const gp_alloc *a, uint64_t out[GP_FLOP_PRECISIONS],
                    gp_error *err);

/* ---------------------------------------------------------------------------
 * Streaming reader over kernelslist.g or one trace file
 * ------------------------------------------------------------------------- */

typedef struct gp_trace_reader gp_trace_reader;

/* A launch as listed, before its body is read. */
typedef struct gp_launch_info {
  uint32_t index;       /* 1-based position among the launches */
  uint32_t launch_id;   /* -kernel id */
  char name[256];
  const char *path;     /* the trace file (owned by the reader) */
  uint32_t grid[3], block[3];
} gp_launch_info;

/* Opens a kernelslist.g (or a folder holding one), a .traceg, .traceg.gz,
 * .traceg.xz (detected by content) or .gpt.  Every input must be a regular
 * file: a trace is read more than once (the header, then the body), which
 * a pipe or a device cannot give.  A list naming one file twice (compared
 * by device and inode, so ./k.traceg, sub/../k.traceg and links count) is
 * refused. */
int gp_trace_open(gp_trace_reader **out, const gp_alloc *alloc,
                  const char *path, gp_error *err);
/* Sets the caps on compressed input for the launches read from now on
 * (default: gp_trace_limits_mb(GP_TRACE_LIMIT_MB_DEFAULT)). */
void gp_trace_set_limits(gp_trace_reader *r, const gp_trace_limits *limits);
/* Keeps parsed launches in the cache folder `dir` (NULL: no cache) of at
 * most max_bytes (0: no limit): text traces loaded from now on go through
 * gp_trace_cache_load.  GP_ERR only when out of memory. */
int gp_trace_set_cache(gp_trace_reader *r, const char *dir, uint64_t max_bytes, gp_error *err);
/* Launches gp_trace_load found in the cache so far. */
uint32_t gp_trace_cache_hits(const gp_trace_reader *r);
/* Steps to the next launch and reads its header: returns 1 with *info
 * filled, 0 when there are no more, GP_ERR on error. */
int gp_trace_next(gp_trace_reader *r, gp_launch_info *info, gp_error *err);
/* Parses the current launch's body into a new kernel. */
int gp_trace_load(gp_trace_reader *r, gp_kernel **out, gp_error *err);
/* The MemcpyHtoD lines of a kernelslist.g: count, and bytes in total. */
void gp_trace_memcpy(const gp_trace_reader *r, uint32_t *count,
                     uint64_t *bytes);

/* One "MemcpyHtoD,address,bytes" line of a kernelslist.g. */
typedef struct gp_memcpy {
  uint64_t addr, bytes;
  uint32_t before_launch; /* 1-based index of the launch it precedes
                             (launch count + 1 when it follows the last) */
} gp_memcpy;

/* The copies in list order (NULL when there are none); *count is set. */
const gp_memcpy *gp_trace_memcpy_list(const gp_trace_reader *r,
                                      uint32_t *count);
/* The input files: the trace files in launch order (NULL past the end), and
 * the kernelslist.g read ("" when a single trace file was opened).  A writer
 * checks its outputs against them so it never replaces its own input. */
uint32_t gp_trace_file_count(const gp_trace_reader *r);
const char *gp_trace_file(const gp_trace_reader *r, uint32_t i);
const char *gp_trace_list_path(const gp_trace_reader *r);
void gp_trace_close(gp_trace_reader *r);

/* ---------------------------------------------------------------------------
 * Line input (plain, gzip, xz), used by the reader and exposed for tests
 * ------------------------------------------------------------------------- */

typedef struct gp_line_input gp_line_input;

/* GP_OK when `path` names a regular file; otherwise GP_ERR and a message
 * saying what it is (a pipe, a device, a folder, a loop of symbolic links,
 * missing).  Checked before opening, so a FIFO is never opened (and never
 * waited on). */
int gp_trace_check_regular(const char *path, gp_error *err);

/* Opens a regular file for line reading; gzip and xz are detected by magic
 * bytes and decompressed within `limits` (NULL: the defaults). */
int gp_line_open(gp_line_input **out, const gp_alloc *alloc, const char *path,
                 const gp_trace_limits *limits, gp_error *err);
/* Reads over a memory buffer (not copied; must outlive the input). */
int gp_line_open_buffer(gp_line_input **out, const gp_alloc *alloc,
                        const char *text, size_t len, const char *name,
                        gp_error *err);
/* Next line without its newline: returns 1 with *line and *len set, 0 at end of
 * input, GP_ERR on a read or decompression error.  The line stays valid
 * until the next call. */
int gp_line_next(gp_line_input *in, const char **line, size_t *len,
                 gp_error *err);
/* Bytes not yet returned when the input's size is known (plain files and
 * buffers), UINT64_MAX when it is not (gzip, xz).  The parser uses it to
 * refuse an 'insts =' count the rest of the file cannot hold. */
uint64_t gp_line_bytes_left(const gp_line_input *in);
/* The cap on the memory of a launch parsed from this input: the limits'
 * kernel_bytes for compressed input, 0 (none) for plain files and buffers. */
uint64_t gp_line_kernel_cap(const gp_line_input *in);
/* 1-based number of the line last returned; the name given at open. */
uint64_t gp_line_number(const gp_line_input *in);
const char *gp_line_name(const gp_line_input *in);
void gp_line_close(gp_line_input *in);

#endif
