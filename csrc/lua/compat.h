/*
 * compat.h -- keeps the binding loadable from Lua 5.4 and LuaJIT 2.1.
 *
 * LuaJIT 2.1 already provides luaL_setfuncs, luaL_testudata,
 * luaL_setmetatable, lua_copy, lua_tonumberx, lua_tointegerx and
 * luaL_traceback, so nothing here is named like a Lua 5.2+ API function:
 * every shim carries the gpc_ prefix and can never clash with the host.
 * Binding code calls gpc_* for anything that differs between the two.
 */
#ifndef GP_COMPAT_H
#define GP_COMPAT_H

#include <lauxlib.h>
#include <lua.h>

#if LUA_VERSION_NUM >= 503
#define gpc_absindex(L, i) lua_absindex((L), (i))
#define gpc_rawlen(L, i) ((size_t)lua_rawlen((L), (i)))
#define gpc_isinteger(L, i) lua_isinteger((L), (i))
#define gpc_rawgeti(L, t, n) ((void)lua_rawgeti((L), (t), (n)))
#define gpc_getfield(L, t, k) ((void)lua_getfield((L), (t), (k)))
#define gpc_equal(L, a, b) lua_compare((L), (a), (b), LUA_OPEQ)
#elif LUA_VERSION_NUM == 501
#define gpc_absindex(L, i)                                                     \
  (((i) > 0 || (i) <= LUA_REGISTRYINDEX) ? (i) : lua_gettop(L) + (i) + 1)
#define gpc_rawlen(L, i) ((size_t)lua_objlen((L), (i)))
/* LuaJIT has one number type: an integer is a number with no fraction. */
static inline int gpc_isinteger(lua_State *L, int i) {
  lua_Number n;
  if (lua_type(L, i) != LUA_TNUMBER)
    return 0;
  n = lua_tonumber(L, i);
  return n == (lua_Number)(lua_Integer)n;
}
#define gpc_rawgeti(L, t, n) lua_rawgeti((L), (t), (int)(n))
#define gpc_getfield(L, t, k) lua_getfield((L), (t), (k))
#define gpc_equal(L, a, b) lua_equal((L), (a), (b))
#else
#error "gpush needs Lua 5.4 or LuaJIT 2.1"
#endif

/* Sets t[i] = value at top of stack, for a table at index t (any Lua). */
#define gpc_rawseti(L, t, i) lua_rawseti((L), (t), (int)(i))

#endif
