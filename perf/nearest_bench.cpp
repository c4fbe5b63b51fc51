// Times kernwerk::nearest with the inputs already in the execution space's memory (transfers
// are not timed), on point layouts users bring (perf/layouts.hpp), and writes JSON records.
//
//   kernwerk_bench_nearest [--sizes 16x13,16x16,24x14] [--variants generic,tuned,indexed]
//                          [--layouts uniform,...|all] [--k 1,2,8,32] [--max-brute-pairs L]
//                          [--metric haversine|euclidean] [--dimension 2,3]
//                          [--repeat 5] [--machine NAME] [--json FILE]
//                          [--host-inputs 1|copy] [--budget BYTES] [--leaf-size B]
//                          [--small-build M] [--recycle 0|1]
//                          [--order-per-thread N] [--order-min-references M] [--fine-order-min-k K]
//                          [--grid-occupancy F] [--grid-per-cell R] [--grid-shells S]
//                          [--grid-block-first 0|1] [--scan-waves W]
//                          [--kth-stride S] [--host-simd 0|1|2] [--host-windows 0|1]
//                          [--pipeline two-phase|chunked] [--pipeline-chunks N]
// Sizes are log2(observations) x log2(references), each side a value or values joined by '/'
// (10/16/24x7/13/20: a sweep of every pair); --max-brute-pairs L leaves the brute force's
// variants out where there are more than 2^L pairs. Variants: generic and tuned are the brute
// force's implementations, brute the brute force as `auto` would run it, indexed the indexed
// method (index built and queried in each call), auto the default choice, index a
// kernwerk::spatial_index built once before the timed runs (its queries timed; no budget),
// build a kernwerk::spatial_index built (its construction timed, the checks' queries not).
// --host-inputs 1 passes host Views: the copies are timed, and go through kernwerk's chunk
// pipeline (copies beside the computation; chunks also bound by --budget); --pipeline chunked
// runs the one-phase pipeline where the two-phase one would, --pipeline-chunks N cuts the
// observations into N chunks (impl::pipeline_policy).
// --host-inputs copy times what a caller without it does: copy the sets in, compute, copy the
// results out.
// Tuning experiments of the indexed method: --leaf-size sets its references per leaf,
// --small-build the most references whose build is small: two one-block launches on a GPU,
// the calling thread on a host space (bvh_policy; -1 the space's own), --recycle 0 allocates
// every index's memory anew (impl::recycle_policy),
// --order-per-thread the observations per thread from which it orders them, --order-min-references
// the references from which a host space orders them, --fine-order-min-k the k from which a
// device sorts them by fine Morton code (nearest_tuning),
// --grid-occupancy the grid's min_occupancy (grid_policy; 1e30 leaves the grid out),
// --grid-per-cell its references per cell, --grid-shells the shells a search visits in it,
// --grid-block-first 0 the whole first shell at once for k = 1 too.
// Of the GPU tuned brute force: --scan-waves the waves of resident blocks the references are
// split over when the observations fill fewer, --kth-stride the stride of the references in its
// first scan for k = 2 to 8 (gpu_impl::scan_policy). Of the host's: --host-simd the widest
// vector path it may take (0 portable, 1 AVX2, 2 AVX-512; host::limit_simd_width), --host-windows 0
// every scan from afar (host_impl::window_policy).
// --metric euclidean times the Euclidean metric on the layouts of layouts::euclidean_names() in
// each --dimension's coordinates (default 2,3) instead of the sphere's layouts (no tuned scan
// covers it: its brute force is the generic one).
// Each timed configuration is first spot-checked against the float64 brute force on 64
// observations (outputs poisoned before); a wrong answer stops the benchmark. The timed runs
// of one layout, size and k go round the variants in turn (median and best of --repeat each).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernwerk/error.hpp"
#include "kernwerk/nearest.hpp"
#include "kernwerk/reference.hpp"
#include "kernwerk/spatial_index.hpp"
#if KERNWERK_ENABLE_HOST_TUNED
#include "kernwerk/host/sphere_scan.hpp"
#endif
#include "layouts.hpp"
#include "text_lists.hpp"

