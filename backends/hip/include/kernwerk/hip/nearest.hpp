#pragma once
// Tuned HIP nearest neighbours (haversine, k = 1 to 32), selected by KERNWERK_ENABLE_HIP_TUNED: the
// GPU kernels of kernwerk/gpu/nearest_kernels.hpp on HIP's runtime, 64-wide wavefronts (MI100).
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include <string>

#include "kernwerk/hip/runtime.hpp"
#include "kernwerk/gpu/nearest_kernels.hpp"

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
