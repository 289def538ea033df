/*
 * l_trace.c -- traces and kernels as Lua userdata.
 *
 *   reader = core.trace_open(path [, limit_mb])  -- or nil, message; limit_mb:
 *                                           -- the cap on compressed input in MiB
 *                                           -- (gp_trace_limits_mb; default 512)
 *   info = reader:next()                    -- next launch's header; nil at end
 *                                           -- (nil, message on error)
 *   kernel = reader:load()                  -- the current launch; or nil, message
 *   ok = reader:set_cache(dir, max_mb)      -- keep parsed launches in dir (trace_cache.c);
 *                                           -- dir nil: no cache; max_mb 0: no limit
 *   n = reader:cache_hits()                 -- launches loaded from the cache so far
 *   count, bytes = reader:memcpy()          -- MemcpyHtoD lines of kernelslist.g
 *   paths = reader:files()                  -- the input files: kernelslist.g (if
 *                                           -- any), then the traces in launch order
 *   kernel = core.kernel_parse(text, name)  -- a whole .traceg held in a string
 *   kernel:info()                           -- summary table (see below)
 *   kernel:warp(w)                          -- one warp's instructions as tables
 *   kernel:write_text(path)                 -- Accel-Sim text; true or nil, message
 *   kernel:write_gpt(path)                  -- the .gpt binary; true or nil, message
 *   kernel:statics()                        -- static instructions: {pc, opcode, class}
 *   kernel:mix{rule=, banks=, bank_bytes=}  -- ILP, MLP, divergence, transactions
 *                                           -- (trace_mix.c); rule "lines" (CC >= 2.0),
 *                                           -- "cc12" or "cc10"; banks default 32 x 4 B
 *   kernel:prefix(blocks)                   -- the kernel of its first `blocks` thread
 *                                           -- blocks, sharing its arrays (a grid of
 *                                           -- (blocks, 1, 1)); nil, message when the
 *                                           -- trace stores them otherwise
 *   kernel:close()                          -- frees the kernel's memory now (also
 *                                           -- __close and __gc); a closed kernel
 *                                           -- raises when used; a kernel held by a
 *                                           -- running C call (a simulation calling
 *                                           -- a Lua policy) raises instead of closing
 *   kernel:is_closed()                      -- true once closed
 *   names = core.op_classes()               -- every opcode class name, in the
 *                                           -- core's order
 *   class, width, known = core.opcode_class(opcode [, binary_version])
 *                                           -- one SASS opcode ("LDG.E.128") as the
 *                                           -- trace reader classes it (binary
 *                                           -- version default 90); known false
 *                                           -- for an opcode classed by default
 */
#include "compat.h"
#include "l_core.h"
#include "memsim.h"
#include "staged.h"
#include "trace.h"

#include <stdio.h>
#include <string.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

#define READER_TYPE "gpush.trace_reader"
#define KERNEL_TYPE "gpush.kernel"

typedef struct reader_box {
  gp_trace_reader *reader;
} reader_box;

/* The totals kernel:info() scans the arrays for, kept after the first call
 * (a kernel never changes once loaded; the models call info() several
 * times per prediction, 19 ms each on a 50 M-instruction kernel). */
typedef struct info_totals {
  int known;
  uint64_t lanes, lines, sectors, requests;
} info_totals;

typedef struct kernel_box {
  gp_kernel *kernel;
  unsigned holds; /* running C calls that use the kernel and may run Lua code */
  info_totals totals;
} kernel_box;

static gp_alloc default_allocator(void) { return gp_alloc_default(); }

static reader_box *check_reader(lua_State *L) {
  reader_box *box = luaL_checkudata(L, 1, READER_TYPE);
  if (box->reader == NULL)
    luaL_argerror(L, 1, "the trace reader is closed");
  return box;
}

gp_kernel *gpl_check_kernel(lua_State *L, int index) {
  kernel_box *box = luaL_checkudata(L, index, KERNEL_TYPE);
  if (box->kernel == NULL)
    luaL_argerror(L, index, "the kernel is closed");
  return box->kernel;
}

gp_kernel *gpl_hold_kernel(lua_State *L, int index) {
  gp_kernel *k = gpl_check_kernel(L, index);
  ((kernel_box *)lua_touserdata(L, index))->holds++;
  return k;
}

