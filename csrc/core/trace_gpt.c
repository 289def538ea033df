/*
 * trace_gpt.c -- the .gpt binary kernel: written once, read into memory on load.
 *
 * Layout (little-endian, every section 64-byte aligned):
 *   header   gpt_header below: magic "GPUSHGPT", format version, byte-order
 *            mark, the kernel's scalar fields, and per section its offset
 *            and length in bytes
 *   sections warp_start u64[warps], warp_len u32[warps], op_class u8[insts],
 *            active u8[], flags u8[], width u8[], pc_index u32[],
 *            deps u16[GP_DEPS x insts], mem u32[], mem_records gp_mem_record[],
 *            addresses u64[], lines u64[], sector_masks u8[],
 *            statics gp_static_inst[], strings char[]
 * The records are the C structs of trace.h as laid out on LP64 ABIs (sizes
 * checked below).  Two 64-bit checksums cover every byte: one the header
 * (with both checksum fields zero, padding included), one everything after
 * it.  Loading reads the header, checks its checksum and that its fields
 * are consistent with each other, and (verify) reads the whole file into a
 * private copy, checking the payload's checksum, that the header's counts
 * describe the data (class counts, instructions per warp, memory records)
 * and every index, before pointing the kernel's arrays into the copy; a
 * hostile file cannot make a model read out of bounds, a tampered header
 * cannot change a result, and a file changed while a model runs cannot
 * reach the model (gp_kernel_load_gpt).
 *
 * Format versions: 1 (checksum of the payload only; the nearest producer
 * and the nearest load producer per instruction), 2 (header checksum, CUDA
 * stream id), 3 (every producer: GP_DEPS distances per instruction), 4
 * (memory records of 20 bytes: evenly spaced lanes stored as one address and
 * a stride, GP_LANES_STRIDED, other lanes as 32-bit deltas where they fit,
 * GP_LANES_DELTAS), 5 (both checksums digest.h's gp_checksum, 0.5
 * instructions per byte instead of 0.8).  A file of another version is
 * refused with the command that regenerates it (gpt_check_version); a bump
 * changes GPT_VERSION only.
 */
#define _POSIX_C_SOURCE 200809L

#include "digest.h"
#include "gpt_guard.h"
#include "staged.h"
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GPT_MAGIC "GPUSHGPT"
#define GPT_VERSION 5u
#define GPT_BOM 0x01020304u
#define GPT_ALIGN 64u

_Static_assert(sizeof(gp_mem_record) == 20, "gp_mem_record layout");
_Static_assert(sizeof(gp_static_inst) == 24, "gp_static_inst layout");

/* Upper bounds the header is checked against: the text reader's (trace_parse.c). */
#define GPT_MAX_WARPS (16u * 1024u * 1024u)
#define GPT_MAX_BLOCK_THREADS 4096u
#define GPT_MAX_NREGS 255u
#define GPT_MAX_SHMEM (1u << 30)
#define GPT_HEADER_MAX 4096u

enum {
  SEC_WARP_START, SEC_WARP_LEN, SEC_OP_CLASS, SEC_ACTIVE, SEC_FLAGS, SEC_WIDTH,
  SEC_PC_INDEX, SEC_DEPS, SEC_MEM, SEC_MEM_RECORDS, SEC_ADDRESSES,
  SEC_LINES, SEC_SECTOR_MASKS, SEC_STATICS, SEC_STRINGS, SEC_COUNT
};

typedef struct gpt_header {
  char magic[8];
  uint32_t version, byte_order;
  uint32_t header_bytes, pad0;
  uint64_t checksum;                  /* of bytes [header_bytes, end) */
  uint64_t header_checksum;           /* of bytes [0, header_bytes), both
                                         checksum fields zero */
  uint64_t file_bytes;
  char name[256];
  uint32_t launch_id, grid[3], block[3], shmem_bytes, nregs;
  int32_t binary_version, trace_version, lineinfo, synthetic;
  uint64_t shmem_base, local_base, stream_id;
  uint32_t blocks, warps_per_block, warps, mem_count;
  uint64_t insts, strings_len;
  uint32_t address_count, line_count, static_count, pad;
  uint64_t class_counts[GP_OP_CLASS_COUNT];
  char warnings[1024];
  uint64_t offset[SEC_COUNT], length[SEC_COUNT];
} gpt_header;

_Static_assert(sizeof(gpt_header) <= GPT_HEADER_MAX, "gpt_header size");

