/*
 * l_sim.c -- the abstract simulator from Lua.
 *
 *   result = core.sim_run(kernel, machine, options)    -- or nil, message
 * machine: core.machine(cfg) (everything the simulator times comes from it);
 * options: blocks_per_sm (the kernel's occupancy, gpush.occupancy; required),
 *   policy "lrr" (default), "gto", "two-level" or a function (below), and
 *   per_pc (true: charge cycles per static PC; default false).
 * A policy function is called as policy(where, candidates) for every issue:
 *   where = {sm =, scheduler =, cycle =} (ids from 0), candidates = an array
 *   of {warp =, slot =, age =, pc =, op =} (the warps that can issue now, by
 *   slot); it returns the index (1..#candidates) of the one that issues.
 *   Its errors come back as nil, message; they never unwind the C core.
 * result: cycles, issued, sm_cycles, sm_issued, sm_stalls = {{reason = cycles}},
 *   sm_utilisation and sm_active (per SM: the shares of its scheduler cycles
 *   that issued and that were not idle),
 *   stalls = {reason = cycles}, with per_pc: per_pc = {{pc, opcode, class, line,
 *   executions, cycles, stalls}} (static order) and line_stalls = {{line,
 *   total, stalls}}; counts = {the raw
 *   counters of gp_sim_counters and the cache statistics},
 *   dram_bytes_read, dram_bytes_written, mshr_full_stalls, mshr_merges (requests
 *   that joined one outstanding for their line or its L1 fill), l2_fill_waits,
 *   l2_early_arrivals, dram_duplicate_bytes (memsim's arrival-order rule),
 *   last_dram_done
 */
#include "compat.h"
#include "l_core.h"
#include "sim/sim.h"

#include <string.h>

/* ---------------------------------------------------------------------------
 * A Lua function as the scheduling policy
 * ------------------------------------------------------------------------- */

typedef struct policy_call {
  lua_State *L;
  const gp_kernel *k;
  int runner;  /* stack index of the protected runner closure */
  int fn;      /* stack index of the user's function */
  const gp_sim_candidate *cand;
  uint32_t n, sm, sched;
  double cycle;
  lua_Integer chosen;
} policy_call;

/* Runs under lua_pcall: builds the arguments, calls the user's function
 * (argument 1) and checks its answer. */
static int run_policy(lua_State *L) {
  policy_call *pc = (policy_call *)lua_touserdata(L, 2);
  uint32_t i;
  lua_pushvalue(L, 1);
  lua_createtable(L, 0, 3);
  gpl_set_integer(L, "sm", pc->sm);
  gpl_set_integer(L, "scheduler", pc->sched);
  lua_pushnumber(L, pc->cycle);
  lua_setfield(L, -2, "cycle");
  lua_createtable(L, (int)pc->n, 0);
  for (i = 0; i < pc->n; i++) {
    const gp_sim_candidate *c = &pc->cand[i];
    lua_createtable(L, 0, 5);
    gpl_set_integer(L, "warp", c->warp);
    gpl_set_integer(L, "slot", c->slot);
    gpl_set_integer(L, "age", (lua_Integer)c->age);
    gpl_set_integer(L, "pc", (lua_Integer)pc->k->statics[c->pc_index].pc);
    lua_pushstring(L, gp_op_class_name(c->op_class));
    lua_setfield(L, -2, "op");
    gpc_rawseti(L, -2, i + 1);
  }
  lua_call(L, 2, 1);
  if (!gpc_isinteger(L, -1) || lua_tointeger(L, -1) < 1 ||
      lua_tointeger(L, -1) > (lua_Integer)pc->n)
    return luaL_error(L, "sim: the policy function returned %s; expected a candidate index 1..%d",
                      luaL_typename(L, -1), (int)pc->n);
  pc->chosen = lua_tointeger(L, -1);
  return 0;
}

/* gp_sim_pick_fn for a Lua function: every Lua error is caught here. */
static int pick_lua(void *ctx, uint32_t sm, uint32_t sched, double cycle,
                    const gp_sim_candidate *cand, uint32_t n, gp_error *err) {
  policy_call *pc = (policy_call *)ctx;
  lua_State *L = pc->L;
  pc->cand = cand, pc->n = n, pc->sm = sm, pc->sched = sched, pc->cycle = cycle;
  lua_pushvalue(L, pc->runner);
  lua_pushvalue(L, pc->fn);
  lua_pushlightuserdata(L, pc);
  if (lua_pcall(L, 2, 0, 0) != 0) {
    const char *msg = lua_tostring(L, -1);
    gp_error_set(err, "sim: policy function failed: %s", msg ? msg : "(error object is not a string)");
    lua_pop(L, 1);
    return -1;
  }
  return (int)(pc->chosen - 1);
}

/* ---------------------------------------------------------------------------
 * The result
 * ------------------------------------------------------------------------- */

