#pragma once
// kernwerk::nearest on large observation sets in memory the execution space does not reach
// (host memory and a GPU) when the whole problem fits its memory: the chunk pipeline in two
// phases, so that no output is written before every input is known to be valid, and no host
// pass reads the inputs only to check them (such a pass was a sixth of the call:
// perf/results/nearest-cuda-host-inputs-h100.json; commit dcab7a9).
// - The references are copied in whole (through staging where the execution space does not
//   reach them); both sets' values are checked where they land, by kernels that keep the first
//   invalid row of each set in device memory.
// - Phase 1, per chunk of observations: converted on the host into page-locked staging memory
//   (two slots, used in turn) and copied in on the transfer queue beside the computation of the
//   chunk before; then computed into the device's copy of the results.
// - The checks are read once (one small copy). Then phase 2: the results copied out chunk by
//   chunk into staging memory and written into the caller's outputs on the host, the copy of
//   the next chunk beside the writing of this one (outputs in the execution space's memory:
//   one copy there).
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <optional>

#include "kernwerk/impl/geometry/point_checks.hpp"
#include "kernwerk/impl/staging/chunked.hpp"
#include "kernwerk/impl/staging/neighbour_output.hpp"

namespace kernwerk::impl {

// Keeps the smallest invalid row (numbered from `offset`) of `points` in first(0).
template <class Points, class First>
struct mark_invalid_rows {
  Points points;
  First first;
  std::int64_t offset;
  coordinate_limits limits;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    if (invalid_point(points, i, limits)) Kokkos::atomic_fetch_min(&first(0), offset + i);
  }
};

// Observation sets out of the execution space's reach from this size on are pipelined (below
// it, staging/copies.hpp).
inline constexpr std::size_t pipeline_min_rows = std::size_t(1) << 18;

// two_phase false: large sets go through the chunk pipeline of staging/chunked.hpp instead,
// with the values checked on the host first (for comparisons: kernwerk_bench_nearest
// --pipeline chunked). chunks: how many chunks the observations are cut into (more overlap the
// copies with the computation, fewer cost less per chunk: the method runs once a chunk); 2 to
// 16 took the same within the noise (kernwerk_bench_nearest --pipeline-chunks; commit 48a6d2e).
struct pipeline_policy {
  static inline bool two_phase = true;
  static inline std::size_t chunks = 8;
};

// Rows of observations per chunk of the pipelines: pipeline_policy::chunks chunks, none
// shorter than pipeline_min_rows / 8.
inline std::size_t pipeline_chunk_rows(std::size_t n) {
  const std::size_t chunks = std::max<std::size_t>(1, pipeline_policy::chunks);
  return std::max(pipeline_min_rows / 8, (n + chunks - 1) / chunks);
}

// Runs `core(observations, references, output, k)` (one of the methods, writing distances)
// over the chunks; checks the values of both sets (fn, metric, units name them in errors).
template <class ExecutionSpace, class Observations, class References, class Indices,
          class Distances, class Core>
