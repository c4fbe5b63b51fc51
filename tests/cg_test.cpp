// Conjugate gradient against Eigen's Cholesky solution, on dense and CSR matrices, and its
// errors: indefinite matrices, no convergence, malformed CSR, non-finite vectors.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "execution_spaces.hpp"
#include "vector_views.hpp"
#include "kernwerk/cg.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test;


std::vector<double> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> v(n);
  for (auto& x : v) x = uniform(random);
  return v;
}

// The 5-point Laplacian of a g x g grid (Dirichlet): SPD, n = g^2, in CSR and dense.
struct laplacian_2d {
  int g;
  std::vector<int> starts, columns;
  std::vector<double> values;
  explicit laplacian_2d(int grid) : g(grid) {
    starts.push_back(0);
    for (int i = 0; i < g; ++i)
      for (int j = 0; j < g; ++j) {
        auto add = [&](int ii, int jj, double v) {
          if (ii >= 0 && jj >= 0 && ii < g && jj < g) {
            columns.push_back(ii * g + jj);
            values.push_back(v);
          }
        };
        add(i - 1, j, -1);
        add(i, j - 1, -1);
        add(i, j, 4);
        add(i, j + 1, -1);
        add(i + 1, j, -1);
        starts.push_back(int(columns.size()));
      }
  }
  Eigen::MatrixXd dense() const {
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(g * g, g * g);
    for (int r = 0; r < g * g; ++r)
      for (int e = starts[r]; e < starts[r + 1]; ++e) a(r, columns[e]) = values[e];
    return a;
  }
};

template <class Space>
Kokkos::View<double**, Kokkos::LayoutRight, typename Space::memory_space> dense_view(const Eigen::MatrixXd& a) {
  Kokkos::View<double**, Kokkos::LayoutRight, typename Space::memory_space> view("a", a.rows(), a.cols());
  auto host = Kokkos::create_mirror_view(view);
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) host(i, j) = a(i, j);
  Kokkos::deep_copy(view, host);
  return view;
}

double relative_error(const std::vector<double>& got, const Eigen::VectorXd& expected) {
  double worst = 0;
  for (Eigen::Index i = 0; i < expected.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - expected(i)));
  return worst / std::max(1.0, expected.cwiseAbs().maxCoeff());
}

TEST_CASE_TEMPLATE_DEFINE("conjugate_gradient solves SPD systems like Cholesky", Space, cg_solves) {
  // Dense: A = M^T M + n I.
  const int n = 60;
  Eigen::MatrixXd m(n, n);
  const auto entries = random_vector(n * n, 1);
  for (int i = 0; i < n * n; ++i) m(i / n, i % n) = entries[i];
  const Eigen::MatrixXd a = m.transpose() * m + n * Eigen::MatrixXd::Identity(n, n);
  const auto b = random_vector(n, 2);
  const Eigen::VectorXd expected = a.llt().solve(Eigen::Map<const Eigen::VectorXd>(b.data(), n));
  auto x = to_space<Space>(std::vector<double>(n, 0.0));
  const auto result = conjugate_gradient(Space(), dense_view<Space>(a), to_space<Space>(b), x,
                                         cg_options{1e-12, 0});
  CHECK(relative_error(to_vector<double>(x), expected) < 1e-10);
  CHECK(result.residual_norm <= 1e-12);
  CHECK(result.residual_history.size() == std::size_t(result.iterations + 1));
  CHECK(result.residual_history.front() == doctest::Approx(1.0));  // x0 = 0: r = b

  // CSR: the 2-D Laplacian of a 24 x 24 grid, float right-hand side and solution.
  const laplacian_2d lap(24);
  const int size = 24 * 24;
  const auto bd = random_vector(size, 3);
  std::vector<float> bf(bd.begin(), bd.end());
  Eigen::VectorXd bf64(size);
  for (int i = 0; i < size; ++i) bf64(i) = double(bf[i]);
  const Eigen::VectorXd expected_sparse = lap.dense().llt().solve(bf64);
  auto xf = to_space<Space>(std::vector<float>(size, 0.5f));  // a non-zero initial guess
  const auto csr = make_csr(to_space<Space>(lap.starts), to_space<Space>(lap.columns),
                            to_space<Space>(lap.values));
  const auto sparse = conjugate_gradient(Space(), csr, to_space<Space>(bf), xf, cg_options{1e-10, 0});
  CHECK(relative_error(to_vector<double>(xf), expected_sparse) < 1e-6);  // float solution
  CHECK(sparse.iterations > 10);
  CHECK(sparse.iterations <= size);

  // 1 x 1, and b = 0 (x = 0 without a step).
  auto one = to_space<Space>(std::vector<double>{0.0});
  conjugate_gradient(Space(), dense_view<Space>(Eigen::MatrixXd::Constant(1, 1, 4.0)),
                     to_space<Space>(std::vector<double>{2.0}), one);
  CHECK(to_vector<double>(one)[0] == doctest::Approx(0.5));
  auto zero = to_space<Space>(std::vector<double>(n, 3.0));
  const auto trivial = conjugate_gradient(Space(), dense_view<Space>(a),
                                          to_space<Space>(std::vector<double>(n, 0.0)), zero);
  CHECK(trivial.iterations == 0);
  CHECK(to_vector<double>(zero) == std::vector<double>(n, 0.0));
}
TEST_CASE_TEMPLATE_APPLY(cg_solves, enabled_spaces);

