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
// and starts from there. The boxes and the points' x, y, z are kept in float as well, for the
// radius searches' first tests (neighbourhood/radius_search.hpp's float_band).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernwerk/impl/geometry/metrics.hpp"
#include "kernwerk/impl/math.hpp"
#include "kernwerk/impl/index/sphere_grid.hpp"
#include "kernwerk/impl/index/sort_pairs.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/view_checks.hpp"
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
  // `into` grown to hold `from` (either may be volatile: Kokkos 3's reductions join so).
  template <class Into, class From>
  KOKKOS_INLINE_FUNCTION static void unite(Into& into, const From& from) {
    for (int a = 0; a < 3; ++a) {
      into.bound[a] = from.bound[a] < into.bound[a] ? from.bound[a] : into.bound[a];
      into.bound[a + 3] = from.bound[a + 3] > into.bound[a + 3] ? from.bound[a + 3] : into.bound[a + 3];
    }
  }
  KOKKOS_INLINE_FUNCTION void merge(const box3& other) { unite(*this, other); }
  // The box's extent along its longest axis.
  KOKKOS_INLINE_FUNCTION double longest_side() const {
    double extent = 0;
    for (int a = 0; a < 3; ++a) extent = bound[a + 3] - bound[a] > extent ? bound[a + 3] - bound[a] : extent;
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
    box3::unite(dest, src);
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
  // Jacobi rotations (on the device: the build reads nothing back until its end).
  KOKKOS_INLINE_FUNCTION static rotation3 principal(const double moment[6]) {
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
          const double t = (theta >= 0 ? 1.0 : -1.0) / (math::fabs(theta) + math::sqrt(theta * theta + 1));
          const double c = 1 / math::sqrt(t * t + 1), s = t * c;
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
      const double length = math::sqrt(v[0][e] * v[0][e] + v[1][e] * v[1][e] + v[2][e] * v[2][e]);
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
  KOKKOS_INLINE_FUNCTION static morton_frame around(const box3& box, int bits) {
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
  // Builds of at most this many points are small (launch_steps): on GPUs their passes before
  // and after the sort run in one launch of one block each, on host spaces the whole build in
  // the calling thread. Below the limit the launches (or parallel regions) saved outweigh the
  // work done by one block (or one core); above it they do not
  // (perf/results/issue46-one-block-recycle-cuda-h200.json: 2^10 on the H200;
  // perf/results/issue46-host-small-build-epyc-2core.json: 2^14 on 2 cores, past which the one
  // core gained nothing; a host's limit is 2^15 over its threads, since more threads share the
  // work). --small-build; -1: the space's own.
  static inline std::int64_t small_build = -1;
  template <class ExecutionSpace>
  static int leaf_size_for() {
    if (leaf_size > 0) return leaf_size;
    return host_memory<typename ExecutionSpace::memory_space> ? 32 : 8;
  }
  template <class ExecutionSpace>
  static std::int64_t small_build_for(const ExecutionSpace& space) {
    if (small_build >= 0) return small_build;
    if (host_execution<ExecutionSpace>)
      return (std::int64_t(1) << 15) / std::max<std::int64_t>(1, space.concurrency());
    return std::int64_t(1) << 10;
  }
};

namespace bvh_build {

// The points' sums of (p - p0) and of its products (xx, xy, xz, yy, yz, zz), p0 their first
// point (so that a tight cluster's spread is not lost to the rounding of its position), their
// box, and the first row whose coordinates the checks refuse: sum 0-2, moment 3-8, box 9-14
// (low x, y, z, high x, y, z). Each partial value holds p0 (`origin`), worked out once by
// clear().
struct point_moments {
  static constexpr std::int64_t valid = std::numeric_limits<std::int64_t>::max();
  double value[15];
  double origin[3];
  std::int64_t first_invalid;
  KOKKOS_INLINE_FUNCTION void clear(const double p0[3]) {
    for (int e = 0; e < 9; ++e) value[e] = 0;
    const box3 empty = box3::empty();
    for (int e = 0; e < 6; ++e) value[9 + e] = empty.bound[e];
    for (int a = 0; a < 3; ++a) origin[a] = p0[a];
    first_invalid = valid;
  }
  KOKKOS_INLINE_FUNCTION void add(const double p[3]) {
    const double d[3] = {p[0] - origin[0], p[1] - origin[1], p[2] - origin[2]};
    int e = 3;
    for (int a = 0; a < 3; ++a) {
      value[a] += d[a];
      for (int b = a; b < 3; ++b) value[e++] += d[a] * d[b];
      value[9 + a] = p[a] < value[9 + a] ? p[a] : value[9 + a];
      value[12 + a] = p[a] > value[12 + a] ? p[a] : value[12 + a];
    }
  }
  template <class Into, class From>
  KOKKOS_INLINE_FUNCTION static void merge(Into& into, const From& from) {
    for (int e = 0; e < 9; ++e) into.value[e] += from.value[e];
    for (int a = 9; a < 12; ++a) into.value[a] = from.value[a] < into.value[a] ? from.value[a] : into.value[a];
    for (int a = 12; a < 15; ++a) into.value[a] = from.value[a] > into.value[a] ? from.value[a] : into.value[a];
    into.first_invalid = from.first_invalid < into.first_invalid ? from.first_invalid : into.first_invalid;
  }
  KOKKOS_INLINE_FUNCTION box3 box() const {
    return {{value[9], value[10], value[11], value[12], value[13], value[14]}};
  }
};

// What the build works out on the device, in its own memory, and the host reads once at the end.
struct parameters {
  point_moments moments;  // of the points as given
  rotation3 rotation;     // into the principal frame (or none)
  box3 bounds;            // of the points in that frame
  morton_frame frame;     // of the codes: the cube around bounds
  grid_build::cell_statistics cells;  // of the sphere's grid
};

// The scratch of the build's two reductions (one after the other, in the same bytes).
template <class ExecutionSpace>
std::size_t reduce_bytes() {
  const std::size_t moments = launch_reduce_bytes<ExecutionSpace, point_moments>();
  const std::size_t box = launch_reduce_bytes<ExecutionSpace, box3>();
  return moments > box ? moments : box;
}
}  // namespace bvh_build

template <class MemorySpace>
struct point_bvh {
  template <class T>
  using array = Kokkos::View<T, MemorySpace, Kokkos::MemoryUnmanaged>;
  using boxes_view = Kokkos::View<double* [6], Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged>;
  // Float copies for the radius searches' first tests (radius_search.hpp's float_band): a box
  // in 32 bytes (low x, y, z, high x, y, z, two unused), read in two 16-byte loads; a point's
  // x, y, z (and one unused), on a GPU in one 16-byte row a thread reads at once, on a host
  // in columns that a core's leaf scan vectorises.
  using float_boxes_view = Kokkos::View<float* [8], Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged>;
  using float_points_view =
      Kokkos::View<float* [4], std::conditional_t<host_memory<MemorySpace>, Kokkos::LayoutLeft, Kokkos::LayoutRight>,
                   MemorySpace, Kokkos::MemoryUnmanaged>;
  // Four floats in one load (rows of 16 and 32 bytes in memory carved 256-byte aligned).
  struct alignas(16) float_quad {
    float v[4];
  };
  KOKKOS_INLINE_FUNCTION static float_quad load_quad(const float* p) {
    return *reinterpret_cast<const float_quad*>(p);
  }

  std::int64_t size = 0;        // references
  int leaf_size = 1;
  std::int64_t leaf_count = 0;  // leaves that hold references
  std::int64_t first_leaf = 1;  // node number of leaf 0; a power of two
  boxes_view boxes;             // nodes 1 .. 2 first_leaf - 1 (row 0 unused)
  float_boxes_view float_boxes;    // the boxes rounded to float, nearest
  float_points_view float_points;  // the points' x, y, z rounded to float, nearest
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
           carve::template bytes_for<float>(8 * 2 * leaf_nodes(references, leaf)) +
           carve::template bytes_for<float>(4 * references) +
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
    return carve::template bytes_for<bvh_build::parameters>(1) +  // what the device works out
           carve::template bytes_for<char>(bvh_build::reduce_bytes<ExecutionSpace>()) +
           sphere_points_bytes<MemorySpace>(references) +
           carve::template bytes_for<std::uint64_t>(references) +
           carve::template bytes_for<int>(references) +
           carve::template bytes_for<int>(leaf_nodes(references, 1)) +  // arrivals, at most
           sort_pairs_bytes<ExecutionSpace, int>(references, concurrency) +
           (with_grid ? sphere_grid<MemorySpace>::build_bytes(references) : 0);
  }

  KOKKOS_INLINE_FUNCTION bool is_leaf(std::int64_t node) const { return node >= first_leaf; }
  KOKKOS_INLINE_FUNCTION void write_box(std::int64_t node, const box3& box) const {
    for (int b = 0; b < 6; ++b) {
      boxes(node, b) = box.bound[b];
      float_boxes(node, b) = to_float(box.bound[b]);  // an empty box's bounds become infinite
    }
    float_boxes(node, 6) = float_boxes(node, 7) = 0;
  }
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
  // The first sorted row of a node's points: its leftmost leaf's (the node's descendants at
  // the leaves' level are node << down .. (node + 1) << down).
  KOKKOS_INLINE_FUNCTION std::int64_t node_begin(std::int64_t node) const {
    const int down = leading_zeros(static_cast<unsigned long long>(node)) -
                     leading_zeros(static_cast<unsigned long long>(first_leaf));
    return leaf_begin(node << down);
  }
  // Squared distance from (x, y, z) to the box of a node; empty boxes are infinitely far.
  KOKKOS_INLINE_FUNCTION double box_distance(double x, double y, double z, std::int64_t node) const {
    const double v[3] = {x, y, z};
    double d[3];
    for (int a = 0; a < 3; ++a) {
      const double below = boxes(node, a) - v[a], above = v[a] - boxes(node, a + 3);
      d[a] = below > 0 ? below : (above > 0 ? above : 0.0);
    }
    return squared_norm(d[0], d[1], d[2]);
  }
  // The same from a point rounded to float, in float arithmetic, on the float box.
  KOKKOS_INLINE_FUNCTION float float_box_distance(float x, float y, float z, std::int64_t node) const {
    const float_quad first = load_quad(&float_boxes(node, 0)), second = load_quad(&float_boxes(node, 4));
    const float v[3] = {x, y, z}, low[3] = {first.v[0], first.v[1], first.v[2]},
                high[3] = {first.v[3], second.v[0], second.v[1]};
    float sum = 0;
    for (int a = 0; a < 3; ++a) {
      const float below = low[a] - v[a], above = v[a] - high[a];
      const float d = below > 0 ? below : (above > 0 ? above : 0.0f);
      sum += d * d;
    }
    return sum;
  }
  KOKKOS_INLINE_FUNCTION float float_chord(float x, float y, float z, std::int64_t r) const {
    float dx, dy, dz;
    if constexpr (host_memory<MemorySpace>) {
      dx = x - float_points(r, 0), dy = y - float_points(r, 1), dz = z - float_points(r, 2);
    } else {
      const float_quad p = load_quad(&float_points(r, 0));
      dx = x - p.v[0], dy = y - p.v[1], dz = z - p.v[2];
    }
    return dx * dx + dy * dy + dz * dz;
  }
};

namespace bvh_build {

template <class MemorySpace>
using parameters_view = Kokkos::View<parameters, MemorySpace, Kokkos::MemoryUnmanaged>;

inline constexpr int code_bits = 21;

// The frame of a box of points: the bounds and the cube of the codes around them.
KOKKOS_INLINE_FUNCTION void set_frame(parameters& found, const box3& bounds) {
  found.bounds = bounds;
  found.frame = morton_frame::around(bounds, code_bits);
}

// Where the points come from: write(j, prepared) fills row j of the prepared columns,
// position(j, p) gives its x, y, z. On the sphere: unit vectors of (lat, lon) in units of
// `scale` radians, with the latitudes, longitudes and cosines the keys read.
template <class Points>
struct sphere_source {
  Points points;
  double scale;
  KOKKOS_INLINE_FUNCTION sphere_point point(std::int64_t j) const {
    return make_sphere_point(scale * static_cast<double>(points(j, 0)),
                             scale * static_cast<double>(points(j, 1)));
  }
  template <class Prepared>
  KOKKOS_INLINE_FUNCTION void write(std::int64_t j, const Prepared& prepared) const {
    write_sphere_row(prepared, j, point(j));
  }
  KOKKOS_INLINE_FUNCTION void position(std::int64_t j, double p[3]) const {
    const sphere_point q = point(j);
    p[0] = q.x;
    p[1] = q.y;
    p[2] = q.z;
  }
};
// Euclidean points of 2 or 3 coordinates as they are, z = 0 in 2-D.
template <class Points>
struct euclidean_source {
  Points points;
  KOKKOS_INLINE_FUNCTION void position(std::int64_t j, double p[3]) const {
    p[0] = static_cast<double>(points(j, 0));
    p[1] = static_cast<double>(points(j, 1));
    p[2] = points.extent(1) > 2 ? static_cast<double>(points(j, 2)) : 0.0;
  }
  template <class Prepared>
  KOKKOS_INLINE_FUNCTION void write(std::int64_t j, const Prepared& prepared) const {
    double p[3];
    position(j, p);
    prepared(j, column_x) = p[0];
    prepared(j, column_y) = p[1];
    prepared(j, column_z) = p[2];
    prepared(j, column_lat) = prepared(j, column_lon) = prepared(j, column_coslat) = 0.0;
  }
};

// Pass 1: the prepared rows written and checked, their moments and box reduced, and the
// counters of the later passes zeroed (`zeroed`: arrays of any length, j, j + m, ... each).
// Its end (final, once) turns the moments into the rotation, or into the frame where there is
// none, and clears the grid's statistics.
template <class Source, class Prepared, class Counters, class MemorySpace>
struct prepare_points {
  using value_type = point_moments;
  Source source;
  Prepared prepared;
  Counters zeroed[2];
  parameters_view<MemorySpace> found;
  std::int64_t m;
  bool rotate;
  bool check;  // the coordinates against `limits`
  coordinate_limits limits;

  KOKKOS_FUNCTION void operator()(const std::int64_t j, value_type& moments) const {
    for (const auto& counters : zeroed)
      for (std::int64_t e = j; e < std::int64_t(counters.extent(0)); e += m) counters(e) = 0;
    if (check && invalid_point(source.points, j, limits) && j < moments.first_invalid)
      moments.first_invalid = j;
    source.write(j, prepared);
    const double p[3] = {prepared(j, column_x), prepared(j, column_y), prepared(j, column_z)};
    moments.add(p);
  }
  KOKKOS_FUNCTION void init(value_type& moments) const {
    double p0[3] = {0, 0, 0};
    if (m > 0) source.position(0, p0);
    moments.clear(p0);
  }
  KOKKOS_FUNCTION void join(value_type& into, const value_type& from) const {
    value_type::merge(into, from);
  }
#if KOKKOS_VERSION < 40000
  KOKKOS_FUNCTION void join(volatile value_type& into, const volatile value_type& from) const {
    value_type::merge(into, from);
  }
#endif
  KOKKOS_FUNCTION void final(value_type& moments) const {
    parameters& p = found();
    p.cells = {0, 0};
    if (!rotate) {
      p.rotation = rotation3{};
      set_frame(p, moments.box());
      return;
    }
    const double* v = moments.value;
    const double mean[3] = {v[0] / double(m), v[1] / double(m), v[2] / double(m)};
    double covariance[6];
    int e = 0;
    for (int a = 0; a < 3; ++a)
      for (int b = a; b < 3; ++b, ++e) covariance[e] = v[3 + e] / double(m) - mean[a] * mean[b];
    p.rotation = rotation3::principal(covariance);
  }
};

// Pass 2 (where rotated): the rows turned into the frame, their box reduced; its end sets the
// frame of the codes.
template <class Prepared, class MemorySpace>
struct rotate_points {
  using value_type = box3;
  Prepared prepared;
  parameters_view<MemorySpace> found;
  KOKKOS_FUNCTION void operator()(const std::int64_t j, value_type& box) const {
    double x = prepared(j, column_x), y = prepared(j, column_y), z = prepared(j, column_z);
    found().rotation.apply(x, y, z);
    prepared(j, column_x) = x;
    prepared(j, column_y) = y;
    prepared(j, column_z) = z;
    box.add(x, y, z);
  }
  KOKKOS_FUNCTION void init(value_type& box) const { box = box3::empty(); }
  KOKKOS_FUNCTION void join(value_type& into, const value_type& from) const { into.merge(from); }
#if KOKKOS_VERSION < 40000
  KOKKOS_FUNCTION void join(volatile value_type& into, const volatile value_type& from) const {
    box3::unite(into, from);
  }
#endif
  KOKKOS_FUNCTION void final(value_type& box) const { set_frame(found(), box); }
};

// Pass 3: each row's Morton code, and, with the grid, its count in the grid's cell.
template <class Prepared, class Codes, class Rows, class MemorySpace>
struct code_points {
  Prepared prepared;
  Codes codes;
  Rows rows;
  parameters_view<MemorySpace> found;
  sphere_grid_build<MemorySpace> grid;
  bool with_grid;
  int max_per_cell;
  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    const double x = prepared(j, column_x), y = prepared(j, column_y), z = prepared(j, column_z);
    codes(j) = found().frame.code(x, y, z);
    rows(j) = static_cast<int>(j);
    if (with_grid && grid.count(x, y, z) == max_per_cell) found().cells.overfull = 1;
  }
};

// Pass 4, a thread a row, after the sort: the rows gathered in curve order, and placed in the
// grid where it pays.
template <class Prepared, class Bvh, class Rows, class MemorySpace>
struct gather_rows {
  Prepared prepared;
  Bvh bvh;
  Rows rows;  // the point of each sorted row
  parameters_view<MemorySpace> found;
  sphere_grid_build<MemorySpace> grid;
  bool with_grid;
  double min_occupancy;
  KOKKOS_FUNCTION void operator()(const std::int64_t r) const {
    const int j = rows(r);
    for (int c = 0; c < sphere_columns; ++c) bvh.points(r, c) = prepared(j, c);
    for (int c = 0; c < 3; ++c) bvh.float_points(r, c) = to_float(prepared(j, column_x + c));
    bvh.float_points(r, 3) = 0;
    bvh.order(r) = j;
    bvh.rank(j) = static_cast<int>(r);
    if (with_grid && grid_build::grid_pays(found().cells, bvh.size, min_occupancy))
      grid.place(prepared(j, column_x), prepared(j, column_y), prepared(j, column_z), j);
  }
};

// Pass 5, a thread a leaf: its box and the boxes above it. Of a node's two children the one
// that finishes second builds the node, the first leaves (`arrivals`, zeroed, counts them), so
// that the whole tree is one launch.
template <class Bvh, class Codes, class Arrivals>
struct fill_boxes {
  Bvh bvh;
  Codes codes;  // sorted
  Arrivals arrivals;
  KOKKOS_FUNCTION void operator()(const std::int64_t l) const {
    std::int64_t node = bvh.first_leaf + l;
    if (l < bvh.leaf_count) bvh.leaf_codes(l) = codes(l * bvh.leaf_size);
    box3 box = box3::empty();
    for (std::int64_t r = bvh.leaf_begin(node); r < bvh.leaf_end(node); ++r)
      box.add(bvh.points(r, column_x), bvh.points(r, column_y), bvh.points(r, column_z));
    bvh.write_box(node, box);
    for (; node > 1; node /= 2) {
      Kokkos::memory_fence();  // this node's box before its arrival
      if (Kokkos::atomic_fetch_add(&arrivals(node / 2), 1) == 0) return;
      Kokkos::memory_fence();  // the sibling's box after its arrival
      // (volatile: read from memory, not from a cache the sibling's writes passed by)
      const volatile double* sibling = &bvh.boxes(node ^ 1, 0);
      for (int a = 0; a < 3; ++a) {
        const double low = sibling[a], high = sibling[a + 3];
        box.bound[a] = low < box.bound[a] ? low : box.bound[a];
        box.bound[a + 3] = high > box.bound[a + 3] ? high : box.bound[a + 3];
      }
      bvh.write_box(node / 2, box);
    }
  }
};

}  // namespace bvh_build

