#pragma once
// The exact indexed mode of kernwerk::nearest: queries of a point_bvh.
//
// Where the index's grid is used (references covering the sphere), a search first visits its
// own grid cell and the shells around it (index/sphere_grid.hpp); most end there. The others, and
// every search where the grid is not used, go to the hierarchy: each observation starts at
// the leaf where its own Morton code falls, which gives it close
// candidates at once, then climbs towards the root and searches each sibling subtree on the
// way whose box is in reach: nearer child first, the farther one on a stack with its box
// distance. Leaves are scanned with the brute force's float64 chord filter and haversine
// keys, and every node whose box is farther than the k-th neighbour found so far (by more
// than the chords' rounding margin) is dropped. (Starting at the leaf visits fewer nodes than
// descending from the root: commit 44f73c5.) The result is therefore the brute force's, ties
// included. On GPUs with many observations per thread the
// observations are searched in the order of coarse cells around the references, so that the
// threads of a warp take the same paths.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/math.hpp"
#include "kernwerk/impl/packed_rows.hpp"
#include "kernwerk/impl/nearest/brute_force.hpp"
#include "kernwerk/impl/index/point_bvh.hpp"
#include "kernwerk/impl/index/index_core.hpp"
#include "kernwerk/impl/index/query_order.hpp"
#include "kernwerk/impl/staging/neighbour_output.hpp"
#include "kernwerk/impl/workspace.hpp"
#include "kernwerk/nearest_options.hpp"

namespace kernwerk::impl {

// The references of a hierarchy by reference index (for ties and outputs): keys look the
// sorted row up, so the brute force's sphere_metric serves the index too.
template <class Bvh>
struct ranked_points {
  Bvh bvh;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t j, int column) const {
    return bvh.points(bvh.rank(j), column);
  }
};
// Observations turn into the index's frame (point_bvh::rotation); their latitudes and
// longitudes, which the keys take, stay as they are.
template <class Observations, class Bvh>
struct sphere_bvh_metric : sphere_metric<Observations, ranked_points<Bvh>> {
  KOKKOS_INLINE_FUNCTION sphere_point observation(std::int64_t i) const {
    sphere_point p = sphere_metric<Observations, ranked_points<Bvh>>::observation(i);
    this->references.bvh.rotation.apply(p.x, p.y, p.z);
    return p;
  }
};

// Euclidean observations as the index holds its points: the coordinates themselves, z = 0 in
// 2-D. Keys are the squared distances to the references' sorted rows, the very sums the leaves'
// chords are, so the chord decides and ties go to the smaller index.
template <class Observations, class Bvh>
struct euclidean_bvh_metric {
  Observations observations;
  Bvh bvh;
  using point = sphere_point;
  static constexpr double margin = 0.0;
  static constexpr bool chord_is_key = true;

  KOKKOS_INLINE_FUNCTION point observation(std::int64_t i) const {
    return {static_cast<double>(observations(i, 0)), static_cast<double>(observations(i, 1)),
            observations.extent(1) > 2 ? static_cast<double>(observations(i, 2)) : 0.0, 0.0, 0.0,
            0.0};
  }
  KOKKOS_INLINE_FUNCTION double key(const point& o, std::int64_t j) const {
    const std::int64_t r = bvh.rank(j);
    const double dx = o.x - bvh.points(r, column_x), dy = o.y - bvh.points(r, column_y),
                 dz = o.z - bvh.points(r, column_z);
    return squared_norm(dx, dy, dz);
  }
  // (keys cost no more than a test of the points)
  KOKKOS_INLINE_FUNCTION bool same_point(std::int64_t, std::int64_t) const { return false; }
  KOKKOS_INLINE_FUNCTION double distance(double key) const { return math::sqrt(key); }
};

template <class Metric, class Bvh, int Capacity, class Output, class Order, class Lists>
struct bvh_query {
  using metric_type = Metric;
  Metric metric;
  Bvh bvh;
  Output output;
  int k;
  Order order;  // the observation each thread searches for
  Lists lists;
  std::int64_t first;  // the thread of the launch's first search (slot 0 of the lists)

  static constexpr int stack_size = 64;  // > the tree's depth, log2 of the leaf count

  // The grid cells a search has visited already, whose points the hierarchy skips.
  struct visited_block {
    bool active = false;
    int cell[3] = {0, 0, 0};
  };

