/*
 * l_gpumech.c -- GPUMech's analytical core (csrc/core/gpumech/: gpumech.h
 * over a traced kernel, interval.h, multiwarp.h) from Lua.
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
#include "gpumech/gpumech.h"
#include "l_core.h"

#include <string.h>

#define PROFILE_MT "gpush.gpumech_profile"

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

/* The per-PC inputs from the PC table at t, in userdata arrays that live on
 * the Lua stack until the call returns. */
static void read_pcs(lua_State *L, int t, const gp_kernel *k, gp_gm_pcs *p) {
  luaL_checktype(L, t, LUA_TTABLE);
  p->n = k->static_count;
  p->latency = new_array(L, p->n);
  p->l1_miss_reqs = new_array(L, p->n);
  p->dram_reqs = new_array(L, p->n);
  p->mem_insts = new_array(L, p->n);
  p->mix = new_array(L, (size_t)p->n * GP_MW_MIX_N);
  p->cause = lua_newuserdata(L, (p->n + 1) * sizeof *p->cause);
  read_list(L, t, "latency", p->latency, p->n, 1, 0);
  read_list(L, t, "l1_miss_reqs", p->l1_miss_reqs, p->n, 1, 1);
  read_list(L, t, "dram_reqs", p->dram_reqs, p->n, 1, 1);
  read_list(L, t, "mix_l1", p->mix + GP_MW_MIX_L1, p->n, GP_MW_MIX_N, 1);
  read_list(L, t, "mix_l2", p->mix + GP_MW_MIX_L2, p->n, GP_MW_MIX_N, 1);
  read_list(L, t, "mix_dram", p->mix + GP_MW_MIX_DRAM, p->n, GP_MW_MIX_N, 1);
  gp_gm_pcs_fill_static(k, p);
}

static double check_issue_cycles(lua_State *L, int arg) {
  double c = luaL_optnumber(L, arg, 1);
  luaL_argcheck(L, c > 0, arg, "gpumech: issue_cycles (cycles per issue slot) must be > 0");
  return c;
}

/* The representative warp's candidates: every warp's totals (Eq. 4-5). */
static int gpumech_features(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  double issue_cycles = check_issue_cycles(L, 3);
  gp_alloc alloc = gp_alloc_default();
  gp_gm_feature *f;
  gp_error err;
  gp_gm_pcs p;
  size_t n, i;
  read_pcs(L, 2, k, &p);
  f = lua_newuserdata(L, ((size_t)k->warps + 1) * sizeof *f);
  if (gp_gm_features(k, &p, issue_cycles, &alloc, f, &n, &err) != GP_OK)
    return luaL_error(L, "gpumech: %s", err.msg);
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)f[i].warp);
    lua_setfield(L, -2, "warp");
    gpl_set_number(L, "warp_perf", f[i].warp_perf);
    gpl_set_number(L, "insts", f[i].insts);
    gpl_set_number(L, "total_cycles", f[i].total_cycles);
    gpc_rawseti(L, -2, (int)i + 1);
  }
  return 1;
}