/* The kernel's arrays and their byte lengths, in section order. */
static void sections(const gp_kernel *k, const void *ptr[SEC_COUNT],
                     uint64_t len[SEC_COUNT]) {
  ptr[SEC_WARP_START] = k->warp_start, len[SEC_WARP_START] = (uint64_t)k->warps * 8;
  ptr[SEC_WARP_LEN] = k->warp_len, len[SEC_WARP_LEN] = (uint64_t)k->warps * 4;
  ptr[SEC_OP_CLASS] = k->op_class, len[SEC_OP_CLASS] = k->insts;
  ptr[SEC_ACTIVE] = k->active, len[SEC_ACTIVE] = k->insts;
  ptr[SEC_FLAGS] = k->flags, len[SEC_FLAGS] = k->insts;
  ptr[SEC_WIDTH] = k->width, len[SEC_WIDTH] = k->insts;
  ptr[SEC_PC_INDEX] = k->pc_index, len[SEC_PC_INDEX] = k->insts * 4;
  ptr[SEC_DEPS] = k->deps, len[SEC_DEPS] = k->insts * GP_DEPS * 2;
  ptr[SEC_MEM] = k->mem, len[SEC_MEM] = k->insts * 4;
  ptr[SEC_MEM_RECORDS] = k->mem_records, len[SEC_MEM_RECORDS] = (uint64_t)k->mem_count * sizeof(gp_mem_record);
  ptr[SEC_ADDRESSES] = k->addresses, len[SEC_ADDRESSES] = (uint64_t)k->address_count * 8;
  ptr[SEC_LINES] = k->lines, len[SEC_LINES] = (uint64_t)k->line_count * 8;
  ptr[SEC_SECTOR_MASKS] = k->sector_masks, len[SEC_SECTOR_MASKS] = k->line_count;
  ptr[SEC_STATICS] = k->statics, len[SEC_STATICS] = (uint64_t)k->static_count * 24;
  ptr[SEC_STRINGS] = k->strings, len[SEC_STRINGS] = k->strings_len;
}

static uint64_t align_up(uint64_t x) { return (x + GPT_ALIGN - 1) & ~(uint64_t)(GPT_ALIGN - 1); }

/* A section's checksum: digest.h's content checksum (gp_checksum), which
 * detects truncation and corruption and is not a cryptographic hash.
 * Payload and header lengths are multiples of GPT_ALIGN, so the loader can
 * sum each chunk as it reads it, while the chunk is still in the cache. */
static uint64_t checksum(const unsigned char *p, uint64_t n) {
  return gp_checksum_bytes(p, (size_t)n);
}

/* The checksum of the header as written: header_bytes bytes (the struct and
 * its zero padding) with both checksum fields taken as zero. */
static uint64_t header_checksum(const unsigned char *image, uint32_t header_bytes) {
  unsigned char copy[GPT_HEADER_MAX];
  gpt_header h;
  memcpy(copy, image, header_bytes);
  memcpy(&h, copy, sizeof h);
  h.checksum = 0;
  h.header_checksum = 0;
  memcpy(copy, &h, sizeof h);
  return checksum(copy, header_bytes);
}

