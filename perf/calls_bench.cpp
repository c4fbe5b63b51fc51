// Repeated small calls, the way a Fortran code calls kernwerk::nearest every time step: the same
// arrays, one call after another, with the points in the caller's (pageable) host memory and,
// beside them, already in the execution space's memory. Every call is timed on its own
// (fenced), so that a slow call among fast ones shows; the record keeps them all.
//
//   kernwerk_bench_calls [--sizes 171075x7184,7184x171075,65536x8192] [--methods brute,indexed]
//                        [--layout uniform] [--k 1] [--calls 9] [--machine NAME] [--json FILE]
//                        [--trace MICROSECONDS]
// Sizes are observations x references; points are in degrees. Where the execution space's
// memory is not the host's, the copy rates of its link are measured beside (page-locked and
// pageable host memory, both directions, over a call's bytes), and each host-memory call is
// set against its target: 1.5 x (the median device-resident call + the call's bytes at the
// page-locked rates). --trace T prints, for every call, each stretch of host
// time longer than T microseconds between two Kokkos events (kernels, copies, allocations,
// fences), with the events that bound it: where a slow call spends its time.
// Every method and input kind is checked first on 64 observations against the float64 brute
// force, outputs poisoned before.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/staging/traits.hpp"
#include "kernwerk/nearest.hpp"
#include "kernwerk/reference.hpp"
#include "layouts.hpp"
#include "text_lists.hpp"

namespace {

using namespace kernwerk;
using space = Kokkos::DefaultExecutionSpace;
using clock_type = std::chrono::steady_clock;
constexpr bool separate_memory =
    !Kokkos::SpaceAccessibility<Kokkos::HostSpace, space::memory_space>::accessible;

using kernwerk_perf::split;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// Host timestamps of Kokkos' events (through its tools interface), kept while `recording`.
namespace trace {
struct event {
  clock_type::time_point at;
  std::string what;
};
std::vector<event> events;
bool recording = false;
void note(const std::string& what) {
  if (recording) events.push_back({clock_type::now(), what});
}
void install() {
  namespace tools = Kokkos::Tools::Experimental;
  tools::set_begin_parallel_for_callback(
      [](const char* name, uint32_t, uint64_t*) { note(std::string("for ") + name); });
  tools::set_end_parallel_for_callback([](uint64_t) { note("for end"); });
  tools::set_begin_parallel_reduce_callback(
      [](const char* name, uint32_t, uint64_t*) { note(std::string("reduce ") + name); });
  tools::set_end_parallel_reduce_callback([](uint64_t) { note("reduce end"); });
  tools::set_begin_parallel_scan_callback(
      [](const char* name, uint32_t, uint64_t*) { note(std::string("scan ") + name); });
  tools::set_end_parallel_scan_callback([](uint64_t) { note("scan end"); });
  tools::set_begin_fence_callback(
      [](const char* name, uint32_t, uint64_t*) { note(std::string("fence ") + name); });
  tools::set_end_fence_callback([](uint64_t) { note("fence end"); });
  tools::set_begin_deep_copy_callback(
      [](Kokkos::Tools::SpaceHandle to, const char* to_name, const void*,
         Kokkos::Tools::SpaceHandle from, const char* from_name, const void*, uint64_t bytes) {
        note(std::string("copy ") + from.name + " -> " + to.name + " " + std::to_string(bytes) +
             " B (" + from_name + " -> " + to_name + ")");
      });
  tools::set_end_deep_copy_callback([] { note("copy end"); });
  tools::set_allocate_data_callback(
      [](Kokkos::Tools::SpaceHandle where, const char* name, const void*, uint64_t bytes) {
        note(std::string("allocate ") + where.name + " " + name + " " + std::to_string(bytes) + " B");
      });
  tools::set_deallocate_data_callback(
      [](Kokkos::Tools::SpaceHandle where, const char* name, const void*, uint64_t bytes) {
        note(std::string("free ") + where.name + " " + name + " " + std::to_string(bytes) + " B");
      });
}
// The stretches longer than `threshold` seconds between consecutive events of [start, end].
void print_gaps(clock_type::time_point start, clock_type::time_point end, double threshold) {
  std::vector<event> all{{start, "call"}};
  all.insert(all.end(), events.begin(), events.end());
  all.push_back({end, "return"});
  for (std::size_t e = 1; e < all.size(); ++e) {
    const double gap = std::chrono::duration<double>(all[e].at - all[e - 1].at).count();
    if (gap > threshold)
      std::printf("      %8.3f ms  after [%s]  before [%s]\n", 1e3 * gap, all[e - 1].what.c_str(),
                  all[e].what.c_str());
  }
  events.clear();
}
}  // namespace trace

// Seconds a copy of `bytes` between host memory of kind Host and the execution space takes
// (best of 5), in each direction.
template <class Host>
std::pair<double, double> copy_seconds(std::size_t bytes) {
  Kokkos::View<char*, Host> host(Kokkos::view_alloc(Kokkos::WithoutInitializing, "host"), bytes);
  Kokkos::View<char*, space::memory_space> device(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "device"), bytes);
  Kokkos::deep_copy(host, char(1));
  double in = 1e30, out = 1e30;
  for (int t = 0; t < 5; ++t) {
    auto start = clock_type::now();
    Kokkos::deep_copy(device, host);
    space().fence();
    in = std::min(in, seconds_since(start));
    start = clock_type::now();
    Kokkos::deep_copy(host, device);
    space().fence();
    out = std::min(out, seconds_since(start));
  }
  return {in, out};
}

