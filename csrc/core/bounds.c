/*
 * bounds.c -- first-principles lower bounds on a kernel's cycles (bounds.h
 * lists them; docs/bounds.md states their assumptions).
 *
 * gp_bounds_count is one pass over the kernel: per warp, its dependence
 * path under the simulator's own issue rules with nothing else running
 * (in order, one instruction per cycle, a producer's result ready at its
 * issue + latency, a unit free again after its initiation interval), which
 * no schedule can beat; per instruction, its LSU occupancy as the simulator
 * charges it.  A load's latency on the path is the least any interleaving
 * allows (memory_floor): memsim's per-PC mean (AMAT) is not a floor for one
 * warp, whose accesses may hit more often than the PC's average.
 * bounds_pass.h splits the pass into its parts, so that GPUMech's walk over
 * every warp (gpumech/gpumech.c) takes the paths in its own steps.
 */
#include "bounds_pass.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const bound_names[GP_BOUND_COUNT] = {
    "issue", "int", "fma", "fp64", "sfu", "tensor", "uniform", "control",
    "shared", "lsu", "l2", "dram", "mshr", "latency", "blocks", "dispatch"};

const char *gp_bound_name(int bound) {
  return bound >= 0 && bound < GP_BOUND_COUNT ? bound_names[bound] : "invalid";
}

/* ---------------------------------------------------------------------------
 * Counting
 * ------------------------------------------------------------------------- */

/* The latency of static instruction `pc` of class c on the dependence
 * path when it does not use the caches: compute classes their latency,
 * shared memory its latency (plus the passes, per instruction in
 * lsu_cycles), constant loads theirs.  Cache-using classes are priced per
 * instruction (memory_floor); their entry here is unused. */
static double pc_latency(const gp_machine *m, int c) {
  if (c == GP_OP_LD_CONST)
    return m->constant.latency;
  if (!gp_op_uses_cache(c))
    return gp_op_is_memory(c) ? m->shared.latency : gp_machine_class_latency(m, c);
  return 0;
}

/* The cycles class c holds its unit per warp instruction: the machine's
 * interval, at least a cycle when it is not above 0. */
static double unit_busy(const gp_machine *m, int c) {
  double interval = gp_machine_class_interval(m, c);
  return interval > 0 ? interval : 1;
}


/* Sorts keys[0..n) ascending by LSD radix on their bits from `skip` up,
 * moving payload[i] (when not NULL) along with keys[i], through q->tmp
 * (the two buffers take turns).  Only the bits that differ between keys
 * are sorted on (one pass over the keys finds them), in as few digits of
 * up to RADIX_BITS bits as cover them: a kernel's lines (address >> 7) over
 * a 256 MB footprint vary in 21 bits, two passes where bytes took three.
 * O(n) where qsort's comparator calls took a fifth of a bounds pass;
 * stable, so the keys of equal sorted bits keep their order. */
#define RADIX_BITS 11
static void sort_keys(gp_bounds_pass *q, uint64_t *keys, uint32_t *payload, uint64_t n,
                      unsigned skip) {
  uint64_t *src_keys = keys, *dst_keys = q->tmp, varies = 0, i, mask;
  uint32_t *src_payload = payload, *dst_payload = (uint32_t *)(q->tmp + n);
  int low, bits, passes, width, pass;
  for (i = 1; i < n; i++)
    varies |= keys[i] ^ keys[0];
  varies &= ~(uint64_t)0 << skip;
  if (varies == 0)
    return;
  low = __builtin_ctzll(varies);
  bits = 64 - __builtin_clzll(varies) - low;
  passes = (bits + RADIX_BITS - 1) / RADIX_BITS;
  width = (bits + passes - 1) / passes;
  mask = ((uint64_t)1 << width) - 1;
  for (pass = 0; pass < passes; pass++) {
    uint64_t count[1 << RADIX_BITS], pos = 0, *swap_keys, d;
    uint32_t *swap_payload;
    int shift = low + pass * width;
    memset(count, 0, (mask + 1) * sizeof *count);
    for (i = 0; i < n; i++)
      count[(src_keys[i] >> shift) & mask]++;
    for (d = 0; d <= mask; d++) {
      uint64_t c = count[d];
      count[d] = pos;
      pos += c;
    }
    for (i = 0; i < n; i++) {
      uint64_t to = count[(src_keys[i] >> shift) & mask]++;
      dst_keys[to] = src_keys[i];
      if (payload != NULL)
        dst_payload[to] = src_payload[i];
    }
    swap_keys = src_keys, src_keys = dst_keys, dst_keys = swap_keys;
    swap_payload = src_payload, src_payload = dst_payload, dst_payload = swap_payload;
  }
  if (src_keys != keys) {
    memcpy(keys, src_keys, n * sizeof *keys);
    if (payload != NULL)
      memcpy(payload, src_payload, n * sizeof *payload);
  }
}

/* memory_floor's latency of a line another request touches, for class c:
 * the L1's when L1 caches the class, else the L2's, else DRAM's (`cold`). */
