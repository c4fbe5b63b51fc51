#pragma once
// Where a search writes its answers: rows of indices and distances, or of indices and keys
// where the chunks of staging/chunked.hpp merge their results exactly.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kernwerk/impl/packed_rows.hpp"

namespace kernwerk::impl {

// Writes neighbour q of observation i into rank-1 (k = 1) or rank-2 (n, k) outputs: its index
// and its distance, or with `keys` set its key itself (for merging the results of reference
// chunks exactly; the distance follows from the key at the end).
template <class Indices, class Distances>
struct neighbour_output {
  Indices indices;
  Distances distances;
  bool keys = false;

  template <class Metric>
  KOKKOS_INLINE_FUNCTION void write(std::int64_t i, int q, std::int64_t index, double key,
                                    const Metric& metric) const {
    const double value = keys ? key : metric.distance(key);
    if constexpr (Indices::rank == 1) {
      indices(i) = static_cast<typename Indices::non_const_value_type>(index);
      distances(i) = static_cast<typename Distances::non_const_value_type>(value);
    } else {
      indices(i, q) = static_cast<typename Indices::non_const_value_type>(index);
      distances(i, q) = static_cast<typename Distances::non_const_value_type>(value);
    }
  }
};

// The output the methods and the index's search are compiled for (impl/packed_rows.hpp).
template <class Index, class Distance, class MemorySpace>
using method_output =
    neighbour_output<method_matrix<Index, MemorySpace>, method_matrix<Distance, MemorySpace>>;

// Runs search(packed) with `output` as packed rows (method_matrix Views: the caller's own, or
// copies written back after the search, which the execution space finishes before they go).
template <class ExecutionSpace, class Output, class Search>
void with_packed_output(const ExecutionSpace& space, const Output& output, Search&& search) {
  const packed_rows<decltype(output.indices)> indices(space, output.indices, false);
  const packed_rows<decltype(output.distances)> distances(space, output.distances, false);
  search(neighbour_output<decltype(indices.rows), decltype(distances.rows)>{indices.rows, distances.rows,
                                                                           output.keys});
  indices.copy_back(space);
  distances.copy_back(space);
  if (indices.copied() || distances.copied()) space.fence();
}

}  // namespace kernwerk::impl
