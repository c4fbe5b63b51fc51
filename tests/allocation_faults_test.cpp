// The library when its memory runs out. On host spaces the program runs with a preloaded
// allocator (faults/failing_allocation.c) that fails every allocation above a size while a
// call runs; on GPUs a ballast fills the device's memory but for a little, and the call is given
// a budget far above what is left. kernwerk::nearest must fall back to chunks and give the
// float64 brute force's answer, or, where even the smallest chunks cannot be had, throw
// kernwerk::out_of_memory (C: KW_OUT_OF_MEMORY) and leave no partial answer in the outputs.
// Every other call of the C interface must give its answer or KW_OUT_OF_MEMORY, its outputs
// untouched.
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

#include "execution_spaces.hpp"
#include "kernwerk.h"
#include "kernwerk/nearest.hpp"
#include "kernwerk/spatial_index.hpp"
#include "nearest_support.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test;

// The preloaded allocator's switch, where the program runs with it.
struct failing_allocator {
  void (*fail_above)(std::size_t) = nullptr;
  long (*failed)() = nullptr;
  failing_allocator() {
    fail_above = reinterpret_cast<void (*)(std::size_t)>(
        dlsym(RTLD_DEFAULT, "kernwerk_fail_allocations_above"));
    failed = reinterpret_cast<long (*)()>(dlsym(RTLD_DEFAULT, "kernwerk_failed_allocations"));
  }
  explicit operator bool() const { return fail_above && failed; }
};

template <class Space>
constexpr bool host_space =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;

