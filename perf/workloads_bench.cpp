// Times the course's other workloads through Kernwerk on the default execution space and writes
// JSON records for perf/results_table.py. Every timed variant is first checked (against a
// float64 host computation, or against the other variants where that is the reference).
//
//   kernwerk_bench_workloads [--scale full|small] [--only diffusion,integration,vectors,dense,cg]
//                            [--repeat 5] [--machine NAME] [--json FILE]
//
// full: the sizes (diffusion 2000^2 x 10,000 steps, integration 102,400^2, sum 2^28,
// saxpy 10^8, gemm 4096^3, matmul_colsum 10000 x 5000 x 7000, CG on 128^2, 1024^2 and 2048^2
// Laplacians and on a dense 8192^2 matrix);
// small: sizes a 2-core host finishes in seconds.
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#if KERNWERK_PERF_CUSPARSE
#include <cusparse.h>
#endif

#include "kernwerk/cg.hpp"
#include "kernwerk/diffuse.hpp"
#include "kernwerk/error.hpp"
#include "text_lists.hpp"
#include "workload_records.hpp"
#include "kernwerk/impl/math.hpp"
#include "kernwerk/integrate.hpp"
#include "kernwerk/linear_algebra.hpp"
#include "kernwerk/reductions.hpp"
#include "kernwerk/transform.hpp"

namespace bench_workloads {

using namespace kernwerk;
using space = Kokkos::DefaultExecutionSpace;
using memory = space::memory_space;

struct sine_of_sum {
  KOKKOS_INLINE_FUNCTION double operator()(double x, double y) const {
    return kernwerk::impl::math::sin(x + y);
  }
};

using record = kernwerk_perf::workload_record;

std::pair<double, double> timed(const std::function<void()>& run, int repeat) {
  return kernwerk_perf::timed<space>(run, repeat);
}

template <class T>
Kokkos::View<T*, memory> random_vector(std::size_t n, std::uint64_t seed, double low = -1, double high = 1) {
  Kokkos::View<T*, memory> v(Kokkos::view_alloc(Kokkos::WithoutInitializing, "v"), n);
  Kokkos::Random_XorShift64_Pool<space> pool(seed);
  Kokkos::fill_random(v, pool, T(low), T(high));
  return v;
}

template <class T>
Kokkos::View<T**, Kokkos::LayoutRight, memory> random_matrix(std::size_t r, std::size_t c, std::uint64_t seed) {
  Kokkos::View<T**, Kokkos::LayoutRight, memory> m(Kokkos::view_alloc(Kokkos::WithoutInitializing, "m"), r, c);
  Kokkos::Random_XorShift64_Pool<space> pool(seed);
  Kokkos::fill_random(m, pool, T(-1), T(1));
  return m;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw error("check failed: " + what);
}

struct sizes {
  std::size_t grid, steps, integrate, sum, saxpy, gemm, colsum_m, colsum_j, colsum_k;
  std::vector<std::int64_t> cg_grids;
  std::int64_t cg_dense;
};

void diffusion(const sizes& s, int repeat, std::vector<record>& out) {
  using grid = Kokkos::View<float**, Kokkos::LayoutRight, memory>;
  const grid initial = random_matrix<float>(s.grid, s.grid, 1);
  grid field("field", s.grid, s.grid), generic_result("generic", s.grid, s.grid);
  Kokkos::deep_copy(generic_result, initial);
  diffuse(space(), generic_result, 50, diffuse_options{0.25, implementation_kind::generic});
  for (auto kind : {implementation_kind::generic, implementation_kind::automatic}) {
    Kokkos::deep_copy(field, initial);
    diffuse(space(), field, 50, diffuse_options{0.25, kind});
    double worst = 0;
    Kokkos::parallel_reduce("compare", Kokkos::MDRangePolicy<space, Kokkos::Rank<2>>({0, 0}, {std::int64_t(s.grid), std::int64_t(s.grid)}),
                            KOKKOS_LAMBDA(int i, int j, double& w) {
                              const double d = kernwerk::impl::math::fabs(double(field(i, j)) - double(generic_result(i, j)));
                              if (d > w) w = d;
                            }, Kokkos::Max<double>(worst));
    require(worst < 1e-5, "diffuse variants agree after 50 steps");
    const auto [median, best] = timed([&] { diffuse(space(), field, std::int64_t(s.steps), diffuse_options{0.25, kind}); }, repeat);
    const double cells = double(s.grid) * s.grid;
    out.push_back({"diffuse", to_string(kind), std::to_string(s.grid) + "^2 x " + std::to_string(s.steps) + " steps",
                   median / s.steps, best / s.steps, 8 * cells, 6 * cells, "per step"});
  }
}

void integration(const sizes& s, int repeat, std::vector<record>& out) {
  const double pi = 3.14159265358979323846;
  for (auto kind : {implementation_kind::generic, implementation_kind::automatic}) {
    double value = 0;
    const auto [median, best] = timed([&] {
      value = integrate2d(space(), sine_of_sum{}, 0, pi, 0, pi, std::int64_t(s.integrate), std::int64_t(s.integrate),
                          integrate_options{kind});
    }, repeat);
    const double points = double(s.integrate) * s.integrate;
    char note[64];
    std::snprintf(note, sizeof note, "|error| %.2e", std::abs(value));
    out.push_back({"integrate2d", to_string(kind), std::to_string(s.integrate) + "^2 sin(x+y)", median, best, 0,
                   points, note});
  }
}

void vectors(const sizes& s, int repeat, std::vector<record>& out) {
  const auto x = random_vector<float>(s.sum, 3, 0, 1);
  // float64 reference of the sum on the host, in long double.
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  long double expected = 0;
  for (std::size_t i = 0; i < s.sum; ++i) expected += host(i);
  double got = 0;
  auto [median, best] = timed([&] { got = sum(space(), x); }, repeat);
  require(std::abs(got - double(expected)) <= 1e-12 * double(expected), "sum against long double");
  out.push_back({"sum", "auto", "2^" + std::to_string(int(std::log2(double(s.sum)))) + " float32", median, best,
                 4.0 * s.sum, double(s.sum), ""});

  const auto a = random_vector<float>(s.saxpy, 4), y = random_vector<float>(s.saxpy, 5);
  Kokkos::View<float*, memory> result("saxpy", s.saxpy);
  std::tie(median, best) = timed([&] { transform(space(), result, maps::saxpy{2.0}, a, y); }, repeat);
  const auto ah = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  const auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  const auto rh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), result);
  for (std::size_t i = 0; i < s.saxpy; i += 9973) require(rh(i) == 2.0f * ah(i) + yh(i), "saxpy");
  out.push_back({"saxpy", "auto", std::to_string(s.saxpy) + " float32", median, best, 12.0 * s.saxpy,
                 2.0 * s.saxpy, ""});
}

