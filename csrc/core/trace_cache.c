/*
 * trace_cache.c -- parsed launches kept as .gpt files in a cache folder, so
 * that a trace read again is mapped instead of parsed.
 *
 * An entry is named by what it was made from: the digest of the trace
 * file's bytes (as stored: a .gz file by its compressed bytes) and of the
 * caps on compressed input it was parsed under (a launch refused under a
 * lower cap is refused again, never served from an entry made under a
 * higher one), and GP_TRACE_CODE_ID, a hash of the trace reader's sources made at build time
 * (tools/code_id.cmake), so an edited trace, or a reader that parses
 * differently (another build, another branch sharing the folder), never
 * finds another's entry.  An entry is written through the staged writer (a
 * temporary name, synced, renamed: a reader sees a whole file or none) and
 * loaded like any .gpt, its checksum and every index checked; an entry that
 * does not load is parsed again and replaced.  The cache never changes a
 * result: a .gpt holds everything the models read (docs/traces.md), and
 * failing to write an entry (a full disk, a read-only folder) only costs
 * the next run its parse.  When the folder's entries pass max_bytes, the
 * least recently used ones go (a hit refreshes its entry's time).
 */
#define _POSIX_C_SOURCE 200809L

#include "digest.h"
#include "gp_trace_code_id.h"
#include "trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A multiple of GP_CHECKSUM_STRIPE (whole stripes), and small enough that
 * the chunk read() copies out of the page cache is still in the L2 cache
 * when the checksum reads it (docs/traces.md: 0.3 ms less than 1 MB
 * chunks on bfs-rodinia-sm80's 7 MB). */
#define READ_CHUNK (1u << 17)

/* The content checksum (digest.h) of a file's bytes, read a chunk at a time. */
static int file_digest(const gp_alloc *alloc, const char *path, uint64_t *out, gp_error *err) {
  unsigned char *buf;
  gp_checksum c;
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return gp_error_set(err, "%s: cannot open: %s", path, strerror(errno));
  buf = gp_malloc(alloc, READ_CHUNK);
  if (buf == NULL) {
    close(fd);
    return gp_error_set(err, "%s: out of memory", path);
  }
  gp_checksum_start(&c);
  for (;;) {
    size_t have = 0;
    while (have < READ_CHUNK) {
      ssize_t got = read(fd, buf + have, READ_CHUNK - have);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0) {
        gp_free(alloc, buf, READ_CHUNK);
        close(fd);
        return gp_error_set(err, "%s: cannot read: %s", path, strerror(errno));
      }
      if (got == 0)
        break;
      have += (size_t)got;
    }
    gp_checksum_add(&c, buf, have);
    if (have < READ_CHUNK)
      break;
  }
  gp_free(alloc, buf, READ_CHUNK);
  close(fd);
  *out = gp_checksum_finish(&c);
  return GP_OK;
}

/* An entry's file name: 16 hex digits of content, '-', the code id, .gpt. */
static int is_entry(const char *name) {
  size_t n = strlen(name), i;
  if (n != 16 + 1 + sizeof GP_TRACE_CODE_ID - 1 + 4 || strcmp(name + n - 4, ".gpt") != 0 || name[16] != '-')
    return 0;
  for (i = 0; i < n - 4; i++)
    if (i != 16 && !((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
      return 0;
  return 1;
}

typedef struct entry {
  char *path;
  uint64_t bytes;
  struct timespec used;
} entry;

static int older_first(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec)
    return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  if (x->used.tv_nsec != y->used.tv_nsec)
    return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
  return strcmp(x->path, y->path);
}

/* Removes the least recently used entries of `dir` while they hold more
 * than max_bytes, never `keep` (the entry just written).  Best effort: a
 * folder that cannot be listed is left as it is. */
static void prune(const gp_alloc *alloc, const char *dir, uint64_t max_bytes, const char *keep) {
  DIR *d = opendir(dir);
  entry *list = NULL;
  size_t n = 0, cap = 0, i;
  uint64_t total = 0;
  struct dirent *de;
  if (d == NULL)
    return;
  while ((de = readdir(d)) != NULL) {
    struct stat st;
    char *path;
    size_t len;
    if (!is_entry(de->d_name))
      continue;
    len = strlen(dir) + 1 + strlen(de->d_name) + 1;
    path = gp_malloc(alloc, len);
    if (path == NULL)
      break;
    snprintf(path, len, "%s/%s", dir, de->d_name);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
        gp_grow(alloc, (void **)&list, &cap, n + 1, sizeof *list) != GP_OK) {
      gp_free(alloc, path, len);
      continue;
    }
    list[n].path = path;
    list[n].bytes = (uint64_t)st.st_size;
    list[n].used = st.st_mtim;
    total += list[n].bytes;
    n++;
  }
  closedir(d);
  if (n > 1)
    qsort(list, n, sizeof *list, older_first);
  for (i = 0; i < n; i++) {
    if (total > max_bytes && strcmp(list[i].path, keep) != 0 && unlink(list[i].path) == 0)
      total -= list[i].bytes;
    gp_free(alloc, list[i].path, strlen(list[i].path) + 1);
  }
  gp_free(alloc, list, cap * sizeof *list);
}

int gp_trace_cache_load(gp_kernel **out, const gp_alloc *alloc, const char *path,
                        const gp_trace_limits *limits, const char *dir, uint64_t max_bytes, int *hit,
                        gp_error *err) {
  uint64_t digest = 0;
  size_t len;
  char *entry_path;
  struct stat st;
  gp_error ignored;
  int status;
  *hit = 0;
  if (gp_trace_check_regular(path, err) != GP_OK || file_digest(alloc, path, &digest, err) != GP_OK)
    return GP_ERR;
  if (limits != NULL) { /* a launch parsed under other caps might not parse under these */
    uint64_t key[4];
    key[0] = digest, key[1] = limits->text_bytes, key[2] = limits->kernel_bytes;
    key[3] = limits->decoder_bytes;
    digest = gp_digest_bytes(key, sizeof key);
  }
  len = strlen(dir) + 1 + 16 + 1 + strlen(GP_TRACE_CODE_ID) + 4 + 1;
  entry_path = gp_malloc(alloc, len);
  if (entry_path == NULL)
    return gp_error_set(err, "%s: out of memory", path);
  snprintf(entry_path, len, "%s/%016llx-%s.gpt", dir, (unsigned long long)digest, GP_TRACE_CODE_ID);
  if (stat(entry_path, &st) == 0 && S_ISREG(st.st_mode)) {
    if (gp_kernel_load_gpt(out, alloc, entry_path, 1, &ignored) == GP_OK) {
      *hit = 1;
      utimensat(AT_FDCWD, entry_path, NULL, 0); /* recently used */
      gp_free(alloc, entry_path, len);
      return GP_OK;
    }
    unlink(entry_path); /* damaged: made again below */
  }
  status = gp_trace_parse_file_limited(out, alloc, path, limits, err);
  if (status == GP_OK && gp_kernel_write_gpt(*out, entry_path, &ignored) == GP_OK && max_bytes > 0)
    prune(alloc, dir, max_bytes, entry_path);
  gp_free(alloc, entry_path, len);
  return status;
}
