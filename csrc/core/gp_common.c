/*
 * gp_common.c -- the allocator hook, error buffers and the version string.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "gp_common.h"
#include "gp_core_code_id.h"
#include "gp_version.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* Blocks from this size on ask for transparent huge pages (where the
 * system grants them on request): a kernel's per-instruction arrays are
 * read warp by warp in turns (the memory replay), and with 4 KB pages each
 * turn's lines also miss the TLB. */
#define HUGE_ADVICE_BYTES ((size_t)8 << 20)

static void advise_huge(void *p, size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t from = ((uintptr_t)p + huge - 1) & ~(huge - 1), to = ((uintptr_t)p + size) & ~(huge - 1);
  if (to > from)
    (void)madvise((void *)from, to - from, MADV_HUGEPAGE); /* advice only: failure is harmless */
#else
  (void)p, (void)size;
#endif
}

static void *default_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  void *out;
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  out = realloc(ptr, nsize);
  if (out != NULL && nsize >= HUGE_ADVICE_BYTES)
    advise_huge(out, nsize);
  return out;
}

gp_alloc gp_alloc_default(void) {
  gp_alloc a;
  a.fn = default_alloc;
  a.ud = NULL;
  return a;
}

void *gp_malloc(const gp_alloc *a, size_t size) {
  if (size == 0)
    size = 1;
  return a->fn(a->ud, NULL, 0, size);
}

void *gp_realloc(const gp_alloc *a, void *ptr, size_t osize, size_t nsize) {
  if (nsize == 0)
    nsize = 1;
  return a->fn(a->ud, ptr, osize, nsize);
}

void gp_free(const gp_alloc *a, void *ptr, size_t size) {
  if (ptr != NULL)
    a->fn(a->ud, ptr, size, 0);
}

char *gp_strdup(const gp_alloc *a, const char *s) {
  size_t n = strlen(s) + 1;
  char *copy = gp_malloc(a, n);
  if (copy != NULL)
    memcpy(copy, s, n);
  return copy;
}

int gp_grow(const gp_alloc *a, void **buf, size_t *cap, size_t need,
            size_t elem_size) {
  size_t ncap;
  void *nbuf;
  if (need <= *cap)
    return GP_OK;
  ncap = *cap ? *cap : 16;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2)
      return GP_ERR;
    ncap *= 2;
  }
  if (ncap > SIZE_MAX / elem_size)
    return GP_ERR;
  nbuf = gp_realloc(a, *buf, *cap * elem_size, ncap * elem_size);
  if (nbuf == NULL)
    return GP_ERR;
  *buf = nbuf;
  *cap = ncap;
  return GP_OK;
}

int gp_error_set(gp_error *err, const char *fmt, ...) {
  va_list ap;
  if (err == NULL)
    return GP_ERR;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return GP_ERR;
}

const char *gp_version(void) { return GP_VERSION; }

const char *gp_core_code_id(void) { return GP_CORE_CODE_ID; }

const char *gp_visible(char *dst, size_t cap, const char *s, size_t n, size_t max) {
  static const char hex[] = "0123456789abcdef";
  size_t i, o = 0;
  if (cap == 0)
    return dst;
  for (i = 0; i < n && i < max; i++) {
    unsigned char c = (unsigned char)s[i];
    char esc[5];
    size_t len = 1;
    if (c >= 0x20 && c < 0x7f) {
      esc[0] = (char)c;
    } else if (c == '\r' || c == '\t' || c == '\n') {
      esc[0] = '\\', esc[1] = c == '\r' ? 'r' : c == '\t' ? 't' : 'n', len = 2;
    } else {
      esc[0] = '\\', esc[1] = 'x', esc[2] = hex[c >> 4], esc[3] = hex[c & 15], len = 4;
    }
    if (o + len >= cap)
      break;
    memcpy(dst + o, esc, len);
    o += len;
  }
  if (i < n && o + 3 < cap) {
    memcpy(dst + o, "...", 3);
    o += 3;
  }
  dst[o] = '\0';
  return dst;
}
