/*
 * l_digest.c -- the provenance hash of digest.h.
 *
 *   hex = core.digest(s)              -- 16 hex digits of a string's digest
 *   hex = core.kernel_digest(kernel)  -- 16 hex digits of a kernel's content
 */
#include "compat.h"
#include "digest.h"
#include "l_core.h"

#include <stdio.h>

static int push_hex(lua_State *L, uint64_t h) {
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
  lua_pushstring(L, hex);
  return 1;
}

static int digest_string(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  return push_hex(L, gp_digest_bytes(s, len));
}

static int digest_kernel(lua_State *L) {
  return push_hex(L, gp_digest_kernel(gpl_check_kernel(L, 1)));
}

static const luaL_Reg digest_functions[] = {
    {"digest", digest_string}, {"kernel_digest", digest_kernel}, {NULL, NULL}};

void gpl_open_digest(lua_State *L) { luaL_setfuncs(L, digest_functions, 0); }
