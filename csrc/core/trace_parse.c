/*
 * trace_parse.c -- Accel-Sim .traceg text to a gp_kernel.
 *
 * Format facts (Accel-Sim tracer, versions 1-5; ../shared/traces/SOURCES.md
 * and docs/traces.md):
 *   header:  "-key = value" lines, then "#traces format = ..."
 *   body:    #BEGIN_TB / "thread block = x,y,z" / per warp "warp = N",
 *            "insts = K" and K instruction lines / #END_TB
 *   line:    [tb_x tb_y tb_z warp]   (no -accelsim tracer version line:
 *                                     pre-3 traces)
 *            [line_num]              (with -enable lineinfo = 1)
 *            PC mask dest_num [Rd...] opcode src_num [Rs...] mem_width
 *            [mode addresses...]     (when mem_width > 0)
 *            [immediate]             (tracer version 5)
 *   modes:   0 one hex address per active lane; 1 hex base and decimal
 *            stride; 2 hex base and popcount(mask)-1 decimal deltas, each
 *            added to the previous address.
 * The tokenizer is hand-written (no sscanf, no strtok): every number is
 * parsed in place from the line buffer in one pass.
 */
#include "trace.h"
#include "trace_io.h"
#include "trace_scan.h"

#include <stdio.h>
#include <string.h>

#define MAX_WARPS (1u << 24)       /* refuse grids needing more warp slots */
#define MAX_INSTS_PER_WARP 100000000u
#define MIN_INST_LINE 12           /* "0 0 0 X 0 0\n": the shortest line */
#define RESERVE_UNKNOWN (1u << 16) /* pre-reservation when the size is unknown */
#define RESERVE_KNOWN_MAX (1u << 22) /* at most 84 MB of arrays reserved ahead of the text */
#define AHEAD_BYTES 8u /* text bytes per line or lane address reserved ahead */
#define NO_MEMORY UINT32_MAX
#define PC_SLOT_EMPTY UINT32_MAX   /* a free slot of the PC table (no static index is that large) */
#define SHOWN (4 * 40 + 4)         /* room for 40 bytes of input as gp_visible shows them */

_Static_assert(sizeof(gp_mem_record) == 20, "gp_mem_record is 20 bytes");

/* Parser state for one kernel. */
typedef struct parser {
  gp_kernel *k;
  gp_line_input *in;
  gp_error *err;
  /* the line being parsed; tok_start: where the last number began */
  const char *p, *end, *tok_start;
  /* body state */
  int in_block;
  uint32_t block_index, block_xyz[3];
  int64_t warp;               /* global warp index, -1 before "warp =" */
  uint32_t warp_id;
  uint64_t remaining;         /* instructions still expected for the warp */
  uint64_t declared;
  int counted;                /* the warp's 'insts =' was read */
  gp_scoreboard sb;
  uint64_t deps_dropped;      /* instructions with more producers than GP_DEPS */
  int any_unknown;
  uint64_t blocks_seen;       /* "thread block =" lines */
  uint64_t kernel_cap;        /* bytes the kernel's arrays may hold (0: no cap) */
} parser;

/* ---------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------- */

static int fail(parser *ps, const char *what) {
  return gp_error_set(ps->err, "%s:%llu: %s", gp_line_name(ps->in),
                      (unsigned long long)gp_line_number(ps->in), what);
}

/* ---------------------------------------------------------------------------
 * Tokens
 * ------------------------------------------------------------------------- */

static int is_space(char c) { return c == ' ' || c == '\t'; }

static void skip_spaces(parser *ps) {
  while (ps->p < ps->end && is_space(*ps->p))
    ps->p++;
}

/* Next token as [*tok, *tok + *len); 0 at the end of the line. */
static int token(parser *ps, const char **tok, size_t *len) {
  skip_spaces(ps);
  if (ps->p >= ps->end)
    return 0;
  *tok = ps->p;
  while (ps->p < ps->end && !is_space(*ps->p))
    ps->p++;
  *len = (size_t)(ps->p - *tok);
  return 1;
}

