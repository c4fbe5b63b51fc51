#pragma once
// kernwerk::nearest over sets larger than the memory budget: the observations stream through
// the engine (staging/engine.hpp) in chunks, and the references are cut into chunks of rows
// too, copied into the execution space's memory in turn for each observation chunk.
//
// Each (observation chunk, reference chunk) pair runs the chosen method and writes its k best
// as (index, key); a merge keeps the k best by (key, index) over the reference chunks seen so
// far, which is exactly what one pass over all references keeps. Distances are computed from
// the final keys on the execution space, by the same function as an unchunked call, so the
// result is identical to it bit for bit.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/geometry/metrics.hpp"
#include "kernwerk/impl/index/point_bvh.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/staging/engine.hpp"
#include "kernwerk/impl/staging/neighbour_output.hpp"

namespace kernwerk::impl {

// Merges the k_chunk best of one reference chunk (indices relative to `offset`) into the
// running k best of each observation, by (key, index).
template <class Indices, class Keys>
struct merge_chunk {
  Indices best_index, chunk_index;
  Keys best_key, chunk_key;
  int k, k_chunk, kept;  // kept: entries already in the running lists
  std::int64_t offset;

  KOKKOS_INLINE_FUNCTION bool chunk_before(std::int64_t i, int b, int a) const {
    return chunk_key(i, b) < best_key(i, a) ||
           (chunk_key(i, b) == best_key(i, a) && chunk_index(i, b) + offset < best_index(i, a));
  }

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    // How many of each list the k best take ...
    int a = 0, b = 0;
    while (a + b < k) {
      if (a < kept && (b >= k_chunk || !chunk_before(i, b, a))) ++a;
      else if (b < k_chunk) ++b;
      else break;  // both exhausted: fewer than k so far
    }
    // ... then merged from the back, in place: position a + b - 1 holds no entry still to be read.
    for (int q = a + b - 1; q >= 0; --q) {
      if (a == 0 || (b > 0 && !chunk_before(i, b - 1, a - 1))) {
        --b;
        best_index(i, q) = chunk_index(i, b) + offset;
        best_key(i, q) = chunk_key(i, b);
      } else {
        --a;
        best_index(i, q) = best_index(i, a);
        best_key(i, q) = best_key(i, a);
      }
    }
  }
};

// Writes the final k best of each chunk row into the caller's outputs (rows from `first`).
template <class Indices, class Keys, class Metric, class OutIndices, class OutDistances>
struct finish_chunk {
  Indices best_index;
  Keys best_key;
  Metric metric;
  OutIndices indices;
  OutDistances distances;
  std::int64_t first;
  int k;

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    for (int q = 0; q < k; ++q) {
      const double distance = metric.distance(best_key(i, q));
      if constexpr (OutIndices::rank == 1) {
        indices(first + i) = static_cast<typename OutIndices::value_type>(best_index(i, q));
        distances(first + i) = static_cast<typename OutDistances::value_type>(distance);
      } else {
        indices(first + i, q) = static_cast<typename OutIndices::value_type>(best_index(i, q));
        distances(first + i, q) = static_cast<typename OutDistances::value_type>(distance);
      }
    }
  }
};

// What the distance of a key is, without the rest of a metric (for finish_chunk).
struct sphere_distance {
  double radius;
  KOKKOS_INLINE_FUNCTION double distance(double key) const { return radius * central_angle(key); }
};
struct euclidean_distance {
  KOKKOS_INLINE_FUNCTION double distance(double key) const { return math::sqrt(key); }
};

// Rows per chunk for a budget of `budget` bytes.
struct chunk_plan {
  std::size_t observation_rows, reference_rows;
};

template <class MemorySpace>
std::optional<chunk_plan> chunks_within(std::size_t budget, std::size_t n, std::size_t m,
                                        std::size_t observation_row, std::size_t reference_row,
                                        std::size_t k) {
  // Half the budget for a reference chunk and its index, half for observations and results.
  std::size_t reference_rows = m;
  const auto reference_bytes = [&](std::size_t rows) {
    return rows * (reference_row + 128) + point_bvh<MemorySpace>::footprint(std::int64_t(rows));
  };
  while (reference_rows > 1 && reference_bytes(reference_rows) > budget / 2)
    reference_rows = (reference_rows + 1) / 2;
  // Two observation chunks, running and chunk k best (index, key), two result buffers.
  const std::size_t per_observation = 2 * observation_row + 6 * k * 16;
  const std::size_t observation_rows = std::min(n, (budget / 2) / per_observation);
  if (reference_bytes(reference_rows) > budget / 2 || observation_rows == 0 || reference_rows < k)
    return std::nullopt;
  return chunk_plan{observation_rows, reference_rows};
}

