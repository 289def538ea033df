/*
 * l_yaml.c -- YAML documents as Lua values, with positions.
 *
 *   value, positions = core.yaml_load(path)
 *   value, positions = core.yaml_parse(text, chunkname)
 *   value = core.yaml_scalar(text)        -- one plain scalar, YAML 1.2 core
 *   core.yaml_null                        -- the value of a YAML null
 *
 * Mappings become tables with string keys, sequences arrays; nulls become
 * core.yaml_null (a light userdata) so a key given as null is still seen.
 * positions maps every dotted path ("sm.count", "list[2].x"; the root is "")
 * to {line=, col=, key_line=, key_col=}.  Failures return nil, message.
 */
#include "compat.h"
#include "l_core.h"
#include "yamldoc.h"

#include <stdio.h>
#include <string.h>

/* The address of this object is the null sentinel; it is never written. */
static const char yaml_null_tag = 'n';

static void push_null(lua_State *L) {
  lua_pushlightuserdata(L, (void *)(uintptr_t)&yaml_null_tag);
}

static void *lua_allocator_hook(void *ud, void *ptr, size_t osize,
                                size_t nsize) {
  lua_State *L = ud;
  void *alloc_ud;
  lua_Alloc fn = lua_getallocf(L, &alloc_ud);
  return fn(alloc_ud, ptr, osize, nsize);
}

/* Records positions[path] = {line=, col=, key_line=, key_col=}. */
static void record_position(lua_State *L, int positions, const char *path,
                            const gp_yaml_node *node) {
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, node->line);
  lua_setfield(L, -2, "line");
  lua_pushinteger(L, node->column);
  lua_setfield(L, -2, "col");
  lua_pushinteger(L, node->key_line ? node->key_line : node->line);
  lua_setfield(L, -2, "key_line");
  lua_pushinteger(L, node->key_column ? node->key_column : node->column);
  lua_setfield(L, -2, "key_col");
  lua_setfield(L, positions, path);
}

/* Pushes the Lua value of node `index` and records positions below `path`. */
static void push_node(lua_State *L, const gp_yaml_doc *doc, int32_t index,
                      int positions, const char *path) {
  const gp_yaml_node *node = &doc->nodes[index];
  int32_t child;
  int i = 0;
  luaL_checkstack(L, 4, "YAML document too deep");
  record_position(L, positions, path, node);
  switch (node->kind) {
  case GP_YAML_NULL:
    push_null(L);
    return;
  case GP_YAML_BOOL:
    lua_pushboolean(L, node->integer != 0);
    return;
  case GP_YAML_INT:
    lua_pushinteger(L, (lua_Integer)node->integer);
    return;
  case GP_YAML_FLOAT:
    lua_pushnumber(L, node->number);
    return;
  case GP_YAML_STRING:
    lua_pushlstring(L, gp_yaml_text(doc, node), node->text_len);
    return;
  case GP_YAML_SEQUENCE:
  case GP_YAML_MAPPING:
    break;
  }
  lua_createtable(L, node->kind == GP_YAML_SEQUENCE ? node->child_count : 0,
                  node->kind == GP_YAML_MAPPING ? node->child_count : 0);
  for (child = node->first_child; child >= 0;
       child = doc->nodes[child].next_sibling) {
    const gp_yaml_node *c = &doc->nodes[child];
    const char *child_path;
    i++;
    if (node->kind == GP_YAML_MAPPING)
      child_path = lua_pushfstring(L, "%s%s%s", path, *path ? "." : "",
                                   gp_yaml_key(doc, c));
    else
      child_path = lua_pushfstring(L, "%s[%d]", path, i);
    push_node(L, doc, child, positions, child_path);
    if (node->kind == GP_YAML_MAPPING) {
      lua_pushlstring(L, gp_yaml_key(doc, c), c->key_len);
      lua_insert(L, -2);
      lua_rawset(L, -4);
    } else {
      gpc_rawseti(L, -3, i);
    }
    lua_pop(L, 1); /* child_path */
  }
}

/* Common tail of yaml_load and yaml_parse: doc -> value, positions. */
static int push_document(lua_State *L, gp_yaml_doc *doc) {
  int positions;
  lua_newtable(L);
  positions = lua_gettop(L);
  push_node(L, doc, 0, positions, "");
  gp_yaml_free(doc);
  lua_insert(L, positions);
  return 2;
}

static int yaml_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  gp_alloc alloc = {lua_allocator_hook, L};
  gp_yaml_doc doc;
  gp_error err;
  if (gp_yaml_parse_file(&doc, &alloc, path, &err) != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  return push_document(L, &doc);
}

static int yaml_parse(lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  const char *name = luaL_optstring(L, 2, "(string)");
  gp_alloc alloc = {lua_allocator_hook, L};
  gp_yaml_doc doc;
  gp_error err;
  if (gp_yaml_parse(&doc, &alloc, text, len, name, &err) != GP_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    return 2;
  }
  return push_document(L, &doc);
}

static int yaml_scalar(lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  gp_yaml_node node;
  memset(&node, 0, sizeof node);
  gp_yaml_resolve_plain(text, len, &node);
  switch (node.kind) {
  case GP_YAML_NULL:
    push_null(L);
    break;
  case GP_YAML_BOOL:
    lua_pushboolean(L, node.integer != 0);
    break;
  case GP_YAML_INT:
    lua_pushinteger(L, (lua_Integer)node.integer);
    break;
  case GP_YAML_FLOAT:
    lua_pushnumber(L, node.number);
    break;
  default:
    lua_pushvalue(L, 1);
    break;
  }
  return 1;
}

static const luaL_Reg yaml_functions[] = {{"yaml_load", yaml_load},
                                          {"yaml_parse", yaml_parse},
                                          {"yaml_scalar", yaml_scalar},
                                          {NULL, NULL}};

void gpl_open_yaml(lua_State *L) {
  luaL_setfuncs(L, yaml_functions, 0);
  push_null(L);
  lua_setfield(L, -2, "yaml_null");
}
