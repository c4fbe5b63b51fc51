// LAPACKE calls of kernwerk/host/qr.hpp (with KERNWERK_ENABLE_LAPACK).
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_LAPACK
#include <lapacke.h>

#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/dense/qr_vendor.hpp"  // kernwerk/host/qr.hpp after the primary template

namespace kernwerk::host_impl {
namespace {
void check(lapack_int info, const char* routine) {
  // LAPACKE's own: its workspace, or the row-major copy of an array, could not be allocated.
  if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
    throw out_of_memory("qr", std::string("LAPACK's ") + routine + " could not allocate its " +
                                  (info == LAPACK_WORK_MEMORY_ERROR ? "workspace" : "array copy") +
                                  " (LAPACKE info " + std::to_string(info) + ")");
  if (info != 0)
    throw error(std::string("kernwerk::qr (LAPACK): ") + routine + " returned info " +
                std::to_string(info));
}
}  // namespace

void lapack_geqrf(int m, int n, double* a, int lda, double* tau) {
  check(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau), "dgeqrf");
}
void lapack_geqrf(int m, int n, float* a, int lda, float* tau) {
  check(LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau), "sgeqrf");
}
void lapack_orgqr(int m, int n, int k, double* a, int lda, const double* tau) {
  check(LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau), "dorgqr");
}
void lapack_orgqr(int m, int n, int k, float* a, int lda, const float* tau) {
  check(LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau), "sorgqr");
}
void lapack_ormqr(bool transpose, int m, int n, int k, const double* a, int lda,
                  const double* tau, double* c, int ldc) {
  check(LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', transpose ? 'T' : 'N', m, n, k, a, lda, tau, c,
                       ldc),
        "dormqr");
}
void lapack_ormqr(bool transpose, int m, int n, int k, const float* a, int lda,
                  const float* tau, float* c, int ldc) {
  check(LAPACKE_sormqr(LAPACK_COL_MAJOR, 'L', transpose ? 'T' : 'N', m, n, k, a, lda, tau, c,
                       ldc),
        "sormqr");
}

}  // namespace kernwerk::host_impl
#endif  // KERNWERK_ENABLE_LAPACK
