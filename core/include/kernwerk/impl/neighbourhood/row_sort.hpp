#pragma once
// Sorting the rows of a radius search's answer by (distance, index): in registers (register_row,
// rows the fill holds whole), by one thread where a row lies (sort_by_key), and by a team a row
// in its scratch memory (sort_rows_by_team: on GPUs, the rows longer than the registers hold).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "kernwerk/impl/launch.hpp"

namespace kernwerk::impl {

// The longest rows sort_by_key sorts by insertion on host spaces (those within's count pass
// keeps there: held_policy; perf/results/issue50-host-insertion-sort-epyc-2core.json).
inline constexpr std::int64_t held_sort_by_insertion = 64;

// Whether the entry (d, x) comes before (key, value): by distance, then index. Every sort of a
// row orders by it.
template <class Key, class Index>
KOKKOS_INLINE_FUNCTION bool entry_before(Key d, Index x, Key key, Index value) {
  return d < key || (d == key && x < value);
}

// Sorts the pairs keys[begin, end) and values[begin, end) by key, equal keys by value: a heap
// sort, in place (one thread, any length; short rows are sorted in registers: register_row),
// on host spaces an insertion sort up to held_sort_by_insertion entries.
template <class Keys, class Values>
KOKKOS_INLINE_FUNCTION void sort_by_key(const Keys& keys, const Values& values, std::int64_t begin,
                                        std::int64_t end) {
  const auto precedes = [&](const auto& key, const auto& value, std::int64_t b) {
    return entry_before(key, value, keys(b), values(b));
  };
  const auto before = [&](std::int64_t a, std::int64_t b) { return precedes(keys(a), values(a), b); };
  const auto swap = [&](std::int64_t a, std::int64_t b) {
    const auto key = keys(a);
    keys(a) = keys(b);
    keys(b) = key;
    const auto value = values(a);
    values(a) = values(b);
    values(b) = value;
  };
  const std::int64_t n = end - begin;
  if constexpr (host_memory<typename Keys::memory_space>) {
    if (n <= held_sort_by_insertion) {
      for (std::int64_t e = begin + 1; e < end; ++e) {
        const auto key = keys(e);
        const auto value = values(e);
        std::int64_t at = e;
        for (; at > begin && precedes(key, value, at - 1); --at) {
          keys(at) = keys(at - 1);
          values(at) = values(at - 1);
        }
        keys(at) = key;
        values(at) = value;
      }
      return;
    }
  }
  // Max-heap on [begin, begin + size): children of begin + c are begin + 2c + 1, 2c + 2.
  const auto sift_down = [&](std::int64_t c, std::int64_t size) {
    for (;;) {
      std::int64_t largest = c;
      const std::int64_t left = 2 * c + 1, right = left + 1;
      if (left < size && before(begin + largest, begin + left)) largest = left;
      if (right < size && before(begin + largest, begin + right)) largest = right;
      if (largest == c) return;
      swap(begin + c, begin + largest);
      c = largest;
    }
  };
  for (std::int64_t c = n / 2 - 1; c >= 0; --c) sift_down(c, n);
  for (std::int64_t size = n - 1; size > 0; --size) {
    swap(begin, begin + size);
    sift_down(0, size);
  }
}


// A row of up to Capacity neighbours kept sorted by (distance, index) in registers: every
// index into the arrays is known at compile time once the loops unroll, where an insertion's
// shifting in an array indexed at run time goes to local memory (on the H200 the fill of
// rows of 10 took 2.7 times its unsorted fill: perf/results/dbscan-cuda-h200.json).
template <int Capacity, class Index>
struct register_row {
  double key[Capacity];
  Index value[Capacity];
  KOKKOS_INLINE_FUNCTION register_row() {
    for (int k = 0; k < Capacity; ++k) {
      key[k] = std::numeric_limits<double>::infinity();  // after every distance found
      value[k] = std::numeric_limits<Index>::max();
    }
  }
  KOKKOS_INLINE_FUNCTION static bool before(double d, Index x, double key, Index value) {
    return entry_before(d, x, key, value);
  }
  // Inserts (d, x); the row holds fewer than Capacity entries.
  KOKKOS_INLINE_FUNCTION void insert(double d, Index x) {
    for (int k = Capacity - 1; k > 0; --k) {
      if (before(d, x, key[k - 1], value[k - 1])) {
        key[k] = key[k - 1];
        value[k] = value[k - 1];
      } else if (before(d, x, key[k], value[k])) {
        key[k] = d;
        value[k] = x;
      }
    }
    if (before(d, x, key[0], value[0])) {
      key[0] = d;
      value[0] = x;
    }
  }
  // Inserts (d, x) as entry number `size` (size < Capacity): by shifting on host spaces, by
  // passes over every entry on GPUs (insert_shifting, insert).
  template <class MemorySpace>
  KOKKOS_INLINE_FUNCTION void add(int size, double d, Index x) {
    if constexpr (host_memory<MemorySpace>) insert_shifting(size, d, x);
    else insert(d, x);
  }
  // The first `count` entries to found and (with_distances) distances from `begin` on.
  template <class Found, class Distances>
  KOKKOS_INLINE_FUNCTION void write(const Found& found, const Distances& distances, std::int64_t begin,
                                    std::int64_t count, bool with_distances) const {
    for (int k = 0; k < Capacity; ++k) {
      if (k < count) {
        found(begin + k) = value[k];
        if (with_distances) distances(begin + k) = static_cast<typename Distances::value_type>(key[k]);
      }
    }
  }
  // Inserts (d, x) into the first `size` entries (size < Capacity) by shifting only those after
  // it: on a core, where the passes over every entry of insert cost more than the indexing.
  KOKKOS_INLINE_FUNCTION void insert_shifting(int size, double d, Index x) {
    int k = size;
    for (; k > 0 && before(d, x, key[k - 1], value[k - 1]); --k) {
      key[k] = key[k - 1];
      value[k] = value[k - 1];
    }
    key[k] = d;
    value[k] = x;
  }
};


// Which rows of a fill are left unsorted where they lie: those longer than `sorted_up_to` but
// for the lengths of (slots_above, slots_up_to], which another launch sorts.
struct left_unsorted {
  std::int64_t sorted_up_to = 0;
  std::int64_t slots_above = 0;
  std::int64_t slots_up_to = 0;
  KOKKOS_INLINE_FUNCTION bool operator()(std::int64_t count) const {
    return count > sorted_up_to && !(count > slots_above && count <= slots_up_to);
  }
  // Whether any row of up to `longest` may be.
  bool any(std::int64_t longest) const {
    return longest > sorted_up_to && !(slots_above <= sorted_up_to && longest <= slots_up_to);
  }
};

// The rows `unsorted` names of each query i of [first, first + team_sort_rows) a team takes,
// sorted where they lie by (keys, found), then their distances written from the keys. A team
// sorts a row of up to team_sort_capacity from its scratch memory by rank: each thread counts,
// for entries of its own, the entries before them (the pairs are distinct: a row holds a point
// once), and writes each at its rank; one thread sorts a longer row (sort_by_key). On a GPU
// sort_by_key's heap sort, a thread a row in memory, took most of a sorted within of about 40
// neighbours a query (perf/results/issue50-wide-grid-span-cuda-h100.json: 6.5 times the set-only
// rows), and this kernel's first version, a bitonic network with a barrier a stage, 47 ms of the
// 192 at 2^24 (Nsight Compute, issue50-team-sort-cuda-h100.json).
inline constexpr int team_sort_capacity = 256;
inline constexpr std::int64_t team_sort_rows = 32;

struct row_sort_policy {
  // 1 yes, 0 no, -1 the memory space's default: GPUs (kernwerk_bench_dbscan --team-sort)
  static inline int by_team = -1;
  template <class MemorySpace>
  static bool by_team_for() {
    return by_team >= 0 ? by_team != 0 : !host_memory<MemorySpace>;
  }
};

template <class ExecutionSpace, class Offsets, class Keys, class Found, class Distances>
struct sort_rows_by_team {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  using index_type = typename Found::non_const_value_type;
  using distance_type = typename Distances::non_const_value_type;
  using scratch_space = typename ExecutionSpace::scratch_memory_space;
  using key_scratch = Kokkos::View<double*, scratch_space, Kokkos::MemoryUnmanaged>;
  using value_scratch = Kokkos::View<index_type*, scratch_space, Kokkos::MemoryUnmanaged>;
  Offsets offsets;
  Keys keys;
  Found found;
  Distances distances;  // empty: none asked for
  std::int64_t n = 0;
  left_unsorted unsorted;

