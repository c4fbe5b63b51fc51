#pragma once
// The k best candidates of one observation, in the order of (key, index): the smaller index
// wins equal keys. Candidates may arrive in any order.
//
// Keys (the float64 haversine) are dear; chords (squared, float64) are cheap and order the
// candidates the same way wherever they differ by more than their rounding margin. So two
// candidates are compared by chord, and only chords within the margin of each other send for
// their keys, which are then kept. A candidate whose chord exceeds the worst kept one's by more
// than the margin is farther than every kept candidate and is dropped unexamined.
//
// Up to 16 neighbours the list is a sorted array; above, a binary max-heap (the worst kept
// candidate on top, sorted once at the end) with 32-bit indices. For k = 32 the list lives in
// local memory, where the sorted array's shifting spills to DRAM on a GPU; the sorted array
// stays the faster for small k (perf/results/layouts-*; commit 2b03475).
#include <Kokkos_Core.hpp>

#include <cfloat>
#include <cstdint>
#include <type_traits>

#include "kernwerk/impl/staging/neighbour_output.hpp"

namespace kernwerk::impl {

// The entries and their order, shared by both lists.
template <int Capacity, class Index>
struct neighbour_entries {
  static constexpr double unknown = -1.0;  // keys are never negative

  int k;  // neighbours wanted, 1..Capacity
  int size = 0;
  double margin;  // of the chords
  double chord[Capacity];
  double key[Capacity];
  Index index[Capacity];

  KOKKOS_INLINE_FUNCTION neighbour_entries(int wanted, double chord_margin)
      : k(wanted), margin(chord_margin) {}

  KOKKOS_INLINE_FUNCTION bool full() const { return size == k; }

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

  // The key of element e, evaluated if it was never needed.
  template <class KeyOf>
  KOKKOS_INLINE_FUNCTION double final_key(int e, const KeyOf& key_of) {
    if (key[e] == unknown) key[e] = key_of(index[e]);
    return key[e];
  }

 protected:
  KOKKOS_INLINE_FUNCTION void move(int from, int to) {
    chord[to] = chord[from];
    key[to] = key[from];
    index[to] = index[from];
  }
  KOKKOS_INLINE_FUNCTION void place(int e, double c, double candidate_key, std::int64_t j) {
    chord[e] = c;
    key[e] = candidate_key;
    index[e] = static_cast<Index>(j);
  }
};

// Kept in order: an insertion shifts the entries after it.
template <int Capacity>
struct sorted_neighbours : neighbour_entries<Capacity, std::int64_t> {
  using neighbour_entries<Capacity, std::int64_t>::neighbour_entries;

  // Whether a candidate with this chord can enter the list at all.
  KOKKOS_INLINE_FUNCTION bool admits(double candidate_chord) const {
    return !this->full() || candidate_chord <= this->chord[this->k - 1] + this->margin;
  }

  // Inserts reference j (chord c) where it belongs, dropping the last one when full.
  template <class KeyOf>
  KOKKOS_INLINE_FUNCTION void offer(double c, std::int64_t j, const KeyOf& key_of) {
    double candidate_key = this->unknown;
    if (this->full() && !this->before(c, candidate_key, j, this->k - 1, key_of)) return;
    int slot = this->full() ? this->k - 1 : this->size++;
    while (slot > 0 && this->before(c, candidate_key, j, slot - 1, key_of)) {
      this->move(slot - 1, slot);
      --slot;
    }
    this->place(slot, c, candidate_key, j);
  }

  // In order already.
  template <class KeyOf>
  KOKKOS_INLINE_FUNCTION void sort(const KeyOf&) {}
};

// A max-heap: an insertion moves log2(k) entries. Indices are 32-bit (references are fewer
// than 2^31: check_reference_count), which keeps the local memory of a list at 20 bytes a
// neighbour.
template <int Capacity>
struct neighbour_heap : neighbour_entries<Capacity, std::int32_t> {
  using neighbour_entries<Capacity, std::int32_t>::neighbour_entries;

  double limit = DBL_MAX;  // chords beyond it cannot enter: the worst kept one's + margin once full

  KOKKOS_INLINE_FUNCTION bool admits(double candidate_chord) const { return candidate_chord <= limit; }

  // Inserts reference j (chord c), dropping the worst one when full.
  template <class KeyOf>
  KOKKOS_INLINE_FUNCTION void offer(double c, std::int64_t j, const KeyOf& key_of) {
    double candidate_key = this->unknown;
    if (this->full()) {
      if (!this->before(c, candidate_key, j, 0, key_of)) return;
      sift_down(0, this->size, c, candidate_key, j, key_of);
    } else {
      int hole = this->size++;
      while (hole > 0) {  // up past every parent that comes before the candidate
        const int parent = (hole - 1) / 2;
        if (this->before(c, candidate_key, j, parent, key_of)) break;
        this->move(parent, hole);
        hole = parent;
      }
      this->place(hole, c, candidate_key, j);
    }
    if (this->full()) limit = this->chord[0] + this->margin;
  }

  // Puts the list in order, best first (once, after the last offer).
  template <class KeyOf>
  KOKKOS_INLINE_FUNCTION void sort(const KeyOf& key_of) {
    for (int end = this->size - 1; end > 0; --end) {
      const double c = this->chord[end];
      double candidate_key = this->key[end];
      const std::int64_t j = this->index[end];
      this->move(0, end);
      sift_down(0, end, c, candidate_key, j, key_of);
    }
  }

 private:
  // Places the candidate in the heap [0, count) from `hole` down, past every child that comes
  // after it.
  template <class KeyOf>
  KOKKOS_INLINE_FUNCTION void sift_down(int hole, int count, double c, double& candidate_key,
                                        std::int64_t j, const KeyOf& key_of) {
    for (;;) {
      int child = 2 * hole + 1;
      if (child >= count) break;
      if (child + 1 < count &&
          this->before(this->chord[child], this->key[child], this->index[child], child + 1, key_of))
        ++child;  // the later of the two
      if (!this->before(c, candidate_key, j, child, key_of)) break;
      this->move(child, hole);
      hole = child;
    }
    this->place(hole, c, candidate_key, j);
  }
};

template <int Capacity>
using neighbour_list =
    std::conditional_t<(Capacity > 16), neighbour_heap<Capacity>, sorted_neighbours<Capacity>>;
// Evaluates keys of one observation on demand, for neighbour_list.
template <class Metric>
struct key_evaluator {
  const Metric& metric;
  const typename Metric::point& o;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t j) const { return metric.key(o, j); }
};

// Offers reference j (chord already computed) to the list.
template <class Metric, class List>
KOKKOS_INLINE_FUNCTION void consider(const key_evaluator<Metric>& keys, double chord,
                                     std::int64_t j, List& list) {
  if (list.admits(chord)) list.offer(chord, j, keys);
}

template <class Metric, class Output, class List>
KOKKOS_INLINE_FUNCTION void write_list(const key_evaluator<Metric>& keys, const Output& output,
                                       std::int64_t i, List& list) {
  list.sort(keys);
  for (int q = 0; q < list.k; ++q)
    output.write(i, q, list.index[q], list.final_key(q, keys), keys.metric);
}

}  // namespace kernwerk::impl
