/*
 * l_sim.c -- the abstract simulator from Lua.
 *
 *   result = core.sim_run(kernel, params)    -- or nil, message
 * params: sms, schedulers, issue_width, blocks_per_sm, policy "lrr"|"gto",
 *   latency = {class = cycles}, interval = {class = cycles} (by class name),
 *   shared_latency, const_latency, shared_banks, shared_bank_bytes,
 *   block_launch_cycles, kernel_launch_cycles, memory = {the parameters of
 *   core.memsim_timed_replay}.
 * result: cycles, issued, sm_cycles = {...}, stalls = {reason = cycles},
 *   dram_bytes_read, dram_bytes_written, mshr_full_stalls, last_dram_done
 */
#include "compat.h"
#include "l_core.h"
#include "sim.h"

#include <string.h>

static double opt_number(lua_State *L, int t, const char *field, double def) {
  double v;
  gpc_getfield(L, t, field);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return def;
  }
  if (lua_type(L, -1) == LUA_TBOOLEAN)
    v = lua_toboolean(L, -1);
  else if (lua_type(L, -1) == LUA_TNUMBER)
    v = lua_tonumber(L, -1);
  else
    return luaL_error(L, "sim: parameter '%s' must be a number", field);
  lua_pop(L, 1);
  return v;
}

/* Reads {class_name = value} into per-class values (default `def`). */
static void read_classes(lua_State *L, int t, const char *field, double *out, double def) {
  int c;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++)
    out[c] = def;
  gpc_getfield(L, t, field);
  if (lua_istable(L, -1))
    for (c = 0; c < GP_OP_CLASS_COUNT; c++)
      out[c] = opt_number(L, lua_gettop(L), gp_op_class_name(c), def);
  lua_pop(L, 1);
}

static int sim_run(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  gp_sim_config c;
  gp_sim_result r;
  gp_alloc alloc = gp_alloc_default();
  gp_error err;
  const char *policy;
  uint32_t i;
  int s;
  luaL_checktype(L, 2, LUA_TTABLE);
  memset(&c, 0, sizeof c);
  c.sms = (uint32_t)opt_number(L, 2, "sms", 1);
  c.schedulers = (uint32_t)opt_number(L, 2, "schedulers", 1);
  c.issue_width = (uint32_t)opt_number(L, 2, "issue_width", 1);
  c.blocks_per_sm = (uint32_t)opt_number(L, 2, "blocks_per_sm", 1);
  gpc_getfield(L, 2, "policy");
  policy = luaL_optstring(L, -1, "lrr");
  luaL_argcheck(L, strcmp(policy, "lrr") == 0 || strcmp(policy, "gto") == 0, 2,
                "policy must be 'lrr' or 'gto'");
  c.policy = strcmp(policy, "gto") == 0 ? GP_SIM_GTO : GP_SIM_LRR;
  lua_pop(L, 1);
  read_classes(L, 2, "latency", c.latency, 4);
  read_classes(L, 2, "interval", c.interval, 1);
  c.shared_latency = opt_number(L, 2, "shared_latency", 20);
  c.const_latency = opt_number(L, 2, "const_latency", 8);
  c.shared_banks = (uint32_t)opt_number(L, 2, "shared_banks", 32);
  c.shared_bank_bytes = (uint32_t)opt_number(L, 2, "shared_bank_bytes", 4);
  c.block_launch_cycles = opt_number(L, 2, "block_launch_cycles", 0);
  c.kernel_launch_cycles = opt_number(L, 2, "kernel_launch_cycles", 0);
  gpc_getfield(L, 2, "memory");
  luaL_argcheck(L, lua_istable(L, -1), 2, "a memory parameter table expected");
  {
    uint32_t unused_blocks;
    gpl_read_memory_params(L, lua_gettop(L), &c.memory, &unused_blocks);
  }
  lua_pop(L, 1);
  c.memory.sms = c.sms;
  if (gp_sim_run(k, &c, &alloc, &r, &err) != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  lua_createtable(L, 0, 8);
  lua_pushnumber(L, r.cycles);
  lua_setfield(L, -2, "cycles");
  lua_pushinteger(L, (lua_Integer)r.issued);
  lua_setfield(L, -2, "issued");
  lua_createtable(L, (int)c.sms, 0);
  for (i = 0; i < c.sms; i++) {
    lua_pushnumber(L, r.sm_cycles[i]);
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "sm_cycles");
  lua_createtable(L, 0, GP_STALL_COUNT);
  for (s = 0; s < GP_STALL_COUNT; s++) {
    lua_pushnumber(L, r.stalls[s]);
    lua_setfield(L, -2, gp_stall_name(s));
  }
  lua_setfield(L, -2, "stalls");
  lua_pushinteger(L, (lua_Integer)r.memory.dram_bytes_read);
  lua_setfield(L, -2, "dram_bytes_read");
  lua_pushinteger(L, (lua_Integer)r.memory.dram_bytes_written);
  lua_setfield(L, -2, "dram_bytes_written");
  lua_pushinteger(L, (lua_Integer)r.memory.mshr_full_stalls);
  lua_setfield(L, -2, "mshr_full_stalls");
  lua_pushnumber(L, r.memory.last_dram_done);
  lua_setfield(L, -2, "last_dram_done");
  gp_sim_result_free(&r, &alloc, k, c.sms);
  return 1;
}

static const luaL_Reg sim_functions[] = {{"sim_run", sim_run}, {NULL, NULL}};

void gpl_open_sim(lua_State *L) { luaL_setfuncs(L, sim_functions, 0); }
