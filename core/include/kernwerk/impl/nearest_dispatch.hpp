#pragma once
// Argument checks and the choice between the generic and a tuned implementation of
// kernwerk::nearest.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <utility>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernwerk/config.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/impl/nearest_generic.hpp"
#include "kernwerk/impl/nearest_chunked.hpp"
#include "kernwerk/impl/nearest_indexed.hpp"
#include "kernwerk/impl/profiling.hpp"
#include "kernwerk/impl/view_checks.hpp"
#include "kernwerk/nearest_options.hpp"

namespace kernwerk::impl {

// A backend folder specialises this for its execution space, with `available = true`,
// `static bool covers(metric_kind, int k)` (what its brute force implements) and
// `static void run(space, observations, references, output, scale, radius)` taking the same
// checked, accessible Views as nearest_generic and a neighbour_output.
template <class ExecutionSpace>
struct nearest_tuned {
  static constexpr bool available = false;
  static bool covers(metric_kind, int) { return false; }
};

// The memory budget of a call that leaves options.memory_budget at 0: no limit where the
// execution space works in host memory; a backend folder specialises this for its device
// (the CUDA one asks for the free memory); elsewhere 4 GiB.
template <class ExecutionSpace>
struct default_memory_budget {
  static std::size_t bytes() {
    if (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                   typename ExecutionSpace::memory_space>::accessible)
      return std::numeric_limits<std::size_t>::max();
    return std::size_t(4) << 30;
  }
};

// Validates points where they are: on the execution space if it reaches them, else on the host
// if it does, else on a copy in the execution space's memory.
template <class ExecutionSpace, class Points>
std::int64_t find_invalid_point_anywhere(const ExecutionSpace& space, const Points& points,
                                         double max_abs_first) {
  using memory = typename Points::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, memory>::accessible)
    return find_invalid_point(space, points, max_abs_first);
  else if constexpr (Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace, memory>::accessible)
    return find_invalid_point(Kokkos::DefaultHostExecutionSpace(), points, max_abs_first);
  else
    return find_invalid_point(
        space,
        Kokkos::create_mirror_view_and_copy(typename ExecutionSpace::memory_space(), points),
        max_abs_first);
}

inline constexpr int max_neighbours = 32;
// Observation sets out of the execution space's reach from this size on are pipelined.
inline constexpr std::size_t pipeline_min_rows = std::size_t(1) << 18;

}  // namespace kernwerk::impl

namespace kernwerk {

// The method a call with these options and sizes runs: the indexed one where its construction
// pays (measured in perf/: the brute force wins only on small sets), for the haversine metric,
// unless the tuned brute force was asked for.
inline method_kind chosen_method(const nearest_options& options, std::size_t observations,
                                 std::size_t references) {
  if (options.method != method_kind::automatic) return options.method;
  const bool pays =
      references >= 128 && double(observations) * double(references) >= double(1 << 22);
  return options.metric == metric_kind::haversine &&
                 options.implementation != implementation_kind::tuned && pays
             ? method_kind::indexed
             : method_kind::brute;
}

}  // namespace kernwerk

namespace kernwerk::impl {

template <class ExecutionSpace, class Observations, class References, class Indices,
          class Distances>
void nearest_dispatch(const ExecutionSpace& space, const Observations& observations,
                      const References& references, const Indices& indices,
                      const Distances& distances, const nearest_options& options) {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "kernwerk::nearest: the first argument must be a Kokkos execution space");
  static_assert(Kokkos::is_view<Observations>::value && Observations::rank == 2,
                "kernwerk::nearest: observations must be a rank-2 View, one point per row");
  static_assert(Kokkos::is_view<References>::value && References::rank == 2,
                "kernwerk::nearest: references must be a rank-2 View, one point per row");
  static_assert(Kokkos::is_view<Indices>::value && (Indices::rank == 1 || Indices::rank == 2),
                "kernwerk::nearest: indices must be a rank-1 View (k = 1) or rank-2 (n, k)");
  static_assert(Kokkos::is_view<Distances>::value && int(Distances::rank) == int(Indices::rank),
                "kernwerk::nearest: distances must have the rank of indices");
  static_assert(std::is_floating_point_v<typename Observations::non_const_value_type> &&
                    std::is_floating_point_v<typename References::non_const_value_type>,
                "kernwerk::nearest: coordinates must be float or double");
  static_assert(std::is_integral_v<typename Indices::value_type> &&
                    !std::is_const_v<typename Indices::value_type>,
                "kernwerk::nearest: indices must be a writable View of an integer type");
  static_assert(std::is_floating_point_v<typename Distances::value_type> &&
                    !std::is_const_v<typename Distances::value_type>,
                "kernwerk::nearest: distances must be a writable View of float or double");

