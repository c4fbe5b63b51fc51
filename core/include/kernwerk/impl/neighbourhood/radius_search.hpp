#pragma once
// Radius searches on the index (index/index_core.hpp): every indexed point within a distance of
// a query, for kernwerk::within, kernwerk::count_within, kernwerk::dbscan and
// kernwerk::spatial_index.
//
// A point counts where its float64 distance, computed as the search reports it (haversine:
// radius times the central angle from the haversine formula; Euclidean: the square root of the
// sum of squares), is at most the range: a point at exactly the range counts. The traversal
// drops a node only where its box is farther than the range by more than rounding can explain
// (squared chords: chord_tie_margin, as the nearest-neighbour search; Euclidean: a relative
// 1e-12), so that no point within the range is ever skipped; the distance itself decides.
// On GPUs nodes and points are first tested in float, on the index's float copies (float_band,
// radius_policy): a test decides there only where the float64 test would decide the same way,
// so the points visited are the same, in the same order; what float leaves undecided goes to
// float64. On the H200 the count pass was bound by the instructions of its float64 tests
// (docs/performance.md, "Where the H200's time goes"). Where the index's sphere grid is in use
// and the reach spans few of its cells (radius_policy::grid_span), a search without a filter
// scans the grid's cells instead, with the same tests on the same coordinates: the same points,
// in another order.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernwerk/impl/math.hpp"
#include "kernwerk/impl/geometry/metrics.hpp"
#include "kernwerk/impl/index/point_bvh.hpp"
#include "kernwerk/impl/index/index_core.hpp"
#include "kernwerk/impl/index/sphere_grid.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/neighbourhood/row_sort.hpp"

