#pragma once
/// \file
/// A spatial index over points spread across MPI ranks, built once and queried many times:
/// kernwerk::mpi::distributed_index.
///
/// Two layouts (distributed_index_options::layout):
/// - replicated, where every rank can hold all points and their index (half the memory budget,
///   as kernwerk::mpi::nearest's replicate): the build gathers them on every rank, and a query
///   is a search of the rank's own index, with no message beyond the argument checks;
/// - partitioned, for points that do not fit one rank, described below.
///
/// Partitioned, the build repartitions the points between the ranks by a space-filling (Morton) key, so
/// that each rank holds one compact region, and each rank builds a kernwerk::spatial_index of
/// its share. Every rank then knows 16 boxes of every rank's share (the top level of the
/// distributed tree). A query runs in two passes:
/// 1. it visits the rank whose boxes lie nearest, which returns its k best;
/// 2. it visits every other rank with a box that may hold a point as near as the k-th found
///    (every rank with points, where fewer than k were found).
///
/// The rank that asked merges the answers by (key, global index): they are exactly
/// kernwerk::nearest's over all ranks' points concatenated in rank order, ties to the smallest
/// global index, bit for bit. Points and queries travel through host memory.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "kernwerk/impl/nearest/distributed.hpp"
#include "kernwerk/impl/nearest/mpi.hpp"
#include "kernwerk/mpi/nearest_options.hpp"
#include "kernwerk/spatial_index.hpp"

namespace kernwerk::mpi {

/// How a distributed_index holds the points (see kernwerk/mpi/distributed_index.hpp).
enum class index_layout {
  /// replicated where every rank can hold all points and their index in half the memory
  /// budget (as kernwerk::mpi::nearest's automatic strategy), else partitioned
  automatic,
  replicated,   ///< every rank indexes all points; queries stay on their rank
  partitioned,  ///< each rank indexes a region of them; queries visit the ranks they need
};
/// "auto", "replicated" or "partitioned".
inline const char* to_string(index_layout layout) {
  return layout == index_layout::replicated ? "replicated" : layout == index_layout::partitioned ? "partitioned" : "auto";
}

/// Options of kernwerk::mpi::distributed_index: the metric's and the layout.
struct distributed_index_options : index_options {
  index_layout layout = index_layout::automatic;  ///< how the points are held
  /// Bytes of each rank's execution-space memory the automatic layout weighs a replicated
  /// index against (0: the space's default budget, as kernwerk::nearest's).
  std::size_t memory_budget = 0;
};

/// What one call of distributed_index::nearest did on this rank (its `report` argument).
struct distributed_report {
  /// Queries this rank searched in its share, for any rank, in each pass.
  std::int64_t searched[2] = {0, 0};
  /// Visits of this rank's queries to ranks in the second pass (0 where every query's first
  /// rank held all its neighbours).
  std::int64_t second_visits = 0;
  /// Where the call's time went on this rank.
  nearest_timings timings;
};

/// A spatial index over the points of every rank of a communicator.
///
/// \code
/// kernwerk::mpi::distributed_index index(space, MPI_COMM_WORLD, my_points);  // collective
/// index.nearest(space, my_queries, indices, distances);  // global indices, exact
/// \endcode
///
/// Points and queries are rank-2 Views as kernwerk::spatial_index takes them ((lat, lon) rows
/// for the haversine metric, 2 or 3 coordinates for the Euclidean one), any count on each rank,
/// zero allowed. A point's global index counts the points of lower ranks first, as
/// kernwerk::mpi::nearest's. Copies share the index; the last one frees it.
///
/// Kept between calls, the replicated index makes a call's work the search of the rank's own
/// queries alone: no exchange and no build.
template <class ExecutionSpace>
class distributed_index {
 public:
  using execution_space = ExecutionSpace;  ///< where each rank's share is built and searched
  using memory_space = typename ExecutionSpace::memory_space;  ///< where each share lives

