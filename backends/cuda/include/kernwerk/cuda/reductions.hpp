#pragma once
// Tuned CUDA float64 sum of contiguous float and double Views, selected by
// KERNWERK_ENABLE_CUDA_TUNED: kernwerk/gpu/reduce_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include "kernwerk/cuda/runtime.hpp"
#include "kernwerk/gpu/reduce_kernels.hpp"
#include "kernwerk/impl/maps/reductions.hpp"

namespace kernwerk::impl {
template <class X>
struct sum_tuned<Kokkos::Cuda, X> : gpu_impl::gpu_sum<cuda_impl::cuda_runtime, X> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
