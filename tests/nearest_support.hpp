#pragma once
// Helpers of the nearest-neighbour tests: point sets on the host, a run on any execution space
// with device-resident Views, and the comparison against the float64 brute force.
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernwerk/nearest.hpp"
#include "kernwerk/reference.hpp"

namespace kernwerk::test {

// Row-major host points, `dimension` coordinates each.
struct host_points {
  std::vector<double> values;
  std::size_t dimension = 2;
  std::size_t count() const { return values.size() / dimension; }
  void add(double a, double b) { values.insert(values.end(), {a, b}); }
  void add(double a, double b, double c) { values.insert(values.end(), {a, b, c}); }
  reference::points view() const { return {values.data(), count(), dimension}; }
};

// Area-uniform points on the sphere, radians (or degrees).
inline host_points uniform_sphere(std::size_t count, std::uint64_t seed, bool degrees = false) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const double unit = degrees ? 180.0 / M_PI : 1.0;
  host_points points;
  for (std::size_t i = 0; i < count; ++i) {
    const double lat = std::asin(uniform(random));
    points.add(lat * unit, M_PI * uniform(random) * unit);
  }
  return points;
}

inline host_points uniform_box(std::size_t count, std::size_t dimension, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(-10.0, 10.0);
  host_points points;
  points.dimension = dimension;
  for (std::size_t i = 0; i < count * dimension; ++i) points.values.push_back(uniform(random));
  return points;
}

struct neighbours {
  std::vector<std::int64_t> indices;
  std::vector<double> distances;
};

// Copies the points into Views of Space's memory space (element type Scalar, layout Layout),
// runs kernwerk::nearest on Space and returns the results on the host.
template <class Space, class Scalar = double, class Layout = Kokkos::LayoutRight>
neighbours run_nearest(const host_points& observations, const host_points& references,
                       const nearest_options& options) {
  using points_view = Kokkos::View<Scalar**, Layout, typename Space::memory_space>;
  auto to_device = [](const host_points& points) {
    points_view device("points", points.count(), points.dimension);
    auto host = Kokkos::create_mirror_view(device);
    for (std::size_t i = 0; i < points.count(); ++i)
      for (std::size_t d = 0; d < points.dimension; ++d)
        host(i, d) = static_cast<Scalar>(points.values[i * points.dimension + d]);
    Kokkos::deep_copy(device, host);
    return device;
  };
  const auto obs = to_device(observations);
  const auto ref = to_device(references);
  Kokkos::View<std::int64_t*, typename Space::memory_space> indices("indices", obs.extent(0));
  Kokkos::View<double*, typename Space::memory_space> distances("distances", obs.extent(0));
  kernwerk::nearest(Space(), obs, ref, indices, distances, options);
  neighbours result{std::vector<std::int64_t>(obs.extent(0)), std::vector<double>(obs.extent(0))};
  Kokkos::deep_copy(Kokkos::View<std::int64_t*, Kokkos::HostSpace>(result.indices.data(),
                                                                   result.indices.size()),
                    indices);
  Kokkos::deep_copy(Kokkos::View<double*, Kokkos::HostSpace>(result.distances.data(),
                                                             result.distances.size()),
                    distances);
  return result;
}

// The implementations a test runs on Space: generic, and tuned where the build has it for
// the metric.
template <class Space>
std::vector<implementation_kind> implementations(metric_kind metric = metric_kind::haversine) {
  std::vector<implementation_kind> kinds{implementation_kind::generic};
  if (impl::nearest_tuned<Space>::available && impl::nearest_tuned<Space>::covers(metric))
    kinds.push_back(implementation_kind::tuned);
  return kinds;
}

// Rounds every coordinate to Scalar, so the reference sees exactly what the library saw.
template <class Scalar>
host_points rounded(host_points points) {
  for (auto& value : points.values) value = static_cast<double>(static_cast<Scalar>(value));
  return points;
}

// Every answer must match the float64 brute force; reports the first few that do not.
inline void check_all(const host_points& observations, const host_points& references,
                      const neighbours& result, const nearest_options& options,
                      double reported_precision = 1e-12) {
  int wrong = 0;
  for (std::size_t i = 0; i < observations.count(); ++i) {
    const std::string problem =
        reference::check_one(observations.view(), i, references.view(), result.indices[i],
                             result.distances[i], options, reported_precision);
    if (!problem.empty() && ++wrong <= 5) FAIL_CHECK(problem);
  }
  CHECK(wrong == 0);
}

}  // namespace kernwerk::test
