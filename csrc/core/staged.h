/*
 * staged.h -- the one way gpush writes a file.
 *
 * A staged file is written under a temporary name in the folder of its
 * target, flushed to the disk, closed with the result checked, and only
 * then renamed over the target.  Any failure on the way (a full disk, a
 * file-size limit, an I/O error, a folder that cannot be written) removes
 * the temporary file and leaves the target exactly as it was; the message
 * names the target and the reason.  Every writer of gpush, in C and in Lua
 * (core.write_file, gpush.staging.write), goes through here.
 *
 *   gp_staged s;
 *   if (gp_staged_open(&s, &alloc, "out.gpt", &err) != GP_OK) return GP_ERR;
 *   fwrite(..., s.f);                      -- any stdio output to s.f
 *   return gp_staged_commit(&s, &err);     -- or gp_staged_abort(&s)
 */
#ifndef GP_STAGED_H
#define GP_STAGED_H

#include "gp_common.h"

#include <stdio.h>

typedef struct gp_staged {
  FILE *f;        /* write here */
  char *temp;     /* the temporary file beside the target */
  char *target;   /* the file replaced on commit: the path given, or the
                     file a symbolic link given as the path points to */
  gp_alloc alloc;
} gp_staged;

/* Creates the temporary file beside `target` (mode: the target's when it
 * exists, else 0666 less the umask) and opens it for writing. */
int gp_staged_open(gp_staged *s, const gp_alloc *alloc, const char *target, gp_error *err);

/* Flushes, syncs and closes the temporary file, checking each step, then
 * renames it over the target.  On any failure the temporary file is
 * removed, the target is untouched and err says why.  `s` is released
 * either way. */
int gp_staged_commit(gp_staged *s, gp_error *err);

/* Removes the temporary file and releases `s`; the target is untouched. */
void gp_staged_abort(gp_staged *s);

/* Writes len bytes of data to target through a staged file. */
int gp_staged_write(const gp_alloc *alloc, const char *target, const void *data, size_t len,
                    gp_error *err);

#endif
