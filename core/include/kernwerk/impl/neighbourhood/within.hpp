#pragma once
// The radius queries of an index (index/spatial_index.hpp), shared by kernwerk::spatial_index and the
// one-shot kernwerk::within and kernwerk::count_within: counts, then compressed rows (a count
// pass, a scan and a fill pass), with queries already in the execution space's memory and the
// arguments checked.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/index/index_core.hpp"
#include "kernwerk/impl/index/query_order.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/neighbourhood/radius_search.hpp"
#include "kernwerk/impl/workspace.hpp"
#include "kernwerk/index_options.hpp"

namespace kernwerk::impl {

// A search radius (kernwerk::within's radius, kernwerk::dbscan's eps).
inline void check_range(const char* fn, const char* name, double range) {
  if (!(std::isfinite(range) && range >= 0))
    throw invalid_argument(fn, name, "must be finite and not negative, got " + std::to_string(range));
}

template <class View>
constexpr void require_integer_output() {
  static_assert(Kokkos::is_view<View>::value && View::rank == 1,
                "kernwerk: counts, offsets and indices must be rank-1 Views");
  static_assert(std::is_integral_v<typename View::value_type> &&
                    !std::is_const_v<typename View::value_type>,
                "kernwerk: counts, offsets and indices must be writable Views of an integer type");
}

template <class Offsets, class Indices, class Distances>
constexpr void require_within_outputs() {
  require_integer_output<Offsets>();
  require_integer_output<Indices>();
  static_assert(Distances::rank == 1 && std::is_floating_point_v<typename Distances::value_type> &&
                    !std::is_const_v<typename Distances::value_type>,
                "kernwerk::within: distances must be a writable rank-1 View of float or double");
  static_assert(!Indices::memory_traits::is_unmanaged && !Distances::memory_traits::is_unmanaged,
                "kernwerk::within: indices and distances are reallocated: they must be managed Views");
}

// That indices of type Index hold every index of m points.
template <class Index>
void check_index_type(const char* fn, std::size_t m) {
  if (m > 0 && m - 1 > static_cast<std::uint64_t>(std::numeric_limits<Index>::max()))
    throw invalid_argument(fn, "indices",
                           "its value type cannot hold point index " + std::to_string(m - 1));
}

template <class Source, class Target>
struct convert_copy {
  Source source;
  Target target;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    target(i) = static_cast<typename Target::value_type>(source(i));
  }
};

// Copies `source` (the execution space's memory) into `target`, converting the value type.
template <class ExecutionSpace, class Source, class Target>
void copy_converted(const ExecutionSpace& space, const Source& source, const Target& target) {
  const auto here = Kokkos::create_mirror_view(typename ExecutionSpace::memory_space(), target);
  if constexpr (std::is_same_v<typename Source::non_const_value_type,
                               typename Target::non_const_value_type>) {
    Kokkos::deep_copy(space, here, source);
  } else {
    Kokkos::parallel_for("kernwerk::within::convert",
                         index_policy<ExecutionSpace>(
                             space, 0, std::int64_t(target.extent(0))),
                         convert_copy<Source, std::remove_const_t<decltype(here)>>{source, here});
  }
  if (here.data() != target.data()) Kokkos::deep_copy(space, target, here);
}

template <class Counts>
struct longest_row {
  Counts counts;
  KOKKOS_FUNCTION void operator()(const std::int64_t i, std::int64_t& longest) const {
    if (counts(i) > longest) longest = counts(i);
  }
};

// The largest of counts(0 .. n - 1).
template <class ExecutionSpace, class Counts>
std::int64_t longest_count(const ExecutionSpace& space, const Counts& counts, std::int64_t n) {
  std::int64_t longest = 0;
  Kokkos::parallel_reduce("kernwerk::within::longest", index_policy<ExecutionSpace>(space, 0, n),
                          longest_row<Counts>{counts}, Kokkos::Max<std::int64_t>(longest));
  return longest;
}

// A View of `size` entries, not initialised, or an empty one where there is no room for it (what
// it would keep is then searched again: the same answer).
template <class View>
View view_or_empty(const char* label, std::size_t size) {
  try {
    return View(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), size);
  } catch (const std::exception&) {
    return View();
  }
}

struct radius_order_purpose;