static double class_hit(const gp_timed_config *mem, int c, double cold) {
  int through_l1 = mem->l1.size_bytes > 0 &&
                   (c == GP_OP_LD_LOCAL || c == GP_OP_TEX ||
                    (c == GP_OP_LD_GLOBAL && mem->cache_global_in_l1));
  return through_l1 ? mem->l1_latency : mem->l2.size_bytes > 0 ? mem->l2_latency : cold;
}

/* What a cache-using request does in the timed memory (memsim_timed.c's
 * routing), for the hard counts: a load takes an MSHR (or merges into one,
 * or hits L1); a store absorbed by a write-back L1 reaches the L2 only as a
 * dirty victim, if ever; other stores and atomics go to the L2 one request
 * each and never merge. */
enum { ROLE_LOAD, ROLE_L2_WRITE, ROLE_L1_WRITE, ROLE_ATOMIC };

static int request_role(const gp_timed_config *mem, int c) {
  int through_l1 = mem->l1.size_bytes > 0 &&
                   (c == GP_OP_ST_LOCAL || (c == GP_OP_ST_GLOBAL && mem->cache_global_in_l1));
  if (gp_op_is_store(c))
    return through_l1 && mem->l1.write_back ? ROLE_L1_WRITE : ROLE_L2_WRITE;
  return c == GP_OP_ATOM_GLOBAL ? ROLE_ATOMIC : ROLE_LOAD;
}

/* Whether the L2 keeps stores (write-back, with lines to keep them in)
 * rather than sending their sectors to DRAM. */
static int l2_keeps_stores(const gp_timed_config *mem) {
  return mem->l2.write_back && mem->l2.size_bytes > 0;
}

/* The hard MSHR, L2 and DRAM counts from the tagged lines (sorted, so a
 * line's requests are adjacent, in warp order and each warp's in program
 * order), and q->shared: a line more than one request touches can be in a
 * cache, or outstanding, when a request arrives; a line touched once is a
 * cold miss (both models start each launch with empty caches).  A line some
 * load asks for needs at least one MSHR allocation, on some SM, unless a
 * store may have put it in a write-back L1 (its loads could all hit): every
 * SM's L1 starts empty, and a load request that misses L1 either merges
 * into an outstanding allocation for its line on its SM or makes one.  The
 * first allocation of a line is the line's first L2 access, a miss in the
 * launch's empty L2, when nothing but loads can come before it: when no
 * store or atomic touches the line, or when every warp that touches it
 * loads it before its first store or atomic (an in-place update: whatever
 * the interleaving, the line's first access is some warp's first, a load).
 * Such a line's first allocation holds its entry l2 + DRAM latency at
 * least, every other allocation the L2 latency, and it reads at least the
 * sectors of one of the line's load requests from DRAM (the smallest
 * request's fill: requests merged into it may ask for sectors it does not
 * fetch).  Each allocation is one L2 request; stores and atomics that reach
 * the L2 were counted as they came (c->hard_l2_requests), and so were the
 * DRAM writes of stores a write-through L2 passes on.  The sectors stores
 * write into a write-back cache (a write-back L1, or the L2) leave for
 * DRAM only when a dirty line is evicted, and at the end the caches hold at
 * most their capacity (the L2's, plus every SM's L1 when a write-back L1
 * absorbs stores): so at least the distinct sectors written beyond that
 * are written to DRAM, whatever the interleaving.  Atomics are left out
 * of both DRAM counts. */
