#pragma once
// Tuned HIP midpoint sum of integrate2d, selected by KERNWERK_ENABLE_HIP_TUNED:
// kernwerk/gpu/reduce_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include "kernwerk/hip/runtime.hpp"
#include "kernwerk/gpu/reduce_kernels.hpp"
#include "kernwerk/impl/grids/integrate.hpp"

namespace kernwerk::impl {
template <>
struct integrate_tuned<Kokkos::Experimental::HIP> : gpu_impl::gpu_integrate<hip_impl::hip_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_HIP