/* A hex token with or without 0x, at most 16 digits. */
static int parse_hex(const char *t, size_t len, uint64_t *out) {
  uint64_t v = 0;
  size_t i = 0;
  if (len > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
    i = 2;
  if (i == len || len - i > 16)
    return 0;
  for (; i < len; i++) {
    unsigned d = gp_hex_digit[(unsigned char)t[i]];
    if (d == 0)
      return 0;
    v = (v << 4) | (d - 1);
  }
  *out = v;
  return 1;
}

/* A decimal token, optionally signed, within int64. */
static int parse_dec(const char *t, size_t len, int64_t *out) {
  uint64_t v = 0;
  size_t i = 0;
  int neg = 0;
  if (len > 0 && (t[0] == '-' || t[0] == '+')) {
    neg = t[0] == '-';
    i = 1;
  }
  if (i == len || len - i > 18)
    return 0;
  for (; i < len; i++) {
    if (t[i] < '0' || t[i] > '9')
      return 0;
    v = v * 10 + (uint64_t)(t[i] - '0');
  }
  *out = neg ? -(int64_t)v : (int64_t)v;
  return 1;
}

/* Reports a bad or missing token for next_hex / next_dec. */
static int bad_token(parser *ps, const char *what, const char *range) {
  const char *t;
  size_t len;
  char msg[400], shown[SHOWN];
  ps->p = ps->tok_start;
  if (!token(ps, &t, &len)) {
    snprintf(msg, sizeof msg, "expected %s%s, found the end of the line", what,
             range[0] == ' ' && range[1] == '(' ? range : "");
    return fail(ps, msg);
  }
  snprintf(msg, sizeof msg, "expected %s%s, found '%s'", what, range,
           gp_visible(shown, sizeof shown, t, len, 40));
  return fail(ps, msg);
}

/* The next token as hex, parsed in place (the hot path of the reader). */
static int next_hex(parser *ps, uint64_t *out, const char *what) {
  const char *p, *end = ps->end;
  uint64_t v = 0;
  int digits = 0;
  skip_spaces(ps);
  ps->tok_start = p = ps->p;
  if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    p += 2;
  for (; p < end && !is_space(*p); p++, digits++) {
    unsigned d = gp_hex_digit[(unsigned char)*p];
    if (d == 0 || digits == 16)
      return bad_token(ps, what, " (hex)");
    v = (v << 4) | (d - 1);
  }
  if (digits == 0)
    return bad_token(ps, what, " (hex)");
  ps->p = p;
  *out = v;
  return GP_OK;
}

/* The next token as a decimal in [lo, hi], parsed in place. */
static int next_dec(parser *ps, int64_t *out, int64_t lo, int64_t hi,
                    const char *what) {
  const char *p, *end = ps->end;
  uint64_t v = 0;
  int digits = 0, neg = 0;
  char range[80];
  skip_spaces(ps);
  ps->tok_start = p = ps->p;
  if (p < end && (*p == '-' || *p == '+'))
    neg = *p++ == '-';
  for (; p < end && *p >= '0' && *p <= '9' && digits < 19; p++, digits++)
    v = v * 10 + (uint64_t)(*p - '0');
  if (digits > 0 && (p == end || is_space(*p)) && v <= (uint64_t)INT64_MAX) {
    int64_t x = neg ? -(int64_t)v : (int64_t)v;
    if (x >= lo && x <= hi) {
      ps->p = p;
      *out = x;
      return GP_OK;
    }
  }
  snprintf(range, sizeof range, " from %lld to %lld", (long long)lo, (long long)hi);
  return bad_token(ps, what, range);
}

/* read_hex past an address's usual shape: the scanner, else next_hex from
 * the same place (out of line, so that the usual case needs no frame). */
static __attribute__((noinline)) int read_hex_scanned(parser *ps, const char **pp, uint64_t *out,
                                                      const char *what) {
  if (scan_hex(pp, ps->end, out))
    return GP_OK;
  ps->p = *pp;
  if (next_hex(ps, out, what) != GP_OK)
    return GP_ERR;
  *pp = ps->p;
  return GP_OK;
}

/* The next hex token from the cursor *pp: an address's usual shape, else
 * read_hex_scanned (same value or same error; trace_scan.h). */
static inline int read_hex(parser *ps, const char **pp, uint64_t *out, const char *what) {
  if (scan_address(pp, ps->end, out))
    return GP_OK;
  return read_hex_scanned(ps, pp, out, what);
}

/* read_dec past its one-digit case: the scanner, else next_dec from the
 * same place (out of line, so that the one-digit case needs no frame). */
static __attribute__((noinline)) int read_dec_scanned(parser *ps, const char **pp, int64_t *out,
                                                      int64_t lo, int64_t hi, const char *what) {
  const char *p = *pp;
  int64_t v;
  if (scan_dec(&p, ps->end, &v) && v >= lo && v <= hi) {
    *pp = p;
    *out = v;
    return GP_OK;
  }
  ps->p = *pp;
  if (next_dec(ps, out, lo, hi, what) != GP_OK)
    return GP_ERR;
  *pp = ps->p;
  return GP_OK;
}

/* The next decimal token in [lo, hi] from the cursor *pp: one digit then a
 * blank (an address mode, a small stride) at once, else read_dec_scanned. */
static inline int read_dec(parser *ps, const char **pp, int64_t *out, int64_t lo, int64_t hi,
                           const char *what) {
  const char *p = *pp;
  if (ps->end - p >= 2 && (unsigned)(p[0] - '0') < 10u && scan_blank(p[1]) && p[0] - '0' >= lo &&
      p[0] - '0' <= hi) {
    *pp = p + 2;
    *out = p[0] - '0';
    return GP_OK;
  }
  return read_dec_scanned(ps, pp, out, lo, hi, what);
}

/* A register token "R12": its number (R255 is RZ), GP_REG_RZ for RZ and
 * for operands that are not R registers (P0, UR4, ...), which never make a
 * dependence, or -1 for a token that starts with R but is not one of
 * R0-R255 (R256, R1000, R-1, R: no such register; read as "no register"
 * they would drop a dependence without a word). */
static int register_number(const char *t, size_t len) {
  unsigned n = 0;
  size_t i;
  if (len == 0 || t[0] != 'R' || (len == 2 && t[1] == 'Z'))
    return GP_REG_RZ;
  if (len == 1)
    return -1;
  for (i = 1; i < len; i++) {
    if (t[i] < '0' || t[i] > '9')
      return -1;
    if (n <= GP_REG_RZ)
      n = n * 10 + (unsigned)(t[i] - '0');
  }
  return n > GP_REG_RZ ? -1 : (int)n;
}

/* 1 when every byte is printable ASCII (opcodes are stored as C strings). */
static int printable(const char *t, size_t len) {
  size_t i;
  for (i = 0; i < len; i++)
    if ((unsigned char)t[i] < 0x21 || (unsigned char)t[i] > 0x7e)
      return 0;
  return 1;
}

/* Tokens between the cursor and the end of the line. */
static int tokens_left(const parser *ps) {
  const char *p = ps->p;
  int n = 0;
  while (p < ps->end) {
    while (p < ps->end && is_space(*p))
      p++;
    if (p == ps->end)
      break;
    n++;
    while (p < ps->end && !is_space(*p))
      p++;
  }
  return n;
}

/* Bits set in a 32-bit mask. */
static int popcount32(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return (int)((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

/* ---------------------------------------------------------------------------
 * Kernel storage
 * ------------------------------------------------------------------------- */

#define GROW(ps, field, cap, need)                                             \
  (gp_grow(&(ps)->k->alloc, (void **)&(ps)->k->field, &(ps)->k->cap, (need),   \
           sizeof *(ps)->k->field) == GP_OK)

/* Bytes the kernel's arrays hold (their capacities), against the cap on a
 * launch parsed from compressed input. */
static uint64_t kernel_bytes(const gp_kernel *k) {
  return (uint64_t)k->cap_warps * (sizeof *k->warp_start + sizeof *k->warp_len) +
         (uint64_t)k->cap_insts * (4 + sizeof *k->pc_index + sizeof *k->mem + GP_DEPS * sizeof *k->deps) +
         (uint64_t)k->cap_mem * sizeof *k->mem_records + (uint64_t)k->cap_addr * sizeof *k->addresses +
         (uint64_t)k->cap_lines * (sizeof *k->lines + 1) + (uint64_t)k->cap_statics * sizeof *k->statics +
         (uint64_t)k->cap_strings + (uint64_t)k->pc_table_cap * sizeof *k->pc_table;
}

static int check_kernel_cap(parser *ps) {
  char msg[400];
  if (ps->kernel_cap == 0 || kernel_bytes(ps->k) <= ps->kernel_cap)
    return GP_OK;
  snprintf(msg, sizeof msg, "the launch needs more than %llu MiB in memory once parsed, gpush's limit "
           "for a compressed trace (" GP_TRACE_LIMIT_HINT ")",
           (unsigned long long)(ps->kernel_cap >> 20));
  return fail(ps, msg);
}

/* Makes room for `need` instructions in every per-instruction array. */
static int reserve_insts(parser *ps, size_t need) {
  gp_kernel *k = ps->k;
  size_t cap;
  if (need <= k->cap_insts)
    return GP_OK;
  cap = k->cap_insts;
  if (gp_grow(&k->alloc, (void **)&k->op_class, &cap, need, 1) != GP_OK)
    return fail(ps, "out of memory");
#define REGROW(field)                                                          \
  do {                                                                         \
    void *n = gp_realloc(&k->alloc, k->field, k->cap_insts * sizeof *k->field, \
                         cap * sizeof *k->field);                              \
    if (n == NULL)                                                             \
      return fail(ps, "out of memory");                                        \
    k->field = n;                                                              \
  } while (0)
  /* op_class already has `cap`; the others follow.  On failure cap_insts
   * stays the smallest capacity every array has. */
  REGROW(active);
  REGROW(flags);
  REGROW(width);
  REGROW(pc_index);
  REGROW(mem);
#undef REGROW
  {
    void *n = gp_realloc(&k->alloc, k->deps, k->cap_insts * GP_DEPS * sizeof *k->deps,
                         cap * GP_DEPS * sizeof *k->deps);
    if (n == NULL)
      return fail(ps, "out of memory");
    k->deps = n;
  }
  k->cap_insts = cap;
  return GP_OK;
}

static uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

static int pc_table_grow(parser *ps) {
  gp_kernel *k = ps->k;
  size_t ncap = k->pc_table_cap ? k->pc_table_cap * 2 : 1024, i;
  gp_pc_slot *old = k->pc_table, *fresh = gp_malloc(&k->alloc, ncap * sizeof *fresh);
  if (fresh == NULL)
    return fail(ps, "out of memory");
  for (i = 0; i < ncap; i++)
    fresh[i].index = PC_SLOT_EMPTY;
  for (i = 0; i < k->pc_table_cap; i++) {
    if (old[i].index != PC_SLOT_EMPTY) {
      size_t j = (size_t)mix64(old[i].key) & (ncap - 1);
      while (fresh[j].index != PC_SLOT_EMPTY)
        j = (j + 1) & (ncap - 1);
      fresh[j] = old[i];
    }
  }
  gp_free(&k->alloc, old, k->pc_table_cap * sizeof *old);
  k->pc_table = fresh;
  k->pc_table_cap = ncap;
  return GP_OK;
}

/* An opcode of at most 8 bytes as one word, zero-padded (as it is kept in
 * its PC slot): the scanner's word (`scanned`, 0 when it had none), else
 * read with one load where 8 bytes of the line are left; 0 when it is
 * longer or the load cannot be made (then memcmp decides). */
static inline int opcode_word(const char *op, size_t op_len, uint64_t scanned, const char *end,
                              uint64_t *w) {
  uint64_t x;
  if (scanned != 0) {
    *w = scanned;
    return 1;
  }
  if (!SCAN_LITTLE_ENDIAN || op_len > 8 || end - op < 8)
    return 0;
  x = scan_load8(op);
  *w = op_len == 8 ? x : x & ((1ull << (8 * op_len)) - 1);
  return 1;
}

/* Finds or adds the static instruction at pc with this opcode text (op8:
 * the scanner's word of it, or 0); the same PC must always hold the same
 * opcode. */
static int static_index(parser *ps, uint64_t pc, const char *op, size_t op_len, uint64_t op8,
                        uint32_t line_num, uint32_t *out) {
  gp_kernel *k = ps->k;
  gp_pc_slot *table;
  size_t j;
  gp_static_inst *s;
  gp_opcode_info info;
  uint64_t w;
  if (k->static_count * 2 >= k->pc_table_cap && pc_table_grow(ps) != GP_OK)
    return GP_ERR;
  table = k->pc_table;
  j = (size_t)mix64(pc) & (k->pc_table_cap - 1);
  while (table[j].index != PC_SLOT_EMPTY) {
    if (table[j].key == pc) {
      const char *known;
      if (table[j].op_len == op_len && opcode_word(op, op_len, op8, ps->end, &w)) {
        if (w == table[j].op8) {
          *out = table[j].index;
          return GP_OK;
        }
      }
      s = &k->statics[table[j].index];
      known = k->strings + s->opcode;
      if (table[j].op_len != op_len || memcmp(known, op, op_len) != 0) {
        char msg[200];
        snprintf(msg, sizeof msg, "PC 0x%llx holds '%.40s' earlier and '%.*s' here",
                 (unsigned long long)pc, known, (int)(op_len > 40 ? 40 : op_len), op);
        return fail(ps, msg);
      }
      *out = table[j].index;
      return GP_OK;
    }
    j = (j + 1) & (k->pc_table_cap - 1);
  }
  if (k->static_count == UINT32_MAX || k->strings_len + op_len + 1 > UINT32_MAX)
    return fail(ps, "too many distinct PCs");
  if (!GROW(ps, statics, cap_statics, k->static_count + 1) ||
      !GROW(ps, strings, cap_strings, k->strings_len + op_len + 1))
    return fail(ps, "out of memory");
  s = &k->statics[k->static_count];
  memset(s, 0, sizeof *s);
  s->pc = pc;
  s->opcode = (uint32_t)k->strings_len;
  s->line_num = line_num;
  memcpy(k->strings + k->strings_len, op, op_len);
  k->strings[k->strings_len + op_len] = '\0';
  k->strings_len += op_len + 1;
  info = gp_opcode_classify(op, op_len, k->binary_version);
  s->op_class = info.op_class;
  s->width = info.width;
  s->dest_regs = info.dest_regs;
  s->known = info.known;
  s->generic = info.generic;
  if (!info.known)
    ps->any_unknown = 1;
  table[j].key = pc;
  table[j].index = k->static_count;
  table[j].op_len = (uint32_t)op_len;
  table[j].op8 = 0;
  if (op_len <= 8)
    memcpy(&table[j].op8, op, op_len);
  *out = k->static_count++;
  return GP_OK;
}

/* ---------------------------------------------------------------------------
 * Memory: lane addresses, generic resolution, lines and sectors
 * ------------------------------------------------------------------------- */

/* Before a launch's first instruction, when the text's size is known:
 * room for a line and a lane address per AHEAD_BYTES bytes of the text
 * left (at most RESERVE_KNOWN_MAX of each), so that the pools are not
 * doubled and copied as they fill (copies that touch pages twice).  Pages
 * never written are never touched.  Best effort: what cannot be had now
 * is grown later as before. */
static void reserve_pools_ahead(gp_kernel *k, uint64_t left) {
  size_t ahead = left / AHEAD_BYTES < RESERVE_KNOWN_MAX ? (size_t)(left / AHEAD_BYTES) : RESERVE_KNOWN_MAX;
  if (gp_kernel_reserve_lines(k, ahead) == GP_OK)
    (void)gp_grow(&k->alloc, (void **)&k->addresses, &k->cap_addr, ahead, sizeof *k->addresses);
}

/* Makes room for `more` lane addresses (the common case: room left). */
static int reserve_addresses(parser *ps, int more) {
  gp_kernel *k = ps->k;
  if ((uint64_t)k->address_count + (uint64_t)more > UINT32_MAX)
    return fail(ps, "more than 4 G lane addresses in one kernel");
  if ((size_t)k->address_count + (size_t)more > k->cap_addr &&
      !GROW(ps, addresses, cap_addr, (size_t)k->address_count + (size_t)more))
    return fail(ps, "out of memory");
  return GP_OK;
}

/* Mode 2: the base, then each lane's decimal delta from the previous lane
 * (the bulk of a gather's text), read in one loop.  deltas[i - 1] keeps lane
 * i's delta as 32 bits and *small says whether every delta fits them, so
 * that keep_deltas_if_small need not compute them again. */
static int read_deltas(parser *ps, const char **pp, int lanes, uint64_t *addrs, int32_t *deltas,
                       int *small) {
  const char *p = *pp, *end = ps->end;
  uint64_t base, wide = 0;
  int i;
  if (read_hex(ps, &p, &base, "a base address") != GP_OK)
    return GP_ERR;
  if (lanes > 0)
    addrs[0] = base;
  for (i = 1; i < lanes; i++) {
    int64_t delta;
    if (!scan_dec(&p, end, &delta)) {
      ps->p = p;
      if (next_dec(ps, &delta, INT64_MIN / 2, INT64_MAX / 2, "an address delta") != GP_OK)
        return GP_ERR;
      p = ps->p;
    }
    addrs[i] = addrs[i - 1] + (uint64_t)delta;
    deltas[i - 1] = (int32_t)delta;
    wide |= (uint64_t)delta ^ (uint64_t)(int64_t)deltas[i - 1]; /* not 0: it did not fit */
  }
  *small = wide == 0;
  *pp = p;
  return GP_OK;
}

/* Keeps evenly spaced lanes (a stride that fits 32 bits) as their first
 * address and the stride: a gather the tracer wrote lane by lane (modes 0
 * and 2) that is strided after all takes one stored address, not 32. */
static void keep_strided_if_even(gp_mem_record *rec, const uint64_t *addrs, int lanes) {
  int64_t stride;
  int i;
  if (lanes < 2)
    return;
  stride = (int64_t)(addrs[1] - addrs[0]);
  if (stride < INT32_MIN || stride > INT32_MAX)
    return;
  for (i = 2; i < lanes; i++)
    if ((int64_t)(addrs[i] - addrs[i - 1]) != stride)
      return;
  rec->lanes = GP_LANES_STRIDED;
  rec->stride = (int32_t)stride;
}

/* Keeps a list of three or more lanes as the first lane and each lane's
 * difference from the previous when every difference fits 32 bits (a
 * gather: 1 + lanes / 2 stored addresses, not `lanes`), in place at addrs,
 * the spare half of an odd slot zero.  `known`: those differences, all
 * fitting, as read_deltas kept them (NULL: computed here). */
static void keep_deltas_if_small(gp_mem_record *rec, uint64_t *addrs, int lanes,
                                 const int32_t *known) {
  int32_t deltas[31];
  int i;
  if (lanes < 3)
    return;
  if (known == NULL) {
    for (i = 1; i < lanes; i++) {
      int64_t d = (int64_t)(addrs[i] - addrs[i - 1]);
      if (d < INT32_MIN || d > INT32_MAX)
        return;
      deltas[i - 1] = (int32_t)d;
    }
    known = deltas;
  }
  addrs[lanes / 2] = 0;
  memcpy(addrs + 1, known, (size_t)(lanes - 1) * sizeof *known);
  rec->lanes = GP_LANES_DELTAS;
}

/* Shared addresses become offsets in the block's shared memory: a lane at or
 * above the window's base `sb` loses it (LDS/STS already carry offsets;
 * generic ones carry window addresses).  A strided record whose lanes fall
 * on both sides of the base is stored lane by lane (its `lanes` reserved
 * slots at addrs). */
static void shared_offsets(gp_kernel *k, gp_mem_record *rec, uint64_t *addrs, int lanes,
                           uint64_t sb) {
  int i;
  if (rec->lanes == GP_LANES_STRIDED) {
    uint64_t last = addrs[0] + (uint64_t)(int64_t)rec->stride * (uint64_t)(lanes - 1);
    uint64_t buf[32];
    const uint64_t *l;
    if (rec->stride >= 0 && last >= addrs[0]) { /* ascending, no wrap */
      if (addrs[0] >= sb) {
        addrs[0] -= sb;
        return;
      }
      if (last < sb)
        return;
    }
    l = gp_mem_lanes(k, rec, buf);
    memmove(addrs, l, (size_t)lanes * sizeof *addrs);
    rec->lanes = GP_LANES_LIST;
    rec->stride = 0;
  }
  for (i = 0; i < lanes; i++)
    if (addrs[i] >= sb)
      addrs[i] -= sb;
}

/* Parses the memory part of an instruction line after mem_width (from the
 * cursor *pp): the address mode and the lane addresses (evenly spaced lanes
 * kept as base and stride, GP_LANES_STRIDED; others as 32-bit deltas where
 * they fit, GP_LANES_DELTAS), then resolves generic
 * accesses and coalesces those that reach L1/L2 (trace_coalesce.c). */
static int parse_memory(parser *ps, const char **pp, int lanes, uint32_t inst,
                        uint8_t *op_class, uint8_t width, int generic) {
  gp_kernel *k = ps->k;
  gp_mem_record rec;
  int64_t mode, stride = 0;
  uint64_t base, *addrs;
  int32_t deltas[31];
  const int32_t *known = NULL; /* the lanes' deltas, all of 32 bits, when read so */
  int i, small = 0;
  if (read_dec(ps, pp, &mode, 0, 2, "an address mode (0, 1 or 2)") != GP_OK ||
      reserve_addresses(ps, lanes) != GP_OK)
    return GP_ERR;
  memset(&rec, 0, sizeof rec);
  rec.addr_start = k->address_count;
  addrs = lanes > 0 ? k->addresses + k->address_count : NULL;
  if (mode == 0) {
    for (i = 0; i < lanes; i++)
      if (read_hex(ps, pp, &addrs[i], "a lane address") != GP_OK)
        return GP_ERR;
  } else if (mode == 1) {
    if (read_hex(ps, pp, &base, "a base address") != GP_OK ||
        read_dec(ps, pp, &stride, INT32_MIN, INT32_MAX, "an address stride") != GP_OK)
      return GP_ERR;
    if (lanes > 0)
      addrs[0] = base;
    rec.lanes = GP_LANES_STRIDED;
    rec.stride = (int32_t)stride;
  } else {
    /* with an empty mask the base is optional (the tracer writes empty
     * masks in mode 1: "1 0x0 0") */
    ps->p = *pp;
    if ((lanes > 0 || tokens_left(ps) > (k->trace_version >= 5 ? 1 : 0)) &&
        read_deltas(ps, pp, lanes, addrs, deltas, &small) != GP_OK)
      return GP_ERR;
    if (small)
      known = deltas;
  }
  if (lanes == 0) { /* an empty mask issues but makes no request */
    k->flags[inst] |= GP_INST_NO_MEMORY;
    return GP_OK;
  }
  if (mode != 1)
    keep_strided_if_even(&rec, addrs, lanes);
  rec.addr_count = (uint8_t)lanes;
  if (generic)
    *op_class = (uint8_t)gp_resolve_generic(*op_class, addrs[0], k->shmem_base,
                                            k->local_base);
  if (*op_class == GP_OP_LD_SHARED || *op_class == GP_OP_ST_SHARED ||
      *op_class == GP_OP_ATOM_SHARED) {
    if (k->shmem_base != 0) {
      shared_offsets(k, &rec, addrs, lanes, k->shmem_base);
      known = NULL; /* the offsets' differences are not the addresses' */
    }
  } else if (gp_op_uses_cache(*op_class)) {
    int r = gp_kernel_add_lines(k, &rec, width);
    if (r == -1)
      return fail(ps, "one instruction touches more than 64 lines of 128 B");
    if (r != 0)
      return fail(ps, "out of memory");
  }
  if (rec.lanes == GP_LANES_LIST) /* after the lines: they read the lanes as a list */
    keep_deltas_if_small(&rec, addrs, lanes, known);
  k->address_count += gp_mem_stored(&rec);
  if ((size_t)k->mem_count + 1 > k->cap_mem &&
      !GROW(ps, mem_records, cap_mem, (size_t)k->mem_count + 1))
    return fail(ps, "out of memory");
  k->mem_records[k->mem_count] = rec;
  k->mem[inst] = k->mem_count++;
  return GP_OK;
}

/* ---------------------------------------------------------------------------
 * Instruction lines
 * ------------------------------------------------------------------------- */

/* The fields of an instruction line before its memory part. */
typedef struct inst_text {
  int64_t line_num;
  uint64_t pc, mask;
  int ndst, nsrc, mem_width;
  uint8_t dsts[32], srcs[32];
  const char *op;
  size_t op_len;
  uint64_t op8; /* the opcode as a zero-padded word when the scanner read it so, else 0 */
  const char *rest; /* after mem_width */
} inst_text;

/* Reads a register list of `n` tokens into regs (non-R operands as RZ). */
static int read_registers(parser *ps, int64_t n, uint8_t *regs,
                          const char *what) {
  int64_t i;
  int reg;
  for (i = 0; i < n; i++) {
    const char *t;
    size_t len;
    if (!token(ps, &t, &len)) {
      char msg[120];
      snprintf(msg, sizeof msg, "expected %lld %s registers, found %lld",
               (long long)n, what, (long long)i);
      return fail(ps, msg);
    }
    reg = register_number(t, len);
    if (reg < 0) {
      char msg[300], shown[SHOWN];
      snprintf(msg, sizeof msg, "expected %s registers R0-R255 (R255 is RZ), found '%s'", what,
               gp_visible(shown, sizeof shown, t, len, 20));
      return fail(ps, msg);
    }
    regs[i] = (uint8_t)reg;
  }
  return GP_OK;
}

/* The fields before the memory part, read from `from` token by token with
 * the checked readers: the same fields as scan_fields, or the first error
 * in the line. */
static __attribute__((noinline)) int read_fields(parser *ps, const char *from, inst_text *t) {
  int64_t v;
  ps->p = from;
  t->line_num = 0;
  if (ps->k->lineinfo && next_dec(ps, &t->line_num, 0, UINT32_MAX, "a source line number") != GP_OK)
    return GP_ERR;
  if (next_hex(ps, &t->pc, "a PC") != GP_OK || next_hex(ps, &t->mask, "an active mask") != GP_OK)
    return GP_ERR;
  if (t->mask > 0xffffffffull) {
    ps->p = ps->tok_start;
    return bad_token(ps, "a 32-bit active mask", " (hex)");
  }
  if (next_dec(ps, &v, 0, 32, "a destination count") != GP_OK ||
      read_registers(ps, v, t->dsts, "destination") != GP_OK)
    return GP_ERR;
  t->ndst = (int)v;
  t->op8 = 0;
  if (!token(ps, &t->op, &t->op_len))
    return fail(ps, "expected an opcode, found the end of the line");
  if (!printable(t->op, t->op_len))
    return fail(ps, "expected an opcode, found bytes that are not printable text");
  if (next_dec(ps, &v, 0, 32, "a source count") != GP_OK ||
      read_registers(ps, v, t->srcs, "source") != GP_OK)
    return GP_ERR;
  t->nsrc = (int)v;
  if (next_dec(ps, &v, 0, 64, "a memory access width in bytes") != GP_OK)
    return GP_ERR;
  t->mem_width = (int)v;
  t->rest = ps->p;
  return GP_OK;
}

/* Pre-3 lines start with the block's coordinates and the warp id: they must
 * name the block and warp being read. */
static int check_line_ids(parser *ps) {
  int64_t v[4];
  int f;
  for (f = 0; f < 4; f++)
    if (next_dec(ps, &v[f], 0, UINT32_MAX,
                 f < 3 ? "a thread-block coordinate" : "a warp id") != GP_OK)
      return GP_ERR;
  if ((uint64_t)v[0] != ps->block_xyz[0] || (uint64_t)v[1] != ps->block_xyz[1] ||
      (uint64_t)v[2] != ps->block_xyz[2] || (uint64_t)v[3] != ps->warp_id) {
    char msg[200];
    snprintf(msg, sizeof msg,
             "expected block %u %u %u warp %u at the start of the line (a trace "
             "without a tracer version), found %lld %lld %lld %lld",
             ps->block_xyz[0], ps->block_xyz[1], ps->block_xyz[2], ps->warp_id,
             (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3]);
    return fail(ps, msg);
  }
  return GP_OK;
}

/* A count of one or two digits, at most hi (9 or more), by the scanner
 * (other spellings, such as +3 or 007, go to the checked reader).  One
 * digit then a blank, with no blank before it (the usual count), is read
 * at once. */
static inline __attribute__((always_inline)) int scan_count(const char **pp, const char *end, int hi,
                                                            int *out) {
  const char *p = *pp;
  int v;
  if (end - p >= 2 && (unsigned)(p[0] - '0') < 10u && scan_blank(p[1])) {
    *pp = p + 2;
    *out = p[0] - '0';
    return 1;
  }
  p = scan_skip_blanks(p, end);
  if (p == end || (unsigned)(*p - '0') >= 10u)
    return 0;
  v = *p++ - '0';
  if (p < end && (unsigned)(*p - '0') < 10u)
    v = v * 10 + (*p++ - '0');
  if (v > hi || !scan_token_end(p, end))
    return 0;
  *pp = scan_past_blank(p, end);
  *out = v;
  return 1;
}

/* The fields before the memory part by the scanners (trace_scan.h); 0 when
 * any token is not of the common shape (read_fields then reads the line). */
static inline __attribute__((always_inline)) int scan_fields(const char *p, const char *end, int lineinfo, inst_text *t) {
  int i;
  t->line_num = 0;
  if (lineinfo && (!scan_dec(&p, end, &t->line_num) || t->line_num < 0 || t->line_num > UINT32_MAX))
    return 0;
  if (!scan_hex(&p, end, &t->pc) || !scan_hex(&p, end, &t->mask) || t->mask > 0xffffffffull ||
      !scan_count(&p, end, 32, &t->ndst))
    return 0;
  for (i = 0; i < t->ndst; i++)
    if (!scan_register(&p, end, &t->dsts[i]))
      return 0;
  if (!scan_opcode(&p, end, &t->op, &t->op_len, &t->op8) || !scan_count(&p, end, 32, &t->nsrc))
    return 0;
  for (i = 0; i < t->nsrc; i++)
    if (!scan_register(&p, end, &t->srcs[i]))
      return 0;
  if (!scan_count(&p, end, 64, &t->mem_width))
    return 0;
  t->rest = p;
  return 1;
}

/* What may follow the memory part: nothing, or (version 5) exactly the
 * immediate operand. */
static int read_line_end(parser *ps, const char *p) {
  const char *t;
  size_t len;
  if (ps->end - p == 1 && !scan_blank(*p) && ps->k->trace_version >= 5)
    return GP_OK; /* the usual immediate: one byte ending the line */
  p = scan_skip_blanks(p, ps->end);
  if (ps->k->trace_version >= 5) {
    if (p == ps->end)
      return fail(ps, "expected the immediate operand (tracer version 5)");
    while (p < ps->end && !scan_blank(*p))
      p++;
    p = scan_skip_blanks(p, ps->end);
  }
  if (p == ps->end)
    return GP_OK;
  ps->p = p;
  if (token(ps, &t, &len)) {
    char msg[300], shown[SHOWN];
    snprintf(msg, sizeof msg, "unexpected '%s' after the instruction",
             gp_visible(shown, sizeof shown, t, len, 40));
    return fail(ps, msg);
  }
  return GP_OK;
}

static int parse_instruction(parser *ps) {
  gp_kernel *k = ps->k;
  uint64_t inst;
  const char *p;
  inst_text t;
  int lanes;
  uint32_t pc_idx = 0;
  gp_static_inst *s;
  uint8_t op_class;
  gp_dep dep;

  if (ps->warp < 0)
    return fail(ps, "expected 'warp = N' before the first instruction of a warp");
  if (ps->remaining == 0)
    return fail(ps, "more instruction lines than the warp's 'insts =' count");
  if (k->trace_version < 3 && check_line_ids(ps) != GP_OK)
    return GP_ERR;
  if (!scan_fields(ps->p, ps->end, k->lineinfo, &t) && read_fields(ps, ps->p, &t) != GP_OK)
    return GP_ERR;
  p = t.rest;
  if (((size_t)k->insts + 1 > k->cap_insts && reserve_insts(ps, (size_t)k->insts + 1) != GP_OK) ||
      static_index(ps, t.pc, t.op, t.op_len, t.op8, (uint32_t)t.line_num, &pc_idx) != GP_OK)
    return GP_ERR;
  inst = k->insts;
  s = &k->statics[pc_idx];
  op_class = s->op_class;
  lanes = popcount32((uint32_t)t.mask);
  k->pc_index[inst] = pc_idx;
  k->active[inst] = (uint8_t)lanes;
  k->flags[inst] = 0;
  k->width[inst] = t.mem_width > 0 ? (uint8_t)t.mem_width : s->width;
  k->mem[inst] = NO_MEMORY;
  if (t.mem_width > 0) {
    if (parse_memory(ps, &p, lanes, (uint32_t)inst, &op_class, (uint8_t)t.mem_width,
                     s->generic) != GP_OK)
      return GP_ERR;
  } else if (gp_op_is_memory(op_class)) {
    k->flags[inst] |= GP_INST_NO_MEMORY;
  }
  /* Version 5 ends with the immediate; nothing else may follow. */
  if (read_line_end(ps, p) != GP_OK)
    return GP_ERR;
  k->op_class[inst] = op_class;
  k->class_counts[op_class]++;
  gp_scoreboard_step(&ps->sb, inst, t.srcs, t.nsrc, t.dsts, t.ndst,
                     s->dest_regs, op_class, &dep);
  memcpy(k->deps + inst * GP_DEPS, dep.dist, sizeof dep.dist);
  k->flags[inst] |= (uint8_t)(dep.loads << GP_INST_LOAD_SHIFT);
  ps->deps_dropped += dep.dropped > 0;
  k->insts++;
  k->warp_len[ps->warp]++;
  ps->remaining--;
  return ps->kernel_cap == 0 ? GP_OK : check_kernel_cap(ps);
}

/* ---------------------------------------------------------------------------
 * Header and body structure
 * ------------------------------------------------------------------------- */

static int starts_with(const char *line, size_t len, const char *prefix) {
  size_t n = strlen(prefix);
  return len >= n && memcmp(line, prefix, n) == 0;
}

/* Value text after '=' of a "-key = value" line. */
static const char *header_value(const char *line, size_t len, size_t *vlen) {
  const char *eq = memchr(line, '=', len), *end = line + len;
  if (eq == NULL)
    return NULL;
  eq++;
  while (eq < end && *eq == ' ')
    eq++;
  while (end > eq && end[-1] == ' ')
    end--;
  *vlen = (size_t)(end - eq);
  return eq;
}

/* "(x,y,z)" or "x,y,z" into three numbers. */
static int parse_triple(const char *v, size_t len, uint32_t out[3]) {
  int i = 0;
  size_t p = 0;
  if (p < len && v[p] == '(')
    p++;
  for (i = 0; i < 3; i++) {
    uint64_t x = 0;
    size_t digits = 0;
    while (p < len && v[p] == ' ')
      p++;
    while (p < len && v[p] >= '0' && v[p] <= '9' && digits < 10) {
      x = x * 10 + (uint64_t)(v[p++] - '0');
      digits++;
    }
    if (digits == 0 || x > UINT32_MAX)
      return 0;
    out[i] = (uint32_t)x;
    while (p < len && v[p] == ' ')
      p++;
    if (i < 2) {
      if (p >= len || v[p] != ',')
        return 0;
      p++;
    }
  }
  if (p < len && v[p] == ')')
    p++;
  return p == len;
}

static int header_number(parser *ps, const char *v, size_t vlen, int hex,
                         uint64_t max, uint64_t *out, const char *what) {
  int64_t d;
  char msg[400], shown[SHOWN];
  if (hex ? parse_hex(v, vlen, out) : (parse_dec(v, vlen, &d) && d >= 0 && (*out = (uint64_t)d, 1))) {
    if (*out <= max)
      return GP_OK;
  }
  snprintf(msg, sizeof msg, "expected %s, found '%s'", what, gp_visible(shown, sizeof shown, v, vlen, 40));
  return fail(ps, msg);
}

/* Parses one header line into the kernel. */
static int header_line(parser *ps, const char *line, size_t len) {
  gp_kernel *k = ps->k;
  size_t vlen;
  const char *v = header_value(line, len, &vlen);
  uint64_t x;
  if (v == NULL)
    return GP_OK; /* "-key" without a value: nothing gpush uses */
  if (starts_with(line, len, "-kernel name")) {
    snprintf(k->name, sizeof k->name, "%.*s", (int)vlen, v);
  } else if (starts_with(line, len, "-kernel id")) {
    if (header_number(ps, v, vlen, 0, UINT32_MAX, &x, "a kernel id") != GP_OK)
      return GP_ERR;
    k->launch_id = (uint32_t)x;
  } else if (starts_with(line, len, "-grid dim")) {
    if (!parse_triple(v, vlen, k->grid))
      return fail(ps, "expected '-grid dim = (x,y,z)'");
  } else if (starts_with(line, len, "-block dim")) {
    if (!parse_triple(v, vlen, k->block))
      return fail(ps, "expected '-block dim = (x,y,z)'");
  } else if (starts_with(line, len, "-shmem base_addr")) {
    if (header_number(ps, v, vlen, 1, UINT64_MAX, &k->shmem_base, "a hex shared-memory base address") != GP_OK)
      return GP_ERR;
  } else if (starts_with(line, len, "-shmem")) {
    if (header_number(ps, v, vlen, 0, 1u << 30, &x, "shared memory bytes per block") != GP_OK)
      return GP_ERR;
    k->shmem_bytes = (uint32_t)x;
  } else if (starts_with(line, len, "-nregs")) {
    if (header_number(ps, v, vlen, 0, 255, &x, "registers per thread (at most 255)") != GP_OK)
      return GP_ERR;
    k->nregs = (uint32_t)x;
  } else if (starts_with(line, len, "-binary version")) {
    if (header_number(ps, v, vlen, 0, 1000, &x, "a binary version such as 61, 70 or 80") != GP_OK)
      return GP_ERR;
    k->binary_version = (int)x;
  } else if (starts_with(line, len, "-local mem base_addr")) {
    if (header_number(ps, v, vlen, 1, UINT64_MAX, &k->local_base, "a hex local-memory base address") != GP_OK)
      return GP_ERR;
  } else if (starts_with(line, len, "-accelsim tracer version")) {
    if (header_number(ps, v, vlen, 0, 99, &x, "a tracer version") != GP_OK)
      return GP_ERR;
    k->trace_version = (int)x;
  } else if (starts_with(line, len, "-cuda stream id")) {
    if (header_number(ps, v, vlen, 0, UINT64_MAX, &k->stream_id, "a stream id") != GP_OK)
      return GP_ERR;
  } else if (starts_with(line, len, "-enable lineinfo")) {
    if (header_number(ps, v, vlen, 0, 1, &x, "0 or 1") != GP_OK)
      return GP_ERR;
    k->lineinfo = (int)x;
  }
  return GP_OK;
}

/* a * b, or 0 with *overflow set when it does not fit in 64 bits. */
static uint64_t mul_checked(uint64_t a, uint64_t b, int *overflow) {
  if (a != 0 && b > UINT64_MAX / a) {
    *overflow = 1;
    return 0;
  }
  return a * b;
}

/* Checks the geometry (no zero dimension, no 64-bit overflow of grid x
 * block, a bounded number of warps) and sizes the per-warp arrays. */
static int finish_header(parser *ps) {
  gp_kernel *k = ps->k;
  int over = 0;
  uint64_t blocks = mul_checked(mul_checked(k->grid[0], k->grid[1], &over), k->grid[2], &over);
  uint64_t threads = mul_checked(mul_checked(k->block[0], k->block[1], &over), k->block[2], &over);
  uint64_t warps;
  char msg[240];
  if (over) {
    snprintf(msg, sizeof msg,
             "grid (%u,%u,%u) of blocks (%u,%u,%u) overflows 64 bits: expected "
             "at most %u warps", k->grid[0], k->grid[1], k->grid[2], k->block[0],
             k->block[1], k->block[2], MAX_WARPS);
    return fail(ps, msg);
  }
  if (blocks == 0 || threads == 0)
    return fail(ps, "the header must give '-grid dim' and '-block dim' with no zero dimension");
  if (threads > 4096) {
    snprintf(msg, sizeof msg, "block of %llu threads: expected at most 4096",
             (unsigned long long)threads);
    return fail(ps, msg);
  }
  warps = mul_checked(blocks, (threads + 31) / 32, &over);
  if (over || warps > MAX_WARPS) {
    snprintf(msg, sizeof msg, "grid of %llu warps is larger than gpush reads (%u)",
             (unsigned long long)warps, MAX_WARPS);
    return fail(ps, msg);
  }
  k->blocks = (uint32_t)blocks;
  k->warps_per_block = (uint32_t)((threads + 31) / 32);
  k->warps = (uint32_t)warps;
  k->warp_start = gp_malloc(&k->alloc, warps * sizeof *k->warp_start);
  k->warp_len = gp_malloc(&k->alloc, warps * sizeof *k->warp_len);
  k->cap_warps = warps;
  if (k->warp_start == NULL || k->warp_len == NULL)
    return fail(ps, "out of memory");
  memset(k->warp_start, 0, warps * sizeof *k->warp_start);
  memset(k->warp_len, 0, warps * sizeof *k->warp_len);
  return GP_OK;
}

/* Closes the current warp, checking its instruction count. */
static int end_warp(parser *ps) {
  char msg[200];
  if (ps->warp >= 0 && ps->remaining != 0) {
    snprintf(msg, sizeof msg,
             "warp %u of block (%u,%u,%u) has %llu instructions but 'insts = %llu'",
             ps->warp_id, ps->block_xyz[0], ps->block_xyz[1], ps->block_xyz[2],
             (unsigned long long)(ps->declared - ps->remaining),
             (unsigned long long)ps->declared);
    return fail(ps, msg);
  }
  ps->warp = -1;
  return GP_OK;
}

static int body_line(parser *ps, const char *line, size_t len) {
  gp_kernel *k = ps->k;
  size_t vlen;
  const char *v;
  uint64_t x;
  char msg[400], shown[SHOWN];
  while (len > 0 && is_space(*line)) {
    line++;
    len--;
  }
  if (len == 0)
    return GP_OK;
  /* Instruction lines start with a digit or a hex letter; structure lines
   * with '#', 't', 'w' or 'i' (none of them hex). */
  if (gp_hex_digit[(unsigned char)line[0]] != 0) {
    ps->p = line;
    ps->end = line + len;
    return parse_instruction(ps);
  }
  if (starts_with(line, len, "#BEGIN_TB")) {
    if (ps->in_block)
      return fail(ps, "#BEGIN_TB inside a thread block: expected #END_TB first");
    ps->in_block = 1;
    ps->block_index = UINT32_MAX;
    return GP_OK;
  }
  if (starts_with(line, len, "#END_TB")) {
    if (!ps->in_block)
      return fail(ps, "#END_TB outside a thread block");
    ps->in_block = 0;
    return end_warp(ps);
  }
  if (line[0] == '#')
    return GP_OK;
  if (!ps->in_block)
    return fail(ps, "expected #BEGIN_TB before thread-block contents");
  if (starts_with(line, len, "thread block")) {
    v = header_value(line, len, &vlen);
    if (v == NULL || !parse_triple(v, vlen, ps->block_xyz))
      return fail(ps, "expected 'thread block = x,y,z'");
    if (ps->block_xyz[0] >= k->grid[0] || ps->block_xyz[1] >= k->grid[1] ||
        ps->block_xyz[2] >= k->grid[2]) {
      snprintf(msg, sizeof msg, "thread block (%u,%u,%u) is outside the grid (%u,%u,%u)",
               ps->block_xyz[0], ps->block_xyz[1], ps->block_xyz[2], k->grid[0],
               k->grid[1], k->grid[2]);
      return fail(ps, msg);
    }
    ps->block_index = ps->block_xyz[0] + k->grid[0] * (ps->block_xyz[1] + k->grid[1] * ps->block_xyz[2]);
    ps->blocks_seen++;
    return GP_OK;
  }
  if (starts_with(line, len, "warp")) {
    if (end_warp(ps) != GP_OK)
      return GP_ERR;
    if (ps->block_index == UINT32_MAX)
      return fail(ps, "expected 'thread block = x,y,z' before 'warp ='");
    v = header_value(line, len, &vlen);
    if (v == NULL || header_number(ps, v, vlen, 0, UINT32_MAX, &x, "a warp id") != GP_OK)
      return v == NULL ? fail(ps, "expected 'warp = N'") : GP_ERR;
    if (x >= k->warps_per_block) {
      snprintf(msg, sizeof msg, "warp %llu is out of range: a block of %u threads has %u warps",
               (unsigned long long)x, k->block[0] * k->block[1] * k->block[2], k->warps_per_block);
      return fail(ps, msg);
    }
    ps->warp_id = (uint32_t)x;
    ps->warp = (int64_t)ps->block_index * k->warps_per_block + (int64_t)x;
    if (k->warp_len[ps->warp] != 0) {
      snprintf(msg, sizeof msg, "warp %u of block (%u,%u,%u) appears twice", ps->warp_id,
               ps->block_xyz[0], ps->block_xyz[1], ps->block_xyz[2]);
      return fail(ps, msg);
    }
    k->warp_start[ps->warp] = k->insts;
    gp_scoreboard_reset(&ps->sb);
    ps->remaining = ps->declared = 0;
    ps->counted = 0;
    return GP_OK;
  }
  if (starts_with(line, len, "insts")) {
    v = header_value(line, len, &vlen);
    if (ps->warp < 0)
      return fail(ps, "'insts =' before 'warp ='");
    if (ps->counted) {
      snprintf(msg, sizeof msg, "a second 'insts =' for warp %u of block (%u,%u,%u): expected one count per warp",
               ps->warp_id, ps->block_xyz[0], ps->block_xyz[1], ps->block_xyz[2]);
      return fail(ps, msg);
    }
    ps->counted = 1;
    if (v == NULL || header_number(ps, v, vlen, 0, MAX_INSTS_PER_WARP, &x,
                                   "an instruction count (at most 100000000)") != GP_OK)
      return v == NULL ? fail(ps, "expected 'insts = K'") : GP_ERR;
    {
      /* Refuse a count the rest of the input cannot hold, then reserve
       * room for the warp (bounded by the file size, or by a fixed step
       * when the size is unknown). */
      uint64_t left = gp_line_bytes_left(ps->in);
      uint64_t reserve = x;
      if (left != UINT64_MAX && x > (left + 1) / MIN_INST_LINE) {
        snprintf(msg, sizeof msg,
                 "'insts = %llu' cannot fit in the %llu bytes left: an "
                 "instruction line takes at least %d",
                 (unsigned long long)x, (unsigned long long)left, MIN_INST_LINE);
        return fail(ps, msg);
      }
      if (left == UINT64_MAX && reserve > RESERVE_UNKNOWN)
        reserve = RESERVE_UNKNOWN;
      /* With the size known, room for every instruction the rest of the
       * text can hold (the kernel's arrays up to RESERVE_KNOWN_MAX
       * instructions): they are allocated once instead of doubled and
       * copied warp by warp, and pages never written are never touched. */
      if (left != UINT64_MAX && k->insts + reserve < RESERVE_KNOWN_MAX) {
        uint64_t ahead = (left + 1) / MIN_INST_LINE;
        if (k->insts + ahead > RESERVE_KNOWN_MAX)
          ahead = RESERVE_KNOWN_MAX - k->insts;
        if (ahead > reserve)
          reserve = ahead;
      }
      if (reserve_insts(ps, (size_t)(k->insts + reserve)) != GP_OK)
        return GP_ERR;
      if (left != UINT64_MAX && k->insts == 0)
        reserve_pools_ahead(k, left);
    }
    ps->remaining = ps->declared = x;
    return GP_OK;
  }
  snprintf(msg, sizeof msg, "expected an instruction line, 'warp = N', 'insts = K' or "
           "#END_TB, found '%s'", gp_visible(shown, sizeof shown, line, len, 40));
  return fail(ps, msg);
}

/* Appends "; "-separated text to the kernel's warnings (truncating). */
static void add_warning(gp_kernel *k, const char *text) {
  size_t used = strlen(k->warnings);
  if (used > 0 && used + 2 < sizeof k->warnings) {
    memcpy(k->warnings + used, "; ", 3);
    used += 2;
  }
  snprintf(k->warnings + used, sizeof k->warnings - used, "%s", text);
}

/* Opcodes whose suffix states the access width, cross-checked with the
 * trace's mem_width (LDSM/STSM, texture and LDGSTS name other sizes). */
static int width_checked(const char *op) {
  static const char *const bases[] = {"LDG", "STG", "LDL", "STL", "LDS", "STS",
                                      "LD", "ST", "ATOM", "ATOMG", "ATOMS",
                                      "RED", "REDG", NULL};
  size_t n = strcspn(op, ".");
  int i;
  for (i = 0; bases[i] != NULL; i++)
    if (strlen(bases[i]) == n && memcmp(op, bases[i], n) == 0)
      return 1;
  return 0;
}

/* The kernel's warnings, once per opcode: unknown opcodes (classed as
 * integer ALU) and memory instructions whose mem_width disagrees with the
 * opcode suffix (mem_width is used), and the instructions whose producers
 * did not all fit in GP_DEPS.  One pass over the instructions counts the
 * first two per static instruction; PCs with the same opcode text are
 * summed. */
static int finish_warnings(parser *ps) {
  gp_kernel *k = ps->k;
  uint64_t *unknown, *mismatch, i;
  uint32_t s, t;
  size_t bytes = (size_t)k->static_count * sizeof(uint64_t);
  if (ps->deps_dropped > 0) {
    char text[200];
    snprintf(text, sizeof text,
             "%llu instructions have more than %d producers of distinct classes; the "
             "memory producers and then the nearest were kept",
             (unsigned long long)ps->deps_dropped, GP_DEPS);
    add_warning(k, text);
  }
  if (k->static_count == 0)
    return GP_OK;
  unknown = gp_malloc(&k->alloc, 2 * bytes);
  if (unknown == NULL)
    return fail(ps, "out of memory");
  memset(unknown, 0, 2 * bytes);
  mismatch = unknown + k->static_count;
  for (i = 0; i < k->insts; i++) {
    uint32_t pc = k->pc_index[i];
    const gp_static_inst *st = &k->statics[pc];
    if (!st->known)
      unknown[pc]++;
    else if (k->mem[i] != NO_MEMORY && k->width[i] != st->width)
      mismatch[pc]++;
  }
  for (s = 0; s < k->static_count; s++) {
    const char *op = k->strings + k->statics[s].opcode;
    char text[200];
    uint64_t n_unknown = unknown[s], n_mismatch = mismatch[s];
    if (n_unknown == 0 && (n_mismatch == 0 || !width_checked(op)))
      continue;
    for (t = s + 1; t < k->static_count; t++) { /* fold later PCs in */
      if (strcmp(op, k->strings + k->statics[t].opcode) == 0) {
        n_unknown += unknown[t];
        n_mismatch += mismatch[t];
        unknown[t] = mismatch[t] = 0;
      }
    }
    if (n_unknown > 0) {
      snprintf(text, sizeof text,
               "%llu instructions of unknown opcode %.60s classed as integer ALU",
               (unsigned long long)n_unknown, op);
      add_warning(k, text);
    } else {
      snprintf(text, sizeof text,
               "%llu instructions of %.60s give a mem_width other than the %u "
               "bytes of the suffix: mem_width used",
               (unsigned long long)n_mismatch, op, k->statics[s].width);
      add_warning(k, text);
    }
  }
  gp_free(&k->alloc, unknown, 2 * bytes);
  return GP_OK;
}

/* Reads header lines until "#traces format" (or the first #BEGIN_TB, which
 * then opens the body).  *began says whether #BEGIN_TB was consumed. */
static int read_header(parser *ps, int *began) {
  const char *line;
  size_t len;
  int r, saw_version = 0;
  *began = 0;
  while ((r = gp_line_next(ps->in, &line, &len, ps->err)) == 1) {
    if (len == 0)
      continue;
    if (line[0] == '-') {
      if (starts_with(line, len, "-accelsim tracer version"))
        saw_version = 1;
      if (header_line(ps, line, len) != GP_OK)
        return GP_ERR;
    } else if (starts_with(line, len, "#traces format")) {
      break;
    } else if (starts_with(line, len, "#BEGIN_TB")) {
      *began = 1;
      break;
    } else {
      char msg[300], shown[SHOWN];
      snprintf(msg, sizeof msg, "expected a '-key = value' header line, found '%s'",
               gp_visible(shown, sizeof shown, line, len, 40));
      return fail(ps, msg);
    }
  }
  if (r == GP_ERR)
    return GP_ERR;
  if (r == 0)
    return fail(ps, "the file ended inside the header: expected '#traces format' and thread blocks");
  if (!saw_version)
    ps->k->trace_version = 0; /* pre-3: ids on every line */
  return GP_OK;
}

/* A trace that lists only some of its grid's thread blocks (a cut or
 * sampled trace) is taken as the kernel of those blocks: the blocks with
 * instructions move to the front, in block order, and the grid becomes
 * (listed, 1, 1), so that every model (GPUMech's waves, the simulator's
 * blocks, the bounds, Blem's M-core) runs the same blocks and none scales
 * the listed ones up to the grid on its own.  The warning says so, and
 * every model prints it as a note. */
static void keep_listed_blocks(gp_kernel *k) {
  uint32_t b, w, kept = 0, wpb = k->warps_per_block;
  char text[240];
  for (b = 0; b < k->blocks; b++) {
    uint64_t first = (uint64_t)b * wpb, to = (uint64_t)kept * wpb;
    int listed = 0;
    for (w = 0; w < wpb && !listed; w++)
      listed = k->warp_len[first + w] != 0;
    if (!listed)
      continue;
    for (w = 0; w < wpb; w++) {
      k->warp_start[to + w] = k->warp_start[first + w];
      k->warp_len[to + w] = k->warp_len[first + w];
    }
    kept++;
  }
  if (kept == k->blocks || kept == 0)
    return;
  snprintf(text, sizeof text,
           "the trace lists %u of the grid's %u thread blocks (%u,%u,%u): every model runs the %u "
           "listed, as a grid of (%u,1,1)", kept, k->blocks, k->grid[0], k->grid[1], k->grid[2], kept, kept);
  add_warning(k, text);
  memset(k->warp_start + (uint64_t)kept * wpb, 0, (size_t)(k->blocks - kept) * wpb * sizeof *k->warp_start);
  memset(k->warp_len + (uint64_t)kept * wpb, 0, (size_t)(k->blocks - kept) * wpb * sizeof *k->warp_len);
  k->grid[0] = kept;
  k->grid[1] = k->grid[2] = 1;
  k->blocks = kept;
  k->warps = kept * wpb;
}

static int read_body(parser *ps, int began) {
  const char *line;
  size_t len;
  int r;
  gp_line_window *window = gp_line_window_of(ps->in);
  if (finish_header(ps) != GP_OK || check_kernel_cap(ps) != GP_OK)
    return GP_ERR;
  ps->warp = -1;
  ps->in_block = began;
  ps->block_index = UINT32_MAX;
  while ((r = gp_line_next_inline(ps->in, window, &line, &len, ps->err)) == 1) {
    if (body_line(ps, line, len) != GP_OK)
      return GP_ERR;
  }
  if (r == GP_ERR)
    return GP_ERR;
  if (ps->in_block) {
    char msg[160];
    snprintf(msg, sizeof msg, "the file ended inside thread block (%u,%u,%u): expected #END_TB",
             ps->block_xyz[0], ps->block_xyz[1], ps->block_xyz[2]);
    return fail(ps, msg);
  }
  if (ps->blocks_seen == 0) {
    char msg[160];
    snprintf(msg, sizeof msg,
             "the file ended before the first thread block: expected %u "
             "(#BEGIN_TB, 'thread block = x,y,z')", ps->k->blocks);
    return fail(ps, msg);
  }
  keep_listed_blocks(ps->k);
  return finish_warnings(ps);
}

/* Parses header and body from an open line input into a new kernel. */
static int parse_kernel(gp_line_input *in, const gp_alloc *alloc,
                        gp_kernel **out, gp_error *err) {
  parser ps;
  int began;
  memset(&ps, 0, sizeof ps);
  ps.k = gp_kernel_new(alloc);
  ps.in = in;
  ps.err = err;
  if (ps.k == NULL)
    return gp_error_set(err, "%s: out of memory", gp_line_name(in));
  ps.k->trace_version = 3;
  ps.kernel_cap = gp_line_kernel_cap(in);
  if (read_header(&ps, &began) != GP_OK || read_body(&ps, began) != GP_OK) {
    gp_kernel_free(ps.k);
    return GP_ERR;
  }
  *out = ps.k;
  return GP_OK;
}

int gp_kernel_parse_buffer(gp_kernel **out, const gp_alloc *alloc,
                           const char *text, size_t len, const char *name,
                           gp_error *err) {
  gp_line_input *in;
  int status;
  if (gp_line_open_buffer(&in, alloc, text, len, name, err) != GP_OK)
    return GP_ERR;
  status = parse_kernel(in, alloc, out, err);
  gp_line_close(in);
  return status;
}

int gp_trace_parse_file(gp_kernel **out, const gp_alloc *alloc,
                        const char *path, gp_error *err) {
  return gp_trace_parse_file_limited(out, alloc, path, NULL, err);
}

int gp_trace_parse_file_limited(gp_kernel **out, const gp_alloc *alloc, const char *path,
                                const gp_trace_limits *limits, gp_error *err) {
  gp_line_input *in;
  int status;
  if (gp_trace_check_regular(path, err) != GP_OK)
    return GP_ERR;
  if (gp_gpt_is(path))
    return gp_kernel_load_gpt(out, alloc, path, 1, err);
  if (gp_line_open(&in, alloc, path, limits, err) != GP_OK)
    return GP_ERR;
  status = parse_kernel(in, alloc, out, err);
  gp_line_close(in);
  return status;
}

int gp_trace_parse_header(gp_kernel *k, const gp_alloc *alloc, const char *path,
                          const gp_trace_limits *limits, gp_error *err) {
  parser ps;
  int began, status;
  if (gp_trace_check_regular(path, err) != GP_OK)
    return GP_ERR;
  if (gp_gpt_is(path)) {
    gp_kernel *header;
    if (gp_kernel_load_gpt(&header, alloc, path, 0, err) != GP_OK)
      return GP_ERR;
    memset(k, 0, sizeof *k);
    memcpy(k->name, header->name, sizeof k->name);
    k->launch_id = header->launch_id;
    memcpy(k->grid, header->grid, sizeof k->grid);
    memcpy(k->block, header->block, sizeof k->block);
    gp_kernel_free(header);
    return GP_OK;
  }
  memset(&ps, 0, sizeof ps);
  memset(k, 0, sizeof *k);
  k->alloc = *alloc;
  k->trace_version = 3;
  ps.k = k;
  ps.err = err;
  if (gp_line_open(&ps.in, alloc, path, limits, err) != GP_OK)
    return GP_ERR;
  status = read_header(&ps, &began);
  gp_line_close(ps.in);
  return status;
}
