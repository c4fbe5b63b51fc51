#pragma once
// What a GPU gives impl::default_memory_budget and impl::transfer_queue
// (kernwerk/impl/staging/traits.hpp), on the runtime (CUDA, HIP) described by Runtime.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <mutex>

namespace kernwerk::gpu_impl {

// Without options.memory_budget a call may use most of what the device has free now.
template <class Runtime>
struct device_memory_budget {
  static std::size_t bytes() { return Runtime::free_memory() / 10 * 8; }
};

// A second stream of the device for the chunk pipeline's copies (impl::transfer_queue),
// created on first use and kept until Kokkos is finalised (an instance costs allocations).
template <class Runtime>
struct gpu_transfer_queue {
  using execution_space = typename Runtime::execution_space;
  explicit gpu_transfer_queue(const execution_space&) : space(shared()) {}
  execution_space space;

 private:
  static execution_space shared() {
    static std::mutex mutex;
    static typename Runtime::stream_type stream = nullptr;
    static execution_space* instance = nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    if (!instance) {
      stream = Runtime::create_stream();
      instance = new execution_space(stream);
      Kokkos::push_finalize_hook([] {
        std::lock_guard<std::mutex> lock(mutex);
        instance->fence();
        delete instance;  // the instance before its stream
        instance = nullptr;
        Runtime::destroy_stream(stream);
      });
    }
    return *instance;
  }
};

}  // namespace kernwerk::gpu_impl