  /// Builds the index over every rank's `points`. Collective over `comm` (the index keeps a
  /// duplicate of it): every rank calls it with the same options and point dimension.
  /// \throws kernwerk::invalid_argument on every rank alike, naming the argument and the rank
  /// whose points are bad, before anything is exchanged (as kernwerk::mpi::nearest).
  template <class Points>
  distributed_index(const ExecutionSpace& space, MPI_Comm comm, const Points& points,
                    const distributed_index_options& options = {})
      : options_(options) {
    impl::require_point_view<Points>();
    impl::scoped_region region("kernwerk::mpi::distributed_index::build");
    const std::size_t m = points.extent(0);
    detail::check_same_everywhere(comm, 1, points.extent(1), same_options(), build_fn, "points", "options.layout");
    detail::agree(comm, build_fn, [&] {
      impl::check_sphere_options(build_fn, options.units, options.radius, options.metric);
      impl::check_point_shape(build_fn, "points", points, options.metric, true);
      if (m > std::size_t(std::numeric_limits<int>::max()))
        throw invalid_argument(build_fn, "points", "more than 2^31 - 1 points on one rank");
      if (m > 0) impl::check_point_values(space, build_fn, "points", points, options.metric, options.units);
    });
    comm_ = duplicate(comm);
    geometry_ = {options.metric, impl::radians_per_unit(options.units), int(points.extent(1))};
    const int ranks = detail::size_of(*comm_), rank = detail::rank_of(*comm_);
    const int dimension = geometry_.dimension;
    const detail::shards counts = detail::gather_counts(*comm_, std::int64_t(m));
    total_ = std::size_t(counts.total);
    layout_ = choose_layout(options, counts);
    if (layout_ == index_layout::replicated) {
      replicate(space, points, counts);
      return;
    }

    // Each rank's own work between two collective steps runs within agree: a rank that fails
    // there (its memory exhausted) fails every rank, as a bad argument does.
    // This rank's points as double rows on the host, their box-space points and keys.
    host_matrix mine;
    detail::agree(*comm_, build_fn, [&] {
      mine = host_matrix("kernwerk::mpi::distributed_index::points", m, dimension);
      detail::copy_rows(space, points, mine);
    });
    const detail::morton_keys keys = key_box(mine);
    std::vector<detail::partition_key> placed;
    detail::agree(*comm_, build_fn, [&] {
      placed.resize(m);
      Kokkos::parallel_for("kernwerk::mpi::partition_keys", detail::host_policy(0, std::int64_t(m)),
                           [&](std::int64_t j) {
                             placed[j] = {keys(geometry_.of(&mine(j, 0))), counts.offset[rank] + j};
                           });
    });
    const std::vector<detail::partition_key> splitters = choose_splitters(placed, counts);

    // Each point to the rank of its key range, in global order (so that each rank's share
    // stays in global order and its ties agree with the global ones).
    std::vector<std::int64_t> going(ranks, 0);
    std::vector<double> send_points;
    std::vector<std::int64_t> send_global;
    detail::agree(*comm_, build_fn, [&] {
      std::vector<int> destination(m);
      for (std::size_t j = 0; j < m; ++j) {
        destination[j] = int(std::upper_bound(splitters.begin(), splitters.end(), placed[j]) - splitters.begin());
        ++going[destination[j]];
      }
      std::vector<std::int64_t> at(ranks, 0);
      std::partial_sum(going.begin(), going.end() - 1, at.begin() + 1);
      send_points.resize(m * dimension);
      send_global.resize(m);
      for (std::size_t j = 0; j < m; ++j) {
        const std::int64_t to = at[destination[j]]++;
        std::copy_n(&mine(j, 0), dimension, &send_points[to * dimension]);
        send_global[to] = placed[j].global;
      }
    });
    const detail::exchange_plan plan(*comm_, going, build_fn, "points");
    std::vector<double> share;
    std::vector<std::int64_t> share_global;
    detail::agree(*comm_, build_fn, [&] {
      share = plan.receive_buffer<double>(dimension);
      share_global = plan.receive_buffer<std::int64_t>(1);
    });
    plan.run(*comm_, send_points.data(), detail::point_type(dimension).type, share);
    plan.run(*comm_, send_global.data(), MPI_INT64_T, share_global);
    const std::size_t held = share_global.size();

    const host_matrix share_rows(share.data(), held, dimension);
    std::vector<detail::box> boxes;
    detail::agree(*comm_, build_fn, [&] {
      local_.emplace(space, share_rows, options);
      global_ = Kokkos::View<std::int64_t*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::mpi::distributed_index::global"), held);
      Kokkos::deep_copy(space, global_,
                        Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                            share_global.data(), held));
      boxes = boxes_of(share_rows, keys);
      space.fence();
    });
    boxes_.resize(std::size_t(ranks) * boxes_per_rank);
    const detail::contiguous_type boxes_type(int(boxes_per_rank * sizeof(detail::box) / sizeof(double)), MPI_DOUBLE);
    detail::check_mpi(MPI_Allgather(boxes.data(), 1, boxes_type.type, boxes_.data(), 1, boxes_type.type, *comm_),
                      "MPI_Allgather");
    hulls_.resize(std::size_t(ranks));
    for (int r = 0; r < ranks; ++r) {
      auto& hull = hulls_[std::size_t(r)];
      for (int d = 0; d < 3; ++d) hull.lo[d] = std::numeric_limits<double>::infinity(), hull.hi[d] = -hull.lo[d];
      for (int b = 0; b < boxes_per_rank; ++b)
        for (int d = 0; d < 3; ++d) {
          const auto& box = boxes_[std::size_t(r) * boxes_per_rank + b];
          hull.lo[d] = std::min(hull.lo[d], box.lo[d]);
          hull.hi[d] = std::max(hull.hi[d], box.hi[d]);
        }
    }
  }

