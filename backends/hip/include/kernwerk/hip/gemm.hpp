#pragma once
// gemm and matmul_colsum on HIP: the tuned kernels of kernwerk/gpu/gemm_kernels.hpp (float,
// row-major) and kernwerk/gpu/colsum_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include "kernwerk/gpu/colsum_kernels.hpp"
#include "kernwerk/gpu/gemm_kernels.hpp"
#include "kernwerk/hip/runtime.hpp"
#include "kernwerk/impl/dense/gemm.hpp"

namespace kernwerk::impl {
template <class A, class B, class C>
struct gemm_tuned<Kokkos::Experimental::HIP, A, B, C>
    : gpu_impl::gpu_gemm<hip_impl::hip_runtime, A, B, C> {};
template <>
struct matmul_colsum_tuned<Kokkos::Experimental::HIP> : gpu_impl::gpu_colsum<hip_impl::hip_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_HIP
