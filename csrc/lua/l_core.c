/*
 * l_core.c -- luaopen_gpush_core: the table every gpush Lua module uses to
 * reach the C core.  Each binding file (l_<type>.c) exports one
 * gpl_open_<type>(L) that adds its functions to the table on top of the stack.
 */
#include "compat.h"
#include "bounds.h"
#include "gp_common.h"
#include "l_core.h"

#include <string.h>

static int core_version(lua_State *L) {
  lua_pushstring(L, gp_version());
  return 1;
}

static const luaL_Reg core_functions[] = {{"version", core_version},
                                          {NULL, NULL}};

int luaopen_gpush_core(lua_State *L) {
  lua_newtable(L);
  luaL_setfuncs(L, core_functions, 0);
  lua_pushstring(L, LUA_VERSION);
  lua_setfield(L, -2, "lua_version");
  GPL_OPEN_ALL(L);
  return 1;
}

void gpl_new_type(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction gc) {
  luaL_newmetatable(L, name);
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
}

double gpl_opt_number(lua_State *L, int t, const char *field, double def, const char *model) {
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
    return luaL_error(L, "%s: parameter '%s' must be a number, got %s", model, field,
                      luaL_typename(L, -1));
  lua_pop(L, 1);
  return v;
}

void gpl_read_classes(lua_State *L, int t, const char *field, double *out, double def,
                      const char *model) {
  int c;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++)
    out[c] = def;
  gpc_getfield(L, t, field);
  if (lua_istable(L, -1))
    for (c = 0; c < GP_OP_CLASS_COUNT; c++)
      out[c] = gpl_opt_number(L, lua_gettop(L), gp_op_class_name(c), def, model);
  else if (!lua_isnil(L, -1))
    luaL_error(L, "%s: parameter '%s' must be a table of per-class numbers, got %s", model,
               field, luaL_typename(L, -1));
  lua_pop(L, 1);
}

void gpl_read_machine(lua_State *L, int t, gp_bounds_machine *m, const char *model) {
  uint32_t unused_blocks;
  luaL_checktype(L, t, LUA_TTABLE);
  memset(m, 0, sizeof *m);
  m->sms = (uint32_t)gpl_opt_number(L, t, "sms", 1, model);
  m->schedulers = (uint32_t)gpl_opt_number(L, t, "schedulers", 1, model);
  m->issue_width = (uint32_t)gpl_opt_number(L, t, "issue_width", 1, model);
  m->blocks_per_sm = (uint32_t)gpl_opt_number(L, t, "blocks_per_sm", 1, model);
  gpl_read_classes(L, t, "latency", m->latency, 4, model);
  gpl_read_classes(L, t, "interval", m->interval, 1, model);
  m->shared_latency = gpl_opt_number(L, t, "shared_latency", 20, model);
  m->const_latency = gpl_opt_number(L, t, "const_latency", 8, model);
  m->shared_banks = (uint32_t)gpl_opt_number(L, t, "shared_banks", 32, model);
  m->shared_bank_bytes = (uint32_t)gpl_opt_number(L, t, "shared_bank_bytes", 4, model);
  m->block_launch_cycles = gpl_opt_number(L, t, "block_launch_cycles", 0, model);
  m->kernel_launch_cycles = gpl_opt_number(L, t, "kernel_launch_cycles", 0, model);
  gpc_getfield(L, t, "memory");
  if (!lua_istable(L, -1))
    luaL_error(L, "%s: parameter 'memory' must be a table of memory parameters, got %s", model,
               luaL_typename(L, -1));
  gpl_read_memory_params(L, lua_gettop(L), &m->memory, &unused_blocks);
  lua_pop(L, 1);
  m->memory.sms = m->sms;
}
