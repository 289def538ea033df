/*
 * l_machine.c -- the machine (csrc/core/machine.h) from Lua: the one place
 * the configuration crosses into C.
 *
 *   m = core.machine(cfg)      -- cfg: a resolved configuration (gpush.config)
 *       -- walks gp_machine_fields, reading each field's schema parameter
 *       -- from cfg (cfg.l1.ways for "l1.ways"); a missing parameter or one
 *       -- of the wrong type raises, naming it.  No default lives here.
 *   m:get(path)                -- a field's value ("l1.ways" -> 8)
 *   m:units()                  -- {class = unit name} on this machine
 *   m:l1_bytes(blocks, shared) -- the L1 a unified L1 leaves (machine.h)
 *   m:memsim(blocks, shared)   -- the functional memory configuration the
 *                              -- models run with, as a table (cache keys,
 *                              -- reports): sms, blocks_per_sm, l1_bytes,
 *                              -- l1_line, l1_ways, l1_sectored,
 *                              -- l1_write_back, l2_bytes, l2_line, l2_ways,
 *                              -- l2_sectored, l2_write_back, l2_slices,
 *                              -- cache_global, dram_access_bytes,
 *                              -- l1_latency, l2_latency, dram_latency,
 *                              -- cc1x, shared_banks, shared_bank_bytes,
 *                              -- shared_latency, const_latency
 *   m:timed(blocks, shared)    -- the same plus mshrs, l2_interval,
 *                              -- dram_channels, dram_bytes_per_cycle
 *   core.machine_fields()      -- { {path, type = "int"|"number"|"bool"|
 *                              --   "enum", values = {...}}, ... }
 *   core.op_class_info()       -- per opcode class, in class order: {name,
 *                              -- pipeline (the ops.<name> it takes, or
 *                              -- nil), unit (on every machine; m:units()
 *                              -- says where a machine differs), memory,
 *                              -- cache, load, store, shared, atomic
 *                              -- (booleans)}
 */
#include "compat.h"
#include "l_core.h"
#include "machine.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MACHINE_MT "gpush.machine"

const gp_machine *gpl_check_machine(lua_State *L, int index) {
  return luaL_checkudata(L, index, MACHINE_MT);
}

/* Pushes cfg's value at the dotted path (nil when a part is missing). */
static void push_path(lua_State *L, int cfg, const char *path) {
  const char *part = path;
  lua_pushvalue(L, cfg);
  while (part) {
    const char *dot = strchr(part, '.');
    size_t len = dot ? (size_t)(dot - part) : strlen(part);
    if (!lua_istable(L, -1)) {
      lua_pop(L, 1);
      lua_pushnil(L);
      return;
    }
    lua_pushlstring(L, part, len);
    lua_gettable(L, -2);
    lua_remove(L, -2);
    part = dot ? dot + 1 : NULL;
  }
}

static const char *type_name(gp_field_type t) {
  switch (t) {
  case GP_FIELD_U32:
    return "int";
  case GP_FIELD_F64:
    return "number";
  case GP_FIELD_BOOL:
    return "bool";
  default:
    return "enum";
  }
}

/* The value on top of the stack as an error message shows it. */
static const char *shown(lua_State *L) {
  if (lua_type(L, -1) == LUA_TNUMBER) {
    char text[32];
    snprintf(text, sizeof text, "%.17g", (double)lua_tonumber(L, -1));
    lua_pushstring(L, text);
    return lua_tostring(L, -1);
  }
  if (lua_type(L, -1) == LUA_TSTRING)
    return lua_pushfstring(L, "'%s'", lua_tostring(L, -1));
  return luaL_typename(L, -1);
}

/* Reads the value on top of the stack into field f of m (raises naming the
 * parameter when it does not fit), and pops it. */
static void read_field(lua_State *L, const gp_machine_field *f, gp_machine *m) {
  char *at = (char *)m + f->offset;
  int t = lua_type(L, -1);
  if (t == LUA_TNIL)
    luaL_error(L, "machine: parameter '%s' is missing from the configuration "
                  "(gpush.config.load gives every parameter)", f->path);
  switch (f->type) {
  case GP_FIELD_U32: {
    double v = lua_tonumber(L, -1);
    if (t != LUA_TNUMBER || !(v >= 0) || v > 4294967295.0 || v != floor(v))
      luaL_error(L, "machine: parameter '%s' must be a whole number from 0 to 2^32 - 1, got %s",
                 f->path, shown(L));
    *(uint32_t *)(void *)at = (uint32_t)v;
    break;
  }
  case GP_FIELD_F64: {
    double v = lua_tonumber(L, -1);
    if (t != LUA_TNUMBER || !isfinite(v))
      luaL_error(L, "machine: parameter '%s' must be a finite number, got %s", f->path,
                 shown(L));
    *(double *)(void *)at = v;
    break;
  }
  case GP_FIELD_BOOL:
    if (t != LUA_TBOOLEAN)
      luaL_error(L, "machine: parameter '%s' must be true or false, got %s", f->path,
                 shown(L));
    *(int *)(void *)at = lua_toboolean(L, -1);
    break;
  case GP_FIELD_ENUM: {
    const char *v = t == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int i;
    for (i = 0; v && f->values[i] && strcmp(f->values[i], v) != 0; i++)
      ;
    if (!v || !f->values[i])
      luaL_error(L, "machine: parameter '%s' must be one of its values (gpush config describe), "
                    "got %s", f->path, shown(L));
    *(int *)(void *)at = i;
    break;
  }
  }
  lua_pop(L, 1);
}

