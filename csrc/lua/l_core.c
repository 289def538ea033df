/*
 * l_core.c -- luaopen_gpush_core: the table every gpush Lua module uses to
 * reach the C core.  Each binding file (l_<type>.c) exports one
 * gpl_open_<type>(L) that adds its functions to the table on top of the stack.
 * Nothing else lives here: the helpers every binding file shares are in
 * l_util.c, so no binding file calls back into this one.
 */
#include "compat.h"
#include "gp_common.h"
#include "l_core.h"

static int core_version(lua_State *L) {
  lua_pushstring(L, gp_version());
  return 1;
}

static int core_code_id(lua_State *L) {
  lua_pushstring(L, gp_core_code_id());
  return 1;
}

static const luaL_Reg core_functions[] = {{"version", core_version},
                                          {"code_id", core_code_id},
                                          {NULL, NULL}};

int luaopen_gpush_core(lua_State *L) {
  lua_newtable(L);
  luaL_setfuncs(L, core_functions, 0);
  lua_pushstring(L, LUA_VERSION);
  lua_setfield(L, -2, "lua_version");
  GPL_OPEN_ALL(L);
  return 1;
}
