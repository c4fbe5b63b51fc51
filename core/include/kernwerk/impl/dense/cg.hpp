#pragma once
// Checks, matrix operators (dense, CSR) and the generic conjugate gradient iteration of
// kernwerk/cg.hpp. The iteration keeps its vectors in float64 in the execution space's memory
// and its scalars there too; x is written back only when it converged.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernwerk/csr_matrix.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/impl/compensated.hpp"
#include "kernwerk/impl/dense/gemm.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/math.hpp"
#include "kernwerk/impl/maps/reductions.hpp"

namespace kernwerk::impl {

// A backend folder specialises cg_step_tuned with `available = true`, `blocks(n)` (the partial
// sums a step over n rows takes) and `run(space, step, n, partials, arrived, target)`: a CSR
// step (csr_step) whose sums reach *target, with `arrived` 0 before and after.
template <class ExecutionSpace>
struct cg_step_tuned {
  static constexpr bool available = false;
};

template <class T>
struct is_csr : std::false_type {};
template <class R, class C, class V>
struct is_csr<csr_matrix<R, C, V>> : std::true_type {};

// (r, r) and (r, A r) of one step, compensated: the two sums of Chronopoulos and Gear's CG.
struct cg_sums {
  compensated_value rr, rar;
  KOKKOS_INLINE_FUNCTION void add(const cg_sums& other) {
    rr.add(other.rr);
    rar.add(other.rar);
  }
};

template <class Memory>
using cg_sums_into = adding_reducer<cg_sums, Memory>;

// What the steps of a run leave in the execution space's memory, and how a step starts from it.
// The iteration is Chronopoulos and Gear's: with s = A r, gamma_k = (r_k, r_k) and
// delta_k = (r_k, s_k) from the step before,
//   beta_k = gamma_k / gamma_{k-1},  p^T A p = delta_k - beta_k gamma_k / alpha_{k-1},
//   alpha_k = gamma_k / p^T A p,
//   p = r + beta p,  q = s + beta q (= A p),  x += alpha p,  r -= alpha q,  s = A r,
// one reduction a step (both sums together), the same iterates as the textbook CG in exact
// arithmetic. A step reads its scalars from memory: the host launches steps without waiting
// for them and looks at the record every few steps. A step that finds the residual within the
// tolerance, or p^T A p <= 0, changes nothing and says so in `stop`; so do the steps after it.
template <class Memory>
struct cg_record {
  // Step k's entries sit at k % ring: the host takes them back before they are written again.
  Kokkos::View<cg_sums*, Memory> sums;                // gamma_k and delta_k
  Kokkos::View<double*, Memory> alpha, curvature;     // of step k
  Kokkos::View<std::int64_t*, Memory> stop;           // {why, step}: why 1 converged, 2 p^T A p <= 0
  double b_norm, tolerance;
  std::int64_t ring;

  KOKKOS_INLINE_FUNCTION cg_sums* sums_of(std::int64_t k) const { return sums.data() + k % ring; }

  enum : std::int64_t { running = 0, converged = 1, not_positive = 2 };
  struct step_scalars {
    double alpha, beta;
    bool go;
  };
  // The scalars of step k; `reporter` (one thread of the launch) writes alpha_k and any stop.
  KOKKOS_INLINE_FUNCTION step_scalars begin(std::int64_t k, bool reporter) const {
    if (stop(0) != running) return {0.0, 0.0, false};
    const double gamma = sums_of(k)->rr.value(), delta = sums_of(k)->rar.value();
    if (math::sqrt(gamma) / b_norm <= tolerance) {  // as the host tests it
      if (reporter) {
        stop(1) = k;
        stop(0) = converged;
      }
      return {0.0, 0.0, false};
    }
    const double beta = k == 0 ? 0.0 : gamma / sums_of(k - 1)->rr.value();
    const double pap = k == 0 ? delta : delta - beta * gamma / alpha((k - 1) % ring);
    if (!(pap > 0.0)) {
      if (reporter) {
        curvature(k % ring) = pap;
        stop(1) = k;
        stop(0) = not_positive;
      }
      return {0.0, 0.0, false};
    }
    const double a = gamma / pap;
    if (reporter) alpha(k % ring) = a;
    return {a, beta, true};
  }
};

// r - alpha (s + beta q): the next residual, written once so that every use rounds alike.
KOKKOS_INLINE_FUNCTION double cg_next_residual(double r, double s, double q, double alpha,
                                               double beta) {
  return r - alpha * (s + beta * q);
}

// How a step's rows are shared: on a GPU a thread a row, teams of 256 (a team policy: a range
// reduction's grid is capped); on a host a thread takes 512 rows, so that its scalars (a square
// root and three divisions) are worked out once for many rows.
template <class ExecutionSpace>
struct cg_teams {
  static constexpr bool host = Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;
  static constexpr int threads = host ? 1 : 256;
  static constexpr std::int64_t rows = host ? 512 : 256;
  static auto policy(const ExecutionSpace& space, std::int64_t n) {
    return light(Kokkos::TeamPolicy<ExecutionSpace>(space, int((n + rows - 1) / rows), threads));
  }
  // The rows [first, last) of team (or index) `index` of n rows.
  KOKKOS_INLINE_FUNCTION static Kokkos::pair<std::int64_t, std::int64_t> rows_of(std::int64_t index,
                                                                                 std::int64_t n) {
    const std::int64_t first = index * rows;
    return {first, first + rows < n ? first + rows : n};
  }
  // A step's kernel takes its functor as a launch argument (Kokkos 3 puts one past 512 bytes in
  // constant memory, and then waits for the kernel before it to finish before each launch).
  template <class Policy>
  static auto light(const Policy& policy) {
    return Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight);
  }
};

