#pragma once
// Helpers of the nearest-neighbour tests: point sets on the host, a run on any execution space
// with device-resident Views, and the comparison against the float64 brute force.
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
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
  // Appends a copy of point j of `from` (2 coordinates): duplicates for the tie tests.
  void add_copy(const host_points& from, std::size_t j) {
    add(from.values[2 * j], from.values[2 * j + 1]);
  }
  reference::points view() const { return {values.data(), count(), dimension}; }
};

// Row-major (lat, lon) rows as points: perf/layouts.hpp's sets.
inline host_points as_points(std::vector<double> rows) {
  host_points points;
  points.values = std::move(rows);
  return points;
}

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
  std::vector<std::int64_t> indices;  // row-major (n, k)
  std::vector<double> distances;
  std::size_t k = 1;
};

template <class T, class Space>
std::vector<T> to_host_vector(const Kokkos::View<T*, typename Space::memory_space>& view) {
  std::vector<T> host(view.extent(0));
  Kokkos::deep_copy(Kokkos::View<T*, Kokkos::HostSpace>(host.data(), host.size()), view);
  return host;
}

// The points in a View of Space's memory space (element type Scalar, layout Layout).
template <class Space, class Scalar = double, class Layout = Kokkos::LayoutRight>
Kokkos::View<Scalar**, Layout, typename Space::memory_space> to_device(const host_points& points) {
  Kokkos::View<Scalar**, Layout, typename Space::memory_space> device("points", points.count(),
                                                                       points.dimension);
  auto host = Kokkos::create_mirror_view(device);
  for (std::size_t i = 0; i < points.count(); ++i)
    for (std::size_t d = 0; d < points.dimension; ++d)
      host(i, d) = static_cast<Scalar>(points.values[i * points.dimension + d]);
  Kokkos::deep_copy(device, host);
  return device;
}

// Checks that call() throws kernwerk::invalid_argument naming `argument`.
template <class Call>
void check_rejects(const std::string& argument, Call&& call) {
  CAPTURE(argument);
  try {
    call();
    FAIL_CHECK("no error");
  } catch (const kernwerk::invalid_argument& error) {
    CHECK(error.argument() == argument);
  }
}

// Copies the points into Views of Space's memory space (element type Scalar, layout Layout),
// runs kernwerk::nearest on Space with k neighbours (rank-1 outputs for k = 1, rank-2 else)
// and returns the results on the host.
template <class Space, class Scalar = double, class Layout = Kokkos::LayoutRight>
neighbours run_nearest(const host_points& observations, const host_points& references,
                       const nearest_options& options, std::size_t k = 1) {
  using memory_space = typename Space::memory_space;
  const auto obs = to_device<Space, Scalar, Layout>(observations);
  const auto ref = to_device<Space, Scalar, Layout>(references);
  const std::size_t n = obs.extent(0);
  // Outputs start poisoned: every entry must be written.
  Kokkos::View<std::int64_t*, memory_space> indices("indices", n * k);
  Kokkos::View<double*, memory_space> distances("distances", n * k);
  Kokkos::deep_copy(indices, -1);
  Kokkos::deep_copy(distances, -1.0);
  if (k == 1) {
    kernwerk::nearest(Space(), obs, ref, indices, distances, options);
  } else {
    using index_matrix = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space,
                                      Kokkos::MemoryUnmanaged>;
    using distance_matrix =
        Kokkos::View<double**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>;
    kernwerk::nearest(Space(), obs, ref, index_matrix(indices.data(), n, k),
                      distance_matrix(distances.data(), n, k), options);
  }
  return {to_host_vector<std::int64_t, Space>(indices), to_host_vector<double, Space>(distances),
          k};
}

// Runs kernwerk::nearest on Space with unmanaged host Views over the vectors (rank-1 outputs).
template <class Space>
void run_on_host_views(const host_points& observations, const host_points& references,
                       std::vector<std::int64_t>& indices, std::vector<double>& distances,
                       const nearest_options& options) {
  using host_matrix = Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                   Kokkos::MemoryUnmanaged>;
  kernwerk::nearest(Space(), host_matrix(observations.values.data(), observations.count(), 2),
                    host_matrix(references.values.data(), references.count(), 2),
                    Kokkos::View<std::int64_t*, Kokkos::HostSpace>(indices.data(), indices.size()),
                    Kokkos::View<double*, Kokkos::HostSpace>(distances.data(), distances.size()),
                    options);
}

// The ways a test runs nearest on Space: the brute force (generic, and tuned where the build
// has it) and the indexed method.
struct variant {
  std::string name;
  nearest_options options;
};

template <class Space>
std::vector<variant> variants(metric_kind metric = metric_kind::haversine, int k = 1) {
  std::vector<variant> all;
  nearest_options options;
  options.metric = metric;
  options.method = method_kind::brute;
  options.implementation = implementation_kind::generic;
  all.push_back({"brute generic", options});
  if (impl::nearest_tuned<Space>::available && impl::nearest_tuned<Space>::covers(metric, k)) {
    options.implementation = implementation_kind::tuned;
    all.push_back({"brute tuned", options});
  }
  options.method = method_kind::indexed;
  options.implementation = implementation_kind::automatic;
  all.push_back({"indexed", options});
  return all;
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
    const std::string problem = reference::check_k(
        observations.view(), i, references.view(), &result.indices[i * result.k],
        &result.distances[i * result.k], result.k, options, reported_precision);
    if (!problem.empty() && ++wrong <= 5) FAIL_CHECK(problem);
  }
  CHECK(wrong == 0);
}

}  // namespace kernwerk::test
