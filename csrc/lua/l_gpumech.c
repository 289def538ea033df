/*
 * l_gpumech.c -- GPUMech's analytical core (csrc/core/gpumech/: gpumech.h
 * over a traced kernel, interval.h, multiwarp.h) from Lua.
 *
 *   pcs = { latency = {...}, l1_miss_reqs = {...}, dram_reqs = {...},
 *           l2_reqs = {...}, unit = {...}, unit_busy = {...},
 *           mix_l1 = {...}, mix_l2 = {...}, mix_dram = {...}, mix_bank = {...} }
 *       -- per static PC, 1-based (only latency is required; absent
 *       -- lists read as zeros): latency in cycles, expected L1-missing,
 *       -- DRAM and L2 requests per execution, the scheduler unit it
 *       -- occupies ("int", "fma", "fp64", "sfu", "tensor", "uniform",
 *       -- "other", "lsu" or false) and for how many cycles, and for memory
 *       -- PCs the fractions of executions whose miss event is an L1 hit, an
 *       -- L2 hit and a DRAM access, and of a shared-memory PC's latency
 *       -- its bank-conflict passes (all zero for compute PCs: DEP);
 *       -- optional inactive_latency = {...}: the latency of an execution
 *       -- with no active lane (< 0: the PC's latency; interval.h); and
 *       -- unit_timing = true: an instruction waits for its unit (interval.h)
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
 *       --   equations "paper"|"gpush" (default paper), policy "rr"|"gto",
 *       --   warps, issue_rate, issue_prob (optional), warps_per_sm, mshrs,
 *       --   avg_miss_latency, sms_with_blocks, dram_service_cycles,
 *       --   kernel_dram_reqs_per_warp; gpush's equations also
 *       --   kernel_insts_per_warp, kernel_l1_miss_reqs_per_warp,
 *       --   kernel_l2_reqs_per_warp, kernel_unit_busy_per_warp = {int = ...,
 *       --   lsu = ...}, kernel_bank_busy_per_warp, dram_channels, l2_slices,
 *       --   l2_service_cycles, miss_dram_fraction (multiwarp.h)
 *       -- result: cycles, cpi, ipc, base_cycles, nonoverlapped, mshr_delay,
 *       --   dram_delay, dram_capped, issue_bound, bandwidth_bound,
 *       --   dram_transfer_cycles, issue_prob,
 *       --   remaining_stall_cycles, markov = {p_stall, stall_slots, ipc},
 *       --   stack = {BASE, DEP, L1, L2, DRAM, MSHR, QUEUE, L2BW, SFU, FP64,
 *       --   PIPE, LSU, BANK} in CPI units; gpush's equations also bound (the
 *       --   binding resource: "latency", "issue", "mshr", "dram", "l2" or a
 *       --   unit) and resources = {name = {demand, utilisation, wait}}
 * A launch on a machine, in one call each (csrc/core/gpumech/launch.c):
 *   prepared [, counts] = core.gpumech_prepare(kernel, machine, replay, options)
 *       -- replay: memsim.functional's result's `replay` (same kernel,
 *       -- machine and occupancy); options: equations "gpush" (default) |
 *       -- "paper", select "kmeans" | "max" | "min" | "random", seed,
 *       -- count_bounds (the occupancy: also gpush.bounds' counts there, in
 *       -- one walk with the pass over every warp, returned second).  A
 *       -- userdata: prepared:warp(), prepared:critical() -> { {block, warp,
 *       -- cycles}, ... } (gpush's equations: every block's critical warp)
 *   result, profile = core.gpumech_predict(kernel, machine, replay, options [, counts])
 *       -- options: model, policy, equations, blocks_per_sm (required),
 *       -- prepared (a prepared userdata of the same equations) or select
 *       -- and seed, per_pc (true: also result.per_pc = {{pc, opcode, line,
 *       -- executions, cycles, stalls = {BASE = ...}}}, the stack per static
 *       -- PC in scheduler cycles, gp_gm_pc_costs_build); counts: gpush.bounds' counts of this kernel, machine and
 *       -- occupancy (gpush's equations floor the launch at their bounds),
 *       -- or true: count them here (without `prepared`, in one walk with
 *       -- the pass over every warp) and return them as result.bound_counts.
 *       -- result: cycles, cpi, stack, waves, dispatch_cycles,
 *       --   representative_warp, warps_per_scheduler, nonoverlapped,
 *       --   mshr_delay, dram_delay, markov (model markov), profile (the
 *       --   summary), dram_capped, bandwidth_bound (the paper's validity
 *       --   flags); gpush's launch totals also bound, resources,
 *       --   mshr_rounds_cycles (MT_MSHR and up), critical_warp,
 *       --   wave_shapes = { {count, blocks, warps_on_sm, warp, cycles,
 *       --   bound}, ... }, hard_bound = {name, cycles} (with counts);
 *       -- profile: the reported warp's profile userdata (its intervals on
 *       --   request)
 *   pcs = core.gpumech_inputs(kernel, machine, replay, equations)
 *       -- the per-PC table above (and kernel = the mean warp's demands,
 *       -- avg_miss_latency, mshr_hold_latency, miss_dram_fraction), as the
 *       -- launch reads them
 *   n = core.kernel_inst_scan(kernel)
 *       -- a plain pass over the arrays the interval pass reads (benchmark
 *       -- baseline); returns the instruction count
 */
