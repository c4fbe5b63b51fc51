#pragma once
// k-nearest queries of a kept index (kernwerk::spatial_index) through the staged engine
// (staging/engine.hpp), as kernwerk::nearest's own calls go: in one piece, in the pipeline
// (large sets out of the execution space's reach) or in chunks within the memory budget, and
// in smaller chunks where an allocation fails.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <optional>

#include "kernwerk/impl/geometry/point_checks.hpp"
#include "kernwerk/impl/index/index_core.hpp"
#include "kernwerk/impl/nearest/indexed.hpp"
#include "kernwerk/impl/staging/copies.hpp"
#include "kernwerk/impl/staging/engine.hpp"
#include "kernwerk/impl/staging/traits.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::impl {

// Device bytes a chunk of `rows` queries takes: the engine's two query chunks and two result
// chunks (where the results go out of reach), and the search's scratch.
template <class MemorySpace>
std::size_t index_query_chunk_bytes(std::size_t rows, std::size_t query_row, int k,
                                    std::int64_t points, std::int64_t concurrency) {
  return rows * (2 * query_row + 2 * std::size_t(k) * 16) +
         nearest_bvh_query_bytes<MemorySpace>(std::int64_t(rows), points, concurrency,
                                              nearest_tuning{}, k);
}

// The most queries a chunk within `budget` bytes holds, halving from n (none: not one).
template <class MemorySpace>
std::optional<std::size_t> index_query_rows_within(std::size_t budget, std::size_t n,
                                                   std::size_t query_row, int k,
                                                   std::int64_t points, std::int64_t concurrency) {
  const auto bytes = [&](std::size_t rows) {
    return index_query_chunk_bytes<MemorySpace>(rows, query_row, k, points, concurrency);
  };
  std::size_t rows = std::max<std::size_t>(n, 1);
  while (rows > 1 && bytes(rows) > budget) rows = (rows + 1) / 2;
  if (bytes(rows) > budget) return std::nullopt;
  return rows;
}

// The k nearest points of `index` to every query (shapes checked by the caller, values here:
// fn, queries_name and units name them in errors) into the first n rows of the outputs.
template <class ExecutionSpace, class Queries, class Indices, class Distances>
void nearest_in_index(const ExecutionSpace& space, const char* fn, const char* queries_name,
                      const Queries& queries, const index_core<typename ExecutionSpace::memory_space>& index,
                      const Indices& indices, const Distances& distances, int k,
                      std::size_t memory_budget, angle_unit units) {
  using memory_space = typename ExecutionSpace::memory_space;
  const std::size_t n = queries.extent(0);
  const std::int64_t m = index.bvh.size;
  const metric_kind metric = index.metric.metric;
  const std::size_t query_row = queries.extent(1) * sizeof(typename Queries::value_type);
  constexpr bool queries_reached =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Queries::memory_space>::accessible;
  constexpr bool outputs_reached =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Indices::memory_space>::accessible &&
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Distances::memory_space>::accessible;
  using rows_within = std::optional<std::size_t>;
  const std::int64_t concurrency = space.concurrency();
  const auto scratch_bytes = [&](std::size_t rows) {
    return nearest_bvh_query_bytes<memory_space>(std::int64_t(rows), m, concurrency,
                                                 nearest_tuning{}, k);
  };
  const double needed = (queries_reached ? 0.0 : double(n) * query_row) +
                        (outputs_reached ? 0.0 : double(n) * k * 16) + double(scratch_bytes(n));
  // The search of `rows` queries into the outputs' rows from out_first, with scratch in
  // `memory` (scratch_bytes of the most rows, taken before any output is written).
  const auto search = [&](const auto& rows, const auto& out_indices, const auto& out_distances,
                          std::size_t out_first, char* memory) {
    const std::size_t count = rows.extent(0);
    const auto rows_i = row_window(out_indices, out_first, count);
    const auto rows_d = row_window(out_distances, out_first, count);
    carver scratch(memory, scratch_bytes(count));
    query_index(space, rows, index,
                neighbour_output<decltype(rows_i), decltype(rows_d)>{rows_i, rows_d}, k,
                nearest_tuning{}, scratch);
  };
  bool wrote = false;

  const auto attempt = [&](std::size_t budget, staging_case staging) {
    if (staging == staging_case::one_piece) {
      staged_copies<ExecutionSpace, Indices, Distances, Queries> copies(space, indices, distances,
                                                                        queries);
      const auto& queries_here = std::get<0>(copies.inputs);
      check_point_values(space, fn, queries_name, queries_here, metric, units);
      const std::size_t bytes = scratch_bytes(n);
      workspace<memory_space> memory(bytes);
      char* const scratch = memory.template take<char>(bytes);
      wrote = wrote || copies.outputs_reached;
      search(queries_here, copies.indices, copies.distances, 0, scratch);
      copies.copy_out(space, indices, distances);
      return;
    }
    // The pipeline's chunks are its own; streamed ones are as large as the budget allows.
    const bool held = staging == staging_case::pipeline;
    if (!held) check_point_values(space, fn, queries_name, queries, metric, units);
    const rows_within within = index_query_rows_within<memory_space>(
        held ? std::numeric_limits<std::size_t>::max() : budget, n, query_row, k, m, concurrency);
    if (!within)
      throw invalid_argument(fn, "options.memory_budget",
                             std::to_string(budget) + " bytes cannot hold a chunk of one query");
    staged_rows<ExecutionSpace, Queries, Indices, Distances> engine(space, queries, indices,
                                                                    distances, k, *within, held);
    const deferred_point_checks<ExecutionSpace> checks(space, metric, units);
    const std::size_t bytes = scratch_bytes(engine.chunk_rows());
    workspace<memory_space> memory(bytes);
    char* const scratch = memory.template take<char>(bytes);
    engine.run(
        [&](std::size_t, std::size_t first, const auto& chunk, const auto& write) {
          if (held) checks.mark(0, chunk, first);
          write([&](const auto& out_indices, const auto& out_distances, std::size_t out_first) {
            search(chunk, out_indices, out_distances, out_first, scratch);
          });
        },
        [&] { checks.verify(fn, queries_name, queries); }, &wrote);
  };

  run_staged<ExecutionSpace>(
      fn, memory_budget, needed,
      wants_pipeline<ExecutionSpace, Queries, Indices, Distances>(n), wrote, attempt,
      [&](std::size_t budget) {
        return index_query_rows_within<memory_space>(budget, n, query_row, k, m, concurrency)
            .has_value();
      },
      [&] { spoil_outputs(indices, distances); }, [](std::size_t) {});
}

}  // namespace kernwerk::impl