  template <class List>
  KOKKOS_INLINE_FUNCTION void scan_leaf(const sphere_point& o, const key_evaluator<Metric>& keys,
                                        std::int64_t node, List& list,
                                        const visited_block& visited) const {
    const std::int64_t end = bvh.leaf_end(node);
    for (std::int64_t r = bvh.leaf_begin(node); r < end; ++r) {
      const double x = bvh.points(r, column_x), y = bvh.points(r, column_y),
                   z = bvh.points(r, column_z);
      const double dx = o.x - x, dy = o.y - y, dz = o.z - z;
      const double chord = squared_norm(dx, dy, dz);
      if (list.admits(chord) &&
          !(visited.active && bvh.grid.in_block(x, y, z, visited.cell, bvh.grid.shells)))
        list.offer(chord, bvh.order(r), keys);
    }
  }

  // Cells ix0..ix1 of row (iy, iz) of the grid (clamped to it): their points lie in one run of
  // sorted rows, scanned at once, which on the host costs less than a box test a cell. Without
  // box_test the row is scanned even where its box is out of reach.
  template <class List>
  KOKKOS_INLINE_FUNCTION void visit_cells(const sphere_point& o, const key_evaluator<Metric>& keys,
                                          int ix0, int ix1, int iy, int iz,
                                          List& list, bool box_test = true) const {
    const auto& grid = bvh.grid;
    if (iy < 0 || iz < 0 || iy >= grid.cells || iz >= grid.cells) return;
    ix0 = ix0 > 0 ? ix0 : 0;
    ix1 = ix1 < grid.cells - 1 ? ix1 : grid.cells - 1;
    if (ix0 > ix1 || (box_test && !list.admits(grid.box_distance(o.x, o.y, o.z, ix0, ix1, iy, iz))))
      return;
    const int end = grid.start(grid.cell(ix1, iy, iz) + 1);
    for (int row = grid.start(grid.cell(ix0, iy, iz)); row < end; ++row) {
      const double dx = o.x - grid.sorted(row, 0), dy = o.y - grid.sorted(row, 1),
                   dz = o.z - grid.sorted(row, 2);
      const double chord = squared_norm(dx, dy, dz);
      if (list.admits(chord)) list.offer(chord, grid.order(row), keys);
    }
  }

  // The grid's stage: the own cell and the shells around it, as far as grid.shells, a row of
  // cells at a time. For one neighbour, first the 2 x 2 x 2 cells nearest to o (its own and,
  // along each axis, the neighbour on o's side), which hold a ball of half a cell around it and
  // settle most such searches (4 rows of cells where the whole first shell is 9; larger k
  // seldom settle there: perf/results/issue46-grid-block-host-epyc-2core.json);
  // then the rest of the first shell, and the shells beyond. Returns whether that settled the
  // search (every cell beyond is farther than the k-th neighbour).
  template <class List>
  KOKKOS_INLINE_FUNCTION bool search_grid(const sphere_point& o, const key_evaluator<Metric>& keys,
                                          const int c[3], List& list) const {
    const auto& grid = bvh.grid;
    int shell = 1;  // the first shell not yet visited
    if (grid.block_first && grid.shells >= 1 && k == 1) {
      int low[3];  // the block's first cell along each axis
      const double reach = grid.nearest_block(o.x, o.y, o.z, c, low);
      // Its rows without box tests: each touches the ball, and few would be left out.
      for (int iz = low[2]; iz <= low[2] + 1; ++iz)
        for (int iy = low[1]; iy <= low[1] + 1; ++iy)
          visit_cells(o, keys, low[0], low[0] + 1, iy, iz, list, false);
      if (reach < 0 || !list.admits(reach * reach)) return true;
      // The first shell's other cells: of the block's rows, the one cell on the far side in x.
      const int far_x = low[0] == c[0] ? c[0] - 1 : c[0] + 1;
      for (int iz = c[2] - 1; iz <= c[2] + 1; ++iz) {
        for (int iy = c[1] - 1; iy <= c[1] + 1; ++iy) {
          const bool block_row = iz - low[2] >= 0 && iz - low[2] <= 1 && iy - low[1] >= 0 && iy - low[1] <= 1;
          if (block_row) visit_cells(o, keys, far_x, far_x, iy, iz, list);
          else visit_cells(o, keys, c[0] - 1, c[0] + 1, iy, iz, list);
        }
      }
      shell = 2;
    } else {
      visit_cells(o, keys, c[0], c[0], c[1], c[2], list);
    }
    for (;; ++shell) {
      const double reach = grid.reach_beyond(o.x, o.y, o.z, c, shell);
      if (reach < 0 || !list.admits(reach * reach)) return true;
      if (shell > grid.shells) return false;
      for (int iz = c[2] - shell; iz <= c[2] + shell; ++iz) {
        for (int iy = c[1] - shell; iy <= c[1] + shell; ++iy) {
          const bool inner = iz - c[2] < shell && c[2] - iz < shell && iy - c[1] < shell &&
                             c[1] - iy < shell;
          if (inner) {  // inside the block only the two x faces
            visit_cells(o, keys, c[0] - shell, c[0] - shell, iy, iz, list);
            visit_cells(o, keys, c[0] + shell, c[0] + shell, iy, iz, list);
          } else {
            visit_cells(o, keys, c[0] - shell, c[0] + shell, iy, iz, list);
          }
        }
      }
    }
  }

