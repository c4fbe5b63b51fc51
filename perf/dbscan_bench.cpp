// Times kernwerk::within and kernwerk::dbscan on the default execution space and writes JSON
// records for perf/results_table.py. Every timed answer is first checked on a sample against a
// float64 brute force on the host (counts of neighbours; for DBSCAN, each sampled point's core
// status, that its core neighbours share its cluster, and the border rule).
//
//   kernwerk_bench_dbscan [--sizes 20,24] [--sets within,moons,moons-scaled,places] [--repeat 3]
//                         [--samples 16] [--machine NAME] [--json FILE] [--save DIR]
//
// Sets, for each size 2^s:
// - within: 2^s queries against 2^14 points, about 10 neighbours each: uniform on the sphere,
//   and both sets in one cap of 0.01 rad (same-cap);
// - dbscan moons: scikit-learn's two moons (noise 0.05) of 2^s points at the course's eps 0.3
//   and min_samples 5: each point has about a tenth of the points within eps (the dense cells'
//   case); at 2^18 points and more, the noise fills the gap between the moons: one cluster;
// - dbscan moons-scaled: the same points, eps 0.3 sqrt(100 / 2^s) (about 20 neighbours a
//   point at any size: the moons' sparse fringes fall apart into small clusters);
// - dbscan places: 2^s points on the sphere, 90% in 64 caps of 0.002 to 0.05 rad with from 1
//   to 64 times the points, 10% uniform noise; eps 3e-4 sqrt(2^24 / 2^s) rad, min_samples 5.
// --save DIR writes each DBSCAN set as DIR/<set>-<s>.f64 (row-major float64) with
// DIR/<set>-<s>.json (metric, eps, min_samples) for the peers (perf/dbscan_peers.py).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernwerk/dbscan.hpp"
#include "kernwerk/reference.hpp"
#include "kernwerk/within.hpp"
#include "layouts.hpp"