/* Pushes the GP_STALL_COUNT reason names, in gp_stall order, and returns
 * the stack index of the first: push_stalls' keys.  One push of each name
 * per result: lua_setfield looked each C string up again, 9 per table and
 * one table per SM (2.0 of push_stalls' 7.6 M instructions on bfs's 16
 * launches on a100's 108 SMs).  Room for them and 8 more levels of nesting
 * below them. */
static int push_stall_keys(lua_State *L) {
  int s, keys = lua_gettop(L) + 1;
  luaL_checkstack(L, GP_STALL_COUNT + 8, "sim: stall reasons");
  for (s = 0; s < GP_STALL_COUNT; s++)
    lua_pushstring(L, gp_stall_name(s));
  return keys;
}

/* Pushes {reason = cycles} for row[0..GP_STALL_COUNT) and returns the sum;
 * the reason names are at stack index keys.. (push_stall_keys), set in
 * gp_stall order, so the table is the one lua_setfield built, node for
 * node (pairs() walks it in the same order). */
static double push_stalls(lua_State *L, int keys, const double *row) {
  double total = 0;
  int s;
  lua_createtable(L, 0, GP_STALL_COUNT);
  for (s = 0; s < GP_STALL_COUNT; s++) {
    lua_pushvalue(L, keys + s);
    lua_pushnumber(L, row[s]);
    lua_rawset(L, -3);
    total += row[s];
  }
  return total;
}

/* One SM's share of a result table: issued, or active (not idle), over its
 * schedulers' cycles; 0 (an integer, as Lua's ratio gives) without any. */
static void push_sm_share(lua_State *L, double part, double total) {
  if (total > 0)
    lua_pushnumber(L, part / total);
  else
    lua_pushinteger(L, 0);
}

/* r.sm_stalls ({reason = cycles} per SM), r.sm_utilisation (the share of
 * its schedulers' cycles that issued) and r.sm_active (that had a block
 * resident, not idle), computed here with push_stalls' sum (the reasons in
 * gp_stall order, the order of gpush.models.sim's STALL_REASONS, so the
 * same bits as the Lua loop it replaces: 108-132 SMs x 9 reasons per
 * launch were a third of the Lua side of `gpush sim` on a100 and h100). */
static void push_sm_stalls(lua_State *L, int keys, const gp_sim_result *r, uint32_t sms) {
  uint32_t i;
  int stalls, util, active;
  lua_createtable(L, (int)sms, 0);
  stalls = lua_gettop(L);
  lua_createtable(L, (int)sms, 0);
  util = lua_gettop(L);
  lua_createtable(L, (int)sms, 0);
  active = lua_gettop(L);
  for (i = 0; i < sms; i++) {
    const double *row = r->sm_stalls + (size_t)i * GP_STALL_COUNT;
    double total = push_stalls(L, keys, row);
    gpc_rawseti(L, stalls, i + 1);
    push_sm_share(L, row[GP_STALL_ISSUED], total);
    gpc_rawseti(L, util, i + 1);
    push_sm_share(L, total - row[GP_STALL_IDLE], total);
    gpc_rawseti(L, active, i + 1);
  }
  lua_setfield(L, stalls - 1, "sm_active");
  lua_setfield(L, stalls - 1, "sm_utilisation");
  lua_setfield(L, stalls - 1, "sm_stalls");
}

/* {{pc, opcode, line, executions, cycles, stalls}} for every static PC that
 * executed or was charged cycles, in static order. */
static void push_per_pc(lua_State *L, int keys, const gp_kernel *k, const gp_sim_result *r) {
  uint32_t i, n = 0;
  lua_newtable(L);
  for (i = 0; i < r->pc_count; i++) {
    const gp_static_inst *st = &k->statics[i];
    double total;
    lua_createtable(L, 0, 6);
    total = push_stalls(L, keys, r->pc_stalls + (size_t)i * GP_STALL_COUNT);
    lua_setfield(L, -2, "stalls");
    if (!(total > 0) && r->pc_executions[i] == 0) {
      lua_pop(L, 1);
      continue;
    }
    lua_pushnumber(L, total);
    lua_setfield(L, -2, "cycles");
    gpl_set_integer(L, "executions", (lua_Integer)r->pc_executions[i]);
    gpl_set_integer(L, "pc", (lua_Integer)st->pc);
    lua_pushstring(L, k->strings + st->opcode);
    lua_setfield(L, -2, "opcode");
    lua_pushstring(L, gp_op_class_name(st->op_class));
    lua_setfield(L, -2, "class");
    if (st->line_num > 0)
      gpl_set_integer(L, "line", st->line_num);
    gpc_rawseti(L, -2, ++n);
  }
}

