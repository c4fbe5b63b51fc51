// Times kernwerk::within (rows sorted with distances, and unsorted without), count_within and
// kernwerk::dbscan on the default execution space and writes JSON
// records for perf/results_table.py. Every timed answer is first checked on a sample against a
// float64 brute force on the host (counts of neighbours; for DBSCAN, each sampled point's core
// status, that its core neighbours share its cluster, and the border rule).
//
//   kernwerk_bench_dbscan [--sizes 20,24] [--sets within,moons,moons-scaled,places] [--repeat 3]
//                         [--samples 16] [--machine NAME] [--json FILE] [--save DIR] [--leaf-size B]
//                         [--cell-search P] [--float-tests 0|1] [--defer-long-rows 0|1]
//                         [--grid-span S] [--held-capacity C] [--team-sort 0|1] [--neighbours N]
//
// The sets (uniform and same-cap radius searches, moons, moons-scaled, places) are described
// in perf/neighbourhood_sets.hpp; --neighbours N sizes the radius searches' radius for about N
// neighbours a query (default 10, the records' sets).
// Tuning experiments: --leaf-size B sets the index's references per leaf (as in
// kernwerk_bench_nearest), --cell-search P the largest dense cell that DBSCAN searches around
// once instead of point by point, --float-tests 0|1 the radius searches' float first tests
// off or on (default: on GPUs only), --defer-long-rows 0|1 whether within's fill leaves the
// rows longer than those the count pass kept to a launch of their own (held_policy; default: on
// GPUs only), --grid-span S how many cells of the sphere grid a radius search may span
// (the reach's diameter below S - 1 cells) to scan them instead of the hierarchy
// (radius_policy; 0: never, default the space's own), --held-capacity C the most neighbours a
// query within's count pass keeps for the fill (held_policy; default the space's own),
// --team-sort 0|1 whether within's sorted rows longer than the fill's registers are sorted by a
// team a row after the fill (row_sort_policy; default: on GPUs only). --save DIR
// writes each DBSCAN set as DIR/<set>-<s>.f64 (row-major float64) with DIR/<set>-<s>.json
// (metric, eps, min_samples) for the peers (perf/dbscan_peers.py).
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
#include "neighbourhood_sets.hpp"

