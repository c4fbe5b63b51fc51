#pragma once
// The k best candidates of one observation, kept in registers (or local memory for large k),
// ordered by (key, index): the smaller index wins equal keys. Candidates may arrive in any
// order. `chord` is the cheap filter value that goes with each key: a candidate whose chord
// exceeds the last kept one's by more than the filter's rounding margin is farther than every
// kept candidate, so its key need not be evaluated.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kernwerk::impl {

template <int Capacity>
struct neighbour_list {
  int k;  // neighbours wanted, 1..Capacity
  int size = 0;
  double key[Capacity];
  double chord[Capacity];
  std::int64_t index[Capacity];

  KOKKOS_INLINE_FUNCTION explicit neighbour_list(int wanted) : k(wanted) {}

  KOKKOS_INLINE_FUNCTION bool full() const { return size == k; }

  // Chords above this (plus the filter margin) cannot enter the list.
  KOKKOS_INLINE_FUNCTION double worst_chord() const { return chord[k - 1]; }

  KOKKOS_INLINE_FUNCTION static bool before(double key1, std::int64_t index1, double key2,
                                            std::int64_t index2) {
    return key1 < key2 || (key1 == key2 && index1 < index2);
  }

  // Inserts the candidate where it belongs, dropping the last one when the list is full.
  KOKKOS_INLINE_FUNCTION void offer(double candidate_key, double candidate_chord,
                                    std::int64_t candidate) {
    if (full() && !before(candidate_key, candidate, key[k - 1], index[k - 1])) return;
    int slot = full() ? k - 1 : size++;
    while (slot > 0 && before(candidate_key, candidate, key[slot - 1], index[slot - 1])) {
      key[slot] = key[slot - 1];
      chord[slot] = chord[slot - 1];
      index[slot] = index[slot - 1];
      --slot;
    }
    key[slot] = candidate_key;
    chord[slot] = candidate_chord;
    index[slot] = candidate;
  }
};

// Writes neighbour q of observation i into rank-1 (k = 1) or rank-2 (n, k) outputs.
template <class Indices, class Distances>
struct neighbour_output {
  Indices indices;
  Distances distances;

  KOKKOS_INLINE_FUNCTION void write(std::int64_t i, int q, std::int64_t index,
                                    double distance) const {
    if constexpr (Indices::rank == 1) {
      indices(i) = static_cast<typename Indices::non_const_value_type>(index);
      distances(i) = static_cast<typename Distances::non_const_value_type>(distance);
    } else {
      indices(i, q) = static_cast<typename Indices::non_const_value_type>(index);
      distances(i, q) = static_cast<typename Distances::non_const_value_type>(distance);
    }
  }
};

}  // namespace kernwerk::impl