static inline __attribute__((always_inline)) void hard_counts_in(const gp_bounds_pass *q,
                                                                  gp_bounds_counts *c,
                                                                  int packed) {
  const gp_timed_config *mem = &q->mem;
  const uint8_t *masks = q->k->sector_masks;
  const uint64_t *tagged = q->tagged;
  uint64_t i = 0, n = q->tagged_count;
  unsigned eb = q->pack.entry_bits, wb = q->pack.warp_bits, ls = q->pack.line_shift;
  uint64_t emask = ((uint64_t)1 << eb) - 1, wmask = ((uint64_t)1 << wb) - 1;
  double held = 0, capacity = l2_keeps_stores(mem) ? (double)mem->l2.size_bytes : 0;
  int keeps_l1 = 0;
#define LINE_AT(x) (packed ? tagged[x] >> ls : tagged[x])
#define ENTRY_AT(x) (packed ? (uint32_t)(tagged[x] & emask) : q->entry[x])
  while (i < n) {
    uint64_t line = LINE_AT(i), first = i;
    uint8_t written = 0;
    double fill = INFINITY; /* the least any of its load requests' fills reads */
    int roles = 0, loads_first = 1;
    uint32_t warp = UINT32_MAX;
    for (; i < n && LINE_AT(i) == line; i++) {
      uint32_t e = ENTRY_AT(i);
      int role = packed ? (int)(tagged[i] >> (eb + wb)) & 3 : q->role_of[e];
      uint32_t w = packed ? (uint32_t)((tagged[i] >> eb) & wmask) : q->warp_of[e];
      uint8_t mask = masks[e];
      if (w != warp) { /* this warp's first access to the line */
        warp = w;
        loads_first = loads_first && role == ROLE_LOAD;
      }
      roles |= 1 << role;
      if (role == ROLE_LOAD && q->fill_of[mask] < fill)
        fill = q->fill_of[mask];
      if (role == ROLE_L1_WRITE || (role == ROLE_L2_WRITE && l2_keeps_stores(mem)))
        written |= mask;
      keeps_l1 = keeps_l1 || role == ROLE_L1_WRITE;
    }
    if (i - first > 1)
      for (; first < i; first++)
        q->shared[ENTRY_AT(first)] = 1;
    if ((roles & (1 << ROLE_LOAD)) && (loads_first || !(roles & (1 << ROLE_L1_WRITE)))) {
      c->hard_mshr_lines += 1;
      c->hard_l2_requests += 1;
      if (loads_first || !(roles & (1 << ROLE_L2_WRITE | 1 << ROLE_ATOMIC | 1 << ROLE_L1_WRITE))) {
        c->hard_mshr_cold_lines += 1;
        c->hard_dram_read_bytes += fill;
      }
    }
    held += q->held_of[written];
  }
#undef LINE_AT
#undef ENTRY_AT
  if (keeps_l1)
    capacity += (double)mem->sms * (double)mem->l1.size_bytes;
  if (held > capacity)
    c->hard_dram_written_bytes += held - capacity;
}

/* hard_counts_in for the pass's layout of the tagged requests. */
static void hard_counts(const gp_bounds_pass *q, gp_bounds_counts *c) {
  if (q->pack.on)
    hard_counts_in(q, c, 1);
  else
    hard_counts_in(q, c, 0);
}

/* The bytes of q->entry and of the sort's scratch for `cap` tagged
 * requests (packed keys carry their entries: no entry array). */
static size_t entry_bytes(const gp_bounds_pass *q, uint64_t cap) {
  return q->pack.on ? 0 : cap * sizeof *q->entry;
}
static size_t tmp_bytes(const gp_bounds_pass *q, uint64_t cap) {
  return cap * sizeof *q->tagged + entry_bytes(q, cap);
}

/* q->tagged, q->entry (unpacked) and the sort's scratch for `cap` tagged
 * requests, the q->tagged_count so far kept, the old arrays freed.  GP_ERR
 * when out of memory (q unchanged). */
static int alloc_tagged(gp_bounds_pass *q, const gp_alloc *alloc, uint64_t cap) {
  uint64_t *tagged = gp_malloc(alloc, cap * sizeof *tagged);
  uint64_t *tmp = gp_malloc(alloc, tmp_bytes(q, cap));
  uint32_t *entry = q->pack.on ? NULL : gp_malloc(alloc, entry_bytes(q, cap));
  if (tagged == NULL || tmp == NULL || (entry == NULL && !q->pack.on)) {
    gp_free(alloc, tagged, cap * sizeof *tagged);
    gp_free(alloc, entry, entry_bytes(q, cap));
    gp_free(alloc, tmp, tmp_bytes(q, cap));
    return GP_ERR;
  }
  if (q->tagged_count > 0) {
    memcpy(tagged, q->tagged, q->tagged_count * sizeof *tagged);
    if (entry != NULL)
      memcpy(entry, q->entry, q->tagged_count * sizeof *entry);
  }
  gp_free(alloc, q->tagged, q->cap * sizeof *q->tagged);
  gp_free(alloc, q->entry, entry_bytes(q, q->cap));
  gp_free(alloc, q->tmp, tmp_bytes(q, q->cap));
  q->tagged = tagged, q->entry = entry, q->tmp = tmp, q->cap = cap;
  return GP_OK;
}

/* Room for `need` tagged requests, the tagged ones so far kept.  GP_ERR
 * when out of memory (q unchanged). */
static int reserve_tagged(gp_bounds_pass *q, const gp_alloc *alloc, uint64_t need) {
  uint64_t cap = q->cap;
  if (need <= cap)
    return GP_OK;
  while (cap < need)
    cap *= 2;
  return alloc_tagged(q, alloc, cap);
}

/* The bits that hold values below n (0 for n <= 1). */
static unsigned bits_below(uint64_t n) {
  return n <= 1 ? 0 : 64u - (unsigned)__builtin_clzll(n - 1);
}

/* Whether the tagged requests' keys can be packed (gp_bounds_pack), and
 * how: the kernel's lines span from its lowest to its highest (one pass
 * over k->lines, the cache-using requests' and any others'). */
