#pragma once
/// \file
/// 2-D integration by the midpoint rule, with compensated float64 sums.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/implementation.hpp"
#include "kernwerk/impl/grids/integrate.hpp"
#include "kernwerk/impl/profiling.hpp"

namespace kernwerk {

/// Options of kernwerk::integrate2d.
struct integrate_options {
  implementation_kind implementation = implementation_kind::automatic;  ///< the code path
};

/// The integral of f over [x0, x1] x [y0, y1] by the midpoint rule: hx hy sum f(x0 + (i + 1/2)
/// hx, y0 + (j + 1/2) hy) over n x m points, hx = (x1 - x0) / n, hy = (y1 - y0) / m. The sum is
/// accumulated in float64 with compensation (Neumaier) in every thread and across threads, so
/// 10^10 terms lose no more than a few roundings.
///
/// f is a functor callable on the execution space as f(double x, double y) -> double. Tuned GPU
/// kernels are templates on its type: with nvcc it must not be a local type or live in an
/// unnamed namespace (nvcc cannot name those in its kernel stubs); lambdas are fine.
///
/// \throws kernwerk::invalid_argument naming the argument: bounds that are not finite, n or m
/// below 1, or (naming f) a non-finite value of f somewhere on the grid.
template <class ExecutionSpace, class Function>
double integrate2d(const ExecutionSpace& space, const Function& f, double x0, double x1,
                   double y0, double y1, std::int64_t n, std::int64_t m,
                   const integrate_options& options = {}) {
  impl::scoped_region region("kernwerk::integrate2d");
  constexpr const char* fn = "integrate2d";
  const auto require_finite = [&](const char* name, double value) {
    if (!std::isfinite(value))
      throw invalid_argument(fn, name, "must be finite, got " + std::to_string(value));
  };
  require_finite("x0", x0);
  require_finite("x1", x1);
  require_finite("y0", y0);
  require_finite("y1", y1);
  if (n < 1) throw invalid_argument(fn, "n", "must be at least 1, got " + std::to_string(n));
  if (m < 1) throw invalid_argument(fn, "m", "must be at least 1, got " + std::to_string(m));
  const impl::midpoint_grid grid{x0, (x1 - x0) / double(n), y0, (y1 - y0) / double(m), n, m};
  const double sum = impl::integrate_dispatch(space, f, grid, options.implementation);
  if (!std::isfinite(sum))
    throw invalid_argument(fn, "f", "returned a non-finite value at some point of the grid");
  return sum * grid.hx * grid.hy;
}

}  // namespace kernwerk
