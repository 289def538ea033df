/*
 * l_memsim.c -- the memory model from Lua.
 *
 *   result = core.memsim_functional(kernel, machine, blocks_per_sm)  -- or nil, message
 *
 * machine: core.machine(cfg); blocks_per_sm: the kernel's occupancy
 * (gpush.occupancy).  The memory configuration is the machine's
 * (gp_machine_memsim: caches, latencies, shared memory; machine:memsim()
 * shows it).
 * result: { pcs = { [pc_index + 1] = {pc, opcode, instructions, l1_hits,
 *   l2_hits, dram, requests, l1_miss_requests, dram_requests, amat,
 *   miss_reuse = {bucket counts, memsim.h GP_REUSE_BUCKETS} when it missed L1}
 *   (memory PCs only) }, pc_count (the kernel's static instructions),
 *   load_l1_misses, mshr_requests (load requests, not atomics, missing L1), mshr_dram_requests (those also missing L2),
 *   dram_requests, dram_bytes_read, dram_bytes_written, bank_conflicts, l1_bytes and
 *   l2_bytes (32-byte sectors asked of L1/TEX and arriving at the L2, memsim.h),
 *   l1 = {...}, l2 = {...}, replay = the result in C (a gpush.memsim_replay
 *   userdata GPUMech's C entry reads: core.gpumech_predict) };
 *   shared-memory PCs also carry shared_passes.
 *
 *   result = core.memsim_replay(kernel, machine, blocks_per_sm [, prep])  -- or nil, message
 * The same without `pcs`: result.replay:pcs(kernel) builds it on request.
 * prep (core.memsim_prepare(kernel), a gpush.memsim_prep userdata): what
 * the kernel's replays share at every configuration (memsim.h
 * gp_memsim_prep), kept by a sweep across its occupancies; the same result.
 *
 *   carry = core.memsim_carry()   -- a replay carried across prefixes of one
 *                                 -- kernel (memsim.h gp_memsim_carry);
 *   carry:close()                 -- frees it now (else the collector does)
 *   result = core.memsim_replay(prefix, machine, blocks_per_sm, prep, carry)
 * The same result, the prefix's first full waves taken from the carry when
 * it holds them (a shorter prefix's, at this occupancy) and its own left
 * there for the next: gpush.sampling's samples replay 4w full waves, not 7w.
 *
 *   result = core.memsim_timed_replay(kernel, machine, blocks_per_sm)  -- or nil, message
 * (gp_machine_timed: MSHRs, L2 slices, DRAM channels and bandwidth too); result:
 *   { requests, last_cycle, mshr_full_stalls, mshr_stall_cycles, mshr_merges,
 *     dram_bytes_read, dram_bytes_written, last_dram_done }
 *
 *   lines = core.kernel_line_scan(kernel)   -- a plain pass over the same
 *                                           -- arrays (benchmark baseline)
 *
 *   key = core.memsim_key(machine, blocks_per_sm, shared_bytes)  -- a key equal
 *     for two arguments exactly where params_key(machine:memsim(blocks,
 *     shared)) is, without building the table (gpush.memsim.replay's lookup)
 *   key = core.params_key(params)  -- or nil where the Lua walk must answer
 * gpush.memsim.params_key's text of a parameter table, built in C.
 */
#include "compat.h"
#include "l_core.h"
#include "machine.h"

#include <stdlib.h>
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

#define REPLAY_MT "gpush.memsim_replay"
#define PREP_MT "gpush.memsim_prep"

/* A kernel's replay preparation (gp_memsim_prep). */
typedef struct prep_box {
  gp_memsim_prep *p;
} prep_box;

static int prep_gc(lua_State *L) {
  prep_box *b = luaL_checkudata(L, 1, PREP_MT);
  gp_memsim_prep_free(b->p);
  b->p = NULL;
  return 0;
}

#define CARRY_MT "gpush.memsim_carry"

/* A replay carried across prefixes (gp_memsim_carry). */
typedef struct carry_box {
  gp_memsim_carry *c;
} carry_box;

static int carry_gc(lua_State *L) {
  carry_box *b = luaL_checkudata(L, 1, CARRY_MT);
  gp_memsim_carry_free(b->c);
  b->c = NULL;
  return 0;
}

