#pragma once
// CUDA's runtime as the GPU kernels of backends/gpu see it: 32-wide warps, shuffles,
// streams, errors.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kernwerk/error.hpp"

namespace kernwerk::cuda_impl {

struct cuda_runtime {
  using execution_space = Kokkos::Cuda;
  static constexpr int warp_size = 32;

  template <class T>
  __device__ static T shuffle_down(T value, int offset) {
    return __shfl_down_sync(0xffffffffu, value, offset);
  }
  template <class T>
  __device__ static T shuffle_xor(T value, int mask) {
    return __shfl_xor_sync(0xffffffffu, value, mask);
  }
  template <class T>
  __device__ static T shuffle(T value, int lane) {
    return __shfl_sync(0xffffffffu, value, lane);
  }
  // One bit per lane of the warp, set where the predicate holds.
  using lane_mask = unsigned;
  __device__ static lane_mask ballot(bool predicate) {
    return __ballot_sync(0xffffffffu, predicate);
  }
  __device__ static int lowest_lane(lane_mask mask) { return __ffs(mask) - 1; }
  __device__ static int lane_count(lane_mask mask) { return __popc(mask); }
  // Orders the warp's shared-memory writes before its later ones (independent thread scheduling).
  __device__ static void sync_lanes() { __syncwarp(); }
  static void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
      throw error(std::string("kernwerk (cuda): ") + what + ": " +
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
  // rows of `width` elements of `size` bytes, device to device, strides in elements.
  static void copy_2d_async(void* target, std::int64_t target_stride, const void* source,
                            std::int64_t source_stride, std::int64_t width, std::int64_t rows,
                            std::size_t size, cudaStream_t stream) {
    check(cudaMemcpy2DAsync(target, std::size_t(target_stride) * size, source,
                            std::size_t(source_stride) * size, std::size_t(width) * size,
                            std::size_t(rows), cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpy2DAsync");
  }
  static int multiprocessors() {
    static const int count = [] {
      int device = 0, value = 0;
      check(cudaGetDevice(&device), "cudaGetDevice");
      check(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device),
            "cudaDeviceGetAttribute");
      return value;
    }();
    return count;
  }
  static std::size_t free_memory() {
    std::size_t free = 0, total = 0;
    check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    return free;
  }
};

// Kokkos' CUDA backend sets the device's cache preference to shared memory when it starts
// (cudaDeviceSetCacheConfig(cudaFuncCachePreferShared)). NVIDIA's libraries tune their kernels
// for CUDA's default, and run slower under Kokkos' preference (cuSOLVER's geqrf: commit
// f7490b0, perf/results/dense-cuda-h100.json). A vendor call (cuBLAS, cuSOLVER,
// cuFFT) is made under this guard, which enqueues its kernels with the default preference and
// gives Kokkos' back afterwards (the preference is read at each launch).
class vendor_cache_preference {
 public:
  vendor_cache_preference() {
    if (cudaDeviceGetCacheConfig(&saved_) == cudaSuccess && saved_ != cudaFuncCachePreferNone)
      changed_ = cudaDeviceSetCacheConfig(cudaFuncCachePreferNone) == cudaSuccess;
  }
  ~vendor_cache_preference() {
    if (changed_) cudaDeviceSetCacheConfig(saved_);
  }
  vendor_cache_preference(const vendor_cache_preference&) = delete;
  vendor_cache_preference& operator=(const vendor_cache_preference&) = delete;

 private:
  cudaFuncCache saved_ = cudaFuncCachePreferNone;
  bool changed_ = false;
};

}  // namespace kernwerk::cuda_impl

#endif  // KOKKOS_ENABLE_CUDA
