#pragma once
// The spatial index of kernwerk's exact searches: a bounding volume hierarchy over points in
// three dimensions whose cost follows the data, not the cube. On the sphere the points are the
// unit vectors of (lat, lon) (build_sphere_bvh); for the Euclidean metric they are the
// coordinates themselves, 2-D ones with z = 0 (build_euclidean_bvh).
//
// Unit vectors are turned into the principal frame of the references (rotation3), sorted
// along a Morton curve (63-bit codes in the cube around them, so a cluster of any size gets
// the codes' full resolution), cut into leaves of `leaf_size` consecutive points, and a complete binary tree is laid over the leaves: node v has children
// 2v and 2v + 1, the root is node 1, leaf l is node first_leaf + l. Every node holds the
// float64 box of its points, computed from the points themselves, so the boxes are tight
// whatever the curve's order and a query's box distances are true lower bounds. Euclidean
// points keep their own frame: their boxes then hold the very values the distances are
// computed from, whatever the coordinates' magnitude.
// Empty nodes (the tree is padded to a power of two of leaves) hold empty boxes. The code of
// each leaf's first point is kept, so that a query finds the leaf where its own code falls
// and starts from there.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernwerk/impl/geometry/metrics.hpp"
#include "kernwerk/impl/index/sphere_grid.hpp"
#include "kernwerk/impl/index/sort_pairs.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::impl {

// The box of a set of unit vectors: low x, y, z, then high x, y, z.
struct box3 {
  double bound[6];
  KOKKOS_INLINE_FUNCTION static box3 empty() {
    constexpr double huge = std::numeric_limits<double>::max();
    return {{huge, huge, huge, -huge, -huge, -huge}};
  }
  KOKKOS_INLINE_FUNCTION void add(double x, double y, double z) {
    bound[0] = x < bound[0] ? x : bound[0];
    bound[1] = y < bound[1] ? y : bound[1];
    bound[2] = z < bound[2] ? z : bound[2];
    bound[3] = x > bound[3] ? x : bound[3];
    bound[4] = y > bound[4] ? y : bound[4];
    bound[5] = z > bound[5] ? z : bound[5];
  }
  KOKKOS_INLINE_FUNCTION void merge(const box3& other) {
    for (int a = 0; a < 3; ++a) {
      bound[a] = other.bound[a] < bound[a] ? other.bound[a] : bound[a];
      bound[a + 3] = other.bound[a + 3] > bound[a + 3] ? other.bound[a + 3] : bound[a + 3];
    }
  }
  // The box's extent along its longest axis.
  double longest_side() const {
    double extent = 0;
    for (int a = 0; a < 3; ++a) extent = std::max(extent, bound[a + 3] - bound[a]);
    return extent;
  }
};

// Kokkos reducer: the box of all points.
template <class Space>
struct box_union {
  using reducer = box_union;
  using value_type = box3;
  using result_view_type = Kokkos::View<value_type, Space>;

  KOKKOS_INLINE_FUNCTION explicit box_union(value_type& target) : target_(&target) {}
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { dest.merge(src); }
#if KOKKOS_VERSION < 40000
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest, const volatile value_type& src) const {
    for (int a = 0; a < 3; ++a) {
      dest.bound[a] = src.bound[a] < dest.bound[a] ? src.bound[a] : dest.bound[a];
      dest.bound[a + 3] = src.bound[a + 3] > dest.bound[a + 3] ? src.bound[a + 3] : dest.bound[a + 3];
    }
  }
#endif
  KOKKOS_INLINE_FUNCTION void init(value_type& value) const { value = box3::empty(); }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *target_.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return target_; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }

 private:
  result_view_type target_;
};

