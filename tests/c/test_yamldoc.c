/* Unit tests of yamldoc: YAML 1.2 core-schema scalars, positions, errors. */
#include "gp_test.h"
#include "yamldoc.h"

#include <string.h>

static gp_yaml_node resolve(const char *text) {
  gp_yaml_node node;
  memset(&node, 0, sizeof node);
  gp_yaml_resolve_plain(text, strlen(text), &node);
  return node;
}

static void test_core_schema_scalars(void) {
  CHECK_EQ_INT(resolve("").kind, GP_YAML_NULL);
  CHECK_EQ_INT(resolve("~").kind, GP_YAML_NULL);
  CHECK_EQ_INT(resolve("Null").kind, GP_YAML_NULL);
  CHECK_EQ_INT(resolve("nULL").kind, GP_YAML_STRING);
  CHECK_EQ_INT(resolve("True").kind, GP_YAML_BOOL);
  CHECK_EQ_INT(resolve("FALSE").integer, 0);
  /* YAML 1.1 booleans are plain strings in 1.2 */
  CHECK_EQ_INT(resolve("yes").kind, GP_YAML_STRING);
  CHECK_EQ_INT(resolve("off").kind, GP_YAML_STRING);
  CHECK_EQ_INT(resolve("-42").integer, -42);
  CHECK_EQ_INT(resolve("+7").integer, 7);
  CHECK_EQ_INT(resolve("0o17").integer, 15);
  CHECK_EQ_INT(resolve("0x1F").integer, 31);
  CHECK_EQ_INT(resolve("0x").kind, GP_YAML_STRING);
  CHECK_EQ_INT(resolve("9223372036854775807").integer, INT64_MAX);
  CHECK_EQ_INT(resolve("-9223372036854775808").integer, INT64_MIN);
  CHECK_EQ_INT(resolve("9223372036854775808").kind, GP_YAML_FLOAT);
  CHECK_NEAR(resolve("1.5e3").number, 1500.0, 0);
  CHECK_NEAR(resolve(".5").number, 0.5, 0);
  CHECK_NEAR(resolve("2.").number, 2.0, 0);
  CHECK_EQ_INT(resolve("1e").kind, GP_YAML_STRING);
  CHECK_EQ_INT(resolve("1_000").kind, GP_YAML_STRING);
  CHECK(isinf(resolve("-.inf").number) && resolve("-.inf").number < 0);
  CHECK(isnan(resolve(".NaN").number));
  CHECK_EQ_INT(resolve("12 GB").kind, GP_YAML_STRING);
}

static const gp_yaml_node *child(const gp_yaml_doc *doc,
                                 const gp_yaml_node *node, const char *key) {
  int32_t i;
  for (i = node->first_child; i >= 0; i = doc->nodes[i].next_sibling)
    if (strcmp(gp_yaml_key(doc, &doc->nodes[i]), key) == 0)
      return &doc->nodes[i];
  return NULL;
}

static void test_tree_and_positions(void) {
  const char *text = "sm:\n  count: 15\n  name: 'x'\nlist: [1, 2.5]\n";
  gp_alloc a = gp_alloc_default();
  gp_yaml_doc doc;
  gp_error err;
  const gp_yaml_node *sm, *count, *name, *list, *second;
  CHECK(gp_yaml_parse(&doc, &a, text, strlen(text), "t.yaml", &err) == GP_OK);
  CHECK_EQ_INT(doc.nodes[0].kind, GP_YAML_MAPPING);
  CHECK_EQ_INT(doc.nodes[0].child_count, 2);
  sm = child(&doc, &doc.nodes[0], "sm");
  count = child(&doc, sm, "count");
  CHECK_EQ_INT(count->kind, GP_YAML_INT);
  CHECK_EQ_INT(count->integer, 15);
  CHECK_EQ_INT(count->line, 2);
  CHECK_EQ_INT(count->column, 10);
  CHECK_EQ_INT(count->key_line, 2);
  CHECK_EQ_INT(count->key_column, 3);
  name = child(&doc, sm, "name");
  CHECK_EQ_INT(name->kind, GP_YAML_STRING);
  CHECK(strcmp(gp_yaml_text(&doc, name), "x") == 0);
  list = child(&doc, &doc.nodes[0], "list");
  CHECK_EQ_INT(list->kind, GP_YAML_SEQUENCE);
  CHECK_EQ_INT(list->child_count, 2);
  second = &doc.nodes[doc.nodes[list->first_child].next_sibling];
  CHECK_NEAR(second->number, 2.5, 0);
  CHECK_EQ_INT(second->line, 4);
  CHECK_EQ_INT(second->column, 11);
  gp_yaml_free(&doc);
}

static void test_quoted_scalars_stay_strings(void) {
  const char *text = "a: \"12\"\nb: 'true'\n";
  gp_alloc a = gp_alloc_default();
  gp_yaml_doc doc;
  gp_error err;
  CHECK(gp_yaml_parse(&doc, &a, text, strlen(text), "q.yaml", &err) == GP_OK);
  CHECK_EQ_INT(child(&doc, &doc.nodes[0], "a")->kind, GP_YAML_STRING);
  CHECK_EQ_INT(child(&doc, &doc.nodes[0], "b")->kind, GP_YAML_STRING);
  gp_yaml_free(&doc);
}

static void expect_error(const char *text, const char *message) {
  gp_alloc a = gp_alloc_default();
  gp_yaml_doc doc;
  gp_error err;
  CHECK(gp_yaml_parse(&doc, &a, text, strlen(text), "bad.yaml", &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, message);
  gp_yaml_free(&doc);
}

static void test_errors_name_file_line_column(void) {
  expect_error("a: 1\nb: [1, 2\n", "bad.yaml:3:1: YAML syntax error: did not find expected ',' or ']'");
  expect_error("x: 1\ny:\n  z: 1\n  z: 2\n", "bad.yaml:4:3: duplicate key 'z' (first given on line 3)");
  expect_error("a: &anchor 1\n", "bad.yaml:1:4: anchors (&name) are not supported");
  expect_error("a: 1\n---\nb: 2\n", "bad.yaml:2:1: only one YAML document is expected");
  expect_error("? [1, 2]\n: x\n", "bad.yaml:1:3: a mapping key must be a plain value");
  expect_error("\t- x\n", "bad.yaml:1:1: YAML syntax error");
}

static void test_depth_is_bounded(void) {
  char text[200];
  memset(text, '[', 100);
  memset(text + 100, ']', 99);
  text[199] = '\0';
  expect_error(text, "nesting deeper than 64 levels");
}

static void test_empty_document_is_null(void) {
  gp_alloc a = gp_alloc_default();
  gp_yaml_doc doc;
  gp_error err;
  CHECK(gp_yaml_parse(&doc, &a, "", 0, "e.yaml", &err) == GP_OK);
  CHECK_EQ_INT(doc.node_count, 1);
  CHECK_EQ_INT(doc.nodes[0].kind, GP_YAML_NULL);
  gp_yaml_free(&doc);
  CHECK(gp_yaml_parse_file(&doc, &a, "/nonexistent/x.yaml", &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "/nonexistent/x.yaml: cannot open: No such file");
}

int main(void) {
  RUN(test_core_schema_scalars);
  RUN(test_tree_and_positions);
  RUN(test_quoted_scalars_stay_strings);
  RUN(test_errors_name_file_line_column);
  RUN(test_depth_is_bounded);
  RUN(test_empty_document_is_null);
  return gp_test_finish();
}
