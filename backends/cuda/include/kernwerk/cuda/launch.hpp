#pragma once
// Plain CUDA launches of the short passes (impl::launch_tuned), selected by
// KERNWERK_ENABLE_CUDA_TUNED: kernwerk/gpu/launch_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include "kernwerk/cuda/runtime.hpp"
#include "kernwerk/gpu/launch_kernels.hpp"
#include "kernwerk/impl/launch.hpp"

namespace kernwerk::impl {
template <>
struct launch_tuned<Kokkos::Cuda> : gpu_impl::gpu_launch<cuda_impl::cuda_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
