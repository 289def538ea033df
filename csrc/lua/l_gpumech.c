/*
 * l_gpumech.c -- GPUMech's analytical core (interval.h, kmeans.h,
 * multiwarp.h) from Lua.
 *
 *   pcs = { latency = {...}, l1_miss_reqs = {...}, dram_reqs = {...},
 *           mix_l1 = {...}, mix_l2 = {...}, mix_dram = {...} }
 *       -- per static PC, 1-based (only latency is required; absent
 *       -- lists read as zeros): latency in cycles, expected L1-missing
 *       -- and DRAM requests per execution, and for memory PCs the
 *       -- fractions of executions whose miss event is an L1 hit, an L2 hit
 *       -- and a DRAM access (all zero for compute PCs: their stalls are DEP)
 *   features = core.gpumech_features(kernel, pcs, issue_cycles)
 *       -- { {warp, warp_perf, insts, total_cycles}, ... } one per warp with
 *       -- instructions (warp: 0-based global warp index)
 *   index = core.gpumech_select(features, method, seed)
 *       -- method "kmeans" | "max" | "min" | "random": 1-based index into
 *       -- features of the representative warp
 *   profile = core.gpumech_profile(kernel, warp, pcs, issue_cycles)
 *   profile = core.gpumech_profile_of(intervals, issue_cycles)
 *       -- a profile userdata, from the interval pass over one warp or from
 *       -- intervals given by hand ({insts, stall_cycles, mem_insts,
 *       -- l1_miss_reqs, dram_reqs}; their stalls count as DEP)
 *   profile:summary()   -- insts, stall_cycles, stall_events, total_cycles,
 *                       -- intervals (count), issue_cycles
 *   profile:intervals() -- { {first, insts, stall_cycles, cause_pc, mem_insts,
 *                       --   l1_miss_reqs, dram_reqs}, ... } (cause_pc 1-based, 0 none)
 *   result = profile:predict(params)
 *       -- params: model "naive"|"markov"|"mt"|"mt_mshr"|"mt_mshr_band",
 *       --   policy "rr"|"gto", warps, issue_rate, issue_prob (optional),
 *       --   warps_per_sm, mshrs, avg_miss_latency, sms_with_blocks,
 *       --   dram_service_cycles, kernel_dram_reqs_per_warp
 *       -- result: cycles, cpi, ipc, base_cycles, nonoverlapped, mshr_delay,
 *       --   dram_delay, dram_capped, issue_bound, bandwidth_bound,
 *       --   dram_transfer_cycles, issue_prob,
 *       --   remaining_stall_cycles, markov = {p_stall, stall_slots, ipc},
 *       --   stack = {BASE, DEP, L1, L2, DRAM, MSHR, QUEUE} in CPI units
 *   n = core.kernel_inst_scan(kernel)
 *       -- a plain pass over the arrays the interval pass reads (benchmark
 *       -- baseline); returns the instruction count
 */
#include "compat.h"
#include "gpumech/interval.h"
#include "num/kmeans.h"
#include "l_core.h"
#include "gpumech/multiwarp.h"
#include "trace.h"

#include <string.h>

#define PROFILE_MT "gpush.gpumech_profile"

/* The interval pass's per-PC inputs, read from a Lua table of lists.  The
 * arrays live in userdata on the Lua stack until the call returns. */
typedef struct pc_arrays {
  double *latency, *l1_miss, *dram, *mem_insts, *mix;
  int32_t *cause;
  uint32_t n;
} pc_arrays;

static double *new_array(lua_State *L, size_t n) {
  return lua_newuserdata(L, (n + 1) * sizeof(double));
}

/* Reads per-PC list `field` of table t into v[i * stride]; an optional list
 * that is absent reads as zeros. */