namespace kernwerk::impl {

// The squared distance in the index's frame beyond which no point is within `range`.
inline double radius_reach(bool sphere, double range, double sphere_radius) {
  if (!sphere) return range * range * (1.0 + 1e-12);
  const double angle = range / sphere_radius;
  if (!(angle < 3.0)) return std::numeric_limits<double>::infinity();  // the whole sphere, nearly
  const double half_chord = std::sin(0.5 * angle);
  return 4.0 * half_chord * half_chord * (1.0 + 1e-12) + chord_tie_margin;
}

// The squared distance in the index's frame within which every point is within `range`
// however its distance rounds (the reach's margins taken the other way); -1 where there is no
// such band: ranges near the antipode and squares that overflow leave every point to its
// distance.
inline double radius_inner(bool sphere, double range, double sphere_radius) {
  if (!sphere) {
    const double inner = range * range * (1.0 - 1e-12);
    return std::isfinite(inner) ? inner : -1.0;
  }
  const double angle = range / sphere_radius;
  if (!(angle < 3.0)) return -1.0;
  const double half_chord = std::sin(0.5 * angle);
  const double inner = 4.0 * half_chord * half_chord * (1.0 - 1e-12) - chord_tie_margin;
  return inner > 0 ? inner : -1.0;
}

// Whether the radius searches test in float first: 1 yes, 0 no, -1 the memory space's default,
// yes on GPUs and no on host spaces (kernwerk_bench_dbscan --float-tests). On the H200 the
// counts took 0.85 to 0.90 of their time, DBSCAN 0.95 to 0.97
// (perf/results/issue50-float-tests-cuda-h200.json); on the 2-core host the same searches took
// 1.02 to 1.17 times theirs (issue50-float-tests-host-epyc-2core.json).
struct radius_policy {
  static inline int float_tests = -1;
  template <class MemorySpace>
  static bool float_tests_for() {
    return float_tests >= 0 ? float_tests != 0 : !host_memory<MemorySpace>;
  }
  // Where the index has its sphere grid (index/sphere_grid.hpp) and the reach's diameter spans
  // fewer than grid_span - 1 of its cells, a search scans the cells' runs of rows instead of the
  // hierarchy (0: never; -1: the memory space's default, 8 on host spaces and 4 on GPUs;
  // kernwerk_bench_dbscan --grid-span). On the 2-core host the grid paid at 5 cells and lost at
  // 10 (perf/results/issue50-host-grid-span-epyc-2core.json,
  // issue50-host-grid-span-wide-epyc-2core.json); the H200 was timed at 2.5 cells only
  // (issue50-radius-grid-cuda-h200.json).
  static inline int grid_span = -1;
  template <class MemorySpace>
  static int grid_span_for() {
    return grid_span >= 0 ? grid_span : host_memory<MemorySpace> ? 8 : 4;
  }
  // Whether a reach (radius_reach) spans few enough cells of side `side`.
  template <class MemorySpace>
  static bool grid_pays(double reach, double side) {
    return 2 * std::sqrt(reach) < (grid_span_for<MemorySpace>() - 1) * side;
  }
  // Whether a search within `range` of an index of m points builds the index with its grid.
  template <class MemorySpace>
  static bool wants_grid(const index_metric& metric, std::int64_t m, double range) {
    return metric.sphere() && m > 0 &&
           grid_pays<MemorySpace>(radius_reach(true, range, metric.sphere_radius), 2.0 / grid_cells_per_axis(m));
  }
};

// The float tests of one query: a node or point whose squared float distance is above `above`
// is out of reach in float64 too; with `within` >= 0, one at or below it is inside
// radius_inner's band. A float coordinate is off by at most u = 2^-24 times the largest
// magnitude M of the query's and the index's coordinates, so a float distance is off by at
// most 2 sqrt(3) u M (shift: 4 u M), and the arithmetic adds at most 6 u relative (16 u
// allowed, with the threshold's own rounding to float) and the underflow of tiny squares at
// most 2^-124 (2^-120 allowed). Outside 2^-40 <= M <= 2^60 float decides nothing.
struct float_band {
  float x = 0, y = 0, z = 0;  // the query
  float above = INFINITY;
  float within = -1;
  KOKKOS_INLINE_FUNCTION static float_band of(double x, double y, double z, double magnitude,
                                              double reach, double inner, bool enabled) {
    float_band band;
    const double m = math::fmax(magnitude, math::fmax(math::fabs(x), math::fmax(math::fabs(y), math::fabs(z))));
    if (!enabled || !(m >= 0x1p-40 && m <= 0x1p60)) return band;
    constexpr double u = 0x1p-24, slack = 0x1p-120;
    const double shift = 4 * u * m;
    band.x = to_float(x);
    band.y = to_float(y);
    band.z = to_float(z);
    const double root = math::sqrt(reach) + shift;
    band.above = to_float((1 + 16 * u) * root * root + slack);
    if (inner > 0 && math::sqrt(inner) > shift) {
      const double low = math::sqrt(inner) - shift, within = (1 - 16 * u) * low * low - slack;
      if (within > 0x1p-118) band.within = to_float(within);
    }
    return band;
  }
};

// A radius search over the points of `bvh`. Points are sphere_points: unit vectors in the
// index's frame with latitude, longitude and cos(latitude) on the sphere; Euclidean
// coordinates (z = 0 in 2-D) otherwise.
template <class MemorySpace>
struct radius_rule {
  point_bvh<MemorySpace> bvh;
  bool sphere = true;
  double scale = 1.0;          // of query coordinates, to radians
  double sphere_radius = 1.0;  // haversine distances are central angles times this
  double range = 0.0;          // a point counts where its distance <= range
  double reach = 0.0;          // radius_reach
  double inner = -1.0;         // radius_inner
  bool float_tests = true;     // radius_policy's, when the rule was made
  double magnitude = 0;        // the largest |coordinate| of the index's points (its bounds)
  bool in_grid = false;        // for_each scans the grid (radius_policy::grid_span)

  static constexpr int stack_size = 64;  // > the tree's depth