  // Searches the subtree under `start`.
  template <class List>
  KOKKOS_INLINE_FUNCTION void descend(const sphere_point& o, const key_evaluator<Metric>& keys,
                                      std::int64_t start, List& list,
                                      const visited_block& visited) const {
    // Searches of more than one neighbour keep 32-bit nodes and float distances rounded
    // down (8 bytes an entry, local memory that spills on a GPU: docs/performance.md); a
    // search of one is left as it was.
    using stack_node_type = std::conditional_t<(Capacity > 1), std::uint32_t, std::int64_t>;
    using stack_distance_type = std::conditional_t<(Capacity > 1), float, double>;
    stack_node_type stack_node[stack_size];
    stack_distance_type stack_distance[stack_size];
    int top = 0;
    std::int64_t node = start;
    for (;;) {
      if (bvh.is_leaf(node)) {
        scan_leaf(o, keys, node, list, visited);
      } else {
        const std::int64_t left = 2 * node, right = left + 1;
        const double to_left = bvh.box_distance(o.x, o.y, o.z, left);
        const double to_right = bvh.box_distance(o.x, o.y, o.z, right);
        const bool left_first = to_left <= to_right;
        const std::int64_t near = left_first ? left : right, far = left_first ? right : left;
        const double to_near = left_first ? to_left : to_right;
        const double to_far = left_first ? to_right : to_left;
        if (list.admits(to_near)) {
          if (list.admits(to_far)) {
            stack_node[top] = static_cast<stack_node_type>(far);
            if constexpr (Capacity > 1) stack_distance[top++] = float_below(to_far);
            else stack_distance[top++] = to_far;
          }
          node = near;
          continue;
        }
      }
      // The next node on the stack still in reach.
      node = 0;
      while (top > 0) {
        --top;
        if (list.admits(stack_distance[top])) {
          node = stack_node[top];
          break;
        }
      }
      if (node == 0) return;
    }
  }

  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t i = order(t);
    const auto o = metric.observation(i);
    const key_evaluator<Metric> keys{metric, o};
    auto list = lists.template list<Metric>(k, t - first);
    visited_block visited;
    if (bvh.grid.used) {
      visited.cell[0] = bvh.grid.axis_cell(o.x);
      visited.cell[1] = bvh.grid.axis_cell(o.y);
      visited.cell[2] = bvh.grid.axis_cell(o.z);
      if (search_grid(o, keys, visited.cell, list)) {
        write_list(keys, output, i, list);
        return;
      }
      visited.active = true;
    }
    std::int64_t node = bvh.leaf_of(bvh.frame.code(o.x, o.y, o.z));
    scan_leaf(o, keys, node, list, visited);
    for (; node > 1; node /= 2) {
      const std::int64_t sibling = node ^ 1;
      if (list.admits(bvh.box_distance(o.x, o.y, o.z, sibling)))
        descend(o, keys, sibling, list, visited);
    }
    write_list(keys, output, i, list);
  }
};

// The grid's stage as a kernel of its own, small enough to run at full occupancy: searches it
// settles are written, the others listed in `pending` for the whole search.
template <class Query, class Array, class Count>
struct grid_stage {
  Query query;
  Array pending;
  Count pending_count;
  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t i = query.order(t);
    const auto o = query.metric.observation(i);
    const key_evaluator<typename Query::metric_type> keys{query.metric, o};
    auto list = query.lists.template list<typename Query::metric_type>(query.k, t - query.first);
    const auto& grid = query.bvh.grid;
    const int cell[3] = {grid.axis_cell(o.x), grid.axis_cell(o.y), grid.axis_cell(o.z)};
    if (query.search_grid(o, keys, cell, list))
      write_list(keys, query.output, i, list);
    else
      pending(static_cast<std::int64_t>(Kokkos::atomic_fetch_add(&pending_count(0), atomic_count(1)))) = i;
  }
};

