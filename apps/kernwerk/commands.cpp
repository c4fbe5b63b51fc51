#include "commands.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>

#include <unistd.h>

#include "kernwerk/error.hpp"
#include "kernwerk/info.hpp"
#include "kernwerk/nearest.hpp"
#include "kernwerk/reference.hpp"
#include "point_file.hpp"

namespace kernwerk::cli {

arguments::arguments(const std::vector<std::string>& words, const std::set<std::string>& valued,
                     const std::set<std::string>& flags) {
  for (std::size_t k = 0; k < words.size(); ++k) {
    const std::string& word = words[k];
    if (flags.count(word)) {
      values_[word] = "";
    } else if (valued.count(word)) {
      if (k + 1 == words.size()) throw error(word + ": needs a value");
      values_[word] = words[++k];
    } else {
      throw error(word + ": unknown option");
    }
  }
}

std::string arguments::text(const std::string& name, const std::string& fallback) const {
  const auto found = values_.find(name);
  return found == values_.end() ? fallback : found->second;
}

std::string arguments::required(const std::string& name) const {
  const auto found = values_.find(name);
  if (found == values_.end()) throw error(name + ": required");
  return found->second;
}

double arguments::number(const std::string& name, double fallback) const {
  if (!has(name)) return fallback;
  const std::string& value = values_.at(name);
  std::size_t used = 0;
  double result = 0;
  try {
    result = std::stod(value, &used);
  } catch (const std::exception&) {
  }
  if (used == 0 || used != value.size()) throw error(name + ": '" + value + "' is not a number");
  return result;
}

long long arguments::integer(const std::string& name, long long fallback) const {
  if (!has(name)) return fallback;
  const std::string& value = values_.at(name);
  std::size_t used = 0;
  long long result = 0;
  try {
    result = std::stoll(value, &used);
  } catch (const std::exception&) {
  }
  if (used == 0 || used != value.size())
    throw error(name + ": '" + value + "' is not an integer");
  return result;
}

namespace {

using host_indices = Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
using host_distances = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
template <class T>
using host_matrix =
    Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

template <class T>
using host_points = Kokkos::View<const T**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                 Kokkos::MemoryUnmanaged>;

template <class T>
host_points<T> wrap(const std::vector<T>& values, std::size_t count, std::size_t dimension) {
  return host_points<T>(values.data(), count, dimension);
}

// Calls `action` with an unmanaged host View of the set's values, float or double.
template <class Action>
void with_view(const point_set& points, Action&& action) {
  if (points.single_precision)
    action(wrap(points.f32, points.count, points.dimension));
  else
    action(wrap(points.f64, points.count, points.dimension));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// Reports progress on stderr when it is a terminal: a bar that rewrites itself.
class progress_bar {
 public:
  explicit progress_bar(bool enabled) : enabled_(enabled) {}
  void show(double fraction) const {
    if (!enabled_) return;
    const int width = 40, filled = int(fraction * width + 0.5);
    std::fprintf(stderr, "\r[%s%s] %3d%%", std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), int(fraction * 100 + 0.5));
    std::fflush(stderr);
  }
  void done() const {
    if (enabled_) std::fputs("\r\033[K", stderr);
  }

 private:
  bool enabled_;
};

int run_nearest(const arguments& args) {
  nearest_options options;
  options.metric = parse_metric(args.text("--metric", "haversine"), "--metric");
  options.method = parse_method(args.text("--method", "auto"), "--method");
  options.implementation =
      parse_implementation(args.text("--implementation", "auto"), "--implementation");
  if (args.has("--degrees")) options.units = angle_unit::degrees;
  options.radius = args.number("--radius", 1.0);
  nearest_report report;  // which method ran, and why
  options.report = &report;
  const long long k = args.integer("--k", 1);
  if (k < 1 || k > 32) throw error("--k: must be 1 to 32");
  const long long dimension =
      options.metric == metric_kind::haversine ? 2 : args.integer("--dim", 2);
  if (args.has("--dim") && options.metric == metric_kind::haversine)
    throw error("--dim: applies to --metric euclidean only (haversine points are lat,lon)");
  if (dimension != 2 && dimension != 3) throw error("--dim: must be 2 or 3");
  const std::string output = args.required("--out");
  const point_set observations = read_points(args.required("--obs"), dimension);
  const point_set references = read_points(args.required("--ref"), dimension);

  const std::size_t n = observations.count;
  std::vector<std::int64_t> indices(n * k);
  std::vector<double> distances(n * k);
  // Long runs go in slices of observations (each answer depends on its observation alone), so
  // that a terminal can show progress; otherwise in one call.
  const progress_bar bar(isatty(STDERR_FILENO) != 0);
  const double pairs = double(n) * double(references.count);
  const std::size_t slices = isatty(STDERR_FILENO) && pairs > 1e11 ? 50 : 1;
  std::string space_name;
  const auto start = std::chrono::steady_clock::now();
  with_backend(args.text("--backend", ""), [&](auto space) {
    space_name = space.name();
    with_view(observations, [&](auto obs) {
      with_view(references, [&](auto ref) {
        for (std::size_t slice = 0; slice < slices; ++slice) {
          const std::size_t first = n * slice / slices, last = n * (slice + 1) / slices;
          if (first == last) continue;
          const auto rows = std::make_pair(first, last);
          kernwerk::nearest(space, Kokkos::subview(obs, rows, Kokkos::ALL()), ref,
                            host_matrix<std::int64_t>(indices.data() + first * k, last - first, k),
                            host_matrix<double>(distances.data() + first * k, last - first, k),
                            options);
          bar.show(double(last) / n);
        }
      });
    });
  });
  bar.done();
  const double elapsed = seconds_since(start);
  write_neighbours(output, indices, distances, std::size_t(k));
  std::fprintf(stderr,
               "kernwerk nearest: %zu x %zu points, k = %lld, %s method (%s) in %.3f s "
               "(%.3g pairs/s) on %s\n",
               n, references.count, k, to_string(report.method), report.reason.c_str(), elapsed,
               pairs / elapsed, space_name.c_str());
  return 0;
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
  if (observation_count < 1) throw error("--observations: must be at least 1");
  if (reference_count < 1) throw error("--references: must be at least 1");
  if (sample < 0) throw error("--check: must not be negative");

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
