/* Preloaded into tests/allocation_faults_test.cpp's program: an allocator whose allocations
 * above a size fail, as the memory of a host backend runs out. A test arms it with
 * kernwerk_fail_allocations_above(bytes) (found with dlsym) around the call it faults, and reads
 * how many it failed with kernwerk_failed_allocations(). Unarmed, every call is glibc's own.
 * malloc and its kin return NULL; C++'s operator new, which calls them, then throws
 * std::bad_alloc. The memory comes from glibc's allocator either way, so free needs no
 * replacing. (C, not C++: a GPU build compiles C++ sources with its device compiler.) */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);

static size_t limit = SIZE_MAX;
static long failed;

static int refused(size_t bytes) {
  if (bytes <= __atomic_load_n(&limit, __ATOMIC_RELAXED)) return 0;
  __atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
  return 1;
}

void kernwerk_fail_allocations_above(size_t bytes) { __atomic_store_n(&limit, bytes, __ATOMIC_SEQ_CST); }
long kernwerk_failed_allocations(void) { return __atomic_load_n(&failed, __ATOMIC_SEQ_CST); }

void* malloc(size_t bytes) { return refused(bytes) ? NULL : __libc_malloc(bytes); }
void* calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  return refused(count * size) ? NULL : __libc_calloc(count, size);
}
void* realloc(void* pointer, size_t bytes) { return refused(bytes) ? NULL : __libc_realloc(pointer, bytes); }
void* memalign(size_t alignment, size_t bytes) {
  return refused(bytes) ? NULL : __libc_memalign(alignment, bytes);
}
void* aligned_alloc(size_t alignment, size_t bytes) { return memalign(alignment, bytes); }
int posix_memalign(void** pointer, size_t alignment, size_t bytes) {
  void* memory = memalign(alignment, bytes);
  if (!memory) return ENOMEM;
  *pointer = memory;
  return 0;
}