void dense(const sizes& s, int repeat, std::vector<record>& out) {
  const std::size_t n = s.gemm;
  const auto a = random_matrix<float>(n, n, 6), b = random_matrix<float>(n, n, 7);
  Kokkos::View<float**, Kokkos::LayoutRight, memory> c("c", n, n);
  const auto ah = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  const auto bh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  using matrix = decltype(c);
  for (auto kind : {gemm_implementation::generic, gemm_implementation::tuned, gemm_implementation::vendor}) {
    if (kind == gemm_implementation::tuned && !impl::gemm_tuned<space, matrix, matrix, matrix>::covers(a, b, c)) continue;
    if (kind == gemm_implementation::vendor && !impl::gemm_vendor<space, matrix, matrix, matrix>::covers(a, b, c)) continue;
    const auto [median, best] = timed([&] { gemm(space(), 1.0, a, b, 0.0, c, gemm_options{kind}); }, repeat);
    const auto ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
    for (std::size_t t = 0; t < 64; ++t) {
      const std::size_t i = (t * 2654435761u) % n, j = (t * 40503u + 7) % n;
      double expected = 0;
      for (std::size_t k = 0; k < n; ++k) expected += double(ah(i, k)) * bh(k, j);
      require(std::abs(ch(i, j) - expected) <= 1e-5 * n, "gemm entry against float64");
    }
    out.push_back({"gemm", to_string(kind), std::to_string(n) + "^3 float32", median, best, 0,
                   2.0 * n * n * n, ""});
  }

  const auto ca = random_matrix<float>(s.colsum_m, s.colsum_j, 8), cb = random_matrix<float>(s.colsum_j, s.colsum_k, 9);
  Kokkos::View<float*, memory> colsum("colsum", s.colsum_k);
  const auto [median, best] = timed([&] { matmul_colsum(space(), ca, cb, colsum); }, repeat);
  const auto cah = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ca);
  const auto cbh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cb);
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), colsum);
  std::vector<double> column(s.colsum_j, 0.0);
  for (std::size_t i = 0; i < s.colsum_m; ++i)
    for (std::size_t j = 0; j < s.colsum_j; ++j) column[j] += cah(i, j);
  for (std::size_t k = 0; k < s.colsum_k; k += 97) {
    double expected = 0;
    for (std::size_t j = 0; j < s.colsum_j; ++j) expected += column[j] * cbh(j, k);
    require(std::abs(got(k) - expected) <= 1e-5 * (1 + std::abs(expected)), "matmul_colsum against float64");
  }
  out.push_back({"matmul_colsum", "auto",
                 std::to_string(s.colsum_m) + "x" + std::to_string(s.colsum_j) + "x" + std::to_string(s.colsum_k), median,
                 best, 4.0 * (double(s.colsum_m) * s.colsum_j + double(s.colsum_j) * s.colsum_k),
                 2.0 * (double(s.colsum_m) * s.colsum_j + double(s.colsum_j) * s.colsum_k), ""});

  // The course's vmap example: a 150 x 100 matrix times a batch of 10 vectors.
  const auto ga = random_matrix<float>(150, 100, 10), gx = random_matrix<float>(10, 100, 11);
  Kokkos::View<float**, Kokkos::LayoutRight, memory> gy("gy", 10, 150);
  const auto [gm, gb] = timed([&] { gemv_batched(space(), 1.0, ga, gx, 0.0, gy); }, repeat * 20);
  out.push_back({"gemv_batched", "auto", "10 x (150x100) float32", gm, gb, 4.0 * (150 * 100 + 10 * 250), 2.0 * 10 * 150 * 100, ""});
}

