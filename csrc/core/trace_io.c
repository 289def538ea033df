/*
 * trace_io.c -- line input over plain, gzip and xz files, or a memory buffer.
 *
 * The trace parser asks for one line at a time; this file hides where the
 * bytes come from.  Compression is detected from the first bytes (gzip:
 * 1f 8b; xz: fd 37 7a 58 5a 00), not from the file name.  Lines point into
 * a large read buffer, so reading costs one memchr per line.  Compressed
 * input is capped (gp_trace_limits): the decompressed bytes, counted as
 * they arrive, and the xz decoder's memory.
 */
#define _POSIX_C_SOURCE 200809L

#include "trace_io.h"

#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define READ_CHUNK (1u << 20)
#define MAX_LINE (16u << 20)
#define MIB (1024u * 1024u)

typedef enum source_kind { SOURCE_BUFFER, SOURCE_PLAIN, SOURCE_GZIP, SOURCE_XZ } source_kind;

struct gp_line_input {
  gp_alloc alloc;
  source_kind kind;
  char *name;
  gp_trace_limits limits;
  uint64_t decompressed; /* bytes the decoder gave so far */
  /* sources */
  FILE *file;
  gzFile gz;
  lzma_stream xz;
  uint8_t *xz_in;
  int xz_done;
  const char *mem;
  size_t mem_len;
  /* unread bytes: [w.pos, w.end) of w.text, which is buf (a file's read
   * buffer, cap bytes) or mem (a memory source, w.end its length) */
  gp_line_window w;
  char *buf;
  size_t cap;
  int eof;
  /* plain files: size at open and bytes read so far (for bytes_left) */
  uint64_t file_size, file_read;
};

gp_trace_limits gp_trace_limits_mb(uint64_t mb) {
  gp_trace_limits l;
  uint64_t bytes = mb > UINT64_MAX / MIB ? UINT64_MAX : mb * MIB;
  l.text_bytes = l.kernel_bytes = bytes;
  l.decoder_bytes = bytes / 2;
  return l;
}

static int input_alloc(gp_line_input **out, const gp_alloc *alloc,
                       const char *name, gp_error *err) {
  gp_line_input *in = gp_malloc(alloc, sizeof *in);
  if (in == NULL)
    return gp_error_set(err, "%s: out of memory", name);
  memset(in, 0, sizeof *in);
  in->alloc = *alloc;
  in->limits = gp_trace_limits_mb(GP_TRACE_LIMIT_MB_DEFAULT);
  in->name = gp_strdup(alloc, name);
  if (in->name == NULL) {
    gp_free(alloc, in, sizeof *in);
    return gp_error_set(err, "%s: out of memory", name);
  }
  *out = in;
  return GP_OK;
}

int gp_line_open_buffer(gp_line_input **out, const gp_alloc *alloc,
                        const char *text, size_t len, const char *name,
                        gp_error *err) {
  gp_line_input *in;
  if (input_alloc(&in, alloc, name, err) != GP_OK)
    return GP_ERR;
  in->kind = SOURCE_BUFFER;
  in->mem = text;
  in->mem_len = len;
  in->w.text = text;
  in->w.end = len;
  *out = in;
  return GP_OK;
}

/* Sniffs the first bytes of an open file and prepares the decoder. */
static int open_decoder(gp_line_input *in, gp_error *err) {
  unsigned char magic[6] = {0};
  size_t n = fread(magic, 1, sizeof magic, in->file);
  rewind(in->file);
  if (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    int fd = dup(fileno(in->file));
    fclose(in->file);
    in->file = NULL;
    in->gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
    if (in->gz == NULL)
      return gp_error_set(err, "%s: cannot open as gzip", in->name);
    gzbuffer(in->gz, READ_CHUNK);
    in->kind = SOURCE_GZIP;
  } else if (n == 6 && memcmp(magic, "\xfd" "7zXZ\0", 6) == 0) {
    lzma_stream init = LZMA_STREAM_INIT;
    in->xz = init;
    if (lzma_stream_decoder(&in->xz, in->limits.decoder_bytes ? in->limits.decoder_bytes : UINT64_MAX,
                            0) != LZMA_OK)
      return gp_error_set(err, "%s: cannot start the xz decoder", in->name);
    in->xz_in = gp_malloc(&in->alloc, READ_CHUNK);
    if (in->xz_in == NULL)
      return gp_error_set(err, "%s: out of memory", in->name);
    in->kind = SOURCE_XZ;
  } else {
    struct stat st;
    in->kind = SOURCE_PLAIN;
    in->file_size = fstat(fileno(in->file), &st) == 0 && S_ISREG(st.st_mode)
                        ? (uint64_t)st.st_size
                        : UINT64_MAX;
  }
  return GP_OK;
}

