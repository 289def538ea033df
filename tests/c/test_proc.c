/* The process primitives (proc.h) and the provenance digest (digest.h):
 * a worker's bytes reach the parent through poll and read, exit codes and
 * signals are reported, SIGINT sets the flag instead of killing, and the
 * digest separates what it should and repeats what it must. */
#define _POSIX_C_SOURCE 200809L

#include "digest.h"
#include "gp_test.h"
#include "proc.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static void test_worker_round_trip(void) {
  int64_t pid = -1;
  int fd = -1, ready = 0;
  char buf[64];
  long n;
  gp_proc_status st;
  gp_error err;
  CHECK(gp_proc_fork(&pid, &fd, &err) == GP_OK);
  if (pid == 0) {
    gp_proc_write(fd, "row 1\nrow 2\n", 12, &err);
    gp_proc_exit(3);
  }
  CHECK(pid > 0);
  CHECK_EQ_INT(gp_proc_poll(&fd, &ready, 1, 5000, &err), 1);
  CHECK_EQ_INT(ready, 1);
  n = 0;
  for (;;) {
    long got = gp_proc_read(fd, buf + n, sizeof buf - 1 - (size_t)n, &err);
    if (got <= 0)
      break;
    n += got;
  }
  buf[n] = '\0';
  CHECK(strcmp(buf, "row 1\nrow 2\n") == 0);
  close(fd);
  CHECK(gp_proc_wait(pid, 0, &st, &err) == GP_OK);
  CHECK_EQ_INT(st.exited, 1);
  CHECK_EQ_INT(st.code, 3);
  CHECK(gp_proc_wait(pid, 0, &st, &err) == GP_ERR); /* reaped already */
}

/* The shared counter: a worker and its parent draw 20,000 values each at
 * the same time; the worker sends back their sum.  The values 1..40,000 are
 * drawn once each: the two sums add up to theirs, and the counter stands at
 * 40,001 afterwards. */
static void test_shared_counter(void) {
  gp_proc_counter *c = NULL;
  int64_t pid = -1;
  int fd = -1, i;
  uint64_t mine = 0, theirs = 0, seen = 0;
  gp_proc_status st;
  gp_error err;
  CHECK(gp_proc_counter_new(&c, &err) == GP_OK);
  if (c == NULL)
    return;
  CHECK_EQ_INT(gp_proc_counter_next(c), 0);
  CHECK(gp_proc_fork(&pid, &fd, &err) == GP_OK);
  if (pid == 0) {
    uint64_t sum = 0;
    for (i = 0; i < 20000; i++)
      sum += gp_proc_counter_next(c);
    gp_proc_write(fd, (const char *)&sum, sizeof sum, &err);
    gp_proc_exit(0);
  }
  for (i = 0; i < 20000; i++) {
    uint64_t v = gp_proc_counter_next(c);
    mine += v;
    seen = v > seen ? v : seen;
  }
  CHECK_EQ_INT(gp_proc_read(fd, (char *)&theirs, sizeof theirs, &err), (long)sizeof theirs);
  close(fd);
  CHECK(gp_proc_wait(pid, 0, &st, &err) == GP_OK);
  /* 0 was drawn before the fork: the two took 1..40,000 between them */
  CHECK(mine + theirs == (uint64_t)40000 * 40001 / 2);
  CHECK_EQ_INT(gp_proc_counter_next(c), 40001);
  CHECK(seen <= 40000);
  gp_proc_counter_free(c);
}

static void test_kill_reports_signal(void) {
  int64_t pid = -1;
  int fd = -1;
  gp_proc_status st;
  gp_error err;
  CHECK(gp_proc_fork(&pid, &fd, &err) == GP_OK);
  if (pid == 0) {
    pause();
    gp_proc_exit(0);
  }
  CHECK(gp_proc_wait(pid, 1, &st, &err) == GP_OK);
  CHECK_EQ_INT(st.running, 1);
  CHECK(gp_proc_kill(pid, SIGTERM, &err) == GP_OK);
  CHECK(gp_proc_wait(pid, 0, &st, &err) == GP_OK);
  CHECK_EQ_INT(st.exited, 0);
  CHECK_EQ_INT(st.signal, SIGTERM);
  close(fd);
  CHECK(gp_proc_kill(0, SIGTERM, &err) == GP_ERR); /* never the process group */
}

/* Process ids are checked before the cast to pid_t: 2^32 - PGID would wrap
 * to -PGID (the caller's own process group), 2^32 - 1 to -1 (every process
 * the caller may signal), and 0 or a negative id to a group.  None of them
 * reaches kill() or waitpid(); the refusal says so. */