  constexpr const char* fn = "nearest";
  scoped_region region("kernwerk::nearest");
  const bool haversine_metric = options.metric == metric_kind::haversine;

  if (!(std::isfinite(options.radius) && options.radius > 0))
    throw invalid_argument(fn, "options.radius",
                           "must be positive and finite, got " + std::to_string(options.radius));
  if (!haversine_metric && options.units == angle_unit::degrees)
    throw invalid_argument(fn, "options.units", "degrees apply to the haversine metric only");

  const std::size_t dimension = observations.extent(1);
  if (haversine_metric && dimension != 2)
    throw invalid_argument(fn, "observations",
                           "haversine points have 2 coordinates (latitude, longitude), got " +
                               std::to_string(dimension));
  if (!haversine_metric && dimension != 2 && dimension != 3)
    throw invalid_argument(fn, "observations",
                           "euclidean points have 2 or 3 coordinates, got " +
                               std::to_string(dimension));
  if (references.extent(1) != dimension)
    throw invalid_argument(fn, "references",
                           std::to_string(references.extent(1)) +
                               " coordinates per point, but observations have " +
                               std::to_string(dimension));
  if (observations.extent(0) == 0) throw invalid_argument(fn, "observations", "empty set");
  if (references.extent(0) == 0) throw invalid_argument(fn, "references", "empty set");
  require_length_at_least(fn, "indices", indices, observations.extent(0), "observations");
  require_length_at_least(fn, "distances", distances, observations.extent(0), "observations");

  const std::size_t k = Indices::rank == 2 ? indices.extent(1) : 1;
  if (k < 1 || k > max_neighbours)
    throw invalid_argument(fn, "indices",
                           std::to_string(k) + " columns: k must be 1 to " +
                               std::to_string(max_neighbours));
  if (Distances::rank == 2 && distances.extent(1) != k)
    throw invalid_argument(fn, "distances",
                           std::to_string(distances.extent(1)) + " columns, but indices have " +
                               std::to_string(k));
  if (k > references.extent(0))
    throw invalid_argument(fn, "indices",
                           "k = " + std::to_string(k) + " neighbours, but references hold " +
                               std::to_string(references.extent(0)) + " points");

  using index_type = typename Indices::value_type;
  if (references.extent(0) - 1 > static_cast<std::uint64_t>(std::numeric_limits<index_type>::max()))
    throw invalid_argument(fn, "indices",
                           "its value type cannot hold reference index " +
                               std::to_string(references.extent(0) - 1));
  if (references.extent(0) > std::size_t(std::numeric_limits<int>::max()))
    throw invalid_argument(fn, "references", "more than 2^31 - 1 points");
  require_disjoint(fn, "indices", indices, "distances", distances);
  require_disjoint(fn, "indices", indices, "observations", observations);
  require_disjoint(fn, "indices", indices, "references", references);
  require_disjoint(fn, "distances", distances, "observations", observations);
  require_disjoint(fn, "distances", distances, "references", references);

  // The method first, then the implementation of the brute force.
  if (options.method == method_kind::indexed && !haversine_metric)
    throw unsupported(fn, "options.method", "the indexed method covers the haversine metric");
  const bool indexed =
      chosen_method(options, observations.extent(0), references.extent(0)) == method_kind::indexed;
  if (indexed && options.implementation == implementation_kind::tuned)
    throw unsupported(fn, "options.implementation",
                      "the indexed method has the generic implementation only");
  constexpr bool tuned_available = nearest_tuned<ExecutionSpace>::available;
  const bool tuned_covers = nearest_tuned<ExecutionSpace>::covers(options.metric, int(k));
  const bool use_tuned = !indexed && (options.implementation == implementation_kind::tuned ||
                                      (options.implementation == implementation_kind::automatic &&
                                       tuned_covers));
  if (use_tuned && !tuned_available)
    throw unsupported(fn, "options.implementation",
                      std::string("this build has no tuned implementation for execution space ") +
                          ExecutionSpace::name());
  if (use_tuned && !tuned_covers)
    throw unsupported(fn, "options.implementation",
                      std::string("the tuned implementation for ") + ExecutionSpace::name() +
                          " covers neither the " + to_string(options.metric) + " metric with k = " +
                          std::to_string(k) + "; use auto or generic");

