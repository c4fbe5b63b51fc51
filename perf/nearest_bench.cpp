// Times kernwerk::nearest on uniform random points on the sphere, with the inputs already in
// the execution space's memory (transfers are not timed), and writes JSON records.
//
//   kernwerk_bench_nearest [--sizes 16x13,16x16,24x14] [--variants generic,tuned,indexed]
//                          [--repeat 5] [--machine NAME] [--json FILE]
//                          [--host-inputs 1|copy] [--budget BYTES] [--refs-per-cell X]
// --host-inputs 1 passes host Views: the copies are timed, and go through kernwerk's chunk
// pipeline (copies beside the computation; chunks also bound by --budget). --host-inputs copy
// times what a caller without it does: copy the sets in, compute, copy the results out.
// --refs-per-cell sets the indexed method's grid density (a tuning experiment).
// Sizes are log2(observations) x log2(references). Variants: generic and tuned are the brute
// force's implementations, indexed the indexed method. Each timed configuration is first
// spot-checked against the float64 brute force; a wrong answer stops the benchmark.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernwerk/error.hpp"
#include "kernwerk/nearest.hpp"
#include "kernwerk/reference.hpp"

namespace {

using namespace kernwerk;
using space = Kokkos::DefaultExecutionSpace;
using points_view = Kokkos::View<double**, Kokkos::LayoutRight, space::memory_space>;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
  return parts;
}

std::vector<double> uniform_sphere(std::size_t count, std::mt19937_64& random) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> values(2 * count);
  for (std::size_t i = 0; i < count; ++i) {
    values[2 * i] = std::asin(uniform(random));
    values[2 * i + 1] = M_PI * uniform(random);
  }
  return values;
}

points_view to_device(const std::vector<double>& values) {
  points_view device("points", values.size() / 2, 2);
  Kokkos::deep_copy(device, Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                         Kokkos::MemoryUnmanaged>(values.data(), values.size() / 2, 2));
  return device;
}

