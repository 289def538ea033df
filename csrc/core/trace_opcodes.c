/*
 * trace_opcodes.c -- SASS opcodes to the classes the models use.
 *
 * The base opcode (text before the first '.') picks the class; modifiers
 * pick data width (.8 .16 .64 .128, .U8 .S16 ...), register width (.WIDE,
 * .64, .128, F64 results) and a few special cases:
 *  - HFMA2.MMA is a move idiom the compiler emits, not a tensor op: FP32.
 *  - BAR.ARV signals arrival and does not block: its own class.
 *  - LD / ST / ATOM / RED use generic addresses: the parser resolves the
 *    space per instruction from the -shmem / -local mem windows.
 *  - Conversions (F2F, F2I, I2F, FRND, ...) run on the quarter-rate
 *    transcendental/conversion unit from Volta on (class SFU); on Pascal and
 *    earlier they are classed as integer ALU.
 *  - IMAD runs on the FMA pipe from Volta on; Pascal's XMAD is the same
 *    class (GP_OP_IMAD) so the config's ops.imad describes both.
 * Unknown opcodes are classed as integer ALU with known = 0; the parser
 * counts and reports them.
 *
 * Registers written per listed destination (for the scoreboard, trace_deps.c):
 * loads by their data width (.64: 2, .128: 4), FP64 results 2 (DSETP writes
 * a predicate), IMAD.WIDE 2, conversions to a 64-bit type 2, any other op
 * with an explicit .64 / .128 modifier 2 / 4, tensor ops 4 (FP32
 * accumulators) or 2 (.F16), everything else 1.
 */
#include "trace.h"

#include <string.h>

static const char *const class_names[GP_OP_CLASS_COUNT] = {
    "int",        "fp32",      "imad",        "fp64",        "sfu",
    "tensor",     "uniform",   "branch",      "other",       "barrier",
    "barrier_arrive", "ld_global", "st_global", "ld_local",   "st_local",
    "ld_shared",  "st_shared", "ld_const",    "tex",         "atom_global",
    "atom_shared", "ldgsts",   "depbar"};

const char *gp_op_class_name(int op_class) {
  if (op_class < 0 || op_class >= GP_OP_CLASS_COUNT)
    return "invalid";
  return class_names[op_class];
}

typedef struct base_entry {
  const char *name;
  uint8_t op_class;
} base_entry;

/* Base opcodes, by class.  Anything starting with U that is not listed is a
 * uniform-datapath op; anything ending in MMA is a tensor op. */
