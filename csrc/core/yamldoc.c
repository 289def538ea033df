/*
 * yamldoc.c -- libyaml events to a gp_yaml_doc tree, YAML 1.2 core schema.
 */
#include "yamldoc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* An open container while events stream in. */
typedef struct open_container {
  int32_t node;       /* index of the container node */
  int32_t last_child; /* index of its last child so far, -1 */
  int have_key;       /* mappings: a key is waiting for its value */
  size_t key, key_len;
  int key_line, key_column;
} open_container;

typedef struct builder {
  gp_yaml_doc *doc;
  const char *name;
  gp_error *err;
  open_container stack[GP_YAML_MAX_DEPTH];
  int depth;
  int root_done;
} builder;

/* ---------------------------------------------------------------------------
 * Scalar resolution (YAML 1.2 core schema, section 10.3.2)
 * ------------------------------------------------------------------------- */

static int matches_any(const char *text, size_t len, const char *const *words) {
  for (; *words != NULL; words++)
    if (strlen(*words) == len && memcmp(text, *words, len) == 0)
      return 1;
  return 0;
}

static int is_digits(const char *s, size_t len, int base) {
  size_t i;
  if (len == 0)
    return 0;
  for (i = 0; i < len; i++) {
    char c = s[i];
    int ok = base == 8    ? (c >= '0' && c <= '7')
             : base == 16 ? ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
                             (c >= 'A' && c <= 'F'))
                          : (c >= '0' && c <= '9');
    if (!ok)
      return 0;
  }
  return 1;
}

/* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static int is_core_float(const char *s, size_t len) {
  size_t i = 0, digits = 0;
  if (i < len && (s[i] == '-' || s[i] == '+'))
    i++;
  while (i < len && s[i] >= '0' && s[i] <= '9')
    i++, digits++;
  if (i < len && s[i] == '.') {
    i++;
    while (i < len && s[i] >= '0' && s[i] <= '9')
      i++, digits++;
  }
  if (digits == 0)
    return 0;
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    size_t exp_digits = 0;
    i++;
    if (i < len && (s[i] == '-' || s[i] == '+'))
      i++;
    while (i < len && s[i] >= '0' && s[i] <= '9')
      i++, exp_digits++;
    if (exp_digits == 0)
      return 0;
  }
  return i == len;
}

/* Parses digits in a base into *out; returns 0 on overflow of int64. */
static int parse_integer(const char *s, size_t len, int base, int negative,
                         int64_t *out) {
  uint64_t limit = negative ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
  uint64_t value = 0;
  size_t i;
  for (i = 0; i < len; i++) {
    char c = s[i];
    unsigned digit = (unsigned)(c >= 'a' ? c - 'a' + 10
                                : c >= 'A' ? c - 'A' + 10
                                           : c - '0');
    if (value > (limit - digit) / (unsigned)base)
      return 0;
    value = value * (unsigned)base + digit;
  }
  *out = negative ? (int64_t)(0u - value) : (int64_t)value;
  return 1;
}

static void resolve_float(const char *text, size_t len, gp_yaml_node *node) {
  char buf[128];
  if (len >= sizeof buf) {
    node->kind = GP_YAML_STRING;
    return;
  }
  memcpy(buf, text, len);
  buf[len] = '\0';
  node->kind = GP_YAML_FLOAT;
  node->number = strtod(buf, NULL);
}