/* core.machine(cfg): the walk. */
static int machine_new(lua_State *L) {
  size_t n, i;
  const gp_machine_field *fields = gp_machine_fields(&n);
  gp_machine *m;
  luaL_checktype(L, 1, LUA_TTABLE);
  m = lua_newuserdata(L, sizeof *m);
  memset(m, 0, sizeof *m);
  luaL_getmetatable(L, MACHINE_MT);
  lua_setmetatable(L, -2);
  for (i = 0; i < n; i++) {
    push_path(L, 1, fields[i].path);
    read_field(L, &fields[i], m);
  }
  return 1;
}

static int machine_get(lua_State *L) {
  const gp_machine *m = gpl_check_machine(L, 1);
  const char *path = luaL_checkstring(L, 2);
  size_t n, i;
  const gp_machine_field *fields = gp_machine_fields(&n);
  for (i = 0; i < n; i++) {
    const char *at = (const char *)m + fields[i].offset;
    if (strcmp(fields[i].path, path) != 0)
      continue;
    switch (fields[i].type) {
    case GP_FIELD_U32:
      lua_pushinteger(L, (lua_Integer) * (const uint32_t *)(const void *)at);
      break;
    case GP_FIELD_F64:
      lua_pushnumber(L, *(const double *)(const void *)at);
      break;
    case GP_FIELD_BOOL:
      lua_pushboolean(L, *(const int *)(const void *)at);
      break;
    default:
      lua_pushstring(L, fields[i].values[*(const int *)(const void *)at]);
    }
    return 1;
  }
  return luaL_argerror(L, 2, "not a machine parameter (core.machine_fields lists them)");
}

static int machine_units(lua_State *L) {
  const gp_machine *m = gpl_check_machine(L, 1);
  int c;
  lua_createtable(L, 0, GP_OP_CLASS_COUNT);
  for (c = 0; c < GP_OP_CLASS_COUNT; c++) {
    lua_pushstring(L, gp_unit_name(gp_machine_op_unit(m, c)));
    lua_setfield(L, -2, gp_op_class_name(c));
  }
  return 1;
}

/* blocks per SM and shared bytes per block at arguments 2 and 3. */
static void fit_args(lua_State *L, uint32_t *blocks, uint64_t *shared) {
  lua_Integer b = luaL_checkinteger(L, 2), s = luaL_optinteger(L, 3, 0);
  luaL_argcheck(L, b >= 0 && b <= (lua_Integer)UINT32_MAX, 2, "blocks per SM out of range");
  luaL_argcheck(L, s >= 0, 3, "shared bytes per block must not be negative");
  *blocks = (uint32_t)b, *shared = (uint64_t)s;
}

static int machine_l1_bytes(lua_State *L) {
  const gp_machine *m = gpl_check_machine(L, 1);
  uint32_t blocks;
  uint64_t shared;
  fit_args(L, &blocks, &shared);
  lua_pushinteger(L, (lua_Integer)gp_machine_l1_bytes(m, blocks, shared));
  return 1;
}

static void set_bool(lua_State *L, const char *field, int v) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, field);
}

