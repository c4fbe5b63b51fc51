#pragma once
// The definitions of kernwerk/impl/dense/qr_library.hpp, compiled by the library for each execution
// space and float and double. Every call checks its arguments, works on column-major copies in
// the space's memory, and writes its outputs only once everything has been computed.
#include <Kokkos_Core.hpp>

#include <climits>
#include <cstdint>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/dense/qr.hpp"
#include "kernwerk/impl/dense/qr_library.hpp"
#include "kernwerk/impl/dense/qr_vendor.hpp"
#include "kernwerk/impl/view_checks.hpp"
#include "kernwerk/impl/workspace.hpp"
#include "kernwerk/qr.hpp"

namespace kernwerk::impl {

// dst := src (column j scaled by sign(j) for j < sign.extent(0)) for strided matrices of one
// shape in the space's memory: in memory order where both run the same way, else through 32 x 32
// tiles in team scratch, so that reads and writes both go along their contiguous axis.
template <class Space, class T>
struct matrix_copy {
  using matrix = dense_matrix<Space, T>;
  using input = dense_matrix<Space, const T>;
  using signs = Kokkos::View<const T*, typename Space::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using member = typename Kokkos::TeamPolicy<Space>::member_type;
  using tile = Kokkos::View<T[32][33], typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static constexpr int edge = 32;

  matrix dst;
  input src;
  signs sign;
  std::int64_t tiles_across;
  bool src_rows, dst_rows;  // whether each is row-major

  static bool row_major(std::int64_t rows, std::int64_t cols, std::int64_t s0, std::int64_t s1) {
    return cols > 1 && (rows == 1 || s1 < s0);
  }
  KOKKOS_INLINE_FUNCTION T scaled(std::int64_t j, T value) const {
    return j < std::int64_t(sign.extent(0)) ? sign(j) * value : value;
  }
  // one element, in dst's memory order
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t k) const {
    const std::int64_t rows = dst.extent(0), cols = dst.extent(1);
    const std::int64_t i = dst_rows ? k / cols : k % rows, j = dst_rows ? k % cols : k / rows;
    dst(i, j) = scaled(j, src(i, j));
  }
  // one tile
  KOKKOS_INLINE_FUNCTION void operator()(const member& team) const {
    const std::int64_t rows = dst.extent(0), cols = dst.extent(1);
    const std::int64_t r0 = team.league_rank() / tiles_across * edge, c0 = team.league_rank() % tiles_across * edge;
    tile t(team.team_scratch(0));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, edge * edge), [&](int e) {
      const int fast = e % edge, slow = e / edge;
      const int ir = src_rows ? slow : fast, ic = src_rows ? fast : slow;
      if (r0 + ir < rows && c0 + ic < cols) t(ir, ic) = src(r0 + ir, c0 + ic);
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, edge * edge), [&](int e) {
      const int fast = e % edge, slow = e / edge;
      const int ir = dst_rows ? slow : fast, ic = dst_rows ? fast : slow;
      if (r0 + ir < rows && c0 + ic < cols) dst(r0 + ir, c0 + ic) = scaled(c0 + ic, t(ir, ic));
    });
  }

  static void run(const Space& space, const matrix& dst, const input& src, const signs& sign = {}) {
    const std::int64_t rows = dst.extent(0), cols = dst.extent(1);
    if (rows == 0 || cols == 0) return;
    const bool src_rows = row_major(rows, cols, src.stride(0), src.stride(1));
    const bool dst_rows = row_major(rows, cols, dst.stride(0), dst.stride(1));
    const std::int64_t across = (cols + edge - 1) / edge, down = (rows + edge - 1) / edge;
    const matrix_copy copy{dst, src, sign, across, src_rows, dst_rows};
    if (src_rows == dst_rows) {
      Kokkos::parallel_for("kernwerk::qr::copy",
                           Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, rows * cols), copy);
      return;
    }
    Kokkos::TeamPolicy<Space> policy(space, int(across * down), Kokkos::AUTO);
    Kokkos::parallel_for("kernwerk::qr::transpose",
                         policy.set_scratch_size(0, Kokkos::PerTeam(tile::shmem_size())), copy);
  }
};