static void test_pids_checked_before_the_cast(void) {
  gp_proc_status st;
  gp_error err;
  int64_t group = (int64_t)getpgrp();
  int64_t bad[] = {0, -1, -group, ((int64_t)1 << 32) - group, ((int64_t)1 << 32) - 1,
                   (int64_t)1 << 32, INT64_MAX, INT64_MIN, (int64_t)INT32_MAX + 1};
  size_t i;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK(gp_proc_kill(bad[i], SIGTERM, &err) == GP_ERR);
    CHECK_STR_CONTAINS(err.msg, "refusing to signal process id");
    CHECK(gp_proc_wait(bad[i], 1, &st, &err) == GP_ERR);
    CHECK_STR_CONTAINS(err.msg, "refusing to wait for process id");
  }
}

static void test_sigint_flag(void) {
  gp_sigint_saved saved;
  gp_error err;
  int fd[2], ready = 0;
  CHECK(pipe(fd) == 0);
  CHECK(gp_sigint_catch(&saved, &err) == GP_OK);
  CHECK_EQ_INT(gp_sigint_pending(), 0);
  raise(SIGINT); /* would end the test without the handler */
  CHECK_EQ_INT(gp_sigint_pending(), SIGINT);
  raise(SIGTERM); /* caught too; the first signal is the one reported */
  CHECK_EQ_INT(gp_sigint_pending(), SIGINT);
  gp_sigint_restore(&saved);
  CHECK(gp_sigint_catch(&saved, &err) == GP_OK); /* catching again clears it */
  CHECK_EQ_INT(gp_sigint_pending(), 0);
  raise(SIGTERM); /* SIGTERM behaves as SIGINT does */
  CHECK_EQ_INT(gp_sigint_pending(), SIGTERM);
  gp_sigint_restore(&saved);
  CHECK_EQ_INT(gp_proc_poll(fd, &ready, 1, 10, &err), 0); /* timeout, nothing ready */
  close(fd[0]);
  close(fd[1]);
  CHECK(gp_proc_cpu_count() >= 1);
}

static void test_digest(void) {
  const char *text = "the quick brown fox jumps over the lazy dog";
  size_t len = strlen(text);
  gp_digest d;
  uint64_t whole = gp_digest_bytes(text, len);
  /* fed in pieces that straddle words: the same digest only when the
   * pieces are 8-byte multiples (the digest is word-wise by design) */
  gp_digest_start(&d);
  gp_digest_add(&d, text, 16);
  gp_digest_add(&d, text + 16, len - 16);
  CHECK(gp_digest_finish(&d) == whole);
  CHECK(gp_digest_bytes(text, len - 1) != whole);
  CHECK(gp_digest_bytes("", 0) != gp_digest_bytes("\0", 1)); /* length counts */
  /* one flipped high bit of the first word changes the digest */
  {
    char copy[64];
    memcpy(copy, text, len);
    copy[7] ^= (char)0x80;
    CHECK(gp_digest_bytes(copy, len) != whole);
  }
  CHECK(gp_digest_bytes(text, len) == whole);
}

/* The content checksum transcribed word by word from its description in
 * digest.h (the key is the same table, read through a stripe-0 checksum
 * of nothing: start's accumulators are key[i] ^ i). */
