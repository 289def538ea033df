/*
 * proc.c -- fork/pipe/poll/waitpid/kill for the experiment engine's local
 * workers, and a SIGINT flag (see proc.h).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */

#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* The one static of the core: a signal handler receives no argument to
 * write through, so the Ctrl-C flag has to live here.  It holds the first
 * interrupting signal that arrived (SIGINT or SIGTERM), set asynchronously
 * and read by gp_sigint_pending. */
static volatile sig_atomic_t sigint_seen;

static void on_sigint(int sig) {
  if (sigint_seen == 0)
    sigint_seen = sig;
}

static int set_cloexec(int fd) {
  int flags = fcntl(fd, F_GETFD);
  return flags < 0 ? -1 : fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

/* pipe() then fork(); each side keeps its own end.  The worker ignores
 * SIGINT so that Ctrl-C in a terminal (sent to the whole foreground process
 * group) reaches only the parent's flag; the parent then stops the workers
 * with SIGTERM. */
int gp_proc_fork(int64_t *pid, int *fd, gp_error *err) {
  int ends[2];
  pid_t child;
  if (pipe(ends) != 0)
    return gp_error_set(err, "cannot create a pipe: %s", strerror(errno));
  if (set_cloexec(ends[0]) != 0 || set_cloexec(ends[1]) != 0) {
    gp_error_set(err, "cannot set close-on-exec on a pipe: %s", strerror(errno));
    close(ends[0]);
    close(ends[1]);
    return GP_ERR;
  }
  child = fork();
  if (child < 0) {
    gp_error_set(err, "cannot start a worker process: %s", strerror(errno));
    close(ends[0]);
    close(ends[1]);
    return GP_ERR;
  }
  if (child == 0) {
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, NULL);
    ignore.sa_handler = SIG_DFL; /* the parent stops workers with SIGTERM */
    sigaction(SIGTERM, &ignore, NULL);
    close(ends[0]);
    *pid = 0;
    *fd = ends[1];
    return GP_OK;
  }
  close(ends[1]);
  *pid = (int64_t)child;
  *fd = ends[0];
  return GP_OK;
}

long gp_proc_read(int fd, char *buf, size_t cap, gp_error *err) {
  for (;;) {
    ssize_t n = read(fd, buf, cap);
    if (n >= 0)
      return (long)n;
    if (errno != EINTR)
      return gp_error_set(err, "cannot read from a worker: %s", strerror(errno));
  }
}

int gp_proc_write(int fd, const char *buf, size_t len, gp_error *err) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return gp_error_set(err, "cannot write to the parent: %s", strerror(errno));
    }
    buf += n;
    len -= (size_t)n;
  }
  return GP_OK;
}

int gp_proc_poll(const int *fds, int *ready, int n, int timeout_ms, gp_error *err) {
  struct pollfd set[64];
  int i, count, got = 0;
  if (n < 0 || n > 64)
    return gp_error_set(err, "can poll 0 to 64 pipes, got %d", n);
  for (i = 0; i < n; i++) {
    set[i].fd = fds[i];
    set[i].events = POLLIN;
    set[i].revents = 0;
  }
  count = poll(set, (nfds_t)n, timeout_ms);
  if (count < 0) {
    if (errno == EINTR)
      return GP_PROC_INTERRUPTED;
    return gp_error_set(err, "cannot wait for the workers: %s", strerror(errno));
  }
  for (i = 0; i < n; i++) {
    ready[i] = (set[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
    got += ready[i];
  }
  return got;
}

/* A process id as pid_t, checked before the cast: a positive value that
 * pid_t holds (0 and negative values name process groups, or every
 * process, to kill and waitpid; 4294967296 - N would wrap to -N). */
static int checked_pid(int64_t pid, pid_t *out, const char *what, gp_error *err) {
  if (pid <= 0 || pid > (int64_t)INT32_MAX || (int64_t)(pid_t)pid != pid)
    return gp_error_set(err, "refusing to %s process id %lld: expected a positive process id of a worker",
                        what, (long long)pid);
  *out = (pid_t)pid;
  return GP_OK;
}

int gp_proc_wait(int64_t pid, int nohang, gp_proc_status *st, gp_error *err) {
  int status = 0;
  pid_t done, p = 0;
  memset(st, 0, sizeof *st);
  if (checked_pid(pid, &p, "wait for", err) != GP_OK)
    return GP_ERR;
  do
    done = waitpid(p, &status, nohang ? WNOHANG : 0);
  while (done < 0 && errno == EINTR);
  if (done < 0)
    return gp_error_set(err, "cannot wait for process %lld: %s", (long long)pid, strerror(errno));
  if (done == 0) {
    st->running = 1;
    return GP_OK;
  }
  if (WIFEXITED(status)) {
    st->exited = 1;
    st->code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    st->signal = WTERMSIG(status);
  }
  return GP_OK;
}

int gp_proc_kill(int64_t pid, int sig, gp_error *err) {
  pid_t p = 0;
  if (checked_pid(pid, &p, "signal", err) != GP_OK)
    return GP_ERR;
  if (kill(p, sig) != 0)
    return gp_error_set(err, "cannot signal process %lld: %s", (long long)pid, strerror(errno));
  return GP_OK;
}

void gp_proc_exit(int code) { _exit(code); }

struct gp_proc_counter {
  _Atomic uint64_t next;
};

/* One page shared with every process forked later (MAP_SHARED): the
 * atomic add reaches the same memory from each of them (lock-free on every
 * machine gpush builds on, so it needs no process-local lock). */
int gp_proc_counter_new(gp_proc_counter **out, gp_error *err) {
  void *p = mmap(NULL, sizeof(gp_proc_counter), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                 -1, 0);
  if (p == MAP_FAILED)
    return gp_error_set(err, "shared counter: %s", strerror(errno));
  *out = p;
  atomic_init(&(*out)->next, 0);
  return GP_OK;
}

uint64_t gp_proc_counter_next(gp_proc_counter *c) {
  return atomic_fetch_add(&c->next, 1);
}

void gp_proc_counter_free(gp_proc_counter *c) {
  if (c != NULL)
    munmap(c, sizeof *c);
}

int gp_proc_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : (int)n;
}

int64_t gp_proc_self(void) { return (int64_t)getpid(); }

int gp_proc_isatty(int fd) { return isatty(fd) == 1; }

int gp_sigint_catch(gp_sigint_saved *saved, gp_error *err) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0; /* no SA_RESTART: poll() returns EINTR */
  sigint_seen = 0;
  if (sigaction(SIGINT, &action, &saved->action) != 0)
    return gp_error_set(err, "cannot catch SIGINT: %s", strerror(errno));
  if (sigaction(SIGTERM, &action, &saved->term_action) != 0) {
    sigaction(SIGINT, &saved->action, NULL);
    return gp_error_set(err, "cannot catch SIGTERM: %s", strerror(errno));
  }
  return GP_OK;
}

int gp_sigint_pending(void) { return (int)sigint_seen; }

void gp_sigint_restore(const gp_sigint_saved *saved) {
  sigaction(SIGINT, &saved->action, NULL);
  sigaction(SIGTERM, &saved->term_action, NULL);
}
