#pragma once
/// \file
/// A reusable index over reference points on the sphere, for many nearest-neighbour queries.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/nearest/indexed.hpp"
#include "kernwerk/impl/nearest/checks.hpp"
#include "kernwerk/impl/nearest/neighbour_list.hpp"
#include "kernwerk/impl/profiling.hpp"
#include "kernwerk/impl/workspace.hpp"
#include "kernwerk/nearest.hpp"  // with the backends' specialisations (the vendor sorts)
#include "kernwerk/nearest_options.hpp"

namespace kernwerk {

/// Options of kernwerk::sphere_index.
struct sphere_index_options {
  angle_unit units = angle_unit::radians;  ///< of references and of every query's observations
  double radius = 1.0;                     ///< distances are radians times this
};

/// A reusable index over reference points on the sphere: built once, queried many times (fixed
/// stations against every time step's observations), like ArborX's BVH or scikit-learn's
/// BallTree. kernwerk::nearest with method_kind::indexed builds the same index per call.
///
/// \code
/// kernwerk::sphere_index index(space, references);         // (lat, lon) rows
/// index.nearest(space, observations, indices, distances);  // k from the outputs' shape
/// \endcode
///
/// Answers are those of kernwerk::nearest: exact in float64, nearest first, ties to the
/// smallest reference index, distances along the sphere in radians times options.radius.
/// The index keeps its own copy of the references in the execution space's memory (about
/// 80 bytes a point), so the caller's View may change or go after construction. Views out of
/// the execution space's reach are copied in for a query (and results copied back).
template <class ExecutionSpace>
class sphere_index {
 public:
  using execution_space = ExecutionSpace;  ///< where the index is built and queried
  using memory_space = typename ExecutionSpace::memory_space;  ///< where the index lives

  /// Builds the index over `references`, a rank-2 View of (latitude, longitude) rows in any
  /// layout and memory space.
  /// \throws kernwerk::invalid_argument naming the argument for an empty set, points that are
  /// not (lat, lon), NaN or infinite coordinates, latitudes past the poles, more than 2^31 - 1
  /// points, a radius that is not positive and finite.
  template <class References>
  sphere_index(const ExecutionSpace& space, const References& references,
               const sphere_index_options& options = {})
      : options_(options) {
    static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                  "kernwerk::sphere_index: the first argument must be a Kokkos execution space");
    impl::require_point_view<References>();
    constexpr const char* fn = "sphere_index";
    impl::scoped_region region("kernwerk::sphere_index::build");
    impl::check_sphere_options(fn, options.units, options.radius, metric_kind::haversine);
    impl::check_point_shape(fn, "references", references, metric_kind::haversine);
    impl::check_reference_count(fn, references.extent(0));
    impl::check_point_values(space, fn, "references", references, metric_kind::haversine,
                             options.units);
    const auto here = Kokkos::create_mirror_view_and_copy(memory_space(), references);
    const auto m = static_cast<std::int64_t>(references.extent(0));
    const int leaf = impl::bvh_policy::leaf_size_for<ExecutionSpace>();
    const std::size_t keep_bytes = impl::point_bvh<memory_space>::bytes(m, leaf);
    const std::size_t build_bytes =
        impl::point_bvh<memory_space>::template build_bytes<ExecutionSpace>(m, space.concurrency());
    memory_ = Kokkos::View<char*, memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kernwerk::sphere_index")),
        keep_bytes);
    impl::carver keep(memory_.data(), keep_bytes);
    impl::workspace<memory_space> scratch_memory(build_bytes);
    impl::carver scratch(scratch_memory.template take<char>(build_bytes), build_bytes);
    bvh_ = impl::build_sphere_bvh(space, here, impl::radians_per_unit(options.units), leaf, keep,
                                  scratch);
  }

  /// Fills indices(i[, q]) and distances(i[, q]) with the k nearest references of every
  /// observation, k = 1 for rank-1 outputs, the column count (1 to 32) of rank-2 ones.
  /// \throws kernwerk::invalid_argument naming the argument, before any output is written, as
  /// kernwerk::nearest does.
  template <class Observations, class Indices, class Distances>
  void nearest(const ExecutionSpace& space, const Observations& observations,
               const Indices& indices, const Distances& distances) const {
    impl::require_point_view<Observations>();
    impl::require_output_views<Indices, Distances>();
    constexpr const char* fn = "sphere_index::nearest";
    impl::scoped_region region("kernwerk::sphere_index::nearest");
    impl::check_point_shape(fn, "observations", observations, metric_kind::haversine);
    const std::size_t n = observations.extent(0);
    const std::size_t k = impl::check_outputs(fn, indices, distances, n, size());
    impl::require_disjoint(fn, "indices", indices, "observations", observations);
    impl::require_disjoint(fn, "distances", distances, "observations", observations);
    impl::check_point_values(space, fn, "observations", observations, metric_kind::haversine,
                             options_.units);

    const auto indices_out = impl::first_rows(indices, n);
    const auto distances_out = impl::first_rows(distances, n);
    const auto observations_here = Kokkos::create_mirror_view_and_copy(memory_space(), observations);
    const auto indices_here = Kokkos::create_mirror_view(memory_space(), indices_out);
    const auto distances_here = Kokkos::create_mirror_view(memory_space(), distances_out);
    using output_type = impl::neighbour_output<std::remove_const_t<decltype(indices_here)>,
                                               std::remove_const_t<decltype(distances_here)>>;
    const std::size_t scratch_bytes = impl::nearest_bvh_query_bytes<memory_space>(
        std::int64_t(n), std::int64_t(bvh_.size), space.concurrency(), nearest_tuning{});
    {
      impl::workspace<memory_space> scratch_memory(scratch_bytes);
      impl::carver scratch(scratch_memory.template take<char>(scratch_bytes), scratch_bytes);
      impl::query_sphere_bvh(space, observations_here, bvh_, output_type{indices_here, distances_here},
                             int(k), impl::radians_per_unit(options_.units), options_.radius,
                             nearest_tuning{}, scratch);
    }
    if (indices_here.data() != indices_out.data()) Kokkos::deep_copy(space, indices_out, indices_here);
    if (distances_here.data() != distances_out.data())
      Kokkos::deep_copy(space, distances_out, distances_here);
    space.fence();
  }

  /// References indexed.
  std::size_t size() const { return std::size_t(bvh_.size); }
  /// Bytes of the execution space's memory the index holds.
  std::size_t bytes() const { return memory_.extent(0); }
  /// The options it was built with.
  const sphere_index_options& options() const { return options_; }

 private:
  sphere_index_options options_;
  Kokkos::View<char*, memory_space> memory_;
  impl::point_bvh<memory_space> bvh_;
};

}  // namespace kernwerk
