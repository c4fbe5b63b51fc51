#pragma once
// The portable implementation of kernwerk::nearest: one thread per observation, a float64 scan
// over all reference points, keeping the k best in a neighbour_list. Candidates are filtered by
// the metric's chord and ordered by its float64 key (geometry/metrics.hpp), equal keys by index.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernwerk/impl/geometry/metrics.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/nearest/neighbour_list.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::impl {

template <class Metric, int Capacity, class Output, class Lists>
struct brute_force {
  Metric metric;
  Output output;
  std::int64_t reference_count;
  int k;
  Lists lists;
  std::int64_t first;  // the observation of the launch's first search (slot 0)

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    const auto o = metric.observation(i);
    const key_evaluator<Metric> keys{metric, o};
    auto list = lists.template list<Metric>(k, i - first);
    for (std::int64_t j = 0; j < reference_count; ++j)
      consider(keys, metric.chord(o, j), j, list);
    write_list(keys, output, i, list);
  }
};

// Calls run(std::integral_constant<int, Capacity>) with the smallest capacity that holds k,
// up to 32.
template <class Run>
void with_capacity(int k, Run&& run) {
  if (k == 1) run(std::integral_constant<int, 1>());
  else if (k <= 4) run(std::integral_constant<int, 4>());
  else if (k <= 16) run(std::integral_constant<int, 16>());
  else run(std::integral_constant<int, 32>());
}

// As with_capacity, and wide_capacity above 32.
template <class Run>
void with_any_capacity(int k, Run&& run) {
  if (k > local_list_capacity) run(std::integral_constant<int, wide_capacity>());
  else with_capacity(k, run);
}

// Calls launch(lists, first, last) over [0, searches): at once where the lists hold their
// entries, else in runs of as many searches as `lent_bytes` hold lists for.
template <int Capacity, class ExecutionSpace, class Launch>
void in_list_runs(const ExecutionSpace& space, std::int64_t searches, int k, std::size_t lent_bytes,
                  Launch&& launch) {
  using memory = list_memory<Capacity, typename ExecutionSpace::memory_space>;
  if constexpr (Capacity != wide_capacity) {
    launch(memory{}, std::int64_t(0), searches);
  } else {
    const std::int64_t run = wide_list_searches(searches, k, lent_bytes);
    const memory lists(run, k);
    for (std::int64_t first = 0; first < searches; first += run)
      launch(lists, first, std::min(searches, first + run));
    space.fence();  // before the lists are freed
  }
}

template <class ExecutionSpace, class Metric, class Output>
void run_brute_force(const ExecutionSpace& space, const Metric& metric, const Output& output,
                     std::int64_t observation_count, std::int64_t reference_count, int k,
                     std::size_t lent_bytes) {
  with_any_capacity(k, [&](auto capacity) {
    constexpr int Capacity = decltype(capacity)::value;
    const auto launch = [&](const auto& lists, std::int64_t first, std::int64_t last) {
      using kernel = brute_force<Metric, Capacity, Output, std::decay_t<decltype(lists)>>;
      Kokkos::parallel_for("kernwerk::nearest::generic_brute_force",
                           index_policy<ExecutionSpace>(space, first, last),
                           kernel{metric, output, reference_count, k, lists, first});
    };
    in_list_runs<Capacity>(space, observation_count, k, lent_bytes, launch);
  });
}

// Runs the generic scan. All Views are accessible from `space` and the arguments are checked.
template <class ExecutionSpace, class Observations, class References, class Output>
void nearest_generic(const ExecutionSpace& space, const Observations& observations,
                     const References& references, const Output& output, int k,
                     bool haversine_metric, double scale, double radius, std::size_t lent_bytes) {
  const auto n = static_cast<std::int64_t>(observations.extent(0));
  const auto m = static_cast<std::int64_t>(references.extent(0));
  if (haversine_metric) {
    using memory_space = typename ExecutionSpace::memory_space;
    workspace<memory_space> scratch(sphere_points_bytes<memory_space>(m));
    const auto prepared = prepare_sphere_references(space, references, scale, scratch);
    using metric = sphere_metric<Observations, std::remove_const_t<decltype(prepared)>>;
    run_brute_force(space, metric{observations, prepared, scale, radius}, output, n, m, k, lent_bytes);
    space.fence();  // before the workspace is released
  } else if (observations.extent(1) == 2) {
    run_brute_force(space, euclidean_metric<2, Observations, References>{observations, references},
                    output, n, m, k, lent_bytes);
  } else {
    run_brute_force(space, euclidean_metric<3, Observations, References>{observations, references},
                    output, n, m, k, lent_bytes);
  }
}

}  // namespace kernwerk::impl