namespace {

using namespace kernwerk;
using space = Kokkos::DefaultExecutionSpace;
using points_view = Kokkos::View<double**, Kokkos::LayoutRight, space::memory_space>;

using kernwerk_perf::split;

points_view to_device(const std::vector<double>& values, std::size_t dimension) {
  points_view device("points", values.size() / dimension, dimension);
  Kokkos::deep_copy(device, Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                         Kokkos::MemoryUnmanaged>(values.data(), values.size() / dimension,
                                                                  dimension));
  return device;
}

struct record {
  std::string layout, variant;
  std::size_t dimension, observations, references, k;
  double median, best;
};

template <class T>
using matrix = Kokkos::View<T**, Kokkos::LayoutRight, space::memory_space>;

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string sizes = "16x13,16x16,24x14", variants = "generic,indexed", machine = "unnamed",
              json, layout_list = "uniform", k_list = "1";
  int repeat = 5;
  enum { device_inputs, pipelined, copied } host_inputs = device_inputs;
  std::size_t budget = 0;
  int max_brute_pairs = 0;  // log2; 0: no limit
  std::string metric_text = "haversine", dimension_list = "2,3";
  metric_kind metric = metric_kind::haversine;
  kernwerk::nearest_tuning tuning;
  for (int k = 1; k < argc; ++k) {
    const std::string flag = argv[k];
    if (k + 1 == argc) {
      std::fprintf(stderr, "%s: needs a value\n", flag.c_str());
      return 2;
    }
    const std::string value = argv[++k];
    if (flag == "--sizes") sizes = value;
    else if (flag == "--variants") variants = value;
    else if (flag == "--layouts") layout_list = value == "all" ? "" : value;
    else if (flag == "--k") k_list = value;
    else if (flag == "--repeat") repeat = std::max(1, std::stoi(value));
    else if (flag == "--machine") machine = value;
    else if (flag == "--json") json = value;
    else if (flag == "--host-inputs") host_inputs = value == "1" ? pipelined : value == "copy" ? copied : device_inputs;
    else if (flag == "--budget") budget = std::stoull(value);
    else if (flag == "--max-brute-pairs") max_brute_pairs = std::stoi(value);
    else if (flag == "--metric") metric_text = value;
    else if (flag == "--dimension") dimension_list = value;
    else if (flag == "--pipeline") kernwerk::impl::pipeline_policy::two_phase = value != "chunked";
    else if (flag == "--pipeline-chunks") kernwerk::impl::pipeline_policy::chunks = std::stoul(value);
    else if (flag == "--leaf-size") kernwerk::impl::bvh_policy::leaf_size = std::stoi(value);
    else if (flag == "--small-build") kernwerk::impl::bvh_policy::small_build = std::stoll(value);
    else if (flag == "--recycle") kernwerk::impl::recycle_policy::recycle = value != "0";
    else if (flag == "--order-per-thread") tuning.order_per_thread = std::stoll(value);
    else if (flag == "--order-min-references") tuning.order_min_references = std::stoll(value);
    else if (flag == "--fine-order-min-k") tuning.fine_order_min_k = std::stoi(value);
    else if (flag == "--grid-occupancy") kernwerk::impl::grid_policy::min_occupancy = std::stod(value);
    else if (flag == "--grid-per-cell") kernwerk::impl::grid_policy::references_per_cell = std::stod(value);
    else if (flag == "--grid-shells") kernwerk::impl::grid_policy::shells = std::stoi(value);
    else if (flag == "--grid-block-first") kernwerk::impl::grid_policy::block_first = value != "0";
#if KERNWERK_ENABLE_CUDA_TUNED || KERNWERK_ENABLE_HIP_TUNED
    else if (flag == "--scan-waves") kernwerk::gpu_impl::scan_policy::waves = std::stod(value);
    else if (flag == "--kth-stride") kernwerk::gpu_impl::scan_policy::kth_stride = std::stoi(value);
#endif
#if KERNWERK_ENABLE_HOST_TUNED
    else if (flag == "--host-simd") kernwerk::host::limit_simd_width(std::stoi(value));
    else if (flag == "--host-windows") kernwerk::host_impl::window_policy::enabled = value != "0";
#endif
    else {
      std::fprintf(stderr, "%s: unknown option\n", flag.c_str());
      return 2;
    }
  }

