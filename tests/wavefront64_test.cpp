// The shared GPU kernels of backends/gpu at the width of AMD's wavefronts, 64 lanes, where no
// AMD GPU runs them: on CUDA, through a test-only runtime whose "wavefront" is two warps of a
// block. Its shuffles and ballots go through an exchange in global memory (the scan's shared
// memory is already at the 48 KiB a block may declare), ordered by a named barrier of the two
// warps (bar.sync id, 64), which is also its sync_lanes; its lane masks are 64 bits. It gives
// HIP's semantics (hip_runtime: __shfl, __shfl_down, __shfl_xor at width 64, __ballot).
//
// Checked against independent references:
// - the runtime itself, lane by lane, against what HIP's shuffles and ballots give;
// - nearest neighbours, k = 1 (the scan, its events, lists and tile edges at 64, the merge of
//   the splits, the overflow's decision pass with its 64-wide minimum), on the benchmark's
//   layouts and adversarial sets, against the float64 brute force, and bit for bit against
//   the same kernels at CUDA's 32;
// - the float64 sums and the midpoint rule (the reductions' 64-wide shuffle tree), against long
//   double sums on the host.
// The other GPU kernels (k = 2 to 32, diffusion, gemm, the fused column sum, the elementwise
// maps) have no width in them: their tiles are the same on both runtimes.
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernwerk/cuda/runtime.hpp"
#include "kernwerk/gpu/nearest_kernels.hpp"
#include "kernwerk/gpu/reduce_kernels.hpp"
#include "kernwerk/reference.hpp"
#include "layouts.hpp"
#include "nearest_support.hpp"

namespace kernwerk::test {
namespace {

constexpr int wavefront_lanes = 64;
constexpr int fronts_per_block = 4;               // the kernels' blocks have 256 threads at most
constexpr unsigned exchange_blocks = 1u << 13;    // more than any launch of these tests
__device__ unsigned long long* exchange_slots;    // [block][front][lane], one word a lane

// A wavefront of 64 lanes: threads 64 f to 64 f + 63 of a block (warps 2 f and 2 f + 1).
struct wavefront64_runtime : cuda_impl::cuda_runtime {
  static constexpr int warp_size = wavefront_lanes;
  using lane_mask = unsigned long long;

