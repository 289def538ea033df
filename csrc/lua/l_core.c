/*
 * l_core.c -- luaopen_gpush_core: the table every gpush Lua module uses to
 * reach the C core.  Each binding file (l_<type>.c) exports one
 * gpl_open_<type>(L) that adds its functions to the table on top of the stack.
 * The field readers and setters every binding file shares live here too.
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

/* t[field] as a number, `def` when absent, a boolean as 0 or 1; anything
 * else raises "<who>: parameter '<field>' must be a number", and so does a
 * negative value when nonneg is set. */
static double read_number(lua_State *L, int t, const char *field, double def, const char *who,
                          int nonneg) {
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
    return luaL_error(L, "%s: parameter '%s' must be a number", who, field);
  lua_pop(L, 1);
  if (nonneg && v < 0)
    return luaL_error(L, "%s: parameter '%s' must not be negative", who, field);
  return v;
}

double gpl_opt_number(lua_State *L, int t, const char *field, double def, const char *who) {
  return read_number(L, t, field, def, who, 0);
}

double gpl_opt_nonneg(lua_State *L, int t, const char *field, double def, const char *who) {
  return read_number(L, t, field, def, who, 1);
}

void gpl_set_number(lua_State *L, const char *field, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, field);
}

void gpl_set_integer(lua_State *L, const char *field, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, field);
}

void gpl_read_classes(lua_State *L, int t, const char *field, double *out, double def,
                      const char *who) {
  int c;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++)
    out[c] = def;
  gpc_getfield(L, t, field);
  if (lua_istable(L, -1))
    for (c = 0; c < GP_OP_CLASS_COUNT; c++)
      out[c] = gpl_opt_number(L, lua_gettop(L), gp_op_class_name(c), def, who);
  else if (!lua_isnil(L, -1))
    luaL_error(L, "%s: parameter '%s' must be a table of per-class numbers, got %s", who,
               field, luaL_typename(L, -1));
  lua_pop(L, 1);
}

void gpl_read_machine(lua_State *L, int t, gp_bounds_machine *m, const char *who) {
  uint32_t unused_blocks;
  luaL_checktype(L, t, LUA_TTABLE);
  memset(m, 0, sizeof *m);
  m->sms = (uint32_t)gpl_opt_number(L, t, "sms", 1, who);
  m->schedulers = (uint32_t)gpl_opt_number(L, t, "schedulers", 1, who);
  m->issue_width = (uint32_t)gpl_opt_number(L, t, "issue_width", 1, who);
  m->blocks_per_sm = (uint32_t)gpl_opt_number(L, t, "blocks_per_sm", 1, who);
  gpl_read_classes(L, t, "latency", m->latency, 4, who);
  gpl_read_classes(L, t, "interval", m->interval, 1, who);
  m->shared_latency = gpl_opt_number(L, t, "shared_latency", 20, who);
  m->const_latency = gpl_opt_number(L, t, "const_latency", 8, who);
  m->shared_banks = (uint32_t)gpl_opt_number(L, t, "shared_banks", 32, who);
  m->shared_bank_bytes = (uint32_t)gpl_opt_number(L, t, "shared_bank_bytes", 4, who);
  m->block_launch_cycles = gpl_opt_number(L, t, "block_launch_cycles", 0, who);
  m->kernel_launch_cycles = gpl_opt_number(L, t, "kernel_launch_cycles", 0, who);
  gpc_getfield(L, t, "memory");
  if (!lua_istable(L, -1))
    luaL_error(L, "%s: parameter 'memory' must be a table of memory parameters, got %s", who,
               luaL_typename(L, -1));
  gpl_read_memory_params(L, lua_gettop(L), &m->memory, &unused_blocks);
  lua_pop(L, 1);
  m->memory.sms = m->sms;
}
