/*
 * trace_coalesce.c -- lines and sectors of one memory instruction, computed
 * once when the kernel is loaded.
 *
 * A warp's lane addresses become the distinct 128 B lines they touch (line
 * id = byte address >> 7) and, per line, a 4-bit mask of the 32 B sectors
 * touched (bit s = bytes [32s, 32s + 32) of the line).  An access of `width`
 * bytes covers its first to its last byte, so a misaligned or wide access
 * may touch two sectors or two lines.  This is the sectored L1/L2 request
 * model of Volta and later (GPGPU-Sim's SECTOR_SIZE 32 within a 128 B line,
 * abstract_hardware_model.h); the CC 1.x rules live in memsim_coalesce.c.
 *
 * Only accesses that reach L1/L2 are coalesced (gp_op_uses_cache): shared
 * memory and constant accesses never become lines; shared addresses are kept
 * as offsets for bank-conflict modelling.
 */
#include "trace.h"

#include <string.h>

#define LINE_TABLE 128 /* open-addressing slots: more than 64 lines fit */

/* The slot of `line` in the table, or the empty slot where it would go. */
static inline uint32_t line_slot(uint64_t line, const uint8_t *slot, const uint64_t *lines) {
  uint32_t h = (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> 57);
  while (slot[h] != 0 && lines[slot[h] - 1] != line)
    h = (h + 1) & (LINE_TABLE - 1);
  return h;
}

/* The index of `line` among the first *count lines, added when new (the
 * table holds index + 1 per slot); -1 when *count lines are already held
 * and `line` would be one more (limit: the caller's cap, at most
 * LINE_TABLE - 1 so that the table never fills). */
static inline int line_index(uint64_t line, uint8_t *slot, uint64_t *lines, uint8_t *masks,
                             uint32_t *count, uint32_t limit) {
  uint32_t h = line_slot(line, slot, lines);
  if (slot[h] == 0) {
    if (*count == limit)
      return -1;
    lines[*count] = line;
    masks[*count] = 0;
    slot[h] = (uint8_t)++*count;
  }
  return slot[h] - 1;
}

int gp_coalesce(const uint64_t *addrs, uint32_t n, uint32_t width,
                uint64_t *lines, uint8_t *masks, uint32_t cap) {
  /* A 128-slot table of line -> index + 1 finds repeats in O(1); lanes that
   * hit the previous lane's line (the common case) skip even that.  `cur`
   * is the line at index `last` (none at first: no line id is UINT64_MAX,
   * ids being addresses >> 7). */
  uint8_t slot[LINE_TABLE];
  uint32_t count = 0, i, last = 0;
  uint32_t w = width ? width : 1;
  uint32_t limit = cap < LINE_TABLE - 1 ? cap : LINE_TABLE - 1;
  uint64_t cur = UINT64_MAX;
  memset(slot, 0, sizeof slot);
  for (i = 0; i < n; i++) {
    uint64_t a = addrs[i], first, end, byte;
    int j;
    if ((a & 31) + w <= 32) { /* one sector: of the previous lane's line, or looked up */
      uint8_t bit = (uint8_t)(1u << ((a >> 5) & 3));
      if (a >> 7 != cur) {
        uint32_t h = line_slot(a >> 7, slot, lines);
        cur = a >> 7;
        if (slot[h] == 0) { /* a new line (most of a gather's lanes): its mask is this sector */
          if (count == limit)
            return -1;
          lines[count] = cur;
          masks[count] = bit;
          last = count++;
          slot[h] = (uint8_t)count;
          continue;
        }
        last = slot[h] - 1u;
      }
      masks[last] = (uint8_t)(masks[last] | bit);
      continue;
    }
    first = a & ~31ull;
    end = a + w - 1;
    if (end < a) /* wraps past 2^64: clip to the last byte */
      end = UINT64_MAX;
    for (byte = first; byte <= end && byte >= first; byte += 32) {
      uint64_t line = byte >> 7;
      if (line != cur) {
        j = line_index(line, slot, lines, masks, &count, limit);
        if (j < 0)
          return -1;
        last = (uint32_t)j;
        cur = line;
      }
      masks[last] = (uint8_t)(masks[last] | (1u << ((byte >> 5) & 3)));
      if (byte > UINT64_MAX - 32)
        break;
    }
  }
  return (int)count;
}

/* Whether lanes base + i x stride (n > 0 of them, `width` bytes each) can be
 * coalesced from their two ends: 0 <= stride <= 32 and no byte past 2^64. */
static int strided_shortcut(uint64_t base, uint32_t n, uint32_t width, int64_t stride) {
  uint32_t w = width ? width : 1;
  if (n == 0 || stride < 0 || stride > 32)
    return 0;
  return base <= UINT64_MAX - ((uint64_t)stride * (n - 1) + (w - 1));
}

int gp_coalesce_strided(const uint64_t *addrs, uint32_t n, uint32_t width, int64_t stride,
                        uint64_t *lines, uint8_t *masks, uint32_t cap) {
  uint32_t w = width ? width : 1, count = 0;
  uint64_t span, sector, last_sector;
  if (n == 0 || !strided_shortcut(addrs[0], n, width, stride))
    return gp_coalesce(addrs, n, width, lines, masks, cap);
  span = (uint64_t)stride * (n - 1) + (w - 1); /* first lane's first byte to last lane's last */
  /* Each lane starts at most one sector after the previous lane's start, so
   * no sector in between is skipped, and lines appear in ascending order. */
  last_sector = (addrs[0] + span) >> 5;
  for (sector = addrs[0] >> 5; sector <= last_sector; sector++) {
    if (count == 0 || lines[count - 1] != sector >> 2) {
      if (count == cap || count == LINE_TABLE - 1)
        return -1;
      lines[count] = sector >> 2;
      masks[count++] = 0;
    }
    masks[count - 1] = (uint8_t)(masks[count - 1] | (1u << (sector & 3)));
  }
  return (int)count;
}

