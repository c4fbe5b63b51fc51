#pragma once
// The distances every search shares: points on the sphere as unit vectors beside their
// latitudes and longitudes (the references prepared once into columns), the haversine and its
// central angle, and the metrics the searches are written against, each with a cheap filter
// (chord) and the key the results are ordered by:
// - haversine: the great-circle distance grows with the chord between unit vectors, so a
//   search filters candidates by squared chord (three subtractions, three multiply-adds) and
//   evaluates the float64 haversine only for those the chord cannot rule out;
// - Euclidean, 2-D or 3-D: the squared distance is both filter and key, exactly.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/math.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::impl {

// Squared chords carry absolute errors below 1e-14 (unit-vector components are accurate to
// a few ulps and chords are at most 2); a chord must exceed another by this much before it
// proves the point farther.
inline constexpr double chord_tie_margin = 1e-13;

// Per-reference quantities of the haversine scan, one column each (LayoutLeft: contiguous).
enum sphere_column { column_x, column_y, column_z, column_lat, column_lon, column_coslat,
                     sphere_columns };
// Unmanaged: the memory comes from a workspace.
template <class MemorySpace>
using sphere_points = Kokkos::View<double* [sphere_columns], Kokkos::LayoutLeft, MemorySpace,
                                   Kokkos::MemoryUnmanaged>;

struct sphere_point {
  double x, y, z, lat, lon, coslat;
};

KOKKOS_INLINE_FUNCTION sphere_point make_sphere_point(double lat, double lon) {
  double sinlat, coslat, sinlon, coslon;
  sincos(lat, sinlat, coslat);
  sincos(lon, sinlon, coslon);
  return {coslat * coslon, coslat * sinlon, sinlat, lat, lon, coslat};
}

// The haversine of the central angle: sin^2(dlat/2) + cos(lat1) cos(lat2) sin^2(dlon/2).
KOKKOS_INLINE_FUNCTION double haversine(double lat1, double lon1, double coslat1, double lat2,
                                        double lon2, double coslat2) {
  const double s_lat = math::sin(0.5 * (lat2 - lat1));
  const double s_lon = math::sin(0.5 * (lon2 - lon1));
  return s_lat * s_lat + coslat1 * coslat2 * s_lon * s_lon;
}

// Central angle in radians from its haversine; rounding can push h a hair past 1.
KOKKOS_INLINE_FUNCTION double central_angle(double h) {
  return 2.0 * math::asin(math::sqrt(h < 1.0 ? h : 1.0));
}

// Row j of prepared columns (sphere_points) holding point p.
template <class Prepared>
KOKKOS_INLINE_FUNCTION void write_sphere_row(const Prepared& prepared, std::int64_t j,
                                             const sphere_point& p) {
  prepared(j, column_x) = p.x;
  prepared(j, column_y) = p.y;
  prepared(j, column_z) = p.z;
  prepared(j, column_lat) = p.lat;
  prepared(j, column_lon) = p.lon;
  prepared(j, column_coslat) = p.coslat;
}

template <class References, class MemorySpace>
struct prepare_sphere_point {
  References references;
  sphere_points<MemorySpace> prepared;
  double scale;  // to radians

  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    write_sphere_row(prepared, j,
                     make_sphere_point(scale * static_cast<double>(references(j, 0)),
                                       scale * static_cast<double>(references(j, 1))));
  }
};

// Unit vectors, latitudes, longitudes (radians) and cosines of the latitudes of the references,
// written into workspace memory.
template <class ExecutionSpace, class References, class Workspace>
sphere_points<typename ExecutionSpace::memory_space> prepare_sphere_references(
    const ExecutionSpace& space, const References& references, double scale,
    Workspace& scratch) {
  using memory_space = typename ExecutionSpace::memory_space;
  const auto count = static_cast<std::int64_t>(references.extent(0));
  sphere_points<memory_space> prepared(scratch.template take<double>(sphere_columns * count),
                                       count);
  Kokkos::parallel_for(
      "kernwerk::nearest::prepare",
      index_policy<ExecutionSpace>(space, 0, count),
      prepare_sphere_point<References, memory_space>{references, prepared, scale});
  return prepared;
}

template <class MemorySpace>
std::size_t sphere_points_bytes(std::int64_t count) {
  return workspace<MemorySpace>::template bytes_for<double>(sphere_columns * count);
}

// Haversine on prepared references. chord: the cheap filter; key: what the result is ordered by.
template <class Observations, class Prepared>
struct sphere_metric {
  Observations observations;
  Prepared references;
  double scale;   // to radians
  double radius;  // applied to output distances
  using point = sphere_point;
  static constexpr double margin = chord_tie_margin;

  KOKKOS_INLINE_FUNCTION point observation(std::int64_t i) const {
    return make_sphere_point(scale * static_cast<double>(observations(i, 0)),
                             scale * static_cast<double>(observations(i, 1)));
  }
  KOKKOS_INLINE_FUNCTION double chord(const point& o, std::int64_t j) const {
    const double dx = o.x - references(j, column_x);
    const double dy = o.y - references(j, column_y);
    const double dz = o.z - references(j, column_z);
    return squared_norm(dx, dy, dz);
  }
  KOKKOS_INLINE_FUNCTION double key(const point& o, std::int64_t j) const {
    return haversine(o.lat, o.lon, o.coslat, references(j, column_lat), references(j, column_lon),
                     references(j, column_coslat));
  }
  // Whether references i and j have equal coordinates, and so equal keys from any observation
  // (a duplicated point's ties are then decided by index alone, without the keys' trigonometry).
  KOKKOS_INLINE_FUNCTION bool same_point(std::int64_t i, std::int64_t j) const {
    return references(i, column_lat) == references(j, column_lat) &&
           references(i, column_lon) == references(j, column_lon);
  }
  KOKKOS_INLINE_FUNCTION double distance(double key) const { return radius * central_angle(key); }
};

// Euclidean in Dimension coordinates: the squared distance is both filter and key, exactly.
template <int Dimension, class Observations, class References>
struct euclidean_metric {
  Observations observations;
  References references;
  struct point {
    double x[Dimension];
  };
  static constexpr double margin = 0.0;
  static constexpr bool chord_is_key = true;

  KOKKOS_INLINE_FUNCTION point observation(std::int64_t i) const {
    point o;
    for (int d = 0; d < Dimension; ++d) o.x[d] = static_cast<double>(observations(i, d));
    return o;
  }
  KOKKOS_INLINE_FUNCTION double chord(const point& o, std::int64_t j) const {
    double delta[3] = {0.0, 0.0, 0.0};  // (2-D: the index's z = 0 adds nothing)
    for (int d = 0; d < Dimension; ++d) delta[d] = o.x[d] - static_cast<double>(references(j, d));
    return squared_norm(delta[0], delta[1], delta[2]);
  }
  KOKKOS_INLINE_FUNCTION double key(const point& o, std::int64_t j) const { return chord(o, j); }
  // (keys cost no more than a test of the points)
  KOKKOS_INLINE_FUNCTION bool same_point(std::int64_t, std::int64_t) const { return false; }
  KOKKOS_INLINE_FUNCTION double distance(double key) const { return math::sqrt(key); }
};

}  // namespace kernwerk::impl