  try {
    metric = parse_metric(metric_text, "--metric");
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "%s\n", failure.what());
    return 2;
  }
  // (lat, lon) on the sphere
  const auto dimensions = metric == metric_kind::euclidean ? layouts::euclidean_dimensions(dimension_list)
                                                           : std::vector<std::size_t>{2};
  if (dimensions.empty()) {
    std::fprintf(stderr, "--dimension: 2 or 3, or both as 2,3; not '%s'\n", dimension_list.c_str());
    return 2;
  }
  std::vector<record> records;
  // The records so far, written after each layout, size and k (a run cut short keeps them),
  // through a temporary file renamed over the last.
  const auto save = [&] {
    if (json.empty()) return true;
    const std::string part = json + ".part";
    {
      std::ofstream out(part);
      out << "{\n  \"benchmark\": \"nearest\",\n  \"machine\": \"" << machine
          << "\",\n  \"execution_space\": \"" << space::name() << "\",\n  \"concurrency\": "
          << space().concurrency() << ",\n  \"kokkos_version\": " << KOKKOS_VERSION
          << ",\n  \"metric\": \"" << to_string(metric) << "\",\n  \"precision\": \"float64 inputs\",\n"
          << "  \"repeat\": " << repeat << ",\n  \"results\": [\n";
      for (std::size_t k = 0; k < records.size(); ++k) {
        const auto& r = records[k];
        out << "    {\"layout\": \"" << r.layout << "\", ";
        if (metric == metric_kind::euclidean) out << "\"dimension\": " << r.dimension << ", ";
        out << "\"k\": " << r.k << ", \"variant\": \"" << r.variant << "\", \"observations\": "
            << r.observations << ", \"references\": " << r.references
            << ", \"median_seconds\": " << r.median << ", \"best_seconds\": " << r.best
            << ", \"pairs_per_second\": " << double(r.observations) * double(r.references) / r.median
            << "}" << (k + 1 < records.size() ? "," : "") << "\n";
      }
      out << "  ]\n}\n";
      if (!out) return false;
    }
    return std::rename(part.c_str(), json.c_str()) == 0;
  };
  std::vector<std::string> layout_names = split(layout_list, ',');
  if (layout_list.empty())
    layout_names = metric == metric_kind::euclidean ? layouts::euclidean_names() : layouts::names();
  struct layout_case {
    std::size_t dimension;
    std::string layout;
  };
  std::vector<layout_case> cases;
  for (const std::size_t dimension : dimensions)
    for (const auto& layout : layout_names) cases.push_back({dimension, layout});
  try {
    // --sizes A/BxC/D: every A and B against every C and D (the size sweep).
    std::vector<std::string> size_list;
    for (const auto& size : split(sizes, ',')) {
      const auto sides = split(size, 'x');
      if (sides.size() != 2) throw error("--sizes: '" + size + "' is not LOGOBSxLOGREF");
      for (const auto& a : split(sides[0], '/'))
        for (const auto& b : split(sides[1], '/')) size_list.push_back(a + "x" + b);
    }
    for (const auto& size : size_list) {
      const auto logs = split(size, 'x');
      if (logs.size() != 2) throw error("--sizes: '" + size + "' is not LOGOBSxLOGREF");
      const std::size_t n = std::size_t{1} << std::stoi(logs[0]);
      const std::size_t m = std::size_t{1} << std::stoi(logs[1]);
      for (const auto& layout_case : cases) {
        const std::size_t dimension = layout_case.dimension;
        const std::string& layout = layout_case.layout;
        const auto sets = metric == metric_kind::euclidean
                              ? layouts::make_euclidean(layout, n, m, int(dimension), 2026)
                              : layouts::make(layout, n, m, 2026);
        if (sets.observations.empty()) throw error("--layouts: unknown layout '" + layout + "'");
        const auto& obs_host = sets.observations;
        const auto& ref_host = sets.references;
        const auto obs = to_device(obs_host, dimension);
        const auto ref = to_device(ref_host, dimension);
        for (const auto& k_text : split(k_list, ',')) {
          const std::size_t k = std::stoul(k_text);
          matrix<std::int64_t> indices("indices", n, k);
          matrix<double> distances("distances", n, k);
          using host_points = Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                           Kokkos::MemoryUnmanaged>;
          const host_points obs_in_host(obs_host.data(), n, dimension),
              ref_in_host(ref_host.data(), m, dimension);
          auto indices_host = Kokkos::create_mirror_view(Kokkos::HostSpace(), indices);
          auto distances_host = Kokkos::create_mirror_view(Kokkos::HostSpace(), distances);
          // Every variant is warmed up and checked first; then the timed runs go round the
          // variants in turn, so that a slow spell of the machine falls on all of them alike.
          struct variant {
            std::string name;
            nearest_options options;
            nearest_report report;
            std::vector<double> times;
          };
          std::vector<variant> runs;
          std::unique_ptr<spatial_index<space>> kept;   // the index variant's
          std::unique_ptr<spatial_index<space>> built;  // the build variant's latest
          index_options index_metric;
          index_metric.metric = metric;
          for (const auto& name : split(variants, ',')) {
            const bool brute_force = name != "index" && name != "build" && name != "indexed" && name != "auto";
            if (brute_force && max_brute_pairs > 0 && double(n) * double(m) > std::ldexp(1.0, max_brute_pairs))
              continue;  // (--max-brute-pairs: far slower than the index there)
            variant v{name, {}, {}, {}};
            if (name == "index") {
              v.options.method = method_kind::indexed;
              v.report = {method_kind::indexed, "a kept index"};
              if (!kept) kept = std::make_unique<spatial_index<space>>(space(), ref, index_metric);
            } else if (name == "build") {
              v.options.method = method_kind::indexed;
              v.report = {method_kind::indexed, "an index built"};
            } else if (name == "indexed") {
              v.options.method = method_kind::indexed;
            } else if (name == "brute") {
              v.options.method = method_kind::brute;
            } else if (name != "auto") {
              v.options.method = method_kind::brute;
              v.options.implementation = parse_implementation(name, "--variants");
            }
            v.options.metric = metric;
            v.options.memory_budget = budget;
            v.options.tuning = tuning;
            runs.push_back(v);
          }
          const auto run = [&](variant& v) {
            if (v.name == "build") {
              built = std::make_unique<spatial_index<space>>(space(), ref, index_metric);
              return;
            }
            if (v.name == "index") {
              if (host_inputs == pipelined) {
                kept->nearest(space(), obs_in_host, indices_host, distances_host);
              } else if (host_inputs == copied) {
                Kokkos::deep_copy(obs, obs_in_host);
                kept->nearest(space(), obs, indices, distances);
                Kokkos::deep_copy(indices_host, indices);
                Kokkos::deep_copy(distances_host, distances);
              } else {
                kept->nearest(space(), obs, indices, distances);
              }
              return;
            }
            v.options.report = &v.report;
            if (host_inputs == pipelined) {
              kernwerk::nearest(space(), obs_in_host, ref_in_host, indices_host, distances_host,
                                v.options);
            } else if (host_inputs == copied) {  // what a caller does by hand: copy, compute, copy
              Kokkos::deep_copy(obs, obs_in_host);
              Kokkos::deep_copy(ref, ref_in_host);
              kernwerk::nearest(space(), obs, ref, indices, distances, v.options);
              Kokkos::deep_copy(indices_host, indices);
              Kokkos::deep_copy(distances_host, distances);
            } else {
              kernwerk::nearest(space(), obs, ref, indices, distances, v.options);
            }
          };
          for (auto& v : runs) {
            Kokkos::deep_copy(indices_host, -1);  // poisoned: every answer must be written
            Kokkos::deep_copy(distances_host, -1.0);
            if (host_inputs == device_inputs) {
              Kokkos::deep_copy(indices, indices_host);
              Kokkos::deep_copy(distances, distances_host);
            }
            run(v);  // warm-up
            if (v.name == "build" && host_inputs == device_inputs)
              built->nearest(space(), obs, indices, distances);
            else if (v.name == "build")
              built->nearest(space(), obs_in_host, indices_host, distances_host);
            if (host_inputs == device_inputs) {
              Kokkos::deep_copy(indices_host, indices);
              Kokkos::deep_copy(distances_host, distances);
            }
            const reference::points o{obs_host.data(), n, dimension}, r{ref_host.data(), m, dimension};
            for (std::size_t s = 0; s < 64; ++s) {
              const std::size_t i = (s * 2654435761u) % n;
              const auto problem = reference::check_k(o, i, r, &indices_host(i, 0),
                                                      &distances_host(i, 0), k, v.options);
              if (!problem.empty())
                throw error(layout + " " + v.name + " " + size + " k " + k_text + ": " + problem);
            }
          }
          for (int t = 0; t < repeat; ++t) {
            for (auto& v : runs) {
              if (v.name == "build") built.reset();  // (its memory given back untimed)
              space().fence();
              const auto start = std::chrono::steady_clock::now();
              run(v);
              space().fence();
              v.times.push_back(
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            }
          }
          for (auto& v : runs) {
            std::sort(v.times.begin(), v.times.end());
            std::string label = v.name;
            if (host_inputs == pipelined) label += " (host inputs)";
            if (host_inputs == copied) label += " (host inputs, copy then compute)";
            if (budget) label += " budget " + std::to_string(budget) + " bytes";
            if (v.name == "auto") label += std::string(" (ran ") + to_string(v.report.method) + ")";
            records.push_back({layout, label, dimension, n, m, k, v.times[v.times.size() / 2], v.times.front()});
            const auto& last = records.back();
            const std::string shown =
                metric == metric_kind::euclidean ? layout + " " + std::to_string(dimension) + "-D" : layout;
            std::printf("%-8s %-10s %-20s %9zu x %-7zu k %-2zu median %10.4f ms  best %10.4f ms  %s\n",
                        space::name(), shown.c_str(), last.variant.c_str(), n, m, k,
                        1e3 * last.median, 1e3 * last.best,
                        v.name == "auto" ? v.report.reason.c_str() : "");
            std::fflush(stdout);
          }
          if (!save()) throw error("cannot write " + json);
        }
      }
    }
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "kernwerk_bench_nearest: %s\n", failure.what());
    return 1;
  }

  if (!save()) {
    std::fprintf(stderr, "kernwerk_bench_nearest: cannot write %s\n", json.c_str());
    return 1;
  }
  return 0;
}
