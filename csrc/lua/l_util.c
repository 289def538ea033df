/*
 * l_util.c -- what every binding file shares: registering a userdata type,
 * reading a number field of a table (with its error message), setting
 * fields of the table being built.  Calls nothing of the other binding
 * files.
 */
#include "compat.h"
#include "l_core.h"
#include "trace.h"

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
