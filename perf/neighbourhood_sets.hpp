#pragma once
// The point sets of the radius-search and DBSCAN benchmarks (kernwerk_bench_dbscan and its ArborX
// peer), generated from seeds so that both programs time the very same points, and the float64
// brute-force checks of their answers on a sample; the timing and the records both write.
//
// - within: 2^s queries against 2^14 points, about 10 neighbours each: uniform on the sphere,
//   and both sets in one cap of 0.01 rad (same-cap);
// - moons: scikit-learn's two moons (noise 0.05) of 2^s points at the course's eps 0.3 and
//   min_samples 5: each point has about a tenth of the points within eps (the dense cells'
//   case); at 2^18 points and more, the noise fills the gap between the moons: one cluster;
// - moons-scaled: the same points, eps 0.3 sqrt(100 / 2^s) (about 20 neighbours a point at any
//   size: the moons' sparse fringes fall apart into small clusters);
// - places: 2^s points on the sphere, 90% in 64 caps of 0.002 to 0.05 rad with from 1 to 64
//   times the points, 10% uniform noise; eps 3e-4 sqrt(2^24 / 2^s) rad, min_samples 5.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernwerk/nearest_options.hpp"
#include "kernwerk/reference.hpp"
#include "layouts.hpp"

namespace kernwerk::neighbourhood_sets {

struct host_set {
  std::vector<double> values;
  std::size_t dimension = 2;
  std::size_t count() const { return values.size() / dimension; }
  reference::points view() const { return {values.data(), count(), dimension}; }
};

inline host_set two_moons(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> jitter(0.0, 0.05);
  std::uniform_real_distribution<double> along(0.0, M_PI);
  host_set set;
  set.values.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = along(random);
    const bool first = i % 2 == 0;
    set.values.push_back((first ? std::cos(t) : 1 - std::cos(t)) + jitter(random));
    set.values.push_back((first ? std::sin(t) : 0.5 - std::sin(t)) + jitter(random));
  }
  return set;
}

inline host_set places(std::size_t n, std::uint64_t seed) {
  layouts::generator g(seed);
  host_set set;
  set.values.reserve(2 * n);
  const std::size_t noise = n / 10;
  std::vector<double> weights(64);
  double total = 0;
  for (int c = 0; c < 64; ++c) total += weights[c] = std::pow(64.0, g.uniform(0.0, 1.0));
  std::size_t placed = 0;
  for (int c = 0; c < 64; ++c) {
    const std::size_t count = c == 63 ? n - noise - placed : std::size_t((n - noise) * weights[c] / total);
    g.add_cap(set.values, count, std::asin(g.uniform(-1.0, 1.0)), g.uniform(-M_PI, M_PI),
              0.002 * std::pow(25.0, g.uniform(0.0, 1.0)));
    placed += count;
  }
  g.add_uniform(set.values, noise);
  return set;
}

inline std::string power(int s) { return "2^" + std::to_string(s); }

// A radius search's case: 2^s queries against 2^14 points of a layout (uniform, same-cap) and
// a radius of about `neighbours` neighbours (a cap holding neighbours / 2^14 of the points'
// area; the records' sets take 10).
struct within_set {
  host_set queries, points;
  double radius;
};
// --neighbours' value (a within set's neighbours a query), or 0 where it is not in
// (0, 2^14] (said on standard error).
inline double neighbours_of(const std::string& value) {
  const double neighbours = std::stod(value);
  if (neighbours > 0 && neighbours <= double(1 << 14)) return neighbours;
  std::fprintf(stderr, "--neighbours: %s is not in (0, 16384]\n", value.c_str());
  return 0;
}
inline within_set make_within_set(const std::string& layout, int s, double neighbours = 10.0) {
  const std::size_t n = std::size_t(1) << s, m = std::size_t(1) << 14;
  const auto pair = layouts::make(layout, n, m, 7);
  within_set set;
  set.queries.values = pair.observations;
  set.points.values = pair.references;
  const double spread = layout == "uniform" ? 2.0 : 1 - std::cos(1e-2);
  set.radius = std::acos(1 - spread * neighbours / double(m));
  return set;
}

// The DBSCAN sets of size 2^s: the course's two moons at its eps, the moons with eps shrinking
// as the points grow, and places.
struct dbscan_set {
  host_set points;
  double eps;
  metric_kind metric;
  std::int64_t min_samples = 5;
};
inline dbscan_set make_dbscan_set(const std::string& name, int s) {
  const std::size_t n = std::size_t(1) << s;
  if (name == "moons") return {two_moons(n, 11), 0.3, metric_kind::euclidean};
  if (name == "moons-scaled") return {two_moons(n, 11), 0.3 * std::sqrt(100.0 / double(n)), metric_kind::euclidean};
  if (name == "places") return {places(n, 12), 3e-4 * std::sqrt(double(1 << 24) / double(n)), metric_kind::haversine};
  throw std::invalid_argument("--sets: unknown set " + name + " (moons, moons-scaled, places)");
}

// Neighbour counts of a sample of queries against the brute force; returns the wrong ones.
inline int check_counts(const host_set& queries, const host_set& points, double radius,
                        const std::vector<std::int64_t>& offsets, const nearest_options& metric, int samples) {
  int wrong = 0;
  for (int s = 0; s < samples; ++s) {
    const std::size_t i = std::size_t(s) * queries.count() / samples;
    std::int64_t count = 0;
    for (std::size_t j = 0; j < points.count(); ++j)
      count += reference::distance_of(reference::order_key(queries.view(), i, points.view(), j, metric),
                                      metric) <= radius;
    wrong += count != offsets[i + 1] - offsets[i];
  }
  return wrong;
}

