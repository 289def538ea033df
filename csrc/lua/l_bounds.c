/*
 * l_bounds.c -- the first-principles bounds from Lua (gpush.bounds wraps
 * them).
 *
 *   r = core.bounds_kernel(kernel, machine, blocks_per_sm [, functional])  -- or nil, message
 *   r = core.bounds_compute(counts, machine, blocks_per_sm)
 *   text = core.bounds_key_text(values, at, prefixes)  -- gpush.bounds' key
 *     text of a checked configuration: prefixes[i] .. tostring(values[at[i]])
 *     for each i, joined by ";" (values: config.check_token's list)
 * machine: core.machine(cfg); blocks_per_sm: the kernel's occupancy
 * (gpush.occupancy).
 * counts (bounds_compute's input, bounds_kernel's r.counts): blocks, insts,
 *   min_block_insts, class_insts = {class = n}, lsu_cycles, shared_passes,
 *   l2_requests, mshr_requests, mshr_dram_requests (the functional
 *   replay's: estimates), hard_l2_requests, hard_mshr_lines,
 *   hard_mshr_cold_lines (the hard l2 and mshr bounds'),
 *   hard_dram_read_bytes, hard_dram_written_bytes (the hard dram bound's),
 *   dram_bytes (the functional replay's: an estimate), longest_path,
 *   block_paths, min_block_path, warps_per_block (absent fields are 0).
 * r: cycles = {bound name = cycles} (all hard), binds = name, bound, total
 *   (with the kernel launch), sms_used, estimates = {l2 =, mshr =, dram =}
 *   (from the functional counts), expect (the binding resource with the
 *   estimates in place of l2, mshr and dram), expect_cycles; bounds_kernel
 *   adds counts.
 * bounds_kernel runs memsim's functional mode on the kernel for the memory
 * traffic (gp_bounds_count), then gp_bounds_compute; given `functional`
 * (core.memsim_functional's result for the same kernel, machine and
 * occupancy: GPUMech's own replay), it reads the totals gp_bounds_count
 * needs from it instead of replaying again.
 */
#include "bounds.h"
#include "compat.h"
#include "l_core.h"

#include <math.h>
#include <string.h>

static void set_num(lua_State *L, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}

void gpl_push_bounds_counts(lua_State *L, const gp_bounds_counts *c) {
  int k;
  lua_createtable(L, 0, 20);
  set_num(L, "blocks", c->blocks);
  set_num(L, "insts", c->insts);
  set_num(L, "min_block_insts", c->min_block_insts);
  lua_createtable(L, 0, GP_OP_CLASS_COUNT);
  for (k = 0; k < GP_OP_CLASS_COUNT; k++)
    set_num(L, gp_op_class_name(k), c->class_insts[k]);
  lua_setfield(L, -2, "class_insts");
  set_num(L, "lsu_cycles", c->lsu_cycles);
  set_num(L, "shared_passes", c->shared_passes);
  set_num(L, "l2_requests", c->l2_requests);
  set_num(L, "mshr_requests", c->mshr_requests);
  set_num(L, "mshr_dram_requests", c->mshr_dram_requests);
  set_num(L, "hard_l2_requests", c->hard_l2_requests);
  set_num(L, "hard_mshr_lines", c->hard_mshr_lines);
  set_num(L, "hard_mshr_cold_lines", c->hard_mshr_cold_lines);
  set_num(L, "hard_dram_read_bytes", c->hard_dram_read_bytes);
  set_num(L, "hard_dram_written_bytes", c->hard_dram_written_bytes);
  set_num(L, "dram_bytes", c->dram_bytes);
  set_num(L, "longest_path", c->longest_path);
  set_num(L, "block_paths", c->block_paths);
  set_num(L, "min_block_path", c->min_block_path);
  set_num(L, "warps_per_block", c->warps_per_block);
}

static void push_bounds(lua_State *L, const gp_bounds *b) {
  int k;
  lua_createtable(L, 0, 8);
  lua_createtable(L, 0, GP_BOUND_COUNT);
  for (k = 0; k < GP_BOUND_COUNT; k++)
    set_num(L, gp_bound_name(k), b->cycles[k]);
  lua_setfield(L, -2, "cycles");
  lua_pushstring(L, gp_bound_name(b->binds));
  lua_setfield(L, -2, "binds");
  set_num(L, "bound", b->bound);
  set_num(L, "total", b->total);
  set_num(L, "sms_used", b->sms_used);
  lua_createtable(L, 0, 3);
  set_num(L, "l2", b->estimate_l2);
  set_num(L, "mshr", b->estimate_mshr);
  set_num(L, "dram", b->estimate_dram);
  lua_setfield(L, -2, "estimates");
  lua_pushstring(L, gp_bound_name(b->expect));
  lua_setfield(L, -2, "expect");
  set_num(L, "expect_cycles", b->expect_cycles);
}

