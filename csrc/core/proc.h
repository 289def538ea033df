/*
 * proc.h -- the POSIX process primitives behind gpush.experiment's local
 * workers: fork a worker with a pipe back to the parent, wait for any of
 * several pipes, read and write them, reap and stop workers, and notice
 * Ctrl-C (SIGINT) without dying from it.
 *
 * The parent owns every worker it forks: it reads each worker's pipe until
 * end of file, then reaps it with gp_proc_wait.  A worker ignores SIGINT
 * (the parent decides when to stop and sends SIGTERM) and leaves with
 * gp_proc_exit, which skips atexit handlers and stdio buffers it shares
 * with the parent.
 *
 * The only state outside the callers' hands is the SIGINT flag: a signal
 * handler can reach nothing else (see proc.c).
 */
#ifndef GP_PROC_H
#define GP_PROC_H

#include "gp_common.h"

#include <signal.h>
#include <stdint.h>

/* Forks a worker joined to the parent by a pipe.  In the parent *pid is the
 * worker's process id and *fd the pipe's read end; in the worker *pid is 0,
 * *fd the write end, and SIGINT is ignored.  Both ends are close-on-exec.
 * GP_ERR (and no process) when the pipe or the fork fails. */
int gp_proc_fork(int64_t *pid, int *fd, gp_error *err);

/* Reads at most cap bytes: the count, 0 at end of file, GP_ERR on error
 * (EINTR is retried). */
long gp_proc_read(int fd, char *buf, size_t cap, gp_error *err);

/* Writes all len bytes (partial writes and EINTR retried). */
int gp_proc_write(int fd, const char *buf, size_t len, gp_error *err);

/* Waits up to timeout_ms (negative: forever) until one of fds[0..n) is
 * readable or closed by its writer; sets ready[i] to 1 for those, 0 for the
 * rest.  Returns the number ready (0 on timeout), GP_PROC_INTERRUPTED when a
 * signal arrived first, GP_ERR on error. */
#define GP_PROC_INTERRUPTED (-2)
int gp_proc_poll(const int *fds, int *ready, int n, int timeout_ms, gp_error *err);

/* How a reaped process ended. */
typedef struct gp_proc_status {
  int running; /* 1: still running (only with nohang) */
  int exited;  /* 1: exited with `code`; 0: killed by `signal` */
  int code;
  int signal;
} gp_proc_status;

/* Reaps process pid (waiting unless nohang).  GP_ERR when pid is not a
 * child of this process, or not a positive pid_t (checked before the cast:
 * 0 and -1 would reap any child). */
int gp_proc_wait(int64_t pid, int nohang, gp_proc_status *st, gp_error *err);

/* Sends signal sig to pid; GP_ERR for a pid that is not a positive pid_t,
 * checked before the cast (0, negative values and 2^32 - N would signal a
 * process group or every process).  The Lua binding only exposes it on
 * the handles of workers gp_proc_fork started. */
int gp_proc_kill(int64_t pid, int sig, gp_error *err);

/* Leaves the calling worker at once with `code` (_exit). */
void gp_proc_exit(int code);

/* A counter shared by a process and the workers it forks after making it
 * (a shared mapping): each gp_proc_counter_next, in any of them, returns
 * the next value from 0, never the same one twice.  The workers take their
 * next piece of work from it, so whoever is free takes it. */
typedef struct gp_proc_counter gp_proc_counter;
int gp_proc_counter_new(gp_proc_counter **out, gp_error *err);
uint64_t gp_proc_counter_next(gp_proc_counter *c);
void gp_proc_counter_free(gp_proc_counter *c);

/* Online processors (at least 1). */
int gp_proc_cpu_count(void);

/* The calling process's id. */
int64_t gp_proc_self(void);

/* 1 when fd refers to a terminal. */
int gp_proc_isatty(int fd);

/* SIGINT and SIGTERM without dying: gp_sigint_catch installs a handler for
 * both that only records the signal (and clears the record), saving the
 * previous actions in *saved; gp_sigint_pending returns the signal that
 * arrived (SIGINT or SIGTERM; the first one counts), 0 when none did;
 * gp_sigint_restore puts the saved actions back.  The handler does not
 * restart system calls, so a blocked gp_proc_poll returns
 * GP_PROC_INTERRUPTED.  Workers started by gp_proc_fork ignore SIGINT and
 * take SIGTERM's default action, so the parent can stop them. */
typedef struct gp_sigint_saved {
  struct sigaction action, term_action;
} gp_sigint_saved;

int gp_sigint_catch(gp_sigint_saved *saved, gp_error *err);
int gp_sigint_pending(void);
void gp_sigint_restore(const gp_sigint_saved *saved);

#endif
