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
#include "kernwerk/impl/nearest/checks.hpp"
#include "kernwerk/impl/profiling.hpp"
#include "kernwerk/impl/neighbourhood/radius_search.hpp"
#include "kernwerk/impl/index/sphere_grid.hpp"
#include "kernwerk/within_options.hpp"

namespace kernwerk {

namespace impl {

// The points a radius search indexes (kernwerk::within's points, kernwerk::dbscan's), with the
// options: their shape (possibly empty) and count; their values are checked apart.
template <class Points>
void check_indexed_points(const char* fn, const Points& points, const within_options& options) {
  require_point_view<Points>();
  check_sphere_options(fn, options.units, options.radius, options.metric);
  check_point_shape(fn, "points", points, options.metric, true);
  if (points.extent(0) > std::size_t(std::numeric_limits<int>::max()))
    throw invalid_argument(fn, "points", "more than 2^31 - 1 points");
}

// A search radius (kernwerk::within's radius, kernwerk::dbscan's eps).
inline void check_range(const char* fn, const char* name, double range) {
  if (!(std::isfinite(range) && range >= 0))
    throw invalid_argument(fn, name, "must be finite and not negative, got " + std::to_string(range));
}

template <class Queries, class Points>
void check_within_arguments(const char* fn, const Queries& queries, const Points& points,
                            double range, const within_options& options) {
  require_point_view<Queries>();
  check_indexed_points(fn, points, options);
  check_point_shape(fn, "queries", queries, options.metric, true);
  if (queries.extent(1) != points.extent(1))
    throw invalid_argument(fn, "queries",
                           std::to_string(queries.extent(1)) + " coordinates, but points have " +
                               std::to_string(points.extent(1)));
  check_range(fn, "radius", range);
}

template <class View>
constexpr void require_integer_output() {
  static_assert(Kokkos::is_view<View>::value && View::rank == 1,
                "kernwerk: counts, offsets and indices must be rank-1 Views");
  static_assert(std::is_integral_v<typename View::value_type> &&
                    !std::is_const_v<typename View::value_type>,
                "kernwerk: counts, offsets and indices must be writable Views of an integer type");
}

// The counts of every query, in `counts` (the execution space's memory).
template <class ExecutionSpace, class Queries, class Counts>
void count_queries(const ExecutionSpace& space, const radius_index<ExecutionSpace>& index,
                   const Queries& queries, double range, const Counts& counts) {
  using rule_type = radius_rule<typename ExecutionSpace::memory_space>;
  Kokkos::parallel_for("kernwerk::within::count",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                           space, 0, std::int64_t(queries.extent(0))),
                       count_within_kernel<rule_type, Queries, Counts>{index.rule(range), queries, counts});
}

template <class Source, class Target>
struct convert_copy {
  Source source;
  Target target;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    target(i) = static_cast<typename Target::value_type>(source(i));
  }
};

// Copies `source` (the execution space's memory) into `target`, converting the value type.
template <class ExecutionSpace, class Source, class Target>
void copy_converted(const ExecutionSpace& space, const Source& source, const Target& target) {
  const auto here = Kokkos::create_mirror_view(typename ExecutionSpace::memory_space(), target);
  if constexpr (std::is_same_v<typename Source::non_const_value_type,
                               typename Target::non_const_value_type>) {
    Kokkos::deep_copy(space, here, source);
  } else {
    Kokkos::parallel_for("kernwerk::within::convert",
                         Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                             space, 0, std::int64_t(target.extent(0))),
                         convert_copy<Source, std::remove_const_t<decltype(here)>>{source, here});
  }
  if (here.data() != target.data()) Kokkos::deep_copy(space, target, here);
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
  const auto points_here = Kokkos::create_mirror_view_and_copy(memory_space(), points);
  const Kokkos::View<std::int64_t*, memory_space> found(Kokkos::view_alloc(space, "kernwerk::count_within::counts"), n);
  {
    const impl::radius_index<ExecutionSpace> index(space, points_here, options.metric,
                                                   impl::radians_per_unit(options.units),
                                                   options.radius);
    impl::count_queries(space, index, queries_here, radius, found);
    space.fence();  // before the index's workspace is given back
  }
  impl::copy_converted(space, found, Kokkos::subview(counts, std::make_pair(std::size_t(0), n)));
  space.fence();
}