int gp_kernel_write_gpt(const gp_kernel *k, const char *path, gp_error *err) {
  gpt_header h;
  const void *ptr[SEC_COUNT];
  uint64_t len[SEC_COUNT], pos;
  static const unsigned char zeros[GPT_ALIGN] = {0};
  unsigned char *payload;
  gp_staged out;
  int s, ok;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, GPT_MAGIC, 8);
  h.version = GPT_VERSION;
  h.byte_order = GPT_BOM;
  h.header_bytes = (uint32_t)align_up(sizeof h);
  memcpy(h.name, k->name, sizeof h.name);
  h.launch_id = k->launch_id;
  memcpy(h.grid, k->grid, sizeof h.grid);
  memcpy(h.block, k->block, sizeof h.block);
  h.shmem_bytes = k->shmem_bytes, h.nregs = k->nregs;
  h.binary_version = k->binary_version, h.trace_version = k->trace_version;
  h.lineinfo = k->lineinfo;
  h.synthetic = k->synthetic;
  h.shmem_base = k->shmem_base, h.local_base = k->local_base, h.stream_id = k->stream_id;
  h.blocks = k->blocks, h.warps_per_block = k->warps_per_block, h.warps = k->warps;
  h.mem_count = k->mem_count, h.insts = k->insts, h.strings_len = k->strings_len;
  h.address_count = k->address_count, h.line_count = k->line_count;
  h.static_count = k->static_count;
  memcpy(h.class_counts, k->class_counts, sizeof h.class_counts);
  memcpy(h.warnings, k->warnings, sizeof h.warnings);
  sections(k, ptr, len);
  pos = h.header_bytes;
  for (s = 0; s < SEC_COUNT; s++) {
    h.offset[s] = pos;
    h.length[s] = len[s];
    pos = align_up(pos + len[s]);
  }
  h.file_bytes = pos;
  /* The payload as it sits in the file, padding included, for the checksum. */
  payload = gp_malloc(&k->alloc, (size_t)(h.file_bytes - h.header_bytes));
  if (payload == NULL)
    return gp_error_set(err, "%s: out of memory", path);
  memset(payload, 0, (size_t)(h.file_bytes - h.header_bytes));
  for (s = 0; s < SEC_COUNT; s++)
    if (len[s] > 0)
      memcpy(payload + (h.offset[s] - h.header_bytes), ptr[s], (size_t)len[s]);
  h.checksum = checksum(payload, h.file_bytes - h.header_bytes);
  {
    unsigned char head[GPT_HEADER_MAX] = {0};
    memcpy(head, &h, sizeof h);
    h.header_checksum = header_checksum(head, h.header_bytes);
  }
  if (gp_staged_open(&out, &k->alloc, path, err) != GP_OK) {
    gp_free(&k->alloc, payload, (size_t)(h.file_bytes - h.header_bytes));
    return GP_ERR;
  }
  ok = fwrite(&h, sizeof h, 1, out.f) == 1 &&
       fwrite(zeros, 1, h.header_bytes - sizeof h, out.f) == h.header_bytes - sizeof h &&
       fwrite(payload, 1, (size_t)(h.file_bytes - h.header_bytes), out.f) ==
           (size_t)(h.file_bytes - h.header_bytes);
  gp_free(&k->alloc, payload, (size_t)(h.file_bytes - h.header_bytes));
  if (!ok) {
    gp_error_set(err, "%s: cannot write: %s (the file is unchanged)", path, strerror(errno));
    gp_staged_abort(&out);
    return GP_ERR;
  }
  return gp_staged_commit(&out, err);
}