// The 5-point Laplacian of a g x g grid in CSR (int32 indices, as CuPy's), built on the host.
auto laplacian(std::int64_t g) {
  std::vector<int> starts{0}, columns;
  std::vector<double> values;
  for (std::int64_t i = 0; i < g; ++i)
    for (std::int64_t j = 0; j < g; ++j) {
      const std::int64_t near[5][2] = {{i - 1, j}, {i, j - 1}, {i, j}, {i, j + 1}, {i + 1, j}};
      for (const auto& p : near)
        if (p[0] >= 0 && p[1] >= 0 && p[0] < g && p[1] < g) {
          columns.push_back(int(p[0] * g + p[1]));
          values.push_back(p[0] == i && p[1] == j ? 4.0 : -1.0);
        }
      starts.push_back(int(columns.size()));
    }
  auto to_space = [](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    Kokkos::View<T*, memory> d("csr", v.size());
    Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size()));
    return d;
  };
  return make_csr(to_space(starts), to_space(columns), to_space(values));
}

#if KERNWERK_PERF_CUSPARSE
// y = A v by cuSPARSE's SpMV (the default algorithm, its buffer and preprocessing outside the
// time), checked against a product of our own: the vendor's floor of a CSR step's product.
template <class Csr>
void cusparse_product(const Csr& a, const std::string& size, int repeat, std::vector<record>& out) {
  const auto check = [](cusparseStatus_t status, const char* what) {
    require(status == CUSPARSE_STATUS_SUCCESS, std::string(what) + ": " + cusparseGetErrorString(status));
  };
  const std::int64_t n = std::int64_t(a.row_starts.extent(0)) - 1, nnz = std::int64_t(a.values.extent(0));
  const auto v = random_vector<double>(std::size_t(n), 14);
  Kokkos::View<double*, memory> y("y", n), expected("expected", n);
  const Kokkos::View<kernwerk::impl::cg_sums, memory> unused_sums("sums");  // the CG product's (v, v), (v, A v)
  Kokkos::parallel_reduce("spmv_reference", Kokkos::RangePolicy<space>(0, n),
                          kernwerk::impl::csr_product<Csr, decltype(v)>{a, v, expected},
                          kernwerk::impl::cg_sums_into<memory>(unused_sums.data()));
  cusparseHandle_t handle;
  check(cusparseCreate(&handle), "cusparseCreate");
  check(cusparseSetStream(handle, space().cuda_stream()), "cusparseSetStream");
  cusparseSpMatDescr_t matrix;
  cusparseDnVecDescr_t in, result;
  check(cusparseCreateCsr(&matrix, n, n, nnz, a.row_starts.data(), a.columns.data(), a.values.data(), CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
        "cusparseCreateCsr");
  check(cusparseCreateDnVec(&in, n, v.data(), CUDA_R_64F), "cusparseCreateDnVec");
  check(cusparseCreateDnVec(&result, n, y.data(), CUDA_R_64F), "cusparseCreateDnVec");
  const double one = 1.0, zero = 0.0;
  std::size_t bytes = 0;
  check(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix, in, &zero, result, CUDA_R_64F,
                                CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
        "cusparseSpMV_bufferSize");
  Kokkos::View<char*, memory> buffer("cusparse buffer", std::max<std::size_t>(bytes, 1));
  check(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix, in, &zero, result, CUDA_R_64F,
                                CUSPARSE_SPMV_ALG_DEFAULT, buffer.data()),
        "cusparseSpMV_preprocess");
  const auto product = [&] {
    check(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix, in, &zero, result, CUDA_R_64F,
                       CUSPARSE_SPMV_ALG_DEFAULT, buffer.data()),
          "cusparseSpMV");
  };
  product();
  double worst = 0.0;
  Kokkos::parallel_reduce("spmv_check", Kokkos::RangePolicy<space>(0, n), KOKKOS_LAMBDA(const std::int64_t i, double& w) {
    const double d = y(i) > expected(i) ? y(i) - expected(i) : expected(i) - y(i);
    if (d > w) w = d;
  }, Kokkos::Max<double>(worst));
  require(worst <= 1e-12, "cuSPARSE's A v differs from ours by " + std::to_string(worst));
  const auto [median, best] = timed(product, repeat * 20);
  cusparseDestroyDnVec(in);
  cusparseDestroyDnVec(result);
  cusparseDestroySpMat(matrix);
  cusparseDestroy(handle);
  out.push_back({"spmv", "cusparse", size + " Laplacian", median, best, 4.0 * (n + 1) + 12.0 * nnz + 16.0 * n, 2.0 * nnz,
                 "A v alone (vendor peer): the floor of a step's product"});
}
#endif

