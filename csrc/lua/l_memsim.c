/*
 * l_memsim.c -- the memory model from Lua.
 *
 *   result = core.memsim_functional(kernel, params)   -- or nil, message
 *
 * params is a flat table (gpush.memsim builds it from a configuration):
 *   sms, blocks_per_sm, l1_bytes, l1_line, l1_ways, l1_sectored, l1_write_back,
 *   l2_bytes, l2_line, l2_ways, l2_sectored, l2_write_back, l2_slices,
 *   cache_global, dram_access_bytes, l1_latency, l2_latency, dram_latency
 * result: { pcs = { [pc_index + 1] = {pc, opcode, instructions, l1_hits,
 *   l2_hits, dram, requests, l1_miss_requests, dram_requests, amat,
 *   miss_reuse = {bucket counts, memsim.h GP_REUSE_BUCKETS} when it missed L1}
 *   (memory PCs only) }, pc_count (the kernel's static instructions),
 *   load_l1_misses, mshr_requests (load requests, not atomics, missing L1), mshr_dram_requests (those also missing L2),
 *   dram_requests, dram_bytes_read, dram_bytes_written, bank_conflicts, l1_bytes and
 *   l2_bytes (32-byte sectors asked of L1/TEX and arriving at the L2, memsim.h),
 *   l1 = {...}, l2 = {...} }; shared-memory PCs also carry shared_passes.
 * Optional: cc1x, shared_banks, shared_bank_bytes, shared_latency, const_latency.
 *
 *   result = core.memsim_timed_replay(kernel, params)  -- or nil, message
 * params adds mshrs, l2_interval, dram_channels, dram_bytes_per_cycle; result:
 *   { requests, last_cycle, mshr_full_stalls, mshr_stall_cycles, mshr_merges,
 *     dram_bytes_read, dram_bytes_written, last_dram_done }
 *
 *   lines = core.kernel_line_scan(kernel)   -- a plain pass over the same
 *                                           -- arrays (benchmark baseline)
 */
#include "compat.h"
#include "l_core.h"
#include "memsim.h"

#include <string.h>

static void push_stats(lua_State *L, const gp_cache_stats *s, const char *name) {
  lua_createtable(L, 0, 5);
  lua_pushinteger(L, (lua_Integer)s->accesses);
  lua_setfield(L, -2, "accesses");
  lua_pushinteger(L, (lua_Integer)s->hits);
  lua_setfield(L, -2, "hits");
  lua_pushinteger(L, (lua_Integer)s->misses);
  lua_setfield(L, -2, "misses");
  lua_pushinteger(L, (lua_Integer)s->sector_misses);
  lua_setfield(L, -2, "sector_misses");
  lua_pushinteger(L, (lua_Integer)s->writebacks);
  lua_setfield(L, -2, "writebacks");
  lua_setfield(L, -2, name);
}

/* Reads the flat parameter table at index t (both memory modes and the
 * simulator share it). */