void gpl_release_kernel(lua_State *L, int index) {
  ((kernel_box *)lua_touserdata(L, index))->holds--;
}

static int push_failure(lua_State *L, const char *message) {
  lua_pushnil(L);
  lua_pushstring(L, message);
  return 2;
}

void gpl_push_kernel(lua_State *L, gp_kernel *k) {
  kernel_box *box = lua_newuserdata(L, sizeof *box);
  box->kernel = k;
  box->holds = 0;
  box->totals.known = 0;
  luaL_getmetatable(L, KERNEL_TYPE);
  lua_setmetatable(L, -2);
}

static void set_triple(lua_State *L, const char *field, const uint32_t v[3]) {
  int i;
  lua_createtable(L, 3, 0);
  for (i = 0; i < 3; i++) {
    lua_pushinteger(L, (lua_Integer)v[i]);
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, field);
}

/* ---------------------------------------------------------------------------
 * Reader
 * ------------------------------------------------------------------------- */

static int trace_open(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  lua_Integer limit_mb = luaL_optinteger(L, 2, GP_TRACE_LIMIT_MB_DEFAULT);
  gp_alloc alloc = default_allocator();
  gp_error err;
  gp_trace_limits limits;
  reader_box *box;
  luaL_argcheck(L, limit_mb >= 1, 2, "the limit on compressed input must be at least 1 MiB");
  limits = gp_trace_limits_mb((uint64_t)limit_mb);
  box = lua_newuserdata(L, sizeof *box);
  box->reader = NULL;
  luaL_getmetatable(L, READER_TYPE);
  lua_setmetatable(L, -2);
  if (gp_trace_open(&box->reader, &alloc, path, &err) != GP_OK)
    return push_failure(L, err.msg);
  gp_trace_set_limits(box->reader, &limits);
  return 1;
}

static int reader_next(lua_State *L) {
  reader_box *box = check_reader(L);
  gp_launch_info info;
  gp_error err;
  int status = gp_trace_next(box->reader, &info, &err);
  if (status == GP_ERR)
    return push_failure(L, err.msg);
  if (status == 0) {
    lua_pushnil(L);
    return 1;
  }
  lua_createtable(L, 0, 6);
  gpl_set_integer(L, "index", info.index);
  gpl_set_integer(L, "launch", info.launch_id);
  lua_pushstring(L, info.name);
  lua_setfield(L, -2, "kernel");
  lua_pushstring(L, info.path);
  lua_setfield(L, -2, "path");
  set_triple(L, "grid", info.grid);
  set_triple(L, "block", info.block);
  return 1;
}

static int reader_load(lua_State *L) {
  reader_box *box = check_reader(L);
  gp_kernel *k = NULL;
  gp_error err;
  if (gp_trace_load(box->reader, &k, &err) != GP_OK)
    return push_failure(L, err.msg);
  gpl_push_kernel(L, k);
  return 1;
}

static int reader_set_cache(lua_State *L) {
  reader_box *box = check_reader(L);
  const char *dir = luaL_optstring(L, 2, NULL);
  lua_Integer max_mb = luaL_optinteger(L, 3, 0);
  gp_error err;
  luaL_argcheck(L, max_mb >= 0 && max_mb <= (lua_Integer)(UINT64_MAX >> 20), 3,
                "the cache's size in MiB (0: no limit)");
  if (gp_trace_set_cache(box->reader, dir, (uint64_t)max_mb << 20, &err) != GP_OK)
    return push_failure(L, err.msg);
  lua_pushboolean(L, 1);
  return 1;
}

static int reader_cache_hits(lua_State *L) {
  reader_box *box = check_reader(L);
  lua_pushinteger(L, (lua_Integer)gp_trace_cache_hits(box->reader));
  return 1;
}

static int reader_memcpy(lua_State *L) {
  reader_box *box = check_reader(L);
  uint32_t count;
  uint64_t bytes;
  gp_trace_memcpy(box->reader, &count, &bytes);
  lua_pushinteger(L, (lua_Integer)count);
  lua_pushinteger(L, (lua_Integer)bytes);
  return 2;
}

static int reader_files(lua_State *L) {
  reader_box *box = check_reader(L);
  const char *list = gp_trace_list_path(box->reader);
  uint32_t i, n = gp_trace_file_count(box->reader);
  int k = 0;
  lua_createtable(L, (int)n + 1, 0);
  if (list[0] != '\0') {
    lua_pushstring(L, list);
    gpc_rawseti(L, -2, ++k);
  }
  for (i = 0; i < n; i++) {
    lua_pushstring(L, gp_trace_file(box->reader, i));
    gpc_rawseti(L, -2, ++k);
  }
  return 1;
}

