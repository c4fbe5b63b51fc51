#pragma once
// Kokkos moved its math functions from Kokkos::Experimental (3.x) to Kokkos (4.0 and later).
#include <Kokkos_Core.hpp>

namespace kernwerk::impl {
#if KOKKOS_VERSION >= 40000
namespace math = ::Kokkos;
#else
namespace math = ::Kokkos::Experimental;
#endif
}  // namespace kernwerk::impl