static void choose_pack(gp_bounds_pass *q) {
  const gp_kernel *k = q->k;
  gp_bounds_pack *p = &q->pack;
  uint64_t lo = UINT64_MAX, hi = 0, i;
  unsigned line_bits;
  memset(p, 0, sizeof *p);
  for (i = 0; i < k->line_count; i++) {
    uint64_t line = k->lines[i];
    lo = line < lo ? line : lo;
    hi = line > hi ? line : hi;
  }
  if (k->line_count == 0)
    lo = hi = 0;
  line_bits = hi == lo ? 0 : 64u - (unsigned)__builtin_clzll(hi - lo);
  p->entry_bits = bits_below(k->line_count);
  p->warp_bits = bits_below(k->warps);
  p->line_shift = p->entry_bits + p->warp_bits + 2;
  p->line_base = lo;
  p->on = p->line_shift < 64 && line_bits <= 64 - p->line_shift;
}

/* collect_requests' answer when packed keys cannot keep the arrays'
 * meaning: two requests share an entry of k->lines. */
#define COLLECT_UNPACK 2

/* Every cache-using request's tagged line (collect_lines) into arrays of
 * the pass's layout, from the kernel's line count up.  Packed keys carry
 * each request's own role and warp, where the arrays keep an entry's last
 * request's; the two agree when no entry is requested twice, which holds
 * when the records come in ascending, disjoint line ranges in warp order
 * (as the parser and the generator lay a kernel out): else COLLECT_UNPACK
 * (the arrays as they are, for collect_lines to free).  GP_ERR when out of
 * memory. */
static int collect_requests(gp_bounds_pass *q, const gp_alloc *alloc) {
  const gp_kernel *k = q->k;
  const gp_bounds_pack *p = &q->pack;
  uint64_t w, i, next_entry = 0;
  size_t lines = (size_t)k->line_count + 1;
  if (alloc_tagged(q, alloc, lines) != GP_OK)
    return GP_ERR;
  if (!p->on) {
    q->role_of = gp_malloc(alloc, lines);
    q->warp_of = gp_malloc(alloc, lines * sizeof *q->warp_of);
    if (q->role_of == NULL || q->warp_of == NULL)
      return GP_ERR;
  }
  for (w = 0; w < k->warps; w++) { /* warp by warp, each in program order */
    uint64_t end = k->warp_start[w] + k->warp_len[w];
    for (i = gp_next_memory_record(k, k->warp_start[w], end); i < end;
         i = gp_next_memory_record(k, i + 1, end)) {
      const gp_mem_record *r;
      int role;
      uint32_t j;
      if (!q->facts[k->op_class[i]].cached)
        continue;
      r = &k->mem_records[k->mem[i]];
      role = request_role(&q->mem, k->op_class[i]);
      if (reserve_tagged(q, alloc, q->tagged_count + r->line_count) != GP_OK)
        return GP_ERR;
      if (p->on) {
        uint64_t low = ((uint64_t)role << p->warp_bits | w) << p->entry_bits;
        if (r->line_count > 0 && r->line_start < next_entry)
          return COLLECT_UNPACK;
        if (r->line_count > 0)
          next_entry = (uint64_t)r->line_start + r->line_count;
        for (j = 0; j < r->line_count; j++)
          q->tagged[q->tagged_count + j] =
              (k->lines[r->line_start + j] - p->line_base) << p->line_shift | low |
              (r->line_start + j);
      } else {
        for (j = 0; j < r->line_count; j++) {
          q->tagged[q->tagged_count + j] = k->lines[r->line_start + j];
          q->entry[q->tagged_count + j] = r->line_start + j;
          q->role_of[r->line_start + j] = (uint8_t)role;
          q->warp_of[r->line_start + j] = (uint32_t)w;
        }
      }
      q->tagged_count += r->line_count;
      if (role == ROLE_L2_WRITE || role == ROLE_ATOMIC)
        q->out->hard_l2_requests += r->line_count;
      if (role == ROLE_L2_WRITE && !l2_keeps_stores(&q->mem))
        for (j = 0; j < r->line_count; j++) /* a write-through L2 passes the sectors on */
          q->out->hard_dram_written_bytes +=
              (double)gp_timed_store_bytes(&q->mem, k->sector_masks[r->line_start + j]);
    }
  }
  return GP_OK;
}

/* The lines of every cache-using request tagged with their role, sorted
 * (q->tagged), each with its index in k->lines (in the key, or q->entry);
 * store and atomic requests that reach the L2 counted in
 * q->out->hard_l2_requests, the DRAM writes of stores through a
 * write-through L2 in q->out->hard_dram_written_bytes.  One pass over the
 * instructions, warp by warp, each in program order (collect_requests;
 * again with unpacked arrays when packed keys cannot keep their meaning).
 * GP_ERR when out of memory. */
