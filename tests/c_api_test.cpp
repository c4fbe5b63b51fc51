// The C interface against the C++ one, and its failures: status, message naming the argument,
// outputs untouched. Host memory runs on the host space, device memory on the default space.
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "bad_inputs.hpp"
#include "kernwerk.h"
#include "kernwerk/dbscan.hpp"
#include "kernwerk/diffuse.hpp"
#include "kernwerk/linear_algebra.hpp"
#include "kernwerk/nearest.hpp"
#include "kernwerk/reductions.hpp"
#include "kernwerk/within.hpp"

namespace c_api_test {

// Memory of the kind a C caller names: host vectors, or device allocations of the default
// space (the same as host in a host-only build), filled from and read back into host vectors.
template <class T>
struct buffer {
  kw_memory memory;
  Kokkos::View<T*, Kokkos::DefaultExecutionSpace::memory_space> device;
  std::vector<T> host;
  buffer(kw_memory where, const std::vector<T>& values) : memory(where), host(values) {
    if (memory == KW_MEMORY_DEVICE) {
      device = decltype(device)("buffer", values.size());
      Kokkos::deep_copy(device, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                    values.data(), values.size()));
    }
  }
  T* data() { return memory == KW_MEMORY_DEVICE ? device.data() : host.data(); }
  std::vector<T> values() const {
    if (memory == KW_MEMORY_HOST) return host;
    std::vector<T> out(device.extent(0));
    Kokkos::deep_copy(Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(out.data(), out.size()),
                      device);
    return out;
  }
};

template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed, double low, double high) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(low, high);
  std::vector<T> v(n);
  for (auto& x : v) x = T(uniform(random));
  return v;
}

void expect_failure(kw_status status, kw_status expected, const std::string& fragment) {
  const std::string message = kw_last_error();
  INFO(message);
  CHECK(status == expected);
  CHECK(message.find(fragment) != std::string::npos);
}

double sine_of_sum(double x, double y, void* context) {
  return *static_cast<double*>(context) * std::sin(x + y);
}

}  // namespace c_api_test

namespace {

using namespace c_api_test;

TEST_CASE("C API: initialisation leaves the application's Kokkos alone") {
  REQUIRE(kw_is_initialized() == 1);  // the test program initialised Kokkos
  CHECK(kw_initialize() == KW_SUCCESS);
  CHECK(kw_finalize() == KW_SUCCESS);
  CHECK(kw_is_initialized() == 1);
  CHECK(std::string(kw_status_message(KW_NOT_CONVERGED)) == "the iteration did not converge");
}

TEST_CASE("C API: nearest equals the C++ call, on host and device memory") {
  const int64_t n = 3000, m = 700, k = 3;
  for (kw_memory memory : {KW_MEMORY_HOST, KW_MEMORY_DEVICE}) {
    CAPTURE(int(memory));
    std::vector<double> points = random_values<double>(2 * n, 1, -1.5, 1.5);
    std::vector<double> refs = random_values<double>(2 * m, 2, -1.5, 1.5);
    buffer<double> obs(memory, points), ref(memory, refs), dist(memory, std::vector<double>(n * k, -1));
    buffer<int64_t> idx(memory, std::vector<int64_t>(n * k, -1));
    kw_nearest_options options;
    kw_nearest_options_default(&options);
    REQUIRE(kw_nearest(KW_FLOAT64, memory, 2, obs.data(), n, ref.data(), m, k, idx.data(), dist.data(), &options) ==
            KW_SUCCESS);
    Kokkos::View<int64_t**, Kokkos::LayoutRight, Kokkos::HostSpace> expected_idx("i", n, k);
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> expected_dist("d", n, k);
    using host_points = Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    kernwerk::nearest(Kokkos::DefaultHostExecutionSpace(), host_points(points.data(), n, 2),
                      host_points(refs.data(), m, 2), expected_idx, expected_dist);
    const auto got_idx = idx.values();
    const auto got_dist = dist.values();
    std::size_t wrong = 0;
    for (int64_t e = 0; e < n * k; ++e)
      wrong += got_idx[e] != expected_idx.data()[e] ||
               std::abs(got_dist[e] - expected_dist.data()[e]) > 1e-15;
    CHECK(wrong == 0);

    // Bad input: the status, the argument named, outputs as they were.
    const auto before = idx.values();
    expect_failure(kw_nearest(KW_FLOAT64, memory, 2, nullptr, n, ref.data(), m, k, idx.data(), dist.data(), nullptr),
                   KW_INVALID_ARGUMENT, "kw_nearest: observations: is NULL");
    expect_failure(kw_nearest(KW_FLOAT64, memory, 2, obs.data(), -5, ref.data(), m, k, idx.data(), dist.data(), nullptr),
                   KW_INVALID_ARGUMENT, "n: must not be negative");
    expect_failure(kw_nearest(KW_FLOAT64, memory, 2, obs.data(), n, ref.data(), m, 0, idx.data(), dist.data(), nullptr),
                   KW_INVALID_ARGUMENT, "k: must be at least 1, got 0");
    expect_failure(kw_nearest(KW_FLOAT64, memory, 2, obs.data(), n, ref.data(), m, m + 1, idx.data(), dist.data(), nullptr),
                   KW_INVALID_ARGUMENT, "k: " + std::to_string(m + 1) + " neighbours, but m = " + std::to_string(m));
    expect_failure(kw_nearest(kw_type(7), memory, 2, obs.data(), n, ref.data(), m, k, idx.data(), dist.data(), nullptr),
                   KW_INVALID_ARGUMENT, "type: is neither");
    expect_failure(kw_nearest(KW_FLOAT64, kw_memory(5), 2, obs.data(), n, ref.data(), m, k, idx.data(), dist.data(), nullptr),
                   KW_INVALID_ARGUMENT, "memory: is neither");
    points[2 * 17] = std::nan("");
    buffer<double> bad(memory, points);
    expect_failure(kw_nearest(KW_FLOAT64, memory, 2, bad.data(), n, ref.data(), m, k, idx.data(), dist.data(), nullptr),
                   KW_INVALID_ARGUMENT, "observations: point 17");
    options.method = 9;
    expect_failure(kw_nearest(KW_FLOAT64, memory, 2, obs.data(), n, ref.data(), m, k, idx.data(), dist.data(), &options),
                   KW_INVALID_ARGUMENT, "options->method");
    CHECK(idx.values() == before);
#if defined(KOKKOS_ENABLE_CUDA)
    if (memory == KW_MEMORY_DEVICE) {  // a host pointer named device memory
      std::vector<double> host_points_copy = refs;
      expect_failure(kw_nearest(KW_FLOAT64, memory, 2, obs.data(), n, host_points_copy.data(), m, k, idx.data(),
                                dist.data(), nullptr),
                     KW_INVALID_ARGUMENT, "references: is host memory, but memory is KW_MEMORY_DEVICE");
    } else {
      buffer<double> on_device(KW_MEMORY_DEVICE, refs);
      expect_failure(kw_nearest(KW_FLOAT64, memory, 2, obs.data(), n, on_device.data(), m, k, idx.data(),
                                dist.data(), nullptr),
                     KW_INVALID_ARGUMENT, "references: is device memory, but memory is KW_MEMORY_HOST");
    }
#endif
  }
}

// The catalogue of bad_inputs.txt through kw_nearest, on host and device memory: a good call
// (4 observations, 3 references, k = 2) spoilt one way per case.
TEST_CASE("C API: the bad-input catalogue") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> good_obs{0.0, 0.0, 0.1, -0.2, 0.2, -0.4, 0.3, -0.6};
  const std::vector<double> good_ref{0.0, 0.0, 0.3, 0.1, 0.6, 0.2};
  const auto catalogue = kernwerk::test::bad_input_catalogue();
  for (kw_memory memory : {KW_MEMORY_HOST, KW_MEMORY_DEVICE}) {
    for (const auto& bad : catalogue) {
      const std::string& argument = bad.named_by(kernwerk::test::interface::c);
      if (argument == "-") continue;
      CAPTURE(bad.name);
      CAPTURE(int(memory));
      std::vector<double> obs_values = good_obs, ref_values = good_ref;
      int64_t n = 4, m = 3, k = 2;
      kw_nearest_options options;
      kw_nearest_options_default(&options);
      const std::string& name = bad.name;
      static const std::set<std::string> known{
          "nan_observation", "infinite_reference", "latitude_past_north_pole",
          "latitude_past_south_pole", "longitude_beyond_limits", "empty_observations",
          "empty_references", "k_zero", "k_above_references", "bad_metric",
          "negative_radius", "distances_alias_observations", "indices_alias_references",
          "null_observations", "null_distances", "wrong_memory_space"};
      if (!known.count(name)) FAIL("bad_inputs.txt names a case this driver does not know: " << name);
      if (name == "nan_observation") obs_values[2 * 2 + 1] = nan;
      else if (name == "infinite_reference") ref_values[2 * 1] = -inf;
      else if (name == "latitude_past_north_pole") obs_values[2 * 3] = 1.5708;
      else if (name == "latitude_past_south_pole") ref_values[0] = -1.5708;
      else if (name == "longitude_beyond_limits") obs_values[1] = 1e300;
      else if (name == "empty_observations") n = 0;
      else if (name == "empty_references") m = 0;
      else if (name == "k_zero") k = 0;
      else if (name == "k_above_references") k = 4;
      else if (name == "bad_metric") options.metric = 7;
      else if (name == "negative_radius") options.radius = -1;
      buffer<double> obs(memory, obs_values), ref(memory, ref_values);
      // room for any k, so that a check that failed to stop the call could not write past them
      buffer<double> dist(memory, std::vector<double>(4 * 33, -5.0));
      buffer<int64_t> idx(memory, std::vector<int64_t>(4 * 33, -5));
      const void* observations = obs.data();
      const void* references = ref.data();
      int64_t* indices = idx.data();
      void* distances = dist.data();
      std::vector<double> host_copy = good_obs;
      if (name == "distances_alias_observations") distances = obs.data();
      else if (name == "indices_alias_references") indices = reinterpret_cast<int64_t*>(ref.data());
      else if (name == "null_observations") observations = nullptr;
      else if (name == "null_distances") distances = nullptr;
      else if (name == "wrong_memory_space") {
        if (memory == KW_MEMORY_HOST || std::is_same_v<Kokkos::DefaultExecutionSpace::memory_space,
                                                       Kokkos::HostSpace>)
          continue;  // host pointers are device memory in a host build
        observations = host_copy.data();
      }
      const kw_status status = kw_nearest(KW_FLOAT64, memory, 2, observations, n, references, m, k,
                                          indices, distances, &options);
      const std::string message = kw_last_error();
      INFO(message);
      CHECK(status == KW_INVALID_ARGUMENT);
      // (the C layer's checks say kernwerk::kw_nearest, the C++ call's kernwerk::nearest)
      CHECK((message.rfind("kernwerk::kw_nearest: " + argument + ": ", 0) == 0 ||
             message.rfind("kernwerk::nearest: " + argument + ": ", 0) == 0));
      const auto idx_after = idx.values();
      const auto dist_after = dist.values();
      CHECK(std::count(idx_after.begin(), idx_after.end(), int64_t(-5)) == 4 * 33);
      CHECK(std::count(dist_after.begin(), dist_after.end(), -5.0) == 4 * 33);
      const auto same_bits = [](const std::vector<double>& a, const std::vector<double>& b) {
        return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
      };
      CHECK(same_bits(obs.values(), obs_values));
      CHECK(same_bits(ref.values(), ref_values));
    }
  }
}