// The queries of a radius search with the rule and the order its threads take them in
// (index/query_order.hpp: neighbouring threads then search the same nodes), the order's scratch
// held while the object lives.
template <class ExecutionSpace, class Queries>
class ordered_radius_queries {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using rule_type = radius_rule<memory_space>;
  using order_type = Kokkos::View<std::int64_t*, memory_space, Kokkos::MemoryUnmanaged>;

  ordered_radius_queries(const ExecutionSpace& space, const index_core<memory_space>& index,
                         const Queries& queries, double range, const nearest_tuning& tuning)
      : rule(radius_rule_of(index, range)),
        queries(queries),
        bytes_(query_order_bytes<memory_space>(std::int64_t(queries.extent(0)), index.bvh.size,
                                               space.concurrency(), radius_tuning(tuning), 0)),
        memory_(bytes_),
        scratch_(memory_.template take<char>(bytes_), bytes_),
        order(order_queries(space, radius_queries<rule_type, Queries>{rule, queries},
                            std::int64_t(queries.extent(0)), index.bvh, radius_tuning(tuning), 0,
                            scratch_)) {}

  std::int64_t size() const { return std::int64_t(queries.extent(0)); }

  const rule_type rule;
  const Queries queries;

 private:
  // The order's rule with a radius search's threshold of references on host spaces.
  static nearest_tuning radius_tuning(nearest_tuning tuning) {
    tuning.order_min_references = tuning.radius_order_min_references;
    return tuning;
  }
  std::size_t bytes_;
  workspace<memory_space, radius_order_purpose> memory_;
  carver scratch_;

 public:
  const order_type order;
};

// The counts of every query within range into `counts` (the execution space's memory), the
// first neighbours of each kept in `held` (none by default).
template <class ExecutionSpace, class Queries, class Counts>
void count_in_index(const ExecutionSpace& space, const ordered_radius_queries<ExecutionSpace, Queries>& search,
                    const Counts& counts, const held_rows<typename ExecutionSpace::memory_space>& held = {}) {
  using search_type = ordered_radius_queries<ExecutionSpace, Queries>;
  launch_searches("kernwerk::within::count", space, search.size(),
                  count_within_kernel<typename search_type::rule_type, Queries, typename search_type::order_type,
                                      Counts, held_rows<typename ExecutionSpace::memory_space>>{
                      search.rule, search.queries, search.order, counts, held});
}

// count_within's answer: counts(i) for each of the queries (the execution space's memory), in
// the caller's `counts` (checked: at least as long as the queries, a type that holds the size).
// `tuning`: when the queries are ordered (nearest_tuning's order_*), never the answers.
template <class ExecutionSpace, class Queries, class Counts>
void count_within_index(const ExecutionSpace& space,
                        const index_core<typename ExecutionSpace::memory_space>& index,
                        const Queries& queries, double range, const Counts& counts,
                        const nearest_tuning& tuning = {}) {
  const std::size_t n = queries.extent(0);
  if (n == 0) return;
  const ordered_radius_queries<ExecutionSpace, Queries> search(space, index, queries, range, tuning);
  const auto into = Kokkos::subview(counts, std::make_pair(std::size_t(0), n));
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, typename Counts::memory_space>::accessible) {
    count_in_index(space, search, into);  // the caller's type holds every count (checked)
  } else {
    const Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space> found(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kernwerk::count_within::counts"), n);
    count_in_index(space, search, found);
    copy_converted(space, found, into);
  }
  space.fence();
}

