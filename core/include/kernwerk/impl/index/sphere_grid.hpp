#pragma once
// The first stage of the sphere index: a uniform grid over the cube [-1, 1]^3 holding the
// reference unit vectors (a counting sort into cells sized for about two references each on a
// uniformly covered sphere). Where the references do cover the sphere, a search settles in its
// own cell and the shells of cells around it (Chebyshev distance 1, 2) at the cost of a few
// dozen distance tests, cheaper than any tree; the hierarchy (index/point_bvh.hpp) takes over
// where that does not settle the answer. Where the references crowd into few cells (a cluster,
// a band, tracks), the grid is not used at all: its statistics decide at build time.
// Box distances are widened by a slack that covers the rounding of the cell assignment.
// The index build fills the grid in its own passes (sphere_grid_build).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernwerk/impl/geometry/metrics.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/math.hpp"
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
  static inline bool block_first = true;  // one neighbour: the 2 x 2 x 2 cells first (bvh_query)
  static inline double min_occupancy = 8.0;
  static inline int max_per_cell = 64;
};

inline int grid_cells_per_axis(std::int64_t reference_count) {
  // Cells of side h cover the sphere's 4 pi of area with about 4 pi / h^2 cells.
  const double side =
      std::sqrt(4.0 * M_PI * grid_policy::references_per_cell / double(reference_count));
  return std::clamp(int(2.0 / side), 1, max_cells_per_axis);
}

// Cells a team turns into starts on large grids (sphere_grid_build::starts), and the cells from
// which a grid is large: below, one scan's pass costs less than the scan by blocks' two more
// launches (their host time against the pass's, timed on the H200: issue 46's note of 2026-11-27).
inline constexpr std::int64_t grid_scan_block = 4096;
inline constexpr std::int64_t grid_scan_by_blocks = std::int64_t(1) << 19;
// The blocks of cells + 1 starts.
inline std::int64_t grid_scan_blocks(std::int64_t cells) {
  return (cells + grid_scan_block) / grid_scan_block;
}

