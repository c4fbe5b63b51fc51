// The ArborX peer of the radius-search and DBSCAN benchmark: ArborX 2.x's BVH with sphere
// predicates (the neighbours' indices in compressed rows, unsorted, no distances; and counts
// through a callback) and its dbscan (FDBSCAN-DenseBox), on the very sets kernwerk_bench_dbscan
// times (perf/neighbourhood_sets.hpp), timed as that benchmark times kernwerk: inputs already
// in the execution space's memory as float64 rows, conversion to ArborX's float32 points, the
// build and the query timed together. Points on the sphere are float32 unit vectors searched
// within the chord 2 sin(r / 2). Built only with -DKERNWERK_PERF_ARBORX=ON, which finds ArborX
// with find_package; ArborX is never part of this repository.
//
//   kernwerk_peer_arborx_dbscan [--sizes 20,24] [--sets within,moons,moons-scaled,places]
//                               [--repeat 3] [--samples 16] [--machine NAME] [--json FILE]
//                               [--neighbours N]
//
// --neighbours N sizes the radius searches' radius for about N neighbours a query (default 10,
// as kernwerk_bench_dbscan's).
// Answers are checked on a sample against the float64 brute force (perf/neighbourhood_sets.hpp):
// neighbour counts, and for DBSCAN each sampled point's core status, its core neighbours'
// cluster and a border point in one of its core neighbours' clusters (ArborX does not say
// which). float32 coordinates may decide points at the range's edge otherwise: such points
// are counted as wrong, not hidden. The record is in the peers' schema
// (perf/results/dbscan-peers-*.json).
#include <ArborX.hpp>
#include <ArborX_DBSCAN.hpp>
#include <ArborX_Version.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "neighbourhood_sets.hpp"

namespace {

using namespace kernwerk::neighbourhood_sets;
using point3 = ArborX::Point<3, float>;
using point2 = ArborX::Point<2, float>;

// (lat, lon) radians to float32 unit vectors.
Kokkos::View<point3*, memory> unit_vectors(const rows_view& rows) {
  Kokkos::View<point3*, memory> points(Kokkos::view_alloc(Kokkos::WithoutInitializing, "unit vectors"),
                                       rows.extent(0));
  Kokkos::parallel_for(
      "to_unit_vectors", Kokkos::RangePolicy<space>(0, rows.extent(0)), KOKKOS_LAMBDA(int i) {
        const double lat = rows(i, 0), lon = rows(i, 1);
        points(i) = point3{float(Kokkos::cos(lat) * Kokkos::cos(lon)), float(Kokkos::cos(lat) * Kokkos::sin(lon)),
                           float(Kokkos::sin(lat))};
      });
  return points;
}

Kokkos::View<point2*, memory> planar(const rows_view& rows) {
  Kokkos::View<point2*, memory> points(Kokkos::view_alloc(Kokkos::WithoutInitializing, "planar"), rows.extent(0));
  Kokkos::parallel_for(
      "to_planar", Kokkos::RangePolicy<space>(0, rows.extent(0)),
      KOKKOS_LAMBDA(int i) { points(i) = point2{float(rows(i, 0)), float(rows(i, 1))}; });
  return points;
}

float chord_of(double angle) { return float(2 * std::sin(angle / 2)); }

// The spheres around each query, as ArborX's predicates: bare (the rows' form) or carrying the
// query's number (the counting callback's form).
template <bool Numbered>
struct sphere_queries {
  Kokkos::View<point3*, memory> centres;
  float radius;
};

struct index_out {
  template <class Predicate, class Value, class Out>
  KOKKOS_FUNCTION void operator()(const Predicate&, const Value& value, const Out& out) const {
    out(int(value.index));
  }
};

struct count_found {
  Kokkos::View<int*, memory> counts;
  template <class Predicate, class Value>
  KOKKOS_FUNCTION void operator()(const Predicate& predicate, const Value&) const {
    Kokkos::atomic_inc(&counts(ArborX::getData(predicate)));
  }
};

}  // namespace

template <bool Numbered>
struct ArborX::AccessTraits<sphere_queries<Numbered>> {
  using memory_space = memory;
  static KOKKOS_FUNCTION std::size_t size(const sphere_queries<Numbered>& q) { return q.centres.extent(0); }
  static KOKKOS_FUNCTION auto get(const sphere_queries<Numbered>& q, std::size_t i) {
    if constexpr (Numbered)
      return ArborX::attach(ArborX::intersects(ArborX::Sphere<3, float>{q.centres(i), q.radius}), int(i));
    else
      return ArborX::intersects(ArborX::Sphere<3, float>{q.centres(i), q.radius});
  }
};