// The orthonormal frame the index holds its unit vectors in: the principal axes of the
// references' covariance. A cap's normal, a band's or a great circle's normal and an elongated
// set's long axis become coordinate axes, so that the boxes lie flat along them instead of
// tilted across, and a search scans fewer leaves (perf/results/layouts-host-epyc-2core.json,
// the cap layouts). Chords are the same in any orthonormal frame (to rounding far below the
// chord margin), so the answers are too.
struct rotation3 {
  double row[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  KOKKOS_INLINE_FUNCTION void apply(double& x, double& y, double& z) const {
    const double rx = row[0][0] * x + row[0][1] * y + row[0][2] * z;
    const double ry = row[1][0] * x + row[1][1] * y + row[1][2] * z;
    const double rz = row[2][0] * x + row[2][1] * y + row[2][2] * z;
    x = rx;
    y = ry;
    z = rz;
  }
  // The eigenvectors of the symmetric matrix `moment` (xx, xy, xz, yy, yz, zz) as rows, by
  // Jacobi rotations.
  static rotation3 principal(const double moment[6]) {
    double a[3][3] = {{moment[0], moment[1], moment[2]},
                      {moment[1], moment[3], moment[4]},
                      {moment[2], moment[4], moment[5]}};
    double v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};  // columns: the eigenvectors
    for (int sweep = 0; sweep < 32; ++sweep) {
      const double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
      if (!(off > 1e-30 * (a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2]))) break;
      for (int p = 0; p < 2; ++p) {
        for (int q = p + 1; q < 3; ++q) {
          if (a[p][q] == 0) continue;
          const double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
          const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
          const double c = 1 / std::sqrt(t * t + 1), s = t * c;
          for (int r = 0; r < 3; ++r) {  // a <- a J
            const double arp = a[r][p], arq = a[r][q];
            a[r][p] = c * arp - s * arq;
            a[r][q] = s * arp + c * arq;
          }
          for (int r = 0; r < 3; ++r) {  // a <- J^T a
            const double apr = a[p][r], aqr = a[q][r];
            a[p][r] = c * apr - s * aqr;
            a[q][r] = s * apr + c * aqr;
          }
          for (int r = 0; r < 3; ++r) {
            const double vrp = v[r][p], vrq = v[r][q];
            v[r][p] = c * vrp - s * vrq;
            v[r][q] = s * vrp + c * vrq;
          }
        }
      }
    }
    rotation3 frame;
    for (int e = 0; e < 3; ++e) {
      const double length = std::sqrt(v[0][e] * v[0][e] + v[1][e] * v[1][e] + v[2][e] * v[2][e]);
      for (int b = 0; b < 3; ++b) frame.row[e][b] = v[b][e] / length;
    }
    return frame;
  }
};

// Morton codes in a cube: `bits` bits per axis, interleaved x, y, z from the top.
struct morton_frame {
  double origin[3];
  double scale;  // cells per unit of length
  int bits;

  KOKKOS_INLINE_FUNCTION static std::uint64_t spread(std::uint64_t v) {  // 21 bits -> 63
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
    return v;
  }
  KOKKOS_INLINE_FUNCTION std::uint64_t cell(double v, int a) const {
    // (NaN where the points' extent overflows a double, as from -1e300 to 1e300: cell 0)
    const double c = (v - origin[a]) * scale;
    const double top = double((std::uint64_t(1) << bits) - 1);
    return c > 0 ? static_cast<std::uint64_t>(c < top ? c : top) : 0;
  }
  KOKKOS_INLINE_FUNCTION std::uint64_t code(double x, double y, double z) const {
    return spread(cell(x, 0)) << 2 | spread(cell(y, 1)) << 1 | spread(cell(z, 2));
  }
  // The cube of side 2^bits cells around a box.
  static morton_frame around(const box3& box, int bits) {
    const double extent = box.longest_side();
    morton_frame frame{{box.bound[0], box.bound[1], box.bound[2]}, 0.0, bits};
    // Rounding of the scale may put the top point one cell high; cell() clamps it.
    frame.scale = extent > 0 ? double(std::uint64_t(1) << bits) / extent : 0.0;
    return frame;
  }
};

// References per leaf: scanning a leaf is cheap and regular, visiting a node is a branchy box
// test, so larger leaves pay where a core runs one query at a time and smaller ones on GPUs
// (kernwerk_bench_nearest --leaf-size; commit 44f73c5). 0 takes the default for the execution
// space.
struct bvh_policy {
  static inline int leaf_size = 0;
  template <class ExecutionSpace>
  static int leaf_size_for() {
    if (leaf_size > 0) return leaf_size;
    constexpr bool host =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible;
    return host ? 32 : 8;
  }
};

template <class MemorySpace>
struct point_bvh {
  template <class T>
  using array = Kokkos::View<T, MemorySpace, Kokkos::MemoryUnmanaged>;
  using boxes_view = Kokkos::View<double* [6], Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged>;

  std::int64_t size = 0;        // references
  int leaf_size = 1;
  std::int64_t leaf_count = 0;  // leaves that hold references
  std::int64_t first_leaf = 1;  // node number of leaf 0; a power of two
  boxes_view boxes;             // nodes 1 .. 2 first_leaf - 1 (row 0 unused)
  array<std::uint64_t*> leaf_codes;  // Morton code of each leaf's first point, ascending
  morton_frame frame;           // of the codes
  sphere_points<MemorySpace> points;  // the references in curve order
  array<int*> order;            // reference index of each sorted row
  array<int*> rank;             // sorted row of each reference index
  box3 bounds;                  // of all references (on the host)
  rotation3 rotation;           // into the frame of points, boxes and codes
  sphere_grid<MemorySpace> grid;  // the first stage of a search, where it pays

