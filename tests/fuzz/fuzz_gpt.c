/* libFuzzer target: mutated .gpt images through the binary kernel loader.
 * Each input is re-sealed (length and checksum) so mutations get past the
 * checksum to the header and index checks, written to a scratch file and
 * loaded with verification.  A kernel that loads is walked through every
 * index the models follow (dependences to their producers included), so
 * AddressSanitizer sees any check that is missing.  Never crash, hang or
 * leak. */
#include "gp_common.h"
#include "trace.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void walk(const gp_kernel *k) {
  uint64_t w, i, sum = 0;
  int d;
  for (w = 0; w < k->warps; w++)
    for (i = k->warp_start[w]; i < k->warp_start[w] + k->warp_len[w]; i++) {
      const gp_static_inst *st = &k->statics[k->pc_index[i]];
      sum += k->op_class[i] + k->active[i] + k->strings[st->opcode];
      for (d = 0; d < GP_DEPS; d++) /* a producer: inside the warp (loader-checked) */
        sum += k->op_class[i - k->deps[i * GP_DEPS + d]];
      if (k->mem[i] != UINT32_MAX) {
        const gp_mem_record *m = &k->mem_records[k->mem[i]];
        if (m->addr_count) { /* every lane, however the record stores them */
          uint64_t buf[32];
          const uint64_t *lanes = gp_mem_lanes(k, m, buf);
          sum += lanes[0] + lanes[m->addr_count - 1];
        }
        if (m->line_count)
          sum += k->lines[m->line_start + m->line_count - 1] +
                 k->sector_masks[m->line_start + m->line_count - 1];
      }
    }
  sink = sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[64];
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_kernel *k = NULL;
  unsigned char *image;
  FILE *f;
  if (path[0] == '\0')
    snprintf(path, sizeof path, "/tmp/gpush-fuzz-%ld.gpt", (long)getpid());
  image = malloc(size ? size : 1);
  if (image == NULL)
    return 0;
  memcpy(image, data, size);
  gp_gpt_seal(image, size);
  f = fopen(path, "wb");
  if (f == NULL) {
    free(image);
    return 0;
  }
  fwrite(image, 1, size, f);
  fclose(f);
  free(image);
  if (gp_kernel_load_gpt(&k, &a, path, 1, &err) == GP_OK) {
    walk(k);
    gp_kernel_free(k);
  }
  unlink(path);
  return 0;
}
