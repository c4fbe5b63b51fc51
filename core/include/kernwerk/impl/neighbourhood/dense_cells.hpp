#pragma once
// Dense cells of a point_bvh, DBSCAN's shortcut where many points crowd together (after
// ArborX's FDBSCAN-DenseBox): the index's points are sorted along a Morton curve, so the points
// of each cube of the curve's grid at a coarser level are consecutive rows (a run). At the level
// whose cubes have a diagonal just under the search's reach, a run of at least min_samples
// points whose tight box has a diagonal within the range is a dense cell: its points are all
// within range of each other, so every one of them is a core point and all of them share a
// cluster, without a search. Each tree node whose rows all lie in one dense cell carries the
// cell's number, so that a search can pass over the whole cell at once.
//
// The box decides, not the grid: a run is dense only where the float64 box of its own
// points has a diagonal at most the range less a relative 1e-6 (and, on the sphere, an absolute
// 1e-12 of chord), so that every pair's reported distance is within the range whatever the
// rounding of the curve's cells.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernwerk/impl/index/point_bvh.hpp"
#include "kernwerk/impl/index/sphere_grid.hpp"
#include "kernwerk/impl/launch.hpp"

namespace kernwerk::impl {

// The cell of a row that is in none, or of a node whose rows are not all of one dense cell; and
// of a node without rows.
enum : int { cell_mixed = -1, cell_empty = -2 };

template <class MemorySpace>
struct dense_cells {
  std::int64_t runs = 0;                // runs of the curve's cells
  std::int64_t rows = 0;                // the index's points
  Kokkos::View<int*, MemorySpace> cell;   // of each sorted row: its run where dense, else cell_mixed
  Kokkos::View<int*, MemorySpace> begin;  // of each run: its first sorted row
  Kokkos::View<int*, MemorySpace> first;  // of each run: the point index of its first row, -1 where not dense
  Kokkos::View<int*, MemorySpace> node;   // of each tree node: its dense cell, mixed or empty

  KOKKOS_INLINE_FUNCTION bool any() const { return runs > 0; }
  // Sorted rows of run c: [begin(c), end(c)).
  KOKKOS_INLINE_FUNCTION std::int64_t end(std::int64_t c) const { return c + 1 < runs ? begin(c + 1) : rows; }
  // Whether run c is a dense cell that DBSCAN searches around once, for all its points: one of
  // at most `most` points (dbscan_policy).
  KOKKOS_INLINE_FUNCTION bool searched_whole(std::int64_t c, std::int64_t most) const {
    return first(c) >= 0 && end(c) - begin(c) <= most;
  }
};

namespace dense_build {

template <class Bvh, class Starts>
struct mark_starts {
  Bvh bvh;
  int shift;
  Starts starts;
  KOKKOS_FUNCTION std::uint64_t key(std::int64_t r) const {
    return bvh.frame.code(bvh.points(r, column_x), bvh.points(r, column_y), bvh.points(r, column_z)) >> shift;
  }
  KOKKOS_FUNCTION void operator()(const std::int64_t r) const {
    starts(r) = r < bvh.size && (r == 0 || key(r) != key(r - 1)) ? 1 : 0;
  }
};

// After the exclusive prefix of the starts: begin(run) of every run, and (temporarily) the
// run of every row in `cell`.
template <class Starts, class Rows>
struct runs_of_rows {
  Starts starts;  // runs starting before each row, and the count of runs at the end
  Rows begin, cell;
  KOKKOS_FUNCTION void operator()(const std::int64_t r) const {
    const auto run = starts(r + 1) - 1;
    cell(r) = static_cast<int>(run);
    if (starts(r) == run) begin(run) = static_cast<int>(r);
  }
};

// Whether each run is a dense cell: first(run) = its first point's index, else -1. The tight
// box of rows [b, e) merges the boxes of the tree's nodes that cover whole leaves of it (the
// bottom-up walk of a segment tree) with the rows of its partial leaves at either end.
template <class Bvh, class Rows>
struct certify_runs {
  Bvh bvh;
  Rows begin, first;
  std::int64_t size, min_samples;
  double limit;  // of the squared diagonal
  KOKKOS_FUNCTION void add_rows(box3& box, std::int64_t b, std::int64_t e) const {
    for (std::int64_t r = b; r < e; ++r)
      box.add(bvh.points(r, column_x), bvh.points(r, column_y), bvh.points(r, column_z));
  }
  KOKKOS_FUNCTION void add_node(box3& box, std::int64_t node) const {
    box3 other;
    for (int b = 0; b < 6; ++b) other.bound[b] = bvh.boxes(node, b);
    box.merge(other);
  }
  KOKKOS_FUNCTION void operator()(const std::int64_t run) const {
    const std::int64_t b = begin(run), e = run + 1 < size ? begin(run + 1) : bvh.size;
    first(run) = -1;
    if (e - b < min_samples) return;
    box3 box = box3::empty();
    const std::int64_t leaf = bvh.leaf_size, first_leaf = b / leaf, last_leaf = (e - 1) / leaf;
    if (first_leaf == last_leaf) {
      add_rows(box, b, e);
    } else {
      add_rows(box, b, (first_leaf + 1) * leaf);
      add_rows(box, last_leaf * leaf, e);
      for (std::int64_t l = bvh.first_leaf + first_leaf + 1, h = bvh.first_leaf + last_leaf; l < h;
           l /= 2, h /= 2) {
        if (l & 1) add_node(box, l++);
        if (h & 1) add_node(box, --h);
      }
    }
    double diagonal = 0;
    for (int a = 0; a < 3; ++a) diagonal += (box.bound[a + 3] - box.bound[a]) * (box.bound[a + 3] - box.bound[a]);
    if (diagonal <= limit) first(run) = bvh.order(b);
  }
};

template <class Rows>
struct keep_dense_rows {
  Rows first, cell;
  KOKKOS_FUNCTION void operator()(const std::int64_t r) const {
    if (first(cell(r)) < 0) cell(r) = cell_mixed;
  }
};

template <class Bvh, class Rows>
struct leaf_cells {
  Bvh bvh;
  Rows cell, node;
  KOKKOS_FUNCTION void operator()(const std::int64_t l) const {
    const std::int64_t leaf = bvh.first_leaf + l, b = bvh.leaf_begin(leaf), e = bvh.leaf_end(leaf);
    const int c = b < e ? int(cell(b)) : int(cell_empty);
    node(leaf) = b < e && cell(e - 1) != c ? int(cell_mixed) : c;
  }
};

template <class Rows>
struct parent_cells {
  Rows node;
  KOKKOS_FUNCTION void operator()(const std::int64_t v) const {
    const int left = node(2 * v), right = node(2 * v + 1);
    node(v) = right == cell_empty || left == right ? left : int(cell_mixed);
  }
};

}  // namespace dense_build

// The dense cells of `bvh` for searches within `range`, where a run must hold `min_samples`
// points; none where the curve's grid is too coarse for the range (range below 2^-21 of the
// points' extent) or the range is 0. `sphere`: the index holds unit vectors and range is a
// central angle in radians.
template <class ExecutionSpace>
dense_cells<typename ExecutionSpace::memory_space> find_dense_cells(
    const ExecutionSpace& space, const point_bvh<typename ExecutionSpace::memory_space>& bvh,
    bool sphere, double range, std::int64_t min_samples) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = index_policy<ExecutionSpace>;
  using rows = Kokkos::View<int*, memory_space>;
  using bvh_type = point_bvh<memory_space>;
  dense_cells<memory_space> cells;
  // The largest diagonal: a chord on the sphere.
  const double diagonal = sphere ? 2.0 * std::sin(0.5 * std::min(range, M_PI)) * (1.0 - 1e-6) - 1e-12
                                 : range * (1.0 - 1e-6);
  if (bvh.size == 0 || !(diagonal > 0)) return cells;
  int axes = 0;
  for (int a = 0; a < 3; ++a) axes += bvh.bounds.bound[a + 3] > bvh.bounds.bound[a];
  const double extent = bvh.bounds.longest_side(), side = diagonal / std::sqrt(double(axes > 0 ? axes : 1));
  int level = 0;
  while (level <= bvh.frame.bits && std::ldexp(extent, -level) > side) ++level;
  if (level > bvh.frame.bits) return cells;
  const int shift = 3 * (bvh.frame.bits - level);
  const std::int64_t n = bvh.size;