TEST_CASE("C API: a sphere index built once answers as kw_nearest, on host and device memory") {
  const int64_t n = 2000, m = 900, k = 4;
  for (kw_type type : {KW_FLOAT64, KW_FLOAT32})
    for (kw_memory memory : {KW_MEMORY_HOST, KW_MEMORY_DEVICE}) {
      CAPTURE(int(type));
      CAPTURE(int(memory));
      const auto run = [&](auto zero) {
        using T = decltype(zero);
        buffer<T> obs(memory, random_values<T>(2 * n, 3, -1.5, 1.5));
        buffer<T> ref(memory, random_values<T>(2 * m, 4, -1.5, 1.5));
        buffer<T> dist(memory, std::vector<T>(n * k, -1)), expected_dist(memory, std::vector<T>(n * k, -1));
        buffer<int64_t> idx(memory, std::vector<int64_t>(n * k, -1)), expected_idx(memory, std::vector<int64_t>(n * k, -1));
        kw_nearest_options options;
        kw_nearest_options_default(&options);
        options.radius = 6371.0;
        kw_sphere_index* index = nullptr;
        REQUIRE(kw_sphere_index_create(type, memory, ref.data(), m, &options, &index) == KW_SUCCESS);
        CHECK(kw_sphere_index_size(index) == m);
        REQUIRE(kw_sphere_index_nearest(index, obs.data(), n, k, idx.data(), dist.data()) == KW_SUCCESS);
        options.method = 2;  // indexed
        REQUIRE(kw_nearest(type, memory, 2, obs.data(), n, ref.data(), m, k, expected_idx.data(),
                           expected_dist.data(), &options) == KW_SUCCESS);
        CHECK(idx.values() == expected_idx.values());
        CHECK(dist.values() == expected_dist.values());

        const auto before = idx.values();
        expect_failure(kw_sphere_index_nearest(index, obs.data(), n, m + 1, idx.data(), dist.data()),
                       KW_INVALID_ARGUMENT, "k: " + std::to_string(m + 1) + " neighbours, but the index holds");
        expect_failure(kw_sphere_index_nearest(index, nullptr, n, k, idx.data(), dist.data()),
                       KW_INVALID_ARGUMENT, "observations: is NULL");
        expect_failure(kw_sphere_index_nearest(nullptr, obs.data(), n, k, idx.data(), dist.data()),
                       KW_INVALID_ARGUMENT, "index: is NULL");
        auto bad_values = obs.values();
        bad_values[2 * 5] = T(3);  // a latitude past the pole
        buffer<T> bad(memory, bad_values);
        expect_failure(kw_sphere_index_nearest(index, bad.data(), n, k, idx.data(), dist.data()),
                       KW_INVALID_ARGUMENT, "observations: point 5");
        CHECK(idx.values() == before);
        CHECK(kw_sphere_index_destroy(index) == KW_SUCCESS);

        kw_sphere_index* none = nullptr;
        expect_failure(kw_sphere_index_create(type, memory, ref.data(), 0, nullptr, &none),
                       KW_INVALID_ARGUMENT, "references: empty set");
        CHECK(none == nullptr);
        options.metric = 1;
        expect_failure(kw_sphere_index_create(type, memory, ref.data(), m, &options, &none),
                       KW_INVALID_ARGUMENT, "options->metric");
        expect_failure(kw_sphere_index_create(type, memory, ref.data(), m, nullptr, nullptr),
                       KW_INVALID_ARGUMENT, "index: is NULL");
        CHECK(kw_sphere_index_destroy(nullptr) == KW_SUCCESS);
      };
      if (type == KW_FLOAT64) run(0.0);
      else run(0.0f);
    }
}

