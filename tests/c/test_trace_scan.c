/* The scanners of trace_scan.h: the word-at-a-time paths (decimal numbers,
 * registers) give what a byte-by-byte reading of the same token gives, on
 * worked examples and on seeded random tokens at every distance from the
 * line's end; the hex scanner's shortcuts (four digits, words of 0 or f)
 * and the opcode's word path give the byte-by-byte token.  The parser's
 * inline line splitter (trace_io.h) gives the lines, lengths and line
 * numbers a byte-by-byte split gives. */
#define _POSIX_C_SOURCE 200809L

#include "gp_test.h"
#include "trace_io.h"
#include "trace_scan.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The decimal token at p read byte by byte, as scan_dec read it before it
 * had a word path: blanks, a sign, 1-18 digits, then a blank or the end. */
static int ref_dec(const char **pp, const char *end, int64_t *out) {
  const char *p = *pp, *digits;
  uint64_t v = 0;
  int neg = 0;
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (p < end && (*p == '-' || *p == '+'))
    neg = *p++ == '-';
  digits = p;
  while (p < end && *p >= '0' && *p <= '9')
    v = v * 10 + (uint64_t)(*p++ - '0');
  if (p == digits || p - digits > 18 || (p < end && *p != ' ' && *p != '\t'))
    return 0;
  *pp = p < end ? p + 1 : p;
  *out = neg ? -(int64_t)v : (int64_t)v;
  return 1;
}

/* The register token at p read byte by byte: R0-R255 with at most three
 * digits, RZ (255), or any token not starting with R (255). */
static int ref_register(const char **pp, const char *end, uint8_t *out) {
  const char *p = *pp;
  unsigned n = 0;
  int digits = 0;
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (p == end)
    return 0;
  if (*p != 'R') {
    while (p < end && *p != ' ' && *p != '\t')
      p++;
    *pp = p < end ? p + 1 : p;
    *out = 255;
    return 1;
  }
  p++;
  if (p < end && *p == 'Z') {
    p++;
    if (p < end && *p != ' ' && *p != '\t')
      return 0;
    *pp = p < end ? p + 1 : p;
    *out = 255;
    return 1;
  }
  while (p < end && *p >= '0' && *p <= '9' && digits < 3) {
    n = n * 10 + (unsigned)(*p++ - '0');
    digits++;
  }
  if (digits == 0 || n > 255 || (p < end && *p != ' ' && *p != '\t'))
    return 0;
  *pp = p < end ? p + 1 : p;
  *out = (uint8_t)n;
  return 1;
}

/* The hex token at p read byte by byte, as next_hex reads a well-formed
 * one: blanks, an optional 0x, 1-16 hex digits, then a blank or the end. */
