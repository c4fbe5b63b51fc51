#pragma once
// Checks, generic Kokkos implementations and the backend traits of kernwerk/linear_algebra.hpp.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/implementation.hpp"
#include "kernwerk/impl/view_checks.hpp"

namespace kernwerk::impl {

template <class ExecutionSpace, class M>
void require_matrix_view() {
  static_assert(Kokkos::is_view<M>::value, "kernwerk: matrices are Kokkos Views");
  static_assert(std::is_floating_point_v<typename M::non_const_value_type>,
                "kernwerk: matrices hold float or double");
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, typename M::memory_space>::accessible,
                "kernwerk: the execution space must reach every View");
}

inline std::string shape(std::size_t rows, std::size_t columns) {
  return "(" + std::to_string(rows) + ", " + std::to_string(columns) + ")";
}

inline void require_finite_scalar(const char* function, const char* name, double value) {
  if (!std::isfinite(value))
    throw invalid_argument(function, name, "must be finite, got " + std::to_string(value));
}

template <class ExecutionSpace, class A, class B, class C>
void check_gemm(const ExecutionSpace&, double alpha, const A& a, const B& b, double beta,
                const C& c) {
  require_matrix_view<ExecutionSpace, A>();
  require_matrix_view<ExecutionSpace, B>();
  require_matrix_view<ExecutionSpace, C>();
  static_assert(A::rank == 2 && B::rank == 2 && C::rank == 2, "kernwerk::gemm: rank-2 Views");
  static_assert(std::is_same_v<typename A::non_const_value_type, typename C::value_type> &&
                    std::is_same_v<typename B::non_const_value_type, typename C::value_type>,
                "kernwerk::gemm: A, B and C hold the same type, C writable");
  constexpr const char* fn = "gemm";
  require_finite_scalar(fn, "alpha", alpha);
  require_finite_scalar(fn, "beta", beta);
  if (b.extent(0) != a.extent(1))
    throw invalid_argument(fn, "b",
                           "shape " + shape(b.extent(0), b.extent(1)) + " does not follow A's " +
                               shape(a.extent(0), a.extent(1)) + ": needs " +
                               std::to_string(a.extent(1)) + " rows");
  if (c.extent(0) != a.extent(0) || c.extent(1) != b.extent(1))
    throw invalid_argument(fn, "c",
                           "shape " + shape(c.extent(0), c.extent(1)) + " is not " +
                               shape(a.extent(0), b.extent(1)) + " (rows of A, columns of B)");
  require_disjoint(fn, "c", c, "a", a);
  require_disjoint(fn, "c", c, "b", b);
}

// The generic tiled product: one team per tile of C, tiles of A and B through team scratch.
template <class ExecutionSpace, class A, class B, class C>
struct gemm_tiles {
  static constexpr int tile = 16;
  using T = typename C::value_type;
  using scratch = Kokkos::View<T[tile][tile], typename ExecutionSpace::scratch_memory_space,
                               Kokkos::MemoryUnmanaged>;
  using member = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  A a;
  B b;
  C c;
  T alpha, beta;
  int tiles_across;

  static std::size_t scratch_bytes() { return 3 * scratch::shmem_size(); }

