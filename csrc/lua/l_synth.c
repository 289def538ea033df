/*
 * l_synth.c -- synthetic kernels from a Lua description.
 *
 *   kernel = core.synth {
 *     name = "stream", grid = {120, 1, 1}, block = {256, 1, 1},
 *     regs = 32, shmem = 0, trips = 16, trip_spread = 0, seed = 1,
 *     streams = { {kind = "coalesced", base = 0x10000000, footprint = 1 << 26,
 *                  stride = 4, reuse = 1}, ... },
 *     body = { {class = "ld_global", width = 4, stream = 1},
 *              {class = "fp32", dep = 1, active = 32},
 *              {class = "fp32", dep = {1, 3}}, ... },   -- every producer
 *     prologue = { ... }, epilogue = { ... },  -- optional: once before and
 *   }                                   -- after the loop; or nil, message
 *
 * gpush.workloads checks descriptions with friendly messages first; the C
 * generator checks again and reports the first problem.
 */
#include "compat.h"
#include "l_core.h"
#include "synth.h"

#include <stdio.h>
#include <string.h>

static const char *const stream_kinds[] = {"coalesced", "strided", "random",
                                           "chase", "shared", NULL};

/* t[field] as an integer in [lo, hi], or `def` when absent. */
static lua_Integer opt_field(lua_State *L, int t, const char *field,
                             lua_Integer def, lua_Integer lo, lua_Integer hi) {
  lua_Integer v = def;
  gpc_getfield(L, t, field);
  if (!lua_isnil(L, -1)) {
    if (!gpc_isinteger(L, -1))
      luaL_error(L, "synthetic kernel: field '%s' must be an integer", field);
    v = lua_tointeger(L, -1);
    if (v < lo || v > hi) {
      char text[80];
      snprintf(text, sizeof text, "%lld is outside %lld..%lld", (long long)v, (long long)lo, (long long)hi);
      luaL_error(L, "synthetic kernel: field '%s' = %s", field, text);
    }
  }
  lua_pop(L, 1);
  return v;
}

/* The value on top of the stack as one dimension of `field`: an integer
 * from 1 to 2^32-1, checked before the cast (4294967297 would wrap to 1). */
static uint32_t dim_value(lua_State *L, const char *field, int i) {
  lua_Integer v;
  if (!gpc_isinteger(L, -1))
    luaL_error(L, "synthetic kernel: field '%s'[%d] must be an integer", field, i + 1);
  v = lua_tointeger(L, -1);
  if (v < 1 || v > (lua_Integer)UINT32_MAX) {
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)v);
    luaL_error(L, "synthetic kernel: field '%s'[%d] = %s is outside 1..4294967295", field, i + 1, text);
  }
  return (uint32_t)v;
}

static void read_dims(lua_State *L, int t, const char *field, uint32_t out[3]) {
  int i;
  gpc_getfield(L, t, field);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    out[0] = dim_value(L, field, 0);
    out[1] = out[2] = 1;
  } else if (lua_istable(L, -1)) {
    for (i = 0; i < 3; i++) {
      gpc_rawgeti(L, -1, i + 1);
      out[i] = lua_isnil(L, -1) ? 1u : dim_value(L, field, i);
      lua_pop(L, 1);
    }
  } else {
    luaL_error(L, "synthetic kernel: field '%s' must be a number or {x, y, z}", field);
  }
  lua_pop(L, 1);
}

static int class_by_name(const char *name) {
  int c;
  for (c = 0; c < GP_OP_CLASS_COUNT; c++)
    if (strcmp(gp_op_class_name(c), name) == 0)
      return c;
  return -1;
}

