#pragma once
// The generic Kokkos implementation of kernwerk::integrate2d: work items are segments of a
// grid row (one division per segment, not per point), each summed with compensation, joined
// by the compensated reducer.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/implementation.hpp"
#include "kernwerk/impl/compensated.hpp"
#include "kernwerk/impl/grids/midpoint_grid.hpp"

namespace kernwerk::impl {

inline constexpr std::int64_t integrate_segment = 1024;  // points per work item

template <class Function>
struct row_segments {
  Function f;
  midpoint_grid grid;
  std::int64_t segments_per_row;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t, compensated_value& sum) const {
    const std::int64_t i = t / segments_per_row;
    const std::int64_t begin = (t - i * segments_per_row) * integrate_segment;
    const std::int64_t end = begin + integrate_segment < grid.m ? begin + integrate_segment : grid.m;
    const double x = grid.x(i);
    compensated_value part;
    for (std::int64_t j = begin; j < end; ++j) part.add(f(x, grid.y(j)));
    sum.add(part);
  }
};

// The sum of f over the grid's points (not yet times hx hy).
template <class ExecutionSpace, class Function>
double integrate_generic(const ExecutionSpace& space, const Function& f, const midpoint_grid& grid) {
  const std::int64_t segments_per_row = (grid.m + integrate_segment - 1) / integrate_segment;
  compensated_value total;
  Kokkos::parallel_reduce(
      "kernwerk::integrate2d",
      index_policy<ExecutionSpace>(
          space, 0, grid.n * segments_per_row),
      row_segments<Function>{f, grid, segments_per_row}, compensated_sum<Kokkos::HostSpace>(total));
  space.fence();
  return total.value();
}

// A backend folder specialises this with `available = true` and
// `static double run(space, f, grid)` returning the same sum.
template <class ExecutionSpace>
struct integrate_tuned {
  static constexpr bool available = false;
};

template <class ExecutionSpace, class Function>
double integrate_dispatch(const ExecutionSpace& space, const Function& f, const midpoint_grid& grid,
                          implementation_kind kind) {
  using tuned = integrate_tuned<ExecutionSpace>;
  if (kind == implementation_kind::tuned && !tuned::available)
    throw unsupported("integrate2d", "options.implementation",
                      std::string("this build has no tuned integration for ") +
                          ExecutionSpace::name());
  if constexpr (tuned::available)
    if (kind != implementation_kind::generic) return tuned::run(space, f, grid);
  return integrate_generic(space, f, grid);
}

}  // namespace kernwerk::impl

// The backends' specialisations of integrate_tuned come with its declaration, so that every
// translation unit sees the same ones (a specialisation seen by some units only is an ODR violation).
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_CUDA_TUNED
#include "kernwerk/cuda/integrate.hpp"
#endif
#if KERNWERK_ENABLE_HIP_TUNED
#include "kernwerk/hip/integrate.hpp"
#endif