  constexpr double pi = 3.14159265358979323846;
  const bool degrees = options.units == angle_unit::degrees;
  const double scale = degrees ? pi / 180.0 : 1.0;
  // A latitude of exactly +-90 degrees or +-pi/2 (as rounded to the input type) is a pole.
  auto latitude_limit = [&](auto point_value) {
    using scalar = decltype(point_value);
    if (!haversine_metric) return 0.0;
    return degrees ? 90.0 : static_cast<double>(static_cast<scalar>(pi / 2));
  };
  const auto check_points = [&](const char* name, const auto& points, double limit) {
    const std::int64_t bad = find_invalid_point_anywhere(space, points, limit);
    if (bad >= 0) {
      const char* rule = haversine_metric
                             ? (degrees ? "has a non-finite coordinate or a latitude outside [-90, 90] degrees"
                                        : "has a non-finite coordinate or a latitude outside [-pi/2, pi/2]")
                             : "has a non-finite coordinate";
      throw invalid_argument(fn, name, describe_point(points, bad) + " " + rule);
    }
  };
  check_points("observations", observations,
               latitude_limit(typename Observations::non_const_value_type{}));
  check_points("references", references,
               latitude_limit(typename References::non_const_value_type{}));

  using memory_space = typename ExecutionSpace::memory_space;
  const std::size_t n = observations.extent(0), m = references.extent(0);
  const std::size_t observation_row = dimension * sizeof(typename Observations::value_type);
  const std::size_t reference_row = dimension * sizeof(typename References::value_type);
  const std::size_t budget = options.memory_budget
                                 ? options.memory_budget
                                 : default_memory_budget<ExecutionSpace>::bytes();
  // What one pass needs: copies of inputs out of reach, results, scratch (roughly).
  constexpr bool observations_reached =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Observations::memory_space>::accessible;
  constexpr bool references_reached =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename References::memory_space>::accessible;
  const double needed = (observations_reached ? 0.0 : double(n) * observation_row) +
                        (references_reached ? 0.0 : double(m) * reference_row) +
                        double(n) * k * 32 + double(m) * 128 +
                        double(sphere_grid<memory_space>::bytes(std::int64_t(m)));

  // Only the first observations.extent(0) rows of longer outputs are written.
  const auto written = std::make_pair(std::size_t{0}, observations.extent(0));
  const auto indices_out = first_rows(indices, written);
  const auto distances_out = first_rows(distances, written);
  const auto run_method = [&](const auto& obs, const auto& ref, const auto& output, int wanted) {
    if (indexed) {
      nearest_indexed(space, obs, ref, output, wanted, scale, options.radius);
    } else if (use_tuned) {
      if constexpr (tuned_available)
        nearest_tuned<ExecutionSpace>::run(space, obs, ref, output, scale, options.radius);
    } else {
      nearest_generic(space, obs, ref, output, wanted, haversine_metric, scale, options.radius);
    }
  };
  // Large sets in memory the execution space does not reach go through the chunk pipeline even
  // when they fit, so that their copies overlap the computation (8 chunks or more).
  constexpr bool outputs_reached =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Indices::memory_space>::accessible &&
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Distances::memory_space>::accessible;
  const bool pipelined = !(observations_reached && outputs_reached) && n >= pipeline_min_rows;
  if (needed > double(budget) || pipelined) {
    auto plan = plan_chunks<memory_space>(budget, n, m, observation_row, reference_row, k);
    if (pipelined)
      plan.observation_rows =
          std::min(plan.observation_rows, std::max(pipeline_min_rows / 8, (n + 7) / 8));
    if (haversine_metric)
      nearest_chunked(space, observations, references, indices_out, distances_out, int(k), plan,
                      run_method, sphere_distance{options.radius});
    else
      nearest_chunked(space, observations, references, indices_out, distances_out, int(k), plan,
                      run_method, euclidean_distance{});
    return;
  }

  // Views the execution space cannot reach are copied into its memory space.
  const auto observations_here = Kokkos::create_mirror_view_and_copy(memory_space(), observations);
  const auto references_here = Kokkos::create_mirror_view_and_copy(memory_space(), references);

  const auto indices_here = Kokkos::create_mirror_view(memory_space(), indices_out);
  const auto distances_here = Kokkos::create_mirror_view(memory_space(), distances_out);
  run_method(observations_here, references_here,
             neighbour_output<std::remove_const_t<decltype(indices_here)>,
                              std::remove_const_t<decltype(distances_here)>>{indices_here,
                                                                             distances_here},
             int(k));
  if (indices_here.data() != indices_out.data())
    Kokkos::deep_copy(space, indices_out, indices_here);
  if (distances_here.data() != distances_out.data())
    Kokkos::deep_copy(space, distances_out, distances_here);
  space.fence();
}

}  // namespace kernwerk::impl
