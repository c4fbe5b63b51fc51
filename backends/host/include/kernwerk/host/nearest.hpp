#pragma once
// Tuned host nearest neighbour on the sphere (haversine, k = 1) for Kokkos' Serial and OpenMP
// spaces: blocks of observations go through a vectorised float32 scan of the reference unit
// vectors (kernwerk/host/sphere_scan.hpp). An observation whose float32 winner is unambiguous
// has the exact float64 winner; the others (duplicates, near ties) are decided by the generic
// rule in float64 over the short list the scan kept, the references within the float32 margin
// of the best chord, or over every reference where that list was long (a cluster tighter than
// float32 resolves, seen from afar). The result equals the generic path's, bit for bit.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <optional>
#include <type_traits>

#include "kernwerk/host/sphere_scan.hpp"
#include "kernwerk/impl/nearest_dispatch.hpp"
#include "kernwerk/impl/nearest_generic.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::host_impl {

constexpr int block = 64;  // observations per scan call

template <class Prepared>
struct to_float_columns {
  Prepared prepared;
  float *x, *y, *z;
  std::int64_t count;
  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    if (j < count) {
      x[j] = static_cast<float>(prepared(j, impl::column_x));
      y[j] = static_cast<float>(prepared(j, impl::column_y));
      z[j] = static_cast<float>(prepared(j, impl::column_z));
    } else {  // padding: a point far off the sphere never wins
      x[j] = y[j] = z[j] = 1.0e18f;
    }
  }
};

// The float64 decision of the ambiguous observations of one block, over the candidates the
// float32 scan visits: the generic rule (kernwerk/impl/nearest_generic.hpp) on a short list.
template <class Metric>
struct ambiguous_rows {
  const Metric& metric;
  std::int64_t first;  // the block's first observation
  typename Metric::point o[block];
  std::optional<impl::neighbour_list<1>> list[block];

  static void visit(void* context, int p, std::int64_t j) {
    auto& rows = *static_cast<ambiguous_rows*>(context);
    if (!rows.list[p]) {
      rows.o[p] = rows.metric.observation(rows.first + p);
      rows.list[p].emplace(1, Metric::margin);
    }
    const impl::key_evaluator<Metric> keys{rows.metric, rows.o[p]};
    impl::consider(keys, rows.metric.chord(rows.o[p], j), j, *rows.list[p]);
  }
};

template <class Metric, class Output>
struct scan_blocks {
  Metric metric;
  Output output;
  host::sphere_references_f32 references;
  std::int64_t observation_count;

  void operator()(const std::int64_t b) const {
    const std::int64_t first = b * block;
    const int count = int(std::min<std::int64_t>(block, observation_count - first));
    float units[block][3];
    for (int p = 0; p < count; ++p) {
      const auto o = metric.observation(first + p);
      units[p][0] = float(o.x), units[p][1] = float(o.y), units[p][2] = float(o.z);
    }
    std::int64_t best[block];
    ambiguous_rows<Metric> rows{metric, first, {}, {}};
    host::scan_sphere_f32(references, units, count, best, ambiguous_rows<Metric>::visit, &rows);
    for (int p = 0; p < count; ++p) {
      const std::int64_t i = first + p;
      if (best[p] >= 0) {
        output.write(i, 0, best[p], metric.key(metric.observation(i), best[p]), metric);
      } else if (best[p] == host::too_many_candidates) {
        const auto references_count = static_cast<std::int64_t>(metric.references.extent(0));
        impl::brute_force<Metric, 1, Output>{metric, output, references_count, 1}(i);
      } else {
        impl::write_list(impl::key_evaluator<Metric>{metric, rows.o[p]}, output, i, *rows.list[p]);
      }
    }
  }
};

template <class ExecutionSpace>
struct nearest_host_tuned {
  static constexpr bool available = true;
  static bool covers(metric_kind metric, int k) {
    return metric == metric_kind::haversine && k == 1;
  }

  template <class Observations, class References, class Output>
  static void run(const ExecutionSpace& space, const Observations& observations,
                  const References& references, const Output& output, double scale,
                  double radius) {
    using memory_space = typename ExecutionSpace::memory_space;
    using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
    const std::int64_t n = observations.extent(0), m = references.extent(0);
    const std::int64_t padded = (m + 15) / 16 * 16;  // whole vectors of 8 or 16
    using scratch = impl::workspace<memory_space>;
    scratch buffers(impl::sphere_points_bytes<memory_space>(m) +
                    3 * scratch::template bytes_for<float>(padded));
    const auto prepared = impl::prepare_sphere_references(space, references, scale, buffers);
    float* x = buffers.template take<float>(padded);
    float* y = buffers.template take<float>(padded);
    float* z = buffers.template take<float>(padded);
    Kokkos::parallel_for("kernwerk::nearest::host_columns", policy(space, 0, padded),
                         to_float_columns<std::remove_const_t<decltype(prepared)>>{
                             prepared, x, y, z, m});
    using metric = impl::sphere_metric<Observations, std::remove_const_t<decltype(prepared)>>;
    Kokkos::parallel_for("kernwerk::nearest::host_tuned", policy(space, 0, (n + block - 1) / block),
                         scan_blocks<metric, Output>{metric{observations, prepared, scale, radius},
                                                     output, {x, y, z, m}, n});
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