namespace bench_dbscan {

using namespace kernwerk;
using namespace kernwerk::neighbourhood_sets;

void within_case(const std::string& layout, int s, int repeat, int samples, double neighbours,
                 std::vector<record>& out) {
  const std::size_t n = std::size_t(1) << s;
  const within_set set = make_within_set(layout, s, neighbours);
  const host_set &queries = set.queries, &points = set.points;
  const double radius = set.radius;
  const auto q = to_device(queries), p = to_device(points);
  Kokkos::View<std::int64_t*, memory> offsets("offsets", n + 1);
  Kokkos::View<int*, memory> indices("indices", 0);
  Kokkos::View<float*, memory> distances("distances", 0);
  const auto [median, best] = timed([&] { within(space(), q, p, radius, offsets, indices, distances); }, repeat);
  std::vector<std::int64_t> host_offsets(n + 1);
  Kokkos::deep_copy(Kokkos::View<std::int64_t*, Kokkos::HostSpace>(host_offsets.data(), n + 1), offsets);
  const auto rows = [&](bool with_distances) {  // the rows on the host, for check_rows
    std::vector<int> host_indices(indices.extent(0));
    std::vector<float> host_distances(with_distances ? distances.extent(0) : 0);
    Kokkos::deep_copy(Kokkos::View<int*, Kokkos::HostSpace>(host_indices.data(), host_indices.size()), indices);
    if (with_distances)
      Kokkos::deep_copy(Kokkos::View<float*, Kokkos::HostSpace>(host_distances.data(), host_distances.size()), distances);
    return std::make_pair(host_indices, host_distances);
  };
  const auto [sorted_indices, sorted_distances] = rows(true);
  const int wrong = check_rows(queries, points, radius, host_offsets, sorted_indices, sorted_distances, true,
                               nearest_options{}, samples);
  std::ostringstream note;
  note << double(host_offsets[n]) / double(n) << " neighbours a query; " << wrong << " wrong of " << samples;
  out.push_back({"within", layout, power(s) + " x 2^14", median, best, note.str()});
  // The set only (row_order::any, no distances), as ArborX's radius search returns it.
  within_options unsorted;
  unsorted.order = row_order::any;
  const auto [set_median, set_best] =
      timed([&] { within(space(), q, p, radius, offsets, indices, unsorted); }, repeat);
  Kokkos::deep_copy(Kokkos::View<std::int64_t*, Kokkos::HostSpace>(host_offsets.data(), n + 1), offsets);
  const int set_wrong = check_rows(queries, points, radius, host_offsets, rows(false).first, std::vector<float>{},
                                   false, nearest_options{}, samples);
  out.push_back({"within_unsorted", layout, power(s) + " x 2^14", set_median, set_best,
                 "no distances: " + std::to_string(set_wrong) + " wrong of " + std::to_string(samples)});
  Kokkos::View<int*, memory> counts("counts", n);
  const auto [count_median, count_best] =
      timed([&] { count_within(space(), q, p, radius, counts); }, repeat);
  std::vector<int> host_counts(n);
  Kokkos::deep_copy(Kokkos::View<int*, Kokkos::HostSpace>(host_counts.data(), n), counts);
  std::size_t count_wrong = 0;  // against the rows' lengths, checked above on samples
  for (std::size_t i = 0; i < n; ++i) count_wrong += host_counts[i] != host_offsets[i + 1] - host_offsets[i];
  out.push_back({"count_within", layout, power(s) + " x 2^14", count_median, count_best,
                 std::to_string(count_wrong) + " of " + std::to_string(n) + " differ from the rows"});
}

void dbscan_case(const std::string& name, int s, int repeat, int samples, const std::string& save,
                 std::vector<record>& out) {
  const std::size_t n = std::size_t(1) << s;
  const dbscan_set set = make_dbscan_set(name, s);
  const std::int64_t min_samples = set.min_samples;
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
  double neighbours = 10.0;
  for (int k = 1; k + 1 < argc; k += 2) {
    const std::string flag = argv[k], value = argv[k + 1];
    if (flag == "--sizes") sizes = value;
    else if (flag == "--repeat") repeat = std::max(1, std::stoi(value));
    else if (flag == "--samples") samples = std::max(1, std::stoi(value));
    else if (flag == "--machine") machine = value;
    else if (flag == "--json") json = value;
    else if (flag == "--save") save = value;
    else if (flag == "--sets") sets = value;
    else if (flag == "--leaf-size") kernwerk::impl::bvh_policy::leaf_size = std::stoi(value);
    else if (flag == "--cell-search") kernwerk::impl::dbscan_policy::cell_search_points = std::stoll(value);
    else if (flag == "--float-tests") kernwerk::impl::radius_policy::float_tests = std::stoi(value);
    else if (flag == "--defer-long-rows") kernwerk::impl::held_policy::defer_long_rows = std::stoi(value);
    else if (flag == "--grid-span") kernwerk::impl::radius_policy::grid_span = std::stoi(value);
    else if (flag == "--held-capacity") kernwerk::impl::held_policy::capacity = std::stoi(value);
    else if (flag == "--team-sort") kernwerk::impl::row_sort_policy::by_team = std::stoi(value);
    else if (flag == "--neighbours") {
      if (!(neighbours = neighbours_of(value))) return 2;
    }
    else {
      std::fprintf(stderr, "%s: unknown option\n", flag.c_str());
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "usage: kernwerk_bench_dbscan [--sizes 20,24] [--sets within,moons,moons-scaled,places] "
                         "[--repeat N] [--samples N] [--machine NAME] [--json FILE] [--save DIR] [--leaf-size B] "
                         "[--cell-search P] [--float-tests 0|1] [--defer-long-rows 0|1] [--grid-span S] [--held-capacity C] [--team-sort 0|1] [--neighbours N]\n");
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
          for (const char* layout : {"uniform", "same-cap"}) within_case(layout, s, repeat, samples, neighbours, records);
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