/* A count field: a finite number >= 0 (absent: 0). */
static double count_field(lua_State *L, int t, const char *field) {
  double v = gpl_opt_number(L, t, field, 0, "bounds");
  if (!(v >= 0) || isinf(v))
    return luaL_error(L, "bounds: count '%s' must be a finite number >= 0, got %f", field, v);
  return v;
}

/* The occupancy argument at `arg`: resident blocks per SM. */
static uint32_t check_blocks(lua_State *L, int arg) {
  lua_Integer b = luaL_checkinteger(L, arg);
  luaL_argcheck(L, b >= 0 && b <= (lua_Integer)UINT32_MAX, arg, "blocks per SM out of range");
  return (uint32_t)b;
}

void gpl_read_bounds_counts(lua_State *L, int t, gp_bounds_counts *c) {
  int k;
  luaL_checktype(L, t, LUA_TTABLE);
  memset(c, 0, sizeof *c);
  c->blocks = count_field(L, t, "blocks");
  c->insts = count_field(L, t, "insts");
  c->min_block_insts = count_field(L, t, "min_block_insts");
  gpl_read_classes(L, t, "class_insts", c->class_insts, 0, "bounds");
  for (k = 0; k < GP_OP_CLASS_COUNT; k++)
    if (!(c->class_insts[k] >= 0) || isinf(c->class_insts[k]))
      luaL_error(L, "bounds: class_insts.%s must be a finite number >= 0", gp_op_class_name(k));
  c->lsu_cycles = count_field(L, t, "lsu_cycles");
  c->shared_passes = count_field(L, t, "shared_passes");
  c->l2_requests = count_field(L, t, "l2_requests");
  c->mshr_requests = count_field(L, t, "mshr_requests");
  c->mshr_dram_requests = count_field(L, t, "mshr_dram_requests");
  c->hard_l2_requests = count_field(L, t, "hard_l2_requests");
  c->hard_mshr_lines = count_field(L, t, "hard_mshr_lines");
  c->hard_mshr_cold_lines = count_field(L, t, "hard_mshr_cold_lines");
  if (c->hard_mshr_cold_lines > c->hard_mshr_lines || c->hard_mshr_lines > c->hard_l2_requests)
    luaL_error(L, "bounds: counts need hard_mshr_cold_lines <= hard_mshr_lines <= "
                  "hard_l2_requests, got %f, %f, %f",
               c->hard_mshr_cold_lines, c->hard_mshr_lines, c->hard_l2_requests);
  c->hard_dram_read_bytes = count_field(L, t, "hard_dram_read_bytes");
  c->hard_dram_written_bytes = count_field(L, t, "hard_dram_written_bytes");
  c->dram_bytes = count_field(L, t, "dram_bytes");
  c->longest_path = count_field(L, t, "longest_path");
  c->block_paths = count_field(L, t, "block_paths");
  c->min_block_path = count_field(L, t, "min_block_path");
  c->warps_per_block = count_field(L, t, "warps_per_block");
}

static int bounds_compute(lua_State *L) {
  const gp_machine *m;
  uint32_t blocks;
  gp_bounds_counts c;
  gp_bounds b;
  gpl_read_bounds_counts(L, 1, &c);
  m = gpl_check_machine(L, 2);
  blocks = check_blocks(L, 3);
  gp_bounds_compute(&c, m, blocks, &b);
  push_bounds(L, &b);
  return 1;
}

/* The totals gp_bounds_count reads (bounds.h) from core.memsim_functional's
 * result table at t, into a result without per-PC entries. */
