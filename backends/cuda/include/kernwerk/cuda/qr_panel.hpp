#pragma once
// The generic QR's panel step as a plain CUDA launch (impl::qr_panel_tuned), selected by
// KERNWERK_ENABLE_CUDA_TUNED: kernwerk/gpu/qr_kernels.hpp.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include "kernwerk/cuda/runtime.hpp"
#include "kernwerk/gpu/qr_kernels.hpp"
#include "kernwerk/impl/dense/qr.hpp"

namespace kernwerk::impl {
template <>
struct qr_panel_tuned<Kokkos::Cuda> : gpu_impl::gpu_qr_panel<cuda_impl::cuda_runtime> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