template <class Space, class T>
struct qr_steps {
  using generic = householder_qr<Space, T>;
  using vendor = qr_vendor<Space, T>;
  using work = typename generic::work;
  using block_view = typename generic::block_view;
  using vector = typename generic::vector;
  using input = dense_matrix<Space, const T>;

  template <class Matrix>
  static void require_shape(const char* fn, const char* name, const Matrix& v, std::int64_t rows,
                            std::int64_t cols, const char* why) {
    if (std::int64_t(v.extent(0)) != rows || std::int64_t(v.extent(1)) != cols)
      throw invalid_argument(fn, name,
                             "shape " + shape(v.extent(0), v.extent(1)) + " is not " +
                                 shape(rows, cols) + " (" + why + ")");
  }

  // A of a factorisation: m >= n >= 1.
  static void require_factorable(const char* fn, const input& a) {
    const std::int64_t m = a.extent(0), n = a.extent(1);
    if (m == 0 || n == 0) throw invalid_argument(fn, "a", "is empty, shape " + shape(m, n));
    if (m < n)
      throw invalid_argument(fn, "a",
                             "has fewer rows than columns, shape " + shape(m, n) +
                                 ": QR here needs m >= n");
  }

  // The first non-finite entry in memory order, before any work is done.
  static void require_finite(const Space& space, const char* fn, const char* name,
                             const input& v) {
    const std::int64_t rows = v.extent(0), cols = v.extent(1);
    if (rows == 0 || cols == 0) return;
    const bool row_major = matrix_copy<Space, T>::row_major(rows, cols, v.stride(0), v.stride(1));
    // A packed matrix is read once as a flat array; only one that holds a bad value, or is not
    // packed, is searched for the first one.
    const bool packed = std::int64_t(row_major ? v.stride(0) : v.stride(1)) == (row_major ? cols : rows) ||
                        (row_major ? rows : cols) == 1;
    if (packed && (row_major ? v.stride(1) : v.stride(0)) == 1 && !holds_non_finite(space, v.data(), rows * cols))
      return;
    std::int64_t first = LLONG_MAX;
    Kokkos::parallel_reduce(
        "kernwerk::qr::check_finite",
        Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, rows * cols),
        KOKKOS_LAMBDA(std::int64_t k, std::int64_t& lowest) {
          const T x = row_major ? v(k / cols, k % cols) : v(k % rows, k / rows);
          // written without isfinite so that it stays correct under fast-math flags
          if (!(x - x == T(0)) && k < lowest) lowest = k;
        },
        Kokkos::Min<std::int64_t>(first));
    space.fence();
    if (first != LLONG_MAX)
      throw invalid_argument(fn, name,
                             "holds a non-finite value at " +
                                 (row_major ? shape(first / cols, first % cols)
                                            : shape(first % rows, first / rows)));
  }

  // Whether this call runs the vendor's library.
  static bool use_vendor(const char* fn, qr_implementation choice, std::int64_t rows,
                         std::int64_t cols) {
    if (choice == qr_implementation::generic) return false;
    const bool fits = rows < INT_MAX && cols < INT_MAX;
    if (choice == qr_implementation::vendor) {
      if (!vendor::available)
        throw unsupported(fn, "options.implementation",
                          std::string("vendor: this build has no vendor QR for ") + Space::name());
      if (!fits)
        throw unsupported(fn, "options.implementation",
                          "vendor: " + shape(rows, cols) + " is past the vendor's int sizes");
    }
    return vendor::available && fits;
  }

  static block_view whole(const work& w) {
    return generic::part(w, 0, 0, w.extent(0), w.extent(1));
  }
  static work copy_of(const Space& space, const input& v, const std::string& label) {
    work w(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), v.extent(0), v.extent(1));
    matrix_copy<Space, T>::run(space, whole(w), v);
    return w;
  }
  // A one-column matrix (tau as the library takes it) as a vector.
  static Kokkos::View<T*, typename Space::memory_space> vector_of(const Space& space, const input& v,
                                                                  const std::string& label) {
    Kokkos::View<T*, typename Space::memory_space> w(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                                     v.extent(0));
    Kokkos::deep_copy(space, w, Kokkos::subview(v, Kokkos::ALL(), 0));
    return w;
  }

  static void factor(const Space& space, bool use_vendor_path, const block_view& a,
                     const vector& tau) {
    if constexpr (vendor::available)
      if (use_vendor_path) return vendor::geqrf(space, a, tau);
    generic::factor(space, a, tau);
  }
  static void form_q(const Space& space, bool use_vendor_path, const block_view& q,
                     const vector& tau, std::int64_t k) {
    if constexpr (vendor::available)
      if (use_vendor_path) return vendor::orgqr(space, q, tau, k);
    generic::form_q(space, q, tau, k);
  }
  static void multiply(const Space& space, bool use_vendor_path, const block_view& a,
                       const vector& tau, const block_view& c, bool transpose) {
    if (a.extent(1) == 0 || c.extent(1) == 0) return;
    if constexpr (vendor::available)
      if (use_vendor_path) return vendor::ormqr(space, a, tau, c, transpose);
    generic::multiply(space, a, tau, c, transpose);
  }
};