static const base_entry base_table[] = {
    /* integer ALU */
    {"IADD", GP_OP_INT}, {"IADD3", GP_OP_INT}, {"IADD32I", GP_OP_INT},
    {"IMNMX", GP_OP_INT}, {"IABS", GP_OP_INT}, {"ISETP", GP_OP_INT},
    {"ISET", GP_OP_INT}, {"ISCADD", GP_OP_INT}, {"ISCADD32I", GP_OP_INT},
    {"LEA", GP_OP_INT}, {"LOP", GP_OP_INT}, {"LOP3", GP_OP_INT},
    {"LOP32I", GP_OP_INT}, {"SHF", GP_OP_INT}, {"SHL", GP_OP_INT},
    {"SHR", GP_OP_INT}, {"SEL", GP_OP_INT}, {"MOV", GP_OP_INT},
    {"MOV32I", GP_OP_INT}, {"PRMT", GP_OP_INT}, {"POPC", GP_OP_INT},
    {"FLO", GP_OP_INT}, {"BREV", GP_OP_INT}, {"BFE", GP_OP_INT},
    {"BFI", GP_OP_INT}, {"SGXT", GP_OP_INT}, {"BMSK", GP_OP_INT},
    {"P2R", GP_OP_INT}, {"R2P", GP_OP_INT}, {"PLOP3", GP_OP_INT},
    {"PSETP", GP_OP_INT}, {"PSET", GP_OP_INT}, {"CSET", GP_OP_INT},
    {"CSETP", GP_OP_INT}, {"VABSDIFF", GP_OP_INT}, {"VABSDIFF4", GP_OP_INT},
    {"ICMP", GP_OP_INT}, {"IMNMX3", GP_OP_INT}, {"VIADD", GP_OP_INT},
    {"VIMNMX", GP_OP_INT}, {"VIMNMX3", GP_OP_INT},
    /* FP32 (and packed FP16) */
    {"FADD", GP_OP_FP32}, {"FADD32I", GP_OP_FP32}, {"FMUL", GP_OP_FP32},
    {"FMUL32I", GP_OP_FP32}, {"FFMA", GP_OP_FP32}, {"FFMA32I", GP_OP_FP32},
    {"FMNMX", GP_OP_FP32}, {"FSET", GP_OP_FP32}, {"FSETP", GP_OP_FP32},
    {"FSEL", GP_OP_FP32}, {"FCHK", GP_OP_FP32}, {"FSWZADD", GP_OP_FP32},
    {"FCMP", GP_OP_FP32}, {"HADD2", GP_OP_FP32},
    {"HMUL2", GP_OP_FP32}, {"HFMA2", GP_OP_FP32}, {"HSET2", GP_OP_FP32},
    {"HSETP2", GP_OP_FP32}, {"HMNMX2", GP_OP_FP32}, {"FMUL2", GP_OP_FP32},
    {"FADD2", GP_OP_FP32}, {"FFMA2", GP_OP_FP32}, {"FMNMX3", GP_OP_FP32},
    /* integer multiply-add (FMA pipe) */
    {"IMAD", GP_OP_IMAD}, {"IMAD32I", GP_OP_IMAD}, {"IMADSP", GP_OP_IMAD},
    {"IMUL", GP_OP_IMAD}, {"IMUL32I", GP_OP_IMAD}, {"XMAD", GP_OP_IMAD},
    {"IDP", GP_OP_IMAD}, {"IDP4A", GP_OP_IMAD}, {"IDP2A", GP_OP_IMAD},
    /* FP64 */
    {"DADD", GP_OP_FP64}, {"DMUL", GP_OP_FP64}, {"DFMA", GP_OP_FP64},
    {"DSETP", GP_OP_FP64}, {"DSET", GP_OP_FP64}, {"DMNMX", GP_OP_FP64},
    /* special functions */
    {"MUFU", GP_OP_SFU}, {"RRO", GP_OP_SFU},
    /* control flow */
    {"BRA", GP_OP_BRANCH}, {"BRX", GP_OP_BRANCH}, {"JMP", GP_OP_BRANCH},
    {"JMX", GP_OP_BRANCH}, {"CALL", GP_OP_BRANCH}, {"RET", GP_OP_BRANCH},
    {"EXIT", GP_OP_BRANCH}, {"BSSY", GP_OP_BRANCH}, {"BSYNC", GP_OP_BRANCH},
    {"BREAK", GP_OP_BRANCH}, {"BPT", GP_OP_BRANCH}, {"KILL", GP_OP_BRANCH},
    {"WARPSYNC", GP_OP_BRANCH}, {"SYNC", GP_OP_BRANCH}, {"SSY", GP_OP_BRANCH},
    {"PBK", GP_OP_BRANCH}, {"BRK", GP_OP_BRANCH}, {"CONT", GP_OP_BRANCH},
    {"PCNT", GP_OP_BRANCH}, {"CAL", GP_OP_BRANCH}, {"JCAL", GP_OP_BRANCH},
    {"YIELD", GP_OP_BRANCH}, {"RTT", GP_OP_BRANCH}, {"BMOV", GP_OP_BRANCH},
    {"ACQBULK", GP_OP_BRANCH}, {"ELECT", GP_OP_BRANCH},
    /* other non-memory work */
    {"NOP", GP_OP_OTHER}, {"S2R", GP_OP_OTHER}, {"CS2R", GP_OP_OTHER},
    {"S2UR", GP_OP_OTHER}, {"R2UR", GP_OP_OTHER}, {"SHFL", GP_OP_OTHER},
    {"VOTE", GP_OP_OTHER}, {"MEMBAR", GP_OP_OTHER}, {"FENCE", GP_OP_OTHER},
    {"ERRBAR", GP_OP_OTHER}, {"CCTL", GP_OP_OTHER}, {"CCTLL", GP_OP_OTHER},
    {"CCTLT", GP_OP_OTHER}, {"B2R", GP_OP_OTHER}, {"MATCH", GP_OP_OTHER},
    {"REDUX", GP_OP_OTHER}, {"PMTRIG", GP_OP_OTHER}, {"NANOSLEEP", GP_OP_OTHER},
    {"LEPC", GP_OP_OTHER}, {"GETLMEMBASE", GP_OP_OTHER},
    {"SETLMEMBASE", GP_OP_OTHER}, {"ISBERD", GP_OP_OTHER},
    {"SYNCS", GP_OP_OTHER}, {"ARRIVES", GP_OP_OTHER}, {"WARPGROUP", GP_OP_OTHER},
    {"WARPGROUPSET", GP_OP_OTHER}, {"SETCTAID", GP_OP_OTHER},
    /* barriers (BAR.ARV is handled by modifier) */
    {"BAR", GP_OP_BARRIER},
    /* memory */
    {"LDG", GP_OP_LD_GLOBAL}, {"STG", GP_OP_ST_GLOBAL}, {"LDL", GP_OP_LD_LOCAL},
    {"STL", GP_OP_ST_LOCAL}, {"LDS", GP_OP_LD_SHARED}, {"LDSM", GP_OP_LD_SHARED},
    {"STS", GP_OP_ST_SHARED}, {"STSM", GP_OP_ST_SHARED},
    {"LDC", GP_OP_LD_CONST}, {"ULDC", GP_OP_LD_CONST},
    {"TEX", GP_OP_TEX}, {"TLD", GP_OP_TEX}, {"TLD4", GP_OP_TEX},
    {"TXD", GP_OP_TEX}, {"TXQ", GP_OP_TEX}, {"TMML", GP_OP_TEX},
    {"TEXS", GP_OP_TEX}, {"TLDS", GP_OP_TEX}, {"TLD4S", GP_OP_TEX},
    {"SULD", GP_OP_TEX}, {"SUST", GP_OP_ST_GLOBAL}, {"SUATOM", GP_OP_ATOM_GLOBAL},
    {"SURED", GP_OP_ATOM_GLOBAL}, {"ATOMG", GP_OP_ATOM_GLOBAL},
    {"REDG", GP_OP_ATOM_GLOBAL}, {"ATOMS", GP_OP_ATOM_SHARED},
    {"LDGSTS", GP_OP_LDGSTS}, {"DEPBAR", GP_OP_DEPBAR},
    {"LDGDEPBAR", GP_OP_DEPBAR},
};