  // Query i of a rank-2 View of (lat, lon) or Euclidean rows, in the index's frame.
  template <class Queries>
  KOKKOS_INLINE_FUNCTION sphere_point query(const Queries& queries, std::int64_t i) const {
    if (sphere) {
      sphere_point p = make_sphere_point(scale * static_cast<double>(queries(i, 0)),
                                         scale * static_cast<double>(queries(i, 1)));
      bvh.rotation.apply(p.x, p.y, p.z);
      return p;
    }
    return {static_cast<double>(queries(i, 0)), static_cast<double>(queries(i, 1)),
            queries.extent(1) > 2 ? static_cast<double>(queries(i, 2)) : 0.0, 0.0, 0.0, 0.0};
  }
  // Sorted row r of the index as a query (kernwerk::dbscan searches its own points).
  KOKKOS_INLINE_FUNCTION sphere_point row(std::int64_t r) const {
    return {bvh.points(r, column_x),   bvh.points(r, column_y),   bvh.points(r, column_z),
            bvh.points(r, column_lat), bvh.points(r, column_lon), bvh.points(r, column_coslat)};
  }
  // Squared distance from o to row r in the index's frame: what the reach and the inner band
  // are compared with.
  KOKKOS_INLINE_FUNCTION double chord(const sphere_point& o, std::int64_t r) const {
    return chord_to(o, bvh.points(r, column_x), bvh.points(r, column_y), bvh.points(r, column_z));
  }
  // (one expression for the hierarchy's rows and the grid's copies of them, so that both
  // round alike)
  KOKKOS_INLINE_FUNCTION static double chord_to(const sphere_point& o, double x, double y, double z) {
    const double dx = o.x - x, dy = o.y - y, dz = o.z - z;
    return squared_norm(dx, dy, dz);
  }
  KOKKOS_INLINE_FUNCTION double distance(const sphere_point& o, std::int64_t r) const {
    if (sphere)
      return sphere_radius * central_angle(haversine(o.lat, o.lon, o.coslat,
                                                     bvh.points(r, column_lat),
                                                     bvh.points(r, column_lon),
                                                     bvh.points(r, column_coslat)));
    const double dx = o.x - bvh.points(r, column_x), dy = o.y - bvh.points(r, column_y),
                 dz = o.z - bvh.points(r, column_z);
    return math::sqrt(squared_norm(dx, dy, dz));
  }

  // Whether row r is within range of o, decided as for_each decides it.
  KOKKOS_INLINE_FUNCTION bool in_range(const sphere_point& o, std::int64_t r) const {
    const double c = chord(o, r);
    return c <= reach && (c <= inner || distance(o, r) <= range);
  }

  // A filter that passes every node and row.
  struct pass_all {
    KOKKOS_INLINE_FUNCTION bool skip_node(std::int64_t) const { return false; }
    KOKKOS_INLINE_FUNCTION bool skip_row(std::int64_t) const { return false; }
  };

