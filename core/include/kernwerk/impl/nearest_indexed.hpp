#pragma once
// The exact indexed mode of kernwerk::nearest on the sphere: a uniform grid over the cube
// [-1, 1]^3 that holds the reference unit vectors, built per call by a counting sort.
//
// A query visits its own cell, then shells of cells around it (Chebyshev distance 1, 2, ...),
// skipping every cell whose box is farther than the k-th neighbour found so far, and stops
// when the whole unvisited space is farther. Candidates go through the same float64 filter and
// haversine key as the brute force, so the result is the brute force's, ties included.
// Box distances are widened by a slack that covers the rounding of the cell assignment.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernwerk/impl/nearest_generic.hpp"

namespace kernwerk::impl {

inline constexpr double grid_slack = 1e-12;        // >> rounding of (x + 1) / cell
// References per occupied cell on the sphere's surface, on average: fewer cells cost more
// distance tests, more cells more empty visits. The benchmark can vary it (--refs-per-cell).
struct grid_policy {
  static inline double references_per_cell = 2.0;
};
inline constexpr int max_cells_per_axis = 256;      // 2^24 cells: 64 MiB of cell starts

inline int grid_cells_per_axis(std::int64_t reference_count) {
  // Cells of side h cover the sphere's 4 pi of area with about 4 pi / h^2 cells.
  const double side = std::sqrt(4.0 * M_PI * grid_policy::references_per_cell / double(reference_count));
  return std::clamp(int(2.0 / side), 1, max_cells_per_axis);
}

template <class MemorySpace>
struct sphere_grid {
  template <class T>
  using array = Kokkos::View<T, MemorySpace, Kokkos::MemoryUnmanaged>;
  int cells;    // per axis
  double side;  // of a cell
  array<int*> start;  // references of cell c: sorted rows start(c)..start(c+1)
  Kokkos::View<double* [3], Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged>
      sorted;         // unit vectors, cell after cell
  array<int*> order;  // original index of each sorted row
  array<int*> cursor;  // next free row of each cell, while scattering

  static std::int64_t cell_count(int cells) { return std::int64_t(cells) * cells * cells; }
  static std::size_t bytes(std::int64_t references) {
    const std::int64_t cells = cell_count(grid_cells_per_axis(references));
    using scratch = workspace<MemorySpace>;
    return 2 * scratch::template bytes_for<int>(cells + 1) +
           scratch::template bytes_for<double>(3 * references) +
           scratch::template bytes_for<int>(references);
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
};

template <class Prepared, class Grid>
struct count_into_cells {
  Prepared prepared;
  Grid grid;
  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    const int c = grid.cell(grid.axis_cell(prepared(j, column_x)), grid.axis_cell(prepared(j, column_y)),
                            grid.axis_cell(prepared(j, column_z)));
    Kokkos::atomic_add(&grid.start(c), 1);
  }
};

template <class Starts>
struct exclusive_prefix {
  Starts starts;
  KOKKOS_FUNCTION void operator()(const std::int64_t c, int& partial, const bool final) const {
    const int count = starts(c);
    if (final) starts(c) = partial;
    partial += count;
  }
};

template <class Prepared, class Grid, class Cursor>
struct scatter_into_cells {
  Prepared prepared;
  Grid grid;
  Cursor cursor;
  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    const double x = prepared(j, column_x), y = prepared(j, column_y), z = prepared(j, column_z);
    const int c = grid.cell(grid.axis_cell(x), grid.axis_cell(y), grid.axis_cell(z));
    const int row = Kokkos::atomic_fetch_add(&cursor(c), 1);
    grid.sorted(row, 0) = x;
    grid.sorted(row, 1) = y;
    grid.sorted(row, 2) = z;
    grid.order(row) = static_cast<int>(j);
  }
};

