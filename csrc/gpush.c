/*
 * gpush.c -- the gpush executable: Lua 5.4 embedded, the core linked in.
 *
 *   gpush SCRIPT [args]   run a Lua script; it sees `arg` as lua.c sets it
 *   gpush -e CODE         run a chunk of Lua
 *   gpush -i              interactive prompt (line editing and history with
 *                         libedit; Ctrl-C interrupts the running chunk)
 *   gpush --version       version, Lua version and where modules come from
 *   gpush --help          usage, and the subcommands gpush.cli knows
 *   gpush CMD [args]      subcommand: require("gpush.cli").main(CMD, args)
 *
 * Exit codes: 0 success, 1 script or model error (message and a traceback
 * with script:line on stderr), 2 usage error.
 *
 * Modules are found, in order, in GPUSH_PATH (a ';'-separated list of Lua
 * roots), next to the executable (../share/lua/5.4, the layout of the build
 * tree, of `cmake --install` and of a LuaRocks tree), and in the directory
 * CMake installs to.  gpush.core is linked in and preloaded, so it needs no
 * cpath.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "bytecode.h"
#include "gp_common.h"
#include "l_core.h"

#include <lualib.h>

#ifdef GPUSH_HAVE_LIBEDIT
#include <editline/readline.h>
#endif

#define EXIT_MODEL_ERROR 1
#define EXIT_USAGE 2

static const char usage_text[] =
    "usage: gpush SCRIPT [args...]   run a Lua scenario script\n"
    "       gpush -e CODE            run a chunk of Lua\n"
    "       gpush -i                 interactive prompt\n"
    "       gpush COMMAND [args...]  run a subcommand (see below)\n"
    "       gpush --version | --help\n";

/* ---------------------------------------------------------------------------
 * Error reporting
 * ------------------------------------------------------------------------- */

/* Message handler for lua_pcall: turns any error value into a string and
 * appends a traceback, so script errors show script:line and the call chain. */
static int traceback_handler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      msg = lua_tostring(L, -1);
    else
      msg = lua_pushfstring(L, "(error object is a %s value)",
                            luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

/* Calls the function below `nargs` arguments on the stack under the
 * traceback handler; on error prints "gpush: message" and returns 0. */
static int protected_call(lua_State *L, int nargs, int nresults) {
  int base = lua_gettop(L) - nargs;
  int status;
  lua_pushcfunction(L, traceback_handler);
  lua_insert(L, base);
  status = lua_pcall(L, nargs, nresults, base);
  lua_remove(L, base);
  if (status != LUA_OK) {
    fprintf(stderr, "gpush: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

/* ---------------------------------------------------------------------------
 * Finding the Lua modules
 * ------------------------------------------------------------------------- */

/* Prepends "<root>/?.lua;<root>/?/init.lua;" to package.path. */
static void prepend_lua_root(lua_State *L, const char *root) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s", root, root,
                  lua_tostring(L, -1));
  lua_setfield(L, -3, "path");
  lua_pop(L, 2);
}

/* Prepends "<root>/?.so;" to package.cpath. */
static void prepend_c_root(lua_State *L, const char *root) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "cpath");
  lua_pushfstring(L, "%s/?.so;%s", root, lua_tostring(L, -1));
  lua_setfield(L, -3, "cpath");
  lua_pop(L, 2);
}

static int file_exists(const char *path) { return access(path, R_OK) == 0; }

static int regular_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Writes the directory holding the running executable into dir. */
static int executable_dir(char *dir, size_t size) {
  ssize_t n = readlink("/proc/self/exe", dir, size - 1);
  char *slash;
  if (n <= 0 || (size_t)n >= size - 1)
    return 0;
  dir[n] = '\0';
  slash = strrchr(dir, '/');
  if (slash == NULL)
    return 0;
  *slash = '\0';
  return 1;
}

/* Prepends one place modules may live (a Lua root, and optionally a C
 * root) to the search paths.  Roots are added lowest priority first, so the
 * last one that really holds gpush/init.lua is the one in use; it is kept in
 * the global gpush_module_root (for --version and the path tests). */
