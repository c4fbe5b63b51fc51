#pragma once
// The checks of point sets every search makes on the host before any kernel writes an output:
// the View's type (at compile time), the metric's options, the coordinates per point, and the
// values (finite; on the sphere, latitudes within the poles and longitudes within two turns),
// read where the points lie.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/view_checks.hpp"
#include "kernwerk/index_options.hpp"

namespace kernwerk::impl {

template <class Points>
constexpr void require_point_view() {
  static_assert(Kokkos::is_view<Points>::value && Points::rank == 2,
                "kernwerk: points must be a rank-2 View, one point per row");
  static_assert(std::is_floating_point_v<typename Points::non_const_value_type>,
                "kernwerk: coordinates must be float or double");
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

// That the set `name` has the coordinates per point (`got`) of the set `other` (`dimension`):
// the one check of every search that takes two sets (nearest, within, an index's queries).
inline void require_same_dimension(const char* fn, const char* name, std::size_t got,
                                   const char* other, std::size_t dimension) {
  if (got != dimension)
    throw invalid_argument(fn, name,
                           std::to_string(got) + " coordinates per point, but " + other + " have " +
                               std::to_string(dimension));
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

// The rule a refused point breaks (a non-finite coordinate, the latitude, the longitude), as
// "has ...", with `degrees_hint` after it where a latitude in radians past the poles would be
// one in degrees. `host`: the point's coordinates (host_point).
template <class Scalar, class HostPoint>
std::string invalid_point_rule(const HostPoint& host, metric_kind metric, angle_unit units,
                               const std::string& degrees_hint) {
  bool finite = true;
  for (std::size_t d = 0; d < host.extent(0); ++d) finite = finite && std::isfinite(double(host(d)));
  if (!finite || metric != metric_kind::haversine) return "has a non-finite coordinate";
  const bool degrees = units == angle_unit::degrees;
  const coordinate_limits limits = point_limits<Scalar>(metric, units);
  const double latitude = host.extent(0) > 0 ? double(host(0)) : 0.0;
  if (std::abs(latitude) <= limits.first)
    return degrees ? "has a longitude outside [-720, 720] degrees"
                   : "has a longitude outside [-4 pi, 4 pi] radians";
  std::string rule = degrees ? "has a latitude outside [-90, 90] degrees"
                             : "has a latitude outside [-pi/2, pi/2] radians";
  if (!degrees && std::abs(latitude) <= 90.0) rule += " " + degrees_hint;
  return rule;
}

// The error for row `row` of `points`, which the checks refused: its values and the one rule it
// breaks.
template <class Points>
invalid_argument invalid_point_error(const char* fn, const char* name, const Points& points,
                                     std::int64_t row, metric_kind metric, angle_unit units) {
  const auto host = host_point(points, row);
  return invalid_argument(
      fn, name,
      describe_point(row, host) + " " +
          invalid_point_rule<typename Points::non_const_value_type>(
              host, metric, units,
              "(degrees given as radians? the angle units are radians unless degrees are asked for)"));
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

// The values of point sets checked on the execution space where they land (chunk by chunk, in
// the staged engine's pipeline), each set's first invalid row kept in its memory and read once
// at the end: no host pass reads the inputs only to check them.
template <class Points, class First>
struct mark_invalid_rows {
  Points points;
  First first;
  std::int64_t offset;
  coordinate_limits limits;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    if (invalid_point(points, i, limits)) Kokkos::atomic_fetch_min(&first(0), offset + i);
  }
};

template <class ExecutionSpace>
class deferred_point_checks {
 public:
  static constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();

  deferred_point_checks(const ExecutionSpace& space, metric_kind metric, angle_unit units)
      : space_(space), metric_(metric), units_(units), first_("kernwerk::first_invalid") {
    Kokkos::deep_copy(space, first_, none);
  }

  // Queued on the execution space: the rows of set `set` (0 or 1) in `points` (rows numbered
  // from `first_row` in the whole set).
  template <class Points>
  void mark(int set, const Points& points, std::size_t first_row) const {
    using policy = index_policy<ExecutionSpace>;
    const auto slot = Kokkos::subview(first_, std::make_pair(set, set + 1));
    Kokkos::parallel_for(
        "kernwerk::check_points", policy(space_, 0, std::int64_t(points.extent(0))),
        mark_invalid_rows<Points, decltype(slot)>{
            points, slot, std::int64_t(first_row),
            point_limits<typename Points::non_const_value_type>(metric_, units_)});
  }

  // Once every mark is queued, one read: throws naming set 0 (first_name, first_set) or else
  // set 1 where it holds an invalid row.
  template <class Points>
  void verify(const char* fn, const char* name, const Points& points) const {
    const auto found = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), first_);
    if (found(0) != none) throw invalid_point_error(fn, name, points, found(0), metric_, units_);
  }
  template <class First, class Second>
  void verify(const char* fn, const char* first_name, const First& first_set,
              const char* second_name, const Second& second_set) const {
    const auto found = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), first_);
    if (found(0) != none)
      throw invalid_point_error(fn, first_name, first_set, found(0), metric_, units_);
    if (found(1) != none)
      throw invalid_point_error(fn, second_name, second_set, found(1), metric_, units_);
  }

 private:
  ExecutionSpace space_;
  metric_kind metric_;
  angle_unit units_;
  Kokkos::View<std::int64_t[2], typename ExecutionSpace::memory_space> first_;
};

}  // namespace kernwerk::impl
