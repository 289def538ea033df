/*
 * embed_bytecode.c -- build-time tool: compiles gpush's Lua modules with the
 * Lua 5.4 library the executable links and writes them as a C file of
 * embedded bytecode (bytecode.h describes the table and how the executable
 * decides to use an entry).
 *
 *   embed_bytecode OUT.c LUA_ROOT FILE.lua...
 *
 * A module's name is its path below LUA_ROOT with '/' as '.', without
 * ".lua" and without a final ".init" (lua/gpush/models/init.lua ->
 * gpush.models), as package.path's "?.lua;?/init.lua" finds it.  Each file
 * is compiled by luaL_loadfilex, as Lua's own searcher compiles it.  The
 * output is written to OUT.c.tmp and renamed, so an interrupted build never
 * leaves half a table.  Exit status 1 with a message on any failure.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "bytecode.h"
#include "digest.h"

typedef struct module {
  char *name;
  const char *file;
  unsigned char *dump;
  size_t dump_length, name_at, name_end;
  size_t source_length;
  uint64_t source_digest;
} module;

static void die(const char *what, const char *detail) {
  fprintf(stderr, "embed_bytecode: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

typedef struct bytes {
  unsigned char *data;
  size_t length, capacity;
} bytes;

static int write_bytes(lua_State *L, const void *p, size_t size, void *ud) {
  bytes *b = ud;
  (void)L;
  if (b->length + size > b->capacity) {
    size_t capacity = (b->length + size) * 2;
    unsigned char *data = realloc(b->data, capacity);
    if (data == NULL)
      return 1;
    b->data = data, b->capacity = capacity;
  }
  memcpy(b->data + b->length, p, size);
  b->length += size;
  return 0;
}

/* The dump (debug information kept) of the function on top of the stack;
 * pops it. */
static bytes dump_top(lua_State *L, const char *what) {
  bytes b = {NULL, 0, 0};
  if (lua_dump(L, write_bytes, &b, 0) != 0)
    die("cannot dump", what);
  lua_pop(L, 1);
  return b;
}

/* The bytes of `file` (malloc'ed); exits when it cannot be read. */
static char *read_file(const char *file, size_t *length) {
  FILE *f = fopen(file, "rb");
  char *data;
  long size;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
      fseek(f, 0, SEEK_SET) != 0)
    die("cannot read", file);
  *length = (size_t)size;
  data = malloc(*length + 1);
  if (data == NULL || fread(data, 1, *length, f) != *length)
    die("cannot read", file);
  fclose(f);
  return data;
}

/* Compiles `file` as luaL_loadfilex does, under the chunk name `chunk`
 * (luaL_loadfilex names it "@file"; the name is replaced at run time). */
static bytes compile_file(lua_State *L, const char *file, const char *chunk) {
  size_t length;
  char *source = read_file(file, &length);
  /* luaL_loadfilex skips a UTF-8 byte-order mark and a first line starting
   * with '#', and reads binary chunks; gpush's modules have none of them, and the generator refuses them
   * rather than compile differently from the searcher it stands in for. */
  if (length > 0 && (source[0] == '#' || source[0] == LUA_SIGNATURE[0] || source[0] == '\xEF'))
    die("a module starting with '#' or a binary chunk is not embedded", file);
  if (luaL_loadbuffer(L, source, length, chunk) != LUA_OK)
    die(lua_tostring(L, -1), file);
  free(source);
  return dump_top(L, file);
}

/* Fills m: the module name from the path, the dump, where the chunk name
 * sits in it, and the source's length and digest.  The chunk name's place
 * is found by dumping under two names ("=?" and "=??") and checked: the
 * dumps differ only there, so the splice at run time is exact. */
static void embed(lua_State *L, module *m, const char *root, const char *file) {
  size_t root_length = strlen(root), n, i;
  bytes a, b;
  char *source;
  if (strncmp(file, root, root_length) != 0 || file[root_length] != '/')
    die("a module outside the Lua root", file);
  m->file = file;
  m->name = strdup(file + root_length + 1);
  n = strlen(m->name);
  if (n < 5 || strcmp(m->name + n - 4, ".lua") != 0)
    die("not a .lua file", file);
  m->name[n - 4] = '\0';
  for (i = 0; m->name[i]; i++)
    if (m->name[i] == '/')
      m->name[i] = '.';
  n = strlen(m->name);
  if (n > 5 && strcmp(m->name + n - 5, ".init") == 0)
    m->name[n - 5] = '\0';

  a = compile_file(L, file, "=?");
  b = compile_file(L, file, "=??");
  for (i = 0; i < a.length && i < b.length && a.data[i] == b.data[i]; i++)
    ;
  if (i + 3 > a.length || b.length != a.length + 1 || a.data[i] != 0x83 ||
      b.data[i] != 0x84 || memcmp(a.data + i + 1, "=?", 2) != 0 ||
      memcmp(a.data + i + 3, b.data + i + 4, a.length - i - 3) != 0)
    die("unexpected Lua dump layout (the chunk name is not where Lua 5.4 puts it)", file);
  m->dump = a.data, m->dump_length = a.length;
  m->name_at = i, m->name_end = i + 3;
  free(b.data);

  source = read_file(file, &m->source_length);
  m->source_digest = gp_digest_bytes(source, m->source_length);
  free(source);
}