// The textbook CG in float64 on the host (Hestenes and Stiefel: two separate dot products a
// step), the independent reference for the residual history.
template <class Matrix>
std::vector<double> textbook_history(const Matrix& a, const Eigen::VectorXd& b,
                                     Eigen::VectorXd x, double tolerance, int max_steps) {
  Eigen::VectorXd r = b - a * x, p = r;
  double rr = r.squaredNorm();
  const double b_norm = b.norm();
  std::vector<double> history{std::sqrt(rr) / b_norm};
  for (int k = 0; k < max_steps && !(history.back() <= tolerance); ++k) {
    const Eigen::VectorXd ap = a * p;
    const double alpha = rr / p.dot(ap);
    x += alpha * p;
    r -= alpha * ap;
    const double next = r.squaredNorm();
    p = r + (next / rr) * p;
    rr = next;
    history.push_back(std::sqrt(rr) / b_norm);
  }
  return history;
}

template <class Space, class Layout>
Kokkos::View<double**, Layout, typename Space::memory_space> dense_in_layout(const Eigen::MatrixXd& a) {
  Kokkos::View<double**, Layout, typename Space::memory_space> view("a", a.rows(), a.cols());
  auto host = Kokkos::create_mirror_view(view);
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) host(i, j) = a(i, j);
  Kokkos::deep_copy(view, host);
  return view;
}

// The history against the textbook iteration, the stop at the first step within the tolerance,
// and the true residual of the answer.
template <class Matrix>
void check_against_textbook(const cg_result& result, const std::vector<double>& x,
                            const Matrix& a, const Eigen::VectorXd& b,
                            const Eigen::VectorXd& x0, double tolerance) {
  const auto reference = textbook_history(a, b, x0, tolerance, int(b.size()) * 4);
  const auto& history = result.residual_history;
  REQUIRE(history.size() == std::size_t(result.iterations + 1));
  CHECK(std::abs(double(history.size()) - double(reference.size())) <= 2);
  const std::size_t compared = std::min<std::size_t>({history.size(), reference.size(), 25});
  for (std::size_t k = 0; k < compared; ++k) {
    CAPTURE(k);
    CHECK(std::abs(history[k] - reference[k]) <= 1e-7 * reference[k] + 1e-15);
  }
  CHECK(history.back() <= tolerance);
  for (std::size_t k = 0; k + 1 < history.size(); ++k) CHECK(history[k] > tolerance);
  CHECK(result.residual_norm == history.back());
  const Eigen::VectorXd xe = Eigen::Map<const Eigen::VectorXd>(x.data(), Eigen::Index(x.size()));
  CHECK((b - a * xe).norm() / b.norm() <= 10 * tolerance);
}

