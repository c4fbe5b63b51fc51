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
#include <string>
#include <type_traits>

#include "kernwerk/config.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/nearest/brute_force.hpp"
#include "kernwerk/impl/nearest/checks.hpp"
#include "kernwerk/impl/nearest/indexed.hpp"
#include "kernwerk/impl/nearest/tuned.hpp"
#include "kernwerk/impl/profiling.hpp"
#include "kernwerk/impl/staging/chunked.hpp"
#include "kernwerk/impl/staging/copies.hpp"
#include "kernwerk/impl/staging/engine.hpp"
#include "kernwerk/impl/staging/pipelined.hpp"
#include "kernwerk/impl/staging/traits.hpp"
#include "kernwerk/impl/view_checks.hpp"
#include "kernwerk/nearest_options.hpp"

namespace kernwerk::impl {

// The automatic method's trial (nearest_tuning's trial_* and index_preference): on host spaces
// with k = 1, where the brute force is the tuned float32 scan, both methods are timed on a
// sample of the observations and the index is kept unless the brute force's estimate is
// smaller by more than index_preference. Why only there, and these values:
// docs/architecture.md ("The automatic method"), perf/results/layouts-host-epyc-2core.json,
// commit 78a7e57.
struct trial_purpose;

// A method's seconds on all n observations from its seconds(rows) on the first rows of a
// sample: a part per call (preparing the references, launching kernels), timed on no rows, and
// a part per row, scaled up. The call on the rows comes first, so that the one on none finds
// the method's memory ready too.
template <class Seconds>
double whole_set_seconds(const Seconds& seconds, std::int64_t rows, std::int64_t n) {
  const double some = seconds(rows), none = seconds(0);
  if (!(some > none)) return some * double(n) / double(rows);
  return none + (some - none) * double(n) / double(rows);
}

// Observation rows spread evenly over a set, gathered into double (lat, lon) rows.
template <class Observations, class Sample>
struct gather_sample {
  Observations observations;
  Sample sample;
  std::int64_t n;
  KOKKOS_FUNCTION void operator()(const std::int64_t r) const {
    const auto i = static_cast<std::int64_t>((double(r) + 0.5) * double(n) / double(sample.extent(0)));
    sample(r, 0) = static_cast<double>(observations(i, 0));
    sample(r, 1) = static_cast<double>(observations(i, 1));
  }
};

}  // namespace kernwerk::impl

namespace kernwerk {

// The method a call with these options and sizes runs, and why.
struct method_choice {
  method_kind method;
  std::string reason;
};

// The method by the sizes: the brute force on small sets (measured in perf/), the index as the
// candidate on large ones for the haversine metric, unless the tuned brute force was asked
// for. On large sets the call then times both on a sample of the observations
// (options.tuning), and options.report says which ran and why.
inline method_choice choose_method(const nearest_options& options, std::size_t observations,
                                   std::size_t references) {
  if (options.method != method_kind::automatic) return {options.method, "asked for"};
  if (options.metric != metric_kind::haversine)
    return {method_kind::brute, "the automatic method indexes the haversine metric only"};
  if (options.implementation == implementation_kind::tuned)
    return {method_kind::brute, "the tuned implementation was asked for"};
  if (references < 128 || double(observations) * double(references) < double(1 << 22))
    return {method_kind::brute, "too few pairs to pay for an index"};
  return {method_kind::indexed, "enough pairs to pay for an index"};
}

}  // namespace kernwerk

