#pragma once
// Checks, matrix operators (dense, CSR) and the generic conjugate gradient iteration of
// kernwerk/cg.hpp. The iteration keeps x, r, p and A p in float64 in the execution space's
// memory; x is written back only when it converged.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernwerk/csr_matrix.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/impl/compensated.hpp"
#include "kernwerk/impl/gemm_generic.hpp"
#include "kernwerk/impl/reduction_dispatch.hpp"

namespace kernwerk::impl {


template <class T>
struct is_csr : std::false_type {};
template <class R, class C, class V>
struct is_csr<csr_matrix<R, C, V>> : std::true_type {};

// y = A p, one team per row.
template <class ExecutionSpace, class Matrix, class In, class Out>
struct dense_rows {
  Matrix a;
  In p;
  Out y;
  using member = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  KOKKOS_INLINE_FUNCTION void operator()(const member& team) const {
    const std::int64_t i = team.league_rank();
    double sum = 0.0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, std::int64_t(a.extent(1))),
        [&](const std::int64_t j, double& partial) { partial += double(a(i, j)) * p(j); }, sum);
    Kokkos::single(Kokkos::PerTeam(team), [&] { y(i) = sum; });
  }
};

template <class ExecutionSpace, class Matrix>
struct dense_operator {
  Matrix a;
  template <class In, class Out>
  void apply(const ExecutionSpace& space, const In& p, const Out& y) const {
    Kokkos::parallel_for("kernwerk::cg::dense_product",
                         Kokkos::TeamPolicy<ExecutionSpace>(space, int(a.extent(0)), Kokkos::AUTO),
                         dense_rows<ExecutionSpace, Matrix, In, Out>{a, p, y});
  }
};

template <class Csr, class In, class Out>
struct csr_rows {
  Csr a;
  In p;
  Out y;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    double sum = 0.0;
    const auto end = a.row_starts(i + 1);
    for (auto e = a.row_starts(i); e < end; ++e) sum += double(a.values(e)) * p(a.columns(e));
    y(i) = sum;
  }
};

template <class ExecutionSpace, class Csr>
struct csr_operator {
  Csr a;
  template <class In, class Out>
  void apply(const ExecutionSpace& space, const In& p, const Out& y) const {
    Kokkos::parallel_for("kernwerk::cg::csr_product",
                         Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                             space, 0, std::int64_t(a.row_starts.extent(0)) - 1),
                         csr_rows<Csr, In, Out>{a, p, y});
  }
};

// The first position where a CSR matrix breaks its rules (-1: none), with what is wrong.
template <class Csr>
struct csr_problems {
  Csr a;
  std::int64_t n;
  // code: 1 row start out of order, 2 column out of range, 3 non-finite value
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t e, std::int64_t& first) const {
    // e < n: row starts; else entry e - n.
    std::int64_t found = -1;
    if (e < n) {
      if (a.row_starts(e + 1) < a.row_starts(e)) found = e;
    } else {
      const std::int64_t entry = e - n;
      const auto column = a.columns(entry);
      const double value = double(a.values(entry));
      if (column < 0 || std::int64_t(column) >= n || !(value - value == 0.0)) found = e;
    }
    if (found >= 0 && found < first) first = found;
  }
};

template <class V>
std::int64_t host_value(const V& view, std::size_t i) {
  typename V::non_const_value_type value{};
  Kokkos::deep_copy(Kokkos::View<typename V::non_const_value_type, Kokkos::HostSpace>(&value),
                    Kokkos::subview(view, i));
  return std::int64_t(value);
}

