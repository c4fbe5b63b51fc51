#pragma once
// The argument checks of kernwerk::nearest and of kernwerk::spatial_index, made on the host
// before any kernel writes an output: types (at compile time), options, shapes, k, index
// ranges, aliasing, and the coordinates' values.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/view_checks.hpp"
#include "kernwerk/nearest_options.hpp"

namespace kernwerk::impl {

inline constexpr int max_neighbours = 32;

template <class Points>
constexpr void require_point_view() {
  static_assert(Kokkos::is_view<Points>::value && Points::rank == 2,
                "kernwerk: points must be a rank-2 View, one point per row");
  static_assert(std::is_floating_point_v<typename Points::non_const_value_type>,
                "kernwerk: coordinates must be float or double");
}

template <class Indices, class Distances>
constexpr void require_output_views() {
  static_assert(Kokkos::is_view<Indices>::value && (Indices::rank == 1 || Indices::rank == 2),
                "kernwerk: indices must be a rank-1 View (k = 1) or rank-2 (n, k)");
  static_assert(Kokkos::is_view<Distances>::value && int(Distances::rank) == int(Indices::rank),
                "kernwerk: distances must have the rank of indices");
  static_assert(std::is_integral_v<typename Indices::value_type> &&
                    !std::is_const_v<typename Indices::value_type>,
                "kernwerk: indices must be a writable View of an integer type");
  static_assert(std::is_floating_point_v<typename Distances::value_type> &&
                    !std::is_const_v<typename Distances::value_type>,
                "kernwerk: distances must be a writable View of float or double");
}

// Radius and units: the haversine metric's options.
inline void check_sphere_options(const char* fn, angle_unit units, double radius, metric_kind metric) {
  if (!(std::isfinite(radius) && radius > 0))
    throw invalid_argument(fn, "options.radius",
                           "must be positive and finite, got " + std::to_string(radius));
  if (metric != metric_kind::haversine && units == angle_unit::degrees)
    throw invalid_argument(fn, "options.units", "degrees apply to the haversine metric only");
}

// The coordinates per point of a set, and that it is not empty (unless `may_be_empty`: one
// rank's share of a distributed set).
template <class Points>
void check_point_shape(const char* fn, const char* name, const Points& points, metric_kind metric,
                       bool may_be_empty = false) {
  const std::size_t dimension = points.extent(1);
  if (metric == metric_kind::haversine && dimension != 2)
    throw invalid_argument(fn, name,
                           "haversine points have 2 coordinates (latitude, longitude), got " +
                               std::to_string(dimension));
  if (metric != metric_kind::haversine && dimension != 2 && dimension != 3)
    throw invalid_argument(fn, name,
                           "euclidean points have 2 or 3 coordinates, got " + std::to_string(dimension));
  if (points.extent(0) == 0 && !may_be_empty) throw invalid_argument(fn, name, "empty set");
  require_data(fn, name, points);
}

inline void check_reference_count(const char* fn, std::size_t references) {
  if (references > std::size_t(std::numeric_limits<int>::max()))
    throw invalid_argument(fn, "references", "more than 2^31 - 1 points");
}

// Output shapes against n observations and m references (kernwerk::spatial_index's queries and
// points: the names given); returns k.
template <class Indices, class Distances>
std::size_t check_outputs(const char* fn, const Indices& indices, const Distances& distances,
                          std::size_t n, std::size_t m, const char* rows_name = "observations",
                          const char* points_name = "references") {
  require_length_at_least(fn, "indices", indices, n, rows_name);
  require_length_at_least(fn, "distances", distances, n, rows_name);
  const std::size_t k = Indices::rank == 2 ? indices.extent(1) : 1;
  if (k < 1 || k > max_neighbours)
    throw invalid_argument(fn, "indices",
                           std::to_string(k) + " columns: k must be 1 to " +
                               std::to_string(max_neighbours));
  if (Distances::rank == 2 && distances.extent(1) != k)
    throw invalid_argument(fn, "distances",
                           std::to_string(distances.extent(1)) + " columns, but indices have " +
                               std::to_string(k));
  if (k > m)
    throw invalid_argument(fn, "indices",
                           "k = " + std::to_string(k) + " neighbours, but " + points_name +
                               " hold " + std::to_string(m) + " points");
  using index_type = typename Indices::value_type;
  if (m - 1 > static_cast<std::uint64_t>(std::numeric_limits<index_type>::max()))
    throw invalid_argument(fn, "indices",
                           "its value type cannot hold reference index " + std::to_string(m - 1));
  require_disjoint(fn, "indices", indices, "distances", distances);
  return k;
}

// Validates points where they are: on the execution space if it reaches them, else on the host
// if it does, else on a copy in the execution space's memory.
template <class ExecutionSpace, class Points>
std::int64_t find_invalid_point_anywhere(const ExecutionSpace& space, const Points& points,
                                         const coordinate_limits& limits) {
  using memory = typename Points::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, memory>::accessible)
    return find_invalid_point(space, points, limits);
  else if constexpr (Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace, memory>::accessible)
    return find_invalid_point(Kokkos::DefaultHostExecutionSpace(), points, limits);
  else
    return find_invalid_point(
        space,
        Kokkos::create_mirror_view_and_copy(typename ExecutionSpace::memory_space(), points),
        limits);
}

