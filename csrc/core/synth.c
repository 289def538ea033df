/*
 * synth.c -- generate a gp_kernel from a synthetic description.
 *
 * Every warp runs the prologue once, the loop body `trips` times (plus a
 * seeded number of extra trips when trip_spread > 0: control divergence
 * between warps), the epilogue once, then EXIT.
 * Memory operations draw their lane addresses from streams; random draws
 * come from splitmix64 over (seed, stream, warp, iteration, lane), so the
 * kernel does not depend on generation order and is identical run to run.
 */
#include "synth.h"

#include <stdio.h>
#include <string.h>

#define MAX_SYNTH_INSTS 1000000000ull

/* splitmix64 finaliser: a well-mixed 64-bit hash of x. */
static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static uint64_t draw(uint64_t seed, uint64_t a, uint64_t b, uint64_t c,
                     uint64_t d) {
  return mix(mix(mix(mix(seed ^ a) ^ b) ^ c) ^ d);
}

const char *gp_synth_opcode(int op_class, int width) {
  static const char *const base[GP_OP_CLASS_COUNT] = {
      "IADD3",    "FFMA",     "IMAD",        "DFMA",      "MUFU.RCP",
      "HMMA.16816.F32", "UIADD3", "BRA",    "S2R",       "BAR.SYNC",
      "BAR.ARV",  "LDG.E",    "STG.E",       "LDL",       "STL",
      "LDS",      "STS",      "LDC",         "TEX",       "ATOMG.E.ADD",
      "ATOMS.ADD", "LDGSTS.E", "DEPBAR"};
  static const char *const wide[][3] = {
      /* width 8 and 16 forms of the memory classes that take a suffix */
      {"LDG.E.64", "LDG.E.128", "LDG.E.U8"}, {"STG.E.64", "STG.E.128", "STG.E.U8"},
      {"LDL.64", "LDL.128", "LDL.U8"},       {"STL.64", "STL.128", "STL.U8"},
      {"LDS.64", "LDS.128", "LDS.U8"},       {"STS.64", "STS.128", "STS.U8"}};
  if (op_class < 0 || op_class >= GP_OP_CLASS_COUNT)
    return "NOP";
  if (op_class >= GP_OP_LD_GLOBAL && op_class <= GP_OP_ST_SHARED) {
    const char *const *forms = wide[op_class - GP_OP_LD_GLOBAL];
    if (width == 8)
      return forms[0];
    if (width == 16)
      return forms[1];
    if (width == 1)
      return forms[2];
  }
  return base[op_class];
}

/* ---------------------------------------------------------------------------
 * Checking the description
 * ------------------------------------------------------------------------- */

/* The parts of every warp's instruction stream, in order: prologue, body
 * (once per trip), epilogue.  `what` names an instruction of the part in
 * messages ("prologue instruction 2"). */
typedef struct synth_part {
  const gp_synth_op *ops;
  uint32_t len;
  const char *what;
} synth_part;

static void parts_of(const gp_synth_desc *d, synth_part parts[3]) {
  parts[0].ops = d->prologue, parts[0].len = d->prologue_len, parts[0].what = "prologue instruction";
  parts[1].ops = d->body, parts[1].len = d->body_len, parts[1].what = "instruction";
  parts[2].ops = d->epilogue, parts[2].len = d->epilogue_len, parts[2].what = "epilogue instruction";
}

/* Checks the instructions of one part against the description's streams. */
static int check_ops(const gp_synth_desc *d, const synth_part *part, gp_error *err) {
  uint32_t i;
  for (i = 0; i < part->len; i++) {
    const gp_synth_op *op = &part->ops[i];
    if (op->op_class >= GP_OP_CLASS_COUNT)
      return gp_error_set(err, "synthetic kernel '%s': %s %u has an unknown class", d->name, part->what, i + 1);
    if (op->active > 32)
      return gp_error_set(err, "synthetic kernel '%s': %s %u has %u active lanes, expected 0 to 32",
                          d->name, part->what, i + 1, op->active);
    if (gp_op_is_memory(op->op_class)) {
      if (op->stream >= d->stream_count)
        return gp_error_set(err, "synthetic kernel '%s': %s %u (%s) uses stream %u of %u",
                            d->name, part->what, i + 1, gp_op_class_name(op->op_class), op->stream + 1u,
                            d->stream_count);
      if (op->width == 0 || op->width > 16 || (op->width & (op->width - 1)) != 0)
        return gp_error_set(err, "synthetic kernel '%s': %s %u has width %u, expected 1, 2, 4, 8 or 16 bytes",
                            d->name, part->what, i + 1, op->width);
      if ((d->streams[op->stream].kind == GP_STREAM_SHARED) !=
          (op->op_class == GP_OP_LD_SHARED || op->op_class == GP_OP_ST_SHARED ||
           op->op_class == GP_OP_ATOM_SHARED))
        return gp_error_set(err, "synthetic kernel '%s': %s %u: shared-memory classes need a "
                            "shared stream and global classes a global one", d->name, part->what, i + 1);
    }
  }
  return GP_OK;
}

