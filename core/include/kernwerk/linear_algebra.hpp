#pragma once
/// \file
/// Dense linear algebra on Views of float or double (any layout, memory the execution space
/// reaches; a View it cannot reach is a compile-time error): gemm, the fused matmul + column
/// sum, batched gemv.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/dense/gemm.hpp"
#include "kernwerk/impl/profiling.hpp"

namespace kernwerk {

/// Options of kernwerk::gemm.
struct gemm_options {
  gemm_implementation implementation = gemm_implementation::automatic;  ///< the code path
};

/// C = alpha A B + beta C for rank-2 Views A (m x k), B (k x n) and C (m x n) of one value
/// type.
///
/// \throws kernwerk::invalid_argument naming the argument: shapes that do not chain, alpha or
/// beta not finite, C overlapping A or B.
/// \throws kernwerk::unsupported for a tuned or vendor implementation the build lacks for the
/// Views.
template <class ExecutionSpace, class A, class B, class C>
void gemm(const ExecutionSpace& space, double alpha, const A& a, const B& b, double beta,
          const C& c, const gemm_options& options = {}) {
  impl::scoped_region region("kernwerk::gemm");
  impl::check_gemm(space, alpha, a, b, beta, c);
  impl::gemm_dispatch(space, alpha, a, b, beta, c, options.implementation);
  space.fence();
}

/// out(q) = sum_i (A B)(i, q) for A (m x j) and B (j x k): the einsum "ij,jk->k", computed as
/// (1^T A) B in O(mj + jk) with float64 accumulation (no m x k product is formed).
///
/// \throws kernwerk::invalid_argument naming the argument: shapes that do not chain, out
/// overlapping A or B.
template <class ExecutionSpace, class A, class B, class Out>
void matmul_colsum(const ExecutionSpace& space, const A& a, const B& b, const Out& out) {
  impl::scoped_region region("kernwerk::matmul_colsum");
  impl::check_matmul_colsum(space, a, b, out);
  using tuned = impl::matmul_colsum_tuned<ExecutionSpace>;
  if constexpr (tuned::available)
    if (tuned::covers(a, b, out)) return tuned::run(space, a, b, out);
  impl::matmul_colsum_generic(space, a, b, out);
}

/// Y(b, :) = alpha A_b X(b, :) + beta Y(b, :) for every b of the batch, where A_b = A(b, :, :)
/// of a rank-3 A, or one rank-2 A shared by the batch (the course's vmap example).
///
/// \throws kernwerk::invalid_argument naming the argument: shapes that do not match, alpha or
/// beta not finite, Y overlapping A or X.
template <class ExecutionSpace, class A, class X, class Y>
void gemv_batched(const ExecutionSpace& space, double alpha, const A& a, const X& x, double beta,
                  const Y& y) {
  impl::scoped_region region("kernwerk::gemv_batched");
  impl::check_gemv_batched(space, alpha, a, x, beta, y);
  impl::gemv_batched_generic(space, alpha, a, x, beta, y);
}

}  // namespace kernwerk