template <class MemorySpace>
struct sphere_grid {
  template <class T>
  using array = Kokkos::View<T, MemorySpace, Kokkos::MemoryUnmanaged>;
  bool used = false;  // false: the statistics found the references crowded
  int shells = 2;     // a search visits before the hierarchy takes over
  bool block_first = true;  // grid_policy's
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
    const std::int64_t cells = cell_count(grid_cells_per_axis(references));
    return carver::bytes_for<int>(cells + 1) +  // cursors, and block sums for the scan
           carver::bytes_for<std::int64_t>(2 * grid_scan_blocks(cells));
  }

  KOKKOS_INLINE_FUNCTION int axis_cell(double coordinate) const {
    // Clamped before the conversion: a point the build's checks refuse (NaN, beyond the cube)
    // is counted too before the build throws, and goes to an edge cell.
    const double c = (coordinate + 1.0) / side;
    return c >= 1.0 ? (c < double(cells) ? static_cast<int>(c) : cells - 1) : 0;
  }
  KOKKOS_INLINE_FUNCTION int cell(int ix, int iy, int iz) const {
    return ix + cells * (iy + cells * iz);
  }
  KOKKOS_INLINE_FUNCTION double lower(int i) const { return -1.0 + i * side - grid_slack; }
  KOKKOS_INLINE_FUNCTION double upper(int i) const { return -1.0 + (i + 1) * side + grid_slack; }

  // Squared distance from (x, y, z) to the box of cells ix0..ix1 of row (iy, iz), widened by
  // the slack.
  KOKKOS_INLINE_FUNCTION double box_distance(double x, double y, double z, int ix0, int ix1,
                                             int iy, int iz) const {
    auto axis = [&](double v, int low, int high) {
      const double below = lower(low) - v, above = v - upper(high);
      return below > 0 ? below : (above > 0 ? above : 0.0);
    };
    const double dx = axis(x, ix0, ix1), dy = axis(y, iy, iy), dz = axis(z, iz, iz);
    return squared_norm(dx, dy, dz);
  }
  // Distance from v to the nearest cell outside the block of cells low[a]..high[a] along each
  // axis; negative when there is no such cell. Selects, not branches: which side of a cell a
  // point lies on is a coin toss (perf/results/issue46-host-grid-selects-epyc-2core.json).
  KOKKOS_INLINE_FUNCTION double reach_outside(const double v[3], const int low[3],
                                              const int high[3]) const {
    constexpr double none = std::numeric_limits<double>::infinity();
    double reach = none;
    for (int a = 0; a < 3; ++a) {
      const double below = low[a] > 0 ? v[a] - upper(low[a] - 1) : none;
      const double above = high[a] + 1 < cells ? lower(high[a] + 1) - v[a] : none;
      reach = below < reach ? below : reach;
      reach = above < reach ? above : reach;
    }
    return reach == none ? -1.0 : (reach > 0 ? reach : 0.0);
  }
  // Distance from (x, y, z) in cell c to the nearest cell outside the block of shells
  // 0..shell-1 around c; negative when there is no such cell.
  KOKKOS_INLINE_FUNCTION double reach_beyond(double x, double y, double z, const int c[3],
                                             int shell) const {
    const double v[3] = {x, y, z};
    const int low[3] = {c[0] - shell + 1, c[1] - shell + 1, c[2] - shell + 1};
    const int high[3] = {c[0] + shell - 1, c[1] + shell - 1, c[2] + shell - 1};
    return reach_outside(v, low, high);
  }
  // The 2 x 2 x 2 cells nearest to (x, y, z) in cell c (c and, along each axis, its neighbour
  // on the point's side), from low[a] along each axis; returns the distance to the nearest cell
  // outside them (negative: none).
  KOKKOS_INLINE_FUNCTION double nearest_block(double x, double y, double z, const int c[3],
                                              int low[3]) const {
    const double v[3] = {x, y, z};
    int high[3];
    for (int a = 0; a < 3; ++a) {
      low[a] = c[a] - int(v[a] - lower(c[a]) < upper(c[a]) - v[a]);
      high[a] = low[a] + 1;
    }
    return reach_outside(v, low, high);
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

// Whether the grid pays: its occupied cells, and whether a cell holds more than
// grid_policy::max_per_cell points.
struct cell_statistics {
  std::int64_t occupied;
  int overfull;
};

// For `references` points, with grid_policy's min_occupancy (passed in: a device cannot read
// the policy).
KOKKOS_INLINE_FUNCTION bool grid_pays(const cell_statistics& statistics, std::int64_t references,
                                      double min_occupancy) {
  return double(statistics.occupied) * min_occupancy >= double(references) && !statistics.overfull;
}

// The rows before each cell, and the cells occupied so far.
struct rows_and_cells {
  std::int64_t rows, occupied;
  template <class Into, class From>  // (either may be volatile: Kokkos 3's scans join so)
  KOKKOS_INLINE_FUNCTION static void add(Into& into, const From& from) {
    into.rows += from.rows;
    into.occupied += from.occupied;
  }
};
// An exclusive scan of (rows, occupied cells) over `input`'s elements: output(i, rows before
// i); the occupied cells of all into *statistics at element `last`.
template <class Input, class Output>
struct scan_rows_and_cells {
  using value_type = rows_and_cells;
  Input input;
  Output output;
  cell_statistics* statistics;
  std::int64_t last;
  KOKKOS_FUNCTION void operator()(const std::int64_t i, value_type& before, const bool final) const {
    const rows_and_cells here = input(i);
    if (final) {
      output(i, before.rows);
      if (i == last) statistics->occupied = before.occupied + here.occupied;
    }
    value_type::add(before, here);
  }
  KOKKOS_FUNCTION void init(value_type& value) const { value = {0, 0}; }
  KOKKOS_FUNCTION void join(value_type& into, const value_type& from) const { value_type::add(into, from); }
#if KOKKOS_VERSION < 40000
  KOKKOS_FUNCTION void join(volatile value_type& into, const volatile value_type& from) const {
    value_type::add(into, from);
  }
#endif
};
// Its input and output over cells: the counts turned into starts and the placing's cursors.
template <class Starts>
struct cell_counts {
  Starts start;
  KOKKOS_FUNCTION rows_and_cells operator()(const std::int64_t c) const {
    return {start(c), start(c) > 0 ? 1 : 0};
  }
};
template <class Starts>
struct cell_starts {
  Starts start, cursor;
  KOKKOS_FUNCTION void operator()(const std::int64_t c, std::int64_t rows) const {
    start(c) = cursor(c) = static_cast<int>(rows);
  }
};

// The same in three launches for large grids (a grid of cells is mostly empty cube, 16 cells a
// point at 2^20 points, and one pass-per-element scan of it cost a third of a build): a team a
// block of cells sums them, one scan over the blocks, and each team scans its block from there.
template <class Starts, class Sums>
struct block_sums {
  Starts start;
  Sums rows, occupied;  // of each block
  std::int64_t length;  // cells + 1
  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t first = team.league_rank() * grid_scan_block;
    const std::int64_t last = first + grid_scan_block < length ? first + grid_scan_block : length;
    std::int64_t block_rows = 0, block_cells = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, first, last),
        [&](const std::int64_t c, std::int64_t& sum) { sum += start(c); }, block_rows);
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, first, last),
        [&](const std::int64_t c, std::int64_t& sum) { sum += start(c) > 0 ? 1 : 0; }, block_cells);
    Kokkos::single(Kokkos::PerTeam(team), [&] {
      rows(team.league_rank()) = block_rows;
      occupied(team.league_rank()) = block_cells;
    });
  }
};
// Its input and output over blocks: the blocks' sums turned into their first rows.
template <class Sums>
struct block_totals {
  Sums rows, occupied;
  KOKKOS_FUNCTION rows_and_cells operator()(const std::int64_t b) const { return {rows(b), occupied(b)}; }
};
template <class Sums>
struct block_firsts {
  Sums rows;
  KOKKOS_FUNCTION void operator()(const std::int64_t b, std::int64_t before) const { rows(b) = before; }
};
template <class Starts, class Sums>
struct block_starts {
  Starts start, cursor;
  Sums offset;  // of each block
  std::int64_t length;
  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t first = team.league_rank() * grid_scan_block;
    const std::int64_t last = first + grid_scan_block < length ? first + grid_scan_block : length;
    const std::int64_t base = offset(team.league_rank());
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, first, last),
                          [&](const std::int64_t c, std::int64_t& before, const bool final) {
                            const int count = start(c);
                            if (final) start(c) = cursor(c) = static_cast<int>(base + before);
                            before += count;
                          });
  }
};

}  // namespace grid_build