  static std::int64_t leaf_nodes(std::int64_t references, int leaf) {
    std::int64_t leaves = (references + leaf - 1) / leaf, power = 1;
    while (power < leaves) power *= 2;
    return power;
  }
  // Memory the index keeps (with_grid: the first stage of nearest-neighbour searches on the
  // sphere, index/sphere_grid.hpp).
  static std::size_t bytes(std::int64_t references, int leaf, bool with_grid = true) {
    using carve = workspace<MemorySpace>;
    return carve::template bytes_for<double>(6 * 2 * leaf_nodes(references, leaf)) +
           carve::template bytes_for<std::uint64_t>((references + leaf - 1) / leaf) +
           sphere_points_bytes<MemorySpace>(references) +
           2 * carve::template bytes_for<int>(references) +
           (with_grid ? sphere_grid<MemorySpace>::bytes(references) : 0);
  }
  // Memory of an index and its construction, roughly, for planning (the sort's scratch varies
  // by backend: about 12 to 32 bytes a reference).
  static std::size_t footprint(std::int64_t references) {
    return bytes(references, 4) + std::size_t(references) * 96 +
           sphere_grid<MemorySpace>::build_bytes(references);
  }
  // Memory the construction borrows and gives back.
  template <class ExecutionSpace>
  static std::size_t build_bytes(std::int64_t references, std::int64_t concurrency,
                                 bool with_grid = true) {
    using carve = workspace<MemorySpace>;
    return sphere_points_bytes<MemorySpace>(references) +
           carve::template bytes_for<std::uint64_t>(references) +
           carve::template bytes_for<int>(references) +
           sort_pairs_bytes<ExecutionSpace, int>(references, concurrency) +
           (with_grid ? sphere_grid<MemorySpace>::build_bytes(references) : 0);
  }

  KOKKOS_INLINE_FUNCTION bool is_leaf(std::int64_t node) const { return node >= first_leaf; }
  // The leaf whose codes span `code` (the first leaf for codes before all of them).
  KOKKOS_INLINE_FUNCTION std::int64_t leaf_of(std::uint64_t code) const {
    std::int64_t low = 0, high = leaf_count;  // the leaf is in [low, high)
    while (high - low > 1) {
      const std::int64_t middle = low + (high - low) / 2;
      if (leaf_codes(middle) <= code) low = middle;
      else high = middle;
    }
    return first_leaf + low;
  }
  // Sorted rows of a leaf node: [first, last).
  KOKKOS_INLINE_FUNCTION std::int64_t leaf_begin(std::int64_t node) const {
    const std::int64_t first = (node - first_leaf) * leaf_size;
    return first < size ? first : size;
  }
  KOKKOS_INLINE_FUNCTION std::int64_t leaf_end(std::int64_t node) const {
    const std::int64_t last = (node - first_leaf + 1) * leaf_size;
    return last < size ? last : size;
  }
  // Squared distance from (x, y, z) to the box of a node; empty boxes are infinitely far.
  KOKKOS_INLINE_FUNCTION double box_distance(double x, double y, double z, std::int64_t node) const {
    const double v[3] = {x, y, z};
    double sum = 0;
    for (int a = 0; a < 3; ++a) {
      const double below = boxes(node, a) - v[a], above = v[a] - boxes(node, a + 3);
      const double d = below > 0 ? below : (above > 0 ? above : 0.0);
      sum += d * d;
    }
    return sum;
  }
};

namespace bvh_build {

// The references' sum (x, y, z), and their second moments about `centre` (xx, xy, xz, yy, yz, zz).
template <class Prepared>
struct sum_of {
  using value_type = double[];
  using size_type = std::int64_t;
  size_type value_count = 3;
  Prepared prepared;
  KOKKOS_FUNCTION void operator()(const std::int64_t j, value_type sum) const {
    sum[0] += prepared(j, column_x);
    sum[1] += prepared(j, column_y);
    sum[2] += prepared(j, column_z);
  }
};
template <class Prepared>
struct second_moments {
  using value_type = double[];
  using size_type = std::int64_t;
  size_type value_count = 6;
  Prepared prepared;
  double centre[3];
  KOKKOS_FUNCTION void operator()(const std::int64_t j, value_type sum) const {
    const double x = prepared(j, column_x) - centre[0], y = prepared(j, column_y) - centre[1],
                 z = prepared(j, column_z) - centre[2];
    sum[0] += x * x;
    sum[1] += x * y;
    sum[2] += x * z;
    sum[3] += y * y;
    sum[4] += y * z;
    sum[5] += z * z;
  }
};

template <class Prepared>
struct rotate_points {
  Prepared prepared;
  rotation3 rotation;
  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    rotation.apply(prepared(j, column_x), prepared(j, column_y), prepared(j, column_z));
  }
};

