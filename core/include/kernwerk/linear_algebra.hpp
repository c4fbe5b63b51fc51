#pragma once
// Dense linear algebra on rank-2 Views of float or double (any layout, memory the execution
// space reaches):
//   gemm:          C = alpha A B + beta C
//   matmul_colsum: out(k) = sum_i (A B)(i, k), the einsum "ij,jk->k", as (1^T A) B in
//                  O(mk + kn) with float64 accumulation (no m x n product is formed)
//   gemv_batched:  Y(b, :) = alpha A_b X(b, :) + beta Y(b, :) for every b, A_b = A(b, :, :) of a
//                  rank-3 A, or one rank-2 A shared by the batch (the course's vmap example)
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "kernwerk/config.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/impl/gemm_generic.hpp"
#include "kernwerk/impl/profiling.hpp"

#if KERNWERK_ENABLE_HOST_TUNED && KERNWERK_ENABLE_EIGEN
#include "kernwerk/host/gemm.hpp"
#endif
#if KERNWERK_ENABLE_CUDA_TUNED
#include "kernwerk/cuda/gemm.hpp"
#endif
#if KERNWERK_ENABLE_HIP_TUNED
#include "kernwerk/hip/gemm.hpp"
#endif

namespace kernwerk {

struct gemm_options {
  // automatic: the vendor library where the build has one for the execution space (cuBLAS,
  // Eigen), else the tuned kernel where it covers the call, else the generic one.
  gemm_implementation implementation = gemm_implementation::automatic;
};

template <class ExecutionSpace, class A, class B, class C>
void gemm(const ExecutionSpace& space, double alpha, const A& a, const B& b, double beta,
          const C& c, const gemm_options& options = {}) {
  impl::scoped_region region("kernwerk::gemm");
  impl::check_gemm(space, alpha, a, b, beta, c);
  impl::gemm_dispatch(space, alpha, a, b, beta, c, options.implementation);
}

template <class ExecutionSpace, class A, class B, class Out>
void matmul_colsum(const ExecutionSpace& space, const A& a, const B& b, const Out& out) {
  impl::scoped_region region("kernwerk::matmul_colsum");
  impl::check_matmul_colsum(space, a, b, out);
  using tuned = impl::matmul_colsum_tuned<ExecutionSpace>;
  if constexpr (tuned::available)
    if (tuned::covers(a, b, out)) return tuned::run(space, a, b, out);
  impl::matmul_colsum_generic(space, a, b, out);
}

template <class ExecutionSpace, class A, class X, class Y>
void gemv_batched(const ExecutionSpace& space, double alpha, const A& a, const X& x, double beta,
                  const Y& y) {
  impl::scoped_region region("kernwerk::gemv_batched");
  impl::check_gemv_batched(space, alpha, a, x, beta, y);
  impl::gemv_batched_generic(space, alpha, a, x, beta, y);
}

}  // namespace kernwerk
