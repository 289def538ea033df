/*
 * l_surface.c -- Wu et al.'s scaling surfaces (surface.h): datasets, models,
 * the model file and the benchmark's batches.
 *
 *   ds = core.surface_dataset{grid = {cus = {...}, core_mhz = {...}, mem_mhz = {...}},
 *                             kernels = N, features = F, quantities = Q}
 *   ds:fill("values", q, flat)     -- kernels x configurations, kernel-major
 *   ds:fill("counters", flat)      -- kernels x configurations x features (NaN: none)
 *   m = core.surface_train(ds, {quantity = q, name = "time", kernels = {...},
 *         base = {c, e, m}, features = {names}, k, seed, restarts, max_iter,
 *         classifier = "neighbours"|"paper", groups = {per kernel, >= 1},
 *         epochs, learning_rate, weight_decay, stop_early})  -- nil, message on bad data
 *   m:info()  m:classify(counters)  m:predict(counters, base_value, {c, e, m})
 *   m:evaluate(ds, kernels, {quantity = q, choice = "classifier"|"oracle"|"nearest"})
 *     -> {mean, max, count, histogram = {11 bins}, per_kernel = {...}}
 *   m:assignments()                -- per training kernel, its clusters per set
 *   bytes = core.surface_encode({m, ...}); list = core.surface_decode(bytes, name)
 *   b = core.surface_batch(features, counters_flat, base_values, targets_flat)
 *   b:predict(m) -> seconds, checksum; b:plain() -> seconds, checksum
 *
 * Indices (kernels, configuration axes, clusters) are 1-based here and
 * 0-based in the core.
 */
#define _XOPEN_SOURCE 700 /* clock_gettime */

#include "compat.h"
#include "l_core.h"
#include "surface/surface.h"

#include <math.h>
#include <string.h>
#include <time.h>

#define DATA_MT "gpush.surface.dataset"
#define MODEL_MT "gpush.surface.model"
#define BATCH_MT "gpush.surface.batch"

typedef struct l_model {
  gp_surf_model *m;
} l_model;

typedef struct l_batch {
  double *counters, *bases; /* n x features, n */
  uint32_t *targets;        /* t x 3, 0-based */
  size_t n, t, features;
  gp_alloc alloc;
} l_batch;

/* A temporary array owned by the Lua stack (freed by the collector). */
static void *scratch(lua_State *L, size_t bytes) { return lua_newuserdata(L, bytes ? bytes : 1); }

static gp_surf_data *check_data(lua_State *L, int i) {
  return luaL_checkudata(L, i, DATA_MT);
}

static gp_surf_model *check_model(lua_State *L, int i) {
  l_model *lm = luaL_checkudata(L, i, MODEL_MT);
  luaL_argcheck(L, lm->m != NULL, i, "surface: a freed model");
  return lm->m;
}

static void push_model(lua_State *L, gp_surf_model *m) {
  l_model *lm = lua_newuserdata(L, sizeof *lm);
  lm->m = m;
  luaL_getmetatable(L, MODEL_MT);
  lua_setmetatable(L, -2);
}