void nearest_pipelined(const ExecutionSpace& space, const Observations& observations,
                       const References& references, const Indices& indices,
                       const Distances& distances, int k, const Core& core, const char* fn,
                       metric_kind metric, angle_unit units) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::size_t n = observations.extent(0), m = references.extent(0);
  const std::size_t n_c = std::min(n, pipeline_chunk_rows(n));
  const std::size_t chunks = (n + n_c - 1) / n_c;
  const auto rows_of = [&](std::size_t c) { return std::min(n_c, n - c * n_c); };

  transfer_queue<ExecutionSpace> queue(space);
  const ExecutionSpace& transfer = queue.space;
  using observation_reader_type = chunk_reader<ExecutionSpace, Observations>;
  using reference_reader_type = chunk_reader<ExecutionSpace, References>;
  using writer_type = chunk_writer<ExecutionSpace, Indices, Distances>;
  // Two observation slots and two result slots of staging memory, the references' whole.
  const std::size_t staging_bytes = 2 * observation_reader_type::staging_bytes(observations, n_c) +
                                    reference_reader_type::staging_bytes(references, m) +
                                    writer_type::staging_bytes(2 * n_c, k);
  std::optional<staging_workspace<ExecutionSpace>> staging;
  if (staging_bytes > 0) staging.emplace(staging_bytes);
  const observation_reader_type observation_slot[2] = {
      observation_reader_type(observations, n_c, staging),
      observation_reader_type(observations, n_c, staging)};
  const reference_reader_type reference_reader(references, m, staging);
  const writer_type writer(indices, distances, 2 * n_c, k, staging, false);

  // The device's copies of both sets and of the results.
  const auto observations_here = observation_slot[0].allocate("kernwerk::nearest::observations", n);
  const auto references_here = reference_reader.allocate("kernwerk::nearest::references", m);
  const auto indices_here = allocate_rows<typename writer_type::index_buffer>(
      "kernwerk::nearest::indices", n, std::size_t(k));
  const auto distances_here = allocate_rows<typename writer_type::distance_buffer>(
      "kernwerk::nearest::distances", n, std::size_t(k));
  // First invalid row of the observations (0) and of the references (1).
  Kokkos::View<std::int64_t[2], memory_space> first_invalid("kernwerk::nearest::first_invalid");
  Kokkos::deep_copy(space, first_invalid, std::numeric_limits<std::int64_t>::max());
  const auto mark = [&](const auto& points, int set, std::size_t first, std::size_t rows) {
    using points_type = std::decay_t<decltype(points)>;
    const auto slot = Kokkos::subview(first_invalid, std::make_pair(set, set + 1));
    Kokkos::parallel_for(
        "kernwerk::nearest::check_points", policy(space, 0, std::int64_t(rows)),
        mark_invalid_rows<points_type, decltype(slot)>{
            points, slot, std::int64_t(first),
            point_limits<typename points_type::non_const_value_type>(metric, units)});
  };

  reference_reader.stage(0, m);
  reference_reader.upload(space, transfer, references_here, 0, m);
  observation_slot[0].stage(0, rows_of(0));
  observation_slot[0].upload(space, transfer, row_window(observations_here, 0, rows_of(0)), 0,
                             rows_of(0));
  transfer.fence();
  mark(references_here, 1, 0, m);
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t first = c * n_c, rows = rows_of(c);
    const auto obs = row_window(observations_here, first, rows);
    mark(obs, 0, first, rows);
    // Chunk c + 1 in while chunk c computes; its slot's last copy (chunk c - 1) has completed.
    if (c + 1 < chunks) {
      const auto& next = observation_slot[(c + 1) % 2];
      next.stage(first + rows, rows_of(c + 1));
      next.upload(space, transfer, row_window(observations_here, first + rows, rows_of(c + 1)),
                  first + rows, rows_of(c + 1));
    }
    const auto out_indices = row_window(indices_here, first, rows);
    const auto out_distances = row_window(distances_here, first, rows);
    core(obs, references_here,
         neighbour_output<decltype(out_indices), decltype(out_distances)>{out_indices,
                                                                          out_distances},
         k);
    transfer.fence();
  }

  // Every value checked: one read, then the results out.
  const auto found = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), first_invalid);
  if (found(0) != std::numeric_limits<std::int64_t>::max())
    throw invalid_point_error(fn, "observations", observations, found(0), metric, units);
  if (found(1) != std::numeric_limits<std::int64_t>::max())
    throw invalid_point_error(fn, "references", references, found(1), metric, units);
  space.fence();
  if constexpr (writer_type::reached) {  // outputs in the execution space's memory
    Kokkos::deep_copy(space, indices, indices_here);
    Kokkos::deep_copy(space, distances, distances_here);
    space.fence();
    return;
  }
  writer.download_rows(transfer, indices_here, distances_here, 0, 0, rows_of(0));
  transfer.fence();
  for (std::size_t c = 0; c < chunks; ++c) {
    if (c + 1 < chunks)
      writer.download_rows(transfer, indices_here, distances_here, (c + 1) * n_c,
                           ((c + 1) % 2) * n_c, rows_of(c + 1));
    writer.unstage_rows((c % 2) * n_c, c * n_c, rows_of(c));
    transfer.fence();
  }
}

}  // namespace kernwerk::impl