// within's answer in compressed rows: offsets (checked: at least n + 1 long), and indices and
// distances reallocated to the neighbours found; distances left out where null (rows sorted
// nearest first compute them all the same: the order is decided on them). `tuning` as
// count_within_index's.
template <class ExecutionSpace, class Queries, class Offsets, class Indices, class Distances>
void within_index(const ExecutionSpace& space, const char* fn,
                  const index_core<typename ExecutionSpace::memory_space>& index,
                  const Queries& queries, double range, const Offsets& offsets, Indices& indices,
                  Distances* distances, row_order order, const nearest_tuning& tuning = {}) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = index_policy<ExecutionSpace>;
  const std::size_t n = queries.extent(0);
  const Kokkos::View<std::int64_t*, memory_space> starts(Kokkos::view_alloc(space, "kernwerk::within::offsets"), n + 1);
  using search_type = ordered_radius_queries<ExecutionSpace, Queries>;
  const search_type search(space, index, queries, range, tuning);
  // Up to held_policy's capacity of neighbours of each query kept by the count pass, as many as
  // tuning's bytes hold: the fill pass reads the rows that fit there instead of searching again.
  held_rows<memory_space> held;
  std::int64_t capacity = held_policy::capacity >= 0 ? held_policy::capacity : within_row_capacity;
  if constexpr (host_memory<memory_space>) {
    if (held_policy::capacity < 0) {
      std::int64_t longer = held_policy::samples;  // where n is smaller, keep them all
      if (std::int64_t(n) > held_policy::samples)
        Kokkos::parallel_reduce("kernwerk::within::sample", policy(space, 0, held_policy::samples),
                                long_row_sample<typename search_type::rule_type, Queries, typename search_type::order_type>{
                                    search.rule, search.queries, search.order,
                                    std::int64_t(n) / held_policy::samples, within_row_capacity},
                                longer);
      if (4 * longer >= held_policy::samples) capacity = held_policy::long_row_capacity;
    }
  }
  held.capacity = n == 0 ? 0
                         : int(std::min<std::size_t>(std::size_t(capacity),
                                                     tuning.within_held_bytes / (n * sizeof(std::int32_t))));
  const auto held_memory = view_or_empty<Kokkos::View<std::int32_t*, memory_space>>(
      "kernwerk::within::held", n * std::size_t(held.capacity));
  if (held_memory.extent(0) != n * std::size_t(held.capacity)) held.capacity = 0;  // every row searched again
  held.rows = held_memory;
  // The count pass's list of the longer rows; empty: the fill searches them where it meets them.
  Kokkos::View<std::int64_t*, memory_space> long_memory;
  if (held.capacity > 0 && held_policy::defer_long_rows_for<memory_space>())
    long_memory = view_or_empty<decltype(long_memory)>("kernwerk::within::long_rows", 1 + n / 4);
  if (long_memory.extent(0) > 0) Kokkos::deep_copy(space, Kokkos::subview(long_memory, 0), std::int64_t(0));
  held.long_rows = long_memory;
  count_in_index(space, search, starts, held);
  // The longest row, where a sorted one may not fit the fill's registers (before the scan).
  const std::int64_t longest = order == row_order::nearest_first ? longest_count(space, starts, std::int64_t(n)) : 0;
  std::int64_t total = 0;
  Kokkos::parallel_scan("kernwerk::within::scan", policy(space, 0, std::int64_t(n + 1)),
                        exclusive_prefix<decltype(starts)>{starts}, total);
  std::int64_t long_rows = 0;
  if (long_memory.extent(0) > 0)
    Kokkos::deep_copy(space, Kokkos::View<std::int64_t, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&long_rows),
                      Kokkos::subview(long_memory, 0));
  space.fence();
  // The long rows go to a launch of their own where the count pass listed them all.
  const bool deferred = long_rows > 0 && long_rows < std::int64_t(long_memory.extent(0));
  if (std::uint64_t(total) > static_cast<std::uint64_t>(
                                 std::numeric_limits<typename Offsets::value_type>::max()))
    throw invalid_argument(fn, "offsets",
                           "its value type cannot hold the " + std::to_string(total) +
                               " neighbours found");

  // The neighbours go straight into the caller's indices and distances where the execution
  // space reaches them, else into Views of the same types here, copied at the end.
  using index_type = typename Indices::non_const_value_type;
  using distance_type = typename Distances::non_const_value_type;
  constexpr bool indices_here = Kokkos::SpaceAccessibility<ExecutionSpace, typename Indices::memory_space>::accessible;
  constexpr bool distances_here =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Distances::memory_space>::accessible;
  using found_type = std::conditional_t<indices_here, Indices, Kokkos::View<index_type*, memory_space>>;
  using distances_type = std::conditional_t<distances_here, Distances, Kokkos::View<distance_type*, memory_space>>;
  const auto resized = [&](auto& view, std::int64_t size, const char* label) {
    using view_type = std::remove_reference_t<decltype(view)>;
    if (view.extent(0) != std::size_t(size))
      view = view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, label ? std::string(label) : view.label()), size);
  };
  found_type found;
  if constexpr (indices_here) found = indices;
  resized(found, total, indices_here ? nullptr : "kernwerk::within::indices");
  distances_type found_distances;
  if (distances) {
    if constexpr (distances_here) found_distances = *distances;
    resized(found_distances, total, distances_here ? nullptr : "kernwerk::within::distances");
  }
  // The long rows' launch keeps the float64 distances of sorted rows of up to
  // within_long_row_capacity apart (32 slots a row) for sort_long_rows; where that memory is
  // not to be had, it sorts them as the others.
  Kokkos::View<double*, memory_space> long_keys;
  if (order == row_order::nearest_first && deferred)
    long_keys = view_or_empty<decltype(long_keys)>("kernwerk::within::long_keys",
                                                   std::size_t(long_rows) * within_long_row_capacity);
  // A sorted row longer than those sorted in registers (by the first launch, or where
  // deferred by sort_long_rows from the long rows' slots) is sorted where it lies, on float64
  // distances: the caller's where they are float64, else these.
  using keys_type = std::conditional_t<std::is_same_v<distance_type, double>, distances_type,
                                       Kokkos::View<double*, memory_space>>;
  keys_type keys;
  // The sorted rows the fill leaves to be sorted where they lie: those its registers do not
  // hold (where deferred, those of up to held.capacity only in the first launch), but the long
  // rows' launch's of up to within_long_row_capacity, sorted from its slots.
  const bool slots = deferred && long_keys.extent(0) > 0;
  const left_unsorted unsorted{
      deferred && !slots ? std::min<std::int64_t>(within_row_capacity, held.capacity) : within_row_capacity,
      slots ? held.capacity : 0, slots ? within_long_row_capacity : 0};
  const bool any_unsorted = order == row_order::nearest_first && unsorted.any(longest);
  if (any_unsorted) {
    if constexpr (std::is_same_v<keys_type, distances_type>) keys = found_distances;
    resized(keys, total, "kernwerk::within::keys");
  }
  const bool by_team = any_unsorted && row_sort_policy::by_team_for<memory_space>();
  const auto fill = [&](auto sorted) {
    using sorted_type = decltype(sorted);
    const auto rows = [&](auto row_capacity) {
      using kernel = fill_within_kernel<sorted_type::value, decltype(row_capacity)::value, typename search_type::rule_type,
                                        Queries, typename search_type::order_type, decltype(starts), found_type,
                                        distances_type, keys_type, decltype(held)>;
      kernel fill_kernel{search.rule, search.queries, search.order, starts, found, found_distances, keys, held};
      fill_kernel.sorted_apart = by_team;
      return fill_kernel;
    };
    // The first launch leaves the listed long rows to theirs (deferred) and, sorted by a team
    // after the fill, the rows longer than the registers hold to a kernel without a register
    // row (whose registers slowed their search: 116 against 60, Nsight Compute in
    // perf/results/issue50-team-sort-cuda-h100.json).
    const bool split = sorted_type::value && by_team && !deferred;
    auto first = rows(std::integral_constant<int, within_row_capacity>());
    first.long_above = deferred ? held.capacity : split ? within_row_capacity : -1;
    launch_searches("kernwerk::within::fill", space, search.size(), first);
    if constexpr (sorted_type::value) {
      if (split) {
        auto long_rows_fill = rows(std::integral_constant<int, 0>());
        long_rows_fill.long_above = within_row_capacity;
        long_rows_fill.long_only = true;
        launch_searches("kernwerk::within::fill_long", space, search.size(), long_rows_fill);
      }
    }
    if (!deferred) return;
    // Sorted, a kernel without a register row, its rows then sorted apart (the set only: the
    // same kernel).
    auto long_rows_fill = rows(std::integral_constant<int, sorted_type::value ? 0 : within_row_capacity>());
    long_rows_fill.listed = true;
    long_rows_fill.long_keys = long_keys;
    launch_searches("kernwerk::within::fill_long", space, long_rows, long_rows_fill);
    if (long_keys.extent(0) > 0)
      launch_for("kernwerk::within::sort_long", space, long_rows, sort_long_rows<decltype(long_rows_fill)>{long_rows_fill});
  };
  if (order == row_order::nearest_first) fill(std::true_type());
  else fill(std::false_type());
  if (by_team) sort_rows_where_they_lie(space, starts, keys, found, found_distances, std::int64_t(n), unsorted);
  space.fence();

  if constexpr (indices_here) {
    indices = found;
  } else {
    resized(indices, total, nullptr);
    copy_converted(space, found, indices);
  }
  if (distances) {
    if constexpr (distances_here) {
      *distances = found_distances;
    } else {
      resized(*distances, total, nullptr);
      copy_converted(space, found_distances, *distances);
    }
  }
  copy_converted(space, starts, Kokkos::subview(offsets, std::make_pair(std::size_t(0), n + 1)));
  space.fence();
}

}  // namespace kernwerk::impl
