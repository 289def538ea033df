/*
 * memsim_functional.c -- GPUMech Sec. V: per-PC miss behaviour and AMAT.
 *
 * The replay follows the paper's reading of a GPU's interleaving: thread
 * blocks go to SMs round-robin; every SM runs waves of as many blocks as
 * occupancy allows; within a wave, the warps of all SMs' co-resident blocks
 * advance round-robin, one memory instruction each per turn.  (All SMs run
 * their wave j together: the replay has no timing, so this is the order a
 * GPU with evenly progressing SMs would see.)  Each instruction's requests
 * go to its SM's L1 (loads that L1 caches) and to the L2 slice of the line;
 * the instruction's level is that of its slowest request, and its AMAT
 * contribution the latency of that level (Sec. V-B: 90 % L2 hits at 120 and
 * 10 % misses at 420 give 150).  Shared-memory instructions never reach the
 * caches and keep zero counts here.
 */
#include "memsim.h"

#include <string.h>

enum { LEVEL_L1 = 1, LEVEL_L2 = 2, LEVEL_DRAM = 3 };

typedef struct replay {
  const gp_kernel *k;
  const gp_memsim_config *cfg;
  gp_cache *l1;      /* one per SM */
  gp_cache *l2;      /* one per slice */
  gp_memsim_result *out;
} replay;

static uint32_t popcount4(uint8_t m) {
  return (m & 1u) + ((m >> 1) & 1u) + ((m >> 2) & 1u) + ((m >> 3) & 1u);
}

/* DRAM traffic of one L2 fill or write-back, in access-sized requests. */
static uint64_t dram_chunks(const replay *r, uint8_t mask, uint64_t *bytes) {
  uint32_t line = r->cfg->l2.line_bytes ? r->cfg->l2.line_bytes : 128;
  uint64_t moved = r->cfg->l2.sectored ? (uint64_t)popcount4(mask) * 32u : line;
  uint32_t unit = r->cfg->dram_access_bytes ? r->cfg->dram_access_bytes : 32;
  *bytes += moved;
  return (moved + unit - 1) / unit;
}

/* One line request of instruction `i` on SM `sm`; returns its level. */
static int request(replay *r, int op, uint32_t sm, uint64_t line, uint8_t mask) {
  const gp_memsim_config *cfg = r->cfg;
  int is_store = op == GP_OP_ST_GLOBAL || op == GP_OP_ST_LOCAL;
  int through_l1 = op == GP_OP_LD_LOCAL || op == GP_OP_ST_LOCAL || op == GP_OP_TEX ||
                   ((op == GP_OP_LD_GLOBAL || op == GP_OP_ST_GLOBAL) && cfg->cache_global_in_l1);
  gp_cache *l2 = &r->l2[gp_l2_slice_of(line, cfg->l2_slices ? cfg->l2_slices : 1)];
  uint64_t writebacks_before = l2->stats.writebacks;
  gp_cache_result res;
  int level;
  if (through_l1 && r->l1[sm].sets > 0) {
    res = gp_cache_access(&r->l1[sm], line, mask, is_store);
    if (!is_store && res == GP_CACHE_HIT)
      return LEVEL_L1;
  }
  if (!is_store)
    r->out->load_l1_misses++;
  res = gp_cache_access(l2, line, mask, is_store || op == GP_OP_ATOM_GLOBAL);
  level = res == GP_CACHE_HIT ? LEVEL_L2 : LEVEL_DRAM;
  if (level == LEVEL_DRAM) {
    if (is_store && (cfg->l2.write_back || l2->sets == 0))
      level = LEVEL_L2; /* a write-allocating store does not wait for DRAM */
    if (!is_store || !cfg->l2.write_back)
      r->out->dram_requests += dram_chunks(r, mask, is_store ? &r->out->dram_bytes_written
                                                             : &r->out->dram_bytes_read);
  }
  if (l2->stats.writebacks > writebacks_before)
    r->out->dram_requests += dram_chunks(r, 0x0f, &r->out->dram_bytes_written);
  return level;
}

/* The line requests of memory instruction i: the trace's coalesced lines,
 * or per half-warp CC 1.x transactions for global accesses on pre-Fermi
 * configurations.  Points *lines / *masks at them; returns the count. */
static uint32_t requests_of(const gp_kernel *k, uint64_t i, int cc1x, uint64_t *buf_lines,
                            uint8_t *buf_masks, const uint64_t **lines, const uint8_t **masks) {
  const gp_mem_record *m = &k->mem_records[k->mem[i]];
  int c = k->op_class[i];
  if (cc1x && (c == GP_OP_LD_GLOBAL || c == GP_OP_ST_GLOBAL || c == GP_OP_ATOM_GLOBAL ||
               c == GP_OP_LD_LOCAL || c == GP_OP_ST_LOCAL)) {
    *lines = buf_lines;
    *masks = buf_masks;
    return gp_cc1x_requests(k->addresses + m->addr_start, m->addr_count, k->width[i],
                            buf_lines, buf_masks);
  }
  *lines = k->lines + m->line_start;
  *masks = k->sector_masks + m->line_start;
  return m->line_count;
}

