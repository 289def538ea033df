/*
 * yamldoc.h -- a YAML document as a tree of nodes with positions.
 *
 * gpush reads configuration YAML through libyaml's event parser into this
 * tree; every node keeps the 1-based line and column where it starts, so
 * validation can say `file:line:column: ...`.  Plain scalars are resolved
 * with the YAML 1.2 core schema (so `yes`/`no`/`on`/`off` stay strings);
 * quoted scalars are always strings.  Anchors and aliases, complex keys,
 * duplicate keys and multi-document streams are rejected with a message.
 */
#ifndef GP_YAMLDOC_H
#define GP_YAMLDOC_H

#include "gp_common.h"

typedef enum gp_yaml_kind {
  GP_YAML_NULL,
  GP_YAML_BOOL,
  GP_YAML_INT,
  GP_YAML_FLOAT,
  GP_YAML_STRING,
  GP_YAML_SEQUENCE,
  GP_YAML_MAPPING
} gp_yaml_kind;

/* Limits that keep hostile input bounded. */
#define GP_YAML_MAX_DEPTH 64
#define GP_YAML_MAX_NODES 1000000
#define GP_YAML_MAX_BYTES (16u << 20)

/* One node.  Strings (scalar text, mapping keys) live in the document's
 * string arena and are addressed by offset, so the arena may grow. */
typedef struct gp_yaml_node {
  gp_yaml_kind kind;
  int line, column;           /* where the node starts, 1-based */
  int key_line, key_column;   /* where its key starts, for mapping values */
  int64_t integer;            /* GP_YAML_INT, and GP_YAML_BOOL as 0/1 */
  double number;              /* GP_YAML_FLOAT */
  size_t text, text_len;      /* GP_YAML_STRING: offset into the arena */
  size_t key, key_len;        /* mapping values: the key, in the arena */
  int32_t first_child;        /* containers: index of the first child, -1 */
  int32_t next_sibling;       /* index of the next child of the parent, -1 */
  int32_t child_count;
} gp_yaml_node;

typedef struct gp_yaml_doc {
  gp_alloc alloc;
  gp_yaml_node *nodes; /* nodes[0] is the root */
  size_t node_count, node_cap;
  char *arena;
  size_t arena_len, arena_cap;
} gp_yaml_doc;

/* Parses `len` bytes of YAML named `name` (used in messages) into doc.
 * On failure returns GP_ERR with "name:line:column: problem" in err and
 * leaves doc empty (safe to free). */
int gp_yaml_parse(gp_yaml_doc *doc, const gp_alloc *alloc, const char *text,
                  size_t len, const char *name, gp_error *err);

/* Reads and parses a file; messages are prefixed with the path. */
int gp_yaml_parse_file(gp_yaml_doc *doc, const gp_alloc *alloc,
                       const char *path, gp_error *err);

void gp_yaml_free(gp_yaml_doc *doc);

/* The text of a string node or the key of a mapping value (not
 * NUL-terminated beyond len, but the arena keeps a NUL after each). */
const char *gp_yaml_text(const gp_yaml_doc *doc, const gp_yaml_node *node);
const char *gp_yaml_key(const gp_yaml_doc *doc, const gp_yaml_node *node);

/* Resolves one plain scalar by the YAML 1.2 core schema into *node (kind,
 * integer or number; strings are left to the caller: kind GP_YAML_STRING
 * means "not null, bool, int or float"). */
void gp_yaml_resolve_plain(const char *text, size_t len, gp_yaml_node *node);

/* Name of a kind, for messages ("a mapping", "an integer", ...). */
const char *gp_yaml_kind_name(gp_yaml_kind kind);

#endif
