// Times kernwerk::mpi::nearest over the ranks it runs on (one GPU each on GPU builds), with the
// points spread evenly and already in each rank's device memory, and writes JSON records.
//
//   mpirun -np P kernwerk_bench_mpi_nearest [--sizes 24x14,26x20] [--layouts uniform,...]
//       [--methods brute,indexed] [--strategies replicate,ring,index,partitioned] [--k 1]
//       [--repeat 5]
//       [--machine NAME] [--json FILE]
//
// Sizes are log2 of all ranks' observations x references together. The global sets are made of
// B = 1024 blocks (fewer for small sets), block b being layouts::make(layout, n / B, m / B,
// seed + b); rank r makes blocks r B / P to (r + 1) B / P, so the sets are the same for every P
// (P must divide B). A record's time is the slowest rank's, the median of the repeats, each
// started from a barrier; its split (checks, staging, exchange, compute) is the slowest rank's
// medians of kernwerk::mpi::nearest_timings. Strategies "index" and "partitioned" are
// kernwerk::mpi::distributed_index (method indexed only) in its automatic layout and partitioned:
// built once (its build timed apart, the slowest rank's), then queried.
// With one rank, the single-process kernwerk::nearest on the same sets is timed as well ("single").
// Before timing, 64 observations of every rank are checked against the float64 brute force over
// all references; a wrong answer stops the benchmark.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/staging/traits.hpp"  // staging_memory: page-locked on GPUs
#include "mpi_nearest_bench_calls.hpp"
#include "kernwerk/reference.hpp"
#include "kernwerk_mpi.h"
#include "layouts.hpp"

namespace {

using namespace kernwerk;
using space = bench::mpi_space;
template <class T>
using matrix = bench::mpi_matrix<T>;
using host_rows = Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
  return parts;
}

int rank_of() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
int size_of() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// This rank's blocks of the global sets.
layouts::point_pair make_share(const std::string& layout, std::size_t n, std::size_t m, std::size_t blocks) {
  const std::size_t ranks = std::size_t(size_of()), rank = std::size_t(rank_of());
  layouts::point_pair share;
  for (std::size_t b = rank * blocks / ranks; b < (rank + 1) * blocks / ranks; ++b) {
    const auto block = layouts::make(layout, n / blocks, m / blocks, 2026 + b);
    if (block.observations.empty()) throw error("--layouts: unknown layout '" + layout + "'");
    share.observations.insert(share.observations.end(), block.observations.begin(), block.observations.end());
    share.references.insert(share.references.end(), block.references.begin(), block.references.end());
  }
  return share;
}

matrix<double> to_device(const std::vector<double>& values) {
  matrix<double> device("points", values.size() / 2, 2);
  Kokkos::deep_copy(device, host_rows(values.data(), values.size() / 2, 2));
  return device;
}

// Every rank's values, in rank order (for the check).
std::vector<double> gather_all(const std::vector<double>& mine) {
  const int ranks = size_of();
  std::vector<int> counts(ranks), offsets(ranks);
  const int count = int(mine.size());
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < ranks; ++r) offsets[r] = total, total += counts[r];
  std::vector<double> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
                 MPI_COMM_WORLD);
  return all;
}

