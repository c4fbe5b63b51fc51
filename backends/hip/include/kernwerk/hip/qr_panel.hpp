#pragma once
// The generic QR's panel step as a plain HIP launch (impl::qr_panel_tuned), selected by
// KERNWERK_ENABLE_HIP_TUNED: kernwerk/gpu/qr_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_HIP)

#include "kernwerk/hip/runtime.hpp"
#include "kernwerk/gpu/qr_kernels.hpp"
#include "kernwerk/impl/dense/qr.hpp"

namespace kernwerk::impl {
template <>
struct qr_panel_tuned<Kokkos::Experimental::HIP> : gpu_impl::gpu_qr_panel<hip_impl::hip_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_HIP
