#pragma once
// A per-memory-space scratch buffer that grows and is kept between calls: device allocations
// (cudaMalloc, cudaFree) cost more than small kernels, so hot paths borrow this instead.
// A borrower holds the lock until its kernels have finished (it fences before returning).
// Purpose keeps buffers of one memory space apart where one borrower calls another (the chunk
// pipeline's page-locked staging and the methods it runs).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <string>

#include "kernwerk/error.hpp"

namespace kernwerk::impl {

// Hands out aligned pieces (256 bytes) of a region the caller provides: a workspace's buffer,
// or memory an object owns.
class carver {
 public:
  carver(void* data, std::size_t bytes) : data_(static_cast<char*>(data)), capacity_(bytes) {}

  template <class T>
  T* take(std::size_t count) {
    T* result = reinterpret_cast<T*>(data_ + used_);
    used_ += bytes_for<T>(count);
    if (used_ > capacity_) throw error("kernwerk: internal error: workspace too small");
    return result;
  }
  template <class T>
  static std::size_t bytes_for(std::size_t count) {
    return (count * sizeof(T) + 255) / 256 * 256;
  }

 private:
  char* data_;
  std::size_t used_ = 0;
  std::size_t capacity_;
};

template <class MemorySpace, class Purpose = void>
class workspace {
 public:
  // Locks the buffer for the caller's lifetime and returns at least `bytes` of it.
  explicit workspace(std::size_t bytes) : lock_(state().mutex), pieces_(acquire(bytes), bytes) {}

  // Carves the next `count` objects of type T, aligned to 256 bytes.
  template <class T>
  T* take(std::size_t count) {
    return pieces_.template take<T>(count);
  }
  // The bytes `take` will need for `count` objects of type T.
  template <class T>
  static std::size_t bytes_for(std::size_t count) {
    return carver::bytes_for<T>(count);
  }

 private:
  struct shared_state {
    std::mutex mutex;
    Kokkos::View<char*, MemorySpace> buffer;
    bool hooked = false;
  };
  static shared_state& state() {
    static shared_state instance;
    return instance;
  }
  // The buffer, grown to `bytes` where it is smaller (the caller holds the lock).
  static char* acquire(std::size_t bytes) {
    auto& buffer = state().buffer;
    if (buffer.extent(0) < bytes) {
      buffer = Kokkos::View<char*, MemorySpace>();  // free the old one first
      buffer = Kokkos::View<char*, MemorySpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::workspace"), bytes);
      if (!state().hooked) {
        Kokkos::push_finalize_hook([] { state().buffer = Kokkos::View<char*, MemorySpace>(); });
        state().hooked = true;
      }
    }
    return buffer.data();
  }

  std::lock_guard<std::mutex> lock_;
  carver pieces_;
};

// The memory of kept objects (kernwerk::spatial_index), recycled: the last one given back is
// kept for the next that fits it, so that an index rebuilt every time step does not allocate
// every time (a device allocation of a few MiB costs as much as a small index build:
// perf/results/issue46-one-block-recycle-cuda-h200.json). At most one buffer is kept (the
// larger, where two are given back) and it is freed when Kokkos finalizes. `recycle` off:
// every take allocates.
struct recycle_policy {
  static inline bool recycle = true;
  static constexpr std::size_t most_over = 4;  // a kept buffer serves needs of a quarter of it up
};

template <class MemorySpace>
class recycled_buffer {
 public:
  using buffer = Kokkos::View<char*, MemorySpace>;
  // A buffer of at least `bytes`: the kept one where it fits, else a new one named `label`.
  static buffer take(std::size_t bytes, const std::string& label) {
    {
      std::lock_guard<std::mutex> lock(state().mutex);
      buffer& kept = state().kept;
      if (recycle_policy::recycle && kept.extent(0) >= bytes &&
          kept.extent(0) <= recycle_policy::most_over * std::max<std::size_t>(bytes, 1)) {
        buffer taken = kept;
        kept = buffer();
        return taken;
      }
    }
    return buffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), bytes);
  }
  // Gives `memory` back where no one else holds it (its kernels have finished) and Kokkos still
  // runs (after its finalization nothing would free a kept buffer).
  static void give_back(buffer& memory) {
    if (!recycle_policy::recycle || memory.use_count() != 1 || !Kokkos::is_initialized()) return;
    std::lock_guard<std::mutex> lock(state().mutex);
    buffer& kept = state().kept;
    if (kept.extent(0) >= memory.extent(0)) return;
    kept = memory;  // the smaller one is freed
    memory = buffer();
    if (!state().hooked) {
      Kokkos::push_finalize_hook(release);
      state().hooked = true;
    }
  }
  // Frees the kept buffer.
  static void release() {
    std::lock_guard<std::mutex> lock(state().mutex);
    state().kept = buffer();
  }

 private:
  struct shared_state {
    std::mutex mutex;
    buffer kept;
    bool hooked = false;
  };
  static shared_state& state() {
    static shared_state instance;
    return instance;
  }
};

}  // namespace kernwerk::impl