template <class ExecutionSpace, class Prepared, class Workspace>
sphere_grid<typename ExecutionSpace::memory_space> build_sphere_grid(const ExecutionSpace& space,
                                                                     const Prepared& prepared,
                                                                     Workspace& scratch) {
  using memory_space = typename ExecutionSpace::memory_space;
  using grid_type = sphere_grid<memory_space>;
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const auto m = static_cast<std::int64_t>(prepared.extent(0));
  grid_type grid;
  grid.cells = grid_cells_per_axis(m);
  grid.side = 2.0 / grid.cells;
  const std::int64_t cell_count = grid_type::cell_count(grid.cells);
  grid.start = typename grid_type::template array<int*>(scratch.template take<int>(cell_count + 1),
                                                        cell_count + 1);
  grid.cursor = typename grid_type::template array<int*>(scratch.template take<int>(cell_count + 1),
                                                         cell_count + 1);
  grid.sorted = decltype(grid.sorted)(scratch.template take<double>(3 * m), m);
  grid.order = typename grid_type::template array<int*>(scratch.template take<int>(m), m);
  Kokkos::deep_copy(space, grid.start, 0);
  Kokkos::parallel_for("kernwerk::nearest::grid_count", policy(space, 0, m),
                       count_into_cells<Prepared, grid_type>{prepared, grid});
  Kokkos::parallel_scan("kernwerk::nearest::grid_scan", policy(space, 0, cell_count + 1),
                        exclusive_prefix<decltype(grid.start)>{grid.start});
  Kokkos::deep_copy(space, grid.cursor, grid.start);
  Kokkos::parallel_for("kernwerk::nearest::grid_scatter", policy(space, 0, m),
                       scatter_into_cells<Prepared, grid_type, decltype(grid.cursor)>{
                           prepared, grid, grid.cursor});
  return grid;
}

// Observations in the order of their grid cells, so that the threads of a warp search the
// same cells: a counting sort by cell. It costs a few passes over the observations and pays on
// GPUs with many observations per thread (measured on an H200: 2^24 x 2^14 from 7.0 to 4.1 ms,
// but 2^16 x 2^16 from 0.21 to 0.30 ms); on the 2-core host it cost 30% at 2^16 x 2^13.
struct order_policy {  // tests lower these to take the ordered search on small sets
  static inline std::int64_t min_concurrency = 4096;
  static inline std::int64_t per_thread = 16;
};
inline bool order_pays(std::int64_t observations, std::int64_t concurrency) {
  return concurrency >= order_policy::min_concurrency &&
         observations >= order_policy::per_thread * concurrency;
}

template <class Metric, class Grid, class Array>
struct observation_cells {
  Metric metric;
  Grid grid;
  Array counts, cell_of;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    const auto o = metric.observation(i);
    const int c = grid.cell(grid.axis_cell(o.x), grid.axis_cell(o.y), grid.axis_cell(o.z));
    cell_of(i) = c;
    Kokkos::atomic_add(&counts(c), 1);
  }
};

template <class Array>
struct scatter_observations {
  Array cursor, cell_of, order;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    order(Kokkos::atomic_fetch_add(&cursor(cell_of(i)), 1)) = static_cast<int>(i);
  }
};

template <class Array>
struct identity_order {
  Array order;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const { order(i) = static_cast<int>(i); }
};

template <class Metric, class Grid, int Capacity, class Output>
struct indexed_query {
  Metric metric;  // sphere_metric: observations, prepared references (for the keys)
  Grid grid;
  Output output;
  int k;
  typename Grid::template array<int*> order;  // the observation each thread searches for

  KOKKOS_INLINE_FUNCTION static double squared(double v) { return v * v; }

  // Squared distance from o to the box of cell (ix, iy, iz), widened by the slack.
  KOKKOS_INLINE_FUNCTION double box_distance(const sphere_point& o, int ix, int iy, int iz) const {
    auto axis = [&](double v, int i) {
      const double below = grid.lower(i) - v, above = v - grid.upper(i);
      return below > 0 ? below : (above > 0 ? above : 0.0);
    };
    return squared(axis(o.x, ix)) + squared(axis(o.y, iy)) + squared(axis(o.z, iz));
  }

  // Distance from o to the nearest cell outside the block of shells 0..shell-1 around cell c;
  // negative when there is no such cell.
  KOKKOS_INLINE_FUNCTION double reach_beyond(const sphere_point& o, const int c[3],
                                             int shell) const {
    const double v[3] = {o.x, o.y, o.z};
    double reach = -1.0;
    for (int a = 0; a < 3; ++a) {
      if (c[a] - shell >= 0) {
        const double d = v[a] - grid.upper(c[a] - shell);
        reach = reach < 0 || d < reach ? (d > 0 ? d : 0.0) : reach;
      }
      if (c[a] + shell < grid.cells) {
        const double d = grid.lower(c[a] + shell) - v[a];
        reach = reach < 0 || d < reach ? (d > 0 ? d : 0.0) : reach;
      }
    }
    return reach;
  }