// As chunks_within, or throws naming options.memory_budget.
template <class MemorySpace>
chunk_plan plan_chunks(std::size_t budget, std::size_t n, std::size_t m, std::size_t observation_row,
                       std::size_t reference_row, std::size_t k) {
  if (const auto plan =
          chunks_within<MemorySpace>(budget, n, m, observation_row, reference_row, k))
    return *plan;
  throw invalid_argument("nearest", "options.memory_budget",
                         std::to_string(budget) + " bytes cannot hold a chunk of " +
                             std::to_string(k) + " references and one observation");
}

// Runs `core(observations, references, output, k)` (one of the methods) over chunks: the
// observations' through the engine, streamed, and for each the references' in turn, merged.
// Each allocation it makes is made, at its largest, before the first chunk's results are
// written (the engine's up front, the method's own in the first chunk), and *wrote (where
// given) is set just before they are: an allocation that fails before leaves the outputs
// untouched. The values of both sets must have been checked.
template <class ExecutionSpace, class Observations, class References, class Indices,
          class Distances, class Core, class Distance>
void nearest_chunked(const ExecutionSpace& space, const Observations& observations,
                     const References& references, const Indices& indices,
                     const Distances& distances, int k, const chunk_plan& plan, const Core& core,
                     const Distance& distance, bool* wrote = nullptr) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = index_policy<ExecutionSpace>;
  const std::size_t m = references.extent(0);
  const std::size_t m_c = std::min(plan.reference_rows, m);

  using reference_reader_type = chunk_reader<ExecutionSpace, References>;
  staged_rows<ExecutionSpace, Observations, Indices, Distances> engine(
      space, observations, indices, distances, k, plan.observation_rows, false,
      reference_reader_type::staging_bytes(references, m_c));
  const reference_reader_type reference_reader(references, m_c, engine.staging());
  const auto reference_chunk = reference_reader.allocate("kernwerk::nearest::ref_chunk", m_c);
  using index_matrix = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space>;
  using key_matrix = Kokkos::View<double**, Kokkos::LayoutRight, memory_space>;
  const std::size_t rows_max = engine.chunk_rows();
  index_matrix best_index(Kokkos::view_alloc(space, "kernwerk::nearest::best_index"), rows_max, k),
      chunk_index(Kokkos::view_alloc(space, "kernwerk::nearest::chunk_index"), rows_max, k);
  key_matrix best_key(Kokkos::view_alloc(space, "kernwerk::nearest::best_key"), rows_max, k),
      chunk_key(Kokkos::view_alloc(space, "kernwerk::nearest::chunk_key"), rows_max, k);

  // Chunk c of the observations against all references, queued on `space`.
  const auto compute = [&](std::size_t c, std::size_t, const auto& obs, const auto& write) {
    const std::size_t rows = obs.extent(0);
    const auto row_range = std::make_pair(std::size_t(0), rows);
    int kept = 0;
    for (std::size_t offset = 0; offset < m; offset += m_c) {
      const std::size_t reference_rows = std::min(m_c, m - offset);
      if (m_c < m || c == 0) {
        // The reference chunk is reused: what used it, and its staging, must be done.
        space.fence();
        reference_reader.stage(offset, reference_rows);
        reference_reader.upload(space, space, reference_chunk, offset, reference_rows);
      }
      const int k_chunk = int(std::min<std::size_t>(k, reference_rows));
      const auto columns = std::make_pair(0, k_chunk);
      const auto out_index = Kokkos::subview(chunk_index, row_range, columns);
      const auto out_key = Kokkos::subview(chunk_key, row_range, columns);
      core(obs, row_window(reference_chunk, 0, reference_rows),
           neighbour_output<decltype(out_index), decltype(out_key)>{out_index, out_key, true},
           k_chunk);
      Kokkos::parallel_for("kernwerk::nearest::chunk_merge", policy(space, 0, rows),
                           merge_chunk<index_matrix, key_matrix>{best_index, chunk_index, best_key,
                                                                 chunk_key, k, k_chunk, kept,
                                                                 std::int64_t(offset)});
      kept = std::min(k, kept + k_chunk);
    }
    write([&](const auto& out_indices, const auto& out_distances, std::size_t out_first) {
      using out_i = std::decay_t<decltype(out_indices)>;
      using out_d = std::decay_t<decltype(out_distances)>;
      Kokkos::parallel_for(
          "kernwerk::nearest::chunk_finish", policy(space, 0, rows),
          finish_chunk<index_matrix, key_matrix, Distance, out_i, out_d>{
              best_index, best_key, distance, out_indices, out_distances,
              std::int64_t(out_first), k});
    });
  };
  engine.run(compute, [] {}, wrote);
}

}  // namespace kernwerk::impl
