#pragma once
/// \file
/// Radius search: for each query point, every point within a distance of it (ArborX's spatial
/// query, scikit-learn's radius_neighbors), and the count-only variant.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/geometry/point_checks.hpp"
#include "kernwerk/impl/profiling.hpp"
#include "kernwerk/impl/index/index_core.hpp"
#include "kernwerk/impl/neighbourhood/within.hpp"
#include "kernwerk/within_options.hpp"

namespace kernwerk {

namespace impl {

// The points a radius search indexes (kernwerk::within's points, kernwerk::dbscan's), with the
// options: their shape (possibly empty) and count; their values are checked apart.
template <class Points>
void check_indexed_points(const char* fn, const Points& points, const index_options& options) {
  require_point_view<Points>();
  check_sphere_options(fn, options.units, options.radius, options.metric);
  check_point_shape(fn, "points", points, options.metric, true);
  if (points.extent(0) > std::size_t(std::numeric_limits<int>::max()))
    throw invalid_argument(fn, "points", "more than 2^31 - 1 points");
}

template <class Queries, class Points>
void check_within_arguments(const char* fn, const Queries& queries, const Points& points,
                            double range, const within_options& options) {
  require_point_view<Queries>();
  check_indexed_points(fn, points, options);
  check_point_shape(fn, "queries", queries, options.metric, true);
  require_same_dimension(fn, "queries", queries.extent(1), "points", points.extent(1));
  check_range(fn, "radius", range);
}

// The one-shot index of within's and count_within's points (in the space's memory), with the
// sphere's grid where a search within `radius` may scan it.
template <class ExecutionSpace, class Points>
scoped_index<ExecutionSpace> radius_index(const ExecutionSpace& space, const Points& points, double radius,
                                          const within_options& options) {
  using memory_space = typename ExecutionSpace::memory_space;
  const auto points_here = Kokkos::create_mirror_view_and_copy(memory_space(), points);
  const auto metric = index_metric_of(options);
  return scoped_index<ExecutionSpace>(
      space, points_here, metric,
      radius_policy::wants_grid<memory_space>(metric, std::int64_t(points.extent(0)), radius));
}

}  // namespace impl

/// The number of points within `radius` of every query: counts(i) for query i.
///
/// Queries and points are rank-2 Views as kernwerk::nearest takes them (either may be empty):
/// (latitude, longitude) rows for the haversine metric, (x, y) or (x, y, z) rows for the
/// Euclidean one, in any layout and memory space; `radius` is in the units of the distances
/// (haversine: radians times options.radius). A point counts where its float64 distance, as
/// kernwerk::within reports it, is at most `radius`: a point at exactly `radius` counts.
///
/// \throws kernwerk::invalid_argument naming the argument, before any output is written, for
/// points of the wrong shape, NaN or infinite coordinates, latitudes past the poles, more than
/// 2^31 - 1 points, a radius that is negative or not finite, counts shorter than the queries or
/// of a type that cannot hold the number of points.
template <class ExecutionSpace, class Queries, class Points, class Counts>
void count_within(const ExecutionSpace& space, const Queries& queries, const Points& points,
                  double radius, const Counts& counts, const within_options& options = {}) {
  impl::require_integer_output<Counts>();
  constexpr const char* fn = "count_within";
  impl::scoped_region region("kernwerk::count_within");
  impl::check_within_arguments(fn, queries, points, radius, options);
  const std::size_t n = queries.extent(0), m = points.extent(0);
  impl::require_length_at_least(fn, "counts", counts, n, "queries");
  if (m > static_cast<std::uint64_t>(std::numeric_limits<typename Counts::value_type>::max()))
    throw invalid_argument(fn, "counts", "its value type cannot hold " + std::to_string(m) + " points");
  impl::require_disjoint(fn, "counts", counts, "queries", queries);
  impl::require_disjoint(fn, "counts", counts, "points", points);
  impl::check_point_values(space, fn, "queries", queries, options.metric, options.units);
  impl::check_point_values(space, fn, "points", points, options.metric, options.units);
  if (n == 0) return;
  using memory_space = typename ExecutionSpace::memory_space;
  const auto queries_here = Kokkos::create_mirror_view_and_copy(memory_space(), queries);
  const auto index = impl::radius_index(space, points, radius, options);
  impl::count_within_index(space, index.core(), queries_here, radius, counts);
}

namespace impl {

// kernwerk::within, its distances left out where `distances` is null.
template <class ExecutionSpace, class Queries, class Points, class Offsets, class Indices, class Distances>
void within_rows(const ExecutionSpace& space, const Queries& queries, const Points& points, double radius,
                 const Offsets& offsets, Indices& indices, Distances* distances, const within_options& options) {
  require_within_outputs<Offsets, Indices, Distances>();
  constexpr const char* fn = "within";
  scoped_region region("kernwerk::within");
  check_within_arguments(fn, queries, points, radius, options);
  const std::size_t n = queries.extent(0), m = points.extent(0);
  require_length_at_least(fn, "offsets", offsets, n + 1, "queries + 1");
  check_index_type<typename Indices::value_type>(fn, m);
  require_disjoint(fn, "offsets", offsets, "queries", queries);
  require_disjoint(fn, "offsets", offsets, "points", points);
  check_point_values(space, fn, "queries", queries, options.metric, options.units);
  check_point_values(space, fn, "points", points, options.metric, options.units);

  using memory_space = typename ExecutionSpace::memory_space;
  const auto queries_here = Kokkos::create_mirror_view_and_copy(memory_space(), queries);
  const auto index = radius_index(space, points, radius, options);
  within_index(space, fn, index.core(), queries_here, radius, offsets, indices, distances, options.order);
}

}  // namespace impl

/// Every point within `radius` of every query, in compressed rows: the neighbours of query i
/// are indices(p) at distances(p) for p from offsets(i) to offsets(i + 1), sorted by distance,
/// equal distances by index (options.order = row_order::any: the same neighbours, unsorted,
/// which costs less, most where the distances are not asked for).
///
/// Queries, points, `radius` and the rule at the boundary are those of kernwerk::count_within.
/// `offsets` is a rank-1 integer View of at least n + 1 entries; `indices` (integers) and
/// `distances` (float or double) are rank-1 Views that the call reallocates to the number of
/// neighbours found (a count pass, then a fill pass, so they are exactly as long as needed).
/// Distances are ordered in float64 before they are stored.
///
/// \throws kernwerk::invalid_argument naming the argument, before any output is written, as
/// kernwerk::count_within does, and for offsets shorter than n + 1, and offsets or indices of a
/// type that cannot hold the total or a point index.
template <class ExecutionSpace, class Queries, class Points, class Offsets, class Indices,
          class Distances,
          class = std::enable_if_t<Kokkos::is_view<Distances>::value>>
void within(const ExecutionSpace& space, const Queries& queries, const Points& points,
            double radius, const Offsets& offsets, Indices& indices, Distances& distances,
            const within_options& options = {}) {
  impl::within_rows(space, queries, points, radius, offsets, indices, &distances, options);
}

/// kernwerk::within without the distances.
template <class ExecutionSpace, class Queries, class Points, class Offsets, class Indices>
void within(const ExecutionSpace& space, const Queries& queries, const Points& points,
            double radius, const Offsets& offsets, Indices& indices,
            const within_options& options = {}) {
  impl::within_rows(space, queries, points, radius, offsets, indices,
                    static_cast<Kokkos::View<double*, typename Indices::memory_space>*>(nullptr), options);
}

}  // namespace kernwerk
