#pragma once
// Tuned host nearest neighbours on the sphere (haversine, k = 1 to 32) for Kokkos' Serial and
// OpenMP spaces: blocks of observations go through a vectorised float32 scan of the centred
// reference unit vectors (kernwerk/host/sphere_scan.hpp), which keeps per observation the
// references within the float32 margin of its k-th best value; the generic rule
// (kernwerk/impl/nearest/brute_force.hpp: float64 chords, then haversine keys, equal keys by index)
// picks the k nearest among them. Where that short list grows too long (a cluster tighter than
// float32 resolves; a point repeated many times) the observation is left unsettled, and the
// unsettled ones go afterwards to an index of the references built for them (or, where they are
// few, to the generic float64 scan over every reference). The result equals the generic path's,
// bit for bit.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "kernwerk/host/sphere_scan.hpp"
#include "kernwerk/impl/geometry/centred_values.hpp"
#include "kernwerk/impl/index/point_bvh.hpp"  // morton_frame
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/nearest/checks.hpp"
#include "kernwerk/impl/nearest/tuned.hpp"
#include "kernwerk/impl/nearest/brute_force.hpp"
#include "kernwerk/impl/nearest/indexed.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::host_impl {

constexpr int block = 64;  // observations per scan call

// Whether scans start in windows (kernwerk_bench_nearest --host-windows 0 turns them off).
struct window_policy {
  static inline bool enabled = true;
};

// The references in Morton order in the cube around the sphere: an observation's scan starts
// with the references around its own code (host::scan_sphere_f32's windows).
struct curve_order {
  static constexpr impl::morton_frame frame{{-1.0, -1.0, -1.0}, double(1 << 21) / 2.0, 21};
  const std::uint64_t* codes;      // of each reference
  const std::int32_t* reference;  // the reference at each place, by code
  std::int64_t count;
  std::int64_t padded;
  int window;

  // The first place of the window around unit vector (x, y, z).
  std::int64_t window_start(double x, double y, double z) const {
    const std::uint64_t code = frame.code(x, y, z);
    std::int64_t low = 0, high = count;  // the first place whose code is at least the code
    while (low < high) {
      const std::int64_t middle = low + (high - low) / 2;
      if (codes[reference[middle]] < code) low = middle + 1;
      else high = middle;
    }
    return std::clamp<std::int64_t>((low - window / 2) / 16 * 16, 0, padded - window);
  }
};