template <class Prepared>
struct bounds_of {
  Prepared prepared;
  KOKKOS_FUNCTION void operator()(const std::int64_t j, box3& box) const {
    box.add(prepared(j, column_x), prepared(j, column_y), prepared(j, column_z));
  }
};

template <class Prepared, class Codes, class Rows>
struct code_points {
  Prepared prepared;
  morton_frame frame;
  Codes codes;
  Rows rows;
  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    codes(j) = frame.code(prepared(j, column_x), prepared(j, column_y), prepared(j, column_z));
    rows(j) = static_cast<int>(j);
  }
};

template <class Prepared, class Bvh, class Rows>
struct gather_points {
  Prepared prepared;
  Bvh bvh;
  Rows rows;
  KOKKOS_FUNCTION void operator()(const std::int64_t r) const {
    const int j = rows(r);
    for (int c = 0; c < sphere_columns; ++c) bvh.points(r, c) = prepared(j, c);
    bvh.order(r) = j;
    bvh.rank(j) = static_cast<int>(r);
  }
};

template <class Bvh, class Codes>
struct leaf_boxes {
  Bvh bvh;
  Codes codes;  // sorted
  KOKKOS_FUNCTION void operator()(const std::int64_t l) const {
    const std::int64_t node = bvh.first_leaf + l;
    if (l < bvh.leaf_count) bvh.leaf_codes(l) = codes(l * bvh.leaf_size);
    box3 box = box3::empty();
    for (std::int64_t r = bvh.leaf_begin(node); r < bvh.leaf_end(node); ++r)
      box.add(bvh.points(r, column_x), bvh.points(r, column_y), bvh.points(r, column_z));
    for (int b = 0; b < 6; ++b) bvh.boxes(node, b) = box.bound[b];
  }
};

template <class Bvh>
struct parent_boxes {
  Bvh bvh;
  KOKKOS_FUNCTION void operator()(const std::int64_t node) const {
    for (int a = 0; a < 3; ++a) {
      const double l0 = bvh.boxes(2 * node, a), l1 = bvh.boxes(2 * node + 1, a);
      const double h0 = bvh.boxes(2 * node, a + 3), h1 = bvh.boxes(2 * node + 1, a + 3);
      bvh.boxes(node, a) = l0 < l1 ? l0 : l1;
      bvh.boxes(node, a + 3) = h0 > h1 ? h0 : h1;
    }
  }
};

}  // namespace bvh_build