static void add_module_root(lua_State *L, const char *lua_root,
                            const char *c_root) {
  char marker[PATH_MAX + 64];
  prepend_lua_root(L, lua_root);
  if (c_root != NULL)
    prepend_c_root(L, c_root);
  snprintf(marker, sizeof marker, "%s/gpush/init.lua", lua_root);
  if (file_exists(marker)) {
    lua_pushstring(L, lua_root);
    lua_setglobal(L, "gpush_module_root");
  }
}

/* Search order, highest first: GPUSH_PATH (a ';'-separated list of Lua
 * roots, first entry first), next to the executable (build tree,
 * cmake --install, LuaRocks tree), then where CMake was told to install. */
static void setup_module_paths(lua_State *L) {
  char exe_dir[PATH_MAX];
  const char *env = getenv("GPUSH_PATH");

  add_module_root(L, GPUSH_INSTALL_LUADIR, GPUSH_INSTALL_LIBDIR);
  if (executable_dir(exe_dir, sizeof exe_dir)) {
    char lua_root[PATH_MAX + 32], c_root[PATH_MAX + 32];
    snprintf(lua_root, sizeof lua_root, "%s/../share/lua/5.4", exe_dir);
    snprintf(c_root, sizeof c_root, "%s/../lib/lua/5.4", exe_dir);
    add_module_root(L, lua_root, c_root);
  }
  if (env != NULL && *env != '\0') {
    char buf[4096];
    char *parts[64], *save = NULL, *part;
    int n = 0;
    snprintf(buf, sizeof buf, "%s", env);
    for (part = strtok_r(buf, ";", &save); part != NULL && n < 64;
         part = strtok_r(NULL, ";", &save))
      parts[n++] = part;
    while (n-- > 0)
      add_module_root(L, parts[n], NULL);
  }
}

/* Registers the linked-in core as package.preload["gpush.core"]. */
static void preload_core(lua_State *L) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_gpush_core);
  lua_setfield(L, -2, "gpush.core");
  lua_pop(L, 1);
}

/* ---------------------------------------------------------------------------
 * Running things
 * ------------------------------------------------------------------------- */

/* Builds the global `arg` table as lua.c does: arg[0] is the script,
 * arg[1..] its arguments, negative indices the words before it. */
static void create_arg_table(lua_State *L, char **argv, int argc,
                             int script) {
  int i;
  lua_createtable(L, argc - script - 1, script + 1);
  for (i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
}

/* Loads and runs a script with its arguments; returns an exit code. */
static int run_script(lua_State *L, char **argv, int argc, int script) {
  int i, nargs = argc - script - 1;
  create_arg_table(L, argv, argc, script);
  if (luaL_loadfile(L, argv[script]) != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    int missing = !file_exists(argv[script]);
    fprintf(stderr, "gpush: %s\n", msg);
    lua_pop(L, 1);
    return missing ? EXIT_USAGE : EXIT_MODEL_ERROR;
  }
  luaL_checkstack(L, nargs, "too many arguments to script");
  for (i = script + 1; i < argc; i++)
    lua_pushstring(L, argv[i]);
  return protected_call(L, nargs, 0) ? EXIT_SUCCESS : EXIT_MODEL_ERROR;
}

/* Runs a chunk given with -e. */
static int run_chunk(lua_State *L, const char *code) {
  if (luaL_loadbuffer(L, code, strlen(code), "=(command line)") != LUA_OK) {
    fprintf(stderr, "gpush: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    return EXIT_MODEL_ERROR;
  }
  return protected_call(L, 0, 0) ? EXIT_SUCCESS : EXIT_MODEL_ERROR;
}

/* Hands a subcommand to gpush.cli: main(name, {args...}) returns an exit
 * code (0, 1 or 2). */
static int run_subcommand(lua_State *L, char **argv, int argc, int first) {
  int i, code;
  lua_getglobal(L, "require");
  lua_pushliteral(L, "gpush.cli");
  if (!protected_call(L, 1, 1))
    return EXIT_MODEL_ERROR;
  lua_getfield(L, -1, "main");
  lua_remove(L, -2);
  lua_pushstring(L, argv[first]);
  lua_createtable(L, argc - first - 1, 0);
  for (i = first + 1; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - first);
  }
  if (!protected_call(L, 2, 1))
    return EXIT_MODEL_ERROR;
  code = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : EXIT_MODEL_ERROR;
  lua_pop(L, 1);
  return code;
}

/* Pushes field `name` of module gpush.repl (the prompt's help, globals,
 * completion and result display, in Lua); returns 0 when it cannot. */
static int push_repl_field(lua_State *L, const char *name) {
  lua_getglobal(L, "require");
  lua_pushliteral(L, "gpush.repl");
  if (!protected_call(L, 1, 1))
    return 0;
  lua_getfield(L, -1, name);
  lua_remove(L, -2);
  return 1;
}

/* Prints the values left on the stack by a REPL line (gpush.repl.show: as
 * print does, and a `nil, message` return as its message). */
static void print_results(lua_State *L, int base) {
  int n = lua_gettop(L) - base, i;
  if (n <= 0)
    return;
  if (!push_repl_field(L, "show")) {
    lua_settop(L, base);
    return;
  }
  for (i = 1; i <= n; i++)
    lua_pushvalue(L, base + i);
  protected_call(L, n, 0);
  lua_settop(L, base);
}

/* ---------------------------------------------------------------------------
 * The interactive prompt
 * ------------------------------------------------------------------------- */

/* Ctrl-C while a chunk runs stops the chunk, not the session (as lua.c
 * does): the handler arms a hook that raises "interrupted" at the next Lua
 * call, return or instruction count.  A signal handler can only reach the
 * state through a static; it is set while a REPL chunk runs and NULL
 * otherwise.  Work inside one C call (a model kernel) ends before the hook
 * fires.  Ctrl-C at the prompt discards the line being typed. */
static lua_State *volatile repl_running;
static volatile sig_atomic_t repl_interrupted;

static void interrupt_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  luaL_error(L, "interrupted (Ctrl-C)");
}