// The vectors of a run, in float64. r, s and q have two copies, a step reading one and writing
// the other (a CSR step reads its neighbours' old values); dense steps use the first only.
template <class Memory>
struct cg_vectors {
  using vector = Kokkos::View<double*, Memory>;
  vector x, p, r[2], s[2], q[2];
  explicit cg_vectors(std::int64_t n, bool two_copies) {
    const auto alloc = [&](const char* label, std::int64_t size) {
      return vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), size);
    };
    const std::int64_t second = two_copies ? n : 0;
    x = alloc("kernwerk::cg::x", n);
    p = alloc("kernwerk::cg::p", n);
    r[0] = alloc("kernwerk::cg::r", n), r[1] = alloc("kernwerk::cg::r", second);
    s[0] = alloc("kernwerk::cg::s", n), s[1] = alloc("kernwerk::cg::s", second);
    q[0] = alloc("kernwerk::cg::q", n), q[1] = alloc("kernwerk::cg::q", second);
  }
};

// Dense A: y = A v, a team for `rows` rows (v read once for them, their loads in flight
// together), with the sums (v, v) and (v, y). A is read along whichever of its axes is
// contiguous (rows, or the columns of the same indices: A is symmetric).
template <class ExecutionSpace, class Matrix>
struct dense_product {
  using memory = typename ExecutionSpace::memory_space;
  using vector = Kokkos::View<double*, memory>;
  using member = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  static constexpr int rows = 8;
  Matrix a;
  vector v, y;
  Kokkos::View<std::int64_t*, memory> stop;  // none: always; else only while a run goes on
  bool by_columns;

  KOKKOS_INLINE_FUNCTION void operator()(const member& team, cg_sums& sums) const {
    if (stop.extent(0) && stop(0) != cg_record<memory>::running) return;
    const std::int64_t n = std::int64_t(v.extent(0)), first = team.league_rank() * std::int64_t(rows);
    // (past the last row, the last row again: the loops keep their fixed length, and the
    // totals stay in registers)
    std::int64_t row[rows];
    for (int u = 0; u < rows; ++u) row[u] = first + u < n ? first + u : n - 1;
    double total[rows] = {};
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const std::int64_t j) {
      const double vj = v(j);
      for (int u = 0; u < rows; ++u) total[u] += double(by_columns ? a(j, row[u]) : a(row[u], j)) * vj;
    });
    for (int u = 0; u < rows; ++u) team.team_reduce(Kokkos::Sum<double>(total[u]));
    if (team.team_rank() == 0)
      for (int u = 0; u < rows; ++u)
        if (first + u < n) {
          const std::int64_t i = first + u;
          y(i) = total[u];
          sums.rr.add(v(i) * v(i));
          sums.rar.add(v(i) * total[u]);
        }
  }
};

template <class ExecutionSpace, class Matrix>
struct dense_operator {
  using memory = typename ExecutionSpace::memory_space;
  using vector = Kokkos::View<double*, memory>;
  Matrix a;
  static constexpr bool two_copies = false;

