#pragma once
// QR on CUDA through cuSOLVER (geqrf, orgqr, ormqr) on the execution space's stream, on the
// caller's column-major work matrices in device memory.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include <cuda_runtime.h>

#include <cstdint>

#include "kernwerk/impl/dense/qr_vendor.hpp"

namespace kernwerk::cuda_impl {

// backends/cuda/src/qr_cusolver.cpp; they throw kernwerk::error on a cuSOLVER failure.
void cusolver_geqrf(cudaStream_t stream, int m, int n, double* a, int lda, double* tau);
void cusolver_geqrf(cudaStream_t stream, int m, int n, float* a, int lda, float* tau);
void cusolver_orgqr(cudaStream_t stream, int m, int n, int k, double* a, int lda, const double* tau);
void cusolver_orgqr(cudaStream_t stream, int m, int n, int k, float* a, int lda, const float* tau);
void cusolver_ormqr(cudaStream_t stream, bool transpose, int m, int n, int k, const double* a,
                    int lda, const double* tau, double* c, int ldc);
void cusolver_ormqr(cudaStream_t stream, bool transpose, int m, int n, int k, const float* a,
                    int lda, const float* tau, float* c, int ldc);

template <class T>
struct cusolver_qr {
  static constexpr bool available = true;
  template <class Matrix, class Vector>
  static void geqrf(const Kokkos::Cuda& space, const Matrix& a, const Vector& tau) {
    cusolver_geqrf(space.cuda_stream(), int(a.extent(0)), int(a.extent(1)), a.data(),
                   int(a.stride(1)), tau.data());
  }
  template <class Matrix, class Vector>
  static void orgqr(const Kokkos::Cuda& space, const Matrix& q, const Vector& tau,
                    std::int64_t k) {
    cusolver_orgqr(space.cuda_stream(), int(q.extent(0)), int(q.extent(1)), int(k), q.data(),
                   int(q.stride(1)), tau.data());
  }
  template <class Matrix, class Vector>
  static void ormqr(const Kokkos::Cuda& space, const Matrix& a, const Vector& tau,
                    const Matrix& c, bool transpose) {
    cusolver_ormqr(space.cuda_stream(), transpose, int(c.extent(0)), int(c.extent(1)),
                   int(a.extent(1)), a.data(), int(a.stride(1)), tau.data(), c.data(),
                   int(c.stride(1)));
  }
};

}  // namespace kernwerk::cuda_impl

namespace kernwerk::impl {
template <class T>
struct qr_vendor<Kokkos::Cuda, T> : cuda_impl::cusolver_qr<T> {};
}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
