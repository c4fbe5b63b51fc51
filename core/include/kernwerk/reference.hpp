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

// What the search minimises for observation i and reference j: the haversine of the central
// angle, or the squared Euclidean distance. Both grow with the distance.
inline double order_key(const points& observations, std::size_t i, const points& references,
                        std::size_t j, const nearest_options& options) {
  if (options.metric == metric_kind::euclidean) {
    double sum = 0;
    for (std::size_t d = 0; d < observations.dimension; ++d) {
      const double delta = observations(i, d) - references(j, d);
      sum += delta * delta;
    }
    return sum;
  }
  const double to_radians = options.units == angle_unit::degrees ? M_PI / 180 : 1.0;
  const double lat1 = observations(i, 0) * to_radians, lon1 = observations(i, 1) * to_radians;
  const double lat2 = references(j, 0) * to_radians, lon2 = references(j, 1) * to_radians;
  const double a = std::sin((lat2 - lat1) / 2), b = std::sin((lon2 - lon1) / 2);
  return a * a + std::cos(lat1) * std::cos(lat2) * b * b;
}

// The distance the search reports for an order key.
inline double distance_of(double key, const nearest_options& options) {
  if (options.metric == metric_kind::euclidean) return std::sqrt(key);
  return options.radius * 2 * std::asin(std::sqrt(std::fmin(key, 1.0)));
}

struct neighbour {
  std::int64_t index;
  double key;
};

// The nearest reference of observation i; ties to the smallest index.
inline neighbour nearest_one(const points& observations, std::size_t i, const points& references,
                             const nearest_options& options) {
  neighbour best{0, order_key(observations, i, references, 0, options)};
  for (std::size_t j = 1; j < references.count; ++j) {
    const double key = order_key(observations, i, references, j, options);
    if (key < best.key) best = {static_cast<std::int64_t>(j), key};
  }
  return best;
}

// Checks one answer. `index` must be a nearest reference: its key at most a rounding tolerance
// above the float64 minimum (backends' sin and cos may differ in the last bit), and where its
// key equals the minimum exactly it must be the smallest such index (the tie rule). `reported`
// must be its distance. Returns an empty string when the answer is right, else the problem.
inline std::string check_one(const points& observations, std::size_t i, const points& references,
                             std::int64_t index, double reported, const nearest_options& options,
                             double reported_precision = 1e-12) {
  const std::string which = "observation " + std::to_string(i) + ": ";
  if (index < 0 || static_cast<std::size_t>(index) >= references.count)
    return which + "index " + std::to_string(index) + " is out of range";
  const neighbour best = nearest_one(observations, i, references, options);
  const double mine = order_key(observations, i, references, index, options);
  const double tolerance = 1e-13 * best.key + 1e-30;
  if (mine > best.key + tolerance || (mine == best.key && index != best.index))
    return which + "got index " + std::to_string(index) + " (key " + std::to_string(mine) +
           "), expected index " + std::to_string(best.index) + " (key " +
           std::to_string(best.key) + ")";
  const double expected = distance_of(mine, options);
  const double scale = options.metric == metric_kind::haversine ? options.radius : 1.0;
  if (std::fabs(reported - expected) > reported_precision * (expected + scale))
    return which + "reported distance " + std::to_string(reported) + " differs from " +
           std::to_string(expected);
  return {};
}

}  // namespace kernwerk::reference
