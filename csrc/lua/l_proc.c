/*
 * l_proc.c -- the process primitives of proc.h for gpush.experiment.
 *
 *   worker, pipe = core.proc_fork() -- parent: the worker's handle, read end;
 *                                  -- worker: false, write end; or nil, message
 *   s = pipe:read()                -- up to 64 KiB; "" at end of file
 *   ok = pipe:write(s)             -- true, or nil, message
 *   pipe:close()
 *   ready = core.proc_poll(pipes, timeout_ms)
 *                                  -- {true/false per pipe}; nil, "interrupted"
 *   how, n = worker:wait([nohang]) -- "exit", code | "signal", signo | "running"
 *   ok = worker:signal("TERM"|"INT"|"KILL")  -- true, or nil, message
 *   pid = worker:pid()
 * Signals go only through the handles of the workers this process forked,
 * and never after the worker was reaped (its id may then name another
 * process): there is no way to signal a process id given as a number.
 *   counter = core.proc_counter()  -- shared with the workers forked after it:
 *   n = counter:next()             -- 0, 1, 2, ... across all of them, each once
 *   core.proc_exit(code)           -- a worker leaves (no buffers flushed)
 *   n = core.proc_cpus()           -- online processors
 *   pid = core.proc_self()
 *   bool = core.proc_isatty(fd)    -- 0, 1 or 2
 *   guard = core.sigint_catch()    -- Ctrl-C (SIGINT) and SIGTERM set a flag
 *                                  -- instead of killing;
 *   guard:release()                -- the previous actions return (also on GC)
 *   bool, name = core.sigint_pending()  -- name: "SIGINT" or "SIGTERM"
 */
#define _POSIX_C_SOURCE 200809L

#include "compat.h"
#include "l_core.h"
#include "proc.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#define PIPE_TYPE "gpush.pipe"
#define WORKER_TYPE "gpush.worker"
#define SIGINT_GUARD_TYPE "gpush.sigint_guard"
#define COUNTER_TYPE "gpush.counter"
#define READ_CHUNK 65536

typedef struct pipe_box {
  int fd; /* -1 once closed */
} pipe_box;

typedef struct worker_box {
  int64_t pid;
  int reaped; /* 1 once wait saw it end: its id is free for reuse */
} worker_box;

typedef struct guard_box {
  int active;
  gp_sigint_saved saved;
} guard_box;

static int push_failure(lua_State *L, const char *message) {
  lua_pushnil(L);
  lua_pushstring(L, message);
  return 2;
}

static pipe_box *check_pipe(lua_State *L, int index) {
  pipe_box *box = luaL_checkudata(L, index, PIPE_TYPE);
  luaL_argcheck(L, box->fd >= 0, index, "the pipe is closed");
  return box;
}

static int push_pipe(lua_State *L, int fd) {
  pipe_box *box = lua_newuserdata(L, sizeof *box);
  box->fd = fd;
  luaL_getmetatable(L, PIPE_TYPE);
  lua_setmetatable(L, -2);
  return 1;
}

static int proc_fork(lua_State *L) {
  int64_t pid;
  int fd;
  gp_error err;
  fflush(NULL); /* no buffered output is duplicated into the worker */
  if (gp_proc_fork(&pid, &fd, &err) != GP_OK)
    return push_failure(L, err.msg);
  if (pid == 0) {
    lua_pushboolean(L, 0);
  } else {
    worker_box *w = lua_newuserdata(L, sizeof *w);
    w->pid = pid;
    w->reaped = 0;
    luaL_getmetatable(L, WORKER_TYPE);
    lua_setmetatable(L, -2);
  }
  push_pipe(L, fd);
  return 2;
}

static int pipe_read(lua_State *L) {
  pipe_box *box = check_pipe(L, 1);
  char *buf = lua_newuserdata(L, READ_CHUNK);
  gp_error err;
  long n = gp_proc_read(box->fd, buf, READ_CHUNK, &err);
  if (n < 0)
    return push_failure(L, err.msg);
  lua_pushlstring(L, buf, (size_t)n);
  return 1;
}