/* FLOPs per active lane of the floating-point opcodes (the base name):
 * adds and multiplies 1, fused multiply-adds 2, packed pairs twice that.
 * Comparisons, min/max, conversions and selects count none (as Nsight
 * Compute's FLOP counters do).  The roofline's one map (docs/reports.md). */
typedef struct flop_entry {
  const char *name;
  uint8_t precision; /* GP_FLOP_FP32, GP_FLOP_FP16, GP_FLOP_FP64 */
  uint8_t flops;
} flop_entry;

static const flop_entry flop_table[] = {
    {"FADD", GP_FLOP_FP32, 1},  {"FADD32I", GP_FLOP_FP32, 1}, {"FMUL", GP_FLOP_FP32, 1},
    {"FMUL32I", GP_FLOP_FP32, 1}, {"FFMA", GP_FLOP_FP32, 2},  {"FFMA32I", GP_FLOP_FP32, 2},
    {"FADD2", GP_FLOP_FP32, 2}, {"FMUL2", GP_FLOP_FP32, 2},   {"FFMA2", GP_FLOP_FP32, 4},
    {"HADD2", GP_FLOP_FP16, 2}, {"HMUL2", GP_FLOP_FP16, 2},   {"HFMA2", GP_FLOP_FP16, 4},
    {"DADD", GP_FLOP_FP64, 1},  {"DMUL", GP_FLOP_FP64, 1},    {"DFMA", GP_FLOP_FP64, 2},
};

static const char *const flop_precision_names[GP_FLOP_PRECISIONS] = {"none", "fp32", "fp16",
                                                                     "fp64"};

const char *gp_flop_precision_name(int precision) {
  if (precision < 0 || precision >= GP_FLOP_PRECISIONS)
    return "invalid";
  return flop_precision_names[precision];
}

