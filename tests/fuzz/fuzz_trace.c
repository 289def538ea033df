/* libFuzzer target: arbitrary bytes through the .traceg text reader.  Any
 * input must parse or fail with a message; never crash, hang or leak. */
#include "gp_common.h"
#include "trace.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  if (gp_kernel_parse_buffer(&k, &a, (const char *)data, size, "fuzz.traceg",
                             &err) == GP_OK)
    gp_kernel_free(k);
  return 0;
}