/* core.memsim_carry(): a new empty carry. */
static int memsim_carry(lua_State *L) {
  carry_box *b = lua_newuserdata(L, sizeof *b);
  b->c = NULL;
  luaL_getmetatable(L, CARRY_MT);
  lua_setmetatable(L, -2);
  b->c = gp_memsim_carry_new();
  if (b->c == NULL)
    return luaL_error(L, "memsim: out of memory");
  return 1;
}

/* A functional result kept in C for the models that read it there. */
typedef struct replay_box {
  gp_memsim_result r;
  gp_alloc alloc;
  int live;
} replay_box;

static int replay_gc(lua_State *L) {
  replay_box *b = luaL_checkudata(L, 1, REPLAY_MT);
  if (b->live)
    gp_memsim_result_free(&b->r, &b->alloc);
  b->live = 0;
  return 0;
}

const gp_memsim_result *gpl_check_replay(lua_State *L, int index) {
  replay_box *b = luaL_checkudata(L, index, REPLAY_MT);
  luaL_argcheck(L, b->live, index, "memsim: the replay was freed");
  return &b->r;
}

/* The occupancy argument at `arg`: resident blocks per SM. */
static uint32_t check_blocks(lua_State *L, int arg) {
  lua_Integer b = luaL_checkinteger(L, arg);
  luaL_argcheck(L, b >= 0 && b <= (lua_Integer)UINT32_MAX, arg, "blocks per SM out of range");
  return (uint32_t)b;
}

/* The per-PC table of a functional result (the header's `pcs`). */
static void push_pcs(lua_State *L, const gp_kernel *k, const gp_memsim_result *r) {
  uint32_t i;
  lua_newtable(L);
  for (i = 0; i < r->pc_count; i++) {
    const gp_pc_memory *p = &r->pcs[i];
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
}

/* The functional result as a table (the header's), its userdata (at the
 * top of the stack) as its `replay` field; the per-PC table only when
 * `with_pcs` (replay:pcs() builds it later). */
static void push_functional(lua_State *L, const gp_kernel *k, const gp_memsim_result *r,
                            int with_pcs) {
  lua_createtable(L, 0, 10);
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "replay");
  if (with_pcs) {
    push_pcs(L, k, r);
    lua_setfield(L, -2, "pcs");
  }
  lua_pushinteger(L, (lua_Integer)r->pc_count);
  lua_setfield(L, -2, "pc_count");
  lua_pushinteger(L, (lua_Integer)r->load_l1_misses);
  lua_setfield(L, -2, "load_l1_misses");
  lua_pushinteger(L, (lua_Integer)r->mshr_requests);
  lua_setfield(L, -2, "mshr_requests");
  lua_pushinteger(L, (lua_Integer)r->mshr_dram_requests);
  lua_setfield(L, -2, "mshr_dram_requests");
  lua_pushinteger(L, (lua_Integer)r->dram_requests);
  lua_setfield(L, -2, "dram_requests");
  lua_pushinteger(L, (lua_Integer)r->dram_bytes_read);
  lua_setfield(L, -2, "dram_bytes_read");
  lua_pushinteger(L, (lua_Integer)r->dram_bytes_written);
  lua_setfield(L, -2, "dram_bytes_written");
  lua_pushinteger(L, (lua_Integer)r->bank_conflicts);
  lua_setfield(L, -2, "bank_conflicts");
  lua_pushinteger(L, (lua_Integer)r->l1_bytes);
  lua_setfield(L, -2, "l1_bytes");
  lua_pushinteger(L, (lua_Integer)r->l2_bytes);
  lua_setfield(L, -2, "l2_bytes");
  push_stats(L, &r->l1, "l1");
  push_stats(L, &r->l2, "l2");
}

/* The functional mode of the kernel at argument 1 on the machine at 2 and
 * the occupancy at 3: its result in a replay userdata (left on the stack
 * below the table), pushed as a table by push_functional; on failure nil
 * and the message. */
