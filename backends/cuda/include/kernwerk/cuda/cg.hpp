#pragma once
// A CSR conjugate-gradient step as one plain CUDA launch (impl::cg_step_tuned), selected by
// KERNWERK_ENABLE_CUDA_TUNED: kernwerk/gpu/cg_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include "kernwerk/cuda/runtime.hpp"
#include "kernwerk/gpu/cg_kernels.hpp"
#include "kernwerk/impl/dense/cg.hpp"

namespace kernwerk::impl {
template <>
struct cg_step_tuned<Kokkos::Cuda> : gpu_impl::gpu_cg_step<cuda_impl::cuda_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
