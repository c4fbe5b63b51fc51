#pragma once
// CUDA's memory budget, copy queue and page-locked staging memory for calls on host data
// (kernwerk/impl/staging/traits.hpp), selected by KERNWERK_ENABLE_CUDA_TUNED.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include "kernwerk/cuda/runtime.hpp"
#include "kernwerk/gpu/staging.hpp"
#include "kernwerk/impl/staging/traits.hpp"

namespace kernwerk::impl {
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