namespace impl {

// kernwerk::within, its distances left out where `distances` is null (they are computed all
// the same: the order is decided on them).
template <class ExecutionSpace, class Queries, class Points, class Offsets, class Indices, class Distances>
void within_rows(const ExecutionSpace& space, const Queries& queries, const Points& points, double radius,
                 const Offsets& offsets, Indices& indices, Distances* distances, const within_options& options) {
  require_integer_output<Offsets>();
  require_integer_output<Indices>();
  static_assert(Distances::rank == 1 && std::is_floating_point_v<typename Distances::value_type> &&
                    !std::is_const_v<typename Distances::value_type>,
                "kernwerk::within: distances must be a writable rank-1 View of float or double");
  static_assert(!Indices::memory_traits::is_unmanaged && !Distances::memory_traits::is_unmanaged,
                "kernwerk::within: indices and distances are reallocated: they must be managed Views");
  constexpr const char* fn = "within";
  scoped_region region("kernwerk::within");
  check_within_arguments(fn, queries, points, radius, options);
  const std::size_t n = queries.extent(0), m = points.extent(0);
  require_length_at_least(fn, "offsets", offsets, n + 1, "queries + 1");
  using index_type = typename Indices::value_type;
  if (m > 0 && m - 1 > static_cast<std::uint64_t>(std::numeric_limits<index_type>::max()))
    throw invalid_argument(fn, "indices",
                           "its value type cannot hold point index " + std::to_string(m - 1));
  require_disjoint(fn, "offsets", offsets, "queries", queries);
  require_disjoint(fn, "offsets", offsets, "points", points);
  check_point_values(space, fn, "queries", queries, options.metric, options.units);
  check_point_values(space, fn, "points", points, options.metric, options.units);

  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const auto queries_here = Kokkos::create_mirror_view_and_copy(memory_space(), queries);
  const auto points_here = Kokkos::create_mirror_view_and_copy(memory_space(), points);
  const Kokkos::View<std::int64_t*, memory_space> starts(Kokkos::view_alloc(space, "kernwerk::within::offsets"), n + 1);
  const radius_index<ExecutionSpace> index(space, points_here, options.metric, radians_per_unit(options.units),
                                           options.radius);
  count_queries(space, index, queries_here, radius, starts);
  std::int64_t total = 0;
  Kokkos::parallel_scan("kernwerk::within::scan", policy(space, 0, std::int64_t(n + 1)),
                        exclusive_prefix<decltype(starts)>{starts}, total);
  space.fence();
  if (std::uint64_t(total) > static_cast<std::uint64_t>(
                                 std::numeric_limits<typename Offsets::value_type>::max()))
    throw invalid_argument(fn, "offsets",
                           "its value type cannot hold the " + std::to_string(total) +
                               " neighbours found");

  // The neighbours, in the execution space's memory: found indices as the caller's type,
  // distances in float64 (the order is decided on them).
  const Kokkos::View<index_type*, memory_space> found(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::within::indices"), total);
  const Kokkos::View<double*, memory_space> found_distances(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::within::distances"), total);
  using rule_type = radius_rule<memory_space>;
  using queries_type = std::remove_const_t<decltype(queries_here)>;
  Kokkos::parallel_for("kernwerk::within::fill", policy(space, 0, std::int64_t(n)),
                       fill_within_kernel<rule_type, queries_type, decltype(starts), decltype(found),
                                          decltype(found_distances)>{
                           index.rule(radius), queries_here, starts, found, found_distances});
  space.fence();

  if (indices.extent(0) != std::size_t(total))
    indices = Indices(Kokkos::view_alloc(Kokkos::WithoutInitializing, indices.label()), total);
  copy_converted(space, found, indices);
  if (distances) {
    if (distances->extent(0) != std::size_t(total))
      *distances = Distances(Kokkos::view_alloc(Kokkos::WithoutInitializing, distances->label()), total);
    copy_converted(space, found_distances, *distances);
  }
  copy_converted(space, starts, Kokkos::subview(offsets, std::make_pair(std::size_t(0), n + 1)));
  space.fence();
}

}  // namespace impl

/// Every point within `radius` of every query, in compressed rows: the neighbours of query i
/// are indices(p) at distances(p) for p from offsets(i) to offsets(i + 1), sorted by distance,
/// equal distances by index.
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
