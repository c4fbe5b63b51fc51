#pragma once
// kernwerk::dbscan on the radius search's index, after ArborX's FDBSCAN-DenseBox: where at
// least min_samples points share a dense cell (neighbourhood/dense_cells.hpp: all within eps of each other),
// they are core points and one set without a search; every other point counts its neighbours
// within eps (stopping at min_samples) to know whether it is a core point. Core points within
// eps of each other are joined by a lock-free union-find, whose roots are the smallest index of
// their set (the larger root is always linked under the smaller one, by compare-and-swap); a
// search passes over whole dense cells already in its set, so that crowded data costs about a
// search per cell near each point instead of one per neighbour, and a small dense cell searches
// once for all its points. The roots, in index order,
// number the clusters; a point that is not core takes the cluster of a core point within eps,
// chosen by the border rule, or is noise. Threads work through the index's points in its
// curve order, so that neighbouring threads search the same nodes.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/neighbourhood/dense_cells.hpp"
#include "kernwerk/impl/neighbourhood/radius_search.hpp"

namespace kernwerk::impl {

// The root of x's set. Path halving: a link is replaced by its grandparent, an ancestor too, so
// that the stores race harmlessly with each other and with the unions (a compare-and-swap only
// ever changes a root, and a root is never halved).
template <class Parents>
KOKKOS_INLINE_FUNCTION int find_root(const Parents& parent, int x) {
  volatile int* links = parent.data();
  int up = links[x];
  while (up != x) {
    const int above = links[up];
    if (above != up) links[x] = above;
    x = up;
    up = above;
  }
  return x;
}

// The root of x's set, read only: once the unions are done, the roots kernel stores each core
// point's root, and a halving find in another thread, having read the point's link before that
// store, would overwrite it with an ancestor that is no root.
template <class Parents>
KOKKOS_INLINE_FUNCTION int settled_root(const Parents& parent, int x) {
  const volatile int* links = parent.data();
  for (int up = links[x]; up != x; up = links[x]) x = up;
  return x;
}

// Joins the sets of a and b under the smaller root.
template <class Parents>
KOKKOS_INLINE_FUNCTION void unite(const Parents& parent, int a, int b) {
  for (;;) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a == b) return;
    if (a > b) {
      const int swap = a;
      a = b;
      b = swap;
    }
    if (Kokkos::atomic_compare_exchange(&parent(b), b, a) == b) return;
  }
}

// Core flags by sorted row. A row of a dense cell is a core point without a search; the
// others count their neighbours up to min_samples, first among the rows beside their own along
// the curve (mostly near in space too: where min_samples of them are within eps, there is no
// search), then by a search. Every point starts as its own set.
template <class Rule, class Cells, class Flags, class Parents>
struct dbscan_core_points {
  Rule rule;
  Cells cells;
  Flags core;  // by sorted row
  Parents parent;
  std::int64_t min_samples;
  KOKKOS_FUNCTION void operator()(const std::int64_t r) const {
    parent(rule.bvh.order(r)) = rule.bvh.order(r);
    if (cells.any() && cells.cell(r) >= 0) {
      core(r) = 1;
      return;
    }
    const sphere_point o = rule.row(r);
    const std::int64_t beside = rule.bvh.leaf_size, size = rule.bvh.size;
    std::int64_t near = 0;
    for (std::int64_t q = r > beside ? r - beside : 0, end = r + beside < size ? r + beside + 1 : size;
         q < end && near < min_samples; ++q)
      near += rule.in_range(o, q) ? 1 : 0;
    if (near >= min_samples) {
      core(r) = 1;
      return;
    }
    std::int64_t count = 0;
    auto visit = [&](std::int64_t, double) { return ++count < min_samples; };
    rule.template for_each<false>(o, visit);
    core(r) = count >= min_samples ? 1 : 0;
  }
};

// The points of each dense cell join the set of its first point.
template <class Bvh, class Cells, class Parents>
struct dbscan_join_cells {
  Bvh bvh;
  Cells cells;
  Parents parent;
  KOKKOS_FUNCTION void operator()(const std::int64_t r) const {
    const int c = cells.cell(r);
    if (c >= 0) unite(parent, bvh.order(r), cells.first(c));
  }
};