namespace {

void within_case(const std::string& layout, int s, int repeat, int samples, double neighbours,
                 std::vector<record>& out) {
  const std::size_t n = std::size_t(1) << s;
  const within_set set = make_within_set(layout, s, neighbours);
  const auto q = to_device(set.queries), p = to_device(set.points);
  const float chord = chord_of(set.radius);
  Kokkos::View<int*, memory> indices("indices", 0), offsets("offsets", 0);
  const auto [median, best] = timed(
      [&] {
        const ArborX::BoundingVolumeHierarchy tree(space(), ArborX::Experimental::attach_indices(unit_vectors(p)));
        tree.query(space(), sphere_queries<false>{unit_vectors(q), chord}, index_out{}, indices, offsets);
      },
      repeat);
  std::vector<int> host_offsets(n + 1);
  Kokkos::deep_copy(Kokkos::View<int*, Kokkos::HostSpace>(host_offsets.data(), n + 1), offsets);
  const int wrong = check_counts(set.queries, set.points, set.radius,
                                 std::vector<std::int64_t>(host_offsets.begin(), host_offsets.end()),
                                 kernwerk::nearest_options{}, samples);
  std::ostringstream note;
  note << "indices, unsorted, no distances: " << double(host_offsets[n]) / double(n) << " neighbours a query; "
       << wrong << " wrong of " << samples;
  out.push_back({"within", layout, power(s) + " x 2^14", median, best, note.str()});

  Kokkos::View<int*, memory> counts("counts", n);
  const auto [count_median, count_best] = timed(
      [&] {
        Kokkos::deep_copy(space(), counts, 0);
        const ArborX::BoundingVolumeHierarchy tree(space(), ArborX::Experimental::attach_indices(unit_vectors(p)));
        tree.query(space(), sphere_queries<true>{unit_vectors(q), chord}, count_found{counts});
      },
      repeat);
  out.push_back({"count_within", layout, power(s) + " x 2^14", count_median, count_best, "atomic counts in a callback"});
}

void dbscan_case(const std::string& name, int s, int repeat, int samples, std::vector<record>& out) {
  const std::size_t n = std::size_t(1) << s;
  const dbscan_set set = make_dbscan_set(name, s);
  const auto rows = to_device(set.points);
  const bool sphere = set.metric == kernwerk::metric_kind::haversine;
  const float eps = sphere ? chord_of(set.eps) : float(set.eps);
  const auto parameters =
      ArborX::DBSCAN::Parameters().setImplementation(ArborX::DBSCAN::Implementation::FDBSCAN_DenseBox);
  Kokkos::View<int*, memory> labels("labels", n);
  const auto [median, best] = timed(
      [&] {
        if (sphere)
          ArborX::dbscan(space(), unit_vectors(rows), eps, int(set.min_samples), labels, parameters);
        else
          ArborX::dbscan(space(), planar(rows), eps, int(set.min_samples), labels, parameters);
      },
      repeat);
  std::vector<int> host_labels(n);
  Kokkos::deep_copy(Kokkos::View<int*, Kokkos::HostSpace>(host_labels.data(), n), labels);
  const std::set<int> clusters(host_labels.begin(), host_labels.end());
  const auto noise = std::count(host_labels.begin(), host_labels.end(), -1);
  kernwerk::nearest_options metric;
  metric.metric = set.metric;
  const int wrong = check_labels(set.points, set.eps, set.min_samples, host_labels, metric, samples, true);
  std::ostringstream note;
  note << "eps " << set.eps << ", min_samples " << set.min_samples << ": " << clusters.size() - (noise > 0)
       << " clusters, " << noise << " noise; " << wrong << " wrong of " << samples;
  out.push_back({"dbscan", name, power(s), median, best, note.str()});
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string machine = "unnamed", json, sizes = "20,24", sets = "within,moons,moons-scaled,places";
  int repeat = 3, samples = 16;
  double neighbours = 10.0;
  for (int k = 1; k + 1 < argc; k += 2) {
    const std::string flag = argv[k], value = argv[k + 1];
    if (flag == "--sizes") sizes = value;
    else if (flag == "--repeat") repeat = std::max(1, std::stoi(value));
    else if (flag == "--samples") samples = std::max(1, std::stoi(value));
    else if (flag == "--machine") machine = value;
    else if (flag == "--json") json = value;
    else if (flag == "--sets") sets = value;
    else if (flag == "--neighbours") {
      if (!(neighbours = neighbours_of(value))) return 2;
    }
    else {
      std::fprintf(stderr, "%s: unknown option\n", flag.c_str());
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "usage: kernwerk_peer_arborx_dbscan [--sizes 20,24] [--sets within,moons,moons-scaled,places] "
                         "[--repeat N] [--samples N] [--machine NAME] [--json FILE] [--neighbours N]\n");
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
          dbscan_case(name, s, repeat, samples, records);
      }
    }
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "kernwerk_peer_arborx_dbscan: %s\n", failure.what());
    return 1;
  }
  const std::string peer = "ArborX " + ArborX::version();
  for (const auto& r : records)
    std::printf("%-10s %-13s %-9s %-12s median %12.3f ms  %s\n", peer.c_str(), r.workload.c_str(), r.set.c_str(),
                r.size.c_str(), 1e3 * r.median, r.note.c_str());
  if (!json.empty()) {
    std::ofstream out(json);
    out << "{\n  \"benchmark\": \"dbscan\",\n  \"machine\": \"" << machine << "\",\n  \"execution_space\": \"peers\",\n"
        << "  \"peer_space\": \"" << space::name() << "\",\n  \"kokkos_version\": " << KOKKOS_VERSION
        << ",\n  \"repeat\": " << repeat << ",\n  \"results\": [\n";
    for (std::size_t k = 0; k < records.size(); ++k) {
      const auto& r = records[k];
      out << "    {\"workload\": \"" << r.workload << "\", \"set\": \"" << r.set << "\", \"size\": \"" << r.size
          << "\", \"peer\": \"" << peer << "\", \"median_seconds\": " << r.median << ", \"best_seconds\": " << r.best
          << ", \"note\": \"" << r.note << "\"}" << (k + 1 < records.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
    if (!out) {
      std::fprintf(stderr, "kernwerk_peer_arborx_dbscan: cannot write %s\n", json.c_str());
      return 1;
    }
  }
  return 0;
}
