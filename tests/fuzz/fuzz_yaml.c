/* libFuzzer target: arbitrary bytes through the configuration YAML reader.
 * Any input must parse into a well-formed tree or fail with a positioned
 * message; never crash, hang or leak.  The walk checks every child link and
 * string offset the Lua binding will follow. */
#include "gp_common.h"
#include "yamldoc.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_tree(const gp_yaml_doc *doc) {
  size_t i;
  for (i = 0; i < doc->node_count; i++) {
    const gp_yaml_node *n = &doc->nodes[i];
    int32_t c, seen = 0;
    if (n->kind == GP_YAML_STRING && n->text + n->text_len >= doc->arena_len + 1)
      abort();
    if (n->kind == GP_YAML_STRING && gp_yaml_text(doc, n)[n->text_len] != '\0')
      abort();
    for (c = n->first_child; c != -1; c = doc->nodes[c].next_sibling) {
      if (c <= (int32_t)i || (size_t)c >= doc->node_count)
        abort(); /* children come after their parent, inside the table */
      if (n->kind == GP_YAML_MAPPING && strlen(gp_yaml_key(doc, &doc->nodes[c])) >
                                            doc->nodes[c].key_len)
        abort();
      seen++;
    }
    if (seen != n->child_count)
      abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gp_alloc a = gp_alloc_default();
  gp_yaml_doc doc;
  gp_error err;
  if (gp_yaml_parse(&doc, &a, (const char *)data, size, "fuzz.yaml", &err) == GP_OK)
    check_tree(&doc);
  else if (strncmp(err.msg, "fuzz.yaml", 9) != 0)
    abort(); /* every failure names the file */
  gp_yaml_free(&doc);
  return 0;
}
