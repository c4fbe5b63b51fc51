// gemm, matmul_colsum and gemv_batched against Eigen in float64.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "execution_spaces.hpp"
#include "matrix_support.hpp"
#include "kernwerk/linear_algebra.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test;

double max_abs(const Eigen::MatrixXd& m) { return m.size() ? m.cwiseAbs().maxCoeff() : 0.0; }

Eigen::MatrixXd rounded(const Eigen::MatrixXd& m, bool to_float) {
  return to_float ? m.cast<float>().cast<double>() : m;
}

template <class Space, class T, class LayoutA, class LayoutB, class LayoutC>
void check_gemm(Eigen::Index m, Eigen::Index n, Eigen::Index k, double alpha, double beta,
                gemm_implementation kind) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(to_string(kind));
  constexpr bool single = std::is_same_v<T, float>;
  const auto a = rounded(random_matrix(m, k, 1 + m), single);
  const auto b = rounded(random_matrix(k, n, 2 + n), single);
  const auto c0 = rounded(random_matrix(m, n, 3 + k), single);
  const auto av = to_space<Space, T, LayoutA>(a);
  const auto bv = to_space<Space, T, LayoutB>(b);
  const auto cv = to_space<Space, T, LayoutC>(c0);
  if (beta == 0.0 && m > 0 && n > 0)  // C is not read when beta = 0: NaN there must vanish
    Kokkos::deep_copy(Kokkos::subview(cv, 0, 0), std::numeric_limits<T>::quiet_NaN());
  gemm(Space(), alpha, av, bv, beta, cv, gemm_options{kind});
  const Eigen::MatrixXd expected = alpha * a * b + beta * c0;
  const Eigen::MatrixXd got = to_eigen(cv);
  // float: k products of size <= 1, rounding in float32 (cuBLAS and blocked kernels sum in
  // another order): a few k eps32.
  const double tolerance = (single ? 4e-7 : 1e-15) * double(k + 2) * 4;
  CHECK(max_abs(got - expected) <= tolerance);
}

