#pragma once
// Tuned HIP float64 sum of contiguous float and double Views, selected by
// KERNWERK_ENABLE_HIP_TUNED: kernwerk/gpu/reduce_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include "kernwerk/hip/runtime.hpp"
#include "kernwerk/gpu/reduce_kernels.hpp"
#include "kernwerk/impl/maps/reductions.hpp"

namespace kernwerk::impl {
template <class X>
struct sum_tuned<Kokkos::Experimental::HIP, X> : gpu_impl::gpu_sum<hip_impl::hip_runtime, X> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_HIP