// Each row of `indices` (compressed rows of `offsets`) as a set, in ascending order: rows in
// any order compared with rows nearest first.
static std::vector<int64_t> rows_as_sets(const std::vector<int64_t>& offsets, std::vector<int64_t> indices) {
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
    std::sort(indices.begin() + offsets[i], indices.begin() + offsets[i + 1]);
  return indices;
}

TEST_CASE("C API: kw_index answers as kw_nearest, kw_within and kw_count_within, both metrics") {
  const int64_t n = 700, m = 1500, k = 3;
  for (kw_memory memory : {KW_MEMORY_HOST, KW_MEMORY_DEVICE})
    for (int metric : {0, 1}) {
      CAPTURE(int(memory));
      CAPTURE(metric);
      const int64_t dimension = metric == 0 ? 2 : 3;
      const double radius = metric == 0 ? 0.08 : 1.5;
      buffer<double> qs(memory, random_values<double>(dimension * n, 31, -1.5, 1.5));
      buffer<double> ps(memory, random_values<double>(dimension * m, 32, -1.5, 1.5));
      kw_within_options options;
      kw_within_options_default(&options);
      options.metric = metric;
      kw_index* index = nullptr;
      REQUIRE(kw_index_create(KW_FLOAT64, memory, dimension, ps.data(), m, &options, &index) == KW_SUCCESS);
      CHECK(kw_index_size(index) == m);
      CHECK(kw_index_dimension(index) == dimension);

      buffer<int64_t> idx(memory, std::vector<int64_t>(n * k, -1)), expected_idx(memory, std::vector<int64_t>(n * k, -1));
      buffer<double> dist(memory, std::vector<double>(n * k, -1)), expected_dist(memory, std::vector<double>(n * k, -1));
      REQUIRE(kw_index_nearest(index, qs.data(), n, k, idx.data(), dist.data()) == KW_SUCCESS);
      kw_nearest_options nearest_options;
      kw_nearest_options_default(&nearest_options);
      nearest_options.metric = metric;
      nearest_options.method = 2;  // indexed
      REQUIRE(kw_nearest(KW_FLOAT64, memory, dimension, qs.data(), n, ps.data(), m, k, expected_idx.data(),
                         expected_dist.data(), &nearest_options) == KW_SUCCESS);
      CHECK(idx.values() == expected_idx.values());
      CHECK(dist.values() == expected_dist.values());

      buffer<int64_t> counts(memory, std::vector<int64_t>(n, -1)), expected_counts(memory, std::vector<int64_t>(n, -1));
      REQUIRE(kw_index_count_within(index, qs.data(), n, radius, counts.data()) == KW_SUCCESS);
      REQUIRE(kw_count_within(KW_FLOAT64, memory, dimension, qs.data(), n, ps.data(), m, radius,
                              expected_counts.data(), &options) == KW_SUCCESS);
      CHECK(counts.values() == expected_counts.values());

      kw_within_result *kept = nullptr, *once = nullptr;
      REQUIRE(kw_index_within(index, qs.data(), n, radius, &kept) == KW_SUCCESS);
      REQUIRE(kw_within(KW_FLOAT64, memory, dimension, qs.data(), n, ps.data(), m, radius, &options, &once) ==
              KW_SUCCESS);
      const int64_t total = kw_within_result_total(once);
      CHECK(total > n);
      CHECK(kw_within_result_total(kept) == total);
      buffer<int64_t> offsets(memory, std::vector<int64_t>(n + 1)), found(memory, std::vector<int64_t>(total));
      buffer<double> found_distances(memory, std::vector<double>(total));
      buffer<int64_t> offsets_once(memory, std::vector<int64_t>(n + 1)), found_once(memory, std::vector<int64_t>(total));
      buffer<double> found_distances_once(memory, std::vector<double>(total));
      REQUIRE(kw_within_result_copy(kept, offsets.data(), found.data(), found_distances.data()) == KW_SUCCESS);
      REQUIRE(kw_within_result_copy(once, offsets_once.data(), found_once.data(), found_distances_once.data()) ==
              KW_SUCCESS);
      CHECK(offsets.values() == offsets_once.values());
      CHECK(found.values() == found_once.values());
      CHECK(found_distances.values() == found_distances_once.values());
      kw_within_result_destroy(kept);
      kw_within_result_destroy(once);

      // An index created for rows in any order without distances: the same sets, and a copy
      // that asks for the distances refused.
      kw_within_options set_only = options;
      set_only.order = 1;
      set_only.distances = 0;
      kw_index* unsorted = nullptr;
      REQUIRE(kw_index_create(KW_FLOAT64, memory, dimension, ps.data(), m, &set_only, &unsorted) == KW_SUCCESS);
      REQUIRE(kw_index_within(unsorted, qs.data(), n, radius, &kept) == KW_SUCCESS);
      REQUIRE(kw_within_result_total(kept) == total);
      buffer<int64_t> offsets_set(memory, std::vector<int64_t>(n + 1)), found_set(memory, std::vector<int64_t>(total, -1));
      const auto distances_before = found_distances.values();
      expect_failure(kw_within_result_copy(kept, offsets_set.data(), found_set.data(), found_distances.data()),
                     KW_INVALID_ARGUMENT, "kw_within_result_copy: distances: must be NULL");
      CHECK(found_distances.values() == distances_before);
      REQUIRE(kw_within_result_copy(kept, offsets_set.data(), found_set.data(), nullptr) == KW_SUCCESS);
      CHECK(offsets_set.values() == offsets.values());
      CHECK(rows_as_sets(offsets.values(), found_set.values()) == rows_as_sets(offsets.values(), found.values()));
      kw_within_result_destroy(kept);
      CHECK(kw_index_destroy(unsorted) == KW_SUCCESS);

      // Bad input: named, outputs untouched.
      const auto before = idx.values();
      expect_failure(kw_index_nearest(index, qs.data(), n, 0, idx.data(), dist.data()), KW_INVALID_ARGUMENT,
                     "k: must be at least 1, got 0");
      expect_failure(kw_index_nearest(index, nullptr, n, k, idx.data(), dist.data()), KW_INVALID_ARGUMENT,
                     "queries: is NULL");
      expect_failure(kw_index_nearest(nullptr, qs.data(), n, k, idx.data(), dist.data()), KW_INVALID_ARGUMENT,
                     "index: is NULL");
      auto bad_values = qs.values();
      bad_values[dimension * 5] = NAN;
      buffer<double> bad(memory, bad_values);
      expect_failure(kw_index_nearest(index, bad.data(), n, k, idx.data(), dist.data()), KW_INVALID_ARGUMENT,
                     "queries: point 5");
      CHECK(idx.values() == before);
      expect_failure(kw_index_count_within(index, qs.data(), n, -1.0, counts.data()), KW_INVALID_ARGUMENT,
                     "radius: must be finite");
      expect_failure(kw_index_within(index, qs.data(), n, radius, nullptr), KW_INVALID_ARGUMENT, "result: is NULL");
      expect_failure(kw_index_count_within(nullptr, qs.data(), n, radius, counts.data()), KW_INVALID_ARGUMENT,
                     "index: is NULL");
      CHECK(kw_index_destroy(index) == KW_SUCCESS);

      kw_index* none = nullptr;
      options.metric = 2;
      expect_failure(kw_index_create(KW_FLOAT64, memory, dimension, ps.data(), m, &options, &none),
                     KW_INVALID_ARGUMENT, "options->metric");
      options.metric = metric;
      expect_failure(kw_index_create(KW_FLOAT64, memory, 4, ps.data(), m, &options, &none), KW_INVALID_ARGUMENT,
                     "points: ");
      expect_failure(kw_index_create(KW_FLOAT64, memory, dimension, nullptr, m, &options, &none),
                     KW_INVALID_ARGUMENT, "points: is NULL");
      CHECK(none == nullptr);
      // An empty index finds nothing within any radius.
      REQUIRE(kw_index_create(KW_FLOAT64, memory, dimension, nullptr, 0, &options, &none) == KW_SUCCESS);
      CHECK(kw_index_size(none) == 0);
      REQUIRE(kw_index_count_within(none, qs.data(), n, radius, counts.data()) == KW_SUCCESS);
      CHECK(counts.values() == std::vector<int64_t>(n, 0));
      CHECK(kw_index_destroy(none) == KW_SUCCESS);
      CHECK(kw_index_destroy(nullptr) == KW_SUCCESS);
    }
}

