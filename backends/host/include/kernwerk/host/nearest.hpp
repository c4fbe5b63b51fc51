#pragma once
// Tuned host nearest neighbours on the sphere (haversine, k = 1 to 32) for Kokkos' Serial and
// OpenMP spaces: blocks of observations go through a vectorised float32 scan of the centred
// reference unit vectors (kernwerk/host/sphere_scan.hpp), which keeps per observation the
// references within the float32 margin of its k-th best value; the generic rule
// (kernwerk/impl/nearest/brute_force.hpp: float64 chords, then haversine keys, equal keys by index)
// picks the k nearest among them. Where that short list grows too long (a cluster tighter than
// float32 resolves, seen from afar; a point repeated many times) the observation takes the
// generic float64 scan over every reference. The result equals the generic path's, bit for bit.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "kernwerk/host/sphere_scan.hpp"
#include "kernwerk/impl/geometry/centred_values.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/nearest/checks.hpp"
#include "kernwerk/impl/nearest/tuned.hpp"
#include "kernwerk/impl/nearest/brute_force.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::host_impl {

constexpr int block = 64;  // observations per scan call

// The centred float32 columns d = v - c (NaN padding past the references, which no comparison
// passes) and the spread, a bound on every |d|.
template <class Prepared>
struct centred_columns {
  Prepared prepared;
  double cx, cy, cz;
  float *x, *y, *z;
  std::int64_t count;
  KOKKOS_FUNCTION void operator()(const std::int64_t j, float& spread) const {
    if (j < count) {
      const double dx = prepared(j, impl::column_x) - cx, dy = prepared(j, impl::column_y) - cy,
                   dz = prepared(j, impl::column_z) - cz;
      x[j] = static_cast<float>(dx), y[j] = static_cast<float>(dy), z[j] = static_cast<float>(dz);
      spread = std::fmax(spread, static_cast<float>(std::sqrt(dx * dx + dy * dy + dz * dz) *
                                                      (1.0 + 1e-6)));
    } else {
      x[j] = y[j] = z[j] = std::numeric_limits<float>::quiet_NaN();
    }
  }
};

// The float64 decision of one block's observations, over the candidates the float32 scan
// visits: the generic rule on a short list.
template <class Metric, int Capacity>
struct decided_rows {
  const Metric& metric;
  std::int64_t first;  // the block's first observation
  int k;
  typename Metric::point o[block];
  std::optional<impl::neighbour_list<Capacity>> list[block];

  static void visit(void* context, int p, const std::int32_t* references, int count) {
    auto& rows = *static_cast<decided_rows*>(context);
    rows.o[p] = rows.metric.observation(rows.first + p);
    auto& list = rows.list[p].emplace(rows.k, Metric::margin);
    const impl::key_evaluator<Metric> keys{rows.metric, rows.o[p]};
    for (int e = 0; e < count; ++e)
      impl::consider(keys, rows.metric.chord(rows.o[p], references[e]), references[e], list);
  }
};

template <class Metric, int Capacity, class Output>
struct scan_blocks {
  Metric metric;
  Output output;
  host::centred_references_f32 references;
  std::int64_t observation_count;
  int k;

  void operator()(const std::int64_t b) const {
    const std::int64_t first = b * block;
    const int count = int(std::min<std::int64_t>(block, observation_count - first));
    float units[block][3];
    for (int p = 0; p < count; ++p) {
      const auto o = metric.observation(first + p);
      units[p][0] = float(o.x), units[p][1] = float(o.y), units[p][2] = float(o.z);
    }
    bool too_many[block];
    decided_rows<Metric, Capacity> rows{metric, first, k, {}, {}};
    host::scan_sphere_f32(references, units, count, k, too_many,
                          decided_rows<Metric, Capacity>::visit, &rows);
    for (int p = 0; p < count; ++p) {
      const std::int64_t i = first + p;
      if (too_many[p])
        impl::brute_force<Metric, Capacity, Output, impl::list_memory<Capacity, Kokkos::HostSpace>>{
            metric, output, references.count, k, {}, 0}(i);
      else
        impl::write_list(impl::key_evaluator<Metric>{metric, rows.o[p]}, output, i, *rows.list[p]);
    }
  }
};

template <class ExecutionSpace>
struct nearest_host_tuned {
  static constexpr bool available = true;
  static bool covers(metric_kind metric, int k) {
    return metric == metric_kind::haversine && k >= 1 && k <= host::most_neighbours;
  }
  static_assert(host::most_neighbours == impl::local_list_capacity, "the scan covers every local list");

  template <class Observations, class References, class Output>
  static void run(const ExecutionSpace& space, const Observations& observations,
                  const References& references, const Output& output, int k, double scale,
                  double radius) {
    using memory_space = typename ExecutionSpace::memory_space;
    using policy = impl::index_policy<ExecutionSpace>;
    const std::int64_t n = observations.extent(0), m = references.extent(0);
    const std::int64_t padded = (m + 15) / 16 * 16;  // whole vectors of 8 or 16
    using scratch = impl::workspace<memory_space>;
    scratch buffers(impl::sphere_points_bytes<memory_space>(m) +
                    3 * scratch::template bytes_for<float>(padded));
    const auto prepared = impl::prepare_sphere_references(space, references, scale, buffers);
    float* x = buffers.template take<float>(padded);
    float* y = buffers.template take<float>(padded);
    float* z = buffers.template take<float>(padded);
    space.fence();
    double c[3] = {0.0, 0.0, 0.0};  // the mean, in a fixed order (the same scan every call)
    for (std::int64_t j = 0; j < m; ++j)
      for (int d = 0; d < 3; ++d) c[d] += prepared(j, impl::column_x + d);
    for (double& value : c) value /= double(m);
    float spread = 0.0f;
    Kokkos::parallel_reduce("kernwerk::nearest::host_centred", policy(space, 0, padded),
                            centred_columns<std::remove_const_t<decltype(prepared)>>{
                                prepared, c[0], c[1], c[2], x, y, z, m},
                            Kokkos::Max<float>(spread));
    const host::centred_references_f32 centred{x, y, z, m, impl::centred_value_margin(spread)};
    using metric = impl::sphere_metric<Observations, std::remove_const_t<decltype(prepared)>>;
    impl::with_capacity(k, [&](auto capacity) {
      Kokkos::parallel_for(
          "kernwerk::nearest::host_tuned", policy(space, 0, (n + block - 1) / block),
          scan_blocks<metric, decltype(capacity)::value, Output>{
              metric{observations, prepared, scale, radius}, output, centred, n, k});
    });
    space.fence();  // before the workspace is released
  }
};

}  // namespace kernwerk::host_impl

namespace kernwerk::impl {
#ifdef KOKKOS_ENABLE_SERIAL
template <>
struct nearest_tuned<Kokkos::Serial> : host_impl::nearest_host_tuned<Kokkos::Serial> {};
#endif
#ifdef KOKKOS_ENABLE_OPENMP
template <>
struct nearest_tuned<Kokkos::OpenMP> : host_impl::nearest_host_tuned<Kokkos::OpenMP> {};
#endif
}  // namespace kernwerk::impl
