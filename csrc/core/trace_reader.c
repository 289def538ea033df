/*
 * trace_reader.c -- walk the launches of an application, one at a time.
 *
 * A kernelslist.g lists, in launch order, "MemcpyHtoD,addr,bytes" lines and
 * kernel trace file names relative to the list's folder.  A single .traceg
 * (or .traceg.gz / .traceg.xz) is an application of one launch.  A folder
 * means its kernelslist.g.  gp_trace_next() reads only the next launch's
 * header, so a caller filtering by name or id never parses skipped bodies.
 */
#define _POSIX_C_SOURCE 200809L

#include "trace.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LAUNCHES 1000000u

struct gp_trace_reader {
  gp_alloc alloc;
  char dir[1024];
  char list[1100];     /* the kernelslist.g read, "" for a single trace file */
  char **files;        /* trace files in launch order */
  uint32_t file_count, file_cap;
  uint32_t next;       /* index of the next launch to step to */
  int current;         /* index of the current launch, -1 before the first */
  uint32_t memcpy_count;
  uint64_t memcpy_bytes;
  gp_memcpy *copies;   /* the MemcpyHtoD lines in list order */
  size_t copies_cap;
};

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int add_file(gp_trace_reader *r, const char *name, size_t len,
                    gp_error *err) {
  char *copy, full[2200];
  size_t cap = r->file_cap;
  if (r->file_count >= MAX_LAUNCHES)
    return gp_error_set(err, "%s: more than %u launches", r->dir, MAX_LAUNCHES);
  if (gp_grow(&r->alloc, (void **)&r->files, &cap, r->file_count + 1,
              sizeof *r->files) != GP_OK)
    return gp_error_set(err, "out of memory");
  r->file_cap = (uint32_t)cap;
  if (name[0] == '/' || r->dir[0] == '\0') /* absolute, or a file opened on its own */
    snprintf(full, sizeof full, "%.*s", (int)len, name);
  else
    snprintf(full, sizeof full, "%s/%.*s", r->dir, (int)len, name);
  copy = gp_strdup(&r->alloc, full);
  if (copy == NULL)
    return gp_error_set(err, "out of memory");
  r->files[r->file_count++] = copy;
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
  r->memcpy_count++;
  r->memcpy_bytes += bytes;
  return GP_OK;
}

