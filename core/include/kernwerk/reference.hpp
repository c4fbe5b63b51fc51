#pragma once
// A plain float64 brute force on the host, independent of the Kokkos implementations: it
// evaluates the haversine formula (or the Euclidean distance) for every pair. The demo and the
// tests check kernwerk::nearest against it; users can spot-check their own results with it.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernwerk/nearest_options.hpp"

namespace kernwerk::reference {

// Points are row-major: point i is values[i * dimension + d].
struct points {
  const double* values;
  std::size_t count;
  std::size_t dimension;
  double operator()(std::size_t i, std::size_t d) const { return values[i * dimension + d]; }
};

// Distance between observation i and reference j, as nearest_options ask for it.
inline double distance(const points& observations, std::size_t i, const points& references,
                       std::size_t j, const nearest_options& options) {
  if (options.metric == metric_kind::euclidean) {
    double sum = 0;
    for (std::size_t d = 0; d < observations.dimension; ++d) {
      const double delta = observations(i, d) - references(j, d);
      sum += delta * delta;
    }
    return std::sqrt(sum);
  }
  const double to_radians = options.units == angle_unit::degrees ? M_PI / 180 : 1.0;
  const double lat1 = observations(i, 0) * to_radians, lon1 = observations(i, 1) * to_radians;
  const double lat2 = references(j, 0) * to_radians, lon2 = references(j, 1) * to_radians;
  const double a = std::sin((lat2 - lat1) / 2), b = std::sin((lon2 - lon1) / 2);
  const double h = a * a + std::cos(lat1) * std::cos(lat2) * b * b;
  return options.radius * 2 * std::asin(std::sqrt(std::fmin(h, 1.0)));
}

struct neighbour {
  std::int64_t index;
  double distance;
};

// The nearest reference of observation i; ties to the smallest index.
inline neighbour nearest_one(const points& observations, std::size_t i, const points& references,
                             const nearest_options& options) {
  neighbour best{0, distance(observations, i, references, 0, options)};
  for (std::size_t j = 1; j < references.count; ++j) {
    const double d = distance(observations, i, references, j, options);
    if (d < best.distance) best = {static_cast<std::int64_t>(j), d};
  }
  return best;
}

// Checks one answer: `index` must be a nearest reference within a rounding tolerance of the
// float64 minimum (both sides evaluate the distance in float64, by different formulas), no
// smaller index may be clearly as near (the tie rule), and `reported` must be its distance.
// Returns an empty string when the answer is right, else what is wrong with it.
inline std::string check_one(const points& observations, std::size_t i, const points& references,
                             std::int64_t index, double reported, const nearest_options& options,
                             double reported_precision = 1e-12) {
  if (index < 0 || static_cast<std::size_t>(index) >= references.count)
    return "observation " + std::to_string(i) + ": index " + std::to_string(index) +
           " is out of range";
  const neighbour best = nearest_one(observations, i, references, options);
  const double scale = options.metric == metric_kind::haversine ? options.radius : 1.0;
  const double tolerance = 1e-14 * best.distance + 1e-15 * scale;
  const double mine = distance(observations, i, references, index, options);
  if (mine > best.distance + tolerance || (index > best.index && mine > best.distance))
    return "observation " + std::to_string(i) + ": got index " + std::to_string(index) +
           " at " + std::to_string(mine) + ", expected index " + std::to_string(best.index) +
           " at " + std::to_string(best.distance);
  if (std::fabs(reported - mine) > reported_precision * (mine + scale))
    return "observation " + std::to_string(i) + ": reported distance " +
           std::to_string(reported) + " differs from " + std::to_string(mine);
  return {};
}

}  // namespace kernwerk::reference
