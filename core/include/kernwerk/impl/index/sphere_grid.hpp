#pragma once
// The first stage of the sphere index: a uniform grid over the cube [-1, 1]^3 holding the
// reference unit vectors (a counting sort into cells sized for about two references each on a
// uniformly covered sphere). Where the references do cover the sphere, a search settles in its
// own cell and the shells of cells around it (Chebyshev distance 1, 2) at the cost of a few
// dozen distance tests, cheaper than any tree; the hierarchy (index/point_bvh.hpp) takes over
// where that does not settle the answer. Where the references crowd into few cells (a cluster,
// a band, tracks), the grid is not used at all: its statistics decide at build time.
// Box distances are widened by a slack that covers the rounding of the cell assignment.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernwerk/impl/geometry/metrics.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::impl {

inline constexpr double grid_slack = 1e-12;  // >> rounding of (x + 1) / cell
inline constexpr int max_cells_per_axis = 256;  // 2^24 cells: 64 MiB of cell starts

// References per occupied cell on a uniformly covered sphere: fewer cells cost more distance
// tests, more cells more empty visits (a sweep of 1 to 4: commit ee6f45f).
// Shells a search visits before the hierarchy takes over. The grid is used where at least
// 1/min_occupancy of the references' count of cells is occupied and no cell holds more than
// max_per_cell references.
struct grid_policy {
  static inline double references_per_cell = 2.0;
  static inline int shells = 2;
  static inline double min_occupancy = 8.0;
  static inline int max_per_cell = 64;
};

inline int grid_cells_per_axis(std::int64_t reference_count) {
  // Cells of side h cover the sphere's 4 pi of area with about 4 pi / h^2 cells.
  const double side =
      std::sqrt(4.0 * M_PI * grid_policy::references_per_cell / double(reference_count));
  return std::clamp(int(2.0 / side), 1, max_cells_per_axis);
}

template <class MemorySpace>
struct sphere_grid {
  template <class T>
  using array = Kokkos::View<T, MemorySpace, Kokkos::MemoryUnmanaged>;
  bool used = false;  // false: the statistics found the references crowded
  int shells = 2;     // a search visits before the hierarchy takes over
  int cells = 1;      // per axis
  double side = 2.0;  // of a cell
  array<int*> start;  // references of cell c: sorted rows start(c)..start(c+1)
  Kokkos::View<double* [3], Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged>
      sorted;         // unit vectors, cell after cell
  array<int*> order;  // reference index of each sorted row

  static std::int64_t cell_count(int cells) { return std::int64_t(cells) * cells * cells; }
  // Memory the grid keeps, and what its construction borrows.
  static std::size_t bytes(std::int64_t references) {
    const std::int64_t cells = cell_count(grid_cells_per_axis(references));
    return carver::bytes_for<int>(cells + 1) + carver::bytes_for<double>(3 * references) +
           carver::bytes_for<int>(references);
  }
  static std::size_t build_bytes(std::int64_t references) {
    return carver::bytes_for<int>(cell_count(grid_cells_per_axis(references)) + 1);
  }

  KOKKOS_INLINE_FUNCTION int axis_cell(double coordinate) const {
    const int c = static_cast<int>((coordinate + 1.0) / side);
    return c < 0 ? 0 : (c >= cells ? cells - 1 : c);
  }
  KOKKOS_INLINE_FUNCTION int cell(int ix, int iy, int iz) const {
    return ix + cells * (iy + cells * iz);
  }
  KOKKOS_INLINE_FUNCTION double lower(int i) const { return -1.0 + i * side - grid_slack; }
  KOKKOS_INLINE_FUNCTION double upper(int i) const { return -1.0 + (i + 1) * side + grid_slack; }

  // Squared distance from (x, y, z) to the box of cell (ix, iy, iz), widened by the slack.
  KOKKOS_INLINE_FUNCTION double box_distance(double x, double y, double z, int ix, int iy,
                                             int iz) const {
    auto axis = [&](double v, int i) {
      const double below = lower(i) - v, above = v - upper(i);
      return below > 0 ? below : (above > 0 ? above : 0.0);
    };
    const double dx = axis(x, ix), dy = axis(y, iy), dz = axis(z, iz);
    return dx * dx + dy * dy + dz * dz;
  }
  // Distance from (x, y, z) in cell c to the nearest cell outside the block of shells
  // 0..shell-1 around c; negative when there is no such cell.
  KOKKOS_INLINE_FUNCTION double reach_beyond(double x, double y, double z, const int c[3],
                                             int shell) const {
    const double v[3] = {x, y, z};
    double reach = -1.0;
    for (int a = 0; a < 3; ++a) {
      if (c[a] - shell >= 0) {
        const double d = v[a] - upper(c[a] - shell);
        reach = reach < 0 || d < reach ? (d > 0 ? d : 0.0) : reach;
      }
      if (c[a] + shell < cells) {
        const double d = lower(c[a] + shell) - v[a];
        reach = reach < 0 || d < reach ? (d > 0 ? d : 0.0) : reach;
      }
    }
    return reach;
  }
  // Whether (x, y, z) falls in the block of shells 0..shells around cell c.
  KOKKOS_INLINE_FUNCTION bool in_block(double x, double y, double z, const int c[3],
                                       int shells) const {
    const int d[3] = {axis_cell(x) - c[0], axis_cell(y) - c[1], axis_cell(z) - c[2]};
    return d[0] <= shells && -d[0] <= shells && d[1] <= shells && -d[1] <= shells &&
           d[2] <= shells && -d[2] <= shells;
  }
};

