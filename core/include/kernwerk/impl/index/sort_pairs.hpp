#pragma once
// Sorting (key, value) pairs by 64-bit key on an execution space: the spatial indexes order
// their points by Morton code with it, and host spaces a search's queries by cell
// (index/query_order.hpp).
//
// The generic implementation is a stable least-significant-digit radix sort, 8 bits a pass,
// portable to every Kokkos backend: the keys are cut into tiles, one thread counts the digits
// of its tile, a scan over (digit, tile) gives every tile its place, and the same thread
// scatters its tile in order. On host spaces each tile's counters lie together, so that threads
// do not share cache lines as they count and scatter; on devices each digit's, so that a warp's
// threads touch adjacent counters. The scan reads them in (digit, tile) order either way.
// A backend folder may specialise sort_pairs_tuned with its vendor sort (CUDA: CUB); both give
// the same order, since equal keys keep their input order.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::impl {

// Keys are sorted on their low `key_bits` bits (the rest must be zero).
template <class ExecutionSpace>
struct sort_pairs_tuned {
  static constexpr bool available = false;
};

namespace radix {
inline constexpr int digit_bits = 8;
inline constexpr int digit_count = 1 << digit_bits;

inline std::int64_t tile_size(std::int64_t n, std::int64_t concurrency) {
  // Enough tiles to occupy the space, few enough that the (digit, tile) counts stay ~4n.
  return std::max<std::int64_t>(64, (n + 4 * concurrency - 1) / (4 * concurrency));
}

// Where the counter of a digit in a tile lies.
struct counter_layout {
  std::int64_t tile_stride, digit_stride;
  KOKKOS_INLINE_FUNCTION std::int64_t at(std::int64_t t, std::int64_t digit) const {
    return t * tile_stride + digit * digit_stride;
  }
  KOKKOS_INLINE_FUNCTION std::int64_t of(std::int64_t t, std::uint64_t key, int shift) const {
    return at(t, std::int64_t((key >> shift) & (digit_count - 1)));
  }
};

template <class Counts>
struct count_digits {
  const std::uint64_t* keys;
  Counts counts;
  counter_layout layout;
  std::int64_t n, tile;
  int shift;
  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t end = (t + 1) * tile < n ? (t + 1) * tile : n;
    for (std::int64_t i = t * tile; i < end; ++i) ++counts(layout.of(t, keys[i], shift));
  }
};

// Element e of the scan is digit e / tiles of tile e % tiles.
template <class Counts>
struct exclusive_scan {
  Counts counts;
  counter_layout layout;
  std::int64_t tiles;
  KOKKOS_FUNCTION void operator()(const std::int64_t e, std::int64_t& partial,
                                  const bool final) const {
    const std::int64_t at = layout.at(e % tiles, e / tiles);
    const int count = counts(at);
    if (final) counts(at) = static_cast<int>(partial);
    partial += count;
  }
};

template <class Value, class Counts>
struct scatter_digits {
  const std::uint64_t* keys_in;
  const Value* values_in;
  std::uint64_t* keys_out;
  Value* values_out;
  Counts cursors;
  counter_layout layout;
  std::int64_t n, tile;
  int shift;
  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t end = (t + 1) * tile < n ? (t + 1) * tile : n;
    for (std::int64_t i = t * tile; i < end; ++i) {
      const std::uint64_t key = keys_in[i];
      const int to = cursors(layout.of(t, key, shift))++;
      keys_out[to] = key;
      values_out[to] = values_in[i];
    }
  }
};
}  // namespace radix

// Scratch bytes the generic sort needs for n pairs with values of type Value (Space: the
// execution space or its memory space).
template <class Space, class Value>
std::size_t sort_pairs_generic_bytes(std::int64_t n, std::int64_t concurrency) {
  using scratch = workspace<typename Space::memory_space>;
  const std::int64_t tiles = (n + radix::tile_size(n, concurrency) - 1) /
                             radix::tile_size(n, concurrency);
  return scratch::template bytes_for<std::uint64_t>(n) + scratch::template bytes_for<Value>(n) +
         scratch::template bytes_for<int>(radix::digit_count * tiles);
}

