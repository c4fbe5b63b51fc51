#pragma once
// kernwerk::nearest over sets larger than the memory budget: observations and references are
// cut into chunks of rows that are copied into the execution space's memory in turn.
//
// Each (observation chunk, reference chunk) pair runs the chosen method and writes its k best
// as (index, key); a merge keeps the k best by (key, index) over the reference chunks seen so
// far, which is exactly what one pass over all references keeps. Distances are computed from
// the final keys on the execution space, by the same function as an unchunked call, so the
// result is identical to it bit for bit. When the inputs live on the host, the next chunk is
// staged on the host while the previous one computes.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/nearest_generic.hpp"
#include "kernwerk/impl/nearest_indexed.hpp"
#include "kernwerk/impl/neighbour_list.hpp"

namespace kernwerk::impl {

// Copies rows [first, first + rows) of `source` (any layout, memory space) into the first rows
// of `target` (LayoutRight, the execution space's memory). Sources the execution space cannot
// reach go through a host staging View of the target's type.
template <class ExecutionSpace, class Target, class Source>
void copy_rows_in(const ExecutionSpace& space, const Target& target, const Source& source,
                  std::size_t first, std::size_t rows) {
  using policy = Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>>;
  const std::size_t columns = source.extent(1);
  const auto window = Kokkos::subview(target, std::make_pair(std::size_t(0), rows), Kokkos::ALL());
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace,
                                           typename Source::memory_space>::accessible) {
    Kokkos::parallel_for(
        "kernwerk::nearest::chunk_in", policy(space, {0, 0}, {int64_t(rows), int64_t(columns)}),
        KOKKOS_LAMBDA(const int64_t i, const int64_t d) {
          window(i, d) = static_cast<typename Target::value_type>(source(first + i, d));
        });
  } else {
    auto staging = Kokkos::create_mirror_view(Kokkos::HostSpace(), window);
    using host_policy = Kokkos::MDRangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::Rank<2>>;
    Kokkos::parallel_for(
        "kernwerk::nearest::chunk_stage",
        host_policy({0, 0}, {int64_t(rows), int64_t(columns)}),
        [=](const int64_t i, const int64_t d) {
          staging(i, d) = static_cast<typename Target::value_type>(source(first + i, d));
        });
    Kokkos::deep_copy(space, window, staging);
  }
}

