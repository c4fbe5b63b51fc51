#pragma once
// The k best candidates of one observation, in the order of (key, index): the smaller index
// wins equal keys. Candidates may arrive in any order.
//
// Keys (the float64 haversine) are dear; chords (squared, float64) are cheap and order the
// candidates the same way wherever they differ by more than their rounding margin. So two
// candidates are compared by chord, and only chords within the margin of each other send for
// their keys, which are then kept; unless the two are the same point (duplicated references),
// whose keys are equal. A candidate whose chord exceeds the worst kept one's by more
// than the margin is farther than every kept candidate and is dropped unexamined.
//
// Up to 16 neighbours the list is a sorted array; above, a binary max-heap (the worst kept
// candidate on top, sorted once at the end) with 32-bit indices. For k = 32 the list lives in
// local memory, where the sorted array's shifting spills to DRAM on a GPU; the sorted array
// stays the faster for small k (perf/results/layouts-*; commit 2b03475). Above 32 neighbours
// (wide_capacity) the heap's entries lie in memory lent to each search (list_memory).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernwerk/impl/staging/neighbour_output.hpp"

namespace kernwerk::impl {

// The entries' storage: arrays of the list's own (local memory) ...
template <int Capacity, class Index, bool ChordIsKey>
struct local_entries {
  using index_type = Index;
  static constexpr bool chord_is_key = false;
  double chord[Capacity];
  double key[Capacity];
  Index index[Capacity];
};

// (where the metric's key is its chord, no keys: 12 bytes an entry)
template <int Capacity, class Index>
struct local_entries<Capacity, Index, true> {
  using index_type = Index;
  static constexpr bool chord_is_key = true;
  double chord[Capacity];
  Index index[Capacity];
};

// ... or k entries of memory lent for one search.
struct lent_entries {
  using index_type = std::int32_t;
  static constexpr bool chord_is_key = false;
  double* chord;
  double* key;
  std::int32_t* index;
};

// Whether a metric's key is its chord, exactly (then its margin is 0): its lists keep no keys.
template <class Metric, class = void>
struct chord_is_key : std::false_type {};
template <class Metric>
struct chord_is_key<Metric, std::enable_if_t<Metric::chord_is_key>> : std::true_type {};

// The entries and their order, shared by both lists.
template <class Storage>
struct neighbour_entries : Storage {
  using Index = typename Storage::index_type;
  static constexpr double unknown = -1.0;  // keys are never negative

  int k;  // neighbours wanted, at most the storage's
  int size = 0;
  double margin;  // of the chords

  // (local arrays left uninitialised: entries are written before they are read)
  KOKKOS_INLINE_FUNCTION neighbour_entries(int wanted, double chord_margin)
      : k(wanted), margin(chord_margin) {}
  KOKKOS_INLINE_FUNCTION neighbour_entries(int wanted, double chord_margin, const Storage& storage)
      : Storage(storage), k(wanted), margin(chord_margin) {}

  KOKKOS_INLINE_FUNCTION bool full() const { return size == k; }

  // Whether the candidate (chord c, key *candidate_key evaluated on demand, index j) comes
  // before element e. key_of(j) evaluates a key.
  template <class KeyOf>
  KOKKOS_INLINE_FUNCTION bool before(double c, double& candidate_key, std::int64_t j, int e,
                                     const KeyOf& key_of) {
    if constexpr (Storage::chord_is_key) {
      return c < this->chord[e] || (c == this->chord[e] && j < this->index[e]);
    } else {
      if (c < this->chord[e] - margin) return true;
      if (c > this->chord[e] + margin) return false;
      if (c == this->chord[e] && key_of.same_point(j, this->index[e])) return j < this->index[e];
      if (candidate_key == unknown) candidate_key = key_of(j);
      if (this->key[e] == unknown) this->key[e] = key_of(this->index[e]);
      return candidate_key < this->key[e] || (candidate_key == this->key[e] && j < this->index[e]);
    }
  }

  // The key of element e, evaluated if it was never needed.
  template <class KeyOf>
  KOKKOS_INLINE_FUNCTION double final_key(int e, const KeyOf& key_of) {
    if constexpr (Storage::chord_is_key) {
      return this->chord[e];
    } else {
      if (this->key[e] == unknown) this->key[e] = key_of(this->index[e]);
      return this->key[e];
    }
  }