struct record {
  std::string variant;
  std::size_t observations, references;
  double median, best;
};

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string sizes = "16x13,16x16,24x14", variants = "generic,indexed", machine = "unnamed",
              json;
  int repeat = 5;
  enum { device_inputs, pipelined, copied } host_inputs = device_inputs;
  std::size_t budget = 0;
  for (int k = 1; k < argc; ++k) {
    const std::string flag = argv[k];
    if (k + 1 == argc) {
      std::fprintf(stderr, "%s: needs a value\n", flag.c_str());
      return 2;
    }
    const std::string value = argv[++k];
    if (flag == "--sizes") sizes = value;
    else if (flag == "--variants") variants = value;
    else if (flag == "--repeat") repeat = std::max(1, std::stoi(value));
    else if (flag == "--machine") machine = value;
    else if (flag == "--json") json = value;
    else if (flag == "--host-inputs") host_inputs = value == "1" ? pipelined : value == "copy" ? copied : device_inputs;
    else if (flag == "--budget") budget = std::stoull(value);
    else if (flag == "--refs-per-cell") kernwerk::impl::grid_policy::references_per_cell = std::stod(value);
    else {
      std::fprintf(stderr, "%s: unknown option\n", flag.c_str());
      return 2;
    }
  }

  std::vector<record> records;
  std::mt19937_64 random(2026);
  try {
    for (const auto& size : split(sizes, ',')) {
      const auto logs = split(size, 'x');
      if (logs.size() != 2) throw error("--sizes: '" + size + "' is not LOGOBSxLOGREF");
      const std::size_t n = std::size_t{1} << std::stoi(logs[0]);
      const std::size_t m = std::size_t{1} << std::stoi(logs[1]);
      const auto obs_host = uniform_sphere(n, random);
      const auto ref_host = uniform_sphere(m, random);
      const auto obs = to_device(obs_host);
      const auto ref = to_device(ref_host);
      Kokkos::View<std::int64_t*, space::memory_space> indices("indices", n);
      Kokkos::View<double*, space::memory_space> distances("distances", n);
      using host_points = Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                       Kokkos::MemoryUnmanaged>;
      const host_points obs_in_host(obs_host.data(), n, 2), ref_in_host(ref_host.data(), m, 2);
      Kokkos::View<std::int64_t*, Kokkos::HostSpace> indices_host("indices", n);
      Kokkos::View<double*, Kokkos::HostSpace> distances_host("distances", n);
      for (const auto& name : split(variants, ',')) {
        nearest_options options;
        if (name == "indexed") {
          options.method = method_kind::indexed;
        } else {
          options.method = method_kind::brute;
          options.implementation = parse_implementation(name, "--variants");
        }
        options.memory_budget = budget;
        const auto run = [&] {
          if (host_inputs == pipelined) {
            kernwerk::nearest(space(), obs_in_host, ref_in_host, indices_host, distances_host, options);
          } else if (host_inputs == copied) {  // what a caller does by hand: copy, compute, copy
            Kokkos::deep_copy(obs, obs_in_host);
            Kokkos::deep_copy(ref, ref_in_host);
            kernwerk::nearest(space(), obs, ref, indices, distances, options);
            Kokkos::deep_copy(indices_host, indices);
            Kokkos::deep_copy(distances_host, distances);
          } else {
            kernwerk::nearest(space(), obs, ref, indices, distances, options);
          }
        };
        run();  // warm-up
        // Spot-check before timing.
        if (host_inputs == device_inputs) {
          Kokkos::deep_copy(indices_host, indices);
          Kokkos::deep_copy(distances_host, distances);
        }
        const auto& idx = indices_host;
        const auto& dist = distances_host;
        const reference::points o{obs_host.data(), n, 2}, r{ref_host.data(), m, 2};
        for (std::size_t s = 0; s < 64; ++s) {
          const std::size_t i = (s * 2654435761u) % n;
          const auto problem = reference::check_one(o, i, r, idx(i), dist(i), options);
          if (!problem.empty()) throw error(name + " " + size + ": " + problem);
        }
        std::vector<double> times;
        for (int k = 0; k < repeat; ++k) {
          space().fence();
          const auto start = std::chrono::steady_clock::now();
          run();
          space().fence();
          times.push_back(
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        std::sort(times.begin(), times.end());
        std::string label = name;
        if (host_inputs == pipelined) label += " (host inputs)";
        if (host_inputs == copied) label += " (host inputs, copy then compute)";
        if (budget) label += " budget " + std::to_string(budget) + " bytes";
        records.push_back({label, n, m, times[times.size() / 2], times.front()});
        const auto& last = records.back();
        std::printf("%-8s %-10s %9zu x %-6zu median %10.4f ms  best %10.4f ms  %9.3g pairs/s\n",
                    space::name(), records.back().variant.c_str(), n, m, 1e3 * last.median, 1e3 * last.best,
                    double(n) * double(m) / last.median);
      }
    }
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "kernwerk_bench_nearest: %s\n", failure.what());
    return 1;
  }

  if (!json.empty()) {
    std::ofstream out(json);
    out << "{\n  \"benchmark\": \"nearest\",\n  \"machine\": \"" << machine
        << "\",\n  \"execution_space\": \"" << space::name() << "\",\n  \"concurrency\": "
        << space().concurrency() << ",\n  \"kokkos_version\": " << KOKKOS_VERSION
        << ",\n  \"metric\": \"haversine\",\n  \"precision\": \"float64 inputs\",\n"
        << "  \"repeat\": " << repeat << ",\n  \"results\": [\n";
    for (std::size_t k = 0; k < records.size(); ++k) {
      const auto& r = records[k];
      out << "    {\"variant\": \"" << r.variant << "\", \"observations\": "
          << r.observations << ", \"references\": " << r.references
          << ", \"median_seconds\": " << r.median << ", \"best_seconds\": " << r.best
          << ", \"pairs_per_second\": " << double(r.observations) * double(r.references) / r.median
          << "}" << (k + 1 < records.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
    if (!out) {
      std::fprintf(stderr, "kernwerk_bench_nearest: cannot write %s\n", json.c_str());
      return 1;
    }
  }
  return 0;
}