/* Replays memory instruction i of a warp on SM `sm`. */
static void replay_instruction(replay *r, uint64_t i, uint32_t sm) {
  const gp_kernel *k = r->k;
  gp_pc_memory *pc = &r->out->pcs[k->pc_index[i]];
  uint64_t buf_lines[32];
  uint8_t buf_masks[32];
  const uint64_t *lines;
  const uint8_t *masks;
  uint32_t n = requests_of(k, i, r->cfg->cc1x, buf_lines, buf_masks, &lines, &masks), j;
  int worst = LEVEL_L1;
  if (n == 0)
    return;
  for (j = 0; j < n; j++) {
    int level = request(r, k->op_class[i], sm, lines[j], masks[j]);
    if (level > worst)
      worst = level;
  }
  pc->instructions++;
  pc->requests += n;
  if (worst == LEVEL_L1)
    pc->l1_hits++;
  else if (worst == LEVEL_L2)
    pc->l2_hits++;
  else
    pc->dram++;
}

/* Shared-memory instructions: bank passes per PC; constant loads: the
 * constant-cache latency (order does not matter for either). */
static void shared_passes(replay *r) {
  const gp_kernel *k = r->k;
  uint64_t i;
  for (i = 0; i < k->insts; i++) {
    int c = k->op_class[i];
    if (c == GP_OP_LD_CONST) {
      gp_pc_memory *pc = &r->out->pcs[k->pc_index[i]];
      pc->instructions++;
      pc->l1_hits++;
      pc->amat = r->cfg->const_latency;
    } else if (k->mem[i] != UINT32_MAX &&
        (c == GP_OP_LD_SHARED || c == GP_OP_ST_SHARED || c == GP_OP_ATOM_SHARED)) {
      const gp_mem_record *m = &k->mem_records[k->mem[i]];
      gp_pc_memory *pc = &r->out->pcs[k->pc_index[i]];
      uint32_t passes = gp_shared_passes(k->addresses + m->addr_start, m->addr_count,
                                         k->width[i], r->cfg->shared_banks,
                                         r->cfg->shared_bank_bytes);
      pc->instructions++;
      pc->shared_passes += passes;
      pc->amat = r->cfg->shared_latency;
      r->out->bank_conflicts += passes > 1 ? passes - 1 : 0;
    }
  }
}

/* Next cache-using memory instruction of a warp at or after *cursor. */
static int next_memory(const gp_kernel *k, uint64_t end, uint64_t *cursor) {
  while (*cursor < end) {
    uint64_t i = (*cursor)++;
    if (k->mem[i] != UINT32_MAX && gp_op_uses_cache(k->op_class[i]))
      return 1;
  }
  return 0;
}

/* Visits wave `wave`'s memory instructions: the warps of every SM's
 * co-resident blocks, round-robin, one memory instruction per turn. */
static void visit_wave(const gp_kernel *k, uint32_t sms, uint32_t blocks_per_sm, uint32_t wave,
                       uint64_t *cursor, uint32_t *warp_sm, uint64_t *warp_ids,
                       gp_memsim_visit visit, void *ctx) {
  uint32_t n = 0, s, b, w;
  int active = 1;
  for (s = 0; s < sms; s++) {
    for (b = 0; b < blocks_per_sm; b++) {
      uint64_t block = ((uint64_t)wave * blocks_per_sm + b) * sms + s;
      if (block >= k->blocks)
        continue;
      for (w = 0; w < k->warps_per_block; w++) {
        uint64_t g = block * k->warps_per_block + w;
        warp_ids[n] = g;
        warp_sm[n] = s;
        cursor[n] = k->warp_start[g];
        n++;
      }
    }
  }
  while (active) {
    uint32_t x;
    active = 0;
    for (x = 0; x < n; x++) {
      uint64_t g = warp_ids[x];
      if (!next_memory(k, k->warp_start[g] + k->warp_len[g], &cursor[x]))
        continue;
      visit(ctx, cursor[x] - 1, warp_sm[x]);
      active = 1;
    }
  }
}

