/*
 * l_config.c -- what gpush.config asks of C for speed:
 *
 *   core.config_unchanged(cfg, groups, values)
 *       -- true when cfg still holds `values`: groups[g] lists the keys
 *       -- from cfg to a table holding parameters ({"ops", "int"}) and,
 *       -- as groups[g].leaves, the parameters' keys there; values lists
 *       -- the values expected, group after group, leaf after leaf.  Each
 *       -- must be the same value: equal (==), of the same number subtype,
 *       -- and a zero of the same sign.  A non-table on the way reads as
 *       -- nil.
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

/* Pushes the value at the keys of the list at index `keys` below the value
 * at index `from` (nil once a non-table is met on the way). */
static void push_walk(lua_State *L, int from, int keys) {
  size_t depth = gpc_rawlen(L, keys), j;
  lua_pushvalue(L, from);
  for (j = 1; j <= depth; j++) {
    if (lua_type(L, -1) == LUA_TTABLE) {
      gpc_rawgeti(L, keys, j);
      lua_gettable(L, -2);
    } else {
      lua_pushnil(L);
    }
    lua_replace(L, -2);
  }
}

static int config_unchanged(lua_State *L) {
  size_t groups, g, leaves, k, at = 0;
  int same = 1, group, leaf_keys, node;
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  groups = gpc_rawlen(L, 2);
  for (g = 1; same && g <= groups; g++) {
    gpc_rawgeti(L, 2, g);
    group = lua_gettop(L);
    push_walk(L, 1, group);
    node = lua_gettop(L);
    gpc_getfield(L, group, "leaves");
    leaf_keys = lua_gettop(L);
    leaves = gpc_rawlen(L, leaf_keys);
    for (k = 1; same && k <= leaves; k++) {
      if (lua_type(L, node) == LUA_TTABLE) {
        gpc_rawgeti(L, leaf_keys, k);
        lua_gettable(L, node);
      } else {
        lua_pushnil(L);
      }
      gpc_rawgeti(L, 3, ++at);
      same = same_value(L, -1, -2);
      lua_pop(L, 2);
    }
    lua_settop(L, group - 1);
  }
  lua_pushboolean(L, same);
  return 1;
}

static const luaL_Reg config_functions[] = {{"config_unchanged", config_unchanged},
                                            {NULL, NULL}};

void gpl_open_config(lua_State *L) { luaL_setfuncs(L, config_functions, 0); }
