/*
 * memsim_coalesce.c -- from lane addresses to memory requests: the 128 B
 * line coalescer over an active mask, compute capability 1.x half-warp
 * transactions (both rules of the CUDA C Programming Guide), and
 * shared-memory bank passes.
 */
#include "memsim.h"

#include <string.h>

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

/*
 * Compacts the active lanes (bit l of `active` = lane l) and coalesces them
 * with the trace reader's line coalescer (gp_coalesce: every access covers
 * its first to its last byte; one request per distinct 128 B line with the
 * mask of 32 B sectors it touches).  addrs holds 32 entries, one per lane.
 */
int gp_coalesce_active(const uint64_t *addrs, uint32_t active, uint32_t width,
                       uint64_t *lines, uint8_t *masks, uint32_t cap) {
  uint64_t packed[32];
  uint32_t n = 0, l;
  for (l = 0; l < 32; l++)
    if (active & (1u << l))
      packed[n++] = addrs[l];
  return gp_coalesce(packed, n, width, lines, masks, cap);
}

/*
 * Shared memory: bank = (address / bank_bytes) mod banks.  Lanes touching
 * different words of one bank serialise; lanes touching the same word are
 * served together (broadcast).  The access takes as many passes as the
 * busiest bank has distinct words (an access wider than a bank word covers
 * several consecutive words).  The words are sorted (lanes usually come in
 * address order, so the insertion sort rarely moves anything) and counted
 * per bank once each.
 */
/* x / d, by a shift when d is a power of two (every preset's bank width
 * and bank count): the divisions were most of this function's time. */
static inline uint64_t divide(uint64_t x, uint64_t d, int shift) {
  return shift >= 0 ? x >> shift : x / d;
}

/* log2(d) when d is a power of two, else -1. */
static int power_of_two(uint64_t d) {
  if (d == 0 || (d & (d - 1)) != 0)
    return -1;
  return __builtin_ctzll(d);
}

/* The greatest common divisor of a and b (Euclid). */
static uint64_t gcd(uint64_t a, uint64_t b) {
  while (b != 0) {
    uint64_t r = a % b;
    a = b, b = r;
  }
  return a;
}

/* The passes of m >= 2 lanes at a constant stride (the shared accesses of
 * most kernels: lane i at offsets[0] + i x d), into *passes; 0 when the
 * lanes are not such a stride (the caller counts them word by word).  The
 * stride must be whole bank words of 2^word_shift bytes (d = s words) and
 * every lane's span bytes within one word: lane i then touches word
 * w0 + i x s, its bank (w0 + i x s) mod banks repeats every P = banks /
 * gcd(s, banks) lanes with the P banks of a period distinct, so the
 * busiest bank has ceil(m / P) distinct words (s = 0: every lane on one
 * word, a broadcast, one pass).  What the words' count gives, bit for bit
 * (test_bank_conflicts_strided), at about 5 instructions a lane instead of
 * about 20 (the bank passes of the suite's kernels, counted once a kernel,
 * were 14 % of their replays at the base point). */
static int strided_passes(const uint64_t *offsets, uint32_t m, uint64_t span, int word_shift,
                          uint32_t banks, uint32_t *passes) {
  uint64_t o0 = offsets[0], d = offsets[1] - offsets[0], expect, s, period, off_stride = 0;
  uint64_t word_mask = ((uint64_t)1 << word_shift) - 1;
  uint32_t i;
  /* not whole words, a lane across words, or past 2^64 (descending lanes
   * too: their d wraps to above 2^64 - offsets[0]) */
  if ((d & word_mask) != 0 || o0 > UINT64_MAX - span || (o0 & word_mask) + span > word_mask ||
      d > (UINT64_MAX - o0 - span) / (m - 1))
    return 0;
  i = 2, expect = o0 + 2 * d;
#if defined(__SSE2__) && defined(__x86_64__) /* _mm_cvtsi128_si64: 64-bit hosts */
  {
    /* four lanes a step, two in each of two registers: under 3
     * instructions a lane instead of about 6 (the suite's shared lanes
     * are lists, checked here once a replay: prepare_cost's replay
     * 755.6 -> 745.1 M instructions) */
    __m128i lo = _mm_set_epi64x((long long)(expect + d), (long long)expect);
    __m128i hi = _mm_add_epi64(lo, _mm_set1_epi64x((long long)(2 * d)));
    __m128i step = _mm_set1_epi64x((long long)(4 * d)), acc0 = _mm_setzero_si128(), acc1 = acc0;
    for (; i + 4 <= m; i += 4, expect += 4 * d) {
      acc0 = _mm_or_si128(acc0, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(offsets + i)), lo));
      acc1 = _mm_or_si128(acc1, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(offsets + i + 2)), hi));
      lo = _mm_add_epi64(lo, step);
      hi = _mm_add_epi64(hi, step);
    }
    acc0 = _mm_or_si128(acc0, acc1);
    off_stride = (uint64_t)_mm_cvtsi128_si64(acc0) | (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(acc0, acc0));
  }
