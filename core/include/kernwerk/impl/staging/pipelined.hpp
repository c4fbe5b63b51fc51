#pragma once
// kernwerk::nearest on large observation sets in memory the execution space does not reach
// (host memory and a GPU) when the whole problem fits its memory: the engine's held chunks
// (staging/engine.hpp), so that no output is written before every input is known to be valid,
// and no host pass reads the inputs only to check them (such a pass was a sixth of the call:
// perf/results/nearest-cuda-host-inputs-h100.json; commit dcab7a9). The references are copied
// in whole; the values of both sets are checked where they land (deferred_point_checks).
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kernwerk/impl/geometry/point_checks.hpp"
#include "kernwerk/impl/staging/engine.hpp"
#include "kernwerk/impl/staging/neighbour_output.hpp"

namespace kernwerk::impl {

// Runs `core(observations, references, output, k)` (one of the methods, writing distances)
// over the engine's chunks; checks the values of both sets (fn, metric, units name them in
// errors). *wrote is set just before an output is written.
template <class ExecutionSpace, class Observations, class References, class Indices,
          class Distances, class Core>
void nearest_pipelined(const ExecutionSpace& space, const Observations& observations,
                       const References& references, const Indices& indices,
                       const Distances& distances, int k, const Core& core, const char* fn,
                       metric_kind metric, angle_unit units, bool* wrote) {
  const std::size_t n = observations.extent(0), m = references.extent(0);
  using reference_reader_type = chunk_reader<ExecutionSpace, References>;
  staged_rows<ExecutionSpace, Observations, Indices, Distances> engine(
      space, observations, indices, distances, k, n, true,
      reference_reader_type::staging_bytes(references, m));
  const reference_reader_type reference_reader(references, m, engine.staging());
  const auto references_here = reference_reader.allocate("kernwerk::nearest::references", m);
  const deferred_point_checks<ExecutionSpace> checks(space, metric, units);
  reference_reader.stage(0, m);
  reference_reader.upload(space, space, references_here, 0, m);
  checks.mark(1, references_here, 0);
  engine.run(
      [&](std::size_t, std::size_t first, const auto& obs, const auto& write) {
        checks.mark(0, obs, first);
        write([&](const auto& out_indices, const auto& out_distances, std::size_t out_first) {
          const auto rows_i = row_window(out_indices, out_first, obs.extent(0));
          const auto rows_d = row_window(out_distances, out_first, obs.extent(0));
          core(obs, references_here,
               neighbour_output<decltype(rows_i), decltype(rows_d)>{rows_i, rows_d}, k);
        });
      },
      [&] { checks.verify(fn, "observations", observations, "references", references); }, wrote);
}

}  // namespace kernwerk::impl
