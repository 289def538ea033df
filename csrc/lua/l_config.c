/*
 * l_config.c -- what gpush.config asks of C for speed:
 *
 *   core.config_unchanged(cfg, paths, parts, values)
 *       -- true when, for every i, the value of cfg at the keys parts[i]
 *       -- (a non-table on the way reads as nil) is the same value as
 *       -- values[paths[i]]: equal (==), of the same number subtype, and a
 *       -- zero of the same sign; false otherwise
 *
 * gpush.config.check passes a configuration it has already checked when it
 * still holds the values that check wrote back; a model checks its
 * configuration on every call, GPUMech once per launch, and the same walk
 * in Lua was about half of the Lua side's time on a real trace of short
 * launches (issue 30).  Indexing honours metamethods, as the Lua walk did.
 */
#include <math.h>

#include "compat.h"
#include "l_core.h"

/* Whether the values at stack indices v and w are the same value to a
 * model (config.lua's same_value). */
static int same_value(lua_State *L, int v, int w) {
  if (!gpc_equal(L, v, w))
    return 0;
  if (lua_type(L, v) != LUA_TNUMBER) /* equal, so w is no number either */
    return 1;
  if (gpc_isinteger(L, v) != gpc_isinteger(L, w))
    return 0;
  return lua_tonumber(L, v) != 0 || signbit(lua_tonumber(L, v)) == signbit(lua_tonumber(L, w));
}

static int config_unchanged(lua_State *L) {
  size_t n, i, j, depth;
  int same = 1;
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  n = gpc_rawlen(L, 2);
  for (i = 1; same && i <= n; i++) {
    gpc_rawgeti(L, 3, i);
    depth = gpc_rawlen(L, -1);
    lua_pushvalue(L, 1);
    for (j = 1; j <= depth; j++) {
      if (lua_type(L, -1) == LUA_TTABLE) {
        gpc_rawgeti(L, -2, j);
        lua_gettable(L, -2);
      } else {
        lua_pushnil(L);
      }
      lua_remove(L, -2);
    }
    gpc_rawgeti(L, 2, i);
    lua_gettable(L, 4);
    same = same_value(L, -1, -2);
    lua_pop(L, 3);
  }
  lua_pushboolean(L, same);
  return 1;
}

static const luaL_Reg config_functions[] = {{"config_unchanged", config_unchanged},
                                            {NULL, NULL}};

void gpl_open_config(lua_State *L) { luaL_setfuncs(L, config_functions, 0); }
