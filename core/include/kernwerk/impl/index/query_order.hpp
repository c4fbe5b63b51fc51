#pragma once
// The order a search of an index takes its queries in: where it pays, sorted by Morton cell, so
// that neighbouring threads search the same nodes (on devices a counting sort, on host spaces a
// radix sort of (cell, query) pairs). kernwerk::nearest's indexed method
// and the radius searches (within, count_within) share it; a query source is anything with
// observation(i) giving a point with x, y and z in the index's frame.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

#include "kernwerk/impl/index/point_bvh.hpp"
#include "kernwerk/impl/index/sort_pairs.hpp"
#include "kernwerk/impl/index/sphere_grid.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/workspace.hpp"
#include "kernwerk/nearest_options.hpp"

namespace kernwerk::impl {

// Observations in an order that keeps neighbours together pay where a GPU runs at least one
// observation per thread (the threads of a warp then take the same paths), and on host spaces
// where the index outgrows the caches (its points then come from the caches, not from memory);
// elsewhere the input order is kept (nearest_tuning's order_*; perf/results/layouts-cuda-h200.json,
// commit 906c36b; perf/results/issue46-host-order-epyc-2core.json).
template <class MemorySpace>
bool order_pays(const nearest_tuning& tuning, std::int64_t observations, std::int64_t references,
                std::int64_t concurrency) {
  if (host_memory<MemorySpace> && references >= tuning.order_min_references) return true;
  return concurrency >= tuning.order_min_concurrency &&
         observations >= tuning.order_per_thread * concurrency;
}

// The order is a sort by Morton cell. Where the grid is used, the cells are the grid's
// own (up to 2^7 an axis; coarser beyond), so that a warp's searches visit the same grid cells;
// elsewhere, and where the observations gather in a few of the grid's cells, 2^6 an axis of a
// frame around the observations' own box (a frame around the references would clamp far
// observations onto its faces, where one cell then holds searches from every direction, all
// adding to one counter: commit 194fbcf). A host space needs only the caches' locality, and
// 2^5 an axis keeps its sort short (finer cells cost more than they gave: the same record).
template <class MemorySpace>
int observation_cell_bits(std::int64_t references) {
  if (host_memory<MemorySpace>) return 5;
  int bits = 6;
  while (bits < 7 && (1 << bits) < grid_cells_per_axis(references)) ++bits;
  return bits;
}
template <class MemorySpace>
std::int64_t observation_cells(std::int64_t references) {
  return std::int64_t(1) << (3 * observation_cell_bits<MemorySpace>(references));
}

// Searches of k neighbours or more on a device sort their queries by the Morton code of a fine
// frame around them instead (nearest_tuning::fine_order_min_k), by sort_pairs.
inline constexpr int fine_order_bits = 10;
template <class MemorySpace>
bool fine_order(const nearest_tuning& tuning, int k, std::int64_t concurrency) {
  return !host_memory<MemorySpace> && k >= tuning.fine_order_min_k &&
         concurrency >= tuning.order_min_concurrency;
}

// Counters that many threads add to, of the 64-bit type whose atomic add the Kokkos in use
// implements natively on every backend. Kokkos 3.4 has CUDA's atomicAdd for unsigned long long
// and a compare-and-swap loop for a 64-bit long; Kokkos 4 and 5 (desul's inline PTX) have it
// the other way round: std::uint64_t, unsigned long on Linux, is native, unsigned long long a
// compare-and-swap loop. A loop costs many times the add (commits 266c5b0, 94fc215).
#if KOKKOS_VERSION >= 40000 || defined(KOKKOS_ENABLE_IMPL_DESUL_ATOMICS)
using atomic_count = std::uint64_t;
#else
using atomic_count = unsigned long long;
#endif

template <class Metric, class Counts, class Cells>
struct count_observation_cells {
  Metric metric;
  morton_frame frame;
  Counts counts;
  Cells cell_of;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    const auto o = metric.observation(i);
    const int c = static_cast<int>(frame.code(o.x, o.y, o.z));
    cell_of(i) = c;
    Kokkos::atomic_add(&counts(c), atomic_count(1));
  }
};

// The box of observations sampled evenly over the set: the frame of their order, which a point
// outside it (clamped onto its faces) leaves correct, if less well ordered.
inline constexpr std::int64_t observation_bounds_sample = 1 << 16;
template <class Metric>
struct observation_bounds {
  Metric metric;
  std::int64_t n, samples;
  KOKKOS_FUNCTION void operator()(const std::int64_t r, box3& box) const {
    const auto o = metric.observation(r * (n / samples) + (r * (n % samples)) / samples);
    box.add(o.x, o.y, o.z);
  }
};

// Cells of `frame` a box spans along its longest axis.
inline double spans_cells(const box3& box, const morton_frame& frame) {
  return box.longest_side() * frame.scale;
}
inline constexpr double min_spanned_cells = 8;

template <class Counts, class Cells, class Array>
struct scatter_observations {
  Counts cursor;
  Cells cell_of;
  Array order;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    order(static_cast<std::int64_t>(Kokkos::atomic_fetch_add(&cursor(cell_of(i)), atomic_count(1)))) = i;
  }
};

// A host space's order: each query's cell code and its index, sorted as pairs
// (index/sort_pairs.hpp).
template <class Metric, class Keys, class Array>
struct code_observations {
  Metric metric;
  morton_frame frame;
  Keys keys;
  Array order;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    const auto o = metric.observation(i);
    keys(i) = frame.code(o.x, o.y, o.z);
    order(i) = i;
  }
};

