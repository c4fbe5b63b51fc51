#pragma once
// Tuned CUDA nearest neighbour (haversine, k = 1), selected by KERNWERK_ENABLE_CUDA_TUNED: the
// GPU kernels of kernwerk/gpu/nearest_kernels.hpp on CUDA's runtime, 32-wide warps.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include <cuda_runtime.h>

#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/gpu/nearest_kernels.hpp"

namespace kernwerk::cuda_impl {

struct cuda_runtime {
  using execution_space = Kokkos::Cuda;
  static constexpr int warp_size = 32;

  template <class T>
  __device__ static T shuffle_down(T value, int offset) {
    return __shfl_down_sync(0xffffffffu, value, offset);
  }
  static void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
      throw error(std::string("kernwerk::nearest (cuda tuned): ") + what + ": " +
                  cudaGetErrorString(status));
  }
  static cudaStream_t stream(const Kokkos::Cuda& space) { return space.cuda_stream(); }
  static void clear_async(void* pointer, std::size_t bytes, cudaStream_t stream) {
    check(cudaMemsetAsync(pointer, 0, bytes, stream), "cudaMemsetAsync");
  }
  static void check_launch(const char* kernel) {
    check(cudaGetLastError(), (std::string(kernel) + " kernel launch").c_str());
  }
  using stream_type = cudaStream_t;
  // Non-blocking: no implicit synchronisation with the default stream Kokkos computes on.
  static cudaStream_t create_stream() {
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    return stream;
  }
  static void destroy_stream(cudaStream_t stream) { cudaStreamDestroy(stream); }
  static std::size_t free_memory() {
    std::size_t free = 0, total = 0;
    check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    return free;
  }
};

}  // namespace kernwerk::cuda_impl

namespace kernwerk::impl {
template <>
struct nearest_tuned<Kokkos::Cuda> : gpu_impl::nearest_gpu_tuned<cuda_impl::cuda_runtime> {};
template <>
struct default_memory_budget<Kokkos::Cuda>
    : gpu_impl::device_memory_budget<cuda_impl::cuda_runtime> {};
template <>
struct transfer_queue<Kokkos::Cuda> : gpu_impl::gpu_transfer_queue<cuda_impl::cuda_runtime> {
  using gpu_impl::gpu_transfer_queue<cuda_impl::cuda_runtime>::gpu_transfer_queue;
};
template <>
struct staging_memory<Kokkos::Cuda> {
  using type = Kokkos::CudaHostPinnedSpace;
};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