/* What a file that is not a regular one is, for the message refusing it. */
static const char *kind_of(mode_t mode) {
  if (S_ISFIFO(mode))
    return "a pipe (FIFO)";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISDIR(mode))
    return "a folder";
  return "not a regular file";
}

int gp_trace_check_regular(const char *path, gp_error *err) {
  struct stat st;
  if (stat(path, &st) != 0)
    return gp_error_set(err, "%s: cannot open: %s", path,
                        errno == ELOOP ? "a loop of symbolic links" : strerror(errno));
  if (!S_ISREG(st.st_mode))
    return gp_error_set(err,
                        "%s: is %s: gpush reads a trace more than once (its header, then its "
                        "body), so it needs a regular file; save the data to a file first",
                        path, kind_of(st.st_mode));
  return GP_OK;
}

int gp_line_open(gp_line_input **out, const gp_alloc *alloc, const char *path,
                 const gp_trace_limits *limits, gp_error *err) {
  gp_line_input *in;
  if (gp_trace_check_regular(path, err) != GP_OK)
    return GP_ERR;
  if (input_alloc(&in, alloc, path, err) != GP_OK)
    return GP_ERR;
  if (limits != NULL)
    in->limits = *limits;
  in->file = fopen(path, "rb");
  if (in->file == NULL) {
    gp_error_set(err, "%s: cannot open: %s", path, strerror(errno));
    gp_line_close(in);
    return GP_ERR;
  }
  if (open_decoder(in, err) != GP_OK) {
    gp_line_close(in);
    return GP_ERR;
  }
  *out = in;
  return GP_OK;
}

/* What an xz decoder failure means, for messages (liblzma's lzma_ret). */
static const char *xz_failure(lzma_ret ret) {
  switch (ret) {
  case LZMA_BUF_ERROR:
    return "the file ends in the middle of the xz stream: truncated";
  case LZMA_DATA_ERROR:
    return "the compressed data is corrupt";
  case LZMA_FORMAT_ERROR:
    return "not in the .xz format";
  case LZMA_OPTIONS_ERROR:
    return "compressed with options this liblzma does not support";
  case LZMA_UNSUPPORTED_CHECK:
    return "its integrity check is of a kind this liblzma cannot verify";
  case LZMA_MEM_ERROR:
  case LZMA_MEMLIMIT_ERROR:
    return "out of memory while decompressing";
  default:
    return "the xz decoder failed";
  }
}

/* Reads up to `room` decompressed bytes into dst; returns the count, 0 at
 * the end of input, or -1 with err set. */
static long read_xz(gp_line_input *in, char *dst, size_t room, gp_error *err) {
  in->xz.next_out = (uint8_t *)dst;
  in->xz.avail_out = room;
  while (in->xz.avail_out == room && !in->xz_done) {
    lzma_action action = LZMA_RUN;
    lzma_ret ret;
    if (in->xz.avail_in == 0) {
      size_t n = fread(in->xz_in, 1, READ_CHUNK, in->file);
      in->xz.next_in = in->xz_in;
      in->xz.avail_in = n;
      if (n == 0)
        action = LZMA_FINISH;
    }
    ret = lzma_code(&in->xz, action);
    if (ret == LZMA_STREAM_END) {
      in->xz_done = 1;
    } else if (ret == LZMA_MEMLIMIT_ERROR) {
      gp_error_set(err, "%s: cannot decompress: the xz stream needs %llu MiB of decoder memory, above "
                   "gpush's limit of %llu MiB for a compressed trace (" GP_TRACE_LIMIT_HINT ")", in->name,
                   (unsigned long long)((lzma_memusage(&in->xz) + MIB - 1) / MIB),
                   (unsigned long long)(in->limits.decoder_bytes / MIB));
      return -1;
    } else if (ret != LZMA_OK) {
      gp_error_set(err, "%s: cannot decompress: %s", in->name, xz_failure(ret));
      return -1;
    }
  }
  return (long)(room - in->xz.avail_out);
}