/* Bits set in n 4-bit sector masks: eight masks at a time as one word
 * (bits summed in pairs, then in nibbles, then the bytes by a multiply),
 * the last n % 8 one by one. */
static uint32_t sectors_of(const uint8_t *masks, uint32_t n) {
  static const uint8_t bits[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  uint32_t i = 0, sum = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    memcpy(&x, masks + i, sizeof x);
    x &= 0x0f0f0f0f0f0f0f0full;
    x = (x & 0x0505050505050505ull) + ((x >> 1) & 0x0505050505050505ull);
    x = (x & 0x0303030303030303ull) + ((x >> 2) & 0x0303030303030303ull);
    sum += (uint32_t)((x * 0x0101010101010101ull) >> 56);
  }
  for (; i < n; i++)
    sum += bits[masks[i] & 15u];
  return sum;
}

/* Room for `need` lines: lines and sector_masks share one capacity, grown
 * together (masks first) by doubling. */
int gp_kernel_reserve_lines(gp_kernel *k, size_t need) {
  size_t cap = k->cap_lines < 64 ? 64 : k->cap_lines;
  uint64_t *l;
  uint8_t *m;
  if (need <= k->cap_lines)
    return GP_OK;
  while (cap < need)
    cap *= 2;
  if (cap > SIZE_MAX / sizeof *k->lines)
    return GP_ERR;
  m = gp_realloc(&k->alloc, k->sector_masks, k->cap_lines, cap);
  if (m == NULL)
    return GP_ERR;
  k->sector_masks = m;
  l = gp_realloc(&k->alloc, k->lines, k->cap_lines * sizeof *k->lines, cap * sizeof *k->lines);
  if (l == NULL) { /* shrink the masks back so both agree with cap_lines */
    m = gp_realloc(&k->alloc, k->sector_masks, cap, k->cap_lines);
    if (m != NULL || k->cap_lines == 0)
      k->sector_masks = m;
    return GP_ERR;
  }
  k->lines = l;
  k->cap_lines = cap;
  return GP_OK;
}

/* Appends n coalesced lines to the kernel's pools for rec (n < 0: too
 * many lines, returned as -1). */
static int append_lines(gp_kernel *k, gp_mem_record *rec, const uint64_t *lines,
                        const uint8_t *masks, int n) {
  uint32_t i;
  if (n < 0)
    return -1;
  if ((size_t)k->line_count + (size_t)n > k->cap_lines &&
      gp_kernel_reserve_lines(k, (size_t)k->line_count + (size_t)n) != GP_OK)
    return -2;
  rec->line_start = k->line_count;
  rec->line_count = (uint8_t)n;
  for (i = 0; i < (uint32_t)n; i++) {
    k->lines[k->line_count + i] = lines[i];
    k->sector_masks[k->line_count + i] = masks[i];
  }
  k->line_count += (uint32_t)n;
  rec->sector_count = (uint16_t)sectors_of(masks, (uint32_t)n);
  return 0;
}

/* The lines of rec into lines/masks (room for GP_MAX_LINES_PER_INST): from
 * the two ends of a strided record where that is exact, else lane by lane. */
static int coalesce_record(const gp_kernel *k, const gp_mem_record *rec, uint32_t width,
                           uint64_t *lines, uint8_t *masks) {
  uint64_t buf[32];
  if (rec->lanes == GP_LANES_STRIDED && rec->addr_count > 0 &&
      strided_shortcut(k->addresses[rec->addr_start], rec->addr_count, width, rec->stride))
    return gp_coalesce_strided(k->addresses + rec->addr_start, rec->addr_count, width, rec->stride,
                               lines, masks, GP_MAX_LINES_PER_INST);
  return gp_coalesce(gp_mem_lanes(k, rec, buf), rec->addr_count, width, lines, masks,
                     GP_MAX_LINES_PER_INST);
}

int gp_kernel_add_lines(gp_kernel *k, gp_mem_record *rec, uint32_t width) {
  uint64_t lines[GP_MAX_LINES_PER_INST];
  uint8_t masks[GP_MAX_LINES_PER_INST];
  int n;
  /* The common case: the pools have room for the most lines an access can
   * touch (the parser reserves them ahead), so the lines are written in
   * place, not into a local array and copied.  Otherwise the pools grow by
   * exactly what the access needs, as before (their capacity counts against
   * a compressed launch's memory cap). */
  if ((size_t)k->line_count + GP_MAX_LINES_PER_INST > k->cap_lines)
    return append_lines(k, rec, lines, masks, coalesce_record(k, rec, width, lines, masks));
  n = coalesce_record(k, rec, width, k->lines + k->line_count, k->sector_masks + k->line_count);
  if (n < 0)
    return -1;
  rec->line_start = k->line_count;
  rec->line_count = (uint8_t)n;
  rec->sector_count = (uint16_t)sectors_of(k->sector_masks + k->line_count, (uint32_t)n);
  k->line_count += (uint32_t)n;
  return 0;
}