#endif
  for (; i < m; i++, expect += d)
    off_stride |= offsets[i] ^ expect; /* one branch after the lanes */
  if (off_stride != 0)
    return 0;
  s = d >> word_shift;
  period = s == 0 ? m : banks / gcd(s % banks, banks);
  *passes = (uint32_t)((m + period - 1) / period);
  return 1;
}

/* The passes counted word by word (gp_shared_passes past the stride rule;
 * banks in 1..256, bank_bytes above 0).  A call of its own: its arrays
 * (6 KB) and registers were set up for every access, strided ones too. */
static __attribute__((noinline)) uint32_t words_passes(const uint64_t *offsets, uint32_t n,
                                                       uint32_t width, uint32_t banks,
                                                       uint32_t bank_bytes, int word_shift) {
  uint64_t words[512]; /* 32 lanes x at most 16 words each */
  uint32_t count[256], m = 0, worst = 0, i, j;
  int bank_shift = power_of_two(banks);
  uint64_t bank_mask = (uint64_t)banks - 1;
  uint64_t span = (width ? width : 1) - 1, prev = 0;
  /* the usual case first: one word each, in order (power-of-two words) */
  for (i = 0; word_shift >= 0 && i < n && i < 32; i++) {
    uint64_t first = offsets[i] >> word_shift;
    if ((offsets[i] + span) >> word_shift != first || first < prev)
      break;
    words[m++] = prev = first;
  }
  for (; i < n && i < 32; i++) {
    uint64_t first = divide(offsets[i], bank_bytes, word_shift);
    uint64_t last = divide(offsets[i] + (width ? width : 1) - 1, bank_bytes, word_shift);
    uint64_t word;
    if (last == first && (m == 0 || words[m - 1] <= first)) { /* in order: the usual case */
      words[m++] = first;
      continue;
    }
    for (word = first; word <= last && word - first < 16; word++) {
      for (j = m; j > 0 && words[j - 1] > word; j--)
        words[j] = words[j - 1];
      words[j] = word;
      m++;
    }
  }
  if (m == 0)
    return 0;
  /* the words (sorted) lie within `banks` consecutive words: each distinct
   * word in a bank of its own, lanes on one word served together (a
   * broadcast): one pass */
  if (words[m - 1] - words[0] < banks)
    return 1;
  memset(count, 0, banks * sizeof *count);
  for (j = 0; j < m; j++)
    if (j == 0 || words[j] != words[j - 1]) {
      uint32_t b = (uint32_t)(bank_shift >= 0 ? words[j] & bank_mask : words[j] % banks);
      if (++count[b] > worst)
        worst = count[b];
    }
  return worst;
}

uint32_t gp_shared_passes(const uint64_t *offsets, uint32_t n, uint32_t width,
                          uint32_t banks, uint32_t bank_bytes) {
  int word_shift = power_of_two(bank_bytes);
  uint32_t passes;
  if (banks == 0 || banks > 256 || bank_bytes == 0)
    return n > 0;
  if (word_shift >= 0 && n >= 2 &&
      strided_passes(offsets, n < 32 ? n : 32, (uint64_t)(width ? width : 1) - 1, word_shift,
                     banks, &passes))
    return passes;
  return words_passes(offsets, n, width, banks, bank_bytes, word_shift);
}

/*
 * CC 1.2/1.3 (CUDA C Programming Guide 4.2, App. F.3.2.2): take the segment
 * holding the lowest active lane's address (32 B for 1-byte words, 64 B for
 * 2-byte, 128 B for 4-, 8- and 16-byte words), serve every lane in it with
 * one transaction, reduce 128 -> 64 -> 32 B while only the lower or upper
 * half is used, repeat with the remaining lanes.  Segments come out in the
 * order of their lowest lane, as the guide's loop visits them.
 */