// Runs the queries of every observation against a built hierarchy, with scratch for the
// observation order and the grid stage's pending list from `scratch` (nearest_bvh_query_bytes).
template <class MemorySpace>
std::size_t nearest_bvh_query_bytes(std::int64_t observations, std::int64_t references,
                                    std::int64_t concurrency, const nearest_tuning& tuning, int k) {
  using carve = workspace<MemorySpace>;
  return query_order_bytes<MemorySpace>(observations, references, concurrency, tuning, k) +
         carve::template bytes_for<std::int64_t>(observations) +
         carve::template bytes_for<atomic_count>(1);
}

template <class ExecutionSpace, class Metric, class Bvh, class Output, class Scratch>
void query_bvh(const ExecutionSpace& space, const Metric& metric, std::int64_t n, const Bvh& bvh,
               const Output& output, int k, const nearest_tuning& tuning, Scratch& scratch) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = balanced_policy<ExecutionSpace>;
  using array = Kokkos::View<std::int64_t*, memory_space, Kokkos::MemoryUnmanaged>;
  using metric_type = Metric;

  const array order = order_queries(space, metric, n, bvh, tuning, k, scratch);
  const array pending(bvh.grid.used ? scratch.template take<std::int64_t>(n) : nullptr,
                      bvh.grid.used ? n : 0);
  using count_type = Kokkos::View<atomic_count*, memory_space, Kokkos::MemoryUnmanaged>;
  const count_type pending_count(bvh.grid.used ? scratch.template take<atomic_count>(1) : nullptr,
                                 bvh.grid.used ? 1 : 0);
  with_any_capacity(k, [&](auto capacity) {
    constexpr int Capacity = decltype(capacity)::value;
    const auto launch = [&](const auto& lists, std::int64_t first, std::int64_t last) {
      using query_type =
          bvh_query<metric_type, Bvh, Capacity, Output, array, std::decay_t<decltype(lists)>>;
      const query_type query{metric, bvh, output, k, order, lists, first};
      if (!bvh.grid.used) {
        Kokkos::parallel_for("kernwerk::nearest::indexed", policy(space, first, last), query);
        return;
      }
      Kokkos::deep_copy(space, pending_count, 0);
      Kokkos::parallel_for("kernwerk::nearest::indexed_grid", policy(space, first, last),
                           grid_stage<query_type, array, count_type>{query, pending, pending_count});
      atomic_count pending_total = 0;
      Kokkos::deep_copy(space, Kokkos::View<atomic_count, Kokkos::HostSpace>(&pending_total),
                        Kokkos::subview(pending_count, 0));
      space.fence();
      const auto unsettled = static_cast<std::int64_t>(pending_total);
      if (unsettled > 0)
        Kokkos::parallel_for("kernwerk::nearest::indexed_hierarchy", policy(space, 0, unsettled),
                             query_type{metric, bvh, output, k, pending, lists, 0});
    };
    in_list_runs<Capacity>(space, n, k, tuning.wide_list_bytes, launch);
  });
  space.fence();  // before the scratch is given back
}

template <class ExecutionSpace, class Observations, class Bvh, class Output, class Scratch>
void query_sphere_bvh(const ExecutionSpace& space, const Observations& observations,
                      const Bvh& bvh, const Output& output, int k, double scale, double radius,
                      const nearest_tuning& tuning, Scratch& scratch) {
  using metric_type = sphere_bvh_metric<Observations, Bvh>;
  query_bvh(space, metric_type{{observations, ranked_points<Bvh>{bvh}, scale, radius}},
            std::int64_t(observations.extent(0)), bvh, output, k, tuning, scratch);
}