/* Generic addresses.  NVBit documents both windows as 16 MB from their base
 * ("shmem range is [shmem_base_addr, shmem_base_addr+16MB) and the base
 * address is 16MB aligned", and likewise for local memory: nvbit.h,
 * nvbit_get_shmem_base_addr / nvbit_get_local_mem_base_addr).  Accel-Sim
 * (accel-sim-framework, gpu-simulator/trace-driven/trace_driven.cc,
 * trace_warp_inst_t::parse_from_trace_struct, case OP_LD / OP_ST) checks the
 * first active address: shared when in [shmem_base, local_base), local when
 * in [local_base, local_base + LOCAL_MEM_SIZE_MAX), else global, and treats
 * every generic access as shared when either base is 0.  Its shared test
 * assumes the shared window lies below the local one; the traces recorded
 * here have local 32 MB below shared (bfs-rodinia-sm80, vectoradd-sm61), so
 * gpush uses NVBit's two 16 MB windows, which agree with Accel-Sim whenever
 * the shared window is below the local one, and keeps a generic access
 * global when no window is given (documented in docs/traces.md). */
#define GENERIC_WINDOW (16ull << 20)

int gp_resolve_generic(int op_class, uint64_t addr, uint64_t shmem_base,
                       uint64_t local_base) {
  int is_store = op_class == GP_OP_ST_GLOBAL;
  int is_atom = op_class == GP_OP_ATOM_GLOBAL;
  if (shmem_base != 0 && addr >= shmem_base && addr - shmem_base < GENERIC_WINDOW)
    return is_atom ? GP_OP_ATOM_SHARED : is_store ? GP_OP_ST_SHARED : GP_OP_LD_SHARED;
  /* atomics have no local form: an atomic in the local window stays global */
  if (!is_atom && local_base != 0 && addr >= local_base &&
      addr - local_base < GENERIC_WINDOW)
    return is_store ? GP_OP_ST_LOCAL : GP_OP_LD_LOCAL;
  return op_class;
}

/* Generic-address memory opcodes: the space comes from the address. */
static const base_entry generic_table[] = {
    {"LD", GP_OP_LD_GLOBAL}, {"ST", GP_OP_ST_GLOBAL},
    {"ATOM", GP_OP_ATOM_GLOBAL}, {"RED", GP_OP_ATOM_GLOBAL}};

/* Conversions: SFU class from Volta (binary version 70) on. */
static const char *const conversions[] = {"F2F", "F2I", "I2F", "I2I", "FRND",
                                          "F2FP", "I2FP", "F2IP", NULL};

static int base_is(const char *op, size_t len, const char *name) {
  return strlen(name) == len && memcmp(op, name, len) == 0;
}

static int has_modifier(const char *op, size_t len, const char *mod) {
  size_t m = strlen(mod);
  const char *p = op, *end = op + len;
  while (p < end) {
    const char *dot = memchr(p, '.', (size_t)(end - p));
    const char *stop = dot ? dot : end;
    if (p != op && (size_t)(stop - p) == m && memcmp(p, mod, m) == 0)
      return 1;
    p = dot ? dot + 1 : end;
  }
  return 0;
}

/* Data width from the type suffix; 4 bytes by default. */
static uint8_t suffix_width(const char *op, size_t len) {
  if (has_modifier(op, len, "128"))
    return 16;
  if (has_modifier(op, len, "64") || has_modifier(op, len, "U64") ||
      has_modifier(op, len, "S64") || has_modifier(op, len, "F64"))
    return 8;
  if (has_modifier(op, len, "16") || has_modifier(op, len, "U16") ||
      has_modifier(op, len, "S16"))
    return 2;
  if (has_modifier(op, len, "8") || has_modifier(op, len, "U8") ||
      has_modifier(op, len, "S8"))
    return 1;
  return 4;
}

/* The first type modifier (F/S/U followed by digits) names the destination
 * type of conversions: F2F.F64.F32 and F2I.FTZ.S64.TRUNC write 64 bits. */