static int reader_close(lua_State *L) {
  reader_box *box = luaL_checkudata(L, 1, READER_TYPE);
  gp_trace_close(box->reader);
  box->reader = NULL;
  return 0;
}

/* ---------------------------------------------------------------------------
 * Kernel
 * ------------------------------------------------------------------------- */

static int kernel_parse(lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  const char *name = luaL_optstring(L, 2, "(string)");
  gp_alloc alloc = default_allocator();
  gp_kernel *k = NULL;
  gp_error err;
  if (gp_kernel_parse_buffer(&k, &alloc, text, len, name, &err) != GP_OK)
    return push_failure(L, err.msg);
  gpl_push_kernel(L, k);
  return 1;
}

/* The sum of n bytes: with SSE2 sixteen at a time (psadbw adds eight bytes
 * into a 64-bit lane), a byte a step left over.  kernel:info() sums every
 * instruction's active lanes once per launch: a byte a step was about 1 M
 * instructions of a 16-launch BFS run's gpumech or sim. */
static uint64_t sum_bytes(const uint8_t *a, uint64_t n) {
  uint64_t total = 0, i = 0;
#if defined(__SSE2__) && defined(__x86_64__)
  __m128i acc = _mm_setzero_si128();
  const __m128i zero = _mm_setzero_si128();
  for (; i + 16 <= n; i += 16)
    acc = _mm_add_epi64(acc, _mm_sad_epu8(_mm_loadu_si128((const __m128i *)(a + i)), zero));
  total = (uint64_t)_mm_cvtsi128_si64(acc) + (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(acc, acc));
#endif
  for (; i < n; i++)
    total += a[i];
  return total;
}

/* kernel:info(): geometry, counts, class mix and memory behaviour. */
/* The active lanes over all instructions, and the lines, sectors and
 * requests (records with a line) over the memory records. */
static void scan_totals(const gp_kernel *k, info_totals *t) {
  uint64_t i;
  memset(t, 0, sizeof *t);
  t->lanes = sum_bytes(k->active, k->insts);
  for (i = 0; i < k->mem_count; i++) {
    t->lines += k->mem_records[i].line_count;
    t->sectors += k->mem_records[i].sector_count;
    t->requests += k->mem_records[i].line_count > 0;
  }
  t->known = 1;
}

static int kernel_info(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  info_totals *t = &((kernel_box *)lua_touserdata(L, 1))->totals;
  uint64_t mem_insts = 0, lines, sectors, requests, lanes;
  int c;
  if (!t->known)
    scan_totals(k, t);
  lanes = t->lanes, lines = t->lines, sectors = t->sectors, requests = t->requests;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++)
    if (gp_op_is_memory(c))
      mem_insts += k->class_counts[c];
  lua_createtable(L, 0, 24);
  lua_pushstring(L, k->name);
  lua_setfield(L, -2, "kernel");
  gpl_set_integer(L, "launch", k->launch_id);
  set_triple(L, "grid", k->grid);
  set_triple(L, "block", k->block);
  gpl_set_integer(L, "thread_blocks", k->blocks);
  gpl_set_integer(L, "warps_per_block", k->warps_per_block);
  gpl_set_integer(L, "warps", k->warps);
  gpl_set_integer(L, "warp_instructions", (lua_Integer)k->insts);
  gpl_set_integer(L, "registers_per_thread", k->nregs);
  gpl_set_integer(L, "shared_bytes_per_block", k->shmem_bytes);
  gpl_set_integer(L, "binary_version", k->binary_version);
  gpl_set_integer(L, "trace_version", k->trace_version);
  gpl_set_integer(L, "distinct_pcs", k->static_count);
  gpl_set_integer(L, "memory_instructions", (lua_Integer)mem_insts);
  gpl_set_integer(L, "cache_lines", (lua_Integer)lines);
  gpl_set_integer(L, "sectors", (lua_Integer)sectors);
  /* lines per memory instruction that reaches L1/L2 */
  gpl_set_number(L, "transactions_per_memory_instruction",
             requests ? (double)lines / (double)requests : 0.0);
  gpl_set_number(L, "sectors_per_memory_instruction",
             requests ? (double)sectors / (double)requests : 0.0);
  gpl_set_number(L, "active_lane_efficiency",
             k->insts ? (double)lanes / (32.0 * (double)k->insts) : 0.0);
  lua_createtable(L, 0, GP_OP_CLASS_COUNT);
  for (c = 0; c < GP_OP_CLASS_COUNT; c++) {
    if (k->class_counts[c] == 0)
      continue;
    lua_pushinteger(L, (lua_Integer)k->class_counts[c]);
    lua_setfield(L, -2, gp_op_class_name(c));
  }
  lua_setfield(L, -2, "class_mix");
  lua_pushstring(L, k->warnings);
  lua_setfield(L, -2, "warnings");
  lua_pushboolean(L, k->synthetic);
  lua_setfield(L, -2, "synthetic");
  return 1;
}

