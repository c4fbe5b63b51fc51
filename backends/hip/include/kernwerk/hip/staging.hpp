#pragma once
// HIP's memory budget, copy queue and page-locked staging memory for calls on host data
// (kernwerk/impl/staging/traits.hpp), selected by KERNWERK_ENABLE_HIP_TUNED.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include "kernwerk/hip/runtime.hpp"
#include "kernwerk/gpu/staging.hpp"
#include "kernwerk/impl/staging/traits.hpp"

namespace kernwerk::impl {
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
