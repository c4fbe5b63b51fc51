#pragma once
// Tuned CUDA midpoint sum of integrate2d, selected by KERNWERK_ENABLE_CUDA_TUNED:
// kernwerk/gpu/reduce_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include "kernwerk/cuda/runtime.hpp"
#include "kernwerk/gpu/reduce_kernels.hpp"
#include "kernwerk/impl/grids/integrate.hpp"

namespace kernwerk::impl {
template <>
struct integrate_tuned<Kokkos::Cuda> : gpu_impl::gpu_integrate<cuda_impl::cuda_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