// The largest |latitude| and |longitude| of a valid point (0: no limit, the Euclidean metric).
// A latitude of exactly +-90 degrees or +-pi/2 (as rounded to the input type) is a pole. A
// longitude may go two turns either way (+-720 degrees, +-4 pi): beyond that a double keeps too
// few of its digits for a distance to mean anything (at 1e300 none at all).
template <class Scalar>
coordinate_limits point_limits(metric_kind metric, angle_unit units) {
  constexpr double pi = 3.14159265358979323846;
  if (metric != metric_kind::haversine) return {};
  if (units == angle_unit::degrees) return {90.0, 720.0};
  return {static_cast<double>(static_cast<Scalar>(pi / 2)), 4 * pi};
}

template <class Points>
invalid_argument invalid_point_error(const char* fn, const char* name, const Points& points,
                                     std::int64_t row, metric_kind metric, angle_unit units) {
  const char* rule =
      metric == metric_kind::haversine
          ? (units == angle_unit::degrees
                 ? "has a non-finite coordinate, a latitude outside [-90, 90] or a longitude outside "
                   "[-720, 720] degrees"
                 : "has a non-finite coordinate, a latitude outside [-pi/2, pi/2] or a longitude outside "
                   "[-4 pi, 4 pi]")
          : "has a non-finite coordinate";
  return invalid_argument(fn, name, describe_point(points, row) + " " + rule);
}

// Finite coordinates, and for the haversine metric latitudes within the poles and longitudes
// within two turns.
template <class ExecutionSpace, class Points>
void check_point_values(const ExecutionSpace& space, const char* fn, const char* name,
                        const Points& points, metric_kind metric, angle_unit units) {
  const coordinate_limits limits = point_limits<typename Points::non_const_value_type>(metric, units);
  const std::int64_t bad = find_invalid_point_anywhere(space, points, limits);
  if (bad >= 0) throw invalid_point_error(fn, name, points, bad, metric, units);
}

// check_point_values for a call's observations and references: in one pass (one reduction,
// one read) where the execution space reaches both and they hold one value type, else each
// where it is.
template <class ExecutionSpace, class Observations, class References>
void check_point_sets(const ExecutionSpace& space, const char* fn, const Observations& observations,
                      const References& references, metric_kind metric, angle_unit units) {
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, typename Observations::memory_space>::accessible &&
                Kokkos::SpaceAccessibility<ExecutionSpace, typename References::memory_space>::accessible &&
                std::is_same_v<typename Observations::non_const_value_type,
                               typename References::non_const_value_type>) {
    const coordinate_limits limits =
        point_limits<typename Observations::non_const_value_type>(metric, units);
    const auto [set, row] = find_invalid_point(space, observations, references, limits);
    if (set == 0) throw invalid_point_error(fn, "observations", observations, row, metric, units);
    if (set == 1) throw invalid_point_error(fn, "references", references, row, metric, units);
  } else {
    check_point_values(space, fn, "observations", observations, metric, units);
    check_point_values(space, fn, "references", references, metric, units);
  }
}

// The checks of a k-nearest query that read no values: the options, both sets' shapes (the
// same coordinates per point), the outputs against the observations and `reference_total`
// references, and outputs overlapping an input. kernwerk::nearest and kernwerk::mpi::nearest
// both run it (under MPI: one rank's share, which may be empty, against every rank's
// references). Returns k.
template <class Observations, class References, class Indices, class Distances>
std::size_t check_nearest_shapes(const char* fn, const Observations& observations,
                                 const References& references, const Indices& indices,
                                 const Distances& distances, const nearest_options& options,
                                 std::size_t reference_total, bool shares = false) {
  check_sphere_options(fn, options.units, options.radius, options.metric);
  check_point_shape(fn, "observations", observations, options.metric, shares);
  if (references.extent(1) != observations.extent(1))
    throw invalid_argument(fn, "references",
                           std::to_string(references.extent(1)) +
                               " coordinates per point, but observations have " +
                               std::to_string(observations.extent(1)));
  check_point_shape(fn, "references", references, options.metric, shares);
  const std::size_t k =
      check_outputs(fn, indices, distances, observations.extent(0), reference_total);
  check_reference_count(fn, reference_total);
  require_disjoint(fn, "indices", indices, "observations", observations);
  require_disjoint(fn, "indices", indices, "references", references);
  require_disjoint(fn, "distances", distances, "observations", observations);
  require_disjoint(fn, "distances", distances, "references", references);
  return k;
}

}  // namespace kernwerk::impl
