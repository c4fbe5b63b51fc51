#pragma once
// The portable implementation of kernwerk::nearest: one thread per observation, a float64 scan
// over all reference points, keeping the k best in a neighbour_list. Candidates are filtered by
// the metric's chord and ordered by its float64 key (geometry/metrics.hpp), equal keys by index.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "kernwerk/impl/geometry/metrics.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/nearest/neighbour_list.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::impl {

template <class Metric, int Capacity, class Output>
struct brute_force {
  Metric metric;
  Output output;
  std::int64_t reference_count;
  int k;

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    const auto o = metric.observation(i);
    const key_evaluator<Metric> keys{metric, o};
    neighbour_list<Capacity> list(k, Metric::margin);
    for (std::int64_t j = 0; j < reference_count; ++j)
      consider(keys, metric.chord(o, j), j, list);
    write_list(keys, output, i, list);
  }
};

// Calls run(std::integral_constant<int, Capacity>) with the smallest capacity that holds k.
template <class Run>
void with_capacity(int k, Run&& run) {
  if (k == 1) run(std::integral_constant<int, 1>());
  else if (k <= 4) run(std::integral_constant<int, 4>());
  else if (k <= 16) run(std::integral_constant<int, 16>());
  else run(std::integral_constant<int, 32>());
}

template <class ExecutionSpace, class Metric, class Output>
void run_brute_force(const ExecutionSpace& space, const Metric& metric, const Output& output,
                     std::int64_t observation_count, std::int64_t reference_count, int k) {
  with_capacity(k, [&](auto capacity) {
    Kokkos::parallel_for(
        "kernwerk::nearest::generic_brute_force",
        index_policy<ExecutionSpace>(space, 0,
                                                                             observation_count),
        brute_force<Metric, decltype(capacity)::value, Output>{metric, output, reference_count, k});
  });
}

// Runs the generic scan. All Views are accessible from `space` and the arguments are checked.
template <class ExecutionSpace, class Observations, class References, class Output>
void nearest_generic(const ExecutionSpace& space, const Observations& observations,
                     const References& references, const Output& output, int k,
                     bool haversine_metric, double scale, double radius) {
  const auto n = static_cast<std::int64_t>(observations.extent(0));
  const auto m = static_cast<std::int64_t>(references.extent(0));
  if (haversine_metric) {
    using memory_space = typename ExecutionSpace::memory_space;
    workspace<memory_space> scratch(sphere_points_bytes<memory_space>(m));
    const auto prepared = prepare_sphere_references(space, references, scale, scratch);
    using metric = sphere_metric<Observations, std::remove_const_t<decltype(prepared)>>;
    run_brute_force(space, metric{observations, prepared, scale, radius}, output, n, m, k);
    space.fence();  // before the workspace is released
  } else if (observations.extent(1) == 2) {
    run_brute_force(space, euclidean_metric<2, Observations, References>{observations, references},
                    output, n, m, k);
  } else {
    run_brute_force(space, euclidean_metric<3, Observations, References>{observations, references},
                    output, n, m, k);
  }
}

}  // namespace kernwerk::impl