TEST_CASE_TEMPLATE_DEFINE("gemm against Eigen: shapes, layouts, alpha and beta", Space, gemms) {
  using L = Kokkos::LayoutLeft;
  using R = Kokkos::LayoutRight;
  for (auto kind : {gemm_implementation::automatic, gemm_implementation::generic}) {
    check_gemm<Space, float, R, R, R>(64, 64, 64, 1.0, 0.0, kind);
    check_gemm<Space, float, R, R, R>(37, 129, 70, 0.5, -2.0, kind);  // not tile multiples
    check_gemm<Space, double, L, R, L>(33, 17, 300, 1.5, 1.0, kind);
    check_gemm<Space, double, R, L, R>(1, 1, 1, 2.0, 3.0, kind);
    check_gemm<Space, float, R, R, R>(5, 7, 0, 1.0, 2.0, kind);  // empty inner dimension
    check_gemm<Space, float, R, R, R>(0, 7, 3, 1.0, 2.0, kind);  // empty result
  }
  // Every implementation the build has for row-major float.
  for (auto kind : {gemm_implementation::tuned, gemm_implementation::vendor}) {
    using A = Kokkos::View<float**, R, typename Space::memory_space>;
    if (kind == gemm_implementation::tuned && !impl::gemm_tuned<Space, A, A, A>::available) continue;
    if (kind == gemm_implementation::vendor && !impl::gemm_vendor<Space, A, A, A>::available) continue;
    check_gemm<Space, float, R, R, R>(256, 128, 64, 1.0, 0.0, kind);
    check_gemm<Space, float, R, R, R>(131, 67, 259, -1.0, 0.5, kind);
    check_gemm<Space, float, R, R, R>(1, 3, 5, 1.0, 1.0, kind);
  }
}
TEST_CASE_TEMPLATE_APPLY(gemms, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("gemm: bad arguments are named and C is untouched", Space, gemm_errors) {
  using matrix = Kokkos::View<double**, typename Space::memory_space>;
  matrix a("a", 4, 3), b("b", 3, 5), c("c", 4, 5), wrong_b("wrong_b", 2, 5), wrong_c("wrong_c", 5, 4);
  Kokkos::deep_copy(c, 7.0);
  auto expect = [&](auto call, const char* argument) {
    try {
      call();
      FAIL("no exception");
    } catch (const invalid_argument& e) {
      CHECK(e.argument() == argument);
    }
    CHECK(to_eigen(c).cwiseEqual(7.0).all());
  };
  expect([&] { gemm(Space(), 1.0, a, wrong_b, 0.0, c); }, "b");
  expect([&] { gemm(Space(), 1.0, a, b, 0.0, wrong_c); }, "c");
  expect([&] { gemm(Space(), std::nan(""), a, b, 0.0, c); }, "alpha");
  expect([&] { gemm(Space(), 1.0, a, b, HUGE_VAL, c); }, "beta");
  const auto overlapping = Kokkos::subview(c, std::make_pair(0, 3), Kokkos::ALL());  // 3 x 5
  expect([&] { gemm(Space(), 1.0, Kokkos::subview(c, Kokkos::ALL(), std::make_pair(0, 3)), overlapping, 0.0, c); }, "c");
}
TEST_CASE_TEMPLATE_APPLY(gemm_errors, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("matmul_colsum is the column sum of A B", Space, colsums) {
  for (const auto& shape : {std::tuple<int, int, int>{300, 70, 90}, {1, 1, 1}, {2000, 3, 5}, {0, 4, 6}, {5, 0, 3}}) {
    // (no structured bindings: C++17 lambdas, as CAPTURE makes, cannot capture them)
    const int m = std::get<0>(shape), j = std::get<1>(shape), k = std::get<2>(shape);
    CAPTURE(m);
    CAPTURE(j);
    CAPTURE(k);
    const auto a = rounded(random_matrix(m, j, 11 + m), true);
    const auto b = rounded(random_matrix(j, k, 12 + k), true);
    Kokkos::View<float*, typename Space::memory_space> out("out", k);
    matmul_colsum(Space(), to_space<Space, float, Kokkos::LayoutRight>(a),
                  to_space<Space, float, Kokkos::LayoutLeft>(b), out);
    const Eigen::RowVectorXd expected = (a * b).colwise().sum();
    const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    double worst = 0;
    for (int q = 0; q < k; ++q) worst = std::max(worst, std::abs(got(q) - expected(q)) / (1 + std::abs(expected(q))));
    CHECK(worst < 1e-6);  // float64 sums, rounded once to float
  }
  Kokkos::View<float**, typename Space::memory_space> a("a", 3, 4), b("b", 4, 5), bad_b("bad_b", 5, 5);
  Kokkos::View<float*, typename Space::memory_space> out("out", 5), bad_out("bad_out", 4);
  CHECK_THROWS_WITH_AS(matmul_colsum(Space(), a, bad_b, out), doctest::Contains("b:"), invalid_argument);
  CHECK_THROWS_WITH_AS(matmul_colsum(Space(), a, b, bad_out), doctest::Contains("out:"), invalid_argument);
}
TEST_CASE_TEMPLATE_APPLY(colsums, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("gemv_batched: one matrix per vector, or one for all", Space, gemvs) {
  const int batch = 10, m = 150, n = 100;  // the course's vmap example
  const auto shared = random_matrix(m, n, 21);
  const auto x = random_matrix(batch, n, 22);
  const auto y0 = random_matrix(batch, m, 23);
  auto y = to_space<Space, double, Kokkos::LayoutRight>(y0);
  gemv_batched(Space(), 2.0, to_space<Space, double, Kokkos::LayoutLeft>(shared),
               to_space<Space, double, Kokkos::LayoutRight>(x), -1.0, y);
  const Eigen::MatrixXd expected = 2.0 * x * shared.transpose() - y0;
  CHECK((to_eigen(y) - expected).cwiseAbs().maxCoeff() < 1e-12);

  Kokkos::View<float***, typename Space::memory_space> many("many", batch, m, n);
  auto host = Kokkos::create_mirror_view(many);
  std::vector<Eigen::MatrixXd> matrices;
  for (int b = 0; b < batch; ++b) {
    matrices.push_back(rounded(random_matrix(m, n, 30 + b), true));
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) host(b, i, j) = float(matrices[b](i, j));
  }
  Kokkos::deep_copy(many, host);
  const auto xf = rounded(x, true);
  auto yf = to_space<Space, float, Kokkos::LayoutRight>(y0);
  Kokkos::deep_copy(Kokkos::subview(yf, 0, 0), std::numeric_limits<float>::quiet_NaN());  // beta = 0
  gemv_batched(Space(), 1.0, many, to_space<Space, float, Kokkos::LayoutRight>(xf), 0.0, yf);
  const auto got = to_eigen(yf);
  double worst = 0;
  for (int b = 0; b < batch; ++b)
    worst = std::max(worst, (got.row(b).transpose() - matrices[b] * xf.row(b).transpose()).cwiseAbs().maxCoeff());
  CHECK(worst < 1e-5);

  Kokkos::View<float**, typename Space::memory_space> short_x("short_x", batch, n - 1), bad_y("bad_y", batch, m + 1);
  CHECK_THROWS_WITH_AS(gemv_batched(Space(), 1.0, many, short_x, 0.0, yf), doctest::Contains("x:"), invalid_argument);
  CHECK_THROWS_WITH_AS(gemv_batched(Space(), 1.0, many, to_space<Space, float, Kokkos::LayoutRight>(xf), 0.0, bad_y),
                       doctest::Contains("y:"), invalid_argument);
}
TEST_CASE_TEMPLATE_APPLY(gemvs, enabled_spaces);

}  // namespace
