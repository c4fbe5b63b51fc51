#pragma once
// The points of integrate2d's midpoint rule: n x m cell centres of a rectangle.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kernwerk::impl {

struct midpoint_grid {
  double x0, hx, y0, hy;
  std::int64_t n, m;
  KOKKOS_INLINE_FUNCTION double x(std::int64_t i) const { return x0 + (double(i) + 0.5) * hx; }
  KOKKOS_INLINE_FUNCTION double y(std::int64_t j) const { return y0 + (double(j) + 0.5) * hy; }
};

}  // namespace kernwerk::impl