// The scratch of one kernwerk::qr call, kept between calls (kernwerk/impl/workspace.hpp): the
// factorisation and Q, tau, R and the signs of R's diagonal.
struct qr_scratch;

template <class Space, class T>
void qr_library<Space, T>::qr(const Space& space, const input& a, const matrix& q,
                              const matrix& r, const qr_options& options) {
  using steps = qr_steps<Space, T>;
  constexpr const char* fn = "qr";
  steps::require_factorable(fn, a);
  const std::int64_t m = a.extent(0), n = a.extent(1);
  const bool complete = options.mode == qr_mode::complete;
  const std::int64_t q_cols = complete ? m : n, r_rows = complete ? m : n;
  const char* why = complete ? "mode complete: Q is m x m, R is m x n"
                             : "mode reduced: Q is m x n, R is n x n";
  steps::require_shape(fn, "q", q, m, q_cols, why);
  steps::require_shape(fn, "r", r, r_rows, n, why);
  require_disjoint(fn, "q", q, "a", a);
  require_disjoint(fn, "r", r, "a", a);
  require_disjoint(fn, "r", r, "q", q);
  steps::require_finite(space, fn, "a", a);
  const bool vendor = steps::use_vendor(fn, options.implementation, m, q_cols);

  // Q is formed in place of the factorisation (m x q_cols, its first n columns A's copy); R and
  // the signs of its diagonal are taken out before, and the outputs written last.
  using buffer = workspace<typename Space::memory_space, qr_scratch>;
  buffer scratch(buffer::template bytes_for<T>(m * q_cols) +
                 buffer::template bytes_for<T>(r_rows * n) + 2 * buffer::template bytes_for<T>(n));
  using block_view = typename steps::block_view;
  using vector = typename steps::vector;
  const block_view w(scratch.template take<T>(m * q_cols), Kokkos::LayoutStride(m, 1, q_cols, m));
  const block_view rw(scratch.template take<T>(r_rows * n), Kokkos::LayoutStride(r_rows, 1, n, r_rows));
  const vector tau(scratch.template take<T>(n), n), sign(scratch.template take<T>(n), n);
  const block_view factored = steps::generic::part(w, 0, 0, m, n);
  matrix_copy<Space, T>::run(space, factored, a);
  if (complete)  // (LAPACKE checks the whole of Q's matrix for NaN)
    Kokkos::parallel_for(
        "kernwerk::qr::clear", Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(space, {0, n}, {m, m}),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { w(i, j) = 0; });
  steps::factor(space, vendor, factored, tau);
  // R's rows and Q's columns j < n take the sign of R(j, j), so that R's diagonal is >= 0.
  Kokkos::parallel_for(
      "kernwerk::qr::r", Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(space, {0, 0}, {r_rows, n}),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) {
        rw(i, j) = i <= j ? (w(i, i) < 0 ? -w(i, j) : w(i, j)) : T(0);
        if (i == j) sign(j) = w(j, j) < 0 ? T(-1) : T(1);
      });
  steps::form_q(space, vendor, w, tau, n);
  matrix_copy<Space, T>::run(space, r, rw);
  matrix_copy<Space, T>::run(space, q, w, sign);
  space.fence();
}

