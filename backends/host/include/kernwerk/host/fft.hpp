#pragma once
// FFT on host spaces through FFTW 3 (double and float) with its OpenMP threads, as many as the
// space has: the same OpenMP runtime as Kokkos' OpenMP space, whose idle threads would otherwise
// spin beside FFTW's own (with FFTW's pthreads a transform took several times as long:
// commit 425acd3).
#include <Kokkos_Core.hpp>

#include <memory>

#include "kernwerk/impl/dense/fft_library.hpp"
#include "kernwerk/impl/dense/fft_vendor.hpp"

namespace kernwerk::host_impl {

// backends/host/src/fft_fftw.cpp
std::unique_ptr<impl::fft_vendor_plan> make_fftw_plan(const impl::fft_vendor_problem& problem);

template <class Space>
struct fftw_vendor {
  static constexpr bool available = true;
  static constexpr bool stream_ordered = false;
  static std::unique_ptr<impl::fft_vendor_plan> make(const Space&,
                                                     const impl::fft_vendor_problem& problem) {
    return make_fftw_plan(problem);
  }
};

}  // namespace kernwerk::host_impl

namespace kernwerk::impl {
#if defined(KOKKOS_ENABLE_SERIAL)
template <>
struct fft_vendor<Kokkos::Serial> : host_impl::fftw_vendor<Kokkos::Serial> {};
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
template <>
struct fft_vendor<Kokkos::OpenMP> : host_impl::fftw_vendor<Kokkos::OpenMP> {};
#endif
}  // namespace kernwerk::impl
