/*
 * l_core.h -- the binding's registry of types.  A new binding file adds its
 * gpl_open_<type> declaration here and one call to GPL_OPEN_ALL.  Also the
 * few functions binding files share: the kernel and machine userdata
 * (l_trace.c, l_machine.c) and the field helpers (l_util.c).  The files call
 * each other without a circle: l_core.c opens them all, none calls it.
 */
#ifndef GP_L_CORE_H
#define GP_L_CORE_H

#include "compat.h"

#include <stdint.h>

int luaopen_gpush_core(lua_State *L);

/* Each adds its functions to the gpush.core table on top of the stack. */
void gpl_open_yaml(lua_State *L);
void gpl_open_fs(lua_State *L);
void gpl_open_trace(lua_State *L);
void gpl_open_synth(lua_State *L);
void gpl_open_memsim(lua_State *L);
void gpl_open_gpumech(lua_State *L);
void gpl_open_sim(lua_State *L);
void gpl_open_proc(lua_State *L);
void gpl_open_digest(lua_State *L);
void gpl_open_surface(lua_State *L);
void gpl_open_bounds(lua_State *L);
void gpl_open_machine(lua_State *L);
void gpl_open_config(lua_State *L);

struct gp_kernel;
/* Pushes a kernel as gpush.kernel userdata, which owns and frees it. */
void gpl_push_kernel(lua_State *L, struct gp_kernel *k);
/* {class_name = number} at t[field] into out[GP_OP_CLASS_COUNT] (absent:
 * def). */
void gpl_read_classes(lua_State *L, int t, const char *field, double *out, double def,
                      const char *who);
struct gp_memsim_result;
/* The functional result of the gpush.memsim_replay userdata at `index`
 * (core.memsim_functional's result table keeps it as `replay`; l_memsim.c). */
const struct gp_memsim_result *gpl_check_replay(lua_State *L, int index);
struct gp_bounds_counts;
/* A counts table (core.bounds_compute's input) at `index` into *c
 * (l_bounds.c); raises naming a count that is not a finite number >= 0. */
void gpl_read_bounds_counts(lua_State *L, int index, struct gp_bounds_counts *c);
void gpl_push_bounds_counts(lua_State *L, const struct gp_bounds_counts *c);
struct gp_machine;
/* The machine of the gpush.machine userdata at `index` (raises otherwise;
 * core.machine(cfg) makes one, l_machine.c). */
const struct gp_machine *gpl_check_machine(lua_State *L, int index);
/* The kernel of the gpush.kernel userdata at `index` (raises otherwise). */
struct gp_kernel *gpl_check_kernel(lua_State *L, int index);
/* gpl_check_kernel, and kernel:close() raises until gpl_release_kernel: for a
 * C call that runs Lua code (a policy function) while it reads the kernel. */
struct gp_kernel *gpl_hold_kernel(lua_State *L, int index);
void gpl_release_kernel(lua_State *L, int index);

/* Field readers shared by every binding file: t[field] as a number (`def`
 * when absent, a boolean as 0 or 1); any other type raises
 * "<who>: parameter '<field>' must be a number", with `who` the model
 * ("memsim", "sim", "gpumech").  gpl_opt_nonneg also refuses negatives. */
double gpl_opt_number(lua_State *L, int t, const char *field, double def, const char *who);
double gpl_opt_nonneg(lua_State *L, int t, const char *field, double def, const char *who);
/* Set field = v in the table on top of the stack. */
void gpl_set_number(lua_State *L, const char *field, double v);
void gpl_set_integer(lua_State *L, const char *field, lua_Integer v);

/* Registers a userdata type: a metatable `name` with __index = methods and
 * __gc = gc. */
void gpl_new_type(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction gc);

#define GPL_OPEN_ALL(L)                                                        \
  do {                                                                         \
    gpl_open_yaml(L);                                                          \
    gpl_open_fs(L);                                                            \
    gpl_open_trace(L);                                                         \
    gpl_open_synth(L);                                                         \
    gpl_open_memsim(L);                                                        \
    gpl_open_gpumech(L);                                                       \
    gpl_open_sim(L);                                                           \
    gpl_open_proc(L);                                                          \
    gpl_open_digest(L);                                                        \
    gpl_open_surface(L);                                                       \
    gpl_open_bounds(L);                                                        \
    gpl_open_machine(L);                                                       \
    gpl_open_config(L);                                                        \
  } while (0)

#endif