// Sampled rows of kernwerk::within against the brute force: the same neighbours, each at its
// float64 distance (to 1e-12, relative) rounded as stored, and with `sorted`, in the order of
// (distance, index). Returns the rows found wrong.
template <class Distance>
int check_rows(const host_set& queries, const host_set& points, double radius, const std::vector<std::int64_t>& offsets,
               const std::vector<int>& indices, const std::vector<Distance>& distances, bool sorted,
               const nearest_options& metric, int samples) {
  int wrong = 0;
  for (int s = 0; s < samples; ++s) {
    const std::size_t i = std::size_t(s) * queries.count() / samples;
    std::vector<std::pair<int, double>> want;  // (index, distance), by index
    for (std::size_t j = 0; j < points.count(); ++j) {
      const double d = reference::distance_of(reference::order_key(queries.view(), i, points.view(), j, metric), metric);
      if (d <= radius) want.emplace_back(int(j), d);
    }
    const std::size_t begin = std::size_t(offsets[i]), end = std::size_t(offsets[i + 1]);
    bool ok = end - begin == want.size();
    std::vector<bool> seen(want.size());
    double before = 0;  // the previous neighbour's distance, and its index
    int before_index = -1;
    for (std::size_t p = begin; ok && p < end; ++p) {
      const int j = indices[p];
      const auto at = std::lower_bound(want.begin(), want.end(), std::make_pair(j, -1.0));
      if (at == want.end() || at->first != j || seen[std::size_t(at - want.begin())]) {
        ok = false;
        break;
      }
      seen[std::size_t(at - want.begin())] = true;
      const double d = at->second;
      if (!distances.empty() && std::fabs(double(distances[p]) - double(Distance(d))) > 1e-12 * std::fabs(d) + 1e-300)
        ok = false;
      if (sorted && p > begin && (before > d * (1 + 1e-12) || (before == d && before_index > j))) ok = false;
      before = d;
      before_index = j;
    }
    wrong += !ok;
  }
  return wrong;
}

// Whether point j of `set` is a core point, by the brute force: its neighbours counted from j
// on, around, until min_samples (the sets keep neighbours at nearby indices, so it ends early).
class core_points {
 public:
  core_points(const host_set& set, double eps, std::int64_t min_samples, const nearest_options& metric)
      : set_(set), eps_(eps), min_samples_(min_samples), metric_(metric), known_(set.count(), -1) {}
  bool operator()(std::size_t j) {
    if (known_[j] < 0) {
      const std::size_t n = set_.count();
      std::int64_t count = 0;
      for (std::size_t step = 0; step < n && count < min_samples_; ++step)
        count += distance(j, (j + step) % n) <= eps_;
      known_[j] = count >= min_samples_;
    }
    return known_[j] == 1;
  }
  double distance(std::size_t i, std::size_t j) const {
    return reference::distance_of(reference::order_key(set_.view(), i, set_.view(), j, metric_), metric_);
  }

 private:
  const host_set& set_;
  double eps_;
  std::int64_t min_samples_;
  nearest_options metric_;
  std::vector<signed char> known_;
};

// Sampled points of a DBSCAN answer against the brute force: the point's neighbours and core
// status; that its core neighbours share its label where it is core; that it takes its nearest
// core point's label where it is not (any core neighbour's with `any_border`, as DBSCAN allows
// and ArborX does), or is noise without one. Returns the wrong ones.
inline int check_labels(const host_set& set, double eps, std::int64_t min_samples, const std::vector<int>& labels,
                        const nearest_options& metric, int samples, bool any_border = false) {
  const std::size_t n = set.count();
  core_points is_core(set, eps, min_samples, metric);
  int wrong = 0;
  for (int s = 0; s < samples; ++s) {
    const std::size_t i = (std::size_t(s) * 2654435761u) % n;
    std::int64_t count = 0, nearest_core = -1;
    double nearest_distance = 0;
    bool shared = true, joins_one = false;
    for (std::size_t j = 0; j < n; ++j) {
      const double d = is_core.distance(i, j);
      if (!(d <= eps)) continue;
      ++count;
      if (!is_core(j)) continue;
      shared = shared && labels[j] == labels[i];
      joins_one = joins_one || labels[j] == labels[i];
      if (nearest_core < 0 || d < nearest_distance) {  // j ascending: ties to the smallest
        nearest_core = std::int64_t(j);
        nearest_distance = d;
      }
    }
    const bool core = count >= min_samples;
    const bool right = core == is_core(i) &&
                       (core ? labels[i] >= 0 && shared
                             : nearest_core < 0 ? labels[i] == -1
                             : any_border       ? joins_one
                                                : labels[i] == labels[nearest_core]);
    wrong += !right;
  }
  return wrong;
}

// Timing on the default execution space, and the records both programs write.
using space = Kokkos::DefaultExecutionSpace;
using memory = space::memory_space;
using rows_view = Kokkos::View<double**, Kokkos::LayoutRight, memory>;

struct record {
  std::string workload, set, size;
  double median, best;
  std::string note;
};

inline std::pair<double, double> timed(const std::function<void()>& run, int repeat) {
  run();  // warm-up, and the answer checked
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    space().fence();
    const auto start = std::chrono::steady_clock::now();
    run();
    space().fence();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], times.front()};
}

inline rows_view to_device(const host_set& set) {
  rows_view device(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rows"), set.count(), set.dimension);
  Kokkos::deep_copy(device, Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace>(
                                set.values.data(), set.count(), set.dimension));
  return device;
}

}  // namespace kernwerk::neighbourhood_sets