void gpl_read_memory_params(lua_State *L, int t, gp_timed_config *c, uint32_t *blocks_per_sm) {
  luaL_checktype(L, t, LUA_TTABLE);
  memset(c, 0, sizeof *c);
  c->sms = (uint32_t)gpl_opt_nonneg(L, t, "sms", 1, "memsim");
  *blocks_per_sm = (uint32_t)gpl_opt_nonneg(L, t, "blocks_per_sm", 1, "memsim");
  c->mshrs_per_sm = (uint32_t)gpl_opt_nonneg(L, t, "mshrs", 32, "memsim");
  c->l1.size_bytes = (uint64_t)gpl_opt_nonneg(L, t, "l1_bytes", 0, "memsim");
  c->l1.line_bytes = (uint32_t)gpl_opt_nonneg(L, t, "l1_line", 128, "memsim");
  c->l1.ways = (uint32_t)gpl_opt_nonneg(L, t, "l1_ways", 4, "memsim");
  c->l1.sectored = (int)gpl_opt_nonneg(L, t, "l1_sectored", 0, "memsim");
  c->l1.write_back = (int)gpl_opt_nonneg(L, t, "l1_write_back", 0, "memsim");
  c->l2.size_bytes = (uint64_t)gpl_opt_nonneg(L, t, "l2_bytes", 0, "memsim");
  c->l2.line_bytes = (uint32_t)gpl_opt_nonneg(L, t, "l2_line", 128, "memsim");
  c->l2.ways = (uint32_t)gpl_opt_nonneg(L, t, "l2_ways", 8, "memsim");
  c->l2.sectored = (int)gpl_opt_nonneg(L, t, "l2_sectored", 0, "memsim");
  c->l2.write_back = (int)gpl_opt_nonneg(L, t, "l2_write_back", 1, "memsim");
  c->l2_slices = (uint32_t)gpl_opt_nonneg(L, t, "l2_slices", 1, "memsim");
  c->cache_global_in_l1 = (int)gpl_opt_nonneg(L, t, "cache_global", 1, "memsim");
  c->dram_access_bytes = (uint32_t)gpl_opt_nonneg(L, t, "dram_access_bytes", 32, "memsim");
  c->l1_latency = gpl_opt_nonneg(L, t, "l1_latency", 0, "memsim");
  c->l2_latency = gpl_opt_nonneg(L, t, "l2_latency", 0, "memsim");
  c->dram_latency = gpl_opt_nonneg(L, t, "dram_latency", 0, "memsim");
  c->l2_interval = gpl_opt_nonneg(L, t, "l2_interval", 1, "memsim");
  c->dram_channels = (uint32_t)gpl_opt_nonneg(L, t, "dram_channels", 1, "memsim");
  c->dram_bytes_per_cycle = gpl_opt_nonneg(L, t, "dram_bytes_per_cycle", 32, "memsim");
  c->cc1x = (int)gpl_opt_nonneg(L, t, "cc1x", 0, "memsim");
}

static int memsim_functional(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  gp_timed_config params;
  gp_memsim_config c;
  gp_memsim_result r;
  gp_alloc alloc = gp_alloc_default();
  gp_error err;
  uint32_t i;
  gpl_read_memory_params(L, 2, &params, &c.blocks_per_sm);
  c.sms = params.sms;
  c.l1 = params.l1, c.l2 = params.l2, c.l2_slices = params.l2_slices;
  c.cache_global_in_l1 = params.cache_global_in_l1;
  c.dram_access_bytes = params.dram_access_bytes;
  c.l1_latency = params.l1_latency, c.l2_latency = params.l2_latency;
  c.dram_latency = params.dram_latency;
  c.cc1x = params.cc1x;
  c.shared_banks = (uint32_t)gpl_opt_nonneg(L, 2, "shared_banks", 32, "memsim");
  c.shared_bank_bytes = (uint32_t)gpl_opt_nonneg(L, 2, "shared_bank_bytes", 4, "memsim");
  c.shared_latency = gpl_opt_nonneg(L, 2, "shared_latency", 0, "memsim");
  c.const_latency = gpl_opt_nonneg(L, 2, "const_latency", 0, "memsim");
  if (gp_memsim_functional(k, &c, &alloc, &r, &err) != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  lua_createtable(L, 0, 8);
  lua_newtable(L);
  for (i = 0; i < r.pc_count; i++) {
    const gp_pc_memory *p = &r.pcs[i];
    if (p->instructions == 0)
      continue;
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, (lua_Integer)k->statics[i].pc);
    lua_setfield(L, -2, "pc");
    lua_pushstring(L, k->strings + k->statics[i].opcode);
    lua_setfield(L, -2, "opcode");
    lua_pushinteger(L, (lua_Integer)p->instructions);
    lua_setfield(L, -2, "instructions");
    lua_pushinteger(L, (lua_Integer)p->l1_hits);
    lua_setfield(L, -2, "l1_hits");
    lua_pushinteger(L, (lua_Integer)p->l2_hits);
    lua_setfield(L, -2, "l2_hits");
    lua_pushinteger(L, (lua_Integer)p->dram);
    lua_setfield(L, -2, "dram");
    lua_pushinteger(L, (lua_Integer)p->requests);
    lua_setfield(L, -2, "requests");
    lua_pushinteger(L, (lua_Integer)p->l1_miss_requests);
    lua_setfield(L, -2, "l1_miss_requests");
    lua_pushinteger(L, (lua_Integer)p->dram_requests);
    lua_setfield(L, -2, "dram_requests");
    lua_pushnumber(L, p->amat);
    lua_setfield(L, -2, "amat");
    if (p->shared_passes > 0) {
      lua_pushinteger(L, (lua_Integer)p->shared_passes);
      lua_setfield(L, -2, "shared_passes");
    }
    if (p->l1_miss_requests > 0) {
      int b;
      lua_createtable(L, GP_REUSE_BUCKETS, 0);
      for (b = 0; b < GP_REUSE_BUCKETS; b++) {
        lua_pushinteger(L, (lua_Integer)p->miss_reuse[b]);
        gpc_rawseti(L, -2, b + 1);
      }
      lua_setfield(L, -2, "miss_reuse");
    }
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "pcs");
  lua_pushinteger(L, (lua_Integer)r.pc_count);
  lua_setfield(L, -2, "pc_count");
  lua_pushinteger(L, (lua_Integer)r.load_l1_misses);
  lua_setfield(L, -2, "load_l1_misses");
  lua_pushinteger(L, (lua_Integer)r.mshr_requests);
  lua_setfield(L, -2, "mshr_requests");
  lua_pushinteger(L, (lua_Integer)r.mshr_dram_requests);
  lua_setfield(L, -2, "mshr_dram_requests");
  lua_pushinteger(L, (lua_Integer)r.dram_requests);
  lua_setfield(L, -2, "dram_requests");
  lua_pushinteger(L, (lua_Integer)r.dram_bytes_read);
  lua_setfield(L, -2, "dram_bytes_read");
  lua_pushinteger(L, (lua_Integer)r.dram_bytes_written);
  lua_setfield(L, -2, "dram_bytes_written");
  lua_pushinteger(L, (lua_Integer)r.bank_conflicts);
  lua_setfield(L, -2, "bank_conflicts");
  lua_pushinteger(L, (lua_Integer)r.l1_bytes);
  lua_setfield(L, -2, "l1_bytes");
  lua_pushinteger(L, (lua_Integer)r.l2_bytes);
  lua_setfield(L, -2, "l2_bytes");
  push_stats(L, &r.l1, "l1");
  push_stats(L, &r.l2, "l2");
  gp_memsim_result_free(&r, &alloc);
  return 1;
}