 protected:
  KOKKOS_INLINE_FUNCTION void move(int from, int to) {
    this->chord[to] = this->chord[from];
    if constexpr (!Storage::chord_is_key) this->key[to] = this->key[from];
    this->index[to] = this->index[from];
  }
  KOKKOS_INLINE_FUNCTION void place(int e, double c, double candidate_key, std::int64_t j) {
    this->chord[e] = c;
    if constexpr (!Storage::chord_is_key) this->key[e] = candidate_key;
    this->index[e] = static_cast<Index>(j);
  }
};

// Kept in order: an insertion shifts the entries after it. Lists of more than one neighbour
// keep 32-bit indices (references are fewer than 2^31: check_reference_count) and the chord
// beyond which none enters in a register, so that a refused candidate reads no local memory,
// which on a GPU spills to DRAM (docs/performance.md, issue 46). A list of one is left as it
// was: the same storage cost it more registers than it saved.
template <int Capacity, bool ChordIsKey>
using sorted_entries = neighbour_entries<local_entries<
    Capacity, std::conditional_t<(Capacity > 1), std::int32_t, std::int64_t>, ChordIsKey>>;

template <int Capacity, bool ChordIsKey>
struct sorted_neighbours : sorted_entries<Capacity, ChordIsKey> {
  using base = sorted_entries<Capacity, ChordIsKey>;
  using base::base;

  double limit = INFINITY;  // lists of more than one: the last kept chord + margin once full

  // Whether a candidate with this chord can enter the list at all.
  KOKKOS_INLINE_FUNCTION bool admits(double candidate_chord) const {
    if constexpr (Capacity > 1) return candidate_chord <= limit;
    else return !this->full() || candidate_chord <= this->chord[0] + this->margin;
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
    if constexpr (Capacity > 1)
      if (this->full()) limit = this->chord[this->k - 1] + this->margin;
  }

  // In order already.
  template <class KeyOf>
  KOKKOS_INLINE_FUNCTION void sort(const KeyOf&) {}
};

// A max-heap: an insertion moves log2(k) entries. Indices are 32-bit (references are fewer
// than 2^31: check_reference_count), which keeps the local memory of a list at 20 bytes a
// neighbour.
template <class Storage>
struct neighbour_heap : neighbour_entries<Storage> {
  using neighbour_entries<Storage>::neighbour_entries;

  double limit = INFINITY;  // chords beyond it cannot enter: the worst kept one's + margin once full

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

// The most neighbours a list holds in its own arrays (local memory): the tuned scans' k.
inline constexpr int local_list_capacity = 32;
// The capacity of lists of more neighbours, whose entries are lent (list_memory).
inline constexpr int wide_capacity = 0;

// ChordIsKey (chord_is_key): the sorted lists of more than one keep no keys.
template <int Capacity, bool ChordIsKey = false>
using neighbour_list = std::conditional_t<
    Capacity == wide_capacity, neighbour_heap<lent_entries>,
    std::conditional_t<(Capacity > 16), neighbour_heap<local_entries<Capacity, std::int32_t, false>>,
                       sorted_neighbours<Capacity, (Capacity > 1 && ChordIsKey)>>>;

// The list of one search by Metric.
template <int Capacity, class Metric>
using list_for = neighbour_list<Capacity, chord_is_key<Metric>::value>;

// The memory of the lists of one launch: none where they hold their entries, else k entries
// (20 bytes each) for each of `searches` searches at once, search s taking slot s.
template <int Capacity, class MemorySpace>
struct list_memory {
  template <class Metric>
  KOKKOS_INLINE_FUNCTION list_for<Capacity, Metric> list(int k, std::int64_t) const {
    return list_for<Capacity, Metric>(k, Metric::margin);
  }
};

template <class MemorySpace>
struct list_memory<wide_capacity, MemorySpace> {
  Kokkos::View<double*, MemorySpace> chord, key;
  Kokkos::View<std::int32_t*, MemorySpace> index;
  int k = 0;

  list_memory() = default;
  list_memory(std::int64_t searches, int wanted)
      : chord(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::nearest::wide_chords"),
              searches * wanted),
        key(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::nearest::wide_keys"),
            searches * wanted),
        index(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::nearest::wide_indices"),
              searches * wanted),
        k(wanted) {}

  template <class Metric>
  KOKKOS_INLINE_FUNCTION neighbour_list<wide_capacity> list(int wanted, std::int64_t slot) const {
    const std::int64_t at = slot * k;
    return neighbour_list<wide_capacity>(wanted, Metric::margin,
                                         lent_entries{&chord(at), &key(at), &index(at)});
  }
};

// Searches that run at once with lists of k > 32 entries: as many as `bytes` of lists hold.
inline std::int64_t wide_list_searches(std::int64_t searches, int k, std::size_t bytes) {
  const std::int64_t by_memory = std::int64_t(bytes / (std::size_t(k) * 20));
  return std::max<std::int64_t>(1, std::min(searches, by_memory));
}
// Evaluates keys of one observation on demand, for neighbour_list.
template <class Metric>
struct key_evaluator {
  const Metric& metric;
  const typename Metric::point& o;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t j) const { return metric.key(o, j); }
  KOKKOS_INLINE_FUNCTION bool same_point(std::int64_t i, std::int64_t j) const {
    return metric.same_point(i, j);
  }
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