static uint64_t checksum_transcribed(const unsigned char *p, size_t len, const uint64_t key[31]) {
  uint64_t acc[8], h;
  size_t stripes = (len + 63) / 64, s;
  unsigned stripe = 0;
  int i;
  for (i = 0; i < 8; i++)
    acc[i] = key[i] ^ (uint64_t)i;
  for (s = 0; s < stripes; s++) {
    unsigned char block[64] = {0};
    memcpy(block, p + 64 * s, len - 64 * s < 64 ? len - 64 * s : 64);
    for (i = 0; i < 8; i++) {
      uint64_t d, x;
      memcpy(&d, block + 8 * i, 8);
      x = d ^ key[stripe + (unsigned)i];
      acc[i ^ 1] += d;
      acc[i] += (x & 0xffffffffu) * (x >> 32);
    }
    if (++stripe == 16) {
      stripe = 0;
      for (i = 0; i < 8; i++)
        acc[i] = (acc[i] ^ (acc[i] >> 47) ^ key[23 + i]) * 0x9e3779b1u;
    }
  }
  h = 0xcbf29ce484222325ull;
  h = (((h << 29) | (h >> 35)) ^ len) * 0x100000001b3ull;
  for (i = 0; i < 8; i++)
    h = (((h << 29) | (h >> 35)) ^ (acc[i] ^ key[23 + i])) * 0x100000001b3ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

static void test_checksum(void) {
  static const uint64_t key[31] = {
    0x2d90988686bb489bull, 0x8d471bfd6ac69e6dull, 0xe3af759b890f3f09ull,
    0x54083b8b9fbed764ull, 0xfcf6963601da93eeull, 0x077b3f9695be1bdbull,
    0xe8864e9878e7620bull, 0x3fbb4aef220daa10ull, 0xfa963776da60b45cull,
    0xbcacac69d6677a2eull, 0x6fadb5a4e92c31b8ull, 0x629dc329e6821f7bull,
    0xb5cf7ad28e325c0aull, 0x8bf86c64b84ec3b9ull, 0x78c754f4dd2a0605ull,
    0x0716f973691eab42ull, 0x0db7ee99ed0d84fbull, 0x8a09af19b918dea4ull,
    0x0af39dc76ed0dc6aull, 0x2a57c314fd9b36c2ull, 0x0d2ab0dc65ffd083ull,
    0xc2c6d45888a0c002ull, 0x479c8ce51f757105ull, 0x754fa26972ceb630ull,
    0xa5aeab2b646971a7ull, 0xfd4c31e95aa717e0ull, 0x008df023c43e8b2bull,
    0x06d8356c71c34137ull, 0x0203d7996eee5e3full, 0x2249398484d37b79ull,
    0xe06c2e6155d9c168ull,
  };
  enum { N = 5000 };
  static unsigned char buf[N], copy[N];
  uint64_t x = 12345, whole;
  size_t len, i;
  int form;
  gp_checksum c;
  for (i = 0; i < N; i++) { /* seeded bytes */
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    buf[i] = (unsigned char)(x >> 56);
  }
  /* every form (plain C, SSE2, AVX2 where the processor has it; -1: the one
   * used) is the transcription: every length
   * from 0 to 200 and lengths across the 1 KiB blocks */
  for (form = -1; form < gp_checksum_forms(); form++) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (form == 2 && !__builtin_cpu_supports("avx2"))
      continue;
#endif
    for (len = 0; len <= 200; len++)
      CHECK(gp_checksum_bytes_form(buf, len, form) == checksum_transcribed(buf, len, key));
    for (len = 1000; len <= N; len += 333)
      CHECK(gp_checksum_bytes_form(buf, len, form) == checksum_transcribed(buf, len, key));
  }
  whole = gp_checksum_bytes(buf, N);
  /* pieces of whole stripes give the whole's checksum */
  gp_checksum_start(&c);
  gp_checksum_add(&c, buf, 1024 + 64);
  gp_checksum_add(&c, buf + 1088, 640);
  gp_checksum_add(&c, buf + 1728, N - 1728);
  CHECK(gp_checksum_finish(&c) == whole);
  /* every single flipped bit of the first 2,100 bytes, truncation, a zero
   * appended, and two stripes swapped each change it */
  memcpy(copy, buf, N);
  for (i = 0; i < 2100 * 8; i++) {
    copy[i / 8] ^= (unsigned char)(1u << (i % 8));
    CHECK(gp_checksum_bytes(copy, N) != whole);
    copy[i / 8] ^= (unsigned char)(1u << (i % 8));
  }
  CHECK(gp_checksum_bytes(buf, N - 1) != whole);
  CHECK(gp_checksum_bytes(buf, 100) != gp_checksum_bytes(buf, 101) || buf[100] != 0);
  {
    static const unsigned char zeros[65] = {0};
    CHECK(gp_checksum_bytes(zeros, 64) != gp_checksum_bytes(zeros, 65));
    CHECK(gp_checksum_bytes(zeros, 0) != gp_checksum_bytes(zeros, 1));
  }
  memcpy(copy, buf + 64, 64);
  memcpy(copy + 64, buf, 64);
  memcpy(copy + 128, buf + 128, N - 128);
  CHECK(gp_checksum_bytes(copy, N) != whole);
  memcpy(copy, buf, N); /* stripes 16 blocks apart: same key, other block */
  memcpy(copy + 1024, buf + 2048, 64);
  memcpy(copy + 2048, buf + 1024, 64);
  CHECK(gp_checksum_bytes(copy, N) != whole);
}

int main(void) {
  RUN(test_worker_round_trip);
  RUN(test_shared_counter);
  RUN(test_kill_reports_signal);
  RUN(test_pids_checked_before_the_cast);
  RUN(test_sigint_flag);
  RUN(test_digest);
  RUN(test_checksum);
  return gp_test_finish();
}