int gp_gpt_seal(unsigned char *image, size_t size) {
  gpt_header h;
  if (size < sizeof h)
    return GP_ERR;
  memcpy(&h, image, sizeof h);
  if (h.header_bytes > size || h.header_bytes < sizeof h || h.header_bytes > GPT_HEADER_MAX)
    return GP_ERR;
  h.file_bytes = size;
  h.checksum = checksum(image + h.header_bytes, size - h.header_bytes);
  memcpy(image, &h, sizeof h);
  h.header_checksum = header_checksum(image, h.header_bytes);
  memcpy(image, &h, sizeof h);
  return GP_OK;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

int gp_gpt_is(const char *path) {
  char magic[8];
  FILE *f;
  int is = ends_with(path, ".gpt");
  if (!is && (f = fopen(path, "rb")) != NULL) {
    is = fread(magic, 1, 8, f) == 8 && memcmp(magic, GPT_MAGIC, 8) == 0;
    fclose(f);
  }
  return is;
}

/* The one place that knows which versions this gpush reads and what to do
 * with another: a later format change bumps GPT_VERSION and nothing else. */
static int gpt_check_version(uint32_t version, const char *path, gp_error *err) {
  if (version == GPT_VERSION)
    return GP_OK;
  return gp_error_set(err,
                      "%s: .gpt format version %u, this gpush reads version %u: regenerate it "
                      "from its trace with `gpush trace convert TRACE %s`",
                      path, version, GPT_VERSION, path);
}

/* Checks the header's own fields against the bounds the text reader
 * enforces and against each other (geometry, flags, strings). */
static int check_header_fields(const gpt_header *h, const char *path, gp_error *err) {
  uint64_t blocks = (uint64_t)h->grid[0] * h->grid[1] * h->grid[2];
  uint64_t threads = (uint64_t)h->block[0] * h->block[1] * h->block[2];
  const char *field = NULL;
  if (h->grid[0] == 0 || h->grid[1] == 0 || h->grid[2] == 0 || blocks != h->blocks)
    field = "grid";
  else if (threads == 0 || threads > GPT_MAX_BLOCK_THREADS ||
           h->warps_per_block != (threads + 31) / 32)
    field = "block";
  else if (h->warps != (uint64_t)h->blocks * h->warps_per_block || h->warps > GPT_MAX_WARPS)
    field = "warps";
  else if (h->nregs > GPT_MAX_NREGS)
    field = "nregs";
  else if (h->shmem_bytes > GPT_MAX_SHMEM)
    field = "shmem_bytes";
  else if (h->binary_version < 0 || h->binary_version > 1000)
    field = "binary_version";
  else if (h->trace_version < 0 || h->trace_version > 99)
    field = "trace_version";
  else if ((h->lineinfo != 0 && h->lineinfo != 1) || (h->synthetic != 0 && h->synthetic != 1))
    field = "flags";
  else if (memchr(h->name, '\0', sizeof h->name) == NULL)
    field = "name";
  else if (memchr(h->warnings, '\0', sizeof h->warnings) == NULL)
    field = "warnings";
  if (field != NULL)
    return gp_error_set(err, "%s: header field '%s' is out of range or inconsistent", path, field);
  return GP_OK;
}

/* Checks the header: its checksum, its fields, and that its counts and
 * sections fit the file and each other. */
static int check_header(const unsigned char *image, uint64_t size, const char *path,
                        gp_error *err) {
  const gpt_header *h = (const gpt_header *)image;
  uint64_t expect[SEC_COUNT];
  int s;
  if (h->file_bytes != size)
    return gp_error_set(err, "%s: truncated or extended: the header says %llu bytes, the file has %llu",
                        path, (unsigned long long)h->file_bytes, (unsigned long long)size);
  if (h->header_bytes < sizeof *h || h->header_bytes > GPT_HEADER_MAX || h->header_bytes > size ||
      h->header_bytes % GPT_ALIGN != 0)
    return gp_error_set(err, "%s: inconsistent header", path);
  if (header_checksum(image, h->header_bytes) != h->header_checksum)
    return gp_error_set(err, "%s: header checksum mismatch: the header is corrupt", path);
  if (check_header_fields(h, path, err) != GP_OK)
    return GP_ERR;
  expect[SEC_WARP_START] = (uint64_t)h->warps * 8;
  expect[SEC_WARP_LEN] = (uint64_t)h->warps * 4;
  expect[SEC_OP_CLASS] = expect[SEC_ACTIVE] = expect[SEC_FLAGS] = expect[SEC_WIDTH] = h->insts;
  expect[SEC_PC_INDEX] = expect[SEC_MEM] = h->insts * 4;
  expect[SEC_DEPS] = h->insts * GP_DEPS * 2;
  expect[SEC_MEM_RECORDS] = (uint64_t)h->mem_count * sizeof(gp_mem_record);
  expect[SEC_ADDRESSES] = (uint64_t)h->address_count * 8;
  expect[SEC_LINES] = (uint64_t)h->line_count * 8;
  expect[SEC_SECTOR_MASKS] = h->line_count;
  expect[SEC_STATICS] = (uint64_t)h->static_count * 24;
  expect[SEC_STRINGS] = h->strings_len;
  if (h->insts > size)
    return gp_error_set(err, "%s: inconsistent header", path);
  for (s = 0; s < SEC_COUNT; s++) {
    if (h->length[s] != expect[s] || h->offset[s] % GPT_ALIGN != 0 ||
        h->offset[s] < h->header_bytes || h->offset[s] > size ||
        h->length[s] > size - h->offset[s])
      return gp_error_set(err, "%s: section %d does not fit the file", path, s);
  }
  return GP_OK;
}

/* The first instruction of warp w with a dependence outside its warp: a
 * producer more than the instruction's position in the warp back (the
 * scoreboard is per warp), or distances not packed (one after a zero);
 * UINT64_MAX where there is none. */
static uint64_t first_bad_dependence(const gp_kernel *k, uint64_t w) {
  uint64_t j;
  int d;
  for (j = 0; j < k->warp_len[w]; j++) {
    const uint16_t *dist = &k->deps[(k->warp_start[w] + j) * GP_DEPS];
    for (d = 0; d < GP_DEPS; d++)
      if (dist[d] > j || (d > 0 && dist[d] != 0 && dist[d - 1] == 0))
        return k->warp_start[w] + j;
  }
  return UINT64_MAX;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* Whether warp w's dependences all pass first_bad_dependence's test,
 * two instructions (eight distances) to a register and no branch per
 * distance: a distance past its position leaves a nonzero saturated
 * difference, a nonzero distance after a zero a flag; the warp is searched
 * again (for the message) only when something failed. */
static int deps_inside_warp(const gp_kernel *k, uint64_t w) {
  const unsigned char *dist = (const unsigned char *)&k->deps[k->warp_start[w] * GP_DEPS];
  uint32_t n = k->warp_len[w], j;
  __m128i at = _mm_set_epi16(1, 1, 1, 1, 0, 0, 0, 0); /* positions j, j + 1: saturate at 0xffff */
  const __m128i two = _mm_set1_epi16(2), zero = _mm_setzero_si128();
  __m128i bad = zero;
  _Static_assert(GP_DEPS == 4, "four u16 distances: one instruction per 64 bits");
  for (j = 0; j < n; j += 2, dist += 16) {
    __m128i d = j + 1 < n ? _mm_loadu_si128((const __m128i *)dist)
                          : _mm_loadl_epi64((const __m128i *)dist); /* the last one alone */
    __m128i is_zero = _mm_cmpeq_epi16(d, zero);
    bad = _mm_or_si128(bad, _mm_subs_epu16(d, at));                        /* d > position */
    bad = _mm_or_si128(bad, _mm_andnot_si128(is_zero, _mm_slli_epi64(is_zero, 16))); /* after a zero */
    at = _mm_adds_epu16(at, two);
  }
  return _mm_movemask_epi8(_mm_cmpeq_epi8(bad, zero)) == 0xffff;
}
#else
static int deps_inside_warp(const gp_kernel *k, uint64_t w) {
  return first_bad_dependence(k, w) == UINT64_MAX;
}
#endif

/* Checks that every dependence distance stays inside its warp and that
 * the distances are packed (none after the first zero). */
static int check_deps(const gp_kernel *k, const char *path, gp_error *err) {
  uint64_t w, bad;
  for (w = 0; w < k->warps; w++)
    if (!deps_inside_warp(k, w) && (bad = first_bad_dependence(k, w)) != UINT64_MAX)
      return gp_error_set(err, "%s: instruction %llu has a dependence outside its warp",
                          path, (unsigned long long)bad);
  return GP_OK;
}

/* The first instruction whose class, PC index, memory record or active
 * lanes is out of range; UINT64_MAX where there is none. */
static uint64_t first_corrupt_instruction(const gp_kernel *k) {
  uint64_t i;
  for (i = 0; i < k->insts; i++)
    if (k->op_class[i] >= GP_OP_CLASS_COUNT || k->pc_index[i] >= k->static_count ||
        (k->mem[i] != UINT32_MAX && k->mem[i] >= k->mem_count) || k->active[i] > 32)
      return i;
  return UINT64_MAX;
}

#if defined(__SSE2__) && defined(__x86_64__)
/* The sum of four 32-bit counts. */
static uint64_t lane_sum(__m128i v) {
  const __m128i zero = _mm_setzero_si128();
  __m128i s = _mm_add_epi64(_mm_unpacklo_epi32(v, zero), _mm_unpackhi_epi32(v, zero));
  return (uint64_t)_mm_cvtsi128_si64(_mm_add_epi64(s, _mm_unpackhi_epi64(s, s)));
}
#endif

/* Whether every instruction passes first_corrupt_instruction's test, as
 * maxima taken over each array (loops without branches); *with_record
 * counts the instructions with a memory record (UINT32_MAX + 1 wraps to 0,
 * so mem + 1 > mem_count is a record index past the records). */
static int instructions_in_range(const gp_kernel *k, uint64_t *with_record) {
  uint64_t i, n = k->insts, records = 0;
  uint8_t max_class = 0, max_active = 0;
  uint32_t out = 0;
  for (i = 0; i < n; i++) {
    max_class = k->op_class[i] > max_class ? k->op_class[i] : max_class;
    max_active = k->active[i] > max_active ? k->active[i] : max_active;
  }
  i = 0;
#if defined(__SSE2__) && defined(__x86_64__)
  {
    /* Four instructions a round: unsigned compares as signed ones on values
     * with the top bit flipped (SSE2 has no unsigned compare). */
    const __m128i flip = _mm_set1_epi32((int)0x80000000u), ones = _mm_set1_epi32(-1);
    const __m128i pc_last = _mm_set1_epi32((int)((k->static_count - 1u) ^ 0x80000000u));
    const __m128i mem_last = _mm_set1_epi32((int)(k->mem_count ^ 0x80000000u));
    __m128i bad = _mm_setzero_si128(), none = _mm_setzero_si128(); /* per lane: no record */
    uint64_t without = 0;
    for (; i + 4 <= n; i += 4) {
      __m128i pc = _mm_loadu_si128((const __m128i *)(const void *)(k->pc_index + i));
      __m128i mem = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)(const void *)(k->mem + i)), ones);
      bad = _mm_or_si128(bad, _mm_cmpgt_epi32(_mm_xor_si128(pc, flip), pc_last));
      bad = _mm_or_si128(bad, _mm_cmpgt_epi32(_mm_xor_si128(mem, flip), mem_last));
      none = _mm_sub_epi32(none, _mm_cmpeq_epi32(mem, _mm_setzero_si128()));
      if (((i + 4) & ((1ull << 30) - 1)) == 0) { /* a lane's count stays below 2^32 */
        without += lane_sum(none);
        none = _mm_setzero_si128();
      }
    }
    records = i - without - lane_sum(none);
    out = (uint32_t)_mm_movemask_epi8(bad) | (uint32_t)(k->static_count == 0 && i > 0);
  }