static void push_line_stalls(lua_State *L, int keys, const gp_sim_result *r) {
  uint32_t i;
  lua_createtable(L, (int)r->line_count, 0);
  for (i = 0; i < r->line_count; i++) {
    lua_createtable(L, 0, 3);
    gpl_set_integer(L, "line", r->lines[i]);
    lua_pushnumber(L, push_stalls(L, keys, r->line_stalls + (size_t)i * GP_STALL_COUNT));
    lua_insert(L, -2);
    lua_setfield(L, -3, "stalls");
    lua_setfield(L, -2, "total");
    gpc_rawseti(L, -2, i + 1);
  }
}

static void push_class_counts(lua_State *L, const uint64_t *counts) {
  int c;
  lua_createtable(L, 0, GP_OP_CLASS_COUNT);
  for (c = 0; c < GP_OP_CLASS_COUNT; c++) {
    lua_pushinteger(L, (lua_Integer)counts[c]);
    lua_setfield(L, -2, gp_op_class_name(c));
  }
}

static void push_counts(lua_State *L, const gp_sim_result *r) {
  const gp_sim_counters *c = &r->counters;
  int u;
  lua_createtable(L, 0, 16);
  push_class_counts(L, c->class_issued);
  lua_setfield(L, -2, "class_issued");
  push_class_counts(L, c->class_lanes);
  lua_setfield(L, -2, "class_lanes");
  gpl_set_number(L, "lsu_busy_cycles", c->lsu_busy_cycles);
  gpl_set_number(L, "store_lsu_stall_cycles", c->store_lsu_stall_cycles);
  lua_createtable(L, 0, GP_UNIT_COUNT);
  for (u = 0; u < GP_UNIT_COUNT; u++)
    gpl_set_number(L, gp_unit_name(u), c->unit_busy_cycles[u]);
  lua_setfield(L, -2, "unit_busy_cycles");
  gpl_set_integer(L, "bank_conflicts", (lua_Integer)c->bank_conflicts);
  gpl_set_integer(L, "bank_extra_passes", (lua_Integer)c->bank_extra_passes);
  gpl_set_number(L, "resident_warp_cycles", c->resident_warp_cycles);
  gpl_set_number(L, "scheduler_cycles", c->scheduler_cycles);
  gpl_set_integer(L, "l1_accesses", (lua_Integer)r->memory.l1.accesses);
  gpl_set_integer(L, "l1_hits", (lua_Integer)r->memory.l1.hits);
  gpl_set_integer(L, "l2_accesses", (lua_Integer)r->memory.l2.accesses);
  gpl_set_integer(L, "l2_hits", (lua_Integer)r->memory.l2.hits);
}

/* Pushes the result table (the fields of the header comment). */
static void push_result(lua_State *L, const gp_kernel *k, const gp_sim_result *r, uint32_t sms) {
  uint32_t i;
  int keys = push_stall_keys(L);
  lua_createtable(L, 0, 16);
  gpl_set_number(L, "cycles", r->cycles);
  gpl_set_integer(L, "issued", (lua_Integer)r->issued);
  lua_createtable(L, (int)sms, 0);
  for (i = 0; i < sms; i++) {
    lua_pushnumber(L, r->sm_cycles[i]);
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "sm_cycles");
  lua_createtable(L, (int)sms, 0);
  for (i = 0; i < sms; i++) {
    lua_pushinteger(L, (lua_Integer)r->sm_issued[i]);
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "sm_issued");
  push_sm_stalls(L, keys, r, sms);
  push_stalls(L, keys, r->stalls);
  lua_setfield(L, -2, "stalls");
  if (r->pc_stalls != NULL) {
    push_per_pc(L, keys, k, r);
    lua_setfield(L, -2, "per_pc");
    push_line_stalls(L, keys, r);
    lua_setfield(L, -2, "line_stalls");
  }
  push_counts(L, r);
  lua_setfield(L, -2, "counts");
  gpl_set_integer(L, "dram_bytes_read", (lua_Integer)r->memory.dram_bytes_read);
  gpl_set_integer(L, "dram_bytes_written", (lua_Integer)r->memory.dram_bytes_written);
  gpl_set_integer(L, "mshr_full_stalls", (lua_Integer)r->memory.mshr_full_stalls);
  gpl_set_integer(L, "mshr_merges", (lua_Integer)r->memory.mshr_merges);
  gpl_set_integer(L, "l2_fill_waits", (lua_Integer)r->memory.l2_fill_waits);
  gpl_set_integer(L, "l2_early_arrivals", (lua_Integer)r->memory.l2_early_arrivals);
  gpl_set_integer(L, "dram_duplicate_bytes", (lua_Integer)r->memory.dram_duplicate_bytes);
  gpl_set_number(L, "last_dram_done", r->memory.last_dram_done);
  lua_replace(L, keys); /* the result where the keys began, the keys gone */
  lua_settop(L, keys);
}

