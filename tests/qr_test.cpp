// QR, its factored form, products with Q and least squares, against Eigen's float64 Householder
// QR and the defining identities (A = QR, Q^T Q = I, R upper triangular with R(j, j) >= 0), on
// random, rank-deficient, ill-conditioned (Hilbert, Kahan) and tall-skinny matrices, for the
// generic path and the vendor's where the build has one.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "execution_spaces.hpp"
#include "matrix_support.hpp"
#include "kernwerk/config.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/qr.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test;

template <class Space>
constexpr bool has_vendor_qr() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) return KERNWERK_ENABLE_CUSOLVER;
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same_v<Space, Kokkos::Experimental::HIP>) return false;
#endif
  return KERNWERK_ENABLE_LAPACK;
}

template <class Space>
std::vector<qr_implementation> implementations() {
  if (has_vendor_qr<Space>()) return {qr_implementation::generic, qr_implementation::vendor};
  return {qr_implementation::generic};
}

Eigen::MatrixXd hilbert(Eigen::Index n) {
  Eigen::MatrixXd m(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) m(i, j) = 1.0 / double(i + j + 1);
  return m;
}

// Kahan's matrix: upper triangular, rows scaled by s^i, -c above the diagonal (s^2 + c^2 = 1);
// nearly singular, and a classic trap for rank-revealing factorisations.
Eigen::MatrixXd kahan(Eigen::Index n, double theta = 1.2) {
  const double s = std::sin(theta), c = std::cos(theta);
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double scale = std::pow(s, double(i));
    m(i, i) = scale;
    for (Eigen::Index j = i + 1; j < n; ++j) m(i, j) = -c * scale;
  }
  return m;
}

template <class T>
double unit(Eigen::Index m, Eigen::Index n) {
  return double(std::numeric_limits<T>::epsilon()) * double(std::max<Eigen::Index>({m, n, 16}));
}

// Eigen's R with rows signed so that the diagonal is >= 0.
Eigen::MatrixXd reference_r(const Eigen::MatrixXd& a) {
  const Eigen::Index n = a.cols();
  Eigen::MatrixXd r = Eigen::HouseholderQR<Eigen::MatrixXd>(a).matrixQR().topRows(n);
  r.triangularView<Eigen::StrictlyLower>().setZero();
  for (Eigen::Index i = 0; i < n; ++i)
    if (r(i, i) < 0) r.row(i) *= -1;
  return r;
}

// The identities every answer must meet; against Eigen's R where A has full rank.
template <class Space, class T, class Layout>
void check_qr(const Eigen::MatrixXd& a_double, qr_mode mode, qr_implementation path,
              bool full_rank) {
  const Eigen::Index m = a_double.rows(), n = a_double.cols();
  CAPTURE(m);
  CAPTURE(n);
  const std::string mode_name = to_string(mode);
  CAPTURE(mode_name);
  const std::string path_name = to_string(path);
  CAPTURE(path_name);
  CAPTURE(sizeof(T));
  const Eigen::MatrixXd a_rounded = a_double.cast<T>().template cast<double>();
  const auto a = to_space<Space, T, Layout>(a_double);
  const Eigen::Index q_cols = mode == qr_mode::complete ? m : n;
  Kokkos::View<T**, Layout, typename Space::memory_space> q("q", m, q_cols), r("r", q_cols, n);
  kernwerk::qr(Space(), a, q, r, {mode, path});
  const Eigen::MatrixXd qe = to_eigen(q), re = to_eigen(r);
  const double scale = std::max(a_rounded.stableNorm(), 1e-300);
  const double tolerance = 20 * unit<T>(m, n);
  // (stableNorm of a matrix, not of an expression: Eigen may evaluate an expression's products
  // again for each block it scales)
  const Eigen::MatrixXd residual = a_rounded - qe * re;
  const Eigen::MatrixXd loss = qe.transpose() * qe - Eigen::MatrixXd::Identity(q_cols, q_cols);
  CHECK(residual.stableNorm() / scale <= tolerance);
  CHECK(loss.stableNorm() <= tolerance * std::sqrt(double(q_cols)));
  bool triangular = true, non_negative = true;
  for (Eigen::Index i = 0; i < re.rows(); ++i)
    for (Eigen::Index j = 0; j < std::min<Eigen::Index>(i, n); ++j) triangular &= re(i, j) == 0;
  for (Eigen::Index j = 0; j < n; ++j) non_negative &= re(j, j) >= 0;
  CHECK(triangular);
  CHECK(non_negative);
  if (full_rank) {
    const Eigen::MatrixXd expected = reference_r(a_rounded);
    const Eigen::MatrixXd difference = re.topRows(n) - expected;
    CHECK(difference.stableNorm() / scale <= tolerance * 10);
  }
}