/* Sets deps and load_deps of the table on top for instruction x. */
static void push_deps(lua_State *L, const gp_kernel *k, uint64_t x) {
  int j, n = 0, nl = 0;
  lua_createtable(L, GP_DEPS, 0);
  lua_createtable(L, 0, 0);
  for (j = 0; j < GP_DEPS && k->deps[x * GP_DEPS + j] != 0; j++) {
    lua_pushinteger(L, k->deps[x * GP_DEPS + j]);
    gpc_rawseti(L, -3, ++n);
    if (k->flags[x] & (1u << (GP_INST_LOAD_SHIFT + j))) {
      lua_pushinteger(L, k->deps[x * GP_DEPS + j]);
      gpc_rawseti(L, -2, ++nl);
    }
  }
  lua_setfield(L, -3, "load_deps");
  lua_setfield(L, -2, "deps");
}

/* kernel:warp(w): the instructions of global warp w (0-based) as a list of
 * {pc=, opcode=, class=, active=, deps = {distance, ...} (its producers,
 * nearest first), load_deps = {distance, ...} (those that are loads),
 * lines=, sectors=}. */
static int kernel_warp(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  lua_Integer w = luaL_checkinteger(L, 2);
  uint64_t i, start;
  uint32_t n;
  luaL_argcheck(L, w >= 0 && (uint64_t)w < k->warps, 2, "warp index out of range");
  start = k->warp_start[w];
  n = k->warp_len[w];
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    uint64_t x = start + i;
    const gp_static_inst *s = &k->statics[k->pc_index[x]];
    lua_createtable(L, 0, 8);
    gpl_set_integer(L, "pc", (lua_Integer)s->pc);
    lua_pushstring(L, k->strings + s->opcode);
    lua_setfield(L, -2, "opcode");
    lua_pushstring(L, gp_op_class_name(k->op_class[x]));
    lua_setfield(L, -2, "class");
    gpl_set_integer(L, "active", k->active[x]);
    push_deps(L, k, x);
    if (k->mem[x] != UINT32_MAX) {
      gpl_set_integer(L, "lines", k->mem_records[k->mem[x]].line_count);
      gpl_set_integer(L, "sectors", k->mem_records[k->mem[x]].sector_count);
    }
    gpc_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int kernel_write_text(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  const char *path = luaL_checkstring(L, 2);
  gp_error err;
  gp_staged out;
  if (gp_staged_open(&out, &k->alloc, path, &err) != GP_OK)
    return push_failure(L, err.msg);
  if (gp_kernel_write_text(k, out.f, path, &err) != GP_OK) {
    gp_staged_abort(&out);
    return push_failure(L, err.msg);
  }
  if (gp_staged_commit(&out, &err) != GP_OK)
    return push_failure(L, err.msg);
  lua_pushboolean(L, 1);
  return 1;
}

static int kernel_statics(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  uint32_t i;
  lua_createtable(L, (int)k->static_count, 0);
  for (i = 0; i < k->static_count; i++) {
    const gp_static_inst *st = &k->statics[i];
    lua_createtable(L, 0, 3);
    gpl_set_integer(L, "pc", (lua_Integer)st->pc);
    lua_pushstring(L, k->strings + st->opcode);
    lua_setfield(L, -2, "opcode");
    lua_pushstring(L, gp_op_class_name(st->op_class));
    lua_setfield(L, -2, "class");
    gpc_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int kernel_write_gpt(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  const char *path = luaL_checkstring(L, 2);
  gp_error err;
  if (gp_kernel_write_gpt(k, path, &err) != GP_OK)
    return push_failure(L, err.msg);
  lua_pushboolean(L, 1);
  return 1;
}

static int kernel_gc(lua_State *L) {
  kernel_box *box = luaL_checkudata(L, 1, KERNEL_TYPE);
  gp_kernel_free(box->kernel);
  box->kernel = NULL;
  return 0;
}

/* kernel:close(): refused while a C call holds the kernel, since the call
 * would go on reading freed memory (__gc cannot run then: the call keeps the
 * kernel on its stack). */
static int kernel_close(lua_State *L) {
  kernel_box *box = luaL_checkudata(L, 1, KERNEL_TYPE);
  if (box->holds > 0)
    return luaL_error(L, "kernel:close(): the kernel is in use by a running simulation "
                         "(called from its policy function); close it after sim returns");
  return kernel_gc(L);
}

static int kernel_prefix(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1), *p;
  lua_Integer blocks = luaL_checkinteger(L, 2);
  gp_error err;
  luaL_argcheck(L, blocks >= 1 && blocks <= (lua_Integer)k->blocks, 2,
                "a number of thread blocks from 1 to the kernel's");
  if (gp_kernel_prefix(k, (uint32_t)blocks, &p, &err) != GP_OK)
    return push_failure(L, err.msg);
  gpl_push_kernel(L, p);
  return 1;
}

static int kernel_is_closed(lua_State *L) {
  kernel_box *box = luaL_checkudata(L, 1, KERNEL_TYPE);
  lua_pushboolean(L, box->kernel == NULL);
  return 1;
}

static int kernel_tostring(lua_State *L) {
  kernel_box *box = luaL_checkudata(L, 1, KERNEL_TYPE);
  gp_kernel *k = box->kernel;
  if (k == NULL) {
    lua_pushliteral(L, "gpush.kernel(closed)");
    return 1;
  }
  lua_pushfstring(L, "gpush.kernel(%s, %d warps, %d warp instructions)", k->name,
                  (int)k->warps, (int)k->insts);
  return 1;
}

/* kernel:mix(opts): the totals of gp_kernel_mix (see trace.h). */
static int kernel_mix(lua_State *L) {
  static const char *const rules[] = {"lines", "cc12", "cc10", NULL};
  static const int rule_values[] = {GP_CC1X_OFF, GP_CC1X_12, GP_CC1X_10};
  gp_kernel *k = gpl_check_kernel(L, 1);
  gp_alloc alloc = default_allocator();
  gp_mix_config c;
  gp_mix m;
  gp_error err;
  lua_Integer banks, bank_bytes;
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  gpc_getfield(L, 2, "rule");       /* 3 */
  gpc_getfield(L, 2, "banks");      /* 4 */
  gpc_getfield(L, 2, "bank_bytes"); /* 5 */
  c.rule = rule_values[luaL_checkoption(L, 3, "lines", rules)];
  banks = luaL_optinteger(L, 4, 32);
  bank_bytes = luaL_optinteger(L, 5, 4);
  luaL_argcheck(L, banks >= 1 && banks <= 256, 2, "banks must be 1..256");
  luaL_argcheck(L, bank_bytes >= 1 && bank_bytes <= 64, 2, "bank_bytes must be 1..64");
  c.shared_banks = (uint32_t)banks;
  c.shared_bank_bytes = (uint32_t)bank_bytes;
  if (gp_kernel_mix(k, &c, &alloc, &m, &err) != GP_OK)
    return push_failure(L, err.msg);
  lua_createtable(L, 0, 10);
  gpl_set_integer(L, "warps", (lua_Integer)m.warps);
  gpl_set_integer(L, "insts", (lua_Integer)m.insts);
  gpl_set_number(L, "divergence_extra", m.divergence_extra);
  gpl_set_integer(L, "ilp_levels", (lua_Integer)m.ilp_levels);
  gpl_set_integer(L, "mem_insts", (lua_Integer)m.mem_insts);
  gpl_set_integer(L, "mem_rounds", (lua_Integer)m.mem_rounds);
  gpl_set_integer(L, "transactions", (lua_Integer)m.transactions);
  gpl_set_integer(L, "transaction_bytes", (lua_Integer)m.transaction_bytes);
  gpl_set_integer(L, "shared_insts", (lua_Integer)m.shared_insts);
  gpl_set_integer(L, "shared_extra_passes", (lua_Integer)m.shared_extra_passes);
  return 1;
}

/* kernel:flops(): { fp32 =, fp16 =, fp64 = }, the kernel's FLOPs by
 * precision (gp_kernel_flops, exact). */
static int kernel_flops(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  gp_alloc alloc = default_allocator();
  uint64_t flops[GP_FLOP_PRECISIONS];
  gp_error err;
  int p;
  if (gp_kernel_flops(k, &alloc, flops, &err) != GP_OK)
    return push_failure(L, err.msg);
  lua_createtable(L, 0, GP_FLOP_PRECISIONS - 1);
  for (p = GP_FLOP_NONE + 1; p < GP_FLOP_PRECISIONS; p++)
    gpl_set_integer(L, gp_flop_precision_name(p), (lua_Integer)flops[p]);
  return 1;
}

static const luaL_Reg reader_methods[] = {{"next", reader_next},
                                          {"load", reader_load},
                                          {"memcpy", reader_memcpy},
                                          {"set_cache", reader_set_cache},
                                          {"cache_hits", reader_cache_hits},
                                          {"files", reader_files},
                                          {"close", reader_close},
                                          {NULL, NULL}};

static const luaL_Reg kernel_methods[] = {{"info", kernel_info},
                                          {"warp", kernel_warp},
                                          {"write_text", kernel_write_text},
                                          {"write_gpt", kernel_write_gpt},
                                          {"statics", kernel_statics},
                                          {"mix", kernel_mix},
                                          {"flops", kernel_flops},
                                          {"prefix", kernel_prefix},
                                          {"close", kernel_close},
                                          {"is_closed", kernel_is_closed},
                                          {NULL, NULL}};

static int op_classes(lua_State *L) {
  int c;
  lua_createtable(L, GP_OP_CLASS_COUNT, 0);
  for (c = 0; c < GP_OP_CLASS_COUNT; c++) {
    lua_pushstring(L, gp_op_class_name(c));
    gpc_rawseti(L, -2, c + 1);
  }
  return 1;
}

/* core.opcode_class(opcode [, binary_version]): the trace reader's class of
 * one SASS opcode (trace_opcodes.c), its data width in bytes and whether the
 * opcode is known (an unknown one is classed as integer ALU). */
static int opcode_class(lua_State *L) {
  size_t len;
  const char *opcode = luaL_checklstring(L, 1, &len);
  lua_Integer version = luaL_optinteger(L, 2, 90);
  gp_opcode_info info;
  if (len == 0)
    return luaL_argerror(L, 1, "an opcode such as 'FFMA' or 'LDG.E.128'");
  if (version < 10 || version > 1000)
    return luaL_argerror(L, 2, "a binary version such as 61, 80 or 90");
  info = gp_opcode_classify(opcode, len, (int)version);
  lua_pushstring(L, gp_op_class_name(info.op_class));
  lua_pushinteger(L, info.width);
  lua_pushboolean(L, info.known);
  return 3;
}

/* core.opcode_flops(opcode): the FLOPs one active lane does for a SASS
 * opcode and their precision ("fp32", "fp16", "fp64"; 0 and "none" for
 * anything else), from the trace reader's map (trace_opcodes.c). */
static int opcode_flops(lua_State *L) {
  size_t len;
  const char *opcode = luaL_checklstring(L, 1, &len);
  uint8_t precision;
  uint8_t flops = gp_opcode_flops(opcode, len, &precision);
  lua_pushinteger(L, flops);
  lua_pushstring(L, gp_flop_precision_name(precision));
  return 2;
}

static const luaL_Reg trace_functions[] = {{"trace_open", trace_open},
                                           {"op_classes", op_classes},
                                           {"opcode_class", opcode_class},
                                           {"opcode_flops", opcode_flops},
                                           {"kernel_parse", kernel_parse},
                                           {NULL, NULL}};

void gpl_open_trace(lua_State *L) {
  gpl_new_type(L, READER_TYPE, reader_methods, reader_close);
  gpl_new_type(L, KERNEL_TYPE, kernel_methods, kernel_gc);
  luaL_getmetatable(L, KERNEL_TYPE);
  lua_pushcfunction(L, kernel_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, kernel_close);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);
  luaL_setfuncs(L, trace_functions, 0);
}
