#pragma once
// kernwerk::nearest's course: the argument checks (nearest/checks.hpp), the method and the
// implementation, the memory plan (one pass, or chunks), and the run.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>

#include "kernwerk/config.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/math.hpp"
#include "kernwerk/impl/nearest/brute_force.hpp"
#include "kernwerk/impl/nearest/checks.hpp"
#include "kernwerk/impl/nearest/cost_tables.hpp"
#include "kernwerk/impl/nearest/indexed.hpp"
#include "kernwerk/impl/nearest/tuned.hpp"
#include "kernwerk/impl/packed_rows.hpp"
#include "kernwerk/impl/profiling.hpp"
#include "kernwerk/impl/staging/chunked.hpp"
#include "kernwerk/impl/staging/copies.hpp"
#include "kernwerk/impl/staging/engine.hpp"
#include "kernwerk/impl/staging/pipelined.hpp"
#include "kernwerk/impl/staging/traits.hpp"
#include "kernwerk/impl/view_checks.hpp"
#include "kernwerk/nearest_options.hpp"

namespace kernwerk {

// The method a call with these options and sizes runs, and why.
struct method_choice {
  method_kind method;
  std::string reason;
};

}  // namespace kernwerk

namespace kernwerk::impl {

// Step 2, after the checks of nearest/checks.hpp: what runs (plan_nearest, below the runner,
// whose methods the automatic choice may time once).
struct nearest_plan {
  method_choice choice;
  bool brute_tuned;  // the brute force runs the backend's tuned implementation
};

// Step 3: the run of the planned method on Views the execution space reaches (the whole set,
// or one chunk of it). A new method is one more case in run().
template <class ExecutionSpace>
struct nearest_runner {
  ExecutionSpace space;
  nearest_plan plan;
  bool haversine;
  double scale, radius;
  nearest_report* report;  // what ran and why
  nearest_tuning tuning;

  index_metric metric() const {
    return {haversine ? metric_kind::haversine : metric_kind::euclidean, scale, radius};
  }

  template <class Obs, class Ref, class Output>
  void operator()(const Obs& obs, const Ref& ref, const Output& output, int k) const {
    const packed_rows<Obs> observations(space, obs, true);
    const packed_rows<Ref> references(space, ref, true);
    using method_obs = method_points<typename Obs::non_const_value_type, typename Obs::memory_space>;
    using method_ref = method_points<typename Ref::non_const_value_type, typename Ref::memory_space>;
    with_packed_output(space, output, [&](const auto& packed) {
      run(method_obs(observations.rows), method_ref(references.rows), packed, k);
    });
  }

  // The method on method Views; defined below, outside the class, so that the library's
  // instances are not compiled again where they are declared extern.
  template <class Obs, class Ref, class Output>
  void run(const Obs& obs, const Ref& ref, const Output& output, int k) const;