  __device__ static int lane() { return int(threadIdx.x % wavefront_lanes); }
  __device__ static void sync_lanes() {
    asm volatile("bar.sync %0, %1;" ::"r"(1 + int(threadIdx.x / wavefront_lanes)),
                 "r"(wavefront_lanes)
                 : "memory");
  }
  // Every lane offers `value`; each gets the one of lane `source`.
  template <class T>
  __device__ static T exchange(T value, int source) {
    static_assert(sizeof(T) <= sizeof(unsigned long long));
    const unsigned long long block =
        blockIdx.x + std::uint64_t(gridDim.x) * (blockIdx.y + std::uint64_t(gridDim.y) * blockIdx.z);
    if (block >= exchange_blocks || blockDim.x > fronts_per_block * wavefront_lanes ||
        blockDim.x % wavefront_lanes != 0)
      __trap();
    volatile unsigned long long* slots =
        exchange_slots + (block * fronts_per_block + threadIdx.x / wavefront_lanes) * wavefront_lanes;
    unsigned long long bits = 0;
    memcpy(&bits, &value, sizeof(T));
    slots[lane()] = bits;
    sync_lanes();
    bits = slots[source];
    sync_lanes();  // read by all before the next exchange writes
    T result;
    memcpy(&result, &bits, sizeof(T));
    return result;
  }
  template <class T>
  __device__ static T shuffle(T value, int source) {
    return exchange(value, source & (wavefront_lanes - 1));
  }
  template <class T>
  __device__ static T shuffle_down(T value, int offset) {  // past the last lane: its own
    return exchange(value, lane() + offset < wavefront_lanes ? lane() + offset : lane());
  }
  template <class T>
  __device__ static T shuffle_xor(T value, int mask) {
    return exchange(value, lane() ^ mask);
  }
  __device__ static lane_mask ballot(bool predicate) {
    const unsigned warp = __ballot_sync(0xffffffffu, predicate);
    const lane_mask low = exchange(warp, 0), high = exchange(warp, 32);
    return low | high << 32;
  }
  __device__ static int lowest_lane(lane_mask mask) { return __ffsll(mask) - 1; }
  __device__ static int lane_count(lane_mask mask) { return __popcll(mask); }
};

// The exchange's global memory, once per process (freed when Kokkos finalises).
void prepare_exchange() {
  static const bool done = [] {
    void* slots = nullptr;
    const std::size_t bytes =
        std::size_t(exchange_blocks) * fronts_per_block * wavefront_lanes * sizeof(unsigned long long);
    REQUIRE(cudaMalloc(&slots, bytes) == cudaSuccess);
    REQUIRE(cudaMemcpyToSymbol(exchange_slots, &slots, sizeof(slots)) == cudaSuccess);
    Kokkos::push_finalize_hook([slots] { cudaFree(slots); });
    return true;
  }();
  (void)done;
}

using runtime64 = wavefront64_runtime;
using runtime32 = cuda_impl::cuda_runtime;

// --- the runtime, lane by lane ----------------------------------------------------------------

constexpr int probe_threads = 256;
constexpr int probe_results = 9;

__global__ void probe_lanes(long long* out) {
  using R = runtime64;
  const int t = threadIdx.x, lane = t % 64, front = t / 64;
  const int value = 3 * t + 1;
  long long* row = out + t * probe_results;
  row[0] = R::shuffle(value, 63 - lane);
  row[1] = R::shuffle_down(value, 1);
  row[2] = R::shuffle_down(value, 32);
  row[3] = R::shuffle_xor(value, 32);
  row[4] = R::shuffle_xor(value, 5);
  const double half = R::shuffle(0.5 * t - 100.25, lane + 37);  // 37 and up: modulo 64
  memcpy(&row[5], &half, sizeof(half));
  row[6] = (long long)R::ballot((t % 3 == 0) != (front == 2));
  row[7] = R::lowest_lane(R::ballot(lane >= 40 + front));
  row[8] = R::lane_count(R::ballot(lane % 7 == front));
}

TEST_CASE("wavefront64: the emulated runtime gives HIP's shuffles and ballots at 64 lanes") {
  prepare_exchange();
  Kokkos::View<long long*, Kokkos::CudaSpace> out("probe", probe_threads * probe_results);
  probe_lanes<<<1, probe_threads>>>(out.data());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<long long> got(out.extent(0));
  Kokkos::deep_copy(Kokkos::View<long long*, Kokkos::HostSpace>(got.data(), got.size()), out);

  const auto value = [](int thread) { return 3LL * thread + 1; };
  int wrong = 0;
  for (int t = 0; t < probe_threads; ++t) {
    const int lane = t % 64, front = t / 64, base = 64 * front;
    std::vector<long long> expected(probe_results);
    expected[0] = value(base + 63 - lane);
    expected[1] = value(lane + 1 < 64 ? t + 1 : t);
    expected[2] = value(lane + 32 < 64 ? t + 32 : t);
    expected[3] = value(base + (lane ^ 32));
    expected[4] = value(base + (lane ^ 5));
    const double half = 0.5 * (base + (lane + 37) % 64) - 100.25;
    std::memcpy(&expected[5], &half, sizeof(half));
    unsigned long long mask = 0, above = 0;
    int count = 0;
    for (int l = 0; l < 64; ++l) {
      if (((base + l) % 3 == 0) != (front == 2)) mask |= 1ULL << l;
      if (l >= 40 + front && above == 0) above = 1ULL << l;
      count += l % 7 == front;
    }
    expected[6] = (long long)mask;
    expected[7] = __builtin_ctzll(above);
    expected[8] = count;
    for (int r = 0; r < probe_results; ++r)
      if (got[t * probe_results + r] != expected[r] && ++wrong <= 8)
        FAIL_CHECK("thread " << t << ", result " << r << ": " << got[t * probe_results + r]
                             << ", expected " << expected[r]);
  }
  CHECK(wrong == 0);
}

// --- nearest neighbours -----------------------------------------------------------------------

// The tuned k nearest of Runtime's kernels, on device copies of the points.
template <class Runtime>
neighbours run_tuned(const host_points& observations, const host_points& references, int k,
                     const nearest_options& options) {
  const std::size_t n = observations.count(), m = references.count();
  const auto obs = to_device<Kokkos::Cuda>(observations);
  const auto ref = to_device<Kokkos::Cuda>(references);
  Kokkos::View<std::int64_t*, Kokkos::CudaSpace> indices("indices", n * k);  // (n, k) row-major
  Kokkos::View<double*, Kokkos::CudaSpace> distances("distances", n * k);
  using points = impl::method_points<double, Kokkos::CudaSpace>;
  using output = impl::method_output<std::int64_t, double, Kokkos::CudaSpace>;
  gpu_impl::nearest_gpu_tuned<Runtime>::run(
      Kokkos::Cuda(), points(obs.data(), n, 2), points(ref.data(), m, 2),
      output{impl::method_matrix<std::int64_t, Kokkos::CudaSpace>(indices.data(), n, k),
             impl::method_matrix<double, Kokkos::CudaSpace>(distances.data(), n, k), false},
      k, impl::radians_per_unit(options.units), options.radius);
  return {to_host_vector<std::int64_t, Kokkos::Cuda>(indices),
          to_host_vector<double, Kokkos::Cuda>(distances), std::size_t(k)};
}

// The 64-lane answers: every row against the float64 brute force (distances to within
// `precision` of the reference's), and bit for bit the 32-lane kernels' answers.
void check_wavefront(const host_points& observations, const host_points& references, int k,
                     const nearest_options& options = {}, double precision = 1e-12) {
  prepare_exchange();
  const neighbours wide = run_tuned<runtime64>(observations, references, k, options);
  const neighbours narrow = run_tuned<runtime32>(observations, references, k, options);
  check_all(observations, references, wide, options, precision);
  int differing = 0;
  for (std::size_t i = 0; i < observations.count(); ++i) {
    for (int q = 0; q < k; ++q) {
      const std::size_t at = i * k + q;
      const bool same = wide.indices[at] == narrow.indices[at] &&
                        std::memcmp(&wide.distances[at], &narrow.distances[at], sizeof(double)) == 0;
      if (!same && ++differing <= 5)
        FAIL_CHECK("observation " << i << ", neighbour " << q << ": 64 lanes give "
                                  << wide.indices[at] << " at " << wide.distances[at]
                                  << ", 32 lanes " << narrow.indices[at] << " at "
                                  << narrow.distances[at]);
    }
  }
  CHECK(differing == 0);
}

TEST_CASE("wavefront64: nearest, k = 1, on the benchmark's layouts") {
  // References not a whole number of wavefronts, observations not of blocks; the small sets
  // split the references over blocks (splits of 512 and more, not multiples of 64 either).
  const std::size_t sizes[][2] = {{3001, 2037}, {100, 40000}};
  std::uint64_t seed = 11;
  for (const auto& name : layouts::names())
    for (const auto& size : sizes) {
      CAPTURE(name);
      CAPTURE(size[0]);
      const auto pair = layouts::make(name, size[0], size[1], seed++);
      check_wavefront(as_points(pair.observations), as_points(pair.references), 1);
    }
}

TEST_CASE("wavefront64: nearest, k = 1, at the edges of tiles and wavefronts") {
  const host_points observations = uniform_sphere(1300, 5);
  for (std::size_t m : {1, 2, 63, 64, 65, 127, 129, 1023, 1024, 1025, 1089}) {
    CAPTURE(m);
    check_wavefront(observations, uniform_sphere(m, 100 + m), 1);
  }
  check_wavefront(uniform_sphere(1, 7), uniform_sphere(777, 8), 1);
}

TEST_CASE("wavefront64: nearest, k = 1, adversarial sets") {
  SUBCASE("poles and the date line") {
    host_points references, observations;
    for (double lon : {-M_PI, -M_PI + 1e-9, -1.0, 0.0, 2.5, M_PI - 1e-9, M_PI}) {
      references.add(M_PI / 2, lon);
      references.add(-M_PI / 2, lon);
      references.add(M_PI / 2 - 1e-7, lon);
      references.add(0.3, lon);
      observations.add(M_PI / 2, -lon);
      observations.add(-M_PI / 2 + 1e-9, lon / 2);
      observations.add(0.3, lon == M_PI ? -M_PI : lon);
      observations.add(-0.2, lon + (lon > 0 ? -1e-10 : 1e-10));
    }
    const host_points more = uniform_sphere(300, 9);
    for (std::size_t j = 0; j < more.count(); ++j) references.add_copy(more, j);
    check_wavefront(observations, references, 1);
  }
  SUBCASE("a reference repeated past the candidate lists (the decision pass)") {
    host_points references = uniform_sphere(500, 21);
    const host_points repeated = uniform_sphere(3, 22);
    for (int copy = 0; copy < 150; ++copy)
      for (std::size_t j = 0; j < repeated.count(); ++j) references.add_copy(repeated, j);
    host_points observations = uniform_sphere(2000, 23);
    for (std::size_t j = 0; j < repeated.count(); ++j) observations.add_copy(repeated, j);
    check_wavefront(observations, references, 1);
  }
  SUBCASE("antipodes of a tight cap") {
    const auto pair = layouts::make("cap-1e-5", 0, 3000, 31);
    host_points references = as_points(pair.references), observations;
    for (std::size_t j = 0; j < 64; ++j) {
      const double lat = references.values[2 * j], lon = references.values[2 * j + 1];
      observations.add(-lat, lon > 0 ? lon - M_PI : lon + M_PI);
    }
    // Every reference near pi away: the haversine's angle 2 asin(sqrt(a)) has the slope
    // 1 / sqrt(1 - a) there, so its rounding reaches 1e-11 (within_test.cpp says the same); the
    // neighbours themselves are still checked exactly.
    check_wavefront(observations, references, 1, {}, 1e-8);
  }
  SUBCASE("degrees, on Earth") {
    nearest_options options;
    options.units = angle_unit::degrees;
    options.radius = 6371.0088;
    check_wavefront(uniform_sphere(2500, 41, true), uniform_sphere(3100, 42, true), 1, options);
  }
}

// --- reductions -------------------------------------------------------------------------------

// A long double sum with Neumaier's compensation: the host's reference.
struct long_double_sum {
  long double sum = 0.0L, carry = 0.0L;
  void add(long double x) {
    const long double total = sum + x;
    carry += std::fabs(sum) >= std::fabs(x) ? (sum - total) + x : (x - total) + sum;
    sum = total;
  }
  double value() const { return double(sum + carry); }
};

// Values with cancellation over several orders of magnitude.
std::vector<double> spread_values(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), exponent(-3.0, 3.0);
  std::vector<double> values(count);
  for (auto& v : values) v = unit(random) * std::pow(10.0, exponent(random));
  return values;
}

template <class T>
void check_sum(std::size_t n, std::size_t offset, std::uint64_t seed) {
  CAPTURE(n);
  CAPTURE(offset);
  prepare_exchange();
  const auto doubles = spread_values(n + offset, seed);
  const std::vector<T> values(doubles.begin(), doubles.end());
  Kokkos::View<T*, Kokkos::CudaSpace> device("values", values.size());
  Kokkos::deep_copy(device, Kokkos::View<const T*, Kokkos::HostSpace>(values.data(), values.size()));
  // From `offset` on: the first elements before a 16-byte boundary take the head's path.
  using view = Kokkos::View<const T*, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged>;
  const view x(device.data() + offset, n);
  REQUIRE(gpu_impl::gpu_sum<runtime64, view>::covers(x));
  const double wide = gpu_impl::gpu_sum<runtime64, view>::run(Kokkos::Cuda(), x);
  const double narrow = gpu_impl::gpu_sum<runtime32, view>::run(Kokkos::Cuda(), x);
  long_double_sum expected;
  double magnitude = 0.0;
  for (std::size_t i = offset; i < values.size(); ++i) {
    expected.add(values[i]);
    magnitude += std::fabs(double(values[i]));
  }
  const double tolerance = 1e-15 * magnitude + 1e-300;
  CHECK(std::fabs(wide - expected.value()) <= tolerance);
  CHECK(std::fabs(wide - narrow) <= tolerance);
}

TEST_CASE("wavefront64: float64 sums of float and double arrays") {
  std::uint64_t seed = 50;
  for (std::size_t n : {1, 3, 63, 64, 65, 255, 257, 100003, 4000037})
    for (std::size_t offset : {0, 1, 3}) {
      check_sum<double>(n, offset, seed++);
      check_sum<float>(n, offset, seed++);
    }
}

struct wavy {
  KOKKOS_INLINE_FUNCTION double operator()(double x, double y) const {
    return sin(3.0 * x) * cos(2.0 * y) + 0.25 * x * y - 0.1;
  }
};

TEST_CASE("wavefront64: the midpoint rule's sum") {
  prepare_exchange();
  for (const auto& size : {std::pair<std::int64_t, std::int64_t>{1, 1}, {3, 5}, {1000, 777},
                           {5000, 64}, {70, 20001}}) {
    CAPTURE(size.first);
    CAPTURE(size.second);
    const impl::midpoint_grid grid{-1.0, 2.0 / double(size.first), 0.0, 1.5 / double(size.second),
                                   size.first, size.second};
    const double wide = gpu_impl::gpu_integrate<runtime64>::run(Kokkos::Cuda(), wavy{}, grid);
    const double narrow = gpu_impl::gpu_integrate<runtime32>::run(Kokkos::Cuda(), wavy{}, grid);
    long_double_sum expected;
    double magnitude = 0.0;
    for (std::int64_t i = 0; i < grid.n; ++i)
      for (std::int64_t j = 0; j < grid.m; ++j) {
        const double v = wavy{}(grid.x(i), grid.y(j));
        expected.add(v);
        magnitude += std::fabs(v);
      }
    // (the device's sin and cos are within a few units in the last place of the host's)
    CHECK(std::fabs(wide - expected.value()) <= 1e-14 * magnitude + 1e-300);
    CHECK(std::fabs(wide - narrow) <= 1e-15 * magnitude + 1e-300);
  }
}

}  // namespace
}  // namespace kernwerk::test