double slowest(double mine) {
  double all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// What the scaling model needs besides compute rates: copies between device memory and the
// page-locked buffers messages go through, and MPI between ranks 0 and 1 (host buffers).
struct link_rates {
  double to_device = 0, to_host = 0;     // bytes per second, 64 MiB copies
  double mpi_bandwidth = 0, mpi_latency = 0;  // one way: 64 MiB, and seconds for 8 bytes
};

template <class Action>
double best_seconds(int repeat, Action&& action) {
  double best = 1e30;
  for (int t = 0; t < repeat; ++t) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    action();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

link_rates measure_links() {
  using pinned = typename impl::staging_memory<space>::type;
  const std::size_t count = std::size_t(1) << 23, bytes = count * sizeof(double);
  Kokkos::View<double*, pinned> host("pinned", count), back("pinned back", count);
  Kokkos::View<double*, space::memory_space> device("device", count);
  link_rates rates;
  rates.to_device = bytes / best_seconds(5, [&] { Kokkos::deep_copy(space(), device, host); space().fence(); });
  rates.to_host = bytes / best_seconds(5, [&] { Kokkos::deep_copy(space(), host, device); space().fence(); });
  if (size_of() < 2) return rates;
  const int rank = rank_of();
  const auto round_trip = [&](std::size_t length) {
    const int elements = int(length / sizeof(double));
    if (rank == 0) {
      MPI_Send(host.data(), elements, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(back.data(), elements, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(back.data(), elements, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(back.data(), elements, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
  };
  rates.mpi_bandwidth = bytes / (best_seconds(5, [&] { round_trip(bytes); }) / 2);
  rates.mpi_latency = best_seconds(50, [&] { round_trip(8); }) / 2;
  return rates;
}

struct record {
  std::string layout, method, strategy;
  std::size_t observations, references, k;
  int ranks;
  double median, best, checks, staging, exchange, compute;
  double build = 0;          // the distributed index's build (strategy "index")
  double second_visits = 0;  // its second pass: rank visits per query, over all ranks
  std::string layout_held;   // its layout
};

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  if (kw_initialize_mpi(MPI_COMM_WORLD) != KW_SUCCESS) {
    std::fprintf(stderr, "kernwerk_bench_mpi_nearest: %s\n", kw_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int rank = rank_of(), ranks = size_of();
  std::string sizes = "24x14", methods = "brute,indexed", strategies = "replicate,ring",
              machine = "unnamed", json, layout_list = "uniform", k_list = "1";
  int repeat = 5, status = 0;
  std::vector<record> records;
  link_rates links;
  try {
    for (int a = 1; a < argc; a += 2) {
      const std::string flag = argv[a];
      if (a + 1 == argc) throw error(flag + ": needs a value");
      const std::string value = argv[a + 1];
      if (flag == "--sizes") sizes = value;
      else if (flag == "--methods") methods = value;
      else if (flag == "--strategies") strategies = value;
      else if (flag == "--layouts") layout_list = value;
      else if (flag == "--k") k_list = value;
      else if (flag == "--repeat") repeat = std::max(1, std::stoi(value));
      else if (flag == "--machine") machine = value;
      else if (flag == "--json") json = value;
      else throw error(flag + ": unknown option");
    }
    links = measure_links();
    if (rank == 0)
      std::printf("links: to device %.1f GB/s, to host %.1f GB/s, MPI %.1f GB/s and %.1f us one way\n",
                  links.to_device / 1e9, links.to_host / 1e9, links.mpi_bandwidth / 1e9, links.mpi_latency * 1e6);
    for (const auto& size : split(sizes, ',')) {
      const auto logs = split(size, 'x');
      if (logs.size() != 2) throw error("--sizes: '" + size + "' is not LOGOBSxLOGREF");
      const std::size_t n = std::size_t{1} << std::stoi(logs[0]), m = std::size_t{1} << std::stoi(logs[1]);
      const std::size_t blocks = std::min<std::size_t>({1024, n, m});
      if (blocks % std::size_t(ranks)) throw error("the rank count must divide " + std::to_string(blocks));
      for (const auto& layout : split(layout_list, ',')) {
        const auto share = make_share(layout, n, m, blocks);
        const std::size_t mine = share.observations.size() / 2;
        const auto obs = to_device(share.observations), ref = to_device(share.references);
        const auto all_references = gather_all(share.references);
        for (const auto& k_text : split(k_list, ',')) {
          const std::size_t k = std::stoul(k_text);
          matrix<std::int64_t> indices("indices", mine, k);
          matrix<double> distances("distances", mine, k);
          std::vector<std::string> variants;
          for (const auto& strategy : split(strategies, ',')) variants.push_back(strategy);
          if (ranks == 1) variants.push_back("single");
          for (const auto& method : split(methods, ','))
            for (const auto& strategy : variants) {
              mpi::nearest_options options;
              options.method = parse_method(method, "--methods");
              options.strategy = strategy == "ring" ? mpi::strategy_kind::ring : mpi::strategy_kind::replicate;
              const bool indexed = strategy == "index" || strategy == "partitioned";
              if (strategy != "ring" && strategy != "replicate" && strategy != "single" && !indexed)
                throw error("--strategies: '" + strategy + "' is not replicate, ring, index or partitioned");
              if (indexed && method != "indexed") continue;
              mpi::nearest_timings timings;
              options.timings = &timings;
              std::optional<bench::timed_index> index;
              double build = 0;
              if (indexed) {
                MPI_Barrier(MPI_COMM_WORLD);
                const auto start = std::chrono::steady_clock::now();
                index.emplace(ref, strategy == "partitioned" ? mpi::index_layout::partitioned
                                                             : mpi::index_layout::automatic);
                space().fence();
                build = slowest(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
              }
              mpi::distributed_report report;
              const auto run = [&] {
                if (strategy == "single") {
                  kernwerk::nearest(space(), obs, ref, indices, distances, options);
                } else if (index) {
                  index->nearest(obs, indices, distances, &report);
                  timings = report.timings;
                } else {
                  bench::mpi_nearest(obs, ref, indices, distances, options);
                }
                space().fence();
              };
              run();  // warm-up, then the check
              const auto indices_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), indices);
              const auto distances_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), distances);
              const reference::points o{share.observations.data(), mine, 2}, r{all_references.data(), m, 2};
              std::string problem;
              for (std::size_t s = 0; s < 64 && mine > 0 && problem.empty(); ++s) {
                const std::size_t i = (s * 2654435761u) % mine;
                problem = reference::check_k(o, i, r, &indices_host(i, 0), &distances_host(i, 0), k, options);
              }
              if (slowest(problem.empty() ? 0 : 1) > 0)
                throw error(layout + " " + method + " " + strategy + " " + size + " k " + k_text +
                            ": wrong answer" + (problem.empty() ? " on another rank" : ": " + problem));
              std::vector<double> total, checks, staging, exchange, compute;
              for (int t = 0; t < repeat; ++t) {
                MPI_Barrier(MPI_COMM_WORLD);
                const auto start = std::chrono::steady_clock::now();
                run();
                const double seconds =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                total.push_back(slowest(seconds));
                checks.push_back(slowest(timings.checks));
                staging.push_back(slowest(timings.staging));
                exchange.push_back(slowest(timings.exchange));
                compute.push_back(slowest(strategy == "single" ? seconds : timings.compute));
              }
              records.push_back({layout, method, strategy, n, m, k, ranks, median(total),
                                 *std::min_element(total.begin(), total.end()), median(checks),
                                 median(staging), median(exchange), median(compute)});
              auto& last = records.back();
              if (index) {
                double visits = double(report.second_visits), all_visits = 0;
                MPI_Allreduce(&visits, &all_visits, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                last.build = build;
                last.second_visits = all_visits / double(n);
                last.layout_held = mpi::to_string(index->layout());
                if (rank == 0)
                  std::printf("distributed index (%s): build %.3f ms, second pass %.3f rank visits a query\n",
                              last.layout_held.c_str(), 1e3 * build, last.second_visits);
              }
              if (rank == 0)
                std::printf("%-8s %d rank%s %-9s %-8s %-10s %9zu x %-8zu k %-2zu median %9.3f ms  "
                            "(checks %.3f, staging %.3f, exchange %.3f, compute %.3f ms)\n",
                            space::name(), ranks, ranks == 1 ? " " : "s", strategy.c_str(),
                            method.c_str(), layout.c_str(), n, m, k, 1e3 * last.median,
                            1e3 * last.checks, 1e3 * last.staging, 1e3 * last.exchange, 1e3 * last.compute);
              std::fflush(stdout);
            }
        }
      }
    }
  } catch (const std::exception& failure) {
    if (rank == 0) std::fprintf(stderr, "kernwerk_bench_mpi_nearest: %s\n", failure.what());
    status = 1;
  }
  if (status == 0 && rank == 0 && !json.empty()) {
    std::ofstream out(json);
    out << "{\n  \"benchmark\": \"mpi_nearest\",\n  \"machine\": \"" << machine
        << "\",\n  \"execution_space\": \"" << space::name() << "\",\n  \"ranks\": " << ranks
        << ",\n  \"kokkos_version\": " << KOKKOS_VERSION
        << ",\n  \"metric\": \"haversine\",\n  \"precision\": \"float64 inputs\",\n"
        << "  \"repeat\": " << repeat << ",\n  \"links\": {\"to_device_bytes_per_second\": " << links.to_device
        << ", \"to_host_bytes_per_second\": " << links.to_host
        << ", \"mpi_bytes_per_second\": " << links.mpi_bandwidth << ", \"mpi_latency_seconds\": " << links.mpi_latency
        << "},\n  \"results\": [\n";
    for (std::size_t e = 0; e < records.size(); ++e) {
      const auto& r = records[e];
      out << "    {\"layout\": \"" << r.layout << "\", \"method\": \"" << r.method << "\", \"strategy\": \""
          << r.strategy << "\", \"ranks\": " << r.ranks << ", \"k\": " << r.k
          << ", \"observations\": " << r.observations << ", \"references\": " << r.references
          << ", \"median_seconds\": " << r.median << ", \"best_seconds\": " << r.best
          << ", \"checks_seconds\": " << r.checks << ", \"staging_seconds\": " << r.staging
          << ", \"exchange_seconds\": " << r.exchange << ", \"compute_seconds\": " << r.compute;
      if (!r.layout_held.empty())
        out << ", \"index_layout\": \"" << r.layout_held << "\", \"build_seconds\": " << r.build
            << ", \"second_pass_visits_per_query\": " << r.second_visits;
      out
          << ", \"pairs_per_second\": " << double(r.observations) * double(r.references) / r.median << "}"
          << (e + 1 < records.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
    if (!out) {
      std::fprintf(stderr, "kernwerk_bench_mpi_nearest: cannot write %s\n", json.c_str());
      status = 1;
    }
  }
  kw_finalize();
  MPI_Finalize();
  return status;
}
