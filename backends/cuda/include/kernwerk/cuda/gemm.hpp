#pragma once
// gemm and matmul_colsum on CUDA: the tuned kernels of kernwerk/gpu/colsum_kernels.hpp, the
// tuned tiled gemm of kernwerk/gpu/gemm_kernels.hpp (float, row-major) and,
// with KERNWERK_ENABLE_CUBLAS, cuBLAS as the vendor implementation (float and double, any
// mix of row- and column-major Views), on the execution space's stream.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "kernwerk/config.hpp"
#include "kernwerk/cuda/runtime.hpp"
#include "kernwerk/impl/dense/gemm.hpp"
#include "kernwerk/gpu/colsum_kernels.hpp"
#include "kernwerk/gpu/gemm_kernels.hpp"

#if KERNWERK_ENABLE_CUBLAS
#include <cublas_v2.h>
#endif

namespace kernwerk::impl {
template <class A, class B, class C>
struct gemm_tuned<Kokkos::Cuda, A, B, C> : gpu_impl::gpu_gemm<cuda_impl::cuda_runtime, A, B, C> {};
template <>
struct matmul_colsum_tuned<Kokkos::Cuda> : gpu_impl::gpu_colsum<cuda_impl::cuda_runtime> {};
}  // namespace kernwerk::impl

#if KERNWERK_ENABLE_CUBLAS
namespace kernwerk::cuda_impl {

// A cuBLAS handle a stream (a handle's workspace serves one stream's kernels at a time: a handle
// shared between streams would have to wait for each call), created on a stream's first call and
// destroyed when Kokkos finalises. The lock covers enqueuing a call, not running it.
inline cublasHandle_t cublas_handle(cudaStream_t stream, std::unique_lock<std::mutex>& lock) {
  static std::mutex mutex;
  static std::unordered_map<cudaStream_t, cublasHandle_t>* handles = nullptr;
  lock = std::unique_lock<std::mutex>(mutex);
  if (!handles) {
    handles = new std::unordered_map<cudaStream_t, cublasHandle_t>();
    Kokkos::push_finalize_hook([] {
      std::lock_guard<std::mutex> guard(mutex);
      for (const auto& entry : *handles) cublasDestroy(entry.second);
      delete handles;
      handles = nullptr;
    });
  }
  const auto found = handles->find(stream);
  if (found != handles->end()) return found->second;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
    throw error("kernwerk::gemm (cuBLAS): cublasCreate failed");
  if (cublasSetStream(handle, stream) != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(handle);
    throw error("kernwerk::gemm (cuBLAS): cublasSetStream failed");
  }
  handles->emplace(stream, handle);
  return handle;
}

// A View as cuBLAS sees a matrix: column-major with a leading dimension, transposed or not.
struct cublas_operand {
  bool transposed;  // the View is row-major: cuBLAS reads its transpose
  int leading;
};
template <class V>
bool describe(const V& v, bool want_transpose_of_view, cublas_operand& out) {
  const std::size_t rows = v.extent(0), columns = v.extent(1);
  const bool column_major = rows < 2 || v.stride(0) == 1;
  const bool row_major = columns < 2 || v.stride(1) == 1;
  std::size_t leading;
  bool transposed;
  if (column_major && !(row_major && want_transpose_of_view)) {
    transposed = want_transpose_of_view;
    leading = columns < 2 ? std::max<std::size_t>(rows, 1) : v.stride(1);
    if (leading < std::max<std::size_t>(rows, 1)) return false;
  } else if (row_major) {
    transposed = !want_transpose_of_view;
    leading = rows < 2 ? std::max<std::size_t>(columns, 1) : v.stride(0);
    if (leading < std::max<std::size_t>(columns, 1)) return false;
  } else {
    return false;
  }
  if (leading > std::size_t(1) << 31) return false;
  out = {transposed, int(leading)};
  return true;
}

template <class A, class B, class C>
struct cublas_gemm {
  using T = typename C::value_type;
  static constexpr bool available = std::is_same_v<T, float> || std::is_same_v<T, double>;
  // C column-major: C = op(A) op(B). C row-major: C^T = op(B^T) op(A^T), column-major.
  static bool plan(const A& a, const B& b, const C& c, cublas_operand& first,
                   cublas_operand& second, cublas_operand& out, bool& swapped) {
    if (!available) return false;
    const bool c_column_major = c.extent(0) < 2 || c.stride(0) == 1;
    const bool c_row_major = c.extent(1) < 2 || c.stride(1) == 1;
    if (c_column_major) {
      swapped = false;
      return describe(a, false, first) && describe(b, false, second) && describe(c, false, out) &&
             !out.transposed;
    }
    if (!c_row_major) return false;
    swapped = true;
    return describe(b, true, first) && describe(a, true, second) && describe(c, true, out) &&
           !out.transposed;
  }
  static bool covers(const A& a, const B& b, const C& c) {
    cublas_operand x, y, z;
    bool swapped;
    return plan(a, b, c, x, y, z, swapped) && a.extent(0) < (1u << 31) &&
           a.extent(1) < (1u << 31) && b.extent(1) < (1u << 31);
  }
  static void run(const Kokkos::Cuda& space, double alpha, const A& a, const B& b, double beta,
                  const C& c) {
    cublas_operand x, y, z;
    bool swapped = false;
    plan(a, b, c, x, y, z, swapped);
    std::unique_lock<std::mutex> lock;
    const cublasHandle_t handle = cublas_handle(space.cuda_stream(), lock);
    const int m = int(c.extent(0)), n = int(c.extent(1)), k = int(a.extent(1));
    const T al = T(alpha), be = T(beta);
    const auto op = [](const cublas_operand& o) { return o.transposed ? CUBLAS_OP_T : CUBLAS_OP_N; };
    const vendor_cache_preference preference;
    cublasStatus_t status;
    if constexpr (std::is_same_v<T, float>)
      status = swapped ? cublasSgemm(handle, op(x), op(y), n, m, k, &al, b.data(), x.leading,
                                     a.data(), y.leading, &be, c.data(), z.leading)
                       : cublasSgemm(handle, op(x), op(y), m, n, k, &al, a.data(), x.leading,
                                     b.data(), y.leading, &be, c.data(), z.leading);
    else
      status = swapped ? cublasDgemm(handle, op(x), op(y), n, m, k, &al, b.data(), x.leading,
                                     a.data(), y.leading, &be, c.data(), z.leading)
                       : cublasDgemm(handle, op(x), op(y), m, n, k, &al, a.data(), x.leading,
                                     b.data(), y.leading, &be, c.data(), z.leading);
    if (status != CUBLAS_STATUS_SUCCESS)
      throw error("kernwerk::gemm (cuBLAS): status " + std::to_string(int(status)));
  }
};

}  // namespace kernwerk::cuda_impl

namespace kernwerk::impl {
template <class A, class B, class C>
struct gemm_vendor<Kokkos::Cuda, A, B, C> : cuda_impl::cublas_gemm<A, B, C> {};
}  // namespace kernwerk::impl
#endif  // KERNWERK_ENABLE_CUBLAS

#endif  // KOKKOS_ENABLE_CUDA
