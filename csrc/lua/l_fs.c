/*
 * l_fs.c -- the little file-system access the Lua layer needs.
 *
 *   names = core.list_dir(path)   -- sorted entry names (no . and ..),
 *                                 -- or nil, message
 *   path = core.realpath(path)    -- canonical absolute path, or nil, message
 *   ok = core.mkdir(path)         -- true (also if it exists), or nil, message
 *   st = core.stat(path)          -- {kind = "file"|"folder"|"other", dev, ino,
 *                                 -- size}, or nil, message (the file's identity:
 *                                 -- two paths name one file when dev and ino match)
 *   path = core.temp_file(prefix) -- creates prefix .. "XXXXXX" (a new empty
 *                                 -- file, mode from the umask); or nil, message
 *   path = core.temp_folder(prefix) -- the same for a new folder
 *   ok = core.write_file(path, text) -- text written through a staged file
 *                                 -- (staged.h: beside the target, synced,
 *                                 -- checked, renamed); true, or nil, message
 *   t = core.now()                -- monotonic wall-clock seconds (benchmarks)
 *   bytes, lines = core.read_file_plain(path)  -- read it all once: the
 *                                 -- baseline a parser is compared to
 */
#define _XOPEN_SOURCE 700

#include "compat.h"
#include "l_core.h"
#include "staged.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>

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

static int file_stat(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  struct stat st;
  if (stat(path, &st) != 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, strerror(errno));
    return 2;
  }
  lua_createtable(L, 0, 4);
  lua_pushstring(L, S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "folder" : "other");
  lua_setfield(L, -2, "kind");
  lua_pushinteger(L, (lua_Integer)st.st_dev);
  lua_setfield(L, -2, "dev");
  lua_pushinteger(L, (lua_Integer)st.st_ino);
  lua_setfield(L, -2, "ino");
  lua_pushinteger(L, (lua_Integer)st.st_size);
  lua_setfield(L, -2, "size");
  return 1;
}

/* The permissions a file created with `mode` gets under the current umask
 * (mkstemp and mkdtemp create private entries; an output should not be). */
static mode_t with_umask(mode_t mode) {
  mode_t mask = umask(0);
  umask(mask);
  return mode & ~mask;
}

/* core.temp_file(prefix) / core.temp_folder(prefix): a new entry named
 * prefix .. six random characters, for writing an output under a temporary
 * name and renaming it into place once it is complete. */
static int temp_entry(lua_State *L, int folder) {
  size_t len;
  const char *prefix = luaL_checklstring(L, 1, &len);
  char *name = lua_newuserdata(L, len + 7);
  memcpy(name, prefix, len);
  memcpy(name + len, "XXXXXX", 7);
  if (folder) {
    if (mkdtemp(name) == NULL || chmod(name, with_umask(0777)) != 0)
      goto fail;
  } else {
    int fd = mkstemp(name);
    if (fd < 0)
      goto fail;
    if (fchmod(fd, with_umask(0666)) != 0) {
      close(fd);
      remove(name);
      goto fail;
    }
    close(fd);
  }
  lua_pushstring(L, name);
  return 1;
fail:
  lua_pushnil(L);
  lua_pushfstring(L, "%s: cannot create a temporary %s: %s", prefix,
                  folder ? "folder" : "file", strerror(errno));
  return 2;
}

static int temp_file(lua_State *L) { return temp_entry(L, 0); }
static int temp_folder(lua_State *L) { return temp_entry(L, 1); }

static int write_file(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  size_t len;
  const char *text = luaL_checklstring(L, 2, &len);
  gp_alloc alloc = gp_alloc_default();
  gp_error err;
  if (gp_staged_write(&alloc, path, text, len, &err) != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

static int now(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec * 1e-9);
  return 1;
}

/* Reads a file through a 1 MiB buffer and counts its newlines: the cost of
 * touching every byte once, which no parser can beat. */
static int read_file_plain(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  static const size_t chunk = 1u << 20;
  char *buf;
  FILE *f = fopen(path, "rb");
  lua_Integer bytes = 0, lines = 0;
  size_t n;
  if (f == NULL) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: cannot open: %s", path, strerror(errno));
    return 2;
  }
  buf = lua_newuserdata(L, chunk);
  while ((n = fread(buf, 1, chunk, f)) > 0) {
    const char *p = buf, *end = buf + n;
    bytes += (lua_Integer)n;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
      lines++;
      p++;
    }
  }
  fclose(f);
  lua_pushinteger(L, bytes);
  lua_pushinteger(L, lines);
  return 2;
}

static const luaL_Reg fs_functions[] = {{"list_dir", list_dir},
                                        {"now", now},
                                        {"read_file_plain", read_file_plain},
                                        {"realpath", real_path},
                                        {"mkdir", make_dir},
                                        {"stat", file_stat},
                                        {"temp_file", temp_file},
                                        {"temp_folder", temp_folder},
                                        {"write_file", write_file},
                                        {NULL, NULL}};

void gpl_open_fs(lua_State *L) { luaL_setfuncs(L, fs_functions, 0); }