// The one-shot indexed call (haversine, k <= 32) for the observations whose rows `listed`
// holds, written to those rows of the output: the searches a tuned brute force's float32 scan
// cannot settle (a cluster tighter than its margin resolves), in the brute force's own order,
// ties included. The index goes without the grid, whose first stage would rarely settle them.
template <class ExecutionSpace, class Observations, class References, class Output, class Listed>
void nearest_listed(const ExecutionSpace& space, const Observations& observations,
                    const References& references, const Output& output, int k, double scale,
                    double radius, const Listed& listed) {
  const scoped_index<ExecutionSpace> index(space, references,
                                           index_metric{metric_kind::haversine, scale, radius});
  using bvh_type = point_bvh<typename ExecutionSpace::memory_space>;
  using metric_type = sphere_bvh_metric<Observations, bvh_type>;
  const auto& bvh = index.core().bvh;
  const metric_type metric{{observations, ranked_points<bvh_type>{bvh}, scale, radius}};
  with_capacity(k, [&](auto capacity) {
    constexpr int Capacity = decltype(capacity)::value;
    using lists = list_memory<Capacity, typename ExecutionSpace::memory_space>;
    Kokkos::parallel_for("kernwerk::nearest::listed_in_index",
                         balanced_policy<ExecutionSpace>(space, 0, std::int64_t(listed.extent(0))),
                         bvh_query<metric_type, bvh_type, Capacity, Output, Listed, lists>{
                             metric, bvh, output, k, listed, lists{}, 0});
  });
  space.fence();  // before the index goes
}

// query_index's search on packed rows: the library compiles it once per execution space and
// value type (impl/nearest/instances.hpp), not every caller of the index.
template <class ExecutionSpace, class Observations, class Output, class Scratch>
void search_index(const ExecutionSpace& space, const Observations& observations,
                  const index_core<typename ExecutionSpace::memory_space>& index,
                  const Output& output, int k, const nearest_tuning& tuning, Scratch& scratch) {
  using bvh_type = point_bvh<typename ExecutionSpace::memory_space>;
  if (index.metric.sphere())
    query_sphere_bvh(space, observations, index.bvh, output, k, index.metric.scale,
                     index.metric.sphere_radius, tuning, scratch);
  else
    query_bvh(space, euclidean_bvh_metric<Observations, bvh_type>{observations, index.bvh},
              std::int64_t(observations.extent(0)), index.bvh, output, k, tuning, scratch);
}

// The k nearest points of an index to every observation (rows of the index's coordinates, in
// the execution space's memory), with scratch from `scratch` (nearest_bvh_query_bytes). Rows
// that are not packed are searched through packed copies, as kernwerk::nearest's methods are.
template <class ExecutionSpace, class Observations, class Output>
void query_index(const ExecutionSpace& space, const Observations& observations,
                 const index_core<typename ExecutionSpace::memory_space>& index,
                 const Output& output, int k, const nearest_tuning& tuning, carver& scratch) {
  const packed_rows<Observations> rows(space, observations, true);
  using points = method_points<typename Observations::non_const_value_type, typename Observations::memory_space>;
  with_packed_output(space, output, [&](const auto& packed) {
    search_index(space, points(rows.rows), index, packed, k, tuning, scratch);
  });
}

// The one-shot indexed call's own workspace.
struct index_purpose;

// The one-shot indexed call: builds the index in the workspace and queries it.
template <class ExecutionSpace, class Observations, class References, class Output>
void nearest_indexed(const ExecutionSpace& space, const Observations& observations,
                     const References& references, const Output& output, int k,
                     const index_metric& metric, const nearest_tuning& tuning) {
  using memory_space = typename ExecutionSpace::memory_space;
  using core_type = index_core<memory_space>;
  const auto m = static_cast<std::int64_t>(references.extent(0));
  const auto n = static_cast<std::int64_t>(observations.extent(0));
  const std::size_t keep_bytes = core_type::template keep_bytes<ExecutionSpace>(metric, m, true);
  const std::size_t temporary_bytes =
      std::max(core_type::build_bytes(space, metric, m, true),
               nearest_bvh_query_bytes<memory_space>(n, m, space.concurrency(), tuning, k));
  workspace<memory_space, index_purpose> memory(keep_bytes + temporary_bytes);
  carver keep(memory.template take<char>(keep_bytes), keep_bytes);
  char* temporary = memory.template take<char>(temporary_bytes);
  carver build_scratch(temporary, temporary_bytes);
  const auto index = build_index(space, references, metric, true, keep, build_scratch);
  carver query_scratch(temporary, temporary_bytes);
  query_index(space, observations, index, output, k, tuning, query_scratch);
}

}  // namespace kernwerk::impl