TEST_CASE("C API: diffuse, reductions, maps and dense algebra against C++") {
  for (kw_memory memory : {KW_MEMORY_HOST, KW_MEMORY_DEVICE}) {
    CAPTURE(int(memory));
    // Diffusion on a 20 x 30 grid stored with row stride 32.
    const int64_t rows = 20, columns = 30, stride = 32;
    auto grid = random_values<float>(rows * stride, 3, 0, 1);
    buffer<float> field(memory, grid), lap(memory, std::vector<float>(rows * columns, 0.0f));
    REQUIRE(kw_diffuse(KW_FLOAT32, memory, field.data(), rows, columns, stride, 7, 0.25, lap.data(), columns) ==
            KW_SUCCESS);
    Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> expected("e", rows, columns);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < columns; ++j) expected(i, j) = grid[i * stride + j];
    kernwerk::diffuse(Kokkos::DefaultHostExecutionSpace(), expected, 7);
    const auto got = field.values();
    std::size_t wrong = 0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < stride; ++j)
        wrong += j < columns ? std::abs(got[i * stride + j] - expected(i, j)) > 1e-6f
                             : got[i * stride + j] != grid[i * stride + j];  // padding untouched
    CHECK(wrong == 0);
    expect_failure(kw_diffuse(KW_FLOAT32, memory, field.data(), rows, columns, columns - 1, 1, 0.25, nullptr, 0),
                   KW_INVALID_ARGUMENT, "row_stride");
    expect_failure(kw_diffuse(KW_FLOAT32, memory, field.data(), rows, columns, stride, 1, 0.5, nullptr, 0),
                   KW_INVALID_ARGUMENT, "options.coeff");

    // Reductions over a strided vector.
    const auto values = random_values<double>(2001, 4, -1, 1);
    buffer<double> x(memory, values);
    double sum = 0, norm = 0, dot = 0, low = 0;
    int64_t where = -1;
    REQUIRE(kw_sum(KW_FLOAT64, memory, 1000, x.data(), 2, &sum) == KW_SUCCESS);
    REQUIRE(kw_norm2(KW_FLOAT64, memory, 1000, x.data(), 2, &norm) == KW_SUCCESS);
    REQUIRE(kw_dot(KW_FLOAT64, memory, 1000, x.data(), 2, x.data(), 2, &dot) == KW_SUCCESS);
    REQUIRE(kw_min_location(KW_FLOAT64, memory, 1000, x.data(), 2, &low, &where) == KW_SUCCESS);
    long double s = 0, q = 0;
    double smallest = values[0];
    int64_t first = 0;
    for (int i = 0; i < 1000; ++i) {
      s += values[2 * i];
      q += values[2 * i] * values[2 * i];
      if (values[2 * i] < smallest) smallest = values[2 * i], first = i;
    }
    CHECK(sum == doctest::Approx(double(s)).epsilon(1e-14));
    CHECK(dot == doctest::Approx(double(q)).epsilon(1e-14));
    CHECK(norm == doctest::Approx(std::sqrt(double(q))).epsilon(1e-14));
    CHECK(low == smallest);
    CHECK(where == first);
    double untouched = 42;
    expect_failure(kw_sum(KW_FLOAT64, memory, 10, x.data(), 0, &untouched), KW_INVALID_ARGUMENT, "stride");
    expect_failure(kw_max_location(KW_FLOAT64, memory, 0, x.data(), 1, &untouched, &where), KW_INVALID_ARGUMENT,
                   "x: is empty");
    CHECK(untouched == 42);

    // saxpy in place: y = 2 x + y.
    buffer<double> y(memory, values);
    REQUIRE(kw_transform(KW_FLOAT64, memory, KW_MAP_SAXPY, 2.0, 2001, y.data(), x.data(), y.data()) == KW_SUCCESS);
    const auto saxpy = y.values();
    wrong = 0;
    for (std::size_t i = 0; i < values.size(); ++i) wrong += saxpy[i] != 3.0 * values[i];
    CHECK(wrong == 0);
    expect_failure(kw_transform(KW_FLOAT64, memory, KW_MAP_REL_DIFF, 0.0, 2001, y.data(), x.data(), nullptr),
                   KW_INVALID_ARGUMENT, "y: is NULL");

    // gemm, column-major, against the C++ gemm on the host.
    const int64_t m = 33, n = 17, k = 9;
    const auto a = random_values<double>(m * k, 5, -1, 1), b = random_values<double>(k * n, 6, -1, 1);
    buffer<double> av(memory, a), bv(memory, b), cv(memory, std::vector<double>(m * n, 1.0));
    REQUIRE(kw_gemm(KW_FLOAT64, memory, KW_COLUMN_MAJOR, m, n, k, 2.0, av.data(), m, bv.data(), k, 0.5, cv.data(), m) ==
            KW_SUCCESS);
    using left = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    std::vector<double> c(m * n, 1.0);
    kernwerk::gemm(Kokkos::DefaultHostExecutionSpace(), 2.0, left(const_cast<double*>(a.data()), m, k),
                   left(const_cast<double*>(b.data()), k, n), 0.5, left(c.data(), m, n));
    const auto got_c = cv.values();
    wrong = 0;
    for (std::size_t e = 0; e < c.size(); ++e) wrong += std::abs(got_c[e] - c[e]) > 1e-12;
    CHECK(wrong == 0);
    expect_failure(kw_gemm(KW_FLOAT64, memory, KW_COLUMN_MAJOR, m, n, k, 1.0, av.data(), m - 1, bv.data(), k, 0.0,
                           cv.data(), m),
                   KW_INVALID_ARGUMENT, "lda");
    CHECK(cv.values() == got_c);

    // matmul_colsum, row-major.
    buffer<double> out(memory, std::vector<double>(n, 0.0));
    REQUIRE(kw_matmul_colsum(KW_FLOAT64, memory, KW_ROW_MAJOR, m, k, n, av.data(), k, bv.data(), n, out.data()) ==
            KW_SUCCESS);
    const auto colsum = out.values();
    for (int64_t q = 0; q < n; ++q) {
      double expected_sum = 0;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t jj = 0; jj < k; ++jj) expected_sum += a[i * k + jj] * b[jj * n + q];
      CHECK(colsum[q] == doctest::Approx(expected_sum).epsilon(1e-12));
    }
  }
}