  // out = A in, with (in, in) and (in, out) reduced into *target; skipped once `stop` is set.
  void product(const ExecutionSpace& space, const vector& in, const vector& out, cg_sums* target,
               const Kokkos::View<std::int64_t*, memory>& stop = {}) const {
    const bool by_columns = a.stride(0) == 1 && a.stride(1) != 1;
    using functor = dense_product<ExecutionSpace, Matrix>;
    Kokkos::parallel_reduce("kernwerk::cg::dense_product",
                            cg_teams<ExecutionSpace>::light(Kokkos::TeamPolicy<ExecutionSpace>(
                                space, int((a.extent(0) + functor::rows - 1) / functor::rows),
                                cg_teams<ExecutionSpace>::threads)),
                            functor{a, in, out, stop, by_columns},
                            cg_sums_into<memory>(target));
  }
  // Step k: the vector updates, then s = A r with the next step's sums.
  void step(const ExecutionSpace& space, const cg_record<memory>& record, const cg_vectors<memory>& v,
            std::int64_t k) const {
    const vector x = v.x, p = v.p, r = v.r[0], s = v.s[0], q = v.q[0];
    using teams = cg_teams<ExecutionSpace>;
    using member = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
    const std::int64_t n = std::int64_t(x.extent(0));
    Kokkos::parallel_for(
        "kernwerk::cg::update", teams::policy(space, n), KOKKOS_LAMBDA(const member& team) {
          const auto scalars = record.begin(k, team.league_rank() == 0 && team.team_rank() == 0);
          if (!scalars.go) return;
          const auto range = teams::rows_of(team.league_rank(), n);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, range.first, range.second), [&](const std::int64_t i) {
            const double pi = r(i) + scalars.beta * p(i), qi = s(i) + scalars.beta * q(i);
            p(i) = pi;
            q(i) = qi;
            x(i) += scalars.alpha * pi;
            r(i) -= scalars.alpha * qi;
          });
        });
    product(space, r, s, record.sums_of(k + 1), record.stop);
  }
};

// CSR A: y = A v with the sums (v, v) and (v, y), a thread a row.
template <class Csr, class Vector>
struct csr_product {
  Csr a;
  Vector v, y;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, cg_sums& sums) const {
    double sum = 0.0;
    const auto end = a.row_starts(i + 1);
    for (auto e = a.row_starts(i); e < end; ++e) sum += double(a.values(e)) * v(a.columns(e));
    y(i) = sum;
    sums.rr.add(v(i) * v(i));
    sums.rar.add(v(i) * sum);
  }
};

// A whole CSR step in one pass: row i's p, q, x and r (update), and s = A r (product). A
// product needs r at its neighbours: where their update has run in the same thread it reads
// it, else it recomputes it from their old r, s and q (as row j computes its own).
template <class ExecutionSpace, class Csr>
struct csr_step {
  using memory = typename ExecutionSpace::memory_space;
  using vector = Kokkos::View<double*, memory>;
  using teams = cg_teams<ExecutionSpace>;
  using member = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  Csr a;
  cg_record<memory> record;
  vector x, p, r, s, q, r_next, s_next, q_next;
  std::int64_t k;