  KOKKOS_INLINE_FUNCTION void operator()(const member& team) const {
    const std::int64_t row0 = std::int64_t(team.league_rank() / tiles_across) * tile;
    const std::int64_t col0 = std::int64_t(team.league_rank() % tiles_across) * tile;
    const std::int64_t m = c.extent(0), n = c.extent(1), depth = a.extent(1);
    scratch a_tile(team.team_scratch(0)), b_tile(team.team_scratch(0)), sum(team.team_scratch(0));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, tile * tile),
                         [&](const int e) { sum(e / tile, e % tile) = T(0); });
    for (std::int64_t k0 = 0; k0 < depth; k0 += tile) {
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, tile * tile), [&](const int e) {
        const int r = e / tile, q = e % tile;
        a_tile(r, q) = row0 + r < m && k0 + q < depth ? a(row0 + r, k0 + q) : T(0);
        b_tile(r, q) = k0 + r < depth && col0 + q < n ? b(k0 + r, col0 + q) : T(0);
      });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, tile * tile), [&](const int e) {
        const int r = e / tile, q = e % tile;
        T partial = sum(r, q);
        for (int kk = 0; kk < tile; ++kk) partial += a_tile(r, kk) * b_tile(kk, q);
        sum(r, q) = partial;
      });
    }
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, tile * tile), [&](const int e) {
      const std::int64_t i = row0 + e / tile, j = col0 + e % tile;
      if (i < m && j < n)  // beta = 0: C is not read (it may hold NaN), as in BLAS
        c(i, j) = beta == T(0) ? alpha * sum(e / tile, e % tile)
                               : alpha * sum(e / tile, e % tile) + beta * c(i, j);
    });
  }
};

template <class ExecutionSpace, class A, class B, class C>
void gemm_generic(const ExecutionSpace& space, double alpha, const A& a, const B& b, double beta,
                  const C& c) {
  using tiles = gemm_tiles<ExecutionSpace, A, B, C>;
  using T = typename C::value_type;
  const int down = int((c.extent(0) + tiles::tile - 1) / tiles::tile);
  const int across = int((c.extent(1) + tiles::tile - 1) / tiles::tile);
  if (down == 0 || across == 0) return;
  Kokkos::TeamPolicy<ExecutionSpace> policy(space, down * across, Kokkos::AUTO);
  Kokkos::parallel_for("kernwerk::gemm",
                       policy.set_scratch_size(0, Kokkos::PerTeam(tiles::scratch_bytes())),
                       tiles{a, b, c, T(alpha), T(beta), across});
}

// Backend folders specialise these: a tuned kernel and a vendor library, each with
// `static bool covers(a, b, c)` and `static void run(space, alpha, a, b, beta, c)`.
template <class ExecutionSpace, class A, class B, class C>
struct gemm_tuned {
  static constexpr bool available = false;
  static bool covers(const A&, const B&, const C&) { return false; }
  static void run(const ExecutionSpace&, double, const A&, const B&, double, const C&) {}
};
template <class ExecutionSpace, class A, class B, class C>
struct gemm_vendor {
  static constexpr bool available = false;
  static bool covers(const A&, const B&, const C&) { return false; }
  static void run(const ExecutionSpace&, double, const A&, const B&, double, const C&) {}
};

template <class ExecutionSpace, class A, class B, class C>
void gemm_dispatch(const ExecutionSpace& space, double alpha, const A& a, const B& b, double beta,
                   const C& c, gemm_implementation kind) {
  using tuned = gemm_tuned<ExecutionSpace, A, B, C>;
  using vendor = gemm_vendor<ExecutionSpace, A, B, C>;
  const bool vendor_covers = vendor::covers(a, b, c), tuned_covers = tuned::covers(a, b, c);
  if (kind == gemm_implementation::vendor && !vendor_covers)
    throw unsupported("gemm", "options.implementation",
                      std::string("this build has no vendor gemm for these Views on ") +
                          ExecutionSpace::name());
  if (kind == gemm_implementation::tuned && !tuned_covers)
    throw unsupported("gemm", "options.implementation",
                      std::string("this build has no tuned gemm for these Views on ") +
                          ExecutionSpace::name() + " (it covers float, row-major)");
  if (c.extent(0) == 0 || c.extent(1) == 0) return;
  const bool automatic = kind == gemm_implementation::automatic;
  if ((kind == gemm_implementation::vendor || automatic) && vendor_covers)
    vendor::run(space, alpha, a, b, beta, c);
  else if ((kind == gemm_implementation::tuned || automatic) && tuned_covers)
    tuned::run(space, alpha, a, b, beta, c);
  else
    gemm_generic(space, alpha, a, b, beta, c);
}

