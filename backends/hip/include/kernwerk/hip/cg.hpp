#pragma once
// A CSR conjugate-gradient step as one plain HIP launch (impl::cg_step_tuned), selected by
// KERNWERK_ENABLE_HIP_TUNED: kernwerk/gpu/cg_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include "kernwerk/hip/runtime.hpp"
#include "kernwerk/gpu/cg_kernels.hpp"
#include "kernwerk/impl/dense/cg.hpp"

namespace kernwerk::impl {
template <>
struct cg_step_tuned<Kokkos::Experimental::HIP> : gpu_impl::gpu_cg_step<hip_impl::hip_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_HIP