static int functional(lua_State *L, int with_pcs) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  const gp_machine *m = gpl_check_machine(L, 2);
  gp_memsim_config c;
  replay_box *box;
  gp_error err;
  gp_memsim_prep *prep = NULL;
  gp_memsim_carry *carry = NULL;
  int status;
  gp_machine_memsim(m, check_blocks(L, 3), k->shmem_bytes, &c);
  if (!lua_isnoneornil(L, 4)) {
    prep_box *pb = luaL_checkudata(L, 4, PREP_MT);
    luaL_argcheck(L, pb->p != NULL && gp_memsim_prep_of(pb->p, k), 4,
                  "memsim: the prepared replay is of another kernel");
    prep = pb->p;
  }
  if (!lua_isnoneornil(L, 5)) {
    carry_box *cb = luaL_checkudata(L, 5, CARRY_MT);
    luaL_argcheck(L, cb->c != NULL, 5, "memsim: the carry was closed");
    luaL_argcheck(L, prep != NULL, 5, "memsim: a carried replay needs a preparation");
    carry = cb->c;
  }
  box = lua_newuserdata(L, sizeof *box);
  memset(box, 0, sizeof *box);
  luaL_getmetatable(L, REPLAY_MT);
  lua_setmetatable(L, -2);
  box->alloc = gp_alloc_default();
  status = carry  ? gp_memsim_functional_carried(k, prep, &c, carry, &box->alloc, &box->r, &err)
           : prep ? gp_memsim_functional_prepared(k, prep, &c, &box->alloc, &box->r, &err)
                  : gp_memsim_functional(k, &c, &box->alloc, &box->r, &err);
  if (status != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  box->live = 1;
  push_functional(L, k, &box->r, with_pcs);
  return 1;
}

static int memsim_functional(lua_State *L) { return functional(L, 1); }

static int memsim_replay(lua_State *L) { return functional(L, 0); }

