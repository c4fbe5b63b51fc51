// The ArborX peer of the nearest-neighbour benchmark: ArborX 2.x's BVH on the layouts of
// perf/layouts.hpp, timed as kernwerk_bench_nearest times kernwerk (inputs already in the
// execution space's memory as float64 rows; conversion to ArborX's points, BVH build and
// k-nearest query timed together), and its answers checked against the float64 brute force
// (kernwerk/reference.hpp) on 256 observations. On the sphere the points are float32 unit
// vectors ((lat, lon) radians in); with --metric euclidean, ArborX's Point<D, float> and
// Point<D, double> of each --dimension (the layouts of layouts::euclidean_names()). Built only
// with -DKERNWERK_PERF_ARBORX=ON, which finds ArborX with find_package; ArborX is never part
// of this repository.
//
//   kernwerk_peer_arborx [--sizes 20x14,24x14] [--layouts uniform,...|all] [--k 1,2,8,32]
//                        [--metric haversine|euclidean] [--dimension 2,3]
//                        [--repeat 5] [--machine NAME] [--json FILE]
//
// Each record counts the sampled observations whose k answers are not exactly the reference's
// (wrong_of_256: another index at some rank, ties to the smallest index as kernwerk answers)
// and those whose k distances differ from the reference's (wrong_distance_of_256: a farther
// point returned, not just another one of equal distance).
#include <ArborX.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include "kernwerk/reference.hpp"
#include "layouts.hpp"
#include "text_lists.hpp"

namespace {

using space = Kokkos::DefaultExecutionSpace;
using memory = space::memory_space;
using rows = Kokkos::View<double**, Kokkos::LayoutRight, memory>;

using kernwerk_perf::split;

// (lat, lon) radians to float32 unit vectors.
struct to_unit_vectors {
  rows angles;
  Kokkos::View<ArborX::Point<3, float>*, memory> points;
  KOKKOS_FUNCTION void operator()(int i) const {
    const double lat = angles(i, 0), lon = angles(i, 1);
    points(i) = {float(Kokkos::cos(lat) * Kokkos::cos(lon)), float(Kokkos::cos(lat) * Kokkos::sin(lon)),
                 float(Kokkos::sin(lat))};
  }
};

// Euclidean rows to ArborX's points of their coordinate type.
template <int D, class T>
struct to_points {
  rows coordinates;
  Kokkos::View<ArborX::Point<D, T>*, memory> points;
  KOKKOS_FUNCTION void operator()(int i) const {
    for (int d = 0; d < D; ++d) points(i)[d] = T(coordinates(i, d));
  }
};

template <class Point>
struct nearest_queries {
  Kokkos::View<Point*, memory> points;
  int k;
};

struct index_only {
  template <class Predicate, class Value, class Out>
  KOKKOS_FUNCTION void operator()(const Predicate&, const Value& value, const Out& out) const {
    out(int(value.index));
  }
};

struct record {
  std::string layout, variant;
  std::size_t dimension, observations, references, k;
  double median, best;
  int wrong, wrong_distance;
};

}  // namespace

template <class Point>
struct ArborX::AccessTraits<nearest_queries<Point>> {
  using memory_space = memory;
  static KOKKOS_FUNCTION std::size_t size(const nearest_queries<Point>& q) { return q.points.extent(0); }
  static KOKKOS_FUNCTION auto get(const nearest_queries<Point>& q, std::size_t i) {
    return ArborX::nearest(q.points(i), q.k);
  }
};