static void on_interrupt(int sig) {
  lua_State *L = repl_running;
  (void)sig;
  repl_interrupted = 1;
  if (L != NULL)
    lua_sethook(L, interrupt_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

/* SIGINT (and SIGTERM's default stays) without SA_RESTART, so a read at the
 * prompt returns and the line is discarded. */
static void catch_interrupts(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
}

#ifdef GPUSH_HAVE_LIBEDIT
/* Tab completes Lua names (globals, gpush.NAME, a module's fields) through
 * gpush.repl.complete.  libedit's completion callbacks take no context
 * argument, so the state is reached through this static, set while the
 * prompt runs. */
static lua_State *completion_state;

/* The candidates for `text`, one per call (state 0 starts a new list), as
 * rl_completion_matches wants them: malloc'ed strings, NULL at the end. */
static char *complete_name(const char *text, int state) {
  static char **list;
  static size_t count, next;
  lua_State *L = completion_state;
  if (state == 0) {
    int top = lua_gettop(L);
    size_t i;
    for (i = next; i < count; i++)
      free(list[i]);
    free(list);
    list = NULL, count = next = 0;
    if (push_repl_field(L, "complete")) {
      lua_pushstring(L, text);
      if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1)) {
        size_t n = lua_rawlen(L, -1);
        list = n ? malloc(n * sizeof *list) : NULL;
        for (i = 1; list != NULL && i <= n; i++) {
          lua_rawgeti(L, -1, (lua_Integer)i);
          if (lua_type(L, -1) == LUA_TSTRING)
            list[count++] = strdup(lua_tostring(L, -1));
          lua_pop(L, 1);
        }
      }
    }
    lua_settop(L, top);
  }
  return next < count ? list[next++] : NULL;
}

static char **complete_lua(const char *text, int start, int end) {
  (void)start, (void)end;
  rl_attempted_completion_over = 1; /* never fall back to file names */
  return rl_completion_matches(text, complete_name);
}

/* Where the prompt keeps its history: GPUSH_HISTORY, else ~/.gpush_history,
 * else none. */
static const char *history_file(char *buf, size_t size) {
  const char *env = getenv("GPUSH_HISTORY"), *home = getenv("HOME");
  if (env != NULL)
    return *env ? env : NULL;
  if (home == NULL || *home == '\0')
    return NULL;
  snprintf(buf, size, "%s/.gpush_history", home);
  return buf;
}
#endif

/* One line from the user without its newline, in a malloc'ed string (the
 * caller frees it); NULL at end of input.  *interrupted is set when Ctrl-C
 * ended the read.  With a terminal and libedit: line editing and history. */