// The grid over `references` unit vectors with its memory carved from `keep`, for the index
// build (index/point_bvh.hpp) to fill in its own passes: it zeroes grid.start, counts the points
// into their cells (count, which says when a cell overflows), turns the counts into starts
// (starts, which counts the occupied cells), and, where the statistics say the grid pays,
// sorts the points in (place).
template <class MemorySpace>
struct sphere_grid_build {
  using grid_type = sphere_grid<MemorySpace>;
  using starts_type = typename grid_type::template array<int*>;
  grid_type grid;
  starts_type cursor;  // the next free row of each cell, in the build's scratch
  std::int64_t* block_scratch = nullptr;  // starts() on large grids

  sphere_grid_build() = default;  // no grid
  template <class Keep, class Scratch>
  sphere_grid_build(std::int64_t references, Keep& keep, Scratch& scratch) {
    grid.cells = grid_cells_per_axis(references);
    grid.side = 2.0 / grid.cells;
    grid.shells = grid_policy::shells;
    grid.block_first = grid_policy::block_first;
    const std::int64_t cells = grid_type::cell_count(grid.cells);
    grid.start = starts_type(keep.template take<int>(cells + 1), cells + 1);
    grid.sorted = decltype(grid.sorted)(keep.template take<double>(3 * references), references);
    grid.order = starts_type(keep.template take<int>(references), references);
    cursor = starts_type(scratch.template take<int>(cells + 1), cells + 1);
    block_scratch = scratch.template take<std::int64_t>(
        2 * grid_scan_blocks(cells));
  }

  KOKKOS_INLINE_FUNCTION int cell_of(double x, double y, double z) const {
    return grid.cell(grid.axis_cell(x), grid.axis_cell(y), grid.axis_cell(z));
  }
  // Counts (x, y, z) into its cell; returns the points counted there before it.
  KOKKOS_INLINE_FUNCTION int count(double x, double y, double z) const {
    return Kokkos::atomic_fetch_add(&grid.start(cell_of(x, y, z)), 1);
  }
  // The counts into starts, the occupied cells into *statistics (device memory), as one scan
  // (a step of launch_steps).
  auto start_scan(grid_build::cell_statistics* statistics) const {
    const std::int64_t cells = grid_type::cell_count(grid.cells);
    return step_scan(
        "kernwerk::index::grid_starts", cells + 1,
        grid_build::scan_rows_and_cells<grid_build::cell_counts<starts_type>, grid_build::cell_starts<starts_type>>{
            {grid.start}, {grid.start, cursor}, statistics, cells});
  }
  // The starts: that scan on small grids, by blocks of cells on large ones.
  template <class ExecutionSpace>
  void starts(const ExecutionSpace& space, grid_build::cell_statistics* statistics) const {
    const std::int64_t cells = grid_type::cell_count(grid.cells);
    if (cells + 1 <= grid_scan_by_blocks) {
      launch_steps(space, false, nullptr, start_scan(statistics));
      return;
    }
    using sums = Kokkos::View<std::int64_t*, MemorySpace, Kokkos::MemoryUnmanaged>;
    using teams = Kokkos::TeamPolicy<ExecutionSpace>;
    const std::int64_t blocks = grid_scan_blocks(cells);
    const sums rows(block_scratch, blocks), occupied(block_scratch + blocks, blocks);
    Kokkos::parallel_for("kernwerk::index::grid_block_sums", teams(space, int(blocks), Kokkos::AUTO),
                         grid_build::block_sums<starts_type, sums>{grid.start, rows, occupied, cells + 1});
    Kokkos::parallel_scan(
        "kernwerk::index::grid_block_offsets", index_policy<ExecutionSpace>(space, 0, blocks),
        grid_build::scan_rows_and_cells<grid_build::block_totals<sums>, grid_build::block_firsts<sums>>{
            {rows, occupied}, {rows}, statistics, blocks - 1});
    Kokkos::parallel_for("kernwerk::index::grid_block_starts", teams(space, int(blocks), Kokkos::AUTO),
                         grid_build::block_starts<starts_type, sums>{grid.start, cursor, rows, cells + 1});
  }
  // Point `index` at (x, y, z) into the next free row of its cell.
  KOKKOS_INLINE_FUNCTION void place(double x, double y, double z, int index) const {
    const int row = Kokkos::atomic_fetch_add(&cursor(cell_of(x, y, z)), 1);
    grid.sorted(row, 0) = x;
    grid.sorted(row, 1) = y;
    grid.sorted(row, 2) = z;
    grid.order(row) = index;
  }
};

}  // namespace kernwerk::impl