static void read_list(lua_State *L, int t, const char *field, double *v, uint32_t n,
                      size_t stride, int optional) {
  uint32_t i;
  gpc_getfield(L, t, field);
  if (optional && lua_isnil(L, -1)) {
    for (i = 0; i < n; i++)
      v[i * stride] = 0;
    lua_pop(L, 1);
    return;
  }
  if (!lua_istable(L, -1))
    luaL_error(L, "gpumech: per-PC list '%s' expected in the PC table", field);
  for (i = 0; i < n; i++) {
    gpc_rawgeti(L, -1, i + 1);
    v[i * stride] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* Cause ids are static PC indices; a PC's cause-mix row is its miss-event
 * distribution (Sec. VII), zero for compute PCs (DEP). */
static void read_pcs(lua_State *L, int t, const gp_kernel *k, pc_arrays *p) {
  uint32_t i;
  luaL_checktype(L, t, LUA_TTABLE);
  p->n = k->static_count;
  p->latency = new_array(L, p->n);
  p->l1_miss = new_array(L, p->n);
  p->dram = new_array(L, p->n);
  p->mem_insts = new_array(L, p->n);
  p->mix = new_array(L, (size_t)p->n * GP_MW_MIX_N);
  p->cause = lua_newuserdata(L, (p->n + 1) * sizeof *p->cause);
  read_list(L, t, "latency", p->latency, p->n, 1, 0);
  read_list(L, t, "l1_miss_reqs", p->l1_miss, p->n, 1, 1);
  read_list(L, t, "dram_reqs", p->dram, p->n, 1, 1);
  read_list(L, t, "mix_l1", p->mix + GP_MW_MIX_L1, p->n, GP_MW_MIX_N, 1);
  read_list(L, t, "mix_l2", p->mix + GP_MW_MIX_L2, p->n, GP_MW_MIX_N, 1);
  read_list(L, t, "mix_dram", p->mix + GP_MW_MIX_DRAM, p->n, GP_MW_MIX_N, 1);
  for (i = 0; i < p->n; i++) {
    p->mix[(size_t)i * GP_MW_MIX_N + GP_MW_MIX_DEP] = 0;
    p->mem_insts[i] = gp_op_is_memory(k->statics[i].op_class) ? 1 : 0;
    p->cause[i] = (int32_t)i;
  }
}

/* One warp of the kernel as the interval pass's input. */
static void input_of(const gp_kernel *k, uint64_t w, const pc_arrays *p, double issue_cycles,
                     int totals_only, gp_iv_input *in) {
  uint64_t start = k->warp_start[w];
  memset(in, 0, sizeof *in);
  in->count = k->warp_len[w];
  in->pc = k->pc_index + start;
  in->dep[0] = k->dep + start;
  in->dep[1] = k->dep_load + start;
  in->latency = p->latency;
  in->cause = p->cause;
  in->ncause = p->n ? p->n : 1;
  in->issue_cycles = issue_cycles;
  in->totals_only = totals_only;
  if (!totals_only) {
    in->mem_insts = p->mem_insts;
    in->l1_miss_reqs = p->l1_miss;
    in->dram_reqs = p->dram;
  }
}

static double check_issue_cycles(lua_State *L, int arg) {
  double c = luaL_optnumber(L, arg, 1);
  luaL_argcheck(L, c > 0, arg, "gpumech: issue_cycles (cycles per issue slot) must be > 0");
  return c;
}

static void set_number(lua_State *L, const char *field, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, field);
}

/* The representative warp's candidates: every warp's totals (Eq. 4-5). */
static int gpumech_features(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  double issue_cycles = check_issue_cycles(L, 3);
  gp_alloc alloc = gp_alloc_default();
  gp_iv_profile prof;
  gp_error err;
  pc_arrays p;
  uint64_t w;
  int n = 0;
  read_pcs(L, 2, k, &p);
  lua_createtable(L, (int)k->warps, 0);
  gp_iv_profile_init(&prof, &alloc);
  for (w = 0; w < k->warps; w++) {
    gp_iv_input in;
    if (k->warp_len[w] == 0)
      continue;
    input_of(k, w, &p, issue_cycles, 1, &in);
    if (gp_iv_run(&prof, &in, NULL, &err) != GP_OK) {
      gp_iv_profile_free(&prof);
      return luaL_error(L, "gpumech: %s", err.msg);
    }
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)w);
    lua_setfield(L, -2, "warp");
    set_number(L, "warp_perf", gp_iv_warp_perf(&prof));
    set_number(L, "insts", (double)prof.insts);
    set_number(L, "total_cycles", prof.total_cycles);
    gpc_rawseti(L, -2, ++n);
  }
  gp_iv_profile_free(&prof);
  return 1;
}

