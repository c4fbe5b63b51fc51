#pragma once
// Tuned HIP nearest neighbours (haversine, k = 1 to 32), selected by KERNWERK_ENABLE_HIP_TUNED: the
// GPU kernels of kernwerk/gpu/nearest_kernels.hpp on HIP's runtime, 64-wide wavefronts (MI100).
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include <string>

#include "kernwerk/hip/runtime.hpp"
#include "kernwerk/gpu/nearest_kernels.hpp"
#include "kernwerk/impl/nearest/tuned.hpp"

namespace kernwerk::impl {
template <>
struct nearest_tuned<Kokkos::Experimental::HIP>
    : gpu_impl::nearest_gpu_tuned<hip_impl::hip_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_HIP
