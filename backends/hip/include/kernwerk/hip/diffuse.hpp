#pragma once
// Tuned HIP diffusion (several steps per launch through shared-memory tiles), selected by
// KERNWERK_ENABLE_HIP_TUNED: kernwerk/gpu/diffuse_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include "kernwerk/gpu/diffuse_kernels.hpp"
#include "kernwerk/hip/runtime.hpp"
#include "kernwerk/impl/grids/diffuse_dispatch.hpp"

namespace kernwerk::impl {
template <>
struct diffuse_tuned<Kokkos::Experimental::HIP> : gpu_impl::gpu_diffuse<hip_impl::hip_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_HIP
