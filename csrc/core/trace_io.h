/*
 * trace_io.h -- the line reader's buffered window, for the trace parser's
 * loop over a launch's body (internal to the trace reader; trace.h has the
 * line input's interface).
 *
 * gp_line_next costs a call and a memchr call per line: about 70
 * instructions on a 60-byte instruction line, 8 % of the text parse
 * (docs/traces.md, round nine).  gp_line_next_inline finds the newline in
 * the buffered text itself (a file's read buffer, a memory source's text),
 * 16 bytes at a time, and takes the out-of-line
 * path (gp_line_next) only where fewer than 16 unread bytes hold no newline
 * (a refill, the last line): the same lines, line numbers
 * and carriage returns dropped.
 */
#ifndef GPUSH_TRACE_IO_H
#define GPUSH_TRACE_IO_H

#include "trace.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The unread bytes of the input, [text + pos, text + end): a file's read
 * buffer (refilled by gp_line_next) or a memory source's whole text; and
 * the number of the line last returned. */
typedef struct gp_line_window {
  const char *text;
  size_t pos, end;
  uint64_t line_number;
} gp_line_window;

/* The window of `in` (stable while `in` is open). */
gp_line_window *gp_line_window_of(gp_line_input *in);

/* gp_line_next, the common case inline: a whole line already in the
 * window, found 16 bytes at a time (no byte past `end` is read). */
static inline int gp_line_next_inline(gp_line_input *in, gp_line_window *w, const char **line,
                                      size_t *len, gp_error *err) {
#if defined(__SSE2__)
  if (w->pos < w->end) {
    const char *start = w->text + w->pos, *p = start;
    size_t left = w->end - w->pos;
    const __m128i newline = _mm_set1_epi8('\n');
    for (; left >= 16; left -= 16, p += 16) {
      unsigned hit = (unsigned)_mm_movemask_epi8(
          _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), newline));
      if (hit != 0) {
        size_t n = (size_t)(p - start) + (size_t)__builtin_ctz(hit);
        *line = start;
        w->pos += n + 1;
        w->line_number++;
        *len = n > 0 && start[n - 1] == '\r' ? n - 1 : n;
        return 1;
      }
    }
  }
#endif
  return gp_line_next(in, line, len, err);
}

#endif