uint32_t gp_coalesce_cc1x(const uint64_t *addrs, uint32_t n, uint32_t width,
                          uint64_t *txn_addr, uint32_t *txn_bytes) {
  uint32_t segment = width == 1 ? 32 : width == 2 ? 64 : 128, count = 0, i;
  uint64_t seen[16];
  for (i = 0; i < n && i < 16; i++) {
    uint64_t seg = addrs[i] / segment;
    uint32_t j;
    for (j = 0; j < count && seen[j] != seg; j++)
      ;
    if (j == count)
      seen[count++] = seg;
  }
  /* For each segment: the smallest aligned 32/64/128 B piece holding the
   * bytes the half-warp uses in it. */
  for (i = 0; i < count; i++) {
    uint64_t lo = UINT64_MAX, hi = 0, size;
    uint32_t j;
    for (j = 0; j < n && j < 16; j++) {
      uint64_t end;
      if (addrs[j] / segment != seen[i])
        continue;
      end = addrs[j] + (width ? width : 1) - 1;
      if (end / segment != seen[i]) /* a misaligned word: clip to the segment */
        end = seen[i] * segment + segment - 1;
      if (addrs[j] < lo)
        lo = addrs[j];
      if (end > hi)
        hi = end;
    }
    size = segment;
    while (size > 32 && lo / (size / 2) == hi / (size / 2))
      size /= 2;
    txn_addr[i] = lo / size * size;
    txn_bytes[i] = (uint32_t)size;
  }
  return count;
}

/*
 * CC 1.0/1.1, the strict rule (CUDA C Programming Guide 4.2, App. F.3.2.1):
 * a half-warp coalesces when its words are 4, 8 or 16 bytes, all lie in one
 * aligned segment (64 B for 4-byte words, 128 B for 8-byte words, two
 * consecutive 128 B segments for 16-byte words: lanes 0-7 in the first,
 * 8-15 in the second) and the k-th lane reads the k-th word of it; it then
 * takes one 64 B, one 128 B or two 128 B transactions.  Otherwise every
 * lane gets its own 32 B transaction (16 with every lane active).
 *
 * The trace keeps only the active lanes' addresses, in lane order, so with
 * n < 16 the k-th-word test is relaxed to "aligned words in strictly
 * increasing word order inside the segment" (some placement of the
 * inactive lanes satisfies the rule; the guide: inactive lanes do not
 * break coalescing).
 */
uint32_t gp_coalesce_cc10(const uint64_t *addrs, uint32_t n, uint32_t width,
                          uint64_t *txn_addr, uint32_t *txn_bytes) {
  uint64_t base;
  uint32_t i, ok = n > 0 && (width == 4 || width == 8 || width == 16);
  uint32_t span = width == 4 ? 64 : 256; /* bytes of the 16 words */
  if (n > 16)
    n = 16;
  base = n > 0 ? addrs[0] / span * span : 0;
  for (i = 0; ok && i < n; i++) {
    uint64_t a = addrs[i];
    if (a % width != 0 || a < base || a >= base + span)
      ok = 0;
    else if (n == 16 && (a - base) / width != i)
      ok = 0; /* all lanes active: the k-th lane reads exactly the k-th word */
    else if (i > 0 && a <= addrs[i - 1])
      ok = 0;
  }
  if (ok) {
    txn_addr[0] = base;
    txn_bytes[0] = width == 4 ? 64 : 128;
    if (width != 16)
      return 1;
    txn_addr[1] = base + 128;
    txn_bytes[1] = 128;
    return 2;
  }
  for (i = 0; i < n; i++) {
    txn_addr[i] = addrs[i] / 32 * 32;
    txn_bytes[i] = 32;
  }
  return n;
}

/*
 * A warp's CC 1.x transactions as line requests, half-warp by half-warp
 * (addresses 0-15, then 16-31: the trace keeps active lanes' addresses in
 * order, so with inactive lanes the split is approximate).  Transactions
 * are aligned to their size (32/64/128 B), so each lies in one 128 B line;
 * its mask holds the 32 B sectors it covers.  rule: GP_CC1X_12 or
 * GP_CC1X_10.  Returns the count (at most 32).
 */
uint32_t gp_cc1x_requests_rule(const uint64_t *addrs, uint32_t n, uint32_t width, int rule,
                               uint64_t *lines, uint8_t *masks) {
  uint32_t count = 0, half;
  for (half = 0; half * 16 < n && half < 2; half++) {
    uint64_t addr[16];
    uint32_t bytes[16], t, m = n - half * 16 < 16 ? n - half * 16 : 16;
    uint32_t txns = rule == GP_CC1X_10
                        ? gp_coalesce_cc10(addrs + half * 16, m, width, addr, bytes)
                        : gp_coalesce_cc1x(addrs + half * 16, m, width, addr, bytes);
    for (t = 0; t < txns; t++) {
      uint32_t first = (uint32_t)((addr[t] >> 5) & 3), sectors = bytes[t] / 32;
      lines[count] = addr[t] >> 7;
      masks[count++] = (uint8_t)(((1u << sectors) - 1u) << first);
    }
  }
  return count;
}

uint32_t gp_cc1x_requests(const uint64_t *addrs, uint32_t n, uint32_t width,
                          uint64_t *lines, uint8_t *masks) {
  return gp_cc1x_requests_rule(addrs, n, width, GP_CC1X_12, lines, masks);
}
