#pragma once
// Tuned CUDA elementwise maps for contiguous Views, selected by KERNWERK_ENABLE_CUDA_TUNED:
// kernwerk/gpu/transform_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include "kernwerk/gpu/transform_kernels.hpp"
#include "kernwerk/impl/maps/transform.hpp"
#include "kernwerk/cuda/runtime.hpp"

namespace kernwerk::impl {
template <>
struct transform_tuned<Kokkos::Cuda> : gpu_impl::gpu_transform<cuda_impl::cuda_runtime> {
  static constexpr bool available = true;
};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