/* Counts decompressed bytes against the text cap; -1 with err set when the
 * input passes it. */
static long count_decompressed(gp_line_input *in, long n, gp_error *err) {
  if (n <= 0)
    return n;
  in->decompressed += (uint64_t)n;
  if (in->limits.text_bytes != 0 && in->decompressed > in->limits.text_bytes) {
    gp_error_set(err, "%s: decompresses to more than %llu MiB, gpush's limit for a compressed trace (" GP_TRACE_LIMIT_HINT
                 ")", in->name, (unsigned long long)(in->limits.text_bytes / MIB));
    return -1;
  }
  return n;
}

/* Appends more bytes at buf[end]; returns bytes read, 0 at end, -1 error. */
static long fill(gp_line_input *in, gp_error *err) {
  size_t room = in->cap - in->w.end;
  char *dst = in->buf + in->w.end;
  switch (in->kind) {
  case SOURCE_PLAIN: {
    size_t n = fread(dst, 1, room, in->file);
    if (n == 0 && ferror(in->file)) {
      gp_error_set(err, "%s: read error: %s", in->name, strerror(errno));
      return -1;
    }
    in->file_read += n;
    return (long)n;
  }
  case SOURCE_GZIP: {
    int n = gzread(in->gz, dst, (unsigned)(room > INT32_MAX ? INT32_MAX : room));
    int code = Z_OK;
    const char *msg = n <= 0 ? gzerror(in->gz, &code) : NULL;
    /* zlib: at the end of input, Z_BUF_ERROR means the file ended in the
     * middle of a gzip stream (gzread documentation in zlib.h) */
    if (n == 0 && code == Z_BUF_ERROR) {
      gp_error_set(err, "%s: cannot decompress: the file ends in the middle of the gzip stream: "
                   "truncated", in->name);
      return -1;
    }
    if (n < 0) {
      /* zlib names the stream "<fd:N>" when opened from a descriptor */
      const char *colon = msg != NULL && msg[0] == '<' ? strstr(msg, ">: ") : NULL;
      gp_error_set(err, "%s: cannot decompress: the gzip data is corrupt (%s)", in->name,
                   colon != NULL ? colon + 3 : (msg != NULL ? msg : "zlib error"));
      return -1;
    }
    return count_decompressed(in, n, err);
  }
  case SOURCE_XZ:
    return count_decompressed(in, read_xz(in, dst, room, err), err);
  case SOURCE_BUFFER:
    break;
  }
  return 0;
}

/* The memory-buffer source needs no copying: lines point into it. */
static int next_from_buffer(gp_line_input *in, const char **line, size_t *len) {
  const char *start, *nl;
  if (in->w.pos >= in->mem_len)
    return 0;
  start = in->mem + in->w.pos;
  nl = memchr(start, '\n', in->mem_len - in->w.pos);
  *len = nl ? (size_t)(nl - start) : in->mem_len - in->w.pos;
  in->w.pos += *len + (nl != NULL);
  *line = start;
  return 1;
}

/* gp_line_next past the buffered lines: the memory source, refills, the
 * last line without a newline, the end of input. */