  /// For this rank's queries, the k nearest points of all ranks: global indices and distances
  /// as kernwerk::spatial_index::nearest writes them (k from the outputs' shape, at most
  /// size()). Collective: every rank calls it, with the same k; queries may be empty.
  /// `report`, where given, receives what the call did on this rank.
  /// \throws kernwerk::invalid_argument on every rank alike, naming the argument and the rank,
  /// before any output is written.
  template <class Queries, class Indices, class Distances>
  void nearest(const ExecutionSpace& space, const Queries& queries, const Indices& indices,
               const Distances& distances, distributed_report* report = nullptr) const {
    impl::require_point_view<Queries>();
    impl::require_output_views<Indices, Distances>();
    impl::scoped_region region("kernwerk::mpi::distributed_index::nearest");
    const auto start = std::chrono::steady_clock::now();
    const std::size_t n = queries.extent(0);
    if (report) *report = {};
    const MPI_Comm comm = *comm_;
    const std::size_t k = Indices::rank == 2 ? indices.extent(1) : 1;
    detail::check_same_everywhere(comm, k, queries.extent(1), same_options(), query_fn, "queries", "options.layout");
    detail::agree(comm, query_fn, [&] {
      impl::check_point_shape(query_fn, "queries", queries, options_.metric, true);
      impl::require_same_dimension(query_fn, "queries", queries.extent(1), "the index's points",
                                   std::size_t(geometry_.dimension));
      impl::check_outputs(query_fn, indices, distances, n, total_, "queries", "points");
      impl::require_disjoint(query_fn, "indices", indices, "queries", queries);
      impl::require_disjoint(query_fn, "distances", distances, "queries", queries);
      if (n > 0) impl::check_point_values(space, query_fn, "queries", queries, options_.metric, options_.units);
    });
    const detail::phase_clock<ExecutionSpace> clock{space, report ? &report->timings : nullptr};
    const auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    if (report) report->timings.checks = seconds();
    // Each rank's own work runs within agree: a rank that fails there fails every rank.
    if (layout_ == index_layout::replicated) {
      detail::agree(comm, query_fn, [&] {
        if (n > 0) clock(&nearest_timings::compute, [&] { local_->nearest(space, queries, indices, distances); });
      });
      if (report) report->searched[0] = std::int64_t(n), report->timings.total = seconds();
      return;
    }

    const int ranks = detail::size_of(comm), dimension = geometry_.dimension;
    host_matrix rows;
    std::vector<detail::box_point> at;
    std::vector<int> first;
    detail::best_lists best(0, k);
    std::vector<std::vector<std::int64_t>> visits(ranks);
    std::vector<double> packed;  // the queries of each pass, in the order of visits
    detail::agree(comm, query_fn, [&] {
      rows = host_matrix("kernwerk::mpi::distributed_index::queries", n, dimension);
      clock(&nearest_timings::staging, [&] { detail::copy_rows(space, queries, rows); });
      at.resize(n);
      first.resize(n);
      Kokkos::parallel_for("kernwerk::mpi::first_rank", detail::host_policy(0, std::int64_t(n)), [&](std::int64_t i) {
        at[i] = geometry_.of(&rows(i, 0));
        first[i] = nearest_rank(at[i]);
      });
      best = detail::best_lists(n, k);
      for (std::size_t i = 0; i < n; ++i) visits[first[i]].push_back(std::int64_t(i));
      packed = pack(rows, visits);
    });
    visit(space, clock, packed, visits, best, report ? &report->searched[0] : nullptr);

    // The second pass: every other rank that may hold a nearer point than the k-th found.
    detail::agree(comm, query_fn, [&] {
      std::vector<char> wanted(n * ranks, 0);
      Kokkos::parallel_for("kernwerk::mpi::second_ranks", detail::host_policy(0, std::int64_t(n)), [&](std::int64_t i) {
        const double reach = geometry_.reach(best.worst(i));
        for (int r = 0; r < ranks; ++r) wanted[i * ranks + r] = r != first[i] && rank_within(r, at[i], reach);
      });
      for (auto& list : visits) list.clear();
      for (std::size_t i = 0; i < n; ++i)
        for (int r = 0; r < ranks; ++r)
          if (wanted[i * ranks + r]) visits[r].push_back(std::int64_t(i));
      packed = pack(rows, visits);
    });
    if (report)
      for (const auto& list : visits) report->second_visits += std::int64_t(list.size());
    visit(space, clock, packed, visits, best, report ? &report->searched[1] : nullptr);

    detail::agree(comm, query_fn, [&] {
      if (n > 0) {
        index_matrix best_index(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::mpi::best_index"), n, k);
        key_matrix best_key(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::mpi::best_key"), n, k);
        clock(&nearest_timings::staging, [&] {
          Kokkos::deep_copy(space, best_index, host_unmanaged<std::int64_t>(best.indices.data(), n, k));
          Kokkos::deep_copy(space, best_key, host_unmanaged<double>(best.keys.data(), n, k));
        });
        detail::write_answers(space, clock, options_.metric == metric_kind::haversine, options_.radius,
                              best_index, best_key, indices, distances);
      }
    });
    if (report) report->timings.total = seconds();
  }

  /// Points indexed on all ranks.
  std::size_t size() const { return total_; }
  /// Points this rank indexes: all of them where replicated, its region's where partitioned.
  std::size_t local_size() const { return local_->size(); }
  /// How the points are held.
  index_layout layout() const { return layout_; }
  /// The index's own duplicate of the communicator it was built over.
  MPI_Comm communicator() const { return *comm_; }
  /// Coordinates per point.
  int dimension() const { return geometry_.dimension; }
  /// The options it was built with.
  const distributed_index_options& options() const { return options_; }

 private:
  static constexpr const char* build_fn = "mpi::distributed_index";
  static constexpr const char* query_fn = "mpi::distributed_index::nearest";
  static constexpr int boxes_per_rank = 16;
  using host_matrix = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  using index_matrix = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space>;
  using key_matrix = Kokkos::View<double**, Kokkos::LayoutRight, memory_space>;
  template <class T>
  using host_unmanaged = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

  // What must agree between ranks, as kernwerk::mpi::nearest's options carry it.
  nearest_options same_options() const {
    nearest_options same;
    same.metric = options_.metric;
    same.units = options_.units;
    same.radius = options_.radius;
    same.memory_budget = options_.memory_budget;
    same.strategy = options_.layout == index_layout::replicated    ? strategy_kind::replicate
                    : options_.layout == index_layout::partitioned ? strategy_kind::ring
                                                                   : strategy_kind::automatic;
    return same;
  }

  index_layout choose_layout(const distributed_index_options& options, const detail::shards& counts) const {
    const bool fits_one_index = counts.total <= std::numeric_limits<int>::max();
    if (options.layout == index_layout::replicated && !fits_one_index)
      throw invalid_argument(build_fn, "options.layout",
                             "replicated, but " + std::to_string(counts.total) +
                                 " points are more than one index holds (2^31 - 1)");
    if (options.layout != index_layout::automatic) return options.layout;
    nearest_options weighed;
    weighed.memory_budget = options.memory_budget;
    return fits_one_index && detail::choose_strategy<ExecutionSpace>(weighed, counts) == strategy_kind::replicate
               ? index_layout::replicated
               : index_layout::partitioned;
  }

  // Every rank's points gathered in rank order on every rank, and indexed there.
  template <class Points>
  void replicate(const ExecutionSpace& space, const Points& points, const detail::shards& counts) {
    const int ranks = detail::size_of(*comm_), rank = detail::rank_of(*comm_);
    const int dimension = geometry_.dimension;
    host_matrix all;
    detail::agree(*comm_, build_fn, [&] {  // a rank that fails fails them all
      all = host_matrix("kernwerk::mpi::distributed_index::all_points", total_, dimension);
      const auto mine = std::make_pair(std::size_t(counts.offset[rank]), std::size_t(counts.offset[rank] + counts.count[rank]));
      detail::copy_rows(space, points, Kokkos::subview(all, mine, Kokkos::ALL()));
    });
    std::vector<int> sizes(ranks), offsets(ranks);
    for (int r = 0; r < ranks; ++r) sizes[r] = int(counts.count[r]), offsets[r] = int(counts.offset[r]);
    const detail::point_type point(dimension);
    detail::check_mpi(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), sizes.data(),
                                     offsets.data(), point.type, *comm_),
                      "MPI_Allgatherv");
    detail::agree(*comm_, build_fn, [&] { local_.emplace(space, all, options_); });
  }