static int collect_lines(gp_bounds_pass *q, const gp_alloc *alloc) {
  size_t lines = (size_t)q->k->line_count + 1;
  int status;
  choose_pack(q);
  q->shared = gp_malloc(alloc, lines);
  if (q->shared == NULL)
    return GP_ERR;
  memset(q->shared, 0, lines);
  status = collect_requests(q, alloc);
  if (status == COLLECT_UNPACK) {
    gp_free(alloc, q->tagged, q->cap * sizeof *q->tagged);
    gp_free(alloc, q->tmp, tmp_bytes(q, q->cap));
    q->tagged = q->tmp = NULL, q->cap = 0, q->tagged_count = 0;
    q->out->hard_l2_requests = 0, q->out->hard_dram_written_bytes = 0;
    q->pack.on = 0;
    status = collect_requests(q, alloc);
  }
  if (status != GP_OK)
    return GP_ERR;
  sort_keys(q, q->tagged, q->entry, q->tagged_count, q->pack.on ? q->pack.line_shift : 0);
  return GP_OK;
}

/* A shared-memory instruction's LSU occupancy: one cycle per bank pass
 * (the simulator's charge), at least one; *lat gets one cycle per extra
 * pass.  Without addresses (every lane off) one pass. */
double gp_bounds_shared_cycles(const gp_bounds_pass *q, uint64_t i, double *passes_out,
                               double *lat) {
  const gp_kernel *k = q->k;
  const gp_machine *m = q->m;
  const gp_mem_record *r;
  uint32_t passes;
  if (k->mem[i] == UINT32_MAX) {
    *passes_out = 1;
    return 1;
  }
  r = &k->mem_records[k->mem[i]];
  passes = gp_shared_passes(GP_MEM_LANES(k, r), r->addr_count, k->width[i], m->shared.banks,
                            m->shared.bank_bytes);
  if (passes < 1)
    passes = 1;
  *passes_out = passes;
  *lat += passes - 1;
  return passes;
}

/* Steps [from, to) of warp g's path from issue cycle t and last result
 * end (gp_bounds_path's scalars), its LSU cycles and bank passes added to the
 * counts in order; returns the path's last result. */
static double path_steps(gp_bounds_pass *q, gp_bounds_path *s, double t, double end, uint64_t g,
                         uint64_t from, uint64_t to) {
  uint64_t start = q->k->warp_start[g], x;
  double lsu = q->out->lsu_cycles, shared_passes = q->out->shared_passes, busy, passes;
  for (x = from; x < to; x++)
    if (gp_bounds_path_step(q, s, &t, &end, start + x, x, &busy, &passes)) {
      lsu += busy;
      shared_passes += passes;
    }
  q->out->lsu_cycles = lsu, q->out->shared_passes = shared_passes;
  return end;
}

/* Warps g and h's dependence paths (cycles from the first issue to the last
 * result, each with nothing else running) into *path_g and *path_h; adds
 * their instructions' LSU cycles and bank passes to the counts, all of g's
 * before h's, as one warp after the other would.  The two warps' steps are
 * taken in turn while both have some: each path is one chain of dependent
 * floating-point operations, and two chains overlap in the processor.  h's
 * LSU charges wait in q->lsu_held until g's are in. */
static void warp_paths(gp_bounds_pass *q, uint64_t g, uint64_t h, double *path_g, double *path_h) {
  const gp_kernel *k = q->k;
  uint64_t ng = k->warp_len[g], nh = k->warp_len[h], common = ng < nh ? ng : nh, x, held = 0;
  uint64_t sg = k->warp_start[g], sh = k->warp_start[h];
  double lsu = q->out->lsu_cycles, shared_passes = q->out->shared_passes, busy, passes;
  double ta, ea, tb, eb;
  gp_bounds_path a, b;
  gp_bounds_path_start(&a, q->done, &ta, &ea);
  gp_bounds_path_start(&b, q->done + GP_BOUNDS_RING, &tb, &eb);
  for (x = 0; x < common; x++) {
    if (gp_bounds_path_step(q, &a, &ta, &ea, sg + x, x, &busy, &passes)) {
      lsu += busy;
      shared_passes += passes;
    }
    if (gp_bounds_path_step(q, &b, &tb, &eb, sh + x, x, &busy, &passes)) {
      q->lsu_held[2 * held] = busy;
      q->lsu_held[2 * held + 1] = passes;
      held++;
    }
  }
  q->out->lsu_cycles = lsu, q->out->shared_passes = shared_passes;
  *path_g = path_steps(q, &a, ta, ea, g, common, ng);
  lsu = q->out->lsu_cycles, shared_passes = q->out->shared_passes;
  for (x = 0; x < held; x++) {
    lsu += q->lsu_held[2 * x];
    shared_passes += q->lsu_held[2 * x + 1];
  }
  q->out->lsu_cycles = lsu, q->out->shared_passes = shared_passes;
  *path_h = path_steps(q, &b, tb, eb, h, common, nh);
}

/* Every warp's dependence path (q->paths, by global warp index), the warps
 * two at a time in order (warp_paths). */
static void all_paths(gp_bounds_pass *q, uint64_t warps) {
  uint64_t g;
  for (g = 0; g + 1 < warps; g += 2)
    warp_paths(q, g, g + 1, &q->paths[g], &q->paths[g + 1]);
  if (g < warps) {
    gp_bounds_path s;
    double t, end;
    gp_bounds_path_start(&s, q->done, &t, &end);
    q->paths[g] = path_steps(q, &s, t, end, g, 0, q->k->warp_len[g]);
  }
}

