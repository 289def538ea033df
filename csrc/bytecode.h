/*
 * bytecode.h -- gpush's Lua modules precompiled into the executable.
 *
 * Compiling the ~15 modules a command needs was about 12 % of a whole
 * `gpush gpumech` run on a real trace (15 M instructions for 135 KB of
 * Lua); loading the same functions as Lua 5.4 bytecode costs a sixth of
 * that.  At build time embed_bytecode (csrc/embed_bytecode.c) compiles
 * every lua/gpush/ module with the Lua library the executable links and
 * writes the dumps, each with the length and the 64-bit digest
 * (gp_digest_bytes) of the source text it came from, into a generated C
 * file.  At run time the searcher (bytecode.c) finds a module's file
 * exactly as Lua's own searcher does (package.searchpath over
 * package.path), reads it, and uses the embedded bytecode only when the
 * file's length and digest equal the recorded ones; anything else (a
 * module edited after the build, another tree on GPUSH_PATH, a module
 * gpush never had, an unreadable file) falls through to Lua's searcher,
 * which compiles the source.  The source file stays the only truth.
 */
#ifndef GP_BYTECODE_H
#define GP_BYTECODE_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

/* One embedded module.  dump[name_at, name_end) is where the main
 * function's chunk name sits in the dump (as dumpString writes it: a
 * length then the bytes); the searcher replaces it with "@<file>", the name
 * luaL_loadfilex gives, so error messages, tracebacks and
 * debug.getinfo(...).source are those of the compiled source. */
typedef struct gp_embedded_module {
  const char *name;        /* module name: "gpush.config", "gpush.models" */
  size_t source_length;    /* bytes of the .lua file compiled */
  uint64_t source_digest;  /* gp_digest_bytes of those bytes */
  const unsigned char *dump;
  size_t dump_length;
  size_t name_at, name_end;
} gp_embedded_module;

/* The generated table (sorted by name) and the probe's dump. */
extern const gp_embedded_module gp_embedded_modules[];
extern const size_t gp_embedded_module_count;
extern const unsigned char gp_embedded_probe[];
extern const size_t gp_embedded_probe_length;

/* A chunk that uses most of the VM's instruction kinds.  The generator
 * dumps it with the build's Lua; the executable compiles and dumps it with
 * the Lua library it runs with, and trusts the embedded modules only when
 * the two dumps are byte for byte the same.  Lua's own header check sees
 * only the 5.4 version, not the release: a liblua5.4 upgraded after the
 * build whose compiler emits different code disables the embedded modules
 * instead of feeding it another release's bytecode. */
#define GP_BYTECODE_PROBE                                                     \
  "local t, s, n = {1, 2.5, 'x', k = true}, 0, select('#', ...)\n"            \
  "local function f(a, b, ...) return a // b, a % b, a ^ b, ... end\n"        \
  "for i = 1, 3 do s = s + i * 2 - 1 end\n"                                   \
  "for k, v in pairs(t) do s = s .. tostring(k) .. tostring(v) end\n"        \
  "while #t > 0 and n >= 0 do t[#t] = nil end\n"                              \
  "repeat n = n + 1 until n > 2\n"                                            \
  "local o = setmetatable({}, {__index = function(_, k) return k end})\n"    \
  "local c <const> = 7\n"                                                     \
  "goto done\n"                                                               \
  "::done::\n"                                                                \
  "return f(7, 2, o.x, -s, not n, c & 3 | 4 ~ 1 << 2 >> 1, ~c, s == n, "      \
  "s < n, s <= n, {...}, o:len())\n"
#define GP_BYTECODE_PROBE_NAME "=gpush bytecode probe"

/* The most bytes a size takes in a dump (7 bits a byte). */
#define GP_BYTECODE_SIZE_MAX 10

/* Writes `size` as Lua 5.4's dump writes a size (ldump.c dumpSize: 7-bit
 * groups, most significant first, the last byte's top bit set) into out;
 * returns the bytes written.  The generator checks it against lua_dump. */
static inline int gp_bytecode_encode_size(size_t size,
                                          unsigned char out[GP_BYTECODE_SIZE_MAX]) {
  unsigned char reversed[GP_BYTECODE_SIZE_MAX];
  int n = 0, i;
  do {
    reversed[n++] = (unsigned char)(size & 0x7f);
    size >>= 7;
  } while (size != 0 && n < GP_BYTECODE_SIZE_MAX);
  for (i = 0; i < n; i++)
    out[i] = reversed[n - 1 - i];
  out[n - 1] |= 0x80;
  return n;
}

/* Inserts the embedded-module searcher before Lua's file searcher
 * (package.searchers[2]).  Does nothing when GPUSH_NO_BYTECODE is set to
 * anything but "" or "0" (every module is then compiled from source, as
 * before). */
void gp_install_bytecode_searcher(lua_State *L);

#endif
