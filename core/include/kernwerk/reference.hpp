#pragma once
/// \file
/// A plain float64 brute force on the host, independent of the Kokkos implementations: it
/// evaluates the haversine formula (or the Euclidean distance) for every pair. The demo and the
/// tests check kernwerk::nearest against it; users can spot-check their own results with it.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernwerk/nearest_options.hpp"

/// The float64 brute force of kernwerk::nearest, for checking its answers.
namespace kernwerk::reference {

/// Points in host memory, row-major: point i is values[i * dimension + d].
struct points {
  const double* values;   ///< count x dimension coordinates
  std::size_t count;      ///< points
  std::size_t dimension;  ///< coordinates a point
  /// Coordinate d of point i.
  double operator()(std::size_t i, std::size_t d) const { return values[i * dimension + d]; }
};

/// What the search minimises for observation i and reference j: the haversine of the central
/// angle, or the squared Euclidean distance. Both grow with the distance.
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

/// The distance the search reports for an order key.
inline double distance_of(double key, const nearest_options& options) {
  if (options.metric == metric_kind::euclidean) return std::sqrt(key);
  return options.radius * 2 * std::asin(std::sqrt(std::fmin(key, 1.0)));
}

/// A reference and its order key.
struct neighbour {
  std::int64_t index;  ///< of the reference
  double key;          ///< order_key to it
};

/// Keys of observation i to every reference.
inline std::vector<double> all_keys(const points& observations, std::size_t i,
                                    const points& references, const nearest_options& options) {
  std::vector<double> keys(references.count);
  for (std::size_t j = 0; j < references.count; ++j)
    keys[j] = order_key(observations, i, references, j, options);
  return keys;
}

/// The k smallest keys with their indices, equal keys by index.
inline std::vector<neighbour> smallest_k(const std::vector<double>& keys, std::size_t k) {
  std::vector<neighbour> all(keys.size());
  for (std::size_t j = 0; j < keys.size(); ++j) all[j] = {static_cast<std::int64_t>(j), keys[j]};
  const auto first = [](const neighbour& a, const neighbour& b) {
    return a.key < b.key || (a.key == b.key && a.index < b.index);
  };
  std::partial_sort(all.begin(), all.begin() + k, all.end(), first);
  all.resize(k);
  return all;
}

/// Checks the k answers of observation i, nearest first. Each must be the reference's at its
/// rank: the same index, or where the reference's key at that rank has a neighbour within the
/// rounding tolerance, a key within that tolerance. Backends round differently in the last bit
/// (their sin and cos; a GPU fuses a * a + b * c), so a key within the tolerance of another, or
/// equal to that of a point elsewhere (the poles at two longitudes), may come first on one of
/// them; the equal keys of one point given twice must come in index order (the tie rule). No
/// index may come twice, and every reported distance must be its reference's to within
/// reported_precision. Returns an empty string when all is right, else what is wrong.
inline std::string check_k(const points& observations, std::size_t i, const points& references,
                           const std::int64_t* index, const double* reported, std::size_t k,
                           const nearest_options& options, double reported_precision = 1e-12) {
  const std::string which = "observation " + std::to_string(i) + ": ";
  const auto keys_of_all = all_keys(observations, i, references, options);
  const auto expected = smallest_k(keys_of_all, k);
  const auto tolerance = [](double key) { return 1e-13 * key + 1e-30; };
  const double scale = options.metric == metric_kind::haversine ? options.radius : 1.0;
  const auto same_point = [&](std::size_t p, std::size_t e) {
    for (std::size_t d = 0; d < references.dimension; ++d)
      if (references(p, d) != references(e, d)) return false;
    return true;
  };
  std::vector<double> keys(k);
  for (std::size_t q = 0; q < k; ++q) {
    const std::string rank = which + "neighbour " + std::to_string(q) + ": ";
    if (index[q] < 0 || static_cast<std::size_t>(index[q]) >= references.count)
      return rank + "index " + std::to_string(index[q]) + " is out of range";
    for (std::size_t p = 0; p < q; ++p)
      if (index[p] == index[q]) return rank + "index " + std::to_string(index[q]) + " twice";
    keys[q] = keys_of_all[index[q]];
    const double want = expected[q].key;
    const auto at_rank = static_cast<std::size_t>(expected[q].index);
    bool near_tie = false;
    for (std::size_t p = 0; p < references.count && !near_tie; ++p)
      near_tie = std::fabs(keys_of_all[p] - want) <= tolerance(want) &&
                 (keys_of_all[p] != want || !same_point(p, at_rank));
    const bool right = index[q] == expected[q].index ||
                       (near_tie && std::fabs(keys[q] - want) <= tolerance(want));
    if (!right)
      return rank + "got index " + std::to_string(index[q]) + " (key " +
             std::to_string(keys[q]) + "), expected index " + std::to_string(expected[q].index) +
             " (key " + std::to_string(want) + ")";
    const double distance = distance_of(keys[q], options);
    if (std::fabs(reported[q] - distance) > reported_precision * (distance + scale))
      return rank + "reported distance " + std::to_string(reported[q]) + " differs from " +
             std::to_string(distance);
  }
  return {};
}

/// check_k for the nearest neighbour alone.
inline std::string check_one(const points& observations, std::size_t i, const points& references,
                             std::int64_t index, double reported, const nearest_options& options,
                             double reported_precision = 1e-12) {
  return check_k(observations, i, references, &index, &reported, 1, options, reported_precision);
}

}  // namespace kernwerk::reference
