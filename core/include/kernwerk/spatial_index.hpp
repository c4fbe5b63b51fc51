#pragma once
/// \file
/// A spatial index over points on the sphere or in 2-D/3-D: built once, then queried many
/// times for the k nearest points, the points within a radius, or their count.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/index/index_core.hpp"
#include "kernwerk/impl/nearest/checks.hpp"
#include "kernwerk/impl/nearest/index_queries.hpp"
#include "kernwerk/impl/nearest/neighbour_list.hpp"
#include "kernwerk/impl/neighbourhood/within.hpp"
#include "kernwerk/impl/profiling.hpp"
#include "kernwerk/impl/workspace.hpp"
#include "kernwerk/index_options.hpp"
#include "kernwerk/nearest.hpp"  // with the backends' specialisations (the vendor sorts)

namespace kernwerk {

namespace mpi {
template <class ExecutionSpace>
class distributed_index;  // searches a spatial_index of each rank's share (kernwerk/mpi/)
}

/// A spatial index over points: built once over fixed points (stations, a catalogue, a mesh's
/// nodes), queried many times, like ArborX's BVH, SciPy's cKDTree or scikit-learn's BallTree.
/// kernwerk::nearest (method indexed), kernwerk::within, kernwerk::count_within and
/// kernwerk::dbscan build the same index per call.
///
/// \code
/// kernwerk::spatial_index stations(space, points);         // (lat, lon) rows, radians
/// stations.nearest(space, queries, indices, distances);    // k from the outputs' shape
/// stations.within(space, queries, 0.01, offsets, found);   // compressed rows
/// stations.count_within(space, queries, 0.01, counts);
/// \endcode
///
/// Points are a rank-2 View, one point per row, in any layout and memory space, measured by
/// options.metric: (latitude, longitude) rows for the haversine metric, (x, y) or (x, y, z)
/// rows for the Euclidean one; queries have the points' coordinates. Answers are those of the
/// free functions: kernwerk::nearest's (exact in float64, nearest first, ties to the smallest
/// index), kernwerk::within's and kernwerk::count_within's. The index keeps its own copy of
/// the points in the execution space's memory (80 to 190 bytes a point: bytes()), so the
/// caller's View may change or go after construction. Views out of the execution space's reach
/// are copied in for a query (and results copied back).
template <class ExecutionSpace>
class spatial_index {
 public:
  using execution_space = ExecutionSpace;  ///< where the index is built and queried
  using memory_space = typename ExecutionSpace::memory_space;  ///< where the index lives

  /// Builds the index over `points` (possibly empty: every query then finds nothing).
  /// \throws kernwerk::invalid_argument naming the argument for points that do not suit the
  /// metric (haversine: 2 coordinates; Euclidean: 2 or 3), NaN or infinite coordinates,
  /// latitudes past the poles, more than 2^31 - 1 points, degrees with the Euclidean metric, a
  /// radius that is not positive and finite.
  template <class Points>
  spatial_index(const ExecutionSpace& space, const Points& points, const index_options& options = {})
      : spatial_index(space, points, options, "spatial_index", "points", true) {}
  /// Copies share the index's memory; the last one gives it back for the next index built.
  spatial_index(const spatial_index&) = default;
  spatial_index(spatial_index&&) = default;  ///< takes the other's share of the memory
  spatial_index& operator=(const spatial_index&) = default;  ///< shares the other's memory
  spatial_index& operator=(spatial_index&&) = default;  ///< takes the other's share
  /// The last copy gives the memory back, kept for the next index it fits.
  ~spatial_index() { impl::recycled_buffer<memory_space>::give_back(memory_); }