void gp_yaml_resolve_plain(const char *text, size_t len, gp_yaml_node *node) {
  static const char *const nulls[] = {"~", "null", "Null", "NULL", NULL};
  static const char *const trues[] = {"true", "True", "TRUE", NULL};
  static const char *const falses[] = {"false", "False", "FALSE", NULL};
  static const char *const infs[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf",
                                     "+.INF", NULL};
  static const char *const neg_infs[] = {"-.inf", "-.Inf", "-.INF", NULL};
  static const char *const nans[] = {".nan", ".NaN", ".NAN", NULL};
  int negative = len > 0 && text[0] == '-';
  size_t sign = len > 0 && (text[0] == '-' || text[0] == '+');

  node->kind = GP_YAML_STRING;
  if (len == 0 || matches_any(text, len, nulls)) {
    node->kind = GP_YAML_NULL;
  } else if (matches_any(text, len, trues) || matches_any(text, len, falses)) {
    node->kind = GP_YAML_BOOL;
    node->integer = text[0] == 't' || text[0] == 'T';
  } else if (len > 2 && text[0] == '0' && text[1] == 'o' &&
             is_digits(text + 2, len - 2, 8)) {
    if (parse_integer(text + 2, len - 2, 8, 0, &node->integer))
      node->kind = GP_YAML_INT;
  } else if (len > 2 && text[0] == '0' && text[1] == 'x' &&
             is_digits(text + 2, len - 2, 16)) {
    if (parse_integer(text + 2, len - 2, 16, 0, &node->integer))
      node->kind = GP_YAML_INT;
  } else if (is_digits(text + sign, len - sign, 10)) {
    if (parse_integer(text + sign, len - sign, 10, negative, &node->integer))
      node->kind = GP_YAML_INT;
    else
      resolve_float(text, len, node); /* beyond int64: keep as a float */
  } else if (is_core_float(text, len)) {
    resolve_float(text, len, node);
  } else if (matches_any(text, len, infs)) {
    node->kind = GP_YAML_FLOAT;
    node->number = HUGE_VAL;
  } else if (matches_any(text, len, neg_infs)) {
    node->kind = GP_YAML_FLOAT;
    node->number = -HUGE_VAL;
  } else if (matches_any(text, len, nans)) {
    node->kind = GP_YAML_FLOAT;
    node->number = NAN;
  }
}

const char *gp_yaml_kind_name(gp_yaml_kind kind) {
  switch (kind) {
  case GP_YAML_NULL:
    return "null";
  case GP_YAML_BOOL:
    return "a boolean";
  case GP_YAML_INT:
    return "an integer";
  case GP_YAML_FLOAT:
    return "a number";
  case GP_YAML_STRING:
    return "a string";
  case GP_YAML_SEQUENCE:
    return "a list";
  case GP_YAML_MAPPING:
    return "a mapping";
  }
  return "an unknown value";
}

/* ---------------------------------------------------------------------------
 * Building the tree
 * ------------------------------------------------------------------------- */

static int fail_at(builder *b, yaml_mark_t mark, const char *problem) {
  return gp_error_set(b->err, "%s:%lu:%lu: %s", b->name,
                      (unsigned long)mark.line + 1,
                      (unsigned long)mark.column + 1, problem);
}

/* Copies text into the arena (NUL-terminated); returns its offset. */
static int arena_add(builder *b, const char *text, size_t len, size_t *offset) {
  gp_yaml_doc *doc = b->doc;
  if (gp_grow(&doc->alloc, (void **)&doc->arena, &doc->arena_cap,
              doc->arena_len + len + 1, 1) != GP_OK)
    return gp_error_set(b->err, "%s: out of memory", b->name);
  memcpy(doc->arena + doc->arena_len, text, len);
  doc->arena[doc->arena_len + len] = '\0';
  *offset = doc->arena_len;
  doc->arena_len += len + 1;
  return GP_OK;
}

static int same_key(const gp_yaml_doc *doc, const gp_yaml_node *node,
                    size_t key, size_t key_len) {
  return node->key_len == key_len &&
         memcmp(doc->arena + node->key, doc->arena + key, key_len) == 0;
}

/* Appends a node as the next child of the innermost open container (or as
 * the root), taking the pending key for mapping values; returns its index
 * in *index. */
static int add_node(builder *b, gp_yaml_kind kind, yaml_mark_t mark,
                    int32_t *index) {
  gp_yaml_doc *doc = b->doc;
  gp_yaml_node *node;
  if (doc->node_count >= GP_YAML_MAX_NODES)
    return fail_at(b, mark, "document too large (more than 1000000 nodes)");
  if (gp_grow(&doc->alloc, (void **)&doc->nodes, &doc->node_cap,
              doc->node_count + 1, sizeof *doc->nodes) != GP_OK)
    return gp_error_set(b->err, "%s: out of memory", b->name);
  *index = (int32_t)doc->node_count++;
  node = &doc->nodes[*index];
  memset(node, 0, sizeof *node);
  node->kind = kind;
  node->line = (int)mark.line + 1;
  node->column = (int)mark.column + 1;
  node->first_child = node->next_sibling = -1;
  if (b->depth > 0) {
    open_container *parent = &b->stack[b->depth - 1];
    gp_yaml_node *p = &doc->nodes[parent->node];
    if (p->kind == GP_YAML_MAPPING) {
      int32_t sibling;
      for (sibling = p->first_child; sibling >= 0;
           sibling = doc->nodes[sibling].next_sibling) {
        if (same_key(doc, &doc->nodes[sibling], parent->key,
                     parent->key_len)) {
          char msg[GP_ERROR_MAX];
          yaml_mark_t key_mark = mark;
          snprintf(msg, sizeof msg, "duplicate key '%s' (first given on line %d)",
                   doc->arena + parent->key, doc->nodes[sibling].key_line);
          key_mark.line = (size_t)parent->key_line - 1;
          key_mark.column = (size_t)parent->key_column - 1;
          return fail_at(b, key_mark, msg);
        }
      }
      node->key = parent->key;
      node->key_len = parent->key_len;
      node->key_line = parent->key_line;
      node->key_column = parent->key_column;
      parent->have_key = 0;
    }
    if (parent->last_child < 0)
      p->first_child = *index;
    else
      doc->nodes[parent->last_child].next_sibling = *index;
    parent->last_child = *index;
    p->child_count++;
  } else {
    b->root_done = 1;
  }
  return GP_OK;
}