// What the search of a core point leaves out. A point of a dense cell searches every core
// point within eps, passing over the dense cells already in its set (nodes whole, rows by
// their cell); a point outside dense cells leaves the dense cells to their own points' searches
// and, of the others, searches only the rows before its own, so that each pair is joined once
// and the nodes whose rows all come after it are passed over whole.
template <class Bvh, class Cells, class Flags, class Parents>
struct dbscan_join_filter {
  const Bvh& bvh;
  const Cells& cells;
  const Flags& core;
  const Parents& parent;
  int self, own_cell, root;
  std::int64_t self_row;  // the searching point's sorted row (a dense cell's: its first)
  int known_cell = -1;  // the last dense cell found in the set
  KOKKOS_INLINE_FUNCTION bool in_set(int c) {
    if (c == known_cell) return true;
    const int other = find_root(parent, cells.first(c));
    if (other != root) root = find_root(parent, self);
    if (other != root) return false;
    known_cell = c;
    return true;
  }
  KOKKOS_INLINE_FUNCTION bool skip_node(std::int64_t node) {
    if (own_cell < 0 && bvh.node_begin(node) >= self_row) return true;
    if (!cells.any()) return false;
    const int c = cells.node(node);
    return c >= 0 && (own_cell < 0 || in_set(c));
  }
  KOKKOS_INLINE_FUNCTION bool skip_row(std::int64_t r) {
    if (!core(r)) return true;
    const int c = cells.any() ? cells.cell(r) : int(cell_mixed);
    if (own_cell < 0) return c >= 0 || r >= self_row;
    return c >= 0 && in_set(c);
  }
};

// Dense cells of at most cell_search_points points search once for the whole cell
// (dbscan_join_cell), larger ones point by point. A cell's search does about the work of its
// points' searches together (it tries up to all of the cell's points against a candidate), but
// in one thread: a GPU caps the cells it gives a thread (64 is the one cap timed so far, faster
// on places and slower on the scaled moons: perf/results/dbscan-cuda-h200.json), a host core
// takes any cell. Tests set it to check every mix of the two; a negative value takes the
// execution space's default.
struct dbscan_policy {
  static inline std::int64_t cell_search_points = -1;
  template <class MemorySpace>
  static std::int64_t cell_search_for() {
    if (cell_search_points >= 0) return cell_search_points;
    return host_memory<MemorySpace> ? std::numeric_limits<std::int64_t>::max() : 64;
  }
};

// Squared distances from (x, y, z) to the nearest and the farthest point of a box.
KOKKOS_INLINE_FUNCTION void box_reach(const box3& box, double x, double y, double z, double& nearest,
                                      double& farthest) {
  const double v[3] = {x, y, z};
  nearest = farthest = 0;
  for (int a = 0; a < 3; ++a) {
    const double below = box.bound[a] - v[a], above = v[a] - box.bound[a + 3];
    const double gap = below > 0 ? below : (above > 0 ? above : 0.0);
    const double to_low = below < 0 ? -below : below, to_high = above < 0 ? -above : above;
    const double far = to_low > to_high ? to_low : to_high;
    nearest += gap * gap;
    farthest += far * far;
  }
}