template <class ExecutionSpace, class A, class B, class Out>
void check_matmul_colsum(const ExecutionSpace&, const A& a, const B& b, const Out& out) {
  require_matrix_view<ExecutionSpace, A>();
  require_matrix_view<ExecutionSpace, B>();
  require_matrix_view<ExecutionSpace, Out>();
  static_assert(A::rank == 2 && B::rank == 2 && Out::rank == 1,
                "kernwerk::matmul_colsum: A and B rank 2, out rank 1");
  static_assert(!std::is_const_v<typename Out::value_type>, "kernwerk::matmul_colsum: out writable");
  constexpr const char* fn = "matmul_colsum";
  if (b.extent(0) != a.extent(1))
    throw invalid_argument(fn, "b",
                           "shape " + shape(b.extent(0), b.extent(1)) + " does not follow A's " +
                               shape(a.extent(0), a.extent(1)));
  if (out.extent(0) != b.extent(1))
    throw invalid_argument(fn, "out",
                           "length " + std::to_string(out.extent(0)) + " is not B's " +
                               std::to_string(b.extent(1)) + " columns");
  require_disjoint(fn, "out", out, "a", a);
  require_disjoint(fn, "out", out, "b", b);
}

// Partial column sums of M over row blocks: partial(p, j) = sum of M(i, j) * weight(i) for the
// rows i of block p (weight 1 when there is none).
template <class M, class Weights, class Partial>
struct column_partials {
  M m;
  Weights weight;
  Partial partial;
  std::int64_t rows_per_block;
  bool weighted;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t columns = m.extent(1);
    const std::int64_t p = t / columns, j = t - p * columns;
    const std::int64_t begin = p * rows_per_block;
    const std::int64_t end = begin + rows_per_block < std::int64_t(m.extent(0))
                                 ? begin + rows_per_block
                                 : std::int64_t(m.extent(0));
    double sum = 0.0;
    for (std::int64_t i = begin; i < end; ++i)
      sum += weighted ? double(m(i, j)) * weight(i) : double(m(i, j));
    partial(p, j) = sum;
  }
};

template <class Partial, class Out>
struct sum_partials {
  Partial partial;
  Out out;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t j) const {
    double sum = 0.0;
    for (std::size_t p = 0; p < partial.extent(0); ++p) sum += partial(p, j);
    out(j) = static_cast<typename Out::value_type>(sum);
  }
};

// out(j) = sum_i M(i, j) weight(i) in float64, over row blocks so that the GPU has enough
// threads in flight.
template <class ExecutionSpace, class M, class Weights, class Out>
void weighted_column_sums(const ExecutionSpace& space, const M& m, const Weights& weight,
                          bool weighted, const Out& out) {
  using policy = index_policy<ExecutionSpace>;
  const std::int64_t rows = m.extent(0), columns = m.extent(1);
  if (columns == 0) return;
  const std::int64_t wanted_threads = std::int64_t(space.concurrency()) * 4;
  std::int64_t blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(rows, wanted_threads / columns));
  const std::int64_t rows_per_block = (rows + blocks - 1) / std::max<std::int64_t>(blocks, 1);
  blocks = rows_per_block > 0 ? (rows + rows_per_block - 1) / rows_per_block : 1;
  Kokkos::View<double**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> partial(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::column_partials"), blocks, columns);
  Kokkos::parallel_for("kernwerk::column_partials", policy(space, 0, blocks * columns),
                       column_partials<M, Weights, decltype(partial)>{m, weight, partial,
                                                                      std::max<std::int64_t>(rows_per_block, 1),
                                                                      weighted});
  Kokkos::parallel_for("kernwerk::column_sums", policy(space, 0, columns),
                       sum_partials<decltype(partial), Out>{partial, out});
}

// A backend folder specialises this with `available = true`, `covers(a, b, out)` and
// `run(space, a, b, out)`.
template <class ExecutionSpace>
struct matmul_colsum_tuned {
  static constexpr bool available = false;
};

