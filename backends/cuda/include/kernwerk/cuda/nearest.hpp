#pragma once
// Tuned CUDA nearest neighbours (haversine, k = 1 to 32), selected by KERNWERK_ENABLE_CUDA_TUNED: the
// GPU kernels of kernwerk/gpu/nearest_kernels.hpp on CUDA's runtime, 32-wide warps.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include <string>

#include "kernwerk/cuda/runtime.hpp"
#include "kernwerk/gpu/nearest_kernels.hpp"
#include "kernwerk/impl/nearest/tuned.hpp"

namespace kernwerk::impl {
template <>
struct nearest_tuned<Kokkos::Cuda> : gpu_impl::nearest_gpu_tuned<cuda_impl::cuda_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