/* core.memsim_prepare(kernel): its replay preparation, or nil, message. */
static int memsim_prepare(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  gp_alloc alloc = gp_alloc_default();
  gp_error err;
  prep_box *b = lua_newuserdata(L, sizeof *b);
  b->p = NULL;
  luaL_getmetatable(L, PREP_MT);
  lua_setmetatable(L, -2);
  if (gp_memsim_prep_new(&b->p, k, &alloc, &err) != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  return 1;
}

/* replay:pcs(kernel): the per-PC table of a replay of that kernel. */
static int replay_pcs(lua_State *L) {
  const gp_memsim_result *r = gpl_check_replay(L, 1);
  gp_kernel *k = gpl_check_kernel(L, 2);
  luaL_argcheck(L, r->pc_count == k->static_count, 2, "memsim: the replay is of another kernel");
  push_pcs(L, k, r);
  return 1;
}

/* core.memsim_extrapolate(kernel, machine, blocks_per_sm, a, b, f): the
 * replay of the kernel from replays a and b of two prefixes of it
 * (gp_memsim_result_extrapolate), as core.memsim_replay returns one. */
static int memsim_extrapolate(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  const gp_machine *m = gpl_check_machine(L, 2);
  const gp_memsim_result *a = gpl_check_replay(L, 4), *b = gpl_check_replay(L, 5);
  double f = luaL_checknumber(L, 6);
  gp_memsim_config c;
  replay_box *box;
  gp_error err;
  gp_machine_memsim(m, check_blocks(L, 3), k->shmem_bytes, &c);
  box = lua_newuserdata(L, sizeof *box);
  memset(box, 0, sizeof *box);
  luaL_getmetatable(L, REPLAY_MT);
  lua_setmetatable(L, -2);
  box->alloc = gp_alloc_default();
  if (gp_memsim_result_extrapolate(k, &c, a, b, f, &box->alloc, &box->r, &err) != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  box->live = 1;
  push_functional(L, k, &box->r, 0);
  return 1;
}

static int memsim_timed_replay(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  const gp_machine *m = gpl_check_machine(L, 2);
  uint32_t blocks = check_blocks(L, 3);
  gp_timed_config c;
  gp_timed_stats st;
  gp_alloc alloc = gp_alloc_default();
  gp_error err;
  uint64_t requests;
  double last;
  gp_machine_timed(m, blocks, k->shmem_bytes, &c);
  if (blocks == 0)
    blocks = 1;
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

/* core.params_key's text so far: a fixed buffer (a preset's replay
 * parameters take under 400 bytes); full: give the walk back to Lua. */
enum { KEY_BYTES = 2048, KEY_FIELDS = 64, KEY_DEPTH = 8 };
typedef struct key_text {
  char text[KEY_BYTES];
  size_t len;
  int full;
} key_text;

static void key_add(key_text *k, const char *s, size_t n) {
  if (k->full || n > KEY_BYTES - k->len) {
    k->full = 1;
    return;
  }
  memcpy(k->text + k->len, s, n);
  k->len += n;
}

/* Keys sort as Lua's `<` sorts strings (strcoll, as lua_lessthan). */
static int key_order(const void *a, const void *b) {
  return strcoll(*(const char *const *)a, *(const char *const *)b);
}

/* Adds "prefix.name=value" for each leaf of the table at index t, its keys
 * in sorted order, nested tables walked with "name." (the Lua walk of
 * gpush.memsim.params_key); returns 0 where it cannot answer as that walk
 * would (a key not a string or holding a zero byte, a leaf neither a
 * number, a string nor a boolean, a table with a metatable, more than
 * KEY_FIELDS keys or KEY_DEPTH levels, a text over KEY_BYTES), 1
 * otherwise. */
static int key_walk(lua_State *L, int t, key_text *k, const char *prefix, size_t plen, int depth) {
  const char *names[KEY_FIELDS];
  char inner[KEY_BYTES];
  size_t n = 0, i, len;
  if (depth > KEY_DEPTH || !lua_checkstack(L, 3))
    return 0;
  if (lua_getmetatable(L, t)) { /* __pairs or __index could change the walk */
    lua_pop(L, 1);
    return 0;
  }
  lua_pushnil(L);
  while (lua_next(L, t) != 0) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING || n == KEY_FIELDS) {
      lua_pop(L, 1);
      return 0;
    }
    names[n] = lua_tolstring(L, -1, &len); /* anchored in the table */
    if (strlen(names[n]) != len) {
      lua_pop(L, 1);
      return 0;
    }
    n++;
  }
  qsort(names, n, sizeof *names, key_order);
  for (i = 0; i < n; i++) {
    size_t nlen = strlen(names[i]);
    int ok = 1;
    lua_getfield(L, t, names[i]);
    switch (lua_type(L, -1)) {
    case LUA_TTABLE:
      if (plen + nlen + 1 > sizeof inner) {
        ok = 0;
        break;
      }
      memcpy(inner, prefix, plen);
      memcpy(inner + plen, names[i], nlen);
      inner[plen + nlen] = '.';
      ok = key_walk(L, lua_gettop(L), k, inner, plen + nlen + 1, depth + 1);
      break;
    case LUA_TBOOLEAN:
    case LUA_TNUMBER:
    case LUA_TSTRING:
      if (k->len > 0)
        key_add(k, ";", 1);
      key_add(k, prefix, plen);
      key_add(k, names[i], nlen);
      key_add(k, "=", 1);
      if (lua_type(L, -1) == LUA_TBOOLEAN) {
        key_add(k, lua_toboolean(L, -1) ? "true" : "false", lua_toboolean(L, -1) ? 4 : 5);
      } else {
        /* a number's text as tostring's (lua_tolstring converts this
         * copy, not the table's value) */
        const char *v;
        lua_pushvalue(L, -1);
        v = lua_tolstring(L, -1, &len);
        key_add(k, v, len);
        lua_pop(L, 1);
      }
      break;
    default:
      ok = 0;
    }
    lua_pop(L, 1);
    if (!ok)
      return 0;
  }
  return !k->full;
}

/* core.params_key(t): gpush.memsim.params_key(t) without `skip`, or nil
 * where the Lua walk must answer (key_walk).  A sweep looks its replay
 * up by this key at every point: 12 us a point in Lua. */
static int params_key(lua_State *L) {
  key_text k;
  luaL_checktype(L, 1, LUA_TTABLE);
  k.len = 0, k.full = 0;
  if (!key_walk(L, 1, &k, "", 0, 0)) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushlstring(L, k.text, k.len);
  return 1;
}

/* The key so far of core.memsim_key. */
typedef struct config_key {
  char bytes[512]; /* 21 integers and 5 numbers' texts of at most 24 bytes */
  size_t len;
} config_key;

static void key_bytes(config_key *k, const void *v, size_t n) {
  memcpy(k->bytes + k->len, v, n);
  k->len += n;
}

static void key_u64(config_key *k, uint64_t v) {
  key_bytes(k, &v, sizeof v);
}

/* A number leaf as machine:memsim's table holds it and tostring prints it
 * (LUAI_NUMFFORMAT, "%.14g"): two latencies that print alike give one key,
 * as in params_key's text. */
static void key_number(lua_State *L, config_key *k, double v) {
  size_t n;
  const char *text;
  lua_pushnumber(L, v);
  text = lua_tolstring(L, -1, &n);
  key_u64(k, n);
  key_bytes(k, text, n);
  lua_pop(L, 1);
}

static void key_cache(config_key *k, const gp_cache_config *c) {
  key_u64(k, c->size_bytes);
  key_u64(k, c->line_bytes);
  key_u64(k, c->ways);
  key_u64(k, c->sectored != 0);
  key_u64(k, c->write_back != 0);
}

/* core.memsim_key(machine, blocks_per_sm, shared_bytes): the replay
 * configuration's leaves as machine:memsim's table holds them (integers,
 * booleans as 0/1, numbers as they print), in a fixed order, as bytes.  Two
 * calls give the same key exactly where params_key of machine:memsim's
 * tables gives the same text (each leaf prints alike), at about a fortieth
 * of its cost (the table's 23 fields and the key walk's sort were 10 us of
 * every sweep point's replay lookup).  A field added to gp_memsim_config
 * stops the build here until the key reads it. */
static int memsim_key(lua_State *L) {
  const gp_machine *m = gpl_check_machine(L, 1);
  lua_Integer b = luaL_checkinteger(L, 2), s = luaL_optinteger(L, 3, 0);
  gp_memsim_config c;
  config_key k;
  _Static_assert(sizeof(gp_memsim_config) == 128, "memsim_key reads every field of gp_memsim_config");
  luaL_argcheck(L, b >= 0 && b <= (lua_Integer)UINT32_MAX, 2, "blocks per SM out of range");
  luaL_argcheck(L, s >= 0, 3, "shared bytes per block must not be negative");
  gp_machine_memsim(m, (uint32_t)b, (uint64_t)s, &c);
  k.len = 0;
  key_u64(&k, c.sms);
  key_u64(&k, c.blocks_per_sm);
  key_cache(&k, &c.l1);
  key_cache(&k, &c.l2);
  key_u64(&k, c.l2_slices);
  key_u64(&k, c.cache_global_in_l1 != 0);
  key_u64(&k, c.dram_access_bytes);
  key_number(L, &k, c.l1_latency);
  key_number(L, &k, c.l2_latency);
  key_number(L, &k, c.dram_latency);
  key_u64(&k, c.cc1x != GP_CC1X_OFF);
  key_u64(&k, c.shared_banks);
  key_u64(&k, c.shared_bank_bytes);
  key_number(L, &k, c.shared_latency);
  key_number(L, &k, c.const_latency);
  lua_pushlstring(L, k.bytes, k.len);
  return 1;
}

static const luaL_Reg memsim_functions[] = {{"memsim_functional", memsim_functional},
                                            {"memsim_replay", memsim_replay},
                                            {"memsim_prepare", memsim_prepare},
                                            {"memsim_carry", memsim_carry},
                                            {"memsim_extrapolate", memsim_extrapolate},
                                            {"memsim_timed_replay", memsim_timed_replay},
                                            {"kernel_line_scan", kernel_line_scan},
                                            {"params_key", params_key},
                                            {"memsim_key", memsim_key},
                                            {NULL, NULL}};

static const luaL_Reg replay_methods[] = {{"pcs", replay_pcs}, {NULL, NULL}};
static const luaL_Reg prep_methods[] = {{NULL, NULL}};
/* carry:close(): frees its model now (a carry holds two models, megabytes
 * on a large GPU the collector does not see); a closed carry is not used
 * again. */
static int carry_close(lua_State *L) {
  carry_box *b = luaL_checkudata(L, 1, CARRY_MT);
  gp_memsim_carry_free(b->c);
  b->c = NULL;
  return 0;
}

static const luaL_Reg carry_methods[] = {{"close", carry_close}, {NULL, NULL}};

void gpl_open_memsim(lua_State *L) {
  gpl_new_type(L, REPLAY_MT, replay_methods, replay_gc);
  gpl_new_type(L, PREP_MT, prep_methods, prep_gc);
  gpl_new_type(L, CARRY_MT, carry_methods, carry_gc);
  luaL_setfuncs(L, memsim_functions, 0);
}