// Builds the hierarchy over `prepared` (rows of x, y, z and whatever the metric's keys read,
// in scratch memory, which the build reorders) into memory carved from `keep`
// (point_bvh::bytes), borrowing `scratch` (point_bvh::build_bytes). rotate: into the
// references' principal frame; with_grid: the sphere's first stage.
template <class ExecutionSpace, class Prepared, class Keep, class Scratch>
point_bvh<typename ExecutionSpace::memory_space> build_point_bvh(
    const ExecutionSpace& space, const Prepared& prepared, int leaf_size, bool rotate,
    bool with_grid, Keep& keep, Scratch& scratch) {
  using memory_space = typename ExecutionSpace::memory_space;
  using bvh_type = point_bvh<memory_space>;
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const auto m = static_cast<std::int64_t>(prepared.extent(0));
  bvh_type bvh;
  bvh.size = m;
  bvh.leaf_size = leaf_size;
  bvh.leaf_count = (m + leaf_size - 1) / leaf_size;
  bvh.first_leaf = bvh_type::leaf_nodes(m, leaf_size);
  bvh.boxes = typename bvh_type::boxes_view(keep.template take<double>(6 * 2 * bvh.first_leaf),
                                             2 * bvh.first_leaf);
  bvh.leaf_codes = typename bvh_type::template array<std::uint64_t*>(
      keep.template take<std::uint64_t>(bvh.leaf_count), bvh.leaf_count);
  bvh.points = sphere_points<memory_space>(keep.template take<double>(sphere_columns * m), m);
  bvh.order = typename bvh_type::template array<int*>(keep.template take<int>(m), m);
  bvh.rank = typename bvh_type::template array<int*>(keep.template take<int>(m), m);

  using prepared_type = std::remove_const_t<Prepared>;
  if (rotate) {
    double mean[3] = {0, 0, 0}, moments[6] = {0, 0, 0, 0, 0, 0};
    Kokkos::parallel_reduce("kernwerk::index::mean", policy(space, 0, m),
                            bvh_build::sum_of<prepared_type>{3, prepared}, mean);
    for (double& c : mean) c /= double(m);
    Kokkos::parallel_reduce("kernwerk::index::moments", policy(space, 0, m),
                            bvh_build::second_moments<prepared_type>{6, prepared, {mean[0], mean[1], mean[2]}},
                            moments);
    bvh.rotation = rotation3::principal(moments);
    Kokkos::parallel_for("kernwerk::index::rotate", policy(space, 0, m),
                         bvh_build::rotate_points<prepared_type>{prepared, bvh.rotation});
  }
  Kokkos::parallel_reduce("kernwerk::index::bounds", policy(space, 0, m),
                          bvh_build::bounds_of<prepared_type>{prepared},
                          box_union<Kokkos::HostSpace>(bvh.bounds));
  bvh.frame = morton_frame::around(bvh.bounds, 21);
  const Kokkos::View<std::uint64_t*, memory_space, Kokkos::MemoryUnmanaged> codes(
      scratch.template take<std::uint64_t>(m), m);
  const typename bvh_type::template array<int*> rows(scratch.template take<int>(m), m);
  Kokkos::parallel_for("kernwerk::index::codes", policy(space, 0, m),
                       bvh_build::code_points<prepared_type, decltype(codes), decltype(rows)>{
                           prepared, bvh.frame, codes, rows});
  sort_pairs(space, codes.data(), rows.data(), m, 63, scratch);
  Kokkos::parallel_for("kernwerk::index::gather", policy(space, 0, m),
                       bvh_build::gather_points<prepared_type, bvh_type, decltype(rows)>{
                           prepared, bvh, rows});
  Kokkos::parallel_for("kernwerk::index::leaves", policy(space, 0, bvh.first_leaf),
                       bvh_build::leaf_boxes<bvh_type, decltype(codes)>{bvh, codes});
  for (std::int64_t level = bvh.first_leaf / 2; level >= 1; level /= 2)
    Kokkos::parallel_for("kernwerk::index::nodes", policy(space, level, 2 * level),
                         bvh_build::parent_boxes<bvh_type>{bvh});
  if (with_grid) bvh.grid = build_sphere_grid(space, bvh.points, bvh.order, keep, scratch);
  space.fence();  // before the scratch is given back
  return bvh;
}

// The hierarchy over `references` (lat, lon in units of `scale` radians) as unit vectors.
template <class ExecutionSpace, class References, class Keep, class Scratch>
point_bvh<typename ExecutionSpace::memory_space> build_sphere_bvh(
    const ExecutionSpace& space, const References& references, double scale, int leaf_size,
    Keep& keep, Scratch& scratch, bool with_grid = true) {
  const auto prepared = prepare_sphere_references(space, references, scale, scratch);
  return build_point_bvh(space, prepared, leaf_size, true, with_grid, keep, scratch);
}

namespace bvh_build {
template <class Points, class Prepared>
struct prepare_euclidean_point {
  Points points;
  Prepared prepared;
  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    prepared(j, column_x) = static_cast<double>(points(j, 0));
    prepared(j, column_y) = static_cast<double>(points(j, 1));
    prepared(j, column_z) = points.extent(1) > 2 ? static_cast<double>(points(j, 2)) : 0.0;
    prepared(j, column_lat) = prepared(j, column_lon) = prepared(j, column_coslat) = 0.0;
  }
};
}  // namespace bvh_build

// The hierarchy over Euclidean `points` of 2 or 3 coordinates, in their own frame, without
// the sphere's grid.
template <class ExecutionSpace, class Points, class Keep, class Scratch>
point_bvh<typename ExecutionSpace::memory_space> build_euclidean_bvh(
    const ExecutionSpace& space, const Points& points, int leaf_size, Keep& keep, Scratch& scratch) {
  using memory_space = typename ExecutionSpace::memory_space;
  const auto m = static_cast<std::int64_t>(points.extent(0));
  const sphere_points<memory_space> prepared(scratch.template take<double>(sphere_columns * m), m);
  Kokkos::parallel_for(
      "kernwerk::index::prepare_euclidean",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(space, 0, m),
      bvh_build::prepare_euclidean_point<Points, sphere_points<memory_space>>{points, prepared});
  return build_point_bvh(space, prepared, leaf_size, false, false, keep, scratch);
}

}  // namespace kernwerk::impl
