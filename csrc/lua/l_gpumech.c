/*
 * l_gpumech.c -- GPUMech's analytical core from Lua.
 *
 *   pcs = { latency = {...}, l1_miss_reqs = {...}, dram_reqs = {...},
 *           is_memory = {...} }            -- per static PC, 1-based
 *   features = core.gpumech_features(kernel, pcs)
 *       -- { {warp_perf, insts, total_cycles}, ... } one per warp with
 *       -- instructions, plus .warp (0-based global warp index) in each
 *   index = core.gpumech_select(features, method, seed)
 *       -- method "kmeans" | "max" | "min" | "random": the representative
 *   profile = core.gpumech_profile(kernel, warp, pcs)
 *       -- { insts, stall_cycles, total_cycles, intervals = { {insts,
 *       --   stall_cycles, cause_pc, mem_insts, l1_miss_reqs, dram_reqs} } }
 *   result = core.gpumech_multiwarp(profile, input)
 *       -- input: policy "rr"|"gto", warps, issue_rate, mshrs, warps_per_sm,
 *       --   cores, avg_miss_latency, dram_service_cycles, model_mshr,
 *       --   model_dram; result: cycles, cpi, base_cycles, nonoverlapped,
 *       --   mshr_delay, dram_delay, dram_capped
 *   n = core.kernel_inst_scan(kernel)
 *       -- a plain pass over the arrays the interval pass reads (benchmark
 *       -- baseline); returns the instruction count
 */
#include "compat.h"
#include "gpumech.h"
#include "l_core.h"
#include "trace.h"

#include <string.h>

/* The per-PC arrays, read from a Lua table of lists. */
typedef struct pc_arrays {
  double *latency, *l1_miss, *dram;
  uint8_t *is_memory;
  uint32_t n;
} pc_arrays;

static double *read_list(lua_State *L, int t, const char *field, uint32_t n) {
  double *v = lua_newuserdata(L, (n + 1) * sizeof *v);
  uint32_t i;
  gpc_getfield(L, t, field);
  luaL_argcheck(L, lua_istable(L, -1), t, "per-PC lists latency, l1_miss_reqs, dram_reqs expected");
  for (i = 0; i < n; i++) {
    gpc_rawgeti(L, -1, i + 1);
    v[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return v; /* the userdata stays on the stack until the call returns */
}

static void read_pcs(lua_State *L, int t, const gp_kernel *k, pc_arrays *p) {
  uint32_t i;
  p->n = k->static_count;
  p->latency = read_list(L, t, "latency", p->n);
  p->l1_miss = read_list(L, t, "l1_miss_reqs", p->n);
  p->dram = read_list(L, t, "dram_reqs", p->n);
  p->is_memory = lua_newuserdata(L, p->n + 1);
  for (i = 0; i < p->n; i++)
    p->is_memory[i] = (uint8_t)gp_op_is_memory(k->statics[i].op_class);
}

static void stream_of(const gp_kernel *k, uint64_t w, const pc_arrays *p, gp_warp_stream *s) {
  uint64_t start = k->warp_start[w];
  memset(s, 0, sizeof *s);
  s->count = k->warp_len[w];
  s->pc_index = k->pc_index + start;
  s->dep = k->dep + start;
  s->dep_load = k->dep_load + start;
  s->pc_latency = p->latency;
  s->pc_l1_miss_reqs = p->l1_miss;
  s->pc_dram_reqs = p->dram;
  s->pc_is_memory = p->is_memory;
}

static void set_number(lua_State *L, const char *field, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, field);
}

static int gpumech_features(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  gp_alloc alloc = gp_alloc_default();
  pc_arrays p;
  uint64_t w;
  int n = 0;
  luaL_checktype(L, 2, LUA_TTABLE);
  read_pcs(L, 2, k, &p);
  lua_createtable(L, (int)k->warps, 0);
  for (w = 0; w < k->warps; w++) {
    gp_warp_stream s;
    gp_interval_profile prof;
    gp_error err;
    if (k->warp_len[w] == 0)
      continue;
    stream_of(k, w, &p, &s);
    if (gp_interval_run(&prof, &alloc, &s, &err) != GP_OK)
      return luaL_error(L, "%s", err.msg);
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)w);
    lua_setfield(L, -2, "warp");
    set_number(L, "warp_perf", gp_warp_perf(&prof, 1.0));
    set_number(L, "insts", prof.insts);
    set_number(L, "total_cycles", prof.total_cycles);
    gpc_rawseti(L, -2, ++n);
    gp_interval_free(&prof);
  }
  return 1;
}