  KOKKOS_INLINE_FUNCTION double update(const std::int64_t i, double alpha, double beta) const {
    const double pi = r(i) + beta * p(i), qi = s(i) + beta * q(i);
    const double ri = cg_next_residual(r(i), s(i), q(i), alpha, beta);
    p(i) = pi;
    q_next(i) = qi;
    x(i) += alpha * pi;
    r_next(i) = ri;
    return ri;
  }
  // r_next at column j, recomputed from its old r, s and q (as row j computes its own)
  KOKKOS_INLINE_FUNCTION double recomputed(const std::int64_t j, double alpha, double beta) const {
    return cg_next_residual(r(j), s(j), q(j), alpha, beta);
  }
  // s_next(i) and the row's sums, with r_next at the row's columns from residual(j).
  template <class Residual>
  KOKKOS_INLINE_FUNCTION void product(const std::int64_t i, const double ri, const Residual& residual,
                                      cg_sums& sums) const {
    // four entries a step, their loads issued together (a row's gathers are its latency)
    double si = 0.0;
    const auto end = a.row_starts(i + 1);
    auto e = a.row_starts(i);
    const auto next = [&](const auto entry) {
      return double(a.values(entry)) * residual(std::int64_t(a.columns(entry)));
    };
    for (; e + 4 <= end; e += 4) {
      const double t0 = next(e), t1 = next(e + 1), t2 = next(e + 2), t3 = next(e + 3);
      si += t0;
      si += t1;
      si += t2;
      si += t3;
    }
    for (; e < end; ++e) si += next(e);
    s_next(i) = si;
    sums.rr.add(ri * ri);
    sums.rar.add(ri * si);
  }
  // The whole row, its neighbours' r_next recomputed.
  KOKKOS_INLINE_FUNCTION void row(const std::int64_t i, double alpha, double beta, cg_sums& sums) const {
    product(i, update(i, alpha, beta), [&](const std::int64_t j) { return recomputed(j, alpha, beta); }, sums);
  }
};
// A GPU: a team's rows, a thread a row (every thread's sums are joined).
template <class ExecutionSpace, class Csr>
struct csr_step_teams : csr_step<ExecutionSpace, Csr> {
  using base = csr_step<ExecutionSpace, Csr>;
  using typename base::member;
  using typename base::teams;
  using base::k, base::record, base::x, base::row;
  KOKKOS_INLINE_FUNCTION void operator()(const member& team, cg_sums& sums) const {
    const auto scalars = record.begin(k, team.league_rank() == 0 && team.team_rank() == 0);
    if (!scalars.go) return;
    const auto range = teams::rows_of(team.league_rank(), std::int64_t(x.extent(0)));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, range.first, range.second),
                         [&](const std::int64_t i) { row(i, scalars.alpha, scalars.beta, sums); });
  }
};
// A host: a long range of rows an index, its updates `lead` rows ahead of its products, so that
// a product reads its neighbours' new r (in cache) where they lie in the range and within the
// lead, and recomputes it only past them. Recomputed at every entry, the three gathers and the
// arithmetic made the step compute-bound on a CPU (perf/results/issue48-host-cg-epyc-2core.json).
template <class ExecutionSpace, class Csr>
struct csr_step_lagged : csr_step<ExecutionSpace, Csr> {
  using base = csr_step<ExecutionSpace, Csr>;
  using base::k, base::record, base::x, base::r_next, base::update, base::product, base::recomputed;
  static constexpr std::int64_t lead = 4096;  // rows: their vectors stay in a core's L2 cache
  std::int64_t rows;                          // of an index
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index, cg_sums& sums) const {
    const auto scalars = record.begin(k, index == 0);
    if (!scalars.go) return;
    const std::int64_t n = std::int64_t(x.extent(0)), first = index * rows;
    const std::int64_t end = first + rows < n ? first + rows : n;
    const double alpha = scalars.alpha, beta = scalars.beta;
    std::int64_t done = first + lead < end ? first + lead : end;
    for (std::int64_t i = first; i < done; ++i) update(i, alpha, beta);
    for (std::int64_t i = first; i < end; ++i) {
      if (done < end) update(done++, alpha, beta);
      const auto residual = [&](const std::int64_t j) {
        return j >= first && j < done ? r_next(j) : recomputed(j, alpha, beta);
      };
      product(i, r_next(i), residual, sums);
    }
  }
};

template <class ExecutionSpace, class Csr>
struct csr_operator {
  using memory = typename ExecutionSpace::memory_space;
  using vector = Kokkos::View<double*, memory>;
  using policy = index_policy<ExecutionSpace>;
  using tuned = cg_step_tuned<ExecutionSpace>;
  Csr a;
  // the tuned step's partial sums and its count of blocks done (none without one)
  Kokkos::View<cg_sums*, memory> partials;
  Kokkos::View<unsigned, memory> arrived;
  static constexpr bool two_copies = true;

