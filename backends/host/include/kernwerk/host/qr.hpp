#pragma once
// QR on host spaces through LAPACK (LAPACKE over Debian's OpenBLAS): geqrf, orgqr, ormqr on the
// caller's column-major work matrices. LAPACK runs its own threads; the space is fenced first.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kernwerk/impl/dense/qr_vendor.hpp"

namespace kernwerk::host_impl {

// Thin wrappers over LAPACKE (backends/host/src/qr_lapack.cpp); they throw kernwerk::error on a
// LAPACK failure.
void lapack_geqrf(int m, int n, double* a, int lda, double* tau);
void lapack_geqrf(int m, int n, float* a, int lda, float* tau);
void lapack_orgqr(int m, int n, int k, double* a, int lda, const double* tau);
void lapack_orgqr(int m, int n, int k, float* a, int lda, const float* tau);
void lapack_ormqr(bool transpose, int m, int n, int k, const double* a, int lda,
                  const double* tau, double* c, int ldc);
void lapack_ormqr(bool transpose, int m, int n, int k, const float* a, int lda,
                  const float* tau, float* c, int ldc);

template <class Space, class T>
struct lapack_qr {
  static constexpr bool available = true;
  template <class Matrix, class Vector>
  static void geqrf(const Space& space, const Matrix& a, const Vector& tau) {
    space.fence();
    lapack_geqrf(int(a.extent(0)), int(a.extent(1)), a.data(), int(a.stride(1)), tau.data());
  }
  template <class Matrix, class Vector>
  static void orgqr(const Space& space, const Matrix& q, const Vector& tau, std::int64_t k) {
    space.fence();
    lapack_orgqr(int(q.extent(0)), int(q.extent(1)), int(k), q.data(), int(q.stride(1)),
                 tau.data());
  }
  template <class Matrix, class Vector>
  static void ormqr(const Space& space, const Matrix& a, const Vector& tau, const Matrix& c,
                    bool transpose) {
    space.fence();
    lapack_ormqr(transpose, int(c.extent(0)), int(c.extent(1)), int(a.extent(1)), a.data(),
                 int(a.stride(1)), tau.data(), c.data(), int(c.stride(1)));
  }
};

}  // namespace kernwerk::host_impl

namespace kernwerk::impl {
#if defined(KOKKOS_ENABLE_SERIAL)
template <class T>
struct qr_vendor<Kokkos::Serial, T> : host_impl::lapack_qr<Kokkos::Serial, T> {};
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
template <class T>
struct qr_vendor<Kokkos::OpenMP, T> : host_impl::lapack_qr<Kokkos::OpenMP, T> {};
#endif
}  // namespace kernwerk::impl