static int pipe_write(lua_State *L) {
  pipe_box *box = check_pipe(L, 1);
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  gp_error err;
  if (gp_proc_write(box->fd, s, len, &err) != GP_OK)
    return push_failure(L, err.msg);
  lua_pushboolean(L, 1);
  return 1;
}

static int pipe_close(lua_State *L) {
  pipe_box *box = luaL_checkudata(L, 1, PIPE_TYPE);
  if (box->fd >= 0) {
    close(box->fd);
    box->fd = -1;
  }
  return 0;
}

static int proc_poll(lua_State *L) {
  int fds[64], ready[64];
  int n, i, status;
  lua_Integer timeout = luaL_optinteger(L, 2, -1);
  gp_error err;
  luaL_checktype(L, 1, LUA_TTABLE);
  n = (int)gpc_rawlen(L, 1);
  luaL_argcheck(L, n <= 64, 1, "at most 64 pipes");
  for (i = 0; i < n; i++) {
    gpc_rawgeti(L, 1, i + 1);
    fds[i] = check_pipe(L, -1)->fd;
    lua_pop(L, 1);
  }
  status = gp_proc_poll(fds, ready, n, (int)timeout, &err);
  if (status == GP_PROC_INTERRUPTED)
    return push_failure(L, "interrupted");
  if (status < 0)
    return push_failure(L, err.msg);
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_pushboolean(L, ready[i]);
    gpc_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int worker_wait(lua_State *L) {
  worker_box *w = luaL_checkudata(L, 1, WORKER_TYPE);
  gp_proc_status st;
  gp_error err;
  if (w->reaped)
    return push_failure(L, "the worker was already reaped");
  if (gp_proc_wait(w->pid, lua_toboolean(L, 2), &st, &err) != GP_OK)
    return push_failure(L, err.msg);
  if (st.running) {
    lua_pushliteral(L, "running");
    return 1;
  }
  w->reaped = 1;
  lua_pushstring(L, st.exited ? "exit" : "signal");
  lua_pushinteger(L, st.exited ? st.code : st.signal);
  return 2;
}

static int worker_signal(lua_State *L) {
  static const char *const names[] = {"TERM", "INT", "KILL", NULL};
  static const int signals[] = {SIGTERM, SIGINT, SIGKILL};
  worker_box *w = luaL_checkudata(L, 1, WORKER_TYPE);
  int which = luaL_checkoption(L, 2, "TERM", names);
  gp_error err;
  if (w->reaped)
    return push_failure(L, "the worker was already reaped: its process id may belong to another process now");
  if (gp_proc_kill(w->pid, signals[which], &err) != GP_OK)
    return push_failure(L, err.msg);
  lua_pushboolean(L, 1);
  return 1;
}

/* A handle collected before its worker was reaped reaps it if it has ended
 * (no zombie is left behind); a running worker is left alone. */
static int worker_gc(lua_State *L) {
  worker_box *w = luaL_checkudata(L, 1, WORKER_TYPE);
  gp_proc_status st;
  gp_error err;
  if (!w->reaped && gp_proc_wait(w->pid, 1, &st, &err) == GP_OK && !st.running)
    w->reaped = 1;
  return 0;
}

static int worker_pid(lua_State *L) {
  worker_box *w = luaL_checkudata(L, 1, WORKER_TYPE);
  lua_pushinteger(L, (lua_Integer)w->pid);
  return 1;
}

typedef struct counter_box {
  gp_proc_counter *counter;
} counter_box;

static int proc_counter(lua_State *L) {
  counter_box *box = lua_newuserdata(L, sizeof *box);
  gp_error err;
  box->counter = NULL;
  luaL_getmetatable(L, COUNTER_TYPE);
  lua_setmetatable(L, -2);
  if (gp_proc_counter_new(&box->counter, &err) != GP_OK)
    return push_failure(L, err.msg);
  return 1;
}

static int counter_next(lua_State *L) {
  counter_box *box = luaL_checkudata(L, 1, COUNTER_TYPE);
  luaL_argcheck(L, box->counter != NULL, 1, "the counter is closed");
  lua_pushinteger(L, (lua_Integer)gp_proc_counter_next(box->counter));
  return 1;
}

static int counter_gc(lua_State *L) {
  counter_box *box = luaL_checkudata(L, 1, COUNTER_TYPE);
  gp_proc_counter_free(box->counter);
  box->counter = NULL;
  return 0;
}

static int proc_exit(lua_State *L) {
  gp_proc_exit((int)luaL_optinteger(L, 1, 0));
  return 0;
}

static int proc_cpus(lua_State *L) {
  lua_pushinteger(L, gp_proc_cpu_count());
  return 1;
}

static int proc_self(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)gp_proc_self());
  return 1;
}

