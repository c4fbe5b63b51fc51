#pragma once
// The portable implementation of kernwerk::nearest: one thread per observation, a float64 scan
// over all reference points.
//
// Haversine: the great-circle distance grows with the chord between unit vectors, so the scan
// compares squared chords (three subtractions, three multiply-adds) and evaluates the float64
// haversine only where two chords are too close for their rounding errors to order them. The
// winner is therefore the argmin of the float64 haversine itself, ties to the smallest index.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "kernwerk/impl/math.hpp"

namespace kernwerk::impl {

// Squared chords carry absolute errors below 1e-14 (unit-vector components are accurate to
// a few ulps and chords are at most 2); candidates closer than this are decided by haversine.
inline constexpr double chord_tie_margin = 1e-13;

// Per-reference quantities of the haversine scan, one column each (LayoutLeft: contiguous).
enum sphere_column { column_x, column_y, column_z, column_lat, column_lon, column_coslat,
                     sphere_columns };
template <class MemorySpace>
using sphere_points = Kokkos::View<double* [sphere_columns], Kokkos::LayoutLeft, MemorySpace>;

struct sphere_point {
  double x, y, z, lat, lon, coslat;
};

KOKKOS_INLINE_FUNCTION sphere_point make_sphere_point(double lat, double lon) {
  const double coslat = math::cos(lat);
  return {coslat * math::cos(lon), coslat * math::sin(lon), math::sin(lat), lat, lon,
          coslat};
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

template <class References, class MemorySpace>
struct prepare_sphere_point {
  References references;
  sphere_points<MemorySpace> prepared;
  double scale;  // to radians

  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    const auto p = make_sphere_point(scale * static_cast<double>(references(j, 0)),
                                     scale * static_cast<double>(references(j, 1)));
    prepared(j, column_x) = p.x;
    prepared(j, column_y) = p.y;
    prepared(j, column_z) = p.z;
    prepared(j, column_lat) = p.lat;
    prepared(j, column_lon) = p.lon;
    prepared(j, column_coslat) = p.coslat;
  }
};

template <class Observations, class Prepared, class Indices, class Distances>
struct nearest_on_sphere {
  Observations observations;
  Prepared references;
  Indices indices;
  Distances distances;
  double scale;   // to radians
  double radius;  // applied to the output distance

  KOKKOS_FUNCTION double haversine_to(const sphere_point& o, std::int64_t j) const {
    return haversine(o.lat, o.lon, o.coslat, references(j, column_lat),
                     references(j, column_lon), references(j, column_coslat));
  }

  KOKKOS_FUNCTION double chord_to(const sphere_point& o, std::int64_t j) const {
    const double dx = o.x - references(j, column_x);
    const double dy = o.y - references(j, column_y);
    const double dz = o.z - references(j, column_z);
    return dx * dx + dy * dy + dz * dz;
  }

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    const auto o = make_sphere_point(scale * static_cast<double>(observations(i, 0)),
                                     scale * static_cast<double>(observations(i, 1)));
    const std::int64_t count = references.extent(0);
    std::int64_t best = 0;
    double best_chord = chord_to(o, 0);
    double best_haversine = -1.0;  // evaluated lazily, only for near ties
    for (std::int64_t j = 1; j < count; ++j) {
      const double chord = chord_to(o, j);
      if (chord < best_chord - chord_tie_margin) {
        best = j;
        best_chord = chord;
        best_haversine = -1.0;
      } else if (chord <= best_chord + chord_tie_margin) {
        if (best_haversine < 0.0) best_haversine = haversine_to(o, best);
        const double h = haversine_to(o, j);
        if (h < best_haversine) {  // equal: the earlier, smaller index stays
          best = j;
          best_chord = chord;
          best_haversine = h;
        }
      }
    }
    if (best_haversine < 0.0) best_haversine = haversine_to(o, best);
    indices(i) = static_cast<typename Indices::non_const_value_type>(best);
    distances(i) =
        static_cast<typename Distances::non_const_value_type>(radius * central_angle(best_haversine));
  }
};

template <int Dimension, class Observations, class References, class Indices, class Distances>
struct nearest_euclidean {
  Observations observations;
  References references;
  Indices indices;
  Distances distances;

  KOKKOS_FUNCTION double squared_distance(const double (&o)[Dimension], std::int64_t j) const {
    double squared = 0.0;
    for (int d = 0; d < Dimension; ++d) {
      const double delta = o[d] - static_cast<double>(references(j, d));
      squared += delta * delta;
    }
    return squared;
  }

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    double o[Dimension];
    for (int d = 0; d < Dimension; ++d) o[d] = static_cast<double>(observations(i, d));
    const std::int64_t count = references.extent(0);
    std::int64_t best = 0;
    double best_squared = squared_distance(o, 0);
    for (std::int64_t j = 1; j < count; ++j) {
      const double squared = squared_distance(o, j);
      if (squared < best_squared) {  // equal: the earlier, smaller index stays
        best = j;
        best_squared = squared;
      }
    }
    indices(i) = static_cast<typename Indices::non_const_value_type>(best);
    distances(i) =
        static_cast<typename Distances::non_const_value_type>(math::sqrt(best_squared));
  }
};

// Unit vectors, latitudes, longitudes (radians) and cosines of the latitudes of the references.
template <class ExecutionSpace, class References>
sphere_points<typename ExecutionSpace::memory_space> prepare_sphere_references(
    const ExecutionSpace& space, const References& references, double scale) {
  using memory_space = typename ExecutionSpace::memory_space;
  const auto count = static_cast<std::int64_t>(references.extent(0));
  sphere_points<memory_space> prepared(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::nearest::references"), count);
  Kokkos::parallel_for(
      "kernwerk::nearest::prepare",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(space, 0, count),
      prepare_sphere_point<References, memory_space>{references, prepared, scale});
  return prepared;
}

// Runs the generic scan. All Views are accessible from `space` and the arguments are checked.
template <class ExecutionSpace, class Observations, class References, class Indices,
          class Distances>
void nearest_generic(const ExecutionSpace& space, const Observations& observations,
                     const References& references, const Indices& indices,
                     const Distances& distances, bool haversine_metric, double scale,
                     double radius) {
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const auto observation_count = static_cast<std::int64_t>(observations.extent(0));
  if (haversine_metric) {
    const auto prepared = prepare_sphere_references(space, references, scale);
    using prepared_view = std::remove_const_t<decltype(prepared)>;
    Kokkos::parallel_for(
        "kernwerk::nearest::generic_haversine", policy(space, 0, observation_count),
        nearest_on_sphere<Observations, prepared_view, Indices, Distances>{
            observations, prepared, indices, distances, scale, radius});
  } else if (observations.extent(1) == 2) {
    Kokkos::parallel_for(
        "kernwerk::nearest::generic_euclidean2", policy(space, 0, observation_count),
        nearest_euclidean<2, Observations, References, Indices, Distances>{
            observations, references, indices, distances});
  } else {
    Kokkos::parallel_for(
        "kernwerk::nearest::generic_euclidean3", policy(space, 0, observation_count),
        nearest_euclidean<3, Observations, References, Indices, Distances>{
            observations, references, indices, distances});
  }
}

}  // namespace kernwerk::impl