#endif
  for (; i < n; i++) {
    uint32_t mem = k->mem[i] + 1u;
    out |= (uint32_t)(k->pc_index[i] >= k->static_count) | (uint32_t)(mem > k->mem_count);
    records += mem != 0;
  }
  *with_record = records;
  return n == 0 || (max_class < GP_OP_CLASS_COUNT && max_active <= 32 && out == 0);
}

/* Checks every index the models will follow, and that the header's counts
 * describe the data: instructions per class, instructions over the warps,
 * one memory record per memory instruction, dependences inside the warp. */
static int check_contents(const gp_kernel *k, const char *path, gp_error *err) {
  uint64_t i, listed = 0, with_record = 0, bad;
  uint64_t counts[GP_OP_CLASS_COUNT] = {0};
  int c;
  for (i = 0; i < k->warps; i++) {
    if (k->warp_start[i] > k->insts || k->warp_len[i] > k->insts - k->warp_start[i])
      return gp_error_set(err, "%s: warp %llu points outside the instructions", path,
                          (unsigned long long)i);
    listed += k->warp_len[i];
  }
  if (listed != k->insts)
    return gp_error_set(err, "%s: header field 'insts' says %llu instructions, the warps hold %llu",
                        path, (unsigned long long)k->insts, (unsigned long long)listed);
  if (check_deps(k, path, err) != GP_OK)
    return GP_ERR;
  if (!instructions_in_range(k, &with_record) && (bad = first_corrupt_instruction(k)) != UINT64_MAX)
    return gp_error_set(err, "%s: instruction %llu is corrupt", path, (unsigned long long)bad);
  for (i = 0; i < k->insts; i++) /* every class is in range now */
    counts[k->op_class[i]]++;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++)
    if (counts[c] != k->class_counts[c])
      return gp_error_set(err, "%s: header field 'class_counts' says %llu %s instructions, the data holds %llu",
                          path, (unsigned long long)k->class_counts[c], gp_op_class_name(c),
                          (unsigned long long)counts[c]);
  if (with_record != k->mem_count)
    return gp_error_set(err, "%s: header field 'mem_count' says %u memory records, %llu instructions have one",
                        path, k->mem_count, (unsigned long long)with_record);
  for (i = 0; i < k->mem_count; i++) {
    const gp_mem_record *m = &k->mem_records[i];
    if (m->lanes > GP_LANES_DELTAS || (m->lanes != GP_LANES_STRIDED && m->stride != 0) ||
        (m->lanes != GP_LANES_LIST && m->addr_count > 32) || /* gp_mem_lanes fills 32 */
        m->zero[0] != 0 || m->zero[1] != 0 || m->zero[2] != 0 ||
        m->addr_start > k->address_count || gp_mem_stored(m) > k->address_count - m->addr_start ||
        m->line_start > k->line_count || m->line_count > k->line_count - m->line_start)
      return gp_error_set(err, "%s: memory record %llu is corrupt", path, (unsigned long long)i);
  }
  if (k->strings_len == 0 || k->strings[k->strings_len - 1] != '\0')
    return gp_error_set(err, "%s: the opcode strings are corrupt", path);
  for (i = 0; i < k->static_count; i++)
    if (k->statics[i].opcode >= k->strings_len || k->statics[i].op_class >= GP_OP_CLASS_COUNT)
      return gp_error_set(err, "%s: static instruction %llu is corrupt", path, (unsigned long long)i);
  return GP_OK;
}