  explicit csr_operator(const Csr& matrix) : a(matrix) {
    if constexpr (tuned::available) {
      const std::int64_t n = std::int64_t(a.row_starts.extent(0)) - 1;
      partials = Kokkos::View<cg_sums*, memory>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::cg::partials"),
                                                tuned::blocks(n));
      arrived = Kokkos::View<unsigned, memory>("kernwerk::cg::arrived");
    }
  }

  void product(const ExecutionSpace& space, const vector& in, const vector& out, cg_sums* target) const {
    Kokkos::parallel_reduce("kernwerk::cg::csr_product",
                            policy(space, 0, std::int64_t(a.row_starts.extent(0)) - 1),
                            csr_product<Csr, vector>{a, in, out}, cg_sums_into<memory>(target));
  }
  void step(const ExecutionSpace& space, const cg_record<memory>& record, const cg_vectors<memory>& v,
            std::int64_t k) const {
    const int in = int(k & 1), out = 1 - in;
    using teams = cg_teams<ExecutionSpace>;
    const csr_step<ExecutionSpace, Csr> step{a, record, v.x, v.p, v.r[in], v.s[in], v.q[in],
                                             v.r[out], v.s[out], v.q[out], k};
    cg_sums* const target = record.sums_of(k + 1);
    const std::int64_t n = std::int64_t(v.x.extent(0));
    if constexpr (tuned::available) {
      const launch_label named("kernwerk::cg::csr_step", true);
      tuned::run(space, step, n, partials.data(), arrived.data(), target);
    } else if constexpr (teams::host) {
      // two ranges a thread, none shorter than the lead
      const std::int64_t ranges = 2 * std::int64_t(space.concurrency());
      const std::int64_t rows = std::max((n + ranges - 1) / ranges, csr_step_lagged<ExecutionSpace, Csr>::lead);
      Kokkos::parallel_reduce("kernwerk::cg::csr_step", teams::light(policy(space, 0, (n + rows - 1) / rows)),
                              csr_step_lagged<ExecutionSpace, Csr>{step, rows}, cg_sums_into<memory>(target));
    } else
      Kokkos::parallel_reduce("kernwerk::cg::csr_step", teams::policy(space, n),
                              csr_step_teams<ExecutionSpace, Csr>{step}, cg_sums_into<memory>(target));
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
                            index_policy<ExecutionSpace>(
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
    return csr_operator<ExecutionSpace, Matrix>(a);
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
                          index_policy<ExecutionSpace>(
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

// Steps between two looks at the record: the host waits for the device once per batch. A
// batch may hold steps after the one that stops the run; they change nothing.
inline constexpr std::int64_t cg_batch = 16;

template <class ExecutionSpace, class Operator, class B, class X>
cg_outcome conjugate_gradient_generic(const ExecutionSpace& space, const Operator& op, const B& b,
                                      const X& x, double tolerance, std::int64_t max_iterations) {
  using memory = typename ExecutionSpace::memory_space;
  using policy = index_policy<ExecutionSpace>;
  using record_type = cg_record<memory>;
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
  const cg_vectors<memory> v(n, Operator::two_copies);
  constexpr std::int64_t ring = 2 * cg_batch;
  const record_type record{Kokkos::View<cg_sums*, memory>("kernwerk::cg::sums", ring),
                           Kokkos::View<double*, memory>("kernwerk::cg::alpha", ring),
                           Kokkos::View<double*, memory>("kernwerk::cg::curvature", ring),
                           Kokkos::View<std::int64_t*, memory>("kernwerk::cg::stop", 2),
                           b_norm, tolerance, ring};
  // r = b - A x, s = A r, p = q = 0 (step 0 takes beta = 0)
  const auto xk = v.x, p = v.p, r = v.r[0], s = v.s[0], q = v.q[0];
  Kokkos::parallel_for("kernwerk::cg::start", policy(space, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
    xk(i) = double(x(i));
    p(i) = 0.0;
    q(i) = 0.0;
  });
  op.product(space, xk, s, record.sums_of(0));
  Kokkos::parallel_for("kernwerk::cg::residual", policy(space, 0, n),
                       KOKKOS_LAMBDA(const std::int64_t i) { r(i) = double(b(i)) - s(i); });
  op.product(space, r, s, record.sums_of(0));
  // Steps in batches; after each, the stop flag and the batch's sums come back.
  const auto sums_host = Kokkos::create_mirror_view(record.sums);
  const auto stop_host = Kokkos::create_mirror_view(record.stop);
  std::int64_t launched = 0;
  while (true) {
    const std::int64_t end = std::min(max_iterations, launched + cg_batch);
    for (; launched < end; ++launched) op.step(space, record, v, launched);
    Kokkos::deep_copy(space, sums_host, record.sums);
    Kokkos::deep_copy(space, stop_host, record.stop);
    space.fence();
    for (auto k = std::int64_t(outcome.history.size()); k <= launched; ++k)
      outcome.history.push_back(std::sqrt(sums_host(k % ring).rr.value()) / b_norm);
    if (stop_host(0) != record_type::running || launched == max_iterations) break;
  }
  // the steps taken: up to the one that stopped, else all of them
  const std::int64_t steps = stop_host(0) != record_type::running ? stop_host(1) : launched;
  outcome.history.resize(std::size_t(steps + 1));
  outcome.iterations = steps;
  outcome.residual = outcome.history.back();
  if (stop_host(0) == record_type::not_positive) {
    outcome.negative_curvature = true;
    Kokkos::deep_copy(outcome.curvature, Kokkos::subview(record.curvature, steps % ring));
    return outcome;
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

// The backends' specialisations of cg_step_tuned come with its declaration (one set for every
// translation unit).
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_CUDA_TUNED
#include "kernwerk/cuda/cg.hpp"
#endif
#if KERNWERK_ENABLE_HIP_TUNED
#include "kernwerk/hip/cg.hpp"
#endif
