#pragma once
// The one spatial index of every search: a point_bvh over points on the sphere (unit vectors
// of (lat, lon), with the grid's first stage for k-nearest searches) or in 2-D/3-D (the
// coordinates themselves), with the metric's constants. kernwerk::spatial_index owns one; the one-shot
// calls (nearest's indexed method, within, count_within, dbscan) build one per call in a
// workspace (scoped_index). The searches over it are in nearest/indexed.hpp (k nearest) and
// neighbourhood/radius_search.hpp (within a range).
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

#include "kernwerk/impl/index/point_bvh.hpp"
#include "kernwerk/impl/packed_rows.hpp"
#include "kernwerk/impl/workspace.hpp"
#include "kernwerk/index_options.hpp"

namespace kernwerk::impl {

inline double radians_per_unit(angle_unit units) {
  return units == angle_unit::degrees ? 3.14159265358979323846 / 180.0 : 1.0;
}

// The metric of an index: haversine on (lat, lon) in units of `scale` radians, distances in
// radians times sphere_radius; or Euclidean on 2 or 3 coordinates.
struct index_metric {
  metric_kind metric = metric_kind::haversine;
  double scale = 1.0;
  double sphere_radius = 1.0;
  bool sphere() const { return metric == metric_kind::haversine; }
};

inline index_metric index_metric_of(const index_options& options) {
  return {options.metric, radians_per_unit(options.units), options.radius};
}

template <class MemorySpace>
struct index_core {
  point_bvh<MemorySpace> bvh;  // empty (size 0) for an empty set
  index_metric metric;
  int dimension = 2;  // coordinates per point

  // Memory an index over m points keeps (with_grid: the sphere's first stage of k-nearest
  // searches), and what its construction borrows.
  template <class ExecutionSpace>
  static std::size_t keep_bytes(const index_metric& metric, std::int64_t m, bool with_grid) {
    return m == 0 ? 0
                  : point_bvh<MemorySpace>::bytes(m, bvh_policy::leaf_size_for<ExecutionSpace>(),
                                                  metric.sphere() && with_grid);
  }
  template <class ExecutionSpace>
  static std::size_t build_bytes(const ExecutionSpace& space, const index_metric& metric,
                                 std::int64_t m, bool with_grid) {
    return m == 0 ? 0
                  : point_bvh<MemorySpace>::template build_bytes<ExecutionSpace>(
                        m, space.concurrency(), metric.sphere() && with_grid);
  }
};

// build_index on packed rows: the library compiles it once per execution space and value type
// (impl/nearest/instances.hpp).
template <class ExecutionSpace, class Points>
index_core<typename ExecutionSpace::memory_space> build_packed_index(
    const ExecutionSpace& space, const Points& points, const index_metric& metric, bool with_grid,
    carver& keep, carver& scratch, const coordinate_limits* limits, std::int64_t* first_invalid) {
  index_core<typename ExecutionSpace::memory_space> core;
  core.metric = metric;
  core.dimension = int(points.extent(1));
  if (first_invalid) *first_invalid = -1;
  if (points.extent(0) == 0) return core;  // an empty index: every search finds nothing
  const int leaf = bvh_policy::leaf_size_for<ExecutionSpace>();
  core.bvh = metric.sphere() ? build_sphere_bvh(space, points, metric.scale, leaf, keep, scratch,
                                                with_grid, limits, first_invalid)
                             : build_euclidean_bvh(space, points, leaf, keep, scratch, limits,
                                                   first_invalid);
  return core;
}

// Builds the index over `points` (rank 2, in the execution space's reach; rows that are not
// packed through a packed copy) into memory carved from `keep`, borrowing `scratch`
// (index_core's keep_bytes and build_bytes). With `limits`, the build checks the points'
// coordinates on the way, and *first_invalid is the first row they refuse (-1: none); the index
// is then not to be used.
template <class ExecutionSpace, class Points>
index_core<typename ExecutionSpace::memory_space> build_index(
    const ExecutionSpace& space, const Points& points, const index_metric& metric, bool with_grid,
    carver& keep, carver& scratch, const coordinate_limits* limits = nullptr,
    std::int64_t* first_invalid = nullptr) {
  const packed_rows<Points> rows(space, points, true);
  const auto core = build_packed_index(
      space,
      method_points<typename Points::non_const_value_type, typename Points::memory_space>(rows.rows),
      metric, with_grid, keep, scratch, limits, first_invalid);
  if (rows.copied()) space.fence();  // before the copy goes
  return core;
}

// An index for the length of one call, with the sphere's grid only where asked (a radius
// search that scans it: radius_policy::wants_grid), in a workspace of its own (the one-shot
// calls: device allocations cost more than their searches), which it holds until it goes.
struct scoped_index_purpose;
template <class ExecutionSpace>
class scoped_index {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using core_type = index_core<memory_space>;

  template <class Points>
  scoped_index(const ExecutionSpace& space, const Points& points, const index_metric& metric,
               bool with_grid = false)
      : scoped_index(space, points, metric, with_grid,
                     core_type::template keep_bytes<ExecutionSpace>(metric, points.extent(0), with_grid),
                     core_type::build_bytes(space, metric, points.extent(0), with_grid)) {}

  const core_type& core() const { return core_; }

 private:
  template <class Points>
  scoped_index(const ExecutionSpace& space, const Points& points, const index_metric& metric,
               bool with_grid, std::size_t keep_bytes, std::size_t build_bytes)
      : memory_(keep_bytes + build_bytes) {
    carver keep(memory_.template take<char>(keep_bytes), keep_bytes);
    carver scratch(memory_.template take<char>(build_bytes), build_bytes);
    core_ = build_index(space, points, metric, with_grid, keep, scratch);
  }

  workspace<memory_space, scoped_index_purpose> memory_;
  core_type core_;
};

}  // namespace kernwerk::impl
