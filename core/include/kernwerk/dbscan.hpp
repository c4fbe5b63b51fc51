#pragma once
/// \file
/// Density-based clustering (DBSCAN) on the radius search's index.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/neighbourhood/dbscan.hpp"
#include "kernwerk/impl/geometry/point_checks.hpp"
#include "kernwerk/impl/profiling.hpp"
#include "kernwerk/within.hpp"

namespace kernwerk {

/// Clusters `points` by density (DBSCAN): labels(i) is the cluster of point i, or -1 for noise.
/// Returns the number of clusters.
///
/// Points are a rank-2 View as kernwerk::within takes them, in any layout and memory space
/// (possibly empty); `eps` is in the units of the distances, and "within eps" follows
/// kernwerk::within (a point at exactly eps counts). A core point has at least `min_samples`
/// points within eps, itself included (as in scikit-learn). Core points within eps of each
/// other share a cluster; clusters are numbered 0, 1, ... in the order of their smallest core
/// point's index, which is scikit-learn's numbering. A point that is not core joins a cluster of
/// a core point within eps by options.border, else it is noise (-1). Core points, noise and
/// the partition of the core points are those of the textbook definition whatever the rule;
/// with border_rule::first_cluster every label equals scikit-learn's.
///
/// \throws kernwerk::invalid_argument naming the argument, before any output is written, for
/// points of the wrong shape, NaN or infinite coordinates, latitudes past the poles, more than
/// 2^31 - 1 points, eps negative or not finite, min_samples below 1, labels shorter than the
/// points or of a type that cannot hold -1 or the cluster numbers.
template <class ExecutionSpace, class Points, class Labels>
std::int64_t dbscan(const ExecutionSpace& space, const Points& points, double eps,
                    std::int64_t min_samples, const Labels& labels,
                    const dbscan_options& options = {}) {
  static_assert(Kokkos::is_view<Labels>::value && Labels::rank == 1 &&
                    std::is_integral_v<typename Labels::value_type> &&
                    std::is_signed_v<typename Labels::value_type> &&
                    !std::is_const_v<typename Labels::value_type>,
                "kernwerk::dbscan: labels must be a writable rank-1 View of a signed integer type");
  constexpr const char* fn = "dbscan";
  impl::scoped_region region("kernwerk::dbscan");
  impl::check_indexed_points(fn, points, options);
  const std::size_t n = points.extent(0);
  impl::check_range(fn, "eps", eps);
  if (min_samples < 1)
    throw invalid_argument(fn, "min_samples", "must be at least 1, got " + std::to_string(min_samples));
  if (options.border != border_rule::nearest_core && options.border != border_rule::first_cluster)
    throw invalid_argument(fn, "options.border", "is not a border_rule");
  impl::require_length_at_least(fn, "labels", labels, n, "points");
  if (n > 0 && n - 1 > static_cast<std::uint64_t>(std::numeric_limits<typename Labels::value_type>::max()))
    throw invalid_argument(fn, "labels",
                           "its value type cannot hold cluster number " + std::to_string(n - 1));
  impl::require_disjoint(fn, "labels", labels, "points", points);
  impl::check_point_values(space, fn, "points", points, options.metric, options.units);
  if (n == 0) return 0;

  using memory_space = typename ExecutionSpace::memory_space;
  const auto labels_out = Kokkos::subview(labels, std::make_pair(std::size_t(0), n));
  const auto points_here = Kokkos::create_mirror_view_and_copy(memory_space(), points);
  const auto labels_here = Kokkos::create_mirror_view(memory_space(), labels_out);
  const std::int64_t clusters = impl::dbscan_generic(
      space, points_here, eps, min_samples, labels_here, impl::index_metric_of(options),
      options.border == border_rule::first_cluster);
  if (labels_here.data() != labels_out.data()) Kokkos::deep_copy(space, labels_out, labels_here);
  space.fence();
  return clusters;
}

}  // namespace kernwerk