/* t.dep: a distance or a list of up to GP_DEPS distances (1..65535). */
static void read_deps(lua_State *L, int t, int inst, uint16_t dep[GP_DEPS]) {
  size_t n, j;
  memset(dep, 0, GP_DEPS * sizeof *dep);
  gpc_getfield(L, t, "dep");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    dep[0] = (uint16_t)opt_field(L, t, "dep", 0, 0, 65535);
    return;
  }
  n = gpc_rawlen(L, -1);
  if (n > GP_DEPS)
    luaL_error(L, "synthetic kernel: instruction %d lists %d producers, at most %d", inst, (int)n,
               GP_DEPS);
  for (j = 0; j < n; j++) {
    gpc_rawgeti(L, -1, j + 1);
    if (!gpc_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > 65535)
      luaL_error(L, "synthetic kernel: instruction %d: dep[%d] must be an integer from 1 to 65535",
                 inst, (int)j + 1);
    dep[j] = (uint16_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* t[field], a list of instructions (at most GP_SYNTH_MAX_BODY), into ops;
 * returns how many.  `what` names the list in messages ("body"). */
static uint32_t read_ops(lua_State *L, int t, const char *field, const char *what, gp_synth_op *ops) {
  size_t n, i;
  gpc_getfield(L, t, field);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  if (!lua_istable(L, -1))
    return (uint32_t)luaL_error(L, "synthetic kernel: the %s must be a list of instructions", what);
  n = gpc_rawlen(L, -1);
  if (n > GP_SYNTH_MAX_BODY)
    return (uint32_t)luaL_error(L, "synthetic kernel: %s of %d instructions, expected at most %d", what,
                                (int)n, GP_SYNTH_MAX_BODY);
  for (i = 0; i < n; i++) {
    int op, c;
    gpc_rawgeti(L, -1, i + 1);
    op = lua_gettop(L);
    luaL_checktype(L, op, LUA_TTABLE);
    gpc_getfield(L, op, "class");
    c = class_by_name(luaL_checkstring(L, -1));
    if (c < 0)
      return (uint32_t)luaL_error(L, "synthetic kernel: %s instruction %d has unknown class '%s'", what,
                                  (int)i + 1, lua_tostring(L, -1));
    lua_pop(L, 1);
    ops[i].op_class = (uint8_t)c;
    ops[i].width = (uint8_t)opt_field(L, op, "width", 4, 1, 16);
    ops[i].stream = (uint8_t)(opt_field(L, op, "stream", 1, 1, GP_SYNTH_MAX_STREAMS) - 1);
    ops[i].active = (uint8_t)opt_field(L, op, "active", 0, 0, 32);
    read_deps(L, op, (int)i + 1, ops[i].dep);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return (uint32_t)n;
}

static int synth(lua_State *L) {
  gp_synth_desc d;
  gp_synth_op *body, *prologue, *epilogue;
  gp_synth_stream streams[GP_SYNTH_MAX_STREAMS];
  gp_alloc alloc = gp_alloc_default();
  gp_kernel *k = NULL;
  gp_error err;
  size_t n, i;
  luaL_checktype(L, 1, LUA_TTABLE);
  memset(&d, 0, sizeof d);
  gpc_getfield(L, 1, "name");
  strncpy(d.name, luaL_optstring(L, -1, "synthetic"), sizeof d.name - 1);
  lua_pop(L, 1);
  read_dims(L, 1, "grid", d.grid);
  read_dims(L, 1, "block", d.block);
  d.regs = (uint32_t)opt_field(L, 1, "regs", 32, 1, 255);
  d.shmem = (uint32_t)opt_field(L, 1, "shmem", 0, 0, 1 << 20);
  d.trips = (uint32_t)opt_field(L, 1, "trips", 1, 0, 100000000);
  d.trip_spread = (uint32_t)opt_field(L, 1, "trip_spread", 0, 0, 100000000);
  d.seed = (uint64_t)opt_field(L, 1, "seed", 1, 0, INT32_MAX);
  d.binary_version = (int)opt_field(L, 1, "binary_version", 80, 10, 200);

  gpc_getfield(L, 1, "streams");
  n = lua_istable(L, -1) ? gpc_rawlen(L, -1) : 0;
  if (n > GP_SYNTH_MAX_STREAMS)
    return luaL_error(L, "synthetic kernel: at most %d streams", GP_SYNTH_MAX_STREAMS);
  for (i = 0; i < n; i++) {
    int t;
    gpc_rawgeti(L, -1, i + 1);
    t = lua_gettop(L);
    luaL_checktype(L, t, LUA_TTABLE);
    gpc_getfield(L, t, "kind");
    streams[i].kind = (gp_stream_kind)luaL_checkoption(L, -1, "coalesced", stream_kinds);
    lua_pop(L, 1);
    streams[i].base = (uint64_t)opt_field(L, t, "base", 0x10000000, 0, INT64_MAX);
    streams[i].footprint = (uint64_t)opt_field(L, t, "footprint", 1 << 24, 1, INT64_MAX);
    streams[i].stride = (uint32_t)opt_field(L, t, "stride", 4, 0, 1 << 20);
    streams[i].reuse = (uint32_t)opt_field(L, t, "reuse", 1, 1, 1 << 30);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  d.streams = streams;
  d.stream_count = (uint32_t)n;

  gpc_getfield(L, 1, "body");
  luaL_argcheck(L, lua_istable(L, -1), 1, "synthetic kernel needs a body (a list of instructions)");
  lua_pop(L, 1);
  /* the three instruction lists, collected with the call's other values */
  body = lua_newuserdata(L, 3 * (size_t)GP_SYNTH_MAX_BODY * sizeof *body);
  prologue = body + GP_SYNTH_MAX_BODY;
  epilogue = prologue + GP_SYNTH_MAX_BODY;
  d.body_len = read_ops(L, 1, "body", "body", body);
  if (d.body_len == 0)
    return luaL_error(L, "synthetic kernel: body of 0 instructions, expected 1 to %d", GP_SYNTH_MAX_BODY);
  d.body = body;
  d.prologue_len = read_ops(L, 1, "prologue", "prologue", prologue);
  d.prologue = prologue;
  d.epilogue_len = read_ops(L, 1, "epilogue", "epilogue", epilogue);
  d.epilogue = epilogue;

  if (gp_synth_generate(&k, &alloc, &d, &err) != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  gpl_push_kernel(L, k);
  return 1;
}

static const luaL_Reg synth_functions[] = {{"synth", synth}, {NULL, NULL}};

void gpl_open_synth(lua_State *L) { luaL_setfuncs(L, synth_functions, 0); }
