// The C interface against the C++ one, and its failures: status, message naming the argument,
// outputs untouched. Host memory runs on the host space, device memory on the default space.
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

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
    expect_failure(kw_nearest(KW_FLOAT64, memory, 2, obs.data(), n, ref.data(), m, 33, idx.data(), dist.data(), nullptr),
                   KW_INVALID_ARGUMENT, "k: must be 1 to 32");
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
        expect_failure(kw_sphere_index_nearest(index, obs.data(), n, 33, idx.data(), dist.data()),
                       KW_INVALID_ARGUMENT, "k: must be 1 to 32");
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