/* Checks the run-time splice (gp_bytecode_encode_size and the pieces) on a
 * long name: splicing "@<200 x's>" into a module's dump must give exactly
 * what lua_dump writes for a chunk of that name. */
static void check_splice(lua_State *L, const module *m) {
  char chunk[202];
  unsigned char size_bytes[GP_BYTECODE_SIZE_MAX];
  bytes want;
  size_t at;
  int n;
  chunk[0] = '@';
  memset(chunk + 1, 'x', 200);
  chunk[201] = '\0';
  want = compile_file(L, m->file, chunk);
  n = gp_bytecode_encode_size(strlen(chunk) + 1, size_bytes);
  at = m->name_at;
  if (want.length != m->name_at + (size_t)n + strlen(chunk) + (m->dump_length - m->name_end) ||
      memcmp(want.data, m->dump, at) != 0 ||
      memcmp(want.data + at, size_bytes, (size_t)n) != 0 ||
      memcmp(want.data + at + n, chunk, strlen(chunk)) != 0 ||
      memcmp(want.data + at + n + strlen(chunk), m->dump + m->name_end,
             m->dump_length - m->name_end) != 0)
    die("the spliced chunk name differs from lua_dump's", m->file);
  free(want.data);
}

static int by_name(const void *x, const void *y) {
  return strcmp(((const module *)x)->name, ((const module *)y)->name);
}

/* Writes `data` as the C array `declaration[length]`. */
static void write_array(FILE *out, const char *declaration, const unsigned char *data,
                        size_t length) {
  size_t i;
  fprintf(out, "%s[%zu] = {", declaration, length ? length : 1);
  for (i = 0; i < length; i++)
    fprintf(out, "%s%u,", i % 24 ? "" : "\n", data[i]);
  fprintf(out, "%s};\n", length ? "\n" : "0");
}

int main(int argc, char **argv) {
  lua_State *L;
  module *modules;
  bytes probe;
  char tmp[4096], array[80];
  FILE *out;
  int count = argc - 3, i;
  if (argc < 4) {
    fprintf(stderr, "usage: embed_bytecode OUT.c LUA_ROOT FILE.lua...\n");
    return 2;
  }
  L = luaL_newstate();
  if (L == NULL)
    die("cannot create a Lua state", NULL);
  modules = calloc((size_t)count, sizeof *modules);
  if (modules == NULL)
    die("out of memory", NULL);
  for (i = 0; i < count; i++)
    embed(L, &modules[i], argv[2], argv[3 + i]);
  qsort(modules, (size_t)count, sizeof *modules, by_name);
  for (i = 1; i < count; i++)
    if (strcmp(modules[i - 1].name, modules[i].name) == 0)
      die("two files give the same module name", modules[i].name);
  check_splice(L, &modules[0]);
  if (luaL_loadbuffer(L, GP_BYTECODE_PROBE, sizeof GP_BYTECODE_PROBE - 1,
                      GP_BYTECODE_PROBE_NAME) != LUA_OK)
    die("the probe does not compile", lua_tostring(L, -1));
  probe = dump_top(L, "the probe");

  snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
  out = fopen(tmp, "w");
  if (out == NULL)
    die("cannot write", tmp);
  fprintf(out, "/* Generated by embed_bytecode (csrc/embed_bytecode.c) from %s: do not edit. */\n",
          argv[2]);
  fprintf(out, "#include \"bytecode.h\"\n\n");
  write_array(out, "const unsigned char gp_embedded_probe", probe.data, probe.length);
  for (i = 0; i < count; i++) {
    snprintf(array, sizeof array, "static const unsigned char module_%d", i);
    write_array(out, array, modules[i].dump, modules[i].dump_length);
  }
  fprintf(out, "\nconst gp_embedded_module gp_embedded_modules[] = {\n");
  for (i = 0; i < count; i++)
    fprintf(out, "  {\"%s\", %zu, UINT64_C(0x%016llx), module_%d, %zu, %zu, %zu},\n",
            modules[i].name, modules[i].source_length,
            (unsigned long long)modules[i].source_digest, i, modules[i].dump_length,
            modules[i].name_at, modules[i].name_end);
  fprintf(out, "};\nconst size_t gp_embedded_module_count = %d;\n", count);
  fprintf(out, "const size_t gp_embedded_probe_length = %zu;\n", probe.length);
  if (ferror(out) | fclose(out))
    die("cannot write", tmp);
  if (rename(tmp, argv[1]) != 0)
    die("cannot rename to", argv[1]);
  for (i = 0; i < count; i++) {
    free(modules[i].name);
    free(modules[i].dump);
  }
  free(modules);
  free(probe.data);
  lua_close(L);
  return 0;
}