static char *read_line(const char *prompt, int editing, int *interrupted) {
  char buf[4096];
  size_t n;
  if (repl_interrupted) { /* Ctrl-C between two reads: discard the chunk */
    repl_interrupted = 0;
    *interrupted = 1;
    return NULL;
  }
#ifdef GPUSH_HAVE_LIBEDIT
  if (editing) {
    char *line = readline(prompt);
    *interrupted = line == NULL && repl_interrupted;
    repl_interrupted = 0;
    return line;
  }
#else
  (void)editing;
#endif
  fputs(prompt, stdout);
  fflush(stdout);
  if (fgets(buf, sizeof buf, stdin) == NULL) {
    *interrupted = repl_interrupted && ferror(stdin);
    repl_interrupted = 0;
    clearerr(stdin);
    return NULL;
  }
  *interrupted = 0;
  repl_interrupted = 0;
  n = strcspn(buf, "\n");
  buf[n] = '\0';
  return strdup(buf);
}

/* Runs the compiled chunk on top of the stack with Ctrl-C armed and prints
 * its results. */
static void run_repl_chunk(lua_State *L, int base) {
  int ok;
  repl_running = L;
  ok = protected_call(L, 0, LUA_MULTRET);
  repl_running = NULL;
  repl_interrupted = 0;
  lua_sethook(L, NULL, 0, 0);
  if (ok)
    print_results(L, base);
}

/* The interactive prompt: `gpush` is already a global (the module, whose
 * submodules load on first use).  Each chunk is tried as an expression
 * first ("return LINE"), then as a statement; an incomplete chunk continues
 * on the next line ">> ".  Ctrl-C interrupts a running chunk or discards
 * the chunk being typed; Ctrl-D leaves. */
static int run_repl(lua_State *L) {
  int editing = 0, interrupted;
  char *line;
#ifdef GPUSH_HAVE_LIBEDIT
  char history_buf[PATH_MAX];
  const char *history = NULL;
  editing = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
  if (editing) {
    /* a Lua name is one word: '.' and ':' do not break it */
    static char word_breaks[] = " \t\n\"'`@$><=;|&{(,+-*/%^~#[]";
    history = history_file(history_buf, sizeof history_buf);
    using_history();
    if (history != NULL)
      read_history(history);
    completion_state = L;
    rl_basic_word_break_characters = word_breaks;
    rl_completer_word_break_characters = word_breaks;
    rl_attempted_completion_function = complete_lua;
    rl_completion_append_character = '\0';
  }
#endif
  /* `gpush`, `help` and the module globals (gpush.repl.setup) */
  if (push_repl_field(L, "setup"))
    protected_call(L, 0, 0);
  catch_interrupts();
  fprintf(stdout, "gpush %s (%s) -- `gpush` is loaded; `help` tells more; Ctrl-C interrupts, Ctrl-D leaves\n",
          gp_version(), LUA_VERSION);
  lua_pushliteral(L, "");
  for (;;) {
    int base, status;
    const char *code;
    line = read_line(lua_rawlen(L, -1) ? ">> " : "> ", editing, &interrupted);
    if (line == NULL) {
      if (!interrupted)
        break;
      fputs("\n", stdout);
      lua_pop(L, 1);
      lua_pushliteral(L, "");
      continue;
    }
    lua_pushstring(L, line);
    lua_pushliteral(L, "\n");
    lua_concat(L, 3);
    free(line);
    code = lua_tostring(L, -1);
    base = lua_gettop(L);
    lua_pushfstring(L, "return %s", code);
    status = luaL_loadbuffer(L, lua_tostring(L, -1), lua_rawlen(L, -1),
                             "=stdin");
    lua_remove(L, -2);
    if (status != LUA_OK) {
      lua_pop(L, 1);
      status = luaL_loadbuffer(L, code, strlen(code), "=stdin");
    }
    if (status == LUA_ERRSYNTAX) {
      const char *msg = lua_tostring(L, -1);
      if (strstr(msg, "<eof>") != NULL) { /* incomplete: read more */
        lua_pop(L, 1);
        continue;
      }
      fprintf(stderr, "gpush: %s\n", msg);
      lua_pop(L, 1);
    } else if (status == LUA_OK) {
      run_repl_chunk(L, base);
    }
#ifdef GPUSH_HAVE_LIBEDIT
    if (editing) {
      char *entry = strdup(code);
      size_t n = strlen(entry);
      while (n > 0 && entry[n - 1] == '\n')
        entry[--n] = '\0';
      if (n > 0)
        add_history(entry);
      free(entry);
    }
#endif
    lua_settop(L, base - 1);
    lua_pushliteral(L, "");
  }
  fputc('\n', stdout);
#ifdef GPUSH_HAVE_LIBEDIT
  if (editing && history != NULL)
    write_history(history);
#endif
  return EXIT_SUCCESS;
}

