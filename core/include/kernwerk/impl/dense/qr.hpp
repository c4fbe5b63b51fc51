#pragma once
// The blocked Householder QR written once on Kokkos (LAPACK's geqrf, orgqr and ormqr, left side):
// panels of `block` columns are factored a column a launch by teams of rows, and the block reflector
// H = I - V T V^T of a panel reaches the rest of the matrix through three kernwerk::gemm calls.
// Matrices are column-major work Views owned by the caller (kernwerk/impl/dense/qr_calls.hpp).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "kernwerk/impl/dense/gemm.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/math.hpp"
#include "kernwerk/linear_algebra.hpp"

namespace kernwerk::impl {

// A backend folder specialises qr_panel_tuned with `available = true`, `row_step` (a team's
// rows come in multiples of it) and `run(space, step, teams)`: householder_qr's panel_step as a
// plain launch of `teams` teams.
template <class Space>
struct qr_panel_tuned {
  static constexpr bool available = false;
};

template <class Space, class T>
struct householder_qr {
  using memory = typename Space::memory_space;
  using work = Kokkos::View<T**, Kokkos::LayoutLeft, memory>;
  using block_view = Kokkos::View<T**, Kokkos::LayoutStride, memory,
                                  Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using vector = Kokkos::View<T*, memory, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using member = typename Kokkos::TeamPolicy<Space>::member_type;
  static constexpr int block = 32;
  static constexpr int unroll = 8;  // rows a lane has in flight in a panel's column updates

  // C = alpha A B + beta C by Kernwerk's gemm (the vendor's where it covers the Views), enqueued
  // on the space: the shapes are ours, and the caller fences once at the end.
  static void product(const Space& space, double alpha, const block_view& a, const block_view& b,
                      double beta, const block_view& c) {
    gemm_dispatch(space, alpha, a, b, beta, c, gemm_implementation::automatic);
  }

  // rows x cols of a column-major matrix from (row, col)
  template <class Matrix>
  static block_view part(const Matrix& w, std::int64_t row, std::int64_t col, std::int64_t rows,
                         std::int64_t cols) {
    // (pointer arithmetic: the matrix may lie in memory the host cannot read)
    return block_view(w.data() + (rows && cols ? row + col * std::int64_t(w.stride(1)) : 0),
                      Kokkos::LayoutStride(rows, 1, cols, w.stride(1)));
  }
  static block_view transposed(const block_view& v) {
    return block_view(v.data(),
                      Kokkos::LayoutStride(v.extent(1), v.stride(1), v.extent(0), v.stride(0)));
  }

  // The reflectors of one panel and the products of apply_block, as block_views.
  struct panel_block {
    block_view v, t, first, second;
  };

  // The sums a panel's next column needs, over all its rows, as each team of a launch left them:
  // with x scaled by the team's largest |x_i| (in slot kb), sums(parity, c, team) = x^T c for
  // the later columns c and x^T x in the slot of x; head(parity, c): the panel's row j as it
  // stands.
  using sums_view = Kokkos::View<T***, Kokkos::LayoutRight, memory>;
  using head_view = Kokkos::View<T**, Kokkos::LayoutRight, memory>;

