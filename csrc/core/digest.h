/*
 * digest.h -- a 64-bit content hash for provenance stamps, and a faster
 * checksum for telling whether bytes changed.
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

/* The content checksum: a faster 64-bit hash of bytes, for what only
 * has to tell whether bytes changed (the .gpt checksums, the parsed-trace
 * cache's key of a text file), not a provenance stamp.  Bytes are taken
 * in 64-byte stripes of eight 64-bit words; each word is xored with a key
 * word (the key moves by one word per stripe, so equal stripes at
 * different places add differently), its two 32-bit halves are multiplied,
 * and the product and the word itself (into the neighbouring lane) are
 * added to eight accumulators; every 16 stripes the accumulators are
 * scrambled (shift-xor, key, multiply) so that order across blocks
 * counts; the tail is padded with zeros, and the length and the digest's
 * step finish it.  Any change of a single word, and any change of length,
 * changes the value; other changes collide with probability about 2^-64.
 * About 0.3 instructions per byte (AVX2) against the digest's 0.9.
 * Computed with AVX2 where the processor has it, else SSE2 (every x86-64),
 * in plain C elsewhere: the same value every way (test_proc checks each
 * form against a word-by-word transcription).  Pieces fed
 * to gp_checksum_add give the checksum of their concatenation when every
 * piece but the last is a multiple of GP_CHECKSUM_STRIPE bytes long. */
#define GP_CHECKSUM_STRIPE 64u

typedef struct gp_checksum {
  uint64_t acc[8];
  uint64_t length;
  unsigned stripe; /* stripes into the current block of 16 */
} gp_checksum;

void gp_checksum_start(gp_checksum *c);
void gp_checksum_add(gp_checksum *c, const void *data, size_t len);
uint64_t gp_checksum_finish(const gp_checksum *c);
uint64_t gp_checksum_bytes(const void *data, size_t len);

/* For tests: how many forms this build has (plain C, SSE2, AVX2: 1 or 3),
 * and the checksum computed with form 0 .. forms - 1, or the best the
 * processor runs (-1). */
int gp_checksum_forms(void);
uint64_t gp_checksum_bytes_form(const void *data, size_t len, int form);

#endif
