/*
 * digest.h -- a 64-bit content hash for provenance stamps.
 *
 * Not cryptographic: it tells whether two runs saw the same kernel or the
 * same sweep definition, fast enough to hash a whole kernel (tens of MB)
 * in a few milliseconds.  Bytes are consumed as 8-byte words, each folded
 * in with a rotate-xor-multiply step (so high bits reach the low ones),
 * the tail byte by byte, and the length and a splitmix64 finaliser close
 * it.  Values read from memory in host byte order: the hash of a kernel is
 * the same on every little-endian machine.
 */
#ifndef GP_DIGEST_H
#define GP_DIGEST_H

#include <stddef.h>
#include <stdint.h>

struct gp_kernel;

/* A running digest: start with gp_digest_start, feed with gp_digest_add,
 * read with gp_digest_finish (which does not change the state).  Pieces
 * give the digest of their concatenation when every piece but the last is
 * a multiple of 8 bytes long (tails are folded in byte by byte). */
typedef struct gp_digest {
  uint64_t h;
  uint64_t length;
} gp_digest;

void gp_digest_start(gp_digest *d);
void gp_digest_add(gp_digest *d, const void *data, size_t len);
uint64_t gp_digest_finish(const gp_digest *d);

/* The digest of one buffer. */
uint64_t gp_digest_bytes(const void *data, size_t len);

/* The digest of what a kernel holds for the models: name, geometry,
 * resources, per-warp lengths, every per-instruction array, the memory
 * records' lane addresses and the static instructions (PC, opcode text,
 * class).  Independent of the file format it came from (.traceg or .gpt)
 * and of reader-private fields (capacities, hash tables, .gpt images). */
uint64_t gp_digest_kernel(const struct gp_kernel *k);

#endif