static int check_desc(const gp_synth_desc *d, uint64_t *warps_out,
                      uint64_t *insts_out, gp_error *err) {
  uint64_t blocks = (uint64_t)d->grid[0] * d->grid[1] * d->grid[2];
  uint64_t threads = (uint64_t)d->block[0] * d->block[1] * d->block[2];
  uint64_t warps, insts;
  synth_part parts[3];
  uint32_t i;
  if (blocks == 0 || threads == 0)
    return gp_error_set(err, "synthetic kernel '%s': grid and block need no zero dimension", d->name);
  if (threads > 1024)
    return gp_error_set(err, "synthetic kernel '%s': block of %llu threads, expected at most 1024",
                        d->name, (unsigned long long)threads);
  if (d->body_len == 0 || d->body_len > GP_SYNTH_MAX_BODY)
    return gp_error_set(err, "synthetic kernel '%s': body of %u instructions, expected 1 to %d",
                        d->name, d->body_len, GP_SYNTH_MAX_BODY);
  if (d->prologue_len > GP_SYNTH_MAX_BODY || d->epilogue_len > GP_SYNTH_MAX_BODY ||
      (d->prologue_len > 0 && d->prologue == NULL) || (d->epilogue_len > 0 && d->epilogue == NULL))
    return gp_error_set(err, "synthetic kernel '%s': a prologue or epilogue of %u and %u instructions, "
                        "expected 0 to %d each", d->name, d->prologue_len, d->epilogue_len, GP_SYNTH_MAX_BODY);
  if (d->stream_count > GP_SYNTH_MAX_STREAMS)
    return gp_error_set(err, "synthetic kernel '%s': %u streams, expected at most %d", d->name,
                        d->stream_count, GP_SYNTH_MAX_STREAMS);
  for (i = 0; i < d->stream_count; i++) {
    const gp_synth_stream *s = &d->streams[i];
    if (s->footprint == 0)
      return gp_error_set(err, "synthetic kernel '%s': stream %u needs a footprint above 0 bytes",
                          d->name, i + 1);
    if (s->kind > GP_STREAM_SHARED)
      return gp_error_set(err, "synthetic kernel '%s': stream %u has an unknown kind", d->name, i + 1);
  }
  parts_of(d, parts);
  for (i = 0; i < 3; i++)
    if (check_ops(d, &parts[i], err) != GP_OK)
      return GP_ERR;
  warps = blocks * ((threads + 31) / 32);
  insts = warps * ((uint64_t)(d->trips + d->trip_spread) * d->body_len + d->prologue_len +
                   d->epilogue_len + 1);
  if (warps > (1u << 24) || insts > MAX_SYNTH_INSTS)
    return gp_error_set(err, "synthetic kernel '%s': up to %llu warp instructions, more than gpush generates (%llu)",
                        d->name, (unsigned long long)insts, (unsigned long long)MAX_SYNTH_INSTS);
  *warps_out = warps;
  *insts_out = insts;
  return GP_OK;
}

/* ---------------------------------------------------------------------------
 * Generation
 * ------------------------------------------------------------------------- */

/* Lane l's address for stream s at warp w, iteration t. */
static uint64_t lane_address(const gp_synth_desc *d, uint32_t s, uint64_t w,
                             uint64_t t, uint32_t l, uint32_t width,
                             uint64_t total_threads) {
  const gp_synth_stream *st = &d->streams[s];
  uint64_t epoch = t / (st->reuse ? st->reuse : 1);
  uint64_t g = w * 32 + l, elems;
  switch (st->kind) {
  case GP_STREAM_COALESCED:
    return st->base + ((g + epoch * total_threads) * width) % st->footprint;
  case GP_STREAM_STRIDED:
    return st->base + ((g + epoch * total_threads) * st->stride) % st->footprint;
  case GP_STREAM_RANDOM:
    elems = (st->footprint / width) ? st->footprint / width : 1;
    return st->base + (draw(d->seed, s, w, epoch, l) % elems) * width;
  case GP_STREAM_CHASE:
    elems = (st->footprint / width) ? st->footprint / width : 1;
    return st->base + (draw(d->seed, s, w, epoch, 0) % elems) * width;
  case GP_STREAM_SHARED:
    return ((uint64_t)l * st->stride + epoch * width * 32) % st->footprint;
  }
  return st->base;
}

