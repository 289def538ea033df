/* libFuzzer target: mutated scaling-surface model files (surface/model_io.c)
 * through the reader.  Each input is re-sealed (payload length and digest)
 * so mutations get past the checksum to the structure checks; a model that
 * loads is used (classified and predicted at every grid corner) so
 * AddressSanitizer sees any check that is missing.  Never crash, hang or
 * leak. */
#include "gp_common.h"
#include "surface/surface.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile double sink;

static void use(const gp_surf_model *m) {
  double counters[GP_SURF_MAX_FEATURES];
  uint32_t target[3], a;
  size_t i;
  for (i = 0; i < m->features; i++)
    counters[i] = (double)i * 0.25;
  for (a = 0; a < 8; a++) {
    target[0] = (a & 1) ? m->grid.n[0] - 1 : 0;
    target[1] = (a & 2) ? m->grid.n[1] - 1 : 0;
    target[2] = (a & 4) ? m->grid.n[2] - 1 : 0;
    sink += gp_surf_predict(m, counters, 1.0, target);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gp_alloc a = gp_alloc_default();
  gp_surf_model **models;
  gp_error err;
  uint32_t count, i;
  unsigned char *image = malloc(size ? size : 1);
  if (image == NULL)
    return 0;
  memcpy(image, data, size);
  gp_surf_seal(image, size);
  if (gp_surf_decode(image, size, "fuzz.gsm", &a, &models, &count, &err) == GP_OK) {
    for (i = 0; i < count; i++) {
      use(models[i]);
      gp_surf_model_free(models[i]);
    }
    gp_free(&a, models, count * sizeof *models);
  }
  free(image);
  return 0;
}
