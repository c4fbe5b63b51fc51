// Measures the two ceilings the benchmarks are compared with, on the default execution space:
// the float32 FMA rate (independent FMA chains, no memory traffic) and the device copy
// bandwidth (a large copy, bytes read plus bytes written). Writes JSON.
//
//   kernwerk_ceilings [--machine NAME] [--json FILE]
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_HOST_TUNED
#include "kernwerk/host/sphere_scan.hpp"
#endif

namespace {

using space = Kokkos::DefaultExecutionSpace;
constexpr int chains = 8;        // independent FMA chains per thread: hides FMA latency
constexpr int iterations = 4096;  // FMAs per chain

struct fma_chains {
  Kokkos::View<float*, space::memory_space> sink;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    float a[chains];
    for (int c = 0; c < chains; ++c) a[c] = 1.0f + 1e-7f * float(i + c);
    const float x = 0.999999f, y = 1e-7f;
    for (int k = 0; k < iterations; ++k)
      for (int c = 0; c < chains; ++c) a[c] = a[c] * x + y;
    float total = 0;
    for (int c = 0; c < chains; ++c) total += a[c];
    if (total == 12345.0f) sink(0) = total;  // keeps the work alive; never true
  }
};

template <class Work>
double best_seconds(Work&& work, int repeat) {
  work();  // warm-up
  space().fence();
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    work();
    space().fence();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string machine = "unnamed", json;
  for (int k = 1; k + 1 < argc; k += 2) {
    const std::string flag = argv[k];
    if (flag == "--machine") machine = argv[k + 1];
    else if (flag == "--json") json = argv[k + 1];
  }
  const std::int64_t threads = std::max<std::int64_t>(std::int64_t(space().concurrency()) * 16, 1 << 16);
  Kokkos::View<float*, space::memory_space> sink("sink", 1);
  const double fma_seconds = best_seconds(
      [&] {
        Kokkos::parallel_for("kernwerk::ceilings::fma",
                             Kokkos::RangePolicy<space, Kokkos::IndexType<std::int64_t>>(0, threads),
                             fma_chains{sink});
      },
      5);
  double flops = 2.0 * double(threads) * chains * iterations / fma_seconds;
#if KERNWERK_ENABLE_HOST_TUNED
  // Portable code is compiled for the baseline instruction set; the host's ceiling is what its
  // widest vector unit does, on every core (the best of a few one-thread runs, times cores).
  if (Kokkos::SpaceAccessibility<space, Kokkos::HostSpace>::accessible) {
    double per_core = 0;
    for (int r = 0; r < 5; ++r) per_core = std::max(per_core, kernwerk::host::fma_rate_one_thread());
    flops = 2.0 * per_core * space().concurrency();
  }
#endif

  const std::size_t count = std::size_t(1) << 28;  // 1 GiB of float32 each way
  Kokkos::View<float*, space::memory_space> from("from", count), to("to", count);
  const double copy_seconds = best_seconds([&] { Kokkos::deep_copy(space(), to, from); }, 5);
  const double bandwidth = 2.0 * count * sizeof(float) / copy_seconds;

  std::printf("%s: float32 FMA ceiling %.3f TFLOP/s, copy bandwidth %.1f GB/s\n", space::name(),
              flops / 1e12, bandwidth / 1e9);
  if (!json.empty()) {
    std::ofstream(json) << "{\n  \"machine\": \"" << machine << "\",\n  \"execution_space\": \""
                        << space::name() << "\",\n  \"fp32_flops_per_second\": " << flops
                        << ",\n  \"copy_bytes_per_second\": " << bandwidth << "\n}\n";
  }
  return 0;
}
