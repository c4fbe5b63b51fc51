#pragma once
// Plain HIP launches of the short passes (impl::launch_tuned), selected by
// KERNWERK_ENABLE_HIP_TUNED: kernwerk/gpu/launch_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include "kernwerk/hip/runtime.hpp"
#include "kernwerk/gpu/launch_kernels.hpp"
#include "kernwerk/impl/launch.hpp"

namespace kernwerk::impl {
template <>
struct launch_tuned<Kokkos::Experimental::HIP> : gpu_impl::gpu_launch<hip_impl::hip_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_HIP