#include "compat.h"
#include "gpumech/gpumech.h"
#include "l_core.h"

#include <math.h>
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

/* The scheduler units, by the names the PC table's `unit` list uses. */
static const char *const unit_names[] = {"int",     "fma",   "fp64", "sfu", "tensor",
                                         "uniform", "other", "lsu",  NULL};

/* Per-PC list `unit` (optional): a unit name per static PC or false/nil
 * for none. */
static void read_units(lua_State *L, int t, gp_gm_pcs *p) {
  uint32_t i;
  int u;
  gpc_getfield(L, t, "unit");
  for (i = 0; i < p->n; i++)
    p->unit[i] = -1;
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  if (!lua_istable(L, -1))
    luaL_error(L, "gpumech: per-PC list 'unit' expected in the PC table");
  for (i = 0; i < p->n; i++) {
    const char *name;
    gpc_rawgeti(L, -1, i + 1);
    name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (name) {
      for (u = 0; unit_names[u] && strcmp(unit_names[u], name) != 0; u++)
        ;
      if (!unit_names[u])
        luaL_error(L, "gpumech: PC %d has unit '%s' (expected int, fma, fp64, sfu, tensor, "
                      "uniform, other or lsu)", (int)i + 1, name);
      p->unit[i] = (int8_t)u;
    }
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
  p->l2_reqs = new_array(L, p->n);
  p->unit_busy = new_array(L, p->n);
  p->mix = new_array(L, (size_t)p->n * GP_MW_MIX_N);
  p->cause = lua_newuserdata(L, (p->n + 1) * sizeof *p->cause);
  p->unit = lua_newuserdata(L, p->n + 1);
  read_list(L, t, "latency", p->latency, p->n, 1, 0);
  read_list(L, t, "l1_miss_reqs", p->l1_miss_reqs, p->n, 1, 1);
  read_list(L, t, "dram_reqs", p->dram_reqs, p->n, 1, 1);
  read_list(L, t, "l2_reqs", p->l2_reqs, p->n, 1, 1);
  read_list(L, t, "unit_busy", p->unit_busy, p->n, 1, 1);
  gpc_getfield(L, t, "inactive_latency");
  p->inactive_latency = lua_isnil(L, -1) ? NULL : new_array(L, p->n);
  lua_pop(L, 1);
  if (p->inactive_latency)
    read_list(L, t, "inactive_latency", p->inactive_latency, p->n, 1, 0);
  gpc_getfield(L, t, "unit_timing");
  p->unit_timing = lua_toboolean(L, -1);
  lua_pop(L, 1);
  read_list(L, t, "mix_l1", p->mix + GP_MW_MIX_L1, p->n, GP_MW_MIX_N, 1);
  read_list(L, t, "mix_l2", p->mix + GP_MW_MIX_L2, p->n, GP_MW_MIX_N, 1);
  read_list(L, t, "mix_dram", p->mix + GP_MW_MIX_DRAM, p->n, GP_MW_MIX_N, 1);
  read_list(L, t, "mix_bank", p->mix + GP_MW_MIX_BANK, p->n, GP_MW_MIX_N, 1);
  read_units(L, t, p);
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
  static const char *const equations[] = {"paper", "gpush", NULL};
  int u;
  luaL_checktype(L, t, LUA_TTABLE);
  memset(par, 0, sizeof *par);
  par->model = model_ids[option_field(L, t, "model", models, 4)];
  par->equations = option_field(L, t, "equations", equations, 0) == 1 ? GP_MW_EQ_GPUSH
                                                                       : GP_MW_EQ_PAPER;
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
  par->kernel_insts_per_warp = gpl_opt_number(L, t, "kernel_insts_per_warp", 0, "gpumech");
  par->kernel_l1_miss_reqs_per_warp =
      gpl_opt_number(L, t, "kernel_l1_miss_reqs_per_warp", 0, "gpumech");
  par->kernel_l2_reqs_per_warp = gpl_opt_number(L, t, "kernel_l2_reqs_per_warp", 0, "gpumech");
  par->kernel_bank_busy_per_warp =
      gpl_opt_number(L, t, "kernel_bank_busy_per_warp", 0, "gpumech");
  par->dram_channels = gpl_opt_number(L, t, "dram_channels", 1, "gpumech");
  par->l2_slices = gpl_opt_number(L, t, "l2_slices", 0, "gpumech");
  par->l2_service_cycles = gpl_opt_number(L, t, "l2_service_cycles", 0, "gpumech");
  par->miss_dram_fraction = gpl_opt_number(L, t, "miss_dram_fraction", 1, "gpumech");
  gpc_getfield(L, t, "kernel_unit_busy_per_warp");
  if (lua_istable(L, -1))
    for (u = 0; u < GP_MW_UNIT_N; u++)
      par->kernel_unit_busy_per_warp[u] =
          gpl_opt_number(L, lua_gettop(L), unit_names[u], 0, "gpumech");
  else if (!lua_isnil(L, -1))
    luaL_error(L, "gpumech: parameter 'kernel_unit_busy_per_warp' must be a table of unit "
                  "cycles (int, fma, fp64, sfu, tensor, uniform, other, lsu)");
  lua_pop(L, 1);
  par->cause_mix = lp->mix_rows >= lp->prof.ncause ? lp->mix : NULL;
}

static void push_stack(lua_State *L, const double *stack) {
  static const char *const names[GP_MW_STACK_N] = {"BASE", "DEP",  "L1",   "L2",  "DRAM",
                                                   "MSHR", "QUEUE", "L2BW", "SFU", "FP64",
                                                   "PIPE", "LSU",  "BANK"};
  int j;
  lua_createtable(L, 0, GP_MW_STACK_N);
  for (j = 0; j < GP_MW_STACK_N; j++)
    gpl_set_number(L, names[j], stack[j]);
}

/* gpush's equations: the binding resource's name and, per resource with a
 * demand, {demand, utilisation, wait} at the solution. */
static void push_resources(lua_State *L, const gp_mw_result *r) {
  int j;
  lua_pushstring(L, gp_gm_resource_name(r->bound));
  lua_setfield(L, -2, "bound");
  lua_createtable(L, 0, GP_MW_RES_N);
  for (j = 0; j < GP_MW_RES_N; j++) {
    if (!(r->demand_cycles[j] > 0))
      continue;
    lua_createtable(L, 0, 3);
    gpl_set_number(L, "demand", r->demand_cycles[j]);
    gpl_set_number(L, "utilisation", r->utilisation[j]);
    gpl_set_number(L, "wait", r->wait_cycles[j]);
    lua_setfield(L, -2, gp_gm_resource_name(j));
  }
  lua_setfield(L, -2, "resources");
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
  if (par.equations == GP_MW_EQ_GPUSH && par.model != GP_MW_NAIVE && par.model != GP_MW_MARKOV)
    push_resources(L, &r);
  return 1;
}


/* ---------------------------------------------------------------------------
 * A launch on a machine: one call each
 * ------------------------------------------------------------------------- */

#define PREPARED_MT "gpush.gpumech_prepared"

static const char *const select_names[] = {"kmeans", "max", "min", "random", NULL};
static const gp_gm_select_method select_ids[] = {GP_GM_SELECT_KMEANS, GP_GM_SELECT_MAX,
                                                 GP_GM_SELECT_MIN, GP_GM_SELECT_RANDOM};
static const char *const equation_names[] = {"gpush", "paper", NULL};

static gp_mw_equations read_equations(lua_State *L, int t) {
  return option_field(L, t, "equations", equation_names, 0) == 0 ? GP_MW_EQ_GPUSH
                                                                 : GP_MW_EQ_PAPER;
}

static uint64_t read_seed(lua_State *L, int t) {
  double seed = gpl_opt_number(L, t, "seed", 1, "gpumech");
  if (!(seed >= 0) || seed != floor(seed) || seed > 9007199254740992.0)
    luaL_error(L, "gpumech: parameter 'seed' must be a whole number >= 0");
  return (uint64_t)seed;
}

/* The inputs of a launch, freed with the userdata that holds them (a
 * raised error inside the calls below cannot leak them). */
typedef struct inputs_box {
  gp_gm_inputs in;
  int live;
} inputs_box;

static int inputs_gc(lua_State *L) {
  inputs_box *b = lua_touserdata(L, 1);
  if (b->live)
    gp_gm_inputs_free(&b->in);
  b->live = 0;
  return 0;
}

/* Builds the inputs on the stack (a userdata with a __gc); raises on error. */
static gp_gm_inputs *push_inputs(lua_State *L, const gp_kernel *k, const gp_machine *m,
                                 const gp_memsim_result *mem, gp_mw_equations eq) {
  inputs_box *b = lua_newuserdata(L, sizeof *b);
  gp_alloc alloc = gp_alloc_default();
  gp_error err;
  memset(b, 0, sizeof *b);
  lua_newtable(L);
  lua_pushcfunction(L, inputs_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  if (gp_gm_inputs_build(k, m, mem, eq, &alloc, &b->in, &err) != GP_OK)
    luaL_error(L, "%s", err.msg);
  b->live = 1;
  return &b->in;
}

static int prepared_gc(lua_State *L) {
  gp_gm_prepared *p = luaL_checkudata(L, 1, PREPARED_MT);
  gp_gm_prepared_free(p);
  return 0;
}

static int prepared_warp(lua_State *L) {
  const gp_gm_prepared *p = luaL_checkudata(L, 1, PREPARED_MT);
  lua_pushinteger(L, (lua_Integer)p->warp);
  return 1;
}

static int prepared_critical(lua_State *L) {
  const gp_gm_prepared *p = luaL_checkudata(L, 1, PREPARED_MT);
  size_t i;
  lua_createtable(L, (int)p->critical_count, 0);
  for (i = 0; i < p->critical_count; i++) {
    lua_createtable(L, 0, 3);
    gpl_set_integer(L, "block", p->critical[i].block);
    gpl_set_integer(L, "warp", (lua_Integer)p->critical[i].warp);
    gpl_set_number(L, "cycles", p->critical[i].cycles);
    gpc_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* A prepared userdata from the inputs (pushed); raises on error.  With
 * `counts`, also the kernel's bound counts at `blocks` per SM from the
 * replay `mem`, in the same walk (gp_gm_prepare_counted). */
static gp_gm_prepared *push_prepared(lua_State *L, const gp_kernel *k, const gp_machine *m,
                                     const gp_gm_inputs *in, gp_mw_equations eq, int opts,
                                     const gp_memsim_result *mem, uint32_t blocks,
                                     gp_bounds_counts *counts) {
  gp_gm_prepared *p = lua_newuserdata(L, sizeof *p);
  gp_alloc alloc = gp_alloc_default();
  gp_error err;
  int method = option_field(L, opts, "select", select_names, 0);
  uint64_t seed = read_seed(L, opts);
  memset(p, 0, sizeof *p);
  luaL_getmetatable(L, PREPARED_MT);
  lua_setmetatable(L, -2);
  if ((counts ? gp_gm_prepare_counted(k, m, in, eq, select_ids[method], seed, blocks, mem, &alloc, p,
                                      counts, &err)
              : gp_gm_prepare(k, m, in, eq, select_ids[method], seed, &alloc, p, &err)) != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return NULL;
  }
  return p;
}

static int gpumech_prepare(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  const gp_machine *m = gpl_check_machine(L, 2);
  const gp_memsim_result *mem = gpl_check_replay(L, 3);
  gp_mw_equations eq;
  const gp_gm_inputs *in;
  gp_bounds_counts counts;
  double blocks;
  luaL_checktype(L, 4, LUA_TTABLE);
  eq = read_equations(L, 4);
  blocks = gpl_opt_number(L, 4, "count_bounds", 0, "gpumech");
  luaL_argcheck(L, blocks >= 0 && blocks == floor(blocks) && blocks <= 4294967295.0, 4,
                "gpumech: options.count_bounds (the kernel's occupancy) must be a whole number >= 1");
  in = push_inputs(L, k, m, mem, eq);
  if (!push_prepared(L, k, m, in, eq, 4, mem, (uint32_t)blocks, blocks >= 1 ? &counts : NULL))
    return 2;
  if (blocks < 1)
    return 1;
  gpl_push_bounds_counts(L, &counts);
  return 2;
}

/* The per-PC inputs as the table gpumech_features and gpumech_profile read. */
static void push_pc_lists(lua_State *L, const gp_gm_inputs *in) {
  static const char *const mix_names[GP_MW_MIX_N] = {NULL, "mix_l1", "mix_l2", "mix_dram",
                                                     "mix_bank"};
  const gp_gm_pcs *p = &in->pcs;
  const struct {
    const char *name;
    const double *v;
  } lists[] = {{"latency", p->latency},     {"l1_miss_reqs", p->l1_miss_reqs},
               {"dram_reqs", p->dram_reqs}, {"l2_reqs", p->l2_reqs},
               {"unit_busy", p->unit_busy}, {"inactive_latency", p->inactive_latency}};
  size_t l;
  uint32_t i;
  int j;
  for (l = 0; l < sizeof lists / sizeof lists[0]; l++) {
    if (lists[l].v == NULL)
      continue;
    lua_createtable(L, (int)p->n, 0);
    for (i = 0; i < p->n; i++) {
      lua_pushnumber(L, lists[l].v[i]);
      gpc_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, lists[l].name);
  }
  for (j = GP_MW_MIX_L1; j < GP_MW_MIX_N; j++) {
    lua_createtable(L, (int)p->n, 0);
    for (i = 0; i < p->n; i++) {
      lua_pushnumber(L, p->mix[(size_t)i * GP_MW_MIX_N + (size_t)j]);
      gpc_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, mix_names[j]);
  }
  lua_createtable(L, (int)p->n, 0);
  for (i = 0; i < p->n; i++) {
    lua_pushstring(L, gp_unit_name(p->unit[i]));
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "unit");
  lua_pushboolean(L, p->unit_timing);
  lua_setfield(L, -2, "unit_timing");
}

static int gpumech_inputs(lua_State *L) {
  gp_kernel *k = gpl_check_kernel(L, 1);
  const gp_machine *m = gpl_check_machine(L, 2);
  const gp_memsim_result *mem = gpl_check_replay(L, 3);
  int e = luaL_checkoption(L, 4, "gpush", equation_names);
  const gp_gm_inputs *in = push_inputs(L, k, m, mem, e == 0 ? GP_MW_EQ_GPUSH : GP_MW_EQ_PAPER);
  int u;
  lua_createtable(L, 0, 16);
  push_pc_lists(L, in);
  gpl_set_number(L, "avg_miss_latency", in->avg_miss_latency);
  if (e == 0) {
    gpl_set_number(L, "mshr_hold_latency", in->mshr_hold_latency);
    gpl_set_number(L, "miss_dram_fraction", in->miss_dram_fraction);
  }
  lua_createtable(L, 0, 7);
  gpl_set_number(L, "insts_per_warp", in->insts_per_warp);
  gpl_set_number(L, "l1_miss_reqs_per_warp", in->l1_miss_reqs_per_warp);
  gpl_set_number(L, "l2_reqs_per_warp", in->l2_reqs_per_warp);
  gpl_set_number(L, "dram_reqs_per_warp", in->dram_reqs_per_warp);
  gpl_set_number(L, "bank_busy_per_warp", in->bank_busy_per_warp);
  lua_createtable(L, 0, GP_UNIT_COUNT);
  for (u = 0; u < GP_UNIT_COUNT; u++)
    if (in->unit_busy_per_warp[u] > 0 || u == GP_UNIT_LSU)
      gpl_set_number(L, gp_unit_name(u), in->unit_busy_per_warp[u]);
  lua_setfield(L, -2, "unit_busy_per_warp");
  lua_setfield(L, -2, "kernel");
  return 1;
}

/* The launch's result table (the header's). */
static void push_prediction(lua_State *L, const gp_machine *m, const gp_gm_options *opt,
                            const gp_gm_prediction *p, const gp_iv_profile *prof) {
  const gp_mw_result *first = &p->shape[0].r;
  size_t i;
  lua_createtable(L, 0, 24);
  gpl_set_number(L, "cycles", p->cycles);
  gpl_set_number(L, "cpi", p->cpi);
  push_stack(L, p->stack);
  lua_setfield(L, -2, "stack");
  gpl_set_integer(L, "waves", p->waves);
  gpl_set_number(L, "dispatch_cycles", p->dispatch_cycles);
  gpl_set_integer(L, "representative_warp", (lua_Integer)p->representative_warp);
  gpl_set_integer(L, "warps_per_scheduler",
                  (lua_Integer)ceil((double)p->shape[0].warps_on_sm / m->sm.schedulers));
  gpl_set_number(L, "nonoverlapped", first->nonoverlapped);
  gpl_set_number(L, "mshr_delay", first->mshr_cycles);
  gpl_set_number(L, "dram_delay", first->dram_cycles);
  if (opt->model == GP_MW_MARKOV) {
    lua_createtable(L, 0, 3);
    gpl_set_number(L, "p_stall", first->markov_p_stall);
    gpl_set_number(L, "stall_slots", first->markov_stall_slots);
    gpl_set_number(L, "ipc", first->markov_ipc);
    lua_setfield(L, -2, "markov");
  }
  lua_createtable(L, 0, 6);
  gpl_set_number(L, "insts", (double)prof->insts);
  gpl_set_number(L, "stall_cycles", prof->stall_cycles);
  gpl_set_number(L, "stall_events", (double)prof->stall_events);
  gpl_set_number(L, "total_cycles", prof->total_cycles);
  gpl_set_number(L, "issue_cycles", prof->issue_cycles);
  gpl_set_integer(L, "intervals", (lua_Integer)prof->count);
  lua_setfield(L, -2, "profile");
  lua_pushboolean(L, p->dram_capped);
  lua_setfield(L, -2, "dram_capped");
  lua_pushboolean(L, p->bandwidth_bound);
  lua_setfield(L, -2, "bandwidth_bound");
  if (!p->launch_totals)
    return;
  push_resources(L, &p->shape[p->longest].r); /* the longest shape's bound and resources */
  lua_pushstring(L, p->bound);
  lua_setfield(L, -2, "bound");
  if (opt->model == GP_MW_MT_MSHR || opt->model == GP_MW_MT_MSHR_BAND)
    gpl_set_number(L, "mshr_rounds_cycles", p->mshr_rounds_cycles);
  gpl_set_integer(L, "critical_warp", (lua_Integer)p->shape[p->shape_count - 1].warp);
  lua_createtable(L, (int)p->shape_count, 0);
  for (i = 0; i < p->shape_count; i++) {
    const gp_gm_shape *s = &p->shape[i];
    lua_createtable(L, 0, 6);
    gpl_set_number(L, "count", s->count);
    gpl_set_integer(L, "blocks", s->blocks);
    gpl_set_integer(L, "warps_on_sm", s->warps_on_sm);
    gpl_set_integer(L, "warp", (lua_Integer)s->warp);
    gpl_set_number(L, "cycles", s->r.cycles);
    lua_pushstring(L, gp_gm_resource_name(s->r.bound));
    lua_setfield(L, -2, "bound");
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "wave_shapes");
  if (p->hard_bound) {
    lua_createtable(L, 0, 2);
    lua_pushstring(L, p->hard_bound);
    lua_setfield(L, -2, "name");
    gpl_set_number(L, "cycles", p->hard_bound_cycles);
    lua_setfield(L, -2, "hard_bound");
  }
}

/* The launch's per-PC costs (options.per_pc): {{pc, opcode, line,
 * executions, cycles, stalls = {BASE = ..., ...}}} for every static PC that
 * executed or was charged cycles, in static order; raises on error. */
static void push_per_pc(lua_State *L, const gp_kernel *k, const gp_machine *m,
                        const gp_gm_inputs *in, const gp_gm_prediction *p,
                        const gp_gm_options *opt) {
  gp_alloc alloc = gp_alloc_default();
  gp_gm_pc_costs c;
  gp_error err;
  uint32_t i, n = 0;
  int j;
  if (gp_gm_pc_costs_build(k, m, in, p, opt, &alloc, &c, &err) != GP_OK)
    luaL_error(L, "%s", err.msg);
  lua_createtable(L, (int)c.n, 0);
  for (i = 0; i < c.n; i++) {
    const gp_static_inst *st = &k->statics[i];
    const double *row = c.cycles + (size_t)i * GP_MW_STACK_N;
    double total = 0;
    for (j = 0; j < GP_MW_STACK_N; j++)
      total += row[j];
    if (!(total > 0) && c.executions[i] == 0)
      continue;
    lua_createtable(L, 0, 6);
    gpl_set_integer(L, "pc", (lua_Integer)st->pc);
    lua_pushstring(L, k->strings + st->opcode);
    lua_setfield(L, -2, "opcode");
    if (st->line_num > 0)
      gpl_set_integer(L, "line", st->line_num);
    gpl_set_integer(L, "executions", (lua_Integer)c.executions[i]);
    gpl_set_number(L, "cycles", total);
    push_stack(L, row);
    lua_setfield(L, -2, "stalls");
    gpc_rawseti(L, -2, ++n);
  }
  gp_gm_pc_costs_free(&c);
}

static int gpumech_predict(lua_State *L) {
  static const char *const models[] = {"naive", "markov", "mt", "mt_mshr", "mt_mshr_band", NULL};
  static const gp_mw_model model_ids[] = {GP_MW_NAIVE, GP_MW_MARKOV, GP_MW_MT, GP_MW_MT_MSHR,
                                          GP_MW_MT_MSHR_BAND};
  static const char *const policies[] = {"rr", "gto", NULL};
  gp_kernel *k = gpl_check_kernel(L, 1);
  const gp_machine *m = gpl_check_machine(L, 2);
  const gp_memsim_result *mem = gpl_check_replay(L, 3);
  gp_gm_options opt;
  gp_bounds_counts counts;
  const gp_gm_prepared *prep;
  const gp_gm_inputs *in;
  gp_gm_prediction p;
  gp_error err;
  l_profile *lp;
  double blocks;
  int count_here = lua_isboolean(L, 5) && lua_toboolean(L, 5), has_counts = !lua_isnoneornil(L, 5);
  luaL_checktype(L, 4, LUA_TTABLE);
  memset(&opt, 0, sizeof opt);
  opt.model = model_ids[option_field(L, 4, "model", models, 4)];
  opt.policy = option_field(L, 4, "policy", policies, 0) == 1 ? GP_MW_GTO : GP_MW_RR;
  opt.equations = read_equations(L, 4);
  blocks = gpl_opt_number(L, 4, "blocks_per_sm", 0, "gpumech");
  luaL_argcheck(L, blocks >= 1 && blocks == floor(blocks) && blocks <= 4294967295.0, 4,
                "gpumech: options.blocks_per_sm (the kernel's occupancy) must be a whole number >= 1");
  opt.blocks_per_sm = (uint32_t)blocks;
  if (has_counts && !count_here)
    gpl_read_bounds_counts(L, 5, &counts);
  in = push_inputs(L, k, m, mem, opt.equations);
  gpc_getfield(L, 4, "prepared");
  if (!lua_isnil(L, -1)) {
    gp_gm_prepared *given = luaL_checkudata(L, -1, PREPARED_MT);
    luaL_argcheck(L, given->equations == opt.equations, 4,
                  "gpumech: options.prepared was made under other equations");
    /* the prepared kernel keeps the profiles of its predictions: a sweep's
     * points that keep the occupancy and the memory parameters reuse them */
    opt.kept = &given->kept;
    prep = given;
    gp_alloc alloc = gp_alloc_default();
    if (count_here && gp_bounds_count(k, m, opt.blocks_per_sm, mem, &alloc, &counts, &err) != GP_OK) {
      lua_pushnil(L);
      lua_pushstring(L, err.msg);
      return 2;
    }
  } else {
    prep = push_prepared(L, k, m, in, opt.equations, 4, mem, opt.blocks_per_sm, count_here ? &counts : NULL);
    if (prep == NULL)
      return 2;
  }
  lp = new_profile(L);
  if (gp_gm_predict(k, m, in, prep, has_counts ? &counts : NULL, &opt, &lp->prof, &p, &err) !=
      GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  if (in->pcs.n > 0) { /* the cause mix stays with the profile (profile:predict) */
    size_t bytes = (size_t)in->pcs.n * GP_MW_MIX_N * sizeof *lp->mix;
    lp->mix = gp_malloc(&lp->prof.alloc, bytes);
    if (lp->mix == NULL)
      return luaL_error(L, "gpumech: out of memory");
    memcpy(lp->mix, in->pcs.mix, bytes);
    lp->mix_rows = in->pcs.n;
  }
  push_prediction(L, m, &opt, &p, &lp->prof);
  if (count_here) {
    gpl_push_bounds_counts(L, &counts);
    lua_setfield(L, -2, "bound_counts");
  }
  gpc_getfield(L, 4, "per_pc");
  if (lua_toboolean(L, -1)) {
    lua_pop(L, 1);
    push_per_pc(L, k, m, in, &p, &opt);
    lua_setfield(L, -2, "per_pc");
  } else {
    lua_pop(L, 1);
  }
  lua_insert(L, -2);
  return 2;
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

static const luaL_Reg prepared_methods[] = {
    {"warp", prepared_warp}, {"critical", prepared_critical}, {NULL, NULL}};

static const luaL_Reg profile_methods[] = {{"summary", profile_summary},
                                           {"intervals", profile_intervals},
                                           {"predict", profile_predict},
                                           {NULL, NULL}};

static const luaL_Reg gpumech_functions[] = {{"kernel_inst_scan", kernel_inst_scan},
                                             {"gpumech_features", gpumech_features},
                                             {"gpumech_select", gpumech_select},
                                             {"gpumech_profile", gpumech_profile},
                                             {"gpumech_profile_of", gpumech_profile_of},
                                             {"gpumech_prepare", gpumech_prepare},
                                             {"gpumech_predict", gpumech_predict},
                                             {"gpumech_inputs", gpumech_inputs},
                                             {NULL, NULL}};

void gpl_open_gpumech(lua_State *L) {
  gpl_new_type(L, PROFILE_MT, profile_methods, profile_gc);
  gpl_new_type(L, PREPARED_MT, prepared_methods, prepared_gc);
  luaL_setfuncs(L, gpumech_functions, 0);
}