/* Reads the list t[key] of at most `max` numbers into out; returns its length. */
static uint32_t read_numbers(lua_State *L, int t, const char *key, double *out, size_t max) {
  size_t n, i;
  gpc_getfield(L, t, key);
  if (!lua_istable(L, -1))
    luaL_error(L, "surface: '%s' must be a list of numbers", key);
  n = gpc_rawlen(L, -1);
  if (n > max)
    luaL_error(L, "surface: '%s' has %d values, at most %d allowed", key, (int)n, (int)max);
  for (i = 0; i < n; i++) {
    gpc_rawgeti(L, -1, i + 1);
    if (!lua_isnumber(L, -1))
      luaL_error(L, "surface: '%s'[%d] is not a number", key, (int)i + 1);
    out[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return (uint32_t)n;
}

static lua_Integer int_field(lua_State *L, int t, const char *key, lua_Integer def) {
  lua_Integer v;
  gpc_getfield(L, t, key);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return def;
  }
  if (!gpc_isinteger(L, -1))
    luaL_error(L, "surface: '%s' must be an integer", key);
  v = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

static double num_field(lua_State *L, int t, const char *key, double def) {
  double v;
  gpc_getfield(L, t, key);
  v = lua_isnil(L, -1) ? def : luaL_checknumber(L, -1);
  lua_pop(L, 1);
  return v;
}

/* ---------------------------------------------------------------------------
 * Datasets
 * ------------------------------------------------------------------------- */

static void read_grid(lua_State *L, int t, gp_surf_grid *g) {
  static const char *const keys[3] = {"cus", "core_mhz", "mem_mhz"};
  int a;
  memset(g, 0, sizeof *g);
  gpc_getfield(L, t, "grid");
  luaL_argcheck(L, lua_istable(L, -1), 1, "surface: grid = {cus, core_mhz, mem_mhz} expected");
  for (a = 0; a < 3; a++)
    g->n[a] = read_numbers(L, lua_gettop(L), keys[a], g->axis[a], GP_SURF_MAX_AXIS);
  lua_pop(L, 1);
}

static int data_new(lua_State *L) {
  gp_surf_grid g;
  gp_surf_data *d;
  gp_error err;
  gp_alloc alloc = gp_alloc_default();
  lua_Integer kernels, features, quantities;
  luaL_checktype(L, 1, LUA_TTABLE);
  read_grid(L, 1, &g);
  kernels = int_field(L, 1, "kernels", 0);
  features = int_field(L, 1, "features", 0);
  quantities = int_field(L, 1, "quantities", 1);
  luaL_argcheck(L, kernels > 0 && kernels <= UINT32_MAX && features >= 0 &&
                       features <= GP_SURF_MAX_FEATURES && quantities > 0 &&
                       quantities <= GP_SURF_MAX_QUANTITIES,
                1, "surface: kernels, features and quantities out of range");
  d = lua_newuserdata(L, sizeof *d);
  memset(d, 0, sizeof *d);
  luaL_getmetatable(L, DATA_MT);
  lua_setmetatable(L, -2);
  if (gp_surf_data_alloc(d, &alloc, &g, (uint32_t)kernels, (uint32_t)features,
                         (uint32_t)quantities, &err) != GP_OK)
    return luaL_error(L, "%s", err.msg);
  return 1;
}

/* Copies the Lua list at index t (exactly n numbers; nil or NaN allowed
 * when `holes`) into out. */
static void copy_list(lua_State *L, int t, double *out, size_t n, int holes, const char *what) {
  size_t i;
  luaL_checktype(L, t, LUA_TTABLE);
  if (gpc_rawlen(L, t) != n && !holes)
    luaL_error(L, "surface: %s: %d values expected, got %d", what, (int)n,
               (int)gpc_rawlen(L, t));
  for (i = 0; i < n; i++) {
    gpc_rawgeti(L, t, i + 1);
    if (lua_isnumber(L, -1))
      out[i] = lua_tonumber(L, -1);
    else if (holes && lua_isnil(L, -1))
      out[i] = NAN;
    else
      luaL_error(L, "surface: %s: value %d is not a number", what, (int)i + 1);
    lua_pop(L, 1);
  }
}

static int data_fill(lua_State *L) {
  gp_surf_data *d = check_data(L, 1);
  static const char *const kinds[] = {"values", "counters", NULL};
  int kind = luaL_checkoption(L, 2, NULL, kinds);
  size_t configs = gp_surf_configs(&d->grid);
  if (kind == 0) {
    lua_Integer q = luaL_checkinteger(L, 3);
    luaL_argcheck(L, q >= 1 && q <= d->quantities, 3, "surface: quantity out of range");
    copy_list(L, 4, d->values + (size_t)(q - 1) * d->kernels * configs,
              (size_t)d->kernels * configs, 0, "values");
  } else {
    copy_list(L, 3, d->counters, (size_t)d->kernels * configs * d->features, 1, "counters");
  }
  return 0;
}

static int data_gc(lua_State *L) {
  gp_surf_data *d = check_data(L, 1);
  if (d->values)
    gp_surf_data_free(d);
  return 0;
}

/* ---------------------------------------------------------------------------
 * Training
 * ------------------------------------------------------------------------- */

/* The 1-based list t[key] as 0-based indices below `limit`. */
static uint32_t *read_indices(lua_State *L, int t, const char *key, uint32_t limit, size_t *n) {
  uint32_t *out;
  size_t i;
  gpc_getfield(L, t, key);
  luaL_argcheck(L, lua_istable(L, -1), 2, "surface: a list of 1-based indices expected");
  *n = gpc_rawlen(L, -1);
  out = scratch(L, *n * sizeof *out);
  lua_insert(L, -2); /* keep the scratch below the list */
  for (i = 0; i < *n; i++) {
    lua_Integer v;
    gpc_rawgeti(L, -1, i + 1);
    v = gpc_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
    if (v < 1 || v > limit)
      luaL_error(L, "surface: %s[%d] must be an index from 1 to %d", key, (int)i + 1, (int)limit);
    out[i] = (uint32_t)(v - 1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return out;
}

/* The feature names t.features as one NUL-separated buffer (a scratch
 * userdata left on the stack). */
static const char *read_names(lua_State *L, int t, size_t *len) {
  size_t i, n, total = 0, one;
  char *buf, *p;
  gpc_getfield(L, t, "features");
  luaL_argcheck(L, lua_istable(L, -1), 2, "surface: features = {names} expected");
  n = gpc_rawlen(L, -1);
  for (i = 0; i < n; i++) {
    gpc_rawgeti(L, -1, i + 1);
    if (lua_type(L, -1) != LUA_TSTRING)
      luaL_error(L, "surface: features[%d] must be a name", (int)i + 1);
    total += gpc_rawlen(L, -1) + 1;
    lua_pop(L, 1);
  }
  buf = p = scratch(L, total);
  lua_insert(L, -2); /* the buffer below the list */
  for (i = 0; i < n; i++) {
    const char *name;
    gpc_rawgeti(L, -1, i + 1);
    name = lua_tolstring(L, -1, &one);
    memcpy(p, name, one + 1);
    p += one + 1;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  *len = total;
  return buf;
}

static const char *const classifiers[] = {"neighbours", "paper", NULL};

static int surface_train(lua_State *L) {
  gp_surf_data *d = check_data(L, 1);
  gp_surf_train_opts o;
  gp_surf_model *m;
  gp_error err;
  gp_alloc alloc = gp_alloc_default();
  uint32_t *kernels, base[3];
  double b[3];
  size_t n, names_len;
  const char *names, *name;
  lua_Integer q;
  int a;
  luaL_checktype(L, 2, LUA_TTABLE);
  gp_surf_train_opts_default(&o);
  q = int_field(L, 2, "quantity", 1);
  luaL_argcheck(L, q >= 1 && q <= d->quantities, 2, "surface: quantity out of range");
  gpc_getfield(L, 2, "name");
  name = luaL_optstring(L, -1, "time");
  kernels = read_indices(L, 2, "kernels", d->kernels, &n);
  luaL_argcheck(L, read_numbers(L, 2, "base", b, 3) == 3, 2, "surface: base = {c, e, m}");
  for (a = 0; a < 3; a++) {
    luaL_argcheck(L, b[a] >= 1 && b[a] <= d->grid.n[a] && b[a] == floor(b[a]), 2,
                  "surface: base index outside the grid");
    base[a] = (uint32_t)b[a] - 1;
  }
  names = read_names(L, 2, &names_len);
  gpc_getfield(L, 2, "classifier");
  o.classifier = luaL_checkoption(L, -1, "neighbours", classifiers) == 0 ? GP_SURF_NEIGHBOURS
                                                                        : GP_SURF_PAPER;
  lua_pop(L, 1);
  gpc_getfield(L, 2, "groups");
  if (!lua_isnil(L, -1)) {
    size_t ng;
    lua_pop(L, 1);
    o.groups = read_indices(L, 2, "groups", UINT32_MAX, &ng);
    luaL_argcheck(L, ng == n, 2, "surface: groups must give one group per training kernel");
  } else {
    lua_pop(L, 1);
  }
  o.k = (uint32_t)int_field(L, 2, "k", o.k);
  o.seed = (uint64_t)int_field(L, 2, "seed", (lua_Integer)o.seed);
  o.restarts = (unsigned)int_field(L, 2, "restarts", o.restarts);
  o.max_iter = (unsigned)int_field(L, 2, "max_iter", o.max_iter);
  o.nn.epochs = (unsigned)int_field(L, 2, "epochs", o.nn.epochs);
  o.nn.learning_rate = num_field(L, 2, "learning_rate", o.nn.learning_rate);
  o.nn.weight_decay = num_field(L, 2, "weight_decay", o.nn.weight_decay);
  o.nn.stop_when_separated = (int)int_field(L, 2, "stop_early", o.nn.stop_when_separated);
  if (gp_surf_train(d, (uint32_t)q - 1, name, kernels, (uint32_t)n, base, names, names_len, &o,
                    &alloc, &m, &err) != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  push_model(L, m);
  return 1;
}

/* ---------------------------------------------------------------------------
 * Models
 * ------------------------------------------------------------------------- */

static void push_axis(lua_State *L, const gp_surf_grid *g, int a, const char *key) {
  uint32_t i;
  lua_createtable(L, (int)g->n[a], 0);
  for (i = 0; i < g->n[a]; i++) {
    lua_pushnumber(L, g->axis[a][i]);
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, key);
}

static int model_info(lua_State *L) {
  gp_surf_model *m = check_model(L, 1);
  const char *name = m->names;
  uint32_t i;
  lua_createtable(L, 0, 8);
  lua_pushstring(L, m->quantity);
  lua_setfield(L, -2, "quantity");
  lua_pushinteger(L, m->k);
  lua_setfield(L, -2, "k");
  lua_createtable(L, 0, 3);
  push_axis(L, &m->grid, GP_SURF_CU, "cus");
  push_axis(L, &m->grid, GP_SURF_ENGINE, "core_mhz");
  push_axis(L, &m->grid, GP_SURF_MEMORY, "mem_mhz");
  lua_setfield(L, -2, "grid");
  lua_createtable(L, 3, 0);
  for (i = 0; i < 3; i++) {
    lua_pushinteger(L, m->base[i] + 1);
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "base");
  lua_createtable(L, (int)m->features, 0);
  for (i = 0; i < m->features; i++) {
    lua_pushstring(L, name);
    gpc_rawseti(L, -2, i + 1);
    name += strlen(name) + 1;
  }
  lua_setfield(L, -2, "features");
  lua_createtable(L, (int)m->nsets, 0);
  for (i = 0; i < m->nsets; i++) {
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, m->sets[i].k);
    lua_setfield(L, -2, "k");
    lua_pushinteger(L, m->sets[i].dim);
    lua_setfield(L, -2, "dim");
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "sets");
  lua_pushinteger(L, m->trained);
  lua_setfield(L, -2, "trained");
  lua_pushstring(L, m->classifier == GP_SURF_NEIGHBOURS ? classifiers[0] : classifiers[1]);
  lua_setfield(L, -2, "classifier");
  if (m->classifier == GP_SURF_NEIGHBOURS) {
    lua_pushnumber(L, m->setting.h2);
    lua_setfield(L, -2, "bandwidth");
    lua_pushnumber(L, m->setting.lambda);
    lua_setfield(L, -2, "prior");
    lua_pushinteger(L, m->refs);
    lua_setfield(L, -2, "refs");
    lua_pushinteger(L, m->space);
    lua_setfield(L, -2, "space");
    lua_pushnumber(L, m->ridge);
    lua_setfield(L, -2, "ridge");
  }
  return 1;
}

static double *read_counters(lua_State *L, int i, gp_surf_model *m) {
  double *c = scratch(L, m->features * sizeof *c);
  copy_list(L, i, c, m->features, 0, "counters");
  return c;
}

static void read_target(lua_State *L, int i, const gp_surf_model *m, uint32_t *target) {
  double t[3];
  int a;
  luaL_checktype(L, i, LUA_TTABLE);
  copy_list(L, i, t, 3, 0, "target");
  for (a = 0; a < 3; a++) {
    luaL_argcheck(L, t[a] >= 1 && t[a] <= m->grid.n[a] && t[a] == floor(t[a]), i,
                  "surface: target index outside the grid");
    target[a] = (uint32_t)t[a] - 1;
  }
}

static int model_classify(lua_State *L) {
  gp_surf_model *m = check_model(L, 1);
  uint32_t choice[GP_SURF_MAX_AXIS + 1], s;
  gp_surf_classify(m, read_counters(L, 2, m), choice);
  lua_createtable(L, (int)m->nsets, 0);
  for (s = 0; s < m->nsets; s++) {
    lua_pushinteger(L, choice[s] + 1);
    gpc_rawseti(L, -2, s + 1);
  }
  return 1;
}

static int model_predict(lua_State *L) {
  gp_surf_model *m = check_model(L, 1);
  double *c = read_counters(L, 2, m);
  double base = luaL_checknumber(L, 3);
  uint32_t target[3];
  read_target(L, 4, m, target);
  lua_pushnumber(L, gp_surf_predict(m, c, base, target));
  return 1;
}

static int model_evaluate(lua_State *L) {
  gp_surf_model *m = check_model(L, 1);
  gp_surf_data *d = check_data(L, 2);
  gp_surf_eval ev;
  gp_error err;
  uint32_t *kernels;
  double *per_kernel;
  size_t n, i;
  static const char *const choices[] = {"classifier", "oracle", "nearest", NULL};
  lua_Integer q = 1;
  int how = GP_SURF_CLASSIFIER;
  lua_newtable(L);
  lua_pushvalue(L, 3);
  lua_setfield(L, -2, "kernels");
  kernels = read_indices(L, lua_gettop(L), "kernels", d->kernels, &n);
  if (lua_istable(L, 4)) {
    q = int_field(L, 4, "quantity", 1);
    gpc_getfield(L, 4, "choice");
    how = luaL_checkoption(L, -1, "classifier", choices);
    lua_pop(L, 1);
  }
  luaL_argcheck(L, q >= 1 && q <= d->quantities, 4, "surface: quantity out of range");
  per_kernel = scratch(L, n * sizeof *per_kernel);
  if (gp_surf_evaluate(m, d, (uint32_t)q - 1, kernels, (uint32_t)n, (gp_surf_choice)how,
                       per_kernel, &ev, &err) != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  lua_createtable(L, 0, 5);
  lua_pushnumber(L, ev.mean);
  lua_setfield(L, -2, "mean");
  lua_pushnumber(L, ev.max);
  lua_setfield(L, -2, "max");
  lua_pushinteger(L, (lua_Integer)ev.count);
  lua_setfield(L, -2, "count");
  lua_createtable(L, GP_SURF_BINS, 0);
  for (i = 0; i < GP_SURF_BINS; i++) {
    lua_pushinteger(L, (lua_Integer)ev.histogram[i]);
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "histogram");
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    lua_pushnumber(L, per_kernel[i]);
    gpc_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "per_kernel");
  return 1;
}

static int model_assignments(lua_State *L) {
  gp_surf_model *m = check_model(L, 1);
  uint32_t i, s;
  lua_createtable(L, (int)m->trained, 0);
  for (i = 0; i < m->trained; i++) {
    lua_createtable(L, (int)m->nsets, 0);
    for (s = 0; s < m->nsets; s++) {
      lua_pushinteger(L, m->train_assign[(size_t)i * m->nsets + s] + 1);
      gpc_rawseti(L, -2, s + 1);
    }
    gpc_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int model_gc(lua_State *L) {
  l_model *lm = luaL_checkudata(L, 1, MODEL_MT);
  gp_surf_model_free(lm->m);
  lm->m = NULL;
  return 0;
}

/* ---------------------------------------------------------------------------
 * The model file
 * ------------------------------------------------------------------------- */

static int surface_encode(lua_State *L) {
  gp_surf_model **models;
  gp_alloc alloc = gp_alloc_default();
  gp_error err;
  unsigned char *bytes;
  size_t n, i, len;
  luaL_checktype(L, 1, LUA_TTABLE);
  n = gpc_rawlen(L, 1);
  luaL_argcheck(L, n > 0, 1, "surface: no models to encode");
  models = scratch(L, n * sizeof *models);
  for (i = 0; i < n; i++) {
    gpc_rawgeti(L, 1, i + 1);
    models[i] = check_model(L, -1);
    lua_pop(L, 1);
  }
  if (gp_surf_encode(models, (uint32_t)n, &alloc, &bytes, &len, &err) != GP_OK)
    return luaL_error(L, "%s", err.msg);
  lua_pushlstring(L, (const char *)bytes, len);
  gp_free(&alloc, bytes, len);
  return 1;
}

static int surface_decode(lua_State *L) {
  size_t len;
  const char *bytes = luaL_checklstring(L, 1, &len);
  const char *name = luaL_optstring(L, 2, "(model)");
  gp_alloc alloc = gp_alloc_default();
  gp_surf_model **models;
  gp_error err;
  uint32_t count, i;
  if (gp_surf_decode((const unsigned char *)bytes, len, name, &alloc, &models, &count, &err) !=
      GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  lua_createtable(L, (int)count, 0);
  for (i = 0; i < count; i++) {
    push_model(L, models[i]);
    gpc_rawseti(L, -2, i + 1);
  }
  gp_free(&alloc, models, count * sizeof *models);
  return 1;
}

/* ---------------------------------------------------------------------------
 * Benchmark batches: packed arrays, timed in C so Lua tables stay out of
 * the measured loop
 * ------------------------------------------------------------------------- */

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int surface_batch(lua_State *L) {
  lua_Integer features = luaL_checkinteger(L, 1);
  l_batch *b;
  size_t nc, nt, i;
  luaL_argcheck(L, features > 0 && features <= GP_SURF_MAX_FEATURES, 1,
                "surface: features out of range");
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  nc = gpc_rawlen(L, 3);
  nt = gpc_rawlen(L, 4);
  luaL_argcheck(L, nc > 0 && gpc_rawlen(L, 2) == nc * (size_t)features, 2,
                "surface: counters must hold features x kernels values");
  luaL_argcheck(L, nt > 0 && nt % 3 == 0, 4, "surface: targets must be {c, e, m, c, e, m, ...}");
  b = lua_newuserdata(L, sizeof *b);
  memset(b, 0, sizeof *b);
  luaL_getmetatable(L, BATCH_MT);
  lua_setmetatable(L, -2);
  b->alloc = gp_alloc_default();
  b->counters = gp_malloc(&b->alloc, nc * (size_t)features * sizeof *b->counters);
  b->bases = gp_malloc(&b->alloc, nc * sizeof *b->bases);
  b->targets = gp_malloc(&b->alloc, nt * sizeof *b->targets);
  if (!b->counters || !b->bases || !b->targets)
    return luaL_error(L, "surface: out of memory for a batch");
  b->n = nc, b->t = nt / 3, b->features = (size_t)features;
  copy_list(L, 2, b->counters, nc * b->features, 0, "counters");
  copy_list(L, 3, b->bases, nc, 0, "base values");
  for (i = 0; i < nt; i++) {
    lua_Integer v;
    gpc_rawgeti(L, 4, i + 1);
    v = gpc_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    if (v < 1 || v > GP_SURF_MAX_AXIS)
      return luaL_error(L, "surface: target value %d is not a grid index", (int)i + 1);
    b->targets[i] = (uint32_t)v - 1;
  }
  return 1;
}

/* Pushes the seconds a batch took and the sum of its outputs (so the work
 * cannot be optimised away), then frees the outputs. */
static int push_timing(lua_State *L, l_batch *b, double *out, double seconds) {
  double sum = 0;
  size_t i;
  for (i = 0; i < b->n * b->t; i++)
    sum += out[i];
  gp_free(&b->alloc, out, b->n * b->t * sizeof *out);
  lua_pushnumber(L, seconds);
  lua_pushnumber(L, sum);
  return 2;
}

/* Classifies every kernel once and predicts it at every target. */
static int batch_predict(lua_State *L) {
  l_batch *b = luaL_checkudata(L, 1, BATCH_MT);
  gp_surf_model *m = check_model(L, 2);
  double *out, t0;
  size_t i;
  luaL_argcheck(L, m->features == b->features, 2, "surface: the model has other features");
  for (i = 0; i < 3 * b->t; i++)
    luaL_argcheck(L, b->targets[i] < m->grid.n[i % 3], 2, "surface: a target outside the grid");
  out = gp_malloc(&b->alloc, b->n * b->t * sizeof *out);
  if (!out)
    return luaL_error(L, "surface: out of memory for a batch");
  t0 = now_seconds();
  gp_surf_predict_batch(m, b->counters, b->bases, b->n, b->targets, b->t, out);
  return push_timing(L, b, out, now_seconds() - t0);
}

/* The baseline: the same loops over the same arrays, each pair reduced to
 * its base value times its counters' sum plus its target's indices. */
static int batch_plain(lua_State *L) {
  l_batch *b = luaL_checkudata(L, 1, BATCH_MT);
  double *out = gp_malloc(&b->alloc, b->n * b->t * sizeof *out), t0;
  size_t i, j, f;
  if (!out)
    return luaL_error(L, "surface: out of memory for a batch");
  t0 = now_seconds();
  for (i = 0; i < b->n; i++) {
    double c = 0;
    for (f = 0; f < b->features; f++)
      c += b->counters[i * b->features + f];
    for (j = 0; j < b->t; j++) {
      const uint32_t *t = b->targets + 3 * j;
      out[i * b->t + j] = b->bases[i] * (c + (double)(t[0] + t[1] + t[2]));
    }
  }
  return push_timing(L, b, out, now_seconds() - t0);
}

static int batch_gc(lua_State *L) {
  l_batch *b = luaL_checkudata(L, 1, BATCH_MT);
  gp_free(&b->alloc, b->counters, b->n * b->features * sizeof *b->counters);
  gp_free(&b->alloc, b->bases, b->n * sizeof *b->bases);
  gp_free(&b->alloc, b->targets, b->t * 3 * sizeof *b->targets);
  b->counters = b->bases = NULL;
  b->targets = NULL;
  return 0;
}

static const luaL_Reg data_methods[] = {{"fill", data_fill}, {NULL, NULL}};
static const luaL_Reg model_methods[] = {{"info", model_info},
                                         {"classify", model_classify},
                                         {"predict", model_predict},
                                         {"evaluate", model_evaluate},
                                         {"assignments", model_assignments},
                                         {NULL, NULL}};
static const luaL_Reg batch_methods[] = {
    {"predict", batch_predict}, {"plain", batch_plain}, {NULL, NULL}};
static const luaL_Reg surface_functions[] = {{"surface_dataset", data_new},
                                             {"surface_train", surface_train},
                                             {"surface_encode", surface_encode},
                                             {"surface_decode", surface_decode},
                                             {"surface_batch", surface_batch},
                                             {NULL, NULL}};

void gpl_open_surface(lua_State *L) {
  gpl_new_type(L, DATA_MT, data_methods, data_gc);
  gpl_new_type(L, MODEL_MT, model_methods, model_gc);
  gpl_new_type(L, BATCH_MT, batch_methods, batch_gc);
  luaL_setfuncs(L, surface_functions, 0);
}