static int memsim_timed_replay(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  gp_timed_config c;
  gp_timed_stats st;
  gp_alloc alloc = gp_alloc_default();
  gp_error err;
  uint64_t requests;
  double last;
  uint32_t blocks;
  gpl_read_memory_params(L, 2, &c, &blocks);
  if (gp_memsim_timed_replay(k, &c, blocks, &alloc, &st, &requests, &last, &err) != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, (lua_Integer)requests);
  lua_setfield(L, -2, "requests");
  lua_pushnumber(L, last);
  lua_setfield(L, -2, "last_cycle");
  lua_pushinteger(L, (lua_Integer)st.mshr_full_stalls);
  lua_setfield(L, -2, "mshr_full_stalls");
  lua_pushnumber(L, st.mshr_stall_cycles);
  lua_setfield(L, -2, "mshr_stall_cycles");
  lua_pushinteger(L, (lua_Integer)st.mshr_merges);
  lua_setfield(L, -2, "mshr_merges");
  lua_pushinteger(L, (lua_Integer)st.dram_bytes_read);
  lua_setfield(L, -2, "dram_bytes_read");
  lua_pushinteger(L, (lua_Integer)st.dram_bytes_written);
  lua_setfield(L, -2, "dram_bytes_written");
  lua_pushnumber(L, st.last_dram_done);
  lua_setfield(L, -2, "last_dram_done");
  return 1;
}

/* A plain pass over the arrays the memory model reads: the baseline. */
static int kernel_line_scan(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  uint64_t i, sum = 0, lines = 0;
  for (i = 0; i < k->insts; i++) {
    if (k->mem[i] != UINT32_MAX) {
      const gp_mem_record *m = &k->mem_records[k->mem[i]];
      uint32_t j;
      for (j = 0; j < m->line_count; j++)
        sum += k->lines[m->line_start + j] ^ k->sector_masks[m->line_start + j];
      lines += m->line_count;
    }
  }
  lua_pushinteger(L, (lua_Integer)lines);
  lua_pushinteger(L, (lua_Integer)(sum & 0x7fffffff));
  return 2;
}

static const luaL_Reg memsim_functions[] = {{"memsim_functional", memsim_functional},
                                            {"memsim_timed_replay", memsim_timed_replay},
                                            {"kernel_line_scan", kernel_line_scan},
                                            {NULL, NULL}};

void gpl_open_memsim(lua_State *L) { luaL_setfuncs(L, memsim_functions, 0); }
