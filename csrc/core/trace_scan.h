/*
 * trace_scan.h -- the fast scanners of an Accel-Sim instruction line.
 *
 * Each scanner reads one whole, well-formed token of the common shape in a
 * single tight loop over [p, end): blanks, then the token, which must end at
 * a blank or at the end of the line.  It returns 1 and moves *pp past the
 * token and the blank that ends it, or 0 and leaves *pp alone.  The scanners accept a subset of what
 * the checked readers of trace_parse.c (next_hex, next_dec, token and
 * register_number) accept, with the same values, so the parser tries the
 * scanner first and calls the checked reader from the same place only when
 * the scanner says no: the reader then gives the same value or the same
 * error message.  Only trace_parse.c (and test_trace_scan.c) include this
 * file.
 */
#ifndef GPUSH_TRACE_SCAN_H
#define GPUSH_TRACE_SCAN_H

#include <stdint.h>
#include <string.h>

/* Hex digit value + 1 (0: not a hex digit). */
static const uint8_t gp_hex_digit[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,
    ['6'] = 7,  ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
    ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
    ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16};

static inline __attribute__((always_inline)) int scan_blank(char c) { return c == ' ' || c == '\t'; }

/* Blanks from p: a byte above ' ' (the usual first byte of a token, the
 * scanners having stepped over the one blank before it) ends the run at
 * once. */
static inline __attribute__((always_inline)) const char *scan_skip_blanks(const char *p, const char *end) {
  while (p < end && (unsigned char)*p <= ' ' && scan_blank(*p))
    p++;
  return p;
}

/* 1 when a token ends at p. */
static inline __attribute__((always_inline)) int scan_token_end(const char *p, const char *end) {
  return p == end || scan_blank(*p);
}

/* Where the next scan starts after a token that ends at p (at a blank,
 * which it steps over, or at the end). */
static inline __attribute__((always_inline)) const char *scan_past_blank(const char *p, const char *end) {
  return p < end ? p + 1 : p;
}

/* Eight bytes at p (the caller checked that they are inside the line). */
static inline __attribute__((always_inline)) uint64_t scan_load8(const char *p) {
  uint64_t x;
  memcpy(&x, p, sizeof x);
  return x;
}

/* Eight digits at a time need the first byte in the low bits. */
#define SCAN_LITTLE_ENDIAN (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define SCAN_ZEROS8 0x3030303030303030ull  /* "00000000" in any byte order */
#define SCAN_FS8 0x6666666666666666ull     /* "ffffffff" */

/* The first n (1-7) digits of x moved to its last n bytes, '0' before them,
 * so that scan_eight_digits gives their value. */
static inline __attribute__((always_inline)) uint64_t scan_align_digits(uint64_t x, unsigned n) {
  unsigned shift = 8u * (8u - n);
  return (x << shift) | (SCAN_ZEROS8 >> (64u - shift));
}

/* Four hex digits at p (inside the line) appended to *v: 1, or 0 (*v
 * unchanged) when a byte of the four is not one.  Each value less one is
 * below 16 only for a digit (a byte that is not one wraps to UINT_MAX), so
 * one test on their OR checks all four. */
static inline __attribute__((always_inline)) int scan_hex4(const char *p, uint64_t *v) {
  unsigned d0 = gp_hex_digit[(unsigned char)p[0]] - 1u, d1 = gp_hex_digit[(unsigned char)p[1]] - 1u;
  unsigned d2 = gp_hex_digit[(unsigned char)p[2]] - 1u, d3 = gp_hex_digit[(unsigned char)p[3]] - 1u;
  if ((d0 | d1 | d2 | d3) >= 16u)
    return 0;
  *v = (*v << 16) | (d0 << 12) | (d1 << 8) | (d2 << 4) | d3;
  return 1;
}

/* A hex number of 1-16 digits, with or without 0x (as next_hex reads it).
 * Eight '0' or eight 'f' at a time (an address's leading zeros, a full
 * warp's mask), then digit by digit; a token of eight 0 or eight f (a
 * mask) or of four digits (a PC) at once.  The same value as digit by
 * digit. */
