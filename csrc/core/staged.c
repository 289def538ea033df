/*
 * staged.c -- files written under a temporary name beside their target,
 * flushed, synced, closed with the result checked, then renamed into place
 * (staged.h).  rename() within one folder replaces the target atomically,
 * so a reader sees the old file or the complete new one, never a part; a
 * full disk or a file-size limit (EFBIG: gpush ignores SIGXFSZ, so the
 * limit is an error like any other) fails the write before the rename.
 *
 * A target that exists and is not a regular file (a terminal, /dev/null, a
 * FIFO) cannot be replaced: it is written in place, with every step still
 * checked.  A symbolic link is followed: the file it points to is replaced,
 * the link stays.
 */
#define _XOPEN_SOURCE 700

#include "staged.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *copy_string(const gp_alloc *a, const char *s, size_t n) {
  char *c = gp_malloc(a, n + 1);
  if (c != NULL) {
    memcpy(c, s, n);
    c[n] = '\0';
  }
  return c;
}

static void release(gp_staged *s) {
  if (s->temp != NULL)
    gp_free(&s->alloc, s->temp, strlen(s->temp) + 1);
  if (s->target != NULL)
    gp_free(&s->alloc, s->target, strlen(s->target) + 1);
  s->temp = s->target = NULL;
  s->f = NULL;
}

/* The permissions a new file gets: `mode` less the umask. */
static mode_t with_umask(mode_t mode) {
  mode_t mask = umask(0);
  umask(mask);
  return mode & ~mask;
}

/* s->target: the path, or the file the symbolic link `path` points to. */
static int resolve_target(gp_staged *s, const char *path, struct stat *st, int *exists,
                          gp_error *err) {
  struct stat link;
  *exists = 0;
  if (lstat(path, &link) == 0 && S_ISLNK(link.st_mode)) {
    char *real = realpath(path, NULL);
    if (real == NULL)
      return gp_error_set(err, "%s: cannot write: the symbolic link leads to no file (%s)", path,
                          strerror(errno));
    s->target = copy_string(&s->alloc, real, strlen(real));
    free(real);
  } else {
    s->target = copy_string(&s->alloc, path, strlen(path));
  }
  if (s->target == NULL)
    return gp_error_set(err, "%s: cannot write: out of memory", path);
  if (stat(s->target, st) == 0) {
    *exists = 1;
    if (S_ISDIR(st->st_mode))
      return gp_error_set(err, "%s: cannot write: it is a folder", path);
  }
  return GP_OK;
}

int gp_staged_open(gp_staged *s, const gp_alloc *alloc, const char *target, gp_error *err) {
  struct stat st;
  int exists, fd;
  const char *slash;
  size_t dir_len, base_len;
  memset(s, 0, sizeof *s);
  s->alloc = *alloc;
  if (target == NULL || target[0] == '\0')
    return gp_error_set(err, "cannot write a file with an empty name");
  if (resolve_target(s, target, &st, &exists, err) != GP_OK) {
    release(s);
    return GP_ERR;
  }
  if (exists && !S_ISREG(st.st_mode)) { /* a device or a pipe: written in place */
    s->f = fopen(s->target, "wb");
    if (s->f == NULL) {
      gp_error_set(err, "%s: cannot write: %s", target, strerror(errno));
      release(s);
      return GP_ERR;
    }
    return GP_OK;
  }
  slash = strrchr(s->target, '/');
  dir_len = slash ? (size_t)(slash - s->target) : 0;
  base_len = strlen(s->target) - (slash ? dir_len + 1 : 0);
  /* DIR/.BASE.tmp-XXXXXX (or .BASE.tmp-XXXXXX in the current folder) */
  s->temp = gp_malloc(&s->alloc, dir_len + base_len + 16);
  if (s->temp == NULL) {
    release(s);
    return gp_error_set(err, "%s: cannot write: out of memory", target);
  }
  if (slash != NULL)
    snprintf(s->temp, dir_len + base_len + 16, "%.*s/.%s.tmp-XXXXXX", (int)dir_len, s->target,
             slash + 1);
  else
    snprintf(s->temp, dir_len + base_len + 16, ".%s.tmp-XXXXXX", s->target);
  fd = mkstemp(s->temp);
  if (fd < 0) {
    gp_error_set(err, "%s: cannot write: %s", target, strerror(errno));
    release(s);
    return GP_ERR;
  }
  if (fchmod(fd, exists ? (st.st_mode & 07777) : with_umask(0666)) != 0 ||
      (s->f = fdopen(fd, "wb")) == NULL) {
    gp_error_set(err, "%s: cannot write: %s", target, strerror(errno));
    close(fd);
    unlink(s->temp);
    release(s);
    return GP_ERR;
  }
  return GP_OK;
}

int gp_staged_commit(gp_staged *s, gp_error *err) {
  int failed = 0, saved = 0;
  if (fflush(s->f) != 0 || ferror(s->f)) {
    failed = 1;
    saved = errno;
  } else if (s->temp != NULL && fsync(fileno(s->f)) != 0 && errno != EINVAL && errno != ENOTSUP) {
    failed = 1;
    saved = errno;
  }
  if (fclose(s->f) != 0 && !failed) {
    failed = 1;
    saved = errno;
  }
  s->f = NULL;
  if (!failed && s->temp != NULL && rename(s->temp, s->target) != 0) {
    failed = 1;
    saved = errno;
  }
  if (failed) {
    if (s->temp != NULL)
      unlink(s->temp);
    gp_error_set(err, "%s: cannot write: %s (the file is unchanged)", s->target,
                 saved != 0 ? strerror(saved) : "write error");
  }
  release(s);
  return failed ? GP_ERR : GP_OK;
}

void gp_staged_abort(gp_staged *s) {
  if (s->f != NULL)
    fclose(s->f);
  if (s->temp != NULL)
    unlink(s->temp);
  release(s);
}

int gp_staged_write(const gp_alloc *alloc, const char *target, const void *data, size_t len,
                    gp_error *err) {
  gp_staged s;
  if (gp_staged_open(&s, alloc, target, err) != GP_OK)
    return GP_ERR;
  if (len > 0 && fwrite(data, 1, len, s.f) != len) {
    int saved = errno;
    gp_error_set(err, "%s: cannot write: %s (the file is unchanged)", s.target, strerror(saved));
    gp_staged_abort(&s);
    return GP_ERR;
  }
  return gp_staged_commit(&s, err);
}
