/* libFuzzer target: arbitrary bytes through the .traceg text reader.  Any
 * input must parse or fail with a message; never crash, hang or leak.  A
 * kernel that parses also goes through the analytical models' measures
 * (trace_mix.c) under each coalescing rule. */
#include "gp_common.h"
#include "memsim.h"
#include "trace.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  if (gp_kernel_parse_buffer(&k, &a, (const char *)data, size, "fuzz.traceg",
                             &err) == GP_OK) {
    static const int rules[] = {GP_CC1X_OFF, GP_CC1X_12, GP_CC1X_10};
    int r;
    for (r = 0; r < 3; r++) {
      gp_mix_config c;
      gp_mix m;
      c.rule = rules[r];
      c.shared_banks = 32;
      c.shared_bank_bytes = 4;
      (void)gp_kernel_mix(k, &c, &a, &m, &err);
    }
    gp_kernel_free(k);
  }
  return 0;
}