template <class ExecutionSpace, class Matrix, class B, class X>
auto make_operator(const ExecutionSpace& space, const Matrix& a, const B& b, const X& x) {
  constexpr const char* fn = "conjugate_gradient";
  require_vector<ExecutionSpace>(fn, "b", b);
  require_vector<ExecutionSpace>(fn, "x", x);
  static_assert(!std::is_const_v<typename X::value_type>, "kernwerk::conjugate_gradient: x writable");
  const std::size_t n = b.extent(0);
  if (x.extent(0) != n)
    throw invalid_argument(fn, "x",
                           "length " + std::to_string(x.extent(0)) + " differs from b's " +
                               std::to_string(n));
  require_disjoint(fn, "x", x, "b", b);
  if constexpr (is_csr<Matrix>::value) {
    require_vector<ExecutionSpace>(fn, "a.row_starts", a.row_starts);
    require_vector<ExecutionSpace>(fn, "a.columns", a.columns);
    require_vector<ExecutionSpace>(fn, "a.values", a.values);
    static_assert(std::is_integral_v<typename decltype(a.row_starts)::non_const_value_type> &&
                      std::is_integral_v<typename decltype(a.columns)::non_const_value_type>,
                  "kernwerk::conjugate_gradient: CSR row starts and columns are integers");
    if (a.row_starts.extent(0) != n + 1)
      throw invalid_argument(fn, "a.row_starts",
                             "length " + std::to_string(a.row_starts.extent(0)) +
                                 " is not n + 1 = " + std::to_string(n + 1));
    if (a.columns.extent(0) != a.values.extent(0))
      throw invalid_argument(fn, "a.values",
                             "length " + std::to_string(a.values.extent(0)) + " differs from " +
                                 "a.columns' " + std::to_string(a.columns.extent(0)));
    const std::int64_t first = host_value(a.row_starts, 0);
    const std::int64_t last = host_value(a.row_starts, n);
    if (first != 0)
      throw invalid_argument(fn, "a.row_starts", "must start at 0, starts at " + std::to_string(first));
    if (last != std::int64_t(a.columns.extent(0)))
      throw invalid_argument(fn, "a.row_starts",
                             "ends at " + std::to_string(last) + ", but a.columns holds " +
                                 std::to_string(a.columns.extent(0)) + " entries");
    std::int64_t bad = std::numeric_limits<std::int64_t>::max();
    Kokkos::parallel_reduce("kernwerk::cg::check_csr",
                            Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                                space, 0, std::int64_t(n + a.columns.extent(0))),
                            csr_problems<Matrix>{a, std::int64_t(n)}, Kokkos::Min<std::int64_t>(bad));
    space.fence();
    if (bad != std::numeric_limits<std::int64_t>::max()) {
      if (bad < std::int64_t(n))
        throw invalid_argument(fn, "a.row_starts",
                               "decreases after row " + std::to_string(bad));
      throw invalid_argument(fn, "a.columns",
                             "entry " + std::to_string(bad - std::int64_t(n)) +
                                 " has a column outside [0, " + std::to_string(n) +
                                 ") or a non-finite value");
    }
    return csr_operator<ExecutionSpace, Matrix>{a};
  } else {
    require_matrix_view<ExecutionSpace, Matrix>();
    static_assert(Matrix::rank == 2, "kernwerk::conjugate_gradient: a dense A is a rank-2 View");
    if (a.extent(0) != n || a.extent(1) != n)
      throw invalid_argument(fn, "a",
                             "shape " + shape(a.extent(0), a.extent(1)) + " is not (n, n) for b's n = " +
                                 std::to_string(n));
    require_disjoint(fn, "x", x, "a", a);
    return dense_operator<ExecutionSpace, Matrix>{a};
  }
}

template <class V>
struct first_non_finite_element {
  V v;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, std::int64_t& first) const {
    const double value = double(v(i));
    if (!(value - value == 0.0) && i < first) first = i;
  }
};

template <class ExecutionSpace, class V>
void require_finite_vector(const ExecutionSpace& space, const char* fn, const char* name, const V& v) {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  Kokkos::parallel_reduce("kernwerk::check_finite",
                          Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                              space, 0, std::int64_t(v.extent(0))),
                          first_non_finite_element<V>{v}, Kokkos::Min<std::int64_t>(first));
  space.fence();
  if (first != std::numeric_limits<std::int64_t>::max())
    throw invalid_argument(fn, name, "element " + std::to_string(first) + " is not finite");
}