// Builds the hierarchy over the points of `source` (bvh_build's sources: m rows) into memory
// carved from `keep` (point_bvh::bytes), borrowing `scratch` (point_bvh::build_bytes). rotate:
// into the points' principal frame; with_grid: the sphere's first stage. With `limits`, the
// points' coordinates are checked in the first pass, and *first_invalid is the first row they
// refuse (-1: none). Four passes over the points, the sort and the boxes, queued without a
// wait; the host reads what the device worked out (bvh_build::parameters) once, at the end
// (issue 46: a build's fixed cost was its waits and launches). Small builds (bvh_policy) run
// the passes before the sort in one launch and those after it in another on a GPU, and all of
// it in the calling thread on a host space.
template <class ExecutionSpace, class Source, class Keep, class Scratch>
point_bvh<typename ExecutionSpace::memory_space> build_point_bvh(
    const ExecutionSpace& space, const Source& source, std::int64_t m, int leaf_size, bool rotate,
    bool with_grid, Keep& keep, Scratch& scratch, const coordinate_limits* limits = nullptr,
    std::int64_t* first_invalid = nullptr) {
  using memory_space = typename ExecutionSpace::memory_space;
  using bvh_type = point_bvh<memory_space>;
  using found_view = bvh_build::parameters_view<memory_space>;
  bvh_type bvh;
  bvh.size = m;
  bvh.leaf_size = leaf_size;
  bvh.leaf_count = (m + leaf_size - 1) / leaf_size;
  bvh.first_leaf = bvh_type::leaf_nodes(m, leaf_size);
  bvh.boxes = typename bvh_type::boxes_view(keep.template take<double>(6 * 2 * bvh.first_leaf),
                                             2 * bvh.first_leaf);
  bvh.float_boxes = typename bvh_type::float_boxes_view(keep.template take<float>(8 * 2 * bvh.first_leaf),
                                                         2 * bvh.first_leaf);
  bvh.float_points = typename bvh_type::float_points_view(keep.template take<float>(4 * m), m);
  bvh.leaf_codes = typename bvh_type::template array<std::uint64_t*>(
      keep.template take<std::uint64_t>(bvh.leaf_count), bvh.leaf_count);
  bvh.points = sphere_points<memory_space>(keep.template take<double>(sphere_columns * m), m);
  bvh.order = typename bvh_type::template array<int*>(keep.template take<int>(m), m);
  bvh.rank = typename bvh_type::template array<int*>(keep.template take<int>(m), m);

  const found_view found(scratch.template take<bvh_build::parameters>(1));
  const sphere_points<memory_space> prepared(scratch.template take<double>(sphere_columns * m), m);
  const Kokkos::View<std::uint64_t*, memory_space, Kokkos::MemoryUnmanaged> codes(
      scratch.template take<std::uint64_t>(m), m);
  const typename bvh_type::template array<int*> rows(scratch.template take<int>(m), m);
  const typename bvh_type::template array<int*> arrivals(scratch.template take<int>(bvh.first_leaf),
                                                         bvh.first_leaf);
  sphere_grid_build<memory_space> grid;
  if (with_grid) grid = sphere_grid_build<memory_space>(m, keep, scratch);
  const double min_occupancy = grid_policy::min_occupancy;
  const int max_per_cell = grid_policy::max_per_cell;

  void* reduction_scratch = scratch.template take<char>(bvh_build::reduce_bytes<ExecutionSpace>());

  using counters = typename bvh_type::template array<int*>;
  const bool small = m <= bvh_policy::small_build_for(space);
  const auto prepare_step = step_reduce(
      "kernwerk::index::prepare", m,
      bvh_build::prepare_points<Source, decltype(prepared), counters, memory_space>{
          source, prepared, {arrivals, grid.grid.start}, found, m, rotate, limits != nullptr,
          limits ? *limits : coordinate_limits{}},
      &found.data()->moments);
  const auto codes_step = step_for(
      "kernwerk::index::codes", m,
      bvh_build::code_points<decltype(prepared), decltype(codes), decltype(rows), memory_space>{
          prepared, codes, rows, found, grid, with_grid, max_per_cell});
  if (rotate)
    launch_steps(space, small, reduction_scratch, prepare_step,
                 step_reduce("kernwerk::index::rotate", m,
                             bvh_build::rotate_points<decltype(prepared), memory_space>{prepared, found},
                             &found.data()->bounds),
                 codes_step);
  else
    launch_steps(space, small, reduction_scratch, prepare_step, codes_step);
  sort_pairs(space, codes.data(), rows.data(), m, 3 * bvh_build::code_bits, scratch, small);
  const auto gather_step = step_for(
      "kernwerk::index::gather", m,
      bvh_build::gather_rows<decltype(prepared), bvh_type, decltype(rows), memory_space>{
          prepared, bvh, rows, found, grid, with_grid, min_occupancy});
  const auto boxes_step = step_for(
      "kernwerk::index::boxes", bvh.first_leaf,
      bvh_build::fill_boxes<bvh_type, decltype(codes), decltype(arrivals)>{bvh, codes, arrivals});
  if (with_grid && small) {
    launch_steps(space, true, nullptr, grid.start_scan(&found.data()->cells), gather_step, boxes_step);
  } else {
    if (with_grid) grid.starts(space, &found.data()->cells);
    launch_steps(space, small, nullptr, gather_step, boxes_step);
  }
  bvh_build::parameters result;
  Kokkos::deep_copy(space, Kokkos::View<bvh_build::parameters, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&result),
                    found);
  space.fence();  // the one wait: the results, and the scratch free to be given back
  if (first_invalid) *first_invalid = result.moments.first_invalid == bvh_build::point_moments::valid
                                          ? -1
                                          : result.moments.first_invalid;
  bvh.rotation = result.rotation;
  bvh.bounds = result.bounds;
  bvh.frame = result.frame;
  if (with_grid) {
    bvh.grid = grid.grid;
    bvh.grid.used = grid_build::grid_pays(result.cells, m, min_occupancy);
  }
  return bvh;
}