static inline __attribute__((always_inline)) int scan_hex(const char **pp, const char *end, uint64_t *out) {
  const char *p = *pp, *digits;
  uint64_t v = 0;
  unsigned d;
  /* The usual shapes, with no blank before them: a full or empty warp's
   * mask, a PC of four digits. */
  if (end - p >= 9 && scan_blank(p[8]) && (scan_load8(p) == SCAN_FS8 || scan_load8(p) == SCAN_ZEROS8)) {
    *pp = p + 9;
    *out = scan_load8(p) == SCAN_FS8 ? 0xffffffffull : 0;
    return 1;
  }
  if (end - p >= 5 && scan_blank(p[4]) && scan_hex4(p, &v)) {
    *pp = p + 5;
    *out = v;
    return 1;
  }
  p = scan_skip_blanks(p, end);
  if (end - p > 2 && p[0] == '0' && (p[1] | 0x20) == 'x')
    p += 2;
  digits = p;
  while (end - p >= 8) {
    uint64_t x = scan_load8(p);
    if (x == SCAN_ZEROS8)
      v <<= 32;
    else if (x == SCAN_FS8)
      v = (v << 32) | 0xffffffffull;
    else
      break;
    p += 8;
  }
  while (p < end && (d = gp_hex_digit[(unsigned char)*p]) != 0) {
    v = (v << 4) | (d - 1);
    p++;
  }
  if (p == digits || p - digits > 16 || !scan_token_end(p, end))
    return 0;
  *pp = scan_past_blank(p, end);
  *out = v;
  return 1;
}

/* An address as tracers write it at p: 0x, then 12 or 16 hex digits and a
 * blank (inside the line), read four digits at a time (a word of eight 0
 * at once): the value scan_hex gives.  0 (nothing moved) for any other
 * shape. */
static inline __attribute__((always_inline)) int scan_address(const char **pp, const char *end, uint64_t *out) {
  const char *p = *pp, *digits = p + 2;
  uint64_t v = 0;
  int n, i;
  if (end - p < 15 || p[0] != '0' || (p[1] | 0x20) != 'x')
    return 0;
  if (end - p >= 19 && scan_blank(p[18]))
    n = 16;
  else if (scan_blank(p[14]))
    n = 12;
  else
    return 0;
  if (n == 16 && scan_load8(digits) == SCAN_ZEROS8) { /* below 4 GB */
    digits += 8;
    n = 8;
  }
  for (i = 0; i < n; i += 4)
    if (!scan_hex4(digits + i, &v))
      return 0;
  *pp = digits + n + 1;
  *out = v;
  return 1;
}

/* The value of eight ASCII digits loaded little-endian (the first digit in
 * the low byte): pairs, then fours, then the eight. */
static inline __attribute__((always_inline)) uint64_t scan_eight_digits(uint64_t x) {
  x -= SCAN_ZEROS8;
  x = (x * 10) + (x >> 8);                                      /* byte 2i: digits 2i, 2i+1 */
  x = (((x & 0x000000ff000000ffull) * (100 + (1000000ull << 32))) +
       (((x >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32)))) >> 32;
  return x;
}

/* Zero bytes where the bytes of x are decimal digits: a byte is a digit
 * when its high nibble is 3 and stays 3 with 6 added; a byte of 0xfa or
 * more carries into the next byte's test, but only bytes after a
 * non-digit, which scan_leading_digits does not count. */
