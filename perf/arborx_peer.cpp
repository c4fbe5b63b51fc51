// The ArborX peer of the nearest-neighbour benchmark: ArborX 2.x's BVH on the layouts of
// perf/layouts.hpp, timed as kernwerk_bench_nearest times kernwerk (inputs already in the
// execution space's memory as float64 (lat, lon) radians; conversion to float32 unit vectors,
// BVH build and k-nearest query timed together), and its answers checked against the float64
// brute force (kernwerk/reference.hpp) on 256 observations. Built only with
// -DKERNWERK_PERF_ARBORX=ON, which finds ArborX with find_package; ArborX is never part of
// this repository.
//
//   kernwerk_peer_arborx [--sizes 20x14,24x14] [--layouts uniform,...|all] [--k 1,2,8,32]
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
#include <sstream>
#include <string>
#include <vector>

#include "kernwerk/reference.hpp"
#include "layouts.hpp"

namespace {

using space = Kokkos::DefaultExecutionSpace;
using memory = space::memory_space;
using point = ArborX::Point<3, float>;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
  return parts;
}

// (lat, lon) radians to float32 unit vectors.
struct to_unit_vectors {
  Kokkos::View<const double**, Kokkos::LayoutRight, memory> angles;
  Kokkos::View<point*, memory> points;
  KOKKOS_FUNCTION void operator()(int i) const {
    const double lat = angles(i, 0), lon = angles(i, 1);
    points(i) = point{float(Kokkos::cos(lat) * Kokkos::cos(lon)),
                      float(Kokkos::cos(lat) * Kokkos::sin(lon)), float(Kokkos::sin(lat))};
  }
};

struct nearest_queries {
  Kokkos::View<point*, memory> points;
  int k;
};

struct index_only {
  template <class Predicate, class Value, class Out>
  KOKKOS_FUNCTION void operator()(const Predicate&, const Value& value, const Out& out) const {
    out(int(value.index));
  }
};

struct record {
  std::string layout;
  std::size_t observations, references, k;
  double median, best;
  int wrong, wrong_distance;
};

}  // namespace