  static std::size_t scratch_bytes() {
    return key_scratch::shmem_size(team_sort_capacity) + value_scratch::shmem_size(team_sort_capacity);
  }
  static std::int64_t teams(std::int64_t n) { return (n + team_sort_rows - 1) / team_sort_rows; }

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const key_scratch key(team.team_scratch(0), team_sort_capacity);
    const value_scratch value(team.team_scratch(0), team_sort_capacity);
    const bool with_distances = distances.extent(0) > 0;
    const std::int64_t first = team.league_rank() * team_sort_rows;
    const std::int64_t last = first + team_sort_rows < n ? first + team_sort_rows : n;
    for (std::int64_t i = first; i < last; ++i) {
      const std::int64_t begin = offsets(i), count = offsets(i + 1) - begin;
      if (!unsorted(count)) continue;
      if (count > team_sort_capacity) {
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          sort_by_key(keys, found, begin, begin + count);
          if (with_distances)
            for (std::int64_t e = begin; e < begin + count; ++e) distances(e) = static_cast<distance_type>(keys(e));
        });
        team.team_barrier();
        continue;
      }
      const int size = int(count);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, size), [&](const int e) {
        key(e) = keys(begin + e);
        value(e) = found(begin + e);
      });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, size), [&](const int e) {
        const double k = key(e);
        const index_type v = value(e);
        int rank = 0;
        for (int f = 0; f < size; ++f) rank += entry_before(key(f), value(f), k, v);
        found(begin + rank) = v;
        if (with_distances) distances(begin + rank) = static_cast<distance_type>(k);
      });
      team.team_barrier();  // (the next row's entries go where these were read)
    }
  }
};

// Sorts the rows `unsorted` names of the n queries of `offsets`: their neighbours in found and
// their float64 distances in keys, written to distances (none where empty).
template <class ExecutionSpace, class Offsets, class Keys, class Found, class Distances>
void sort_rows_where_they_lie(const ExecutionSpace& space, const Offsets& offsets, const Keys& keys,
                              const Found& found, const Distances& distances, std::int64_t n,
                              const left_unsorted& unsorted) {
  using kernel = sort_rows_by_team<ExecutionSpace, Offsets, Keys, Found, Distances>;
  const kernel sort{offsets, keys, found, distances, n, unsorted};
  using policy_type = Kokkos::TeamPolicy<ExecutionSpace>;
  const auto scratch = Kokkos::PerTeam(kernel::scratch_bytes());
  // A warp a team on a GPU; on a host space as many threads as it gives a team, at most 32.
  const int most = policy_type(space, 1, 1).set_scratch_size(0, scratch).team_size_max(sort, Kokkos::ParallelForTag());
  const int team_size = std::max(1, std::min(32, most));
  Kokkos::parallel_for("kernwerk::within::sort_rows",
                       policy_type(space, kernel::teams(n), team_size).set_scratch_size(0, scratch), sort);
}

}  // namespace kernwerk::impl