  // Calls visit(row, distance) for every point within range of o, in no particular order,
  // until visit returns false. The filter may leave out whole nodes (skip_node) and rows
  // within reach before their distance is computed (skip_row). Without Distances, a point
  // whose chord is inside radius_inner's band is visited without its distance computed, and
  // visit's second argument is then unspecified (counts and unions need no distance, and the
  // haversine's trigonometry is most of a leaf's cost).
  template <bool Distances = true, class Visit, class Filter>
  KOKKOS_INLINE_FUNCTION void for_each(const sphere_point& o, Visit& visit, Filter& filter) const {
    std::uint32_t stack[stack_size];  // nodes < 2^32: at most 2^31 leaves
    int top = 0;
    const float_band band =
        float_band::of(o.x, o.y, o.z, magnitude, reach, inner, float_tests);
    const bool in_float = band.above < INFINITY;
    const auto wanted = [&](std::int64_t node) {
      return (in_float ? !(bvh.float_box_distance(band.x, band.y, band.z, node) > band.above)
                       : bvh.box_distance(o.x, o.y, o.z, node) <= reach) &&
             !filter.skip_node(node);
    };
    if (bvh.size > 0 && wanted(1)) stack[top++] = 1;
    while (top > 0) {
      const std::int64_t node = stack[--top];
      if (bvh.is_leaf(node)) {
        // Row r by its float64 chord c, and by its float chord `near` (not above band.above):
        // false stops the search.
        const auto row_by_chord = [&](std::int64_t r, double c) {
          return !(c <= reach) || filter.skip_row(r) || visit_in_reach<Distances>(o, r, c, visit);
        };
        const auto row = [&](std::int64_t r, float near) {
          if (!Distances && near <= band.within) return filter.skip_row(r) || visit(r, 0.0);
          return row_by_chord(r, chord(o, r));
        };
        const std::int64_t end = bvh.leaf_end(node);
        if constexpr (host_memory<MemorySpace>) {
          // A core's leaves are long: their chords first, in a loop without branches that the
          // compiler vectorises, then the few rows within reach.
          constexpr int block = 16;
          for (std::int64_t first = bvh.leaf_begin(node); first < end; first += block) {
            const int count = int(end - first < block ? end - first : block);
            if (in_float) {
              float chords[block];
              for (int k = 0; k < count; ++k) chords[k] = bvh.float_chord(band.x, band.y, band.z, first + k);
              for (int k = 0; k < count; ++k)
                if (!(chords[k] > band.above) && !row(first + k, chords[k])) return;
            } else {
              double chords[block];
              for (int k = 0; k < count; ++k) chords[k] = chord(o, first + k);
              for (int k = 0; k < count; ++k)
                if (chords[k] <= reach && !row_by_chord(first + k, chords[k])) return;
            }
          }
        } else {
          for (std::int64_t r = bvh.leaf_begin(node); r < end; ++r) {
            if (in_float) {
              const float near = bvh.float_chord(band.x, band.y, band.z, r);
              if (!(near > band.above) && !row(r, near)) return;
            } else if (!row_by_chord(r, chord(o, r))) {
              return;
            }
          }
        }
        continue;
      }
      const auto left = static_cast<std::uint32_t>(2 * node);  // pushed last: searched first
      if (wanted(left + 1)) stack[top++] = left + 1;
      if (wanted(left)) stack[top++] = left;
    }
  }
  // Row r, its chord c from o within reach: visited where the inner band or its distance puts
  // it in range (for_each's rule); false: visit stopped the search.
  template <bool Distances, class Visit>
  KOKKOS_INLINE_FUNCTION bool visit_in_reach(const sphere_point& o, std::int64_t r, double c, Visit& visit) const {
    if (!Distances && c <= inner) return visit(r, 0.0);
    const double d = distance(o, r);
    return !(d <= range) || visit(r, d);
  }
  template <bool Distances = true, class Visit>
  KOKKOS_INLINE_FUNCTION void for_each(const sphere_point& o, Visit& visit) const {
    if (in_grid) return for_each_in_grid<Distances>(o, visit);
    pass_all all;
    for_each<Distances>(o, visit, all);
  }