template <>
struct ArborX::AccessTraits<nearest_queries> {
  using memory_space = memory;
  static KOKKOS_FUNCTION std::size_t size(const nearest_queries& q) { return q.points.extent(0); }
  static KOKKOS_FUNCTION auto get(const nearest_queries& q, std::size_t i) {
    return ArborX::nearest(q.points(i), q.k);
  }
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string sizes = "20x14,24x14", machine = "unnamed", json, layout_list = "", k_list = "1,2,8,32";
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
    else if (flag == "--repeat") repeat = std::max(1, std::stoi(value));
    else if (flag == "--machine") machine = value;
    else if (flag == "--json") json = value;
    else {
      std::fprintf(stderr, "%s: unknown option\n", flag.c_str());
      return 2;
    }
  }
  std::vector<std::string> layout_names =
      layout_list.empty() ? kernwerk::layouts::names() : split(layout_list, ',');
  std::vector<record> records;
  const space exec;
  for (const auto& size : split(sizes, ',')) {
    const auto logs = split(size, 'x');
    const std::size_t n = std::size_t{1} << std::stoi(logs.at(0));
    const std::size_t m = std::size_t{1} << std::stoi(logs.at(1));
    for (const auto& layout : layout_names) {
      const auto sets = kernwerk::layouts::make(layout, n, m, 2026);
      if (sets.observations.empty()) {
        std::fprintf(stderr, "--layouts: unknown layout '%s'\n", layout.c_str());
        return 2;
      }
      using host_angles = Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                       Kokkos::MemoryUnmanaged>;
      Kokkos::View<double**, Kokkos::LayoutRight, memory> obs("obs", n, 2), ref("ref", m, 2);
      Kokkos::deep_copy(obs, host_angles(sets.observations.data(), n, 2));
      Kokkos::deep_copy(ref, host_angles(sets.references.data(), m, 2));
      for (const auto& k_text : split(k_list, ',')) {
        const int k = std::stoi(k_text);
        Kokkos::View<int*, memory> indices("indices", 0), offsets("offsets", 0);
        const auto run = [&] {
          Kokkos::View<point*, memory> ref_points(
              Kokkos::view_alloc(Kokkos::WithoutInitializing, "ref_points"), m);
          Kokkos::View<point*, memory> obs_points(
              Kokkos::view_alloc(Kokkos::WithoutInitializing, "obs_points"), n);
          Kokkos::parallel_for("peer::ref_vectors", Kokkos::RangePolicy<space>(exec, 0, m),
                               to_unit_vectors{ref, ref_points});
          Kokkos::parallel_for("peer::obs_vectors", Kokkos::RangePolicy<space>(exec, 0, n),
                               to_unit_vectors{obs, obs_points});
          ArborX::BoundingVolumeHierarchy bvh(exec, ArborX::Experimental::attach_indices(ref_points));
          bvh.query(exec, nearest_queries{obs_points, k}, index_only{}, indices, offsets);
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
        const kernwerk::reference::points o{sets.observations.data(), n, 2},
            r{sets.references.data(), m, 2};
        const kernwerk::nearest_options options;
        int wrong = 0, wrong_distance = 0;
        for (std::size_t s = 0; s < 256; ++s) {
          const std::size_t i = (s * 2654435761u) % n;
          const auto keys = kernwerk::reference::all_keys(o, i, r, options);
          const auto expected = kernwerk::reference::smallest_k(keys, k);
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
        records.push_back({layout, n, m, std::size_t(k), times[times.size() / 2], times.front(),
                           wrong, wrong_distance});
        std::printf("arborx-%d.%d %-10s %9zu x %-7zu k %-2d median %10.4f ms  best %10.4f ms  "
                    "wrong %d/256 (distance %d/256)\n",
                    ARBORX_VERSION_MAJOR, ARBORX_VERSION_MINOR, layout.c_str(), n, m, k,
                    1e3 * records.back().median, 1e3 * records.back().best, wrong, wrong_distance);
        std::fflush(stdout);
      }
    }
  }
  if (!json.empty()) {
    std::ofstream out(json);
    out << "{\n  \"benchmark\": \"nearest\",\n  \"machine\": \"" << machine
        << "\",\n  \"execution_space\": \"" << space::name() << "\",\n  \"kokkos_version\": "
        << KOKKOS_VERSION << ",\n  \"metric\": \"haversine (argmin by float32 chord)\",\n"
        << "  \"precision\": \"float32 unit vectors\",\n  \"repeat\": " << repeat
        << ",\n  \"note\": \"ArborX " << ARBORX_VERSION_MAJOR << "." << ARBORX_VERSION_MINOR
        << " BVH: float64 (lat, lon) in device memory, conversion, build and query timed\",\n"
        << "  \"results\": [\n";
    for (std::size_t q = 0; q < records.size(); ++q) {
      const auto& r = records[q];
      out << "    {\"layout\": \"" << r.layout << "\", \"k\": " << r.k << ", \"variant\": \"arborx-"
          << ARBORX_VERSION_MAJOR << "." << ARBORX_VERSION_MINOR << "-bvh\", \"observations\": "
          << r.observations << ", \"references\": " << r.references
          << ", \"median_seconds\": " << r.median << ", \"best_seconds\": " << r.best
          << ", \"pairs_per_second\": " << double(r.observations) * double(r.references) / r.median
          << ", \"wrong_of_256\": " << r.wrong << ", \"wrong_distance_of_256\": " << r.wrong_distance
          << "}" << (q + 1 < records.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
    if (!out) {
      std::fprintf(stderr, "kernwerk_peer_arborx: cannot write %s\n", json.c_str());
      return 1;
    }
  }
  return 0;
}