static __attribute__((noinline)) int next_line_slow(gp_line_input *in, const char **line, size_t *len,
                                                    gp_error *err) {
  int found;
  if (in->kind == SOURCE_BUFFER) {
    found = next_from_buffer(in, line, len);
  } else {
    for (;;) {
      char *start = in->buf != NULL ? in->buf + in->w.pos : NULL; /* no buffer before the first read */
      char *nl = in->w.end > in->w.pos ? memchr(start, '\n', in->w.end - in->w.pos)
                                   : NULL;
      long n;
      if (nl != NULL) {
        *line = start;
        *len = (size_t)(nl - start);
        in->w.pos += *len + 1;
        found = 1;
        break;
      }
      if (in->eof) {
        found = in->w.end > in->w.pos;
        if (found) {
          *line = start;
          *len = in->w.end - in->w.pos;
          in->w.pos = in->w.end;
        }
        break;
      }
      /* Move the partial line to the front, grow if it fills the buffer. */
      if (in->w.pos > 0) {
        memmove(in->buf, start, in->w.end - in->w.pos);
        in->w.end -= in->w.pos;
        in->w.pos = 0;
      }
      if (in->w.end == in->cap) {
        size_t want = in->cap ? in->cap * 2 : READ_CHUNK;
        if (want > MAX_LINE + READ_CHUNK)
          return gp_error_set(err, "%s:%llu: line longer than %u bytes", in->name,
                              (unsigned long long)in->w.line_number + 1, MAX_LINE);
        if (gp_grow(&in->alloc, (void **)&in->buf, &in->cap, want, 1) != GP_OK)
          return gp_error_set(err, "%s: out of memory", in->name);
        in->w.text = in->buf;
      }
      n = fill(in, err);
      if (n < 0)
        return GP_ERR;
      if (n == 0)
        in->eof = 1;
      in->w.end += (size_t)n;
    }
  }
  if (found) {
    in->w.line_number++;
    if (*len > 0 && (*line)[*len - 1] == '\r')
      (*len)--;
  }
  return found;
}

int gp_line_next(gp_line_input *in, const char **line, size_t *len,
                 gp_error *err) {
  /* the common case: a whole line already in the read buffer */
  char *start, *nl;
  if (in->kind == SOURCE_BUFFER || in->w.end <= in->w.pos)
    return next_line_slow(in, line, len, err);
  start = in->buf + in->w.pos;
  nl = memchr(start, '\n', in->w.end - in->w.pos);
  if (nl == NULL)
    return next_line_slow(in, line, len, err);
  *line = start;
  *len = (size_t)(nl - start);
  in->w.pos += *len + 1;
  in->w.line_number++;
  if (*len > 0 && start[*len - 1] == '\r')
    (*len)--;
  return 1;
}

gp_line_window *gp_line_window_of(gp_line_input *in) { return &in->w; }

uint64_t gp_line_bytes_left(const gp_line_input *in) {
  uint64_t returned;
  switch (in->kind) {
  case SOURCE_BUFFER:
    return in->mem_len - in->w.pos;
  case SOURCE_PLAIN:
    returned = in->file_read - (in->w.end - in->w.pos);
    if (in->file_size == UINT64_MAX || in->file_size < in->file_read)
      return UINT64_MAX; /* not a regular file, or it grew */
    return in->file_size - returned;
  case SOURCE_GZIP:
  case SOURCE_XZ:
    break;
  }
  return UINT64_MAX;
}

uint64_t gp_line_kernel_cap(const gp_line_input *in) {
  return in->kind == SOURCE_GZIP || in->kind == SOURCE_XZ ? in->limits.kernel_bytes : 0;
}

uint64_t gp_line_number(const gp_line_input *in) { return in->w.line_number; }

const char *gp_line_name(const gp_line_input *in) { return in->name; }

void gp_line_close(gp_line_input *in) {
  if (in == NULL)
    return;
  if (in->file != NULL)
    fclose(in->file);
  if (in->gz != NULL)
    gzclose(in->gz);
  if (in->kind == SOURCE_XZ)
    lzma_end(&in->xz);
  gp_free(&in->alloc, in->xz_in, READ_CHUNK);
  gp_free(&in->alloc, in->buf, in->cap);
  gp_free(&in->alloc, in->name, strlen(in->name) + 1);
  gp_free(&in->alloc, in, sizeof *in);
}
