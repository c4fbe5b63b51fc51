#pragma once
// The FFT library of an execution space, where the build has one: a backend folder
// specialises fft_vendor<Space> with
//   available = true
//   stream_ordered   whether the library's transforms are ordered with the space's kernels
//                    (a GPU stream); otherwise the space is fenced around them
//   make(space, problem) -> std::unique_ptr<fft_vendor_plan>
#include <Kokkos_Core.hpp>

#include "kernwerk/config.hpp"
#include "kernwerk/impl/dense/fft_library.hpp"

namespace kernwerk::impl {

template <class Space>
struct fft_vendor {
  static constexpr bool available = false;
  static constexpr bool stream_ordered = false;
};

}  // namespace kernwerk::impl

#if KERNWERK_ENABLE_HOST_TUNED && KERNWERK_ENABLE_FFTW
#include "kernwerk/host/fft.hpp"
#endif
#if KERNWERK_ENABLE_CUDA_TUNED && KERNWERK_ENABLE_CUFFT
#include "kernwerk/cuda/fft.hpp"
#endif