TEST_CASE_TEMPLATE_DEFINE("conjugate_gradient: history as the textbook CG's, every layout, batches", Space, cg_textbook) {
  // CSR with int32 indices, 40 x 40 grid: a few hundred steps, many batches of steps.
  const laplacian_2d lap(40);
  const int size = 40 * 40;
  const auto bv = random_vector(size, 31), x0v = random_vector(size, 32);
  const Eigen::VectorXd b = Eigen::Map<const Eigen::VectorXd>(bv.data(), size);
  const Eigen::VectorXd x0 = Eigen::Map<const Eigen::VectorXd>(x0v.data(), size);
  const Eigen::MatrixXd dense = lap.dense();
  const auto csr = make_csr(to_space<Space>(lap.starts), to_space<Space>(lap.columns),
                            to_space<Space>(lap.values));
  auto x = to_space<Space>(x0v);
  const auto result = conjugate_gradient(Space(), csr, to_space<Space>(bv), x, cg_options{1e-9, 0});
  CHECK(result.iterations > 40);
  check_against_textbook(result, to_vector<double>(x), dense, b, x0, 1e-9);

  // Dense, row- and column-major and strided (a transposed view): the same answers.
  const int n = 90;
  Eigen::MatrixXd m(n, n);
  const auto entries = random_vector(n * n, 33);
  for (int i = 0; i < n * n; ++i) m(i / n, i % n) = entries[i];
  const Eigen::MatrixXd a = m.transpose() * m + 5.0 * Eigen::MatrixXd::Identity(n, n);
  const auto bd = random_vector(n, 34);
  const Eigen::VectorXd bn = Eigen::Map<const Eigen::VectorXd>(bd.data(), n);
  std::vector<std::vector<double>> answers;
  const auto solve = [&](const auto& view) {
    auto xd = to_space<Space>(std::vector<double>(n, 0.0));
    const auto r = conjugate_gradient(Space(), view, to_space<Space>(bd), xd, cg_options{1e-10, 0});
    check_against_textbook(r, to_vector<double>(xd), a, bn, Eigen::VectorXd::Zero(n), 1e-10);
    answers.push_back(to_vector<double>(xd));
  };
  solve(dense_in_layout<Space, Kokkos::LayoutRight>(a));
  const auto left = dense_in_layout<Space, Kokkos::LayoutLeft>(a);
  solve(left);
  using strided = Kokkos::View<double**, Kokkos::LayoutStride, typename Space::memory_space>;
  solve(strided(left.data(), Kokkos::LayoutStride(n, n, n, 1)));  // A^T read through strides
  for (const auto& answer : answers) CHECK(relative_error(answer, a.llt().solve(bn)) < 1e-8);

  // max_iterations that ends inside a batch: exactly that many steps, x left as given.
  const std::vector<double> guess(size, 0.5);
  auto kept = to_space<Space>(guess);
  try {
    conjugate_gradient(Space(), csr, to_space<Space>(bv), kept, cg_options{1e-12, 21});
    FAIL("no exception");
  } catch (const not_converged& e) {
    CHECK(e.result().iterations == 21);
    CHECK(e.result().residual_history.size() == 22);
  }
  CHECK(to_vector<double>(kept) == guess);

  // A diagonal system of 5: CG ends in at most 5 steps with a residual of (nearly) 0; the
  // steps launched after it must not touch x.
  Eigen::MatrixXd diagonal = Eigen::MatrixXd::Zero(5, 5);
  for (int i = 0; i < 5; ++i) diagonal(i, i) = 1.0 + i;
  auto xs = to_space<Space>(std::vector<double>(5, 0.0));
  const auto small = conjugate_gradient(Space(), dense_view<Space>(diagonal),
                                        to_space<Space>(std::vector<double>{1, 2, 3, 4, 5}), xs,
                                        cg_options{1e-15, 0});
  CHECK(small.iterations <= 5);
  for (const double value : to_vector<double>(xs)) CHECK(value == doctest::Approx(1.0).epsilon(1e-12));

  // x0 already the solution: no step.
  auto exact = to_space<Space>(std::vector<double>(5, 1.0));
  const auto none = conjugate_gradient(Space(), dense_view<Space>(diagonal),
                                       to_space<Space>(std::vector<double>{1, 2, 3, 4, 5}), exact);
  CHECK(none.iterations == 0);
  CHECK(none.residual_history == std::vector<double>{0.0});
}
TEST_CASE_TEMPLATE_APPLY(cg_textbook, enabled_spaces);

// A sparse SPD matrix of n rows whose rows couple near and far: a ring (i, i + 1) and chords
// (i, i * 7919 + 13 mod n), as -1s, on a diagonal of the degree plus 0.5. More rows than a
// host thread's range, and columns past its lead of updates: the step reads its neighbours'
// new residuals where it computed them and recomputes them elsewhere, alike.
struct far_coupled {
  int n;
  std::vector<int> starts, columns;
  std::vector<double> values;
  Eigen::SparseMatrix<double> sparse;
  explicit far_coupled(int rows) : n(rows), sparse(rows, rows) {
    std::vector<std::set<int>> neighbours(static_cast<std::size_t>(rows));
    const auto couple = [&](int i, int j) {
      if (i == j) return;
      neighbours[std::size_t(i)].insert(j);
      neighbours[std::size_t(j)].insert(i);
    };
    for (int i = 0; i < n; ++i) {
      couple(i, (i + 1) % n);
      couple(i, int((std::int64_t(i) * 7919 + 13) % n));
    }
    std::vector<Eigen::Triplet<double>> triplets;
    starts.push_back(0);
    for (int i = 0; i < n; ++i) {
      std::set<int> row = neighbours[std::size_t(i)];
      const double diagonal = double(row.size()) + 0.5;
      row.insert(i);
      for (const int j : row) {
        columns.push_back(j);
        values.push_back(j == i ? diagonal : -1.0);
        triplets.emplace_back(i, j, values.back());
      }
      starts.push_back(int(columns.size()));
    }
    sparse.setFromTriplets(triplets.begin(), triplets.end());
  }
};