static int gpumech_select(lua_State *L) {
  static const char *const methods[] = {"kmeans", "max", "min", "random", NULL};
  int method;
  size_t n, i;
  lua_Integer seed = luaL_optinteger(L, 3, 1);
  double *points;
  int64_t best = 0;
  gp_alloc alloc = gp_alloc_default();
  luaL_checktype(L, 1, LUA_TTABLE);
  method = luaL_checkoption(L, 2, "kmeans", methods);
  n = gpc_rawlen(L, 1);
  luaL_argcheck(L, n > 0, 1, "no warps to select from");
  points = lua_newuserdata(L, n * 3 * sizeof *points);
  for (i = 0; i < n; i++) {
    gpc_rawgeti(L, 1, i + 1);
    gpc_getfield(L, -1, "warp_perf");
    points[3 * i] = lua_tonumber(L, -1);
    gpc_getfield(L, -2, "insts");
    points[3 * i + 1] = lua_tonumber(L, -1);
    gpc_getfield(L, -3, "total_cycles");
    points[3 * i + 2] = lua_tonumber(L, -1);
    lua_pop(L, 4);
  }
  if (method == 0) {
    /* Eq. 6: the features are warp performance and instruction count */
    double *features = lua_newuserdata(L, n * 2 * sizeof *features);
    for (i = 0; i < n; i++)
      features[2 * i] = points[3 * i], features[2 * i + 1] = points[3 * i + 1];
    best = gp_kmeans_representative(features, n, 2, 2, (uint64_t)seed, &alloc, NULL);
  } else if (method == 3) {
    uint64_t x = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 1;
    x ^= x >> 31;
    best = (int64_t)(x % n);
  } else {
    for (i = 1; i < n; i++)
      if (method == 1 ? points[3 * i + 2] > points[3 * best + 2]
                      : points[3 * i + 2] < points[3 * best + 2])
        best = (int64_t)i;
  }
  lua_pushinteger(L, (lua_Integer)best + 1);
  return 1;
}

static int gpumech_profile(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  lua_Integer w = luaL_checkinteger(L, 2);
  gp_alloc alloc = gp_alloc_default();
  pc_arrays p;
  gp_warp_stream s;
  gp_interval_profile prof;
  gp_error err;
  size_t i;
  luaL_argcheck(L, w >= 0 && (uint64_t)w < k->warps, 2, "warp index out of range");
  luaL_checktype(L, 3, LUA_TTABLE);
  read_pcs(L, 3, k, &p);
  stream_of(k, (uint64_t)w, &p, &s);
  if (gp_interval_run(&prof, &alloc, &s, &err) != GP_OK)
    return luaL_error(L, "%s", err.msg);
  lua_createtable(L, 0, 4);
  set_number(L, "insts", prof.insts);
  set_number(L, "stall_cycles", prof.stall_cycles);
  set_number(L, "total_cycles", prof.total_cycles);
  lua_createtable(L, (int)prof.count, 0);
  for (i = 0; i < prof.count; i++) {
    const gp_interval *iv = &prof.intervals[i];
    lua_createtable(L, 0, 6);
    set_number(L, "insts", iv->insts);
    set_number(L, "stall_cycles", iv->stall_cycles);
    lua_pushinteger(L, (lua_Integer)iv->cause_pc + 1); /* 1-based static PC, 0: none */
    lua_setfield(L, -2, "cause_pc");
    set_number(L, "mem_insts", iv->mem_insts);
    set_number(L, "l1_miss_reqs", iv->l1_miss_reqs);
    set_number(L, "dram_reqs", iv->dram_reqs);
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "intervals");
  gp_interval_free(&prof);
  return 1;
}