static int ref_hex(const char **pp, const char *end, uint64_t *out) {
  const char *p = *pp, *digits;
  uint64_t v = 0;
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    p += 2;
  digits = p;
  while (p < end && isxdigit((unsigned char)*p)) {
    v = (v << 4) | (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' : (*p | 0x20) - 'a' + 10);
    p++;
  }
  if (p == digits || p - digits > 16 || (p < end && *p != ' ' && *p != '\t'))
    return 0;
  *pp = p < end ? p + 1 : p;
  *out = v;
  return 1;
}

/* The opcode token at p read byte by byte: printable ASCII 0x21-0x7e up to
 * a blank or the end. */
static int ref_opcode(const char **pp, const char *end, const char **op, size_t *len) {
  const char *p = *pp, *start;
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  start = p;
  while (p < end && (unsigned char)*p >= 0x21 && (unsigned char)*p <= 0x7e)
    p++;
  if (p == start || (p < end && *p != ' ' && *p != '\t'))
    return 0;
  *pp = p < end ? p + 1 : p;
  *op = start;
  *len = (size_t)(p - start);
  return 1;
}

/* scan_dec on the first `len` bytes of text (the rest of the buffer is
 * there, as a line's next bytes are): 1 when it accepts, with the value and
 * how far it moved. */
static int dec_of(const char *text, size_t len, int64_t *v, long *moved) {
  const char *p = text;
  int ok = scan_dec(&p, text + len, v);
  *moved = (long)(p - text);
  return ok;
}

static void test_dec_by_hand(void) {
  static const char line[] = "-63418840 70870960 197117668 123456789012345 1234567890123456 7 -0 +3 12a 0";
  int64_t v = 0;
  long moved = 0;
  CHECK(dec_of(line, strlen(line), &v, &moved));
  CHECK_EQ_INT(v, -63418840);
  CHECK_EQ_INT(moved, 10);
  CHECK(dec_of(line + 10, strlen(line) - 10, &v, &moved));
  CHECK_EQ_INT(v, 70870960);
  CHECK(dec_of(line + 19, strlen(line) - 19, &v, &moved));
  CHECK_EQ_INT(v, 197117668);
  CHECK_EQ_INT(moved, 10);
  CHECK(dec_of(line + 29, strlen(line) - 29, &v, &moved)); /* 15 digits: two words */
  CHECK(v == 123456789012345ll);
  CHECK(dec_of(line + 45, strlen(line) - 45, &v, &moved)); /* 16 digits: byte by byte */
  CHECK(v == 1234567890123456ll);
  CHECK_EQ_INT(moved, 17);
  CHECK(dec_of(line + 62, strlen(line) - 62, &v, &moved));
  CHECK_EQ_INT(v, 7);
  CHECK(dec_of(line + 64, strlen(line) - 64, &v, &moved));
  CHECK_EQ_INT(v, 0);
  CHECK(dec_of(line + 67, strlen(line) - 67, &v, &moved)); /* + only byte by byte */
  CHECK_EQ_INT(v, 3);
  CHECK(!dec_of(line + 70, strlen(line) - 70, &v, &moved)); /* 12a */
  CHECK(dec_of("5", 1, &v, &moved));                          /* ends the line */
  CHECK_EQ_INT(v, 5);
  CHECK_EQ_INT(moved, 1);
}

/* One random token of bytes a number's text is made of (and a few that end
 * or spoil one), padded with more such bytes after it. */
static void random_text(char *buf, size_t size) {
  static const char alphabet[] = "0123456789000111999--+  \t\tRZRRax\x7f\xff";
  size_t i;
  for (i = 0; i < size; i++)
    buf[i] = alphabet[(size_t)rand() % (sizeof alphabet - 1)];
  if (rand() % 2) { /* mostly digits: the word paths' lengths */
    size_t run = (size_t)rand() % 20, at = (size_t)rand() % 3;
    for (i = at; i < at + run && i < size; i++)
      buf[i] = (char)('0' + rand() % 10);
    if (i < size)
      buf[i] = rand() % 4 ? ' ' : '\t';
  }
  if (rand() % 3 == 0)
    buf[0] = 'R';
}

static void test_random_tokens_match_bytewise(void) {
  char buf[40];
  int i, accepted = 0, cases = 200000;
  srand(30);
  for (i = 0; i < cases; i++) {
    size_t len = (size_t)rand() % sizeof buf;
    const char *p = buf, *q = buf;
    int64_t v = 0, w = 0;
    uint8_t r = 0, s = 0;
    int a, b;
    random_text(buf, sizeof buf);
    a = scan_dec(&p, buf + len, &v);
    b = ref_dec(&q, buf + len, &w);
    CHECK_EQ_INT(a, b);
    if (a && b) {
      CHECK(v == w);
      CHECK(p == q);
      accepted++;
    }
    p = q = buf;
    a = scan_register(&p, buf + len, &r);
    b = ref_register(&q, buf + len, &s);
    CHECK_EQ_INT(a, b);
    if (a && b) {
      CHECK_EQ_INT(r, s);
      CHECK(p == q);
    }
    if (gp_test_failed > 20)
      break;
  }
  CHECK(accepted > cases / 10);
}

/* Opcode tokens of 1-12 bytes of printable text, blanks, control bytes, DEL
 * and bytes above 0x7f, at every distance from the line's end: scan_opcode
 * gives the byte-by-byte token, and its word is the token zero-padded
 * whenever it has one. */
static void test_opcode_matches_bytewise(void) {
  static const char alphabet[] = "FFMALDG.E0123SYNC  \t\t\x01\x7f\x80\xff~!";
  char buf[32];
  int i, words = 0, cases = 100000;
  srand(31);
  for (i = 0; i < cases; i++) {
    size_t len = (size_t)rand() % sizeof buf, j, run = 1 + (size_t)rand() % 12;
    const char *p = buf, *q = buf, *op = NULL, *rop = NULL;
    size_t n = 0, rn = 0;
    uint64_t word = 1;
    int a, b;
    for (j = 0; j < sizeof buf; j++)
      buf[j] = alphabet[(size_t)rand() % (sizeof alphabet - 1)];
    if (rand() % 2) { /* mostly an opcode's letters, then a blank */
      for (j = 0; j < run && j < sizeof buf; j++)
        buf[j] = (char)('A' + rand() % 26);
      if (j < sizeof buf)
        buf[j] = rand() % 4 ? ' ' : '\t';
    }
    a = scan_opcode(&p, buf + len, &op, &n, &word);
    b = ref_opcode(&q, buf + len, &rop, &rn);
    CHECK_EQ_INT(a, b);
    if (a && b) {
      CHECK(p == q);
      CHECK(op == rop);
      CHECK(n == rn);
      if (word != 0) {
        uint64_t padded = 0;
        CHECK(n <= 7);
        memcpy(&padded, op, n);
        CHECK(word == padded);
        words++;
      }
    }
    if (gp_test_failed > 20)
      break;
  }
  CHECK(words > cases / 10);
}

/* Hex tokens of PCs, masks and addresses (runs of 1-20 digits, 0x, the
 * eight-digit words of 0 and f, upper case, bytes that spoil a token) at
 * every distance from the line's end: scan_hex gives the byte-by-byte
 * value, or leaves the token to the checked reader. */
static void test_hex_matches_bytewise(void) {
  static const char alphabet[] = "0123456789abcdefABCDEFf0f0x  \t\x7f\xffgR";
  char buf[40];
  int i, accepted = 0, addresses = 0, cases = 200000;
  srand(32);
  for (i = 0; i < cases; i++) {
    size_t len = (size_t)rand() % sizeof buf, j, at = (size_t)rand() % 3, run = (size_t)rand() % 21;
    const char *p = buf, *q = buf;
    uint64_t v = 0, w = 0;
    int a, b;
    for (j = 0; j < sizeof buf; j++)
      buf[j] = alphabet[(size_t)rand() % (sizeof alphabet - 1)];
    if (rand() % 2) { /* mostly a number: digits, often 0 or f, then a blank */
      int kind = rand() % 3;
      for (j = at; j < at + run && j < sizeof buf; j++)
        buf[j] = kind == 0 ? '0' : kind == 1 ? 'f' : "0123456789abcdefABCDEF"[rand() % 22];
      if (j < sizeof buf)
        buf[j] = rand() % 4 ? ' ' : '\t';
      if (rand() % 3 == 0 && at + 1 < sizeof buf) {
        buf[at] = '0';
        buf[at + 1] = rand() % 2 ? 'x' : 'X';
        if (rand() % 2 && at + 18 < sizeof buf) { /* an address: 0x and 12 or 16 digits */
          size_t n = rand() % 2 ? 12 : 16;
          for (j = at + 2; j < at + 2 + n; j++)
            buf[j] = rand() % 3 ? "0123456789abcdefABCDEF"[rand() % 22] : '0';
          buf[j] = rand() % 8 ? ' ' : 'g';
        }
      }
    }
    a = scan_hex(&p, buf + len, &v);
    b = ref_hex(&q, buf + len, &w);
    CHECK_EQ_INT(a, b);
    if (a && b) {
      CHECK(v == w);
      CHECK(p == q);
      accepted++;
    }
    p = buf;
    v = 0;
    if (scan_address(&p, buf + len, &v)) { /* only what scan_hex reads, the same */
      CHECK(b);
      CHECK(v == w);
      CHECK(p == q);
      addresses++;
    }
    if (gp_test_failed > 20)
      break;
  }
  CHECK(accepted > cases / 10);
  CHECK(addresses > 100);
}

/* Worked examples: a 7-byte opcode by its word, an 8-byte one and one at
 * the line's end byte by byte, DEL inside a token refused. */
static void test_opcode_by_hand(void) {
  const char *line = "LDG.E64 BAR.SYNC X\x7fY IADD3 ", *end = line + strlen(line), *p = line, *op;
  size_t n;
  uint64_t w;
  CHECK(scan_opcode(&p, end, &op, &n, &w));
  CHECK(n == 7 && memcmp(op, "LDG.E64", 7) == 0 && w != 0 && memcmp(&w, "LDG.E64", 7) == 0);
  CHECK(scan_opcode(&p, end, &op, &n, &w));
  CHECK(n == 8 && memcmp(op, "BAR.SYNC", 8) == 0 && w == 0);
  CHECK(!scan_opcode(&p, end, &op, &n, &w)); /* X DEL Y: not printable */
  p = line + 21;
  CHECK(scan_opcode(&p, end, &op, &n, &w)); /* IADD3, 6 bytes left: byte by byte */
  CHECK(n == 5 && w == 0 && p == end);
}

static void test_register_by_hand(void) {
  static const char line[] = "R12 R255 R256 R007 RZ P3 UR4 R1a R 5";
  const char *p = line, *end = line + strlen(line);
  uint8_t r = 0;
  CHECK(scan_register(&p, end, &r));
  CHECK_EQ_INT(r, 12);
  CHECK(scan_register(&p, end, &r));
  CHECK_EQ_INT(r, 255);
  CHECK(!scan_register(&p, end, &r)); /* R256: the checked reader's error */
  p += 5;
  CHECK(scan_register(&p, end, &r));
  CHECK_EQ_INT(r, 7);
  CHECK(scan_register(&p, end, &r)); /* RZ */
  CHECK_EQ_INT(r, 255);
  CHECK(scan_register(&p, end, &r)); /* P3 */
  CHECK_EQ_INT(r, 255);
  CHECK(scan_register(&p, end, &r)); /* UR4 */
  CHECK_EQ_INT(r, 255);
  CHECK(!scan_register(&p, end, &r)); /* R1a */
}

/* gp_line_next_inline against a byte-by-byte split of the same text, on
 * seeded lines of 0-299 bytes (carriage returns before some newlines, a
 * lone one inside others, a last line without a newline) over 3 MB, so
 * that lines cross the 1 MB read buffer's refills; the split alternates
 * with gp_line_next, which the inline path must leave where it expects;
 * from the file and from the same bytes in memory. */
static void test_inline_line_split_matches_bytewise(void) {
  char path[] = "/tmp/gpush_lines_XXXXXX";
  size_t size = 3u << 20, at = 0, i, got_len;
  char *text = malloc(size);
  uint64_t state = 2026, lines = 0;
  gp_alloc alloc = gp_alloc_default();
  gp_line_input *in = NULL;
  gp_line_window *w;
  gp_error err;
  const char *got;
  int fd, r, mismatches = 0, source;
  while (at < size) {
    size_t n;
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    n = (size_t)((state >> 33) % 300);
    for (i = 0; i < n && at < size; i++) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      text[at++] = (state >> 40) % 97 == 0 ? '\r' : (char)(' ' + (state >> 33) % 95);
    }
    if (at < size && (state >> 20) % 5 == 0)
      text[at++] = '\r';
    if (at < size - 1) /* the last line has no newline */
      text[at++] = '\n';
  }
  fd = mkstemp(path);
  CHECK(fd >= 0 && write(fd, text, size) == (ssize_t)size);
  close(fd);
  for (source = 0; source < 2; source++) { /* the file, then the same bytes in memory */
    in = NULL;
    if (source == 0)
      CHECK(gp_line_open(&in, &alloc, path, NULL, &err) == GP_OK);
    else
      CHECK(gp_line_open_buffer(&in, &alloc, text, size, "mem", &err) == GP_OK);
    if (in == NULL)
      break;
    w = gp_line_window_of(in);
    lines = 0, mismatches = 0;
    for (at = 0; at < size;) {
      const char *nl = memchr(text + at, '\n', size - at);
      size_t end = nl != NULL ? (size_t)(nl - text) : size, want = end - at;
      if (want > 0 && text[end - 1] == '\r')
        want--;
      r = lines % 7 == 3 ? gp_line_next(in, &got, &got_len, &err)
                         : gp_line_next_inline(in, w, &got, &got_len, &err);
      lines++;
      if (r != 1 || got_len != want || memcmp(got, text + at, want) != 0 ||
          gp_line_number(in) != lines)
        mismatches++;
      at = end + 1;
    }
    CHECK_EQ_INT(mismatches, 0);
    CHECK(lines > 15000);
    CHECK_EQ_INT(gp_line_next_inline(in, w, &got, &got_len, &err), 0);
    gp_line_close(in);
  }
  unlink(path);
  free(text);
}

int main(void) {
  RUN(test_dec_by_hand);
  RUN(test_register_by_hand);
  RUN(test_random_tokens_match_bytewise);
  RUN(test_hex_matches_bytewise);
  RUN(test_opcode_by_hand);
  RUN(test_opcode_matches_bytewise);
  RUN(test_inline_line_split_matches_bytewise);
  return gp_test_finish();
}