TEST_CASE("C API: conjugate gradient, dense and CSR, and its failures") {
  for (kw_memory memory : {KW_MEMORY_HOST, KW_MEMORY_DEVICE}) {
    CAPTURE(int(memory));
    // 1-D Laplacian, n = 50: tridiagonal (2, -1), SPD.
    const int64_t n = 50;
    std::vector<double> dense(n * n, 0.0), values;
    std::vector<int64_t> starts{0}, columns;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = std::max<int64_t>(0, i - 1); j <= std::min<int64_t>(n - 1, i + 1); ++j) {
        const double v = i == j ? 2.0 : -1.0;
        dense[i * n + j] = v;
        columns.push_back(j);
        values.push_back(v);
      }
      starts.push_back(int64_t(columns.size()));
    }
    const auto rhs = random_values<double>(n, 7, -1, 1);
    buffer<double> a(memory, dense), b(memory, rhs), x(memory, std::vector<double>(n, 0.0)), v(memory, values);
    buffer<int64_t> s(memory, starts), c(memory, columns);
    kw_cg_result result{-1, -1};
    std::vector<double> history(200, -1.0);
    REQUIRE(kw_cg_dense(KW_FLOAT64, memory, KW_ROW_MAJOR, n, a.data(), n, b.data(), x.data(), 1e-10, 0, &result,
                        history.data(), 200) == KW_SUCCESS);
    CHECK(result.iterations > 0);
    CHECK(result.residual_norm <= 1e-10);
    CHECK(history[0] == doctest::Approx(1.0));
    // The residual of the solution, on the host.
    const auto solution = x.values();
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      double r = rhs[i];
      for (int64_t j = 0; j < n; ++j) r -= dense[i * n + j] * solution[j];
      worst = std::max(worst, std::abs(r));
    }
    CHECK(worst < 1e-8);
    buffer<double> x2(memory, std::vector<double>(n, 0.0));
    REQUIRE(kw_cg_csr(KW_FLOAT64, memory, n, s.data(), c.data(), v.data(), b.data(), x2.data(), 1e-10, 0, &result,
                      nullptr, 0) == KW_SUCCESS);
    const auto sparse = x2.values();
    for (int64_t i = 0; i < n; ++i) CHECK(sparse[i] == doctest::Approx(solution[i]).epsilon(1e-8));

    // Failures leave x and the result as they were.
    buffer<double> x3(memory, std::vector<double>(n, 0.5));
    kw_cg_result untouched{-7, -7};
    expect_failure(kw_cg_dense(KW_FLOAT64, memory, KW_ROW_MAJOR, n, a.data(), n, b.data(), x3.data(), 1e-12, 3,
                               &untouched, nullptr, 0),
                   KW_NOT_CONVERGED, "no convergence in 3 steps");
    for (auto& e : dense) e = -e;
    buffer<double> negative(memory, dense);
    expect_failure(kw_cg_dense(KW_FLOAT64, memory, KW_ROW_MAJOR, n, negative.data(), n, b.data(), x3.data(), 1e-8, 0,
                               &untouched, nullptr, 0),
                   KW_INVALID_ARGUMENT, "a: is not positive definite");
    expect_failure(kw_cg_csr(KW_FLOAT64, memory, n, nullptr, c.data(), v.data(), b.data(), x3.data(), 1e-8, 0,
                             &untouched, nullptr, 0),
                   KW_INVALID_ARGUMENT, "row_starts: is NULL");
    expect_failure(kw_cg_dense(KW_FLOAT64, memory, KW_ROW_MAJOR, n, a.data(), n, b.data(), x3.data(), 1e-8, 0,
                               &untouched, nullptr, 5),
                   KW_INVALID_ARGUMENT, "history: is NULL");
    CHECK(untouched.iterations == -7);
    CHECK(x3.values() == std::vector<double>(n, 0.5));
  }
}

