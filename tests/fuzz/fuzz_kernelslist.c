/* libFuzzer target: arbitrary bytes as a kernelslist.g, in a folder that
 * also holds two small valid traces (k1.traceg, k2.traceg) the list may
 * name.  The reader opens the list, steps through every launch (headers)
 * and loads each; any input must be read or refused with a message naming
 * a file of the folder.  Never crash, hang or leak. */
#define _POSIX_C_SOURCE 200809L

#include "gp_common.h"
#include "trace.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], list[128];

static const char trace_text[] =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
    "-nregs = 8\n-binary version = 86\n-accelsim tracer version = 4\n-enable lineinfo = 0\n"
    "#traces format = x\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
    "0010 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4\n0020 ffffffff 1 R5 FFMA 2 R4 R4 0\n#END_TB\n";

static void write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (f == NULL)
    abort();
  fwrite(data, 1, size, f);
  fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  char path[160];
  (void)argc, (void)argv;
  snprintf(dir, sizeof dir, "/tmp/gpush-fuzz-list-XXXXXX");
  if (mkdtemp(dir) == NULL)
    abort();
  snprintf(list, sizeof list, "%s/kernelslist.g", dir);
  snprintf(path, sizeof path, "%s/k1.traceg", dir);
  write_file(path, trace_text, sizeof trace_text - 1);
  snprintf(path, sizeof path, "%s/k2.traceg", dir);
  write_file(path, trace_text, sizeof trace_text - 1);
  return 0;
}

/* A refusal must start with the file it is about: the list, or a trace it
 * names (in the folder, or an absolute path the list gives). */
static void check_message(const gp_error *err) {
  if (err->msg[0] != '/' && strstr(err->msg, "out of memory") == NULL) {
    fprintf(stderr, "message without the file: %s\n", err->msg);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gp_alloc a = gp_alloc_default();
  gp_error err;
  gp_trace_reader *r = NULL;
  gp_launch_info info;
  int status, launches = 0;
  write_file(list, data, size);
  if (gp_trace_open(&r, &a, list, &err) != GP_OK) {
    check_message(&err);
    return 0;
  }
  while (launches < 64 && (status = gp_trace_next(r, &info, &err)) == 1) {
    gp_kernel *k = NULL;
    launches++;
    if (gp_trace_load(r, &k, &err) != GP_OK) {
      check_message(&err);
      break;
    }
    gp_kernel_free(k);
  }
  if (launches < 64 && status == GP_ERR)
    check_message(&err);
  gp_trace_close(r);
  return 0;
}
