/*
 * trace_reader.c -- walk the launches of an application, one at a time.
 *
 * A kernelslist.g lists, in launch order, "MemcpyHtoD,addr,bytes" lines and
 * kernel trace file names relative to the list's folder.  A single .traceg
 * (or .traceg.gz / .traceg.xz) is an application of one launch.  A folder
 * means its kernelslist.g.  gp_trace_next() reads only the next launch's
 * header, so a caller filtering by name or id never parses skipped bodies.
 * Paths are held at their full length (no fixed-size buffer cuts a long
 * path into another file's name), and the files a list names are compared
 * by device and inode, not by their text.
 */
#define _POSIX_C_SOURCE 200809L

#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LAUNCHES 1000000u

struct gp_trace_reader {
  gp_alloc alloc;
  gp_trace_limits limits; /* caps on compressed input */
  char *dir;           /* the folder list entries are relative to; "" for a single file */
  char *list;          /* the kernelslist.g read, "" for a single trace file */
  char **files;        /* trace files in launch order */
  uint32_t file_count, file_cap;
  uint32_t next;       /* index of the next launch to step to */
  int current;         /* index of the current launch, -1 before the first */
  uint32_t memcpy_count;
  uint64_t memcpy_bytes;
  gp_memcpy *copies;   /* the MemcpyHtoD lines in list order */
  size_t copies_cap;
  char *cache_dir;     /* the parsed-trace cache (trace_cache.c), NULL: none */
  uint64_t cache_bytes;
  uint32_t cache_hits;
};

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A new string: the first `len` bytes of `a`, then `b` (may be NULL). */
static char *join(const gp_alloc *alloc, const char *a, size_t len, const char *b) {
  size_t blen = b ? strlen(b) : 0;
  char *s = gp_malloc(alloc, len + blen + 1);
  if (s != NULL) {
    memcpy(s, a, len);
    if (blen > 0)
      memcpy(s + len, b, blen);
    s[len + blen] = '\0';
  }
  return s;
}

static void free_string(const gp_alloc *alloc, char *s) {
  if (s != NULL)
    gp_free(alloc, s, strlen(s) + 1);
}

static int add_file(gp_trace_reader *r, const char *name, size_t len,
                    gp_error *err) {
  char *full;
  size_t cap = r->file_cap, dir_len = strlen(r->dir), prefix;
  if (r->file_count >= MAX_LAUNCHES)
    return gp_error_set(err, "%s: more than %u launches", r->list, MAX_LAUNCHES);
  if (gp_grow(&r->alloc, (void **)&r->files, &cap, r->file_count + 1,
              sizeof *r->files) != GP_OK)
    return gp_error_set(err, "out of memory");
  r->file_cap = (uint32_t)cap;
  /* DIR/NAME, or NAME when absolute or a file opened on its own */
  prefix = name[0] == '/' || dir_len == 0 ? 0 : dir_len + 1;
  full = gp_malloc(&r->alloc, prefix + len + 1);
  if (full != NULL) {
    if (prefix > 0) {
      memcpy(full, r->dir, dir_len);
      full[dir_len] = '/';
    }
    memcpy(full + prefix, name, len);
    full[prefix + len] = '\0';
  }
  if (full == NULL)
    return gp_error_set(err, "out of memory");
  r->files[r->file_count++] = full;
  return GP_OK;
}