template <class ExecutionSpace, class B, class X, class Options>
void check_cg(const ExecutionSpace& space, const B& b, const X& x, const Options& options) {
  constexpr const char* fn = "conjugate_gradient";
  if (!(options.tolerance > 0.0 && options.tolerance < 1.0))
    throw invalid_argument(fn, "options.tolerance",
                           "must be in (0, 1), got " + std::to_string(options.tolerance));
  if (options.max_iterations < 0)
    throw invalid_argument(fn, "options.max_iterations",
                           "must not be negative, got " + std::to_string(options.max_iterations));
  require_finite_vector(space, fn, "b", b);
  require_finite_vector(space, fn, "x", x);
}

struct cg_outcome {
  bool converged = false, negative_curvature = false;
  double curvature = 0.0;
  std::int64_t iterations = 0;
  double residual = 0.0;
  std::vector<double> history;
};

// x += alpha p; r -= alpha ap; returns r . r (compensated).
template <class V>
struct cg_update {
  V x, r, p, ap;
  double alpha;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, compensated_value& rr) const {
    x(i) += alpha * p(i);
    r(i) -= alpha * ap(i);
    rr.add(r(i) * r(i));
  }
};

template <class ExecutionSpace, class Operator, class B, class X>
cg_outcome conjugate_gradient_generic(const ExecutionSpace& space, const Operator& op, const B& b,
                                      const X& x, double tolerance, std::int64_t max_iterations) {
  using memory_space = typename ExecutionSpace::memory_space;
  using vector = Kokkos::View<double*, memory_space>;
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::int64_t n = b.extent(0);
  cg_outcome outcome;
  if (max_iterations == 0) max_iterations = std::max<std::int64_t>(n, 1);
  const double b_norm = std::sqrt(compensated_sum_of(space, n, product_term<B, B>{b, b}));
  if (b_norm == 0.0) {  // the solution is 0
    Kokkos::deep_copy(space, x, typename X::non_const_value_type(0));
    space.fence();
    outcome.converged = true;
    outcome.history.push_back(0.0);
    return outcome;
  }
  const auto alloc = [&](const char* label) {
    return vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  };
  vector xk = alloc("kernwerk::cg::x"), r = alloc("kernwerk::cg::r"), p = alloc("kernwerk::cg::p"),
         ap = alloc("kernwerk::cg::ap");
  Kokkos::parallel_for("kernwerk::cg::start", policy(space, 0, n),
                       KOKKOS_LAMBDA(const std::int64_t i) { xk(i) = double(x(i)); });
  op.apply(space, xk, ap);
  Kokkos::parallel_for("kernwerk::cg::residual", policy(space, 0, n),
                       KOKKOS_LAMBDA(const std::int64_t i) {
                         r(i) = double(b(i)) - ap(i);
                         p(i) = r(i);
                       });
  double rr = compensated_sum_of(space, n, product_term<vector, vector>{r, r});
  outcome.residual = std::sqrt(rr) / b_norm;
  outcome.history.push_back(outcome.residual);
  while (!(outcome.residual <= tolerance) && outcome.iterations < max_iterations) {
    op.apply(space, p, ap);
    const double curvature = compensated_sum_of(space, n, product_term<vector, vector>{p, ap});
    if (!(curvature > 0.0)) {
      outcome.negative_curvature = true;
      outcome.curvature = curvature;
      return outcome;
    }
    compensated_value next;
    Kokkos::parallel_reduce("kernwerk::cg::update", policy(space, 0, n),
                            cg_update<vector>{xk, r, p, ap, rr / curvature},
                            compensated_sum<Kokkos::HostSpace>(next));
    space.fence();
    const double beta = next.value() / rr;
    rr = next.value();
    Kokkos::parallel_for("kernwerk::cg::direction", policy(space, 0, n),
                         KOKKOS_LAMBDA(const std::int64_t i) { p(i) = r(i) + beta * p(i); });
    ++outcome.iterations;
    outcome.residual = std::sqrt(rr) / b_norm;
    outcome.history.push_back(outcome.residual);
  }
  outcome.converged = outcome.residual <= tolerance;
  if (outcome.converged) {
    Kokkos::parallel_for("kernwerk::cg::finish", policy(space, 0, n),
                         KOKKOS_LAMBDA(const std::int64_t i) {
                           x(i) = static_cast<typename X::non_const_value_type>(xk(i));
                         });
  }
  space.fence();
  return outcome;
}

}  // namespace kernwerk::impl