/* The per-class facts and the per-mask byte counts of a pass (q->m and
 * q->mem set). */
static void fill_tables(gp_bounds_pass *q) {
  const gp_timed_config *mem = &q->mem;
  int c, mask;
  q->cold = mem->l2_latency + mem->dram_latency;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++) {
    gp_bounds_class *f = &q->facts[c];
    f->busy = unit_busy(q->m, c);
    f->unit = (int8_t)gp_machine_op_unit(q->m, c);
    f->cached = (uint8_t)gp_op_uses_cache(c);
    f->shared = (uint8_t)gp_op_is_shared(c);
    f->lat = !f->cached ? GP_BOUNDS_LAT_PC : gp_op_is_store(c) ? GP_BOUNDS_LAT_STORE : GP_BOUNDS_LAT_FLOOR;
    f->hit = class_hit(mem, c, q->cold);
  }
  for (mask = 0; mask < 256; mask++) {
    q->fill_of[mask] = (double)gp_timed_fill_bytes(mem, (uint8_t)mask);
    q->held_of[mask] = 32.0 * gp_sector_count((uint8_t)mask);
  }
}

void gp_bounds_pass_free(gp_bounds_pass *q) {
  const gp_alloc *alloc = q->alloc;
  gp_free(alloc, q->pc_lat, (q->k->static_count + 1) * sizeof *q->pc_lat);
  gp_free(alloc, q->done, 2 * GP_BOUNDS_RING * sizeof *q->done);
  gp_free(alloc, q->paths, ((size_t)q->k->blocks * q->k->warps_per_block + 1) * sizeof *q->paths);
  gp_free(alloc, q->lsu_held, (2 * q->max_len + 1) * sizeof *q->lsu_held);
  gp_free(alloc, q->tagged, q->cap * sizeof *q->tagged);
  gp_free(alloc, q->entry, entry_bytes(q, q->cap));
  gp_free(alloc, q->tmp, tmp_bytes(q, q->cap));
  gp_free(alloc, q->shared, (size_t)q->k->line_count + 1);
  gp_free(alloc, q->role_of, (size_t)q->k->line_count + 1);
  gp_free(alloc, q->warp_of, ((size_t)q->k->line_count + 1) * sizeof *q->warp_of);
  memset(q, 0, sizeof *q);
}

int gp_bounds_pass_begin(gp_bounds_pass *q, const gp_kernel *k, const gp_machine *m,
                         uint32_t blocks_per_sm, const gp_memsim_result *mem,
                         const gp_alloc *alloc, gp_bounds_counts *out, gp_error *err) {
  uint64_t w, warps = (uint64_t)k->blocks * k->warps_per_block;
  uint32_t s;
  int c;
  memset(out, 0, sizeof *out);
  memset(q, 0, sizeof *q);
  if (mem == NULL || mem->pc_count != k->static_count)
    return gp_error_set(err, "bounds: the memory result has %u static instructions, the kernel %u",
                        mem ? mem->pc_count : 0, k->static_count);
  q->k = k, q->m = m, q->out = out, q->alloc = alloc, q->replay = mem;
  gp_machine_timed(m, blocks_per_sm, k->shmem_bytes, &q->mem);
  fill_tables(q);
  q->pc_lat = gp_malloc(alloc, (k->static_count + 1) * sizeof *q->pc_lat);
  for (w = 0; w < warps; w++)
    if (k->warp_len[w] > q->max_len)
      q->max_len = k->warp_len[w];
  q->done = gp_malloc(alloc, 2 * GP_BOUNDS_RING * sizeof *q->done);
  q->paths = gp_malloc(alloc, (warps + 1) * sizeof *q->paths);
  q->lsu_held = gp_malloc(alloc, (2 * q->max_len + 1) * sizeof *q->lsu_held);
  if (q->pc_lat == NULL || q->done == NULL || q->paths == NULL || q->lsu_held == NULL ||
      collect_lines(q, alloc) != GP_OK) {
    gp_bounds_pass_free(q);
    return gp_error_set(err, "bounds: out of memory");
  }
  hard_counts(q, out); /* and q->shared, which the paths read */
  for (s = 0; s < k->static_count; s++)
    q->pc_lat[s] = pc_latency(m, k->statics[s].op_class);
  out->blocks = k->blocks;
  out->insts = (double)k->insts;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++)
    out->class_insts[c] = (double)k->class_counts[c];
  out->min_block_insts = k->blocks > 0 ? INFINITY : 0;
  out->min_block_path = k->blocks > 0 ? INFINITY : 0;
  out->warps_per_block = k->warps_per_block;
  return GP_OK;
}