  // Rows a lane takes a step, `groups` apart (coalesced across the lanes), so that their loads
  // are in flight together rather than one after another: f(i) for i in [lo, hi).
  template <class F>
  KOKKOS_FUNCTION static void on_rows(const member& team, std::int64_t lo, std::int64_t hi,
                                      const F& f) {
    const std::int64_t groups = hi > lo ? (hi - lo + unroll - 1) / unroll : 0;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, groups), [&](std::int64_t g) {
      for (int u = 0; u < unroll; ++u) {
        const std::int64_t i = lo + g + u * groups;
        if (i < hi) f(i);
      }
    });
  }
  template <class F, class R>
  KOKKOS_FUNCTION static void on_rows(const member& team, std::int64_t lo, std::int64_t hi,
                                      const F& f, R&& result) {
    const std::int64_t groups = hi > lo ? (hi - lo + unroll - 1) / unroll : 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, groups),
        [&](std::int64_t g, auto& s) {
          for (int u = 0; u < unroll; ++u) {
            const std::int64_t i = lo + g + u * groups;
            if (i < hi) f(i, s);
          }
        },
        result);
  }

  // One step of the unblocked Householder QR of a p x kb panel (LAPACK's dlarfg conventions):
  // beta = -sign(alpha) ||x||, tau = (beta - alpha) / beta, v = x / (alpha - beta) below the
  // diagonal, tau = 0 (H = I) where the column below the diagonal is zero; then the later
  // columns c -= tau v (v^T c). The rows are split between the teams of a launch, a launch a
  // column: it finishes column j from the sums the last launch left (||x||, x^T c and row j), and
  // leaves those of column j + 1 from its own rows. A warp per column, its lanes on rows.
  struct panel_step {
    using value_type = T;
    block_view panel;
    vector tau;  // of the panel's columns, from `first`
    std::int64_t first;
    int j;  // the column this launch applies; -1: only the sums of column 0
    std::int64_t rows;  // a team's
    int teams;
    sums_view sums;
    head_view head;

    KOKKOS_FUNCTION void operator()(const member& team) const {
      const std::int64_t p = panel.extent(0);
      const int kb = int(panel.extent(1)), k = team.league_rank();
      const std::int64_t r0 = k * rows, r1 = r0 + rows < p ? r0 + rows : p;
      const int in = j & 1, out = (j + 1) & 1, next = j + 1;
      const std::int64_t below = r0 > next ? r0 : next;  // the team's rows below column j's diagonal
      T beta = 0, t = 0, scal = 0;
      bool reflect = false;
      if (j >= 0) {
        // ||x|| from the teams' (largest, scaled sum of squares): accurate without overflow or
        // loss to underflow, whatever the scale.
        T big = 0, sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, teams),
            [&](int q, T& m) { m = math::fmax(m, sums(in, kb, q)); }, Kokkos::Max<T>(big));
        if (big > 0) {
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, teams),
              [&](int q, T& s) {
                const T r = sums(in, kb, q) / big;
                s += sums(in, j, q) * r * r;
              },
              sum);
          const T alpha = head(in, j), x_norm = big * math::sqrt(sum);
          const T scale = math::fmax(math::fabs(alpha), x_norm);
          const T length = scale * math::sqrt((alpha / scale) * (alpha / scale) +
                                              (x_norm / scale) * (x_norm / scale));
          beta = alpha >= 0 ? -length : length;
          t = (beta - alpha) / beta;
          scal = 1 / (alpha - beta);
          reflect = true;
        }
        if (k == 0) Kokkos::single(Kokkos::PerTeam(team), [&] { tau(first + j) = t; });
        if (reflect) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, j + 1, kb), [&](int c) {
            T d = 0;
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(team, teams),
                [&](int q, T& s) { s += sums(in, c, q) * (scal * sums(in, kb, q)); }, d);
            const T w = t * (head(in, c) + d);
            on_rows(team, below, r1, [&](std::int64_t i) { panel(i, c) -= w * (scal * panel(i, j)); });
            if (r0 <= j && j < r1) Kokkos::single(Kokkos::PerThread(team), [&] { panel(j, c) -= w; });
          });
          if (r0 <= j && j < r1) Kokkos::single(Kokkos::PerTeam(team), [&] { panel(j, j) = beta; });
        }
        team.team_barrier();
      }
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, j > 0 ? j : 0, kb), [&](int c) {
        if (c == j) {  // v below the diagonal (column j read by no one else in this part)
          if (reflect)
            on_rows(team, below, r1, [&](std::int64_t i) { panel(i, j) *= scal; });
          return;
        }
        // The team's x scaled by its largest |x_i|: neither the sum of squares nor x^T c
        // overflows or underflows.
        const std::int64_t lo = r0 > next + 1 ? r0 : next + 1;
        T big = 0, sum = 0;
        on_rows(team, lo, r1,
                [&](std::int64_t i, T& m) { m = math::fmax(m, math::fabs(panel(i, next))); },
                Kokkos::Max<T>(big));
        if (big > 0)
          on_rows(team, lo, r1,
                  [&](std::int64_t i, T& s) {
                    const T x = panel(i, next) / big;
                    s += x * (c == next ? x : panel(i, c));
                  },
                  sum);
        Kokkos::single(Kokkos::PerThread(team), [&] {
          sums(out, c, k) = sum;
          if (c == next) sums(out, kb, k) = big;
        });
        if (r0 <= next && next < r1)
          Kokkos::single(Kokkos::PerThread(team), [&] { head(out, c) = panel(next, c); });
      });
    }
  };

  // The launches of the panel steps: teams of rows (at most 256 or as many as the device holds
  // at once, no fewer rows than a warp's lanes take in one step), a warp per column.
  struct panel_launch {
    std::int64_t rows;
    int threads, lanes;
    sums_view sums;
    head_view head;

    panel_launch(const Space& space, std::int64_t m) {
      lanes = std::min(32, Kokkos::TeamPolicy<Space>::vector_length_max());
      Kokkos::TeamPolicy<Space> probe(space, 1, 1, lanes);
      // (on a host, one thread a team: a team's threads would spend their time in its barriers)
      threads = lanes == 1 ? 1
                           : std::max(1, std::min(block, probe.team_size_max(panel_step{},
                                                                              Kokkos::ParallelForTag())));
      const std::int64_t resident = std::max<std::int64_t>(1, space.concurrency() / (threads * lanes));
      // A team's rows come in steps: `unroll` rows a lane on Kokkos' teams; on a tuned launch a
      // row a lane, for more teams and a shorter walk (a step's time is its lanes' walk over
      // their rows more than its launch: perf/results/issue48-cuda-h200.json and
      // issue48-qr-rows-cuda-h200.json).
      std::int64_t step = std::int64_t(lanes) * unroll;
      if constexpr (qr_panel_tuned<Space>::available) step = qr_panel_tuned<Space>::row_step;
      const std::int64_t cap = std::min<std::int64_t>(256, resident);
      rows = std::max<std::int64_t>(step, ((m + cap - 1) / cap + step - 1) / step * step);
      sums = sums_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::qr::sums"), 2,
                       block + 1, (m + rows - 1) / rows);
      head = head_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::qr::head"), 2, block);
    }

    // geqr2 of the p x kb panel (p <= m) in place, tau(first:first + kb) its scalars.
    void operator()(const Space& space, const block_view& panel, const vector& tau,
                    std::int64_t first) const {
      const int teams = int((panel.extent(0) + rows - 1) / rows);
      for (int j = -1; j < int(panel.extent(1)); ++j) {
        const panel_step step{panel, tau, first, j, rows, teams, sums, head};
        if constexpr (qr_panel_tuned<Space>::available) {
          const launch_label named("kernwerk::qr::panel_step", false);
          qr_panel_tuned<Space>::run(space, step, teams);
        } else {
          Kokkos::parallel_for("kernwerk::qr::panel_step", Kokkos::TeamPolicy<Space>(space, teams, threads, lanes), step);
        }
      }
    }
  };

  // v: the panel's reflectors as an explicit p x kb matrix (ones on the diagonal, zeros above).
  static void explicit_reflectors(const Space& space, const block_view& panel,
                                  const block_view& v) {
    const std::int64_t p = panel.extent(0), kb = panel.extent(1);
    launch_for("kernwerk::qr::reflectors", space, p * kb, KOKKOS_LAMBDA(std::int64_t e) {
      const std::int64_t i = e % p, j = e / p;
      v(i, j) = i > j ? panel(i, j) : (i == j ? T(1) : T(0));
    });
  }

  // T (kb x kb, upper triangular, zeros below) with H(0) ... H(kb-1) = I - V T V^T (LAPACK's
  // dlarft, forward, columnwise): T(j, j) = tau_j, T(0:j, j) = -tau_j T(0:j, 0:j) V(:, 0:j)^T v_j.
  // Row i of T needs only its own earlier entries (T is upper triangular): T(i, j) =
  // -tau_j sum_{l = i}^{j - 1} T(i, l) G(l, j) for j > i, with T(i, i) = tau_i. A thread a row.
  static void triangular_factor(const Space& space, const block_view& v, const vector& tau,
                                std::int64_t first, const block_view& t,
                                const block_view& gram) {
    const std::int64_t kb = v.extent(1);
    product(space, 1.0, transposed(v), v, 0.0, gram);
    launch_for("kernwerk::qr::triangular_factor", space, kb, KOKKOS_LAMBDA(std::int64_t i) {
      for (std::int64_t j = 0; j < i; ++j) t(i, j) = 0;
      t(i, i) = tau(first + i);
      for (std::int64_t j = i + 1; j < kb; ++j) {
        T s = 0;
        for (std::int64_t l = i; l < j; ++l) s += t(i, l) * gram(l, j);
        t(i, j) = -tau(first + j) * s;
      }
    });
  }

  // C := H C (transpose false) or H^T C, H = I - V T V^T, C p x nc (nc <= the block's width).
  static void apply_block(const Space& space, const panel_block& h, const block_view& c,
                          bool transpose) {
    const std::int64_t kb = h.v.extent(1), nc = c.extent(1);
    if (nc == 0) return;
    const block_view first = part(h.first, 0, 0, kb, nc), second = part(h.second, 0, 0, kb, nc);
    product(space, 1.0, transposed(h.v), c, 0.0, first);                          // V^T C
    product(space, 1.0, transpose ? transposed(h.t) : h.t, first, 0.0, second);  // op(T) V^T C
    product(space, -1.0, h.v, second, 1.0, c);                                    // C - V op(T) V^T C
  }

  // Scratch of one factorisation: the explicit reflectors, T, V^T V and two kb x width products.
  struct scratch {
    work v, t, gram, first, second;
    scratch(std::int64_t rows, std::int64_t width)
        : v(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::qr::v"), rows, block),
          t(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::qr::t"), block, block),
          gram(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::qr::gram"), block, block),
          first(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::qr::w1"), block, width),
          second(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::qr::w2"), block, width) {}
  };

  // The reflectors of panel k0 (V and T) from a factored matrix a, for products with width
  // columns.
  static panel_block panel_reflectors(const Space& space, const block_view& a, const vector& tau,
                                      std::int64_t k0, std::int64_t kb, std::int64_t width,
                                      const scratch& s) {
    const std::int64_t rows = a.extent(0) - k0;
    const panel_block here{part(s.v, 0, 0, rows, kb), part(s.t, 0, 0, kb, kb),
                           part(s.first, 0, 0, kb, width), part(s.second, 0, 0, kb, width)};
    explicit_reflectors(space, part(a, k0, k0, rows, kb), here.v);
    triangular_factor(space, here.v, tau, k0, here.t, part(s.gram, 0, 0, kb, kb));
    return here;
  }

  // geqrf: a (m x n, m >= n, column-major) becomes R and the reflectors, tau their scalars.
  static void factor(const Space& space, const block_view& a, const vector& tau) {
    const std::int64_t m = a.extent(0), n = a.extent(1);
    const scratch s(m, std::max<std::int64_t>(n - block, 1));
    const panel_launch factor_panel(space, m);
    for (std::int64_t k0 = 0; k0 < n; k0 += block) {
      const std::int64_t kb = std::min<std::int64_t>(block, n - k0);
      factor_panel(space, part(a, k0, k0, m - k0, kb), tau, k0);
      if (k0 + kb >= n) break;
      const panel_block h = panel_reflectors(space, a, tau, k0, kb, n - k0 - kb, s);
      apply_block(space, h, part(a, k0, k0 + kb, m - k0, n - k0 - kb), true);
    }
    space.fence();  // before the scratch goes
  }

  // ormqr, left side: c (m x p) := Q c or Q^T c with Q = H(0) ... H(k-1) from a factored
  // a (m x k) and tau. Q^T applies the panels first to last, Q last to first.
  static void multiply(const Space& space, const block_view& a, const vector& tau,
                       const block_view& c, bool transpose) {
    const std::int64_t m = a.extent(0), k = a.extent(1), p = c.extent(1);
    if (k == 0 || p == 0) return;
    const scratch s(m, p);
    const std::int64_t panels = (k + block - 1) / block;
    for (std::int64_t step = 0; step < panels; ++step) {
      const std::int64_t k0 = (transpose ? step : panels - 1 - step) * block;
      const std::int64_t kb = std::min<std::int64_t>(block, k - k0);
      const panel_block h = panel_reflectors(space, a, tau, k0, kb, p, s);
      apply_block(space, h, part(c, k0, 0, m - k0, p), transpose);
    }
    space.fence();  // before the scratch goes
  }

  // orgqr: q (m x p, k <= p <= m) holds the k reflectors of a factorisation in its first k
  // columns (as geqrf left them) and becomes the first p columns of Q. Built last panel first;
  // a panel reaches only the columns from its own on (before it they are still those of I).
  static void form_q(const Space& space, const block_view& q, const vector& tau, std::int64_t k) {
    const std::int64_t m = q.extent(0), p = q.extent(1);
    const work reflectors(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::qr::reflectors"), m, k);
    Kokkos::deep_copy(space, reflectors, part(q, 0, 0, m, k));
    launch_for("kernwerk::qr::identity", space, m * p, KOKKOS_LAMBDA(std::int64_t e) {
      const std::int64_t i = e % m, j = e / m;
      q(i, j) = i == j ? T(1) : T(0);
    });
    if (k == 0) return;
    const scratch s(m, p);
    const block_view stored = part(reflectors, 0, 0, m, k);
    for (std::int64_t k0 = (k - 1) / block * block; k0 >= 0; k0 -= block) {
      const std::int64_t kb = std::min<std::int64_t>(block, k - k0);
      const panel_block h = panel_reflectors(space, stored, tau, k0, kb, p - k0, s);
      apply_block(space, h, part(q, k0, k0, m - k0, p - k0), false);
    }
    space.fence();  // before the scratch goes
  }
};

}  // namespace kernwerk::impl

// The backends' specialisations of qr_panel_tuned come with its declaration (one set for every
// translation unit).
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_CUDA_TUNED
#include "kernwerk/cuda/qr_panel.hpp"
#endif
#if KERNWERK_ENABLE_HIP_TUNED
#include "kernwerk/hip/qr_panel.hpp"
#endif