// The centred float32 columns d = v - c (NaN padding past the references, which no comparison
// passes) and the spread, a bound on every |d|.
// Place j holds reference order[j] (j without an order).
template <class Prepared>
struct centred_columns {
  Prepared prepared;
  double cx, cy, cz;
  float *x, *y, *z;
  std::int64_t count;
  const std::int32_t* order;
  KOKKOS_FUNCTION void operator()(const std::int64_t j, float& spread) const {
    if (j < count) {
      const std::int64_t r = order ? order[j] : j;
      const double dx = prepared(r, impl::column_x) - cx, dy = prepared(r, impl::column_y) - cy,
                   dz = prepared(r, impl::column_z) - cz;
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
  const std::int32_t* order;  // the reference at each place the scan lists, or none
  typename Metric::point o[block];
  std::optional<impl::list_for<Capacity, Metric>> list[block];

  static void visit(void* context, int p, const std::int32_t* places, int count) {
    auto& rows = *static_cast<decided_rows*>(context);
    rows.o[p] = rows.metric.observation(rows.first + p);
    auto& list = rows.list[p].emplace(rows.k, Metric::margin);
    const impl::key_evaluator<Metric> keys{rows.metric, rows.o[p]};
    for (int e = 0; e < count; ++e) {
      const std::int64_t j = rows.order ? rows.order[places[e]] : places[e];
      impl::consider(keys, rows.metric.chord(rows.o[p], j), j, list);
    }
  }
};

template <class Metric, int Capacity, class Output>
struct scan_blocks {
  Metric metric;
  Output output;
  host::centred_references_f32 references;
  std::int64_t observation_count;
  int k;
  const curve_order* curve;  // or none: every scan from afar
  std::uint64_t* unsettled;  // per block, the observations whose short list grew too long

  void operator()(const std::int64_t b) const {
    const std::int64_t first = b * block;
    const int count = int(std::min<std::int64_t>(block, observation_count - first));
    float units[block][3];
    std::int64_t windows[block];
    for (int p = 0; p < count; ++p) {
      const auto o = metric.observation(first + p);
      units[p][0] = float(o.x), units[p][1] = float(o.y), units[p][2] = float(o.z);
      if (curve) windows[p] = curve->window_start(o.x, o.y, o.z);
    }
    bool too_many[block];
    decided_rows<Metric, Capacity> rows{metric, first, k, curve ? curve->reference : nullptr,
                                        {}, {}};
    host::scan_sphere_f32(references, units, count, k, too_many,
                          decided_rows<Metric, Capacity>::visit, &rows, curve ? windows : nullptr,
                          curve ? curve->window : 0);
    std::uint64_t left = 0;
    for (int p = 0; p < count; ++p) {
      if (too_many[p]) left |= std::uint64_t(1) << p;
      else
        impl::write_list(impl::key_evaluator<Metric>{metric, rows.o[p]}, output, first + p,
                         *rows.list[p]);
    }
    unsettled[b] = left;
  }
};

// The unsettled observations' searches: from `index_from` of them, an index of the references,
// whose build costs 20 to 200 float64 scans over them from 2^13 to 2^20 references
// (kernwerk_bench_nearest --variants build,generic on the 2-core host, loaded).
constexpr std::int64_t index_from = 64;
struct listed_purpose;

// The float64 scan of each listed observation.
template <class Scan, class Listed>
struct listed_scans {
  Scan scan;
  Listed listed;
  void operator()(const std::int64_t t) const { scan(listed(t)); }
};

// `metric` holds the observations, the prepared references, the scale and the radius; the index
// is built from `references` themselves.
template <class ExecutionSpace, class Metric, class References, class Output>
void settle(const ExecutionSpace& space, const Metric& metric, const References& references,
            const Output& output, int k, const std::uint64_t* unsettled, std::int64_t blocks) {
  std::int64_t count = 0;
  for (std::int64_t b = 0; b < blocks; ++b) count += __builtin_popcountll(unsettled[b]);
  if (count == 0) return;
  using memory_space = typename ExecutionSpace::memory_space;
  impl::workspace<memory_space, listed_purpose> memory(
      impl::workspace<memory_space>::template bytes_for<std::int64_t>(count));
  const Kokkos::View<std::int64_t*, memory_space, Kokkos::MemoryUnmanaged> listed(
      memory.template take<std::int64_t>(count), count);
  for (std::int64_t b = 0, t = 0; b < blocks; ++b)
    for (std::uint64_t left = unsettled[b]; left; left &= left - 1)
      listed(t++) = b * block + __builtin_ctzll(left);
  if (count >= index_from) {
    impl::nearest_listed(space, metric.observations, references, output, k, metric.scale,
                         metric.radius, listed);
  } else {
    const std::int64_t m = references.extent(0);
    impl::with_capacity(k, [&](auto capacity) {
      constexpr int Capacity = decltype(capacity)::value;
      using lists = impl::list_memory<Capacity, memory_space>;
      using scan = impl::brute_force<Metric, Capacity, Output, lists>;
      Kokkos::parallel_for(
          "kernwerk::nearest::host_unsettled", impl::balanced_policy<ExecutionSpace>(space, 0, count),
          listed_scans<scan, decltype(listed)>{{metric, output, m, k, {}, 0}, listed});
    });
  }
  space.fence();  // before the list and the index go
}

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
    // Where the scans from afar would pass many limits, the references go along the curve: from
    // k = 4 (at k = 2 the windows cost some 10 % on references in one cap far from most
    // observations, and at k = 1 the limits are too few to repay them;
    // perf/results/issue46-host-windows-epyc-2core.json), and where the observations are enough
    // to repay the references' sort.
    const bool along_curve = window_policy::enabled && k >= 4 && n * k >= m;
    using scratch = impl::workspace<memory_space>;
    const std::int64_t blocks = (n + block - 1) / block;
    scratch buffers(impl::sphere_points_bytes<memory_space>(m) +
                    3 * scratch::template bytes_for<float>(padded) +
                    scratch::template bytes_for<std::uint64_t>(blocks) +
                    (along_curve ? scratch::template bytes_for<std::uint64_t>(m) +
                                       scratch::template bytes_for<std::int32_t>(m)
                                 : 0));
    const auto prepared = impl::prepare_sphere_references(space, references, scale, buffers);
    float* x = buffers.template take<float>(padded);
    float* y = buffers.template take<float>(padded);
    float* z = buffers.template take<float>(padded);
    std::uint64_t* unsettled = buffers.template take<std::uint64_t>(blocks);
    space.fence();
    double c[3] = {0.0, 0.0, 0.0};  // the mean, in a fixed order (the same scan every call)
    for (std::int64_t j = 0; j < m; ++j)
      for (int d = 0; d < 3; ++d) c[d] += prepared(j, impl::column_x + d);
    for (double& value : c) value /= double(m);
    std::optional<curve_order> curve;
    if (along_curve) {
      std::uint64_t* codes = buffers.template take<std::uint64_t>(m);
      std::int32_t* reference = buffers.template take<std::int32_t>(m);
      for (std::int64_t j = 0; j < m; ++j) {
        codes[j] = curve_order::frame.code(prepared(j, impl::column_x), prepared(j, impl::column_y),
                                           prepared(j, impl::column_z));
        reference[j] = std::int32_t(j);
      }
      std::sort(reference, reference + m,
                [&](std::int32_t a, std::int32_t b) { return codes[a] < codes[b]; });
      curve = curve_order{codes, reference, m, padded,
                          int(std::min<std::int64_t>(host::window_for(k), padded))};
    }
    float spread = 0.0f;
    Kokkos::parallel_reduce("kernwerk::nearest::host_centred", policy(space, 0, padded),
                            centred_columns<std::remove_const_t<decltype(prepared)>>{
                                prepared, c[0], c[1], c[2], x, y, z, m,
                                curve ? curve->reference : nullptr},
                            Kokkos::Max<float>(spread));
    const host::centred_references_f32 centred{x, y, z, m, impl::centred_value_margin(spread)};
    using metric = impl::sphere_metric<Observations, std::remove_const_t<decltype(prepared)>>;
    const metric sphere{observations, prepared, scale, radius};
    impl::with_capacity(k, [&](auto capacity) {
      // (blocks of clustered observations cost more: chunks handed out as threads finish)
      Kokkos::parallel_for("kernwerk::nearest::host_tuned",
                           impl::balanced_policy<ExecutionSpace>(space, 0, blocks),
                           scan_blocks<metric, decltype(capacity)::value, Output>{
                               sphere, output, centred, n, k, curve ? &*curve : nullptr,
                               unsettled});
    });
    space.fence();
    settle(space, sphere, references, output, k, unsettled, blocks);
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