static int alloc_arrays(gp_kernel *k, uint64_t insts, uint64_t mem_insts,
                        uint64_t warps, uint32_t statics, gp_error *err) {
  gp_alloc *a = &k->alloc;
  k->cap_insts = insts ? insts : 1;
  k->cap_mem = mem_insts ? mem_insts : 1;
  k->cap_addr = mem_insts ? mem_insts * 32 : 1;
  k->cap_lines = mem_insts ? mem_insts * 4 : 1; /* grown when needed */
  k->cap_warps = warps;
  k->cap_statics = statics;
  k->op_class = gp_malloc(a, k->cap_insts);
  k->active = gp_malloc(a, k->cap_insts);
  k->flags = gp_malloc(a, k->cap_insts);
  k->width = gp_malloc(a, k->cap_insts);
  k->pc_index = gp_malloc(a, k->cap_insts * sizeof *k->pc_index);
  k->deps = gp_malloc(a, k->cap_insts * GP_DEPS * sizeof *k->deps);
  k->mem = gp_malloc(a, k->cap_insts * sizeof *k->mem);
  k->mem_records = gp_malloc(a, k->cap_mem * sizeof *k->mem_records);
  k->addresses = gp_malloc(a, k->cap_addr * sizeof *k->addresses);
  k->lines = gp_malloc(a, k->cap_lines * sizeof *k->lines);
  k->sector_masks = gp_malloc(a, k->cap_lines);
  k->warp_start = gp_malloc(a, warps * sizeof *k->warp_start);
  k->warp_len = gp_malloc(a, warps * sizeof *k->warp_len);
  k->statics = gp_malloc(a, statics * sizeof *k->statics);
  if (!k->op_class || !k->active || !k->flags || !k->width || !k->pc_index ||
      !k->deps || !k->mem || !k->mem_records || !k->addresses ||
      !k->lines || !k->sector_masks || !k->warp_start || !k->warp_len || !k->statics)
    return gp_error_set(err, "synthetic kernel '%s': out of memory", k->name);
  return GP_OK;
}

/* The static instructions: the prologue's, the body's and the epilogue's
 * ops in that order, then EXIT; static i at PC 0x10 x (i + 1). */
static int make_statics(gp_kernel *k, const gp_synth_desc *d, gp_error *err) {
  synth_part parts[3];
  uint32_t p, i, n = 0;
  size_t need = sizeof "EXIT";
  parts_of(d, parts);
  for (p = 0; p < 3; p++)
    for (i = 0; i < parts[p].len; i++)
      need += strlen(gp_synth_opcode(parts[p].ops[i].op_class, parts[p].ops[i].width)) + 1;
  k->strings = gp_malloc(&k->alloc, need);
  k->cap_strings = need;
  if (k->strings == NULL)
    return gp_error_set(err, "synthetic kernel '%s': out of memory", d->name);
  for (p = 0; p <= 3; p++) {
    uint32_t len = p < 3 ? parts[p].len : 1;
    for (i = 0; i < len; i++, n++) {
      const gp_synth_op *op = p < 3 ? &parts[p].ops[i] : NULL;
      gp_static_inst *s = &k->statics[n];
      const char *text = op ? gp_synth_opcode(op->op_class, op->width) : "EXIT";
      size_t text_len = strlen(text);
      gp_opcode_info info = gp_opcode_classify(text, text_len, k->binary_version);
      memset(s, 0, sizeof *s);
      s->pc = 0x10ull * (n + 1);
      s->opcode = (uint32_t)k->strings_len;
      memcpy(k->strings + k->strings_len, text, text_len + 1);
      k->strings_len += text_len + 1;
      s->op_class = op ? op->op_class : GP_OP_BRANCH;
      s->width = op && op->width ? op->width : info.width;
      s->dest_regs = info.dest_regs;
      s->known = 1;
    }
  }
  k->static_count = n;
  return GP_OK;
}

