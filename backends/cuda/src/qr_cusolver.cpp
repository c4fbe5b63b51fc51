// cuSOLVER calls of kernwerk/cuda/qr.hpp (with KERNWERK_ENABLE_CUSOLVER).
#include "kernwerk/config.hpp"
#if KERNWERK_ENABLE_CUSOLVER
#include <cusolverDn.h>

#include <mutex>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/cuda/runtime.hpp"  // vendor_cache_preference
#include "kernwerk/impl/dense/qr_vendor.hpp"  // kernwerk/cuda/qr.hpp after the primary template

namespace kernwerk::cuda_impl {
namespace {

void check(cusolverStatus_t status, const char* routine) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw error(std::string("kernwerk::qr (cuSOLVER): ") + routine + " returned status " +
                std::to_string(int(status)));
}

// One handle for the process, created on first use, destroyed when Kokkos finalises; the lock
// is held for the whole call (the handle's stream is set per call).
class solver {
 public:
  explicit solver(cudaStream_t stream) : lock_(mutex()) {
    if (!handle()) {
      check(cusolverDnCreate(&handle()), "cusolverDnCreate");
      Kokkos::push_finalize_hook([] {
        std::lock_guard<std::mutex> guard(mutex());
        cusolverDnDestroy(handle());
        handle() = nullptr;
      });
    }
    check(cusolverDnSetStream(handle(), stream), "cusolverDnSetStream");
  }
  cusolverDnHandle_t get() const { return handle(); }

  // Work of `count` elements, then the info word (256-byte aligned: cuSOLVER's kernels write
  // the work area in 8-byte words), kept between calls.
  template <class T>
  T* work(int count) {
    info_offset_ = (std::size_t(count > 0 ? count : 1) * sizeof(T) + 255) / 256 * 256;
    const std::size_t bytes = info_offset_ + sizeof(int);
    if (storage().extent(0) < bytes)
      storage() = Kokkos::View<char*, Kokkos::CudaSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::qr::cusolver_work"), bytes);
    return reinterpret_cast<T*>(storage().data());
  }
  int* info() { return reinterpret_cast<int*>(storage().data() + info_offset_); }
  // The info word, after the stream has finished the call.
  void require_success(cudaStream_t stream, const char* routine) {
    int host_info = 0;
    cudaMemcpyAsync(&host_info, info(), sizeof(int), cudaMemcpyDeviceToHost, stream);
    if (cudaStreamSynchronize(stream) != cudaSuccess)
      throw error(std::string("kernwerk::qr (cuSOLVER): ") + routine + ": the stream failed");
    if (host_info != 0)
      throw error(std::string("kernwerk::qr (cuSOLVER): ") + routine + " returned info " +
                  std::to_string(host_info));
  }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static cusolverDnHandle_t& handle() {
    static cusolverDnHandle_t h = nullptr;
    return h;
  }
  static Kokkos::View<char*, Kokkos::CudaSpace>& storage() {
    static Kokkos::View<char*, Kokkos::CudaSpace> s;
    static bool hooked = false;
    if (!hooked) {
      hooked = true;
      Kokkos::push_finalize_hook([] { s = {}; });
    }
    return s;
  }
  std::unique_lock<std::mutex> lock_;
  const vendor_cache_preference preference_;
  std::size_t info_offset_ = 0;
};

// The double and float routines under one name each.
struct routines_d {
  static constexpr auto geqrf_size = cusolverDnDgeqrf_bufferSize;
  static constexpr auto geqrf = cusolverDnDgeqrf;
  static constexpr auto orgqr_size = cusolverDnDorgqr_bufferSize;
  static constexpr auto orgqr = cusolverDnDorgqr;
  static constexpr auto ormqr_size = cusolverDnDormqr_bufferSize;
  static constexpr auto ormqr = cusolverDnDormqr;
};
struct routines_s {
  static constexpr auto geqrf_size = cusolverDnSgeqrf_bufferSize;
  static constexpr auto geqrf = cusolverDnSgeqrf;
  static constexpr auto orgqr_size = cusolverDnSorgqr_bufferSize;
  static constexpr auto orgqr = cusolverDnSorgqr;
  static constexpr auto ormqr_size = cusolverDnSormqr_bufferSize;
  static constexpr auto ormqr = cusolverDnSormqr;
};
template <class T>
using routines = std::conditional_t<std::is_same_v<T, double>, routines_d, routines_s>;

template <class T>
void geqrf(cudaStream_t stream, int m, int n, T* a, int lda, T* tau) {
  solver s(stream);
  int size = 0;
  check(routines<T>::geqrf_size(s.get(), m, n, a, lda, &size), "geqrf_bufferSize");
  T* work = s.work<T>(size);
  check(routines<T>::geqrf(s.get(), m, n, a, lda, tau, work, size, s.info()), "geqrf");
  s.require_success(stream, "geqrf");
}

template <class T>
void orgqr(cudaStream_t stream, int m, int n, int k, T* a, int lda, const T* tau) {
  solver s(stream);
  int size = 0;
  check(routines<T>::orgqr_size(s.get(), m, n, k, a, lda, tau, &size), "orgqr_bufferSize");
  T* work = s.work<T>(size);
  check(routines<T>::orgqr(s.get(), m, n, k, a, lda, tau, work, size, s.info()), "orgqr");
  s.require_success(stream, "orgqr");
}

template <class T>
void ormqr(cudaStream_t stream, bool transpose, int m, int n, int k, const T* a, int lda,
           const T* tau, T* c, int ldc) {
  solver s(stream);
  const cublasOperation_t op = transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  int size = 0;
  check(routines<T>::ormqr_size(s.get(), CUBLAS_SIDE_LEFT, op, m, n, k, a, lda, tau, c, ldc, &size),
        "ormqr_bufferSize");
  T* work = s.work<T>(size);
  check(routines<T>::ormqr(s.get(), CUBLAS_SIDE_LEFT, op, m, n, k, a, lda, tau, c, ldc, work,
                           size, s.info()),
        "ormqr");
  s.require_success(stream, "ormqr");
}

}  // namespace

void cusolver_geqrf(cudaStream_t stream, int m, int n, double* a, int lda, double* tau) {
  geqrf(stream, m, n, a, lda, tau);
}
void cusolver_geqrf(cudaStream_t stream, int m, int n, float* a, int lda, float* tau) {
  geqrf(stream, m, n, a, lda, tau);
}
void cusolver_orgqr(cudaStream_t stream, int m, int n, int k, double* a, int lda, const double* tau) {
  orgqr(stream, m, n, k, a, lda, tau);
}
void cusolver_orgqr(cudaStream_t stream, int m, int n, int k, float* a, int lda, const float* tau) {
  orgqr(stream, m, n, k, a, lda, tau);
}
void cusolver_ormqr(cudaStream_t stream, bool transpose, int m, int n, int k, const double* a,
                    int lda, const double* tau, double* c, int ldc) {
  ormqr(stream, transpose, m, n, k, a, lda, tau, c, ldc);
}
void cusolver_ormqr(cudaStream_t stream, bool transpose, int m, int n, int k, const float* a,
                    int lda, const float* tau, float* c, int ldc) {
  ormqr(stream, transpose, m, n, k, a, lda, tau, c, ldc);
}

}  // namespace kernwerk::cuda_impl
#endif  // KERNWERK_ENABLE_CUSOLVER