template <class ExecutionSpace, class A, class B, class Out>
void matmul_colsum_generic(const ExecutionSpace& space, const A& a, const B& b, const Out& out) {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::View<double*, memory_space> column_sums(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::colsum"), a.extent(1));
  weighted_column_sums(space, a, column_sums, false, column_sums);  // 1^T A (weights unread)
  weighted_column_sums(space, b, column_sums, true, out);           // (1^T A) B
  space.fence();
}

template <class ExecutionSpace, class A, class X, class Y>
void check_gemv_batched(const ExecutionSpace&, double alpha, const A& a, const X& x, double beta,
                        const Y& y) {
  require_matrix_view<ExecutionSpace, A>();
  require_matrix_view<ExecutionSpace, X>();
  require_matrix_view<ExecutionSpace, Y>();
  static_assert((A::rank == 2 || A::rank == 3) && X::rank == 2 && Y::rank == 2,
                "kernwerk::gemv_batched: A rank 3 (batch, m, n) or 2 (m, n); X (batch, n), Y "
                "(batch, m)");
  static_assert(!std::is_const_v<typename Y::value_type>, "kernwerk::gemv_batched: Y writable");
  constexpr const char* fn = "gemv_batched";
  require_finite_scalar(fn, "alpha", alpha);
  require_finite_scalar(fn, "beta", beta);
  constexpr int last = A::rank - 1;
  const std::size_t m = a.extent(last - 1), n = a.extent(last);
  if (A::rank == 3 && a.extent(0) != x.extent(0))
    throw invalid_argument(fn, "x",
                           std::to_string(x.extent(0)) + " vectors, but A holds " +
                               std::to_string(a.extent(0)) + " matrices");
  if (x.extent(1) != n)
    throw invalid_argument(fn, "x",
                           "vectors of length " + std::to_string(x.extent(1)) + ", but A has " +
                               std::to_string(n) + " columns");
  if (y.extent(0) != x.extent(0) || y.extent(1) != m)
    throw invalid_argument(fn, "y",
                           "shape " + shape(y.extent(0), y.extent(1)) + " is not " +
                               shape(x.extent(0), m) + " (batch, rows of A)");
  require_disjoint(fn, "y", y, "a", a);
  require_disjoint(fn, "y", y, "x", x);
}

template <class A, class X, class Y>
struct batched_rows {
  A a;
  X x;
  Y y;
  double alpha, beta;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
    const std::int64_t rows = y.extent(1);
    const std::int64_t batch = t / rows, i = t - batch * rows;
    double sum = 0.0;
    for (std::size_t j = 0; j < x.extent(1); ++j) {
      if constexpr (A::rank == 3)
        sum += double(a(batch, i, j)) * double(x(batch, j));
      else
        sum += double(a(i, j)) * double(x(batch, j));
    }
    const double result = beta == 0.0 ? alpha * sum : alpha * sum + beta * double(y(batch, i));
    y(batch, i) = static_cast<typename Y::value_type>(result);
  }
};

template <class ExecutionSpace, class A, class X, class Y>
void gemv_batched_generic(const ExecutionSpace& space, double alpha, const A& a, const X& x,
                          double beta, const Y& y) {
  Kokkos::parallel_for("kernwerk::gemv_batched",
                       index_policy<ExecutionSpace>(
                           space, 0, std::int64_t(y.extent(0) * y.extent(1))),
                       batched_rows<A, X, Y>{a, x, y, alpha, beta});
  space.fence();
}

}  // namespace kernwerk::impl

// The backends' specialisations of gemm_tuned, gemm_vendor and matmul_colsum_tuned come with
// their declarations, so that every translation unit sees the same ones (a specialisation seen
// by some units only is an ODR violation).
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_HOST_TUNED && KERNWERK_ENABLE_EIGEN
#include "kernwerk/host/gemm.hpp"
#endif
#if KERNWERK_ENABLE_CUDA_TUNED
#include "kernwerk/cuda/gemm.hpp"
#endif
#if KERNWERK_ENABLE_HIP_TUNED
#include "kernwerk/hip/gemm.hpp"
#endif