/* Appends one memory instruction's addresses, lines and record. */
static int emit_memory(gp_kernel *k, const gp_synth_desc *d, const gp_synth_op *op,
                       uint64_t w, uint64_t t, uint32_t lanes, uint64_t inst,
                       uint64_t total_threads, gp_error *err) {
  gp_mem_record *rec = &k->mem_records[k->mem_count];
  uint64_t lines[64];
  uint8_t masks[64];
  uint32_t l;
  int n;
  memset(rec, 0, sizeof *rec); /* lanes stored as a list (GP_LANES_LIST) */
  rec->addr_start = k->address_count;
  rec->addr_count = (uint8_t)lanes;
  rec->line_start = k->line_count;
  for (l = 0; l < lanes; l++)
    k->addresses[k->address_count++] =
        lane_address(d, op->stream, w, t, l, op->width, total_threads);
  if (gp_op_uses_cache(op->op_class)) {
    uint32_t i, sectors = 0;
    n = gp_coalesce(k->addresses + rec->addr_start, lanes, op->width, lines, masks, 64);
    if (n < 0)
      return gp_error_set(err, "synthetic kernel '%s': an instruction touches more than 64 lines", d->name);
    {
      size_t old_cap = k->cap_lines;
      if (gp_grow(&k->alloc, (void **)&k->lines, &k->cap_lines,
                  (size_t)k->line_count + (size_t)n, sizeof *k->lines) != GP_OK)
        return gp_error_set(err, "synthetic kernel '%s': out of memory", d->name);
      if (k->cap_lines != old_cap) { /* sector_masks shares lines' capacity */
        uint8_t *m = gp_realloc(&k->alloc, k->sector_masks, old_cap, k->cap_lines);
        if (m == NULL)
          return gp_error_set(err, "synthetic kernel '%s': out of memory", d->name);
        k->sector_masks = m;
      }
    }
    for (i = 0; i < (uint32_t)n; i++) {
      k->lines[k->line_count + i] = lines[i];
      k->sector_masks[k->line_count + i] = masks[i];
      sectors += (masks[i] & 1u) + ((masks[i] >> 1) & 1u) + ((masks[i] >> 2) & 1u) +
                 ((masks[i] >> 3) & 1u);
    }
    k->line_count += (uint32_t)n;
    rec->line_count = (uint8_t)n;
    rec->sector_count = (uint16_t)sectors;
  }
  k->mem[inst] = k->mem_count++;
  return GP_OK;
}

/* Instruction `inst`, the j-th of its warp, waits for the producers its op
 * names (those inside the warp), packed as the trace reader packs them. */
static void set_deps(gp_kernel *k, const gp_synth_op *op, uint64_t inst, uint64_t j) {
  uint64_t writer[GP_DEPS];
  uint8_t cls[GP_DEPS];
  gp_dep d;
  int n = 0, x;
  if (op->dep[0] == 0) {
    memset(k->deps + inst * GP_DEPS, 0, GP_DEPS * sizeof *k->deps);
    return;
  }
  for (x = 0; x < GP_DEPS && op->dep[x] != 0; x++)
    if (op->dep[x] <= j) {
      writer[n] = inst - op->dep[x];
      cls[n++] = k->op_class[inst - op->dep[x]];
    }
  gp_deps_pack(inst, writer, cls, n, &d);
  memcpy(k->deps + inst * GP_DEPS, d.dist, sizeof d.dist);
  k->flags[inst] = (uint8_t)(k->flags[inst] | d.loads << GP_INST_LOAD_SHIFT);
}

/* Appends instruction `j` of warp w (its op, static index `pc`, trip t,
 * `lanes_in_warp` threads in the warp). */
static int emit_op(gp_kernel *k, const gp_synth_desc *d, const gp_synth_op *op, uint32_t pc,
                   uint64_t w, uint64_t t, uint64_t j, uint32_t lanes_in_warp,
                   uint64_t total_threads, gp_error *err) {
  uint64_t inst = k->insts++;
  uint32_t lanes = op->active && op->active < lanes_in_warp ? op->active : lanes_in_warp;
  k->op_class[inst] = op->op_class;
  k->active[inst] = (uint8_t)lanes;
  k->flags[inst] = 0;
  k->width[inst] = k->statics[pc].width;
  k->pc_index[inst] = pc;
  k->mem[inst] = UINT32_MAX;
  set_deps(k, op, inst, j);
  if (gp_op_is_memory(op->op_class) &&
      emit_memory(k, d, op, w, t, lanes, inst, total_threads, err) != GP_OK)
    return GP_ERR;
  k->class_counts[op->op_class]++;
  return GP_OK;
}