/* Reads the magic, version and byte-order mark before anything else, so an
 * empty file, a text trace named .gpt, a foreign byte order or an older
 * version each get their own message. */
static int read_prefix(int fd, const char *path, off_t size, gp_error *err) {
  unsigned char prefix[16];
  uint32_t version, bom;
  ssize_t n = read(fd, prefix, sizeof prefix);
  if (size == 0)
    return gp_error_set(err, "%s: empty file: expected a gpush .gpt kernel", path);
  if (n < 8 || memcmp(prefix, GPT_MAGIC, 8) != 0)
    return gp_error_set(err, "%s: not a gpush .gpt file: it does not start with '%s' "
                        "(text traces are named .traceg)", path, GPT_MAGIC);
  if (n < 16)
    return gp_error_set(err, "%s: too short for a .gpt file (%lld bytes)", path, (long long)size);
  memcpy(&version, prefix + 8, 4);
  memcpy(&bom, prefix + 12, 4);
  if (bom != GPT_BOM)
    return gp_error_set(err, "%s: written with another byte order; convert it from text on this machine", path);
  if (gpt_check_version(version, path, err) != GP_OK)
    return GP_ERR;
  if (size < (off_t)sizeof(gpt_header))
    return gp_error_set(err, "%s: too short for a .gpt file (%lld bytes)", path, (long long)size);
  return GP_OK;
}