// CG to ||r|| <= 1e-6 ||b|| on Laplacians (the time per step), and dense CG for a fixed number of
// steps beside one product A v (the bound: a step reads A once). Bytes a step moves: the CSR
// arrays once, and ten float64 vector accesses a row (x, p, r, s, q read and written; the
// neighbours' values counted once); dense: A once and 11 vector accesses a row.
void conjugate(const sizes& s, int repeat, std::vector<record>& out) {
  for (const std::int64_t g : s.cg_grids) {
    const std::int64_t n = g * g;
    const auto a = laplacian(g);
    const auto b = random_vector<double>(std::size_t(n), 12);
    Kokkos::View<double*, memory> x("x", n);
    cg_result result;
    const auto [median, best] = timed([&] {
      Kokkos::deep_copy(x, 0.0);
      result = conjugate_gradient(space(), a, b, x, cg_options{1e-6, 0});
    }, repeat);
    const double per = double(result.iterations), nnz = double(a.values.extent(0));
    const double bytes = 4.0 * (n + 1) + 12.0 * nnz + 80.0 * n;
    out.push_back({"conjugate_gradient", "csr", std::to_string(g) + "^2 Laplacian, " + std::to_string(result.iterations) + " steps",
                   median / per, best / per, bytes, 0, "per step, int32 indices"});
#if KERNWERK_PERF_CUSPARSE
    cusparse_product(a, std::to_string(g) + "^2", repeat, out);
#endif
  }
  // Dense SPD: the Kac-Murdock-Szego matrix A(i, j) = 0.905^|i - j| (condition about 20: 200
  // steps reach ||r|| / ||b|| near 1e-8, short of the tolerance 1e-12).
  const std::int64_t n = s.cg_dense, steps = 200;
  Kokkos::View<double**, Kokkos::LayoutRight, memory> a("a", n, n);
  Kokkos::parallel_for("spd", Kokkos::MDRangePolicy<space, Kokkos::Rank<2>>({0, 0}, {n, n}),
                       KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) {
                         a(i, j) = kernwerk::impl::math::pow(0.905, double(i > j ? i - j : j - i));
                       });
  const auto b = random_vector<double>(std::size_t(n), 13);
  Kokkos::View<double*, memory> x("x", n), y("y", n);
  cg_result result;
  const auto [median, best] = timed([&] {
    Kokkos::deep_copy(x, 0.0);
    try {  // exactly `steps` steps
      conjugate_gradient(space(), a, b, x, cg_options{1e-12, steps});
    } catch (const not_converged& e) {
      result = e.result();
    }
  }, repeat);
  require(result.iterations == steps && result.residual_norm < 1e-5,
          "dense CG: " + std::to_string(result.iterations) + " steps to " + std::to_string(result.residual_norm));
  const double bytes = 8.0 * n * n + 88.0 * n;
  out.push_back({"conjugate_gradient", "dense", std::to_string(n) + "^2 float64, " + std::to_string(steps) + " steps",
                 median / steps, best / steps, bytes, 2.0 * n * n, "per step"});
  const auto [gemv_median, gemv_best] = timed([&] {
    gemm(space(), 1.0, a, Kokkos::View<double**, Kokkos::LayoutLeft, memory>(x.data(), n, 1), 0.0,
         Kokkos::View<double**, Kokkos::LayoutLeft, memory>(y.data(), n, 1),
         gemm_options{gemm_implementation::vendor});
  }, repeat);
  const bool host = std::is_same_v<memory, Kokkos::HostSpace>;
  out.push_back({"gemv", host ? "Eigen (gemm vendor)" : "cuBLAS (gemm vendor)", std::to_string(n) + "^2 float64", gemv_median, gemv_best,
                 8.0 * n * n + 16.0 * n, 2.0 * n * n, "A v: the bound of a dense step"});
}

}  // namespace bench_workloads