static void push_memsim(lua_State *L, const gp_memsim_config *c) {
  lua_createtable(L, 0, 28);
  gpl_set_integer(L, "sms", c->sms);
  gpl_set_integer(L, "blocks_per_sm", c->blocks_per_sm);
  gpl_set_integer(L, "l1_bytes", (lua_Integer)c->l1.size_bytes);
  gpl_set_integer(L, "l1_line", c->l1.line_bytes);
  gpl_set_integer(L, "l1_ways", c->l1.ways);
  set_bool(L, "l1_sectored", c->l1.sectored);
  set_bool(L, "l1_write_back", c->l1.write_back);
  gpl_set_integer(L, "l2_bytes", (lua_Integer)c->l2.size_bytes);
  gpl_set_integer(L, "l2_line", c->l2.line_bytes);
  gpl_set_integer(L, "l2_ways", c->l2.ways);
  set_bool(L, "l2_sectored", c->l2.sectored);
  set_bool(L, "l2_write_back", c->l2.write_back);
  gpl_set_integer(L, "l2_slices", c->l2_slices);
  set_bool(L, "cache_global", c->cache_global_in_l1);
  gpl_set_integer(L, "dram_access_bytes", c->dram_access_bytes);
  gpl_set_number(L, "l1_latency", c->l1_latency);
  gpl_set_number(L, "l2_latency", c->l2_latency);
  gpl_set_number(L, "dram_latency", c->dram_latency);
  set_bool(L, "cc1x", c->cc1x != GP_CC1X_OFF);
  gpl_set_integer(L, "shared_banks", c->shared_banks);
  gpl_set_integer(L, "shared_bank_bytes", c->shared_bank_bytes);
  gpl_set_number(L, "shared_latency", c->shared_latency);
  gpl_set_number(L, "const_latency", c->const_latency);
}

static int machine_memsim(lua_State *L) {
  const gp_machine *m = gpl_check_machine(L, 1);
  gp_memsim_config c;
  uint32_t blocks;
  uint64_t shared;
  fit_args(L, &blocks, &shared);
  gp_machine_memsim(m, blocks, shared, &c);
  push_memsim(L, &c);
  return 1;
}

static int machine_timed(lua_State *L) {
  const gp_machine *m = gpl_check_machine(L, 1);
  gp_memsim_config c;
  gp_timed_config t;
  uint32_t blocks;
  uint64_t shared;
  fit_args(L, &blocks, &shared);
  gp_machine_memsim(m, blocks, shared, &c);
  gp_machine_timed(m, blocks, shared, &t);
  push_memsim(L, &c);
  gpl_set_integer(L, "mshrs", t.mshrs_per_sm);
  gpl_set_number(L, "l2_interval", t.l2_interval);
  gpl_set_integer(L, "dram_channels", t.dram_channels);
  gpl_set_number(L, "dram_bytes_per_cycle", t.dram_bytes_per_cycle);
  return 1;
}

static int machine_fields(lua_State *L) {
  size_t n, i;
  const gp_machine_field *fields = gp_machine_fields(&n);
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, fields[i].path);
    lua_setfield(L, -2, "path");
    lua_pushstring(L, type_name(fields[i].type));
    lua_setfield(L, -2, "type");
    if (fields[i].values) {
      int v;
      lua_newtable(L);
      for (v = 0; fields[i].values[v]; v++) {
        lua_pushstring(L, fields[i].values[v]);
        gpc_rawseti(L, -2, v + 1);
      }
      lua_setfield(L, -2, "values");
    }
    gpc_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int op_class_info(lua_State *L) {
  int c;
  lua_createtable(L, GP_OP_CLASS_COUNT, 0);
  for (c = 0; c < GP_OP_CLASS_COUNT; c++) {
    int pipe = gp_op_pipeline(c);
    lua_createtable(L, 0, 8);
    lua_pushstring(L, gp_op_class_name(c));
    lua_setfield(L, -2, "name");
    if (pipe >= 0) {
      lua_pushstring(L, gp_op_class_name(pipe));
      lua_setfield(L, -2, "pipeline");
    }
    lua_pushstring(L, gp_unit_name(gp_op_unit(c)));
    lua_setfield(L, -2, "unit");
    set_bool(L, "memory", gp_op_is_memory(c));
    set_bool(L, "cache", gp_op_uses_cache(c));
    set_bool(L, "load", gp_op_is_load(c));
    set_bool(L, "store", gp_op_is_store(c));
    set_bool(L, "shared", gp_op_is_shared(c));
    set_bool(L, "atomic", gp_op_is_atomic(c));
    gpc_rawseti(L, -2, c + 1);
  }
  return 1;
}

static int machine_gc(lua_State *L) {
  (void)L;
  return 0;
}

static const luaL_Reg machine_methods[] = {{"get", machine_get},
                                           {"units", machine_units},
                                           {"l1_bytes", machine_l1_bytes},
                                           {"memsim", machine_memsim},
                                           {"timed", machine_timed},
                                           {NULL, NULL}};

static const luaL_Reg machine_functions[] = {{"machine", machine_new},
                                             {"machine_fields", machine_fields},
                                             {"op_class_info", op_class_info},
                                             {NULL, NULL}};

void gpl_open_machine(lua_State *L) {
  gpl_new_type(L, MACHINE_MT, machine_methods, machine_gc);
  luaL_setfuncs(L, machine_functions, 0);
}