static void print_version(lua_State *L) {
  const char *root;
#ifdef GPUSH_HAVE_LIBEDIT
  const char *editing = "libedit";
#else
  const char *editing = "none";
#endif
  lua_getglobal(L, "gpush_module_root");
  root = lua_tostring(L, -1);
  printf("gpush %s (%s; line editing: %s; modules: %s)\n", gp_version(), LUA_VERSION,
         editing, root ? root : "not found");
  lua_pop(L, 1);
}

/* --help: the fixed usage plus the subcommand list from gpush.cli. */
static int print_help(lua_State *L) {
  fputs(usage_text, stdout);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "gpush.cli");
  if (!protected_call(L, 1, 1))
    return EXIT_MODEL_ERROR;
  lua_getfield(L, -1, "help");
  if (!protected_call(L, 0, 0))
    return EXIT_MODEL_ERROR;
  return EXIT_SUCCESS;
}

/* Prints "gpush: <problem>" and the usage; returns the usage exit code. */
static int usage_error(const char *problem) {
  fprintf(stderr, "gpush: %s\n%s", problem, usage_text);
  return EXIT_USAGE;
}

/* Dispatches on the first argument; returns the process exit code. */
static int dispatch(lua_State *L, int argc, char **argv) {
  const char *first;
  if (argc < 2)
    return usage_error("no script or command given");
  first = argv[1];
  if (strcmp(first, "--version") == 0 || strcmp(first, "-v") == 0) {
    print_version(L);
    return EXIT_SUCCESS;
  }
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0)
    return print_help(L);
  if (strcmp(first, "-e") == 0) {
    if (argc < 3)
      return usage_error("-e needs a chunk of Lua code");
    create_arg_table(L, argv, argc, 0);
    return run_chunk(L, argv[2]);
  }
  if (strcmp(first, "-i") == 0) {
    create_arg_table(L, argv, argc, 0);
    return run_repl(L);
  }
  if (first[0] == '-') {
    char problem[256];
    snprintf(problem, sizeof problem, "unknown option '%s'", first);
    return usage_error(problem);
  }
  /* A script is anything that names a file or looks like a path. */
  if (regular_file(first) || strchr(first, '/') != NULL ||
      strstr(first, ".lua") != NULL)
    return run_script(L, argv, argc, 1);
  return run_subcommand(L, argv, argc, 1);
}

int main(int argc, char **argv) {
  lua_State *L;
  int code;
#ifdef M_TRIM_THRESHOLD
  /* glibc gives the heap's free top back to the system past 128 KB and
   * serves larger blocks by mmap, so each launch of a run faulted its
   * memory model's pages in anew (gpush sim, bfs on a100: 5,000 page
   * faults a run, 2,200 with these; docs/sim.md). */
  mallopt(M_TRIM_THRESHOLD, 16 << 20);
  mallopt(M_MMAP_THRESHOLD, 16 << 20);
#endif
  L = luaL_newstate();
  if (L == NULL) {
    fprintf(stderr, "gpush: cannot create a Lua state (out of memory)\n");
    return EXIT_MODEL_ERROR;
  }
  /* A file-size limit (ulimit -f) makes a write fail with EFBIG, which the
   * writers report, instead of killing gpush half-way through a file. */
  signal(SIGXFSZ, SIG_IGN);
  luaL_openlibs(L);
  preload_core(L);
  setup_module_paths(L);
  gp_install_bytecode_searcher(L);
  code = dispatch(L, argc, argv);
  /* Output redirected to a full disk must not end in exit 0. */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "gpush: cannot write the standard output: %s\n", strerror(errno));
    if (code == 0)
      code = EXIT_MODEL_ERROR;
  }
  lua_close(L);
  return code;
}
