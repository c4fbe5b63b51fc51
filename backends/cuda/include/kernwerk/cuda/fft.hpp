#pragma once
// FFT on CUDA through cuFFT, on the execution space's stream.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include <cuda_runtime.h>

#include <memory>

#include "kernwerk/impl/dense/fft_library.hpp"
#include "kernwerk/impl/dense/fft_vendor.hpp"

namespace kernwerk::cuda_impl {

// backends/cuda/src/fft_cufft.cpp
std::unique_ptr<impl::fft_vendor_plan> make_cufft_plan(cudaStream_t stream,
                                                       const impl::fft_vendor_problem& problem);

}  // namespace kernwerk::cuda_impl

namespace kernwerk::impl {
template <>
struct fft_vendor<Kokkos::Cuda> {
  static constexpr bool available = true;
  static constexpr bool stream_ordered = true;
  static std::unique_ptr<fft_vendor_plan> make(const Kokkos::Cuda& space,
                                               const fft_vendor_problem& problem) {
    return cuda_impl::make_cufft_plan(space.cuda_stream(), problem);
  }
};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