TEST_CASE_TEMPLATE_DEFINE("conjugate_gradient: CSR rows coupled far apart, past a thread's range", Space, cg_far) {
  const far_coupled a(3 * 4096 + 123);
  const auto bv = random_vector(std::size_t(a.n), 41), x0v = random_vector(std::size_t(a.n), 42);
  const Eigen::VectorXd b = Eigen::Map<const Eigen::VectorXd>(bv.data(), a.n);
  const Eigen::VectorXd x0 = Eigen::Map<const Eigen::VectorXd>(x0v.data(), a.n);
  const auto csr = make_csr(to_space<Space>(a.starts), to_space<Space>(a.columns), to_space<Space>(a.values));
  auto x = to_space<Space>(x0v);
  const auto result = conjugate_gradient(Space(), csr, to_space<Space>(bv), x, cg_options{1e-11, 0});
  CHECK(result.iterations > 20);
  check_against_textbook(result, to_vector<double>(x), a.sparse, b, x0, 1e-11);
}
TEST_CASE_TEMPLATE_APPLY(cg_far, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("conjugate_gradient: errors leave x as it was", Space, cg_errors) {
  const int n = 16;
  const laplacian_2d lap(4);
  const auto b = to_space<Space>(random_vector(n, 4));
  const std::vector<double> guess(n, 0.25);
  auto x = to_space<Space>(guess);
  auto expect_invalid = [&](auto call, const char* argument) {
    try {
      call();
      FAIL("no exception");
    } catch (const invalid_argument& e) {
      CHECK(e.argument() == argument);
    }
    CHECK(to_vector<double>(x) == guess);
  };
  // Not positive definite: -A, and an indefinite diagonal.
  Eigen::MatrixXd negative = -lap.dense();
  expect_invalid([&] { conjugate_gradient(Space(), dense_view<Space>(negative), b, x); }, "a");
  Eigen::MatrixXd indefinite = Eigen::MatrixXd::Identity(n, n);
  indefinite(3, 3) = -2.0;
  expect_invalid([&] { conjugate_gradient(Space(), dense_view<Space>(indefinite), b, x); }, "a");
  // No convergence in 2 steps.
  try {
    conjugate_gradient(Space(), dense_view<Space>(lap.dense()), b, x, cg_options{1e-12, 2});
    FAIL("no exception");
  } catch (const not_converged& e) {
    CHECK(e.result().iterations == 2);
    CHECK(e.result().residual_history.size() == 3);
    CHECK(e.result().residual_norm > 1e-12);
    CHECK(std::string(e.what()).find("no convergence in 2 steps") != std::string::npos);
  }
  CHECK(to_vector<double>(x) == guess);
  // Shapes, vectors, options.
  expect_invalid([&] { conjugate_gradient(Space(), dense_view<Space>(Eigen::MatrixXd::Identity(n, n - 1)), b, x); }, "a");
  auto short_x = to_space<Space>(std::vector<double>(n - 1, 0.0));
  expect_invalid([&] { conjugate_gradient(Space(), dense_view<Space>(lap.dense()), b, short_x); }, "x");
  auto nan_b = random_vector(n, 5);
  nan_b[7] = std::nan("");
  expect_invalid([&] { conjugate_gradient(Space(), dense_view<Space>(lap.dense()), to_space<Space>(nan_b), x); }, "b");
  expect_invalid([&] { conjugate_gradient(Space(), dense_view<Space>(lap.dense()), b, x, cg_options{0.0, 0}); }, "options.tolerance");
  expect_invalid([&] { conjugate_gradient(Space(), dense_view<Space>(lap.dense()), b, x, cg_options{1e-8, -1}); }, "options.max_iterations");
  // Malformed CSR.
  auto starts = lap.starts;
  auto columns = lap.columns;
  const auto values = to_space<Space>(lap.values);
  std::swap(starts[5], starts[6]);
  expect_invalid([&] { conjugate_gradient(Space(), make_csr(to_space<Space>(starts), to_space<Space>(columns), values), b, x); }, "a.row_starts");
  starts = lap.starts;
  columns[9] = n;
  expect_invalid([&] { conjugate_gradient(Space(), make_csr(to_space<Space>(starts), to_space<Space>(columns), values), b, x); }, "a.columns");
  columns = lap.columns;
  starts.pop_back();
  expect_invalid([&] { conjugate_gradient(Space(), make_csr(to_space<Space>(starts), to_space<Space>(columns), values), b, x); }, "a.row_starts");
}
TEST_CASE_TEMPLATE_APPLY(cg_errors, enabled_spaces);

}  // namespace