int main(int argc, char* argv[]) {
  using namespace bench_workloads;
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string scale = "full", machine = "unnamed", json, only = "diffusion,integration,vectors,dense,cg";
  int repeat = 5;
  for (int k = 1; k + 1 < argc; k += 2) {
    const std::string flag = argv[k], value = argv[k + 1];
    if (flag == "--scale") scale = value;
    else if (flag == "--repeat") repeat = std::max(1, std::stoi(value));
    else if (flag == "--machine") machine = value;
    else if (flag == "--json") json = value;
    else if (flag == "--only") only = value;
    else {
      std::fprintf(stderr, "%s: unknown option\n", flag.c_str());
      return 2;
    }
  }
  const std::vector<std::pair<std::string, void (*)(const sizes&, int, std::vector<record>&)>> groups = {
      {"diffusion", diffusion}, {"integration", integration}, {"vectors", vectors}, {"dense", dense}, {"cg", conjugate}};
  const std::vector<std::string> chosen = kernwerk_perf::split(only, ',');
  const auto is_chosen = [&](const std::string& name) {
    return std::find(chosen.begin(), chosen.end(), name) != chosen.end();
  };
  const bool known = std::all_of(chosen.begin(), chosen.end(), [&](const std::string& name) {
    return std::any_of(groups.begin(), groups.end(), [&](const auto& g) { return g.first == name; });
  });
  if (argc % 2 == 0 || (scale != "full" && scale != "small") || !known) {
    std::fprintf(stderr,
                 "usage: kernwerk_bench_workloads [--scale full|small] [--only diffusion,integration,vectors,dense,cg] "
                 "[--repeat N] [--machine NAME] [--json FILE]\n");
    return 2;
  }
  const sizes s = scale == "full"
                      ? sizes{2000, 10000, 102400, std::size_t(1) << 28, 100000000, 4096, 10000, 5000, 7000, {128, 1024, 2048}, 8192}
                      : sizes{500, 200, 4096, std::size_t(1) << 24, 10000000, 512, 1000, 500, 700, {128, 512}, 2048};
  std::vector<record> records;
  try {
    for (const auto& [name, run] : groups)
      if (is_chosen(name)) run(s, repeat, records);
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "kernwerk_bench_workloads: %s\n", failure.what());
    return 1;
  }
  if (!kernwerk_perf::report<space>(records, "workloads", machine, repeat, json)) {
    std::fprintf(stderr, "kernwerk_bench_workloads: cannot write %s\n", json.c_str());
    return 1;
  }
  return 0;
}