// The core points and other dense cells within eps of any point of dense cell c, joined to its
// set by one search around the cell's box: a candidate joins where the box's farthest point is
// within the inner band, else where one of the cell's points is within eps of it. Cells whose
// set already holds them are passed over, whole nodes at once, by dbscan_join's filter.
template <class Rule, class Cells, class Flags, class Parents>
struct dbscan_join_cell {
  Rule rule;
  Cells cells;
  Flags core;
  Parents parent;
  std::int64_t cell_search_points;
  KOKKOS_FUNCTION void operator()(const std::int64_t c) const {
    if (!cells.searched_whole(c, cell_search_points)) return;
    const int self = cells.first(c);
    const std::int64_t b = cells.begin(c), e = cells.end(c);
    const auto& bvh = rule.bvh;
    box3 box = box3::empty();
    for (std::int64_t r = b; r < e; ++r) box.add(bvh.points(r, column_x), bvh.points(r, column_y), bvh.points(r, column_z));
    dbscan_join_filter<decltype(rule.bvh), Cells, Flags, Parents> filter{
        bvh, cells, core, parent, self, int(c), self, b};
    filter.known_cell = int(c);
    const auto within_cell = [&](std::int64_t q) {  // a point of the cell within eps of row q
      double nearest, farthest;
      box_reach(box, bvh.points(q, column_x), bvh.points(q, column_y), bvh.points(q, column_z), nearest, farthest);
      if (!(nearest <= rule.reach)) return false;
      if (farthest <= rule.inner) return true;
      const sphere_point o = rule.row(q);
      for (std::int64_t p = b; p < e; ++p) {
        const double chord = rule.chord(o, p);
        if (chord <= rule.inner || (chord <= rule.reach && rule.distance(o, p) <= rule.range)) return true;
      }
      return false;
    };
    std::uint32_t stack[Rule::stack_size];
    int top = 0;
    const auto wanted = [&](std::int64_t node) {
      box3 other;
      for (int a = 0; a < 6; ++a) other.bound[a] = bvh.boxes(node, a);
      double gap = 0;
      for (int a = 0; a < 3; ++a) {
        const double below = other.bound[a] - box.bound[a + 3], above = box.bound[a] - other.bound[a + 3];
        const double d = below > 0 ? below : (above > 0 ? above : 0.0);
        gap += d * d;
      }
      return gap <= rule.reach && !filter.skip_node(node);
    };
    if (wanted(1)) stack[top++] = 1;
    while (top > 0) {
      const std::int64_t node = stack[--top];
      if (bvh.is_leaf(node)) {
        for (std::int64_t q = bvh.leaf_begin(node), end = bvh.leaf_end(node); q < end; ++q) {
          if (filter.skip_row(q) || !within_cell(q)) continue;
          unite(parent, self, bvh.order(q));
          if (cells.cell(q) >= 0) filter.known_cell = cells.cell(q);
        }
        continue;
      }
      const auto left = static_cast<std::uint32_t>(2 * node);
      if (wanted(left + 1)) stack[top++] = left + 1;
      if (wanted(left)) stack[top++] = left;
    }
  }
};

template <class Rule, class Cells, class Flags, class Parents>
struct dbscan_join {
  Rule rule;
  Cells cells;
  Flags core;
  Parents parent;
  std::int64_t cell_search_points;
  KOKKOS_FUNCTION void operator()(const std::int64_t r) const {
    if (!core(r)) return;
    if (cells.any() && cells.cell(r) >= 0 && cells.searched_whole(cells.cell(r), cell_search_points))
      return;  // its cell searches for it (dbscan_join_cell)
    const int j = rule.bvh.order(r);
    dbscan_join_filter<decltype(rule.bvh), Cells, Flags, Parents> filter{
        rule.bvh, cells, core, parent, j, cells.any() ? int(cells.cell(r)) : int(cell_mixed), j, r};
    auto visit = [&](std::int64_t other_row, double) {
      unite(parent, j, rule.bvh.order(other_row));
      return true;
    };
    rule.template for_each<false>(rule.row(r), visit, filter);
  }
};

// parent(j) = the root of core point j; number(j) = 1 for each root.
template <class Bvh, class Flags, class Parents, class Numbers>
struct dbscan_roots {
  Bvh bvh;
  Flags core;
  Parents parent;
  Numbers number;
  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    int root = -1;
    if (core(bvh.rank(j))) {
      root = settled_root(parent, int(j));
      parent(j) = root;
    }
    number(j) = root == j ? 1 : 0;
  }
};

// Searches that see only core points.
template <class Flags>
struct core_only {
  Flags core;
  KOKKOS_INLINE_FUNCTION bool skip_node(std::int64_t) const { return false; }
  KOKKOS_INLINE_FUNCTION bool skip_row(std::int64_t r) const { return !core(r); }
};