static void read_functional_totals(lua_State *L, int t, gp_memsim_result *mem) {
  luaL_checktype(L, t, LUA_TTABLE);
  memset(mem, 0, sizeof *mem);
  mem->pc_count = (uint32_t)gpl_opt_nonneg(L, t, "pc_count", 0, "bounds");
  mem->mshr_requests = (uint64_t)gpl_opt_nonneg(L, t, "mshr_requests", 0, "bounds");
  mem->mshr_dram_requests = (uint64_t)gpl_opt_nonneg(L, t, "mshr_dram_requests", 0, "bounds");
  mem->dram_bytes_read = (uint64_t)gpl_opt_nonneg(L, t, "dram_bytes_read", 0, "bounds");
  mem->dram_bytes_written = (uint64_t)gpl_opt_nonneg(L, t, "dram_bytes_written", 0, "bounds");
  gpc_getfield(L, t, "l2");
  if (!lua_istable(L, -1))
    luaL_error(L, "bounds: the functional result's 'l2' must be a table of cache counts, got %s",
               luaL_typename(L, -1));
  mem->l2.accesses = (uint64_t)gpl_opt_nonneg(L, lua_gettop(L), "accesses", 0, "bounds");
  lua_pop(L, 1);
}

static int bounds_kernel(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  const gp_machine *m = gpl_check_machine(L, 2);
  uint32_t blocks = check_blocks(L, 3);
  gp_memsim_config mc;
  gp_memsim_result mem;
  gp_bounds_counts c;
  gp_bounds b;
  gp_alloc alloc = gp_alloc_default();
  gp_error err;
  int status, replay = lua_isnoneornil(L, 4);
  if (!replay) {
    read_functional_totals(L, 4, &mem);
  } else {
    gp_machine_memsim(m, blocks, k->shmem_bytes, &mc);
    if (gp_memsim_functional(k, &mc, &alloc, &mem, &err) != GP_OK) {
      lua_pushnil(L);
      lua_pushstring(L, err.msg);
      return 2;
    }
  }
  status = gp_bounds_count(k, m, blocks, &mem, &alloc, &c, &err);
  if (replay)
    gp_memsim_result_free(&mem, &alloc);
  if (status != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  gp_bounds_compute(&c, m, blocks, &b);
  push_bounds(L, &b);
  gpl_push_bounds_counts(L, &c);
  lua_setfield(L, -2, "counts");
  return 1;
}

/* core.bounds_key_text(values, at, prefixes): the text gpush.bounds'
 * key_text builds in Lua, "path=value;..." with each value as tostring
 * prints it (a number converted by lua_tolstring, which formats as tostring
 * does; booleans and nil spelled out), in one buffer: the parts and their
 * concatenation in Lua were 16 ms of the main job's 864 sweep points, each
 * point's configuration a table of its own.  A value of another type is
 * misuse (a checked configuration holds numbers, booleans and strings). */
static int bounds_key_text(lua_State *L) {
  size_t n, i;
  luaL_Buffer b;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  n = gpc_rawlen(L, 3);
  luaL_argcheck(L, gpc_rawlen(L, 2) == n, 2, "one place in the values per prefix expected");
  luaL_buffinit(L, &b);
  for (i = 1; i <= n; i++) {
    if (i > 1)
      luaL_addchar(&b, ';');
    gpc_rawgeti(L, 3, i);
    luaL_argcheck(L, lua_type(L, -1) == LUA_TSTRING, 3, "prefixes must be strings");
    luaL_addvalue(&b);
    gpc_rawgeti(L, 2, i);
    luaL_argcheck(L, lua_type(L, -1) == LUA_TNUMBER, 2, "places must be numbers");
    gpc_rawgeti(L, 1, (size_t)lua_tointeger(L, -1));
    lua_remove(L, -2);
    switch (lua_type(L, -1)) {
    case LUA_TNUMBER:
      lua_tolstring(L, -1, NULL); /* converts the copy in place, as tostring prints it */
      luaL_addvalue(&b);
      break;
    case LUA_TSTRING:
      luaL_addvalue(&b);
      break;
    case LUA_TBOOLEAN:
    case LUA_TNIL: {
      const char *word = lua_type(L, -1) == LUA_TNIL ? "nil" : lua_toboolean(L, -1) ? "true" : "false";
      lua_pop(L, 1);
      luaL_addstring(&b, word);
      break;
    }
    default:
      return luaL_argerror(L, 1, "configuration values must be numbers, booleans or strings");
    }
  }
  luaL_pushresult(&b);
  return 1;
}

static const luaL_Reg bounds_functions[] = {{"bounds_kernel", bounds_kernel},
                                            {"bounds_compute", bounds_compute},
                                            {"bounds_key_text", bounds_key_text},
                                            {NULL, NULL}};

void gpl_open_bounds(lua_State *L) { luaL_setfuncs(L, bounds_functions, 0); }