  /// Fills indices(i[, q]) and distances(i[, q]) with the k nearest points of every query,
  /// k = 1 for rank-1 outputs, the column count (at least 1, at most size()) of rank-2 ones.
  /// Queries and outputs out of the execution space's reach go through its memory as
  /// kernwerk::nearest's do: copied in one piece, pipelined in chunks beside the search, or in
  /// chunks within options.memory_budget (and smaller ones where an allocation fails).
  /// \throws kernwerk::invalid_argument naming the argument, before any output is written, as
  /// kernwerk::nearest does; kernwerk::out_of_memory where even the smallest chunks fail.
  template <class Queries, class Indices, class Distances>
  void nearest(const ExecutionSpace& space, const Queries& queries, const Indices& indices,
               const Distances& distances, const query_options& options = {}) const {
    impl::require_output_views<Indices, Distances>();
    const std::string fn = name_ + "::nearest";
    impl::scoped_region region("kernwerk::spatial_index::nearest");
    check_query_shape(fn.c_str(), queries, false);
    const std::size_t n = queries.extent(0);
    const std::size_t k =
        impl::check_outputs(fn.c_str(), indices, distances, n, size(), queries_name_, points_name_);
    impl::require_disjoint(fn.c_str(), "indices", indices, queries_name_, queries);
    impl::require_disjoint(fn.c_str(), "distances", distances, queries_name_, queries);
    impl::nearest_in_index(space, fn.c_str(), queries_name_, queries, core_,
                           impl::first_rows(indices, n), impl::first_rows(distances, n), int(k),
                           options.memory_budget, options_.units);
  }

  /// Every indexed point within `radius` of every query, in compressed rows, as
  /// kernwerk::within returns them: the neighbours of query i are indices(p) at distances(p)
  /// for p from offsets(i) to offsets(i + 1), by distance, equal distances by index. `offsets`
  /// holds at least n + 1 integers; `indices` and `distances` (managed rank-1 Views) are
  /// reallocated to the neighbours found. `order`: row_order::any leaves the rows unsorted.
  /// \throws kernwerk::invalid_argument naming the argument, before any output is written, as
  /// kernwerk::within does.
  template <class Queries, class Offsets, class Indices, class Distances,
            class = std::enable_if_t<Kokkos::is_view<Distances>::value>>
  void within(const ExecutionSpace& space, const Queries& queries, double radius,
              const Offsets& offsets, Indices& indices, Distances& distances,
              row_order order = row_order::nearest_first) const {
    within_rows(space, queries, radius, offsets, indices, &distances, order);
  }

  /// index::within without the distances.
  template <class Queries, class Offsets, class Indices>
  void within(const ExecutionSpace& space, const Queries& queries, double radius,
              const Offsets& offsets, Indices& indices, row_order order = row_order::nearest_first) const {
    within_rows(space, queries, radius, offsets, indices,
                static_cast<Kokkos::View<double*, typename Indices::memory_space>*>(nullptr), order);
  }

  /// The number of indexed points within `radius` of every query, counts(i) for query i, as
  /// kernwerk::count_within counts them.
  /// \throws kernwerk::invalid_argument naming the argument, before any output is written, as
  /// kernwerk::count_within does.
  template <class Queries, class Counts>
  void count_within(const ExecutionSpace& space, const Queries& queries, double radius,
                    const Counts& counts) const {
    impl::require_integer_output<Counts>();
    const std::string fn = name_ + "::count_within";
    impl::scoped_region region("kernwerk::spatial_index::count_within");
    impl::check_range(fn.c_str(), "radius", radius);
    check_queries(space, fn.c_str(), queries, true);
    const std::size_t n = queries.extent(0);
    impl::require_length_at_least(fn.c_str(), "counts", counts, n, "queries");
    if (size() > static_cast<std::uint64_t>(std::numeric_limits<typename Counts::value_type>::max()))
      throw invalid_argument(fn, "counts",
                             "its value type cannot hold " + std::to_string(size()) + " points");
    impl::require_disjoint(fn.c_str(), "counts", counts, queries_name_, queries);
    const auto queries_here = Kokkos::create_mirror_view_and_copy(memory_space(), queries);
    impl::count_within_index(space, core_, queries_here, radius, counts);
  }

  /// Points indexed.
  std::size_t size() const { return std::size_t(core_.bvh.size); }
  /// Coordinates per point.
  int dimension() const { return core_.dimension; }
  /// Bytes of the execution space's memory the index holds.
  std::size_t bytes() const { return memory_.extent(0); }
  /// The options it was built with.
  const index_options& options() const { return options_; }