  // for_each by the grid: every row of cells within the reach's cube around o, scanned as one
  // run of rows where its box is in reach. A point p within reach has |p.a - o.a| below
  // `half` along each axis, so its cell (axis_cell is monotone) lies between those of o.a -
  // half and o.a + half; the cells' boxes are widened by the grid's slack.
  template <bool Distances, class Visit>
  KOKKOS_INLINE_FUNCTION void for_each_in_grid(const sphere_point& o, Visit& visit) const {
    const auto& grid = bvh.grid;
    const double half = math::sqrt(reach) * (1 + 1e-12) + 1e-300;
    const int x0 = grid.axis_cell(o.x - half), x1 = grid.axis_cell(o.x + half);
    const int y0 = grid.axis_cell(o.y - half), y1 = grid.axis_cell(o.y + half);
    const int z0 = grid.axis_cell(o.z - half), z1 = grid.axis_cell(o.z + half);
    for (int iz = z0; iz <= z1; ++iz) {
      for (int iy = y0; iy <= y1; ++iy) {
        if (!(grid.box_distance(o.x, o.y, o.z, x0, x1, iy, iz) <= reach)) continue;
        const int end = grid.start(grid.cell(x1, iy, iz) + 1);
        for (int s = grid.start(grid.cell(x0, iy, iz)); s < end; ++s) {
          const double c = chord_to(o, grid.sorted(s, 0), grid.sorted(s, 1), grid.sorted(s, 2));
          if (c <= reach && !visit_in_reach<Distances>(o, bvh.rank(grid.order(s)), c, visit)) return;
        }
      }
    }
  }
};

// The rule of a search within `range` on an index.
template <class MemorySpace>
radius_rule<MemorySpace> radius_rule_of(const index_core<MemorySpace>& index, double range) {
  radius_rule<MemorySpace> rule;
  rule.bvh = index.bvh;
  rule.sphere = index.metric.sphere();
  rule.scale = index.metric.scale;
  rule.sphere_radius = index.metric.sphere_radius;
  rule.range = range;
  rule.reach = radius_reach(rule.sphere, range, rule.sphere_radius);
  rule.inner = radius_inner(rule.sphere, range, rule.sphere_radius);
  rule.float_tests = radius_policy::float_tests_for<MemorySpace>();
  if (rule.bvh.size > 0)
    for (const double bound : rule.bvh.bounds.bound) rule.magnitude = std::fmax(rule.magnitude, std::fabs(bound));
  rule.in_grid = rule.sphere && rule.bvh.grid.used && radius_policy::grid_pays<MemorySpace>(rule.reach, rule.bvh.grid.side);
  return rule;
}

// The queries of a radius search as a query source of order_queries (index/query_order.hpp).
template <class Rule, class Queries>
struct radius_queries {
  Rule rule;
  Queries queries;
  KOKKOS_INLINE_FUNCTION sphere_point observation(std::int64_t i) const { return rule.query(queries, i); }
};

// The longest row that within's fill sorts in registers, and the most neighbours its count pass
// keeps for the fill on GPUs (held_policy).
inline constexpr int within_row_capacity = 16;
// The longest row that the long rows' launch sorts in registers, after their search (the
// search without a register row, whose registers would slow it, then sort_long_rows). Longer
// rows are sorted in memory on float64 keys, which within then allocates for every neighbour,
// 1.3 GB at 2^24 x 2^14: with rows of 32 sorted so it seldom does
// (perf/results/issue50-long-rows-registers-cuda-h200.json, issue50-sort-long-rows-cuda-h200.json).
inline constexpr int within_long_row_capacity = 32;

// Up to `capacity` neighbours (index rows) of each query, kept by the count pass for the fill
// pass: entry e of query i at i * capacity + e. The fill takes the queries in their own order and
// writes each row where it lies; in the search's order its scattered writes cost more than the
// order saved: on the 2-core host the sorted rows took 1.03 to 1.06 times their time
// (perf/results/issue50-host-radius-order-epyc-2core.json), on the H200, with the rows held by
// thread (coalesced), the set-only rows 1.29 times theirs (issue50-held-by-query-cuda-h200.json).
//
// The rows longer than `capacity` are searched again by the fill. On a GPU a warp waits for its
// longest thread, and with about 10 neighbours a query most warps hold such a row, so there the
// count pass lists them (long_rows, up to a quarter of the queries) and the fill leaves them to a
// launch of their own (deferred), which takes them in the search's order: on the H200 the sorted
// rows at 2^24 x 2^14 took 1.6 times their time without it (two runs:
// issue50-by-query-in-place-cuda-h200.json against issue50-held-by-query-cuda-h200.json); on the
// 2-core host it changed nothing (issue50-host-defer-long-rows-epyc-2core.json).
struct held_policy {
  // 1 yes, 0 no, -1 the memory space's default: GPUs (kernwerk_bench_dbscan --defer-long-rows)
  static inline int defer_long_rows = -1;
  template <class MemorySpace>
  static bool defer_long_rows_for() {
    return defer_long_rows >= 0 ? defer_long_rows != 0 : !host_memory<MemorySpace>;
  }
  // The most neighbours of a query the count pass keeps (as its bytes allow: within_held_bytes);
  // -1 the memory space's default: within_row_capacity on GPUs; on host spaces
  // long_row_capacity where at least a quarter of `samples` queries spread over the search
  // have more than within_row_capacity neighbours (their second search cost more than the
  // memory), else within_row_capacity (the larger rows' memory cost more than the few second
  // searches): perf/results/issue50-host-held-capacity-epyc-2core.json
  // (kernwerk_bench_dbscan --held-capacity).
  static inline int capacity = -1;
  static constexpr int long_row_capacity = 64;
  static constexpr std::int64_t samples = 256;
};

template <class MemorySpace>
struct held_rows {
  Kokkos::View<std::int32_t*, MemorySpace, Kokkos::MemoryUnmanaged> rows;
  int capacity = 0;
  KOKKOS_INLINE_FUNCTION std::int32_t& operator()(std::int64_t i, int e) const { return rows(i * capacity + e); }
  // Where not empty: entry 0 counts the rows longer than `capacity`, and entries 1 on list the
  // count pass's threads that found them, as many as fit (all of them where the count fits).
  Kokkos::View<std::int64_t*, MemorySpace, Kokkos::MemoryUnmanaged> long_rows;
  KOKKOS_INLINE_FUNCTION void list_long(std::int64_t t, std::int64_t count) const {
    if (count <= capacity || long_rows.extent(0) == 0) return;
    const std::int64_t at = Kokkos::atomic_fetch_add(&long_rows(0), std::int64_t(1)) + 1;
    if (at < std::int64_t(long_rows.extent(0))) long_rows(at) = t;
  }
};

// Of the queries order(s * stride), how many have more than `above` neighbours (each search
// stops there): held_policy's sample.
template <class Rule, class Queries, class Order>
struct long_row_sample {
  Rule rule;
  Queries queries;
  Order order;
  std::int64_t stride;
  std::int64_t above;
  KOKKOS_FUNCTION void operator()(const std::int64_t s, std::int64_t& longer) const {
    std::int64_t count = 0;
    auto visit = [&](std::int64_t, double) { return ++count <= above; };
    rule.template for_each<false>(rule.query(queries, order(s * stride)), visit);
    if (count > above) ++longer;
  }
};

// counts(i) for the query i that thread t takes (order(t)), its first held.capacity neighbours
// kept in `held`.
template <class Rule, class Queries, class Order, class Counts, class Held>
struct count_within_kernel {
  Rule rule;
  Queries queries;
  Order order;
  Counts counts;
  Held held;
  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t i = order(t);
    if constexpr (host_memory<typename Order::memory_space>) {
      const std::int64_t ahead = t + query_prefetch_distance;
      if (ahead < std::int64_t(order.extent(0))) {
        const std::int64_t next = order(ahead);
        prefetch_line(&queries(next, 0));
        prefetch_line(&queries(next, queries.extent(1) - 1));
        prefetch_line(&counts(next));
        if (held.capacity > 0) prefetch_line(&held(next, 0));
      }
    }
    const sphere_point o = rule.query(queries, i);
    std::int64_t count = 0;
    auto visit = [&](std::int64_t r, double) {
      if (count < held.capacity) held(i, int(count)) = std::int32_t(r);
      ++count;
      return true;
    };
    rule.template for_each<false>(o, visit);
    counts(i) = static_cast<typename Counts::value_type>(count);
    held.list_long(t, count);
  }
};

