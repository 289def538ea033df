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
 *   core.params_same(a, b)
 *       -- true when the tables a and b have the same keys, nested alike,
 *       -- and at every leaf the same value: raw-equal, of the same number
 *       -- subtype, and a zero of the same sign (so each leaf prints
 *       -- alike); false otherwise, including where two leaves differ but
 *       -- might still print alike (0.1 + 0.2 and 0.3, two NaNs).
 *
 * gpush.config.check passes a configuration it has already checked when it
 * still holds the values that check wrote back; a model checks its
 * configuration on every call, GPUMech once per launch, and the same walk
 * in Lua was about half of the Lua side's time on a real trace of short
 * launches (issue 30).  Indexing honours metamethods, as the Lua walk did.
 * gpush.memsim.params_equal asks params_same first (the bounds check a
 * memory replay's parameters once per launch: about 1 M instructions of 16
 * launches in Lua) and walks in Lua, comparing printed leaves, only where
 * it answers false.  Its walk is raw (lua_next, lua_rawget): the memory
 * parameters are plain tables.
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

/* Whether the plain tables at stack indices a and b hold the same keys,
 * each with the same value (tables compared alike, `depth` levels deep at
 * most: deeper, or cyclic, tables answer false and are left to the Lua
 * walk). */
static int tables_same(lua_State *L, int a, int b, int depth) {
  int same = depth > 0;
  luaL_checkstack(L, 4, "params_same: tables nested too deep");
  if (!same)
    return 0;
  lua_pushnil(L);
  while (same && lua_next(L, a)) { /* key -2, a's value -1 */
    lua_pushvalue(L, -2);
    lua_rawget(L, b); /* b's value -1, a's value -2 */
    if (lua_type(L, -2) == LUA_TTABLE || lua_type(L, -1) == LUA_TTABLE)
      same = lua_type(L, -2) == LUA_TTABLE && lua_type(L, -1) == LUA_TTABLE &&
             tables_same(L, gpc_absindex(L, -2), gpc_absindex(L, -1), depth - 1);
    else if (!lua_rawequal(L, -2, -1))
      same = 0;
    else if (lua_type(L, -1) == LUA_TNUMBER)
      same = gpc_isinteger(L, -1) == gpc_isinteger(L, -2) &&
             (lua_tonumber(L, -1) != 0 ||
              signbit(lua_tonumber(L, -1)) == signbit(lua_tonumber(L, -2)));
    lua_pop(L, 2);
  }
  if (!same) {
    lua_pop(L, 1); /* the key lua_next left */
    return 0;
  }
  lua_pushnil(L); /* every key of b in a too */
  while (lua_next(L, b)) {
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_rawget(L, a);
    same = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!same) {
      lua_pop(L, 1);
      return 0;
    }
  }
  return 1;
}

static int params_same(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_pushboolean(L, tables_same(L, 1, 2, 16));
  return 1;
}

static const luaL_Reg config_functions[] = {{"config_unchanged", config_unchanged},
                                            {"params_same", params_same},
                                            {NULL, NULL}};

void gpl_open_config(lua_State *L) { luaL_setfuncs(L, config_functions, 0); }