 protected:
  /// The index of a caller that names itself `fn` and its points `points_name` in messages
  /// (kernwerk::sphere_index), refusing an empty set unless `may_be_empty`.
  template <class Points>
  spatial_index(const ExecutionSpace& space, const Points& points, const index_options& options,
                const char* fn, const char* points_name, bool may_be_empty)
      : options_(options), name_(fn) {
    static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                  "kernwerk::spatial_index: the first argument must be a Kokkos execution space");
    impl::require_point_view<Points>();
    impl::scoped_region region("kernwerk::spatial_index::build");
    impl::check_sphere_options(fn, options.units, options.radius, options.metric);
    impl::check_point_shape(fn, points_name, points, options.metric, may_be_empty);
    if (points.extent(0) > std::size_t(std::numeric_limits<int>::max()))
      throw invalid_argument(fn, points_name, "more than 2^31 - 1 points");
    const auto here = Kokkos::create_mirror_view_and_copy(memory_space(), points);
    const auto m = static_cast<std::int64_t>(points.extent(0));
    const impl::index_metric metric = impl::index_metric_of(options);
    using core_type = impl::index_core<memory_space>;
    const std::size_t keep_bytes = core_type::template keep_bytes<ExecutionSpace>(metric, m, true);
    const std::size_t build_bytes = core_type::build_bytes(space, metric, m, true);
    memory_ = impl::recycled_buffer<memory_space>::take(keep_bytes, std::string("kernwerk::") + fn);
    impl::carver keep(memory_.data(), keep_bytes);
    impl::workspace<memory_space> scratch_memory(build_bytes);
    impl::carver scratch(scratch_memory.template take<char>(build_bytes), build_bytes);
    // The build checks the values on its way (a check of its own would be a wait of its own).
    const impl::coordinate_limits limits =
        impl::point_limits<typename Points::non_const_value_type>(options.metric, options.units);
    std::int64_t invalid = -1;
    core_ = impl::build_index(space, here, metric, true, keep, scratch, &limits, &invalid);
    if (invalid >= 0)
      throw impl::invalid_point_error(fn, points_name, points, invalid, options.metric, options.units);
  }

  /// The name queries go by in messages ("observations" for kernwerk::sphere_index).
  const char* queries_name_ = "queries";
  /// The name the indexed points go by in messages ("references" for kernwerk::sphere_index).
  const char* points_name_ = "points";

 private:
  // The queries' shape against the index.
  template <class Queries>
  void check_query_shape(const char* fn, const Queries& queries, bool may_be_empty) const {
    impl::require_point_view<Queries>();
    impl::check_point_shape(fn, queries_name_, queries, options_.metric, may_be_empty);
    impl::require_same_dimension(fn, queries_name_, queries.extent(1), "the index's points",
                                 std::size_t(dimension()));
  }
  // Their shape and values.
  template <class Queries>
  void check_queries(const ExecutionSpace& space, const char* fn, const Queries& queries,
                     bool may_be_empty) const {
    check_query_shape(fn, queries, may_be_empty);
    impl::check_point_values(space, fn, queries_name_, queries, options_.metric, options_.units);
  }

  template <class Queries, class Offsets, class Indices, class Distances>
  void within_rows(const ExecutionSpace& space, const Queries& queries, double radius,
                   const Offsets& offsets, Indices& indices, Distances* distances, row_order order) const {
    impl::require_within_outputs<Offsets, Indices, Distances>();
    const std::string fn = name_ + "::within";
    impl::scoped_region region("kernwerk::spatial_index::within");
    impl::check_range(fn.c_str(), "radius", radius);
    check_queries(space, fn.c_str(), queries, true);
    const std::size_t n = queries.extent(0);
    impl::require_length_at_least(fn.c_str(), "offsets", offsets, n + 1, "queries + 1");
    impl::check_index_type<typename Indices::value_type>(fn.c_str(), size());
    impl::require_disjoint(fn.c_str(), "offsets", offsets, queries_name_, queries);
    const auto queries_here = Kokkos::create_mirror_view_and_copy(memory_space(), queries);
    impl::within_index(space, fn.c_str(), core_, queries_here, radius, offsets, indices, distances, order);
  }

  template <class>
  friend class mpi::distributed_index;  // runs the search of its share for keys (core_)

  index_options options_;
  std::string name_;  // in messages
  Kokkos::View<char*, memory_space> memory_;
  impl::index_core<memory_space> core_;
};

}  // namespace kernwerk