/* Unsigned number: hex with 0x, else decimal; 0 when malformed. */
static int parse_number(const char *t, size_t len, uint64_t *out) {
  uint64_t v = 0;
  size_t i = 0;
  int hex = len > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  if (hex)
    i = 2;
  if (i == len)
    return 0;
  for (; i < len; i++) {
    int d;
    char c = t[i];
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (hex && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (hex && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return 0;
    if (v > (UINT64_MAX - (uint64_t)d) / (hex ? 16u : 10u))
      return 0;
    v = v * (hex ? 16u : 10u) + (uint64_t)d;
  }
  *out = v;
  return 1;
}

/* "MemcpyHtoD,0x00007f2b2d500000,400": keeps the copy (address, bytes, the
 * launch it precedes) and adds to the totals. */
static int memcpy_line(gp_trace_reader *r, const char *line, size_t len,
                       const char *path, uint64_t number, gp_error *err) {
  const char *comma = memchr(line, ',', len);
  const char *second = comma ? memchr(comma + 1, ',', len - (size_t)(comma + 1 - line)) : NULL;
  const char *end = line + len;
  uint64_t addr = 0, bytes = 0;
  if (second == NULL || second + 1 >= end)
    return gp_error_set(err, "%s:%llu: expected 'MemcpyHtoD,address,bytes'", path,
                        (unsigned long long)number);
  if (!parse_number(comma + 1, (size_t)(second - comma - 1), &addr))
    return gp_error_set(err, "%s:%llu: expected a hex address after 'MemcpyHtoD,'",
                        path, (unsigned long long)number);
  if (!parse_number(second + 1, (size_t)(end - second - 1), &bytes) ||
      (second[1] == '0' && second + 2 < end && (second[2] == 'x' || second[2] == 'X')))
    return gp_error_set(err, "%s:%llu: expected a byte count after the second comma",
                        path, (unsigned long long)number);
  if (r->memcpy_count >= MAX_LAUNCHES)
    return gp_error_set(err, "%s:%llu: more than %u copies", path,
                        (unsigned long long)number, MAX_LAUNCHES);
  if (gp_grow(&r->alloc, (void **)&r->copies, &r->copies_cap,
              (size_t)r->memcpy_count + 1, sizeof *r->copies) != GP_OK)
    return gp_error_set(err, "out of memory");
  r->copies[r->memcpy_count].addr = addr;
  r->copies[r->memcpy_count].bytes = bytes;
  r->copies[r->memcpy_count].before_launch = r->file_count + 1;
  if (bytes > (uint64_t)INT64_MAX - r->memcpy_bytes)
    return gp_error_set(err, "%s:%llu: a copy of %llu bytes takes the total of the copies past 2^63-1 "
                        "bytes: expected the byte count of a host-to-device copy", path,
                        (unsigned long long)number, (unsigned long long)bytes);
  r->memcpy_count++;
  r->memcpy_bytes += bytes;
  return GP_OK;
}

/* A listed file's identity: its device and inode when it exists (so two
 * spellings of one file, or a link and its file, are one), else its text
 * (the load reports a missing file). */
typedef struct file_identity {
  int known;
  uint64_t dev, ino, hash;
} file_identity;

static file_identity identity_of(const char *path) {
  file_identity id;
  struct stat st;
  memset(&id, 0, sizeof id);
  id.hash = 0xcbf29ce484222325ull;
  if (stat(path, &st) == 0) {
    id.known = 1;
    id.dev = (uint64_t)st.st_dev;
    id.ino = (uint64_t)st.st_ino;
    id.hash = (id.hash ^ id.dev) * 0x100000001b3ull;
    id.hash = (id.hash ^ id.ino) * 0x100000001b3ull;
  } else {
    const char *s;
    for (s = path; *s; s++) /* FNV-1a of the text */
      id.hash = (id.hash ^ (unsigned char)*s) * 0x100000001b3ull;
  }
  return id;
}

static int same_file(const file_identity *a, const char *pa, const file_identity *b, const char *pb) {
  if (a->known != b->known)
    return 0;
  return a->known ? a->dev == b->dev && a->ino == b->ino : strcmp(pa, pb) == 0;
}

/* Refuses a list naming one trace file twice (each launch has its own
 * file; a repeated file is a mistake that would model a launch twice) and
 * a list naming none.  lines[i] is the list line of file i. */
static int check_files(gp_trace_reader *r, const char *path, const uint64_t *lines,
                       gp_error *err) {
  size_t cap = 16, i;
  uint32_t *slot, f;
  file_identity *ids;
  int status = GP_OK;
  if (r->file_count == 0)
    return gp_error_set(err, "%s: lists no kernel trace file: expected one file name per launch", path);
  while (cap < 2 * (size_t)r->file_count)
    cap *= 2;
  slot = gp_malloc(&r->alloc, cap * sizeof *slot);
  ids = gp_malloc(&r->alloc, (size_t)r->file_count * sizeof *ids);
  if (slot == NULL || ids == NULL) {
    gp_free(&r->alloc, slot, cap * sizeof *slot);
    gp_free(&r->alloc, ids, (size_t)r->file_count * sizeof *ids);
    return gp_error_set(err, "out of memory");
  }
  for (i = 0; i < cap; i++)
    slot[i] = UINT32_MAX;
  for (f = 0; f < r->file_count && status == GP_OK; f++) {
    ids[f] = identity_of(r->files[f]);
    for (i = (size_t)ids[f].hash & (cap - 1); slot[i] != UINT32_MAX; i = (i + 1) & (cap - 1)) {
      uint32_t g = slot[i];
      if (same_file(&ids[g], r->files[g], &ids[f], r->files[f])) {
        if (strcmp(r->files[g], r->files[f]) == 0)
          status = gp_error_set(err, "%s:%llu: %s is listed again (first at line %llu): each launch needs its "
                                "own trace file", path, (unsigned long long)lines[f], r->files[f],
                                (unsigned long long)lines[g]);
        else
          status = gp_error_set(err, "%s:%llu: %s is the file %s of line %llu: each launch needs its own "
                                "trace file", path, (unsigned long long)lines[f], r->files[f], r->files[g],
                                (unsigned long long)lines[g]);
        break;
      }
    }
    slot[i] = f;
  }
  gp_free(&r->alloc, slot, cap * sizeof *slot);
  gp_free(&r->alloc, ids, (size_t)r->file_count * sizeof *ids);
  return status;
}

static int read_list(gp_trace_reader *r, const char *path, gp_error *err) {
  gp_line_input *in;
  const char *line;
  size_t len, lines_cap = 0;
  uint64_t *lines = NULL;
  int status;
  if (gp_line_open(&in, &r->alloc, path, &r->limits, err) != GP_OK)
    return GP_ERR;
  while ((status = gp_line_next(in, &line, &len, err)) == 1) {
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
      len--;
    if (len == 0 || line[0] == '#')
      continue;
    if (len > 10 && memcmp(line, "MemcpyHtoD", 10) == 0) {
      status = memcpy_line(r, line, len, path, gp_line_number(in), err);
    } else if (memchr(line, ',', len) != NULL || memchr(line, ' ', len) != NULL) {
      char shown[4 * 60 + 4];
      status = gp_error_set(err,
                            "%s:%llu: expected a kernel trace file name or "
                            "'MemcpyHtoD,address,bytes', found '%s'",
                            path, (unsigned long long)gp_line_number(in),
                            gp_visible(shown, sizeof shown, line, len, 60));
    } else {
      status = add_file(r, line, len, err);
      if (status == GP_OK &&
          gp_grow(&r->alloc, (void **)&lines, &lines_cap, r->file_count, sizeof *lines) != GP_OK)
        status = gp_error_set(err, "out of memory");
      if (status == GP_OK)
        lines[r->file_count - 1] = gp_line_number(in);
    }
    if (status != GP_OK)
      break;
  }
  gp_line_close(in);
  if (status != GP_ERR)
    status = check_files(r, path, lines, err);
  gp_free(&r->alloc, lines, lines_cap * sizeof *lines);
  return status == GP_ERR ? GP_ERR : GP_OK;
}

/* Why a trace path cannot be opened, for the message (a kernelslist.g by
 * the system's words, other paths as a trace file or folder). */
static const char *open_failure(int code, int is_list) {
  if (code == ENOENT && !is_list)
    return "no such trace file or folder";
  if (code == ELOOP)
    return "a loop of symbolic links";
  return strerror(code);
}

int gp_trace_open(gp_trace_reader **out, const gp_alloc *alloc,
                  const char *path, gp_error *err) {
  gp_trace_reader *r = gp_malloc(alloc, sizeof *r);
  const char *slash;
  struct stat st;
  int status;
  if (r == NULL)
    return gp_error_set(err, "out of memory");
  memset(r, 0, sizeof *r);
  r->alloc = *alloc;
  r->current = -1;
  r->limits = gp_trace_limits_mb(GP_TRACE_LIMIT_MB_DEFAULT);
  if (stat(path, &st) != 0) {
    status = gp_error_set(err, "%s: cannot open: %s", path, open_failure(errno, ends_with(path, ".g")));
  } else if (S_ISDIR(st.st_mode)) {
    r->dir = join(alloc, path, strlen(path), NULL);
    r->list = join(alloc, path, strlen(path), "/kernelslist.g");
    status = r->dir && r->list ? read_list(r, r->list, err) : gp_error_set(err, "out of memory");
  } else if (ends_with(path, ".g")) {
    slash = strrchr(path, '/');
    r->dir = slash ? join(alloc, path, slash == path ? 1 : (size_t)(slash - path), NULL)
                   : join(alloc, ".", 1, NULL);
    r->list = join(alloc, path, strlen(path), NULL);
    status = r->dir && r->list ? read_list(r, path, err) : gp_error_set(err, "out of memory");
  } else {
    r->dir = join(alloc, "", 0, NULL);
    r->list = join(alloc, "", 0, NULL);
    status = r->dir && r->list ? gp_trace_check_regular(path, err) : gp_error_set(err, "out of memory");
    if (status == GP_OK)
      status = add_file(r, path, strlen(path), err);
  }
  if (status != GP_OK) {
    gp_trace_close(r);
    return GP_ERR;
  }
  *out = r;
  return GP_OK;
}

void gp_trace_set_limits(gp_trace_reader *r, const gp_trace_limits *limits) { r->limits = *limits; }

int gp_trace_next(gp_trace_reader *r, gp_launch_info *info, gp_error *err) {
  gp_kernel header;
  if (r->next >= r->file_count)
    return 0;
  if (gp_trace_parse_header(&header, &r->alloc, r->files[r->next], &r->limits, err) != GP_OK)
    return GP_ERR;
  memset(info, 0, sizeof *info);
  info->index = r->next + 1;
  info->launch_id = header.launch_id;
  snprintf(info->name, sizeof info->name, "%s", header.name);
  info->path = r->files[r->next];
  memcpy(info->grid, header.grid, sizeof info->grid);
  memcpy(info->block, header.block, sizeof info->block);
  r->current = (int)r->next++;
  return 1;
}

int gp_trace_set_cache(gp_trace_reader *r, const char *dir, uint64_t max_bytes, gp_error *err) {
  char *copy = dir ? join(&r->alloc, dir, strlen(dir), NULL) : NULL;
  if (dir && copy == NULL)
    return gp_error_set(err, "out of memory");
  free_string(&r->alloc, r->cache_dir);
  r->cache_dir = copy;
  r->cache_bytes = max_bytes;
  return GP_OK;
}

uint32_t gp_trace_cache_hits(const gp_trace_reader *r) { return r->cache_hits; }

int gp_trace_load(gp_trace_reader *r, gp_kernel **out, gp_error *err) {
  const char *path;
  int hit = 0;
  if (r->current < 0)
    return gp_error_set(err, "gp_trace_load: call gp_trace_next first");
  path = r->files[r->current];
  if (r->cache_dir == NULL || gp_gpt_is(path))
    return gp_trace_parse_file_limited(out, &r->alloc, path, &r->limits, err);
  if (gp_trace_cache_load(out, &r->alloc, path, &r->limits, r->cache_dir, r->cache_bytes, &hit, err) !=
      GP_OK)
    return GP_ERR;
  r->cache_hits += (uint32_t)hit;
  return GP_OK;
}

void gp_trace_memcpy(const gp_trace_reader *r, uint32_t *count,
                     uint64_t *bytes) {
  *count = r->memcpy_count;
  *bytes = r->memcpy_bytes;
}

const gp_memcpy *gp_trace_memcpy_list(const gp_trace_reader *r,
                                      uint32_t *count) {
  *count = r->memcpy_count;
  return r->memcpy_count ? r->copies : NULL;
}

uint32_t gp_trace_file_count(const gp_trace_reader *r) { return r->file_count; }

const char *gp_trace_file(const gp_trace_reader *r, uint32_t i) {
  return i < r->file_count ? r->files[i] : NULL;
}

const char *gp_trace_list_path(const gp_trace_reader *r) { return r->list ? r->list : ""; }

void gp_trace_close(gp_trace_reader *r) {
  uint32_t i;
  if (r == NULL)
    return;
  for (i = 0; i < r->file_count; i++)
    gp_free(&r->alloc, r->files[i], strlen(r->files[i]) + 1);
  gp_free(&r->alloc, r->files, r->file_cap * sizeof *r->files);
  gp_free(&r->alloc, r->copies, r->copies_cap * sizeof *r->copies);
  free_string(&r->alloc, r->dir);
  free_string(&r->alloc, r->list);
  free_string(&r->alloc, r->cache_dir);
  gp_free(&r->alloc, r, sizeof *r);
}
