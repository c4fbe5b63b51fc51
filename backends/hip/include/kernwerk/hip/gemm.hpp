#pragma once
// gemm on HIP: the tuned tiled kernel of kernwerk/gpu/gemm_kernels.hpp (float, row-major).
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include "kernwerk/gpu/gemm_kernels.hpp"
#include "kernwerk/hip/runtime.hpp"

namespace kernwerk::impl {
template <class A, class B, class C>
struct gemm_tuned<Kokkos::Experimental::HIP, A, B, C>
    : gpu_impl::gpu_gemm<hip_impl::hip_runtime, A, B, C> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_HIP
