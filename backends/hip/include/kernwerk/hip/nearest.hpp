#pragma once
// Tuned HIP nearest neighbour (haversine, k = 1), selected by KERNWERK_ENABLE_HIP_TUNED: the
// GPU kernels of kernwerk/gpu/nearest_kernels.hpp on HIP's runtime, 64-wide wavefronts (MI100).
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include <hip/hip_runtime.h>

#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/gpu/nearest_kernels.hpp"

namespace kernwerk::hip_impl {

struct hip_runtime {
  using execution_space = Kokkos::Experimental::HIP;
  static constexpr int warp_size = 64;

  template <class T>
  __device__ static T shuffle_down(T value, int offset) {
    return __shfl_down(value, offset, warp_size);
  }
  static void check(hipError_t status, const char* what) {
    if (status != hipSuccess)
      throw error(std::string("kernwerk::nearest (hip tuned): ") + what + ": " +
                  hipGetErrorString(status));
  }
  static hipStream_t stream(const execution_space& space) { return space.hip_stream(); }
  static void clear_async(void* pointer, std::size_t bytes, hipStream_t stream) {
    check(hipMemsetAsync(pointer, 0, bytes, stream), "hipMemsetAsync");
  }
  static void check_launch(const char* kernel) {
    check(hipGetLastError(), (std::string(kernel) + " kernel launch").c_str());
  }
  using stream_type = hipStream_t;
  // Non-blocking: no implicit synchronisation with the default stream Kokkos computes on.
  static hipStream_t create_stream() {
    hipStream_t stream = nullptr;
    check(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), "hipStreamCreateWithFlags");
    return stream;
  }
  static void destroy_stream(hipStream_t stream) { hipStreamDestroy(stream); }
  static std::size_t free_memory() {
    std::size_t free = 0, total = 0;
    check(hipMemGetInfo(&free, &total), "hipMemGetInfo");
    return free;
  }
};

}  // namespace kernwerk::hip_impl

namespace kernwerk::impl {
template <>
struct nearest_tuned<Kokkos::Experimental::HIP>
    : gpu_impl::nearest_gpu_tuned<hip_impl::hip_runtime> {};
template <>
struct default_memory_budget<Kokkos::Experimental::HIP>
    : gpu_impl::device_memory_budget<hip_impl::hip_runtime> {};
template <>
struct transfer_queue<Kokkos::Experimental::HIP> : gpu_impl::gpu_transfer_queue<hip_impl::hip_runtime> {
  using gpu_impl::gpu_transfer_queue<hip_impl::hip_runtime>::gpu_transfer_queue;
};
template <>
struct staging_memory<Kokkos::Experimental::HIP> {
#if KOKKOS_VERSION >= 40000
  using type = Kokkos::HIPHostPinnedSpace;
#else
  using type = Kokkos::Experimental::HIPHostPinnedSpace;
#endif
};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_HIP