/* A scalar event: either a mapping key (kept pending) or a value node. */
static int on_scalar(builder *b, const yaml_event_t *event) {
  const char *text = (const char *)event->data.scalar.value;
  size_t len = event->data.scalar.length;
  int plain = event->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
  gp_yaml_node resolved;
  int32_t index;

  if (b->depth > 0) {
    open_container *parent = &b->stack[b->depth - 1];
    if (b->doc->nodes[parent->node].kind == GP_YAML_MAPPING &&
        !parent->have_key) {
      parent->have_key = 1;
      parent->key_line = (int)event->start_mark.line + 1;
      parent->key_column = (int)event->start_mark.column + 1;
      parent->key_len = len;
      return arena_add(b, text, len, &parent->key);
    }
  }
  memset(&resolved, 0, sizeof resolved);
  if (plain && event->data.scalar.tag == NULL)
    gp_yaml_resolve_plain(text, len, &resolved);
  else
    resolved.kind = GP_YAML_STRING;
  if (add_node(b, resolved.kind, event->start_mark, &index) != GP_OK)
    return GP_ERR;
  b->doc->nodes[index].integer = resolved.integer;
  b->doc->nodes[index].number = resolved.number;
  if (resolved.kind == GP_YAML_STRING) {
    size_t offset;
    if (arena_add(b, text, len, &offset) != GP_OK)
      return GP_ERR;
    b->doc->nodes[index].text = offset;
    b->doc->nodes[index].text_len = len;
  }
  return GP_OK;
}

static int on_container_start(builder *b, const yaml_event_t *event,
                              gp_yaml_kind kind) {
  int32_t index;
  open_container *open;
  if (b->depth > 0) {
    open_container *parent = &b->stack[b->depth - 1];
    if (b->doc->nodes[parent->node].kind == GP_YAML_MAPPING &&
        !parent->have_key)
      return fail_at(b, event->start_mark,
                     "a mapping key must be a plain value, not a list or mapping");
  }
  if (b->depth >= GP_YAML_MAX_DEPTH)
    return fail_at(b, event->start_mark, "nesting deeper than 64 levels");
  if (add_node(b, kind, event->start_mark, &index) != GP_OK)
    return GP_ERR;
  open = &b->stack[b->depth++];
  memset(open, 0, sizeof *open);
  open->node = index;
  open->last_child = -1;
  return GP_OK;
}

/* Handles one parser event; returns GP_OK, GP_ERR, or 1 at stream end. */
static int on_event(builder *b, const yaml_event_t *event) {
  switch (event->type) {
  case YAML_STREAM_START_EVENT:
  case YAML_DOCUMENT_END_EVENT:
    return GP_OK;
  case YAML_DOCUMENT_START_EVENT:
    if (b->root_done)
      return fail_at(b, event->start_mark,
                     "only one YAML document is expected per file");
    return GP_OK;
  case YAML_STREAM_END_EVENT:
    return 1;
  case YAML_ALIAS_EVENT:
    return fail_at(b, event->start_mark,
                   "anchors and aliases (*name) are not supported in gpush "
                   "configurations; use 'preset:' to share values");
  case YAML_SCALAR_EVENT:
    if (event->data.scalar.anchor != NULL)
      return fail_at(b, event->start_mark,
                     "anchors (&name) are not supported in gpush configurations");
    return on_scalar(b, event);
  case YAML_SEQUENCE_START_EVENT:
    return on_container_start(b, event, GP_YAML_SEQUENCE);
  case YAML_MAPPING_START_EVENT:
    return on_container_start(b, event, GP_YAML_MAPPING);
  case YAML_SEQUENCE_END_EVENT:
  case YAML_MAPPING_END_EVENT:
    b->depth--;
    return GP_OK;
  case YAML_NO_EVENT:
    break;
  }
  return fail_at(b, event->start_mark, "unexpected YAML event");
}

