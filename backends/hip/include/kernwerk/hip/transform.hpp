#pragma once
// Tuned HIP elementwise maps for contiguous Views, selected by KERNWERK_ENABLE_HIP_TUNED:
// kernwerk/gpu/transform_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include "kernwerk/gpu/transform_kernels.hpp"
#include "kernwerk/impl/maps/transform.hpp"
#include "kernwerk/hip/runtime.hpp"

namespace kernwerk::impl {
template <>
struct transform_tuned<Kokkos::Experimental::HIP> : gpu_impl::gpu_transform<hip_impl::hip_runtime> {
  static constexpr bool available = true;
};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_HIP
