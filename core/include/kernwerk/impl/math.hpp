#pragma once
// Kokkos moved its math functions from Kokkos::Experimental (3.x) to Kokkos (4.0 and later).
// sincos shares one argument reduction between the two where the device library has it.
#include <Kokkos_Core.hpp>

#include <cmath>

namespace kernwerk::impl {
#if KOKKOS_VERSION >= 40000
namespace math = ::Kokkos;
#else
namespace math = ::Kokkos::Experimental;
#endif

KOKKOS_INLINE_FUNCTION void sincos(double x, double& s, double& c) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  ::sincos(x, &s, &c);
#else
  s = math::sin(x);
  c = math::cos(x);
#endif
}
}  // namespace kernwerk::impl