template <class Array>
struct identity_order {
  Array order;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const { order(i) = i; }
};

// Scratch bytes of order_queries for searches of k neighbours (radius searches: 0): the order
// and, where it pays, the cells' counters on a device (2^18 or more, 4 MiB, asked for only
// then: a host space's chunks of a few kilobytes would otherwise need them; the
// allocation-fault test found it), the codes and their sort's on a host and in a fine order.
template <class MemorySpace>
std::size_t query_order_bytes(std::int64_t queries, std::int64_t references,
                              std::int64_t concurrency, const nearest_tuning& tuning, int k) {
  using carve = workspace<MemorySpace>;
  std::size_t ordering = 0;
  const auto sorted_bytes = [&] {
    return carve::template bytes_for<std::uint64_t>(queries) +
           sort_pairs_bytes<typename MemorySpace::execution_space, std::int64_t>(queries,
                                                                                 concurrency);
  };
  if (queries > 0 && fine_order<MemorySpace>(tuning, k, concurrency)) {
    ordering = sorted_bytes();
  } else if (order_pays<MemorySpace>(tuning, queries, references, concurrency)) {
    if constexpr (host_memory<MemorySpace>)
      ordering = sorted_bytes();
    else
      ordering = carve::template bytes_for<int>(queries) +
                 2 * carve::template bytes_for<atomic_count>(observation_cells<MemorySpace>(references) + 1);
  }
  return carve::template bytes_for<std::int64_t>(queries) + ordering;
}

// The order of the n queries of `source` on `bvh` for searches of k neighbours (radius
// searches: 0; order(t): the query thread t searches for), in scratch from `scratch`
// (query_order_bytes), queued on `space`.
template <class ExecutionSpace, class Source, class Bvh, class Scratch>
Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space, Kokkos::MemoryUnmanaged>
order_queries(const ExecutionSpace& space, const Source& source, std::int64_t n, const Bvh& bvh,
              const nearest_tuning& tuning, int k, Scratch& scratch) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = index_policy<ExecutionSpace>;
  using array = Kokkos::View<std::int64_t*, memory_space, Kokkos::MemoryUnmanaged>;
  const array order(scratch.template take<std::int64_t>(n), n);
  const bool fine = n > 0 && fine_order<memory_space>(tuning, k, space.concurrency());
  if (n == 0 || (!fine && !order_pays<memory_space>(tuning, n, bvh.size, space.concurrency()))) {
    Kokkos::parallel_for("kernwerk::index::query_identity", policy(space, 0, n),
                         identity_order<array>{order});
    return order;
  }
  const int bits = fine ? fine_order_bits : observation_cell_bits<memory_space>(bvh.size);
  box3 bounds;
  const std::int64_t samples = std::min(n, observation_bounds_sample);
  Kokkos::parallel_reduce("kernwerk::index::query_bounds", policy(space, 0, samples),
                          observation_bounds<Source>{source, n, samples},
                          box_union<Kokkos::HostSpace>(bounds));
  const morton_frame grid_frame{{-1.0, -1.0, -1.0}, std::min(bvh.grid.cells, 1 << bits) / 2.0, bits};
  const morton_frame own_frame = morton_frame::around(bounds, bits);
  const morton_frame frame =
      !fine && bvh.grid.used && spans_cells(bounds, grid_frame) >= min_spanned_cells ? grid_frame
                                                                                      : own_frame;
  if (host_memory<memory_space> || fine) {
    // On a host space, a radix sort whose threads count their own tiles: the counting sort's
    // two atomic adds a query, on counters the cores share, were most of the order's time
    // there (perf/results/issue50-host-order-sort-epyc-2core.json). A fine order has too
    // many cells to count.
    using keys_type = Kokkos::View<std::uint64_t*, memory_space, Kokkos::MemoryUnmanaged>;
    const keys_type keys(scratch.template take<std::uint64_t>(n), n);
    Kokkos::parallel_for("kernwerk::index::query_codes", policy(space, 0, n),
                         code_observations<Source, keys_type, array>{source, frame, keys, order});
    sort_pairs(space, keys.data(), order.data(), n, 3 * bits, scratch);
    return order;
  }
  // On a device, a counting sort by cell.
  using counts_type = Kokkos::View<atomic_count*, memory_space, Kokkos::MemoryUnmanaged>;
  using cells_type = Kokkos::View<int*, memory_space, Kokkos::MemoryUnmanaged>;
  const std::int64_t cells = observation_cells<memory_space>(bvh.size);
  const counts_type counts(scratch.template take<atomic_count>(cells + 1), cells + 1);
  const counts_type cursor(scratch.template take<atomic_count>(cells + 1), cells + 1);
  const cells_type cell_of(scratch.template take<int>(n), n);
  Kokkos::deep_copy(space, counts, 0);
  Kokkos::parallel_for("kernwerk::index::query_cells", policy(space, 0, n),
                       count_observation_cells<Source, counts_type, cells_type>{source, frame, counts,
                                                                                cell_of});
  Kokkos::parallel_scan("kernwerk::index::query_scan", policy(space, 0, cells + 1),
                        exclusive_prefix<counts_type>{counts});
  Kokkos::deep_copy(space, cursor, counts);
  Kokkos::parallel_for("kernwerk::index::query_order", policy(space, 0, n),
                       scatter_observations<counts_type, cells_type, array>{cursor, cell_of, order});
  return order;
}

}  // namespace kernwerk::impl