static double number_field(lua_State *L, int t, const char *name, double def) {
  double v;
  gpc_getfield(L, t, name);
  v = lua_isnil(L, -1) ? def : lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

/* Sec. III-C: k-means over Eq. 6's features, or Fig. 7's MAX / MIN (by
 * warp performance, as the paper ranks them) / a seeded RANDOM pick. */
static int gpumech_select(lua_State *L) {
  static const char *const methods[] = {"kmeans", "max", "min", "random", NULL};
  int method = luaL_checkoption(L, 2, "kmeans", methods);
  lua_Integer seed = luaL_optinteger(L, 3, 1);
  gp_alloc alloc = gp_alloc_default();
  size_t n, i, best;
  double *perf, *insts;
  luaL_checktype(L, 1, LUA_TTABLE);
  n = gpc_rawlen(L, 1);
  luaL_argcheck(L, n > 0, 1, "gpumech: no warps to select from");
  perf = new_array(L, n);
  insts = new_array(L, n);
  for (i = 0; i < n; i++) {
    gpc_rawgeti(L, 1, i + 1);
    perf[i] = number_field(L, -1, "warp_perf", 0);
    insts[i] = number_field(L, -1, "insts", 0);
    lua_pop(L, 1);
  }
  if (method == 0) {
    double *features = new_array(L, 2 * n);
    gp_km_opts opts;
    gp_km_result r;
    gp_error err;
    gp_km_opts_default(&opts);
    opts.seed = (uint64_t)seed;
    gp_km_warp_features(features, n, perf, insts);
    if (gp_km_run(features, n, 2, &opts, &alloc, NULL, NULL, &r, &err) != GP_OK)
      return luaL_error(L, "gpumech: %s", err.msg);
    best = r.representative;
  } else {
    static const gp_km_pick picks[] = {GP_KM_PICK_MAX, GP_KM_PICK_MAX, GP_KM_PICK_MIN,
                                       GP_KM_PICK_RANDOM};
    best = gp_km_pick_index(perf, n, picks[method], (uint64_t)seed);
  }
  lua_pushinteger(L, (lua_Integer)best + 1);
  return 1;
}

/* ---------------------------------------------------------------------------
 * Profile userdata
 * ------------------------------------------------------------------------- */

typedef struct l_profile {
  gp_iv_profile prof;
  double *mix; /* ncause x GP_MW_MIX_N cause-mix rows, or NULL (all DEP) */
  size_t mix_rows;
} l_profile;

static l_profile *new_profile(lua_State *L) {
  l_profile *lp = lua_newuserdata(L, sizeof *lp);
  gp_alloc alloc = gp_alloc_default();
  memset(lp, 0, sizeof *lp);
  gp_iv_profile_init(&lp->prof, &alloc);
  luaL_getmetatable(L, PROFILE_MT);
  lua_setmetatable(L, -2);
  return lp;
}

static l_profile *check_profile(lua_State *L, int arg) {
  return luaL_checkudata(L, arg, PROFILE_MT);
}

static int profile_gc(lua_State *L) {
  l_profile *lp = check_profile(L, 1);
  gp_free(&lp->prof.alloc, lp->mix, lp->mix_rows * GP_MW_MIX_N * sizeof *lp->mix);
  lp->mix = NULL;
  lp->mix_rows = 0;
  gp_iv_profile_free(&lp->prof);
  return 0;
}

/* The interval pass (Eq. 4) over one warp, intervals kept. */
static int gpumech_profile(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  lua_Integer w = luaL_checkinteger(L, 2);
  double issue_cycles = check_issue_cycles(L, 4);
  pc_arrays p;
  gp_iv_input in;
  gp_error err;
  l_profile *lp;
  size_t bytes;
  luaL_argcheck(L, w >= 0 && (uint64_t)w < k->warps, 2, "gpumech: warp index out of range");
  read_pcs(L, 3, k, &p);
  lp = new_profile(L);
  input_of(k, (uint64_t)w, &p, issue_cycles, 0, &in);
  if (gp_iv_run(&lp->prof, &in, NULL, &err) != GP_OK)
    return luaL_error(L, "gpumech: %s", err.msg);
  bytes = (size_t)p.n * GP_MW_MIX_N * sizeof *lp->mix;
  if (bytes > 0) {
    lp->mix = gp_malloc(&lp->prof.alloc, bytes);
    if (lp->mix == NULL)
      return luaL_error(L, "gpumech: out of memory");
    memcpy(lp->mix, p.mix, bytes);
    lp->mix_rows = p.n;
  }
  return 1;
}

/* A profile from intervals given by hand (tests, worked examples). */
static int gpumech_profile_of(lua_State *L) {
  double issue_cycles = check_issue_cycles(L, 2);
  size_t n, i;
  gp_iv_interval *iv;
  gp_error err;
  l_profile *lp;
  luaL_checktype(L, 1, LUA_TTABLE);
  n = gpc_rawlen(L, 1);
  iv = lua_newuserdata(L, (n + 1) * sizeof *iv);
  for (i = 0; i < n; i++) {
    double insts;
    gpc_rawgeti(L, 1, i + 1);
    luaL_argcheck(L, lua_istable(L, -1), 1, "gpumech: a list of interval tables expected");
    insts = number_field(L, -1, "insts", 0);
    luaL_argcheck(L, insts >= 0 && insts == (double)(uint64_t)insts, 1,
                  "gpumech: interval insts must be a whole number >= 0");
    memset(&iv[i], 0, sizeof iv[i]);
    iv[i].insts = (uint64_t)insts;
    iv[i].stall_cycles = number_field(L, -1, "stall_cycles", 0);
    iv[i].cause = iv[i].stall_cycles > 0 ? 0 : -1;
    iv[i].mem_insts = number_field(L, -1, "mem_insts", 0);
    iv[i].l1_miss_reqs = number_field(L, -1, "l1_miss_reqs", 0);
    iv[i].dram_reqs = number_field(L, -1, "dram_reqs", 0);
    lua_pop(L, 1);
  }
  lp = new_profile(L);
  if (gp_iv_profile_set(&lp->prof, iv, n, 1, issue_cycles, &err) != GP_OK)
    return luaL_error(L, "gpumech: %s", err.msg);
  return 1;
}

static int profile_summary(lua_State *L) {
  const gp_iv_profile *p = &check_profile(L, 1)->prof;
  lua_createtable(L, 0, 6);
  set_number(L, "insts", (double)p->insts);
  set_number(L, "stall_cycles", p->stall_cycles);
  set_number(L, "stall_events", (double)p->stall_events);
  set_number(L, "total_cycles", p->total_cycles);
  set_number(L, "issue_cycles", p->issue_cycles);
  lua_pushinteger(L, (lua_Integer)p->count);
  lua_setfield(L, -2, "intervals");
  return 1;
}

static int profile_intervals(lua_State *L) {
  const gp_iv_profile *p = &check_profile(L, 1)->prof;
  size_t i;
  lua_createtable(L, (int)p->count, 0);
  for (i = 0; i < p->count; i++) {
    const gp_iv_interval *iv = &p->iv[i];
    lua_createtable(L, 0, 7);
    lua_pushinteger(L, (lua_Integer)iv->first + 1);
    lua_setfield(L, -2, "first");
    set_number(L, "insts", (double)iv->insts);
    set_number(L, "stall_cycles", iv->stall_cycles);
    lua_pushinteger(L, (lua_Integer)iv->cause + 1); /* 1-based static PC, 0: none */
    lua_setfield(L, -2, "cause_pc");
    set_number(L, "mem_insts", iv->mem_insts);
    set_number(L, "l1_miss_reqs", iv->l1_miss_reqs);
    set_number(L, "dram_reqs", iv->dram_reqs);
    gpc_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* The index of field `name` of table t in `options` (default when absent);
 * anything else raises an error naming the parameter and the choices. */
static int option_field(lua_State *L, int t, const char *name, const char *const *options,
                        int def) {
  const char *v;
  luaL_Buffer b;
  int i;
  gpc_getfield(L, t, name);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return def;
  }
  v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  for (i = 0; v && options[i]; i++)
    if (strcmp(v, options[i]) == 0) {
      lua_pop(L, 1);
      return i;
    }
  luaL_buffinit(L, &b);
  for (i = 0; options[i]; i++) {
    luaL_addstring(&b, i ? ", " : "");
    luaL_addstring(&b, options[i]);
  }
  luaL_pushresult(&b);
  return luaL_error(L, "gpumech: parameter '%s' must be one of %s (got %s)", name,
                    lua_tostring(L, -1), v ? v : luaL_typename(L, -2));
}

static void read_predict_params(lua_State *L, int t, const l_profile *lp, gp_mw_params *par) {
  static const char *const models[] = {"naive", "markov", "mt", "mt_mshr", "mt_mshr_band", NULL};
  static const gp_mw_model model_ids[] = {GP_MW_NAIVE, GP_MW_MARKOV, GP_MW_MT, GP_MW_MT_MSHR,
                                          GP_MW_MT_MSHR_BAND};
  static const char *const policies[] = {"rr", "gto", NULL};
  luaL_checktype(L, t, LUA_TTABLE);
  memset(par, 0, sizeof *par);
  par->model = model_ids[option_field(L, t, "model", models, 4)];
  par->policy = option_field(L, t, "policy", policies, 0) == 1 ? GP_MW_GTO : GP_MW_RR;
  par->warps = number_field(L, t, "warps", 1);
  par->issue_rate = number_field(L, t, "issue_rate", 1 / lp->prof.issue_cycles);
  par->issue_prob = number_field(L, t, "issue_prob", 0);
  par->warps_per_sm = number_field(L, t, "warps_per_sm", 0);
  par->mshrs = number_field(L, t, "mshrs", 1);
  par->avg_miss_latency_cycles = number_field(L, t, "avg_miss_latency", 0);
  par->sms_with_blocks = number_field(L, t, "sms_with_blocks", 1);
  par->dram_service_cycles = number_field(L, t, "dram_service_cycles", 0);
  par->kernel_dram_reqs_per_warp = number_field(L, t, "kernel_dram_reqs_per_warp", 0);
  par->cause_mix = lp->mix_rows >= lp->prof.ncause ? lp->mix : NULL;
}

static void push_stack(lua_State *L, const double *stack) {
  static const char *const names[GP_MW_STACK_N] = {"BASE", "DEP", "L1", "L2",
                                                   "DRAM", "MSHR", "QUEUE"};
  int j;
  lua_createtable(L, 0, GP_MW_STACK_N);
  for (j = 0; j < GP_MW_STACK_N; j++)
    set_number(L, names[j], stack[j]);
}

/* Table II's models over this profile for one warp scheduler. */
static int profile_predict(lua_State *L) {
  l_profile *lp = check_profile(L, 1);
  gp_mw_params par;
  gp_mw_result r;
  gp_error err;
  read_predict_params(L, 2, lp, &par);
  if (gp_mw_predict(&lp->prof, &par, &r, &err) != GP_OK)
    return luaL_error(L, "gpumech: %s", err.msg);
  lua_createtable(L, 0, 14);
  set_number(L, "cycles", r.cycles);
  set_number(L, "cpi", r.cpi);
  set_number(L, "ipc", r.ipc);
  set_number(L, "base_cycles", r.base_cycles);
  set_number(L, "nonoverlapped", r.nonoverlapped);
  set_number(L, "remaining_stall_cycles", r.remaining_stall_cycles);
  set_number(L, "mshr_delay", r.mshr_cycles);
  set_number(L, "dram_delay", r.dram_cycles);
  set_number(L, "issue_prob", r.issue_prob);
  lua_pushboolean(L, r.dram_rho_capped + r.dram_delay_capped > 0);
  lua_setfield(L, -2, "dram_capped");
  lua_pushboolean(L, r.issue_bound);
  lua_setfield(L, -2, "issue_bound");
  lua_pushboolean(L, r.bandwidth_bound);
  lua_setfield(L, -2, "bandwidth_bound");
  set_number(L, "dram_transfer_cycles", r.dram_transfer_cycles);
  if (par.model == GP_MW_MARKOV) {
    lua_createtable(L, 0, 3);
    set_number(L, "p_stall", r.markov_p_stall);
    set_number(L, "stall_slots", r.markov_stall_slots);
    set_number(L, "ipc", r.markov_ipc);
    lua_setfield(L, -2, "markov");
  }
  push_stack(L, r.stack);
  lua_setfield(L, -2, "stack");
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

static const luaL_Reg profile_methods[] = {{"summary", profile_summary},
                                           {"intervals", profile_intervals},
                                           {"predict", profile_predict},
                                           {NULL, NULL}};

static const luaL_Reg gpumech_functions[] = {{"kernel_inst_scan", kernel_inst_scan},
                                             {"gpumech_features", gpumech_features},
                                             {"gpumech_select", gpumech_select},
                                             {"gpumech_profile", gpumech_profile},
                                             {"gpumech_profile_of", gpumech_profile_of},
                                             {NULL, NULL}};

void gpl_open_gpumech(lua_State *L) {
  gpl_new_type(L, PROFILE_MT, profile_methods, profile_gc);
  luaL_setfuncs(L, gpumech_functions, 0);
}