  static std::shared_ptr<MPI_Comm> duplicate(MPI_Comm comm) {
    auto made = std::make_unique<MPI_Comm>();
    detail::check_mpi(MPI_Comm_dup(comm, made.get()), "MPI_Comm_dup");
    return std::shared_ptr<MPI_Comm>(made.release(), [](MPI_Comm* held) {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized) MPI_Comm_free(held);
      delete held;
    });
  }

  // The box the keys divide: the unit cube's [-1, 1]^3 on the sphere, the box of every rank's
  // points in the plane.
  detail::morton_keys key_box(const host_matrix& mine) const {
    detail::morton_keys keys{{-1, -1, -1}, {1, 1, 1}};
    if (options_.metric == metric_kind::haversine) return keys;
    double lo[3], hi[3];
    for (int d = 0; d < 3; ++d) lo[d] = std::numeric_limits<double>::infinity(), hi[d] = -lo[d];
    for (std::size_t j = 0; j < mine.extent(0); ++j)
      for (int d = 0; d < geometry_.dimension; ++d) lo[d] = std::min(lo[d], mine(j, d)), hi[d] = std::max(hi[d], mine(j, d));
    detail::check_mpi(MPI_Allreduce(lo, keys.lo, 3, MPI_DOUBLE, MPI_MIN, *comm_), "MPI_Allreduce");
    detail::check_mpi(MPI_Allreduce(hi, keys.hi, 3, MPI_DOUBLE, MPI_MAX, *comm_), "MPI_Allreduce");
    for (int d = geometry_.dimension; d < 3; ++d) keys.lo[d] = keys.hi[d] = 0;
    return keys;
  }

  // The ranks' key ranges: ranks - 1 splitters from samples of every rank's keys, each sample
  // weighed by the points it stands for, so that uneven shares still give even ranges.
  std::vector<detail::partition_key> choose_splitters(std::vector<detail::partition_key> keys,
                                                      const detail::shards& counts) const {
    const int ranks = int(counts.count.size());
    std::sort(keys.begin(), keys.end());
    const std::size_t wanted = std::min<std::size_t>(keys.size(), 64 * std::size_t(ranks));
    std::vector<std::int64_t> sample;  // (key, global) pairs
    for (std::size_t s = 0; s < wanted; ++s) {
      const auto& key = keys[(2 * s + 1) * keys.size() / (2 * wanted)];
      sample.push_back(std::int64_t(key.key));
      sample.push_back(key.global);
    }
    std::vector<int> sizes(ranks), offsets(ranks);
    const int mine = int(sample.size());
    detail::check_mpi(MPI_Allgather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, *comm_), "MPI_Allgather");
    std::partial_sum(sizes.begin(), sizes.end() - 1, offsets.begin() + 1);
    std::vector<std::int64_t> all(std::size_t(offsets.back() + sizes.back()));
    detail::check_mpi(MPI_Allgatherv(sample.data(), mine, MPI_INT64_T, all.data(), sizes.data(),
                                     offsets.data(), MPI_INT64_T, *comm_),
                      "MPI_Allgatherv");
    std::vector<std::pair<detail::partition_key, double>> weighed;
    for (int r = 0; r < ranks; ++r)
      for (int s = 0; s < sizes[r]; s += 2)
        weighed.push_back({{std::uint64_t(all[offsets[r] + s]), all[offsets[r] + s + 1]},
                           double(counts.count[r]) / (sizes[r] / 2)});
    std::sort(weighed.begin(), weighed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<detail::partition_key> splitters;
    double passed = 0;
    for (const auto& [key, weight] : weighed) {
      passed += weight;
      while (int(splitters.size()) < ranks - 1 &&
             passed > double(counts.total) * double(splitters.size() + 1) / ranks)
        splitters.push_back(key);
    }
    while (int(splitters.size()) < ranks - 1)  // no points at all
      splitters.push_back({~std::uint64_t(0), std::numeric_limits<std::int64_t>::max()});
    return splitters;
  }

  // The boxes of runs of this rank's share in key order.
  std::vector<detail::box> boxes_of(const host_matrix& share, const detail::morton_keys& keys) const {
    const std::size_t held = share.extent(0);
    std::vector<std::pair<std::uint64_t, std::int64_t>> order(held);
    std::vector<detail::box_point> at(held);
    for (std::size_t j = 0; j < held; ++j) {
      at[j] = geometry_.of(&share(j, 0));
      order[j] = {keys(at[j]), std::int64_t(j)};
    }
    std::sort(order.begin(), order.end());
    std::vector<detail::box> mine(boxes_per_rank);
    for (int b = 0; b < boxes_per_rank; ++b) {
      auto& box = mine[b];
      for (int d = 0; d < 3; ++d) box.lo[d] = std::numeric_limits<double>::infinity(), box.hi[d] = -box.lo[d];
      for (std::size_t j = b * held / boxes_per_rank; j < (b + 1) * held / boxes_per_rank; ++j)
        for (int d = 0; d < 3; ++d) {
          box.lo[d] = std::min(box.lo[d], at[order[j].second].c[d]);
          box.hi[d] = std::max(box.hi[d], at[order[j].second].c[d]);
        }
    }
    return mine;
  }

  // The least squared box-space distance from `p` to a point of rank r (infinite: none there;
  // an empty box's low corner is infinite).
  double rank_bound(int r, const detail::box_point& p) const {
    double least = std::numeric_limits<double>::infinity();
    for (int b = 0; b < boxes_per_rank; ++b) {
      const auto& box = boxes_[std::size_t(r) * boxes_per_rank + b];
      if (box.lo[0] <= box.hi[0]) least = std::min(least, box.bound(p));
    }
    return least;
  }

  // The rank whose boxes lie nearest `p` (the lowest of equals; -1 where no rank has points).
  // A rank's hull bounds its boxes from below, so most ranks are passed over by it.
  int nearest_rank(const detail::box_point& p) const {
    double nearest = std::numeric_limits<double>::infinity();
    int first = -1;
    for (int r = 0; r < int(hulls_.size()); ++r)
      if (hulls_[std::size_t(r)].bound(p) < nearest)
        if (const double bound = rank_bound(r, p); bound < nearest) nearest = bound, first = r;
    return first;
  }

  // Whether a box of rank r may hold a point within `reach` (a squared box-space distance) of `p`.
  bool rank_within(int r, const detail::box_point& p, double reach) const {
    if (!(hulls_[std::size_t(r)].bound(p) <= reach)) return false;  // (an empty hull: infinite)
    for (int b = 0; b < boxes_per_rank; ++b) {
      const auto& box = boxes_[std::size_t(r) * boxes_per_rank + b];
      if (box.lo[0] <= box.hi[0] && box.bound(p) <= reach) return true;
    }
    return false;
  }

  // The rows of visits[0], then visits[1], ...: the queries of a pass as they travel.
  std::vector<double> pack(const host_matrix& rows, const std::vector<std::vector<std::int64_t>>& visits) const {
    std::vector<double> packed;
    for (const auto& list : visits)
      for (const std::int64_t i : list) packed.insert(packed.end(), &rows(i, 0), &rows(i, 0) + geometry_.dimension);
    return packed;
  }

  // One pass: the queries of visits[r] (packed: their rows, pack's) go to rank r, which
  // searches them in its share and sends back its k best (key, global index), merged into
  // `best`. `searched` counts the queries this rank searched.
  void visit(const ExecutionSpace& space, const detail::phase_clock<ExecutionSpace>& clock,
             const std::vector<double>& packed, const std::vector<std::vector<std::int64_t>>& visits,
             detail::best_lists& best, std::int64_t* searched) const {
    const MPI_Comm comm = *comm_;
    const int ranks = int(visits.size()), dimension = geometry_.dimension;
    const std::size_t k = best.k;
    std::vector<std::int64_t> going(ranks);
    for (int r = 0; r < ranks; ++r) going[r] = std::int64_t(visits[r].size());
    std::optional<detail::exchange_plan> plan;
    clock.host(&nearest_timings::exchange, [&] { plan.emplace(comm, going, query_fn, "queries"); });
    std::vector<double> arrived;
    detail::agree(comm, query_fn, [&] { arrived = plan->receive_buffer<double>(dimension); });
    clock.host(&nearest_timings::exchange,
               [&] { plan->run(comm, packed.data(), detail::point_type(dimension).type, arrived); });
    const std::size_t count = std::size_t(plan->received), held = local_->size();
    if (searched) *searched = std::int64_t(count);
    // This rank's k best of each query that arrived (the rest of a row padded), and the buffers
    // of the answers coming back the way the queries came.
    const detail::exchange_plan back = plan->reversed();
    detail::best_lists found(0, k);
    std::vector<double> keys;
    std::vector<std::int64_t> indices;
    detail::agree(comm, query_fn, [&] {
      keys = back.receive_buffer<double>(k);
      indices = back.receive_buffer<std::int64_t>(k);
      found = detail::best_lists(count, k);
      if (count > 0 && held > 0) clock(&nearest_timings::compute, [&] {
        const std::size_t k_here = std::min(k, held);
        const auto here = Kokkos::create_mirror_view_and_copy(
            memory_space(), host_unmanaged<const double>(arrived.data(), count, dimension));
        index_matrix index(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kernwerk::mpi::found_index"), count, k_here);
        key_matrix key(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kernwerk::mpi::found_key"), count, k_here);
        const std::size_t bytes = impl::nearest_bvh_query_bytes<memory_space>(
            std::int64_t(count), std::int64_t(held), space.concurrency(), nearest_tuning{}, int(k_here));
        impl::workspace<memory_space> memory(bytes);
        impl::carver scratch(memory.template take<char>(bytes), bytes);
        impl::query_index(space, here, local_->core_,
                          impl::neighbour_output<index_matrix, key_matrix>{index, key, true}, int(k_here),
                          nearest_tuning{}, scratch);
        Kokkos::parallel_for("kernwerk::mpi::global_indices",
                             impl::index_policy<ExecutionSpace>(space, 0, std::int64_t(count)),
                             detail::to_global<index_matrix, decltype(global_)>{index, global_});
        const auto index_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), index);
        const auto key_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), key);
        for (std::size_t i = 0; i < count; ++i)
          for (std::size_t q = 0; q < k_here; ++q) {
            found.indices[i * k + q] = index_host(i, q);
            found.keys[i * k + q] = key_host(i, q);
          }
      });
    });
    // The answers go back, and are merged rank by rank.
    clock.host(&nearest_timings::exchange, [&] {
      const detail::contiguous_type key_row(int(k), MPI_DOUBLE), index_row(int(k), MPI_INT64_T);
      back.run(comm, found.keys.data(), key_row.type, keys);
      back.run(comm, found.indices.data(), index_row.type, indices);
    });
    clock.host(&nearest_timings::compute, [&] {
      for (int r = 0; r < ranks; ++r) {
        const auto& list = visits[r];
        const std::size_t from = std::size_t(back.receive_offsets[r]);
        Kokkos::parallel_for("kernwerk::mpi::merge", detail::host_policy(0, std::int64_t(list.size())),
                             [&](std::int64_t j) {
                               best.merge(std::size_t(list[j]), &keys[(from + j) * k], &indices[(from + j) * k]);
                             });
      }
    });
  }

  std::shared_ptr<MPI_Comm> comm_;  // a duplicate of the caller's, freed with the last copy
  distributed_index_options options_;
  index_layout layout_ = index_layout::partitioned;
  detail::box_space geometry_;
  std::size_t total_ = 0;
  std::optional<spatial_index<ExecutionSpace>> local_;  // this rank's share (all points: replicated)
  // Partitioned only: the global index of each point of the share, the boxes_per_rank of each rank.
  Kokkos::View<std::int64_t*, memory_space> global_;
  std::vector<detail::box> boxes_;
  std::vector<detail::box> hulls_;  // each rank's boxes together
};

}  // namespace kernwerk::mpi