TEST_CASE_TEMPLATE_DEFINE("qr: A = QR against Eigen, shapes, layouts, modes, paths", Space, qr_random) {
  const std::vector<std::pair<Eigen::Index, Eigen::Index>> shapes = {
      {1, 1}, {5, 3}, {7, 7}, {64, 64}, {100, 37}, {97, 65}, {200, 200}, {300, 33}, {1000, 70}};
  std::uint64_t seed = 1;
  for (const auto& [m, n] : shapes)
    for (const qr_implementation path : implementations<Space>()) {
      const Eigen::MatrixXd a = random_matrix(m, n, seed++);
      check_qr<Space, double, Kokkos::LayoutRight>(a, qr_mode::reduced, path, true);
      check_qr<Space, double, Kokkos::LayoutLeft>(a, qr_mode::complete, path, true);
      check_qr<Space, float, Kokkos::LayoutLeft>(a, qr_mode::reduced, path, true);
      check_qr<Space, float, Kokkos::LayoutRight>(a, qr_mode::complete, path, true);
    }
}
TEST_CASE_TEMPLATE_APPLY(qr_random, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("qr: rank-deficient, ill-conditioned and tall-skinny matrices", Space, qr_hard) {
  for (const qr_implementation path : implementations<Space>()) {
    Eigen::MatrixXd duplicated = random_matrix(80, 40, 7);
    duplicated.col(5) = duplicated.col(3);
    duplicated.col(39) = 2 * duplicated.col(0);
    duplicated.col(20).setZero();
    check_qr<Space, double, Kokkos::LayoutRight>(duplicated, qr_mode::reduced, path, false);
    check_qr<Space, double, Kokkos::LayoutLeft>(Eigen::MatrixXd::Zero(50, 34), qr_mode::complete, path, false);
    Eigen::MatrixXd rank_one = random_matrix(70, 1, 8) * random_matrix(1, 45, 9);
    check_qr<Space, float, Kokkos::LayoutRight>(rank_one, qr_mode::reduced, path, false);
    // Hilbert and Kahan: backward stable regardless of conditioning; R against Eigen where
    // the reference itself is well determined (Hilbert 12 has condition ~1e16: not compared)
    check_qr<Space, double, Kokkos::LayoutRight>(hilbert(12), qr_mode::reduced, path, false);
    check_qr<Space, double, Kokkos::LayoutLeft>(kahan(90), qr_mode::reduced, path, true);
    check_qr<Space, float, Kokkos::LayoutLeft>(kahan(40), qr_mode::complete, path, false);
    // Values whose squares overflow or underflow: norms taken with scaling, column by column
    // (Eigen's own QR, the reference for R, overflows here: the QR identities are checked)
    Eigen::MatrixXd wide_range = random_matrix(600, 30, 12);  // (rows over several GPU teams)
    wide_range.col(3) *= 1e-170;
    wide_range.col(7) *= 1e170;
    wide_range.col(8) *= 1e-300;
    check_qr<Space, double, Kokkos::LayoutLeft>(wide_range, qr_mode::reduced, path, false);
    check_qr<Space, double, Kokkos::LayoutRight>(random_matrix(40, 20, 13) * 1e200, qr_mode::reduced, path, false);
    check_qr<Space, double, Kokkos::LayoutRight>(random_matrix(40, 20, 14) * 1e-200, qr_mode::reduced, path, false);
    check_qr<Space, float, Kokkos::LayoutLeft>(random_matrix(40, 20, 15) * 1e30, qr_mode::reduced, path, false);
    check_qr<Space, float, Kokkos::LayoutLeft>(random_matrix(40, 20, 16) * 1e-30, qr_mode::reduced, path, false);
  }
  // 2^20 x 16, the tall-skinny case, once per space on the default path
  check_qr<Space, double, Kokkos::LayoutRight>(random_matrix(1 << 20, 16, 11), qr_mode::reduced,
                                               qr_implementation::automatic, true);
}
TEST_CASE_TEMPLATE_APPLY(qr_hard, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("qr: factored form, apply_q, and generic against vendor", Space, qr_factored) {
  using memory = typename Space::memory_space;
  const Eigen::Index m = 150, n = 70, p = 9;
  const Eigen::MatrixXd a_host = random_matrix(m, n, 21), c_host = random_matrix(m, p, 22);
  const auto a = to_space<Space, double, Kokkos::LayoutLeft>(a_host);
  std::vector<Eigen::MatrixXd> r_of_path;
  for (const qr_implementation path : implementations<Space>()) {
    const std::string path_name = to_string(path);
    CAPTURE(path_name);
    Kokkos::View<double**, Kokkos::LayoutLeft, memory> factors("factors", m, n);
    Kokkos::View<double*, memory> tau("tau", n);
    qr_factor(Space(), a, factors, tau, {qr_mode::reduced, path});
    // Q^T A = [R; 0], with R the upper triangle of factors
    auto qta = to_space<Space, double, Kokkos::LayoutRight>(a_host);
    apply_q(Space(), factors, tau, qta, {qr_product::q_transpose_c, path});
    const Eigen::MatrixXd f = to_eigen(factors), qta_host = to_eigen(qta);
    Eigen::MatrixXd r = f.topRows(n);
    r.triangularView<Eigen::StrictlyLower>().setZero();
    CHECK((qta_host.topRows(n) - r).norm() <= 1e-12 * a_host.norm());
    CHECK(qta_host.bottomRows(m - n).norm() <= 1e-12 * a_host.norm());
    // Q (Q^T C) = C, on a rank-1 C too
    auto c = to_space<Space, double, Kokkos::LayoutRight>(c_host);
    apply_q(Space(), factors, tau, c, {qr_product::q_transpose_c, path});
    apply_q(Space(), factors, tau, c, {qr_product::q_c, path});
    CHECK((to_eigen(c) - c_host).norm() <= 1e-12 * c_host.norm());
    Kokkos::View<double*, memory> column("column", m);
    Kokkos::deep_copy(column, Kokkos::subview(c, Kokkos::ALL(), 0));
    apply_q(Space(), factors, tau, column, {qr_product::q_c, path});
    const Eigen::MatrixXd q_reference = Eigen::HouseholderQR<Eigen::MatrixXd>(a_host).householderQ();
    const Eigen::MatrixXd expected = q_reference * c_host.col(0);
    // Q is determined up to the signs of its first n columns: compare |Q c| only through
    // norms and the round trip above, and Q^T A = [R; 0] against R's magnitudes
    CHECK(std::abs(to_eigen(column).norm() - expected.norm()) <= 1e-12 * expected.norm());
    r_of_path.push_back(r);
    // in place: factors may be A itself
    auto in_place = to_space<Space, double, Kokkos::LayoutLeft>(a_host);
    qr_factor(Space(), in_place, in_place, tau, {qr_mode::reduced, path});
    CHECK((to_eigen(in_place) - f).norm() == 0.0);
  }
  // the vendor and the generic factorisations agree (both follow LAPACK's conventions)
  if (r_of_path.size() == 2)
    CHECK((r_of_path[0] - r_of_path[1]).norm() <= 1e-12 * a_host.norm());
}
TEST_CASE_TEMPLATE_APPLY(qr_factored, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("qr: least squares against Eigen", Space, qr_least_squares) {
  using memory = typename Space::memory_space;
  for (const qr_implementation path : implementations<Space>()) {
    const std::string path_name = to_string(path);
    CAPTURE(path_name);
    for (const auto& [m, n] : std::vector<std::pair<Eigen::Index, Eigen::Index>>{{40, 40}, {300, 45}, {1000, 3}}) {
      const Eigen::MatrixXd a_host = random_matrix(m, n, 31 + m), b_host = random_matrix(m, 4, 32 + m);
      const Eigen::MatrixXd expected = a_host.householderQr().solve(b_host);
      const auto a = to_space<Space, double, Kokkos::LayoutRight>(a_host);
      const auto b = to_space<Space, double, Kokkos::LayoutLeft>(b_host);
      Kokkos::View<double**, Kokkos::LayoutRight, memory> x("x", n, 4);
      solve_least_squares(Space(), a, b, x, {qr_mode::reduced, path});
      CHECK((to_eigen(x) - expected).norm() <= 1e-10 * expected.norm());
      Kokkos::View<double*, memory> b1("b1", m), x1("x1", n);
      Kokkos::deep_copy(b1, Kokkos::subview(b, Kokkos::ALL(), 2));
      solve_least_squares(Space(), a, b1, x1, {qr_mode::reduced, path});
      CHECK((to_eigen(x1) - expected.col(2)).norm() <= 1e-10 * expected.norm());
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(qr_least_squares, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("qr: bad input is named and outputs are untouched", Space, qr_errors) {
  using memory = typename Space::memory_space;
  using matrix = Kokkos::View<double**, Kokkos::LayoutRight, memory>;
  const Space space;
  const matrix a = to_space<Space, double, Kokkos::LayoutRight>(random_matrix(8, 5, 41));
  matrix q("q", 8, 5), r("r", 5, 5), wide("wide", 3, 5), empty("empty", 0, 0);
  Kokkos::deep_copy(q, 7.0);
  Kokkos::deep_copy(r, 7.0);
  check_names([&] { qr(space, wide, matrix("q", 3, 3), matrix("r", 3, 5)); }, "a");
  check_names([&] { qr(space, empty, empty, empty); }, "a");
  check_names([&] { qr(space, a, matrix("q", 8, 8), r); }, "q");
  check_names([&] { qr(space, a, q, matrix("r", 8, 5)); }, "r");
  check_names([&] { qr(space, a, q, r, {qr_mode::complete}); }, "q");
  check_names([&] { qr(space, a, a, r); }, "q");
  check_names([&] { qr(space, a, q, Kokkos::subview(q, std::make_pair(0, 5), Kokkos::ALL())); }, "r");
  const matrix bad = to_space<Space, double, Kokkos::LayoutRight>(random_matrix(8, 5, 42));
  Kokkos::deep_copy(Kokkos::subview(bad, 6, 3), std::numeric_limits<double>::quiet_NaN());
  check_names([&] { qr(space, bad, q, r); }, "a");
  Kokkos::deep_copy(Kokkos::subview(bad, 6, 3), std::numeric_limits<double>::infinity());
  check_names([&] { qr(space, bad, q, r); }, "a");
  CHECK(to_eigen(q).isConstant(7.0));
  CHECK(to_eigen(r).isConstant(7.0));

  Kokkos::View<double*, memory> tau("tau", 5);
  check_names([&] { qr_factor(space, a, q, Kokkos::View<double*, memory>("tau", 4)); }, "tau");
  check_names([&] { qr_factor(space, a, matrix("f", 5, 8), tau); }, "factors");
  check_names([&] { qr_factor(space, a, q, Kokkos::subview(q, 0, Kokkos::ALL())); }, "tau");
  qr_factor(space, a, q, tau);
  matrix c("c", 8, 2);
  check_names([&] { apply_q(space, q, tau, matrix("c", 7, 2)); }, "c");
  check_names([&] { apply_q(space, q, Kokkos::View<double*, memory>("tau", 3), c); }, "tau");
  check_names([&] { apply_q(space, q, tau, Kokkos::subview(q, Kokkos::ALL(), std::make_pair(0, 2))); }, "c");

  matrix x("x", 5, 2);
  Kokkos::deep_copy(x, 7.0);
  check_names([&] { solve_least_squares(space, a, matrix("b", 7, 2), x); }, "b");
  check_names([&] { solve_least_squares(space, a, c, matrix("x", 5, 3)); }, "x");
  matrix singular = to_space<Space, double, Kokkos::LayoutRight>(random_matrix(8, 5, 43));
  Kokkos::deep_copy(Kokkos::subview(singular, Kokkos::ALL(), 4), 0.0);
  check_names([&] { solve_least_squares(space, singular, c, x); }, "a");
  CHECK(to_eigen(x).isConstant(7.0));

  if (!has_vendor_qr<Space>())
    CHECK_THROWS_AS(qr(space, a, q, r, {qr_mode::reduced, qr_implementation::vendor}), kernwerk::unsupported);
  CHECK(parse_qr_implementation("vendor", "x") == qr_implementation::vendor);
  CHECK_THROWS_AS(parse_qr_mode("economic", "mode"), kernwerk::invalid_argument);
}
TEST_CASE_TEMPLATE_APPLY(qr_errors, enabled_spaces);

}  // namespace