// Fills each query's segment [offsets(i), offsets(i + 1)) with the point indices of its
// neighbours and, where `distances` is not empty, their distances; with Sorted, by distance
// (float64), then index. A row's neighbours come from `held` where the count pass kept them
// all, else from a search. A sorted row of up to Row_capacity is sorted in registers; a longer
// one where it lies, on its float64 distances in `keys` (which may be `distances` itself), or,
// `sorted_apart`, by sort_rows_by_team after the fill.
// Where long_above is not negative, the rows longer than it are passed over, or (long_only)
// all but those: the long rows left to a second launch, by a kernel without a register row.
// Where the count pass listed them (deferred), that launch is `listed`: its thread t takes the
// row of the count pass's thread held.long_rows(1 + t), and sorted rows of up to
// within_long_row_capacity keep their distances at long_keys(t * that + e), for sort_long_rows.
template <bool Sorted, int Row_capacity, class Rule, class Queries, class Order, class Offsets, class Found,
          class FoundDistances, class Keys, class Held>
struct fill_within_kernel {
  using index_type = typename Found::value_type;
  using distance_type = typename FoundDistances::value_type;
  Rule rule;
  Queries queries;
  Order order;
  Offsets offsets;
  Found found;
  FoundDistances distances;
  Keys keys;
  Held held;
  bool listed = false;
  // Sorted rows that go to `keys` are left unsorted there for sort_rows_by_team.
  bool sorted_apart = false;
  std::int64_t long_above = -1;
  bool long_only = false;
  Kokkos::View<double*, typename Order::memory_space> long_keys;