/* Sec. III-C / Fig. 7 (gp_gm_select) over the features table at 1. */
static int gpumech_select(lua_State *L) {
  static const char *const methods[] = {"kmeans", "max", "min", "random", NULL};
  static const gp_gm_select_method method_ids[] = {GP_GM_SELECT_KMEANS, GP_GM_SELECT_MAX,
                                                   GP_GM_SELECT_MIN, GP_GM_SELECT_RANDOM};
  int method = luaL_checkoption(L, 2, "kmeans", methods);
  lua_Integer seed = luaL_optinteger(L, 3, 1);
  gp_alloc alloc = gp_alloc_default();
  gp_gm_feature *f;
  gp_error err;
  size_t n, i, best;
  luaL_checktype(L, 1, LUA_TTABLE);
  n = gpc_rawlen(L, 1);
  luaL_argcheck(L, n > 0, 1, "gpumech: no warps to select from");
  f = lua_newuserdata(L, (n + 1) * sizeof *f);
  for (i = 0; i < n; i++) {
    gpc_rawgeti(L, 1, i + 1);
    memset(&f[i], 0, sizeof f[i]);
    f[i].warp_perf = gpl_opt_number(L, -1, "warp_perf", 0, "gpumech");
    f[i].insts = gpl_opt_number(L, -1, "insts", 0, "gpumech");
    lua_pop(L, 1);
  }
  if (gp_gm_select(f, n, method_ids[method], (uint64_t)seed, &alloc, &best, &err) != GP_OK)
    return luaL_error(L, "gpumech: %s", err.msg);
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
  gp_gm_pcs p;
  gp_error err;
  l_profile *lp;
  size_t bytes;
  luaL_argcheck(L, w >= 0 && (uint64_t)w < k->warps, 2, "gpumech: warp index out of range");
  read_pcs(L, 3, k, &p);
  lp = new_profile(L);
  if (gp_gm_profile(&lp->prof, k, (uint64_t)w, &p, issue_cycles, &err) != GP_OK)
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
    insts = gpl_opt_number(L, -1, "insts", 0, "gpumech");
    luaL_argcheck(L, insts >= 0 && insts == (double)(uint64_t)insts, 1,
                  "gpumech: interval insts must be a whole number >= 0");
    memset(&iv[i], 0, sizeof iv[i]);
    iv[i].insts = (uint64_t)insts;
    iv[i].stall_cycles = gpl_opt_number(L, -1, "stall_cycles", 0, "gpumech");
    iv[i].cause = iv[i].stall_cycles > 0 ? 0 : -1;
    iv[i].mem_insts = gpl_opt_number(L, -1, "mem_insts", 0, "gpumech");
    iv[i].l1_miss_reqs = gpl_opt_number(L, -1, "l1_miss_reqs", 0, "gpumech");
    iv[i].dram_reqs = gpl_opt_number(L, -1, "dram_reqs", 0, "gpumech");
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
  gpl_set_number(L, "insts", (double)p->insts);
  gpl_set_number(L, "stall_cycles", p->stall_cycles);
  gpl_set_number(L, "stall_events", (double)p->stall_events);
  gpl_set_number(L, "total_cycles", p->total_cycles);
  gpl_set_number(L, "issue_cycles", p->issue_cycles);
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
    gpl_set_number(L, "insts", (double)iv->insts);
    gpl_set_number(L, "stall_cycles", iv->stall_cycles);
    lua_pushinteger(L, (lua_Integer)iv->cause + 1); /* 1-based static PC, 0: none */
    lua_setfield(L, -2, "cause_pc");
    gpl_set_number(L, "mem_insts", iv->mem_insts);
    gpl_set_number(L, "l1_miss_reqs", iv->l1_miss_reqs);
    gpl_set_number(L, "dram_reqs", iv->dram_reqs);
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
  par->warps = gpl_opt_number(L, t, "warps", 1, "gpumech");
  par->issue_rate = gpl_opt_number(L, t, "issue_rate", 1 / lp->prof.issue_cycles, "gpumech");
  par->issue_prob = gpl_opt_number(L, t, "issue_prob", 0, "gpumech");
  par->warps_per_sm = gpl_opt_number(L, t, "warps_per_sm", 0, "gpumech");
  par->mshrs = gpl_opt_number(L, t, "mshrs", 1, "gpumech");
  par->avg_miss_latency_cycles = gpl_opt_number(L, t, "avg_miss_latency", 0, "gpumech");
  par->sms_with_blocks = gpl_opt_number(L, t, "sms_with_blocks", 1, "gpumech");
  par->dram_service_cycles = gpl_opt_number(L, t, "dram_service_cycles", 0, "gpumech");
  par->kernel_dram_reqs_per_warp =
      gpl_opt_number(L, t, "kernel_dram_reqs_per_warp", 0, "gpumech");
  par->cause_mix = lp->mix_rows >= lp->prof.ncause ? lp->mix : NULL;
}

static void push_stack(lua_State *L, const double *stack) {
  static const char *const names[GP_MW_STACK_N] = {"BASE", "DEP", "L1", "L2",
                                                   "DRAM", "MSHR", "QUEUE"};
  int j;
  lua_createtable(L, 0, GP_MW_STACK_N);
  for (j = 0; j < GP_MW_STACK_N; j++)
    gpl_set_number(L, names[j], stack[j]);
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
  gpl_set_number(L, "cycles", r.cycles);
  gpl_set_number(L, "cpi", r.cpi);
  gpl_set_number(L, "ipc", r.ipc);
  gpl_set_number(L, "base_cycles", r.base_cycles);
  gpl_set_number(L, "nonoverlapped", r.nonoverlapped);
  gpl_set_number(L, "remaining_stall_cycles", r.remaining_stall_cycles);
  gpl_set_number(L, "mshr_delay", r.mshr_cycles);
  gpl_set_number(L, "dram_delay", r.dram_cycles);
  gpl_set_number(L, "issue_prob", r.issue_prob);
  lua_pushboolean(L, r.dram_rho_capped + r.dram_delay_capped > 0);
  lua_setfield(L, -2, "dram_capped");
  lua_pushboolean(L, r.issue_bound);
  lua_setfield(L, -2, "issue_bound");
  lua_pushboolean(L, r.bandwidth_bound);
  lua_setfield(L, -2, "bandwidth_bound");
  gpl_set_number(L, "dram_transfer_cycles", r.dram_transfer_cycles);
  if (par.model == GP_MW_MARKOV) {
    lua_createtable(L, 0, 3);
    gpl_set_number(L, "p_stall", r.markov_p_stall);
    gpl_set_number(L, "stall_slots", r.markov_stall_slots);
    gpl_set_number(L, "ipc", r.markov_ipc);
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
    sum += k->pc_index[i] + k->deps[i * GP_DEPS];
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