int gp_memsim_order(const gp_kernel *k, uint32_t sms, uint32_t blocks_per_sm,
                    const gp_alloc *alloc, gp_memsim_visit visit, void *ctx, gp_error *err) {
  uint64_t per_wave = (uint64_t)sms * blocks_per_sm * k->warps_per_block + 1;
  uint64_t *cursor, *warp_ids;
  uint32_t *warp_sm, waves, w;
  if (sms == 0 || blocks_per_sm == 0)
    return gp_error_set(err, "memsim: sms and blocks_per_sm must be above 0");
  cursor = gp_malloc(alloc, per_wave * sizeof *cursor);
  warp_ids = gp_malloc(alloc, per_wave * sizeof *warp_ids);
  warp_sm = gp_malloc(alloc, per_wave * sizeof *warp_sm);
  if (cursor && warp_ids && warp_sm) {
    waves = (uint32_t)((k->blocks + (uint64_t)sms * blocks_per_sm - 1) / ((uint64_t)sms * blocks_per_sm));
    for (w = 0; w < waves; w++)
      visit_wave(k, sms, blocks_per_sm, w, cursor, warp_sm, warp_ids, visit, ctx);
  }
  gp_free(alloc, cursor, per_wave * sizeof *cursor);
  gp_free(alloc, warp_ids, per_wave * sizeof *warp_ids);
  gp_free(alloc, warp_sm, per_wave * sizeof *warp_sm);
  return cursor && warp_ids && warp_sm ? GP_OK : gp_error_set(err, "memsim: out of memory");
}

static void visit_functional(void *ctx, uint64_t i, uint32_t sm) {
  replay_instruction(ctx, i, sm);
}

int gp_memsim_functional(const gp_kernel *k, const gp_memsim_config *cfg,
                         const gp_alloc *alloc, gp_memsim_result *out, gp_error *err) {
  replay r;
  uint32_t s, slices = cfg->l2_slices ? cfg->l2_slices : 1;
  gp_cache_config slice = cfg->l2;
  int status = GP_OK;
  if (cfg->sms == 0 || cfg->blocks_per_sm == 0)
    return gp_error_set(err, "memsim: sms and blocks_per_sm must be above 0");
  memset(out, 0, sizeof *out);
  memset(&r, 0, sizeof r);
  r.k = k, r.cfg = cfg, r.out = out;
  out->pc_count = k->static_count;
  out->pcs = gp_malloc(alloc, (k->static_count + 1) * sizeof *out->pcs);
  r.l1 = gp_malloc(alloc, cfg->sms * sizeof *r.l1);
  r.l2 = gp_malloc(alloc, slices * sizeof *r.l2);
  if (!out->pcs || !r.l1 || !r.l2) {
    status = gp_error_set(err, "memsim: out of memory");
    goto done;
  }
  memset(out->pcs, 0, (k->static_count + 1) * sizeof *out->pcs);
  memset(r.l1, 0, cfg->sms * sizeof *r.l1);
  memset(r.l2, 0, slices * sizeof *r.l2);
  slice.size_bytes = cfg->l2.size_bytes / slices;
  for (s = 0; s < cfg->sms && status == GP_OK; s++)
    status = gp_cache_init(&r.l1[s], alloc, &cfg->l1, err);
  for (s = 0; s < slices && status == GP_OK; s++)
    status = gp_cache_init(&r.l2[s], alloc, &slice, err);
  if (status == GP_OK)
    status = gp_memsim_order(k, cfg->sms, cfg->blocks_per_sm, alloc, visit_functional, &r, err);
  if (status != GP_OK)
    goto done;
  shared_passes(&r);
  for (s = 0; s < k->static_count; s++) {
    gp_pc_memory *pc = &out->pcs[s];
    if (pc->instructions > 0 && pc->shared_passes == 0 && k->statics[s].op_class != GP_OP_LD_CONST)
      pc->amat = ((double)pc->l1_hits * cfg->l1_latency + (double)pc->l2_hits * cfg->l2_latency +
                  (double)pc->dram * (cfg->l2_latency + cfg->dram_latency)) /
                 (double)pc->instructions;
  }
  for (s = 0; s < cfg->sms; s++) {
    out->l1.accesses += r.l1[s].stats.accesses, out->l1.hits += r.l1[s].stats.hits;
    out->l1.misses += r.l1[s].stats.misses, out->l1.sector_misses += r.l1[s].stats.sector_misses;
  }
  for (s = 0; s < slices; s++) {
    out->l2.accesses += r.l2[s].stats.accesses, out->l2.hits += r.l2[s].stats.hits;
    out->l2.misses += r.l2[s].stats.misses, out->l2.sector_misses += r.l2[s].stats.sector_misses;
    out->l2.writebacks += r.l2[s].stats.writebacks;
  }
done:
  if (r.l1)
    for (s = 0; s < cfg->sms; s++)
      gp_cache_free(&r.l1[s]);
  if (r.l2)
    for (s = 0; s < slices; s++)
      gp_cache_free(&r.l2[s]);
  gp_free(alloc, r.l1, cfg->sms * sizeof *r.l1);
  gp_free(alloc, r.l2, slices * sizeof *r.l2);
  if (status != GP_OK)
    gp_memsim_result_free(out, alloc);
  return status;
}

void gp_memsim_result_free(gp_memsim_result *r, const gp_alloc *alloc) {
  gp_free(alloc, r->pcs, (r->pc_count + 1) * sizeof *r->pcs);
  r->pcs = NULL;
}
