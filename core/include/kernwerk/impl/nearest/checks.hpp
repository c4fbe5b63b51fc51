#pragma once
// The argument checks of kernwerk::nearest and of kernwerk::spatial_index's k-nearest queries,
// made on the host before any kernel writes an output: the outputs' types (at compile time),
// shapes and k, index ranges, aliasing; the points' own checks are geometry/point_checks.hpp's.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/geometry/point_checks.hpp"
#include "kernwerk/impl/view_checks.hpp"
#include "kernwerk/nearest_options.hpp"

namespace kernwerk::impl {

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
  if (k < 1) throw invalid_argument(fn, "indices", "0 columns: k must be at least 1");
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
  require_same_dimension(fn, "references", references.extent(1), "observations",
                         observations.extent(1));
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