// Scratch bytes sort_pairs needs for n pairs with values of type Value.
template <class ExecutionSpace, class Value>
std::size_t sort_pairs_bytes(std::int64_t n, std::int64_t concurrency) {
  if constexpr (sort_pairs_tuned<ExecutionSpace>::available)
    return sort_pairs_tuned<ExecutionSpace>::template bytes<Value>(n);
  else
    return sort_pairs_generic_bytes<ExecutionSpace, Value>(n, concurrency);
}

// The generic sort: keys[0, n) ascending on their low key_bits bits, values carried along, in
// place; equal keys keep their order. Scratch comes from `buffers` (sort_pairs_generic_bytes).
// With `small` on a host space, in the calling thread as one tile (launch_steps' rule).
template <class ExecutionSpace, class Value, class Workspace>
void sort_pairs_generic(const ExecutionSpace& space, std::uint64_t* keys, Value* values,
                        std::int64_t n, int key_bits, Workspace& buffers, bool small = false) {
  if (n < 2) return;
  using policy = index_policy<ExecutionSpace>;
  using counts_view = Kokkos::View<int*, typename ExecutionSpace::memory_space, Kokkos::MemoryUnmanaged>;
  const bool in_caller = host_execution<ExecutionSpace> && small;
  const std::int64_t tile = in_caller ? n : radix::tile_size(n, space.concurrency());
  const std::int64_t tiles = (n + tile - 1) / tile;
  std::uint64_t* other_keys = buffers.template take<std::uint64_t>(n);
  Value* other_values = buffers.template take<Value>(n);
  const counts_view counts(buffers.template take<int>(radix::digit_count * tiles),
                           radix::digit_count * tiles);
  const radix::counter_layout layout =
      host_memory<typename ExecutionSpace::memory_space> ? radix::counter_layout{radix::digit_count, 1} : radix::counter_layout{1, tiles};
  // An even number of passes leaves the result where it started.
  const int passes = ((key_bits + radix::digit_bits - 1) / radix::digit_bits + 1) / 2 * 2;
  std::uint64_t *from_keys = keys, *to_keys = other_keys;
  Value *from_values = values, *to_values = other_values;
  if (in_caller) space.fence();  // what was queued before
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = pass * radix::digit_bits;
    const radix::count_digits<counts_view> count{from_keys, counts, layout, n, tile, shift};
    const radix::exclusive_scan<counts_view> scan{counts, layout, tiles};
    const radix::scatter_digits<Value, counts_view> scatter{from_keys, from_values, to_keys, to_values,
                                                           counts, layout, n, tile, shift};
    if (in_caller) {
      std::fill(counts.data(), counts.data() + counts.extent(0), 0);
      count(0);
      std::int64_t partial = 0;
      for (std::int64_t e = 0; e < std::int64_t(counts.extent(0)); ++e) scan(e, partial, true);
      scatter(0);
    } else {
      Kokkos::deep_copy(space, counts, 0);
      Kokkos::parallel_for("kernwerk::sort::count", policy(space, 0, tiles), count);
      Kokkos::parallel_scan("kernwerk::sort::scan", policy(space, 0, counts.extent(0)), scan);
      Kokkos::parallel_for("kernwerk::sort::scatter", policy(space, 0, tiles), scatter);
    }
    std::swap(from_keys, to_keys);
    std::swap(from_values, to_values);
  }
}

// Sorts as sort_pairs_generic does, by the backend's sort where it has one (the same order).
// Scratch comes from `buffers` (sort_pairs_bytes of it).
template <class ExecutionSpace, class Value, class Workspace>
void sort_pairs(const ExecutionSpace& space, std::uint64_t* keys, Value* values, std::int64_t n,
                int key_bits, Workspace& buffers, bool small = false) {
  if (n < 2) return;
  if constexpr (sort_pairs_tuned<ExecutionSpace>::available)
    sort_pairs_tuned<ExecutionSpace>::run(space, keys, values, n, key_bits, buffers);
  else
    sort_pairs_generic(space, keys, values, n, key_bits, buffers, small);
}

}  // namespace kernwerk::impl

// The backends' specialisations of sort_pairs_tuned come with its declaration, so that every
// translation unit sees the same ones (a specialisation seen by some units only is an ODR violation).
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_CUDA_TUNED
#include "kernwerk/cuda/sort.hpp"
#endif