static int first_type_is_64(const char *op, size_t len) {
  const char *p = memchr(op, '.', len), *end = op + len;
  while (p != NULL && p < end) {
    const char *m = p + 1, *stop = memchr(m, '.', (size_t)(end - m));
    size_t n = (size_t)((stop ? stop : end) - m);
    if (n >= 2 && (m[0] == 'F' || m[0] == 'S' || m[0] == 'U') && m[1] >= '0' &&
        m[1] <= '9')
      return n == 3 && m[1] == '6' && m[2] == '4';
    p = stop;
  }
  return 0;
}

static int ends_with(const char *s, size_t len, const char *suffix) {
  size_t n = strlen(suffix);
  return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

gp_opcode_info gp_opcode_classify(const char *opcode, size_t len,
                                  int binary_version) {
  gp_opcode_info info;
  const char *dot = memchr(opcode, '.', len);
  size_t base_len = dot ? (size_t)(dot - opcode) : len;
  size_t i;

  memset(&info, 0, sizeof info);
  info.op_class = GP_OP_INT;
  info.width = suffix_width(opcode, len);
  info.dest_regs = 1;
  info.known = 1;

  for (i = 0; i < sizeof base_table / sizeof base_table[0]; i++) {
    if (base_is(opcode, base_len, base_table[i].name)) {
      info.op_class = base_table[i].op_class;
      goto classified;
    }
  }
  for (i = 0; i < sizeof generic_table / sizeof generic_table[0]; i++) {
    if (base_is(opcode, base_len, generic_table[i].name)) {
      info.op_class = generic_table[i].op_class;
      info.generic = 1;
      goto classified;
    }
  }
  for (i = 0; conversions[i] != NULL; i++) {
    if (base_is(opcode, base_len, conversions[i])) {
      info.op_class = binary_version >= 70 ? GP_OP_SFU : GP_OP_INT;
      if (first_type_is_64(opcode, len))
        info.dest_regs = 2;
      goto classified;
    }
  }
  if (ends_with(opcode, base_len, "MMA")) {
    info.op_class = GP_OP_TENSOR;
    /* FP32 accumulators of an m16n8k* tile take 4 registers per thread,
     * FP16 ones 2 (a documented approximation of the shapes). */
    info.dest_regs = has_modifier(opcode, len, "F16") ? 2 : 4;
    return info;
  }
  if (base_len > 1 && opcode[0] == 'U') {
    info.op_class = GP_OP_UNIFORM;
    return info;
  }
  info.known = 0;
  return info;

classified:
  if (info.op_class == GP_OP_BARRIER && has_modifier(opcode, len, "ARV"))
    info.op_class = GP_OP_BARRIER_ARRIVE;
  if (info.op_class == GP_OP_FP64 && !base_is(opcode, base_len, "DSETP"))
    info.dest_regs = 2;
  else if (info.op_class == GP_OP_IMAD && has_modifier(opcode, len, "WIDE"))
    info.dest_regs = 2;
  else if (gp_op_is_load(info.op_class))
    info.dest_regs = info.width > 4 ? (uint8_t)(info.width / 4) : 1;
  else if (!gp_op_is_memory(info.op_class) && has_modifier(opcode, len, "128"))
    info.dest_regs = 4; /* e.g. a 128-bit move */
  else if (!gp_op_is_memory(info.op_class) && has_modifier(opcode, len, "64"))
    info.dest_regs = 2; /* IADD.64, MOV.64, IMNMX.64 (sm_90) */
  return info;
}

/* FLOPs of one lane of `opcode` (with modifiers) from flop_table;
 * HFMA2.MMA is the compiler's move idiom, no arithmetic. */
uint8_t gp_opcode_flops(const char *opcode, size_t len, uint8_t *precision) {
  const char *dot = memchr(opcode, '.', len);
  size_t base_len = dot ? (size_t)(dot - opcode) : len, i;
  *precision = GP_FLOP_NONE;
  if (len == 9 && memcmp(opcode, "HFMA2.MMA", 9) == 0)
    return 0;
  for (i = 0; i < sizeof flop_table / sizeof flop_table[0]; i++) {
    if (base_is(opcode, base_len, flop_table[i].name)) {
      *precision = flop_table[i].precision;
      return flop_table[i].flops;
    }
  }
  return 0;
}