template <class Space, class T>
void qr_library<Space, T>::factor(const Space& space, const input& a, const matrix& factors,
                                  const matrix& tau, const qr_options& options) {
  using steps = qr_steps<Space, T>;
  constexpr const char* fn = "qr_factor";
  steps::require_factorable(fn, a);
  const std::int64_t m = a.extent(0), n = a.extent(1);
  steps::require_shape(fn, "factors", factors, m, n, "the shape of A");
  if (std::int64_t(tau.extent(0)) != n)
    throw invalid_argument(fn, "tau",
                           "length " + std::to_string(tau.extent(0)) + " is not A's " +
                               std::to_string(n) + " columns");
  const bool in_place = factors.data() == a.data() && factors.stride(0) == a.stride(0) &&
                        factors.stride(1) == a.stride(1);
  if (!in_place) require_disjoint(fn, "factors", factors, "a", a);
  require_disjoint(fn, "tau", tau, "a", a);
  require_disjoint(fn, "tau", tau, "factors", factors);
  steps::require_finite(space, fn, "a", a);
  const bool vendor = steps::use_vendor(fn, options.implementation, m, n);

  const typename steps::work w = steps::copy_of(space, a, "kernwerk::qr::a");
  const Kokkos::View<T*, typename Space::memory_space> t(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::qr::tau"), n);
  steps::factor(space, vendor, steps::whole(w), t);
  matrix_copy<Space, T>::run(space, factors, steps::whole(w));
  Kokkos::deep_copy(space, Kokkos::subview(tau, Kokkos::ALL(), 0), t);
  space.fence();
}

template <class Space, class T>
void qr_library<Space, T>::apply_q(const Space& space, const input& factors, const input& tau,
                                   const matrix& c, const apply_q_options& options) {
  using steps = qr_steps<Space, T>;
  constexpr const char* fn = "apply_q";
  const std::int64_t m = factors.extent(0), k = factors.extent(1), p = c.extent(1);
  if (k > m)
    throw invalid_argument(fn, "factors",
                           "shape " + shape(m, k) + " has more reflectors than rows");
  if (std::int64_t(tau.extent(0)) != k)
    throw invalid_argument(fn, "tau",
                           "length " + std::to_string(tau.extent(0)) + " is not the " +
                               std::to_string(k) + " columns of factors");
  if (std::int64_t(c.extent(0)) != m)
    throw invalid_argument(fn, "c",
                           "has " + std::to_string(c.extent(0)) + " rows, not the " +
                               std::to_string(m) + " of factors");
  require_disjoint(fn, "c", c, "factors", factors);
  require_disjoint(fn, "c", c, "tau", tau);
  steps::require_finite(space, fn, "factors", factors);
  steps::require_finite(space, fn, "tau", tau);
  steps::require_finite(space, fn, "c", c);
  const bool vendor = steps::use_vendor(fn, options.implementation, m, std::max(k, p));
  if (m == 0 || k == 0 || p == 0) return;

  const typename steps::work f = steps::copy_of(space, factors, "kernwerk::qr::factors");
  const auto t = steps::vector_of(space, tau, "kernwerk::qr::tau");
  const typename steps::work cw = steps::copy_of(space, c, "kernwerk::qr::c");
  steps::multiply(space, vendor, steps::whole(f), t, steps::whole(cw),
                  options.product == qr_product::q_transpose_c);
  matrix_copy<Space, T>::run(space, c, steps::whole(cw));
  space.fence();
}

// Back substitution R x = c for every column of c (n x p) at once: one team per column.
template <class Space, class T, class R, class C>
void solve_upper(const Space& space, const R& r, const C& c) {
  using member = typename Kokkos::TeamPolicy<Space>::member_type;
  const std::int64_t n = c.extent(0);  // R is the leading n x n of r
  Kokkos::parallel_for(
      "kernwerk::qr::back_substitution",
      Kokkos::TeamPolicy<Space>(space, int(c.extent(1)), Kokkos::AUTO),
      KOKKOS_LAMBDA(const member& team) {
        const std::int64_t col = team.league_rank();
        for (std::int64_t j = n - 1; j >= 0; --j) {
          const T xj = c(j, col) / r(j, j);
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, j),
                               [&](std::int64_t i) { c(i, col) -= xj * r(i, j); });
          Kokkos::single(Kokkos::PerTeam(team), [&] { c(j, col) = xj; });
          team.team_barrier();
        }
      });
}