void gp_bounds_pass_finish(gp_bounds_pass *q) {
  const gp_kernel *k = q->k;
  const gp_memsim_result *mem = q->replay;
  gp_bounds_counts *out = q->out;
  uint64_t b, w;
  for (b = 0; b < k->blocks; b++) {
    double block_path = 0, block_insts = 0;
    for (w = 0; w < k->warps_per_block; w++) {
      uint64_t g = b * k->warps_per_block + w;
      double path = q->paths[g];
      block_insts += k->warp_len[g];
      if (path > block_path)
        block_path = path;
    }
    if (block_path > out->longest_path)
      out->longest_path = block_path;
    out->block_paths += block_path;
    if (block_path < out->min_block_path)
      out->min_block_path = block_path;
    if (block_insts < out->min_block_insts)
      out->min_block_insts = block_insts;
  }
  out->l2_requests = (double)mem->l2.accesses;
  out->mshr_requests = (double)mem->mshr_requests;
  out->mshr_dram_requests = (double)mem->mshr_dram_requests;
  out->dram_bytes = (double)(mem->dram_bytes_read + mem->dram_bytes_written);
  gp_bounds_pass_free(q);
}

/* The pass: begin, every warp's path two at a time (all_paths), finish. */
int gp_bounds_count(const gp_kernel *k, const gp_machine *m, uint32_t blocks_per_sm,
                    const gp_memsim_result *mem, const gp_alloc *alloc,
                    gp_bounds_counts *out, gp_error *err) {
  gp_bounds_pass q;
  if (gp_bounds_pass_begin(&q, k, m, blocks_per_sm, mem, alloc, out, err) != GP_OK)
    return GP_ERR;
  all_paths(&q, (uint64_t)k->blocks * k->warps_per_block);
  gp_bounds_pass_finish(&q);
  return GP_OK;
}

/* ---------------------------------------------------------------------------
 * The bounds
 * ------------------------------------------------------------------------- */

/* a / b, infinite when b is not positive and a is. */
static double ratio(double a, double b) {
  if (a <= 0)
    return 0;
  return b > 0 ? a / b : INFINITY;
}

/* Little's law with the MSHRs as servers: each holds one request per
 * round trip, at least l2_latency, l2 + DRAM latency for an L2 miss. */
static double mshr_cycles(double requests, double dram_requests, double sms,
                          const gp_timed_config *mem) {
  return ratio(requests * mem->l2_latency + dram_requests * mem->dram_latency,
               sms * mem->mshrs_per_sm);
}

/* Every slice busy all the time: requests x l2_interval / slices.  A store
 * completes when its slice accepts it, so with stores among the requests
 * the last reservations may outlast the kernel by one interval. */
static double l2_cycles(double requests, int stores, const gp_timed_config *mem) {
  double busy = ratio(requests * mem->l2_interval, mem->l2_slices);
  if (stores && isfinite(busy))
    busy = busy > mem->l2_interval ? busy - mem->l2_interval : 0;
  return busy;
}

/* A unit's bound: its busy cycles per scheduler (the busiest scheduler is
 * at least that busy), less the most any class of it holds the unit beyond
 * its latency: the kernel ends when the last instruction's result is ready,
 * which may come before the unit's occupancy ends. */
static double unit_bound(const double *busy, const double *slack, int unit, double units) {
  double cycles = ratio(busy[unit], units);
  if (!(cycles > 0) || !isfinite(cycles))
    return cycles;
  return cycles > slack[unit] ? cycles - slack[unit] : 0;
}

/* The front end's bounds (docs/frontend.md) on kernel body cycles: every
 * block's launch L costs its SM's launcher launch.block_cycles + its warps
 * x launch.warp_cycles, one block at a time; no warp of an SM issues before
 * its first launch ends + launch.warmup_cycles W (so none before L + W); a
 * block frees its slot launch.drain_cycles D after its last warp, and the
 * launch ends when its last block has.  Sets the latency bound (the longest
 * path between L + W and D), the blocks bound (each slot's blocks one after
 * another, its first not before W: W + sum of (path + L + D) / slots) and
 * the dispatch bound: the last block leaves the GPU-wide dispatcher at
 * (blocks - 1) x launch.dispatch_cycles at the earliest and is launched L
 * later, the busiest SM launches ceil(blocks / SMs) blocks, one every L at
 * most; then the shortest block's path and D (the warm-up is the latency
 * bound's: no block of the dispatch bound needs to wait for it). */
static void front_end_bounds(const gp_bounds_counts *c, const gp_machine *m, double sms,
                             uint32_t blocks_per_sm, double most_blocks, gp_bounds *out) {
  double L = m->launch.block_cycles + c->warps_per_block * m->launch.warp_cycles;
  double W = m->launch.warmup_cycles, D = m->launch.drain_cycles;
  double last = (c->blocks - 1) * m->launch.dispatch_cycles + L;
  if (!(c->blocks > 0))
    return;
  if (most_blocks * L > last)
    last = most_blocks * L;
  out->cycles[GP_BOUND_LATENCY] = c->longest_path + L + W + D;
  out->cycles[GP_BOUND_BLOCKS] = W + ratio(c->block_paths + c->blocks * (L + D), sms * blocks_per_sm);
  out->cycles[GP_BOUND_DISPATCH] = last + c->min_block_path + D;
}