  KOKKOS_INLINE_FUNCTION void visit(const sphere_point& o, const key_evaluator<Metric>& keys,
                                    int ix, int iy, int iz, neighbour_list<Capacity>& list) const {
    if (ix < 0 || iy < 0 || iz < 0 || ix >= grid.cells || iy >= grid.cells || iz >= grid.cells)
      return;
    if (!list.admits(box_distance(o, ix, iy, iz))) return;
    const int c = grid.cell(ix, iy, iz);
    const int end = grid.start(c + 1);
    for (int row = grid.start(c); row < end; ++row) {
      const double dx = o.x - grid.sorted(row, 0), dy = o.y - grid.sorted(row, 1),
                   dz = o.z - grid.sorted(row, 2);
      const double chord = dx * dx + dy * dy + dz * dz;
      if (list.admits(chord)) list.offer(chord, grid.order(row), keys);
    }
  }

  KOKKOS_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t i = order(t);
    const auto o = metric.observation(i);
    const key_evaluator<Metric> keys{metric, o};
    const int c[3] = {grid.axis_cell(o.x), grid.axis_cell(o.y), grid.axis_cell(o.z)};
    neighbour_list<Capacity> list(k, Metric::margin);
    visit(o, keys, c[0], c[1], c[2], list);
    for (int shell = 1; shell <= grid.cells; ++shell) {
      const double reach = reach_beyond(o, c, shell);
      if (reach < 0) break;  // every cell visited
      if (!list.admits(squared(reach))) break;
      for (int iz = c[2] - shell; iz <= c[2] + shell; ++iz) {
        for (int iy = c[1] - shell; iy <= c[1] + shell; ++iy) {
          const bool inner = iz - c[2] < shell && c[2] - iz < shell && iy - c[1] < shell &&
                             c[1] - iy < shell;
          const int step = inner ? 2 * shell : 1;  // inside the block only the two x faces
          for (int ix = c[0] - shell; ix <= c[0] + shell; ix += step)
            visit(o, keys, ix, iy, iz, list);
        }
      }
    }
    write_list(keys, output, i, list);
  }
};

template <class ExecutionSpace, class Observations, class References, class Output>
void nearest_indexed(const ExecutionSpace& space, const Observations& observations,
                     const References& references, const Output& output, int k, double scale,
                     double radius) {
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  using grid_type = sphere_grid<memory_space>;
  using array = typename grid_type::template array<int*>;
  const auto m = static_cast<std::int64_t>(references.extent(0));
  const auto n = static_cast<std::int64_t>(observations.extent(0));
  const std::int64_t cells = grid_type::cell_count(grid_cells_per_axis(m));
  using scratch_type = workspace<memory_space>;
  scratch_type scratch(sphere_points_bytes<memory_space>(m) + grid_type::bytes(m) +
                       2 * scratch_type::template bytes_for<int>(cells + 1) +
                       2 * scratch_type::template bytes_for<int>(n));
  const auto prepared = prepare_sphere_references(space, references, scale, scratch);
  const auto grid = build_sphere_grid(space, prepared, scratch);
  using metric_type = sphere_metric<Observations, std::remove_const_t<decltype(prepared)>>;
  const metric_type metric{observations, prepared, scale, radius};

  const array order(scratch.template take<int>(n), n);
  if (order_pays(n, space.concurrency())) {
    const array counts(scratch.template take<int>(cells + 1), cells + 1);
    const array cursor(scratch.template take<int>(cells + 1), cells + 1);
    const array cell_of(scratch.template take<int>(n), n);
    Kokkos::deep_copy(space, counts, 0);
    Kokkos::parallel_for("kernwerk::nearest::observation_cells", policy(space, 0, n),
                         observation_cells<metric_type, grid_type, array>{metric, grid, counts,
                                                                           cell_of});
    Kokkos::parallel_scan("kernwerk::nearest::observation_scan", policy(space, 0, cells + 1),
                          exclusive_prefix<array>{counts});
    Kokkos::deep_copy(space, cursor, counts);
    Kokkos::parallel_for("kernwerk::nearest::observation_order", policy(space, 0, n),
                         scatter_observations<array>{cursor, cell_of, order});
  } else {
    Kokkos::parallel_for("kernwerk::nearest::observation_identity", policy(space, 0, n),
                         identity_order<array>{order});
  }
  with_capacity(k, [&](auto capacity) {
    Kokkos::parallel_for(
        "kernwerk::nearest::indexed", policy(space, 0, n),
        indexed_query<metric_type, std::remove_const_t<decltype(grid)>, decltype(capacity)::value,
                      Output>{metric, grid, output, k, order});
  });
  space.fence();  // before the workspace is released
}

}  // namespace kernwerk::impl
