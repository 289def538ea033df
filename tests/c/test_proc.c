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

int main(void) {
  RUN(test_worker_round_trip);
  RUN(test_shared_counter);
  RUN(test_kill_reports_signal);
  RUN(test_pids_checked_before_the_cast);
  RUN(test_sigint_flag);
  RUN(test_digest);
  return gp_test_finish();
}
