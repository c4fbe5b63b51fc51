#pragma once
// Tuned CUDA diffusion (several steps per launch through shared-memory tiles), selected by
// KERNWERK_ENABLE_CUDA_TUNED: kernwerk/gpu/diffuse_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include "kernwerk/gpu/diffuse_kernels.hpp"
#include "kernwerk/cuda/runtime.hpp"
#include "kernwerk/impl/grids/diffuse_dispatch.hpp"

namespace kernwerk::impl {
template <>
struct diffuse_tuned<Kokkos::Cuda> : gpu_impl::gpu_diffuse<cuda_impl::cuda_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