namespace {

// One layout, size and k: the conversion of both sets to ArborX's Point<D, T> by Convert, the
// build and the query, timed together; then 256 observations' answers against the float64 brute
// force.
template <int D, class T, class Convert>
record time_arborx(const space& exec, const std::string& layout, const rows& obs, const rows& ref,
                   const kernwerk::layouts::point_pair& sets, int k, int repeat,
                   const kernwerk::nearest_options& options) {
  using Point = ArborX::Point<D, T>;
  const std::size_t n = obs.extent(0), m = ref.extent(0), dimension = obs.extent(1);
  Kokkos::View<int*, memory> indices("indices", 0), offsets("offsets", 0);
  const auto run = [&] {
    Kokkos::View<Point*, memory> ref_points(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ref_points"), m);
    Kokkos::View<Point*, memory> obs_points(Kokkos::view_alloc(Kokkos::WithoutInitializing, "obs_points"), n);
    Kokkos::parallel_for("peer::ref_points", Kokkos::RangePolicy<space>(exec, 0, m),
                         Convert{ref, ref_points});
    Kokkos::parallel_for("peer::obs_points", Kokkos::RangePolicy<space>(exec, 0, n),
                         Convert{obs, obs_points});
    ArborX::BoundingVolumeHierarchy bvh(exec, ArborX::Experimental::attach_indices(ref_points));
    bvh.query(exec, nearest_queries<Point>{obs_points, k}, index_only{}, indices, offsets);
  };
  run();
  std::vector<double> times;
  for (int t = 0; t < repeat; ++t) {
    exec.fence();
    const auto start = std::chrono::steady_clock::now();
    run();
    exec.fence();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  const auto indices_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), indices);
  const auto offsets_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offsets);
  const kernwerk::reference::points o{sets.observations.data(), n, dimension},
      r{sets.references.data(), m, dimension};
  int wrong = 0, wrong_distance = 0;
  for (std::size_t s = 0; s < 256; ++s) {
    const std::size_t i = (s * 2654435761u) % n;
    const auto keys = kernwerk::reference::all_keys(o, i, r, options);
    const auto expected = kernwerk::reference::smallest_k(keys, std::size_t(k));
    std::vector<kernwerk::reference::neighbour> got;
    for (int p = offsets_host(i); p < offsets_host(i + 1); ++p)
      got.push_back({indices_host(p), keys[indices_host(p)]});
    std::sort(got.begin(), got.end(), [](const auto& a, const auto& b) {
      return a.key < b.key || (a.key == b.key && a.index < b.index);
    });
    bool same_index = got.size() == expected.size(), same_key = same_index;
    for (std::size_t q = 0; q < got.size() && q < expected.size(); ++q) {
      same_index = same_index && got[q].index == expected[q].index;
      same_key = same_key && got[q].key == expected[q].key;
    }
    wrong += same_index ? 0 : 1;
    wrong_distance += same_key ? 0 : 1;
  }
  // Euclidean variants are named by their points' precision (the sphere's are float32 alone).
  const char* precision = options.metric != kernwerk::metric_kind::euclidean ? ""
                          : std::is_same_v<T, float>                         ? "-f32"
                                                                             : "-f64";
  const std::string variant = "arborx-" + std::to_string(ARBORX_VERSION_MAJOR) + "." +
                              std::to_string(ARBORX_VERSION_MINOR) + "-bvh" + precision;
  return {layout, variant, dimension, n, m, std::size_t(k), times[times.size() / 2], times.front(),
          wrong, wrong_distance};
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string sizes = "20x14,24x14", machine = "unnamed", json, layout_list = "", k_list = "1,2,8,32",
              metric_text = "haversine", dimension_list = "2,3";
  int repeat = 5;
  for (int a = 1; a < argc; a += 2) {
    const std::string flag = argv[a];
    if (a + 1 == argc) {
      std::fprintf(stderr, "%s: needs a value\n", flag.c_str());
      return 2;
    }
    const std::string value = argv[a + 1];
    if (flag == "--sizes") sizes = value;
    else if (flag == "--layouts") layout_list = value == "all" ? "" : value;
    else if (flag == "--k") k_list = value;
    else if (flag == "--metric") metric_text = value;
    else if (flag == "--dimension") dimension_list = value;
    else if (flag == "--repeat") repeat = std::max(1, std::stoi(value));
    else if (flag == "--machine") machine = value;
    else if (flag == "--json") json = value;
    else {
      std::fprintf(stderr, "%s: unknown option\n", flag.c_str());
      return 2;
    }
  }
  kernwerk::nearest_options options;
  if (metric_text == "euclidean") options.metric = kernwerk::metric_kind::euclidean;
  else if (metric_text != "haversine") {
    std::fprintf(stderr, "--metric: haversine or euclidean, not '%s'\n", metric_text.c_str());
    return 2;
  }
  const bool euclidean = options.metric == kernwerk::metric_kind::euclidean;
  // (lat, lon) on the sphere
  const auto dimensions =
      euclidean ? kernwerk::layouts::euclidean_dimensions(dimension_list) : std::vector<std::size_t>{2};
  if (dimensions.empty()) {
    std::fprintf(stderr, "--dimension: 2 or 3, or both as 2,3; not '%s'\n", dimension_list.c_str());
    return 2;
  }
  std::vector<std::string> layout_names = split(layout_list, ',');
  if (layout_list.empty())
    layout_names = euclidean ? kernwerk::layouts::euclidean_names() : kernwerk::layouts::names();
  std::vector<record> records;
  // The records so far, written after each layout, size and k (a run cut short keeps them),
  // through a temporary file renamed over the last.
  const auto save = [&] {
    if (json.empty()) return true;
    const std::string part = json + ".part";
    {
      std::ofstream out(part);
      out << "{\n  \"benchmark\": \"nearest\",\n  \"machine\": \"" << machine
          << "\",\n  \"execution_space\": \"" << space::name()
          << "\",\n  \"kokkos_version\": " << KOKKOS_VERSION << ",\n  \"metric\": \""
          << (euclidean ? "euclidean" : "haversine (argmin by float32 chord)") << "\",\n"
          << "  \"precision\": \""
          << (euclidean ? "float32 (-f32) and float64 (-f64) points" : "float32 unit vectors")
          << "\",\n  \"repeat\": " << repeat << ",\n  \"note\": \"ArborX " << ARBORX_VERSION_MAJOR << "."
          << ARBORX_VERSION_MINOR
          << " BVH: float64 rows in device memory, conversion, build and query timed\",\n"
          << "  \"results\": [\n";
      for (std::size_t q = 0; q < records.size(); ++q) {
        const auto& r = records[q];
        out << "    {\"layout\": \"" << r.layout << "\", ";
        if (euclidean) out << "\"dimension\": " << r.dimension << ", ";
        out << "\"k\": " << r.k << ", \"variant\": \"" << r.variant
            << "\", \"observations\": " << r.observations << ", \"references\": " << r.references
            << ", \"median_seconds\": " << r.median << ", \"best_seconds\": " << r.best
            << ", \"pairs_per_second\": " << double(r.observations) * double(r.references) / r.median
            << ", \"wrong_of_256\": " << r.wrong << ", \"wrong_distance_of_256\": " << r.wrong_distance << "}"
            << (q + 1 < records.size() ? "," : "") << "\n";
      }
      out << "  ]\n}\n";
      if (!out) return false;
    }
    return std::rename(part.c_str(), json.c_str()) == 0;
  };
  const space exec;
  for (const auto& size : split(sizes, ',')) {
    const auto logs = split(size, 'x');
    const std::size_t n = std::size_t{1} << std::stoi(logs.at(0));
    const std::size_t m = std::size_t{1} << std::stoi(logs.at(1));
    for (const std::size_t dimension : dimensions) {
      for (const auto& layout : layout_names) {
        const auto sets = euclidean ? kernwerk::layouts::make_euclidean(layout, n, m, int(dimension), 2026)
                                    : kernwerk::layouts::make(layout, n, m, 2026);
        if (sets.observations.empty()) {
          std::fprintf(stderr, "--layouts: unknown layout '%s'\n", layout.c_str());
          return 2;
        }
        using host_rows =
            Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
        rows obs("obs", n, dimension), ref("ref", m, dimension);
        Kokkos::deep_copy(obs, host_rows(sets.observations.data(), n, dimension));
        Kokkos::deep_copy(ref, host_rows(sets.references.data(), m, dimension));
        for (const auto& k_text : split(k_list, ',')) {
          const int k = std::stoi(k_text);
          const auto add = [&](const record& r) {
            records.push_back(r);
            const std::string shown = euclidean ? layout + " " + std::to_string(dimension) + "-D" : layout;
            std::printf("%-16s %-13s %9zu x %-7zu k %-2d median %10.4f ms  best %10.4f ms  "
                        "wrong %d/256 (distance %d/256)\n",
                        r.variant.c_str(), shown.c_str(), n, m, k, 1e3 * r.median, 1e3 * r.best, r.wrong,
                        r.wrong_distance);
            std::fflush(stdout);
          };
          if (!euclidean) {
            add(time_arborx<3, float, to_unit_vectors>(exec, layout, obs, ref, sets, k, repeat, options));
          } else if (dimension == 2) {
            add(time_arborx<2, float, to_points<2, float>>(exec, layout, obs, ref, sets, k, repeat, options));
            add(time_arborx<2, double, to_points<2, double>>(exec, layout, obs, ref, sets, k, repeat, options));
          } else {
            add(time_arborx<3, float, to_points<3, float>>(exec, layout, obs, ref, sets, k, repeat, options));
            add(time_arborx<3, double, to_points<3, double>>(exec, layout, obs, ref, sets, k, repeat, options));
          }
          if (!save()) {
            std::fprintf(stderr, "kernwerk_peer_arborx: cannot write %s\n", json.c_str());
            return 1;
          }
        }
      }
    }
  }
  return 0;
}