static double field(lua_State *L, int t, const char *name, double def) {
  double v;
  gpc_getfield(L, t, name);
  v = lua_isnil(L, -1) ? def : lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

static int gpumech_multiwarp(lua_State *L) {
  gp_interval_profile prof;
  gp_multiwarp_input in;
  gp_multiwarp_result r;
  size_t n, i;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  gpc_getfield(L, 1, "intervals");
  luaL_argcheck(L, lua_istable(L, -1), 1, "a profile from gpumech_profile expected");
  n = gpc_rawlen(L, -1);
  memset(&prof, 0, sizeof prof);
  prof.intervals = lua_newuserdata(L, (n + 1) * sizeof *prof.intervals);
  lua_insert(L, -2);
  for (i = 0; i < n; i++) {
    gp_interval *iv = &prof.intervals[i];
    gpc_rawgeti(L, -1, i + 1);
    iv->insts = field(L, -1, "insts", 0);
    iv->stall_cycles = field(L, -1, "stall_cycles", 0);
    iv->cause_pc = (int64_t)field(L, -1, "cause_pc", 0) - 1;
    iv->mem_insts = field(L, -1, "mem_insts", 0);
    iv->l1_miss_reqs = field(L, -1, "l1_miss_reqs", 0);
    iv->dram_reqs = field(L, -1, "dram_reqs", 0);
    prof.insts += iv->insts;
    prof.stall_cycles += iv->stall_cycles;
    lua_pop(L, 1);
  }
  prof.count = n;
  prof.total_cycles = prof.insts + prof.stall_cycles;
  memset(&in, 0, sizeof in);
  gpc_getfield(L, 2, "policy");
  in.policy = strcmp(luaL_optstring(L, -1, "rr"), "gto") == 0 ? GP_POLICY_GTO : GP_POLICY_RR;
  lua_pop(L, 1);
  in.warps = field(L, 2, "warps", 1);
  in.issue_rate = field(L, 2, "issue_rate", 1);
  in.mshrs = field(L, 2, "mshrs", 32);
  in.warps_per_sm = field(L, 2, "warps_per_sm", in.warps);
  in.cores = field(L, 2, "cores", 1);
  in.avg_miss_latency = field(L, 2, "avg_miss_latency", 0);
  in.dram_service_cycles = field(L, 2, "dram_service_cycles", 0);
  in.model_mshr = field(L, 2, "model_mshr", 1) != 0;
  in.model_dram = field(L, 2, "model_dram", 1) != 0;
  luaL_argcheck(L, in.warps >= 1 && in.issue_rate > 0, 2, "warps >= 1 and issue_rate > 0 expected");
  gp_multiwarp(&prof, &in, &r);
  lua_createtable(L, 0, 7);
  set_number(L, "cycles", r.cycles);
  set_number(L, "cpi", r.cpi);
  set_number(L, "base_cycles", r.base_cycles);
  set_number(L, "nonoverlapped", r.nonoverlapped);
  set_number(L, "mshr_delay", r.mshr_delay);
  set_number(L, "dram_delay", r.dram_delay);
  lua_pushboolean(L, r.dram_capped);
  lua_setfield(L, -2, "dram_capped");
  return 1;
}

static int kernel_inst_scan(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  uint64_t i, sum = 0;
  for (i = 0; i < k->insts; i++)
    sum += k->pc_index[i] + k->dep[i] + k->dep_load[i];
  lua_pushinteger(L, (lua_Integer)k->insts);
  lua_pushinteger(L, (lua_Integer)(sum & 0x7fffffff));
  return 2;
}

static const luaL_Reg gpumech_functions[] = {
    {"kernel_inst_scan", kernel_inst_scan},{"gpumech_features", gpumech_features},
                                             {"gpumech_select", gpumech_select},
                                             {"gpumech_profile", gpumech_profile},
                                             {"gpumech_multiwarp", gpumech_multiwarp},
                                             {NULL, NULL}};

void gpl_open_gpumech(lua_State *L) { luaL_setfuncs(L, gpumech_functions, 0); }
