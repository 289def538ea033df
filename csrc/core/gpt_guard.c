/*
 * gpt_guard.c -- leased .gpt mappings that turn into private copies before
 * the file can change (gpt_guard.h).
 *
 * The lease-break signal (SIGIO, with the file descriptor in si_fd: F_SETSIG)
 * reaches a handler that has no argument to write through, so the guarded
 * mappings live in a list here: with proc.c's SIGINT flag, the only state of
 * the core outside its callers' hands.  The list is changed with SIGIO
 * blocked, so the handler never sees it half-linked.  The handler uses only
 * system calls and memcpy: mmap an anonymous region, copy, mprotect it
 * read-only, mremap it over the file mapping's address, release the lease.
 */
#define _GNU_SOURCE /* F_SETLEASE, F_SETSIG, mremap */

#include "gpt_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(F_SETLEASE) && defined(F_SETSIG) && defined(MREMAP_FIXED)

/* Past this many guarded files the loader reads private copies instead, so
 * a caller holding thousands of kernels does not run out of descriptors. */
#define MAX_GUARDS 256

typedef struct guard {
  int fd;
  pid_t owner;     /* the process that took the lease (a forked worker is not it) */
  void *map;
  size_t bytes;
  volatile sig_atomic_t copied; /* the mapping is a private copy: the lease is gone */
  struct guard *next;
} guard;

static guard *guards;
static int guard_count;
static int handler_installed;
static struct sigaction previous_sigio;

/* Replaces g's file mapping by a private copy, then releases the lease.  If
 * the copy cannot be made (no memory), the lease is released all the same:
 * the writer must not wait forever. */
static void copy_out(guard *g) {
  void *copy = mmap(NULL, g->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (copy != MAP_FAILED) {
    memcpy(copy, g->map, g->bytes);
    if (mprotect(copy, g->bytes, PROT_READ) != 0 ||
        mremap(copy, g->bytes, g->bytes, MREMAP_MAYMOVE | MREMAP_FIXED, g->map) == MAP_FAILED)
      munmap(copy, g->bytes);
  }
  g->copied = 1;
  fcntl(g->fd, F_SETLEASE, F_UNLCK);
}

static void on_lease_break(int sig, siginfo_t *info, void *context) {
  int saved = errno, handled = 0;
  guard *g;
  for (g = guards; g != NULL; g = g->next) {
    if (g->fd == info->si_fd && !g->copied && g->owner == getpid()) {
      copy_out(g);
      handled = 1;
    }
  }
  /* SIGIO that is not a lease of ours goes where it went before. */
  if (!handled && (previous_sigio.sa_flags & SA_SIGINFO) && previous_sigio.sa_sigaction != NULL)
    previous_sigio.sa_sigaction(sig, info, context);
  else if (!handled && !(previous_sigio.sa_flags & SA_SIGINFO) && previous_sigio.sa_handler != SIG_DFL &&
           previous_sigio.sa_handler != SIG_IGN && previous_sigio.sa_handler != NULL)
    previous_sigio.sa_handler(sig);
  errno = saved;
}

static int install_handler(void) {
  struct sigaction action;
  if (handler_installed)
    return 0;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_lease_break;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGIO, &action, &previous_sigio) != 0)
    return -1;
  handler_installed = 1;
  return 0;
}

static void block_sigio(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGIO);
  sigprocmask(SIG_BLOCK, &set, old);
}

void *gp_gpt_guard_map(int fd, size_t bytes) {
  struct stat st;
  sigset_t old;
  void *map;
  guard *g;
  if (guard_count >= MAX_GUARDS || install_handler() != 0)
    return NULL;
  if (fcntl(fd, F_SETSIG, SIGIO) != 0 || fcntl(fd, F_SETLEASE, F_RDLCK) != 0)
    return NULL;
  /* Leased: from now on the file changes only after the handler ran. */
  if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != (uint64_t)bytes ||
      (g = malloc(sizeof *g)) == NULL) {
    fcntl(fd, F_SETLEASE, F_UNLCK);
    return NULL;
  }
  map = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    free(g);
    fcntl(fd, F_SETLEASE, F_UNLCK);
    return NULL;
  }
  g->fd = fd;
  g->owner = getpid();
  g->map = map;
  g->bytes = bytes;
  g->copied = 0;
  block_sigio(&old);
  g->next = guards;
  guards = g;
  guard_count++;
  sigprocmask(SIG_SETMASK, &old, NULL);
  return map;
}

void gp_gpt_guard_unmap(void *map, size_t bytes) {
  sigset_t old;
  guard **at, *g = NULL;
  block_sigio(&old);
  for (at = &guards; *at != NULL; at = &(*at)->next) {
    if ((*at)->map == map) {
      g = *at;
      *at = g->next;
      guard_count--;
      break;
    }
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  munmap(map, bytes);
  if (g == NULL)
    return;
  /* A forked worker shares the parent's open file and its lease: it only
   * closes its own descriptor. */
  if (!g->copied && g->owner == getpid())
    fcntl(g->fd, F_SETLEASE, F_UNLCK);
  close(g->fd);
  free(g);
}

#else /* no leases: every load reads a private copy */

void *gp_gpt_guard_map(int fd, size_t bytes) {
  (void)fd;
  (void)bytes;
  return NULL;
}

void gp_gpt_guard_unmap(void *map, size_t bytes) {
  (void)map;
  (void)bytes;
}

#endif
