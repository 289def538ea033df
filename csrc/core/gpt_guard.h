/*
 * gpt_guard.h -- a .gpt file mapped into memory, kept safe from changes
 * made to the file while a model reads the mapping (trace_gpt.c).
 *
 * A mapping shares the file's pages: a file truncated underneath ends the
 * reader with SIGBUS, a file rewritten in place changes indices that were
 * checked at load.  Reading a private copy avoids both but costs a copy of
 * the whole file.  The guard keeps the mapping's speed: it holds a read
 * lease on the file (Linux, fcntl F_SETLEASE), so before any process can
 * open the file for writing or truncate it, the kernel signals this one;
 * the handler then replaces the mapping, at the same address, by a private
 * copy of the unchanged contents, and only then releases the lease and
 * lets the writer go on.  The kernel's arrays never move and never change.
 *
 * A lease needs the file's owner (or CAP_LEASE), a local file system and
 * no process having the file open for writing; where one cannot be taken
 * gp_gpt_guard_map returns NULL and the caller reads a private copy.
 * Limits: a worker forked after the load shares the mapping but not the
 * signal (the lease belongs to the process that took it), so such a worker
 * should load its own kernels, as gpush.experiment's workers do.
 */
#ifndef GP_GPT_GUARD_H
#define GP_GPT_GUARD_H

#include <stddef.h>

/* Maps `bytes` of the open file `fd` read-only under a lease; the guard then
 * owns fd.  NULL (fd untouched) when no lease can be had or the file no
 * longer has `bytes` bytes once leased. */
void *gp_gpt_guard_map(int fd, size_t bytes);

/* Releases a mapping of gp_gpt_guard_map (the private copy, if the handler
 * made one), its lease and its file descriptor. */
void gp_gpt_guard_unmap(void *map, size_t bytes);

#endif