struct record {
  std::string method, inputs;
  std::size_t observations, references, k;
  std::vector<double> calls;
  double median, best, target;  // target: 0 where none applies
};

template <class T>
using host_matrix = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
template <class T>
using device_matrix = Kokkos::View<T**, Kokkos::LayoutRight, space::memory_space>;

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string sizes = "171075x7184,7184x171075,65536x8192", methods = "brute,indexed",
              layout = "uniform", machine = "unnamed", json;
  std::size_t k = 1;
  int calls = 9;
  double trace_threshold = -1;
  for (int a = 1; a < argc; ++a) {
    const std::string flag = argv[a];
    if (a + 1 == argc) {
      std::fprintf(stderr, "%s: needs a value\n", flag.c_str());
      return 2;
    }
    const std::string value = argv[++a];
    if (flag == "--sizes") sizes = value;
    else if (flag == "--methods") methods = value;
    else if (flag == "--layout") layout = value;
    else if (flag == "--k") k = std::stoul(value);
    else if (flag == "--calls") calls = std::max(1, std::stoi(value));
    else if (flag == "--machine") machine = value;
    else if (flag == "--json") json = value;
    else if (flag == "--trace") trace_threshold = 1e-6 * std::stod(value);
    else {
      std::fprintf(stderr, "%s: unknown option\n", flag.c_str());
      return 2;
    }
  }
  if (trace_threshold >= 0) trace::install();

  std::vector<record> records;
  std::vector<std::string> links;
  try {
    for (const auto& size : split(sizes, ',')) {
      const auto counts = split(size, 'x');
      if (counts.size() != 2) throw error("--sizes: '" + size + "' is not OBSxREF");
      const std::size_t n = std::stoul(counts[0]), m = std::stoul(counts[1]);
      auto sets = layouts::make(layout, n, m, 2026);
      if (sets.observations.empty()) throw error("--layout: unknown layout '" + layout + "'");
      for (auto* set : {&sets.observations, &sets.references})
        for (auto& value : *set) value *= 180 / M_PI;
      // The caller's arrays: plain pageable host memory, as a Fortran code holds them.
      std::vector<std::int64_t> index_values(n * k);
      std::vector<double> distance_values(n * k);
      const host_matrix<const double> obs_host(sets.observations.data(), n, 2),
          ref_host(sets.references.data(), m, 2);
      const host_matrix<std::int64_t> indices_host(index_values.data(), n, k);
      const host_matrix<double> distances_host(distance_values.data(), n, k);
      device_matrix<double> obs_device("obs", n, 2), ref_device("ref", m, 2);
      device_matrix<std::int64_t> indices_device("indices", n, k);
      device_matrix<double> distances_device("distances", n, k);
      Kokkos::deep_copy(obs_device, obs_host);
      Kokkos::deep_copy(ref_device, ref_host);

      // The link's rates over one call's bytes in and out.
      const std::size_t bytes_in = (n + m) * 2 * sizeof(double);
      const std::size_t bytes_out = n * k * (sizeof(std::int64_t) + sizeof(double));
      double transfer = 0;
      if constexpr (separate_memory) {
        using pinned = impl::staging_memory<space>::type;
        const double pinned_in = copy_seconds<pinned>(bytes_in).first,
                     pinned_out = copy_seconds<pinned>(bytes_out).second,
                     pageable_in = copy_seconds<Kokkos::HostSpace>(bytes_in).first,
                     pageable_out = copy_seconds<Kokkos::HostSpace>(bytes_out).second;
        transfer = pinned_in + pinned_out;
        char line[400];
        std::snprintf(line, sizeof line,
                      "%zu x %zu: %zu B in, %zu B out; page-locked %.1f GB/s in, %.1f GB/s out; "
                      "pageable %.1f GB/s in, %.1f GB/s out",
                      n, m, bytes_in, bytes_out, 1e-9 * bytes_in / pinned_in,
                      1e-9 * bytes_out / pinned_out, 1e-9 * bytes_in / pageable_in,
                      1e-9 * bytes_out / pageable_out);
        links.push_back(line);
        std::printf("link %s\n", line);
      }

      for (const auto& method : split(methods, ',')) {
        nearest_options options;
        options.units = angle_unit::degrees;
        options.method = method == "indexed" ? method_kind::indexed
                         : method == "brute" ? method_kind::brute
                         : method == "auto"  ? method_kind::automatic
                                             : throw error("--methods: unknown method '" + method + "'");
        double device_median = 0;
        for (const bool from_host : {false, true}) {
          if (from_host == false && !separate_memory) continue;  // one memory: one kind
          const auto call = [&] {
            if (from_host)
              kernwerk::nearest(space(), obs_host, ref_host, indices_host, distances_host, options);
            else
              kernwerk::nearest(space(), obs_device, ref_device, indices_device, distances_device,
                                options);
          };
          // Checked first, outputs poisoned.
          std::fill(index_values.begin(), index_values.end(), -1);
          std::fill(distance_values.begin(), distance_values.end(), -1.0);
          Kokkos::deep_copy(indices_device, indices_host);
          Kokkos::deep_copy(distances_device, distances_host);
          call();
          if (!from_host) {
            Kokkos::deep_copy(indices_host, indices_device);
            Kokkos::deep_copy(distances_host, distances_device);
          }
          const reference::points o{sets.observations.data(), n, 2}, r{sets.references.data(), m, 2};
          for (std::size_t s = 0; s < 64; ++s) {
            const std::size_t i = (s * 2654435761u) % n;
            const auto problem = reference::check_k(o, i, r, &indices_host(i, 0),
                                                    &distances_host(i, 0), k, options);
            if (!problem.empty()) throw error(size + " " + method + ": " + problem);
          }
          record result{method, from_host ? "host" : "device", n, m, k, {}, 0, 0, 0};
          const bool traced = trace_threshold >= 0;
          for (int c = 0; c < calls; ++c) {
            space().fence();
            trace::recording = traced;
            const auto start = clock_type::now();
            call();
            space().fence();
            const auto end = clock_type::now();
            trace::recording = false;
            result.calls.push_back(std::chrono::duration<double>(end - start).count());
            if (traced) {
              std::printf("    %s %s from %s, call %d: %.3f ms\n", size.c_str(), method.c_str(),
                          result.inputs.c_str(), c, 1e3 * result.calls.back());
              trace::print_gaps(start, end, trace_threshold);
            }
          }
          auto sorted = result.calls;
          std::sort(sorted.begin(), sorted.end());
          result.median = sorted[sorted.size() / 2];
          result.best = sorted.front();
          if (!from_host) device_median = result.median;
          if (from_host && separate_memory) result.target = 1.5 * (device_median + transfer);
          std::printf("%-8s %9zu x %-7zu %-8s from %-6s median %8.3f ms  best %8.3f ms  worst %8.3f ms",
                      space::name(), n, m, method.c_str(), result.inputs.c_str(),
                      1e3 * result.median, 1e3 * result.best, 1e3 * sorted.back());
          if (result.target > 0) std::printf("  target %.3f ms", 1e3 * result.target);
          std::printf("\n");
          std::fflush(stdout);
          records.push_back(result);
        }
      }
    }
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "kernwerk_bench_calls: %s\n", failure.what());
    return 1;
  }

  if (!json.empty()) {
    std::ofstream out(json);
    out << "{\n  \"benchmark\": \"nearest_calls\",\n  \"machine\": \"" << machine
        << "\",\n  \"execution_space\": \"" << space::name() << "\",\n  \"concurrency\": "
        << space().concurrency() << ",\n  \"kokkos_version\": " << KOKKOS_VERSION
        << ",\n  \"metric\": \"haversine\",\n  \"units\": \"degrees\",\n  \"layout\": \"" << layout
        << "\",\n  \"links\": [";
    for (std::size_t l = 0; l < links.size(); ++l)
      out << (l ? ", " : "") << "\"" << links[l] << "\"";
    out << "],\n  \"results\": [\n";
    for (std::size_t r = 0; r < records.size(); ++r) {
      const auto& x = records[r];
      out << "    {\"method\": \"" << x.method << "\", \"inputs\": \"" << x.inputs
          << "\", \"observations\": " << x.observations << ", \"references\": " << x.references
          << ", \"k\": " << x.k << ", \"call_seconds\": [";
      for (std::size_t c = 0; c < x.calls.size(); ++c) out << (c ? ", " : "") << x.calls[c];
      out << "], \"median_seconds\": " << x.median << ", \"best_seconds\": " << x.best;
      if (x.target > 0) out << ", \"target_seconds\": " << x.target;
      out << "}" << (r + 1 < records.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
    if (!out) {
      std::fprintf(stderr, "kernwerk_bench_calls: cannot write %s\n", json.c_str());
      return 1;
    }
  }
  return 0;
}