/* Reads options.policy: a name or a function (left on the stack at *fn). */
static gp_sim_policy read_policy(lua_State *L, int *fn) {
  const char *name;
  gpc_getfield(L, 3, "policy");
  if (lua_isfunction(L, -1)) {
    *fn = lua_gettop(L);
    return GP_SIM_CALLBACK;
  }
  name = luaL_optstring(L, -1, "lrr");
  luaL_argcheck(L, strcmp(name, "lrr") == 0 || strcmp(name, "gto") == 0 ||
                       strcmp(name, "two-level") == 0,
                3, "policy must be 'lrr', 'gto', 'two-level' or a function");
  lua_pop(L, 1);
  return strcmp(name, "gto") == 0 ? GP_SIM_GTO
         : strcmp(name, "two-level") == 0 ? GP_SIM_TWO_LEVEL
                                          : GP_SIM_LRR;
}

/* The registry's table of kernels' issue counts (weak keys: a kernel's
 * counts go with it). */
static const char *const COUNTS_TABLE = "gpush.sim.counts";
static const char *const COUNTS_META = "gpush.sim.counts_meta";

static int counts_gc(lua_State *L) {
  gp_sim_counts *c = lua_touserdata(L, 1);
  gp_alloc alloc = gp_alloc_default();
  gp_sim_counts_free(c, &alloc);
  return 0;
}

/* The issue counts of the kernel at stack index 1: counted at its first
 * run and kept for every later one (each point of a sweep, each policy),
 * in COUNTS_TABLE keyed by the kernel's userdata, which the caller's stack
 * holds for the run.  NULL when they cannot be counted (out of memory):
 * the run then counts them itself. */
static const gp_sim_counts *kernel_counts(lua_State *L, const gp_kernel *k) {
  gp_sim_counts *c;
  gp_alloc alloc = gp_alloc_default();
  gp_error err;
  luaL_checkstack(L, 4, "sim: issue counts");
  lua_getfield(L, LUA_REGISTRYINDEX, COUNTS_TABLE);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, COUNTS_TABLE);
  }
  lua_pushvalue(L, 1);
  lua_rawget(L, -2);
  c = lua_touserdata(L, -1);
  if (c != NULL && c->pc_count == k->static_count) {
    lua_pop(L, 2);
    return c;
  }
  lua_pop(L, 1);
  c = lua_newuserdata(L, sizeof *c);
  memset(c, 0, sizeof *c);
  if (luaL_newmetatable(L, COUNTS_META)) {
    lua_pushcfunction(L, counts_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  if (gp_sim_count(k, &alloc, c, &err) != GP_OK) {
    lua_pop(L, 2);
    return NULL;
  }
  lua_pushvalue(L, 1);
  lua_pushvalue(L, -2);
  lua_rawset(L, -4); /* counts[kernel] = c */
  lua_pop(L, 2);
  return c;
}

static int sim_run(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  const gp_machine *m = gpl_check_machine(L, 2);
  int status;
  gp_sim_options c;
  gp_sim_result r;
  gp_alloc alloc = gp_alloc_default();
  gp_error err;
  policy_call call;
  lua_Integer blocks;
  int fn = 0;
  luaL_checktype(L, 3, LUA_TTABLE);
  memset(&c, 0, sizeof c);
  memset(&call, 0, sizeof call);
  gpc_getfield(L, 3, "blocks_per_sm");
  blocks = gpc_isinteger(L, -1) ? lua_tointeger(L, -1) : -1;
  lua_pop(L, 1);
  luaL_argcheck(L, blocks >= 0 && blocks <= (lua_Integer)UINT32_MAX, 3,
                "options.blocks_per_sm (the kernel's occupancy) must be a whole number >= 0");
  c.blocks_per_sm = (uint32_t)blocks;
  gpc_getfield(L, 3, "per_pc");
  c.per_pc = lua_toboolean(L, -1);
  lua_pop(L, 1);
  c.policy = read_policy(L, &fn);
  if (c.policy == GP_SIM_CALLBACK) {
    luaL_checkstack(L, 8, "sim: policy function");
    lua_pushcfunction(L, run_policy);
    call.L = L, call.k = k, call.runner = lua_gettop(L), call.fn = fn;
    c.pick = pick_lua, c.pick_ctx = &call;
  }
  c.counts = kernel_counts(L, k);
  gpl_hold_kernel(L, 1);
  status = gp_sim_run(k, m, &c, &alloc, &r, &err);
  gpl_release_kernel(L, 1);
  if (status != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  push_result(L, k, &r, r.sms);
  gp_sim_result_free(&r, &alloc);
  return 1;
}

static const luaL_Reg sim_functions[] = {{"sim_run", sim_run}, {NULL, NULL}};

void gpl_open_sim(lua_State *L) { luaL_setfuncs(L, sim_functions, 0); }