template <class Space, class T>
void qr_library<Space, T>::solve_least_squares(const Space& space, const input& a,
                                               const input& b, const matrix& x,
                                               const qr_options& options) {
  using steps = qr_steps<Space, T>;
  constexpr const char* fn = "solve_least_squares";
  steps::require_factorable(fn, a);
  const std::int64_t m = a.extent(0), n = a.extent(1), p = b.extent(1);
  if (std::int64_t(b.extent(0)) != m)
    throw invalid_argument(fn, "b",
                           "has " + std::to_string(b.extent(0)) + " rows, not A's " +
                               std::to_string(m));
  steps::require_shape(fn, "x", x, n, p, "A's columns by B's columns");
  require_disjoint(fn, "x", x, "a", a);
  require_disjoint(fn, "x", x, "b", b);
  steps::require_finite(space, fn, "a", a);
  steps::require_finite(space, fn, "b", b);
  const bool vendor = steps::use_vendor(fn, options.implementation, m, std::max(n, p));

  const typename steps::work w = steps::copy_of(space, a, "kernwerk::qr::a");
  const Kokkos::View<T*, typename Space::memory_space> tau(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::qr::tau"), n);
  steps::factor(space, vendor, steps::whole(w), tau);
  std::int64_t zero = LLONG_MAX;
  Kokkos::parallel_reduce(
      "kernwerk::qr::rank", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, n),
      KOKKOS_LAMBDA(std::int64_t j, std::int64_t& lowest) {
        if (w(j, j) == T(0) && j < lowest) lowest = j;
      },
      Kokkos::Min<std::int64_t>(zero));
  space.fence();
  if (zero != LLONG_MAX)
    throw invalid_argument(fn, "a",
                           "is rank deficient: R(" + std::to_string(zero) + ", " +
                               std::to_string(zero) + ") = 0");
  if (p == 0) return;
  const typename steps::work c = steps::copy_of(space, b, "kernwerk::qr::b");
  steps::multiply(space, vendor, steps::whole(w), tau, steps::whole(c), true);
  const auto top = Kokkos::subview(c, std::make_pair(std::int64_t(0), n), Kokkos::ALL());
  solve_upper<Space, T>(space, w, top);
  matrix_copy<Space, T>::run(space, x, top);
  space.fence();
}

}  // namespace kernwerk::impl

// The library's instances (core/CMakeLists.txt writes one unit per execution space).
#define KERNWERK_QR_INSTANCES(Space)                      \
  template struct kernwerk::impl::qr_library<Space, double>; \
  template struct kernwerk::impl::qr_library<Space, float>;
