#pragma once
// The k best candidates of one observation, kept in registers (or local memory for large k),
// in the order of (key, index): the smaller index wins equal keys. Candidates may arrive in any
// order.
//
// Keys (the float64 haversine) are dear; chords (squared, float64) are cheap and order the
// candidates the same way wherever they differ by more than their rounding margin. So two
// candidates are compared by chord, and only chords within the margin of each other send for
// their keys, which are then kept. A candidate whose chord exceeds the last kept one's by more
// than the margin is farther than every kept candidate and is dropped unexamined.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kernwerk::impl {

template <int Capacity>
struct neighbour_list {
  static constexpr double unknown = -1.0;  // keys are never negative

  int k;  // neighbours wanted, 1..Capacity
  int size = 0;
  double margin;  // of the chords
  double chord[Capacity];
  double key[Capacity];
  std::int64_t index[Capacity];

  KOKKOS_INLINE_FUNCTION neighbour_list(int wanted, double chord_margin)
      : k(wanted), margin(chord_margin) {}

  KOKKOS_INLINE_FUNCTION bool full() const { return size == k; }

  // Whether a candidate with this chord can enter the list at all.
  KOKKOS_INLINE_FUNCTION bool admits(double candidate_chord) const {
    return !full() || candidate_chord <= chord[k - 1] + margin;
  }

  // Whether the candidate (chord c, key *candidate_key evaluated on demand, index j) comes
  // before element e. key_of(j) evaluates a key.
  template <class KeyOf>
  KOKKOS_INLINE_FUNCTION bool before(double c, double& candidate_key, std::int64_t j, int e,
                                     const KeyOf& key_of) {
    if (c < chord[e] - margin) return true;
    if (c > chord[e] + margin) return false;
    if (candidate_key == unknown) candidate_key = key_of(j);
    if (key[e] == unknown) key[e] = key_of(index[e]);
    return candidate_key < key[e] || (candidate_key == key[e] && j < index[e]);
  }

  // Inserts reference j (chord c) where it belongs, dropping the last one when full.
  template <class KeyOf>
  KOKKOS_INLINE_FUNCTION void offer(double c, std::int64_t j, const KeyOf& key_of) {
    double candidate_key = unknown;
    if (full() && !before(c, candidate_key, j, k - 1, key_of)) return;
    int slot = full() ? k - 1 : size++;
    while (slot > 0 && before(c, candidate_key, j, slot - 1, key_of)) {
      chord[slot] = chord[slot - 1];
      key[slot] = key[slot - 1];
      index[slot] = index[slot - 1];
      --slot;
    }
    chord[slot] = c;
    key[slot] = candidate_key;
    index[slot] = j;
  }

  // The key of element e, evaluated if it was never needed.
  template <class KeyOf>
  KOKKOS_INLINE_FUNCTION double final_key(int e, const KeyOf& key_of) {
    if (key[e] == unknown) key[e] = key_of(index[e]);
    return key[e];
  }
};

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

}  // namespace kernwerk::impl