namespace kernwerk::impl {

// Step 2, after the checks of nearest/checks.hpp: what runs. The method (choose_method),
// whether a timed trial decides it, and the brute force's implementation; throws where the
// options ask for what this build lacks.
struct nearest_plan {
  method_choice choice;
  bool trial;        // the index, unless a timed trial on a sample favours the brute force
  bool brute_tuned;  // the brute force runs the backend's tuned implementation
};

template <class ExecutionSpace>
nearest_plan plan_nearest(const nearest_options& options, std::size_t n, std::size_t m, std::size_t k) {
  constexpr const char* fn = "nearest";
  nearest_plan plan{choose_method(options, n, m), false, false};
  const bool indexed = plan.choice.method == method_kind::indexed;
  if (indexed && options.implementation == implementation_kind::tuned)
    throw unsupported(fn, "options.implementation",
                      "the indexed method has the generic implementation only");
  const bool tuned_covers = nearest_tuned<ExecutionSpace>::covers(options.metric, int(k));
  plan.brute_tuned = options.implementation == implementation_kind::tuned ||
                     (options.implementation == implementation_kind::automatic && tuned_covers);
  // The trial: automatic method, host spaces, against the tuned brute force (docs/architecture.md,
  // "The automatic method", says why not elsewhere).
  plan.trial = indexed && options.method == method_kind::automatic && plan.brute_tuned && k == 1 &&
               nearest_tuned<ExecutionSpace>::available &&
               Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                          typename ExecutionSpace::memory_space>::accessible;
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

// The Views a call is compiled for, whatever the layout and rank of the caller's: unmanaged and
// strided (a rank-1 output as one column), so that the library compiles each call once per
// execution space, value type and memory space (impl/nearest/instances.hpp). The checks,
// copies and chunks read through the strides; the methods run on packed rows (below).
template <class T, class MemorySpace>
using call_points =
    Kokkos::View<const T**, Kokkos::LayoutStride, MemorySpace, Kokkos::MemoryUnmanaged>;
template <class T, class MemorySpace>
using call_matrix = Kokkos::View<T**, Kokkos::LayoutStride, MemorySpace, Kokkos::MemoryUnmanaged>;

template <class View>
call_points<typename View::non_const_value_type, typename View::memory_space> as_call_points(
    const View& points) {
  return points;
}

template <class View>
call_matrix<typename View::value_type, typename View::memory_space> as_call_matrix(
    const View& values) {
  using matrix = call_matrix<typename View::value_type, typename View::memory_space>;
  if constexpr (View::rank == 1)
    return matrix(values.data(), Kokkos::LayoutStride(values.extent(0), values.stride(0), 1, 1));
  else
    return values;
}

// The Views the methods run on: rows packed one after another (LayoutRight), as the kernels
// read fastest (strided points cost the indexed search more: commit c04274e).
template <class T, class MemorySpace>
using method_points =
    Kokkos::View<const T**, Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged>;
template <class T, class MemorySpace>
using method_matrix = Kokkos::View<T**, Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged>;
template <class Index, class Distance, class MemorySpace>
using method_output =
    neighbour_output<method_matrix<Index, MemorySpace>, method_matrix<Distance, MemorySpace>>;

// A View (rank 1: one column) as packed rows: itself where its elements lie row by row without
// gaps, else a copy in its memory space, filled from it (inputs) or written back into it by
// copy_back (outputs). Copies are queued on the execution space.
template <class View>
class packed_rows {
  using value = typename View::non_const_value_type;
  using memory = typename View::memory_space;
  using strided = decltype(as_call_matrix(std::declval<View>()));

 public:
  using rows_type = method_matrix<value, memory>;

  template <class ExecutionSpace>
  packed_rows(const ExecutionSpace& space, const View& view, bool fill)
      : source_(as_call_matrix(view)) {
    const std::size_t n = source_.extent(0), columns = source_.extent(1);
    if (row_major_packed(source_)) {
      rows = rows_type(const_cast<value*>(source_.data()), n, columns);
      return;
    }
    copy_ = Kokkos::View<value**, Kokkos::LayoutRight, memory>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::nearest::packed_rows"), n,
        columns);
    rows = copy_;
    if (fill) Kokkos::deep_copy(space, copy_, source_);
  }

  template <class ExecutionSpace>
  void copy_back(const ExecutionSpace& space) const {
    if constexpr (!std::is_const_v<typename View::value_type>)
      if (copy_.data()) Kokkos::deep_copy(space, source_, copy_);
  }

  rows_type rows;

 private:
  strided source_;
  Kokkos::View<value**, Kokkos::LayoutRight, memory> copy_;
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
    const packed_rows<decltype(output.indices)> indices(space, output.indices, false);
    const packed_rows<decltype(output.distances)> distances(space, output.distances, false);
    using method_obs = method_points<typename Obs::non_const_value_type, typename Obs::memory_space>;
    using method_ref = method_points<typename Ref::non_const_value_type, typename Ref::memory_space>;
    run(method_obs(observations.rows), method_ref(references.rows),
        neighbour_output<decltype(indices.rows), decltype(distances.rows)>{
            indices.rows, distances.rows, output.keys},
        k);
    indices.copy_back(space);
    distances.copy_back(space);
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
      nearest_generic(space, obs, ref, output, k, haversine, scale, radius);
    }
  }

  std::int64_t trial_samples(std::int64_t n) const {
    return std::max(tuning.trial_min_sample, n / std::max<std::int64_t>(1, tuning.trial_sample_fraction));
  }
  bool trial_pays(std::size_t n, std::size_t m) const {
    return double(n) * double(m) >= tuning.trial_min_pairs &&
           std::int64_t(n) >= 2 * trial_samples(std::int64_t(n));
  }

  // The brute force on a sample, then the index built and searched for it; the index goes on
  // to the whole set where its time scaled up is the smaller, else the brute force runs.
  template <class Obs, class Ref, class Output>
  void indexed_after_trial(const Obs& obs, const Ref& ref, const Output& output, int k) const {
    using memory_space = typename ExecutionSpace::memory_space;
    using policy = index_policy<ExecutionSpace>;
    const auto n = static_cast<std::int64_t>(obs.extent(0));
    const std::int64_t samples = trial_samples(n);
    using trial_scratch = workspace<memory_space, trial_purpose>;
    trial_scratch memory(trial_scratch::template bytes_for<double>(2 * samples) +
                         trial_scratch::template bytes_for<std::int64_t>(samples * k) +
                         trial_scratch::template bytes_for<double>(samples * k));
    // (method Views, as the search's own: the sample's runs are the same instances)
    using sample_points = method_matrix<double, memory_space>;
    using sample_output = method_output<std::int64_t, double, memory_space>;
    const sample_points sample(memory.template take<double>(2 * samples), samples, 2);
    const sample_output sample_out{
        method_matrix<std::int64_t, memory_space>(memory.template take<std::int64_t>(samples * k), samples, k),
        sample_points(memory.template take<double>(samples * k), samples, k)};
    Kokkos::parallel_for("kernwerk::nearest::trial_sample", policy(space, 0, samples),
                         gather_sample<Obs, sample_points>{obs, sample, n});
    const auto brute_seconds = [&](std::int64_t rows) {
      const auto some = Kokkos::make_pair(std::int64_t(0), rows);
      space.fence();
      const auto start = std::chrono::steady_clock::now();
      brute(method_points<double, memory_space>(Kokkos::subview(sample, some, Kokkos::ALL)), ref,
            sample_output{Kokkos::subview(sample_out.indices, some, Kokkos::ALL),
                          Kokkos::subview(sample_out.distances, some, Kokkos::ALL)},
            k);
      space.fence();
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    // The brute force is timed after the index, on a quarter of the sample first, so that
    // where it is far slower (near ties) the trial costs little; the whole sample is timed only
    // where the two estimates are within 3 times (commit d56d88d).
    const auto keep_index = [&](double build_seconds, const auto& search_seconds) {
      const double index = build_seconds + whole_set_seconds(search_seconds, samples, n);
      std::int64_t timed = samples / 4;
      double brute = whole_set_seconds(brute_seconds, timed, n);
      if (brute < 3 * index && index < 3 * brute)
        brute = whole_set_seconds(brute_seconds, timed = samples, n);
      char text[160];
      std::snprintf(text, sizeof text, "a trial on %lld observations: index %.3g s, brute force %.3g s",
                    static_cast<long long>(timed), index, brute);
      const bool keep = index <= tuning.index_preference * brute;
      *report = {keep ? method_kind::indexed : method_kind::brute, text};
      return keep;
    };
    const index_trial<method_points<double, memory_space>, sample_output> trial{sample, sample_out};
    if (!nearest_indexed(space, obs, ref, output, k, metric(), tuning, &trial, &keep_index))
      brute(obs, ref, output, k);
  }
};

template <class ExecutionSpace>
template <class Obs, class Ref, class Output>
void nearest_runner<ExecutionSpace>::run(const Obs& obs, const Ref& ref, const Output& output,
                                         int k) const {
  switch (plan.choice.method) {
    case method_kind::indexed:
      if (plan.trial && trial_pays(obs.extent(0), ref.extent(0)))
        indexed_after_trial(obs, ref, output, k);
      else
        nearest_indexed(space, obs, ref, output, k, metric(), tuning);
      return;
    default:
      brute(obs, ref, output, k);
  }
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
