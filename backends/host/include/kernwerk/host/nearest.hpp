#pragma once
// Tuned host nearest neighbour on the sphere (haversine, k = 1) for Kokkos' Serial and OpenMP
// spaces: blocks of observations go through a vectorised float32 scan of the reference unit
// vectors (kernwerk/host/sphere_scan.hpp). An observation whose float32 winner is unambiguous
// has the exact float64 winner; the others (duplicates, near ties) are rescanned in float64 by
// the generic rule. The result equals the generic path's, bit for bit.
#include <Kokkos_Core.hpp>

#include <cstdint>
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
    unsigned char ambiguous[block];
    host::scan_sphere_f32(references, units, count, best, ambiguous);
    for (int p = 0; p < count; ++p) {
      const std::int64_t i = first + p;
      if (ambiguous[p]) {  // float64, every reference, the generic rule
        const auto references_count = static_cast<std::int64_t>(metric.references.extent(0));
        impl::brute_force<Metric, 1, Output>{metric, output, references_count, 1}(i);
      } else {
        output.write(i, 0, best[p], metric.key(metric.observation(i), best[p]), metric);
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