/* Memory instructions among ops[0..n). */
static uint64_t memory_ops(const gp_synth_op *ops, uint32_t n) {
  uint64_t count = 0;
  uint32_t i;
  for (i = 0; i < n; i++)
    count += (uint64_t)gp_op_is_memory(ops[i].op_class);
  return count;
}

int gp_synth_generate(gp_kernel **out, const gp_alloc *alloc,
                      const gp_synth_desc *d, gp_error *err) {
  uint64_t warps = 0, max_insts = 0, w, total_threads, mem_insts;
  uint32_t i, threads_per_block, exit_pc = d->prologue_len + d->body_len + d->epilogue_len;
  gp_kernel *k;
  if (check_desc(d, &warps, &max_insts, err) != GP_OK)
    return GP_ERR;
  mem_insts = warps * ((uint64_t)(d->trips + d->trip_spread) * memory_ops(d->body, d->body_len) +
                       memory_ops(d->prologue, d->prologue_len) + memory_ops(d->epilogue, d->epilogue_len));
  k = gp_kernel_new(alloc);
  if (k == NULL)
    return gp_error_set(err, "synthetic kernel '%s': out of memory", d->name);
  snprintf(k->name, sizeof k->name, "%s", d->name);
  memcpy(k->grid, d->grid, sizeof k->grid);
  memcpy(k->block, d->block, sizeof k->block);
  k->nregs = d->regs;
  k->shmem_bytes = d->shmem;
  k->binary_version = d->binary_version ? d->binary_version : 80;
  k->trace_version = 5;
  k->synthetic = 1;
  k->launch_id = 1;
  threads_per_block = d->block[0] * d->block[1] * d->block[2];
  k->blocks = d->grid[0] * d->grid[1] * d->grid[2];
  k->warps_per_block = (threads_per_block + 31) / 32;
  k->warps = (uint32_t)warps;
  total_threads = warps * 32;
  if (alloc_arrays(k, max_insts, mem_insts, warps, exit_pc + 1, err) != GP_OK ||
      make_statics(k, d, err) != GP_OK) {
    gp_kernel_free(k);
    return GP_ERR;
  }
  for (w = 0; w < warps; w++) {
    uint32_t warp_in_block = (uint32_t)(w % k->warps_per_block);
    uint32_t lanes_in_warp = threads_per_block - warp_in_block * 32 < 32
                                 ? threads_per_block - warp_in_block * 32
                                 : 32;
    uint64_t trips = d->trips + (d->trip_spread ? draw(d->seed, 0xd1u, w, 0, 0) % (d->trip_spread + 1ull) : 0);
    uint64_t t, j = 0, start = k->insts;
    int failed = 0;
    k->warp_start[w] = start;
    for (i = 0; i < d->prologue_len && !failed; i++, j++)
      failed = emit_op(k, d, &d->prologue[i], i, w, 0, j, lanes_in_warp, total_threads, err) != GP_OK;
    for (t = 0; t < trips && !failed; t++)
      for (i = 0; i < d->body_len && !failed; i++, j++)
        failed = emit_op(k, d, &d->body[i], d->prologue_len + i, w, t, j, lanes_in_warp, total_threads,
                         err) != GP_OK;
    for (i = 0; i < d->epilogue_len && !failed; i++, j++)
      failed = emit_op(k, d, &d->epilogue[i], d->prologue_len + d->body_len + i, w, trips, j, lanes_in_warp,
                       total_threads, err) != GP_OK;
    if (failed) {
      gp_kernel_free(k);
      return GP_ERR;
    }
    /* EXIT */
    k->op_class[k->insts] = GP_OP_BRANCH;
    k->active[k->insts] = (uint8_t)lanes_in_warp;
    k->flags[k->insts] = 0;
    k->width[k->insts] = 4;
    k->pc_index[k->insts] = exit_pc;
    k->mem[k->insts] = UINT32_MAX;
    memset(k->deps + k->insts * GP_DEPS, 0, GP_DEPS * sizeof *k->deps);
    k->class_counts[GP_OP_BRANCH]++;
    k->insts++;
    k->warp_len[w] = (uint32_t)(k->insts - start);
  }
  *out = k;
  return GP_OK;
}