/* FNV-1a of a string, for the duplicate check. */
static uint64_t hash_name(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

/* Refuses a list naming one trace file twice (each launch has its own
 * file; a repeated name is a mistake that would model a launch twice) and
 * a list naming none.  lines[i] is the list line of file i. */
static int check_files(gp_trace_reader *r, const char *path, const uint64_t *lines,
                       gp_error *err) {
  size_t cap = 16, i;
  uint32_t *slot, f;
  int status = GP_OK;
  if (r->file_count == 0)
    return gp_error_set(err, "%s: lists no kernel trace file: expected one file name per launch", path);
  while (cap < 2 * (size_t)r->file_count)
    cap *= 2;
  slot = gp_malloc(&r->alloc, cap * sizeof *slot);
  if (slot == NULL)
    return gp_error_set(err, "out of memory");
  for (i = 0; i < cap; i++)
    slot[i] = UINT32_MAX;
  for (f = 0; f < r->file_count && status == GP_OK; f++) {
    for (i = (size_t)hash_name(r->files[f]) & (cap - 1); slot[i] != UINT32_MAX; i = (i + 1) & (cap - 1)) {
      if (strcmp(r->files[slot[i]], r->files[f]) == 0) {
        status = gp_error_set(err, "%s:%llu: %s is listed again (first at line %llu): each launch needs its own trace file",
                              path, (unsigned long long)lines[f], r->files[f],
                              (unsigned long long)lines[slot[i]]);
        break;
      }
    }
    slot[i] = f;
  }
  gp_free(&r->alloc, slot, cap * sizeof *slot);
  return status;
}

static int read_list(gp_trace_reader *r, const char *path, gp_error *err) {
  gp_line_input *in;
  const char *line;
  size_t len, lines_cap = 0;
  uint64_t *lines = NULL;
  int status;
  if (gp_line_open(&in, &r->alloc, path, err) != GP_OK)
    return GP_ERR;
  while ((status = gp_line_next(in, &line, &len, err)) == 1) {
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
      len--;
    if (len == 0 || line[0] == '#')
      continue;
    if (len > 10 && memcmp(line, "MemcpyHtoD", 10) == 0) {
      status = memcpy_line(r, line, len, path, gp_line_number(in), err);
    } else if (memchr(line, ',', len) != NULL || memchr(line, ' ', len) != NULL) {
      status = gp_error_set(err,
                            "%s:%llu: expected a kernel trace file name or "
                            "'MemcpyHtoD,address,bytes', found '%.*s'",
                            path, (unsigned long long)gp_line_number(in),
                            (int)(len > 60 ? 60 : len), line);
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

int gp_trace_open(gp_trace_reader **out, const gp_alloc *alloc,
                  const char *path, gp_error *err) {
  gp_trace_reader *r = gp_malloc(alloc, sizeof *r);
  const char *slash;
  int status;
  if (r == NULL)
    return gp_error_set(err, "out of memory");
  memset(r, 0, sizeof *r);
  r->alloc = *alloc;
  r->current = -1;
  if (is_dir(path)) {
    snprintf(r->dir, sizeof r->dir, "%s", path);
    snprintf(r->list, sizeof r->list, "%s/kernelslist.g", path);
    status = read_list(r, r->list, err);
  } else if (ends_with(path, ".g")) {
    slash = strrchr(path, '/');
    snprintf(r->dir, sizeof r->dir, "%.*s", slash ? (int)(slash - path) : 1,
             slash ? path : ".");
    snprintf(r->list, sizeof r->list, "%s", path);
    status = read_list(r, path, err);
  } else {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
      status = gp_error_set(err, "%s: cannot open: no such trace file or folder", path);
    } else {
      fclose(f);
      status = add_file(r, path, strlen(path), err);
    }
  }
  if (status != GP_OK) {
    gp_trace_close(r);
    return GP_ERR;
  }
  *out = r;
  return GP_OK;
}

int gp_trace_next(gp_trace_reader *r, gp_launch_info *info, gp_error *err) {
  gp_kernel header;
  if (r->next >= r->file_count)
    return 0;
  if (gp_trace_parse_header(&header, &r->alloc, r->files[r->next], err) != GP_OK)
    return GP_ERR;
  memset(info, 0, sizeof *info);
  info->index = r->next + 1;
  info->launch_id = header.launch_id;
  snprintf(info->name, sizeof info->name, "%s", header.name);
  snprintf(info->path, sizeof info->path, "%s", r->files[r->next]);
  memcpy(info->grid, header.grid, sizeof info->grid);
  memcpy(info->block, header.block, sizeof info->block);
  r->current = (int)r->next++;
  return 1;
}

int gp_trace_load(gp_trace_reader *r, gp_kernel **out, gp_error *err) {
  if (r->current < 0)
    return gp_error_set(err, "gp_trace_load: call gp_trace_next first");
  return gp_trace_parse_file(out, &r->alloc, r->files[r->current], err);
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

const char *gp_trace_list_path(const gp_trace_reader *r) { return r->list; }

void gp_trace_close(gp_trace_reader *r) {
  uint32_t i;
  if (r == NULL)
    return;
  for (i = 0; i < r->file_count; i++)
    gp_free(&r->alloc, r->files[i], strlen(r->files[i]) + 1);
  gp_free(&r->alloc, r->files, r->file_cap * sizeof *r->files);
  gp_free(&r->alloc, r->copies, r->copies_cap * sizeof *r->copies);
  gp_free(&r->alloc, r, sizeof *r);
}
