#include "commands.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>

#include "kernwerk/error.hpp"
#include "kernwerk/info.hpp"
#include "kernwerk/nearest.hpp"
#include "kernwerk/reference.hpp"

namespace kernwerk::cli {

namespace {

using host_indices = Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
using host_distances = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

}  // namespace

std::size_t point_dimension(const arguments& args, bool haversine) {
  if (args.has("--dim") && haversine)
    throw usage_error("--dim: applies to --metric euclidean only (haversine points are lat,lon)");
  const long long dimension = haversine ? 2 : args.integer("--dim", 2);
  if (dimension != 2 && dimension != 3) throw usage_error("--dim: must be 2 or 3");
  return std::size_t(dimension);
}

int run_info(const arguments&) {
  print_build_info(std::cout);
  return 0;
}

// The course's case study: uniform points on the sphere, solved and spot-checked.
int run_demo(const arguments& args) {
  const long long observation_count = args.integer("--observations", 1 << 16);
  const long long reference_count = args.integer("--references", 1 << 13);
  const long long sample = args.integer("--check", 1000);
  const auto seed = static_cast<std::uint64_t>(args.integer("--seed", 2026));
  if (observation_count < 1) throw usage_error("--observations: must be at least 1");
  if (reference_count < 1) throw usage_error("--references: must be at least 1");
  if (sample < 0) throw usage_error("--check: must not be negative");

  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  auto uniform_on_sphere = [&](long long count) {
    std::vector<double> values(2 * count);
    for (long long i = 0; i < count; ++i) {
      values[2 * i] = std::asin(uniform(random));    // latitude: area-uniform
      values[2 * i + 1] = M_PI * uniform(random);    // longitude
    }
    return values;
  };
  const auto observations = uniform_on_sphere(observation_count);
  const auto references = uniform_on_sphere(reference_count);

  std::vector<std::int64_t> indices(observation_count);
  std::vector<double> distances(observation_count);
  nearest_report report;
  nearest_options options;
  options.report = &report;
  const auto start = std::chrono::steady_clock::now();
  kernwerk::nearest(Kokkos::DefaultExecutionSpace(), wrap(observations, observation_count, 2),
                    wrap(references, reference_count, 2),
                    host_indices(indices.data(), indices.size()),
                    host_distances(distances.data(), distances.size()), options);
  const double elapsed = seconds_since(start);

  const reference::points obs{observations.data(), std::size_t(observation_count), 2};
  const reference::points ref{references.data(), std::size_t(reference_count), 2};
  std::uniform_int_distribution<long long> pick(0, observation_count - 1);
  long long wrong = 0;
  const long long checked = std::min(sample, observation_count);
  for (long long k = 0; k < checked; ++k) {
    const auto i = static_cast<std::size_t>(checked == observation_count ? k : pick(random));
    const std::string problem = reference::check_one(obs, i, ref, indices[i], distances[i], options);
    if (!problem.empty() && wrong++ < 5) std::printf("MISMATCH %s\n", problem.c_str());
  }
  const double pairs = double(observation_count) * double(reference_count);
  std::printf("nearest neighbour on the sphere (haversine), exact, float64, %s method (%s)\n",
              to_string(report.method), report.reason.c_str());
  std::printf("  observations %lld, references %lld, execution space %s (%d threads)\n",
              observation_count, reference_count, Kokkos::DefaultExecutionSpace::name(),
              Kokkos::DefaultExecutionSpace().concurrency());
  std::printf("  time %.4f s, %.3g pairs/s\n", elapsed, pairs / elapsed);
  std::printf("  checked %lld random observations against a float64 brute force: %s\n", checked,
              wrong == 0 ? "all correct" : (std::to_string(wrong) + " wrong").c_str());
  return wrong == 0 ? 0 : 1;
}

}  // namespace kernwerk::cli
