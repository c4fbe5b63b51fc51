#pragma once
// HIP's runtime as the GPU kernels of backends/gpu see it: 64-wide wavefronts (MI100),
// shuffles, streams, errors.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include <hip/hip_runtime.h>

#include <cstdint>
#include <string>

#include "kernwerk/error.hpp"

namespace kernwerk::hip_impl {

struct hip_runtime {
  using execution_space = Kokkos::Experimental::HIP;
  static constexpr int warp_size = 64;

  template <class T>
  __device__ static T shuffle_down(T value, int offset) {
    return __shfl_down(value, offset, warp_size);
  }
  template <class T>
  __device__ static T shuffle_xor(T value, int mask) {
    return __shfl_xor(value, mask, warp_size);
  }
  template <class T>
  __device__ static T shuffle(T value, int lane) {
    return __shfl(value, lane, warp_size);
  }
  // One bit per lane of the wavefront, set where the predicate holds.
  using lane_mask = unsigned long long;
  __device__ static lane_mask ballot(bool predicate) { return __ballot(predicate); }
  __device__ static int lowest_lane(lane_mask mask) { return __ffsll(mask) - 1; }
  __device__ static int lane_count(lane_mask mask) { return __popcll(mask); }
  // A wavefront's lanes run in lockstep: its shared-memory writes are already in order.
  __device__ static void sync_lanes() {}
  static void check(hipError_t status, const char* what) {
    if (status != hipSuccess)
      throw error(std::string("kernwerk (hip): ") + what + ": " +
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
  // (called where nothing can be done about a failure: its status is dropped)
  static void destroy_stream(hipStream_t stream) { (void)hipStreamDestroy(stream); }
  // rows of `width` elements of `size` bytes, device to device, strides in elements.
  static void copy_2d_async(void* target, std::int64_t target_stride, const void* source,
                            std::int64_t source_stride, std::int64_t width, std::int64_t rows,
                            std::size_t size, hipStream_t stream) {
    check(hipMemcpy2DAsync(target, std::size_t(target_stride) * size, source,
                            std::size_t(source_stride) * size, std::size_t(width) * size,
                            std::size_t(rows), hipMemcpyDeviceToDevice, stream),
          "hipMemcpy2DAsync");
  }
  static int multiprocessors() {
    static const int count = [] {
      int device = 0, value = 0;
      check(hipGetDevice(&device), "hipGetDevice");
      check(hipDeviceGetAttribute(&value, hipDeviceAttributeMultiprocessorCount, device),
            "hipDeviceGetAttribute");
      return value;
    }();
    return count;
  }
  static std::size_t free_memory() {
    std::size_t free = 0, total = 0;
    check(hipMemGetInfo(&free, &total), "hipMemGetInfo");
    return free;
  }
};

}  // namespace kernwerk::hip_impl

#endif  // KOKKOS_ENABLE_HIP
