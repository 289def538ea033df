/*
 * l_fs.c -- the little file-system access the Lua layer needs.
 *
 *   names = core.list_dir(path)   -- sorted entry names (no . and ..),
 *                                 -- or nil, message
 *   path = core.realpath(path)    -- canonical absolute path, or nil, message
 *   ok = core.mkdir(path)         -- true (also if it exists), or nil, message
 */
#define _XOPEN_SOURCE 700

#include "compat.h"
#include "l_core.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int list_dir(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  DIR *dir = opendir(path);
  struct dirent *entry;
  int n = 0;
  if (dir == NULL) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: cannot list: %s", path, strerror(errno));
    return 2;
  }
  lua_newtable(L);
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
      continue;
    lua_pushstring(L, entry->d_name);
    gpc_rawseti(L, -2, ++n);
  }
  closedir(dir);
  /* table.sort(names) */
  lua_getglobal(L, "table");
  lua_getfield(L, -1, "sort");
  lua_pushvalue(L, -3);
  lua_call(L, 1, 0);
  lua_pop(L, 1);
  return 1;
}

static int real_path(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  char resolved[PATH_MAX];
  if (realpath(path, resolved) == NULL) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, strerror(errno));
    return 2;
  }
  lua_pushstring(L, resolved);
  return 1;
}

static int make_dir(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  struct stat st;
  if (mkdir(path, 0777) != 0 && !(errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: cannot create the folder: %s", path, strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

static const luaL_Reg fs_functions[] = {{"list_dir", list_dir},
                                        {"realpath", real_path},
                                        {"mkdir", make_dir},
                                        {NULL, NULL}};

void gpl_open_fs(lua_State *L) { luaL_setfuncs(L, fs_functions, 0); }