// The label of every point: core points their root's number, the others per the border rule.
template <class Rule, class Flags, class Parents, class Numbers, class Labels>
struct dbscan_labels {
  Rule rule;
  Flags core;
  Parents parent;
  Numbers number;  // cluster number of each root (an exclusive prefix of the roots)
  Labels labels;
  bool first_cluster;  // the border rule: scikit-learn's, else the nearest core point
  KOKKOS_FUNCTION void operator()(const std::int64_t r) const {
    const int j = rule.bvh.order(r);
    using label_type = typename Labels::value_type;
    if (core(r)) {
      labels(j) = static_cast<label_type>(number(parent(j)));
      return;
    }
    std::int64_t best = -1;  // cluster number (first_cluster) or core point
    double best_distance = 0;
    auto visit = [&](std::int64_t other_row, double d) {
      const int other = rule.bvh.order(other_row);
      if (first_cluster) {
        const std::int64_t cluster = number(parent(other));
        if (best < 0 || cluster < best) best = cluster;
      } else if (best < 0 || d < best_distance || (d == best_distance && other < best)) {
        best = other;
        best_distance = d;
      }
      return true;
    };
    core_only<Flags> filter{core};
    if (first_cluster) rule.template for_each<false>(rule.row(r), visit, filter);
    else rule.for_each(rule.row(r), visit, filter);
    if (best >= 0 && !first_cluster) best = number(parent(best));
    labels(j) = static_cast<label_type>(best);
  }
};

// Labels every point of `points` (the execution space's memory) into `labels` (the same
// memory); returns the number of clusters. The arguments are checked.
template <class ExecutionSpace, class Points, class Labels>
std::int64_t dbscan_generic(const ExecutionSpace& space, const Points& points, double eps,
                            std::int64_t min_samples, const Labels& labels,
                            const index_metric& metric, bool first_cluster) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = index_policy<ExecutionSpace>;
  using searches = balanced_policy<ExecutionSpace>;  // the core test's and the joins'
  const auto n = static_cast<std::int64_t>(points.extent(0));
  const scoped_index<ExecutionSpace> index(space, points, metric);
  const auto rule = radius_rule_of(index.core(), eps);
  using rule_type = std::remove_const_t<decltype(rule)>;
  const auto cells = find_dense_cells(space, rule.bvh, rule.sphere,
                                      rule.sphere ? eps / metric.sphere_radius : eps, min_samples);
  const Kokkos::View<char*, memory_space> core(Kokkos::view_alloc(space, "kernwerk::dbscan::core"), n);
  const Kokkos::View<int*, memory_space> parent(Kokkos::view_alloc(space, "kernwerk::dbscan::parent"), n);
  const Kokkos::View<std::int64_t*, memory_space> number(Kokkos::view_alloc(space, "kernwerk::dbscan::clusters"), n + 1);
  using cells_type = std::remove_const_t<decltype(cells)>;
  using bvh_type = decltype(rule.bvh);
  using flags = decltype(core);
  using parents = decltype(parent);
  using numbers = decltype(number);
  Kokkos::parallel_for("kernwerk::dbscan::core_points", searches(space, 0, n),
                       dbscan_core_points<rule_type, cells_type, flags, parents>{rule, cells, core, parent,
                                                                                 min_samples});
  if (cells.any())
    Kokkos::parallel_for("kernwerk::dbscan::join_cells", policy(space, 0, n),
                         dbscan_join_cells<bvh_type, cells_type, parents>{rule.bvh, cells, parent});
  if (cells.any())
    Kokkos::parallel_for("kernwerk::dbscan::join_cell", searches(space, 0, cells.runs),
                         dbscan_join_cell<rule_type, cells_type, flags, parents>{
                             rule, cells, core, parent, dbscan_policy::cell_search_for<memory_space>()});
  Kokkos::parallel_for("kernwerk::dbscan::join", searches(space, 0, n),
                       dbscan_join<rule_type, cells_type, flags, parents>{
                           rule, cells, core, parent, dbscan_policy::cell_search_for<memory_space>()});
  Kokkos::parallel_for("kernwerk::dbscan::roots", policy(space, 0, n),
                       dbscan_roots<bvh_type, flags, parents, numbers>{rule.bvh, core, parent, number});
  std::int64_t clusters = 0;
  Kokkos::parallel_scan("kernwerk::dbscan::number", policy(space, 0, n + 1),
                        exclusive_prefix<numbers>{number}, clusters);
  Kokkos::parallel_for("kernwerk::dbscan::labels", policy(space, 0, n),
                       dbscan_labels<rule_type, flags, parents, numbers, Labels>{
                           rule, core, parent, number, labels, first_cluster});
  space.fence();  // before the index's workspace is given back
  return clusters;
}

}  // namespace kernwerk::impl
