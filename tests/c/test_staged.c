/* Unit tests of staged.c: every file gpush writes goes through it.  A full
 * disk is simulated with a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored)
 * in a forked child: the kernel then fails the write past the limit with
 * EFBIG where a full disk fails it with ENOSPC, so the real failure path
 * runs, with no file system to mount. */
#define _XOPEN_SOURCE 700

#include "gp_test.h"
#include "staged.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/gpush-staged-XXXXXX";

static void path_of(char *out, size_t cap, const char *name) { snprintf(out, cap, "%s/%s", dir, name); }

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (f != NULL) {
    fputs(text, f);
    fclose(f);
  }
}

/* The whole content of a small file ("" when missing). */
static const char *content(const char *path) {
  static char buf[4096];
  FILE *f = fopen(path, "rb");
  size_t n = 0;
  if (f != NULL) {
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
  }
  buf[n] = '\0';
  return buf;
}

/* Entries of the test folder whose name has ".tmp-" (temporary files). */
static int temporaries(void) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d != NULL && (e = readdir(d)) != NULL)
    n += strstr(e->d_name, ".tmp-") != NULL;
  if (d != NULL)
    closedir(d);
  return n;
}

static void test_writes_and_replaces(void) {
  char target[256];
  gp_alloc a = gp_alloc_default();
  gp_error err;
  struct stat st;
  path_of(target, sizeof target, "out.txt");
  CHECK(gp_staged_write(&a, target, "first\n", 6, &err) == GP_OK);
  CHECK(strcmp(content(target), "first\n") == 0);
  chmod(target, 0640);
  CHECK(gp_staged_write(&a, target, "second\n", 7, &err) == GP_OK);
  CHECK(strcmp(content(target), "second\n") == 0);
  CHECK(stat(target, &st) == 0 && (st.st_mode & 0777) == 0640); /* the replaced file's mode is kept */
  CHECK_EQ_INT(temporaries(), 0);
}

/* In a child limited to 1 KiB per file: a 4 KiB write fails, names the
 * target and the reason, and leaves the previous file and no temporary. */
static void test_full_disk_leaves_the_old_file(void) {
  char target[256];
  pid_t child;
  int status = 0;
  path_of(target, sizeof target, "kept.txt");
  put(target, "the previous results\n");
  child = fork();
  if (child == 0) {
    struct rlimit limit = {1024, 1024};
    static char big[4096];
    gp_alloc a = gp_alloc_default();
    gp_error err;
    int ok;
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &limit);
    memset(big, 'x', sizeof big);
    ok = gp_staged_write(&a, target, big, sizeof big, &err) == GP_ERR &&
         strstr(err.msg, target) == err.msg && strstr(err.msg, ": cannot write: File too large") != NULL &&
         strstr(err.msg, "(the file is unchanged)") != NULL;
    _exit(ok ? 0 : 1);
  }
  CHECK(child > 0 && waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(strcmp(content(target), "the previous results\n") == 0);
  CHECK_EQ_INT(temporaries(), 0);
}

/* The same limit hit by output still buffered when the file is closed: the
 * failure shows only at the flush, which commit checks (before, a close
 * that failed left an empty file and a success). */
static void test_failure_at_close_is_caught(void) {
  char target[256];
  pid_t child;
  int status = 0;
  path_of(target, sizeof target, "small.md");
  put(target, "# the previous summary\n");
  child = fork();
  if (child == 0) {
    struct rlimit limit = {0, 0};
    gp_alloc a = gp_alloc_default();
    gp_error err;
    gp_staged s;
    int ok;
    signal(SIGXFSZ, SIG_IGN);
    if (gp_staged_open(&s, &a, target, &err) != GP_OK)
      _exit(2);
    setrlimit(RLIMIT_FSIZE, &limit); /* no byte fits once the file exists */
    fputs("# a short summary, buffered until the close\n", s.f);
    ok = gp_staged_commit(&s, &err) == GP_ERR && strstr(err.msg, "File too large") != NULL;
    _exit(ok ? 0 : 1);
  }
  CHECK(child > 0 && waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(strcmp(content(target), "# the previous summary\n") == 0);
  CHECK_EQ_INT(temporaries(), 0);
}

static void test_links_devices_and_folders(void) {
  char target[256], link_path[256];
  gp_alloc a = gp_alloc_default();
  gp_error err;
  struct stat st;
  /* a symbolic link is followed: its file is replaced, the link stays */
  path_of(target, sizeof target, "real.txt");
  path_of(link_path, sizeof link_path, "link.txt");
  put(target, "old\n");
  CHECK(symlink("real.txt", link_path) == 0);
  CHECK(gp_staged_write(&a, link_path, "new\n", 4, &err) == GP_OK);
  CHECK(lstat(link_path, &st) == 0 && S_ISLNK(st.st_mode));
  CHECK(strcmp(content(target), "new\n") == 0);
  /* a device is written in place, never replaced by a rename */
  CHECK(gp_staged_write(&a, "/dev/null", "x", 1, &err) == GP_OK);
  CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
  /* a folder, and a folder that does not exist */
  CHECK(gp_staged_write(&a, dir, "x", 1, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, ": cannot write: it is a folder");
  path_of(target, sizeof target, "missing/out.txt");
  CHECK(gp_staged_write(&a, target, "x", 1, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "missing/out.txt: cannot write: No such file or directory");
  /* a full device: /dev/full refuses every write */
  CHECK(gp_staged_write(&a, "/dev/full", "x", 1, &err) == GP_ERR);
  CHECK_STR_CONTAINS(err.msg, "/dev/full: cannot write: No space left on device");
  unlink(link_path);
  CHECK_EQ_INT(temporaries(), 0);
}

int main(void) {
  char command[128];
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  RUN(test_writes_and_replaces);
  RUN(test_full_disk_leaves_the_old_file);
  RUN(test_failure_at_close_is_caught);
  RUN(test_links_devices_and_folders);
  snprintf(command, sizeof command, "rm -rf %s", dir);
  if (system(command) != 0)
    fprintf(stderr, "could not remove %s\n", dir);
  return gp_test_finish();
}