namespace bench_dbscan {

using namespace kernwerk;
using space = Kokkos::DefaultExecutionSpace;
using memory = space::memory_space;
using points_view = Kokkos::View<double**, Kokkos::LayoutRight, memory>;

struct record {
  std::string workload, set, size;
  double median, best;
  std::string note;
};

std::pair<double, double> timed(const std::function<void()>& run, int repeat) {
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

struct host_set {
  std::vector<double> values;
  std::size_t dimension = 2;
  std::size_t count() const { return values.size() / dimension; }
  reference::points view() const { return {values.data(), count(), dimension}; }
};

points_view to_device(const host_set& set) {
  points_view device(Kokkos::view_alloc(Kokkos::WithoutInitializing, "points"), set.count(), set.dimension);
  Kokkos::deep_copy(device, Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace>(
                                set.values.data(), set.count(), set.dimension));
  return device;
}

host_set two_moons(std::size_t n, std::uint64_t seed) {
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

host_set places(std::size_t n, std::uint64_t seed) {
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

std::string power(int s) { return "2^" + std::to_string(s); }

// Neighbour counts of a sample of queries against the brute force; returns the wrong ones.
int check_counts(const host_set& queries, const host_set& points, double radius,
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

void within_case(const std::string& layout, int s, int repeat, int samples, std::vector<record>& out) {
  const std::size_t n = std::size_t(1) << s, m = std::size_t(1) << 14;
  const auto pair = layouts::make(layout, n, m, 7);
  host_set queries, points;
  queries.values = pair.observations;
  points.values = pair.references;
  // About 10 neighbours: a cap holding 10 / m of the references' area.
  const double spread = layout == "uniform" ? 2.0 : 1 - std::cos(1e-2);
  const double radius = std::acos(1 - spread * 10.0 / double(m));
  const auto q = to_device(queries), p = to_device(points);
  Kokkos::View<std::int64_t*, memory> offsets("offsets", n + 1);
  Kokkos::View<int*, memory> indices("indices", 0);
  Kokkos::View<float*, memory> distances("distances", 0);
  const auto [median, best] = timed([&] { within(space(), q, p, radius, offsets, indices, distances); }, repeat);
  std::vector<std::int64_t> host_offsets(n + 1);
  Kokkos::deep_copy(Kokkos::View<std::int64_t*, Kokkos::HostSpace>(host_offsets.data(), n + 1), offsets);
  const int wrong = check_counts(queries, points, radius, host_offsets, nearest_options{}, samples);
  std::ostringstream note;
  note << double(host_offsets[n]) / double(n) << " neighbours a query; " << wrong << " wrong of " << samples;
  out.push_back({"within", layout, power(s) + " x 2^14", median, best, note.str()});
  Kokkos::View<int*, memory> counts("counts", n);
  const auto [count_median, count_best] =
      timed([&] { count_within(space(), q, p, radius, counts); }, repeat);
  out.push_back({"count_within", layout, power(s) + " x 2^14", count_median, count_best, ""});
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
// core point's label where it is not, or is noise without one. Returns the wrong ones.
int check_labels(const host_set& set, double eps, std::int64_t min_samples, const std::vector<int>& labels,
                 const nearest_options& metric, int samples) {
  const std::size_t n = set.count();
  core_points is_core(set, eps, min_samples, metric);
  int wrong = 0;
  for (int s = 0; s < samples; ++s) {
    const std::size_t i = (std::size_t(s) * 2654435761u) % n;
    std::int64_t count = 0, nearest_core = -1;
    double nearest_distance = 0;
    bool shared = true;
    for (std::size_t j = 0; j < n; ++j) {
      const double d = is_core.distance(i, j);
      if (!(d <= eps)) continue;
      ++count;
      if (!is_core(j)) continue;
      shared = shared && labels[j] == labels[i];
      if (nearest_core < 0 || d < nearest_distance) {  // j ascending: ties to the smallest
        nearest_core = std::int64_t(j);
        nearest_distance = d;
      }
    }
    const bool core = count >= min_samples;
    const bool right = core == is_core(i) &&
                       (core ? labels[i] >= 0 && shared
                             : (nearest_core < 0 ? labels[i] == -1 : labels[i] == labels[nearest_core]));
    wrong += !right;
  }
  return wrong;
}

// The DBSCAN sets of size 2^s: the course's two moons at its eps, the moons with eps shrinking
// as the points grow (about 20 neighbours a point), and places.
struct dbscan_set {
  host_set points;
  double eps;
  metric_kind metric;
};
dbscan_set make_dbscan_set(const std::string& name, int s) {
  const std::size_t n = std::size_t(1) << s;
  if (name == "moons") return {two_moons(n, 11), 0.3, metric_kind::euclidean};
  if (name == "moons-scaled") return {two_moons(n, 11), 0.3 * std::sqrt(100.0 / double(n)), metric_kind::euclidean};
  if (name == "places") return {places(n, 12), 3e-4 * std::sqrt(double(1 << 24) / double(n)), metric_kind::haversine};
  throw std::invalid_argument("--sets: unknown set " + name + " (moons, moons-scaled, places)");
}

void dbscan_case(const std::string& name, int s, int repeat, int samples, const std::string& save,
                 std::vector<record>& out) {
  const std::size_t n = std::size_t(1) << s;
  const dbscan_set set = make_dbscan_set(name, s);
  const std::int64_t min_samples = 5;
  if (!save.empty()) {  // the points (row-major float64) and how to cluster them, for the peers
    const std::string stem = save + "/" + name + "-" + std::to_string(s);
    std::ofstream file(stem + ".f64", std::ios::binary);
    file.write(reinterpret_cast<const char*>(set.points.values.data()),
               std::streamsize(set.points.values.size() * sizeof(double)));
    std::ofstream about(stem + ".json");
    about << "{\"set\": \"" << name << "\", \"size\": \"" << power(s) << "\", \"points\": " << n
          << ", \"dimension\": 2, \"metric\": \"" << to_string(set.metric) << "\", \"eps\": " << set.eps
          << ", \"min_samples\": " << min_samples << "}\n";
  }
  dbscan_options options;
  options.metric = set.metric;
  nearest_options metric;
  metric.metric = options.metric;
  const auto points = to_device(set.points);
  Kokkos::View<int*, memory> labels("labels", n);
  std::int64_t clusters = 0;
  const auto [median, best] =
      timed([&] { clusters = dbscan(space(), points, set.eps, min_samples, labels, options); }, repeat);
  std::vector<int> host_labels(n);
  Kokkos::deep_copy(Kokkos::View<int*, Kokkos::HostSpace>(host_labels.data(), n), labels);
  const auto noise = std::count(host_labels.begin(), host_labels.end(), -1);
  const int wrong = check_labels(set.points, set.eps, min_samples, host_labels, metric, samples);
  std::ostringstream note;
  note << "eps " << set.eps << ", min_samples 5: " << clusters << " clusters, " << noise << " noise; " << wrong
       << " wrong of " << samples;
  out.push_back({"dbscan", name, power(s), median, best, note.str()});
}

}  // namespace bench_dbscan

int main(int argc, char* argv[]) {
  using namespace bench_dbscan;
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string machine = "unnamed", json, save, sizes = "20,24", sets = "within,moons,moons-scaled,places";
  int repeat = 3, samples = 16;
  for (int k = 1; k + 1 < argc; k += 2) {
    const std::string flag = argv[k], value = argv[k + 1];
    if (flag == "--sizes") sizes = value;
    else if (flag == "--repeat") repeat = std::max(1, std::stoi(value));
    else if (flag == "--samples") samples = std::max(1, std::stoi(value));
    else if (flag == "--machine") machine = value;
    else if (flag == "--json") json = value;
    else if (flag == "--save") save = value;
    else if (flag == "--sets") sets = value;
    else {
      std::fprintf(stderr, "%s: unknown option\n", flag.c_str());
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "usage: kernwerk_bench_dbscan [--sizes 20,24] [--sets within,moons,moons-scaled,places] "
                         "[--repeat N] [--samples N] [--machine NAME] [--json FILE] [--save DIR]\n");
    return 2;
  }
  std::vector<record> records;
  try {
    std::stringstream list(sizes);
    for (std::string item; std::getline(list, item, ',');) {
      const int s = std::stoi(item);
      std::stringstream names(sets);
      for (std::string name; std::getline(names, name, ',');) {
        if (name == "within")
          for (const char* layout : {"uniform", "same-cap"}) within_case(layout, s, repeat, samples, records);
        else
          dbscan_case(name, s, repeat, samples, save, records);
      }
    }
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "kernwerk_bench_dbscan: %s\n", failure.what());
    return 1;
  }
  for (const auto& r : records)
    std::printf("%-8s %-13s %-9s %-12s median %12.3f ms  %s\n", space::name(), r.workload.c_str(), r.set.c_str(),
                r.size.c_str(), 1e3 * r.median, r.note.c_str());
  if (!json.empty()) {
    std::ofstream out(json);
    out << "{\n  \"benchmark\": \"dbscan\",\n  \"machine\": \"" << machine << "\",\n  \"execution_space\": \""
        << space::name() << "\",\n  \"kokkos_version\": " << KOKKOS_VERSION << ",\n  \"repeat\": " << repeat
        << ",\n  \"results\": [\n";
    for (std::size_t k = 0; k < records.size(); ++k) {
      const auto& r = records[k];
      out << "    {\"workload\": \"" << r.workload << "\", \"set\": \"" << r.set << "\", \"size\": \"" << r.size
          << "\", \"median_seconds\": " << r.median << ", \"best_seconds\": " << r.best << ", \"note\": \""
          << r.note << "\"}" << (k + 1 < records.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
    if (!out) {
      std::fprintf(stderr, "kernwerk_bench_dbscan: cannot write %s\n", json.c_str());
      return 1;
    }
  }
  return 0;
}
