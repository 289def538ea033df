/* lua_harness.h -- libFuzzer targets whose parser is written in Lua.
 *
 * A target defines DRIVER, a Lua chunk returning function(bytes) that runs
 * the parser under test and raises when it breaks its contract (a Lua
 * runtime error such as indexing nil, a result of the wrong shape, a
 * message without the file name); then includes this header.  The harness
 * keeps one Lua 5.4 state with gpush.core preloaded and the source tree's
 * lua/ on package.path, runs the driver on every input, and aborts (a crash
 * libFuzzer records with its reproducer) when it raises.
 *
 * Coverage: liblua is not instrumented, so a line hook feeds libFuzzer's
 * extra counters with (previous line, line) pairs of the Lua code: the
 * fuzzer is guided by the Lua parser's branches as it is by the C core's.
 */
#ifndef GP_LUA_HARNESS_H
#define GP_LUA_HARNESS_H

#include "l_core.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define COUNTERS (1u << 16)
__attribute__((section("__libfuzzer_extra_counters"))) static uint8_t lua_counters[COUNTERS];

static lua_State *fuzz_state;
static uintptr_t previous_location;

/* The line hook: one counter per (previous line, line) edge of Lua code. */
static void line_hook(lua_State *L, lua_Debug *ar) {
  uintptr_t here;
  if (lua_getinfo(L, "S", ar) == 0)
    return;
  here = ((uintptr_t)ar->source * 31u) ^ (uintptr_t)ar->currentline * 2654435761u;
  lua_counters[(here ^ (previous_location >> 1)) & (COUNTERS - 1)]++;
  previous_location = here;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  lua_State *L = luaL_newstate();
  (void)argc, (void)argv;
  luaL_openlibs(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_gpush_core);
  lua_setfield(L, -2, "gpush.core");
  lua_pop(L, 1);
  lua_getglobal(L, "package");
  lua_pushstring(L, GPUSH_SOURCE_DIR "/lua/?.lua;" GPUSH_SOURCE_DIR "/lua/?/init.lua");
  lua_setfield(L, -2, "path");
  lua_pop(L, 1);
  if (luaL_loadstring(L, DRIVER) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
    fprintf(stderr, "fuzz driver: %s\n", lua_tostring(L, -1));
    abort();
  }
  lua_setglobal(L, "fuzz_driver");
  lua_sethook(L, line_hook, LUA_MASKLINE, 0);
  fuzz_state = L;
  return 0;
}

static int traceback(lua_State *L) {
  luaL_traceback(L, L, lua_tostring(L, 1), 1);
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lua_State *L = fuzz_state;
  static unsigned runs;
  previous_location = 0;
  lua_pushcfunction(L, traceback);
  lua_getglobal(L, "fuzz_driver");
  lua_pushlstring(L, (const char *)data, size);
  if (lua_pcall(L, 1, 0, -3) != LUA_OK) {
    fprintf(stderr, "fuzz driver raised: %s\n", lua_tostring(L, -1));
    abort();
  }
  lua_pop(L, 1);
  if (++runs % 256 == 0)
    lua_gc(L, LUA_GCCOLLECT, 0);
  return 0;
}

#endif