/* The index of the largest entry (ties: the first). */
static int largest(const double *cycles) {
  int k, best = 0;
  for (k = 1; k < GP_BOUND_COUNT; k++)
    if (cycles[k] > cycles[best])
      best = k;
  return best;
}

void gp_bounds_compute(const gp_bounds_counts *c, const gp_machine *m, uint32_t blocks_per_sm,
                       gp_bounds *out) {
  double sms = c->blocks < m->sm.count ? c->blocks : m->sm.count;
  double units = sms * m->sm.schedulers, per_sm_issue = (double)m->sm.schedulers * m->sm.issue_width;
  double unit_cycles[GP_UNIT_COUNT], tail_slack[GP_UNIT_COUNT], most_blocks, expected[GP_BOUND_COUNT];
  gp_timed_config memory;
  const gp_timed_config *mem = &memory;
  int k;
  gp_machine_timed(m, blocks_per_sm, 0, &memory);
  memset(out, 0, sizeof *out);
  out->sms_used = sms;
  memset(unit_cycles, 0, sizeof unit_cycles);
  memset(tail_slack, 0, sizeof tail_slack);
  for (k = 0; k < GP_OP_CLASS_COUNT; k++) {
    int u = gp_machine_op_unit(m, k);
    double slack = unit_busy(m, k) - gp_machine_class_latency(m, k);
    if (u == GP_UNIT_LSU)
      continue;
    unit_cycles[u] += c->class_insts[k] * unit_busy(m, k);
    /* the unit's last instruction is done `latency` after its issue, which
     * may come before its occupancy ends (gtx1080's DFMA: 20 of 32) */
    if (c->class_insts[k] > 0 && slack > tail_slack[u])
      tail_slack[u] = slack;
  }
  /* the SM with the most blocks holds ceil(blocks / sm count) of them */
  most_blocks = m->sm.count > 0 ? ceil(c->blocks / m->sm.count) : 0;
  out->cycles[GP_BOUND_ISSUE] = ratio(c->insts, sms * per_sm_issue);
  if (ratio(most_blocks * c->min_block_insts, per_sm_issue) > out->cycles[GP_BOUND_ISSUE])
    out->cycles[GP_BOUND_ISSUE] = ratio(most_blocks * c->min_block_insts, per_sm_issue);
  out->cycles[GP_BOUND_INT] = unit_bound(unit_cycles, tail_slack, GP_UNIT_INT, units);
  out->cycles[GP_BOUND_FMA] = unit_bound(unit_cycles, tail_slack, GP_UNIT_FMA, units);
  out->cycles[GP_BOUND_FP64] = unit_bound(unit_cycles, tail_slack, GP_UNIT_FP64, units);
  out->cycles[GP_BOUND_SFU] = unit_bound(unit_cycles, tail_slack, GP_UNIT_SFU, units);
  out->cycles[GP_BOUND_TENSOR] = unit_bound(unit_cycles, tail_slack, GP_UNIT_TENSOR, units);
  out->cycles[GP_BOUND_UNIFORM] = unit_bound(unit_cycles, tail_slack, GP_UNIT_UNIFORM, units);
  out->cycles[GP_BOUND_CONTROL] = unit_bound(unit_cycles, tail_slack, GP_UNIT_OTHER, units);
  out->cycles[GP_BOUND_SHARED] = ratio(c->shared_passes, units);
  out->cycles[GP_BOUND_LSU] = ratio(c->lsu_cycles, units);
  out->cycles[GP_BOUND_L2] = l2_cycles(c->hard_l2_requests, c->hard_l2_requests > c->hard_mshr_lines, mem);
  out->cycles[GP_BOUND_DRAM] =
      ratio(c->hard_dram_read_bytes + c->hard_dram_written_bytes, mem->dram_bytes_per_cycle);
  out->cycles[GP_BOUND_MSHR] = mshr_cycles(c->hard_mshr_lines, c->hard_mshr_cold_lines, sms, mem);
  front_end_bounds(c, m, sms, blocks_per_sm, most_blocks, out);
  out->binds = largest(out->cycles);
  out->bound = out->cycles[out->binds];
  out->total = out->bound + m->launch.kernel_cycles;
  /* the functional replay's counts: estimates, for the expected limiter */
  out->estimate_l2 = ratio(c->l2_requests * mem->l2_interval, mem->l2_slices);
  out->estimate_mshr = mshr_cycles(c->mshr_requests, c->mshr_dram_requests, sms, mem);
  out->estimate_dram = ratio(c->dram_bytes, mem->dram_bytes_per_cycle);
  memcpy(expected, out->cycles, sizeof expected);
  expected[GP_BOUND_L2] = out->estimate_l2;
  expected[GP_BOUND_MSHR] = out->estimate_mshr;
  expected[GP_BOUND_DRAM] = out->estimate_dram;
  out->expect = largest(expected);
  out->expect_cycles = expected[out->expect];
}