  // visit(row, distance) for each neighbour of query i; the distance is computed only
  // With_distances.
  template <bool With_distances, class Visit>
  KOKKOS_INLINE_FUNCTION void for_each(std::int64_t i, std::int64_t count, Visit& visit) const {
    if (count > held.capacity) {
      rule.template for_each<With_distances>(rule.query(queries, i), visit);
      return;
    }
    sphere_point o{};
    if (With_distances) o = rule.query(queries, i);
    for (int e = 0; e < int(count); ++e) {
      const std::int64_t r = held(i, e);
      visit(r, With_distances ? rule.distance(o, r) : 0.0);
    }
  }
  // The query of the listed launch's thread t.
  KOKKOS_INLINE_FUNCTION std::int64_t listed_query(std::int64_t t) const { return order(held.long_rows(1 + t)); }
  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    // Where rows are held, the fill takes the queries in their own order (held_rows); where
    // none are, and in the listed launch, the search's.
    const std::int64_t i = listed ? listed_query(t) : held.capacity > 0 ? t : order(t);
    const std::int64_t begin = offsets(i), count = offsets(i + 1) - begin;
    if (long_above >= 0 && (count > long_above) != long_only) return;
    const bool with_distances = distances.extent(0) > 0;
    std::int64_t next = begin;
    if (!Sorted || count > Row_capacity) {
      const bool keys_apart = Sorted && listed && long_keys.extent(0) > 0 && count <= within_long_row_capacity;
      auto visit = [&](std::int64_t r, double d) {
        found(next) = static_cast<index_type>(rule.bvh.order(r));
        if (keys_apart) long_keys(t * within_long_row_capacity + (next - begin)) = d;
        else if (Sorted) keys(next) = d;
        else if (with_distances) distances(next) = static_cast<distance_type>(d);
        ++next;
        return true;
      };
      if (Sorted || with_distances) for_each<true>(i, count, visit);
      else for_each<false>(i, count, visit);
      if (!Sorted || keys_apart || sorted_apart) return;
      sort_by_key(keys, found, begin, next);
      if (with_distances && static_cast<const void*>(keys.data()) != static_cast<const void*>(distances.data()))
        for (std::int64_t e = begin; e < next; ++e) distances(e) = static_cast<distance_type>(keys(e));
      return;
    }
    if constexpr (Row_capacity > 0) {
      register_row<Row_capacity, index_type> row;
      int size = 0;
      auto visit = [&](std::int64_t r, double d) {
        row.template add<typename Order::memory_space>(size++, d, static_cast<index_type>(rule.bvh.order(r)));
        return true;
      };
      for_each<true>(i, count, visit);
      row.write(found, distances, begin, count, with_distances);
    }
  }
};

// The long rows' launch's sorted rows of up to within_long_row_capacity (fill_within_kernel's
// long_keys), sorted in registers where they lie.
template <class Fill>
struct sort_long_rows {
  Fill fill;
  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t i = fill.listed_query(t);
    const std::int64_t begin = fill.offsets(i), count = fill.offsets(i + 1) - begin;
    if (count > within_long_row_capacity) return;
    register_row<within_long_row_capacity, typename Fill::index_type> row;
    for (int e = 0; e < int(count); ++e)
      row.template add<typename decltype(fill.long_keys)::memory_space>(
          e, fill.long_keys(t * within_long_row_capacity + e), fill.found(begin + e));
    row.write(fill.found, fill.distances, begin, count, fill.distances.extent(0) > 0);
  }
};

}  // namespace kernwerk::impl