  template <class Obs, class Ref, class Output>
  void brute(const Obs& obs, const Ref& ref, const Output& output, int k) const {
    if (plan.brute_tuned) {
      if constexpr (nearest_tuned<ExecutionSpace>::available)
        nearest_tuned<ExecutionSpace>::run(space, obs, ref, output, k, scale, radius);
    } else {
      nearest_generic(space, obs, ref, output, k, haversine, scale, radius, tuning.wide_list_bytes);
    }
  }
};

template <class ExecutionSpace>
template <class Obs, class Ref, class Output>
void nearest_runner<ExecutionSpace>::run(const Obs& obs, const Ref& ref, const Output& output,
                                         int k) const {
  switch (plan.choice.method) {
    case method_kind::indexed:
      nearest_indexed(space, obs, ref, output, k, metric(), tuning);
      return;
    default:
      brute(obs, ref, output, k);
  }
}

// Points spread over the sphere by a hash of their row (the probe's sets): (lat, lon) radians.
template <class Points>
struct probe_points {
  Points points;
  std::uint64_t seed;
  KOKKOS_FUNCTION void operator()(const std::int64_t r) const {
    std::uint64_t h = (std::uint64_t(r) + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    const double u = double(h >> 40) / double(1ull << 24), v = double(h & 0xFFFFFF) / double(1 << 24);
    points(r, 0) = math::asin(2.0 * u - 1.0);
    points(r, 1) = 6.283185307179586 * v - 3.141592653589793;
  }
};

// What a machine's probe found: its index/brute-force time ratio over its cost table's, and the
// seconds the probe took.
struct machine_costs {
  double ratio = 1.0;
  double seconds = 0.0;
};

template <class ExecutionSpace, class Observations, class References, class Indices,
          class Distances>
void nearest_dispatch(const ExecutionSpace& space, const Observations& observations,
                      const References& references, const Indices& indices,
                      const Distances& distances, const nearest_options& options);

// The probe: both methods' calls timed as the tables' were, with k = 1 on the cost table's probe
// cell (uniform points; the best of three runs after one to warm up), the ratio clamped to
// [1/8, 8]. The table's shape is the recorded machine's; the probe moves the crossover to this
// one's (another GPU, more host cores).
template <class ExecutionSpace>
machine_costs probe_machine_costs(const cost_table& table, const nearest_tuning& tuning) {
  const auto began = std::chrono::steady_clock::now();
  using memory_space = typename ExecutionSpace::memory_space;
  using points = Kokkos::View<double**, Kokkos::LayoutRight, memory_space>;
  const ExecutionSpace space;
  const std::int64_t n = std::int64_t(1) << table.probe[0], m = std::int64_t(1) << table.probe[1];
  const auto room = [] { return Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::nearest::probe"); };
  const points observations(room(), n, 2), references(room(), m, 2), distances(room(), n, 1);
  const Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space> indices(room(), n, 1);
  using policy = index_policy<ExecutionSpace>;
  Kokkos::parallel_for("kernwerk::nearest::probe_points", policy(space, 0, n), probe_points<points>{observations, 1});
  Kokkos::parallel_for("kernwerk::nearest::probe_points", policy(space, 0, m), probe_points<points>{references, 2});
  nearest_options options;
  options.tuning = tuning;
  const auto seconds = [&](method_kind method) {
    options.method = method;
    double best = 0;
    for (int round = 0; round < 4; ++round) {
      space.fence();
      const auto start = std::chrono::steady_clock::now();
      nearest_dispatch(space, as_call_points(observations), as_call_points(references),
                       as_call_matrix(indices), as_call_matrix(distances), options);
      space.fence();
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (round == 1 || (round > 1 && t < best)) best = t;
    }
    return best;
  };
  const double measured = seconds(method_kind::indexed) / seconds(method_kind::brute);
  const double tabled = index_over_brute(table, double(n), double(m), 1);
  return {std::clamp(measured / tabled, 0.125, 8.0),
          std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count()};
}

// The cost table of an execution space: the GPU's where its memory is out of the host's reach.
template <class ExecutionSpace>
const cost_table& costs_of() {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename ExecutionSpace::memory_space>::accessible)
    return host_costs;
  else
    return gpu_costs;
}

// The probe's findings, timed once a process for each execution space type.
template <class ExecutionSpace>
const machine_costs& machine_costs_of(const nearest_tuning& tuning) {
  static std::once_flag once;
  static machine_costs found;
  std::call_once(once, [&] {
    try {
      found = probe_machine_costs<ExecutionSpace>(costs_of<ExecutionSpace>(), tuning);
    } catch (const std::exception&) {  // (no memory for it: the table alone decides)
    }
  });
  return found;
}

// The automatic method: the one the cost model predicts the faster, the index's build counted
// in full (docs/architecture.md, "The automatic method"). Where the brute force would be the
// generic float64 scan (always for the Euclidean metric, which no tuned scan covers), the index
// takes every set past a few pairs: its search is that scan over the references its boxes
// cannot rule out, so it never costs more.
template <class ExecutionSpace>
method_choice choose_method(const nearest_options& options, std::size_t n, std::size_t m,
                            std::size_t k, bool brute_tuned) {
  if (options.method != method_kind::automatic) return {options.method, "asked for"};
  if (options.implementation == implementation_kind::tuned)
    return {method_kind::brute, "the tuned implementation was asked for"};
  if (!brute_tuned) {
    if (m < 128 || double(n) * double(m) < double(1 << 22))
      return {method_kind::brute, "too few pairs to pay for an index"};
    return {method_kind::indexed, "the brute force would be the generic scan, which the index's search never exceeds"};
  }
  const cost_table& table = costs_of<ExecutionSpace>();
  double ratio = index_over_brute(table, double(n), double(m), int(k));
  // The probe only where this machine's rates could turn the choice.
  char probe[96] = "";
  if (options.tuning.cost_probe && ratio > 0.25 && ratio < 4.0) {
    const machine_costs& machine = machine_costs_of<ExecutionSpace>(options.tuning);
    ratio *= machine.ratio;
    std::snprintf(probe, sizeof probe, ", times %.2f from this machine's probe of %.2g s", machine.ratio,
                  machine.seconds);
  }
  char text[256];
  std::snprintf(text, sizeof text, "the index predicted at %.2f times the brute force's time (%s%s)",
                ratio, table.record, probe);
  return {ratio <= 1.0 ? method_kind::indexed : method_kind::brute, text};
}

template <class ExecutionSpace>
nearest_plan plan_nearest(const nearest_options& options, std::size_t n, std::size_t m, std::size_t k) {
  constexpr const char* fn = "nearest";
  const bool tuned_covers = nearest_tuned<ExecutionSpace>::covers(options.metric, int(k));
  nearest_plan plan{{}, options.implementation == implementation_kind::tuned ||
                            (options.implementation == implementation_kind::automatic && tuned_covers)};
  plan.choice = choose_method<ExecutionSpace>(options, n, m, k, plan.brute_tuned);
  const bool indexed = plan.choice.method == method_kind::indexed;
  if (indexed && options.implementation == implementation_kind::tuned)
    throw unsupported(fn, "options.implementation",
                      "the indexed method has the generic implementation only");
  if (!indexed && plan.brute_tuned && !nearest_tuned<ExecutionSpace>::available)
    throw unsupported(fn, "options.implementation",
                      std::string("this build has no tuned implementation for execution space ") +
                          ExecutionSpace::name());
  if (!indexed && plan.brute_tuned && !tuned_covers)
    throw unsupported(fn, "options.implementation",
                      std::string("the tuned implementation for ") + ExecutionSpace::name() +
                          " covers neither the " + to_string(options.metric) + " metric with k = " +
                          std::to_string(k) + "; use auto or generic");
  return plan;
}

// Step 4: the memory plan and the run, in one pass or in chunks.
template <class ExecutionSpace, class Observations, class References, class Indices,
          class Distances>
void nearest_dispatch(const ExecutionSpace& space, const Observations& observations,
                      const References& references, const Indices& indices,
                      const Distances& distances, const nearest_options& options) {
  scoped_region region("kernwerk::nearest");
  const std::size_t k =
      check_nearest_shapes("nearest", observations, references, indices, distances, options,
                           references.extent(0));
  const std::size_t n = observations.extent(0), m = references.extent(0);
  const nearest_plan plan = plan_nearest<ExecutionSpace>(options, n, m, k);

  nearest_report report{plan.choice.method, plan.choice.reason};
  const bool haversine = options.metric == metric_kind::haversine;
  const nearest_runner<ExecutionSpace> run{space, plan, haversine, radians_per_unit(options.units),
                                           options.radius, &report, options.tuning};
  const auto finish = [&] {
    if (options.report) *options.report = report;
  };

  using memory_space = typename ExecutionSpace::memory_space;
  const std::size_t dimension = observations.extent(1);
  const std::size_t observation_row = dimension * sizeof(typename Observations::value_type);
  const std::size_t reference_row = dimension * sizeof(typename References::value_type);
  // What one pass needs: copies of inputs out of reach, results, scratch (roughly).
  constexpr bool observations_reached =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Observations::memory_space>::accessible;
  constexpr bool references_reached =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename References::memory_space>::accessible;
  const double needed = (observations_reached ? 0.0 : double(n) * observation_row) +
                        (references_reached ? 0.0 : double(m) * reference_row) +
                        double(n) * k * 32 + double(m) * 128 +
                        double(point_bvh<memory_space>::footprint(std::int64_t(m)));

  // Only the first observations.extent(0) rows of longer outputs are written.
  const auto indices_out = first_rows(indices, n);
  const auto distances_out = first_rows(distances, n);
  using out_indices = std::remove_const_t<decltype(indices_out)>;
  using out_distances = std::remove_const_t<decltype(distances_out)>;
  bool wrote = false;  // whether a failed attempt may have written into the outputs

  // One attempt within `budget` bytes, in the engine's case (staging/engine.hpp).
  const auto attempt = [&](std::size_t budget, staging_case staging) {
    if (staging == staging_case::pipeline) {
      nearest_pipelined(space, observations, references, indices_out, distances_out, int(k), run,
                        "nearest", options.metric, options.units, &wrote);
      return;
    }
    if (staging == staging_case::chunks) {
      check_point_sets(space, "nearest", observations, references, options.metric, options.units);
      const auto chunks = plan_chunks<memory_space>(budget, n, m, observation_row, reference_row, k);
      if (haversine)
        nearest_chunked(space, observations, references, indices_out, distances_out, int(k),
                        chunks, run, sphere_distance{options.radius}, &wrote);
      else
        nearest_chunked(space, observations, references, indices_out, distances_out, int(k),
                        chunks, run, euclidean_distance{}, &wrote);
      return;
    }
    // In one piece: sets the execution space cannot reach are copied into its memory
    // (staging/copies.hpp), and the values checked there.
    staged_copies<ExecutionSpace, out_indices, out_distances, Observations, References> copies(
        space, indices_out, distances_out, observations, references);
    const auto& [observations_here, references_here] = copies.inputs;
    check_point_sets(space, "nearest", observations_here, references_here, options.metric,
                     options.units);
    wrote = wrote || copies.outputs_reached;  // the run writes into the caller's outputs
    run(observations_here, references_here,
        neighbour_output<decltype(copies.indices), decltype(copies.distances)>{copies.indices,
                                                                               copies.distances},
        int(k));
    copies.copy_out(space, indices_out, distances_out);
  };

  run_staged<ExecutionSpace>(
      "nearest", options.memory_budget, needed,
      wants_pipeline<ExecutionSpace, Observations, out_indices, out_distances>(n), wrote, attempt,
      [&](std::size_t budget) {
        return chunks_within<memory_space>(budget, n, m, observation_row, reference_row, k)
            .has_value();
      },
      [&] { spoil_outputs(indices_out, distances_out); },
      [&](std::size_t budget) {
        report.reason = plan.choice.reason + "; in chunks within " + std::to_string(budget) +
                        " bytes after an allocation failed";
      });
  finish();
}

}  // namespace kernwerk::impl