TEST_CASE("C API: radius search and DBSCAN equal the C++ calls, on host and device memory") {
  using host_points = Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  const int64_t n = 2000, m = 1500;
  const double radius = 0.05;
  std::vector<double> queries = random_values<double>(2 * n, 5, -1.0, 1.0);
  std::vector<double> points = random_values<double>(2 * m, 6, -1.0, 1.0);
  for (int64_t j = 0; j < 300; ++j) {  // a crowded corner, and copies
    points[2 * j] = 0.3 + 0.02 * points[2 * j];
    points[2 * j + 1] = -0.4 + 0.02 * points[2 * j + 1];
  }
  for (int64_t j = 300; j < 320; ++j) std::copy_n(&points[0], 2, &points[2 * j]);
  const host_points q(queries.data(), n, 2), p(points.data(), m, 2);
  const Kokkos::DefaultHostExecutionSpace host;
  Kokkos::View<int64_t*, Kokkos::HostSpace> want_offsets("o", n + 1), want_indices("i", 0);
  Kokkos::View<double*, Kokkos::HostSpace> want_distances("d", 0);
  kernwerk::within(host, q, p, radius, want_offsets, want_indices, want_distances);
  Kokkos::View<int64_t*, Kokkos::HostSpace> want_labels("l", m);
  kernwerk::dbscan_options cpp_options;
  cpp_options.border = kernwerk::border_rule::first_cluster;
  cpp_options.metric = kernwerk::metric_kind::euclidean;
  const int64_t want_clusters = kernwerk::dbscan(host, p, 0.02, 4, want_labels, cpp_options);
  REQUIRE(want_clusters > 1);

  for (kw_memory memory : {KW_MEMORY_HOST, KW_MEMORY_DEVICE}) {
    CAPTURE(int(memory));
    buffer<double> qs(memory, queries), ps(memory, points);
    buffer<int64_t> counts(memory, std::vector<int64_t>(n, -1));
    REQUIRE(kw_count_within(KW_FLOAT64, memory, 2, qs.data(), n, ps.data(), m, radius, counts.data(), nullptr) ==
            KW_SUCCESS);
    const auto got_counts = counts.values();
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) wrong += got_counts[i] != want_offsets(i + 1) - want_offsets(i);
    CHECK(wrong == 0);

    kw_within_options options;
    kw_within_options_default(&options);
    kw_within_result* result = nullptr;
    REQUIRE(kw_within(KW_FLOAT64, memory, 2, qs.data(), n, ps.data(), m, radius, &options, &result) == KW_SUCCESS);
    const int64_t total = kw_within_result_total(result);
    REQUIRE(total == want_offsets(n));
    buffer<int64_t> offsets(memory, std::vector<int64_t>(n + 1, -1)), indices(memory, std::vector<int64_t>(total, -1));
    buffer<double> distances(memory, std::vector<double>(total, -1));
    REQUIRE(kw_within_result_copy(result, offsets.data(), indices.data(), distances.data()) == KW_SUCCESS);
    CHECK(offsets.values() == std::vector<int64_t>(want_offsets.data(), want_offsets.data() + n + 1));
    CHECK(indices.values() == std::vector<int64_t>(want_indices.data(), want_indices.data() + total));
    const auto got_distances = distances.values();  // device rounding: the last bits may differ
    int64_t far = 0;
    for (int64_t e = 0; e < total; ++e) far += std::abs(got_distances[e] - want_distances(e)) > 1e-15;
    CHECK(far == 0);
    buffer<int64_t> indices_only(memory, std::vector<int64_t>(total, -1));
    REQUIRE(kw_within_result_copy(result, offsets.data(), indices_only.data(), nullptr) == KW_SUCCESS);
    CHECK(indices_only.values() == indices.values());
    CHECK(kw_within_result_destroy(result) == KW_SUCCESS);

    // Rows in any order, with and without their distances: the same neighbours, each at its
    // distance.
    for (int with_distances : {1, 0}) {
      CAPTURE(with_distances);
      kw_within_options unsorted = options;
      unsorted.order = 1;
      unsorted.distances = with_distances;
      REQUIRE(kw_within(KW_FLOAT64, memory, 2, qs.data(), n, ps.data(), m, radius, &unsorted, &result) == KW_SUCCESS);
      REQUIRE(kw_within_result_total(result) == total);
      buffer<int64_t> any_offsets(memory, std::vector<int64_t>(n + 1, -1)), any_indices(memory, std::vector<int64_t>(total, -1));
      buffer<double> any_distances(memory, std::vector<double>(total, -1));
      REQUIRE(kw_within_result_copy(result, any_offsets.data(), any_indices.data(),
                                    with_distances ? any_distances.data() : nullptr) == KW_SUCCESS);
      CHECK(kw_within_result_destroy(result) == KW_SUCCESS);
      CHECK(any_offsets.values() == offsets.values());
      CHECK(rows_as_sets(offsets.values(), any_indices.values()) == rows_as_sets(offsets.values(), indices.values()));
      if (with_distances) {
        const auto got_indices = any_indices.values();
        const auto got = any_distances.values();
        int64_t mismatched = 0;
        for (int64_t i = 0; i < n; ++i)
          for (int64_t e = want_offsets(i); e < want_offsets(i + 1); ++e) {
            const int64_t j = got_indices[e];
            const double* o = &queries[2 * i];
            const double* r = &points[2 * j];
            const double dlat = std::sin(0.5 * (r[0] - o[0])), dlon = std::sin(0.5 * (r[1] - o[1]));
            const double h = dlat * dlat + std::cos(o[0]) * std::cos(r[0]) * dlon * dlon;
            mismatched += std::abs(2 * std::asin(std::sqrt(h)) - got[e]) > 1e-14;
          }
        CHECK(mismatched == 0);
      }
    }

    // float32 points: the distances in float32, the same neighbours where no distance is
    // within float32 rounding of the radius.
    std::vector<float> queries32(queries.begin(), queries.end()), points32(points.begin(), points.end());
    buffer<float> qs32(memory, queries32), ps32(memory, points32);
    REQUIRE(kw_within(KW_FLOAT32, memory, 2, qs32.data(), n, ps32.data(), m, radius, nullptr, &result) ==
            KW_SUCCESS);
    buffer<int64_t> offsets32(memory, std::vector<int64_t>(n + 1, -1)),
        indices32(memory, std::vector<int64_t>(kw_within_result_total(result), -1));
    buffer<float> distances32(memory, std::vector<float>(kw_within_result_total(result), -1));
    REQUIRE(kw_within_result_copy(result, offsets32.data(), indices32.data(), distances32.data()) == KW_SUCCESS);
    kw_within_result_destroy(result);
    const auto d32 = distances32.values();
    CHECK(kw_within_result_total(nullptr) == 0);
    CHECK(std::all_of(d32.begin(), d32.end(), [&](float d) { return d >= 0 && d <= radius * (1 + 1e-6); }));

    buffer<int64_t> labels(memory, std::vector<int64_t>(m, -7));
    kw_dbscan_options dbscan_options;
    kw_dbscan_options_default(&dbscan_options);
    dbscan_options.metric = 1;
    dbscan_options.border = 1;
    int64_t clusters = -1;
    REQUIRE(kw_dbscan(KW_FLOAT64, memory, 2, ps.data(), m, 0.02, 4, labels.data(), &clusters, &dbscan_options) ==
            KW_SUCCESS);
    CHECK(clusters == want_clusters);
    CHECK(labels.values() == std::vector<int64_t>(want_labels.data(), want_labels.data() + m));

    // Bad input: the status, the argument named, outputs as they were.
    const auto labels_before = labels.values();
    expect_failure(kw_dbscan(KW_FLOAT64, memory, 2, nullptr, m, 0.02, 4, labels.data(), &clusters, nullptr),
                   KW_INVALID_ARGUMENT, "kw_dbscan: points: is NULL");
    expect_failure(kw_dbscan(KW_FLOAT64, memory, 2, ps.data(), m, -1.0, 4, labels.data(), &clusters, nullptr),
                   KW_INVALID_ARGUMENT, "eps: must be finite");
    expect_failure(kw_dbscan(KW_FLOAT64, memory, 2, ps.data(), m, 0.02, 0, labels.data(), &clusters, nullptr),
                   KW_INVALID_ARGUMENT, "min_samples: must be at least 1");
    dbscan_options.border = 4;
    expect_failure(kw_dbscan(KW_FLOAT64, memory, 2, ps.data(), m, 0.02, 4, labels.data(), &clusters, &dbscan_options),
                   KW_INVALID_ARGUMENT, "options->border: is not 0 or 1");
    expect_failure(kw_dbscan(KW_FLOAT64, memory, 2, ps.data(), m, 0.02, 4, nullptr, &clusters, nullptr),
                   KW_INVALID_ARGUMENT, "labels: is NULL");
    CHECK(labels.values() == labels_before);
    options.metric = 3;
    result = nullptr;
    expect_failure(kw_within(KW_FLOAT64, memory, 2, qs.data(), n, ps.data(), m, radius, &options, &result),
                   KW_INVALID_ARGUMENT, "kw_within: options->metric: is not 0 or 1");
    options.metric = 0;
    options.order = 2;
    expect_failure(kw_within(KW_FLOAT64, memory, 2, qs.data(), n, ps.data(), m, radius, &options, &result),
                   KW_INVALID_ARGUMENT, "kw_within: options->order: is not 0 or 1");
    options.order = 0;
    options.distances = -1;
    expect_failure(kw_within(KW_FLOAT64, memory, 2, qs.data(), n, ps.data(), m, radius, &options, &result),
                   KW_INVALID_ARGUMENT, "kw_within: options->distances: is not 0 or 1");
    expect_failure(kw_within(KW_FLOAT64, memory, 2, qs.data(), n, ps.data(), m, radius, nullptr, nullptr),
                   KW_INVALID_ARGUMENT, "kw_within: result: is NULL");
    expect_failure(kw_within(KW_FLOAT64, memory, 3, qs.data(), n, ps.data(), m, radius, nullptr, &result),
                   KW_INVALID_ARGUMENT, "points: haversine points have 2 coordinates");
    expect_failure(kw_count_within(KW_FLOAT64, memory, 2, qs.data(), n, ps.data(), m, NAN, counts.data(), nullptr),
                   KW_INVALID_ARGUMENT, "radius: must be finite");
    expect_failure(kw_count_within(KW_FLOAT64, memory, 2, qs.data(), -1, ps.data(), m, radius, counts.data(), nullptr),
                   KW_INVALID_ARGUMENT, "n: must not be negative");
    CHECK(result == nullptr);
    CHECK(counts.values() == got_counts);
    expect_failure(kw_within_result_copy(nullptr, offsets.data(), indices.data(), nullptr), KW_INVALID_ARGUMENT,
                   "kw_within_result_copy: result: is NULL");
  }
}

TEST_CASE("C API: integrate2d with a C function pointer on the host") {
  double scale = 2.0, result = -1;
  const double pi = 3.14159265358979323846;
  REQUIRE(kw_integrate2d(sine_of_sum, &scale, 0, pi / 2, 0, pi / 2, 1000, 1000, &result) == KW_SUCCESS);
  CHECK(result == doctest::Approx(4.0).epsilon(1e-6));  // 2 * integral of sin(x+y) over [0, pi/2]^2 = 2 * 2
  result = -1;
  expect_failure(kw_integrate2d(nullptr, nullptr, 0, 1, 0, 1, 10, 10, &result), KW_INVALID_ARGUMENT, "f: is NULL");
  expect_failure(kw_integrate2d(sine_of_sum, &scale, 0, 1, 0, 1, 0, 10, &result), KW_INVALID_ARGUMENT, "n:");
  CHECK(result == -1);
}

}  // namespace

