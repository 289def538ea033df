/*
 * gp_common.h -- conventions shared by every file of the numeric core.
 *
 * The core is plain C99/C11 and never includes lua.h.  Two conventions hold
 * everywhere:
 *
 *  - Memory goes through one allocator hook (gp_alloc), with the signature of
 *    lua_Alloc, so the Lua binding can hand the core Lua's own allocator and
 *    the C unit tests can use the default (realloc/free).
 *  - Errors are return codes (GP_OK, GP_ERR) plus a message written into a
 *    gp_error buffer owned by the caller.  The core never exits, aborts or
 *    prints on bad input, and holds no global state.
 */
#ifndef GP_COMMON_H
#define GP_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define GP_OK 0
#define GP_ERR (-1)

/* Same contract as lua_Alloc: nsize == 0 frees and returns NULL; otherwise
 * (re)allocates ptr (which may be NULL) from osize to nsize bytes. */
typedef void *(*gp_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

typedef struct gp_alloc {
  gp_alloc_fn fn;
  void *ud;
} gp_alloc;

/* The default allocator: realloc/free. */
gp_alloc gp_alloc_default(void);

void *gp_malloc(const gp_alloc *a, size_t size);
void *gp_realloc(const gp_alloc *a, void *ptr, size_t osize, size_t nsize);
void gp_free(const gp_alloc *a, void *ptr, size_t size);
/* Copies a NUL-terminated string; NULL when out of memory. Free with
 * gp_free(a, s, strlen(s) + 1). */
char *gp_strdup(const gp_alloc *a, const char *s);

/* Grows *buf (of *cap elements of elem_size bytes) so that at least `need`
 * elements fit, doubling.  Returns GP_ERR on overflow or out of memory, in
 * which case *buf and *cap are unchanged. */
int gp_grow(const gp_alloc *a, void **buf, size_t *cap, size_t need,
            size_t elem_size);

#define GP_ERROR_MAX 512

/* Caller-owned error message buffer. */
typedef struct gp_error {
  char msg[GP_ERROR_MAX];
} gp_error;

#if defined(__GNUC__)
#define GP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GP_PRINTF(f, a)
#endif

/* Formats into err->msg (truncating) and returns GP_ERR, so callers can write
 * `return gp_error_set(err, "...", ...);`.  err may be NULL. */
int gp_error_set(gp_error *err, const char *fmt, ...) GP_PRINTF(2, 3);

/* Input text as a message shows it: the first `max` bytes of s[0..n), each
 * byte that is not printable ASCII written as \r, \t, \n or \xNN (and a
 * trailing "..." when cut), so a stray carriage return or binary byte is
 * visible instead of hiding in or garbling the message.  Returns dst, which
 * is always terminated; cap >= 4 * max + 4 holds any text. */
const char *gp_visible(char *dst, size_t cap, const char *s, size_t n, size_t max);

/* The gpush version string ("0.1.0"). */
const char *gp_version(void);
/* 16 hex digits of a hash of every source of the numeric core, made at
 * build time (tools/code_id.cmake): results cached by one build are not
 * taken for another's. */
const char *gp_core_code_id(void);

#endif
