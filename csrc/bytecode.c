/*
 * bytecode.c -- the searcher that loads gpush's modules from the bytecode
 * embedded at build time, when (and only when) the module's source file is
 * the one that was compiled (see bytecode.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "bytecode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "digest.h"

/* The searcher's upvalues: the package table, and the probe's verdict
 * (nil until the first embedded module is asked for, then a boolean). */
#define UPVALUE_PACKAGE 1
#define UPVALUE_PROBE_OK 2

/* The embedded module called `name`, or NULL (binary search: the generator
 * sorts the table by name). */
static const gp_embedded_module *find_module(const char *name) {
  size_t lo = 0, hi = gp_embedded_module_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(name, gp_embedded_modules[mid].name);
    if (c == 0)
      return &gp_embedded_modules[mid];
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return NULL;
}

/* lua_dump's writer into a string buffer opened on the first piece (as
 * string.dump does: the buffer then sits above the function dumped). */
typedef struct dump_state {
  luaL_Buffer b;
  int started;
} dump_state;

static int dump_to_buffer(lua_State *L, const void *p, size_t size, void *ud) {
  dump_state *d = ud;
  if (!d->started) {
    d->started = 1;
    luaL_buffinit(L, &d->b);
  }
  luaL_addlstring(&d->b, (const char *)p, size);
  return 0;
}

/* Whether the running Lua library compiles the probe to exactly the dump the
 * build's library made (bytecode.h says why). */
static int probe_matches(lua_State *L) {
  dump_state d;
  size_t length;
  const char *dump;
  int same;
  if (luaL_loadbuffer(L, GP_BYTECODE_PROBE, sizeof GP_BYTECODE_PROBE - 1,
                      GP_BYTECODE_PROBE_NAME) != LUA_OK) {
    lua_pop(L, 1);
    return 0;
  }
  d.started = 0;
  if (lua_dump(L, dump_to_buffer, &d, 0) != 0 || !d.started) {
    if (d.started)
      luaL_pushresult(&d.b);
    lua_pop(L, 1 + d.started);
    return 0;
  }
  luaL_pushresult(&d.b);
  dump = lua_tolstring(L, -1, &length);
  same = length == gp_embedded_probe_length &&
         memcmp(dump, gp_embedded_probe, length) == 0;
  lua_pop(L, 2);
  return same;
}

/* Reads a whole file into a malloc'ed buffer; NULL when it cannot. */
static char *read_file(const char *path, size_t *length) {
  FILE *f = fopen(path, "rb");
  char *data = NULL;
  long size;
  if (f == NULL)
    return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
      fseek(f, 0, SEEK_SET) == 0) {
    data = malloc((size_t)size + 1);
    if (data != NULL && fread(data, 1, (size_t)size, f) != (size_t)size) {
      free(data);
      data = NULL;
    }
    *length = (size_t)size;
  }
  fclose(f);
  return data;
}

/* lua_load's reader over the three pieces of a spliced dump: the embedded
 * dump before the chunk name, the encoded "@<file>", the dump after it. */
typedef struct splice {
  const char *piece[3];
  size_t length[3];
  int next;
} splice;

static const char *read_splice(lua_State *L, void *ud, size_t *size) {
  splice *s = ud;
  (void)L;
  while (s->next < 3 && s->length[s->next] == 0)
    s->next++;
  if (s->next == 3) {
    *size = 0;
    return NULL;
  }
  *size = s->length[s->next];
  return s->piece[s->next++];
}

/* Loads module m's bytecode as the chunk "@<file>"; pushes the function and
 * returns 1, or pushes nothing and returns 0. */
static int load_embedded(lua_State *L, const gp_embedded_module *m, const char *file) {
  unsigned char size_bytes[GP_BYTECODE_SIZE_MAX];
  splice s;
  int n;
  const char *name;
  size_t name_length;
  lua_pushfstring(L, "@%s", file);
  name = lua_tolstring(L, -1, &name_length);
  n = gp_bytecode_encode_size(name_length + 1, size_bytes);
  /* the encoded name: its size, then its bytes, in one string */
  lua_pushlstring(L, (const char *)size_bytes, (size_t)n);
  lua_pushvalue(L, -2);
  lua_concat(L, 2);
  s.piece[0] = (const char *)m->dump;
  s.length[0] = m->name_at;
  s.piece[1] = lua_tolstring(L, -1, &s.length[1]);
  s.piece[2] = (const char *)m->dump + m->name_end;
  s.length[2] = m->dump_length - m->name_end;
  s.next = 0;
  if (lua_load(L, read_splice, &s, name, "b") != LUA_OK) {
    lua_pop(L, 3);
    return 0;
  }
  lua_remove(L, -2);
  lua_remove(L, -2);
  return 1;
}

/* package.searchers entry: for a module gpush embeds whose file (found as
 * Lua's searcher finds it) holds exactly the source compiled at build time,
 * returns the loaded bytecode and the file name, as Lua's searcher returns
 * the compiled source and the file name.  Otherwise returns nothing, which
 * adds nothing to require's "not found" message: the next searcher (Lua's)
 * compiles the source. */
static int bytecode_searcher(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const gp_embedded_module *m = find_module(name);
  const char *file;
  char *source;
  size_t length = 0;
  int same;
  if (m == NULL)
    return 0;
  if (lua_isnil(L, lua_upvalueindex(UPVALUE_PROBE_OK))) {
    lua_pushboolean(L, probe_matches(L));
    lua_replace(L, lua_upvalueindex(UPVALUE_PROBE_OK));
  }
  if (!lua_toboolean(L, lua_upvalueindex(UPVALUE_PROBE_OK)))
    return 0;
  /* file = package.searchpath(name, package.path) */
  lua_getfield(L, lua_upvalueindex(UPVALUE_PACKAGE), "searchpath");
  lua_pushvalue(L, 1);
  lua_getfield(L, lua_upvalueindex(UPVALUE_PACKAGE), "path");
  if (!lua_isfunction(L, -3) || lua_type(L, -1) != LUA_TSTRING)
    return 0;
  lua_call(L, 2, 1);
  file = lua_tostring(L, -1);
  if (file == NULL)
    return 0;
  source = read_file(file, &length);
  same = source != NULL && length == m->source_length &&
         gp_digest_bytes(source, length) == m->source_digest;
  free(source);
  if (!same || !load_embedded(L, m, file))
    return 0;
  lua_insert(L, -2); /* the function, then the file name */
  return 2;
}

void gp_install_bytecode_searcher(lua_State *L) {
  const char *off = getenv("GPUSH_NO_BYTECODE");
  lua_Integer i;
  if (off != NULL && *off != '\0' && strcmp(off, "0") != 0)
    return;
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "searchers");
  /* shift searchers 2.. up by one; ours becomes the second */
  for (i = (lua_Integer)lua_rawlen(L, -1); i >= 2; i--) {
    lua_rawgeti(L, -1, i);
    lua_rawseti(L, -2, i + 1);
  }
  lua_pushvalue(L, -2);
  lua_pushnil(L);
  lua_pushcclosure(L, bytecode_searcher, 2);
  lua_rawseti(L, -2, 2);
  lua_pop(L, 2);
}
