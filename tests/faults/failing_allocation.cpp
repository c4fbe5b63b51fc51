// Preloaded into tests/allocation_faults_test.cpp's program: an allocator whose allocations
// above a size fail, as the memory of a host backend runs out. A test arms it with
// kernwerk_fail_allocations_above(bytes) (found with dlsym) around the call it faults, and reads
// how many it failed with kernwerk_failed_allocations(). Unarmed, every call is glibc's own.
// malloc and its kin return NULL; operator new throws std::bad_alloc (its nothrow forms return
// NULL). The memory comes from glibc's allocator either way, so free and operator delete need
// no replacing.
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <new>

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
}

namespace {

std::atomic<std::size_t> limit{SIZE_MAX};
std::atomic<long> failed{0};

bool refused(std::size_t bytes) {
  if (bytes <= limit.load(std::memory_order_relaxed)) return false;
  failed.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void* aligned(std::size_t alignment, std::size_t bytes) {
  return refused(bytes) ? nullptr : __libc_memalign(alignment, bytes);
}

}  // namespace

extern "C" {

void kernwerk_fail_allocations_above(std::size_t bytes) { limit.store(bytes); }
long kernwerk_failed_allocations() { return failed.load(); }

void* malloc(std::size_t bytes) { return refused(bytes) ? nullptr : __libc_malloc(bytes); }
void* calloc(std::size_t count, std::size_t size) {
  if (size && count > SIZE_MAX / size) return nullptr;
  return refused(count * size) ? nullptr : __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t bytes) {
  return refused(bytes) ? nullptr : __libc_realloc(pointer, bytes);
}
void* memalign(std::size_t alignment, std::size_t bytes) { return aligned(alignment, bytes); }
void* aligned_alloc(std::size_t alignment, std::size_t bytes) { return aligned(alignment, bytes); }
int posix_memalign(void** pointer, std::size_t alignment, std::size_t bytes) {
  void* memory = aligned(alignment, bytes);
  if (!memory) return ENOMEM;
  *pointer = memory;
  return 0;
}

}  // extern "C"

void* operator new(std::size_t bytes) {
  if (void* memory = malloc(bytes ? bytes : 1)) return memory;
  throw std::bad_alloc();
}
void* operator new[](std::size_t bytes) { return operator new(bytes); }
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept { return malloc(bytes ? bytes : 1); }
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept { return malloc(bytes ? bytes : 1); }
void* operator new(std::size_t bytes, std::align_val_t alignment) {
  if (void* memory = aligned(std::size_t(alignment), bytes ? bytes : 1)) return memory;
  throw std::bad_alloc();
}
void* operator new[](std::size_t bytes, std::align_val_t alignment) {
  return operator new(bytes, alignment);
}
void* operator new(std::size_t bytes, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return aligned(std::size_t(alignment), bytes ? bytes : 1);
}
void* operator new[](std::size_t bytes, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return aligned(std::size_t(alignment), bytes ? bytes : 1);
}