// The hierarchy over `references` (lat, lon in units of `scale` radians) as unit vectors.
template <class ExecutionSpace, class References, class Keep, class Scratch>
point_bvh<typename ExecutionSpace::memory_space> build_sphere_bvh(
    const ExecutionSpace& space, const References& references, double scale, int leaf_size,
    Keep& keep, Scratch& scratch, bool with_grid = true, const coordinate_limits* limits = nullptr,
    std::int64_t* first_invalid = nullptr) {
  return build_point_bvh(space, bvh_build::sphere_source<References>{references, scale},
                         std::int64_t(references.extent(0)), leaf_size, true, with_grid, keep,
                         scratch, limits, first_invalid);
}

// The hierarchy over Euclidean `points` of 2 or 3 coordinates, in their own frame, without
// the sphere's grid.
template <class ExecutionSpace, class Points, class Keep, class Scratch>
point_bvh<typename ExecutionSpace::memory_space> build_euclidean_bvh(
    const ExecutionSpace& space, const Points& points, int leaf_size, Keep& keep, Scratch& scratch,
    const coordinate_limits* limits = nullptr, std::int64_t* first_invalid = nullptr) {
  return build_point_bvh(space, bvh_build::euclidean_source<Points>{points},
                         std::int64_t(points.extent(0)), leaf_size, false, false, keep, scratch,
                         limits, first_invalid);
}

}  // namespace kernwerk::impl