namespace c_api_test {

// A direct float64 DFT of one line: x(j), j < n, read at x[offset + j * stride].
std::vector<std::complex<double>> dft(const std::vector<std::complex<double>>& x, std::size_t offset,
                                      std::size_t stride, std::size_t n, bool inverse) {
  std::vector<std::complex<double>> out(n);
  const double sign = inverse ? 1.0 : -1.0, pi = std::acos(-1.0);
  for (std::size_t k = 0; k < n; ++k) {
    std::complex<double> sum = 0;
    for (std::size_t j = 0; j < n; ++j)
      sum += x[offset + j * stride] * std::polar(1.0, sign * 2 * pi * double((j * k) % n) / double(n));
    out[k] = sum;
  }
  return out;
}

std::vector<std::complex<double>> random_complex(std::size_t n, std::uint64_t seed) {
  const auto parts = random_values<double>(2 * n, seed, -1, 1);
  std::vector<std::complex<double>> z(n);
  for (std::size_t i = 0; i < n; ++i) z[i] = {parts[2 * i], parts[2 * i + 1]};
  return z;
}

// Complex values as C holds them: real and imaginary parts interleaved.
template <class T>
std::vector<T> interleaved(const std::vector<std::complex<double>>& z) {
  std::vector<T> v;
  for (const auto& c : z) v.push_back(T(c.real())), v.push_back(T(c.imag()));
  return v;
}
template <class T>
std::vector<std::complex<double>> complex_of(const std::vector<T>& v) {
  std::vector<std::complex<double>> z(v.size() / 2);
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = {double(v[2 * i]), double(v[2 * i + 1])};
  return z;
}

double largest_difference(const std::vector<std::complex<double>>& a, const std::vector<std::complex<double>>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

}  // namespace c_api_test

TEST_CASE("C API: QR, its factored form, apply_q and least squares against Eigen") {
  for (kw_memory memory : {KW_MEMORY_HOST, KW_MEMORY_DEVICE}) {
    for (kw_qr_implementation implementation : {KW_QR_GENERIC, KW_QR_AUTOMATIC}) {
      CAPTURE(int(memory));
      CAPTURE(int(implementation));
      // A 40 x 12 column-major matrix with leading dimension 43; padding must stay as it is.
      const int64_t m = 40, n = 12, ld = 43;
      const auto values = random_values<double>(ld * n, 11, -1, 1);
      buffer<double> a(memory, values);
      Eigen::MatrixXd dense(m, n);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) dense(i, j) = values[j * ld + i];
      buffer<double> q(memory, std::vector<double>(m * n, 7.0)), r(memory, std::vector<double>(n * n, 7.0));
      REQUIRE(kw_qr(KW_FLOAT64, memory, KW_COLUMN_MAJOR, KW_QR_REDUCED, implementation, m, n, a.data(), ld,
                    q.data(), m, r.data(), n) == KW_SUCCESS);
      const auto q_values = q.values(), r_values = r.values();
      const Eigen::MatrixXd Q = Eigen::Map<const Eigen::MatrixXd>(q_values.data(), m, n),
                            R = Eigen::Map<const Eigen::MatrixXd>(r_values.data(), n, n);
      CHECK((Q * R - dense).norm() / dense.norm() < 1e-14);
      CHECK((Q.transpose() * Q - Eigen::MatrixXd::Identity(n, n)).norm() < 1e-14);
      bool triangular = true;
      for (int64_t j = 0; j < n; ++j) {
        triangular = triangular && R(j, j) >= 0;
        for (int64_t i = j + 1; i < n; ++i) triangular = triangular && R(i, j) == 0;
      }
      CHECK(triangular);
      // |R| is unique: Eigen's Householder QR gives the same up to row signs.
      const Eigen::MatrixXd eigen_r = dense.householderQr().matrixQR().topRows(n).triangularView<Eigen::Upper>();
      CHECK((R.cwiseAbs() - eigen_r.cwiseAbs()).norm() < 1e-12);

      // The factored form in place of a row-major copy, then Q^T Q b = b and the least squares
      // solution against Eigen's.
      std::vector<double> row_major(m * n);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) row_major[i * n + j] = dense(i, j);
      buffer<double> factors(memory, row_major), tau(memory, std::vector<double>(n, 0.0));
      REQUIRE(kw_qr_factor(KW_FLOAT64, memory, KW_ROW_MAJOR, implementation, m, n, factors.data(), n,
                           factors.data(), n, tau.data()) == KW_SUCCESS);
      const auto rhs = random_values<double>(m * 2, 12, -1, 1);  // m x 2, row-major
      buffer<double> c(memory, rhs);
      REQUIRE(kw_apply_q(KW_FLOAT64, memory, KW_ROW_MAJOR, KW_QR_Q_TRANSPOSE_C, implementation, m, n,
                         factors.data(), n, tau.data(), 2, c.data(), 2) == KW_SUCCESS);
      REQUIRE(kw_apply_q(KW_FLOAT64, memory, KW_ROW_MAJOR, KW_QR_Q_C, implementation, m, n, factors.data(), n,
                         tau.data(), 2, c.data(), 2) == KW_SUCCESS);
      const auto back = c.values();
      double worst = 0;
      for (std::size_t e = 0; e < rhs.size(); ++e) worst = std::max(worst, std::abs(back[e] - rhs[e]));
      CHECK(worst < 1e-14);
      buffer<double> a_rows(memory, row_major), b(memory, rhs), x(memory, std::vector<double>(n * 2, 0.0));
      REQUIRE(kw_solve_least_squares(KW_FLOAT64, memory, KW_ROW_MAJOR, implementation, m, n, a_rows.data(), n, 2,
                                     b.data(), 2, x.data(), 2) == KW_SUCCESS);
      Eigen::MatrixXd eigen_b(m, 2);
      for (int64_t i = 0; i < m; ++i) eigen_b(i, 0) = rhs[i * 2], eigen_b(i, 1) = rhs[i * 2 + 1];
      const Eigen::MatrixXd expected_x = dense.colPivHouseholderQr().solve(eigen_b);
      const auto got_x = x.values();
      worst = 0;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < 2; ++k)
          worst = std::max(worst, std::abs(got_x[i * 2 + k] - expected_x(i, k)) / (1 + std::abs(expected_x(i, k))));
      CHECK(worst < 1e-10);

      // Failures name the argument and leave the outputs as they were.
      const auto q_before = q.values();
      expect_failure(kw_qr(KW_FLOAT64, memory, KW_COLUMN_MAJOR, KW_QR_REDUCED, implementation, n, m, a.data(), ld,
                           q.data(), n, r.data(), m),
                     KW_INVALID_ARGUMENT, "a: has fewer rows than columns");
      expect_failure(kw_qr(KW_FLOAT64, memory, KW_COLUMN_MAJOR, KW_QR_REDUCED, implementation, m, n, a.data(), m - 1,
                           q.data(), m, r.data(), n),
                     KW_INVALID_ARGUMENT, "lda");
      expect_failure(kw_qr(KW_FLOAT64, memory, KW_COLUMN_MAJOR, kw_qr_mode(3), implementation, m, n, a.data(), ld,
                           q.data(), m, r.data(), n),
                     KW_INVALID_ARGUMENT, "mode");
      expect_failure(kw_qr(KW_FLOAT64, memory, KW_COLUMN_MAJOR, KW_QR_REDUCED, kw_qr_implementation(7), m, n,
                           a.data(), ld, q.data(), m, r.data(), n),
                     KW_INVALID_ARGUMENT, "implementation");
      auto with_nan = values;
      with_nan[5 * ld + 3] = std::nan("");
      buffer<double> bad(memory, with_nan);
      expect_failure(kw_qr(KW_FLOAT64, memory, KW_COLUMN_MAJOR, KW_QR_REDUCED, implementation, m, n, bad.data(), ld,
                           q.data(), m, r.data(), n),
                     KW_INVALID_ARGUMENT, "a: ");
      expect_failure(kw_qr_factor(KW_FLOAT64, memory, KW_ROW_MAJOR, implementation, m, n, factors.data(), n,
                                  factors.data(), n, nullptr),
                     KW_INVALID_ARGUMENT, "tau: is NULL");
      expect_failure(kw_apply_q(KW_FLOAT64, memory, KW_ROW_MAJOR, kw_qr_product(2), implementation, m, n,
                                factors.data(), n, tau.data(), 2, c.data(), 2),
                     KW_INVALID_ARGUMENT, "product");
      CHECK(q.values() == q_before);
    }
  }
}