static inline __attribute__((always_inline)) uint64_t scan_digit_bytes(uint64_t x) {
  return ((x & 0xf0f0f0f0f0f0f0f0ull) | (((x + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) >> 4)) ^
         0x3333333333333333ull;
}

/* The run of decimal digits at p: where it ends, and in *out its value
 * (exact for up to 19 digits; the callers refuse longer runs). */
static inline __attribute__((always_inline)) const char *scan_digit_run(const char *p, const char *end,
                                                                        uint64_t *out) {
  uint64_t v = 0;
  /* Eight digits at a time (SWAR): the same value modulo 2^64 as digit by
   * digit, v x 10^8 + the eight digits' value. */
  while (SCAN_LITTLE_ENDIAN && end - p >= 8) {
    uint64_t x = scan_load8(p);
    if (scan_digit_bytes(x) != 0)
      break; /* a byte of the eight is not a digit */
    v = v * 100000000ull + scan_eight_digits(x);
    p += 8;
  }
  while (p < end && (unsigned)(*p - '0') < 10u) {
    v = v * 10 + (uint64_t)(*p - '0');
    p++;
  }
  *out = v;
  return p;
}

/* How many of the eight bytes of x (the first in the low byte) are decimal
 * digits before the first one that is not (t: scan_digit_bytes(x)): 0-8. */
static inline __attribute__((always_inline)) unsigned scan_leading_digits(uint64_t t) {
  uint64_t m = (((t & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full) | t) & 0x8080808080808080ull;
  return m == 0 ? 8u : (unsigned)__builtin_ctzll(m) >> 3;
}

/* A decimal number of 1-15 digits, an optional '-' before it, ending at a
 * blank, where 17 bytes of the line are left at p (the common case: a
 * gather's address delta): its length found from whole eight-byte words, its
 * value from one or two scan_eight_digits, no loop over bytes.  0 (nothing
 * moved) for any other shape, which scan_dec then reads byte by byte. */
static inline __attribute__((always_inline)) int scan_dec_words(const char **pp, const char *end, int64_t *out) {
  static const uint64_t pow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
  const char *p = *pp;
  uint64_t x, t, v;
  unsigned n;
  int neg;
  if (!SCAN_LITTLE_ENDIAN || end - p < 17)
    return 0;
  neg = *p == '-';
  p += neg;
  x = scan_load8(p);
  t = scan_digit_bytes(x);
  n = t == 0 ? 8u : scan_leading_digits(t); /* eight digits: one test */
  if (n == 8) {
    v = scan_eight_digits(x);
    /* 8 or 9 digits (most of a wide gather's deltas): the bytes after the
     * word tested alone, cheaper than the second word's digit test. */
    if (scan_blank(p[8])) {
      n = 8;
    } else if ((unsigned)(p[8] - '0') < 10u && scan_blank(p[9])) {
      v = v * 10 + (uint64_t)(p[8] - '0');
      n = 9;
    } else {
      uint64_t y = scan_load8(p + 8);
      unsigned n2 = scan_leading_digits(scan_digit_bytes(y));
      if (n2 == 8)
        return 0;
      if (n2 > 0)
        v = v * pow10[n2] + scan_eight_digits(scan_align_digits(y, n2));
      n = 8 + n2;
    }
  } else {
    if (n == 0)
      return 0;
    v = scan_eight_digits(scan_align_digits(x, n));
  }
  if (!scan_blank(p[n]))
    return 0;
  *pp = p + n + 1;
  *out = neg ? -(int64_t)v : (int64_t)v;
  return 1;
}

/* A decimal number of 1-18 digits after an optional sign: always within
 * int64 and within the +-2^62 next_dec allows for an address delta; the
 * caller checks any narrower range. */
static inline __attribute__((always_inline)) int scan_dec(const char **pp, const char *end, int64_t *out) {
  const char *p, *digits;
  uint64_t v;
  int neg = 0;
  if (scan_dec_words(pp, end, out))
    return 1;
  p = scan_skip_blanks(*pp, end);
  if (p < end && (*p == '-' || *p == '+'))
    neg = *p++ == '-';
  digits = p;
  p = scan_digit_run(p, end, &v);
  if (p == digits || p - digits > 18 || !scan_token_end(p, end))
    return 0;
  *pp = scan_past_blank(p, end);
  *out = neg ? -(int64_t)v : (int64_t)v;
  return 1;
}

/* A register operand as register_number reads it: "R0".."R255" (at most
 * three digits) and "RZ" give their number (RZ is 255), a token that does not
 * start with R gives 255 (P0, UR4: never a dependence).  Anything else
 * (R256, R0007, "R", an R token with other bytes) is left to the checked
 * reader. */
static inline __attribute__((always_inline)) int scan_register(const char **pp, const char *end, uint8_t *out) {
  const char *p = *pp;
  unsigned n = 0;
  int digits = 0;
  /* The usual shape, with no blank before it: R and 1-3 digits then a
   * blank, all inside the line; no loop. */
  if (end - p >= 5 && *p == 'R') {
    unsigned d1 = (unsigned)(p[1] - '0'), d2 = (unsigned)(p[2] - '0'), d3 = (unsigned)(p[3] - '0');
    if (d1 < 10u && scan_blank(p[2])) {
      *pp = p + 3;
      *out = (uint8_t)d1;
      return 1;
    }
    if (d1 < 10u && d2 < 10u && scan_blank(p[3])) {
      *pp = p + 4;
      *out = (uint8_t)(d1 * 10 + d2);
      return 1;
    }
    if (d1 < 10u && d2 < 10u && d3 < 10u && scan_blank(p[4]) && d1 * 100 + d2 * 10 + d3 <= 255) {
      *pp = p + 5;
      *out = (uint8_t)(d1 * 100 + d2 * 10 + d3);
      return 1;
    }
  }
  p = scan_skip_blanks(p, end);
  if (p == end)
    return 0;
  if (*p != 'R') {
    while (p < end && !scan_blank(*p))
      p++;
    *pp = scan_past_blank(p, end);
    *out = 255;
    return 1;
  }
  p++;
  if (p < end && *p == 'Z') {
    p++;
    if (!scan_token_end(p, end))
      return 0;
    *pp = scan_past_blank(p, end);
    *out = 255;
    return 1;
  }
  while (p < end && (unsigned)(*p - '0') < 10u && digits < 3) {
    n = n * 10 + (unsigned)(*p - '0');
    p++;
    digits++;
  }
  if (digits == 0 || n > 255 || !scan_token_end(p, end))
    return 0;
  *pp = scan_past_blank(p, end);
  *out = (uint8_t)n;
  return 1;
}

/* Bit 7 of each byte of x (the first in the low byte) that is not
 * printable ASCII 0x21-0x7e: a blank, a control byte, DEL or a byte above
 * 0x7f.  No byte's test borrows or carries into the next: the low seven
 * bits with bit 7 set stay at or above 0x80 after 0x21 is taken away, and
 * reach at most 0x80 with 1 added. */
static inline __attribute__((always_inline)) uint64_t scan_unprintable(uint64_t x) {
  uint64_t high = x & 0x8080808080808080ull, low = x & 0x7f7f7f7f7f7f7f7full;
  uint64_t below = ~((low | 0x8080808080808080ull) - 0x2121212121212121ull); /* low < 0x21 */
  uint64_t del = low + 0x0101010101010101ull;                                  /* low == 0x7f */
  return (high | below | del) & 0x8080808080808080ull;
}

/* An opcode: printable ASCII up to a blank or the end.  Returns its start
 * and length, or 0 when the line ends first or a byte of the token is not
 * printable (the caller reports which).  *word gets the opcode as one
 * zero-padded word (as its PC slot keeps it) when it has at most 7 bytes
 * and a blank follows within the same eight bytes, read with one load and
 * no loop over its bytes; else 0 (longer opcodes are compared byte by
 * byte). */
static inline __attribute__((always_inline)) int scan_opcode(const char **pp, const char *end, const char **op,
                                                             size_t *len, uint64_t *word) {
  const char *p = *pp, *start;
  *word = 0;
  if (SCAN_LITTLE_ENDIAN && end - p >= 8) { /* no blank before it (n > 0) */
    uint64_t x = scan_load8(p), bad = scan_unprintable(x);
    unsigned n = bad == 0 ? 8u : (unsigned)__builtin_ctzll(bad) >> 3;
    if (n > 0 && n < 8 && scan_blank(p[n])) {
      *pp = p + n + 1;
      *op = p;
      *len = n;
      *word = x & ((1ull << (8 * n)) - 1);
      return 1;
    }
  }
  start = p = scan_skip_blanks(p, end);
  while (p < end && (unsigned)((unsigned char)*p - 0x21u) < 0x5eu)
    p++;
  if (p == start || !scan_token_end(p, end))
    return 0;
  *pp = scan_past_blank(p, end);
  *op = start;
  *len = (size_t)(p - start);
  return 1;
}

#endif
