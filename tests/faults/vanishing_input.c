/* Preloaded into the command-line tool by tests/cli_faults_test.cpp: the file named by
 * $KERNWERK_VANISH (as /proc/self/fd shows its path) loses its contents right after the first
 * read from it returns, as when a file is truncated, or a network file system drops it, while
 * the tool reads it. Later reads find its end. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int vanished;

ssize_t read(int descriptor, void* buffer, size_t count) {
  static ssize_t (*real_read)(int, void*, size_t);
  if (!real_read) real_read = (ssize_t(*)(int, void*, size_t))dlsym(RTLD_NEXT, "read");
  const ssize_t got = real_read(descriptor, buffer, count);
  const char* target = getenv("KERNWERK_VANISH");
  if (!vanished && target && got > 0) {
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", descriptor);
    const ssize_t length = readlink(link, path, sizeof path - 1);
    if (length > 0) {
      path[length] = '\0';
      if (strcmp(path, target) == 0) vanished = truncate(target, 0) == 0;
    }
  }
  return got;
}