TEST_CASE("C API: FFT plans against a direct float64 DFT, and their failures") {
  using cplx = std::complex<double>;
  for (kw_memory memory : {KW_MEMORY_HOST, KW_MEMORY_DEVICE}) {
    CAPTURE(int(memory));
    kw_fft_options options;
    kw_fft_options_default(&options);
    CHECK((options.real == 0 && options.normalization == 0 && options.layout == KW_ROW_MAJOR &&
           options.check_input == 0));

    // A complex line of 24 points (not a power of two), forward then inverse in place.
    const auto signal = random_complex(24, 21);
    buffer<double> line(memory, interleaved<double>(signal));
    kw_fft_shape shape{KW_FFT_LINE, 1, 1, 24};
    kw_fft_plan* plan = nullptr;
    REQUIRE(kw_fft_plan_create(KW_FLOAT64, memory, &shape, &options, &plan) == KW_SUCCESS);
    REQUIRE(kw_fft_forward(plan, line.data(), line.data()) == KW_SUCCESS);
    CHECK(largest_difference(complex_of(line.values()), dft(signal, 0, 1, 24, false)) < 1e-13);
    REQUIRE(kw_fft_inverse(plan, line.data(), line.data()) == KW_SUCCESS);
    CHECK(largest_difference(complex_of(line.values()), signal) < 1e-15);
    // Misaligned and NULL input: named, the output untouched.
    buffer<double> misaligned(memory, std::vector<double>(2 * 24 + 1, 0.0));
    expect_failure(kw_fft_forward(plan, misaligned.data() + 1, line.data()), KW_INVALID_ARGUMENT, "in: is not aligned");
    expect_failure(kw_fft_inverse(plan, line.data(), nullptr), KW_INVALID_ARGUMENT, "out: is NULL");
    // A non-finite input: by default it propagates to every output of the line; with
    // check_input it is an error naming "in", the output untouched.
    auto broken = signal;
    broken[7] = {1.0, std::numeric_limits<double>::infinity()};
    buffer<double> bad(memory, interleaved<double>(broken)), out(memory, std::vector<double>(48, 3.0));
    REQUIRE(kw_fft_forward(plan, bad.data(), out.data()) == KW_SUCCESS);
    bool all_non_finite = true;
    for (const double v : out.values()) all_non_finite &= !std::isfinite(v);
    CHECK(all_non_finite);
    CHECK(kw_fft_plan_destroy(plan) == KW_SUCCESS);
    kw_fft_options checked = options;
    checked.check_input = 1;
    REQUIRE(kw_fft_plan_create(KW_FLOAT64, memory, &shape, &checked, &plan) == KW_SUCCESS);
    buffer<double> kept(memory, std::vector<double>(48, 3.0));
    expect_failure(kw_fft_forward(plan, bad.data(), kept.data()), KW_INVALID_ARGUMENT, "in: holds a non-finite value");
    CHECK(kept.values() == std::vector<double>(48, 3.0));
    CHECK(kw_fft_plan_destroy(plan) == KW_SUCCESS);

    // Real lines, row-major: 3 lines of 10, forward to 3 x 6 half spectra (ortho), in float32.
    kw_fft_options real_options = options;
    real_options.real = 1;
    real_options.normalization = 1;
    const auto real_signal = random_values<float>(30, 22, -1, 1);
    buffer<float> reals(memory, real_signal);
    buffer<float> half(memory, std::vector<float>(36));
    shape = kw_fft_shape{KW_FFT_LINES, 3, 1, 10};
    REQUIRE(kw_fft_plan_create(KW_FLOAT32, memory, &shape, &real_options, &plan) == KW_SUCCESS);
    REQUIRE(kw_fft_forward(plan, reals.data(), half.data()) == KW_SUCCESS);
    std::vector<cplx> widened(real_signal.begin(), real_signal.end()), expected;
    for (std::size_t l = 0; l < 3; ++l) {
      const auto spectrum = dft(widened, l * 10, 1, 10, false);
      for (std::size_t k = 0; k < 6; ++k) expected.push_back(spectrum[k] / std::sqrt(10.0));
    }
    CHECK(largest_difference(complex_of(half.values()), expected) < 1e-5);
    buffer<float> back(memory, std::vector<float>(30));
    REQUIRE(kw_fft_inverse(plan, half.data(), back.data()) == KW_SUCCESS);
    const auto returned = back.values();
    double worst = 0;
    for (std::size_t e = 0; e < 30; ++e) worst = std::max(worst, double(std::abs(returned[e] - real_signal[e])));
    CHECK(worst < 1e-5);
    expect_failure(kw_fft_forward(plan, half.data(), half.data()), KW_INVALID_ARGUMENT, "out");
    CHECK(kw_fft_plan_destroy(plan) == KW_SUCCESS);

    // A column-major 6 x 5 complex plane (rows contiguous), against two passes of the DFT.
    const auto plane = random_complex(30, 23);
    buffer<double> planes(memory, interleaved<double>(plane)), spectrum(memory, std::vector<double>(60));
    kw_fft_options column = options;
    column.layout = KW_COLUMN_MAJOR;
    shape = kw_fft_shape{KW_FFT_PLANE, 1, 6, 5};
    REQUIRE(kw_fft_plan_create(KW_FLOAT64, memory, &shape, &column, &plan) == KW_SUCCESS);
    REQUIRE(kw_fft_forward(plan, planes.data(), spectrum.data()) == KW_SUCCESS);
    std::vector<cplx> by_columns(30), by_both(30);
    for (std::size_t j = 0; j < 5; ++j) {  // each column (6 contiguous rows)
      const auto t = dft(plane, j * 6, 1, 6, false);
      for (std::size_t i = 0; i < 6; ++i) by_columns[j * 6 + i] = t[i];
    }
    for (std::size_t i = 0; i < 6; ++i) {  // then each row (stride 6)
      const auto t = dft(by_columns, i, 6, 5, false);
      for (std::size_t j = 0; j < 5; ++j) by_both[j * 6 + i] = t[j];
    }
    CHECK(largest_difference(complex_of(spectrum.values()), by_both) < 1e-13);
    CHECK(kw_fft_plan_destroy(plan) == KW_SUCCESS);

    // Plan failures name the field.
    shape = kw_fft_shape{KW_FFT_PLANE, 2, 6, 5};
    expect_failure(kw_fft_plan_create(KW_FLOAT64, memory, &shape, &options, &plan), KW_INVALID_ARGUMENT, "shape");
    shape = kw_fft_shape{9, 1, 1, 5};
    expect_failure(kw_fft_plan_create(KW_FLOAT64, memory, &shape, &options, &plan), KW_INVALID_ARGUMENT,
                   "shape->form");
    shape = kw_fft_shape{KW_FFT_LINE, 1, 1, 0};
    expect_failure(kw_fft_plan_create(KW_FLOAT64, memory, &shape, &options, &plan), KW_INVALID_ARGUMENT, "shape");
    shape = kw_fft_shape{KW_FFT_LINE, 1, 1, 8};
    kw_fft_options wrong = options;
    wrong.normalization = 3;
    expect_failure(kw_fft_plan_create(KW_FLOAT64, memory, &shape, &wrong, &plan), KW_INVALID_ARGUMENT,
                   "options->normalization");
    expect_failure(kw_fft_plan_create(KW_FLOAT64, memory, &shape, &options, nullptr), KW_INVALID_ARGUMENT,
                   "plan: is NULL");
    expect_failure(kw_fft_forward(nullptr, line.data(), line.data()), KW_INVALID_ARGUMENT, "plan: is NULL");
  }
}