template <class Array>
struct exclusive_prefix {
  Array starts;
  KOKKOS_FUNCTION void operator()(const std::int64_t c, std::int64_t& partial, const bool final) const {
    const auto count = static_cast<std::int64_t>(starts(c));
    if (final) starts(c) = static_cast<typename Array::value_type>(partial);
    partial += count;
  }
};

namespace grid_build {

template <class Points, class Grid>
struct count_into_cells {
  Points points;
  Grid grid;
  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    const int c = grid.cell(grid.axis_cell(points(j, column_x)), grid.axis_cell(points(j, column_y)),
                            grid.axis_cell(points(j, column_z)));
    Kokkos::atomic_add(&grid.start(c), 1);
  }
};

// The occupied cells and the fullest cell's count, in one pass.
struct cell_statistics {
  std::int64_t occupied;
  int most;
};
template <class Starts>
struct occupancy {
  using value_type = cell_statistics;
  Starts counts;
  KOKKOS_FUNCTION void operator()(const std::int64_t c, value_type& statistics) const {
    const int count = counts(c);
    statistics.occupied += count > 0 ? 1 : 0;
    statistics.most = count > statistics.most ? count : statistics.most;
  }
  KOKKOS_FUNCTION void init(value_type& statistics) const { statistics = {0, 0}; }
  KOKKOS_FUNCTION void join(value_type& into, const value_type& from) const {
    into.occupied += from.occupied;
    into.most = from.most > into.most ? from.most : into.most;
  }
#if KOKKOS_VERSION < 40000
  KOKKOS_FUNCTION void join(volatile value_type& into, const volatile value_type& from) const {
    into.occupied += from.occupied;
    into.most = from.most > into.most ? from.most : into.most;
  }
#endif
};

template <class Points, class Order, class Grid, class Cursor>
struct scatter_into_cells {
  Points points;
  Order order;  // reference index of each row of points
  Grid grid;
  Cursor cursor;
  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    const double x = points(j, column_x), y = points(j, column_y), z = points(j, column_z);
    const int c = grid.cell(grid.axis_cell(x), grid.axis_cell(y), grid.axis_cell(z));
    const int row = Kokkos::atomic_fetch_add(&cursor(c), 1);
    grid.sorted(row, 0) = x;
    grid.sorted(row, 1) = y;
    grid.sorted(row, 2) = z;
    grid.order(row) = order(j);
  }
};

}  // namespace grid_build

// Counts the points into cells and, where the statistics say the grid pays, sorts them in.
// points: rows with column_x, column_y, column_z; order: the reference index of each row.
template <class ExecutionSpace, class Points, class Order, class Keep, class Scratch>
sphere_grid<typename ExecutionSpace::memory_space> build_sphere_grid(
    const ExecutionSpace& space, const Points& points, const Order& order, Keep& keep,
    Scratch& scratch) {
  using memory_space = typename ExecutionSpace::memory_space;
  using grid_type = sphere_grid<memory_space>;
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  using starts_type = typename grid_type::template array<int*>;
  const auto m = static_cast<std::int64_t>(points.extent(0));
  grid_type grid;
  grid.cells = grid_cells_per_axis(m);
  grid.side = 2.0 / grid.cells;
  grid.shells = grid_policy::shells;
  const std::int64_t cells = grid_type::cell_count(grid.cells);
  grid.start = starts_type(keep.template take<int>(cells + 1), cells + 1);
  grid.sorted = decltype(grid.sorted)(keep.template take<double>(3 * m), m);
  grid.order = starts_type(keep.template take<int>(m), m);
  Kokkos::deep_copy(space, grid.start, 0);
  Kokkos::parallel_for("kernwerk::index::grid_count", policy(space, 0, m),
                       grid_build::count_into_cells<Points, grid_type>{points, grid});
  grid_build::cell_statistics statistics{0, 0};
  Kokkos::parallel_reduce("kernwerk::index::grid_occupancy", policy(space, 0, cells),
                          grid_build::occupancy<starts_type>{grid.start}, statistics);
  grid.used = double(statistics.occupied) * grid_policy::min_occupancy >= double(m) &&
              statistics.most <= grid_policy::max_per_cell;
  if (!grid.used) return grid;
  Kokkos::parallel_scan("kernwerk::index::grid_scan", policy(space, 0, cells + 1),
                        exclusive_prefix<starts_type>{grid.start});
  const starts_type cursor(scratch.template take<int>(cells + 1), cells + 1);
  Kokkos::deep_copy(space, cursor, grid.start);
  Kokkos::parallel_for("kernwerk::index::grid_scatter", policy(space, 0, m),
                       grid_build::scatter_into_cells<Points, Order, grid_type, starts_type>{
                           points, order, grid, cursor});
  space.fence();  // before the scratch is given back
  return grid;
}

}  // namespace kernwerk::impl