/* Reads exactly n bytes at the file's current offset; GP_ERR with a message
 * when the file ends early or the read fails (it changed while being read). */
static int read_exactly(int fd, unsigned char *dst, uint64_t n, const char *path, gp_error *err) {
  while (n > 0) {
    ssize_t got = read(fd, dst, n > (1u << 30) ? (1u << 30) : (size_t)n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return gp_error_set(err, "%s: cannot read: %s", path,
                          got < 0 ? strerror(errno) : "the file became shorter while it was read");
    dst += got;
    n -= (uint64_t)got;
  }
  return GP_OK;
}

/* The whole file into `image` (already holding its first header_bytes),
 * summing the payload chunk by chunk as it arrives; *sum is its checksum. */
#define READ_SUM_CHUNK (1u << 20) /* a multiple of GP_CHECKSUM_STRIPE */
static int read_payload(int fd, unsigned char *image, uint64_t header_bytes, uint64_t size,
                        uint64_t *sum, const char *path, gp_error *err) {
  gp_checksum c;
  uint64_t pos = header_bytes;
  gp_checksum_start(&c);
  while (pos < size) {
    uint64_t n = size - pos < READ_SUM_CHUNK ? size - pos : READ_SUM_CHUNK;
    if (read_exactly(fd, image + pos, n, path, err) != GP_OK)
      return GP_ERR;
    gp_checksum_add(&c, image + pos, (size_t)n); /* only the last chunk can have a tail */
    pos += n;
  }
  *sum = gp_checksum_finish(&c);
  return GP_OK;
}

/* Points the kernel's scalars at the header's values, and (image != NULL)
 * its arrays into the image. */
static void fill_kernel(gp_kernel *k, const gpt_header *h, unsigned char *image) {
  memcpy(k->name, h->name, sizeof k->name);
  k->launch_id = h->launch_id;
  memcpy(k->grid, h->grid, sizeof k->grid);
  memcpy(k->block, h->block, sizeof k->block);
  k->shmem_bytes = h->shmem_bytes, k->nregs = h->nregs;
  k->binary_version = h->binary_version, k->trace_version = h->trace_version;
  k->lineinfo = h->lineinfo, k->shmem_base = h->shmem_base, k->local_base = h->local_base;
  k->stream_id = h->stream_id;
  k->synthetic = h->synthetic;
  k->blocks = h->blocks, k->warps_per_block = h->warps_per_block, k->warps = h->warps;
  k->insts = h->insts, k->mem_count = h->mem_count, k->address_count = h->address_count;
  k->line_count = h->line_count, k->static_count = h->static_count;
  k->strings_len = h->strings_len;
  memcpy(k->class_counts, h->class_counts, sizeof k->class_counts);
  memcpy(k->warnings, h->warnings, sizeof k->warnings);
  if (image == NULL)
    return;
#define AT(sec) ((void *)(image + h->offset[sec]))
  k->warp_start = AT(SEC_WARP_START);
  k->warp_len = AT(SEC_WARP_LEN);
  k->op_class = AT(SEC_OP_CLASS);
  k->active = AT(SEC_ACTIVE);
  k->flags = AT(SEC_FLAGS);
  k->width = AT(SEC_WIDTH);
  k->pc_index = AT(SEC_PC_INDEX);
  k->deps = AT(SEC_DEPS);
  k->mem = AT(SEC_MEM);
  k->mem_records = AT(SEC_MEM_RECORDS);
  k->addresses = AT(SEC_ADDRESSES);
  k->lines = AT(SEC_LINES);
  k->sector_masks = AT(SEC_SECTOR_MASKS);
  k->statics = AT(SEC_STATICS);
  k->strings = AT(SEC_STRINGS);
#undef AT
}

/* Loading for a model maps the file under a lease (gpt_guard.h), so that a
 * .gpt truncated or rewritten while a model runs (cp new.gpt old.gpt during
 * a sweep) cannot end in SIGBUS or in indices that no longer match what was
 * checked: before the file can change, the mapping becomes a private copy.
 * Where no lease can be had, the file is read into a private copy, its
 * checksum summed chunk by chunk as it arrives; that costs more CPU than a
 * mapping (docs/traces.md, Benchmark), which is why the lease comes first. */
int gp_kernel_load_gpt(gp_kernel **out, const gp_alloc *alloc, const char *path,
                       int verify, gp_error *err) {
  struct stat st;
  int fd = open(path, O_RDONLY);
  union {
    gpt_header h;
    unsigned char bytes[GPT_HEADER_MAX];
  } head;
  unsigned char *image = NULL;
  const gpt_header *h;
  uint64_t size, sum = 0;
  int mapped = 0;
  gp_kernel *k;
  if (fd < 0)
    return gp_error_set(err, "%s: cannot open: %s", path, strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return gp_error_set(err, "%s: not a regular file: a .gpt kernel is read from a file", path);
  }
  size = (uint64_t)st.st_size;
  if (read_prefix(fd, path, st.st_size, err) != GP_OK || lseek(fd, 0, SEEK_SET) != 0 ||
      read_exactly(fd, head.bytes, size < GPT_HEADER_MAX ? size : GPT_HEADER_MAX, path, err) != GP_OK ||
      check_header(head.bytes, size, path, err) != GP_OK) {
    close(fd);
    return GP_ERR;
  }
  h = &head.h;
  if (verify && size <= SIZE_MAX && (image = gp_gpt_guard_map(fd, (size_t)size)) != NULL) {
    mapped = 1; /* the guard owns fd now; the header is checked again, as leased */
    fd = -1;
    h = (const gpt_header *)image;
    if (check_header(image, size, path, err) != GP_OK) {
      gp_gpt_guard_unmap(image, (size_t)size);
      return GP_ERR;
    }
    sum = checksum(image + h->header_bytes, size - h->header_bytes);
  } else if (verify) {
    image = size <= SIZE_MAX ? gp_malloc(alloc, (size_t)size) : NULL;
    if (image == NULL) {
      close(fd);
      return gp_error_set(err, "%s: out of memory (%llu bytes)", path, (unsigned long long)size);
    }
    memcpy(image, head.bytes, h->header_bytes);
    if (lseek(fd, (off_t)h->header_bytes, SEEK_SET) != (off_t)h->header_bytes ||
        read_payload(fd, image, h->header_bytes, size, &sum, path, err) != GP_OK) {
      close(fd);
      gp_free(alloc, image, (size_t)size);
      return GP_ERR;
    }
    h = (const gpt_header *)image;
  }
  if (fd >= 0)
    close(fd);
  k = gp_kernel_new(alloc);
  if (k == NULL) {
    if (mapped)
      gp_gpt_guard_unmap(image, (size_t)size);
    else
      gp_free(alloc, image, (size_t)size);
    return gp_error_set(err, "%s: out of memory", path);
  }
  k->image = image;
  k->image_bytes = (size_t)size;
  k->image_mapped = mapped;
  if (verify && sum != h->checksum) {
    gp_kernel_free(k);
    return gp_error_set(err, "%s: checksum mismatch: the file is corrupt", path);
  }
  fill_kernel(k, h, image);
  if (verify && check_contents(k, path, err) != GP_OK) {
    gp_kernel_free(k);
    return GP_ERR;
  }
  *out = k;
  return GP_OK;
}