static int proc_isatty(lua_State *L) {
  lua_Integer fd = luaL_checkinteger(L, 1);
  luaL_argcheck(L, fd >= 0 && fd <= 2, 1, "expected 0, 1 or 2");
  lua_pushboolean(L, gp_proc_isatty((int)fd));
  return 1;
}

static int sigint_catch(lua_State *L) {
  guard_box *box = lua_newuserdata(L, sizeof *box);
  gp_error err;
  box->active = 0;
  luaL_getmetatable(L, SIGINT_GUARD_TYPE);
  lua_setmetatable(L, -2);
  if (gp_sigint_catch(&box->saved, &err) != GP_OK)
    return push_failure(L, err.msg);
  box->active = 1;
  return 1;
}

static int guard_release(lua_State *L) {
  guard_box *box = luaL_checkudata(L, 1, SIGINT_GUARD_TYPE);
  if (box->active) {
    gp_sigint_restore(&box->saved);
    box->active = 0;
  }
  return 0;
}

/* core.sigint_pending(): false, or true and the signal's name ("SIGINT",
 * "SIGTERM") once one arrived under a guard. */
static int sigint_pending(lua_State *L) {
  int sig = gp_sigint_pending();
  lua_pushboolean(L, sig != 0);
  if (sig == 0)
    return 1;
  lua_pushstring(L, sig == SIGTERM ? "SIGTERM" : "SIGINT");
  return 2;
}

static const luaL_Reg pipe_methods[] = {
    {"read", pipe_read}, {"write", pipe_write}, {"close", pipe_close}, {NULL, NULL}};

static const luaL_Reg guard_methods[] = {{"release", guard_release}, {NULL, NULL}};

static const luaL_Reg counter_methods[] = {{"next", counter_next}, {NULL, NULL}};

static const luaL_Reg worker_methods[] = {
    {"wait", worker_wait}, {"signal", worker_signal}, {"pid", worker_pid}, {NULL, NULL}};

static const luaL_Reg proc_functions[] = {
    {"proc_fork", proc_fork},     {"proc_poll", proc_poll},
    {"proc_exit", proc_exit},     {"proc_cpus", proc_cpus},
    {"proc_counter", proc_counter},
    {"proc_self", proc_self},     {"proc_isatty", proc_isatty},
    {"sigint_catch", sigint_catch}, {"sigint_pending", sigint_pending},
    {NULL, NULL}};

void gpl_open_proc(lua_State *L) {
  gpl_new_type(L, PIPE_TYPE, pipe_methods, pipe_close);
  gpl_new_type(L, SIGINT_GUARD_TYPE, guard_methods, guard_release);
  gpl_new_type(L, COUNTER_TYPE, counter_methods, counter_gc);
  gpl_new_type(L, WORKER_TYPE, worker_methods, worker_gc);
  luaL_setfuncs(L, proc_functions, 0);
}