// Merges the k_chunk best of one reference chunk (indices relative to `offset`) into the
// running k best of each observation, by (key, index).
template <class Indices, class Keys>
struct merge_chunk {
  Indices best_index, chunk_index;
  Keys best_key, chunk_key;
  int k, k_chunk, kept;  // kept: entries already in the running lists
  std::int64_t offset;

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    std::int64_t index[32];
    double key[32];
    int a = 0, b = 0;
    for (int q = 0; q < k; ++q) {
      const bool take_chunk =
          a >= kept || (b < k_chunk && (chunk_key(i, b) < best_key(i, a) ||
                                        (chunk_key(i, b) == best_key(i, a) &&
                                         chunk_index(i, b) + offset < best_index(i, a))));
      if (take_chunk && b >= k_chunk) break;  // both exhausted: fewer than k so far
      if (take_chunk) {
        index[q] = chunk_index(i, b) + offset;
        key[q] = chunk_key(i, b++);
      } else {
        index[q] = best_index(i, a);
        key[q] = best_key(i, a++);
      }
    }
    const int filled = a + b;
    for (int q = 0; q < filled; ++q) {
      best_index(i, q) = index[q];
      best_key(i, q) = key[q];
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

// Rows per chunk for a budget of `budget` bytes, or throws naming options.memory_budget.
struct chunk_plan {
  std::size_t observation_rows, reference_rows;
};

template <class MemorySpace>
chunk_plan plan_chunks(std::size_t budget, std::size_t n, std::size_t m, std::size_t observation_row,
                       std::size_t reference_row, std::size_t k) {
  // Half the budget for a reference chunk and its index, half for observations and results.
  std::size_t reference_rows = m;
  const auto reference_bytes = [&](std::size_t rows) {
    return rows * (reference_row + 128) + sphere_grid<MemorySpace>::bytes(std::int64_t(rows));
  };
  while (reference_rows > 1 && reference_bytes(reference_rows) > budget / 2)
    reference_rows = (reference_rows + 1) / 2;
  const std::size_t per_observation = observation_row + 4 * k * 16;
  const std::size_t observation_rows = std::min(n, (budget / 2) / per_observation);
  if (reference_bytes(reference_rows) > budget / 2 || observation_rows == 0 || reference_rows < k)
    throw invalid_argument("nearest", "options.memory_budget",
                           std::to_string(budget) + " bytes cannot hold a chunk of " +
                               std::to_string(k) + " references and one observation");
  return {observation_rows, reference_rows};
}

// Runs `core(observations, references, output, k)` over chunks; core is one of the methods.
template <class ExecutionSpace, class Observations, class References, class Indices,
          class Distances, class Core, class Distance>
void nearest_chunked(const ExecutionSpace& space, const Observations& observations,
                     const References& references, const Indices& indices,
                     const Distances& distances, int k, const chunk_plan& plan, const Core& core,
                     const Distance& distance) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::size_t n = observations.extent(0), m = references.extent(0);
  const std::size_t n_c = plan.observation_rows, m_c = plan.reference_rows;
  Kokkos::View<typename Observations::non_const_value_type**, Kokkos::LayoutRight, memory_space>
      observation_chunk(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::nearest::obs_chunk"),
                        n_c, observations.extent(1));
  Kokkos::View<typename References::non_const_value_type**, Kokkos::LayoutRight, memory_space>
      reference_chunk(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::nearest::ref_chunk"),
                      m_c, references.extent(1));
  using index_matrix = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space>;
  using key_matrix = Kokkos::View<double**, Kokkos::LayoutRight, memory_space>;
  index_matrix best_index("kernwerk::nearest::best_index", n_c, k),
      chunk_index("kernwerk::nearest::chunk_index", n_c, k);
  key_matrix best_key("kernwerk::nearest::best_key", n_c, k),
      chunk_key("kernwerk::nearest::chunk_key", n_c, k);
  // Results go through device buffers of the caller's types where the caller's outputs are
  // out of reach.
  auto indices_here = Kokkos::create_mirror_view(memory_space(), indices);
  auto distances_here = Kokkos::create_mirror_view(memory_space(), distances);

  const bool one_reference_chunk = m_c >= m;
  for (std::size_t first = 0; first < n; first += n_c) {
    const std::size_t rows = std::min(n_c, n - first);
    const auto row_range = std::make_pair(std::size_t(0), rows);
    copy_rows_in(space, observation_chunk, observations, first, rows);
    const auto obs = Kokkos::subview(observation_chunk, row_range, Kokkos::ALL());
    int kept = 0;
    for (std::size_t offset = 0; offset < m; offset += m_c) {
      const std::size_t reference_rows = std::min(m_c, m - offset);
      if (!one_reference_chunk || first == 0)
        copy_rows_in(space, reference_chunk, references, offset, reference_rows);
      const int k_chunk = int(std::min<std::size_t>(k, reference_rows));
      const auto columns = std::make_pair(0, k_chunk);
      const auto out_index = Kokkos::subview(chunk_index, row_range, columns);
      const auto out_key = Kokkos::subview(chunk_key, row_range, columns);
      core(obs, Kokkos::subview(reference_chunk, std::make_pair(std::size_t(0), reference_rows), Kokkos::ALL()),
           neighbour_output<decltype(out_index), decltype(out_key)>{out_index, out_key, true},
           k_chunk);
      Kokkos::parallel_for("kernwerk::nearest::chunk_merge", policy(space, 0, rows),
                           merge_chunk<index_matrix, key_matrix>{best_index, chunk_index, best_key,
                                                                 chunk_key, k, k_chunk, kept,
                                                                 std::int64_t(offset)});
      kept = std::min(k, kept + k_chunk);
    }
    Kokkos::parallel_for(
        "kernwerk::nearest::chunk_finish", policy(space, 0, rows),
        finish_chunk<index_matrix, key_matrix, Distance, decltype(indices_here),
                     decltype(distances_here)>{best_index, best_key, distance, indices_here,
                                               distances_here, std::int64_t(first), k});
  }
  if (indices_here.data() != indices.data()) Kokkos::deep_copy(space, indices, indices_here);
  if (distances_here.data() != distances.data()) Kokkos::deep_copy(space, distances, distances_here);
  space.fence();
}

}  // namespace kernwerk::impl