// While it lives, allocations of Space's memory above about `bytes` fail: on host spaces those
// above `bytes` each; on a GPU, those that do not fit the `bytes` the ballast leaves free.
template <class Space>
class memory_pressure {
 public:
  explicit memory_pressure(std::size_t bytes) {
    if constexpr (host_space<Space>) {
      allocator_.fail_above(bytes);
      failed_before_ = allocator_.failed();
    } else {
#ifdef KOKKOS_ENABLE_CUDA
      std::size_t free = 0, total = 0;
      cudaMemGetInfo(&free, &total);
      for (std::size_t take = free; free > bytes + (std::size_t(16) << 20) && take > (1 << 20);) {
        take = std::min(take, free - bytes);
        try {
          ballast_.emplace_back(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ballast"), take);
        } catch (const std::exception&) {
          take /= 2;
        }
        cudaMemGetInfo(&free, &total);
      }
      MESSAGE("the ballast leaves " << (free >> 20) << " MiB of " << (total >> 20) << " free");
#endif
    }
  }
  ~memory_pressure() {
    if constexpr (host_space<Space>) allocator_.fail_above(std::numeric_limits<std::size_t>::max());
  }
  // Allocations that failed since (host spaces; -1 on GPUs, where it cannot be counted).
  long failed() const { return host_space<Space> ? allocator_.failed() - failed_before_ : -1; }

 private:
  failing_allocator allocator_;
  long failed_before_ = 0;
  std::vector<Kokkos::View<char*, typename Space::memory_space>> ballast_;
};

// Whether this program can fault Space's allocations.
template <class Space>
bool can_fault() {
  if constexpr (host_space<Space>) {
    if (failing_allocator()) return true;
    MESSAGE("skipped: the program runs without the preloaded allocator");
    return false;
  } else {
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (std::is_same_v<Space, Kokkos::Cuda>) return true;
#endif
    MESSAGE("skipped: no ballast for " << Space::name());
    return false;
  }
}

// Clustered references (a few tight caps) and uniform observations, so that the index's
// boxes and the chunks' merges both have work.
host_points clustered(std::size_t count, std::uint64_t seed) {
  host_points points = uniform_sphere(count, seed);
  for (std::size_t i = 0; i < count; ++i) {
    const double centre_lat = -1.2 + 0.6 * double(i % 5), centre_lon = -3.0 + 1.4 * double(i % 5);
    points.values[2 * i] = centre_lat + 1e-3 * std::sin(points.values[2 * i] * 7.0);
    points.values[2 * i + 1] = centre_lon + 1e-3 * std::cos(points.values[2 * i + 1] * 5.0);
  }
  return points;
}

// Every `stride`-th observation's answer must match the float64 brute force.
void check_rows(const host_points& observations, const host_points& references,
                const std::vector<std::int64_t>& indices, const std::vector<double>& distances,
                std::size_t k, const nearest_options& options, std::size_t stride) {
  int wrong = 0;
  for (std::size_t i = 0; i < observations.count(); i += stride) {
    const std::string problem = reference::check_k(observations.view(), i, references.view(),
                                                   &indices[i * k], &distances[i * k], k,
                                                   options, 1e-12);
    if (!problem.empty() && ++wrong <= 5) FAIL_CHECK(problem);
  }
  CHECK(wrong == 0);
}

using host_matrix =
    Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
using host_index_matrix =
    Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
using host_distance_matrix =
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

TEST_CASE_TEMPLATE_DEFINE("nearest falls back to chunks when an allocation fails", Space,
                          allocation_fallback) {
  if (!can_fault<Space>()) return;
  // Host: allocations above 256 KiB fail, and the index over all references needs more. GPU:
  // 64 MiB free, and one pass would copy 2^18 x 32 results (128 MiB) into it.
  const bool host = host_space<Space>;
  const std::size_t n = host ? 1024 : (std::size_t(1) << 18) - 1, m = host ? 12000 : 4096;
  const std::size_t limit = host ? std::size_t(256) << 10 : std::size_t(64) << 20;
  const host_points observations = uniform_sphere(n, 71), references = clustered(m, 72);
  for (const std::size_t k : {std::size_t(1), std::size_t(32)}) {
    for (const auto method : {method_kind::indexed, method_kind::brute}) {
      const std::string method_name = to_string(method);
      CAPTURE(k);
      CAPTURE(method_name);
      nearest_options options;
      options.method = method;
      if (!host) options.memory_budget = std::size_t(1) << 40;  // more than any device has
      nearest_report report;
      options.report = &report;
      // Inputs and outputs in host memory (on a GPU the call copies them in and out).
      std::vector<std::int64_t> indices(n * k, 7);
      std::vector<double> distances(n * k, 7.0);
      const auto call = [&] {
        kernwerk::nearest(Space(), host_matrix(observations.values.data(), n, 2),
                          host_matrix(references.values.data(), m, 2),
                          host_index_matrix(indices.data(), n, k),
                          host_distance_matrix(distances.data(), n, k), options);
      };
      // On a GPU the call runs once before the ballast: CUDA loads a kernel's code into device
      // memory when it first runs (lazy loading) and reserves its stack then, and with the
      // device full that fails as no allocation of ours does (cub reported "invalid device
      // ordinal"). The case is memory taken after the library's kernels are loaded.
      if (!host) {
        call();
        std::fill(indices.begin(), indices.end(), 7);
        std::fill(distances.begin(), distances.end(), 7.0);
      }
      long failed = 0;
      {
        memory_pressure<Space> pressure(limit);
        call();
        failed = pressure.failed();
      }
      MESSAGE(report.reason << " (allocations failed: " << failed << ")");
      // The index over all references does not fit on the host; one pass of k = 32 does not
      // fit the GPU (of k = 1 it does: 4 MiB of results).
      if (host ? method == method_kind::indexed : k == 32) {
        CHECK(report.reason.find("after an allocation failed") != std::string::npos);
        CHECK(failed != 0);
      }
      check_rows(observations, references, indices, distances, k, options, host ? 1 : 61);
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(allocation_fallback, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("a kept index's queries fall back to chunks when an allocation fails",
                          Space, index_fallback) {
  if (!can_fault<Space>()) return;
  // Built before the pressure. GPU: 64 MiB free, and the query in one piece would copy 2^18 x
  // 32 results (128 MiB) into it; host: allocations above 256 KiB fail (the query's scratch
  // may be kept from earlier calls, so that the host's case is its answer only).
  const bool host = host_space<Space>;
  const std::size_t n = host ? 20000 : (std::size_t(1) << 18) - 1, m = 4096, k = 32;
  const host_points observations = uniform_sphere(n, 73), references = clustered(m, 74);
  const kernwerk::spatial_index<Space> index(Space(), to_device<Space>(references));
  std::vector<std::int64_t> indices(n * k, 7);
  std::vector<double> distances(n * k, 7.0);
  kernwerk::query_options options;
  if (!host) options.memory_budget = std::size_t(1) << 40;  // more than any device has
  const auto call = [&] {
    index.nearest(Space(), host_matrix(observations.values.data(), n, 2),
                  host_index_matrix(indices.data(), n, k), host_distance_matrix(distances.data(), n, k),
                  options);
  };
  if (!host) call();  // the kernels loaded first (see above)
  std::fill(indices.begin(), indices.end(), 7);
  long failed = 0;
  {
    memory_pressure<Space> pressure(host ? std::size_t(256) << 10 : std::size_t(64) << 20);
    call();
    failed = pressure.failed();
  }
  MESSAGE("allocations failed: " << failed);
  if (!host) CHECK(failed != 0);
  check_rows(observations, references, indices, distances, k, {}, host ? 7 : 61);
}
TEST_CASE_TEMPLATE_APPLY(index_fallback, enabled_spaces);

// Allocations above 1 KiB fail: the index over even 32 references needs more, in every plan.
TEST_CASE_TEMPLATE_DEFINE("nearest without memory for its smallest chunks", Space,
                          allocation_exhausted) {
  if (!host_space<Space> || !can_fault<Space>()) return;
  const std::size_t n = 300, m = 5000, k = 32;
  const host_points observations = uniform_sphere(n, 81), references = clustered(m, 82);
  nearest_options options;
  options.method = method_kind::indexed;
  std::vector<std::int64_t> indices(n * k, 7);
  std::vector<double> distances(n * k, 7.0);
  std::string message;
  long failed = 0;
  {
    memory_pressure<Space> pressure(1024);
    try {
      kernwerk::nearest(Space(), host_matrix(observations.values.data(), n, 2),
                        host_matrix(references.values.data(), m, 2),
                        host_index_matrix(indices.data(), n, k),
                        host_distance_matrix(distances.data(), n, k), options);
    } catch (const kernwerk::out_of_memory& e) {
      message = e.what();
    }
    failed = pressure.failed();
  }
  INFO(message);
  CHECK(message.find("kernwerk::nearest: out of memory: ") == 0);
  CHECK(failed > 0);
  // The outputs are whole: untouched, or all "no answer", as the message says.
  const auto entries_as_said = [&](const std::string& text) {
    const bool untouched = text.find("the outputs are untouched") != std::string::npos;
    std::size_t as_said = 0;
    for (std::size_t i = 0; i < n * k; ++i)
      as_said += untouched ? (indices[i] == 7 && distances[i] == 7.0)
                           : (indices[i] == -1 && std::isnan(distances[i]));
    return as_said;
  };
  CHECK(entries_as_said(message) == n * k);

  // Through the C interface (the host's default execution space): KW_OUT_OF_MEMORY, the
  // message, and the outputs as it says.
  if (!std::is_same_v<Space, Kokkos::DefaultHostExecutionSpace>) return;
  kw_nearest_options c_options;
  kw_nearest_options_default(&c_options);
  c_options.method = 2;
  std::fill(indices.begin(), indices.end(), 7);
  std::fill(distances.begin(), distances.end(), 7.0);
  kw_status status;
  {
    memory_pressure<Space> pressure(1024);
    status = kw_nearest(KW_FLOAT64, KW_MEMORY_HOST, 2, observations.values.data(), int64_t(n),
                        references.values.data(), int64_t(m), int64_t(k), indices.data(),
                        distances.data(), &c_options);
  }
  const std::string c_message = kw_last_error();
  INFO(c_message);
  CHECK(status == KW_OUT_OF_MEMORY);
  CHECK(c_message.find("kernwerk::nearest: out of memory: ") == 0);
  CHECK(entries_as_said(c_message) == n * k);
}
TEST_CASE_TEMPLATE_APPLY(allocation_exhausted, enabled_spaces);

// Every call of the C interface with host memory, its allocations failing above a size: each
// either succeeds with the answer it gives without the fault (bit for bit), or returns
// KW_OUT_OF_MEMORY saying so, its outputs untouched. Outputs are filled with a pattern first.
struct c_call {
  std::string name;
  std::function<kw_status()> run;
  std::vector<std::pair<void*, std::size_t>> outputs;  // bytes the call may write
  std::function<void()> inputs = [] {};  // sets those of them it also reads, and handles to NULL
  bool makes_handle = false;             // its output is a new handle (its bytes differ each time)
};

std::vector<unsigned char> output_bytes(const c_call& call) {
  std::vector<unsigned char> bytes;
  for (const auto& [pointer, size] : call.outputs) {
    const auto* first = static_cast<const unsigned char*>(pointer);
    bytes.insert(bytes.end(), first, first + size);
  }
  return bytes;
}

void fill_outputs(const c_call& call) {
  for (const auto& [pointer, size] : call.outputs) std::memset(pointer, 0x5a, size);
  call.inputs();
}

TEST_CASE("every C call when allocations fail: its answer, or KW_OUT_OF_MEMORY and outputs untouched") {
  if (!can_fault<Kokkos::DefaultHostExecutionSpace>()) return;
  const int64_t n = 600, m = 700, k = 4;
  const host_points queries = uniform_sphere(n, 91), points = clustered(m, 92);
  // Dense operands: an SPD matrix for CG, a full-rank one for QR, a grid for diffuse.
  const int64_t d = 48, rows = 40, columns = 36, fft_length = 512;
  std::vector<double> spd(d * d), rhs(d), x(d), general(d * d), q(d * d), r(d * d), tau(d),
      factors(d * d), product(d * d), colsums(d), grid(rows * columns), laplacian(rows * columns),
      signal(2 * fft_length), spectrum(2 * fft_length), values(4096), mapped(4096), history(64);
  std::vector<int64_t> indices(n * k), counts(n), labels(m);
  std::vector<double> distances(n * k);
  for (int64_t i = 0; i < d; ++i)
    for (int64_t j = 0; j < d; ++j) {
      general[i * d + j] = std::sin(double(i * d + j)) + (i == j ? 3.0 : 0.0);
      spd[i * d + j] = (i == j ? 2.0 * d : 0.0) + 1.0 / (1.0 + double(i + j));
    }
  for (int64_t i = 0; i < d; ++i) rhs[i] = std::cos(double(i));
  const auto initial_grid = [&] {
    for (std::size_t i = 0; i < grid.size(); ++i) grid[i] = std::sin(0.1 * double(i));
  };
  for (std::size_t i = 0; i < signal.size(); ++i) signal[i] = std::cos(0.37 * double(i * i % 97));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::sin(1.7 * double(i)) * 1e3;
  double scalar = 0.0;
  int64_t location = 0, clusters = 0;
  kw_cg_result cg{};
  kw_fft_shape shape{KW_FFT_LINE, 1, 1, fft_length};
  kw_fft_shape other_shape{KW_FFT_LINES, 2, 1, 3 * 7 * 11};  // for plans made under the fault
  // (kw_fft_forward runs with a plan whose first transform has run: FFTW makes its own plans
  // then, and FFTW aborts the process where one of its allocations fails, as its alloc.c says.)
  kw_fft_plan* plan = nullptr;
  REQUIRE(kw_fft_plan_create(KW_FLOAT64, KW_MEMORY_HOST, &shape, nullptr, &plan) == KW_SUCCESS);
  kw_sphere_index* index = nullptr;
  REQUIRE(kw_sphere_index_create(KW_FLOAT64, KW_MEMORY_HOST, points.values.data(), m, nullptr, &index) == KW_SUCCESS);
  kw_index* kept = nullptr;
  REQUIRE(kw_index_create(KW_FLOAT64, KW_MEMORY_HOST, 2, points.values.data(), m, nullptr, &kept) == KW_SUCCESS);
  kw_within_result* within = nullptr;
  kw_sphere_index* built = nullptr;
  kw_index* made_index = nullptr;
  kw_fft_plan* made = nullptr;
  const auto span = [](auto& vector) {
    return std::pair<void*, std::size_t>(vector.data(), vector.size() * sizeof(vector[0]));
  };
  const auto one = [](auto& value) { return std::pair<void*, std::size_t>(&value, sizeof(value)); };
  const std::vector<c_call> calls = {
      {"kw_nearest", [&] { return kw_nearest(KW_FLOAT64, KW_MEMORY_HOST, 2, queries.values.data(), n, points.values.data(), m, k, indices.data(), distances.data(), nullptr); },
       {span(indices), span(distances)}},
      {"kw_sphere_index_create", [&] { return kw_sphere_index_create(KW_FLOAT64, KW_MEMORY_HOST, points.values.data(), m, nullptr, &built); },
       {one(built)}, [&] { built = nullptr; }, true},
      {"kw_sphere_index_nearest", [&] { return kw_sphere_index_nearest(index, queries.values.data(), n, k, indices.data(), distances.data()); },
       {span(indices), span(distances)}},
      {"kw_index_create", [&] { return kw_index_create(KW_FLOAT64, KW_MEMORY_HOST, 2, points.values.data(), m, nullptr, &made_index); },
       {one(made_index)}, [&] { made_index = nullptr; }, true},
      {"kw_index_nearest", [&] { return kw_index_nearest(kept, queries.values.data(), n, k, indices.data(), distances.data()); },
       {span(indices), span(distances)}},
      {"kw_index_count_within", [&] { return kw_index_count_within(kept, queries.values.data(), n, 0.2, counts.data()); },
       {span(counts)}},
      {"kw_index_within", [&] { return kw_index_within(kept, queries.values.data(), n, 0.2, &within); },
       {one(within)}, [&] { within = nullptr; }, true},
      {"kw_count_within", [&] { return kw_count_within(KW_FLOAT64, KW_MEMORY_HOST, 2, queries.values.data(), n, points.values.data(), m, 0.2, counts.data(), nullptr); },
       {span(counts)}},
      {"kw_within", [&] { return kw_within(KW_FLOAT64, KW_MEMORY_HOST, 2, queries.values.data(), n, points.values.data(), m, 0.2, nullptr, &within); },
       {one(within)}, [&] { within = nullptr; }, true},
      {"kw_dbscan", [&] { return kw_dbscan(KW_FLOAT64, KW_MEMORY_HOST, 2, points.values.data(), m, 0.01, 5, labels.data(), &clusters, nullptr); },
       {span(labels), one(clusters)}},
      {"kw_diffuse", [&] { return kw_diffuse(KW_FLOAT64, KW_MEMORY_HOST, grid.data(), rows, columns, columns, 3, 0.1, laplacian.data(), columns); },
       {span(grid), span(laplacian)}, initial_grid},
      {"kw_sum", [&] { return kw_sum(KW_FLOAT64, KW_MEMORY_HOST, int64_t(values.size()), values.data(), 1, &scalar); },
       {one(scalar)}},
      {"kw_norm2", [&] { return kw_norm2(KW_FLOAT64, KW_MEMORY_HOST, int64_t(values.size()) / 3, values.data(), 3, &scalar); },
       {one(scalar)}},
      {"kw_min_location", [&] { return kw_min_location(KW_FLOAT64, KW_MEMORY_HOST, int64_t(values.size()), values.data(), 1, &scalar, &location); },
       {one(scalar), one(location)}},
      {"kw_transform", [&] { return kw_transform(KW_FLOAT64, KW_MEMORY_HOST, KW_MAP_SAXPY, 2.5, int64_t(values.size()), mapped.data(), values.data(), values.data()); },
       {span(mapped)}},
      {"kw_gemm", [&] { return kw_gemm(KW_FLOAT64, KW_MEMORY_HOST, KW_ROW_MAJOR, d, d, d, 1.5, general.data(), d, spd.data(), d, 0.5, product.data(), d); },
       {span(product)}},
      {"kw_matmul_colsum", [&] { return kw_matmul_colsum(KW_FLOAT64, KW_MEMORY_HOST, KW_ROW_MAJOR, d, d, d, general.data(), d, spd.data(), d, colsums.data()); },
       {span(colsums)}},
      {"kw_qr", [&] { return kw_qr(KW_FLOAT64, KW_MEMORY_HOST, KW_ROW_MAJOR, KW_QR_REDUCED, KW_QR_AUTOMATIC, d, d, general.data(), d, q.data(), d, r.data(), d); },
       {span(q), span(r)}},
      {"kw_qr (generic)", [&] { return kw_qr(KW_FLOAT64, KW_MEMORY_HOST, KW_ROW_MAJOR, KW_QR_REDUCED, KW_QR_GENERIC, d, d, general.data(), d, q.data(), d, r.data(), d); },
       {span(q), span(r)}},
      {"kw_qr_factor", [&] { return kw_qr_factor(KW_FLOAT64, KW_MEMORY_HOST, KW_ROW_MAJOR, KW_QR_AUTOMATIC, d, d, general.data(), d, factors.data(), d, tau.data()); },
       {span(factors), span(tau)}},
      {"kw_solve_least_squares", [&] { return kw_solve_least_squares(KW_FLOAT64, KW_MEMORY_HOST, KW_ROW_MAJOR, KW_QR_AUTOMATIC, d, d, general.data(), d, 1, rhs.data(), 1, x.data(), 1); },
       {span(x)}},
      {"kw_fft_plan_create", [&] { return kw_fft_plan_create(KW_FLOAT64, KW_MEMORY_HOST, &other_shape, nullptr, &made); },
       {one(made)}, [&] { made = nullptr; }, true},
      {"kw_fft_forward", [&] { return kw_fft_forward(plan, signal.data(), spectrum.data()); },
       {span(spectrum)}},
      {"kw_cg_dense", [&] { return kw_cg_dense(KW_FLOAT64, KW_MEMORY_HOST, KW_ROW_MAJOR, d, spd.data(), d, rhs.data(), x.data(), 1e-12, 200, &cg, history.data(), int64_t(history.size())); },
       {span(x), one(cg), span(history)}, [&] { std::fill(x.begin(), x.end(), 0.0); }},
  };
  const auto release = [&] {  // the handles calls made
    kw_sphere_index_destroy(built);
    kw_index_destroy(made_index);
    kw_within_result_destroy(within);
    kw_fft_plan_destroy(made);
    built = nullptr;
    made_index = nullptr;
    within = nullptr;
    made = nullptr;
  };
  std::string summary;
  for (const auto& call : calls) {
    CAPTURE(call.name);
    // The answer without the fault (of a handle, only that one was made).
    fill_outputs(call);
    REQUIRE(call.run() == KW_SUCCESS);
    const auto expected = output_bytes(call);
    release();
    summary += call.name + ":";
    // (From 1 KiB: below it, Kokkos 3.4 cannot compose its own message, whose text is cut
    // before it says what failed.)
    for (const std::size_t limit : {std::size_t(1) << 10, std::size_t(8) << 10, std::size_t(64) << 10}) {
      CAPTURE(limit);
      fill_outputs(call);
      const auto before = output_bytes(call);
      kw_status status;
      long failed = 0;
      {
        memory_pressure<Kokkos::DefaultHostExecutionSpace> pressure(limit);
        status = call.run();
        failed = pressure.failed();
      }
      const std::string message = status == KW_SUCCESS ? "" : kw_last_error();
      INFO(message);
      if (status == KW_SUCCESS) {
        if (call.makes_handle)
          CHECK(output_bytes(call) != before);  // a handle was made
        else
          CHECK(output_bytes(call) == expected);
      } else {
        CHECK(status == KW_OUT_OF_MEMORY);
        CHECK(message.find("out of memory") != std::string::npos);
        CHECK(output_bytes(call) == before);
        CHECK(failed > 0);
      }
      summary += " " + std::to_string(limit) + (status == KW_SUCCESS ? " ok" : " oom") + "(" +
                 std::to_string(failed) + ")";
      release();
    }
    summary += "\n";
  }
  MESSAGE(summary);
  kw_sphere_index_destroy(index);
  kw_index_destroy(kept);
  kw_fft_plan_destroy(plan);
}

}  // namespace
