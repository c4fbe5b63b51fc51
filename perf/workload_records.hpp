#pragma once
// What kernwerk_bench_workloads and kernwerk_bench_dense share: a timed record, the timing (the
// median and best of repeated runs after a warm-up, the space fenced around each), and the JSON
// perf/results_table.py reads.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kernwerk_perf {

struct workload_record {
  std::string workload, variant, size;
  double median, best;
  double bytes, flops;  // per timed call: the fewest bytes moved, the arithmetic done
  std::string note;
};

template <class Space>
double seconds(const std::function<void()>& run) {
  Space().fence();
  const auto start = std::chrono::steady_clock::now();
  run();
  Space().fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// (median, best) of `repeat` runs after one untimed run.
template <class Space>
std::pair<double, double> timed(const std::function<void()>& run, int repeat) {
  run();
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) times.push_back(seconds<Space>(run));
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], times.front()};
}

// Prints the records and writes them to `path` (none: no file); false where the file cannot be
// written.
template <class Space>
bool report(const std::vector<workload_record>& records, const std::string& benchmark,
            const std::string& machine, int repeat, const std::string& path) {
  for (const auto& r : records)
    std::printf("%-8s %-20s %-16s %-40s median %12.3f us  %s\n", Space::name(), r.workload.c_str(),
                r.variant.c_str(), r.size.c_str(), 1e6 * r.median, r.note.c_str());
  if (path.empty()) return true;
  std::ofstream out(path);
  out << "{\n  \"benchmark\": \"" << benchmark << "\",\n  \"machine\": \"" << machine
      << "\",\n  \"execution_space\": \"" << Space::name() << "\",\n  \"kokkos_version\": " << KOKKOS_VERSION
      << ",\n  \"repeat\": " << repeat << ",\n  \"results\": [\n";
  for (std::size_t k = 0; k < records.size(); ++k) {
    const auto& r = records[k];
    out << "    {\"workload\": \"" << r.workload << "\", \"variant\": \"" << r.variant << "\", \"size\": \"" << r.size
        << "\", \"median_seconds\": " << r.median << ", \"best_seconds\": " << r.best << ", \"bytes\": " << r.bytes
        << ", \"flops\": " << r.flops << ", \"note\": \"" << r.note << "\"}" << (k + 1 < records.size() ? "," : "")
        << "\n";
  }
  out << "  ]\n}\n";
  return bool(out);
}

}  // namespace kernwerk_perf