static int parser_error(builder *b, const yaml_parser_t *parser) {
  const char *problem = parser->problem ? parser->problem : "invalid YAML";
  yaml_mark_t mark = parser->problem_mark;
  if (parser->context != NULL)
    return gp_error_set(b->err, "%s:%lu:%lu: YAML syntax error: %s %s",
                        b->name, (unsigned long)mark.line + 1,
                        (unsigned long)mark.column + 1, problem,
                        parser->context);
  return gp_error_set(b->err, "%s:%lu:%lu: YAML syntax error: %s", b->name,
                      (unsigned long)mark.line + 1,
                      (unsigned long)mark.column + 1, problem);
}

static void doc_init(gp_yaml_doc *doc, const gp_alloc *alloc) {
  memset(doc, 0, sizeof *doc);
  doc->alloc = *alloc;
}

int gp_yaml_parse(gp_yaml_doc *doc, const gp_alloc *alloc, const char *text,
                  size_t len, const char *name, gp_error *err) {
  yaml_parser_t parser;
  builder b;
  int status = GP_OK;

  doc_init(doc, alloc);
  memset(&b, 0, sizeof b);
  b.doc = doc;
  b.name = name;
  b.err = err;
  if (len > GP_YAML_MAX_BYTES)
    return gp_error_set(err, "%s: file too large for a configuration (%zu bytes)",
                        name, len);
  if (!yaml_parser_initialize(&parser))
    return gp_error_set(err, "%s: out of memory", name);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  for (;;) {
    yaml_event_t event;
    int result;
    if (!yaml_parser_parse(&parser, &event)) {
      status = parser_error(&b, &parser);
      break;
    }
    result = on_event(&b, &event);
    yaml_event_delete(&event);
    if (result == GP_ERR) {
      status = GP_ERR;
      break;
    }
    if (result == 1)
      break;
  }
  yaml_parser_delete(&parser);
  if (status == GP_OK && doc->node_count == 0) {
    /* An empty document is a null root. */
    yaml_mark_t start = {0, 0, 0};
    int32_t index;
    status = add_node(&b, GP_YAML_NULL, start, &index);
  }
  if (status != GP_OK)
    gp_yaml_free(doc);
  return status;
}

int gp_yaml_parse_file(gp_yaml_doc *doc, const gp_alloc *alloc,
                       const char *path, gp_error *err) {
  FILE *f;
  char *text;
  size_t cap = 0, len = 0;
  int status;

  doc_init(doc, alloc);
  f = fopen(path, "rb");
  if (f == NULL)
    return gp_error_set(err, "%s: cannot open: %s", path, strerror(errno));
  text = NULL;
  for (;;) {
    size_t n;
    if (gp_grow(alloc, (void **)&text, &cap, len + 65536, 1) != GP_OK) {
      fclose(f);
      gp_free(alloc, text, cap);
      return gp_error_set(err, "%s: out of memory", path);
    }
    n = fread(text + len, 1, cap - len, f);
    len += n;
    if (n == 0 || len > GP_YAML_MAX_BYTES)
      break;
  }
  if (ferror(f)) {
    fclose(f);
    gp_free(alloc, text, cap);
    return gp_error_set(err, "%s: read error: %s", path, strerror(errno));
  }
  fclose(f);
  status = gp_yaml_parse(doc, alloc, text, len, path, err);
  gp_free(alloc, text, cap);
  return status;
}

void gp_yaml_free(gp_yaml_doc *doc) {
  gp_free(&doc->alloc, doc->nodes, doc->node_cap * sizeof *doc->nodes);
  gp_free(&doc->alloc, doc->arena, doc->arena_cap);
  doc->nodes = NULL;
  doc->arena = NULL;
  doc->node_count = doc->node_cap = doc->arena_len = doc->arena_cap = 0;
}

const char *gp_yaml_text(const gp_yaml_doc *doc, const gp_yaml_node *node) {
  return doc->arena + node->text;
}

const char *gp_yaml_key(const gp_yaml_doc *doc, const gp_yaml_node *node) {
  return doc->arena != NULL ? doc->arena + node->key : "";
}