  const Kokkos::View<std::int64_t*, memory_space> starts(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kernwerk::dbscan::cell_starts"), n + 1);
  Kokkos::parallel_for("kernwerk::dbscan::cell_starts", policy(space, 0, n + 1),
                       dense_build::mark_starts<bvh_type, decltype(starts)>{bvh, shift, starts});
  std::int64_t runs = 0;
  Kokkos::parallel_scan("kernwerk::dbscan::cell_runs", policy(space, 0, n + 1),
                        exclusive_prefix<decltype(starts)>{starts}, runs);
  cells.runs = runs;
  cells.rows = n;
  const rows begin(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kernwerk::dbscan::cell_begin"), runs);
  cells.begin = begin;
  cells.cell = rows(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kernwerk::dbscan::row_cell"), n);
  cells.first = rows(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kernwerk::dbscan::cell_first"), runs);
  cells.node = rows(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kernwerk::dbscan::node_cell"),
                    2 * bvh.first_leaf);
  Kokkos::parallel_for("kernwerk::dbscan::cell_rows", policy(space, 0, n),
                       dense_build::runs_of_rows<decltype(starts), rows>{starts, begin, cells.cell});
  Kokkos::parallel_for("kernwerk::dbscan::dense_cells", policy(space, 0, runs),
                       dense_build::certify_runs<bvh_type, rows>{bvh, begin, cells.first, runs, min_samples,
                                                                 diagonal * diagonal});
  Kokkos::parallel_for("kernwerk::dbscan::dense_rows", policy(space, 0, n),
                       dense_build::keep_dense_rows<rows>{cells.first, cells.cell});
  Kokkos::parallel_for("kernwerk::dbscan::leaf_cells", policy(space, 0, bvh.first_leaf),
                       dense_build::leaf_cells<bvh_type, rows>{bvh, cells.cell, cells.node});
  for (std::int64_t level_start = bvh.first_leaf / 2; level_start >= 1; level_start /= 2)
    Kokkos::parallel_for("kernwerk::dbscan::node_cells", policy(space, level_start, 2 * level_start),
                         dense_build::parent_cells<rows>{cells.node});
  return cells;
}

}  // namespace kernwerk::impl
